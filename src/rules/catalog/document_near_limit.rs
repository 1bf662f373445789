//! `document-near-limit`: documents at or near MongoDB's 16 MiB limit, or
//! forecast to reach it (seeds 001, 002, 003; Compass warns at 10 MB).
//!
//! The forecast starts from the largest document, the one at risk, so the
//! size and the forecast told side by side never contradict each other.

use serde_json::json;

use crate::rules::context::SCOPE_COLLECTION;
use crate::rules::{crossed, evidence, extremes, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{bytes, percent};
use crate::i18n::Lang;
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
    let mut ev = evidence([
        ("doc_size", json!(s)),
        ("sampled", json!(ctx.sampled())),
        ("limit_bytes", json!(16 * 1024 * 1024)),
        (
            "threshold",
            crossed(t, if max >= crit {
                    Key::critical_bytes
                } else if max >= warn {
                    Key::warning_bytes
                } else {
                    Key::forecast_days
                }),
        ),
    ]);
    if let Some(e) = whole {
        ev.insert("extremes".into(), extremes::size_evidence(e));
        if max >= warn {
            ev.insert("scope".into(), json!(SCOPE_COLLECTION));
        }
    }
    if let Some(h) = heaviest {
        ev.insert(
            "heaviest_path".into(),
            json!({"path": h.path, "bytes_avg": h.bytes_avg, "share": h.bytes_share}),
        );
    }
    let limit = 16_777_216.0;
    // The forecast, from the largest document: "path grows so that the
    // largest document (size) passes 16 MiB in …".
    let forecast_text = forecast.map(|(f, d)| {
        ev.insert("forecast_days".into(), json!(d));
        ev.insert(
            "forecast".into(),
            json!({"path": f.path, "from": "largest document", "from_bytes": max as u64, "days": d}),
        );
        let (en, zh) = crate::fmt::duration_days(d);
        (
            format!(
                "{} grows so that the largest document ({}) passes 16 MiB in about {en}",
                f.path,
                bytes(max)
            ),
            format!(
                "{} 持续增长，按当前速度最大的文档（{}）约{zh}后将超过 16 MiB",
                f.path,
                bytes(max)
            ),
        )
    });
    let message = if let (true, Some(e)) = (max >= warn, whole) {
        let (then_en, then_zh) = forecast_text
            .map(|(en, zh)| (format!("; {en}"), format!("；{zh}")))
            .unwrap_or_default();
        let id = extremes::largest_id(e).unwrap_or_default();
        let over = e.over(extremes::NEAR_LIMIT_WARNING).unwrap_or(0);
        lang.pick(
            format!(
                "the largest document {} is {} ({} of the 16 MiB limit{}); {} {} over {} (p95 of the sample {}){then_en}",
                extremes::whole(e, lang),
                bytes(max),
                percent(max / limit),
                if id.is_empty() { String::new() } else { format!(", _id {id}") },
                crate::fmt::group(over),
                if over == 1 { "document is" } else { "documents are" },
                bytes(warn),
                bytes(s.p95 as f64)
            ),
            format!(
                "{}最大的文档为 {}（达到 16 MiB 上限的 {}{}）；{} 个文档超过 {}（样本 p95 {}）{then_zh}",
                extremes::whole(e, lang),
                bytes(max),
                percent(max / limit),
                if id.is_empty() { String::new() } else { format!("，_id {id}") },
                crate::fmt::group(over),
                bytes(warn),
                bytes(s.p95 as f64)
            ),
        )
    } else if max >= warn {
        let (then_en, then_zh) = forecast_text
            .map(|(en, zh)| (format!("; {en}"), format!("；{zh}")))
            .unwrap_or_default();
        lang.pick(
            format!(
                "the largest document {} is {} ({} of the 16 MiB limit; p95 {}){then_en}",
                ctx.scope(lang),
                bytes(max),
                percent(max / limit),
                bytes(s.p95 as f64)
            ),
            format!(
                "{}最大的文档为 {}（达到 16 MiB 上限的 {}；p95 {}）{then_zh}",
                ctx.scope(lang),
                bytes(max),
                percent(max / limit),
                bytes(s.p95 as f64)
            ),
        )
    } else {
        let (en, zh) = forecast_text.unwrap_or_default();
        lang.pick(en, zh)
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
    vec![Finding {
        rule: RULE,
        severity,
        namespace: ctx.ns().to_owned(),
        path: heaviest.map(|h| h.path.clone()),
        message,
        evidence: ev,
        remedy,
    }]
}
