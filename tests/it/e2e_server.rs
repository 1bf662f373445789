//! The `docshape` binary against a real MongoDB-wire server (see
//! `common`): the profile read from a server equals the one read from the
//! same data in a file, indexes come from the server, `$sample` and `--full`
//! behave, failures to connect are quick and clean, passwords never show,
//! and an audit writes nothing.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use bson::{doc, Document};
use mongodb::options::IndexOptions;
use mongodb::{Client, IndexModel};
use serde_json::{json, Value};

use common::{
    assert_fails_cleanly, client, collection, collections, docshape, docshape_async, field,
    free_port, json_ok, load_ejson, realdata, stderr, stdout, unique_db, uri, PrivateServer,
};

/// Keys of a collection report that legitimately differ between a file and
/// a server holding the same documents.
const COLLECTION_IGNORED: &[&str] = &[
    "namespace",
    "storage",
    "indexes",
    "sample_method",
    "options",
    "notes",
    "fields",
    "findings",
    "round_trips",
    "extremes",
];
/// Rules whose verdict depends on the indexes, which a file does not have.
const INDEX_RULES: &[&str] = &[
    "missing-reference-index",
    "redundant-index",
    "unused-index",
    "too-many-indexes",
];
/// Keys of a field profile that legitimately differ: none of the data's,
/// only the sampling interval, which depends on how `documents` was known.
const FIELD_IGNORED: &[&str] = &["presence_ci"];

fn without<'a>(v: &'a Value, ignored: &[&str]) -> BTreeMap<&'a str, &'a Value> {
    v.as_object()
        .expect("an object")
        .iter()
        .filter(|(k, _)| !ignored.contains(&k.as_str()))
        .map(|(k, v)| (k.as_str(), v))
        .collect()
}

fn fields_by_path(c: &Value) -> BTreeMap<&str, &Value> {
    c["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .map(|f| (f["path"].as_str().expect("path"), f))
        .collect()
}

/// The findings of a collection as (rule, severity, path), without the
/// rules that judge indexes; their messages name the namespace, so differ.
fn finding_keys(c: &Value) -> Vec<(String, String, String)> {
    let mut keys: Vec<(String, String, String)> = c["findings"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter(|f| !INDEX_RULES.contains(&f["rule"].as_str().unwrap_or_default()))
        .map(|f| {
            (
                f["rule"].to_string(),
                f["severity"].to_string(),
                f["path"].to_string(),
            )
        })
        .collect();
    keys.sort();
    keys
}

/// Asserts two collection reports describe the same data, field by field.
fn assert_same_profile(file: &Value, server: &Value) {
    assert_eq!(
        without(file, COLLECTION_IGNORED),
        without(server, COLLECTION_IGNORED),
        "collection-level figures differ between file and server"
    );
    assert_eq!(
        finding_keys(file),
        finding_keys(server),
        "the same data gives different findings"
    );
    let (a, b) = (fields_by_path(file), fields_by_path(server));
    let (pa, pb): (BTreeSet<&str>, BTreeSet<&str>) =
        (a.keys().copied().collect(), b.keys().copied().collect());
    assert_eq!(
        pa.symmetric_difference(&pb).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "paths only in one of file / server"
    );
    for (path, fa) in &a {
        let fb = b[path];
        let (ma, mb) = (without(fa, FIELD_IGNORED), without(fb, FIELD_IGNORED));
        for k in ma.keys().chain(mb.keys()).collect::<BTreeSet<_>>() {
            assert_eq!(
                ma.get(k),
                mb.get(k),
                "field {path}: `{k}` differs between file and server"
            );
        }
    }
}

async fn db_stats(client: &Client, db: &str) -> (i64, i64, i64) {
    let s = client
        .database(db)
        .run_command(doc! {"dbStats": 1})
        .await
        .expect("dbStats");
    let num = |k: &str| {
        docshape::source::bson_as_i64(s.get(k).unwrap_or_else(|| panic!("dbStats lacks {k}: {s}")))
            .unwrap_or_else(|| panic!("dbStats.{k} is not a number: {s}"))
    };
    (num("objects"), num("collections"), num("indexes"))
}

async fn collection_names(client: &Client, db: &str) -> Vec<String> {
    let mut names = client
        .database(db)
        .list_collection_names()
        .await
        .expect("listCollections");
    names.sort();
    names
}

#[tokio::test]
async fn server_profile_equals_file_profile() {
    let client = client().await;
    let db = unique_db("analytics");
    let file = realdata("sample_analytics/customers.json");
    assert_eq!(load_ejson(&client, &db, "customers", &file).await, 500);
    let ns = format!("{db}.customers");
    let before = db_stats(&client, &db).await;

    let from_file = json_ok(
        &docshape_async(&["audit", file.to_str().expect("utf-8"), "--format", "json"]).await,
    );
    let from_server =
        json_ok(&docshape_async(&["audit", &uri(), "-c", &ns, "--format", "json"]).await);
    assert_eq!(collections(&from_server).len(), 1);
    let f = collection(&from_file, "sample_analytics.customers");
    let s = collection(&from_server, &ns);
    assert_eq!(s["documents"], 500);
    assert_eq!(s["sampled"], 500);
    assert_eq!(s["doc_size"], f["doc_size"]);
    assert_eq!(field(s, "accounts")["array"], field(f, "accounts")["array"]);
    assert_same_profile(f, s);

    // Reading wrote nothing.
    assert_eq!(
        db_stats(&client, &db).await,
        before,
        "dbStats changed by an audit"
    );
    client
        .database(&db)
        .drop()
        .await
        .expect("drop test database");
}

#[tokio::test]
async fn server_indexes_are_reported() {
    let client = client().await;
    let db = unique_db("indexes");
    let file = realdata("sample_analytics/customers.json");
    load_ejson(&client, &db, "customers", &file).await;
    let coll = client.database(&db).collection::<Document>("customers");
    // A unique compound index with a chosen name (username alone is not
    // unique in this data set) and a sparse one with the default name.
    coll.create_index(
        IndexModel::builder()
            .keys(doc! {"username": 1, "email": -1})
            .options(
                IndexOptions::builder()
                    .name("by_user".to_owned())
                    .unique(true)
                    .build(),
            )
            .build(),
    )
    .await
    .expect("create unique index");
    coll.create_index(
        IndexModel::builder()
            .keys(doc! {"active": 1})
            .options(IndexOptions::builder().sparse(true).build())
            .build(),
    )
    .await
    .expect("create sparse index");

    let ns = format!("{db}.customers");
    let report = json_ok(&docshape_async(&["audit", &uri(), "-c", &ns, "--format", "json"]).await);
    let c = collection(&report, &ns);
    let indexes: BTreeMap<&str, &Value> = c["indexes"]
        .as_array()
        .expect("indexes")
        .iter()
        .map(|i| (i["name"].as_str().expect("index name"), i))
        .collect();
    assert!(indexes.contains_key("_id_"), "{}", c["indexes"]);
    let by_user = indexes
        .get("by_user")
        .unwrap_or_else(|| panic!("created index missing: {}", c["indexes"]));
    assert_eq!(
        serde_json::to_string(&by_user["key"]).expect("json"),
        r#"{"username":1,"email":-1}"#,
        "key order is kept"
    );
    assert_eq!(by_user["unique"], true);
    let active = indexes
        .get("active_1")
        .unwrap_or_else(|| panic!("sparse index missing: {}", c["indexes"]));
    assert_eq!(active["key"], json!({"active": 1}));
    assert_eq!(active["sparse"], true);
    assert_eq!(indexes.len(), 3, "{}", c["indexes"]);
    client
        .database(&db)
        .drop()
        .await
        .expect("drop test database");
}

#[tokio::test]
async fn sample_and_full_read_what_they_say() {
    let client = client().await;
    let db = unique_db("accounts");
    let file = realdata("sample_analytics/accounts.json");
    assert_eq!(load_ejson(&client, &db, "accounts", &file).await, 1746);
    let ns = format!("{db}.accounts");
    let before = db_stats(&client, &db).await;
    let names_before = collection_names(&client, &db).await;

    let report = json_ok(
        &docshape_async(&[
            "audit",
            &uri(),
            "-c",
            &ns,
            "--sample",
            "50",
            "--format",
            "json",
        ])
        .await,
    );
    let c = collection(&report, &ns);
    assert_eq!(c["sampled"], 50);
    assert_eq!(c["sample_method"], "$sample");
    assert_eq!(c["documents"], 1746);
    assert_eq!(field(c, "_id")["count"], 50);

    let report =
        json_ok(&docshape_async(&["audit", &uri(), "-c", &ns, "--full", "--format", "json"]).await);
    assert_eq!(report["sampling"]["mode"], "full");
    let c = collection(&report, &ns);
    assert_eq!(c["sampled"], 1746);
    assert_eq!(c["documents"], 1746);
    assert_eq!(field(c, "_id")["count"], 1746);
    assert_eq!(field(c, "products")["types"], json!({"array": 1746}));

    // The default sample (1000) of 1746 documents.
    let report =
        json_ok(&docshape_async(&["audit", &uri(), "--db", &db, "--format", "json"]).await);
    let c = collection(&report, &ns);
    assert_eq!(c["sampled"], 1000);

    assert_eq!(
        db_stats(&client, &db).await,
        before,
        "dbStats changed by an audit"
    );
    assert_eq!(collection_names(&client, &db).await, names_before);
    client
        .database(&db)
        .drop()
        .await
        .expect("drop test database");
}

/// Runs docshape against an unreachable server and checks it gives up
/// quickly with one clean line.
fn assert_unreachable(target: &str, what: &str) -> String {
    let start = Instant::now();
    let o = docshape(&["audit", target, "--timeout", "2", "--format", "json"]);
    let took = start.elapsed();
    let line = assert_fails_cleanly(&o, what);
    assert!(
        took < Duration::from_secs(5),
        "{what}: took {took:?} with --timeout 2"
    );
    line
}

#[test]
fn unknown_host_fails_quickly() {
    let line = assert_unreachable("mongodb://no-such-host.invalid:27017", "unknown host");
    assert!(line.contains("no-such-host.invalid"), "{line}");
}

#[test]
fn closed_port_fails_quickly() {
    let port = free_port();
    let line = assert_unreachable(&format!("mongodb://127.0.0.1:{port}"), "closed port");
    assert!(line.contains(&port.to_string()), "{line}");
}

#[test]
fn passwords_are_never_printed() {
    let port = free_port();
    let target = format!("mongodb://alice:Sup3rSecret@127.0.0.1:{port}/");
    for format in ["json", "text"] {
        let o = docshape(&["audit", &target, "--timeout", "1", "--format", format]);
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert!(!all.contains("Sup3rSecret"), "password printed: {all}");
        assert!(all.contains("alice:****@"), "masked URI not shown: {all}");
        assert_fails_cleanly(&o, "wrong server with a password");
    }
}

#[tokio::test]
async fn passwords_are_masked_in_reports() {
    // A reachable server with credentials in the URI that it does not check
    // (the test server runs without --auth): the report's target is masked.
    if std::env::var_os("MONGODB_URI").is_some() {
        // An external server may enforce authentication; nothing to check.
        return;
    }
    let client = client().await;
    let db = unique_db("masked");
    client
        .database(&db)
        .collection::<Document>("c")
        .insert_one(doc! {"a": 1})
        .await
        .expect("insert");
    let target = uri().replacen("mongodb://", "mongodb://alice:Sup3rSecret@", 1);
    let o = docshape_async(&["audit", &target, "--db", &db, "--format", "json"]).await;
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(!all.contains("Sup3rSecret"), "password printed: {all}");
    if o.status.success() {
        let report = json_ok(&o);
        let t = report["target"].as_str().expect("target");
        assert!(t.contains("alice:****@"), "{t}");
    } else {
        // The server refused the credentials: still one clean line.
        assert_fails_cleanly(&o, "credentials refused");
    }
    client
        .database(&db)
        .drop()
        .await
        .expect("drop test database");
}

/// Against a server that enforces authentication (a private one: the
/// shared server runs without `--auth`): the right password reads, a wrong
/// one fails cleanly, and neither is ever printed.
#[tokio::test]
async fn authentication_is_enforced_and_never_leaks() {
    const PW: &str = "Pa55-w0rd-only-in-this-test";
    if std::env::var_os("MONGODB_URI").is_some_and(|u| !u.is_empty()) {
        // Provisioning users needs a server of our own.
        return;
    }
    let storage = tempfile::tempdir().expect("tempdir");
    let server = PrivateServer::start(storage.path(), &[]);
    {
        let c = Client::with_uri_str(server.uri()).await.expect("uri");
        c.database("admin")
            .run_command(
                doc! {"createUser": "alice", "pwd": PW, "roles": [{"role": "root", "db": "admin"}]},
            )
            .await
            .expect("createUser");
        c.database("shop")
            .collection::<Document>("orders")
            .insert_many((0..20).map(|i| doc! {"_id": i, "items": [1, 2, 3]}))
            .await
            .expect("insert");
    }
    let port = server.port();
    server.stop();
    let server = PrivateServer::start_on(port, storage.path(), &["--auth"]);

    let good =
        format!("mongodb://alice:{PW}@127.0.0.1:{port}/?authSource=admin&directConnection=true");
    let o = docshape_async(&[
        "audit",
        &good,
        "-c",
        "shop.orders",
        "--format",
        "json",
        "--timeout",
        "10",
    ])
    .await;
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        !all.contains(PW),
        "password printed: {all}\nserver log: {}",
        server.log()
    );
    let report = json_ok(&o);
    assert!(
        report["target"]
            .as_str()
            .is_some_and(|t| t.contains("alice:****@")),
        "{}",
        report["target"]
    );
    assert_eq!(collection(&report, "shop.orders")["documents"], 20);

    let bad = good.replace(PW, "Wr0ng-guess-1234");
    let o = docshape_async(&["audit", &bad, "--format", "json", "--timeout", "10"]).await;
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(!all.contains("Wr0ng-guess-1234"), "password printed: {all}");
    let line = assert_fails_cleanly(&o, "wrong password");
    assert!(line.to_lowercase().contains("authentication"), "{line}");
    assert!(line.contains("alice:****@"), "{line}");
}

/// Round trips per collection, as the JSON report counts them (the
/// driver's command monitoring): the metadata commands, then one reply for
/// a sample that fits in 16 MiB, and one reply per 16 MiB of a full scan.
#[tokio::test]
async fn round_trips_per_collection_are_few_and_counted() {
    let client = client().await;
    let db = unique_db("trips");
    let coll = client.database(&db).collection::<Document>("wide");
    // 2,600 documents of ~8 KB: 21 MB, more than one 16 MiB reply.
    let pad = "p".repeat(8_000);
    let docs: Vec<Document> = (0..2_600)
        .map(|i| doc! {"_id": i, "k": i % 7, "pad": &pad})
        .collect();
    for chunk in docs.chunks(500) {
        coll.insert_many(chunk.to_vec()).await.expect("insert");
    }
    let ns = format!("{db}.wide");
    let trips = |report: &Value| -> BTreeMap<String, u64> {
        let c = collection(report, &ns);
        serde_json::from_value(c["round_trips"].clone()).expect("round_trips by command")
    };
    let metadata = [("collStats", 1), ("count", 1), ("listIndexes", 1)];

    // A sample of 1,000 (8 MB): one aggregate for $sample, one for
    // $indexStats, one for the whole-collection extremes, no getMore.
    let report = json_ok(
        &docshape_async(&[
            "audit",
            &uri(),
            "-c",
            &ns,
            "--format",
            "json",
            "--no-snapshot",
        ])
        .await,
    );
    assert_eq!(collection(&report, &ns)["sampled"], 1000);
    let mut want: BTreeMap<String, u64> = metadata
        .iter()
        .map(|(k, v)| ((*k).to_owned(), *v))
        .collect();
    want.insert("aggregate".into(), 3);
    assert_eq!(trips(&report), want, "sample of 1,000");

    // A full scan: one find, then one getMore per further 16 MiB.
    let report = json_ok(
        &docshape_async(&[
            "audit",
            &uri(),
            "-c",
            &ns,
            "--full",
            "--format",
            "json",
            "--no-snapshot",
        ])
        .await,
    );
    let c = collection(&report, &ns);
    assert_eq!(c["sampled"], 2600);
    let bytes = c["doc_size"]["avg"].as_f64().expect("avg size") * 2600.0;
    let replies = (bytes / f64::from(16u32 << 20)).ceil() as u64;
    let got = trips(&report);
    assert_eq!(got.get("find"), Some(&1), "{got:?}");
    assert_eq!(
        got.get("getMore").copied().unwrap_or(0),
        replies - 1,
        "{got:?} for {bytes} bytes"
    );
    assert_eq!(got.get("aggregate"), Some(&1), "$indexStats only: {got:?}");
    let total: u64 = got.values().sum();
    assert_eq!(total, 3 + 1 + replies, "{got:?}");
}
