//! The exercises of lesson `refine-by-workload`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Document};
use futures_util::TryStreamExt;
use mongodb::{Database, IndexModel};

use crate::common::{docshape_async, stderr, stdout, unique_db, uri};
use crate::exercises::{squash, untouched, Fix};

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
        for g in crate::exercises::all(db, "bad_groups").await {
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

/// The cases of refine-by-workload/group-copies.
const GROUP_CASES: &[Expected] = &[
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

/// The cases of refine-by-workload/avatars.
const AVATAR_CASES: &[Expected] = &[
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

/// One seeded database, a fix of each exercise applied to it.
async fn paired(db: &Database, group: Fix, avatars: Fix) {
    group(db).await;
    avatars(db).await;
}

macro_rules! pair {
    ($name:ident, $g:expr, $a:expr) => {
        fn $name(db: &Database) -> Fut<'_> {
            Box::pin(paired(db, $g, $a))
        }
    };
}
pair!(pair0, GROUP_CASES[0].1, AVATAR_CASES[0].1);
pair!(pair1, GROUP_CASES[1].1, AVATAR_CASES[1].1);
pair!(pair2, GROUP_CASES[2].1, AVATAR_CASES[2].1);
pair!(pair3, GROUP_CASES[3].1, AVATAR_CASES[3].1);
pair!(pair4, GROUP_CASES[4].1, AVATAR_CASES[4].1);
pair!(pair5, GROUP_CASES[5].1, AVATAR_CASES[1].1);

/// Both exercises work on `contacts` (about 60 MB with its avatars, seeded
/// once per case); eleven such databases overwhelm the in-memory test server
/// (it answers an insert with an internal error; dropping them between does
/// not help). So each seeded database takes a fix of each exercise — the
/// i-th case of one with the i-th of the other (the sixth with the correct
/// avatar move again) — and `exercise` grades one exercise per run, while
/// `exercise_pairs` reads both verdicts from the same run.
#[tokio::test(flavor = "current_thread")]
async fn contacts() {
    let pairs: [Fix; 6] = [pair0, pair1, pair2, pair3, pair4, pair5];
    let avatar_of = [0, 1, 2, 3, 4, 1];
    let cases: Vec<Case> = pairs
        .iter()
        .enumerate()
        .map(|(i, fix)| Case {
            fix: *fix,
            expect: vec![
                ("refine-by-workload/group-copies", GROUP_CASES[i]),
                ("refine-by-workload/avatars", AVATAR_CASES[avatar_of[i]]),
            ],
        })
        .collect();
    exercise_pairs("refine-by-workload", &["contacts"], &cases).await;
}

/// A case of one exercise: name, fix, should pass, words.
type Expected = (&'static str, Fix, bool, &'static [&'static str]);

/// One seeded database: its fix, and per exercise the case it stands for
/// (name, fix, should pass, words).
struct Case {
    fix: Fix,
    expect: Vec<(&'static str, Expected)>,
}

/// Seeds `datasets` once per case, applies its fix, runs `lesson --check`
/// once and checks every exercise's verdict in that output, as `exercise`
/// does for one.
async fn exercise_pairs(lesson: &str, datasets: &[&str], cases: &[Case]) {
    let target = uri();
    let started = std::time::Instant::now();
    let runs = cases.iter().map(|c| {
        let target = target.clone();
        async move {
            let prefix = format!("{}_", unique_db("x"));
            let mut args = vec!["seed", target.as_str(), "--prefix", &prefix];
            for d in datasets {
                args.extend(["--dataset", d]);
            }
            let out = docshape_async(&args).await;
            assert!(out.status.success(), "seed: {}", stderr(&out));
            let client = mongodb::Client::with_uri_str(&target)
                .await
                .expect("client");
            (c.fix)(&client.database(&format!("{prefix}{}", datasets[0]))).await;
            let out = docshape_async(&[
                "lesson", lesson, "--check", &target, "--prefix", &prefix, "--lang", "en",
            ])
            .await;
            assert!(
                matches!(out.status.code(), Some(0 | 1)),
                "--check failed ({}): {}",
                out.status,
                stderr(&out)
            );
            stdout(&out)
        }
    });
    let outputs = futures_util::future::join_all(runs).await;
    for (c, all) in cases.iter().zip(&outputs) {
        for (id, (name, _, pass, words)) in &c.expect {
            let block = all
                .split("\n\n")
                .find(|b| {
                    b.lines()
                        .next()
                        .is_some_and(|l| l.split_whitespace().nth(1) == Some(*id))
                })
                .unwrap_or_else(|| panic!("no verdict for {id} in: {all}"));
            eprintln!("--- {id}, case {name}:\n{block}");
            let head = block.lines().next().unwrap_or_default();
            assert_eq!(
                head.starts_with("PASS"),
                *pass,
                "{id}, case {name}: expected {}, got:\n{block}",
                if *pass { "PASS" } else { "FAIL" }
            );
            if !pass {
                assert!(
                    block.contains("Still standing:") && block.contains("Hint "),
                    "{id}, case {name}: a failure shows its evidence and a hint:\n{block}"
                );
            }
            let flat = squash(block);
            for w in *words {
                assert!(
                    flat.contains(&squash(w)),
                    "{id}, case {name}: expected {w:?} in:\n{block}"
                );
            }
        }
    }
    eprintln!(
        "{lesson}: {} seeded cases in {:.1} s",
        cases.len(),
        started.elapsed().as_secs_f64()
    );
}
