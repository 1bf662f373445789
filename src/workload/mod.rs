//! The workload: what the queries do, read from `mongod` JSON log files
//! (4.4 and later; plain or `.gz`, a file or a directory of them) or from
//! a live server's profiler ([`profile`]). Every `"msg":"Slow query"` entry
//! and every profiler entry is either understood — normalised to a query
//! shape and counted, through the same code path — or counted as skipped
//! with its reason. Memory is bounded by the number of shapes, not the size
//! of the log or the profile.

pub mod profile;
pub mod shape;

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

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
    /// Runs whose plan in `plans` is the one `explain` says the server
    /// chooses now: their profiler entries named none.
    #[serde(skip_serializing_if = "is_zero")]
    pub explained: u64,
    /// The rules whose findings this shape led to (filled by the audit).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

impl Shape {
    /// Whether any run recorded what it examined: a shape whose every plan
    /// came from `explain` (a profiler that names none) recorded no
    /// documents or keys examined, which is not the same as none examined.
    pub(crate) fn examined_recorded(&self) -> bool {
        self.explained < self.count || self.docs_examined > 0 || self.keys_examined > 0
    }

    /// Documents examined per document returned, as a reader sees it:
    /// `–` where nothing was recorded.
    pub(crate) fn examined_per_returned(&self) -> String {
        if self.examined_recorded() {
            crate::fmt::decimal(self.docs_examined as f64 / self.nreturned.max(1) as f64)
        } else {
            "–".to_owned()
        }
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The workload read from logs or a server (contract: the report's
/// `workload`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Workload {
    /// The log files read, or `profile` (and `queryStats`).
    pub sources: Vec<String>,
    pub lines: u64,
    /// Log entries with `"msg":"Slow query"`, or profiler entries (and
    /// `$queryStats` entries).
    pub slow_queries: u64,
    pub skipped: BTreeMap<String, u64>,
    /// Sorted by total time, largest first.
    pub shapes: Vec<Shape>,
    /// The profiler of each database read (`--workload profile`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub profiler: Vec<profile::Profiler>,
    /// Reads and writes the server counted per namespace since it started,
    /// each with its source (`latencyStats` or `top`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub counts: BTreeMap<String, crate::source::OpCounts>,
}

impl Workload {
    /// Read from a server's profiler rather than from log files.
    pub fn from_server(&self) -> bool {
        self.sources
            .iter()
            .any(|s| s == profile::PROFILE || s == profile::QUERY_STATS)
    }

    /// The profiler of `namespace`'s database holds only operations at or
    /// over its slow threshold: the reads it holds are not every read.
    pub(crate) fn slow_only(&self, namespace: &str) -> bool {
        let db = namespace.split_once('.').map_or(namespace, |(d, _)| d);
        self.profiler
            .iter()
            .any(|p| p.read.db == db && p.read.entries > 0 && !p.every_operation)
    }
}

/// What the runs of one operation cost, as its log line, profiler entry or
/// `$queryStats` entry states it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cost {
    pub runs: u64,
    /// Milliseconds of all the runs, and of the longest.
    pub ms: u64,
    pub ms_max: u64,
    pub docs_examined: u64,
    pub keys_examined: u64,
    /// Documents returned, modified or deleted.
    pub returned: u64,
    /// Runs that sorted in memory.
    pub sorts: u64,
    /// The plan (`planSummary`), when the entry names it.
    pub plan: Option<String>,
}

impl Cost {
    /// One run, as a "Slow query" line's `attr` (`durationMillis`) or a
    /// profiler entry (`millis`) states it: the two share the other names.
    pub(crate) fn of_run(a: &Value) -> Cost {
        let ms = a
            .get("durationMillis")
            .or_else(|| a.get("millis"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        Cost {
            runs: 1,
            ms,
            ms_max: ms,
            docs_examined: num(a, "docsExamined"),
            keys_examined: num(a, "keysExamined"),
            returned: num(a, "nreturned") + num(a, "nModified") + num(a, "ndeleted"),
            sorts: u64::from(a.get("hasSortStage").and_then(Value::as_bool) == Some(true)),
            plan: a
                .get("planSummary")
                .and_then(Value::as_str)
                .map(str::to_owned),
        }
    }

    /// This cost shared out among `n` statements (a write command whose
    /// entry holds them all): the first takes what does not divide.
    fn share(&self, n: u64, i: u64) -> Cost {
        let n = n.max(1);
        let part = |x: u64| x / n + if i == 0 { x % n } else { 0 };
        Cost {
            runs: 1,
            ms: part(self.ms),
            ms_max: part(self.ms),
            docs_examined: part(self.docs_examined),
            keys_examined: part(self.keys_examined),
            returned: part(self.returned),
            sorts: u64::from(self.sorts > 0),
            plan: self.plan.clone(),
        }
    }
}

/// One operation as an entry states it.
pub struct Op<'a> {
    /// `command`, or one statement of a write: `update`, `remove` or
    /// `delete` (a log entry's `type`).
    pub kind: &'a str,
    pub ns: &'a str,
    pub command: &'a Map<String, Value>,
    /// The application that ran it (`appName`), where recorded.
    pub app: Option<&'a str>,
}

/// What an operation is, as a shape's key holds it.
struct Parts {
    op: &'static str,
    filter: Option<Value>,
    sort: Option<Value>,
    projection: Option<Value>,
    pipeline: Option<Value>,
    update: Option<Value>,
    multi: Option<bool>,
    predicates: Vec<(String, Predicate)>,
}

impl Parts {
    fn new(op: &'static str) -> Parts {
        Parts {
            op,
            filter: None,
            sort: None,
            projection: None,
            pipeline: None,
            update: None,
            multi: None,
            predicates: Vec::new(),
        }
    }

    /// Filtered by `f`: its shape and its predicates.
    fn filtered(mut self, f: Option<&Value>) -> Parts {
        self.filter = f.map(shape::shape);
        self.predicates = f.map(shape::predicates).unwrap_or_default();
        self
    }
}

struct Acc {
    shape: Shape,
    ms: LogHistogram,
    /// Runs no entry named a plan for.
    unplanned: u64,
    /// The command of one such run, with its database, to ask `explain`.
    example: Option<(String, Map<String, Value>)>,
}

/// Gathers shapes entry by entry.
#[derive(Default)]
pub struct Reader {
    w: Workload,
    by_key: HashMap<String, Acc>,
    /// Keep one command of each read shape whose entries name no plan, so
    /// the server can be asked for it ([`Reader::to_explain`]).
    keep_examples: bool,
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
    pub(crate) fn new() -> Reader {
        Reader::default()
    }

    fn skip(&mut self, why: &str) {
        *self.w.skipped.entry(why.to_owned()).or_insert(0) += 1;
    }

    /// One log line: counted, and understood when it is a slow query.
    pub(crate) fn line(&mut self, line: &str) {
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
        let Some(command) = attr.get("command").and_then(Value::as_object) else {
            self.skip("no command");
            return;
        };
        let op = Op {
            kind: attr
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("command"),
            ns: attr.get("ns").and_then(Value::as_str).unwrap_or(""),
            command,
            app: attr.get("appName").and_then(Value::as_str),
        };
        self.entry(&op, Cost::of_run(attr));
    }

    /// One operation with what its runs cost: the one path from a command
    /// to a shape, for log lines, profiler entries and `$queryStats` alike.
    pub(crate) fn entry(&mut self, o: &Op<'_>, cost: Cost) {
        if o.app == Some(crate::source::server::mongo::APP_NAME) {
            self.skip("docshape's own operation (appName docshape)");
            return;
        }
        let (ns, cmd, kind) = (o.ns, o.command, o.kind);
        let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
        match kind {
            // One statement of a write: `command` is the statement.
            "update" | "remove" | "delete" => {
                let mut p = Parts::new(if kind == "update" { "update" } else { "delete" })
                    .filtered(cmd.get("q"));
                p.update = cmd.get("u").map(|u| match u {
                    Value::Array(stages) => shape::pipeline_shape(stages),
                    other => shape::shape(other),
                });
                p.multi = cmd
                    .get("multi")
                    .and_then(Value::as_bool)
                    .or(cmd.get("limit").and_then(Value::as_u64).map(|l| l == 0))
                    // An update statement touches one document unless it
                    // says `multi`.
                    .or((kind == "update").then_some(false));
                self.add(db, ns, p, cost, None);
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
                let mut p = Parts::new("find").filtered(cmd.get("filter"));
                p.sort = cmd.get("sort").cloned();
                p.projection = cmd.get("projection").cloned();
                self.add(db, ns, p, cost, Some(cmd));
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
                let mut p = Parts::new("aggregate");
                p.predicates = stages
                    .first()
                    .and_then(|s| s.get("$match"))
                    .map(shape::predicates)
                    .unwrap_or_default();
                p.sort = stages.iter().find_map(|s| s.get("$sort")).cloned();
                p.pipeline = Some(shape::pipeline_shape(&stages));
                self.add(db, ns, p, cost, Some(cmd));
            }
            "count" | "distinct" => {
                let p = Parts::new(if name == "count" { "count" } else { "distinct" })
                    .filtered(cmd.get("query"));
                self.add(db, ns, p, cost, Some(cmd));
            }
            "findAndModify" | "findandmodify" => {
                let mut p = Parts::new("findAndModify").filtered(cmd.get("query"));
                p.sort = cmd.get("sort").cloned();
                p.update = cmd.get("update").map(shape::shape);
                p.multi = Some(false);
                self.add(db, ns, p, cost, None);
            }
            "insert" => self.add(db, ns, Parts::new("insert"), cost, None),
            "getMore" => self.skip("getMore: the rest of a cursor counted with its query"),
            other => self.skip(&format!("{other}: not a query")),
        }
    }

    /// Counts `cost` to the shape of `p` on `ns`. `example` is the read
    /// command itself, kept (once per shape) when no plan is named, so
    /// the server can be asked which plan it chooses.
    fn add(
        &mut self,
        db: &str,
        ns: &str,
        p: Parts,
        cost: Cost,
        example: Option<&Map<String, Value>>,
    ) {
        let key = format!(
            "{ns}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{}\u{0}{:?}",
            p.op,
            p.filter.as_ref().map(Value::to_string).unwrap_or_default(),
            p.sort.as_ref().map(Value::to_string).unwrap_or_default(),
            p.projection
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
            p.pipeline
                .as_ref()
                .map(Value::to_string)
                .unwrap_or_default(),
            p.update.as_ref().map(Value::to_string).unwrap_or_default(),
            p.multi,
        );
        if !self.by_key.contains_key(&key) && self.by_key.len() >= MAX_SHAPES {
            self.skip("too many shapes (the first 20,000 are kept)");
            return;
        }
        let acc = self.by_key.entry(key).or_insert_with(|| Acc {
            shape: Shape {
                namespace: ns.to_owned(),
                op: p.op.to_owned(),
                filter: p.filter,
                sort: p.sort,
                projection: p.projection,
                pipeline: p.pipeline,
                update: p.update,
                multi: p.multi,
                predicates: p.predicates,
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
                explained: 0,
                findings: Vec::new(),
            },
            ms: LogHistogram::default(),
            unplanned: 0,
            example: None,
        });
        let s = &mut acc.shape;
        if cost.runs == 0 {
            return;
        }
        s.count += cost.runs;
        // Runs summed by the server (`$queryStats`) count at their mean.
        acc.ms.record_n(cost.ms / cost.runs, cost.runs);
        s.ms.total += cost.ms;
        s.ms.max = s.ms.max.max(cost.ms_max);
        s.docs_examined += cost.docs_examined;
        s.keys_examined += cost.keys_examined;
        s.nreturned += cost.returned;
        s.in_memory_sorts += cost.sorts;
        match cost.plan {
            Some(p) => *s.plans.entry(p).or_insert(0) += cost.runs,
            None => {
                acc.unplanned += cost.runs;
                if self.keep_examples && acc.example.is_none() {
                    acc.example = example.map(|c| (db.to_owned(), c.clone()));
                }
            }
        }
    }

    /// Reads every line of `r` (a log file's text).
    pub(crate) fn read(&mut self, r: impl Read) -> std::io::Result<()> {
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
    pub(crate) fn finish(mut self) -> Workload {
        let mut shapes: Vec<Shape> = self
            .by_key
            .into_values()
            .map(|mut a| {
                a.shape.ms.p50 = a.ms.quantile(0.5);
                a.shape.ms.p95 = a.ms.quantile(0.95);
                a.shape
            })
            .collect();
        shapes.sort_by(|a, b| {
            b.ms.total
                .cmp(&a.ms.total)
                .then(b.count.cmp(&a.count))
                .then_with(|| a.namespace.cmp(&b.namespace))
                .then_with(|| a.op.cmp(&b.op))
                .then_with(|| label_key(a).cmp(&label_key(b)))
        });
        self.w.shapes = shapes;
        self.w
    }
}

/// A stable order among shapes of equal cost.
fn label_key(s: &Shape) -> String {
    format!("{:?}{:?}{:?}{:?}", s.filter, s.sort, s.pipeline, s.update)
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

/// A log file or directory that cannot be read: its path and why.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {source}", path.display())]
pub struct LogError {
    pub path: std::path::PathBuf,
    pub source: std::io::Error,
}

/// Reads the workload from a log file, a `.gz` of one, or a directory of
/// them (e.g. one per replica-set member).
pub fn read_logs(path: &Path) -> Result<Workload, LogError> {
    let mut r = Reader::new();
    let cannot = |p: &Path| {
        let path = p.to_owned();
        move |source| LogError { path, source }
    };
    let list = files(path).map_err(cannot(path))?;
    for f in &list {
        let file = std::fs::File::open(f).map_err(cannot(f))?;
        let gz = f.extension().is_some_and(|e| e == "gz");
        let res = if gz {
            r.read(flate2::read::MultiGzDecoder::new(file))
        } else {
            r.read(file)
        };
        res.map_err(cannot(f))?;
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
