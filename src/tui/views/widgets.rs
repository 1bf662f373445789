//! The pieces the views are drawn with: bordered blocks, cut and scrolled
//! text, counts and severities.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use crate::rules::{Finding, Severity};
use crate::tui::model::Model;
use crate::tui::theme::Theme;

/// Counts as people read them: 999, 1.2k, 3.4M.
pub fn human_count(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.1}G", n as f64 / 1e9),
    }
}

/// Cuts `s` to `w` columns with an ellipsis.
pub fn fit(s: &str, w: usize) -> String {
    use crate::fmt::{char_width, display_width};
    if display_width(s) <= w {
        return s.to_owned();
    }
    if w == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if used + cw > w - 1 {
            break;
        }
        used += cw;
        out.push(c);
    }
    out.push('…');
    out
}

/// `s` scrolled sideways: its first `cols` display columns left out, and a
/// `…` in their place so the cut shows.
pub fn shift(s: &str, cols: usize) -> String {
    if cols == 0 {
        return s.to_owned();
    }
    let mut skipped = 0;
    let mut rest = s;
    for (i, c) in s.char_indices() {
        if skipped >= cols {
            rest = &s[i..];
            break;
        }
        skipped += crate::fmt::char_width(c);
        rest = &s[i + c.len_utf8()..];
    }
    if rest.is_empty() {
        return String::new();
    }
    format!("…{rest}")
}

/// The detail's sideways scroll, no further than its widest line needs;
/// remembered so `>` stops there.
pub fn clamp_hscroll<'a>(
    m: &Model,
    lines: impl IntoIterator<Item = &'a str>,
    width: usize,
) -> usize {
    let widest = lines
        .into_iter()
        .map(crate::fmt::display_width)
        .max()
        .unwrap_or(0);
    let max = u16::try_from(widest.saturating_sub(width)).unwrap_or(u16::MAX);
    m.detail.hmax.set(max);
    usize::from(m.detail.hscroll.min(max))
}

/// Wrapped lines, as everywhere in docshape (see `fmt::wrap`).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    crate::fmt::wrap(text, width)
}

pub fn badge(s: Option<Severity>) -> &'static str {
    match s {
        Some(Severity::Critical) => "●",
        Some(Severity::Warning) => "▲",
        Some(Severity::Info) => "i",
        None => " ",
    }
}

pub fn block<'a>(title: impl Into<Line<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(title)
        .title_style(theme.title())
}

/// The detail's scroll offset within its `lines`, no further than the last
/// screenful; remembered so `J` stops at the end.
pub fn clamp_detail(m: &Model, lines: usize, height: u16) -> u16 {
    let max = u16::try_from(lines.saturating_sub(usize::from(height))).unwrap_or(u16::MAX);
    m.detail.max.set(max);
    m.detail.scroll.min(max)
}

/// The detail's offsets down and sideways for `lines` drawn in `area`,
/// each no further than the text needs (remembered for `J` and `>`).
pub fn detail_offsets(m: &Model, lines: &[Line<'_>], area: Rect) -> (u16, u16) {
    let down = clamp_detail(m, lines.len(), area.height);
    let widest = lines.iter().map(Line::width).max().unwrap_or(0);
    let max = u16::try_from(widest.saturating_sub(usize::from(area.width))).unwrap_or(u16::MAX);
    m.detail.hmax.set(max);
    (down, m.detail.hscroll.min(max))
}

/// A finding's message wrapped to `width`, its severity in front of the
/// first line and the rest indented under it.
pub fn message_lines(fd: &Finding, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    wrap(&fd.message, width.saturating_sub(9))
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let head = if i == 0 {
                sev_span(fd.severity, theme)
            } else {
                Span::raw(" ".repeat(8))
            };
            Line::from(vec![head, Span::raw(" "), Span::styled(l, theme.text())])
        })
        .collect()
}

/// A style for a severity word.
pub fn sev_span(s: Severity, theme: &Theme) -> Span<'static> {
    Span::styled(format!("{:<8}", s.name()), theme.severity(s))
}
