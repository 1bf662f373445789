//! `long-field-names`: field names taking a large share of every document
//! (seed 002: BSON stores every name in every document), when shortening
//! them would save enough to be worth a migration.
//!
//! Two things keep it from being noise:
//! - names a standard fixes are not the writer's to shorten: GeoJSON's
//!   (`type`, `coordinates`, `geometry` …, in any object shaped as GeoJSON),
//!   a `mongod` log entry's (`t`, `s`, `c`, `attr` and all below it), and
//!   whole collections whose shape the server or a driver defines (GridFS
//!   `*.files`/`*.chunks`, `system.profile`, time-series buckets);
//! - the cost is weighed absolutely: what the proposed renames save, per
//!   document and over the whole collection (bytes × documents), must be
//!   a fair share of the data and a size worth a migration.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{bytes, group, percent};
use crate::i18n::Lang;
use crate::profile::raw::{self, BsonType};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "long-field-names",
    title: "Field names take much of the document",
    explanation: (
        "BSON stores every field name in every document, so long names are paid for again in each of them — in the cache and on the wire (on disk, compression recovers much of it). The seeds suggest shorter names, or an object-document mapper that maps short stored names to readable ones in code. Names a standard fixes (GeoJSON, GridFS, the server's own documents) are left alone.",
        "BSON 在每个文档中都保存每个字段的名字，所以长字段名在每个文档里都要重复付出代价——缓存和网络传输都是如此（磁盘上压缩能挽回大部分）。种子材料建议使用较短的字段名，或者用对象-文档映射（ODM）在代码中把短的存储名映射为易读的名字。由标准规定的字段名（GeoJSON、GridFS、服务器自己的文档）不在此列。",
    ),
    source: "seeds/002 (BSON storage efficiency)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// share of document bytes taken by field names
        share: 0.3,
        /// share of the average document the proposed renames must save
        min_saved_share: 0.1,
        /// bytes the renames must save over the whole collection (64 MiB)
        min_saved_bytes: 67_108_864.0,
    },
}

/// GeoJSON's member names (RFC 7946), fixed inside a GeoJSON object.
const GEOJSON: [&str; 7] = [
    "type",
    "coordinates",
    "geometries",
    "geometry",
    "properties",
    "features",
    "bbox",
];

/// Top-level names every `mongod` structured log entry has.
const MONGOD_LOG: [&str; 5] = ["t", "s", "c", "ctx", "msg"];

/// Collections whose documents have a shape defined by the server or a
/// driver specification, not by the application.
fn standard_collection(name: &str, kind: crate::source::CollectionKind) -> bool {
    kind == crate::source::CollectionKind::Timeseries
        || name == "system.profile"
        || name.starts_with("system.buckets.")
        || matches!(name.rsplit_once('.'), Some((_, "files" | "chunks")))
}

/// Whether a document body is a GeoJSON object: a `type` string with
/// `coordinates`, `geometries`, `geometry` or `features` beside it.
fn is_geojson(body: &[u8]) -> bool {
    let Ok(it) = raw::elements(body) else {
        return false;
    };
    let (mut ty, mut member) = (false, false);
    for el in it.flatten() {
        match el.key {
            b"type" => ty = el.ty == BsonType::String,
            b"coordinates" | b"geometries" | b"features" => member = el.ty == BsonType::Array,
            b"geometry" => member = el.ty == BsonType::Object || el.ty == BsonType::Null,
            _ => {}
        }
    }
    ty && member
}

/// Whether a document is a `mongod` structured log entry.
fn is_log_entry(doc: &[u8]) -> bool {
    let Ok(it) = raw::elements(doc) else {
        return false;
    };
    let keys: Vec<&[u8]> = it.flatten().map(|e| e.key).collect();
    MONGOD_LOG.iter().all(|k| keys.contains(&k.as_bytes()))
}

/// Bytes of names in one document.
#[derive(Default)]
struct Names {
    /// Every name (with its terminating zero).
    all: u64,
    /// Top-level names the application chose, by name: what a rename
    /// migration can shorten.
    top: BTreeMap<String, u64>,
}

/// Adds the names of a document or array body; `fixed` when a standard
/// chose them, `depth` 0 for the document itself.
fn walk(body: &[u8], in_array: bool, fixed: bool, depth: u32, out: &mut Names) {
    let Ok(it) = raw::elements(body) else { return };
    let geo = !in_array && is_geojson(body);
    for el in it.flatten() {
        let n = el.key.len() as u64 + 1;
        out.all += n;
        let name = String::from_utf8_lossy(el.key);
        let standard = fixed || (geo && GEOJSON.contains(&name.as_ref()));
        if depth == 0 && !in_array && !standard {
            *out.top.entry(name.into_owned()).or_default() += 1;
        }
        if el.ty.is_container() {
            // GeoJSON's `properties` hold the application's own names.
            let below = fixed || (standard && el.key != b"properties");
            walk(el.value, el.ty == BsonType::Array, below, depth + 1, out);
        }
    }
}

/// The names of one document: a log entry's are all the server's.
fn names_of(doc: &[u8], out: &mut Names) {
    walk(doc, false, is_log_entry(doc), 0, out);
}

/// `customer_email_address` → `cea`, `shippingAddress` → `sa`.
fn abbreviate(name: &str) -> String {
    let mut out = String::new();
    let mut boundary = true;
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' {
            boundary = true;
            continue;
        }
        if boundary || c.is_uppercase() {
            out.extend(c.to_lowercase());
        }
        boundary = false;
    }
    if out.len() < 2 {
        name.chars().take(3).collect()
    } else {
        out
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let limit = t.long_field_names.share;
    let min_saved_share = t.long_field_names.min_saved_share;
    let min_saved_bytes = t.long_field_names.min_saved_bytes;
    let docs = ctx.data.kept;
    if docs.is_empty() || standard_collection(ctx.coll(), ctx.data.kind) {
        return Vec::new();
    }
    let mut names = Names::default();
    for d in docs {
        names_of(d, &mut names);
    }
    let total: u64 = docs.iter().map(|d| d.len() as u64).sum();
    let share = names.all as f64 / total.max(1) as f64;
    if share < limit {
        return Vec::new();
    }
    let n = docs.len() as f64;
    // Long names the application chose, the heaviest first, each with the
    // bytes its rename saves per document.
    let mut taken: Vec<String> = Vec::new();
    let mut candidates: Vec<(String, u64)> = names
        .top
        .into_iter()
        .filter(|(name, _)| name.chars().count() > 8 && !crate::rules::dynamic_keys::data_like(name))
        .collect();
    candidates.sort_by_key(|(name, count)| std::cmp::Reverse(name.len() as u64 * count));
    candidates.truncate(5);
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut saved = 0.0;
    for (name, count) in &candidates {
        let mut short = abbreviate(name);
        while taken.contains(&short) || ctx.field(&short).is_some() {
            short.push('_');
        }
        taken.push(short.clone());
        saved += (name.len() - short.len()) as f64 * *count as f64 / n;
        renames.push((name.clone(), short));
    }
    let avg_doc = total as f64 / n;
    let saved_share = saved / avg_doc.max(1.0);
    let saved_total = saved * ctx.documents() as f64;
    if renames.is_empty() || saved_share < min_saved_share || saved_total < min_saved_bytes {
        // Nothing the application can shorten, or too little to be worth
        // a migration.
        return Vec::new();
    }
    let evidence = LongNames {
        name_bytes_share: share,
        name_bytes_per_document: names.all as f64 / n,
        avg_document_bytes: avg_doc,
        saved_bytes_per_document: saved,
        saved_share,
        saved_bytes_collection: saved_total,
        documents: ctx.documents(),
        sampled: docs.len() as u64,
        threshold: Crossed::of(t, Key::share),
        shortened: candidates.iter().map(|x| x.0.as_str()).collect(),
        measured: ctx.measured_on(docs.len() as u64),
    };
    let remedy = Remedy::Rename { renames };
    vec![Finding::new(RULE, Severity::Info, ctx.ns(), None, &evidence, lang, remedy)]
}

/// What `long-field-names` measured of the names, and what the proposed
/// renames save.
#[derive(Serialize)]
struct LongNames<'a> {
    name_bytes_share: f64,
    name_bytes_per_document: f64,
    avg_document_bytes: f64,
    saved_bytes_per_document: f64,
    saved_share: f64,
    saved_bytes_collection: f64,
    documents: u64,
    sampled: u64,
    threshold: Crossed,
    /// The names proposed for renaming, the heaviest first.
    #[serde(skip)]
    shortened: Vec<&'a str>,
    #[serde(skip)]
    measured: Measured,
}

impl Evidence for LongNames<'_> {
    fn describe(&self, lang: Lang) -> String {
        let scope = self.measured.words(lang);
        let (share, names, doc) = (
            percent(self.name_bytes_share),
            self.name_bytes_per_document,
            self.avg_document_bytes,
        );
        let (saved, total) = (
            bytes(self.saved_bytes_per_document),
            bytes(self.saved_bytes_collection),
        );
        let documents = group(self.documents);
        lang.pick(
            format!("field names take {share} of the bytes ({names:.0} of {doc:.0} bytes per document) {scope}; shortening {} would save about {saved} per document, {total} over {documents} documents", self.shortened.join(", ")),
            format!("{scope}字段名占了 {share} 的字节（每个文档 {doc:.0} 字节中的 {names:.0} 字节）；缩短 {} 每个文档约可节省 {saved}，{documents} 个文档共约 {total}", self.shortened.join("、")),
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn abbreviations() {
        assert_eq!(super::abbreviate("customer_email_address"), "cea");
        assert_eq!(super::abbreviate("shippingAddress"), "sa");
        assert_eq!(super::abbreviate("x"), "x");
    }
}
