//! The `string-dates` script: dates stored as text become BSON dates, and
//! the script tells the truth about it.
//!
//! It reads every string of the path once, with the very tests the rule
//! recognised dates by (ISO-8601, RFC 2822, a month by name, day, month and
//! year in digits: `rules::string_dates`, `rules::date_text`), and says up
//! front — in a dry run too — how many it converts and how many it leaves,
//! and why: a date in digits whose day and month cannot be told apart, one
//! written both ways, or text that is no date. The order of day and month
//! is settled by the whole collection at run time, not by the sample: a
//! day above 12 in any value written with a separator settles every value
//! written with it (the sample's order is shown beside, never trusted). It
//! ends with what the re-audit will report on the path
//! ([`super::reaudit`]), from what the path then holds: a partial
//! conversion that leaves the path `mixed-types` says so, in the dry run
//! before anything changed.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::{json, Map};

use super::change::{self, Plan};
use super::{js, js_coll, js_value, reaudit, Suggestion};
use crate::i18n::Lang;
use crate::profile::{query_path, FieldProfile, Seg};
use crate::rules::date_text::{
    named_source, numeric_source, year_first_source, Order, MONTHS, WEEKDAYS,
};
use crate::rules::string_dates::DateFormat;
use crate::rules::{CollectionCtx, Reaudit};

/// The JavaScript that reads a string as the rule does:
/// `dates.read(text)` gives `null` for anything the rule does not call a
/// date, else `{ kind, sep, order, at(order) }`: `kind` `iso`, `rfc`,
/// `named` or `digits`; for digits, `sep` their separator and `order` what
/// this value settles (`day`, `month`, `year`, `same` for a day equal to
/// its month, which reads alike both ways, or `either`); `at` the
/// instant read in the given order (`null` when that order names no day).
fn dates_js() -> String {
    let list = |names: &[&str]| js_value(&json!(names));
    format!(
        r#"const dates = (() => {{
  const months = {months};
  const weekdays = {weekdays};
  const named = new RegExp({named}, "i");
  const digits = new RegExp({digits}, "i");
  const yearFirst = new RegExp({year_first}, "i");
  const iso = /^(\d{{4}})-(\d{{2}})-(\d{{2}})(?:[T ](\d{{2}}):(\d{{2}})(?::(\d{{2}})(?:\.(\d{{1,9}}))?)?(?:([Zz])|([+-])(\d{{2}}):?(\d{{2}}))?)?$/;
  const rfc = /^(?:([A-Za-z]{{3}}),\s+)?(\d{{1,2}})\s+([A-Za-z]{{3}})\s+(\d{{4}})\s+(\d{{2}}):(\d{{2}})(?::(\d{{2}}))?\s+(UT|GMT|EST|EDT|CST|CDT|MST|MDT|PST|PDT|[+-]\d{{4}})$/;
  const rfcZones = {{ UT: 0, GMT: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420 }};
  const rfcMonths = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const rfcDays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
  // A UTC instant (years below 100 too, which Date.UTC would move to the 1900s).
  const utc = (y, mo, d, h, mi, s, ms) => {{
    const t = new Date(0);
    t.setUTCFullYear(y, mo - 1, d);
    t.setUTCHours(h, mi, s, ms);
    return t;
  }};
  const realDay = (y, mo, d) => {{
    if (mo < 1 || mo > 12 || d < 1) return false;
    const t = utc(y, mo, d, 0, 0, 0, 0);
    return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
  }};
  const nameOf = (w, names) => {{
    const x = w.toLowerCase();
    return names.findIndex((n) => x === n || (x.length === 3 && n.startsWith(x)));
  }};
  const readIso = (t) => {{
    const c = iso.exec(t);
    if (c === null) return null;
    const [y, mo, d] = [Number(c[1]), Number(c[2]), Number(c[3])];
    const [h, mi, s] = [Number(c[4] || 0), Number(c[5] || 0), Number(c[6] || 0)];
    if (!realDay(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
    const ms = c[7] === undefined ? 0 : Number((c[7] + "00").slice(0, 3));
    let off = 0;
    if (c[9] !== undefined) {{
      const [oh, om] = [Number(c[10]), Number(c[11])];
      if (oh > 23 || om > 59) return null;
      off = (c[9] === "-" ? -1 : 1) * (oh * 60 + om);
    }}
    return new Date(utc(y, mo, d, h, mi, s, ms).getTime() - off * 60000);
  }};
  const readRfc = (t) => {{
    const c = rfc.exec(t);
    if (c === null || (c[1] !== undefined && !rfcDays.includes(c[1]))) return null;
    const mo = rfcMonths.indexOf(c[3]) + 1;
    const [d, y, h, mi, s] = [Number(c[2]), Number(c[4]), Number(c[5]), Number(c[6]), Number(c[7] || 0)];
    if (mo === 0 || !realDay(y, mo, d) || h > 23 || mi > 59 || s > 59) return null;
    const z = c[8];
    const off = z in rfcZones ? rfcZones[z] : (z[0] === "-" ? -1 : 1) * (Number(z.slice(1, 3)) * 60 + Number(z.slice(3, 5)));
    return new Date(utc(y, mo, d, h, mi, s, 0).getTime() - off * 60000);
  }};
  // The instant of a date and the time and zone the expression captured.
  const instant = (g, y, m, d) => {{
    if (!realDay(y, m, d)) return null;
    let h = g.h === undefined ? 0 : Number(g.h);
    const mi = g.mi === undefined ? 0 : Number(g.mi);
    const s = g.s === undefined ? 0 : Number(g.s);
    if (g.ap !== undefined) {{
      if (h < 1 || h > 12 || g.f !== undefined) return null;
      h = (h % 12) + (g.ap.toLowerCase() === "p" ? 12 : 0);
    }}
    if (h > 23 || mi > 59 || s > 59) return null;
    const ms = g.f === undefined ? 0 : Number((g.f + "00").slice(0, 3));
    let off = 0;
    if (g.off !== undefined) {{
      const o = g.off.replace(":", "");
      const oh = Number(o.slice(1, 3));
      const om = Number(o.slice(3, 5));
      if (oh > 23 || om > 59) return null;
      off = (o[0] === "-" ? -1 : 1) * (oh * 60 + om);
    }} else if (g.z === undefined && g.zn !== undefined) return null;
    return {{ when: new Date(utc(y, m, d, h, mi, s, ms).getTime() - off * 60000), weekday: utc(y, m, d, 0, 0, 0, 0).getUTCDay() }};
  }};
  const read = (text) => {{
    if (typeof text !== "string") return null;
    const t = text.trim();
    if (t.length > 80 || !/\d/.test(t)) return null;
    const isoAt = readIso(t);
    if (isoAt !== null) return {{ kind: "iso", order: "fixed", at: () => isoAt }};
    const rfcAt = readRfc(t);
    if (rfcAt !== null) return {{ kind: "rfc", order: "fixed", at: () => rfcAt }};
    let c = /[a-z]/i.test(t) ? named.exec(t) : null;
    if (c !== null) {{
      const g = c.groups;
      const m = nameOf(g.mon1 !== undefined ? g.mon1 : g.mon2, months) + 1;
      const r = m === 0 ? null : instant(g, Number(g.y), m, Number(g.d1 !== undefined ? g.d1 : g.d2));
      if (r === null || (g.wd !== undefined && nameOf(g.wd, weekdays) !== r.weekday)) return null;
      return {{ kind: "named", order: "fixed", at: () => r.when }};
    }}
    let year = false;
    c = digits.exec(t);
    if (c === null) {{ c = yearFirst.exec(t); year = true; }}
    if (c === null || c.groups.sep !== c.groups.sep2) return null;
    const g = c.groups;
    const a = Number(g.a);
    const b = Number(g.b);
    const order = year ? "year" : a > 12 && b <= 12 ? "day" : b > 12 && a <= 12 ? "month" : a === b && a <= 12 ? "same" : a <= 12 && b <= 12 ? "either" : null;
    if (order === null) return null;
    const at = (o) => {{
      const r = o === "month" ? instant(g, Number(g.y), a, b) : instant(g, Number(g.y), b, a);
      return r === null ? null : r.when;
    }};
    if (at(order === "either" ? "day" : order) === null) return null;
    return {{ kind: "digits", sep: g.sep, order, at }};
  }};
  return {{ read }};
}})();
"#,
        months = list(&MONTHS),
        weekdays = list(&WEEKDAYS),
        named = js(&named_source()),
        digits = js(&numeric_source()),
        year_first = js(&year_first_source()),
    )
}

/// The order of day and month the sample settled, per separator of dates
/// in digits (year first aside): `day`, `month`, `either` (no value
/// told), `mixed` (both).
fn sampled_orders(formats: &[(DateFormat, u64)]) -> BTreeMap<String, &'static str> {
    let mut out = BTreeMap::new();
    for (f, _) in formats {
        if let DateFormat::Numeric(n) = f {
            let o = match n.order {
                Order::DayFirst => "day",
                Order::MonthFirst => "month",
                Order::Undecided => "either",
                Order::Mixed => "mixed",
                Order::YearFirst => continue,
            };
            out.insert(char::from(n.sep).to_string(), o);
        }
    }
    out
}

/// The messages of the census and the closing line, in the script's
/// language (JavaScript template literals).
struct Words {
    head: &'static str,
    convert: &'static str,
    settled: &'static str,
    against: &'static str,
    unsettled: &'static str,
    ambiguous: &'static str,
    mixed: &'static str,
    text: &'static str,
    mixes: &'static str,
    holds: &'static str,
    will_hold: &'static str,
    dates_left: &'static str,
    stays: &'static str,
    stays_mixed: &'static str,
}

fn words(lang: Lang) -> Words {
    Words {
        head: lang.pick(
            "`${path}: ${census.strings} documents hold a string; ${convert} of them ${applying ? \"are\" : \"would be\"} converted to dates, ${census.strings - convert} stay strings`",
            "`${path}：${census.strings} 个文档保存的是字符串；其中 ${convert} 个${applying ? \"被\" : \"将被\"}转换为日期，${census.strings - convert} 个仍是字符串`",
        ),
        convert: lang.pick(
            "`  converted: ${kinds.join(\", \")}`",
            "`  转换：${kinds.join(\"、\")}`",
        ),
        settled: lang.pick(
            "`  dates in digits written with \"${sep}\" are ${o} first over the whole collection, as \"${o === \"day\" ? s.day : s.month}\" shows (${o === \"day\" ? \"a day\" : \"a month\"} can only be the number above 12)${sampled[sep] !== o ? \"; the sample alone did not tell\" : \"\"}`",
            "`  用 \"${sep}\" 分隔的数字日期在整个集合中都是${o === \"day\" ? \"日\" : \"月\"}在前，\"${o === \"day\" ? s.day : s.month}\" 可以证明（大于 12 的数只能是日）${sampled[sep] !== o ? \"；仅凭样本无法判断\" : \"\"}`",
        ),
        against: lang.pick(
            "`  dates in digits written with \"${sep}\" are day first in \"${s.day}\" and month first in \"${s.month}\": the whole collection holds both orders${sampled[sep] === \"day\" || sampled[sep] === \"month\" ? \", against the \" + sampled[sep] + \"-first order the sample showed\" : \"\"}`",
            "`  用 \"${sep}\" 分隔的数字日期中，\"${s.day}\" 是日在前，\"${s.month}\" 是月在前：整个集合两种顺序都有${sampled[sep] === \"day\" || sampled[sep] === \"month\" ? \"，与样本显示的顺序相反\" : \"\"}`",
        ),
        unsettled: lang.pick(
            "`  dates in digits written with \"${sep}\": no value of the whole collection has a number above 12 before the year (e.g. \"${s.example}\"), so which is the day and which the month cannot be told`",
            "`  用 \"${sep}\" 分隔的数字日期：整个集合中没有一个值在年份前有大于 12 的数（例如 \"${s.example}\"），无法判断哪个是日、哪个是月`",
        ),
        ambiguous: lang.pick(
            "`  left: ${ambiguous} dates in digits whose day and month cannot be told apart (ambiguous day/month)`",
            "`  保留：${ambiguous} 个数字日期无法分辨日和月（日/月有歧义）`",
        ),
        mixed: lang.pick(
            "`  left: ${mixed} dates in digits written both day first and month first with one separator`",
            "`  保留：${mixed} 个数字日期在同一分隔符下既有日在前也有月在前`",
        ),
        text: lang.pick(
            "`  left: ${census.text} strings that are not dates (unparseable, e.g. \"${census.textExample}\")`",
            "`  保留：${census.text} 个不是日期的字符串（无法解析，例如 \"${census.textExample}\"）`",
        ),
        mixes: lang.pick(
            "`this leaves ${path} mixed (${heldText(types)}): the re-audit will report mixed-types on it${rules.includes(\"string-dates\") ? \", and string-dates\" : \"\"}. Convert the rest in the application, which knows their order, or leave the path as it is.`",
            "`这会使 ${path} 混有多种类型（${heldText(types)}）：重新审计时会在其上报告 mixed-types${rules.includes(\"string-dates\") ? \"，以及 string-dates\" : \"\"}。请在知道其顺序的应用中转换其余的值，或者保持该路径不变。`",
        ),
        holds: lang.pick("`it holds ${heldText(types)}`", "`它现在保存 ${heldText(types)}`"),
        will_hold: lang.pick(
            "`it will hold ${heldText(types)}`",
            "`届时它将保存 ${heldText(types)}`",
        ),
        dates_left: lang.pick(
            "`; ${dateTexts} of the strings are dates it could not convert`",
            "`；其中 ${dateTexts} 个字符串是无法转换的日期`",
        ),
        stays: lang.pick(
            "`${dateTexts} of the ${holding} documents holding ${path} still hold a date as a string`",
            "`持有 ${path} 的 ${holding} 个文档中仍有 ${dateTexts} 个以字符串保存日期`",
        ),
        stays_mixed: lang.pick(
            "`the strings left keep ${path} mixed (${heldText(types)})`",
            "`剩下的字符串使 ${path} 仍混有多种类型（${heldText(types)}）`",
        ),
    }
}

/// The kinds converted, in the script's language, as JavaScript building
/// `kinds` from `census` and the decided separators.
fn kinds_js(lang: Lang) -> String {
    let (iso, rfc, named, year, same, digits) = (
        lang.pick("ISO-8601", "ISO-8601"),
        lang.pick("RFC 2822", "RFC 2822"),
        lang.pick("month by name", "月份名称"),
        lang.pick("digits, year first", "数字，年在前"),
        lang.pick(
            "digits, day equal to month (the same date either way)",
            "数字，日与月相同（两种顺序都是同一天）",
        ),
        lang.pick(
            "`digits with \"${sep}\", ${orderOf(sep)} first`",
            "`用 \"${sep}\" 分隔的数字，${orderOf(sep) === \"day\" ? \"日\" : \"月\"}在前`",
        ),
    );
    format!(
        r#"const kinds = [];
for (const [k, label] of [[{iso_k}, {iso}], [{rfc_k}, {rfc}], [{named_k}, {named}], [{year_k}, {year}], [{same_k}, {same}]]) {{
  if (census[k] > 0) kinds.push(`${{label}} ×${{census[k]}}`);
}}
for (const sep of Object.keys(seps)) {{
  if (orderOf(sep) === "day" || orderOf(sep) === "month") kinds.push(`${{{digits}}} ×${{seps[sep].n}}`);
}}
"#,
        iso_k = js("iso"),
        rfc_k = js("rfc"),
        named_k = js("named"),
        year_k = js("year"),
        same_k = js("same"),
        same = js(same),
        iso = js(iso),
        rfc = js(rfc),
        named = js(named),
        year = js(year),
    )
}

/// The census, the conversion and the closing line, for a path outside
/// arrays.
fn census_script(
    s: &mut String,
    lang: Lang,
    shown: &str,
    formats: &[(DateFormat, u64)],
    (r, rule): (&Reaudit, &str),
) {
    let w = words(lang);
    let sampled: Map<String, serde_json::Value> = sampled_orders(formats)
        .into_iter()
        .map(|(k, v)| (k, json!(v)))
        .collect();
    s.push_str(&dates_js());
    s.push_str(&reaudit::js_helpers(lang, shown, r, true));
    let dates_min = r
        .string_dates
        .map_or_else(|| "null".to_owned(), |m| format!("{m}"));
    let _ = writeln!(
        s,
        "const datesMin = {dates_min};\nconst applying = apply;\n// The order of day and month the sample showed, per separator of dates in digits (only\n// shown beside what the whole collection says, never trusted).\nconst sampled = {};",
        js_value(&serde_json::Value::Object(sampled))
    );
    let _ = writeln!(
        s,
        r#"const valueAt = (d) => path.split(".").reduce((o, k) => (o == null ? o : o[k]), d);
const stringFilter = {{ [path]: {{ $type: "string" }} }};

// 1. Every string of the path, read once as the rule reads it. Dates in digits are settled
//    per separator by the whole collection: a number above 12 before the year is the day
//    (or, second, the day of a month-first date) and settles every value written with it.
const census = {{ strings: 0, iso: 0, rfc: 0, named: 0, year: 0, same: 0, text: 0, textExample: null }};
const seps = {{}};
coll.find(stringFilter, {{ [path]: 1 }}).forEach((d) => {{
  const text = valueAt(d);
  if (typeof text !== "string") return;
  census.strings += 1;
  const r = dates.read(text);
  if (r === null) {{
    census.text += 1;
    if (census.textExample === null) census.textExample = text;
  }} else if (r.kind !== "digits") census[r.kind] += 1;
  else if (r.order === "year" || r.order === "same") census[r.order] += 1;
  else {{
    const s = seps[r.sep] || (seps[r.sep] = {{ n: 0, day: null, month: null, example: text }});
    s.n += 1;
    if (r.order === "day" && s.day === null) s.day = text;
    if (r.order === "month" && s.month === null) s.month = text;
  }}
}});
const orderOf = (sep) => {{
  const s = seps[sep];
  if (s === undefined) return "either";
  return s.day !== null && s.month !== null ? "mixed" : s.day !== null ? "day" : s.month !== null ? "month" : "either";
}};
let convert = census.iso + census.rfc + census.named + census.year + census.same;
let ambiguous = 0;
let mixed = 0;
for (const sep of Object.keys(seps)) {{
  const o = orderOf(sep);
  if (o === "either") ambiguous += seps[sep].n;
  else if (o === "mixed") mixed += seps[sep].n;
  else convert += seps[sep].n;
}}
// What the path holds once the strings that convert are dates: its types (one value per
// document) and the strings the rule still calls dates.
const after = (converted) => {{
  const types = {{}};
  coll.aggregate([{{ $group: {{ _id: {{ $type: "$" + path }}, n: {{ $sum: 1 }} }} }}]).forEach((g) => {{ types[g._id] = g.n; }});
  let dateTexts = ambiguous + mixed;
  if (converted) {{
    dateTexts = 0;
    coll.find(stringFilter, {{ [path]: 1 }}).forEach((d) => {{ if (dates.read(valueAt(d)) !== null) dateTexts += 1; }});
  }} else if (convert > 0) {{
    types.string = (types.string || 0) - convert;
    types.date = (types.date || 0) + convert;
  }}
  const holding = heldTypes(types).reduce((n, t) => n + types[t], 0);
  const rules = [];
  if (datesMin !== null && holding > 0 && dateTexts > 0 && dateTexts / holding >= datesMin) rules.push("string-dates");
  if (mixedTypes(types, false)) rules.push("mixed-types");
  return {{ types, dateTexts, holding, rules }};
}};"#
    );
    s.push_str(&kinds_js(lang));
    let _ = writeln!(
        s,
        r#"print({head});
if (kinds.length > 0) print({convert});
for (const sep of Object.keys(seps)) {{
  const s = seps[sep];
  const o = orderOf(sep);
  if (o === "day" || o === "month") print({settled});
  else if (o === "mixed") print({against});
  else print({unsettled});
}}
if (ambiguous > 0) print({ambiguous});
if (mixed > 0) print({mixed});
if (census.text > 0) print({text});
{{
  const {{ types, rules }} = after(false);
  if (rules.includes("mixed-types")) print({mixes});
}}"#,
        head = w.head,
        convert = w.convert,
        settled = w.settled,
        against = w.against,
        unsettled = w.unsettled,
        ambiguous = w.ambiguous,
        mixed = w.mixed,
        text = w.text,
        mixes = w.mixes,
    );
    let _ = writeln!(
        s,
        r#"
// 2. Convert what reads as one instant, in the order the whole collection settled; each
//    document is saved first, and only a value still holding the same text changes.
ds.setEach(coll, path, (put) => coll.find(stringFilter, {{ [path]: 1 }}).forEach((d) => {{
  const text = valueAt(d);
  const r = dates.read(text);
  if (r === null) return;
  let o = r.order;
  if (r.kind === "digits" && o !== "year" && o !== "same") {{
    o = orderOf(r.sep);
    if (o !== "day" && o !== "month") return;
  }}
  const when = r.at(o);
  if (when !== null) put(d._id, text, when);
}}));"#
    );
    let _ = writeln!(
        s,
        r#"
// 3. What the path holds now, and what docshape's re-audit will report on it.
const {{ types, dateTexts, holding, rules }} = after(applying);
const why = (applying ? {holds} : {will_hold}) + (dateTexts > 0 ? {dates_left} : "");"#,
        holds = w.holds,
        will_hold = w.will_hold,
        dates_left = w.dates_left,
    );
    let _ = writeln!(
        s,
        "if (apply && rules.includes({rule})) ds.stays({});\nds.last(reaudit(rules, why));",
        if rule == "mixed-types" {
            w.stays_mixed
        } else {
            w.stays
        },
        rule = js(rule),
    );
}

/// Converts date strings to BSON dates (`schema-versioning`), see the
/// module's note.
pub(crate) fn string_dates(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    formats: &[(DateFormat, u64)],
    example: &str,
    r: &Reaudit,
    lang: Lang,
) -> Suggestion {
    let what = format!("{}.{}: string -> date", ctx.ns(), f.path);
    let mut s = convert(ctx, f, (formats, example), r, ("string-dates", &what), lang);
    s.summary = lang.pick(
        format!("Store `{}` as a BSON date: fix the writer to send dates, not text, and convert the existing strings (the script reads them as docshape did, says first how many it converts and how many it leaves and why, and ends with what the re-audit will report).{}", query_path(&f.segments), s.summary),
        format!("把 `{}` 保存为 BSON 日期：修正写入方，让它写入日期而不是文本，并转换已有的字符串（脚本按 docshape 的方式读取它们，先说明将转换多少、保留多少及原因，最后说明重新审计时会报告什么）。{}", query_path(&f.segments), s.summary),
    );
    s
}

/// The suggestion for a path holding dates beside dates written as text
/// (`mixed-types`): the strings become dates, as [`string_dates`] converts
/// them.
pub(crate) fn mixed_dates(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    formats: &[(DateFormat, u64)],
    example: &str,
    r: &Reaudit,
    lang: Lang,
) -> Suggestion {
    let what = format!("{}.{}: string/date -> date", ctx.ns(), f.path);
    let mut s = convert(ctx, f, (formats, example), r, ("mixed-types", &what), lang);
    s.summary = lang.pick(
        format!("`{}` holds dates, and dates written as text beside them: fix the writer that sends text, and convert the strings to the dates they name (the script reads them as docshape did, says first how many it converts and how many it leaves and why, and ends with what the re-audit will report).{}", query_path(&f.segments), s.summary),
        format!("`{}` 保存着日期，旁边还有以文本写的日期：修正写入文本的写入方，并把这些字符串转换为它们表示的日期（脚本按 docshape 的方式读取它们，先说明将转换多少、保留多少及原因，最后说明重新审计时会报告什么）。{}", query_path(&f.segments), s.summary),
    );
    s
}

/// The conversion's suggestion; its summary holds only what follows the
/// opening sentence (ambiguity, a path the script cannot change).
/// `rule` is the finding's, `what` names the change (and its backup).
fn convert(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    (formats, example): (&[(DateFormat, u64)], &str),
    r: &Reaudit,
    (rule, what): (&'static str, &str),
    lang: Lang,
) -> Suggestion {
    let dotted = query_path(&f.segments);
    let in_array = f.segments.contains(&Seg::Elem);
    let kept = super::kept_value(ctx, f, lang);
    let convertible = formats.iter().any(|(f, _)| match f {
        DateFormat::Numeric(n) => n.convertible(),
        _ => true,
    });
    let undecided: Vec<String> = formats
        .iter()
        .filter_map(|(f, _)| match f {
            DateFormat::Numeric(n) if !n.convertible() => Some(f.label()),
            _ => None,
        })
        .collect();
    // A path the script can change: it decides at run time, from the whole
    // collection, what converts (even when the sample settled nothing).
    let changing = !in_array && kept.is_none();
    let mut s = if changing {
        String::new()
    } else {
        change::read_only(lang, what)
    };
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(&dotted));
    if changing {
        let _ = writeln!(
            s,
            "{}",
            lang.pick(
                "\n// Strings without an offset are read as UTC. A string that is not a date, or whose day\n// and month cannot be told apart, stays as it is and is counted. Re-running converts\n// nothing twice: a converted value is no longer a string.",
                "\n// 没有时区偏移的字符串按 UTC 读取。不是日期的字符串，或无法分辨日和月的字符串，保持原样\n// 并计数。重复运行不会二次转换：转换后的值已不再是字符串。",
            )
        );
        census_script(&mut s, lang, &f.path, formats, (r, rule));
        s = Plan::new(lang, ctx.db(), ctx.coll(), "dates", what).finish(&s);
    } else {
        let why = kept.clone().unwrap_or_else(|| {
            lang.pick(
                format!(
                    "{} lies inside an array: convert it in the application that writes it",
                    f.path
                ),
                format!("{} 位于数组中：请在写入它的应用中转换", f.path),
            )
        });
        let _ = writeln!(s, "\n// {why};");
        let _ = writeln!(
            s,
            "{}",
            lang.pick(
                "// this script only counts the documents still holding strings.",
                "// 这个脚本只统计仍保存字符串的文档。"
            )
        );
        let _ = writeln!(
            s,
            "const strings = coll.countDocuments({{ [path]: {{ $type: \"string\" }} }});"
        );
        let _ = writeln!(
            s,
            "print({});",
            lang.pick(
                "`${strings} documents hold a string in ${path}; this script changes nothing`",
                "`${strings} 个文档的 ${path} 是字符串；这个脚本不做任何修改`",
            )
        );
        s.push_str(&change::stays_line(lang, &js(&why)));
        // Nothing changes: the re-audit says what the audit said.
        let rules = reaudit::as_audited(ctx, f, rule, r);
        s.push_str(&reaudit::unchanged(lang, &f.path, &rules, r));
    }
    let mut summary = String::new();
    if !undecided.is_empty() {
        let labels = undecided.join(", ");
        summary.push_str(&lang.pick(
            format!(" Its dates in digits ({labels}) are ambiguous in the sample: no value tells which number is the day and which the month. The script reads the whole collection first: a value with a day above 12 settles the order of every value written with the same separator, and a day equal to its month reads alike either way; the others stay strings, and it says so before anything changes."),
            format!(" 其中用数字写的日期（{labels}）在样本中有歧义：没有任何值能说明哪个数字是日、哪个是月。脚本会先读取整个集合：只要有一个值的日大于 12，就能确定同一分隔符下所有值的顺序；日与月相同的值两种读法相同；其余的保持为字符串，并在任何修改之前说明。"),
        ));
        if convertible && changing {
            summary.push_str(lang.pick(
                " Converting the rest while those stay leaves the path holding dates beside strings, which the re-audit reports as mixed-types: the dry run says so.",
                " 若这些值保留而其余的被转换，该路径会同时保存日期和字符串，重新审计时会报告 mixed-types：试运行会说明这一点。",
            ));
        }
    }
    if let Some(why) = &kept {
        summary.push_str(&lang.pick(
            format!(" Here the script converts nothing: {why}."),
            format!("此处脚本不做转换：{why}。"),
        ));
    }
    Suggestion {
        pattern: "schema-versioning",
        summary,
        before: Some(json!({ dotted.clone(): example })),
        after: Some(json!({ dotted: { "$date": example_iso(example) } })),
        effect: Map::new(),
        migration: s,
    }
}

/// The example as it would read once converted, for display (best effort).
fn example_iso(example: &str) -> String {
    let e = example.trim();
    if e.len() >= 19 && e.as_bytes()[4] == b'-' {
        let mut out = e[..10].to_owned();
        out.push('T');
        out.push_str(&e[11..19]);
        out.push('Z');
        out
    } else {
        e.to_owned()
    }
}
