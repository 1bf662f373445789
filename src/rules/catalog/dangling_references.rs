//! `dangling-references`: references that point at no document (seed 001:
//! MongoDB has no foreign keys — nothing stops a writer from storing an id
//! that does not exist, or a delete from leaving references behind).

use serde::Serialize;

use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::relate::Kind;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "dangling-references",
    title: "References that point at no document",
    explanation: (
        "MongoDB has no foreign keys: nothing checks that a referenced document exists, and deleting a parent leaves its children's references behind. A dangling reference makes a $lookup return an empty array (or drop the document after $unwind), counts per parent wrong, and application code that assumes the target exists fail. The seeds: the application keeps references consistent — write the parent first, delete children (or mark them) with the parent — and queries must tolerate a missing target.",
        "MongoDB 没有外键：没有任何机制检查被引用的文档是否存在，删除父文档也会留下子文档中的引用。悬空引用会让 $lookup 返回空数组（或在 $unwind 之后丢掉该文档），按父文档统计的数量出错，假设目标一定存在的应用代码也会失败。种子材料：由应用保证引用一致——先写父文档，删除父文档时一并删除（或标记）子文档——并且查询要能容忍目标缺失。",
    ),
    source: "seeds/001 (no foreign keys in MongoDB: the application keeps references consistent)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// share of references pointing at no document to inform
        info_share: 0.01,
        /// share of references pointing at no document to warn
        warning_share: 0.1,
        /// share of references pointing at no document that is critical
        critical_share: 0.5,
    },
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let limits = &t.dangling_references;
    let mut out = Vec::new();
    for r in &ctx.relationships {
        if r.from_ns != ctx.ns() || r.kind == Kind::Embedded || r.references_probed == 0 {
            continue;
        }
        // A reference into several collections is one path: judged once,
        // each class against its own target.
        if !crate::relate::first_of_path(&ctx.relationships, r) {
            continue;
        }
        let (probed, matched) = crate::relate::field_integrity(&ctx.relationships, r);
        if probed == 0 {
            continue;
        }
        let missing = probed.saturating_sub(matched);
        // Counted over references (documents' values, array elements).
        let share = missing as f64 / probed as f64;
        if missing == 0 || share < limits.info_share {
            continue;
        }
        // A reference its name alone proves (small integers) cannot claim
        // that half of its data is broken: the values do not show which
        // missing id was ever a parent.
        let by_name = r
            .evidence
            .as_ref()
            .is_some_and(crate::relate::Evidence::by_name);
        let (severity, key) = if share >= limits.critical_share && !by_name {
            (Severity::Critical, Key::critical_share)
        } else if share >= limits.warning_share {
            (Severity::Warning, Key::warning_share)
        } else {
            (Severity::Info, Key::info_share)
        };
        // Where documents do not regularly keep the field (a stored
        // payload), what its values say is for information.
        let severity = if crate::relate::in_varying_place(r) {
            Severity::Info
        } else {
            severity
        };
        let (lo, hi) = crate::profile::sketch::wilson(missing, probed);
        let evidence = Broken {
            references: probed,
            dangling: missing,
            share,
            share_interval: [lo, hi],
            distinct_values: r.probed,
            distinct_found: r.matched,
            target: &r.to,
            basis: r.evidence.as_ref().and_then(|e| e.accepted_by),
            threshold: Crossed::of(t, key),
            path: &r.from_path,
            targets: targets_of(r),
        };
        let remedy = Remedy::Dangling {
            relationship: (*r).clone(),
        };
        let path = Some(r.from_path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `dangling-references` counted on one reference.
#[derive(Serialize)]
struct Broken<'a> {
    /// References checked (documents' values, array elements).
    references: u64,
    dangling: u64,
    share: f64,
    share_interval: [f64; 2],
    distinct_values: u64,
    distinct_found: u64,
    target: &'a str,
    /// What proved the reference (its values, or its name).
    basis: Option<&'static str>,
    threshold: Crossed,
    #[serde(skip)]
    path: &'a str,
    /// Every target its values should find (`a._id | b._id`).
    #[serde(skip)]
    targets: String,
}

impl Evidence for Broken<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (missing, probed) = (group(self.dangling), group(self.references));
        let (path, share, targets) = (self.path, percent(self.share), &self.targets);
        lang.pick(
            format!("{missing} of {probed} references checked in {path} ({share}) point at no document of {targets}"),
            format!("{path} 中检查的 {probed} 个引用里有 {missing} 个（{share}）指向 {targets} 中不存在的文档"),
        )
    }
}

/// The target a reference's values should find, or every target of a
/// polymorphic one (`a._id or b._id`).
fn targets_of(r: &crate::relate::Relationship) -> String {
    match &r.polymorphic {
        Some(p) if p.targets.len() > 1 => p.targets.join(" | "),
        _ => r.to.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::rules::testing;
    use bson::doc;

    #[test]
    fn fires_by_share_of_references() {
        let docs: Vec<bson::Document> = (0..10).map(|i| doc! {"_id": i, "movie_id": i}).collect();
        let r = testing::report("db.comments", &docs);
        let t = Thresholds::default();
        // (references probed, matched) → severity, or none.
        for (probed, matched, want) in [
            (1000, 1000, None),
            (1000, 991, None),
            (1000, 990, Some(Severity::Info)),
            (1000, 901, Some(Severity::Info)),
            (1000, 900, Some(Severity::Warning)),
            (838, 0, Some(Severity::Critical)),
            (1000, 501, Some(Severity::Warning)),
            (1000, 500, Some(Severity::Critical)),
        ] {
            let rels = [testing::relationship(
                "db.comments",
                "movie_id",
                "db.movies",
                "_id",
                probed,
                matched,
                None,
            )];
            let ctx = testing::ctx(&r, &rels);
            let f = check(&ctx, &t, Lang::En);
            assert_eq!(f.first().map(|x| x.severity), want, "{matched} of {probed}");
            if let Some(x) = f.first() {
                assert_eq!(x.evidence["dangling"], json!(probed - matched));
                assert!(
                    matches!(&x.remedy, Remedy::Dangling { relationship } if relationship.from_path == "movie_id"),
                    "{:?}",
                    x.remedy
                );
            }
        }
        // A relationship into this collection is the other side's finding.
        let rels = [testing::relationship(
            "db.posts",
            "comment_id",
            "db.comments",
            "_id",
            100,
            50,
            None,
        )];
        assert!(check(&testing::ctx(&r, &rels), &t, Lang::En).is_empty());
    }
}
