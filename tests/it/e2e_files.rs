//! The `docshape` binary against files and directories: real public data
//! (`../shared/realdata`) checked against values computed independently
//! here, generated data written in every supported file format, and the
//! failure contract (exit code 2, one line on stderr, no panic).

use crate::common;
use crate::support::column_encoder;

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
            bson::serialize_to_vec(&doc).expect("encode").len() as u64
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
    let plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
    let mut arrived = Vec::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let report = rt
        .block_on(async {
            let mut src = FileSource::open(tmp.path()).expect("open the directory");
            let mut progress = |p: &audit::Progress<'_>| {
                if let Some(c) = p.finished {
                    arrived.push(c.namespace.clone());
                    if arrived.len() == 3 {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            };
            let control = audit::Control::new(&mut progress).stopping_on(Arc::clone(&stop));
            audit::run_with(&mut src, &plan, control).await
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

// ---------------------------------------------------------------------
// Dumps read whole: time-series buckets, legacy `system.indexes.bson`,
// collections of which only the metadata is left, `system.*` files named
// on their own.

/// An uncompressed (version 1) bucket of the time-series collection
/// whose time field is `ts`: `rows` are the measurements, each its
/// fields in column order (a field a row lacks is skipped).
fn bucket_v1(id: u32, meta: Option<Bson>, rows: &[Document]) -> Document {
    let mut data = Document::new();
    for (i, row) in rows.iter().enumerate() {
        for (k, v) in row {
            let column = data
                .entry(k.clone())
                .or_insert_with(|| Bson::Document(Document::new()));
            if let Bson::Document(c) = column {
                c.insert(i.to_string(), v.clone());
            }
        }
    }
    let mut b = doc! {
        "_id": common::oid(1_700_000_000 + id, id),
        "control": {"version": 1, "min": {}, "max": {}},
    };
    if let Some(m) = meta {
        b.insert("meta", m);
    }
    b.insert("data", data);
    b
}

/// `NAME.metadata.json` of a time-series collection, as mongodump
/// writes it.
fn timeseries_metadata(name: &str, granularity: &str) -> String {
    json!({
        "options": {"timeseries": {"timeField": "ts", "metaField": "sensor",
                                   "granularity": granularity,
                                   "bucketMaxSpanSeconds": 2_592_000}},
        "indexes": [{"v": 2, "key": {"sensor": 1, "ts": 1}, "name": "sensor_1_ts_1"}],
        "collectionName": name,
        "type": "timeseries",
    })
    .to_string()
}

/// A measurement as the server gives it back: the time field, the meta
/// field, then the other fields.
fn measurement(ts: i64, sensor: &Document, rest: &Document) -> Document {
    let mut d = doc! {"ts": DateTime::from_millis(ts), "sensor": sensor.clone()};
    d.extend(rest.clone());
    d
}

fn encoded_len(d: &Document) -> u64 {
    bson::serialize_to_vec(d).expect("encode").len() as u64
}

/// A dump of one time-series collection: three buckets of measurements
/// (one field missing from one of them), read back as measurements with
/// the time field, meta field and granularity of the metadata.
#[test]
fn a_time_series_dump_is_read_as_its_measurements() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("iot");
    std::fs::create_dir(&db).expect("mkdir");
    std::fs::write(
        db.join("weather.metadata.json"),
        timeseries_metadata("weather", "hours"),
    )
    .expect("metadata");
    let mut buckets = Vec::new();
    let mut expected = Vec::new();
    let mut n = 0i64;
    for b in 0..3u32 {
        let sensor = doc! {"id": i64::from(b), "kind": "temperature"};
        let mut rows = Vec::new();
        for k in 0..(2 + i64::from(b)) {
            n += 1;
            let mut rest = doc! {"_id": common::oid(1_700_000_000, n as u32)};
            // The first measurement of the second bucket has no reading.
            if !(b == 1 && k == 0) {
                rest.insert("temp", 10.0 + n as f64 / 4.0);
            }
            let ts = 1_700_000_000_000 + n * 60_000;
            let mut row = doc! {"ts": DateTime::from_millis(ts)};
            row.extend(rest.clone());
            rows.push(row);
            expected.push(measurement(ts, &sensor, &rest));
        }
        buckets.push(bucket_v1(b, Some(Bson::Document(sensor)), &rows));
    }
    write_bson(&db.join("system.buckets.weather.bson"), &buckets);
    let sizes: Vec<u64> = expected.iter().map(encoded_len).collect();

    let report = json_ok(&docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
    ]));
    assert_eq!(
        collections(&report).len(),
        1,
        "the buckets are not a collection of their own"
    );
    let c = collection(&report, "iot.weather");
    assert_eq!(c["kind"], "timeseries");
    assert_eq!(c["documents"], 9);
    assert_eq!(c["sampled"], 9);
    assert_eq!(c["options"]["timeseries"]["granularity"], "hours");
    assert_eq!(c["indexes"][0]["name"], "sensor_1_ts_1");
    assert_eq!(field(c, "ts")["types"], json!({"date": 9}));
    assert_eq!(field(c, "sensor.id")["count"], 9);
    assert_eq!(field(c, "_id")["types"], json!({"objectId": 9}));
    assert_eq!(field(c, "temp")["count"], 8, "one measurement lacks it");
    for bucket_field in ["control", "data", "meta", "data.ts"] {
        assert!(
            !c["fields"]
                .as_array()
                .expect("fields")
                .iter()
                .any(|f| f["path"] == bucket_field),
            "{bucket_field} is a bucket's field, not a measurement's"
        );
    }
    // Sizes are those of the measurements as the server unpacks them.
    assert_eq!(c["doc_size"]["min"], *sizes.iter().min().expect("sizes"));
    assert_eq!(c["doc_size"]["max"], *sizes.iter().max().expect("sizes"));
    let said = "iot.weather is a time-series collection (time field `ts`, meta field `sensor`, granularity hours): 9 measurements read from 3 buckets in system.buckets.weather.bson";
    assert!(
        report["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .any(|n| n == said),
        "{}",
        report["notes"]
    );
    for format in ["text", "markdown"] {
        let out = docshape(&["audit", path_str(tmp.path()), "--format", format]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).contains(said), "{format}: {}", stdout(&out));
    }
    // Every measurement read at once gives the same profile.
    let full = json_ok(&docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
        "--full",
    ]));
    let f = collection(&full, "iot.weather");
    assert_eq!((&f["documents"], &f["sampled"]), (&json!(9), &json!(9)));
    assert_eq!(f["fields"], c["fields"]);
    let lines = docshape(&["audit", path_str(tmp.path()), "--format", "jsonl"]);
    assert!(
        stdout(&lines)
            .lines()
            .any(|l| l.starts_with(r#"{"type":"end""#) && l.contains(said)),
        "{}",
        stdout(&lines)
    );
    let zh = docshape(&["audit", path_str(tmp.path()), "--lang", "zh"]);
    assert!(
        stdout(&zh).contains("iot.weather 是时间序列集合（时间字段 `ts`，元字段 `sensor`，粒度 hours）：从 system.buckets.weather.bson 的 3 个桶读出 9 条测量"),
        "{}",
        stdout(&zh)
    );

    // Some dumps put the metadata beside the buckets, under their name.
    std::fs::rename(
        db.join("weather.metadata.json"),
        db.join("system.buckets.weather.metadata.json"),
    )
    .expect("rename");
    let again = json_ok(&docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
    ]));
    assert_eq!(collections(&again).len(), 1, "{again}");
    let c = collection(&again, "iot.weather");
    assert_eq!(
        (&c["kind"], &c["documents"]),
        (&json!("timeseries"), &json!(9))
    );
    assert_eq!(field(c, "sensor.kind")["count"], 9);
}

/// Buckets that cannot be read are skipped, each said in the report with
/// why; the others are read. Compressed buckets are read, their columns
/// literals or delta blocks; one whose column cannot be decoded is
/// skipped, and its measurements (its `control.count`) still count in the
/// collection.
#[test]
fn unreadable_and_compressed_buckets_are_skipped_with_a_note() {
    use base64::Engine;
    use bson::spec::BinarySubtype;
    use bson::Binary;
    let column = |b64: &str| {
        Bson::Binary(Binary {
            subtype: BinarySubtype::from(7u8),
            bytes: base64::engine::general_purpose::STANDARD
                .decode(b64)
                .expect("base64"),
        })
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("iot");
    std::fs::create_dir(&db).expect("mkdir");
    std::fs::write(
        db.join("readings.metadata.json"),
        json!({"options": {"timeseries": {"timeField": "t", "metaField": "m"}},
               "indexes": [], "type": "timeseries"})
        .to_string(),
    )
    .expect("metadata");
    let good = bucket_v1(
        1,
        Some(Bson::Int32(7)),
        &[doc! {"t": DateTime::from_millis(1_000), "a": 1}],
    );
    // A column keyed by something other than positions.
    let mut damaged = bucket_v1(2, None, &[doc! {"t": DateTime::from_millis(2_000)}]);
    damaged.insert("data", doc! {"t": {"first": DateTime::from_millis(2_000)}});
    // Compressed, one measurement: each column one literal (the time
    // 1,000 ms after the epoch; the string "foo").
    let single = doc! {
        "_id": common::oid(1_700_000_003, 3),
        "control": {"version": 2, "min": {}, "max": {}, "count": 1},
        "meta": 8,
        "data": {"t": column("CQDoAwAAAAAAAAA="), "s": column("AgAEAAAAZm9vAAA=")},
    };
    // Compressed by MongoDB, two measurements in Simple-8b delta blocks
    // (from its test of buckets whose decompression fails).
    let deltas = doc! {
        "_id": common::oid(1_700_000_004, 4),
        "control": {"version": 2, "min": {}, "max": {}, "count": 2},
        "meta": 0,
        "data": {
            "t": column("CQAYhggUjQEAAIAOAAAAAAAAAAA="),
            "a": column("AQAAAAAAAAAAAJAuAAAAAAAAAAA="),
        },
    };
    // The same, its time column's block given selector 0, which no block
    // has.
    let broken = doc! {
        "_id": common::oid(1_700_000_005, 5),
        "control": {"version": 2, "min": {}, "max": {}, "count": 2},
        "meta": 0,
        "data": {"t": column("CQAYhggUjQEAAIAAAAAAAAAAAAA=")},
    };
    write_bson(
        &db.join("system.buckets.readings.bson"),
        &[good, damaged, single, deltas, broken],
    );
    let report = json_ok(&docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
    ]));
    let c = collection(&report, "iot.readings");
    assert_eq!(c["kind"], "timeseries");
    assert_eq!(
        c["sampled"], 4,
        "the first bucket's and the two compressed ones'"
    );
    assert_eq!(
        c["documents"], 6,
        "with the two the skipped compressed bucket declares"
    );
    assert_eq!(field(c, "t")["types"], json!({"date": 4}));
    assert_eq!(field(c, "m")["types"], json!({"int": 4}));
    assert_eq!(field(c, "s")["count"], 1);
    assert_eq!(field(c, "a")["types"], json!({"int": 1, "double": 2}));
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let note = notes
        .iter()
        .find(|n| n.starts_with("iot.readings is a time-series collection"))
        .unwrap_or_else(|| panic!("{notes:?}"));
    for part in [
        "4 measurements read from 5 buckets",
        "2 buckets, holding 2 measurements, could not be read and were skipped",
        "the compressed column data.t could not be decoded: a Simple-8b block has selector 0",
        "data.t is neither a document of positions nor a BSON column",
    ] {
        assert!(note.contains(part), "{part}: {note}");
    }
}

/// A column of `values` as MongoDB compresses it (subtype 7).
fn compressed(values: &[column_encoder::Value], r: &mut column_encoder::Rng) -> Bson {
    let mut used = column_encoder::Used::default();
    let bytes = column_encoder::encode(values, r, &column_encoder::Style::default(), &mut used);
    Bson::Binary(bson::Binary {
        subtype: bson::spec::BinarySubtype::from(7u8),
        bytes,
    })
}

/// The `$type` alias of a value.
fn alias(v: &Bson) -> &'static str {
    match v {
        Bson::Double(_) => "double",
        Bson::String(_) => "string",
        Bson::Document(_) => "object",
        Bson::Array(_) => "array",
        Bson::ObjectId(_) => "objectId",
        Bson::Boolean(_) => "bool",
        Bson::DateTime(_) => "date",
        Bson::Int32(_) => "int",
        Bson::Int64(_) => "long",
        Bson::Decimal128(_) => "decimal",
        other => panic!("{other:?}"),
    }
}

/// A dump of a time-series collection in compressed buckets (versions 2
/// and 3), their columns Simple-8b blocks of every kind: dates and
/// ObjectIds (deltas of deltas), doubles (scaled), strings, int32, int64,
/// booleans, decimals, fields missing in runs, an object field
/// (interleaved) and an array field. docshape reports the measurements
/// encoded: their count, and each field's count and types.
#[test]
fn compressed_buckets_are_read_as_their_measurements() {
    use column_encoder::{bson_value, Rng};
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("plant");
    std::fs::create_dir(&db).expect("mkdir");
    std::fs::write(
        db.join("sensors.metadata.json"),
        timeseries_metadata("sensors", "seconds"),
    )
    .expect("metadata");
    let mut rng = Rng::new(2024);
    let mut buckets = Vec::new();
    let mut all: Vec<Document> = Vec::new();
    let fields = [
        "ts", "_id", "temp", "status", "count", "total", "ok", "price", "pos", "tags",
    ];
    for bucket in 0..4u32 {
        let n = [1_000usize, 700, 1, 333][bucket as usize];
        let sensor = doc! {"id": i64::from(bucket), "kind": "engine"};
        let mut rows = Vec::new();
        for k in 0..n {
            let i = all.len() as i64;
            let mut d = doc! {
                "ts": DateTime::from_millis(1_700_000_000_000 + i * 10_000 + i64::from(k % 7 == 0)),
                "_id": common::oid(1_700_000_000 + (i / 50) as u32, i as u32),
            };
            // A reading missing in runs, steady for long stretches.
            if !(200..400).contains(&k) {
                d.insert(
                    "temp",
                    20.0 + f64::from((k / 150) as u32) + f64::from((k % 3) as u32) / 100.0,
                );
            }
            d.insert("status", if k % 250 < 240 { "running" } else { "stopped" });
            d.insert("count", (k % 17) as i32);
            if k % 5 != 0 {
                d.insert("total", 1_000_000_000_000i64 + i * 1_000);
            }
            d.insert("ok", k % 250 < 240);
            if k % 100 == 0 {
                d.insert(
                    "price",
                    bson::Decimal128::from_bytes(
                        (0x3040_0000_0000_0000_0000_0000_0000_0000u128 + k as u128).to_le_bytes(),
                    ),
                );
            }
            let mut pos = doc! {"x": (k % 40) as i32, "y": f64::from(k as u32) / 4.0};
            if k % 3 == 0 {
                pos.insert("label", format!("p{}", k % 4));
            }
            d.insert("pos", pos);
            if k % 2 == 0 {
                d.insert(
                    "tags",
                    vec![Bson::String("a".into()), Bson::Int32((k % 9) as i32)],
                );
            }
            rows.push(d.clone());
            let mut m = doc! {"ts": d.get("ts").expect("ts").clone(), "sensor": sensor.clone()};
            for (key, v) in &d {
                if key != "ts" {
                    m.insert(key.clone(), v.clone());
                }
            }
            all.push(m);
        }
        let mut data = Document::new();
        for f in fields {
            let column: Vec<column_encoder::Value> =
                rows.iter().map(|d| d.get(f).map(bson_value)).collect();
            if column.iter().any(Option::is_some) {
                data.insert(f, compressed(&column, &mut rng));
            }
        }
        buckets.push(doc! {
            "_id": common::oid(1_700_000_000 + bucket, bucket),
            "control": {"version": 2 + i32::from(bucket % 2 == 1), "min": {}, "max": {}, "count": n as i32},
            "meta": sensor,
            "data": data,
        });
    }
    write_bson(&db.join("system.buckets.sensors.bson"), &buckets);

    let report = json_ok(&docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
        "--full",
    ]));
    let c = collection(&report, "plant.sensors");
    assert_eq!(c["kind"], "timeseries");
    assert_eq!(c["documents"], all.len());
    assert_eq!(c["sampled"], all.len());
    // Each path's count and types, from the measurements encoded.
    let mut want: std::collections::BTreeMap<String, std::collections::BTreeMap<&str, u64>> =
        std::collections::BTreeMap::new();
    for m in &all {
        for (k, v) in m {
            *want
                .entry(k.clone())
                .or_default()
                .entry(alias(v))
                .or_default() += 1;
            if let Bson::Document(sub) = v {
                for (sk, sv) in sub {
                    *want
                        .entry(format!("{k}.{sk}"))
                        .or_default()
                        .entry(alias(sv))
                        .or_default() += 1;
                }
            }
        }
    }
    for (path, types) in &want {
        let f = field(c, path);
        assert_eq!(f["types"], json!(types), "{path}");
        assert_eq!(f["count"], types.values().sum::<u64>(), "{path}");
    }
    assert_eq!(
        field(c, "pos.label")["count"],
        680,
        "one in three of 2,034 measurements"
    );
    assert_eq!(
        field(c, "temp")["count"],
        all.len() - 533,
        "missing at 200..400 of each bucket"
    );
    assert_eq!(field(c, "price")["types"], json!({"decimal": 22}));
    // Sizes are those of the measurements as the server unpacks them.
    let sizes: Vec<u64> = all.iter().map(encoded_len).collect();
    assert_eq!(c["doc_size"]["min"], *sizes.iter().min().expect("sizes"));
    assert_eq!(c["doc_size"]["max"], *sizes.iter().max().expect("sizes"));
    let note = report["notes"].to_string();
    assert!(
        note.contains("2,034 measurements read from 4 buckets"),
        "{note}"
    );
    assert!(!note.contains("could not be read"), "{note}");
}

/// Buckets with no metadata beside them, read from a directory and named
/// on their own: the collection is still time-series, its measurements
/// read, the meta value under `meta`, and the note says what is unknown.
#[test]
fn buckets_without_metadata_and_named_on_their_own() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("plant");
    std::fs::create_dir(&db).expect("mkdir");
    let rows: Vec<Document> = (0..4)
        .map(|i| doc! {"at": DateTime::from_millis(i * 1_000), "rpm": i32::try_from(i).expect("small") * 100})
        .collect();
    let file = db.join("system.buckets.motors.bson");
    write_bson(
        &file,
        &[bucket_v1(1, Some(Bson::String("m1".into())), &rows)],
    );
    for target in [tmp.path(), file.as_path()] {
        let report = json_ok(&docshape(&["audit", path_str(target), "--format", "json"]));
        assert_eq!(collections(&report).len(), 1, "{report}");
        let c = collection(&report, "plant.motors");
        assert_eq!(c["kind"], "timeseries");
        assert_eq!(c["documents"], 4);
        assert_eq!(field(c, "meta")["types"], json!({"string": 4}));
        assert_eq!(field(c, "rpm")["count"], 4);
        let notes = report["notes"].to_string();
        assert!(
            notes.contains("no readable motors.metadata.json or system.buckets.motors.metadata.json with its options.timeseries is beside it: its time field, meta field and granularity are unknown"),
            "{notes}"
        );
        assert!(notes.contains("(time field unknown, meta field unknown, granularity unknown): 4 measurements read from 1 bucket in system.buckets.motors.bson"), "{notes}");
    }
    // Metadata that cannot be read says no more.
    std::fs::write(db.join("motors.metadata.json"), "{not json").expect("write");
    let report = json_ok(&docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
    ]));
    let c = collection(&report, "plant.motors");
    assert_eq!(field(c, "meta")["types"], json!({"string": 4}));
    assert!(
        report["notes"]
            .to_string()
            .contains("granularity are unknown"),
        "{}",
        report["notes"]
    );
}

/// Copies the files of a real dump's database directory.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let p = e.expect("entry").path();
        if p.is_file() {
            std::fs::copy(&p, to.join(p.file_name().expect("name"))).expect("copy");
        }
    }
}

fn realapps(rel: &str) -> std::path::PathBuf {
    let p = common::repo().join("../shared/realapps").join(rel);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

/// A MongoDB 3.x dump lists every collection's indexes in
/// `system.indexes.bson`: a collection whose metadata names none (or
/// that has no metadata) takes them from there, and the index rules see
/// them.
#[test]
fn a_legacy_dump_gives_its_collections_the_indexes_of_system_indexes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for db in ["bookstore", "test"] {
        copy_dir(&realapps(&format!("bank/{db}")), &tmp.path().join(db));
    }
    // One metadata file naming no index, the others gone.
    std::fs::write(
        tmp.path().join("bookstore/books.metadata.json"),
        r#"{"indexes": []}"#,
    )
    .expect("write");
    for f in ["bookstore/genres", "test/fs.files", "test/fs.chunks"] {
        std::fs::remove_file(tmp.path().join(format!("{f}.metadata.json"))).expect("rm");
    }
    let report = json_ok(&docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
    ]));
    let names = |ns: &str| -> Vec<String> {
        collection(&report, ns)["indexes"]
            .as_array()
            .expect("indexes")
            .iter()
            .map(|i| i["name"].as_str().expect("name").to_owned())
            .collect()
    };
    assert_eq!(names("bookstore.books"), ["_id_"]);
    assert_eq!(names("bookstore.genres"), ["_id_"]);
    assert_eq!(names("test.fs.files"), ["_id_", "filename_1"]);
    assert_eq!(names("test.fs.chunks"), ["_id_", "files_id_1_n_1"]);
    let chunks = collection(&report, "test.fs.chunks");
    assert_eq!(chunks["indexes"][1]["unique"], true);
    assert_eq!(chunks["indexes"][1]["key"], json!({"files_id": 1, "n": 1}));
    assert!(
        !collections(&report).iter().any(|c| c["namespace"]
            .as_str()
            .is_some_and(|n| n.contains("system."))),
        "system.indexes is not a collection"
    );
    // The real dump as it is: the same indexes from either place.
    let real = json_ok(&docshape(&[
        "audit",
        path_str(&realapps("bank/test")),
        "--format",
        "json",
    ]));
    assert_eq!(
        collection(&real, "test.fs.chunks")["indexes"],
        chunks["indexes"]
    );
}

/// `system.indexes.bson` named on its own says what it holds: exit 2 and
/// one sentence, never an empty report.
#[test]
fn system_indexes_named_on_its_own_says_what_it_holds() {
    let file = realapps("bank/test/system.indexes.bson");
    let said = assert_fails_cleanly(
        &docshape(&["audit", path_str(&file)]),
        "system.indexes.bson",
    );
    assert!(
        said.contains("holds the index definitions of fs.chunks, fs.files")
            && said.contains("not documents"),
        "{said}"
    );
}

/// A collection of which the dump holds only `metadata.json` is listed
/// with no documents, its indexes and a note that its data file is
/// missing; a view's metadata is a view.
#[test]
fn a_collection_with_only_its_metadata_is_listed_with_a_note() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("library");
    copy_dir(&realapps("library/library"), &db);
    std::fs::remove_file(db.join("reviews.bson")).expect("rm");
    std::fs::write(
        db.join("recent.metadata.json"),
        json!({"options": {"viewOn": "reviews", "pipeline": [{"$limit": 5}]},
               "indexes": [], "type": "view"})
        .to_string(),
    )
    .expect("view");
    let report = json_ok(&docshape(&[
        "audit",
        path_str(tmp.path()),
        "--format",
        "json",
    ]));
    let c = collection(&report, "library.reviews");
    assert_eq!((&c["documents"], &c["sampled"]), (&json!(0), &json!(0)));
    assert_eq!(c["kind"], "collection");
    let expected_indexes: Value = serde_json::from_str::<Value>(
        &std::fs::read_to_string(db.join("reviews.metadata.json")).expect("metadata"),
    )
    .expect("json")["indexes"]
        .clone();
    assert_eq!(
        c["indexes"].as_array().expect("indexes").len(),
        expected_indexes.as_array().expect("indexes").len()
    );
    let v = collection(&report, "library.recent");
    assert_eq!(v["kind"], "view");
    let notes = report["notes"].to_string();
    assert!(
        notes.contains("library.reviews: its data file (reviews.bson) is missing from the dump"),
        "{notes}"
    );
    assert!(
        notes.contains("library.recent is a view on reviews"),
        "{notes}"
    );
    // The other collections are read as before.
    assert_eq!(
        collection(&report, "library.authors")["sampled"],
        collection(
            &json_ok(&docshape(&[
                "audit",
                path_str(&realapps("library")),
                "--format",
                "json"
            ])),
            "library.authors"
        )["sampled"]
    );
}

/// One of the server's own collections named on its own is read, and
/// the report says what it is.
#[test]
fn a_system_collection_named_on_its_own_is_read_and_said() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("app");
    std::fs::create_dir(&db).expect("mkdir");
    let file = db.join("system.js.bson");
    write_bson(
        &file,
        &[doc! {"_id": "sum", "value": "function (a, b) { return a + b; }"}],
    );
    let report = json_ok(&docshape(&["audit", path_str(&file), "--format", "json"]));
    let c = collection(&report, "app.system.js");
    assert_eq!(c["documents"], 1);
    assert!(
        report["notes"]
            .to_string()
            .contains("app.system.js is one of the server's own collections (system.*)"),
        "{}",
        report["notes"]
    );
    // From the directory it is left out, as every `system.*` is.
    let out = docshape(&["audit", path_str(tmp.path()), "--format", "json"]);
    assert!(!stdout(&out).contains("system.js\""), "{}", stdout(&out));
}

/// Removes what differs between two runs of the same audit whatever was
/// read: when the report was made, the memory the process took (and the
/// note saying it passed the budget: the explorer's pipeline runs here
/// inside the test process, whose peak holds every other test's memory
/// too), and how long the whole-collection measurements took
/// (`extremes.millis`).
fn without_run_details(v: &mut Value) {
    if let Some(o) = v.as_object_mut() {
        for k in ["generated_at", "peak_memory_bytes"] {
            o.remove(k);
        }
        if let Some(notes) = o.get_mut("notes").and_then(Value::as_array_mut) {
            notes.retain(|n| !n.as_str().is_some_and(|n| n.starts_with("peak memory ")));
            if notes.is_empty() {
                o.remove("notes");
            }
        }
    }
    for c in v["collections"].as_array_mut().into_iter().flatten() {
        if let Some(e) = c.get_mut("extremes").and_then(Value::as_object_mut) {
            e.remove("millis");
        }
    }
}

/// The first place two JSON values differ, as a path.
fn first_difference(left: &Value, right: &Value, at: &str) -> Option<String> {
    match (left, right) {
        (Value::Object(lo), Value::Object(ro)) => {
            let keys: BTreeSet<&String> = lo.keys().chain(ro.keys()).collect();
            keys.into_iter().find_map(|k| match (lo.get(k), ro.get(k)) {
                (Some(l), Some(r)) => first_difference(l, r, &format!("{at}.{k}")),
                (l, r) => Some(format!("{at}.{k}: {l:?} vs {r:?}")),
            })
        }
        (Value::Array(la), Value::Array(ra)) if la.len() == ra.len() => la
            .iter()
            .zip(ra)
            .enumerate()
            .find_map(|(i, (l, r))| first_difference(l, r, &format!("{at}[{i}]"))),
        _ => (left != right).then(|| format!("{at}: {left} vs {right}")),
    }
}

/// The command line and the explorer open a target in one place and read
/// it alike: on files larger than the sample (whose document count only a
/// read can give) and small ones, `docshape audit` and the explorer's own
/// pipeline (its executor, driven as the app drives it) give the same
/// report, field by field.
#[test]
fn the_command_line_and_the_explorer_report_the_same_numbers() {
    use docshape::audit::Plan;
    use docshape::source::{SampleMode, Selection};
    use docshape::tui::effects::Effect;
    use docshape::tui::executor::{channel, Executor};
    use docshape::tui::msg::Msg;
    use std::time::Duration;

    let dir = tempfile::tempdir().expect("temporary directory");
    let shop = dir.path().join("shop");
    std::fs::create_dir_all(&shop).expect("shop directory");
    let orders: Vec<Document> = (0..3000i64)
        .map(|i| {
            let tags: Vec<Bson> = (0..i % 5).map(|k| Bson::String(format!("t{k}"))).collect();
            doc! {"_id": i, "customer": i % 97, "tags": tags,
            "at": DateTime::from_millis(1_700_000_000_000 + i * 60_000), "total": (i % 400) as f64 / 4.0}
        })
        .collect();
    write_bson(&shop.join("orders.bson"), &orders);
    let customers: Vec<Document> = (0..97i64)
        .map(|i| doc! {"_id": i, "name": format!("customer {i}")})
        .collect();
    write_bson(&shop.join("customers.bson"), &customers);

    let target = path_str(dir.path());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("runtime");
    for (mode, args) in [
        (SampleMode::Sample(1000), &["--sample", "1000"][..]),
        (SampleMode::Full, &["--full"][..]),
    ] {
        let mut cli_args = vec![
            "audit",
            target,
            "--format",
            "json",
            "--no-snapshot",
            "--lang",
            "en",
        ];
        cli_args.extend(args);
        let mut cli = json_ok(&docshape(&cli_args));

        let (tx, mut rx) = channel();
        let mut plan = Plan::new(Selection::default(), mode);
        plan.snapshots = None;
        let mut ex = Executor::new(
            rt.handle().clone(),
            docshape::target::Target::Path(dir.path().to_path_buf()),
            plan,
            Duration::from_secs(60),
            tx,
        );
        ex.run(Effect::Sample { req: 1, size: 1000 }, &mut Vec::new());
        let report = loop {
            let msg = rt
                .block_on(async { tokio::time::timeout(Duration::from_secs(120), rx.recv()).await })
                .expect("the explorer's run ends within two minutes")
                .expect("the explorer's channel stays open");
            if let Msg::Loaded { req: 1, result } = msg {
                break result.expect("the explorer's run succeeds");
            }
        };
        let mut explorer: Value =
            serde_json::from_str(&docshape::report::json::render(&report)).expect("report JSON");

        // Not vacuous: the large file was read and counted whole.
        let orders_report = collection(&cli, "shop.orders");
        assert_eq!(
            orders_report["documents"], 3000,
            "{args:?}: {orders_report}"
        );
        let sampled = if mode == SampleMode::Full { 3000 } else { 1000 };
        assert_eq!(
            orders_report["sampled"], sampled,
            "{args:?}: {orders_report}"
        );
        without_run_details(&mut cli);
        without_run_details(&mut explorer);
        assert_eq!(
            first_difference(&cli, &explorer, "report"),
            None,
            "{args:?}: the command line and the explorer disagree"
        );
    }
}
