//! `document-near-limit`: documents at or near MongoDB's 16 MiB limit, or
//! forecast to reach it (seeds 001, 002, 003; Compass warns at 10 MB).
//!
//! The forecast starts from the largest document, the one at risk, so the
//! size and the forecast told side by side never contradict each other.

use serde::Serialize;

use crate::rules::context::SCOPE_COLLECTION;
use crate::rules::extremes::Sizes;
use crate::rules::{
    extremes, CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{bytes, percent};
use crate::i18n::Lang;
use crate::profile::sketch::Summary;
use crate::profile::Seg;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "document-near-limit",
    title: "Document near the 16 MiB limit",
    explanation: (
        "MongoDB refuses any document over 16 MiB, so a write that would cross the limit fails outright; long before that, every read and update moves megabytes. The seeds: reference what is large (MBs, near 16 MiB), what changes often, and what grows without a cap — keep in the document only what is read with it.",
        "MongoDB 拒绝任何超过 16 MiB 的文档，越过上限的写入会直接失败；远在此之前，每次读写都要搬动数兆字节的数据。种子材料：内嵌文档太大（数 MB 或接近 16 MiB）、频繁修改或持续增长没有封顶时，应使用引用——文档中只保留与它一起读取的数据。",
    ),
    source: "seeds/001 (when to reference), seeds/002, seeds/003; Compass (10 MB)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// document size that warrants a warning
        warning_bytes: 10_000_000.0,
        /// document size that is critical (75 % of 16 MiB)
        critical_bytes: 12_582_912.0,
        /// forecast horizon for growing documents, in days
        forecast_days: 365.0,
    },
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let warn = t.document_near_limit.warning_bytes;
    let crit = t.document_near_limit.critical_bytes;
    let horizon = t.document_near_limit.forecast_days;
    let s = ctx.data.doc_size;
    // The largest document of the whole collection, where it was measured:
    // a sample almost never holds the one document near the limit.
    let whole = ctx.data.extremes.filter(|e| e.max_bytes().is_some());
    let max = ctx.largest_bytes() as f64;
    let forecast = ctx
        .fields()
        .iter()
        .filter_map(|f| {
            ctx.growth_of(&f.path)
                .filter(|g| g.is_significant(0.5))
                .and_then(|g| g.days_to_limit.map(|d| (f, d)))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, d)| *d <= horizon);
    if max < warn && forecast.is_none() {
        return Vec::new();
    }
    let severity = if max >= crit {
        Severity::Critical
    } else {
        Severity::Warning
    };
    // The path carrying the most bytes is what to move.
    let heaviest = ctx
        .fields()
        .iter()
        .filter(|f| !f.segments.contains(&Seg::Elem) && f.path != "_id")
        .max_by(|a, b| a.bytes_avg.total_cmp(&b.bytes_avg));
    let key = if max >= crit {
        Key::critical_bytes
    } else if max >= warn {
        Key::warning_bytes
    } else {
        Key::forecast_days
    };
    let evidence = NearLimit {
        doc_size: s,
        sampled: ctx.sampled(),
        limit_bytes: LIMIT_BYTES,
        threshold: Crossed::of(t, key),
        extremes: whole.map(Sizes),
        scope: (whole.is_some() && max >= warn).then_some(SCOPE_COLLECTION),
        heaviest_path: heaviest.map(|h| Heaviest {
            path: &h.path,
            bytes_avg: h.bytes_avg,
            share: h.bytes_share,
        }),
        forecast_days: forecast.map(|(_, d)| d),
        // The forecast starts from the largest document.
        forecast: forecast.map(|(f, d)| Forecast {
            path: &f.path,
            from: "largest document",
            from_bytes: max as u64,
            days: d,
        }),
        largest: max,
        warning_bytes: warn,
        measured: ctx.measured(),
    };
    let remedy = match heaviest {
        Some(h) if h.array.is_some() => Remedy::Subset {
            array: h.path.clone(),
            keep: 50,
        },
        Some(h) => Remedy::Separate {
            path: h.path.clone(),
        },
        None => Remedy::Discriminator { shapes: Vec::new() },
    };
    let path = heaviest.map(|h| h.path.clone());
    vec![Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy)]
}

/// The size MongoDB refuses a document over: 16 MiB.
const LIMIT_BYTES: u64 = 16 * 1024 * 1024;

/// What `document-near-limit` measured.
#[derive(Serialize)]
struct NearLimit<'a> {
    doc_size: Summary,
    sampled: u64,
    limit_bytes: u64,
    threshold: Crossed,
    /// The sizes of the whole collection, where they were measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    extremes: Option<Sizes<'a>>,
    /// `collection` when the largest size judged is the whole collection's.
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'static str>,
    /// The path carrying the most bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    heaviest_path: Option<Heaviest<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    forecast_days: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    forecast: Option<Forecast<'a>>,
    /// The largest document's size, in bytes.
    #[serde(skip)]
    largest: f64,
    #[serde(skip)]
    warning_bytes: f64,
    #[serde(skip)]
    measured: Measured,
}

/// The path carrying the most bytes, and its share of them.
#[derive(Serialize)]
struct Heaviest<'a> {
    path: &'a str,
    bytes_avg: f64,
    share: f64,
}

/// When the path growing fastest takes the largest document past 16 MiB.
#[derive(Serialize)]
struct Forecast<'a> {
    path: &'a str,
    from: &'static str,
    from_bytes: u64,
    days: f64,
}

impl Evidence for NearLimit<'_> {
    fn describe(&self, lang: Lang) -> String {
        let then = self.forecast.as_ref().map(|f| {
            let (en, zh) = crate::fmt::duration_days(f.days);
            let (path, size) = (f.path, bytes(self.largest));
            lang.pick(
                format!("{path} grows so that the largest document ({size}) passes 16 MiB in about {en}"),
                format!("{path} 持续增长，按当前速度最大的文档（{size}）约{zh}后将超过 16 MiB"),
            )
        });
        if self.largest < self.warning_bytes {
            return then.unwrap_or_default();
        }
        let then = then
            .map(|t| lang.pick(format!("; {t}"), format!("；{t}")))
            .unwrap_or_default();
        match self.extremes {
            Some(Sizes(e)) => self.whole(e, &then, lang),
            None => self.profiled(&then, lang),
        }
    }
}

impl NearLimit<'_> {
    /// The largest document of the whole collection, and how many are over
    /// the warning size, followed by `then`.
    fn whole(&self, e: &crate::source::Extremes, then: &str, lang: Lang) -> String {
        let (size, share) = (bytes(self.largest), percent(self.largest / LIMIT_BYTES as f64));
        let whole = extremes::whole(e, lang);
        let id = extremes::largest_id(e).unwrap_or_default();
        let id = match (id.is_empty(), lang) {
            (true, _) => String::new(),
            (false, Lang::En) => format!(", _id {id}"),
            (false, Lang::Zh) => format!("，_id {id}"),
        };
        let over = e.over(extremes::NEAR_LIMIT_WARNING).unwrap_or(0);
        let (n, warn) = (crate::fmt::group(over), bytes(self.warning_bytes));
        let p95 = bytes(self.doc_size.p95 as f64);
        let are = if over == 1 { "document is" } else { "documents are" };
        lang.pick(
            format!("the largest document {whole} is {size} ({share} of the 16 MiB limit{id}); {n} {are} over {warn} (p95 of the sample {p95}){then}"),
            format!("{whole}最大的文档为 {size}（达到 16 MiB 上限的 {share}{id}）；{n} 个文档超过 {warn}（样本 p95 {p95}）{then}"),
        )
    }

    /// The largest document profiled, followed by `then`.
    fn profiled(&self, then: &str, lang: Lang) -> String {
        let (size, share) = (bytes(self.largest), percent(self.largest / LIMIT_BYTES as f64));
        let p95 = bytes(self.doc_size.p95 as f64);
        let scope = self.measured.words(lang);
        lang.pick(
            format!("the largest document {scope} is {size} ({share} of the 16 MiB limit; p95 {p95}){then}"),
            format!("{scope}最大的文档为 {size}（达到 16 MiB 上限的 {share}；p95 {p95}）{then}"),
        )
    }
}
