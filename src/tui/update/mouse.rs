//! The mouse: the wheel scrolls what is under it, a click selects a
//! navigator row, a list row or a tab, and closes the help.

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use crate::lesson::LESSONS;

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::layout;
use super::super::model::{Model, Pane, Tab};
use super::learn;
use super::selection::collection_changed;

fn inside(r: Rect, col: u16, row: u16) -> bool {
    r.contains(Position { x: col, y: row })
}

/// The detail beside (or under) the shown tab's list, where it has one.
fn detail_area(m: &Model, main: Rect) -> Option<Rect> {
    match layout::shown(m) {
        layout::Shown::Findings => Some(layout::findings_split(main).1),
        layout::Shown::Schema | layout::Shown::Indexes | layout::Shown::Workload => {
            Some(layout::split(main).1)
        }
        _ => None,
    }
}

/// What a mouse event comes to: its effects, or a key's action, or a tab
/// to switch to, which the dispatcher carries out as for a key.
pub enum Outcome {
    Done(Vec<Effect>),
    Act(Action),
    Enter(Tab),
}

/// A mouse event.
pub(crate) fn event(m: &mut Model, e: MouseEvent) -> Outcome {
    let Some(a) = layout::areas(Rect::new(0, 0, m.size.0, m.size.1)) else {
        return Outcome::Done(Vec::new());
    };
    let (col, row) = (e.column, e.row);
    if matches!(
        e.kind,
        MouseEventKind::Down(_) | MouseEventKind::ScrollUp | MouseEventKind::ScrollDown
    ) {
        m.nav.explored = true;
    }
    let pane = if inside(a.nav, col, row) {
        Pane::Nav
    } else if detail_area(m, a.main).is_some_and(|r| inside(r, col, row)) {
        Pane::Detail
    } else {
        Pane::Main
    };
    match e.kind {
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
            if m.help.open {
                return Outcome::Done(Vec::new());
            }
            m.focus = pane;
            let up = e.kind == MouseEventKind::ScrollUp;
            let over_lesson = m.tab == Tab::Learn
                && pane == Pane::Main
                && layout::learn_text_area(m.size).is_some_and(|r| inside(r, col, row));
            let act = match (over_lesson, up) {
                (true, true) => Action::DetailUp,
                (true, false) => Action::DetailDown,
                (false, true) => Action::Up,
                (false, false) => Action::Down,
            };
            Outcome::Act(act)
        }
        MouseEventKind::Down(MouseButton::Left) => {
            if m.help.open {
                m.help.open = false;
                return Outcome::Done(Vec::new());
            }
            if inside(a.tabs, col, row) {
                if let Some(t) = layout::tab_at(m, a.tabs, col) {
                    return Outcome::Enter(t);
                }
                return Outcome::Done(Vec::new());
            }
            m.focus = pane;
            if pane == Pane::Nav {
                let inner = layout::inner(a.nav);
                if inside(inner, col, row) {
                    let off =
                        layout::offset(m.nav.sel, m.nav.rows.len(), usize::from(inner.height));
                    let i = off + usize::from(row - inner.y);
                    if i < m.nav.rows.len() && i != m.nav.sel {
                        m.nav.sel = i;
                        m.nav.overview_chosen = i == 0;
                        collection_changed(m);
                    }
                }
            } else if let Some((list, header)) = layout::list_area(m, a.main) {
                if inside(list, col, row) && row >= list.y + header {
                    let h = usize::from(list.height.saturating_sub(header));
                    let (sel, len) = match m.tab {
                        Tab::Schema => (m.schema.sel, m.schema.rows.len()),
                        Tab::Findings => (m.findings.sel, m.findings.rows.len()),
                        Tab::Relationships => (m.rels.sel, m.rels.rows.len()),
                        Tab::Indexes => {
                            (m.indexes.sel, m.collection().map_or(0, |c| c.indexes.len()))
                        }
                        Tab::Workload => (m.workload.sel, m.shapes().len()),
                        Tab::Learn => (m.learn.sel, LESSONS.len()),
                        Tab::Documents => return Outcome::Done(Vec::new()),
                    };
                    let i = layout::offset(sel, len, h) + usize::from(row - list.y - header);
                    if i < len {
                        match m.tab {
                            Tab::Learn => return Outcome::Done(learn::select_lesson(m, i)),
                            Tab::Schema => m.schema.sel = i,
                            Tab::Findings => {
                                m.findings.sel = i;
                                m.detail.scroll = 0;
                                m.detail.hscroll = 0;
                            }
                            Tab::Relationships => m.rels.sel = i,
                            Tab::Indexes => m.indexes.sel = i,
                            Tab::Workload => {
                                m.workload.sel = i;
                                m.detail.scroll = 0;
                                m.detail.hscroll = 0;
                            }
                            Tab::Documents => {}
                        }
                    }
                }
            }
            Outcome::Done(Vec::new())
        }
        _ => Outcome::Done(Vec::new()),
    }
}
