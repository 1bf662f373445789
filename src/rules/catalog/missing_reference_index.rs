//! `missing-reference-index`: a parent reference with no index starting
//! with it, so finding a parent's children scans the collection (seed 003:
//! "确保引用字段有索引"; 004).
//!
//! Advised where a query needs it: with a workload, the reference its
//! shapes filter or `$lookup` on; without one, parent references only —
//! never a to-one pointer held by the one side (a user's profile picture:
//! nobody finds the user by it). Its severity follows the cost measured,
//! the documents one lookup scans: info below
//! [`Limits::warning_documents`]. An export without metadata knows no
//! index: there the finding says the indexes are unknown, and is made only
//! where the scan would matter.

use serde::Serialize;

use crate::rules::context::ShapesView;
use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::relate::Kind;
use crate::workload::Predicate;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "missing-reference-index",
    title: "Reference field without an index",
    explanation: (
        "A parent reference is read by querying the children for the parent's id. Without an index on that field each such query is a collection scan, and an application-level join that should cost one index lookup costs the whole collection. The seeds are explicit: make sure every reference field has an index — then application joins are nearly as cheap as a relational join.",
        "父引用的读取方式是用父文档的 id 去查询子文档。如果该字段没有索引，每次这样的查询都是全集合扫描，本应只需一次索引查找的应用层关联就要付出扫描整个集合的代价。种子材料说得很明确：确保引用字段有索引——这样应用层级别的 join 并不会比关系数据库的 join 开销大多少。",
    ),
    source: "seeds/003 (确保引用字段有索引), seeds/000 (rule 4), seeds/004",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// documents a lookup scans from which a missing index is a warning
        warning_documents: 1_000.0,
        /// child collection size that makes a missing index critical
        critical_documents: 1_000_000.0,
    },
}

/// Whether the workload reads this collection by the reference: a shape
/// filtering on it by equality (or `$in`), or a `$lookup` from another
/// collection whose `foreignField` it is.
fn queried_by(w: &ShapesView<'_>, ns: &str, dotted: &str) -> bool {
    let filtered = w.shapes.iter().any(|(_, s)| {
        s.predicates
            .iter()
            .any(|(f, p)| f == dotted && matches!(p, Predicate::Equality | Predicate::In))
    });
    let coll = ns.split_once('.').map_or(ns, |(_, c)| c);
    filtered
        || w.all.iter().any(|s| {
            s.pipeline.as_ref().is_some_and(|p| {
                crate::rules::lookup_on_hot_path::lookups(p)
                    .iter()
                    .any(|l| l.from == coll && l.foreign.as_deref() == Some(dotted))
            })
        })
}

/// What `missing-reference-index` found on one reference.
#[derive(Serialize)]
struct Unindexed<'a> {
    /// What it references.
    reference: &'a str,
    kind: Kind,
    /// The documents one lookup scans.
    documents: u64,
    indexes: Vec<&'a str>,
    indexes_known: bool,
    /// Why it is advised: the workload reads by it, or it is a parent
    /// reference.
    advised_for: &'static str,
    threshold: Crossed,
    #[serde(skip)]
    path: &'a str,
}

impl Evidence for Unindexed<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (path, to, docs) = (self.path, self.reference, group(self.documents));
        if self.indexes_known {
            lang.pick(
                format!("{path} references {to} but no index starts with it: finding one parent's children scans {docs} documents"),
                format!("{path} 引用了 {to}，但没有以它开头的索引：查找某个父文档的子文档需要扫描 {docs} 个文档"),
            )
        } else {
            lang.pick(
                format!("{path} references {to}; this source carries no index definitions, so whether an index starts with it is unknown: without one, finding one parent's children scans {docs} documents"),
                format!("{path} 引用了 {to}；该数据源不含索引定义，无法得知是否有以它开头的索引：若没有，查找某个父文档的子文档需要扫描 {docs} 个文档"),
            )
        }
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let limits = &t.missing_reference_index;
    let mut out = Vec::new();
    let indexes_known = !ctx.data.indexes.is_empty();
    let workload = ctx.workload.as_ref().filter(|w| !w.shapes.is_empty());
    for r in &ctx.relationships {
        // Whether an index starts with the field: known, or unknown for a
        // field held once per document of a source without indexes.
        let unindexed = match r.indexed {
            Some(indexed) => !indexed,
            None => !indexes_known && !r.from_path.contains("[]"),
        };
        if r.from_ns != ctx.ns() || !unindexed {
            continue;
        }
        if !crate::relate::first_of_path(&ctx.relationships, r) {
            continue;
        }
        let dotted = r.from_path.replace("[]", "");
        if let Some(w) = workload {
            // The workload says which references are read by.
            if !queried_by(w, ctx.ns(), &dotted) {
                continue;
            }
        } else {
            if !matches!(
                r.kind,
                Kind::ParentReference | Kind::TwoWayReference | Kind::ExtendedReference
            ) || r.to_one_pointer
            {
                continue;
            }
            // A reference copied along with a whole document is the
            // source's to index, not the copy's.
            if crate::relate::inside_a_copy(r, &ctx.relationships) {
                continue;
            }
        }
        let docs = ctx.documents();
        let (severity, key) = if docs as f64 > limits.critical_documents {
            (Severity::Critical, Key::critical_documents)
        } else if docs as f64 >= limits.warning_documents {
            (Severity::Warning, Key::warning_documents)
        } else {
            (Severity::Info, Key::warning_documents)
        };
        // Unknown indexes claim nothing where the scan is cheap.
        if !indexes_known && severity == Severity::Info {
            continue;
        }
        let severity = if indexes_known {
            severity
        } else {
            Severity::Info
        };
        let evidence = Unindexed {
            reference: &r.to,
            kind: r.kind,
            documents: docs,
            indexes: ctx.data.indexes.iter().map(|i| i.name.as_str()).collect(),
            indexes_known,
            advised_for: if workload.is_some() {
                "workload"
            } else {
                "parent-reference"
            },
            threshold: Crossed::of(t, key),
            path: &r.from_path,
        };
        let remedy = Remedy::CreateIndex { keys: dotted };
        let path = Some(r.from_path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}
