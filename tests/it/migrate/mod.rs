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

/// A `mongosh` kept running to run many scripts, one after another, each
/// in a block of its own (its `const`s do not meet the next script's): one
/// process start for all of them instead of one each. It reads step files
/// from a directory of its own and ends each with a line naming the step.
pub struct Shell {
    child: std::process::Child,
    dir: tempfile::TempDir,
    lines: std::sync::mpsc::Receiver<String>,
    next: u64,
}

/// How long one script may run in a [`Shell`].
const STEP_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

impl Shell {
    pub fn start() -> Shell {
        use std::io::BufRead;
        let dir = tempfile::tempdir().expect("tempdir");
        let path = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
        let driver = format!(
            r#"const fs = require("fs");
// A script that quits ends its step with an error, not the shell.
globalThis.quit = (c) => {{ throw new Error(`the script called quit(${{c === undefined ? "" : c}})`); }};
for (let n = 0; ; n++) {{
  const step = {step} + n + ".js";
  while (!fs.existsSync(step)) sleep(5);
  if (fs.existsSync({quit})) break;
  let status = "ok";
  try {{ load(step); }} catch (e) {{ status = "error"; print(`${{e}}`); }}
  print(`@@end ${{n}} ${{status}}`);
}}
"#,
            step = serde_json::to_string(&path("step-")).expect("path"),
            quit = serde_json::to_string(&path("quit")).expect("path"),
        );
        std::fs::write(dir.path().join("driver.js"), driver).expect("write driver");
        let mut child = Command::new(mongosh())
            .arg(uri())
            .arg("--quiet")
            .arg("--file")
            .arg(dir.path().join("driver.js"))
            .env("MONGOSH_NO_UPDATE_CHECK", "1")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .expect("run mongosh");
        let out = child.stdout.take().expect("mongosh's stdout");
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(out).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Shell {
            child,
            dir,
            lines,
            next: 0,
        }
    }

    /// Runs `script` as written: whether it ended without an error, and
    /// what it printed.
    pub fn run(&mut self, script: &str) -> (bool, String) {
        let n = self.next;
        self.next += 1;
        let tmp = self.dir.path().join(format!("tmp-{n}"));
        std::fs::write(&tmp, format!("{{\n{script}\n}}\n")).expect("write step");
        std::fs::rename(&tmp, self.dir.path().join(format!("step-{n}.js"))).expect("step");
        let end = format!("@@end {n} ");
        let mut out = String::new();
        loop {
            let line = self.lines.recv_timeout(STEP_TIMEOUT).unwrap_or_else(|e| {
                panic!("mongosh did not finish a script ({e}):\n{out}\nscript:\n{script}")
            });
            if let Some(status) = line.strip_prefix(&end) {
                return (status == "ok", out);
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        let _ = std::fs::write(self.dir.path().join("quit"), "");
        let _ = std::fs::write(self.dir.path().join(format!("step-{}.js", self.next)), "");
        // A shell still inside a script (a step that timed out on a server
        // that stopped answering) never reads them: it is killed, so that
        // a failed test ends instead of waiting for it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::time::Instant::now() < deadline {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The undo command a script printed after changing data, if it did.
pub fn undo_command(out: &str) -> Option<&str> {
    out.lines()
        .find(|l| l.starts_with(docshape::advise::change::UNDO_START))
}

/// The collections a piece of JavaScript names with `getCollection("…")`.
pub fn named_collections(js: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = js;
    while let Some(at) = rest.find("getCollection(") {
        rest = &rest[at + "getCollection(".len()..];
        let mut de = serde_json::Deserializer::from_str(rest).into_iter::<String>();
        if let Some(Ok(name)) = de.next() {
            out.insert(name);
        }
    }
    out
}

/// One collection exactly as the server holds it: each document's bytes by
/// its `_id` (canonical Extended JSON), and its index specifications.
#[derive(Clone, Debug, PartialEq)]
pub struct Held {
    pub docs: BTreeMap<String, bson::RawDocumentBuf>,
    pub indexes: Vec<Document>,
}

/// Every collection of a database, exactly.
pub type Snapshot = BTreeMap<String, Held>;

/// Every collection of `db`: the bytes of every document, and its indexes.
pub async fn snapshot(client: &mongodb::Client, db: &str) -> Snapshot {
    snapshot_of(client, db, |_| true).await
}

/// The collections of `db` that `wanted` picks, exactly.
pub async fn snapshot_of(
    client: &mongodb::Client,
    db: &str,
    wanted: impl Fn(&str) -> bool,
) -> Snapshot {
    let d = client.database(db);
    let mut out = BTreeMap::new();
    for name in d.list_collection_names().await.expect("collections") {
        if !wanted(&name) {
            continue;
        }
        let mut docs = BTreeMap::new();
        let mut cursor = d
            .collection::<bson::RawDocumentBuf>(&name)
            .find(doc! {})
            .await
            .expect("find");
        while let Some(raw) = cursor.try_next().await.expect("next document") {
            let id = raw
                .get("_id")
                .ok()
                .flatten()
                .and_then(|v| bson::RawBson::from(v).try_into().ok())
                .map_or_else(String::new, |b: Bson| {
                    b.into_canonical_extjson().to_string()
                });
            docs.insert(id, raw);
        }
        let reply = d
            .run_command(doc! {"listIndexes": &name})
            .await
            .expect("listIndexes");
        let mut indexes: Vec<Document> = reply
            .get_document("cursor")
            .and_then(|c| c.get_array("firstBatch"))
            .map(|a| a.iter().filter_map(|i| i.as_document().cloned()).collect())
            .unwrap_or_default();
        for i in &mut indexes {
            i.remove("v");
            i.remove("ns");
        }
        indexes.sort_by(|a, b| a.get_str("name").ok().cmp(&b.get_str("name").ok()));
        out.insert(name, Held { docs, indexes });
    }
    out
}

/// How two versions of a document differ at one path (docshape's
/// notation: `a.b`, `items[].qty`).
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A field the first version lacks, with its new value.
    Added(String, Bson),
    /// A field the second version lacks.
    Removed(String),
    /// A value that differs (also an array whose length changed, or a
    /// document whose fields changed order).
    Changed(String),
}

impl Change {
    pub fn path(&self) -> &str {
        match self {
            Change::Added(p, _) | Change::Removed(p) | Change::Changed(p) => p,
        }
    }
}

/// Where two versions of a document differ.
pub fn changes(before: &Document, after: &Document) -> Vec<Change> {
    let mut out = Vec::new();
    diff_docs("", before, after, &mut out);
    out
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_owned()
    } else {
        format!("{prefix}.{key}")
    }
}

fn diff_docs(prefix: &str, a: &Document, b: &Document, out: &mut Vec<Change>) {
    for (k, va) in a {
        match b.get(k) {
            Some(vb) => diff_values(&join(prefix, k), va, vb, out),
            None => out.push(Change::Removed(join(prefix, k))),
        }
    }
    for (k, v) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
        out.push(Change::Added(join(prefix, k), v.clone()));
    }
    let common_a: Vec<&String> = a.keys().filter(|k| b.contains_key(*k)).collect();
    let common_b: Vec<&String> = b.keys().filter(|k| a.contains_key(*k)).collect();
    if common_a != common_b {
        out.push(Change::Changed(prefix.to_owned()));
    }
}

fn diff_values(path: &str, a: &Bson, b: &Bson, out: &mut Vec<Change>) {
    match (a, b) {
        (Bson::Document(x), Bson::Document(y)) => diff_docs(path, x, y, out),
        (Bson::Array(x), Bson::Array(y)) if x.len() == y.len() => {
            let elem = format!("{path}[]");
            for (u, v) in x.iter().zip(y) {
                diff_values(&elem, u, v, out);
            }
        }
        _ if same_bits(a, b) => {}
        _ => out.push(Change::Changed(path.to_owned())),
    }
}

/// Equal as stored: the same type and the same value (NaN equals NaN).
fn same_bits(a: &Bson, b: &Bson) -> bool {
    match (a, b) {
        (Bson::Double(x), Bson::Double(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Every path (docshape's notation) a document holds, at every depth.
pub fn held_paths(d: &Document, out: &mut BTreeSet<String>) {
    fn walk(path: &str, v: &Bson, out: &mut BTreeSet<String>) {
        out.insert(path.to_owned());
        match v {
            Bson::Document(d) => {
                for (k, x) in d {
                    walk(&join(path, k), x, out);
                }
            }
            Bson::Array(a) => {
                let elem = format!("{path}[]");
                for x in a {
                    walk(&elem, x, out);
                }
            }
            _ => {}
        }
    }
    for (k, v) in d {
        walk(k, v, out);
    }
}

/// The values an `_id` holds below the top of a document (sub-documents'
/// and array elements' own `_id`s), as canonical Extended JSON.
pub fn inner_ids(d: &Document) -> Vec<String> {
    fn walk(v: &Bson, depth: usize, out: &mut Vec<String>) {
        match v {
            Bson::Document(d) => {
                for (k, x) in d {
                    if k == "_id" && depth > 0 {
                        out.push(x.clone().into_canonical_extjson().to_string());
                    }
                    walk(x, depth + 1, out);
                }
            }
            Bson::Array(a) => a.iter().for_each(|x| walk(x, depth + 1, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&Bson::Document(d.clone()), 0, &mut out);
    out.sort();
    out
}

/// The leaf paths of `v` found at `path`.
pub fn leaf_paths(path: &str, v: &Bson, out: &mut Vec<String>) {
    match v {
        Bson::Document(d) if !d.is_empty() => {
            for (k, x) in d {
                leaf_paths(&join(path, k), x, out);
            }
        }
        Bson::Array(a) if !a.is_empty() => {
            let elem = format!("{path}[]");
            for x in a {
                leaf_paths(&elem, x, out);
            }
        }
        _ => out.push(path.to_owned()),
    }
}
