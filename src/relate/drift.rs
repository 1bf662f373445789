//! Copies of referenced fields (an extended reference's `name` beside its
//! `id`) compared with their source document, and with each other: two
//! copies of the same reference that differ cannot both be right.

use crate::profile::extjson::Relaxed as _;
use std::collections::HashMap;

use serde::Serialize;

use crate::profile::raw::BsonType;
use crate::profile::{extract, Seg};
use crate::source::value::{self, of_bson, Family, ValueKey};

/// What the copies were compared with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DriftKind {
    /// Each copy with the referenced document.
    #[default]
    Source,
    /// Copies of the same reference with each other (for fields the
    /// referenced documents do not hold).
    BetweenCopies,
}

/// Copies of referenced fields compared with their source (or with each
/// other), measured for `denormalization-drift`.
#[derive(Clone, Debug, Default)]
pub struct DriftCheck {
    pub kind: DriftKind,
    /// The sub-document holding the copy (`customer`, `items[]`).
    pub holder: String,
    /// The reference inside it (`customer.id`).
    pub reference: String,
    /// `db.coll` the copies come from.
    pub source_ns: String,
    /// Copied field names, relative to the holder.
    pub fields: Vec<String>,
    /// Copies checked, and how many disagreed with their source (or, between
    /// copies, with the version most copies of the same reference hold).
    pub checked: u64,
    pub disagree: u64,
    /// Between copies: references with at least two copies, and those whose
    /// copies differ.
    pub groups: u64,
    pub groups_disagreeing: u64,
    /// Between copies: fields left out because they differ between the
    /// copies of most references — the holder's own data (a quantity, a
    /// date), not copies of the referenced document.
    pub own_fields: Vec<String>,
    /// Up to three disagreements: (reference value, field, copy, source or
    /// the other copies' value).
    pub examples: Vec<(String, String, String, String)>,
    /// Against the source: fields that only ever lag behind it — a date
    /// earlier, a counter lower — in every copy where they differ, with
    /// how many copies lag. A copy that keeps its source's clock (`updated`,
    /// `__v`) as it was is a snapshot taken at a moment, not a live copy
    /// that fell out of step (seed 003: a copy is a snapshot unless the
    /// design keeps it in step).
    pub snapshot: Vec<(String, u64)>,
    /// Against the source: copied fields that differ from it in at least
    /// one copy (a snapshot's fields that changed since it was taken).
    pub changed: Vec<String>,
    /// Copies whose identity names its source in another type than the
    /// source's key (an ObjectId copied as its hex string), read as that
    /// key ([`identities_as`]); and the key's `$type`, when there were any.
    pub identities_converted: u64,
    pub key_type: Option<&'static str>,
}

impl DriftCheck {
    /// The copies are a snapshot of their source at a moment.
    pub(crate) fn is_snapshot(&self) -> bool {
        !self.snapshot.is_empty()
    }
}

/// One copy: the reference's value and the sub-document holding it.
pub type Copy = (bson::Bson, bson::Document);

/// Every copy in the documents: each sub-document at `holder` that holds
/// the reference `ref_name`.
pub(crate) fn copies(docs: &[Vec<u8>], holder: &[Seg], ref_name: &str) -> Vec<Copy> {
    let mut out = Vec::new();
    for d in docs {
        for h in extract::values(d, holder) {
            if h.ty != BsonType::Object {
                continue;
            }
            let Ok(doc) = bson::Document::from_reader(h.value) else {
                continue;
            };
            if let Some(rv) = doc.get(ref_name).cloned() {
                out.push((rv, doc));
            }
        }
    }
    out
}

/// Reads each copy's identity as a value of `family`, the family of the
/// key it names (a hex string as the ObjectId it writes, a numeric string
/// as its number, and back): copies and their source are then matched by
/// one key. Returns how many identities changed type.
pub(crate) fn identities_as(copies: &mut [Copy], family: Family) -> u64 {
    let mut converted = 0;
    for (rv, _) in copies.iter_mut() {
        if value::family_of_bson(rv) == Some(family) {
            continue;
        }
        let Some(as_key) = value::key_as(rv, family).and_then(|k| k.to_bson()) else {
            continue;
        };
        if value::family_of_bson(&as_key) == Some(family) {
            *rv = as_key;
            converted += 1;
        }
    }
    converted
}

/// The `$type` a conversion to `family` writes (`$convert`'s `to`).
pub(crate) fn type_name(family: Family) -> &'static str {
    match family {
        Family::ObjectId => "objectId",
        Family::Number => "long",
        Family::String => "string",
    }
}

/// Equality as a query sees it: numbers compare across widths. A list of
/// values (a copied list of ids) equals another holding the same values,
/// in any order.
pub(crate) fn same_value(a: &bson::Bson, b: &bson::Bson) -> bool {
    match (of_bson(a), of_bson(b)) {
        (Some(x), Some(y)) => x == y,
        _ => match (a, b) {
            (bson::Bson::Array(_), bson::Bson::Array(_)) => version_key(a) == version_key(b),
            _ => a == b,
        },
    }
}

fn show(b: Option<&bson::Bson>) -> String {
    b.map_or_else(String::new, |v| v.clone().relaxed().to_string())
}

/// How a copy's value stands against its source's, for a field that
/// differs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lag {
    /// An earlier date, a lower number: the source moved on since.
    Behind,
    /// A later date, a higher number.
    Ahead,
    /// Not ordered (another type, a string).
    Other,
}

fn lag(copy: &bson::Bson, source: &bson::Bson) -> Lag {
    use bson::Bson::{DateTime, Double, Int32, Int64, Timestamp};
    let num = |b: &bson::Bson| match b {
        Int32(i) => Some(f64::from(*i)),
        Int64(i) => Some(*i as f64),
        Double(x) if x.is_finite() => Some(*x),
        _ => None,
    };
    let order = match (copy, source) {
        (DateTime(a), DateTime(b)) => Some(a.timestamp_millis().cmp(&b.timestamp_millis())),
        (Timestamp(a), Timestamp(b)) => Some((a.time, a.increment).cmp(&(b.time, b.increment))),
        _ => match (num(copy), num(source)) {
            (Some(a), Some(b)) => a.partial_cmp(&b),
            _ => None,
        },
    };
    match order {
        Some(std::cmp::Ordering::Less) => Lag::Behind,
        Some(std::cmp::Ordering::Greater) => Lag::Ahead,
        _ => Lag::Other,
    }
}

/// Whether field `f` is its source's clock: a date or timestamp, or a
/// version counter — a whole number that starts at its first version and
/// moves up by one per change, so that most documents still hold the
/// smallest value (Mongoose's `__v`, an optimistic lock's `version`). A
/// business number that happens to grow (loyalty points, a balance) is
/// spread over many values and is not a clock.
fn is_clock(f: &str, matched: &[(&bson::Bson, &bson::Document, &bson::Document)]) -> bool {
    let mut seen = std::collections::HashSet::<*const bson::Document>::new();
    let mut counts: HashMap<i64, u64> = HashMap::new();
    for (_, _, src) in matched {
        if !seen.insert(std::ptr::from_ref(*src)) {
            continue;
        }
        match src.get(f) {
            Some(bson::Bson::DateTime(_) | bson::Bson::Timestamp(_)) => return true,
            Some(bson::Bson::Int32(i)) if *i >= 0 => *counts.entry(i64::from(*i)).or_default() += 1,
            Some(bson::Bson::Int64(i)) if *i >= 0 => *counts.entry(*i).or_default() += 1,
            Some(_) => return false,
            None => {}
        }
    }
    let Some((&first, &n)) = counts.iter().min_by_key(|(v, _)| **v) else {
        return false;
    };
    counts.iter().all(|(v, c)| *v == first || *c < n)
}

/// Compares each copy with its source document (by reference value) on
/// `check.fields`; copies whose source was not found are not counted.
///
/// Only fields the copy and its source hold with one meaning are
/// compared. A field that agrees with the source in at least half the
/// copies holding it is a copy; a copy of the source's clock ([`is_clock`])
/// that lags behind the source in every copy where it differs marks the
/// copies as a snapshot ([`DriftCheck::snapshot`]); any other field that
/// differs in most copies is the holder's own (a per-chat role beside a
/// user's global role, an order line's quantity) and moves to
/// `own_fields`, uncompared.
pub(crate) fn against_source<H: std::hash::BuildHasher>(
    check: &mut DriftCheck,
    copies: &[Copy],
    sources: &HashMap<ValueKey, &bson::Document, H>,
) {
    let matched: Vec<(&bson::Bson, &bson::Document, &bson::Document)> = copies
        .iter()
        .filter_map(|(rv, h)| {
            let src = of_bson(rv).and_then(|k| sources.get(&k))?;
            Some((rv, h, *src))
        })
        .collect();
    let (groups, order) = by_reference(copies);
    let fields = std::mem::take(&mut check.fields);
    for f in fields {
        let (mut held, mut agree, mut behind, mut ahead, mut other) =
            (0u64, 0u64, 0u64, 0u64, 0u64);
        for (_, h, src) in &matched {
            let (Some(a), Some(b)) = (h.get(f.as_str()), src.get(f.as_str())) else {
                continue;
            };
            held += 1;
            if same_value(a, b) {
                agree += 1;
                continue;
            }
            match lag(a, b) {
                Lag::Behind => behind += 1,
                Lag::Ahead => ahead += 1,
                Lag::Other => other += 1,
            }
        }
        if held == 0 {
            continue;
        }
        if agree < held {
            check.changed.push(f.clone());
        }
        if behind > 0 && ahead == 0 && other == 0 && is_clock(&f, &matched) {
            check.snapshot.push((f.clone(), behind));
            check.fields.push(f);
        } else if 2 * agree >= held || drifted_copy(&f, &groups, &order, copies) {
            // Agreeing with the source, or — most copies stale — agreeing
            // with each other: copies of the same document hold the same
            // old value (a per-row field varies between them).
            check.fields.push(f);
        } else {
            check.own_fields.push(f);
        }
    }
    for (rv, h, src) in matched {
        check.checked += 1;
        let differing =
            check
                .fields
                .iter()
                .find(|f| match (h.get(f.as_str()), src.get(f.as_str())) {
                    (Some(a), Some(b)) => !same_value(a, b),
                    _ => false,
                });
        if let Some(f) = differing {
            check.disagree += 1;
            if check.examples.len() < 3 {
                check.examples.push((
                    show(Some(rv)),
                    f.clone(),
                    show(h.get(f.as_str())),
                    show(src.get(f.as_str())),
                ));
            }
        }
    }
}

/// A value's identity for counting versions: numbers across widths alike,
/// a list by its values in any order.
fn version_key(b: &bson::Bson) -> String {
    match of_bson(b) {
        Some(ValueKey::Int(i)) => format!("n:{i}"),
        Some(ValueKey::Num(bits)) => format!("n:{}", f64::from_bits(bits)),
        _ => match b {
            bson::Bson::Array(items) => {
                let mut keys: Vec<String> = items.iter().map(version_key).collect();
                keys.sort_unstable();
                format!("[{}]", keys.join(","))
            }
            _ => b.clone().relaxed().to_string(),
        },
    }
}

/// Compares copies of the same reference with each other on
/// `check.fields`: within each reference with two or more copies, a copy
/// disagrees when one of its fields differs from the value most of the
/// copies holding that field have. A field that differs within most
/// references is usually not a copy at all (an order line's quantity) and
/// moves to `own_fields` — unless it still behaves like a copy that drifted
/// (see [`drifted_copy`]): then it stays, however many references disagree.
/// The copies of each reference value (by their place in `copies`), and
/// the values in the order first met.
fn by_reference(copies: &[Copy]) -> (HashMap<ValueKey, Vec<usize>>, Vec<ValueKey>) {
    let mut groups: HashMap<ValueKey, Vec<usize>> = HashMap::new();
    let mut order: Vec<ValueKey> = Vec::new();
    for (i, (rv, _)) in copies.iter().enumerate() {
        let Some(k) = of_bson(rv) else {
            continue;
        };
        let g = groups.entry(k.clone()).or_default();
        if g.is_empty() {
            order.push(k);
        }
        g.push(i);
    }
    (groups, order)
}

pub(crate) fn between_copies(check: &mut DriftCheck, copies: &[Copy]) {
    let (groups, order) = by_reference(copies);
    // Per field: references with two copies holding it, and those among
    // them whose copies differ.
    let fields = std::mem::take(&mut check.fields);
    for f in fields {
        let (mut held, mut varied) = (0u64, 0u64);
        for k in &order {
            let vals: Vec<String> = groups[k]
                .iter()
                .filter_map(|&i| copies[i].1.get(f.as_str()).map(version_key))
                .collect();
            if vals.len() >= 2 {
                held += 1;
                if vals.iter().any(|v| *v != vals[0]) {
                    varied += 1;
                }
            }
        }
        if held > 0 && 2 * varied >= held && !drifted_copy(&f, &groups, &order, copies) {
            check.own_fields.push(f);
        } else {
            check.fields.push(f);
        }
    }
    if check.fields.is_empty() {
        return;
    }
    for k in &order {
        let members = &groups[k];
        if members.len() < 2 {
            continue;
        }
        check.groups += 1;
        check.checked += members.len() as u64;
        // The most common value of each field among the copies holding it.
        let majority: Vec<Option<(String, &bson::Bson)>> = check
            .fields
            .iter()
            .map(|f| {
                let mut tally: Vec<(String, &bson::Bson, u64)> = Vec::new();
                for &i in members {
                    if let Some(v) = copies[i].1.get(f.as_str()) {
                        let key = version_key(v);
                        match tally.iter_mut().find(|t| t.0 == key) {
                            Some(t) => t.2 += 1,
                            None => tally.push((key, v, 1)),
                        }
                    }
                }
                // Ties go to the first version seen.
                let mut best: Option<(String, &bson::Bson, u64)> = None;
                for t in tally {
                    if best.as_ref().is_none_or(|b| t.2 > b.2) {
                        best = Some(t);
                    }
                }
                best.map(|(key, v, _)| (key, v))
            })
            .collect();
        let mut group_disagrees = false;
        for &i in members {
            let (rv, h) = &copies[i];
            let differing = check.fields.iter().zip(&majority).find_map(|(f, m)| {
                let (key, v) = m.as_ref()?;
                let mine = h.get(f.as_str())?;
                (version_key(mine) != *key).then_some((f, mine, *v))
            });
            if let Some((f, mine, theirs)) = differing {
                group_disagrees = true;
                check.disagree += 1;
                if check.examples.len() < 3 {
                    check.examples.push((
                        show(Some(rv)),
                        f.clone(),
                        show(Some(mine)),
                        show(Some(theirs)),
                    ));
                }
            }
        }
        if group_disagrees {
            check.groups_disagreeing += 1;
        }
    }
}

/// How unlikely, at most, the copies' agreement may be by chance for a
/// field that differs within or from most references still to count as a
/// copy that drifted.
const DRIFTED_ALPHA: f64 = 1e-3;

/// Whether a field that differs within most references (or from its
/// source) is a copy that drifted rather than the holder's own data: the
/// copies of each reference agree with each other — in at least half of
/// the references with two or more copies, one value is held by more than
/// half of them (stale copies of a name agree; a quantity or a timestamp of
/// each line does not) — and far more often than values drawn at random
/// from the field's own values would. The chance a reference's `m` copies
/// show a majority is `Σ_v P(Binomial(m, p_v) > m/2)` over the field's
/// values `v` with their shares `p_v` among all copies (exact up to 64
/// copies, a Chernoff bound above); the count of references that do is
/// held against those chances with the Chernoff bound of a sum of
/// independent trials. A constant (every copy holds 0) or a two-valued
/// per-row role agrees by chance and is not a copy; seven point levels
/// shared by thirty customers, each customer's orders holding one, are.
fn drifted_copy(
    field: &str,
    groups: &HashMap<ValueKey, Vec<usize>>,
    order: &[ValueKey],
    copies: &[Copy],
) -> bool {
    let mut shares: HashMap<String, u64> = HashMap::new();
    let mut sizes: Vec<(usize, bool)> = Vec::new();
    for k in order {
        let mut tally: HashMap<String, usize> = HashMap::new();
        for &i in &groups[k] {
            if let Some(v) = copies[i].1.get(field) {
                let key = version_key(v);
                *shares.entry(key.clone()).or_insert(0) += 1;
                *tally.entry(key).or_insert(0) += 1;
            }
        }
        let m: usize = tally.values().sum();
        if m >= 2 {
            sizes.push((m, tally.values().any(|n| 2 * n > m)));
        }
    }
    let held = sizes.len();
    let agreeing = sizes.iter().filter(|(_, a)| *a).count();
    if held == 0 || 2 * agreeing < held {
        return false;
    }
    let total: u64 = shares.values().sum();
    let p: Vec<f64> = shares.values().map(|n| *n as f64 / total as f64).collect();
    let mut cache: HashMap<usize, f64> = HashMap::new();
    let expected: f64 = sizes
        .iter()
        .map(|(m, _)| {
            *cache
                .entry(*m)
                .or_insert_with(|| majority_by_chance(*m, &p))
        })
        .sum();
    chance_of_at_least(agreeing, held, expected) < DRIFTED_ALPHA
}

/// The chance that `m` values drawn independently with shares `p` show one
/// value more than `m/2` times (the events are disjoint across values).
fn majority_by_chance(m: usize, p: &[f64]) -> f64 {
    let need = m / 2 + 1;
    let tail = |q: f64| -> f64 {
        if m <= 64 {
            super::evidence::binomial_tail(m as u64, need as u64, q)
        } else if q <= 0.0 {
            0.0
        } else if q >= 0.5 {
            1.0
        } else {
            (-(m as f64) * kl(0.5, q)).exp()
        }
    };
    p.iter().map(|q| tail(*q)).sum::<f64>().min(1.0)
}

/// Kullback–Leibler divergence of Bernoulli(a) from Bernoulli(b).
fn kl(a: f64, b: f64) -> f64 {
    let term = |x: f64, y: f64| if x <= 0.0 { 0.0 } else { x * (x / y).ln() };
    term(a, b) + term(1.0 - a, 1.0 - b)
}

/// An upper bound on the chance that `n` independent trials whose success
/// chances sum to `expected` give `k` or more successes (Chernoff–Hoeffding:
/// it depends on the mean alone).
fn chance_of_at_least(k: usize, n: usize, expected: f64) -> f64 {
    let (a, b) = (k as f64 / n as f64, (expected / n as f64).clamp(0.0, 1.0));
    if a <= b {
        return 1.0;
    }
    if b <= 0.0 {
        return 0.0;
    }
    (-(n as f64) * kl(a, b)).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn copy(id: i32, name: &str, tier: i64) -> Copy {
        (
            bson::Bson::Int32(id),
            doc! {"id": id, "name": name, "tier": tier},
        )
    }

    #[test]
    fn copies_of_the_same_reference_compared() {
        let copies = vec![
            copy(1, "ann", 1),
            copy(1, "ann", 1),
            copy(1, "anne", 1), // differs from the two others
            copy(2, "bob", 2),
            copy(2, "bob", 2),
            copy(3, "cy", 3), // alone: nothing to compare with
            (
                bson::Bson::Int64(2),
                doc! {"id": 2_i64, "name": "bob", "tier": 2.0},
            ), // same, other widths
            copy(4, "di", 4),
            copy(4, "di", 4),
        ];
        let mut c = DriftCheck {
            kind: DriftKind::BetweenCopies,
            fields: vec!["name".into(), "tier".into()],
            ..DriftCheck::default()
        };
        between_copies(&mut c, &copies);
        assert_eq!((c.groups, c.groups_disagreeing), (3, 1));
        assert_eq!((c.checked, c.disagree), (8, 1));
        assert!(c.own_fields.is_empty());
        assert_eq!(
            c.examples,
            vec![(
                "1".into(),
                "name".into(),
                "\"anne\"".into(),
                "\"ann\"".into()
            )]
        );
    }

    #[test]
    fn fields_that_differ_for_most_references_are_not_copies() {
        // An order line's product name is copied, its quantity is not.
        let line = |id: i32, name: &str, qty: i32| {
            (
                bson::Bson::Int32(id),
                doc! {"product_id": id, "name": name, "qty": qty},
            )
        };
        let copies = vec![
            line(1, "pen", 1),
            line(1, "pen", 4),
            line(2, "ink", 2),
            line(2, "ink", 3),
            line(3, "pad", 5),
            line(3, "pads", 5),
        ];
        let mut c = DriftCheck {
            kind: DriftKind::BetweenCopies,
            fields: vec!["name".into(), "qty".into()],
            ..DriftCheck::default()
        };
        between_copies(&mut c, &copies);
        assert_eq!(c.fields, vec!["name".to_owned()]);
        assert_eq!(c.own_fields, vec!["qty".to_owned()]);
        assert_eq!(
            (c.groups, c.groups_disagreeing, c.checked, c.disagree),
            (3, 1, 6, 1)
        );
    }

    #[test]
    fn copies_that_drifted_for_most_references_still_count() {
        // 100 products on 3 order lines each; for 80 of them one line still
        // holds the old name. Each line's quantity and time are its own.
        let mut copies = Vec::new();
        for p in 0..100 {
            for line in 0..3 {
                let name = if p < 80 && line == 0 {
                    format!("old {p}")
                } else {
                    format!("product {p}")
                };
                copies.push((
                    bson::Bson::Int32(p),
                    doc! {"product_id": p, "name": name, "qty": (p * 3 + line) % 5, "at": p * 10 + line},
                ));
            }
        }
        let mut c = DriftCheck {
            kind: DriftKind::BetweenCopies,
            fields: vec!["name".into(), "qty".into(), "at".into()],
            ..DriftCheck::default()
        };
        between_copies(&mut c, &copies);
        assert_eq!(c.fields, vec!["name".to_owned()]);
        assert_eq!(c.own_fields, vec!["qty".to_owned(), "at".to_owned()]);
        assert_eq!(
            (c.groups, c.groups_disagreeing, c.checked, c.disagree),
            (100, 80, 300, 80)
        );
    }

    #[test]
    fn copies_of_few_levels_that_agree_per_reference_are_copies_a_constant_is_not() {
        // Thirty customers on seven point levels, each on six or seven
        // orders that copied the level; since then almost every customer
        // earned points. A status every order holds is no copy.
        let customers: Vec<bson::Document> = (0..30)
            .map(|i| doc! {"_id": i, "points": 100 * (i % 7) + if i % 10 == 0 { 0 } else { 10 }, "status": "active"})
            .collect();
        let copies: Vec<Copy> = (0..200)
            .map(|o| {
                let c = o * 7 % 30;
                (
                    bson::Bson::Int32(c),
                    doc! {"id": c, "points": 100 * (c % 7), "status": "placed"},
                )
            })
            .collect();
        let mut c = DriftCheck {
            fields: vec!["points".into(), "status".into()],
            ..DriftCheck::default()
        };
        against_source(&mut c, &copies, &sources_by_id(&customers));
        assert_eq!(c.fields, ["points"]);
        assert_eq!(c.own_fields, ["status"]);
        // A two-valued field agreeing within references no more than chance
        // would: the holder's own.
        let coin: Vec<Copy> = (0..200)
            .map(|o| {
                let c = o * 7 % 30;
                (bson::Bson::Int32(c), doc! {"id": c, "paid": o % 11 != 0})
            })
            .collect();
        let mut c = DriftCheck {
            fields: vec!["paid".into()],
            ..DriftCheck::default()
        };
        let paid: Vec<bson::Document> = (0..30).map(|i| doc! {"_id": i, "paid": false}).collect();
        against_source(&mut c, &coin, &sources_by_id(&paid));
        assert_eq!(c.own_fields, ["paid"]);
    }

    #[test]
    fn copies_compared_with_their_source() {
        let copies = vec![copy(1, "ann", 1), copy(2, "bobby", 2), copy(9, "x", 0)];
        let a = doc! {"_id": 1, "name": "ann"};
        let b = doc! {"_id": 2_i64, "name": "bob"};
        let sources: HashMap<ValueKey, &bson::Document> = [(&a, 1), (&b, 2)]
            .into_iter()
            .filter_map(|(d, i)| of_bson(&bson::Bson::Int32(i)).map(|k| (k, d)))
            .collect();
        let mut c = DriftCheck {
            fields: vec!["name".into()],
            ..DriftCheck::default()
        };
        against_source(&mut c, &copies, &sources);
        // The copy of 9 has no source and is not counted.
        assert_eq!((c.checked, c.disagree), (2, 1));
        assert_eq!(c.examples[0].2, "\"bobby\"");
    }

    #[test]
    fn copies_naming_their_source_by_its_hex_string_are_compared_with_it() {
        // Teams embed whole users, each with the user's `_id` copied as its
        // hex string; one copy's team list is empty where the user has one.
        let oid =
            |i: u8| bson::oid::ObjectId::from_bytes([0x61, 0x95, 0, 0, 0, 0, 0, 0, 0, 0, 0, i]);
        let team = "61950b6f52f0ac35b0dc8433";
        let users: Vec<bson::Document> = (0..3u8)
            .map(|i| doc! {"_id": oid(i), "nickName": format!("n{i}"), "teams": [team]})
            .collect();
        let stored: Vec<Copy> = (0..3u8)
            .map(|i| {
                let teams: Vec<&str> = if i == 0 { Vec::new() } else { vec![team] };
                (
                    bson::Bson::String(oid(i).to_hex()),
                    doc! {"_id": oid(i).to_hex(), "nickName": format!("n{i}"), "teams": teams},
                )
            })
            .collect();
        let fields = || DriftCheck {
            fields: vec!["nickName".into(), "teams".into()],
            ..DriftCheck::default()
        };
        // As stored, no copy finds its source.
        let mut c = fields();
        against_source(&mut c, &stored, &sources_by_id(&users));
        assert_eq!(c.checked, 0);
        // Read as the ObjectIds they write, each does, and the empty list
        // disagrees.
        let mut copies = stored.clone();
        assert_eq!(identities_as(&mut copies, Family::ObjectId), 3);
        assert_eq!(copies[1].0, bson::Bson::ObjectId(oid(1)));
        let mut c = fields();
        against_source(&mut c, &copies, &sources_by_id(&users));
        assert_eq!((c.checked, c.disagree), (3, 1));
        assert_eq!(c.fields, ["nickName", "teams"]);
        assert_eq!(c.examples[0].1, "teams");
        assert_eq!(c.examples[0].2, "[]");
        // Identities already of the key's family, or that read as none,
        // stay as they are.
        let mut same = copies.clone();
        assert_eq!(identities_as(&mut same, Family::ObjectId), 0);
        let mut text = vec![(bson::Bson::String("ann".into()), doc! {})];
        assert_eq!(identities_as(&mut text, Family::ObjectId), 0);
        // Numbers named by numeric strings, and back.
        let mut numbers = vec![(bson::Bson::String("42".into()), doc! {})];
        assert_eq!(identities_as(&mut numbers, Family::Number), 1);
        assert_eq!(numbers[0].0, bson::Bson::Int32(42));
        let mut strings = vec![(bson::Bson::Int64(42), doc! {})];
        assert_eq!(identities_as(&mut strings, Family::String), 1);
        assert_eq!(strings[0].0, bson::Bson::String("42".into()));
    }

    #[test]
    fn lists_compare_by_their_values_in_any_order() {
        use bson::Bson;
        let list = |v: Vec<Bson>| Bson::Array(v);
        assert!(same_value(
            &list(vec![Bson::String("a".into()), Bson::Int32(2)]),
            &list(vec![Bson::Int64(2), Bson::String("a".into())])
        ));
        assert!(!same_value(
            &list(vec![Bson::String("a".into())]),
            &list(vec![])
        ));
        assert!(!same_value(
            &list(vec![Bson::String("a".into()), Bson::String("a".into())]),
            &list(vec![Bson::String("a".into())])
        ));
    }

    fn sources_by_id(docs: &[bson::Document]) -> HashMap<ValueKey, &bson::Document> {
        docs.iter()
            .filter_map(|d| d.get("_id").and_then(of_bson).map(|k| (k, d)))
            .collect()
    }

    #[test]
    fn a_field_that_differs_in_most_copies_is_the_holders_own() {
        // Chat participants beside users: the per-chat role is no copy of
        // the global one; the name is.
        let users: Vec<bson::Document> = (0..10)
            .map(|i| doc! {"_id": i, "name": format!("u{i}"), "role": "user"})
            .collect();
        let copies: Vec<Copy> = (0..30)
            .map(|i| {
                let u = i % 10;
                let name = if i == 7 {
                    "stale".to_owned()
                } else {
                    format!("u{u}")
                };
                let role = if i % 3 == 0 { "user" } else { "admin" };
                (
                    bson::Bson::Int32(u),
                    doc! {"user": u, "name": name, "role": role},
                )
            })
            .collect();
        let mut c = DriftCheck {
            fields: vec!["name".into(), "role".into()],
            ..DriftCheck::default()
        };
        against_source(&mut c, &copies, &sources_by_id(&users));
        assert_eq!(c.fields, ["name"]);
        assert_eq!(c.own_fields, ["role"]);
        assert_eq!((c.checked, c.disagree), (30, 1));
        assert!(!c.is_snapshot());

        // Every user renamed since: no copy agrees with its source, but the
        // copies of each user agree with each other — stale copies of the
        // name, not a field of the holder's own.
        let renamed: Vec<bson::Document> = (0..10)
            .map(|i| doc! {"_id": i, "name": format!("new u{i}"), "role": "user"})
            .collect();
        let mut c = DriftCheck {
            fields: vec!["name".into(), "role".into()],
            ..DriftCheck::default()
        };
        against_source(&mut c, &copies, &sources_by_id(&renamed));
        assert_eq!(c.fields, ["name"]);
        assert_eq!(c.own_fields, ["role"]);
        assert_eq!((c.checked, c.disagree), (30, 30));
    }

    #[test]
    fn copies_that_keep_their_sources_clock_are_snapshots() {
        // Tickets updated since their notifications copied them: `__v`
        // (most tickets still at version 0) lags in every copy that
        // differs, and the status differs with it.
        let tickets: Vec<bson::Document> = (0..20)
            .map(|i| doc! {"_id": i, "status": if i < 5 { "closed" } else { "open" }, "__v": if i < 5 { 3 } else { 0 }})
            .collect();
        let copies: Vec<Copy> = (0..20)
            .map(|i| {
                (
                    bson::Bson::Int32(i),
                    doc! {"_id": i, "status": "open", "__v": 0},
                )
            })
            .collect();
        let mut c = DriftCheck {
            fields: vec!["status".into(), "__v".into()],
            ..DriftCheck::default()
        };
        against_source(&mut c, &copies, &sources_by_id(&tickets));
        assert!(c.is_snapshot());
        assert_eq!(c.snapshot, [("__v".to_owned(), 5)]);
        assert_eq!((c.checked, c.disagree), (20, 5));
        // Both changed since: neither is a field that stays as copied.
        assert_eq!(c.changed, ["status", "__v"]);

        // Loyalty points copied into orders: they grow too, but they are
        // a business number spread over many values, not a clock: the
        // copies are live copies gone stale.
        let customers: Vec<bson::Document> =
            (0..20).map(|i| doc! {"_id": i, "points": 50 * i}).collect();
        let orders: Vec<Copy> = (0..20)
            .map(|i| {
                (
                    bson::Bson::Int32(i),
                    doc! {"id": i, "points": if i % 2 == 0 { 50 * i } else { 50 * i - 40 }},
                )
            })
            .collect();
        let mut c = DriftCheck {
            fields: vec!["points".into()],
            ..DriftCheck::default()
        };
        against_source(&mut c, &orders, &sources_by_id(&customers));
        assert!(!c.is_snapshot());
        assert_eq!(c.own_fields, Vec::<String>::new());
        assert_eq!((c.checked, c.disagree), (20, 10));
    }
}
