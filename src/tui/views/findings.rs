//! The Findings tab: findings by severity, and the selected one's evidence,
//! explanation, before/after and migration script.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::highlight::{js_line, json_line};
use super::widgets::{block, fit, sev_span, wrap};
use crate::i18n::Lang;
use crate::tui::layout::{findings_split, inner, offset};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let all = m.listed_findings();
    let (list, detail) = findings_split(area);
    let mut filt = Vec::new();
    if let Some(s) = m.findings.severity {
        filt.push(s.name().to_owned());
    }
    if let Some(r) = m.findings.rule {
        filt.push(r.to_owned());
    }
    let title = if filt.is_empty() {
        format!(
            " {} ({}) ",
            m.lang.pick("Findings", "问题"),
            m.findings.rows.len()
        )
    } else {
        format!(
            " {} [{}] ({} / {}) ",
            m.lang.pick("Findings", "问题"),
            filt.join(", "),
            m.findings.rows.len(),
            all.len()
        )
    };
    f.render_widget(block(title, m.focus == Pane::Main, theme), list);
    let inside = inner(list);
    let h = usize::from(inside.height);
    let w = usize::from(inside.width);
    let off = offset(m.findings.sel, m.findings.rows.len(), h);
    let mut lines = Vec::new();
    for (r, &i) in m.findings.rows.iter().enumerate().skip(off).take(h) {
        let fd = all[i];
        let what = if m.is_summary() {
            // Across collections: say which one.
            match fd.path.as_deref() {
                Some(p) => format!("{:<26} {}.{p}", fd.rule, fd.namespace),
                None => format!("{:<26} {}", fd.rule, fd.namespace),
            }
        } else {
            format!(
                "{:<26} {}",
                fd.rule,
                fd.path.as_deref().unwrap_or(fd.namespace.as_str())
            )
        };
        let mut l = Line::from(vec![
            sev_span(fd.severity, theme),
            Span::raw(" "),
            Span::styled(fit(&what, w.saturating_sub(9)), theme.text()),
        ]);
        if r == m.findings.sel {
            l = l.style(theme.selected());
        }
        lines.push(l);
    }
    if m.findings.rows.is_empty() {
        lines.push(Line::styled(
            if m.arriving.is_some() {
                m.lang.pick(
                    "findings come once the collections are read (Esc: judge those read now)",
                    "读取完所有集合后给出发现（Esc：立即评判已读取的集合）",
                )
            } else if all.is_empty() {
                m.lang.pick(
                    "no findings — nothing here will hurt",
                    "没有问题——这里没有会带来麻烦的地方",
                )
            } else {
                m.lang.pick(
                    "no finding matches the filter (s / f cycle it)",
                    "没有符合筛选条件的问题（s / f 切换筛选）",
                )
            },
            theme.dim(),
        ));
    }
    f.render_widget(Paragraph::new(lines), inside);
    render_detail(m, theme, f, detail);
}

fn render_detail(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(fd) = m.selected_finding() else {
        f.render_widget(
            block(
                format!(" {} ", m.lang.pick("Finding", "问题")),
                false,
                theme,
            ),
            area,
        );
        return;
    };
    let inside = inner(area);
    let w = usize::from(inside.width);
    f.render_widget(
        block(
            m.lang.pick(
                format!(" {} · y copies · w writes the script ", fd.rule),
                format!(" {} · y 复制 · w 写出脚本 ", fd.rule),
            ),
            false,
            theme,
        ),
        area,
    );
    let mut lines: Vec<Line> = Vec::new();
    lines.extend(super::widgets::message_lines(fd, w, theme));
    lines.push(Line::default());
    lines.push(Line::styled(m.lang.pick("Evidence", "证据"), theme.title()));
    for (k, v) in &fd.evidence {
        let key = format!("  {}: ", crate::i18n::evidence::key(k, m.lang));
        let kw = crate::fmt::display_width(&key);
        let text = match v
            .as_str()
            .and_then(|t| crate::i18n::evidence::value(k, t, m.lang))
        {
            Some(word) => word.to_owned(),
            None => crate::fmt::evidence_named(k, v, &|parent, x| {
                crate::i18n::evidence::nested(parent, x, m.lang)
            }),
        };
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
            fd.suggestion.pattern
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
            crate::fmt::evidence_named(k, v, &|parent, x| crate::i18n::evidence::nested(
                parent, x, m.lang
            ))
        );
        for l in wrap(&text, w.saturating_sub(2)) {
            lines.push(Line::styled(l, theme.dim()));
        }
    }
    if fd.suggestion.before.is_some() || fd.suggestion.after.is_some() {
        lines.push(Line::default());
        side_by_side(
            fd.suggestion.before.as_ref(),
            fd.suggestion.after.as_ref(),
            w,
            (theme, m.lang),
            &mut lines,
        );
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        m.lang
            .pick("Migration script (mongosh)", "迁移脚本（mongosh）"),
        theme.title(),
    ));
    for l in fd.suggestion.migration.lines() {
        lines.push(js_line(l, theme));
    }
    let offsets = super::widgets::detail_offsets(m, &lines, inside);
    f.render_widget(Paragraph::new(lines).scroll(offsets), inside);
}

/// Before and after as two columns of pretty JSON when they fit, else
/// one above the other.
fn side_by_side(
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
