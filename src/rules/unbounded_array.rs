//! `unbounded-array`: arrays that grow with the document's age, or are
//! already too long to stay embedded (seed 000, rule 3: "数组不应该无限制增长";
//! 001: when to reference; Atlas > 10,000; Compass ≥ 250).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::context::SCOPE_COLLECTION;
use super::{crossed, evidence, extremes, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::Seg;

const RULE: &str = "unbounded-array";

/// `[unbounded-array]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// rank correlation of length with age that counts as growth
    pub min_correlation: f64,
    /// documents needed to judge growth
    pub min_documents: f64,
    /// array length that is too long whatever its growth
    pub max_length: f64,
    /// length of arrays of sub-documents or strings that is too long
    pub max_subdocument_length: f64,
    /// forecast (days to 16 MiB) that makes growth critical
    pub critical_days: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            min_correlation: 0.5,
            min_documents: 30.0,
            max_length: 10_000.0,
            max_subdocument_length: 250.0,
            critical_days: 365.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    (
        "min-correlation",
        "rank correlation of length with age that counts as growth",
    ),
    ("min-documents", "documents needed to judge growth"),
    (
        "max-length",
        "array length that is too long whatever its growth",
    ),
    (
        "max-subdocument-length",
        "length of arrays of sub-documents or strings that is too long",
    ),
    (
        "critical-days",
        "forecast (days to 16 MiB) that makes growth critical",
    ),
];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_corr = t.unbounded_array.min_correlation;
    let min_docs = t.unbounded_array.min_documents;
    let max_len = t.unbounded_array.max_length;
    let max_sub = t.unbounded_array.max_subdocument_length;
    let critical_days = t.unbounded_array.critical_days;
    let mut out = Vec::new();
    for f in ctx.fields() {
        let Some(a) = f.array else { continue };
        let elem_type = ctx
            .children_of(f)
            .find(|c| c.segments.last() == Some(&Seg::Elem))
            .and_then(crate::profile::FieldProfile::main_type);
        let heavy_elems = matches!(elem_type, Some(BsonType::Object | BsonType::String));
        let growing = ctx
            .growth_of(&f.path)
            .filter(|g| g.n as f64 >= min_docs && g.correlation >= min_corr && g.per_day > 0.0);
        // The longest in the whole collection, where it was measured: a
        // sample almost never holds the one array that grew without bound.
        let whole = ctx
            .data
            .extremes
            .and_then(|e| e.array_max(&f.path).map(|m| (e, m)));
        let longest = whole.map_or(a.max, |(_, m)| m.max(a.max));
        let too_long = longest as f64 >= max_len;
        let long_heavy = heavy_elems && longest as f64 >= max_sub;
        if growing.is_none() && !too_long && !long_heavy {
            continue;
        }
        // Arrays of plain references are `large-reference-array`'s concern
        // unless they grow.
        if growing.is_none() && elem_type == Some(BsonType::ObjectId) {
            continue;
        }
        let soon = growing
            .and_then(|g| g.days_to_limit)
            .is_some_and(|d| d <= critical_days);
        let severity = if soon || too_long {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let mut ev = evidence([
            ("array_length", json!(a)),
            ("sampled", json!(ctx.sampled())),
            ("element_type", json!(elem_type.map(BsonType::alias))),
        ]);
        let scope = match whole {
            Some((e, m)) => {
                ev.insert(
                    "longest_in_collection".into(),
                    json!({"length": m, "documents": e.documents, "method": e.method}),
                );
                if growing.is_none() {
                    ev.insert("scope".into(), json!(SCOPE_COLLECTION));
                }
                extremes::whole(e, lang)
            }
            None => ctx.scope(lang),
        };
        let message = if let Some(g) = growing {
            ev.insert("growth".into(), json!(g));
            ev.insert("threshold".into(), crossed(t, RULE, "min-correlation"));
            let forecast = g.days_to_limit.map_or_else(
                || {
                    lang.pick(
                        "it would take centuries to reach 16 MiB at this pace".to_owned(),
                        "按此速度需要几百年才会达到 16 MiB".to_owned(),
                    )
                },
                |d| {
                    let (en, zh) = crate::fmt::duration_days(d);
                    let when = lang.pick(en, zh);
                    lang.pick(
                        format!(
                            "at this pace the largest document ({}) passes 16 MiB in {when}",
                            crate::fmt::bytes(ctx.largest_bytes() as f64)
                        ),
                        format!(
                            "按此速度，最大的文档（{}）将在{when}后超过 16 MiB",
                            crate::fmt::bytes(ctx.largest_bytes() as f64)
                        ),
                    )
                },
            );
            lang.pick(
                format!("{} grows with document age (+{:.2} elements/day, rank correlation {:.2} over {} documents; longest {}); {forecast}", f.path, g.per_day, g.correlation, g.n, group(longest)),
                format!("{} 随文档年龄增长（每天 +{:.2} 个元素，{} 个文档上的秩相关系数 {:.2}；最长 {}）；{forecast}", f.path, g.per_day, g.n, g.correlation, group(longest)),
            )
        } else if too_long {
            ev.insert("threshold".into(), crossed(t, RULE, "max-length"));
            lang.pick(
                format!(
                    "{} holds up to {} elements {scope} (p95 {}, average {:.1} in the sample)",
                    f.path,
                    group(longest),
                    group(a.p95),
                    a.avg
                ),
                format!(
                    "{} 最多有 {} 个元素，{scope}（样本 p95 {}，平均 {:.1}）",
                    f.path,
                    group(longest),
                    group(a.p95),
                    a.avg
                ),
            )
        } else {
            ev.insert(
                "threshold".into(),
                crossed(t, RULE, "max-subdocument-length"),
            );
            lang.pick(
                format!(
                    "{} holds up to {} {} {scope} (p95 {} in the sample)",
                    f.path,
                    group(longest),
                    if elem_type == Some(BsonType::String) {
                        "strings"
                    } else {
                        "sub-documents"
                    },
                    group(a.p95)
                ),
                format!(
                    "{} 最多包含 {} 个{}，{scope}（样本 p95 {}）",
                    f.path,
                    group(longest),
                    if elem_type == Some(BsonType::String) {
                        "字符串"
                    } else {
                        "子文档"
                    },
                    group(a.p95)
                ),
            )
        };
        let remedy = if growing.is_some() || too_long {
            Remedy::ParentReference {
                array: f.path.clone(),
            }
        } else {
            Remedy::Subset {
                array: f.path.clone(),
                keep: a.p95.clamp(10, 100),
            }
        };
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(f.path.clone()),
            message,
            evidence: ev,
            remedy,
        });
    }
    out
}
