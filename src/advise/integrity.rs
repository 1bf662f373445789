//! Suggestions for data that is stored in a form that loses or hides
//! information: dates as strings, numbers a double cannot hold, references
//! to nothing, referenced keys that are not unique. Every script only
//! converts what it can convert exactly, counts what it leaves, and never
//! deletes.

use std::fmt::Write;

use serde_json::{json, Map};

use super::{header, js, js_coll, js_value, Suggestion};
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
    use crate::rules::string_dates::DateFormat;
    let dotted = query_path(&f.segments);
    let in_array = f.segments.contains(&Seg::Elem);
    let mut s = header(lang, &format!("{}.{}: string -> date", ctx.ns(), f.path));
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(&dotted));
    if in_array {
        let _ = writeln!(s, "\n// {} lies inside an array: convert it in the application that writes it;\n// this script only counts the documents still holding strings.", f.path);
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
                    let _ = writeln!(
                        s,
                        "coll.updateMany({{ [path]: {{ $type: \"string\", $regex: {} }} }}, [{{ $set: {{ [path]: {} }} }}]);",
                        iso_regex(date_only, sep, seconds, frac, offset),
                        js_value(&expr)
                    );
                }
                DateFormat::Rfc2822 => {
                    let _ = writeln!(s, "\n// RFC 2822 ({n} in the sample): read by JavaScript's Date, which knows its day and month names.");
                    let _ = writeln!(s, "const rfc2822 = {RFC2822_REGEX};");
                    let _ = writeln!(s, "coll.find({{ [path]: {{ $type: \"string\", $regex: rfc2822 }} }}, {{ [path]: 1 }}).forEach((d) => {{\n  const text = path.split(\".\").reduce((o, k) => (o == null ? o : o[k]), d);\n  const when = new Date(text);\n  if (typeof text === \"string\" && !isNaN(when.getTime())) {{\n    coll.updateOne({{ _id: d._id, [path]: text }}, {{ $set: {{ [path]: when }} }});\n  }}\n}});");
                }
            }
        }
    }
    let _ = writeln!(s, "\nprint(`${{coll.countDocuments({{ [path]: {{ $type: \"string\" }} }})}} documents still hold a string in ${{path}} (left as they were)`);");
    Suggestion {
        pattern: "schema-versioning",
        summary: lang.pick(
            format!("Store `{dotted}` as a BSON date: fix the writer to send dates, not text, and convert the existing strings with $dateFromString (the script converts each detected format and leaves anything that does not parse untouched, counted)."),
            format!("把 `{dotted}` 保存为 BSON 日期：修正写入方，让它写入日期而不是文本，并用 $dateFromString 转换已有的字符串（脚本按检测到的每种格式转换，无法解析的值保持原样并计数）。"),
        ),
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
    let limit = "9007199254740992";
    let mut s = header(
        lang,
        &format!("{}.{}: double -> exact type", ctx.ns(), f.path),
    );
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(&dotted));
    let _ = writeln!(s, "\n// Precision already lost in a double cannot be restored: an integer beyond 2^53\n// ({limit}) was rounded when it was written, and only the system that\n// produced it knows the true value. Fix the writer first (NumberLong, Decimal128,\n// or a string for opaque ids); this script makes the rest safe from now on.");
    if in_array {
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
            "coll.updateMany({{ [path]: {{ $type: \"double\", $gte: -{limit}, $lte: {limit} }} }}, [{{ $set: {{ [path]: {{ $toLong: {} }} }} }}]);",
            js(&field)
        );
    } else if loss.money {
        let places = loss.places.max(2);
        let rounded = json!({ "$round": [{ "$toDecimal": field }, places] });
        let expr = json!({ "$let": { "vars": { "d": rounded }, "in": {
            "$cond": [{ "$eq": [{ "$toDouble": "$$d" }, field] }, "$$d", field]
        } } });
        let _ = writeln!(s, "\n// Money: the decimal with {places} places that reads back as the same double is the\n// amount the writer meant; values with no such decimal stay doubles and are counted.");
        let _ = writeln!(
            s,
            "coll.updateMany({{ [path]: {{ $type: \"double\" }} }}, [{{ $set: {{ [path]: {} }} }}]);",
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
    let _ = writeln!(s, "print(`${{coll.countDocuments({{ [path]: {{ $type: \"double\" }} }})}} documents still hold a double in ${{path}}`);");
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
    let mut s = header(
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
        pipeline.push(json!({ "$group": { "_id": "$ref", "references": { "$sum": 1 }, "documents": { "$push": "$_id" } } }));
        pipeline.push(json!({ "$sort": { "references": -1 } }));
        let _ = writeln!(
            s,
            "const rows = coll.aggregate({}, {{ allowDiskUse: true }}).toArray();",
            js_value(&json!(pipeline))
        );
        let _ = writeln!(
            s,
            "const total = rows.reduce((n, r) => n + r.references, 0);"
        );
        let _ = writeln!(s, "print(`${{total}} references in {} point at no document of {} (${{rows.length}} distinct values); nothing was changed`);", r.from_path, r.to);
        let _ = writeln!(s, "rows.slice(0, 20).forEach((r) => printjson({{ value: r._id, references: r.references, documents: r.documents.slice(0, 5) }}));");
    } else {
        let _ = writeln!(s, "// {} is in another database, which $lookup cannot reach: compare the values of\n// {dotted} with {} in the application.", r.to_ns, r.to);
    }
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

/// Checks a referenced key for duplicates, prints them if any, and only
/// then creates a unique index (`index`).
pub fn unique_key(ctx: &CollectionCtx<'_>, key: &str, u: &KeyUniqueness, lang: Lang) -> Suggestion {
    let mut s = header(lang, &format!("unique index on {}.{key}", ctx.ns()));
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const key = {};", js(key));
    let _ = writeln!(s, "\n// Duplicates first: a unique index cannot be built over them, and which document is\n// right is a decision for people, so they are printed, never removed.");
    let _ = writeln!(s, "const dups = coll.aggregate([\n  {{ $match: {{ [key]: {{ $exists: true }} }} }},\n  {{ $group: {{ _id: \"$\" + key, n: {{ $sum: 1 }}, ids: {{ $push: \"$_id\" }} }} }},\n  {{ $match: {{ n: {{ $gt: 1 }} }} }},\n  {{ $sort: {{ n: -1 }} }},\n], {{ allowDiskUse: true }}).toArray();");
    let _ = writeln!(s, "const same = coll.getIndexes().find((i) => JSON.stringify(i.key) === JSON.stringify({{ [key]: 1 }}));");
    let _ = writeln!(s, "if (dups.length > 0) {{\n  print(`${{dups.length}} values of ${{key}} are held by more than one document; resolve them, then run this again:`);\n  dups.slice(0, 20).forEach((d) => printjson({{ value: d._id, documents: d.n, ids: d.ids.slice(0, 5) }}));\n}} else if (same && same.unique) {{\n  print(`${{key}} already has a unique index (${{same.name}})`);\n}} else if (same) {{\n  print(`${{key}} has a non-unique index (${{same.name}}); drop it and run this again to make it unique`);\n}} else {{\n  coll.createIndex({{ [key]: 1 }}, {{ unique: true, partialFilterExpression: {{ [key]: {{ $exists: true }} }} }});\n  print(`unique index on ${{key}} created`);\n}}");
    Suggestion {
        pattern: "index",
        summary: if u.unique {
            lang.pick(
                format!("Create a unique index on `{key}` so that a reference always names one document (the script checks for duplicates first)."),
                format!("在 `{key}` 上建立唯一索引，保证一个引用始终只指向一个文档（脚本会先检查重复值）。"),
            )
        } else {
            lang.pick(
                format!("Resolve the duplicate values of `{key}` (the script prints them), then create a unique index — or reference `_id` instead."),
                format!("先处理 `{key}` 的重复值（脚本会把它们打印出来），再建立唯一索引——或者改为引用 `_id`。"),
            )
        },
        before: u.duplicate.as_ref().map(|d| json!({ key: d })),
        after: Some(json!({ "createIndex": { key: 1 }, "unique": true })),
        effect: Map::new(),
        migration: s,
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
    let mut s = header(
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
        .filter(|f| !clock.contains(f))
        .collect();
    let mut s = header(
        lang,
        &format!("snapshot copies in {}.{}", ctx.ns(), d.holder),
    );
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(
        s,
        "\n// {} holds copies of {} as they were when each was taken: {} lag behind the source.\n// A snapshot is right to differ from its source; this script changes nothing, it counts.",
        d.holder,
        d.source_ns,
        clock.join(", ")
    );
    let holder = d.holder.replace("[]", "");
    for f in &clock {
        let _ = writeln!(
            s,
            "print(`documents holding a copied {f}: ${{coll.countDocuments({})}}`);",
            js_value(&json!({ format!("{holder}.{f}"): { "$exists": true } }))
        );
    }
    let keep = if stable.is_empty() {
        lang.pick(
            format!("keep only the reference `{}`", d.reference),
            format!("只保留引用 `{}`", d.reference),
        )
    } else {
        lang.pick(
            format!(
                "keep beside the reference only the fields that do not change ({})",
                stable.join(", ")
            ),
            format!("在引用旁只保留不会变化的字段（{}）", stable.join("、")),
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

/// A reference kept in two representations: count the strings, and those
/// that name an existing document once converted.
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
    let mut s = header(
        lang,
        &format!("{} stored two ways in {}", r.from_path, ctx.ns()),
    );
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const target = {};", js_coll(to_db, to_coll));
    let _ = writeln!(
        s,
        "\n// References at {} stored as strings, and how many of them name a {} document once read by {}.",
        r.from_path, r.to_ns, rep.conversion
    );
    let convert = json!({ rep.conversion: { "input": format!("${dotted}"), "onError": null, "onNull": null } });
    let pipeline = json!([
        { "$match": { dotted.clone(): { "$type": "string" } } },
        { "$project": { "v": convert } },
        { "$match": { "v": { "$ne": null } } },
        { "$lookup": { "from": to_coll, "localField": "v", "foreignField": key, "as": "t" } },
        { "$group": { "_id": { "$gt": [ { "$size": "$t" }, 0 ] }, "n": { "$sum": 1 } } }
    ]);
    let _ = writeln!(
        s,
        "const strings = coll.countDocuments({});",
        js_value(&json!({ dotted.clone(): { "$type": "string" } }))
    );
    let _ = writeln!(
        s,
        "const rows = coll.aggregate({}, {{ allowDiskUse: true }}).toArray();",
        js_value(&pipeline)
    );
    let _ = writeln!(
        s,
        "const named = rows.filter((x) => x._id === true).reduce((a, x) => a + x.n, 0);"
    );
    let _ = writeln!(
        s,
        "print(`${{strings}} documents hold {} as a string; ${{named}} of them name a {} document once read by {}`);",
        r.from_path, r.to_ns, rep.conversion
    );
    Suggestion {
        pattern: "schema-versioning",
        summary: lang.pick(
            format!("Store {} in one representation ({}): read the strings with {} where they name a document of {}, and fix the writer that stores strings.", r.from_path, rep.native, rep.conversion, r.to_ns),
            format!("{} 只用一种表示（{}）保存：把能指向 {} 中文档的字符串用 {} 转换过来，并修正写入字符串的写入方。", r.from_path, rep.native, r.to_ns, rep.conversion),
        ),
        before: Some(json!({ "stored_as": rep.stored_as, "references": rep.strings })),
        after: Some(json!({ "stored_as": rep.native, "conversion": rep.conversion })),
        effect: Map::new(),
        migration: s,
    }
}
