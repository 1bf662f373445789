//! What the names of a folder's files say: which database and collection
//! each file holds, and which files are a tool's own, not a collection.
//!
//! A folder is a database, named after the folder (`mongodump`'s
//! `DB/COLL.bson`), unless its file names carry the database: Compass,
//! `mongoexport` and Atlas name an export `DB.COLL.json`, and an unpacked
//! `mongodump --archive` writes `DB.COLL.bson` beside
//! `DB.COLL.metadata.json`. A collection's own name may hold dots
//! (`fs.files`, `system.buckets.x`, `anexos.chunks`), so a shared first
//! segment alone would misread a dump folder holding one GridFS bucket.
//! The rule, for the files of one folder ([`naming`]):
//!
//! 1. Where a file's `.metadata.json` names its collection
//!    (`collectionName`, or the `ns` of an index, `DB.COLL`), that name
//!    decides: a file named after the collection makes the folder the
//!    database; a file named `DB.` + the collection makes it a folder of
//!    `DB`'s exports. Every file whose metadata names its collection must
//!    agree on one `DB.`, else the folder is the database.
//! 2. Without such metadata, the folder holds the exports of `DB` when
//!    every file's stem (leaving out the server's own `system.*` files) is
//!    `DB.COLL` with one and the same `DB`, a valid database name, and the
//!    `COLL`s are not merely the two parts of a GridFS bucket named `DB`
//!    (`DB.files`, `DB.chunks`).
//!
//! A `mongodump` tree, whose metadata names each collection as its file
//! is named, is therefore always read as before: one database per folder.

use std::path::Path;

use crate::i18n::Text;

/// The file `mongodump` writes first, with the versions of the server and
/// the tool (`{"ServerVersion": …, "ToolVersion": …}`).
pub const PRELUDE: &str = "prelude.json";
/// The oplog `mongodump --oplog` captured while it dumped.
pub const OPLOG: &str = "oplog.bson";
/// Largest prelude read: mongodump's is a few dozen bytes.
const PRELUDE_MAX_BYTES: u64 = 64 * 1024;

/// The database and collections a folder's files belong to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Naming {
    /// The database.
    pub db: String,
    /// `DB.`, which begins every file name of a folder of exports; empty
    /// when the folder is the database.
    pub prefix: String,
}

impl Naming {
    /// A folder that is the database `db`.
    pub(crate) fn database(db: &str) -> Naming {
        Naming {
            db: db.to_owned(),
            prefix: String::new(),
        }
    }

    /// The collection a file named `stem` (its name less its ending) holds.
    pub fn collection<'a>(&self, stem: &'a str) -> &'a str {
        stem.strip_prefix(self.prefix.as_str())
            .filter(|c| !c.is_empty())
            .unwrap_or(stem)
    }
}

/// How the files of the folder `folder` are named (see the module's rule).
/// `stems` are the names of its collection files less their endings
/// (`.json`, `.bson`, `.metadata.json` …), each with the collection its
/// metadata names, if it names one.
pub fn naming(folder: &str, stems: &[(&str, Option<&str>)]) -> Naming {
    let said: Vec<Option<&str>> = stems
        .iter()
        .filter_map(|&(stem, coll)| {
            let coll = coll?;
            if stem == coll {
                return Some(None);
            }
            let db = stem.strip_suffix(coll)?.strip_suffix('.')?;
            Some(Some(db).filter(|d| valid_db(d)))
        })
        .collect();
    let exports_of = if said.is_empty() {
        shared_prefix(stems.iter().map(|(s, _)| *s))
    } else {
        match said[0] {
            Some(db) if said.iter().all(|s| *s == Some(db)) => Some(db),
            _ => None,
        }
    };
    match exports_of {
        Some(db) => Naming {
            db: db.to_owned(),
            prefix: format!("{db}."),
        },
        None => Naming::database(folder),
    }
}

/// The `DB` every stem begins with (`DB.COLL`), leaving out the server's
/// `system.*` files, when there is one and it is not a GridFS bucket.
fn shared_prefix<'a>(stems: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut db: Option<&str> = None;
    let mut only_bucket_parts = true;
    let mut any = false;
    for stem in stems.filter(|s| !s.starts_with("system.")) {
        let (first, rest) = stem.split_once('.')?;
        if rest.is_empty() || !valid_db(first) || db.is_some_and(|d| d != first) {
            return None;
        }
        db = Some(first);
        any = true;
        only_bucket_parts &= matches!(rest, "files" | "chunks");
    }
    db.filter(|_| any && !only_bucket_parts)
}

/// Whether `name` may name a database: not empty, under 64 bytes, none of
/// the characters MongoDB forbids in one.
pub(crate) fn valid_db(name: &str) -> bool {
    !name.is_empty()
        && name.len() < 64
        && !name.chars().any(|c| {
            matches!(
                c,
                '/' | '\\' | '.' | ' ' | '"' | '$' | '*' | '<' | '>' | ':' | '|' | '?' | '\0'
            )
        })
}

/// The collection a dump's metadata document names: its `collectionName`,
/// else the collection of an index's `ns` (`DB.COLL`, MongoDB before 4.4).
pub fn metadata_collection(doc: &bson::Document) -> Option<String> {
    if let Ok(name) = doc.get_str("collectionName") {
        return Some(name.to_owned());
    }
    doc.get_array("indexes")
        .ok()?
        .iter()
        .filter_map(|i| i.as_document()?.get_str("ns").ok())
        .find_map(|ns| ns.split_once('.').map(|(_, c)| c.to_owned()))
}

/// A file a tool writes beside the collections it dumps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolFile {
    /// mongodump's `prelude.json`, with the versions it states.
    Prelude {
        server: Option<String>,
        tool: Option<String>,
    },
    /// The oplog `mongodump --oplog` captured (`oplog.bson`, with no
    /// metadata of a collection beside it).
    Oplog,
}

impl ToolFile {
    /// What the file is, said in a note: `shown` is its path.
    pub(crate) fn note(&self, shown: &str) -> Text {
        match self {
            ToolFile::Prelude { server, tool } => {
                let versions = |server_word: &str, sep: &str| {
                    let mut v = Vec::new();
                    if let Some(s) = server {
                        v.push(format!("{server_word} {s}"));
                    }
                    if let Some(t) = tool {
                        v.push(format!("mongodump {t}"));
                    }
                    v.join(sep)
                };
                let (en, zh) = match (server, tool) {
                    (None, None) => (String::new(), String::new()),
                    _ => (
                        format!(" ({})", versions("server", ", ")),
                        format!("（{}）", versions("服务器", "，")),
                    ),
                };
                Text::new(
                    format!("{shown} is mongodump's prelude{en}, the tool's record of the dump, not a collection: it was not read as documents"),
                    format!("{shown} 是 mongodump 的 prelude{zh}，即工具对这次转储的记录，不是集合：未按文档读取"),
                )
            }
            ToolFile::Oplog => Text::new(
                format!("{shown} is the oplog mongodump --oplog captured while it dumped (for mongorestore --oplogReplay), not a collection: it was not read as documents"),
                format!("{shown} 是 mongodump --oplog 在转储期间捕获的 oplog（供 mongorestore --oplogReplay 使用），不是集合：未按文档读取"),
            ),
        }
    }

    /// Why the file, named on its own, is not read.
    pub(crate) fn refusal(&self) -> String {
        match self {
            ToolFile::Prelude { .. } => "is mongodump's prelude (the versions of the server and the tool), not documents; audit the directory it is in to read the dump".to_owned(),
            ToolFile::Oplog => "is the oplog mongodump --oplog captured, not a collection's documents; audit the directory it is in to read the dump".to_owned(),
        }
    }
}

/// The tool file `path` is, if it is one: a `prelude.json` holding one
/// object with `ServerVersion` or `ToolVersion`; an `oplog.bson` with no
/// `oplog.metadata.json` beside it whose first entry has `ts` and `op`.
pub fn tool_file(path: &Path) -> Option<ToolFile> {
    match path.file_name()?.to_str()? {
        PRELUDE => prelude(path),
        OPLOG if !path.with_file_name("oplog.metadata.json").exists() => {
            let mut f = std::fs::File::open(path).ok()?;
            let first = bson::Document::from_reader(&mut f).ok()?;
            (first.contains_key("ts") && first.contains_key("op")).then_some(ToolFile::Oplog)
        }
        _ => None,
    }
}

fn prelude(path: &Path) -> Option<ToolFile> {
    if std::fs::metadata(path).ok()?.len() > PRELUDE_MAX_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let serde_json::Value::Object(o) = serde_json::from_str(text).ok()? else {
        return None;
    };
    let version = |k: &str| o.get(k).and_then(|v| v.as_str()).map(str::to_owned);
    let (server, tool) = (version("ServerVersion"), version("ToolVersion"));
    (o.contains_key("ServerVersion") || o.contains_key("ToolVersion"))
        .then_some(ToolFile::Prelude { server, tool })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(folder: &str, stems: &[&str]) -> Naming {
        let s: Vec<(&str, Option<&str>)> = stems.iter().map(|s| (*s, None)).collect();
        naming(folder, &s)
    }

    fn exports(db: &str) -> Naming {
        Naming {
            db: db.into(),
            prefix: format!("{db}."),
        }
    }

    #[test]
    fn exports_named_by_their_tool_carry_the_database() {
        let n = named(
            "database",
            &["test.reservations", "test.users", "test.vehicles"],
        );
        assert_eq!(n, exports("test"));
        assert_eq!(n.collection("test.reservations"), "reservations");
        // A collection whose own name holds dots keeps them.
        let n = named(
            "exports",
            &["shop.fs.files", "shop.fs.chunks", "shop.orders"],
        );
        assert_eq!(n.collection("shop.fs.files"), "fs.files");
        // One export alone names its database too.
        assert_eq!(named("Downloads", &["test.reservations"]), exports("test"));
    }

    #[test]
    fn a_dump_folder_stays_the_database() {
        for stems in [
            &["users", "orders"][..],
            // Plain and dotted names side by side.
            &["users", "fs.files", "fs.chunks"],
            // One GridFS bucket, and nothing else.
            &["fs.files", "fs.chunks"],
            &["anexos.files"],
            // Two prefixes.
            &["test.users", "prod.users"],
            // A time-series collection's buckets.
            &["system.buckets.weather"],
            // A prefix no database may have.
            &["my db.users", "my db.orders"],
        ] {
            assert_eq!(named("test", stems), Naming::database("test"), "{stems:?}");
        }
        // The server's own files do not decide.
        assert_eq!(
            named("x", &["test.users", "system.indexes", "test.orders"]),
            exports("test")
        );
    }

    #[test]
    fn metadata_naming_the_collection_decides() {
        // A dump folder whose collections all begin with the same word.
        let n = naming(
            "test",
            &[
                ("app.users", Some("app.users")),
                ("app.orders", Some("app.orders")),
            ],
        );
        assert_eq!(n, Naming::database("test"));
        // An unpacked archive: the metadata names the collection, the file
        // name adds the database.
        let n = naming(
            "dump",
            &[("fs.files", Some("files")), ("fs.chunks", Some("chunks"))],
        );
        assert_eq!(n, exports("fs"));
        let n = naming(
            "dump",
            &[("shop.users", Some("users")), ("shop.orders", None)],
        );
        assert_eq!(n, exports("shop"));
        // Files that disagree leave the folder the database.
        let n = naming(
            "dump",
            &[
                ("shop.users", Some("users")),
                ("shop.orders", Some("shop.orders")),
            ],
        );
        assert_eq!(n, Naming::database("dump"));
    }

    #[test]
    fn metadata_names_its_collection_new_and_old() {
        let new = bson::doc! {"indexes": [], "collectionName": "anexos.files"};
        assert_eq!(metadata_collection(&new).as_deref(), Some("anexos.files"));
        let old = bson::doc! {"indexes": [{"v": 1, "key": {"_id": 1}, "name": "_id_", "ns": "test.fs.files"}]};
        assert_eq!(metadata_collection(&old).as_deref(), Some("fs.files"));
        assert_eq!(metadata_collection(&bson::doc! {"indexes": []}), None);
    }

    #[test]
    fn tool_files_are_told_by_name_and_content() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join(PRELUDE);
        std::fs::write(&p, r#"{"ServerVersion":"8.0.18","ToolVersion":"100.14.1"}"#)
            .expect("write");
        let found = tool_file(&p).expect("a prelude");
        assert_eq!(
            found,
            ToolFile::Prelude {
                server: Some("8.0.18".into()),
                tool: Some("100.14.1".into())
            }
        );
        let note = found.note("dump/prelude.json");
        assert!(
            note.en.contains("server 8.0.18, mongodump 100.14.1"),
            "{}",
            note.en
        );
        assert!(note.zh.contains("服务器 8.0.18"), "{}", note.zh);
        // A collection exported as prelude.json is a collection.
        std::fs::write(&p, r#"[{"_id": 1, "text": "Once upon a time"}]"#).expect("write");
        assert_eq!(tool_file(&p), None);
        std::fs::write(&p, r#"{"_id": 1, "ServerVersionX": "x"}"#).expect("write");
        assert_eq!(tool_file(&p), None);

        let oplog = dir.path().join(OPLOG);
        let mut bytes = Vec::new();
        bson::doc! {"ts": bson::Timestamp { time: 1, increment: 1 }, "op": "i", "ns": "a.b", "o": {"_id": 1}}
            .to_writer(&mut bytes)
            .expect("bson");
        std::fs::write(&oplog, &bytes).expect("write");
        assert_eq!(tool_file(&oplog), Some(ToolFile::Oplog));
        // A collection named oplog, dumped with its metadata.
        std::fs::write(dir.path().join("oplog.metadata.json"), "{}").expect("write");
        assert_eq!(tool_file(&oplog), None);
    }
}
