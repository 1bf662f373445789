//! The workload read from a real `mongod` 7.0 log
//! (`../shared/realdata/logs/sample-mongod.log.gz`): every slow query is
//! understood or counted as skipped, and the shapes' figures agree with an
//! independent count of the log's lines.

use crate::common;

use std::io::{BufRead, BufReader};

fn log() -> std::path::PathBuf {
    common::repo().join("../shared/realdata/logs/sample-mongod.log.gz")
}

#[test]
fn every_slow_query_of_a_real_log_is_understood_or_skipped_with_a_reason() {
    // An independent pass: lines, slow queries, and the finds the log
    // says ran on the `email` index of testdb.__examples.
    let file = std::fs::File::open(log()).expect("the real log (see ../shared/realdata/README)");
    let mut lines = 0u64;
    let mut slow = 0u64;
    let mut email_finds = 0u64;
    let mut email_find_ms = 0u64;
    for line in BufReader::new(flate2::read::GzDecoder::new(file)).lines() {
        let line = line.expect("line");
        lines += 1;
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if v["msg"] != "Slow query" {
            continue;
        }
        slow += 1;
        let a = &v["attr"];
        if a["ns"] == "testdb.__examples"
            && a["command"]["find"].is_string()
            && a["planSummary"] == "IXSCAN { email: 1 }"
        {
            email_finds += 1;
            email_find_ms += a["durationMillis"].as_u64().unwrap_or(0);
        }
    }
    assert!(slow > 20_000, "{slow}");

    let out = common::docshape(&[
        "audit",
        "--workload",
        log().to_str().expect("utf-8"),
        "--format",
        "json",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let r: serde_json::Value = serde_json::from_str(&common::stdout(&out)).expect("json");
    let w = &r["workload"];
    assert_eq!(w["lines"], lines);
    assert_eq!(w["slow_queries"], slow);
    let shapes = w["shapes"].as_array().expect("shapes");
    let counted: u64 = shapes
        .iter()
        .map(|s| s["count"].as_u64().unwrap_or(0))
        .sum();
    let skipped: u64 = w["skipped"]
        .as_object()
        .expect("skipped")
        .values()
        .map(|n| n.as_u64().unwrap_or(0))
        .sum();
    assert_eq!(counted + skipped, slow, "every slow query counted once");
    for why in w["skipped"].as_object().expect("skipped").keys() {
        assert!(!why.is_empty());
    }
    // The finds on the email index: one shape, every run, every millisecond.
    let find = shapes
        .iter()
        .find(|s| {
            s["namespace"] == "testdb.__examples"
                && s["op"] == "find"
                && s["plans"]["IXSCAN { email: 1 }"].is_u64()
        })
        .expect("the email finds");
    assert_eq!(find["count"], email_finds);
    assert_eq!(find["ms"]["total"], email_find_ms);
    assert_eq!(find["filter"], serde_json::json!({"email": "string"}));
    assert_eq!(
        find["predicates"],
        serde_json::json!([["email", "equality"]])
    );
    // Sorted by total time.
    let totals: Vec<u64> = shapes
        .iter()
        .map(|s| s["ms"]["total"].as_u64().unwrap_or(0))
        .collect();
    assert!(totals.windows(2).all(|p| p[0] >= p[1]));
    // No collection was read: a workload-only report.
    assert_eq!(r["collections"].as_array().map(Vec::len), Some(0));

    let text = common::docshape(&["audit", "--workload", log().to_str().expect("utf-8")]);
    assert!(text.status.success());
    let t = common::stdout(&text);
    assert!(t.contains("Workload"), "{t}");
    assert!(t.contains("IXSCAN { email: 1 }"), "{t}");
    assert!(!t.contains("No collections matched"), "{t}");
}

#[test]
fn a_missing_log_is_one_sentence_and_exit_2() {
    let out = common::docshape(&["audit", "--workload", "/nonexistent/mongod.log"]);
    common::assert_fails_cleanly(&out, "missing log");
}
