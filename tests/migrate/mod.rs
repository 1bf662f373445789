//! What the migration tests share: running a suggested script with the real
//! `mongosh` twice, and the checks every migration must pass (the second run
//! changes nothing, no `_id` changes).

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use bson::{doc, Bson, Document};
use futures_util::TryStreamExt;

use crate::common::{self, docshape_async, json_ok, uri};

/// `mongosh`: `$DOCSHAPE_MONGOSH`, else the copy `scripts/test.sh` installs
/// into `.tools/`. Missing is a failure, never a skip.
pub fn mongosh() -> PathBuf {
    if let Ok(p) = std::env::var("DOCSHAPE_MONGOSH") {
        return PathBuf::from(p);
    }
    let p = common::repo().join(".tools/node_modules/.bin/mongosh");
    assert!(
        p.exists(),
        "mongosh is needed to run the migration scripts: run scripts/test.sh (it installs it into .tools/) or set DOCSHAPE_MONGOSH"
    );
    p
}

/// Runs `script` once with mongosh; its standard output.
pub fn run_once(script: &str, name: &str) -> String {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join(format!("{name}.js"));
    std::fs::write(&file, script).expect("write script");
    let out = Command::new(mongosh())
        .arg(uri())
        .arg("--quiet")
        .arg("--file")
        .arg(&file)
        .env("MONGOSH_NO_UPDATE_CHECK", "1")
        .output()
        .expect("run mongosh");
    assert!(
        out.status.success(),
        "{name} failed: {}\n{}\nscript:\n{script}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every collection of `db`, each document keyed by its `_id`.
pub async fn dump(db: &str) -> BTreeMap<String, BTreeMap<String, Document>> {
    let d = common::client().await.database(db);
    let mut out = BTreeMap::new();
    for name in d.list_collection_names().await.expect("collections") {
        let docs: Vec<Document> = d
            .collection::<Document>(&name)
            .find(doc! {})
            .await
            .expect("find")
            .try_collect()
            .await
            .expect("collect");
        let by_id = docs
            .into_iter()
            .map(|x| (format!("{:?}", x.get("_id")), x))
            .collect();
        out.insert(name, by_id);
    }
    out
}

/// Runs `script` twice; asserts the second run changed nothing in `db` and
/// that no `_id` of the collections that existed before was changed or
/// lost. Returns the output of both runs.
pub async fn run_twice(db: &str, script: &str, name: &str) -> (String, String) {
    let before = dump(db).await;
    let first = run_once(script, name);
    let after_one = dump(db).await;
    let second = run_once(script, name);
    let after_two = dump(db).await;
    assert!(
        after_one == after_two,
        "{name}: the second run changed the data\nfirst run said: {first}\nsecond run said: {second}"
    );
    for (coll, docs) in &before {
        let now = after_one.get(coll).expect("collection kept");
        let old: Vec<&String> = docs.keys().collect();
        let new: Vec<&String> = now.keys().collect();
        assert_eq!(old, new, "{name}: the _ids of {coll} changed");
    }
    (first, second)
}

/// The suggestion of the first finding of `rule` on `ns` (at `path` when given).
pub fn suggestion<'a>(
    report: &'a serde_json::Value,
    ns: &str,
    rule: &str,
    path: Option<&str>,
) -> &'a serde_json::Value {
    let f = finding(report, ns, rule, path).unwrap_or_else(|| {
        panic!(
            "no {rule} on {ns}: {}",
            common::collection(report, ns)["findings"]
        )
    });
    &f["suggestion"]
}

pub fn finding<'a>(
    report: &'a serde_json::Value,
    ns: &str,
    rule: &str,
    path: Option<&str>,
) -> Option<&'a serde_json::Value> {
    let c = common::collection(report, ns);
    c["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == rule && path.is_none_or(|p| f["path"] == p))
}

pub async fn audit(ns: &str) -> serde_json::Value {
    json_ok(
        &docshape_async(&[
            "audit",
            &uri(),
            "-c",
            ns,
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
        ])
        .await,
    )
}

pub async fn all(c: &mongodb::Collection<Document>) -> Vec<Document> {
    c.find(doc! {})
        .await
        .expect("find")
        .try_collect()
        .await
        .expect("collect")
}

/// A value's number, whatever numeric type (or numeric string) holds it.
pub fn number(b: &Bson) -> Option<f64> {
    match b {
        Bson::Int32(i) => Some(f64::from(*i)),
        Bson::Int64(i) => Some(*i as f64),
        Bson::Double(x) => Some(*x),
        Bson::Decimal128(d) => d.to_string().parse().ok(),
        Bson::String(s) => s.parse().ok(),
        _ => None,
    }
}
