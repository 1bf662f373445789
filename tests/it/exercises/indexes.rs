//! The exercises of lesson `indexes`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use mongodb::Database;

use super::{exercise, untouched, Fix};

type Fut<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

async fn drop_indexes(db: &Database, names: &[&str]) {
    let c = db.collection::<Document>("bad_orders");
    for n in names {
        c.drop_index(*n).await.expect("dropIndex");
    }
}

/// The lesson's fix: the two prefixes, the _id-led and the unused index dropped.
fn pruned(db: &Database) -> Fut<'_> {
    Box::pin(drop_indexes(
        db,
        &["customer_1", "status_1", "_id_1_status_1", "coupon_code_1"],
    ))
}

/// Wrong: every index dropped, the workload's query left to scan.
fn all_dropped(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_orders")
            .drop_indexes()
            .await
            .expect("dropIndexes");
    })
}

/// Wrong: the orders deleted (no document, no finding).
fn orders_deleted(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_orders")
            .delete_many(doc! {})
            .await
            .expect("delete");
    })
}

/// Wrong: only the prefixes dropped.
fn prefixes_only(db: &Database) -> Fut<'_> {
    Box::pin(drop_indexes(db, &["customer_1", "status_1"]))
}

/// Wrong: the indexes that serve a status query dropped with the rest.
fn status_gone(db: &Database) -> Fut<'_> {
    Box::pin(drop_indexes(
        db,
        &[
            "customer_1",
            "status_1",
            "_id_1_status_1",
            "coupon_code_1",
            "status_1_total_1_channel_1",
        ],
    ))
}

#[tokio::test(flavor = "current_thread")]
async fn prune() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &["redundant-index still fires on", "bad_orders"],
        ),
        (
            "four indexes dropped",
            pruned,
            true,
            &["with 9 indexes", "status_1_total_1_channel_1"],
        ),
        (
            "every index dropped",
            all_dropped,
            false,
            &["no index of bad_orders starts with status", "Hint 2 of 3"],
        ),
        (
            "orders deleted",
            orders_deleted,
            false,
            &["bad_orders lost documents: seed wrote 300, 0 of them"],
        ),
        (
            "prefixes only",
            prefixes_only,
            false,
            &["id-led-index still fires on"],
        ),
        (
            "status indexes dropped too",
            status_gone,
            false,
            &["would scan every order"],
        ),
    ];
    exercise("indexes", "indexes/prune", &["indexes"], cases).await;
}
