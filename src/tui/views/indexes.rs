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

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
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
    // name · kind · size · ops, the key in what is left.
    let name_w = (w / 4).clamp(8, 28);
    let kind_w = 16;
    let tail = 10 + 1 + 9;
    let key_w = w.saturating_sub(2 + name_w + kind_w + tail + 4).max(6);
    let row = |badge: &str, name: &str, key: &str, kind: &str, size: &str, ops: &str| {
        let right = |s: &str, w: usize| {
            format!(
                "{}{s}",
                " ".repeat(w.saturating_sub(crate::fmt::display_width(s)))
            )
        };
        format!(
            "{badge} {} {} {} {} {}",
            crate::tui::layout::pad(&fit(name, name_w), name_w),
            crate::tui::layout::pad(&fit(key, key_w), key_w),
            crate::tui::layout::pad(&fit(kind, kind_w), kind_w),
            right(size, 10),
            right(ops, 9)
        )
    };
    let mut lines = vec![Line::styled(
        fit(
            &row(
                " ",
                lang.pick("name", "名称"),
                lang.pick("key", "键"),
                lang.pick("kind", "类型"),
                lang.pick("size", "大小"),
                lang.pick("ops", "操作数"),
            ),
            w,
        ),
        theme.dim(),
    )];
    let off = offset(m.indexes.sel, c.indexes.len(), h);
    for (i, ix) in c.indexes.iter().enumerate().skip(off).take(h) {
        let size = size_of(c, &ix.name).map_or_else(|| "–".into(), |b| crate::fmt::bytes(b as f64));
        let ops = usage(c, &ix.name).map_or_else(|| "–".into(), |(n, _)| crate::fmt::group(n));
        let worst = c
            .findings
            .iter()
            .filter(|f| is_about(f, &ix.name))
            .map(|f| f.severity)
            .max();
        let text = row(
            super::widgets::badge(worst),
            &ix.name,
            &key_text(ix),
            &kinds_text(ix),
            &size,
            &ops,
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
