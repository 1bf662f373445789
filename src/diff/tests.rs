//! The comparisons of `diff` on reports written by hand.

use super::*;

/// A report of collection `crm.people`: `sampled` of `documents`, the
/// given fields (`path`, `count`, `types`), indexes and findings.
fn report(documents: u64, sampled: u64, fields: &[(&str, u64, Value)], extra: &Value) -> Value {
    let fields: Vec<Value> = fields
        .iter()
        .map(|(p, n, t)| json!({"path": p, "count": n, "types": t}))
        .collect();
    let mut c = json!({
        "namespace": "crm.people", "documents": documents, "sampled": sampled,
        "sample_method": if documents == sampled { "all" } else { "reservoir" },
        "fields": fields, "indexes": [], "findings": []
    });
    for (k, v) in extra.as_object().into_iter().flatten() {
        c[k] = v.clone();
    }
    json!({"docshape": "0.1.0", "collections": [c], "findings": []})
}

fn kinds(d: &Diff) -> Vec<(Option<&str>, Kind, Severity)> {
    d.changes
        .iter()
        .map(|c| (c.path.as_deref(), c.kind, c.severity))
        .collect()
}

#[test]
fn indexes_and_findings_by_name_and_rule() {
    let idx = |n: &str| json!({"name": n, "key": {n: 1}});
    let finding = |rule: &str, sev: &str| json!({"rule": rule, "severity": sev, "namespace": "crm.people", "path": "tags", "message": "m"});
    let b = report(
        10,
        10,
        &[],
        &json!({"indexes": [idx("_id_"), idx("a_1")], "findings": [finding("dynamic-keys", "info")]}),
    );
    let a = report(
        10,
        10,
        &[],
        &json!({"indexes": [idx("_id_"), idx("b_1")], "findings": [finding("unbounded-array", "critical")]}),
    );
    let d = compare("b", &b, "a", &a);
    assert_eq!(
        kinds(&d),
        [
            (None, Kind::IndexAdded, Severity::Info),
            (None, Kind::IndexRemoved, Severity::Warning),
            (Some("tags"), Kind::FindingAdded, Severity::Critical),
            (Some("tags"), Kind::FindingResolved, Severity::Info),
        ]
    );
    assert_eq!(d.worst(), Some(Severity::Critical));
    assert!(d.changes.iter().all(|c| c.confidence.is_none()));
}

#[test]
fn relationships_by_their_ends() {
    let rel = |from: &str, card: &str| json!({"from": from, "to": "crm.people._id", "kind": "parent-reference", "cardinality": card});
    let mut b = report(10, 10, &[], &json!({}));
    let mut a = b.clone();
    b["relationships"] = json!([
        rel("crm.people.boss_id", "one-to-few"),
        rel("crm.people.mentor_id", "one-to-few")
    ]);
    a["relationships"] = json!([
        rel("crm.people.boss_id", "one-to-many"),
        rel("crm.people.buddy_id", "one-to-few")
    ]);
    let d = compare("b", &b, "a", &a);
    assert_eq!(
        kinds(&d),
        [
            (Some("boss_id"), Kind::CardinalityChanged, Severity::Info),
            (Some("buddy_id"), Kind::RelationshipAdded, Severity::Info),
            (Some("mentor_id"), Kind::RelationshipRemoved, Severity::Info),
        ]
    );
    assert_eq!(d.changes[0].namespace, "crm.people");
    assert_eq!(d.changes[0].after["cardinality"], "one-to-many");
}

#[test]
fn a_selection_narrows_a_report() {
    let mut r = report(10, 10, &[], &json!({}));
    let mut other = r["collections"][0].clone();
    other["namespace"] = json!("shop.orders");
    r["collections"].as_array_mut().expect("array").push(other);
    r["relationships"] = json!([{"from": "shop.orders.customer_id", "to": "crm.people._id"}]);
    r["findings"] = json!([{"rule": "too-many-collections", "namespace": "shop"}]);
    let selection = crate::source::select::Selection {
        dbs: Vec::new(),
        collections: vec!["crm.*".into()],
    };
    select(&mut r, &selection);
    assert_eq!(
        collections(&r).into_keys().collect::<Vec<_>>(),
        ["crm.people"]
    );
    assert_eq!(r["relationships"], json!([]));
    assert_eq!(r["findings"], json!([]));
}

#[test]
fn collections_come_and_go() {
    let b = report(10, 10, &[], &json!({}));
    let mut a = b.clone();
    a["collections"][0]["namespace"] = json!("crm.persons");
    let d = compare("b", &b, "a", &a);
    let got: Vec<(&str, Kind)> = d
        .changes
        .iter()
        .map(|c| (c.namespace.as_str(), c.kind))
        .collect();
    assert_eq!(
        got,
        [
            ("crm.people", Kind::CollectionRemoved),
            ("crm.persons", Kind::CollectionAdded)
        ]
    );
}

#[test]
fn a_handful_is_no_path_and_no_type() {
    let b = report(
        5000,
        1000,
        &[
            ("age", 1000, json!({"int": 1000})),
            ("note", 3, json!({"string": 3})),
        ],
        &json!({}),
    );
    let a = report(
        5000,
        1000,
        &[("age", 1000, json!({"int": 998, "string": 2}))],
        &json!({}),
    );
    let d = compare("b", &b, "a", &a);
    assert!(d.changes.is_empty(), "{:?}", kinds(&d));
    // Presence of age and note, the share of string on age.
    assert_eq!(d.test.comparisons, 3);
    // Read whole, the same counts are certain changes.
    let whole = |mut r: Value| {
        r["collections"][0]["documents"] = json!(1000);
        r["collections"][0]["sample_method"] = json!("all");
        r
    };
    let d = compare("b", &whole(b.clone()), "a", &whole(a.clone()));
    assert_eq!(
        kinds(&d),
        [
            (Some("age"), Kind::TypeAdded, Severity::Warning),
            (Some("note"), Kind::PathRemoved, Severity::Info),
        ]
    );
    // A report that hit its cap of paths says nothing of missing ones.
    let mut capped = whole(a);
    capped["collections"][0]["paths_capped"] = json!(true);
    let d = compare("b", &whole(b), "a", &capped);
    assert_eq!(
        kinds(&d),
        [(Some("age"), Kind::TypeAdded, Severity::Warning)]
    );
}

#[test]
fn a_required_path_gone_or_thinned_is_a_warning() {
    let b = report(
        5000,
        1000,
        &[
            ("city", 1000, json!({"string": 1000})),
            ("zip", 500, json!({"string": 500})),
        ],
        &json!({}),
    );
    let a = report(
        5000,
        1000,
        &[("city", 900, json!({"string": 900}))],
        &json!({}),
    );
    let d = compare("b", &b, "a", &a);
    assert_eq!(
        kinds(&d),
        [
            (Some("city"), Kind::PresenceChanged, Severity::Warning),
            (Some("zip"), Kind::PathRemoved, Severity::Info),
        ]
    );
    let city = &d.changes[0];
    assert_eq!(city.before["presence"], 1.0);
    assert!(city.after["presence_ci"].is_array());
    assert!(city.confidence.is_some_and(|c| c > 0.999));
}

/// Bins `[n, n, count]` of values 0..=4, each `count` times.
fn lengths(scale: u64, count: u64) -> Value {
    json!((0..5)
        .map(|n| [n * scale, n * scale, count])
        .collect::<Vec<_>>())
}

#[test]
fn lengths_and_sizes_that_moved_are_changes() {
    let side = |scale: u64, size: u64| {
        let tags = json!({"path": "tags", "count": 1000, "types": {"array": 1000},
            "array": {"min": 0, "avg": 2.0 * scale as f64, "p50": 2 * scale, "p95": 4 * scale, "max": 4 * scale},
            "array_histogram": lengths(scale, 200)});
        let under = json!({"path": "orders[].lines", "count": 1000, "types": {"array": 3000},
            "array_histogram": lengths(scale, 600)});
        let mut r = report(
            5000,
            1000,
            &[],
            &json!({
                "doc_size": {"min": size, "avg": size as f64, "p50": size, "p95": size, "max": size},
                "doc_size_histogram": [[size, size + size / 4 - 1, 1000]]
            }),
        );
        r["collections"][0]["fields"] = json!([tags, under]);
        r
    };
    let b = side(1, 512);
    // The same: nothing. Four comparisons: two presences, the lengths of
    // tags (never those of an array under an array) and the sizes.
    let d = compare("b", &b, "a", &side(1, 512));
    assert!(d.changes.is_empty(), "{:?}", kinds(&d));
    assert_eq!(d.test.comparisons, 4);
    let d = compare("b", &b, "a", &side(3, 1024));
    assert_eq!(
        kinds(&d),
        [
            (None, Kind::SizeChanged, Severity::Warning),
            (Some("tags"), Kind::ArrayLengthChanged, Severity::Warning),
        ]
    );
    let size = &d.changes[0];
    assert_eq!(size.before["p50"], 512);
    assert_eq!(size.after["documents"], 1000);
    assert!(
        size.before.get("max").is_none(),
        "a sampled maximum is not shown"
    );
    assert_eq!(size.distance, Some(1.0));
    assert!(size.confidence.is_some_and(|c| c > 0.999));
    assert!((d.changes[1].distance.expect("a distance") - 0.6).abs() < 1e-9);
    // Documents a sixth larger (a field added to each): a shift beyond
    // noise, but news, not a warning.
    let d = compare("b", &b, "a", &side(1, 600));
    assert_eq!(kinds(&d), [(None, Kind::SizeChanged, Severity::Info)]);
    // A report without histograms (an older docshape) is not compared.
    let mut old = side(3, 1024);
    old["collections"][0]
        .as_object_mut()
        .expect("object")
        .remove("doc_size_histogram");
    old["collections"][0]["fields"][0]
        .as_object_mut()
        .expect("object")
        .remove("array_histogram");
    let d = compare("b", &b, "a", &old);
    assert!(d.changes.is_empty(), "{:?}", kinds(&d));
}

/// A finding on a sample that comes or goes while nothing it rests on
/// moved beyond sampling noise is shown at `info`, with the reason; one
/// whose path moved too, or that rests on the whole collection, keeps its
/// severity.
#[test]
fn a_finding_near_its_threshold_is_news_not_a_warning() {
    let finding = |scope: &str| {
        json!({"rule": "mixed-types", "severity": "warning", "namespace": "crm.people",
               "path": "code", "message": "m", "evidence": {"scope": scope}})
    };
    // code: a string in 0.9 % of 1,000 values, then in 1.1 %.
    let side = |strings: u64, findings: Value| {
        report(
            5000,
            1000,
            &[(
                "code",
                1000,
                json!({"int": 1000 - strings, "string": strings}),
            )],
            &json!({"findings": findings}),
        )
    };
    let b = side(9, json!([]));
    let d = compare("b", &b, "a", &side(11, json!([finding("sample")])));
    assert_eq!(
        kinds(&d),
        [(Some("code"), Kind::FindingAdded, Severity::Info)]
    );
    assert!(d.changes[0]
        .note
        .as_deref()
        .is_some_and(|n| n.contains("threshold")));
    assert_eq!(d.worst(), Some(Severity::Info));
    // Strings in 9 % now: the shares moved, the finding is a warning.
    let d = compare("b", &b, "a", &side(90, json!([finding("sample")])));
    assert_eq!(
        kinds(&d),
        [(Some("code"), Kind::FindingAdded, Severity::Warning)]
    );
    assert!(d.changes[0].note.is_none());
    // Measured on the whole collection: as stated.
    let d = compare("b", &b, "a", &side(11, json!([finding("collection")])));
    assert_eq!(
        kinds(&d),
        [(Some("code"), Kind::FindingAdded, Severity::Warning)]
    );
}
