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
    pub fn rate(self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.k as f64 / self.n as f64
        }
    }
}

/// The two-sided p-value of "`a` and `b` are the same proportion".
pub fn p_value(a: Share, b: Share) -> f64 {
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
