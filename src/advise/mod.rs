//! Refactor advice: for each pattern, a before/after example built from the
//! collection's own field names and sampled values, the effect estimated on
//! the sample, and a `mongosh` migration script that is safe to re-run: a
//! dry run until `apply` is set, a backup before every change and an undo
//! command after it (see [`change`]).
//! docshape never runs these scripts; it only writes them.

mod advice;
#[cfg(test)]
mod cases;
pub mod change;
mod convert;
pub mod dates;
mod examples;
mod expiry;
pub mod family;
pub mod integrity;
mod numbers;
pub mod reaudit;
mod scripts;
mod workload;

use crate::profile::extjson::Relaxed as _;
use std::fmt::Write;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::i18n::Lang;
use crate::profile::extract::{self, Weighed};
use crate::profile::{query_path, FieldProfile, Seg};
use crate::rules::CollectionCtx;

pub use advice::{advise, advise_deployment, pending, review_indexes, suggest, Advice, PENDING};
pub use examples::{display_doc, pick_doc, strip_path};

/// What to do instead.
#[derive(Clone, Debug, Serialize)]
pub struct Suggestion {
    /// One of the contract's pattern identifiers.
    pub pattern: &'static str,
    pub summary: String,
    /// A document as it is now, from the collection's own fields and values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<serde_json::Value>,
    /// The same data after the refactor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<serde_json::Value>,
    /// The effect estimated on the sample (sizes before and after …).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub effect: serde_json::Map<String, serde_json::Value>,
    /// A `mongosh` script: a dry run until its `apply` is set, safe to
    /// re-run, with a backup and an undo; docshape never runs it.
    pub migration: String,
}

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

/// The plan of a changing script about the collection `ctx` describes:
/// `tag` names the change, `what` describes it.
fn plan(ctx: &CollectionCtx<'_>, lang: Lang, tag: &str, what: &str) -> change::Plan {
    change::Plan::new(lang, ctx.db(), ctx.coll(), tag, what)
}

/// An MQL path for a profile path: array steps (`[]`) left out, as a query
/// or an index key reaches the elements of an array.
pub fn mql_path(path: &str) -> String {
    path.replace("[]", "")
}

/// What a change does at its path, for a document known only by what it
/// carries at each path ([`Weighed`]).
#[derive(Clone, Copy)]
enum AtPath {
    /// The path leaves the document.
    Removed,
    /// The arrays at the path keep their last `n` elements.
    LastKept(u64),
}

/// The size of the weighed document `w` after a change at `segs`. Keeping
/// the last elements is estimated from the path's average element.
fn weighed_after(w: &Weighed, segs: &[Seg], change: AtPath) -> f64 {
    let at = w.at(segs);
    let carried = at.bytes.min(w.bytes.saturating_sub(5));
    let left = match change {
        AtPath::LastKept(n) if at.elements > 0 => {
            let kept = (n.saturating_mul(at.arrays)).min(at.elements);
            carried as f64 * kept as f64 / at.elements as f64
        }
        _ => 0.0,
    };
    (w.bytes - carried) as f64 + left
}

/// Average and largest document size, before and after `change` is
/// applied to each document (as the script would change it): measured on
/// the kept sample and on the largest document read when the sample does
/// not hold it (passed over to stay within the memory budget), which is
/// often the document that made the finding fire. `change` returns false
/// when it cannot apply; the document then counts as it is minus the bytes
/// the path carries (paths through arrays).
fn size_effect_by(
    ctx: &CollectionCtx<'_>,
    segs: &[Seg],
    change: impl Fn(&mut bson::Document) -> bool,
    at_path: AtPath,
) -> Map<String, Value> {
    let largest = ctx.data.largest_unkept;
    let mut sizes: Vec<(f64, f64)> = ctx
        .data
        .kept
        .iter()
        .enumerate()
        .filter(|(i, _)| largest.is_none_or(|w| w.kept_cut_at != Some(*i)))
        .map(|(_, raw)| {
            let after = bson::Document::from_reader(&raw[..])
                .ok()
                .and_then(|mut d| {
                    change(&mut d).then(|| bson::serialize_to_vec(&d).ok().map(|v| v.len()))?
                })
                .unwrap_or_else(|| {
                    let carried: usize = extract::values(raw, segs).iter().map(|e| e.size).sum();
                    raw.len() - carried.min(raw.len().saturating_sub(5))
                });
            (raw.len() as f64, after as f64)
        })
        .collect();
    let largest = largest.map(|w| {
        let after = weighed_after(w, segs, at_path).round();
        sizes.push((w.bytes as f64, after));
        json!({"_id": w.id, "bytes_before": w.bytes, "bytes_after": after})
    });
    let mut m = size_summary(&sizes);
    if let Some(l) = largest {
        m.insert("largest_not_kept".into(), l);
    }
    m
}

/// The effect's size figures from per-document (before, after) sizes: the
/// averages and maxima come from the same documents, so avg ≤ max.
fn size_summary(sizes: &[(f64, f64)]) -> Map<String, Value> {
    let n = sizes.len();
    let avg = |f: fn(&(f64, f64)) -> f64| {
        if n == 0 {
            0.0
        } else {
            sizes.iter().map(f).sum::<f64>() / n as f64
        }
    };
    let max = |f: fn(&(f64, f64)) -> f64| sizes.iter().map(f).fold(0.0, f64::max);
    let mut m = Map::new();
    m.insert("documents_measured".into(), json!(n));
    m.insert("avg_bytes_before".into(), json!(avg(|s| s.0).round()));
    m.insert("avg_bytes_after".into(), json!(avg(|s| s.1).round()));
    m.insert("max_bytes_before".into(), json!(max(|s| s.0)));
    m.insert("max_bytes_after".into(), json!(max(|s| s.1)));
    m
}

/// The effect of removing `segs` from every document.
fn size_effect(ctx: &CollectionCtx<'_>, segs: &[Seg]) -> Map<String, Value> {
    size_effect_by(ctx, segs, |d| examples::remove(d, segs), AtPath::Removed)
}

/// Why the value at `f` must keep its type and value, if it must: it is an
/// `_id` below the top (a sub-document's identity) or the value a
/// reference joins on. A conversion there would change what identifies a
/// document or what a reference finds.
pub(crate) fn kept_value(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Option<String> {
    let inner_id =
        f.segments.len() > 1 && matches!(f.segments.last(), Some(Seg::Key(k)) if k == "_id");
    let joins = ctx.relationships.iter().any(|r| {
        r.from_ns == ctx.ns() && r.from_path == f.path && r.kind != crate::relate::Kind::Embedded
    });
    if inner_id {
        Some(lang.pick(
            format!(
                "`{}` is the identity of a sub-document, which a script never changes",
                f.path
            ),
            format!("`{}` 是子文档的标识，脚本从不修改它", f.path),
        ))
    } else if joins {
        Some(lang.pick(
            format!("`{}` is a reference, and converting it would change what it joins on: convert it together with what it references, in the application", f.path),
            format!("`{}` 是引用，转换它会改变它关联的对象：请在应用中与它引用的值一起转换", f.path),
        ))
    } else {
        None
    }
}

/// The suggestion without its script when `f` lies inside an array: one
/// update cannot move or rewrite it safely there (it would take a `$map`
/// over every enclosing array), so docshape offers none, and says so.
fn inside_array(mut s: Suggestion, f: &FieldProfile, lang: Lang) -> Suggestion {
    if f.segments.contains(&Seg::Elem) {
        s.migration = String::new();
        s.summary.push_str(&lang.pick(
            format!(" `{}` lies inside an array, which this change cannot reach safely: docshape writes no script for it; make the change in the application that writes it.", f.path),
            format!(" `{}` 位于数组内部，这一修改无法安全地作用到那里：docshape 不为它生成脚本；请在写入它的应用中修改。", f.path),
        ));
    }
    s
}

/// Moves the elements of an array into their own collection, each with a
/// reference to its parent (`parent-reference`).
pub fn parent_reference(ctx: &CollectionCtx<'_>, arr: &FieldProfile, lang: Lang) -> Suggestion {
    inside_array(parent_reference_of(ctx, arr, lang), arr, lang)
}

fn parent_reference_of(ctx: &CollectionCtx<'_>, arr: &FieldProfile, lang: Lang) -> Suggestion {
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
            &plan(ctx, lang, "array", &format!("{}.{dotted} -> {child}", ctx.ns())),
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
    inside_array(subset_of(ctx, arr, keep, lang), arr, lang)
}

fn subset_of(ctx: &CollectionCtx<'_>, arr: &FieldProfile, keep: u64, lang: Lang) -> Suggestion {
    let field = arr.name.clone();
    let child = child_collection(ctx.coll(), &field);
    let parent_key = format!("{}_id", singular(ctx.coll()));
    let dotted = query_path(&arr.segments);
    let doc = pick_doc(ctx, Some(&arr.segments));
    let (before, after) =
        examples::subset(doc.as_deref(), &arr.segments, keep, &child, &parent_key);
    let mut effect = size_effect_by(
        ctx,
        &arr.segments,
        |d| examples::keep_last(d, &arr.segments, keep),
        AtPath::LastKept(keep),
    );
    effect.insert("elements_kept".into(), json!(keep));
    Suggestion {
        pattern: "subset",
        summary: lang.pick(
            format!("Keep only the last {keep} elements of `{dotted}` in the document (the newest when the writer appends them, what most reads show) and every element in `{child}` with a `{parent_key}` reference and its position."),
            format!("文档中只保留 `{dotted}` 的最后 {keep} 个元素（写入方追加元素时即最新的，大多数读取只用到这些），全部元素连同位置放到 `{child}` 集合，并用 `{parent_key}` 引用父文档（子集模式）。"),
        ),
        before,
        after,
        effect,
        migration: scripts::move_array_out(
            &plan(ctx, lang, "subset", &format!("keep {keep} newest of {}.{dotted}, history in {child}", ctx.ns())),
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
    inside_array(separate_of(ctx, f, lang), f, lang)
}

fn separate_of(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Suggestion {
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
            format!("`{dotted}` holds large binary data read by few queries: the script moves it into `{child}`, one document per parent keyed by `{parent_key}`, so reads of the parent no longer carry it. Files that may pass 16 MiB belong in GridFS (a driver's GridFS bucket or mongofiles) or object storage, with only the file id kept; the script does not do that."),
            format!("`{dotted}` 保存的是很少被读取的大块二进制数据：脚本把它移到 `{child}` 集合，每个父文档一个、以 `{parent_key}` 关联，读取父文档时不再带上它。可能超过 16 MiB 的文件应放到 GridFS（驱动的 GridFS bucket 或 mongofiles）或对象存储，文档里只保留文件 id；脚本不做这一步。"),
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
            &plan(
                ctx,
                lang,
                "split",
                &format!("{}.{dotted} -> {child}", ctx.ns()),
            ),
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

/// Converts a path holding several types to the numeric type that loses
/// nothing (see [`convert`] for the rule), leaving every value that does not
/// convert exactly as it is and counting it (`schema-versioning`). `_id` is
/// never updated: its suggestion only counts.
pub fn convert_types(
    ctx: &CollectionCtx<'_>,
    field: &FieldProfile,
    r: &crate::rules::Reaudit,
    lang: Lang,
) -> Suggestion {
    use convert::{Outcome, Reason};
    let dotted = query_path(&field.segments);
    let per_doc: Vec<(Option<bson::Bson>, Vec<bson::Bson>)> = ctx
        .data
        .kept
        .iter()
        .map(|d| {
            let vals = extract::values(d, &field.segments)
                .iter()
                .filter_map(crate::profile::value_of)
                .collect();
            let id = extract::top(d, "_id").and_then(|e| crate::profile::value_of(&e));
            (id, vals)
        })
        .collect();
    let all: Vec<bson::Bson> = per_doc
        .iter()
        .flat_map(|(_, v)| v.iter().cloned())
        .collect();
    let types: Vec<&str> = field.types.iter().map(|(t, _)| t.alias()).collect();
    let types = types.join(", ");
    let is_id = matches!(field.segments.first(), Some(Seg::Key(k)) if k == "_id");
    let what = |w: &str| format!("{}.{}: {w}", ctx.ns(), field.path);
    if let Some(why) = (!is_id).then(|| kept_value(ctx, field, lang)).flatten() {
        return Suggestion {
            pattern: "schema-versioning",
            summary: lang.pick(
                format!("`{dotted}` holds {types}. {why}. Fix the writer to store one type; the script only counts the values of each type."),
                format!("`{dotted}` 中混有 {types}。{why}。请修正写入方只写一种类型；脚本只统计各类型值的数量。"),
            ),
            before: None,
            after: None,
            effect: Map::new(),
            migration: convert::count_only(
                lang,
                &what("types (counted)"),
                (ctx.db(), ctx.coll()),
                (&dotted, &field.path),
                &why,
&["mixed-types"],
                r,
            ),
        };
    }
    // Dates beside dates written as text: the strings that are dates
    // become dates.
    if !is_id {
        use crate::profile::raw::BsonType;
        let only_dates = field.types.iter().all(|(t, _)| {
            matches!(
                t,
                BsonType::String | BsonType::Date | BsonType::Null | BsonType::Undefined
            )
        });
        if only_dates && field.type_count(BsonType::Date) > 0 {
            // Most strings are dates: those become dates, the rest stay
            // (counted, and the script says what the re-audit makes of them).
            let st = crate::rules::string_dates::strings(ctx.data.kept, &field.segments);
            if st.dates > 0 && st.dates * 2 > st.strings {
                return dates::mixed_dates(ctx, field, &st.formats, &st.example, r, lang);
            }
        }
    }
    if !is_id && convert::looks_like_codes(&all, &field.name) {
        return Suggestion {
            pattern: "schema-versioning",
            summary: lang.pick(
                format!("`{dotted}` holds {types}, and its digit strings are codes (a fixed width, leading zeros or a code's name), not quantities: keep them strings. Numbers lose leading zeros and invite arithmetic; the numeric values are the ones to turn back into strings, which only the application can do right (it knows the width and the zeros that were lost). Fix the writer to store strings. The script only counts the values of each type."),
                format!("`{dotted}` 中混有 {types}，其中的数字字符串是编码（定长、带前导零或名称表明是编码），不是数量：应保持为字符串。转成数字会丢掉前导零，还会被拿去计算；需要改回字符串的是那些数字值，而只有应用知道原来的位数和丢失的零。请修正写入方统一写字符串。脚本只统计各类型值的数量。"),
            ),
            before: None,
            after: None,
            effect: Map::new(),
            migration: convert::count_only(
                lang,
                &what("types (counted)"),
                (ctx.db(), ctx.coll()),
                (&dotted, &field.path),
                lang.pick(
                    "digit strings here are codes: converting them to numbers would lose leading zeros",
                    "这里的数字字符串是编码：转换成数字会丢掉前导零",
                ),
                &["mixed-types"],
                r,
            ),
        };
    }
    let chosen = convert::plan(&all, &field.name);
    let place = convert::place(&field.path);
    let (to, reason, place) = match (is_id, chosen, place) {
        (true, _, _) => {
            return Suggestion {
                pattern: "schema-versioning",
                summary: lang.pick(
                    format!("`{dotted}` holds {types}. MongoDB never changes `_id` in place, so docshape writes no update: make every writer use one type for new documents. Converting old ones means inserting a copy under the new `_id`, deleting the original and updating every reference to it, a migration of its own. The script only counts the `_id` types."),
                    format!("`{dotted}` 中混有 {types}。MongoDB 从不允许原地修改 `_id`，所以 docshape 不生成更新语句：让所有写入方对新文档使用同一种类型。转换旧文档需要以新 `_id` 插入副本、删除原文档并更新所有引用它的地方，这是一次单独的迁移。脚本只统计 `_id` 各类型的数量。"),
                ),
                before: None,
                after: None,
                effect: Map::new(),
                migration: convert::count_only(
                    lang,
                    &what("types of _id (counted, never updated)"),
                    (ctx.db(), ctx.coll()),
                    (&dotted, &field.path),
                    lang.pick(
                        "MongoDB never changes an _id in place; a document keeps the _id it was created with",
                        "MongoDB 从不原地修改 _id；文档保留创建时的 _id",
                    ),
                    &["mixed-types"],
                    r,
                ),
            };
        }
        (false, None, _) => {
            return Suggestion {
                pattern: "schema-versioning",
                summary: lang.pick(
                    format!("`{dotted}` holds {types}, and most values are not numbers, so no conversion loses nothing: fix the writer to store one type and convert old documents in the application, marking them with a `schema_versions` entry for the path. The script only counts the values of each type."),
                    format!("`{dotted}` 中混有 {types}，且大多数值不是数字，没有不丢信息的自动转换：请修正写入方只写一种类型，并在应用中转换旧文档、用 `schema_versions` 中该路径的条目标记。脚本只统计各类型值的数量。"),
                ),
                before: None,
                after: None,
                effect: Map::new(),
                migration: convert::count_only(
                    lang,
                    &what("types (counted)"),
                    (ctx.db(), ctx.coll()),
                    (&dotted, &field.path),
                    lang.pick(
                        "most values are not numbers: there is no lossless conversion to write",
                        "大多数值不是数字：没有不丢信息的转换可写",
                    ),
                    &["mixed-types"],
                    r,
                ),
            };
        }
        (false, Some((to, _)), None) => {
            return Suggestion {
                pattern: "schema-versioning",
                summary: lang.pick(
                    format!("`{dotted}` lies inside nested arrays, which one update cannot convert safely: convert it to {to} in the application that writes it ({to} loses nothing here). The script only counts the values of each type.", to = to.alias()),
                    format!("`{dotted}` 位于多层嵌套数组中，一次更新无法安全转换：请在写入它的应用中转换为 {to}（此处 {to} 不会丢失信息）。脚本只统计各类型值的数量。", to = to.alias()),
                ),
                before: None,
                after: None,
                effect: Map::new(),
                migration: convert::count_only(
                    lang,
                    &what("types (counted)"),
                    (ctx.db(), ctx.coll()),
                    (&dotted, &field.path),
                    lang.pick(
                        "the path lies inside nested arrays: convert it where it is written",
                        "该路径位于多层嵌套数组中：请在写入它的地方转换",
                    ),
                    &["mixed-types"],
                    r,
                ),
            };
        }
        (false, Some((to, reason)), Some(place)) => (to, reason, place),
    };
    let ty = to.alias();
    let tally = convert::tally(&all, to);
    // Per document, exactly as the script decides: changed when a value
    // converts, marked when every value is then of the target type.
    let mut changed = 0u64;
    let mut example: Option<(usize, u8)> = None;
    for (i, (_, vals)) in per_doc.iter().enumerate() {
        let outs: Vec<Outcome> = vals.iter().map(|v| convert::classify(v, to)).collect();
        if outs.iter().any(|o| matches!(o, Outcome::Convert(_))) {
            changed += 1;
        }
        // Prefer a document showing a string converted, then any conversion.
        let rank = u8::from(outs.iter().any(|o| matches!(o, Outcome::Convert(_))))
            + u8::from(
                vals.iter()
                    .zip(&outs)
                    .any(|(v, o)| matches!((v, o), (bson::Bson::String(_), Outcome::Convert(_)))),
            );
        if rank > 0 && example.is_none_or(|(_, r)| rank > r) {
            example = Some((i, rank));
        }
    }
    let (before, after) =
        example
            .and_then(|(i, _)| per_doc.get(i))
            .map_or((None, None), |(id, vals)| {
                let outs: Vec<Outcome> = vals.iter().map(|v| convert::classify(v, to)).collect();
                let shown = |b: &bson::Bson| b.clone().relaxed();
                let old: Vec<Value> = vals.iter().map(shown).collect();
                let new: Vec<Value> = vals
                    .iter()
                    .zip(&outs)
                    .map(|(v, o)| match o {
                        Outcome::Convert(c) => shown(c),
                        _ => shown(v),
                    })
                    .collect();
                let one = |mut v: Vec<Value>| {
                    if matches!(place, convert::Place::Field(_)) && v.len() == 1 {
                        v.remove(0)
                    } else {
                        Value::Array(v)
                    }
                };
                let id = id.as_ref().map_or(json!("…"), shown);
                let mut b = Map::new();
                b.insert("_id".into(), id.clone());
                b.insert(dotted.clone(), one(old));
                let mut a = Map::new();
                a.insert("_id".into(), id);
                a.insert(dotted.clone(), one(new));
                if outs
                    .iter()
                    .all(|o| matches!(o, Outcome::Already | Outcome::Convert(_) | Outcome::Null))
                {
                    a.insert(
                        "schema_versions".into(),
                        json!({ convert::version_key(&place): 2 }),
                    );
                }
                (Some(Value::Object(b)), Some(Value::Object(a)))
            });
    let marked = format!("schema_versions.{}", convert::version_key(&place));
    let marked_docs = per_doc
        .iter()
        .filter(|(_, vals)| {
            let outs: Vec<Outcome> = vals.iter().map(|v| convert::classify(v, to)).collect();
            outs.iter().any(|o| matches!(o, Outcome::Convert(_)))
                && outs
                    .iter()
                    .all(|o| matches!(o, Outcome::Already | Outcome::Convert(_) | Outcome::Null))
        })
        .count();
    let shown: Vec<String> = tally
        .stays
        .iter()
        .map(|(v, n)| format!("{} ×{}", convert::show(v), crate::fmt::group(*n)))
        .collect();
    let shown = shown.join(", ");
    let (c, s, k) = (
        crate::fmt::group(tally.convert),
        crate::fmt::group(tally.stay),
        crate::fmt::group(tally.already),
    );
    let why = match reason {
        Reason::DecimalPresent => lang.pick(
            "the path already holds decimals, and anything narrower would round them",
            "该路径已有 decimal 值，换成更窄的类型会舍入它们",
        ),
        Reason::Money => lang.pick(
            "it holds money with at most two fraction digits, which decimal keeps exact and double does not",
            "它保存的是最多两位小数的金额，decimal 能精确保存，double 不能",
        ),
        Reason::TooManyDigits => lang.pick(
            "some numbers have more digits than a double holds exactly",
            "有些数字的位数超过了 double 能精确表示的范围",
        ),
        Reason::Fractions => lang.pick(
            "values carry fractions, which int would cut off",
            "有些值带小数，转换为 int 会截断小数",
        ),
        Reason::DoublePresent => lang.pick(
            "doubles are present, and converting them to an integer type would narrow them",
            "已有 double 值，转换为整数类型会收窄它们",
        ),
        Reason::Wide => lang.pick(
            "some integers do not fit in 32 bits",
            "有些整数超出了 32 位范围",
        ),
        Reason::Whole => lang.pick(
            "every number is whole and fits in 32 bits",
            "所有数字都是 32 位范围内的整数",
        ),
    };
    let left = if tally.stay > 0 {
        lang.pick(
            format!(" {s} values are not plain numbers ({shown}): the script leaves them as they are and counts them. Replace them with null (or remove the field) where they mean “no value”; until then this finding stays."),
            format!(" {s} 个值不是普通数字（{shown}）：脚本保持原样并计数。若它们表示“无值”，请改为 null（或删除该字段）；在此之前该问题会继续出现。"),
        )
    } else {
        String::new()
    };
    let summary = if tally.convert == 0 {
        lang.pick(
            format!("Every value of `{dotted}` that converts exactly already is {ty}.{left}"),
            format!("`{dotted}` 中所有能精确转换的值都已是 {ty}。{left}"),
        )
    } else {
        lang.pick(
            format!("Fix the writer that stores other types in `{dotted}` and convert the old values to {ty}, because {why}. On the sample {c} values convert exactly and {k} already are {ty}.{left} Only documents whose every value at the path is then {ty} get `{marked}: 2` (one entry per converted path), so readers know which shape they hold."),
            format!("修正向 `{dotted}` 写入其他类型的程序，并把旧值转换为 {ty}，因为{why}。在样本中有 {c} 个值可以精确转换，{k} 个已是 {ty}。{left}只有该路径上所有值都变为 {ty} 的文档才会标记 `{marked}: 2`（模式版本化，每个转换的路径一个条目），让读取方知道文档是哪种结构。"),
        )
    };
    let mut effect = Map::new();
    effect.insert("target_type".into(), json!(ty));
    effect.insert(
        "values_measured".into(),
        json!(tally.convert + tally.stay + tally.already),
    );
    effect.insert("values_converted".into(), json!(tally.convert));
    effect.insert("values_left_as_they_are".into(), json!(tally.stay));
    effect.insert("values_already_target".into(), json!(tally.already));
    effect.insert("documents_changed".into(), json!(changed));
    effect.insert("documents_marked".into(), json!(marked_docs));
    effect.insert("marked_with".into(), json!(marked));
    if !tally.stays.is_empty() {
        effect.insert(
            "left_as_they_are".into(),
            Value::Array(
                tally
                    .stays
                    .iter()
                    .map(|(v, n)| json!({ "value": v.clone().relaxed(), "count": n }))
                    .collect(),
            ),
        );
    }
    Suggestion {
        pattern: "schema-versioning",
        summary,
        before,
        after,
        effect,
        migration: convert::script(
            &plan(ctx, lang, "types", &what(&format!("{types} -> {ty}"))),
            ctx.coll(),
            &place,
            to,
            r,
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

/// Turns an array of child ids held by the parent into a reference held by
/// each child (`parent-reference`), for `large-reference-array`.
pub fn ids_to_parent_reference(
    ctx: &CollectionCtx<'_>,
    arr: &FieldProfile,
    child_coll: &str,
    child_key: &str,
    lang: Lang,
) -> Suggestion {
    inside_array(
        ids_to_parent_of(ctx, arr, child_coll, child_key, lang),
        arr,
        lang,
    )
}

fn ids_to_parent_of(
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
            child_coll: { child_key: "…", parent_key.clone(): id.relaxed() },
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
            &plan(ctx, lang, "refs", &format!("{}.{dotted} -> {child_coll}.{parent_key}", ctx.ns())),
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
    let (source_db, source_coll) = d
        .source_ns
        .split_once('.')
        .unwrap_or((ctx.db(), d.source_ns.as_str()));
    let holder = scripts::Holder::of(&d.holder);
    // What a refresh may write: the copied fields, never a copy's own
    // `_id`, never the reference it is found by, never a name a path
    // cannot reach.
    let joins = holder
        .as_ref()
        .and_then(|h| scripts::copy_reference(h, &d.reference));
    let (fields, never): (Vec<String>, Vec<String>) = d.fields.iter().cloned().partition(|f| {
        f != "_id"
            && Some(f.as_str()) != joins.as_deref()
            && !f.contains('.')
            && !f.starts_with('$')
    });
    let never_note = if never.is_empty() {
        String::new()
    } else {
        lang.pick(
            format!(" The copies also differ on {}, which no script rewrites (a copy's own identity, or the reference it is found by): compare them by hand.", never.join(", ")),
            format!(" 副本在 {} 上也不一致，任何脚本都不会改写它们（副本自身的标识，或用来找到源文档的引用）：请人工核对。", never.join("、")),
        )
    };
    // A copy carries its source's identity, or none: sub-documents whose
    // own `_id` differs from their source's are not copies of it (entities
    // of their own that reference it), and a refresh would overwrite their
    // own data with the source's.
    let own_identity = d.fields.iter().any(|f| f == "_id");
    let no_script = if own_identity {
        Some(lang.pick(
            format!("The sub-documents at `{}` have an `_id` of their own, not that of the `{source_coll}` document they reference: they are not copies of it (more likely entities of their own that reference it), so docshape writes no refresh, which would overwrite their own fields; compare the fields by hand.", d.holder),
            format!("`{}` 处的子文档有自己的 `_id`，而不是它们所引用的 `{source_coll}` 文档的 `_id`：它们不是该文档的副本（更可能是引用它的独立实体），刷新会覆盖它们自己的字段，所以 docshape 不生成刷新脚本；请人工核对这些字段。", d.holder),
        ))
    } else if source_db != ctx.db() {
        Some(lang.pick(
            format!("{} is in another database, which $lookup cannot reach: docshape writes no refresh.", d.source_ns),
            format!("{} 在另一个数据库中，$lookup 无法访问：docshape 不生成刷新脚本。", d.source_ns),
        ))
    } else if holder.is_none() {
        Some(lang.pick(
            format!("The copies sit inside nested arrays (or inside the elements of an array), which one refresh cannot rewrite safely: docshape writes no refresh for `{}`.", d.holder),
            format!("这些副本位于嵌套数组中（或数组元素内部），一次刷新无法安全改写：docshape 不为 `{}` 生成刷新脚本。", d.holder),
        ))
    } else if fields.is_empty() {
        Some(lang.pick(
            "No copied field is left to refresh once the copies' own `_id` and their reference are set aside: docshape writes no refresh.".to_owned(),
            "除去副本自身的 `_id` 和它们的引用后，已没有可刷新的复制字段：docshape 不生成刷新脚本。".to_owned(),
        ))
    } else {
        None
    };
    let summary = lang.pick(
        format!("Copy into `{}` only fields that rarely change, refresh them whenever `{source_coll}` changes them, or reference `{source_coll}` instead of copying.", d.holder),
        format!("只把很少变化的字段冗余到 `{}` 中（扩展引用），并在 `{source_coll}` 修改它们时同步更新；否则改为引用 `{source_coll}`，不要冗余。", d.holder),
    );
    let (summary, migration) = match (no_script, holder) {
        (Some(why), _) if own_identity => (format!("{summary} {why}"), String::new()),
        (Some(why), _) => (format!("{summary} {why}{never_note}"), String::new()),
        (None, None) => (format!("{summary}{never_note}"), String::new()),
        (None, Some(h)) => {
            let what = format!(
                "refresh {} in {}.{} from {}",
                fields.join(", "),
                ctx.ns(),
                d.holder,
                d.source_ns
            );
            let p = plan(ctx, lang, "drift", &what);
            let stays = if never.is_empty() {
                String::new()
            } else {
                p.stays(&js(&lang.pick(
                    format!(
                        "the copies also differ on {}, which no script rewrites",
                        never.join(", ")
                    ),
                    format!(
                        "副本在 {} 上也不一致，任何脚本都不会改写它们",
                        never.join("、")
                    ),
                )))
            };
            let s = scripts::refresh_copies(
                &p,
                ctx.coll(),
                &scripts::CopySource {
                    coll: source_coll,
                    key_type: d.key_type,
                },
                &h,
                &d.reference,
                &fields,
                &stays,
            );
            let converted = match d.key_type {
                Some(ty) => lang.pick(
                    format!(" The copies name their `{source_coll}` document in another type than its `_id`: the script reads each copy's reference as {ty} to find it, and leaves the reference as it is."),
                    format!(" 副本记录 `{source_coll}` 文档的类型与其 `_id` 不同：脚本按 {ty} 读取每份副本的引用来找到源文档，引用本身保持不变。"),
                ),
                None => String::new(),
            };
            (
                format!(
                    "{summary}{}{converted}{never_note}",
                    lang.pick(
                        format!(" The script refreshes {} once, from `{source_coll}`, where a copy and its source both hold the field.", fields.join(", ")),
                        format!(" 脚本从 `{source_coll}` 刷新一次 {}，只改副本与源文档都有的字段。", fields.join("、")),
                    )
                ),
                s,
            )
        }
    };
    Suggestion {
        pattern: "extended-reference",
        summary,
        before: d.examples.first().map(
            |(r, f, copy, src)| json!({ "reference": r, "field": f, "copy": copy, "source": src }),
        ),
        after: None,
        effect: Map::new(),
        migration,
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

/// Splits a deeply nested sub-tree into its own collection.
pub fn flatten(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Suggestion {
    let mut s = separate_of(ctx, f, lang);
    s.pattern = "separate-collection";
    let child = child_collection(ctx.coll(), &f.name);
    let why = lang.pick(
        format!("Flatten the structure under `{}` or move it to its own collection: deep nesting makes queries, indexes and updates awkward, and the server refuses 100 levels.", f.path),
        format!("把 `{}` 下的结构扁平化，或移到独立集合：嵌套过深会让查询、索引和更新都很别扭，服务器也拒绝超过 100 层的文档。", f.path),
    );
    s.summary = if f.segments.contains(&Seg::Elem) {
        why
    } else {
        lang.pick(
            format!("{why} The script moves `{}` as it is into `{child}`, one document per parent, so reads of {} no longer carry it; the nesting goes with it, and so does this finding, until the application flattens it.", f.path, ctx.coll()),
            format!("{why}脚本把 `{}` 原样移到 `{child}`，每个父文档一个，读取 {} 时不再带上它；嵌套结构随之移过去，该问题也会转到那里，直到应用把它扁平化。", f.path, ctx.coll()),
        )
    };
    inside_array(s, f, lang)
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

#[cfg(test)]
#[allow(clippy::float_cmp)] // byte counts: whole numbers held in f64
mod tests {
    use super::*;
    use crate::rules::testing;
    use bson::doc;

    fn report(docs: &[bson::Document]) -> testing::Collection {
        testing::report("shop.products", docs)
    }

    fn ctx(r: &testing::Collection) -> CollectionCtx<'_> {
        CollectionCtx {
            data: r.data(),
            relationships: Vec::new(),
            drift: Vec::new(),
            index_usage: None,
            now: 0.0,
            workload: None,
        }
    }

    fn f64_of(m: &Map<String, Value>, k: &str) -> f64 {
        m.get(k).and_then(Value::as_f64).expect(k)
    }

    #[test]
    fn subset_sizes_are_the_kept_documents_after_the_slice() {
        // Reviews of very different counts: the average after keeping 100
        // can never exceed the largest document after keeping 100.
        let docs: Vec<bson::Document> = (0..30)
            .map(|i| {
                let n = if i % 10 == 0 { 300 } else { i };
                doc! {"_id": i, "reviews": (0..n).map(|r| doc! {"stars": r % 5, "text": format!("review number {r}")}).collect::<Vec<_>>()}
            })
            .collect();
        let rep = report(&docs);
        let c = ctx(&rep);
        let reviews = c.field("reviews").expect("reviews");
        let s = subset(&c, reviews, 100, Lang::En);
        let (avg, max) = (
            f64_of(&s.effect, "avg_bytes_after"),
            f64_of(&s.effect, "max_bytes_after"),
        );
        assert!(avg <= max, "avg {avg} > max {max}: {:?}", s.effect);
        // Exactly the documents the script leaves: the last 100 reviews.
        let sizes: Vec<f64> = docs
            .iter()
            .map(|d| {
                let mut d = d.clone();
                if let Ok(a) = d.get_array_mut("reviews") {
                    let start = a.len().saturating_sub(100);
                    a.drain(..start);
                }
                bson::serialize_to_vec(&d).expect("encode").len() as f64
            })
            .collect();
        let want_max = sizes.iter().copied().fold(0.0, f64::max);
        let want_avg = (sizes.iter().sum::<f64>() / sizes.len() as f64).round();
        assert_eq!((avg, max), (want_avg, want_max));
        assert!(max < f64_of(&s.effect, "max_bytes_before"));
    }

    #[test]
    fn moving_out_measures_each_document_without_the_array() {
        let docs: Vec<bson::Document> = (0..20)
            .map(|i| doc! {"_id": i, "name": "x", "comments": (0..i).map(|k| format!("c{k}")).collect::<Vec<_>>()})
            .collect();
        let rep = report(&docs);
        let c = ctx(&rep);
        let comments = c.field("comments").expect("comments");
        let s = parent_reference(&c, comments, Lang::En);
        let smallest = bson::serialize_to_vec(&doc! {"_id": 0, "name": "x"})
            .expect("encode")
            .len() as f64;
        assert_eq!(f64_of(&s.effect, "max_bytes_after"), smallest);
        assert_eq!(f64_of(&s.effect, "avg_bytes_after"), smallest);
    }
}
