//! `mixed-types` conversions run with the real `mongosh`, twice: the target
//! loses nothing, values that are not plain numbers stay and are counted,
//! only fully converted documents are marked, `_id` is never updated, and
//! the counts agree with the suggestion's effect.

use crate::common;
use crate::migrate;

use std::collections::HashMap;

use bson::{doc, Bson, Document};
use common::{client, oid, unique_db, DAY, NEWEST};
use migrate::{all, audit, finding, number, run_twice, suggestion};

fn effect_u64(s: &serde_json::Value, key: &str) -> u64 {
    s["effect"][key]
        .as_u64()
        .unwrap_or_else(|| panic!("effect {key}: {}", s["effect"]))
}

/// Checks shared by the conversions: the printed counts are the effect's,
/// the second run converts nothing, every marked document holds only the
/// target type, every value that was not converted is as it was, and every
/// converted value is the same number.
fn check_conversion(
    s: &serde_json::Value,
    first: &str,
    second: &str,
    before: &HashMap<String, Document>,
    after: &[Document],
    field: &str,
    target: &str,
) {
    assert_eq!(s["effect"]["target_type"], target, "{s}");
    let converted = effect_u64(s, "values_converted");
    let left = effect_u64(s, "values_left_as_they_are");
    assert!(
        first.contains(&format!("converted {converted} values to {target}")),
        "the script converts what the suggestion says: {first}\n{}",
        s["effect"]
    );
    assert!(
        first.contains(&format!("left {left} values untouched")),
        "{first}"
    );
    assert!(
        second.contains(&format!("converted 0 values to {target}")),
        "{second}"
    );
    let mut marked = 0;
    let mark = s["effect"]["marked_with"].as_str().expect("marked_with");
    let key = mark
        .strip_prefix("schema_versions.")
        .expect("a schema_versions entry");
    let version = |d: &Document| {
        d.get_document("schema_versions")
            .ok()
            .and_then(|v| v.get_i32(key).ok())
    };
    for d in after {
        let id = format!("{:?}", d.get("_id"));
        let old = &before[&id];
        let (was, now) = (old.get(field), d.get(field));
        let now_type = now.map(Bson::element_type);
        let target_type = match target {
            "double" => bson::spec::ElementType::Double,
            "decimal" => bson::spec::ElementType::Decimal128,
            "long" => bson::spec::ElementType::Int64,
            _ => bson::spec::ElementType::Int32,
        };
        if version(d) == Some(2) {
            marked += 1;
            assert_eq!(
                now_type,
                Some(target_type),
                "a marked document is converted: {d}"
            );
        }
        if now == was {
            continue;
        }
        // Changed: only to the same number in the target type.
        assert_eq!(now_type, Some(target_type), "{old} -> {d}");
        assert_eq!(
            was.and_then(number),
            now.and_then(number),
            "the same number: {old} -> {d}"
        );
        assert_eq!(
            version(d),
            Some(2),
            "a converted top-level value leaves nothing else: {d}"
        );
        // Nothing else in the document moved.
        for (k, v) in old {
            if k != field && k != "schema_versions" {
                assert_eq!(d.get(k), Some(v), "{k} untouched: {old} -> {d}");
            }
        }
    }
    assert_eq!(marked, effect_u64(s, "documents_marked"), "{first}");
}

#[tokio::test(flavor = "current_thread")]
async fn amounts_become_decimal_and_sentinels_stay() {
    let db = unique_db("mig_amounts");
    let c = client().await;
    let pay = c.database(&db).collection::<Document>("payments");
    let cycle: Vec<Option<Bson>> = vec![
        Some("4200".into()),
        Some(Bson::Double(4200.5)),
        Some(Bson::Int32(17)),
        Some("N/A".into()),
        Some("4200.25".into()),
        Some(Bson::Int32(99)),
        Some("".into()),
        Some(Bson::Null),
        None,
        Some("unknown".into()),
        Some("0012".into()),
        Some(Bson::Double(0.1)),
    ];
    let docs: Vec<Document> = (0..96u32)
        .map(|i| {
            let mut d = doc! {"_id": oid(NEWEST - i * DAY, i), "who": format!("c{i}")};
            if let Some(v) = &cycle[i as usize % cycle.len()] {
                d.insert("amount", v.clone());
            }
            // Line items: a numeric string, a double, an element without
            // the field and a scalar.
            d.insert(
                "lines",
                vec![
                    Bson::Document(doc! {"qty": if i % 3 == 0 { Bson::String("5".into()) } else { Bson::Int32(5) }}),
                    Bson::Document(doc! {"qty": 2.5}),
                    Bson::Document(doc! {"note": "gift"}),
                    Bson::Int32(7),
                ],
            );
            d
        })
        .collect();
    pay.insert_many(&docs).await.expect("insert");
    let before: HashMap<String, Document> = docs
        .iter()
        .map(|d| (format!("{:?}", d.get("_id")), d.clone()))
        .collect();
    let ns = format!("{db}.payments");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "mixed-types", Some("amount")).clone();
    assert_eq!(s["pattern"], "schema-versioning");
    // Money with fractions: decimal, never int; the after value is a number.
    assert_eq!(s["effect"]["target_type"], "decimal", "{s}");
    assert!(
        s["after"]["amount"]["$numberDecimal"].is_string(),
        "{}",
        s["after"]
    );
    let stays = s["effect"]["left_as_they_are"].to_string();
    for sentinel in ["N/A", "unknown", "0012"] {
        assert!(stays.contains(sentinel), "{sentinel} counted: {stays}");
    }
    assert!(
        s["summary"].as_str().expect("summary").contains("N/A"),
        "{}",
        s["summary"]
    );
    let script = s["migration"].as_str().expect("script").to_owned();
    let (first, second) = run_twice(&db, &script, "amounts").await;
    assert!(first.contains("\"N/A\" x8"), "sentinels counted: {first}");
    let after = all(&pay).await;
    check_conversion(&s, &first, &second, &before, &after, "amount", "decimal");
    let exact = after
        .iter()
        .filter_map(|d| d.get("amount"))
        .any(|a| matches!(a, Bson::Decimal128(x) if x.to_string() == "4200.5"));
    assert!(exact, "4200.5 becomes exactly 4200.5");

    // The element field: its own suggestion, run as well.
    let lines = suggestion(&report, &ns, "mixed-types", Some("lines[].qty")).clone();
    assert_eq!(lines["effect"]["target_type"], "double", "{lines}");
    assert_eq!(
        lines["after"]["lines.qty"][0],
        serde_json::json!(5.0),
        "{lines}"
    );
    let (first, _) = run_twice(&db, lines["migration"].as_str().expect("script"), "lines").await;
    assert!(
        first.contains(&format!(
            "converted {} values",
            effect_u64(&lines, "values_converted")
        )),
        "{first}"
    );
    for d in all(&pay).await {
        let arr = d.get_array("lines").expect("lines kept");
        assert_eq!(arr.len(), 4, "{d}");
        assert_eq!(
            arr[0].as_document().and_then(|x| x.get("qty")),
            Some(&Bson::Double(5.0))
        );
        assert_eq!(
            arr[2].as_document().map(Document::len),
            Some(1),
            "no field added: {d}"
        );
        assert_eq!(arr[3], Bson::Int32(7));
    }

    // One stamp per path: converting the line quantities says nothing
    // about an amount still "N/A".
    assert_eq!(lines["effect"]["marked_with"], "schema_versions.lines_qty");
    let mut na_stamped = 0;
    for d in all(&pay).await {
        let versions = d.get_document("schema_versions").ok();
        let of = |k: &str| versions.and_then(|v| v.get_i32(k).ok());
        if d.get_str("amount").ok() == Some("N/A") {
            assert_eq!(of("amount"), None, "{d}");
            if of("lines_qty") == Some(2) {
                na_stamped += 1;
            }
        }
        if matches!(d.get("amount"), Some(Bson::Decimal128(_))) && d.get_str("who").is_ok() {
            // Converted amounts keep their own stamp beside the lines'.
            let was_converted = before[&format!("{:?}", d.get("_id"))]
                .get("amount")
                .is_some_and(|a| !matches!(a, Bson::Decimal128(_)));
            if was_converted {
                assert_eq!(of("amount"), Some(2), "{d}");
            }
        }
    }
    assert!(
        na_stamped > 0,
        "the lines of an N/A payment were converted and stamped"
    );

    // Re-audit: the element field is fixed; the amount still fires, for the
    // sentinels the suggestion named.
    let again = audit(&ns).await;
    assert!(finding(&again, &ns, "mixed-types", Some("lines[].qty")).is_none());
    let f = finding(&again, &ns, "mixed-types", Some("amount")).expect("still fires");
    let types = f["evidence"]["types"].as_object().expect("types");
    let mut names: Vec<&str> = types.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["decimal", "string"], "{f}");
    assert_eq!(f["suggestion"]["effect"]["values_converted"], 0, "{f}");
}

#[tokio::test(flavor = "current_thread")]
async fn ratings_become_double_and_not_yet_rated_stays() {
    let db = unique_db("mig_ratings");
    let c = client().await;
    let rest = c.database(&db).collection::<Document>("restaurants");
    // 45 % doubles with fractions, 40 % ints, 15 % "Not yet rated".
    let docs: Vec<Document> = (0..100u32)
        .map(|i| {
            let rating = match i % 20 {
                0..=8 => Bson::Double(3.5 + f64::from(i % 3) / 4.0),
                9..=16 => Bson::Int32((i % 5) as i32),
                _ => Bson::String("Not yet rated".into()),
            };
            doc! {"_id": oid(NEWEST - i, i), "name": format!("r{i}"), "grades": {"rating": rating}}
        })
        .collect();
    rest.insert_many(&docs).await.expect("insert");
    let before: HashMap<String, Document> = docs
        .iter()
        .map(|d| (format!("{:?}", d.get("_id")), d.clone()))
        .collect();
    let ns = format!("{db}.restaurants");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "mixed-types", Some("grades.rating")).clone();
    assert_eq!(s["effect"]["target_type"], "double", "{s}");
    assert_eq!(effect_u64(&s, "values_left_as_they_are"), 15);
    assert_eq!(effect_u64(&s, "values_converted"), 40);
    assert!(s["after"]["grades.rating"].is_f64(), "{}", s["after"]);
    let (first, second) = run_twice(&db, s["migration"].as_str().expect("script"), "ratings").await;
    assert!(first.contains("\"Not yet rated\" x15"), "{first}");
    // Flatten the nested field for the shared checks.
    let flat = |d: &Document| {
        let mut f = d.clone();
        if let Ok(g) = d.get_document("grades") {
            if let Some(r) = g.get("rating") {
                f.insert("rating", r.clone());
            }
        }
        f.remove("grades");
        f
    };
    let before: HashMap<String, Document> =
        before.iter().map(|(k, d)| (k.clone(), flat(d))).collect();
    let after: Vec<Document> = all(&rest).await.iter().map(flat).collect();
    check_conversion(&s, &first, &second, &before, &after, "rating", "double");
    assert_eq!(
        rest.count_documents(
            doc! {"grades.rating": "Not yet rated", "schema_versions.grades_rating": {"$exists": true}}
        )
        .await
        .expect("count"),
        0,
        "a value left as it is never gets marked"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn mixed_id_is_counted_never_updated() {
    let db = unique_db("mig_mixed_id");
    let c = client().await;
    let products = c.database(&db).collection::<Document>("products");
    let docs: Vec<Document> = (0..40u32)
        .map(|i| {
            let id = if i % 2 == 0 {
                Bson::ObjectId(oid(NEWEST - i, i))
            } else {
                Bson::String(format!("sku-{i}"))
            };
            doc! {"_id": id, "name": format!("p{i}")}
        })
        .collect();
    products.insert_many(&docs).await.expect("insert");
    let ns = format!("{db}.products");
    let report = audit(&ns).await;
    let s = suggestion(&report, &ns, "mixed-types", Some("_id"));
    let summary = s["summary"].as_str().expect("summary");
    assert!(summary.contains("never changes `_id`"), "{summary}");
    let script = s["migration"].as_str().expect("script");
    let code: String = script
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    for write in [
        "update", "insert", "delete", "remove", "$merge", "$out", "replace",
    ] {
        assert!(!code.contains(write), "{write} in {script}");
    }
    let before = migrate::dump(&db).await;
    let (first, _) = run_twice(&db, script, "mixed_id").await;
    assert_eq!(migrate::dump(&db).await, before, "nothing changed");
    assert!(
        first.contains("string: 20 documents") && first.contains("objectId: 20 documents"),
        "{first}"
    );
}
