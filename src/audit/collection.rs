//! One collection on its journey through a run: the working type every
//! stage reads and adds to — the sampling its profile and kept documents,
//! the extremes pass its whole-collection figures, the growth stage its
//! growth by path, the relationship stage the references it takes part in,
//! the rules its findings. The report is built from it once, at the end
//! ([`Collection::into_report`]); what the explorer shows of a collection
//! still being judged is built the same way ([`Collection::preview`]).

use std::collections::BTreeMap;

use crate::advise::Advice;
use crate::growth;
use crate::i18n::Lang;
use crate::profile::shelf::{ProfileRef, Shelf, ShelfError, Slot};
use crate::profile::Profile;
use crate::relate::CollectionView;
use crate::report::CollectionReport;
use crate::rules::context::{measure_fields, CollectionData};
use crate::source::{CollectionMeta, Extremes, SampleOutcome};

/// A collection being audited.
#[derive(Clone, Debug)]
pub struct Collection {
    /// What the source knew before reading: name, kind, counts, storage,
    /// indexes and their use, options.
    pub meta: CollectionMeta,
    /// `db.coll`.
    pub namespace: String,
    /// Documents in the collection: exact when every document was read,
    /// otherwise the source's estimate.
    pub documents: Option<u64>,
    /// `$sample`, `find`, `reservoir` or `all`.
    pub sample_method: String,
    pub partial: Option<String>,
    /// Every document of the collection was read and profiled.
    pub complete: bool,
    /// The profile, its paths with their confidence as the rules read
    /// them ([`measure_fields`]). While the collection waits for the
    /// others, its paths and document sizes are on the run's shelf
    /// (`shelved`) and only its whole-document figures are here.
    pub profile: Profile,
    /// Where the profile's paths are on the run's shelf, once put away.
    pub shelved: Option<Slot>,
    /// The kept sample: at most the sample size (or 1,000 documents for a
    /// full read), within its share of the memory budget.
    pub kept: Vec<Vec<u8>>,
    /// Size of each kept document as read: a document over its share of
    /// the budget is kept cut (long strings shortened).
    pub kept_sizes: Vec<u64>,
    /// The largest document read, measured path by path, when it is not
    /// among the kept documents whole.
    pub largest_unkept: Option<crate::profile::extract::Weighed>,
    /// Figures measured over every document when only a sample was
    /// profiled (`scope: collection`).
    pub extremes: Option<Extremes>,
    /// How each array path grows, by path.
    pub growth: growth::ByPath,
    /// The run's relationships this collection is one end of, by their
    /// place in the run's list.
    pub relationships: Vec<usize>,
    pub findings: Vec<Advice>,
    pub notes: Vec<String>,
    /// Commands sent to the server for this collection, by command name.
    pub round_trips: Option<BTreeMap<String, u64>>,
    /// Its shape, the sorted hashes of its paths, for comparing collections.
    pub shape: Vec<u64>,
    /// A bounded sketch of the `_id`s read, for comparing collections.
    pub ids: crate::profile::ids::IdSketch,
    /// Its top-level fields, for comparing collections.
    pub top: crate::rules::context::TopFields,
}

impl Collection {
    /// What the source knew, how it sampled, and the profile, with notes
    /// in English.
    pub fn new(meta: CollectionMeta, outcome: &SampleOutcome, profile: Profile) -> Collection {
        Collection::new_in(meta, outcome, profile, Lang::En)
    }

    /// As [`Collection::new`], with notes in `lang`.
    pub(crate) fn new_in(
        meta: CollectionMeta,
        outcome: &SampleOutcome,
        mut profile: Profile,
        lang: Lang,
    ) -> Collection {
        let documents = outcome.total.or(meta.documents);
        measure_fields(&mut profile, &meta, documents);
        let mut notes = meta.notes.clone();
        if profile.invalid > 0 {
            let n = crate::fmt::group(profile.invalid);
            let why = profile.first_error.as_deref().unwrap_or("malformed BSON");
            notes.push(match (lang, profile.invalid) {
                (Lang::En, 1) => {
                    format!("{n} document could not be decoded and was skipped ({why})")
                }
                (Lang::En, _) => {
                    format!("{n} documents could not be decoded and were skipped ({why})")
                }
                (Lang::Zh, _) => format!("{n} 个文档无法解码，已跳过（{why}）"),
            });
        }
        if profile.paths_capped {
            let n = profile.dropped_values;
            notes.push(lang.pick(
                format!("more distinct paths than the profile keeps; {n} values under further paths were counted in document sizes only"),
                format!("不同路径多于分析结果所能保留的；其余路径下的 {n} 个值只计入了文档大小"),
            ));
        }
        if profile.too_deep > 0 {
            let (n, depth) = (profile.too_deep, crate::profile::MAX_WALK_DEPTH);
            notes.push(lang.pick(
                format!("{n} values nested deeper than {depth} levels were not descended into"),
                format!("{n} 个嵌套超过 {depth} 层的值没有深入读取"),
            ));
        }
        Collection {
            namespace: meta.namespace(),
            documents,
            sample_method: outcome.method.clone(),
            partial: outcome.partial.clone(),
            complete: outcome.total == Some(outcome.read)
                && outcome.partial.is_none()
                && outcome.skipped == 0
                && profile.invalid == 0,
            kept: Vec::new(),
            kept_sizes: Vec::new(),
            largest_unkept: None,
            extremes: None,
            growth: growth::ByPath::new(),
            relationships: Vec::new(),
            findings: Vec::new(),
            notes,
            round_trips: None,
            shape: crate::profile::ids::shape_of(profile.fields.iter().map(|f| f.path.as_str())),
            top: crate::rules::context::TopFields::of(&profile.fields, profile.sampled),
            ids: crate::profile::ids::IdSketch::default(),
            profile,
            shelved: None,
            meta,
        }
    }

    /// Puts the profile's paths on `shelf` until a stage needs them.
    pub(crate) fn shelve(&mut self, shelf: &Shelf) {
        if self.shelved.is_none() {
            self.shelved = Some(shelf.put(&mut self.profile));
        }
    }

    /// Brings the profile's paths back for a stage that reads them; they
    /// stay on the shelf too, and [`Collection::put_back`] lets go of them
    /// again.
    pub(crate) fn bring_back(&mut self, shelf: &Shelf) -> Result<(), ShelfError> {
        match self.shelved {
            Some(slot) if self.profile.fields.is_empty() => shelf.restore(&mut self.profile, slot),
            _ => Ok(()),
        }
    }

    /// Lets go of the paths [`Collection::bring_back`] brought back: the
    /// shelf still has them, unchanged (the stages in between read the
    /// profile and change the rest).
    pub(crate) fn put_back(&mut self) {
        if self.shelved.is_some() {
            self.profile.fields = Vec::new();
            self.profile.doc_sizes = crate::profile::sketch::LogHistogram::default();
        }
    }

    /// Takes the profile's paths back from the shelf for good: for the
    /// rules and the report.
    pub(crate) fn unshelve(&mut self, shelf: &Shelf) -> Result<(), ShelfError> {
        match self.shelved.take() {
            Some(slot) => shelf.take(&mut self.profile, slot),
            None => Ok(()),
        }
    }

    /// Size of the largest document known: over the whole collection when
    /// its extremes were measured, else the profile's.
    pub(crate) fn largest_bytes(&self) -> u64 {
        let profiled = self.profile.doc_size.max;
        self.extremes
            .as_ref()
            .and_then(Extremes::max_bytes)
            .map_or(profiled, |m| m.max(profiled))
    }

    /// What the rules read of this collection.
    pub(crate) fn data(&self) -> CollectionData<'_> {
        CollectionData {
            meta: &self.meta,
            namespace: &self.namespace,
            kind: self.meta.kind,
            documents: self.documents,
            sampled: self.profile.sampled,
            doc_size: self.profile.doc_size,
            max_depth: self.profile.max_depth,
            paths_capped: self.profile.paths_capped,
            indexes: &self.meta.indexes,
            fields: &self.profile.fields,
            kept: &self.kept,
            largest_unkept: self.largest_unkept.as_ref(),
            growth: &self.growth,
            extremes: self.extremes.as_ref(),
        }
    }

    /// What the relationship stage sees of it, its profile read back from
    /// `shelf` when a question needs its paths.
    pub(crate) fn view<'a>(&'a self, shelf: &'a Shelf) -> CollectionView<'a> {
        CollectionView {
            db: &self.meta.db,
            name: &self.meta.name,
            profile: match self.shelved {
                Some(slot) => ProfileRef::shelved(&self.profile, shelf, slot),
                None => ProfileRef::here(&self.profile),
            },
            docs: &self.kept,
            indexes: &self.meta.indexes,
            growth: &self.growth,
            documents: self.documents,
            meta: &self.meta,
            complete: self.partial.is_none() && self.documents == Some(self.kept.len() as u64),
        }
    }

    /// The report of this collection, with at most `docs` of its kept
    /// documents: what the explorer shows of it before the run ends.
    pub(crate) fn preview(&self, docs: usize) -> CollectionReport {
        let n = self.kept.len().min(docs);
        let mut c = self.clone();
        c.kept.truncate(n);
        c.into_report()
    }

    /// The report of this collection: built once, when every stage is done.
    /// Every member is named, so that a new one is a decision here.
    pub fn into_report(self) -> CollectionReport {
        let Collection {
            meta,
            namespace,
            documents,
            sample_method,
            partial,
            complete: _,
            mut profile,
            shelved: _,
            kept,
            kept_sizes: _,
            largest_unkept: _,
            extremes,
            growth,
            relationships: _,
            findings,
            notes,
            round_trips,
            shape: _,
            ids: _,
            top: _,
        } = self;
        CollectionReport {
            namespace,
            kind: meta.kind,
            documents,
            sampled: profile.sampled,
            sample_method,
            partial,
            doc_size: profile.doc_size,
            max_depth: profile.max_depth,
            storage: meta.storage.clone(),
            indexes: meta.indexes.clone(),
            options: meta.options.clone(),
            fields: std::mem::take(&mut profile.fields),
            findings,
            paths_capped: profile.paths_capped,
            notes,
            round_trips,
            extremes,
            growth,
            profile,
            kept,
            meta,
        }
    }
}
