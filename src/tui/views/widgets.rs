//! The pieces the views are drawn with: bordered blocks, scrolled text
//! and severity badges.

use ratatui::text::Line;
use ratatui::widgets::{Block, Borders};

use crate::tui::theme::Theme;

/// `s` scrolled sideways: its first `cols` display columns left out, and a
/// `…` in their place so the cut shows.
pub(crate) fn shift(s: &str, cols: usize) -> String {
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

pub use crate::tui::layout::badge;

pub(crate) fn block<'a>(title: impl Into<Line<'a>>, focused: bool, theme: &Theme) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(focused))
        .title(title)
        .title_style(theme.title())
}
