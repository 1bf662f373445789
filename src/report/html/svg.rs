//! The HTML report's pictures, drawn as inline SVG by docshape itself (no
//! chart library, no fonts, no network): histograms, length against age
//! with the fitted slope, a path's type shares and presence interval, and
//! the relationships between collections. Colours come from the page's
//! style sheet, so they follow its light and dark schemes.

use std::fmt::Write;

use super::esc;
use crate::profile::raw::BsonType;
use crate::relate::{Kind, Relationship};

/// Bars a histogram shows at most (adjacent buckets merge to fit).
pub const BARS: usize = 24;
/// Points a length-against-age chart shows at most (evenly thinned).
pub const POINTS: usize = 160;
/// Colour classes of the type bars (`t0` … `t7`), the most common type first.
const TYPE_COLOURS: usize = 8;

const W: f64 = 360.0;
const H: f64 = 170.0;
const LEFT: f64 = 46.0;
const BOTTOM: f64 = 34.0;
const TOP: f64 = 10.0;
const RIGHT: f64 = 10.0;

/// A histogram of the profile's sketch `hist` in at most [`BARS`] bars,
/// each labelled by `label` of its range (bucket bounds held to the
/// smallest and largest value seen); `title` names the chart for screen
/// readers.
pub(crate) fn histogram(
    out: &mut String,
    title: &str,
    hist: &crate::profile::sketch::LogHistogram,
    label: &dyn Fn(u64) -> String,
) {
    let (least, most_value) = (hist.min(), hist.max());
    let bins: Vec<(u64, u64, u64)> = hist
        .bins_at_most(BARS)
        .into_iter()
        .map(|(lo, hi, n)| (lo.max(least), hi.min(most_value), n))
        .collect();
    let most = bins.iter().map(|b| b.2).max().unwrap_or(0).max(1);
    let n = bins.len().max(1) as f64;
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let step = pw / n;
    let _ = write!(
        out,
        "<svg class=\"hist\" role=\"img\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\"><title>{}</title>",
        esc(title)
    );
    axes(out);
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>",
        LEFT - 4.0,
        TOP + 8.0,
        crate::fmt::compact(most),
        LEFT - 4.0,
        H - BOTTOM
    );
    let bar_w = num((step - 2.0).max(1.0));
    out.push_str("<g class=\"bar\">");
    for (i, &(lo, hi, count)) in bins.iter().enumerate() {
        let h = count as f64 / most as f64 * ph;
        let x = LEFT + i as f64 * step;
        let range = if lo == hi {
            label(lo)
        } else {
            format!("{}–{}", label(lo), label(hi))
        };
        let _ = write!(
            out,
            "<rect x=\"{}\" y=\"{}\" width=\"{bar_w}\" height=\"{}\"><title>{}: {}</title></rect>",
            num(x + 1.0),
            (H - BOTTOM - h).round(),
            h.round(),
            esc(&range),
            crate::fmt::group(count)
        );
    }
    out.push_str("</g>");
    if let (Some(first), Some(last)) = (bins.first(), bins.last()) {
        let _ = write!(
            out,
            "<text x=\"{LEFT}\" y=\"{}\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            H - BOTTOM + 14.0,
            esc(&label(first.0)),
            W - RIGHT,
            H - BOTTOM + 14.0,
            esc(&label(last.1))
        );
    }
    out.push_str("</svg>");
}

/// Array length against document age, one point per kept document
/// (thinned to [`POINTS`]), with the line of slope `per_day` (elements per
/// day of age) through the points' median offset, as the Theil–Sen fit
/// the growth stage measured places it.
pub(crate) fn growth(out: &mut String, title: &str, ages: &[f64], lens: &[f64], per_day: f64) {
    let finite = |v: &[f64]| {
        v.iter()
            .copied()
            .filter(|x| x.is_finite())
            .fold(0.0, f64::max)
    };
    let max_age = finite(ages).max(1e-9);
    let intercept = crate::growth::intercept(ages, lens, per_day);
    let line_end = intercept + per_day * max_age;
    let max_len = finite(lens).max(intercept).max(line_end).max(1.0);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |a: f64| LEFT + a / max_age * pw;
    let y = |l: f64| H - BOTTOM - (l / max_len).clamp(0.0, 1.0) * ph;
    let _ = write!(
        out,
        "<svg class=\"growth\" role=\"img\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\"><title>{}</title>",
        esc(title)
    );
    axes(out);
    // The points as one path of round dots, each on a whole pixel, once.
    let stride = ages.len().div_ceil(POINTS).max(1);
    let mut dots: Vec<(i64, i64)> = ages
        .iter()
        .zip(lens)
        .step_by(stride)
        .filter(|(a, l)| a.is_finite() && l.is_finite())
        .map(|(a, l)| (x(*a).round() as i64, y(*l).round() as i64))
        .collect();
    dots.sort_unstable();
    dots.dedup();
    out.push_str("<path class=\"pts\" d=\"");
    for (px, py) in dots {
        let _ = write!(out, "M{px} {py}h0");
    }
    out.push_str("\"/>");
    if intercept.is_finite() && line_end.is_finite() {
        let _ = write!(
            out,
            "<line class=\"fit\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
            x(0.0),
            y(intercept),
            x(max_age),
            y(line_end)
        );
    }
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text><text x=\"{LEFT}\" y=\"{}\">0</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text></svg>",
        LEFT - 4.0,
        TOP + 8.0,
        crate::fmt::compact(max_len.ceil() as u64),
        LEFT - 4.0,
        H - BOTTOM,
        H - BOTTOM + 14.0,
        W - RIGHT,
        H - BOTTOM + 14.0,
        crate::fmt::decimal(max_age),
    );
}

fn axes(out: &mut String) {
    let _ = write!(
        out,
        "<path class=\"ax\" d=\"M{LEFT} {TOP}V{}H{}\"/>",
        H - BOTTOM,
        W - RIGHT
    );
}

/// The colour class of the `i`-th most common type of a path.
pub(crate) fn type_class(i: usize) -> String {
    format!("t{}", i.min(TYPE_COLOURS - 1))
}

/// A coordinate with at most one decimal, without a trailing `.0`.
fn num(f: f64) -> String {
    let t = format!("{f:.1}");
    t.strip_suffix(".0").map(str::to_owned).unwrap_or(t)
}

/// A path's types as one bar, each type's share in its colour (the shares
/// are written beside it).
pub(crate) fn type_bar(out: &mut String, types: &[(BsonType, u64)]) {
    let total: u64 = types.iter().map(|t| t.1).sum();
    out.push_str("<svg class=\"tb\" viewBox=\"0 0 100 10\" aria-hidden=\"true\">");
    let mut x = 0.0;
    for (i, (_, n)) in types.iter().enumerate() {
        let w = (*n as f64 / total.max(1) as f64 * 100.0).max(0.5);
        let _ = write!(
            out,
            "<rect class=\"{}\" x=\"{}\" width=\"{}\" height=\"10\"/>",
            type_class(i),
            num(x),
            num(w),
        );
        x += w;
    }
    out.push_str("</svg>");
}

/// Presence as a bar to its share over a track, with the 95 % interval
/// (when the profile is a sample) as a line across it.
pub(crate) fn presence(out: &mut String, share: f64, ci: Option<[f64; 2]>) {
    let _ = write!(
        out,
        "<svg class=\"pr\" viewBox=\"0 0 100 10\" aria-hidden=\"true\"><rect width=\"{}\" height=\"10\"/>",
        num(share.clamp(0.0, 1.0) * 100.0)
    );
    if let Some([lo, hi]) = ci {
        let (lo, hi) = (
            num(lo.clamp(0.0, 1.0) * 100.0),
            num(hi.clamp(0.0, 1.0) * 100.0),
        );
        let _ = write!(out, "<path d=\"M{lo} 5H{hi}M{lo} 2V8M{hi} 2V8\"/>");
    }
    out.push_str("</svg>");
}

/// Characters of a collection's name a diagram box shows (the whole name
/// is its tooltip).
const NODE_CHARS: usize = 30;
/// Characters of an arrow's label (path, cardinality) shown.
const LABEL_CHARS: usize = 24;
const NODE_W: f64 = 200.0;
const NODE_H: f64 = 30.0;
const COL_GAP: f64 = 150.0;
/// Space between two groups side by side.
const GROUP_GAP: f64 = 40.0;
const ROW_GAP: f64 = 26.0;
/// Width the diagram's groups of connected collections are packed into,
/// side by side, before a new row of groups starts.
const PACK_W: f64 = 1160.0;
const MARGIN: f64 = 10.0;

/// Where each box goes, and the picture's size.
struct Placed {
    at: Vec<(f64, f64)>,
    width: f64,
    height: f64,
}

/// Places `n` boxes joined by `edges` (parent, child): each group of
/// connected collections on its own, parents left of their children (a
/// box's column is its distance from the group's first parent, breadth
/// first, so a cycle of references cannot stretch it), and the groups
/// packed in rows of at most [`PACK_W`].
fn layout<T>(count: usize, edges: &[(usize, usize, T)]) -> Placed {
    let n = count;
    let mut column: Vec<Option<usize>> = vec![None; n];
    let mut group = vec![usize::MAX; n];
    let has_parent: Vec<bool> = (0..n)
        .map(|i| edges.iter().any(|&(p, c, _)| c == i && p != i))
        .collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    // Roots first, then whatever a cycle left without one.
    let starts: Vec<usize> = (0..n)
        .filter(|&i| !has_parent[i])
        .chain((0..n).filter(|&i| has_parent[i]))
        .collect();
    for start in starts {
        if group[start] != usize::MAX {
            continue;
        }
        let g = groups.len();
        let mut members = vec![start];
        group[start] = g;
        column[start] = Some(0);
        let mut i = 0;
        while i < members.len() {
            let at = members[i];
            let col = column[at].unwrap_or(0);
            for &(p, c, _) in edges {
                // Children one column right; parents reached from a child
                // join the group in the child's column.
                let (next, next_col) = if p == at {
                    (c, col + 1)
                } else if c == at {
                    (p, col)
                } else {
                    continue;
                };
                if group[next] == usize::MAX {
                    group[next] = g;
                    column[next] = Some(next_col);
                    members.push(next);
                }
            }
            i += 1;
        }
        groups.push(members);
    }
    let mut at = vec![(0.0, 0.0); n];
    let (mut left, mut top, mut shelf, mut width) = (MARGIN, MARGIN, 0.0f64, 0.0f64);
    for members in &groups {
        let cols = members.iter().filter_map(|&m| column[m]).max().unwrap_or(0) + 1;
        let mut rows = vec![0usize; cols];
        let mut row_of = Vec::with_capacity(members.len());
        for &m in members {
            let c = column[m].unwrap_or(0);
            row_of.push(rows[c]);
            rows[c] += 1;
        }
        let tallest = rows.iter().copied().max().unwrap_or(1) as f64;
        let w = cols as f64 * NODE_W + (cols as f64 - 1.0) * COL_GAP;
        let h = tallest * NODE_H + (tallest - 1.0) * ROW_GAP;
        if left > MARGIN && left + w > PACK_W {
            left = MARGIN;
            top += shelf + ROW_GAP * 2.0;
            shelf = 0.0;
        }
        for (&m, &r) in members.iter().zip(&row_of) {
            at[m] = (
                left + column[m].unwrap_or(0) as f64 * (NODE_W + COL_GAP),
                top + r as f64 * (NODE_H + ROW_GAP),
            );
        }
        left += w + GROUP_GAP;
        width = width.max(left - GROUP_GAP);
        shelf = shelf.max(h);
    }
    Placed {
        at,
        width: width + MARGIN,
        height: top + shelf + MARGIN + ROW_GAP,
    }
}

/// The references between collections as boxes and arrows, parents left of
/// their children (each collection in the column of its longest chain of
/// parents); an arrow is labelled with the reference's path and its
/// measured cardinality. Embedded arrays stay inside their collection and
/// are left to the table. `ends` gives a relationship's parent and child.
pub(crate) fn diagram(
    out: &mut String,
    title: &str,
    rels: &[&Relationship],
    ends: &dyn Fn(&Relationship) -> (String, String),
) {
    let mut nodes: Vec<String> = Vec::new();
    let mut edges: Vec<(usize, usize, &Relationship)> = Vec::new();
    let index = |ns: String, nodes: &mut Vec<String>| match nodes.iter().position(|n| *n == ns) {
        Some(i) => i,
        None => {
            nodes.push(ns);
            nodes.len() - 1
        }
    };
    for r in rels.iter().filter(|r| r.kind != Kind::Embedded) {
        let (parent, child) = ends(r);
        let p = index(parent, &mut nodes);
        let c = index(child, &mut nodes);
        edges.push((p, c, r));
    }
    let place = layout(nodes.len(), &edges);
    let width = place.width;
    let height = place.height;
    let at = |i: usize| place.at[i];
    let _ = write!(
        out,
        "<svg class=\"diagram\" role=\"img\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\"><title>{}</title><defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path class=\"head\" d=\"M0 0L10 5L0 10z\"/></marker></defs>",
        esc(title)
    );
    for &(p, c, r) in &edges {
        let (px, py) = at(p);
        let (cx, cy) = at(c);
        let class = if r.kind == Kind::TwoWayReference {
            "edge"
        } else {
            "edge ref"
        };
        let (d, lx, ly) = if p == c {
            // A collection that references itself: a loop over its box.
            let (x, y) = (px + NODE_W * 0.7, py);
            (
                format!("M{x:.1} {y:.1}c30 -28 60 -28 40 10"),
                x + 30.0,
                y - 20.0,
            )
        } else {
            // Forward, right side to left side, a little above the middle;
            // back (a cycle), left side to right side, a little below it,
            // so that the two arrows of a pair stay apart.
            let (x1, y1, x2, y2, label) = if cx > px {
                let y = NODE_H / 2.0 - 4.0;
                (px + NODE_W, py + y, cx, cy + y, -5.0)
            } else {
                let y = NODE_H / 2.0 + 6.0;
                (px, py + y, cx + NODE_W, cy + y, 12.0)
            };
            let mx = f64::midpoint(x1, x2);
            (
                format!("M{x1:.1} {y1:.1}C{mx:.1} {y1:.1} {mx:.1} {y2:.1} {x2:.1} {y2:.1}"),
                mx,
                f64::midpoint(y1, y2) + label + 5.0,
            )
        };
        let _ = write!(
            out,
            "<g><title>{} → {}</title><path class=\"{class}\" d=\"{d}\" marker-end=\"url(#arrow)\"/><text x=\"{lx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text><text x=\"{lx:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text></g>",
            esc(&r.from),
            esc(&r.to),
            ly - 5.0,
            esc(&crate::fmt::fit(&r.from_path, LABEL_CHARS)),
            ly + 13.0,
            esc(&crate::fmt::fit(&super::super::plain(&r.cardinality), LABEL_CHARS))
        );
    }
    for (i, ns) in nodes.iter().enumerate() {
        let (x, y) = at(i);
        let _ = write!(
            out,
            "<g class=\"n\"><title>{}</title><rect class=\"node\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{NODE_W}\" height=\"{NODE_H}\" rx=\"4\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text></g>",
            esc(ns),
            x + NODE_W / 2.0,
            y + NODE_H / 2.0 + 4.0,
            esc(&crate::fmt::fit(ns, NODE_CHARS))
        );
    }
    out.push_str("</svg>");
}
