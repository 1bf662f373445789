//! The typed exports (`schema --format typescript|json-schema-2020|rust`)
//! held to the tools their users run: `tsc --strict`, a draft 2020-12
//! validator (Python's `jsonschema`) and `rustc` with `bson`/`serde`. Every
//! collection of `sample-data`, `../shared/realdata` and
//! `../shared/realapps`, and one written here with every BSON type, is
//! exported from a full read (`--full`), and each
//! of its documents must compile, validate or deserialize against its own
//! export; two or three wrong documents per collection (a field of one
//! type given another, a field every document has left out, a member of an
//! embedded object or of an array's objects of one type given another) must
//! not.
//!
//! Documents are checked once per distinct shape: two documents whose
//! values have the same BSON types everywhere check alike, since no export
//! constrains a value beyond its type; an array keeps one element of each
//! shape for the same reason.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

use bson::spec::ElementType;
use bson::{Bson, Document};

use crate::common;

/// One collection of the corpus.
struct Coll {
    /// The database directory docshape reads.
    dir: PathBuf,
    ns: String,
    /// A name for its files and modules: `m012_shop_orders`.
    module: String,
    /// Its documents, one per distinct shape.
    docs: Vec<Document>,
    /// Documents its export must refuse, and what is wrong with each.
    wrong: Vec<(String, Document)>,
}

/// Every collection of the three corpora, read once per test run.
fn corpus() -> &'static [Coll] {
    static CORPUS: OnceLock<Vec<Coll>> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let repo = common::repo();
        let mut dbs: Vec<PathBuf> = subdirs(&repo.join("sample-data"));
        dbs.extend(
            subdirs(&common::realdata(""))
                .into_iter()
                .filter(|d| !d.ends_with("logs")),
        );
        for app in subdirs(&repo.join("../shared/realapps")) {
            dbs.extend(subdirs(&app));
        }
        dbs.push(every_type());
        let mut out = Vec::new();
        for dir in dbs {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                .expect("read a database directory")
                .map(|e| e.expect("directory entry").path())
                .collect();
            files.sort();
            let (db, prefix) = exports_of(&files).unwrap_or_else(|| (name_of(&dir), String::new()));
            for file in files {
                let name = name_of(&file);
                let name = name.strip_prefix(&prefix).unwrap_or(&name).to_owned();
                let (coll, bson) = if let Some(c) = name.strip_suffix(".bson") {
                    (c.to_owned(), true)
                } else if let Some(c) = name.strip_suffix(".json") {
                    if c.ends_with(".metadata") {
                        continue;
                    }
                    (c.to_owned(), false)
                } else {
                    continue;
                };
                // The server's own collections, and mongodump's prelude
                // (a tool's file, not a collection).
                if coll.starts_with("system.") || name == "prelude.json" {
                    continue;
                }
                let docs = if bson {
                    common::read_bson_file(&file)
                } else {
                    common::read_ejson(&file)
                };
                let docs = distinct_shapes(&docs);
                if docs.is_empty() {
                    continue;
                }
                let ns = format!("{db}.{coll}");
                let clean: String = ns
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() {
                            c.to_ascii_lowercase()
                        } else {
                            '_'
                        }
                    })
                    .collect();
                out.push(Coll {
                    dir: dir.clone(),
                    module: format!("m{:03}_{clean}", out.len()),
                    wrong: wrong_documents(&docs),
                    docs,
                    ns,
                });
            }
        }
        assert!(out.len() > 100, "the corpus has {} collections", out.len());
        out
    })
}

/// The database of a folder of Compass or `mongoexport` exports (every
/// file a `DB.COLL.json` with one `DB`), and its `DB.`: as docshape names
/// their collections.
fn exports_of(files: &[PathBuf]) -> Option<(String, String)> {
    let names: Vec<String> = files.iter().map(|f| name_of(f)).collect();
    let first = names.first()?.split_once('.')?.0.to_owned();
    let prefix = format!("{first}.");
    names
        .iter()
        .all(|n| {
            n.strip_prefix(&prefix)
                .and_then(|c| c.strip_suffix(".json"))
                .is_some_and(|c| !c.is_empty() && !c.ends_with(".metadata"))
        })
        .then_some((first, prefix))
}

/// A database of one collection holding every BSON type, the rare ones
/// (symbol, DBPointer, undefined, code with scope, min and max keys) and
/// the values relaxed Extended JSON writes apart (NaN, a long beyond 2^53,
/// a date before 1970), none of which the corpora hold.
fn every_type() -> PathBuf {
    use bson::spec::BinarySubtype;
    use bson::{doc, oid::ObjectId, Binary, DateTime, Decimal128, Regex, Timestamp};
    let dir = work_dir("typed-exports-every-type").join("every_type");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let oid = |n: u8| ObjectId::from_bytes([n; 12]);
    let pointer = Bson::try_from(serde_json::json!({
        "$dbPointer": { "$ref": "db.coll", "$id": { "$oid": oid(9).to_hex() } }
    }))
    .expect("a DBPointer");
    let docs: Vec<Document> = (0..4u8)
        .map(|i| {
            let mut d = doc! {
                "_id": oid(i),
                "double": if i == 0 { f64::NAN } else { f64::from(i) + 0.5 },
                "long": if i == 1 { i64::MAX } else { i64::from(i) },
                "when": DateTime::from_millis(if i == 2 { -86_400_000 } else { 1_700_000_000_000 }),
                "price": Decimal128::from_bytes([i; 16]),
                "blob": Binary { subtype: if i == 3 { BinarySubtype::Uuid } else { BinarySubtype::Generic }, bytes: vec![i; 16] },
                "pattern": Regex { pattern: bson::raw::cstr!("^a").into(), options: bson::raw::cstr!("i").into() },
                "ts": Timestamp { time: 1_700_000_000, increment: u32::from(i) },
                "code": Bson::JavaScriptCode("return 1".into()),
                "scoped": Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
                    code: "return x".into(),
                    scope: doc! { "x": 1 },
                }),
                "symbol": Bson::Symbol("s".into()),
                "pointer": pointer.clone(),
                "nothing": Bson::Undefined,
                "low": Bson::MinKey,
                "high": Bson::MaxKey,
                "flag": i % 2 == 0,
                "maybe": if i % 2 == 0 { Bson::Null } else { Bson::Int32(i.into()) },
                "mixed": [1, "two", 3.5, { "four": 4 }, [5], Bson::Null],
                "either": if i % 2 == 0 { Bson::String("s".into()) } else { Bson::Document(doc! { "n": 1 }) },
                "nested": { "deep": { "deeper": [{ "x": i32::from(i) }] } },
                "empty": [],
                "bare": {},
            };
            if i == 3 {
                d.insert("rare", "only here");
            }
            d
        })
        .collect();
    common::write_bson(&dir.join("values.bson"), &docs);
    dir
}

fn subdirs(p: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(p)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .expect("a file name")
        .to_string_lossy()
        .into_owned()
}

/// The BSON types of a value, all the way down: what an export's check of
/// it depends on. Arrays count each element shape once.
fn shape(b: &Bson) -> String {
    match b {
        Bson::Document(d) => {
            let mut s = String::from("{");
            for (k, v) in d {
                let _ = write!(s, "{k:?}:{},", shape(v));
            }
            s.push('}');
            s
        }
        Bson::Array(a) => {
            let elems: BTreeSet<String> = a.iter().map(shape).collect();
            format!("[{}]", elems.into_iter().collect::<Vec<_>>().join(","))
        }
        // A non-finite double, a long beyond 2^53, a date outside the years
        // relaxed Extended JSON writes as a string: each is written apart.
        Bson::Double(f) => format!("double{}", f.is_finite()),
        Bson::Int64(n) => format!("long{}", n.unsigned_abs() > (1 << 53) - 1),
        Bson::DateTime(d) => format!(
            "date{}",
            d.timestamp_millis() >= 0 && d.timestamp_millis() < 253_402_300_800_000
        ),
        other => format!("{:?}", other.element_type()),
    }
}

/// `b` with each array cut to one element of each shape.
fn shrink(b: &Bson) -> Bson {
    match b {
        Bson::Document(d) => Bson::Document(shrink_doc(d)),
        Bson::Array(a) => {
            let mut seen = BTreeSet::new();
            Bson::Array(
                a.iter()
                    .filter(|e| seen.insert(shape(e)))
                    .map(shrink)
                    .collect(),
            )
        }
        other => other.clone(),
    }
}

fn shrink_doc(d: &Document) -> Document {
    d.iter().map(|(k, v)| (k.clone(), shrink(v))).collect()
}

/// One document of each shape among `docs`, arrays shrunk.
fn distinct_shapes(docs: &[Document]) -> Vec<Document> {
    let mut seen = BTreeSet::new();
    docs.iter()
        .map(shrink_doc)
        .filter(|d| seen.insert(shape(&Bson::Document(d.clone()))))
        .collect()
}

/// Documents no faithful export accepts: the first document with a field
/// that every document has, always of one type and never null (not `_id`
/// when another will do), given a value of another type; the same document
/// without that field; and, where there is one, the same change one level
/// down ([`nested_wrong`]).
fn wrong_documents(docs: &[Document]) -> Vec<(String, Document)> {
    let first = &docs[0];
    // `_id` last: the other fields try more types.
    let fields = first
        .iter()
        .filter(|(k, _)| *k != "_id")
        .chain(first.iter().filter(|(k, _)| *k == "_id"));
    for (k, v) in fields {
        let t = v.element_type();
        if matches!(t, ElementType::Null | ElementType::Undefined) {
            continue;
        }
        if !docs
            .iter()
            .all(|d| d.get(k).is_some_and(|x| x.element_type() == t))
        {
            continue;
        }
        let mut swapped = first.clone();
        let other = other_than(t);
        swapped.insert(k.clone(), other.clone());
        let mut missing = first.clone();
        missing.remove(k);
        let mut wrong = vec![
            (
                format!("{k} as {:?} instead of {t:?}", other.element_type()),
                swapped,
            ),
            (format!("{k} left out"), missing),
        ];
        wrong.extend(nested_wrong(docs));
        return wrong;
    }
    Vec::new()
}

/// The value of another type than `t`'s.
fn other_than(t: ElementType) -> Bson {
    if t == ElementType::String {
        Bson::Int32(42)
    } else {
        Bson::String("wrong".into())
    }
}

/// A third wrong document, where the collection has one: the first
/// document with a member of an embedded object (or of the objects of an
/// array) that every such object has, always of one type and never null,
/// given a value of another type.
fn nested_wrong(docs: &[Document]) -> Option<(String, Document)> {
    let first = &docs[0];
    for (k, v) in first {
        // Every object at `k` (or in the arrays at `k`) in every document.
        let objects: Option<Vec<&Document>> = match v {
            Bson::Document(_) => docs.iter().map(|d| d.get_document(k).ok()).collect(),
            Bson::Array(a) if matches!(a.first(), Some(Bson::Document(_))) => docs
                .iter()
                .map(|d| d.get_array(k).ok())
                .collect::<Option<Vec<_>>>()
                .and_then(|arrays| {
                    arrays
                        .into_iter()
                        .flatten()
                        .map(Bson::as_document)
                        .collect()
                }),
            _ => continue,
        };
        let Some(objects) = objects else { continue };
        let sample = objects[0].clone();
        for (sk, sv) in &sample {
            let t = sv.element_type();
            if matches!(t, ElementType::Null | ElementType::Undefined)
                || !objects
                    .iter()
                    .all(|o| o.get(sk).is_some_and(|x| x.element_type() == t))
            {
                continue;
            }
            let mut changed = sample.clone();
            changed.insert(sk.clone(), other_than(t));
            let mut doc = first.clone();
            if let Bson::Array(a) = v {
                let mut a = a.clone();
                a[0] = Bson::Document(changed);
                doc.insert(k.clone(), a);
            } else {
                doc.insert(k.clone(), changed);
            }
            return Some((format!("{k}…{sk} not of type {t:?}"), doc));
        }
    }
    None
}

/// Every collection's export in `format`, run as users run it
/// (`docshape schema DIR -c DB.COLL --format … --full`), a few at a time.
fn exports(format: &str) -> Vec<String> {
    let colls = corpus();
    let next = AtomicUsize::new(0);
    let slots: Vec<std::sync::Mutex<Option<String>>> =
        colls.iter().map(|_| std::sync::Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = colls.get(i) else { break };
                let o = common::docshape(&[
                    "schema",
                    c.dir.to_str().expect("utf-8 path"),
                    "-c",
                    &c.ns,
                    "--format",
                    format,
                    "--full",
                ]);
                assert!(
                    o.status.success(),
                    "schema --format {format} of {} failed: {}",
                    c.ns,
                    common::stderr(&o)
                );
                *slots[i].lock().expect("slot") = Some(common::stdout(&o));
            });
        }
    });
    slots
        .into_iter()
        .map(|s| s.into_inner().expect("slot").expect("every export ran"))
        .collect()
}

/// The first name after `keyword` in `text` (the document's type, which
/// each export writes first).
fn first_type(text: &str, keyword: &str) -> String {
    let at = text
        .find(keyword)
        .unwrap_or_else(|| panic!("no `{keyword}` in:\n{text}"));
    text[at + keyword.len()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// Where the checks' files go: under the target directory, kept between
/// runs (the Rust check's build is cached there).
fn work_dir(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).expect("create a work directory");
    d
}

/// Writes `text` to `path` unless it holds it already (so that cargo sees
/// unchanged sources as unchanged).
fn write_if_changed(path: &Path, text: &str) {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).expect("write a check's file");
    }
}

/// Checks the outcome of every document: `accepted(ns, kind, i)` says
/// whether the tool accepted document `i` of `kind` (`good` or `wrong`).
fn judge(tool: &str, accepted: impl Fn(&Coll, &str, usize) -> Option<String>) {
    let mut refused = Vec::new();
    let mut let_through = Vec::new();
    let mut wrong = 0;
    for c in corpus() {
        for i in 0..c.docs.len() {
            if let Some(why) = accepted(c, "good", i) {
                refused.push(format!("{} document {i}: {why}", c.ns));
            }
        }
        for (i, (what, _)) in c.wrong.iter().enumerate() {
            wrong += 1;
            if accepted(c, "wrong", i).is_none() {
                let_through.push(format!("{}: {what}", c.ns));
            }
        }
    }
    assert!(
        refused.is_empty(),
        "{tool} refused {} of the collections' own documents:\n{}",
        refused.len(),
        refused
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        let_through.is_empty(),
        "{tool} accepted {} wrong documents:\n{}",
        let_through.len(),
        let_through.join("\n")
    );
    let colls = corpus().len();
    assert!(
        wrong >= colls,
        "only {wrong} wrong documents for {colls} collections"
    );
}

/// What a tool said of each document, by (module, `good` or `wrong`,
/// index): `None` when it accepted it, else why not.
type Outcomes = std::collections::HashMap<(String, String, usize), Option<String>>;

/// [`judge`]'s question answered from `outcomes`; a document the tool did
/// not report on counts as refused.
fn looked_up(outcomes: &Outcomes) -> impl Fn(&Coll, &str, usize) -> Option<String> + '_ {
    |c, kind, i| {
        outcomes
            .get(&(c.module.clone(), kind.to_owned(), i))
            .cloned()
            .unwrap_or_else(|| Some("not checked".into()))
    }
}

/// A TypeScript expression of `b` as the `bson` package's deserializer
/// hands it back.
fn ts_value(b: &Bson, out: &mut String) {
    let ejson = || b.clone().into_relaxed_extjson();
    match b {
        Bson::Double(f) if f.is_nan() => out.push_str("NaN"),
        Bson::Double(f) if f.is_infinite() => {
            out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" });
        }
        Bson::Double(f) => {
            let _ = write!(out, "{f:?}");
        }
        Bson::String(s) => out.push_str(&serde_json::to_string(s).expect("string")),
        Bson::Document(d) => {
            out.push('{');
            for (k, v) in d {
                out.push_str(&serde_json::to_string(k).expect("key"));
                out.push_str(": ");
                ts_value(v, out);
                out.push_str(", ");
            }
            out.push('}');
        }
        Bson::Array(a) => {
            out.push('[');
            for v in a {
                ts_value(v, out);
                out.push_str(", ");
            }
            out.push(']');
        }
        Bson::Boolean(v) => {
            let _ = write!(out, "{v}");
        }
        Bson::Null => out.push_str("null"),
        Bson::Undefined => out.push_str("undefined"),
        Bson::Int32(n) => {
            let _ = write!(out, "{n}");
        }
        Bson::Int64(n) if n.unsigned_abs() > (1 << 53) - 1 => {
            let _ = write!(out, "Long.fromString(\"{n}\")");
        }
        Bson::Int64(n) => {
            let _ = write!(out, "{n}");
        }
        Bson::ObjectId(o) => {
            let _ = write!(out, "new ObjectId(\"{o}\")");
        }
        Bson::DateTime(d) => {
            let _ = write!(out, "new Date({})", d.timestamp_millis());
        }
        Bson::Binary(bin) => {
            let _ = write!(
                out,
                "Binary.createFromBase64({}, {})",
                ejson()["$binary"]["base64"],
                u8::from(bin.subtype)
            );
        }
        Bson::Decimal128(_) => {
            let _ = write!(out, "Decimal128.fromString({})", ejson()["$numberDecimal"]);
        }
        Bson::Timestamp(t) => {
            let _ = write!(
                out,
                "new Timestamp({{ t: {}, i: {} }})",
                t.time, t.increment
            );
        }
        Bson::RegularExpression(r) => {
            let _ = write!(
                out,
                "new BSONRegExp({}, {})",
                serde_json::to_string(&r.pattern).expect("pattern"),
                serde_json::to_string(&r.options).expect("options")
            );
        }
        Bson::JavaScriptCode(code) => {
            let _ = write!(
                out,
                "new Code({})",
                serde_json::to_string(code).expect("code")
            );
        }
        Bson::JavaScriptCodeWithScope(cs) => {
            let _ = write!(
                out,
                "new Code({}, ",
                serde_json::to_string(&cs.code).expect("code")
            );
            ts_value(&Bson::Document(cs.scope.clone()), out);
            out.push(')');
        }
        Bson::Symbol(s) => {
            let _ = write!(
                out,
                "new BSONSymbol({})",
                serde_json::to_string(s).expect("symbol")
            );
        }
        Bson::DbPointer(_) => {
            let e = ejson();
            let _ = write!(
                out,
                "new DBRef({}, new ObjectId({}))",
                e["$dbPointer"]["$ref"], e["$dbPointer"]["$id"]["$oid"]
            );
        }
        Bson::MinKey => out.push_str("new MinKey()"),
        Bson::MaxKey => out.push_str("new MaxKey()"),
    }
}

const TS_IMPORTS: &str = "import { Binary, BSONRegExp, BSONSymbol, Code, DBRef, Decimal128, Long, MaxKey, MinKey, ObjectId, Timestamp } from \"bson\";\n";

#[test]
fn typescript_export_compiles_each_collections_documents_and_refuses_wrong_ones() {
    let tools = common::repo().join(".tools/node_modules");
    let tsc = tools.join("typescript/bin/tsc");
    assert!(
        tsc.exists() && tools.join("bson/package.json").exists(),
        "typescript and bson are not in .tools/ (run scripts/test.sh, which installs them)"
    );
    let started = Instant::now();
    let exports = exports("typescript");
    let exported = started.elapsed();
    let dir = work_dir("typed-exports-ts");
    for e in std::fs::read_dir(&dir).expect("read the work directory") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "ts") {
            std::fs::remove_file(p).expect("remove an old file");
        }
    }
    let config = serde_json::json!({
        "compilerOptions": {
            "strict": true,
            "noEmit": true,
            "target": "es2020",
            "lib": ["es2020"],
            "module": "commonjs",
            "moduleResolution": "node",
            "skipLibCheck": true,
            "types": [],
            "baseUrl": ".",
            "paths": { "bson": [tools.join("bson").to_str().expect("utf-8 path")] },
        },
        "include": ["*.ts"],
    });
    write_if_changed(
        &dir.join("tsconfig.json"),
        &serde_json::to_string_pretty(&config).expect("json"),
    );
    for (c, text) in corpus().iter().zip(&exports) {
        let name = first_type(text, "export interface ");
        std::fs::write(dir.join(format!("{}.ts", c.module)), text).expect("write");
        let mut docs = format!(
            "import type {{ {name} }} from \"./{}\";\n{TS_IMPORTS}export const docs: {name}[] = [\n",
            c.module
        );
        for d in &c.docs {
            ts_value(&Bson::Document(d.clone()), &mut docs);
            docs.push_str(",\n");
        }
        docs.push_str("];\n");
        std::fs::write(dir.join(format!("{}.good.ts", c.module)), docs).expect("write");
        for (i, (_, d)) in c.wrong.iter().enumerate() {
            let mut w = format!(
                "import type {{ {name} }} from \"./{}\";\n{TS_IMPORTS}export const wrong: {name} = ",
                c.module
            );
            ts_value(&Bson::Document(d.clone()), &mut w);
            w.push_str(";\n");
            std::fs::write(dir.join(format!("{}.wrong{i}.ts", c.module)), w).expect("write");
        }
    }
    let started = Instant::now();
    let out = Command::new("node")
        .arg(&tsc)
        .args(["-p", "tsconfig.json", "--pretty", "false"])
        .current_dir(&dir)
        .output()
        .expect("run node (is Node.js installed?)");
    let compiled = started.elapsed();
    let text = common::stdout(&out);
    // `m001_x.good.ts(3,5): error TS2322: …`, one line per error.
    let mut errors = std::collections::BTreeMap::<String, String>::new();
    for line in text.lines() {
        if let Some((file, rest)) = line.split_once('(') {
            if rest.contains("): error TS") && !file.contains(' ') {
                errors
                    .entry(file.to_owned())
                    .or_insert_with(|| line.to_owned());
            }
        }
    }
    assert!(
        errors
            .keys()
            .all(|f| f.contains(".good.ts") || f.contains(".wrong")),
        "the exports themselves do not compile:\n{text}"
    );
    judge("tsc --strict", |c, kind, i| {
        let file = match kind {
            "good" => format!("{}.good.ts", c.module),
            _ => format!("{}.wrong{i}.ts", c.module),
        };
        let err = errors.get(&file).cloned();
        // A document of the good file is refused when the file has an error.
        if kind == "good" && i > 0 {
            return None;
        }
        err
    });
    eprintln!(
        "typescript: {} collections exported in {:.1} s, compiled in {:.1} s",
        corpus().len(),
        exported.as_secs_f64(),
        compiled.as_secs_f64()
    );
}

const VALIDATE: &str = r#"
import json, sys
from jsonschema import Draft202012Validator
out = []
for c in json.load(open(sys.argv[1])):
    schema = c["schema"]
    assert schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema", c["ns"]
    Draft202012Validator.check_schema(schema)
    v = Draft202012Validator(schema)
    for kind in ("good", "wrong"):
        for i, d in enumerate(c[kind]):
            e = next(iter(v.iter_errors(d)), None)
            out.append([c["module"], kind, i, None if e is None else e.message[:300]])
json.dump(out, sys.stdout)
"#;

#[test]
fn json_schema_2020_export_validates_each_collections_documents_and_refuses_wrong_ones() {
    let started = Instant::now();
    let exports = exports("json-schema-2020");
    let exported = started.elapsed();
    let cases: Vec<serde_json::Value> = corpus()
        .iter()
        .zip(&exports)
        .map(|(c, text)| {
            let ejson = |d: &Document| Bson::Document(d.clone()).into_relaxed_extjson();
            serde_json::json!({
                "ns": c.ns,
                "module": c.module,
                "schema": serde_json::from_str::<serde_json::Value>(text)
                    .unwrap_or_else(|e| panic!("{}: the export is not JSON: {e}", c.ns)),
                "good": c.docs.iter().map(ejson).collect::<Vec<_>>(),
                "wrong": c.wrong.iter().map(|(_, d)| ejson(d)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let dir = work_dir("typed-exports-json-schema");
    let file = dir.join("cases.json");
    std::fs::write(&file, serde_json::to_vec(&cases).expect("json")).expect("write");
    let started = Instant::now();
    let out = Command::new(common::python())
        .args(["-c", VALIDATE])
        .arg(&file)
        .output()
        .expect("run python");
    let validated = started.elapsed();
    assert!(
        out.status.success(),
        "the validator failed (jsonschema missing? run scripts/test.sh): {}",
        common::stderr(&out)
    );
    let results: Vec<(String, String, usize, Option<String>)> =
        serde_json::from_slice(&out.stdout).expect("the validator's results");
    let outcomes: Outcomes = results
        .into_iter()
        .map(|(module, kind, i, e)| ((module, kind, i), e))
        .collect();
    judge("Draft202012Validator", looked_up(&outcomes));
    eprintln!(
        "json-schema-2020: {} collections exported in {:.1} s, validated in {:.1} s",
        corpus().len(),
        exported.as_secs_f64(),
        validated.as_secs_f64()
    );
}

/// The version of `package` in docshape's Cargo.lock.
fn locked_version(package: &str) -> String {
    let lock = std::fs::read_to_string(common::repo().join("Cargo.lock")).expect("Cargo.lock");
    let head = format!("name = \"{package}\"\nversion = \"");
    let at = lock
        .find(&head)
        .unwrap_or_else(|| panic!("{package} is not in Cargo.lock"));
    lock[at + head.len()..]
        .split('"')
        .next()
        .expect("a version")
        .to_owned()
}

#[test]
fn rust_export_deserializes_each_collections_documents_and_refuses_wrong_ones() {
    let started = Instant::now();
    let exports = exports("rust");
    let exported = started.elapsed();
    // One crate for every collection, built in a target directory of its
    // own under docshape's, kept between runs: its dependencies, at
    // docshape's own locked versions, are built once.
    let root = work_dir("typed-exports-rust");
    let src = root.join("src");
    std::fs::create_dir_all(&src).expect("mkdir src");
    let manifest = format!(
        "[package]\nname = \"typed-exports-check\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nbson = {{ version = \"={}\", features = [\"serde\"] }}\nserde = {{ version = \"={}\", features = [\"derive\"] }}\n\n[workspace]\n",
        locked_version("bson"),
        locked_version("serde")
    );
    write_if_changed(&root.join("Cargo.toml"), &manifest);
    // docshape's lock, so that every crate resolves as docshape's does
    // (copied again when docshape's changes).
    let lock = std::fs::read(common::repo().join("Cargo.lock")).expect("Cargo.lock");
    if std::fs::read(root.join("Cargo.lock.docshape")).ok() != Some(lock.clone()) {
        std::fs::write(root.join("Cargo.lock"), &lock).expect("copy Cargo.lock");
        std::fs::write(root.join("Cargo.lock.docshape"), &lock).expect("keep Cargo.lock");
    }
    let mut main = String::from(
        "//! Deserializes each collection's documents with its generated types.\n\
         #![deny(warnings)]\n#![allow(dead_code)]\n\n",
    );
    let mut calls = String::new();
    for (c, text) in corpus().iter().zip(&exports) {
        let name = first_type(text, "pub struct ");
        write_if_changed(&src.join(format!("{}.rs", c.module)), text);
        let _ = writeln!(main, "mod {};", c.module);
        let _ = writeln!(
            calls,
            "    check::<{m}::{name}>(\"{m}\", &dir);",
            m = c.module
        );
    }
    main.push_str(
        "\nfn check<T: serde::de::DeserializeOwned>(name: &str, dir: &std::path::Path) {\n\
         \x20   for kind in [\"good\", \"wrong\"] {\n\
         \x20       let bytes = std::fs::read(dir.join(format!(\"{name}.{kind}.bson\"))).unwrap_or_default();\n\
         \x20       let mut rest = &bytes[..];\n\
         \x20       let mut i = 0;\n\
         \x20       while !rest.is_empty() {\n\
         \x20           let doc = bson::Document::from_reader(&mut rest).expect(\"a document\");\n\
         \x20           match bson::deserialize_from_document::<T>(doc) {\n\
         \x20               Ok(_) => println!(\"{name}\\t{kind}\\t{i}\\tok\"),\n\
         \x20               Err(e) => println!(\"{name}\\t{kind}\\t{i}\\t{}\", e.to_string().replace(['\\n', '\\t'], \" \")),\n\
         \x20           }\n\
         \x20           i += 1;\n\
         \x20       }\n\
         \x20   }\n\
         }\n\nfn main() {\n\
         \x20   let dir = std::path::PathBuf::from(std::env::args().nth(1).expect(\"the data directory\"));\n",
    );
    main.push_str(&calls);
    main.push_str("}\n");
    write_if_changed(&src.join("main.rs"), &main);
    // Modules of collections no longer in the corpus would be left out.
    for e in std::fs::read_dir(&src).expect("read src") {
        let p = e.expect("entry").path();
        let stem = name_of(&p).trim_end_matches(".rs").to_owned();
        if stem != "main" && !corpus().iter().any(|c| c.module == stem) {
            std::fs::remove_file(p).expect("remove an old module");
        }
    }
    let data = root.join("data");
    std::fs::create_dir_all(&data).expect("mkdir data");
    for c in corpus() {
        common::write_bson(&data.join(format!("{}.good.bson", c.module)), &c.docs);
        let wrong: Vec<Document> = c.wrong.iter().map(|(_, d)| d.clone()).collect();
        common::write_bson(&data.join(format!("{}.wrong.bson", c.module)), &wrong);
    }
    let started = Instant::now();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let build = Command::new(&cargo)
        .args(["build", "--offline", "--quiet", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target"))
        .output()
        .expect("run cargo");
    let built = started.elapsed();
    assert!(
        build.status.success(),
        "the generated structs do not compile:\n{}",
        common::stderr(&build)
            .lines()
            .take(80)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let run = Command::new(root.join("target/debug/typed-exports-check"))
        .arg(&data)
        .output()
        .expect("run the check");
    assert!(run.status.success(), "{}", common::stderr(&run));
    let mut outcomes = Outcomes::new();
    for line in common::stdout(&run).lines() {
        let mut f = line.splitn(4, '\t');
        let (Some(m), Some(kind), Some(i), Some(res)) = (f.next(), f.next(), f.next(), f.next())
        else {
            panic!("unexpected line from the check: {line}")
        };
        outcomes.insert(
            (m.to_owned(), kind.to_owned(), i.parse().expect("an index")),
            (res != "ok").then(|| res.to_owned()),
        );
    }
    judge("bson::deserialize_from_document", looked_up(&outcomes));
    eprintln!(
        "rust: {} collections exported in {:.1} s, crate built in {:.1} s",
        corpus().len(),
        exported.as_secs_f64(),
        built.as_secs_f64()
    );
}
