//! Every kind of index, end to end: text, geo, hashed, wildcard, TTL,
//! partial, unique, sparse, hidden, collated, clustered and time-series
//! indexes on fields no document has must never draw an `unused-index`
//! "drop"; a plain index on a field no document of the collection has
//! still does, and says how that was checked. The test server builds what
//! it supports (2dsphere, 2d, wildcard, TTL, partial, unique, sparse,
//! hidden, collation, clustered and time-series collections); a mongodump
//! tree carries the rest (text, hashed, geoHaystack) and the same kinds
//! again, and real data carries the indexes Atlas ships with it.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use bson::{doc, Document};
use common::{
    client, collection, docshape, docshape_async, json_ok, realdata, unique_db, uri, write_bson,
};
use serde_json::{json, Value};

/// `(index name, finding)` of every finding of `rule` on a collection.
fn findings<'a>(c: &'a Value, rule: &str) -> BTreeMap<String, &'a Value> {
    c["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == rule)
        .map(|f| {
            let name = f["evidence"]["index"]["name"]
                .as_str()
                .expect("the finding names its index");
            (name.to_owned(), f)
        })
        .collect()
}

/// Index name → its `kind` list, from the report.
fn kinds(c: &Value) -> BTreeMap<String, BTreeSet<String>> {
    c["indexes"]
        .as_array()
        .expect("indexes")
        .iter()
        .map(|i| {
            let k = i["kind"]
                .as_array()
                .unwrap_or_else(|| panic!("every index has a kind list: {i}"))
                .iter()
                .map(|k| k.as_str().expect("kind").to_owned())
                .collect();
            (i["name"].as_str().expect("name").to_owned(), k)
        })
        .collect()
}

/// The report's description of one index.
fn index<'a>(c: &'a Value, name: &str) -> &'a Value {
    c["indexes"]
        .as_array()
        .expect("indexes")
        .iter()
        .find(|i| i["name"] == name)
        .unwrap_or_else(|| panic!("index {name} is reported: {}", c["indexes"]))
}

fn has_kind(k: &BTreeMap<String, BTreeSet<String>>, index: &str, kind: &str) {
    let got = k
        .get(index)
        .unwrap_or_else(|| panic!("index {index} is reported: {k:?}"));
    assert!(got.contains(kind), "{index} is {kind}: {got:?}");
}

/// The plain index on a field no document has: a warning whose message
/// says how the whole collection was checked, and whose script drops it.
fn assert_dropped(f: &Value, how: &str) {
    assert_eq!(f["severity"], "warning", "{f}");
    let msg = f["message"].as_str().expect("message");
    assert!(
        msg.contains(how),
        "the message says how it was checked: {msg}"
    );
    assert!(
        f["suggestion"]["migration"]
            .as_str()
            .is_some_and(|m| m.contains("dropIndex")),
        "{f}"
    );
}

/// The TTL index on a field no document has: information, never a drop.
fn assert_nothing_expires(f: &Value) {
    assert_eq!(f["severity"], "info", "{f}");
    let msg = f["message"].as_str().expect("message");
    assert!(msg.contains("nothing ever expires"), "{msg}");
    let script = f["suggestion"]["migration"].as_str().expect("script");
    assert!(!script.contains("dropIndex"), "never dropped: {script}");
}

async fn create(coll: &mongodb::Collection<Document>, key: Document, options: Document) {
    let mut spec = doc! {"key": key.clone()};
    spec.extend(options);
    if !spec.contains_key("name") {
        let name: Vec<String> = key.iter().map(|(k, v)| format!("{k}_{v}")).collect();
        spec.insert("name", name.join("_").replace('"', ""));
    }
    coll.client()
        .database(coll.namespace().db.as_str())
        .run_command(doc! {"createIndexes": coll.name(), "indexes": [spec.clone()]})
        .await
        .unwrap_or_else(|e| panic!("the test server builds {spec}: {e}"));
}

#[tokio::test(flavor = "current_thread")]
async fn server_indexes_of_every_kind_are_judged_by_what_they_read() {
    let client = client().await;
    let db = unique_db("index_kinds");
    let database = client.database(&db);
    let coll = database.collection::<Document>("things");
    // 3,000 documents; one of them has `rare`. A sample of 20 almost
    // surely misses it; the server does not.
    let docs: Vec<Document> = (0..3000i32)
        .map(|i| {
            let mut d = doc! {"_id": i, "name": format!("thing {i}"), "attrs": {"color": if i % 2 == 0 { "red" } else { "blue" }}};
            if i == 1234 {
                d.insert("rare", true);
            }
            d
        })
        .collect();
    coll.insert_many(docs).await.expect("insert");
    for (key, options) in [
        (doc! {"$**": 1}, doc! {}),
        (doc! {"attrs.$**": 1}, doc! {}),
        (
            doc! {"$**": 1},
            doc! {"name": "projected", "wildcardProjection": {"attrs": 1}},
        ),
        (doc! {"place": "2dsphere"}, doc! {}),
        (doc! {"grid": "2d"}, doc! {}),
        (doc! {"expires_at": 1}, doc! {"expireAfterSeconds": 3600}),
        (
            doc! {"coupon": 1},
            doc! {"partialFilterExpression": {"coupon": {"$exists": true}}},
        ),
        (doc! {"sso_id": 1}, doc! {"unique": true, "sparse": true}),
        (doc! {"old_status": 1}, doc! {"hidden": true}),
        (doc! {"rare": 1}, doc! {}),
        (doc! {"legacy": 1}, doc! {}),
        (
            doc! {"nick": 1},
            doc! {"collation": {"locale": "fr", "strength": 2}},
        ),
    ] {
        create(&coll, key, options).await;
    }
    // A time-series collection and a clustered one.
    database
        .run_command(
            doc! {"create": "weather", "timeseries": {"timeField": "ts", "metaField": "meta"}},
        )
        .await
        .expect("create a time-series collection");
    let weather = database.collection::<Document>("weather");
    weather
        .insert_many((0..50i64).map(|i| doc! {"ts": bson::DateTime::from_millis(1_700_000_000_000 + i * 60_000), "meta": {"sensor": i % 3}, "temp": 20.5}))
        .await
        .expect("insert readings");
    create(&weather, doc! {"meta.region": 1}, doc! {}).await;
    database
        .run_command(
            doc! {"create": "events", "clusteredIndex": {"key": {"_id": 1}, "unique": true}},
        )
        .await
        .expect("create a clustered collection");
    database
        .collection::<Document>("events")
        .insert_many((0..20i32).map(|i| doc! {"_id": i, "what": "login"}))
        .await
        .expect("insert events");

    let report = json_ok(
        &docshape_async(&[
            "audit",
            &uri(),
            "--db",
            &db,
            "--sample",
            "20",
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
        ])
        .await,
    );
    let things = collection(&report, &format!("{db}.things"));
    let unused = findings(things, "unused-index");
    assert_eq!(
        unused.keys().map(String::as_str).collect::<Vec<_>>(),
        ["expires_at_1", "legacy_1", "nick_1"],
        "only plain indexes on fields no document has, and the TTL one: {unused:#?}"
    );
    assert_dropped(unused["legacy_1"], "checked on the server");
    assert_eq!(
        unused["legacy_1"]["evidence"]["threshold"]["check"],
        json!({"paths": ["legacy"], "found": false, "method": "server-query"})
    );
    assert_dropped(unused["nick_1"], "checked on the server");
    assert_nothing_expires(unused["expires_at_1"]);
    // One query for every index absent from the sample, and one more once
    // it found the document with `rare` (unless the sample had drawn it).
    let rare_sampled = things["fields"]
        .as_array()
        .expect("fields")
        .iter()
        .any(|f| f["path"] == "rare");
    assert_eq!(
        things["round_trips"]["find"],
        if rare_sampled { 1 } else { 2 },
        "{}",
        things["round_trips"]
    );

    let k = kinds(things);
    for (index, kind) in [
        ("_id_", "id"),
        ("$**_1", "wildcard"),
        ("attrs.$**_1", "wildcard"),
        ("projected", "wildcard"),
        ("place_2dsphere", "geo-2dsphere"),
        ("grid_2d", "geo-2d"),
        ("expires_at_1", "ttl"),
        ("coupon_1", "partial"),
        ("sso_id_1", "unique"),
        ("sso_id_1", "sparse"),
        ("old_status_1", "hidden"),
        ("legacy_1", "single"),
        ("nick_1", "collation"),
    ] {
        has_kind(&k, index, kind);
    }
    assert_eq!(
        index(things, "projected")["wildcard_projection"],
        json!({"attrs": 1})
    );

    let weather = collection(&report, &format!("{db}.weather"));
    assert_eq!(weather["kind"], "timeseries");
    assert!(
        findings(weather, "unused-index").is_empty(),
        "time-series indexes are not judged by the documents as sampled: {}",
        weather["findings"]
    );
    let events = collection(&report, &format!("{db}.events"));
    has_kind(&kinds(events), "_id_", "clustered");
    database.drop().await.expect("drop test database");
}

/// An index document as mongodump writes it (canonical Extended JSON).
fn idx(name: &str, key: Value, extra: Value) -> Value {
    let mut i = json!({"v": {"$numberInt": "2"}, "name": name});
    if let Some(o) = i.as_object_mut() {
        o.insert("key".into(), key);
        if let Value::Object(extra) = extra {
            o.extend(extra);
        }
    }
    i
}

fn one() -> Value {
    json!({"$numberInt": "1"})
}

/// A mongodump tree: `shop/things` with an index of every kind (those the
/// test server cannot build included), and a time-series collection as
/// mongodump writes it (bucket documents in `system.buckets.weather.bson`,
/// the collection's metadata in `weather.metadata.json`).
fn dump_tree(root: &Path) {
    let shop = root.join("shop");
    std::fs::create_dir_all(&shop).expect("mkdir");
    let docs: Vec<Document> = (0..2000i32)
        .map(|i| {
            let mut d = doc! {"_id": i, "title": format!("thing {i}"), "user_id": i % 97, "attrs": {"size": i % 5}, "a": i % 3, "b": i % 7};
            if i == 1500 {
                d.insert("rare", "x");
            }
            d
        })
        .collect();
    write_bson(&shop.join("things.bson"), &docs);
    let indexes = json!([
        idx("_id_", json!({"_id": one()}), json!({})),
        idx(
            "summary_text",
            json!({"_fts": "text", "_ftsx": one()}),
            json!({
            "weights": {"summary": one(), "body": {"$numberInt": "5"}},
            "default_language": "english", "language_override": "language",
            "textIndexVersion": {"$numberInt": "3"}})
        ),
        idx(
            "$**_text",
            json!({"_fts": "text", "_ftsx": one()}),
            json!({
            "weights": {"$**": one()}, "default_language": "english",
            "language_override": "language", "textIndexVersion": {"$numberInt": "3"}})
        ),
        idx("shard_hashed", json!({"shard": "hashed"}), json!({})),
        idx(
            "shard_hashed_b_1",
            json!({"shard": "hashed", "b": one()}),
            json!({})
        ),
        idx(
            "place_2dsphere",
            json!({"place": "2dsphere"}),
            json!({"2dsphereIndexVersion": {"$numberInt": "3"}})
        ),
        idx(
            "place_2dsphere_b_1",
            json!({"place": "2dsphere", "b": one()}),
            json!({"2dsphereIndexVersion": {"$numberInt": "3"}})
        ),
        idx("grid_2d", json!({"grid": "2d"}), json!({})),
        idx(
            "pos_geoHaystack_type_1",
            json!({"pos": "geoHaystack", "type": one()}),
            json!({"bucketSize": {"$numberDouble": "1.0"}})
        ),
        idx("extra.$**_1", json!({"extra.$**": one()}), json!({})),
        idx(
            "projected",
            json!({"$**": one()}),
            json!({"wildcardProjection": {"specs": one()}})
        ),
        idx(
            "expires_at_1",
            json!({"expires_at": one()}),
            json!({"expireAfterSeconds": {"$numberInt": "3600"}})
        ),
        idx(
            "coupon_1",
            json!({"coupon": one()}),
            json!({"partialFilterExpression": {"coupon": {"$exists": true}}})
        ),
        idx(
            "sso_id_1",
            json!({"sso_id": one()}),
            json!({"unique": true, "sparse": true})
        ),
        idx(
            "old_status_1",
            json!({"old_status": one()}),
            json!({"hidden": true})
        ),
        idx(
            "a_1_b_1_hidden",
            json!({"a": one(), "b": one(), "title": one()}),
            json!({"hidden": true})
        ),
        idx("a_1", json!({"a": one()}), json!({})),
        idx("a_1_b_1", json!({"a": one(), "b": one()}), json!({})),
        idx("rare_1", json!({"rare": one()}), json!({})),
        idx("legacy_1", json!({"legacy": one()}), json!({})),
    ]);
    let meta = json!({"indexes": indexes, "uuid": "0123456789abcdef0123456789abcdef",
                      "collectionName": "things", "type": "collection"});
    std::fs::write(shop.join("things.metadata.json"), meta.to_string()).expect("write");

    let buckets: Vec<Document> = (0..10i32)
        .map(|i| {
            let t = bson::DateTime::from_millis(1_700_000_000_000 + i64::from(i) * 3_600_000);
            doc! {"_id": bson::oid::ObjectId::new(), "control": {"version": 1, "min": {"ts": t, "temp": 1.0}, "max": {"ts": t, "temp": 9.0}},
                  "meta": {"device": i % 2}, "data": {"ts": {"0": t}, "temp": {"0": 4.5}}}
        })
        .collect();
    write_bson(&shop.join("system.buckets.weather.bson"), &buckets);
    // mongo-tools' own fixture (mongodump/testdata/timeseriesColl.metadata.json).
    let ts = json!({"options": {"timeseries": {"timeField": "ts", "metaField": "meta", "granularity": "seconds",
                                             "bucketMaxSpanSeconds": {"$numberInt": "3600"}}},
                    "indexes": [
                        idx("meta.device_1", json!({"meta.device": one()}), json!({})),
                        idx("ts_1_meta.device_1", json!({"ts": one(), "meta.device": one()}), json!({})),
                    ],
                    "collectionName": "weather", "type": "timeseries"});
    std::fs::write(shop.join("weather.metadata.json"), ts.to_string()).expect("write");
}

const SPECIAL: [&str; 15] = [
    "summary_text",
    "$**_text",
    "shard_hashed",
    "shard_hashed_b_1",
    "place_2dsphere",
    "place_2dsphere_b_1",
    "grid_2d",
    "pos_geoHaystack_type_1",
    "extra.$**_1",
    "projected",
    "coupon_1",
    "sso_id_1",
    "old_status_1",
    "a_1_b_1_hidden",
    "rare_1",
];

#[test]
fn dump_indexes_of_every_kind_are_judged_by_what_they_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("dump");
    dump_tree(&root);
    let dir = root.to_str().expect("UTF-8 path");
    let sampled = json_ok(&docshape(&[
        "audit",
        dir,
        "-c",
        "shop.things",
        "--sample",
        "50",
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]));
    let things = collection(&sampled, "shop.things");
    assert!(
        things["fields"]
            .as_array()
            .expect("fields")
            .iter()
            .all(|f| f["path"] != "rare"),
        "precondition: the seeded sample of 50 misses the one document with `rare`"
    );
    let unused = findings(things, "unused-index");
    for name in SPECIAL {
        assert!(
            !unused.contains_key(name),
            "{name} is never dropped for an absent field: {:#}",
            unused[name]
        );
    }
    assert_eq!(
        unused.keys().map(String::as_str).collect::<Vec<_>>(),
        ["expires_at_1", "legacy_1"],
        "{unused:#?}"
    );
    assert_dropped(
        unused["legacy_1"],
        "checked by a scan of every document of the file",
    );
    assert_nothing_expires(unused["expires_at_1"]);
    let k = kinds(things);
    for (index, kind) in [
        ("summary_text", "text"),
        ("$**_text", "text"),
        ("shard_hashed", "hashed"),
        ("shard_hashed_b_1", "compound"),
        ("place_2dsphere", "geo-2dsphere"),
        ("grid_2d", "geo-2d"),
        ("pos_geoHaystack_type_1", "geo-haystack"),
        ("extra.$**_1", "wildcard"),
        ("expires_at_1", "ttl"),
        ("a_1_b_1", "compound"),
    ] {
        has_kind(&k, index, kind);
    }
    let text = index(things, "summary_text");
    assert_eq!(text["weights"], json!({"summary": 1, "body": 5}));
    assert_eq!(text["default_language"], "english");
    assert_eq!(text["text_index_version"], 3);

    // Only the plain prefix is redundant: hashed, geo and a hidden longer
    // index cover nothing.
    let redundant = findings(things, "redundant-index");
    assert_eq!(
        redundant.keys().map(String::as_str).collect::<Vec<_>>(),
        ["a_1"],
        "{redundant:#?}"
    );
    assert_eq!(
        redundant["a_1"]["evidence"]["covered_by"]["name"],
        "a_1_b_1"
    );

    // Every document read: no scan needed, and the message says so.
    let full = json_ok(&docshape(&[
        "audit",
        dir,
        "-c",
        "shop.things",
        "--full",
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]));
    let unused = findings(collection(&full, "shop.things"), "unused-index");
    assert_eq!(
        unused.keys().map(String::as_str).collect::<Vec<_>>(),
        ["expires_at_1", "legacy_1"]
    );
    assert_dropped(
        unused["legacy_1"],
        "every document of the collection was profiled",
    );

    // The time-series collection, its buckets read as measurements.
    let ts = json_ok(&docshape(&[
        "audit",
        dir,
        "-c",
        "shop.weather",
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]));
    let weather = collection(&ts, "shop.weather");
    assert_eq!(weather["kind"], "timeseries");
    assert_eq!(kinds(weather).len(), 2, "{}", weather["indexes"]);
    assert!(
        findings(weather, "unused-index").is_empty(),
        "the measurements hold `ts` and `meta`: {}",
        weather["findings"]
    );
}

/// Atlas's sample_mflix ships a text index on movies and a 2dsphere index
/// on theaters; neither is an unused index.
#[test]
fn atlas_sample_indexes_on_real_data_are_not_unused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("sample_mflix");
    std::fs::create_dir_all(&db).expect("mkdir");
    std::fs::copy(realdata("mflix/movies.json"), db.join("movies.json")).expect("copy");
    std::fs::copy(
        realdata("sample_mflix/theaters.json"),
        db.join("theaters.json"),
    )
    .expect("copy");
    let id = idx("_id_", json!({"_id": one()}), json!({}));
    let movies = json!({"indexes": [id.clone(), idx("cast_text_fullplot_text_genres_text_title_text",
        json!({"_fts": "text", "_ftsx": one()}),
        json!({"weights": {"cast": one(), "fullplot": one(), "genres": one(), "title": one()},
               "default_language": "english", "language_override": "language",
               "textIndexVersion": {"$numberInt": "3"}}))],
        "collectionName": "movies", "type": "collection"});
    let theaters = json!({"indexes": [id, idx("geo_index", json!({"location.geo": "2dsphere"}),
        json!({"2dsphereIndexVersion": {"$numberInt": "3"}}))],
        "collectionName": "theaters", "type": "collection"});
    std::fs::write(db.join("movies.metadata.json"), movies.to_string()).expect("write");
    std::fs::write(db.join("theaters.metadata.json"), theaters.to_string()).expect("write");
    let report = json_ok(&docshape(&[
        "audit",
        db.to_str().expect("UTF-8 path"),
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]));
    for ns in ["sample_mflix.movies", "sample_mflix.theaters"] {
        let c = collection(&report, ns);
        assert!(
            findings(c, "unused-index").is_empty(),
            "{ns}: {}",
            c["findings"]
        );
    }
    let k = kinds(collection(&report, "sample_mflix.movies"));
    has_kind(&k, "cast_text_fullplot_text_genres_text_title_text", "text");
}
