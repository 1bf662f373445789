//! Fixed-size, exactly mergeable summaries: a log-bucketed histogram for
//! quantiles of sizes and lengths, and a distinct-value estimator that is
//! exact for small sets and a HyperLogLog beyond.

use serde::Serialize;

/// Values below this are counted exactly, one bucket each.
const LINEAR: u64 = 128;
/// Sub-buckets per power of two above `LINEAR` (relative error ≤ 1/64).
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

/// Histogram of non-negative integers with exact counts below 128 and
/// logarithmic buckets (≤ 1.6 % relative width) above. Memory grows with the
/// largest value seen (at most a few KB), never with the number of values.
/// Merging two histograms gives exactly the histogram of the union.
#[derive(Clone, Debug, Default)]
pub struct LogHistogram {
    buckets: Vec<u64>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

fn bucket_of(v: u64) -> usize {
    if v < LINEAR {
        return v as usize;
    }
    let msb = v.ilog2(); // ≥ 7
    let shift = msb - SUB_BITS;
    let sub = (v >> shift) & (SUB - 1);
    let octave = u64::from(msb - 7);
    (LINEAR + octave * SUB + sub) as usize
}

/// Smallest and largest value that fall in bucket `b`.
fn bucket_bounds(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < LINEAR {
        return (b, b);
    }
    let octave = (b - LINEAR) / SUB;
    let sub = (b - LINEAR) % SUB;
    let msb = octave + 7;
    let shift = msb - u64::from(SUB_BITS);
    let lo = (1u64 << msb) | (sub << shift);
    let hi = lo + ((1u64 << shift) - 1);
    (lo, hi)
}

/// The report bin of value `v`: itself below 8, else the quarter of its
/// power of two it falls in (`LogHistogram::report_bins`).
fn report_bin(v: u64) -> (u64, u64) {
    if v < 8 {
        return (v, v);
    }
    let msb = v.ilog2();
    let width = 1u64 << (msb - 2);
    let lo = v & !(width - 1);
    (lo, lo + (width - 1))
}

impl LogHistogram {
    pub(crate) fn record(&mut self, v: u64) {
        let b = bucket_of(v);
        if b >= self.buckets.len() {
            self.buckets.resize(b + 1, 0);
        }
        self.buckets[b] += 1;
        if self.count == 0 || v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
        self.count += 1;
        self.sum += u128::from(v);
    }

    /// Records `v` as if seen `n` times.
    pub(crate) fn record_n(&mut self, v: u64, n: u64) {
        if n == 0 {
            return;
        }
        let b = bucket_of(v);
        if b >= self.buckets.len() {
            self.buckets.resize(b + 1, 0);
        }
        self.buckets[b] += n;
        if self.count == 0 || v < self.min {
            self.min = v;
        }
        if v > self.max {
            self.max = v;
        }
        self.count += n;
        self.sum += u128::from(v) * u128::from(n);
    }

    pub(crate) fn merge(&mut self, other: &LogHistogram) {
        if other.count == 0 {
            return;
        }
        if other.buckets.len() > self.buckets.len() {
            self.buckets.resize(other.buckets.len(), 0);
        }
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
        if self.count == 0 || other.min < self.min {
            self.min = other.min;
        }
        self.max = self.max.max(other.max);
        self.count += other.count;
        self.sum += other.sum;
    }

    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// The members, for the shelf's encoding (`profile::shelf`).
    pub(super) fn parts(&self) -> (&[u64], u64, u128, u64, u64) {
        (&self.buckets, self.count, self.sum, self.min, self.max)
    }

    /// A histogram from its members (`profile::shelf`); `None` for more
    /// buckets than any `u64` falls in.
    pub(super) fn from_parts(
        buckets: Vec<u64>,
        count: u64,
        sum: u128,
        min: u64,
        max: u64,
    ) -> Option<LogHistogram> {
        (buckets.len() <= bucket_of(u64::MAX) + 1).then_some(LogHistogram {
            buckets,
            count,
            sum,
            min,
            max,
        })
    }

    pub(crate) fn min(&self) -> u64 {
        self.min
    }

    pub(crate) fn max(&self) -> u64 {
        self.max
    }

    pub(crate) fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The `q`-quantile (nearest rank): exact below 128, otherwise the middle
    /// of its bucket, clamped to the observed min and max.
    pub(crate) fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (b, &c) in self.buckets.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bucket_bounds(b);
                let mid = lo + (hi - lo) / 2;
                return mid.clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Counts per bucket as `(lower bound, upper bound, count)`, non-empty only.
    pub(crate) fn bins(&self) -> Vec<(u64, u64, u64)> {
        self.buckets
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(b, &c)| {
                let (lo, hi) = bucket_bounds(b);
                (lo, hi, c)
            })
            .collect()
    }

    /// [`bins`](Self::bins), adjacent ones merged two by two until at most
    /// `n` remain (a chart's bars).
    pub(crate) fn bins_at_most(&self, n: usize) -> Vec<(u64, u64, u64)> {
        let mut bins = self.bins();
        while bins.len() > n.max(1) {
            bins = bins
                .chunks(2)
                .map(|c| (c[0].0, c[c.len() - 1].1, c.iter().map(|b| b.2).sum()))
                .collect();
        }
        bins
    }

    /// Counts per report bin as `[lower bound, upper bound, count]`,
    /// non-empty only, ascending: one bin per value below 8, then four per
    /// power of two (each a quarter of its octave wide, so within 25 % of
    /// its lower bound). Exact: every bucket of the histogram lies in one
    /// bin. Coarse enough for a report of many paths, fine enough for
    /// `diff` to see a distribution shift.
    pub(crate) fn report_bins(&self) -> Vec<[u64; 3]> {
        let mut out: Vec<[u64; 3]> = Vec::new();
        for (b, &c) in self.buckets.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let (lo, hi) = report_bin(bucket_bounds(b).0);
            match out.last_mut() {
                Some(last) if last[0] == lo => last[2] += c,
                _ => out.push([lo, hi, c]),
            }
        }
        out
    }

    pub(crate) fn summary(&self) -> Summary {
        Summary {
            min: self.min,
            avg: round2(self.mean()),
            p50: self.quantile(0.5),
            p95: self.quantile(0.95),
            max: self.max,
        }
    }
}

/// The five numbers reports show for a distribution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Summary {
    pub min: u64,
    pub avg: f64,
    pub p50: u64,
    pub p95: u64,
    pub max: u64,
}

pub(crate) fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Distinct values: exact up to `EXACT_LIMIT` hashes (an open-addressing
/// set, so low-cardinality fields pay one probe per value), then
/// HyperLogLog with 2^10 registers (standard error ≈ 3.3 %).
#[derive(Clone, Debug)]
pub enum Distinct {
    Exact(ExactSet),
    Hll(Box<[u8; HLL_M]>),
}

const EXACT_LIMIT: usize = 256;
const HLL_P: u32 = 10;
pub const HLL_M: usize = 1 << HLL_P;

/// A set of 64-bit hashes with how often each was seen (the frequency
/// profile a population estimator needs); 0 marks an empty slot (a zero
/// hash is stored as 1, which merges two values in 2^64 — harmless for an
/// estimate).
#[derive(Clone, Debug, Default)]
pub struct ExactSet {
    slots: Vec<u64>,
    counts: Vec<u32>,
    len: usize,
}

impl ExactSet {
    fn insert(&mut self, h: u64) -> bool {
        self.insert_n(h, 1)
    }

    /// Records `h` seen `n` more times; true when it was new.
    fn insert_n(&mut self, h: u64, n: u32) -> bool {
        let h = h.max(1);
        if self.slots.is_empty() {
            self.slots = vec![0; 16];
            self.counts = vec![0; 16];
        }
        if (self.len + 1) * 2 > self.slots.len() {
            let bigger = vec![0; self.slots.len() * 2];
            let old = std::mem::replace(&mut self.slots, bigger);
            let old_counts = std::mem::replace(&mut self.counts, vec![0; old.len() * 2]);
            self.len = 0;
            for (x, c) in old.into_iter().zip(old_counts).filter(|&(x, _)| x != 0) {
                self.insert_n(x, c);
            }
        }
        let mask = self.slots.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = h;
                    self.counts[i] = n;
                    self.len += 1;
                    return true;
                }
                x if x == h => {
                    self.counts[i] = self.counts[i].saturating_add(n);
                    return false;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Values seen exactly once and exactly twice: `(f1, f2)`.
    fn singletons(&self) -> (u64, u64) {
        let mut f = (0, 0);
        for (&x, &c) in self.slots.iter().zip(&self.counts) {
            if x != 0 {
                match c {
                    1 => f.0 += 1,
                    2 => f.1 += 1,
                    _ => {}
                }
            }
        }
        f
    }

    fn contains(&self, h: u64) -> bool {
        let h = h.max(1);
        if self.slots.is_empty() {
            return false;
        }
        let mask = self.slots.len() - 1;
        let mut i = (h as usize) & mask;
        loop {
            match self.slots[i] {
                0 => return false,
                x if x == h => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.slots.iter().copied().filter(|&x| x != 0)
    }
}

impl Default for Distinct {
    fn default() -> Self {
        Distinct::Exact(ExactSet::default())
    }
}

impl Distinct {
    /// Records a 64-bit hash; returns true when the value was certainly new
    /// (only known while the set is still exact).
    pub(crate) fn insert(&mut self, h: u64) -> bool {
        match self {
            Distinct::Exact(set) => {
                if set.len < EXACT_LIMIT {
                    return set.insert(h);
                }
                if set.contains(h) {
                    return false;
                }
                let mut regs = Box::new([0u8; HLL_M]);
                for x in set.iter() {
                    hll_add(&mut regs, x);
                }
                hll_add(&mut regs, h);
                *self = Distinct::Hll(regs);
                false
            }
            Distinct::Hll(regs) => {
                hll_add(regs, h);
                false
            }
        }
    }

    pub(crate) fn is_exact(&self) -> bool {
        matches!(self, Distinct::Exact(_))
    }

    /// `(f1, f2)`: values seen once and twice, while the set is exact.
    pub(crate) fn frequencies(&self) -> Option<(u64, u64)> {
        match self {
            Distinct::Exact(set) => Some(set.singletons()),
            Distinct::Hll(_) => None,
        }
    }

    pub(crate) fn estimate(&self) -> u64 {
        match self {
            Distinct::Exact(set) => set.len as u64,
            Distinct::Hll(regs) => hll_estimate(regs),
        }
    }

    pub(crate) fn merge(&mut self, other: &Distinct) {
        match other {
            Distinct::Exact(set) => {
                for (&h, &c) in set.slots.iter().zip(&set.counts) {
                    if h == 0 {
                        continue;
                    }
                    match self {
                        Distinct::Exact(mine) if mine.len < EXACT_LIMIT || mine.contains(h) => {
                            mine.insert_n(h, c);
                        }
                        _ => {
                            self.insert(h);
                        }
                    }
                }
            }
            Distinct::Hll(oregs) => {
                if let Distinct::Exact(set) = self {
                    let mut regs = Box::new([0u8; HLL_M]);
                    for x in set.iter() {
                        hll_add(&mut regs, x);
                    }
                    *self = Distinct::Hll(regs);
                }
                if let Distinct::Hll(regs) = self {
                    for (a, b) in regs.iter_mut().zip(oregs.iter()) {
                        *a = (*a).max(*b);
                    }
                }
            }
        }
    }
}

fn hll_add(regs: &mut [u8; HLL_M], h: u64) {
    let idx = (h >> (64 - HLL_P)) as usize;
    let w = (h << HLL_P) | (1 << (HLL_P - 1));
    let rank = w.leading_zeros() as u8 + 1;
    if rank > regs[idx] {
        regs[idx] = rank;
    }
}

fn hll_estimate(regs: &[u8; HLL_M]) -> u64 {
    let m = HLL_M as f64;
    let mut sum = 0.0;
    let mut zeros = 0u32;
    for &r in regs {
        sum += 1.0 / f64::from(1u32 << r.min(31));
        if r == 0 {
            zeros += 1;
        }
    }
    let alpha = 0.7213 / (1.0 + 1.079 / m);
    let raw = alpha * m * m / sum;
    let est = if raw <= 2.5 * m && zeros > 0 {
        m * (m / f64::from(zeros)).ln()
    } else {
        raw
    };
    est.round() as u64
}

/// A fast, well-mixed 64-bit hash of a byte string (not cryptographic).
pub(crate) fn hash_bytes(seed: u64, bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = seed ^ (bytes.len() as u64).wrapping_mul(K);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = mix(h ^ u64::from_le_bytes(w));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = mix(h ^ u64::from_le_bytes(w) ^ 0xFF);
    }
    fmix(h)
}

#[inline]
fn mix(h: u64) -> u64 {
    let m = u128::from(h) * u128::from(0x9E37_79B9_7F4A_7C15_u64);
    ((m >> 64) as u64) ^ (m as u64)
}

#[inline]
fn fmix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A population's number of distinct values, estimated from a sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PopulationDistinct {
    /// `Duj1` (Haas and Stokes 1998, the unsmoothed first-order jackknife),
    /// `exact` when the sample is the population.
    pub estimator: &'static str,
    pub estimate: u64,
    /// Values sampled, values in the population, distinct values in the
    /// sample, values seen once in the sample.
    pub n: u64,
    #[serde(rename = "N")]
    pub population: u64,
    pub d: u64,
    pub f1: u64,
    /// False when the sample's distinct set was too large to count
    /// exactly: `f1` is then its upper bound (`d`), which can only raise
    /// the estimate.
    pub f1_exact: bool,
}

/// Haas and Stokes' Duj1 estimator of the distinct values among
/// `population` values from a sample (without replacement) of `n` with `d`
/// distinct values, `f1` of them seen once:
/// `D = d / (1 − (1 − n/N) · f1/n)`, kept between `d` and `N`. Values seen
/// several times in the sample are few in the population; values seen once
/// stand for many unseen ones.
pub(crate) fn duj1(n: u64, population: u64, d: u64, f1: u64, f1_exact: bool) -> PopulationDistinct {
    let population = population.max(n);
    let estimate = if n == 0 {
        0
    } else if n == population {
        d
    } else {
        let q = n as f64 / population as f64;
        let denom = 1.0 - (1.0 - q) * f1.min(n) as f64 / n as f64;
        let raw = if denom <= 0.0 {
            population as f64
        } else {
            d as f64 / denom
        };
        (raw.round() as u64).clamp(d, population)
    };
    PopulationDistinct {
        estimator: if n == population { "exact" } else { "Duj1" },
        estimate,
        n,
        population,
        d,
        f1,
        f1_exact,
    }
}

/// Wilson score interval (95 %) for a proportion `k / n`.
pub(crate) fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.96_f64;
    let n = n as f64;
    let p = k as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n) + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_is_exact_for_small_values() {
        let mut h = LogHistogram::default();
        for v in [1, 2, 3, 4, 5, 6, 100] {
            h.record(v);
        }
        assert_eq!(h.min(), 1);
        assert_eq!(h.max(), 100);
        assert_eq!(h.quantile(0.5), 4);
        assert_eq!(h.quantile(1.0), 100);
        assert!((h.mean() - 121.0 / 7.0).abs() < 1e-9);
    }

    #[test]
    fn histogram_relative_error_is_bounded() {
        let mut h = LogHistogram::default();
        let values: Vec<u64> = (0..10_000u64).map(|i| i * 37 + 5).collect();
        for &v in &values {
            h.record(v);
        }
        for q in [0.5, 0.95, 0.99] {
            let truth = values[((q * values.len() as f64).ceil() as usize).max(1) - 1] as f64;
            let got = h.quantile(q) as f64;
            assert!(
                (got - truth).abs() / truth < 0.02,
                "q={q} got={got} truth={truth}"
            );
        }
    }

    #[test]
    fn bucket_bounds_contain_their_values() {
        for v in (0..200_000u64).step_by(7).chain([u64::MAX / 3, u64::MAX]) {
            let (lo, hi) = bucket_bounds(bucket_of(v));
            assert!(lo <= v && v <= hi, "{v} not in [{lo},{hi}]");
        }
    }

    #[test]
    fn report_bins_are_exact_quarter_octaves() {
        let mut h = LogHistogram::default();
        for v in [
            0,
            0,
            3,
            7,
            8,
            9,
            10,
            15,
            16,
            19,
            20,
            127,
            128,
            159,
            160,
            1000,
            1023,
            1 << 40,
        ] {
            h.record(v);
        }
        h.record(u64::MAX);
        let bins = h.report_bins();
        assert_eq!(
            &bins[..9],
            &[
                [0, 0, 2],
                [3, 3, 1],
                [7, 7, 1],
                [8, 9, 2],
                [10, 11, 1],
                [14, 15, 1],
                [16, 19, 2],
                [20, 23, 1],
                [112, 127, 1],
            ]
        );
        assert!(bins.contains(&[128, 159, 2]) && bins.contains(&[160, 191, 1]));
        assert!(bins.contains(&[896, 1023, 2]));
        assert!(bins.contains(&[1 << 40, (1 << 40) + (1 << 38) - 1, 1]));
        assert_eq!(bins.last(), Some(&[(1 << 63) | (3 << 61), u64::MAX, 1]));
        assert_eq!(bins.iter().map(|b| b[2]).sum::<u64>(), h.count());
        for w in bins.windows(2) {
            assert!(w[0][1] < w[1][0]);
        }
    }

    #[test]
    fn histogram_merge_equals_union() {
        let mut a = LogHistogram::default();
        let mut b = LogHistogram::default();
        let mut all = LogHistogram::default();
        for i in 0..5000u64 {
            let v = (i * 7919) % 100_003;
            if i % 3 == 0 {
                a.record(v);
            } else {
                b.record(v);
            }
            all.record(v);
        }
        a.merge(&b);
        assert_eq!(a.bins(), all.bins());
        assert_eq!(a.summary(), all.summary());
    }

    #[test]
    fn distinct_is_exact_then_close() {
        let mut d = Distinct::default();
        for i in 0..50u64 {
            d.insert(hash_bytes(0, &i.to_le_bytes()));
            d.insert(hash_bytes(0, &i.to_le_bytes()));
        }
        assert_eq!(d.estimate(), 50);
        assert!(d.is_exact());
        for i in 0..100_000u64 {
            d.insert(hash_bytes(0, &i.to_le_bytes()));
        }
        let e = d.estimate() as f64;
        assert!((e - 100_000.0).abs() / 100_000.0 < 0.1, "estimate {e}");
    }

    #[test]
    fn frequencies_count_values_seen_once_and_twice() {
        let mut d = Distinct::default();
        let mut other = Distinct::default();
        for (v, times) in [(1u64, 1), (2, 2), (3, 3), (4, 1)] {
            for _ in 0..times {
                d.insert(hash_bytes(0, &v.to_le_bytes()));
            }
        }
        // Merging keeps counts: 4 seen once more becomes a doubleton.
        other.insert(hash_bytes(0, &4u64.to_le_bytes()));
        other.insert(hash_bytes(0, &5u64.to_le_bytes()));
        d.merge(&other);
        assert_eq!(d.frequencies(), Some((2, 2)));
    }

    #[test]
    fn duj1_on_known_populations() {
        // (n, N, d, f1, expected estimate)
        let cases = [
            // Every series seen many times: the sample saw them all.
            (1000, 30_000, 36, 0, 36),
            // Every value once: the sample is a 1-in-30 slice of distinct values.
            (1000, 30_000, 1000, 1000, 30_000),
            // The whole population: exact.
            (500, 500, 120, 40, 120),
            // Half singletons.
            (1000, 10_000, 600, 300, 822),
        ];
        for (n, big_n, d, f1, want) in cases {
            assert_eq!(
                duj1(n, big_n, d, f1, true).estimate,
                want,
                "{n} {big_n} {d} {f1}"
            );
        }
    }

    #[test]
    fn wilson_interval_brackets_the_proportion() {
        let (lo, hi) = wilson(50, 100);
        assert!(lo < 0.5 && hi > 0.5 && lo > 0.39 && hi < 0.61);
        let (lo, hi) = wilson(0, 1000);
        assert!(lo.abs() < 1e-12 && hi < 0.01);
    }
}
