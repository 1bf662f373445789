//! The planted workload scenarios both inputs are tested with (a `mongod`
//! log in the real format, `tests/it/workload_rules.rs`; the profiler after
//! running the workload, `tests/it/workload_profile.rs`): their documents,
//! and the helpers that read what the audit says of them.

#![allow(dead_code)] // each test binary uses its own part

use bson::{doc, Bson, Document};
use futures_util::TryStreamExt;
use serde_json::{json, Value};

use crate::common::{client, oid, DAY, NEWEST};

pub fn oid_json(id: &bson::oid::ObjectId) -> Value {
    json!({"$oid": id.to_hex()})
}

/// The `_id`s of `docs` (ObjectIds) as Extended JSON.
pub fn ids(docs: &[Document]) -> Vec<Value> {
    docs.iter()
        .map(|d| oid_json(&d.get_object_id("_id").expect("oid")))
        .collect()
}

/// The findings of `rule` on `ns`.
pub fn findings<'a>(r: &'a Value, ns: &str, rule: &str) -> Vec<&'a Value> {
    crate::migrate::findings(r, ns, rule)
}

/// Every workload rule's findings on `ns`.
pub fn workload_findings<'a>(r: &'a Value, ns: &str) -> Vec<&'a Value> {
    docshape::rules::WORKLOAD_RULES
        .iter()
        .flat_map(|rule| findings(r, ns, rule))
        .collect()
}

/// The workload's shape of `op` on `ns` whose filter (or pipeline) has `key`.
pub fn shape<'a>(r: &'a Value, ns: &str, op: &str, key: &str) -> &'a Value {
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

pub fn key_order(v: &Value) -> Vec<(String, i64)> {
    v.as_object()
        .expect("key")
        .iter()
        .map(|(k, d)| (k.clone(), d.as_f64().expect("direction") as i64))
        .collect()
}

pub fn pairs(p: &[(&str, i64)]) -> Vec<(String, i64)> {
    p.iter().map(|(k, d)| ((*k).to_owned(), *d)).collect()
}

/// Orders: 4 statuses, 200 customers, dates and quantities.
pub fn orders() -> Vec<Document> {
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

pub async fn insert(db: &str, coll: &str, docs: Vec<Document>) {
    client()
        .await
        .database(db)
        .collection::<Document>(coll)
        .insert_many(docs)
        .await
        .unwrap_or_else(|e| panic!("insert into {coll}: {e}"));
}

pub async fn index(db: &str, coll: &str, keys: Document) {
    client()
        .await
        .database(db)
        .collection::<Document>(coll)
        .create_index(mongodb::IndexModel::builder().keys(keys).build())
        .await
        .unwrap_or_else(|e| panic!("index on {coll}: {e}"));
}

/// Runs an index script twice with mongosh; asserts `coll` then has an
/// index on exactly `key` (in that order) and returns its indexes.
pub async fn builds_index(
    db: &str,
    coll: &str,
    script: &str,
    name: &str,
    key: &[(&str, i64)],
) -> Vec<(String, Vec<(String, i64)>)> {
    crate::migrate::run_twice(db, script, name).await;
    let keys = index_keys(db, coll).await;
    let want = pairs(key);
    assert!(keys.iter().any(|(_, k)| *k == want), "{name}: {keys:?}");
    keys
}

/// The key documents of `coll`'s indexes, each in its order.
pub async fn index_keys(db: &str, coll: &str) -> Vec<(String, Vec<(String, i64)>)> {
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

/// Posts whose comments grow with age: post `i` is `i` days old and has
/// `2 i` comments.
pub fn posts() -> Vec<Document> {
    (0..60u32)
        .map(|i| {
            let comments: Vec<Document> = (0..2 * i)
                .map(|c| doc! {"by": format!("user{}", c % 17), "text": "nice post"})
                .collect();
            doc! {"_id": oid(NEWEST - i * DAY, 600_000 + i), "title": format!("post {i}"), "comments": comments}
        })
        .collect()
}

/// A `push-without-slice` finding on the [`posts`] comments, corroborated
/// by their measured growth, which reaches 16 MiB in centuries, not within
/// a year: a warning, not critical.
pub fn grows_beyond_a_year(f: &Value) {
    assert_eq!(f["severity"], "warning", "{f}");
    assert!(
        f["evidence"]["growth"]["days_to_limit"]
            .as_f64()
            .expect("forecast")
            > 365.0,
        "{f}"
    );
    assert!(
        f["evidence"]["growth"]["per_day"].as_f64().expect("growth") > 1.0,
        "{f}"
    );
}

/// `count` sources of `name` and three copies of each in `copies`, each
/// copy holding the source's id and name under `holder`.
pub fn sources_and_copies(name: &str, holder: &str, base: u32) -> (Vec<Document>, Vec<Document>) {
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

/// Authors with one to four books each (one-to-few), and shelves with one
/// to four boxes each: `(authors, books, shelves, boxes)`, the references
/// `books.author_id` and `boxes.shelf_id`.
pub fn library() -> (Vec<Document>, Vec<Document>, Vec<Document>, Vec<Document>) {
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
    (authors, books, shelves, boxes)
}

/// 300 users with a name and a visit count.
pub fn users() -> Vec<Document> {
    (0..300u32)
        .map(|i| doc! {"_id": oid(NEWEST - i * 3600, i), "name": format!("user {i}"), "visits": i})
        .collect()
}
