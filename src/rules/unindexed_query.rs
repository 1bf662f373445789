//! `unindexed-query`: a query shape that scans a large collection
//! (`COLLSCAN`) to return a small part of it (Atlas, Compass). A frequent
//! shape that `index-esr` reports is not reported twice.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::shapes;
use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;

const RULE: &str = "unindexed-query";

/// `[unindexed-query]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// documents examined per document returned by a collection scan
    pub min_docs_per_returned: f64,
    /// documents in the collection for a scan to matter
    pub min_documents: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            min_docs_per_returned: 100.0,
            min_documents: 10_000.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    (
        "min-docs-per-returned",
        "documents examined per document returned by a collection scan",
    ),
    (
        "min-documents",
        "documents in the collection for a scan to matter",
    ),
];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let Some(w) = &ctx.workload else {
        return Vec::new();
    };
    let l = &t.unindexed_query;
    if (ctx.documents() as f64) < l.min_documents {
        return Vec::new();
    }
    let mut out = Vec::new();
    for &(rank, s) in &w.shapes {
        let scans = shapes::collscans(s);
        let dpr = shapes::per_returned(s.docs_examined, s);
        if !shapes::is_query(s) || scans == 0 || dpr < l.min_docs_per_returned {
            continue;
        }
        // One cause, one finding: a frequent shape is index-esr's.
        if t.enabled("index-esr") && super::index_esr::needs(ctx, s, w.total_ms, t).is_some() {
            continue;
        }
        let key = shapes::esr_key(ctx, s);
        if key
            .as_ref()
            .is_some_and(|k| shapes::served_by(ctx, k).is_some())
        {
            continue;
        }
        let fix = key.as_ref().map_or_else(
            || {
                lang.pick(
                    "no single index serves its filter as written".to_owned(),
                    "按现在的写法，没有单个索引能满足它的过滤条件".to_owned(),
                )
            },
            |k| {
                lang.pick(
                    format!("an index {} (equality, sort, range) serves it", k.show()),
                    format!("索引 {}（等值、排序、范围）可以满足它", k.show()),
                )
            },
        );
        let docs = group(ctx.documents());
        let message = lang.pick(
            format!(
                "{} {}; {} of its runs scanned the whole collection of {docs} documents, examining {} documents per document returned; {fix}",
                shapes::label(s),
                shapes::cost(s, w.total_ms, lang),
                group(scans),
                group(dpr.round() as u64),
            ),
            format!(
                "{} {}；其中 {} 次扫描了整个集合（{docs} 个文档），每返回一个文档检查 {} 个文档；{fix}",
                shapes::label(s),
                shapes::cost(s, w.total_ms, lang),
                group(scans),
                group(dpr.round() as u64),
            ),
        );
        let keys = key.as_ref().map(shapes::EsrKey::keys).unwrap_or_default();
        let extends = key.as_ref().and_then(|k| shapes::extendable(ctx, k));
        out.push(Finding {
            rule: RULE,
            severity: Severity::Warning,
            namespace: ctx.ns().to_owned(),
            path: keys.first().map(|(f, _)| f.clone()),
            message,
            evidence: evidence([
                ("shape", shapes::evidence(rank, s, w.total_ms)),
                ("index", json!(key.as_ref().map(shapes::key_evidence))),
                ("documents", json!(ctx.documents())),
                ("threshold", crossed(t, RULE, "min-docs-per-returned")),
            ]),
            remedy: Remedy::EsrIndex {
                keys,
                extends: extends.map(|i| i.name.clone()),
            },
        });
    }
    out
}
