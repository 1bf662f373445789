//! What a dump says of its collections besides their documents:
//! `COLL.metadata.json` (indexes, options, the namespace type), a MongoDB
//! 3.x dump's `system.indexes.bson`, and the report's notes on collections
//! read in a way of their own (buckets with no metadata beside them, a
//! collection of which only the metadata is left, a `system.*` collection
//! named on its own).

use crate::profile::extjson::Relaxed as _;
use std::fs::File;
use std::path::Path;

use super::listing::{Entry, Holds, Legacy};
use super::{read_bson, BsonFileError};
use crate::i18n::Text;
use crate::source::files::{buckets, ejson};
use crate::source::{CollectionKind, CollectionMeta, IndexInfo};

/// Reads a MongoDB 3.x dump's `system.indexes.bson`: one document per
/// index, its collection named by `ns` (`db.coll`).
pub(super) fn read_legacy_indexes(path: &Path, db: &str, legacy: &mut Legacy) {
    let mut found: Vec<(String, IndexInfo)> = Vec::new();
    let mut unusable = 0u64;
    let read = File::open(path).map_err(BsonFileError::Read).and_then(|f| {
        read_bson(f, &mut |doc| {
            let spec = bson::Document::from_reader(doc).ok();
            let entry = spec.as_ref().and_then(|d| {
                let (_, coll) = d.get_str("ns").ok()?.split_once('.')?;
                Some((coll.to_owned(), IndexInfo::from_spec(d)?))
            });
            match entry {
                Some(e) => found.push(e),
                None => unusable += 1,
            }
        })
    });
    for (coll, index) in found {
        legacy
            .indexes
            .entry((db.to_owned(), coll))
            .or_default()
            .push(index);
    }
    let shown = path.display();
    if let Err(e) = read {
        legacy.failures.push((
            db.to_owned(),
            Text::new(
                format!("{shown} could not be read to the end ({e}); the indexes after that point are not known"),
                format!("{shown} 未能读完（{e}）；其后的索引未知"),
            ),
        ));
    }
    if unusable > 0 {
        legacy.failures.push((
            db.to_owned(),
            Text::new(
                format!("{shown}: {unusable} entries name no collection (ns), key or name and were left out"),
                format!("{shown}：{unusable} 条记录缺少集合名（ns）、键或索引名，已略过"),
            ),
        ));
    }
}

/// What `system.indexes.bson` named on the command line is: the index
/// definitions of a MongoDB 3.x dump's collections, not documents.
pub(super) fn legacy_indexes_named(path: &Path) -> String {
    let mut legacy = Legacy::default();
    read_legacy_indexes(path, "", &mut legacy);
    let mut colls: Vec<&str> = legacy.indexes.keys().map(|(_, c)| c.as_str()).collect();
    colls.sort_unstable();
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| ".".to_owned(), |p| p.display().to_string());
    let held = if colls.is_empty() {
        "no readable index definition".to_owned()
    } else {
        format!(
            "the index definitions of {} (a MongoDB 3.x dump lists every collection's indexes there)",
            colls.join(", ")
        )
    };
    format!("holds {held}, not documents; audit the directory ({dir}) to read its collections with these indexes")
}

/// A metadata file as a document (a byte-order mark is allowed).
pub(super) fn read_metadata_doc(p: &Path) -> std::result::Result<bson::Document, ()> {
    let text = std::fs::read_to_string(p).map_err(|_| ())?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let parsed = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| ejson::to_bson(v).ok());
    match parsed {
        Some(bson::Bson::Document(doc)) => Ok(doc),
        _ => Err(()),
    }
}

/// Reads `COLL.metadata.json` beside a dump's `COLL.bson` (or beside an
/// Extended JSON file), if present: indexes, options and the namespace type.
/// mongodump writes a time-series collection `NAME` as the bucket documents
/// in `system.buckets.NAME.bson` beside `NAME.metadata.json`.
pub(super) fn read_metadata(entry: &Entry, meta: &mut CollectionMeta) {
    if let Holds::Buckets(_) = entry.holds {
        meta.kind = CollectionKind::Timeseries;
    }
    let Some(p) = entry.metadata_path().filter(|p| p.exists()) else {
        return;
    };
    let Ok(doc) = read_metadata_doc(&p) else {
        meta.notes.push(format!(
            "{} is not valid Extended JSON; its indexes are ignored",
            p.display()
        ));
        return;
    };
    if let Ok(idx) = doc.get_array("indexes") {
        meta.indexes = idx
            .iter()
            .filter_map(|i| i.as_document().and_then(IndexInfo::from_spec))
            .collect();
    }
    if let Ok(opts) = doc.get_document("options") {
        if !opts.is_empty() {
            meta.options = Some(bson::Bson::Document(opts.clone()).relaxed());
        }
        if opts.contains_key("timeseries") {
            meta.kind = CollectionKind::Timeseries;
        }
    }
    match doc.get_str("type") {
        Ok("view") => meta.kind = CollectionKind::View,
        Ok("timeseries") => meta.kind = CollectionKind::Timeseries,
        _ => {}
    }
}

/// The note on buckets read with no metadata beside them.
pub(super) fn no_buckets_metadata(e: &Entry) -> Text {
    let ns = e.namespace();
    let (plain, buckets) = (
        e.sibling(".metadata.json"),
        format!("{}system.buckets.{}.metadata.json", e.prefix, e.coll),
    );
    let file = e.path.display();
    Text::new(
        format!(
            "{ns}: {file} holds the buckets of a time-series collection, and no readable {plain} or {buckets} with its options.timeseries is beside it: its time field, meta field and granularity are unknown; its measurements are read with each bucket's meta value under `{m}`",
            m = buckets::UNKNOWN_META
        ),
        format!(
            "{ns}：{file} 存放的是时间序列集合的桶，旁边没有可读的、带 options.timeseries 的 {plain} 或 {buckets}：时间字段、元字段和粒度未知；读出的测量把每个桶的 meta 值放在 `{m}` 下",
            m = buckets::UNKNOWN_META
        ),
    )
}

/// The note on a collection of which the dump holds the metadata alone.
pub(super) fn metadata_only(e: &Entry, meta: &CollectionMeta) -> Text {
    let ns = e.namespace();
    let file = e.path.display();
    if meta.kind == CollectionKind::View {
        let on = meta
            .options
            .as_ref()
            .and_then(|o| o.get("viewOn"))
            .and_then(|v| v.as_str())
            .unwrap_or("?");
        return Text::new(
            format!(
                "{ns} is a view on {on}: the dump holds its definition ({file}), not documents"
            ),
            format!("{ns} 是基于 {on} 的视图：转储里只有它的定义（{file}），没有文档"),
        );
    }
    let data = if meta.kind == CollectionKind::Timeseries {
        format!("{}system.buckets.{}.bson", e.prefix, e.coll)
    } else {
        e.sibling(".bson")
    };
    Text::new(
        format!("{ns}: its data file ({data}) is missing from the dump, only {file} is there; listed with 0 documents"),
        format!("{ns}：转储里缺少它的数据文件（{data}），只有 {file}；按 0 个文档列出"),
    )
}

/// The note on one of the server's own collections named on its own.
pub(super) fn system_named(e: &Entry) -> Text {
    let ns = e.namespace();
    Text::new(
        format!("{ns} is one of the server's own collections (system.*); it is read as documents because it was named"),
        format!("{ns} 是服务器自己的集合（system.*）；因为被直接指定，按文档读取"),
    )
}
