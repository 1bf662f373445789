//! The Indexes tab: every index of the selected collection with its keys,
//! kind, size and use since the server started counting, and the findings
//! that name it.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::widgets::block;
use crate::report::CollectionReport;
use crate::tui::detail::indexes::{is_about, key_text, kinds_text, size_of, usage};
use crate::tui::detail::parts::fit;
use crate::tui::layout::{inner, offset, split};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

pub(crate) fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(c) = m.collection() else { return };
    let (list, detail) = split(area);
    render_list(m, c, theme, f, list);
    render_detail(m, c, theme, f, detail);
}

/// The collection's indexes, one row each.
fn render_list(m: &Model, c: &CollectionReport, theme: &Theme, f: &mut Frame, list: Rect) {
    let lang = m.lang;
    f.render_widget(
        block(
            format!(" {} ({}) ", lang.pick("Indexes", "索引"), c.indexes.len()),
            m.focus == Pane::Main,
            theme,
        ),
        list,
    );
    let inside = inner(list);
    let w = usize::from(inside.width);
    let h = usize::from(inside.height.saturating_sub(1));
    let heads = [
        lang.pick("name", "名称"),
        lang.pick("key", "键"),
        lang.pick("kind", "类型"),
        lang.pick("size", "大小"),
        lang.pick("ops", "操作数"),
    ];
    let rows: Vec<[String; 5]> = c
        .indexes
        .iter()
        .map(|ix| {
            [
                ix.name.clone(),
                key_text(ix),
                kinds_text(ix),
                size_of(c, &ix.name).map_or_else(|| "–".into(), |b| crate::fmt::bytes(b as f64)),
                usage(c, &ix.name).map_or_else(|| "–".into(), |(n, _)| crate::fmt::group(n)),
            ]
        })
        .collect();
    // Each column from its content; the name, kind and key cut in their
    // middle when the row is too narrow (the key, what one reads an index
    // for, keeps at least half the row); size and uses never.
    let column = |i: usize, min: usize| {
        crate::fmt::Column::of(
            std::iter::once(heads[i]).chain(rows.iter().map(|r| r[i].as_str())),
            min,
        )
    };
    let cols = [
        column(0, 6),
        column(1, w.saturating_sub(2) / 2),
        column(2, 12),
        crate::fmt::Column::whole(
            std::iter::once(heads[3]).chain(rows.iter().map(|r| r[3].as_str())),
        ),
        crate::fmt::Column::whole(
            std::iter::once(heads[4]).chain(rows.iter().map(|r| r[4].as_str())),
        ),
    ];
    let widths = crate::fmt::column_widths(&cols, w.saturating_sub(2), 1, Some(1));
    let row = |badge: &str, cells: [&str; 5]| {
        let mut out = format!("{badge} ");
        for (i, (text, width)) in cells.iter().zip(&widths).enumerate() {
            if i > 0 {
                out.push(' ');
            }
            out.push_str(&crate::fmt::cell(text, *width, i >= 3));
        }
        out
    };
    let mut lines = vec![Line::styled(fit(&row(" ", heads), w), theme.dim())];
    let off = offset(m.indexes.sel, c.indexes.len(), h);
    for (i, (ix, cells)) in c.indexes.iter().zip(&rows).enumerate().skip(off).take(h) {
        let worst = c
            .findings
            .iter()
            .filter(|f| is_about(f, &ix.name))
            .map(|f| f.severity)
            .max();
        let text = row(
            super::widgets::badge(worst),
            [&cells[0], &cells[1], &cells[2], &cells[3], &cells[4]],
        );
        let mut l = Line::styled(fit(&text, w), theme.text());
        if i == m.indexes.sel {
            l = l.style(theme.selected());
        }
        lines.push(l);
    }
    if c.indexes.is_empty() {
        lines.push(Line::styled(
            m.lang.pick(
                "no indexes known for this collection",
                "此集合没有已知的索引",
            ),
            theme.dim(),
        ));
    }
    f.render_widget(Paragraph::new(lines), inside);
}

/// The selected index in detail.
fn render_detail(m: &Model, c: &CollectionReport, theme: &Theme, f: &mut Frame, detail: Rect) {
    let lang = m.lang;
    let Some(ix) = c.indexes.get(m.indexes.sel) else {
        f.render_widget(
            block(
                format!(" {} ", lang.pick("Index", "索引")),
                m.focus == Pane::Detail,
                theme,
            ),
            detail,
        );
        return;
    };
    f.render_widget(
        block(format!(" {} ", ix.name), m.focus == Pane::Detail, theme),
        detail,
    );
    let Some((d, dinside)) = crate::tui::detail::indexes::text(m, c, theme, detail) else {
        return;
    };
    let offsets = crate::tui::layout::detail_offsets(&m.detail, &d, dinside);
    f.render_widget(Paragraph::new(d).scroll(offsets), dinside);
}
