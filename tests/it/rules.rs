//! Every rule of the catalogue, on generated data against the real test
//! server: a collection with the problem planted, where the rule must fire,
//! and a clean twin without it, where it must stay silent. Clean twins must
//! draw no warning or critical finding from any rule.

use crate::common;

use common::{oid, DAY, NEWEST};

use std::collections::BTreeMap;

use bson::{doc, spec::BinarySubtype, Binary, Bson, Document};
use common::{client, docshape_async, json_ok, unique_db, uri};
use mongodb::IndexModel;

fn blob(n: usize, seed: u8) -> Bson {
    Bson::Binary(Binary {
        subtype: BinarySubtype::Generic,
        bytes: (0..n)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect(),
    })
}

/// `(collection, documents, indexes)` with each rule's problem planted.
fn planted() -> Vec<(&'static str, Vec<Document>, Vec<Document>)> {
    let mut out = Vec::new();
    // unbounded-array: comments grow 2 per day of age.
    out.push((
        "posts",
        (0..120u32)
            .map(|i| doc! {"_id": oid(NEWEST - i * DAY, i), "title": format!("post {i}"),
                "comments": (0..2 * i).map(|c| doc! {"by": format!("u{}", c % 9), "text": "nice"}).collect::<Vec<_>>()})
            .collect(),
        vec![],
    ));
    // large-reference-array: a kit with 1,500 component ids.
    let components: Vec<Document> = (0..1500u32)
        .map(|c| doc! {"_id": oid(NEWEST - 400 * DAY, 10_000 + c), "part": format!("P{c}")})
        .collect();
    let ids: Vec<Bson> = components
        .iter()
        .map(|c| c.get("_id").cloned().unwrap_or(Bson::Null))
        .collect();
    out.push(("components", components, vec![]));
    out.push((
        "kits",
        (0..5u32)
            .map(|k| doc! {"_id": oid(NEWEST - 300 * DAY, 20_000 + k), "name": format!("kit {k}"), "component_ids": ids[..(300 * (k as usize + 1))].to_vec()})
            .collect(),
        vec![],
    ));
    // document-near-limit: one 10.5 MB document.
    out.push((
        "scans",
        vec![
            doc! {"_id": 1, "name": "huge", "image": blob(10_500_000, 1)},
            doc! {"_id": 2, "name": "small", "image": blob(1000, 2)},
        ],
        vec![],
    ));
    // bloated-document: a 300 KB avatar in every contact.
    out.push((
        "contacts",
        (0..16)
            .map(|i| doc! {"_id": i, "name": format!("contact {i}"), "email": format!("c{i}@example.com"), "avatar": blob(300_000, i as u8)})
            .collect(),
        vec![],
    ));
    // time-series-per-event: 10,000 tiny events of 5 sensors.
    out.push((
        "readings",
        (0..10_000u32)
            .map(|i| doc! {"_id": oid(NEWEST - 10_000 + i, 30_000 + i), "sensor": format!("s{}", i % 5), "ts": bson::DateTime::from_millis(i64::from(NEWEST - 10_000 + i) * 1000), "v": f64::from(i % 97) / 3.0})
            .collect(),
        vec![],
    ));
    // dynamic-keys: 1,440 minute keys per day document.
    out.push((
        "page_stats",
        (0..30)
            .map(|d| {
                let mut minutes = Document::new();
                for m in 0..1440 {
                    minutes.insert(m.to_string(), (m * 7 + d) % 100);
                }
                doc! {"_id": d, "page": "/index.html", "day": bson::DateTime::from_millis(i64::from(d) * 86_400_000), "minutes": minutes}
            })
            .collect(),
        vec![],
    ));
    // mixed-types: 20 % of totals are strings.
    out.push((
        "orders",
        (0..100)
            .map(|i| {
                let total = if i % 5 == 0 {
                    Bson::String(format!("{}.50", i + 10))
                } else {
                    Bson::Double(f64::from(i) + 10.5)
                };
                doc! {"_id": i, "status": "paid", "total": total}
            })
            .collect(),
        vec![],
    ));
    // denormalization-drift: 10 of 40 people renamed since their invoices copied the name.
    let people: Vec<Document> = (0..40)
        .map(|p| doc! {"_id": oid(NEWEST - 200 * DAY, 40_000 + p), "name": if p % 4 == 0 { format!("Renamed {p}") } else { format!("Person {p}") }, "city": "Lyon"})
        .collect();
    let invoices: Vec<Document> = (0..120u32)
        .map(|i| {
            let p = (i % 40) as usize;
            doc! {"_id": i, "amount": f64::from(i), "customer": {"id": people[p].get("_id").cloned().unwrap_or(Bson::Null), "name": format!("Person {p}")}}
        })
        .collect();
    out.push(("people", people, vec![]));
    out.push(("invoices", invoices, vec![]));
    // missing-reference-index: logs reference hosts without an index.
    let hosts: Vec<Document> = (0..10u32)
        .map(|h| doc! {"_id": oid(NEWEST - 100 * DAY, 50_000 + h), "name": format!("h{h}")})
        .collect();
    let logs: Vec<Document> = (0..300u32)
        .map(|l| doc! {"_id": oid(NEWEST - l, 60_000 + l), "host_id": hosts[(l % 10) as usize].get("_id").cloned().unwrap_or(Bson::Null), "msg": "cpu is on fire"})
        .collect();
    out.push(("hosts", hosts, vec![]));
    out.push(("logs", logs, vec![]));
    // redundant-index, unused-index (field absent), too-many-indexes (12).
    let mut idx = vec![
        doc! {"a": 1},
        doc! {"a": 1, "b": 1},
        doc! {"no_such_field": 1},
    ];
    for k in 0..9 {
        idx.push(doc! {format!("f{k}"): 1});
    }
    out.push((
        "indexed",
        (0..50)
            .map(|i| {
                let mut d = doc! {"_id": i, "a": i, "b": i % 3};
                for k in 0..9 {
                    d.insert(format!("f{k}"), i + k);
                }
                d
            })
            .collect(),
        idx,
    ));
    // deep-nesting: 25 levels.
    out.push((
        "trees",
        (0..10)
            .map(|i| {
                let mut n = doc! {"leaf": i};
                for _ in 0..25 {
                    n = doc! {"child": n};
                }
                doc! {"_id": i, "root": n}
            })
            .collect(),
        vec![],
    ));
    // too-many-fields: 250 distinct attributes.
    out.push((
        "wide",
        (0..50)
            .map(|i| {
                let mut attrs = Document::new();
                for k in 0..250 {
                    if (k + i) % 2 == 0 {
                        attrs.insert(format!("attribute_{k}"), k);
                    }
                }
                doc! {"_id": i, "attrs": attrs}
            })
            .collect(),
        vec![],
    ));
    // polymorphic-without-discriminator: books and lamps, no type field.
    out.push((
        "catalog",
        (0..60)
            .map(|i| {
                if i % 2 == 0 {
                    doc! {"_id": i, "title": format!("Book {i}"), "author": "A. Writer", "pages": 100 + i, "isbn": format!("978-{i}")}
                } else {
                    doc! {"_id": i, "watts": 40 + i, "voltage": 230, "socket": "E27", "brand": "Glow"}
                }
            })
            .collect(),
        vec![],
    ));
    // long-field-names.
    out.push((
        "verbose",
        (0..50)
            .map(|i| doc! {"_id": i, "customer_shipping_address_line": "1 Rd", "customer_billing_address_line": "2 Rd", "preferred_delivery_time_window": "am", "loyalty_programme_membership_level": 2})
            .collect(),
        vec![],
    ));
    out
}

/// Clean twins: the same kinds of data, designed well.
fn clean() -> Vec<(&'static str, Vec<Document>, Vec<Document>)> {
    let mut out = Vec::new();
    out.push((
        "posts",
        (0..120u32)
            .map(|i| doc! {"_id": oid(NEWEST - i * DAY, i), "title": format!("post {i}"), "tags": ["a", "b", "c"]})
            .collect(),
        vec![],
    ));
    let components: Vec<Document> = (0..60u32)
        .map(|c| doc! {"_id": oid(NEWEST - 400 * DAY, 10_000 + c), "part": format!("P{c}")})
        .collect();
    let ids: Vec<Bson> = components
        .iter()
        .map(|c| c.get("_id").cloned().unwrap_or(Bson::Null))
        .collect();
    out.push(("components", components, vec![]));
    out.push((
        "kits",
        (0..5u32).map(|k| doc! {"_id": oid(NEWEST - 300 * DAY, 20_000 + k), "name": format!("kit {k}"), "component_ids": ids[..(10 * (k as usize + 1))].to_vec()}).collect(),
        vec![],
    ));
    out.push((
        "scans",
        (0..2)
            .map(|i| doc! {"_id": i, "name": "small", "image_id": i})
            .collect(),
        vec![],
    ));
    out.push((
        "contacts",
        (0..16).map(|i| doc! {"_id": i, "name": format!("contact {i}"), "email": format!("c{i}@example.com"), "avatar_id": i}).collect(),
        vec![],
    ));
    out.push((
        "readings",
        (0..200u32)
            .map(|h| {
                let events: Vec<Document> = (0..50).map(|e| doc! {"m": e, "v": f64::from(e) / 3.0}).collect();
                doc! {"_id": oid(NEWEST - (200 - h) * 3600, 30_000 + h), "sensor": format!("s{}", h % 5), "hour": bson::DateTime::from_millis(i64::from(NEWEST - (200 - h) * 3600) * 1000), "count": 50, "events": events}
            })
            .collect(),
        vec![],
    ));
    out.push((
        "page_stats",
        (0..30)
            .map(|d| {
                let hours: Vec<Document> = (0..24).map(|h| doc! {"h": h, "views": (h * 13 + d) % 100}).collect();
                doc! {"_id": d, "page": "/index.html", "day": bson::DateTime::from_millis(i64::from(d) * 86_400_000), "hours": hours}
            })
            .collect(),
        vec![],
    ));
    out.push((
        "orders",
        (0..100)
            .map(|i| doc! {"_id": i, "status": "paid", "total": f64::from(i) + 10.5})
            .collect(),
        vec![],
    ));
    let people: Vec<Document> = (0..40).map(|p| doc! {"_id": oid(NEWEST - 200 * DAY, 40_000 + p), "name": format!("Person {p}"), "city": "Lyon"}).collect();
    let invoices: Vec<Document> = (0..120u32)
        .map(|i| {
            let p = (i % 40) as usize;
            doc! {"_id": i, "amount": f64::from(i), "customer": {"id": people[p].get("_id").cloned().unwrap_or(Bson::Null), "name": format!("Person {p}")}}
        })
        .collect();
    out.push(("people", people, vec![]));
    out.push(("invoices", invoices, vec![doc! {"customer.id": 1}]));
    let hosts: Vec<Document> = (0..10u32)
        .map(|h| doc! {"_id": oid(NEWEST - 100 * DAY, 50_000 + h), "name": format!("h{h}")})
        .collect();
    let logs: Vec<Document> = (0..300u32)
        .map(|l| doc! {"_id": oid(NEWEST - l, 60_000 + l), "host_id": hosts[(l % 10) as usize].get("_id").cloned().unwrap_or(Bson::Null), "msg": "cpu is on fire"})
        .collect();
    out.push(("hosts", hosts, vec![]));
    out.push(("logs", logs, vec![doc! {"host_id": 1}]));
    out.push((
        "indexed",
        (0..50)
            .map(|i| doc! {"_id": i, "a": i, "b": i % 3})
            .collect(),
        vec![doc! {"a": 1, "b": 1}],
    ));
    out.push((
        "trees",
        (0..10)
            .map(|i| doc! {"_id": i, "root": {"child": {"leaf": i}}})
            .collect(),
        vec![],
    ));
    out.push((
        "wide",
        (0..50)
            .map(|i| {
                let attrs: Vec<Document> = (0..10)
                    .map(|k| doc! {"k": format!("attribute_{k}"), "v": k + i})
                    .collect();
                doc! {"_id": i, "attrs": attrs}
            })
            .collect(),
        vec![],
    ));
    out.push((
        "catalog",
        (0..60)
            .map(|i| {
                if i % 2 == 0 {
                    doc! {"_id": i, "type": "book", "title": format!("Book {i}"), "author": "A. Writer", "pages": 100 + i, "isbn": format!("978-{i}")}
                } else {
                    doc! {"_id": i, "type": "lamp", "watts": 40 + i, "voltage": 230, "socket": "E27", "brand": "Glow"}
                }
            })
            .collect(),
        vec![],
    ));
    out.push((
        "verbose",
        (0..50).map(|i| doc! {"_id": i, "ship_to": "1 Rd, Anytown", "bill_to": "2 Rd, Anytown", "window": "am", "level": 2, "notes": "leave at the door please"}).collect(),
        vec![],
    ));
    out
}

async fn load(
    c: &mongodb::Client,
    db: &str,
    data: Vec<(&'static str, Vec<Document>, Vec<Document>)>,
) {
    for (name, docs, indexes) in data {
        let coll = c.database(db).collection::<Document>(name);
        for chunk in docs.chunks(500) {
            coll.insert_many(chunk)
                .await
                .unwrap_or_else(|e| panic!("insert into {name}: {e}"));
        }
        for keys in indexes {
            coll.create_index(IndexModel::builder().keys(keys).build())
                .await
                .unwrap_or_else(|e| panic!("index on {name}: {e}"));
        }
    }
}

/// `rule -> [(namespace, severity)]` of every finding in a report.
fn fired(report: &serde_json::Value) -> BTreeMap<String, Vec<(String, String)>> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut all: Vec<&serde_json::Value> = Vec::new();
    for c in common::collections(report) {
        all.extend(c["findings"].as_array().expect("findings"));
    }
    all.extend(report["findings"].as_array().expect("report findings"));
    for f in all {
        out.entry(f["rule"].as_str().expect("rule").to_owned())
            .or_default()
            .push((
                f["namespace"].as_str().expect("ns").to_owned(),
                f["severity"].as_str().expect("severity").to_owned(),
            ));
        // Every finding carries numbers and a runnable suggestion.
        let ev = f["evidence"].as_object().expect("evidence object");
        assert!(
            ev.values().any(|v| v.is_number() || v.is_object()),
            "evidence without numbers: {f}"
        );
        assert!(
            ev.contains_key("threshold"),
            "evidence names no threshold: {f}"
        );
        assert!(!f["message"].as_str().expect("message").is_empty());
        assert!(!f["explanation"].as_str().expect("explanation").is_empty());
        let s = &f["suggestion"];
        assert!(
            s["pattern"].is_string() && !s["summary"].as_str().expect("summary").is_empty(),
            "{f}"
        );
        assert!(
            s["migration"]
                .as_str()
                .expect("migration")
                .contains("db.getSiblingDB"),
            "no script: {f}"
        );
    }
    out
}

async fn audit(db: &str) -> serde_json::Value {
    let pattern = format!("{db}.*");
    // The planted collections are small; `long-field-names` also weighs
    // what renaming saves over the whole collection, which the unit tests
    // of the rule layer cover. Here only the share of names is judged.
    let tmp = tempfile::tempdir().expect("tempdir");
    let cfg = tmp.path().join("docshape.toml");
    std::fs::write(&cfg, "[long-field-names]\nmin-saved-bytes = 0\n").expect("write");
    json_ok(
        &docshape_async(&[
            "audit",
            &uri(),
            "--config",
            cfg.to_str().expect("utf-8"),
            "-c",
            &pattern,
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
            "--lang",
            "en",
        ])
        .await,
    )
}

const COLLECTION_RULES: [(&str, &str); 16] = [
    ("unbounded-array", "posts"),
    ("large-reference-array", "kits"),
    ("document-near-limit", "scans"),
    ("bloated-document", "contacts"),
    ("time-series-per-event", "readings"),
    ("dynamic-keys", "page_stats"),
    ("mixed-types", "orders"),
    ("denormalization-drift", "invoices"),
    ("missing-reference-index", "logs"),
    ("redundant-index", "indexed"),
    ("unused-index", "indexed"),
    ("too-many-indexes", "indexed"),
    ("deep-nesting", "trees"),
    ("too-many-fields", "wide"),
    ("polymorphic-without-discriminator", "catalog"),
    ("long-field-names", "verbose"),
];

#[tokio::test(flavor = "current_thread")]
async fn every_rule_fires_on_its_problem_and_not_on_the_clean_twin() {
    let c = client().await;
    let bad = unique_db("bad");
    let good = unique_db("good");
    load(&c, &bad, planted()).await;
    load(&c, &good, clean()).await;

    let bad_report = audit(&bad).await;
    let bad_fired = fired(&bad_report);
    for (rule, coll) in COLLECTION_RULES {
        let ns = format!("{bad}.{coll}");
        let hits = bad_fired.get(rule).map(Vec::as_slice).unwrap_or_default();
        assert!(
            hits.iter().any(|(n, _)| *n == ns),
            "{rule} did not fire on {ns}; it fired on {hits:?}; all: {bad_fired:?}"
        );
    }
    // Severities the catalogue prescribes for these plants.
    let sev = |rule: &str, coll: &str| -> Vec<String> {
        bad_fired[rule]
            .iter()
            .filter(|(n, _)| *n == format!("{bad}.{coll}"))
            .map(|x| x.1.clone())
            .collect()
    };
    assert!(
        sev("document-near-limit", "scans").contains(&"warning".to_owned()),
        "10.5 MB is a warning below 12 MiB"
    );
    assert!(sev("large-reference-array", "kits").contains(&"warning".to_owned()));
    assert!(
        sev("too-many-indexes", "indexed").contains(&"info".to_owned()),
        "13 indexes: above 10, below 30"
    );
    assert!(sev("unused-index", "indexed").contains(&"warning".to_owned()));
    assert!(sev("mixed-types", "orders").contains(&"warning".to_owned()));

    let good_report = audit(&good).await;
    let good_fired = fired(&good_report);
    for (rule, coll) in COLLECTION_RULES {
        let ns = format!("{good}.{coll}");
        let hits = good_fired.get(rule).map(Vec::as_slice).unwrap_or_default();
        assert!(
            !hits.iter().any(|(n, _)| *n == ns),
            "{rule} fired on the clean {ns}: {hits:?}"
        );
    }
    for (rule, hits) in &good_fired {
        for (ns, severity) in hits {
            assert_eq!(
                severity, "info",
                "clean data drew a {severity} {rule} on {ns}"
            );
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn too_many_collections_fires_above_one_hundred() {
    let c = client().await;
    let many = unique_db("many");
    let few = unique_db("few");
    for i in 0..101 {
        c.database(&many)
            .collection::<Document>(&format!("events_{i:03}"))
            .insert_one(doc! {"_id": 1, "n": i})
            .await
            .expect("insert");
    }
    for i in 0..5 {
        c.database(&few)
            .collection::<Document>(&format!("events_{i:03}"))
            .insert_one(doc! {"_id": 1, "n": i})
            .await
            .expect("insert");
    }
    let r = audit(&many).await;
    let f = fired(&r);
    assert!(
        f.get("too-many-collections")
            .is_some_and(|h| h.iter().any(|(n, s)| *n == many && s == "info")),
        "{f:?}"
    );
    let migration = r["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "too-many-collections")
        .and_then(|f| f["suggestion"]["migration"].as_str())
        .expect("script");
    assert!(
        migration.contains("/^events[-_.0-9]+$/"),
        "the script selects every events_NNN collection: {migration}"
    );
    let r = audit(&few).await;
    assert!(!fired(&r).contains_key("too-many-collections"));
}
