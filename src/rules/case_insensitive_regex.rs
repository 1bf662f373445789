//! `case-insensitive-regex`: a frequent query shape filters with an
//! unanchored or case-insensitive regular expression, which no ordinary
//! index bounds: every key (or document) is read (Atlas).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::shapes;
use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::source::IndexInfo;
use crate::workload::Predicate;

const RULE: &str = "case-insensitive-regex";

/// `[case-insensitive-regex]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// share of the workload's time that makes a shape frequent
    pub min_time_share: f64,
    /// runs that make a shape frequent
    pub min_count: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            min_time_share: 0.01,
            min_count: 100.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    (
        "min-time-share",
        "share of the workload's time that makes a shape frequent",
    ),
    ("min-count", "runs that make a shape frequent"),
];

/// An index that leads with `field` under a case-insensitive collation
/// (strength 1 or 2): an equality query under the same collation is served
/// by it. Made after the log was written, it is the fix already in place.
pub fn case_insensitive_index<'a>(
    ctx: &'a CollectionCtx<'_>,
    field: &str,
) -> Option<&'a IndexInfo> {
    ctx.data.indexes.iter().find(|i| {
        !i.hidden
            && i.partial.is_none()
            && i.key.keys().next().is_some_and(|k| k == field)
            && i.collation
                .as_ref()
                .and_then(|c| c.get("strength"))
                .and_then(serde_json::Value::as_f64)
                .is_some_and(|s| s <= 2.0)
    })
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let Some(w) = &ctx.workload else {
        return Vec::new();
    };
    let l = &t.case_insensitive_regex;
    let mut out = Vec::new();
    for &(rank, s) in &w.shapes {
        if !shapes::is_query(s) || !shapes::frequent(s, w.total_ms, l.min_time_share, l.min_count) {
            continue;
        }
        for (field, p) in &s.predicates {
            if *p != Predicate::ScanRegex || case_insensitive_index(ctx, field).is_some() {
                continue;
            }
            let message = lang.pick(
                format!(
                    "{} {} with plans {}, matching {field} with an unanchored or case-insensitive regular expression: no index bounds it, every key or document is read",
                    shapes::label(s),
                    shapes::cost(s, w.total_ms, lang),
                    shapes::plans(s),
                ),
                format!(
                    "{} {}，执行计划 {}，用未锚定或不区分大小写的正则表达式匹配 {field}：任何索引都无法限定范围，要读取每个索引键或文档",
                    shapes::label(s),
                    shapes::cost(s, w.total_ms, lang),
                    shapes::plans(s),
                ),
            );
            let threshold = if s.count as f64 >= l.min_count {
                crossed(t, RULE, "min-count")
            } else {
                crossed(t, RULE, "min-time-share")
            };
            out.push(Finding {
                rule: RULE,
                severity: Severity::Info,
                namespace: ctx.ns().to_owned(),
                path: Some(shapes::profile_path(ctx, field)),
                message,
                evidence: evidence([
                    ("shape", shapes::evidence(rank, s, w.total_ms)),
                    ("field", json!(field)),
                    ("threshold", threshold),
                ]),
                remedy: Remedy::CollationIndex {
                    field: field.clone(),
                },
            });
        }
    }
    out
}
