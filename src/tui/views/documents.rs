//! The Documents tab: the kept sample as pretty, coloured relaxed Extended
//! JSON, one fold per document. Only the documents on screen are decoded.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::highlight::json_line;
use super::{block, clamp_hscroll, fit, inner, shift};
use crate::tui::model::{DocView, Model, Pane};
use crate::tui::theme::Theme;

/// Lines shown of one open document at most.
const MAX_LINES: usize = 5_000;

/// A kept document as pretty relaxed Extended JSON.
pub fn pretty(bytes: &[u8]) -> String {
    match bson::Document::from_reader(bytes) {
        Ok(d) => serde_json::to_string_pretty(&bson::Bson::Document(d).into_relaxed_extjson())
            .unwrap_or_default(),
        Err(e) => format!("(cannot decode this document: {e})"),
    }
}

/// The lines an open document shows, at most `MAX_LINES`.
pub fn pretty_lines(bytes: &[u8]) -> Vec<String> {
    let text = pretty(bytes);
    let mut lines: Vec<String> = text.lines().take(MAX_LINES).map(str::to_owned).collect();
    if text.lines().nth(MAX_LINES).is_some() {
        lines.push(format!("… (more than {MAX_LINES} lines)"));
    }
    lines
}

/// `_id` and the number of top-level fields, read without decoding the
/// whole document.
fn summary(bytes: &[u8]) -> String {
    let Ok(raw) = bson::RawDocument::from_bytes(bytes) else {
        return "undecodable".into();
    };
    let id = match raw.get("_id") {
        Ok(Some(v)) => v.to_raw_bson().try_into().map_or_else(
            |_: bson::raw::Error| "?".to_owned(),
            |b: bson::Bson| b.into_relaxed_extjson().to_string(),
        ),
        _ => "no _id".into(),
    };
    format!("_id {id} · {} fields", raw.iter().count())
}

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(c) = m.collection() else { return };
    let which = match &m.doc_view {
        DocView::All => "kept sample".to_owned(),
        DocView::WithField(p) => format!("holding {p}"),
        DocView::Largest => "largest first".to_owned(),
    };
    let title = format!(" Documents: {which} ({}) · Enter folds ", m.docs.len());
    f.render_widget(block(title, m.focus == Pane::Main, theme), area);
    let inside = inner(area);
    let h = usize::from(inside.height);
    let w = usize::from(inside.width);
    let mut lines: Vec<Line> = Vec::with_capacity(h);
    if m.docs.is_empty() {
        lines.push(Line::styled(
            "no kept document here (d on a field, L for the largest, Esc for all)",
            theme.dim(),
        ));
    }
    // Rows each listed document takes: its heading, and its lines if open.
    let rows = |pos: usize, d: usize| {
        1 + if m.doc_open.contains(&d) {
            let n = m.doc_lines.get(&d).map_or(0, Vec::len);
            if pos == m.doc_sel {
                n.saturating_sub(usize::from(m.detail_scroll))
            } else {
                n
            }
        } else {
            0
        }
    };
    // Keep two documents above the selection, but never leave the screen
    // part empty when the list could fill it (as after `G`).
    let mut last_start = m.docs.len();
    let mut filled = 0;
    while last_start > 0 && filled < h {
        last_start -= 1;
        filled += rows(last_start, m.docs[last_start]);
    }
    let start = m.doc_sel.saturating_sub(2).min(last_start);
    if let Some(&d) = m.docs.get(m.doc_sel) {
        let n = m.doc_lines.get(&d).map_or(0, Vec::len);
        m.detail_max
            .set(u16::try_from(n.saturating_sub(1)).unwrap_or(u16::MAX));
    }
    for (pos, &d) in m.docs.iter().enumerate().skip(start) {
        if lines.len() >= h {
            break;
        }
        let bytes = &c.kept[d];
        let open = m.doc_open.contains(&d);
        let head = format!(
            "{} #{d:<4} {:>9}  {}",
            if open { "▾" } else { "▸" },
            crate::fmt::bytes(bytes.len() as f64),
            summary(bytes)
        );
        let mut l = Line::from(Span::styled(fit(&head, w), theme.text()));
        if pos == m.doc_sel {
            l = l.style(theme.selected());
        }
        lines.push(l);
        if open {
            let text = m.doc_lines.get(&d).map_or(&[][..], Vec::as_slice);
            let (skip, hs) = if pos == m.doc_sel {
                let hs = clamp_hscroll(m, text.iter().map(String::as_str), w.saturating_sub(2));
                (usize::from(m.detail_scroll), hs)
            } else {
                (0, 0)
            };
            for line in text.iter().skip(skip) {
                if lines.len() >= h {
                    break;
                }
                lines.push(json_line(&fit(&format!("  {}", shift(line, hs)), w), theme));
            }
        }
    }
    f.render_widget(Paragraph::new(lines), inside);
}
