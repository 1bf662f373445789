//! The `docshape` binary against files and directories: real public data
//! (`../shared/realdata`) checked against values computed independently
//! here, generated data written in every supported file format, and the
//! failure contract (exit code 2, one line on stderr, no panic).

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use bson::oid::ObjectId;
use bson::{doc, Bson, DateTime, Document};
use serde_json::{json, Value};

use common::{
    assert_fails_cleanly, collection, collections, docshape, docshape_env, field, json_ok,
    realdata, stderr, stdout, write_bson,
};

fn path_str(p: &Path) -> &str {
    p.to_str().expect("test paths are UTF-8")
}

/// Every line of an NDJSON file, parsed as plain JSON (no docshape code).
fn json_lines(p: &Path) -> Vec<Value> {
    std::fs::read_to_string(p)
        .unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("each line of the real data is JSON"))
        .collect()
}

fn as_u64(v: &Value) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("expected an unsigned integer, got {v}"))
}

fn as_f64(v: &Value) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("expected a number, got {v}"))
}

#[test]
fn customers_profile_matches_the_data() {
    let file = realdata("sample_analytics/customers.json");
    let lines = json_lines(&file);
    assert_eq!(lines.len(), 500);

    // The truth, computed here without docshape.
    let lens: Vec<u64> = lines
        .iter()
        .map(|d| {
            d["accounts"]
                .as_array()
                .expect("every customer has an accounts array")
                .len() as u64
        })
        .collect();
    let min = *lens.iter().min().expect("non-empty");
    let max = *lens.iter().max().expect("non-empty");
    let total: u64 = lens.iter().sum();
    let avg = total as f64 / lens.len() as f64;
    let sizes: Vec<u64> = lines
        .iter()
        .map(|d| {
            let Bson::Document(doc) = Bson::try_from(d.clone()).expect("extended JSON") else {
                panic!("a line is not a document");
            };
            bson::to_vec(&doc).expect("encode").len() as u64
        })
        .collect();

    let report = json_ok(&docshape(&["audit", path_str(&file), "--format", "json"]));
    assert_eq!(report["docshape"], env!("CARGO_PKG_VERSION"));
    let c = collection(&report, "sample_analytics.customers");
    assert_eq!(collections(&report).len(), 1);
    assert_eq!(c["documents"], 500);
    assert_eq!(c["sampled"], 500);

    let accounts = field(c, "accounts");
    assert_eq!(accounts["types"], json!({"array": 500}));
    assert_eq!(accounts["count"], 500);
    let arr = &accounts["array"];
    assert_eq!(as_u64(&arr["min"]), min, "accounts array min");
    assert_eq!(as_u64(&arr["max"]), max, "accounts array max");
    assert!(
        (as_f64(&arr["avg"]) - avg).abs() < 0.006,
        "accounts array avg {} vs true {avg}",
        arr["avg"]
    );

    let elems = field(c, "accounts[]");
    assert_eq!(elems["types"], json!({"int": total}));
    assert_eq!(as_u64(&elems["values"]), total);
    assert_eq!(elems["count"], 500);

    let tier = field(c, "tier_and_details");
    assert_eq!(tier["types"], json!({"object": 500}));
    let sub = c["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .filter(|f| {
            f["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("tier_and_details."))
        })
        .count();
    assert!(sub > 0, "the sub-paths of tier_and_details are listed");

    assert_eq!(field(c, "birthdate")["types"], json!({"date": 500}));
    assert_eq!(field(c, "_id")["types"], json!({"objectId": 500}));

    let ds = &c["doc_size"];
    assert_eq!(as_u64(&ds["min"]), *sizes.iter().min().expect("sizes"));
    assert_eq!(as_u64(&ds["max"]), *sizes.iter().max().expect("sizes"));
    let mean = sizes.iter().sum::<u64>() as f64 / sizes.len() as f64;
    assert!((as_f64(&ds["avg"]) - mean).abs() < 0.006, "doc_size avg");
}

#[test]
fn directory_lists_its_collections() {
    let dir = realdata("sample_mflix");
    let report = json_ok(&docshape(&["audit", path_str(&dir), "--format", "json"]));
    let names: BTreeSet<&str> = collections(&report)
        .iter()
        .map(|c| c["namespace"].as_str().expect("namespace"))
        .collect();
    let want: BTreeSet<&str> = [
        "sample_mflix.sessions",
        "sample_mflix.theaters",
        "sample_mflix.users",
    ]
    .into();
    assert_eq!(names, want);
    for (coll, file) in [
        ("sample_mflix.theaters", "theaters.json"),
        ("sample_mflix.users", "users.json"),
        ("sample_mflix.sessions", "sessions.json"),
    ] {
        let n = json_lines(&dir.join(file)).len() as u64;
        let c = collection(&report, coll);
        assert_eq!(as_u64(&c["documents"]), n, "{coll} documents");
        assert_eq!(as_u64(&c["sampled"]), n.min(1000), "{coll} sampled");
    }
}

#[test]
fn collection_option_selects() {
    let dir = realdata("sample_mflix");
    let report = json_ok(&docshape(&[
        "audit",
        path_str(&dir),
        "-c",
        "sample_mflix.users",
        "--format",
        "json",
    ]));
    let names: Vec<&Value> = collections(&report)
        .iter()
        .map(|c| &c["namespace"])
        .collect();
    assert_eq!(names, [&json!("sample_mflix.users")]);

    let report = json_ok(&docshape(&[
        "audit",
        path_str(&dir),
        "-c",
        "sample_mflix.t*",
        "--format",
        "json",
    ]));
    let names: Vec<&Value> = collections(&report)
        .iter()
        .map(|c| &c["namespace"])
        .collect();
    assert_eq!(names, [&json!("sample_mflix.theaters")]);
}

#[test]
fn sample_option_bounds_the_sample() {
    let file = realdata("sample_analytics/accounts.json");
    let total = json_lines(&file).len() as u64;
    assert_eq!(total, 1746);
    let report = json_ok(&docshape(&[
        "audit",
        path_str(&file),
        "--sample",
        "100",
        "--format",
        "json",
    ]));
    let c = collection(&report, "sample_analytics.accounts");
    assert_eq!(c["sampled"], 100);
    assert_eq!(as_u64(&c["documents"]), total);
    assert_eq!(field(c, "_id")["count"], 100);
    assert_eq!(report["sampling"]["size"], 100);
}

/// Generated documents covering many types, optional and mixed-type fields,
/// nested objects and arrays of arrays. Every value survives relaxed
/// Extended JSON unchanged (no small `long`s, millisecond dates).
fn generated_docs() -> Vec<Document> {
    (0..300i64)
        .map(|i| {
            let mut oid = [0u8; 12];
            oid[4..].copy_from_slice(&i.to_be_bytes());
            oid[..4].copy_from_slice(&1_600_000_000u32.to_be_bytes());
            let mut d = doc! {
                "_id": ObjectId::from_bytes(oid),
                "n": i as i32,
                "big": 5_000_000_000i64 + i,
                "price": i as f64 * 1.25 + 0.1,
                "name": format!("item-{i}"),
                "tags": (0..(i % 7)).map(|t| Bson::String(format!("t{t}"))).collect::<Vec<_>>(),
                "dims": {"w": (i % 10) as i32, "h": {"v": (i % 3) as i32, "unit": "cm"}},
                "when": DateTime::from_millis(1_600_000_000_000 + i * 86_400_123),
                "flag": i % 5 == 0,
            };
            if i % 3 == 0 {
                d.insert("note", "every third");
            }
            if i % 2 == 0 {
                d.insert("code", i as i32);
            } else {
                d.insert("code", format!("C{i}"));
            }
            if i % 4 == 0 {
                d.insert(
                    "matrix",
                    vec![
                        Bson::Array(vec![1.into(), 2.into()]),
                        Bson::Array(vec![3.into()]),
                    ],
                );
                d.insert("gone", Bson::Null);
            }
            d
        })
        .collect()
}

fn write_ndjson(path: &Path, docs: &[Document]) {
    let mut s = String::new();
    for d in docs {
        s.push_str(
            &Bson::Document(d.clone())
                .into_canonical_extjson()
                .to_string(),
        );
        s.push('\n');
    }
    std::fs::write(path, s).expect("write ndjson");
}

fn write_json_array(path: &Path, docs: &[Document]) {
    let arr: Vec<Value> = docs
        .iter()
        .map(|d| Bson::Document(d.clone()).into_relaxed_extjson())
        .collect();
    let text = serde_json::to_string_pretty(&arr).expect("serialise");
    std::fs::write(path, text).expect("write json array");
}

/// One collection's report without what legitimately depends on the file
/// format (its size on disk).
fn profile_of(path: &Path) -> Value {
    let report = json_ok(&docshape(&["audit", path_str(path), "--format", "json"]));
    assert_eq!(collections(&report).len(), 1, "{}", path.display());
    let mut c = collection(&report, "gen.items").clone();
    c.as_object_mut().expect("object").remove("storage");
    c
}

#[test]
fn every_file_format_gives_the_same_profile() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let docs = generated_docs();
    let mut paths = Vec::new();
    for (sub, file) in [
        ("nd", "items.ndjson"),
        ("arr", "items.json"),
        ("bin", "items.bson"),
    ] {
        let dir = tmp.path().join(sub).join("gen");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let p = dir.join(file);
        match sub {
            "nd" => write_ndjson(&p, &docs),
            "arr" => write_json_array(&p, &docs),
            _ => write_bson(&p, &docs),
        }
        paths.push(p);
    }
    let nd = profile_of(&paths[0]);
    assert_eq!(nd["documents"], 300);
    assert_eq!(
        field(&nd, "code")["types"],
        json!({"int": 150, "string": 150})
    );
    assert_eq!(field(&nd, "big")["types"], json!({"long": 300}));
    assert_eq!(field(&nd, "matrix[][]")["types"], json!({"int": 225}));
    assert_eq!(field(&nd, "dims.h.unit")["count"], 300);
    assert_eq!(field(&nd, "note")["count"], 100);
    assert_eq!(field(&nd, "tags")["array"]["max"], 6);
    for (p, what) in [(&paths[1], "JSON array"), (&paths[2], "BSON")] {
        let other = profile_of(p);
        let (a, b) = (
            nd.as_object().expect("object"),
            other.as_object().expect("object"),
        );
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        for k in keys {
            assert_eq!(
                a.get(k),
                b.get(k),
                "{what} file differs from NDJSON in `{k}`"
            );
        }
    }
}

#[test]
fn mongodump_tree_reports_indexes_and_selects() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("dump");
    let db1 = root.join("db1");
    let db2 = root.join("db2");
    std::fs::create_dir_all(&db1).expect("mkdir");
    std::fs::create_dir_all(&db2).expect("mkdir");
    let docs = generated_docs();
    write_bson(&db1.join("coll.bson"), &docs);
    write_bson(&db2.join("other.bson"), &docs[..10]);
    // As mongodump writes it: canonical Extended JSON.
    let metadata = json!({
        "indexes": [
            {"v": {"$numberInt": "2"}, "key": {"_id": {"$numberInt": "1"}}, "name": "_id_"},
            {"v": {"$numberInt": "2"}, "unique": true,
             "key": {"name": {"$numberInt": "1"}, "when": {"$numberInt": "-1"}},
             "name": "name_1_when_-1"}
        ],
        "uuid": "0123456789abcdef0123456789abcdef",
        "collectionName": "coll",
        "type": "collection"
    });
    std::fs::write(db1.join("coll.metadata.json"), metadata.to_string()).expect("write");

    let report = json_ok(&docshape(&["audit", path_str(&root), "--format", "json"]));
    let names: Vec<&str> = collections(&report)
        .iter()
        .map(|c| c["namespace"].as_str().expect("namespace"))
        .collect();
    assert_eq!(
        names,
        ["db1.coll", "db2.other"],
        "metadata files are not collections"
    );
    let c = collection(&report, "db1.coll");
    assert_eq!(c["documents"], 300);
    let idx = c["indexes"]
        .as_array()
        .expect("indexes")
        .iter()
        .find(|i| i["name"] == "name_1_when_-1")
        .unwrap_or_else(|| panic!("the dump's extra index is reported: {}", c["indexes"]));
    assert_eq!(
        serde_json::to_string(&idx["key"]).expect("json"),
        r#"{"name":1,"when":-1}"#,
        "key order is kept"
    );
    assert_eq!(idx["unique"], true);
    assert_eq!(collection(&report, "db2.other")["indexes"], json!([]));

    let report = json_ok(&docshape(&[
        "audit",
        path_str(&root),
        "-c",
        "db2.*",
        "--format",
        "json",
    ]));
    let names: Vec<&Value> = collections(&report)
        .iter()
        .map(|c| &c["namespace"])
        .collect();
    assert_eq!(names, [&json!("db2.other")]);
    assert_eq!(collection(&report, "db2.other")["documents"], 10);
}

#[test]
fn schema_prints_one_collection() {
    let file = realdata("sample_mflix/users.json");
    let c = json_ok(&docshape(&["schema", path_str(&file), "--format", "json"]));
    assert_eq!(c["namespace"], "sample_mflix.users");
    assert_eq!(c["documents"], 185);
    assert_eq!(field(&c, "email")["types"], json!({"string": 185}));
    assert!(
        c.get("collections").is_none(),
        "one collection, not a report"
    );

    // Several collections need -c.
    let dir = realdata("sample_mflix");
    let line = assert_fails_cleanly(
        &docshape(&["schema", path_str(&dir), "--format", "json"]),
        "schema of a directory without -c",
    );
    assert!(line.contains("-c"), "{line}");
    let c = json_ok(&docshape(&[
        "schema",
        path_str(&dir),
        "-c",
        "sample_mflix.theaters",
        "--format",
        "json",
    ]));
    assert_eq!(c["namespace"], "sample_mflix.theaters");
}

#[test]
fn text_report_names_collections_and_fields_without_colour() {
    let file = realdata("sample_mflix/users.json");
    for env in [&[("NO_COLOR", "1")][..], &[][..]] {
        let o = docshape_env(&["audit", path_str(&file)], env);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let text = stdout(&o);
        for want in [
            "sample_mflix.users",
            "_id",
            "email",
            "password",
            "preferences",
        ] {
            assert!(text.contains(want), "text report lacks {want}:\n{text}");
        }
        assert!(
            !text.contains('\u{1b}'),
            "escape sequences in the text report (env {env:?}):\n{text}"
        );
    }
}

#[test]
fn nonexistent_path_fails_cleanly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let missing = tmp.path().join("no-such-file.json");
    let line = assert_fails_cleanly(
        &docshape(&["audit", path_str(&missing), "--format", "json"]),
        "nonexistent path",
    );
    assert!(line.contains("no-such-file.json"), "{line}");
}

#[test]
fn empty_directory_fails_cleanly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    assert_fails_cleanly(
        &docshape(&["audit", path_str(tmp.path())]),
        "empty directory",
    );
}

#[test]
fn garbage_bson_file_fails_cleanly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let garbage = tmp.path().join("x.bson");
    let bytes: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(&garbage, bytes).expect("write");
    for format in ["json", "text"] {
        let line = assert_fails_cleanly(
            &docshape(&["audit", path_str(&garbage), "--format", format]),
            "garbage .bson file",
        );
        assert!(line.contains("x.bson"), "{line}");
    }
}

#[test]
fn truncated_json_file_fails_cleanly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let truncated = tmp.path().join("trunc.json");
    let bytes = std::fs::read(realdata("sample_analytics/customers.json")).expect("read");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).expect("write");
    let line = assert_fails_cleanly(
        &docshape(&["audit", path_str(&truncated), "--format", "json"]),
        "truncated JSON file",
    );
    assert!(line.contains("trunc.json"), "{line}");
}

#[test]
fn file_of_unknown_kind_fails_cleanly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let other = tmp.path().join("notes.txt");
    std::fs::write(&other, "hello").expect("write");
    assert_fails_cleanly(
        &docshape(&["audit", path_str(&other)]),
        "not a document file",
    );
}

#[test]
fn sample_zero_is_bad_usage() {
    let users = realdata("sample_mflix/users.json");
    let line = assert_fails_cleanly(
        &docshape(&["audit", path_str(&users), "--sample", "0"]),
        "--sample 0",
    );
    assert!(line.contains("--sample"), "{line}");
}

/// Damaged files, one of each kind: the documents before the damage are
/// valid, so only a reader that gives up on the whole file can miss them.
fn damaged_files() -> Vec<(&'static str, Vec<u8>)> {
    let mut truncated = String::new();
    for d in &generated_docs()[..20] {
        truncated.push_str(&Bson::Document(d.clone()).into_relaxed_extjson().to_string());
        truncated.push('\n');
    }
    let cut = truncated.len() - 40;
    let mut bad_utf8 = b"{\"a\": 1}\n{\"a\": \"".to_vec();
    bad_utf8.extend_from_slice(b"\xff\xfe\"}\n");
    let mut bad_len = Vec::new();
    doc! {"a": 1}.to_writer(&mut bad_len).expect("encode");
    let mut second = Vec::new();
    doc! {"a": 2, "s": "xxxxxxxx"}
        .to_writer(&mut second)
        .expect("encode");
    second[..4].copy_from_slice(&200i32.to_le_bytes());
    bad_len.extend_from_slice(&second);
    vec![
        ("truncated.json", truncated.as_bytes()[..cut].to_vec()),
        ("bad_utf8.ndjson", bad_utf8),
        ("bad_length.bson", bad_len),
    ]
}

/// Three readable collections in two databases: (namespace, documents).
fn readable_tree(root: &Path) -> Vec<(&'static str, u64)> {
    let docs = generated_docs();
    let shop = root.join("shop");
    let other = root.join("other");
    std::fs::create_dir_all(&shop).expect("mkdir");
    std::fs::create_dir_all(&other).expect("mkdir");
    write_ndjson(&shop.join("orders.ndjson"), &docs);
    write_json_array(&shop.join("items.json"), &docs[..50]);
    write_bson(&other.join("logs.bson"), &docs[..20]);
    vec![("shop.orders", 300), ("shop.items", 50), ("other.logs", 20)]
}

/// The lines a run wrote on stderr, none of them a panic.
fn stderr_lines(o: &std::process::Output) -> Vec<String> {
    let err = stderr(o);
    assert!(
        !err.to_lowercase().contains("panicked"),
        "stderr shows a panic: {err}"
    );
    err.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_damaged_file_leaves_the_rest_of_a_directory_reported() {
    for (name, bytes) in damaged_files() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let good = readable_tree(tmp.path());
        let damaged = tmp.path().join("shop").join(name);
        std::fs::write(&damaged, &bytes).expect("write");
        let root = path_str(tmp.path());
        let args = ["audit", root, "--no-snapshot", "--fail-on", "never"];

        let out = docshape(&[&args[..], &["--format", "json"]].concat());
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr(&out));
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{name}: the report is written in full: {e}"));
        let names: BTreeSet<&str> = collections(&report)
            .iter()
            .filter_map(|c| c["namespace"].as_str())
            .collect();
        let want: BTreeSet<&str> = good.iter().map(|(ns, _)| *ns).collect();
        assert_eq!(names, want, "{name}: every readable collection is reported");
        for (ns, n) in &good {
            assert_eq!(as_u64(&collection(&report, ns)["documents"]), *n, "{ns}");
        }
        let errors = report["errors"].as_array().expect("errors is a list");
        assert_eq!(errors.len(), 1, "{name}: {errors:?}");
        assert_eq!(errors[0]["target"], path_str(&damaged), "{name}");
        let message = errors[0]["message"].as_str().expect("message");
        assert!(message.contains(name), "{name}: {message}");
        let lines = stderr_lines(&out);
        assert_eq!(lines.len(), 1, "{name}: one sentence per error: {lines:?}");
        assert!(lines[0].contains(name), "{name}: {lines:?}");
        assert!(lines[0].contains(message), "{name}: {lines:?}");

        // Every format says it, after the whole report.
        let text = docshape(&[&args[..], &["--format", "text"]].concat());
        assert_eq!(text.status.code(), Some(2));
        let t = stdout(&text);
        assert!(t.contains("Errors:") && t.contains(message), "{t}");
        assert!(good.iter().all(|(ns, _)| t.contains(ns)), "{t}");
        assert_eq!(stderr_lines(&text).len(), 1);
        let md = docshape(&[&args[..], &["--format", "markdown"]].concat());
        assert_eq!(md.status.code(), Some(2));
        let m = stdout(&md);
        assert!(m.contains("## Errors") && m.contains(name), "{m}");
        assert!(good.iter().all(|(ns, _)| m.contains(ns)), "{m}");
        let sarif = docshape(&[&args[..], &["--format", "sarif"]].concat());
        assert_eq!(sarif.status.code(), Some(2));
        let s: Value = serde_json::from_slice(&sarif.stdout).expect("SARIF is JSON");
        let inv = &s["runs"][0]["invocations"][0];
        assert_eq!(inv["executionSuccessful"], false, "{inv}");
        let note = &inv["toolExecutionNotifications"][0];
        assert_eq!(note["level"], "error", "{inv}");
        assert_eq!(note["message"]["text"], message, "{inv}");
        assert_eq!(
            note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            path_str(&damaged)
        );

        // Written to a file, and still exit 2.
        let file = tmp.path().join("report.json");
        let to_file = docshape(&[&args[..], &["--format", "json", "-o", path_str(&file)]].concat());
        assert_eq!(to_file.status.code(), Some(2));
        assert!(to_file.stdout.is_empty());
        let written: Value =
            serde_json::from_slice(&std::fs::read(&file).expect("the report is written"))
                .expect("JSON");
        assert_eq!(written["errors"], report["errors"]);
        assert_eq!(collections(&written).len(), good.len());
    }
}

#[test]
fn every_damaged_file_is_listed_and_said_once() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let good = readable_tree(tmp.path());
    let mut damaged = Vec::new();
    for (name, bytes) in damaged_files() {
        let p = tmp.path().join("other").join(name);
        std::fs::write(&p, &bytes).expect("write");
        damaged.push(p);
    }
    let out = docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
        "--no-snapshot",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(collections(&report).len(), good.len());
    let targets: BTreeSet<&str> = report["errors"]
        .as_array()
        .expect("errors")
        .iter()
        .filter_map(|e| e["target"].as_str())
        .collect();
    let want: BTreeSet<&str> = damaged.iter().map(|p| path_str(p)).collect();
    assert_eq!(targets, want);
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), damaged.len(), "{lines:?}");
    for p in &damaged {
        let name = p.file_name().and_then(|n| n.to_str()).expect("name");
        assert_eq!(
            lines.iter().filter(|l| l.contains(name)).count(),
            1,
            "{name}: {lines:?}"
        );
    }
}

#[test]
fn nothing_readable_is_one_sentence_and_no_report() {
    let tmp = tempfile::tempdir().expect("tempdir");
    readable_tree(tmp.path());
    let (name, bytes) = damaged_files().remove(0);
    let damaged = tmp.path().join("shop").join(name);
    std::fs::write(&damaged, bytes).expect("write");
    let only = format!("shop.{}", name.trim_end_matches(".json"));
    // The damaged file alone, as the target or as the one collection selected.
    for args in [
        ["audit", path_str(&damaged), "--format", "json"].as_slice(),
        [
            "audit",
            path_str(tmp.path()),
            "-c",
            &only,
            "--format",
            "json",
        ]
        .as_slice(),
    ] {
        let line = assert_fails_cleanly(&docshape(args), "nothing readable");
        assert!(line.contains(name), "{line}");
    }
}

/// Each legacy form of Extended JSON, with the value it must decode to.
const LEGACY: &str = r#"{"_id":{"$oid":"5ca4bbcea2dd94ee58162a68"},"d":{"$date":"2009-04-01T00:00:00.000-0700"},"d2":{"$date":"2009-04-01T00:00:00-07"},"d3":{"$date":"2009-04-01T12:30+0530"},"ms":{"$date":1238569200000},"msf":{"$date":1238569200000.0},"nl":{"$date":{"$numberLong":"1238569200000"}},"b":{"$binary":"AQID","$type":"80"},"bn":{"$binary":{"base64":"AQIDBA==","subType":"04"}},"r":{"$regex":"^a","$options":"mi"},"rn":{"$regularExpression":{"pattern":"b$","options":"x"}},"i":{"$numberInt":"7"},"l":{"$numberLong":"8"},"lq":{"$numberLong":9},"f":{"$numberDouble":"NaN"},"dec":{"$numberDecimal":"1.10"},"ts":{"$timestamp":{"t":1,"i":2}},"mn":{"$minKey":1},"mx":{"$maxKey":1},"u":{"$undefined":true},"s":{"$symbol":"sym"},"c":{"$code":"f()"},"cs":{"$code":"g()","$scope":{"at":{"$date":"2009-04-01T00:00:00.000-0700"}}},"p":{"$dbPointer":{"$ref":"db.c","$id":{"$oid":"5ca4bbcea2dd94ee58162a68"}}},"ref":{"$ref":"c","$id":1}}"#;

#[test]
fn legacy_extended_json_and_byte_order_marks_are_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pretty = serde_json::to_string_pretty(
        &serde_json::from_str::<Value>(LEGACY).expect("the fixture is JSON"),
    )
    .expect("pretty");
    // Two documents in each layout, behind a byte-order mark.
    let layouts = [
        ("ndjson", format!("{LEGACY}\n{LEGACY}\n")),
        ("array", format!("[{LEGACY},\n{LEGACY}]")),
        ("concatenated", format!("{pretty}{pretty}")),
    ];
    let mut profiles = Vec::new();
    for (layout, text) in &layouts {
        let dir = tmp.path().join(layout).join("old");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let p = dir.join("things.json");
        std::fs::write(&p, [&b"\xef\xbb\xbf"[..], text.as_bytes()].concat()).expect("write");
        let report = json_ok(&docshape(&[
            "audit",
            path_str(&p),
            "--format",
            "json",
            "--no-snapshot",
        ]));
        assert_eq!(report["errors"], json!([]), "{layout}");
        let mut c = collection(&report, "old.things").clone();
        assert_eq!(c["documents"], 2, "{layout}");
        c.as_object_mut().expect("object").remove("storage");
        profiles.push((layout, c));
    }
    let (_, c) = &profiles[0];
    let when = "2009-04-01T07:00:00Z";
    for path in ["d", "d2", "d3", "ms", "msf", "nl", "cs"] {
        let f = field(c, path);
        if path == "cs" {
            assert_eq!(f["types"], json!({"javascriptWithScope": 2}));
            // The scope is shown as canonical Extended JSON: 2009-04-01T07:00:00Z.
            let scope = &f["examples"][0]["$scope"]["at"];
            assert_eq!(
                scope,
                &json!({"$date": {"$numberLong": "1238569200000"}}),
                "{f}"
            );
            continue;
        }
        assert_eq!(f["types"], json!({"date": 2}), "{path}: {f}");
        assert_eq!(f["date_range"], json!([when, when]), "{path}: {f}");
    }
    let types = [
        ("_id", "objectId"),
        ("b", "binData"),
        ("bn", "binData"),
        ("r", "regex"),
        ("rn", "regex"),
        ("i", "int"),
        ("l", "long"),
        ("lq", "long"),
        ("f", "double"),
        ("dec", "decimal"),
        ("ts", "timestamp"),
        ("mn", "minKey"),
        ("mx", "maxKey"),
        ("u", "undefined"),
        ("s", "symbol"),
        ("c", "javascript"),
        ("p", "dbPointer"),
        ("ref", "object"),
        ("ref.$ref", "string"),
        ("ref.$id", "int"),
    ];
    for (path, ty) in types {
        assert_eq!(field(c, path)["types"], json!({ ty: 2 }), "{path}");
    }
    assert_eq!(
        field(c, "b")["examples"][0],
        json!({"$binary": {"subType": "80", "length": 3}})
    );
    assert_eq!(
        field(c, "r")["examples"][0],
        json!({"$regularExpression": {"pattern": "^a", "options": "im"}})
    );
    assert_eq!(field(c, "lq")["examples"][0], json!(9));
    for (layout, other) in &profiles[1..] {
        assert_eq!(other, c, "{layout} reads as NDJSON does");
    }
}

/// The report with what changes from run to run (the time it was written,
/// the peak memory) taken out.
fn settled(mut report: Value) -> Value {
    for volatile in ["generated_at", "peak_memory_bytes"] {
        report.as_object_mut().map(|r| r.remove(volatile));
    }
    report
}

/// A directory's collections are read side by side, one per thread, and
/// each collection's growth, candidate references and rules are worked out
/// on every thread: whatever their number, the report is the one a single
/// thread writes — collections in the listing's order, the same
/// relationships chosen, every finding and error.
#[test]
fn every_thread_count_writes_the_same_report() {
    let sample = common::repo().join("sample-data");
    let tmp = tempfile::tempdir().expect("tempdir");
    readable_tree(tmp.path());
    let (name, bytes) = damaged_files().remove(2);
    std::fs::write(tmp.path().join("shop").join(name), bytes).expect("write");
    for dir in [path_str(&sample), path_str(tmp.path())] {
        let run = |threads: &str| {
            let out = docshape_env(
                &[
                    "audit",
                    dir,
                    "--format",
                    "json",
                    "--no-snapshot",
                    "--fail-on",
                    "never",
                ],
                &[("DOCSHAPE_THREADS", threads)],
            );
            let report: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{dir} on {threads} threads: {e}: {}", stderr(&out)));
            settled(report)
        };
        let one = run("1");
        assert!(collections(&one).len() >= 3, "{dir}");
        for threads in ["2", "5"] {
            let many = run(threads);
            let names = |r: &Value| -> Vec<String> {
                collections(r)
                    .iter()
                    .map(|c| c["namespace"].as_str().unwrap_or("").to_owned())
                    .collect()
            };
            assert_eq!(
                names(&many),
                names(&one),
                "{dir}: order on {threads} threads"
            );
            assert_eq!(many, one, "{dir}: the report on {threads} threads");
        }
    }
}

/// Stopped while a directory's files are read side by side: the
/// collections handed out by then are the report, in the listing's order,
/// with a note that says how many; none that finished later is added.
#[test]
fn a_stop_while_files_are_read_keeps_those_read_in_order() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use docshape::audit::{self, Plan};
    use docshape::source::{FileSource, SampleMode, Selection};

    const FILES: usize = 30;
    let tmp = tempfile::tempdir().expect("tempdir");
    let docs = generated_docs();
    for i in 0..FILES {
        write_bson(&tmp.path().join(format!("c{i:02}.bson")), &docs);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
    plan.stop = Some(Arc::clone(&stop));
    let mut arrived = Vec::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let report = rt
        .block_on(async {
            let mut src = FileSource::open(tmp.path()).expect("open the directory");
            audit::run(&mut src, &plan, &mut |p| {
                if let Some(c) = p.finished {
                    arrived.push(c.namespace.clone());
                    if arrived.len() == 3 {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            })
            .await
        })
        .expect("the audit ends with a report");
    let names: Vec<String> = report
        .collections
        .iter()
        .map(|c| c.namespace.clone())
        .collect();
    assert_eq!(names, arrived, "reported as they arrived");
    assert_eq!(names.len(), 3, "{names:?}");
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "in the listing's order");
    let said = format!("stopped after {} of {FILES} collections", names.len());
    assert!(
        report.notes.iter().any(|n| n.contains(&said)),
        "{said}: {:?}",
        report.notes
    );
}
