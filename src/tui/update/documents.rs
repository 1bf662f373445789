//! The Documents tab: the kept sample (all, holding a field, largest
//! first) or a page of query results; Enter opens a document, `z` folds
//! nested objects and arrays by level.

use crate::i18n::Lang;
use crate::profile::extract;

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::layout;
use super::super::layout::documents::Folds;
use super::super::model::{self, DocLine, DocView, Level, Model, Tab};
use super::common::{common, moved, page, set_tab, status};
use super::query;

/// A key for the Documents tab: up and down move between documents, `J`
/// and `K` between the lines of the open one, Enter opens a document or
/// folds the object or array at the line.
pub fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        // Past the end of a page: the next one.
        Action::Down | Action::PageDown
            if m.docs.sel + 1 >= m.docs.list.len()
                && model::results(m).is_some_and(|r| r.has_next() && !r.loading) =>
        {
            query::turn_page(m, true)
        }
        a if a.is_move() => {
            m.docs.sel = moved(m.docs.sel, m.docs.list.len(), a, page(m));
            m.docs.cursor = None;
            Vec::new()
        }
        Action::DetailDown | Action::DetailUp => {
            move_cursor(m, a == Action::DetailDown);
            Vec::new()
        }
        Action::Toggle => {
            match m.docs.cursor {
                Some(line) => fold_at(m, line),
                None => toggle_open(m),
            }
            Vec::new()
        }
        _ => common(m, a),
    }
}

/// The lines of the selected document, if it is open.
fn open_lines(m: &Model) -> Option<(usize, &[DocLine])> {
    let d = *m.docs.list.get(m.docs.sel)?;
    m.docs.lines.get(&d).map(|l| (d, l.as_slice()))
}

/// `J` / `K`: the cursor a line down or up in the open document (up from
/// its first line: back on its heading).
fn move_cursor(m: &mut Model, down: bool) {
    let Some((_, lines)) = open_lines(m) else {
        return;
    };
    let last = lines.len().saturating_sub(1);
    m.docs.cursor = match (m.docs.cursor, down) {
        (None, true) => Some(0),
        (Some(c), true) => Some((c + 1).min(last)),
        (Some(0) | None, false) => None,
        (Some(c), false) => Some(c - 1),
    };
}

/// Enter on a line: the object or array it opens, closes or holds is
/// folded (or unfolded), and the cursor goes to the line that shows it.
fn fold_at(m: &mut Model, line: usize) {
    let Some((d, lines)) = open_lines(m) else {
        return;
    };
    let Some(node) = lines.get(line).map(|l| l.node.clone()) else {
        return;
    };
    let toggled = m.docs.toggled.entry(d).or_default();
    if !toggled.remove(&node) {
        toggled.insert(node.clone());
    }
    relines(m, d);
    if let Some((_, lines)) = open_lines(m) {
        m.docs.cursor = lines.iter().position(|l| l.node == node);
    }
}

/// The lines of open document `d` made again, folded as it is now.
fn relines(m: &mut Model, d: usize) {
    let none = std::collections::HashSet::new();
    let lines = {
        let folds = Folds {
            depth: m.docs.depth,
            toggled: m.docs.toggled.get(&d).unwrap_or(&none),
        };
        m.doc_bytes(d)
            .map(|b| layout::documents::doc_lines(b, folds))
    };
    if let Some(lines) = lines {
        m.docs.lines.insert(d, lines);
    }
}

/// Enter on a heading: the selected document opened (its lines made now,
/// so a frame never decodes it) or closed.
fn toggle_open(m: &mut Model) {
    let Some(&d) = m.docs.list.get(m.docs.sel) else {
        return;
    };
    if m.docs.open.remove(&d) {
        m.docs.lines.remove(&d);
        m.docs.toggled.remove(&d);
    } else {
        m.docs.open.insert(d);
        relines(m, d);
        let (down, up) = (
            m.keymap.first_label(Action::DetailDown),
            m.keymap.first_label(Action::DetailUp),
        );
        let msg = match m.lang {
            Lang::En => format!(
                "{down}/{up} move through its lines; Enter on a line folds its object or array"
            ),
            Lang::Zh => format!("{down}/{up} 在各行间移动；在某一行上按 Enter 折叠其对象或数组"),
        };
        status(m, Level::Info, msg);
    }
}

/// `d`: the kept documents holding the selected field.
pub fn with_field(m: &mut Model) {
    if let Some(f) = m.selected_field() {
        m.docs.view = DocView::WithField(f.path.clone());
        m.docs.sel = 0;
        rebuild(m);
        set_tab(m, Tab::Documents);
    }
}

/// `L`: the kept documents, largest first.
pub fn largest(m: &mut Model) {
    m.docs.view = DocView::Largest;
    m.docs.sel = 0;
    rebuild(m);
    set_tab(m, Tab::Documents);
}

/// `z`: objects and arrays folded below level 1, then 2, then none.
pub fn fold_level(m: &mut Model) {
    m.docs.depth = match m.docs.depth {
        None => Some(1),
        Some(1) => Some(2),
        Some(_) => None,
    };
    // A level for every object and array: the single folds are undone.
    m.docs.toggled.clear();
    let open: Vec<usize> = m.docs.open.iter().copied().collect();
    for d in open {
        relines(m, d);
    }
    m.docs.cursor = None;
    let msg = match m.docs.depth {
        Some(n) => match m.lang {
            Lang::En => format!("objects and arrays below level {n} folded — z for more"),
            Lang::Zh => format!("第 {n} 层以下的对象和数组已折叠——按 z 展开更多"),
        },
        None => m
            .lang
            .pick("every level unfolded", "所有层级已展开")
            .to_owned(),
    };
    status(m, Level::Info, msg);
    set_tab(m, Tab::Documents);
}

/// Esc on a narrowed list (`d`, `L`): every kept document again. Whether
/// it was narrowed.
pub fn show_all(m: &mut Model) -> bool {
    if m.docs.view == DocView::All {
        return false;
    }
    m.docs.view = DocView::All;
    rebuild(m);
    true
}

/// A new collection: its sample, nothing open.
pub fn collection_changed(m: &mut Model) {
    m.docs.sel = 0;
    m.docs.open.clear();
    m.docs.lines.clear();
    m.docs.toggled.clear();
    m.docs.cursor = None;
    m.docs.view = DocView::All;
    rebuild(m);
}

/// The listed documents: the query's page, else the kept sample as the
/// view asks.
pub fn rebuild(m: &mut Model) {
    let Some(c) = m.collection() else {
        m.docs.list.clear();
        return;
    };
    if let Some(r) = model::results(m) {
        m.docs.list = (0..r.docs.len()).collect();
        m.docs.sel = m.docs.sel.min(m.docs.list.len().saturating_sub(1));
        return;
    }
    let docs: Vec<usize> = match &m.docs.view {
        DocView::All => (0..c.kept.len()).collect(),
        DocView::Largest => {
            let mut d: Vec<usize> = (0..c.kept.len()).collect();
            d.sort_by(|&a, &b| c.kept[b].len().cmp(&c.kept[a].len()).then(a.cmp(&b)));
            d
        }
        DocView::WithField(path) => match c.field(path) {
            Some(f) => (0..c.kept.len())
                .filter(|&i| !extract::values(&c.kept[i], &f.segments).is_empty())
                .collect(),
            None => Vec::new(),
        },
    };
    m.docs.list = docs;
    m.docs.sel = m.docs.sel.min(m.docs.list.len().saturating_sub(1));
}
