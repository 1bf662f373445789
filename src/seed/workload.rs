//! A workload on the teaching data sets: what an application built on them
//! would run, written down as a list of steps ([`STEPS`]), each one query
//! or write repeated with values drawn from the data. It plants one
//! problem of each kind the workload rules look for beside a healthy twin:
//!
//! - `indexes`: paid orders over an amount, newest first (equality, sort,
//!   range) on `bad_orders`, whose indexes put the range before the sort;
//!   a customer's orders on `good_orders`, served by its ESR index;
//! - `one_to_few`: nine reads of ten of a person `$lookup` their few
//!   addresses (`bad_people`); `good_people` embeds them;
//! - `one_to_squillions`: log messages `$push`ed onto their host without
//!   `$slice` (`bad_hosts`); inserted as documents of their own and read
//!   newest first by an index (`good_logmsg`);
//! - `contacts` (seed 001): a group renamed now and then while its copies
//!   sit in every contact (`bad_groups` → `bad_contacts`); the avatar read
//!   in one query of ten, from GridFS (`good_avatars.files`) or with every
//!   read of the contact it is embedded in;
//! - `extended_reference`: loyalty points earned after every order while
//!   the orders copy them (`bad_customers` → `bad_orders`, read by a
//!   collection scan); the good orders copy only the name;
//! - healthy `_id` lookups throughout.
//!
//! `docshape seed URI --workload` runs it against a seeded server with the
//! profiler on; [`log`] writes the `mongod` 7.0 JSON log of the same
//! operations on the committed sample data (`sample-data/workload/`),
//! with each run's plan, keys and documents examined and documents
//! returned worked out from the data ([`Plan`]) and durations that are
//! illustrative (a fixed function of that work, [`millis`]), not measured.

use crate::profile::extjson::Relaxed as _;
use std::collections::HashMap;
use std::fmt::Write as _;

use bson::{doc, Bson, Document};
use mongodb::Client;
use serde_json::{json, Map, Value};

use super::datasets;
use super::gen::{date, Ids, DAY, NOW};
use super::{one_line, Progress, SeedError};
use crate::source::query::matcher::Matcher;

/// How the server runs a step's query (the plan the log reports).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// An `_id` equality: one key, one document.
    IdHack,
    /// Every document of the collection read.
    Collscan,
    /// An index with this key, bounded by the filter's equalities on its
    /// leading fields and one range after them.
    Ixscan(&'static [(&'static str, i32)]),
    /// No query (an insert).
    Write,
}

/// One operation as the application sends it.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Find {
        filter: Document,
        sort: Option<Document>,
        limit: Option<i64>,
    },
    Aggregate {
        pipeline: Vec<Document>,
    },
    Update {
        q: Document,
        u: Document,
    },
    Insert {
        doc: Document,
    },
}

/// One step of the workload: an operation run `runs` times on one
/// collection of one data set.
pub struct Step {
    pub dataset: &'static str,
    pub collection: &'static str,
    pub runs: u32,
    pub plan: Plan,
    /// What the step stands for.
    pub shows: &'static str,
    make: fn(&Data, u32) -> Op,
}

/// The committed documents and indexes of the data sets the workload uses.
pub struct Data {
    docs: HashMap<String, Vec<Document>>,
    indexes: HashMap<String, Vec<Document>>,
}

impl Data {
    /// Builds the data sets the steps name.
    pub fn load() -> Data {
        let mut d = Data {
            docs: HashMap::new(),
            indexes: HashMap::new(),
        };
        for name in datasets() {
            let Some(ds) = datasets::build(name) else {
                continue;
            };
            for c in ds.collections {
                let key = format!("{name}.{}", c.name);
                d.indexes.insert(
                    key.clone(),
                    c.indexes.iter().map(|i| i.keys.clone()).collect(),
                );
                d.docs.insert(key, c.docs);
            }
        }
        d
    }

    /// The committed documents of `dataset.collection` (none when it has
    /// only generated ones).
    pub fn docs(&self, dataset: &str, coll: &str) -> &[Document] {
        self.docs
            .get(&format!("{dataset}.{coll}"))
            .map_or(&[], Vec::as_slice)
    }

    /// The `i`-th document (cycling) of a collection.
    fn nth(&self, dataset: &str, coll: &str, i: u32) -> &Document {
        static EMPTY: std::sync::OnceLock<Document> = std::sync::OnceLock::new();
        let docs = self.docs(dataset, coll);
        if docs.is_empty() {
            return EMPTY.get_or_init(Document::new);
        }
        &docs[i as usize % docs.len()]
    }

    fn id(&self, dataset: &str, coll: &str, i: u32) -> Bson {
        self.nth(dataset, coll, i)
            .get("_id")
            .cloned()
            .unwrap_or(Bson::Null)
    }

    fn indexed(&self, dataset: &str, coll: &str, field: &str) -> bool {
        self.indexes
            .get(&format!("{dataset}.{coll}"))
            .is_some_and(|v| {
                v.iter()
                    .any(|k| k.keys().next().is_some_and(|f| f == field))
            })
    }
}

const STATUSES: [&str; 4] = ["new", "paid", "shipped", "delivered"];
const AMOUNTS: [f64; 3] = [50.0, 150.0, 300.0];
const LOG_LINES: [&str; 4] = [
    "GET /health 200",
    "disk /var at 81%",
    "worker restarted",
    "certificate renewed",
];

fn find(filter: Document, sort: Option<Document>, limit: Option<i64>) -> Op {
    Op::Find {
        filter,
        sort,
        limit,
    }
}

fn by_id(d: &Data, ds: &str, coll: &str, i: u32) -> Op {
    find(doc! {"_id": d.id(ds, coll, i)}, None, None)
}

/// A group of `coll` (`bad_groups`, `good_groups`) renamed.
fn rename_group(d: &Data, coll: &str, i: u32) -> Op {
    let g = d.nth("contacts", coll, i);
    Op::Update {
        q: doc! {"_id": g.get("_id").cloned().unwrap_or(Bson::Null)},
        u: doc! {"$set": {"name": format!("{} {}", g.get_str("name").unwrap_or("group"), i / 5 + 1)}},
    }
}

/// The ten latest orders of a customer of `customers`.
fn latest_orders(d: &Data, customers: &str, i: u32) -> Op {
    find(
        doc! {"customer.id": d.id("extended_reference", customers, i * 7)},
        Some(doc! {"date": -1}),
        Some(10),
    )
}

/// Loyalty points earned by a customer of `customers`.
fn earn_points(d: &Data, customers: &str, i: u32) -> Op {
    Op::Update {
        q: doc! {"_id": d.id("extended_reference", customers, i * 7)},
        u: doc! {"$inc": {"loyalty_points": 10}},
    }
}

/// The steps, in the order their first runs come; runs of all steps are
/// interleaved.
pub const STEPS: &[Step] = &[
    Step {
        dataset: "indexes",
        collection: "bad_orders",
        runs: 150,
        plan: Plan::Ixscan(&[("status", 1), ("total", 1), ("channel", 1)]),
        shows: "equality, sort and range served by an index in equality-range order: the sort runs in memory",
        make: |_, i| {
            let over = AMOUNTS[(i % 3) as usize];
            find(
                doc! {"status": STATUSES[(i % 4) as usize], "total": {"$gte": over}},
                Some(doc! {"placed_at": -1}),
                Some(20),
            )
        },
    },
    Step {
        dataset: "indexes",
        collection: "good_orders",
        runs: 150,
        plan: Plan::Ixscan(&[("customer", 1), ("status", 1), ("placed_at", -1)]),
        shows: "a customer's orders of one status since a date, newest first, on an index in ESR order",
        make: |d, i| {
            let o = d.nth("indexes", "good_orders", i * 7);
            find(
                doc! {"customer": o.get("customer").cloned().unwrap_or(Bson::Null),
                "status": o.get("status").cloned().unwrap_or(Bson::Null),
                "placed_at": {"$gte": date(NOW - 7 * DAY)}},
                Some(doc! {"placed_at": -1}),
                None,
            )
        },
    },
    Step {
        dataset: "one_to_few",
        collection: "bad_people",
        runs: 90,
        plan: Plan::IdHack,
        shows: "a person read with a $lookup of their few addresses",
        make: |d, i| Op::Aggregate {
            pipeline: vec![
                doc! {"$match": {"_id": d.id("one_to_few", "bad_people", i)}},
                doc! {"$lookup": {"from": "bad_addresses", "localField": "_id", "foreignField": "person_id", "as": "addresses"}},
            ],
        },
    },
    Step {
        dataset: "one_to_few",
        collection: "bad_people",
        runs: 10,
        plan: Plan::IdHack,
        shows: "a person read alone",
        make: |d, i| by_id(d, "one_to_few", "bad_people", i + 3),
    },
    Step {
        dataset: "one_to_few",
        collection: "good_people",
        runs: 100,
        plan: Plan::IdHack,
        shows: "a person read with their embedded addresses",
        make: |d, i| by_id(d, "one_to_few", "good_people", i),
    },
    Step {
        dataset: "one_to_squillions",
        collection: "bad_hosts",
        runs: 200,
        plan: Plan::IdHack,
        shows: "a log message pushed onto its host without $slice",
        make: |d, i| Op::Update {
            q: doc! {"_id": d.id("one_to_squillions", "bad_hosts", i * 5)},
            u: doc! {"$push": {"logs": {"time": date(NOW + i * 60), "message": LOG_LINES[(i % 4) as usize]}}},
        },
    },
    Step {
        dataset: "one_to_squillions",
        collection: "good_logmsg",
        runs: 200,
        plan: Plan::Write,
        shows: "a log message inserted as a document referencing its host",
        make: |d, i| {
            // Ids of their own: the data set's tag with variant 9, counted by run.
            let mut ids = Ids::new(2, 9);
            let mut b = ids.at(NOW + i * 60).bytes();
            b[8..].copy_from_slice(&i.to_be_bytes());
            let id = bson::oid::ObjectId::from_bytes(b);
            Op::Insert {
                doc: doc! {"_id": id, "time": date(NOW + i * 60), "message": LOG_LINES[(i % 4) as usize],
                "host": d.id("one_to_squillions", "good_hosts", i * 5)},
            }
        },
    },
    Step {
        dataset: "one_to_squillions",
        collection: "good_logmsg",
        runs: 100,
        plan: Plan::Ixscan(&[("host", 1), ("time", -1)]),
        shows: "a host's ten newest messages",
        make: |d, i| {
            find(
                doc! {"host": d.id("one_to_squillions", "good_hosts", i)},
                Some(doc! {"time": -1}),
                Some(10),
            )
        },
    },
    Step {
        dataset: "contacts",
        collection: "bad_contacts",
        runs: 900,
        plan: Plan::IdHack,
        shows: "a contact read whole, with its copied group (and its embedded avatar, where it has one)",
        make: |d, i| by_id(d, "contacts", "bad_contacts", i),
    },
    Step {
        dataset: "contacts",
        collection: "bad_groups",
        runs: 30,
        plan: Plan::IdHack,
        shows: "a group renamed: every contact holding a copy should follow",
        make: |d, i| rename_group(d, "bad_groups", i),
    },
    Step {
        dataset: "contacts",
        collection: "good_contacts",
        runs: 900,
        plan: Plan::IdHack,
        shows: "a contact read with its group's id",
        make: |d, i| by_id(d, "contacts", "good_contacts", i),
    },
    Step {
        dataset: "contacts",
        collection: "good_avatars.files",
        runs: 90,
        plan: Plan::IdHack,
        shows: "the avatar, wanted by one read of a contact in ten, from GridFS",
        make: |d, i| {
            let with: Vec<&Document> = d
                .docs("contacts", "good_contacts")
                .iter()
                .filter(|c| c.contains_key("avatar_id"))
                .collect();
            let id = with
                .get(i as usize % with.len().max(1))
                .and_then(|c| c.get("avatar_id").cloned())
                .unwrap_or(Bson::Null);
            find(doc! {"_id": id}, None, None)
        },
    },
    Step {
        dataset: "contacts",
        collection: "good_groups",
        runs: 30,
        plan: Plan::IdHack,
        shows: "a group renamed in one place",
        make: |d, i| rename_group(d, "good_groups", i),
    },
    Step {
        dataset: "extended_reference",
        collection: "bad_orders",
        runs: 100,
        plan: Plan::Collscan,
        shows: "a customer's ten latest orders, with no index on the reference",
        make: |d, i| latest_orders(d, "bad_customers", i),
    },
    Step {
        dataset: "extended_reference",
        collection: "bad_customers",
        runs: 60,
        plan: Plan::IdHack,
        shows: "loyalty points earned: a field the orders copy",
        make: |d, i| earn_points(d, "bad_customers", i),
    },
    Step {
        dataset: "extended_reference",
        collection: "good_orders",
        runs: 100,
        plan: Plan::Ixscan(&[("customer.id", 1), ("date", -1)]),
        shows: "a customer's ten latest orders, on an index of the reference",
        make: |d, i| latest_orders(d, "good_customers", i),
    },
    Step {
        dataset: "extended_reference",
        collection: "good_customers",
        runs: 60,
        plan: Plan::IdHack,
        shows: "loyalty points earned: a field no order copies",
        make: |d, i| earn_points(d, "good_customers", i),
    },
];

/// The data sets the workload runs on, in the order of [`STEPS`].
pub fn datasets() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for s in STEPS {
        if !out.contains(&s.dataset) {
            out.push(s.dataset);
        }
    }
    out
}

/// One run of a step.
pub struct Run {
    pub step: &'static Step,
    /// Which step of [`STEPS`].
    pub index: usize,
    pub op: Op,
}

/// Every run of the steps of `only` (every data set when empty), the
/// steps' runs interleaved: the first run of each step, then the second …
pub fn runs(data: &Data, only: &[&str]) -> Vec<Run> {
    let most = STEPS.iter().map(|s| s.runs).max().unwrap_or(0);
    let mut out = Vec::new();
    for i in 0..most {
        for (index, step) in STEPS.iter().enumerate() {
            if i < step.runs && (only.is_empty() || only.contains(&step.dataset)) {
                out.push(Run {
                    step,
                    index,
                    op: (step.make)(data, i),
                });
            }
        }
    }
    out
}

/// The command the application sends for `op` on collection `coll`.
pub fn command(op: &Op, coll: &str) -> Document {
    match op {
        Op::Find {
            filter,
            sort,
            limit,
        } => {
            let mut c = doc! {"find": coll, "filter": filter.clone()};
            if let Some(s) = sort {
                c.insert("sort", s.clone());
            }
            if let Some(l) = limit {
                c.insert("limit", *l);
            }
            c
        }
        Op::Aggregate { pipeline } => {
            doc! {"aggregate": coll, "pipeline": pipeline.clone(), "cursor": {}}
        }
        Op::Update { q, u } => {
            doc! {"update": coll, "updates": [{"q": q.clone(), "u": u.clone(), "multi": false, "upsert": false}]}
        }
        Op::Insert { doc } => doc! {"insert": coll, "documents": [doc.clone()]},
    }
}

/// What one run costs, worked out from the data.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub plan_summary: Option<String>,
    pub keys_examined: u64,
    pub docs_examined: u64,
    pub nreturned: u64,
    pub has_sort_stage: bool,
}

/// `IXSCAN { a: 1, b: -1 }`, as `mongod` names a plan.
fn summary(plan: Plan) -> Option<String> {
    match plan {
        Plan::IdHack => Some("IDHACK".into()),
        Plan::Collscan => Some("COLLSCAN".into()),
        Plan::Ixscan(key) => Some(format!(
            "IXSCAN {{ {} }}",
            key.iter()
                .map(|(f, d)| format!("{f}: {d}"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Plan::Write => None,
    }
}

/// Whether `v` (a filter's value for a field) is an equality.
fn is_equality(v: &Bson) -> bool {
    match v {
        Bson::Document(d) => {
            d.keys().next().is_none_or(|k| !k.starts_with('$')) || d.contains_key("$eq")
        }
        _ => true,
    }
}

fn count(docs: &[Document], filter: &Document) -> u64 {
    Matcher::new(filter).map_or(0, |m| docs.iter().filter(|d| m.matches(d)).count() as u64)
}

/// The cost of `op` run with `plan` over `docs`: a scan reads every
/// document; an index scan reads the keys within its bounds (every one,
/// unless the index gives the order and bounds the whole filter, when a
/// limit stops it) and fetches their documents; a sort the index does not
/// give runs in memory. A `$lookup` reads the documents of the other
/// collection it matches, or all of them when its field has no index.
pub fn stats(data: &Data, step: &Step, op: &Op) -> Stats {
    let docs = data.docs(step.dataset, step.collection);
    let mut s = Stats {
        plan_summary: summary(step.plan),
        ..Stats::default()
    };
    match op {
        Op::Find {
            filter,
            sort,
            limit,
        } => {
            let matched = count(docs, filter);
            let limit = limit.map_or(u64::MAX, |l| l as u64);
            s.nreturned = matched.min(limit);
            match step.plan {
                Plan::IdHack => {
                    (s.keys_examined, s.docs_examined, s.nreturned) = (1, 1, 1);
                }
                Plan::Collscan => {
                    s.docs_examined = docs.len() as u64;
                    s.has_sort_stage = sort.is_some();
                }
                Plan::Ixscan(key) => {
                    let (bounded, eq_prefix) = bounds(key, filter);
                    let in_bounds = count(docs, &bounded);
                    let sorted = sort.as_ref().is_none_or(|o| gives_order(key, eq_prefix, o));
                    s.has_sort_stage = !sorted;
                    s.keys_examined = if sorted && bounded.len() == filter.len() {
                        in_bounds.min(limit)
                    } else {
                        in_bounds
                    };
                    s.docs_examined = s.keys_examined;
                }
                Plan::Write => {}
            }
        }
        Op::Aggregate { pipeline } => {
            (s.keys_examined, s.docs_examined, s.nreturned) = (1, 1, 1);
            for stage in pipeline {
                let Ok(l) = stage.get_document("$lookup") else {
                    continue;
                };
                let (Ok(from), Ok(foreign)) = (l.get_str("from"), l.get_str("foreignField")) else {
                    continue;
                };
                let other = data.docs(step.dataset, from);
                if data.indexed(step.dataset, from, foreign) {
                    let local = l.get_str("localField").unwrap_or("_id");
                    let key = pipeline
                        .first()
                        .and_then(|m| m.get_document("$match").ok())
                        .and_then(|m| m.get(local))
                        .cloned()
                        .unwrap_or(Bson::Null);
                    let n = count(other, &doc! {foreign: key});
                    s.keys_examined += n;
                    s.docs_examined += n;
                } else {
                    s.docs_examined += other.len() as u64;
                }
            }
        }
        Op::Update { .. } => {
            (s.keys_examined, s.docs_examined, s.nreturned) = (1, 1, 1);
        }
        Op::Insert { .. } => s.nreturned = 1,
    }
    s
}

/// The part of `filter` an index with `key` bounds (equalities on its
/// leading fields, then at most one range), and how many leading fields
/// are equalities.
fn bounds(key: &[(&str, i32)], filter: &Document) -> (Document, usize) {
    let mut out = Document::new();
    let mut eq = 0;
    for (field, _) in key {
        let Some(v) = filter.get(*field) else { break };
        out.insert(*field, v.clone());
        if is_equality(v) {
            eq += 1;
        } else {
            break;
        }
    }
    (out, eq)
}

/// Whether the index gives `sort`'s order after its first `eq` fields
/// (the same directions, or all of them reversed).
fn gives_order(key: &[(&str, i32)], eq: usize, sort: &Document) -> bool {
    let rest = &key[eq.min(key.len())..];
    if sort.len() > rest.len() {
        return false;
    }
    let dir = |v: &Bson| {
        if crate::source::bson_as_i64(v) == Some(-1) {
            -1
        } else {
            1
        }
    };
    let pairs: Vec<(i32, i32)> = sort
        .iter()
        .zip(rest)
        .map(|((f, v), (k, d))| {
            if f.as_str() == *k {
                (dir(v), *d)
            } else {
                (0, 1)
            }
        })
        .collect();
    pairs.iter().all(|(a, b)| a == b) || pairs.iter().all(|(a, b)| *a == -b)
}

/// Illustrative milliseconds of a run: 1, plus 1 per 20 documents and per
/// 100 keys examined, plus 2 for a sort in memory. Not measured.
pub fn millis(s: &Stats) -> u64 {
    1 + s.docs_examined / 20 + s.keys_examined / 100 + if s.has_sort_stage { 2 } else { 0 }
}

/// A short stable hash of a text (`queryHash` stand-in): FNV-1a, 8 hex.
fn hash8(text: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08X}")
}

fn ejson(d: &Document) -> Value {
    Bson::Document(d.clone()).relaxed()
}

/// The log's time of run `n`: from 2026-10-01T09:00:00Z, four runs a
/// second.
fn time_of(n: usize) -> String {
    let ms = 9 * 3_600_000 + n as u64 * 250;
    format!(
        "2026-10-01T{:02}:{:02}:{:02}.{:03}+00:00",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// One `"Slow query"` line of `run` as `mongod` 7.0 writes it, on
/// database `db`.
fn line(data: &Data, run: &Run, db: &str, n: usize) -> String {
    let step = run.step;
    let s = stats(data, step, &run.op);
    let ns = format!("{db}.{}", step.collection);
    let lsid = json!({"id": {"$uuid": format!("00000000-0000-4000-8000-{:012}", run.index + 1)}});
    let mut attr = Map::new();
    let (kind, component) = match &run.op {
        Op::Update { q, u } => {
            attr.insert("type".into(), json!("update"));
            attr.insert("ns".into(), json!(ns));
            attr.insert("appName".into(), json!(APP_NAME));
            attr.insert(
                "command".into(),
                json!({"q": ejson(q), "u": ejson(u), "multi": false, "upsert": false}),
            );
            ("update", "WRITE")
        }
        op => {
            let mut cmd = match ejson(&command(op, step.collection)) {
                Value::Object(m) => m,
                _ => Map::new(),
            };
            // Inserted documents travel in a document sequence: not logged.
            if matches!(op, Op::Insert { .. }) {
                cmd.remove("documents");
                cmd.insert("ordered".into(), json!(true));
            }
            cmd.insert("lsid".into(), lsid);
            cmd.insert("$db".into(), json!(db));
            attr.insert("type".into(), json!("command"));
            attr.insert("ns".into(), json!(ns));
            attr.insert("appName".into(), json!(APP_NAME));
            attr.insert("command".into(), Value::Object(cmd));
            ("command", "COMMAND")
        }
    };
    if let Some(p) = &s.plan_summary {
        attr.insert("planSummary".into(), json!(p));
    }
    match &run.op {
        Op::Update { .. } => {
            attr.insert("keysExamined".into(), json!(s.keys_examined));
            attr.insert("docsExamined".into(), json!(s.docs_examined));
            attr.insert("nMatched".into(), json!(1));
            attr.insert("nModified".into(), json!(1));
            attr.insert("nUpserted".into(), json!(0));
            attr.insert("numYields".into(), json!(0));
        }
        Op::Insert { .. } => {
            attr.insert("ninserted".into(), json!(1));
            attr.insert("keysInserted".into(), json!(2));
            attr.insert("numYields".into(), json!(0));
            attr.insert("reslen".into(), json!(45));
        }
        Op::Find { .. } | Op::Aggregate { .. } => {
            attr.insert("keysExamined".into(), json!(s.keys_examined));
            attr.insert("docsExamined".into(), json!(s.docs_examined));
            if s.has_sort_stage {
                attr.insert("hasSortStage".into(), json!(true));
            }
            attr.insert("cursorExhausted".into(), json!(true));
            attr.insert("numYields".into(), json!(0));
            attr.insert("nreturned".into(), json!(s.nreturned));
            let shape = crate::workload::shape::shape(&ejson(&command(&run.op, step.collection)));
            attr.insert("queryHash".into(), json!(hash8(&format!("{ns} {shape}"))));
            attr.insert("queryFramework".into(), json!("classic"));
        }
    }
    let count = if kind == "update" || matches!(run.op, Op::Insert { .. }) {
        json!({"acquireCount": {"w": 1}})
    } else {
        json!({"acquireCount": {"r": 1}})
    };
    attr.insert(
        "locks".into(),
        json!({"FeatureCompatibilityVersion": count, "Global": count}),
    );
    attr.insert(
        "remote".into(),
        json!(format!("10.0.7.{}:{}", 20 + run.index, 51_000 + run.index)),
    );
    if kind == "command" {
        attr.insert("protocol".into(), json!("op_msg"));
    }
    attr.insert("durationMillis".into(), json!(millis(&s)));
    // mongod pads the severity, component and id fields.
    let component = format!("\"{component}\",");
    format!(
        "{{\"t\":{{\"$date\":\"{}\"}},\"s\":\"I\",  \"c\":{component:<11} \"id\":51803,   \"ctx\":\"conn{}\",\"msg\":\"Slow query\",\"attr\":{}}}",
        time_of(n),
        100 + run.index,
        Value::Object(attr)
    )
}

/// The `mongod` 7.0 JSON log of the whole workload, its databases named
/// `<prefix><dataset>` (the bundled log: no prefix, as `sample-data/`'s
/// directories are named).
pub fn log(prefix: &str) -> String {
    let data = Data::load();
    let mut out = String::new();
    for (n, run) in runs(&data, &[]).iter().enumerate() {
        let db = format!("{prefix}{}", run.step.dataset);
        let _ = writeln!(out, "{}", line(&data, run, &db, n));
    }
    out
}

/// The application name the workload runs under (its log lines and
/// profiler entries carry it), not docshape's own: `--workload profile`
/// leaves docshape's operations out.
pub const APP_NAME: &str = "docshape-workload";

/// Where the bundled log lives under `sample-data/`.
pub const LOG_PATH: &str = "workload/mongod.log";

/// What running the workload did.
#[derive(Clone, Debug, Default)]
pub struct Ran {
    /// Per database: operations run.
    pub databases: Vec<(String, u64)>,
}

impl Ran {
    pub fn operations(&self) -> u64 {
        self.databases.iter().map(|(_, n)| n).sum()
    }
}

/// Runs the workload's steps on the data sets in `only` (seeded with
/// `prefix`) with the profiler on for their databases (level 2, every
/// operation; a `system.profile` left by an earlier run is dropped first),
/// then sets each database's profiling level back to what it was.
pub async fn run(
    client: &Client,
    prefix: &str,
    only: &[&str],
    progress: Progress<'_>,
) -> Result<Ran, SeedError> {
    let data = Data::load();
    let sets: Vec<&str> = datasets()
        .into_iter()
        .filter(|d| only.contains(d))
        .collect();
    let mut was: Vec<(String, i32)> = Vec::new();
    for set in &sets {
        let db = client.database(&format!("{prefix}{set}"));
        let level = db
            .run_command(doc! {"profile": -1})
            .await?
            .get("was")
            .and_then(crate::source::bson_as_i64)
            .unwrap_or(0);
        db.run_command(doc! {"profile": 0}).await?;
        if let Err(e) = db.collection::<Document>("system.profile").drop().await {
            if !e.to_string().contains("ns not found") {
                return Err(e.into());
            }
        }
        db.run_command(doc! {"profile": 2}).await?;
        was.push((db.name().to_owned(), level as i32));
    }
    let mut ran = Ran::default();
    let all = runs(&data, &sets);
    let total = all.len();
    let mut result = Ok(());
    for (n, r) in all.iter().enumerate() {
        let db = format!("{prefix}{}", r.step.dataset);
        let res = client
            .database(&db)
            .run_command(command(&r.op, r.step.collection))
            .await;
        match res {
            Err(e) => {
                result = Err(e.into());
                break;
            }
            // A write that failed answers ok with its errors listed.
            Ok(reply) if reply.contains_key("writeErrors") => {
                result = Err(SeedError::server(&format!(
                    "the workload's {} on {db}.{} failed: {}",
                    match r.op {
                        Op::Insert { .. } => "insert",
                        _ => "update",
                    },
                    r.step.collection,
                    one_line(
                        &reply
                            .get("writeErrors")
                            .map(ToString::to_string)
                            .unwrap_or_default()
                    )
                )));
                break;
            }
            Ok(_) => {}
        }
        match ran.databases.iter_mut().find(|(d, _)| *d == db) {
            Some(e) => e.1 += 1,
            None => ran.databases.push((db, 1)),
        }
        if n % 200 == 0 {
            progress(&format!("workload: {n} of {total} operations"));
        }
    }
    // The profiler goes back to its level even when a run failed.
    for (db, level) in was {
        client
            .database(&db)
            .run_command(doc! {"profile": level})
            .await?;
    }
    result.map(|()| ran)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(docs: Vec<Document>, indexes: Vec<Document>) -> Data {
        Data {
            docs: HashMap::from([("d.c".to_owned(), docs)]),
            indexes: HashMap::from([("d.c".to_owned(), indexes)]),
        }
    }

    fn step(plan: Plan) -> Step {
        Step {
            dataset: "d",
            collection: "c",
            runs: 1,
            plan,
            shows: "",
            make: |_, _| find(Document::new(), None, None),
        }
    }

    /// 40 documents: `s` cycles over 4 values, `t` counts, `x` over 2.
    fn docs() -> Vec<Document> {
        (0..40)
            .map(|i| doc! {"_id": i, "s": i % 4, "t": i, "x": i % 2})
            .collect()
    }

    #[test]
    fn an_index_reads_the_keys_within_its_bounds_and_sorts_what_it_does_not_order() {
        let d = data(docs(), Vec::new());
        // Equality on s, range on t: bounded by both.
        let op = find(
            doc! {"s": 1, "t": {"$gte": 20}},
            Some(doc! {"x": -1}),
            Some(3),
        );
        let s = stats(&d, &step(Plan::Ixscan(&[("s", 1), ("t", 1)])), &op);
        assert_eq!((s.keys_examined, s.docs_examined), (5, 5));
        assert_eq!(s.nreturned, 3);
        assert!(s.has_sort_stage);
        assert_eq!(s.plan_summary.as_deref(), Some("IXSCAN { s: 1, t: 1 }"));
        // The same query on {s, x, t}: E S R, no sort; the range is not a
        // bound past the sort, so every key of s = 1 is read.
        let s = stats(
            &d,
            &step(Plan::Ixscan(&[("s", 1), ("x", -1), ("t", 1)])),
            &op,
        );
        assert!(!s.has_sort_stage);
        assert_eq!(s.keys_examined, 10);
        // A reversed index gives the reversed order as well.
        let sorted = find(doc! {"s": 1}, Some(doc! {"t": -1}), Some(3));
        let s = stats(&d, &step(Plan::Ixscan(&[("s", 1), ("t", 1)])), &sorted);
        assert!(!s.has_sort_stage);
        // Bounding the whole filter in the order asked for: the limit stops it.
        assert_eq!((s.keys_examined, s.nreturned), (3, 3));
    }

    #[test]
    fn a_scan_reads_every_document_and_a_lookup_the_other_side() {
        let d = data(docs(), Vec::new());
        let op = find(doc! {"x": 1}, Some(doc! {"t": 1}), Some(5));
        let s = stats(&d, &step(Plan::Collscan), &op);
        assert_eq!((s.docs_examined, s.keys_examined, s.nreturned), (40, 0, 5));
        assert!(s.has_sort_stage);
        assert_eq!(millis(&s), 1 + 2 + 2);

        let lookup = Op::Aggregate {
            pipeline: vec![
                doc! {"$match": {"_id": 1}},
                doc! {"$lookup": {"from": "c", "localField": "_id", "foreignField": "s", "as": "same"}},
            ],
        };
        let s = stats(&d, &step(Plan::IdHack), &lookup);
        assert_eq!(s.docs_examined, 1 + 40, "no index on s: every document");
        let indexed = data(docs(), vec![doc! {"s": 1}]);
        let s = stats(&indexed, &step(Plan::IdHack), &lookup);
        assert_eq!(s.docs_examined, 1 + 10, "by the index on s: its matches");
    }

    #[test]
    fn every_run_is_logged_once_with_its_database_and_plan() {
        let data = Data::load();
        let all = runs(&data, &[]);
        let total: u32 = STEPS.iter().map(|s| s.runs).sum();
        assert_eq!(all.len(), total as usize);
        let only = runs(&data, &["contacts"]);
        assert!(only.iter().all(|r| r.step.dataset == "contacts"));
        let text = log("p_");
        assert_eq!(text.lines().count(), all.len());
        let first: Value = serde_json::from_str(text.lines().next().unwrap_or("")).expect("json");
        assert_eq!(first["msg"], "Slow query");
        assert_eq!(first["attr"]["ns"], "p_indexes.bad_orders");
        assert_eq!(
            first["attr"]["planSummary"],
            "IXSCAN { status: 1, total: 1, channel: 1 }"
        );
        assert!(text.starts_with(r#"{"t":{"$date":"2026-10-01T09:00:00.000+00:00"},"s":"I",  "c":"COMMAND",  "id":51803,   "ctx":"conn100""#));
    }
}
