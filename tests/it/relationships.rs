//! References, fan-out and growth measured on generated data whose truth is
//! known, through files and through the real test server.

use crate::common;

use common::{oid, DAY, NEWEST};

use std::path::Path;

use bson::{doc, oid::ObjectId, Document};
use common::{client, docshape, docshape_async, json_ok, unique_db, uri};
use serde_json::Value;

/// 2024-01-01T00:00:00Z: the newest document's creation time.
/// Collections with planted relationships and growth:
/// - `hosts` ← `logs.host_id` (parent reference), host i has 3i+1 logs;
/// - `kits.component_ids` → `components` (child reference), kit j holds
///   20·(j mod 7)+5 ids;
/// - `people.task_ids` → `tasks` and `tasks.owner_id` → `people` (two-way);
/// - `posts.comments`, embedded, 2 comments per day of age;
/// - `cities` and `products` with small integer `_id`s and an unrelated
///   integer field, and `sensors.device` holding ObjectIds found nowhere.
fn truth() -> Vec<(&'static str, Vec<Document>)> {
    let hosts: Vec<Document> = (0..40u32)
        .map(|i| doc! {"_id": oid(NEWEST - 900 * DAY + i, i), "name": format!("host{i}"), "ip": format!("10.0.0.{i}")})
        .collect();
    let mut logs = Vec::new();
    let mut n = 0u32;
    for (i, h) in hosts.iter().enumerate() {
        for k in 0..=(3 * i as u32) {
            n += 1;
            logs.push(doc! {"_id": oid(NEWEST - k * 60, 100_000 + n), "host_id": h.get_object_id("_id").expect("oid"), "msg": format!("event {k}"), "level": "info"});
        }
    }
    let components: Vec<Document> = (0..130u32)
        .map(|c| doc! {"_id": oid(NEWEST - 800 * DAY, 200_000 + c), "part": format!("P-{c}")})
        .collect();
    let kits: Vec<Document> = (0..50u32)
        .map(|j| {
            let k = 20 * (j % 7) + 5;
            let ids: Vec<ObjectId> = (0..k)
                .map(|c| components[((j + c) % 130) as usize].get_object_id("_id").expect("oid"))
                .collect();
            doc! {"_id": oid(NEWEST - 700 * DAY + j, 300_000 + j), "name": format!("kit{j}"), "component_ids": ids}
        })
        .collect();
    let people: Vec<Document> = (0..30u32)
        .map(|p| doc! {"_id": oid(NEWEST - 600 * DAY + p, 400_000 + p), "name": format!("person{p}")})
        .collect();
    let mut tasks = Vec::new();
    let mut people = people;
    for (p, person) in people.iter_mut().enumerate() {
        let owner = person.get_object_id("_id").expect("oid");
        let mut ids = Vec::new();
        for t in 0..=(p % 4) {
            let id = oid(NEWEST - 500 * DAY, 500_000 + (p * 10 + t) as u32);
            ids.push(id);
            tasks.push(doc! {"_id": id, "title": format!("task {p}.{t}"), "owner_id": owner});
        }
        person.insert("task_ids", ids);
    }
    let posts: Vec<Document> = (0..200u32)
        .map(|i| {
            let age_days = i; // post i was created i days before the newest
            let comments: Vec<Document> = (0..2 * age_days)
                .map(|c| doc! {"by": format!("user{}", c % 17), "text": "nice post"})
                .collect();
            doc! {"_id": oid(NEWEST - age_days * DAY, 600_000 + i), "title": format!("post {i}"), "comments": comments}
        })
        .collect();
    let cities: Vec<Document> = (1..=50)
        .map(|i| doc! {"_id": i, "name": format!("city {i}"), "population": i * 1000})
        .collect();
    let products: Vec<Document> = (1..=50)
        .map(|i| doc! {"_id": i, "title": format!("product {i}"), "stock": i % 50 + 1, "rank": i})
        .collect();
    let sensors: Vec<Document> = (0..60u32)
        .map(|i| doc! {"_id": oid(NEWEST - 100 * DAY + i, 700_000 + i), "device": oid(NEWEST - 5 * DAY, 900_000 + i), "reading": f64::from(i) * 0.5})
        .collect();
    vec![
        ("hosts", hosts),
        ("logs", logs),
        ("components", components),
        ("kits", kits),
        ("people", people),
        ("tasks", tasks),
        ("posts", posts),
        ("cities", cities),
        ("products", products),
        ("sensors", sensors),
    ]
}

fn write_files(dir: &Path) {
    for (name, docs) in truth() {
        let mut text = String::new();
        for d in docs {
            let v = bson::Bson::Document(d).into_canonical_extjson();
            text.push_str(&v.to_string());
            text.push('\n');
        }
        std::fs::write(dir.join(format!("{name}.json")), text).expect("write test data");
    }
}

fn rel<'a>(report: &'a serde_json::Value, from_suffix: &str) -> &'a serde_json::Value {
    report["relationships"]
        .as_array()
        .expect("relationships array")
        .iter()
        .find(|r| r["from"].as_str().is_some_and(|f| f.ends_with(from_suffix)))
        .unwrap_or_else(|| {
            panic!(
                "no relationship from *{from_suffix} in {}",
                report["relationships"]
            )
        })
}

fn check_truth(report: &serde_json::Value, db: &str, server: bool) {
    let logs = rel(report, ".logs.host_id");
    assert_eq!(logs["to"], format!("{db}.hosts._id"));
    assert_eq!(logs["kind"], "parent-reference");
    assert_eq!(logs["cardinality"], "one-to-many");
    let f = &logs["fanout"];
    assert_eq!(f["min"], 1);
    assert_eq!(f["max"], 118);
    // Σ(3i+1)/40 for i in 0..40
    assert!((f["avg"].as_f64().expect("avg") - 59.5).abs() < 1e-9, "{f}");
    assert_eq!(f["parents"], 40);
    assert_eq!(logs["match_rate"], 1.0);
    // The files carry no index definitions: whether one starts with
    // host_id is unknown there (and absent from the report).
    assert_eq!(
        logs["indexed"],
        if server {
            Value::Bool(true)
        } else {
            Value::Null
        },
        "an index on host_id exists only on the server"
    );

    let kits = rel(report, ".kits.component_ids");
    assert_eq!(kits["to"], format!("{db}.components._id"));
    assert_eq!(kits["kind"], "child-reference");
    assert_eq!(kits["cardinality"], "one-to-many");
    assert_eq!(kits["fanout"]["min"], 5);
    assert_eq!(kits["fanout"]["max"], 125);

    let people = rel(report, ".people.task_ids");
    assert_eq!(people["kind"], "two-way-reference");
    let tasks = rel(report, ".tasks.owner_id");
    assert_eq!(tasks["kind"], "two-way-reference");
    assert_eq!(tasks["fanout"]["max"], 4);
    assert_eq!(tasks["cardinality"], "one-to-few");

    let posts = rel(report, ".posts.comments");
    assert_eq!(posts["kind"], "embedded");

    for r in report["relationships"].as_array().expect("array") {
        for end in ["from", "to"] {
            let s = r[end].as_str().expect("string");
            for unrelated in [".cities.", ".products.", ".sensors."] {
                assert!(!s.contains(unrelated), "false relationship {r}");
            }
        }
    }

    // Growth: 2 comments per day of age.
    let posts_coll = common::collection(report, &format!("{db}.posts"));
    let g = &common::field(posts_coll, "comments")["growth"];
    assert_eq!(g["method"], "age-correlation");
    assert!(g["correlation"].as_f64().expect("corr") > 0.95, "{g}");
    let slope = g["per_day"].as_f64().expect("slope");
    assert!((slope - 2.0).abs() / 2.0 < 0.15, "slope {slope}");
    assert!(g["days_to_limit"].as_f64().is_some(), "{g}");
    // A stable array shows no growth.
    let kits_coll = common::collection(report, &format!("{db}.kits"));
    let kg = &common::field(kits_coll, "component_ids")["growth"];
    assert!(
        kg["correlation"].as_f64().expect("corr").abs() < 0.5,
        "{kg}"
    );
}

#[test]
fn relationships_and_growth_from_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("truth");
    std::fs::create_dir(&dir).expect("mkdir");
    write_files(&dir);
    let out = docshape(&[
        "audit",
        dir.to_str().expect("utf-8 path"),
        "--format",
        "json",
        "--no-snapshot",
    ]);
    let report = json_ok(&out);
    check_truth(&report, "truth", false);

    let mermaid = docshape(&[
        "schema",
        dir.to_str().expect("utf-8"),
        "--format",
        "mermaid",
        "--no-snapshot",
    ]);
    let text = common::stdout(&mermaid);
    assert!(text.starts_with("erDiagram"), "{text}");
    assert!(
        text.contains("hosts ||--o{ logs : \"host_id (one-to-many)\""),
        "{text}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn relationships_and_growth_from_the_server() {
    let db = unique_db("truth");
    let c = client().await;
    for (name, docs) in truth() {
        c.database(&db)
            .collection::<Document>(name)
            .insert_many(docs)
            .await
            .expect("insert");
    }
    c.database(&db)
        .collection::<Document>("logs")
        .create_index(
            mongodb::IndexModel::builder()
                .keys(doc! {"host_id": 1})
                .build(),
        )
        .await
        .expect("index");
    let pattern = format!("{db}.*");
    let out = docshape_async(&[
        "audit",
        &uri(),
        "-c",
        &pattern,
        "--format",
        "json",
        "--no-snapshot",
    ])
    .await;
    let report = json_ok(&out);
    check_truth(&report, &db, true);
    let logs = rel(&report, ".logs.host_id");
    assert_eq!(logs["fanout_method"], "server-group");
    // The cost is bounded by candidates × target keys probes plus one
    // $group per parent reference, and reported.
    let cost = &report["relationship_cost"];
    let n = |k: &str| cost[k].as_u64().expect("count");
    assert!(
        n("probes") <= n("candidate_paths") * n("target_keys"),
        "{cost}"
    );
    // Each reference was probed, or answered from a target read whole.
    assert!(
        n("probes") + n("answered_from_sample") >= 4,
        "every reference was probed: {cost}"
    );
    assert_eq!(
        n("fanout_queries"),
        2,
        "host_id and owner_id are counted on the server: {cost}"
    );
    eprintln!("relationship cost for 10 collections: {cost}");
}

/// Growth over time: a snapshot taken on one run is compared on the next
/// with the same documents re-read from the server.
#[tokio::test(flavor = "current_thread")]
async fn snapshot_growth_is_measured_by_rereading() {
    let db = unique_db("snap");
    let c = client().await;
    let coll = c.database(&db).collection::<Document>("threads");
    let docs: Vec<Document> = (0..50u32)
        .map(|i| doc! {"_id": oid(NEWEST - i * DAY, i), "replies": (0..5).map(|r| format!("r{r}")).collect::<Vec<_>>()})
        .collect();
    coll.insert_many(docs).await.expect("insert");
    let state = tempfile::tempdir().expect("tempdir");
    let state_dir = state.path().to_str().expect("utf-8").to_owned();
    let ns = format!("{db}.threads");
    let run = |args: Vec<String>, state_dir: String| async move {
        tokio::task::spawn_blocking(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            common::docshape_env(&a, &[("XDG_STATE_HOME", state_dir.as_str())])
        })
        .await
        .expect("join")
    };
    let args = vec![
        "audit".to_owned(),
        uri(),
        "-c".to_owned(),
        ns.clone(),
        "--format".to_owned(),
        "json".to_owned(),
    ];
    let first = json_ok(&run(args.clone(), state_dir.clone()).await);
    let g = &common::field(common::collection(&first, &ns), "replies")["growth"];
    assert_eq!(g["method"], "age-correlation");

    // The snapshot holds ids and numbers only, readable by the user alone.
    let snaps: Vec<_> = walk(&state.path().join("docshape/snapshots"));
    assert_eq!(snaps.len(), 1, "{snaps:?}");
    let text = std::fs::read_to_string(&snaps[0]).expect("snapshot");
    assert!(!text.contains("r0"), "no document contents in a snapshot");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&snaps[0])
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Ten days pass (the snapshot is dated back) and every thread gains 30
    // replies: 3 per day.
    let mut snap: serde_json::Value = serde_json::from_str(&text).expect("json");
    let t = snap["taken_at"].as_f64().expect("taken_at");
    snap["taken_at"] = serde_json::json!(t - 10.0 * 86_400.0);
    std::fs::write(&snaps[0], snap.to_string()).expect("rewrite snapshot");
    coll.update_many(doc! {}, doc! {"$push": {"replies": {"$each": (0..30).map(|r| format!("n{r}")).collect::<Vec<_>>()}}})
        .await
        .expect("update");

    let second = json_ok(&run(args, state_dir).await);
    let g = &common::field(common::collection(&second, &ns), "replies")["growth"];
    assert_eq!(g["method"], "snapshot", "{g}");
    let per_day = g["per_day"].as_f64().expect("per_day");
    assert!((per_day - 3.0).abs() < 0.05, "{g}");
    assert_eq!(g["n"], 50);
}

/// A snapshot re-read 1.2 hours after the first audit, nobody having
/// written in between, cannot refute a trend the ages show over hundreds of
/// documents: the cross-section keeps deciding, the snapshot is shown beside
/// it with the reason, and `unbounded-array` keeps its growth evidence. Ten
/// days without a single new element, where thousands were due, refute it.
#[tokio::test(flavor = "current_thread")]
async fn a_snapshot_decides_only_with_the_evidence() {
    let db = unique_db("snapdecide");
    let c = client().await;
    let coll = c.database(&db).collection::<Document>("threads");
    // 300 threads, one a day, each holding 3 replies per day of age.
    let docs: Vec<Document> = (0..300u32)
        .map(|i| doc! {"_id": oid(NEWEST - i * DAY, i), "replies": (0..3 * i).map(i64::from).collect::<Vec<_>>()})
        .collect();
    coll.insert_many(docs).await.expect("insert");
    let state = tempfile::tempdir().expect("tempdir");
    let state_dir = state.path().to_str().expect("utf-8").to_owned();
    let ns = format!("{db}.threads");
    let audit = |state_dir: String| {
        let ns = ns.clone();
        async move {
            tokio::task::spawn_blocking(common::inherit(move || {
                common::docshape_env(
                    &[
                        "audit",
                        &uri(),
                        "-c",
                        &ns,
                        "--format",
                        "json",
                        "--fail-on",
                        "never",
                    ],
                    &[("XDG_STATE_HOME", state_dir.as_str())],
                )
            }))
            .await
            .expect("join")
        }
    };
    let first = json_ok(&audit(state_dir.clone()).await);
    let g = &common::field(common::collection(&first, &ns), "replies")["growth"];
    assert_eq!(g["method"], "age-correlation", "{g}");
    assert!(g.get("decision").is_none(), "one method, no decision: {g}");

    let snaps = walk(&state.path().join("docshape/snapshots"));
    assert_eq!(snaps.len(), 1, "{snaps:?}");
    let text = std::fs::read_to_string(&snaps[0]).expect("snapshot");
    let taken = serde_json::from_str::<serde_json::Value>(&text).expect("json")["taken_at"]
        .as_f64()
        .expect("taken_at");
    let date_back = |secs: f64| {
        let mut snap: serde_json::Value = serde_json::from_str(&text).expect("json");
        snap["taken_at"] = serde_json::json!(taken - secs);
        std::fs::write(&snaps[0], snap.to_string()).expect("rewrite snapshot");
    };

    // 1.2 hours later, no writes.
    date_back(1.2 * 3600.0);
    let second = json_ok(&audit(state_dir.clone()).await);
    let col = common::collection(&second, &ns);
    let g = &common::field(col, "replies")["growth"];
    assert_eq!(g["method"], "age-correlation", "{g}");
    assert!(g["per_day"].as_f64().expect("per_day") > 2.5, "{g}");
    assert_eq!(g["decision"]["reason"], "snapshot-window-too-short", "{g}");
    let other = &g["decision"]["other"];
    assert_eq!(other["method"], "snapshot", "{g}");
    assert_eq!(other["per_day"].as_f64(), Some(0.0), "{g}");
    assert!(
        (other["days_observed"].as_f64().expect("window") - 0.05).abs() < 0.01,
        "{g}"
    );
    let finding = col["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "unbounded-array")
        .unwrap_or_else(|| panic!("unbounded-array keeps firing: {col}"));
    assert_eq!(
        finding["evidence"]["growth"]["method"], "age-correlation",
        "{finding}"
    );

    // Ten days later, still no writes: about 3 × 10 × 200 elements were due.
    date_back(10.0 * 86_400.0);
    let third = json_ok(&audit(state_dir).await);
    let col = common::collection(&third, &ns);
    let g = &common::field(col, "replies")["growth"];
    assert_eq!(g["method"], "snapshot", "{g}");
    assert_eq!(g["decision"]["reason"], "snapshot-saw-no-growth", "{g}");
    assert_eq!(g["decision"]["other"]["method"], "age-correlation", "{g}");
    assert!(
        g["decision"]["expected_elements"]
            .as_f64()
            .expect("expected")
            > 1000.0,
        "{g}"
    );
    assert!(
        !col["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["rule"] == "unbounded-array"),
        "arrays that do not grow are not unbounded: {col}"
    );
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default()
}

/// MongoDB's own sample data: customers hold an array of account numbers
/// that are `account_id`s (not `_id`s) of the accounts collection.
#[test]
fn realdata_customers_reference_accounts_by_account_id() {
    let dir = common::realdata("sample_analytics");
    let out = docshape(&[
        "audit",
        dir.to_str().expect("utf-8"),
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]);
    let report = json_ok(&out);
    let r = rel(&report, ".customers.accounts");
    assert_eq!(r["to"], "sample_analytics.accounts.account_id");
    assert_eq!(r["kind"], "child-reference");
    assert_eq!(r["fanout_method"], "array-length");
    let f = &r["fanout"];
    assert_eq!(
        (f["min"].as_u64(), f["max"].as_u64(), f["parents"].as_u64()),
        (Some(1), Some(6), Some(500))
    );
    assert!(r["match_rate"].as_f64().expect("rate") >= 0.9, "{r}");
    assert_eq!(r["cardinality"], "one-to-few");
}
