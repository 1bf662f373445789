//! The Findings tab: findings by severity, and the selected one's evidence,
//! explanation, before/after and migration script.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::widgets::block;
use crate::fmt::pad;
use crate::tui::detail::parts::{fit, sev_span};
use crate::tui::keymap::Action;
use crate::tui::layout::{findings_split, inner, offset};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

pub(crate) fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let all = m.listed_findings();
    let (list, detail) = findings_split(area);
    let mut filt = Vec::new();
    if let Some(s) = m.findings.severity {
        filt.push(s.label(m.lang).to_owned());
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
    // While collections are read, the list holds what their own rules
    // found; the title says what is still to come.
    let title = if m.arriving.is_some() && !m.findings.rows.is_empty() {
        let more = m.lang.pick(
            "so far · references, copies, fan-out, workload and advice once all is read ",
            "目前 · 引用、副本、扇出、负载和建议在读完后给出 ",
        );
        crate::fmt::fit_end(
            &format!("{title}{more}"),
            usize::from(list.width.saturating_sub(2)),
        )
    } else {
        title
    };
    f.render_widget(block(title, m.focus == Pane::Main, theme), list);
    let inside = inner(list);
    let h = usize::from(inside.height);
    let w = usize::from(inside.width);
    let off = offset(m.findings.sel, m.findings.rows.len(), h);
    // The rule column as wide as the widest rule listed.
    let rule_w = m
        .findings
        .rows
        .iter()
        .map(|&i| crate::fmt::display_width(all[i].rule))
        .max()
        .unwrap_or(0);
    let mut lines = Vec::new();
    for (r, &i) in m.findings.rows.iter().enumerate().skip(off).take(h) {
        let fd = all[i];
        let what = if m.is_summary() {
            // Across collections: say which one.
            match fd.path.as_deref() {
                Some(p) => format!("{} {}.{p}", pad(fd.rule, rule_w), fd.namespace),
                None => format!("{} {}", pad(fd.rule, rule_w), fd.namespace),
            }
        } else {
            format!(
                "{} {}",
                pad(fd.rule, rule_w),
                fd.path.as_deref().unwrap_or(fd.namespace.as_str())
            )
        };
        let mut l = Line::from(vec![
            sev_span(fd.severity, theme, m.lang),
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
                m.focus == Pane::Detail,
                theme,
            ),
            area,
        );
        return;
    };
    let title = if m.focus == Pane::Detail {
        // Focused: where its keys go.
        let k = |a: Action| m.keymap.first_label(a);
        let (e, b, s, y) = (
            k(Action::JumpEvidence),
            k(Action::JumpBeforeAfter),
            k(Action::JumpScript),
            k(Action::Copy),
        );
        m.lang.pick(
            format!(
                " {} · {e} evidence · {b} before/after · {s} script · {y} copies ",
                fd.rule
            ),
            format!(
                " {} · {e} 证据 · {b} 改前/改后 · {s} 脚本 · {y} 复制 ",
                fd.rule
            ),
        )
    } else {
        m.lang.pick(
            format!(" {} · y copies · w writes the script ", fd.rule),
            format!(" {} · y 复制 · w 写出脚本 ", fd.rule),
        )
    };
    f.render_widget(block(title, m.focus == Pane::Detail, theme), area);
    let Some((lines, inside)) = crate::tui::detail::findings::text(m, theme, area) else {
        return;
    };
    let offsets = crate::tui::layout::detail_offsets(&m.detail, &lines, inside);
    f.render_widget(Paragraph::new(lines).scroll(offsets), inside);
}
