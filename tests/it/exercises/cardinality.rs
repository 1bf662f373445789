//! The exercises of lesson `cardinality`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use mongodb::{Database, IndexModel};

use super::{all, exercise, untouched, Fix};

/// The lesson's design: each log message a document holding its host's id,
/// the reference indexed, the array gone.
fn logs_out(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        move_logs(db, true).await;
    })
}

async fn move_logs(db: &Database, index: bool) {
    let logs = db.collection::<Document>("bad_logmsg");
    for h in all(db, "bad_hosts").await {
        let id = h.get("_id").cloned().expect("_id");
        let msgs: Vec<Document> = h
            .get_array("logs")
            .expect("logs")
            .iter()
            .filter_map(|l| l.as_document())
            .map(|l| doc! {"host": id.clone(), "time": l.get("time").cloned(), "message": l.get("message").cloned()})
            .collect();
        logs.insert_many(msgs).await.expect("insert");
    }
    db.collection::<Document>("bad_hosts")
        .update_many(doc! {}, doc! {"$unset": {"logs": 1}})
        .await
        .expect("unset");
    if index {
        logs.create_index(
            IndexModel::builder()
                .keys(doc! {"host": 1, "time": -1})
                .build(),
        )
        .await
        .expect("index");
    }
}

/// Wrong: the logs deleted.
fn logs_deleted(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_hosts")
            .update_many(doc! {}, doc! {"$unset": {"logs": 1}})
            .await
            .expect("unset");
    })
}

/// Wrong: the hosts dropped altogether.
fn hosts_dropped(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_hosts")
            .drop()
            .await
            .expect("drop");
    })
}

/// Wrong: the array renamed away.
fn logs_renamed(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_hosts")
            .update_many(doc! {}, doc! {"$rename": {"logs": "history"}})
            .await
            .expect("rename");
    })
}

/// Wrong: moved, but the reference not indexed.
fn moved_unindexed(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        move_logs(db, false).await;
    })
}

/// Wrong: only the newest ten messages kept, the rest thrown away.
fn capped(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_hosts")
            .update_many(
                doc! {},
                vec![doc! {"$set": {"logs": {"$slice": ["$logs", -10]}}}],
            )
            .await
            .expect("slice");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn host_logs() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &["unbounded-array still fires on", "bad_hosts.logs"],
        ),
        (
            "moved to bad_logmsg.host, indexed",
            logs_out,
            true,
            &["1,998 log messages", "bad_logmsg.host"],
        ),
        (
            "logs deleted",
            logs_deleted,
            false,
            &[
                "no collection holds log messages that reference bad_hosts",
                "1,998",
            ],
        ),
        (
            "hosts dropped",
            hosts_dropped,
            false,
            &["bad_hosts is gone: seed wrote 36 documents"],
        ),
        (
            "logs renamed to history",
            logs_renamed,
            false,
            &["unbounded-array still fires on", "history"],
        ),
        (
            "moved without an index",
            moved_unindexed,
            false,
            &["no index of bad_logmsg starts with host", "Hint 3 of 3"],
        ),
        (
            "capped at ten",
            capped,
            false,
            &["348 are still in bad_hosts.logs, 1,650 are nowhere"],
        ),
    ];
    exercise(
        "cardinality",
        "cardinality/host-logs",
        &["one_to_squillions"],
        cases,
    )
    .await;
}

/// The lesson's design for one-to-few: each person's addresses embedded,
/// the separate collection dropped.
fn addresses_embedded(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        embed(db, usize::MAX).await;
        db.collection::<Document>("bad_addresses")
            .drop()
            .await
            .expect("drop");
    })
}

/// Embeds each person's first `keep` addresses.
async fn embed(db: &Database, keep: usize) {
    let addresses = all(db, "bad_addresses").await;
    for p in all(db, "bad_people").await {
        let id = p.get("_id").cloned().expect("_id");
        let mine: Vec<Document> = addresses
            .iter()
            .filter(|a| a.get("person_id") == Some(&id))
            .take(keep)
            .map(|a| {
                let mut a = a.clone();
                a.remove("_id");
                a.remove("person_id");
                a
            })
            .collect();
        db.collection::<Document>("bad_people")
            .update_one(doc! {"_id": id}, doc! {"$set": {"addresses": mine}})
            .await
            .expect("embed");
    }
}

/// Wrong: the addresses deleted.
fn addresses_dropped(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_addresses")
            .drop()
            .await
            .expect("drop");
    })
}

/// Wrong: the rule silenced with an index, the design kept.
fn addresses_indexed(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_addresses")
            .create_index(IndexModel::builder().keys(doc! {"person_id": 1}).build())
            .await
            .expect("index");
    })
}

/// Wrong: only each person's first address embedded, the rest dropped.
fn first_address_only(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        embed(db, 1).await;
        db.collection::<Document>("bad_addresses")
            .drop()
            .await
            .expect("drop");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn embed_addresses() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "missing-reference-index still fires on",
                "bad_addresses still holds 60 addresses",
            ],
        ),
        (
            "embedded, collection dropped",
            addresses_embedded,
            true,
            &["all 60 addresses are embedded"],
        ),
        (
            "addresses dropped",
            addresses_dropped,
            false,
            &[
                "60 of the 60 addresses seed wrote are not embedded",
                "Hint 2 of 3",
            ],
        ),
        (
            "index added instead",
            addresses_indexed,
            false,
            &["bad_addresses still holds 60 addresses", "Hint 1 of 3"],
        ),
        (
            "first address only",
            first_address_only,
            false,
            &["30 of the 60 addresses seed wrote are not embedded"],
        ),
    ];
    exercise(
        "cardinality",
        "cardinality/embed-addresses",
        &["one_to_few"],
        cases,
    )
    .await;
}

/// The parent reference: each part names the products that use it,
/// indexed; the products' lists gone.
fn parts_name_products(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        reverse_parts(db, true).await;
    })
}

async fn reverse_parts(db: &Database, index: bool) {
    // Worked out in the client and the parts written back (a long `$in`
    // is slow on the test server).
    let parts = db.collection::<Document>("bad_parts");
    let products = all(db, "bad_products").await;
    let mut rewritten = all(db, "bad_parts").await;
    for part in &mut rewritten {
        let id = part.get("_id").cloned().expect("_id");
        let users: Vec<bson::Bson> = products
            .iter()
            .filter(|p| p.get_array("part_ids").is_ok_and(|a| a.contains(&id)))
            .filter_map(|p| p.get("_id").cloned())
            .collect();
        if !users.is_empty() {
            part.insert("product_ids", users);
        }
    }
    parts.delete_many(doc! {}).await.expect("delete");
    parts.insert_many(rewritten).await.expect("insert");
    if index {
        parts
            .create_index(IndexModel::builder().keys(doc! {"product_ids": 1}).build())
            .await
            .expect("index");
    }
    db.collection::<Document>("bad_products")
        .update_many(doc! {}, doc! {"$unset": {"part_ids": 1}})
        .await
        .expect("unset");
}

/// Wrong: the lists deleted.
fn part_ids_deleted(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_products")
            .update_many(doc! {}, doc! {"$unset": {"part_ids": 1}})
            .await
            .expect("unset");
    })
}

/// Wrong: each list cut to its first 100 ids.
fn part_ids_cut(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_products")
            .update_many(
                doc! {},
                vec![doc! {"$set": {"part_ids": {"$slice": ["$part_ids", 100]}}}],
            )
            .await
            .expect("slice");
    })
}

/// Wrong: reversed without an index.
fn parts_unindexed(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        reverse_parts(db, false).await;
    })
}

#[tokio::test(flavor = "current_thread")]
async fn part_references() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "large-reference-array still fires on",
                "bad_products.part_ids",
            ],
        ),
        (
            "parts name their products, indexed",
            parts_name_products,
            true,
            &["all 4,200 part references are found through bad_parts.product_ids"],
        ),
        (
            "part_ids deleted",
            part_ids_deleted,
            false,
            &["no part of bad_parts references the products", "4,200"],
        ),
        (
            "part_ids cut to 100",
            part_ids_cut,
            false,
            &["no part of bad_parts references the products"],
        ),
        (
            "reversed without an index",
            parts_unindexed,
            false,
            &[
                "no index of bad_parts starts with product_ids",
                "Hint 3 of 3",
            ],
        ),
    ];
    exercise(
        "cardinality",
        "cardinality/part-references",
        &["one_to_many"],
        cases,
    )
    .await;
}
