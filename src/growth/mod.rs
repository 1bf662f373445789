//! Array growth, from a cross-section of documents of different ages: if
//! older documents hold longer arrays, the arrays grow as documents age.
//! Rank correlation says whether, Theil–Sen slope says how fast, and the
//! observed bytes per element turn the pace into a date at which the largest
//! document would pass MongoDB's 16 MiB limit.
//!
//! Pure maths over the kept sample; no I/O.

pub mod snapshot;

use serde::{Deserialize, Serialize};

use crate::profile::raw::{self, BsonType};
use crate::profile::{extract, FieldProfile, Profile, Seg};

/// MongoDB's document size limit.
pub const LIMIT_BYTES: f64 = 16.0 * 1024.0 * 1024.0;
/// Fewer documents than this cannot show a trend.
pub const MIN_DOCS: usize = 30;
/// Pairs beyond which Theil–Sen works on a deterministic subsample.
const MAX_SLOPE_PAIRS: usize = 200_000;

/// How each array path grows, by path: what the growth stage measured for
/// a collection, held beside its profile.
pub type ByPath = std::collections::BTreeMap<String, Growth>;

/// How an array path grows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Growth {
    /// `age-correlation` (cross-section) or `snapshot` (re-read over time).
    pub method: String,
    /// Spearman rank correlation of length with age (cross-section), or the
    /// share of re-read documents whose array grew (snapshot).
    pub correlation: f64,
    /// Elements added per document per day.
    pub per_day: f64,
    /// Days until the largest document passes 16 MiB at this pace (the
    /// document at risk: a forecast from a smaller one would contradict its
    /// size); `None` when
    /// it never would (no growth).
    pub days_to_limit: Option<f64>,
    /// Documents the figures rest on.
    pub n: u64,
    pub bytes_per_element: f64,
    /// Where ages came from: `_id` (ObjectId time) or a date field's path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_from: Option<String>,
    /// Days between the two snapshots (snapshot method only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days_observed: Option<f64>,
}

impl Growth {
    /// Growth the rule catalogue treats as real: enough documents, a rank
    /// correlation of at least `min_corr`, and a positive pace.
    pub fn is_significant(&self, min_corr: f64) -> bool {
        self.n as usize >= MIN_DOCS && self.correlation >= min_corr && self.per_day > 0.0
    }
}

/// Where a document's age comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgeSource {
    ObjectId,
    DateField(Vec<Seg>, String),
}

/// Chooses the age source: `_id` when it is an ObjectId in nearly every
/// document, else the top-level date field present in ≥ 95 % of them.
pub fn age_source(profile: &Profile) -> Option<AgeSource> {
    let n = profile.sampled.max(1) as f64;
    let is_top = |f: &&FieldProfile| f.depth == 0;
    if let Some(id) = profile
        .fields
        .iter()
        .filter(is_top)
        .find(|f| f.path == "_id")
    {
        if id.type_count(BsonType::ObjectId) as f64 / n >= 0.95 {
            return Some(AgeSource::ObjectId);
        }
    }
    profile
        .fields
        .iter()
        .filter(is_top)
        .filter(|f| f.type_count(BsonType::Date) as f64 / n >= 0.95)
        .max_by(|a, b| a.count.cmp(&b.count))
        .map(|f| AgeSource::DateField(f.segments.clone(), f.path.clone()))
}

/// Seconds since the epoch at which a document was created, per the source.
pub fn birth(doc: &[u8], src: &AgeSource) -> Option<f64> {
    match src {
        AgeSource::ObjectId => {
            let id = extract::top(doc, "_id")?;
            (id.ty == BsonType::ObjectId)
                .then(|| raw::value::oid_seconds(id.value).map(f64::from))
                .flatten()
        }
        AgeSource::DateField(segs, _) => {
            let v = extract::values(doc, segs);
            let d = v.iter().find(|e| e.ty == BsonType::Date)?;
            raw::value::i64(d.value).map(|ms| ms as f64 / 1000.0)
        }
    }
}

/// Measures cross-section growth for every array path that is not itself
/// inside an array, from the kept documents.
pub fn cross_section(profile: &Profile, docs: &[Vec<u8>]) -> Vec<(String, Growth)> {
    cross_section_from(profile, docs, profile.doc_sizes.max())
}

/// [`cross_section`], forecasting from a largest document of `largest`
/// bytes (measured over the whole collection, it may be larger than any
/// the profile saw).
pub fn cross_section_from(
    profile: &Profile,
    docs: &[Vec<u8>],
    largest: u64,
) -> Vec<(String, Growth)> {
    let Some(src) = age_source(profile) else {
        return Vec::new();
    };
    let births: Vec<Option<f64>> = docs.iter().map(|d| birth(d, &src)).collect();
    let newest = births.iter().flatten().copied().fold(f64::MIN, f64::max);
    let largest = largest.max(profile.doc_sizes.max()) as f64;
    let mut out = Vec::new();
    for f in &profile.fields {
        if f.array.is_none() || f.segments.contains(&Seg::Elem) {
            continue;
        }
        let mut ages = Vec::new();
        let mut lens = Vec::new();
        for (doc, b) in docs.iter().zip(&births) {
            let Some(b) = b else { continue };
            let vals = extract::values(doc, &f.segments);
            let Some(len) = vals.first().and_then(extract::array_len) else {
                continue;
            };
            ages.push((newest - b) / 86_400.0);
            lens.push(len as f64);
        }
        if ages.len() < MIN_DOCS {
            continue;
        }
        let corr = spearman(&ages, &lens);
        let slope = theil_sen(&ages, &lens);
        let bpe = bytes_per_element(profile, f);
        let growth = Growth {
            method: "age-correlation".into(),
            correlation: round(corr, 3),
            per_day: round(slope, 4),
            days_to_limit: days_to_limit(largest, slope, bpe),
            n: ages.len() as u64,
            bytes_per_element: round(bpe, 1),
            age_from: Some(match &src {
                AgeSource::ObjectId => "_id".into(),
                AgeSource::DateField(_, p) => p.clone(),
            }),
            days_observed: None,
        };
        out.push((f.path.clone(), growth));
    }
    out
}

/// Average bytes one element of the array at `f` takes, from the profile.
pub fn bytes_per_element(profile: &Profile, f: &FieldProfile) -> f64 {
    let elem_path = format!("{}[]", f.path);
    match profile.fields.iter().find(|e| e.path == elem_path) {
        Some(e) if e.values > 0 => e.bytes_avg * profile.sampled as f64 / e.values as f64,
        _ => 0.0,
    }
}

/// Days until a document of `size` bytes passes 16 MiB when it gains
/// `per_day` elements of `bytes_per_element` bytes a day.
pub fn days_to_limit(size: f64, per_day: f64, bytes_per_element: f64) -> Option<f64> {
    let pace = per_day * bytes_per_element;
    if pace <= 0.0 || !pace.is_finite() {
        return None;
    }
    Some(round(((LIMIT_BYTES - size) / pace).max(0.0), 1))
}

fn round(x: f64, digits: i32) -> f64 {
    let m = 10f64.powi(digits);
    // `+ 0.0` folds a negative zero into zero.
    (x * m).round() / m + 0.0
}

/// Ranks with ties given their average rank.
fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut r = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && xs[idx[j + 1]].total_cmp(&xs[idx[i]]).is_eq() {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation (Pearson's on ranks, so ties are handled);
/// 0 when either side is constant.
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    if x.len() != y.len() || x.len() < 2 {
        return 0.0;
    }
    pearson(&ranks(x), &ranks(y))
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        0.0
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

/// Theil–Sen slope: the median of pairwise slopes, robust to outliers.
/// Pairs with (nearly) equal x are skipped. Large inputs use a fixed,
/// evenly strided subset of pairs.
#[allow(clippy::many_single_char_names)]
pub fn theil_sen(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    let total = n * n.saturating_sub(1) / 2;
    let stride = (total / MAX_SLOPE_PAIRS).max(1);
    let mut slopes = Vec::with_capacity(total.min(MAX_SLOPE_PAIRS) + 1);
    let mut k = 0usize;
    for i in 0..n {
        for j in (i + 1)..n {
            k += 1;
            if !k.is_multiple_of(stride) {
                continue;
            }
            let dx = x[j] - x[i];
            if dx.abs() > 1e-9 {
                slopes.push((y[j] - y[i]) / dx);
            }
        }
    }
    if slopes.is_empty() {
        return 0.0;
    }
    let mid = slopes.len() / 2;
    let (_, m, _) = slopes.select_nth_unstable_by(mid, f64::total_cmp);
    *m
}

#[cfg(test)]
#[allow(clippy::many_single_char_names)]
mod tests {
    use super::*;

    #[test]
    fn spearman_detects_monotone_relations() {
        let x: Vec<f64> = (0..100).map(f64::from).collect();
        let y: Vec<f64> = x.iter().map(|v| v * v).collect();
        assert!((spearman(&x, &y) - 1.0).abs() < 1e-12);
        let z: Vec<f64> = x.iter().map(|v| -v).collect();
        assert!((spearman(&x, &z) + 1.0).abs() < 1e-12);
        let flat = vec![3.0; 100];
        assert!(spearman(&x, &flat).abs() < 1e-12);
    }

    #[test]
    fn spearman_of_shuffled_data_is_small() {
        let x: Vec<f64> = (0..500).map(f64::from).collect();
        let y: Vec<f64> = (0..500u64)
            .map(|i| ((i * 7919 + 13) % 503) as f64)
            .collect();
        assert!(spearman(&x, &y).abs() < 0.15);
    }

    #[test]
    fn theil_sen_recovers_a_slope_despite_outliers() {
        let x: Vec<f64> = (0..200).map(f64::from).collect();
        let mut y: Vec<f64> = x.iter().map(|v| 2.5 * v + 3.0).collect();
        for i in (0..200).step_by(17) {
            y[i] = 10_000.0;
        }
        assert!((theil_sen(&x, &y) - 2.5).abs() < 0.05);
    }

    #[test]
    fn forecast() {
        assert_eq!(days_to_limit(1000.0, 0.0, 100.0), None);
        let d = days_to_limit(0.0, 1.0, 1024.0).expect("growing");
        assert!((d - 16384.0).abs() < 0.1);
        assert_eq!(days_to_limit(LIMIT_BYTES * 2.0, 1.0, 1.0), Some(0.0));
    }
}
