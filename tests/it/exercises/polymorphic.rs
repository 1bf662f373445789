//! The exercises of lesson `polymorphic`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use mongodb::Database;

use super::{all, exercise, untouched, Fix};

type Fut<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The lesson's fix: type set from the fields each kind has.
fn typed(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        let c = db.collection::<Document>("bad_products");
        for (has, kind) in [("isbn", "book"), ("watts", "lamp"), ("size", "shirt")] {
            c.update_many(doc! {has: {"$exists": true}}, doc! {"$set": {"type": kind}})
                .await
                .expect("update");
        }
    })
}

/// Wrong: one value for every product.
fn one_value(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_products")
            .update_many(doc! {}, doc! {"$set": {"type": "product"}})
            .await
            .expect("update");
    })
}

/// Wrong: the type given by position, not by shape.
fn by_position(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        let c = db.collection::<Document>("bad_products");
        for (i, d) in all(db, "bad_products").await.into_iter().enumerate() {
            let kind = if i % 2 == 0 { "book" } else { "lamp" };
            c.update_one(
                doc! {"_id": d.get("_id").cloned()},
                doc! {"$set": {"type": kind}},
            )
            .await
            .expect("update");
        }
    })
}

/// Wrong: the lamps and shirts deleted, one shape left.
fn others_deleted(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_products")
            .delete_many(doc! {"isbn": {"$exists": false}})
            .await
            .expect("delete");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn discriminator() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &["polymorphic-without-discriminator still fires on", "polymorphic.bad_products"],
        ),
        (
            "type by shape",
            typed,
            true,
            &["every one of the 60 products says what it is: type has one value per shape (3 kinds)"],
        ),
        ("one value", one_value, false, &["type = product is given to products of 3 shapes", "Hint 2 of 3"]),
        ("by position", by_position, false, &["is given to products of 3 shapes"]),
        (
            "lamps and shirts deleted",
            others_deleted,
            false,
            &["bad_products lost documents: seed wrote 60, 20 of them are still there (40 missing)"],
        ),
    ];
    exercise("polymorphic", "polymorphic/type", &["polymorphic"], cases).await;
}
