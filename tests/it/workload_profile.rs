//! The workload rules through the profiler: each scenario of
//! `tests/it/workload_rules.rs` is planted on the test server beside its clean
//! twin, its workload is run by an application with the profiler on (level
//! 2, set by the test as an operator would, and set back to 0 after), and
//! `audit URI --workload profile` must find what the log finds, with
//! nothing on the twin.
//!
//! The test server records in `system.profile` the command, its namespace
//! and its milliseconds, but no plan, counters or `appName`: docshape asks
//! `explain` for the plans of the reads (the JSON says so per shape), and
//! `top` answers the reads and writes per collection.

use crate::common;
use crate::scenarios;

use bson::{doc, Bson, Document};
use common::{oid, unique_db, uri, DAY, NEWEST};
use scenarios::{
    builds_index, findings, grows_beyond_a_year, index, insert, key_order, library, orders, pairs,
    posts, shape, sources_and_copies, users, workload_findings,
};
use serde_json::{json, Value};

/// The application the workloads run as.
async fn app() -> mongodb::Client {
    let mut opts = mongodb::options::ClientOptions::parse(uri())
        .await
        .expect("uri");
    opts.app_name = Some("shop-api".into());
    mongodb::Client::with_options(opts).expect("client")
}

/// Sets the profiling level of `db`, as an operator would.
async fn profiling(db: &str, level: i32) {
    common::client()
        .await
        .database(db)
        .run_command(doc! {"profile": level})
        .await
        .unwrap_or_else(|e| panic!("profile {level} on {db}: {e}"));
}

/// Runs `ops` against `db` as the application, with the profiler on
/// (level 2) for just that while.
async fn run_profiled(db: &str, ops: Vec<Document>) {
    let c = app().await;
    let d = c.database(db);
    profiling(db, 2).await;
    for op in ops {
        let reply = d
            .run_command(op.clone())
            .await
            .unwrap_or_else(|e| panic!("{op}: {e}"));
        assert!(!reply.contains_key("writeErrors"), "{op}: {reply}");
    }
    profiling(db, 0).await;
}

fn find(coll: &str, filter: Document, sort: Option<Document>, limit: i64) -> Document {
    let mut f = doc! {"find": coll, "filter": filter, "limit": limit};
    if let Some(s) = sort {
        f.insert("sort", s);
    }
    f
}

fn by_id(coll: &str, id: impl Into<Bson>) -> Document {
    find(coll, doc! {"_id": id.into()}, None, 1)
}

fn update_one(coll: &str, q: Document, u: Document) -> Document {
    doc! {"update": coll, "updates": [{"q": q, "u": u}]}
}

fn lookup_by_id(coll: &str, id: impl Into<Bson>, lookup: Document) -> Document {
    doc! {"aggregate": coll, "pipeline": [{"$match": {"_id": id.into()}}, {"$lookup": lookup}], "cursor": {}}
}

/// `audit URI -c DB.* --workload profile` with `extra` arguments.
async fn audit_with(db: &str, format: &str, extra: &[&str]) -> std::process::Output {
    let target = uri();
    let pattern = format!("{db}.*");
    let mut args = vec![
        "audit",
        &target,
        "-c",
        &pattern,
        "--workload",
        "profile",
        "--format",
        format,
        "--no-snapshot",
        "--lang",
        "en",
    ];
    args.extend_from_slice(extra);
    common::docshape_async(&args).await
}

async fn audit_json(db: &str) -> Value {
    common::json_ok(&audit_with(db, "json", &["--fail-on", "never"]).await)
}

fn oids(docs: &[Document]) -> Vec<bson::oid::ObjectId> {
    docs.iter()
        .map(|d| d.get_object_id("_id").expect("oid"))
        .collect()
}

/// The workload came from the profiler: every entry read, none skipped.
fn from_profile(r: &Value, entries: u64) {
    let w = &r["workload"];
    assert_eq!(w["sources"], json!(["profile"]), "{w}");
    assert_eq!(w["slow_queries"], entries, "{}", w["skipped"]);
    assert!(
        w["skipped"]
            .as_object()
            .is_none_or(serde_json::Map::is_empty),
        "{}",
        w["skipped"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn equality_and_sort_without_an_index_get_one_in_esr_order() {
    let db = unique_db("wp_es");
    insert(&db, "orders", orders()).await;
    insert(&db, "orders_ok", orders()).await;
    index(&db, "orders_ok", doc! {"status": 1, "at": -1}).await;
    let ids: Vec<bson::oid::ObjectId> = (0..50u32)
        .map(|i| oid(NEWEST - (i % 90) * DAY, i))
        .collect();
    let mut ops = Vec::new();
    for i in 0..150usize {
        let status = ["A", "B", "C", "D"][i % 4];
        // The planted problem, and its twin on its index.
        ops.push(find(
            "orders",
            doc! {"status": status},
            Some(doc! {"at": -1}),
            20,
        ));
        ops.push(find(
            "orders_ok",
            doc! {"status": status},
            Some(doc! {"at": -1}),
            20,
        ));
    }
    // Healthy: lookups by _id.
    for i in 0..500usize {
        ops.push(by_id("orders", ids[i % ids.len()]));
    }
    run_profiled(&db, ops).await;
    let r = audit_json(&db).await;
    from_profile(&r, 800);

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
    assert_eq!(ev["plans"]["COLLSCAN"], 150, "{ev}");
    let script = f["suggestion"]["migration"].as_str().expect("script");
    assert!(script.contains("createIndex"), "{script}");

    // The shape names the finding and says its plan came from explain;
    // the healthy _id shape names none.
    let scan = shape(&r, &ns, "find", "status");
    assert_eq!(scan["findings"], json!(["index-esr"]), "{scan}");
    assert_eq!(scan["explained"], 150, "{scan}");
    let by_id = shape(&r, &ns, "find", "_id");
    assert_eq!(by_id["count"], 500);
    assert!(by_id.get("findings").is_none(), "{by_id}");

    // The twin draws nothing.
    let ok = format!("{db}.orders_ok");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );

    // Reads and writes per collection, with where they were counted.
    let counts = &r["workload"]["counts"][&ns];
    assert!(counts["reads"].as_u64() >= Some(650), "{counts}");
    assert!(
        counts["source"] == "top" || counts["source"] == "latencyStats",
        "{counts}"
    );

    // The text report says where the shapes come from.
    let text = common::stdout(&audit_with(&db, "text", &["--fail-on", "never"]).await);
    assert!(text.contains("800 entries of profile"), "{text}");

    // The script builds the index in that order; the same profile read
    // again draws nothing: the plan explain gives now uses it.
    builds_index(
        &db,
        "orders",
        script,
        "esr_index_profile",
        &[("status", 1), ("at", -1)],
    )
    .await;
    let again = audit_json(&db).await;
    assert!(
        findings(&again, &ns, "index-esr").is_empty(),
        "{}",
        common::collection(&again, &ns)["findings"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn equality_sort_and_range_get_exactly_e_s_r() {
    let db = unique_db("wp_esr");
    insert(&db, "orders", orders()).await;
    index(&db, "orders", doc! {"customer": 1}).await;
    insert(&db, "orders_ok", orders()).await;
    index(
        &db,
        "orders_ok",
        doc! {"customer": 1, "status": 1, "at": -1, "qty": 1},
    )
    .await;
    let mut ops = Vec::new();
    for i in 0..120u64 {
        let filter = doc! {"status": "A", "qty": {"$gte": 5}, "customer": format!("c{}", i % 200)};
        ops.push(find("orders", filter.clone(), Some(doc! {"at": -1}), 10));
        ops.push(find("orders_ok", filter, Some(doc! {"at": -1}), 10));
    }
    run_profiled(&db, ops).await;
    let r = audit_json(&db).await;
    from_profile(&r, 240);

    let ns = format!("{db}.orders");
    let esr = findings(&r, &ns, "index-esr");
    assert_eq!(esr.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let idx = &esr[0]["evidence"]["index"];
    // Equality (customer: 200 distinct values before status: 4), sort, range.
    assert_eq!(idx["equality"], json!(["customer", "status"]));
    assert_eq!(idx["sort"], json!([{"at": -1}]));
    assert_eq!(idx["range"], json!(["qty"]));
    assert_eq!(
        key_order(&idx["key"]),
        pairs(&[("customer", 1), ("status", 1), ("at", -1), ("qty", 1)])
    );
    assert_eq!(esr[0]["evidence"]["extends"], "customer_1");
    // Sorting in memory, by the plan explain gives for each run (the test
    // server scans rather than use customer_1; mongod would use it).
    let ev = &esr[0]["evidence"]["shape"];
    let planned: u64 = ev["plans"]
        .as_object()
        .expect("plans")
        .values()
        .filter_map(Value::as_u64)
        .sum();
    assert_eq!(planned, 120, "{ev}");
    assert_eq!(ev["in_memory_sorts"], 120, "{ev}");
    assert_eq!(shape(&r, &ns, "find", "customer")["explained"], 120);

    let ok = format!("{db}.orders_ok");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn push_without_slice_on_a_growing_array() {
    let db = unique_db("wp_push");
    insert(&db, "posts", posts()).await;
    insert(&db, "posts_ok", posts()).await;
    let mut ops = Vec::new();
    for i in 0..200u32 {
        let id = oid(NEWEST - (i % 60) * DAY, 600_000 + i % 60);
        let comment = doc! {"by": "user3", "text": "me too"};
        ops.push(update_one(
            "posts",
            doc! {"_id": id},
            doc! {"$push": {"comments": comment.clone()}},
        ));
        ops.push(update_one(
            "posts_ok",
            doc! {"_id": id},
            doc! {"$push": {"comments": {"$each": [comment], "$slice": -50}}},
        ));
    }
    run_profiled(&db, ops).await;
    let r = audit_json(&db).await;
    from_profile(&r, 400);

    let ns = format!("{db}.posts");
    let push = findings(&r, &ns, "push-without-slice");
    assert_eq!(push.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = push[0];
    assert_eq!(f["path"], "comments");
    grows_beyond_a_year(f);
    assert_eq!(f["evidence"]["shape"]["count"], 200);
    let s = shape(&r, &ns, "update", "$push");
    assert_eq!(s["findings"], json!(["push-without-slice"]));
    assert_eq!(s["multi"], false);

    let ok = format!("{db}.posts_ok");
    assert!(
        findings(&r, &ok, "push-without-slice").is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lookup_of_a_one_to_few_relationship_on_most_reads() {
    let db = unique_db("wp_lookup");
    let (authors, books, shelves, boxes) = library();
    let (author_ids, shelf_ids) = (oids(&authors), oids(&shelves));
    insert(&db, "authors", authors).await;
    insert(&db, "books", books).await;
    insert(&db, "shelves", shelves).await;
    insert(&db, "boxes", boxes).await;
    index(&db, "books", doc! {"author_id": 1}).await;
    index(&db, "boxes", doc! {"shelf_id": 1}).await;
    let join = |from: &str, foreign: &str| {
        doc! {"from": from, "localField": "_id", "foreignField": foreign, "as": from}
    };
    let mut ops = Vec::new();
    for i in 0..100usize {
        let (a, s) = (author_ids[i % 40], shelf_ids[i % 40]);
        // 90 of 100 author reads join books; 5 of 100 shelf reads join boxes.
        ops.push(if i < 90 {
            lookup_by_id("authors", a, join("books", "author_id"))
        } else {
            by_id("authors", a)
        });
        ops.push(if i < 5 {
            lookup_by_id("shelves", s, join("boxes", "shelf_id"))
        } else {
            by_id("shelves", s)
        });
    }
    run_profiled(&db, ops).await;
    let r = audit_json(&db).await;
    from_profile(&r, 200);

    let ns = format!("{db}.authors");
    let hot = findings(&r, &ns, "lookup-on-hot-path");
    assert_eq!(hot.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = hot[0];
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["evidence"]["cardinality"], "one-to-few", "{f}");
    assert_eq!(f["evidence"]["fanout"]["max"], 4, "{f}");
    assert_eq!(f["evidence"]["lookups"], 90);
    assert_eq!(f["evidence"]["reads"], 100);
    // The server's own count of the reads, and its source, beside them.
    assert!(
        f["evidence"]["server_counts"]["reads"].as_u64() >= Some(100),
        "{f}"
    );
    assert_eq!(f["suggestion"]["pattern"], "embed");
    let s = shape(&r, &ns, "aggregate", "$lookup");
    assert_eq!(s["findings"], json!(["lookup-on-hot-path"]));

    let ok = format!("{db}.shelves");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_copied_field_renamed_often_in_its_source_amplifies_writes() {
    let db = unique_db("wp_copy");
    let (people, invoices) = sources_and_copies("Person", "customer", 40_000);
    let (vendors, bills) = sources_and_copies("Vendor", "vendor", 50_000);
    let (people_ids, vendor_ids) = (oids(&people), oids(&vendors));
    insert(&db, "people", people).await;
    insert(&db, "invoices", invoices).await;
    insert(&db, "vendors", vendors).await;
    insert(&db, "bills", bills).await;
    let mut ops = Vec::new();
    for i in 0..100i32 {
        ops.push(by_id("invoices", i));
        ops.push(by_id("bills", i));
    }
    for i in 0..50usize {
        // The planted problem: the copied name is renamed in its source;
        // the twin's source changes a field no copy holds.
        ops.push(update_one(
            "people",
            doc! {"_id": people_ids[i % 40]},
            doc! {"$set": {"name": format!("Renamed {i}")}},
        ));
        ops.push(update_one(
            "vendors",
            doc! {"_id": vendor_ids[i % 40]},
            doc! {"$set": {"city": "Paris"}},
        ));
    }
    run_profiled(&db, ops).await;
    let r = audit_json(&db).await;
    from_profile(&r, 300);

    let ns = format!("{db}.invoices");
    let amp = findings(&r, &ns, "write-amplified-copy");
    assert_eq!(amp.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = amp[0];
    assert_eq!(f["path"], "customer");
    assert_eq!(f["evidence"]["fields"], json!(["name"]));
    assert_eq!(f["evidence"]["updates"], 50);
    assert_eq!(f["evidence"]["reads"], 100);
    assert_eq!(f["evidence"]["fanout"]["avg"], 3.0, "{f}");
    // The server's counts: the source written at least 50 times, the
    // copies read at least 100.
    let counted = &f["evidence"]["server_counts"];
    assert!(counted["source"]["writes"].as_u64() >= Some(50), "{f}");
    assert!(counted["copies"]["reads"].as_u64() >= Some(100), "{f}");
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

#[tokio::test(flavor = "multi_thread")]
async fn a_healthy_workload_of_id_lookups_draws_no_warning() {
    let db = unique_db("wp_ok");
    let users = users();
    let ids = oids(&users);
    insert(&db, "users", users).await;
    let mut ops = Vec::new();
    for i in 0..1000usize {
        ops.push(by_id("users", ids[i % ids.len()]));
        if i % 4 == 0 {
            ops.push(update_one(
                "users",
                doc! {"_id": ids[i % ids.len()]},
                doc! {"$inc": {"visits": 1}},
            ));
        }
    }
    run_profiled(&db, ops).await;
    let out = audit_with(&db, "json", &["--fail-on", "warning"]).await;
    let r: Value = serde_json::from_slice(&out.stdout).expect("json");
    from_profile(&r, 1250);
    let ns = format!("{db}.users");
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
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        common::stderr(&out),
        r["findings"]
    );
    let shapes = r["workload"]["shapes"].as_array().expect("shapes");
    assert_eq!(shapes.len(), 2, "{shapes:?}");
    assert!(
        shapes.iter().all(|s| s.get("findings").is_none()),
        "{shapes:?}"
    );
}

/// A server whose profiler never ran: a note saying how to turn it on,
/// never an error, and the level left as it was.
#[tokio::test(flavor = "multi_thread")]
async fn profiling_off_is_a_note_with_how_to_turn_it_on() {
    let db = unique_db("wp_off");
    insert(&db, "users", users()).await;
    let out = audit_with(&db, "json", &["--fail-on", "warning"]).await;
    assert_eq!(out.status.code(), Some(0), "{}", common::stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["workload"]["sources"], json!(["profile"]));
    assert_eq!(r["workload"]["slow_queries"], 0);
    let notes: Vec<&str> = r["notes"]
        .as_array()
        .expect("notes")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.contains(&format!("{db}.system.profile is empty"))
                && n.contains("setProfilingLevel(1, {slowms: 100})")),
        "{notes:?}"
    );
    // The test server has no $queryStats: said, not failed.
    assert!(
        notes
            .iter()
            .any(|n| n.contains("$queryStats was not answered")),
        "{notes:?}"
    );
    let level = common::client()
        .await
        .database(&db)
        .run_command(doc! {"profile": -1})
        .await
        .expect("level");
    assert_eq!(
        docshape::source::bson_as_i64(level.get("was").expect("was")),
        Some(0)
    );
}

/// `audit --workload profile` with no target: the profiler of the server
/// `$MONGODB_URI` names, as a workload-only report (no collection read),
/// as for a log read without its target; the shape-only rules run.
#[tokio::test(flavor = "multi_thread")]
async fn without_a_target_the_default_servers_profiler_alone_is_reported() {
    let db = unique_db("wp_only");
    insert(&db, "orders", orders()).await;
    let mut ops = Vec::new();
    for i in 0..150usize {
        let status = ["A", "B", "C", "D"][i % 4];
        ops.push(find(
            "orders",
            doc! {"status": status},
            Some(doc! {"at": -1}),
            20,
        ));
    }
    run_profiled(&db, ops).await;
    let target = uri();
    let out = tokio::task::spawn_blocking(move || {
        common::docshape_env(
            &[
                "audit",
                "--workload",
                "profile",
                "--db",
                &db,
                "--format",
                "json",
                "--fail-on",
                "never",
                "--lang",
                "en",
            ],
            &[("MONGODB_URI", target.as_str())],
        )
    })
    .await
    .expect("join");
    let r = common::json_ok(&out);
    assert!(
        common::stderr(&out).contains("reading the profiler of $MONGODB_URI"),
        "{}",
        common::stderr(&out)
    );
    assert_eq!(r["collections"], json!([]), "no collection is read");
    assert_eq!(r["sampling"]["mode"], "none");
    from_profile(&r, 150);
    let rules: Vec<&str> = r["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(rules.contains(&"index-esr"), "{rules:?}");
}
