//! `unindexed-query`: a query shape that scans a large collection
//! (`COLLSCAN`) to return a small part of it (Atlas, Compass). A frequent
//! shape that `index-esr` reports is not reported twice.

use serde::Serialize;
use serde_json::Value;

use crate::rules::shapes::{self, EsrKey};
use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::workload::Shape;
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
        let evidence = Scanned {
            shape: shapes::evidence(rank, s, w.total_ms),
            index: key.as_ref().map(shapes::key_evidence),
            documents: ctx.documents(),
            threshold: Crossed::of(t, Key::min_docs_per_returned),
            s,
            total_ms: w.total_ms,
            scans,
            per_returned: dpr,
            key: key.as_ref(),
        };
        let keys = key.as_ref().map(shapes::EsrKey::keys).unwrap_or_default();
        let extends = key.as_ref().and_then(|k| shapes::extendable(ctx, k));
        let path = keys.first().map(|(f, _)| f.clone());
        let remedy = Remedy::EsrIndex {
            keys,
            extends: extends.map(|i| i.name.clone()),
        };
        out.push(Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `unindexed-query` found of one shape that scans the collection.
#[derive(Serialize)]
struct Scanned<'a> {
    shape: Value,
    /// The index that serves the shape; `null` when no single one does.
    index: Option<Value>,
    documents: u64,
    threshold: Crossed,
    #[serde(skip)]
    s: &'a Shape,
    #[serde(skip)]
    total_ms: u64,
    /// Runs that scanned the collection.
    #[serde(skip)]
    scans: u64,
    /// Documents examined per document returned.
    #[serde(skip)]
    per_returned: f64,
    #[serde(skip)]
    key: Option<&'a EsrKey>,
}

impl Evidence for Scanned<'_> {
    fn describe(&self, lang: Lang) -> String {
        let fix = self.key.map_or_else(
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
        let s = self.s;
        let (label, cost) = (shapes::label(s), shapes::cost(s, self.total_ms, lang));
        let (docs, scans) = (group(self.documents), group(self.scans));
        let per = group(self.per_returned.round() as u64);
        lang.pick(
            format!("{label} {cost}; {scans} of its runs scanned the whole collection of {docs} documents, examining {per} documents per document returned; {fix}"),
            format!("{label} {cost}；其中 {scans} 次扫描了整个集合（{docs} 个文档），每返回一个文档检查 {per} 个文档；{fix}"),
        )
    }
}
