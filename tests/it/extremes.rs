//! Whole-collection extremes: the one document near 16 MiB and the one
//! array of 10,000+ elements, hidden among tens of thousands of ordinary
//! documents, are reported by a default (sampled) `audit` with
//! `scope: collection` — from a server (one aggregation), from a `.bson`
//! file (a skim of its length prefixes) and from an Extended JSON file
//! (sizes tallied as the sample is drawn); the clean twin reports nothing,
//! and `--no-extremes` goes back to what the sample alone shows.

use crate::common;

use std::collections::BTreeMap;

use bson::{doc, Document};
use serde_json::Value;

use common::{client, collection, docshape_async, json_ok, unique_db, uri, write_bson};

/// Ordinary documents per collection.
const ORDINARY: i64 = 20_000;
/// Where the outlier hides (any position will do; not the first or last).
const HIDDEN_AT: i64 = 13_337;
/// Size rules and the array rule, the ones extremes feed.
const SIZE_RULES: [&str; 3] = ["document-near-limit", "bloated-document", "unbounded-array"];

fn ordinary(i: i64) -> Document {
    // No field could reference another collection's `_id`: a reference
    // candidate would be probed, and the probes depend on the sample.
    doc! {"_id": i, "k": format!("k{}", i % 7), "tags": ["a", "b", "c"], "name": format!("customer {i}")}
}

/// `ORDINARY` documents, one of them replaced by `outlier` (when given).
fn documents(outlier: Option<Document>) -> Vec<Document> {
    let mut docs: Vec<Document> = (0..ORDINARY).map(ordinary).collect();
    if let Some(o) = outlier {
        docs[usize::try_from(HIDDEN_AT).expect("an index")] = o;
    }
    docs
}

/// A document over 12 MiB (13 MiB of one string).
fn huge() -> Document {
    let mut d = ordinary(HIDDEN_AT);
    d.insert("blob", "z".repeat(13 << 20));
    d
}

/// A document whose `tags` holds 12,000 strings.
fn long_array() -> Document {
    let mut d = ordinary(HIDDEN_AT);
    let tags: Vec<String> = (0..12_000).map(|j| format!("t{j}")).collect();
    d.insert("tags", tags);
    d
}

/// `audit` of the test server's `what` (`--db DB` or `-c NS`) as JSON,
/// with `extra` arguments.
async fn audit_of(what: Vec<String>, extra: &[&str]) -> Value {
    let target = uri();
    let mut args = vec!["audit", target.as_str()];
    args.extend(what.iter().map(String::as_str));
    args.extend_from_slice(&["--format", "json", "--no-snapshot", "--fail-on", "never"]);
    args.extend_from_slice(extra);
    json_ok(&docshape_async(&args).await)
}

fn findings<'a>(c: &'a Value, rule: &str) -> Vec<&'a Value> {
    c["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

fn size_findings(c: &Value) -> Vec<&Value> {
    SIZE_RULES.iter().flat_map(|r| findings(c, r)).collect()
}

fn trips(c: &Value) -> BTreeMap<String, u64> {
    serde_json::from_value(c["round_trips"].clone()).expect("round_trips by command")
}

/// What the sample alone shows, read from the report itself: the largest
/// sampled document and the longest sampled `tags`.
fn sample_sees(c: &Value) -> (u64, u64) {
    let max_size = c["doc_size"]["max"].as_u64().expect("doc_size.max");
    let tags = c["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .find(|f| f["path"] == "tags")
        .expect("tags profiled");
    (
        max_size,
        tags["array"]["max"].as_u64().expect("tags.array.max"),
    )
}

/// With `--no-extremes`, the size and array findings are the sample's:
/// present exactly when the sample happened to hold the outlier, and then
/// with `scope: sample`.
fn assert_sample_only(c: &Value, what: &str) {
    assert!(c.get("extremes").is_none(), "{what}: no extremes measured");
    let (max_size, longest) = sample_sees(c);
    let near = findings(c, "document-near-limit");
    assert_eq!(
        !near.is_empty(),
        max_size >= 10_000_000,
        "{what}: document-near-limit follows the sample (largest sampled {max_size} B): {near:?}"
    );
    let arrays = findings(c, "unbounded-array");
    assert_eq!(
        !arrays.is_empty(),
        longest >= 250,
        "{what}: unbounded-array follows the sample (longest sampled {longest}): {arrays:?}"
    );
    for f in size_findings(c) {
        assert_eq!(f["evidence"]["scope"], "sample", "{what}: {f}");
    }
}

#[tokio::test]
async fn outliers_hidden_in_a_server_collection_are_reported_with_collection_scope() {
    let client = client().await;
    let db = unique_db("extremes");
    let database = client.database(&db);
    for (name, outlier) in [
        ("huge", Some(huge())),
        ("long", Some(long_array())),
        ("clean", None),
    ] {
        let coll = database.collection::<Document>(name);
        for batch in documents(outlier).chunks(5_000) {
            coll.insert_many(batch.to_vec())
                .await
                .unwrap_or_else(|e| panic!("insert into {db}.{name}: {e}"));
        }
    }
    let audit = |extra: &'static [&'static str]| audit_of(vec!["--db".into(), db.clone()], extra);
    let report = audit(&[]).await;

    let huge = collection(&report, &format!("{db}.huge"));
    assert!(huge["sampled"].as_u64().expect("sampled") < ORDINARY as u64);
    let e = &huge["extremes"];
    assert_eq!(e["scope"], "collection", "{e}");
    assert_eq!(e["method"], "server-aggregation", "{e}");
    assert_eq!(e["documents"], ORDINARY, "{e}");
    assert_eq!(e["largest"][0]["id"], HIDDEN_AT, "{e}");
    assert!(e["largest"][0]["bytes"].as_u64().expect("bytes") > 13 << 20);
    assert_eq!(e["largest"].as_array().expect("largest").len(), 5);
    let over = |name: &str| {
        e["over"]
            .as_array()
            .expect("over")
            .iter()
            .find(|o| o["threshold"] == name)
            .unwrap_or_else(|| panic!("no count for {name}: {e}"))["documents"]
            .clone()
    };
    assert_eq!(over("document-near-limit.critical-bytes"), 1);
    assert_eq!(over("bloated-document.p95-bytes"), 1);
    let near = findings(huge, "document-near-limit");
    assert_eq!(near.len(), 1, "{huge}");
    assert_eq!(near[0]["severity"], "critical");
    assert_eq!(near[0]["evidence"]["scope"], "collection");
    assert!(
        near[0]["message"]
            .as_str()
            .expect("message")
            .contains("whole collection"),
        "{}",
        near[0]["message"]
    );
    // One document over 2 MB in 20,000 is not a bloated collection.
    assert!(findings(huge, "bloated-document").is_empty(), "{huge}");

    let long = collection(&report, &format!("{db}.long"));
    let lengths = long["extremes"]["arrays"].as_array().expect("arrays");
    assert!(
        lengths
            .iter()
            .any(|a| a["path"] == "tags" && a["max_length"] == 12_000),
        "{lengths:?}"
    );
    let arrays = findings(long, "unbounded-array");
    assert_eq!(arrays.len(), 1, "{long}");
    assert_eq!(arrays[0]["path"], "tags");
    assert_eq!(arrays[0]["severity"], "critical");
    assert_eq!(arrays[0]["evidence"]["scope"], "collection");
    assert_eq!(
        arrays[0]["evidence"]["longest_in_collection"]["length"],
        12_000
    );

    let clean = collection(&report, &format!("{db}.clean"));
    assert_eq!(clean["extremes"]["scope"], "collection");
    assert_eq!(clean["extremes"]["arrays"][0]["max_length"], 3);
    assert!(size_findings(clean).is_empty(), "{clean}");

    // The pass is one aggregation more per collection, counted with the rest.
    let plain = audit(&["--no-extremes"]).await;
    for name in ["huge", "long", "clean"] {
        let ns = format!("{db}.{name}");
        assert_sample_only(collection(&plain, &ns), &ns);
        // One collection at a time, none of whose fields could reference
        // an `_id`: nothing is probed (probes depend on what each sample
        // held), so the two runs differ by the pass alone.
        let alone = |extra: &'static [&'static str]| audit_of(vec!["-c".into(), ns.clone()], extra);
        let (with, without) = (alone(&[]).await, alone(&["--no-extremes"]).await);
        let (a, b) = (
            trips(collection(&with, &ns)),
            trips(collection(&without, &ns)),
        );
        let more = a.get("aggregate").copied().unwrap_or(0);
        let fewer = b.get("aggregate").copied().unwrap_or(0);
        assert_eq!(more, fewer + 1, "{ns}: {a:?} vs {b:?}");
        let rest = |mut t: BTreeMap<String, u64>| {
            t.remove("aggregate");
            t
        };
        assert_eq!(rest(a), rest(b), "{ns}: nothing else changes");
    }
}

#[tokio::test]
async fn a_large_document_hidden_in_a_file_is_reported_from_every_size() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("orders.bson");
    let mut docs = documents(Some(huge()));
    docs.extend((ORDINARY..ORDINARY + 10_000).map(ordinary));
    write_bson(&path, &docs);
    let clean = dir.path().join("clean.bson");
    write_bson(&clean, &documents(None));
    // The same hidden in Extended JSON: sizes tallied as the sample is drawn.
    let mut lines = String::new();
    for d in documents(Some(huge())) {
        lines.push_str(&bson::Bson::Document(d).into_relaxed_extjson().to_string());
        lines.push('\n');
    }
    std::fs::write(dir.path().join("events.ndjson"), lines).expect("write ndjson");
    let target = dir.path().to_str().expect("a UTF-8 path");
    let args = |extra: &'static [&'static str]| {
        let mut a = vec![
            "audit",
            target,
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
        ];
        a.extend_from_slice(extra);
        a
    };
    let report = json_ok(&docshape_async(&args(&[])).await);
    let db = dir
        .path()
        .file_name()
        .and_then(|n| n.to_str())
        .expect("directory name");
    let c = collection(&report, &format!("{db}.orders"));
    assert_eq!(c["sampled"], 1000);
    let e = &c["extremes"];
    assert_eq!(e["method"], "bson-skim", "{e}");
    assert_eq!(e["documents"], ORDINARY + 10_000, "{e}");
    assert_eq!(e["largest"][0]["id"], HIDDEN_AT, "{e}");
    assert!(e["largest"][0]["bytes"].as_u64().expect("bytes") > 13 << 20);
    let near = findings(c, "document-near-limit");
    assert_eq!(near.len(), 1, "{c}");
    assert_eq!(near[0]["evidence"]["scope"], "collection");
    assert_eq!(
        near[0]["evidence"]["extremes"]["largest"][0]["id"],
        HIDDEN_AT
    );
    // A skim reads no arrays: they are said to be the sample's.
    assert!(
        e["not_measured"]
            .as_array()
            .expect("not_measured")
            .iter()
            .any(|n| n.as_str().is_some_and(|s| s.starts_with("tags:"))),
        "{e}"
    );

    let events = collection(&report, &format!("{db}.events"));
    assert_eq!(events["extremes"]["method"], "file-scan", "{events}");
    assert_eq!(events["extremes"]["documents"], ORDINARY);
    assert_eq!(events["extremes"]["largest"][0]["id"], HIDDEN_AT);
    let near = findings(events, "document-near-limit");
    assert_eq!(near.len(), 1, "{events}");
    assert_eq!(near[0]["evidence"]["scope"], "collection");

    let twin = collection(&report, &format!("{db}.clean"));
    assert_eq!(twin["extremes"]["method"], "bson-skim");
    assert!(size_findings(twin).is_empty(), "{twin}");

    let plain = json_ok(&docshape_async(&args(&["--no-extremes"])).await);
    assert_sample_only(collection(&plain, &format!("{db}.orders")), "orders.bson");
    assert_sample_only(collection(&plain, &format!("{db}.events")), "events.ndjson");
}

/// A post with `comments` comments of about 200 bytes each.
fn post(i: i64, comments: i64) -> Document {
    let comments: Vec<Document> = (0..comments)
        .map(|c| {
            doc! {
                "who": format!("reader{}", c % 997),
                "at": bson::DateTime::from_millis(1_700_000_000_000 + c * 60_000),
                "text": format!("comment {c} on post {i}: {}", "well said, and worth reading twice. ".repeat(4)),
            }
        })
        .collect();
    doc! {"_id": i, "title": format!("post {i}"), "body": "lorem ipsum ".repeat(120), "comments": comments}
}

/// The JSON report of `posts` written as `DIR/posts.bson`, audited: the
/// collection's part.
async fn audited_posts(dir: &std::path::Path, posts: &[Document]) -> Value {
    write_bson(&dir.join("posts.bson"), posts);
    let target = dir.to_str().expect("a UTF-8 path");
    let report = json_ok(
        &docshape_async(&[
            "audit",
            target,
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
        ])
        .await,
    );
    let db = dir
        .file_name()
        .and_then(|n| n.to_str())
        .expect("directory name");
    collection(&report, &format!("{db}.posts")).clone()
}

/// The advice's before/after is measured on the document that made the
/// finding fire: a post of 13.4 MiB (62,761 comments) among 40 posts of
/// under 2 KiB is too large to keep in memory, yet the suggested split is
/// measured on it too — its size before and after, in the averages and
/// maxima — where it would otherwise be measured on the 40 others alone.
#[tokio::test]
async fn the_advice_is_measured_on_the_largest_document_even_when_it_is_not_kept() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut posts: Vec<Document> = (0..40).map(|i| post(i, 3)).collect();
    posts.insert(17, post(40, 62_761));
    let big = bson::serialize_to_vec(&posts[17]).expect("encode").len() as f64;
    assert!(
        big > 13.0 * 1024.0 * 1024.0 && big < 16.0 * 1024.0 * 1024.0,
        "{big}"
    );
    let report = audited_posts(dir.path(), &posts).await;
    let c = &report;
    let findings = c["findings"].as_array().expect("findings");
    let on_comments: Vec<&Value> = findings
        .iter()
        .filter(|f| f["path"] == "comments")
        .filter_map(|f| f["suggestion"]["effect"].as_object().map(|_| f))
        .collect();
    assert!(
        !on_comments.is_empty(),
        "a finding on comments with an effect: {findings:#?}"
    );
    for f in on_comments {
        let e = &f["suggestion"]["effect"];
        let l = &e["largest_not_kept"];
        assert_eq!(l["_id"], 40, "{}: {e:#}", f["rule"]);
        let (before, after) = (
            l["bytes_before"].as_f64().expect("before"),
            l["bytes_after"].as_f64().expect("after"),
        );
        assert!(
            (before - big).abs() < 1.0,
            "{}: measured whole: {e:#}",
            f["rule"]
        );
        assert!(
            after < 0.05 * before,
            "{}: the change takes most of it out: {e:#}",
            f["rule"]
        );
        assert_eq!(e["max_bytes_before"].as_f64(), Some(before), "{e:#}");
        assert!(
            e["avg_bytes_before"].as_f64().expect("avg") > before / 42.0,
            "{e:#}"
        );
        let measured = e["documents_measured"].as_u64().expect("measured");
        assert_eq!(measured, 41, "measured once each: {e:#}");
    }
    // Kept whole, the largest is measured once, as a kept document.
    let small: Vec<Document> = (0..40)
        .map(|i| post(i, if i == 17 { 400 } else { 3 }))
        .collect();
    let dir2 = tempfile::tempdir().expect("temporary directory");
    let c = audited_posts(dir2.path(), &small).await;
    for f in c["findings"].as_array().expect("findings") {
        let e = &f["suggestion"]["effect"];
        assert!(e.get("largest_not_kept").is_none(), "{}: {e:#}", f["rule"]);
        if let Some(n) = e["documents_measured"].as_u64() {
            assert_eq!(n, 40, "{}: {e:#}", f["rule"]);
        }
    }
}
