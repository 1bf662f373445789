//! `docshape seed`: loads the teaching data sets into a server, one
//! database per data set (`<prefix><dataset>`), generating the large or
//! numerous documents deterministically, and with `--workload` runs a
//! workload on them with the profiler on. The only command that writes.
//!
//! The data sets are defined in [`datasets`]; their small collections are
//! also committed as Extended JSON under `sample-data/` ([`export`] writes
//! them, and a test checks the committed files match). The workload is
//! defined in [`workload`], and its `mongod` log on the committed data is
//! bundled as `sample-data/workload/mongod.log` (checked the same way).

pub mod datasets;
pub mod gen;
pub mod workload;

use crate::profile::extjson::Relaxed as _;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use bson::Document;
use mongodb::options::IndexOptions;
use mongodb::{Client, IndexModel};

pub use datasets::{Collection, Dataset, Index, NAMES};
pub use workload::Ran;

use crate::secret::{mask_uri, Masked, Secrets};

/// Documents per `insert_many`, at most.
const BATCH_DOCS: usize = 1000;
/// Bytes per `insert_many`, at most (one large document still goes alone).
const BATCH_BYTES: usize = 8 * 1024 * 1024;

/// What `docshape seed` is asked to write (read from its arguments in
/// `cli`).
#[derive(Debug, Clone)]
pub struct Request {
    /// Connection string of the server to write to.
    pub uri: String,
    /// Database name prefix: data set NAME goes to database `<PREFIX>NAME`.
    pub prefix: String,
    /// A copy for each of N students of a class (`student01_` …), instead
    /// of one under `prefix`.
    pub students: Option<u16>,
    /// Only these data sets (default: all of them).
    pub datasets: Vec<String>,
    /// Drop the data sets' collections first if they hold documents.
    pub drop: bool,
    /// Bound on connecting, in seconds.
    pub timeout: u64,
    /// Then run the bundled workload with the database profiler on.
    pub workload: bool,
}

/// What was written to one collection.
#[derive(Clone, Debug)]
pub struct Written {
    pub db: String,
    pub collection: String,
    pub documents: u64,
    pub bytes: u64,
    pub indexes: usize,
    pub generated: u64,
}

/// Why seeding stopped. Every message is one sentence.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error("{0}")]
    Usage(String),
    #[error("{ns} already holds documents; refusing to write to it (pass --drop to replace the data sets' collections)")]
    NotEmpty { ns: String },
    /// What the server (or the driver) said, with the causes it gave.
    #[error(transparent)]
    Server(Masked),
    /// The target is not a connection string (shown with its password
    /// masked).
    #[error("seed writes to a MongoDB server: give a connection string (mongodb://… or mongodb+srv://…), not \"{0}\"")]
    NotAServer(String),
    #[error("{0}")]
    Connect(#[from] crate::source::SourceError),
}

/// A driver's error: its words in one line, its causes kept (connection
/// strings masked in each).
impl From<mongodb::error::Error> for SeedError {
    fn from(e: mongodb::error::Error) -> SeedError {
        let cause = std::error::Error::source(&e);
        SeedError::Server(Masked::new(
            &one_line(&e.to_string()),
            cause,
            &Secrets::new(),
        ))
    }
}

impl SeedError {
    /// The server's words (connection strings masked).
    fn server(message: &str) -> SeedError {
        SeedError::Server(Masked::new(message, None, &Secrets::new()))
    }

    /// The error with `secrets` masked in the server's words and in each
    /// of their causes.
    fn scrubbed(self, secrets: &Secrets) -> SeedError {
        match self {
            SeedError::Server(m) => SeedError::Server(m.hiding(secrets)),
            e => e,
        }
    }
}

/// Checks the names asked for; none means every data set.
pub fn select(names: &[String]) -> Result<Vec<&'static str>, SeedError> {
    if names.is_empty() {
        return Ok(NAMES.to_vec());
    }
    let mut out = Vec::new();
    for n in names {
        let Some(known) = NAMES.iter().find(|k| **k == n.as_str()) else {
            return Err(SeedError::Usage(format!(
                "unknown data set \"{n}\" (known: {})",
                NAMES.join(", ")
            )));
        };
        if !out.contains(known) {
            out.push(*known);
        }
    }
    Ok(out)
}

/// A database name MongoDB accepts.
fn check_db_name(db: &str) -> Result<(), SeedError> {
    if db.len() > 63 || db.chars().any(|c| "/\\. \"$\0".contains(c)) {
        return Err(SeedError::Usage(format!(
            "\"{db}\" is not a valid database name (at most 63 characters, none of / \\ . \" $ or space); choose another --prefix"
        )));
    }
    Ok(())
}

/// Progress lines (on a terminal only).
pub type Progress<'a> = &'a mut dyn FnMut(&str);

/// Seeds the chosen data sets with `client`. Checks every target collection
/// first: with `drop` false, any non-empty one stops everything before a
/// single write.
pub async fn seed(
    client: &Client,
    prefix: &str,
    names: &[&str],
    drop: bool,
    progress: Progress<'_>,
) -> Result<Vec<Written>, SeedError> {
    for name in names {
        check_db_name(&format!("{prefix}{name}"))?;
    }
    // Every target collection, checked before anything is written.
    let mut targets: Vec<(String, String)> = Vec::new();
    for name in names {
        let db = format!("{prefix}{name}");
        let Some(ds) = datasets::build(name) else {
            continue;
        };
        for c in &ds.collections {
            targets.push((db.clone(), c.name.clone()));
        }
    }
    let mut to_drop = Vec::new();
    for (db, coll) in &targets {
        let c = client.database(db).collection::<Document>(coll);
        let any = c
            .find_one(bson::doc! {})
            .projection(bson::doc! {"_id": 1})
            .await?;
        if any.is_some() {
            if !drop {
                return Err(SeedError::NotEmpty {
                    ns: format!("{db}.{coll}"),
                });
            }
            to_drop.push(c);
        }
    }
    for c in to_drop {
        progress(&format!("dropping {}.{}", c.namespace().db, c.name()));
        c.drop().await?;
    }
    let mut out = Vec::new();
    for name in names {
        let Some(ds) = datasets::build(name) else {
            continue;
        };
        let db = format!("{prefix}{name}");
        for c in ds.collections {
            let w = load_collection(client, &db, c, progress).await?;
            out.push(w);
        }
    }
    Ok(out)
}

async fn load_collection(
    client: &Client,
    db: &str,
    c: Collection,
    progress: Progress<'_>,
) -> Result<Written, SeedError> {
    let coll = client.database(db).collection::<Document>(&c.name);
    let mut w = Written {
        db: db.to_owned(),
        collection: c.name.clone(),
        documents: 0,
        bytes: 0,
        indexes: c.indexes.len(),
        generated: 0,
    };
    let ns = format!("{db}.{}", c.name);
    let committed = c.docs.len() as u64;
    let docs = c
        .docs
        .into_iter()
        .chain(c.generated.map(|g| g()).into_iter().flatten());
    let mut batch: Vec<Document> = Vec::new();
    let mut batch_bytes = 0usize;
    for d in docs {
        let size = bson::serialize_to_vec(&d).map_or(0, |v| v.len());
        if !batch.is_empty() && (batch.len() >= BATCH_DOCS || batch_bytes + size > BATCH_BYTES) {
            coll.insert_many(&batch).await?;
            w.documents += batch.len() as u64;
            progress(&format!("seeding {ns}: {} documents", w.documents));
            batch.clear();
            batch_bytes = 0;
        }
        w.bytes += size as u64;
        batch_bytes += size;
        batch.push(d);
    }
    if !batch.is_empty() {
        coll.insert_many(&batch).await?;
        w.documents += batch.len() as u64;
    }
    if w.documents == 0 {
        // An empty collection still exists (and keeps its indexes).
        client.database(db).create_collection(&c.name).await?;
    }
    w.generated = w.documents - committed.min(w.documents);
    for i in &c.indexes {
        let opts = IndexOptions::builder()
            .name(i.name())
            .unique(i.unique.then_some(true))
            .expire_after(
                i.expire_after_seconds
                    .map(|s| std::time::Duration::from_secs(u64::from(s))),
            )
            .build();
        coll.create_index(
            IndexModel::builder()
                .keys(i.keys.clone())
                .options(opts)
                .build(),
        )
        .await?;
    }
    progress(&format!("seeding {ns}: {} documents", w.documents));
    Ok(w)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The prefixes of the students' copies: `student01_` … (three digits
/// from 100 students).
pub fn student_prefixes(n: u16) -> Vec<String> {
    let digits = n.to_string().len().max(2);
    (1..=n).map(|i| format!("student{i:0digits$}_")).collect()
}

/// The command: connects, seeds (each student's copy in turn with
/// `--students`), and prints what it wrote.
pub async fn run(args: Request) -> Result<(), SeedError> {
    let names = select(&args.datasets)?;
    if !(args.uri.starts_with("mongodb://") || args.uri.starts_with("mongodb+srv://")) {
        return Err(SeedError::NotAServer(mask_uri(&args.uri)));
    }
    let prefixes = match args.students {
        Some(n) => student_prefixes(n),
        None => vec![args.prefix.clone()],
    };
    for p in &prefixes {
        for n in &names {
            check_db_name(&format!("{p}{n}"))?;
        }
    }
    let label = mask_uri(&args.uri);
    let src = crate::target::connect(&args.uri, Duration::from_secs(args.timeout)).await?;
    let secrets = Secrets::of_uri(&args.uri);
    let tty = std::io::stderr().is_terminal();
    let shown = std::cell::Cell::new(false);
    let mut progress = |msg: &str| {
        if tty {
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[2K{msg}");
            let _ = e.flush();
            shown.set(true);
        }
    };
    // The workload runs as its application, so that docshape, which
    // leaves out its own operations, reads it back from the profiler.
    let app = if args.workload {
        Some(
            crate::target::connect_as(
                &args.uri,
                Duration::from_secs(args.timeout),
                workload::APP_NAME,
            )
            .await?,
        )
    } else {
        None
    };
    for prefix in &prefixes {
        let started = Instant::now();
        let result = seed(src.client(), prefix, &names, args.drop, &mut progress).await;
        if shown.get() {
            eprint!("\r\x1b[2K");
        }
        let written = result.map_err(|e| e.scrubbed(&secrets))?;
        print!("{}", summary(&label, prefix, &written, started.elapsed()));
        if let Some(app) = &app {
            let started = Instant::now();
            let ran = workload::run(app.client(), prefix, &names, &mut progress).await;
            if shown.get() {
                eprint!("\r\x1b[2K");
            }
            let ran = ran.map_err(|e| e.scrubbed(&secrets))?;
            print!("{}", workload_summary(&ran, started.elapsed()));
        }
    }
    Ok(())
}

/// What the workload ran, one line per database.
pub fn workload_summary(ran: &Ran, took: Duration) -> String {
    if ran.databases.is_empty() {
        return format!(
            "ran no workload: it runs on the data sets {}, none of them chosen\n",
            workload::datasets().join(", ")
        );
    }
    let mut s = String::from("ran the workload with the profiler on (level 2):\n");
    for (db, n) in &ran.databases {
        let _ = writeln!(
            s,
            "  {db:<32} {:>6} operations (in {db}.system.profile)",
            crate::fmt::group(*n)
        );
    }
    let _ = writeln!(
        s,
        "ran {} operations in {} databases in {:.1} s; profiling set back to its level",
        crate::fmt::group(ran.operations()),
        ran.databases.len(),
        took.as_secs_f64()
    );
    s
}

/// What was written, one line per collection, grouped by database.
pub fn summary(label: &str, prefix: &str, written: &[Written], took: Duration) -> String {
    /// Collections listed per database; the rest are summed up.
    const SHOWN: usize = 8;
    let mut s = format!("seeded {label} (database prefix \"{prefix}\"):\n");
    let mut last_db = "";
    let mut in_db = 0;
    for (i, w) in written.iter().enumerate() {
        if w.db != last_db {
            let _ = writeln!(s, "  {}", w.db);
            last_db = &w.db;
            in_db = 0;
        }
        in_db += 1;
        if in_db > SHOWN {
            if in_db == SHOWN + 1 {
                let rest: Vec<&Written> = written[i..].iter().filter(|x| x.db == w.db).collect();
                let _ = writeln!(
                    s,
                    "    … and {} more collections ({} documents, {})",
                    rest.len(),
                    crate::fmt::group(rest.iter().map(|x| x.documents).sum()),
                    crate::fmt::bytes(rest.iter().map(|x| x.bytes).sum::<u64>() as f64)
                );
            }
            continue;
        }
        let gen = if w.generated > 0 {
            format!(", {} generated", crate::fmt::group(w.generated))
        } else {
            String::new()
        };
        let idx = match w.indexes {
            0 => String::new(),
            1 => ", 1 index".to_owned(),
            n => format!(", {n} indexes"),
        };
        let _ = writeln!(
            s,
            "    {:<24} {:>7} documents{gen} ({}){idx}",
            w.collection,
            crate::fmt::group(w.documents),
            crate::fmt::bytes(w.bytes as f64)
        );
    }
    let docs: u64 = written.iter().map(|w| w.documents).sum();
    let bytes: u64 = written.iter().map(|w| w.bytes).sum();
    let mut dbs: Vec<&str> = written.iter().map(|w| w.db.as_str()).collect();
    dbs.dedup();
    let _ = writeln!(
        s,
        "wrote {} documents ({}) to {} collections in {} databases in {:.1} s",
        crate::fmt::group(docs),
        crate::fmt::bytes(bytes as f64),
        written.len(),
        dbs.len(),
        took.as_secs_f64()
    );
    s
}

/// One document per line, relaxed Extended JSON (as `mongoexport` writes).
pub fn ejson_lines(docs: &[Document]) -> String {
    let mut s = String::new();
    for d in docs {
        s.push_str(&bson::Bson::Document(d.clone()).relaxed().to_string());
        s.push('\n');
    }
    s
}

/// `COLL.metadata.json` as `mongodump` writes it: every collection's,
/// `_id_` alone when it has no other index (so that a reader knows the
/// collection's indexes, not only that some were left out).
pub fn metadata_json(c: &Collection) -> String {
    let mut idx = vec![serde_json::json!({"v": 2, "key": {"_id": 1}, "name": "_id_"})];
    for i in &c.indexes {
        let mut spec = serde_json::json!({
            "v": 2,
            "key": bson::Bson::Document(i.keys.clone()).relaxed(),
            "name": i.name(),
        });
        if i.unique {
            spec["unique"] = serde_json::Value::Bool(true);
        }
        if let Some(secs) = i.expire_after_seconds {
            spec["expireAfterSeconds"] = serde_json::Value::from(secs);
        }
        idx.push(spec);
    }
    format!(
        "{}\n",
        serde_json::json!({"indexes": idx, "collectionName": c.name, "type": "collection"})
    )
}

/// The committed files of every data set: `(relative path, contents)`.
/// Collections with no committed documents (only generated ones) have none.
pub fn committed_files() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for ds in datasets::all() {
        for c in &ds.collections {
            if c.docs.is_empty() {
                continue;
            }
            out.push((format!("{}/{}.json", ds.name, c.name), ejson_lines(&c.docs)));
            out.push((
                format!("{}/{}.metadata.json", ds.name, c.name),
                metadata_json(c),
            ));
        }
    }
    out
}

/// Writes the committed files under `dir` (the repository's `sample-data/`).
pub fn export(dir: &Path) -> std::io::Result<()> {
    for (rel, text) in committed_files() {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(p, text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_errors_hide_passwords() {
        let uri = "mongodb://app:s3cr3t@h";
        let e = SeedError::server("refused by mongodb://app:s3cr3t@h\n(s3cr3t)");
        assert_eq!(e.to_string(), "refused by mongodb://app:****@h\n(s3cr3t)");
        let e = e.scrubbed(&Secrets::of_uri(uri));
        assert_eq!(e.to_string(), "refused by mongodb://app:****@h\n(****)");
        let e = SeedError::from(mongodb::error::Error::custom(0u8));
        assert!(matches!(e, SeedError::Server(_)), "{e:?}");
        assert!(!e.to_string().contains('\n'), "{e}");
    }
}
