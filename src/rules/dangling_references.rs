//! `dangling-references`: references that point at no document (seed 001:
//! MongoDB has no foreign keys — nothing stops a writer from storing an id
//! that does not exist, or a delete from leaving references behind).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::relate::Kind;

const RULE: &str = "dangling-references";

/// `[dangling-references]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// share of references pointing at no document to inform
    pub info_share: f64,
    /// share of references pointing at no document to warn
    pub warning_share: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            info_share: 0.01,
            warning_share: 0.1,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    (
        "info-share",
        "share of references pointing at no document to inform",
    ),
    (
        "warning-share",
        "share of references pointing at no document to warn",
    ),
];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let info = t.dangling_references.info_share;
    let warn = t.dangling_references.warning_share;
    let mut out = Vec::new();
    for r in &ctx.relationships {
        if r.from_ns != ctx.ns() || r.kind == Kind::Embedded || r.references_probed == 0 {
            continue;
        }
        let probed = r.references_probed;
        let missing = probed.saturating_sub(r.references_matched);
        // Counted over references (documents' values, array elements).
        let share = missing as f64 / probed as f64;
        if missing == 0 || share < info {
            continue;
        }
        let severity = if share >= warn {
            Severity::Warning
        } else {
            Severity::Info
        };
        let (lo, hi) = crate::profile::sketch::wilson(missing, probed);
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(r.from_path.clone()),
            message: lang.pick(
                format!(
                    "{} of {} references checked in {} ({}) point at no document of {}",
                    group(missing),
                    group(probed),
                    r.from_path,
                    percent(share),
                    r.to
                ),
                format!(
                    "{} 中检查的 {} 个引用里有 {} 个（{}）指向 {} 中不存在的文档",
                    r.from_path,
                    group(probed),
                    group(missing),
                    percent(share),
                    r.to
                ),
            ),
            evidence: evidence([
                ("references", json!(probed)),
                ("dangling", json!(missing)),
                ("share", json!(share)),
                ("share_interval", json!([lo, hi])),
                ("distinct_values", json!(r.probed)),
                ("distinct_found", json!(r.matched)),
                ("target", json!(r.to)),
                (
                    "threshold",
                    crossed(
                        t,
                        RULE,
                        if severity == Severity::Warning {
                            "warning-share"
                        } else {
                            "info-share"
                        },
                    ),
                ),
            ]),
            remedy: Remedy::Dangling {
                relationship: (*r).clone(),
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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
            (838, 0, Some(Severity::Warning)),
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
