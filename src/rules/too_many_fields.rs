//! `too-many-fields`: hundreds or thousands of distinct paths (Compass
//! cannot export more than 1,000 fields).

use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Severity, Thresholds};
use crate::advise;
use crate::fmt::group;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;

const RULE: &str = "too-many-fields";

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let (info, warn) = (t.get(RULE, "info"), t.get(RULE, "warning"));
    let n = ctx.fields().len();
    let severity = if n as f64 > warn {
        Severity::Warning
    } else if n as f64 > info {
        Severity::Info
    } else {
        return Vec::new();
    };
    // The object with the most keys is where the paths come from.
    let widest = ctx
        .fields()
        .iter()
        .filter(|f| f.main_type() == Some(BsonType::Object))
        .max_by_key(|f| f.children);
    let at_least = if ctx.report.paths_capped {
        lang.pick("at least ", "至少 ")
    } else {
        ""
    };
    let Some(widest) = widest else {
        return Vec::new();
    };
    vec![Finding {
        rule: RULE,
        severity,
        namespace: ctx.ns().to_owned(),
        path: Some(widest.path.clone()),
        message: lang.pick(
            format!("{at_least}{} distinct paths {}; {} alone has {} keys", group(n as u64), ctx.scope(lang), widest.path, group(widest.children as u64)),
            format!("{}共有{at_least}{} 个不同的路径；其中 {} 一个字段就有 {} 个键", ctx.scope(lang), group(n as u64), widest.path, group(widest.children as u64)),
        ),
        evidence: evidence([
            ("paths", json!(n)),
            ("paths_capped", json!(ctx.report.paths_capped)),
            ("widest_object", json!({"path": widest.path, "keys": widest.children})),
            ("threshold", crossed(t, RULE, if severity == Severity::Warning { "warning" } else { "info" })),
        ]),
        explanation: lang.pick(
            "Thousands of distinct fields mean no query, index or tool can know the shape: Compass stops exporting at 1,000 fields, every index covers a sliver of the data, and the documents are hard to reason about. When the fields are attributes that vary between documents, the attribute pattern (an array of {k, v}) turns them into data with one index.".to_owned(),
            "成千上万个不同字段意味着任何查询、索引或工具都无法掌握文档结构：Compass 导出超过 1,000 个字段就会停止，每个索引只覆盖一小部分数据，文档也难以理解。如果这些字段是因文档而异的属性，属性模式（{k, v} 数组）能把它们变成数据，用一个索引覆盖。".to_owned(),
        ),
        source: "MongoDB Compass (1,000-field export limit); seeds/002 (semi-structured data, attribute arrays)".into(),
        suggestion: advise::attribute(ctx, widest, lang),
    }]
}
