//! Everything derived from the selected collection, recomputed when the
//! selection changes.

use super::super::model::{Model, Tab};
use super::{documents, findings, schema};

/// Everything derived from the selected collection, recomputed: each tab
/// back at its start. The overview and a database show findings, whatever
/// the tab was; back on a collection, the tab it was comes back.
pub(crate) fn collection_changed(m: &mut Model) {
    if m.is_summary() {
        if !matches!(m.tab, Tab::Learn | Tab::Workload) {
            m.nav.tab_before_summary.get_or_insert(m.tab);
            m.tab = Tab::Findings;
        }
    } else if let Some(t) = m.nav.tab_before_summary.take() {
        m.tab = t;
    }
    m.detail.reset();
    m.indexes.sel = 0;
    m.workload.sel = 0;
    schema::collection_changed(m);
    findings::collection_changed(m);
    documents::collection_changed(m);
    rebuild_relationships(m);
}

/// The relationships listed for the selected collection.
pub(crate) fn rebuild_relationships(m: &mut Model) {
    let rows = match (m.report.as_ref(), m.collection()) {
        (Some(r), Some(c)) => {
            let db = format!("{}.", c.meta.db);
            let mut rows: Vec<usize> = (0..r.relationships.len())
                .filter(|&i| {
                    let rel = &r.relationships[i];
                    rel.from_ns.starts_with(&db) || rel.to_ns.starts_with(&db)
                })
                .collect();
            // The selected collection's own references first.
            rows.sort_by_key(|&i| {
                let rel = &r.relationships[i];
                !(rel.from_ns == c.namespace || rel.to_ns == c.namespace)
            });
            rows
        }
        _ => Vec::new(),
    };
    m.rels.rows = rows;
    m.rels.sel = 0;
}
