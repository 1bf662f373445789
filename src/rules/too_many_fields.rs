//! `too-many-fields`: hundreds or thousands of distinct paths (Compass
//! cannot export more than 1,000 fields).
//!
//! Paths under objects `dynamic-keys` already reports (keys that are data)
//! are not counted again. A fixed schema — most paths present in most
//! documents that have their parent, a wide but settled document such as a tweet — is not what
//! the attribute pattern is for: below the warning threshold it is not
//! reported, above it the suggestion is to move the widest object out.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::{FieldProfile, Seg};

const RULE: &str = "too-many-fields";

/// `[too-many-fields]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// distinct paths beyond which to inform
    pub info: f64,
    /// distinct paths beyond which to warn
    pub warning: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            info: 200.0,
            warning: 1_000.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    ("info", "distinct paths beyond which to inform"),
    ("warning", "distinct paths beyond which to warn"),
];

/// Median presence of the paths where they could be: each path's share
/// of the documents that have its parent (top-level paths: of all). Above
/// one half, most paths are present in most documents where they can be —
/// a fixed schema, however wide (a tweet); attributes that vary between
/// documents each appear in a fraction of them.
fn median_presence(ctx: &CollectionCtx<'_>, fields: &[&FieldProfile]) -> f64 {
    let counts: HashMap<&[Seg], u64> = ctx
        .fields()
        .iter()
        .map(|f| (f.segments.as_slice(), f.count))
        .collect();
    let docs = ctx.sampled().max(1);
    let mut p: Vec<f64> = fields
        .iter()
        .map(|f| {
            let parent = f.segments.len().saturating_sub(1);
            let of = if parent == 0 {
                docs
            } else {
                counts.get(&f.segments[..parent]).copied().unwrap_or(docs)
            };
            f.count as f64 / of.max(1) as f64
        })
        .collect();
    if p.is_empty() {
        return 0.0;
    }
    p.sort_by(f64::total_cmp);
    p[p.len() / 2]
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let (info, warn) = (t.too_many_fields.info, t.too_many_fields.warning);
    // Objects whose keys are data, already reported by `dynamic-keys`.
    let dynamic: Vec<Vec<Seg>> = if t.enabled("dynamic-keys") {
        super::dynamic_keys::check(ctx, t, lang)
            .iter()
            .filter_map(|f| f.path.as_deref())
            .filter_map(|p| ctx.field(p))
            .map(|f| f.segments.clone())
            .collect()
    } else {
        Vec::new()
    };
    let counted: Vec<&FieldProfile> = ctx
        .fields()
        .iter()
        .filter(|f| {
            !dynamic
                .iter()
                .any(|d| f.segments.len() > d.len() && f.segments.starts_with(d))
        })
        .collect();
    let n = counted.len();
    let severity = if n as f64 > warn {
        Severity::Warning
    } else if n as f64 > info {
        Severity::Info
    } else {
        return Vec::new();
    };
    let median = median_presence(ctx, &counted);
    let fixed = median > 0.5;
    if fixed && severity == Severity::Info {
        return Vec::new();
    }
    // The object with the most keys is where the paths come from.
    let widest = counted
        .iter()
        .copied()
        .filter(|f| f.main_type() == Some(BsonType::Object))
        .max_by_key(|f| f.children);
    let at_least = if ctx.data.paths_capped {
        lang.pick("at least ", "至少 ")
    } else {
        ""
    };
    let Some(widest) = widest else {
        return Vec::new();
    };
    let remedy = if fixed {
        Remedy::Separate {
            path: widest.path.clone(),
        }
    } else {
        Remedy::Attribute {
            object: widest.path.clone(),
        }
    };
    vec![Finding {
        rule: RULE,
        severity,
        namespace: ctx.ns().to_owned(),
        path: Some(widest.path.clone()),
        message: lang.pick(
            format!(
                "{at_least}{} distinct paths {}; {} alone has {} keys",
                group(n as u64),
                ctx.scope(lang),
                widest.path,
                group(widest.children as u64)
            ),
            format!(
                "{}共有{at_least}{} 个不同的路径；其中 {} 一个字段就有 {} 个键",
                ctx.scope(lang),
                group(n as u64),
                widest.path,
                group(widest.children as u64)
            ),
        ),
        evidence: evidence([
            ("paths", json!(n)),
            ("paths_under_dynamic_keys", json!(ctx.fields().len() - n)),
            ("median_presence", json!(median)),
            ("fixed_schema", json!(fixed)),
            ("sampled", json!(ctx.sampled())),
            ("paths_capped", json!(ctx.data.paths_capped)),
            (
                "widest_object",
                json!({"path": widest.path, "keys": widest.children}),
            ),
            (
                "threshold",
                crossed(
                    t,
                    RULE,
                    if severity == Severity::Warning {
                        "warning"
                    } else {
                        "info"
                    },
                ),
            ),
        ]),
        remedy,
    }]
}
