//! The effect of a change estimated on the sample: each kept document's
//! size before and after the change (and the largest document read, when
//! the sample does not hold it), summed up as averages and maxima.

use serde_json::{json, Map, Value};

use super::examples;
use crate::profile::extract::{self, Weighed};
use crate::profile::Seg;
use crate::rules::CollectionCtx;

/// What a change does at its path, for a document known only by what it
/// carries at each path ([`Weighed`]).
#[derive(Clone, Copy)]
pub(super) enum AtPath {
    /// The path leaves the document.
    Removed,
    /// The arrays at the path keep their last `n` elements.
    LastKept(u64),
}

/// The size of the weighed document `w` after a change at `segs`. Keeping
/// the last elements is estimated from the path's average element.
fn weighed_after(w: &Weighed, segs: &[Seg], change: AtPath) -> f64 {
    let at = w.at(segs);
    let carried = at.bytes.min(w.bytes.saturating_sub(5));
    let left = match change {
        AtPath::LastKept(n) if at.elements > 0 => {
            let kept = (n.saturating_mul(at.arrays)).min(at.elements);
            carried as f64 * kept as f64 / at.elements as f64
        }
        _ => 0.0,
    };
    (w.bytes - carried) as f64 + left
}

/// Average and largest document size, before and after `change` is
/// applied to each document (as the script would change it): measured on
/// the kept sample and on the largest document read when the sample does
/// not hold it (passed over to stay within the memory budget), which is
/// often the document that made the finding fire. `change` returns false
/// when it cannot apply; the document then counts as it is minus the bytes
/// the path carries (paths through arrays).
pub(super) fn size_effect_by(
    ctx: &CollectionCtx<'_>,
    segs: &[Seg],
    change: impl Fn(&mut bson::Document) -> bool,
    at_path: AtPath,
) -> Map<String, Value> {
    let largest = ctx.data.largest_unkept;
    let mut sizes: Vec<(f64, f64)> = ctx
        .data
        .kept
        .iter()
        .enumerate()
        .filter(|(i, _)| largest.is_none_or(|w| w.kept_cut_at != Some(*i)))
        .map(|(_, raw)| {
            let after = bson::Document::from_reader(&raw[..])
                .ok()
                .and_then(|mut d| {
                    change(&mut d).then(|| bson::serialize_to_vec(&d).ok().map(|v| v.len()))?
                })
                .unwrap_or_else(|| {
                    let carried: usize = extract::values(raw, segs).iter().map(|e| e.size).sum();
                    raw.len() - carried.min(raw.len().saturating_sub(5))
                });
            (raw.len() as f64, after as f64)
        })
        .collect();
    let largest = largest.map(|w| {
        let after = weighed_after(w, segs, at_path).round();
        sizes.push((w.bytes as f64, after));
        json!({"_id": w.id, "bytes_before": w.bytes, "bytes_after": after})
    });
    let mut m = size_summary(&sizes);
    if let Some(l) = largest {
        m.insert("largest_not_kept".into(), l);
    }
    m
}

/// The effect's size figures from per-document (before, after) sizes: the
/// averages and maxima come from the same documents, so avg ≤ max.
fn size_summary(sizes: &[(f64, f64)]) -> Map<String, Value> {
    let n = sizes.len();
    let avg = |f: fn(&(f64, f64)) -> f64| {
        if n == 0 {
            0.0
        } else {
            sizes.iter().map(f).sum::<f64>() / n as f64
        }
    };
    let max = |f: fn(&(f64, f64)) -> f64| sizes.iter().map(f).fold(0.0, f64::max);
    let mut m = Map::new();
    m.insert("documents_measured".into(), json!(n));
    m.insert("avg_bytes_before".into(), json!(avg(|s| s.0).round()));
    m.insert("avg_bytes_after".into(), json!(avg(|s| s.1).round()));
    m.insert("max_bytes_before".into(), json!(max(|s| s.0)));
    m.insert("max_bytes_after".into(), json!(max(|s| s.1)));
    m
}

/// The effect of removing `segs` from every document.
pub(super) fn size_effect(ctx: &CollectionCtx<'_>, segs: &[Seg]) -> Map<String, Value> {
    size_effect_by(ctx, segs, |d| examples::remove(d, segs), AtPath::Removed)
}
