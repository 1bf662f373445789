//! `unused-index`: an index no operation used for at least a week, or one
//! that reads only fields no document of the collection has (Atlas: 7
//! days). What absence means for each kind of index is `source::index`'s.

use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Severity, Thresholds};
use crate::advise;
use crate::fmt::group;
use crate::i18n::Lang;
use crate::source::index::{absence, present_paths, Absence, IfAbsent};

const RULE: &str = "unused-index";

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_days = t.get(RULE, "min-days");
    let present = present_paths(ctx.fields());
    let mut out = Vec::new();
    for i in &ctx.report.indexes {
        if i.name == "_id_" {
            continue;
        }
        let read = i.fields_read();
        let Some(first) = read.first().or(i.key.keys().next()) else {
            continue;
        };
        let usage = ctx
            .index_usage
            .and_then(|u| u.iter().find(|x| x.name == i.name));
        let idle_days = usage
            .and_then(|u| (u.ops == 0).then_some(u.since).flatten())
            .map(|s| (ctx.now - s) / 86_400.0);
        // Absent fields condemn an index only when its kind makes absence
        // meaningful and the whole collection, not only the sample, lacks them.
        let verdict = absence(i, &ctx.report.meta, &present, ctx.sampled(), usage);
        let fields = read.join(", ");
        let (severity, message, threshold, ttl) = if let Absence::Absent { effect, check } =
            &verdict
        {
            let how = check.describe(lang);
            let ttl = *effect == IfAbsent::NothingExpires;
            (
                if ttl {
                    Severity::Info
                } else {
                    Severity::Warning
                },
                if ttl {
                    lang.pick(
                        format!("TTL index {} expires documents by {fields}, which no document of the collection has ({how}): nothing ever expires", i.name),
                        format!("TTL 索引 {} 按 {fields} 让文档过期，而集合中没有任何文档包含该字段（{how}）：没有文档会过期", i.name),
                    )
                } else {
                    lang.pick(
                        format!("index {} reads only {fields}, which none of the {} sampled documents has, nor any document of the collection ({how})", i.name, group(ctx.sampled())),
                        format!("索引 {} 只读取 {fields}，抽样的 {} 个文档中没有一个包含它，集合中也没有任何文档包含（{how}）", i.name, group(ctx.sampled())),
                    )
                },
                json!({"name": "unused-index.absent-field", "value": "every field the index reads is absent from the whole collection", "check": check}),
                ttl,
            )
        } else if let Some(d) = idle_days.filter(|d| *d >= min_days && i.idle_means_unused()) {
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
                false,
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
                "An index nobody uses still takes memory and is updated on every write. Counters restart when the server restarts, so check every member of a replica set before dropping; an index that reads only fields no document of the collection has is often a leftover of an old schema (or a typo in the field name). Text, wildcard, geospatial, hashed, unique, partial and hidden indexes are never judged by absent fields, and a TTL index on an absent field only means nothing expires.".to_owned(),
                "没人使用的索引仍然占用内存，并在每次写入时被更新。计数器会在服务器重启后清零，所以删除前要检查副本集的每个成员；只读取集合中没有任何文档包含的字段的索引，往往是旧模式留下的（或者字段名拼错了）。文本、通配符、地理空间、哈希、唯一、部分和隐藏索引从不因字段缺失而被判定，TTL 索引的字段缺失只说明没有文档会过期。".to_owned(),
            ),
            source: "MongoDB Atlas performance advisor (unused indexes, 7 days); seeds/002 (index size uses RAM)".into(),
            suggestion: if ttl {
                advise::ttl_field(ctx, i, lang)
            } else {
                advise::drop_index(
                    ctx,
                    &i.name,
                    lang.pick(format!("Drop {} after checking it is unused on every member.", i.name), format!("确认所有成员上都未使用后，删除 {}。", i.name)),
                    lang,
                )
            },
        });
    }
    out
}
