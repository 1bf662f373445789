//! The exercises of lesson `extended-reference`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use mongodb::{Database, IndexModel};

use super::{all, exercise, untouched, Fix};

type Step<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

async fn index_customer(db: &Database) {
    db.collection::<Document>("bad_orders")
        .create_index(
            IndexModel::builder()
                .keys(doc! {"customer.id": 1, "date": -1})
                .build(),
        )
        .await
        .expect("index");
}

/// The fix: only the id and name kept, indexed.
fn volatile_copies_removed(db: &Database) -> Step<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_orders")
            .update_many(
                doc! {},
                doc! {"$unset": {"customer.email": 1, "customer.phone": 1, "customer.loyalty_points": 1}},
            )
            .await
            .expect("unset");
        index_customer(db).await;
    })
}

/// Wrong: every copy brought up to date (and indexed): the design kept.
fn copies_synced(db: &Database) -> Step<'_> {
    Box::pin(async move {
        let orders = db.collection::<Document>("bad_orders");
        for c in all(db, "bad_customers").await {
            orders
                .update_many(
                    doc! {"customer.id": c.get("_id").cloned().expect("_id")},
                    doc! {"$set": {"customer.email": c.get("email").cloned(), "customer.phone": c.get("phone").cloned(), "customer.loyalty_points": c.get("loyalty_points").cloned()}},
                )
                .await
                .expect("sync");
        }
        index_customer(db).await;
    })
}

/// Wrong: the customer removed from the orders.
fn customer_deleted(db: &Database) -> Step<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_orders")
            .update_many(doc! {}, doc! {"$unset": {"customer": 1}})
            .await
            .expect("unset");
    })
}

/// Wrong: the orders dropped.
fn orders_dropped(db: &Database) -> Step<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_orders")
            .drop()
            .await
            .expect("drop");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn hot_fields_only() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "denormalization-drift still fires on",
                "missing-reference-index still fires on",
                "200 of 200 orders still copy",
            ],
        ),
        (
            "volatile copies removed, indexed",
            volatile_copies_removed,
            true,
            &["all 200 orders keep customer.id (indexed)"],
        ),
        (
            "copies synced instead",
            copies_synced,
            false,
            &[
                "200 of 200 orders still copy the customer's email, phone, loyalty_points",
                "Hint 1 of 3",
            ],
        ),
        (
            "customer deleted",
            customer_deleted,
            false,
            &["200 of 200 orders no longer hold their customer's id and name"],
        ),
        (
            "orders dropped",
            orders_dropped,
            false,
            &["bad_orders is gone: seed wrote 200 documents"],
        ),
    ];
    exercise(
        "extended-reference",
        "extended-reference/hot-fields-only",
        &["extended_reference"],
        cases,
    )
    .await;
}
