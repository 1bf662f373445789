//! `update(model, msg) -> effects`: the only place the model changes. Work
//! that waits (sampling, the clipboard, files) leaves as `Effect`s and comes
//! back as `Msg`s tagged with the request id; stale ones are dropped.

use std::path::PathBuf;

use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};

use crate::fmt::group;
use crate::i18n::Lang;
use crate::lesson::{self, LESSONS};
use crate::profile::extract;
use crate::report::{CollectionReport, InputError, Report};
use crate::rules::Severity;

use super::effects::Effect;

/// Display columns one sideways scroll moves the detail.
const HSTEP: u16 = 8;
use super::keymap::{Action, Key};
use super::model::{
    DocView, Input, InputFor, Job, Level, Model, NavRow, NavSort, Pane, Status, Tab,
};
use super::querybar::{self, Reply};
use super::views;

/// Smallest and largest sample sizes `+`/`-` reach.
pub const MIN_SAMPLE: u64 = 10;
pub const MAX_SAMPLE: u64 = 10_000_000;

#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Progress of request `req`.
    Progress {
        req: u64,
        stage: crate::audit::Stage,
        namespace: String,
        position: (usize, usize),
        documents: u64,
        expected: Option<u64>,
        rate: f64,
    },
    /// Request `req` has read one more collection, the `position.0`th of
    /// `position.1` (profiled, not yet judged).
    Arrived {
        req: u64,
        position: (usize, usize),
        collection: Box<CollectionReport>,
    },
    /// Request `req` finished.
    Loaded {
        req: u64,
        result: Result<Box<Report>, String>,
    },
    /// Request `req` measured the selected lesson's data sets.
    Lesson {
        req: u64,
        result: Result<Vec<(String, Report)>, String>,
    },
    /// Query request `req` answered.
    Query {
        req: u64,
        reply: Reply,
    },
    /// A side effect reports back (a file written, a copy made).
    Done(Result<String, String>),
    /// Leave cleanly, as on a quit key.
    Terminate,
    /// Signal number `n` arrived: leave cleanly (the process then exits
    /// with 128 + `n`).
    Signal(i32),
    /// The terminal can no longer be read: leave.
    InputFailed(String),
}

fn status(m: &mut Model, level: Level, text: impl Into<String>) {
    m.status = Some(Status {
        text: text.into(),
        level,
    });
}

/// Starts a sampling run with the current sample size.
pub fn start_sampling(m: &mut Model) -> Vec<Effect> {
    let mut fx = Vec::new();
    if let Some(j) = m.job.take() {
        fx.push(Effect::Cancel { req: j.req });
    }
    let req = m.next_req;
    m.next_req += 1;
    m.job = Some(Job {
        req,
        stage: crate::audit::Stage::Listing,
        stopping: false,
        namespace: String::new(),
        position: (0, 0),
        documents: 0,
        expected: None,
        rate: 0.0,
    });
    m.status = None;
    fx.push(Effect::Sample {
        req,
        size: m.sample,
    });
    fx
}

/// Measures the selected lesson in the Learn tab's language, cancelling
/// the measuring in flight.
pub fn start_measuring(m: &mut Model) -> Vec<Effect> {
    let mut fx = Vec::new();
    if let Some(req) = m.learn.req.take() {
        fx.push(Effect::Cancel { req });
    }
    let req = m.next_req;
    m.next_req += 1;
    m.learn.req = Some(req);
    fx.push(Effect::Measure {
        req,
        lesson: m.learn.sel,
        lang: m.learn.lang,
    });
    fx
}

/// Selects lesson `sel` and measures it, unless it is already shown or
/// being measured.
fn select_lesson(m: &mut Model, sel: usize) -> Vec<Effect> {
    let sel = sel.min(LESSONS.len().saturating_sub(1));
    if sel == m.learn.sel && (matches!(m.learn.text, Some(Ok(_))) || m.learn.req.is_some()) {
        return Vec::new();
    }
    m.learn.sel = sel;
    m.learn.scroll = 0;
    m.learn.text = None;
    m.learn.reports = None;
    start_measuring(m)
}

fn render_lesson(m: &mut Model) {
    if let (Some(l), Some(reports)) = (LESSONS.get(m.learn.sel), &m.learn.reports) {
        let text = lesson::render(l, reports, m.learn.lang);
        m.learn.text = Some(Ok(views::learn::reflow(&text)));
    }
}

fn learn_scroll(m: &mut Model, down: bool, by: u16) {
    let max = match (&m.learn.text, views::learn::text_area(m.size)) {
        // Half a screen of slack: word wrapping can make more lines than
        // the estimate.
        (Some(Ok(t)), Some(area)) => {
            views::learn::max_scroll(t, area.width).saturating_sub(area.height / 2)
        }
        _ => 0,
    };
    m.learn.scroll = if down {
        m.learn.scroll.saturating_add(by).min(max)
    } else {
        m.learn.scroll.saturating_sub(by)
    };
}

/// Up and down pick a lesson; the page keys scroll it.
fn learn_move(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        Action::PageUp | Action::PageDown => {
            let h = views::learn::text_area(m.size).map_or(10, |r| r.height.max(1));
            learn_scroll(m, a == Action::PageDown, h);
            Vec::new()
        }
        _ => {
            let sel = moved(m.learn.sel, LESSONS.len(), a, page(m));
            select_lesson(m, sel)
        }
    }
}

pub fn update(m: &mut Model, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(k) => {
            if k.kind == KeyEventKind::Release {
                return Vec::new();
            }
            let bound = m.keymap.action(Key::from_event(k));
            // A control key bound to quitting (ctrl-c) quits from the
            // prompt too, instead of typing a letter.
            let ctrl_quit =
                bound == Some(Action::Quit) && k.modifiers.contains(KeyModifiers::CONTROL);
            if m.query.bar.is_some() && !ctrl_quit {
                return querybar::key(m, k);
            }
            if m.input.is_some() && !ctrl_quit {
                edit_input(m, k);
                return Vec::new();
            }
            match bound {
                Some(a) => action(m, a),
                None => Vec::new(),
            }
        }
        Msg::Mouse(e) => mouse(m, e),
        Msg::Query { req, reply } => {
            querybar::reply(m, req, reply);
            Vec::new()
        }
        Msg::Resize(w, h) => {
            m.size = (w, h);
            Vec::new()
        }
        Msg::Progress {
            req,
            stage,
            namespace,
            position,
            documents,
            expected,
            rate,
        } => {
            if let Some(j) = m.job.as_mut().filter(|j| j.req == req) {
                j.stage = stage;
                j.namespace = namespace;
                j.position = position;
                j.documents = documents;
                j.expected = expected;
                j.rate = rate;
            }
            Vec::new()
        }
        Msg::Arrived {
            req,
            position,
            collection,
        } => {
            if m.job.as_ref().is_none_or(|j| j.req != req) {
                return Vec::new();
            }
            if let Some(j) = m.job.as_mut() {
                j.position = position;
            }
            // The first run fills the navigator as collections arrive; a
            // re-sample keeps the last report on screen until its own ends.
            if m.report.is_some() && m.arriving != Some(req) {
                return Vec::new();
            }
            let mut r = m.report.take().unwrap_or_else(|| {
                Report::empty(
                    m.target.clone(),
                    crate::report::Sampling {
                        mode: "sample",
                        size: Some(m.sample),
                    },
                    crate::report::RulesUsed {
                        profile: String::new(),
                        lang: m.lang,
                        disabled: Vec::new(),
                    },
                    0,
                )
            });
            r.collections.push(*collection);
            m.report = Some(r);
            m.arriving = Some(req);
            add_arrival(m);
            Vec::new()
        }
        Msg::Loaded { req, result } => {
            if m.job.as_ref().is_none_or(|j| j.req != req) {
                return Vec::new();
            }
            let stopped = m.job.take().is_some_and(|j| j.stopping);
            match result {
                Ok(r) => {
                    let n = r.collections.len();
                    let lang = r.rules.lang;
                    let unreadable = unreadable_status(&r.errors, n, lang);
                    // The run ended early: say why, from the report's note.
                    let cut_short = r
                        .notes
                        .iter()
                        .find(|n| {
                            n.starts_with("stopped after") || n.starts_with("the server went away")
                        })
                        .cloned();
                    set_report(m, *r);
                    match (unreadable, cut_short) {
                        // What was read is shown; what was not is said.
                        (Some(text), _) => status(m, Level::Error, text),
                        (None, Some(why)) => status(
                            m,
                            if stopped {
                                Level::Warning
                            } else {
                                Level::Error
                            },
                            format!("{why} — r samples again"),
                        ),
                        (None, None) => status(
                            m,
                            Level::Info,
                            m.lang.pick(
                                format!(
                                    "sampled {n} collections, up to {} documents each",
                                    m.sample
                                ),
                                format!("已采样 {n} 个集合，每个最多 {} 个文档", m.sample),
                            ),
                        ),
                    }
                }
                Err(e) => status(m, Level::Error, format!("{e} — r retries")),
            }
            Vec::new()
        }
        Msg::Lesson { req, result } => {
            if m.learn.req != Some(req) {
                return Vec::new();
            }
            m.learn.req = None;
            match result {
                Ok(reports) => {
                    m.learn.reports = Some(reports);
                    render_lesson(m);
                }
                Err(e) => {
                    m.learn.reports = None;
                    m.learn.text = Some(Err(e));
                }
            }
            Vec::new()
        }
        Msg::Done(r) => {
            match r {
                Ok(s) => status(m, Level::Info, s),
                Err(e) => status(m, Level::Error, e),
            }
            Vec::new()
        }
        Msg::Terminate | Msg::Signal(_) | Msg::InputFailed(_) => {
            m.quit = true;
            vec![Effect::Quit]
        }
    }
}

/// The status line for parts of the target that could not be read:
/// how many, the first of them, and that the rest was read.
fn unreadable_status(errors: &[InputError], read: usize, lang: Lang) -> Option<String> {
    let first = errors.first()?;
    let n = group(errors.len() as u64);
    let more = group(errors.len() as u64 - 1);
    let read_n = group(read as u64);
    Some(match lang {
        Lang::En => format!(
            "{n} {} could not be read ({}{}); {read_n} {} read",
            if errors.len() == 1 { "part" } else { "parts" },
            first.message,
            if errors.len() > 1 {
                format!("; and {more} more: docshape audit lists them all")
            } else {
                String::new()
            },
            if read == 1 {
                "collection"
            } else {
                "collections"
            },
        ),
        Lang::Zh => format!(
            "{n} 处无法读取（{}{}）；已读取 {read_n} 个集合",
            first.message,
            if errors.len() > 1 {
                format!("；另有 {more} 处，docshape audit 会全部列出")
            } else {
                String::new()
            }
        ),
    })
}

/// Installs a new report, keeping the selected collection when it is still
/// there.
/// The navigator after a collection arrived: the row the user is on stays
/// selected, and what they look at is left as it is.
fn add_arrival(m: &mut Model) {
    let row = m.nav.get(m.nav_sel).cloned();
    let before = m.collection().map(|c| c.namespace.clone());
    rebuild_nav(m);
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
    match (0..m.nav.len()).find(|&i| same(m, &m.nav[i])) {
        Some(i) => m.nav_sel = i,
        None => m.nav_sel = m.nav_sel.min(m.nav.len().saturating_sub(1)),
    }
    if before.is_none() {
        // On the overview or a database the findings list grows; the first
        // collection to arrive under the cursor is shown as on a move.
        collection_changed(m);
    }
}

pub fn set_report(m: &mut Model, r: Report) {
    let keep = m.collection().map(|c| c.namespace.clone());
    m.arriving = None;
    m.report = Some(r);
    rebuild_nav(m);
    if let Some(ns) = keep {
        if let Some(i) = m.nav.iter().position(|row| match row {
            NavRow::Coll(i) => m
                .report
                .as_ref()
                .is_some_and(|r| r.collections[*i].namespace == ns),
            NavRow::Db(_) | NavRow::Overview => false,
        }) {
            m.nav_sel = i;
        }
    }
    collection_changed(m);
}

fn rebuild_nav(m: &mut Model) {
    m.nav.clear();
    let Some(r) = &m.report else { return };
    let filter = m.coll_filter.to_lowercase();
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
        match m.nav_sort {
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
    if m.nav_sort != NavSort::Name {
        dbs.sort_by_key(|(_, v)| {
            let k = v.iter().map(|&i| key(i)).min();
            let total = match m.nav_sort {
                NavSort::Size => v.iter().map(|&i| Model::bytes(&colls[i]) as u64).sum(),
                NavSort::Documents => v.iter().map(|&i| colls[i].documents.unwrap_or(0)).sum(),
                _ => 0,
            };
            (k.map(|k| k.0), std::cmp::Reverse(total))
        });
    }
    let rows: Vec<NavRow> = std::iter::once(NavRow::Overview)
        .chain(dbs.iter().flat_map(|(db, v)| {
            let folded = m.folded_dbs.contains(*db) && filter.is_empty();
            std::iter::once(NavRow::Db((*db).to_owned()))
                .chain(v.iter().copied().filter(move |_| !folded).map(NavRow::Coll))
        }))
        .collect();
    m.nav = rows;
    if m.nav_sel >= m.nav.len() || m.nav_sel == 0 && m.nav.len() > 1 && !m.overview_chosen {
        m.nav_sel = m
            .nav
            .iter()
            .position(|r| matches!(r, NavRow::Coll(_)))
            .unwrap_or(0);
    }
}

/// Folds (`Some(true)`), unfolds (`Some(false)`) or toggles the selected
/// database in the navigator; on a collection, folding goes to its database.
fn fold_db(m: &mut Model, fold: Option<bool>) {
    let db = match m.nav.get(m.nav_sel) {
        Some(NavRow::Db(d)) => d.clone(),
        Some(NavRow::Coll(_)) if fold == Some(true) => {
            if let Some(i) = (0..m.nav_sel)
                .rev()
                .find(|&i| matches!(m.nav[i], NavRow::Db(_)))
            {
                m.nav_sel = i;
                collection_changed(m);
            }
            return;
        }
        _ => return,
    };
    let now = fold.unwrap_or(!m.folded_dbs.contains(&db));
    if now {
        m.folded_dbs.insert(db.clone());
    } else {
        m.folded_dbs.remove(&db);
    }
    rebuild_nav(m);
    if let Some(i) = m.nav.iter().position(|r| *r == NavRow::Db(db.clone())) {
        m.nav_sel = i;
    }
}

/// Selects the navigator row showing `ns` (unfolding its database).
fn select_namespace(m: &mut Model, ns: &str) -> bool {
    let Some(r) = &m.report else { return false };
    let Some(ci) = r.collections.iter().position(|c| c.namespace == ns) else {
        return false;
    };
    let db = r.collections[ci].meta.db.clone();
    if m.folded_dbs.remove(&db) || !m.coll_filter.is_empty() {
        m.coll_filter.clear();
        rebuild_nav(m);
    }
    match m.nav.iter().position(|row| *row == NavRow::Coll(ci)) {
        Some(i) => {
            m.nav_sel = i;
            m.overview_chosen = false;
            collection_changed(m);
            true
        }
        None => false,
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
            "the other end of this reference was not read",
        );
        return;
    };
    if !select_namespace(m, &ns) {
        return;
    }
    m.tab = Tab::Schema;
    m.focus = Pane::Main;
    let path = path.replace("[]", "");
    if let Some(c) = m.collection() {
        if let Some(row) = m
            .rows
            .iter()
            .position(|&fi| c.fields[fi].path.replace("[]", "") == path)
        {
            m.field_sel = row;
        }
    }
    let msg = format!("followed the reference to {ns}");
    status(m, Level::Info, &msg);
}

/// Opens, on the Findings tab, the worst finding the selected query shape
/// led to (the filters cleared so that it shows).
fn open_shape_finding(m: &mut Model) {
    let Some((rank, _)) = m.selected_shape() else {
        return;
    };
    let all = m.findings();
    let target = m
        .shape_findings(rank)
        .first()
        .and_then(|f| all.iter().position(|x| std::ptr::eq(*x, *f)));
    let Some(i) = target else {
        let msg = m.lang.pick(
            "no finding names this query shape",
            "没有问题提到这个查询形状",
        );
        status(m, Level::Info, msg);
        return;
    };
    m.severity_filter = None;
    m.rule_filter = None;
    rebuild_findings(m);
    m.finding_sel = m.finding_rows.iter().position(|&r| r == i).unwrap_or(0);
    set_tab(m, Tab::Findings);
}

/// Everything derived from the selected collection, recomputed.
fn collection_changed(m: &mut Model) {
    // The overview and a database show findings, whatever the tab was;
    // back on a collection, the tab it was comes back.
    if m.is_summary() {
        if !matches!(m.tab, Tab::Learn | Tab::Workload) {
            m.tab_before_summary.get_or_insert(m.tab);
            m.tab = Tab::Findings;
        }
    } else if let Some(t) = m.tab_before_summary.take() {
        m.tab = t;
    }
    m.field_sel = 0;
    m.finding_sel = 0;
    m.doc_sel = 0;
    m.rel_sel = 0;
    m.index_sel = 0;
    m.shape_sel = 0;
    m.detail_scroll = 0;
    m.detail_hscroll = 0;
    m.collapsed.clear();
    m.doc_open.clear();
    m.doc_lines.clear();
    m.doc_view = DocView::All;
    m.rule_filter = None;
    rebuild_rows(m);
    rebuild_findings(m);
    rebuild_docs(m);
    rebuild_rels(m);
}

/// The visible fields: pre-order, minus collapsed subtrees, minus those the
/// filter rejects.
pub fn rebuild_rows(m: &mut Model) {
    m.rows.clear();
    let Some(c) = m.collection() else { return };
    let filter = m.field_filter.to_lowercase();
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
        if m.collapsed.contains(&f.path) {
            hide_below = Some(f.segments.len());
        }
    }
    m.rows = rows;
    m.field_sel = m.field_sel.min(m.rows.len().saturating_sub(1));
}

fn rebuild_findings(m: &mut Model) {
    let all = m.findings();
    let mut rows: Vec<usize> = (0..all.len())
        .filter(|&i| m.severity_filter.is_none_or(|s| all[i].severity == s))
        .filter(|&i| m.rule_filter.is_none_or(|r| all[i].rule == r))
        .collect();
    rows.sort_by(|&a, &b| all[b].severity.cmp(&all[a].severity).then(a.cmp(&b)));
    m.finding_rows = rows;
    m.finding_sel = m.finding_sel.min(m.finding_rows.len().saturating_sub(1));
}

fn rebuild_docs(m: &mut Model) {
    let Some(c) = m.collection() else {
        m.docs.clear();
        return;
    };
    if let Some(r) = querybar::results(m) {
        m.docs = (0..r.docs.len()).collect();
        m.doc_sel = m.doc_sel.min(m.docs.len().saturating_sub(1));
        return;
    }
    let docs: Vec<usize> = match &m.doc_view {
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
    m.docs = docs;
    m.doc_sel = m.doc_sel.min(m.docs.len().saturating_sub(1));
}

fn rebuild_rels(m: &mut Model) {
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
    m.rel_rows = rows;
    m.rel_sel = 0;
    m.index_sel = 0;
}

fn edit_input(m: &mut Model, k: KeyEvent) {
    let Some(input) = m.input.as_mut() else {
        return;
    };
    match k.code {
        KeyCode::Esc => {
            let target = input.target;
            m.input = None;
            match target {
                InputFor::Fields => m.field_filter.clear(),
                InputFor::Collections => m.coll_filter.clear(),
            }
            apply_filter(m, target);
        }
        KeyCode::Enter => {
            m.input = None;
        }
        KeyCode::Backspace => {
            input.text.pop();
            let (t, text) = (input.target, input.text.clone());
            set_filter(m, t, text);
        }
        // Control and Alt chords are commands, not text.
        KeyCode::Char(c)
            if !k
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            input.text.push(c);
            let (t, text) = (input.target, input.text.clone());
            set_filter(m, t, text);
        }
        _ => {}
    }
}

fn set_filter(m: &mut Model, target: InputFor, text: String) {
    match target {
        InputFor::Fields => m.field_filter = text,
        InputFor::Collections => m.coll_filter = text,
    }
    apply_filter(m, target);
}

fn apply_filter(m: &mut Model, target: InputFor) {
    match target {
        InputFor::Fields => {
            m.field_sel = 0;
            rebuild_rows(m);
        }
        InputFor::Collections => {
            let before = m.collection().map(|c| c.namespace.clone());
            rebuild_nav(m);
            if m.collection().map(|c| c.namespace.clone()) != before {
                collection_changed(m);
            }
        }
    }
}

/// Height of the list in the current tab, for paging.
fn page(m: &Model) -> usize {
    (usize::from(m.size.1) / 2).max(1)
}

fn moved(sel: usize, len: usize, a: Action, page: usize) -> usize {
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

fn nav_move(m: &mut Model, a: Action) {
    if m.nav.is_empty() {
        return;
    }
    let next = moved(m.nav_sel, m.nav.len(), a, page(m));
    if next != m.nav_sel {
        m.nav_sel = next;
        m.overview_chosen = next == 0;
        collection_changed(m);
    }
}

fn main_move(m: &mut Model, a: Action) {
    let p = page(m);
    match m.tab {
        Tab::Schema => m.field_sel = moved(m.field_sel, m.rows.len(), a, p),
        Tab::Findings => {
            let s = moved(m.finding_sel, m.finding_rows.len(), a, p);
            if s != m.finding_sel {
                m.detail_scroll = 0;
                m.detail_hscroll = 0;
            }
            m.finding_sel = s;
        }
        Tab::Documents => m.doc_sel = moved(m.doc_sel, m.docs.len(), a, p),
        Tab::Relationships => m.rel_sel = moved(m.rel_sel, m.rel_rows.len(), a, p),
        Tab::Indexes => {
            let n = m.collection().map_or(0, |c| c.indexes.len());
            let s = moved(m.index_sel, n, a, p);
            if s != m.index_sel {
                m.detail_scroll = 0;
                m.detail_hscroll = 0;
            }
            m.index_sel = s;
        }
        Tab::Workload => {
            let s = moved(m.shape_sel, m.shapes().len(), a, p);
            if s != m.shape_sel {
                m.detail_scroll = 0;
                m.detail_hscroll = 0;
            }
            m.shape_sel = s;
        }
        Tab::Learn => {}
    }
}

fn has_children(m: &Model) -> bool {
    let (Some(c), Some(&i)) = (m.collection(), m.rows.get(m.field_sel)) else {
        return false;
    };
    c.fields
        .get(i + 1)
        .is_some_and(|n| n.segments.len() > c.fields[i].segments.len())
}

fn set_tab(m: &mut Model, t: Tab) {
    if m.is_summary() && !matches!(t, Tab::Findings | Tab::Learn | Tab::Workload) {
        // The overview and databases are findings; the tab opens with the
        // next collection.
        m.tab_before_summary = Some(t);
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
        m.tab_before_summary = None;
    }
    m.tab = t;
    m.focus = Pane::Main;
    m.detail_scroll = 0;
    m.detail_hscroll = 0;
}

/// Switches tab; the Learn tab measures its lesson when nothing is shown.
fn enter_tab(m: &mut Model, t: Tab) -> Vec<Effect> {
    set_tab(m, t);
    if t == Tab::Learn && m.learn.req.is_none() && !matches!(m.learn.text, Some(Ok(_))) {
        return start_measuring(m);
    }
    Vec::new()
}

fn script_name(ns: &str, rule: &str) -> String {
    let safe: String = ns
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '.' || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.{rule}.js")
}

pub fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    if m.help && !matches!(a, Action::Help | Action::Cancel | Action::Quit) {
        let page = m.help_visible();
        let max = m.help_max_scroll();
        m.help_scroll = match a {
            Action::Up => m.help_scroll.saturating_sub(1),
            Action::Down => m.help_scroll + 1,
            Action::PageUp => m.help_scroll.saturating_sub(page),
            Action::PageDown => m.help_scroll + page,
            Action::Top => 0,
            Action::Bottom => max,
            _ => m.help_scroll,
        }
        .min(max);
        return Vec::new();
    }
    match a {
        Action::Quit => {
            m.quit = true;
            let mut fx: Vec<Effect> = m
                .job
                .take()
                .map(|j| Effect::Cancel { req: j.req })
                .into_iter()
                .collect();
            fx.push(Effect::Quit);
            return fx;
        }
        Action::Help => {
            m.help = !m.help;
            m.help_scroll = 0;
        }
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom => {
            if m.focus == Pane::Nav {
                nav_move(m, a);
            } else if m.tab == Tab::Documents
                && matches!(a, Action::Down | Action::PageDown)
                && m.doc_sel + 1 >= m.docs.len()
                && querybar::results(m).is_some_and(|r| r.has_next() && !r.loading)
            {
                // Past the end of a page: the next one.
                return querybar::turn_page(m, true);
            } else if m.tab == Tab::Learn {
                return learn_move(m, a);
            } else {
                main_move(m, a);
            }
        }
        Action::Left => match (m.focus, m.tab) {
            (Pane::Main, Tab::Schema) => {
                if let Some(f) = m.selected_field().cloned() {
                    if has_children(m) && !m.collapsed.contains(&f.path) {
                        m.collapsed.insert(f.path);
                        rebuild_rows(m);
                    } else if let Some(c) = m.collection() {
                        // Up to the parent.
                        let n = f.segments.len();
                        let parent = (0..m.field_sel)
                            .rev()
                            .find(|&r| c.fields[m.rows[r]].segments.len() < n);
                        if let Some(p) = parent {
                            m.field_sel = p;
                        } else {
                            m.focus = Pane::Nav;
                        }
                    }
                }
            }
            (Pane::Nav, _) => fold_db(m, Some(true)),
            _ => m.focus = Pane::Nav,
        },
        Action::Right => match (m.focus, m.tab) {
            (Pane::Main, Tab::Schema) => {
                if let Some(f) = m.selected_field().cloned() {
                    if m.collapsed.remove(&f.path) {
                        rebuild_rows(m);
                    }
                }
            }
            (Pane::Nav, _) if m.selected_db().is_some() => fold_db(m, Some(false)),
            _ => m.focus = Pane::Main,
        },
        Action::NextPane | Action::PrevPane => {
            m.focus = match m.focus {
                Pane::Nav => Pane::Main,
                Pane::Main => Pane::Nav,
            };
        }
        Action::NextTab => {
            return enter_tab(m, Tab::ALL[(m.tab.index() + 1) % Tab::ALL.len()]);
        }
        Action::PrevTab => {
            return enter_tab(
                m,
                Tab::ALL[(m.tab.index() + Tab::ALL.len() - 1) % Tab::ALL.len()],
            );
        }
        Action::TabSchema => set_tab(m, Tab::Schema),
        Action::TabFindings => set_tab(m, Tab::Findings),
        Action::TabDocuments => set_tab(m, Tab::Documents),
        Action::TabRelationships => set_tab(m, Tab::Relationships),
        Action::TabLearn => return enter_tab(m, Tab::Learn),
        Action::TabIndexes => return enter_tab(m, Tab::Indexes),
        Action::TabWorkload => set_tab(m, Tab::Workload),
        Action::NavSort => {
            m.nav_sort = m.nav_sort.next();
            let keep = m.nav.get(m.nav_sel).cloned();
            rebuild_nav(m);
            if let Some(i) = keep.and_then(|k| m.nav.iter().position(|r| *r == k)) {
                m.nav_sel = i;
            }
            let msg = format!("collections {}", m.nav_sort.label(m.lang));
            status(m, Level::Info, &msg);
        }
        Action::LessonLanguage => {
            m.learn.lang = match m.learn.lang {
                Lang::En => Lang::Zh,
                Lang::Zh => Lang::En,
            };
            let now = m.learn.lang.pick("lessons in English", "课程语言：中文");
            status(m, Level::Info, now);
            if m.tab == Tab::Learn {
                // At once from the measured data; the findings' own
                // messages follow when the measuring in the new language
                // comes back.
                render_lesson(m);
                return start_measuring(m);
            }
            m.learn.text = None;
            m.learn.reports = None;
            return m
                .learn
                .req
                .take()
                .map(|req| Effect::Cancel { req })
                .into_iter()
                .collect();
        }
        Action::Toggle => match (m.focus, m.tab) {
            (Pane::Nav, _) if m.selected_db().is_some() => fold_db(m, None),
            (Pane::Nav, _) => m.focus = Pane::Main,
            (Pane::Main, Tab::Relationships) => follow_relationship(m),
            (Pane::Main, Tab::Workload) => open_shape_finding(m),
            (Pane::Main, Tab::Schema) => {
                if let Some(f) = m.selected_field().cloned() {
                    if !m.collapsed.remove(&f.path) && has_children(m) {
                        m.collapsed.insert(f.path);
                    }
                    rebuild_rows(m);
                }
            }
            (Pane::Main, Tab::Learn) if m.learn.req.is_none() => return start_measuring(m),
            (Pane::Main, Tab::Documents) => {
                if let Some(&d) = m.docs.get(m.doc_sel) {
                    if m.doc_open.remove(&d) {
                        m.doc_lines.remove(&d);
                    } else if let Some(bytes) = m.doc_bytes(d) {
                        let lines = views::documents::folded_lines(bytes, m.doc_depth);
                        m.doc_lines.insert(d, lines);
                        m.doc_open.insert(d);
                    }
                }
            }
            _ => {}
        },
        Action::Filter
            if m.focus == Pane::Main && m.tab == Tab::Documents && m.collection().is_some() =>
        {
            querybar::open(m);
        }
        Action::Filter => {
            let target = if m.focus == Pane::Nav {
                InputFor::Collections
            } else {
                m.tab = Tab::Schema;
                InputFor::Fields
            };
            let text = match target {
                InputFor::Fields => m.field_filter.clone(),
                InputFor::Collections => m.coll_filter.clone(),
            };
            m.input = Some(Input { target, text });
        }
        Action::Cancel => {
            if m.help {
                m.help = false;
            } else if m.tab == Tab::Documents && m.query.running() && querybar::results(m).is_some()
            {
                // The query the user just ran goes before a sampling run.
                let fx = querybar::cancel(m).unwrap_or_default();
                rebuild_docs(m);
                return fx;
            } else if let Some(j) = m.job.as_mut().filter(|j| !j.stopping) {
                // First Esc: read no further, judge what was read.
                j.stopping = true;
                let req = j.req;
                let lang = m.lang;
                status(
                    m,
                    Level::Warning,
                    lang.pick(
                        "stopping: the collections read so far are judged — Esc again abandons them",
                        "正在停止：只评判已读取的集合——再按 Esc 放弃",
                    ),
                );
                return vec![Effect::Stop { req }];
            } else if let Some(j) = m.job.take() {
                // Second Esc: the run is abandoned, and with it the
                // collections it read but never judged.
                if m.arriving == Some(j.req) {
                    m.arriving = None;
                    m.report = None;
                    rebuild_nav(m);
                    collection_changed(m);
                }
                let lang = m.lang;
                status(
                    m,
                    Level::Warning,
                    lang.pick(
                        "sampling cancelled — r samples again",
                        "已取消采样——按 r 重新采样",
                    ),
                );
                return vec![Effect::Cancel { req: j.req }];
            } else if m.tab == Tab::Documents && querybar::results(m).is_some() {
                let fx = querybar::cancel(m).unwrap_or_default();
                rebuild_docs(m);
                return fx;
            } else if !m.field_filter.is_empty() && m.focus == Pane::Main {
                m.field_filter.clear();
                rebuild_rows(m);
            } else if !m.coll_filter.is_empty() {
                m.coll_filter.clear();
                apply_filter(m, InputFor::Collections);
            } else if m.doc_view != DocView::All && m.tab == Tab::Documents {
                m.doc_view = DocView::All;
                rebuild_docs(m);
            } else {
                m.status = None;
            }
        }
        Action::Resample => return start_sampling(m),
        Action::SampleMore | Action::SampleLess => {
            m.sample = if a == Action::SampleMore {
                m.sample.saturating_mul(2).min(MAX_SAMPLE)
            } else {
                (m.sample / 2).max(MIN_SAMPLE)
            };
            let key = m.keymap.label(Action::Resample);
            status(
                m,
                Level::Info,
                format!("sample size {} — {key} samples again", m.sample),
            );
        }
        Action::SeverityFilter => {
            m.severity_filter = match m.severity_filter {
                None => Some(Severity::Critical),
                Some(Severity::Critical) => Some(Severity::Warning),
                Some(Severity::Warning) => Some(Severity::Info),
                Some(Severity::Info) => None,
            };
            m.finding_sel = 0;
            rebuild_findings(m);
            set_tab(m, Tab::Findings);
        }
        Action::RuleFilter => {
            let mut rules: Vec<&'static str> = m.findings().iter().map(|f| f.rule).collect();
            rules.sort_unstable();
            rules.dedup();
            m.rule_filter = match m
                .rule_filter
                .and_then(|r| rules.iter().position(|x| *x == r))
            {
                None => rules.first().copied(),
                Some(i) => rules.get(i + 1).copied(),
            };
            m.finding_sel = 0;
            rebuild_findings(m);
            set_tab(m, Tab::Findings);
        }
        Action::WriteScript if m.tab == Tab::Documents && querybar::results(m).is_some() => {
            return querybar::export(m, querybar::Format::Json);
        }
        Action::ExportCsv => return querybar::export(m, querybar::Format::Csv),
        Action::NextPage | Action::PrevPage => {
            return querybar::turn_page(m, a == Action::NextPage);
        }
        Action::Explain => return querybar::explain(m),
        Action::FoldLevel => {
            m.doc_depth = match m.doc_depth {
                None => Some(1),
                Some(1) => Some(2),
                Some(_) => None,
            };
            let open: Vec<usize> = m.doc_open.iter().copied().collect();
            for d in open {
                if let Some(bytes) = m.doc_bytes(d) {
                    let lines = views::documents::folded_lines(bytes, m.doc_depth);
                    m.doc_lines.insert(d, lines);
                }
            }
            m.detail_scroll = 0;
            let msg = match m.doc_depth {
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
        Action::Copy | Action::WriteScript => {
            let Some(f) = m.selected_finding() else {
                status(m, Level::Warning, "select a finding first (Findings tab)");
                return Vec::new();
            };
            let script = f.suggestion.migration.clone();
            let name = script_name(&f.namespace, f.rule);
            if script.trim().is_empty() {
                status(m, Level::Warning, "this finding has no migration script");
                return Vec::new();
            }
            // Named in the status line: on the Schema tab the finding is
            // the selected field's, which the user may not have looked at.
            let what = match &f.path {
                Some(p) if !p.is_empty() => format!("{} at {p}", f.rule),
                _ => format!("{} on {}", f.rule, f.namespace),
            };
            return vec![if a == Action::Copy {
                Effect::Copy { text: script, what }
            } else {
                Effect::WriteFile {
                    path: PathBuf::from(name),
                    contents: script,
                    what,
                }
            }];
        }
        Action::DocsWithField => {
            if let Some(f) = m.selected_field() {
                m.doc_view = DocView::WithField(f.path.clone());
                m.doc_sel = 0;
                rebuild_docs(m);
                set_tab(m, Tab::Documents);
            }
        }
        Action::LargestDocs => {
            m.doc_view = DocView::Largest;
            m.doc_sel = 0;
            rebuild_docs(m);
            set_tab(m, Tab::Documents);
        }
        Action::DetailUp | Action::DetailDown if m.tab == Tab::Learn => {
            learn_scroll(m, a == Action::DetailDown, 3);
        }
        Action::DetailUp => m.detail_scroll = m.detail_scroll.saturating_sub(3),
        Action::DetailDown => {
            m.detail_scroll = m.detail_scroll.saturating_add(3).min(m.detail_max.get());
        }
        Action::DetailLeft => m.detail_hscroll = m.detail_hscroll.saturating_sub(HSTEP),
        Action::DetailRight => {
            m.detail_hscroll = m
                .detail_hscroll
                .saturating_add(HSTEP)
                .min(m.detail_hmax.get());
        }
    }
    Vec::new()
}

fn inside(r: Rect, col: u16, row: u16) -> bool {
    r.contains(Position { x: col, y: row })
}

fn mouse(m: &mut Model, e: MouseEvent) -> Vec<Effect> {
    let Some(a) = views::areas(Rect::new(0, 0, m.size.0, m.size.1)) else {
        return Vec::new();
    };
    let (col, row) = (e.column, e.row);
    let pane = if inside(a.nav, col, row) {
        Pane::Nav
    } else {
        Pane::Main
    };
    match e.kind {
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
            if m.help {
                return Vec::new();
            }
            m.focus = pane;
            let up = e.kind == MouseEventKind::ScrollUp;
            let over_lesson = m.tab == Tab::Learn
                && pane == Pane::Main
                && views::learn::text_area(m.size).is_some_and(|r| inside(r, col, row));
            let act = match (over_lesson, up) {
                (true, true) => Action::DetailUp,
                (true, false) => Action::DetailDown,
                (false, true) => Action::Up,
                (false, false) => Action::Down,
            };
            action(m, act)
        }
        MouseEventKind::Down(MouseButton::Left) => {
            if m.help {
                m.help = false;
                return Vec::new();
            }
            if inside(a.tabs, col, row) {
                if let Some(t) = views::tab_at(m, a.tabs, col) {
                    return enter_tab(m, t);
                }
                return Vec::new();
            }
            m.focus = pane;
            if pane == Pane::Nav {
                let inner = views::inner(a.nav);
                if inside(inner, col, row) {
                    let off = views::offset(m.nav_sel, m.nav.len(), usize::from(inner.height));
                    let i = off + usize::from(row - inner.y);
                    if i < m.nav.len() && i != m.nav_sel {
                        m.nav_sel = i;
                        m.overview_chosen = i == 0;
                        collection_changed(m);
                    }
                }
            } else if let Some((list, header)) = views::list_area(m, a.main) {
                if inside(list, col, row) && row >= list.y + header {
                    let h = usize::from(list.height.saturating_sub(header));
                    let (sel, len) = match m.tab {
                        Tab::Schema => (m.field_sel, m.rows.len()),
                        Tab::Findings => (m.finding_sel, m.finding_rows.len()),
                        Tab::Relationships => (m.rel_sel, m.rel_rows.len()),
                        Tab::Indexes => {
                            (m.index_sel, m.collection().map_or(0, |c| c.indexes.len()))
                        }
                        Tab::Workload => (m.shape_sel, m.shapes().len()),
                        Tab::Learn => (m.learn.sel, LESSONS.len()),
                        Tab::Documents => return Vec::new(),
                    };
                    let i = views::offset(sel, len, h) + usize::from(row - list.y - header);
                    if i < len {
                        match m.tab {
                            Tab::Learn => return select_lesson(m, i),
                            Tab::Schema => m.field_sel = i,
                            Tab::Findings => {
                                m.finding_sel = i;
                                m.detail_scroll = 0;
                                m.detail_hscroll = 0;
                            }
                            Tab::Relationships => m.rel_sel = i,
                            Tab::Indexes => m.index_sel = i,
                            Tab::Workload => {
                                m.shape_sel = i;
                                m.detail_scroll = 0;
                                m.detail_hscroll = 0;
                            }
                            Tab::Documents => {}
                        }
                    }
                }
            }
            Vec::new()
        }
        _ => Vec::new(),
    }
}
