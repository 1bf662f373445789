//! The exercises of lesson `refine-by-workload`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use futures_util::TryStreamExt;
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

/// Moves each embedded avatar into bad_avatars (cut short by `cut` bytes),
/// referenced from the contact by avatar_id (or not).
async fn move_avatars(db: &Database, cut: usize, reference: bool) {
    let contacts = db.collection::<Document>("bad_contacts");
    let avatars = db.collection::<Document>("bad_avatars");
    let with: Vec<Document> = contacts
        .find(doc! {"avatar": {"$exists": true}})
        .await
        .expect("find")
        .try_collect()
        .await
        .expect("read");
    for c in with {
        let id = c.get("_id").cloned().expect("_id");
        let mut bin = c.get_binary_generic("avatar").expect("avatar").clone();
        bin.truncate(bin.len() - cut);
        let data = bson::Binary {
            subtype: bson::spec::BinarySubtype::Generic,
            bytes: bin,
        };
        let new = avatars
            .insert_one(doc! {"contact": id.clone(), "data": data})
            .await
            .expect("insert")
            .inserted_id;
        let mut update = doc! {"$unset": {"avatar": 1}};
        if reference {
            update.insert("$set", doc! {"avatar_id": new});
        }
        contacts
            .update_one(doc! {"_id": id}, update)
            .await
            .expect("update");
    }
}

fn avatars_out(db: &Database) -> Fut<'_> {
    Box::pin(move_avatars(db, 0, true))
}

/// Wrong: moved, but the contacts do not say where.
fn avatars_unreferenced(db: &Database) -> Fut<'_> {
    Box::pin(move_avatars(db, 0, false))
}

/// Wrong: moved with their last kilobyte lost.
fn avatars_cut(db: &Database) -> Fut<'_> {
    Box::pin(move_avatars(db, 1024, true))
}

/// Wrong: the avatars deleted.
fn avatars_deleted(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_contacts")
            .update_many(doc! {}, doc! {"$unset": {"avatar": 1}})
            .await
            .expect("unset");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn avatars() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &["bloated-document still fires on", "contacts.bad_contacts"],
        ),
        (
            "moved to bad_avatars, referenced",
            avatars_out,
            true,
            &["the 4 avatars (29,000,000 bytes) are out of bad_contacts"],
        ),
        (
            "moved without a reference",
            avatars_unreferenced,
            false,
            &["avatar (", "is nowhere"],
        ),
        (
            "a kilobyte lost",
            avatars_cut,
            false,
            &["referenced by avatar_id in bad_avatars, holds 4,998,976 of its 5,000,000 bytes"],
        ),
        ("deleted", avatars_deleted, false, &["is nowhere"]),
    ];
    exercise(
        "refine-by-workload",
        "refine-by-workload/avatars",
        &["contacts"],
        cases,
    )
    .await;
}
