//! The Relationships tab: references within the selected collection's
//! database, and the selected one's fan-out.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph};
use ratatui::Frame;

use super::{block, fit, human_count, inner, offset, split};
use crate::report::plain;
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(r) = &m.report else { return };
    let (list, detail) = split(area);
    f.render_widget(
        block(
            format!(" References ({}) ", m.rel_rows.len()),
            m.focus == Pane::Main,
            theme,
        ),
        list,
    );
    let inside = inner(list);
    let w = usize::from(inside.width);
    let h = usize::from(inside.height.saturating_sub(1));
    let mut lines = vec![Line::styled(
        fit(
            &format!(
                "{:<w2$} {:<18} {}",
                "from → to",
                "kind",
                "cardinality",
                w2 = w.saturating_sub(34).max(10)
            ),
            w,
        ),
        theme.dim(),
    )];
    let off = offset(m.rel_sel, m.rel_rows.len(), h);
    for (i, &ri) in m.rel_rows.iter().enumerate().skip(off).take(h) {
        let rel = &r.relationships[ri];
        let name_w = w.saturating_sub(34).max(10);
        let text = format!(
            "{:<name_w$} {:<18} {}",
            fit(&format!("{} → {}", rel.from, rel.to), name_w),
            plain(&rel.kind),
            plain(&rel.cardinality)
        );
        let mut l = Line::styled(fit(&text, w), theme.text());
        if i == m.rel_sel {
            l = l.style(theme.selected());
        }
        lines.push(l);
    }
    if m.rel_rows.is_empty() {
        lines.push(Line::styled(
            "no references found in this database",
            theme.dim(),
        ));
    }
    f.render_widget(Paragraph::new(lines), inside);

    let Some(rel) = m.selected_relationship() else {
        f.render_widget(block(" Reference ", false, theme), detail);
        return;
    };
    f.render_widget(block(" Reference ", false, theme), detail);
    let dinside = inner(detail);
    let chart_h = if rel.fanout.is_some() && dinside.height >= 14 {
        8
    } else {
        0
    };
    let [text, chart] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(chart_h)]).areas(dinside);
    let kv = |k: &str, v: String| {
        Line::from(vec![
            Span::styled(format!("{k:<12}"), theme.dim()),
            Span::styled(v, theme.text()),
        ])
    };
    let mut d = vec![
        kv("from", rel.from.clone()),
        kv("to", rel.to.clone()),
        kv("kind", plain(&rel.kind)),
        kv("cardinality", plain(&rel.cardinality)),
    ];
    // An embedded relationship has nothing to look up: no match rate.
    if rel.references_probed > 0 {
        d.push(kv(
            "matched",
            format!(
                "{} ({} of {} references)",
                crate::fmt::percent(rel.match_rate),
                crate::fmt::group(rel.references_matched),
                crate::fmt::group(rel.references_probed)
            ),
        ));
        d.push(kv("dangling", crate::fmt::percent(rel.dangling)));
    }
    if let Some(e) = &rel.evidence {
        d.push(kv(
            "evidence",
            format!(
                "{} (chance {}, found {})",
                e.accepted_by.unwrap_or("-"),
                crate::fmt::percent(e.chance_rate),
                crate::fmt::percent(e.observed)
            ),
        ));
    }
    if let Some(u) = &rel.target_unique {
        d.push(kv(
            "key unique",
            format!("{} ({})", if u.unique { "yes" } else { "no" }, u.method),
        ));
    }
    if let Some(i) = rel.indexed {
        d.push(kv("indexed", if i { "yes".into() } else { "no".into() }));
    }
    match &rel.fanout {
        Some(fo) => {
            d.push(kv(
                "fan-out",
                format!(
                    "min {} · avg {:.1} · p95 {} · max {} over {} parents",
                    fo.min,
                    fo.avg,
                    fo.p95,
                    fo.max,
                    human_count(fo.parents)
                ),
            ));
            if let Some(mth) = &rel.fanout_method {
                d.push(kv("measured by", mth.clone()));
            }
        }
        None => d.push(kv("fan-out", "not measured".into())),
    }
    f.render_widget(Paragraph::new(d), text);
    if let (Some(fo), true) = (&rel.fanout, chart_h > 0) {
        // Parents per number of children, adjacent buckets merged to fit.
        let width = usize::from(chart.width.saturating_sub(2)).max(8);
        let slots = (width / 8).clamp(1, 24);
        let per = fo.histogram.len().div_ceil(slots).max(1);
        let bars: Vec<Bar> = fo
            .histogram
            .chunks(per)
            .map(|c| {
                let lo = c.first().map_or(0, |b| b[0]);
                let n: u64 = c.iter().map(|b| b[2]).sum();
                // Bars are narrow: label each by its lower bound.
                let label = human_count(lo);
                Bar::default()
                    .value(n)
                    .label(Line::from(label))
                    .text_value(human_count(n))
            })
            .collect();
        f.render_widget(
            BarChart::default()
                .block(block(" parents by number of children ", false, theme))
                .bar_width(6)
                .bar_gap(2)
                .bar_style(theme.fg("chart.bar"))
                .value_style(theme.status())
                .label_style(theme.dim())
                .data(BarGroup::default().bars(&bars)),
            chart,
        );
    }
}
