//! What the migration tests share: running a suggested script with the real
//! `mongosh` twice, and the checks every migration must pass (the second run
//! changes nothing, no `_id` changes).

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
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

/// The first line of every script that changes data: a dry run until it
/// is switched on.
pub const DRY: &str = "const apply = false;";

/// `script` switched on: its `const apply = false;` turned true, as a user
/// does once the dry run looks right. A script that only reads is returned
/// as it is.
pub fn applied(script: &str) -> String {
    match script.strip_prefix(DRY) {
        Some(rest) => format!("const apply = true;{rest}"),
        None => script.to_owned(),
    }
}

/// Runs `script`, switched on, once with mongosh; its standard output.
pub fn run_once(script: &str, name: &str) -> String {
    let (ok, out) = run_status(script, name);
    assert!(ok, "{name} failed: {out}\nscript:\n{script}");
    out
}

/// Runs `script`, switched on ([`applied`]), once with mongosh: whether it
/// succeeded, and what it printed (standard output, then standard error).
pub fn run_status(script: &str, name: &str) -> (bool, String) {
    run_as_written(&applied(script), name)
}

/// Runs `script` exactly as written (a dry run, for a changing script).
pub fn run_as_written(script: &str, name: &str) -> (bool, String) {
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
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
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

/// The JSON report of `audit` on the collections `pattern` names
/// (`db.coll`, or `db.*`).
pub async fn audit(pattern: &str) -> serde_json::Value {
    audit_with(pattern, None).await
}

/// [`audit`] with a `docshape.toml` holding `config` (lowered thresholds,
/// so that small planted collections are judged like large ones).
pub async fn audit_with(pattern: &str, config: Option<&str>) -> serde_json::Value {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cfg = tmp.path().join("docshape.toml");
    let mut args = vec![
        "audit".to_owned(),
        uri(),
        "-c".into(),
        pattern.into(),
        "--format".into(),
        "json".into(),
        "--no-snapshot".into(),
        "--fail-on".into(),
        "never".into(),
        "--lang".into(),
        "en".into(),
    ];
    if let Some(c) = config {
        std::fs::write(&cfg, c).expect("write docshape.toml");
        args.push("--config".into());
        args.push(cfg.to_str().expect("utf-8 path").into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    json_ok(&docshape_async(&args).await)
}

/// Findings of `rule` on the collection `ns`.
pub fn findings<'a>(
    report: &'a serde_json::Value,
    ns: &str,
    rule: &str,
) -> Vec<&'a serde_json::Value> {
    common::collections(report)
        .iter()
        .filter(|c| c["namespace"] == ns)
        .flat_map(|c| c["findings"].as_array().expect("findings"))
        .filter(|f| f["rule"] == rule)
        .collect()
}

/// Findings of `rule` about a whole database or deployment.
pub fn report_findings<'a>(
    report: &'a serde_json::Value,
    rule: &str,
) -> Vec<&'a serde_json::Value> {
    report["findings"]
        .as_array()
        .expect("report findings")
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

/// Every leaf value (not the names holding it) of every document of `db`,
/// as a hash of its type and value: what "no data dropped" compares.
pub fn leaves(dump: &BTreeMap<String, BTreeMap<String, Document>>) -> BTreeSet<u64> {
    fn walk(b: &Bson, out: &mut BTreeSet<u64>) {
        match b {
            Bson::Document(d) => d.values().for_each(|v| walk(v, out)),
            Bson::Array(a) => a.iter().for_each(|v| walk(v, out)),
            other => {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                format!("{other:?}").hash(&mut h);
                out.insert(h.finish());
            }
        }
    }
    let mut out = BTreeSet::new();
    for docs in dump.values() {
        for d in docs.values() {
            d.values().for_each(|v| walk(v, &mut out));
        }
    }
    out
}

/// Asserts every value held before is still held somewhere in `db`.
pub async fn nothing_dropped(
    db: &str,
    before: &BTreeMap<String, BTreeMap<String, Document>>,
    name: &str,
) {
    let now = leaves(&dump(db).await);
    let lost = leaves(before).difference(&now).count();
    assert_eq!(lost, 0, "{name}: {lost} values held before are gone");
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
