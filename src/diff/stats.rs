//! Whether two sampled proportions differ by more than sampling noise.
//!
//! The test: a two-sided two-proportion z-test with the pooled variance
//! and Yates' continuity correction, on the counts the reports give
//! (`count` of `sampled` documents for a presence, a type's values of all
//! the path's values for a type share). A side read whole (every document
//! of its collection) has no sampling error: against it the other side is
//! tested alone, a one-sample test of its count against the exact share;
//! two whole sides differ whenever their shares do. The diff keeps a
//! change only when its p-value is at most the family-wise level
//! [`ALPHA`] divided by the number of comparisons made (Bonferroni), so a
//! diff of two samples of one unchanged deployment reports any
//! proportion change with probability at most [`ALPHA`].
//!
//! Distributions (document sizes, array lengths) are compared on the
//! report's bins by a chi-square test ([`distribution_p_value`]), in the
//! same family: never by their sampled maxima.

/// The family-wise level of a diff: the chance that two samples of an
/// unchanged deployment show any proportion change at all.
pub const ALPHA: f64 = 0.001;

/// A proportion as a report gives it: `k` of `n`, and whether `n` is the
/// whole collection (no sampling error) or a sample of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Share {
    pub k: u64,
    pub n: u64,
    pub whole: bool,
}

impl Share {
    pub(crate) fn rate(self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.k as f64 / self.n as f64
        }
    }
}

/// The two-sided p-value of "`a` and `b` are the same proportion".
pub(crate) fn p_value(a: Share, b: Share) -> f64 {
    if a.n == 0 || b.n == 0 {
        return 1.0;
    }
    match (a.whole, b.whole) {
        (true, true) => {
            // Exact on both sides: equal or not, with certainty.
            if a.k.saturating_mul(b.n) == b.k.saturating_mul(a.n) {
                1.0
            } else {
                0.0
            }
        }
        (true, false) => one_sample(b, a.rate()),
        (false, true) => one_sample(a, b.rate()),
        (false, false) => two_sample(a, b),
    }
}

/// `s` against the exact proportion `p0`.
fn one_sample(s: Share, p0: f64) -> f64 {
    let n = s.n as f64;
    let k = s.k as f64;
    if p0 <= 0.0 {
        return if s.k == 0 { 1.0 } else { 0.0 };
    }
    if p0 >= 1.0 {
        return if s.k == s.n { 1.0 } else { 0.0 };
    }
    let d = ((k - n * p0).abs() - 0.5).max(0.0);
    two_sided(d / (n * p0 * (1.0 - p0)).sqrt())
}

fn two_sample(a: Share, b: Share) -> f64 {
    let (n1, n2) = (a.n as f64, b.n as f64);
    let pooled = (a.k + b.k) as f64 / (n1 + n2);
    if pooled <= 0.0 || pooled >= 1.0 {
        return 1.0;
    }
    let inv = 1.0 / n1 + 1.0 / n2;
    let se = (pooled * (1.0 - pooled) * inv).sqrt();
    let d = ((a.rate() - b.rate()).abs() - 0.5 * inv).max(0.0);
    two_sided(d / se)
}

/// A distribution as a report gives it: counts by bin (`[low, high,
/// count]`, the report's `doc_size_histogram` or `array_histogram`), and
/// whether they count the whole collection or a sample of it.
#[derive(Clone, Copy, Debug)]
pub struct Binned<'a> {
    pub bins: &'a [[u64; 3]],
    pub whole: bool,
}

/// Expected count a group of bins needs before the chi-square
/// approximation is trusted on it (Cochran's rule).
const MIN_EXPECTED: f64 = 5.0;

/// The two sides' counts on the bins either has, by lower bound.
fn aligned(a: &[[u64; 3]], b: &[[u64; 3]]) -> Vec<(u64, u64)> {
    let mut by: std::collections::BTreeMap<u64, (u64, u64)> = std::collections::BTreeMap::new();
    for x in a {
        by.entry(x[0]).or_default().0 += x[2];
    }
    for x in b {
        by.entry(x[0]).or_default().1 += x[2];
    }
    by.into_values().collect()
}

/// The largest gap between the two sides' cumulative shares over their
/// bins (a Kolmogorov–Smirnov distance on the bins): 0 for the same
/// distribution, 1 when every value of one side lies below every value of
/// the other. Read as the share of values that moved past some size.
pub(crate) fn distance(a: Binned, b: Binned) -> f64 {
    let cells = aligned(a.bins, b.bins);
    let (na, nb) = totals(&cells);
    if na == 0 || nb == 0 {
        return 0.0;
    }
    let (mut ca, mut cb, mut gap) = (0u64, 0u64, 0f64);
    for (xa, xb) in cells {
        ca += xa;
        cb += xb;
        gap = gap.max((ca as f64 / na as f64 - cb as f64 / nb as f64).abs());
    }
    gap
}

fn totals(cells: &[(u64, u64)]) -> (u64, u64) {
    cells.iter().fold((0, 0), |(x, y), &(a, b)| (x + a, y + b))
}

/// The p-value of "`a` and `b` are one distribution": a chi-square test
/// of homogeneity on the 2 × K table of their bins (two samples), or of
/// goodness of fit of the sample against the shares of a side read whole;
/// adjacent bins are pooled, smallest values first, until each pool
/// expects at least 5 values on each sampled side. Two whole sides differ
/// whenever their shares do; a sample holding a bin the whole side has
/// nothing in differs for certain.
pub(crate) fn distribution_p_value(a: Binned, b: Binned) -> f64 {
    let cells = aligned(a.bins, b.bins);
    let (na, nb) = totals(&cells);
    if na == 0 || nb == 0 {
        return 1.0;
    }
    match (a.whole, b.whole) {
        (true, true) => {
            let same = cells
                .iter()
                .all(|&(x, y)| u128::from(x) * u128::from(nb) == u128::from(y) * u128::from(na));
            if same {
                1.0
            } else {
                0.0
            }
        }
        (true, false) => fit(&cells, na, nb, false),
        (false, true) => fit(&cells, nb, na, true),
        (false, false) => homogeneity(&cells, na, nb),
    }
}

/// The sample's counts (the second of each cell, or the first when
/// `flipped`) against the shares of the whole side's (`whole` values;
/// the sample has `n`).
fn fit(cells: &[(u64, u64)], whole: u64, n: u64, flipped: bool) -> f64 {
    let pick = |&(x, y): &(u64, u64)| if flipped { (y, x) } else { (x, y) };
    if cells.iter().map(pick).any(|(w, s)| w == 0 && s > 0) {
        return 0.0;
    }
    let scale = n as f64 / whole as f64;
    // Pools of (expected, observed).
    let mut pools: Vec<(f64, f64)> = Vec::new();
    let mut open = (0.0, 0.0);
    for (w, s) in cells.iter().map(pick) {
        open.0 += w as f64 * scale;
        open.1 += s as f64;
        if open.0 >= MIN_EXPECTED {
            pools.push(open);
            open = (0.0, 0.0);
        }
    }
    close(&mut pools, open);
    let chi: f64 = pools.iter().map(|&(e, o)| (o - e).powi(2) / e).sum();
    chi_square_tail(chi, pools.len().saturating_sub(1))
}

/// Two samples: the 2 × K test of homogeneity.
fn homogeneity(cells: &[(u64, u64)], na: u64, nb: u64) -> f64 {
    let n = (na + nb) as f64;
    let small = na.min(nb) as f64;
    // Pools of (first side's count, second side's).
    let mut pools: Vec<(f64, f64)> = Vec::new();
    let mut open = (0.0, 0.0);
    for &(x, y) in cells {
        open.0 += x as f64;
        open.1 += y as f64;
        if (open.0 + open.1) * small / n >= MIN_EXPECTED {
            pools.push(open);
            open = (0.0, 0.0);
        }
    }
    close(&mut pools, open);
    let (ra, rb) = (na as f64 / n, nb as f64 / n);
    let chi: f64 = pools
        .iter()
        .map(|&(x, y)| {
            let t = x + y;
            let (ea, eb) = (t * ra, t * rb);
            (x - ea).powi(2) / ea + (y - eb).powi(2) / eb
        })
        .sum();
    chi_square_tail(chi, pools.len().saturating_sub(1))
}

/// Adds the last, short pool to the one before it (or keeps it when it
/// is the only one).
fn close(pools: &mut Vec<(f64, f64)>, open: (f64, f64)) {
    if open == (0.0, 0.0) {
        return;
    }
    match pools.last_mut() {
        Some(last) => {
            last.0 += open.0;
            last.1 += open.1;
        }
        None => pools.push(open),
    }
}

/// P(X ≥ x) for a chi-square X with `df` degrees of freedom; 1 with none.
pub(crate) fn chi_square_tail(x: f64, df: usize) -> f64 {
    if df == 0 || !x.is_finite() || x <= 0.0 {
        return if x.is_infinite() && df > 0 { 0.0 } else { 1.0 };
    }
    upper_gamma(df as f64 / 2.0, x / 2.0).clamp(0.0, 1.0)
}

/// The regularised upper incomplete gamma function Q(a, x) (Numerical
/// Recipes' `gammq`: a series below a + 1, a continued fraction above).
fn upper_gamma(a: f64, x: f64) -> f64 {
    let ln_front = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        1.0 - sum * ln_front.exp()
    } else {
        // Lentz's method on the continued fraction.
        let tiny = 1e-300;
        let mut denom_term = x + 1.0 - a;
        let mut upper = 1.0 / tiny;
        let mut lower = 1.0 / denom_term;
        let mut fraction = lower;
        for i in 1..1000u32 {
            let step_n = f64::from(i);
            let numer = -step_n * (step_n - a);
            denom_term += 2.0;
            lower = numer * lower + denom_term;
            if lower.abs() < tiny {
                lower = tiny;
            }
            upper = denom_term + numer / upper;
            if upper.abs() < tiny {
                upper = tiny;
            }
            lower = 1.0 / lower;
            let step = lower * upper;
            fraction *= step;
            if (step - 1.0).abs() < 1e-15 {
                break;
            }
        }
        ln_front.exp() * fraction
    }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine terms; relative error ~1e-15).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = G[0];
    for (i, g) in G.iter().enumerate().skip(1) {
        sum += g / (x + i as f64);
    }
    let t = x + 7.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

/// P(|Z| ≥ z) for a standard normal Z.
fn two_sided(z: f64) -> f64 {
    erfc(z / std::f64::consts::SQRT_2).clamp(0.0, 1.0)
}

/// The complementary error function (Numerical Recipes' Chebyshev fit,
/// relative error under 1.2e-7 everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(k: u64, n: u64) -> Share {
        Share { k, n, whole: false }
    }

    #[test]
    fn normal_tails() {
        assert!((two_sided(1.96) - 0.05).abs() < 1e-4);
        assert!((two_sided(0.0) - 1.0).abs() < 1e-6);
        assert!((two_sided(3.290_5) - 0.001).abs() < 1e-5);
    }

    #[test]
    fn a_handful_against_none_is_chance() {
        // 0.2 % of 1,000 on one side, none of 1,000 on the other.
        assert!(p_value(s(0, 1000), s(2, 1000)) > 0.1);
        // 30 % against none is not.
        assert!(p_value(s(0, 1000), s(300, 1000)) < 1e-20);
        // 100 % against 60 %.
        assert!(p_value(s(1000, 1000), s(600, 1000)) < 1e-20);
        // The same proportion.
        assert!((p_value(s(500, 1000), s(500, 1000)) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn chi_square_tails() {
        // Known quantiles: χ²₁ 3.841 → 0.05, χ²₁₀ 18.307 → 0.05,
        // χ²₂ 13.816 → 0.001, χ²₅₀ 86.661 → 0.001.
        for (x, df, p) in [
            (3.841_459, 1, 0.05),
            (18.307_04, 10, 0.05),
            (13.815_51, 2, 0.001),
            (86.660_83, 50, 0.001),
            (0.454_936, 1, 0.5),
        ] {
            let got = chi_square_tail(x, df);
            assert!((got - p).abs() < p * 1e-4, "χ²({df}) ≥ {x}: {got}, not {p}");
        }
        assert!((chi_square_tail(5.0, 0) - 1.0).abs() < 1e-12);
        assert!((chi_square_tail(0.0, 3) - 1.0).abs() < 1e-12);
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    fn binned(counts: &[(u64, u64)]) -> Vec<[u64; 3]> {
        counts.iter().map(|&(lo, n)| [lo, lo, n]).collect()
    }

    #[test]
    fn distributions_shifted_or_alike() {
        let b = |v: &'static [[u64; 3]]| Binned {
            bins: v,
            whole: false,
        };
        let before = binned(&[(0, 200), (1, 200), (2, 200), (3, 200), (4, 200)]);
        // The same shares with other counts: chance.
        let alike = binned(&[(0, 190), (1, 215), (2, 195), (3, 210), (4, 190)]);
        // Three times as long.
        let longer = binned(&[(0, 200), (3, 200), (6, 200), (9, 200), (12, 200)]);
        let leak = |v: Vec<[u64; 3]>| -> &'static [[u64; 3]] { Box::leak(v.into_boxed_slice()) };
        let (before, alike, longer) = (leak(before), leak(alike), leak(longer));
        assert!(distribution_p_value(b(before), b(alike)) > 0.3);
        assert!(distance(b(before), b(alike)) < 0.03);
        assert!(distribution_p_value(b(before), b(longer)) < 1e-30);
        assert!((distance(b(before), b(longer)) - 0.6).abs() < 1e-9);
        // A handful of values far out pool with their neighbours.
        let tail = leak(binned(&[
            (0, 200),
            (1, 200),
            (2, 200),
            (3, 200),
            (4, 197),
            (900, 3),
        ]));
        assert!(distribution_p_value(b(before), b(tail)) > 0.01);
        // Against a side read whole: a goodness-of-fit test; a value the
        // whole side never held is a change for certain.
        let whole = Binned {
            bins: before,
            whole: true,
        };
        assert!(distribution_p_value(whole, b(alike)) > 0.3);
        assert!(distribution_p_value(b(alike), whole) > 0.3);
        assert!(distribution_p_value(whole, b(tail)) < 1e-12);
        assert!(distribution_p_value(whole, b(longer)) < 1e-30);
        let whole_alike = Binned {
            bins: alike,
            whole: true,
        };
        assert!((distribution_p_value(whole, whole) - 1.0).abs() < 1e-12);
        assert!(distribution_p_value(whole, whole_alike) < 1e-12);
        // Nothing on a side: nothing to compare.
        assert!((distribution_p_value(b(&[]), b(before)) - 1.0).abs() < 1e-12);
    }

    /// Two samples of 1,000 drawn from one population, many times over:
    /// the chi-square test rejects at level α about as often as α says
    /// (not more: no false alarms beyond the level; not far less: it
    /// still has power). Sizes skewed over two octaves, and array lengths
    /// 0–4 with a long geometric tail.
    #[test]
    fn the_distribution_test_holds_its_level() {
        use crate::profile::sketch::LogHistogram;
        const PAIRS: usize = 2000;
        let mut state = 2026u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut rejected = [[0usize; 2]; 2];
        for _ in 0..PAIRS {
            let mut sides = [
                [LogHistogram::default(), LogHistogram::default()],
                [LogHistogram::default(), LogHistogram::default()],
            ];
            for side in &mut sides {
                for _ in 0..1000 {
                    let u = next();
                    side[0].record((200.0 * 4f64.powf(u * u)) as u64);
                    let mut len = (next() * 5.0) as u64;
                    while next() < 0.1 {
                        len += 7;
                    }
                    side[1].record(len);
                }
            }
            for (k, counts) in rejected.iter_mut().enumerate() {
                let (a, b) = (sides[0][k].report_bins(), sides[1][k].report_bins());
                let p = distribution_p_value(
                    Binned {
                        bins: &a,
                        whole: false,
                    },
                    Binned {
                        bins: &b,
                        whole: false,
                    },
                );
                counts[0] += usize::from(p <= 0.01);
                counts[1] += usize::from(p <= 0.001);
            }
        }
        eprintln!(
            "{PAIRS} pairs, rejected at 0.01 and 0.001: sizes {:?}, lengths {:?}",
            rejected[0], rejected[1]
        );
        for r in rejected {
            // 20 expected at 0.01: between 6 and 40 (Poisson tails ~1e-4).
            assert!((6..=40).contains(&r[0]), "{r:?}");
            // 2 expected at 0.001: at most 9.
            assert!(r[1] <= 9, "{r:?}");
        }
    }

    #[test]
    fn a_whole_side_has_no_sampling_error() {
        let whole = |k, n| Share { k, n, whole: true };
        // Never seen in the whole collection, seen now in a sample: certain.
        assert!(p_value(whole(0, 5000), s(2, 1000)) < 1e-12);
        assert!(p_value(whole(10, 100), whole(11, 100)) < 1e-12);
        assert!((p_value(whole(10, 100), whole(20, 200)) - 1.0).abs() < 1e-12);
        // 50 % exactly against 52 % of a sample of 1,000: chance.
        assert!(p_value(whole(500, 1000), s(520, 1000)) > 0.1);
    }
}
