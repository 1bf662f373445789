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
    realdata, stdout, write_bson,
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
