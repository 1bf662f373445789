//! `docshape diff`: drift planted between two versions of a collection is
//! found, two samples of one unchanged collection show nothing, and a
//! side that is no report fails cleanly.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};

use crate::common::{assert_fails_cleanly, docshape, stderr, stdout};

/// A small, seeded generator (splitmix64): the test's data and its
/// shuffles are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 > 1.0 - p
    }
}

/// A person of version 1, or of version 2: there `age` is a string in
/// 30 % of documents, `phone` is new, and `city` is in 60 % instead of all.
fn person(i: u64, v2: bool, r: &mut Rng) -> Value {
    let age = 18 + r.below(70);
    let mut d = json!({"_id": i, "name": format!("p{i}"), "email": format!("p{i}@example.com")});
    d["age"] = if v2 && r.chance(0.3) {
        json!(age.to_string())
    } else {
        json!(age)
    };
    if !v2 || r.chance(0.6) {
        d["city"] = json!(format!("c{}", r.below(50)));
    }
    if v2 {
        d["phone"] = json!(format!("555-{:04}", r.below(10_000)));
    }
    d
}

/// Writes `docs` as `ROOT/crm/people.jsonl`, a target of one collection.
fn write(root: &Path, docs: &[Value]) {
    let dir = root.join("crm");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let lines: Vec<String> = docs.iter().map(Value::to_string).collect();
    std::fs::write(dir.join("people.jsonl"), lines.join("\n") + "\n").expect("write");
}

/// Audits `root` (a sample of 1,000 per collection) into `out` as JSON.
fn audit(root: &Path, out: &Path) {
    let o = docshape(&[
        "audit",
        root.to_str().expect("UTF-8"),
        "--format",
        "json",
        "--sample",
        "1000",
        "--no-snapshot",
        "--fail-on",
        "never",
        "-o",
        out.to_str().expect("UTF-8"),
    ]);
    assert!(o.status.success(), "audit failed: {}", stderr(&o));
}

fn diff(before: &Path, after: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "diff",
        before.to_str().expect("UTF-8"),
        after.to_str().expect("UTF-8"),
    ];
    args.extend_from_slice(extra);
    docshape(&args)
}

fn changes(o: &std::process::Output) -> Vec<Value> {
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("diff's stdout is not JSON ({e}): {}", stdout(o)));
    v["changes"].as_array().expect("changes").clone()
}

fn find<'a>(changes: &'a [Value], path: &str, kind: &str) -> Option<&'a Value> {
    changes
        .iter()
        .find(|c| c["namespace"] == "crm.people" && c["path"] == path && c["kind"] == kind)
}

/// Reports of 3,000 people of version 1 and of version 2, sampled.
fn versions(tmp: &Path) -> (PathBuf, PathBuf) {
    let mut r = Rng(7);
    for (name, v2) in [("v1", false), ("v2", true)] {
        let docs: Vec<Value> = (0..3000).map(|i| person(i, v2, &mut r)).collect();
        write(&tmp.join(name), &docs);
        audit(&tmp.join(name), &tmp.join(format!("{name}.json")));
    }
    (tmp.join("v1.json"), tmp.join("v2.json"))
}

#[test]
fn planted_drift_is_found_and_fails_the_run() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (v1, v2) = versions(tmp.path());
    let o = diff(&v1, &v2, &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let c = changes(&o);
    let age = find(&c, "age", "type-added").unwrap_or_else(|| panic!("no type change: {c:#?}"));
    assert_eq!(age["severity"], "warning");
    let string = age["after"]["string"].as_f64().expect("a string share");
    assert!((0.25..0.35).contains(&string), "{age}");
    assert!(age["confidence"].as_f64().expect("confidence") > 0.99);
    let phone = find(&c, "phone", "path-added").unwrap_or_else(|| panic!("no path: {c:#?}"));
    assert_eq!(phone["severity"], "info");
    let city = find(&c, "city", "presence-changed").unwrap_or_else(|| panic!("{c:#?}"));
    assert_eq!(city["before"]["presence"], 1.0);
    let after = city["after"]["presence"].as_f64().expect("presence");
    assert!((0.55..0.65).contains(&after), "{city}");
    assert_eq!(city["severity"], "warning");
    // Nothing else moved.
    for path in ["_id", "name", "email"] {
        assert!(
            c.iter().all(|x| x["path"] != path),
            "{path} did not change: {c:#?}"
        );
    }
    // Back again, the type and the path are gone.
    let back = changes(&diff(&v2, &v1, &["--format", "json"]));
    assert!(find(&back, "age", "type-removed").is_some(), "{back:#?}");
    assert!(find(&back, "phone", "path-removed").is_some(), "{back:#?}");

    // Text by default, into a file; Markdown; the threshold.
    let out = tmp.path().join("diff.txt");
    let o = diff(&v1, &v2, &["-o", out.to_str().expect("UTF-8")]);
    assert_eq!(o.status.code(), Some(1));
    let text = std::fs::read_to_string(&out).expect("written");
    assert!(
        text.contains("type-added") && text.contains("age"),
        "{text}"
    );
    let md = stdout(&diff(&v1, &v2, &["--format", "markdown"]));
    assert!(
        md.contains("| 🟠 warning | type-added | crm.people | age |"),
        "{md}"
    );
    assert_eq!(
        diff(&v1, &v2, &["--fail-on", "critical"]).status.code(),
        Some(0)
    );
    assert_eq!(
        diff(&v1, &v2, &["--fail-on", "never"]).status.code(),
        Some(0)
    );
    // A side that is a target is audited first, with audit's defaults.
    let dir = tmp.path().join("v2");
    let o = diff(&v1, &dir, &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["after"], dir.to_str().expect("UTF-8"));
    assert!(find(&changes(&o), "age", "type-added").is_some());
    // Narrowed to other collections, there is nothing to compare.
    let none = diff(&v1, &v2, &["--format", "json", "-c", "crm.other*"]);
    assert_eq!(none.status.code(), Some(0));
    assert!(changes(&none).is_empty());
    // A report against itself: nothing.
    let same = diff(&v1, &v1, &["--format", "json", "--fail-on", "info"]);
    assert_eq!(same.status.code(), Some(0));
    assert!(changes(&same).is_empty());
}

/// An order of version 1, or of version 2: there its `tags` are three
/// times as long and its `note` twice as long, so that the document is
/// about twice the size; `lines[].codes` (an array under an array) grows
/// too, but is not compared.
fn order(i: u64, v2: bool, r: &mut Rng) -> Value {
    let k = if v2 { 3 } else { 1 };
    let tags: Vec<Value> = (0..k * r.below(6))
        .map(|t| json!(format!("t{t}")))
        .collect();
    let note =
        "x".repeat(usize::try_from(100 + r.below(200)).expect("small") * (k as usize).min(2));
    let lines: Vec<Value> = (0..2)
        .map(|_| json!({"codes": (0..k * r.below(3)).collect::<Vec<_>>()}))
        .collect();
    json!({"_id": i, "tags": tags, "note": note, "lines": lines})
}

/// Arrays three times as long and documents twice the size: each found,
/// with its kind, a warning, and the run fails.
#[test]
fn longer_arrays_and_larger_documents_are_found() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut r = Rng(33);
    for (name, v2) in [("v1", false), ("v2", true)] {
        let docs: Vec<Value> = (0..3000).map(|i| order(i, v2, &mut r)).collect();
        let dir = tmp.path().join(name).join("crm");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let lines: Vec<String> = docs.iter().map(Value::to_string).collect();
        std::fs::write(dir.join("people.jsonl"), lines.join("\n") + "\n").expect("write");
        audit(
            &tmp.path().join(name),
            &tmp.path().join(format!("{name}.json")),
        );
    }
    let (v1, v2) = (tmp.path().join("v1.json"), tmp.path().join("v2.json"));
    let report: Value =
        serde_json::from_slice(&std::fs::read(&v1).expect("read")).expect("a JSON report");
    let c = crate::common::collection(&report, "crm.people");
    assert!(c["doc_size_histogram"].is_array(), "{c:#}");
    assert!(
        crate::common::field(c, "tags")["array_histogram"].is_array(),
        "{c:#}"
    );
    let o = diff(&v1, &v2, &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let c = changes(&o);
    let tags = find(&c, "tags", "array-length-changed")
        .unwrap_or_else(|| panic!("no length change: {c:#?}"));
    assert_eq!(tags["severity"], "warning");
    assert!(tags["confidence"].as_f64().expect("confidence") > 0.99);
    let (p50b, p50a) = (
        tags["before"]["p50"].as_u64().expect("p50"),
        tags["after"]["p50"].as_u64().expect("p50"),
    );
    assert!(p50a >= 2 * p50b.max(1), "{tags}");
    assert!(tags["before"].get("max").is_none(), "{tags}");
    let size = c
        .iter()
        .find(|x| x["kind"] == "size-changed" && x["namespace"] == "crm.people")
        .unwrap_or_else(|| panic!("no size change: {c:#?}"));
    assert_eq!(size["severity"], "warning");
    assert!(size.get("path").is_none(), "{size}");
    assert!(size["distance"].as_f64().expect("distance") > 0.5, "{size}");
    assert!(
        c.iter().all(|x| x["path"] != "lines[].codes"),
        "an array under an array is not compared: {c:#?}"
    );
    let text = stdout(&diff(&v1, &v2, &[]));
    assert!(
        text.contains("array-length-changed") && text.contains("size-changed"),
        "{text}"
    );
    assert!(text.contains("of values moved"), "{text}");
}

/// A collection with what sampling makes noisy: an optional field at half
/// the documents, a type in 0.2 % of them, a path in 0.3 %, two types in
/// a steady mix, nested objects and arrays.
fn unchanged(n: u64) -> Vec<Value> {
    let mut r = Rng(11);
    (0..n)
        .map(|i| {
            let mut d = json!({"_id": i, "name": format!("p{i}")});
            d["age"] = if i % 500 == 7 {
                json!("forty")
            } else {
                json!(18 + r.below(70))
            };
            if r.chance(0.5) {
                d["city"] = json!(format!("c{}", r.below(50)));
            }
            if i % 333 == 5 {
                d["note"] = json!("rare");
            }
            d["score"] = if r.chance(0.3) {
                json!(r.below(100) as f64 + 0.5)
            } else {
                json!(r.below(100))
            };
            if r.chance(0.9) {
                d["address"] = json!({"zip": format!("{:05}", r.below(99_999)), "street": "Main"});
            }
            let tags: Vec<Value> = (0..r.below(5)).map(|t| json!(format!("t{t}"))).collect();
            d["tags"] = Value::Array(tags);
            d
        })
        .collect()
}

/// Two audits of one unchanged collection differ only by their samples:
/// the same 10,000 documents, shuffled differently, each audited with a
/// sample of 1,000 (the file sampler's seed is fixed per namespace, so a
/// new order draws a new sample).
///
/// The diff's family-wise level is 0.001: a pair shows a change of a
/// proportion or of a distribution (document sizes, the lengths of `tags`)
/// with probability at most 0.001 (Bonferroni). Over 50 independent pairs,
/// 4 or more false alarms come with probability at most
/// C(50,4) · 0.001⁴ = 230,300 · 1e-12 ≈ 2.3e-7, under one in a million:
/// the test allows 3.
#[test]
fn two_samples_of_an_unchanged_collection_are_no_change() {
    const PAIRS: u64 = 50;
    let started = Instant::now();
    let tmp = tempfile::tempdir().expect("tmp");
    let docs = unchanged(10_000);
    let mut r = Rng(2026);
    let mut shuffled = docs.clone();
    let (mut warned, mut any, mut compared) = (0, 0, 0);
    for pair in 0..PAIRS {
        let mut reports = Vec::new();
        for side in ["a", "b"] {
            // Fisher–Yates.
            for i in (1..shuffled.len()).rev() {
                let j = usize::try_from(r.below(i as u64 + 1)).expect("small");
                shuffled.swap(i, j);
            }
            let root = tmp.path().join(format!("{pair}{side}"));
            write(&root, &shuffled);
            let out = tmp.path().join(format!("{pair}{side}.json"));
            audit(&root, &out);
            std::fs::remove_dir_all(&root).expect("rm");
            reports.push(out);
        }
        if pair == 0 {
            // Sizes and array lengths are among the comparisons.
            let report: Value = serde_json::from_slice(&std::fs::read(&reports[0]).expect("read"))
                .expect("a JSON report");
            let c = crate::common::collection(&report, "crm.people");
            assert!(
                c["doc_size_histogram"]
                    .as_array()
                    .is_some_and(|b| b.len() > 3),
                "{c:#}"
            );
            let tags = crate::common::field(c, "tags");
            assert!(
                tags["array_histogram"]
                    .as_array()
                    .is_some_and(|b| b.len() == 5),
                "{tags:#}"
            );
        }
        let o = diff(&reports[0], &reports[1], &["--format", "json"]);
        let c = changes(&o);
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        compared += v["test"]["comparisons"].as_u64().expect("comparisons");
        let warning = c.iter().any(|x| x["severity"] != "info");
        assert_eq!(o.status.code(), Some(i32::from(warning)));
        if warning {
            warned += 1;
            eprintln!("pair {pair}: a false alarm: {c:#?}");
        }
        if !c.is_empty() {
            any += 1;
            eprintln!("pair {pair}: changes at info: {c:#?}");
        }
    }
    eprintln!(
        "{PAIRS} pairs, {compared} comparisons: {warned} with a warning change, {any} with any change, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(warned <= 3, "{warned} of {PAIRS} pairs raised a warning");
    assert!(any <= 3, "{any} of {PAIRS} pairs showed a change");
}

/// A rule near its threshold fires on one sample and not the next:
/// `code` holds a string in exactly 1 % of 10,000 documents, where
/// `mixed-types` begins, so a sample of 1,000 holds about 10 ± 3 and the
/// finding comes and goes between pairs. Such a flip, with nothing on its
/// path moved beyond sampling noise, is shown at `info` with the reason
/// and never fails the run.
#[test]
fn a_rule_near_its_threshold_does_not_fail_the_run() {
    const PAIRS: u64 = 12;
    let tmp = tempfile::tempdir().expect("tmp");
    let docs: Vec<Value> = (0..10_000u64)
        .map(|i| {
            let code = if i % 100 == 3 {
                json!(format!("c{i}"))
            } else {
                json!(i)
            };
            json!({"_id": i, "name": format!("p{i}"), "code": code})
        })
        .collect();
    let mut r = Rng(99);
    let mut shuffled = docs;
    let mut flips = 0;
    for pair in 0..PAIRS {
        let mut reports = Vec::new();
        for side in ["a", "b"] {
            for i in (1..shuffled.len()).rev() {
                let j = usize::try_from(r.below(i as u64 + 1)).expect("small");
                shuffled.swap(i, j);
            }
            let root = tmp.path().join(format!("t{pair}{side}"));
            write(&root, &shuffled);
            let out = tmp.path().join(format!("t{pair}{side}.json"));
            audit(&root, &out);
            std::fs::remove_dir_all(&root).expect("rm");
            reports.push(out);
        }
        let o = diff(&reports[0], &reports[1], &["--format", "json"]);
        let c = changes(&o);
        assert_eq!(o.status.code(), Some(0), "pair {pair}: {c:#?}");
        for x in &c {
            assert_eq!(x["severity"], "info", "pair {pair}: {x:#}");
            assert!(
                x["kind"] == "finding-added" || x["kind"] == "finding-resolved",
                "pair {pair}: {x:#}"
            );
            if x["kind"] == "finding-added" {
                assert!(
                    x["note"].as_str().is_some_and(|n| n.contains("threshold")),
                    "{x:#}"
                );
            }
        }
        flips += usize::from(!c.is_empty());
    }
    eprintln!(
        "{PAIRS} pairs near a threshold: {flips} with a finding that came or went, none a warning"
    );
    // Each pair flips with probability about one half: none in 12 comes
    // with probability about 0.5¹² ≈ 2.4e-4 (and the test would prove
    // nothing).
    assert!(flips > 0, "no pair flipped");
}

/// `audit TARGET --baseline FILE` is `diff FILE TARGET`: the same changes,
/// and `--fail-on` counting them (default warning); the unchanged target
/// against its own report shows none.
#[test]
fn audit_with_a_baseline_writes_what_changed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (v1, v2) = versions(tmp.path());
    let against = |dir: &str, extra: &[&str]| {
        let target = tmp.path().join(dir);
        let mut args = vec![
            "audit",
            target.to_str().expect("UTF-8"),
            "--sample",
            "1000",
            "--no-snapshot",
            "--baseline",
            v1.to_str().expect("UTF-8"),
        ];
        args.extend_from_slice(extra);
        docshape(&args)
    };
    let o = against("v2", &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let by_audit = changes(&o);
    let by_diff = changes(&diff(&v1, &v2, &["--format", "json"]));
    let kinds = |c: &[Value]| {
        let mut k: Vec<String> = c
            .iter()
            .map(|x| format!("{} {} {}", x["namespace"], x["path"], x["kind"]))
            .collect();
        k.sort();
        k
    };
    assert_eq!(
        kinds(&by_audit),
        kinds(&by_diff),
        "the same changes as diff"
    );
    assert!(
        find(&by_audit, "age", "type-added").is_some(),
        "{by_audit:#?}"
    );
    let o = against("v2", &["--fail-on", "never"]);
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let same = against("v1", &["--format", "json"]);
    assert_eq!(same.status.code(), Some(0), "stderr: {}", stderr(&same));
    assert!(
        changes(&same).iter().all(|c| c["severity"] == "info"),
        "{:#?}",
        changes(&same)
    );
    let o = against("v2", &["--format", "jsonl"]);
    let msg = assert_fails_cleanly(&o, "--baseline with jsonl");
    assert!(msg.contains("jsonl"), "{msg}");
    let not_a_report = tmp.path().join("v1").join("crm").join("people.jsonl");
    let o = docshape(&[
        "audit",
        tmp.path().join("v2").to_str().expect("UTF-8"),
        "--baseline",
        not_a_report.to_str().expect("UTF-8"),
    ]);
    let msg = assert_fails_cleanly(&o, "--baseline that is no report");
    assert!(msg.contains("not a JSON report"), "{msg}");
}

#[test]
fn a_side_that_is_no_report_fails_cleanly() {
    let tmp = tempfile::tempdir().expect("tmp");
    let good = tmp.path().join("good.json");
    write(&tmp.path().join("db"), &[json!({"_id": 1, "a": 1})]);
    audit(&tmp.path().join("db"), &good);
    let garbage = tmp.path().join("garbage.json");
    std::fs::write(&garbage, "not json at all").expect("write");
    let other = tmp.path().join("other.json");
    std::fs::write(&other, r#"{"collections": 3}"#).expect("write");
    let missing = tmp.path().join("missing.json");
    for (bad, says) in [
        // Not one JSON value: read as a file of documents, which it is not.
        (&garbage, "garbage.json"),
        (&other, "is not a docshape JSON report"),
        (&missing, "cannot read"),
    ] {
        let line = assert_fails_cleanly(&diff(bad, &good, &[]), "a bad BEFORE");
        assert!(line.contains(says), "{line}");
        assert_fails_cleanly(&diff(&good, bad, &[]), "a bad AFTER");
    }
}

/// Two `$sample`s of one unchanged server collection, each side of the
/// diff a connection string audited there and then: no change at
/// warning, exit 0, over `PAIRS` pairs. At the diff's family-wise level
/// of 0.001, 3 or more of 10 pairs with a change come with probability at
/// most C(10,3) · 0.001³ = 1.2e-7: the test allows 2.
#[tokio::test]
async fn two_server_samples_of_an_unchanged_collection_are_no_change() {
    const PAIRS: usize = 10;
    let client = crate::common::client().await;
    let db = crate::common::unique_db("drift");
    let coll = client.database(&db).collection::<bson::Document>("people");
    let docs: Vec<bson::Document> = unchanged(5000)
        .into_iter()
        .map(|d| bson::serialize_to_document(&d).expect("a document"))
        .collect();
    for chunk in docs.chunks(1000) {
        coll.insert_many(chunk.to_vec()).await.expect("insert");
    }
    let uri = crate::common::uri();
    let ns = format!("{db}.people");
    let started = Instant::now();
    // Two audits draw different samples (else the test proves nothing).
    let city = |o: &std::process::Output| {
        let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let c = crate::common::collection(&v, &ns);
        crate::common::field(c, "city")["count"].clone()
    };
    let args = [
        "audit",
        uri.as_str(),
        "-c",
        ns.as_str(),
        "--format",
        "json",
        "--fail-on",
        "never",
    ];
    let first = crate::common::docshape_async(&args).await;
    let second = crate::common::docshape_async(&args).await;
    assert_ne!(
        city(&first),
        city(&second),
        "two $samples drew the same documents"
    );
    let (mut warned, mut any) = (0, 0);
    for pair in 0..PAIRS {
        // The module's server holds this database alone.
        let o = crate::common::docshape_async(&["diff", &uri, &uri, "--format", "json"]).await;
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
        let c = changes(&o);
        if o.status.code() == Some(1) {
            warned += 1;
            eprintln!("pair {pair}: a false alarm: {c:#?}");
        }
        any += usize::from(!c.is_empty());
    }
    eprintln!(
        "{PAIRS} server pairs: {warned} with a warning change, {any} with any change, in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    assert!(
        warned <= 2 && any <= 2,
        "{warned} warned, {any} changed of {PAIRS}"
    );
}
