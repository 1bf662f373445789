//! `bloated-document`: large documents, or one path carrying most of the
//! bytes (seed 001: a 5–10 MB avatar read in one query of ten; Atlas > 2 MB).

use serde::Serialize;

use crate::rules::context::SCOPE_COLLECTION;
use crate::rules::extremes::Sizes;
use crate::rules::{
    extremes, CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{bytes, percent};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::sketch::Summary;
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
    let Some(target) = target else {
        return Vec::new();
    };
    let key = if heavy.is_some() {
        Key::path_share
    } else {
        Key::p95_bytes
    };
    let evidence = Bloat {
        doc_size: s,
        sampled: ctx.sampled(),
        threshold: Crossed::of(t, key),
        extremes: counted.map(|(e, _)| Sizes(e)),
        scope: (counted.is_some() && heavy.is_none()).then_some(SCOPE_COLLECTION),
        path: heavy.map(|h| Heavy {
            path: &h.path,
            bytes_avg: h.bytes_avg,
            share: h.bytes_share,
            presence: h.presence,
        }),
        path_avg_threshold: heavy.map(|_| Crossed::of(t, Key::path_avg_bytes)),
        p95_limit,
        measured: ctx.measured(),
    };
    let remedy = Remedy::Separate {
        path: target.path.clone(),
    };
    let path = Some(target.path.clone());
    vec![Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy)]
}

/// What `bloated-document` measured.
#[derive(Serialize)]
struct Bloat<'a> {
    doc_size: Summary,
    sampled: u64,
    threshold: Crossed,
    /// The sizes of the whole collection, where they were counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    extremes: Option<Sizes<'a>>,
    /// `collection` when the documents over the size were counted in the
    /// whole collection.
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'static str>,
    /// The path carrying most of the bytes, if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<Heavy<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path_avg_threshold: Option<Crossed>,
    /// The 95th percentile size that is bloated.
    #[serde(skip)]
    p95_limit: f64,
    #[serde(skip)]
    measured: Measured,
}

/// The path carrying most of the bytes.
#[derive(Serialize)]
struct Heavy<'a> {
    path: &'a str,
    bytes_avg: f64,
    share: f64,
    presence: f64,
}

impl Evidence for Bloat<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (p95, avg) = (bytes(self.doc_size.p95 as f64), bytes(self.doc_size.avg));
        let scope = self.measured.words(lang);
        if let Some(h) = &self.path {
            let (path, share, each) = (h.path, percent(h.share), bytes(h.bytes_avg));
            return lang.pick(
                format!("{path} carries {share} of the bytes ({each} per document on average) {scope}"),
                format!("{path} 占了全部字节的 {share}（平均每个文档 {each}），{scope}"),
            );
        }
        let Some(Sizes(e)) = self.extremes else {
            return lang.pick(
                format!("95 % of documents are up to {p95} (average {avg}) {scope}"),
                format!("95% 的文档不超过 {p95}（平均 {avg}），{scope}"),
            );
        };
        let over = e.over(extremes::BLOATED_P95).unwrap_or(0);
        let share = percent(over as f64 / e.documents as f64);
        let (n, limit, whole) = (crate::fmt::group(over), bytes(self.p95_limit), extremes::whole(e, lang));
        lang.pick(
            format!("{n} documents ({share}) are over {limit} {whole} (sample p95 {p95}, average {avg})"),
            format!("{whole}有 {n} 个文档（{share}）超过 {limit}（样本 p95 {p95}，平均 {avg}）"),
        )
    }
}
