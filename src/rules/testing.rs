//! Builds what a rule looks at from plain documents, for the rules' unit
//! tests: a profiled collection with every document kept.

use crate::profile::sketch::Summary;
use crate::profile::{FieldProfile, Profile, Profiler};
use crate::relate::Relationship;
use crate::source::{CollectionKind, CollectionMeta, IndexInfo, SampleOutcome};

/// A profiled collection owned by a test, lending the rules its
/// [`CollectionData`](super::context::CollectionData) as an audit does.
pub struct Collection {
    pub meta: CollectionMeta,
    pub namespace: String,
    pub kind: CollectionKind,
    pub documents: Option<u64>,
    pub sampled: u64,
    pub doc_size: Summary,
    pub max_depth: u32,
    pub paths_capped: bool,
    pub indexes: Vec<IndexInfo>,
    pub fields: Vec<FieldProfile>,
    pub kept: Vec<Vec<u8>>,
    pub profile: Profile,
    pub extremes: Option<crate::source::Extremes>,
    /// Growth by array path, as the growth stage measures it.
    pub growth: crate::growth::ByPath,
}

impl Collection {
    /// `documents` profiled (as raw BSON) and kept, with what the source
    /// knew (`meta`) and how it sampled (`outcome`).
    pub(crate) fn new(
        meta: CollectionMeta,
        outcome: &SampleOutcome,
        kept: Vec<Vec<u8>>,
    ) -> Collection {
        let mut p = Profiler::default();
        for raw in &kept {
            p.add(raw).expect("valid document");
        }
        let mut profile = p.finish();
        let documents = outcome.total.or(meta.documents);
        super::context::measure_fields(&mut profile, &meta, documents);
        Collection {
            namespace: meta.namespace(),
            kind: meta.kind,
            documents,
            sampled: profile.sampled,
            doc_size: profile.doc_size,
            max_depth: profile.max_depth,
            paths_capped: profile.paths_capped,
            indexes: meta.indexes.clone(),
            fields: profile.fields.clone(),
            kept,
            profile,
            meta,
            extremes: None,
            growth: crate::growth::ByPath::new(),
        }
    }

    pub(crate) fn data(&self) -> super::context::CollectionData<'_> {
        super::context::CollectionData {
            meta: &self.meta,
            namespace: &self.namespace,
            kind: self.kind,
            documents: self.documents,
            sampled: self.sampled,
            doc_size: self.doc_size,
            max_depth: self.max_depth,
            paths_capped: self.paths_capped,
            indexes: &self.indexes,
            fields: &self.fields,
            kept: &self.kept,
            largest_unkept: None,
            growth: &self.growth,
            extremes: self.extremes.as_ref(),
        }
    }

    pub(crate) fn field(&self, path: &str) -> Option<&FieldProfile> {
        self.fields.iter().find(|f| f.path == path)
    }
}

/// `db.coll` profiled from `docs`, every document read and kept.
pub(crate) fn report(ns: &str, docs: &[bson::Document]) -> Collection {
    let (db, coll) = ns.split_once('.').expect("db.coll");
    let kept = docs
        .iter()
        .map(|d| bson::serialize_to_vec(d).expect("bson"))
        .collect();
    let outcome = SampleOutcome {
        read: docs.len() as u64,
        method: "all".into(),
        total: Some(docs.len() as u64),
        partial: None,
        skipped: 0,
    };
    let mut meta = CollectionMeta::new(db, coll);
    meta.documents = Some(docs.len() as u64);
    Collection::new(meta, &outcome, kept)
}

/// The context of one collection with the given relationships.
pub(crate) fn ctx<'a>(
    report: &'a Collection,
    relationships: &'a [Relationship],
) -> super::CollectionCtx<'a> {
    super::CollectionCtx {
        data: report.data(),
        relationships: relationships.iter().collect(),
        drift: Vec::new(),
        index_usage: None,
        now: 1_800_000_000.0,
        workload: None,
    }
}

/// A reference `from_ns.from_path` → `to_ns.key` as relate reports it.
pub(crate) fn relationship(
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
        representations: None,
        fanout_method: None,
        indexed: None,
        polymorphic: None,
        to_one_pointer: false,
        two_way: None,
        from_ns: from_ns.into(),
        from_path: from_path.into(),
        to_ns: to_ns.into(),
    }
}
