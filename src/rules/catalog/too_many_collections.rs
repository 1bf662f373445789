//! `too-many-collections`: databases with hundreds of collections, or a
//! deployment with tens of thousands (Atlas: 100 per database; Compass and
//! the manual: 10,000).

use serde::Serialize;

use crate::rules::{Crossed, DeploymentCtx, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::rules::declare::rule;
use crate::rules::registry::Check;

rule! {
    id: "too-many-collections",
    title: "Too many collections",
    explanation: (
        "Every collection has its own files and at least one index, each with memory and file-handle costs, so thousands of collections slow the storage engine, backups and restarts. Many collections with the same shape (one per customer, per day) are better stored as one collection with a field telling them apart.",
        "每个集合都有自己的数据文件和至少一个索引，各自占用内存和文件句柄，成千上万个集合会拖慢存储引擎、备份和重启。结构相同的大量集合（每个客户一个、每天一个）最好合并成一个集合，用一个字段区分。",
    ),
    source: "MongoDB Atlas (100 collections per database), Compass and the manual (10,000); seeds/002 (polymorphic collections)",
    check: Check::Deployment(check),
    needs: Everything,
    limits: {
        /// collections in one database beyond which to inform
        per_database: 100.0,
        /// collections in the deployment from which to warn
        per_deployment: 10_000.0,
    },
}

pub fn check(ctx: &DeploymentCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let per_db = t.too_many_collections.per_database;
    let total = t.too_many_collections.per_deployment;
    let mut out = Vec::new();
    let deployment_warn = ctx.total as f64 >= total;
    for (db, names) in &ctx.databases {
        let n = names.len();
        let over_db = n as f64 > per_db;
        if !over_db && !deployment_warn {
            continue;
        }
        let (severity, key) = if deployment_warn {
            (Severity::Warning, Key::per_deployment)
        } else {
            (Severity::Info, Key::per_database)
        };
        let evidence = CollectionCount {
            collections: n,
            deployment_collections: ctx.total,
            threshold: Crossed::of(t, key),
            db,
        };
        let remedy = Remedy::MergeCollections {
            db: db.to_string(),
            colls: similar(names),
        };
        out.push(Finding::new(RULE, severity, db, None, &evidence, lang, remedy));
    }
    out
}

/// What `too-many-collections` counted in one database.
#[derive(Serialize)]
struct CollectionCount<'a> {
    collections: usize,
    deployment_collections: usize,
    threshold: Crossed,
    #[serde(skip)]
    db: &'a str,
}

impl Evidence for CollectionCount<'_> {
    fn describe(&self, lang: Lang) -> String {
        let db = self.db;
        let (n, total) = (group(self.collections as u64), group(self.deployment_collections as u64));
        lang.pick(
            format!("database {db} has {n} collections ({total} in all databases read)"),
            format!("数据库 {db} 有 {n} 个集合（所读取的全部数据库共 {total} 个）"),
        )
    }
}

/// The largest group of collection names that differ only in trailing
/// digits or separators (`events_2024_01`, `events_2024_02` …).
fn similar(names: &[&str]) -> Vec<String> {
    let mut groups: std::collections::BTreeMap<String, Vec<String>> =
        std::collections::BTreeMap::new();
    for n in names {
        let base =
            n.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_' || c == '-' || c == '.');
        groups
            .entry(base.to_owned())
            .or_default()
            .push((*n).to_owned());
    }
    groups
        .into_values()
        .max_by_key(Vec::len)
        .unwrap_or_default()
}
