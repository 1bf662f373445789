//! `too-many-indexes`: more indexes than a collection should carry
//! (Compass: 10, Atlas: 30).

use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;

const RULE: &str = "too-many-indexes";

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let n = ctx.data.indexes.len() as f64;
    let (info, warn) = (t.get(RULE, "info"), t.get(RULE, "warning"));
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
