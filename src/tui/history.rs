//! The query bar's history, kept across sessions: `query-history.json` in
//! docshape's state directory, readable by its owner only (mode 0600).
//! Queries are kept per target — named as the explorer shows it, password
//! masked, so no password is ever written — and per collection: the last
//! [`PER_COLLECTION`] of each, the [`COLLECTIONS`] collections queried
//! most recently.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::source::QueryText;

/// Queries remembered per collection.
pub const PER_COLLECTION: usize = 50;
/// Collections remembered, over every target.
pub const COLLECTIONS: usize = 200;

const FILE: &str = "query-history.json";

/// One query as typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    filter: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    sort: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    projection: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    skip: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    limit: String,
}

impl From<&QueryText> for Entry {
    fn from(q: &QueryText) -> Entry {
        Entry {
            filter: q.filter.clone(),
            sort: q.sort.clone(),
            projection: q.projection.clone(),
            skip: q.skip.clone(),
            limit: q.limit.clone(),
        }
    }
}

impl From<Entry> for QueryText {
    fn from(e: Entry) -> QueryText {
        QueryText {
            filter: e.filter,
            sort: e.sort,
            projection: e.projection,
            skip: e.skip,
            limit: e.limit,
        }
    }
}

/// The queries of one collection of one target.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Kept {
    target: String,
    namespace: String,
    /// Oldest first.
    queries: Vec<Entry>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    /// Least recently queried first.
    collections: Vec<Kept>,
}

/// The history file in the state directory `dir`.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

fn read(path: &Path) -> File {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// The history of `target` (as shown, password masked), per namespace,
/// oldest first. A missing or unreadable file is an empty history.
pub fn load(dir: &Path, target: &str) -> HashMap<String, Vec<QueryText>> {
    read(&path_in(dir))
        .collections
        .into_iter()
        .filter(|k| k.target == target)
        .map(|k| {
            let queries = k.queries.into_iter().map(QueryText::from).collect();
            (k.namespace, queries)
        })
        .collect()
}

/// Keeps `queries` (oldest first) as the history of `namespace` on
/// `target`, the most recent collection now; the file is replaced whole
/// (written beside it, then renamed), readable by its owner only.
pub(crate) fn save(
    dir: &Path,
    target: &str,
    namespace: &str,
    queries: &[QueryText],
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = path_in(dir);
    let mut file = read(&path);
    file.collections
        .retain(|k| !(k.target == target && k.namespace == namespace));
    let start = queries.len().saturating_sub(PER_COLLECTION);
    file.collections.push(Kept {
        target: target.to_owned(),
        namespace: namespace.to_owned(),
        queries: queries[start..].iter().map(Entry::from).collect(),
    });
    let over = file.collections.len().saturating_sub(COLLECTIONS);
    file.collections.drain(..over);
    let text = serde_json::to_vec_pretty(&file).map_err(std::io::Error::other)?;
    write_private(dir, FILE, &text)
}

/// Replaces the file `name` in `dir` whole with `text` (written beside
/// it, then renamed), readable by its owner only.
pub(super) fn write_private(dir: &Path, name: &str, text: &[u8]) -> std::io::Result<()> {
    let tmp = dir.join(format!(".{name}.{}", std::process::id()));
    let mut out = private_file(&tmp)?;
    let written = out.write_all(text).and_then(|()| out.sync_all());
    drop(out);
    match written.and_then(|()| std::fs::rename(&tmp, dir.join(name))) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// A file only its owner can read and write.
#[cfg(unix)]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn private_file(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::create(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(filter: &str) -> QueryText {
        QueryText::filter(filter)
    }

    #[test]
    fn kept_per_target_and_collection_capped_and_private() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let d = dir.path().join("state");
        assert!(load(&d, "t").is_empty());
        let many: Vec<QueryText> = (0..60).map(|i| q(&format!("{{a: {i}}}"))).collect();
        save(&d, "mongodb://u:****@h/", "db.c", &many).expect("save");
        save(&d, "other", "db.c", &[q("{b: 1}")]).expect("save");
        let h = load(&d, "mongodb://u:****@h/");
        let kept = &h["db.c"];
        assert_eq!(kept.len(), PER_COLLECTION);
        assert_eq!(kept.last(), many.last());
        assert_eq!(kept.first(), many.get(60 - PER_COLLECTION));
        assert_eq!(load(&d, "other")["db.c"], [q("{b: 1}")]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path_in(&d))
                .expect("file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Only the history is left in the directory.
        assert_eq!(std::fs::read_dir(&d).expect("dir").count(), 1);
        for i in 0..COLLECTIONS + 5 {
            save(&d, "t", &format!("db.c{i}"), &[q("{}")]).expect("save");
        }
        let all = read(&path_in(&d)).collections;
        assert_eq!(all.len(), COLLECTIONS);
        assert_eq!(all.last().map(|k| k.namespace.as_str()), Some("db.c204"));
    }

    #[test]
    fn a_damaged_file_is_an_empty_history() {
        let dir = tempfile::tempdir().expect("temporary directory");
        std::fs::write(path_in(dir.path()), "{not json").expect("write");
        assert!(load(dir.path(), "t").is_empty());
        save(dir.path(), "t", "a.b", &[q("{x: 1}")]).expect("save");
        assert_eq!(load(dir.path(), "t")["a.b"], [q("{x: 1}")]);
    }
}
