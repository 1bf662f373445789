//! Index semantics per kind, on index documents shaped as `listIndexes`
//! returns them (and as mongodump writes them in `*.metadata.json`).

use super::*;
use crate::source::{CollectionKind, CollectionMeta, IndexUsage};
use bson::doc;
use IndexKind as K;

fn spec(d: &bson::Document) -> IndexInfo {
    IndexInfo::from_spec(d).expect("a valid index document")
}

fn set(paths: &[&str]) -> BTreeSet<String> {
    paths.iter().map(|p| (*p).to_owned()).collect()
}

/// The movies collection of Atlas's sample_mflix, as listIndexes shows it.
fn text_index() -> IndexInfo {
    spec(&doc! {
        "v": 2,
        "key": {"_fts": "text", "_ftsx": 1},
        "name": "cast_text_fullplot_text_genres_text_title_text",
        "weights": {"cast": 1, "fullplot": 1, "genres": 1, "title": 10},
        "default_language": "english",
        "language_override": "language",
        "textIndexVersion": 3,
    })
}

fn plain(name: &str, key: bson::Document) -> IndexInfo {
    spec(&doc! {"v": 2, "key": key, "name": name})
}

fn meta_with(indexes: Vec<IndexInfo>) -> CollectionMeta {
    let mut m = CollectionMeta::new("shop", "things");
    m.indexes = indexes;
    m
}

#[test]
fn text_index_reads_its_weighted_fields() {
    let t = text_index();
    assert_eq!(t.kinds, [K::Text]);
    assert_eq!(t.default_language.as_deref(), Some("english"));
    assert_eq!(t.language_override.as_deref(), Some("language"));
    assert_eq!(t.text_index_version, Some(3));
    assert_eq!(t.fields_read(), ["cast", "fullplot", "genres", "title"]);
    assert!(t.reads().found_in(&set(&["title"])));
    assert!(!t.reads().found_in(&set(&["_fts", "_ftsx"])));
    assert_eq!(
        t.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Text)
    );
    assert!(!t.is_plain());
    let json = serde_json::to_value(&t).expect("json");
    assert_eq!(json["kind"], serde_json::json!(["text"]));
    assert_eq!(json["weights"]["title"], 10);
    assert_eq!(json["text_index_version"], 3);
}

#[test]
fn text_index_over_every_string_field_and_compound_text() {
    let all = spec(&doc! {
        "v": 2, "key": {"_fts": "text", "_ftsx": 1}, "name": "$**_text",
        "weights": {"$**": 1}, "default_language": "english",
        "language_override": "language", "textIndexVersion": 3,
    });
    assert_eq!(all.fields_read(), ["$**"]);
    assert!(all.reads().found_in(&set(&["_id", "anything"])));
    assert!(!all.reads().found_in(&set(&["_id"])));
    // A text index with a prefix field: one text part plus one plain part.
    let compound = spec(&doc! {
        "v": 2, "key": {"category": 1, "_fts": "text", "_ftsx": 1}, "name": "category_1_about_text",
        "weights": {"about": 1}, "default_language": "english",
        "language_override": "language", "textIndexVersion": 3,
    });
    assert_eq!(compound.kinds, [K::Compound, K::Text]);
    assert_eq!(compound.fields_read(), ["category", "about"]);
    // createIndex's own shape, as older tools wrote it.
    let created = plain("title_text", doc! {"title": "text", "body": "text"});
    assert_eq!(created.kinds, [K::Text]);
    assert_eq!(created.fields_read(), ["title", "body"]);
}

#[test]
fn geo_indexes() {
    let sphere = spec(&doc! {
        "v": 2, "key": {"location.geo": "2dsphere"}, "name": "geo_index",
        "2dsphereIndexVersion": 3,
    });
    assert_eq!(sphere.kinds, [K::Geo2dsphere]);
    assert_eq!(sphere.sphere_index_version, Some(3));
    assert_eq!(sphere.fields_read(), ["location.geo"]);
    assert_eq!(
        sphere.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Geo)
    );
    let json = serde_json::to_value(&sphere).expect("json");
    assert_eq!(json["kind"], serde_json::json!(["geo-2dsphere"]));
    assert_eq!(json["2dsphere_index_version"], 3);

    let flat = spec(
        &doc! {"v": 2, "key": {"xy": "2d"}, "name": "xy_2d", "bits": 26, "min": -180.0, "max": 180.0},
    );
    assert_eq!(flat.kinds, [K::Geo2d]);
    let haystack = spec(
        &doc! {"v": 2, "key": {"pos": "geoHaystack", "type": 1}, "name": "pos_geoHaystack_type_1", "bucketSize": 1.0},
    );
    assert_eq!(haystack.kinds, [K::Compound, K::GeoHaystack]);
    assert_eq!(haystack.fields_read(), ["pos", "type"]);
    let with_prefix = plain("cat_loc", doc! {"category": 1, "loc": "2dsphere"});
    assert_eq!(with_prefix.kinds, [K::Compound, K::Geo2dsphere]);
    assert_eq!(
        with_prefix.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Geo)
    );
}

#[test]
fn hashed_indexes_back_shard_keys() {
    let h = plain("user_id_hashed", doc! {"user_id": "hashed"});
    assert_eq!(h.kinds, [K::Hashed]);
    assert_eq!(h.fields_read(), ["user_id"]);
    assert_eq!(
        h.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Hashed)
    );
    assert!(!h.idle_means_unused(), "shard-key routing is not counted");
    assert!(h.finds_by("user_id"), "a hashed index serves equality");
    let compound = plain(
        "region_1_user_id_hashed",
        doc! {"region": 1, "user_id": "hashed"},
    );
    assert_eq!(compound.kinds, [K::Compound, K::Hashed]);
    assert!(!compound.is_plain());
}

#[test]
fn wildcard_indexes_read_their_prefix_or_projection() {
    let all = plain("$**_1", doc! {"$**": 1});
    assert_eq!(all.kinds, [K::Wildcard]);
    assert_eq!(all.fields_read(), ["$**"]);
    assert_eq!(all.reads().except, ["_id"]);
    assert!(!all.reads().found_in(&set(&["_id"])));
    assert!(all.reads().found_in(&set(&["_id", "a"])));
    assert_eq!(
        all.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Wildcard)
    );

    let sub = plain("attrs.$**_1", doc! {"attrs.$**": 1});
    assert_eq!(sub.fields_read(), ["attrs"]);
    assert!(sub.reads().found_in(&set(&["attrs.color"])));
    assert!(sub.reads().found_in(&set(&["attrs"])));
    assert!(!sub.reads().found_in(&set(&["attributes", "attrsx"])));

    let projected = spec(&doc! {
        "v": 2, "key": {"$**": 1}, "name": "$**_1",
        "wildcardProjection": {"product_attributes.elements": 1, "product_attributes.resistance": 1},
    });
    assert_eq!(
        projected.fields_read(),
        [
            "product_attributes.elements",
            "product_attributes.resistance"
        ]
    );
    assert!(projected
        .reads()
        .found_in(&set(&["product_attributes.elements.x"])));
    assert!(!projected
        .reads()
        .found_in(&set(&["product_attributes.price"])));
    assert_eq!(
        serde_json::to_value(&projected).expect("json")["wildcard_projection"],
        serde_json::json!({"product_attributes.elements": 1, "product_attributes.resistance": 1})
    );

    let excluding =
        spec(&doc! {"v": 2, "key": {"$**": 1}, "name": "$**_1", "wildcardProjection": {"blob": 0}});
    assert_eq!(excluding.fields_read(), ["$**"]);
    assert!(!excluding.reads().found_in(&set(&["_id", "blob", "blob.x"])));
    assert!(excluding.reads().found_in(&set(&["name"])));
    assert!(excluding.finds_by("name"));
    assert!(!excluding.finds_by("blob.x"));

    let with_id = spec(
        &doc! {"v": 2, "key": {"$**": 1}, "name": "w", "wildcardProjection": {"_id": 1, "a": 1}},
    );
    assert_eq!(with_id.fields_read(), ["a", "_id"]);

    let compound = plain("tenant_1_attrs.$**_1", doc! {"tenant": 1, "attrs.$**": 1});
    assert_eq!(compound.kinds, [K::Compound, K::Wildcard]);
    assert_eq!(compound.fields_read(), ["tenant", "attrs"]);
}

#[test]
fn ttl_index_on_an_absent_field_means_nothing_expires() {
    let ttl = spec(
        &doc! {"v": 2, "key": {"createdAt": 1}, "name": "createdAt_1", "expireAfterSeconds": 3600},
    );
    assert_eq!(ttl.kinds, [K::Single, K::Ttl]);
    assert_eq!(ttl.expire_after_seconds, Some(3600));
    assert_eq!(ttl.if_absent(&Layout::default()), IfAbsent::NothingExpires);
    assert!(!ttl.idle_means_unused(), "TTL deletions are not counted");
    // Even hidden or partial, a TTL index keeps deleting.
    let hidden = spec(
        &doc! {"v": 2, "key": {"at": 1}, "name": "at_1", "expireAfterSeconds": 60_i64, "hidden": true},
    );
    assert_eq!(
        hidden.if_absent(&Layout::default()),
        IfAbsent::NothingExpires
    );
}

#[test]
fn options_that_make_absence_no_evidence() {
    let partial = spec(&doc! {
        "v": 2, "key": {"status": 1}, "name": "status_1",
        "partialFilterExpression": {"status": {"$exists": true}},
    });
    assert_eq!(partial.kinds, [K::Single, K::Partial]);
    assert_eq!(
        partial.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Partial)
    );
    let unique = spec(
        &doc! {"v": 2, "key": {"email": 1}, "name": "email_1", "unique": true, "sparse": true},
    );
    assert_eq!(unique.kinds, [K::Single, K::Unique, K::Sparse]);
    assert_eq!(
        unique.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Unique)
    );
    assert!(!unique.idle_means_unused());
    let hidden = spec(
        &doc! {"v": 2, "key": {"status": 1, "user": 1}, "name": "status_1_user_1", "hidden": true},
    );
    assert_eq!(hidden.kinds, [K::Compound, K::Hidden]);
    assert_eq!(
        hidden.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Hidden)
    );
    assert!(
        !hidden.finds_by("status"),
        "the planner ignores hidden indexes"
    );
    // A sparse or collated plain index indexes nothing when its field is absent.
    let sparse = spec(&doc! {"v": 2, "key": {"nick": 1}, "name": "nick_1", "sparse": true});
    assert_eq!(
        sparse.if_absent(&Layout::default()),
        IfAbsent::IndexesNothing
    );
    let collated = spec(
        &doc! {"v": 2, "key": {"user": 1}, "name": "user_1", "collation": {"locale": "fr", "strength": 2}},
    );
    assert_eq!(collated.kinds, [K::Single, K::Collation]);
    assert_eq!(
        collated.if_absent(&Layout::default()),
        IfAbsent::IndexesNothing
    );
    // Old tools wrote flags as numbers.
    let old = spec(&doc! {"v": 1, "key": {"sku": 1.0}, "name": "sku_1", "unique": 1});
    assert!(old.unique);
    assert_eq!(old.kinds, [K::Single, K::Unique]);
}

#[test]
fn id_and_clustered_indexes_are_never_judged() {
    let id = plain("_id_", doc! {"_id": 1});
    assert_eq!(id.kinds, [K::Id, K::Single]);
    assert_eq!(
        id.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Id)
    );
    let clustered =
        spec(&doc! {"v": 2, "key": {"_id": 1}, "name": "_id_", "unique": true, "clustered": true});
    assert_eq!(clustered.kinds, [K::Id, K::Single, K::Unique, K::Clustered]);
    assert!(!clustered.idle_means_unused());
    let mut m = meta_with(vec![clustered]);
    assert!(m.layout().clustered);
    m.indexes.clear();
    m.options = Some(serde_json::json!({"clusteredIndex": {"key": {"_id": 1}, "unique": true}}));
    assert!(m.layout().clustered);
}

#[test]
fn time_series_collections_and_buckets() {
    let mut ts = CollectionMeta::new("iot", "weather");
    ts.options = Some(
        serde_json::json!({"timeseries": {"timeField": "ts", "metaField": "meta", "granularity": "seconds"}}),
    );
    assert!(ts.layout().timeseries, "options alone say time-series");
    let mut listed = CollectionMeta::new("iot", "weather");
    listed.kind = CollectionKind::Timeseries;
    assert!(listed.layout().timeseries);
    assert!(!CollectionMeta::new("iot", "weather").layout().timeseries);
    let i = plain("meta.device_1", doc! {"meta.device": 1});
    assert_eq!(
        i.if_absent(&ts.layout()),
        IfAbsent::NoEvidence(Caveat::Timeseries)
    );
    let buckets = CollectionMeta::new("iot", "system.buckets.weather");
    assert!(buckets.layout().buckets);
    let ttl =
        spec(&doc! {"v": 2, "key": {"control.min.ts": 1}, "name": "ttl", "expireAfterSeconds": 60});
    assert_eq!(
        ttl.if_absent(&buckets.layout()),
        IfAbsent::NoEvidence(Caveat::Buckets)
    );
}

#[test]
fn unknown_key_types_are_not_judged() {
    let odd = plain("odd", doc! {"a": "columnstore"});
    assert!(odd.is(K::Unknown));
    assert_eq!(
        odd.if_absent(&Layout::default()),
        IfAbsent::NoEvidence(Caveat::Unknown)
    );
}

#[test]
fn absence_combines_sample_usage_and_the_check() {
    let gone = plain("legacy_1", doc! {"legacy": 1});
    let mut meta = meta_with(vec![gone.clone()]);
    let present = set(&["_id", "name"]);
    assert_eq!(
        absence(&gone, &meta, &present, 0, None),
        Absence::NothingSampled
    );
    assert_eq!(
        absence(&gone, &meta, &present, 100, None),
        Absence::Unconfirmed(IfAbsent::IndexesNothing)
    );
    let used = IndexUsage {
        name: "legacy_1".into(),
        ops: 3,
        since: None,
    };
    assert_eq!(
        absence(&gone, &meta, &present, 100, Some(&used)),
        Absence::Used { ops: 3 },
        "$indexStats counting operations outweighs a rare field"
    );
    assert_eq!(
        absence(&gone, &meta, &set(&["legacy"]), 100, None),
        Absence::InSample
    );
    let found = PresenceCheck {
        paths: vec!["legacy".into()],
        found: true,
        method: CheckMethod::ServerQuery,
    };
    meta.presence_checks = vec![found.clone()];
    assert_eq!(
        absence(&gone, &meta, &present, 100, None),
        Absence::BeyondSample(found)
    );
    let none = PresenceCheck {
        paths: vec!["legacy".into()],
        found: false,
        method: CheckMethod::ServerQuery,
    };
    meta.presence_checks = vec![none.clone()];
    assert_eq!(
        absence(&gone, &meta, &present, 100, None),
        Absence::Absent {
            effect: IfAbsent::IndexesNothing,
            check: none
        }
    );
    // The text index's `_fts` key is never the field judged.
    let t = text_index();
    assert_eq!(
        absence(&t, &meta, &present, 100, None),
        Absence::NoEvidence(Caveat::Text)
    );
    assert_eq!(
        absence(&t, &meta, &set(&["title"]), 100, None),
        Absence::InSample
    );
}

#[test]
fn compound_index_is_absent_only_when_every_field_is() {
    let c = plain("a_1_b_1", doc! {"a": 1, "b": 1});
    assert_eq!(c.kinds, [K::Compound]);
    assert!(c.reads().found_in(&set(&["b"])));
    assert!(!c.reads().found_in(&set(&["c"])));
    // Array positions in an index path are implicit in profiled paths.
    let pos = plain("items.0.sku_1", doc! {"items.0.sku": 1});
    assert!(pos.reads().found_in(&set(&["items", "items.sku"])));
}

#[test]
fn prefixes_compare_plain_keys_only() {
    let a = plain("a_1", doc! {"a": 1});
    let ab = plain("a_1_b_1", doc! {"a": 1, "b": 1});
    let a_desc = plain("a_-1_b_1", doc! {"a": -1, "b": 1});
    assert!(a.covered_by(&ab));
    assert!(!ab.covered_by(&a));
    assert!(!a.covered_by(&a_desc), "directions differ");
    assert!(a.covered_by(&plain("a_1.0_b", doc! {"a": 1.0, "b": 1})));
    // Special kinds are never prefixes of each other or of plain indexes.
    let hashed = plain("a_hashed", doc! {"a": "hashed"});
    let hashed_b = plain("a_hashed_b_1", doc! {"a": "hashed", "b": 1});
    assert!(!hashed.covered_by(&hashed_b));
    assert!(!hashed.covered_by(&ab));
    assert!(!a.covered_by(&hashed_b));
    let geo = plain("loc_2dsphere", doc! {"loc": "2dsphere"});
    let geo_b = plain("loc_2dsphere_b_1", doc! {"loc": "2dsphere", "b": 1});
    assert!(!geo.covered_by(&geo_b));
    let loc = plain("loc_1", doc! {"loc": 1});
    assert!(!loc.covered_by(&geo_b), "a geo index skips documents");
    let wild = plain("$**_1", doc! {"$**": 1});
    let attrs = plain("attrs.$**_1", doc! {"attrs.$**": 1});
    assert!(!a.covered_by(&wild) && !attrs.covered_by(&wild));
    let text = text_index();
    assert!(!plain("cast_1", doc! {"cast": 1}).covered_by(&text));
    // Hidden: a hidden longer index serves nothing; a hidden prefix is
    // covered like any other.
    let hidden_ab = spec(&doc! {"v": 2, "key": {"a": 1, "b": 1}, "name": "h", "hidden": true});
    assert!(!a.covered_by(&hidden_ab));
    let hidden_a = spec(&doc! {"v": 2, "key": {"a": 1}, "name": "ha", "hidden": true});
    assert!(hidden_a.covered_by(&ab));
    // Options that change what an index holds or does.
    let sparse_ab = spec(&doc! {"v": 2, "key": {"a": 1, "b": 1}, "name": "s", "sparse": true});
    assert!(!a.covered_by(&sparse_ab));
    let partial_ab = spec(
        &doc! {"v": 2, "key": {"a": 1, "b": 1}, "name": "p", "partialFilterExpression": {"b": {"$gt": 1}}},
    );
    assert!(!a.covered_by(&partial_ab));
    let unique_a = spec(&doc! {"v": 2, "key": {"a": 1}, "name": "u", "unique": true});
    assert!(!unique_a.covered_by(&ab));
    let ttl_a = spec(&doc! {"v": 2, "key": {"a": 1}, "name": "t", "expireAfterSeconds": 5});
    assert!(!ttl_a.covered_by(&ab));
    let fr = serde_json::json!({"locale": "fr"});
    let fr_a = spec(&doc! {"v": 2, "key": {"a": 1}, "name": "fa", "collation": {"locale": "fr"}});
    let fr_ab =
        spec(&doc! {"v": 2, "key": {"a": 1, "b": 1}, "name": "fab", "collation": {"locale": "fr"}});
    assert_eq!(fr_a.collation, Some(fr));
    assert!(fr_a.covered_by(&fr_ab));
    assert!(!fr_a.covered_by(&ab) && !a.covered_by(&fr_ab));
    assert!(
        !plain("_id_", doc! {"_id": 1}).covered_by(&plain("_id_1_a_1", doc! {"_id": 1, "a": 1}))
    );
}

#[test]
fn which_indexes_find_documents_by_a_field() {
    assert!(plain("p", doc! {"post_id": 1, "at": -1}).finds_by("post_id"));
    assert!(!plain("p", doc! {"at": -1, "post_id": 1}).finds_by("post_id"));
    assert!(!plain("p", doc! {"post_id": 1, "loc": "2dsphere"}).finds_by("post_id"));
    assert!(plain("w", doc! {"$**": 1}).finds_by("post_id"));
    assert!(plain("w", doc! {"refs.$**": 1}).finds_by("refs.post_id"));
    assert!(!plain("w", doc! {"refs.$**": 1}).finds_by("post_id"));
    assert!(!text_index().finds_by("title"));
}

#[test]
fn presence_checks_say_how_they_were_made() {
    let c = PresenceCheck {
        paths: vec!["legacy".into()],
        found: false,
        method: CheckMethod::ServerQuery,
    };
    let en = c.describe(Lang::En);
    assert!(
        en.contains(r#"find({"legacy":{"$ne":null}}).limit(1)"#),
        "{en}"
    );
    assert!(c.describe(Lang::Zh).contains("服务器"));
    // Each branch is a prefix of the index's key: the index answers it.
    assert_eq!(
        PresenceCheck::filter(&["a".into(), "b.c".into(), "d".into()]),
        doc! {"$or": [
            {"a": {"$ne": null}},
            {"a": null, "b.c": {"$ne": null}},
            {"a": null, "b.c": null, "d": {"$ne": null}},
        ]}
    );
    assert_eq!(
        serde_json::to_value(&c).expect("json")["method"],
        "server-query"
    );
}

#[test]
fn every_caveat_has_both_languages() {
    for c in [
        Caveat::Id,
        Caveat::Clustered,
        Caveat::Buckets,
        Caveat::Timeseries,
        Caveat::Text,
        Caveat::Wildcard,
        Caveat::Geo,
        Caveat::Hashed,
        Caveat::Hidden,
        Caveat::Unique,
        Caveat::Partial,
        Caveat::Unknown,
    ] {
        assert!(!c.reason(Lang::En).is_empty());
        assert_ne!(c.reason(Lang::En), c.reason(Lang::Zh));
    }
}
