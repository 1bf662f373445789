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
        ("one value", one_value, false, &["type = product is given to documents of 3 shapes", "Hint 2 of 3"]),
        ("by position", by_position, false, &["is given to documents of 3 shapes"]),
        (
            "lamps and shirts deleted",
            others_deleted,
            false,
            &["bad_products lost documents: seed wrote 60, 20 of them are still there (40 missing)"],
        ),
    ];
    exercise("polymorphic", "polymorphic/type", &["polymorphic"], cases).await;
}

/// The new documents migrated: zip a string again, the phone object a
/// phones array; every document versioned (or, `version` false, not).
async fn migrate(db: &Database, version: bool) {
    let c = db.collection::<Document>("bad_customers");
    for d in all(db, "bad_customers").await {
        let id = d.get("_id").cloned();
        let update = match d.get_document("phone") {
            Ok(p) => {
                let zip = d.get_i32("zip").expect("zip").to_string();
                let number = p.get_str("number").expect("number").to_owned();
                let mut set = doc! {"zip": zip, "phones": [{"kind": "mobile", "number": number}]};
                if version {
                    set.insert("schema_version", 2);
                }
                doc! {"$set": set, "$unset": {"phone": 1}}
            }
            Err(_) if version => doc! {"$set": {"schema_version": 1}},
            Err(_) => continue,
        };
        c.update_one(doc! {"_id": id}, update)
            .await
            .expect("update");
    }
}

fn versioned(db: &Database) -> Fut<'_> {
    Box::pin(migrate(db, true))
}

/// Wrong: migrated, nothing tells the shapes apart.
fn unversioned(db: &Database) -> Fut<'_> {
    Box::pin(migrate(db, false))
}

/// Wrong: the new writer's documents deleted.
fn new_deleted(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_customers")
            .delete_many(doc! {"phone": {"$type": "object"}})
            .await
            .expect("delete");
    })
}

/// Wrong: the object phones dropped and zip made text: one type per path,
/// the numbers gone.
fn phones_dropped(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_customers")
            .update_many(
                doc! {"phone": {"$type": "object"}},
                vec![
                    doc! {"$set": {"zip": {"$toString": "$zip"}}},
                    doc! {"$unset": "phone"},
                ],
            )
            .await
            .expect("update");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn schema_version() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "mixed-types still fires on",
                "schema_evolution.bad_customers",
            ],
        ),
        (
            "versioned",
            versioned,
            true,
            &["100 customers in 2 shapes, told apart by schema_version"],
        ),
        (
            "not versioned",
            unversioned,
            false,
            &["bad_customers holds 2 shapes and no field tells them apart"],
        ),
        (
            "new documents deleted",
            new_deleted,
            false,
            &["bad_customers lost documents: seed wrote 100, 70 of them are still there"],
        ),
        (
            "phones dropped",
            phones_dropped,
            false,
            &["30 of 100 customers lost their zip code or phone number"],
        ),
    ];
    exercise(
        "polymorphic",
        "polymorphic/schema-version",
        &["schema_evolution"],
        cases,
    )
    .await;
}
