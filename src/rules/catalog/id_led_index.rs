//! `id-led-index`: a compound index whose first key is `_id`. An equality
//! on `_id` finds at most one document through the unique `_id` index, so
//! the keys after `_id` narrow nothing; the index only costs a write on
//! every insert and on every update of its other fields (MongoDB's
//! documentation: the `_id` index is unique). Often it was meant to lead
//! with its second key, or the field the queries filter on (a reference
//! such as `reviews.bookId`) has no index of its own.

use serde::Serialize;

use crate::rules::{CollectionCtx, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::source::index::{present_paths, Reads};
use crate::source::IndexInfo;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "id-led-index",
    title: "Compound index led by _id",
    explanation: (
        "Every collection has a unique index on _id, so an equality on _id finds at most one document: an index that begins with _id and goes on with other keys narrows nothing further, and a query on those other keys cannot use it, because an index serves only queries on a prefix of its keys. It still costs memory and a write on every insert and on every update of its fields. Usually it was meant to lead with its second key, or the field the application looks documents up by has no index of its own. MongoDB's documentation on the _id index (unique) and on compound index prefixes.",
        "每个集合都有 _id 上的唯一索引，因此对 _id 的等值查询最多只找到一个文档：以 _id 开头、后面再跟其他键的索引不会进一步缩小范围；而只按那些其他键查询也用不上它，因为索引只服务于针对其键前缀的查询。它却仍然占用内存，并在每次插入以及更新其字段时多一次写入。通常它本来想以第二个键开头，或者应用用来查找文档的字段没有自己的索引。依据：MongoDB 文档关于 _id 索引（唯一）和复合索引前缀的说明。",
    ),
    source: "MongoDB docs (the _id index is unique; compound index prefixes)",
    check: Check::Collection(check, Basis::Metadata),
    needs: Everything,
    limits: {
    },
}

/// Whether `i` is a compound index of plain keys whose first key is `_id`.
pub fn is_id_led(i: &IndexInfo) -> bool {
    i.key.len() >= 2
        && i.is_plain()
        && !i.clustered
        && i.key.keys().next().is_some_and(|k| k == "_id")
}

/// The field to index instead of `i`, if the collection shows one: the
/// index's second key when the documents hold it and no index finds by it,
/// else a reference this collection holds (a relationship from it) that no
/// index finds by.
pub fn instead(ctx: &CollectionCtx<'_>, i: &IndexInfo) -> Option<String> {
    let present = present_paths(ctx.fields());
    let held = |f: &str| {
        Reads {
            fields: vec![f.to_owned()],
            ..Reads::default()
        }
        .found_in(&present)
    };
    let indexed = |f: &str| ctx.data.indexes.iter().any(|j| j.finds_by(f));
    let second = i.key.keys().nth(1).map(String::as_str);
    if let Some(s) = second.filter(|s| *s != "_id" && held(s) && !indexed(s)) {
        return Some(s.to_owned());
    }
    ctx.relationships
        .iter()
        .filter(|r| r.from_ns == ctx.ns())
        .map(|r| r.from_path.replace("[]", ""))
        .find(|p| p != "_id" && held(p) && !indexed(p))
}

pub fn check(ctx: &CollectionCtx<'_>, _t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let layout = ctx.data.meta.layout();
    if layout.buckets || layout.timeseries {
        return Vec::new();
    }
    let mut out = Vec::new();
    for i in ctx.data.indexes.iter().filter(|i| is_id_led(i)) {
        let better = instead(ctx, i);
        let remedy = Remedy::IdLedIndex {
            name: i.name.clone(),
            instead: better.clone(),
        };
        let evidence = IdLed {
            index: i,
            after_id: i.key.keys().skip(1).map(String::as_str).collect(),
            index_instead: better,
            threshold: FIRST_KEY,
        };
        let path = Some("_id".to_owned());
        out.push(Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What makes an index `_id`-led: the rule's test, in words.
#[derive(Serialize)]
struct Criterion {
    name: &'static str,
    value: &'static str,
}

const FIRST_KEY: Criterion = Criterion {
    name: "id-led-index.first-key",
    value: "a compound index of plain keys whose first key is _id",
};

/// A compound index led by `_id`, and the field to index instead.
#[derive(Serialize)]
struct IdLed<'a> {
    index: &'a IndexInfo,
    /// The keys after `_id`.
    after_id: Vec<&'a str>,
    index_instead: Option<String>,
    threshold: Criterion,
}

impl Evidence for IdLed<'_> {
    fn describe(&self, lang: Lang) -> String {
        let name = &self.index.name;
        let key = serde_json::Value::Object(self.index.key.clone()).to_string();
        let hint = match &self.index_instead {
            Some(f) => lang.pick(
                format!("; to find documents by {f}, index {f} itself"),
                format!("；要按 {f} 查找文档，应为 {f} 本身建立索引"),
            ),
            None => String::new(),
        };
        let (en, zh) = (self.after_id.join(", "), self.after_id.join("、"));
        lang.pick(
            format!("index {name} {key} leads with _id: an equality on _id already finds at most one document through the unique _id index, so {en} after it narrows nothing, and a query on {en} alone cannot use it{hint}"),
            format!("索引 {name} {key} 以 _id 开头：对 _id 的等值查询通过唯一的 _id 索引最多只找到一个文档，其后的 {zh} 不再缩小范围，只按 {zh} 查询也用不上它{hint}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing;
    use bson::doc;
    use serde_json::json;

    fn idx(name: &str, key: bson::Document) -> IndexInfo {
        IndexInfo::from_spec(&doc! {"name": name, "key": key}).expect("index")
    }

    fn run(docs: &[bson::Document], indexes: Vec<IndexInfo>) -> Vec<Finding> {
        let mut r = testing::report("library.reviews", docs);
        r.indexes = indexes;
        check(&testing::ctx(&r, &[]), &Thresholds::default(), Lang::En)
    }

    fn reviews() -> Vec<bson::Document> {
        (0..20)
            .map(|i| doc! {"_id": i, "bookId": format!("isbn-{}", i % 4), "text": "fine"})
            .collect()
    }

    #[test]
    fn fires_on_a_compound_index_led_by_id_and_names_the_field_to_index() {
        let f = run(
            &reviews(),
            vec![
                idx("_id_", doc! {"_id": 1}),
                idx("_id_1_bookId_1", doc! {"_id": 1, "bookId": 1}),
            ],
        );
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::Warning);
        assert_eq!(f[0].evidence["index_instead"], json!("bookId"));
        assert!(
            f[0].message.contains("index bookId itself"),
            "{}",
            f[0].message
        );
        assert!(
            matches!(&f[0].remedy, Remedy::IdLedIndex { name, instead: Some(x) } if name == "_id_1_bookId_1" && x == "bookId"),
            "{:?}",
            f[0].remedy
        );
    }

    #[test]
    fn names_no_field_when_it_is_indexed_or_absent() {
        let indexed = run(
            &reviews(),
            vec![
                idx("_id_1_bookId_1", doc! {"_id": 1, "bookId": 1}),
                idx("bookId_1", doc! {"bookId": 1}),
            ],
        );
        assert_eq!(indexed.len(), 1);
        assert_eq!(indexed[0].evidence["index_instead"], json!(null));
        let absent = run(
            &reviews(),
            vec![idx("_id_1_gone_1", doc! {"_id": 1, "gone": 1})],
        );
        assert_eq!(absent.len(), 1);
        assert_eq!(absent[0].evidence["index_instead"], json!(null));
    }

    #[test]
    fn silent_on_the_id_index_and_indexes_led_by_another_field() {
        let f = run(
            &reviews(),
            vec![
                idx("_id_", doc! {"_id": 1}),
                idx("bookId_1__id_1", doc! {"bookId": 1, "_id": 1}),
                idx("_id_hashed", doc! {"_id": "hashed"}),
                idx("_id_-1", doc! {"_id": -1}),
            ],
        );
        assert!(f.is_empty(), "{f:?}");
    }
}
