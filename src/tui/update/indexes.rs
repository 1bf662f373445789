//! The Indexes tab: the selected collection's indexes, one in detail.

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::model::Model;
use super::common::{common, moved, page};

/// A key for the Indexes tab.
pub(crate) fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        a if a.is_move() => {
            let n = m.collection().map_or(0, |c| c.indexes.len());
            let s = moved(m.indexes.sel, n, a, page(m));
            if s != m.indexes.sel {
                m.detail.reset();
            }
            m.indexes.sel = s;
            Vec::new()
        }
        _ => common(m, a),
    }
}
