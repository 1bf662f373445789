//! Suggestions that move data out of a document into a collection of its
//! own: an array's elements, each referencing its parent; all but the
//! newest elements; a large or deeply nested path; an array of child ids
//! turned into a reference each child holds.

use crate::profile::extjson::Relaxed as _;

use serde_json::json;

use super::effect::{size_effect, size_effect_by, AtPath};
use super::{
    child_collection, display_doc, examples, inside_array, pick_doc, plan, scripts, singular,
    strip_path, Suggestion,
};
use crate::i18n::Lang;
use crate::profile::{query_path, FieldProfile, Seg};
use crate::rules::CollectionCtx;

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

#[cfg(test)]
#[allow(clippy::float_cmp)] // byte counts: whole numbers held in f64
mod tests {
    use super::*;
    use crate::rules::testing;
    use bson::doc;
    use serde_json::{Map, Value};

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
