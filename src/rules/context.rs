//! What a rule may look at: one collection's measurements, the
//! relationships that touch it, and what the sources checked for it.

use crate::profile::sketch::Summary;

use crate::profile::{FieldProfile, Profile};
pub use crate::relate::DriftCheck;
use crate::relate::Relationship;
use crate::source::{CollectionKind, CollectionMeta, Extremes, IndexInfo, IndexUsage};
use crate::workload::{Shape, Workload};

/// One profiled collection as the rules read it: what the source knew, how
/// it was sampled, and the profile's figures, borrowed from the audit's
/// working data.
#[derive(Clone, Copy, Debug)]
pub struct CollectionData<'a> {
    pub meta: &'a CollectionMeta,
    /// `db.coll`.
    pub namespace: &'a str,
    pub kind: CollectionKind,
    /// Documents in the collection: exact when every document was read,
    /// otherwise the server's estimate.
    pub documents: Option<u64>,
    /// Documents profiled.
    pub sampled: u64,
    pub doc_size: Summary,
    pub max_depth: u32,
    /// More distinct paths than the profile keeps.
    pub paths_capped: bool,
    pub indexes: &'a [IndexInfo],
    /// Every profiled path, with its confidence.
    pub fields: &'a [FieldProfile],
    /// The kept sample, as raw BSON.
    pub kept: &'a [Vec<u8>],
    /// The largest document read, measured path by path, when the kept
    /// sample does not hold it whole.
    pub largest_unkept: Option<&'a crate::profile::extract::Weighed>,
    /// How each array path grows, where measured, by path.
    pub growth: &'a crate::growth::ByPath,
    /// Figures measured over every document (largest documents, longest
    /// arrays, documents over size thresholds), when they were.
    pub extremes: Option<&'a Extremes>,
}

static NO_GROWTH: crate::growth::ByPath = std::collections::BTreeMap::new();

impl<'a> CollectionData<'a> {
    /// A collection known only by name (a workload read without its
    /// target): no document, count or index.
    pub fn unread(meta: &'a CollectionMeta, namespace: &'a str) -> CollectionData<'a> {
        CollectionData {
            meta,
            namespace,
            kind: CollectionKind::Collection,
            documents: None,
            sampled: 0,
            doc_size: Summary::default(),
            max_depth: 0,
            paths_capped: false,
            indexes: &[],
            fields: &[],
            kept: &[],
            largest_unkept: None,
            growth: &NO_GROWTH,
            extremes: None,
        }
    }
}

pub struct CollectionCtx<'a> {
    pub data: CollectionData<'a>,
    /// Relationships whose `from` or `to` is this collection.
    pub relationships: Vec<&'a Relationship>,
    pub drift: Vec<DriftCheck>,
    pub index_usage: Option<&'a [IndexUsage]>,
    /// Seconds since the epoch, for ages and forecasts.
    pub now: f64,
    /// The query shapes of this collection, with `--workload`.
    pub workload: Option<ShapesView<'a>>,
}

/// The workload's shapes of one namespace, as the rules read them.
#[derive(Clone, Debug)]
pub struct ShapesView<'a> {
    /// `(rank, shape)`: the shape's 1-based position in the report's
    /// workload (by total time), which its findings' evidence names.
    pub shapes: Vec<(usize, &'a Shape)>,
    /// Milliseconds of the whole workload, every namespace.
    pub total_ms: u64,
    /// Every shape of the workload, by total time (a rule on copies reads
    /// the updates of their source collection).
    pub all: &'a [Shape],
    /// Reads and writes the server counted per namespace since it started
    /// (`--workload profile`; empty otherwise).
    pub counts: &'a std::collections::BTreeMap<String, crate::source::OpCounts>,
    /// The shapes hold only this namespace's slow operations (a profiler
    /// at level 1): its reads are not all there.
    pub slow_only: bool,
}

impl<'a> ShapesView<'a> {
    /// The reads of this namespace the workload holds: the operations of
    /// its read shapes.
    pub(crate) fn profiled_reads(&self) -> u64 {
        self.shapes
            .iter()
            .filter(|(_, s)| super::shapes::is_read(s))
            .map(|(_, s)| s.count)
            .sum()
    }

    /// The shapes of `namespace` in `w`.
    pub(crate) fn of(w: &'a Workload, namespace: &str) -> ShapesView<'a> {
        ShapesView {
            shapes: w
                .shapes
                .iter()
                .enumerate()
                .filter(|(_, s)| s.namespace == namespace)
                .map(|(i, s)| (i + 1, s))
                .collect(),
            total_ms: w.shapes.iter().map(|s| s.ms.total).sum(),
            all: &w.shapes,
            counts: &w.counts,
            slow_only: w.slow_only(namespace),
        }
    }

    /// Reads of `namespace` as a share's denominator: those the shapes
    /// hold, or the server's count when the shapes hold only the slow
    /// ones and the server counted more (then a share is a lower bound).
    pub(crate) fn reads_of(
        &self,
        shape_reads: u64,
        namespace: &str,
    ) -> (u64, Option<&'a crate::source::OpCounts>) {
        let counted = self.counts.get(namespace);
        match counted {
            Some(c) if self.slow_only && c.reads > shape_reads => (c.reads, counted),
            _ => (shape_reads, counted),
        }
    }
}

impl CollectionCtx<'_> {
    pub(crate) fn ns(&self) -> &str {
        self.data.namespace
    }

    pub(crate) fn db(&self) -> &str {
        &self.data.meta.db
    }

    pub(crate) fn coll(&self) -> &str {
        &self.data.meta.name
    }

    pub(crate) fn sampled(&self) -> u64 {
        self.data.sampled
    }

    /// True when the figures come from a sample rather than every document.
    pub(crate) fn is_sample(&self) -> bool {
        self.scope_name(self.sampled()) == SCOPE_SAMPLE
    }

    /// Size of the largest document known: of the whole collection where
    /// its extremes were measured, else of the profiled documents.
    pub(crate) fn largest_bytes(&self) -> u64 {
        let profiled = self.data.doc_size.max;
        self.data
            .extremes
            .and_then(Extremes::max_bytes)
            .map_or(profiled, |m| m.max(profiled))
    }

    pub(crate) fn documents(&self) -> u64 {
        self.data.documents.unwrap_or(self.data.sampled)
    }

    pub(crate) fn fields(&self) -> &[FieldProfile] {
        self.data.fields
    }

    pub(crate) fn field(&self, path: &str) -> Option<&FieldProfile> {
        self.data.fields.iter().find(|f| f.path == path)
    }

    /// How the array at `path` grows, where it was measured.
    pub(crate) fn growth_of(&self, path: &str) -> Option<&crate::growth::Growth> {
        self.data.growth.get(path)
    }

    /// Direct children of a field (`a.b` for `a`, `a[]` for an array `a`).
    pub(crate) fn children_of<'b>(
        &'b self,
        f: &'b FieldProfile,
    ) -> impl Iterator<Item = &'b FieldProfile> + 'b {
        let n = f.segments.len();
        self.data
            .fields
            .iter()
            .filter(move |c| c.segments.len() == n + 1 && c.segments[..n] == f.segments[..])
    }

    /// What a figure measured on `n` documents stands for: `collection`
    /// when `n` is every document of the collection, `sample` otherwise
    /// (the contract's `scope`). The one place messages and evidence take it
    /// from.
    pub(crate) fn scope_name(&self, n: u64) -> &'static str {
        if self.data.documents.is_some_and(|d| n >= d) {
            SCOPE_COLLECTION
        } else {
            SCOPE_SAMPLE
        }
    }

    /// The documents a figure measured on `n` of them rests on.
    pub(crate) fn measured_on(&self, n: u64) -> Measured {
        Measured {
            documents: n,
            whole: self.scope_name(n) == SCOPE_COLLECTION,
        }
    }

    /// The documents the profile's figures rest on.
    pub(crate) fn measured(&self) -> Measured {
        self.measured_on(self.sampled())
    }
}

/// The documents a figure rests on: how many, and whether that is every
/// document of the collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Measured {
    pub documents: u64,
    pub whole: bool,
}

impl Measured {
    /// "in a sample of 1,000 documents" / "in all 840 documents".
    pub(crate) fn words(self, lang: crate::i18n::Lang) -> String {
        let g = crate::fmt::group(self.documents);
        if self.whole {
            lang.pick(
                format!("in all {g} documents"),
                format!("在全部 {g} 个文档中"),
            )
        } else {
            lang.pick(
                format!("in a sample of {g} documents"),
                format!("在抽样的 {g} 个文档中"),
            )
        }
    }

    /// [`Measured::words`] for a figure counted on the `kept` of these
    /// documents kept in memory, saying so when that is fewer ("in the 478
    /// documents kept of the 1,000 read"), so that it never reads as the
    /// measured documents' count.
    pub(crate) fn kept_words(self, kept: u64, lang: crate::i18n::Lang) -> String {
        if kept >= self.documents {
            return self.words(lang);
        }
        let (k, r) = (crate::fmt::group(kept), crate::fmt::group(self.documents));
        lang.pick(
            format!("in the {k} documents kept of the {r} read"),
            format!("在读取的 {r} 个文档中保留的 {k} 个里"),
        )
    }
}

/// `scope` of a figure measured on part of the collection.
pub const SCOPE_SAMPLE: &str = "sample";
/// `scope` of a figure measured on the whole collection (every document
/// read, a server-side count, or the collection's metadata).
pub const SCOPE_COLLECTION: &str = "collection";

/// What the deployment-level rules look at.
pub struct DeploymentCtx<'a> {
    /// `(database, collection names)` for every database read.
    pub databases: Vec<(&'a str, Vec<&'a str>)>,
    pub total: usize,
    /// Every collection read, in the listing's order, as far as comparing
    /// collections needs: its shape and a sketch of its `_id`s.
    pub summaries: Vec<CollectionSummary<'a>>,
}

/// One collection as the rules that compare collections see it.
#[derive(Clone, Copy, Debug)]
pub struct CollectionSummary<'a> {
    pub db: &'a str,
    pub name: &'a str,
    /// Sorted hashes of its field paths (`profile::ids::shape_of`).
    pub shape: &'a [u64],
    pub ids: &'a crate::profile::ids::IdSketch,
    /// Documents in the collection (exact when `complete`).
    pub documents: Option<u64>,
    /// Every document was read.
    pub complete: bool,
    /// Its top-level fields, by name, in the profile's order.
    pub top: &'a TopFields,
}

/// A top-level field as the rules that compare collections see it: its
/// name, its most common type, and its one value where every document
/// read holds the same string there (a collection's own label: `category:
/// "Events"` in every document of `events`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TopField<'a> {
    pub name: &'a str,
    pub main_type: Option<crate::profile::raw::BsonType>,
    pub constant: Option<&'a str>,
}

/// A collection's top-level fields, in the profile's order, held for the
/// whole run (every collection keeps them until the rules that compare
/// collections have run), so compactly: the names in one string, one byte
/// per type, and the constants, which are few.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopFields {
    /// The names, each ended by a NUL (which a BSON key cannot hold).
    names: Box<str>,
    types: Box<[Option<crate::profile::raw::BsonType>]>,
    /// Place in the list and value of each field holding one string.
    constants: Box<[(u32, Box<str>)]>,
}

impl TopFields {
    /// The top-level fields of a profile of `sampled` documents.
    pub(crate) fn of(fields: &[FieldProfile], sampled: u64) -> TopFields {
        use crate::profile::raw::BsonType;
        TopFields::from_fields(fields.iter().filter(|f| f.depth == 0).map(|f| {
            let one = f.count == sampled
                && sampled > 0
                && f.types.len() == 1
                && f.main_type() == Some(BsonType::String)
                && f.distinct.is_some_and(|d| d.exact && d.estimate == 1);
            TopField {
                name: &f.name,
                main_type: f.main_type(),
                constant: one
                    .then(|| f.examples.first().and_then(|v| v.as_str()))
                    .flatten(),
            }
        }))
    }

    /// Held from fields listed one by one.
    pub(crate) fn from_fields<'a>(fields: impl IntoIterator<Item = TopField<'a>>) -> TopFields {
        let mut names = String::new();
        let mut types = Vec::new();
        let mut constants = Vec::new();
        for (i, f) in fields.into_iter().enumerate() {
            names.push_str(f.name);
            names.push('\0');
            types.push(f.main_type);
            if let Some(c) = f.constant {
                constants.push((u32::try_from(i).unwrap_or(u32::MAX), c.into()));
            }
        }
        TopFields {
            names: names.into_boxed_str(),
            types: types.into_boxed_slice(),
            constants: constants.into_boxed_slice(),
        }
    }

    /// The fields, in the profile's order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = TopField<'_>> + '_ {
        self.names
            .split_terminator('\0')
            .zip(self.types.iter())
            .enumerate()
            .map(|(i, (name, &main_type))| TopField {
                name,
                main_type,
                constant: self
                    .constants
                    .iter()
                    .find(|(at, _)| u32::try_from(i).ok() == Some(*at))
                    .map(|(_, c)| &**c),
            })
    }

    /// The field named `name`.
    pub(crate) fn get(&self, name: &str) -> Option<TopField<'_>> {
        self.iter().find(|f| f.name == name)
    }

    /// Whether a field is named `name`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.names.split_terminator('\0').any(|n| n == name)
    }
}

/// Adds to the profile's fields what the collection knows of them: each
/// one's confidence for `profile.sampled` documents out of `documents`,
/// and uniqueness where `_id` or a single-key unique index guarantees it
/// (arrays aside: a multikey index is unique per element, not per
/// document). In place: the fields are held once.
pub(crate) fn measure_fields(profile: &mut Profile, meta: &CollectionMeta, documents: Option<u64>) {
    let sampled = profile.sampled;
    let unique: Vec<&str> = std::iter::once("_id")
        .chain(
            meta.indexes
                .iter()
                .filter(|i| i.unique && i.key.len() == 1)
                .filter_map(|i| i.key.keys().next().map(String::as_str)),
        )
        .collect();
    for f in &mut profile.fields {
        f.set_confidence(sampled, documents);
        if !f.path.contains("[]") && unique.contains(&f.path.as_str()) && f.array.is_none() {
            f.set_unique();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::raw::BsonType;

    #[test]
    fn top_fields_keep_each_name_type_and_constant_in_order() {
        let listed = [
            TopField {
                name: "_id",
                main_type: Some(BsonType::ObjectId),
                constant: None,
            },
            TopField {
                name: "category",
                main_type: Some(BsonType::String),
                constant: Some("Events"),
            },
            TopField {
                name: "",
                main_type: None,
                constant: None,
            },
            TopField {
                name: "名称",
                main_type: Some(BsonType::String),
                constant: Some(""),
            },
        ];
        let top = TopFields::from_fields(listed);
        assert_eq!(top.iter().collect::<Vec<_>>(), listed);
        assert_eq!(top.get("category").and_then(|f| f.constant), Some("Events"));
        assert!(top.contains("") && top.contains("名称") && !top.contains("cat"));
        assert_eq!(TopFields::default().iter().count(), 0);
    }
}
