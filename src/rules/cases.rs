//! Table-driven cases at each typed threshold: a rule fires (with the
//! severity named) on one side of the boundary and not on the other, on
//! collections profiled in memory.

use bson::{doc, oid::ObjectId, Bson, Document};

use super::kit::{check_with, report, severity_of};
use super::{DeploymentCtx, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::source::IndexInfo;

fn index(name: &str, key: Document) -> IndexInfo {
    IndexInfo::from_spec(&doc! {"v": 2, "name": name, "key": key}).expect("index spec")
}

fn nested(depth: u32) -> Document {
    let mut d = doc! {"leaf": 1};
    for _ in 1..depth {
        d = doc! {"n": d};
    }
    d
}

#[test]
fn deep_nesting_fires_above_warning_and_is_critical_at_critical() {
    let docs: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "tree": nested(12)})
        .collect();
    let r = report("trees", &docs, 20);
    let depth = f64::from(r.max_depth);
    assert!(depth >= 10.0, "measured depth {depth}");
    for (warning, critical, want) in [
        (depth, 90.0, None),
        (depth - 1.0, 90.0, Some(Severity::Warning)),
        (depth - 1.0, depth + 1.0, Some(Severity::Warning)),
        (depth - 1.0, depth, Some(Severity::Critical)),
    ] {
        let mut t = Thresholds::default();
        t.deep_nesting.warning = warning;
        t.deep_nesting.critical = critical;
        let found = check_with(&r, &t);
        assert_eq!(
            severity_of(&found, "deep-nesting"),
            want,
            "warning {warning}, critical {critical}, depth {depth}"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "deep-nesting") {
            assert!(
                matches!(&f.remedy, Remedy::Flatten { path } if path == "tree"),
                "{:?}",
                f.remedy
            );
        }
    }
    // A shallow collection never fires with the defaults.
    let flat: Vec<Document> = (0..20).map(|i| doc! {"_id": i, "a": {"b": 1}}).collect();
    let found = check_with(&report("flat", &flat, 20), &Thresholds::default());
    assert_eq!(severity_of(&found, "deep-nesting"), None);
}

#[test]
fn too_many_indexes_counts_against_info_and_warning() {
    let docs: Vec<Document> = (0..10).map(|i| doc! {"_id": i, "a": i}).collect();
    let mut r = report("items", &docs, 10);
    r.indexes = (0..6)
        .map(|i| index(&format!("f{i}_1"), doc! {format!("f{i}"): 1}))
        .collect();
    for (info, warning, want) in [
        (6.0, 30.0, None),
        (5.0, 30.0, Some(Severity::Info)),
        (5.0, 6.0, Some(Severity::Info)),
        (5.0, 5.0, Some(Severity::Warning)),
    ] {
        let mut t = Thresholds::default();
        t.too_many_indexes.info = info;
        t.too_many_indexes.warning = warning;
        let found = check_with(&r, &t);
        assert_eq!(
            severity_of(&found, "too-many-indexes"),
            want,
            "info {info}, warning {warning}"
        );
    }
}

#[test]
fn too_many_indexes_names_the_attribute_pattern_only_for_indexes_on_one_object() {
    let docs: Vec<Document> = (0..10)
        .map(|i| doc! {"_id": i, "specs": {"color": "red", "size": i, "weight": i}, "a": i})
        .collect();
    let mut t = Thresholds::default();
    t.too_many_indexes.info = 2.0;
    let remedy_with = |keys: &[&str]| {
        let mut r = report("products", &docs, 10);
        r.indexes = keys
            .iter()
            .map(|k| index(&format!("{k}_1"), doc! {*k: 1}))
            .collect();
        check_with(&r, &t)
            .into_iter()
            .find(|f| f.rule == "too-many-indexes")
            .map(|f| f.remedy)
    };
    // Three children of `specs`, one index each: one {k, v} index instead.
    assert!(matches!(
        remedy_with(&["specs.color", "specs.size", "specs.weight"]),
        Some(Remedy::Attribute { object }) if object == "specs"
    ));
    // Two under `specs` and one elsewhere: no attribute group, a review.
    assert!(matches!(
        remedy_with(&["specs.color", "specs.size", "a"]),
        Some(Remedy::ReviewIndexes)
    ));
    // Indexed children of a path that is not an embedded object: a review.
    assert!(matches!(
        remedy_with(&["x.a", "x.b", "x.c"]),
        Some(Remedy::ReviewIndexes)
    ));
}

#[test]
fn redundant_index_needs_a_covering_index() {
    let docs: Vec<Document> = (0..10).map(|i| doc! {"_id": i, "a": i, "b": i}).collect();
    for (indexes, want) in [
        (vec![index("a_1", doc! {"a": 1})], None),
        (
            vec![
                index("a_1", doc! {"a": 1}),
                index("a_1_b_1", doc! {"a": 1, "b": 1}),
            ],
            Some(Severity::Warning),
        ),
        (
            vec![
                index("a_-1", doc! {"a": -1}),
                index("a_1_b_1", doc! {"a": 1, "b": 1}),
            ],
            None,
        ),
        (
            vec![
                index("b_1", doc! {"b": 1}),
                index("a_1_b_1", doc! {"a": 1, "b": 1}),
            ],
            None,
        ),
    ] {
        let names: Vec<String> = indexes.iter().map(|i| i.name.clone()).collect();
        let mut r = report("items", &docs, 10);
        r.indexes = indexes;
        let found = check_with(&r, &Thresholds::default());
        assert_eq!(severity_of(&found, "redundant-index"), want, "{names:?}");
        if let Some(f) = found.iter().find(|f| f.rule == "redundant-index") {
            assert!(
                matches!(&f.remedy, Remedy::DropIndex { name, covered_by: Some(b) } if name == "a_1" && b == "a_1_b_1"),
                "{:?}",
                f.remedy
            );
        }
    }
}

#[test]
fn large_reference_array_at_its_lengths() {
    let ids = |n: usize| -> Vec<ObjectId> { (0..n).map(|_| ObjectId::new()).collect() };
    let docs: Vec<Document> = (0..5)
        .map(|i| doc! {"_id": i, "images": ids(if i == 0 { 60 } else { 5 })})
        .collect();
    let r = report("albums", &docs, 5);
    for (warning, critical, want) in [
        (60.0, 1000.0, None),
        (59.0, 1000.0, Some(Severity::Warning)),
        (59.0, 60.0, Some(Severity::Warning)),
        (59.0, 59.0, Some(Severity::Critical)),
    ] {
        let mut t = Thresholds::default();
        t.large_reference_array.warning_length = warning;
        t.large_reference_array.critical_length = critical;
        let found = check_with(&r, &t);
        assert_eq!(
            severity_of(&found, "large-reference-array"),
            want,
            "warning {warning}, critical {critical}"
        );
    }
    // Strings are not references: the same lengths stay silent.
    let words: Vec<Document> = (0..5)
        .map(|i| doc! {"_id": i, "words": (0..60).map(|k| format!("w{k}")).collect::<Vec<_>>()})
        .collect();
    let mut t = Thresholds::default();
    t.large_reference_array.warning_length = 10.0;
    let found = check_with(&report("texts", &words, 5), &t);
    assert_eq!(severity_of(&found, "large-reference-array"), None);
}

#[test]
fn too_many_collections_per_database_and_deployment() {
    let names: Vec<String> = (0..12).map(|i| format!("events_{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    for (per_db, per_deployment, want) in [
        (12.0, 10_000.0, None),
        (11.0, 10_000.0, Some(Severity::Info)),
        (100.0, 12.0, Some(Severity::Warning)),
        (100.0, 13.0, None),
    ] {
        let mut t = Thresholds::default();
        t.too_many_collections.per_database = per_db;
        t.too_many_collections.per_deployment = per_deployment;
        let ctx = DeploymentCtx {
            databases: vec![("logs", refs.clone())],
            total: refs.len(),
            summaries: Vec::new(),
        };
        let found = super::check_deployment(&ctx, &t, Lang::En);
        assert_eq!(
            found.first().map(|f| f.severity),
            want,
            "per-database {per_db}, per-deployment {per_deployment}"
        );
        if let Some(f) = found.first() {
            assert!(
                matches!(&f.remedy, Remedy::MergeCollections { db, .. } if db == "logs"),
                "{:?}",
                f.remedy
            );
        }
    }
}

#[test]
fn a_disabled_rule_never_runs() {
    let docs: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "tree": nested(12)})
        .collect();
    let r = report("trees", &docs, 20);
    let mut t = Thresholds::default();
    t.deep_nesting.warning = 1.0;
    assert!(severity_of(&check_with(&r, &t), "deep-nesting").is_some());
    let mut off = Thresholds::parse(
        "[deep-nesting]\nenabled = false\nwarning = 1\n",
        "x.toml",
        None,
    )
    .expect("valid");
    assert!((off.deep_nesting.warning - 1.0).abs() < f64::EPSILON);
    assert_eq!(severity_of(&check_with(&r, &off), "deep-nesting"), None);
    off = Thresholds::parse("disable = [\"deep-nesting\"]\n", "x.toml", None).expect("valid");
    assert!(!off.enabled("deep-nesting"));
}

/// Documents of one size: a 2 KiB note each, no growth.
fn notes(n: i32) -> Vec<Document> {
    (0..n)
        .map(|i| doc! {"_id": i, "title": format!("t{i:02}"), "note": "x".repeat(2048)})
        .collect()
}

#[test]
fn document_near_limit_at_warning_and_critical_bytes() {
    let r = report("notes", &notes(20), 20);
    let max = r.doc_size.max as f64;
    for (warning, critical, want) in [
        (max + 1.0, max + 2.0, None),
        (max, max + 1.0, Some(Severity::Warning)),
        (max, max, Some(Severity::Critical)),
    ] {
        let mut t = Thresholds::default();
        t.document_near_limit.warning_bytes = warning;
        t.document_near_limit.critical_bytes = critical;
        let found = check_with(&r, &t);
        assert_eq!(
            severity_of(&found, "document-near-limit"),
            want,
            "warning {warning}, critical {critical}, largest {max}"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "document-near-limit") {
            assert!(
                matches!(&f.remedy, Remedy::Separate { path } if path == "note"),
                "{:?}",
                f.remedy
            );
        }
    }
}

#[test]
fn bloated_document_by_p95_or_by_one_heavy_path() {
    let r = report("notes", &notes(20), 20);
    let p95 = r.doc_size.p95 as f64;
    // (p95-bytes, path-share, path-avg-bytes) → fires.
    for (p95_bytes, share, path_avg, fires) in [
        (p95, 1.0, 1e9, false),
        (p95 - 1.0, 1.0, 1e9, true),
        (p95, 0.5, 2048.0, true),
        (p95, 0.5, 4096.0, false),
        (p95, 0.99, 2048.0, false),
    ] {
        let mut t = Thresholds::default();
        t.bloated_document.p95_bytes = p95_bytes;
        t.bloated_document.path_share = share;
        t.bloated_document.path_avg_bytes = path_avg;
        let found = check_with(&r, &t);
        let want = fires.then_some(Severity::Warning);
        assert_eq!(
            severity_of(&found, "bloated-document"),
            want,
            "p95-bytes {p95_bytes}, path-share {share}, path-avg-bytes {path_avg}"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "bloated-document") {
            assert!(
                matches!(&f.remedy, Remedy::Separate { path } if path == "note"),
                "{:?}",
                f.remedy
            );
        }
    }
}

#[test]
fn missing_reference_index_only_for_unindexed_parent_references() {
    // (indexes known, indexed, a to-one pointer, warning from, critical
    // from) → severity
    type Case = (bool, Option<bool>, bool, f64, f64, Option<Severity>);
    let docs: Vec<Document> = (0..10).map(|i| doc! {"_id": i, "movie_id": i}).collect();
    let mut r = super::testing::report("db.comments", &docs);
    let known = vec![index("_id_", doc! {"_id": 1})];
    let rel = |indexed: Option<bool>, pointer: bool| {
        let mut x = super::testing::relationship(
            "db.comments",
            "movie_id",
            "db.movies",
            "_id",
            10,
            10,
            None,
        );
        x.indexed = indexed;
        x.to_one_pointer = pointer;
        x
    };
    let cases: &[Case] = &[
        (true, Some(true), false, 1e3, 1e6, None),
        // The 10 documents a lookup scans are below the warning's 1,000.
        (true, Some(false), false, 1e3, 1e6, Some(Severity::Info)),
        (true, Some(false), false, 10.0, 1e6, Some(Severity::Warning)),
        (
            true,
            Some(false),
            false,
            10.0,
            9.0,
            Some(Severity::Critical),
        ),
        // A user's profile picture: nobody finds the user by it.
        (true, Some(false), true, 10.0, 1e6, None),
        // An export without index definitions: nothing is claimed where
        // the scan is cheap; where it is not, the finding says the indexes
        // are unknown, at info.
        (false, None, false, 1e3, 1e6, None),
        (false, None, false, 10.0, 1e6, Some(Severity::Info)),
    ];
    for &(known_indexes, indexed, pointer, warning, critical, want) in cases {
        r.indexes = if known_indexes {
            known.clone()
        } else {
            Vec::new()
        };
        let rels = [rel(indexed, pointer)];
        let ctx = super::testing::ctx(&r, &rels);
        let mut t = Thresholds::default();
        t.missing_reference_index.warning_documents = warning;
        t.missing_reference_index.critical_documents = critical;
        let found = super::check_collection(&ctx, &t, Lang::En);
        let what = format!("known {known_indexes}, indexed {indexed:?}, pointer {pointer}, warning {warning}, critical {critical}");
        assert_eq!(
            severity_of(&found, "missing-reference-index"),
            want,
            "{what}"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "missing-reference-index") {
            assert!(
                matches!(&f.remedy, Remedy::CreateIndex { keys } if keys == "movie_id"),
                "{:?}",
                f.remedy
            );
            assert_eq!(
                f.message.contains("no index starts with it"),
                known_indexes,
                "{what}: {}",
                f.message
            );
        }
    }
}

#[test]
fn dynamic_keys_from_min_keys_on() {
    // Three of 30 day keys per document: 30 distinct keys, all data.
    let docs: Vec<Document> = (0..60)
        .map(|i: i32| {
            let mut daily = Document::new();
            for k in 0..3 {
                daily.insert(format!("2024-01-{:02}", (i + k * 10) % 30 + 1), k);
            }
            doc! {"_id": i, "daily": daily, "address": {"street": "s", "city": "c", "zip": "z"}}
        })
        .collect();
    let r = report("stats", &docs, 60);
    for (min_keys, fires) in [(30.0, true), (31.0, false)] {
        let mut t = Thresholds::default();
        t.dynamic_keys.min_keys = min_keys;
        t.dynamic_keys.many_keys = 1e6;
        let found = check_with(&r, &t);
        let hits: Vec<_> = found.iter().filter(|f| f.rule == "dynamic-keys").collect();
        assert_eq!(
            hits.len(),
            usize::from(fires),
            "min-keys {min_keys}: {hits:?}"
        );
        if let Some(f) = hits.first() {
            assert_eq!(f.path.as_deref(), Some("daily"));
            assert!(
                matches!(&f.remedy, Remedy::Attribute { object } if object == "daily"),
                "{:?}",
                f.remedy
            );
        }
    }
    // Named keys stay silent even when few are asked for.
    let mut t = Thresholds::default();
    t.dynamic_keys.min_keys = 3.0;
    let found = check_with(&r, &t);
    assert!(found
        .iter()
        .all(|f| f.rule != "dynamic-keys" || f.path.as_deref() != Some("address")));
}

#[test]
fn unbounded_array_at_max_length() {
    // Arrays of numbers (neither references nor sub-documents), no growth.
    let docs: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "scores": (0..50).collect::<Vec<i32>>()})
        .collect();
    let r = report("grades", &docs, 20);
    for (max_length, want) in [(51.0, None), (50.0, Some(Severity::Critical))] {
        let mut t = Thresholds::default();
        t.unbounded_array.max_length = max_length;
        let found = check_with(&r, &t);
        assert_eq!(
            severity_of(&found, "unbounded-array"),
            want,
            "max-length {max_length}"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "unbounded-array") {
            assert!(
                matches!(&f.remedy, Remedy::ParentReference { array } if array == "scores"),
                "{:?}",
                f.remedy
            );
        }
    }
}

/// An ObjectId created `days` days before 1.7e9 s, numbered `n`.
fn aged(days: u32, n: u32) -> ObjectId {
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&(1_700_000_000 - days * 86_400).to_be_bytes());
    b[8..].copy_from_slice(&n.to_be_bytes());
    ObjectId::from_bytes(b)
}

#[test]
fn unbounded_array_severity_follows_its_forecast() {
    // 40 posts, post `i` `i` days old with `2 i` comments: growth across
    // documents, a forecast of centuries.
    let docs: Vec<Document> = (0..40u32)
        .map(|i| doc! {"_id": aged(i, i), "comments": (0..2 * i).map(|c| doc! {"by": format!("u{}", c % 9), "text": "nice"}).collect::<Vec<_>>()})
        .collect();
    let r = report("posts", &docs, 40);
    let days = r.growth["comments"].days_to_limit.expect("a forecast");
    assert!(days > 3650.0, "{days}");
    // (critical-days, warning-days) → severity.
    for (critical, warning, want) in [
        (days, days, Severity::Critical),
        (days - 1.0, days, Severity::Warning),
        (days - 1.0, days - 1.0, Severity::Info),
    ] {
        let mut t = Thresholds::default();
        t.unbounded_array.critical_days = critical;
        t.unbounded_array.warning_days = warning;
        let found = check_with(&r, &t);
        let f = found
            .iter()
            .find(|f| f.rule == "unbounded-array")
            .expect("fires");
        assert_eq!(
            f.severity, want,
            "critical-days {critical}, warning-days {warning}"
        );
        assert_eq!(f.evidence["forecast_severity"]["severity"], want.name());
        assert_eq!(
            f.message.contains("the limit is no concern"),
            want == Severity::Info,
            "{}",
            f.message
        );
    }
    // At the defaults: centuries away, info.
    let found = check_with(&r, &Thresholds::default());
    assert_eq!(severity_of(&found, "unbounded-array"), Some(Severity::Info));
    // A length over the sub-document threshold keeps its warning whatever
    // the forecast.
    let mut t = Thresholds::default();
    t.unbounded_array.max_subdocument_length = 70.0;
    assert_eq!(
        severity_of(&check_with(&r, &t), "unbounded-array"),
        Some(Severity::Warning)
    );
}

#[test]
fn unbounded_array_sees_growth_inside_one_document() {
    // Twelve users (too few for a cross-section); the first signs in 150
    // times over 50 days, each sign-in with an 800-byte token.
    let token = "t".repeat(800);
    let docs: Vec<Document> = (0..12u32)
        .map(|u| {
            let n = if u == 0 { 150 } else { 4 };
            let logins: Vec<Document> = (0..n)
                .map(|k| {
                    let at = 1_700_000_000 - 55 * 86_400 + i64::from(k * 50 * 86_400 / n);
                    doc! {"at": bson::DateTime::from_millis(at * 1000), "token": &token}
                })
                .collect();
            doc! {"_id": aged(60, u), "name": format!("user {u}"), "logins": logins}
        })
        .collect();
    let r = report("users", &docs, 12);
    let found = check_with(&r, &Thresholds::default());
    let f = found
        .iter()
        .find(|f| f.rule == "unbounded-array")
        .expect("growth inside one document");
    assert_eq!(f.evidence["growth"]["method"], "element-dates");
    assert_eq!(f.evidence["growth"]["within"]["elements"], 150);
    assert_eq!(
        f.evidence["threshold"]["name"],
        "unbounded-array.min-dated-elements"
    );
    assert!(
        f.message.contains("grows inside its documents"),
        "{}",
        f.message
    );
    assert!(f.message.contains("by logins[].at"), "{}", f.message);
    // ~2.98 elements of ~820 bytes a day: 16 MiB in about 19 years.
    assert_eq!(f.severity, Severity::Info, "{}", f.message);
    assert!(
        matches!(&f.remedy, Remedy::ParentReference { array } if array == "logins"),
        "{:?}",
        f.remedy
    );
    let mut t = Thresholds::default();
    t.unbounded_array.min_dated_elements = 151.0;
    assert_eq!(severity_of(&check_with(&r, &t), "unbounded-array"), None);
    // The Chinese message says the same.
    let zh = super::unbounded_array::check(
        &super::testing::ctx(&r, &[]),
        &Thresholds::default(),
        Lang::Zh,
    );
    assert!(
        zh[0].message.contains("在单个文档内增长"),
        "{}",
        zh[0].message
    );
}

/// Small events, one per document: `series` sensors, `per` readings each.
fn readings(series: i32, per: i32) -> Vec<Document> {
    (0..series * per)
        .map(|i| {
            doc! {
                "_id": i,
                "sensor": format!("s{}", i % series),
                "at": bson::DateTime::from_millis(1_700_000_000_000 + i64::from(i) * 60_000),
                "v": f64::from(i) / 10.0,
            }
        })
        .collect()
}

#[test]
fn time_series_per_event_from_min_documents_and_max_avg_bytes() {
    // 2 sensors, 100 readings each: 1 series per 100 documents.
    let docs = readings(2, 100);
    let r = report("readings", &docs, 200);
    let avg = r.doc_size.avg;
    for (min_docs, max_avg, per_100, fires) in [
        (201.0, 256.0, 1.0, false),
        (200.0, 256.0, 1.0, true),
        (200.0, avg, 1.0, false),
        (200.0, avg + 1.0, 1.0, true),
        (200.0, 256.0, 0.99, false),
    ] {
        let mut t = Thresholds::default();
        t.time_series_per_event.min_documents = min_docs;
        t.time_series_per_event.max_avg_bytes = max_avg;
        t.time_series_per_event.series_per_100 = per_100;
        let found = check_with(&r, &t);
        assert_eq!(
            severity_of(&found, "time-series-per-event"),
            fires.then_some(Severity::Warning),
            "min-documents {min_docs}, max-avg-bytes {max_avg}, series-per-100 {per_100}, avg {avg}"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "time-series-per-event") {
            assert!(
                matches!(&f.remedy, Remedy::Bucket { date, series: Some(s) } if date == "at" && s == "sensor"),
                "{:?}",
                f.remedy
            );
        }
    }
    // Every document its own series: nothing to bucket.
    let lone: Vec<Document> = readings(200, 1);
    let mut t = Thresholds::default();
    t.time_series_per_event.min_documents = 200.0;
    let found = check_with(&report("lone", &lone, 200), &t);
    assert_eq!(severity_of(&found, "time-series-per-event"), None);
}

#[test]
fn mixed_types_from_min_share() {
    // 3 of 100 prices are strings.
    let docs: Vec<Document> = (0..100)
        .map(|i| {
            if i % 33 == 1 {
                doc! {"_id": i, "price": format!("{i}")}
            } else {
                doc! {"_id": i, "price": i}
            }
        })
        .collect();
    let r = report("prices", &docs, 100);
    for (min_share, fires) in [(0.03, true), (0.031, false), (0.01, true)] {
        let mut t = Thresholds::default();
        t.mixed_types.min_share = min_share;
        let found = check_with(&r, &t);
        assert_eq!(
            found.iter().any(|f| f.rule == "mixed-types"),
            fires,
            "min-share {min_share}: {found:?}"
        );
    }
}

#[test]
fn string_dates_from_min_share() {
    // 9 of 10 `when` values are ISO dates, one is free text.
    let docs: Vec<Document> = (0..10)
        .map(|i| {
            if i == 9 {
                doc! {"_id": i, "when": "soon"}
            } else {
                doc! {"_id": i, "when": format!("2026-01-0{}T10:00:00Z", i + 1)}
            }
        })
        .collect();
    let r = report("events", &docs, 10);
    for (min_share, fires) in [(0.95, false), (0.9, true), (0.5, true)] {
        let mut t = Thresholds::default();
        t.string_dates.min_share = min_share;
        let found = check_with(&r, &t);
        assert_eq!(
            found.iter().any(|f| f.rule == "string-dates"),
            fires,
            "min-share {min_share}: {found:?}"
        );
    }
}

#[test]
fn polymorphic_without_discriminator_from_min_share() {
    // Two shapes with nothing in common but `_id`: 18 parcels, 2 letters.
    let docs: Vec<Document> = (0..20)
        .map(|i| {
            if i < 18 {
                doc! {"_id": i, "weight": i, "dims": "1x2x3", "carrier": "c"}
            } else {
                doc! {"_id": i, "pages": i, "ink": "blue", "stamp": true}
            }
        })
        .collect();
    let r = report("mail", &docs, 20);
    for (min_share, fires) in [(0.1, true), (0.11, false), (0.05, true)] {
        let mut t = Thresholds::default();
        t.polymorphic_without_discriminator.min_share = min_share;
        let found = check_with(&r, &t);
        assert_eq!(
            found
                .iter()
                .any(|f| f.rule == "polymorphic-without-discriminator"),
            fires,
            "min-share {min_share}: {found:?}"
        );
    }
}

#[test]
fn too_many_fields_counts_against_warning_and_never_informs_on_a_fixed_schema() {
    // `_id`, `specs` and 28 keys of `specs` in every document: 30 paths of
    // a wide fixed schema.
    let docs: Vec<Document> = (0..10)
        .map(|i| {
            let mut specs = Document::new();
            for k in 0..28 {
                specs.insert(format!("f{k}"), i + k);
            }
            doc! {"_id": i, "specs": specs}
        })
        .collect();
    let r = report("wide", &docs, 10);
    for (info, warning, want) in [
        (30.0, 1000.0, None),
        (29.0, 1000.0, None),
        (29.0, 30.0, None),
        (29.0, 29.0, Some(Severity::Warning)),
    ] {
        let mut t = Thresholds::default();
        t.too_many_fields.info = info;
        t.too_many_fields.warning = warning;
        let found = check_with(&r, &t);
        assert_eq!(
            severity_of(&found, "too-many-fields"),
            want,
            "info {info}, warning {warning}: {found:?}"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "too-many-fields") {
            assert!(
                matches!(&f.remedy, Remedy::Separate { path } if path == "specs"),
                "{:?}",
                f.remedy
            );
        }
    }
}

#[test]
fn lossy_numbers_from_min_values_and_money_share() {
    // Ids past 2^53 stored as doubles: 2 of 20 documents.
    let big: Vec<Document> = (0..20)
        .map(|i| {
            let id = if i < 2 {
                9_007_199_254_740_992.0 * 4.0 + f64::from(i) * 8.0
            } else {
                f64::from(i)
            };
            doc! {"_id": i, "ext_id": id}
        })
        .collect();
    let r = report("ids", &big, 20);
    for (min_values, fires) in [(2.0, true), (3.0, false), (1.0, true)] {
        let mut t = Thresholds::default();
        t.lossy_numbers.min_values = min_values;
        let found = check_with(&r, &t);
        assert_eq!(
            found
                .iter()
                .any(|f| f.rule == "lossy-numbers" && f.path.as_deref() == Some("ext_id")),
            fires,
            "min-values {min_values}: {found:?}"
        );
    }
    // Prices as doubles: 5 of 20 have a decimal the double cannot hold
    // (0.1 and 0.3 have no binary form; 0.5 and 0.25 do).
    let prices: Vec<Document> = (0..20)
        .map(|i| {
            let p = if i < 5 {
                f64::from(i) + 0.1
            } else {
                f64::from(i) + 0.25
            };
            doc! {"_id": i, "unit_price": p}
        })
        .collect();
    let r = report("prices", &prices, 20);
    for (share, fires) in [(0.25, true), (0.26, false)] {
        let mut t = Thresholds::default();
        t.lossy_numbers.money_share = share;
        let found = check_with(&r, &t);
        assert_eq!(
            found
                .iter()
                .any(|f| f.rule == "lossy-numbers" && f.path.as_deref() == Some("unit_price")),
            fires,
            "money-share {share}: {found:?}"
        );
    }
    // The same decimals under a name that is not money: silent.
    let scores: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "score": f64::from(i) + 0.1})
        .collect();
    let found = check_with(&report("scores", &scores, 20), &Thresholds::default());
    assert!(
        !found.iter().any(|f| f.rule == "lossy-numbers"),
        "{found:?}"
    );
}

#[test]
fn long_field_names_from_share_and_saved_bytes() {
    let docs: Vec<Document> = (0..20)
        .map(|i| {
            doc! {
                "_id": i,
                "customer_shipping_address_line_one": i,
                "customer_shipping_address_postal_code": i,
                "customer_preferred_contact_channel": i,
            }
        })
        .collect();
    let r = report("verbose", &docs, 20);
    for (share, min_bytes, fires) in [(0.3, 0.0, true), (0.99, 0.0, false), (0.3, 1e12, false)] {
        let mut t = Thresholds::default();
        t.long_field_names.share = share;
        t.long_field_names.min_saved_bytes = min_bytes;
        let found = check_with(&r, &t);
        assert_eq!(
            found.iter().any(|f| f.rule == "long-field-names"),
            fires,
            "share {share}, min-saved-bytes {min_bytes}: {found:?}"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "long-field-names") {
            assert!(
                matches!(&f.remedy, Remedy::Rename { renames } if renames.len() == 3),
                "{:?}",
                f.remedy
            );
        }
    }
}

/// A find on `kit.NAME` as a "Slow query" attr.
fn slow_find(
    name: &str,
    filter: serde_json::Value,
    sort: Option<serde_json::Value>,
    plan: &str,
    examined: (u64, u64, u64),
    ms: u64,
) -> serde_json::Value {
    let mut cmd = serde_json::json!({"find": name, "$db": "kit"});
    cmd["filter"] = filter;
    if let Some(s) = sort {
        cmd["sort"] = s;
    }
    serde_json::json!({
        "type": "command", "ns": format!("kit.{name}"), "command": cmd,
        "planSummary": plan, "keysExamined": examined.0, "docsExamined": examined.1,
        "nreturned": examined.2, "durationMillis": ms,
        "hasSortStage": sort_in_memory(plan),
    })
}

fn sort_in_memory(plan: &str) -> bool {
    plan == "COLLSCAN"
}

/// One slow shape elsewhere that holds most of the workload's time.
fn elsewhere(ms: u64) -> (u64, serde_json::Value) {
    (
        1,
        slow_find(
            "other",
            serde_json::json!({"x": 1}),
            None,
            "IXSCAN { x: 1 }",
            (1, 1, 1),
            ms,
        ),
    )
}

fn orders(n: u32) -> Vec<Document> {
    (0..n)
        .map(|i| doc! {"_id": i, "status": if i % 2 == 0 { "A" } else { "B" }, "customer": format!("c{}", i % 50), "qty": i % 9})
        .collect()
}

#[test]
fn index_esr_fires_on_frequent_shapes_and_is_critical_when_it_dominates() {
    use super::kit::{check_workload, workload};
    let r = report("orders", &orders(200), 200);
    let scan = |runs: u64| {
        (
            runs,
            slow_find(
                "orders",
                serde_json::json!({"status": "A", "customer": "c1", "qty": {"$lt": 3}}),
                Some(serde_json::json!({"at": -1})),
                "COLLSCAN",
                (0, 200, 4),
                2,
            ),
        )
    };
    // (runs, milliseconds elsewhere, severity): frequent by count (100
    // runs) or by time (1 % of the workload); critical from 50 %.
    for (runs, other_ms, want) in [
        (99, 1_000_000, None),
        (100, 1_000_000, Some(Severity::Warning)),
        (99, 19_000, Some(Severity::Warning)),
        (99, 198, Some(Severity::Critical)),
    ] {
        let w = workload(&[scan(runs), elsewhere(other_ms)]);
        let found = check_workload(&r, &Thresholds::default(), &w);
        assert_eq!(
            severity_of(&found, "index-esr"),
            want,
            "{runs} runs, {other_ms} ms elsewhere"
        );
        if let Some(f) = found.iter().find(|f| f.rule == "index-esr") {
            // E (customer: 50 values before status: 2), S, R.
            assert!(
                matches!(&f.remedy, Remedy::EsrIndex { keys, extends: None }
                    if keys == &[("customer".to_owned(), 1), ("status".to_owned(), 1), ("at".to_owned(), -1), ("qty".to_owned(), 1)]),
                "{:?}",
                f.remedy
            );
        }
    }
    // An index that already has the key (made after the log) silences it.
    let mut served = report("orders", &orders(200), 200);
    served.indexes = vec![index(
        "esr",
        doc! {"customer": 1, "status": 1, "at": -1, "qty": 1, "x": 1},
    )];
    let w = workload(&[scan(500)]);
    assert_eq!(
        severity_of(
            &check_workload(&served, &Thresholds::default(), &w),
            "index-esr"
        ),
        None
    );
    // A prefix index is extended, and a unique one never is.
    let mut prefix = report("orders", &orders(200), 200);
    prefix.indexes = vec![index("customer_1", doc! {"customer": 1})];
    let found = check_workload(&prefix, &Thresholds::default(), &w);
    assert!(found.iter().any(
        |f| matches!(&f.remedy, Remedy::EsrIndex { extends: Some(n), .. } if n == "customer_1")
    ));
    prefix.indexes[0].unique = true;
    let found = check_workload(&prefix, &Thresholds::default(), &w);
    assert!(found
        .iter()
        .any(|f| matches!(&f.remedy, Remedy::EsrIndex { extends: None, .. })));
    // _id lookups are never reported.
    let by_id = (
        1000,
        slow_find(
            "orders",
            serde_json::json!({"_id": 5}),
            None,
            "IDHACK",
            (1, 1, 1),
            1,
        ),
    );
    let found = check_workload(&r, &Thresholds::default(), &workload(&[by_id]));
    assert!(
        found
            .iter()
            .all(|f| !f.rule.contains("index") && f.rule != "unindexed-query"),
        "{found:?}"
    );
}

#[test]
fn unindexed_query_needs_a_large_collection_and_a_wasteful_scan() {
    use super::kit::{check_workload, workload};
    let docs = orders(100);
    // One rare scan: not frequent, so index-esr leaves it to this rule.
    for (documents, returned, want) in [
        (9_999, 1, None),
        (10_000, 1, Some(Severity::Warning)),
        (10_000, 101, None),
    ] {
        let r = report("orders", &docs, documents);
        let w = workload(&[
            (
                3,
                slow_find(
                    "orders",
                    serde_json::json!({"customer": "c1"}),
                    None,
                    "COLLSCAN",
                    (0, 10_000, returned),
                    5,
                ),
            ),
            elsewhere(1_000_000),
        ]);
        let found = check_workload(&r, &Thresholds::default(), &w);
        assert_eq!(
            severity_of(&found, "unindexed-query"),
            want,
            "{documents} documents, {returned} returned"
        );
        assert_eq!(severity_of(&found, "index-esr"), None);
    }
}

#[test]
fn case_insensitive_regex_is_an_info_on_frequent_shapes_only() {
    use super::kit::{check_workload, workload};
    let r = report("users", &orders(50), 50);
    let regex = |options: &str, pattern: &str, runs: u64| {
        (
            runs,
            slow_find(
                "users",
                serde_json::json!({"customer": {"$regex": pattern, "$options": options}}),
                None,
                "IXSCAN { customer: 1 }",
                (50, 1, 1),
                1,
            ),
        )
    };
    for (options, pattern, runs, want) in [
        ("i", "^c1$", 100, Some(Severity::Info)),
        ("", "c1", 100, Some(Severity::Info)),
        ("i", "^c1$", 99, None),
        ("", "^c1", 100, None),
    ] {
        let w = workload(&[regex(options, pattern, runs), elsewhere(1_000_000)]);
        let found = check_workload(&r, &Thresholds::default(), &w);
        assert_eq!(
            severity_of(&found, "case-insensitive-regex"),
            want,
            "/{pattern}/{options} ×{runs}"
        );
    }
}

#[test]
fn unused_index_never_calls_an_index_a_shape_used_unused() {
    use super::kit::workload;
    // $indexStats counted no operation for 30 days: unused, unless a plan
    // of the workload used it (counters restart with the server).
    let mut r = report("items", &orders(20), 20);
    r.indexes = vec![index("qty_1", doc! {"qty": 1})];
    let usage = [crate::source::IndexUsage {
        name: "qty_1".into(),
        ops: 0,
        since: Some(1.8e9 - 30.0 * 86_400.0),
    }];
    let find = |plan: &str| {
        workload(&[(
            5,
            slow_find(
                "items",
                serde_json::json!({"qty": 1}),
                None,
                plan,
                (2, 2, 2),
                1,
            ),
        )])
    };
    let check = |w: &crate::workload::Workload| {
        let ctx = super::CollectionCtx {
            data: r.data(),
            relationships: Vec::new(),
            drift: Vec::new(),
            index_usage: Some(&usage),
            now: 1.8e9,
            workload: Some(super::ShapesView::of(w, &r.namespace)),
        };
        super::check_collection(&ctx, &Thresholds::default(), Lang::En)
    };
    assert_eq!(
        severity_of(&check(&find("IXSCAN { qty: 1 }")), "unused-index"),
        None
    );
    let found = check(&find("COLLSCAN"));
    let f = found
        .iter()
        .find(|f| f.rule == "unused-index")
        .expect("unused-index");
    assert_eq!(f.evidence["workload"]["shapes_using_it"], 0);
    assert!(
        f.message.contains("none of the 1 query shapes"),
        "{}",
        f.message
    );
}

#[test]
fn bloated_document_is_silent_on_a_value_beside_its_keys() {
    let mut t = Thresholds::default();
    t.bloated_document.path_avg_bytes = 1024.0;
    let with_field = |extra: Option<fn(i32) -> Bson>| -> Vec<Document> {
        (0..20)
            .map(|i| {
                let mut d = doc! {"_id": i, "contact_id": i, "avatar": "x".repeat(4096)};
                if let Some(value) = extra {
                    d.insert("extra", value(i));
                }
                d
            })
            .collect()
    };
    let with = |extra: bool| {
        with_field(extra.then_some((|i| Bson::String(format!("contact {i}"))) as fn(i32) -> Bson))
    };
    // The avatar beside its keys: already a collection of its own.
    let found = check_with(&report("contacts_avatar", &with(false), 20), &t);
    assert_eq!(severity_of(&found, "bloated-document"), None, "{found:?}");
    // Beside its keys and a field that says nothing (a version counter
    // never bumped, as Mongoose writes `__v: 0`): still nothing to spare.
    let found = check_with(
        &report("contacts_avatar", &with_field(Some(|_| Bson::Int32(0))), 20),
        &t,
    );
    assert_eq!(severity_of(&found, "bloated-document"), None, "{found:?}");
    // A small field that varies is something read without the avatar.
    let found = check_with(
        &report(
            "contacts_avatar",
            &with_field(Some(|i| Bson::Int32(i % 3))),
            20,
        ),
        &t,
    );
    assert_eq!(
        severity_of(&found, "bloated-document"),
        Some(Severity::Warning),
        "{found:?}"
    );
    // Beside a name that reads without it: separate it.
    let found = check_with(&report("contacts", &with(true), 20), &t);
    assert_eq!(
        severity_of(&found, "bloated-document"),
        Some(Severity::Warning),
        "{found:?}"
    );
}
