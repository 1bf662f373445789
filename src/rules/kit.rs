//! Test kit: collections built in memory from documents, profiled as an
//! audit profiles them, for table-driven rule tests.

use bson::Document;

use super::{CollectionCtx, Finding, Thresholds};
use crate::i18n::Lang;
use crate::source::{CollectionMeta, SampleOutcome};

pub use super::testing::Collection;

/// `sampled` documents profiled out of a collection of `documents`
/// (`documents == sampled.len()` for a collection read in full).
pub(crate) fn report(name: &str, sampled: &[Document], documents: u64) -> Collection {
    let kept: Vec<Vec<u8>> = sampled
        .iter()
        .map(|d| {
            let mut raw = Vec::new();
            d.to_writer(&mut raw).expect("document encodes");
            raw
        })
        .collect();
    let mut meta = CollectionMeta::new("kit", name);
    meta.documents = Some(documents);
    let all = documents == sampled.len() as u64;
    let outcome = SampleOutcome {
        read: sampled.len() as u64,
        method: if all { "all" } else { "$sample" }.into(),
        total: all.then_some(documents),
        partial: None,
        skipped: 0,
    };
    let mut r = Collection::new(meta, &outcome, kept);
    let largest = r.profile.doc_size.max;
    r.growth = crate::growth::measure(&r.profile, &r.kept, largest, 0.5);
    r
}

/// Every enabled rule on `r`, with the default thresholds, in English.
pub(crate) fn check(r: &Collection) -> Vec<Finding> {
    let ctx = CollectionCtx {
        data: r.data(),
        relationships: Vec::new(),
        drift: Vec::new(),
        index_usage: None,
        now: 1.8e9,
        workload: None,
    };
    super::check_collection(&ctx, &Thresholds::default(), Lang::En)
}

/// The findings of one rule.
pub(crate) fn fired<'a>(findings: &'a [Finding], rule: &str) -> Vec<&'a Finding> {
    findings.iter().filter(|f| f.rule == rule).collect()
}

/// Every enabled rule on `r` with thresholds `t`, in English.
pub(crate) fn check_with(r: &Collection, t: &Thresholds) -> Vec<Finding> {
    let ctx = CollectionCtx {
        data: r.data(),
        relationships: Vec::new(),
        drift: Vec::new(),
        index_usage: None,
        now: 1.8e9,
        workload: None,
    };
    super::check_collection(&ctx, t, Lang::En)
}

/// The severity of `rule`'s first finding, if it fired.
pub(crate) fn severity_of(findings: &[Finding], rule: &str) -> Option<super::Severity> {
    findings.iter().find(|f| f.rule == rule).map(|f| f.severity)
}

/// Every enabled rule on `r` with thresholds `t`, seeing the shapes of
/// `workload` that are `r`'s.
pub(crate) fn check_workload(
    r: &Collection,
    t: &Thresholds,
    workload: &crate::workload::Workload,
) -> Vec<Finding> {
    let ctx = CollectionCtx {
        data: r.data(),
        relationships: Vec::new(),
        drift: Vec::new(),
        index_usage: None,
        now: 1.8e9,
        workload: Some(super::ShapesView::of(workload, &r.namespace)),
    };
    super::check_collection(&ctx, t, Lang::En)
}

/// A workload from `(runs, "Slow query" attr)` pairs: each attr logged
/// `runs` times, as mongod 4.4+ writes it.
pub(crate) fn workload(entries: &[(u64, serde_json::Value)]) -> crate::workload::Workload {
    let mut r = crate::workload::Reader::new();
    for (runs, attr) in entries {
        let line = serde_json::json!({
            "t": {"$date": "2026-11-20T16:25:13.475+00:00"},
            "s": "I", "c": "COMMAND", "id": 51803, "ctx": "conn1",
            "msg": "Slow query", "attr": attr,
        })
        .to_string();
        for _ in 0..*runs {
            r.line(&line);
        }
    }
    r.finish()
}
