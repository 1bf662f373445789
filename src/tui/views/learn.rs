//! The Learn tab: the lessons on the left, the selected one on the right,
//! measured on the bundled sample data and word-wrapped.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::{areas, block, inner, offset};
use crate::fmt::display_width;
use crate::lesson::LESSONS;
use crate::tui::keymap::Action;
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

/// The list beside (wide) or above (narrow) the lesson.
pub fn split(main: Rect) -> (Rect, Rect) {
    if main.width >= 110 {
        let list_w = (main.width / 3).clamp(30, 48);
        let [a, b] =
            Layout::horizontal([Constraint::Length(list_w), Constraint::Min(0)]).areas(main);
        (a, b)
    } else {
        let list_h = (LESSONS.len() as u16 + 2).min(main.height / 3).max(3);
        let [a, b] = Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(main);
        (a, b)
    }
}

/// The inside of the lesson text's block on a screen of `size`.
pub fn text_area(size: (u16, u16)) -> Option<Rect> {
    let a = areas(Rect::new(0, 0, size.0, size.1))?;
    Some(inner(split(a.main).1))
}

/// Undoes the 78-column wrapping of `lesson::render` in its prose so the
/// tab can wrap it to its own width: a long line is joined with the next
/// when that one continues the paragraph (not blank, not indented, not an
/// underline). Tables and headings stay as they are.
pub fn reflow(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev_long = false;
    for line in text.lines() {
        let continues = prev_long
            && !line.is_empty()
            && !line.starts_with(char::is_whitespace)
            && !line.starts_with('=');
        if continues {
            let wide = |c: Option<char>| c.is_some_and(|c| display_width(&c.to_string()) == 2);
            if !(wide(out.chars().last()) || wide(line.chars().next())) {
                out.push(' ');
            }
        } else if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
        prev_long = !line.starts_with(char::is_whitespace) && display_width(line) >= 60;
    }
    out
}

/// How far the text can scroll: its lines once wrapped to `width` columns
/// (an estimate: word wrapping can add a few).
pub fn max_scroll(text: &str, width: u16) -> u16 {
    let w = usize::from(width.max(1));
    let lines: usize = text
        .lines()
        .map(|l| display_width(l).div_ceil(w).max(1))
        .sum();
    u16::try_from(lines).unwrap_or(u16::MAX)
}

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let lang = m.learn.lang;
    let (list, detail) = split(area);
    f.render_widget(
        block(
            lang.pick(" Lessons ", " 课程 "),
            m.focus == Pane::Main,
            theme,
        ),
        list,
    );
    let inside = inner(list);
    let h = usize::from(inside.height);
    let name_w = LESSONS.iter().map(|l| l.name.len()).max().unwrap_or(0);
    let off = offset(m.learn.sel, LESSONS.len(), h);
    let lines: Vec<Line> = LESSONS
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
        .map(|(i, l)| {
            // Cut with a `…` where the list is narrow: the whole title heads
            // the lesson below.
            let text = super::fit(
                &format!(" {:<name_w$}  {}", l.name, l.title(lang)),
                usize::from(inside.width),
            );
            if i == m.learn.sel {
                Line::styled(text, theme.selected())
            } else {
                Line::styled(text, theme.text())
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inside);

    let name = LESSONS.get(m.learn.sel).map_or("", |l| l.name);
    let measuring = lang.pick("measuring…", "测量中…");
    let busy = if m.learn.req.is_some() {
        format!(" · {measuring}")
    } else {
        String::new()
    };
    let title = format!(
        " {name}{busy} · {} {} · {} {} ",
        m.keymap.first_label(Action::LessonLanguage),
        lang.pick("中文", "English"),
        m.keymap.first_label(Action::DetailDown),
        lang.pick("scrolls", "滚动"),
    );
    f.render_widget(block(title, false, theme), detail);
    let dinside = inner(detail);
    let body = match &m.learn.text {
        Some(Ok(text)) => Paragraph::new(text.as_str())
            .style(theme.text())
            .wrap(Wrap { trim: false })
            .scroll((m.learn.scroll.min(max_scroll(text, dinside.width)), 0)),
        Some(Err(e)) => Paragraph::new(vec![
            Line::styled(
                format!(
                    "{} {e}",
                    lang.pick("cannot measure this lesson:", "无法测量这一课：")
                ),
                theme.fg("status.error"),
            ),
            Line::styled(
                format!(
                    "{} {}",
                    m.keymap.first_label(Action::Toggle),
                    lang.pick("tries again", "重试")
                ),
                theme.dim(),
            ),
        ])
        .wrap(Wrap { trim: false }),
        None => Paragraph::new(Line::styled(
            if m.learn.req.is_some() {
                measuring.to_owned()
            } else {
                format!(
                    "{} {}",
                    m.keymap.first_label(Action::Toggle),
                    lang.pick("measures the lesson", "测量这一课")
                )
            },
            theme.dim(),
        )),
    };
    f.render_widget(body, dinside);
}
