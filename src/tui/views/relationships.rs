//! The Relationships tab: references within the selected collection's
//! database, and the selected one's fan-out.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph};
use ratatui::Frame;

use super::widgets::block;
use crate::i18n::evidence::word;
use crate::report::plain;
use crate::tui::detail::parts::fit;
use crate::tui::layout::{inner, offset, split};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

pub(crate) fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(r) = &m.report else { return };
    let (list, detail) = split(area);
    render_list(m, r, theme, f, list);
    render_detail(m, theme, f, detail);
}

/// The references of the selected collection's database.
fn render_list(m: &Model, r: &crate::report::Report, theme: &Theme, f: &mut Frame, list: Rect) {
    let lang = m.lang;
    f.render_widget(
        block(
            format!(
                " {} ({}) ",
                lang.pick("References", "引用"),
                m.rels.rows.len()
            ),
            m.focus == Pane::Main,
            theme,
        ),
        list,
    );
    let inside = inner(list);
    let w = usize::from(inside.width);
    let h = usize::from(inside.height.saturating_sub(1));
    let heads = [
        lang.pick("from → to", "从 → 到"),
        lang.pick("kind", "类型"),
        lang.pick("cardinality", "基数"),
    ];
    // Within one database the ends are named without it (the detail
    // names them whole).
    let db = m.collection().map(|c| format!("{}.", c.meta.db));
    let short = |name: &'_ str| -> String {
        db.as_deref()
            .and_then(|d| name.strip_prefix(d))
            .unwrap_or(name)
            .to_owned()
    };
    let rows: Vec<[String; 3]> = m
        .rels
        .rows
        .iter()
        .map(|&ri| {
            let rel = &r.relationships[ri];
            [
                format!("{} → {}", short(&rel.from), short(&rel.to)),
                word("kind", &plain(&rel.kind), m.lang),
                word("cardinality", &plain(&rel.cardinality), m.lang),
            ]
        })
        .collect();
    // Both ends whole when they fit, else cut in their middle first.
    let column = |i: usize, min: usize| {
        crate::fmt::Column::of(
            std::iter::once(heads[i]).chain(rows.iter().map(|r| r[i].as_str())),
            min,
        )
    };
    let widths =
        crate::fmt::column_widths(&[column(0, 16), column(1, 8), column(2, 8)], w, 1, Some(0));
    let row = |cells: [&str; 3]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(t, cw)| crate::fmt::cell(t, *cw, false))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut lines = vec![Line::styled(fit(&row(heads), w), theme.dim())];
    let off = offset(m.rels.sel, m.rels.rows.len(), h);
    for (i, (&ri, cells)) in m.rels.rows.iter().zip(&rows).enumerate().skip(off).take(h) {
        let rel = &r.relationships[ri];
        let text = row([
            &ends(&short(&rel.from), &short(&rel.to), widths[0]),
            &cells[1],
            &cells[2],
        ]);
        let mut l = Line::styled(fit(&text, w), theme.text());
        if i == m.rels.sel {
            l = l.style(theme.selected());
        }
        lines.push(l);
    }
    if m.rels.rows.is_empty() {
        lines.push(Line::styled(
            lang.pick(
                "no references found in this database",
                "这个数据库里没有找到引用",
            ),
            theme.dim(),
        ));
    }
    f.render_widget(Paragraph::new(lines), inside);
}

/// `from → to` in `w` cells: each end cut in its own middle when they do
/// not fit, the shorter whole when it takes no more than half, so that
/// both the field that refers and the one referred to show.
fn ends(from: &str, to: &str, w: usize) -> String {
    use crate::fmt::display_width;
    let whole = format!("{from} → {to}");
    if display_width(&whole) <= w {
        return whole;
    }
    let room = w.saturating_sub(3);
    let (fw, tw) = (display_width(from), display_width(to));
    let half = room / 2;
    let from_w = if tw <= room - half {
        room - tw
    } else if fw <= half {
        fw
    } else {
        half
    };
    format!("{} → {}", fit(from, from_w), fit(to, room - from_w))
}

/// The selected reference in detail, with its fan-out chart.
fn render_detail(m: &Model, theme: &Theme, f: &mut Frame, detail: Rect) {
    let lang = m.lang;
    let Some(rel) = m.selected_relationship() else {
        f.render_widget(
            block(
                format!(" {} ", lang.pick("Reference", "引用")),
                false,
                theme,
            ),
            detail,
        );
        return;
    };
    f.render_widget(
        block(
            format!(" {} ", lang.pick("Reference", "引用")),
            false,
            theme,
        ),
        detail,
    );
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
            Span::styled(crate::tui::layout::pad(k, 12), theme.dim()),
            Span::styled(v, theme.text()),
        ])
    };
    let mut d = vec![
        kv(lang.pick("from", "从"), rel.from.clone()),
        kv(lang.pick("to", "到"), rel.to.clone()),
        kv(
            lang.pick("kind", "类型"),
            word("kind", &plain(&rel.kind), lang),
        ),
        kv(
            lang.pick("cardinality", "基数"),
            word("cardinality", &plain(&rel.cardinality), lang),
        ),
    ];
    // An embedded relationship has nothing to look up: no match rate.
    if rel.references_probed > 0 {
        d.push(kv(
            lang.pick("matched", "匹配"),
            lang.pick(
                format!(
                    "{} ({} of {} references in the kept sample)",
                    crate::fmt::percent(rel.match_rate),
                    crate::fmt::group(rel.references_matched),
                    crate::fmt::group(rel.references_probed)
                ),
                format!(
                    "{}（保留的样本中 {} 个引用里有 {} 个）",
                    crate::fmt::percent(rel.match_rate),
                    crate::fmt::group(rel.references_probed),
                    crate::fmt::group(rel.references_matched)
                ),
            ),
        ));
        d.push(kv(
            lang.pick("dangling", "悬空"),
            crate::fmt::percent(rel.dangling),
        ));
    }
    if let Some(e) = &rel.evidence {
        d.push(kv(
            lang.pick("evidence", "证据"),
            format!(
                "{} ({} {}, {} {})",
                e.accepted_by
                    .map_or_else(|| "-".to_owned(), |a| word("accepted_by", a, lang)),
                lang.pick("chance", "偶然"),
                crate::fmt::percent(e.chance_rate),
                lang.pick("found", "实测"),
                crate::fmt::percent(e.observed)
            ),
        ));
    }
    if let Some(p) = &rel.polymorphic {
        let targets = p.targets.join(" | ");
        d.push(kv(
            lang.pick("polymorphic", "多态引用"),
            match (&p.discriminator, &p.class) {
                (Some(dis), Some(c)) => lang.pick(
                    format!("{dis} = {c}: one of {targets}"),
                    format!("{dis} = {c}：{targets} 之一"),
                ),
                _ => lang.pick(format!("one of {targets}"), format!("{targets} 之一")),
            },
        ));
    }
    if rel.to_one_pointer {
        d.push(kv(
            lang.pick("pointer", "指针"),
            lang.pick(
                "to one later document (no index advised)",
                "指向一个更晚创建的文档（不建议索引）",
            )
            .to_owned(),
        ));
    }
    if let Some(u) = &rel.target_unique {
        d.push(kv(
            lang.pick("key unique", "键唯一"),
            format!(
                "{} ({})",
                yes_no(lang, u.unique),
                word("method", &u.method, lang)
            ),
        ));
    }
    if let Some(i) = rel.indexed {
        d.push(kv(
            lang.pick("indexed", "有索引"),
            yes_no(lang, i).to_owned(),
        ));
    }
    match &rel.fanout {
        Some(fo) => {
            d.push(kv(
                lang.pick("fan-out", "扇出"),
                lang.pick(
                    format!(
                        "min {} · avg {} · p95 {} · max {} over {} parents",
                        crate::fmt::group(fo.min),
                        crate::fmt::decimal(fo.avg),
                        crate::fmt::group(fo.p95),
                        crate::fmt::group(fo.max),
                        crate::fmt::group(fo.parents)
                    ),
                    format!(
                        "{} 个父文档：最小 {} · 平均 {} · p95 {} · 最大 {}",
                        crate::fmt::group(fo.parents),
                        crate::fmt::group(fo.min),
                        crate::fmt::decimal(fo.avg),
                        crate::fmt::group(fo.p95),
                        crate::fmt::group(fo.max)
                    ),
                ),
            ));
            if let Some(mth) = &rel.fanout_method {
                d.push(kv(
                    lang.pick("measured by", "测量方式"),
                    word("method", mth, lang),
                ));
            }
        }
        None => d.push(kv(
            lang.pick("fan-out", "扇出"),
            lang.pick("not measured", "未测量").to_owned(),
        )),
    }
    // Every value whole (both ends, the exact counts): wrapped under
    // itself when longer than the panel.
    let value_w = usize::from(text.width).saturating_sub(12).max(1);
    let d: Vec<Line> = d
        .into_iter()
        .flat_map(|l| match l.spans.as_slice() {
            [k, v] if v.width() > value_w => crate::fmt::wrap(&v.content, value_w)
                .into_iter()
                .enumerate()
                .map(|(i, part)| {
                    let label = if i == 0 {
                        k.clone()
                    } else {
                        Span::raw(" ".repeat(12))
                    };
                    Line::from(vec![label, Span::styled(part, v.style)])
                })
                .collect(),
            _ => vec![l],
        })
        .collect();
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
                let label = crate::fmt::compact(lo);
                Bar::default()
                    .value(n)
                    .label(Line::from(label))
                    .text_value(crate::fmt::compact(n))
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

fn yes_no(lang: crate::i18n::Lang, b: bool) -> &'static str {
    if b {
        lang.pick("yes", "是")
    } else {
        lang.pick("no", "否")
    }
}
