//! Documents from files: Extended JSON (`.json`, `.jsonl`, `.ndjson`),
//! `mongodump` BSON (`.bson`, with indexes from `COLL.metadata.json`), one
//! file or a directory tree in which each sub-directory is a database.
//!
//! A dump is read whole: a time-series collection `NAME` from its buckets
//! (`system.buckets.NAME.bson`, unpacked into measurements by
//! [`super::buckets`]); the indexes of a MongoDB 3.x dump from its
//! `system.indexes.bson`; a collection of which only `NAME.metadata.json`
//! is left, as a collection of no documents, said so in a note.

mod bson_file;
mod listing;
mod metadata;
mod probes;
mod scan;
mod sizes;
mod timeseries;

pub use bson_file::{read_bson, read_bson_runs, skim_bson, BsonFileError, MAX_BSON_DOC};
pub use sizes::TALLY_FLOOR;

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::buckets::Spec;
use super::ejson;
use super::names;
use crate::i18n::Text;
use crate::profile::parallel::each_document;
use crate::source::sample::Reservoir;
use crate::source::{
    CollectionKind, CollectionMeta, Documents, InPlace, IndexInfo, Insight, Result, SampleMode,
    SampleOutcome, Selection, Sink, SourceError, StorageStats,
};
use bson_file::count_bson;
use listing::{
    deeper_hint, file_naming, scan_dir, sorted_dir, Entry, Holds, Legacy, LEGACY_INDEXES,
};
use metadata::{
    legacy_indexes_named, metadata_only, no_buckets_metadata, read_metadata, system_named,
};
use sizes::SizeTally;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    ExtJson,
    Bson,
}

impl Format {
    pub(crate) fn of(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        if name.ends_with(".metadata.json") {
            return None;
        }
        match path.extension()?.to_str()? {
            "json" | "jsonl" | "ndjson" => Some(Format::ExtJson),
            "bson" => Some(Format::Bson),
            _ => None,
        }
    }
}

/// Notes of the run about what the files hold, by the place of what they
/// are about in the listing, then by what they say.
type Notes = BTreeMap<(usize, &'static str), Text>;

/// A file or a directory of files.
pub struct FileSource {
    root: PathBuf,
    label: String,
    entries: Vec<Entry>,
    /// Sizes of every document of an Extended JSON file, tallied while a
    /// sample is drawn from it (every document passes by), by namespace.
    tallies: std::sync::Mutex<std::collections::HashMap<String, SizeTally>>,
    /// Most documents a `.bson` file's listing counts (`None`: all of
    /// them); a file with more is listed with its count unknown.
    count_limit: Option<u64>,
    /// The indexes `system.indexes.bson` lists, by database (as the
    /// directory is named) and collection.
    legacy_indexes: HashMap<(String, String), Vec<IndexInfo>>,
    /// What could not be read of a database's `system.indexes.bson`.
    legacy_failures: Vec<(String, Text)>,
    /// Files of a directory not read as a collection (a tool's file, a
    /// second file of a collection already read), by database, with why.
    left_out: Vec<(String, Text)>,
    /// One file was named, not a directory.
    named: bool,
    /// Notes on what the files hold, for the report.
    notes: Mutex<Notes>,
}

impl FileSource {
    /// Opens `path`, which must be a file of documents or a directory.
    pub fn open(path: &Path) -> Result<FileSource> {
        let meta = std::fs::metadata(path).map_err(|e| io_err(path, &e))?;
        let label = path.display().to_string();
        let mut entries = Vec::new();
        let mut legacy = Legacy::default();
        if meta.is_file() {
            let format = Format::of(path).ok_or_else(|| SourceError::Malformed {
                path: label.clone(),
                reason: "not a document file (expected .json, .jsonl, .ndjson or .bson)".into(),
            })?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name == LEGACY_INDEXES {
                return Err(SourceError::Malformed {
                    path: label,
                    reason: legacy_indexes_named(path),
                });
            }
            if let Some(tool) = names::tool_file(path) {
                return Err(SourceError::Malformed {
                    path: label,
                    reason: tool.refusal(),
                });
            }
            let naming = file_naming(path);
            entries.push(Entry::of_file(&naming, &name, path.to_owned(), format));
        } else {
            scan_dir(path, &mut entries, &mut legacy)?;
            for sub in sorted_dir(path)? {
                if sub.is_dir() {
                    scan_dir(&sub, &mut entries, &mut legacy)?;
                }
            }
            if entries.is_empty() {
                return Err(SourceError::NotFound(deeper_hint(path, &label)));
            }
        }
        Ok(FileSource {
            root: path.to_owned(),
            label,
            entries,
            tallies: std::sync::Mutex::default(),
            count_limit: None,
            legacy_indexes: legacy.indexes,
            legacy_failures: legacy.failures,
            left_out: legacy.left_out,
            named: meta.is_file(),
            notes: Mutex::default(),
        })
    }

    /// Lists a `.bson` file's document count only when it holds at most
    /// `limit` documents, and leaves it unknown otherwise: the listing then
    /// hops over at most `limit + 1` length prefixes instead of reading the
    /// whole file once more before it is read. For a run that reads every
    /// document anyway and only needs to know whether a file is larger
    /// than what it keeps; the count then comes from the read.
    #[must_use]
    pub(crate) fn counting_up_to(mut self, limit: u64) -> FileSource {
        self.count_limit = Some(limit);
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Streams every document of the collection to `each` in file order,
    /// its file read through `wrap` — a reader that may end the reading
    /// early with an error (a deadline passed, a cancel). The number of
    /// documents read.
    pub(crate) fn read_through<R: Read>(
        &self,
        meta: &CollectionMeta,
        wrap: impl FnOnce(File) -> R,
        each: &mut dyn FnMut(&[u8]),
    ) -> Result<u64> {
        let (at, entry) = self.entry_at(meta)?;
        if let Holds::MetadataOnly = entry.holds {
            return Ok(0);
        }
        let file = File::open(&entry.path).map_err(|e| io_err(&entry.path, &e))?;
        match (&entry.holds, entry.format) {
            (Holds::Buckets(spec), _) => self
                .read_buckets(at, entry, spec, wrap(file), &mut |run| {
                    each_document(&run, &mut *each);
                })
                .map(|t| t.measurements)
                .map_err(|e| e.to_string()),
            (_, Format::ExtJson) => {
                ejson::read_documents(wrap(file), each).map_err(|e| e.to_string())
            }
            (_, Format::Bson) => read_bson(wrap(file), each).map_err(|e| e.to_string()),
        }
        .map_err(|reason| SourceError::Malformed {
            path: entry.path.display().to_string(),
            reason,
        })
    }

    fn entry(&self, meta: &CollectionMeta) -> Result<&Entry> {
        self.entry_at(meta).map(|(_, e)| e)
    }

    /// The entry of `meta`, with its place in the listing.
    fn entry_at(&self, meta: &CollectionMeta) -> Result<(usize, &Entry)> {
        self.entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.db == meta.db && e.coll == meta.name)
            .ok_or_else(|| SourceError::NotFound(format!("no file for {}", meta.namespace())))
    }
}

fn io_err(path: &Path, e: &std::io::Error) -> SourceError {
    SourceError::Io {
        path: path.display().to_string(),
        reason: match e.kind() {
            std::io::ErrorKind::NotFound => "no such file or directory".into(),
            std::io::ErrorKind::PermissionDenied => "permission denied".into(),
            _ => e.to_string(),
        },
    }
}

impl Documents for FileSource {
    fn label(&self) -> String {
        self.label.clone()
    }

    async fn collections(&mut self, selection: &Selection) -> Result<Vec<CollectionMeta>> {
        let mut out = Vec::new();
        let mut notes = Notes::new();
        // A file named on its own is read whatever its name: the default
        // selection leaves out `system.*` and the server's databases only
        // when it picks from a directory.
        let named = self.named && selection.dbs.is_empty() && selection.collections.is_empty();
        for (i, e) in self.entries.iter().enumerate() {
            if !named && !selection.wants(&e.db, &e.coll) {
                continue;
            }
            let mut meta = CollectionMeta::new(&e.db, &e.coll);
            match e.holds {
                Holds::MetadataOnly => {}
                _ => {
                    if let Ok(md) = std::fs::metadata(&e.path) {
                        let len = md.len();
                        meta.storage = Some(StorageStats {
                            // A bucket file's bytes are not its measurements'.
                            size: (e.format == Format::Bson && matches!(e.holds, Holds::Documents))
                                .then_some(len),
                            storage_size: Some(len),
                            ..StorageStats::default()
                        });
                    }
                }
            }
            read_metadata(e, &mut meta);
            if meta.indexes.is_empty() {
                if let Some(idx) = self.legacy_indexes.get(&(e.db.clone(), e.coll.clone())) {
                    meta.indexes.clone_from(idx);
                }
            }
            match &e.holds {
                Holds::Documents if e.format == Format::Bson => {
                    if let Ok(n) = count_bson(&e.path, self.count_limit) {
                        meta.documents = n;
                    }
                }
                Holds::Documents => {}
                // Known once the buckets are read.
                Holds::Buckets(spec) => {
                    if spec.metadata.is_none() {
                        notes.insert((i, "metadata"), no_buckets_metadata(e));
                    }
                }
                Holds::MetadataOnly => {
                    let view = meta.kind == CollectionKind::View
                        || meta
                            .options
                            .as_ref()
                            .is_some_and(|o| o.get("viewOn").is_some());
                    if view {
                        meta.kind = CollectionKind::View;
                    } else {
                        meta.documents = Some(0);
                    }
                    notes.insert((i, "missing"), metadata_only(e, &meta));
                }
            }
            if named && e.coll.starts_with("system.") {
                notes.insert((i, "system"), system_named(e));
            }
            out.push(meta);
        }
        let left_out: Vec<&Text> = self
            .left_out
            .iter()
            .filter(|(db, _)| selection.wants_db(db) || named)
            .map(|(_, t)| t)
            .collect();
        if !left_out.is_empty() {
            let (en, zh): (Vec<&str>, Vec<&str>) = left_out
                .iter()
                .map(|t| (t.en.as_str(), t.zh.as_str()))
                .unzip();
            notes.insert((0, "left out"), Text::new(en.join("; "), zh.join("；")));
        }
        for (db, note) in &self.legacy_failures {
            if selection.wants_db(db) || named {
                // Before the collections of its database.
                let at = self.entries.iter().position(|e| &e.db == db).unwrap_or(0);
                notes.insert((at, "indexes"), note.clone());
            }
        }
        if let Ok(mut all) = self.notes.lock() {
            *all = notes;
        }
        Ok(out)
    }

    fn notes(&self) -> Vec<Text> {
        self.notes
            .lock()
            .map(|n| n.values().cloned().collect())
            .unwrap_or_default()
    }

    fn in_place(&self) -> Option<&dyn InPlace> {
        Some(self)
    }

    async fn sample(
        &self,
        meta: &CollectionMeta,
        mode: SampleMode,
        sink: &mut dyn Sink,
    ) -> Result<SampleOutcome> {
        self.sample_now(meta, mode, sink)
    }

    async fn extremes(
        &self,
        meta: &CollectionMeta,
        ask: &crate::source::ExtremesAsk,
    ) -> Result<crate::source::ExtremesOutcome> {
        self.extremes_now(meta, ask)
    }
}

/// Files have no server to ask: every answer is the default `None`.
impl Insight for FileSource {}

impl InPlace for FileSource {
    fn sample_now(
        &self,
        meta: &CollectionMeta,
        mode: SampleMode,
        sink: &mut dyn Sink,
    ) -> Result<SampleOutcome> {
        let (at, entry) = self.entry_at(meta)?;
        let entry = entry.clone();
        if let Holds::MetadataOnly = entry.holds {
            return Ok(SampleOutcome {
                method: "all".into(),
                total: Some(0),
                ..SampleOutcome::default()
            });
        }
        let file = File::open(&entry.path).map_err(|e| io_err(&entry.path, &e))?;
        let label = entry.path.display().to_string();
        let buckets = match &entry.holds {
            Holds::Buckets(spec) => Some(Arc::clone(spec)),
            _ => None,
        };
        // Measurements lost with the buckets that could not be read.
        let mut lost = None;
        let mut reservoir = match mode {
            SampleMode::Sample(n) => {
                Some(Reservoir::new(n, usize::MAX, seed_of(&meta.namespace())))
            }
            SampleMode::Full => None,
        };
        // Every document passes by while a sample is drawn: its size is
        // tallied for the whole-file extremes (a `.bson` file is skimmed
        // instead).
        let mut tally = (reservoir.is_some()
            && (entry.format == Format::ExtJson || buckets.is_some()))
        .then(SizeTally::new);
        let mut each = |bytes: &[u8]| {
            if let Some(t) = &mut tally {
                t.add(bytes);
            }
            match &mut reservoir {
                Some(r) => r.offer(bytes),
                None => sink.document(bytes),
            }
        };
        let total = match entry.format {
            _ if buckets.is_some() => {
                let spec: Arc<Spec> = buckets.clone().unwrap_or_default();
                let read = if mode == SampleMode::Full {
                    self.read_buckets(at, &entry, &spec, file, &mut |run| sink.documents(run))
                } else {
                    self.read_buckets(at, &entry, &spec, file, &mut |run| {
                        each_document(&run, &mut each);
                    })
                };
                read.map(|t| {
                    lost = Some((t.lost, t.lost.max(t.skipped_buckets())));
                    t.measurements
                })
                .map_err(|e| e.to_string())
            }
            // Every document to the sink, a run at a time: as read from a
            // `.bson` file, as parsed by one job of Extended JSON.
            Format::ExtJson if mode == SampleMode::Full => {
                let size = file.metadata().ok().map(|m| m.len());
                ejson::read_documents_into(file, size, sink).map_err(|e| e.to_string())
            }
            Format::Bson if mode == SampleMode::Full => {
                read_bson_runs(file, &mut |run| sink.documents(run)).map_err(|e| e.to_string())
            }
            Format::ExtJson => ejson::read_documents(file, &mut each).map_err(|e| e.to_string()),
            Format::Bson => read_bson(file, &mut each).map_err(|e| e.to_string()),
        }
        .map_err(|reason| SourceError::Malformed {
            path: label,
            reason,
        })?;
        if let (Some(t), Ok(mut all)) = (tally, self.tallies.lock()) {
            all.insert(meta.namespace(), t);
        }
        let (read, method) = match reservoir {
            Some(r) => {
                let n = r.len() as u64;
                let method = if n < total { "reservoir" } else { "all" };
                r.drain_into(sink);
                (n, method)
            }
            None => (total, "all"),
        };
        // The measurements of skipped buckets count in the collection's
        // size, not in what was read.
        let (lost, skipped) = lost.unwrap_or((0, 0));
        Ok(SampleOutcome {
            read,
            method: method.into(),
            total: Some(total + lost),
            partial: None,
            skipped,
        })
    }

    fn extremes_now(
        &self,
        meta: &CollectionMeta,
        ask: &crate::source::ExtremesAsk,
    ) -> Result<crate::source::ExtremesOutcome> {
        let entry = self.entry(meta)?;
        match entry.format {
            _ if matches!(entry.holds, Holds::MetadataOnly) => {
                Ok(crate::source::ExtremesOutcome::Skipped(
                    "whole-collection extremes not measured: the dump holds no data file".into(),
                ))
            }
            Format::Bson if matches!(entry.holds, Holds::Documents) => skim_bson(&entry.path, ask)
                .map(crate::source::ExtremesOutcome::Measured)
                .map_err(|e| io_err(&entry.path, &e)),
            // A line's length says little about its BSON size (ids,
            // numbers and binary are written at other sizes), nor a
            // bucket's about its measurements': the sizes are those of
            // the documents as converted while sampling.
            _ => {
                let tally = self
                    .tallies
                    .lock()
                    .ok()
                    .and_then(|mut t| t.remove(&meta.namespace()));
                Ok(match tally {
                    Some(t) => crate::source::ExtremesOutcome::Measured(t.extremes(ask)),
                    None => crate::source::ExtremesOutcome::Skipped(
                        "whole-collection extremes not measured: the file was not sampled".into(),
                    ),
                })
            }
        }
    }
}

fn seed_of(s: &str) -> u64 {
    crate::profile::sketch::hash_bytes(0x5eed, s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listing told to count up to a limit gives the exact count of a
    /// file with at most that many documents and none for a larger one,
    /// and stops hopping once past the limit (a damaged tail after it is
    /// not reached); the read still gives the exact count.
    #[test]
    fn a_bounded_listing_counts_small_files_and_leaves_large_ones_to_the_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let write = |name: &str, n: i64, tail: &[u8]| {
            let mut bytes = Vec::new();
            for i in 0..n {
                bson::doc! {"_id": i}.to_writer(&mut bytes).expect("encode");
            }
            bytes.extend_from_slice(tail);
            std::fs::write(dir.path().join(name), bytes).expect("write");
        };
        write("few.bson", 10, b"");
        write("limit.bson", 11, b"");
        write("many.bson", 12, b"");
        // A length prefix that runs past the end: counting stops there.
        write("damaged.bson", 20, &[200, 0, 0, 0, 1]);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let counts = |src: &mut FileSource| -> Vec<(String, Option<u64>)> {
            rt.block_on(src.collections(&Selection::default()))
                .expect("list")
                .into_iter()
                .map(|m| (m.name.clone(), m.documents))
                .collect()
        };
        let mut all = FileSource::open(dir.path()).expect("open");
        let mut bounded = FileSource::open(dir.path())
            .expect("open")
            .counting_up_to(11);
        let names = ["damaged", "few", "limit", "many"];
        let whole: Vec<_> = names
            .iter()
            .zip([20, 10, 11, 12])
            .map(|(n, c)| (n.to_string(), Some(c)))
            .collect();
        assert_eq!(counts(&mut all), whole);
        let up_to: Vec<_> = names
            .iter()
            .zip([None, Some(10), Some(11), None])
            .map(|(n, c)| (n.to_string(), c))
            .collect();
        assert_eq!(counts(&mut bounded), up_to);
        let meta = rt
            .block_on(bounded.collections(&Selection::default()))
            .expect("list")
            .into_iter()
            .find(|m| m.name == "many")
            .expect("many");
        let mut read = 0u64;
        let outcome = bounded
            .sample_now(&meta, SampleMode::Full, &mut |_: &[u8]| read += 1)
            .expect("read");
        assert_eq!((outcome.total, read), (Some(12), 12));
    }
}
