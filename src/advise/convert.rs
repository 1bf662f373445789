//! Type conversion for a path holding several types: the numeric type that
//! loses nothing, what becomes of each value, and the `mongosh` script that
//! does exactly that. The Rust model ([`plan`], [`classify`]) and the script
//! ([`script`]) follow one rule, so the before/after example and the counts
//! in the effect are what the script does on the same documents.
//!
//! The rule:
//! - the target is numeric only when numbers and numeric strings are at
//!   least half of the non-null values; otherwise nothing is converted;
//! - it never narrows: decimal when a decimal is present, or when the path
//!   is named like money (amount, price, cost …) and every value with a
//!   fraction has at most two fraction digits; else double when a value has
//!   a fraction or a double is present; else long when a long is present or
//!   an integer does not fit in 32 bits; else int. Integers beyond 2^53 (or
//!   numeric strings of more than 15 digits) make double decimal;
//! - a string converts only when it is a plain number (`-?digits`, plus
//!   `.digits` for double and decimal, no leading zeros, no spaces or
//!   exponents) that fits the target; every other value (sentinels such as
//!   "N/A", "", "unknown", booleans, dates …) is left as it is and counted;
//! - a document gets `schema_versions.<key>: 2` (see [`version_key`]) only
//!   when the script changed it and every value at the path is then of the
//!   target type (or null): one stamp per converted path, so converting
//!   `items[].qty` says nothing about `amount`.

use crate::profile::extjson::Relaxed as _;
use std::fmt::Write;

use bson::{Bson, Decimal128};
use serde_json::{json, Value};

use super::change::{self, Plan};
use super::{js, js_coll, js_value};
use crate::i18n::Lang;
pub use crate::rules::number_text::looks_like_codes;
use crate::rules::number_text::plain_number;
pub use crate::rules::number_text::Target;
use crate::rules::Reaudit;

/// Why the target was chosen, for the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    DecimalPresent,
    Money,
    TooManyDigits,
    Fractions,
    DoublePresent,
    Wide,
    Whole,
}

/// What becomes of one value.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Null: neither converted nor counted as left behind.
    Null,
    Already,
    Convert(Bson),
    Stay,
}

/// Number of digits after the point in the shortest text of `x`.
fn fraction_digits(x: f64) -> usize {
    let t = format!("{x}");
    t.split_once('.').map_or(0, |(_, f)| f.len())
}

/// `amount`, `unit_price`, `totalCost` …: a path named like money.
pub(crate) fn money_name(name: &str) -> bool {
    const WORDS: [&str; 14] = [
        "amount", "price", "cost", "total", "balance", "fee", "fees", "salary", "payment",
        "revenue", "tax", "discount", "subtotal", "paid",
    ];
    let mut words = Vec::new();
    let mut cur = String::new();
    for c in name.chars() {
        if (c == '_' || c == '-' || c == ' ' || c.is_uppercase()) && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words.iter().any(|w| WORDS.contains(&w.as_str()))
}

/// The lossless numeric target for these values, or `None` when most
/// values are not numbers.
pub(crate) fn plan(values: &[Bson], name: &str) -> Option<(Target, Reason)> {
    let mut numeric = 0usize;
    let mut non_null = 0usize;
    let mut widest = None::<Target>;
    let mut fractions = Vec::new();
    let mut any_fraction = false;
    let mut wide = false;
    let mut huge = false;
    for v in values {
        match v {
            Bson::Null | Bson::Undefined => continue,
            _ => non_null += 1,
        }
        if let Some(t) = Target::of(v) {
            numeric += 1;
            widest = widest.max(Some(t));
        }
        match v {
            Bson::Double(x) if x.is_finite() && x.fract() != 0.0 => {
                any_fraction = true;
                fractions.push(fraction_digits(*x));
            }
            Bson::Int64(i) if !(-(1i64 << 53)..=(1i64 << 53)).contains(i) => huge = true,
            Bson::String(s) if plain_number(s, true) => {
                numeric += 1;
                let digits = s.bytes().filter(u8::is_ascii_digit).count();
                huge |= digits > 15;
                match s.split_once('.') {
                    Some((_, f)) => {
                        any_fraction = true;
                        fractions.push(f.len());
                    }
                    None => wide |= s.parse::<i32>().is_err(),
                }
            }
            _ => {}
        }
    }
    if non_null == 0 || numeric * 2 < non_null || (widest.is_none() && numeric == 0) {
        return None;
    }
    let widest = widest.unwrap_or(Target::Int);
    let choice = if widest == Target::Decimal {
        (Target::Decimal, Reason::DecimalPresent)
    } else if any_fraction && money_name(name) && fractions.iter().all(|d| *d <= 2) {
        (Target::Decimal, Reason::Money)
    } else if any_fraction || widest == Target::Double {
        if huge {
            (Target::Decimal, Reason::TooManyDigits)
        } else if any_fraction {
            (Target::Double, Reason::Fractions)
        } else {
            (Target::Double, Reason::DoublePresent)
        }
    } else if wide || widest == Target::Long {
        (Target::Long, Reason::Wide)
    } else {
        (Target::Int, Reason::Whole)
    };
    Some(choice)
}

/// Shortest decimal text of a double, as `$toString` writes it.
fn double_text(x: f64) -> String {
    format!("{x}")
}

/// What the script does with one value (the same rule, in Rust).
pub(crate) fn classify(v: &Bson, to: Target) -> Outcome {
    if matches!(v, Bson::Null) {
        return Outcome::Null;
    }
    if let Some(t) = Target::of(v) {
        if t == to {
            return Outcome::Already;
        }
        if t > to {
            return Outcome::Stay;
        }
        let out = match (v, to) {
            (Bson::Int32(i), Target::Long) => Some(Bson::Int64(i64::from(*i))),
            (Bson::Int32(i), Target::Double) => Some(Bson::Double(f64::from(*i))),
            (Bson::Int64(i), Target::Double) => Some(Bson::Double(*i as f64)),
            (Bson::Int32(i), Target::Decimal) => dec(&i.to_string()),
            (Bson::Int64(i), Target::Decimal) => dec(&i.to_string()),
            (Bson::Double(x), Target::Decimal) => dec(&double_text(*x)),
            _ => None,
        };
        return out.map_or(Outcome::Stay, Outcome::Convert);
    }
    let Bson::String(s) = v else {
        return Outcome::Stay;
    };
    if !plain_number(s, matches!(to, Target::Double | Target::Decimal)) {
        return Outcome::Stay;
    }
    let out = match to {
        Target::Int => s.parse::<i32>().ok().map(Bson::Int32),
        Target::Long => s.parse::<i64>().ok().map(Bson::Int64),
        Target::Double => s.parse::<f64>().ok().map(Bson::Double),
        Target::Decimal => dec(s),
    };
    out.map_or(Outcome::Stay, Outcome::Convert)
}

fn dec(s: &str) -> Option<Bson> {
    s.parse::<Decimal128>().ok().map(Bson::Decimal128)
}

/// Counts of what the conversion does to a set of values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    pub convert: u64,
    pub stay: u64,
    pub already: u64,
    pub null: u64,
    /// Values left as they are, most frequent first (at most five).
    pub stays: Vec<(Bson, u64)>,
}

/// A value as a short text for messages (`"N/A"`, `true`).
pub(crate) fn show(v: &Bson) -> String {
    match v {
        Bson::String(s) => js(s),
        other => other.clone().relaxed().to_string(),
    }
}

pub(crate) fn tally<'a>(values: impl IntoIterator<Item = &'a Bson>, to: Target) -> Tally {
    let mut t = Tally::default();
    let mut stays: Vec<(Bson, u64)> = Vec::new();
    for v in values {
        match classify(v, to) {
            Outcome::Null => t.null += 1,
            Outcome::Already => t.already += 1,
            Outcome::Convert(_) => t.convert += 1,
            Outcome::Stay => {
                t.stay += 1;
                match stays.iter_mut().find(|(x, _)| x == v) {
                    Some(e) => e.1 += 1,
                    None => stays.push((v.clone(), 1)),
                }
            }
        }
    }
    stays.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| show(&a.0).cmp(&show(&b.0))));
    stays.truncate(5);
    t.stays = stays;
    t
}

/// Where the path lies, in the shapes the script can convert.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// `a` or `a.b`: no array on the way.
    Field(String),
    /// `a[]`: the elements of an array.
    Elements(String),
    /// `a[].b`: one field of each element object.
    ElementField(String, String),
}

/// The place of a profile path (`items[].qty`), when the script can reach it.
pub(crate) fn place(path: &str) -> Option<Place> {
    match path.split_once("[]") {
        None => Some(Place::Field(path.to_owned())),
        Some((arr, "")) if !arr.is_empty() => Some(Place::Elements(arr.to_owned())),
        Some((arr, rest)) => {
            let field = rest.strip_prefix('.')?;
            (!arr.is_empty() && !field.is_empty() && !field.contains(['.', '[', '$']))
                .then(|| Place::ElementField(arr.to_owned(), field.to_owned()))
        }
    }
}

/// The key under `schema_versions` recording the conversion of the values
/// at a place: the path without `[]`, `.` written `_` (`amount`,
/// `grades_rating`, `items_qty`).
pub(crate) fn version_key(p: &Place) -> String {
    match p {
        Place::Field(f) | Place::Elements(f) => f.replace('.', "_"),
        Place::ElementField(a, f) => format!("{a}_{f}").replace('.', "_"),
    }
}

/// `$` + path.
fn field_ref(p: &str) -> String {
    format!("${p}")
}

/// The converted value of the expression `v` (unchanged when it does not
/// convert; a missing value stays missing).
pub(super) fn conv(v: &str, to: Target) -> Value {
    let widen: Vec<&str> = [Target::Int, Target::Long, Target::Double]
        .into_iter()
        .filter(|t| *t < to)
        .map(Target::alias)
        .collect();
    let number = if to == Target::Decimal {
        // Through the shortest text, so 4200.5 becomes 4200.5, not 4200.50000000000.
        json!({ "$convert": { "input": { "$toString": v }, "to": "decimal", "onError": v } })
    } else {
        json!({ "$convert": { "input": v, "to": to.alias(), "onError": v } })
    };
    let text = json!({ "$convert": { "input": v, "to": to.alias(), "onError": v } });
    json!({ "$switch": {
        "branches": [
            { "case": { "$eq": [ { "$type": v }, "string" ] },
              "then": { "$cond": [ { "$regexMatch": { "input": v, "regex": to.pattern() } }, text, v ] } },
            { "case": { "$in": [ { "$type": v }, widen ] }, "then": number }
        ],
        "default": v
    } })
}

/// True when `v` is not yet of the target type and converts to it.
pub(super) fn converts(v: &str, to: Target) -> Value {
    json!({ "$and": [
        { "$ne": [ { "$type": v }, to.alias() ] },
        { "$eq": [ { "$type": conv(v, to) }, to.alias() ] }
    ] })
}

/// The values at the place, as an array expression.
pub(super) fn values_expr(p: &Place) -> Value {
    match p {
        Place::Field(f) => json!([field_ref(f)]),
        Place::Elements(a) => {
            json!({ "$cond": [ { "$isArray": field_ref(a) }, field_ref(a), [] ] })
        }
        Place::ElementField(a, f) => json!({ "$map": {
            "input": { "$cond": [ { "$isArray": field_ref(a) }, field_ref(a), [] ] },
            "as": "it",
            "in": format!("$$it.{f}")
        } }),
    }
}

/// The `$set` stage converting the values at the place.
pub(super) fn set_stage(p: &Place, to: Target) -> Value {
    match p {
        Place::Field(f) => json!({ "$set": { f.clone(): conv(&field_ref(f), to) } }),
        Place::Elements(a) => json!({ "$set": { a.clone(): { "$map": {
            "input": field_ref(a), "as": "it", "in": conv("$$it", to)
        } } } }),
        Place::ElementField(a, f) => {
            let v = format!("$$it.{f}");
            json!({ "$set": { a.clone(): { "$map": {
                "input": field_ref(a), "as": "it",
                "in": { "$cond": [
                    { "$and": [ { "$eq": [ { "$type": "$$it" }, "object" ] }, converts(&v, to) ] },
                    { "$mergeObjects": [ "$$it", { f.clone(): conv(&v, to) } ] },
                    "$$it"
                ] }
            } } } })
        }
    }
}

/// The conversion script for a place an update can reach.
pub(crate) fn script(p: &Plan, coll: &str, place: &Place, to: Target, r: &Reaudit) -> String {
    let t = to.alias();
    let vals = values_expr(place);
    let kind = json!({ "$switch": {
        "branches": [
            { "case": { "$in": [ { "$type": "$v" }, ["null", "missing"] ] }, "then": "null" },
            { "case": { "$eq": [ { "$type": "$v" }, t ] }, "then": "already" },
            { "case": converts("$v", to), "then": "convert" }
        ],
        "default": "stay"
    } });
    let classify = json!([
        { "$project": { "_id": 0, "v": vals } },
        { "$unwind": "$v" },
        { "$project": { "v": 1, "kind": kind } }
    ]);
    let filter = json!({ "$expr": { "$anyElementTrue": [ { "$map": {
        "input": vals, "as": "x", "in": converts("$$x", to)
    } } ] } });
    let all_target = json!({ "$allElementsTrue": [ { "$map": {
        "input": vals, "as": "x",
        "in": { "$in": [ { "$type": "$$x" }, [t, "null", "missing"] ] }
    } } ] });
    let key = version_key(place);
    let marked = format!("schema_versions.{key}");
    let stamp = json!({ "$set": { "schema_versions": {
        "$cond": [
            all_target,
            { "$mergeObjects": [ { "$ifNull": [ "$schema_versions", {} ] }, { key.clone(): 2 } ] },
            "$schema_versions"
        ]
    } } });
    let lang = p.lang;
    let shown = field_path(place);
    // Each value as it would be: the target for one that converts, its own
    // type for the others; and whether a number (converted) reaches 2^53.
    let typed = json!([
        { "$project": { "_id": 0, "v": vals } },
        { "$unwind": "$v" },
        { "$project": { "t": { "$cond": [ converts("$v", to), t, { "$type": "$v" } ] }, "c": conv("$v", to) } }
    ]);
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", p.coll(coll));
    let _ = writeln!(s, "const classify = {};", js_value(&classify));
    let _ = writeln!(s, "const typed = {};", js_value(&typed));
    s.push_str(&super::reaudit::js_helpers(lang, &shown, r, true));
    let _ = writeln!(s, "{}", lang.pick(
        format!("\n// 1. What the conversion does to each value: already {t}, converts exactly, or stays as it is."),
        format!("\n// 1. 转换对每个值的作用：已是 {t}、可以精确转换，或保持原样。"),
    ));
    let _ = writeln!(
        s,
        "const counts = {{ already: 0, convert: 0, stay: 0, null: 0 }};"
    );
    let _ = writeln!(s, "coll.aggregate(classify.concat([{{ $group: {{ _id: \"$kind\", n: {{ $sum: 1 }} }} }}]), {{ allowDiskUse: true }}).forEach((g) => {{ counts[g._id] = g.n; }});");
    let _ = writeln!(s, "const stays = coll.aggregate(classify.concat([{{ $match: {{ kind: \"stay\" }} }}, {{ $group: {{ _id: \"$v\", n: {{ $sum: 1 }} }} }}, {{ $sort: {{ n: -1 }} }}, {{ $limit: 5 }}]), {{ allowDiskUse: true }}).toArray();");
    let _ = writeln!(
        s,
        "const shown = stays.map((g) => `${{EJSON.stringify(g._id)}} x${{g.n}}`).join(\", \");"
    );
    let _ = writeln!(
        s,
        r#"// The types the path holds once the values that convert are {t} (at any time: after a run
// none is left to convert), and what the re-audit makes of them.
const after = () => {{
  const types = {{}};
  coll.aggregate(typed.concat([{{ $group: {{ _id: "$t", n: {{ $sum: 1 }} }} }}]), {{ allowDiskUse: true }}).forEach((g) => {{ types[g._id] = g.n; }});
  const wide = coll.aggregate(typed.concat([{{ $match: {{ $or: [{{ c: {{ $gte: 9007199254740992 }} }}, {{ c: {{ $lte: -9007199254740992 }} }}] }} }}, {{ $limit: 1 }}]), {{ allowDiskUse: true }}).toArray().length > 0;
  return {{ types, rules: mixedTypes(types, wide) ? ["mixed-types"] : [] }};
}};"#
    );
    let _ = writeln!(
        s,
        "print({});\n{{\n  const {{ types, rules }} = after();\n  if (rules.includes(\"mixed-types\")) print({});\n}}",
        lang.pick(
            format!("`{shown}: ${{counts.convert}} values ${{apply ? \"are\" : \"would be\"}} converted to {t}, ${{counts.already}} already are, ${{counts.stay}} stay as they are${{shown ? \" (\" + shown + \")\" : \"\"}}`"),
            format!("`{shown}：${{counts.convert}} 个值${{apply ? \"被\" : \"将被\"}}转换为 {t}，${{counts.already}} 个已是 {t}，${{counts.stay}} 个保持原样${{shown ? \"（\" + shown + \"）\" : \"\"}}`"),
        ),
        lang.pick(
            format!("`the values that stay keep {shown} mixed (${{heldText(types)}}): the re-audit will still report mixed-types on it`"),
            format!("`保持原样的值使 {shown} 仍混有多种类型（${{heldText(types)}}）：重新审计时仍会报告 mixed-types`"),
        ),
    );
    let _ = writeln!(s, "{}", lang.pick(
        format!("\n// 2. Convert only what converts exactly; stamp {marked} only where every value is now {t}. _id is never set."),
        format!("\n// 2. 只转换能精确转换的值；只有所有值都已是 {t} 的文档才标记 {marked}。从不修改 _id。"),
    ));
    let _ = writeln!(
        s,
        "const changed = ds.update(coll, {}, [{}, {}]);",
        js_value(&filter),
        js_value(&set_stage(place, to)),
        js_value(&stamp)
    );
    let _ = writeln!(
        s,
        "{}",
        lang.pick(
            "\n// 3. Report, and what docshape's re-audit will report on the path.",
            "\n// 3. 报告，以及 docshape 重新审计时会在该路径上报告什么。"
        )
    );
    let _ = writeln!(
        s,
        "print({});",
        lang.pick(
            format!("`${{apply ? \"converted\" : \"would convert\"}} ${{counts.convert}} values to {t} in ${{changed}} documents; left ${{counts.stay}} values untouched${{shown ? \" (\" + shown + \")\" : \"\"}}; ${{counts.already}} values were already {t}`"),
            format!("`${{apply ? \"已转换\" : \"将转换\"}} ${{changed}} 个文档中的 ${{counts.convert}} 个值为 {t}；${{counts.stay}} 个值保持原样${{shown ? \"（\" + shown + \"）\" : \"\"}}；${{counts.already}} 个值原本就是 {t}`"),
        )
    );
    let _ = writeln!(
        s,
        "print({});",
        lang.pick(
            format!(
                "`${{coll.countDocuments({})}} documents have {marked}: 2`",
                js_value(&json!({ marked.clone(): 2 }))
            ),
            format!(
                "`${{coll.countDocuments({})}} 个文档带有 {marked}: 2`",
                js_value(&json!({ marked.clone(): 2 }))
            ),
        )
    );
    let _ = writeln!(
        s,
        "{{\n  const {{ types, rules }} = after();\n  if (apply && rules.includes(\"mixed-types\")) {}\n  ds.last(reaudit(rules, {}));\n}}",
        p.stays(&lang.pick(
            format!("`${{counts.stay}} values of {shown} are not plain numbers and stay as they are`"),
            format!("`{shown} 中有 ${{counts.stay}} 个值不是普通数字，保持原样`"),
        ))
        .trim_end(),
        js(lang.pick("it holds ", "它保存 ")) + " + heldText(types)",
    );
    p.finish(&s)
}

/// The place as the profile names it.
fn field_path(p: &Place) -> String {
    match p {
        Place::Field(f) => f.clone(),
        Place::Elements(a) => format!("{a}[]"),
        Place::ElementField(a, f) => format!("{a}[].{f}"),
    }
}

/// A script that only counts the types at a path it must not (or cannot)
/// update, says why the finding stays, and ends with the re-audit line
/// (`shown`: the path as the profile names it).
pub(crate) fn count_only(
    lang: Lang,
    what: &str,
    (db, coll): (&str, &str),
    (dotted, shown): (&str, &str),
    why: &str,
    stays: &[&str],
    r: &Reaudit,
) -> String {
    let mut s = change::read_only(lang, what);
    let _ = writeln!(s, "const coll = {};", js_coll(db, coll));
    let _ = writeln!(s, "// {why}.");
    let _ = writeln!(
        s,
        "coll.aggregate([{{ $group: {{ _id: {{ $type: {} }}, n: {{ $sum: 1 }} }} }}, {{ $sort: {{ n: -1 }} }}]).forEach((g) => print(`${{g._id}}: ${{g.n}} {}`));",
        js(&format!("${dotted}")),
        lang.pick("documents", "个文档"),
    );
    s.push_str(&change::stays_line(lang, &js(why)));
    s.push_str(&super::reaudit::unchanged(lang, shown, stays, r));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Bson {
        Bson::String(x.into())
    }

    #[test]
    fn amounts_with_fractions_never_become_int() {
        let v = [s("4200"), Bson::Double(4200.5), Bson::Int32(17), s("N/A")];
        assert_eq!(plan(&v, "amount"), Some((Target::Decimal, Reason::Money)));
        assert_eq!(
            plan(&v, "reading"),
            Some((Target::Double, Reason::Fractions))
        );
        let t = tally(&v, Target::Double);
        assert_eq!((t.convert, t.stay, t.already), (2, 1, 1));
        assert_eq!(t.stays, vec![(s("N/A"), 1)]);
        assert_eq!(
            classify(&s("4200"), Target::Double),
            Outcome::Convert(Bson::Double(4200.0))
        );
        assert_eq!(
            classify(&Bson::Double(4200.5), Target::Decimal),
            Outcome::Convert(dec("4200.5").expect("decimal"))
        );
    }

    #[test]
    fn doubles_without_fractions_still_are_not_narrowed() {
        let v = [Bson::Double(4.0), Bson::Int32(3), Bson::Int32(5)];
        assert_eq!(
            plan(&v, "score"),
            Some((Target::Double, Reason::DoublePresent))
        );
        let v = [Bson::Int32(3), s("12"), s("4000000000")];
        assert_eq!(plan(&v, "n"), Some((Target::Long, Reason::Wide)));
        let v = [Bson::Int64(1 << 60), Bson::Double(0.5)];
        assert_eq!(plan(&v, "n").map(|p| p.0), Some(Target::Decimal));
    }

    #[test]
    fn sentinels_and_odd_strings_stay() {
        for x in [
            "", "N/A", "unknown", " 12", "012", "1e3", "0x1F", "12.", ".5", "-",
        ] {
            assert_eq!(classify(&s(x), Target::Double), Outcome::Stay, "{x:?}");
        }
        assert_eq!(classify(&s("12.5"), Target::Int), Outcome::Stay);
        assert_eq!(classify(&s("4000000000"), Target::Int), Outcome::Stay);
        assert_eq!(classify(&Bson::Boolean(true), Target::Int), Outcome::Stay);
        assert_eq!(classify(&Bson::Null, Target::Int), Outcome::Null);
        assert_eq!(
            classify(&s("-0"), Target::Int),
            Outcome::Convert(Bson::Int32(0))
        );
    }

    #[test]
    fn mostly_words_are_not_converted() {
        let v = [s("red"), s("blue"), s("green"), Bson::Int32(3)];
        assert_eq!(plan(&v, "colour"), None);
        assert_eq!(plan(&[s("a"), Bson::Boolean(true)], "x"), None);
    }

    #[test]
    fn money_names() {
        for n in ["amount", "unit_price", "totalCost", "fees"] {
            assert!(money_name(n), "{n}");
        }
        for n in ["rating", "stars", "priceless"] {
            assert!(!money_name(n), "{n}");
        }
    }

    #[test]
    fn places() {
        assert_eq!(place("a.b"), Some(Place::Field("a.b".into())));
        assert_eq!(place("tags[]"), Some(Place::Elements("tags".into())));
        assert_eq!(
            place("items[].qty"),
            Some(Place::ElementField("items".into(), "qty".into()))
        );
        assert_eq!(place("a[].b[].c"), None);
        assert_eq!(place("a[].b.c"), None);
        // One stamp per path, each under its own key.
        let key = |p: &str| place(p).map(|p| version_key(&p));
        assert_eq!(key("amount").as_deref(), Some("amount"));
        assert_eq!(key("grades.rating").as_deref(), Some("grades_rating"));
        assert_eq!(key("items[].qty").as_deref(), Some("items_qty"));
        assert_eq!(key("tags[]").as_deref(), Some("tags"));
        let p = Plan::new(Lang::En, "db", "c", "types", "x");
        let script = script(
            &p,
            "c",
            &Place::Field("amount".into()),
            Target::Double,
            &Reaudit::default(),
        );
        assert!(script.contains("schema_versions.amount"), "{script}");
        assert!(!script.contains("\"schema_version\""), "{script}");
    }
}
