//! The migration scripts docshape writes are run with the real `mongosh`
//! against the test server, twice (they must be safe to re-run), and the
//! resulting shape is checked.

use crate::common;
use crate::migrate;

use common::{oid, DAY, NEWEST};

use bson::{doc, Bson, Document};
use common::{client, unique_db};
use migrate::{all, audit, dump, findings, nothing_dropped, run_twice};

fn suggestion<'a>(report: &'a serde_json::Value, ns: &str, rule: &str) -> &'a serde_json::Value {
    migrate::suggestion(report, ns, rule, None)
}

#[tokio::test(flavor = "current_thread")]
async fn parent_reference_moves_a_growing_array_out() {
    let db = unique_db("mig_parent");
    let c = client().await;
    let posts = c.database(&db).collection::<Document>("posts");
    let docs: Vec<Document> = (0..60u32)
        .map(|i| doc! {"_id": oid(NEWEST - i * DAY, i), "title": format!("p{i}"), "comments": (0..2 * i).map(|k| {
            // Sub-documents with an `_id` of their own (as ODMs write them)
            // and a field named like the generated `position`.
            let mut c = doc! {"by": format!("u{k}"), "text": "hi"};
            if i % 3 == 0 {
                c.insert("_id", oid(NEWEST - i * DAY, 100_000 + i * 1000 + k));
            }
            if i % 5 == 0 && k == 0 {
                c.insert("position", "pinned");
            }
            c
        }).collect::<Vec<_>>()})
        .collect();
    let total: u32 = (0..60u32).map(|i| 2 * i).sum();
    posts.insert_many(docs).await.expect("insert");
    // Values that are not arrays stay where they are, and are counted.
    posts
        .insert_many([
            doc! {"_id": oid(NEWEST - 70 * DAY, 70), "title": "odd", "comments": "N/A"},
            doc! {"_id": oid(NEWEST - 71 * DAY, 71), "title": "odd", "comments": Bson::Null},
        ])
        .await
        .expect("insert");
    let ns = format!("{db}.posts");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "unbounded-array");
    assert_eq!(s["pattern"], "parent-reference");
    assert!(s["before"].is_object() && s["after"].is_object(), "{s}");
    assert!(
        s["after"].to_string().contains("post_id"),
        "after uses the collection's own names: {}",
        s["after"]
    );
    let before = dump(&db).await;
    let (first, _) = run_twice(
        &db,
        s["migration"].as_str().expect("script"),
        "parent_reference",
    )
    .await;
    nothing_dropped(&db, &before, "parent_reference").await;
    assert!(
        first.contains("2 documents hold a comments that is not an array"),
        "{first}"
    );

    let children = c.database(&db).collection::<Document>("posts_comments");
    let kids = all(&children).await;
    assert_eq!(
        kids.len() as u32,
        total,
        "every comment moved exactly once, even after two runs"
    );
    assert!(kids
        .iter()
        .all(|k| k.get_object_id("post_id").is_ok() && k.get_str("by").is_ok()));
    let own_ids = kids
        .iter()
        .filter(|k| k.get_object_id("_id").is_ok())
        .count();
    let with_ids: u32 = (0..60u32).filter(|i| i % 3 == 0).map(|i| 2 * i).sum();
    assert_eq!(
        own_ids as u32, with_ids,
        "an element's own _id is its identity"
    );
    assert!(kids
        .iter()
        .any(|k| k.get_str("position").ok() == Some("pinned")));
    assert_eq!(
        posts
            .count_documents(doc! {"comments": {"$type": "array"}})
            .await
            .expect("count"),
        0
    );
    assert_eq!(posts.count_documents(doc! {}).await.expect("count"), 62);
    // A writer not yet moved over appends to a trimmed parent: the next run
    // finds the element's position already taken by an older copy, so the
    // parent keeps its array, and the script says so.
    let newest = oid(NEWEST - DAY, 1);
    posts
        .update_one(
            doc! {"_id": newest},
            doc! {"$push": {"comments": {"by": "late", "text": "written after the move"}}},
        )
        .await
        .expect("append");
    let before = dump(&db).await;
    let (again, _) = run_twice(
        &db,
        s["migration"].as_str().expect("script"),
        "parent_reference_again",
    )
    .await;
    nothing_dropped(&db, &before, "parent_reference_again").await;
    assert!(again.contains("1 keep comments"), "{again}");
    let kept = posts
        .find_one(doc! {"_id": newest})
        .await
        .expect("find")
        .expect("post");
    assert_eq!(
        kept.get_array("comments").map(Vec::len).ok(),
        Some(1),
        "{kept}"
    );
    posts
        .update_one(doc! {"_id": newest}, doc! {"$unset": {"comments": ""}})
        .await
        .expect("the application moved it");
    let indexes = children.list_index_names().await.expect("indexes");
    assert!(
        indexes.iter().any(|n| n.starts_with("post_id")),
        "{indexes:?}"
    );
    let after = audit(&format!("{db}.*")).await;
    assert!(findings(&after, &ns, "unbounded-array").is_empty());
    let kids_ns = format!("{db}.posts_comments");
    assert!(findings(&after, &kids_ns, "missing-reference-index").is_empty());
}

/// The largest document each leading part of `pipeline` passes on, over
/// `coll`: `$bsonSize` of every document out of stages `..k`, for each `k`.
async fn largest_between_stages(
    coll: &mongodb::Collection<Document>,
    pipeline: &[Document],
) -> Vec<(String, i64)> {
    use futures_util::TryStreamExt;
    let mut out = Vec::new();
    for k in 1..=pipeline.len() {
        let mut p: Vec<Document> = pipeline[..k].to_vec();
        p.push(doc! {"$group": {"_id": null, "max": {"$max": {"$bsonSize": "$$ROOT"}}}});
        let rows: Vec<Document> = coll
            .aggregate(p)
            .await
            .expect("aggregate")
            .try_collect()
            .await
            .expect("rows");
        let max = rows
            .first()
            .and_then(|r| migrate::number(r.get("max")?))
            .unwrap_or(0.0) as i64;
        let stage = pipeline[k - 1].keys().next().cloned().unwrap_or_default();
        out.push((stage, max));
    }
    out
}

#[tokio::test(flavor = "current_thread")]
async fn parent_reference_checks_a_parent_near_16_mib_one_element_at_a_time() {
    // A post whose 3,500 comments of 4 KiB make it 14 MiB: its elements and
    // their copies together pass 16 MiB, so a check that gathered a
    // parent's children into one document could not be run on it. The
    // script's check must pass no document near that limit between any two
    // of its stages, and must still find that the post's comments all moved.
    const LIMIT: i64 = 16 * 1024 * 1024;
    let db = unique_db("mig_parent_big");
    let c = client().await;
    let posts = c.database(&db).collection::<Document>("posts");
    let mut docs: Vec<Document> = (0..60u32)
        .map(|i| doc! {"_id": oid(NEWEST - i * DAY, i), "title": format!("p{i}"), "comments": (0..2 * i).map(|k| doc! {"by": format!("u{k}"), "text": "hi"}).collect::<Vec<_>>()})
        .collect();
    let text = "x".repeat(4096);
    let big_id = oid(NEWEST - 61 * DAY, 61);
    let big = doc! {"_id": big_id, "title": "big", "comments": (0..3500u32).map(|k| doc! {"by": format!("u{k}"), "text": &text}).collect::<Vec<_>>()};
    let big_bytes = bson::serialize_to_vec(&big).expect("bson").len() as i64;
    assert!(
        big_bytes > 13 * 1024 * 1024 && big_bytes < LIMIT,
        "{big_bytes}"
    );
    docs.push(big.clone());
    posts.insert_many(docs).await.expect("insert");
    let ns = format!("{db}.posts");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "unbounded-array");
    assert_eq!(s["pattern"], "parent-reference", "{s}");
    let script = s["migration"].as_str().expect("script");
    // The check's pipeline, as the script runs it.
    let line = script
        .lines()
        .find(|l| l.contains("ds.updateEach(src, () => src.aggregate("))
        .expect("the check's line");
    let json = line
        .split_once("src.aggregate(")
        .and_then(|(_, r)| r.rsplit_once(", { allowDiskUse"))
        .map(|(p, _)| p)
        .expect("the check's pipeline");
    let verify: Vec<Document> = serde_json::from_str::<Vec<serde_json::Value>>(json)
        .expect("JSON")
        .into_iter()
        .map(|v| bson::serialize_to_document(&v).expect("a stage"))
        .collect();
    let before = dump(&db).await;
    run_twice(&db, script, "parent_reference_big").await;
    nothing_dropped(&db, &before, "parent_reference_big").await;
    let kids = c.database(&db).collection::<Document>("posts_comments");
    assert_eq!(
        kids.count_documents(doc! {"post_id": big_id})
            .await
            .expect("count"),
        3500
    );
    let trimmed = posts
        .find_one(doc! {"_id": big_id})
        .await
        .expect("find")
        .expect("the post");
    assert!(!trimmed.contains_key("comments"), "trimmed");
    // The post as it was, its comments already copied: the check passes it
    // on, and no stage holds a document near the limit.
    posts
        .replace_one(doc! {"_id": big_id}, big)
        .await
        .expect("restore");
    let sizes = largest_between_stages(&posts, &verify).await;
    for (stage, max) in &sizes {
        assert!(
            *max < big_bytes + 64 * 1024,
            "after {stage}: a document of {max} bytes (the post is {big_bytes}): {sizes:?}"
        );
    }
    let ok: Vec<Document> = {
        use futures_util::TryStreamExt;
        posts
            .aggregate(verify)
            .await
            .expect("check")
            .try_collect()
            .await
            .expect("rows")
    };
    assert!(
        ok.iter()
            .any(|d| d.get_object_id("_id").ok() == Some(big_id)),
        "the big post's comments are all in posts_comments"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn parent_reference_trims_thousands_of_parents_a_batch_at_a_time() {
    // More parents than one batch of `ds.updateEach` (1,000 _ids), and not
    // a multiple of it: every parent is trimmed, each saved first, and
    // the count the script prints is the whole of them.
    const POSTS: u32 = 2_600;
    let db = unique_db("mig_parent_many");
    let c = client().await;
    let posts = c.database(&db).collection::<Document>("posts");
    let docs: Vec<Document> = (0..POSTS)
        .map(|i| doc! {"_id": oid(NEWEST - i * 3_600, i), "title": format!("p{i}"), "comments": (0..i / 40).map(|k| doc! {"by": format!("u{k}"), "text": "hi"}).collect::<Vec<_>>()})
        .collect();
    let total: u32 = (0..POSTS).map(|i| i / 40).sum();
    posts.insert_many(docs).await.expect("insert");
    let ns = format!("{db}.posts");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "unbounded-array");
    assert_eq!(s["pattern"], "parent-reference", "{s}");
    let before = dump(&db).await;
    let (first, _) = run_twice(
        &db,
        s["migration"].as_str().expect("script"),
        "parent_reference_many",
    )
    .await;
    nothing_dropped(&db, &before, "parent_reference_many").await;
    assert!(
        first.contains(&format!("{POSTS} of {POSTS} documents trimmed")),
        "{first}"
    );
    assert_eq!(
        posts
            .count_documents(doc! {"comments": {"$exists": true}})
            .await
            .expect("count"),
        0,
        "every parent trimmed"
    );
    let kids = c.database(&db).collection::<Document>("posts_comments");
    assert_eq!(
        kids.count_documents(doc! {}).await.expect("count"),
        u64::from(total)
    );
    let names = c
        .database(&db)
        .list_collection_names()
        .await
        .expect("collections");
    let backup = names
        .iter()
        .find(|n| n.starts_with("posts_backup_"))
        .expect("a backup collection");
    assert_eq!(
        c.database(&db)
            .collection::<Document>(backup)
            .count_documents(doc! {"comments": {"$type": "array"}})
            .await
            .expect("count"),
        u64::from(POSTS),
        "every parent saved whole before it changed"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn subset_keeps_the_newest_elements() {
    let db = unique_db("mig_subset");
    let c = client().await;
    let products = c.database(&db).collection::<Document>("products");
    let docs: Vec<Document> = (0..12)
        .map(|i| doc! {"_id": i, "name": format!("product {i}"), "reviews": (0..300).map(|r| doc! {"stars": (r % 5) + 1, "text": format!("review {r}")}).collect::<Vec<_>>()})
        .collect();
    products.insert_many(docs).await.expect("insert");
    let ns = format!("{db}.products");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "unbounded-array");
    assert_eq!(s["pattern"], "subset", "{s}");
    let before = dump(&db).await;
    run_twice(&db, s["migration"].as_str().expect("script"), "subset").await;
    nothing_dropped(&db, &before, "subset").await;

    let history = c.database(&db).collection::<Document>("products_reviews");
    assert_eq!(
        history.count_documents(doc! {}).await.expect("count"),
        12 * 300
    );
    for p in all(&products).await {
        let reviews = p.get_array("reviews").expect("reviews kept");
        assert_eq!(reviews.len(), 100, "p95 of 300 clamped to 100");
        let last = reviews
            .last()
            .and_then(|r| r.as_document())
            .and_then(|r| r.get_str("text").ok());
        assert_eq!(last, Some("review 299"), "the newest are kept");
    }
    let after = audit(&format!("{db}.*")).await;
    assert!(
        findings(&after, &ns, "unbounded-array").is_empty(),
        "{}",
        common::collection(&after, &ns)["findings"]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn bucket_groups_events_by_series_and_hour() {
    let db = unique_db("mig_bucket");
    let c = client().await;
    let readings = c.database(&db).collection::<Document>("readings");
    let start = NEWEST - 10_000;
    let docs: Vec<Document> = (0..10_000u32)
        .map(|i| doc! {"_id": oid(start + i, i), "sensor": format!("s{}", i % 5), "ts": bson::DateTime::from_millis(i64::from(start + i) * 1000), "v": f64::from(i % 10)})
        .collect();
    for chunk in docs.chunks(1000) {
        readings.insert_many(chunk).await.expect("insert");
    }
    let ns = format!("{db}.readings");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "time-series-per-event");
    assert_eq!(s["pattern"], "bucket");
    let before = dump(&db).await;
    run_twice(&db, s["migration"].as_str().expect("script"), "bucket").await;
    nothing_dropped(&db, &before, "bucket").await;

    let hourly = all(&c.database(&db).collection::<Document>("readings_hourly")).await;
    let hours: std::collections::BTreeSet<i64> = (0..10_000u32)
        .map(|i| i64::from((start + i) / 3600))
        .collect();
    assert_eq!(
        hourly.len(),
        hours.len() * 5,
        "one bucket per sensor and hour"
    );
    let counted: i64 = hourly
        .iter()
        .map(|b| {
            b.get("count")
                .and_then(bson::Bson::as_i32)
                .map_or(0, i64::from)
        })
        .sum();
    assert_eq!(
        counted, 10_000,
        "every event in exactly one bucket, after two runs"
    );
    let b = &hourly[0];
    assert!(
        b.get_array("events").is_ok() && b.contains_key("v_sum") && b.contains_key("v_max"),
        "{b}"
    );
    // The events stay where they were until the application moves over,
    // which the summary says; the buckets themselves are not events.
    assert!(
        s["summary"]
            .as_str()
            .unwrap_or("")
            .contains("until you drop"),
        "{s}"
    );
    let after = audit(&format!("{db}.*")).await;
    assert_eq!(findings(&after, &ns, "time-series-per-event").len(), 1);
    let hourly_ns = format!("{db}.readings_hourly");
    assert!(findings(&after, &hourly_ns, "time-series-per-event").is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn attribute_turns_minute_keys_into_pairs() {
    let db = unique_db("mig_attr");
    let c = client().await;
    let stats = c.database(&db).collection::<Document>("page_stats");
    let docs: Vec<Document> = (0..10)
        .map(|d| {
            let mut minutes = Document::new();
            // One hour of minute keys: enough to be data, few enough that the
            // test server (which builds compound multikey keys as a Cartesian
            // product) indexes {minutes.k, minutes.v} quickly.
            for m in 0..60 {
                minutes.insert(m.to_string(), m + d);
            }
            doc! {"_id": d, "page": "/", "minutes": minutes}
        })
        .collect();
    stats.insert_many(docs).await.expect("insert");
    let ns = format!("{db}.page_stats");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "dynamic-keys");
    assert_eq!(s["pattern"], "attribute");
    let before = dump(&db).await;
    run_twice(&db, s["migration"].as_str().expect("script"), "attribute").await;
    nothing_dropped(&db, &before, "attribute").await;
    for d in all(&stats).await {
        let m = d.get_array("minutes").expect("minutes is now an array");
        assert_eq!(m.len(), 60);
        let first = m[0].as_document().expect("pair");
        assert_eq!(first.get_str("k").ok(), Some("0"));
    }
    let names = stats.list_index_names().await.expect("indexes");
    assert!(
        names.iter().any(|n| n.starts_with("minutes.k")),
        "{names:?}"
    );
    let after = audit(&ns).await;
    assert!(findings(&after, &ns, "dynamic-keys").is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn ttl_index_on_an_absent_field_is_checked_not_dropped() {
    let db = unique_db("mig_ttl");
    let c = client().await;
    let sessions = c.database(&db).collection::<Document>("sessions");
    sessions
        .insert_many((0..30).map(|i| doc! {"_id": i, "user": format!("u{i}")}))
        .await
        .expect("insert");
    c.database(&db)
        .run_command(doc! {"createIndexes": "sessions", "indexes": [
            {"key": {"expires_at": 1}, "name": "expires_at_1", "expireAfterSeconds": 600},
        ]})
        .await
        .expect("create TTL index");
    let ns = format!("{db}.sessions");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "unused-index");
    let script = s["migration"].as_str().expect("script");
    assert!(!script.contains("dropIndex"), "{script}");
    let (first, _) = run_twice(&db, script, "ttl_check").await;
    assert!(first.contains("expires nothing"), "{first}");
    let names = sessions.list_index_names().await.expect("indexes");
    assert!(names.iter().any(|n| n == "expires_at_1"), "{names:?}");
    assert_eq!(sessions.count_documents(doc! {}).await.expect("count"), 30);
    // The script only looks, as the summary says: the finding stays until
    // the writer sets the field (then the index expires documents).
    let after = audit(&ns).await;
    assert_eq!(findings(&after, &ns, "unused-index").len(), 1);
    sessions
        .update_many(
            doc! {},
            doc! {"$set": {"expires_at": bson::DateTime::from_millis(4_102_444_800_000)}},
        )
        .await
        .expect("set the field");
    let (first, _) = run_twice(&db, script, "ttl_check_dated").await;
    assert!(first.contains("expire 600 s after it"), "{first}");
    let after = audit(&ns).await;
    assert!(findings(&after, &ns, "unused-index").is_empty());
}
