//! `bloated-document`: large documents, or one path carrying most of the
//! bytes (seed 001: a 5–10 MB avatar read in one query of ten; Atlas > 2 MB).

use serde_json::json;

use crate::rules::context::SCOPE_COLLECTION;
use crate::rules::{crossed, evidence, extremes, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{bytes, percent};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::{FieldProfile, Seg};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "bloated-document",
    title: "Large documents, or one field carrying most of the bytes",
    explanation: (
        "Large documents fill the cache with bytes most queries never use, so fewer documents fit in memory and every read costs more I/O. The seeds' avatar example: a 5–10 MB image read by one query in ten belongs in its own collection (or GridFS), referenced from the contact.",
        "大文档会用大多数查询根本不需要的字节填满缓存，内存能容纳的文档变少，每次读取的 I/O 代价更高。种子材料中的头像例子：5–10 MB、十次查询只用到一次的头像，应该放到独立集合（或 GridFS）中，由联系人文档引用。",
    ),
    source: "seeds/001 (avatar 5–10 MB), Atlas schema advisor (> 2 MB)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// 95th percentile document size that is bloated
        p95_bytes: 2_000_000.0,
        /// share of all bytes one path may carry
        path_share: 0.5,
        /// average bytes of that path that make it bloat
        path_avg_bytes: 262_144.0,
    },
}

/// True when the heavy top-level path is all a document holds besides
/// keys (`_id`, ObjectIds, `…_id`/`…Id` names, references to other
/// collections) and fields that say nothing (one value in every document:
/// a version counter never bumped, a constant type tag): the collection
/// exists to hold that value — as the one `separate-collection` creates
/// does — and there is no read of the rest that moving it out would spare.
fn payload_beside_keys(ctx: &CollectionCtx<'_>, heavy: &FieldProfile) -> bool {
    if heavy.depth != 0 {
        return false;
    }
    let is_key = |f: &FieldProfile| {
        f.path == "_id"
            || f.main_type() == Some(BsonType::ObjectId)
            || f.path.ends_with("_id")
            || f.path.ends_with("Id")
            || ctx
                .relationships
                .iter()
                .any(|r| r.from_ns == ctx.ns() && r.from_path == f.path)
            || f.distinct.is_some_and(|d| d.exact && d.estimate <= 1)
    };
    ctx.fields()
        .iter()
        .filter(|f| f.depth == 0 && f.path != heavy.path)
        .all(is_key)
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let p95_limit = t.bloated_document.p95_bytes;
    let share = t.bloated_document.path_share;
    let path_avg = t.bloated_document.path_avg_bytes;
    let s = ctx.data.doc_size;
    let heavy = ctx
        .fields()
        .iter()
        .filter(|f| !f.segments.contains(&Seg::Elem) && f.path != "_id")
        .filter(|f| f.bytes_share >= share && f.bytes_avg >= path_avg)
        .max_by(|a, b| a.bytes_avg.total_cmp(&b.bytes_avg));
    // The share of documents over the p95 limit in the whole collection,
    // where it was counted: p95 is over the limit when more than 5 % are.
    let counted = ctx.data.extremes.and_then(|e| {
        let over = e.over(extremes::BLOATED_P95)?;
        (e.documents > 0).then_some((e, over))
    });
    let big = match counted {
        Some((e, over)) => over as f64 > 0.05 * e.documents as f64,
        None => s.p95 as f64 > p95_limit,
    };
    if !big && heavy.is_none() {
        return Vec::new();
    }
    let target = heavy.or_else(|| {
        ctx.fields()
            .iter()
            .filter(|f| f.depth == 0 && f.path != "_id")
            .max_by(|a, b| a.bytes_avg.total_cmp(&b.bytes_avg))
    });
    // A collection of one value and its keys is already separated.
    if target.is_some_and(|t| payload_beside_keys(ctx, t)) {
        return Vec::new();
    }
    let mut ev = evidence([
        ("doc_size", json!(s)),
        ("sampled", json!(ctx.sampled())),
        (
            "threshold",
            crossed(t, if heavy.is_some() {
                    Key::path_share
                } else {
                    Key::p95_bytes
                }),
        ),
    ]);
    if let Some((e, _)) = counted {
        ev.insert("extremes".into(), extremes::size_evidence(e));
        if heavy.is_none() {
            ev.insert("scope".into(), json!(SCOPE_COLLECTION));
        }
    }
    let message = if let Some(h) = heavy {
        ev.insert("path".into(), json!({"path": h.path, "bytes_avg": h.bytes_avg, "share": h.bytes_share, "presence": h.presence}));
        ev.insert(
            "path_avg_threshold".into(),
            crossed(t, Key::path_avg_bytes),
        );
        lang.pick(
            format!(
                "{} carries {} of the bytes ({} per document on average) {}",
                h.path,
                percent(h.bytes_share),
                bytes(h.bytes_avg),
                ctx.scope(lang)
            ),
            format!(
                "{} 占了全部字节的 {}（平均每个文档 {}），{}",
                h.path,
                percent(h.bytes_share),
                bytes(h.bytes_avg),
                ctx.scope(lang)
            ),
        )
    } else if let Some((e, over)) = counted {
        let share = percent(over as f64 / e.documents as f64);
        lang.pick(
            format!(
                "{} documents ({share}) are over {} {} (sample p95 {}, average {})",
                crate::fmt::group(over),
                bytes(p95_limit),
                extremes::whole(e, lang),
                bytes(s.p95 as f64),
                bytes(s.avg)
            ),
            format!(
                "{}有 {} 个文档（{share}）超过 {}（样本 p95 {}，平均 {}）",
                extremes::whole(e, lang),
                crate::fmt::group(over),
                bytes(p95_limit),
                bytes(s.p95 as f64),
                bytes(s.avg)
            ),
        )
    } else {
        lang.pick(
            format!(
                "95 % of documents are up to {} (average {}) {}",
                bytes(s.p95 as f64),
                bytes(s.avg),
                ctx.scope(lang)
            ),
            format!(
                "95% 的文档不超过 {}（平均 {}），{}",
                bytes(s.p95 as f64),
                bytes(s.avg),
                ctx.scope(lang)
            ),
        )
    };
    let Some(target) = target else {
        return Vec::new();
    };
    vec![Finding {
        rule: RULE,
        severity: Severity::Warning,
        namespace: ctx.ns().to_owned(),
        path: Some(target.path.clone()),
        message,
        evidence: ev,
        remedy: Remedy::Separate {
            path: target.path.clone(),
        },
    }]
}
