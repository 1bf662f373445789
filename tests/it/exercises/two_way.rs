//! The exercises of lesson `two-way`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use mongodb::{Database, IndexModel};

use super::{all, exercise, untouched, Fix};

async fn index_owner(db: &Database) {
    db.collection::<Document>("bad_tasks")
        .create_index(IndexModel::builder().keys(doc! {"owner": 1}).build())
        .await
        .expect("index");
}

/// The fix: the missing index.
fn owner_indexed(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(index_owner(db))
}

/// Also right: indexed, and a task reassigned on both sides.
fn reassigned_on_both_sides(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        index_owner(db).await;
        let (task, from, to) = one_reassignment(db).await;
        let people = db.collection::<Document>("bad_people");
        db.collection::<Document>("bad_tasks")
            .update_one(doc! {"_id": &task}, doc! {"$set": {"owner": &to}})
            .await
            .expect("task");
        people
            .update_one(doc! {"_id": from}, doc! {"$pull": {"task_ids": &task}})
            .await
            .expect("pull");
        people
            .update_one(doc! {"_id": to}, doc! {"$push": {"task_ids": task}})
            .await
            .expect("push");
    })
}

/// A task, its owner and another person.
async fn one_reassignment(db: &Database) -> (bson::Bson, bson::Bson, bson::Bson) {
    let tasks = all(db, "bad_tasks").await;
    let people = all(db, "bad_people").await;
    let task = tasks[0].get("_id").cloned().expect("_id");
    let from = tasks[0].get("owner").cloned().expect("owner");
    let to = people
        .iter()
        .filter_map(|p| p.get("_id"))
        .find(|id| **id != from)
        .cloned()
        .expect("another person");
    (task, from, to)
}

/// Wrong: indexed, but a task reassigned on the task side only.
fn reassigned_on_one_side(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        index_owner(db).await;
        let (task, _, to) = one_reassignment(db).await;
        db.collection::<Document>("bad_tasks")
            .update_one(doc! {"_id": task}, doc! {"$set": {"owner": to}})
            .await
            .expect("task");
    })
}

/// Wrong: the unindexed direction removed.
fn owner_removed(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_tasks")
            .update_many(doc! {}, doc! {"$unset": {"owner": 1}})
            .await
            .expect("unset");
    })
}

/// Wrong: the tasks deleted.
fn tasks_dropped(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_tasks")
            .drop()
            .await
            .expect("drop");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn both_directions() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &["missing-reference-index still fires on", "bad_tasks.owner"],
        ),
        (
            "owner indexed",
            owner_indexed,
            true,
            &["all 90 tasks name their owner (indexed)"],
        ),
        (
            "indexed, reassigned on both sides",
            reassigned_on_both_sides,
            true,
            &["all 90 tasks"],
        ),
        (
            "indexed, reassigned on one side",
            reassigned_on_one_side,
            false,
            &[
                "the two directions disagree (tasks: 1)",
                "is owned by",
                "Hint 2 of 3",
            ],
        ),
        (
            "owner removed",
            owner_removed,
            false,
            &["90 of 90 tasks no longer name their owner"],
        ),
        (
            "tasks dropped",
            tasks_dropped,
            false,
            &["bad_tasks is gone: seed wrote 90 documents"],
        ),
    ];
    exercise("two-way", "two-way/both-directions", &["two_way"], cases).await;
}
