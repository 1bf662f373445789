//! Suggestions for data that is stored in a form that loses or hides
//! information: dates as strings, numbers a double cannot hold, references
//! to nothing, referenced keys that are not unique. Every script only
//! converts what it can convert exactly, counts what it leaves, and never
//! deletes.

use std::fmt::Write;

use serde_json::{json, Map};

use super::change::{self, Plan};
use super::{js, js_coll, js_value, Suggestion};
use crate::i18n::Lang;
use crate::profile::{query_path, FieldProfile, Seg};
use crate::relate::{KeyUniqueness, Relationship};
use crate::rules::CollectionCtx;

/// `$substrCP` of the string at `field` from `start`, `len` code points.
fn sub(field: &str, start: usize, len: usize) -> serde_json::Value {
    json!({ "$substrCP": [field, start, len] })
}

/// The expression rewriting one ISO-8601 format into
/// `YYYY-MM-DDThh:mm:ss.fff+hhmm`, which `$dateFromString` reads with the
/// format `%Y-%m-%dT%H:%M:%S.%L%z` on every server version.
fn iso_canonical(
    field: &str,
    date_only: bool,
    seconds: bool,
    frac: u8,
    offset: crate::rules::string_dates::Offset,
) -> serde_json::Value {
    use crate::rules::string_dates::Offset;
    let mut parts = vec![sub(field, 0, 10)];
    let mut at = 10;
    if date_only {
        parts.push(json!("T00:00:00.000"));
    } else {
        parts.push(json!("T"));
        parts.push(sub(field, 11, 5));
        at = 16;
        if seconds {
            parts.push(sub(field, 16, 3));
            at = 19;
            let frac = usize::from(frac);
            if frac == 0 {
                parts.push(json!(".000"));
            } else {
                parts.push(json!("."));
                parts.push(sub(field, 20, frac.min(3)));
                if frac < 3 {
                    parts.push(json!("0".repeat(3 - frac)));
                }
                at = 20 + frac;
            }
        } else {
            parts.push(json!(":00.000"));
        }
    }
    match offset {
        Offset::None | Offset::Z => parts.push(json!("+0000")),
        Offset::Colon => {
            parts.push(sub(field, at, 3));
            parts.push(sub(field, at + 4, 2));
        }
        Offset::Plain => parts.push(sub(field, at, 5)),
    }
    json!({ "$concat": parts })
}

/// A JavaScript regular expression matching exactly one format.
fn iso_regex(
    date_only: bool,
    sep: u8,
    seconds: bool,
    frac: u8,
    offset: crate::rules::string_dates::Offset,
) -> String {
    use crate::rules::string_dates::Offset;
    let mut r = String::from(r"/^\d{4}-\d{2}-\d{2}");
    if !date_only {
        r.push_str(if sep == b'T' { "T" } else { " " });
        r.push_str(r"\d{2}:\d{2}");
        if seconds {
            r.push_str(r":\d{2}");
            if frac > 0 {
                let _ = write!(r, r"\.\d{{{frac}}}");
            }
        }
        r.push_str(match offset {
            Offset::None => "",
            Offset::Z => "[Zz]",
            Offset::Colon => r"[+-]\d{2}:\d{2}",
            Offset::Plain => r"[+-]\d{4}",
        });
    }
    r.push_str("$/");
    r
}

const RFC2822_REGEX: &str = r"/^\s*(?:[A-Z][a-z]{2},\s*)?\d{1,2}\s+[A-Z][a-z]{2}\s+\d{4}\s+\d{2}:\d{2}(?::\d{2})?\s+(?:[+-]\d{4}|UT|GMT|[ECMP][SD]T)\s*$/";

/// The JavaScript that reads dates written for people, with the very
/// expressions the rule recognised them by (`rules::date_text`): `read(text)`
/// gives `{ kind, order, at(order) }` — `kind` `named` or `digits`, `order`
/// what this value settles (`day`, `month`, `year` or `either`), `at` the
/// instant in the given order, `null` for a part out of range.
fn people_dates_js() -> String {
    use crate::rules::date_text::{
        named_source, numeric_source, year_first_source, MONTHS, WEEKDAYS,
    };
    let list = |names: &[&str]| js_value(&json!(names));
    format!(
        r#"const people = (() => {{
  const months = {months};
  const weekdays = {weekdays};
  const named = new RegExp({named}, "i");
  const digits = new RegExp({digits}, "i");
  const yearFirst = new RegExp({year_first}, "i");
  const nameOf = (w, names) => {{
    const x = w.toLowerCase();
    return names.findIndex((n) => x === n || (x.length === 3 && n.startsWith(x)));
  }};
  // The instant of a date and the time and zone the expression captured.
  const instant = (g, y, m, d) => {{
    const day = new Date(Date.UTC(y, m - 1, d));
    if (m < 1 || m > 12 || day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) return null;
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
    return {{ when: new Date(Date.UTC(y, m - 1, d, h, mi, s, ms) - off * 60000), weekday: day.getUTCDay() }};
  }};
  const read = (text) => {{
    const t = text.trim();
    let c = named.exec(t);
    if (c !== null) {{
      const g = c.groups;
      const m = nameOf(g.mon1 !== undefined ? g.mon1 : g.mon2, months) + 1;
      const d = Number(g.d1 !== undefined ? g.d1 : g.d2);
      const at = () => {{
        const r = m === 0 ? null : instant(g, Number(g.y), m, d);
        if (r === null) return null;
        if (g.wd !== undefined && nameOf(g.wd, weekdays) !== r.weekday) return null;
        return r.when;
      }};
      return {{ kind: "named", order: "name", at }};
    }}
    let year = false;
    c = digits.exec(t);
    if (c === null) {{ c = yearFirst.exec(t); year = true; }}
    if (c === null || c.groups.sep !== c.groups.sep2) return null;
    const g = c.groups;
    const a = Number(g.a);
    const b = Number(g.b);
    const order = year ? "year" : a > 12 && b <= 12 ? "day" : b > 12 && a <= 12 ? "month" : a <= 12 && b <= 12 ? "either" : null;
    if (order === null) return null;
    const at = (o) => {{
      const r = o === "month" ? instant(g, Number(g.y), a, b) : instant(g, Number(g.y), b, a);
      return r === null ? null : r.when;
    }};
    return {{ kind: "digits", order, at }};
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

/// The part of a string-dates script that converts dates written for
/// people: every string of the path is read once to check the order the
/// sample settled against the whole collection (a value written the other
/// way stops the conversion of dates in digits), then the dates are
/// converted in batches, each saved first (`ds.save`).
fn people_dates_script(s: &mut String, named: bool, order: Option<crate::rules::date_text::Order>) {
    use crate::rules::date_text::Order;
    let order = match order {
        Some(Order::DayFirst) => "\"day\"",
        Some(Order::MonthFirst) => "\"month\"",
        Some(Order::YearFirst) => "\"year\"",
        _ => "null",
    };
    s.push_str(&people_dates_js());
    let _ = writeln!(
        s,
        r#"const convertNamed = {named};
// The order of day and month the sample settled (null: dates in digits are not converted).
let digitOrder = {order};
const stringFilter = {{ [path]: {{ $type: "string" }} }};
if (digitOrder !== null && digitOrder !== "year") {{
  const other = digitOrder === "day" ? "month" : "day";
  let against = null;
  coll.find(stringFilter, {{ [path]: 1 }}).forEach((d) => {{
    const text = path.split(".").reduce((o, k) => (o == null ? o : o[k]), d);
    const r = typeof text === "string" ? people.read(text) : null;
    if (against === null && r !== null && r.kind === "digits" && r.order === other) against = text;
  }});
  if (against !== null) {{
    print(`not converting dates in digits: "${{against}}" reads ${{other}} first, against the order the sample showed`);
    digitOrder = null;
  }}
}}
let batch = [];
const flush = () => {{
  if (batch.length === 0) return;
  if (ds.save(coll, {{ _id: {{ $in: batch.map((b) => b.id) }}, [path]: {{ $type: "string" }} }})) {{
    for (const b of batch) coll.updateOne({{ _id: b.id, [path]: b.text }}, {{ $set: {{ [path]: b.when }} }});
  }}
  batch = [];
}};
coll.find(stringFilter, {{ [path]: 1 }}).forEach((d) => {{
  const text = path.split(".").reduce((o, k) => (o == null ? o : o[k]), d);
  const r = typeof text === "string" ? people.read(text) : null;
  if (r === null) return;
  let when = null;
  if (r.kind === "named" && convertNamed) when = r.at();
  if (r.kind === "digits" && digitOrder !== null) {{
    if (r.order === "year" || r.order === "either" || r.order === digitOrder) when = r.at(r.order === "year" ? "year" : digitOrder);
  }}
  if (when === null) return;
  batch.push({{ id: d._id, text, when }});
  if (batch.length === 1000) flush();
}});
flush();"#
    );
}

/// Converts date strings to BSON dates (`schema-versioning`): each detected
/// format with `$dateFromString` (RFC 2822 with JavaScript's `Date`, which
/// reads it on every server); strings that do not parse stay and are
/// counted.
pub fn string_dates(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    formats: &[(crate::rules::string_dates::DateFormat, u64)],
    example: &str,
    lang: Lang,
) -> Suggestion {
    use crate::rules::date_text::{settle, Order};
    use crate::rules::string_dates::DateFormat;
    let dotted = query_path(&f.segments);
    let in_array = f.segments.contains(&Seg::Elem);
    let kept = super::kept_value(ctx, f, lang);
    let reads = in_array || kept.is_some();
    let what = format!("{}.{}: string -> date", ctx.ns(), f.path);
    let p = Plan::new(lang, ctx.db(), ctx.coll(), "dates", &what);
    // Dates written for people: by name always; in digits only in an
    // order the values settled.
    let named = formats
        .iter()
        .any(|(f, _)| matches!(f, DateFormat::Named(_)));
    let digit_orders: Vec<Order> = formats
        .iter()
        .filter_map(|(f, _)| match f {
            DateFormat::Numeric(n) => Some(n.order),
            _ => None,
        })
        .collect();
    let digit_order = (!digit_orders.is_empty()).then(|| settle(digit_orders.iter().copied()));
    let digits_convert = digit_order
        .is_some_and(|o| matches!(o, Order::DayFirst | Order::MonthFirst | Order::YearFirst));
    let undecided = digit_order.filter(|o| matches!(o, Order::Undecided | Order::Mixed));
    let machine = formats
        .iter()
        .any(|(f, _)| matches!(f, DateFormat::Iso { .. } | DateFormat::Rfc2822));
    // Nothing it could convert exactly: the script only counts.
    let counts_only = reads || !(machine || named || digits_convert);
    let mut s = if counts_only {
        change::read_only(lang, &what)
    } else {
        String::new()
    };
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(&dotted));
    if let Some(o) = undecided {
        let why = if o == Order::Mixed {
            "some values are day-first and others month-first"
        } else {
            "no value has a day over 12"
        };
        let _ = writeln!(s, "\n// Dates in digits ({}) are not converted: which number is the day and which the month\n// cannot be told from the values ({why}). Fix the writer, or convert them yourself once you know.", formats.iter().filter(|(f, _)| matches!(f, DateFormat::Numeric(_))).map(|(f, _)| f.label()).collect::<Vec<_>>().join(", "));
    }
    if let Some(why) = &kept {
        let _ = writeln!(
            s,
            "\n// {why};\n// this script only counts the documents still holding strings."
        );
    } else if in_array {
        let _ = writeln!(s, "\n// {} lies inside an array: convert it in the application that writes it;\n// this script only counts the documents still holding strings.", f.path);
    } else if counts_only {
        let _ = writeln!(
            s,
            "\n// This script only counts the documents still holding strings."
        );
    } else {
        let field = format!("${dotted}");
        let _ = writeln!(s, "\n// Each detected format is converted with $dateFromString; a string that is not a\n// valid date stays as it is (onError) and is counted at the end. Strings without an\n// offset are read as UTC. Re-running converts nothing twice: dates are no longer strings.");
        for (fmt, n) in formats {
            match *fmt {
                DateFormat::Iso {
                    date_only,
                    sep,
                    seconds,
                    frac,
                    offset,
                } => {
                    let expr = json!({ "$dateFromString": {
                        "dateString": iso_canonical(&field, date_only, seconds, frac, offset),
                        "format": "%Y-%m-%dT%H:%M:%S.%L%z",
                        "onError": field,
                        "onNull": field,
                    } });
                    let _ = writeln!(s, "\n// {} ({} in the sample)", fmt.label(), n);
                    // Only strings that become dates: one that does not
                    // parse is never matched, so a re-run changes nothing.
                    let _ = writeln!(
                        s,
                        "ds.update(coll, {{ [path]: {{ $type: \"string\", $regex: {} }}, $expr: {{ $eq: [{{ $type: {} }}, \"date\"] }} }}, [{{ $set: {{ [path]: {} }} }}]);",
                        iso_regex(date_only, sep, seconds, frac, offset),
                        js_value(&expr),
                        js_value(&expr)
                    );
                }
                DateFormat::Named(_) | DateFormat::Numeric(_) => {
                    let _ = writeln!(s, "\n// {} ({n} in the sample)", fmt.label());
                }
                DateFormat::Rfc2822 => {
                    let _ = writeln!(s, "\n// RFC 2822 ({n} in the sample): read by JavaScript's Date, which knows its day and month names.");
                    let _ = writeln!(s, "const rfc2822 = {RFC2822_REGEX};");
                    let _ = writeln!(s, "if (ds.save(coll, {{ [path]: {{ $type: \"string\", $regex: rfc2822 }} }})) {{");
                    let _ = writeln!(s, "  coll.find({{ [path]: {{ $type: \"string\", $regex: rfc2822 }} }}, {{ [path]: 1 }}).forEach((d) => {{\n    const text = path.split(\".\").reduce((o, k) => (o == null ? o : o[k]), d);\n    const when = new Date(text);\n    if (typeof text === \"string\" && !isNaN(when.getTime())) {{\n      coll.updateOne({{ _id: d._id, [path]: text }}, {{ $set: {{ [path]: when }} }});\n    }}\n  }});");
                    let _ = writeln!(s, "}}");
                }
            }
        }
        if named || digits_convert {
            let _ = writeln!(s, "\n// Dates written for people, read by the expressions docshape recognised them with;\n// without an offset they are read as UTC.");
            people_dates_script(&mut s, named, digit_order.filter(|_| digits_convert));
        }
    }
    let _ = writeln!(
        s,
        "\nconst strings = coll.countDocuments({{ [path]: {{ $type: \"string\" }} }});"
    );
    let _ = writeln!(
        s,
        "print(`${{strings}} documents still hold a string in ${{path}} (left as they were)`);"
    );
    let s = change::close(
        (!counts_only).then_some(&p),
        lang,
        s,
        "strings > 0",
        lang.pick(
            "`${strings} documents still hold a string in ${path}`",
            "`${strings} 个文档的 ${path} 仍是字符串`",
        ),
    );
    let mut summary = lang.pick(
        format!("Store `{dotted}` as a BSON date: fix the writer to send dates, not text, and convert the existing strings with $dateFromString (the script converts each detected format and leaves anything that does not parse untouched, counted)."),
        format!("把 `{dotted}` 保存为 BSON 日期：修正写入方，让它写入日期而不是文本，并用 $dateFromString 转换已有的字符串（脚本按检测到的每种格式转换，无法解析的值保持原样并计数）。"),
    );
    if undecided.is_some() {
        summary.push_str(lang.pick(
            " Its dates in digits are ambiguous: no value tells which number is the day and which the month (a day over 12 would), so the script converts none of them; the writer knows the order.",
            " 其中用数字写的日期有歧义：没有任何值能说明哪个数字是日、哪个是月（大于 12 的日才能说明），所以脚本不转换它们；顺序只有写入方知道。",
        ));
    }
    let summary = match &kept {
        Some(why) => lang.pick(
            format!("{summary} Here the script converts nothing: {why}."),
            format!("{summary}此处脚本不做转换：{why}。"),
        ),
        None => summary,
    };
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

/// What to do with numbers a double cannot hold (`schema-versioning`):
/// integers within 2^53 become `long` exactly, money becomes `decimal`
/// where the rounded decimal reads back as the same double, and values
/// whose precision is already gone are listed, not touched.
pub fn lossy_numbers(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    loss: &crate::rules::lossy_numbers::Loss,
    lang: Lang,
) -> Suggestion {
    let dotted = query_path(&f.segments);
    let field = format!("${dotted}");
    let in_array = f.segments.contains(&Seg::Elem);
    let kept = super::kept_value(ctx, f, lang);
    let limit = "9007199254740992";
    let what = format!("{}.{}: double -> exact type", ctx.ns(), f.path);
    let p = Plan::new(lang, ctx.db(), ctx.coll(), "numbers", &what);
    // Only a path outside arrays, holding integers or money, neither an
    // identity nor a reference, is converted.
    let changes = !in_array && kept.is_none() && (loss.integral || loss.money);
    let mut s = if changes {
        String::new()
    } else {
        change::read_only(lang, &what)
    };
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(&dotted));
    let _ = writeln!(s, "\n// Precision already lost in a double cannot be restored: an integer beyond 2^53\n// ({limit}) was rounded when it was written, and only the system that\n// produced it knows the true value. Fix the writer first (NumberLong, Decimal128,\n// or a string for opaque ids); this script makes the rest safe from now on.");
    if let Some(why) = &kept {
        let _ = writeln!(s, "// {why}.");
    } else if in_array {
        let _ = writeln!(
            s,
            "// {} lies inside an array: convert it in the application that writes it.",
            f.path
        );
    } else if loss.integral {
        let _ = writeln!(
            s,
            "\n// Integral doubles within +-2^53 are exact: convert them to long."
        );
        let _ = writeln!(
            s,
            "ds.update(coll, {{ [path]: {{ $type: \"double\", $gte: -{limit}, $lte: {limit} }} }}, [{{ $set: {{ [path]: {{ $toLong: {} }} }} }}]);",
            js(&field)
        );
    } else if loss.money {
        let places = loss.places.max(2);
        let rounded = json!({ "$round": [{ "$toDecimal": field }, places] });
        let expr = json!({ "$let": { "vars": { "d": rounded }, "in": {
            "$cond": [{ "$eq": [{ "$toDouble": "$$d" }, field] }, "$$d", field]
        } } });
        let _ = writeln!(s, "\n// Money: the decimal with {places} places that reads back as the same double is the\n// amount the writer meant; values with no such decimal stay doubles and are counted.");
        // Only the doubles that become decimals are matched: a re-run finds none.
        let _ = writeln!(
            s,
            "ds.update(coll, {{ [path]: {{ $type: \"double\" }}, $expr: {{ $eq: [{{ $type: {} }}, \"decimal\"] }} }}, [{{ $set: {{ [path]: {} }} }}]);",
            js_value(&expr),
            js_value(&expr)
        );
    }
    if loss.beyond > 0 {
        let _ = writeln!(
            s,
            "\n// Values beyond 2^53 are listed, not changed: check them against their source."
        );
        let _ = writeln!(s, "const beyond = {{ [path]: {{ $type: \"double\", $not: {{ $gte: -{limit}, $lte: {limit} }} }} }};");
        let _ = writeln!(
            s,
            "coll.find(beyond, {{ [path]: 1 }}).limit(20).forEach((d) => printjson(d));"
        );
        let _ = writeln!(s, "print(`${{coll.countDocuments(beyond)}} documents hold a double beyond 2^53 in ${{path}}`);");
    }
    let _ = writeln!(
        s,
        "const doubles = coll.countDocuments({{ [path]: {{ $type: \"double\" }} }});"
    );
    let _ = writeln!(
        s,
        "print(`${{doubles}} documents still hold a double in ${{path}}`);"
    );
    let s = change::close(
        changes.then_some(&p),
        lang,
        s,
        "doubles > 0",
        lang.pick(
            "`${doubles} documents still hold a double in ${path}`",
            "`${doubles} 个文档的 ${path} 仍是 double`",
        ),
    );
    let summary = if loss.money && !loss.integral {
        lang.pick(
            format!("Store `{dotted}` as decimal (Decimal128): fix the writer, then convert the existing doubles to the decimal they were meant to be (the script converts only values whose {}-place decimal reads back as the same double).", loss.places.max(2)),
            format!("把 `{dotted}` 保存为 decimal（Decimal128）：先修正写入方，再把已有的 double 转换为原本想表示的十进制数（脚本只转换保留 {} 位小数后仍能还原为同一 double 的值）。", loss.places.max(2)),
        )
    } else {
        lang.pick(
            format!("Store `{dotted}` as long (or a string for opaque ids): fix the writer; integers within 2^53 convert exactly, but the {} values beyond it were already rounded and must be recovered from their source.", loss.beyond),
            format!("把 `{dotted}` 保存为 long（不透明的 ID 可用字符串）：先修正写入方；2^53 以内的整数可以精确转换，但超出范围的 {} 个值已经被舍入，只能从原始数据源恢复。", loss.beyond),
        )
    };
    let summary = match &kept {
        Some(why) => lang.pick(
            format!("{summary} The script converts nothing: {why}."),
            format!("{summary}脚本不做转换：{why}。"),
        ),
        None => summary,
    };
    Suggestion {
        pattern: "schema-versioning",
        summary,
        before: None,
        after: None,
        effect: Map::new(),
        migration: s,
    }
}

/// Lists references to missing documents and counts them; changes nothing
/// (the pattern of the reference itself stays).
pub fn dangling(ctx: &CollectionCtx<'_>, r: &Relationship, lang: Lang) -> Suggestion {
    let key =
        r.to.strip_prefix(&format!("{}.", r.to_ns))
            .unwrap_or("_id")
            .to_owned();
    let (to_db, to_coll) = r.to_ns.split_once('.').unwrap_or(("", r.to_ns.as_str()));
    let field = ctx.field(&r.from_path);
    let segs: Vec<Seg> = field.map(|f| f.segments.clone()).unwrap_or_default();
    let dotted = if segs.is_empty() {
        r.from_path.replace("[]", "")
    } else {
        query_path(&segs)
    };
    let mut unwinds = segs.iter().filter(|s| **s == Seg::Elem).count();
    if field.is_some_and(|f| f.main_type() == Some(crate::profile::raw::BsonType::Array)) {
        unwinds += 1;
    }
    let mut s = change::read_only(
        lang,
        &format!("dangling references {}.{}", ctx.ns(), r.from_path),
    );
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "\n// Lists and counts references to documents that do not exist. It changes nothing:\n// fix the writer (or the delete that left them behind) and decide per case what the\n// reference should be; queries must tolerate a missing target meanwhile\n// ($lookup then yields an empty array; use preserveNullAndEmptyArrays with $unwind).");
    if to_db == ctx.db() {
        let mut pipeline = vec![
            json!({ "$match": { dotted.clone(): { "$exists": true, "$ne": null } } }),
            json!({ "$project": { "_id": 1, "ref": format!("${dotted}") } }),
        ];
        for _ in 0..unwinds.max(1) {
            pipeline.push(json!({ "$unwind": "$ref" }));
        }
        pipeline.push(json!({ "$lookup": { "from": to_coll, "localField": "ref", "foreignField": key, "as": "target" } }));
        pipeline.push(json!({ "$match": { "target": { "$size": 0 } } }));
        // Counts per missing value, read as a stream: only the twenty most
        // referenced are kept, and a few of their documents fetched after.
        pipeline.push(json!({ "$group": { "_id": "$ref", "references": { "$sum": 1 } } }));
        let _ = writeln!(s, "let total = 0;\nlet distinct = 0;\nlet top = [];\nconst worst = (a, b) => b.references - a.references;");
        let _ = writeln!(
            s,
            "coll.aggregate({}, {{ allowDiskUse: true }}).forEach((r) => {{ total += r.references; distinct += 1; top.push(r); if (top.length > 200) top = top.sort(worst).slice(0, 20); }});",
            js_value(&json!(pipeline))
        );
        let _ = writeln!(s, "print(`${{total}} references in {} point at no document of {} (${{distinct}} distinct values); nothing was changed`);", r.from_path, r.to);
        let _ = writeln!(s, "top.sort(worst).slice(0, 20).forEach((r) => printjson({{ value: r._id, references: r.references, documents: coll.find({{ {}: r._id }}, {{ _id: 1 }}).limit(5).toArray().map((d) => d._id) }}));", js(&dotted));
    } else {
        let _ = writeln!(s, "// {} is in another database, which $lookup cannot reach: compare the values of\n// {dotted} with {} in the application.", r.to_ns, r.to);
    }
    s.push_str(&change::stays_line(
        lang,
        &js(lang.pick(
            "only the writer (or a person) can tell what each dangling reference should be",
            "只有写入方（或人工）能判断每个悬空引用应该是什么",
        )),
    ));
    let pattern = match r.kind {
        crate::relate::Kind::ChildReference => "child-reference",
        crate::relate::Kind::TwoWayReference => "two-way-reference",
        crate::relate::Kind::ExtendedReference => "extended-reference",
        _ => "parent-reference",
    };
    Suggestion {
        pattern,
        summary: lang.pick(
            format!("Keep the reference, but keep it true: fix the writer that stores ids of missing {to_coll} documents (or the delete that left them), list the dangling ones with the script (it deletes nothing), and let reads tolerate a missing target."),
            format!("保留引用，但要保证它成立：修正写入了不存在的 {to_coll} 文档 ID 的程序（或留下这些引用的删除操作），用脚本列出悬空引用（脚本不删除任何数据），并让读取能容忍目标缺失。"),
        ),
        before: None,
        after: None,
        effect: Map::new(),
        migration: s,
    }
}

/// Documents that must hold a key before distinct values show it is one:
/// among fewer, most fields (names, dates, version counters) hold distinct
/// values by chance — the least number of documents docshape's other
/// sample-based measures (growth) ask for too.
pub const MIN_KEY_DOCUMENTS: u64 = 30;

/// Why the values of `key` do not show it is a key (`None`: they do): held
/// by enough documents, of an identifier's type, nearly all distinct.
fn not_a_key(ctx: &CollectionCtx<'_>, key: &str, lang: Lang) -> Option<String> {
    use crate::profile::raw::BsonType;
    let Some(f) = ctx.field(key) else {
        return Some(lang.pick(
            format!("`{key}` was not profiled"),
            format!("`{key}` 未被分析"),
        ));
    };
    let holding = (f.presence * ctx.documents() as f64).round() as u64;
    if holding < MIN_KEY_DOCUMENTS {
        return Some(lang.pick(
            format!("only {holding} documents hold `{key}`, too few for distinct values to show it is a key (at least {MIN_KEY_DOCUMENTS})"),
            format!("只有 {holding} 个文档含有 `{key}`，太少，值互不相同并不能说明它是键（至少需要 {MIN_KEY_DOCUMENTS} 个）"),
        ));
    }
    let identifier = matches!(
        f.main_type(),
        Some(
            BsonType::String
                | BsonType::ObjectId
                | BsonType::Int
                | BsonType::Long
                | BsonType::BinData
        )
    );
    if !identifier {
        let t = f.main_type().map_or("", BsonType::alias);
        return Some(lang.pick(
            format!("`{key}` holds {t} values, which are not identifiers"),
            format!("`{key}` 的值是 {t}，不是标识符"),
        ));
    }
    let distinct = f.distinct.map_or(0, |d| d.estimate);
    if (distinct as f64) < crate::relate::keys::NEAR_UNIQUE * f.values.max(1) as f64 {
        return Some(lang.pick(
            format!("most values of `{key}` repeat in the sample: it is not a key"),
            format!("样本中 `{key}` 的大多数值都有重复：它不是键"),
        ));
    }
    None
}

/// A unique index on a referenced key, only where the whole collection
/// shows it is a key (`index`): the script checks for duplicates again
/// right before building it, prints them and refuses when there are any,
/// and says that from then on a write repeating a value fails. Elsewhere a
/// script that only counts the duplicates over the whole collection.
pub fn unique_key(
    ctx: &CollectionCtx<'_>,
    key: &str,
    u: &KeyUniqueness,
    whole: bool,
    lang: Lang,
) -> Suggestion {
    let what = format!("unique index on {}.{key}", ctx.ns());
    let dots = u.duplicate.as_ref().map(ToString::to_string);
    let not_key = not_a_key(ctx, key, lang);
    let (summary, migration) = match (whole, not_key) {
        (true, None) => {
            let p = Plan::new(lang, ctx.db(), ctx.coll(), "unique", &what);
            let mut s = String::new();
            let _ = writeln!(s, "{}", lang.pick(
                "// Duplicates are checked again right before the index is built: a unique index cannot\n// be built over them, and which document is right is a decision for people, so they are\n// printed, never removed. Once the index exists, every insert or update that repeats a\n// value of the key fails with E11000 (duplicate key): make sure the application expects it.",
                "// 建索引前会再次检查重复值：有重复值时无法建立唯一索引，而哪个文档是对的需要人来决定，\n// 所以只打印、从不删除。索引建立后，凡是使值重复的插入或更新都会以 E11000\n// （duplicate key）失败：请确认应用能处理这种情况。",
            ));
            let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
            let _ = writeln!(s, "ds.uniqueIndex(coll, {});", js(key));
            s = p.finish(&s);
            let summary = match (u.unique, &dots) {
                (false, Some(d)) => lang.pick(
                    format!("Resolve the duplicate values of `{key}` ({d} is held by more than one document; the script prints them all), then create a unique index — or reference `_id` instead. The script builds the index only once no value repeats; from then on an insert repeating a value of `{key}` fails (E11000)."),
                    format!("先处理 `{key}` 的重复值（{d} 出现在多个文档中；脚本会把它们全部打印出来），再建立唯一索引——或者改为引用 `_id`。脚本只在没有重复值时才建索引；此后插入重复的 `{key}` 值会失败（E11000）。"),
                ),
                _ => lang.pick(
                    format!("Create a unique index on `{key}` so that a reference always names one document: the whole collection holds no duplicate, and the script checks again right before building it. From then on an insert or update repeating a value of `{key}` fails (E11000): make sure the application expects it."),
                    format!("在 `{key}` 上建立唯一索引，保证一个引用始终只指向一个文档：整个集合中没有重复值，脚本在建索引前还会再检查一次。此后插入或更新导致 `{key}` 重复都会失败（E11000）：请确认应用能处理这种情况。"),
                ),
            };
            (summary, s)
        }
        (whole, not_key) => {
            let mut s = change::read_only(lang, &format!("duplicates of {}.{key}", ctx.ns()));
            let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
            let _ = writeln!(s, "const key = {};", js(key));
            let _ = writeln!(
                s,
                "\n// Every value held by more than one document, over the whole collection."
            );
            let _ = writeln!(s, "const dups = coll.aggregate([\n  {{ $match: {{ [key]: {{ $exists: true }} }} }},\n  {{ $group: {{ _id: \"$\" + key, n: {{ $sum: 1 }}, ids: {{ $push: \"$_id\" }} }} }},\n  {{ $match: {{ n: {{ $gt: 1 }} }} }},\n  {{ $sort: {{ n: -1 }} }},\n], {{ allowDiskUse: true }}).toArray();");
            let _ = writeln!(s, "print(`${{dups.length}} values of ${{key}} are held by more than one document of ${{coll.getFullName()}} (${{coll.countDocuments({{ [key]: {{ $exists: true }} }})}} documents hold it)`);");
            let _ = writeln!(s, "dups.slice(0, 20).forEach((d) => printjson({{ value: d._id, documents: d.n, ids: d.ids.slice(0, 5) }}));");
            let why = if whole {
                not_key.clone().unwrap_or_default()
            } else {
                lang.pick(
                    "the uniqueness was measured on a sample".to_owned(),
                    "唯一性只在样本上测量".to_owned(),
                )
            };
            s.push_str(&change::stays_line(
                lang,
                &js(&lang.pick(
                    format!("no unique index is suggested: {why}"),
                    format!("不建议唯一索引：{why}"),
                )),
            ));
            let dup_note = match (u.unique, &dots) {
                (false, Some(d)) => lang.pick(
                    format!(" {d} is held by more than one document: resolve the duplicates (the script lists them), or reference `_id` instead."),
                    format!(" {d} 出现在多个文档中：请处理这些重复值（脚本会列出它们），或者改为引用 `_id`。"),
                ),
                _ => String::new(),
            };
            let summary = if whole {
                lang.pick(
                    format!("A reference should name one document, but docshape suggests no unique index on `{key}`: {why}. Reference `_id` instead, or a field the application guarantees unique.{dup_note} The script only counts duplicates."),
                    format!("一个引用应当只指向一个文档，但 docshape 不建议在 `{key}` 上建唯一索引：{why}。请改为引用 `_id`，或引用应用保证唯一的字段。{dup_note}脚本只统计重复值。"),
                )
            } else {
                lang.pick(
                    format!("Whether `{key}` is unique was measured on a sample of {} documents, which cannot show that no value repeats: audit with --full (a file) or against the server (a count over the whole collection), or run the script, which counts the duplicates over the whole collection. docshape suggests a unique index only on a key proven by the whole collection's values.{dup_note}", ctx.sampled()),
                    format!("`{key}` 是否唯一只在 {} 个文档的样本上测量，无法证明没有值重复：请用 --full 审计（文件）或直接审计服务器（在整个集合上计数），或者运行脚本，它在整个集合上统计重复值。只有整个集合的值都证明是键时，docshape 才建议唯一索引。{dup_note}", ctx.sampled()),
                )
            };
            (summary, s)
        }
    };
    Suggestion {
        pattern: "index",
        summary,
        before: u.duplicate.as_ref().map(|d| json!({ key: d })),
        after: migration
            .starts_with("const apply")
            .then(|| json!({ "createIndex": { key: 1 }, "unique": true })),
        effect: Map::new(),
        migration,
    }
}

/// Lists references whose copies disagree with each other, for fields the
/// referenced documents do not hold (`extended-reference`). Nothing is
/// changed: which version is right only the writer knows.
pub fn copies_disagree(
    ctx: &CollectionCtx<'_>,
    d: &crate::rules::context::DriftCheck,
    lang: Lang,
) -> Suggestion {
    // One `$unwind` per array on the way to the holder (`a[].b[]`: `a`, `a.b`).
    let mut pipeline: Vec<serde_json::Value> = d
        .holder
        .match_indices("[]")
        .map(|(at, _)| json!({ "$unwind": format!("${}", d.holder[..at].replace("[]", "")) }))
        .collect();
    let holder = d.holder.replace("[]", "");
    let reference = d.reference.replace("[]", "");
    let versions: Map<String, serde_json::Value> = d
        .fields
        .iter()
        .map(|f| (f.clone(), json!(format!("${holder}.{f}"))))
        .collect();
    pipeline.push(json!({ "$match": { reference.clone(): { "$exists": true } } }));
    pipeline.push(json!({ "$group": { "_id": format!("${reference}"), "copies": { "$sum": 1 }, "versions": { "$addToSet": versions } } }));
    pipeline.push(json!({ "$match": { "versions.1": { "$exists": true } } }));
    pipeline.push(json!({ "$sort": { "copies": -1 } }));
    let mut s = change::read_only(
        lang,
        &format!("copies that disagree in {}.{}", ctx.ns(), d.holder),
    );
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "\n// Copies of the same {} that differ on {}. {} does not hold these fields,\n// so there is nothing to refresh them from: the script lists them and changes nothing.", d.reference, d.fields.join(", "), d.source_ns);
    let _ = writeln!(
        s,
        "const rows = coll.aggregate({}, {{ allowDiskUse: true }}).toArray();",
        js_value(&json!(pipeline))
    );
    let _ = writeln!(
        s,
        "print(`${{rows.length}} values of {} have copies that disagree`);",
        d.reference
    );
    let _ = writeln!(s, "rows.slice(0, 20).forEach((r) => printjson(r));");
    s.push_str(&change::stays_line(
        lang,
        &js(lang.pick(
            "which version of a copy is right only the writer knows",
            "哪个版本的副本是对的，只有写入方知道",
        )),
    ));
    Suggestion {
        pattern: "extended-reference",
        summary: lang.pick(
            format!("Copies of the same `{}` disagree on {} and {} does not hold these fields: keep one version in {} (add the fields there and reference it), or make the writer update every copy when it changes one; the script lists the disagreeing references.", d.reference, d.fields.join(", "), d.source_ns, d.source_ns),
            format!("同一 `{}` 的多份副本在 {} 上互不一致，而 {} 中没有这些字段：把唯一的版本保存在 {} 中（在那里增加这些字段并引用它），或者让写入方在修改一份副本时同时更新所有副本；脚本会列出不一致的引用。", d.reference, d.fields.join("、"), d.source_ns, d.source_ns),
        ),
        before: d.examples.first().map(|(r, f, copy, other)| json!({ "reference": r, "field": f, "copy": copy, "most_copies": other })),
        after: None,
        effect: Map::new(),
        migration: s,
    }
}

/// Copies that keep their source as it was when they were taken (a
/// notification's ticket, an order's product): they are right to differ
/// from it now. Refreshing them would rewrite what the holder recorded, so
/// the suggestion is to keep only the fields that do not change (an
/// extended reference) or the reference alone, and the script only
/// reports how far the copies lag.
pub fn snapshot_copies(
    ctx: &CollectionCtx<'_>,
    d: &crate::rules::context::DriftCheck,
    lang: Lang,
) -> Suggestion {
    let clock: Vec<&str> = d.snapshot.iter().map(|(f, _)| f.as_str()).collect();
    let stable: Vec<&str> = d
        .fields
        .iter()
        .map(String::as_str)
        .filter(|f| !clock.contains(f) && !d.changed.iter().any(|c| c == f))
        .collect();
    let what = format!("snapshot copies in {}.{}", ctx.ns(), d.holder);
    let mut s = change::read_only(lang, &what);
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(
        s,
        "\n// {} holds copies of {} as they were when each was taken: {} lag behind the source.\n// A snapshot is right to differ from its source; this script counts, it changes nothing.",
        d.holder,
        d.source_ns,
        clock.join(", ")
    );
    let holder = d.holder.replace("[]", "");
    let _ = writeln!(
        s,
        "const held = coll.countDocuments({});",
        js_value(
            &json!({ format!("{holder}.{}", clock.first().copied().unwrap_or("_id")): { "$exists": true } })
        )
    );
    let _ = writeln!(
        s,
        "print(`${{held}} documents hold a copy of {} with its clock ({})`);",
        d.source_ns,
        clock.join(", ")
    );
    s.push_str(&change::stays_line(
        lang,
        &js(&lang.pick(
            "a snapshot keeps its source as it was; the finding says so (info)".to_owned(),
            "快照保存的是源文档当时的样子；这一发现只是说明这一点（提示）".to_owned(),
        )),
    ));
    let keep = if stable.is_empty() {
        lang.pick(
            format!("keep only the reference `{}`", d.reference),
            format!("只保留引用 `{}`", d.reference),
        )
    } else {
        lang.pick(
            format!(
                "keep beside the reference only the fields that no copy shows changed ({})",
                stable.join(", ")
            ),
            format!(
                "在引用旁只保留没有任何副本显示变化的字段（{}）",
                stable.join("、")
            ),
        )
    };
    Suggestion {
        pattern: "extended-reference",
        summary: lang.pick(
            format!("`{}` is a snapshot of {}: its {} lag behind the source because the copy keeps the moment it was taken. Do not refresh it (that would rewrite what was recorded); if readers need the current values, {keep} and read the rest from {} by the reference.", d.holder, d.source_ns, clock.join(", "), d.source_ns),
            format!("`{}` 是 {} 的快照：其中的 {} 落后于源文档，因为副本保存的是复制那一刻的状态。不要刷新它（那会改写已记录的历史）；如果读取方需要当前值，{keep}，其余字段通过引用到 {} 中读取。", d.holder, d.source_ns, clock.join("、"), d.source_ns),
        ),
        before: d.examples.first().map(|(r, f, copy, src)| json!({ "reference": r, "field": f, "copy": copy, "source": src })),
        after: None,
        effect: Map::new(),
        migration: s,
    }
}

/// A reference kept in two representations: the strings that name an
/// existing document once converted are converted (the same identity,
/// in the representation the others have), with a backup; the others are
/// counted. A sub-document's `_id` and a path inside an array are never
/// changed: there the script only counts.
pub fn convert_reference(ctx: &CollectionCtx<'_>, r: &Relationship, lang: Lang) -> Suggestion {
    let Some(rep) = &r.representations else {
        return Suggestion {
            pattern: "schema-versioning",
            summary: String::new(),
            before: None,
            after: None,
            effect: Map::new(),
            migration: String::new(),
        };
    };
    let dotted = r.from_path.replace("[]", "");
    let (to_db, to_coll) = r
        .to_ns
        .split_once('.')
        .unwrap_or((ctx.db(), r.to_ns.as_str()));
    let key = r.to.strip_prefix(&format!("{}.", r.to_ns)).unwrap_or("_id");
    let identity = r.from_path.rsplit('.').next() == Some("_id");
    // An array of ids is named by the array itself (`settings.resources`);
    // references inside arrays of sub-documents carry `[]` in their path.
    let ids_array = r.fanout_method.as_deref() == Some("array-length");
    let in_array = r.from_path.contains("[]") || ids_array;
    // Each array on the way is unwound, so that every element is counted
    // and converted on its own.
    let mut unwind: Vec<serde_json::Value> = Vec::new();
    let mut prefix = String::new();
    let segments: Vec<&str> = r.from_path.split("[]").collect();
    for (i, seg) in segments.iter().enumerate() {
        let seg = seg.trim_start_matches('.');
        if !seg.is_empty() {
            if !prefix.is_empty() {
                prefix.push('.');
            }
            prefix.push_str(seg);
        }
        if i + 1 < segments.len() || ids_array {
            unwind.push(json!({ "$unwind": format!("${prefix}") }));
        }
    }
    let other_db = to_db != ctx.db();
    let changes = !identity && !in_array && !other_db;
    let what = format!("{}.{}: string -> {}", ctx.ns(), r.from_path, rep.native);
    let p = Plan::new(lang, ctx.db(), ctx.coll(), "reftype", &what);
    let mut s = if changes {
        String::new()
    } else {
        change::read_only(lang, &what)
    };
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(&dotted));
    let convert = json!({ "$convert": { "input": format!("${dotted}"), "to": rep.native, "onError": null, "onNull": null } });
    // The strings that convert to an existing target key: the same
    // identity in the other representation.
    let mut stages = vec![json!({ "$match": { dotted.clone(): { "$type": "string" } } })];
    stages.extend(unwind);
    // The strings themselves, one per element: what `named` is a share of.
    let mut strings = stages.clone();
    strings.push(json!({ "$match": { dotted.clone(): { "$type": "string" } } }));
    let strings = serde_json::Value::Array(strings);
    stages.extend([
        json!({ "$project": { "v": convert } }),
        json!({ "$match": { "v": { "$ne": null } } }),
        json!({ "$lookup": { "from": to_coll, "localField": "v", "foreignField": key, "as": "t" } }),
        json!({ "$match": { "t.0": { "$exists": true } } }),
        json!({ "$project": { "_id": 1 } }),
    ]);
    let named = serde_json::Value::Array(stages);
    let _ = writeln!(
        s,
        "\n// References stored as strings that name a {} document once read by {}.",
        r.to_ns, rep.conversion
    );
    let _ = writeln!(
        s,
        "const named = coll.aggregate({}.concat([{{ $count: \"n\" }}]), {{ allowDiskUse: true }}).toArray().reduce((n, r) => n + r.n, 0);",
        js_value(&named)
    );
    if identity {
        let _ = writeln!(s, "// {} is the identity of a sub-document, which a script never changes: convert it in the\n// application that writes it.", r.from_path);
    } else if in_array {
        let _ = writeln!(
            s,
            "// {} lies inside an array: convert it in the application that writes it.",
            r.from_path
        );
    } else if other_db {
        let _ = writeln!(
            s,
            "// {} is in another database: check the conversion there first.",
            r.to_ns
        );
    } else {
        let _ = writeln!(
            s,
            "ds.updateEach(coll, () => coll.aggregate({}, {{ allowDiskUse: true }}), {{ [path]: {{ $type: \"string\" }} }}, [{{ $set: {{ [path]: {} }} }}]);",
            js_value(&named),
            js_value(&json!({ rep.conversion: format!("${dotted}") }))
        );
    }
    let _ = writeln!(
        s,
        "const strings = coll.aggregate({}.concat([{{ $count: \"n\" }}]), {{ allowDiskUse: true }}).toArray().reduce((n, r) => n + r.n, 0);",
        js_value(&strings)
    );
    // What the re-audit reports: strings that still name a document are
    // the mismatch; strings that name none are dangling references.
    let _ = writeln!(
        s,
        "const left = coll.aggregate({}.concat([{{ $count: \"n\" }}]), {{ allowDiskUse: true }}).toArray().reduce((n, r) => n + r.n, 0);",
        js_value(&named)
    );
    let _ = writeln!(
        s,
        "print(`${{named}} strings in ${{path}} name a {} document once converted; ${{strings}} strings are left there, ${{left}} of them naming a document`);",
        r.to_ns
    );
    let _ = writeln!(
        s,
        "if (strings > left) print({});",
        lang.pick(
            format!("`${{strings - left}} strings left in ${{path}} name no document of {}: they are references to nothing, and the re-audit counts them as dangling, not as a second representation`", r.to_ns),
            format!("`${{path}} 中剩下的 ${{strings - left}} 个字符串不指向 {} 中的任何文档：它们是悬空引用，重新审计时按悬空引用计，而不算作第二种表示`", r.to_ns),
        )
    );
    let s = change::close(
        changes.then_some(&p),
        lang,
        s,
        "left > 0",
        lang.pick(
            "`${left} strings in ${path} still name a document`",
            "`${path} 中仍有 ${left} 个字符串指向某个文档`",
        ),
    );
    let mut summary = lang.pick(
        format!("Store {} in one representation ({}): fix the writer that stores strings, and read the strings that name a document of {} with {}.", r.from_path, rep.native, r.to_ns, rep.conversion),
        format!("{} 只用一种表示（{}）保存：修正写入字符串的写入方，并把能指向 {} 中文档的字符串用 {} 转换过来。", r.from_path, rep.native, r.to_ns, rep.conversion),
    );
    if !changes {
        summary.push_str(&lang.pick(
            " Here the script converts nothing, it counts: the path is a sub-document's identity, lies inside an array, or references another database.".to_owned(),
            " 此处脚本不做转换，只计数：该路径是子文档的标识、位于数组中，或引用另一个数据库。".to_owned(),
        ));
    }
    Suggestion {
        pattern: "schema-versioning",
        summary,
        before: Some(json!({ "stored_as": rep.stored_as, "references": rep.strings })),
        after: Some(json!({ "stored_as": rep.native, "conversion": rep.conversion })),
        effect: Map::new(),
        migration: s,
    }
}
