//! Suggestions about indexes: one to create (on a reference, or in ESR
//! order), one to drop (checked again when the script runs), and indexes
//! that are kept but looked at (a sparse index holding no entry, a TTL
//! index that expires nothing).

use std::fmt::Write;

use serde_json::{json, Map, Value};

use super::{change, js, js_coll, js_value, mql_path, plan, Suggestion};
use crate::i18n::Lang;
use crate::rules::CollectionCtx;

/// `createIndex` on a reference field (`index`).
pub fn index(ctx: &CollectionCtx<'_>, path: &str, lang: Lang) -> Suggestion {
    let dotted = mql_path(path);
    let p = plan(ctx, lang, "index", &format!("index {}.{dotted}", ctx.ns()));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "ds.createIndex({}, {});",
        js_coll(ctx.db(), ctx.coll()),
        js_value(&json!({ dotted.clone(): 1 }))
    );
    s = p.finish(&s);
    Suggestion {
        pattern: "index",
        summary: lang.pick(
            format!("Create an index on `{dotted}` so that finding a parent's children is an index lookup, not a collection scan."),
            format!("为 `{dotted}` 建立索引，这样按父文档查找子文档就是一次索引查找，而不是全集合扫描（确保引用字段有索引）。"),
        ),
        before: None,
        after: Some(json!({ "createIndex": { dotted: 1 } })),
        effect: Map::new(),
        migration: s,
    }
}

/// Creates an index in ESR order (equality, sort, range), and drops the
/// index it extends once the new one exists: the new key starts with the
/// old one, so it serves every query the old one served.
pub fn esr_index(
    ctx: &CollectionCtx<'_>,
    keys: &[(String, i64)],
    extends: Option<&str>,
    lang: Lang,
) -> Suggestion {
    let key: Map<String, Value> = keys.iter().map(|(k, d)| (k.clone(), json!(d))).collect();
    let shown = crate::rules::shapes::show_keys(keys);
    let p = plan(ctx, lang, "esr", &format!("index {} {shown}", ctx.ns()));
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const key = {};", js_value(&Value::Object(key.clone())));
    let _ = writeln!(
        s,
        "{}",
        lang.pick(
            "// Equality fields first (most selective first), then the sort in the query's direction, then range fields.",
            "// 先放等值字段（选择性高的在前），再按查询的方向放排序字段，最后放范围字段。",
        )
    );
    let _ = writeln!(s, "ds.createIndex(coll, key);");
    let before = extends.and_then(|name| ctx.data.indexes.iter().find(|i| i.name == name));
    if let Some(name) = extends {
        let _ = writeln!(
            s,
            "{}",
            lang.pick(
                format!("// {name} is a prefix of the new key: the new index serves its queries,\n// so it goes once the new one exists (in a dry run: what would be dropped)."),
                format!("// {name} 是新索引键的前缀：新索引能满足它的查询，\n// 因此新索引建成后删除它（试运行时只显示将删除什么）。"),
            )
        );
        let _ = writeln!(
            s,
            "if (!apply || coll.getIndexes().some((i) => JSON.stringify(i.key) === JSON.stringify(key))) ds.dropIndex(coll, {});",
            js(name)
        );
    }
    s = p.finish(&s);
    Suggestion {
        pattern: "index",
        summary: match extends {
            Some(name) => lang.pick(
                format!("Extend index {name} to {shown}: equality fields first, then the sort, then ranges (ESR), and drop the old one."),
                format!("把索引 {name} 扩展为 {shown}：先等值字段，再排序字段，最后范围字段（ESR），并删除旧索引。"),
            ),
            None => lang.pick(
                format!("Create the index {shown}: equality fields first, then the sort, then ranges (ESR)."),
                format!("创建索引 {shown}：先等值字段，再排序字段，最后范围字段（ESR）。"),
            ),
        },
        before: before.map(|i| json!({ "index": { "name": i.name, "key": i.key } })),
        after: Some(json!({ "createIndex": key })),
        effect: Map::new(),
        migration: s,
    }
}

/// Drops an index (re-running finds it gone and does nothing). The script
/// checks again when it runs, and keeps the index when its key changed
/// since the audit, when the index that served its queries is gone, or
/// when a document now holds a field it was judged by as absent.
pub fn drop_index(ctx: &CollectionCtx<'_>, name: &str, why: String, lang: Lang) -> Suggestion {
    let this = ctx.data.indexes.iter().find(|i| i.name == name);
    let keys: Vec<&String> = this.map(|i| i.key.keys().collect()).unwrap_or_default();
    let cover = this.and_then(|a| ctx.data.indexes.iter().find(|b| a.covered_by(b)));
    // The fields whose absence condemned it, checked again before the
    // drop: every field it reads, or its leading key alone.
    let absent: Vec<String> = match (this, cover) {
        (Some(i), None) => {
            let read = i.fields_read();
            let present = crate::source::index::present_paths(ctx.fields());
            let gone = |f: &String| {
                !crate::source::index::Reads {
                    fields: vec![f.clone()],
                    ..Default::default()
                }
                .found_in(&present)
            };
            if !read.is_empty() && read.iter().all(gone) {
                read
            } else if i.key.len() > 1 && read.first().is_some_and(gone) {
                read[..1].to_vec()
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    };
    let name_js = js(name);
    let p = plan(
        ctx,
        lang,
        "index",
        &format!("drop index {name} on {}", ctx.ns()),
    );
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const indexes = coll.getIndexes();");
    let _ = writeln!(s, "const idx = indexes.find((i) => i.name === {name_js});");
    let _ = writeln!(
        s,
        "\n// Checked again now: the audit saw the collection as it was then."
    );
    let _ = writeln!(s, "if (idx === undefined) {{");
    let _ = writeln!(
        s,
        "  print({});",
        js(&format!("index {name} is already gone"))
    );
    if !keys.is_empty() {
        let _ = writeln!(
            s,
            "}} else if (Object.keys(idx.key).join(\",\") !== {}) {{",
            js(&keys
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join(","))
        );
        let _ = writeln!(
            s,
            "  print({});",
            js(&format!(
                "{}index {name} now has another key than the audit saw: it was kept",
                change::still_reported(lang)
            ))
        );
    }
    if let Some(b) = cover {
        let _ = writeln!(
            s,
            "}} else if (!indexes.some((i) => i.name === {} && !i.hidden)) {{",
            js(&b.name)
        );
        let _ = writeln!(
            s,
            "  print({});",
            js(&format!(
                "{}index {}, which serves the queries of {name}, is gone or hidden: {name} was kept",
                change::still_reported(lang),
                b.name
            ))
        );
    }
    if !absent.is_empty() {
        let any: Vec<Value> = absent
            .iter()
            .map(|f| json!({ f.clone(): { "$exists": true } }))
            .collect();
        let _ = writeln!(
            s,
            "}} else if (coll.findOne({}, {{ _id: 1 }}) !== null) {{",
            js_value(&json!({ "$or": any }))
        );
        let _ = writeln!(
            s,
            "  print({});",
            js(&format!(
                "{}a document now has {}: index {name} was kept",
                change::still_reported(lang),
                absent.join(", ")
            ))
        );
    }
    let _ = writeln!(s, "}} else {{");
    let _ = writeln!(s, "  ds.dropIndex(coll, {name_js});");
    let _ = writeln!(s, "}}");
    s = p.finish(&s);
    Suggestion {
        pattern: "index",
        summary: why,
        before: None,
        after: None,
        effect: Map::new(),
        migration: s,
    }
}

/// Drops an index whose leading key no document has (the script is
/// [`drop_index`]'s, which checks that key's absence again), naming the
/// field the documents hold instead and the index already on it.
pub fn drop_lead_absent(
    ctx: &CollectionCtx<'_>,
    name: &str,
    lead: &str,
    instead: Option<&str>,
    lang: Lang,
) -> Suggestion {
    let this = ctx.data.indexes.iter().find(|i| i.name == name);
    // The same key with the written field in front, if an index has it.
    let twin = this.zip(instead).and_then(|(i, w)| {
        let want: Vec<String> = i
            .key
            .keys()
            .map(|k| if k == lead { w.to_owned() } else { k.clone() })
            .collect();
        ctx.data
            .indexes
            .iter()
            .find(|j| j.key.keys().cloned().collect::<Vec<_>>() == want)
    });
    let why = match (instead, twin) {
        (Some(w), Some(t)) => lang.pick(
            format!("Drop {name}: no document has {lead}, so it serves no query while every write of its other fields still updates it. The documents hold {w}, and {} already indexes it in {name}'s place.", t.name),
            format!("删除 {name}：没有文档含有 {lead}，它不服务任何查询，而写入它的其他字段时仍要更新它。文档中有 {w}，而 {} 已经用它代替 {name} 建立了索引。", t.name),
        ),
        (Some(w), None) => lang.pick(
            format!("Drop {name}: no document has {lead}, so it serves no query while every write of its other fields still updates it. The documents hold {w}: if the queries filter on {w}, index it in {lead}'s place (fix the index definition in the application, or it is rebuilt at start-up)."),
            format!("删除 {name}：没有文档含有 {lead}，它不服务任何查询，而写入它的其他字段时仍要更新它。文档中有 {w}：如果查询按 {w} 过滤，就用它代替 {lead} 建索引（并修改应用中的索引定义，否则启动时会重建）。"),
        ),
        (None, _) => lang.pick(
            format!("Drop {name}: no document has {lead}, its leading key, so it serves no query while every write of its other fields still updates it. If the application defines it, remove it there too, or it is rebuilt at start-up."),
            format!("删除 {name}：没有文档含有它的前导键 {lead}，它不服务任何查询，而写入它的其他字段时仍要更新它。如果应用中定义了它，也要在那里删除，否则启动时会重建。"),
        ),
    };
    drop_index(ctx, name, why, lang)
}

/// Drops an index led by `_id` (the script is [`drop_index`]'s: a dry
/// run that prints the `createIndex` rebuilding it), naming the field to
/// index instead when the collection shows one.
pub fn id_led_index(
    ctx: &CollectionCtx<'_>,
    name: &str,
    instead: Option<&str>,
    lang: Lang,
) -> Suggestion {
    let this = ctx.data.indexes.iter().find(|i| i.name == name);
    let key = this.map(|i| Value::Object(i.key.clone()));
    let why = match instead {
        Some(f) => lang.pick(
            format!("Drop {name}: an equality on _id finds one document through the unique _id index, so the keys after _id add nothing. To find documents by {f}, index {f} itself: createIndex({{ {f}: 1 }}) — its own finding or your queries decide whether it is needed; the script only drops {name}."),
            format!("删除 {name}：对 _id 的等值查询通过唯一的 _id 索引就能找到那一个文档，_id 之后的键没有任何作用。要按 {f} 查找文档，应为 {f} 本身建立索引：createIndex({{ {f}: 1 }})——是否需要由它自己的发现或你的查询决定；脚本只删除 {name}。"),
        ),
        None => lang.pick(
            format!("Drop {name}: an equality on _id finds one document through the unique _id index, so the keys after _id add nothing; a query on those keys alone cannot use it either. Index the field your queries filter on instead."),
            format!("删除 {name}：对 _id 的等值查询通过唯一的 _id 索引就能找到那一个文档，_id 之后的键没有任何作用；只按这些键查询也用不上它。应改为给查询过滤所用的字段建立索引。"),
        ),
    };
    let mut s = drop_index(ctx, name, why, lang);
    s.before = key.map(|k| json!({ "index": k }));
    s.after = Some(match instead {
        Some(f) => json!({ "index": { f: 1 }, "_id": "the _id index, which every collection has" }),
        None => json!({ "_id": "the _id index, which every collection has" }),
    });
    s
}

/// A sparse index whose fields no document has: it holds no entry and
/// costs nothing, so nothing is dropped; the script only looks whether
/// documents have the fields now.
pub fn empty_sparse_index(
    ctx: &CollectionCtx<'_>,
    index: &crate::source::IndexInfo,
    lang: Lang,
) -> Suggestion {
    let read = index.fields_read();
    let fields = read.join(", ");
    let any: Vec<Value> = read
        .iter()
        .map(|f| json!({ f.clone(): { "$exists": true } }))
        .collect();
    Suggestion {
        pattern: "index",
        summary: lang.pick(
            format!("Keep {} or drop it, as you like: a sparse index indexes only the documents that have {fields}, and none has, so it holds no entry, costs nothing on writes and takes almost no space. It serves queries once documents have {fields} (a feature not in use yet); drop it only if no code will ever write {fields}.", index.name),
            format!("保留或删除 {} 均可：稀疏索引只索引含有 {fields} 的文档，而目前没有文档含有它，所以索引中没有条目，写入时没有开销，几乎不占空间。一旦文档有了 {fields}（尚未启用的功能），它就会服务查询；只有确定没有代码会再写入 {fields} 时才删除它。", index.name),
        ),
        before: None,
        after: None,
        effect: Map::new(),
        migration: format!(
            "{}const coll = {};\nconst holding = coll.countDocuments({});\nprint(holding === 0\n  ? {}\n  : `${{holding}} documents now have {fields}: sparse index {} holds them`);\n{}",
            change::read_only(lang, &format!("check sparse index {} on {}", index.name, ctx.ns())),
            js_coll(ctx.db(), ctx.coll()),
            js_value(&json!({ "$or": any })),
            js(&format!("no document has {fields}: sparse index {} holds no entry and costs nothing", index.name)),
            index.name,
            change::stays_line(lang, &js(lang.pick(
                "the index is reported until documents have its fields or it is dropped",
                "在文档有了这些字段或索引被删除之前，这一问题会一直被报告",
            ))),
        ),
    }
}

/// A TTL index whose field no document has: nothing expires. The script
/// only looks (docshape never suggests dropping an index for this).
pub fn ttl_field(
    ctx: &CollectionCtx<'_>,
    index: &crate::source::IndexInfo,
    lang: Lang,
) -> Suggestion {
    let field = index.key.keys().next().map_or("", String::as_str);
    let secs = index.expire_after_seconds.unwrap_or(0);
    Suggestion {
        pattern: "index",
        summary: lang.pick(
            format!("Documents expire only when `{field}` holds a date (or an array of dates): make the writer set it, or drop {} if nothing should expire.", index.name),
            format!("只有 `{field}` 是日期（或日期数组）的文档才会过期：让写入方设置它；如果本来就不需要过期，再删除 {}。", index.name),
        ),
        before: None,
        after: Some(json!({ field: "<a date>", "expireAfterSeconds": secs })),
        effect: Map::new(),
        migration: format!(
            "{}const coll = {};\nconst dated = coll.findOne({}, {{ _id: 1 }});\nprint(dated === null\n  ? {}\n  : {});\n{}",
            change::read_only(lang, &format!("check TTL index {} on {}", index.name, ctx.ns())),
            js_coll(ctx.db(), ctx.coll()),
            js_value(&json!({ field: { "$type": "date" } })),
            js(&format!("no document has a date in {field}: TTL index {} expires nothing", index.name)),
            js(&format!("documents with a date in {field} expire {secs} s after it (TTL index {})", index.name)),
            change::stays_line(lang, &js(lang.pick(
                "only the application can set the dates (or you drop the index)",
                "只有应用能设置这些日期（或者由你删除该索引）",
            ))),
        ),
    }
}
