//! Indexes as `listIndexes` (or a dump's `*.metadata.json`) describes them,
//! and what each kind of index means: which document fields it reads,
//! what "no document has its field" can and cannot say about it, and when
//! one index makes another redundant. Pure: the rules ask, this answers.

use crate::profile::extjson::Relaxed as _;
use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::{Map, Value};

use super::{bson_as_i64, CollectionMeta, IndexUsage, Layout};
use crate::i18n::Lang;
use crate::profile::{query_path, FieldProfile};

/// One index as `listIndexes` (or a dump's metadata) describes it.
#[derive(Clone, Debug, Serialize, PartialEq)]
// The server's own index options, flag for flag.
#[allow(clippy::struct_excessive_bools)]
pub struct IndexInfo {
    pub name: String,
    /// The key document, in order: `{"a": 1, "b": -1}`.
    pub key: Map<String, Value>,
    /// What kind of index it is (`single`, `compound`, `text`, `ttl` …),
    /// from its key and options.
    #[serde(rename = "kind")]
    pub kinds: Vec<IndexKind>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unique: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sparse: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expire_after_seconds: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collation: Option<Value>,
    /// Invisible to the query planner (still maintained, still enforcing
    /// uniqueness, still expiring documents).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
    /// The `_id` index of a clustered collection: the collection's order.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub clustered: bool,
    /// Text indexes: the fields searched, with their weights.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weights: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language_override: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_index_version: Option<i64>,
    #[serde(
        rename = "2dsphere_index_version",
        skip_serializing_if = "Option::is_none"
    )]
    pub sphere_index_version: Option<i64>,
    /// Wildcard indexes: the paths included (`1`) or excluded (`0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wildcard_projection: Option<Map<String, Value>>,
}

/// The kinds an index can be, several at once (`["compound", "unique"]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IndexKind {
    /// The `_id` index every collection has.
    Id,
    /// One ascending or descending field.
    Single,
    /// Several key parts.
    Compound,
    Text,
    #[serde(rename = "geo-2dsphere")]
    Geo2dsphere,
    #[serde(rename = "geo-2d")]
    Geo2d,
    GeoHaystack,
    Hashed,
    Wildcard,
    Unique,
    Sparse,
    Partial,
    Ttl,
    Collation,
    Hidden,
    Clustered,
    /// A key type docshape does not know.
    Unknown,
}

/// What one part of an index key is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPart {
    Ascending,
    Descending,
    /// A text index's `_fts` part (or a field given as `"text"`).
    Text,
    /// A text index's `_ftsx` part: term positions, no field of its own.
    TextTerms,
    Sphere,
    Flat,
    Haystack,
    Hashed,
    /// `$**` or `path.$**`.
    Wildcard,
    Unknown,
}

impl KeyPart {
    pub(crate) fn of(field: &str, v: &Value) -> KeyPart {
        if field == "$**" || field.ends_with(".$**") {
            return if v.as_str() == Some("text") {
                KeyPart::Text
            } else {
                KeyPart::Wildcard
            };
        }
        match v {
            Value::String(s) => match s.as_str() {
                "text" => KeyPart::Text,
                "2dsphere" => KeyPart::Sphere,
                "2d" => KeyPart::Flat,
                "geoHaystack" => KeyPart::Haystack,
                "hashed" => KeyPart::Hashed,
                _ => KeyPart::Unknown,
            },
            _ if field == "_ftsx" => KeyPart::TextTerms,
            _ => match direction(v) {
                Some(d) if d > 0.0 => KeyPart::Ascending,
                Some(d) if d < 0.0 => KeyPart::Descending,
                _ => KeyPart::Unknown,
            },
        }
    }

    fn is_plain(self) -> bool {
        matches!(self, KeyPart::Ascending | KeyPart::Descending)
    }

    fn is_geo(self) -> bool {
        matches!(self, KeyPart::Sphere | KeyPart::Flat | KeyPart::Haystack)
    }
}

/// A numeric key value (`1`, `-1`, `1.0`, `{"$numberLong": "1"}` …).
fn direction(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Bool(true) => Some(1.0),
        Value::Object(o) => o
            .values()
            .next()
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok()),
        _ => None,
    }
}

/// `true`, or a non-zero number (old tools wrote `"unique": 1`).
fn flag(spec: &bson::Document, key: &str) -> bool {
    match spec.get(key) {
        Some(bson::Bson::Boolean(b)) => *b,
        Some(other) => bson_as_i64(other).is_some_and(|n| n != 0),
        None => false,
    }
}

fn object(spec: &bson::Document, key: &str) -> Option<Map<String, Value>> {
    match spec.get(key)?.clone().relaxed() {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

impl IndexInfo {
    /// Builds an index description from a `listIndexes` document (the same
    /// shape a dump's `*.metadata.json` holds under `indexes`).
    pub(crate) fn from_spec(spec: &bson::Document) -> Option<IndexInfo> {
        let name = spec.get_str("name").ok()?.to_owned();
        let Value::Object(key) =
            bson::Bson::Document(spec.get_document("key").ok()?.clone()).relaxed()
        else {
            return None;
        };
        let ext = |k: &str| spec.get(k).map(|v| v.clone().relaxed());
        let text = |k: &str| spec.get_str(k).ok().map(str::to_owned);
        let mut i = IndexInfo {
            name,
            key,
            kinds: Vec::new(),
            unique: flag(spec, "unique"),
            sparse: flag(spec, "sparse"),
            partial: ext("partialFilterExpression"),
            expire_after_seconds: spec.get("expireAfterSeconds").and_then(bson_as_i64),
            collation: ext("collation"),
            hidden: flag(spec, "hidden"),
            clustered: flag(spec, "clustered"),
            weights: object(spec, "weights"),
            default_language: text("default_language"),
            language_override: text("language_override"),
            text_index_version: spec.get("textIndexVersion").and_then(bson_as_i64),
            sphere_index_version: spec.get("2dsphereIndexVersion").and_then(bson_as_i64),
            wildcard_projection: object(spec, "wildcardProjection"),
        };
        i.kinds = i.classify();
        Some(i)
    }

    /// Each key part with what it is.
    pub(crate) fn parts(&self) -> impl Iterator<Item = (&str, KeyPart)> + '_ {
        self.key
            .iter()
            .map(|(k, v)| (k.as_str(), KeyPart::of(k, v)))
    }

    fn has(&self, part: KeyPart) -> bool {
        self.parts().any(|(_, p)| p == part)
    }

    pub(crate) fn is(&self, kind: IndexKind) -> bool {
        self.kinds.contains(&kind)
    }

    fn classify(&self) -> Vec<IndexKind> {
        let mut k = Vec::new();
        if self.name == "_id_" {
            k.push(IndexKind::Id);
        }
        // A text index's `_fts`/`_ftsx` pair (or its several "text"
        // fields) is one part of the key.
        let text_parts = self
            .parts()
            .filter(|(_, p)| matches!(p, KeyPart::Text | KeyPart::TextTerms))
            .count();
        let parts = self.key.len() - text_parts + usize::from(text_parts > 0);
        if parts > 1 {
            k.push(IndexKind::Compound);
        } else if self.parts().all(|(_, p)| p.is_plain()) {
            k.push(IndexKind::Single);
        }
        for (part, kind) in [
            (KeyPart::Text, IndexKind::Text),
            (KeyPart::Sphere, IndexKind::Geo2dsphere),
            (KeyPart::Flat, IndexKind::Geo2d),
            (KeyPart::Haystack, IndexKind::GeoHaystack),
            (KeyPart::Hashed, IndexKind::Hashed),
            (KeyPart::Wildcard, IndexKind::Wildcard),
        ] {
            if self.has(part) {
                k.push(kind);
            }
        }
        for (on, kind) in [
            (self.unique, IndexKind::Unique),
            (self.sparse, IndexKind::Sparse),
            (self.partial.is_some(), IndexKind::Partial),
            (self.expire_after_seconds.is_some(), IndexKind::Ttl),
            (self.collation.is_some(), IndexKind::Collation),
            (self.hidden, IndexKind::Hidden),
            (self.clustered, IndexKind::Clustered),
            (self.has(KeyPart::Unknown), IndexKind::Unknown),
        ] {
            if on {
                k.push(kind);
            }
        }
        k
    }

    /// Only ascending and descending fields: the indexes whose prefixes
    /// serve the same queries.
    pub(crate) fn is_plain(&self) -> bool {
        !self.key.is_empty() && self.parts().all(|(_, p)| p.is_plain())
    }

    /// The document fields the index reads.
    pub(crate) fn reads(&self) -> Reads {
        let mut r = Reads::default();
        for (field, part) in self.parts() {
            match part {
                KeyPart::TextTerms => {}
                KeyPart::Text => match &self.weights {
                    Some(w) if !w.is_empty() => {
                        for f in w.keys() {
                            if f == "$**" {
                                r.everything = true;
                            } else {
                                r.fields.push(f.clone());
                            }
                        }
                    }
                    // `{title: "text"}` as createIndex takes it.
                    _ if field == "$**" => r.everything = true,
                    _ if field != "_fts" => r.fields.push(field.to_owned()),
                    _ => {}
                },
                KeyPart::Wildcard => self.wildcard_reads(field, &mut r),
                _ => r.fields.push(field.to_owned()),
            }
        }
        if r.everything && !r.except.iter().any(|e| e == "_id") && !self.includes_id() {
            r.except.push("_id".into());
        }
        r.fields.dedup();
        r
    }

    fn includes_id(&self) -> bool {
        self.wildcard_projection
            .as_ref()
            .and_then(|p| p.get("_id"))
            .and_then(direction)
            .is_some_and(|d| d != 0.0)
    }

    fn wildcard_reads(&self, field: &str, r: &mut Reads) {
        if let Some(prefix) = field.strip_suffix(".$**") {
            r.subtrees.push(prefix.to_owned());
            return;
        }
        let projection: Vec<(&String, bool)> = self
            .wildcard_projection
            .iter()
            .flatten()
            .map(|(k, v)| (k, direction(v).is_some_and(|d| d != 0.0)))
            .collect();
        let includes: Vec<&String> = projection
            .iter()
            .filter(|(k, on)| *on && *k != "_id")
            .map(|(k, _)| *k)
            .collect();
        if includes.is_empty() {
            r.everything = true;
            r.except.extend(
                projection
                    .iter()
                    .filter(|(_, on)| !on)
                    .map(|(k, _)| (*k).clone()),
            );
        } else {
            r.subtrees.extend(includes.into_iter().cloned());
            if self.includes_id() {
                r.subtrees.push("_id".into());
            }
        }
    }

    /// The document paths the index reads, for people and for queries: the
    /// key's fields; a text index's weighted fields; a wildcard index's
    /// prefix or projected paths; `$**` when it reads every field.
    pub(crate) fn fields_read(&self) -> Vec<String> {
        self.reads().listed()
    }

    /// What "no document has any field it reads" would mean.
    pub fn if_absent(&self, layout: &Layout) -> IfAbsent {
        use Caveat as C;
        let caveat = if self.is(IndexKind::Id) {
            Some(C::Id)
        } else if self.clustered {
            Some(C::Clustered)
        } else if layout.buckets {
            Some(C::Buckets)
        } else if layout.timeseries {
            Some(C::Timeseries)
        } else if self.expire_after_seconds.is_some() {
            return IfAbsent::NothingExpires;
        } else if self.is(IndexKind::Text) {
            Some(C::Text)
        } else if self.is(IndexKind::Wildcard) {
            Some(C::Wildcard)
        } else if self.parts().any(|(_, p)| p.is_geo()) {
            Some(C::Geo)
        } else if self.is(IndexKind::Hashed) {
            Some(C::Hashed)
        } else if self.hidden {
            Some(C::Hidden)
        } else if self.unique {
            Some(C::Unique)
        } else if self.partial.is_some() {
            Some(C::Partial)
        } else if self.is(IndexKind::Unknown) {
            Some(C::Unknown)
        } else {
            None
        };
        caveat.map_or(IfAbsent::IndexesNothing, IfAbsent::NoEvidence)
    }

    /// Whether `$indexStats` counting no operation says the index serves
    /// nothing. It does not for indexes whose work it does not count: TTL
    /// deletions, shard-key routing and chunk migrations (hashed indexes
    /// usually back a shard key), uniqueness checks, a clustered
    /// collection's order.
    pub(crate) fn idle_means_unused(&self) -> bool {
        !(self.is(IndexKind::Id)
            || self.clustered
            || self.unique
            || self.expire_after_seconds.is_some()
            || self.is(IndexKind::Hashed))
    }

    /// Whether `other` serves every query this index serves, so that this
    /// one is pure cost: both plain (ascending/descending fields only), this
    /// key a proper prefix of `other`'s with the same directions, the same
    /// collation; this one neither `_id`, unique, sparse, partial, TTL nor
    /// clustered (each of those does something a longer index does not);
    /// `other` visible to the planner and covering every document (neither
    /// hidden, sparse nor partial). A hidden index covered by a visible one
    /// is redundant too.
    pub(crate) fn covered_by(&self, other: &IndexInfo) -> bool {
        let special = self.is(IndexKind::Id)
            || self.unique
            || self.sparse
            || self.partial.is_some()
            || self.expire_after_seconds.is_some()
            || self.clustered;
        !special
            && self.name != other.name
            && self.is_plain()
            && other.is_plain()
            && self.collation == other.collation
            && !other.hidden
            && !other.sparse
            && other.partial.is_none()
            && self.key.len() < other.key.len()
            && self
                .key
                .iter()
                .zip(other.key.iter())
                .all(|((ka, va), (kb, vb))| ka == kb && KeyPart::of(ka, va) == KeyPart::of(kb, vb))
    }

    /// Whether the planner can use this index to find documents by equality
    /// on the dotted `field` (a reference lookup): a visible index that
    /// starts with it (ascending, descending or hashed, and not made sparse
    /// by a text or geo part), or a wildcard index that covers it.
    pub(crate) fn finds_by(&self, field: &str) -> bool {
        if self.hidden {
            return false;
        }
        let Some((first, part)) = self.parts().next() else {
            return false;
        };
        match part {
            KeyPart::Ascending | KeyPart::Descending | KeyPart::Hashed => {
                first == field
                    && !self
                        .parts()
                        .any(|(_, p)| p.is_geo() || matches!(p, KeyPart::Text))
            }
            KeyPart::Wildcard => {
                let r = self.reads();
                let present = BTreeSet::from([field.to_owned()]);
                r.fields.is_empty() && r.found_in(&present)
            }
            _ => false,
        }
    }
}

/// The document fields an index reads.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Fields read as they are (plain, hashed, geo keys; text fields).
    pub fields: Vec<String>,
    /// Sub-trees read whole: the field and everything under it (`a.$**`,
    /// a wildcard projection's included paths).
    pub subtrees: Vec<String>,
    /// Every field (`$**`, or a text index over every string field) …
    pub everything: bool,
    /// … except these sub-trees.
    pub except: Vec<String>,
}

/// `a.0.b` as the profile names it (`a.b`): array positions are implicit.
fn without_positions(path: &str) -> String {
    path.split('.')
        .filter(|s| s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(".")
}

fn at_or_under(path: &str, root: &str) -> bool {
    path == root
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('.'))
}

impl Reads {
    /// Whether any of `present` (dotted paths, as a query names them) is a
    /// field this index reads.
    pub(crate) fn found_in(&self, present: &BTreeSet<String>) -> bool {
        let field = |f: &String| present.contains(f) || present.contains(&without_positions(f));
        let subtree = |s: &String| {
            let bare = without_positions(s);
            present
                .iter()
                .any(|p| at_or_under(p, s) || at_or_under(p, &bare))
        };
        self.fields.iter().any(field)
            || self.subtrees.iter().any(subtree)
            || (self.everything
                && present
                    .iter()
                    .any(|p| !self.except.iter().any(|e| at_or_under(p, e))))
    }

    /// Fields, then sub-tree roots, then `$**` for "every field".
    pub(crate) fn listed(&self) -> Vec<String> {
        let mut out: Vec<String> = self.fields.clone();
        out.extend(self.subtrees.iter().cloned());
        if self.everything {
            out.push("$**".into());
        }
        out
    }
}

/// The dotted paths (as queries and indexes name them) of the profiled
/// fields: `items[].sku` is `items.sku`.
pub(crate) fn present_paths(fields: &[FieldProfile]) -> BTreeSet<String> {
    fields.iter().map(|f| query_path(&f.segments)).collect()
}

/// What it would mean that no document has any field an index reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IfAbsent {
    /// The index holds no document worth finding: it only costs.
    IndexesNothing,
    /// A TTL index: no document ever expires (its own news, not a reason
    /// to drop).
    NothingExpires,
    /// Absence is no evidence against this index, for this reason.
    NoEvidence(Caveat),
}

/// Why an absent field says nothing about an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Caveat {
    Id,
    Clustered,
    Buckets,
    Timeseries,
    Text,
    Wildcard,
    Geo,
    Hashed,
    Hidden,
    Unique,
    Partial,
    Unknown,
}

impl Caveat {
    /// One clause saying why.
    pub fn reason(self, lang: Lang) -> &'static str {
        match self {
            Caveat::Id => lang.pick(
                "every collection has its _id index, and it cannot be dropped",
                "每个集合都有 _id 索引，且不能删除",
            ),
            Caveat::Clustered => lang.pick(
                "a clustered collection stores its documents in the order of this index",
                "聚簇集合按这个索引的顺序存放文档",
            ),
            Caveat::Buckets => lang.pick(
                "a time-series bucket collection's indexes are on bucket fields the server maintains",
                "时间序列桶集合的索引建在服务器维护的桶字段上",
            ),
            Caveat::Timeseries => lang.pick(
                "a time-series collection's indexes live on its buckets, not on the documents as sampled",
                "时间序列集合的索引建在它的桶上，而不是抽样看到的文档上",
            ),
            Caveat::Text => lang.pick(
                "a text index reads the fields named in its weights, not a field called _fts",
                "文本索引读取的是 weights 中列出的字段，而不是名为 _fts 的字段",
            ),
            Caveat::Wildcard => lang.pick(
                "a wildcard index covers whatever fields appear under its path, including ones not written yet",
                "通配符索引覆盖其路径下出现的任何字段，包括尚未写入的字段",
            ),
            Caveat::Geo => lang.pick(
                "a geospatial index skips documents without coordinates by design",
                "地理空间索引按设计会跳过没有坐标的文档",
            ),
            Caveat::Hashed => lang.pick(
                "a hashed index usually backs a shard key, which needs it whatever the documents hold",
                "哈希索引通常支撑着分片键，无论文档内容如何都需要它",
            ),
            Caveat::Hidden => lang.pick(
                "a hidden index already serves no query; it is kept to be unhidden or dropped deliberately",
                "隐藏索引本来就不服务任何查询；保留它是为了之后有意地取消隐藏或删除",
            ),
            Caveat::Unique => lang.pick(
                "a unique index enforces a constraint; dropping it lets duplicates in",
                "唯一索引强制一个约束；删除它会让重复值进入",
            ),
            Caveat::Partial => lang.pick(
                "a partial index covers only the documents matching its filter, by design",
                "部分索引按设计只覆盖满足其过滤条件的文档",
            ),
            Caveat::Unknown => lang.pick(
                "docshape does not know this kind of index",
                "docshape 不认识这种索引",
            ),
        }
    }
}

/// How the collection (not only the sample) was checked for a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckMethod {
    /// One bounded `find({path: {$ne: null}}).limit(1)` on the server.
    ServerQuery,
    /// A scan of every document of the file.
    FileScan,
    /// Every document of the collection was profiled.
    EveryDocument,
}

/// Whether any document of the collection holds a value (not null) in one
/// of `paths`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PresenceCheck {
    pub paths: Vec<String>,
    pub found: bool,
    pub method: CheckMethod,
}

impl PresenceCheck {
    /// One query per key prefix, each answerable from the index itself:
    /// `{a: {$ne: null}}`, `{a: null, b: {$ne: null}}` … Together they find
    /// a document with a value in any of `paths` (in key order) by index
    /// bounds alone, even where no document has one (`$exists` would read
    /// every entry of a non-sparse index).
    pub(crate) fn branches(paths: &[String]) -> Vec<bson::Document> {
        (0..paths.len())
            .map(|i| {
                let mut d = bson::Document::new();
                for p in &paths[..i] {
                    d.insert(p.as_str(), bson::Bson::Null);
                }
                d.insert(paths[i].as_str(), bson::doc! {"$ne": null});
                d
            })
            .collect()
    }

    /// The query a server answers for this check: does any document hold a
    /// value (not null) in one of `paths`?
    pub(crate) fn filter(paths: &[String]) -> bson::Document {
        let mut b = Self::branches(paths);
        if b.len() == 1 {
            b.pop().unwrap_or_default()
        } else {
            bson::doc! {"$or": b}
        }
    }

    /// How the check was made, as a clause: "checked on the server with …".
    pub(crate) fn describe(&self, lang: Lang) -> String {
        match self.method {
            CheckMethod::ServerQuery => {
                let q = bson::Bson::Document(Self::filter(&self.paths))
                    .relaxed()
                    .to_string();
                lang.pick(
                    format!("checked on the server with find({q}).limit(1)"),
                    format!("已在服务器上用 find({q}).limit(1) 核实"),
                )
            }
            CheckMethod::FileScan => lang.pick(
                "checked by a scan of every document of the file".to_owned(),
                "已扫描文件中的全部文档核实".to_owned(),
            ),
            CheckMethod::EveryDocument => lang.pick(
                "every document of the collection was profiled".to_owned(),
                "集合中的每个文档都已分析".to_owned(),
            ),
        }
    }
}

/// `unused-index`'s question about one index — does the absence of its
/// fields say it serves nothing? — answered from the index's kind, the
/// collection's layout, the sample, `$indexStats` and the checks made
/// beyond the sample.
#[derive(Clone, Debug, PartialEq)]
pub enum Absence {
    /// Nothing was sampled: nothing to judge by.
    NothingSampled,
    /// `$indexStats` counted operations: it is used, however rare its field.
    Used { ops: u64 },
    /// A sampled document has a field it reads.
    InSample,
    /// Absence is no evidence against this kind of index.
    NoEvidence(Caveat),
    /// No sampled document has its fields, but the collection does.
    BeyondSample(PresenceCheck),
    /// No sampled document has its fields; the collection was not checked
    /// (yet, or the check failed): no verdict.
    Unconfirmed(IfAbsent),
    /// No document of the collection has any field it reads.
    Absent {
        effect: IfAbsent,
        check: PresenceCheck,
    },
}

/// Judges one index of `meta`'s collection: `present` holds the sampled
/// paths ([`present_paths`]), `usage` its `$indexStats` row.
pub(crate) fn absence(
    index: &IndexInfo,
    meta: &CollectionMeta,
    present: &BTreeSet<String>,
    sampled: u64,
    usage: Option<&IndexUsage>,
) -> Absence {
    if sampled == 0 {
        return Absence::NothingSampled;
    }
    if let Some(u) = usage.filter(|u| u.ops > 0) {
        return Absence::Used { ops: u.ops };
    }
    let reads = index.reads();
    if reads.found_in(present) {
        return Absence::InSample;
    }
    let effect = match index.if_absent(&meta.layout()) {
        IfAbsent::NoEvidence(c) => return Absence::NoEvidence(c),
        e => e,
    };
    let paths = reads.listed();
    match meta.presence_checks.iter().find(|c| c.paths == paths) {
        Some(c) if c.found => Absence::BeyondSample(c.clone()),
        Some(c) => Absence::Absent {
            effect,
            check: c.clone(),
        },
        None => Absence::Unconfirmed(effect),
    }
}

#[cfg(test)]
mod tests;
