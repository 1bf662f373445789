//! The Documents tab: the kept sample (all, holding a field, largest
//! first) or a page of query results; Enter opens a document, `z` folds
//! nested objects and arrays by level.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::i18n::Lang;
use crate::profile::extract;

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::layout;
use super::super::layout::documents::Folds;
use super::super::model::{self, Chooser, DocLine, DocView, Level, Model, Tab};
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
pub(crate) fn with_field(m: &mut Model) {
    if let Some(f) = m.selected_field() {
        m.docs.view = DocView::WithField(f.path.clone());
        m.docs.sel = 0;
        rebuild(m);
        set_tab(m, Tab::Documents);
    }
}

/// `L`: the kept documents, largest first.
pub(crate) fn largest(m: &mut Model) {
    m.docs.view = DocView::Largest;
    m.docs.sel = 0;
    rebuild(m);
    set_tab(m, Tab::Documents);
}

/// `z`: objects and arrays folded below level 1, then 2, then none.
pub(crate) fn fold_level(m: &mut Model) {
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
pub(crate) fn show_all(m: &mut Model) -> bool {
    if m.docs.view == DocView::All {
        return false;
    }
    m.docs.view = DocView::All;
    rebuild(m);
    true
}

/// A new collection: its sample, nothing open.
pub(crate) fn collection_changed(m: &mut Model) {
    m.docs.sel = 0;
    m.docs.open.clear();
    m.docs.lines.clear();
    m.docs.toggled.clear();
    m.docs.cursor = None;
    m.docs.view = DocView::All;
    m.docs.search = None;
    m.docs.columns = model::Columns::default();
    rebuild(m);
}

/// The listed documents: the query's page, else the kept sample as the
/// view asks.
pub(crate) fn rebuild(m: &mut Model) {
    let Some(c) = m.collection() else {
        m.docs.list.clear();
        return;
    };
    if let Some(r) = model::results(m) {
        m.docs.list = (0..r.docs.len()).collect();
        m.docs.sel = m.docs.sel.min(m.docs.list.len().saturating_sub(1));
        research(m);
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
    research(m);
}

/// `c` on the Documents tab: from the list, the chooser of the
/// collection's top-level fields (those chosen before ticked); from the
/// table, back to the list.
pub(crate) fn columns(m: &mut Model) {
    if m.docs.columns.table {
        m.docs.columns.table = false;
        let msg = m
            .lang
            .pick("the documents as previews again", "文档重新以预览显示");
        status(m, Level::Info, msg);
        return;
    }
    let Some(c) = m.collection() else {
        return;
    };
    let fields: Vec<String> = c
        .fields
        .iter()
        .filter(|f| f.depth == 0)
        .map(|f| f.name.clone())
        .collect();
    m.docs.columns.chooser = Some(Chooser {
        fields,
        ticked: m.docs.columns.chosen.clone(),
        sel: 0,
    });
    set_tab(m, Tab::Documents);
}

/// A key while the chooser is open: the move keys move, Space ticks,
/// Enter (or `c` again) shows the table of the ticked fields, Esc closes
/// (Ctrl-C still quits).
pub(crate) fn chooser_key(m: &mut Model, k: KeyEvent, bound: Option<Action>) -> Vec<Effect> {
    let page = page(m);
    let Some(ch) = m.docs.columns.chooser.as_mut() else {
        return Vec::new();
    };
    match (k.code, bound) {
        (KeyCode::Esc, _) => m.docs.columns.chooser = None,
        (KeyCode::Char(' '), _) => {
            if let Some(f) = ch.fields.get(ch.sel).cloned() {
                if ch.ticked.contains(&f) {
                    ch.ticked.retain(|t| *t != f);
                } else {
                    ch.ticked.push(f);
                }
            }
        }
        (KeyCode::Enter, _) | (_, Some(Action::GotoCollection)) => {
            let ticked = std::mem::take(&mut ch.ticked);
            m.docs.columns.chooser = None;
            if ticked.is_empty() {
                m.docs.columns.table = false;
                m.docs.columns.chosen.clear();
                let msg = m.lang.pick(
                    "no field ticked: the documents as previews",
                    "未勾选字段：文档以预览显示",
                );
                status(m, Level::Info, msg);
            } else {
                let msg = match m.lang {
                    Lang::En => format!(
                        "a column per field: {} — c or Esc for the previews",
                        ticked.join(", ")
                    ),
                    Lang::Zh => {
                        format!("每个字段一列：{}——按 c 或 Esc 回到预览", ticked.join("、"))
                    }
                };
                m.docs.columns.chosen = ticked;
                m.docs.columns.table = true;
                status(m, Level::Info, msg);
            }
        }
        (_, Some(a)) if a.is_move() => {
            ch.sel = moved(ch.sel, ch.fields.len(), a, page);
        }
        _ => {}
    }
    Vec::new()
}

/// `y` on the Documents tab: the selected document, as relaxed Extended
/// JSON, to the clipboard.
pub(crate) fn copy(m: &mut Model) -> Vec<Effect> {
    let Some(&d) = m.docs.list.get(m.docs.sel) else {
        let msg = m.lang.pick("no document to copy", "没有可复制的文档");
        status(m, Level::Warning, msg);
        return Vec::new();
    };
    let Some(bytes) = m.doc_bytes(d) else {
        return Vec::new();
    };
    let Some(text) = layout::documents::json(bytes) else {
        let msg = m
            .lang
            .pick("this document cannot be decoded", "这个文档无法解码");
        status(m, Level::Warning, msg);
        return Vec::new();
    };
    let id = bson::RawDocument::from_bytes(bytes)
        .ok()
        .and_then(|r| r.get("_id").ok().flatten())
        .map(layout::documents::compact);
    let ns = m
        .collection()
        .map(|c| c.namespace.clone())
        .unwrap_or_default();
    let what = match (m.lang, id) {
        (Lang::En, Some(id)) => {
            format!("document _id {id} of {ns} as relaxed Extended JSON")
        }
        (Lang::En, None) => format!("a document of {ns} as relaxed Extended JSON"),
        (Lang::Zh, Some(id)) => format!("{ns} 中 _id 为 {id} 的文档（relaxed Extended JSON）"),
        (Lang::Zh, None) => format!("{ns} 中的一个文档（relaxed Extended JSON）"),
    };
    vec![Effect::Copy { text, what }]
}

/// Ctrl-F: the search line opens (holding the last search).
pub(crate) fn open_search(m: &mut Model) {
    if m.collection().is_none() {
        return;
    }
    set_tab(m, Tab::Documents);
    let mut s = m.docs.search.take().unwrap_or_default();
    s.editing = true;
    s.from = m.docs.sel;
    m.docs.search = Some(s);
    research(m);
}

/// A key while the search line is open: typing searches as it goes,
/// Enter keeps the search (n / N then go from match to match), Esc drops it.
pub(crate) fn search_key(m: &mut Model, k: KeyEvent) -> Vec<Effect> {
    let Some(s) = m.docs.search.as_mut() else {
        return Vec::new();
    };
    match k.code {
        KeyCode::Esc => {
            m.docs.search = None;
            m.status = None;
            return Vec::new();
        }
        KeyCode::Enter => {
            s.editing = false;
            if s.text.is_empty() {
                m.docs.search = None;
                return Vec::new();
            }
        }
        KeyCode::Backspace => {
            s.text.pop();
        }
        KeyCode::Char(c)
            if !k
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            s.text.push(c);
        }
        _ => return Vec::new(),
    }
    find(m);
    Vec::new()
}

/// The listed documents' text made again (the list changed), and the
/// search run on it.
pub(crate) fn research(m: &mut Model) {
    if m.docs.search.is_none() {
        return;
    }
    // A page on its way: searched when it comes.
    if model::results(m).is_some_and(|r| r.loading) {
        if let Some(s) = m.docs.search.as_mut() {
            s.texts.clear();
            s.hits.clear();
            s.at = None;
        }
        return;
    }
    let texts: Vec<String> = m
        .docs
        .list
        .iter()
        .map(|&d| {
            m.doc_bytes(d)
                .map(layout::documents::search_text)
                .unwrap_or_default()
        })
        .collect();
    if let Some(s) = m.docs.search.as_mut() {
        s.texts = texts;
    }
    find(m);
}

/// The matches of the search text, the first at or after the selection
/// selected.
fn find(m: &mut Model) {
    let Some(s) = m.docs.search.as_mut() else {
        return;
    };
    let needle = s.text.to_lowercase();
    s.hits = if needle.is_empty() {
        Vec::new()
    } else {
        (0..s.texts.len())
            .filter(|&i| s.texts[i].contains(&needle))
            .collect()
    };
    let from = if s.editing { s.from } else { m.docs.sel };
    s.at = s
        .hits
        .iter()
        .position(|&h| h >= from)
        .or(if s.hits.is_empty() { None } else { Some(0) });
    if let Some(&h) = s.at.and_then(|a| s.hits.get(a)) {
        m.docs.sel = h;
        m.docs.cursor = None;
    }
    say_match(m, false);
}

/// "match k of n" (or none) in the status line.
fn say_match(m: &mut Model, wrapped: bool) {
    let Some(s) = m.docs.search.as_ref() else {
        return;
    };
    if s.text.is_empty() {
        m.status = None;
        return;
    }
    let (next, prev) = (
        m.keymap.first_label(Action::NextPage),
        m.keymap.first_label(Action::PrevMatch),
    );
    let n = s.hits.len();
    let listed = s.texts.len();
    let (level, msg) = match (s.at, m.lang) {
        (None, Lang::En) => (
            Level::Warning,
            format!("“{}”: in none of the {listed} documents listed", s.text),
        ),
        (None, Lang::Zh) => (
            Level::Warning,
            format!("“{}”：所列 {listed} 个文档中都没有", s.text),
        ),
        (Some(k), Lang::En) => (
            Level::Info,
            format!(
                "“{}”: match {} of {n} in the {listed} documents listed{} — {next}/{prev} next/previous, Esc ends the search",
                s.text,
                k + 1,
                if wrapped { " (wrapped)" } else { "" }
            ),
        ),
        (Some(k), Lang::Zh) => (
            Level::Info,
            format!(
                "“{}”：所列 {listed} 个文档中第 {} 个匹配，共 {n} 个{}——{next}/{prev} 下一个/上一个，Esc 结束搜索",
                s.text,
                k + 1,
                if wrapped { "（已回绕）" } else { "" }
            ),
        ),
    };
    status(m, level, msg);
}

/// Whether a search with matches is on: `n` then goes to the next match.
pub(crate) fn searching(m: &Model) -> bool {
    m.docs.search.as_ref().is_some_and(|s| !s.hits.is_empty())
}

/// `n` / `N`: the next or previous match, round the list.
pub(crate) fn next_match(m: &mut Model, forward: bool) {
    let Some(s) = m.docs.search.as_mut() else {
        let key = m.keymap.first_label(Action::Search);
        let msg = m.lang.pick(
            format!("no search — {key} searches the listed documents"),
            format!("没有搜索——按 {key} 搜索所列文档"),
        );
        status(m, Level::Info, msg);
        return;
    };
    let n = s.hits.len();
    if n == 0 {
        say_match(m, false);
        return;
    }
    let (at, wrapped) = match (s.at, forward) {
        (None, _) => (0, false),
        (Some(a), true) if a + 1 < n => (a + 1, false),
        (Some(_), true) => (0, true),
        (Some(0), false) => (n - 1, true),
        (Some(a), false) => (a - 1, false),
    };
    s.at = Some(at);
    m.docs.sel = s.hits[at];
    m.docs.cursor = None;
    say_match(m, wrapped);
}

/// Esc on the Documents tab: the search ends, else the table goes back to
/// the previews. Whether there was one.
pub(crate) fn leave(m: &mut Model) -> bool {
    if m.docs.search.take().is_some() {
        let msg = m.lang.pick("search ended", "搜索已结束");
        status(m, Level::Info, msg);
        return true;
    }
    if m.docs.columns.table {
        m.docs.columns.table = false;
        let msg = m
            .lang
            .pick("the documents as previews again", "文档重新以预览显示");
        status(m, Level::Info, msg);
        return true;
    }
    false
}
