//! Suggestions for data that is stored in a form that loses or hides
//! information: numbers a double cannot hold, references to nothing,
//! references kept in two representations, referenced keys that are not
//! unique (dates as strings: [`super::dates`]). Every script only converts
//! what it can convert exactly, counts what it leaves, never deletes, and
//! a conversion ends with what the re-audit will report.

use std::fmt::Write;

use serde_json::{json, Map};

use super::change::{self, Plan};
use super::{js, js_coll, js_value, Suggestion};
use crate::i18n::Lang;
use crate::profile::{query_path, FieldProfile, Seg};
use crate::relate::{KeyUniqueness, Relationship};
use crate::rules::{CollectionCtx, Reaudit};

/// What to do with numbers a double cannot hold (`schema-versioning`):
/// integral doubles within 2^53 become `long` exactly, money becomes
/// `decimal` where the rounded decimal reads back as the same double, and
/// values whose precision is already gone (or that would not convert
/// exactly) are listed, not touched. The script says first how many
/// doubles it converts and how many it leaves, and why, and ends with what
/// the re-audit will report on the path ([`super::reaudit`]): doubles left
/// beside longs or decimals can make it `mixed-types`.
pub(crate) fn lossy_numbers(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    loss: &crate::rules::lossy_numbers::Loss,
    r: &Reaudit,
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
    let _ = writeln!(s, "{}", lang.pick(
        format!("\n// Precision already lost in a double cannot be restored: an integer beyond 2^53\n// ({limit}) was rounded when it was written, and only the system that\n// produced it knows the true value. Fix the writer first (NumberLong, Decimal128,\n// or a string for opaque ids); this script makes the rest safe from now on."),
        format!("\n// double 中已经丢失的精度无法恢复：超过 2^53（{limit}）的整数在写入时就已被舍入，\n// 只有产生它的系统知道真实值。请先修正写入方（NumberLong、Decimal128，不透明的 ID 可用\n// 字符串）；这个脚本让其余的值从此保持精确。"),
    ));
    if changes {
        let (conversion, target, note) = if loss.integral {
            let exact = json!({ "$and": [
                { "$eq": [{ "$type": field }, "double"] },
                { "$gte": [field, -9_007_199_254_740_992_i64] },
                { "$lte": [field, 9_007_199_254_740_992_i64] },
                { "$eq": [{ "$convert": { "input": field, "to": "long", "onError": null, "onNull": null } }, field] }
            ] });
            (
                json!({ "$cond": [exact, { "$toLong": field }, field] }),
                "long",
                lang.pick(
                    "\n// Integral doubles within +-2^53 are exact: they become long. A double with a fraction\n// (which a long would cut off) or beyond 2^53 stays a double.",
                    "\n// ±2^53 以内的整数 double 是精确的：转换为 long。带小数的 double（long 会截断小数）\n// 或超过 2^53 的 double 保持不变。",
                ),
            )
        } else {
            let places = loss.places.max(2);
            let rounded = json!({ "$round": [{ "$toDecimal": field }, places] });
            (
                json!({ "$let": { "vars": { "d": rounded }, "in": {
                    "$cond": [{ "$eq": [{ "$toDouble": "$$d" }, field] }, "$$d", field]
                } } }),
                "decimal",
                lang.pick(
                    "\n// Money: the decimal with as many places as the amounts are written with that reads back\n// as the same double is the amount the writer meant; a double with no such decimal stays.",
                    "\n// 金额：按金额书写的小数位数取整、且能还原为同一 double 的十进制数，就是写入方想写的金额；\n// 没有这样的十进制数的 double 保持不变。",
                ),
            )
        };
        let _ = writeln!(s, "{note}");
        s.push_str(&super::reaudit::js_helpers(lang, &f.path, r, true));
        let _ = writeln!(
            s,
            "const conversion = {};\nconst target = {};\nconst limit = {limit};\nconst moneyName = {};\nconst lossyMin = {};\nconst moneyShare = {};",
            js_value(&conversion),
            js(target),
            crate::rules::lossy_numbers::money_name(&f.name),
            r.lossy_min_values.map_or_else(|| "null".to_owned(), |m| format!("{m}")),
            r.lossy_money_share,
        );
        let _ = writeln!(
            s,
            r#"// Whether a double's shortest decimal is not exactly the double (19.99 is not, 0.5 is).
const inexact = (v) => {{
  const t = String(Math.abs(v));
  if (t.includes("e")) return false;
  const [i, f = ""] = t.split(".");
  if (f.length > 20) return false;
  return BigInt(i + f) % (5n ** BigInt(f.length)) !== 0n;
}};

// 1. Every double of the path: what becomes {target}, and what stays a double, and why.
const tally = () => {{
  const t = {{ doubles: 0, convert: 0, beyond: 0, beyondExample: null, other: 0, otherExample: null, inexact: 0 }};
  coll.aggregate([{{ $match: {{ [path]: {{ $type: "double" }} }} }}, {{ $project: {{ _id: 0, v: "$" + path, to: {{ $type: conversion }} }} }}], {{ allowDiskUse: true }}).forEach((d) => {{
    t.doubles += 1;
    if (d.to !== "double") {{ t.convert += 1; return; }}
    const v = Number(d.v);
    if (inexact(v)) t.inexact += 1;
    if (Number.isInteger(v) && Math.abs(v) > limit) {{
      t.beyond += 1;
      if (t.beyondExample === null) t.beyondExample = v;
    }} else {{
      t.other += 1;
      if (t.otherExample === null) t.otherExample = v;
    }}
  }});
  return t;
}};
const census = tally();
// What the path holds once the doubles that convert are {target}, and what the re-audit makes of it.
const after = (converted) => {{
  const types = {{}};
  coll.aggregate([{{ $group: {{ _id: {{ $type: "$" + path }}, n: {{ $sum: 1 }} }} }}]).forEach((g) => {{ types[g._id] = g.n; }});
  const left = converted ? tally() : census;
  if (!converted && census.convert > 0) {{
    types.double = (types.double || 0) - census.convert;
    types[target] = (types[target] || 0) + census.convert;
  }}
  const doubles = left.doubles - left.convert;
  const wide = coll.countDocuments({{ $or: [{{ [path]: {{ $gte: limit }} }}, {{ [path]: {{ $lte: -limit }} }}] }}) > 0;
  const rules = [];
  const big = lossyMin !== null && left.beyond > 0 && left.beyond >= lossyMin;
  const money = lossyMin !== null && moneyName && left.inexact > 0 && left.inexact / doubles >= moneyShare;
  if (big || money) rules.push("lossy-numbers");
  if (mixedTypes(types, wide)) rules.push("mixed-types");
  return {{ types, doubles, rules }};
}};"#
        );
        let _ = writeln!(
            s,
            "print({});\nif (census.beyond > 0) print({});\nif (census.other > 0) print({});\n{{\n  const {{ types, rules }} = after(false);\n  if (rules.includes(\"mixed-types\")) print({});\n}}",
            lang.pick(
                "`${path}: ${census.doubles} documents hold a double; ${census.convert} of them ${apply ? \"are\" : \"would be\"} converted to ${target}, ${census.doubles - census.convert} stay doubles`",
                "`${path}：${census.doubles} 个文档保存的是 double；其中 ${census.convert} 个${apply ? \"被\" : \"将被\"}转换为 ${target}，${census.doubles - census.convert} 个仍是 double`",
            ),
            lang.pick(
                "`  left: ${census.beyond} integers beyond 2^53 (e.g. ${census.beyondExample}), already rounded when they were written`",
                "`  保留：${census.beyond} 个超过 2^53 的整数（例如 ${census.beyondExample}），写入时就已被舍入`",
            ),
            if loss.integral {
                lang.pick(
                    "`  left: ${census.other} doubles with a fraction (e.g. ${census.otherExample}), which a long would cut off`",
                    "`  保留：${census.other} 个带小数的 double（例如 ${census.otherExample}），转换为 long 会截断小数`",
                )
            } else {
                lang.pick(
                    "`  left: ${census.other} doubles with no decimal of that many places that reads back as the same double (e.g. ${census.otherExample})`",
                    "`  保留：${census.other} 个 double 找不到该位数、且能还原为同一 double 的十进制数（例如 ${census.otherExample}）`",
                )
            },
            lang.pick(
                "`this leaves ${path} mixed (${heldText(types)}): the re-audit will report mixed-types on it`",
                "`这会使 ${path} 混有多种类型（${heldText(types)}）：重新审计时会在其上报告 mixed-types`",
            ),
        );
        let _ = writeln!(
            s,
            "\n// 2. Convert only the doubles that become {target} exactly: a re-run finds none left."
        );
        let _ = writeln!(
            s,
            "ds.update(coll, {{ [path]: {{ $type: \"double\" }}, $expr: {{ $ne: [{{ $type: conversion }}, \"double\"] }} }}, [{{ $set: {{ [path]: conversion }} }}]);"
        );
    } else if let Some(why) = &kept {
        let _ = writeln!(s, "// {why}.");
    } else if in_array {
        let _ = writeln!(
            s,
            "{}",
            lang.pick(
                format!(
                    "// {} lies inside an array: convert it in the application that writes it.",
                    f.path
                ),
                format!("// {} 位于数组中：请在写入它的应用中转换。", f.path),
            )
        );
    }
    if loss.beyond > 0 {
        let _ = writeln!(
            s,
            "{}",
            lang.pick(
                "\n// Values beyond 2^53 are listed, not changed: check them against their source.",
                "\n// 超过 2^53 的值只列出、不修改：请与其来源核对。",
            )
        );
        let _ = writeln!(s, "const beyond = {{ [path]: {{ $type: \"double\", $not: {{ $gte: -{limit}, $lte: {limit} }} }} }};");
        let _ = writeln!(
            s,
            "coll.find(beyond, {{ [path]: 1 }}).limit(20).forEach((d) => printjson(d));"
        );
        let _ = writeln!(
            s,
            "print({});",
            lang.pick(
                "`${coll.countDocuments(beyond)} documents hold a double beyond 2^53 in ${path}`",
                "`${coll.countDocuments(beyond)} 个文档的 ${path} 是超过 2^53 的 double`",
            )
        );
    }
    let _ = writeln!(
        s,
        "const doubles = coll.countDocuments({{ [path]: {{ $type: \"double\" }} }});"
    );
    let _ = writeln!(
        s,
        "print({});",
        lang.pick(
            "`${doubles} documents still hold a double in ${path}`",
            "`${doubles} 个文档的 ${path} 仍是 double`",
        )
    );
    let s = if changes {
        let _ = writeln!(
            s,
            "\n// 3. What the path holds now, and what docshape's re-audit will report on it.\n{{\n  const {{ types, doubles, rules }} = after(apply);\n  if (apply && rules.includes(\"lossy-numbers\")) ds.stays({});\n  ds.last(reaudit(rules, {}));\n}}",
            lang.pick(
                "`${doubles} documents still hold a double a type of its own would hold exactly`",
                "`仍有 ${doubles} 个文档保存着本应用精确类型保存的 double`",
            ),
            lang.pick(
                "(apply ? \"it holds \" : \"it will hold \") + heldText(types)",
                "(apply ? \"它现在保存 \" : \"届时它将保存 \") + heldText(types)",
            ),
        );
        p.finish(&s)
    } else {
        s.push_str(&change::stays_line(
            lang,
            lang.pick(
                "`${doubles} documents still hold a double in ${path}`",
                "`${doubles} 个文档的 ${path} 仍是 double`",
            ),
        ));
        let rules = super::reaudit::as_audited(ctx, f, "lossy-numbers", r);
        s.push_str(&super::reaudit::unchanged(lang, &f.path, &rules, r));
        s
    };
    let summary = if loss.money && !loss.integral {
        lang.pick(
            format!("Store `{dotted}` as decimal (Decimal128): fix the writer, then convert the existing doubles to the decimal they were meant to be (the script converts only values whose {}-place decimal reads back as the same double, says first how many it leaves, and ends with what the re-audit will report).", loss.places.max(2)),
            format!("把 `{dotted}` 保存为 decimal（Decimal128）：先修正写入方，再把已有的 double 转换为原本想表示的十进制数（脚本只转换保留 {} 位小数后仍能还原为同一 double 的值，先说明会保留多少，最后说明重新审计时会报告什么）。", loss.places.max(2)),
        )
    } else {
        lang.pick(
            format!("Store `{dotted}` as long (or a string for opaque ids): fix the writer; integers within 2^53 convert exactly, but the {} values beyond it were already rounded and must be recovered from their source. Longs beside the doubles left make the path mixed-types until those are fixed; the script says so.", loss.beyond),
            format!("把 `{dotted}` 保存为 long（不透明的 ID 可用字符串）：先修正写入方；2^53 以内的整数可以精确转换，但超出范围的 {} 个值已经被舍入，只能从原始数据源恢复。在修正这些值之前，long 与剩下的 double 并存会使该路径出现 mixed-types；脚本会说明这一点。", loss.beyond),
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
pub(crate) fn dangling(ctx: &CollectionCtx<'_>, r: &Relationship, lang: Lang) -> Suggestion {
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
pub(crate) fn unique_key(
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
pub(crate) fn copies_disagree(
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
pub(crate) fn snapshot_copies(
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
pub(crate) fn convert_reference(
    ctx: &CollectionCtx<'_>,
    r: &Relationship,
    reaudit: &Reaudit,
    lang: Lang,
) -> Suggestion {
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
        "{}",
        lang.pick(
            format!(
                "\n// References stored as strings that name a {} document once read by {}.",
                r.to_ns, rep.conversion
            ),
            format!(
                "\n// 以字符串保存、用 {} 读取后指向 {} 中文档的引用。",
                rep.conversion, r.to_ns
            ),
        )
    );
    let _ = writeln!(
        s,
        "const named = coll.aggregate({}.concat([{{ $count: \"n\" }}]), {{ allowDiskUse: true }}).toArray().reduce((n, r) => n + r.n, 0);",
        js_value(&named)
    );
    let _ = writeln!(
        s,
        "const strings = coll.aggregate({}.concat([{{ $count: \"n\" }}]), {{ allowDiskUse: true }}).toArray().reduce((n, r) => n + r.n, 0);",
        js_value(&strings)
    );
    if identity {
        let _ = writeln!(s, "{}", lang.pick(
            format!("// {} is the identity of a sub-document, which a script never changes: convert it in the\n// application that writes it.", r.from_path),
            format!("// {} 是子文档的标识，脚本从不修改它：请在写入它的应用中转换。", r.from_path),
        ));
    } else if in_array {
        let _ = writeln!(
            s,
            "{}",
            lang.pick(
                format!(
                    "// {} lies inside an array: convert it in the application that writes it.",
                    r.from_path
                ),
                format!("// {} 位于数组中：请在写入它的应用中转换。", r.from_path),
            )
        );
    } else if other_db {
        let _ = writeln!(
            s,
            "{}",
            lang.pick(
                format!(
                    "// {} is in another database: check the conversion there first.",
                    r.to_ns
                ),
                format!("// {} 在另一个数据库中：请先在那里核对转换。", r.to_ns),
            )
        );
    }
    let s = if changes {
        // What the path holds once the strings that name a document are
        // converted: a string left that does not even read as the other
        // representation ("", "none") makes it a path of two types that no
        // second representation explains, which the re-audit reports as
        // mixed-types; strings that still name a document are the mismatch.
        s.push_str(&super::reaudit::js_helpers(
            lang,
            &r.from_path,
            reaudit,
            true,
        ));
        let _ = writeln!(
            s,
            r#"const mismatchMin = {min};
const readable = () => coll.aggregate([{{ $match: {{ [path]: {{ $type: "string" }} }} }}, {{ $project: {{ v: {convert} }} }}, {{ $match: {{ v: {{ $ne: null }} }} }}, {{ $count: "n" }}], {{ allowDiskUse: true }}).toArray().reduce((t, r) => t + r.n, 0);
const after = (converted) => {{
  const types = {{}};
  coll.aggregate([{{ $group: {{ _id: {{ $type: "$" + path }}, n: {{ $sum: 1 }} }} }}]).forEach((g) => {{ types[g._id] = g.n; }});
  let convertible = readable();
  let naming = 0;
  if (converted) naming = coll.aggregate({named}.concat([{{ $count: "n" }}]), {{ allowDiskUse: true }}).toArray().reduce((n, r) => n + r.n, 0);
  else {{
    types.string = (types.string || 0) - named;
    types[{native}] = (types[{native}] || 0) + named;
    convertible -= named;
  }}
  const holding = heldTypes(types).reduce((n, t) => n + types[t], 0);
  const rules = [];
  if (mismatchMin !== null && naming > 0 && holding > 0 && convertible / holding >= mismatchMin) rules.push("reference-type-mismatch");
  if (convertible === 0 && mixedTypes(types, false)) rules.push("mixed-types");
  return {{ types, naming, rules }};
}};
print({head});
{{
  const {{ types, rules }} = after(false);
  if (rules.includes("mixed-types")) print({mixes});
}}"#,
            min = reaudit
                .reference_type_mismatch
                .map_or_else(|| "null".to_owned(), |m| format!("{m}")),
            convert = js_value(&convert),
            named = js_value(&named),
            native = js(rep.native),
            head = lang.pick(
                format!("`${{path}}: ${{strings}} documents hold a string; ${{named}} of them name a {} document and ${{apply ? \"are\" : \"would be\"}} converted by {}, ${{strings - named}} stay strings (they name no document: dangling references)`", r.to_ns, rep.conversion),
                format!("`${{path}}：${{strings}} 个文档保存的是字符串；其中 ${{named}} 个指向 {} 中的文档，${{apply ? \"已\" : \"将\"}}用 {} 转换，${{strings - named}} 个仍是字符串（它们不指向任何文档：悬空引用）`", r.to_ns, rep.conversion),
            ),
            mixes = lang.pick(
                "`the strings left keep ${path} mixed (${heldText(types)}): the re-audit will report mixed-types on it`",
                "`剩下的字符串使 ${path} 仍混有多种类型（${heldText(types)}）：重新审计时会在其上报告 mixed-types`",
            ),
        );
        let _ = writeln!(
            s,
            "ds.updateEach(coll, () => coll.aggregate({}, {{ allowDiskUse: true }}), {{ [path]: {{ $type: \"string\" }} }}, [{{ $set: {{ [path]: {} }} }}]);",
            js_value(&named),
            js_value(&json!({ rep.conversion: format!("${dotted}") }))
        );
        let _ = writeln!(
            s,
            "{{\n  const {{ types, naming, rules }} = after(apply);\n  if (apply && rules.includes(\"reference-type-mismatch\")) {}\n  ds.last(reaudit(rules, {}));\n}}",
            p.stays(lang.pick(
                "`${naming} documents still hold a string in ${path} that names a document`",
                "`${naming} 个文档的 ${path} 仍是指向某个文档的字符串`",
            ))
            .trim_end(),
            lang.pick(
                "(apply ? \"it holds \" : \"it will hold \") + heldText(types) + (types.string > 0 ? \"; the strings left name no document, and count as dangling references\" : \"\")",
                "(apply ? \"它现在保存 \" : \"届时它将保存 \") + heldText(types) + (types.string > 0 ? \"；剩下的字符串不指向任何文档，按悬空引用计\" : \"\")",
            ),
        );
        p.finish(&s)
    } else {
        // What the re-audit reports: strings that still name a document are
        // the mismatch; strings that name none are dangling references.
        let _ = writeln!(
            s,
            "const left = coll.aggregate({}.concat([{{ $count: \"n\" }}]), {{ allowDiskUse: true }}).toArray().reduce((n, r) => n + r.n, 0);",
            js_value(&named)
        );
        let _ = writeln!(
            s,
            "print({});",
            lang.pick(
                format!("`${{named}} strings in ${{path}} name a {} document once converted; ${{strings}} strings are left there, ${{left}} of them naming a document; this script changes nothing`", r.to_ns),
                format!("`${{path}} 中有 ${{named}} 个字符串转换后指向 {} 中的文档；该处剩下 ${{strings}} 个字符串，其中 ${{left}} 个指向某个文档；这个脚本不做任何修改`", r.to_ns),
            )
        );
        let _ = writeln!(
            s,
            "if (strings > left) print({});",
            lang.pick(
                format!("`${{strings - left}} strings left in ${{path}} name no document of {}: they are references to nothing, and the re-audit counts them as dangling, not as a second representation`", r.to_ns),
                format!("`${{path}} 中剩下的 ${{strings - left}} 个字符串不指向 {} 中的任何文档：它们是悬空引用，重新审计时按悬空引用计，而不算作第二种表示`", r.to_ns),
            )
        );
        let mut s = change::close(
            None,
            lang,
            s,
            "left > 0",
            lang.pick(
                "`${left} strings in ${path} still name a document`",
                "`${path} 中仍有 ${left} 个字符串指向某个文档`",
            ),
        );
        // Nothing changes: the re-audit says what the audit said.
        s.push_str(&super::reaudit::unchanged(
            lang,
            &r.from_path,
            &["reference-type-mismatch"],
            reaudit,
        ));
        s
    };
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

/// A value read as text, for comparing ids whatever type each side
/// stores them in (an ObjectId and its hex string read alike).
fn as_text(v: &serde_json::Value) -> serde_json::Value {
    json!({ "$convert": { "input": v, "to": "string", "onError": null, "onNull": null } })
}

/// The pipeline listing the links side `from` holds that side `to` does
/// not hold back: each with the document holding it, the document it
/// names, what that one names back, and how they disagree.
fn one_sided_links(
    from: &crate::relate::twoway::Side,
    to: &crate::relate::twoway::Side,
) -> serde_json::Value {
    let dotted = from.values.replace("[]", "");
    let (_, to_coll) = to.namespace.split_once('.').unwrap_or(("", &to.namespace));
    let mut pipeline = vec![
        json!({ "$match": { dotted.clone(): { "$exists": true, "$ne": null } } }),
        json!({ "$project": { "_id": 0, "holder": format!("${}", from.key), "names": format!("${dotted}") } }),
    ];
    for _ in 0..from.values.matches("[]").count() {
        pipeline.push(json!({ "$unwind": "$names" }));
    }
    // The named document found by its key, the link read in the key's type.
    pipeline.push(json!({ "$set": { "key": { "$convert": { "input": "$names", "to": to.key_type, "onError": "$names", "onNull": null } } } }));
    pipeline.push(json!({ "$lookup": { "from": to_coll, "localField": "key", "foreignField": to.key, "as": "other" } }));
    pipeline.push(json!({ "$set": { "other": { "$arrayElemAt": ["$other", 0] } } }));
    pipeline.push(json!({ "$set": { "back": format!("$other.{}", to.values.replace("[]", "")) } }));
    let back_list = json!({ "$cond": [
        { "$isArray": "$back" },
        "$back",
        { "$cond": [ { "$eq": [ { "$ifNull": ["$back", null] }, null ] }, [], ["$back"] ] }
    ] });
    let state = json!({ "$cond": [
        { "$eq": [ { "$type": "$other" }, "missing" ] },
        "names a document that does not exist",
        { "$cond": [
            { "$in": [ as_text(&json!("$holder")), { "$map": { "input": back_list.clone(), "as": "v", "in": as_text(&json!("$$v")) } } ] },
            "agrees",
            { "$cond": [ { "$eq": [ { "$size": back_list }, 0 ] }, "names a document that names none back", "names a document that names another" ] }
        ] }
    ] });
    pipeline.push(json!({ "$set": { "state": state } }));
    pipeline.push(json!({ "$match": { "state": { "$ne": "agrees" } } }));
    pipeline.push(json!({ "$project": { "holder": 1, "names": 1, "back": 1, "state": 1 } }));
    json!(pipeline)
}

/// Lists the links of a two-way reference held by one side only, both
/// ways, and counts them by how they disagree; changes nothing: which side
/// is right only the application knows.
pub(crate) fn two_way_sync(ctx: &CollectionCtx<'_>, r: &Relationship, lang: Lang) -> Suggestion {
    let Some(sync) = &r.two_way else {
        return Suggestion {
            pattern: "two-way-reference",
            summary: String::new(),
            before: None,
            after: None,
            effect: Map::new(),
            migration: String::new(),
        };
    };
    let (this, other) = (&sync.this, &sync.other);
    let coll_of = |ns: &str| {
        ns.split_once('.')
            .map_or(ns.to_owned(), |(_, c)| c.to_owned())
    };
    let db_of = |ns: &str| {
        ns.split_once('.')
            .map_or(ctx.db().to_owned(), |(d, _)| d.to_owned())
    };
    let (this_coll, other_coll) = (coll_of(&this.namespace), coll_of(&other.namespace));
    let side = |s: &crate::relate::twoway::Side| format!("{}.{}", coll_of(&s.namespace), s.path);
    let mut s = change::read_only(
        lang,
        &format!(
            "links held by one side of {} and {}",
            side(this),
            side(other)
        ),
    );
    let _ = writeln!(
        s,
        "const here = {};",
        js_coll(&db_of(&this.namespace), &this_coll)
    );
    let _ = writeln!(
        s,
        "const there = {};",
        js_coll(&db_of(&other.namespace), &other_coll)
    );
    let _ = writeln!(
        s,
        "\n// {} and {} hold one link from both sides. Each side's links that the other does not\n// hold back, counted by how they disagree, with the first 20 of each. Nothing is changed.",
        side(this),
        side(other)
    );
    let _ = writeln!(
        s,
        "const tally = (rows, label) => {{ const n = {{}}; const shown = []; rows.forEach((r) => {{ n[r.state] = (n[r.state] || 0) + 1; if (shown.length < 20) shown.push(r); }}); print(`${{label}}: ${{JSON.stringify(n)}}`); shown.forEach((r) => printjson(r)); }};"
    );
    for (coll, from, to) in [("here", this, other), ("there", other, this)] {
        let _ = writeln!(
            s,
            "tally({coll}.aggregate({}, {{ allowDiskUse: true }}), {});",
            js_value(&one_sided_links(from, to)),
            js(&lang.pick(
                format!(
                    "links in {} that {} does not hold back",
                    side(from),
                    side(to)
                ),
                format!("{} 中没有被 {} 反向保存的链接", side(from), side(to))
            ))
        );
    }
    s.push_str(&change::stays_line(
        lang,
        &js(lang.pick(
            "which side of each link is right only the application knows: keep one side, or write both in one transaction",
            "每个链接哪一边是对的，只有应用知道：只保留一边，或者在一个事务中同时写两边",
        )),
    ));
    // The side to keep: a reference held once per document (it cannot
    // name two parents), else the side whose links disagree less.
    let keep = match (this.list, other.list) {
        (true, false) => Some(other),
        (false, true) => Some(this),
        _ if sync.from_this.disagree() < sync.from_other.disagree() => Some(this),
        _ if sync.from_other.disagree() < sync.from_this.disagree() => Some(other),
        _ => None,
    };
    let drop = keep.map(|k| if std::ptr::eq(k, this) { other } else { this });
    let counts = lang.pick(
        format!(
            "{} of {} links in {} are not held back, {} of {} in {}",
            crate::fmt::group(sync.from_this.disagree()),
            crate::fmt::group(sync.from_this.checked),
            side(this),
            crate::fmt::group(sync.from_other.disagree()),
            crate::fmt::group(sync.from_other.checked),
            side(other)
        ),
        format!(
            "{} 的 {} 个链接中有 {} 个没有反向引用，{} 的 {} 个中有 {} 个",
            side(this),
            crate::fmt::group(sync.from_this.checked),
            crate::fmt::group(sync.from_this.disagree()),
            side(other),
            crate::fmt::group(sync.from_other.checked),
            crate::fmt::group(sync.from_other.disagree())
        ),
    );
    let summary = match (keep, drop) {
        (Some(k), Some(d)) if k.list == d.list => lang.pick(
            format!("Keep one side of the link — `{}`, whose links agree more often with the other side's documents — and read the other direction by a query on it (indexed), or write both sides in one transaction (`session.withTransaction`) so that they cannot drift apart. The script lists the links held by one side only and changes nothing: which side is right for each link only the application knows ({counts}).", side(k)),
            format!("只保留链接的一边——`{}`，它的链接与另一边的文档更常一致——另一方向用对它的查询读取（建立索引），或者在一个事务中（`session.withTransaction`）同时写两边，使两边不会分离。脚本列出只有一边保存的链接，不做任何修改：每个链接哪一边是对的，只有应用知道（{counts}）。", side(k)),
        ),
        (Some(k), Some(d)) => lang.pick(
            format!("Keep the parent reference `{}`: held once per document, it cannot name two parents; index it and find the other side's documents by it, and stop writing the list `{}` — or, if both directions must be read without a query, write both sides in one transaction (`session.withTransaction`). The script lists the links held by one side only and changes nothing: which side is right for each link only the application knows ({counts}).", side(k), side(d)),
            format!("保留父引用 `{}`：它在每个文档中只保存一次，不可能指向两个父文档；为它建立索引并用它查找另一边的文档，不再写入列表 `{}`——或者，如果两个方向都必须不经查询就能读取，就在一个事务中（`session.withTransaction`）同时写两边。脚本列出只有一边保存的链接，不做任何修改：每个链接哪一边是对的，只有应用知道（{counts}）。", side(k), side(d)),
        ),
        _ => lang.pick(
            format!("Keep one side of the link and read the other direction by a query on it (indexed), or write both sides in one transaction (`session.withTransaction`). The script lists the links held by one side only and changes nothing: which side is right for each link only the application knows ({counts})."),
            format!("只保留链接的一边，另一方向用对它的查询读取（建立索引），或者在一个事务中（`session.withTransaction`）同时写两边。脚本列出只有一边保存的链接，不做任何修改：每个链接哪一边是对的，只有应用知道（{counts}）。"),
        ),
    };
    let before = sync
        .from_this
        .examples
        .first()
        .map(|e| (this, other, e))
        .or_else(|| sync.from_other.examples.first().map(|e| (other, this, e)))
        .map(|(from, to, e)| {
            json!({
                coll_of(&from.namespace): { from.key.clone(): e.holder, from.path.clone(): e.names },
                coll_of(&to.namespace): { to.key.clone(): e.names, to.path.clone(): e.back },
            })
        });
    Suggestion {
        pattern: if this.list && other.list {
            "two-way-reference"
        } else {
            "parent-reference"
        },
        summary,
        before,
        after: None,
        effect: Map::new(),
        migration: s,
    }
}
