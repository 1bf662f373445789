//! What the tabs share in handling a key: moving a selection, paging,
//! the detail's scrolling, the status line and switching tabs.

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::model::{Level, Model, Pane, Status, Tab};
use super::bounds;

/// Display columns one sideways scroll moves the detail.
pub const HSTEP: u16 = 8;

/// What every tab does with a key it has no use of its own for: Left
/// goes to the navigator, Right to the tab, the detail keys scroll the
/// detail (no further than its text, measured from the layout).
pub(crate) fn common(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        Action::Left => m.focus = Pane::Nav,
        Action::Right => m.focus = Pane::Main,
        Action::DetailUp => m.detail.scroll = m.detail.scroll.saturating_sub(3),
        Action::DetailDown => {
            bounds::measure(m);
            m.detail.scroll = m.detail.scroll.saturating_add(3).min(m.detail.max.get());
        }
        Action::DetailLeft => m.detail.hscroll = m.detail.hscroll.saturating_sub(HSTEP),
        Action::DetailRight => {
            bounds::measure(m);
            m.detail.hscroll = m
                .detail
                .hscroll
                .saturating_add(HSTEP)
                .min(m.detail.hmax.get());
        }
        _ => {}
    }
    Vec::new()
}

pub fn status(m: &mut Model, level: Level, text: impl Into<String>) {
    m.status = Some(Status {
        text: text.into(),
        level,
        place: m.place(),
    });
}

/// Drops a hint or warning said about another tab or collection than the
/// one on screen now: it would describe what is no longer shown.
pub(crate) fn forget_stale_status(m: &mut Model) {
    // Compared in place: this runs on every message, progress included.
    let here = m.collection().map(|c| c.namespace.as_str());
    let stale = m.status.as_ref().is_some_and(|s| {
        s.level != Level::Error && (s.place.tab != m.tab || s.place.ns.as_deref() != here)
    });
    if stale {
        m.status = None;
    }
}

/// Height of the list in the current tab, for paging.
pub(crate) fn page(m: &Model) -> usize {
    (usize::from(m.size.1) / 2).max(1)
}

pub(crate) fn moved(sel: usize, len: usize, a: Action, page: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let last = len - 1;
    match a {
        Action::Up => sel.saturating_sub(1),
        Action::Down => (sel + 1).min(last),
        Action::PageUp => sel.saturating_sub(page),
        Action::PageDown => (sel + page).min(last),
        Action::Top => 0,
        Action::Bottom => last,
        _ => sel,
    }
}

pub(crate) fn set_tab(m: &mut Model, t: Tab) {
    if m.is_summary() && !matches!(t, Tab::Findings | Tab::Learn | Tab::Workload) {
        // The overview and databases are findings; the tab opens with the
        // next collection.
        m.nav.tab_before_summary = Some(t);
        let msg = format!(
            "{} {}",
            m.lang
                .pick("select a collection to see its", "选择一个集合以查看其"),
            t.title(m.lang)
        );
        status(m, Level::Info, &msg);
        return;
    }
    if m.is_summary() && t == Tab::Workload {
        // Chosen here, the Workload tab stays on the next collection.
        m.nav.tab_before_summary = None;
    }
    m.tab = t;
    m.focus = Pane::Main;
    m.detail.scroll = 0;
    m.detail.hscroll = 0;
}
