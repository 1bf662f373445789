//! `deep-nesting`: documents nested dozens of levels deep (the server
//! refuses 100 levels).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::profile::Seg;

const RULE: &str = "deep-nesting";

/// `[deep-nesting]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// nesting depth beyond which to warn
    pub warning: f64,
    /// nesting depth that is critical (the server refuses 100)
    pub critical: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            warning: 20.0,
            critical: 90.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[
    ("warning", "nesting depth beyond which to warn"),
    (
        "critical",
        "nesting depth that is critical (the server refuses 100)",
    ),
];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let (warn, crit) = (t.deep_nesting.warning, t.deep_nesting.critical);
    let depth = f64::from(ctx.data.max_depth);
    if depth <= warn {
        return Vec::new();
    }
    let severity = if depth >= crit {
        Severity::Critical
    } else {
        Severity::Warning
    };
    let deepest = ctx.fields().iter().max_by_key(|f| f.depth);
    // Move the top-level field that holds the deepest path.
    let top = deepest.and_then(|d| {
        let first = d.segments.first()?.clone();
        ctx.fields()
            .iter()
            .find(|f| f.segments == [first.clone()] && first != Seg::Elem)
    });
    let mut findings = Vec::new();
    let Some(top) = top else { return findings };
    findings.push(Finding {
        rule: RULE,
        severity,
        namespace: ctx.ns().to_owned(),
        path: deepest.map(|d| d.path.clone()),
        message: lang.pick(
            format!(
                "documents nest {} levels deep {} (under {})",
                ctx.data.max_depth,
                ctx.scope(lang),
                top.path
            ),
            format!(
                "{}文档嵌套深达 {} 层（在 {} 之下）",
                ctx.scope(lang),
                ctx.data.max_depth,
                top.path
            ),
        ),
        evidence: evidence([
            ("max_depth", json!(ctx.data.max_depth)),
            ("deepest_path", json!(deepest.map(|d| &d.path))),
            ("server_limit", json!(100)),
            (
                "threshold",
                crossed(
                    t,
                    RULE,
                    if severity == Severity::Critical {
                        "critical"
                    } else {
                        "warning"
                    },
                ),
            ),
        ]),
        remedy: Remedy::Flatten {
            path: top.path.clone(),
        },
    });
    findings
}
