//! The Relationships tab: the references of the selected collection's
//! database, its own first; Enter follows one to the other collection.

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::model::{Level, Model, Pane, Tab};
use super::common::{common, moved, page, status};
use super::nav;

/// A key for the Relationships tab.
pub(crate) fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        a if a.is_move() => {
            m.rels.sel = moved(m.rels.sel, m.rels.rows.len(), a, page(m));
            Vec::new()
        }
        Action::Toggle => {
            follow_relationship(m);
            Vec::new()
        }
        _ => common(m, a),
    }
}

/// Follows the selected relationship to the collection at its other end,
/// on the Schema tab at the path it names.
fn follow_relationship(m: &mut Model) {
    let Some(rel) = m.selected_relationship().cloned() else {
        return;
    };
    let here = m
        .collection()
        .map(|c| c.namespace.clone())
        .unwrap_or_default();
    // The end that is not this collection; a self-reference stays here.
    let target = if rel.to_ns != here || rel.from_ns == here {
        let path = rel
            .to
            .strip_prefix(&format!("{}.", rel.to_ns))
            .unwrap_or("")
            .to_owned();
        Some((rel.to_ns.clone(), path))
    } else {
        Some((rel.from_ns.clone(), rel.from_path.clone()))
    };
    let Some((ns, path)) = target else {
        status(
            m,
            Level::Warning,
            m.lang.pick(
                "the other end of this reference was not read",
                "这个引用的另一端没有读取",
            ),
        );
        return;
    };
    if !nav::select_namespace(m, &ns) {
        return;
    }
    m.tab = Tab::Schema;
    m.focus = Pane::Main;
    let path = path.replace("[]", "");
    if let Some(c) = m.collection() {
        if let Some(row) = m
            .schema
            .rows
            .iter()
            .position(|&fi| c.fields[fi].path.replace("[]", "") == path)
        {
            m.schema.sel = row;
        }
    }
    let msg = match m.lang {
        crate::i18n::Lang::En => format!("followed the reference to {ns}"),
        crate::i18n::Lang::Zh => format!("已沿引用转到 {ns}"),
    };
    status(m, Level::Info, &msg);
}
