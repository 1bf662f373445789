//! `unused-index`: an index no operation used for at least a week, or one
//! that reads only fields no document of the collection has (Atlas: 7
//! days). What absence means for each kind of index is `source::index`'s.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::source::index::{absence, present_paths, Absence, IfAbsent};
use crate::source::IndexInfo;

const RULE: &str = "unused-index";

/// `[unused-index]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// days of index statistics needed to call an index unused
    pub min_days: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { min_days: 7.0 }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[(
    "min-days",
    "days of index statistics needed to call an index unused",
)];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_days = t.unused_index.min_days;
    let present = present_paths(ctx.fields());
    let mut out = Vec::new();
    for i in ctx.data.indexes {
        if i.name == "_id_" {
            continue;
        }
        let read = i.fields_read();
        let Some(first) = read.first().or(i.key.keys().next()) else {
            continue;
        };
        // A shape whose plan used the index: never unused.
        let used_by = shapes_using(ctx, i);
        if used_by > 0 {
            continue;
        }
        let usage = ctx
            .index_usage
            .and_then(|u| u.iter().find(|x| x.name == i.name));
        let idle_days = usage
            .and_then(|u| (u.ops == 0).then_some(u.since).flatten())
            .map(|s| (ctx.now - s) / 86_400.0);
        // Absent fields condemn an index only when its kind makes absence
        // meaningful and the whole collection, not only the sample, lacks them.
        let verdict = absence(i, ctx.data.meta, &present, ctx.sampled(), usage);
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
        let mut ev = evidence([
            ("index", json!(i)),
            ("usage", json!(usage)),
            ("sampled", json!(ctx.sampled())),
            ("threshold", threshold),
        ]);
        let mut message = message;
        if let Some(w) = ctx.workload.as_ref().filter(|w| !w.shapes.is_empty()) {
            let runs: u64 = w.shapes.iter().map(|(_, s)| s.count).sum();
            ev.insert(
                "workload".into(),
                json!({"shapes": w.shapes.len(), "runs": runs, "shapes_using_it": 0}),
            );
            message.push_str(&lang.pick(
                format!(
                    "; none of the {} query shapes of the workload ({} runs) used it",
                    group(w.shapes.len() as u64),
                    group(runs)
                ),
                format!(
                    "；工作负载中的 {} 种查询形状（{} 次运行）都没有用到它",
                    group(w.shapes.len() as u64),
                    group(runs)
                ),
            ));
        }
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(first.clone()),
            message,
            evidence: ev,
            remedy: if ttl {
                Remedy::TtlField { index: i.clone() }
            } else {
                Remedy::DropIndex {
                    name: i.name.clone(),
                    covered_by: None,
                }
            },
        });
    }
    out
}

/// `{ a: 1, b: -1 }`: an index key as `planSummary` writes it.
fn plan_key(i: &IndexInfo) -> String {
    let parts: Vec<String> = i
        .key
        .iter()
        .map(|(k, v)| match v {
            serde_json::Value::Number(n) => match n.as_f64() {
                Some(f) if f.fract() == 0.0 => format!("{k}: {}", f as i64),
                _ => format!("{k}: {n}"),
            },
            serde_json::Value::String(s) => format!("{k}: \"{s}\""),
            other => format!("{k}: {other}"),
        })
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

/// Runs of the workload's shapes of this collection whose plan used `i`.
pub fn shapes_using(ctx: &CollectionCtx<'_>, i: &IndexInfo) -> u64 {
    let Some(w) = &ctx.workload else { return 0 };
    let key = plan_key(i);
    w.shapes
        .iter()
        .flat_map(|(_, s)| &s.plans)
        .filter(|(p, _)| p.contains(&key))
        .map(|(_, n)| n)
        .sum()
}
