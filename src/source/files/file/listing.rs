//! What a file or a directory of files holds: a collection per document
//! file, named as its folder names it (a database's folder, or a folder of
//! `DB.COLL` exports), the time-series collections whose buckets a dump
//! holds, the collections of which only the metadata is left, and why a
//! directory gives none.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::metadata::{read_legacy_indexes, read_metadata_doc};
use super::{io_err, Format};
use crate::i18n::Text;
use crate::source::files::buckets::Spec;
use crate::source::files::names::{self, Naming};
use crate::source::{IndexInfo, Result};

#[derive(Clone, Debug)]
pub(super) struct Entry {
    pub(super) db: String,
    pub(super) coll: String,
    pub(super) path: PathBuf,
    pub(super) format: Format,
    pub(super) holds: Holds,
    /// `DB.`, which begins the names of the file and of its metadata in a
    /// folder of exports; empty in a database's folder.
    pub(super) prefix: String,
}

/// What a collection's file holds.
#[derive(Clone, Debug)]
pub(super) enum Holds {
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
    pub(super) fn of_file(naming: &Naming, name: &str, path: PathBuf, format: Format) -> Entry {
        let local = name.strip_prefix(naming.prefix.as_str()).unwrap_or(name);
        match buckets_of(local) {
            Some(coll) if format == Format::Bson => Entry::buckets(naming, coll, path),
            _ => Entry::documents(naming, naming.collection(&stem(&path)), path, format),
        }
    }

    pub(super) fn namespace(&self) -> String {
        format!("{}.{}", self.db, self.coll)
    }

    /// The name of a file of this collection beside its data file:
    /// `ending` after the collection's name (and the folder's `DB.`).
    pub(super) fn sibling(&self, ending: &str) -> String {
        format!("{}{}{ending}", self.prefix, self.coll)
    }

    /// The file beside it naming its indexes and options.
    pub(super) fn metadata_path(&self) -> Option<PathBuf> {
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
pub(super) const LEGACY_INDEXES: &str = "system.indexes.bson";

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
pub(super) fn deeper_hint(path: &Path, label: &str) -> String {
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

pub(super) fn sorted_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let rd = std::fs::read_dir(dir).map_err(|e| io_err(dir, &e))?;
    let mut out: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    out.sort();
    Ok(out)
}

/// The indexes of the `system.indexes.bson` files read so far, and what
/// could not be read of them; the files of a directory left out, with why.
#[derive(Default)]
pub(super) struct Legacy {
    pub(super) indexes: HashMap<(String, String), Vec<IndexInfo>>,
    pub(super) failures: Vec<(String, Text)>,
    pub(super) left_out: Vec<(String, Text)>,
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
pub(super) fn file_naming(path: &Path) -> Naming {
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
pub(super) fn scan_dir(dir: &Path, out: &mut Vec<Entry>, legacy: &mut Legacy) -> Result<()> {
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
