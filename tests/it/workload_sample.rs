//! The bundled workload: `sample-data/workload/mongod.log` is what its
//! generator (`src/seed/workload.rs`) writes, and auditing the sample data
//! with it draws the findings it plants — on the bad variants only — while
//! its healthy shapes draw none.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use docshape::rules::WORKLOAD_RULES;
use docshape::seed::workload;
use serde_json::{json, Value};

#[test]
fn the_workload_rules_are_rules() {
    for r in WORKLOAD_RULES {
        assert!(docshape::rules::RULES.contains(&r), "{r}");
    }
}

fn log_path() -> std::path::PathBuf {
    common::repo().join("sample-data").join(workload::LOG_PATH)
}

/// `DOCSHAPE_BLESS=1` rewrites the log after a change to the workload.
#[test]
fn the_bundled_log_is_what_the_generator_writes() {
    let path = log_path();
    let text = workload::log("");
    if std::env::var_os("DOCSHAPE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("dir")).expect("mkdir");
        std::fs::write(&path, &text).expect("write log");
    }
    let on_disk = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with DOCSHAPE_BLESS=1)", path.display()));
    assert!(
        on_disk == text,
        "{} differs from its generator (run with DOCSHAPE_BLESS=1 to rewrite it)",
        path.display()
    );
    // Every line is a slow query of mongod's JSON log, and docshape's log
    // reader understands each of them.
    let w = docshape::workload::read_logs(&path).expect("read the log");
    let runs: u64 = workload::STEPS.iter().map(|s| u64::from(s.runs)).sum();
    assert_eq!(w.lines, runs);
    assert_eq!(w.slow_queries, runs);
    assert!(w.skipped.is_empty(), "{:?}", w.skipped);
    // Every run is in a shape of its namespace and operation.
    let data = workload::Data::load();
    let mut by_ns_op: BTreeMap<(String, String), u64> = BTreeMap::new();
    for r in workload::runs(&data, &[]) {
        let op = match r.op {
            workload::Op::Find { .. } => "find",
            workload::Op::Aggregate { .. } => "aggregate",
            workload::Op::Update { .. } => "update",
            workload::Op::Insert { .. } => "insert",
        };
        *by_ns_op
            .entry((
                format!("{}.{}", r.step.dataset, r.step.collection),
                op.to_owned(),
            ))
            .or_default() += 1;
    }
    let mut got: BTreeMap<(String, String), u64> = BTreeMap::new();
    for s in &w.shapes {
        *got.entry((s.namespace.clone(), s.op.clone())).or_default() += s.count;
    }
    assert_eq!(got, by_ns_op);
}

fn audit(log: &std::path::Path) -> Value {
    let data = common::repo().join("sample-data");
    common::json_ok(&common::docshape(&[
        "audit",
        data.to_str().expect("utf-8"),
        "--workload",
        log.to_str().expect("utf-8"),
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
        "--lang",
        "en",
    ]))
}

/// `(namespace, rule, severity)` of every workload finding.
fn workload_findings(r: &Value) -> BTreeSet<(String, String, String)> {
    let mut out = BTreeSet::new();
    for c in common::collections(r) {
        for f in c["findings"].as_array().expect("findings") {
            let rule = f["rule"].as_str().expect("rule");
            if WORKLOAD_RULES.contains(&rule) {
                out.insert((
                    f["namespace"].as_str().expect("ns").to_owned(),
                    rule.to_owned(),
                    f["severity"].as_str().expect("severity").to_owned(),
                ));
            }
        }
    }
    out
}

fn finding<'a>(r: &'a Value, ns: &str, rule: &str) -> &'a Value {
    common::collection(r, ns)["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} on {ns}"))
}

#[test]
fn the_bundled_workload_draws_its_findings_on_the_bad_variants_only() {
    let r = audit(&log_path());
    let found = workload_findings(&r);
    let want: BTreeSet<(String, String, String)> = [
        ("indexes.bad_orders", "index-esr", "warning"),
        ("one_to_few.bad_people", "lookup-on-hot-path", "warning"),
        // The hosts' arrays grow, but reach 16 MiB in years, not within one:
        // a warning.
        (
            "one_to_squillions.bad_hosts",
            "push-without-slice",
            "warning",
        ),
        ("contacts.bad_contacts", "write-amplified-copy", "warning"),
        ("extended_reference.bad_orders", "index-esr", "warning"),
        (
            "extended_reference.bad_orders",
            "write-amplified-copy",
            "warning",
        ),
    ]
    .iter()
    .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
    .collect();
    assert_eq!(found, want);

    // ESR: equality, then the sort, then the range, extending the index
    // on the equality field alone.
    let esr = finding(&r, "indexes.bad_orders", "index-esr");
    let key: Vec<(&String, &Value)> = esr["evidence"]["index"]["key"]
        .as_object()
        .expect("key")
        .iter()
        .collect();
    let key: Vec<(String, i64)> = key
        .into_iter()
        .map(|(k, v)| (k.clone(), v.as_i64().expect("direction")))
        .collect();
    assert_eq!(
        key,
        vec![
            ("status".to_owned(), 1),
            ("placed_at".to_owned(), -1),
            ("total".to_owned(), 1)
        ]
    );
    assert_eq!(esr["evidence"]["extends"], "status_1");
    assert_eq!(esr["evidence"]["shape"]["count"], 150);
    assert_eq!(esr["evidence"]["shape"]["in_memory_sorts"], 150);

    let lookup = finding(&r, "one_to_few.bad_people", "lookup-on-hot-path");
    assert_eq!(lookup["evidence"]["cardinality"], "one-to-few", "{lookup}");
    assert_eq!(lookup["evidence"]["lookups"], 90);
    assert_eq!(lookup["evidence"]["reads"], 100);

    let push = finding(&r, "one_to_squillions.bad_hosts", "push-without-slice");
    assert_eq!(push["path"], "logs");
    assert!(
        push["evidence"]["growth"]["per_day"]
            .as_f64()
            .expect("growth")
            > 0.0
    );

    let copy = finding(&r, "contacts.bad_contacts", "write-amplified-copy");
    assert_eq!(copy["evidence"]["updates"], 30);
    assert_eq!(copy["evidence"]["reads"], 900);
    assert_eq!(copy["evidence"]["fields"], json!(["name"]));
    let points = finding(&r, "extended_reference.bad_orders", "write-amplified-copy");
    assert_eq!(points["evidence"]["fields"], json!(["loyalty_points"]));

    // The healthy shapes — _id lookups, the indexed queries of the good
    // variants, inserts — name no finding.
    let shapes = r["workload"]["shapes"].as_array().expect("shapes");
    for s in shapes {
        let ns = s["namespace"].as_str().expect("ns");
        let by_id = s["filter"].get("_id").is_some()
            || (s["op"] == "update" && s["filter"].get("_id").is_some());
        let good = ns.split('.').nth(1).is_some_and(|c| c.starts_with("good_"));
        if good || (by_id && s["op"] == "find") || s["op"] == "insert" {
            assert!(s.get("findings").is_none(), "{s}");
        }
    }
    assert!(
        shapes
            .iter()
            .filter(|s| s.get("findings").is_some())
            .count()
            >= 5,
        "{shapes:?}"
    );
}

/// The findings follow the log: the same workload with its `$push`
/// sliced and fewer group renames draws neither of those findings.
#[test]
fn the_findings_follow_the_log() {
    let text = std::fs::read_to_string(log_path()).expect("read log");
    let mut changed = String::new();
    let mut renames = 0;
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).expect("json line");
        let attr = &mut v["attr"];
        if attr["ns"] == "contacts.bad_groups" {
            renames += 1;
            if renames > 2 {
                continue;
            }
        }
        if let Some(push) = attr["command"]["u"]["$push"].as_object_mut() {
            for (_, val) in push.iter_mut() {
                *val = json!({"$each": [val.clone()], "$slice": -100});
            }
        }
        changed.push_str(&v.to_string());
        changed.push('\n');
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let log = dir.path().join("mongod.log");
    std::fs::write(&log, changed).expect("write");
    let r = audit(&log);
    let found = workload_findings(&r);
    assert!(
        !found
            .iter()
            .any(|(_, rule, _)| rule == "push-without-slice"),
        "{found:?}"
    );
    // Two renames in 900 reads: under one per 100, but the copies drift,
    // so the finding stays, with the new count.
    let copy = finding(&r, "contacts.bad_contacts", "write-amplified-copy");
    assert_eq!(copy["evidence"]["updates"], 2);
}
