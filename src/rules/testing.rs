//! Builds what a rule looks at from plain documents, for the rules' unit
//! tests: a profiled collection with every document kept.

use crate::advise::Advice;
use crate::profile::Profiler;
use crate::relate::Relationship;
use crate::report::CollectionReport;
use crate::source::{CollectionMeta, SampleOutcome};

/// `db.coll` profiled from `docs`, every document read and kept.
pub fn report(ns: &str, docs: &[bson::Document]) -> CollectionReport {
    let (db, coll) = ns.split_once('.').expect("db.coll");
    let mut p = Profiler::default();
    let mut kept = Vec::new();
    for d in docs {
        let bytes = bson::to_vec(d).expect("bson");
        p.add(&bytes).expect("valid document");
        kept.push(bytes);
    }
    let outcome = SampleOutcome {
        read: docs.len() as u64,
        method: "all".into(),
        total: Some(docs.len() as u64),
        partial: None,
        skipped: 0,
    };
    let mut meta = CollectionMeta::new(db, coll);
    meta.documents = Some(docs.len() as u64);
    let mut r = CollectionReport::new(meta, &outcome, p.finish());
    r.kept = kept;
    r
}

/// The context of one collection with the given relationships.
pub fn ctx<'a>(
    report: &'a CollectionReport,
    relationships: &'a [Relationship],
) -> super::CollectionCtx<'a> {
    super::CollectionCtx {
        data: report.data(),
        relationships: relationships.iter().collect(),
        drift: Vec::new(),
        index_usage: None,
        now: 1_800_000_000.0,
    }
}

/// A reference `from_ns.from_path` → `to_ns.key` as relate reports it.
pub fn relationship(
    from_ns: &str,
    from_path: &str,
    to_ns: &str,
    key: &str,
    probed: u64,
    matched: u64,
    target_unique: Option<crate::relate::KeyUniqueness>,
) -> Relationship {
    let rate = if probed == 0 {
        1.0
    } else {
        matched as f64 / probed as f64
    };
    Relationship {
        from: format!("{from_ns}.{from_path}"),
        to: format!("{to_ns}.{key}"),
        kind: crate::relate::Kind::ParentReference,
        cardinality: crate::relate::Cardinality::OneToMany,
        fanout: None,
        match_rate: rate,
        dangling: 1.0 - rate,
        references_probed: probed,
        references_matched: matched,
        probed,
        matched,
        evidence: None,
        target_unique,
        fanout_method: None,
        indexed: None,
        from_ns: from_ns.into(),
        from_path: from_path.into(),
        to_ns: to_ns.into(),
    }
}

/// The findings as the report shows them, with the suggestion `advise`
/// spells out of each remedy: the rules' tests check that the remedy a rule
/// chose leads to the intended script.
pub fn advised(ctx: &super::CollectionCtx<'_>, findings: Vec<super::Finding>) -> Vec<Advice> {
    findings
        .into_iter()
        .map(|f| crate::advise::advise(ctx, f, crate::i18n::Lang::En))
        .collect()
}
