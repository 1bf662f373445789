//! The exercises of lesson `esr`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use mongodb::{Database, IndexModel};

use super::{exercise, untouched, Fix};

type Fut<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

async fn index(db: &Database, keys: Document) {
    db.collection::<Document>("bad_orders")
        .create_index(IndexModel::builder().keys(keys).build())
        .await
        .expect("createIndex");
}

/// The lesson's index: equality, sort, range.
fn esr(db: &Database) -> Fut<'_> {
    Box::pin(index(db, doc! {"status": 1, "placed_at": -1, "total": 1}))
}

/// Wrong: equality, range, sort.
fn ers(db: &Database) -> Fut<'_> {
    Box::pin(index(db, doc! {"status": 1, "total": 1, "placed_at": -1}))
}

/// Wrong: sort first.
fn sort_first(db: &Database) -> Fut<'_> {
    Box::pin(index(db, doc! {"placed_at": -1, "status": 1, "total": 1}))
}

/// Wrong: the orders deleted, the right index built on nothing.
fn orders_deleted(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        index(db, doc! {"status": 1, "placed_at": -1, "total": 1}).await;
        db.collection::<Document>("bad_orders")
            .delete_many(doc! {})
            .await
            .expect("delete");
    })
}

/// Wrong: the collection dropped.
fn dropped(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_orders")
            .drop()
            .await
            .expect("drop");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn orders() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "no index of bad_orders has status, placed_at, total",
                "status_1_total_1_channel_1 puts total (the range) right after status",
            ],
        ),
        (
            "{status, placed_at, total}",
            esr,
            true,
            &["status_1_placed_at_-1_total_1 serves"],
        ),
        (
            "{status, total, placed_at}",
            ers,
            false,
            &["status_1_total_1_placed_at_-1 puts total (the range) before placed_at (the sort)"],
        ),
        (
            "{placed_at, status, total}",
            sort_first,
            false,
            &["placed_at_-1_status_1_total_1 starts with placed_at, not with the equality field status"],
        ),
        (
            "orders deleted",
            orders_deleted,
            false,
            &["bad_orders lost documents: seed wrote 300"],
        ),
        (
            "collection dropped",
            dropped,
            false,
            &["bad_orders is gone: seed wrote 300 documents"],
        ),
    ];
    exercise("esr", "esr/orders", &["indexes"], cases).await;
}
