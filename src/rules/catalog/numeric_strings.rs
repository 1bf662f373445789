//! `numeric-strings`: numbers stored as text where no second type is there
//! to make `mixed-types` fire (seed 002: store a value in the type queries
//! can use). Text sorts and compares character by character (`"10"` before
//! `"9"`, `"-1"` after `"-3"` but before `"0"`), a range query on it
//! answers wrongly, and `$sum`, `$avg` and `$inc` skip or refuse it.
//!
//! What is a code, not a quantity, is never reported (the conversions of
//! `advise` leave it too): digit strings with leading zeros (one in ten),
//! of one fixed width of three digits or more (postal codes, PINs, years:
//! text of one width sorts as the numbers do), whole numbers of nine
//! digits or more (phone, account and card numbers), and names that say
//! so (`…Id`, `code`, `zip`, `phone`, `version`, `last4`, a name ending in
//! `number`/`no`, the values of HTTP `headers`) — see [`number_text`].
//! A reference (or the key one points at) is `reference-type-mismatch`'s.

use serde::Serialize;

use crate::rules::number_text::{self, plain_number, Target};
use crate::rules::{
    shapes, CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::profile::raw::{self, BsonType};
use crate::profile::{extract, FieldProfile, Seg};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "numeric-strings",
    title: "Numbers stored as text",
    explanation: (
        "A number kept as a string is text to the server: it sorts and compares character by character (\"10\" before \"9\", \"-1\" before \"-3\"), so a range query or a sort answers wrongly; $sum and $avg skip it, $inc refuses it, and an index on it orders text. When every value is text there is no second type for mixed-types to see. The seeds' advice on types: store a value in the type queries can use — int or long for whole numbers, double for measurements, decimal (Decimal128) for money. Codes made of digits (postal codes, phone numbers, ids with leading zeros, versions) are text and stay text.",
        "以字符串保存的数字对服务器来说是文本：它按字符逐个排序和比较（\"10\" 排在 \"9\" 前面，\"-1\" 排在 \"-3\" 前面），所以范围查询和排序的结果都不对；$sum 和 $avg 会跳过它，$inc 会拒绝它，它上面的索引按文本排序。当所有值都是文本时，也就没有第二种类型能让 mixed-types 发现问题。种子材料关于类型的建议：用查询能使用的类型保存数据——整数用 int 或 long，测量值用 double，金额用 decimal（Decimal128）。由数字组成的编码（邮政编码、电话号码、带前导零的编号、版本号）本来就是文本，应保持为文本。",
    ),
    source: "seeds/002 (BSON types a query can use), MongoDB docs (comparison and sort order of BSON types; $convert)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// share of a path's values that are numbers (the rest empty text)
        min_share: 0.95,
        /// numbers written as text a path needs before it is reported
        min_values: 5.0,
    },
}

/// What a path's values are, read from the kept documents.
#[derive(Default)]
struct Tally {
    /// Documents holding a value.
    documents: u64,
    /// Non-null values (array elements each).
    values: u64,
    /// Plain numbers written as text.
    texts: u64,
    /// Numbers of a numeric BSON type.
    numbers: u64,
    /// Empty (or blank) text.
    empty: u64,
    /// Anything else: other text, other types.
    other: u64,
    other_example: Option<String>,
    /// Every string, for the code tests.
    strings: Vec<bson::Bson>,
    fractions: bool,
    /// Digits of the widest fraction.
    places: usize,
    /// Fewest digits of a whole number written as text.
    least_digits: Option<usize>,
    int32: bool,
    int64: bool,
    range: Option<[f64; 2]>,
    examples: Vec<String>,
}

fn tally(kept: &[Vec<u8>], segs: &[Seg]) -> Tally {
    let mut t = Tally {
        int32: true,
        int64: true,
        ..Tally::default()
    };
    for d in kept {
        let vals: Vec<_> = extract::values(d, segs)
            .into_iter()
            .filter(|e| !matches!(e.ty, BsonType::Null | BsonType::Undefined))
            .collect();
        if vals.is_empty() {
            continue;
        }
        t.documents += 1;
        for e in vals {
            t.values += 1;
            if e.ty.is_numeric() {
                t.numbers += 1;
                continue;
            }
            let Some(text) = (e.ty == BsonType::String)
                .then(|| raw::value::str(e.value))
                .flatten()
            else {
                t.other += 1;
                continue;
            };
            t.strings.push(bson::Bson::String(text.to_owned()));
            if text.trim().is_empty() {
                t.empty += 1;
            } else if plain_number(text, true) {
                t.texts += 1;
                t.note_number(text);
            } else {
                t.other += 1;
                if t.other_example.is_none() {
                    t.other_example = Some(text.to_owned());
                }
            }
        }
    }
    t
}

impl Tally {
    fn note_number(&mut self, text: &str) {
        match text.split_once('.') {
            Some((_, f)) => {
                self.fractions = true;
                self.places = self.places.max(f.len());
            }
            None => {
                let digits = text.trim_start_matches('-').len();
                self.least_digits = Some(self.least_digits.map_or(digits, |d| d.min(digits)));
                self.int32 &= text.parse::<i32>().is_ok();
                self.int64 &= text.parse::<i64>().is_ok();
            }
        }
        if let Ok(x) = text.parse::<f64>() {
            self.range = Some(match self.range {
                Some([lo, hi]) => [lo.min(x), hi.max(x)],
                None => [x, x],
            });
        }
        if self.examples.len() < 5 && !self.examples.iter().any(|e| e == text) {
            self.examples.push(text.to_owned());
        }
    }

    /// The type that holds every number exactly: decimal for money and
    /// for fractions of more than 15 digits, double for other fractions,
    /// the narrowest integer that holds every whole number.
    fn target(&self, money: bool) -> Target {
        if money {
            Target::Decimal
        } else if self.fractions {
            if self.places > 15 {
                Target::Decimal
            } else {
                Target::Double
            }
        } else if self.int32 {
            Target::Int
        } else if self.int64 {
            Target::Long
        } else {
            Target::Decimal
        }
    }
}

/// The last key of a path and the key of the object holding it.
fn names(f: &FieldProfile) -> (Option<&str>, Option<&str>) {
    let mut keys = f.segments.iter().rev().filter_map(|s| match s {
        Seg::Key(k) => Some(k.as_str()),
        Seg::Elem => None,
    });
    (keys.next(), keys.next())
}

/// Why the path's numbers written as text are a code, if they are.
fn code(f: &FieldProfile, t: &Tally) -> Option<String> {
    let (name, parent) = names(f);
    let name = name.unwrap_or("");
    if let Some(c) = number_text::code_of(&t.strings, name) {
        return Some(format!("{c:?}"));
    }
    if let Some(w) = number_text::identifier_name(name, parent) {
        return Some(format!("name: {w}"));
    }
    let long = !t.fractions
        && t.least_digits
            .is_some_and(|d| d >= number_text::IDENTIFIER_DIGITS);
    long.then(|| "digits".to_owned())
}

/// A reference, or a key references point at: `reference-type-mismatch`
/// and the relationship stage judge its representation.
fn joins(ctx: &CollectionCtx<'_>, f: &FieldProfile) -> bool {
    let key = format!("{}.{}", ctx.ns(), f.path);
    ctx.relationships
        .iter()
        .any(|r| (r.from_ns == ctx.ns() && r.from_path == f.path) || r.to == key)
}

/// The first shape of the workload that orders the path: its rank and how.
fn ordered_by(ctx: &CollectionCtx<'_>, path: &str) -> Option<(usize, &'static str)> {
    let w = ctx.workload.as_ref()?;
    w.shapes
        .iter()
        .find_map(|&(rank, s)| shapes::orders_by(ctx, s, path).map(|how| (rank, how)))
}

fn show_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let l = &t.numeric_strings;
    let mut out = Vec::new();
    for f in ctx.fields() {
        let (name, _) = names(f);
        if f.type_count(BsonType::String) == 0 || name == Some("_id") || joins(ctx, f) {
            continue;
        }
        // Another type beside the text is `mixed-types`' finding.
        let non_null: u64 = f
            .types
            .iter()
            .filter(|(ty, _)| !matches!(ty, BsonType::Null | BsonType::Undefined))
            .map(|(_, n)| n)
            .sum();
        let others = non_null - f.type_count(BsonType::String);
        if non_null == 0 || others as f64 / non_null as f64 >= t.mixed_types.min_share {
            continue;
        }
        let tl = tally(ctx.data.kept, &f.segments);
        if tl.texts == 0 || tl.values == 0 {
            continue;
        }
        let numbers = tl.texts + tl.numbers;
        let share = numbers as f64 / tl.values as f64;
        if tl.other > 0 || share < l.min_share || (tl.texts as f64) < l.min_values {
            continue;
        }
        if code(f, &tl).is_some() {
            continue;
        }
        let money = name.is_some_and(crate::rules::lossy_numbers::money_name);
        let target = tl.target(money);
        let ordered = ordered_by(ctx, &f.path);
        let severity = if ordered.is_some() {
            Severity::Warning
        } else {
            Severity::Info
        };
        let (lo, hi) = crate::profile::sketch::wilson(numbers, tl.values);
        let remedy = Remedy::NumericStrings {
            path: f.path.clone(),
            target,
            empty: tl.empty,
            example: tl.examples.first().cloned().unwrap_or_default(),
            mixed_floor: t.mixed_types.min_share,
        };
        let evidence = TextNumbers {
            values: tl.values,
            numbers_as_text: tl.texts,
            numbers: tl.numbers,
            empty_text: tl.empty,
            documents: tl.documents,
            share,
            share_interval: [lo, hi],
            examples: tl.examples,
            range: tl.range,
            target_type: target.alias(),
            money_name: money,
            ordered_by: ordered.map(|(shape, how)| Ordered { shape, how }),
            sampled: ctx.sampled(),
            kept: ctx.data.kept.len() as u64,
            threshold: Crossed::of(t, Key::min_share),
            path: &f.path,
            measured: ctx.measured(),
        };
        let path = Some(f.path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `numeric-strings` counted on one path.
#[derive(Serialize)]
struct TextNumbers<'a> {
    values: u64,
    numbers_as_text: u64,
    numbers: u64,
    empty_text: u64,
    documents: u64,
    share: f64,
    share_interval: [f64; 2],
    examples: Vec<String>,
    range: Option<[f64; 2]>,
    target_type: &'static str,
    money_name: bool,
    /// The workload's shape that sorts or compares ranges by the path;
    /// null when none does.
    ordered_by: Option<Ordered>,
    sampled: u64,
    kept: u64,
    threshold: Crossed,
    #[serde(skip)]
    path: &'a str,
    #[serde(skip)]
    measured: Measured,
}

/// A shape of the workload that orders by the path, and how (`sort`,
/// `range`).
#[derive(Serialize)]
struct Ordered {
    shape: usize,
    how: &'static str,
}

impl Evidence for TextNumbers<'_> {
    fn describe(&self, lang: Lang) -> String {
        let range = self
            .range
            .map(|[lo, hi]| {
                let (lo, hi) = (show_number(lo), show_number(hi));
                if lo == hi {
                    format!("\"{lo}\"")
                } else {
                    format!("\"{lo}\" … \"{hi}\"")
                }
            })
            .unwrap_or_default();
        let rest = match (self.empty_text, self.numbers) {
            (0, 0) => String::new(),
            (e, 0) => lang.pick(
                format!("; the other {} are empty text", group(e)),
                format!("；其余 {} 个是空字符串", group(e)),
            ),
            (0, n) => lang.pick(
                format!("; {} already numbers", group(n)),
                format!("；{} 个已经是数字", group(n)),
            ),
            (e, n) => lang.pick(
                format!("; {} empty text, {} already numbers", group(e), group(n)),
                format!("；{} 个空字符串，{} 个已经是数字", group(e), group(n)),
            ),
        };
        let why = match &self.ordered_by {
            Some(Ordered { shape: rank, how }) => lang.pick(
                format!(
                    ": the workload {} by it (shape #{rank}), and text orders \"10\" before \"9\"",
                    if *how == "sort" { "sorts" } else { "compares ranges" }
                ),
                format!(
                    "：工作负载按它{}（查询形态 #{rank}），而文本会把 \"10\" 排在 \"9\" 前面",
                    if *how == "sort" { "排序" } else { "做范围比较" }
                ),
            ),
            None => lang.pick(
                ": text sorts and compares character by character (\"10\" before \"9\") and $sum skips it".to_owned(),
                "：文本按字符逐个排序和比较（\"10\" 排在 \"9\" 前面），$sum 也会跳过它".to_owned(),
            ),
        };
        let (path, texts, values) = (self.path, group(self.numbers_as_text), group(self.values));
        let share = percent(self.numbers_as_text as f64 / self.values as f64);
        let scope = self.measured.kept_words(self.kept, lang);
        lang.pick(
            format!("{path} holds numbers as text ({range}) in {texts} of its {values} values ({share}{rest}) {scope}{why}"),
            format!("{path} 把数字存成了文本（{range}）：{values} 个值中有 {texts} 个（{share}{rest}），{scope}{why}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::rules::testing;
    use bson::{doc, Bson, Document};

    fn run(docs: &[Document]) -> Vec<Finding> {
        let r = testing::report("db.routes", docs);
        check(&testing::ctx(&r, &[]), &Thresholds::default(), Lang::En)
    }

    fn docs(field: &str, values: &[Bson]) -> Vec<Document> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| doc! {"_id": i as i32, field: v.clone(), "name": format!("route {i}")})
            .collect()
    }

    fn texts(values: impl IntoIterator<Item = String>) -> Vec<Bson> {
        values.into_iter().map(Bson::String).collect()
    }

    #[test]
    fn scores_written_as_text_are_reported_with_their_empty_rest() {
        // gipfel's routes.teufelsturmScore: "-3".."3" and a few "".
        let mut v = texts((0..200).map(|i| format!("{}", i % 7 - 3)));
        v.extend(texts((0..5).map(|_| String::new())));
        let f = run(&docs("teufelsturmScore", &v));
        assert_eq!(f.len(), 1, "{f:?}");
        let x = &f[0];
        assert_eq!(x.severity, Severity::Info);
        assert_eq!(x.path.as_deref(), Some("teufelsturmScore"));
        assert_eq!(x.evidence["numbers_as_text"], json!(200));
        assert_eq!(x.evidence["empty_text"], json!(5));
        assert_eq!(x.evidence["target_type"], json!("int"));
        assert!(
            x.message
                .contains("(\"-3\" … \"3\") in 200 of its 205 values")
                && x.message.contains("the other 5 are empty text"),
            "{}",
            x.message
        );
        assert!(matches!(
            &x.remedy,
            Remedy::NumericStrings {
                target: Target::Int,
                empty: 5,
                ..
            }
        ));
    }

    #[test]
    fn the_share_and_the_rest_decide() {
        // 94 numbers and 6 empty: under 95 %.
        let mut v = texts((0..94).map(|i| i.to_string()));
        v.extend(texts((0..6).map(|_| String::new())));
        assert!(run(&docs("qty", &v)).is_empty());
        // 99 numbers and one word: not only numbers and empty text.
        let mut v = texts((0..99).map(|i| i.to_string()));
        v.push(Bson::String("n/a".into()));
        assert!(run(&docs("qty", &v)).is_empty());
        // Too few to tell.
        assert!(run(&docs("qty", &texts(["3", "4", "5", "6"].map(String::from)))).is_empty());
        assert_eq!(
            run(&docs(
                "qty",
                &texts(["3", "4", "5", "6", "12"].map(String::from))
            ))
            .len(),
            1
        );
        // Real numbers: nothing to say.
        let ints: Vec<Bson> = (0..50).map(Bson::Int32).collect();
        assert!(run(&docs("qty", &ints)).is_empty());
    }

    #[test]
    fn codes_are_left_alone() {
        let n = |f: fn(i32) -> String| texts((0..60).map(f));
        for (field, values) in [
            ("zip", n(|i| format!("{}", 10_000 + i * 37))),
            ("n", n(|i| format!("0{}", i % 9 + 1))),
            ("plz", n(|i| format!("{}", 1_000 + i * 3))),
            ("year", n(|i| format!("{}", 1_960 + i))),
            ("teufelsturmId", n(|i| format!("{}", i * 7 + 1))),
            ("phoneNumber", n(|i| format!("{}", 5_550_000 + i))),
            (
                "contact",
                n(|i| format!("{}", 9_100_000_000_i64 + i64::from(i))),
            ),
            ("versaoSoftware", n(|i| format!("1.{i}"))),
        ] {
            let f = run(&docs(field, &values));
            assert!(f.is_empty(), "{field}: {f:?}");
        }
        // Under HTTP headers: protocol text.
        let d: Vec<Document> = (0..20)
            .map(|i| doc! {"_id": i, "metadata": {"headers": {"content-length": format!("{}", 90 + i * 13)}}})
            .collect();
        assert!(run(&d).is_empty());
    }

    #[test]
    fn fractions_and_money_choose_their_type() {
        let v = texts((0..30).map(|i| format!("{}.{}", i, i % 10)));
        let f = run(&docs("weight", &v));
        assert_eq!(f[0].evidence["target_type"], json!("double"));
        let f = run(&docs("price", &v));
        assert_eq!(f[0].evidence["target_type"], json!("decimal"));
        // Beyond 32 bits, beside small counts: not an identifier's digits.
        let big = texts((0..30).map(|i| format!("{}", i64::from(i) * 170_000_000)));
        let f = run(&docs("views", &big));
        assert_eq!(f[0].evidence["target_type"], json!("long"));
    }

    #[test]
    fn a_second_type_is_mixed_types_and_a_reference_is_not_this_rules() {
        let mut v = texts((0..90).map(|i| i.to_string()));
        v.extend((0..10).map(Bson::Int32));
        assert!(run(&docs("qty", &v)).is_empty(), "10 % ints: mixed-types");
        let mut v = texts((0..995).map(|i| (i % 50).to_string()));
        v.extend((0..5).map(Bson::Int32));
        assert_eq!(run(&docs("qty", &v)).len(), 1, "0.5 % ints: still text");
        let v = texts((0..40).map(|i| (i + 1).to_string()));
        let r = testing::report("db.routes", &docs("summit", &v));
        let rel = testing::relationship("db.routes", "summit", "db.summits", "_id", 40, 40, None);
        let f = check(
            &testing::ctx(&r, std::slice::from_ref(&rel)),
            &Thresholds::default(),
            Lang::En,
        );
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn arrays_and_sub_documents_are_judged_by_their_values() {
        let d: Vec<Document> = (0..20)
            .map(|i| doc! {"_id": i, "difficulty": {"jump": format!("{}", i % 5 + 1)}, "sizes": [format!("{}", i), format!("{}", i + 1)]})
            .collect();
        let f = run(&d);
        let paths: Vec<_> = f.iter().filter_map(|x| x.path.as_deref()).collect();
        assert_eq!(paths, ["difficulty.jump", "sizes[]"], "{f:?}");
        assert_eq!(f[1].evidence["values"], json!(40));
    }

    #[test]
    fn a_workload_that_sorts_or_ranges_on_the_text_makes_it_a_warning() {
        use crate::rules::kit;
        let d: Vec<Document> = (0..60)
            .map(|i| doc! {"_id": i, "area": "Rathen", "score": format!("{}", i % 7 - 3)})
            .collect();
        let r = kit::report("routes", &d, 60);
        let find = |filter: serde_json::Value, sort: Option<serde_json::Value>| {
            let mut command = json!({"find": "routes", "filter": filter, "$db": "kit"});
            if let Some(s) = sort {
                command["sort"] = s;
            }
            json!({
                "type": "command", "ns": "kit.routes", "command": command,
                "planSummary": "COLLSCAN", "keysExamined": 0, "docsExamined": 60, "nreturned": 10,
                "durationMillis": 4,
            })
        };
        let severity = |w: &crate::workload::Workload| {
            kit::severity_of(&kit::check_workload(&r, &Thresholds::default(), w), RULE)
        };
        let equal = kit::workload(&[(5, find(json!({"area": "Rathen", "score": "2"}), None))]);
        assert_eq!(
            severity(&equal),
            Some(Severity::Info),
            "equality orders nothing"
        );
        let sorted = kit::workload(&[(
            5,
            find(json!({"area": "Rathen"}), Some(json!({"score": -1}))),
        )]);
        assert_eq!(severity(&sorted), Some(Severity::Warning));
        let ranged = kit::workload(&[(5, find(json!({"score": {"$gte": "1"}}), None))]);
        let f = kit::check_workload(&r, &Thresholds::default(), &ranged);
        let x = kit::fired(&f, RULE)[0];
        assert_eq!(x.severity, Severity::Warning);
        assert_eq!(
            x.evidence["ordered_by"],
            json!({"shape": 1, "how": "range"})
        );
        assert!(
            x.message.contains("compares ranges by it (shape #1)"),
            "{}",
            x.message
        );
    }

    #[test]
    fn thresholds_come_from_the_configuration_and_chinese_is_chinese() {
        let mut v = texts((0..90).map(|i| i.to_string()));
        v.extend(texts((0..10).map(|_| String::new())));
        let r = testing::report("db.routes", &docs("qty", &v));
        let ctx = testing::ctx(&r, &[]);
        assert!(check(&ctx, &Thresholds::default(), Lang::En).is_empty());
        let mut t = Thresholds::default();
        t.numeric_strings.min_share = 0.9;
        let f = check(&ctx, &t, Lang::Zh);
        assert_eq!(f.len(), 1);
        assert!(
            f[0].message.contains("把数字存成了文本"),
            "{}",
            f[0].message
        );
    }
}
