//! `too-many-indexes`: more indexes than a collection should carry
//! (Compass: 10, Atlas: 30).

use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Severity, Suggestion, Thresholds};
use crate::advise::js_coll;
use crate::i18n::Lang;

const RULE: &str = "too-many-indexes";

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let n = ctx.report.indexes.len() as f64;
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
    let script = format!(
        "// docshape: review which indexes are used before dropping any (read-only).\n{}.aggregate([{{ $indexStats: {{}} }}, {{ $project: {{ name: 1, ops: \"$accesses.ops\", since: \"$accesses.since\" }} }}, {{ $sort: {{ ops: 1 }} }}]).forEach(printjson);\n",
        js_coll(ctx.db(), ctx.coll())
    );
    vec![Finding {
        rule: RULE,
        severity,
        namespace: ctx.ns().to_owned(),
        path: None,
        message: lang.pick(
            format!("{} has {} indexes", ctx.ns(), ctx.report.indexes.len()),
            format!("{} 有 {} 个索引", ctx.ns(), ctx.report.indexes.len()),
        ),
        evidence: evidence([
            ("indexes", json!(ctx.report.indexes.iter().map(|i| &i.name).collect::<Vec<_>>())),
            ("threshold", crossed(t, RULE, key)),
        ]),
        explanation: lang.pick(
            "Each index is kept in memory and updated on every insert and on every update of its fields. Many indexes on one collection usually mean one index per optional attribute; the attribute pattern (an array of {k, v} with one compound index) serves them all, and unused ones can go.".to_owned(),
            "每个索引都驻留内存，并在每次插入以及其字段被更新时维护。一个集合上索引很多，通常意味着每个可选属性都建了一个索引；属性模式（{k, v} 数组加一个复合索引）可以覆盖它们，没人使用的索引则可以删除。".to_owned(),
        ),
        source: "MongoDB Compass (> 10 indexes), Atlas (> 30 indexes); seeds/002 (index size uses RAM)".into(),
        suggestion: Suggestion {
            pattern: "attribute",
            summary: lang.pick(
                "Replace per-attribute indexes by one index on an array of {k, v} attributes, and drop indexes $indexStats shows unused.".to_owned(),
                "用一个建在 {k, v} 属性数组上的索引取代逐个属性的索引（属性模式），并删除 $indexStats 显示未使用的索引。".to_owned(),
            ),
            before: None,
            after: None,
            effect: serde_json::Map::new(),
            migration: script,
        },
    }]
}
