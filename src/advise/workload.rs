//! Suggestions for the workload rules: bounding a `$push` with `$slice`,
//! a case-insensitive index, and embedding what a hot `$lookup` joins.

use std::fmt::Write;

use serde_json::{json, Map};

use super::change::Plan;
use super::{js, js_coll, js_value, Suggestion};
use crate::i18n::Lang;
use crate::rules::CollectionCtx;

/// `$push` with `$each` + `$slice` in the writer; the elements already
/// past the last `keep` move to a child collection (`subset`) when the
/// profile knows the array.
pub(crate) fn slice_push(
    ctx: &CollectionCtx<'_>,
    array: &str,
    update_path: &str,
    keep: u64,
    lang: Lang,
) -> Suggestion {
    let writer = lang.pick(
        format!("Bound the array in the writer: $push: {{ \"{update_path}\": {{ $each: [newElement], $slice: -{keep} }} }} keeps the last {keep} (seed 000 keeps the last 1000 log lines this way)."),
        format!("在写入方限制数组长度：$push: {{ \"{update_path}\": {{ $each: [newElement], $slice: -{keep} }} }} 只保留最后 {keep} 个（种子材料 000 就是这样只保留最近 1000 条日志）。"),
    );
    let after = json!({ "$push": { update_path: { "$each": ["<new element>"], "$slice": -i64::try_from(keep).unwrap_or(i64::MAX) } } });
    match ctx.field(array) {
        Some(f) => {
            let mut s = super::subset(ctx, f, keep, lang);
            s.summary = format!("{writer} {}", s.summary);
            s
        }
        None => Suggestion {
            pattern: "subset",
            summary: writer,
            before: None,
            after: Some(after),
            effect: Map::new(),
            migration: String::new(),
        },
    }
}

/// A case-insensitive collation index on `field`, for `/^value$/i`-style
/// matches rewritten as equality under the same collation.
pub(crate) fn collation_index(ctx: &CollectionCtx<'_>, field: &str, lang: Lang) -> Suggestion {
    let collation = json!({ "locale": "en", "strength": 2 });
    let name = format!("{field}_ci");
    let p = Plan::new(
        lang,
        ctx.db(),
        ctx.coll(),
        "index",
        &format!("case-insensitive index on {}.{field}", ctx.ns()),
    );
    let mut s = String::new();
    let _ = writeln!(
        s,
        "ds.createIndex({}, {}, {{ name: {}, collation: {} }});",
        js_coll(ctx.db(), ctx.coll()),
        js_value(&json!({ field: 1 })),
        js(&name),
        js_value(&collation)
    );
    let _ = writeln!(
        s,
        "{}",
        lang.pick(
            format!("// Then query {{ {field}: value }} with .collation({}) instead of a /value/i regex.", js_value(&collation)),
            format!("// 然后用 {{ {field}: value }} 加 .collation({}) 查询，代替 /value/i 正则。", js_value(&collation)),
        )
    );
    s = p.finish(&s);
    Suggestion {
        pattern: "index",
        summary: lang.pick(
            format!("Match {field} case-insensitively with a collation index (strength 2) and equality instead of a regex; for substrings, a search index."),
            format!("用排序规则索引（strength 2）加等值查询不区分大小写地匹配 {field}，代替正则表达式；需要子串匹配时，用搜索索引。"),
        ),
        before: Some(json!({ field: { "$regex": "value", "$options": "i" } })),
        after: Some(json!({ "find": { field: "value" }, "collation": collation })),
        effect: Map::new(),
        migration: s,
    }
}

/// What a hot `$lookup` joins: embedded (or copied, an extended
/// reference) when the fan-out is small, else an index on the field it
/// joins by.
#[allow(clippy::too_many_arguments)]
pub(crate) fn hot_lookup(
    ctx: &CollectionCtx<'_>,
    from: &str,
    local: Option<&str>,
    foreign: Option<&str>,
    as_field: &str,
    embed: bool,
    one: bool,
    lang: Lang,
) -> Suggestion {
    let (Some(local), Some(foreign)) = (local, foreign) else {
        return Suggestion {
            pattern: if embed { "embed" } else { "index" },
            summary: String::new(),
            before: None,
            after: None,
            effect: Map::new(),
            migration: String::new(),
        };
    };
    if !embed {
        let p = Plan::new(
            lang,
            ctx.db(),
            from,
            "index",
            &format!("index {}.{from}.{foreign}", ctx.db()),
        );
        let mut s = String::new();
        let _ = writeln!(
            s,
            "ds.createIndex({}, {});",
            js_coll(ctx.db(), from),
            js_value(&json!({ foreign: 1 }))
        );
        s = p.finish(&s);
        return Suggestion {
            pattern: "index",
            summary: lang.pick(
                format!("Keep the reference: each document joins many {from} documents. Index {from}.{foreign} so every $lookup is an index lookup."),
                format!("保留引用：每个文档关联许多 {from} 文档。为 {from}.{foreign} 建立索引，让每次 $lookup 都是索引查找。"),
            ),
            before: None,
            after: Some(json!({ "createIndex": { foreign: 1 } })),
            effect: Map::new(),
            migration: s,
        };
    }
    // The copy never replaces the reference it was found by.
    let target = if as_field.is_empty() || as_field == local {
        format!("{from}_doc")
    } else {
        as_field.to_owned()
    };
    // The joined documents go into `target` of each document that does not
    // hold it yet: a field of that name already there is never overwritten,
    // and a re-run finds every document done.
    let joined = if one {
        json!({ "$first": "$__joined" })
    } else {
        json!("$__joined")
    };
    let stages = json!([
        { "$match": { target.clone(): { "$exists": false } } },
        { "$lookup": { "from": from, "localField": local, "foreignField": foreign, "as": "__joined" } },
        { "$set": { target.clone(): joined } },
        { "$unset": "__joined" }
    ]);
    let p = Plan::new(
        lang,
        ctx.db(),
        ctx.coll(),
        "lookup",
        &format!("copy {}.{from} into {}.{target}", ctx.db(), ctx.ns()),
    );
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}",
        lang.pick(
            "// Copy only the fields your reads use: add a $project of them to the $lookup (its pipeline).",
            "// 只复制读取时用到的字段：在 $lookup 中（用它的 pipeline）加上这些字段的 $project。",
        )
    );
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "ds.rewrite(coll, coll, {});", js_value(&stages));
    s = p.finish(&s);
    let (pattern, summary) = if one {
        (
            "extended-reference",
            lang.pick(
                format!("Each document joins one {from} document on most reads: copy the fields those reads use into `{target}` (extended reference), keep {local} as the reference, and refresh the copy when its source changes."),
                format!("大多数读取都为每个文档关联一个 {from} 文档：把这些读取用到的字段复制到 `{target}`（扩展引用），保留 {local} 作为引用，并在源文档变化时刷新副本。"),
            ),
        )
    } else {
        (
            "embed",
            lang.pick(
                format!("Each document joins a few {from} documents on most reads: embed them in `{target}` so one read returns them, and write them there."),
                format!("大多数读取都为每个文档关联少量 {from} 文档：把它们内嵌到 `{target}`，一次读取即可返回，并直接写在那里。"),
            ),
        )
    };
    Suggestion {
        pattern,
        summary,
        before: None,
        after: None,
        effect: Map::new(),
        migration: s,
    }
}

/// Copies only of read-mostly fields: the fields written often are
/// unset from the copies and read from their source.
pub(crate) fn stop_copying(
    ctx: &CollectionCtx<'_>,
    holder: &str,
    reference: &str,
    source_ns: &str,
    fields: &[String],
    lang: Lang,
) -> Suggestion {
    // `items[]` → filter on `items.f`, unset `items.$[].f`.
    let filter_base = holder.replace("[]", "");
    let unset_base = holder.replace("[]", ".$[]");
    let p = Plan::new(
        lang,
        ctx.db(),
        ctx.coll(),
        "copies",
        &format!(
            "stop copying {} into {}.{holder}",
            fields.join(", "),
            ctx.ns()
        ),
    );
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}",
        lang.pick(
            format!("// {reference} stays: read these fields from {source_ns} when needed."),
            format!("// 保留 {reference}：需要这些字段时从 {source_ns} 读取。"),
        )
    );
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    // Never a copy's `_id`, never the reference it is found by.
    let joins = reference
        .strip_prefix(&format!("{holder}."))
        .map(|r| r.replace("[]", ""));
    for f in fields
        .iter()
        .filter(|f| *f != "_id" && Some(f.as_str()) != joins.as_deref())
    {
        let _ = writeln!(
            s,
            "ds.update(coll, {}, {});",
            js_value(&json!({ format!("{filter_base}.{f}"): { "$exists": true } })),
            js_value(&json!({ "$unset": { format!("{unset_base}.{f}"): "" } }))
        );
    }
    s = p.finish(&s);
    let list = fields.join(", ");
    Suggestion {
        pattern: "extended-reference",
        summary: lang.pick(
            format!("Copy only read-mostly fields: {list} change too often in {source_ns} to be copied into every {holder}; keep the reference {reference} and read {list} from the source (a $lookup or a second query)."),
            format!("只复制读多写少的字段：{source_ns} 中的 {list} 变化太频繁，不适合复制到每个 {holder} 中；保留引用 {reference}，需要 {list} 时从源集合读取（$lookup 或第二次查询）。"),
        ),
        before: None,
        after: None,
        effect: Map::new(),
        migration: s,
    }
}
