//! What may reference what: candidate fields with the references they hold
//! in the kept sample, target keys with what the sample knows of them, and
//! the pairs worth asking the source about.

use std::collections::{HashMap, HashSet};

use super::evidence::{self, Affinity, Evidence, Structure};
use super::{names, stem, CollectionView, Family};
use crate::profile::raw::{BsonType, Element};
use crate::profile::{extract, query_path, FieldProfile, Seg};
use crate::source::value::{self, ValueKey};

/// Distinct values probed per candidate field.
pub const PROBE_VALUES: usize = 200;
/// Strings longer than this are text, not keys.
pub const MAX_KEY_BYTES: u64 = 256;
/// Least share of a field's values in its main family (and, for numbers,
/// integral) for it to hold references or be a key.
pub const MIN_FAMILY_SHARE: f64 = 0.9;
/// Presence and distinct share from which a field is a near-unique key.
pub const NEAR_UNIQUE: f64 = 0.9;
/// Least information a candidate's values must carry, in values' worth
/// ([`References::effective_values`]): fewer than two is a constant with
/// exceptions.
pub const MIN_EFFECTIVE_VALUES: f64 = 2.0;
/// Seed of the order in which kept documents are read for probing.
const ORDER_SEED: u64 = 0x7265_6665_7265_6e63;

/// A field that may hold references, with a sample of its references.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// What the chance of a match is computed from, prepared once for
    /// every key the field is weighed against.
    pub chance: evidence::ChanceBasis,
    pub coll: usize,
    pub path: String,
    pub segments: Vec<Seg>,
    pub family: Family,
    /// The field's own name (`email`), and the stem of what it names
    /// (`customer_id` → `customer`; `customer.id` → `customer`).
    pub name: String,
    pub stem: String,
    /// The words of what it names, without its collection's column prefix
    /// and the words that say "reference" (`o_custkey` → cust).
    pub referent: Vec<String>,
    pub structure: Structure,
    /// Nearly every value differs from every other (one-to-one).
    pub near_unique: bool,
    /// The values carry at least [`MIN_EFFECTIVE_VALUES`] values' worth of
    /// information: only then can they prove a reference by themselves.
    pub informative: bool,
    pub refs: References,
}

/// References (documents' values or array elements) read from the kept
/// sample in a fixed pseudo-random order until [`PROBE_VALUES`] distinct
/// values were seen: an unbiased sample of references, and the distinct
/// values they carry.
#[derive(Clone, Debug, Default)]
pub struct References {
    /// Distinct values, in the order they were met; a probe asks for them
    /// as [`ValueKey::to_bson`] gives them.
    pub keys: Vec<ValueKey>,
    /// References carrying each value.
    pub weights: Vec<u64>,
    /// References read.
    pub total: u64,
    /// Share of the values free of white space (identifiers, not text).
    pub identifier_share: f64,
    /// References carrying each value as a string of the family's value
    /// (a hex string beside ObjectIds, a numeric string beside numbers),
    /// when the field holds both representations; empty otherwise.
    pub converted: Vec<u64>,
}

/// A probe's outcome counted over distinct values and over references.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub values: u64,
    pub found: u64,
    pub references: u64,
    pub references_found: u64,
    /// Of the references, those stored as a string of the family's value,
    /// and those of them found once converted.
    pub converted: u64,
    pub converted_found: u64,
}

impl Tally {
    /// References found / references probed.
    pub(crate) fn rate(&self) -> f64 {
        if self.references == 0 {
            0.0
        } else {
            self.references_found as f64 / self.references as f64
        }
    }
}

impl References {
    /// How many values the references carry in effect: `e` to the Shannon
    /// entropy of their distribution. A constant is 1; a version counter
    /// that is 0 in nine documents of ten and 1 or 2 in the rest, 1.4; five
    /// statuses used alike, 5.
    pub(crate) fn effective_values(&self) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let n = self.total as f64;
        let h: f64 = self
            .weights
            .iter()
            .map(|&w| {
                let p = w as f64 / n;
                -p * p.ln()
            })
            .sum();
        h.exp()
    }

    /// The values a probe asks for.
    pub(crate) fn values(&self) -> Vec<bson::Bson> {
        self.keys.iter().filter_map(ValueKey::to_bson).collect()
    }

    /// Counts which probed values were found, by value and by reference.
    pub fn tally(&self, found: &HashSet<ValueKey>) -> Tally {
        let mut t = self.empty_tally();
        for (i, (k, w)) in self.keys.iter().zip(&self.weights).enumerate() {
            if found.contains(k) {
                t.found += 1;
                t.references_found += w;
                t.converted_found += self.converted.get(i).copied().unwrap_or(0);
            }
        }
        t
    }

    /// The tally of a probe that found nothing.
    pub(crate) fn empty_tally(&self) -> Tally {
        Tally {
            values: self.keys.len() as u64,
            references: self.total,
            converted: self.converted.iter().sum(),
            ..Tally::default()
        }
    }

    /// Reads the references at `segs`. `None` when the field's values are
    /// not keys: numbers that are not integers, or strings that are text.
    /// `order` is the order in which the documents are read ([`read_order`]).
    ///
    /// With `convert`, strings that hold a value of `family` (a hex
    /// ObjectId, a numeric string) are read as that value and counted in
    /// [`References::converted`]: one reference kept in two
    /// representations.
    pub(crate) fn sample(
        docs: &[Vec<u8>],
        order: &[usize],
        segs: &[Seg],
        family: Family,
        convert: bool,
    ) -> Option<References> {
        let mut r = References::default();
        let mut index: HashMap<ValueKey, usize> = HashMap::new();
        let (mut usable, mut unusable, mut plain) = (0u64, 0u64, 0u64);
        'docs: for &i in order {
            for el in extract::values(&docs[i], segs) {
                let (k, is_converted) = if family_of(el.ty) == Some(family) {
                    if !is_key_value(&el) {
                        unusable += 1;
                        continue;
                    }
                    let Some(k) = value::of_element(&el) else {
                        continue;
                    };
                    (k, false)
                } else if convert && el.ty == BsonType::String {
                    let converted = crate::profile::raw::value::str(el.value)
                        .and_then(|s| value::converted(s, family));
                    match converted {
                        Some(k) => (k, true),
                        None => {
                            unusable += 1;
                            continue;
                        }
                    }
                } else {
                    continue;
                };
                if let Some(&at) = index.get(&k) {
                    r.weights[at] += 1;
                    if is_converted {
                        r.converted[at] += 1;
                    }
                    r.total += 1;
                    usable += 1;
                    continue;
                }
                if r.keys.len() >= PROBE_VALUES {
                    break 'docs;
                }
                if !k
                    .as_str()
                    .is_some_and(|s| s.chars().any(char::is_whitespace))
                {
                    plain += 1;
                }
                index.insert(k.clone(), r.keys.len());
                r.keys.push(k);
                r.weights.push(1);
                r.converted.push(u64::from(is_converted));
                r.total += 1;
                usable += 1;
            }
        }
        if r.keys.is_empty() || (usable as f64) < MIN_FAMILY_SHARE * (usable + unusable) as f64 {
            return None;
        }
        if r.converted.iter().all(|&c| c == 0) {
            r.converted = Vec::new();
        }
        r.identifier_share = plain as f64 / r.keys.len() as f64;
        r.keys.shrink_to_fit();
        r.weights.shrink_to_fit();
        r.converted.shrink_to_fit();
        Some(r)
    }
}

/// A fixed pseudo-random order of the kept documents (by a hash of their
/// bytes): the sample may be stored in insertion order, and a prefix of
/// that is not a random sample of references.
pub(crate) fn read_order(docs: &[Vec<u8>]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..docs.len()).collect();
    order.sort_by_cached_key(|&i| crate::profile::sketch::hash_bytes(ORDER_SEED, &docs[i]));
    order
}

/// Integers (of any width) and short strings can be keys.
fn is_key_value(el: &Element<'_>) -> bool {
    use crate::profile::raw::value as v;
    match el.ty {
        BsonType::Double => v::f64(el.value).is_some_and(|x| x.is_finite() && x.fract() == 0.0),
        BsonType::String => v::str(el.value).is_some_and(|s| s.len() as u64 <= MAX_KEY_BYTES),
        _ => true,
    }
}

/// A field of a collection that documents may be referenced by, with what
/// the kept sample shows of its values.
#[derive(Clone, Debug)]
pub struct TargetKey {
    pub coll: usize,
    /// Dotted, as a query names it.
    pub key: String,
    pub family: Family,
    pub unique_index: bool,
    /// The stems of the collection's name and of the key's.
    pub coll_stem: String,
    pub key_stem: String,
    /// The words of the collection's name, and whether it holds people.
    pub coll_words: Vec<String>,
    pub people: bool,
    /// Keys in the kept sample.
    pub seen: HashSet<ValueKey>,
    /// Numeric keys in the kept sample, sorted and distinct, for the
    /// density of the key.
    pub numbers: Vec<f64>,
    /// The clock span of the kept ObjectId keys (their seconds, first and
    /// last), and how many there are.
    pub oid_span: Option<(u32, u32, usize)>,
    /// A key value held by two kept documents, if any.
    pub duplicate: Option<bson::Bson>,
    /// Estimated distinct keys in the whole collection.
    pub distinct: f64,
    /// The kept sample is the whole collection: `seen` is every key.
    pub complete: bool,
}

/// Comparable families of reference values.
pub(crate) fn family_of(t: BsonType) -> Option<Family> {
    match t {
        BsonType::ObjectId => Some(Family::ObjectId),
        BsonType::Int | BsonType::Long | BsonType::Double => Some(Family::Number),
        BsonType::String => Some(Family::String),
        _ => None,
    }
}

/// The dominant scalar family of a field and its share of scalar values.
fn main_family(f: &FieldProfile) -> Option<(Family, f64)> {
    let scalars: u64 = f
        .types
        .iter()
        .filter(|(t, _)| !t.is_container() && *t != BsonType::Null)
        .map(|(_, c)| c)
        .sum();
    if scalars == 0 {
        return None;
    }
    let (t, _) = f
        .types
        .iter()
        .filter(|(t, _)| family_of(*t).is_some())
        .max_by_key(|(_, c)| *c)?;
    // Numbers of different widths count together.
    let fam = family_of(*t)?;
    let same: u64 = f
        .types
        .iter()
        .filter(|(x, _)| family_of(*x) == Some(fam))
        .map(|(_, c)| c)
        .sum();
    Some((fam, same as f64 / scalars as f64))
}

/// The family a field's references would be compared in, its share of
/// the field's scalar values, and whether strings are to be read as that
/// family's values too: a field holding ObjectIds beside strings (or
/// numbers beside strings) may keep one reference in two representations;
/// [`References::sample`] finds out whether the strings convert. A field
/// of strings alone is tried as the family its strings would convert to
/// (24-hex strings as ObjectIds, numeric strings as numbers) by
/// [`candidates_of`]. Numbers stored as doubles are amounts and
/// measurements, never references.
fn reference_family(f: &FieldProfile) -> Option<(Family, f64, bool)> {
    let (family, share) = main_family(f)?;
    let has = |t: BsonType| f.type_count(t) > 0;
    let strings = has(BsonType::String);
    let numbers = has(BsonType::Int) || has(BsonType::Long);
    if family == Family::Number
        && f.type_count(BsonType::Double)
            > f.type_count(BsonType::Int) + f.type_count(BsonType::Long)
    {
        return None;
    }
    if share >= MIN_FAMILY_SHARE {
        // Mostly one family: strings beside it may still be the same
        // references written by another writer.
        let convert = strings
            && match family {
                Family::ObjectId => true,
                Family::Number => numbers,
                Family::String => false,
            };
        return Some((family, share, convert));
    }
    if strings && has(BsonType::ObjectId) {
        Some((Family::ObjectId, share, true))
    } else if strings && numbers {
        Some((Family::Number, share, true))
    } else {
        Some((family, share, false))
    }
}

/// The family a field of strings alone would convert to, when its first
/// strings (in the reading order) all do: 24-hex strings are ObjectIds
/// written as text, digit strings numbers.
fn converts_to(docs: &[Vec<u8>], order: &[usize], segs: &[Seg]) -> Option<Family> {
    const LOOK: usize = 32;
    let mut seen = 0;
    let (mut oid, mut num) = (true, true);
    'docs: for &i in order {
        for el in extract::values(&docs[i], segs) {
            if el.ty != BsonType::String {
                continue;
            }
            let Some(s) = crate::profile::raw::value::str(el.value) else {
                continue;
            };
            oid &= value::converted(s, Family::ObjectId).is_some();
            num &= value::converted(s, Family::Number).is_some();
            seen += 1;
            if seen >= LOOK || !(oid || num) {
                break 'docs;
            }
        }
    }
    if seen == 0 {
        None
    } else if oid {
        Some(Family::ObjectId)
    } else if num {
        Some(Family::Number)
    } else {
        None
    }
}

/// Names that say "the id of my holder": `customer.id` names a customer.
pub(crate) fn names_its_holder(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "id" | "_id" | "ref" | "key" | "uuid" | "oid"
    )
}

/// The field's own name and the stem of what it names.
fn names(segs: &[Seg]) -> Option<(String, String)> {
    let mut keys = segs.iter().rev().filter_map(|s| match s {
        Seg::Key(k) => Some(k.as_str()),
        Seg::Elem => None,
    });
    let name = keys.next()?;
    let named = if names_its_holder(name) {
        keys.next().unwrap_or(name)
    } else {
        name
    };
    Some((name.to_owned(), stem(named)))
}

/// The column prefix a collection's fields share (`l_` of TPC-H's
/// `lineitem`), from its top-level fields and the parts of a composite
/// `_id`.
fn column_prefix_of(profile: &crate::profile::Profile) -> Option<String> {
    names::column_prefix(
        profile
            .fields
            .iter()
            .filter_map(|f| match f.segments.as_slice() {
                [Seg::Key(k)] => Some(k.as_str()),
                [Seg::Key(id), Seg::Key(k)] if id == "_id" => Some(k.as_str()),
                _ => None,
            }),
    )
}

/// The words of what the field at `segs` names ([`names::referent`]).
fn referent_of(segs: &[Seg], prefix: Option<&str>) -> Vec<String> {
    let mut keys = segs.iter().rev().filter_map(|s| match s {
        Seg::Key(k) => Some(k.as_str()),
        Seg::Elem => None,
    });
    let Some(name) = keys.next() else {
        return Vec::new();
    };
    let holder = keys.find(|k| *k != "_id");
    names::referent(name, holder, prefix)
}

/// Whether most values at `segs` equal the `_id` of the document holding
/// them.
fn holds_own_id(docs: &[Vec<u8>], segs: &[Seg]) -> bool {
    let (mut refs, mut own) = (0u64, 0u64);
    for d in docs {
        let id = extract::top(d, "_id").and_then(|e| value::of_element(&e));
        for el in extract::values(d, segs) {
            let Some(v) = value::of_element(&el) else {
                continue;
            };
            refs += 1;
            if id.as_ref() == Some(&v) {
                own += 1;
            }
        }
    }
    refs > 0 && 2 * own >= refs
}

/// Fields documents can be found by: `_id`, and top-level fields that are
/// unique by index or near-unique in the sample, whatever their name.
pub(crate) fn target_keys(colls: &[CollectionView<'_>]) -> Vec<TargetKey> {
    let mut out = Vec::new();
    for (ci, c) in colls.iter().enumerate() {
        let n = c.profile.sampled().max(1) as f64;
        let profile = c.profile.get();
        for f in profile.fields.iter().filter(|f| f.depth == 0) {
            let Some((family, share)) = main_family(f) else {
                continue;
            };
            if share < MIN_FAMILY_SHARE || f.string_length.is_some_and(|[_, hi]| hi > MAX_KEY_BYTES)
            {
                continue;
            }
            let is_id = f.path == "_id";
            let unique_index = c
                .indexes
                .iter()
                .any(|i| i.unique && i.key.len() == 1 && i.key.contains_key(&f.path));
            // A key identifies one document: nearly every value is its
            // own, over the whole collection. A sample repeats fewer values
            // than the collection holds, so the share is of the distinct
            // values estimated for the collection (Duj1), the same whatever
            // the sample drew; people's names repeat, account numbers
            // issued twice by mistake are rare.
            let documents = c.documents.unwrap_or(profile.sampled).max(profile.sampled);
            let near_unique = f
                .population_distinct(documents, profile.sampled)
                .is_some_and(|d| d.estimate as f64 >= NEAR_UNIQUE * d.population.max(1) as f64)
                && f.count as f64 >= NEAR_UNIQUE * n;
            // A key other than `_id` identifies: unique by index, or unique
            // over the collection and named as identifiers are (`account_id`,
            // `isbn`, `email`, `name`; an amount, `totalPaid`, is not).
            if !(is_id || unique_index || (near_unique && names::names_an_identifier(&f.name))) {
                continue;
            }
            let Some(t) = sample_key(ci, c, f, family, unique_index) else {
                continue;
            };
            out.push(t);
        }
    }
    out
}

fn sample_key(
    ci: usize,
    c: &CollectionView<'_>,
    f: &FieldProfile,
    family: Family,
    unique_index: bool,
) -> Option<TargetKey> {
    let mut seen = HashSet::new();
    let mut numbers = Vec::new();
    let mut oid_span: Option<(u32, u32, usize)> = None;
    let mut duplicate = None;
    let (mut keys, mut not_keys) = (0u64, 0u64);
    for d in c.docs {
        let Some(el) = extract::top(d, &f.path) else {
            continue;
        };
        if family_of(el.ty) != Some(family) {
            continue;
        }
        if !is_key_value(&el) {
            not_keys += 1;
            continue;
        }
        let Some(k) = value::of_element(&el) else {
            continue;
        };
        keys += 1;
        if let Some(x) = k.as_f64() {
            numbers.push(x);
        }
        if let ValueKey::Oid(b) = &k {
            let at = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            oid_span = Some(
                oid_span.map_or((at, at, 0), |(lo, hi, n): (u32, u32, usize)| {
                    (lo.min(at), hi.max(at), n)
                }),
            );
            if let Some(span) = oid_span.as_mut() {
                span.2 += 1;
            }
        }
        if !seen.insert(k) && duplicate.is_none() {
            duplicate = crate::profile::value_of(&el);
        }
    }
    if keys == 0 || (keys as f64) < MIN_FAMILY_SHARE * (keys + not_keys) as f64 {
        return None;
    }
    numbers.sort_by(f64::total_cmp);
    numbers.dedup();
    let kept = c.docs.len().max(1) as f64;
    let distinct = if c.complete {
        seen.len() as f64
    } else {
        let scale = c.documents.map_or(1.0, |d| (d as f64 / kept).max(1.0));
        seen.len() as f64 * scale
    };
    Some(TargetKey {
        coll: ci,
        key: f.path.clone(),
        family,
        unique_index,
        coll_stem: stem(c.name),
        key_stem: stem(&f.path),
        coll_words: names::collection_words(c.name),
        people: names::holds_people(&names::collection_words(c.name)),
        seen,
        numbers,
        oid_span,
        duplicate,
        distinct,
        complete: c.complete,
    })
}

/// Proposes candidate reference fields: every field of a key's family
/// (ObjectIds, integers, short strings) in a database that has a key of
/// that family, outside recorded queries and updates.
pub fn candidates(colls: &[CollectionView<'_>], targets: &[TargetKey]) -> Vec<Candidate> {
    (0..colls.len())
        .flat_map(|ci| candidates_of(ci, colls, targets))
        .collect()
}

/// The candidate reference fields of collection `ci` ([`candidates`]).
pub(crate) fn candidates_of(
    ci: usize,
    colls: &[CollectionView<'_>],
    targets: &[TargetKey],
) -> Vec<Candidate> {
    let mut out = Vec::new();
    let c = &colls[ci];
    {
        let mut order: Option<Vec<usize>> = None;
        let profile = c.profile.get();
        let shape = evidence::Shape::of(&profile);
        let prefix = column_prefix_of(&profile);
        for f in &profile.fields {
            if f.segments == [Seg::Key("_id".into())] {
                continue;
            }
            let Some((mut family, share, mut convert)) = reference_family(f) else {
                continue;
            };
            if share < MIN_FAMILY_SHARE && !convert {
                continue;
            }
            let structure = shape.structure(&f.segments);
            // Outside the places documents keep references, only values
            // can show a reference, and one value cannot.
            let distinct = f.distinct.map_or(u64::MAX, |d| d.estimate);
            if structure == Structure::Operator
                || (structure != Structure::Held && distinct < evidence::MIN_FOUND)
            {
                continue;
            }
            if family == Family::String {
                // Strings alone that all convert: ObjectIds or numbers
                // written as text, compared as what they convert to.
                let order = order.get_or_insert_with(|| read_order(c.docs));
                if let Some(to) = converts_to(c.docs, order, &f.segments) {
                    family = to;
                    convert = true;
                }
            }
            let dotted = query_path(&f.segments);
            let has_target = targets.iter().any(|t| {
                t.family == family && colls[t.coll].db == c.db && !(t.coll == ci && t.key == dotted)
            });
            if !has_target {
                continue;
            }
            let Some((name, stem)) = names(&f.segments) else {
                continue;
            };
            let order = order.get_or_insert_with(|| read_order(c.docs));
            let Some(refs) = References::sample(c.docs, order, &f.segments, family, convert) else {
                continue;
            };
            // Values that cannot identify anything are never references,
            // whatever their name: a constant, or a field nearly constant
            // (a version counter, a flag, an enumeration used one way) —
            // fewer than two values' worth of information. ObjectIds
            // identify by what they are; two different ones are enough.
            // A field whose name links it to a collection may still be a
            // reference to a small lookup table used mostly one way
            // (`MediaTypeId`: nine tracks in ten of one type): such fields
            // stay, for their names alone to decide.
            if (refs.keys.len() as u64) < evidence::MIN_FOUND {
                continue;
            }
            let informative =
                family == Family::ObjectId || refs.effective_values() >= MIN_EFFECTIVE_VALUES;
            // A field holding its own document's `_id` (a map-reduce
            // output's `value.id`) is that document's identity again.
            if holds_own_id(c.docs, &f.segments) {
                continue;
            }
            let near_unique = f
                .distinct
                .is_some_and(|d| d.estimate as f64 >= NEAR_UNIQUE * f.values.max(1) as f64);
            out.push(Candidate {
                chance: evidence::ChanceBasis::of(family, &refs.keys),
                coll: ci,
                path: f.path.clone(),
                segments: f.segments.clone(),
                family,
                referent: referent_of(&f.segments, prefix.as_deref()),
                name,
                stem,
                structure,
                near_unique,
                informative,
                refs,
            });
        }
    }
    out
}

/// What the name says about the target.
pub(crate) fn affinity(cand: &Candidate, target: &TargetKey) -> Option<Affinity> {
    if cand.stem == target.coll_stem {
        Some(Affinity::Collection)
    } else if target.key != "_id" && cand.stem == target.key_stem {
        Some(Affinity::Key)
    } else {
        None
    }
}

/// The share of the candidate's probed values expected to be target keys
/// by chance.
pub(crate) fn chance_rate(cand: &Candidate, target: &TargetKey) -> f64 {
    cand.chance.rate(&target.numbers, target.distinct)
}

/// A candidate and a target key that may be a reference, before probing.
#[derive(Clone, Debug)]
pub struct Pair {
    pub cand: usize,
    pub target: usize,
    pub name: Option<Affinity>,
    /// How the field's name links it to the target collection.
    pub link: Option<names::Link>,
    pub chance: f64,
    /// The candidate's ObjectIds lie, for the most part, within the clock
    /// span of the target's kept ids (always true of other families): a
    /// reference names documents minted in its target's lifetime.
    pub in_span: bool,
    /// The target's kept sample holds some of the candidate's values.
    pub seen: bool,
    /// The target's kept sample holds every key: the pair is answered
    /// from it, with no probe (and takes nothing of the probe budget).
    pub local: bool,
}

/// Why a pair is not probed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Different families or databases, or the key itself.
    Incompatible,
    /// A near-unique field and a same-named key of another collection: the
    /// same attribute of the same entities kept twice, not a reference.
    SameAttribute,
    /// No probe result could make it a reference (low-information values
    /// and neither name nor structure).
    Uninformative,
    /// The target's kept sample already shows it is not one.
    BySample,
    /// A field of the target's own collection whose values match the key
    /// of the document holding them: a document naming itself (`password`
    /// equal to `userName`), not a reference.
    SameDocument,
}

/// Decides whether a pair is worth a probe; `local` is what the target's
/// kept sample holds of the candidate's values ([`KeyIndex::tallies`]).
///
/// A pair is worth one when its values could prove a reference (chance
/// cannot explain a full match), or when its name links the field to the
/// target (where values cannot tell, the name is the evidence). A pair the
/// target's kept sample already answers is answered from it: kept when
/// some value was found (a reference, or one class of a polymorphic
/// reference), skipped when none was.
pub(crate) fn pair(
    ci: usize,
    cand: &Candidate,
    ti: usize,
    target: &TargetKey,
    colls: &[CollectionView<'_>],
    local: Tally,
) -> Result<Pair, Skip> {
    if cand.family != target.family
        || colls[cand.coll].db != colls[target.coll].db
        || (cand.coll == target.coll && query_path(&cand.segments) == target.key)
    {
        return Err(Skip::Incompatible);
    }
    let name = affinity(cand, target);
    if cand.family != Family::ObjectId
        && target.key != "_id"
        && cand.near_unique
        && cand.name.eq_ignore_ascii_case(&target.key)
        && name != Some(Affinity::Collection)
    {
        return Err(Skip::SameAttribute);
    }
    let values = cand.refs.keys.len() as u64;
    // Nothing found in a kept sample that holds every key, or in one large
    // enough to show a reference: no probe can accept the pair (a rate of
    // 0 is below both acceptance rates, asserted below).
    if local.found == 0 && (target.complete || expected_in_sample(values, target, colls) >= 3.0) {
        return Err(Skip::BySample);
    }
    let link = link_of(cand, target, colls);
    let chance = if cand.informative {
        chance_rate(cand, target)
    } else {
        1.0
    };
    if !Evidence::reachable(chance, values, cand.structure)
        && (link.is_none() || cand.structure != Structure::Held || values < evidence::MIN_FOUND)
    {
        return Err(Skip::Uninformative);
    }
    if cand.coll == target.coll && names_own_document(cand, target, colls) {
        return Err(Skip::SameDocument);
    }
    Ok(Pair {
        cand: ci,
        target: ti,
        name,
        link,
        chance,
        in_span: in_span(cand, target),
        seen: local.found > 0,
        local: target.complete,
    })
}

/// How the candidate's name links it to the target's collection: by the
/// collection's name (exact, at the tail, abbreviated; any key), or, for
/// an `_id`, by a person's role (the people of another collection) or a
/// hierarchy (its own collection, when that holds people or the name says
/// `parent`).
pub(crate) fn link_of(
    cand: &Candidate,
    target: &TargetKey,
    colls: &[CollectionView<'_>],
) -> Option<names::Link> {
    if let Some(l) = names::link(&cand.referent, &target.coll_words) {
        return Some(l);
    }
    if target.key != "_id" {
        return None;
    }
    let own = target.coll == cand.coll;
    let own_people = names::holds_people(&names::collection_words(colls[cand.coll].name));
    let hierarchy = names::is_hierarchy(&cand.referent)
        && (own_people || cand.referent.iter().any(|w| w == "parent"));
    if hierarchy {
        return own.then_some(names::Link::Role);
    }
    (names::is_person_role(&cand.referent) && target.people && !own).then_some(names::Link::Role)
}

/// Kept target ids below which a clock span says nothing.
const MIN_SPAN_KEYS: usize = 20;

/// Whether at least half the candidate's ObjectIds were minted within the
/// clock span of the target's kept ids. A sample of `k` ids misses the
/// span's two ends by about `2 / (k + 1)` of the collection, so a
/// reference's values lie inside with that share at least; values minted
/// elsewhere in time name other documents. Orders the probes only: it
/// decides nothing.
pub(crate) fn in_span(cand: &Candidate, target: &TargetKey) -> bool {
    let Some((lo, hi, n)) = target.oid_span else {
        return true;
    };
    if cand.family != Family::ObjectId || n < MIN_SPAN_KEYS || cand.refs.keys.is_empty() {
        return true;
    }
    let inside = cand
        .refs
        .keys
        .iter()
        .filter(|k| match k {
            ValueKey::Oid(b) => (lo..=hi).contains(&u32::from_be_bytes([b[0], b[1], b[2], b[3]])),
            _ => false,
        })
        .count();
    2 * inside >= cand.refs.keys.len()
}

/// Share of the candidate's probed references (numbers) inside the range
/// of the target's kept keys; `None` for other families.
pub(crate) fn in_range(cand: &Candidate, target: &TargetKey) -> Option<f64> {
    if cand.family != Family::Number || cand.refs.total == 0 {
        return None;
    }
    let (Some(&lo), Some(&hi)) = (target.numbers.first(), target.numbers.last()) else {
        return Some(0.0);
    };
    let inside: u64 = cand
        .refs
        .keys
        .iter()
        .zip(&cand.refs.weights)
        .filter(|(k, _)| k.as_f64().is_some_and(|v| (lo..=hi).contains(&v)))
        .map(|(_, w)| w)
        .sum();
    Some(inside as f64 / cand.refs.total as f64)
}

/// The evidence of a pair once its probe found `tally`, at the level of a
/// run that weighed `tests` pairs.
pub(crate) fn weigh(
    p: &Pair,
    cand: &Candidate,
    target: &TargetKey,
    tally: &Tally,
    tests: u64,
) -> Evidence {
    // Values worth less than two values cannot prove anything: a counter
    // that is 0 nine times in ten matches every table's first id.
    let chance = if cand.informative {
        cand.chance
            .rate_found(&target.numbers, target.distinct, tally.values, tally.found)
    } else {
        1.0
    };
    Evidence::weigh(evidence::Weighing {
        chance_rate: chance,
        values: tally.values,
        found: tally.found,
        reference_rate: tally.rate(),
        name: p.name,
        link: p.link,
        in_range: in_range(cand, target),
        structure: cand.structure,
        tests,
        identity: cand.segments.len() > 1 && cand.name == "_id",
    })
}

// A rate of 0 is below the acceptance rate: a pair with nothing found is
// never accepted (`pair` relies on it).
const _: () = assert!(evidence::MIN_MATCH_EVIDENCED > 0.0);

/// Whether most of a field's references, in the kept documents, equal the
/// target key of the very document holding them.
fn names_own_document(cand: &Candidate, target: &TargetKey, colls: &[CollectionView<'_>]) -> bool {
    let (mut refs, mut own) = (0u64, 0u64);
    for d in colls[cand.coll].docs {
        let key = extract::top(d, &target.key).and_then(|e| value::of_element(&e));
        for el in extract::values(d, &cand.segments) {
            let Some(v) = value::of_element(&el) else {
                continue;
            };
            refs += 1;
            if key.as_ref() == Some(&v) {
                own += 1;
            }
        }
    }
    refs > 0 && 2 * own >= refs
}

/// Values of `values` probed that a target's kept sample should show if
/// the pair were a reference found at the least accepted rate: each found
/// value shows there with the sample's share of documents.
fn expected_in_sample(values: u64, target: &TargetKey, colls: &[CollectionView<'_>]) -> f64 {
    let kept = colls[target.coll].docs.len() as f64;
    let share = colls[target.coll]
        .documents
        .map_or(1.0, |d| (kept / d.max(1) as f64).min(1.0));
    evidence::MIN_MATCH_EVIDENCED * values as f64 * share
}

/// Every target key's kept values, by hash: which targets' samples hold a
/// candidate's values, found in one pass over the candidate's values
/// instead of one per target.
pub struct KeyIndex {
    /// `(hash of a key, target)`, sorted.
    entries: Vec<(u64, u32)>,
}

fn key_hash(k: &ValueKey) -> u64 {
    use std::hash::BuildHasher;
    std::hash::BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default()
        .hash_one(k)
}

impl KeyIndex {
    pub fn new(targets: &[TargetKey]) -> KeyIndex {
        let mut entries: Vec<(u64, u32)> = targets
            .iter()
            .enumerate()
            .flat_map(|(ti, t)| t.seen.iter().map(move |k| (key_hash(k), ti as u32)))
            .collect();
        entries.sort_unstable();
        KeyIndex { entries }
    }

    /// For every target whose kept sample holds some of `refs`' values, in
    /// ascending order of target, what [`References::tally`] against its
    /// `seen` gives.
    pub fn tallies(&self, refs: &References, targets: &[TargetKey]) -> Vec<(usize, Tally)> {
        // Each value found, as (target, value), then summed per target:
        // sorting the few hits costs less than a map entry per hit.
        let mut hits: Vec<(u32, u32)> = Vec::new();
        for (i, k) in refs.keys.iter().enumerate() {
            let h = key_hash(k);
            let from = self.entries.partition_point(|e| e.0 < h);
            for &(_, ti) in self.entries[from..].iter().take_while(|e| e.0 == h) {
                if targets[ti as usize].seen.contains(k) {
                    hits.push((ti, u32::try_from(i).unwrap_or(u32::MAX)));
                }
            }
        }
        hits.sort_unstable();
        let empty = refs.empty_tally();
        let mut out: Vec<(usize, Tally)> = Vec::new();
        for (ti, i) in hits {
            let ti = ti as usize;
            let i = i as usize;
            if out.last().is_none_or(|(last, _)| *last != ti) {
                out.push((ti, empty));
            }
            if let Some((_, t)) = out.last_mut() {
                t.found += 1;
                t.references_found += refs.weights.get(i).copied().unwrap_or(0);
                t.converted_found += refs.converted.get(i).copied().unwrap_or(0);
            }
        }
        out
    }

    /// The tally of `refs` against target `ti`, from [`KeyIndex::tallies`].
    pub fn tally_of(tallies: &[(usize, Tally)], refs: &References, ti: usize) -> Tally {
        match tallies.binary_search_by_key(&ti, |(i, _)| *i) {
            Ok(at) => tallies[at].1,
            Err(_) => refs.empty_tally(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Profile, Profiler};
    use crate::source::CollectionMeta;
    use bson::{doc, Document};

    /// A collection as the audit would hand it over: profiled, every
    /// document kept.
    struct Coll {
        name: &'static str,
        profile: Profile,
        docs: Vec<Vec<u8>>,
        meta: CollectionMeta,
    }

    fn coll(name: &'static str, docs: &[Document]) -> Coll {
        let mut p = Profiler::default();
        let mut raw = Vec::new();
        for d in docs {
            let mut v = Vec::new();
            d.to_writer(&mut v).expect("serialise");
            p.add(&v).expect("valid document");
            raw.push(v);
        }
        Coll {
            name,
            profile: p.finish(),
            docs: raw,
            meta: CollectionMeta::new("db", name),
        }
    }

    static NO_GROWTH: crate::growth::ByPath = std::collections::BTreeMap::new();

    fn views(colls: &[Coll]) -> Vec<CollectionView<'_>> {
        colls
            .iter()
            .map(|c| CollectionView {
                db: "db",
                name: c.name,
                profile: crate::profile::shelf::ProfileRef::here(&c.profile),
                docs: &c.docs,
                indexes: &[],
                growth: &NO_GROWTH,
                documents: Some(c.docs.len() as u64),
                meta: &c.meta,
                complete: true,
            })
            .collect()
    }

    /// The pure verdict on `from.path → to.key`, as the kept samples
    /// (every document) answer the probe.
    fn judge(
        colls: &[Coll],
        from: &str,
        path: &str,
        to: &str,
        key: &str,
    ) -> Result<Evidence, Skip> {
        let v = views(colls);
        let targets = target_keys(&v);
        let cands = candidates(&v, &targets);
        let ti = targets
            .iter()
            .position(|t| v[t.coll].name == to && t.key == key)
            .unwrap_or_else(|| panic!("{to}.{key} is not a key"));
        let Some(ci) = cands
            .iter()
            .position(|c| v[c.coll].name == from && c.path == path)
        else {
            return Err(Skip::Uninformative);
        };
        let t = cands[ci].refs.tally(&targets[ti].seen);
        let p = pair(ci, &cands[ci], ti, &targets[ti], &v, t)?;
        Ok(weigh(&p, &cands[ci], &targets[ti], &t, 1))
    }

    /// The references chosen over these collections, as the kept samples
    /// (every document) answer every probe: `coll.path → coll.key`, sorted.
    fn chosen(colls: &[Coll]) -> Vec<String> {
        let v = views(colls);
        let targets = target_keys(&v);
        let cands = candidates(&v, &targets);
        let mut scored = Vec::new();
        for (ci, c) in cands.iter().enumerate() {
            for (ti, t) in targets.iter().enumerate() {
                let tally = c.refs.tally(&t.seen);
                let Ok(p) = pair(ci, c, ti, t, &v, tally) else {
                    continue;
                };
                if tally.found == 0 {
                    continue;
                }
                let hits = c
                    .refs
                    .keys
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| t.seen.contains(*k))
                    .map(|(i, _)| i as u32)
                    .collect();
                scored.push(super::super::choice::Scored {
                    cand: ci,
                    target: ti,
                    evidence: weigh(&p, c, t, &tally, 1),
                    tally,
                    hits,
                });
            }
        }
        let mut out: Vec<String> = super::super::choice::choose(&scored, &cands, &targets, &v)
            .iter()
            .flat_map(|ch| {
                ch.members.iter().map(|m| {
                    let t = &targets[m.target];
                    format!(
                        "{}.{} → {}.{}",
                        v[cands[ch.cand].coll].name, cands[ch.cand].path, v[t.coll].name, t.key
                    )
                })
            })
            .collect();
        out.sort();
        out
    }

    fn owners(n: i32) -> Vec<Document> {
        (1..=n)
            .map(|i| doc! {"_id": i, "label": format!("x{i}")})
            .collect()
    }

    #[test]
    fn match_rate_counts_references() {
        type Case = (Vec<Document>, (u64, u64), (u64, u64));
        let found: HashSet<ValueKey> = [1, 2, 3]
            .iter()
            .filter_map(|&i| value::of_bson(&bson::Bson::Int32(i)))
            .collect();
        // (documents, distinct found/probed, references found/probed)
        let cases: Vec<Case> = vec![
            (
                [1, 1, 1, 1, 2, 2, 3, 9, 9, 9]
                    .iter()
                    .map(|&i| doc! {"x": i})
                    .collect(),
                (3, 4),
                (7, 10),
            ),
            // Array elements are references, each one.
            (
                vec![doc! {"x": [1, 2]}, doc! {"x": [2, 9]}, doc! {"y": 1}],
                (2, 3),
                (3, 4),
            ),
            // Numbers of any width; a long 2 is the int 2.
            (
                vec![doc! {"x": 2_i64}, doc! {"x": 2.0}, doc! {"x": 7}],
                (1, 2),
                (2, 3),
            ),
            // Documents without the field hold no reference.
            (
                vec![doc! {"x": 1}, doc! {}, doc! {"x": null}],
                (1, 1),
                (1, 1),
            ),
        ];
        for (docs, (found_values, values), (refs_found, refs)) in cases {
            let c = coll("c", &docs);
            let segs = if docs.iter().any(|d| d.get_array("x").is_ok()) {
                vec![Seg::Key("x".into()), Seg::Elem]
            } else {
                vec![Seg::Key("x".into())]
            };
            let r = References::sample(&c.docs, &read_order(&c.docs), &segs, Family::Number, false)
                .expect("references");
            let t = r.tally(&found);
            assert_eq!(
                (t.found, t.values, t.references_found, t.references),
                (found_values, values, refs_found, refs),
                "{docs:?}"
            );
        }
        // Reading stops once PROBE_VALUES distinct values were met.
        let c = coll("c", &(0..300).map(|i| doc! {"x": i}).collect::<Vec<_>>());
        let r = References::sample(
            &c.docs,
            &read_order(&c.docs),
            &[Seg::Key("x".into())],
            Family::Number,
            false,
        )
        .expect("references");
        assert_eq!((r.keys.len(), r.total), (PROBE_VALUES, PROBE_VALUES as u64));
        // Fractional numbers are measurements, not keys.
        let c = coll(
            "c",
            &(0..50)
                .map(|i| doc! {"x": f64::from(i) + 0.5})
                .collect::<Vec<_>>(),
        );
        assert!(References::sample(
            &c.docs,
            &read_order(&c.docs),
            &[Seg::Key("x".into())],
            Family::Number,
            false
        )
        .is_none());
    }

    /// Logged queries of a school's database: small ints that are student
    /// ids, inside query documents of many shapes.
    fn school_log() -> Vec<Document> {
        (0..600)
            .map(|i: i32| {
                let k = (i * 37) % 200;
                match i % 6 {
                    0 => doc! {"ts": i, "op": "query", "q": {"student_id": k}},
                    1 => doc! {"ts": i, "op": "query", "q": {"name": format!("s{k}")}},
                    2 => doc! {"ts": i, "op": "query", "q": {"$or": [{"student_id": k}, {"class_id": k % 7}]}},
                    3 => doc! {"ts": i, "op": "update", "q": {"student_id": k}, "u": {"$inc": {"score": 1}}},
                    4 => doc! {"ts": i, "op": "command", "command": {"find": "students", "filter": {"student_id": k, "year": 2024}}},
                    _ => doc! {"ts": i, "op": "insert", "ninserted": 1},
                }
            })
            .collect()
    }

    #[test]
    fn the_chance_test() {
        let students: Vec<Document> = (0..200)
            .map(|i| doc! {"_id": i, "name": format!("s{i}")})
            .collect();
        // owner_id → owners._id: 950 references to 100 parents, 50 to parents that
        // do not exist (each a different missing id): 95 % of references
        // match, two thirds of the distinct values.
        let mut children: Vec<Document> = (0..950)
            .map(|i| doc! {"_id": i, "owner_id": i % 100 + 1})
            .collect();
        children.extend((0..50).map(|i| doc! {"_id": 1000 + i, "owner_id": 101 + i}));
        let users: Vec<Document> = (0..185)
            .map(|i| doc! {"_id": bson::oid::ObjectId::new(), "name": format!("User Number {i}"), "email": format!("user.{i}@example.com")})
            .collect();
        let comments: Vec<Document> = (0..1000)
            .map(|i| doc! {"_id": i, "name": format!("User Number {}", i % 185), "email": format!("user.{}@example.com", i % 185), "text": "fine"})
            .collect();
        // A counter and a rank as dense as the ids they could be taken for.
        let games: Vec<Document> = (0..300)
            .map(|i| doc! {"_id": i, "score": (i * 7) % 200, "owner": i % 100 + 1})
            .collect();
        let colls = [
            coll("students", &students),
            coll("log", &school_log()),
            coll("owners", &owners(100)),
            coll("children", &children),
            coll("users", &users),
            coll("comments", &comments),
            coll("games", &games),
        ];
        // (from, path, to, key, accepted by)
        let cases: &[(&str, &str, &str, &str, Option<&str>)] = &[
            ("log", "q.student_id", "students", "_id", None),
            ("log", "q.$or[].student_id", "students", "_id", None),
            ("log", "command.filter.student_id", "students", "_id", None),
            // Named after owners, small ints where every integer is an
            // owner's id: the values cannot tell, the name is the evidence,
            // and the values do not contradict it (95 % of the references
            // found, the rest dangling).
            (
                "children",
                "owner_id",
                "owners",
                "_id",
                Some("name-and-values"),
            ),
            ("comments", "email", "users", "email", Some("values")),
            // People's names are words: a vocabulary both fields draw
            // from explains any overlap.
            ("comments", "name", "users", "name", None),
            ("games", "score", "students", "_id", None),
            ("games", "owner", "owners", "_id", Some("name-and-values")),
        ];
        for &(from, path, to, key, want) in cases {
            let got = judge(&colls, from, path, to, key);
            assert_eq!(
                got.as_ref().ok().and_then(|e| e.accepted_by),
                want,
                "{from}.{path} → {to}.{key}: {got:?}"
            );
        }
        // Two thirds of the values found where two thirds would be found by
        // chance: the values alone say nothing.
        let e = judge(&colls, "children", "owner_id", "owners", "_id").expect("probed");
        assert!(!e.by_values && e.in_range == Some(0.95), "{e:?}");
        // A name the values contradict: most references beyond the key's
        // range.
        let strays: Vec<Document> = (0..100)
            .map(|i| doc! {"_id": i, "owner_id": if i < 20 { i % 10 + 1 } else { 500 + i }})
            .collect();
        let colls2 = [coll("owners", &owners(100)), coll("strays", &strays)];
        assert_eq!(
            judge(&colls2, "strays", "owner_id", "owners", "_id")
                .ok()
                .and_then(|e| e.accepted_by),
            None
        );
        let e = judge(&colls, "comments", "email", "users", "email").expect("accepted");
        assert!(e.chance_rate < 1e-20 && e.p_value < 1e-100, "{e:?}");
        // Small ints in logged queries: no probe result could tell.
        assert_eq!(
            judge(&colls, "log", "q.student_id", "students", "_id"),
            Err(Skip::Uninformative)
        );
    }

    #[test]
    fn structure_of_logged_queries() {
        let c = coll("log", &school_log());
        let shape = evidence::Shape::of(&c.profile);
        let seg = |p: &str| -> Vec<Seg> {
            c.profile
                .fields
                .iter()
                .find(|f| f.path == p)
                .expect(p)
                .segments
                .clone()
        };
        assert_eq!(
            shape.structure(&seg("q.student_id")),
            Structure::Heterogeneous
        );
        assert_eq!(
            shape.structure(&seg("q.$or[].student_id")),
            Structure::Operator
        );
        assert_eq!(
            shape.structure(&seg("command.filter.student_id")),
            Structure::Deep
        );
        assert_eq!(shape.structure(&seg("ts")), Structure::Held);
        let orders = coll(
            "orders",
            &(0..20)
                .map(|i| doc! {"customer": {"id": i, "name": "n"}, "items": [{"product_id": i, "qty": 1}], "note": if i % 2 == 0 { "x" } else { "y" }})
                .collect::<Vec<_>>(),
        );
        let shape = evidence::Shape::of(&orders.profile);
        for p in ["customer.id", "items[].product_id"] {
            let s = orders.profile.fields.iter().find(|f| f.path == p).expect(p);
            assert_eq!(shape.structure(&s.segments), Structure::Held, "{p}");
        }
    }

    #[test]
    fn copies_riding_along_a_reference_are_dropped() {
        let customers: Vec<Document> = (0..40)
            .map(|i| doc! {"_id": bson::oid::ObjectId::new(), "name": format!("Customer Name {i}"), "email": format!("c{i}@example.com")})
            .collect();
        let orders: Vec<Document> = (0..200)
            .map(|i| {
                let c = &customers[i % 40];
                doc! {"customer_id": c.get_object_id("_id").expect("oid"), "customer": {"name": c.get_str("name").expect("name"), "email": c.get_str("email").expect("email")}}
            })
            .collect();
        let comments: Vec<Document> = (0..200)
            .map(|i| {
                let c = &customers[(i * 7) % 40];
                doc! {"name": c.get_str("name").expect("name"), "email": c.get_str("email").expect("email")}
            })
            .collect();
        let colls = [
            coll("customers", &customers),
            coll("orders", &orders),
            coll("comments", &comments),
        ];
        // The deployment references customers by `_id`: the copied name
        // and e-mail ride along it, and the comments' e-mails are an
        // attribute of the same people, not a second way to reference them.
        assert_eq!(chosen(&colls), ["orders.customer_id → customers._id"]);
        // Where nothing references customers by `_id`, the comments name
        // them by e-mail (a code: its values prove it); the names are words
        // and prove nothing.
        let colls = [coll("customers", &customers), coll("comments", &comments)];
        assert_eq!(chosen(&colls), ["comments.email → customers.email"]);
    }

    #[test]
    fn the_same_attribute_twice_is_not_a_reference() {
        // Two collections that both hold the same titles one to one: a
        // title is no identifier, and words prove nothing.
        let movies: Vec<Document> = (0..50)
            .map(|i| doc! {"_id": i, "title": format!("Title {i}")})
            .collect();
        let picks: Vec<Document> = (0..30)
            .map(|i| doc! {"_id": 1000 + i, "title": format!("Title {i}")})
            .collect();
        let colls = [coll("movies", &movies), coll("picks", &picks)];
        assert!(chosen(&colls).is_empty(), "{:?}", chosen(&colls));
        // Codes named alike, unique in both: the same attribute kept
        // twice, never probed.
        let movies: Vec<Document> = (0..50)
            .map(|i| doc! {"_id": i, "imdb_id": format!("tt{:07}", 1000 + i)})
            .collect();
        let picks: Vec<Document> = (0..30)
            .map(|i| doc! {"_id": 1000 + i, "imdb_id": format!("tt{:07}", 1000 + i)})
            .collect();
        let colls = [coll("movies", &movies), coll("picks", &picks)];
        assert_eq!(
            judge(&colls, "picks", "imdb_id", "movies", "imdb_id"),
            Err(Skip::SameAttribute)
        );
    }

    /// Ids whose clock runs with `i`, as a server mints them.
    fn oid(i: u32) -> bson::oid::ObjectId {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&(1_600_000_000 + i * 60).to_be_bytes());
        b[8..].copy_from_slice(&i.to_be_bytes());
        bson::oid::ObjectId::from_bytes(b)
    }

    #[test]
    fn a_key_that_references_another_collection_is_nobodys_target() {
        // Profiles hold their user's id, one each; posts hold their
        // author's: the same ObjectIds are in users._id and in
        // profiles.userId, and the posts' parent is the users.
        let users: Vec<Document> = (0..30)
            .map(|i| doc! {"_id": oid(i), "login": format!("u{i}")})
            .collect();
        let profiles: Vec<Document> = (0..30)
            .map(|i| doc! {"_id": oid(1000 + i), "userId": oid(i), "bio": "b"})
            .collect();
        let posts: Vec<Document> = (0..90)
            .map(|i| doc! {"_id": oid(2000 + i), "author": oid(i % 30)})
            .collect();
        let colls = [
            coll("users", &users),
            coll("profiles", &profiles),
            coll("posts", &posts),
        ];
        assert_eq!(
            chosen(&colls),
            ["posts.author → users._id", "profiles.userId → users._id"]
        );
    }

    #[test]
    fn a_discriminator_splits_a_polymorphic_reference() {
        let articles: Vec<Document> = (0..10).map(|i| doc! {"_id": oid(i), "t": "a"}).collect();
        let comments: Vec<Document> = (0..20)
            .map(|i| doc! {"_id": oid(100 + i), "t": "c"})
            .collect();
        let likes: Vec<Document> = (0..40)
            .map(|i| {
                if i % 4 == 0 {
                    doc! {"_id": oid(500 + i), "parentId": oid(i % 10), "parentType": "ARTICLE"}
                } else {
                    doc! {"_id": oid(500 + i), "parentId": oid(100 + i % 20), "parentType": "COMMENT"}
                }
            })
            .collect();
        let colls = [
            coll("articles", &articles),
            coll("comments", &comments),
            coll("likes", &likes),
        ];
        assert_eq!(
            chosen(&colls),
            [
                "likes.parentId → articles._id",
                "likes.parentId → comments._id"
            ]
        );
        // Twin collections and no discriminator: the values alone split.
        let twins: Vec<Document> = (0..40)
            .map(|i| {
                let to = if i % 2 == 0 {
                    oid(i % 10)
                } else {
                    oid(100 + i % 20)
                };
                doc! {"_id": oid(500 + i), "interactionId": to}
            })
            .collect();
        let colls = [
            coll("aichats", &articles),
            coll("aiintegrations", &comments),
            coll("credits", &twins),
        ];
        assert_eq!(
            chosen(&colls),
            [
                "credits.interactionId → aichats._id",
                "credits.interactionId → aiintegrations._id"
            ]
        );
    }

    #[test]
    fn chance_free_matches_prove_a_mostly_dangling_reference() {
        // 5 of 55 payments name a booking that still exists; the others
        // were deleted. ObjectIds do not match by chance.
        let bookings: Vec<Document> = (0..4).map(|i| doc! {"_id": oid(i)}).collect();
        let payments: Vec<Document> = (0..55)
            .map(|i| {
                let b = if i < 5 { oid(i % 3) } else { oid(900 + i) };
                doc! {"_id": oid(1000 + i), "bookingId": b}
            })
            .collect();
        let colls = [coll("bookings", &bookings), coll("payments", &payments)];
        assert_eq!(chosen(&colls), ["payments.bookingId → bookings._id"]);
    }

    #[test]
    fn hex_strings_are_compared_as_the_ids_they_write() {
        let users: Vec<Document> = (0..8).map(|i| doc! {"_id": oid(i)}).collect();
        let entries: Vec<Document> = (0..60)
            .map(|i| doc! {"_id": oid(100 + i), "user_id": oid(i % 8).to_hex()})
            .collect();
        let colls = [coll("users", &users), coll("entries", &entries)];
        assert_eq!(chosen(&colls), ["entries.user_id → users._id"]);
        let v = views(&colls);
        let targets = target_keys(&v);
        let c = candidates(&v, &targets)
            .into_iter()
            .find(|c| c.path == "user_id")
            .expect("a candidate");
        assert_eq!(c.family, Family::ObjectId);
        assert_eq!(c.refs.converted.iter().sum::<u64>(), 60);
    }

    #[test]
    fn names_decide_where_values_are_dense() {
        // SQL ids as they are: every small integer is a key of every
        // table; the names say which.
        let ints = |n: i32| -> Vec<Document> { (1..=n).map(|i| doc! {"_id": i}).collect() };
        let employees: Vec<Document> = (1..=8)
            .map(|i| {
                let mut d = doc! {"_id": i, "LastName": format!("n{i}")};
                if i > 1 {
                    d.insert("ReportsTo", if i < 3 { 1 } else { 2 });
                }
                d
            })
            .collect();
        let customers: Vec<Document> = (1..=59)
            .map(|i| doc! {"_id": i, "SupportRepId": 3 + i % 3, "Company": format!("c{i}")})
            .collect();
        let tracks: Vec<Document> = (1..=300)
            .map(|i| {
                doc! {"_id": i, "AlbumId": 1 + i % 40, "MediaTypeId": if i % 9 == 0 { 2 } else { 1 }, "Milliseconds": 200_000 + i * 37, "Bytes": 3_000_000 + i * 1_001}
            })
            .collect();
        let colls = [
            coll("Album", &ints(40)),
            coll("MediaType", &ints(5)),
            coll("Employee", &employees),
            coll("Customer", &customers),
            coll("Track", &tracks),
        ];
        assert_eq!(
            chosen(&colls),
            [
                "Customer.SupportRepId → Employee._id",
                "Employee.ReportsTo → Employee._id",
                "Track.AlbumId → Album._id",
                "Track.MediaTypeId → MediaType._id",
            ]
        );
    }

    #[test]
    fn the_key_index_tallies_as_each_targets_sample_would() {
        // Ids that overlap between collections, of both widths, strings,
        // and a long past 2^53 next to its rounded neighbour.
        let first: Vec<Document> = (0..40)
            .map(|i| doc! {"_id": i, "code": format!("c{i}")})
            .collect();
        let second: Vec<Document> = (20..60)
            .map(|i| doc! {"_id": i64::from(i), "code": format!("c{}", i * 2)})
            .collect();
        let big = (1i64 << 53) + 1;
        let bigs: Vec<Document> = vec![doc! {"_id": big}, doc! {"_id": big - 1}];
        let refs: Vec<Document> = (0..80)
            .map(|i| {
                doc! {
                    "a_id": i % 70,
                    "code": format!("c{}", i % 90),
                    "c_id": if i % 2 == 0 { big } else { big + 2 },
                    "tags": [i % 5, i % 7],
                }
            })
            .collect();
        let colls = [
            coll("a", &first),
            coll("b", &second),
            coll("c", &bigs),
            coll("refs", &refs),
        ];
        let v = views(&colls);
        let targets = target_keys(&v);
        let cands = candidates(&v, &targets);
        assert!(cands.len() >= 3 && targets.len() >= 4, "{cands:?}");
        let index = KeyIndex::new(&targets);
        let mut nonzero = 0;
        for cand in &cands {
            let tallies = index.tallies(&cand.refs, &targets);
            for (ti, t) in targets.iter().enumerate() {
                let want = cand.refs.tally(&t.seen);
                assert_eq!(
                    KeyIndex::tally_of(&tallies, &cand.refs, ti),
                    want,
                    "{} → {}.{}",
                    cand.path,
                    v[t.coll].name,
                    t.key
                );
                nonzero += usize::from(want.found > 0);
            }
        }
        assert!(nonzero >= 4, "the case has matches to count");
        // The long past 2^53 matches itself only.
        let c_id = cands.iter().find(|c| c.path == "c_id").expect("c_id");
        let to_c = targets
            .iter()
            .position(|t| v[t.coll].name == "c")
            .expect("c._id");
        let t = KeyIndex::tally_of(&index.tallies(&c_id.refs, &targets), &c_id.refs, to_c);
        assert_eq!(
            (t.values, t.found, t.references, t.references_found),
            (2, 1, 80, 40)
        );
        assert_eq!(
            c_id.refs
                .values()
                .iter()
                .filter_map(bson::Bson::as_i64)
                .collect::<Vec<_>>()
                .len(),
            2,
            "probed as longs, every digit kept"
        );
    }

    #[test]
    fn a_field_whose_values_repeat_is_no_key() {
        // Display names: 40 reviews by 25 people. Account numbers: 50, one
        // issued twice by mistake — still a key, and a duplicated one.
        let reviews: Vec<Document> = (0..40)
            .map(|i| doc! {"_id": i, "name": format!("Reviewer {}", (i * 7) % 25)})
            .collect();
        let accounts: Vec<Document> = (0..50)
            .map(|i| doc! {"_id": 100 + i, "account_no": 5_000_000 + if i == 49 { 0 } else { i * 13 }})
            .collect();
        let colls = [coll("reviews", &reviews), coll("accounts", &accounts)];
        let v = views(&colls);
        let targets = target_keys(&v);
        let keys: Vec<(&str, &str)> = targets
            .iter()
            .map(|t| (v[t.coll].name, t.key.as_str()))
            .collect();
        assert!(!keys.contains(&("reviews", "name")), "{keys:?}");
        assert!(keys.contains(&("accounts", "account_no")), "{keys:?}");
        let t = targets
            .iter()
            .find(|t| t.key == "account_no")
            .expect("account_no");
        assert!(t.duplicate.is_some());
    }

    #[test]
    fn a_name_alone_is_no_reference() {
        // The same names, the field unique in both: a count is no
        // identifier, so neither is a key, and nothing references the
        // other.
        let unique: Vec<Document> = (0..10)
            .map(|i| doc! {"_id": 100 + i, "itemCount": 1 + i})
            .collect();
        let orders: Vec<Document> = (0..20)
            .map(|i| doc! {"_id": 200 + i, "itemCount": 1 + i % 5})
            .collect();
        let colls = [coll("carts", &unique), coll("orders", &orders)];
        let v = views(&colls);
        assert!(target_keys(&v).iter().all(|t| t.key == "_id"));
        assert!(chosen(&colls).is_empty(), "{:?}", chosen(&colls));
        // Small counts named after nothing, against dense ids: neither
        // values nor names.
        let games: Vec<Document> = (0..20).map(|i| doc! {"_id": i, "score": i % 7}).collect();
        let colls = [coll("carts", &owners(10)), coll("games", &games)];
        assert!(chosen(&colls).is_empty(), "{:?}", chosen(&colls));
    }

    #[test]
    fn values_that_identify_nothing_are_never_candidates() {
        // A version counter in every document of every collection, as
        // Mongoose writes it, and a one-document collection whose `__v`
        // is trivially unique.
        let accounts: Vec<Document> = (0..50)
            .map(|i| doc! {"_id": bson::oid::ObjectId::new(), "__v": i32::from(i % 20 == 0), "name": format!("n{i}")})
            .collect();
        let settings = vec![doc! {"_id": bson::oid::ObjectId::new(), "__v": 0}];
        let colls = [coll("accounts", &accounts), coll("settings", &settings)];
        let v = views(&colls);
        let targets = target_keys(&v);
        let cands = candidates(&v, &targets);
        assert!(
            cands.iter().all(|c| c.name != "__v"),
            "{:?}",
            cands.iter().map(|c| &c.path).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_document_naming_itself_is_no_reference() {
        // `password` equal to `userName` in the same document.
        let admins: Vec<Document> = (0..40)
            .map(|i| doc! {"_id": i, "userName": format!("admin.{i}@example.org"), "password": format!("admin.{i}@example.org")})
            .collect();
        let colls = [coll("admins", &admins)];
        assert_eq!(
            judge(&colls, "admins", "password", "admins", "userName"),
            Err(Skip::SameDocument)
        );
    }

    #[test]
    fn one_reference_in_two_representations_is_found_whole() {
        // Issues naming users by ObjectId, and by its hex string in four
        // of ten: read as ObjectIds, every reference finds its user.
        let users: Vec<Document> = (0..30)
            .map(|_| doc! {"_id": bson::oid::ObjectId::new()})
            .collect();
        let issues: Vec<Document> = (0..100)
            .map(|i| {
                let id = users[i % 30].get_object_id("_id").expect("oid");
                if i % 10 < 4 {
                    doc! {"_id": i as i32, "user": {"_id": id.to_hex(), "name": "n"}}
                } else {
                    doc! {"_id": i as i32, "user": {"_id": id, "name": "n"}}
                }
            })
            .collect();
        let colls = [coll("users", &users), coll("issues", &issues)];
        let v = views(&colls);
        let targets = target_keys(&v);
        let cands = candidates(&v, &targets);
        let c = cands
            .iter()
            .find(|c| c.path == "user._id")
            .expect("a candidate in two representations");
        assert_eq!(c.family, Family::ObjectId);
        let ti = targets
            .iter()
            .position(|t| v[t.coll].name == "users")
            .expect("users._id");
        let t = c.refs.tally(&targets[ti].seen);
        assert_eq!((t.references, t.references_found), (100, 100));
        assert_eq!((t.converted, t.converted_found), (40, 40));
        let rep = crate::relate::Representations::of(c.family, &t).expect("two representations");
        assert_eq!((rep.matched_as_stored, rep.matched_converted), (60, 100));
        // Strings that are no ObjectIds are not converted, and a field of
        // them is no candidate of the ObjectId family.
        assert!(value::converted("not an id", Family::ObjectId).is_none());
        assert!(value::converted("12", Family::Number).is_some());
        assert!(value::converted("1 2", Family::Number).is_none());
    }
}
