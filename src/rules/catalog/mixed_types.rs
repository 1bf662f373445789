//! `mixed-types`: one path, several types (seed 002: polymorphic documents
//! and schema evolution — old documents keep the old shape until migrated).

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::percent;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "mixed-types",
    title: "One field, several types",
    explanation: (
        "A path with two types is usually two versions of the schema living side by side: queries that compare, sort or index it see two orders (numbers sort before strings), aggregations silently skip what they cannot convert, and every reader must handle both. The seeds accept schema evolution — migrate documents piece by piece and record which version each has — but the old shape should not stay forever. Different numeric widths (int/long/double) compare correctly and matter less.",
        "一个路径上出现两种类型，通常意味着两个版本的模式并存：比较、排序或建索引时会出现两种顺序（数字排在字符串之前），聚合会悄悄跳过无法转换的值，每个读取方都得兼容两种类型。种子材料接受模式演进——分批迁移文档并记录每个文档的版本——但旧结构不应永远留下。不同宽度的数值（int/long/double）之间可以正确比较，影响较小。",
    ),
    source: "seeds/002 (polymorphic schemas, schema evolution)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// share of values a second type needs to count
        min_share: 0.01,
    },
}

/// 2^53: integers beyond it are not all exact as doubles.
const EXACT_DOUBLE: f64 = 9_007_199_254_740_992.0;

/// Why a mix of numeric widths matters, if it does. int, long and double
/// compare, sort and aggregate as one number, so a mix of them is what JSON
/// writers and drivers produce and is not reported; it matters when a
/// decimal meets binary numbers (decimal arithmetic silently becomes binary
/// floating point, `0.1 + 0.2` no longer exact), or when doubles share a
/// path with integers beyond 2^53, which a double cannot hold exactly.
/// (Integral doubles beyond 2^53 on their own are `lossy-numbers`.)
fn numeric_mix_matters(types: &[(BsonType, u64)], range: Option<[f64; 2]>) -> Option<&'static str> {
    let has = |t: BsonType| types.iter().any(|(x, _)| *x == t);
    let binary = has(BsonType::Double) || has(BsonType::Int) || has(BsonType::Long);
    if has(BsonType::Decimal) && binary {
        return Some("decimal");
    }
    let wide = range.is_some_and(|[lo, hi]| lo.abs() >= EXACT_DOUBLE || hi.abs() >= EXACT_DOUBLE);
    if has(BsonType::Double) && has(BsonType::Long) && wide {
        return Some("beyond-2^53");
    }
    None
}

fn family(t: BsonType) -> u16 {
    match t {
        BsonType::Double | BsonType::Int | BsonType::Long | BsonType::Decimal => 0,
        BsonType::String | BsonType::Symbol => 1,
        BsonType::Date | BsonType::Timestamp => 2,
        other => 10 + u16::from(other as u8),
    }
}

/// What the rule makes of a path's types (counted per value) and the
/// range of its numbers: the types that count, their total, and, when they
/// are all numbers, why their mix matters; `None` when it does not fire.
#[allow(clippy::type_complexity)]
fn judge(
    types: &[(BsonType, u64)],
    range: Option<[f64; 2]>,
    min_share: f64,
) -> Option<(Vec<(BsonType, u64)>, u64, Option<&'static str>)> {
    let non_null: Vec<(BsonType, u64)> = types
        .iter()
        .copied()
        .filter(|(t, _)| !matches!(t, BsonType::Null | BsonType::Undefined))
        .collect();
    let total: u64 = non_null.iter().map(|x| x.1).sum();
    if total == 0 {
        return None;
    }
    let counted: Vec<(BsonType, u64)> = non_null
        .into_iter()
        .filter(|(_, c)| *c as f64 / total as f64 >= min_share)
        .collect();
    if counted.len() < 2 {
        return None;
    }
    let mut families: Vec<u16> = counted.iter().map(|(t, _)| family(*t)).collect();
    families.sort_unstable();
    families.dedup();
    if families.len() > 1 {
        return Some((counted, total, None));
    }
    // Only widths of one number differ: nothing to act on, unless the mix
    // loses something.
    let why = numeric_mix_matters(&counted, range)?;
    Some((counted, total, Some(why)))
}

/// Whether the rule fires on a path holding `types` (counted per value)
/// with numbers in `range`, at the share `min_share`, the relationships
/// of the path aside.
pub fn fires(types: &[(BsonType, u64)], range: Option<[f64; 2]>, min_share: f64) -> bool {
    judge(types, range, min_share).is_some()
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_share = t.mixed_types.min_share;
    let mut out = Vec::new();
    for f in ctx.fields() {
        // A reference kept as ObjectIds and their hex strings (or numbers
        // and numeric strings) is `reference-type-mismatch`'s, with the
        // match rates that say which representation is right.
        if ctx
            .relationships
            .iter()
            .any(|r| r.from_ns == ctx.ns() && r.from_path == f.path && r.representations.is_some())
        {
            continue;
        }
        let Some((counted, total, numeric_reason)) = judge(&f.types, f.number_range, min_share)
        else {
            continue;
        };
        // Across families (string, number, date …) a warning; a numeric
        // mix that loses something, info.
        let severity = if numeric_reason.is_none() {
            Severity::Warning
        } else {
            Severity::Info
        };
        let evidence = Mixed {
            types: Counts(counted),
            values: total,
            numeric_reason,
            sampled: ctx.sampled(),
            threshold: Crossed::of(t, Key::min_share),
            path: &f.path,
            measured: ctx.measured(),
        };
        let remedy = Remedy::ConvertType {
            path: f.path.clone(),
            reaudit: crate::rules::Reaudit::of(t),
        };
        let path = Some(f.path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `mixed-types` counted on one path.
#[derive(serde::Serialize)]
struct Mixed<'a> {
    /// The types that count, with their values.
    types: Counts,
    /// Values of any type but null.
    values: u64,
    /// Why a mix of numbers matters (`decimal`, `beyond-2^53`); null when
    /// the types are of different families.
    numeric_reason: Option<&'static str>,
    sampled: u64,
    threshold: Crossed,
    #[serde(skip)]
    path: &'a str,
    #[serde(skip)]
    measured: Measured,
}

/// Values per type, in order: `{"string": 880, "int": 120}`.
struct Counts(Vec<(BsonType, u64)>);

impl Serialize for Counts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (t, c) in &self.0 {
            m.serialize_entry(t.alias(), c)?;
        }
        m.end()
    }
}

impl Evidence for Mixed<'_> {
    fn describe(&self, lang: Lang) -> String {
        let breakdown: Vec<String> = self
            .types
            .0
            .iter()
            .map(|(t, c)| format!("{} {}", t.alias(), percent(*c as f64 / self.values as f64)))
            .collect();
        let (path, scope) = (self.path, self.measured.words(lang));
        let (en, zh) = (breakdown.join(", "), breakdown.join("、"));
        match self.numeric_reason {
            Some("decimal") => lang.pick(
                format!("{path} mixes decimal and binary numbers ({en}) {scope}: decimal arithmetic on it turns into binary floating point"),
                format!("{path} 混用了十进制数和二进制数值（{zh}），{scope}：在它上面的十进制运算会变成二进制浮点运算"),
            ),
            Some(_) => lang.pick(
                format!("{path} mixes doubles with integers beyond 2^53 ({en}) {scope}: a double cannot hold them exactly"),
                format!("{path} 混用了 double 与超过 2^53 的整数（{zh}），{scope}：double 无法精确表示这些整数"),
            ),
            None => lang.pick(
                format!("{path} holds different types ({en}) {scope}"),
                format!("{path} 保存了不同类型的值（{zh}），{scope}"),
            ),
        }
    }
}
