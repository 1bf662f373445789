//! The navigator: the overview row, databases (folded or not) and their
//! collections, filtered and sorted; moving in it selects what every tab
//! shows.

use crate::rules::Severity;

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::model::{Level, Model, NavRow, NavSort, Pane};
use super::common::{moved, page, status};
use super::selection::collection_changed;

/// A key while the navigator has the focus.
pub fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        a if a.is_move() => nav_move(m, a),
        Action::Left => fold_db(m, Some(true)),
        Action::Right | Action::Toggle if m.selected_db().is_some() => {
            fold_db(
                m,
                if a == Action::Right {
                    Some(false)
                } else {
                    None
                },
            );
        }
        Action::Right | Action::Toggle => m.focus = Pane::Main,
        _ => {}
    }
    Vec::new()
}

/// `o`: the next order of databases and collections, the row kept.
pub(crate) fn sort(m: &mut Model) {
    m.nav.sort = m.nav.sort.next();
    let keep = m.nav.rows.get(m.nav.sel).cloned();
    rebuild(m);
    if let Some(i) = keep.and_then(|k| m.nav.rows.iter().position(|r| *r == k)) {
        m.nav.sel = i;
    }
    let msg = match m.lang {
        crate::i18n::Lang::En => format!("collections {}", m.nav.sort.label(m.lang)),
        crate::i18n::Lang::Zh => format!("集合{}排列", m.nav.sort.label(m.lang)),
    };
    status(m, Level::Info, &msg);
}

/// Esc with a collection filter: cleared, the selected row kept. Whether
/// there was one.
pub(crate) fn clear_filter(m: &mut Model) -> bool {
    if m.nav.filter.is_empty() {
        return false;
    }
    m.nav.filter.clear();
    filter_changed(m);
    true
}

/// The rows again after the collection filter changed. The selected
/// collection stays selected while it is listed (a cleared filter unfolds
/// its database rather than lose it); else, under a filter, the first
/// collection that matches is selected, so that the tabs show it at once.
/// What every tab shows follows when the collection is no longer the same.
pub(crate) fn filter_changed(m: &mut Model) {
    let before = m.collection().map(|c| c.namespace.clone());
    let row = m.nav.rows.get(m.nav.sel).cloned();
    if m.nav.filter.is_empty() {
        if let (Some(NavRow::Coll(i)), Some(r)) = (&row, &m.report) {
            if let Some(c) = r.collections.get(*i) {
                m.nav.folded.remove(&c.meta.db);
            }
        }
    } else {
        m.nav.explored = true;
        // A filter asks for collections: the overview is no longer the
        // row chosen, and a match that arrives later is selected.
        m.nav.overview_chosen = false;
    }
    rebuild(m);
    let kept = row
        .filter(|r| m.nav.filter.is_empty() || matches!(r, NavRow::Coll(_)))
        .and_then(|r| m.nav.rows.iter().position(|x| *x == r));
    let first_match = || m.nav.rows.iter().position(|r| matches!(r, NavRow::Coll(_)));
    m.nav.sel = kept.or_else(first_match).unwrap_or(0);
    if m.collection().map(|c| c.namespace.clone()) != before {
        collection_changed(m);
    }
}

/// The row the explorer opens on once the first report is in, unless the
/// user has already moved: *All findings* when there are findings, else
/// the first collection.
pub(crate) fn open_on_findings(m: &mut Model) {
    if m.nav.explored {
        return;
    }
    let any = m
        .report
        .as_ref()
        .is_some_and(|r| r.all_findings().next().is_some());
    if !any || m.nav.rows.first() != Some(&NavRow::Overview) {
        return;
    }
    m.nav.overview_chosen = true;
    if m.nav.sel != 0 {
        m.nav.sel = 0;
        collection_changed(m);
    }
}

/// The navigator after a collection arrived: the row the user is on stays
/// selected, and what they look at is left as it is.
pub(crate) fn add_arrival(m: &mut Model) {
    let row = m.nav.rows.get(m.nav.sel).cloned();
    let before = m.collection().map(|c| c.namespace.clone());
    rebuild(m);
    let namespace_of = |m: &Model, r: &NavRow| match r {
        NavRow::Coll(i) => m
            .report
            .as_ref()
            .map(|rep| rep.collections[*i].namespace.clone()),
        NavRow::Db(_) | NavRow::Overview => None,
    };
    let same = |m: &Model, candidate: &NavRow| match (&row, &before) {
        (_, Some(ns)) => namespace_of(m, candidate).as_deref() == Some(ns.as_str()),
        (Some(r), None) => r == candidate,
        (None, None) => false,
    };
    match (0..m.nav.rows.len()).find(|&i| same(m, &m.nav.rows[i])) {
        Some(i) => m.nav.sel = i,
        None => m.nav.sel = m.nav.sel.min(m.nav.rows.len().saturating_sub(1)),
    }
    if before.is_none() {
        // On the overview or a database the findings list grows with each
        // collection's own findings; the selected finding stays selected.
        super::findings::rebuild_keeping(m);
    }
    // The first findings to arrive open All findings, as a whole report
    // would, unless the user has moved.
    open_on_findings(m);
}

/// The rows from the report: databases in the order of their first
/// collection, sorted, folded and filtered.
pub(crate) fn rebuild(m: &mut Model) {
    m.nav.rows.clear();
    let Some(r) = &m.report else { return };
    let filter = m.nav.filter.to_lowercase();
    // Databases in the order of their first collection, then sorted.
    let mut dbs: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, c) in r.collections.iter().enumerate() {
        if !filter.is_empty() && !c.namespace.to_lowercase().contains(&filter) {
            continue;
        }
        match dbs.iter_mut().find(|(d, _)| *d == c.meta.db) {
            Some((_, v)) => v.push(i),
            None => dbs.push((&c.meta.db, vec![i])),
        }
    }
    let colls = &r.collections;
    let key = |i: usize| -> (std::cmp::Reverse<Option<Severity>>, std::cmp::Reverse<u64>) {
        let c = &colls[i];
        match m.nav.sort {
            NavSort::Name => (std::cmp::Reverse(None), std::cmp::Reverse(0)),
            NavSort::Severity => (
                std::cmp::Reverse(Model::worst(c)),
                std::cmp::Reverse(c.findings.len() as u64),
            ),
            NavSort::Size => (
                std::cmp::Reverse(None),
                std::cmp::Reverse(Model::bytes(c) as u64),
            ),
            NavSort::Documents => (
                std::cmp::Reverse(None),
                std::cmp::Reverse(c.documents.unwrap_or(0)),
            ),
        }
    };
    for (_, v) in &mut dbs {
        v.sort_by_key(|&i| key(i));
    }
    // A database sorts by its first collection once those are sorted.
    if m.nav.sort != NavSort::Name {
        dbs.sort_by_key(|(_, v)| {
            let k = v.iter().map(|&i| key(i)).min();
            let total = match m.nav.sort {
                NavSort::Size => v.iter().map(|&i| Model::bytes(&colls[i]) as u64).sum(),
                NavSort::Documents => v.iter().map(|&i| colls[i].documents.unwrap_or(0)).sum(),
                _ => 0,
            };
            (k.map(|k| k.0), std::cmp::Reverse(total))
        });
    }
    let rows: Vec<NavRow> = std::iter::once(NavRow::Overview)
        .chain(dbs.iter().flat_map(|(db, v)| {
            let folded = m.nav.folded.contains(*db) && filter.is_empty();
            std::iter::once(NavRow::Db((*db).to_owned()))
                .chain(v.iter().copied().filter(move |_| !folded).map(NavRow::Coll))
        }))
        .collect();
    m.nav.rows = rows;
    if m.nav.sel >= m.nav.rows.len()
        || m.nav.sel == 0 && m.nav.rows.len() > 1 && !m.nav.overview_chosen
    {
        m.nav.sel = m
            .nav
            .rows
            .iter()
            .position(|r| matches!(r, NavRow::Coll(_)))
            .unwrap_or(0);
    }
}

/// Folds (`Some(true)`), unfolds (`Some(false)`) or toggles the selected
/// database in the navigator; on a collection, folding goes to its database.
fn fold_db(m: &mut Model, fold: Option<bool>) {
    m.nav.explored = true;
    let db = match m.nav.rows.get(m.nav.sel) {
        Some(NavRow::Db(d)) => d.clone(),
        Some(NavRow::Coll(_)) if fold == Some(true) => {
            if let Some(i) = (0..m.nav.sel)
                .rev()
                .find(|&i| matches!(m.nav.rows[i], NavRow::Db(_)))
            {
                m.nav.sel = i;
                collection_changed(m);
            }
            return;
        }
        _ => return,
    };
    let now = fold.unwrap_or(!m.nav.folded.contains(&db));
    if now {
        m.nav.folded.insert(db.clone());
    } else {
        m.nav.folded.remove(&db);
    }
    rebuild(m);
    if let Some(i) = m.nav.rows.iter().position(|r| *r == NavRow::Db(db.clone())) {
        m.nav.sel = i;
    }
}

/// Selects the navigator row showing `ns` (unfolding its database).
pub(crate) fn select_namespace(m: &mut Model, ns: &str) -> bool {
    let Some(r) = &m.report else { return false };
    let Some(ci) = r.collections.iter().position(|c| c.namespace == ns) else {
        return false;
    };
    let db = r.collections[ci].meta.db.clone();
    if m.nav.folded.remove(&db) || !m.nav.filter.is_empty() {
        m.nav.filter.clear();
        rebuild(m);
    }
    match m.nav.rows.iter().position(|row| *row == NavRow::Coll(ci)) {
        Some(i) => {
            m.nav.sel = i;
            m.nav.overview_chosen = false;
            m.nav.explored = true;
            collection_changed(m);
            true
        }
        None => false,
    }
}

fn nav_move(m: &mut Model, a: Action) {
    if m.nav.rows.is_empty() {
        return;
    }
    let next = moved(m.nav.sel, m.nav.rows.len(), a, page(m));
    if next != m.nav.sel {
        m.nav.sel = next;
        m.nav.overview_chosen = next == 0;
        m.nav.explored = true;
        collection_changed(m);
    }
}
