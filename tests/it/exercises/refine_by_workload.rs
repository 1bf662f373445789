//! The exercises of lesson `refine-by-workload`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use mongodb::{Database, IndexModel};

use super::{exercise, untouched, Fix};

type Fut<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

async fn to_reference(db: &Database, index: bool) {
    let c = db.collection::<Document>("bad_contacts");
    c.update_many(
        doc! {},
        vec![
            doc! {"$set": {"group_id": "$group.id"}},
            doc! {"$unset": "group"},
        ],
    )
    .await
    .expect("update");
    if index {
        c.create_index(IndexModel::builder().keys(doc! {"group_id": 1}).build())
            .await
            .expect("index");
    }
}

/// The lesson's fix: the group's id alone, indexed.
fn reference(db: &Database) -> Fut<'_> {
    Box::pin(to_reference(db, true))
}

/// Also right: group.id kept (already indexed), the copied fields dropped.
fn id_only(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_contacts")
            .update_many(
                doc! {},
                doc! {"$unset": {"group.name": 1, "group.description": 1, "group.owner": 1}},
            )
            .await
            .expect("unset");
    })
}

/// Wrong: the copies refreshed from bad_groups (drift gone, copies kept).
fn refreshed(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        let contacts = db.collection::<Document>("bad_contacts");
        for g in super::all(db, "bad_groups").await {
            contacts
                .update_many(
                    doc! {"group.id": g.get("_id").cloned()},
                    doc! {"$set": {"group.name": g.get("name").cloned(), "group.description": g.get("description").cloned()}},
                )
                .await
                .expect("refresh");
        }
    })
}

/// Wrong: the group dropped from the contacts altogether.
fn group_deleted(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_contacts")
            .update_many(doc! {}, doc! {"$unset": {"group": 1}})
            .await
            .expect("unset");
    })
}

/// Wrong: the reference moved, not indexed.
fn unindexed(db: &Database) -> Fut<'_> {
    Box::pin(to_reference(db, false))
}

#[tokio::test(flavor = "current_thread")]
async fn group_copies() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "denormalization-drift still fires on",
                "contacts.bad_contacts.group",
            ],
        ),
        (
            "group_id, indexed",
            reference,
            true,
            &["all 44 contacts reference their group by group_id (indexed)"],
        ),
        ("group.id kept alone", id_only, true, &["by group.id"]),
        (
            "copies refreshed",
            refreshed,
            false,
            &["44 of 44 contacts still copy their group's fields"],
        ),
        (
            "group deleted",
            group_deleted,
            false,
            &["the contacts no longer hold their group's _id"],
        ),
        (
            "reference not indexed",
            unindexed,
            false,
            &[
                "no index of bad_contacts starts with group_id",
                "Hint 3 of 3",
            ],
        ),
    ];
    exercise(
        "refine-by-workload",
        "refine-by-workload/group-copies",
        &["contacts"],
        cases,
    )
    .await;
}
