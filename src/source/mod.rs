//! Where documents come from. Every source lists the collections it holds
//! (with what metadata it knows) and streams a sample of raw BSON documents
//! to a sink; the profile never knows which source it is fed by.
//!
//! A source is three capabilities, each a trait: [`Documents`] (what the
//! reading stage asks), [`Probes`] (what the relationship, index and growth
//! stages ask of particular values) and [`Insight`] (what a server says of
//! its workload); [`Source`] is all three. The sources are grouped by kind:
//! [`server`], [`files`], and the [`query`] language a user browses either
//! with.

pub mod extremes;
pub mod files;
pub mod gridfs;
pub mod index;
pub mod opened;
pub mod query;
pub mod sample;
pub mod select;
pub mod server;
pub mod value;

use serde::Serialize;

pub use extremes::{Extremes, ExtremesAsk, ExtremesOutcome};
pub use files::FileSource;
pub use index::{CheckMethod, IndexInfo, IndexKind, PresenceCheck};
pub use opened::Opened;
pub use query::{Browse, Explain, Query, QueryText, Stop};
pub use select::Selection;
pub use server::{MongoSource, OpCounts, ProfilerDb};

/// Errors a source reports. Each renders as one sentence for the user.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot reach the server at {target}: {reason}")]
    Unreachable { target: String, reason: String },
    #[error("authentication failed for {target}: {reason}")]
    Auth { target: String, reason: String },
    #[error("invalid connection string: {0}")]
    BadUri(String),
    #[error("timed out after {secs} s while {what}")]
    Timeout { secs: u64, what: String },
    #[error("server error while {what}: {reason}")]
    Server { what: String, reason: String },
    #[error("cannot read {path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{path}: {reason}")]
    Malformed { path: String, reason: String },
    #[error("{0}")]
    NotFound(String),
}

impl SourceError {
    /// Errors that end the run wherever they happen, with no report: the
    /// server is gone or refuses us. A collection that cannot be read is
    /// not one of them while others can.
    pub fn is_gone(&self) -> bool {
        matches!(
            self,
            SourceError::Unreachable { .. } | SourceError::Auth { .. } | SourceError::BadUri(_)
        )
    }

    /// Errors that end the run: the server is gone or refuses us, or an
    /// input file cannot be read (the contract's exit code 2). Anything
    /// else is noted and the run goes on.
    pub(crate) fn is_fatal(&self) -> bool {
        matches!(
            self,
            SourceError::Unreachable { .. }
                | SourceError::Auth { .. }
                | SourceError::BadUri(_)
                | SourceError::Malformed { .. }
                | SourceError::Io { .. }
        )
    }
}

pub type Result<T> = std::result::Result<T, SourceError>;

/// What kind of namespace a collection is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CollectionKind {
    Collection,
    View,
    Timeseries,
    /// The files of a GridFS bucket (`B.files`).
    #[serde(rename = "gridfs-files")]
    GridfsFiles,
    /// The chunks of a GridFS bucket (`B.chunks`).
    #[serde(rename = "gridfs-chunks")]
    GridfsChunks,
}

impl CollectionKind {
    /// A GridFS bucket's part: reported as GridFS, not judged by the rules.
    pub(crate) fn is_gridfs(self) -> bool {
        matches!(
            self,
            CollectionKind::GridfsFiles | CollectionKind::GridfsChunks
        )
    }
}

/// Reads any numeric BSON value as an `i64`.
pub fn bson_as_i64(v: &bson::Bson) -> Option<i64> {
    match v {
        bson::Bson::Int32(x) => Some(i64::from(*x)),
        bson::Bson::Int64(x) => Some(*x),
        bson::Bson::Double(x) if x.is_finite() => Some(*x as i64),
        _ => None,
    }
}

/// How often an index was used, from `$indexStats`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct IndexUsage {
    pub name: String,
    pub ops: u64,
    /// Seconds since the epoch when counting began.
    pub since: Option<f64>,
}

/// Storage figures the server reports for a collection (`collStats`).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct StorageStats {
    /// Uncompressed data size in bytes.
    pub size: Option<u64>,
    pub storage_size: Option<u64>,
    pub total_index_size: Option<u64>,
    /// Bytes of each index, by name (`collStats.indexSizes`).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub index_sizes: std::collections::BTreeMap<String, u64>,
    pub avg_obj_size: Option<f64>,
}

/// What a source knows about one collection before reading documents.
#[derive(Clone, Debug, Serialize)]
pub struct CollectionMeta {
    pub db: String,
    pub name: String,
    pub kind: CollectionKind,
    /// Estimated (server) or exact (files) number of documents, when known
    /// (a `.bson` file over the listing's count limit: unknown until read).
    pub documents: Option<u64>,
    pub storage: Option<StorageStats>,
    pub indexes: Vec<IndexInfo>,
    /// Collection options (validator, capped, timeseries …) as relaxed EJSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<serde_json::Value>,
    /// Index usage counters, where the server keeps them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_usage: Option<Vec<IndexUsage>>,
    /// Fields indexed but absent from the sample, looked for in the whole
    /// collection (filled in after profiling).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub presence_checks: Vec<PresenceCheck>,
    /// Things the source could not find out, said plainly.
    pub notes: Vec<String>,
    /// The GridFS bucket it is a part of, measured (filled in after
    /// profiling, when it is one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gridfs: Option<gridfs::Gridfs>,
}

impl CollectionMeta {
    pub fn new(db: &str, name: &str) -> CollectionMeta {
        CollectionMeta {
            db: db.to_owned(),
            name: name.to_owned(),
            kind: CollectionKind::Collection,
            documents: None,
            storage: None,
            indexes: Vec::new(),
            options: None,
            index_usage: None,
            presence_checks: Vec::new(),
            notes: Vec::new(),
            gridfs: None,
        }
    }

    pub(crate) fn namespace(&self) -> String {
        format!("{}.{}", self.db, self.name)
    }

    /// How the collection is laid out, from its kind, options and name.
    pub(crate) fn layout(&self) -> Layout {
        let option = |k: &str| {
            self.options
                .as_ref()
                .and_then(|o| o.get(k))
                .is_some_and(|v| !v.is_null())
        };
        Layout {
            timeseries: self.kind == CollectionKind::Timeseries || option("timeseries"),
            buckets: self.name.starts_with("system.buckets."),
            clustered: option("clusteredIndex") || self.indexes.iter().any(|i| i.clustered),
        }
    }
}

/// What a collection's options and name say about how it stores documents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Layout {
    /// A time-series collection (`type: "timeseries"`, `options.timeseries`).
    pub timeseries: bool,
    /// The bucket collection behind a time-series collection
    /// (`system.buckets.NAME`).
    pub buckets: bool,
    /// A clustered collection (`options.clusteredIndex`): documents stored
    /// in `_id` order, with no separate `_id` index.
    pub clustered: bool,
}

/// How many documents to read from a collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleMode {
    /// A uniform random sample of at most this many documents.
    Sample(u64),
    /// Every document.
    Full,
}

/// Documents kept per collection when every document is read.
pub const KEEP_FULL: u64 = 1000;

impl SampleMode {
    /// Most documents a collection keeps when read in this mode. Each kept
    /// document's share of the collection's bytes depends on the
    /// collection's document count only up to this many: a source need not
    /// count further before the read ([`FileSource::counting_up_to`]).
    pub(crate) fn kept_at_most(self) -> u64 {
        match self {
            SampleMode::Sample(n) => n,
            SampleMode::Full => KEEP_FULL,
        }
    }
}

/// What a sampling run did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SampleOutcome {
    /// Documents handed to the sink.
    pub read: u64,
    /// How they were drawn: `$sample`, `find`, `reservoir`, `all`.
    pub method: String,
    /// Exact number of documents, when reading them all revealed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Why the run stopped early, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<String>,
    /// Documents that could not be decoded and were skipped.
    pub skipped: u64,
}

/// Receives sampled documents as raw BSON bytes.
pub trait Sink {
    fn document(&mut self, bytes: &[u8]);

    /// Documents one after another, each starting with its own length
    /// (at least 5 and within `docs`, which the source checked), handed over
    /// whole so that a sink may keep them without copying each. By default,
    /// each in turn to [`Sink::document`].
    fn documents(&mut self, docs: Vec<u8>) {
        crate::profile::parallel::each_document(&docs, |d| self.document(d));
    }
}

impl<F: FnMut(&[u8])> Sink for F {
    fn document(&mut self, bytes: &[u8]) {
        self(bytes);
    }
}

/// The reads of a source that does them on the calling thread and awaits
/// nothing (files): an audit then reads several collections side by side,
/// one per core. Each answers as [`Documents::sample`] and
/// [`Documents::extremes`] do.
pub trait InPlace: Sync {
    fn sample_now(
        &self,
        meta: &CollectionMeta,
        mode: SampleMode,
        sink: &mut dyn Sink,
    ) -> Result<SampleOutcome>;

    fn extremes_now(&self, meta: &CollectionMeta, ask: &ExtremesAsk) -> Result<ExtremesOutcome>;
}

/// The documents a source holds: what collections there are, a sample of
/// each streamed to a sink, the whole-collection extremes a sample misses,
/// and how many collections may be read at once. The reading stage asks
/// for no more.
#[allow(async_fn_in_trait)]
pub trait Documents {
    /// The target as it may be shown: passwords masked.
    fn label(&self) -> String;

    /// Collections to profile, with their metadata, in a stable order.
    async fn collections(&mut self, selection: &Selection) -> Result<Vec<CollectionMeta>>;

    /// Notes on what the source holds that the report should say: what
    /// kind of collection a file held, what of it could not be read. In
    /// both languages, in the listing's order; those of the last listing
    /// and the reads since.
    fn notes(&self) -> Vec<crate::i18n::Text> {
        Vec::new()
    }

    /// The same reads done in place, when this source does them so.
    fn in_place(&self) -> Option<&dyn InPlace> {
        None
    }

    /// Streams the documents of one collection to `sink`. Takes `&self`:
    /// up to [`Documents::in_flight`] collections are read at once.
    async fn sample(
        &self,
        meta: &CollectionMeta,
        mode: SampleMode,
        sink: &mut dyn Sink,
    ) -> Result<SampleOutcome>;

    /// Figures over every document of the collection that a sample misses
    /// (the largest documents, the longest arrays, documents over size
    /// thresholds), measured cheaply where the source can: one aggregation
    /// on a server, a skim of a `.bson` file's length prefixes. Takes
    /// `&self`: it runs while other collections are read.
    async fn extremes(&self, meta: &CollectionMeta, ask: &ExtremesAsk) -> Result<ExtremesOutcome> {
        let _ = (meta, ask);
        Ok(ExtremesOutcome::Skipped(
            "whole-collection extremes are not measured for this source".into(),
        ))
    }

    /// How many collections may be described and read at once (1 where
    /// nothing is gained by overlapping them, as for files read on this
    /// thread).
    fn in_flight(&self) -> usize {
        1
    }

    /// Asks for up to `n` collections in flight (a source may allow fewer).
    fn set_in_flight(&mut self, n: usize) {
        let _ = n;
    }
}

/// Questions about particular values, asked of a collection after it was
/// profiled: whether referenced values exist, how many documents share a
/// value, documents fetched or re-read by key. The relationship, index and
/// growth stages ask these.
#[allow(async_fn_in_trait)]
pub trait Probes {
    /// How `group_counts` is computed here (`server-group`, `file-scan`).
    fn group_method(&self) -> &'static str;

    /// Which of `values` occur at the dotted `key` of the collection (one
    /// `distinct` with `$in` on a server; a scan of a file).
    async fn probe(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
    ) -> Result<Vec<bson::Bson>>;

    /// Several probes of one collection, each `(key, values)`: one answer
    /// per probe, in order. A file answers them all in one scan; a server
    /// with one query each, several at once. An error that ends the run (a lost server) is
    /// returned at once; any other is that probe's answer.
    async fn probe_many(
        &mut self,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Result<Vec<bson::Bson>>>> {
        let mut out = Vec::with_capacity(asks.len());
        for (key, values) in asks {
            match self.probe(meta, key, values).await {
                Err(e) if e.is_fatal() => return Err(e),
                answer => out.push(answer),
            }
        }
        Ok(out)
    }

    /// Documents per distinct value of the dotted `key`, summarised as
    /// `(documents holding the value, number of values with that count)`.
    /// Pushed down as a `$group` on a server.
    async fn group_counts(&mut self, meta: &CollectionMeta, key: &str) -> Result<Vec<(u64, u64)>>;

    /// Documents per distinct value of the dotted `key`, value by value;
    /// `None` when there are more than `max` distinct values. Pushed down
    /// as a `$group` on a server.
    async fn value_counts(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        max: usize,
    ) -> Result<Option<Vec<(bson::Bson, u64)>>>;

    /// A value of the dotted `key` that two documents share, if any (a
    /// `$group`, `$match` on count > 1, `$limit` 1 on a server).
    async fn duplicate_key(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
    ) -> Result<Option<bson::Bson>>;

    /// Documents whose dotted `key` is one of `values`, with only `key` and
    /// `fields` (a projection); at most `values.len()` documents.
    async fn fetch(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
        fields: &[String],
    ) -> Result<Vec<bson::Document>>;

    /// For each group of dotted paths (an index's fields, in key order),
    /// whether any document of the collection holds a value in one of them:
    /// bounded `find(...).limit(1)` queries the indexes answer on a server
    /// (one for every group when none has a value), one scan of a file for
    /// every group. A server may leave groups past its cap unchecked.
    async fn presence(
        &mut self,
        meta: &CollectionMeta,
        groups: &[Vec<String>],
    ) -> Result<Vec<PresenceCheck>>;

    /// Re-reads documents by `_id`: size and array lengths at `paths`
    /// (dotted, no arrays in between). Only numbers come back.
    async fn reread(
        &mut self,
        meta: &CollectionMeta,
        ids: &[bson::Bson],
        paths: &[String],
    ) -> Result<Vec<Reread>>;
}

/// What a server says about itself and the work done on it: its profiler,
/// query plans, operation counters, `$queryStats`, and the round trips this
/// run made. Every answer is `None` where there is no server (files), so a
/// source without one implements none of it.
#[allow(async_fn_in_trait)]
pub trait Insight {
    /// Round trips to a server for `namespace` so far, by command name
    /// (`None` for sources without a server).
    fn round_trips(&self, namespace: &str) -> Option<std::collections::BTreeMap<String, u64>> {
        let _ = namespace;
        None
    }

    /// The profiler of every selected database: each entry of its
    /// `system.profile` handed to `each` with the database's name, batch
    /// by batch, and how each profiler stands. `None` where there is no
    /// profiler (files).
    async fn profiler(
        &self,
        selection: &Selection,
        each: &mut dyn FnMut(&str, &bson::Document),
    ) -> Option<Result<Vec<ProfilerDb>>> {
        let _ = (selection, each);
        None
    }

    /// The plan the server would choose now for the read `command` on
    /// `db`: the reply of `explain` at `queryPlanner` verbosity (nothing
    /// runs). `None` where there is no server.
    async fn explain_command(
        &self,
        db: &str,
        command: bson::Document,
    ) -> Option<Result<bson::Document>> {
        let _ = (db, command);
        None
    }

    /// Reads and writes the server counted on each of `namespaces` since
    /// it started (`$collStats` latencyStats, else `top`), with a note for
    /// each source that did not answer. `None` where there is no server.
    async fn op_counts(
        &self,
        namespaces: &[String],
    ) -> Option<Result<(std::collections::BTreeMap<String, OpCounts>, Vec<String>)>> {
        let _ = namespaces;
        None
    }

    /// The entries of `$queryStats` (MongoDB 7.1+, Atlas), each handed to
    /// `each`; how many. `None` where there is no server.
    async fn query_stats(&self, each: &mut dyn FnMut(&bson::Document)) -> Option<Result<u64>> {
        let _ = each;
        None
    }
}

/// A place documents come from, with every capability: what an audit run
/// needs. A stage that needs less bounds on less ([`Documents`],
/// [`Probes`], [`Insight`]).
pub trait Source: Documents + Probes + Insight {}

impl<S: Documents + Probes + Insight + ?Sized> Source for S {}

/// A document read again for the growth snapshot.
#[derive(Clone, Debug, PartialEq)]
pub struct Reread {
    pub id: bson::Bson,
    pub size: u64,
    pub lengths: Vec<Option<u64>>,
}

/// Most distinct values `group_counts` tallies on the client (files).
pub const MAX_GROUPS: usize = 5_000_000;
