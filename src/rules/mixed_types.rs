//! `mixed-types`: one path, several types (seed 002: polymorphic documents
//! and schema evolution — old documents keep the old shape until migrated).

use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Severity, Thresholds};
use crate::advise;
use crate::fmt::percent;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;

const RULE: &str = "mixed-types";

fn family(t: BsonType) -> u8 {
    match t {
        BsonType::Double | BsonType::Int | BsonType::Long | BsonType::Decimal => 0,
        BsonType::String | BsonType::Symbol => 1,
        BsonType::Date | BsonType::Timestamp => 2,
        other => 10 + other as u8,
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_share = t.get(RULE, "min-share");
    let mut out = Vec::new();
    for f in ctx.fields() {
        let non_null: Vec<(BsonType, u64)> = f
            .types
            .iter()
            .copied()
            .filter(|(t, _)| !matches!(t, BsonType::Null | BsonType::Undefined))
            .collect();
        let total: u64 = non_null.iter().map(|x| x.1).sum();
        if total == 0 {
            continue;
        }
        let counted: Vec<(BsonType, u64)> = non_null
            .into_iter()
            .filter(|(_, c)| *c as f64 / total as f64 >= min_share)
            .collect();
        if counted.len() < 2 {
            continue;
        }
        let mut families: Vec<u8> = counted.iter().map(|(t, _)| family(*t)).collect();
        families.sort_unstable();
        families.dedup();
        let severity = if families.len() > 1 {
            Severity::Warning
        } else {
            Severity::Info
        };
        let breakdown: Vec<String> = counted
            .iter()
            .map(|(t, c)| format!("{} {}", t.alias(), percent(*c as f64 / total as f64)))
            .collect();
        let types_json: serde_json::Map<String, serde_json::Value> = counted
            .iter()
            .map(|(t, c)| (t.alias().to_owned(), json!(c)))
            .collect();
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(f.path.clone()),
            message: if severity == Severity::Info {
                lang.pick(
                    format!("{} mixes numeric widths ({}) {}", f.path, breakdown.join(", "), ctx.scope(lang)),
                    format!("{} 混用了不同宽度的数值类型（{}），{}", f.path, breakdown.join("、"), ctx.scope(lang)),
                )
            } else {
                lang.pick(
                    format!("{} holds different types ({}) {}", f.path, breakdown.join(", "), ctx.scope(lang)),
                    format!("{} 保存了不同类型的值（{}），{}", f.path, breakdown.join("、"), ctx.scope(lang)),
                )
            },
            evidence: evidence([
                ("types", serde_json::Value::Object(types_json)),
                ("values", json!(total)),
                ("sampled", json!(ctx.sampled())),
                ("threshold", crossed(t, RULE, "min-share")),
            ]),
            explanation: lang.pick(
                "A path with two types is usually two versions of the schema living side by side: queries that compare, sort or index it see two orders (numbers sort before strings), aggregations silently skip what they cannot convert, and every reader must handle both. The seeds accept schema evolution — migrate documents piece by piece and record which version each has — but the old shape should not stay forever. Different numeric widths (int/long/double) compare correctly and matter less.".to_owned(),
                "一个路径上出现两种类型，通常意味着两个版本的模式并存：比较、排序或建索引时会出现两种顺序（数字排在字符串之前），聚合会悄悄跳过无法转换的值，每个读取方都得兼容两种类型。种子材料接受模式演进——分批迁移文档并记录每个文档的版本——但旧结构不应永远留下。不同宽度的数值（int/long/double）之间可以正确比较，影响较小。".to_owned(),
            ),
            source: "seeds/002 (polymorphic schemas, schema evolution)".into(),
            suggestion: advise::convert_types(ctx, f, lang),
        });
    }
    out
}
