//! Table-driven cases at the thresholds of the rules that read what the
//! relate stage measured (references probed, copies compared, target keys
//! checked): each fires with the severity named on one side of its
//! threshold and not on the other, through [`super::check_collection`] as
//! an audit runs it.

use bson::{doc, Document};

use super::testing::{self, relationship};
use super::{Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::relate::evidence::Structure;
use crate::relate::{DriftCheck, DriftKind, KeyUniqueness, Kind, Relationship};
use crate::source::IndexInfo;

/// Every enabled rule on `r`, seeing `relationships` and `drift`.
fn check(
    r: &testing::Collection,
    relationships: &[Relationship],
    drift: Vec<DriftCheck>,
    t: &Thresholds,
) -> Vec<Finding> {
    let mut ctx = testing::ctx(r, relationships);
    ctx.drift = drift;
    super::check_collection(&ctx, t, Lang::En)
}

fn only<'a>(found: &'a [Finding], rule: &str) -> Vec<&'a Finding> {
    found.iter().filter(|f| f.rule == rule).collect()
}

/// The name of the threshold a finding's evidence says it crossed.
fn crossed(f: &Finding) -> &str {
    f.evidence["threshold"]["name"].as_str().unwrap_or_default()
}

fn invoices() -> testing::Collection {
    let docs: Vec<Document> = (0..10)
        .map(|i| doc! {"_id": i, "customer": {"id": i, "name": format!("Person {i}")}})
        .collect();
    testing::report("shop.invoices", &docs)
}

fn copies(kind: DriftKind, checked: u64, disagree: u64) -> DriftCheck {
    DriftCheck {
        kind,
        holder: "customer".into(),
        reference: "customer.id".into(),
        source_ns: "shop.people".into(),
        fields: vec!["name".into()],
        checked,
        disagree,
        groups: 40,
        groups_disagreeing: disagree.min(40),
        own_fields: Vec::new(),
        snapshot: Vec::new(),
        changed: Vec::new(),
        identities_converted: 0,
        key_type: None,
        examples: vec![(
            "4".into(),
            "name".into(),
            "\"Person 4\"".into(),
            "\"Renamed 4\"".into(),
        )],
    }
}

#[test]
fn denormalization_drift_at_its_warning_share() {
    let r = invoices();
    for kind in [DriftKind::Source, DriftKind::BetweenCopies] {
        // (warning-share, checked, disagree) → severity: a warning from the
        // share on, an info below it, nothing when every copy agrees.
        for (share, checked, disagree, want) in [
            (0.1, 100, 10, Some(Severity::Warning)),
            (0.1, 100, 9, Some(Severity::Info)),
            (0.1, 100, 1, Some(Severity::Info)),
            (0.1, 100, 0, None),
            (0.01, 100, 1, Some(Severity::Warning)),
            (0.01, 101, 1, Some(Severity::Info)),
            (0.01, 0, 0, None),
        ] {
            let mut t = Thresholds::default();
            t.denormalization_drift.warning_share = share;
            let found = check(&r, &[], vec![copies(kind, checked, disagree)], &t);
            let hits = only(&found, "denormalization-drift");
            assert_eq!(
                hits.first().map(|f| f.severity),
                want,
                "{kind:?}: {disagree} of {checked}, warning-share {share}"
            );
            let Some(f) = hits.first() else { continue };
            assert_eq!(hits.len(), 1);
            assert_eq!(f.path.as_deref(), Some("customer"));
            assert_eq!(crossed(f), "denormalization-drift.warning-share");
            assert_eq!(f.evidence["disagree"], disagree);
            match kind {
                // Copies behind their source are refreshed from it …
                DriftKind::Source => assert!(
                    matches!(&f.remedy, Remedy::RefreshCopies { drift } if drift.source_ns == "shop.people" && drift.fields == ["name"]),
                    "{:?}",
                    f.remedy
                ),
                // … copies that disagree with each other are only listed.
                DriftKind::BetweenCopies => assert!(
                    matches!(&f.remedy, Remedy::CopiesDisagree { drift } if drift.holder == "customer"),
                    "{:?}",
                    f.remedy
                ),
            }
        }
    }
}

#[test]
fn dangling_references_at_its_info_and_warning_shares() {
    let docs: Vec<Document> = (0..10).map(|i| doc! {"_id": i, "movie_id": i}).collect();
    let r = testing::report("db.comments", &docs);
    let mut t = Thresholds::default();
    t.dangling_references.info_share = 0.05;
    t.dangling_references.warning_share = 0.2;
    // (references probed, matched) → severity; 100 probed, so the share
    // missing is the number missing in hundredths.
    for (probed, matched, want) in [
        (100, 100, None),
        (100, 96, None),
        (100, 95, Some(Severity::Info)),
        (100, 81, Some(Severity::Info)),
        (100, 80, Some(Severity::Warning)),
        (100, 51, Some(Severity::Warning)),
        // Half the references or more point nowhere: critical.
        (100, 50, Some(Severity::Critical)),
        (100, 0, Some(Severity::Critical)),
        (0, 0, None),
    ] {
        let rels = [relationship(
            "db.comments",
            "movie_id",
            "db.movies",
            "_id",
            probed,
            matched,
            None,
        )];
        let found = check(&r, &rels, Vec::new(), &t);
        let hits = only(&found, "dangling-references");
        assert_eq!(
            hits.first().map(|f| f.severity),
            want,
            "{matched} of {probed} found"
        );
        let Some(f) = hits.first() else { continue };
        assert_eq!(f.evidence["dangling"], probed - matched);
        assert_eq!(
            crossed(f),
            match f.severity {
                Severity::Critical => "dangling-references.critical-share",
                Severity::Warning => "dangling-references.warning-share",
                Severity::Info => "dangling-references.info-share",
            }
        );
        assert!(
            matches!(&f.remedy, Remedy::Dangling { relationship } if relationship.from_path == "movie_id" && relationship.to == "db.movies._id"),
            "{:?}",
            f.remedy
        );
    }
    // A reference its name alone proves stops at a warning, and one in a
    // varying place (a stored payload) at info.
    for (by_name, structure, want) in [
        (true, Structure::Held, Severity::Warning),
        (false, Structure::Heterogeneous, Severity::Info),
    ] {
        let mut r2 = relationship("db.comments", "movie_id", "db.movies", "_id", 100, 10, None);
        r2.evidence = Some(crate::relate::Evidence::weigh(
            crate::relate::evidence::Weighing {
                chance_rate: if by_name { 1.0 } else { 0.0 },
                values: 50,
                found: if by_name { 45 } else { 5 },
                reference_rate: if by_name { 0.9 } else { 0.1 },
                name: None,
                link: Some(crate::relate::names::Link::Exact),
                in_range: Some(1.0),
                structure,
                tests: 1,
                identity: false,
            },
        ));
        let found = check(&r, &[r2], Vec::new(), &t);
        let hits = only(&found, "dangling-references");
        assert_eq!(
            hits.first().map(|f| f.severity),
            Some(want),
            "{by_name} {structure:?}"
        );
    }
    // Embedded documents reference nothing, however few "match".
    let mut embedded = relationship("db.comments", "movie_id", "db.movies", "_id", 100, 0, None);
    embedded.kind = Kind::Embedded;
    let found = check(&r, &[embedded], Vec::new(), &t);
    assert!(only(&found, "dangling-references").is_empty(), "{found:?}");
}

fn key(unique: bool, method: &str) -> KeyUniqueness {
    KeyUniqueness {
        unique,
        method: method.into(),
        duplicate: (!unique).then(|| serde_json::json!("A-17")),
    }
}

#[test]
fn non_unique_reference_key_with_and_without_require_unique_index() {
    let docs: Vec<Document> = (0..10)
        .map(|i| doc! {"_id": i, "code": format!("A-{i}")})
        .collect();
    let mut r = testing::report("db.accounts", &docs);
    // The server told its indexes (only `_id`), so "no unique index" is known.
    r.indexes = vec![
        IndexInfo::from_spec(&doc! {"v": 2, "name": "_id_", "key": {"_id": 1}}).expect("index"),
    ];
    // (require-unique-index, what the target key is) → fires.
    for (require, uniqueness, fires) in [
        (1.0, Some(key(true, "server-group")), true),
        (0.0, Some(key(true, "server-group")), false),
        (1.0, Some(key(true, "unique-index")), false),
        (0.0, Some(key(false, "server-group")), true),
        (1.0, Some(key(false, "sample")), true),
        (1.0, None, false),
    ] {
        let mut t = Thresholds::default();
        t.non_unique_reference_key.require_unique_index = require;
        let rels = [relationship(
            "db.orders",
            "account_code",
            "db.accounts",
            "code",
            10,
            10,
            uniqueness.clone(),
        )];
        let found = check(&r, &rels, Vec::new(), &t);
        let hits = only(&found, "non-unique-reference-key");
        assert_eq!(
            hits.first().map(|f| f.severity),
            fires.then_some(Severity::Warning),
            "require-unique-index {require}, {uniqueness:?}"
        );
        let Some(f) = hits.first() else { continue };
        assert_eq!(hits.len(), 1);
        assert_eq!(f.path.as_deref(), Some("code"));
        assert_eq!(crossed(f), "non-unique-reference-key.require-unique-index");
        assert!(
            matches!(&f.remedy, Remedy::UniqueKey { key, uniqueness: u, .. } if key == "code" && uniqueness.as_ref().is_some_and(|w| w.unique == u.unique && w.method == u.method)),
            "{:?}",
            f.remedy
        );
        assert_eq!(f.evidence["referenced_by"][0], "db.orders.account_code");
    }
}
