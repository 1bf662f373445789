//! Refactor advice: for each pattern, a before/after example built from the
//! collection's own field names and sampled values, the effect estimated on
//! the sample, and a `mongosh` migration script that is safe to re-run.
//! docshape never runs these scripts; it only writes them.

mod examples;
pub mod integrity;
mod scripts;

use serde_json::{json, Map, Value};

use crate::i18n::Lang;
use crate::profile::{extract, query_path, FieldProfile, Seg};
use crate::rules::{CollectionCtx, Suggestion};

pub use examples::{display_doc, pick_doc, strip_path};

/// `db.getSiblingDB("db").getCollection("coll")`, quoted safely.
pub fn js_coll(db: &str, coll: &str) -> String {
    format!("db.getSiblingDB({}).getCollection({})", js(db), js(coll))
}

/// A string as a JavaScript literal.
pub fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A JSON value as JavaScript source.
pub fn js_value(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// `threads` → `thread`: the name one document of a collection goes by.
pub fn singular(name: &str) -> String {
    crate::i18n::singular(name.rsplit('.').next().unwrap_or(name))
}

/// A collection name made of a parent's name and a field's.
pub fn child_collection(coll: &str, field: &str) -> String {
    let f: String = field
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{coll}_{f}")
}

fn header(lang: Lang, what: &str) -> String {
    lang.pick(
        format!("// docshape migration: {what}\n// Review it, run it on a copy first (mongosh --file), then on production.\n// It is written to be safe to re-run; docshape itself never runs it.\n"),
        format!("// docshape 迁移脚本：{what}\n// 请先审阅，在副本上运行（mongosh --file）后再用于生产环境。\n// 脚本可以安全地重复运行；docshape 自身从不执行它。\n"),
    )
}

/// Average and largest document size on the kept sample, before and after
/// removing `segs` from every document.
fn size_effect(ctx: &CollectionCtx<'_>, segs: &[Seg]) -> Map<String, Value> {
    let mut before = Vec::new();
    let mut after = Vec::new();
    for d in &ctx.report.kept {
        let carried: usize = extract::values(d, segs).iter().map(|e| e.size).sum();
        before.push(d.len() as f64);
        after.push((d.len() - carried.min(d.len().saturating_sub(5))) as f64);
    }
    let avg = |v: &[f64]| {
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let mut m = Map::new();
    m.insert("documents_measured".into(), json!(before.len()));
    m.insert("avg_bytes_before".into(), json!(avg(&before).round()));
    m.insert("avg_bytes_after".into(), json!(avg(&after).round()));
    m.insert("max_bytes_before".into(), json!(max(&before)));
    m.insert("max_bytes_after".into(), json!(max(&after)));
    m
}

/// Moves the elements of an array into their own collection, each with a
/// reference to its parent (`parent-reference`).
pub fn parent_reference(ctx: &CollectionCtx<'_>, arr: &FieldProfile, lang: Lang) -> Suggestion {
    let field = arr.name.clone();
    let child = child_collection(ctx.coll(), &field);
    let parent_key = format!("{}_id", singular(ctx.coll()));
    let dotted = query_path(&arr.segments);
    let doc = pick_doc(ctx, Some(&arr.segments));
    let (before, after) = examples::moved_out(doc.as_deref(), &arr.segments, &child, &parent_key);
    let mut effect = size_effect(ctx, &arr.segments);
    if let Some(a) = arr.array {
        effect.insert("children_per_parent_avg".into(), json!(a.avg));
        effect.insert("children_per_parent_max".into(), json!(a.max));
    }
    Suggestion {
        pattern: "parent-reference",
        summary: lang.pick(
            format!("Move each element of `{dotted}` into a `{child}` collection whose documents hold `{parent_key}`, the parent's `_id`; index `{parent_key}` and read a parent's {field} with one indexed query."),
            format!("把 `{dotted}` 的每个元素移到独立的 `{child}` 集合中，每个文档用 `{parent_key}` 保存父文档的 `_id`（父引用）；为 `{parent_key}` 建索引，一次带索引的查询即可取回某个父文档的 {field}。"),
        ),
        before,
        after,
        effect,
        migration: scripts::move_array_out(
            &header(lang, &format!("{}.{dotted} -> {child}", ctx.ns())),
            ctx.db(),
            ctx.coll(),
            &dotted,
            &child,
            &parent_key,
            None,
        ),
    }
}

/// Keeps only the newest elements in the parent and the full history in a
/// child collection (`subset`).
pub fn subset(ctx: &CollectionCtx<'_>, arr: &FieldProfile, keep: u64, lang: Lang) -> Suggestion {
    let field = arr.name.clone();
    let child = child_collection(ctx.coll(), &field);
    let parent_key = format!("{}_id", singular(ctx.coll()));
    let dotted = query_path(&arr.segments);
    let doc = pick_doc(ctx, Some(&arr.segments));
    let (before, after) =
        examples::subset(doc.as_deref(), &arr.segments, keep, &child, &parent_key);
    let mut effect = size_effect(ctx, &arr.segments);
    if let (Some(a), Some(e)) = (arr.array, examples::element_bytes(ctx, arr)) {
        let kept = (keep as f64).min(a.avg);
        let avg_after = effect
            .get("avg_bytes_after")
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
            + kept * e;
        effect.insert("avg_bytes_after".into(), json!(avg_after.round()));
        effect.insert("elements_kept".into(), json!(keep));
    }
    Suggestion {
        pattern: "subset",
        summary: lang.pick(
            format!("Keep only the newest {keep} elements of `{dotted}` in the document (what most reads show) and every element in `{child}` with a `{parent_key}` reference."),
            format!("文档中只保留 `{dotted}` 最新的 {keep} 个元素（大多数读取只用到这些），全部元素放到 `{child}` 集合，并用 `{parent_key}` 引用父文档（子集模式）。"),
        ),
        before,
        after,
        effect,
        migration: scripts::move_array_out(
            &header(lang, &format!("keep {keep} newest of {}.{dotted}, history in {child}", ctx.ns())),
            ctx.db(),
            ctx.coll(),
            &dotted,
            &child,
            &parent_key,
            Some(keep),
        ),
    }
}

/// Moves a large path into its own collection, one document per parent
/// (`separate-collection`), or into GridFS for binary data (`gridfs`).
pub fn separate(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Suggestion {
    let dotted = query_path(&f.segments);
    let child = child_collection(ctx.coll(), &f.name);
    let parent_key = format!("{}_id", singular(ctx.coll()));
    let doc = pick_doc(ctx, Some(&f.segments));
    let (before, after) = examples::split_off(doc.as_deref(), &f.segments, &child, &parent_key);
    let binary = f.main_type() == Some(crate::profile::raw::BsonType::BinData);
    let pattern = if binary {
        "gridfs"
    } else {
        "separate-collection"
    };
    let summary = if binary {
        lang.pick(
            format!("`{dotted}` holds large binary data read by few queries: store it in GridFS (or object storage) and keep only its file id in the document."),
            format!("`{dotted}` 保存的是很少被读取的大块二进制数据：放到 GridFS（或对象存储）中，文档里只保留文件 id（引用）。"),
        )
    } else {
        lang.pick(
            format!("Move `{dotted}` to a `{child}` collection, one document per parent keyed by `{parent_key}`, and read it only where it is needed."),
            format!("把 `{dotted}` 移到 `{child}` 集合，每个父文档对应一个以 `{parent_key}` 关联的文档，只在需要时读取。"),
        )
    };
    Suggestion {
        pattern,
        summary,
        before,
        after,
        effect: size_effect(ctx, &f.segments),
        migration: scripts::split_off(
            &header(lang, &format!("{}.{dotted} -> {child}", ctx.ns())),
            ctx.db(),
            ctx.coll(),
            &dotted,
            &child,
            &parent_key,
        ),
    }
}

/// Turns an object whose keys are data into an array of `{k, v}` pairs
/// (`attribute`).
pub fn attribute(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Suggestion {
    let dotted = query_path(&f.segments);
    let doc = pick_doc(ctx, Some(&f.segments));
    let (before, after) = examples::attribute(doc.as_deref(), &f.segments);
    Suggestion {
        pattern: "attribute",
        summary: lang.pick(
            format!("Store `{dotted}` as an array of `{{k, v}}` pairs: the keys become values, one index on `{dotted}.k` and `{dotted}.v` serves every key, and the shape stops changing with the data."),
            format!("把 `{dotted}` 存成 `{{k, v}}` 键值对数组（属性模式）：键变成了值，一个 `{dotted}.k` + `{dotted}.v` 索引就能覆盖所有键，文档结构也不再随数据变化。"),
        ),
        before,
        after,
        effect: Map::new(),
        migration: scripts::attribute(
            &header(lang, &format!("{}.{dotted} as k/v pairs", ctx.ns())),
            ctx.db(),
            ctx.coll(),
            &dotted,
        ),
    }
}

/// Groups one-document-per-event data into one document per series and
/// hour (`bucket`), with pre-computed count, min, max and sum.
pub fn bucket(
    ctx: &CollectionCtx<'_>,
    date_field: &str,
    series_key: Option<&str>,
    lang: Lang,
) -> Suggestion {
    let target = format!("{}_hourly", ctx.coll());
    let values: Vec<String> = ctx
        .fields()
        .iter()
        .filter(|f| {
            f.depth == 0
                && f.path != "_id"
                && f.path != date_field
                && Some(f.path.as_str()) != series_key
        })
        .map(|f| f.path.clone())
        .collect();
    let numeric: Vec<String> = ctx
        .fields()
        .iter()
        .filter(|f| {
            f.depth == 0
                && values.contains(&f.path)
                && f.main_type()
                    .is_some_and(crate::profile::raw::BsonType::is_numeric)
        })
        .map(|f| f.path.clone())
        .collect();
    let docs: Vec<bson::Document> = ctx
        .report
        .kept
        .iter()
        .take(3)
        .filter_map(|d| bson::Document::from_reader(&d[..]).ok())
        .collect();
    let (before, after) = examples::bucket(&docs, date_field, series_key, &values, &numeric);
    let series_note = series_key.map_or_else(String::new, |s| format!(" and `{s}`"));
    Suggestion {
        pattern: "bucket",
        summary: lang.pick(
            format!("Store one document per hour{series_note} in `{target}`, holding that hour's events in an array with count, min, max and sum kept up to date — or use a time-series collection."),
            format!("在 `{target}` 中按小时{series_note}每个时段存一个文档（桶模式），事件放在数组中，并维护 count、min、max、sum 等预计算值；也可以改用时间序列集合。"),
        ),
        before,
        after,
        effect: {
            let mut m = Map::new();
            m.insert("documents_before".into(), json!(ctx.documents()));
            m
        },
        migration: scripts::bucket(
            &header(lang, &format!("{} -> {target} (hourly buckets)", ctx.ns())),
            ctx.db(),
            ctx.coll(),
            &target,
            date_field,
            series_key,
            &values,
            &numeric,
        ),
    }
}

/// `createIndex` on a reference field (`index`).
pub fn index(ctx: &CollectionCtx<'_>, dotted: &str, lang: Lang) -> Suggestion {
    Suggestion {
        pattern: "index",
        summary: lang.pick(
            format!("Create an index on `{dotted}` so that finding a parent's children is an index lookup, not a collection scan."),
            format!("为 `{dotted}` 建立索引，这样按父文档查找子文档就是一次索引查找，而不是全集合扫描（确保引用字段有索引）。"),
        ),
        before: None,
        after: Some(json!({ "createIndex": { dotted: 1 } })),
        effect: Map::new(),
        migration: format!(
            "{}{}.createIndex({});\n",
            header(lang, &format!("index {}.{dotted}", ctx.ns())),
            js_coll(ctx.db(), ctx.coll()),
            js_value(&json!({ dotted: 1 }))
        ),
    }
}

/// Drops an index (re-running finds it gone and does nothing).
pub fn drop_index(ctx: &CollectionCtx<'_>, name: &str, why: String, lang: Lang) -> Suggestion {
    Suggestion {
        pattern: "index",
        summary: why,
        before: None,
        after: None,
        effect: Map::new(),
        migration: format!(
            "{}const coll = {};\nif (coll.getIndexes().some((i) => i.name === {name_js})) {{\n  coll.dropIndex({name_js});\n}}\n",
            header(lang, &format!("drop index {name} on {}", ctx.ns())),
            js_coll(ctx.db(), ctx.coll()),
            name_js = js(name)
        ),
    }
}

/// Converts the minority type of a path to the majority type and marks the
/// documents with a schema version (`schema-versioning`).
pub fn schema_versioning(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    from: crate::profile::raw::BsonType,
    to: crate::profile::raw::BsonType,
    lang: Lang,
) -> Suggestion {
    let dotted = query_path(&f.segments);
    let example = ctx.report.kept.iter().find_map(|d| {
        extract::values(d, &f.segments)
            .iter()
            .find(|e| e.ty == from)
            .and_then(crate::profile::value_of)
    });
    let before = example
        .as_ref()
        .map(|v| json!({ dotted.clone(): v.clone().into_relaxed_extjson() }));
    let after = example
        .as_ref()
        .map(|v| json!({ dotted.clone(): scripts::converted_example(v, to), "schema_version": 2 }));
    Suggestion {
        pattern: "schema-versioning",
        summary: lang.pick(
            format!("Fix the writer that still stores `{dotted}` as {from}, convert the old documents to {to}, and mark converted documents with `schema_version` so readers know which shape they hold."),
            format!("修正仍把 `{dotted}` 写成 {from} 的程序，把旧文档转换为 {to}，并用 `schema_version` 标记已转换的文档（模式版本化），让读取方知道文档是哪种结构。"),
        ),
        before,
        after,
        effect: Map::new(),
        migration: scripts::convert_type(
            &header(lang, &format!("{}.{}: {from} -> {to}", ctx.ns(), f.path)),
            ctx.db(),
            ctx.coll(),
            &f.path,
            from,
            to,
        ),
    }
}

/// Adds a discriminator field telling the shapes apart (`polymorphic`).
pub fn polymorphic(ctx: &CollectionCtx<'_>, shapes: &[(String, String)], lang: Lang) -> Suggestion {
    let before = pick_doc(ctx, None).and_then(|d| display_doc(&d, 2));
    let after = before.clone().map(|mut b| {
        if let (Some(obj), Some((name, _))) = (b.as_object_mut(), shapes.first()) {
            obj.insert("type".into(), json!(name));
        }
        b
    });
    Suggestion {
        pattern: "polymorphic",
        summary: lang.pick(
            "Give every document a `type` field naming its shape, so queries, indexes and code can tell the shapes apart (polymorphic pattern).".to_owned(),
            "为每个文档加上说明其结构的 `type` 字段（多态模式），让查询、索引和代码能区分不同结构的文档。".to_owned(),
        ),
        before,
        after,
        effect: Map::new(),
        migration: scripts::discriminator(
            &header(lang, &format!("type field for {}", ctx.ns())),
            ctx.db(),
            ctx.coll(),
            shapes,
        ),
    }
}

/// Shorter field names (`$rename`).
pub fn rename(ctx: &CollectionCtx<'_>, renames: &[(String, String)], lang: Lang) -> Suggestion {
    let before = pick_doc(ctx, None).and_then(|d| display_doc(&d, 2));
    let after = before.clone().map(|mut b| {
        if let Some(obj) = b.as_object_mut() {
            for (old, new) in renames {
                if let Some(v) = obj.remove(old) {
                    obj.insert(new.clone(), v);
                }
            }
        }
        b
    });
    Suggestion {
        pattern: "schema-versioning",
        summary: lang.pick(
            "Use shorter field names (or let an ODM map short stored names to long ones in code): every document stores every name.".to_owned(),
            "使用更短的字段名（或用 ODM 在代码中把短的存储名映射为长名）：每个文档都要保存每个字段名。".to_owned(),
        ),
        before,
        after,
        effect: Map::new(),
        migration: scripts::rename(
            &header(lang, &format!("shorter field names in {}", ctx.ns())),
            ctx.db(),
            ctx.coll(),
            renames,
        ),
    }
}

/// Turns an array of child ids held by the parent into a reference held by
/// each child (`parent-reference`), for `large-reference-array`.
pub fn ids_to_parent_reference(
    ctx: &CollectionCtx<'_>,
    arr: &FieldProfile,
    child_coll: &str,
    child_key: &str,
    lang: Lang,
) -> Suggestion {
    let dotted = query_path(&arr.segments);
    let parent_key = format!("{}_id", singular(ctx.coll()));
    let doc = pick_doc(ctx, Some(&arr.segments));
    let before = doc.as_deref().and_then(|d| display_doc(d, 3));
    let after = doc.as_deref().and_then(|d| {
        let parent = strip_path(d, &arr.segments)?;
        let id = bson::Document::from_reader(d).ok()?.get("_id").cloned()?;
        Some(json!({
            ctx.coll(): parent,
            child_coll: { child_key: "…", parent_key.clone(): id.into_relaxed_extjson() },
        }))
    });
    Suggestion {
        pattern: "parent-reference",
        summary: lang.pick(
            format!("Instead of an ever longer array of ids in `{dotted}`, store the parent's `_id` in each `{child_coll}` document as `{parent_key}` and index it."),
            format!("不要在 `{dotted}` 中保存越来越长的 id 数组，改为在每个 `{child_coll}` 文档中用 `{parent_key}` 保存父文档的 `_id`（父引用），并为它建索引。"),
        ),
        before,
        after,
        effect: size_effect(ctx, &arr.segments),
        migration: scripts::ids_to_parent(
            &header(lang, &format!("{}.{dotted} -> {child_coll}.{parent_key}", ctx.ns())),
            ctx.db(),
            ctx.coll(),
            &dotted,
            child_coll,
            child_key,
            &parent_key,
        ),
    }
}

/// Refreshes copied fields from their source (`extended-reference`).
pub fn refresh_copies(
    ctx: &CollectionCtx<'_>,
    d: &crate::rules::context::DriftCheck,
    lang: Lang,
) -> Suggestion {
    let source_coll = d
        .source_ns
        .split_once('.')
        .map_or(d.source_ns.as_str(), |(_, c)| c);
    Suggestion {
        pattern: "extended-reference",
        summary: lang.pick(
            format!("Copy into `{}` only fields that rarely change, refresh them whenever `{source_coll}` changes them (the script below does it once), or reference `{source_coll}` instead of copying.", d.holder),
            format!("只把很少变化的字段冗余到 `{}` 中（扩展引用），并在 `{source_coll}` 修改它们时同步更新（下面的脚本做一次同步）；否则改为引用 `{source_coll}`，不要冗余。", d.holder),
        ),
        before: d.examples.first().map(|(r, f, copy, src)| json!({ "reference": r, "field": f, "copy": copy, "source": src })),
        after: None,
        effect: Map::new(),
        migration: scripts::refresh_copies(
            &header(lang, &format!("refresh copies in {}.{}", ctx.ns(), d.holder)),
            ctx.db(),
            ctx.coll(),
            source_coll,
            &d.holder,
            &d.reference,
            &d.fields,
        ),
    }
}

/// Merges collections of one shape into one with a discriminator field.
pub fn merge_collections(db: &str, colls: &[String], lang: Lang) -> Suggestion {
    Suggestion {
        pattern: "polymorphic",
        summary: lang.pick(
            "Collections that hold the same kind of document under different names (one per customer, per day …) belong in one collection with a field telling them apart.".to_owned(),
            "用不同名字保存同一类文档的集合（每个客户一个、每天一个……）应合并为一个集合，并用一个字段区分它们（多态模式）。".to_owned(),
        ),
        before: None,
        after: None,
        effect: Map::new(),
        migration: scripts::merge_collections(&header(lang, &format!("merge collections of {db}")), db, colls),
    }
}

/// Splits a deeply nested sub-tree into its own collection.
pub fn flatten(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Suggestion {
    let mut s = separate(ctx, f, lang);
    s.pattern = "separate-collection";
    s.summary = lang.pick(
        format!("Flatten the structure under `{}` or move it to its own collection: deep nesting makes queries, indexes and updates awkward, and the server refuses 100 levels.", f.path),
        format!("把 `{}` 下的结构扁平化，或移到独立集合：嵌套过深会让查询、索引和更新都很别扭，服务器也拒绝超过 100 层的文档。", f.path),
    );
    s
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
            "{}const coll = {};\nconst dated = coll.findOne({}, {{ _id: 1 }});\nprint(dated === null\n  ? {}\n  : {});\n",
            header(lang, &format!("check TTL index {} on {}", index.name, ctx.ns())),
            js_coll(ctx.db(), ctx.coll()),
            js_value(&json!({ field: { "$type": "date" } })),
            js(&format!("no document has a date in {field}: TTL index {} expires nothing", index.name)),
            js(&format!("documents with a date in {field} expire {secs} s after it (TTL index {})", index.name)),
        ),
    }
}
