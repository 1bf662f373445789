//! `docshape lesson NAME --check URI`: every exercise fails on the
//! untouched seeded data, passes after a correct refactor (written here as
//! a student would, with the driver), and fails with an explanation after
//! wrong fixes — deleting the data that made the rule fire among them.
//!
//! One file per lesson. Each case seeds only the data sets it needs under
//! a prefix of its own, so a test's cases run at once (`join_all`).

mod bucket;
mod cardinality;
mod computed;
mod denormalization;
mod esr;
mod extended_reference;
mod indexes;
mod polymorphic;
mod pre_aggregated;
mod two_way;

use std::future::Future;
use std::pin::Pin;

use bson::Document;
use futures_util::TryStreamExt;
use mongodb::{Client, Database};

use crate::common::{self, docshape_async, stderr, stdout, unique_db, uri};

/// A student's fix, applied with the driver to the seeded database.
pub type Fix = for<'a> fn(&'a Database) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The untouched data: no fix at all.
pub fn untouched(_: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async {})
}

/// Megabytes of seeded copies the cases may hold at once (all tests of the
/// module share the server).
static ROOM: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(120);

/// What one `--check` printed for one exercise.
#[derive(Debug)]
pub struct Outcome {
    pub passed: bool,
    /// The exercise's block of the output.
    pub block: String,
    /// The exit code.
    pub code: Option<i32>,
}

/// Seeds `datasets` under a fresh prefix, applies `fix` to the database of
/// `datasets[0]`, runs `lesson LESSON --check` and returns what it said of
/// exercise `id`.
pub async fn case(
    target: &str,
    datasets: &[&str],
    lesson: &str,
    id: &str,
    fix: Fix,
    lang: &str,
) -> Outcome {
    // Megabytes a case's copy holds on the in-memory test server, whose
    // cache overflows when too many large copies exist at once.
    let weight: u32 = datasets
        .iter()
        .map(|d| match *d {
            "contacts" => 30,
            "blog" => 16,
            _ => 1,
        })
        .sum();
    let _room = ROOM.acquire_many(weight).await.expect("semaphore open");
    let prefix = format!("{}_", unique_db("x"));
    let mut args = vec!["seed", target, "--prefix", &prefix];
    for d in datasets {
        args.extend(["--dataset", d]);
    }
    let out = docshape_async(&args).await;
    assert!(out.status.success(), "seed: {}", stderr(&out));
    let client = Client::with_uri_str(target).await.expect("client");
    fix(&client.database(&format!("{prefix}{}", datasets[0]))).await;
    let out = docshape_async(&[
        "lesson",
        lesson,
        "--check",
        target,
        "--prefix",
        &prefix,
        "--lang",
        lang,
        "--timeout",
        "600",
    ])
    .await;
    let all = stdout(&out);
    // The databases go once checked: the in-memory test server holds every
    // case's copy otherwise (the contacts' avatars are 29 MB a copy).
    for d in datasets {
        let _ = client.database(&format!("{prefix}{d}")).drop().await;
    }
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "--check failed ({}): {}\n{all}",
        out.status,
        stderr(&out)
    );
    let block = all
        .split("\n\n")
        .find(|b| {
            b.lines()
                .next()
                .is_some_and(|l| l.split_whitespace().nth(1) == Some(id))
        })
        .unwrap_or_else(|| panic!("no verdict for {id} in: {all}"))
        .to_owned();
    let head = block.lines().next().unwrap_or_default();
    let passed = head.starts_with("PASS") || head.starts_with("通过");
    Outcome {
        passed,
        block,
        code: out.status.code(),
    }
}

/// Every document of a collection.
pub async fn all(db: &Database, coll: &str) -> Vec<Document> {
    db.collection::<Document>(coll)
        .find(Document::new())
        .await
        .expect("find")
        .try_collect()
        .await
        .expect("read")
}

/// Text with every run of whitespace made one space.
pub fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Runs the cases of one exercise at once; `cases` are (name, fix, should
/// pass, words the block must hold).
pub async fn exercise(
    lesson: &str,
    id: &str,
    datasets: &[&str],
    cases: &[(&str, Fix, bool, &[&str])],
) {
    let target = uri();
    let started = std::time::Instant::now();
    let runs = cases
        .iter()
        .map(|(_, fix, _, _)| case(&target, datasets, lesson, id, *fix, "en"));
    let outcomes = futures_util::future::join_all(runs).await;
    for ((name, _, pass, words), o) in cases.iter().zip(&outcomes) {
        eprintln!("--- {id}, case {name}:\n{}", o.block);
        assert_eq!(
            o.passed,
            *pass,
            "{id}, case {name}: expected {}, got:\n{}",
            if *pass { "PASS" } else { "FAIL" },
            o.block
        );
        if !pass {
            assert_eq!(
                o.code,
                Some(1),
                "{id}, case {name}: a failed exercise exits 1"
            );
            assert!(
                o.block.contains("Still standing:") && o.block.contains("Hint "),
                "{id}, case {name}: a failure shows its evidence and a hint:\n{}",
                o.block
            );
        }
        // Words are matched across the output's line wrapping.
        let flat = squash(&o.block);
        for w in *words {
            assert!(
                flat.contains(&squash(w)),
                "{id}, case {name}: expected {w:?} in:\n{}",
                o.block
            );
        }
    }
    eprintln!(
        "{id}: {} cases in {:.1} s",
        cases.len(),
        started.elapsed().as_secs_f64()
    );
}

/// The contract's errors: a bad URI and an unreachable server exit 2 with
/// one sentence, the password never shown; an unknown lesson too.
#[test]
fn check_errors_are_one_sentence() {
    let out = common::docshape(&["lesson", "cardinality", "--check", "notauri://x"]);
    common::assert_fails_cleanly(&out, "bad uri");
    let port = common::free_port();
    let unreachable = format!("mongodb://student:s3cret@127.0.0.1:{port}/");
    let out = common::docshape(&[
        "lesson",
        "cardinality",
        "--check",
        &unreachable,
        "--timeout",
        "3",
    ]);
    let line = common::assert_fails_cleanly(&out, "unreachable server");
    assert!(!line.contains("s3cret"), "{line}");
    let out = common::docshape(&[
        "lesson",
        "cardinality",
        "--check",
        &uri(),
        "--prefix",
        "nobody_seeded_this_",
    ]);
    let line = common::assert_fails_cleanly(&out, "nothing seeded");
    assert!(line.contains("seed"), "{line}");
}

/// A lesson without `--check` ends with its exercises' tasks, in both
/// languages.
#[test]
fn lessons_end_with_their_exercises() {
    let data = common::repo().join("sample-data");
    let data = data.to_str().expect("utf-8");
    for (lang, head) in [
        ("en", "Exercises (check your fix"),
        ("zh", "练习（检查你的修改"),
    ] {
        let out = common::docshape_env(
            &["lesson", "cardinality", "--lang", lang],
            &[("DOCSHAPE_SAMPLE_DATA", data), ("MONGODB_URI", "")],
        );
        let text = stdout(&out);
        assert!(out.status.success(), "{}", stderr(&out));
        let tail = text
            .split(head)
            .nth(1)
            .unwrap_or_else(|| panic!("no exercises in: {text}"));
        for id in [
            "cardinality/embed-addresses",
            "cardinality/part-references",
            "cardinality/host-logs",
        ] {
            assert!(tail.contains(id), "{lang}: {id} missing from: {tail}");
        }
    }
}

/// `--check` in Chinese; exit 0 once every exercise of the lesson passes,
/// 1 before.
#[tokio::test(flavor = "current_thread")]
async fn check_in_chinese_and_exit_codes() {
    let target = uri();
    let before = case(
        &target,
        &["two_way"],
        "two-way",
        "two-way/both-directions",
        untouched,
        "zh",
    )
    .await;
    assert!(!before.passed);
    assert_eq!(before.code, Some(1));
    for w in [
        "未通过",
        "仍然存在：",
        "missing-reference-index 仍然在",
        "提示 1/3：",
    ] {
        assert!(
            before.block.contains(w),
            "{w:?} missing from:\n{}",
            before.block
        );
    }
    let after = case(
        &target,
        &["two_way"],
        "two-way",
        "two-way/both-directions",
        index_owner,
        "zh",
    )
    .await;
    assert!(after.passed, "{}", after.block);
    assert_eq!(
        after.code,
        Some(0),
        "every exercise of two-way passed: exit 0"
    );
    assert!(after.block.contains("已确认："), "{}", after.block);
}

fn index_owner(db: &Database) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
    Box::pin(async move {
        db.collection::<Document>("bad_tasks")
            .create_index(
                mongodb::IndexModel::builder()
                    .keys(bson::doc! {"owner": 1})
                    .build(),
            )
            .await
            .expect("index");
    })
}
