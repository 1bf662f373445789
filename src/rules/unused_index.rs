//! `unused-index`: an index no operation used for at least a week, or one
//! on a field no sampled document has (Atlas: 7 days).

use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Severity, Thresholds};
use crate::advise;
use crate::i18n::{num, Lang};

const RULE: &str = "unused-index";

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_days = t.get(RULE, "min-days");
    let mut out = Vec::new();
    for i in &ctx.report.indexes {
        if i.name == "_id_" {
            continue;
        }
        let Some(first) = i.key.keys().next() else {
            continue;
        };
        let usage = ctx
            .index_usage
            .and_then(|u| u.iter().find(|x| x.name == i.name));
        let idle_days = usage
            .and_then(|u| (u.ops == 0).then_some(u.since).flatten())
            .map(|s| (ctx.now - s) / 86_400.0);
        // A field is absent when no sampled document has it at any depth.
        let absent = ctx.sampled() > 0
            && !ctx
                .fields()
                .iter()
                .any(|f| crate::profile::query_path(&f.segments) == *first);
        let (severity, message, threshold) = if absent {
            (
                Severity::Warning,
                lang.pick(
                    format!(
                        "index {} is on {first}, which none of the {} sampled documents has",
                        i.name,
                        num(ctx.sampled())
                    ),
                    format!(
                        "索引 {} 建在 {first} 上，而抽样的 {} 个文档中没有一个包含该字段",
                        i.name,
                        num(ctx.sampled())
                    ),
                ),
                json!({"name": "unused-index.absent-field", "value": "first key absent from every sampled document"}),
            )
        } else if let Some(d) = idle_days.filter(|d| *d >= min_days && !i.unique) {
            (
                Severity::Info,
                lang.pick(
                    format!(
                        "index {} has served no operation in {d:.0} days ($indexStats)",
                        i.name
                    ),
                    format!(
                        "索引 {} 在 {d:.0} 天内没有被任何操作使用（$indexStats）",
                        i.name
                    ),
                ),
                crossed(t, RULE, "min-days"),
            )
        } else {
            continue;
        };
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(first.clone()),
            message,
            evidence: evidence([
                ("index", json!(i)),
                ("usage", json!(usage)),
                ("sampled", json!(ctx.sampled())),
                ("threshold", threshold),
            ]),
            explanation: lang.pick(
                "An index nobody uses still takes memory and is updated on every write. Counters restart when the server restarts, so check every member of a replica set before dropping; an index on a field that no sampled document has is often a leftover of an old schema (or a typo in the field name).".to_owned(),
                "没人使用的索引仍然占用内存，并在每次写入时被更新。计数器会在服务器重启后清零，所以删除前要检查副本集的每个成员；建在抽样文档都没有的字段上的索引，往往是旧模式留下的（或者字段名拼错了）。".to_owned(),
            ),
            source: "MongoDB Atlas performance advisor (unused indexes, 7 days); seeds/002 (index size uses RAM)".into(),
            suggestion: advise::drop_index(
                ctx,
                &i.name,
                lang.pick(format!("Drop {} after checking it is unused on every member.", i.name), format!("确认所有成员上都未使用后，删除 {}。", i.name)),
                lang,
            ),
        });
    }
    out
}
