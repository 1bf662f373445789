//! The Learn tab: the lessons on the left, the selected one on the right,
//! measured on the bundled sample data and word-wrapped.

use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::widgets::block;
use crate::lesson::LESSONS;
use crate::tui::keymap::Action;
use crate::tui::layout::learn::{max_scroll, wrapped};
use crate::tui::layout::{inner, learn_split, offset};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

pub(crate) fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let lang = m.learn.lang;
    let (list, detail) = learn_split(area);
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
    let name_w = LESSONS
        .iter()
        .map(|l| crate::fmt::display_width(l.name))
        .max()
        .unwrap_or(0);
    let off = offset(m.learn.sel, LESSONS.len(), h);
    let lines: Vec<Line> = LESSONS
        .iter()
        .enumerate()
        .skip(off)
        .take(h)
        .map(|(i, l)| {
            // Cut with a `…` where the list is narrow: the whole title heads
            // the lesson below.
            let text = crate::fmt::fit_end(
                &format!(" {}  {}", crate::fmt::pad(l.name, name_w), l.title(lang)),
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
    let mut busy = String::new();
    if m.learn.req.is_some() {
        busy = format!(" · {measuring}");
    }
    if m.learn.check_req.is_some() {
        busy.push_str(lang.pick(" · checking the exercises…", " · 正在检查练习…"));
    }
    let title = format!(
        " {name}{busy} · {} {} · {} {} · {} {} ",
        m.keymap.first_label(Action::LessonLanguage),
        lang.pick("中文", "English"),
        m.keymap.first_label(Action::DetailDown),
        lang.pick("scrolls", "滚动"),
        m.keymap.first_label(Action::CheckExercises),
        lang.pick("exercises", "练习"),
    );
    f.render_widget(block(title, false, theme), detail);
    let dinside = inner(detail);
    let body = match &m.learn.text {
        Some(Ok(text)) => {
            let text = m.learn.with_check(text);
            let lines: Vec<Line> = wrapped(&text, dinside.width)
                .into_iter()
                .map(Line::from)
                .collect();
            Paragraph::new(lines)
                .style(theme.text())
                .scroll((m.learn.scroll.min(max_scroll(&text, dinside.width)), 0))
        }
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
