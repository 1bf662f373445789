//! `too-many-indexes`: more indexes than a collection should carry
//! (Compass: 10, Atlas: 30).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;

const RULE: &str = "too-many-indexes";

/// `[too-many-indexes]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// indexes beyond which to inform
    pub info: f64,
    /// indexes beyond which to warn
    pub warning: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            info: 10.0,
            warning: 30.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    ("info", "indexes beyond which to inform"),
    ("warning", "indexes beyond which to warn"),
];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let n = ctx.data.indexes.len() as f64;
    let (info, warn) = (t.too_many_indexes.info, t.too_many_indexes.warning);
    let severity = if n > warn {
        Severity::Warning
    } else if n > info {
        Severity::Info
    } else {
        return Vec::new();
    };
    let key = if severity == Severity::Warning {
        "warning"
    } else {
        "info"
    };
    vec![Finding {
        rule: RULE,
        severity,
        namespace: ctx.ns().to_owned(),
        path: None,
        message: lang.pick(
            format!("{} has {} indexes", ctx.ns(), ctx.data.indexes.len()),
            format!("{} 有 {} 个索引", ctx.ns(), ctx.data.indexes.len()),
        ),
        evidence: evidence([
            (
                "indexes",
                json!(ctx.data.indexes.iter().map(|i| &i.name).collect::<Vec<_>>()),
            ),
            ("threshold", crossed(t, RULE, key)),
        ]),
        remedy: Remedy::ReviewIndexes,
    }]
}
