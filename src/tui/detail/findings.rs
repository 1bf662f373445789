//! The Findings tab's detail: the selected finding's evidence,
//! explanation, before/after and migration script.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::highlight::{js_line, json_line};
use super::parts::{fit, wrap};
use crate::i18n::Lang;
use crate::tui::layout::inner;
use crate::tui::model::Model;
use crate::tui::theme::Theme;

/// A part of a finding's detail that a key jumps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    Evidence,
    BeforeAfter,
    Script,
}

/// The first line of each part of the detail, `None` for a part the
/// finding does not have (before/after).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sections {
    pub evidence: usize,
    pub before_after: Option<usize>,
    pub script: usize,
}

impl Sections {
    pub(crate) fn get(self, s: Section) -> Option<usize> {
        match s {
            Section::Evidence => Some(self.evidence),
            Section::BeforeAfter => self.before_after,
            Section::Script => Some(self.script),
        }
    }
}

/// The selected finding's detail: its lines, and the part of `area` they
/// are drawn in.
pub(crate) fn text<'a>(m: &'a Model, theme: &Theme, area: Rect) -> Option<(Vec<Line<'a>>, Rect)> {
    text_and_sections(m, theme, area).map(|(lines, inside, _)| (lines, inside))
}

/// [`text`], with where each of its parts starts.
pub fn text_and_sections<'a>(
    m: &'a Model,
    theme: &Theme,
    area: Rect,
) -> Option<(Vec<Line<'a>>, Rect, Sections)> {
    let fd = m.selected_finding()?;
    let mut sections = Sections::default();
    let inside = inner(area);
    let w = usize::from(inside.width);
    let mut lines: Vec<Line> = Vec::new();
    lines.extend(super::parts::message_lines(fd, w, theme, m.lang));
    lines.push(Line::default());
    sections.evidence = lines.len();
    lines.push(Line::styled(m.lang.pick("Evidence", "证据"), theme.title()));
    for (k, v) in &fd.evidence {
        let key = format!("  {}: ", crate::i18n::evidence::key(k, m.lang));
        let kw = crate::fmt::display_width(&key);
        let text = crate::i18n::evidence::shown_entry(k, v, m.lang);
        for (i, part) in wrap(&text, w.saturating_sub(kw).max(8))
            .into_iter()
            .enumerate()
        {
            let head = if i == 0 { key.clone() } else { " ".repeat(kw) };
            lines.push(Line::from(vec![
                Span::styled(head, theme.dim()),
                Span::styled(part, theme.text()),
            ]));
        }
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        m.lang.pick("Why it matters", "为什么重要"),
        theme.title(),
    ));
    for l in wrap(&fd.explanation, w.saturating_sub(2)) {
        lines.push(Line::styled(format!("  {l}"), theme.text()));
    }
    if !fd.source.is_empty() {
        let text = format!("{}: {}", m.lang.pick("source", "出处"), fd.source);
        for l in wrap(&text, w.saturating_sub(2)) {
            lines.push(Line::styled(format!("  {l}"), theme.dim()));
        }
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        format!(
            "{}: {}",
            m.lang.pick("Suggestion", "建议"),
            match crate::i18n::evidence::value("pattern", fd.suggestion.pattern, m.lang) {
                Some(w) => format!("{w}（{}）", fd.suggestion.pattern),
                None => fd.suggestion.pattern.to_owned(),
            }
        ),
        theme.title(),
    ));
    for l in wrap(&fd.suggestion.summary, w.saturating_sub(2)) {
        lines.push(Line::styled(format!("  {l}"), theme.text()));
    }
    for (k, v) in &fd.suggestion.effect {
        let text = format!(
            "  {}: {}",
            crate::i18n::evidence::key(k, m.lang),
            crate::i18n::evidence::shown(k, v, m.lang)
        );
        for l in wrap(&text, w.saturating_sub(2)) {
            lines.push(Line::styled(l, theme.dim()));
        }
    }
    if fd.suggestion.before.is_some() || fd.suggestion.after.is_some() {
        lines.push(Line::default());
        sections.before_after = Some(lines.len());
        side_by_side(
            fd.suggestion.before.as_ref(),
            fd.suggestion.after.as_ref(),
            w,
            (theme, m.lang),
            &mut lines,
        );
    }
    lines.push(Line::default());
    sections.script = lines.len();
    lines.push(Line::styled(
        m.lang
            .pick("Migration script (mongosh)", "迁移脚本（mongosh）"),
        theme.title(),
    ));
    for l in fd.suggestion.migration.lines() {
        lines.push(js_line(l, theme));
    }
    Some((lines, inside, sections))
}

/// Before and after as two columns of pretty JSON when they fit, else
/// one above the other.
pub(crate) fn side_by_side(
    before: Option<&serde_json::Value>,
    after: Option<&serde_json::Value>,
    w: usize,
    (theme, lang): (&Theme, Lang),
    out: &mut Vec<Line<'static>>,
) {
    let col = (w.saturating_sub(3)) / 2;
    let before_label = lang.pick("Before", "改前");
    let pad = col.saturating_sub(crate::fmt::display_width(before_label));
    let pretty = |v: Option<&serde_json::Value>| -> Vec<String> {
        v.map(|v| {
            serde_json::to_string_pretty(v)
                .unwrap_or_default()
                .lines()
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
    };
    let (b, a) = (pretty(before), pretty(after));
    // Side by side only when every line fits its column; else one above
    // the other, whole (a long line scrolls sideways, never cut for good).
    let fits = |lines: &[String]| lines.iter().all(|l| crate::fmt::display_width(l) <= col);
    if !(fits(&b) && fits(&a)) {
        for (label, lines) in [(before_label, &b), (lang.pick("After", "改后"), &a)] {
            if lines.is_empty() {
                continue;
            }
            if label != before_label {
                out.push(Line::default());
            }
            out.push(Line::styled(label, theme.title()));
            out.extend(lines.iter().map(|l| json_line(l, theme)));
        }
        return;
    }
    out.push(Line::from(vec![
        Span::styled(format!("{before_label}{}", " ".repeat(pad)), theme.title()),
        Span::styled(" │ ", theme.dim()),
        Span::styled(lang.pick("After", "改后"), theme.title()),
    ]));
    for i in 0..b.len().max(a.len()) {
        let l = fit(b.get(i).map_or("", String::as_str), col);
        let r = fit(a.get(i).map_or("", String::as_str), col);
        let pad = col.saturating_sub(crate::fmt::display_width(&l));
        let mut spans = json_line(&l, theme).spans;
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(" │ ", theme.dim()));
        spans.extend(json_line(&r, theme).spans);
        out.push(Line::from(spans));
    }
}
