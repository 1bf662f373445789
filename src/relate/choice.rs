//! One target per reference path, chosen over the whole deployment.
//!
//! Every candidate pair was scored on its own ([`Scored`]); here they are
//! decided together, the way foreign-key discovery over a whole schema
//! does it rather than pair by pair:
//! 1. **Keys before references.** A key other than `_id` that itself
//!    references another collection's `_id` is a foreign key, not an
//!    identifier: values found in it are found there because they are that
//!    collection's ids, so it is nobody's target (`userdefaulthomes.userId`,
//!    `citydetails.cityId`).
//! 2. **The key the deployment uses.** A collection referenced by its
//!    `_id` is referenced by `_id`: its other keys are attributes copied
//!    elsewhere (an e-mail typed into a form), unless the field's name
//!    names the collection (`city` → `cities.cityName`).
//! 3. **A person's role means one collection.** A role naming several
//!    collections of people names none.
//! 4. **One target per path**: values before names, identifiers before
//!    other keys, then the stronger name and the higher match rate; where
//!    ties remain, the first collection listed.
//! 5. **Polymorphic references.** Where the matches are free of chance and
//!    the references the chosen target leaves unexplained are found in
//!    other collections' `_id`s, each of those collections is a target too:
//!    told apart by a discriminator beside the field when one splits the
//!    values (`likes.parentType`: ARTICLE | COMMENT), or the union of twin
//!    collections when none does.
//! 6. **Copies riding along** another reference, and one direction of two
//!    fields that reference each other, as before.
//!
//! Every decision reads the scores and the kept documents in a fixed
//! order, so the choice does not depend on the order pairs were probed.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::evidence::{Evidence, MIN_FOUND};
use super::keys::{Candidate, Tally, TargetKey};
use super::names::Link;
use super::{CollectionView, Family};
use crate::profile::raw::BsonType;
use crate::profile::{extract, query_path, Seg};
use crate::source::value::{self, ValueKey};

/// One probed pair: its evidence, what its probe found, and which of the
/// candidate's probed values were found.
#[derive(Clone, Debug)]
pub struct Scored {
    pub cand: usize,
    pub target: usize,
    pub evidence: Evidence,
    pub tally: Tally,
    /// Indexes into the candidate's probed values.
    pub hits: Vec<u32>,
}

/// One target of a chosen reference.
#[derive(Clone, Debug)]
pub struct Member {
    pub target: usize,
    pub evidence: Evidence,
    /// What the probe found in this target (of this class's references,
    /// when a discriminator splits them).
    pub tally: Tally,
    /// The discriminator's value naming this target.
    pub class: Option<String>,
}

/// A chosen reference: its target, or the targets of a polymorphic one.
#[derive(Clone, Debug)]
pub struct Choice {
    pub cand: usize,
    /// Strongest first.
    pub members: Vec<Member>,
    /// The field beside the reference that names its target's kind.
    pub discriminator: Option<String>,
    /// The references found in any target (each in its class's target
    /// when discriminated), over all references probed.
    pub tally: Tally,
}

impl Choice {
    pub(crate) fn target(&self) -> usize {
        self.members[0].target
    }

    pub(crate) fn evidence(&self) -> &Evidence {
        &self.members[0].evidence
    }

    pub(crate) fn is_polymorphic(&self) -> bool {
        self.members.len() > 1
    }
}

/// Least share of one target's found references that fall in one class
/// of a discriminator for the class to name that target.
const CLASS_SHARE: f64 = 0.9;
/// Most values a discriminator takes.
const MAX_CLASSES: u64 = 20;

/// Chooses every candidate's target (or polymorphic set) from the scored
/// pairs, over the whole deployment.
pub(crate) fn choose(
    scored: &[Scored],
    cands: &[Candidate],
    targets: &[TargetKey],
    colls: &[CollectionView<'_>],
) -> Vec<Choice> {
    let accepted: Vec<&Scored> = scored.iter().filter(|s| s.evidence.accepted()).collect();
    let accepted = one_role_each(accepted, targets);
    let accepted = keys_before_references(accepted, cands, targets);
    let accepted = the_key_in_use(accepted, targets);
    let mut by_cand: BTreeMap<usize, Vec<&Scored>> = BTreeMap::new();
    for s in accepted {
        by_cand.entry(s.cand).or_default().push(s);
    }
    let mut all_by_cand: HashMap<usize, Vec<&Scored>> = HashMap::new();
    for s in scored {
        all_by_cand.entry(s.cand).or_default().push(s);
    }
    let mut chosen = Vec::new();
    for (ci, list) in by_cand {
        let Some(best) = list
            .iter()
            .copied()
            .max_by(|a, b| rank(a, targets).cmp(&rank(b, targets)))
        else {
            continue;
        };
        let others = all_by_cand.get(&ci).map_or(&[][..], Vec::as_slice);
        chosen.push(polymorphic(best, others, cands, targets, colls));
    }
    let chosen = one_direction(chosen, cands, targets);
    drop_copies(chosen, cands, targets)
}

/// Steps a match rate is compared in before names decide: two targets that
/// hold the same ids (a collection and its copy) differ by a sample's noise.
const RATE_STEPS: f64 = 20.0;

/// The order of preference between targets of one candidate: values before
/// names, identifiers before other keys; then, for values, the match rate
/// (in steps of 5 %), the name, the exact rate; for names, the name first.
fn rank(
    s: &Scored,
    targets: &[TargetKey],
) -> (bool, bool, i64, i64, i64, i64, std::cmp::Reverse<usize>) {
    let t = &targets[s.target];
    let by_values = !s.evidence.by_name();
    let rate = (s.tally.rate() * 1e6).round() as i64;
    let step = (s.tally.rate() * RATE_STEPS).round() as i64;
    let link = s.evidence.link.map_or(0, |l| l as i64 + 1);
    let (first, second) = if by_values {
        (step, link)
    } else {
        (link, step)
    };
    (
        by_values,
        t.key == "_id" || t.unique_index,
        first,
        second,
        rate,
        -((s.evidence.chance_rate * 1e9).round() as i64),
        std::cmp::Reverse(s.target),
    )
}

/// A reference resting on a person's role alone is kept only when the
/// role can mean one collection of people.
fn one_role_each<'a>(accepted: Vec<&'a Scored>, targets: &[TargetKey]) -> Vec<&'a Scored> {
    let mut roles: HashMap<usize, HashSet<usize>> = HashMap::new();
    for s in &accepted {
        if s.evidence.by_name() && s.evidence.link == Some(Link::Role) {
            roles
                .entry(s.cand)
                .or_default()
                .insert(targets[s.target].coll);
        }
    }
    accepted
        .into_iter()
        .filter(|s| {
            !(s.evidence.by_name()
                && s.evidence.link == Some(Link::Role)
                && roles.get(&s.cand).is_some_and(|c| c.len() > 1))
        })
        .collect()
}

/// Drops pairs whose target key is itself a reference to another
/// collection's `_id`: its values are that collection's ids, and that
/// collection is their parent.
fn keys_before_references<'a>(
    accepted: Vec<&'a Scored>,
    cands: &[Candidate],
    targets: &[TargetKey],
) -> Vec<&'a Scored> {
    let foreign: HashSet<(usize, String)> = accepted
        .iter()
        .filter(|s| {
            let t = &targets[s.target];
            t.key == "_id" && t.coll != cands[s.cand].coll
        })
        .map(|s| (cands[s.cand].coll, query_path(&cands[s.cand].segments)))
        .collect();
    accepted
        .into_iter()
        .filter(|s| {
            let t = &targets[s.target];
            t.key == "_id" || !foreign.contains(&(t.coll, t.key.clone()))
        })
        .collect()
}

/// Drops pairs to a key other than `_id` of a collection the deployment
/// references by `_id`, unless the field's name names the collection.
fn the_key_in_use<'a>(accepted: Vec<&'a Scored>, targets: &[TargetKey]) -> Vec<&'a Scored> {
    let by_id: HashSet<usize> = accepted
        .iter()
        .filter(|s| targets[s.target].key == "_id")
        .map(|s| targets[s.target].coll)
        .collect();
    accepted
        .into_iter()
        .filter(|s| {
            let t = &targets[s.target];
            t.key == "_id"
                || !by_id.contains(&t.coll)
                || s.evidence.link.is_some_and(|l| l >= Link::Abbreviation)
        })
        .collect()
}

/// The chosen target, completed by the other collections whose `_id`s
/// hold the references it leaves unexplained, when the matches are free
/// of chance.
fn polymorphic(
    best: &Scored,
    all: &[&Scored],
    cands: &[Candidate],
    targets: &[TargetKey],
    colls: &[CollectionView<'_>],
) -> Choice {
    let cand = &cands[best.cand];
    let single = Choice {
        cand: best.cand,
        members: vec![Member {
            target: best.target,
            evidence: best.evidence.clone(),
            tally: best.tally,
            class: None,
        }],
        discriminator: None,
        tally: best.tally,
    };
    let chance_free = best.evidence.chance_free() && !best.evidence.by_name();
    if !chance_free || targets[best.target].key != "_id" || best.tally.rate() >= 1.0 {
        return single;
    }
    // Other collections' `_id`s, each holding values no other holds.
    let mut taken: HashSet<u32> = best.hits.iter().copied().collect();
    let mut extra: Vec<&Scored> = Vec::new();
    let mut rest: Vec<&Scored> = all
        .iter()
        .copied()
        .filter(|s| {
            let t = &targets[s.target];
            t.key == "_id"
                && t.coll != targets[best.target].coll
                && s.evidence.chance_free()
                && s.tally.found > 0
        })
        .collect();
    rest.sort_by_key(|s| (std::cmp::Reverse(s.tally.references_found), s.target));
    for s in rest {
        if s.hits.iter().any(|h| taken.contains(h)) {
            continue;
        }
        taken.extend(s.hits.iter().copied());
        extra.push(s);
    }
    if extra.is_empty() {
        return single;
    }
    let members: Vec<&Scored> = std::iter::once(best).chain(extra).collect();
    if let Some(choice) = discriminated(&members, cand, colls) {
        return choice;
    }
    // No discriminator: twin collections, each with values of its own.
    let members: Vec<&Scored> = members
        .into_iter()
        .enumerate()
        .filter(|(i, s)| *i == 0 || s.tally.found >= MIN_FOUND)
        .map(|(_, s)| s)
        .collect();
    if members.len() < 2 {
        return single;
    }
    let mut tally = best.tally;
    tally.found = members.iter().map(|s| s.tally.found).sum();
    tally.references_found = members.iter().map(|s| s.tally.references_found).sum();
    tally.converted_found = members.iter().map(|s| s.tally.converted_found).sum();
    Choice {
        cand: best.cand,
        members: members
            .iter()
            .map(|s| Member {
                target: s.target,
                evidence: s.evidence.clone(),
                tally: s.tally,
                class: None,
            })
            .collect(),
        discriminator: None,
        tally,
    }
}

/// The key a value at the candidate's path is probed as (a hex string as
/// the ObjectId it writes).
fn key_of(el: &crate::profile::raw::Element<'_>, family: Family) -> Option<ValueKey> {
    if el.ty == BsonType::String && family != Family::String {
        return crate::profile::raw::value::str(el.value).and_then(|s| value::converted(s, family));
    }
    value::of_element(el)
}

/// The members told apart by a field beside the reference whose values
/// name each member's collection, with each class's references counted
/// against its own target.
fn discriminated(
    members: &[&Scored],
    cand: &Candidate,
    colls: &[CollectionView<'_>],
) -> Option<Choice> {
    // Only a reference held once per document (or per sub-document outside
    // arrays) has one sibling value to read beside it.
    if cand.segments.contains(&Seg::Elem) {
        return None;
    }
    let holder = &cand.segments[..cand.segments.len() - 1];
    let c = &colls[cand.coll];
    let profile = c.profile.get();
    let member_of: HashMap<&ValueKey, usize> = members
        .iter()
        .enumerate()
        .flat_map(|(m, s)| {
            s.hits
                .iter()
                .map(move |&h| (&cand.refs.keys[h as usize], m))
        })
        .collect();
    let mut siblings: Vec<&crate::profile::FieldProfile> = profile
        .fields
        .iter()
        .filter(|f| {
            f.segments.len() == cand.segments.len()
                && f.segments[..holder.len()] == *holder
                && f.segments != cand.segments
                && f.main_type() == Some(BsonType::String)
                && f.distinct
                    .is_some_and(|d| (2..=MAX_CLASSES).contains(&d.estimate))
        })
        .collect();
    siblings.sort_by(|a, b| a.path.cmp(&b.path));
    for sib in siblings {
        // class → (references, per member found)
        let mut classes: BTreeMap<String, (u64, Vec<u64>)> = BTreeMap::new();
        for d in c.docs {
            let Some(class) = extract::values(d, &sib.segments)
                .into_iter()
                .find_map(|e| crate::profile::raw::value::str(e.value).map(str::to_owned))
            else {
                continue;
            };
            let entry = classes
                .entry(class)
                .or_insert_with(|| (0, vec![0; members.len()]));
            for el in extract::values(d, &cand.segments) {
                let Some(k) = key_of(&el, cand.family) else {
                    continue;
                };
                entry.0 += 1;
                if let Some(&m) = member_of.get(&k) {
                    entry.1[m] += 1;
                }
            }
        }
        // Each member's found references fall in one class, its own.
        let mut class_of: Vec<Option<String>> = vec![None; members.len()];
        for (m, slot) in class_of.iter_mut().enumerate() {
            let total: u64 = classes.values().map(|(_, f)| f[m]).sum();
            if total == 0 {
                break;
            }
            *slot = classes
                .iter()
                .find(|(_, (_, f))| f[m] as f64 >= CLASS_SHARE * total as f64)
                .map(|(k, _)| k.clone());
        }
        let named: HashSet<&String> = class_of.iter().flatten().collect();
        if class_of.iter().any(Option::is_none) || named.len() != members.len() {
            continue;
        }
        let mut out = Vec::new();
        let mut group = members[0].tally;
        group.found = 0;
        group.references_found = 0;
        // Counted over the references the kept documents hold, each class
        // against its own target.
        group.references = classes.values().map(|(n, _)| n).sum();
        for (m, s) in members.iter().enumerate() {
            let class = class_of[m].clone();
            let (refs, found) = class
                .as_ref()
                .and_then(|k| classes.get(k))
                .map_or((0, 0), |(n, f)| (*n, f[m]));
            let mut tally = s.tally;
            tally.references = refs;
            tally.references_found = found;
            group.found += s.tally.found;
            group.references_found += found;
            out.push(Member {
                target: s.target,
                evidence: s.evidence.clone(),
                tally,
                class,
            });
        }
        return Some(Choice {
            cand: members[0].cand,
            members: out,
            discriminator: Some(sib.path.clone()),
            tally: group,
        });
    }
    None
}

/// Of two fields chosen as references to each other (`books.genres` →
/// `genres.name` and `genres.name` → `books.genres`: the same values on
/// both sides), keeps one direction: towards a key the server keeps unique
/// (`_id`, a unique index), else the one whose values are the more
/// contained in the other's, else the one whose name points at the other
/// side, else towards the side with more distinct values.
fn one_direction(best: Vec<Choice>, cands: &[Candidate], targets: &[TargetKey]) -> Vec<Choice> {
    let field = |coll: usize, dotted: &str| (coll, dotted.to_owned());
    let source = |a: &Choice| {
        let c = &cands[a.cand];
        field(c.coll, &query_path(&c.segments))
    };
    let sink = |a: &Choice| field(targets[a.target()].coll, &targets[a.target()].key);
    let rank = |a: &Choice| {
        let t = &targets[a.target()];
        (
            t.key == "_id" || t.unique_index,
            (a.tally.rate() * 1e6).round() as i64,
            a.evidence().name.is_some(),
            t.distinct.round() as i64,
        )
    };
    let drop: Vec<bool> = best
        .iter()
        .map(|a| {
            best.iter().any(|b| {
                source(b) == sink(a)
                    && sink(b) == source(a)
                    && (rank(b) > rank(a) || (rank(b) == rank(a) && source(b) < source(a)))
            })
        })
        .collect();
    best.into_iter()
        .zip(drop)
        .filter_map(|(a, d)| (!d).then_some(a))
        .collect()
}

/// Drops references that are copies riding along another reference:
/// - a reference to a key other than `_id` of a collection the same
///   collection already references by `_id` (`orders.customer.email` beside
///   `orders.customer_id`), or from a sub-document that holds a reference
///   by `_id` (an extended reference's copied `group.name` beside
///   `group.id`, whatever other collection holds the same names);
/// - of references from one holder to the same collection through
///   different keys (`comments.name` and `comments.email` → `users`), all
///   but the strongest key: unique by index, then identifiers rather than
///   text, then value evidence, then the higher match rate.
fn drop_copies(best: Vec<Choice>, cands: &[Candidate], targets: &[TargetKey]) -> Vec<Choice> {
    let to = |a: &Choice| targets[a.target()].coll;
    let from = |a: &Choice| cands[a.cand].coll;
    let holder = |a: &Choice| {
        let s = &cands[a.cand].segments;
        &s[..s.len() - 1]
    };
    let by_id: Vec<&Choice> = best
        .iter()
        .filter(|a| targets[a.target()].key == "_id")
        .collect();
    let copies: Vec<bool> = best
        .iter()
        .map(|a| {
            targets[a.target()].key != "_id"
                && by_id.iter().any(|b| {
                    from(b) == from(a)
                        && (to(b) == to(a) || (!holder(a).is_empty() && holder(b) == holder(a)))
                })
        })
        .collect();
    let best: Vec<Choice> = best
        .into_iter()
        .zip(copies)
        .filter_map(|(a, copy)| (!copy).then_some(a))
        .collect();
    let strength = |a: &Choice| {
        (
            targets[a.target()].unique_index,
            (cands[a.cand].refs.identifier_share * 1e6).round() as i64,
            !a.evidence().by_name(),
            (a.tally.rate() * 1e6).round() as i64,
        )
    };
    let keep: Vec<bool> = best
        .iter()
        .map(|a| {
            !best.iter().any(|b| {
                from(b) == from(a)
                    && to(b) == to(a)
                    && holder(b) == holder(a)
                    && targets[b.target()].key != targets[a.target()].key
                    && (strength(b) > strength(a)
                        || (strength(b) == strength(a) && cands[b.cand].path < cands[a.cand].path))
            })
        })
        .collect();
    best.into_iter()
        .zip(keep)
        .filter_map(|(a, k)| k.then_some(a))
        .collect()
}
