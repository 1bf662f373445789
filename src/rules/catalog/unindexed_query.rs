//! `unindexed-query`: a query shape that scans a large collection
//! (`COLLSCAN`) to return a small part of it (Atlas, Compass). A frequent
//! shape that `index-esr` reports is not reported twice.

use serde_json::json;

use crate::rules::shapes;
use crate::rules::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "unindexed-query",
    title: "Query scanning a large collection",
    explanation: (
        "A collection scan reads every document to return a few: its cost grows with the collection, not with the answer, and it pushes the working set out of the cache for every other query. An index on the query's fields (equality, then sort, then range) lets the server read only the documents it returns.",
        "全集合扫描为了返回少数文档要读取每一个文档：它的代价随集合增长，而不是随结果增长，还会把其他查询的工作集挤出缓存。在查询字段上建立索引（先等值、再排序、后范围），服务器就只需读取它返回的文档。",
    ),
    source: "MongoDB Atlas Performance Advisor, Compass (explain plan: COLLSCAN); seeds/003 (ESR rule)",
    check: Check::Collection(check, Basis::Metadata),
    needs: Workload,
    limits: {
        /// documents examined per document returned by a collection scan
        min_docs_per_returned: 100.0,
        /// documents in the collection for a scan to matter
        min_documents: 10_000.0,
    },
}

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
        if t.enabled("index-esr") && crate::rules::index_esr::needs(ctx, s, w.total_ms, t).is_some() {
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
                ("threshold", crossed(t, Key::min_docs_per_returned)),
            ]),
            remedy: Remedy::EsrIndex {
                keys,
                extends: extends.map(|i| i.name.clone()),
            },
        });
    }
    out
}
