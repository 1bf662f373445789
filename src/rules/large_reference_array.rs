//! `large-reference-array`: arrays of references with thousands of entries
//! (seeds 000/004: hundreds of children → an array of ids; thousands → no
//! array at all, the child references its parent).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::Seg;
use crate::relate::Kind;

const RULE: &str = "large-reference-array";

/// `[large-reference-array]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// references in one array that warrant a warning
    pub warning_length: f64,
    /// references in one array that are critical
    pub critical_length: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            warning_length: 1_000.0,
            critical_length: 10_000.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    (
        "warning-length",
        "references in one array that warrant a warning",
    ),
    (
        "critical-length",
        "references in one array that are critical",
    ),
];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let warn = t.large_reference_array.warning_length;
    let crit = t.large_reference_array.critical_length;
    let mut out = Vec::new();
    for f in ctx.fields() {
        let Some(a) = f.array else { continue };
        if (a.max as f64) <= warn {
            continue;
        }
        let elem = ctx
            .children_of(f)
            .find(|c| c.segments.last() == Some(&Seg::Elem));
        let oids =
            elem.is_some_and(|e| e.type_count(BsonType::ObjectId) as f64 >= 0.9 * e.values as f64);
        let rel = ctx.relationships.iter().find(|r| {
            r.from_ns == ctx.ns()
                && r.from_path == f.path
                && matches!(r.kind, Kind::ChildReference | Kind::TwoWayReference)
        });
        if !oids && rel.is_none() {
            continue;
        }
        let severity = if a.max as f64 > crit {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let (child_coll, child_key) = rel.map_or_else(
            || (f.name.clone(), "_id".to_owned()),
            |r| {
                let to =
                    r.to.strip_prefix(&format!("{}.", ctx.db()))
                        .unwrap_or(&r.to);
                match to.split_once('.') {
                    Some((c, k)) => (c.to_owned(), k.to_owned()),
                    None => (to.to_owned(), "_id".to_owned()),
                }
            },
        );
        let mut ev = evidence([
            ("array_length", json!(a)),
            ("sampled", json!(ctx.sampled())),
            ("references", json!(rel.map(|r| r.to.clone()))),
            (
                "threshold",
                crossed(
                    t,
                    RULE,
                    if severity == Severity::Critical {
                        "critical-length"
                    } else {
                        "warning-length"
                    },
                ),
            ),
        ]);
        if rel.is_none() {
            ev.insert(
                "note".into(),
                json!("ObjectIds whose target collection was not found"),
            );
        }
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(f.path.clone()),
            message: lang.pick(
                format!(
                    "{} holds up to {} references {} (p95 {}, average {:.1})",
                    f.path,
                    group(a.max),
                    ctx.scope(lang),
                    group(a.p95),
                    a.avg
                ),
                format!(
                    "{} 最多保存了 {} 个引用，{}（p95 {}，平均 {:.1}）",
                    f.path,
                    group(a.max),
                    ctx.scope(lang),
                    group(a.p95),
                    a.avg
                ),
            ),
            evidence: ev,
            remedy: Remedy::IdsToParentReference {
                array: f.path.clone(),
                child_coll,
                child_key,
            },
        });
    }
    out
}
