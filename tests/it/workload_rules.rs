//! The workload rules on the test server: each problem is planted in a
//! collection and in a `mongod` log written in the real 4.4+ JSON format
//! (the structure of a "Slow query" line of
//! `../shared/realdata/logs/sample-mongod.log.gz`), beside a clean twin
//! that must draw nothing; `audit --workload` must find the problem, name
//! the shape, and suggest a script that `mongosh` runs.

#![allow(clippy::needless_pass_by_value)] // log lines are built from owned JSON values

use crate::common;
use crate::common::mongod_log;
use crate::migrate;
use crate::scenarios;

use bson::{doc, Bson, Document};
use common::{client, oid, unique_db, uri, DAY, NEWEST};
use futures_util::TryStreamExt;
use mongod_log::{find, slow};
use scenarios::{
    builds_index, findings, grows_beyond_a_year, ids, index, index_keys, insert, key_order,
    library, oid_json, orders, pairs, posts, shape, sources_and_copies, users, workload_findings,
};
use serde_json::{json, Value};

/// A find of `db.coll` by `_id`.
fn by_id(db: &str, coll: &str, id: Value) -> String {
    find(
        db,
        coll,
        json!({"_id": id}),
        None,
        json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
        1,
    )
}

/// An aggregation of `db.coll` matching `_id` then running `lookup`.
fn lookup_by_id(db: &str, coll: &str, id: &Value, lookup: Value) -> String {
    slow(
        "command",
        &format!("{db}.{coll}"),
        json!({"aggregate": coll, "pipeline": [{"$match": {"_id": id}}, {"$lookup": lookup}], "cursor": {}, "$db": db}),
        json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
        2,
    )
}

/// Writes the log; its path.
fn write_log(dir: &tempfile::TempDir, lines: &[String]) -> String {
    let p = dir.path().join("mongod.log");
    std::fs::write(&p, lines.join("\n") + "\n").expect("write log");
    p.to_str().expect("utf-8").to_owned()
}

async fn audit(db: &str, log: &str, format: &str) -> std::process::Output {
    audit_with(db, log, format, &[]).await
}

/// `audit --workload LOG` of `db`'s collections, with `extra` arguments.
async fn audit_with(db: &str, log: &str, format: &str, extra: &[&str]) -> std::process::Output {
    let pattern = format!("{db}.*");
    let mut args = vec![
        "audit",
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
    ];
    args.extend_from_slice(extra);
    let target = uri();
    args.insert(1, &target);
    common::docshape_async(&args).await
}

async fn audit_json(db: &str, log: &str) -> Value {
    common::json_ok(&audit(db, log, "json").await)
}

/// [`audit_json`] with a `docshape.toml` holding `config`.
async fn audit_json_with(db: &str, log: &str, config: &str) -> Value {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cfg = tmp.path().join("docshape.toml");
    std::fs::write(&cfg, config).expect("write docshape.toml");
    let cfg = cfg.to_str().expect("utf-8 path");
    common::json_ok(&audit_with(db, log, "json", &["--config", cfg]).await)
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
    builds_index(
        &db,
        "orders",
        script,
        "esr_index",
        &[("status", 1), ("at", -1)],
    )
    .await;

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
    let again = audit_json(&db, &log).await;
    assert!(
        workload_findings(&again, &ns).is_empty(),
        "{}",
        common::collection(&again, &ns)["findings"]
    );
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
    grows_beyond_a_year(f);
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

    // Keeping at most 50: the script moves every comment to a child
    // collection and keeps the last 50 in each post (the 34 posts over it
    // are trimmed); the writer's `$slice` keeps them there.
    let keep50 = "[push-without-slice]\nkeep = 50\n";
    let kept = audit_json_with(&db, &log, keep50).await;
    let slice = findings(&kept, &ns, "push-without-slice")[0];
    assert!(
        matches!(slice["suggestion"]["summary"].as_str(), Some(s) if s.contains("$slice: -50")),
        "{slice}"
    );
    assert_eq!(
        slice["suggestion"]["effect"]["elements_kept"], 50,
        "{slice}"
    );
    let script = slice["suggestion"]["migration"].as_str().expect("script");
    let before = migrate::dump(&db).await;
    migrate::run_twice(&db, script, "slice_push").await;
    migrate::nothing_dropped(&db, &before, "slice_push").await;
    let database = client().await.database(&db);
    let history = migrate::all(&database.collection::<Document>("posts_comments")).await;
    let originals = posts();
    assert_eq!(history.len(), (0..60).map(|i| 2 * i).sum::<usize>());
    for post in migrate::all(&database.collection::<Document>("posts")).await {
        let id = post.get_object_id("_id").expect("_id");
        let was = originals
            .iter()
            .find(|o| o.get_object_id("_id").ok() == Some(id))
            .and_then(|o| o.get_array("comments").ok())
            .expect("the post as inserted");
        let now = post.get_array("comments").expect("comments kept");
        let from = was.len().saturating_sub(50);
        assert_eq!(now.as_slice(), &was[from..], "post {id}: the last 50 kept");
        // Every comment is in the child collection at its position.
        let mut mine: Vec<(i64, Document)> = history
            .iter()
            .filter(|h| h.get_object_id("post_id").ok() == Some(id))
            .map(|h| {
                let pos = h
                    .get("position")
                    .and_then(migrate::number)
                    .expect("position") as i64;
                let mut element = h.clone();
                for k in ["_id", "position", "post_id"] {
                    element.remove(k);
                }
                (pos, element)
            })
            .collect();
        mine.sort_by_key(|(pos, _)| *pos);
        let elements: Vec<Bson> = mine.into_iter().map(|(_, e)| Bson::Document(e)).collect();
        assert_eq!(&elements, was, "post {id}: every comment in order");
    }
    // Re-audited with the same log the writer still pushes without $slice:
    // the finding stays, on arrays now of at most 50.
    let again = audit_json_with(&db, &log, keep50).await;
    let still = findings(&again, &ns, "push-without-slice")[0];
    assert_eq!(still["evidence"]["array_length"]["max"], 50, "{still}");
    // The writer as the summary says: nothing left to report.
    let bounded: Vec<String> = (0..200u32)
        .map(|i| {
            update(
                &ns,
                json!({"_id": oid_json(&oid(NEWEST - (i % 60) * DAY, 600_000 + i % 60))}),
                json!({"$push": {"comments": {"$each": [{"by": "user3", "text": "me too"}], "$slice": -50}}}),
                3,
            )
        })
        .collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &bounded);
    let fixed = audit_json_with(&db, &log, keep50).await;
    assert!(
        findings(&fixed, &ns, "push-without-slice").is_empty(),
        "{}",
        common::collection(&fixed, &ns)["findings"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_lookup_of_a_one_to_few_relationship_on_most_reads() {
    let db = unique_db("wl_lookup");
    // Authors with one to four books each (one-to-few), and shelves with
    // one to four boxes each, joined on few reads (the twin).
    let (authors, books, shelves, boxes) = library();
    let (author_ids, shelf_ids) = (ids(&authors), ids(&shelves));
    insert(&db, "authors", authors).await;
    insert(&db, "books", books).await;
    insert(&db, "shelves", shelves).await;
    insert(&db, "boxes", boxes).await;
    index(&db, "books", doc! {"author_id": 1}).await;
    index(&db, "boxes", doc! {"shelf_id": 1}).await;

    let agg = |coll: &str, from: &str, foreign: &str, id: &Value| {
        lookup_by_id(
            &db,
            coll,
            id,
            json!({"from": from, "localField": "_id", "foreignField": foreign, "as": from}),
        )
    };
    let mut lines = Vec::new();
    for i in 0..100usize {
        let (a, s) = (&author_ids[i % 40], &shelf_ids[i % 40]);
        // 90 of 100 author reads join books; 5 of 100 shelf reads join boxes.
        lines.push(if i < 90 {
            agg("authors", "books", "author_id", a)
        } else {
            by_id(&db, "authors", a.clone())
        });
        lines.push(if i < 5 {
            agg("shelves", "boxes", "shelf_id", s)
        } else {
            by_id(&db, "shelves", s.clone())
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

    // The script embeds each author's books: every author holds exactly
    // the books that reference it, as they are in `books`.
    let script = f["suggestion"]["migration"].as_str().expect("script");
    migrate::run_twice(&db, script, "embed_books").await;
    let d = client().await.database(&db);
    let books = migrate::all(&d.collection::<Document>("books")).await;
    for a in migrate::all(&d.collection::<Document>("authors")).await {
        let id = a.get_object_id("_id").expect("_id");
        let mut embedded: Vec<Document> = a
            .get_array("books")
            .unwrap_or_else(|_| panic!("{a}"))
            .iter()
            .map(|b| b.as_document().cloned().expect("a book"))
            .collect();
        embedded.sort_by_key(|b| b.get_object_id("_id").ok());
        let mut theirs: Vec<Document> = books
            .iter()
            .filter(|b| b.get_object_id("author_id").ok() == Some(id))
            .cloned()
            .collect();
        theirs.sort_by_key(|b| b.get_object_id("_id").ok());
        assert!(!theirs.is_empty());
        assert_eq!(embedded, theirs, "author {id}");
        assert_eq!(a.len(), 3, "only the books were added: {a}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn lookups_of_many_get_the_index_and_lookups_of_one_a_copy() {
    let db = unique_db("wl_many");
    // 4 authors with 120 books each (one-to-many), books.author_id not
    // indexed.
    let authors: Vec<Document> = (0..4u32)
        .map(|i| doc! {"_id": oid(NEWEST - 300 * DAY + i, 70_000 + i), "name": format!("author {i}")})
        .collect();
    let books: Vec<Document> = (0..480u32)
        .map(|k| doc! {"_id": oid(NEWEST - 200 * DAY, 80_000 + k), "title": format!("book {k}"), "author_id": authors[(k % 4) as usize].get_object_id("_id").expect("oid")})
        .collect();
    let (author_ids, book_ids) = (ids(&authors), ids(&books));
    insert(&db, "authors", authors).await;
    insert(&db, "books", books).await;
    let mut lines = Vec::new();
    for i in 0..100usize {
        // 90 of 100 author reads join their books; 60 of 100 book reads
        // join their author.
        let (a, b) = (&author_ids[i % 4], &book_ids[i * 4]);
        lines.push(if i < 90 {
            lookup_by_id(&db, "authors", a, json!({"from": "books", "localField": "_id", "foreignField": "author_id", "as": "books"}))
        } else {
            by_id(&db, "authors", a.clone())
        });
        lines.push(if i < 60 {
            lookup_by_id(&db, "books", b, json!({"from": "authors", "localField": "author_id", "foreignField": "_id", "as": "author"}))
        } else {
            by_id(&db, "books", b.clone())
        });
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = audit_json(&db, &log).await;

    // Many books per author: keep the reference, index it.
    let ns = format!("{db}.authors");
    let hot = findings(&r, &ns, "lookup-on-hot-path");
    assert_eq!(hot.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = hot[0];
    assert_eq!(f["severity"], "info", "{f}");
    assert_eq!(f["evidence"]["cardinality"], "one-to-many", "{f}");
    assert_eq!(f["evidence"]["fanout"]["max"], 120, "{f}");
    assert_eq!(f["suggestion"]["pattern"], "index");
    let index_script = f["suggestion"]["migration"].as_str().expect("script");

    // One author per book: copy it (extended reference).
    let books_ns = format!("{db}.books");
    let hot = findings(&r, &books_ns, "lookup-on-hot-path");
    assert_eq!(
        hot.len(),
        1,
        "{}",
        common::collection(&r, &books_ns)["findings"]
    );
    let g = hot[0];
    assert_eq!(g["severity"], "warning", "{g}");
    assert_eq!(g["evidence"]["cardinality"], "one-to-one", "{g}");
    assert_eq!(g["suggestion"]["pattern"], "extended-reference");
    assert!(
        !findings(&r, &books_ns, "missing-reference-index").is_empty(),
        "{}",
        common::collection(&r, &books_ns)["findings"]
    );
    let copy_script = g["suggestion"]["migration"].as_str().expect("script");

    // The index script builds books.author_id; the same log re-audited
    // then draws neither this finding nor missing-reference-index.
    builds_index(
        &db,
        "books",
        index_script,
        "lookup_index",
        &[("author_id", 1)],
    )
    .await;
    let again = audit_json(&db, &log).await;
    assert!(
        findings(&again, &ns, "lookup-on-hot-path").is_empty(),
        "{}",
        common::collection(&again, &ns)["findings"]
    );
    assert!(
        findings(&again, &books_ns, "missing-reference-index").is_empty(),
        "{}",
        common::collection(&again, &books_ns)["findings"]
    );

    // The copy script gives each book its author as it is in `authors`,
    // beside the reference it was found by.
    let before = migrate::dump(&db).await;
    migrate::run_twice(&db, copy_script, "lookup_copy").await;
    migrate::nothing_dropped(&db, &before, "lookup_copy").await;
    let d = client().await.database(&db);
    let authors = migrate::all(&d.collection::<Document>("authors")).await;
    for b in migrate::all(&d.collection::<Document>("books")).await {
        let id = b.get_object_id("author_id").expect("reference kept");
        let copy = b.get_document("author").unwrap_or_else(|_| panic!("{b}"));
        let source = authors
            .iter()
            .find(|a| a.get_object_id("_id").ok() == Some(id))
            .expect("its author");
        assert_eq!(copy, source, "{b}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_healthy_workload_of_id_lookups_draws_no_warning() {
    let db = unique_db("wl_ok");
    let users = users();
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

#[tokio::test(flavor = "multi_thread")]
async fn a_copied_field_renamed_often_in_its_source_amplifies_writes() {
    let db = unique_db("wl_copy");
    let (people, invoices) = sources_and_copies("Person", "customer", 40_000);
    let (vendors, bills) = sources_and_copies("Vendor", "vendor", 50_000);
    let (people_ids, vendor_ids) = (ids(&people), ids(&vendors));
    insert(&db, "people", people).await;
    insert(&db, "invoices", invoices).await;
    insert(&db, "vendors", vendors).await;
    insert(&db, "bills", bills).await;
    let mut lines = Vec::new();
    for i in 0..100usize {
        lines.push(by_id(&db, "invoices", json!(i)));
        lines.push(by_id(&db, "bills", json!(i)));
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

    // The script stops copying the name: each invoice keeps the reference
    // and its own fields, the name is read from `people` (where every
    // value still is); re-audited with the same log, nothing is copied
    // that its source rewrites.
    let script = f["suggestion"]["migration"].as_str().expect("script");
    let before = migrate::dump(&db).await;
    migrate::run_twice(&db, script, "stop_copying").await;
    migrate::nothing_dropped(&db, &before, "stop_copying").await;
    let d = client().await.database(&db);
    let (people, _) = sources_and_copies("Person", "customer", 40_000);
    let was = &before["invoices"];
    for inv in migrate::all(&d.collection::<Document>("invoices")).await {
        let old = &was[&format!("{:?}", inv.get("_id"))];
        let mut expected = old.clone();
        expected
            .get_document_mut("customer")
            .expect("customer")
            .remove("name");
        assert_eq!(inv, expected, "only the copied name is gone");
        let id = inv
            .get_document("customer")
            .and_then(|c| c.get_object_id("id"))
            .expect("reference kept");
        assert!(people
            .iter()
            .any(|p| p.get_object_id("_id").ok() == Some(id)));
    }
    assert_eq!(before["bills"], migrate::dump(&db).await["bills"]);
    let again = audit_json(&db, &log).await;
    for rule in ["write-amplified-copy", "denormalization-drift"] {
        assert!(
            findings(&again, &ns, rule).is_empty(),
            "{rule}: {}",
            common::collection(&again, &ns)["findings"]
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rare_scan_of_a_large_collection_gets_its_index() {
    let db = unique_db("wl_scan");
    // 10,000 events (the rule's smallest collection that matters), 500
    // users; the twin has the index on user.
    let events = || -> Vec<Document> {
        (0..10_000u32)
            .map(|i| {
                let kind = if i % 2 == 0 { "view" } else { "click" };
                doc! {"_id": i64::from(i), "user": format!("u{}", i % 500), "kind": kind}
            })
            .collect()
    };
    insert(&db, "events", events()).await;
    insert(&db, "events_ok", events()).await;
    index(&db, "events_ok", doc! {"user": 1}).await;
    let mut lines = Vec::new();
    // Three runs a day: not frequent (index-esr's), but each scans the
    // whole collection for 20 documents.
    for i in 0..3u64 {
        let filter = json!({"user": format!("u{i}")});
        lines.push(find(
            &db,
            "events",
            filter.clone(),
            None,
            json!({"planSummary": "COLLSCAN", "keysExamined": 0, "docsExamined": 10_000, "nreturned": 20}),
            9,
        ));
        lines.push(find(
            &db,
            "events_ok",
            filter,
            None,
            json!({"planSummary": "IXSCAN { user: 1 }", "keysExamined": 20, "docsExamined": 20, "nreturned": 20}),
            1,
        ));
    }
    // Most of the workload's time: lookups by _id elsewhere.
    for i in 0..90u64 {
        lines.push(find(
            &db,
            "events_ok",
            json!({"_id": i}),
            None,
            json!({"planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            40,
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = audit_json(&db, &log).await;

    let ns = format!("{db}.events");
    let scan = findings(&r, &ns, "unindexed-query");
    assert_eq!(scan.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = scan[0];
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["evidence"]["documents"], 10_000);
    assert_eq!(f["evidence"]["shape"]["docs_examined_per_returned"], 500.0);
    assert_eq!(
        key_order(&f["evidence"]["index"]["key"]),
        pairs(&[("user", 1)])
    );
    assert!(findings(&r, &ns, "index-esr").is_empty());
    let ok = format!("{db}.events_ok");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );

    // The script builds that index; the same log re-audited draws nothing.
    let script = f["suggestion"]["migration"].as_str().expect("script");
    builds_index(&db, "events", script, "scan_index", &[("user", 1)]).await;
    let again = audit_json(&db, &log).await;
    assert!(
        workload_findings(&again, &ns).is_empty(),
        "{}",
        common::collection(&again, &ns)["findings"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_case_insensitive_regex_gets_a_collation_index_that_matches_alike() {
    let db = unique_db("wl_regex");
    // Names in mixed case; both collections have a plain index on name.
    let users = || -> Vec<Document> {
        (0..300u32)
            .map(|i| {
                let name = match i % 3 {
                    0 => format!("Ann{i}"),
                    1 => format!("ANN{i}"),
                    _ => format!("ann{i}"),
                };
                doc! {"_id": i64::from(i), "name": name, "visits": i}
            })
            .collect()
    };
    insert(&db, "users", users()).await;
    insert(&db, "users_ok", users()).await;
    index(&db, "users", doc! {"name": 1}).await;
    index(&db, "users_ok", doc! {"name": 1}).await;
    let mut lines = Vec::new();
    for i in 0..120u64 {
        // The planted problem: /^ann7$/i reads every key of the index.
        let pattern = format!("^ann{}$", i % 300);
        lines.push(find(
            &db,
            "users",
            json!({"name": {"$regularExpression": {"pattern": pattern, "options": "i"}}}),
            None,
            json!({"planSummary": "IXSCAN { name: 1 }", "keysExamined": 300, "docsExamined": 1, "nreturned": 1}),
            4,
        ));
        // The twin: equality on an exact name.
        lines.push(find(
            &db,
            "users_ok",
            json!({"name": format!("Ann{}", i % 300)}),
            None,
            json!({"planSummary": "IXSCAN { name: 1 }", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            1,
        ));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = write_log(&dir, &lines);
    let r = audit_json(&db, &log).await;

    let ns = format!("{db}.users");
    let rx = findings(&r, &ns, "case-insensitive-regex");
    assert_eq!(rx.len(), 1, "{}", common::collection(&r, &ns)["findings"]);
    let f = rx[0];
    assert_eq!(f["severity"], "info");
    assert_eq!(f["path"], "name");
    assert_eq!(f["evidence"]["shape"]["count"], 120);
    assert_eq!(f["suggestion"]["pattern"], "index");
    let s = shape(&r, &ns, "find", "name");
    assert_eq!(s["findings"], json!(["case-insensitive-regex"]));
    let ok = format!("{db}.users_ok");
    assert!(
        workload_findings(&r, &ok).is_empty(),
        "{}",
        common::collection(&r, &ok)["findings"]
    );

    // The script adds the collation index beside the plain one ...
    let script = f["suggestion"]["migration"].as_str().expect("script");
    migrate::run_twice(&db, script, "collation_index").await;
    let c = client().await.database(&db).collection::<Document>("users");
    let specs: Vec<mongodb::IndexModel> = c
        .list_indexes()
        .await
        .expect("list indexes")
        .try_collect()
        .await
        .expect("indexes");
    let ci = specs
        .iter()
        .find(|m| {
            m.options
                .as_ref()
                .and_then(|o| o.collation.as_ref())
                .is_some_and(|c| {
                    matches!(
                        c.strength,
                        Some(mongodb::options::CollationStrength::Secondary)
                    )
                })
        })
        .unwrap_or_else(|| panic!("no strength-2 index: {specs:?}"));
    let ci_name = ci.options.as_ref().and_then(|o| o.name.clone());
    let keys = index_keys(&db, "users").await;
    assert_eq!(keys.len(), 3, "_id, name_1 and the new one: {keys:?}");
    assert!(
        keys.iter()
            .any(|(n, k)| Some(n) == ci_name.as_ref() && *k == pairs(&[("name", 1)])),
        "{keys:?}"
    );
    // ... and an equality under its collation finds what the regex found:
    // every case of the name, and nothing else.
    let collation = mongodb::options::Collation::builder()
        .locale("en")
        .strength(mongodb::options::CollationStrength::Secondary)
        .build();
    for i in [0u32, 1, 2, 7, 299] {
        let found: Vec<Document> = c
            .find(doc! {"name": format!("aNn{i}")})
            .collation(collation.clone())
            .await
            .expect("find")
            .try_collect()
            .await
            .expect("collect");
        let by_regex: Vec<Document> = c
            .find(doc! {"name": {"$regex": format!("^ann{i}$"), "$options": "i"}})
            .await
            .expect("find")
            .try_collect()
            .await
            .expect("collect");
        assert_eq!(found.len(), 1, "aNn{i}: {found:?}");
        assert_eq!(found, by_regex, "aNn{i}");
    }
    // Re-audited with the same log: the fix is in place.
    let again = audit_json(&db, &log).await;
    assert!(
        findings(&again, &ns, "case-insensitive-regex").is_empty(),
        "{}",
        common::collection(&again, &ns)["findings"]
    );
}
