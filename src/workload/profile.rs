//! The workload of a live server (`--workload profile`): the profiler's
//! entries of each selected database (`system.profile`), and `$queryStats`
//! where the server has it, turned into the same shapes as log lines
//! through [`Reader::entry`]; the plan of a read whose entries name none,
//! from `explain`; and the reads and writes the server counted per
//! collection (`$collStats` latencyStats, `top`). Read-only: docshape reads
//! the profiling level and never sets it.

use crate::profile::extjson::Relaxed as _;
use std::collections::{BTreeMap, BTreeSet};

use bson::Bson;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{Cost, Op, Reader, Workload};
use crate::i18n::Lang;
use crate::source::{Insight, ProfilerDb, Selection, SourceError};

/// `workload.sources` when the profiler was read.
pub const PROFILE: &str = "profile";
/// `workload.sources` when `$queryStats` answered too.
pub const QUERY_STATS: &str = "queryStats";
/// Shapes whose plan is asked of `explain` at most, costliest first.
pub const MAX_EXPLAIN: usize = 500;

/// How the profiler of one database stood when it was read.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Profiler {
    /// Its level, threshold, the entries read and any error.
    #[serde(flatten)]
    pub read: ProfilerDb,
    /// The entries hold operations faster than the slow threshold (or the
    /// level is 2): the profiler recorded every operation, not only the
    /// slow ones.
    pub every_operation: bool,
}

/// The milliseconds that make an operation slow unless the server says.
const DEFAULT_SLOWMS: i64 = 100;

impl Reader {
    /// A reader that keeps one command of each read shape whose entries
    /// name no plan, for `explain`.
    pub(crate) fn for_server() -> Reader {
        Reader {
            keep_examples: true,
            ..Reader::default()
        }
    }

    /// One profiler entry (its document as relaxed Extended JSON). A write
    /// command recorded whole (`updates: [...]`, as some servers do) counts
    /// each statement, sharing the entry's cost; `mongod` records each
    /// statement on its own (`command: {q, u, multi}`).
    pub(crate) fn profiled(&mut self, e: &Value) {
        self.w.slow_queries += 1;
        let ns = e.get("ns").and_then(Value::as_str).unwrap_or("");
        let app = e.get("appName").and_then(Value::as_str);
        let Some(command) = e.get("command").and_then(Value::as_object) else {
            self.skip("no command");
            return;
        };
        let op = e.get("op").and_then(Value::as_str).unwrap_or("command");
        let cost = Cost::of_run(e);
        let (list, kind) = match op {
            "update" => ("updates", "update"),
            "remove" | "delete" => ("deletes", "delete"),
            _ => ("", "command"),
        };
        if kind != "command" && command.contains_key("q") {
            let o = Op {
                kind,
                ns,
                command,
                app,
            };
            self.entry(&o, cost);
            return;
        }
        if let Some(statements) = command.get(list).and_then(Value::as_array) {
            let n = statements.len() as u64;
            for (i, st) in statements.iter().enumerate() {
                let Some(st) = st.as_object() else {
                    self.skip("a write statement that is not a document");
                    continue;
                };
                let o = Op {
                    kind,
                    ns,
                    command: st,
                    app,
                };
                self.entry(&o, cost.share(n, i as u64));
            }
            return;
        }
        let o = Op {
            kind: "command",
            ns,
            command,
            app,
        };
        self.entry(&o, cost);
    }

    /// One `$queryStats` entry: its query shape (values already replaced
    /// by `"?type"`) as a command, and its summed metrics.
    pub(crate) fn query_stat(&mut self, e: &Value) {
        self.w.slow_queries += 1;
        let Some(q) = e.pointer("/key/queryShape") else {
            self.skip("$queryStats: no query shape");
            return;
        };
        let db = q.pointer("/cmdNs/db").and_then(Value::as_str).unwrap_or("");
        let coll = q
            .pointer("/cmdNs/coll")
            .and_then(Value::as_str)
            .unwrap_or("");
        let ns = format!("{db}.{coll}");
        let app = e
            .pointer("/key/client/application/name")
            .and_then(Value::as_str);
        let Some(command) = query_stats_command(q, coll) else {
            let what = q.get("command").and_then(Value::as_str).unwrap_or("?");
            self.skip(&format!("$queryStats: {what}: not a query"));
            return;
        };
        let m = |path: &str| {
            e.pointer(&format!("/metrics/{path}"))
                .and_then(Value::as_u64)
                .unwrap_or(0)
        };
        let cost = Cost {
            runs: m("execCount"),
            ms: m("totalExecMicros/sum") / 1000,
            ms_max: m("totalExecMicros/max") / 1000,
            docs_examined: m("docsExamined/sum"),
            keys_examined: m("keysExamined/sum"),
            returned: m("docsReturned/sum"),
            sorts: m("hasSortStage/true"),
            plan: None,
        };
        let o = Op {
            kind: "command",
            ns: &ns,
            command: &command,
            app,
        };
        self.entry(&o, cost);
    }

    /// Skips an entry outside what was asked for, counted with its reason.
    pub(crate) fn skip_entry(&mut self, why: &str) {
        self.w.slow_queries += 1;
        self.skip(why);
    }

    /// The shapes whose runs name no plan, costliest first, each with the
    /// database and the read command (`explain`, read-only) to ask for
    /// it: `(key, db, command)`.
    pub(crate) fn to_explain(&self) -> Vec<(String, String, bson::Document)> {
        let mut v: Vec<(&String, &super::Acc)> = self
            .by_key
            .iter()
            .filter(|(_, a)| a.unplanned > 0 && a.example.is_some())
            .collect();
        v.sort_by(|a, b| {
            b.1.shape
                .ms
                .total
                .cmp(&a.1.shape.ms.total)
                .then(b.1.shape.count.cmp(&a.1.shape.count))
                .then_with(|| a.0.cmp(b.0))
        });
        v.into_iter()
            .filter_map(|(k, a)| {
                let (db, cmd) = a.example.as_ref()?;
                Some((k.clone(), db.clone(), explain_command(cmd)?))
            })
            .collect()
    }

    /// The plan `explain` gave for the shape `key`: its runs that named
    /// none count it, and sort in memory when it does.
    pub(crate) fn explained(&mut self, key: &str, plan: &str, sorts: bool) {
        let Some(a) = self.by_key.get_mut(key) else {
            return;
        };
        let n = std::mem::take(&mut a.unplanned);
        *a.shape.plans.entry(plan.to_owned()).or_insert(0) += n;
        a.shape.explained += n;
        if sorts {
            a.shape.in_memory_sorts = (a.shape.in_memory_sorts + n).min(a.shape.count);
        }
    }
}

/// A `$queryStats` query shape as the command it stands for, each
/// `"?type"` replaced by a value of that type so it shapes as the
/// command's own values would (a list's length is not kept: one element).
fn query_stats_command(q: &Value, coll: &str) -> Option<Map<String, Value>> {
    let mut c = Map::new();
    let name = q.get("command").and_then(Value::as_str)?;
    let fields: &[(&str, &str)] = match name {
        "find" => &[
            ("filter", "filter"),
            ("sort", "sort"),
            ("projection", "projection"),
        ],
        "aggregate" => &[("pipeline", "pipeline")],
        "distinct" => &[("key", "key"), ("query", "query")],
        _ => return None,
    };
    c.insert(name.to_owned(), json!(coll));
    for (from, to) in fields {
        if let Some(v) = q.get(*from) {
            c.insert((*to).to_owned(), typed(v));
        }
    }
    Some(c)
}

/// `"?number"` → `0`, `"?string"` → `""`, `"?array<?number>"` → `[0]` …
fn typed(v: &Value) -> Value {
    match v {
        Value::String(s) if s.starts_with('?') => placeholder(&s[1..]),
        Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), typed(x))).collect()),
        Value::Array(a) => Value::Array(a.iter().map(typed).collect()),
        other => other.clone(),
    }
}

fn placeholder(t: &str) -> Value {
    if let Some(inner) = t.strip_prefix("array<").and_then(|r| r.strip_suffix('>')) {
        return json!([typed(&json!(inner))]);
    }
    match t {
        "number" => json!(0),
        "string" => json!(""),
        "bool" => json!(true),
        "null" => Value::Null,
        "date" => json!({"$date": "1970-01-01T00:00:00Z"}),
        "objectId" => json!({"$oid": "000000000000000000000000"}),
        "decimal" => json!({"$numberDecimal": "0"}),
        "binData" => json!({"$binary": {"base64": "", "subType": "00"}}),
        "timestamp" => json!({"$timestamp": {"t": 0, "i": 0}}),
        "regex" => json!({"$regularExpression": {"pattern": "", "options": ""}}),
        "array" => json!([]),
        _ => json!({}),
    }
}

/// The read-only command `explain` is asked about for a read: only the
/// fields that choose a plan; `None` for anything but a read (updates are
/// never explained, nor a pipeline that writes).
pub(crate) fn explain_command(cmd: &Map<String, Value>) -> Option<bson::Document> {
    let name = cmd.keys().next()?.as_str();
    let keep: &[&str] = match name {
        "find" => &[
            "find",
            "filter",
            "sort",
            "projection",
            "hint",
            "skip",
            "limit",
            "collation",
            "min",
            "max",
        ],
        "aggregate" => &["aggregate", "pipeline", "hint", "collation", "let"],
        "count" => &["count", "query", "hint", "limit", "skip", "collation"],
        "distinct" => &["distinct", "key", "query", "hint", "collation"],
        _ => return None,
    };
    if name == "aggregate" {
        let writes = cmd
            .get("pipeline")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .any(|s| s.get("$out").is_some() || s.get("$merge").is_some());
        if writes || !cmd.get("aggregate").is_some_and(Value::is_string) {
            return None;
        }
    }
    let mut out = Map::new();
    for k in keep {
        if let Some(v) = cmd.get(*k) {
            out.insert((*k).to_owned(), v.clone());
        }
    }
    if name == "aggregate" {
        out.insert("cursor".into(), json!({}));
    }
    match Bson::try_from(Value::Object(out)).ok()? {
        Bson::Document(d) => Some(d),
        _ => None,
    }
}

/// `{ a: 1, b: -1 }`: a key pattern as `planSummary` writes it.
fn key_pattern(k: &Value) -> String {
    let Some(o) = k.as_object() else {
        return String::new();
    };
    let parts: Vec<String> = o
        .iter()
        .map(|(f, v)| match v {
            Value::Number(n) => match n.as_f64() {
                Some(x) if x.fract() == 0.0 => format!("{f}: {}", x as i64),
                _ => format!("{f}: {n}"),
            },
            Value::String(s) => format!("{f}: \"{s}\""),
            other => format!("{f}: {other}"),
        })
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

/// Walks a plan tree: the access stages in order (`planSummary`'s parts)
/// and whether any stage sorts.
fn walk(stage: &Value, access: &mut Vec<String>, sorts: &mut bool) {
    let name = stage.get("stage").and_then(Value::as_str).unwrap_or("");
    if name.eq_ignore_ascii_case("SORT") {
        *sorts = true;
    }
    let mut children: Vec<&Value> = Vec::new();
    for k in [
        "inputStage",
        "outerStage",
        "innerStage",
        "thenStage",
        "elseStage",
    ] {
        if let Some(c) = stage.get(k) {
            children.push(c);
        }
    }
    if let Some(a) = stage.get("inputStages").and_then(Value::as_array) {
        children.extend(a);
    }
    let keyed = [
        "IXSCAN",
        "COUNT_SCAN",
        "DISTINCT_SCAN",
        "EXPRESS_IXSCAN",
        "EXPRESS_CLUSTERED_IXSCAN",
    ];
    if keyed.contains(&name) {
        match stage.get("keyPattern") {
            Some(k) => access.push(format!("{name} {}", key_pattern(k))),
            None => access.push(name.to_owned()),
        }
    } else if children.is_empty() && !name.is_empty() {
        access.push(name.to_owned());
    }
    for c in children {
        walk(c, access, sorts);
    }
}

/// The plan an `explain` reply (as relaxed Extended JSON) describes, as
/// `planSummary` names it (`COLLSCAN`, `IXSCAN { a: 1 }`, `IDHACK`), and
/// whether it sorts in memory: a sort stage in the plan, or a `$sort`
/// stage the query layer did not absorb.
pub(crate) fn plan_of(reply: &Value) -> Option<(String, bool)> {
    let winning = |qp: &Value| {
        qp.get("winningPlan")
            .map(|w| w.get("queryPlan").unwrap_or(w))
            .cloned()
    };
    let stages = reply.get("stages").and_then(Value::as_array);
    let tree = reply.get("queryPlanner").and_then(winning).or_else(|| {
        stages?
            .iter()
            .find_map(|s| s.pointer("/$cursor/queryPlanner"))
            .and_then(winning)
    })?;
    let mut access = Vec::new();
    let mut sorts = false;
    walk(&tree, &mut access, &mut sorts);
    if stages.is_some_and(|st| st.iter().any(|s| s.get("$sort").is_some())) {
        sorts = true;
    }
    if access.is_empty() {
        return None;
    }
    access.dedup();
    Some((access.join(", "), sorts))
}

/// What reading the server's workload gave.
pub struct Read {
    pub workload: Workload,
    /// What the user should know: profilers off, sources not answered,
    /// plans from `explain`.
    pub notes: Vec<String>,
}

fn note_off(p: &ProfilerDb, lang: Lang) -> String {
    let db = &p.db;
    let state = match p.level {
        Some(0) => lang.pick(
            "profiling is off (level 0)".to_owned(),
            "性能分析器已关闭（级别 0）".to_owned(),
        ),
        Some(l) => lang.pick(
            format!("profiling is at level {l} but has recorded nothing yet"),
            format!("性能分析器处于级别 {l}，但尚未记录任何操作"),
        ),
        None => lang.pick(
            "its profiling level could not be read".to_owned(),
            "无法读取其性能分析级别".to_owned(),
        ),
    };
    lang.pick(
        format!("{db}.system.profile is empty or missing: {state}. docshape never changes it; to record the slow operations, run in mongosh `db.getSiblingDB(\"{db}\").setProfilingLevel(1, {{slowms: 100}})` (level 2 records every operation), let the application run, then audit again."),
        format!("{db}.system.profile 为空或不存在：{state}。docshape 从不修改它；要记录慢操作，请在 mongosh 中运行 `db.getSiblingDB(\"{db}\").setProfilingLevel(1, {{slowms: 100}})`（级别 2 记录所有操作），让应用运行一段时间后再审计。"),
    )
}

/// Reads the workload of the server behind `source`: `None` when the
/// source has no profiler (files). A server that is gone ends the run;
/// anything else it refuses is a note.
pub(crate) async fn read<S: Insight>(
    source: &S,
    selection: &Selection,
    lang: Lang,
) -> Option<Result<Read, SourceError>> {
    let mut r = Reader::for_server();
    let mut fastest: BTreeMap<String, u64> = BTreeMap::new();
    let mut each = |db: &str, d: &bson::Document| {
        let e = Bson::Document(d.clone()).relaxed();
        let ns = e.get("ns").and_then(Value::as_str).unwrap_or("");
        let coll = ns.split_once('.').map_or("", |(_, c)| c);
        if !selection.collections.is_empty()
            && !coll.is_empty()
            && !coll.starts_with("$cmd")
            && !selection.wants(db, coll)
        {
            r.skip_entry("outside the selection (-c)");
            return;
        }
        if let Some(ms) = e.get("millis").and_then(Value::as_u64) {
            let f = fastest.entry(db.to_owned()).or_insert(ms);
            *f = (*f).min(ms);
        }
        r.profiled(&e);
    };
    let dbs = match source.profiler(selection, &mut each).await? {
        Ok(d) => d,
        Err(e) => return Some(Err(e)),
    };
    let mut notes = Vec::new();
    let mut profilers = Vec::new();
    for p in &dbs {
        if let Some(e) = &p.error {
            notes.push(lang.pick(
                format!("{}.system.profile could not be read: {e}", p.db),
                format!("无法读取 {}.system.profile：{e}", p.db),
            ));
        } else if p.entries == 0 {
            notes.push(note_off(p, lang));
        }
        let slow = p.slowms.unwrap_or(DEFAULT_SLOWMS);
        let every = p.level == Some(2)
            || fastest
                .get(&p.db)
                .is_some_and(|&f| i64::try_from(f).unwrap_or(i64::MAX) < slow);
        profilers.push(Profiler {
            read: p.clone(),
            every_operation: every,
        });
        if p.entries > 0 && !every {
            notes.push(lang.pick(
                format!("{}'s profiler holds only operations slower than {slow} ms: shares of the reads are taken against the reads the server counted", p.db),
                format!("{} 的性能分析器只记录了慢于 {slow} ms 的操作：读取占比以服务器统计的读取次数为准", p.db),
            ));
        }
    }
    let mut sources = vec![PROFILE.to_owned()];
    // $queryStats adds the databases whose profiler recorded nothing: the
    // same operations are not counted twice.
    let profiled: BTreeSet<&str> = dbs
        .iter()
        .filter(|p| p.entries > 0)
        .map(|p| p.db.as_str())
        .collect();
    let mut each_stat = |d: &bson::Document| {
        let e = Bson::Document(d.clone()).relaxed();
        let db = e
            .pointer("/key/queryShape/cmdNs/db")
            .and_then(Value::as_str)
            .unwrap_or("");
        let coll = e
            .pointer("/key/queryShape/cmdNs/coll")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !selection.wants(db, coll) {
            r.skip_entry("$queryStats: outside the selection");
        } else if profiled.contains(db) {
            r.skip_entry("$queryStats: its database's profiler entries are read instead");
        } else {
            r.query_stat(&e);
        }
    };
    match source.query_stats(&mut each_stat).await {
        Some(Ok(n)) if n > 0 => sources.push(QUERY_STATS.to_owned()),
        None | Some(Ok(_)) => {}
        Some(Err(e)) if e.is_gone() => return Some(Err(e)),
        Some(Err(e)) => notes.push(lang.pick(
            format!("$queryStats was not answered (it needs MongoDB 7.1 or later, or Atlas): {e}"),
            format!("$queryStats 未得到应答（需要 MongoDB 7.1 或更高版本，或 Atlas）：{e}"),
        )),
    }
    let asks = r.to_explain();
    let (mut explained, mut refused) = (0usize, None);
    for (key, db, command) in asks.iter().take(MAX_EXPLAIN) {
        match source.explain_command(db, command.clone()).await {
            None => break,
            Some(Ok(reply)) => {
                let v = Bson::Document(reply).relaxed();
                if let Some((plan, sorts)) = plan_of(&v) {
                    r.explained(key, &plan, sorts);
                    explained += 1;
                }
            }
            Some(Err(e)) if e.is_gone() => return Some(Err(e)),
            Some(Err(e)) => {
                refused.get_or_insert(e.to_string());
            }
        }
    }
    if explained > 0 {
        notes.push(lang.pick(
            format!("The profiler named no plan for the runs of {explained} read shapes: their plans are what `explain` says the server chooses now (one run of each shape asked, nothing run); documents and keys examined were not recorded."),
            format!("性能分析器没有记录 {explained} 种读取形状的执行计划：所示计划是 `explain` 给出的服务器当前的选择（每种形状询问一次，不执行）；检查的文档数和索引键数未被记录。"),
        ));
    }
    if asks.len() > MAX_EXPLAIN {
        notes.push(lang.pick(
            format!("{} further read shapes have no plan: only the {MAX_EXPLAIN} costliest were explained", asks.len() - MAX_EXPLAIN),
            format!("另有 {} 种读取形状没有执行计划：只对开销最大的 {MAX_EXPLAIN} 种做了 explain", asks.len() - MAX_EXPLAIN),
        ));
    }
    if let Some(e) = refused {
        notes.push(lang.pick(
            format!("explain was refused for some shapes, which keep no plan: {e}"),
            format!("部分形状的 explain 被拒绝，它们没有执行计划：{e}"),
        ));
    }
    let mut w = r.finish();
    w.sources = sources;
    w.profiler = profilers;
    let namespaces: Vec<String> = w
        .shapes
        .iter()
        .map(|s| s.namespace.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if !namespaces.is_empty() {
        match source.op_counts(&namespaces).await {
            None => {}
            Some(Ok((counts, why))) => {
                w.counts = counts;
                notes.extend(why.into_iter().map(|e| {
                    lang.pick(
                        format!("reads and writes per collection: {e}"),
                        format!("每个集合的读写次数：{e}"),
                    )
                }));
            }
            Some(Err(e)) if e.is_gone() => return Some(Err(e)),
            Some(Err(e)) => notes.push(lang.pick(
                format!("reads and writes per collection were not counted: {e}"),
                format!("未能统计每个集合的读写次数：{e}"),
            )),
        }
    }
    Some(Ok(Read { workload: w, notes }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profiler entry of `mongod` 7.0 as the manual shows one.
    fn find_entry(app: &str, status: &str, plan: &str) -> Value {
        json!({
            "op": "query", "ns": "shop.orders",
            "command": {"find": "orders", "filter": {"status": status}, "sort": {"at": -1}, "lsid": {"id": {"$uuid": "ce6eb0b2-d85f-4ab2-a0dd-c3f0fc889b17"}}, "$db": "shop"},
            "keysExamined": 0, "docsExamined": 600, "hasSortStage": true, "cursorExhausted": true,
            "numYield": 0, "nreturned": 20, "queryHash": "7C953B42", "planCacheKey": "A1B2C3D4",
            "responseLength": 4000, "protocol": "op_msg", "millis": 41, "planSummary": plan,
            "ts": {"$date": "2026-11-20T16:25:13.475Z"}, "client": "10.0.0.7", "appName": app,
            "allUsers": [], "user": ""
        })
    }

    #[test]
    #[allow(clippy::many_single_char_names)]
    fn profiler_entries_shape_as_their_log_lines_do() {
        let mut r = Reader::for_server();
        r.profiled(&find_entry("shop-api", "A", "COLLSCAN"));
        r.profiled(&find_entry("shop-api", "B", "COLLSCAN"));
        r.profiled(&find_entry(
            crate::source::server::mongo::APP_NAME,
            "C",
            "COLLSCAN",
        ));
        let w = r.finish();
        assert_eq!(w.slow_queries, 3);
        assert_eq!(
            w.skipped.get("docshape's own operation (appName docshape)"),
            Some(&1)
        );
        assert_eq!(w.shapes.len(), 1);
        let s = &w.shapes[0];
        assert_eq!(s.count, 2);
        assert_eq!(s.ms.total, 82);
        assert_eq!(s.docs_examined, 1200);
        assert_eq!(s.nreturned, 40);
        assert_eq!(s.in_memory_sorts, 2);
        assert_eq!(s.plans.get("COLLSCAN"), Some(&2));
        assert_eq!(s.filter, Some(json!({"status": "string"})));

        // The same run as a "Slow query" line gives the same shape.
        let line = json!({"t": {"$date": "2026-11-20T16:25:13.475+00:00"}, "s": "I", "c": "COMMAND", "id": 51803, "ctx": "conn1", "msg": "Slow query",
            "attr": {"type": "command", "ns": "shop.orders", "appName": "shop-api",
                "command": {"find": "orders", "filter": {"status": "Z"}, "sort": {"at": -1}, "$db": "shop"},
                "planSummary": "COLLSCAN", "keysExamined": 0, "docsExamined": 600, "hasSortStage": true, "nreturned": 20, "durationMillis": 41}});
        let mut l = Reader::new();
        l.line(&line.to_string());
        let from_log = l.finish();
        let a = serde_json::to_value(&from_log.shapes[0]).expect("json");
        let mut b = serde_json::to_value(s).expect("json");
        // The two runs' sums, as one run.
        b["count"] = json!(1);
        b["ms"] = a["ms"].clone();
        b["docs_examined"] = json!(600);
        b["nreturned"] = json!(20);
        b["in_memory_sorts"] = json!(1);
        b["plans"] = json!({"COLLSCAN": 1});
        assert_eq!(a, b);
    }

    #[test]
    fn write_statements_count_one_by_one_in_either_form() {
        let mut r = Reader::for_server();
        // mongod: one entry per statement.
        r.profiled(&json!({"op": "update", "ns": "shop.posts",
            "command": {"q": {"_id": 1}, "u": {"$push": {"comments": {"by": "a"}}}, "multi": false, "upsert": false},
            "keysExamined": 1, "docsExamined": 1, "nMatched": 1, "nModified": 1, "millis": 3, "planSummary": "IDHACK"}));
        // A server that records the whole command: two statements.
        r.profiled(&json!({"op": "update", "ns": "shop.posts",
            "command": {"update": "posts", "updates": [
                {"q": {"_id": 2}, "u": {"$push": {"comments": {"by": "b"}}}},
                {"q": {"_id": 3}, "u": {"$push": {"comments": {"by": "c"}}}}], "ordered": true},
            "millis": 5, "ok": 1.0, "client": "127.0.0.1:5000"}));
        r.profiled(&json!({"op": "remove", "ns": "shop.posts",
            "command": {"delete": "posts", "deletes": [{"q": {"_id": 9}, "limit": 1}]}, "millis": 0}));
        r.profiled(&json!({"op": "getmore", "ns": "shop.posts",
            "command": {"getMore": 1234, "collection": "posts"}, "millis": 0}));
        let w = r.finish();
        assert_eq!(w.slow_queries, 4);
        let push = w
            .shapes
            .iter()
            .find(|s| s.op == "update")
            .expect("update shape");
        assert_eq!(push.count, 3, "{:?}", w.shapes);
        assert_eq!(push.ms.total, 8);
        assert_eq!(push.multi, Some(false));
        assert_eq!(push.plans.get("IDHACK"), Some(&1));
        let del = w.shapes.iter().find(|s| s.op == "delete").expect("delete");
        assert_eq!(del.multi, Some(false));
        assert_eq!(
            w.skipped
                .get("getMore: the rest of a cursor counted with its query"),
            Some(&1)
        );
    }

    #[test]
    fn reads_without_a_plan_are_explained_and_writes_never() {
        let mut r = Reader::for_server();
        let entry = |filter: Value| json!({"op": "query", "ns": "shop.orders", "command": {"find": "orders", "filter": filter, "sort": {"at": -1}, "lsid": {"id": 1}, "txnNumber": 3}, "millis": 2});
        r.profiled(&entry(json!({"status": "A"})));
        r.profiled(&entry(json!({"status": "B"})));
        r.profiled(&json!({"op": "update", "ns": "shop.orders", "command": {"update": "orders", "updates": [{"q": {"status": "A"}, "u": {"$set": {"x": 1}}}]}, "millis": 1}));
        r.profiled(&json!({"op": "command", "ns": "shop.orders", "command": {"aggregate": "orders", "pipeline": [{"$match": {"a": 1}}, {"$out": "copy"}], "cursor": {}}, "millis": 1}));
        let asks = r.to_explain();
        assert_eq!(asks.len(), 1, "{asks:?}");
        let (key, db, cmd) = &asks[0];
        assert_eq!(db, "shop");
        // Only what chooses a plan, from the first run.
        assert_eq!(
            cmd,
            &bson::doc! {"find": "orders", "filter": {"status": "A"}, "sort": {"at": -1}}
        );
        r.explained(key, "COLLSCAN", true);
        let w = r.finish();
        let s = w.shapes.iter().find(|s| s.op == "find").expect("find");
        assert_eq!(s.plans.get("COLLSCAN"), Some(&2));
        assert_eq!(s.explained, 2);
        assert_eq!(s.in_memory_sorts, 2);
    }

    #[test]
    fn plans_read_from_explain_replies() {
        // A blocking sort over an index scan (classic).
        let classic = json!({"queryPlanner": {"winningPlan": {"stage": "SORT", "sortPattern": {"at": -1},
            "inputStage": {"stage": "FETCH", "inputStage": {"stage": "IXSCAN", "keyPattern": {"customer": 1}, "indexName": "customer_1"}}}}});
        assert_eq!(
            plan_of(&classic),
            Some(("IXSCAN { customer: 1 }".to_owned(), true))
        );
        // Slot-based: the tree under queryPlan; an $or of two scans.
        let sbe = json!({"queryPlanner": {"winningPlan": {"queryPlan": {"stage": "FETCH", "inputStage": {"stage": "OR", "inputStages": [
            {"stage": "IXSCAN", "keyPattern": {"a": 1}}, {"stage": "IXSCAN", "keyPattern": {"b": -1, "c": 1}}]}}, "slotBasedPlan": {}}}});
        assert_eq!(
            plan_of(&sbe),
            Some(("IXSCAN { a: 1 }, IXSCAN { b: -1, c: 1 }".to_owned(), false))
        );
        assert_eq!(
            plan_of(&json!({"queryPlanner": {"winningPlan": {"stage": "COLLSCAN"}}})),
            Some(("COLLSCAN".to_owned(), false))
        );
        assert_eq!(
            plan_of(&json!({"queryPlanner": {"winningPlan": {"stage": "IDHACK"}}})),
            Some(("IDHACK".to_owned(), false))
        );
        // An aggregation whose $sort the query layer did not absorb.
        let agg = json!({"stages": [{"$cursor": {"queryPlanner": {"winningPlan": {"stage": "COLLSCAN"}}}}, {"$sort": {"sortKey": {"at": -1}}}]});
        assert_eq!(plan_of(&agg), Some(("COLLSCAN".to_owned(), true)));
        assert_eq!(plan_of(&json!({"ok": 1})), None);
    }

    /// A `$queryStats` entry in the form the MongoDB manual documents
    /// (7.1+): the query shape with `"?type"` placeholders, summed metrics.
    #[test]
    fn query_stats_entries_shape_as_the_commands_they_stand_for() {
        let e = json!({
            "key": {"queryShape": {"cmdNs": {"db": "shop", "coll": "orders"}, "command": "find",
                    "filter": {"status": "?string", "qty": {"$gt": "?number"}, "tag": {"$in": "?array<?string>"}}, "sort": {"at": -1}},
                "client": {"application": {"name": "shop-api"}}, "collectionType": "collection"},
            "keyHash": "x", "queryShapeHash": "y",
            "metrics": {"lastExecutionMicros": 208, "execCount": 21,
                "totalExecMicros": {"sum": 6079, "max": 1875, "min": 198, "sumOfSquares": 4_401_645},
                "docsReturned": {"sum": 42, "max": 2, "min": 2, "sumOfSquares": 84},
                "docsExamined": {"sum": 2100, "max": 100, "min": 100, "sumOfSquares": 210_000},
                "keysExamined": {"sum": 0, "max": 0, "min": 0, "sumOfSquares": 0},
                "hasSortStage": {"true": 21, "false": 0}}
        });
        let mut r = Reader::for_server();
        r.query_stat(&e);
        let mut own = e.clone();
        own["key"]["client"]["application"]["name"] = json!("docshape");
        r.query_stat(&own);
        let w = r.finish();
        assert_eq!(w.slow_queries, 2);
        assert_eq!(w.shapes.len(), 1);
        let s = &w.shapes[0];
        assert_eq!(
            (s.namespace.as_str(), s.op.as_str()),
            ("shop.orders", "find")
        );
        assert_eq!(s.count, 21);
        assert_eq!(s.ms.total, 6);
        assert_eq!(s.ms.max, 1);
        assert_eq!(s.docs_examined, 2100);
        assert_eq!(s.nreturned, 42);
        assert_eq!(s.in_memory_sorts, 21);
        assert_eq!(
            s.filter,
            Some(json!({"status": "string", "qty": {"$gt": "int"}, "tag": {"$in": "array(1)"}}))
        );
        assert_eq!(s.sort, Some(json!({"at": -1})));
    }
}
