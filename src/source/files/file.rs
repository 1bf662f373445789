//! Documents from files: Extended JSON (`.json`, `.jsonl`, `.ndjson`),
//! `mongodump` BSON (`.bson`, with indexes from `COLL.metadata.json`), one
//! file or a directory tree in which each sub-directory is a database.
//!
//! A dump is read whole: a time-series collection `NAME` from its buckets
//! (`system.buckets.NAME.bson`, unpacked into measurements by
//! [`super::buckets`]); the indexes of a MongoDB 3.x dump from its
//! `system.indexes.bson`; a collection of which only `NAME.metadata.json`
//! is left, as a collection of no documents, said so in a note.

use crate::profile::extjson::Relaxed as _;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::buckets::{self, Spec};
use super::ejson;
use super::names::{self, Naming};
use crate::i18n::Text;
use crate::profile::parallel::{
    each_document, each_in, frame, new_batch, BATCH_BYTES, PARALLEL_AFTER, QUEUE,
};
use crate::profile::raw;
use crate::source::sample::Reservoir;
use crate::source::{
    CheckMethod, CollectionKind, CollectionMeta, Documents, InPlace, IndexInfo, Insight,
    PresenceCheck, Probes, Reread, Result, SampleMode, SampleOutcome, Selection, Sink, SourceError,
    StorageStats,
};

/// Largest BSON document accepted from a file (the server's limit is 16 MiB;
/// a dump never holds more, so anything far beyond is a corrupt prefix).
pub const MAX_BSON_DOC: usize = 48 * 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    ExtJson,
    Bson,
}

impl Format {
    pub fn of(path: &Path) -> Option<Format> {
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

#[derive(Clone, Debug)]
struct Entry {
    db: String,
    coll: String,
    path: PathBuf,
    format: Format,
    holds: Holds,
    /// `DB.`, which begins the names of the file and of its metadata in a
    /// folder of exports; empty in a database's folder.
    prefix: String,
}

/// What a collection's file holds.
#[derive(Clone, Debug)]
enum Holds {
    /// The collection's documents.
    Documents,
    /// A time-series collection's buckets, read as its measurements.
    Buckets(Arc<Spec>),
    /// Nothing: the dump has only the collection's metadata (`path`).
    MetadataOnly,
}

impl Entry {
    fn documents(naming: &Naming, coll: &str, path: PathBuf, format: Format) -> Entry {
        Entry {
            db: naming.db.clone(),
            coll: coll.to_owned(),
            path,
            format,
            holds: Holds::Documents,
            prefix: naming.prefix.clone(),
        }
    }

    /// `system.buckets.NAME.bson`: the time-series collection `NAME`, as
    /// its metadata beside it describes it.
    fn buckets(naming: &Naming, name: &str, path: PathBuf) -> Entry {
        // Metadata that cannot be read, or that does not describe a
        // time-series collection, says nothing of the buckets.
        let spec = buckets_metadata(&path, &naming.prefix, name)
            .and_then(|md| {
                let opts = read_metadata_doc(&md)
                    .ok()?
                    .get_document("options")
                    .ok()
                    .filter(|o| o.get_document("timeseries").is_ok())?
                    .clone();
                Some(Spec::from_options(&opts, md))
            })
            .unwrap_or_default();
        Entry {
            db: naming.db.clone(),
            coll: name.to_owned(),
            path,
            format: Format::Bson,
            holds: Holds::Buckets(Arc::new(spec)),
            prefix: naming.prefix.clone(),
        }
    }

    /// A file named `name` in a folder named by `naming`: the time-series
    /// collection whose buckets it holds, or the collection it names.
    fn of_file(naming: &Naming, name: &str, path: PathBuf, format: Format) -> Entry {
        let local = name.strip_prefix(naming.prefix.as_str()).unwrap_or(name);
        match buckets_of(local) {
            Some(coll) if format == Format::Bson => Entry::buckets(naming, coll, path),
            _ => Entry::documents(naming, naming.collection(&stem(&path)), path, format),
        }
    }

    fn namespace(&self) -> String {
        format!("{}.{}", self.db, self.coll)
    }

    /// The name of a file of this collection beside its data file:
    /// `ending` after the collection's name (and the folder's `DB.`).
    fn sibling(&self, ending: &str) -> String {
        format!("{}{}{ending}", self.prefix, self.coll)
    }

    /// The file beside it naming its indexes and options.
    fn metadata_path(&self) -> Option<PathBuf> {
        match &self.holds {
            Holds::MetadataOnly => Some(self.path.clone()),
            Holds::Buckets(spec) => spec.metadata.clone(),
            Holds::Documents => Some(self.path.with_file_name(self.sibling(".metadata.json"))),
        }
    }
}

/// The metadata of the time-series collection `name` whose buckets are
/// `buckets`: `NAME.metadata.json` (as mongodump writes it), else
/// `system.buckets.NAME.metadata.json`, each after the folder's `prefix`.
fn buckets_metadata(buckets: &Path, prefix: &str, name: &str) -> Option<PathBuf> {
    [
        format!("{prefix}{name}.metadata.json"),
        format!("{prefix}system.buckets.{name}.metadata.json"),
    ]
    .into_iter()
    .map(|f| buckets.with_file_name(f))
    .find(|p| p.is_file())
}

/// The file name a dump gives the buckets of the time-series collection
/// it names, if it is one.
fn buckets_of(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix("system.buckets.")?
        .strip_suffix(".bson")
        .filter(|n| !n.is_empty())
}

/// The name of a MongoDB 3.x dump's index definitions.
const LEGACY_INDEXES: &str = "system.indexes.bson";

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

/// Documents at least this large are listed one by one while a file is
/// sampled, so that any size threshold from here up is counted exactly
/// (at most one entry per MiB of file).
pub const TALLY_FLOOR: u64 = 1 << 20;

/// The BSON sizes of every document of a file, as a sample is drawn.
struct SizeTally {
    documents: u64,
    top: crate::source::extremes::TopK<Option<serde_json::Value>>,
    /// Sizes of documents of at least [`TALLY_FLOOR`] bytes.
    large: Vec<u64>,
}

impl SizeTally {
    fn new() -> SizeTally {
        SizeTally {
            documents: 0,
            top: crate::source::extremes::TopK::new(crate::source::extremes::TOP_K),
            large: Vec::new(),
        }
    }

    fn add(&mut self, doc: &[u8]) {
        let bytes = doc.len() as u64;
        self.documents += 1;
        if self.top.wants(bytes) {
            let id = bson::RawDocument::from_bytes(doc)
                .ok()
                .and_then(|d| d.get("_id").ok().flatten())
                .and_then(|v| bson::Bson::try_from(v).ok())
                .map(crate::profile::extjson::Relaxed::relaxed);
            self.top.offer(bytes, id);
        }
        if bytes >= TALLY_FLOOR {
            self.large.push(bytes);
        }
    }

    /// The figures for `ask`: thresholds under [`TALLY_FLOOR`] and arrays
    /// are listed as not measured.
    fn extremes(self, ask: &crate::source::ExtremesAsk) -> crate::source::Extremes {
        use crate::source::extremes::{LargeDocument, OverThreshold};
        let mut out = crate::source::Extremes::new("file-scan");
        out.documents = self.documents;
        out.largest = self
            .top
            .into_vec()
            .into_iter()
            .map(|(bytes, id)| LargeDocument { id, bytes })
            .collect();
        for (name, at) in &ask.thresholds {
            if *at >= TALLY_FLOOR {
                out.over.push(OverThreshold {
                    threshold: name.clone(),
                    bytes: *at,
                    documents: self.large.iter().filter(|b| *b >= at).count() as u64,
                });
            } else {
                out.not_measured.push(format!(
                    "{name}: thresholds under {} are not counted while sampling a file",
                    crate::fmt::bytes(TALLY_FLOOR as f64)
                ));
            }
        }
        out.not_measured.extend(ask.arrays.iter().map(|(p, _)| {
            format!("{p}: array lengths are the sample's (only document sizes are tallied)")
        }));
        out.not_measured.extend(ask.dates.iter().map(|(p, _)| {
            format!("{p}: dates are the sample's (only document sizes are tallied)")
        }));
        out
    }
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
    pub fn counting_up_to(mut self, limit: u64) -> FileSource {
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
    pub fn read_through<R: Read>(
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

    /// Reads the buckets of `entry` from `reader` and hands their
    /// measurements to `each_run`, a run of documents at a time; notes
    /// what was read and what was skipped, for the report.
    fn read_buckets<R: Read>(
        &self,
        at: usize,
        entry: &Entry,
        spec: &Spec,
        reader: R,
        each_run: &mut dyn FnMut(Vec<u8>),
    ) -> std::result::Result<BucketTally, BsonFileError> {
        let mut tally = BucketTally::default();
        let mut out = Vec::new();
        let read = read_bson_runs(reader, &mut |run| {
            each_document(&run, |bucket| {
                tally.buckets += 1;
                match buckets::unpack(bucket, spec, &mut out) {
                    Ok(n) => tally.measurements += n,
                    Err(skip) => {
                        tally.lost += buckets::declared_count(bucket).unwrap_or(0);
                        let e = tally.skipped.entry(skip.kind()).or_insert((0, skip.text()));
                        e.0 += 1;
                    }
                }
                if out.len() >= RUN_BYTES {
                    each_run(std::mem::take(&mut out));
                }
            });
        });
        if !out.is_empty() {
            each_run(out);
        }
        if let Ok(mut notes) = self.notes.lock() {
            notes.insert((at, "buckets"), tally.note(entry, spec));
        }
        read.map(|_| tally)
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

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn dir_name(path: &Path) -> String {
    let canon = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    canon
        .file_name()
        .map_or_else(|| "files".to_owned(), |s| s.to_string_lossy().into_owned())
}

fn parent_name(path: &Path) -> String {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => dir_name(p),
        _ => dir_name(Path::new(".")),
    }
}

/// Why a directory gives no collection; where its folders hold dumps of
/// their own one level deeper (a folder of applications, each with its
/// databases), which to audit one at a time: two applications may both
/// name a database `test`.
/// Folders that cannot be read are passed over: the hint never replaces
/// the reason with an error of its own.
fn deeper_hint(path: &Path, label: &str) -> String {
    use std::fmt::Write as _;
    let listed = |dir: &Path| sorted_dir(dir).unwrap_or_default();
    let mut dumps = Vec::new();
    for sub in listed(path).into_iter().filter(|p| p.is_dir()) {
        let holds = listed(&sub).into_iter().filter(|p| p.is_dir()).any(|db| {
            listed(&db)
                .iter()
                .any(|f| f.is_file() && Format::of(f).is_some())
        });
        if holds {
            dumps.push(sub.display().to_string());
        }
    }
    let mut why = format!(
        "{label} holds no document files (.json, .jsonl, .ndjson, .bson) at its top level or one directory down"
    );
    if !dumps.is_empty() {
        let shown: Vec<&str> = dumps.iter().take(3).map(String::as_str).collect();
        let more = if dumps.len() > shown.len() {
            ", …"
        } else {
            ""
        };
        let _ = write!(
            why,
            "; {} of its folders hold databases of their own: audit each alone (docshape audit {}{more})",
            dumps.len(),
            shown.join(", docshape audit ")
        );
    }
    why
}

fn sorted_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let rd = std::fs::read_dir(dir).map_err(|e| io_err(dir, &e))?;
    let mut out: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    out.sort();
    Ok(out)
}

/// The indexes of the `system.indexes.bson` files read so far, and what
/// could not be read of them; the files of a directory left out, with why.
#[derive(Default)]
struct Legacy {
    indexes: HashMap<(String, String), Vec<IndexInfo>>,
    failures: Vec<(String, Text)>,
    left_out: Vec<(String, Text)>,
}

/// The files of `dir` that may hold a collection's documents or metadata:
/// leaving out the tool files (noted in `left_out` under the database
/// `naming` gives them) and a 3.x dump's `system.indexes.bson`.
fn collection_files(files: &[PathBuf]) -> (Vec<&PathBuf>, Vec<(&PathBuf, names::ToolFile)>) {
    let mut kept = Vec::new();
    let mut tools = Vec::new();
    for p in files {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name == LEGACY_INDEXES {
            continue;
        }
        match names::tool_file(p) {
            Some(t) => tools.push((p, t)),
            None if Format::of(p).is_some() || name.ends_with(".metadata.json") => kept.push(p),
            None => {}
        }
    }
    (kept, tools)
}

/// How the folder `dir` names the databases and collections of `files`
/// (its collection files), by [`names::naming`]'s rule.
fn folder_naming(dir: &Path, files: &[&PathBuf]) -> Naming {
    let mut stems: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?;
            Some(match name.strip_suffix(".metadata.json") {
                Some(s) => s.to_owned(),
                None => stem(p),
            })
        })
        .collect();
    stems.sort();
    stems.dedup();
    let said: Vec<Option<String>> = stems
        .iter()
        .map(|s| {
            let md = dir.join(format!("{s}.metadata.json"));
            read_metadata_doc(&md)
                .ok()
                .and_then(|d| names::metadata_collection(&d))
        })
        .collect();
    let pairs: Vec<(&str, Option<&str>)> = stems
        .iter()
        .zip(&said)
        .map(|(s, c)| (s.as_str(), c.as_deref()))
        .collect();
    names::naming(&dir_name(dir), &pairs)
}

/// How the folder of the file `path`, named on its own, names it.
fn file_naming(path: &Path) -> Naming {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    };
    match sorted_dir(&dir) {
        Ok(all) => {
            let files: Vec<PathBuf> = all.into_iter().filter(|p| p.is_file()).collect();
            let (kept, _) = collection_files(&files);
            folder_naming(&dir, &kept)
        }
        Err(_) => Naming::database(&parent_name(path)),
    }
}

/// The collections of the folder `dir`, added to `out`: a collection
/// another file already gave is left out with a note, as are tool files.
fn scan_dir(dir: &Path, out: &mut Vec<Entry>, legacy: &mut Legacy) -> Result<()> {
    let files: Vec<PathBuf> = sorted_dir(dir)?
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    let (kept, tools) = collection_files(&files);
    let naming = folder_naming(dir, &kept);
    for (p, tool) in tools {
        legacy
            .left_out
            .push((naming.db.clone(), tool.note(&p.display().to_string())));
    }
    if files
        .iter()
        .any(|p| p.file_name().is_some_and(|n| n == LEGACY_INDEXES))
    {
        read_legacy_indexes(&dir.join(LEGACY_INDEXES), &naming.db, legacy);
    }
    let taken = |out: &[Entry], coll: &str| {
        out.iter()
            .find(|e| e.db == naming.db && e.coll == coll)
            .map(|e| e.path.clone())
    };
    for p in &kept {
        let Some(format) = Format::of(p) else {
            continue;
        };
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let entry = Entry::of_file(&naming, &name, (*p).clone(), format);
        match taken(out, &entry.coll) {
            None => out.push(entry),
            Some(first) => legacy
                .left_out
                .push((naming.db.clone(), read_once(&entry, &first))),
        }
    }
    // A collection of which only the metadata is left.
    for p in &kept {
        let Some(name) = p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".metadata.json"))
        else {
            continue;
        };
        let name = naming.collection(name);
        let coll = name.strip_prefix("system.buckets.").unwrap_or(name);
        if coll.is_empty() || taken(out, coll).is_some() {
            continue;
        }
        out.push(Entry {
            db: naming.db.clone(),
            coll: coll.to_owned(),
            path: (*p).clone(),
            format: Format::Bson,
            holds: Holds::MetadataOnly,
            prefix: naming.prefix.clone(),
        });
    }
    Ok(())
}

/// The note on a second file of a collection already read from `first`.
fn read_once(e: &Entry, first: &Path) -> Text {
    let (ns, file, first) = (e.namespace(), e.path.display(), first.display());
    Text::new(
        format!("{ns}: {file} was not read: {first} holds the same collection and was read"),
        format!("{ns}：未读取 {file}：{first} 是同一集合，已读取"),
    )
}

/// Reads a MongoDB 3.x dump's `system.indexes.bson`: one document per
/// index, its collection named by `ns` (`db.coll`).
fn read_legacy_indexes(path: &Path, db: &str, legacy: &mut Legacy) {
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
fn legacy_indexes_named(path: &Path) -> String {
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
fn read_metadata_doc(p: &Path) -> std::result::Result<bson::Document, ()> {
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
fn read_metadata(entry: &Entry, meta: &mut CollectionMeta) {
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
fn no_buckets_metadata(e: &Entry) -> Text {
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
fn metadata_only(e: &Entry, meta: &CollectionMeta) -> Text {
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
fn system_named(e: &Entry) -> Text {
    let ns = e.namespace();
    Text::new(
        format!("{ns} is one of the server's own collections (system.*); it is read as documents because it was named"),
        format!("{ns} 是服务器自己的集合（system.*）；因为被直接指定，按文档读取"),
    )
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

impl Probes for FileSource {
    fn group_method(&self) -> &'static str {
        "file-scan"
    }

    async fn probe(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
    ) -> Result<Vec<bson::Bson>> {
        self.probe_scan(meta, key, values)
    }

    async fn probe_many(
        &mut self,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Result<Vec<bson::Bson>>>> {
        match self.probe_many_scan(meta, asks) {
            Ok(answers) => Ok(answers.into_iter().map(Ok).collect()),
            Err(e) if e.is_fatal() => Err(e),
            // The one scan failed: so did every probe, for the same reason.
            Err(e) => {
                let msg = e.to_string();
                let mut first = Some(e);
                Ok(asks
                    .iter()
                    .map(|_| {
                        Err(first
                            .take()
                            .unwrap_or_else(|| SourceError::NotFound(msg.clone())))
                    })
                    .collect())
            }
        }
    }

    async fn group_counts(&mut self, meta: &CollectionMeta, key: &str) -> Result<Vec<(u64, u64)>> {
        self.group_scan(meta, key)
    }

    async fn value_counts(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        max: usize,
    ) -> Result<Option<Vec<(bson::Bson, u64)>>> {
        Ok(self
            .tally(meta, key, max)?
            .map(|t| t.into_values().collect()))
    }

    async fn duplicate_key(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
    ) -> Result<Option<bson::Bson>> {
        use crate::source::value;
        let keys: Vec<&str> = key.split('.').collect();
        let mut seen = std::collections::HashSet::new();
        let mut repeated = None;
        self.stream(meta, &mut |doc| {
            if repeated.is_some() {
                return;
            }
            let mut here = Vec::new();
            crate::profile::extract::query_visit(doc, &keys, &mut |el| {
                if let Some(k) = value::of_element(el) {
                    if !here.contains(&k) {
                        here.push(k);
                        if !seen.insert(here[here.len() - 1].clone()) && repeated.is_none() {
                            repeated = crate::profile::value_of(el);
                        }
                    }
                }
            });
        })?;
        Ok(repeated)
    }

    async fn reread(
        &mut self,
        meta: &CollectionMeta,
        ids: &[bson::Bson],
        paths: &[String],
    ) -> Result<Vec<Reread>> {
        self.reread_scan(meta, ids, paths)
    }

    async fn presence(
        &mut self,
        meta: &CollectionMeta,
        groups: &[Vec<String>],
    ) -> Result<Vec<PresenceCheck>> {
        let keys: Vec<Vec<Vec<&str>>> = groups
            .iter()
            .map(|g| g.iter().map(|p| p.split('.').collect()).collect())
            .collect();
        let mut found = vec![false; groups.len()];
        self.stream(meta, &mut |doc| {
            for (hit, paths) in found.iter_mut().zip(&keys) {
                if !*hit {
                    *hit = paths
                        .iter()
                        .any(|k| crate::profile::extract::has_value(doc, k));
                }
            }
        })?;
        Ok(groups
            .iter()
            .zip(found)
            .map(|(paths, found)| PresenceCheck {
                paths: paths.clone(),
                found,
                method: CheckMethod::FileScan,
            })
            .collect())
    }

    async fn fetch(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
        fields: &[String],
    ) -> Result<Vec<bson::Document>> {
        use crate::source::value;
        let wanted: std::collections::HashSet<value::ValueKey> =
            values.iter().filter_map(value::of_bson).collect();
        let keys: Vec<&str> = key.split('.').collect();
        let mut out = Vec::new();
        self.stream(meta, &mut |doc| {
            if out.len() >= values.len() {
                return;
            }
            let mut hit = false;
            crate::profile::extract::query_visit(doc, &keys, &mut |el| {
                hit |= value::of_element(el).is_some_and(|k| wanted.contains(&k));
            });
            if !hit {
                return;
            }
            let Ok(full) = bson::Document::from_reader(doc) else {
                return;
            };
            let mut d = bson::Document::new();
            for f in std::iter::once(key).chain(fields.iter().map(String::as_str)) {
                if let Some(v) = full.get(f) {
                    d.insert(f, v.clone());
                }
            }
            out.push(d);
        })?;
        Ok(out)
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

impl FileSource {
    /// Streams every document of one collection's file.
    fn stream(&self, meta: &CollectionMeta, mut each: &mut dyn FnMut(&[u8])) -> Result<u64> {
        self.stream_into(meta, &mut each)
    }

    /// Streams every document of one collection's file into `sink`.
    fn stream_into(&self, meta: &CollectionMeta, sink: &mut dyn Sink) -> Result<u64> {
        let (at, entry) = self.entry_at(meta)?;
        if let Holds::MetadataOnly = entry.holds {
            return Ok(0);
        }
        let file = File::open(&entry.path).map_err(|e| io_err(&entry.path, &e))?;
        match (&entry.holds, entry.format) {
            (Holds::Buckets(spec), _) => self
                .read_buckets(at, entry, spec, file, &mut |run| sink.documents(run))
                .map(|t| t.measurements)
                .map_err(|e| e.to_string()),
            (_, Format::ExtJson) => {
                let size = file.metadata().ok().map(|m| m.len());
                ejson::read_documents_into(file, size, sink).map_err(|e| e.to_string())
            }
            (_, Format::Bson) => {
                read_bson_runs(file, &mut |run| sink.documents(run)).map_err(|e| e.to_string())
            }
        }
        .map_err(|reason| SourceError::Malformed {
            path: entry.path.display().to_string(),
            reason,
        })
    }

    /// Visits every document of `meta` with `visit`, on `threads` threads
    /// when the file is large: the reading thread (which for Extended JSON only puts
    /// in order what every core parsed) gathers documents into batches and
    /// deals them round-robin to workers, each visiting into its own state
    /// made by `init`. Returns every state; what they hold must not depend
    /// on which thread saw which document (sets, counts).
    fn scan_on<T: Send>(
        &self,
        threads: usize,
        meta: &CollectionMeta,
        init: impl Fn() -> T + Sync,
        visit: impl Fn(&mut T, &[u8]) + Sync,
    ) -> Result<Vec<T>> {
        let large = self
            .entry(meta)
            .ok()
            .and_then(|e| std::fs::metadata(&e.path).ok())
            .is_some_and(|m| m.len() >= PARALLEL_AFTER as u64);
        if threads <= 1 || !large {
            let mut state = init();
            self.stream(meta, &mut |doc| visit(&mut state, doc))?;
            return Ok(vec![state]);
        }
        let (init, visit) = (&init, &visit);
        std::thread::scope(|scope| {
            // One queue that every worker takes from: a worker that is
            // ahead takes the next batch instead of waiting for its turn.
            // A batch is framed (`frame`) or documents as they come.
            let (tx, rx) = crossbeam_channel::bounded::<(Vec<u8>, bool)>(QUEUE * threads);
            let mut workers = Vec::with_capacity(threads);
            for _ in 0..threads {
                let rx = rx.clone();
                let spawned = std::thread::Builder::new()
                    .name("docshape-scan".into())
                    .spawn_scoped(scope, move || {
                        let mut state = init();
                        while let Ok((batch, framed)) = rx.recv() {
                            each_in(&batch, framed, |doc| visit(&mut state, doc));
                        }
                        state
                    });
                match spawned {
                    Ok(handle) => workers.push(handle),
                    Err(_) => break,
                }
            }
            drop(rx);
            // What no worker could take is visited here.
            let mut dealer = Dealer {
                local: init(),
                batch: new_batch(),
                tx: (!workers.is_empty()).then_some(tx),
                visit,
            };
            let read = self.stream_into(meta, &mut dealer);
            let full = std::mem::take(&mut dealer.batch);
            dealer.deal(full, true);
            dealer.tx = None;
            let mut states = vec![dealer.local];
            for w in workers {
                match w.join() {
                    Ok(state) => states.push(state),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            read.map(|_| states)
        })
    }

    pub(super) fn probe_scan(
        &self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
    ) -> Result<Vec<bson::Bson>> {
        let mut answers = self.probe_many_scan(meta, &[(key, values)])?;
        Ok(answers.pop().unwrap_or_default())
    }

    /// Every probe of `asks` answered by one scan of the file (reading an
    /// Extended JSON file costs far more than looking a value up).
    fn probe_many_scan(
        &self,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Vec<bson::Bson>>> {
        self.probe_many_scan_on(crate::profile::threads_from_env(), meta, asks)
    }

    fn probe_many_scan_on(
        &self,
        threads: usize,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Vec<bson::Bson>>> {
        use crate::source::value;
        type Wanted<'v> = std::collections::HashMap<value::ValueKey, &'v bson::Bson>;
        let wanted: Vec<Wanted<'_>> = asks
            .iter()
            .map(|(_, values)| {
                values
                    .iter()
                    .filter_map(|b| value::of_bson(b).map(|k| (k, b)))
                    .collect()
            })
            .collect();
        let keys: Vec<Vec<&str>> = asks
            .iter()
            .map(|(key, _)| key.split('.').collect())
            .collect();
        // Each thread gathers what it finds; the union is the answer.
        let per_thread = self.scan_on(
            threads,
            meta,
            || vec![std::collections::BTreeSet::new(); asks.len()],
            |found, doc| {
                for ((keys, wanted), found) in keys.iter().zip(&wanted).zip(found.iter_mut()) {
                    crate::profile::extract::query_visit(doc, keys, &mut |el| {
                        if let Some(k) = value::of_element(el) {
                            if wanted.contains_key(&k) {
                                found.insert(k);
                            }
                        }
                    });
                }
            },
        )?;
        let mut found = vec![std::collections::BTreeSet::new(); asks.len()];
        for part in per_thread {
            for (all, some) in found.iter_mut().zip(part) {
                all.extend(some);
            }
        }
        Ok(found
            .iter()
            .zip(&wanted)
            .map(|(found, wanted)| {
                found
                    .iter()
                    .filter_map(|k| wanted.get(k).map(|b| (*b).clone()))
                    .collect()
            })
            .collect())
    }

    pub(super) fn group_scan(&self, meta: &CollectionMeta, key: &str) -> Result<Vec<(u64, u64)>> {
        let Some(per_value) = self.tally(meta, key, crate::source::MAX_GROUPS)? else {
            return Err(SourceError::NotFound(format!(
                "{} has more than {} distinct values of {key}; fan-out not counted",
                meta.namespace(),
                crate::source::MAX_GROUPS
            )));
        };
        let mut hist: std::collections::BTreeMap<u64, u64> = std::collections::BTreeMap::new();
        for (_, n) in per_value.into_values() {
            *hist.entry(n).or_insert(0) += 1;
        }
        Ok(hist.into_iter().collect())
    }

    /// Documents per distinct value of the dotted `key` (a document holding
    /// a value twice counts once); `None` beyond `max` distinct values.
    fn tally(
        &self,
        meta: &CollectionMeta,
        key: &str,
        max: usize,
    ) -> Result<Option<std::collections::HashMap<crate::source::value::ValueKey, (bson::Bson, u64)>>>
    {
        use crate::source::value;
        let keys: Vec<&str> = key.split('.').collect();
        let mut per_value: std::collections::HashMap<value::ValueKey, (bson::Bson, u64)> =
            std::collections::HashMap::new();
        let mut overflow = false;
        self.stream(meta, &mut |doc| {
            let mut seen_here: Vec<(value::ValueKey, bson::Bson)> = Vec::new();
            crate::profile::extract::query_visit(doc, &keys, &mut |el| {
                if let (Some(k), Some(b)) = (value::of_element(el), crate::profile::value_of(el)) {
                    if !seen_here.iter().any(|s| s.0 == k) {
                        seen_here.push((k, b));
                    }
                }
            });
            for (k, b) in seen_here {
                if let Some(e) = per_value.get_mut(&k) {
                    e.1 += 1;
                } else if per_value.len() >= max {
                    overflow = true;
                } else {
                    per_value.insert(k, (b, 1));
                }
            }
        })?;
        Ok((!overflow).then_some(per_value))
    }

    pub(super) fn reread_scan(
        &self,
        meta: &CollectionMeta,
        ids: &[bson::Bson],
        paths: &[String],
    ) -> Result<Vec<Reread>> {
        use crate::source::value;
        let wanted: std::collections::HashMap<value::ValueKey, &bson::Bson> = ids
            .iter()
            .filter_map(|b| value::of_bson(b).map(|k| (k, b)))
            .collect();
        let segs: Vec<Vec<crate::profile::Seg>> = paths
            .iter()
            .map(|p| {
                p.split('.')
                    .map(|k| crate::profile::Seg::Key(k.to_owned()))
                    .collect()
            })
            .collect();
        let mut out = Vec::new();
        self.stream(meta, &mut |doc| {
            let Some(id) = crate::profile::extract::top(doc, "_id") else {
                return;
            };
            let Some(b) = value::of_element(&id).and_then(|k| wanted.get(&k)) else {
                return;
            };
            out.push(Reread {
                id: (*b).clone(),
                size: doc.len() as u64,
                lengths: crate::growth::snapshot::lengths_of(doc, &segs),
            });
        })?;
        Ok(out)
    }
}

/// The reading side of a scan on several threads: gathers documents into
/// batches for the workers' queue; what no worker can take is visited here.
struct Dealer<'v, T, V> {
    local: T,
    batch: Vec<u8>,
    /// The workers' queue (`None`: no worker runs).
    tx: Option<crossbeam_channel::Sender<(Vec<u8>, bool)>>,
    visit: &'v V,
}

impl<T, V: Fn(&mut T, &[u8])> Dealer<'_, T, V> {
    fn deal(&mut self, batch: Vec<u8>, framed: bool) {
        if batch.is_empty() {
            return;
        }
        let unsent = match &self.tx {
            Some(tx) => tx.send((batch, framed)).err().map(|e| e.0 .0),
            None => Some(batch),
        };
        if let Some(batch) = unsent {
            let (visit, local) = (self.visit, &mut self.local);
            each_in(&batch, framed, |doc| visit(local, doc));
        }
    }
}

impl<T, V: Fn(&mut T, &[u8])> Sink for Dealer<'_, T, V> {
    fn document(&mut self, doc: &[u8]) {
        if u32::try_from(doc.len()).is_ok() {
            frame(&mut self.batch, doc);
        } else {
            (self.visit)(&mut self.local, doc);
        }
        if self.batch.len() >= BATCH_BYTES {
            let full = std::mem::replace(&mut self.batch, new_batch());
            self.deal(full, true);
        }
    }

    fn documents(&mut self, docs: Vec<u8>) {
        self.deal(docs, false);
    }
}

/// What a read of a time-series collection's buckets found.
#[derive(Default)]
struct BucketTally {
    buckets: u64,
    measurements: u64,
    /// Buckets skipped, by why: how many, and the first reason.
    skipped: BTreeMap<&'static str, (u64, Text)>,
    /// Measurements the skipped buckets declare (`control.count`).
    lost: u64,
}

impl BucketTally {
    fn skipped_buckets(&self) -> u64 {
        self.skipped.values().map(|(n, _)| n).sum()
    }

    /// The report's note on the collection: what it is and what was read.
    fn note(&self, entry: &Entry, spec: &Spec) -> Text {
        use crate::fmt::group;
        use std::fmt::Write;
        let ns = entry.namespace();
        let file = entry
            .path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let field = |f: &Option<String>| f.as_deref().map(|f| format!("`{f}`"));
        let unknown = ("unknown".to_owned(), "未知".to_owned());
        let time = field(&spec.time_field);
        let meta = field(&spec.meta_field);
        let gran = spec.granularity.clone();
        let (t_en, t_zh) = time.map_or(unknown.clone(), |t| (t.clone(), t));
        let (m_en, m_zh) = match (&meta, &spec.metadata) {
            (Some(m), _) => (m.clone(), m.clone()),
            (None, Some(_)) => ("none".to_owned(), "无".to_owned()),
            (None, None) => unknown.clone(),
        };
        let (g_en, g_zh) = match (&gran, &spec.metadata) {
            (Some(g), _) => (g.clone(), g.clone()),
            (None, Some(_)) => ("not set".to_owned(), "未设置".to_owned()),
            (None, None) => unknown,
        };
        let many = |n: u64, one: &str, more: &str| {
            format!("{} {}", group(n), if n == 1 { one } else { more })
        };
        let mut en = format!(
            "{ns} is a time-series collection (time field {t_en}, meta field {m_en}, granularity {g_en}): {} read from {} in {file}",
            many(self.measurements, "measurement", "measurements"),
            many(self.buckets, "bucket", "buckets")
        );
        let mut zh = format!(
            "{ns} 是时间序列集合（时间字段 {t_zh}，元字段 {m_zh}，粒度 {g_zh}）：从 {file} 的 {} 个桶读出 {} 条测量",
            group(self.buckets),
            group(self.measurements)
        );
        let skipped = self.skipped_buckets();
        if skipped > 0 {
            let lost_en = if self.lost > 0 {
                format!(
                    ", holding {},",
                    many(self.lost, "measurement", "measurements")
                )
            } else {
                String::new()
            };
            let lost_zh = if self.lost > 0 {
                format!("（共 {} 条测量）", group(self.lost))
            } else {
                String::new()
            };
            let why_en: Vec<String> = self
                .skipped
                .values()
                .map(|(n, t)| format!("{}: {}", group(*n), t.en))
                .collect();
            let why_zh: Vec<String> = self
                .skipped
                .values()
                .map(|(n, t)| format!("{} 个：{}", group(*n), t.zh))
                .collect();
            let _ = write!(
                en,
                "; {}{lost_en} could not be read and {} skipped ({})",
                many(skipped, "bucket", "buckets"),
                if skipped == 1 { "was" } else { "were" },
                why_en.join("; ")
            );
            let _ = write!(
                zh,
                "；{} 个桶{lost_zh}无法读取，已跳过（{}）",
                group(skipped),
                why_zh.join("；")
            );
        }
        Text::new(en, zh)
    }
}

/// Why a `.bson` file cannot be read on: the document (counted from 1)
/// and the byte offset where it starts, and what is wrong (its `Display`
/// the sentence the user sees).
#[derive(Debug, thiserror::Error)]
pub enum BsonFileError {
    #[error("document {document} at byte offset {offset} declares a negative length ({len})")]
    NegativeLength {
        document: u64,
        offset: u64,
        len: i32,
    },
    #[error("document {document} at byte offset {offset} declares an impossible length of {len} bytes; this is not a BSON file or it is corrupt")]
    ImpossibleLength {
        document: u64,
        offset: u64,
        len: usize,
    },
    #[error("document {document} at byte offset {offset} is corrupt (no terminating zero)")]
    NoTerminator { document: u64, offset: u64 },
    #[error("file ends inside the length of document {document} (byte offset {offset}, {present} of 4 bytes)")]
    EndsInLength {
        document: u64,
        offset: u64,
        present: usize,
    },
    #[error("file ends inside document {document} (byte offset {offset}: {present} of {len} bytes present)")]
    EndsInDocument {
        document: u64,
        offset: u64,
        present: usize,
        len: usize,
    },
    /// Reading failed; the documents before were handed over.
    #[error("{0}")]
    Read(#[from] std::io::Error),
}

/// Reads concatenated BSON documents, checking every length prefix.
pub fn read_bson<R: Read>(
    reader: R,
    each: &mut dyn FnMut(&[u8]),
) -> std::result::Result<u64, BsonFileError> {
    read_bson_runs(reader, &mut |run| each_document(&run, &mut *each))
}

/// Bytes read into one run of documents (a larger document makes a run of
/// its own).
const RUN_BYTES: usize = BATCH_BYTES;

/// Reads concatenated BSON documents, checking every length prefix (at
/// least 5 bytes, at most [`MAX_BSON_DOC`], ending in a zero), and hands
/// them to `each_run` as they lie in the file, whole documents about
/// [`RUN_BYTES`] at a time: read once into the run, never copied one by
/// one. The documents before a damaged one are handed over before its
/// error is returned.
pub fn read_bson_runs<R: Read>(
    mut reader: R,
    each_run: &mut dyn FnMut(Vec<u8>),
) -> std::result::Result<u64, BsonFileError> {
    let mut buf: Vec<u8> = Vec::with_capacity(RUN_BYTES);
    let mut count = 0u64;
    // File offset of `buf[0]`.
    let mut offset = 0u64;
    let mut eof = false;
    let mut read_error = None;
    // Bytes `buf` must hold before it is looked at again.
    let mut want = RUN_BYTES;
    loop {
        while buf.len() < want && !eof {
            let room = (want - buf.len()) as u64;
            match reader.by_ref().take(room).read_to_end(&mut buf) {
                Ok(n) => eof = (n as u64) < room,
                Err(e) => {
                    // The whole documents read so far are still handed over.
                    read_error = Some(BsonFileError::Read(e));
                    eof = true;
                }
            }
        }
        // Whole documents from the start of `buf`.
        let mut at = 0usize;
        let failure = loop {
            let Some(prefix) = buf.get(at..at + 4) else {
                break None;
            };
            let here = offset + at as u64;
            let len = i32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
            let Ok(len) = usize::try_from(len) else {
                break Some(BsonFileError::NegativeLength {
                    document: count + 1,
                    offset: here,
                    len,
                });
            };
            if !(5..=MAX_BSON_DOC).contains(&len) {
                break Some(BsonFileError::ImpossibleLength {
                    document: count + 1,
                    offset: here,
                    len,
                });
            }
            let Some(&last) = buf.get(at + len - 1) else {
                break None;
            };
            if last != 0 {
                break Some(BsonFileError::NoTerminator {
                    document: count + 1,
                    offset: here,
                });
            }
            at += len;
            count += 1;
        };
        let rest = buf.len() - at;
        // Checked above when its 4 bytes are here.
        let next_len = buf.get(at..).and_then(raw::doc_len);
        let run = buf_before(&mut buf, at);
        offset += run.len() as u64;
        if !run.is_empty() {
            each_run(run);
        }
        if let Some(reason) = failure.or_else(|| read_error.take()) {
            return Err(reason);
        }
        if eof {
            return match (rest, next_len) {
                (0, _) => Ok(count),
                (present, None) => Err(BsonFileError::EndsInLength {
                    document: count + 1,
                    offset,
                    present,
                }),
                (present, Some(len)) => Err(BsonFileError::EndsInDocument {
                    document: count + 1,
                    offset,
                    present,
                    len,
                }),
            };
        }
        // The next document whole, or the next run's worth.
        want = next_len.map_or(RUN_BYTES, |len| len.max(RUN_BYTES));
    }
}

/// Takes `buf[..at]` out of `buf` as a run, leaving the bytes after it.
fn buf_before(buf: &mut Vec<u8>, at: usize) -> Vec<u8> {
    let mut rest = Vec::with_capacity(RUN_BYTES.max(buf.len() - at));
    rest.extend_from_slice(&buf[at..]);
    buf.truncate(at);
    std::mem::replace(buf, rest)
}

fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Counts the documents of a BSON file by following length prefixes only;
/// `None` when there are more than `limit`.
fn count_bson(path: &Path, limit: Option<u64>) -> std::io::Result<Option<u64>> {
    // Hops from length prefix to length prefix; a buffered reader keeps
    // the hops over small documents inside its buffer (no system call per
    // document), large documents are skipped by seeking.
    let f = File::open(path)?;
    let size = f.metadata()?.len();
    // A bounded count hops over the first documents only.
    let buffer = if limit.is_some() { 64 << 10 } else { 1 << 20 };
    let mut r = std::io::BufReader::with_capacity(buffer, f);
    let mut pos = 0u64;
    let mut n = 0u64;
    let mut len = [0u8; 4];
    while pos < size {
        if read_full(&mut r, &mut len)? < 4 {
            break;
        }
        let Some(l) = raw::doc_len(&len).filter(|&l| l >= 5) else {
            break;
        };
        pos += l as u64;
        if pos > size {
            break;
        }
        n += 1;
        if limit.is_some_and(|most| n > most) {
            return Ok(None);
        }
        r.seek_relative(l as i64 - 4)?;
    }
    Ok(Some(n))
}

/// The whole-file figures a `.bson` file gives without parsing: every
/// document's size from hopping its length prefixes (no document is read
/// but the largest few, for their `_id`), the largest `ask.top` and the
/// documents at or over each threshold. Array lengths need the documents
/// parsed: they are listed as not measured.
pub fn skim_bson(
    path: &Path,
    ask: &crate::source::ExtremesAsk,
) -> std::io::Result<crate::source::Extremes> {
    use crate::source::extremes::{LargeDocument, OverThreshold, TopK};
    let start = std::time::Instant::now();
    let mut out = crate::source::Extremes::new("bson-skim");
    let f = File::open(path)?;
    let size = f.metadata()?.len();
    let mut r = std::io::BufReader::with_capacity(1 << 20, f);
    let mut top = TopK::new(ask.top);
    let mut over = vec![0u64; ask.thresholds.len()];
    let mut pos = 0u64;
    let mut len = [0u8; 4];
    while pos < size {
        if read_full(&mut r, &mut len)? < 4 {
            break;
        }
        let Some(l) = raw::doc_len(&len).filter(|&l| l >= 5) else {
            break;
        };
        let bytes = l as u64;
        if pos + bytes > size {
            break;
        }
        out.documents += 1;
        top.offer(bytes, pos);
        for (n, (_, at)) in over.iter_mut().zip(&ask.thresholds) {
            if bytes >= *at {
                *n += 1;
            }
        }
        pos += bytes;
        r.seek_relative(l as i64 - 4)?;
    }
    let mut f = r.into_inner();
    for (bytes, at) in top.into_vec() {
        out.largest.push(LargeDocument {
            id: first_id(&mut f, at, bytes),
            bytes,
        });
    }
    out.over = ask
        .thresholds
        .iter()
        .zip(over)
        .map(|((name, bytes), documents)| OverThreshold {
            threshold: name.clone(),
            bytes: *bytes,
            documents,
        })
        .collect();
    out.not_measured = ask
        .arrays
        .iter()
        .map(|(p, _)| format!("{p}: a skim of length prefixes does not read arrays"))
        .chain(
            ask.dates
                .iter()
                .map(|(p, _)| format!("{p}: a skim of length prefixes does not read dates")),
        )
        .collect();
    out.set_elapsed(start.elapsed());
    Ok(out)
}

/// The `_id` of the document of `len` bytes at `offset`, when it is the
/// first field (as the server writes it): only its first bytes are read.
fn first_id(f: &mut File, offset: u64, len: u64) -> Option<serde_json::Value> {
    use std::io::Seek;
    // `_id` first and at most a 1 KiB string or binary: enough for ids.
    let want = usize::try_from(len.min(1024 + 64)).ok()?;
    f.seek(std::io::SeekFrom::Start(offset)).ok()?;
    let mut buf = vec![0u8; want];
    if read_full(f, &mut buf).ok()? < want {
        return None;
    }
    // The prefix as a document of its own: its first element is whole
    // when the `_id` fits.
    buf.push(0);
    let n = i32::try_from(buf.len()).ok()?;
    buf[..4].copy_from_slice(&n.to_le_bytes());
    let first = raw::elements(&buf).ok()?.next()?.ok()?;
    if first.key != b"_id" {
        return None;
    }
    let mut doc = Vec::with_capacity(first.size + 5);
    doc.extend_from_slice(&i32::try_from(first.size + 5).ok()?.to_le_bytes());
    doc.extend_from_slice(buf.get(4..4 + first.size)?);
    doc.push(0);
    let d = bson::Document::from_reader(doc.as_slice()).ok()?;
    d.get("_id").map(|v| v.clone().relaxed())
}

fn seed_of(s: &str) -> u64 {
    crate::profile::sketch::hash_bytes(0x5eed, s.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bson_stream_errors_are_clear() {
        let mut one = Vec::new();
        bson::doc! {"a": 1}.to_writer(&mut one).expect("write");
        let mut two = one.clone();
        two.extend_from_slice(&one);
        let mut n = 0;
        assert_eq!(read_bson(&two[..], &mut |_| n += 1).ok(), Some(2));
        assert_eq!(n, 2);
        let e = read_bson(&two[..two.len() - 3], &mut |_| {})
            .expect_err("truncated")
            .to_string();
        assert!(e.contains("file ends inside document 2"), "{e}");
        let e = read_bson(&b"{\"a\": 1}\n"[..], &mut |_| {})
            .expect_err("json")
            .to_string();
        assert!(e.contains("impossible length"), "{e}");
        assert_eq!(read_bson(&b""[..], &mut |_| {}).ok(), Some(0));
    }

    /// A reader that hands out at most `step` bytes per read, then fails
    /// (when `fail`) instead of ending.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
        fail: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.data.is_empty() && self.fail {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn runs_of_a_bson_file_are_its_documents_whole_and_in_order() {
        // Small documents, then one larger than a run, then small again.
        let mut file = Vec::new();
        let mut docs = Vec::new();
        for i in 0..3_000 {
            let pad = "y".repeat(if i == 1_500 { 3 * RUN_BYTES } else { i % 97 });
            let mut d = Vec::new();
            bson::doc! {"_id": i as i64, "pad": pad}
                .to_writer(&mut d)
                .expect("write");
            file.extend_from_slice(&d);
            docs.push(d);
        }
        for step in [1, 7, 4096, usize::MAX] {
            let mut runs = Vec::new();
            let reader = Trickle {
                data: &file,
                step,
                fail: false,
            };
            let n = read_bson_runs(reader, &mut |run| runs.push(run)).expect("reads");
            assert_eq!(n, 3_000);
            assert_eq!(runs.concat(), file, "step {step}: the runs are the file");
            let mut got = Vec::new();
            for run in &runs {
                assert!(
                    run.len() <= 4 * RUN_BYTES,
                    "step {step}: a run of {}",
                    run.len()
                );
                each_document(run, |d| got.push(d.to_vec()));
            }
            assert!(got == docs, "step {step}: documents differ");
        }
        // Damage: the documents before it are handed over, then the error
        // that reading document by document gives.
        let cut = &file[..file.len() - 3];
        let mut whole = 0;
        let e = read_bson_runs(cut, &mut |run| each_document(&run, |_| whole += 1))
            .expect_err("truncated")
            .to_string();
        assert_eq!(whole, 2_999);
        let offset = file.len() - docs[2_999].len();
        assert_eq!(
            e,
            format!(
                "file ends inside document 3000 (byte offset {offset}: {} of {} bytes present)",
                docs[2_999].len() - 3,
                docs[2_999].len()
            )
        );
        let mut zeroless = file.clone();
        let end = docs[0].len() + docs[1].len();
        zeroless[end - 1] = 1;
        let mut whole = 0;
        let e = read_bson_runs(&zeroless[..], &mut |run| {
            each_document(&run, |_| whole += 1);
        })
        .expect_err("no zero")
        .to_string();
        assert_eq!(whole, 1);
        assert_eq!(
            e,
            format!(
                "document 2 at byte offset {} is corrupt (no terminating zero)",
                docs[0].len()
            )
        );
        let e = read_bson_runs(&file[..docs[0].len() + 2], &mut |_| {})
            .expect_err("length cut")
            .to_string();
        assert_eq!(
            e,
            format!(
                "file ends inside the length of document 2 (byte offset {}, 2 of 4 bytes)",
                docs[0].len()
            )
        );
        let mut whole = 0;
        let failing = Trickle {
            data: &file[..end],
            step: 5,
            fail: true,
        };
        let e = read_bson_runs(failing, &mut |run| each_document(&run, |_| whole += 1))
            .expect_err("read error")
            .to_string();
        assert_eq!((whole, e.as_str()), (2, "disk gone"));
    }

    /// A probe of a file large enough to be scanned on several threads
    /// finds exactly what one thread finds, in both formats.
    #[test]
    fn probes_on_several_threads_find_what_one_finds() {
        let dir = tempfile::tempdir().expect("temp dir");
        let pad = "x".repeat(300);
        let docs: Vec<bson::Document> = (0..6_000i64)
            .map(|i| bson::doc! {"_id": i * 3, "tags": [format!("t{}", i % 101)], "pad": &pad})
            .collect();
        let mut bytes = Vec::new();
        for d in &docs {
            d.to_writer(&mut bytes).expect("encode");
        }
        assert!(
            bytes.len() > PARALLEL_AFTER,
            "large enough to scan in parallel"
        );
        std::fs::write(dir.path().join("items.bson"), &bytes).expect("write bson");
        let lines: String = docs
            .iter()
            .map(|d| bson::Bson::Document(d.clone()).relaxed().to_string() + "\n")
            .collect();
        std::fs::write(dir.path().join("lines.json"), lines).expect("write json");
        let src = FileSource::open(dir.path()).expect("open");
        let ids: Vec<bson::Bson> = (0..2_000i64).map(bson::Bson::Int64).collect();
        let tags: Vec<bson::Bson> = (90..120)
            .map(|i| bson::Bson::String(format!("t{i}")))
            .collect();
        let asks: [(&str, &[bson::Bson]); 2] = [("_id", &ids), ("tags", &tags)];
        for name in ["items", "lines"] {
            let entry = src.entries.iter().find(|e| e.coll == name).expect("entry");
            let meta = CollectionMeta::new(&entry.db, &entry.coll);
            let one = src.probe_many_scan_on(1, &meta, &asks).expect("one thread");
            assert_eq!(one[0].len(), 667, "{name}: multiples of 3 below 2,000");
            assert_eq!(one[1].len(), 11, "{name}: t90..t100");
            for threads in [2, 3, 8] {
                let many = src
                    .probe_many_scan_on(threads, &meta, &asks)
                    .expect("threads");
                assert_eq!(many, one, "{name} on {threads} threads");
            }
        }
    }

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
