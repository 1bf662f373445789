//! References between collections: which fields hold ids of documents in
//! another collection, what kind of reference each is, and how many
//! children a parent has (fan-out), classified by the seeds' cardinalities.
//!
//! This module is pure: it proposes candidate (field, target key) pairs from
//! the profiles and kept samples, and classifies what the sources measured
//! for them (probe match rates, per-parent counts). `audit` asks the sources.

pub mod value;

use std::collections::BTreeSet;

use serde::Serialize;

use crate::profile::raw::BsonType;
use crate::profile::sketch::LogHistogram;
use crate::profile::{extract, query_path, FieldProfile, Profile, Seg};
use crate::source::IndexInfo;
use value::ValueKey;

/// Distinct values probed per candidate field.
pub const PROBE_VALUES: usize = 100;
/// Match rate from which ObjectId references are accepted (ObjectIds are
/// unique across collections, so chance matches do not happen).
pub const MIN_MATCH_OID: f64 = 0.5;
/// Match rate from which other references (ints, strings) are accepted;
/// they also need a name that points at the target.
pub const MIN_MATCH_OTHER: f64 = 0.8;

/// Cardinality cut-offs from rules.md (fan-out maximum).
pub const FEW_MAX: u64 = 100;
pub const MANY_MAX: u64 = 10_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Embedded,
    ChildReference,
    ParentReference,
    TwoWayReference,
    ExtendedReference,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cardinality {
    OneToOne,
    OneToFew,
    OneToMany,
    OneToSquillions,
}

impl Cardinality {
    /// Classifies by the largest fan-out; unbounded growth is squillions.
    pub fn of(max: u64, growing_without_bound: bool) -> Cardinality {
        if growing_without_bound || max > MANY_MAX {
            Cardinality::OneToSquillions
        } else if max > FEW_MAX {
            Cardinality::OneToMany
        } else if max > 1 {
            Cardinality::OneToFew
        } else {
            Cardinality::OneToOne
        }
    }
}

/// Children per parent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fanout {
    pub min: u64,
    pub avg: f64,
    pub p95: u64,
    pub max: u64,
    /// Parents the figures cover.
    pub parents: u64,
    /// Parents per range of children: `[low, high, parents]`, ascending.
    pub histogram: Vec<[u64; 3]>,
}

impl Fanout {
    pub fn from_histogram(h: &LogHistogram) -> Option<Fanout> {
        (h.count() > 0).then(|| Fanout {
            min: h.min(),
            avg: crate::profile::sketch::round2(h.mean()),
            p95: h.quantile(0.95),
            max: h.max(),
            parents: h.count(),
            histogram: h
                .bins()
                .into_iter()
                .map(|(lo, hi, n)| [lo, hi, n])
                .collect(),
        })
    }

    /// From `(children, parents with that many children)` pairs.
    pub fn from_counts(counts: &[(u64, u64)]) -> Option<Fanout> {
        let mut sorted: Vec<(u64, u64)> = counts.iter().copied().filter(|c| c.1 > 0).collect();
        sorted.sort_unstable();
        let parents: u64 = sorted.iter().map(|c| c.1).sum();
        if parents == 0 {
            return None;
        }
        let total: u128 = sorted
            .iter()
            .map(|&(n, p)| u128::from(n) * u128::from(p))
            .sum();
        let rank = ((0.95 * parents as f64).ceil() as u64).max(1);
        let mut seen = 0;
        let mut p95 = 0;
        for &(n, p) in &sorted {
            seen += p;
            if seen >= rank {
                p95 = n;
                break;
            }
        }
        let mut h = LogHistogram::default();
        for &(n, p) in &sorted {
            h.record_n(n, p);
        }
        Some(Fanout {
            min: sorted[0].0,
            avg: crate::profile::sketch::round2(total as f64 / parents as f64),
            p95,
            max: sorted[sorted.len() - 1].0,
            parents,
            histogram: h
                .bins()
                .into_iter()
                .map(|(lo, hi, n)| [lo, hi, n])
                .collect(),
        })
    }
}

/// One relationship, as the JSON report lists it.
#[derive(Clone, Debug, Serialize)]
pub struct Relationship {
    /// `db.coll.path` holding the reference (or the embedded array).
    pub from: String,
    /// `db.coll.key` referenced (or the embedded elements' path).
    pub to: String,
    pub kind: Kind,
    pub cardinality: Cardinality,
    pub fanout: Option<Fanout>,
    pub match_rate: f64,
    /// Distinct values probed and how many were found.
    pub probed: u64,
    pub matched: u64,
    /// How the fan-out was measured: `array-length`, `server-group`,
    /// `file-scan` or `sample`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fanout_method: Option<String>,
    /// For references found by a query on the child: whether an index of the
    /// child collection starts with the reference field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed: Option<bool>,
    #[serde(skip)]
    pub from_ns: String,
    #[serde(skip)]
    pub from_path: String,
    #[serde(skip)]
    pub to_ns: String,
}

/// What the relationship stage needs to know about one collection.
pub struct CollectionView<'a> {
    pub db: &'a str,
    pub name: &'a str,
    pub profile: &'a Profile,
    pub docs: &'a [Vec<u8>],
    pub indexes: &'a [IndexInfo],
    pub documents: Option<u64>,
}

impl CollectionView<'_> {
    pub fn namespace(&self) -> String {
        format!("{}.{}", self.db, self.name)
    }
}

/// Comparable families of reference values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    ObjectId,
    Number,
    String,
}

fn family_of(t: BsonType) -> Option<Family> {
    match t {
        BsonType::ObjectId => Some(Family::ObjectId),
        BsonType::Int | BsonType::Long | BsonType::Double => Some(Family::Number),
        BsonType::String => Some(Family::String),
        _ => None,
    }
}

/// A field that may hold references.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub coll: usize,
    pub path: String,
    pub segments: Vec<Seg>,
    pub family: Family,
    /// Distinct sampled values, decoded, for probing.
    pub values: Vec<bson::Bson>,
    pub keys: BTreeSet<ValueKey>,
    /// The field's name stem (`customer_id` → `customer`).
    pub stem: String,
}

/// A field of a collection that documents may be referenced by.
#[derive(Clone, Debug)]
pub struct TargetKey {
    pub coll: usize,
    /// Dotted, as a query names it.
    pub key: String,
    pub family: Family,
}

/// A field name reduced to what it names: lower case, without id suffixes
/// or a plural ending (`account_ids` → `account`, `theaterId` → `theater`).
pub fn stem(name: &str) -> String {
    let mut s = String::with_capacity(name.len());
    for (i, ch) in name.chars().enumerate() {
        if ch.is_uppercase() && i > 0 {
            s.push('_');
        }
        s.extend(ch.to_lowercase());
    }
    for suffix in ["_ids", "_id", "_refs", "_ref", "ids", "_key"] {
        if s.len() > suffix.len() {
            if let Some(stripped) = s.strip_suffix(suffix) {
                s = stripped.to_owned();
                break;
            }
        }
    }
    let s = s.trim_matches('_').replace('_', "");
    if let Some(x) = s.strip_suffix("ies") {
        format!("{x}y")
    } else if s.ends_with("sses") || s.ends_with("xes") {
        s[..s.len() - 2].to_owned()
    } else if s.len() > 3 && s.ends_with('s') && !s.ends_with("ss") {
        s[..s.len() - 1].to_owned()
    } else {
        s
    }
}

fn looks_like_id_name(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower == "id"
        || lower.ends_with("_id")
        || lower.ends_with("_ids")
        || lower.ends_with("_ref")
        || lower.ends_with("_refs")
        || name.ends_with("Id")
        || name.ends_with("Ids")
        || name.ends_with("ID")
}

/// The name a field goes by: its own key, or the array's for `x[]`.
fn field_name(segs: &[Seg]) -> Option<&str> {
    segs.iter().rev().find_map(|s| match s {
        Seg::Key(k) => Some(k.as_str()),
        Seg::Elem => None,
    })
}

/// Proposes candidate reference fields of every collection.
pub fn candidates(colls: &[CollectionView<'_>]) -> Vec<Candidate> {
    let stems: Vec<String> = colls.iter().map(|c| stem(c.name)).collect();
    let mut out = Vec::new();
    for (ci, c) in colls.iter().enumerate() {
        for f in &c.profile.fields {
            if f.segments == [Seg::Key("_id".into())] {
                continue;
            }
            let Some((family, share)) = main_scalar(f) else {
                continue;
            };
            if share < 0.9 {
                continue;
            }
            let Some(name) = field_name(&f.segments) else {
                continue;
            };
            let name_stem = stem(name);
            let named = looks_like_id_name(name) || stems.contains(&name_stem);
            let plausible = match family {
                Family::ObjectId => true,
                Family::Number | Family::String => named,
            };
            if !plausible {
                continue;
            }
            let (values, keys) = sample_values(c.docs, &f.segments);
            if values.is_empty() {
                continue;
            }
            out.push(Candidate {
                coll: ci,
                path: f.path.clone(),
                segments: f.segments.clone(),
                family,
                values,
                keys,
                stem: name_stem,
            });
        }
    }
    out
}

/// The dominant scalar family of a field and its share of scalar values.
fn main_scalar(f: &FieldProfile) -> Option<(Family, f64)> {
    let scalars: u64 = f
        .types
        .iter()
        .filter(|(t, _)| !t.is_container() && *t != BsonType::Null)
        .map(|(_, c)| c)
        .sum();
    let (t, c) = f
        .types
        .iter()
        .filter(|(t, _)| family_of(*t).is_some())
        .max_by_key(|(_, c)| *c)?;
    if scalars == 0 {
        return None;
    }
    // Numbers of different widths count together.
    let fam = family_of(*t)?;
    let same: u64 = f
        .types
        .iter()
        .filter(|(x, _)| family_of(*x) == Some(fam))
        .map(|(_, c)| c)
        .sum();
    let _ = c;
    Some((fam, same as f64 / scalars as f64))
}

fn sample_values(docs: &[Vec<u8>], segs: &[Seg]) -> (Vec<bson::Bson>, BTreeSet<ValueKey>) {
    let mut keys = BTreeSet::new();
    let mut values = Vec::new();
    'docs: for d in docs {
        for el in extract::values(d, segs) {
            if keys.len() >= PROBE_VALUES {
                break 'docs;
            }
            let Some(k) = value::of_element(&el) else {
                continue;
            };
            if keys.contains(&k) {
                continue;
            }
            if let Some(b) = crate::profile::value_of(&el) {
                keys.insert(k);
                values.push(b);
            }
        }
    }
    (values, keys)
}

/// Fields documents can be found by: `_id`, and top-level fields that are
/// unique (by index) or look like identifiers (id-like name, near-unique in
/// the sample).
pub fn target_keys(colls: &[CollectionView<'_>]) -> Vec<TargetKey> {
    let mut out = Vec::new();
    for (ci, c) in colls.iter().enumerate() {
        let n = c.profile.sampled.max(1) as f64;
        for f in c.profile.fields.iter().filter(|f| f.depth == 0) {
            let Some((family, share)) = main_scalar(f) else {
                continue;
            };
            if share < 0.9 {
                continue;
            }
            let is_id = f.path == "_id";
            let unique_index = c
                .indexes
                .iter()
                .any(|i| i.unique && i.key.len() == 1 && i.key.contains_key(&f.path));
            let near_unique = f
                .distinct
                .is_some_and(|d| d.estimate as f64 >= 0.9 * f.count as f64)
                && f.count as f64 >= 0.9 * n;
            let id_like = looks_like_id_name(&f.path) && near_unique;
            if is_id || unique_index || id_like {
                out.push(TargetKey {
                    coll: ci,
                    key: f.path.clone(),
                    family,
                });
            }
        }
    }
    out
}

/// Whether a candidate may reference a target key at all (before probing).
pub fn worth_probing(cand: &Candidate, target: &TargetKey, colls: &[CollectionView<'_>]) -> bool {
    if cand.family != target.family {
        return false;
    }
    let same_coll = cand.coll == target.coll;
    if same_coll && query_path(&cand.segments) == target.key {
        return false;
    }
    if colls[cand.coll].db != colls[target.coll].db {
        return false;
    }
    match cand.family {
        Family::ObjectId => true,
        _ => name_affinity(cand, target, colls),
    }
}

/// The candidate's name points at the target collection or its key.
pub fn name_affinity(cand: &Candidate, target: &TargetKey, colls: &[CollectionView<'_>]) -> bool {
    let coll_stem = stem(colls[target.coll].name);
    cand.stem == coll_stem || (target.key != "_id" && cand.stem == stem(&target.key))
}

/// Whether a measured match rate makes the reference real.
pub fn accept(
    cand: &Candidate,
    target: &TargetKey,
    rate: f64,
    colls: &[CollectionView<'_>],
) -> bool {
    match cand.family {
        Family::ObjectId => rate >= MIN_MATCH_OID,
        _ => rate >= MIN_MATCH_OTHER && name_affinity(cand, target, colls),
    }
}

/// How a candidate field refers, from where it sits in its document.
pub fn kind_of(cand: &Candidate, profile: &Profile) -> Kind {
    let segs = &cand.segments;
    let parent = &segs[..segs.len() - 1];
    if segs.last() == Some(&Seg::Elem) {
        // `ids[]`: an array of references held by the parent.
        return Kind::ChildReference;
    }
    if parent.is_empty() {
        return Kind::ParentReference;
    }
    // Inside a sub-document: with copied fields beside it, an extended
    // reference; alone, a reference in a wrapper.
    let siblings = profile
        .fields
        .iter()
        .filter(|f| {
            f.segments.len() == segs.len()
                && f.segments[..parent.len()] == *parent
                && f.segments != *segs
        })
        .count();
    if siblings > 0 {
        Kind::ExtendedReference
    } else if parent.contains(&Seg::Elem) {
        Kind::ChildReference
    } else {
        Kind::ParentReference
    }
}

/// The array whose elements hold the references, when there is one
/// (`ids[]` → `ids`, `items[].product_id` → `items`).
pub fn holding_array(segs: &[Seg]) -> Option<Vec<Seg>> {
    let last_elem = segs.iter().rposition(|s| *s == Seg::Elem)?;
    Some(segs[..last_elem].to_vec())
}

/// Whether an index of the collection finds documents by the dotted field
/// (one that starts with it, a hashed or a wildcard index covering it; not a
/// hidden one).
pub fn has_leading_index(indexes: &[IndexInfo], dotted: &str) -> bool {
    indexes.iter().any(|i| i.finds_by(dotted))
}

/// Arrays of sub-documents in which no reference was found: embedded
/// one-to-few (or more) relationships.
pub fn embedded(
    colls: &[CollectionView<'_>],
    referencing: &[(usize, Vec<Seg>)],
) -> Vec<Relationship> {
    let mut out = Vec::new();
    for (ci, c) in colls.iter().enumerate() {
        for f in &c.profile.fields {
            let Some(last) = f.segments.last() else {
                continue;
            };
            if *last != Seg::Elem || f.main_type() != Some(BsonType::Object) {
                continue;
            }
            // Only the outermost level of nesting counts here.
            if f.segments[..f.segments.len() - 1].contains(&Seg::Elem) {
                continue;
            }
            let arr = &f.segments[..f.segments.len() - 1];
            let refs_inside = referencing
                .iter()
                .any(|(rc, rs)| *rc == ci && rs.len() > arr.len() && rs[..arr.len()] == *arr);
            if refs_inside {
                continue;
            }
            let arr_path = crate::profile::render_path(arr);
            let Some(arr_field) = c.profile.fields.iter().find(|x| x.segments == arr) else {
                continue;
            };
            let fanout = arr_field
                .array_lengths
                .as_ref()
                .and_then(Fanout::from_histogram);
            let growing = arr_field
                .growth
                .as_ref()
                .is_some_and(|g| g.is_significant(0.5));
            let ns = c.namespace();
            out.push(Relationship {
                from: format!("{ns}.{arr_path}"),
                to: format!("{ns}.{}", f.path),
                kind: Kind::Embedded,
                cardinality: Cardinality::of(fanout.as_ref().map_or(0, |f| f.max), growing),
                fanout,
                match_rate: 1.0,
                probed: 0,
                matched: 0,
                fanout_method: Some("array-length".into()),
                indexed: None,
                from_ns: ns.clone(),
                from_path: arr_path,
                to_ns: ns,
            });
        }
    }
    out
}

/// Marks pairs of references that point at each other's collections
/// (a child reference one way, a parent reference back) as two-way.
pub fn mark_two_way(rels: &mut [Relationship]) {
    let pairs: Vec<(usize, usize)> = (0..rels.len())
        .flat_map(|i| (0..rels.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| {
            i < j
                && rels[i].from_ns == rels[j].to_ns
                && rels[i].to_ns == rels[j].from_ns
                && rels[i].from_ns != rels[i].to_ns
                && matches!(
                    (rels[i].kind, rels[j].kind),
                    (
                        Kind::ChildReference,
                        Kind::ParentReference | Kind::ChildReference
                    ) | (Kind::ParentReference, Kind::ChildReference)
                )
        })
        .collect();
    for (i, j) in pairs {
        rels[i].kind = Kind::TwoWayReference;
        rels[j].kind = Kind::TwoWayReference;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        for (name, want) in [
            ("customer_id", "customer"),
            ("customers", "customer"),
            ("accounts", "account"),
            ("account_id", "account"),
            ("theaterId", "theater"),
            ("component_ids", "component"),
            ("categories", "category"),
            ("parts", "part"),
            ("host", "host"),
            ("logmsg", "logmsg"),
            ("addresses", "address"),
            ("boxes", "box"),
            ("status", "statu"),
            ("id", "id"),
        ] {
            assert_eq!(stem(name), want, "{name}");
        }
    }

    #[test]
    fn cardinality_cut_offs() {
        assert_eq!(Cardinality::of(1, false), Cardinality::OneToOne);
        assert_eq!(Cardinality::of(100, false), Cardinality::OneToFew);
        assert_eq!(Cardinality::of(101, false), Cardinality::OneToMany);
        assert_eq!(Cardinality::of(10_000, false), Cardinality::OneToMany);
        assert_eq!(Cardinality::of(10_001, false), Cardinality::OneToSquillions);
        assert_eq!(Cardinality::of(3, true), Cardinality::OneToSquillions);
    }

    #[test]
    fn fanout_from_counts() {
        let f = Fanout::from_counts(&[(0, 5), (2, 90), (10, 5)]).expect("fanout");
        assert_eq!((f.min, f.p95, f.max, f.parents), (0, 2, 10, 100));
        assert_eq!(f.histogram, vec![[0, 0, 5], [2, 2, 90], [10, 10, 5]]);
        assert!((f.avg - 2.3).abs() < 1e-9);
        assert!(Fanout::from_counts(&[]).is_none());
    }
}
