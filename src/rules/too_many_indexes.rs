//! `too-many-indexes`: more indexes than a collection should carry
//! (Compass: 10, Atlas: 30).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::source::IndexKind;

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
        remedy: match per_attribute(ctx) {
            Some(object) => Remedy::Attribute { object },
            None => Remedy::ReviewIndexes,
        },
    }]
}

/// Single-field indexes on this many children of one embedded object are
/// one index per attribute: the attribute pattern's case (seeds 003), where
/// one index on `{k, v}` pairs serves every attribute.
const PER_ATTRIBUTE: usize = 3;

/// The embedded object whose children carry the most single-field indexes,
/// when there are at least [`PER_ATTRIBUTE`] of them.
fn per_attribute(ctx: &CollectionCtx<'_>) -> Option<String> {
    let mut per_parent = std::collections::BTreeMap::<&str, usize>::new();
    for i in ctx.data.indexes {
        if i.kinds != [IndexKind::Single] || i.partial.is_some() || i.unique {
            continue;
        }
        let Some((path, _)) = i.key.iter().next() else {
            continue;
        };
        if let Some((parent, _)) = path.rsplit_once('.') {
            *per_parent.entry(parent).or_default() += 1;
        }
    }
    per_parent
        .into_iter()
        .filter(|&(_, n)| n >= PER_ATTRIBUTE)
        .filter(|&(parent, _)| {
            ctx.field(parent)
                .is_some_and(|f| f.main_type() == Some(BsonType::Object))
        })
        .max_by_key(|&(_, n)| n)
        .map(|(parent, _)| parent.to_owned())
}
