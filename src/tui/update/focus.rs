//! Which pane has the focus and how it moves: the navigator, the selected
//! tab's list, and the detail beside (or under) the list on the tabs that
//! have one (a finding, a field, an index, a query shape).
//!
//! - Tab: navigator → list → detail → navigator; Shift-Tab the other way.
//! - Enter: in the navigator, the selected collection or *All findings*
//!   into the list (a database folds); in the list, what the row opens (a
//!   finding of *All findings* on its collection's Findings tab, a
//!   finding's detail, a field's fold, a document …); in the detail,
//!   nothing to open: the status line says Esc goes back.
//! - Esc: from the detail back to the list; elsewhere what it always
//!   undid (the help, a run, a query, a filter — the selected collection
//!   kept).
//!
//! In the detail the move keys scroll it, and `e` / `b` / `m` jump to a
//! finding's evidence, before/after and migration script from wherever
//! the focus is (the detail takes it).

use ratatui::layout::Rect;

use super::super::detail::findings::{text_and_sections, Section};
use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::layout::{self, Shown};
use super::super::model::{Bound, Level, Model, Pane};
use super::super::theme::Theme;
use super::bounds;
use super::common::{page, status, HSTEP};

/// Whether the shown tab has a detail that can take the focus.
pub(crate) fn has_detail(m: &Model) -> bool {
    matches!(
        layout::shown(m),
        Shown::Findings | Shown::Schema | Shown::Indexes | Shown::Workload
    )
}

/// Tab (`forward`) or Shift-Tab: the next pane, the detail only where the
/// tab has one.
pub(crate) fn cycle(m: &mut Model, forward: bool) {
    let order: &[Pane] = if has_detail(m) {
        &[Pane::Nav, Pane::Main, Pane::Detail]
    } else {
        &[Pane::Nav, Pane::Main]
    };
    // A detail the tab no longer has counts as its list.
    let at = order.iter().position(|p| *p == m.focus).unwrap_or(1);
    let n = order.len();
    let next = if forward { at + 1 } else { at + n - 1 };
    m.focus = order[next % n];
}

/// A key while the detail has the focus: the move keys scroll it (a line,
/// a page, to either end, sideways); Enter says how to go back.
pub(crate) fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    bounds::measure(m);
    let (max, hmax) = (m.detail.max.get(), m.detail.hmax.get());
    let step = u16::try_from(page(m)).unwrap_or(u16::MAX);
    let d = &mut m.detail;
    match a {
        Action::Up => d.scroll = d.scroll.saturating_sub(1),
        Action::Down => d.scroll = d.scroll.saturating_add(1).min(max),
        Action::PageUp => d.scroll = d.scroll.saturating_sub(step),
        Action::PageDown => d.scroll = d.scroll.saturating_add(step).min(max),
        Action::Top => d.scroll = 0,
        Action::Bottom => d.scroll = max,
        Action::Left => d.hscroll = d.hscroll.saturating_sub(HSTEP),
        Action::Right => d.hscroll = d.hscroll.saturating_add(HSTEP).min(hmax),
        Action::Toggle => {
            let key = m.keymap.first_label(Action::Cancel);
            let msg = m.lang.pick(
                format!("nothing to open in the detail — {key} goes back to the list"),
                format!("详情中没有可打开的内容——按 {key} 回到列表"),
            );
            status(m, Level::Info, msg);
        }
        _ => {}
    }
    Vec::new()
}

/// Esc in the detail: the focus back to the list. Whether it was there.
pub(crate) fn leave_detail(m: &mut Model) -> bool {
    if m.focus != Pane::Detail {
        return false;
    }
    m.focus = Pane::Main;
    true
}

/// `e` / `b` / `m`: the selected finding's evidence, before/after or
/// script at the top of the detail (as near as the text's end allows),
/// the detail taking the focus.
pub(crate) fn jump(m: &mut Model, section: Section) {
    let lang = m.lang;
    if layout::shown(m) != Shown::Findings || m.selected_finding().is_none() {
        let msg = lang.pick(
            "select a finding first (Findings tab, or All findings)",
            "请先选择一个问题（问题标签页，或全部问题）",
        );
        status(m, Level::Warning, msg);
        return;
    }
    let Some(a) = layout::areas(Rect::new(0, 0, m.size.0, m.size.1)) else {
        return;
    };
    let area = layout::findings_split(a.main).1;
    // Colours do not change where lines fall: any theme measures alike.
    let Some((lines, inside, sections)) = text_and_sections(m, &Theme::default(), area) else {
        return;
    };
    let widest = lines
        .iter()
        .map(ratatui::text::Line::width)
        .max()
        .unwrap_or(0);
    let (down, right) = layout::limits(lines.len(), widest, inside);
    let Some(line) = sections.get(section) else {
        let msg = lang.pick(
            "this finding shows no before / after",
            "这个问题没有改前 / 改后",
        );
        status(m, Level::Info, msg);
        return;
    };
    m.detail.max = Bound(down);
    m.detail.hmax = Bound(right);
    m.detail.scroll = u16::try_from(line).unwrap_or(u16::MAX).min(down);
    m.detail.hscroll = 0;
    m.focus = Pane::Detail;
}
