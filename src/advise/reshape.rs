//! Suggestions that reshape documents where they are, or regroup them:
//! an object whose keys are data made an array of pairs, events grouped
//! into hourly buckets, a field telling shapes apart, shorter field names,
//! and collections of one shape merged into one.

use serde_json::{json, Map, Value};

use super::{change, display_doc, examples, inside_array, pick_doc, plan, scripts, Suggestion};
use crate::i18n::Lang;
use crate::profile::{query_path, FieldProfile};
use crate::rules::CollectionCtx;

/// Turns an object whose keys are data into an array of `{k, v}` pairs
/// (`attribute`).
pub fn attribute(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Suggestion {
    inside_array(attribute_of(ctx, f, lang), f, lang)
}

fn attribute_of(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Suggestion {
    let dotted = query_path(&f.segments);
    let doc = pick_doc(ctx, Some(&f.segments));
    let (before, after) = examples::attribute(doc.as_deref(), &f.segments);
    // Indexes on one key of the object each serve one attribute; after the
    // conversion they index nothing.
    let prefix = format!("{dotted}.");
    let per_key: Vec<&str> = ctx
        .data
        .indexes
        .iter()
        .filter(|i| i.key.keys().any(|k| k.starts_with(&prefix)))
        .map(|i| i.name.as_str())
        .collect();
    let replaces = if per_key.is_empty() {
        String::new()
    } else {
        lang.pick(
            format!(" It replaces the {} per-key indexes ({}); the script lists them for you to drop once the application queries `{dotted}` with `$elemMatch: {{k, v}}`.", per_key.len(), per_key.join(", ")),
            format!(" 它取代了 {} 个逐键索引（{}）；脚本列出了它们，待应用改用 `$elemMatch: {{k, v}}` 查询 `{dotted}` 后再删除。", per_key.len(), per_key.join("、")),
        )
    };
    Suggestion {
        pattern: "attribute",
        summary: lang.pick(
            format!("Store `{dotted}` as an array of `{{k, v}}` pairs: the keys become values, one index on `{dotted}.k` and `{dotted}.v` serves every key, and the shape stops changing with the data.{replaces}"),
            format!("把 `{dotted}` 存成 `{{k, v}}` 键值对数组（属性模式）：键变成了值，一个 `{dotted}.k` + `{dotted}.v` 索引就能覆盖所有键，文档结构也不再随数据变化。{replaces}"),
        ),
        before,
        after,
        effect: Map::new(),
        migration: scripts::attribute(
            &plan(ctx, lang, "attribute", &format!("{}.{dotted} as k/v pairs", ctx.ns())),
            ctx.coll(),
            &dotted,
            &per_key,
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
        .data
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
            format!("Store one document per hour{series_note} in `{target}`, holding that hour's events in an array with count, min, max and sum kept up to date — or use a time-series collection. The script builds `{target}` from the events (again on every run) and leaves them in `{coll}`: compare the counts it prints, point the application at `{target}`; this finding stays until you drop `{coll}`.", coll = ctx.coll()),
            format!("在 `{target}` 中按小时{series_note}每个时段存一个文档（桶模式），事件放在数组中，并维护 count、min、max、sum 等预计算值；也可以改用时间序列集合。脚本根据事件生成 `{target}`（每次运行都重新生成），事件仍留在 `{coll}` 中：核对脚本打印的数量，让应用改用 `{target}`；在你删除 `{coll}` 之前该问题会继续出现。", coll = ctx.coll()),
        ),
        before,
        after,
        effect: {
            let mut m = Map::new();
            m.insert("documents_before".into(), json!(ctx.documents()));
            m
        },
        migration: scripts::bucket(
            &plan(ctx, lang, "bucket", &format!("{} -> {target} (hourly buckets)", ctx.ns())),
            ctx.coll(),
            &target,
            date_field,
            series_key,
            &values,
            &numeric,
        ),
    }
}

/// Adds a discriminator field telling the shapes apart (`polymorphic`).
/// The field is `type`, or the first of `kind`, `doc_type`, `_type` the
/// documents do not already use for something else.
pub fn polymorphic(ctx: &CollectionCtx<'_>, shapes: &[(String, String)], lang: Lang) -> Suggestion {
    let field = ["type", "kind", "doc_type", "_type"]
        .into_iter()
        .find(|n| ctx.field(n).is_none())
        .unwrap_or("_type");
    let before = pick_doc(ctx, None).and_then(|d| display_doc(&d, 2));
    let after = before.clone().map(|mut b| {
        if let Some(obj) = b.as_object_mut() {
            let own = shapes
                .iter()
                .find(|(_, f)| obj.contains_key(f))
                .or(shapes.first());
            if let Some((name, _)) = own {
                obj.insert(field.into(), json!(name));
            }
        }
        b
    });
    let named: Vec<String> = shapes
        .iter()
        .map(|(name, f)| format!("`{name}` (has `{f}`)"))
        .collect();
    let named = named.join(", ");
    let mut effect = Map::new();
    effect.insert("discriminator".into(), json!(field));
    effect.insert(
        "shapes".into(),
        Value::Object(
            shapes
                .iter()
                .map(|(name, f)| (name.clone(), json!(f)))
                .collect(),
        ),
    );
    let summary = if shapes.is_empty() {
        lang.pick(
            format!("Give every document a `{field}` field naming its shape, so queries, indexes and code can tell the shapes apart (polymorphic pattern). No field tells the shapes apart on the sample, so the script names none: it indexes `{field}` and counts the documents still without it, for the application to name."),
            format!("为每个文档加上说明其结构的 `{field}` 字段（多态模式），让查询、索引和代码能区分不同结构的文档。样本中没有能区分结构的字段，所以脚本不命名任何结构：只为 `{field}` 建索引，并统计仍没有它的文档，由应用来命名。"),
        )
    } else {
        lang.pick(
            format!("Give every document a `{field}` field naming its shape, so queries, indexes and code can tell the shapes apart (polymorphic pattern). The script names each shape by a field only it has: {named}; documents of no such shape are left without `{field}` and counted, for the application to name."),
            format!("为每个文档加上说明其结构的 `{field}` 字段（多态模式），让查询、索引和代码能区分不同结构的文档。脚本按每种结构独有的字段命名：{named}；不属于这些结构的文档不加 `{field}`，只计数，由应用来命名。"),
        )
    };
    Suggestion {
        pattern: "polymorphic",
        summary,
        before,
        after,
        effect,
        migration: scripts::discriminator(
            &plan(
                ctx,
                lang,
                "type",
                &format!("{field} field for {}", ctx.ns()),
            ),
            ctx.coll(),
            field,
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
    let list: Vec<String> = renames
        .iter()
        .map(|(old, new)| format!("`{old}` → `{new}`"))
        .collect();
    let list = list.join(", ");
    let mut effect = Map::new();
    effect.insert(
        "renames".into(),
        Value::Object(
            renames
                .iter()
                .map(|(old, new)| (old.clone(), json!(new)))
                .collect(),
        ),
    );
    Suggestion {
        pattern: "schema-versioning",
        summary: lang.pick(
            format!("Use shorter field names (or let an ODM map short stored names to long ones in code): every document stores every name. The script renames {list}; a document that already holds the new name keeps both, untouched, and is counted."),
            format!("使用更短的字段名（或用 ODM 在代码中把短的存储名映射为长名）：每个文档都要保存每个字段名。脚本重命名 {list}；已经有新字段名的文档保持原样（两个字段都保留）并计数。"),
        ),
        before,
        after,
        effect,
        migration: scripts::rename(
            &plan(ctx, lang, "rename", &format!("shorter field names in {}", ctx.ns())),
            ctx.coll(),
            renames,
        ),
    }
}

/// Merges collections of one shape into one with a discriminator field.
pub fn merge_collections(db: &str, colls: &[String], lang: Lang) -> Suggestion {
    let target = scripts::merge_target(colls);
    Suggestion {
        pattern: "polymorphic",
        summary: lang.pick(
            format!("Collections that hold the same kind of document under different names (one per customer, per day …) belong in one collection with a field telling them apart. The script copies them into `{target}`: each document gets `kind`, the collection it came from, and `_id: {{source, id}}` holding its original `_id`. It drops nothing: once the application reads `{target}`, drop the old collections yourself; until then this finding stays."),
            format!("用不同名字保存同一类文档的集合（每个客户一个、每天一个……）应合并为一个集合，并用一个字段区分它们（多态模式）。脚本把它们复制到 `{target}`：每个文档加上 `kind`（来源集合名），`_id` 变为 `{{source, id}}`，其中保留原来的 `_id`。脚本不删除任何集合：应用改读 `{target}` 后请自行删除旧集合；在此之前该问题会继续出现。"),
        ),
        before: None,
        after: None,
        effect: Map::new(),
        migration: {
            let what = format!("merge collections of {db} into {target}");
            scripts::merge_collections(&change::Plan::new(lang, db, &target, "merge", &what), db, colls)
        },
    }
}
