//! `time-series-per-event`: many small documents, each one event of a few
//! series (seed 002 ch. 4, operational intelligence; 003 bucket pattern).
//!
//! The series key's distinct values are those of the collection, not of
//! the sample: a sample of 1,000 sees every one of a few dozen sensors
//! whatever the collection's size, so the count is estimated for the whole
//! collection (Duj1 from the sample's frequency profile, stated with its
//! inputs in the evidence; exact when every document was read).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{bytes, group, percent};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;

const RULE: &str = "time-series-per-event";

/// `[time-series-per-event]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// collection size from which per-event storage is judged
    pub min_documents: f64,
    /// average document size below which documents are events
    pub max_avg_bytes: f64,
    /// share of documents with a date
    pub date_presence: f64,
    /// distinct series-key values per 100 documents, at most
    pub series_per_100: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            min_documents: 10_000.0,
            max_avg_bytes: 256.0,
            date_presence: 0.95,
            series_per_100: 1.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    (
        "min-documents",
        "collection size from which per-event storage is judged",
    ),
    (
        "max-avg-bytes",
        "average document size below which documents are events",
    ),
    ("date-presence", "share of documents with a date"),
    (
        "series-per-100",
        "distinct series-key values per 100 documents, at most",
    ),
];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_docs = t.time_series_per_event.min_documents;
    let max_avg = t.time_series_per_event.max_avg_bytes;
    let date_presence = t.time_series_per_event.date_presence;
    let per_100 = t.time_series_per_event.series_per_100;
    let docs = ctx.documents() as f64;
    let avg = ctx.data.doc_size.avg;
    if docs < min_docs || avg >= max_avg || ctx.sampled() == 0 {
        return Vec::new();
    }
    if ctx.data.kind == crate::source::CollectionKind::Timeseries {
        return Vec::new();
    }
    let n = ctx.sampled() as f64;
    let top = || ctx.fields().iter().filter(|f| f.depth == 0);
    let Some(date) = top()
        .filter(|f| f.type_count(BsonType::Date) as f64 / n >= date_presence)
        .max_by_key(|f| f.count)
    else {
        return Vec::new();
    };
    let series = top()
        .filter(|f| f.path != "_id" && f.path != date.path && f.presence >= date_presence)
        .filter(|f| {
            matches!(
                f.main_type(),
                Some(BsonType::String | BsonType::ObjectId | BsonType::Int | BsonType::Long)
            )
        })
        .filter_map(|f| {
            f.population_distinct(ctx.documents(), ctx.sampled())
                .map(|e| (f, e))
        })
        .filter(|(_, e)| e.estimate >= 1 && (e.estimate as f64) <= per_100 * docs / 100.0)
        .min_by_key(|(_, e)| e.estimate);
    let Some((series, est)) = series else {
        return Vec::new();
    };
    let distinct = est.estimate;
    let how = if est.estimator == "Duj1" {
        lang.pick(
            format!(
                " (estimated for the collection by Duj1 from {} in the sample)",
                group(est.d)
            ),
            format!("（由样本中的 {} 个按 Duj1 估计全集合）", group(est.d)),
        )
    } else {
        String::new()
    };
    vec![Finding {
        rule: RULE,
        severity: Severity::Warning,
        namespace: ctx.ns().to_owned(),
        path: Some(date.path.clone()),
        message: lang.pick(
            format!("{} documents of {} on average, each one event: {} is a date in {} of them {} and {} has only about {} distinct values{how}, {} documents per series", group(ctx.documents()), bytes(avg), date.path, percent(date.presence), ctx.scope(lang), series.path, group(distinct), group(ctx.documents() / distinct.max(1))),
            format!("{} 个平均仅 {} 的文档，每个文档只记录一个事件：{}{} 的文档有日期字段 {}，而 {} 只有约 {} 个不同的值{how}，每个序列 {} 个文档", group(ctx.documents()), bytes(avg), ctx.scope(lang), percent(date.presence), date.path, series.path, group(distinct), group(ctx.documents() / distinct.max(1))),
        ),
        evidence: evidence([
            ("documents", json!(ctx.documents())),
            ("avg_bytes", json!(avg)),
            ("date_field", json!({"path": date.path, "presence": date.presence})),
            ("series_key", json!({"path": series.path, "distinct": distinct, "sample_distinct": est.d})),
            ("distinct_estimate", json!(est)),
            ("sampled", json!(ctx.sampled())),
            ("threshold", crossed(t, RULE, "series-per-100")),
        ]),
        remedy: Remedy::Bucket {
            date: date.path.clone(),
            series: Some(series.path.clone()),
        },
    }]
}
