//! `lossy-numbers`: numbers a double cannot hold exactly (MongoDB's BSON
//! type documentation: a double has 53 bits of precision; `long` holds
//! 64-bit integers, `decimal` exact decimal fractions such as money).

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::{extract, value_of, Seg};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "lossy-numbers",
    title: "Numbers a double cannot hold exactly",
    explanation: (
        "A BSON double has 53 bits of precision: integers beyond 2^53 (9,007,199,254,740,992) — 64-bit ids, nanosecond timestamps — are rounded to a neighbour when stored, so two ids can become equal, and most decimal fractions (0.1, 19.99) are only approximated, so sums of money drift by cents. MongoDB's BSON types: use `long` for 64-bit integers, `decimal` (Decimal128) for money, a string for opaque identifiers. Precision already lost in a double cannot be restored from the database.",
        "BSON 的 double 只有 53 位精度：超过 2^53（9,007,199,254,740,992）的整数——64 位 ID、纳秒时间戳——在保存时会被舍入到相邻的值，两个不同的 ID 可能变得相同；大多数十进制小数（0.1、19.99）也只能近似表示，金额求和会出现几分钱的偏差。MongoDB 的 BSON 类型：64 位整数用 `long`，金额用 `decimal`（Decimal128），不透明的标识符用字符串。已经在 double 中丢失的精度无法从数据库中恢复。",
    ),
    source: "MongoDB docs (BSON types: double, long, decimal; model monetary data)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// integral doubles beyond 2^53 that make a path lossy
        min_values: 1.0,
        /// share of a money path's doubles with inexact decimals
        money_share: 0.01,
    },
}

/// 2^53: beyond it, not every integer has a double.
pub const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Words naming an amount of money in a field name.
const MONEY: [&str; 20] = [
    "price", "amount", "total", "subtotal", "cost", "balance", "fee", "fees", "salary", "payment",
    "tax", "discount", "revenue", "charge", "paid", "credit", "debit", "money", "wage", "refund",
];

/// True when a field name names money (`unit_price`, `totalAmount`).
pub fn money_name(name: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    for ch in name.chars() {
        let boundary = ch == '_' || ch == '-' || ch == '.' || ch.is_uppercase();
        if boundary && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        if ch.is_alphanumeric() {
            cur.extend(ch.to_lowercase());
        }
    }
    words.push(cur);
    words.iter().any(|w| MONEY.contains(&w.as_str()))
}

/// Decimal places of the shortest text that reads back as `v`
/// (`19.99` → 2), and whether that decimal is exactly the double's value.
/// `None` for values without a short decimal form.
pub fn decimal_places(v: f64) -> Option<(u32, bool)> {
    if !v.is_finite() {
        return None;
    }
    let text = format!("{}", v.abs());
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let places = frac.len() as u32;
    if places > 20 {
        return None;
    }
    // The decimal m / 10^p is a binary fraction exactly when 5^p divides m.
    let m: u128 = format!("{int}{frac}").parse().ok()?;
    let exact = m.is_multiple_of(5u128.pow(places));
    Some((places, exact))
}

#[derive(Default)]
struct Tally {
    doubles: u64,
    /// Integral doubles beyond 2^53, and an example.
    beyond: u64,
    beyond_example: Option<f64>,
    /// Doubles with a fraction the double cannot hold exactly.
    inexact: u64,
    inexact_example: Option<f64>,
    /// Doubles with a fraction at all, and the most decimal places seen.
    fractional: u64,
    places: u32,
}

fn tally(docs: &[Vec<u8>], segs: &[Seg]) -> Tally {
    let mut t = Tally::default();
    for d in docs {
        for e in extract::values(d, segs) {
            if e.ty != BsonType::Double {
                continue;
            }
            let Some(bson::Bson::Double(v)) = value_of(&e) else {
                continue;
            };
            t.doubles += 1;
            if v.fract() == 0.0 {
                if v.abs() > EXACT_LIMIT {
                    t.beyond += 1;
                    t.beyond_example.get_or_insert(v);
                }
                continue;
            }
            t.fractional += 1;
            if let Some((p, exact)) = decimal_places(v) {
                t.places = t.places.max(p);
                if !exact {
                    t.inexact += 1;
                    t.inexact_example.get_or_insert(v);
                }
            }
        }
    }
    t
}

/// What a path holds that a double cannot represent, for the suggestion.
#[derive(Clone, Debug)]
pub struct Loss {
    pub doubles: u64,
    pub beyond: u64,
    /// Every sampled double is an integer (an id, a count).
    pub integral: bool,
    /// Money held as doubles with inexact fractions, and the decimal places
    /// the values are written with.
    pub money: bool,
    pub places: u32,
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_beyond = t.lossy_numbers.min_values;
    let money_share = t.lossy_numbers.money_share;
    let mut out = Vec::new();
    for f in ctx.fields() {
        if f.type_count(BsonType::Double) == 0 {
            continue;
        }
        let tl = tally(ctx.data.kept, &f.segments);
        if tl.doubles == 0 {
            continue;
        }
        let big = tl.beyond > 0 && tl.beyond as f64 >= min_beyond;
        let inexact_share = tl.inexact as f64 / tl.doubles as f64;
        let money = money_name(&f.name) && tl.inexact > 0 && inexact_share >= money_share;
        if !big && !money {
            continue;
        }
        let loss = Loss {
            doubles: tl.doubles,
            beyond: tl.beyond,
            integral: tl.fractional == 0,
            money,
            places: tl.places.min(6),
        };
        let evidence = Lossy {
            doubles: tl.doubles,
            integers_beyond_2_53: tl.beyond,
            example_beyond: tl.beyond_example,
            money_name: money_name(&f.name),
            inexact_fractions: tl.inexact,
            inexact_share,
            example_inexact: tl.inexact_example,
            decimal_places: tl.places,
            sampled: ctx.sampled(),
            kept: ctx.data.kept.len() as u64,
            threshold: Crossed::of(t, if big { Key::min_values } else { Key::money_share }),
            path: &f.path,
            big,
            money,
            measured: ctx.measured(),
        };
        // An integer beyond 2^53 was changed when it was written; money as
        // a double reads back as written and goes wrong in arithmetic.
        let severity = if big {
            Severity::Warning
        } else {
            Severity::Info
        };
        let remedy = Remedy::LossyNumbers {
            path: f.path.clone(),
            loss,
            reaudit: crate::rules::Reaudit::of(t),
        };
        let path = Some(f.path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `lossy-numbers` counted of one path's doubles.
#[derive(Serialize)]
struct Lossy<'a> {
    doubles: u64,
    integers_beyond_2_53: u64,
    example_beyond: Option<f64>,
    money_name: bool,
    inexact_fractions: u64,
    inexact_share: f64,
    example_inexact: Option<f64>,
    decimal_places: u32,
    sampled: u64,
    kept: u64,
    threshold: Crossed,
    #[serde(skip)]
    path: &'a str,
    /// Integers beyond 2^53 are reported.
    #[serde(skip)]
    big: bool,
    /// Money with inexact decimals is reported.
    #[serde(skip)]
    money: bool,
    #[serde(skip)]
    measured: Measured,
}

impl Evidence for Lossy<'_> {
    fn describe(&self, lang: Lang) -> String {
        let mut what_en = Vec::new();
        let mut what_zh = Vec::new();
        if self.big {
            let n = group(self.integers_beyond_2_53);
            let ex = self
                .example_beyond
                .map_or_else(String::new, |v| format!("{v:.0}"));
            what_en.push(format!("{n} integers beyond 2^53 stored as doubles (e.g. {ex}; digits past the 16th are not kept)"));
            what_zh.push(format!(
                "{n} 个超过 2^53 的整数存成了 double（例如 {ex}；第 16 位之后的数字无法保留）"
            ));
        }
        if self.money {
            let (n, share) = (group(self.inexact_fractions), percent(self.inexact_share));
            let ex = self
                .example_inexact
                .map_or_else(String::new, |v| v.to_string());
            what_en.push(format!(
                "{n} amounts ({share}) whose decimals a double cannot hold exactly (e.g. {ex})"
            ));
            what_zh.push(format!(
                "{n} 个金额（{share}）的小数部分无法被 double 精确表示（例如 {ex}）"
            ));
        }
        let (path, doubles) = (self.path, group(self.doubles));
        let scope = self.measured.kept_words(self.kept, lang);
        lang.pick(
            format!("{path} holds {} of {doubles} doubles {scope}", what_en.join("; ")),
            format!("{path}：{}，共 {doubles} 个 double，{scope}", what_zh.join("；")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing;
    use bson::doc;
    use serde_json::json;

    #[test]
    fn decimals_exact_or_not() {
        for (v, want) in [
            (10.5, Some((1, true))),
            (19.99, Some((2, false))),
            (0.1, Some((1, false))),
            (0.25, Some((2, true))),
            (3.0, Some((0, true))),
            (f64::NAN, None),
        ] {
            assert_eq!(decimal_places(v), want, "{v}");
        }
        for (n, want) in [
            ("price", true),
            ("unit_price", true),
            ("totalAmount", true),
            ("prices", false),
            ("priority", false),
            ("rating", false),
            ("account_balance", true),
        ] {
            assert_eq!(money_name(n), want, "{n}");
        }
    }

    fn run(docs: &[bson::Document], t: &Thresholds) -> Vec<Finding> {
        let r = testing::report("db.things", docs);
        check(&testing::ctx(&r, &[]), t, Lang::En)
    }

    #[test]
    fn fires_on_big_integers_and_inexact_money_only() {
        // 2^53 itself is exact; 2^53 + 2 is beyond it.
        let ids = |top: f64| -> Vec<bson::Document> {
            (0..20)
                .map(|i| doc! {"_id": i, "tweet_id": if i == 0 { top } else { f64::from(i) }, "score": f64::from(i) / 3.0})
                .collect()
        };
        let t = Thresholds::default();
        assert!(run(&ids(EXACT_LIMIT), &t).is_empty());
        let f = run(&ids(EXACT_LIMIT + 2.0), &t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].path.as_deref(), Some("tweet_id"));
        assert_eq!(f[0].evidence["integers_beyond_2_53"], json!(1));
        assert_eq!(f[0].severity, Severity::Warning, "changed when written");
        assert!(
            matches!(&f[0].remedy, Remedy::LossyNumbers { loss, .. } if loss.beyond == 1 && loss.integral),
            "{:?}",
            f[0].remedy
        );
        // The clean twin: the same ids as long.
        let longs: Vec<bson::Document> = (0..20)
            .map(|i| doc! {"_id": i, "tweet_id": 9_007_199_254_740_993_i64 + i})
            .collect();
        assert!(run(&longs, &t).is_empty());

        // Money: 19.99 as a double fires, 10.50 (exact) and non-money names do not.
        let prices = |inexact: usize| -> Vec<bson::Document> {
            (0..100)
                .map(|i| {
                    let p = if i < inexact { 19.99 } else { 10.5 };
                    doc! {"_id": i as i32, "price": p, "weight": 0.1}
                })
                .collect()
        };
        assert!(run(&prices(0), &t).is_empty());
        let f = run(&prices(1), &t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].path.as_deref(), Some("price"));
        assert_eq!(f[0].severity, Severity::Info, "reads back as written");
        assert!(
            matches!(&f[0].remedy, Remedy::LossyNumbers { loss, .. } if loss.money && loss.places == 2),
            "{:?}",
            f[0].remedy
        );
        let mut strict = Thresholds::default();
        strict.lossy_numbers.money_share = 0.02;
        assert!(run(&prices(1), &strict).is_empty());
        assert_eq!(run(&prices(2), &strict).len(), 1);
        let decimals: Vec<bson::Document> = (0..10)
            .map(|i| doc! {"_id": i, "price": bson::Decimal128::from_bytes([0; 16])})
            .collect();
        assert!(run(&decimals, &t).is_empty());
    }
}
