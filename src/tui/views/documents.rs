//! The Documents tab: the kept sample — or a page of a query's results —
//! as pretty, coloured relaxed Extended JSON, one fold per document, under
//! the query bar when it is open. Only the documents on screen are decoded.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::widgets::{block, shift};
use crate::fmt::fit_end;
use crate::i18n::Lang;
use crate::tui::detail::highlight::json_line;
use crate::tui::detail::parts::fit;
use crate::tui::layout::documents::{cell, column_widths, pad, preview};
use crate::tui::layout::{doc_hscroll_limit, inner};
use crate::tui::model::{self, Chooser, DocView, Model, Pane, Search};
use crate::tui::querybar::{self, Bar, Part, Results, PAGE};
use crate::tui::theme::Theme;

/// "N match", "counting…" or why the count failed.
fn count_text(r: &Results, lang: Lang) -> String {
    match &r.count {
        None => lang.pick("counting…", "计数中…").to_owned(),
        Some(Ok(n)) => match lang {
            Lang::En => format!("{} match", crate::fmt::group(*n)),
            Lang::Zh => format!("匹配 {} 个", crate::fmt::group(*n)),
        },
        Some(Err(e)) => format!("{} ({e})", lang.pick("not counted", "未计数")),
    }
}

/// The tab's title: what is listed.
fn title(m: &Model, results: Option<&Results>) -> String {
    let l = m.lang;
    let table = if m.docs.columns.table {
        l.pick(" · table", " · 表格")
    } else {
        ""
    };
    if let Some(r) = results {
        let pages = r.pages().map_or_else(|| "?".to_owned(), |p| p.to_string());
        return format!(
            " {}: {} · {} {}/{pages}{table} ",
            l.pick("Query", "查询"),
            count_text(r, l),
            l.pick("page", "页"),
            r.page + 1,
        );
    }
    let which = match &m.docs.view {
        DocView::All => l.pick("kept sample", "保留的样本").to_owned(),
        DocView::WithField(p) => format!("{} {p}", l.pick("holding", "含有")),
        DocView::Largest => l.pick("largest first", "最大的在前").to_owned(),
    };
    format!(
        " {}: {which} ({}){table} · {} ",
        l.pick("Documents", "文档"),
        m.docs.list.len(),
        l.pick("Enter folds · / queries", "Enter 折叠 · / 查询")
    )
}

/// The open bar: the parts (the edited one marked), its text, and what
/// is wrong with it.
fn bar_lines(bar: &Bar, lang: Lang, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut parts = vec![Span::styled(
        format!("{} ", lang.pick("query", "查询")),
        theme.title(),
    )];
    for p in Part::ALL {
        let style = if p == bar.part {
            theme.selected()
        } else {
            theme.dim()
        };
        let filled = if querybar::text_of(&bar.text, p).trim().is_empty() {
            ""
        } else {
            "•"
        };
        parts.push(Span::styled(format!(" {}{filled} ", p.label(lang)), style));
    }
    let hint = lang.pick(
        "Enter runs · Tab next · ↑↓ history · Esc closes",
        "Enter 运行 · Tab 下一项 · ↑↓ 历史 · Esc 关闭",
    );
    let used: usize = parts
        .iter()
        .map(|p| crate::fmt::display_width(&p.content))
        .sum();
    // The keys on the parts' line when they fit, else on a line of their own.
    let hint_below = used + 2 + crate::fmt::display_width(hint) > w;
    if !hint_below {
        parts.push(Span::styled(format!("  {hint}"), theme.dim()));
    }
    let text = querybar::text_of(&bar.text, bar.part);
    // The end of a long text stays in sight, where the cursor is.
    let room = w.saturating_sub(4);
    let shown = crate::fmt::fit_start(text, room);
    let mut out = vec![Line::from(parts)];
    if hint_below {
        out.push(Line::styled(crate::fmt::fit_end(hint, w), theme.dim()));
    }
    out.push(Line::from(vec![
        Span::styled("› ", theme.title()),
        Span::styled(format!("{shown}▏"), theme.text()),
    ]));
    if let Some(e) = &bar.error {
        for l in crate::tui::detail::parts::wrap(&format!("✗ {e}"), w.max(1)) {
            out.push(Line::styled(
                l,
                theme.text().fg(theme.color("status.error")),
            ));
        }
    }
    out
}

/// The query shown, its state, and its explain when asked for.
fn results_lines(r: &Results, lang: Lang, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(vec![
        Span::styled(format!("{} ", lang.pick("query", "查询")), theme.title()),
        Span::styled(fit(&r.text.summary(), w.saturating_sub(6)), theme.text()),
    ])];
    let first = r.page * PAGE + 1;
    let state = if r.loading {
        lang.pick("reading…", "读取中…").to_owned()
    } else if let Some(e) = &r.error {
        format!("✗ {e}")
    } else if r.docs.is_empty() {
        lang.pick("no document matches", "没有匹配的文档")
            .to_owned()
    } else {
        format!(
            "{} {first}–{} · {} · n/p {} · x {} · w {} · Esc {}",
            lang.pick("documents", "文档"),
            first + r.docs.len() as u64 - 1,
            count_text(r, lang),
            lang.pick("pages", "翻页"),
            lang.pick("explain", "执行计划"),
            lang.pick("export", "导出"),
            lang.pick("the sample", "样本"),
        )
    };
    let style = if r.error.is_some() {
        theme.text().fg(theme.color("status.error"))
    } else {
        theme.dim()
    };
    for l in crate::tui::detail::parts::wrap(&state, w.max(1)) {
        out.push(Line::styled(l, style));
    }
    if r.show_explain {
        match &r.explain {
            None => out.push(Line::styled(
                lang.pick("explaining…", "分析中…"),
                theme.dim(),
            )),
            Some(Ok(e)) => {
                for l in querybar::explain_lines(e, lang) {
                    for part in crate::tui::detail::parts::wrap(&l, w.saturating_sub(2).max(1)) {
                        out.push(Line::styled(format!("  {part}"), theme.text()));
                    }
                }
            }
            Some(Err(e)) => {
                let text = format!("{}: {e}", lang.pick("no explain", "无法分析"));
                for part in crate::tui::detail::parts::wrap(&text, w.saturating_sub(2).max(1)) {
                    out.push(Line::styled(
                        format!("  {part}"),
                        theme.text().fg(theme.color("status.warning")),
                    ));
                }
            }
        }
    }
    out
}

/// The search line: what is searched and how many documents hold it.
fn search_line(s: &Search, lang: Lang, w: usize, theme: &Theme) -> Line<'static> {
    let found = match (s.at, s.hits.len()) {
        (_, 0) if s.text.is_empty() => String::new(),
        (None, _) | (_, 0) => lang.pick("no match", "无匹配").to_owned(),
        (Some(k), n) => match lang {
            Lang::En => format!("{} of {n}", k + 1),
            Lang::Zh => format!("第 {} 个，共 {n} 个", k + 1),
        },
    };
    let keys = if s.editing {
        lang.pick("Enter keeps · Esc ends", "Enter 保留 · Esc 结束")
    } else {
        lang.pick(
            "n/N next/previous · Esc ends",
            "n/N 下一个/上一个 · Esc 结束",
        )
    };
    let caret = if s.editing { "▏" } else { "" };
    let head = format!("{} › ", lang.pick("search", "搜索"));
    let rest = format!("  {found} · {keys}");
    let room = w
        .saturating_sub(crate::fmt::display_width(&head))
        .saturating_sub(crate::fmt::display_width(&rest));
    Line::from(vec![
        Span::styled(head, theme.title()),
        Span::styled(
            format!("{}{caret}", fit_end(&s.text, room.max(1))),
            theme.text(),
        ),
        Span::styled(fit_end(&rest, w), theme.dim()),
    ])
}

/// The chooser of the table's columns: every top-level field, ticked or
/// not (the number is its column's place).
fn chooser_lines(
    ch: &Chooser,
    lang: Lang,
    w: usize,
    h: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled(
        fit_end(
            lang.pick(
                "columns: Space ticks a field · Enter shows the table · Esc closes",
                "列：Space 勾选字段 · Enter 显示表格 · Esc 关闭",
            ),
            w,
        ),
        theme.title(),
    )];
    let room = h.saturating_sub(1).max(1);
    let first = crate::tui::layout::offset(ch.sel, ch.fields.len(), room);
    for (i, f) in ch.fields.iter().enumerate().skip(first).take(room) {
        let mark = ch
            .ticked
            .iter()
            .position(|t| t == f)
            .map_or_else(|| "[ ]".to_owned(), |p| format!("[{}]", p + 1));
        let mut l = Line::styled(fit_end(&format!("{mark:<5}{f}"), w), theme.text());
        if i == ch.sel {
            l = l.style(theme.selected());
        }
        out.push(l);
    }
    out
}

/// A row's text with the search's matches marked.
fn marked(text: String, needle: &str, base: Style, mark: Style) -> Vec<Span<'static>> {
    let lower = text.to_lowercase();
    // Lower case of the same length only: the positions then hold.
    if needle.is_empty() || lower.len() != text.len() {
        return vec![Span::styled(text, base)];
    }
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = lower[at..].find(needle).map(|i| i + at) {
        let end = i + needle.len();
        if !text.is_char_boundary(i) || !text.is_char_boundary(end) {
            break;
        }
        out.push(Span::styled(text[at..i].to_owned(), base));
        out.push(Span::styled(text[i..end].to_owned(), mark));
        at = end;
    }
    out.push(Span::styled(text[at..].to_owned(), base));
    out
}

pub(crate) fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    if m.collection().is_none() {
        return;
    }
    let results = model::results(m);
    f.render_widget(block(title(m, results), m.focus == Pane::Main, theme), area);
    let inside = inner(area);
    let w = usize::from(inside.width);
    let mut lines: Vec<Line> = Vec::new();
    if let Some(bar) = &m.docs.query.bar {
        lines.extend(bar_lines(bar, m.lang, w, theme));
    }
    if let Some(r) = results {
        lines.extend(results_lines(r, m.lang, w, theme));
    }
    if let Some(s) = &m.docs.search {
        lines.push(search_line(s, m.lang, w, theme));
    }
    let h = usize::from(inside.height);
    if let Some(ch) = &m.docs.columns.chooser {
        let room = h.saturating_sub(lines.len());
        lines.extend(chooser_lines(ch, m.lang, w, room, theme));
        f.render_widget(Paragraph::new(lines), inside);
        return;
    }
    let table = m.docs.columns.table && !m.docs.columns.chosen.is_empty();
    if m.docs.list.is_empty() && results.is_none() {
        lines.push(Line::styled(
            m.lang.pick(
                "no kept document here (d on a field, L for the largest, Esc for all)",
                "这里没有保留的文档（在字段上按 d，L 看最大的，Esc 看全部）",
            ),
            theme.dim(),
        ));
    }
    // Rows each listed document takes: its heading, and its lines if open.
    let rows = |d: usize| {
        1 + if m.docs.open.contains(&d) {
            m.docs.lines.get(&d).map_or(0, Vec::len)
        } else {
            0
        }
    };
    // Keep two documents above the selection, but never leave the screen
    // part empty when the list could fill it (as after `G`); with the
    // cursor in the selected document, that document at the top.
    let mut last_start = m.docs.list.len();
    let mut filled = lines.len();
    while last_start > 0 && filled < h {
        last_start -= 1;
        filled += rows(m.docs.list[last_start]);
    }
    let cursor = m.docs.cursor;
    let start = match cursor {
        Some(_) => m.docs.sel,
        None => m.docs.sel.saturating_sub(2).min(last_start),
    };
    let number = |d: usize| results.map_or(d, |r| (r.page * PAGE) as usize + d + 1);
    // The table: its columns as wide as the rows on screen need.
    let widths = if table {
        let heads = &m.docs.columns.chosen;
        let cells: Vec<Vec<String>> = m
            .docs
            .list
            .iter()
            .skip(start)
            .take(h)
            .filter_map(|&d| m.doc_bytes(d))
            .map(|b| heads.iter().map(|k| cell(b, k)).collect())
            .collect();
        let widths = column_widths(heads, &cells, w.saturating_sub(9));
        let head: Vec<String> = heads
            .iter()
            .zip(&widths)
            .map(|(k, &cw)| pad(k, cw))
            .collect();
        lines.push(Line::styled(
            fit_end(&format!("{:9}{}", "", head.join(" ")), w),
            theme.title(),
        ));
        widths
    } else {
        Vec::new()
    };
    let needle = m
        .docs
        .search
        .as_ref()
        .map(|s| s.text.to_lowercase())
        .unwrap_or_default();
    let hits = m
        .docs
        .search
        .as_ref()
        .map_or(&[][..], |s| s.hits.as_slice());
    let mark = theme
        .selected()
        .add_modifier(ratatui::style::Modifier::UNDERLINED);
    for (pos, &d) in m.docs.list.iter().enumerate().skip(start) {
        if lines.len() >= h {
            break;
        }
        let Some(bytes) = m.doc_bytes(d) else {
            continue;
        };
        let open = m.docs.open.contains(&d);
        let here = pos == m.docs.sel;
        // Results are numbered from the query's first match.
        let n = number(d);
        let arrow = if open { "▾" } else { "▸" };
        let text = if table {
            let cells: Vec<String> = m
                .docs
                .columns
                .chosen
                .iter()
                .zip(&widths)
                .map(|(k, &cw)| pad(&cell(bytes, k), cw))
                .collect();
            fit_end(&format!("{arrow} #{n:<5} {}", cells.join(" ")), w)
        } else {
            let lead = format!(
                "{arrow} #{n:<4} {:>9}  ",
                crate::fmt::bytes(bytes.len() as f64)
            );
            let room = w.saturating_sub(crate::fmt::display_width(&lead));
            fit_end(&format!("{lead}{}", preview(bytes, room)), w)
        };
        let spans = if hits.contains(&pos) {
            marked(text, &needle, theme.text(), mark)
        } else {
            vec![Span::styled(text, theme.text())]
        };
        let mut l = Line::from(spans);
        if here && cursor.is_none() {
            l = l.style(theme.selected());
        }
        lines.push(l);
        if !open {
            continue;
        }
        let text = m.docs.lines.get(&d).map_or(&[][..], Vec::as_slice);
        let (skip, hs) = if here {
            let limit =
                doc_hscroll_limit(text.iter().map(|l| l.text.as_str()), w.saturating_sub(2));
            let hs = usize::from(m.detail.hscroll.min(limit));
            let room = h.saturating_sub(lines.len());
            (
                cursor.map_or(0, |c| crate::tui::layout::offset(c, text.len(), room)),
                hs,
            )
        } else {
            (0, 0)
        };
        for (i, line) in text.iter().enumerate().skip(skip) {
            if lines.len() >= h {
                break;
            }
            let mut l = json_line(
                &crate::fmt::fit_end(&format!("  {}", shift(&line.text, hs)), w),
                theme,
            );
            if here && cursor == Some(i) {
                l = l.style(theme.selected());
            }
            lines.push(l);
        }
    }
    f.render_widget(Paragraph::new(lines), inside);
}
