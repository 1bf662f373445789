//! `time-series-per-event`: many small documents, each one event of a few
//! series (seed 002 ch. 4, operational intelligence; 003 bucket pattern).
//!
//! The series key's distinct values are those of the collection, not of
//! the sample: a sample of 1,000 sees every one of a few dozen sensors
//! whatever the collection's size, so the count is estimated for the whole
//! collection (Duj1 from the sample's frequency profile, stated with its
//! inputs in the evidence; exact when every document was read).

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{bytes, group, percent};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::sketch::PopulationDistinct;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "time-series-per-event",
    title: "Time series stored one event per document",
    explanation: (
        "One document per event pays the per-document overhead (its _id, index entries, field names) for a few bytes of data, and a query over an hour reads thousands of documents. The bucket pattern stores one document per series and time span with the events in an array and pre-computed counts and sums, cutting document and index counts by an order of magnitude; MongoDB's time-series collections do this for you.",
        "每个事件一个文档，意味着为几个字节的数据付出每个文档固定的开销（_id、索引项、字段名），而查询一小时的数据就要读取成千上万个文档。桶模式按序列和时间段把事件存进一个文档的数组中，并预先计算 count、sum 等统计值，可以把文档数和索引项减少一个数量级；MongoDB 的时间序列集合也会自动这样做。",
    ),
    source: "seeds/002 (ch. 4, operational intelligence), seeds/003 (bucket pattern)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// collection size from which per-event storage is judged
        min_documents: 10_000.0,
        /// average document size below which documents are events
        max_avg_bytes: 256.0,
        /// share of documents with a date
        date_presence: 0.95,
        /// distinct series-key values per 100 documents, at most
        series_per_100: 1.0,
    },
}

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
    let evidence = Events {
        documents: ctx.documents(),
        avg_bytes: avg,
        date_field: DateField {
            path: &date.path,
            presence: date.presence,
        },
        series_key: SeriesKey {
            path: &series.path,
            distinct: est.estimate,
            sample_distinct: est.d,
        },
        distinct_estimate: est,
        sampled: ctx.sampled(),
        threshold: Crossed::of(t, Key::series_per_100),
        measured: ctx.measured(),
    };
    let remedy = Remedy::Bucket {
        date: date.path.clone(),
        series: Some(series.path.clone()),
    };
    let path = Some(date.path.clone());
    vec![Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy)]
}

/// What `time-series-per-event` measured.
#[derive(Serialize)]
struct Events<'a> {
    documents: u64,
    avg_bytes: f64,
    date_field: DateField<'a>,
    series_key: SeriesKey<'a>,
    /// How the series key's distinct values in the collection were counted.
    distinct_estimate: PopulationDistinct,
    sampled: u64,
    threshold: Crossed,
    #[serde(skip)]
    measured: Measured,
}

/// The date each event carries.
#[derive(Serialize)]
struct DateField<'a> {
    path: &'a str,
    presence: f64,
}

/// The field naming the series, and its distinct values in the collection
/// and in the sample.
#[derive(Serialize)]
struct SeriesKey<'a> {
    path: &'a str,
    distinct: u64,
    sample_distinct: u64,
}

impl Evidence for Events<'_> {
    fn describe(&self, lang: Lang) -> String {
        let est = &self.distinct_estimate;
        let how = if est.estimator == "Duj1" {
            let d = group(est.d);
            lang.pick(
                format!(" (estimated for the collection by Duj1 from {d} in the sample)"),
                format!("（由样本中的 {d} 个按 Duj1 估计全集合）"),
            )
        } else {
            String::new()
        };
        let (docs, avg) = (group(self.documents), bytes(self.avg_bytes));
        let (date, presence) = (self.date_field.path, percent(self.date_field.presence));
        let (series, distinct) = (self.series_key.path, group(self.series_key.distinct));
        let per = group(self.documents / self.series_key.distinct.max(1));
        let scope = self.measured.words(lang);
        lang.pick(
            format!("{docs} documents of {avg} on average, each one event: {date} is a date in {presence} of them {scope} and {series} has only about {distinct} distinct values{how}, {per} documents per series"),
            format!("{docs} 个平均仅 {avg} 的文档，每个文档只记录一个事件：{scope}{presence} 的文档有日期字段 {date}，而 {series} 只有约 {distinct} 个不同的值{how}，每个序列 {per} 个文档"),
        )
    }
}
