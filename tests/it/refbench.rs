//! References scored against declared foreign keys: relational databases
//! whose foreign keys are known, turned into documents (`../shared/refbench`
//! and `tests/refbench`, each `NAME/{int,oid,mixed}/DB/*.json` with a
//! `truth.tsv`), audited whole (`--full`) as files and, for one variant of
//! each, loaded into the test server. Every reference docshape reports is
//! held against the declared keys: precision (reported references that are
//! declared) and recall (declared ones reported), per variant.
//!
//! The variants are the three ways such data reaches MongoDB: `int`, the
//! SQL ids as they are (small integers, where only names can say what
//! refers to what); `oid`, every key an ObjectId; `mixed`, ObjectIds with
//! some references written as 24-hex strings and some 15 % dangling.
//!
//! Nothing here sets a threshold: the databases measure. Run with
//! `--nocapture` for the table.

use crate::common;

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use common::{client, docshape, json_ok, load_dir, repo, unique_db, uri};
use serde_json::Value;

/// Least precision and recall in every variant.
const MIN_PRECISION: f64 = 0.97;
const MIN_RECALL: f64 = 0.95;
const VARIANTS: [&str; 3] = ["int", "oid", "mixed"];

/// One benchmark database: its name, its directory, and its declared
/// references as `(coll.path, coll.key)`.
struct Bench {
    name: String,
    dir: PathBuf,
    truth: BTreeSet<(String, String)>,
}

fn benches() -> Vec<Bench> {
    let mut out = Vec::new();
    for root in [
        repo().join("../shared/refbench"),
        repo().join("tests/refbench"),
    ] {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join("truth.tsv").is_file())
            .collect();
        dirs.sort();
        for dir in dirs {
            let text = std::fs::read_to_string(dir.join("truth.tsv")).expect("truth.tsv");
            let truth = text
                .lines()
                .skip(1)
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let c: Vec<&str> = l.split('\t').collect();
                    (format!("{}.{}", c[0], c[1]), format!("{}.{}", c[2], c[3]))
                })
                .collect();
            let name = dir
                .file_name()
                .and_then(|n| n.to_str())
                .expect("name")
                .to_owned();
            out.push(Bench { name, dir, truth });
        }
    }
    assert!(
        out.iter().any(|b| b.name == "chinook") && out.iter().any(|b| b.name == "tpch"),
        "the benchmarks are missing: {:?}",
        out.iter().map(|b| &b.name).collect::<Vec<_>>()
    );
    out
}

/// The references of a report as `(coll.path, coll.key)`, the database
/// left out.
fn found(report: &Value) -> BTreeSet<(String, String)> {
    report["relationships"]
        .as_array()
        .expect("relationships")
        .iter()
        .filter(|r| r["kind"] != "embedded")
        .map(|r| {
            let strip = |k: &str| {
                let s = r[k].as_str().expect("a string");
                s.split_once('.').map_or(s, |(_, rest)| rest).to_owned()
            };
            (strip("from"), strip("to"))
        })
        .collect()
}

struct Score {
    precision: f64,
    recall: f64,
    wrong: Vec<String>,
    missed: Vec<String>,
}

fn score(truth: &BTreeSet<(String, String)>, got: &BTreeSet<(String, String)>) -> Score {
    let hit = got.intersection(truth).count() as f64;
    let show = |s: &(String, String)| format!("{} → {}", s.0, s.1);
    Score {
        precision: if got.is_empty() {
            1.0
        } else {
            hit / got.len() as f64
        },
        recall: hit / truth.len().max(1) as f64,
        wrong: got.difference(truth).map(show).collect(),
        missed: truth.difference(got).map(show).collect(),
    }
}

/// The one database directory of a variant (`int/chinook`).
fn db_dir(variant: &Path) -> PathBuf {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(variant)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", variant.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert_eq!(dirs.len(), 1, "one database in {}", variant.display());
    dirs.remove(0)
}

fn check(rows: &[(String, Score)]) {
    let mut table = String::from("benchmark         precision  recall\n");
    let mut failures = Vec::new();
    for (label, s) in rows {
        let _ = writeln!(table, "{label:<17} {:>9.2} {:>7.2}", s.precision, s.recall);
        if s.precision < MIN_PRECISION || s.recall < MIN_RECALL {
            failures.push(format!(
                "{label}: precision {:.2}, recall {:.2}; reported but not declared: {:?}; declared but not reported: {:?}",
                s.precision, s.recall, s.wrong, s.missed
            ));
        }
    }
    println!("{table}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn declared_foreign_keys_found_in_files() {
    let mut rows = Vec::new();
    for b in benches() {
        for v in VARIANTS {
            let dir = b.dir.join(v);
            let report = json_ok(&docshape(&[
                "audit",
                dir.to_str().expect("utf-8"),
                "--full",
                "--no-snapshot",
                "--format",
                "json",
                "--fail-on",
                "never",
            ]));
            rows.push((format!("{}/{v}", b.name), score(&b.truth, &found(&report))));
        }
    }
    check(&rows);
}

/// The mixed variant of each benchmark, loaded into the server: its
/// probes, conversions and fan-outs are the server's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_foreign_keys_found_on_the_server() {
    let c = client().await;
    let mut rows = Vec::new();
    for b in benches() {
        let dir = db_dir(&b.dir.join("mixed"));
        let db = unique_db(&format!("refbench_{}", b.name));
        load_dir(&c, &dir, &db).await;
        let report = json_ok(&docshape(&[
            "audit",
            &uri(),
            "--db",
            &db,
            "--full",
            "--no-snapshot",
            "--format",
            "json",
            "--fail-on",
            "never",
        ]));
        rows.push((
            format!("{}/mixed server", b.name),
            score(&b.truth, &found(&report)),
        ));
        c.database(&db).drop().await.expect("drop");
    }
    check(&rows);
}
