//! Table-driven tests of the rule layer on collections built in memory.

use bson::{doc, Document};

use super::kit::{check, fired, report};

fn people(n: u32) -> Vec<Document> {
    (0..n)
        .map(|i| doc! {"_id": i, "name": format!("person {i}"), "age": i % 90})
        .collect()
}

#[test]
fn every_finding_says_its_scope() {
    // (documents read, documents in the collection, expected scope)
    let cases: [(u32, u64, &str); 2] = [(300, 300, "collection"), (300, 30_000, "sample")];
    for (read, total, want) in cases {
        let mut docs = people(read);
        for (i, d) in docs.iter_mut().enumerate() {
            // A path of two types in every document: mixed-types fires.
            d.insert(
                "code",
                if i % 2 == 0 {
                    bson::Bson::Int32(1)
                } else {
                    "x".into()
                },
            );
        }
        let r = report("people", &docs, total);
        let found = check(&r);
        assert!(!found.is_empty(), "mixed-types fires");
        for f in &found {
            assert_eq!(
                f.evidence.get("scope").and_then(|v| v.as_str()),
                Some(want),
                "{} {:?}",
                f.rule,
                f.message
            );
            if want == "sample" {
                assert!(!f.message.contains("in all"), "{}", f.message);
            }
        }
    }
}

/// Documents `i` in 0..n built by `make`.
fn docs(n: u32, make: impl Fn(u32) -> Document) -> Vec<Document> {
    (0..n).map(make).collect()
}

#[test]
fn long_field_names_weighs_cost_and_knows_standard_shapes() {
    let big = 10_000_000;
    let orders = |i: u32| {
        doc! {"_id": i, "customer_email_address": "a@b.co", "shipping_address_line": "x", "order_total_amount": i}
    };
    // (case, collection name, documents, collection size, fires)
    let cases: Vec<(&str, &str, Vec<Document>, u64, bool)> = vec![
        (
            "long names, ten million documents",
            "orders",
            docs(1000, orders),
            big,
            true,
        ),
        (
            "long names, a thousand documents",
            "orders",
            docs(1000, orders),
            1000,
            false,
        ),
        (
            "GeoJSON point",
            "places",
            docs(
                1000,
                |i| doc! {"_id": i, "type": "Point", "coordinates": [f64::from(i), 2.0]},
            ),
            big,
            false,
        ),
        (
            "GeoJSON feature",
            "features",
            docs(
                1000,
                |i| doc! {"type": "Feature", "geometry": {"type": "Point", "coordinates": [f64::from(i), 2.0]}, "properties": {"n": i}},
            ),
            big,
            false,
        ),
        (
            "theaters: GeoJSON below a plain object",
            "theaters",
            docs(
                1000,
                |i| doc! {"_id": i, "theaterId": i, "location": {"geo": {"type": "Point", "coordinates": [f64::from(i), 2.0]}}},
            ),
            big,
            false,
        ),
        (
            "GridFS files",
            "fs.files",
            docs(
                1000,
                |i| doc! {"_id": i, "length": i, "chunkSize": 261_120, "uploadDate": bson::DateTime::from_millis(0), "filename": "a", "contentType": "x"},
            ),
            big,
            false,
        ),
        (
            "mongod log entries",
            "log",
            docs(
                1000,
                |i| doc! {"t": bson::DateTime::from_millis(0), "s": "I", "c": "NETWORK", "id": i, "ctx": "conn1", "msg": "Slow query", "attr": {"durationMillis": i, "planSummary": "COLLSCAN", "keysExamined": 0, "docsExamined": 10}},
            ),
            big,
            false,
        ),
    ];
    for (case, name, sample, total, fires) in cases {
        let r = report(name, &sample, total);
        let found = check(&r);
        let got = fired(&found, "long-field-names");
        assert_eq!(
            got.len(),
            usize::from(fires),
            "{case}: {:?}",
            got.iter().map(|f| &f.message).collect::<Vec<_>>()
        );
        if let Some(f) = got.first() {
            for k in [
                "saved_bytes_per_document",
                "saved_share",
                "saved_bytes_collection",
                "scope",
            ] {
                assert!(f.evidence.contains_key(k), "{case}: {k}");
            }
            assert!(!f.message.contains("coordinates"), "{case}");
        }
    }
}

#[test]
fn too_many_fields_tells_a_fixed_schema_from_attributes() {
    // A fixed 400-path document: every path in every document.
    let fixed = |i: u32| {
        let mut d = doc! {"_id": i};
        for o in 0..20 {
            let mut sub = Document::new();
            for k in 0..19 {
                sub.insert(format!("field{k}"), i + k);
            }
            d.insert(format!("part{o}"), sub);
        }
        d
    };
    // A tweet: a fixed document, a third of them quoting another whole tweet.
    let tweet = |i: u32| {
        let mut d = fixed(i);
        if i.is_multiple_of(3) {
            d.insert("retweeted_status", fixed(i + 1));
        }
        d
    };
    // Attributes: 400 names, each in about a third of the documents.
    let attrs = |i: u32| {
        let mut specs = Document::new();
        for k in 0..150 {
            specs.insert(format!("spec{}", (i * 7 + k) % 400), "x");
        }
        doc! {"_id": i, "specs": specs}
    };
    // (case, documents, fires, suggested pattern)
    let cases: Vec<(&str, Vec<Document>, bool, &str)> = vec![
        ("fixed 400-path schema", docs(500, fixed), false, ""),
        (
            "fixed tweets with an optional retweet",
            docs(500, tweet),
            false,
            "",
        ),
        ("400 rare attributes", docs(500, attrs), true, "attribute"),
    ];
    for (case, sample, fires, pattern) in cases {
        let r = report("things", &sample, 500);
        assert!(r.fields.len() > 200, "{case}: {} paths", r.fields.len());
        let found = check(&r);
        let got = fired(&found, "too-many-fields");
        assert_eq!(got.len(), usize::from(fires), "{case}");
        if let Some(f) = got.first() {
            assert_eq!(
                matches!(f.remedy, super::Remedy::Attribute { .. }),
                pattern == "attribute",
                "{case}"
            );
        }
        assert!(
            found
                .iter()
                .all(|f| !matches!(f.remedy, super::Remedy::Attribute { .. })
                    || !case.starts_with("fixed")),
            "{case}: no attribute suggestion for a fixed schema"
        );
    }
}

#[test]
fn too_many_fields_leaves_keys_that_are_data_to_dynamic_keys() {
    let hex = |i: u32| {
        let mut t = Document::new();
        for k in 0..3 {
            t.insert(
                format!("{:032x}", u64::from(i * 3 + k) * 0x9E37_79B9),
                doc! {"tier": "gold", "benefits": ["a"]},
            );
        }
        doc! {"_id": i, "tier_and_details": t}
    };
    let r = report("customers", &docs(300, hex), 300);
    let found = check(&r);
    assert_eq!(fired(&found, "dynamic-keys").len(), 1);
    assert!(fired(&found, "too-many-fields").is_empty());
}

#[test]
fn numeric_widths_matter_only_when_a_value_can_change() {
    let d128 = |s: &str| bson::Bson::Decimal128(s.parse().expect("decimal"));
    // (case, values, fires)
    let cases: Vec<(&str, Vec<bson::Bson>, bool)> = vec![
        (
            "int and double ratings",
            (0..100u32)
                .map(|i| {
                    if i.is_multiple_of(3) {
                        bson::Bson::Int32(4)
                    } else {
                        bson::Bson::Double(4.5)
                    }
                })
                .collect(),
            false,
        ),
        (
            "int and long",
            (0..100)
                .map(|i| {
                    if i % 2 == 0 {
                        bson::Bson::Int32(4)
                    } else {
                        bson::Bson::Int64(5_000_000_000)
                    }
                })
                .collect(),
            false,
        ),
        (
            "decimal and double",
            (0..100)
                .map(|i| {
                    if i % 2 == 0 {
                        d128("0.10")
                    } else {
                        bson::Bson::Double(0.1)
                    }
                })
                .collect(),
            true,
        ),
        (
            "double and long beyond 2^53",
            (0..100)
                .map(|i| {
                    if i % 2 == 0 {
                        bson::Bson::Double(1.5)
                    } else {
                        bson::Bson::Int64(9_007_199_254_740_993)
                    }
                })
                .collect(),
            true,
        ),
        (
            "string and int",
            (0..100)
                .map(|i| {
                    if i % 2 == 0 {
                        bson::Bson::Int32(1)
                    } else {
                        "unlimited".into()
                    }
                })
                .collect(),
            true,
        ),
    ];
    for (case, values, fires) in cases {
        let sample: Vec<Document> = values
            .into_iter()
            .enumerate()
            .map(|(i, v)| doc! {"_id": i as i32, "price": v})
            .collect();
        let r = report("prices", &sample, 100);
        let found = check(&r);
        assert_eq!(
            fired(&found, "mixed-types").len(),
            usize::from(fires),
            "{case}"
        );
    }
}

/// An ObjectId created `days` days before a fixed moment.
fn oid_days_ago(days: u32, n: u32) -> bson::oid::ObjectId {
    let secs: u32 = 1_700_000_000 - days * 86_400;
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&secs.to_be_bytes());
    b[8..].copy_from_slice(&n.to_be_bytes());
    bson::oid::ObjectId::from_bytes(b)
}

#[test]
fn forecasts_start_from_the_largest_document() {
    let blob = |n: usize| {
        bson::Bson::Binary(bson::Binary {
            subtype: bson::spec::BinarySubtype::Generic,
            bytes: vec![7; n],
        })
    };
    // A log that gains one 4 KiB entry a day, and one document already at
    // 15.5 MB (92 % of the limit).
    let mut sample: Vec<Document> = (0..120u32)
        .map(|age| {
            let log: Vec<bson::Bson> = (0..age).map(|_| blob(4096)).collect();
            doc! {"_id": oid_days_ago(age, age), "log": log}
        })
        .collect();
    sample[0].insert("scan", blob(15_500_000));
    let r = report("machines", &sample, 120);
    let largest = r.doc_size.max as f64;
    let found = check(&r);
    let near = fired(&found, "document-near-limit");
    assert_eq!(near.len(), 1, "{found:?}");
    let days = near[0].evidence["forecast_days"]
        .as_f64()
        .expect("a forecast");
    let g = r.growth.get("log").cloned().expect("growth");
    let pace = g.per_day * g.bytes_per_element;
    let from_largest = (16.0 * 1024.0 * 1024.0 - largest) / pace;
    assert!(
        (days - from_largest).abs() <= 1.0,
        "{days} vs {from_largest}"
    );
    assert!(
        days < 365.0,
        "a document at 92 % of the limit is close: {days}"
    );
    let msg = &near[0].message;
    assert!(
        msg.contains("largest document") && msg.contains(&crate::fmt::bytes(largest)),
        "{msg}"
    );
    let arr = fired(&found, "unbounded-array");
    assert_eq!(arr.len(), 1);
    assert_eq!(
        arr[0].evidence["growth"]["days_to_limit"].as_f64(),
        Some(days)
    );
}

#[test]
fn time_series_per_event_reasons_about_the_collection() {
    let reading = |i: u32, device: String| {
        doc! {"_id": oid_days_ago(0, i), "device": device, "ts": bson::DateTime::from_millis(1_700_000_000_000 + i64::from(i) * 60_000), "v": f64::from(i % 97) / 3.0}
    };
    // (case, sample of 1,000, documents in the collection, fires)
    let cases: Vec<(&str, Vec<Document>, u64, bool)> = vec![
        (
            "36 sensors, 30,000 readings, 1,000 sampled",
            docs(1000, |i| reading(i, format!("sensor-{}", (i * 7919) % 36))),
            30_000,
            true,
        ),
        (
            "one reading per device, 30,000 devices",
            docs(1000, |i| reading(i, format!("device-{}", i * 30))),
            30_000,
            false,
        ),
        (
            "200 devices, every document read",
            docs(1000, |i| reading(i, format!("device-{}", i % 200))),
            1000,
            false,
        ),
    ];
    for (case, sample, total, fires) in cases {
        let r = report("readings", &sample, total);
        let found = check(&r);
        let got = fired(&found, "time-series-per-event");
        assert_eq!(got.len(), usize::from(fires), "{case}: {found:?}");
        if let Some(f) = got.first() {
            let est = &f.evidence["distinct_estimate"];
            assert_eq!(est["estimator"], "Duj1", "{case}");
            for k in ["n", "N", "d", "f1"] {
                assert!(est.get(k).is_some(), "{case}: {k}");
            }
            assert_eq!(f.evidence["scope"], "sample");
            assert!(f.message.contains("Duj1"), "{}", f.message);
        }
    }
}

#[test]
fn id_and_unique_fields_are_distinct_exactly() {
    // More values than the exact set holds: the sketch would round.
    let sample = docs(1000, |i| doc! {"_id": bson::oid::ObjectId::new(), "n": i});
    let r = report("things", &sample, 1000);
    let id = r.field("_id").and_then(|f| f.distinct).expect("distinct");
    assert!(id.exact);
    assert_eq!(id.estimate, 1000);
}

/// Whole-collection figures a sample of small documents with short arrays
/// does not show.
fn measured(largest: u64, over_bloated: u64, tags: u64, documents: u64) -> crate::source::Extremes {
    use super::extremes::{BLOATED_P95, NEAR_LIMIT_CRITICAL, NEAR_LIMIT_WARNING};
    use crate::source::extremes::{ArrayExtreme, LargeDocument, OverThreshold};
    let mut e = crate::source::Extremes::new("server-aggregation");
    e.documents = documents;
    e.largest = vec![LargeDocument {
        id: Some(serde_json::json!(7)),
        bytes: largest,
    }];
    e.arrays = vec![ArrayExtreme {
        path: "tags".into(),
        max_length: tags,
    }];
    let over = |name: &str, at: u64, n: u64| OverThreshold {
        threshold: name.into(),
        bytes: at,
        documents: n,
    };
    e.over = vec![
        over(
            NEAR_LIMIT_WARNING,
            10_000_000,
            u64::from(largest >= 10_000_000),
        ),
        over(
            NEAR_LIMIT_CRITICAL,
            12_582_912,
            u64::from(largest >= 12_582_912),
        ),
        over(BLOATED_P95, 2_000_000, over_bloated),
    ];
    e
}

#[test]
fn whole_collection_extremes_drive_the_size_and_array_rules() {
    let sample: Vec<Document> = (0..300)
        .map(|i| doc! {"_id": i, "name": format!("person {i}"), "tags": ["a", "b"]})
        .collect();
    // (case, extremes, rule, fires with scope collection)
    let cases: Vec<(&str, Option<crate::source::Extremes>, &str, Option<&str>)> = vec![
        ("no extremes", None, "document-near-limit", None),
        (
            "one document of 13 MiB",
            Some(measured(13 << 20, 1, 2, 30_000)),
            "document-near-limit",
            Some("critical"),
        ),
        (
            "one document of 11 MB",
            Some(measured(11_000_000, 1, 2, 30_000)),
            "document-near-limit",
            Some("warning"),
        ),
        (
            "largest 1 MB",
            Some(measured(1_000_000, 0, 2, 30_000)),
            "document-near-limit",
            None,
        ),
        (
            "10 % over 2 MB",
            Some(measured(3_000_000, 3_000, 2, 30_000)),
            "bloated-document",
            Some("warning"),
        ),
        (
            "1 % over 2 MB",
            Some(measured(3_000_000, 300, 2, 30_000)),
            "bloated-document",
            None,
        ),
        (
            "an array of 12,000",
            Some(measured(200_000, 0, 12_000, 30_000)),
            "unbounded-array",
            Some("critical"),
        ),
        (
            "arrays of 3 at most",
            Some(measured(200, 0, 3, 30_000)),
            "unbounded-array",
            None,
        ),
    ];
    for (case, extremes, rule, want) in cases {
        let mut r = report("people", &sample, 30_000);
        r.extremes = extremes;
        let found = check(&r);
        let hits = fired(&found, rule);
        match want {
            None => assert!(hits.is_empty(), "{case}: {hits:?}"),
            Some(severity) => {
                assert_eq!(hits.len(), 1, "{case}: {found:?}");
                let f = hits[0];
                assert_eq!(f.evidence["scope"], "collection", "{case}");
                assert_eq!(
                    serde_json::to_value(f.severity).expect("severity"),
                    severity,
                    "{case}"
                );
                assert!(
                    f.message.contains("whole collection"),
                    "{case}: {}",
                    f.message
                );
            }
        }
    }
}
