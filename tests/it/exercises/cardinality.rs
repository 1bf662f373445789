//! The exercises of lesson `cardinality`.

use bson::{doc, Document};
use mongodb::{Database, IndexModel};

use super::{all, exercise, untouched, Fix};

/// The lesson's design: each log message a document holding its host's id,
/// the reference indexed, the array gone.
fn logs_out(db: &Database) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
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
fn logs_deleted(
    db: &Database,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_hosts")
            .update_many(doc! {}, doc! {"$unset": {"logs": 1}})
            .await
            .expect("unset");
    })
}

/// Wrong: the hosts dropped altogether.
fn hosts_dropped(
    db: &Database,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_hosts")
            .drop()
            .await
            .expect("drop");
    })
}

/// Wrong: the array renamed away.
fn logs_renamed(
    db: &Database,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_hosts")
            .update_many(doc! {}, doc! {"$rename": {"logs": "history"}})
            .await
            .expect("rename");
    })
}

/// Wrong: moved, but the reference not indexed.
fn moved_unindexed(
    db: &Database,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        move_logs(db, false).await;
    })
}

/// Wrong: only the newest ten messages kept, the rest thrown away.
fn capped(db: &Database) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + '_>> {
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
