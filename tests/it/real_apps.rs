//! What real applications leave beside their collections, audited as
//! files (`../shared/realapps`) and on the test server: exports named by
//! their tool (`test.reservations.json`) give the real namespace to the
//! report and every script; mongodump's `prelude.json` is noted, never
//! profiled; GridFS buckets are reported as GridFS, with figures counted
//! here independently; the backup collections docshape's own scripts make
//! are left out with a note, a user's "backup" collections are not.

use crate::common;
use crate::migrate;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use bson::{doc, Bson, Document};
use serde_json::Value;

use common::{
    assert_fails_cleanly, client, collection, collections, docshape, json_ok, read_bson_file,
    unique_db, write_bson,
};

fn realapps(rel: &str) -> PathBuf {
    let p = common::repo().join("../shared/realapps").join(rel);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// `audit TARGET` in `format` and `lang`, snapshots off, never failing on
/// a finding.
fn audit_as(target: &Path, format: &str, lang: &str) -> std::process::Output {
    docshape(&[
        "audit",
        path_str(target),
        "--format",
        format,
        "--no-snapshot",
        "--fail-on",
        "never",
        "--lang",
        lang,
    ])
}

/// The JSON report of `audit TARGET`, in English.
fn audit(target: &Path) -> Value {
    json_ok(&audit_as(target, "json", "en"))
}

fn namespaces(report: &Value) -> BTreeSet<String> {
    collections(report)
        .iter()
        .map(|c| c["namespace"].as_str().expect("namespace").to_owned())
        .collect()
}

/// Every `(database, collection)` the scripts of `report` address with
/// `db.getSiblingDB("D").getCollection("C")`.
fn addressed(report: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for c in collections(report) {
        for f in c["findings"].as_array().expect("findings") {
            let script = f["suggestion"]["migration"].as_str().unwrap_or_default();
            let mut rest = script;
            while let Some(at) = rest.find("getSiblingDB(\"") {
                rest = &rest[at + "getSiblingDB(\"".len()..];
                let db = rest.split('"').next().unwrap_or_default().to_owned();
                let coll = rest
                    .split_once(").getCollection(\"")
                    .filter(|(between, _)| !between.contains('\n') && between.len() == db.len() + 1)
                    .map(|(_, after)| after.split('"').next().unwrap_or_default().to_owned())
                    .unwrap_or_default();
                out.insert((db, coll));
            }
        }
    }
    out
}

/// Exports named by Compass and mongoexport (`test.<coll>.json` in a
/// folder `database/`) are database `test`, collection `<coll>`: in the
/// report and in every script, which never names the folder.
#[test]
fn exports_named_by_their_tool_carry_the_real_namespace() {
    for app in ["travelerconnect", "editfleet"] {
        let dir = realapps(&format!("{app}/database"));
        // The names as the files give them, read here without docshape.
        let mut want = BTreeSet::new();
        for e in std::fs::read_dir(&dir).expect("list") {
            let name = e.expect("entry").file_name().into_string().expect("UTF-8");
            let stem = name.strip_suffix(".json").expect("JSON exports only");
            assert!(stem.starts_with("test."), "{name}");
            want.insert(stem.to_owned());
        }
        let report = audit(&realapps(app));
        assert_eq!(namespaces(&report), want, "{app}");
        let colls: BTreeSet<&str> = want.iter().map(|ns| &ns["test.".len()..]).collect();
        let scripts = addressed(&report);
        assert!(!scripts.is_empty(), "{app}: some finding has a script");
        for (db, coll) in &scripts {
            assert_eq!(db, "test", "{app}: a script addresses {db}.{coll}");
            assert!(
                !coll.starts_with("test."),
                "{app}: a script addresses {coll}"
            );
        }
        assert!(
            scripts.iter().any(|(_, c)| colls.contains(c.as_str())),
            "{app}: scripts address its collections: {scripts:?}"
        );
        assert!(
            !report
                .to_string()
                .contains("getSiblingDB(\\\"database\\\")"),
            "{app}: no script names the folder"
        );
    }
    // One export named on its own is its real collection too.
    let one = audit(&realapps("editfleet/database/test.reservations.json"));
    assert_eq!(
        namespaces(&one),
        BTreeSet::from(["test.reservations".to_owned()])
    );
}

/// A `mongodump` tree keeps its folders as databases and its files'
/// names as collections, dots and all (`fs.files`, `anexos.chunks`).
#[test]
fn a_dump_tree_keeps_a_database_per_folder() {
    for app in ["bank", "reportify", "trudesk", "library", "chitchat"] {
        let root = realapps(app);
        let mut want = BTreeSet::new();
        for db in std::fs::read_dir(&root).expect("list") {
            let db = db.expect("entry").path();
            if !db.is_dir() {
                continue;
            }
            let db_name = db
                .file_name()
                .and_then(|n| n.to_str())
                .expect("UTF-8")
                .to_owned();
            for f in std::fs::read_dir(&db).expect("list") {
                let name = f.expect("entry").file_name().into_string().expect("UTF-8");
                let coll = name
                    .strip_suffix(".metadata.json")
                    .or_else(|| name.strip_suffix(".bson"));
                if let Some(coll) = coll.filter(|c| !c.starts_with("system.")) {
                    want.insert(format!("{db_name}.{coll}"));
                }
            }
        }
        let report = audit(&root);
        assert_eq!(namespaces(&report), want, "{app}");
    }
}

/// A folder of applications, each holding its databases, is no database:
/// the audit refuses it and names the folders to audit one at a time
/// (two applications may both name a database `test`).
#[test]
fn a_folder_of_applications_names_the_folders_to_audit() {
    let root = common::repo().join("../shared/realapps");
    let out = audit_as(&root, "json", "en");
    assert!(!out.status.success(), "a folder of applications is refused");
    let err = common::stderr(&out);
    assert!(
        err.contains("hold databases of their own: audit each alone"),
        "{err}"
    );
    let apps = std::fs::read_dir(&root)
        .expect("list")
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().is_dir()))
        .count();
    assert!(
        err.contains(&format!("{apps} of its folders")),
        "every application's folder is counted: {err}"
    );
    let first = std::fs::read_dir(&root)
        .expect("list")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .min()
        .expect("an application");
    assert!(
        err.contains(&format!("docshape audit {}", first.display())),
        "{err}"
    );
}

/// mongodump's `prelude.json`, at the dump's top or in a database's
/// folder, is noted with what it says and never read as a collection;
/// named on its own it is refused in one sentence; a collection exported
/// as `prelude.json` is still a collection.
#[test]
fn mongodumps_prelude_is_noted_never_profiled() {
    for (app, server) in [("zion", "8.0.18"), ("gipfel", "6.0.24")] {
        let report = audit(&realapps(app));
        let names = namespaces(&report);
        assert!(
            !names.iter().any(|n| n.ends_with(".prelude")),
            "{app}: {names:?}"
        );
        assert!(
            names.iter().all(|n| n.starts_with("test.")),
            "{app}: {names:?}"
        );
        let notes = report["notes"].to_string();
        assert!(
            notes.contains("prelude.json is mongodump's prelude (server ")
                && notes.contains(server)
                && notes.contains("not read as documents"),
            "{app}: {notes}"
        );
        let zh = json_ok(&audit_as(&realapps(app), "json", "zh"));
        assert!(
            zh["notes"].to_string().contains("是 mongodump 的 prelude"),
            "{}",
            zh["notes"]
        );
    }
    let said = assert_fails_cleanly(
        &docshape(&["audit", path_str(&realapps("zion/prelude.json"))]),
        "prelude.json",
    );
    assert!(said.contains("mongodump's prelude"), "{said}");

    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("stories");
    std::fs::create_dir(&db).expect("mkdir");
    std::fs::write(
        db.join("prelude.json"),
        r#"[{"_id": 1, "text": "Once upon a time"}, {"_id": 2, "text": "The end"}]"#,
    )
    .expect("write");
    let report = audit(tmp.path());
    assert_eq!(collection(&report, "stories.prelude")["documents"], 2);
}

/// The figures of a dumped GridFS bucket, counted here from its files.
struct Counted {
    files: u64,
    total: u64,
    largest: u64,
    chunk_size: u64,
    chunks: u64,
    orphans: u64,
}

fn count_bucket(files: &[Document], chunks: &[Document]) -> Counted {
    let number = |d: &Document, k: &str| match d.get(k) {
        Some(Bson::Int32(n)) => u64::try_from(*n).expect("size"),
        Some(Bson::Int64(n)) => u64::try_from(*n).expect("size"),
        Some(Bson::Double(n)) => *n as u64,
        other => panic!("{k}: {other:?}"),
    };
    let ids: Vec<&Bson> = files.iter().map(|f| f.get("_id").expect("_id")).collect();
    Counted {
        files: files.len() as u64,
        total: files.iter().map(|f| number(f, "length")).sum(),
        largest: files.iter().map(|f| number(f, "length")).max().unwrap_or(0),
        chunk_size: number(&files[0], "chunkSize"),
        chunks: chunks.len() as u64,
        orphans: chunks
            .iter()
            .filter(|c| !ids.contains(&c.get("files_id").expect("files_id")))
            .count() as u64,
    }
}

fn check_gridfs(report: &Value, db: &str, bucket: &str, want: &Counted) {
    for (part, kind) in [("files", "gridfs-files"), ("chunks", "gridfs-chunks")] {
        let c = collection(report, &format!("{db}.{bucket}.{part}"));
        assert_eq!(c["kind"], kind, "{c}");
        assert_eq!(
            c["findings"],
            serde_json::json!([]),
            "not judged: {}",
            c["findings"]
        );
        let g = &c["gridfs"];
        assert_eq!(g["bucket"], bucket);
        assert_eq!(g["files"], want.files, "{g}");
        assert_eq!(g["total_bytes"], want.total, "{g}");
        assert_eq!(g["largest_bytes"], want.largest, "{g}");
        assert_eq!(g["chunk_sizes"][0]["bytes"], want.chunk_size, "{g}");
        assert_eq!(g["chunks"], want.chunks, "{g}");
        assert_eq!(g["orphan_chunks"], want.orphans, "{g}");
    }
}

fn bucket_docs(dir: &Path, bucket: &str) -> (Vec<Document>, Vec<Document>) {
    (
        read_bson_file(&dir.join(format!("{bucket}.files.bson"))),
        read_bson_file(&dir.join(format!("{bucket}.chunks.bson"))),
    )
}

/// GridFS buckets of real dumps (`fs` of a MongoDB 3.x dump, `anexos`)
/// are reported as GridFS on both parts, not judged by the rules; a chunk
/// whose file is gone is counted as an orphan; an application's own
/// `*.files` collection is judged as any other; the text, Markdown and
/// HTML reports say what the bucket holds.
#[test]
fn gridfs_buckets_are_reported_as_gridfs() {
    for (dir, bucket) in [("bank/test", "fs"), ("reportify/test", "anexos")] {
        let dir = realapps(dir);
        let (files, chunks) = bucket_docs(&dir, bucket);
        let want = count_bucket(&files, &chunks);
        assert!(want.files > 0 && want.chunks > 0, "{bucket}");
        check_gridfs(&audit(&dir), "test", bucket, &want);
    }

    // A copy of the bank's bucket with a chunk whose file was deleted, and
    // an application's collection that only shares the ending.
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("test");
    std::fs::create_dir(&db).expect("mkdir");
    let (files, mut chunks) = bucket_docs(&realapps("bank/test"), "fs");
    chunks.push(doc! {
        "_id": bson::oid::ObjectId::new(),
        "files_id": bson::oid::ObjectId::new(),
        "n": 0,
        "data": bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![0; 64] },
    });
    write_bson(&db.join("fs.files.bson"), &files);
    write_bson(&db.join("fs.chunks.bson"), &chunks);
    let projects: Vec<Document> = (0..40)
        .map(|i| doc! {"_id": i, "path": format!("src/{i}.rs"), "lines": i * 10})
        .collect();
    write_bson(&db.join("project.files.bson"), &projects);
    let report = audit(tmp.path());
    let want = count_bucket(&files, &chunks);
    assert_eq!(want.orphans, 1);
    check_gridfs(&report, "test", "fs", &want);
    let app = collection(&report, "test.project.files");
    assert_eq!(app["kind"], "collection");
    assert!(app.get("gridfs").is_none(), "{app}");

    for (format, said) in [
        ("text", "GridFS bucket fs (its files)"),
        ("markdown", "GridFS bucket fs (its chunks)"),
        ("html", "GridFS bucket fs (its files)"),
    ] {
        let text = common::stdout(&audit_as(tmp.path(), format, "en"));
        assert!(text.contains(said), "{format}: {text}");
        assert!(text.contains("1 orphan chunks"), "{format}");
    }
}

/// On the server the bucket is measured by the server: the same figures
/// as counted from the dump loaded into it.
#[tokio::test(flavor = "current_thread")]
async fn gridfs_on_the_server_is_measured_there() {
    let c = client().await;
    let db = unique_db("gridfs");
    let (files, mut chunks) = bucket_docs(&realapps("bank/test"), "fs");
    chunks.push(doc! {"_id": 1, "files_id": "gone", "n": 0, "data": bson::Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![1] }});
    common::insert_all(&c, &db, "fs.files", &files).await;
    common::insert_all(&c, &db, "fs.chunks", &chunks).await;
    let report = migrate::audit(&format!("{db}.*")).await;
    let want = count_bucket(&files, &chunks);
    check_gridfs(&report, &db, "fs", &want);
}

/// Dates as text, so that `string-dates` fires and its script converts
/// them, saving each document first in a backup collection.
fn people() -> Vec<Document> {
    (0..60)
        .map(|i| {
            doc! {
                "_id": i,
                "name": format!("person {i}"),
                "joined": format!("2021-{:02}-{:02}T10:00:00Z", i % 12 + 1, i % 28 + 1),
            }
        })
        .collect()
}

/// The backup collection a real docshape script makes (the string-dates
/// conversion, applied) is left out of the next audit with a note naming
/// it; the user's own collections named with "backup" are audited as
/// ever; a directory of files holding such a backup leaves it out too.
#[tokio::test(flavor = "current_thread")]
async fn docshapes_own_backups_are_left_out() {
    let c = client().await;
    let db = unique_db("backups");
    common::insert_all(&c, &db, "people", &people()).await;
    for user in [
        "people_backup",
        "backup_2024_people",
        "people_backup_old_abcdef",
    ] {
        common::insert_all(&c, &db, user, &people()[..5]).await;
    }
    let report = migrate::audit(&format!("{db}.*")).await;
    let script = migrate::suggestion(
        &report,
        &format!("{db}.people"),
        "string-dates",
        Some("joined"),
    )["migration"]
        .as_str()
        .expect("a script")
        .to_owned();
    migrate::run_once(&script, "backups");
    let names: Vec<String> = c.database(&db).list_collection_names().await.expect("list");
    let backups: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with("people_backup_dates_"))
        .collect();
    assert_eq!(backups.len(), 1, "the script made its backup: {names:?}");
    let backup = backups[0];

    let after = migrate::audit(&format!("{db}.*")).await;
    let listed = namespaces(&after);
    assert!(!listed.contains(&format!("{db}.{backup}")), "{listed:?}");
    for kept in [
        "people",
        "people_backup",
        "backup_2024_people",
        "people_backup_old_abcdef",
    ] {
        assert!(
            listed.contains(&format!("{db}.{kept}")),
            "{kept}: {listed:?}"
        );
    }
    let notes = after["notes"].to_string();
    assert!(
        notes.contains(&format!("left out 1 backup collection made by docshape's migration scripts: {db}.{backup} (of {db}.people)")),
        "{notes}"
    );
    // Named with -c, it is read.
    let named = migrate::audit(&format!("{db}.{backup}")).await;
    assert!(namespaces(&named).contains(&format!("{db}.{backup}")));

    // The same as files: a dump of the database after the conversion.
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("app");
    std::fs::create_dir(&dir).expect("mkdir");
    for name in [backup.as_str(), "people", "people_backup"] {
        let docs = migrate::all(&c.database(&db).collection::<Document>(name)).await;
        write_bson(&dir.join(format!("{name}.bson")), &docs);
    }
    let files = audit(tmp.path());
    assert_eq!(
        namespaces(&files),
        BTreeSet::from(["app.people".to_owned(), "app.people_backup".to_owned()])
    );
    assert!(files["notes"].to_string().contains(backup.as_str()));
}
