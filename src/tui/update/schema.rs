//! The Schema tab: the selected collection's fields as a tree, folded and
//! filtered.

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::model::{Model, Pane};
use super::common::{common, moved, page};

/// A key for the Schema tab: moving, folding (Left/Right, Enter) and up
/// to the parent field.
pub fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        a if a.is_move() => {
            m.schema.sel = moved(m.schema.sel, m.schema.rows.len(), a, page(m));
        }
        Action::Left => collapse_or_up(m),
        Action::Right => {
            if let Some(f) = m.selected_field().cloned() {
                if m.schema.collapsed.remove(&f.path) {
                    rebuild(m);
                }
            }
        }
        Action::Toggle => {
            if let Some(f) = m.selected_field().cloned() {
                if !m.schema.collapsed.remove(&f.path) && has_children(m) {
                    m.schema.collapsed.insert(f.path);
                }
                rebuild(m);
            }
        }
        _ => return common(m, a),
    }
    Vec::new()
}

/// Left: folds the selected field, or goes up to its parent, or from a
/// top-level field to the navigator.
fn collapse_or_up(m: &mut Model) {
    let Some(f) = m.selected_field().cloned() else {
        return;
    };
    if has_children(m) && !m.schema.collapsed.contains(&f.path) {
        m.schema.collapsed.insert(f.path);
        rebuild(m);
    } else if let Some(c) = m.collection() {
        let n = f.segments.len();
        let parent = (0..m.schema.sel)
            .rev()
            .find(|&r| c.fields[m.schema.rows[r]].segments.len() < n);
        match parent {
            Some(p) => m.schema.sel = p,
            None => m.focus = Pane::Nav,
        }
    }
}

/// A new collection: the first field, nothing folded.
pub(crate) fn collection_changed(m: &mut Model) {
    m.schema.sel = 0;
    m.schema.collapsed.clear();
    rebuild(m);
}

/// Esc with a field filter: cleared. Whether there was one.
pub(crate) fn clear_filter(m: &mut Model) -> bool {
    if m.schema.filter.is_empty() {
        return false;
    }
    m.schema.filter.clear();
    rebuild(m);
    true
}

/// The visible fields: pre-order, minus collapsed subtrees, minus those the
/// filter rejects.
pub(crate) fn rebuild(m: &mut Model) {
    m.schema.rows.clear();
    let Some(c) = m.collection() else { return };
    let filter = m.schema.filter.to_lowercase();
    let mut rows = Vec::new();
    let mut hide_below: Option<usize> = None;
    for (i, f) in c.fields.iter().enumerate() {
        if let Some(d) = hide_below {
            if f.segments.len() > d {
                continue;
            }
            hide_below = None;
        }
        if !filter.is_empty() {
            if f.path.to_lowercase().contains(&filter) {
                rows.push(i);
            }
            continue;
        }
        rows.push(i);
        if m.schema.collapsed.contains(&f.path) {
            hide_below = Some(f.segments.len());
        }
    }
    m.schema.rows = rows;
    m.schema.sel = m.schema.sel.min(m.schema.rows.len().saturating_sub(1));
}

fn has_children(m: &Model) -> bool {
    let (Some(c), Some(&i)) = (m.collection(), m.schema.rows.get(m.schema.sel)) else {
        return false;
    };
    c.fields
        .get(i + 1)
        .is_some_and(|n| n.segments.len() > c.fields[i].segments.len())
}
