//! Every remedy a rule can return, spelled out on one collection built in
//! memory: the pattern, examples drawn from the collection's own field
//! names, and a script naming the collection and the operations it runs.

use bson::{doc, oid::ObjectId, Binary, Document};
use serde_json::Value;

use super::suggest;
use crate::i18n::Lang;
use crate::relate::{DriftCheck, DriftKind, KeyUniqueness};
use crate::rules::lossy_numbers::Loss;
use crate::rules::{testing, Reaudit, Remedy};
use crate::source::IndexInfo;

fn orders() -> Vec<Document> {
    (0..30)
        .map(|i: i32| {
            let mut attrs = Document::new();
            for d in 0..5 {
                attrs.insert(format!("2024-01-0{}", d + 1), i + d);
            }
            doc! {
                "_id": i,
                "customer_id": ObjectId::new(),
                "items": (0..=(i % 7)).map(|k| doc! {"sku": format!("s{k}"), "qty": k}).collect::<Vec<_>>(),
                "item_ids": (0..3).map(|_| ObjectId::new()).collect::<Vec<_>>(),
                "attrs": attrs,
                "photo": Binary { subtype: bson::spec::BinarySubtype::Generic, bytes: vec![7; 64] },
                "notes": format!("note {i}"),
                "created": bson::DateTime::from_millis(1_700_000_000_000 + i64::from(i) * 60_000),
                "sensor": format!("t{}", i % 3),
                "reading": f64::from(i) / 4.0,
                "price": if i % 2 == 0 { bson::Bson::Int32(i) } else { bson::Bson::Double(f64::from(i) + 0.5) },
                "when": format!("2024-01-{:02}", i % 28 + 1),
                "customer_shipping_address_line": "1 Main St",
                "deep": {"a": {"b": {"c": i}}},
            }
        })
        .collect()
}

fn drift(kind: DriftKind) -> DriftCheck {
    DriftCheck {
        kind,
        holder: "items[]".into(),
        reference: "items[].sku".into(),
        source_ns: "shop.products".into(),
        fields: vec!["name".into()],
        checked: 30,
        disagree: 3,
        groups: 10,
        groups_disagreeing: 2,
        own_fields: vec!["qty".into()],
        snapshot: Vec::new(),
        changed: Vec::new(),
        identities_converted: 0,
        key_type: None,
        examples: vec![(
            "s1".into(),
            "name".into(),
            "\"pen\"".into(),
            "\"pencil\"".into(),
        )],
    }
}

/// `(remedy, pattern, words the script holds, words before/after hold)`.
fn cases() -> Vec<(Remedy, &'static str, Vec<&'static str>, Vec<&'static str>)> {
    let ttl = IndexInfo::from_spec(
        &doc! {"v": 2, "name": "expires_1", "key": {"expires": 1}, "expireAfterSeconds": 3600},
    )
    .expect("index spec");
    vec![
        (
            Remedy::ParentReference {
                array: "items".into(),
            },
            "parent-reference",
            vec!["orders_items", "order_id", "items"],
            vec!["items", "orders_items", "order_id"],
        ),
        (
            Remedy::Subset {
                array: "items".into(),
                keep: 2,
            },
            "subset",
            vec!["orders_items", "order_id", "items"],
            vec!["items"],
        ),
        (
            Remedy::Separate {
                path: "notes".into(),
            },
            "separate-collection",
            vec!["orders_notes", "order_id", "notes"],
            vec!["notes", "orders_notes"],
        ),
        (
            Remedy::Separate {
                path: "photo".into(),
            },
            "gridfs",
            vec!["orders_photo", "photo"],
            vec!["photo"],
        ),
        (
            Remedy::Attribute {
                object: "attrs".into(),
            },
            "attribute",
            vec!["attrs"],
            vec!["attrs", "2024-01-01"],
        ),
        (
            Remedy::Bucket {
                date: "created".into(),
                series: Some("sensor".into()),
            },
            "bucket",
            vec!["orders_hourly", "created", "sensor", "reading"],
            vec!["created", "sensor"],
        ),
        (
            Remedy::CreateIndex {
                keys: "customer_id".into(),
            },
            "index",
            vec!["createIndex", "customer_id"],
            vec!["customer_id"],
        ),
        (
            Remedy::DropIndex {
                name: "a_1".into(),
                covered_by: Some("a_1_b_1".into()),
            },
            "index",
            vec!["dropIndex", "a_1", "getIndexes"],
            vec![],
        ),
        (
            Remedy::TtlField { index: ttl },
            "index",
            vec!["expires", "$type", "expires_1"],
            vec!["expires"],
        ),
        (
            Remedy::ReviewIndexes,
            "index",
            vec!["$indexStats", "\"orders\""],
            vec![],
        ),
        (
            Remedy::ConvertType {
                path: "price".into(),
                reaudit: Reaudit::default(),
            },
            "schema-versioning",
            vec!["price", "schema_version"],
            vec!["price"],
        ),
        (
            Remedy::Discriminator {
                shapes: vec![
                    ("parcel".into(), "photo".into()),
                    ("letter".into(), "notes".into()),
                ],
            },
            "polymorphic",
            vec!["updateMany", "parcel", "photo", "letter", "createIndex"],
            vec!["type", "parcel"],
        ),
        (
            Remedy::Rename {
                renames: vec![("customer_shipping_address_line".into(), "addr".into())],
            },
            "schema-versioning",
            vec!["$rename", "customer_shipping_address_line", "addr"],
            vec!["customer_shipping_address_line", "addr"],
        ),
        (
            Remedy::IdsToParentReference {
                array: "item_ids".into(),
                child_coll: "items".into(),
                child_key: "_id".into(),
            },
            "parent-reference",
            vec!["item_ids", "\"items\"", "order_id"],
            vec!["item_ids", "order_id"],
        ),
        (
            Remedy::RefreshCopies {
                drift: drift(DriftKind::Source),
            },
            "extended-reference",
            vec!["products", "items", "name"],
            vec!["pencil"],
        ),
        (
            Remedy::CopiesDisagree {
                drift: drift(DriftKind::BetweenCopies),
            },
            "extended-reference",
            vec!["$unwind", "$addToSet", "name"],
            vec![],
        ),
        (
            Remedy::MergeCollections {
                db: "shop".into(),
                colls: vec!["orders_2023".into(), "orders_2024".into()],
            },
            "polymorphic",
            vec!["orders_2023", "orders_2024"],
            vec![],
        ),
        (
            Remedy::Siblings {
                db: "shop".into(),
                members: vec!["gifts".into(), "vouchers".into()],
                kinds: vec!["gift".into(), "voucher".into()],
                shared: vec!["customer_id".into(), "items".into(), "notes".into()],
                type_field: "kind".into(),
                recorded: false,
                reference: Some("customer_id".into()),
            },
            "polymorphic",
            vec![
                "\"gifts\"",
                "\"vouchers\"",
                "$unionWith",
                "countDocuments",
                "\"kind\"",
            ],
            vec!["gift", "customer_id", "kind"],
        ),
        (
            Remedy::Flatten {
                path: "deep".into(),
            },
            "separate-collection",
            vec!["orders_deep", "deep"],
            vec!["deep"],
        ),
        (
            Remedy::StringDates {
                path: "when".into(),
                formats: Vec::new(),
                example: "2024-01-01".into(),
                reaudit: Reaudit::default(),
            },
            "schema-versioning",
            vec!["when"],
            vec![],
        ),
        (
            Remedy::LossyNumbers {
                path: "reading".into(),
                loss: Loss {
                    doubles: 30,
                    beyond: 0,
                    integral: false,
                    money: false,
                    places: 2,
                },
                reaudit: Reaudit::default(),
            },
            "schema-versioning",
            vec!["reading"],
            vec![],
        ),
        (
            Remedy::Dangling {
                relationship: testing::relationship(
                    "shop.orders",
                    "customer_id",
                    "shop.customers",
                    "_id",
                    30,
                    20,
                    None,
                ),
            },
            "parent-reference",
            vec!["$lookup", "customers", "customer_id"],
            vec![],
        ),
        (
            Remedy::UniqueKey {
                key: "sku".into(),
                uniqueness: KeyUniqueness {
                    unique: false,
                    method: "sample".into(),
                    duplicate: Some("s1".into()),
                },
                whole: true,
            },
            "index",
            vec!["$group", "sku"],
            vec![],
        ),
    ]
}

#[test]
fn every_remedy_becomes_its_pattern_with_the_collections_own_names() {
    let docs = orders();
    let r = testing::report("shop.orders", &docs);
    let ctx = testing::ctx(&r, &[]);
    let cases = cases();
    for (remedy, pattern, script_words, example_words) in &cases {
        for lang in [Lang::En, Lang::Zh] {
            let s = suggest(Some(&ctx), remedy, lang);
            assert_eq!(s.pattern, *pattern, "{remedy:?}");
            assert!(!s.summary.is_empty(), "{remedy:?}: a summary");
            assert!(
                s.migration.contains("\"shop\"") || s.migration.contains("shop"),
                "{remedy:?}: names the database:\n{}",
                s.migration
            );
            for w in script_words {
                assert!(
                    s.migration.contains(w),
                    "{remedy:?}: script lacks {w}:\n{}",
                    s.migration
                );
            }
            let examples = [&s.before, &s.after]
                .iter()
                .filter_map(|v| v.as_ref().map(Value::to_string))
                .collect::<Vec<_>>()
                .join(" ");
            for w in example_words {
                assert!(
                    examples.contains(w),
                    "{remedy:?}: before/after lack {w}: {examples}"
                );
            }
        }
    }
}

#[test]
fn a_remedy_on_a_path_the_profile_lacks_still_names_its_pattern() {
    let r = testing::report("shop.orders", &orders());
    let ctx = testing::ctx(&r, &[]);
    for (remedy, pattern) in [
        (
            Remedy::ParentReference {
                array: "nowhere".into(),
            },
            "parent-reference",
        ),
        (
            Remedy::Separate {
                path: "nowhere".into(),
            },
            "separate-collection",
        ),
        (
            Remedy::ConvertType {
                path: "nowhere".into(),
                reaudit: Reaudit::default(),
            },
            "schema-versioning",
        ),
    ] {
        let s = suggest(Some(&ctx), &remedy, Lang::En);
        assert_eq!(s.pattern, pattern);
        assert!(s.migration.is_empty(), "no script for a path not profiled");
    }
    // Without a collection, only the deployment's remedy has a script.
    let s = suggest(None, &Remedy::CreateIndex { keys: "a".into() }, Lang::En);
    assert!(s.migration.is_empty());
    let s = suggest(
        None,
        &Remedy::MergeCollections {
            db: "logs".into(),
            colls: vec!["a_1".into(), "a_2".into()],
        },
        Lang::En,
    );
    assert!(s.migration.contains("a_1") && s.migration.contains("a_2"));
}

#[test]
fn advice_serialises_the_finding_flat() {
    let r = testing::report("shop.orders", &orders());
    let ctx = testing::ctx(&r, &[]);
    let finding = crate::rules::Finding {
        rule: "missing-reference-index",
        severity: crate::rules::Severity::Warning,
        namespace: "shop.orders".into(),
        path: Some("customer_id".into()),
        message: "m".into(),
        evidence: serde_json::Map::new(),
        remedy: Remedy::CreateIndex {
            keys: "customer_id".into(),
        },
    };
    let a = super::advise(&ctx, finding, Lang::En);
    let v = serde_json::to_value(&a).expect("serialises");
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "rule",
            "severity",
            "namespace",
            "path",
            "message",
            "evidence",
            "explanation",
            "source",
            "suggestion"
        ]
    );
    let info = crate::rules::registry::rule("missing-reference-index").expect("registered");
    assert_eq!(v["explanation"], info.explanation.0);
    assert_eq!(v["source"], info.source);
    assert_eq!(v["suggestion"]["pattern"], "index");
}

/// The suggestions for what `check` finds on `docs` in `db.things`.
fn advised_by(
    check: crate::rules::registry::CollectionCheck,
    docs: &[Document],
    rels: &[crate::relate::Relationship],
) -> Vec<super::Suggestion> {
    let r = testing::report("db.things", docs);
    let ctx = testing::ctx(&r, rels);
    check(&ctx, &crate::rules::Thresholds::default(), Lang::En)
        .iter()
        .map(|f| suggest(Some(&ctx), &f.remedy, Lang::En))
        .collect()
}

/// Calls that change data, which a script that only lists must not make.
const WRITES: [&str; 8] = [
    "deleteOne",
    "deleteMany",
    ".remove(",
    "updateMany",
    "updateOne",
    "drop",
    "$merge",
    "insert",
];

#[test]
fn the_siblings_script_only_reports() {
    for recorded in [false, true] {
        let s = suggest(
            None,
            &Remedy::Siblings {
                db: "travel".into(),
                members: vec!["adventures".into(), "events".into()],
                kinds: vec!["adventure".into(), "event".into()],
                shared: vec!["name".into(), "cityId".into()],
                type_field: "category".into(),
                recorded,
                reference: Some("cityId".into()),
            },
            Lang::En,
        );
        assert_eq!(s.pattern, "polymorphic");
        assert!(
            s.migration.contains("This script only reads"),
            "{}",
            s.migration
        );
        assert!(!s.migration.contains("const apply"), "{}", s.migration);
        for w in WRITES {
            assert!(!s.migration.contains(w), "{w} in {}", s.migration);
        }
        assert!(
            s.migration.contains("{\"cityId\":1,\"category\":1}"),
            "{}",
            s.migration
        );
        assert_eq!(
            s.summary
                .contains("already record their kind in `category`"),
            recorded,
            "{}",
            s.summary
        );
        assert_eq!(
            s.after.as_ref().map(|a| a["document"]["category"].clone()),
            Some(serde_json::json!("adventure"))
        );
    }
}

#[test]
fn number_scripts_follow_what_was_lost() {
    // Integers beyond 2^53 held as doubles: precision already gone.
    let ids: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "tweet_id": if i == 0 { 9_007_199_254_740_994.0 } else { f64::from(i) }})
        .collect();
    let s = advised_by(crate::rules::lossy_numbers::check, &ids, &[]);
    assert_eq!(s.len(), 1);
    assert!(
        s[0].migration.contains("cannot be restored"),
        "{}",
        s[0].migration
    );
    // Money with an inexact fraction: decimal.
    let prices: Vec<Document> = (0..100)
        .map(|i| doc! {"_id": i, "price": if i == 0 { 19.99 } else { 10.5 }})
        .collect();
    let s = advised_by(crate::rules::lossy_numbers::check, &prices, &[]);
    assert_eq!(s.len(), 1);
    assert!(s[0].migration.contains("$toDecimal"), "{}", s[0].migration);
}

#[test]
fn date_strings_are_read_as_the_rule_reads_them_and_the_script_ends_with_the_reaudit() {
    let docs: Vec<Document> = (0..100)
        .map(|i| doc! {"_id": i, "lastupdated": format!("2015-08-{:02} 00:29:49.000000000", i % 28 + 1)})
        .collect();
    let s = advised_by(crate::rules::string_dates::check, &docs, &[]);
    assert_eq!(s.len(), 1);
    let m = &s[0].migration;
    assert!(m.starts_with("const apply = false;"), "{m}");
    for part in [
        "dates.read(",
        "ds.setEach(coll, path",
        "ds.last(reaudit(rules, why))",
        "const mixedMin = 0.01;",
        "const datesMin = 0.95;",
        "lastupdated",
    ] {
        assert!(m.contains(part), "{part}: {m}");
    }
}

#[test]
fn integrity_scripts_only_list() {
    let docs: Vec<Document> = (0..10).map(|i| doc! {"_id": i, "movie_id": i}).collect();
    let rels = [testing::relationship(
        "db.things",
        "movie_id",
        "db.movies",
        "_id",
        1000,
        900,
        None,
    )];
    let s = advised_by(crate::rules::dangling_references::check, &docs, &rels);
    assert_eq!(s.len(), 1);
    assert!(s[0].migration.contains("$lookup"));
    for call in WRITES {
        assert!(!s[0].migration.contains(call), "never changes data: {call}");
    }
    let r = testing::report("shop.orders", &orders());
    let ctx = testing::ctx(&r, &[]);
    let m = suggest(
        Some(&ctx),
        &Remedy::CopiesDisagree {
            drift: drift(DriftKind::BetweenCopies),
        },
        Lang::En,
    )
    .migration;
    assert!(m.contains("$unwind") && m.contains("$addToSet"), "{m}");
    assert!(
        !m.contains("$merge") && !m.contains("update"),
        "lists only: {m}"
    );
}

/// A unique index is suggested only on a key the whole collection proves,
/// with the duplicates checked again before it is built; on a sample, or
/// on a field too few documents hold, the script only counts duplicates.
#[test]
fn a_unique_index_only_on_a_key_the_whole_collection_proves() {
    let uniq = |unique: bool, method: &str| KeyUniqueness {
        unique,
        method: method.into(),
        duplicate: None,
    };
    let codes: Vec<Document> = (0..60)
        .map(|i| doc! {"_id": i, "code": format!("C-{i:04}"), "__v": 0})
        .collect();
    let r = testing::report("shop.accounts", &codes);
    let ctx = testing::ctx(&r, &[]);
    let s = suggest(
        Some(&ctx),
        &Remedy::UniqueKey {
            key: "code".into(),
            uniqueness: uniq(true, "server-group"),
            whole: true,
        },
        Lang::En,
    );
    assert!(
        s.migration.starts_with("const apply = false;"),
        "{}",
        s.migration
    );
    assert!(s.migration.contains("ds.uniqueIndex(") && s.migration.contains("E11000"));
    assert!(s.summary.contains("E11000"), "{}", s.summary);
    // The same key known from a sample: what would settle it, no index.
    let s = suggest(
        Some(&ctx),
        &Remedy::UniqueKey {
            key: "code".into(),
            uniqueness: uniq(true, "sample"),
            whole: false,
        },
        Lang::En,
    );
    assert!(!s.migration.contains("apply") && !s.migration.contains("createIndex"));
    assert!(s.summary.contains("--full"), "{}", s.summary);
    // A version counter in a collection of one document is unique by chance.
    let one = testing::report("shop.settings", &[doc! {"_id": 1, "__v": 0}]);
    let ctx = testing::ctx(&one, &[]);
    for lang in [Lang::En, Lang::Zh] {
        let s = suggest(
            Some(&ctx),
            &Remedy::UniqueKey {
                key: "__v".into(),
                uniqueness: uniq(true, "sample"),
                whole: true,
            },
            lang,
        );
        assert!(!s.migration.contains("createIndex"), "{}", s.migration);
        assert!(s.summary.contains('1'), "{}", s.summary);
    }
}

/// Scripts reach array elements with MQL (`$map`, `$[]`), never with
/// docshape's own `[]` notation inside a field path or a key.
#[test]
fn scripts_use_mql_paths_only() {
    let r = testing::report("shop.orders", &orders());
    let ctx = testing::ctx(&r, &[]);
    let mut remedies: Vec<Remedy> = cases().into_iter().map(|c| c.0).collect();
    remedies.push(Remedy::RefreshCopies {
        drift: DriftCheck {
            holder: "a[].b[]".into(),
            reference: "a[].b[].id".into(),
            ..drift(DriftKind::Source)
        },
    });
    for remedy in &remedies {
        let s = suggest(Some(&ctx), remedy, Lang::En);
        for line in s
            .migration
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
        {
            for (text, key) in string_literals(line) {
                assert!(
                    !(text.contains("[]") && (text.starts_with('$') || key)),
                    "{remedy:?}: docshape's [] in an MQL path: {line}"
                );
            }
        }
    }
}

/// The double-quoted string literals of a line of JavaScript, each with
/// whether it is an object's key (a `:` follows it).
fn string_literals(line: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c != '"' {
            continue;
        }
        let mut text = String::new();
        let mut end = line.len();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, e)) = chars.next() {
                        text.push(e);
                    }
                }
                '"' => {
                    end = i + 1;
                    break;
                }
                _ => text.push(c),
            }
        }
        let key = line[end..].trim_start().starts_with(':');
        out.push((text, key));
    }
    out
}

/// A conversion never touches a value a reference joins on, nor a
/// sub-document's `_id`: the script only counts there.
#[test]
fn conversions_leave_references_and_inner_ids_alone() {
    let docs: Vec<Document> = (0..30)
        .map(|i: i32| {
            let v = if i % 3 == 0 {
                bson::Bson::String(i.to_string())
            } else {
                bson::Bson::Int32(i)
            };
            doc! {"_id": i, "ref_no": v.clone(), "line": {"_id": v}}
        })
        .collect();
    let r = testing::report("shop.things", &docs);
    let convert = |path: &str, rels: &[crate::relate::Relationship]| {
        let ctx = testing::ctx(&r, rels);
        suggest(
            Some(&ctx),
            &Remedy::ConvertType {
                path: path.into(),
                reaudit: Reaudit::default(),
            },
            Lang::En,
        )
        .migration
    };
    assert!(convert("ref_no", &[]).starts_with("const apply = false;"));
    let rel = testing::relationship("shop.things", "ref_no", "shop.refs", "_id", 10, 10, None);
    let m = convert("ref_no", std::slice::from_ref(&rel));
    assert!(!m.contains("apply") && m.contains("reference"), "{m}");
    let m = convert("line._id", &[]);
    assert!(!m.contains("apply") && m.contains("identity"), "{m}");
}

/// A refresh writes only copied fields: never the reference it is found
/// by; and sub-documents whose own `_id` differs from their source's are
/// not copies, so they get no refresh at all.
#[test]
fn a_refresh_never_writes_an_id_or_the_reference() {
    let r = testing::report("shop.orders", &orders());
    let ctx = testing::ctx(&r, &[]);
    let refresh = |fields: &[&str]| {
        suggest(
            Some(&ctx),
            &Remedy::RefreshCopies {
                drift: DriftCheck {
                    fields: fields.iter().map(|f| (*f).to_owned()).collect(),
                    ..drift(DriftKind::Source)
                },
            },
            Lang::En,
        )
    };
    let s = refresh(&["name", "sku"]);
    assert!(
        s.migration.starts_with("const apply = false;"),
        "{}",
        s.migration
    );
    assert!(
        s.migration.contains("\"k\": \"name\"") && !s.migration.contains("\"k\": \"sku\""),
        "{}",
        s.migration
    );
    assert!(
        s.summary.contains("sku"),
        "says what it leaves: {}",
        s.summary
    );
    let s = refresh(&["name", "_id"]);
    assert!(s.migration.is_empty(), "{}", s.migration);
    assert!(s.summary.contains("`_id` of their own"), "{}", s.summary);
}

/// Copies that name their source by its id in another type (a user's
/// `_id` copied as its hex string) are found by that id read as the key's
/// type, in the refresh and in its count of copies left as they are; the
/// reference itself is never written. Without a conversion, the lookups
/// read the reference as it is.
#[test]
fn a_refresh_reads_a_copied_hex_id_as_the_objectid_it_names() {
    let r = testing::report("shop.orders", &orders());
    let ctx = testing::ctx(&r, &[]);
    for (holder, reference) in [("items[]", "items[].product_id"), ("product", "product.id")] {
        let script = |key_type: Option<&'static str>| {
            suggest(
                Some(&ctx),
                &Remedy::RefreshCopies {
                    drift: DriftCheck {
                        holder: holder.into(),
                        reference: reference.into(),
                        fields: vec!["name".into()],
                        identities_converted: 4,
                        key_type,
                        ..drift(DriftKind::Source)
                    },
                },
                Lang::En,
            )
        };
        let s = script(Some("objectId"));
        let m = &s.migration;
        assert!(m.starts_with("const apply = false;"), "{m}");
        assert_eq!(
            m.matches("\"to\": \"objectId\"").count() + m.matches("\"to\":\"objectId\"").count(),
            if holder == "items[]" { 4 } else { 2 },
            "the lookup, the match of each copy and the count convert: {m}"
        );
        assert!(s.summary.contains("as objectId"), "{}", s.summary);
        assert!(
            m.contains("\"k\": \"name\"")
                && !m.contains("\"k\": \"product_id\"")
                && !m.contains("\"k\": \"id\""),
            "{m}"
        );
        let plain = script(None).migration;
        assert!(!plain.contains("$convert"), "{plain}");
    }
}

/// The links of a two-way reference held by one side only are listed both
/// ways by a script that changes nothing; the summary keeps the side held
/// once per document (the parent reference), and says which side is right
/// is the application's to know.
#[test]
fn a_two_way_reference_out_of_step_is_listed_not_repaired() {
    use crate::relate::twoway::{Direction, Disagreement, Side, TwoWaySync};
    let rooms: Vec<Document> = (0..6)
        .map(|i| doc! {"_id": i, "controllers": [i]})
        .collect();
    let r = testing::report("test.userrooms", &rooms);
    let side = |ns: &str, path: &str, list: bool| Side {
        namespace: ns.into(),
        path: path.into(),
        key: "_id".into(),
        key_type: "objectId",
        list,
        values: if list {
            format!("{path}[]")
        } else {
            path.into()
        },
    };
    let dir = |checked: u64, agree: u64| Direction {
        checked,
        agree,
        names_another: checked - agree,
        examples: vec![Disagreement {
            holder: serde_json::json!(1),
            names: serde_json::json!(9),
            back: Some(serde_json::json!(2)),
        }],
        ..Direction::default()
    };
    let mut rel = testing::relationship(
        "test.userrooms",
        "controllers",
        "test.controllers",
        "_id",
        5,
        5,
        None,
    );
    rel.two_way = Some(TwoWaySync {
        this: side("test.userrooms", "controllers", true),
        other: side("test.controllers", "roomId", false),
        from_this: dir(5, 4),
        from_other: dir(5, 5),
        scope: "collection",
    });
    let ctx = testing::ctx(&r, std::slice::from_ref(&rel));
    for lang in [Lang::En, Lang::Zh] {
        let s = suggest(
            Some(&ctx),
            &Remedy::TwoWaySync {
                relationship: rel.clone(),
            },
            lang,
        );
        let m = &s.migration;
        assert!(!m.contains("apply") && !m.contains("update"), "{m}");
        assert!(!m.contains("insert") && !m.contains("delete"), "{m}");
        assert_eq!(m.matches(".aggregate(").count(), 2, "both ways: {m}");
        assert!(
            m.contains("\"from\":\"controllers\"") && m.contains("\"from\":\"userrooms\""),
            "{m}"
        );
        assert!(
            m.contains("$convert"),
            "ids compared whatever their type: {m}"
        );
        // What the script prints is in the report's language.
        let label = lang.pick(
            "that controllers.roomId does not hold back",
            "没有被 controllers.roomId 反向保存",
        );
        assert_eq!(m.matches(label).count(), 1, "{m}");
        assert_eq!(s.pattern, "parent-reference");
        assert!(s.summary.contains("`controllers.roomId`"), "{}", s.summary);
        assert!(s.before.is_some());
    }
    let en = suggest(
        Some(&ctx),
        &Remedy::TwoWaySync {
            relationship: rel.clone(),
        },
        Lang::En,
    );
    assert!(
        en.summary.contains("only the application knows"),
        "{}",
        en.summary
    );
    assert!(
        en.summary.contains("1 of 5 links in userrooms.controllers"),
        "{}",
        en.summary
    );
}
