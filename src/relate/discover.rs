//! The relationship stage's questions to the source: which sampled values
//! exist among a target's keys (probes), how many children each parent has
//! (a `$group` on a server, a scan of a file), whether those parents exist,
//! whether a target key is unique, and what the documents copied from hold.
//! Everything it decides is decided by the pure modules beside it.

use crate::profile::extjson::Relaxed as _;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::choice::{self, Scored};
use super::drift::{self, DriftCheck, DriftKind};
use super::keys::{self, Candidate, Skip, TargetKey};
use super::twoway;
use super::{
    embedded, has_leading_index, holding_array, kind_of, mark_two_way, Cardinality, CollectionView,
    Family, Fanout, KeyUniqueness, Polymorphic, Relationship,
};
use crate::profile::{query_path, render_path, Seg};
use crate::source::value::{of_bson, ValueKey};
use crate::source::{Probes, SourceError};

/// Collections above this many documents get their fan-out estimated from
/// the sample instead of a whole-collection `$group`.
pub const GROUP_LIMIT: u64 = 50_000_000;
/// Most distinct parents counted one by one (and checked for existence)
/// for a fan-out; beyond, the fan-out counts every referenced value.
pub const MAX_PARENTS: usize = 200_000;
/// Probes (one per candidate × key pair) per run; pairs beyond are
/// reported as skipped.
pub const MAX_PROBES: u64 = 500;
/// Bytes of values sent in one existence probe.
const PROBE_BYTES: usize = 2 << 20;
/// Distinct references whose source documents are read to check copies.
const DRIFT_REFS: usize = 200;

/// What the relationship stage asked of the source, and what it did not
/// need to ask.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct RelateCost {
    pub candidate_paths: u64,
    pub target_keys: u64,
    /// Candidate × key pairs of one family within one database.
    pub pairs: u64,
    /// Pairs not probed, each under the first reason found, in this
    /// order: the same attribute of the same entities twice; the target's
    /// kept sample (every document, or enough of them) answered; no result
    /// could make them a reference; not among the [`MAX_PROBES`] chosen.
    pub skipped_uninformative: u64,
    pub skipped_by_sample: u64,
    pub skipped_same_attribute: u64,
    pub skipped_over_budget: u64,
    /// `distinct` with `$in` on a server, a scan of a file: one per pair.
    pub probes: u64,
    /// Pairs answered as a probe would be, from the target's kept sample
    /// when it holds every document: no query.
    pub answered_from_sample: u64,
    /// Per-parent counts (`$group`, or a scan).
    pub fanout_queries: u64,
    /// Probes of whether the counted parents exist.
    pub existence_queries: u64,
    /// Checks for a duplicate of a target key.
    pub uniqueness_queries: u64,
    /// Reads of the documents extended references copy from.
    pub drift_fetches: u64,
    /// Reads of the documents the links of a two-way reference name.
    pub two_way_fetches: u64,
}

impl RelateCost {
    /// Every query sent (or file scan made).
    pub fn queries(&self) -> u64 {
        self.probes
            + self.fanout_queries
            + self.existence_queries
            + self.uniqueness_queries
            + self.drift_fetches
            + self.two_way_fetches
    }
}

/// Finds references between the collections of each database, measures
/// their fan-out and classifies them.
pub(crate) async fn relationships<S: Probes>(
    source: &mut S,
    colls: &[CollectionView<'_>],
    notes: &mut Vec<String>,
    cost: &mut RelateCost,
) -> Result<Vec<Relationship>, SourceError> {
    let targets = keys::target_keys(colls);
    let index = keys::KeyIndex::new(&targets);
    cost.target_keys = targets.len() as u64;
    // The keys a candidate may reference: same database, same family.
    let mut compatible: HashMap<(&str, Family), Vec<usize>> = HashMap::new();
    for (ti, t) in targets.iter().enumerate() {
        compatible
            .entry((colls[t.coll].db, t.family))
            .or_default()
            .push(ti);
    }
    // The pairs worth a probe compete for the run's [`MAX_PROBES`]; then
    // every probe of one target collection is sent at once (one scan of a
    // file), and each answer weighed. A candidate's values are kept only
    // while one of its pairs is among those chosen, so the stage holds at
    // most [`MAX_PROBES`] candidates' values whatever the number of
    // collections.
    //
    // Each collection's candidates are weighed against every key on every
    // core, a window of collections at a time (that window's values are
    // what is held beyond the chosen), and offered in the collections'
    // order, so the choice does not depend on the number of threads.
    let mut chosen = Chosen::default();
    let window = crate::profile::parallel::threads_from_env() * 4;
    let weigh = |ci: usize| {
        keys::candidates_of(ci, colls, &targets)
            .into_iter()
            .map(|cand| weigh_candidate(cand, colls, &targets, &index, &compatible))
            .collect::<Vec<_>>()
    };
    for from in (0..colls.len()).step_by(window.max(1)) {
        let upto = (from + window).min(colls.len());
        let weighed = crate::profile::parallel::map_ordered(upto - from, |i| weigh(from + i));
        for (cand, wanted, counted) in weighed.into_iter().flatten() {
            cost.candidate_paths += 1;
            cost.pairs += counted.pairs;
            cost.skipped_same_attribute += counted.skipped_same_attribute;
            cost.skipped_uninformative += counted.skipped_uninformative;
            cost.skipped_by_sample += counted.skipped_by_sample;
            chosen.offer(cand, wanted);
        }
    }
    drop(index);
    let (cands, pending, over) = chosen.finish();
    cost.probes = pending.iter().filter(|p| !p.local).count() as u64;
    cost.answered_from_sample = pending.len() as u64 - cost.probes;
    cost.skipped_over_budget = over;
    for p in &pending {
        let (cand, t) = (&cands[p.cand], &targets[p.target]);
        tracing::debug!(
            from = %format!("{}.{}", colls[cand.coll].namespace(), cand.path),
            to = %format!("{}.{}", colls[t.coll].namespace(), t.key),
            chance = p.chance,
            "reference probe"
        );
    }
    let mut answers: Vec<Option<Result<Vec<bson::Bson>, SourceError>>> =
        (0..pending.len()).map(|_| None).collect();
    let mut by_target: Vec<(usize, Vec<usize>)> = Vec::new();
    for (i, p) in pending.iter().enumerate() {
        if p.local {
            // The kept sample is every key: its answer is the probe's.
            let t = &targets[p.target];
            let found: Vec<bson::Bson> = cands[p.cand]
                .refs
                .keys
                .iter()
                .filter(|k| t.seen.contains(*k))
                .filter_map(ValueKey::to_bson)
                .collect();
            answers[i] = Some(Ok(found));
            continue;
        }
        let coll = targets[p.target].coll;
        match by_target.iter_mut().find(|(c, _)| *c == coll) {
            Some((_, list)) => list.push(i),
            None => by_target.push((coll, vec![i])),
        }
    }
    for (coll, list) in &by_target {
        let values: Vec<Vec<bson::Bson>> = list
            .iter()
            .map(|&i| cands[pending[i].cand].refs.values())
            .collect();
        let asks: Vec<(&str, &[bson::Bson])> = list
            .iter()
            .zip(&values)
            .map(|(&i, v)| (targets[pending[i].target].key.as_str(), v.as_slice()))
            .collect();
        let replies = source.probe_many(colls[*coll].meta, &asks).await?;
        for (&i, reply) in list.iter().zip(replies) {
            answers[i] = Some(reply);
        }
    }
    let mut scored = Vec::new();
    for (pair, answer) in pending.iter().zip(answers) {
        let (ci, ti) = (pair.cand, pair.target);
        let cand = &cands[ci];
        let hits = match answer {
            Some(Ok(f)) => f,
            Some(Err(e)) if e.is_fatal() => return Err(e),
            Some(Err(e)) => {
                notes.push(format!(
                    "reference probe of {} skipped: {e}",
                    colls[targets[ti].coll].namespace()
                ));
                continue;
            }
            None => continue,
        };
        let hits: HashSet<ValueKey> = hits.iter().filter_map(of_bson).collect();
        let tally = cand.refs.tally(&hits);
        if tally.found == 0 {
            continue;
        }
        let evidence = keys::weigh(pair, cand, &targets[ti], &tally, cost.pairs);
        let found_at: Vec<u32> = cand
            .refs
            .keys
            .iter()
            .enumerate()
            .filter(|(_, k)| hits.contains(*k))
            .map(|(i, _)| i as u32)
            .collect();
        tracing::debug!(
            from = %format!("{}.{}", colls[cand.coll].namespace(), cand.path),
            to = %format!("{}.{}", colls[targets[ti].coll].namespace(), targets[ti].key),
            found = tally.found,
            values = tally.values,
            accepted_by = ?evidence.accepted_by,
            "reference scored"
        );
        scored.push(Scored {
            cand: ci,
            target: ti,
            evidence,
            tally,
            hits: found_at,
        });
    }
    if cost.skipped_over_budget > 0 {
        notes.push(format!(
            "{} possible references were not probed: the run's budget is {MAX_PROBES} probes, given first to fields whose names point at the key, then to those least likely to match by chance",
            crate::fmt::group(cost.skipped_over_budget)
        ));
    }
    let mut out = Vec::new();
    let mut referencing: Vec<(usize, Vec<Seg>)> = Vec::new();
    for choice in choice::choose(&scored, &cands, &targets, colls) {
        let cand = &cands[choice.cand];
        let from = &colls[cand.coll];
        let from_profile = from.profile.get();
        let kind = kind_of(cand, &from_profile);
        let growing = holding_array(&cand.segments)
            .and_then(|arr| from_profile.fields.iter().find(|f| f.segments == arr))
            .and_then(|f| from.growth.get(&f.path))
            .is_some_and(|g| g.is_significant(0.5));
        referencing.push((cand.coll, cand.segments.clone()));
        // An array of ids is named by the array field itself (`kits.component_ids`).
        let from_path = if cand.segments.last() == Some(&Seg::Elem) {
            render_path(&cand.segments[..cand.segments.len() - 1])
        } else {
            cand.path.clone()
        };
        let rate = choice.tally.rate();
        let dangling = if choice.tally.references == 0 {
            0.0
        } else {
            1.0 - rate
        };
        let all_targets: Vec<String> = choice
            .members
            .iter()
            .map(|m| {
                let t = &targets[m.target];
                format!("{}.{}", colls[t.coll].namespace(), t.key)
            })
            .collect();
        let pointer = to_one_pointer(cand, from);
        for m in &choice.members {
            let t = &targets[m.target];
            let to = &colls[t.coll];
            let (fanout, method, indexed) =
                fanout_of(source, cand, from, t, to, notes, cost).await?;
            let target_unique = uniqueness(source, t, to, notes, cost).await?;
            let polymorphic = choice.is_polymorphic().then(|| Polymorphic {
                discriminator: choice.discriminator.clone(),
                class: m.class.clone(),
                targets: all_targets.clone(),
                references: m.tally.references,
                found: m.tally.references_found,
            });
            let one_to_one = fanout.as_ref().is_some_and(|f| f.max <= 1);
            out.push(Relationship {
                from: format!("{}.{from_path}", from.namespace()),
                to: format!("{}.{}", to.namespace(), t.key),
                kind,
                cardinality: Cardinality::of(fanout.as_ref().map_or(0, |f| f.max), growing),
                fanout,
                match_rate: crate::profile::sketch::round2(rate),
                dangling: crate::profile::sketch::round2(dangling),
                references_probed: choice.tally.references,
                references_matched: choice.tally.references_found,
                probed: choice.tally.values,
                matched: choice.tally.found,
                evidence: Some(m.evidence.clone()),
                target_unique,
                representations: super::Representations::of(cand.family, &choice.tally),
                fanout_method: method,
                indexed,
                polymorphic,
                to_one_pointer: pointer && one_to_one,
                two_way: None,
                from_ns: from.namespace(),
                from_path: from_path.clone(),
                to_ns: to.namespace(),
            });
        }
    }
    mark_two_way(&mut out);
    out.extend(embedded(colls, &referencing));
    Ok(out)
}

/// One candidate weighed against every key of its database and family:
/// its pairs worth a probe, and the pairs it skipped, counted.
fn weigh_candidate(
    cand: Candidate,
    colls: &[CollectionView<'_>],
    targets: &[TargetKey],
    index: &keys::KeyIndex,
    compatible: &HashMap<(&str, Family), Vec<usize>>,
) -> (Candidate, Vec<keys::Pair>, RelateCost) {
    let mut counted = RelateCost::default();
    let tallies = index.tallies(&cand.refs, targets);
    let group = compatible
        .get(&(colls[cand.coll].db, cand.family))
        .map_or(&[][..], Vec::as_slice);
    let mut wanted = Vec::new();
    for &ti in group {
        let local = keys::KeyIndex::tally_of(&tallies, &cand.refs, ti);
        // Its place among the chosen is set when it is offered.
        match keys::pair(0, &cand, ti, &targets[ti], colls, local) {
            Ok(p) => wanted.push(p),
            Err(Skip::Incompatible) => continue,
            Err(Skip::SameAttribute) => counted.skipped_same_attribute += 1,
            Err(Skip::Uninformative) => counted.skipped_uninformative += 1,
            Err(Skip::BySample | Skip::SameDocument) => counted.skipped_by_sample += 1,
        }
        counted.pairs += 1;
    }
    (cand, wanted, counted)
}

/// The pairs chosen for a probe, at most [`MAX_PROBES`]: pairs whose
/// name points at the target first (`customer_id` → `customers._id`),
/// then those whose values match by chance least (the strongest test),
/// then in the order found. The candidates of pairs pushed out are
/// dropped as soon as none of their pairs is left.
#[derive(Default)]
struct Chosen {
    /// By the place they were offered; `None` once no pair of theirs is
    /// chosen (boxed: an entry is kept for every candidate offered, and a
    /// thousand collections offer tens of thousands).
    cands: Vec<Option<Box<Candidate>>>,
    /// Chosen pairs of each candidate.
    held: Vec<u32>,
    /// The chosen, the weakest on top.
    heap: std::collections::BinaryHeap<Ranked>,
    /// Pairs answered from the target's kept sample, which holds every key:
    /// no probe, so no place in the budget.
    local: Vec<keys::Pair>,
    /// Pairs worth a probe offered so far.
    offered: u64,
}

/// The decade of a chance rate, ordered as the rate is (`0` for no
/// chance at all).
fn chance_decade(chance: f64) -> u64 {
    if chance.is_nan() || chance <= 0.0 {
        return 0;
    }
    // Rates between 1e-300 and 1: decades -300 ..= 0, shifted to 1 ..= 301.
    let decade = chance.min(1.0).log10().floor().max(-300.0);
    (decade + 301.0) as u64
}

struct Ranked {
    key: (bool, bool, bool, u64, u64),
    pair: keys::Pair,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Ranked {}
impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

impl Chosen {
    /// Offers a candidate with its pairs worth a probe (their `cand` is set
    /// to its place here).
    fn offer(&mut self, cand: Candidate, pairs: Vec<keys::Pair>) {
        let at = self.cands.len();
        self.cands.push(Some(Box::new(cand)));
        self.held.push(0);
        for mut pair in pairs {
            pair.cand = at;
            if pair.local {
                self.held[at] += 1;
                self.local.push(pair);
                continue;
            }
            // Greater is weaker: no name, nothing seen, more chance, found
            // later. The
            // chance counts by its order of magnitude: a sample's noise
            // (0.0032 or 0.0033) must not decide which pairs the budget
            // keeps, and the order offered (by collection and path) does
            // not depend on the sample.
            let named = pair.name.is_some()
                || pair
                    .link
                    .is_some_and(|l| l >= super::names::Link::Abbreviation);
            // Then pairs whose target's kept sample already holds some of
            // the values (a reference shows there first), then those whose
            // ids were minted in the target's lifetime.
            let key = (
                !named,
                !pair.seen,
                !pair.in_span,
                chance_decade(pair.chance),
                self.offered,
            );
            self.offered += 1;
            let r = Ranked { key, pair };
            if self.heap.len() < MAX_PROBES as usize {
                self.held[at] += 1;
                self.heap.push(r);
            } else if self.heap.peek().is_some_and(|w| r < *w) {
                self.held[at] += 1;
                let out = self.heap.pop().expect("the heap is full");
                self.release(out.pair.cand);
                self.heap.push(r);
            }
        }
        if self.held[at] == 0 {
            self.cands[at] = None;
        }
    }

    fn release(&mut self, c: usize) {
        self.held[c] -= 1;
        if self.held[c] == 0 {
            self.cands[c] = None;
        }
    }

    /// The chosen candidates, their pairs in the order found (renumbered
    /// to the candidates kept), and how many pairs were left out.
    fn finish(self) -> (Vec<Candidate>, Vec<keys::Pair>, u64) {
        let mut ranked = self.heap.into_vec();
        ranked.sort_unstable_by_key(|r| r.key.4);
        let probed = ranked.len() as u64;
        // Every pair answered locally, then the probed ones; each group in
        // the order offered.
        let ranked: Vec<keys::Pair> = self
            .local
            .into_iter()
            .chain(ranked.into_iter().map(|r| r.pair))
            .collect();
        let mut kept: Vec<Candidate> = Vec::new();
        let mut renumbered: HashMap<usize, usize> = HashMap::new();
        let mut cands = self.cands;
        let mut pairs = Vec::with_capacity(ranked.len());
        for mut p in ranked {
            p.cand = *renumbered.entry(p.cand).or_insert_with(|| {
                kept.push(
                    *cands[p.cand]
                        .take()
                        .expect("a chosen pair's candidate is kept"),
                );
                kept.len() - 1
            });
            pairs.push(p);
        }
        let over = self.offered - probed;
        (kept, pairs, over)
    }
}

/// Least share of a reference's values created after the document holding
/// them for it to be a pointer to a dependent document.
const POINTER_SHARE: f64 = 0.8;

/// Whether a scalar ObjectId reference points at documents created after
/// the documents holding it, by the ObjectIds' own clocks: a parent exists
/// before its children, so a field pointing at later documents (a user's
/// profile picture, a conversation's last message, a city's details) is
/// the one side holding a pointer to a dependent, not a child naming its
/// parent. Ids drawn at random (hashes) fall either way and decide
/// nothing.
fn to_one_pointer(cand: &Candidate, from: &CollectionView<'_>) -> bool {
    use crate::profile::raw::{value::oid_seconds, BsonType};
    if cand.family != Family::ObjectId || cand.segments.contains(&Seg::Elem) {
        return false;
    }
    let (mut n, mut newer) = (0u64, 0u64);
    for d in from.docs {
        let Some(own) = crate::profile::extract::top(d, "_id")
            .filter(|e| e.ty == BsonType::ObjectId)
            .and_then(|e| oid_seconds(e.value))
        else {
            continue;
        };
        for el in crate::profile::extract::values(d, &cand.segments) {
            if el.ty != BsonType::ObjectId {
                continue;
            }
            let Some(at) = oid_seconds(el.value) else {
                continue;
            };
            n += 1;
            if at > own {
                newer += 1;
            }
        }
    }
    n >= super::evidence::MIN_FOUND && newer as f64 >= POINTER_SHARE * n as f64
}

/// A value as the reference's family compares it: a string the family
/// converts (a hex ObjectId, a numeric string) as that value.
fn as_family(b: bson::Bson, family: Family) -> bson::Bson {
    match &b {
        bson::Bson::String(s) if family != Family::String => {
            crate::source::value::converted(s, family)
                .and_then(|k| k.to_bson())
                .unwrap_or(b)
        }
        _ => b,
    }
}

type FanoutOutcome = (Option<Fanout>, Option<String>, Option<bool>);

/// Children per existing parent for one accepted reference.
async fn fanout_of<S: Probes>(
    source: &mut S,
    cand: &Candidate,
    from: &CollectionView<'_>,
    key: &TargetKey,
    to: &CollectionView<'_>,
    notes: &mut Vec<String>,
    cost: &mut RelateCost,
) -> Result<FanoutOutcome, SourceError> {
    if let Some(arr) = holding_array(&cand.segments) {
        // The parent holds its children's ids: the array length is the
        // fan-out, over every profiled document.
        let f = from
            .profile
            .get()
            .fields
            .iter()
            .find(|f| f.segments == arr)
            .and_then(|f| f.array_lengths.as_ref())
            .and_then(Fanout::from_histogram);
        return Ok((f, Some("array-length".into()), None));
    }
    let dotted = query_path(&cand.segments);
    // An export without metadata knows no index, not even `_id_`: whether
    // one starts with the field is unknown.
    let indexed = (!from.indexes.is_empty()).then(|| has_leading_index(from.indexes, &dotted));
    let big = from.documents.is_some_and(|d| d > GROUP_LIMIT);
    let what = format!("fan-out of {}.{}", from.namespace(), cand.path);
    if !big {
        cost.fanout_queries += 1;
        match source.value_counts(from.meta, &dotted, MAX_PARENTS).await {
            Ok(Some(rows)) => {
                let rows: Vec<(bson::Bson, u64)> = rows
                    .into_iter()
                    .map(|(b, n)| (as_family(b, cand.family), n))
                    .collect();
                let values: Vec<bson::Bson> = rows.iter().map(|r| r.0.clone()).collect();
                let rows: Vec<(ValueKey, u64)> = rows
                    .iter()
                    .filter_map(|(b, n)| of_bson(b).map(|k| (k, *n)))
                    .collect();
                match existing(source, key, to, &values, cost).await {
                    Ok(exists) => {
                        let f = Fanout::over_existing(&rows, &exists, to.documents, 1.0);
                        return Ok((f, Some(source.group_method().into()), indexed));
                    }
                    Err(e) if e.is_fatal() => return Err(e),
                    Err(e) => notes.push(format!("{what} estimated from the sample: {e}")),
                }
            }
            Ok(None) => {
                // Too many parents to check one by one: every referenced
                // value counts as a parent.
                cost.fanout_queries += 1;
                match source.group_counts(from.meta, &dotted).await {
                    Ok(mut counts) => {
                        let with_children: u64 = counts.iter().map(|c| c.1).sum();
                        if let Some(parents) = to.documents {
                            if parents > with_children {
                                counts.push((0, parents - with_children));
                            }
                        }
                        notes.push(format!(
                            "{what}: more than {MAX_PARENTS} parents, so references to missing parents are counted too"
                        ));
                        let f = Fanout::from_counts(&counts);
                        return Ok((f, Some(source.group_method().into()), indexed));
                    }
                    Err(e) if e.is_fatal() => return Err(e),
                    Err(e) => notes.push(format!("{what} estimated from the sample: {e}")),
                }
            }
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => notes.push(format!("{what} estimated from the sample: {e}")),
        }
    }
    // Count over the kept sample, scaled to the collection.
    let scale = match (from.documents, from.docs.len()) {
        (Some(d), n) if n > 0 => d as f64 / n as f64,
        _ => 1.0,
    };
    let mut per: HashMap<ValueKey, (bson::Bson, u64)> = HashMap::new();
    for d in from.docs {
        for el in crate::profile::extract::values(d, &cand.segments) {
            let Some(b) = crate::profile::value_of(&el).map(|b| as_family(b, cand.family)) else {
                continue;
            };
            let Some(k) = of_bson(&b) else {
                continue;
            };
            per.entry(k).or_insert((b, 0)).1 += 1;
        }
    }
    let values: Vec<bson::Bson> = per.values().map(|v| v.0.clone()).collect();
    let exists = match existing(source, key, to, &values, cost).await {
        Ok(e) => e,
        Err(e) if e.is_fatal() => return Err(e),
        Err(e) => {
            notes.push(format!(
                "{what}: parents not checked, every referenced value counts: {e}"
            ));
            per.keys().cloned().collect()
        }
    };
    let rows: Vec<(ValueKey, u64)> = per.into_iter().map(|(k, (_, n))| (k, n)).collect();
    let f = Fanout::over_existing(&rows, &exists, None, scale);
    Ok((f, Some("sample".into()), indexed))
}

/// Which of `values` are keys of the target: from its kept sample when
/// that is every document, otherwise probed in batches.
async fn existing<S: Probes>(
    source: &mut S,
    key: &TargetKey,
    to: &CollectionView<'_>,
    values: &[bson::Bson],
    cost: &mut RelateCost,
) -> Result<HashSet<ValueKey>, SourceError> {
    if key.complete {
        return Ok(values
            .iter()
            .filter_map(of_bson)
            .filter(|k| key.seen.contains(k))
            .collect());
    }
    // Batches of at most PROBE_BYTES each, sent together: a server answers
    // several at once, a file answers all of them in one scan.
    let mut asks: Vec<(&str, &[bson::Bson])> = Vec::new();
    let mut start = 0;
    while start < values.len() {
        let mut end = start;
        let mut bytes = 0;
        while end < values.len() && (end == start || bytes < PROBE_BYTES) {
            bytes += approx_size(&values[end]);
            end += 1;
        }
        asks.push((key.key.as_str(), &values[start..end]));
        start = end;
    }
    cost.existence_queries += asks.len() as u64;
    let mut out = HashSet::new();
    for found in source.probe_many(to.meta, &asks).await? {
        out.extend(found?.iter().filter_map(of_bson));
    }
    Ok(out)
}

fn approx_size(b: &bson::Bson) -> usize {
    match b {
        bson::Bson::String(s) => s.len() + 16,
        _ => 24,
    }
}

/// Whether a target key other than `_id` is unique.
async fn uniqueness<S: Probes>(
    source: &mut S,
    key: &TargetKey,
    to: &CollectionView<'_>,
    notes: &mut Vec<String>,
    cost: &mut RelateCost,
) -> Result<Option<KeyUniqueness>, SourceError> {
    let show = |b: &bson::Bson| Some(b.clone().relaxed());
    if key.key == "_id" {
        return Ok(None);
    }
    if key.unique_index {
        return Ok(Some(KeyUniqueness {
            unique: true,
            method: "unique-index".into(),
            duplicate: None,
        }));
    }
    if let Some(d) = &key.duplicate {
        return Ok(Some(KeyUniqueness {
            unique: false,
            method: "sample".into(),
            duplicate: show(d),
        }));
    }
    if key.complete {
        return Ok(Some(KeyUniqueness {
            unique: true,
            method: "sample".into(),
            duplicate: None,
        }));
    }
    cost.uniqueness_queries += 1;
    match source.duplicate_key(to.meta, &key.key).await {
        Ok(d) => Ok(Some(KeyUniqueness {
            unique: d.is_none(),
            method: source.group_method().into(),
            duplicate: d.as_ref().and_then(show),
        })),
        Err(e) if e.is_fatal() => Err(e),
        Err(e) => {
            notes.push(format!(
                "uniqueness of {}.{} not checked: {e}",
                to.namespace(),
                key.key
            ));
            Ok(None)
        }
    }
}

/// For each extended reference held by collection `ci`, compares the
/// copied fields with the referenced documents (fetched by id) and, for
/// fields those documents do not hold, copies of the same reference with
/// each other.
pub(crate) async fn drift_checks<S: Probes>(
    source: &mut S,
    ci: usize,
    colls: &[CollectionView<'_>],
    rels: &[Relationship],
    cost: &mut RelateCost,
) -> Result<Vec<DriftCheck>, SourceError> {
    let c = &colls[ci];
    let ns = c.namespace();
    let mut out = Vec::new();
    let profile = c.profile.get();
    let mine: Vec<&Relationship> = rels.iter().filter(|r| r.from_ns == ns).collect();
    for r in rels
        .iter()
        .filter(|r| r.from_ns == ns && r.kind == super::Kind::ExtendedReference)
    {
        // A copy inside another copy (the accounts a notification's
        // embedded ticket holds) is that source's copy, checked there.
        if super::inside_a_copy(r, &mine) {
            continue;
        }
        let Some(field) = profile.fields.iter().find(|f| f.path == r.from_path) else {
            continue;
        };
        let holder_segs = &field.segments[..field.segments.len() - 1];
        let Some(Seg::Key(ref_name)) = field.segments.last() else {
            continue;
        };
        let Some(target) = colls.iter().find(|x| x.namespace() == r.to_ns) else {
            continue;
        };
        let siblings: Vec<&crate::profile::FieldProfile> = profile
            .fields
            .iter()
            .filter(|f| {
                f.segments.len() == field.segments.len()
                    && f.segments[..holder_segs.len()] == *holder_segs
                    && f.segments != field.segments
            })
            .collect();
        if !is_copy_identity(ref_name, &siblings, target.name) {
            continue;
        }
        // The holder's own `_id` (an array element's, a sub-document's) is
        // its identity, never a copied field. A list of values (a user's
        // team ids) is copied as a whole, like a value.
        let copied: Vec<String> = siblings
            .iter()
            .filter(|f| f.name != "_id")
            .filter(|f| is_copied_value(f, &profile.fields))
            .map(|f| f.name.clone())
            .collect();
        if copied.is_empty() {
            continue;
        }
        let key = r.to.rsplit_once('.').map_or("_id", |(_, k)| k).to_owned();
        // The copies name their source in the key's own type: an id copied
        // as its hex string (or a number as text) is read as the key it
        // names before the source is fetched.
        let family = key_family(target, &key);
        let mut copies = drift::copies(c.docs, holder_segs, ref_name);
        let converted = family.map_or(0, |f| drift::identities_as(&mut copies, f));
        let mut ids: Vec<bson::Bson> = Vec::new();
        let mut seen: HashSet<ValueKey> = HashSet::new();
        for (rv, _) in &copies {
            if ids.len() >= DRIFT_REFS {
                break;
            }
            if let Some(k) = of_bson(rv) {
                if seen.insert(k) {
                    ids.push(rv.clone());
                }
            }
        }
        cost.drift_fetches += 1;
        let sources = source.fetch(target.meta, &key, &ids, &copied).await?;
        let by_id: HashMap<ValueKey, &bson::Document> = sources
            .iter()
            .filter_map(|d| d.get(&key).and_then(of_bson).map(|k| (k, d)))
            .collect();
        let (shared, unshared): (Vec<String>, Vec<String>) = copied
            .iter()
            .cloned()
            .partition(|f| sources.iter().any(|s| s.contains_key(f.as_str())));
        let base = DriftCheck {
            holder: render_path(holder_segs),
            reference: r.from_path.clone(),
            source_ns: r.to_ns.clone(),
            identities_converted: converted,
            key_type: family.filter(|_| converted > 0).map(drift::type_name),
            ..DriftCheck::default()
        };
        if !shared.is_empty() {
            let mut check = DriftCheck {
                kind: DriftKind::Source,
                fields: shared,
                ..base.clone()
            };
            drift::against_source(&mut check, &copies, &by_id);
            out.push(check);
        }
        if !unshared.is_empty() {
            let mut check = DriftCheck {
                kind: DriftKind::BetweenCopies,
                fields: unshared,
                ..base
            };
            drift::between_copies(&mut check, &copies);
            if check.groups > 0 {
                out.push(check);
            }
        }
    }
    Ok(out)
}

/// Checks each pair of references between two collections that point at
/// each other (`rooms.controllers[]` → `controllers._id`, and
/// `controllers.roomId` → `rooms._id`): the links each side's kept
/// documents hold, against the documents they name on the other side —
/// those kept when the other side was read whole, else read by one
/// bounded query per direction (at most [`DRIFT_REFS`] documents, under
/// the run's timeout). A pair whose links agree both ways
/// ([`twoway::TwoWaySync::is_two_way`]) is one two-way reference: both
/// relationships say so (a copy's identity stays an extended reference),
/// and the one whose side reports carries the check.
pub(crate) async fn two_way_checks<S: Probes>(
    source: &mut S,
    colls: &[CollectionView<'_>],
    rels: &mut [Relationship],
    notes: &mut Vec<String>,
    cost: &mut RelateCost,
) -> Result<(), SourceError> {
    let eligible = |r: &Relationship, all: &[&Relationship]| {
        r.kind != super::Kind::Embedded
            && r.polymorphic.is_none()
            && r.from_ns != r.to_ns
            && !super::inside_a_copy(r, all)
    };
    let couples: Vec<(usize, usize)> = {
        let all: Vec<&Relationship> = rels.iter().collect();
        (0..rels.len())
            .flat_map(|i| (i + 1..rels.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| {
                rels[i].from_ns == rels[j].to_ns
                    && rels[i].to_ns == rels[j].from_ns
                    && eligible(&rels[i], &all)
                    && eligible(&rels[j], &all)
            })
            .collect()
    };
    for (i, j) in couples {
        let sync = match two_way_check(source, colls, &rels[i], &rels[j], cost).await {
            Ok(Some(s)) if s.is_two_way() => s,
            Ok(_) => continue,
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => {
                notes.push(format!(
                    "the two sides of {} and {} were not checked against each other: {e}",
                    rels[i].from, rels[j].from
                ));
                continue;
            }
        };
        for k in [i, j] {
            if rels[k].kind != super::Kind::ExtendedReference {
                rels[k].kind = super::Kind::TwoWayReference;
            }
        }
        let carrier =
            if sync.this.namespace == rels[i].from_ns && sync.this.path == rels[i].from_path {
                i
            } else {
                j
            };
        rels[carrier].two_way = Some(sync);
    }
    Ok(())
}

/// The segments of a relationship's reference in its collection: an array
/// of ids is named by the array (`controllers`), its values are its
/// elements (`controllers[]`).
fn reference_segments(profile: &crate::profile::Profile, path: &str) -> Option<Vec<Seg>> {
    let elems = format!("{path}[]");
    profile
        .fields
        .iter()
        .find(|f| f.path == elems && f.main_type().is_some_and(|t| !t.is_container()))
        .or_else(|| profile.fields.iter().find(|f| f.path == path))
        .map(|f| f.segments.clone())
}

/// One side of a pair of references, as the check reads it.
struct SideView<'r, 'c> {
    rel: &'r Relationship,
    coll: &'r CollectionView<'c>,
    /// Its reference's values, and its own key the other side names.
    reference: Vec<Seg>,
    key: String,
    family: Family,
}

/// The links of `a` (held by `a.rel`) checked against the documents of
/// `b`: those kept when `b` was read whole, else read by one query.
async fn check_direction<S: Probes>(
    source: &mut S,
    a: &SideView<'_, '_>,
    b: &SideView<'_, '_>,
    cost: &mut RelateCost,
) -> Result<twoway::Direction, SourceError> {
    let key_segs = |k: &str| -> Vec<Seg> { k.split('.').map(|p| Seg::Key(p.to_owned())).collect() };
    let links = twoway::links(
        a.coll.docs,
        &key_segs(&a.key),
        a.family,
        &a.reference,
        b.family,
    );
    if b.coll.complete {
        let named = twoway::named_back(
            b.coll.docs,
            &key_segs(&b.key),
            b.family,
            &b.reference,
            a.family,
        );
        return Ok(twoway::check(&links, &named, &|_| true));
    }
    let asked = twoway::named_keys(&links, DRIFT_REFS);
    if asked.is_empty() {
        return Ok(twoway::Direction::default());
    }
    let values: Vec<bson::Bson> = asked.iter().filter_map(ValueKey::to_bson).collect();
    let Some(Seg::Key(top)) = b.reference.first() else {
        return Ok(twoway::Direction::default());
    };
    cost.two_way_fetches += 1;
    let found = source
        .fetch(b.coll.meta, &b.key, &values, std::slice::from_ref(top))
        .await?;
    let raw: Vec<Vec<u8>> = found
        .iter()
        .filter_map(|d| {
            let mut v = Vec::new();
            d.to_writer(&mut v).ok().map(|()| v)
        })
        .collect();
    let named = twoway::named_back(&raw, &key_segs(&b.key), b.family, &b.reference, a.family);
    let asked: HashSet<ValueKey> = asked.into_iter().collect();
    Ok(twoway::check(&links, &named, &|k| asked.contains(k)))
}

/// The two sides of references `r` (A → B) and `back` (B → A) checked
/// against each other; `None` when either side holds no link to check.
async fn two_way_check<'r, 'c, S: Probes>(
    source: &mut S,
    colls: &'r [CollectionView<'c>],
    r: &'r Relationship,
    back: &'r Relationship,
    cost: &mut RelateCost,
) -> Result<Option<twoway::TwoWaySync>, SourceError> {
    // A side: its relationship, collection, reference and own key named
    // by the other relationship.
    let side = |rel: &'r Relationship, key_of: &Relationship| -> Option<SideView<'r, 'c>> {
        let coll = colls.iter().find(|c| c.namespace() == rel.from_ns)?;
        let key = key_of
            .to
            .strip_prefix(&format!("{}.", key_of.to_ns))
            .unwrap_or("_id")
            .to_owned();
        Some(SideView {
            rel,
            reference: reference_segments(&coll.profile.get(), &rel.from_path)?,
            family: key_family(coll, &key)?,
            coll,
            key,
        })
    };
    let (Some(a), Some(b)) = (side(r, back), side(back, r)) else {
        return Ok(None);
    };
    let from_a = check_direction(source, &a, &b, cost).await?;
    if from_a.checked == 0 {
        return Ok(None);
    }
    let from_b = check_direction(source, &b, &a, cost).await?;
    if from_b.checked == 0 {
        return Ok(None);
    }
    let described = |s: &SideView<'_, '_>| twoway::Side {
        namespace: s.rel.from_ns.clone(),
        path: s.rel.from_path.clone(),
        key: s.key.clone(),
        key_type: drift::type_name(s.family),
        list: s.reference.contains(&Seg::Elem),
        values: render_path(&s.reference),
    };
    let (side_a, side_b) = (described(&a), described(&b));
    let scope = if a.coll.complete && b.coll.complete {
        "collection"
    } else {
        "sample"
    };
    let a_reports = twoway::reported_by_first((&side_a, &from_a), (&side_b, &from_b));
    Ok(Some(if a_reports {
        twoway::TwoWaySync {
            this: side_a,
            other: side_b,
            from_this: from_a,
            from_other: from_b,
            scope,
        }
    } else {
        twoway::TwoWaySync {
            this: side_b,
            other: side_a,
            from_this: from_b,
            from_other: from_a,
            scope,
        }
    }))
}

/// The family of the values of `key` in a collection, from its profile.
fn key_family(c: &CollectionView<'_>, key: &str) -> Option<Family> {
    let profile = c.profile.get();
    let f = profile.fields.iter().find(|f| f.path == key)?;
    keys::family_of(f.main_type()?)
}

/// Whether a field beside a copy's identity is a copied value: a scalar,
/// or an array of scalars (compared as a whole).
fn is_copied_value(
    f: &crate::profile::FieldProfile,
    fields: &[crate::profile::FieldProfile],
) -> bool {
    match f.main_type() {
        Some(crate::profile::raw::BsonType::Array) => {
            let mut elems = f.segments.clone();
            elems.push(Seg::Elem);
            fields
                .iter()
                .find(|e| e.segments == elems)
                .is_none_or(|e| e.main_type().is_some_and(|t| !t.is_container()))
        }
        Some(t) => !t.is_container(),
        None => false,
    }
}

/// Whether the reference `ref_name` is the identity of the sub-document
/// holding it, so that the sub-document is a copy of the document it
/// references (in collection `target`): the holder's own `_id`, or, in a
/// holder without one, a field that names its holder (`customer.id`) or
/// the target (`author.user` → `users`). A reference beside the holder's
/// own `_id` (a chat participant's `user`, a ticket's `group`) is a
/// reference held by the sub-document, not the mark of a copy.
pub(crate) fn is_copy_identity(
    ref_name: &str,
    siblings: &[&crate::profile::FieldProfile],
    target: &str,
) -> bool {
    if ref_name == "_id" {
        return true;
    }
    if siblings.iter().any(|f| f.name == "_id") {
        return false;
    }
    keys::names_its_holder(ref_name) || super::stem(ref_name) == super::stem(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relate::evidence::{Affinity, ChanceBasis};
    use crate::relate::keys::References;

    #[test]
    fn the_budget_ranks_chance_by_its_decade() {
        assert_eq!(chance_decade(0.0), 0);
        assert_eq!(chance_decade(0.0032), chance_decade(0.0033));
        assert!(chance_decade(0.0009) < chance_decade(0.0033));
        assert!(chance_decade(0.0033) < chance_decade(0.02));
        assert!(chance_decade(1e-12) > chance_decade(0.0));
        assert_eq!(chance_decade(1.0), 301);
        assert_eq!(chance_decade(f64::NAN), 0);
    }

    fn cand(n: usize) -> Candidate {
        let keys = vec![ValueKey::Int(n as i64)];
        Candidate {
            chance: ChanceBasis::of(Family::Number, &keys),
            coll: n,
            path: format!("f{n}"),
            segments: vec![Seg::Key(format!("f{n}"))],
            family: Family::Number,
            name: format!("f{n}"),
            stem: format!("f{n}"),
            referent: vec![format!("f{n}")],
            structure: evidence::Structure::Held,
            near_unique: false,
            informative: true,
            refs: References {
                weights: vec![1],
                total: 1,
                keys,
                identifier_share: 1.0,
                converted: Vec::new(),
            },
        }
    }

    fn pair(target: usize, name: bool, chance: f64) -> keys::Pair {
        keys::Pair {
            cand: 0,
            target,
            name: name.then_some(Affinity::Collection),
            link: None,
            chance,
            in_span: true,
            seen: false,
            local: false,
        }
    }

    use super::super::evidence;

    #[test]
    fn the_probe_budget_goes_to_named_pairs_then_to_the_least_chance() {
        let mut chosen = Chosen::default();
        let budget = MAX_PROBES as usize;
        // A first candidate with more unnamed pairs than the budget, the
        // first 101 of a chance ten times larger than the rest (within a
        // decade the order offered decides); then one named pair; then a
        // candidate whose pairs are all weaker than those chosen.
        let first: Vec<keys::Pair> = (0..budget + 100)
            .map(|t| pair(t, false, if t < 101 { 0.5 } else { 0.05 - t as f64 * 1e-6 }))
            .collect();
        chosen.offer(cand(0), first);
        chosen.offer(cand(1), vec![pair(7, true, 0.9)]);
        chosen.offer(cand(2), vec![pair(3, false, 0.99)]);
        assert!(chosen.cands[2].is_none(), "values dropped at once");
        let (cands, pairs, over) = chosen.finish();
        assert_eq!(pairs.len(), budget);
        assert_eq!(over, 102);
        assert_eq!(
            cands.iter().map(|c| c.coll).collect::<Vec<_>>(),
            [0, 1],
            "the kept candidates, renumbered"
        );
        let named: Vec<&keys::Pair> = pairs.iter().filter(|p| p.name.is_some()).collect();
        assert_eq!(named.len(), 1, "the named pair is chosen over chance");
        assert_eq!(cands[named[0].cand].coll, 1);
        // The unnamed pairs kept are those of the least decade of chance:
        // the last ones offered, in the order they were found.
        let targets: Vec<usize> = pairs
            .iter()
            .filter(|p| p.name.is_none())
            .map(|p| p.target)
            .collect();
        assert_eq!(targets, (101..budget + 100).collect::<Vec<_>>());
    }

    #[test]
    fn under_the_budget_every_pair_is_probed_in_the_order_found() {
        let mut chosen = Chosen::default();
        chosen.offer(cand(0), vec![pair(2, false, 0.3), pair(0, true, 0.1)]);
        chosen.offer(cand(1), vec![]);
        chosen.offer(cand(2), vec![pair(1, false, 0.0)]);
        let (cands, pairs, over) = chosen.finish();
        assert_eq!(over, 0);
        assert_eq!(
            pairs.iter().map(|p| (p.cand, p.target)).collect::<Vec<_>>(),
            [(0, 2), (0, 0), (1, 1)]
        );
        assert_eq!(cands.iter().map(|c| c.coll).collect::<Vec<_>>(), [0, 2]);
    }

    #[test]
    fn a_pointer_to_later_documents_is_held_by_the_one_side() {
        use crate::profile::Profiler;
        let at = |secs: u32, n: u32| {
            let mut b = [0u8; 12];
            b[..4].copy_from_slice(&secs.to_be_bytes());
            b[8..].copy_from_slice(&n.to_be_bytes());
            bson::oid::ObjectId::from_bytes(b)
        };
        // (reference's clock relative to its holder's, expected)
        for (offset, want) in [(3600i64, true), (-3600, false), (0, false)] {
            let mut p = Profiler::default();
            let mut docs = Vec::new();
            for i in 0..20u32 {
                let own = 1_600_000_000 + i * 86_400;
                let d = bson::doc! {"_id": at(own, i), "profilePicture": at((i64::from(own) + offset) as u32, 100 + i)};
                let mut v = Vec::new();
                d.to_writer(&mut v).expect("serialise");
                p.add(&v).expect("valid");
                docs.push(v);
            }
            let prof = p.finish();
            let meta = crate::source::CollectionMeta::new("db", "users");
            let growth = crate::growth::ByPath::new();
            let view = CollectionView {
                db: "db",
                name: "users",
                profile: crate::profile::shelf::ProfileRef::here(&prof),
                docs: &docs,
                indexes: &[],
                growth: &growth,
                documents: Some(20),
                meta: &meta,
                complete: true,
            };
            let mut c = cand(0);
            c.family = Family::ObjectId;
            c.segments = vec![Seg::Key("profilePicture".into())];
            assert_eq!(to_one_pointer(&c, &view), want, "{offset}");
        }
    }

    #[test]
    fn a_sub_document_is_a_copy_only_by_its_own_identity() {
        use crate::profile::Profiler;
        let mut p = Profiler::default();
        let d = bson::doc! {"participants": [{"_id": 1, "user": 7, "role": "admin"}], "customer": {"id": 3, "name": "n"}, "author": {"user": 4, "name": "a"}};
        let mut v = Vec::new();
        d.to_writer(&mut v).expect("serialise");
        p.add(&v).expect("valid");
        let prof = p.finish();
        let siblings = |holder: &str| -> Vec<&crate::profile::FieldProfile> {
            prof.fields
                .iter()
                .filter(|f| {
                    f.path.starts_with(holder)
                        && f.path.len() > holder.len()
                        && !f.path[holder.len() + 1..].contains('.')
                })
                .collect()
        };
        // The participant's own `_id` is its identity: its `user` is a
        // reference it holds, not the mark of a copy of users.
        assert!(!is_copy_identity(
            "user",
            &siblings("participants[]"),
            "users"
        ));
        assert!(is_copy_identity(
            "_id",
            &siblings("participants[]"),
            "users"
        ));
        // No `_id`: a field naming its holder, or the target.
        assert!(is_copy_identity("id", &siblings("customer"), "customers"));
        assert!(is_copy_identity("user", &siblings("author"), "users"));
        assert!(!is_copy_identity("user", &siblings("author"), "groups"));
    }
}
