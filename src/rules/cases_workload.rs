//! Table-driven cases at the thresholds of the workload rules that read
//! writes and joins (`push-without-slice`, `lookup-on-hot-path`,
//! `write-amplified-copy`): each fires with the severity named on one side
//! of its threshold and not on the other, on a workload built in memory from
//! "Slow query" entries as mongod 4.4+ logs them.

use bson::{doc, oid::ObjectId, Document};
use serde_json::{json, Value};

use super::kit::{report, workload};
use super::testing::{relationship, Collection};
use super::{CollectionCtx, Finding, Remedy, Severity, ShapesView, Thresholds};
use crate::i18n::Lang;
use crate::relate::{Cardinality, DriftCheck, DriftKind, Relationship};
use crate::workload::Workload;

/// Every enabled rule on `r` with thresholds `t`, seeing the shapes of `w`
/// that are `r`'s, `relationships` and `drift`.
fn check(
    r: &Collection,
    t: &Thresholds,
    w: &Workload,
    relationships: &[Relationship],
    drift: Vec<DriftCheck>,
) -> Vec<Finding> {
    let ctx = CollectionCtx {
        data: r.data(),
        relationships: relationships.iter().collect(),
        drift,
        index_usage: None,
        now: 1.8e9,
        workload: Some(ShapesView::of(w, &r.namespace)),
    };
    super::check_collection(&ctx, t, Lang::En)
}

fn only<'a>(found: &'a [Finding], rule: &str) -> Vec<&'a Finding> {
    found.iter().filter(|f| f.rule == rule).collect()
}

fn crossed(f: &Finding) -> &str {
    f.evidence["threshold"]["name"].as_str().unwrap_or_default()
}

/// A find by `_id` on `kit.COLL`.
fn by_id(coll: &str) -> Value {
    json!({
        "type": "command", "ns": format!("kit.{coll}"),
        "command": {"find": coll, "filter": {"_id": 1}, "$db": "kit"},
        "planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1,
        "durationMillis": 1,
    })
}

/// An aggregation of `kit.COLL` by `_id` joining `from` on
/// `local` = `foreign`.
fn joins(coll: &str, from: &str, local: &str, foreign: &str) -> Value {
    json!({
        "type": "command", "ns": format!("kit.{coll}"),
        "command": {"aggregate": coll, "pipeline": [
            {"$match": {"_id": 1}},
            {"$lookup": {"from": from, "localField": local, "foreignField": foreign, "as": from}},
        ], "cursor": {}, "$db": "kit"},
        "planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nreturned": 1,
        "durationMillis": 2,
    })
}

/// One update statement of `kit.COLL` by `_id`.
fn update(coll: &str, u: &Value) -> Value {
    json!({
        "type": "update", "ns": format!("kit.{coll}"),
        "command": {"q": {"_id": 1}, "u": u, "multi": false, "upsert": false},
        "planSummary": "IDHACK", "keysExamined": 1, "docsExamined": 1, "nMatched": 1,
        "nModified": 1, "durationMillis": 3,
    })
}

/// An ObjectId made `days` days before 1.8e9 s.
fn born(days: u32, n: u32) -> ObjectId {
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&(1_800_000_000 - days * 86_400).to_be_bytes());
    b[8..].copy_from_slice(&n.to_be_bytes());
    ObjectId::from_bytes(b)
}

/// `n` posts with `len(i)` comments each; ids made `i` days ago when
/// `aged`, plain numbers (no age to measure growth by) otherwise.
fn posts(n: u32, aged: bool, len: impl Fn(u32) -> u32) -> Collection {
    let docs: Vec<Document> = (0..n)
        .map(|i| {
            let comments: Vec<Document> = (0..len(i))
                .map(|c| doc! {"by": format!("u{}", c % 7), "text": "hi"})
                .collect();
            let id = if aged {
                bson::Bson::ObjectId(born(i, i))
            } else {
                bson::Bson::Int64(i64::from(i))
            };
            doc! {"_id": id, "title": format!("post {i}"), "comments": comments}
        })
        .collect();
    report("posts", &docs, u64::from(n))
}

fn pushes(runs: u64, sliced: bool) -> Workload {
    let each = if sliced {
        json!({"$each": [{"by": "u1", "text": "me too"}], "$slice": -50})
    } else {
        json!({"by": "u1", "text": "me too"})
    };
    workload(&[(runs, update("posts", &json!({"$push": {"comments": each}})))])
}

#[test]
fn push_without_slice_at_its_critical_length() {
    // 40 posts of 50 comments each, no age to measure growth by.
    let r = posts(40, false, |_| 50);
    assert_eq!(
        r.field("comments").and_then(|f| f.array).map(|a| a.max),
        Some(50)
    );
    // (critical-length, keep, sliced) → severity, and the elements kept.
    for (critical, keep, sliced, want, kept) in [
        (50.0, 1000.0, false, Some(Severity::Warning), 50),
        (49.0, 1000.0, false, Some(Severity::Critical), 50),
        (49.0, 20.0, false, Some(Severity::Critical), 20),
        (50.0, 5.0, false, Some(Severity::Warning), 5),
        (49.0, 1000.0, true, None, 0),
    ] {
        let mut t = Thresholds::default();
        t.push_without_slice.critical_length = critical;
        t.push_without_slice.keep = keep;
        let found = check(&r, &t, &pushes(3, sliced), &[], Vec::new());
        let hits = only(&found, "push-without-slice");
        assert_eq!(
            hits.first().map(|f| f.severity),
            want,
            "critical-length {critical}, sliced {sliced}"
        );
        let Some(f) = hits.first() else { continue };
        assert_eq!(hits.len(), 1);
        assert_eq!(f.path.as_deref(), Some("comments"));
        if f.severity == Severity::Critical {
            assert_eq!(crossed(f), "push-without-slice.critical-length");
        }
        // The p95 of 50, at most `keep`.
        assert!(
            matches!(&f.remedy, Remedy::SlicePush { array, update_path, keep } if array == "comments" && update_path == "comments" && *keep == kept),
            "{:?}",
            f.remedy
        );
    }
}

#[test]
fn push_without_slice_is_critical_on_a_growing_array_from_min_documents() {
    // Post `i` is `i` days old and has `i` comments: perfect growth.
    let r = posts(40, true, |i| i);
    let g = r.growth.get("comments").expect("growth measured");
    assert_eq!(g.n, 40);
    assert!(g.correlation > 0.99 && g.per_day > 0.0, "{g:?}");
    // (min-documents, min-correlation) → severity (39 comments at most,
    // under the critical length).
    for (min_docs, min_corr, want) in [
        (40.0, 0.5, Severity::Critical),
        (41.0, 0.5, Severity::Warning),
        (40.0, g.correlation, Severity::Critical),
        (40.0, g.correlation + 0.001, Severity::Warning),
    ] {
        let mut t = Thresholds::default();
        t.push_without_slice.min_documents = min_docs;
        t.push_without_slice.min_correlation = min_corr;
        let found = check(&r, &t, &pushes(1, false), &[], Vec::new());
        let f = only(&found, "push-without-slice");
        assert_eq!(
            f.first().map(|f| f.severity),
            Some(want),
            "min-documents {min_docs}, min-correlation {min_corr}"
        );
        if want == Severity::Critical {
            assert_eq!(crossed(f[0]), "push-without-slice.min-correlation");
            assert!(f[0].evidence["growth"]["per_day"].as_f64() > Some(0.0));
        } else {
            assert!(f[0].evidence["growth"].is_null(), "{:?}", f[0].evidence);
        }
    }
}

fn authors() -> Collection {
    let docs: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "name": format!("author {i}")})
        .collect();
    report("authors", &docs, 20)
}

/// `joined` of 100 reads of `kit.authors` join `books`.
fn author_reads(joined: u64) -> Workload {
    workload(&[
        (joined, joins("authors", "books", "_id", "author_id")),
        (100 - joined, by_id("authors")),
    ])
}

/// `kit.books.author_id` → `kit.authors._id`, measured as `cardinality`.
fn written_by(cardinality: Cardinality) -> Relationship {
    let mut r = relationship("kit.books", "author_id", "kit.authors", "_id", 50, 50, None);
    r.cardinality = cardinality;
    r
}

#[test]
fn lookup_on_hot_path_at_its_read_share_and_by_fan_out() {
    let coll = authors();
    // (min-read-share, reads joining) → fires, with the default fan-out
    // (one-to-few: a warning, embed).
    for (share, joined, fires) in [
        (0.1, 10, true),
        (0.1, 9, false),
        (0.5, 50, true),
        (0.5, 49, false),
    ] {
        let mut t = Thresholds::default();
        t.lookup_on_hot_path.min_read_share = share;
        let rels = [written_by(Cardinality::OneToFew)];
        let found = check(&coll, &t, &author_reads(joined), &rels, Vec::new());
        let hits = only(&found, "lookup-on-hot-path");
        assert_eq!(
            hits.first().map(|f| f.severity),
            fires.then_some(Severity::Warning),
            "min-read-share {share}, {joined} of 100 reads join"
        );
        let Some(f) = hits.first() else { continue };
        assert_eq!(f.evidence["lookups"], joined);
        assert_eq!(f.evidence["reads"], 100);
        assert_eq!(crossed(f), "lookup-on-hot-path.min-read-share");
    }
    // The measured fan-out decides the severity and the fix: a few books
    // per author are embedded, many keep the reference (and its index),
    // an unmeasured one is told as unknown.
    let t = Thresholds::default();
    // (fan-out, severity, embed, one book joined per author)
    for (rel, want, embed, one) in [
        (Some(Cardinality::OneToOne), Severity::Warning, true, true),
        (Some(Cardinality::OneToFew), Severity::Warning, true, false),
        (Some(Cardinality::OneToMany), Severity::Info, false, false),
        (
            Some(Cardinality::OneToSquillions),
            Severity::Info,
            false,
            false,
        ),
        (None, Severity::Info, false, false),
    ] {
        let rels: Vec<Relationship> = rel.map(written_by).into_iter().collect();
        let found = check(&coll, &t, &author_reads(90), &rels, Vec::new());
        let hits = only(&found, "lookup-on-hot-path");
        assert_eq!(hits.len(), 1, "{rel:?}: {found:?}");
        assert_eq!(hits[0].severity, want, "{rel:?}");
        assert!(
            matches!(&hits[0].remedy, Remedy::HotLookup { from, local: Some(local), foreign: Some(foreign), embed: embeds, one: joins_one, .. }
                if from == "books" && local == "_id" && foreign == "author_id" && *embeds == embed && *joins_one == one),
            "{rel:?}: {:?}",
            hits[0].remedy
        );
    }
}

#[test]
fn lookup_on_hot_path_from_the_referencing_side_joins_one() {
    // Books hold the reference: each joins one author, whatever the
    // fan-out of authors to books.
    let docs: Vec<Document> = (0..20)
        .map(|i| doc! {"_id": i, "title": format!("book {i}"), "author_id": i % 5})
        .collect();
    let r = report("books", &docs, 20);
    let w = workload(&[
        (30, joins("books", "authors", "author_id", "_id")),
        (70, by_id("books")),
    ]);
    let rels = [written_by(Cardinality::OneToMany)];
    let found = check(&r, &Thresholds::default(), &w, &rels, Vec::new());
    let hits = only(&found, "lookup-on-hot-path");
    assert_eq!(hits.len(), 1, "{found:?}");
    assert_eq!(hits[0].severity, Severity::Warning);
    assert_eq!(hits[0].evidence["cardinality"], "one-to-one");
    assert!(
        matches!(&hits[0].remedy, Remedy::HotLookup { from, embed: true, one: true, .. } if from == "authors"),
        "{:?}",
        hits[0].remedy
    );
}

fn invoices() -> Collection {
    let docs: Vec<Document> = (0..30)
        .map(|i| doc! {"_id": i, "amount": i, "customer": {"id": i % 10, "name": format!("Person {}", i % 10)}})
        .collect();
    report("invoices", &docs, 30)
}

fn copied_names(disagree: u64) -> DriftCheck {
    DriftCheck {
        kind: DriftKind::Source,
        holder: "customer".into(),
        reference: "customer.id".into(),
        source_ns: "kit.people".into(),
        fields: vec!["name".into()],
        checked: 30,
        disagree,
        ..DriftCheck::default()
    }
}

/// 100 reads of the invoices, and `renames` updates of the copied `name`
/// (or of `city`, a field no copy holds) in `kit.people`.
fn renames(n: u64, field: &str) -> Workload {
    let mut entries = vec![(100, by_id("invoices"))];
    if n > 0 {
        entries.push((n, update("people", &json!({"$set": {field: "Renamed"}}))));
    }
    workload(&entries)
}

#[test]
fn write_amplified_copy_at_its_writes_per_read() {
    let r = invoices();
    // (max-writes-per-read, updates per 100 reads, field updated, copies
    // disagreeing) → fires: more updates of a copied field than the
    // threshold, or any at all once the copies drift.
    for (max, updates, field, disagree, fires) in [
        (0.01, 1, "name", 0, false),
        (0.01, 2, "name", 0, true),
        (0.05, 5, "name", 0, false),
        (0.05, 6, "name", 0, true),
        (0.01, 1, "name", 3, true),
        (0.01, 0, "name", 3, false),
        (0.01, 50, "city", 0, false),
        (0.01, 50, "city", 3, false),
    ] {
        let mut t = Thresholds::default();
        t.write_amplified_copy.max_writes_per_read = max;
        let found = check(
            &r,
            &t,
            &renames(updates, field),
            &[],
            vec![copied_names(disagree)],
        );
        let hits = only(&found, "write-amplified-copy");
        assert_eq!(
            hits.first().map(|f| f.severity),
            fires.then_some(Severity::Warning),
            "max-writes-per-read {max}, {updates} updates of {field}, {disagree} drifted"
        );
        let Some(f) = hits.first() else { continue };
        assert_eq!(hits.len(), 1);
        assert_eq!(f.path.as_deref(), Some("customer"));
        assert_eq!(f.evidence["updates"], updates);
        assert_eq!(f.evidence["reads"], 100);
        assert_eq!(crossed(f), "write-amplified-copy.max-writes-per-read");
        assert!(
            matches!(&f.remedy, Remedy::StopCopying { holder, reference, source_ns, fields }
                if holder == "customer" && reference == "customer.id" && source_ns == "kit.people" && fields == &["name".to_owned()]),
            "{:?}",
            f.remedy
        );
    }
    // Copies compared with each other (the source holds no such field)
    // are denormalization-drift's, never this rule's.
    let mut between = copied_names(3);
    between.kind = DriftKind::BetweenCopies;
    let found = check(
        &r,
        &Thresholds::default(),
        &renames(50, "name"),
        &[],
        vec![between],
    );
    assert!(only(&found, "write-amplified-copy").is_empty(), "{found:?}");
}

#[test]
fn lookup_on_hot_path_leaves_a_join_of_many_by_an_indexed_reference() {
    let r = authors();
    // (fan-out, reference indexed) → severity: the index is the fix for
    // many books per author, not for a few (embed them).
    for (cardinality, indexed, want) in [
        (Cardinality::OneToMany, Some(false), Some(Severity::Info)),
        (Cardinality::OneToMany, None, Some(Severity::Info)),
        (Cardinality::OneToMany, Some(true), None),
        (Cardinality::OneToSquillions, Some(true), None),
        (Cardinality::OneToFew, Some(true), Some(Severity::Warning)),
    ] {
        let mut rel = written_by(cardinality);
        rel.indexed = indexed;
        let found = check(
            &r,
            &Thresholds::default(),
            &author_reads(90),
            &[rel],
            Vec::new(),
        );
        assert_eq!(
            only(&found, "lookup-on-hot-path")
                .first()
                .map(|f| f.severity),
            want,
            "{cardinality:?}, indexed {indexed:?}"
        );
    }
}

/// `runs` finds of `kit.users` matching `name` with `/^ann$/i`.
fn regex_finds(runs: u64) -> Workload {
    let find = json!({
        "type": "command", "ns": "kit.users",
        "command": {"find": "users", "filter": {"name": {"$regularExpression": {"pattern": "^ann$", "options": "i"}}}, "$db": "kit"},
        "planSummary": "IXSCAN { name: 1 }", "keysExamined": 40, "docsExamined": 1, "nreturned": 1,
        "durationMillis": 1,
    });
    workload(&[(runs, find)])
}

#[test]
fn case_insensitive_regex_leaves_a_field_a_case_insensitive_index_serves() {
    let docs: Vec<Document> = (0..40)
        .map(|i| doc! {"_id": i, "name": format!("Name{i}")})
        .collect();
    let index = |name: &str, collation: Option<Document>| {
        let mut spec = doc! {"v": 2, "name": name, "key": {"name": 1}};
        if let Some(c) = collation {
            spec.insert("collation", c);
        }
        crate::source::IndexInfo::from_spec(&spec).expect("index spec")
    };
    // (indexes on `name`) → severity: only a case-insensitive collation
    // (strength 1 or 2) serves the match the regex makes.
    for (indexes, want) in [
        (vec![], Some(Severity::Info)),
        (vec![index("name_1", None)], Some(Severity::Info)),
        (
            vec![index("name_fr", Some(doc! {"locale": "fr", "strength": 3}))],
            Some(Severity::Info),
        ),
        (
            vec![index("name_ci", Some(doc! {"locale": "en", "strength": 2}))],
            None,
        ),
        (
            vec![index(
                "name_base",
                Some(doc! {"locale": "en", "strength": 1}),
            )],
            None,
        ),
    ] {
        let names: Vec<String> = indexes.iter().map(|i| i.name.clone()).collect();
        let mut r = report("users", &docs, 40);
        r.indexes = indexes;
        let found = check(
            &r,
            &Thresholds::default(),
            &regex_finds(100),
            &[],
            Vec::new(),
        );
        let hits = only(&found, "case-insensitive-regex");
        assert_eq!(hits.first().map(|f| f.severity), want, "{names:?}");
        if let Some(f) = hits.first() {
            assert!(
                matches!(&f.remedy, Remedy::CollationIndex { field } if field == "name"),
                "{:?}",
                f.remedy
            );
        }
    }
}

/// Counts as the server gives them (`--workload profile`).
fn counted(reads: u64, writes: u64) -> crate::source::OpCounts {
    crate::source::OpCounts {
        reads,
        writes,
        source: "top".into(),
    }
}

/// The profiler of `kit`, read: every operation, or only the slow ones.
fn kit_profiler(every_operation: bool) -> crate::workload::profile::Profiler {
    crate::workload::profile::Profiler {
        read: crate::source::ProfilerDb {
            db: "kit".into(),
            level: Some(if every_operation { 2 } else { 1 }),
            slowms: Some(100),
            entries: 100,
            error: None,
        },
        every_operation,
    }
}

#[test]
fn write_amplified_copy_bounded_by_the_server_counts() {
    let r = invoices();
    let t = Thresholds::default();
    // 50 renames against 100 profiled reads: 0.5 per read in the shapes.
    // (reads of the invoices, writes of people, the server counted) →
    // fires: every write of people per read of the copies bounds the
    // renames per read from above.
    for (reads, writes, fires) in [
        (100, 50, true),
        (10_000, 101, true),
        (10_000, 100, false),
        (1_000_000, 50, false),
    ] {
        let mut w = renames(50, "name");
        w.counts.insert("kit.invoices".into(), counted(reads, 0));
        w.counts.insert("kit.people".into(), counted(0, writes));
        let found = check(&r, &t, &w, &[], vec![copied_names(0)]);
        let hits = only(&found, "write-amplified-copy");
        assert_eq!(!hits.is_empty(), fires, "{reads} reads, {writes} writes");
        let Some(f) = hits.first() else { continue };
        assert_eq!(f.evidence["server_counts"]["copies"]["reads"], reads);
        assert_eq!(f.evidence["server_counts"]["source"]["writes"], writes);
        assert_eq!(f.evidence["server_counts"]["source"]["source"], "top");
    }
    // Copies that already drift fire whatever the counts.
    let mut w = renames(50, "name");
    w.counts
        .insert("kit.invoices".into(), counted(1_000_000, 0));
    w.counts.insert("kit.people".into(), counted(0, 50));
    let found = check(&r, &t, &w, &[], vec![copied_names(3)]);
    assert_eq!(only(&found, "write-amplified-copy").len(), 1);
}

#[test]
fn lookup_on_hot_path_takes_the_server_reads_when_only_slow_ones_were_profiled() {
    let coll = authors();
    let t = Thresholds::default();
    let rels = [written_by(Cardinality::OneToFew)];
    // 90 of 100 profiled reads join. (every operation profiled, reads the
    // server counted) → (fires, reads the share is taken against).
    for (every, server_reads, fires, reads) in [
        (true, 5_000, true, 100),
        (false, 5_000, false, 5_000),
        (false, 800, true, 800),
        (false, 50, true, 100),
    ] {
        let mut w = author_reads(90);
        w.profiler = vec![kit_profiler(every)];
        w.counts
            .insert("kit.authors".into(), counted(server_reads, 0));
        let found = check(&coll, &t, &w, &rels, Vec::new());
        let hits = only(&found, "lookup-on-hot-path");
        assert_eq!(
            !hits.is_empty(),
            fires,
            "every {every}, {server_reads} counted"
        );
        let Some(f) = hits.first() else { continue };
        assert_eq!(f.evidence["reads"], reads);
        assert_eq!(f.evidence["server_counts"]["reads"], server_reads);
    }
}

/// A find of `kit.COLL` by equality on `field`.
fn find_by(coll: &str, field: &str) -> Value {
    json!({
        "type": "command", "ns": format!("kit.{coll}"),
        "command": {"find": coll, "filter": {field: 1}, "$db": "kit"},
        "planSummary": "COLLSCAN", "keysExamined": 0, "docsExamined": 2000, "nreturned": 3,
        "durationMillis": 4,
    })
}

#[test]
fn missing_reference_index_follows_the_workload_when_given() {
    // 2,000 comments referencing movies and users; the workload reads
    // comments by movie (a find, or a $lookup from movies), never by user.
    let docs: Vec<Document> = (0..2000)
        .map(|i| doc! {"_id": i, "movie_id": i % 50, "user_id": i % 70})
        .collect();
    let mut r = report("comments", &docs, 2000);
    r.indexes = vec![crate::source::IndexInfo::from_spec(
        &doc! {"v": 2, "name": "_id_", "key": {"_id": 1}},
    )
    .expect("index spec")];
    let rel = |path: &str, to: &str| {
        let mut x = relationship(
            "kit.comments",
            path,
            &format!("kit.{to}"),
            "_id",
            100,
            100,
            None,
        );
        x.indexed = Some(false);
        x
    };
    let rels = [rel("movie_id", "movies"), rel("user_id", "users")];
    let t = Thresholds::default();
    let indexed_paths = |w: &Workload| -> Vec<String> {
        let mut p: Vec<String> = only(
            &check(&r, &t, w, &rels, Vec::new()),
            "missing-reference-index",
        )
        .iter()
        .filter_map(|f| f.path.clone())
        .collect();
        p.sort();
        p
    };
    // No shape of this collection: every parent reference, by its cost.
    assert_eq!(
        indexed_paths(&workload(&[(5, by_id("movies"))])),
        ["movie_id", "user_id"]
    );
    // Shapes of this collection: only the reference they filter on.
    assert_eq!(
        indexed_paths(&workload(&[
            (5, find_by("comments", "movie_id")),
            (5, by_id("comments"))
        ])),
        ["movie_id"]
    );
    // A $lookup from movies whose foreignField is the reference.
    assert_eq!(
        indexed_paths(&workload(&[
            (5, joins("movies", "comments", "_id", "movie_id")),
            (5, by_id("comments"))
        ])),
        ["movie_id"]
    );
}
