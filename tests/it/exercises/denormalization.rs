//! The exercises of lesson `denormalization`.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use bson::{doc, Bson, Document};
use mongodb::{Database, IndexModel};

use super::{all, exercise, untouched, Fix};

type Step<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Rewrites every document of `coll` with `f`.
async fn rewrite(db: &Database, coll: &str, f: impl Fn(&mut Document)) {
    let c = db.collection::<Document>(coll);
    for mut d in all(db, coll).await {
        f(&mut d);
        let id = d.get("_id").cloned().expect("_id");
        c.replace_one(doc! {"_id": id}, d).await.expect("replace");
    }
}

/// `_id` → name of every document of `coll`.
async fn names(db: &Database, coll: &str) -> HashMap<Bson, Bson> {
    all(db, coll)
        .await
        .into_iter()
        .filter_map(|d| Some((d.get("_id")?.clone(), d.get("name")?.clone())))
        .collect()
}

/// The fix: every copy set from its source.
fn copies_updated(db: &Database) -> Step<'_> {
    Box::pin(async move {
        let (parts, products) = (
            names(db, "bad_parts").await,
            names(db, "bad_products").await,
        );
        rewrite(db, "bad_products", |p| {
            if let Ok(elems) = p.get_array_mut("parts") {
                for e in elems.iter_mut() {
                    if let Some(e) = e.as_document_mut() {
                        if let Some(n) = e.get("id").and_then(|id| parts.get(id)) {
                            e.insert("name", n.clone());
                        }
                    }
                }
            }
        })
        .await;
        rewrite(db, "bad_parts", |p| {
            if let Ok(copy) = p.get_document_mut("product") {
                if let Some(n) = copy.get("id").and_then(|id| products.get(id)) {
                    copy.insert("name", n.clone());
                }
            }
        })
        .await;
    })
}

/// Wrong: the copies deleted.
fn copies_deleted(db: &Database) -> Step<'_> {
    Box::pin(async move {
        rewrite(db, "bad_products", |p| {
            if let Ok(elems) = p.get_array_mut("parts") {
                for e in elems.iter_mut() {
                    if let Some(e) = e.as_document_mut() {
                        e.remove("name");
                    }
                }
            }
        })
        .await;
        rewrite(db, "bad_parts", |p| {
            if let Ok(copy) = p.get_document_mut("product") {
                copy.remove("name");
            }
        })
        .await;
    })
}

/// Wrong: the sources renamed back to what the copies say.
fn sources_reverted(db: &Database) -> Step<'_> {
    Box::pin(async move {
        let mut copied: HashMap<Bson, Bson> = HashMap::new();
        for p in all(db, "bad_products").await {
            for e in p
                .get_array("parts")
                .expect("parts")
                .iter()
                .filter_map(Bson::as_document)
            {
                copied.insert(
                    e.get("id").cloned().expect("id"),
                    e.get("name").cloned().expect("name"),
                );
            }
        }
        for part in all(db, "bad_parts").await {
            if let Some(c) = part
                .get_document("product")
                .ok()
                .and_then(|c| Some((c.get("id")?.clone(), c.get("name")?.clone())))
            {
                copied.insert(c.0, c.1);
            }
        }
        for coll in ["bad_parts", "bad_products"] {
            rewrite(db, coll, |d| {
                if let Some(n) = d.get("_id").and_then(|id| copied.get(id)) {
                    d.insert("name", n.clone());
                }
            })
            .await;
        }
    })
}

/// Wrong: the parts dropped.
fn parts_dropped(db: &Database) -> Step<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_parts")
            .drop()
            .await
            .expect("drop");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn copies_in_step() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "denormalization-drift still fires on",
                "name copies still differ from their source",
            ],
        ),
        (
            "copies updated from their sources",
            copies_updated,
            true,
            &["all 200 name copies are there"],
        ),
        (
            "copies deleted",
            copies_deleted,
            false,
            &["200 of the 200 name copies seed wrote are gone"],
        ),
        (
            "sources renamed back",
            sources_reverted,
            false,
            &[
                "sources in bad_parts no longer hold their current name",
                "(rev B)",
            ],
        ),
        (
            "parts dropped",
            parts_dropped,
            false,
            &["bad_parts is gone: seed wrote 100 documents"],
        ),
    ];
    exercise(
        "denormalization",
        "denormalization/copies-in-step",
        &["denormalization"],
        cases,
    )
    .await;
}

/// The fix: the group referenced by id, indexed.
fn group_referenced(db: &Database) -> Step<'_> {
    Box::pin(async move {
        reference_groups(db).await;
        db.collection::<Document>("bad_contacts")
            .create_index(IndexModel::builder().keys(doc! {"group_id": 1}).build())
            .await
            .expect("index");
    })
}

async fn reference_groups(db: &Database) {
    let c = db.collection::<Document>("bad_contacts");
    let contacts: Vec<Document> = {
        use futures_util::TryStreamExt;
        c.find(doc! {})
            .projection(doc! {"group.id": 1})
            .await
            .expect("find")
            .try_collect()
            .await
            .expect("read")
    };
    for d in contacts {
        let gid = d
            .get_document("group")
            .expect("group")
            .get("id")
            .cloned()
            .expect("id");
        c.update_one(
            doc! {"_id": d.get("_id").cloned().expect("_id")},
            doc! {"$set": {"group_id": gid}, "$unset": {"group": 1}},
        )
        .await
        .expect("update");
    }
}

/// Wrong: referenced, but not indexed.
fn group_referenced_unindexed(db: &Database) -> Step<'_> {
    Box::pin(reference_groups(db))
}

/// Wrong: the copies brought in step instead (the design kept).
fn group_copies_synced(db: &Database) -> Step<'_> {
    Box::pin(async move {
        let c = db.collection::<Document>("bad_contacts");
        for g in all(db, "bad_groups").await {
            c.update_many(
                doc! {"group.id": g.get("_id").cloned().expect("_id")},
                doc! {"$set": {"group.name": g.get("name").cloned(), "group.description": g.get("description").cloned()}},
            )
            .await
            .expect("sync");
        }
    })
}

/// Wrong: the group removed from the contacts.
fn group_deleted(db: &Database) -> Step<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_contacts")
            .update_many(doc! {}, doc! {"$unset": {"group": 1}})
            .await
            .expect("unset");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn group_reference() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "denormalization-drift still fires on",
                "44 contacts still copy their group",
            ],
        ),
        (
            "referenced by group_id, indexed",
            group_referenced,
            true,
            &["all 44 contacts reference their group through bad_contacts.group_id"],
        ),
        (
            "referenced, not indexed",
            group_referenced_unindexed,
            false,
            &[
                "no index of bad_contacts starts with group_id",
                "Hint 3 of 3",
            ],
        ),
        (
            "copies synced instead",
            group_copies_synced,
            false,
            &["44 contacts still copy their group", "Hint 1 of 3"],
        ),
        (
            "group deleted from contacts",
            group_deleted,
            false,
            &["44 of 44 contacts no longer reference their group by _id (44 reference none"],
        ),
    ];
    exercise(
        "denormalization",
        "denormalization/group-reference",
        &["contacts"],
        cases,
    )
    .await;
}
