//! References between collections: which fields hold ids of documents in
//! another collection, what kind of reference each is, and how many
//! children a parent has (fan-out), classified by the seeds' cardinalities.
//!
//! `keys` proposes candidate fields and target keys from the profiles and
//! kept samples, `evidence` weighs what a probe found against chance,
//! `drift` compares copied fields; these and the classification here are
//! pure. `discover` asks the source (probes, per-parent counts, copies'
//! sources) and puts the pieces together.

pub mod choice;
pub mod discover;
pub mod drift;
pub mod evidence;
pub mod keys;
pub mod names;
pub mod twoway;

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::profile::raw::BsonType;
use crate::profile::shelf::ProfileRef;
use crate::profile::sketch::LogHistogram;
use crate::profile::{Profile, Seg};
use crate::source::value::ValueKey;
use crate::source::{CollectionMeta, IndexInfo};
pub use discover::RelateCost;
pub use drift::{DriftCheck, DriftKind};
pub use evidence::Evidence;
pub use keys::Candidate;

/// Whether `r` is a reference held inside a copy of another document: a
/// sub-document whose own `_id` references another collection (a
/// notification's embedded ticket) holds that document's references as
/// they were copied (`data.ticket.group`). They belong to the source —
/// its own `group` is the reference to index — not to the copy.
pub(crate) fn inside_a_copy(r: &Relationship, rels: &[&Relationship]) -> bool {
    rels.iter().any(|c| {
        if c.from_ns != r.from_ns || c.kind == Kind::Embedded || std::ptr::eq(*c, r) {
            return false;
        }
        let Some(holder) = c.from_path.strip_suffix("._id") else {
            return false;
        };
        r.from_path != c.from_path
            && r.from_path
                .strip_prefix(holder)
                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with("[]"))
    })
}

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
    pub(crate) fn of(max: u64, growing_without_bound: bool) -> Cardinality {
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
    /// Children the figures count (references to existing parents).
    pub children: u64,
    /// References to parents that do not exist, left out of the figures,
    /// and their share of all references counted, when measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dangling_children: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dangling: Option<f64>,
}

impl Fanout {
    pub(crate) fn from_histogram(h: &LogHistogram) -> Option<Fanout> {
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
            children: (h.mean() * h.count() as f64).round() as u64,
            dangling_children: None,
            dangling: None,
        })
    }

    /// From `(children, parents with that many children)` pairs.
    pub(crate) fn from_counts(counts: &[(u64, u64)]) -> Option<Fanout> {
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
            children: u64::try_from(total).unwrap_or(u64::MAX),
            dangling_children: None,
            dangling: None,
        })
    }

    /// Children per existing parent, from the children counted per
    /// referenced value (`rows`) and the values found among the parents'
    /// keys. References to missing parents are left out and reported as
    /// dangling; parents no child points at have zero children when the
    /// number of parents is known. `scale` multiplies each count (a sample
    /// scaled to its collection).
    pub(crate) fn over_existing(
        rows: &[(ValueKey, u64)],
        exists: &HashSet<ValueKey>,
        parents: Option<u64>,
        scale: f64,
    ) -> Option<Fanout> {
        let mut per: HashMap<u64, u64> = HashMap::new();
        let (mut with_children, mut dangling, mut all) = (0u64, 0u64, 0u64);
        for (k, n) in rows {
            let n = ((*n as f64) * scale).round() as u64;
            all += n;
            if exists.contains(k) {
                with_children += 1;
                *per.entry(n).or_insert(0) += 1;
            } else {
                dangling += n;
            }
        }
        if let Some(p) = parents {
            if p > with_children {
                per.insert(0, p - with_children);
            }
        }
        let counts: Vec<(u64, u64)> = per.into_iter().collect();
        let mut f = Fanout::from_counts(&counts)?;
        f.dangling_children = Some(dangling);
        f.dangling = Some(if all == 0 {
            0.0
        } else {
            crate::profile::sketch::round2(dangling as f64 / all as f64)
        });
        Some(f)
    }
}

/// One reference stored two ways, counted over the references probed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Representations {
    /// The `$type` of the references that match as they are
    /// (`objectId`, `long`), and of the others (`string`).
    pub native: &'static str,
    pub stored_as: &'static str,
    /// The server's conversion that reads the strings as the native type.
    pub conversion: &'static str,
    /// References probed, and those stored as strings.
    pub references: u64,
    pub strings: u64,
    /// References that match as stored, and once the strings are converted.
    pub matched_as_stored: u64,
    pub matched_converted: u64,
}

impl Representations {
    /// From a probe's tally, when some references were strings.
    pub(crate) fn of(family: Family, tally: &keys::Tally) -> Option<Representations> {
        if tally.converted == 0 {
            return None;
        }
        let (native, conversion) = match family {
            Family::ObjectId => ("objectId", "$toObjectId"),
            Family::Number => ("long", "$toLong"),
            Family::String => return None,
        };
        Some(Representations {
            native,
            stored_as: "string",
            conversion,
            references: tally.references,
            strings: tally.converted,
            matched_as_stored: tally.references_found - tally.converted_found,
            matched_converted: tally.references_found,
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
    /// References found / references probed: references (documents'
    /// values or array elements) are read from the kept sample, and each
    /// counts, not each distinct value.
    pub match_rate: f64,
    /// Share of the probed references whose target does not exist.
    pub dangling: f64,
    pub references_probed: u64,
    pub references_matched: u64,
    /// Distinct values probed and how many were found.
    pub probed: u64,
    pub matched: u64,
    /// Why this is a reference: the chance test, name and structure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// For a target key other than `_id`: whether it is unique.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_unique: Option<KeyUniqueness>,
    /// When the reference is kept in two representations (ObjectIds beside
    /// their hex strings, numbers beside numeric strings): how many of the
    /// references are strings, and how many references match before and
    /// after the strings are converted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub representations: Option<Representations>,
    /// How the fan-out was measured: `array-length`, `server-group`,
    /// `file-scan` or `sample`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fanout_method: Option<String>,
    /// For references found by a query on the child: whether an index of the
    /// child collection starts with the reference field (absent when the
    /// source knows no index, as an export without metadata).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed: Option<bool>,
    /// For a reference into several collections: what tells them apart,
    /// and every target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub polymorphic: Option<Polymorphic>,
    /// A to-one pointer held by the one side (a user's profile picture, a
    /// conversation's last message): it points at a document created after
    /// its holder, one holder per document. Nobody finds the holder by it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub to_one_pointer: bool,
    /// For one side of a two-way reference (the side that reports it): the
    /// links each side holds, checked against the other side's documents.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub two_way: Option<twoway::TwoWaySync>,
    #[serde(skip)]
    pub from_ns: String,
    #[serde(skip)]
    pub from_path: String,
    #[serde(skip)]
    pub to_ns: String,
}

/// One reference path that points into several collections.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Polymorphic {
    /// The field beside the reference whose value names the target's kind
    /// (`parentType`), when one does; absent for twin collections that
    /// only the values tell apart.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discriminator: Option<String>,
    /// The discriminator's value naming this relationship's target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Every target, `db.coll.key`, strongest first.
    pub targets: Vec<String>,
    /// References probed and found in this target (of its class).
    pub references: u64,
    pub found: u64,
}

/// The references of one path counted once, whatever the number of
/// targets: probed, and found in some target (each class in its own).
pub(crate) fn field_integrity(rels: &[&Relationship], r: &Relationship) -> (u64, u64) {
    match &r.polymorphic {
        None => (r.references_probed, r.references_matched),
        Some(_) => {
            let first = rels
                .iter()
                .find(|x| {
                    x.from_ns == r.from_ns && x.from_path == r.from_path && x.polymorphic.is_some()
                })
                .copied()
                .unwrap_or(r);
            (first.references_probed, first.references_matched)
        }
    }
}

/// Whether a reference lies where documents do not regularly keep fields
/// (a minority shape of its container, a sub-document whose fields vary:
/// a stored payload, a logged query): its values prove it, but what it says
/// about the data is reported at info.
pub(crate) fn in_varying_place(r: &Relationship) -> bool {
    r.evidence
        .as_ref()
        .is_some_and(|e| e.structure != evidence::Structure::Held)
}

/// Whether `r` is the first of its path's relationships (a polymorphic
/// reference is one relationship per target): a finding about the path is
/// made once.
pub(crate) fn first_of_path(rels: &[&Relationship], r: &Relationship) -> bool {
    rels.iter()
        .find(|x| x.from_ns == r.from_ns && x.from_path == r.from_path && x.kind != Kind::Embedded)
        .is_none_or(|x| std::ptr::eq(*x, r))
}

/// What the relationship stage needs to know about one collection.
pub struct CollectionView<'a> {
    pub db: &'a str,
    pub name: &'a str,
    /// The profile: at hand, or on the run's shelf until a question needs
    /// its paths ([`ProfileRef::get`]).
    pub profile: ProfileRef<'a>,
    pub docs: &'a [Vec<u8>],
    pub indexes: &'a [IndexInfo],
    /// How each array path grows, where measured.
    pub growth: &'a crate::growth::ByPath,
    pub documents: Option<u64>,
    /// What the source needs to find the collection again.
    pub meta: &'a CollectionMeta,
    /// The kept sample is every document of the collection.
    pub complete: bool,
}

/// Whether a relationship's target key other than `_id` is unique.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeyUniqueness {
    pub unique: bool,
    /// `unique-index`, `sample` (a duplicate in the kept sample, or every
    /// document kept), `server-group` or `file-scan`.
    pub method: String,
    /// A value two documents share.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate: Option<serde_json::Value>,
}

impl CollectionView<'_> {
    pub(crate) fn namespace(&self) -> String {
        format!("{}.{}", self.db, self.name)
    }
}

pub use crate::source::value::Family;

/// A field name reduced to what it names: lower case, without id suffixes
/// or a plural ending (`account_ids` → `account`, `theaterId` → `theater`).
pub(crate) fn stem(name: &str) -> String {
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
    crate::i18n::singular(s.trim_matches('_')).replace('_', "")
}

/// How a candidate field refers, from where it sits in its document.
pub(crate) fn kind_of(cand: &Candidate, profile: &Profile) -> Kind {
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
pub(crate) fn holding_array(segs: &[Seg]) -> Option<Vec<Seg>> {
    let last_elem = segs.iter().rposition(|s| *s == Seg::Elem)?;
    Some(segs[..last_elem].to_vec())
}

/// Whether an index of the collection finds documents by the dotted field
/// (one that starts with it, a hashed or a wildcard index covering it; not a
/// hidden one).
pub(crate) fn has_leading_index(indexes: &[IndexInfo], dotted: &str) -> bool {
    indexes.iter().any(|i| i.finds_by(dotted))
}

/// Arrays of sub-documents in which no reference was found: embedded
/// one-to-few (or more) relationships.
pub(crate) fn embedded(
    colls: &[CollectionView<'_>],
    referencing: &[(usize, Vec<Seg>)],
) -> Vec<Relationship> {
    let mut out = Vec::new();
    for (ci, c) in colls.iter().enumerate() {
        let profile = c.profile.get();
        for f in &profile.fields {
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
            let Some(arr_field) = profile.fields.iter().find(|x| x.segments == arr) else {
                continue;
            };
            let fanout = arr_field
                .array_lengths
                .as_ref()
                .and_then(Fanout::from_histogram);
            let growing = c
                .growth
                .get(&arr_field.path)
                .is_some_and(|g| g.is_significant(0.5));
            let ns = c.namespace();
            out.push(Relationship {
                from: format!("{ns}.{arr_path}"),
                to: format!("{ns}.{}", f.path),
                kind: Kind::Embedded,
                cardinality: Cardinality::of(fanout.as_ref().map_or(0, |f| f.max), growing),
                fanout,
                match_rate: 1.0,
                dangling: 0.0,
                references_probed: 0,
                references_matched: 0,
                probed: 0,
                matched: 0,
                evidence: None,
                target_unique: None,
                representations: None,
                fanout_method: Some("array-length".into()),
                indexed: None,
                polymorphic: None,
                to_one_pointer: false,
                two_way: None,
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
pub(crate) fn mark_two_way(rels: &mut [Relationship]) {
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
            ("status", "status"),
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

    #[test]
    fn fanout_counts_children_of_existing_parents() {
        type Case = (Vec<(i32, u64)>, Option<u64>, f64, (f64, u64, u64, u64, u64));
        let key = |i: i32| crate::source::value::of_bson(&bson::Bson::Int32(i)).expect("key");
        let exists: HashSet<ValueKey> = [1, 2, 3].into_iter().map(key).collect();
        // (children per value, parents, scale) → (avg, max, parents, children, dangling children)
        let cases: Vec<Case> = vec![
            // 7 children of existing parents 1–3 over 10 parents; 3 children
            // of a missing parent 9 are dangling, not a parent's.
            (
                vec![(1, 4), (2, 2), (3, 1), (9, 3)],
                Some(10),
                1.0,
                (0.7, 4, 10, 7, 3),
            ),
            // Parents unknown (a sample): only parents seen count.
            (vec![(1, 4), (2, 2), (9, 3)], None, 1.0, (3.0, 4, 2, 6, 3)),
            // A sample scaled to its collection.
            (vec![(1, 2), (9, 1)], None, 10.0, (20.0, 20, 1, 20, 10)),
            // Every reference dangling: no parent has children.
            (vec![(8, 2), (9, 1)], Some(5), 1.0, (0.0, 0, 5, 0, 3)),
        ];
        for (rows, parents, scale, want) in cases {
            let rows: Vec<(ValueKey, u64)> = rows.into_iter().map(|(v, n)| (key(v), n)).collect();
            let f = Fanout::over_existing(&rows, &exists, parents, scale).expect("fanout");
            assert_eq!(
                (
                    f.avg,
                    f.max,
                    f.parents,
                    f.children,
                    f.dangling_children.expect("dangling")
                ),
                want,
                "{rows:?}"
            );
        }
        assert!(Fanout::over_existing(&[(key(9), 1)], &exists, None, 1.0).is_none());
    }
}
