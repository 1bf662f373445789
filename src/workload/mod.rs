//! The workload: what the queries do, read from `mongod` JSON log files
//! (4.4 and later; plain or `.gz`, a file or a directory of them). Every
//! `"msg":"Slow query"` entry is either understood — normalised to a query
//! shape and counted — or counted as skipped with its reason. Memory is
//! bounded by the number of shapes, not the size of the log.

pub mod shape;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::profile::sketch::LogHistogram;
pub use shape::Predicate;

/// Distinct shapes kept at most; runs of further shapes are counted as
/// skipped (`too many shapes`).
pub const MAX_SHAPES: usize = 20_000;

/// Times of one shape, in milliseconds.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Millis {
    pub total: u64,
    pub p50: u64,
    pub p95: u64,
    pub max: u64,
}

/// One query shape and what its runs cost (contract: `workload.shapes`).
#[derive(Clone, Debug, Serialize)]
pub struct Shape {
    pub namespace: String,
    /// `find`, `aggregate`, `update`, `delete`, `count`, `distinct`,
    /// `findAndModify`, `insert` …
    pub op: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sort: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub projection: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub update: Option<Value>,
    /// Updates and deletes: whether the statement touched many documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multi: Option<bool>,
    /// Each filtered field and how it is matched, in the filter's order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub predicates: Vec<(String, Predicate)>,
    pub count: u64,
    pub ms: Millis,
    pub docs_examined: u64,
    pub keys_examined: u64,
    pub nreturned: u64,
    /// Runs that sorted in memory (`hasSortStage`).
    #[serde(skip_serializing_if = "is_zero")]
    pub in_memory_sorts: u64,
    /// Plans seen (`COLLSCAN`, `IXSCAN { a: 1 }`, `IDHACK` …) and how often.
    pub plans: BTreeMap<String, u64>,
    /// The rules whose findings this shape led to (filled by the audit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The workload read from logs (contract: the report's `workload`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Workload {
    pub sources: Vec<String>,
    pub lines: u64,
    pub slow_queries: u64,
    pub skipped: BTreeMap<String, u64>,
    /// Sorted by total time, largest first.
    pub shapes: Vec<Shape>,
}

struct Acc {
    shape: Shape,
    ms: LogHistogram,
}

/// Gathers shapes entry by entry.
#[derive(Default)]
pub struct Reader {
    w: Workload,
    by_key: HashMap<String, Acc>,
}

const MARK: &str = "\"msg\":\"Slow query\"";

/// Commands that read or write no collection's documents.
fn is_admin(cmd: &str) -> bool {
    matches!(
        cmd,
        "hello"
            | "isMaster"
            | "ismaster"
            | "ping"
            | "buildInfo"
            | "buildinfo"
            | "serverStatus"
            | "hostInfo"
            | "getParameter"
            | "getLog"
            | "dbStats"
            | "collStats"
            | "listIndexes"
            | "listCollections"
            | "listDatabases"
            | "createIndexes"
            | "dropIndexes"
            | "create"
            | "drop"
            | "endSessions"
            | "killCursors"
            | "saslStart"
            | "saslContinue"
            | "replSetGetStatus"
            | "replSetHeartbeat"
            | "getCmdLineOpts"
            | "connectionStatus"
            | "currentOp"
            | "profile"
            | "explain"
            | "getDefaultRWConcern"
            | "aggregate_collStats"
    )
}

fn num(a: &Value, k: &str) -> u64 {
    a.get(k).and_then(Value::as_u64).unwrap_or(0)
}

impl Reader {
    pub fn new() -> Reader {
        Reader::default()
    }

    fn skip(&mut self, why: &str) {
        *self.w.skipped.entry(why.to_owned()).or_insert(0) += 1;
    }

    /// One log line: counted, and understood when it is a slow query.
    pub fn line(&mut self, line: &str) {
        self.w.lines += 1;
        if !line.contains(MARK) {
            return;
        }
        self.w.slow_queries += 1;
        let Ok(entry) = serde_json::from_str::<Value>(line) else {
            self.skip("not a JSON log line (mongod before 4.4 wrote plain text)");
            return;
        };
        let Some(attr) = entry.get("attr") else {
            self.skip("no attr");
            return;
        };
        self.entry(attr);
    }

    fn entry(&mut self, a: &Value) {
        let ns = a.get("ns").and_then(Value::as_str).unwrap_or("");
        let Some(cmd) = a.get("command").and_then(Value::as_object) else {
            self.skip("no command");
            return;
        };
        let kind = a.get("type").and_then(Value::as_str).unwrap_or("command");
        let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
        match kind {
            // One statement of a write: `command` is the statement.
            "update" | "remove" | "delete" => {
                let op = if kind == "update" { "update" } else { "delete" };
                let filter = cmd.get("q").map(shape::shape);
                let preds = cmd.get("q").map(shape::predicates).unwrap_or_default();
                let update = cmd.get("u").map(|u| match u {
                    Value::Array(stages) => shape::pipeline_shape(stages),
                    other => shape::shape(other),
                });
                let multi = cmd
                    .get("multi")
                    .and_then(Value::as_bool)
                    .or(cmd.get("limit").and_then(Value::as_u64).map(|l| l == 0));
                self.add(a, ns, op, filter, None, None, None, update, multi, preds);
                return;
            }
            "command" => {}
            other => {
                self.skip(&format!("entry type {other}"));
                return;
            }
        }
        let Some(name) = cmd.keys().next().map(String::as_str) else {
            self.skip("empty command");
            return;
        };
        if coll == "$cmd" || coll.is_empty() || db == "admin" || db == "local" || db == "config" {
            // Writes logged per command are also logged per statement.
            let why = match name {
                "update" | "delete" | "insert" if !cmd.contains_key("updates") => {
                    "write command (its statements are logged on their own)".to_owned()
                }
                _ => format!("{name}: not a query on a collection"),
            };
            self.skip(&why);
            return;
        }
        if is_admin(name) {
            self.skip(&format!("{name}: not a query"));
            return;
        }
        match name {
            "find" => {
                let f = cmd.get("filter");
                self.add(
                    a,
                    ns,
                    "find",
                    f.map(shape::shape),
                    cmd.get("sort").cloned(),
                    cmd.get("projection").cloned(),
                    None,
                    None,
                    None,
                    f.map(shape::predicates).unwrap_or_default(),
                );
            }
            "aggregate" => {
                let stages = cmd
                    .get("pipeline")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                if stages
                    .first()
                    .and_then(Value::as_object)
                    .is_some_and(|s| s.contains_key("$collStats") || s.contains_key("$indexStats"))
                {
                    self.skip("aggregate of statistics, not documents");
                    return;
                }
                let first_match = stages
                    .first()
                    .and_then(|s| s.get("$match"))
                    .map(shape::predicates)
                    .unwrap_or_default();
                let sort = stages.iter().find_map(|s| s.get("$sort")).cloned();
                self.add(
                    a,
                    ns,
                    "aggregate",
                    None,
                    sort,
                    None,
                    Some(shape::pipeline_shape(&stages)),
                    None,
                    None,
                    first_match,
                );
            }
            "count" | "distinct" => {
                let f = cmd.get("query");
                self.add(
                    a,
                    ns,
                    name,
                    f.map(shape::shape),
                    None,
                    None,
                    None,
                    None,
                    None,
                    f.map(shape::predicates).unwrap_or_default(),
                );
            }
            "findAndModify" | "findandmodify" => {
                let f = cmd.get("query");
                self.add(
                    a,
                    ns,
                    "findAndModify",
                    f.map(shape::shape),
                    cmd.get("sort").cloned(),
                    None,
                    None,
                    cmd.get("update").map(shape::shape),
                    Some(false),
                    f.map(shape::predicates).unwrap_or_default(),
                );
            }
            "insert" => self.add(
                a,
                ns,
                "insert",
                None,
                None,
                None,
                None,
                None,
                None,
                Vec::new(),
            ),
            "getMore" => self.skip("getMore: the rest of a cursor counted with its query"),
            other => self.skip(&format!("{other}: not a query")),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        a: &Value,
        ns: &str,
        op: &str,
        filter: Option<Value>,
        sort: Option<Value>,
        projection: Option<Value>,
        pipeline: Option<Value>,
        update: Option<Value>,
        multi: Option<bool>,
        predicates: Vec<(String, Predicate)>,
    ) {
        let key = format!(
            "{ns}\u{0}{op}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{multi:?}",
            filter.as_ref().map(Value::to_string).unwrap_or_default(),
            sort.as_ref().map(Value::to_string).unwrap_or_default(),
            projection
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
            pipeline.as_ref().map(Value::to_string).unwrap_or_default(),
            update.as_ref().map(Value::to_string).unwrap_or_default(),
        );
        if !self.by_key.contains_key(&key) && self.by_key.len() >= MAX_SHAPES {
            self.skip("too many shapes (the first 20,000 are kept)");
            return;
        }
        let acc = self.by_key.entry(key).or_insert_with(|| Acc {
            shape: Shape {
                namespace: ns.to_owned(),
                op: op.to_owned(),
                filter,
                sort,
                projection,
                pipeline,
                update,
                multi,
                predicates,
                count: 0,
                ms: Millis {
                    total: 0,
                    p50: 0,
                    p95: 0,
                    max: 0,
                },
                docs_examined: 0,
                keys_examined: 0,
                nreturned: 0,
                in_memory_sorts: 0,
                plans: BTreeMap::new(),
                findings: Vec::new(),
            },
            ms: LogHistogram::default(),
        });
        let s = &mut acc.shape;
        s.count += 1;
        let ms = num(a, "durationMillis");
        acc.ms.record(ms);
        s.ms.total += ms;
        s.docs_examined += num(a, "docsExamined");
        s.keys_examined += num(a, "keysExamined");
        s.nreturned += num(a, "nreturned") + num(a, "nModified") + num(a, "ndeleted");
        if a.get("hasSortStage").and_then(Value::as_bool) == Some(true) {
            s.in_memory_sorts += 1;
        }
        if let Some(p) = a.get("planSummary").and_then(Value::as_str) {
            *s.plans.entry(p.to_owned()).or_insert(0) += 1;
        }
    }

    /// Reads every line of `r` (a log file's text).
    pub fn read(&mut self, r: impl Read) -> std::io::Result<()> {
        let mut r = BufReader::with_capacity(1 << 20, r);
        let mut buf = Vec::with_capacity(4096);
        loop {
            buf.clear();
            if r.read_until(b'\n', &mut buf)? == 0 {
                return Ok(());
            }
            match std::str::from_utf8(&buf) {
                Ok(line) => self.line(line),
                Err(_) => {
                    self.w.lines += 1;
                    if buf.windows(MARK.len()).any(|w| w == MARK.as_bytes()) {
                        self.w.slow_queries += 1;
                        self.skip("not UTF-8");
                    }
                }
            }
        }
    }

    /// The workload, shapes sorted by total time (then count, namespace).
    pub fn finish(mut self) -> Workload {
        let mut shapes: Vec<Shape> = self
            .by_key
            .into_values()
            .map(|mut a| {
                a.shape.ms.p50 = a.ms.quantile(0.5);
                a.shape.ms.p95 = a.ms.quantile(0.95);
                a.shape.ms.max = a.ms.max();
                a.shape
            })
            .collect();
        shapes.sort_by(|a, b| {
            b.ms.total
                .cmp(&a.ms.total)
                .then(b.count.cmp(&a.count))
                .then_with(|| a.namespace.cmp(&b.namespace))
                .then_with(|| a.op.cmp(&b.op))
        });
        self.w.shapes = shapes;
        self.w
    }
}

/// The log files under `path`: the file itself, or a directory's files
/// (not recursing), in name order.
fn files(path: &Path) -> std::io::Result<Vec<PathBuf>> {
    if path.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(path)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        v.sort();
        Ok(v)
    } else {
        Ok(vec![path.to_owned()])
    }
}

/// Reads the workload from a log file, a `.gz` of one, or a directory of
/// them (e.g. one per replica-set member).
pub fn read_logs(path: &Path) -> Result<Workload, String> {
    let mut r = Reader::new();
    let list = files(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    for f in &list {
        let file =
            std::fs::File::open(f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let gz = f.extension().is_some_and(|e| e == "gz");
        let res = if gz {
            r.read(flate2::read::MultiGzDecoder::new(file))
        } else {
            r.read(file)
        };
        res.map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        r.w.sources.push(f.display().to_string());
    }
    Ok(r.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(lines: &[&str]) -> Workload {
        let mut r = Reader::new();
        r.read(lines.join("\n").as_bytes()).expect("read");
        r.finish()
    }

    #[test]
    fn finds_of_one_shape_are_one_shape_with_their_costs() {
        let line = |v: &str, ms: u64, plan: &str| {
            format!(
                r#"{{"t":{{"$date":"2026-01-01T00:00:00.000+00:00"}},"s":"I","c":"COMMAND","id":51803,"ctx":"conn1","msg":"Slow query","attr":{{"type":"command","ns":"shop.orders","command":{{"find":"orders","filter":{{"status":"{v}","qty":{{"$gt":1}}}},"sort":{{"at":-1}},"$db":"shop"}},"planSummary":"{plan}","keysExamined":0,"docsExamined":1000,"hasSortStage":true,"nreturned":10,"durationMillis":{ms}}}}}"#
            )
        };
        let first = line("A", 100, "COLLSCAN");
        let second = line("B", 300, "COLLSCAN");
        let third = line("C", 200, "IXSCAN { status: 1 }");
        let w = log(&[
            &first,
            &second,
            &third,
            "not json but no mark",
            "{\"msg\":\"Slow query\" broken",
        ]);
        assert_eq!(w.lines, 5);
        assert_eq!(w.slow_queries, 4);
        assert_eq!(w.skipped.values().sum::<u64>(), 1, "{:?}", w.skipped);
        assert_eq!(w.shapes.len(), 1);
        let s = &w.shapes[0];
        assert_eq!(s.count, 3);
        assert_eq!(s.ms.total, 600);
        assert_eq!(s.ms.max, 300);
        assert_eq!(s.docs_examined, 3000);
        assert_eq!(s.nreturned, 30);
        assert_eq!(s.in_memory_sorts, 3);
        assert_eq!(s.plans.get("COLLSCAN"), Some(&2));
        assert_eq!(
            s.filter,
            Some(serde_json::json!({"status": "string", "qty": {"$gt": "int"}}))
        );
        assert_eq!(
            s.predicates,
            vec![
                ("status".to_owned(), Predicate::Equality),
                ("qty".to_owned(), Predicate::Range)
            ]
        );
    }
}
