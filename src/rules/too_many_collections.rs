//! `too-many-collections`: databases with hundreds of collections, or a
//! deployment with tens of thousands (Atlas: 100 per database; Compass and
//! the manual: 10,000).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, DeploymentCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;

const RULE: &str = "too-many-collections";

/// `[too-many-collections]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// collections in one database beyond which to inform
    pub per_database: f64,
    /// collections in the deployment from which to warn
    pub per_deployment: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            per_database: 100.0,
            per_deployment: 10_000.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    (
        "per-database",
        "collections in one database beyond which to inform",
    ),
    (
        "per-deployment",
        "collections in the deployment from which to warn",
    ),
];

pub fn check(ctx: &DeploymentCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let per_db = t.too_many_collections.per_database;
    let total = t.too_many_collections.per_deployment;
    let mut out = Vec::new();
    let deployment_warn = ctx.total as f64 >= total;
    for (db, names) in &ctx.databases {
        let n = &names.len();
        let over_db = *n as f64 > per_db;
        if !over_db && !deployment_warn {
            continue;
        }
        let severity = if deployment_warn {
            Severity::Warning
        } else {
            Severity::Info
        };
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: (*db).to_owned(),
            path: None,
            message: lang.pick(
                format!(
                    "database {db} has {} collections ({} in all databases read)",
                    group(*n as u64),
                    group(ctx.total as u64)
                ),
                format!(
                    "数据库 {db} 有 {} 个集合（所读取的全部数据库共 {} 个）",
                    group(*n as u64),
                    group(ctx.total as u64)
                ),
            ),
            evidence: evidence([
                ("collections", json!(n)),
                ("deployment_collections", json!(ctx.total)),
                (
                    "threshold",
                    crossed(
                        t,
                        RULE,
                        if deployment_warn {
                            "per-deployment"
                        } else {
                            "per-database"
                        },
                    ),
                ),
            ]),
            remedy: Remedy::MergeCollections {
                db: db.to_string(),
                colls: similar(names),
            },
        });
    }
    out
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
