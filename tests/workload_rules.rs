//! The workload rules on the test server: each problem is planted in a
//! collection and in a `mongod` log written in the real 4.4+ JSON format
//! (the structure of a "Slow query" line of
//! `../shared/realdata/logs/sample-mongod.log.gz`), beside a clean twin
//! that must draw nothing; `audit --workload` must find the problem, name
//! the shape, and suggest a script that `mongosh` runs.

#![allow(clippy::needless_pass_by_value)] // log lines are built from owned JSON values

mod common;
mod migrate;
#[path = "common/mongod_log.rs"]
mod mongod_log;

use bson::{doc, Bson, Document};
use common::{client, oid, unique_db, uri, DAY, NEWEST};
use futures_util::TryStreamExt;
use mongod_log::{find, slow};
use serde_json::{json, Value};

fn oid_json(id: &bson::oid::ObjectId) -> Value {
    json!({"$oid": id.to_hex()})
}

/// Writes the log; its path.
fn write_log(dir: &tempfile::TempDir, lines: &[String]) -> String {
    let p = dir.path().join("mongod.log");
    std::fs::write(&p, lines.join("\n") + "\n").expect("write log");
    p.to_str().expect("utf-8").to_owned()
}

async fn audit(db: &str, log: &str, format: &str) -> std::process::Output {
    let pattern = format!("{db}.*");
    common::docshape_async(&[
        "audit",
        &uri(),
        "-c",
        &pattern,
        "--workload",
        log,
        "--format",
        format,
        "--no-snapshot",
        "--fail-on",
        "never",
        "--lang",
        "en",
    ])
    .await
}

async fn audit_json(db: &str, log: &str) -> Value {
    common::json_ok(&audit(db, log, "json").await)
}

fn findings<'a>(r: &'a Value, ns: &str, rule: &str) -> Vec<&'a Value> {
    migrate::findings(r, ns, rule)
}

/// Every workload rule's findings on `ns`.
fn workload_findings<'a>(r: &'a Value, ns: &str) -> Vec<&'a Value> {
    [
        "index-esr",
        "unindexed-query",
        "lookup-on-hot-path",
        "push-without-slice",
        "write-amplified-copy",
        "case-insensitive-regex",
    ]
    .iter()
    .flat_map(|rule| findings(r, ns, rule))
    .collect()
}

/// The workload's shape of `op` on `ns` whose filter (or pipeline) has `key`.
fn shape<'a>(r: &'a Value, ns: &str, op: &str, key: &str) -> &'a Value {
    r["workload"]["shapes"]
        .as_array()
        .expect("shapes")
        .iter()
        .find(|s| {
            s["namespace"] == ns
                && s["op"] == op
                && (s["filter"].get(key).is_some()
                    || s["pipeline"].to_string().contains(key)
                    || s["update"].to_string().contains(key))
        })
        .unwrap_or_else(|| panic!("no {op} shape on {ns} with {key}: {}", r["workload"]))
}

fn key_order(v: &Value) -> Vec<(String, i64)> {
    v.as_object()
        .expect("key")
        .iter()
        .map(|(k, d)| (k.clone(), d.as_f64().expect("direction") as i64))
        .collect()
}

fn pairs(p: &[(&str, i64)]) -> Vec<(String, i64)> {
    p.iter().map(|(k, d)| ((*k).to_owned(), *d)).collect()
}

/// Orders: 4 statuses, 200 customers, dates and quantities.
fn orders() -> Vec<Document> {
    (0..600u32)
        .map(|i| {
            let status = ["A", "B", "C", "D"][(i % 4) as usize];
            doc! {
                "_id": oid(NEWEST - (i % 90) * DAY, i),
                "status": status,
                "customer": format!("c{}", i % 200),
                "at": bson::DateTime::from_millis(i64::from(NEWEST - i * 3600) * 1000),
                "qty": i % 17,
            }
        })
        .collect()
}

async fn insert(db: &str, coll: &str, docs: Vec<Document>) {
    client()
        .await
        .database(db)
        .collection::<Document>(coll)
        .insert_many(docs)
        .await
        .unwrap_or_else(|e| panic!("insert into {coll}: {e}"));
}

async fn index(db: &str, coll: &str, keys: Document) {
    client()
        .await
        .database(db)
        .collection::<Document>(coll)
        .create_index(mongodb::IndexModel::builder().keys(keys).build())
        .await
        .unwrap_or_else(|e| panic!("index on {coll}: {e}"));
}

/// The key documents of `coll`'s indexes, each in its order.
async fn index_keys(db: &str, coll: &str) -> Vec<(String, Vec<(String, i64)>)> {
    let specs: Vec<mongodb::IndexModel> = client()
        .await
        .database(db)
        .collection::<Document>(coll)
        .list_indexes()
        .await
        .expect("list indexes")
        .try_collect()
        .await
        .expect("indexes");
    specs
        .into_iter()
        .map(|m| {
            let name = m.options.and_then(|o| o.name).unwrap_or_default();
            let keys = m
                .keys
                .iter()
                .map(|(k, v)| {
                    let d = match v {
                        Bson::Int32(n) => i64::from(*n),
                        Bson::Int64(n) => *n,
                        Bson::Double(f) => *f as i64,
                        other => panic!("direction {other}"),
                    };
                    (k.clone(), d)
                })
                .collect();
            (name, keys)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn equality_and_sort_without_an_index_get_one_in_esr_order() {
    let db = unique_db("wl_es");
    insert(&db, "orders", orders()).await;
    insert(&db, "orders_ok", orders()).await;
    index(&db, "orders_ok", doc! {"status": 1, "at": -1}).await;
    let ids: Vec<bson::oid::ObjectId> = (0..50u32)
        .map(|i| oid(NEWEST - (i % 90) * DAY, i))
        .collect();
    let mut lines = Vec::new();
    for i in 0..150u64 {
        let status = ["A", "B", "C", "D"][(i % 4) as usize];
        // The planted problem: no index, a scan and an in-memory sort.
        lines.push(find(
            &db,
            "orders",
            json!({"status": status}),
            Some(json!({"at": -1})),
            json!({"planSummary": "COLLSCAN", "keysExamined": 0, "docsExamined": 600, "hasSortStage": true, "nreturned": 20}),
            40 + i % 7,
        ));
        // The twin: the same query on its index.
        lines.push(find(
            &db,
            "orders_ok",
            json!({"status": status}),
            Some(json!({"at": -1})),
            json!({"planSummary": "IXSCAN { status: 1, at: -1 }", "keysExamined": 20, "docsExamined": 20, "nreturned": 20}),
            2,
        ));
    }
    // Healthy: lookups by _id.
    for i in 0..500usize {
        lines.push(find(
            &db,
            "orders",
            json!({"_id": oid_json(&ids[i % ids.len()])}),
            None,
            json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            1,
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = audit_json(&db, &log).await;

    let ns = format!("{db}.orders");
    let esr = findings(&r, &ns, "index-esr");
    assert_eq!(esr.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = esr[0];
    assert_eq!(
        key_order(&f["evidence"]["index"]["key"]),
        pairs(&[("status", 1), ("at", -1)])
    );
    let ev = &f["evidence"]["shape"];
    assert_eq!(ev["count"], 150);
    assert_eq!(ev["plans"]["COLLSCAN"], 150);
    assert_eq!(ev["docs_examined_per_returned"], 30.0);
    assert_eq!(f["suggestion"]["pattern"], "index");
    let script = f["suggestion"]["migration"].as_str().expect("script");
    assert!(script.contains("createIndex"), "{script}");
    let msg = f["message"].as_str().expect("message");
    assert!(
        msg.contains("150 times") && msg.contains("COLLSCAN"),
        "{msg}"
    );

    // The shape names the finding; the healthy _id shape names none.
    let scan = shape(&r, &ns, "find", "status");
    assert_eq!(scan["findings"], json!(["index-esr"]), "{scan}");
    let by_id = shape(&r, &ns, "find", "_id");
    assert!(by_id.get("findings").is_none(), "{by_id}");

    // The twin draws nothing.
    let ok = format!("{db}.orders_ok");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );
    assert!(shape(&r, &ok, "find", "status").get("findings").is_none());

    // The other outputs carry the finding: text per shape, Markdown, SARIF.
    let text = common::stdout(&audit(&db, &log, "text").await);
    let line = text
        .lines()
        .find(|l| l.contains("find") && l.contains(&ns) && l.contains("status"))
        .unwrap_or_else(|| panic!("no status shape in the text report:\n{text}"));
    assert!(line.contains("index-esr"), "{line}");
    let md = common::stdout(&audit(&db, &log, "markdown").await);
    let section = md.find("## Workload").map(|at| &md[at..]);
    assert!(
        section.is_some_and(|w| w.contains("`index-esr`")),
        "the workload section names the finding:\n{md}"
    );
    let sarif: Value =
        serde_json::from_str(&common::stdout(&audit(&db, &log, "sarif").await)).expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(
        results.iter().any(|x| x["ruleId"] == "index-esr"),
        "{results:?}"
    );

    // The script builds the index in that order; re-audited with the same
    // log, the shape is served and draws nothing.
    migrate::run_twice(&db, script, "esr_index").await;
    let keys = index_keys(&db, "orders").await;
    assert!(
        keys.iter()
            .any(|(_, k)| *k == pairs(&[("status", 1), ("at", -1)])),
        "{keys:?}"
    );

    let again = audit_json(&db, &log).await;
    assert!(findings(&again, &ns, "index-esr").is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn equality_sort_and_range_get_exactly_e_s_r_extending_the_prefix_index() {
    let db = unique_db("wl_esr");
    insert(&db, "orders", orders()).await;
    index(&db, "orders", doc! {"customer": 1}).await;
    insert(&db, "orders_ok", orders()).await;
    index(
        &db,
        "orders_ok",
        doc! {"customer": 1, "status": 1, "at": -1, "qty": 1},
    )
    .await;
    let mut lines = Vec::new();
    for i in 0..120u64 {
        let filter =
            json!({"status": "A", "qty": {"$gte": 5}, "customer": format!("c{}", i % 200)});
        // Served by the customer index, but it reads many keys and sorts
        // in memory.
        lines.push(find(
            &db,
            "orders",
            filter.clone(),
            Some(json!({"at": -1})),
            json!({"planSummary": "IXSCAN { customer: 1 }", "keysExamined": 36, "docsExamined": 36, "hasSortStage": true, "nreturned": 2}),
            12,
        ));
        lines.push(find(
            &db,
            "orders_ok",
            filter,
            Some(json!({"at": -1})),
            json!({"planSummary": "IXSCAN { customer: 1, status: 1, at: -1, qty: 1 }", "keysExamined": 2, "docsExamined": 2, "nreturned": 2}),
            1,
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = audit_json(&db, &log).await;

    let ns = format!("{db}.orders");
    let esr = findings(&r, &ns, "index-esr");
    assert_eq!(esr.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = esr[0];
    let idx = &f["evidence"]["index"];
    // Equality (customer: 200 distinct values before status: 4), sort, range.
    assert_eq!(idx["equality"], json!(["customer", "status"]));
    assert_eq!(idx["sort"], json!([{"at": -1}]));
    assert_eq!(idx["range"], json!(["qty"]));
    let want = pairs(&[("customer", 1), ("status", 1), ("at", -1), ("qty", 1)]);
    assert_eq!(key_order(&idx["key"]), want);
    assert_eq!(f["evidence"]["extends"], "customer_1");
    assert_eq!(f["evidence"]["shape"]["in_memory_sorts"], 120);
    assert_eq!(f["evidence"]["shape"]["keys_examined_per_returned"], 18.0);

    let ok = format!("{db}.orders_ok");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );

    // The script builds E, S, R in that order and retires the prefix index.
    let script = f["suggestion"]["migration"].as_str().expect("script");
    migrate::run_twice(&db, script, "esr_extend").await;
    let keys = index_keys(&db, "orders").await;
    assert!(keys.iter().any(|(_, k)| *k == want), "{keys:?}");
    assert!(!keys.iter().any(|(n, _)| n == "customer_1"), "{keys:?}");
}

/// Posts whose comments grow with age: post `i` is `i` days old and has
/// `2 i` comments.
fn posts() -> Vec<Document> {
    (0..60u32)
        .map(|i| {
            let comments: Vec<Document> = (0..2 * i)
                .map(|c| doc! {"by": format!("user{}", c % 17), "text": "nice post"})
                .collect();
            doc! {"_id": oid(NEWEST - i * DAY, 600_000 + i), "title": format!("post {i}"), "comments": comments}
        })
        .collect()
}

fn update(ns: &str, q: Value, u: Value, ms: u64) -> String {
    slow(
        "update",
        ns,
        json!({"q": q, "u": u, "multi": false, "upsert": false}),
        json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nMatched": 1, "nModified": 1, "nUpserted": 0}),
        ms,
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn push_without_slice_on_a_growing_array() {
    let db = unique_db("wl_push");
    insert(&db, "posts", posts()).await;
    insert(&db, "posts_ok", posts()).await;
    let mut lines = Vec::new();
    for i in 0..200u32 {
        let id = oid_json(&oid(NEWEST - (i % 60) * DAY, 600_000 + i % 60));
        let comment = json!({"by": "user3", "text": "me too"});
        lines.push(update(
            &format!("{db}.posts"),
            json!({"_id": id}),
            json!({"$push": {"comments": comment}}),
            3,
        ));
        lines.push(update(
            &format!("{db}.posts_ok"),
            json!({"_id": id}),
            json!({"$push": {"comments": {"$each": [comment], "$slice": -50}}}),
            3,
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = audit_json(&db, &log).await;

    let ns = format!("{db}.posts");
    let push = findings(&r, &ns, "push-without-slice");
    assert_eq!(push.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = push[0];
    assert_eq!(f["path"], "comments");
    // Corroborated by the measured growth: critical.
    assert_eq!(f["severity"], "critical", "{f}");
    assert!(
        f["evidence"]["growth"]["per_day"].as_f64().expect("growth") > 1.0,
        "{f}"
    );
    assert_eq!(f["evidence"]["shape"]["count"], 200);
    assert_eq!(f["evidence"]["array_length"]["max"], 118);
    let summary = f["suggestion"]["summary"].as_str().expect("summary");
    assert!(summary.contains("$slice"), "{summary}");
    let s = shape(&r, &ns, "update", "$push");
    assert_eq!(s["findings"], json!(["push-without-slice"]));

    let ok = format!("{db}.posts_ok");
    assert!(
        findings(&r, &ok, "push-without-slice").is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lookup_of_a_one_to_few_relationship_on_most_reads() {
    let db = unique_db("wl_lookup");
    // Authors with one to four books each (one-to-few), and shelves with
    // one to four boxes each, joined on few reads (the twin).
    let authors: Vec<Document> = (0..40u32)
        .map(|i| doc! {"_id": oid(NEWEST - 300 * DAY + i, 10_000 + i), "name": format!("author {i}")})
        .collect();
    let mut books = Vec::new();
    for (i, a) in authors.iter().enumerate() {
        for k in 0..=(i % 4) {
            books.push(doc! {"_id": oid(NEWEST - 200 * DAY, 20_000 + (i * 10 + k) as u32), "title": format!("book {i}.{k}"), "author_id": a.get_object_id("_id").expect("oid")});
        }
    }
    let shelves: Vec<Document> = (0..40u32)
        .map(|i| doc! {"_id": oid(NEWEST - 300 * DAY + i, 30_000 + i), "room": format!("room {i}")})
        .collect();
    let mut boxes = Vec::new();
    for (i, s) in shelves.iter().enumerate() {
        for k in 0..=(i % 4) {
            boxes.push(doc! {"_id": oid(NEWEST - 200 * DAY, 40_000 + (i * 10 + k) as u32), "label": format!("box {i}.{k}"), "shelf_id": s.get_object_id("_id").expect("oid")});
        }
    }
    let author_ids: Vec<Value> = authors
        .iter()
        .map(|a| oid_json(&a.get_object_id("_id").expect("oid")))
        .collect();
    let shelf_ids: Vec<Value> = shelves
        .iter()
        .map(|a| oid_json(&a.get_object_id("_id").expect("oid")))
        .collect();
    insert(&db, "authors", authors).await;
    insert(&db, "books", books).await;
    insert(&db, "shelves", shelves).await;
    insert(&db, "boxes", boxes).await;
    index(&db, "books", doc! {"author_id": 1}).await;
    index(&db, "boxes", doc! {"shelf_id": 1}).await;

    let agg = |coll: &str, from: &str, foreign: &str, id: &Value| {
        slow(
            "command",
            &format!("{db}.{coll}"),
            json!({"aggregate": coll, "pipeline": [
                {"$match": {"_id": id}},
                {"$lookup": {"from": from, "localField": "_id", "foreignField": foreign, "as": from}}
            ], "cursor": {}, "$db": db}),
            json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            2,
        )
    };
    let by_id = |coll: &str, id: &Value| {
        find(
            &db,
            coll,
            json!({"_id": id}),
            None,
            json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            1,
        )
    };
    let mut lines = Vec::new();
    for i in 0..100usize {
        let (a, s) = (&author_ids[i % 40], &shelf_ids[i % 40]);
        // 90 of 100 author reads join books; 5 of 100 shelf reads join boxes.
        lines.push(if i < 90 {
            agg("authors", "books", "author_id", a)
        } else {
            by_id("authors", a)
        });
        lines.push(if i < 5 {
            agg("shelves", "boxes", "shelf_id", s)
        } else {
            by_id("shelves", s)
        });
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = audit_json(&db, &log).await;

    let ns = format!("{db}.authors");
    let hot = findings(&r, &ns, "lookup-on-hot-path");
    assert_eq!(hot.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = hot[0];
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["evidence"]["cardinality"], "one-to-few", "{f}");
    assert_eq!(f["evidence"]["fanout"]["max"], 4, "{f}");
    assert_eq!(f["evidence"]["lookups"], 90);
    assert_eq!(f["evidence"]["reads"], 100);
    assert_eq!(f["suggestion"]["pattern"], "embed");
    let s = shape(&r, &ns, "aggregate", "$lookup");
    assert_eq!(s["findings"], json!(["lookup-on-hot-path"]));

    let ok = format!("{db}.shelves");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );

    // The script embeds each author's books.
    let script = f["suggestion"]["migration"].as_str().expect("script");
    migrate::run_once(script, "embed_books");
    let one: Document = client()
        .await
        .database(&db)
        .collection::<Document>("authors")
        .find_one(doc! {"name": "author 3"})
        .await
        .expect("find")
        .expect("author 3");
    assert_eq!(one.get_array("books").map(Vec::len), Ok(4), "{one}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_healthy_workload_of_id_lookups_draws_no_warning() {
    let db = unique_db("wl_ok");
    let users: Vec<Document> = (0..300u32)
        .map(|i| doc! {"_id": oid(NEWEST - i * 3600, i), "name": format!("user {i}"), "visits": i})
        .collect();
    let ids: Vec<Value> = users
        .iter()
        .map(|u| oid_json(&u.get_object_id("_id").expect("oid")))
        .collect();
    insert(&db, "users", users).await;
    let ns = format!("{db}.users");
    let mut lines = Vec::new();
    for i in 0..1000usize {
        lines.push(find(
            &db,
            "users",
            json!({"_id": ids[i % ids.len()]}),
            None,
            json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            1 + (i % 3) as u64,
        ));
        if i % 4 == 0 {
            lines.push(update(
                &ns,
                json!({"_id": ids[i % ids.len()]}),
                json!({"$inc": {"visits": 1}}),
                2,
            ));
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let out = common::docshape_async(&[
        "audit",
        &uri(),
        "-c",
        &format!("{db}.*"),
        "--workload",
        &log,
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "warning",
    ])
    .await;
    let r: Value = serde_json::from_slice(&out.stdout).expect("json");
    let c = common::collection(&r, &ns);
    assert!(workload_findings(&r, &ns).is_empty(), "{}", c["findings"]);
    assert!(
        c["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .all(|f| f["severity"] == "info"),
        "{}",
        c["findings"]
    );
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let shapes = r["workload"]["shapes"].as_array().expect("shapes");
    assert_eq!(shapes.len(), 2);
    assert!(
        shapes.iter().all(|s| s.get("findings").is_none()),
        "{shapes:?}"
    );
}

#[test]
fn a_workload_alone_runs_the_rules_that_read_only_shapes() {
    let mut lines = Vec::new();
    for i in 0..150u64 {
        lines.push(find(
            "shop",
            "orders",
            json!({"status": "A", "qty": {"$gt": 2}}),
            Some(json!({"at": -1})),
            json!({"planSummary": "COLLSCAN", "keysExamined": 0, "docsExamined": 5000, "hasSortStage": true, "nreturned": 20}),
            30 + i % 5,
        ));
        lines.push(find(
            "shop",
            "users",
            json!({"_id": {"$oid": "65f20b835538c55aa02d9e04"}}),
            None,
            json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            1,
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = common::json_ok(&common::docshape(&[
        "audit",
        "--workload",
        &log,
        "--format",
        "json",
        "--fail-on",
        "never",
    ]));
    let found: Vec<&Value> = r["findings"].as_array().expect("findings").iter().collect();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["rule"], "index-esr");
    assert_eq!(found[0]["namespace"], "shop.orders");
    assert_eq!(
        key_order(&found[0]["evidence"]["index"]["key"]),
        pairs(&[("status", 1), ("at", -1), ("qty", 1)])
    );
    let s = shape(&r, "shop.orders", "find", "status");
    assert_eq!(s["findings"], json!(["index-esr"]));
    assert!(r["notes"][0].as_str().expect("note").contains("index-esr"));
}

/// `count` sources of `name` and three copies of each in `copies`, each
/// copy holding the source's id and name under `holder`.
fn sources_and_copies(name: &str, holder: &str, base: u32) -> (Vec<Document>, Vec<Document>) {
    let sources: Vec<Document> = (0..40u32)
        .map(|p| doc! {"_id": oid(NEWEST - 200 * DAY, base + p), "name": format!("{name} {p}"), "city": "Lyon"})
        .collect();
    let copies: Vec<Document> = (0..120u32)
        .map(|i| {
            let s = &sources[(i % 40) as usize];
            doc! {"_id": i, "amount": f64::from(i), holder: {"id": s.get("_id").cloned().expect("_id"), "name": s.get_str("name").expect("name")}}
        })
        .collect();
    (sources, copies)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_copied_field_renamed_often_in_its_source_amplifies_writes() {
    let db = unique_db("wl_copy");
    let (people, invoices) = sources_and_copies("Person", "customer", 40_000);
    let (vendors, bills) = sources_and_copies("Vendor", "vendor", 50_000);
    let ids = |docs: &[Document]| -> Vec<Value> {
        docs.iter()
            .map(|d| oid_json(&d.get_object_id("_id").expect("oid")))
            .collect()
    };
    let (people_ids, vendor_ids) = (ids(&people), ids(&vendors));
    insert(&db, "people", people).await;
    insert(&db, "invoices", invoices).await;
    insert(&db, "vendors", vendors).await;
    insert(&db, "bills", bills).await;
    let by_id = |coll: &str, i: usize| {
        find(
            &db,
            coll,
            json!({"_id": i}),
            None,
            json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            1,
        )
    };
    let mut lines = Vec::new();
    for i in 0..100usize {
        lines.push(by_id("invoices", i));
        lines.push(by_id("bills", i));
    }
    for i in 0..50usize {
        // The planted problem: the copied name is renamed in its source.
        lines.push(update(
            &format!("{db}.people"),
            json!({"_id": people_ids[i % 40]}),
            json!({"$set": {"name": "Renamed"}}),
            2,
        ));
        // The twin: its source changes a field no copy holds.
        lines.push(update(
            &format!("{db}.vendors"),
            json!({"_id": vendor_ids[i % 40]}),
            json!({"$set": {"city": "Paris"}}),
            2,
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = audit_json(&db, &log).await;

    let ns = format!("{db}.invoices");
    let amp = findings(&r, &ns, "write-amplified-copy");
    assert_eq!(amp.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = amp[0];
    assert_eq!(f["path"], "customer");
    assert_eq!(f["evidence"]["fields"], json!(["name"]));
    assert_eq!(f["evidence"]["updates"], 50);
    assert_eq!(f["evidence"]["reads"], 100);
    assert_eq!(f["evidence"]["fanout"]["avg"], 3.0, "{f}");
    assert_eq!(f["suggestion"]["pattern"], "extended-reference");
    let s = shape(&r, &format!("{db}.people"), "update", "$set");
    assert_eq!(s["findings"], json!(["write-amplified-copy"]));

    let ok = format!("{db}.bills");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );
}
