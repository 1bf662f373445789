//! `mongod` log lines in the real 4.4+ JSON format (the structure of a
//! "Slow query" line of `../shared/realdata/logs/sample-mongod.log.gz`),
//! for the tests that read a workload.

#![allow(dead_code)] // each test binary uses its own part
#![allow(clippy::needless_pass_by_value)] // log lines are built from owned JSON values

use serde_json::{json, Value};

/// One "Slow query" line as mongod 4.4+ writes it.
pub fn slow(kind: &str, ns: &str, command: Value, stats: Value, ms: u64) -> String {
    let mut attr = json!({
        "type": kind,
        "ns": ns,
        "appName": "shop-api",
        "command": command,
    });
    let (a, s) = (
        attr.as_object_mut().expect("object"),
        stats.as_object().expect("stats"),
    );
    for (k, v) in s {
        a.insert(k.clone(), v.clone());
    }
    a.insert("numYields".into(), json!(0));
    a.insert("queryHash".into(), json!("7C953B42"));
    a.insert(
        "locks".into(),
        json!({"Global": {"acquireCount": {"r": 1}}}),
    );
    a.insert("remote".into(), json!("172.31.255.125:62755"));
    a.insert("protocol".into(), json!("op_msg"));
    a.insert("durationMillis".into(), json!(ms));
    json!({
        "t": {"$date": "2026-11-20T16:25:13.475+00:00"},
        "s": "I",
        "c": if kind == "update" { "WRITE" } else { "COMMAND" },
        "id": 51803,
        "ctx": "conn225",
        "msg": "Slow query",
        "attr": attr,
    })
    .to_string()
}

pub fn find(
    db: &str,
    coll: &str,
    filter: Value,
    sort: Option<Value>,
    stats: Value,
    ms: u64,
) -> String {
    let mut cmd = json!({"find": coll, "filter": filter});
    if let Some(s) = sort {
        cmd["sort"] = s;
    }
    cmd["lsid"] = json!({"id": {"$uuid": "ce6eb0b2-d85f-4ab2-a0dd-c3f0fc889b17"}});
    cmd["$db"] = json!(db);
    slow("command", &format!("{db}.{coll}"), cmd, stats, ms)
}

/// Writes `lines` as `mongod.log` in `dir`; its path.
pub fn write_log(dir: &std::path::Path, lines: &[String]) -> std::path::PathBuf {
    let p = dir.join("mongod.log");
    std::fs::write(&p, lines.join("\n") + "\n").expect("write log");
    p
}

/// A `mongod` log of the sample shop: a frequent sorted find on
/// `shop.orders` that scans the collection and sorts in memory (its
/// finding proposes `{coupon: 1, placed_at: -1}`), lookups by customer on
/// their index, and finds on `shop.customers`.
pub fn shop_log(dir: &std::path::Path) -> std::path::PathBuf {
    let mut lines = Vec::new();
    for i in 0..150u64 {
        lines.push(find(
            "shop",
            "orders",
            json!({"coupon": "WELCOME10"}),
            Some(json!({"placed_at": -1})),
            json!({"planSummary": "COLLSCAN", "keysExamined": 0, "docsExamined": 300, "hasSortStage": true, "nreturned": 10}),
            40 + i % 7,
        ));
    }
    for i in 0..400u64 {
        lines.push(find(
            "shop",
            "orders",
            json!({"customer_id": {"$oid": "6576eed0000000000000005b"}}),
            None,
            json!({"planSummary": "IXSCAN { customer_id: 1 }", "keysExamined": 3, "docsExamined": 3, "nreturned": 3}),
            1 + i % 2,
        ));
    }
    for _ in 0..50 {
        lines.push(find(
            "shop",
            "customers",
            json!({"email": "c91@example.com"}),
            None,
            json!({"planSummary": "IXSCAN { email: 1 }", "keysExamined": 1, "docsExamined": 1, "nreturned": 1}),
            2,
        ));
    }
    write_log(dir, &lines)
}
