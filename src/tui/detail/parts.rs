//! Text pieces the detail and the views share: cut and wrapped text,
//! severities and findings' messages.

use ratatui::text::{Line, Span};

use crate::rules::{Finding, Severity};
use crate::tui::theme::Theme;

/// Cut to a width in cells, as everywhere in docshape (see `fmt::fit`:
/// the middle cut, head and distinguishing end kept).
pub use crate::fmt::{fit, fit_end};

/// Wrapped lines, as everywhere in docshape (see `fmt::wrap`).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    crate::fmt::wrap(text, width)
}

/// A finding's message wrapped to `width`, its severity in front of the
/// first line and the rest indented under it.
pub(crate) fn message_lines(
    fd: &Finding,
    width: usize,
    theme: &Theme,
    lang: crate::i18n::Lang,
) -> Vec<Line<'static>> {
    wrap(&fd.message, width.saturating_sub(9))
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let head = if i == 0 {
                sev_span(fd.severity, theme, lang)
            } else {
                Span::raw(" ".repeat(8))
            };
            Line::from(vec![head, Span::raw(" "), Span::styled(l, theme.text())])
        })
        .collect()
}

/// A style for a severity word.
pub(crate) fn sev_span(s: Severity, theme: &Theme, lang: crate::i18n::Lang) -> Span<'static> {
    Span::styled(crate::fmt::pad(s.label(lang), 8), theme.severity(s))
}
