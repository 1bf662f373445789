//! Whether a field holds references, by evidence rather than coincidence.
//!
//! A reference is accepted on its values alone: how many of the field's
//! sampled values were found among the target's keys, compared with how
//! many would be found if the values had nothing to do with the target.
//! - The **chance rate** comes from the value domain. For integers it is
//!   the target key's density around each value — the share of nearby
//!   integers that are keys (small ints 0..199 against `_id`s 0..199 hit by
//!   construction, a chance rate of 1) — taken at an upper confidence bound
//!   when the keys are a sample, so that a sample's gaps never make a dense
//!   range look sparse. For strings it is the target's keys over the space
//!   a string of that shape spans, where a word carries the information of
//!   a word of English ([`WORD_BITS`]), not of its letters (emails and uuids
//!   never match by chance; two-letter codes and common words often do).
//!   ObjectIds never collide.
//! - The **test**: the observed share must exceed the chance rate by
//!   [`MARGIN`], and the binomial tail probability of that many hits by
//!   chance must be at most the per-pair level: [`FAMILY_ALPHA`] divided by
//!   the number of candidate pairs the run weighed (Bonferroni), so that
//!   the chance of one false reference over a whole deployment, however
//!   many collections it has, stays at most [`FAMILY_ALPHA`].
//! - **Names** never make a reference: they only decide which pairs are
//!   probed first and, between targets the values accept alike, which one
//!   is kept.
//! - **Structure**: a field under an operator key (`$or`, `$set`: a recorded
//!   query or update) never holds references.
//!
//! Fields whose values cannot identify anything (constant or
//! near-constant, a version counter, a flag) are never candidates; see
//! `keys::candidates_of`.

use std::collections::HashMap;

use serde::Serialize;

use crate::profile::raw::BsonType;
use crate::profile::{FieldProfile, Profile, Seg};

/// Chance of accepting one false reference in a whole run (every
/// candidate pair of the deployment together).
pub const FAMILY_ALPHA: f64 = 0.01;
/// Largest chance probability of an edge key a sample may have missed
/// (see [`chance_rate_integers`]).
pub const ALPHA: f64 = 1e-6;
/// How far the observed distinct match rate must exceed the chance rate.
pub const MARGIN: f64 = 0.25;
/// Distinct values that must be found for value evidence.
pub const MIN_FOUND: u64 = 2;
/// Reference match rate from which value evidence makes a reference.
pub const MIN_MATCH_EVIDENCED: f64 = 0.5;
/// `accepted_by` of an accepted reference: its values.
pub const BY_VALUES: &str = "values";
/// Information of one word of English, in bits (Shannon's estimate of the
/// entropy of printed English per word, 11.82 bits): what a word in a
/// field's value tells, however many letters it has.
pub const WORD_BITS: f64 = 11.82;

/// The level each pair is tested at when the run weighed `tests` pairs.
pub(crate) fn alpha_for(tests: u64) -> f64 {
    FAMILY_ALPHA / tests.max(1) as f64
}
/// Least share of a container's occurrences that hold each step of the
/// path, and least mean share of the container's fields (uniformity).
pub const MIN_SHARE: f64 = 0.5;
/// Sub-documents between a reference found by name and structure and the
/// document or array element holding it (`x_id`, `x.id`, `xs[].x_id`,
/// `xs[].x.id`: at most one).
pub const MAX_NESTING: usize = 1;

/// What the field's name says about the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Affinity {
    /// The name points at the target collection (`customer_id` → `customers`).
    Collection,
    /// The name is the target key's (`account_id` → `accounts.account_id`).
    Key,
}

/// Where the field sits in its documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Structure {
    /// A regular field of the document or of uniform sub-documents.
    Held,
    /// Under an operator key (`$or`, `$in`, `$set` …): a recorded query or
    /// update, never a stored reference.
    Operator,
    /// In a sub-document whose fields vary between occurrences, or present
    /// in a minority of its container's occurrences.
    Heterogeneous,
    /// More than [`MAX_NESTING`] sub-documents deep.
    Deep,
}

/// The evidence behind one relationship, as the report shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Evidence {
    /// The chance test applied: `binomial-chance`.
    pub test: &'static str,
    /// Share of the probed values expected to match by chance.
    pub chance_rate: f64,
    /// Share of the probed distinct values found.
    pub observed: f64,
    /// Distinct values probed and found.
    pub values: u64,
    pub found: u64,
    /// Probability of finding at least `found` of `values` by chance.
    pub p_value: f64,
    /// Candidate pairs the run weighed, and the level each was tested at
    /// ([`FAMILY_ALPHA`] / `tests`).
    pub tests: u64,
    pub alpha: f64,
    /// True when the values reject chance.
    pub by_values: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<Affinity>,
    /// How the field's name links it to the target collection, when it
    /// does (`AlbumId` → `Album`: `exact`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<super::names::Link>,
    /// Share of the probed values inside the target key's range (numbers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_range: Option<f64>,
    pub structure: Structure,
    /// What the reference rests on: `values` (matches chance cannot
    /// explain) or `name-and-values` (a name linking the field to the
    /// target, with values that do not contradict it); absent when not
    /// accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted_by: Option<&'static str>,
}

/// `accepted_by` of a reference whose name is the evidence.
pub const BY_NAME_AND_VALUES: &str = "name-and-values";
/// Expected chance matches among the probed values below which the
/// matches found are free of chance (ObjectIds, hex strings, long codes):
/// a handful proves a reference even when most values point nowhere.
pub const CHANCE_FREE: f64 = 1e-3;
/// Least share of a name-linked field's values inside the target key's
/// range: values that mostly lie outside contradict the name.
pub const MIN_IN_RANGE: f64 = 0.9;

/// One probe's outcome and what the pair's names and place say, as
/// [`Evidence::weigh`] takes them.
#[derive(Clone, Copy, Debug)]
pub struct Weighing {
    pub chance_rate: f64,
    /// Distinct values probed, and found among the target's keys.
    pub values: u64,
    pub found: u64,
    /// References found / references probed.
    pub reference_rate: f64,
    pub name: Option<Affinity>,
    pub link: Option<super::names::Link>,
    /// Share of the probed values inside the key's range, for numbers.
    pub in_range: Option<f64>,
    pub structure: Structure,
    /// Candidate pairs the run weighed.
    pub tests: u64,
    /// The field is a sub-document's own `_id`: its identity, which only a
    /// copy of another document shares with that document.
    pub identity: bool,
}

impl Evidence {
    /// Weighs one probe result. Values accept a reference where chance
    /// cannot explain the matches: beyond the chance rate by [`MARGIN`]
    /// at the run's level, with half the references found, or with any
    /// share found when the matches are free of chance ([`CHANCE_FREE`]:
    /// the dangling share is then the finding, not a doubt) — except for a
    /// sub-document's own `_id`, which is a copy of another document's
    /// only when most of them are. Where values
    /// cannot tell (dense integers, words), a name linking the field to
    /// the target accepts it when the values do not contradict it: half
    /// the references found, nine in ten values inside the key's range.
    pub(crate) fn weigh(w: Weighing) -> Evidence {
        let Weighing {
            chance_rate,
            values,
            found,
            reference_rate,
            name,
            link,
            in_range,
            structure,
            tests,
            identity,
        } = w;
        let observed = if values == 0 {
            0.0
        } else {
            found as f64 / values as f64
        };
        let p_value = binomial_tail(values, found, chance_rate);
        let alpha = alpha_for(tests);
        let chance_free = chance_rate * values as f64 <= CHANCE_FREE;
        let by_values = found >= MIN_FOUND
            && (observed >= chance_rate + MARGIN || chance_free)
            && p_value <= alpha;
        let accepted_by = if structure == Structure::Operator {
            None
        } else if by_values && (reference_rate >= MIN_MATCH_EVIDENCED || (chance_free && !identity))
        {
            Some(BY_VALUES)
        } else if link.is_some()
            && structure == Structure::Held
            && found >= MIN_FOUND
            && reference_rate >= MIN_MATCH_EVIDENCED
            && in_range.is_none_or(|r| r >= MIN_IN_RANGE)
        {
            Some(BY_NAME_AND_VALUES)
        } else {
            None
        };
        Evidence {
            test: "binomial-chance",
            chance_rate: round4(chance_rate),
            observed: round4(observed),
            values,
            found,
            p_value: significant(p_value),
            tests,
            alpha: significant(alpha),
            by_values,
            name,
            link,
            in_range: in_range.map(round4),
            structure,
            accepted_by,
        }
    }

    pub(crate) fn accepted(&self) -> bool {
        self.accepted_by.is_some()
    }

    /// Whether the reference rests on its name (the values could not tell).
    pub(crate) fn by_name(&self) -> bool {
        self.accepted_by == Some(BY_NAME_AND_VALUES)
    }

    /// Whether the matches found are free of chance (ObjectIds, hex
    /// strings, long codes).
    pub(crate) fn chance_free(&self) -> bool {
        self.chance_rate * self.values as f64 <= CHANCE_FREE
    }

    /// Whether some probe result could make this pair a reference by its
    /// values: even a full match of `values` distinct values must beat
    /// chance at the level of a run of one pair (the most lenient there
    /// is).
    pub(crate) fn reachable(chance_rate: f64, values: u64, structure: Structure) -> bool {
        structure != Structure::Operator
            && values >= MIN_FOUND
            && 1.0 >= chance_rate + MARGIN
            && binomial_tail(values, values, chance_rate) <= FAMILY_ALPHA
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Three significant digits, so tiny probabilities stay visible.
fn significant(p: f64) -> f64 {
    if p <= 0.0 || !p.is_finite() {
        return p.max(0.0);
    }
    let mag = 10f64.powi(2 - p.log10().floor() as i32);
    (p * mag).round() / mag
}

/// `P[X ≥ k]` for `X ~ Binomial(n, p)`.
pub(crate) fn binomial_tail(n: u64, k: u64, p: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n || p <= 0.0 {
        return 0.0;
    }
    if p >= 1.0 {
        return 1.0;
    }
    let ln_n = ln_factorial(n);
    let (lp, lq) = (p.ln(), (1.0 - p).ln());
    let terms: Vec<f64> = (k..=n)
        .map(|i| ln_n - ln_factorial(i) - ln_factorial(n - i) + i as f64 * lp + (n - i) as f64 * lq)
        .collect();
    let top = terms.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = terms.iter().map(|t| (t - top).exp()).sum();
    (top + sum.ln()).exp().min(1.0)
}

/// `ln(m!)`: a table up to 1,024, Stirling's series beyond.
fn ln_factorial(m: u64) -> f64 {
    const TABLE: usize = 1025;
    static LN_FACT: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let table = LN_FACT.get_or_init(|| {
        let mut t = Vec::with_capacity(TABLE);
        let mut acc = 0.0;
        t.push(0.0);
        for i in 1..TABLE {
            acc += (i as f64).ln();
            t.push(acc);
        }
        t
    });
    match usize::try_from(m) {
        Ok(i) if i < TABLE => table[i],
        _ => {
            let x = m as f64;
            x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
                - 1.0 / (360.0 * x * x * x)
        }
    }
}

/// Sample keys around a value from which the target's local density is
/// read.
const NEIGHBOURS: usize = 16;

/// Chance rate of integer values against numeric target keys: the mean,
/// over the candidate's values, of the target's key density around each
/// value — the share of nearby integers that are keys. Dense ids 0..199
/// make every small int a key (a rate of 1); 1,746 account numbers spread
/// over a million integers make a chance hit rare. `keys` is the target's
/// sampled keys, sorted and distinct; `distinct` estimates the distinct
/// keys of the whole target, so that a sample's density is scaled up.
///
/// A value beyond the sampled range can only match a key the sample
/// missed. The sample's extremes are not the collection's: a sample of a
/// fraction `f` of the keys misses the `k` keys nearest an edge with
/// probability `(1 − f)^k`. So a value is taken to lie where the keys end
/// (no chance) only when the keys the edge's density puts between it and
/// the edge would all have been missed with probability below [`ALPHA`];
/// otherwise it gets the density at the edge. (Dense ids 0..2599 sampled
/// 1,000 at a time leave the smallest ten out about once in eighty runs;
/// small counts 0..6 then look like rare hits, which they are not.)
pub(crate) fn chance_rate_integers(values: &[f64], keys: &[f64], distinct: f64) -> f64 {
    if values.is_empty() {
        return 1.0;
    }
    let (Some(&lo), Some(&hi)) = (keys.first(), keys.last()) else {
        return 0.0;
    };
    let scale = (distinct / keys.len() as f64).max(1.0);
    let missed = 1.0 - 1.0 / scale;
    let nearest = NEIGHBOURS.min(keys.len());
    let mut sum = 0.0;
    for &value in values {
        let at = value.clamp(lo, hi);
        // The distance to the nearest-th key, walking out from `at`.
        let mut right = keys.partition_point(|&k| k < at);
        let mut left = right;
        let mut reach = 0.0f64;
        for _ in 0..nearest {
            let go_left = match (left.checked_sub(1), keys.get(right)) {
                (Some(l), Some(&r)) => at - keys[l] <= r - at,
                (Some(_), None) => true,
                (None, _) => false,
            };
            if go_left {
                left -= 1;
                reach = reach.max(at - keys[left]);
            } else {
                reach = reach.max(keys[right] - at);
                right += 1;
            }
        }
        let (from, to) = ((at - reach).max(lo), (at + reach).min(hi));
        // The keys in [from, to]: the walk's ends are next to both bounds.
        let inside =
            partition_near(keys, right, |k| k <= to) - partition_near(keys, left, |k| k < from);
        let width = to - from + 1.0;
        let density = (inside as f64 * scale / width).min(1.0);
        let beyond = (value - at).abs();
        if beyond > 0.0 && missed.powf(beyond * density) < ALPHA {
            continue;
        }
        // A sample holds each key with probability 1 / scale: the keys it
        // shows in a window are a thinned count, so the chance is taken at
        // an upper bound of the window's keys (k + 2√k + 2, about 97.5 %),
        // never below what the sample's gaps happen to show.
        let bound = if scale > 1.0 {
            let k = inside as f64;
            ((k + 2.0 * k.sqrt() + 2.0) * scale / width).min(1.0)
        } else {
            density
        };
        sum += bound;
    }
    sum / values.len() as f64
}

/// `keys.partition_point(pred)`, found by stepping from `near`: the same
/// index (there is one place where a predicate true then false over the
/// sorted keys turns), in as many steps as it lies from `near`.
fn partition_near(keys: &[f64], near: usize, pred: impl Fn(f64) -> bool) -> usize {
    let mut at = near.min(keys.len());
    while at > 0 && !pred(keys[at - 1]) {
        at -= 1;
    }
    while at < keys.len() && pred(keys[at]) {
        at += 1;
    }
    at
}

/// Bits a string of this shape can carry. A run of letters is a word: it
/// carries the bits of its letters (length times the log of the classes it
/// uses: lower case 26, upper case 26, both 52) but never more than a word
/// of English does ([`WORD_BITS`]); a run of digits, or of letters and
/// digits mixed (codes, hex, ids), carries every character's bits (digits
/// 10, letters as above, both together their sum); any other character
/// (separators, punctuation) adds the log of 33, anything beyond ASCII the
/// log of 1,000. "Suspense" is one word; "mercedes_tyler@fakegmail.com"
/// four words and two separators; "0312979509" ten digits.
pub(crate) fn string_bits(s: &str) -> f64 {
    let mut bits = 0.0;
    let mut token = String::new();
    let flush = |token: &mut String, bits: &mut f64| {
        if token.is_empty() {
            return;
        }
        let (mut digit, mut lower, mut upper) = (false, false, false);
        for ch in token.chars() {
            match ch {
                '0'..='9' => digit = true,
                'a'..='z' => lower = true,
                _ => upper = true,
            }
        }
        let alphabet: f64 = [(digit, 10.0), (lower, 26.0), (upper, 26.0)]
            .iter()
            .filter(|(used, _)| *used)
            .map(|(_, n)| n)
            .sum();
        let raw = token.len() as f64 * alphabet.log2();
        *bits += if digit { raw } else { raw.min(WORD_BITS) };
        token.clear();
    };
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            token.push(ch);
            continue;
        }
        flush(&mut token, &mut bits);
        bits += if ch.is_ascii() {
            33f64.log2()
        } else {
            1000f64.log2()
        };
    }
    flush(&mut token, &mut bits);
    bits
}

/// Chance rate of strings against string target keys: the mean, over the
/// probed values, of the chance that a string of that shape is one of the
/// target's `target_distinct` keys. The probed strings' spaces (`2^bits`)
/// are prepared once so that the rate against a key of any size takes a
/// binary search: values whose space is within the key's distinct count
/// match by chance for sure, the others with `distinct / space`.
#[derive(Clone, Debug, Default)]
pub struct StringChance {
    /// Ascending.
    spaces: Vec<f64>,
    /// `tail[i]`: the sum of `1 / spaces[j]` for `j ≥ i`.
    tail: Vec<f64>,
}

impl StringChance {
    pub(crate) fn of<'a>(values: impl IntoIterator<Item = &'a str>) -> StringChance {
        let mut spaces: Vec<f64> = values
            .into_iter()
            .map(|v| 2f64.powf(string_bits(v)))
            .collect();
        spaces.sort_by(f64::total_cmp);
        let mut tail = vec![0.0; spaces.len() + 1];
        for i in (0..spaces.len()).rev() {
            tail[i] = tail[i + 1] + 1.0 / spaces[i];
        }
        StringChance { spaces, tail }
    }

    pub(crate) fn rate(&self, target_distinct: f64) -> f64 {
        let n = self.spaces.len();
        if n == 0 {
            return 1.0;
        }
        let sure = self.spaces.partition_point(|&s| s <= target_distinct);
        let rest = if sure == n {
            0.0
        } else {
            target_distinct * self.tail[sure]
        };
        ((sure as f64 + rest) / n as f64).min(1.0)
    }
}

/// What a string value is, for chance: minted by a machine (hex, a uuid),
/// a code (digits or an `@` among its letters, no space), or words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringKind {
    Minted,
    Code,
    Words,
}

impl StringKind {
    pub(crate) fn of(s: &str) -> StringKind {
        let hex = s.len() >= 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
        let uuid = s.len() == 36
            && s.bytes().enumerate().all(|(i, b)| {
                matches!(i, 8 | 13 | 18 | 23) == (b == b'-') && (b == b'-' || b.is_ascii_hexdigit())
            });
        if hex || uuid {
            return StringKind::Minted;
        }
        let space = s.chars().any(char::is_whitespace);
        let marked = s.bytes().any(|b| b.is_ascii_digit() || b == b'@');
        if marked && !space {
            StringKind::Code
        } else {
            StringKind::Words
        }
    }
}

/// Least share of a string field's distinct values that are words for
/// the field to be read as a vocabulary.
pub const VOCABULARY_SHARE: f64 = 0.5;

/// Chance rate of words against a key of words, measured from the two
/// vocabularies themselves: both fields draw from the words this
/// application uses, at least the `values + keys − found` distinct ones the
/// two show together, so a value is a key by chance with the key's share of
/// them. The rate is never below the share found (the overlap the
/// vocabularies explain), so words never prove a reference by their values:
/// the name must (a dozen city names looked like proof when each word was
/// weighed as a draw from all of English).
pub(crate) fn vocabulary_chance(values: u64, keys: f64, found: u64) -> f64 {
    let union = values as f64 + keys - found as f64;
    if union <= 0.0 {
        return 1.0;
    }
    (keys / union).clamp(0.0, 1.0)
}

/// What a candidate's chance rate against a key is computed from.
#[derive(Clone, Debug)]
pub enum ChanceBasis {
    /// ObjectIds do not collide by chance.
    ObjectId,
    /// The probed integers (as doubles), weighed against the key's sampled
    /// integers ([`chance_rate_integers`]).
    Numbers(Vec<f64>),
    /// Codes and minted strings, weighed by the information they carry.
    Strings(StringChance),
    /// Words: weighed against the two fields' vocabularies
    /// ([`vocabulary_chance`]).
    Vocabulary,
}

impl ChanceBasis {
    pub fn of(family: super::Family, keys: &[crate::source::value::ValueKey]) -> ChanceBasis {
        match family {
            super::Family::ObjectId => ChanceBasis::ObjectId,
            super::Family::Number => ChanceBasis::Numbers(
                keys.iter()
                    .filter_map(crate::source::value::ValueKey::as_f64)
                    .collect(),
            ),
            super::Family::String => {
                let strs: Vec<&str> = keys.iter().filter_map(|k| k.as_str()).collect();
                let words = strs
                    .iter()
                    .filter(|s| StringKind::of(s) == StringKind::Words)
                    .count();
                if !strs.is_empty() && words as f64 >= VOCABULARY_SHARE * strs.len() as f64 {
                    ChanceBasis::Vocabulary
                } else {
                    ChanceBasis::Strings(StringChance::of(strs))
                }
            }
        }
    }

    /// The chance rate against a key with these sampled integers (sorted)
    /// and estimated distinct values, before a probe: words are a
    /// vocabulary whose every value may be a key.
    pub(crate) fn rate(&self, key_numbers: &[f64], key_distinct: f64) -> f64 {
        match self {
            ChanceBasis::ObjectId => 0.0,
            ChanceBasis::Numbers(values) => chance_rate_integers(values, key_numbers, key_distinct),
            ChanceBasis::Strings(s) => s.rate(key_distinct),
            ChanceBasis::Vocabulary => 1.0,
        }
    }

    /// The chance rate once a probe found `found` of `values`.
    pub(crate) fn rate_found(
        &self,
        key_numbers: &[f64],
        key_distinct: f64,
        values: u64,
        found: u64,
    ) -> f64 {
        match self {
            ChanceBasis::Vocabulary => vocabulary_chance(values, key_distinct, found),
            _ => self.rate(key_numbers, key_distinct),
        }
    }

    /// Whether the values are words.
    pub fn is_vocabulary(&self) -> bool {
        matches!(self, ChanceBasis::Vocabulary)
    }
}

/// Where the field at `segs` sits in the documents `profile` describes.
pub fn structure_of(profile: &Profile, segs: &[Seg]) -> Structure {
    Shape::of(profile).structure(segs)
}

/// A profile's paths indexed for [`Shape::structure`].
pub struct Shape<'a> {
    fields: HashMap<&'a [Seg], &'a FieldProfile>,
    /// Per container: values of its named fields summed, and how many.
    children: HashMap<&'a [Seg], (u64, u64)>,
}

impl<'a> Shape<'a> {
    pub(crate) fn of(profile: &'a Profile) -> Shape<'a> {
        let mut fields = HashMap::new();
        let mut children: HashMap<&[Seg], (u64, u64)> = HashMap::new();
        for f in &profile.fields {
            fields.insert(f.segments.as_slice(), f);
            if let Some((Seg::Key(_), container)) = f.segments.split_last() {
                let c = children.entry(container).or_default();
                c.0 += f.values;
                c.1 += 1;
            }
        }
        Shape { fields, children }
    }

    /// Where the field at `segs` sits in its documents.
    pub(crate) fn structure(&self, segs: &[Seg]) -> Structure {
        if segs
            .iter()
            .any(|s| matches!(s, Seg::Key(k) if k.starts_with('$')))
        {
            return Structure::Operator;
        }
        // Sub-documents between the field and the document or array
        // element holding it (`ids[]` is the field itself).
        let body = match segs.split_last() {
            Some((Seg::Elem, rest)) => rest,
            _ => segs,
        };
        let from_holder = body
            .iter()
            .rposition(|s| *s == Seg::Elem)
            .map_or(body, |i| &body[i + 1..]);
        let nesting = from_holder.len().saturating_sub(1);
        // Every container below the document root: its occurrences must
        // hold the next step of the path, and its fields must be uniform.
        for (i, s) in segs.iter().enumerate() {
            if i == 0 {
                continue;
            }
            let container = &segs[..i];
            let Some(c) = self.fields.get(container) else {
                continue;
            };
            // The container must mostly be what the step needs (an array
            // for an element, a sub-document for a key): a path inside a
            // minority shape (a payload's `notes` that is text in most
            // documents) is not where the documents keep references.
            let needed = if matches!(s, Seg::Elem) {
                BsonType::Array
            } else {
                BsonType::Object
            };
            let present: u64 = c
                .types
                .iter()
                .filter(|(t, _)| *t != BsonType::Null)
                .map(|(_, n)| n)
                .sum();
            if present > 0 && (c.type_count(needed) as f64) < MIN_SHARE * present as f64 {
                return Structure::Heterogeneous;
            }
            if !matches!(s, Seg::Key(_)) {
                continue;
            }
            let occurrences = c.type_count(BsonType::Object);
            if occurrences == 0 {
                continue;
            }
            let step = self.fields.get(&segs[..=i]).map_or(0, |f| f.values);
            let share = step as f64 / occurrences as f64;
            let uniformity = match self.children.get(container) {
                Some(&(sum, n)) if n > 0 => sum as f64 / (occurrences as f64 * n as f64),
                _ => 1.0,
            };
            if share < MIN_SHARE || uniformity < MIN_SHARE {
                return Structure::Heterogeneous;
            }
        }
        if nesting > MAX_NESTING {
            Structure::Deep
        } else {
            Structure::Held
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::Family;
    use super::*;

    #[test]
    fn stepping_from_near_finds_the_place_a_binary_search_finds() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..300 {
            // Small dense ids, sparse ones, and integers past 2^53 where
            // doubles round.
            let scale = [1u64, 547, 1 << 54][round % 3];
            let n = (next() % 60) as usize;
            let mut keys: Vec<f64> = (0..n).map(|_| ((next() % 400) * scale) as f64).collect();
            keys.sort_by(f64::total_cmp);
            keys.dedup();
            for _ in 0..20 {
                let (a, b) = (
                    ((next() % 420) * scale) as f64,
                    ((next() % 420) * scale) as f64,
                );
                let (from, to) = (a.min(b), a.max(b));
                for near in 0..=keys.len() + 1 {
                    assert_eq!(
                        partition_near(&keys, near, |k| k < from),
                        keys.partition_point(|&k| k < from)
                    );
                    assert_eq!(
                        partition_near(&keys, near, |k| k <= to),
                        keys.partition_point(|&k| k <= to)
                    );
                }
            }
        }
    }

    #[test]
    fn binomial_tail_values() {
        assert!((binomial_tail(10, 0, 0.3) - 1.0).abs() < 1e-12);
        assert!((binomial_tail(1, 1, 0.3) - 0.3).abs() < 1e-12);
        // P[X ≥ 2] for Bin(3, 0.5) = 4/8.
        assert!((binomial_tail(3, 2, 0.5) - 0.5).abs() < 1e-12);
        assert!(binomial_tail(100, 1, 0.0).abs() < f64::EPSILON);
        assert!((binomial_tail(100, 100, 1.0) - 1.0).abs() < f64::EPSILON);
        // 100 of 100 at p = 0.5: 2^-100.
        let p = binomial_tail(100, 100, 0.5);
        assert!((p.log2() + 100.0).abs() < 1e-6, "{p}");
    }

    #[test]
    fn integer_chance_rates() {
        let dense: Vec<f64> = (0..200).map(f64::from).collect();
        let small: Vec<f64> = (0..200).step_by(3).map(f64::from).collect();
        // Small ints inside a dense key range match by construction.
        assert!(chance_rate_integers(&small, &dense, 200.0) > 0.99);
        // Six-digit account numbers: 1,746 keys spread over ~1,000,000.
        let sparse: Vec<f64> = (0..1746).map(|i| f64::from(50_000 + i * 547)).collect();
        let accounts: Vec<f64> = (0..100).map(|i| f64::from(50_000 + i * 9_001)).collect();
        let r = chance_rate_integers(&accounts, &sparse, 1746.0);
        assert!(r < 0.01, "{r}");
        // Counts skewed towards small numbers against ids 0..999: most fall
        // where every integer is a key.
        let ids: Vec<f64> = (0..1000).map(f64::from).collect();
        let counts: Vec<f64> = (0..100).map(|i| f64::from(i * i / 3)).collect();
        let r = chance_rate_integers(&counts, &ids, 1000.0);
        assert!((r - 0.55).abs() < 0.03, "{r}");
        // Beyond every key: no chance.
        assert!(chance_rate_integers(&[10_000.0, 20_000.0], &dense, 200.0).abs() < f64::EPSILON);
        // Beyond a sample's smallest key, when the sample may have missed
        // the keys below it: counts 0..6 against 1,000 of the ids 0..2599
        // whose smallest sampled id is 9 are as likely keys as any.
        let sampled: Vec<f64> = (0..1000).map(|i| f64::from(9 + i * 259 / 100)).collect();
        let counts: Vec<f64> = (0..7).map(f64::from).collect();
        let r = chance_rate_integers(&counts, &sampled, 2600.0);
        assert!(r > 0.9, "{r}");
        assert!(!Evidence::reachable(r, 7, Structure::Held));
        // Far beyond, where the sample would have seen keys: no chance.
        let r = chance_rate_integers(&[-1_000.0, 5_000.0], &sampled, 2600.0);
        assert!(r.abs() < f64::EPSILON, "{r}");
        // Half the ids present (every other one), from a 10 % sample: the
        // sample's density is scaled to the collection's.
        let half: Vec<f64> = (0..1000).step_by(20).map(f64::from).collect();
        let r = chance_rate_integers(&small, &half, 500.0);
        assert!((0.45..0.95).contains(&r), "{r}");
        // Every key known (the sample is the collection): the density as
        // it is, no bound above it.
        let every_other: Vec<f64> = (0..1000).step_by(2).map(f64::from).collect();
        let r = chance_rate_integers(&small, &every_other, 500.0);
        assert!((r - 0.5).abs() < 0.05, "{r}");
    }

    #[test]
    fn string_chance_rates() {
        assert!(string_bits("ab") < string_bits("abc"));
        // A word tells what a word tells, however long.
        assert!((string_bits("Suspense") - WORD_BITS).abs() < 1e-9);
        assert!((string_bits("Science Fiction") - (2.0 * WORD_BITS + 33f64.log2())).abs() < 1e-9);
        // Digits and codes tell every character.
        assert!((string_bits("0312979509") - 10.0 * 10f64.log2()).abs() < 1e-9);
        assert!(string_bits("5f2a9c0e1b7d4a3e") > 80.0);
        assert!(string_bits("mercedes_tyler@fakegmail.com") > 60.0);
        // Emails and uuids never match by chance.
        let r = StringChance::of(["mercedes_tyler@fakegmail.com", "sean_bean@gameofthron.es"])
            .rate(185.0);
        assert!(r < 1e-12, "{r}");
        // People's names against a few thousand people: about one in a
        // hundred thousand — not one in 2^77 as their letters would say.
        let r = StringChance::of(["Avi Vernekar", "Nino Michel"]).rate(3000.0);
        assert!(r > 1e-6, "{r}");
        // Country codes against a table of 250 countries often do.
        let r = StringChance::of(["US", "FR", "CN"]).rate(250.0);
        assert!(r > 0.3, "{r}");
    }

    #[test]
    fn weighing() {
        use super::super::names::Link;
        use Structure::*;
        // (chance, values, found, reference rate, link, in range,
        // structure, tests) → accepted by
        type Case = (
            f64,
            u64,
            u64,
            f64,
            Option<Link>,
            Option<f64>,
            Structure,
            u64,
            Option<&'static str>,
        );
        let exact = Some(Link::Exact);
        let all = Some(1.0);
        let cases: &[Case] = &[
            // Small ints against dense 0..199 ids: the values cannot tell;
            // without a name no reference, with one the name is the
            // evidence.
            (1.0, 100, 100, 1.0, None, all, Held, 1, None),
            (
                1.0,
                100,
                100,
                1.0,
                exact,
                all,
                Held,
                1,
                Some(BY_NAME_AND_VALUES),
            ),
            (
                0.95,
                100,
                92,
                0.95,
                exact,
                all,
                Held,
                1,
                Some(BY_NAME_AND_VALUES),
            ),
            (0.95, 100, 92, 0.95, None, all, Held, 1, None),
            // A name contradicted by its values: most references missing,
            // or most values outside the key's range.
            (1.0, 100, 40, 0.4, exact, all, Held, 1, None),
            (0.8, 100, 90, 0.9, exact, Some(0.5), Held, 1, None),
            // A name outside the places documents keep references (a
            // logged query, an operator) is no evidence.
            (1.0, 100, 100, 1.0, exact, all, Operator, 1, None),
            (1.0, 100, 100, 1.0, exact, all, Heterogeneous, 1, None),
            // ObjectIds: the values speak, wherever the field is.
            (0.0, 100, 62, 0.77, None, None, Held, 1, Some(BY_VALUES)),
            (0.0, 100, 62, 0.77, None, None, Deep, 1, Some(BY_VALUES)),
            // Chance-free matches prove a reference even when most
            // references point nowhere: the dangling share is the finding.
            (0.0, 100, 30, 0.4, None, None, Held, 1, Some(BY_VALUES)),
            (0.0, 55, 3, 0.09, None, None, Held, 1, Some(BY_VALUES)),
            // Where chance explains some matches, half must be found.
            (0.05, 100, 40, 0.4, None, None, Held, 1, None),
            // Emails found in a users table, no name needed.
            (1e-30, 100, 100, 1.0, None, None, Held, 1, Some(BY_VALUES)),
            // One value found is not enough.
            (0.0, 1, 1, 1.0, None, None, Held, 1, None),
            // Values under an operator are never references.
            (0.0, 100, 100, 1.0, None, None, Operator, 1, None),
            // Two codes of two found, chance 1/2,000 each: enough for a
            // run of ten pairs (p = 2.5e-7 ≤ 1e-3), not for a run of a
            // hundred thousand (≤ 1e-7).
            (5e-4, 2, 2, 1.0, None, None, Held, 10, Some(BY_VALUES)),
            (5e-4, 2, 2, 1.0, None, None, Held, 100_000, None),
        ];
        for &(chance, n, k, rate, link, in_range, structure, tests, want) in cases {
            let e = Evidence::weigh(Weighing {
                chance_rate: chance,
                values: n,
                found: k,
                reference_rate: rate,
                name: None,
                link,
                in_range,
                structure,
                tests,
                identity: false,
            });
            assert_eq!(
                e.accepted_by, want,
                "{chance} {n} {k} {rate} {link:?} {in_range:?} {structure:?} {tests}"
            );
            assert!((e.alpha - FAMILY_ALPHA / tests as f64).abs() <= 1e-3 * e.alpha);
        }
    }

    #[test]
    fn words_are_weighed_against_their_vocabularies() {
        for (s, want) in [
            ("5e650433b4f14826d2a2cb80", StringKind::Minted),
            ("123e4567-e89b-12d3-a456-426614174000", StringKind::Minted),
            ("cash_1744035604652", StringKind::Code),
            ("mercedes_tyler@fakegmail.com", StringKind::Code),
            ("Mumbai", StringKind::Words),
            ("Gateway of India, Mumbai", StringKind::Words),
            ("Room 1", StringKind::Words),
        ] {
            assert_eq!(StringKind::of(s), want, "{s}");
        }
        // The overlap of two vocabularies is what they explain: the chance
        // rate is never below the share found.
        for (n, m, x) in [
            (40u64, 12.0, 4u64),
            (5, 20.0, 5),
            (69, 12.0, 12),
            (3, 3.0, 3),
        ] {
            let chance = vocabulary_chance(n, m, x);
            assert!(
                chance + 1e-12 >= x as f64 / n as f64,
                "{n} {m} {x}: {chance}"
            );
        }
        let words = ChanceBasis::of(
            Family::String,
            &["Mumbai", "Delhi", "Pune"]
                .map(|s| crate::source::value::ValueKey::Str(s.as_bytes().into())),
        );
        assert!(words.is_vocabulary());
        assert!(!Evidence::reachable(
            words.rate(&[], 12.0),
            3,
            Structure::Held
        ));
    }

    #[test]
    fn reachability() {
        // Nothing a probe returns can make dense small ints a reference:
        // the pair is not probed, whatever its name.
        assert!(!Evidence::reachable(1.0, 100, Structure::Held));
        assert!(Evidence::reachable(0.0, 5, Structure::Deep));
        assert!(!Evidence::reachable(0.0, 5, Structure::Operator));
        assert!(!Evidence::reachable(0.0, 1, Structure::Held));
    }

    #[test]
    fn a_sampled_dense_range_is_as_dense_as_it_is() {
        // Ids 0..99,999, 1,000 of them sampled at random: years and
        // runtimes (60..2,020) fall where every integer is a key. The
        // sample's gaps must not make the range look sparse.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut keys: Vec<f64> = (0..1000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 100_000) as f64
            })
            .collect();
        keys.sort_by(f64::total_cmp);
        keys.dedup();
        let values: Vec<f64> = (60..2020).step_by(7).map(f64::from).collect();
        let r = chance_rate_integers(&values, &keys, 100_000.0);
        assert!(r > 0.97, "{r}");
        assert!(!Evidence::reachable(r, 200, Structure::Held));
    }

    #[test]
    fn string_chance_is_the_mean_of_each_values_chance() {
        let values: Vec<String> = (0..300)
            .map(|i| match i % 4 {
                0 => format!("{i}"),
                1 => format!("user{i}"),
                2 => format!("Ab-{i}"),
                _ => "x".repeat(i % 9 + 1),
            })
            .collect();
        let prepared = StringChance::of(values.iter().map(String::as_str));
        for distinct in [0.0, 1.0, 7.0, 100.0, 1e4, 1e9, 1e30, f64::INFINITY] {
            let direct = values
                .iter()
                .map(|v| (distinct / 2f64.powf(string_bits(v))).min(1.0))
                .sum::<f64>()
                / values.len() as f64;
            let fast = prepared.rate(distinct);
            assert!(
                (fast - direct).abs() <= 1e-9 * direct.max(1e-300) || (fast - direct).abs() < 1e-12,
                "{distinct}: {fast} vs {direct}"
            );
        }
        assert!((StringChance::of([]).rate(5.0) - 1.0).abs() < f64::EPSILON);
    }
}
