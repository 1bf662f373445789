//! `update(model, msg) -> effects`: the only place the model changes. Work
//! that waits (sampling, queries, the clipboard, files) leaves as
//! `Effect`s and comes back as `Msg`s tagged with the request id; stale
//! ones are dropped.
//!
//! This module dispatches: a message to the concern it is about (a
//! sampling run, a lesson, a query, the mouse), a key's action to what is
//! app-wide (quit, help, tabs, panes, the sample size, Esc) or to the
//! focused pane — the navigator or the selected tab, each in a module of
//! its own that can be driven alone.

pub mod bounds;
pub mod common;
pub mod documents;
pub mod findings;
pub mod focus;
pub mod indexes;
pub mod jobs;
pub mod learn;
pub mod mouse;
pub mod nav;
pub mod open;
pub mod picker;
pub mod prompt;
pub mod query;
pub mod relationships;
pub mod schema;
pub mod selection;
pub mod workload;

use ratatui::crossterm::event::{KeyEvent, KeyEventKind, KeyModifiers};

use crate::i18n::Lang;

use super::detail::findings::Section;
use super::effects::Effect;
use super::export::Format;
use super::keymap::{Action, Key};
use super::layout;
use super::model::{self, Level, Model, Pane, Tab};
use super::msg::{Done, Msg};

use common::{set_tab, status};
pub use jobs::{set_report, start_sampling, MAX_SAMPLE, MIN_SAMPLE};
pub use learn::start_measuring;

/// The status line for what a side effect did, in the explorer's language.
fn done(m: &mut Model, d: Done) {
    let (level, text) = match (d, m.lang) {
        (
            Done::Wrote {
                what,
                written,
                asked,
            },
            lang,
        ) => {
            let (w, a) = (written.display(), asked.display());
            let text = match (lang, written == asked) {
                (Lang::En, true) => format!("wrote the script of {what} to {w}"),
                (Lang::En, false) => {
                    format!("wrote the script of {what} to {w} ({a} exists and was left as it is)")
                }
                (Lang::Zh, true) => format!("已把 {what} 的脚本写入 {w}"),
                (Lang::Zh, false) => format!("已把 {what} 的脚本写入 {w}（{a} 已存在，未改动）"),
            };
            (Level::Info, text)
        }
        (Done::Copied { what, lines }, Lang::En) => (
            Level::Info,
            format!("copied {what} ({lines} lines) with OSC 52 — if your terminal allows it"),
        ),
        (Done::Copied { what, lines }, Lang::Zh) => (
            Level::Info,
            format!("已通过 OSC 52 复制{what}（{lines} 行）——如果终端允许"),
        ),
        (Done::Failed(why), lang) => (
            Level::Error,
            format!("{} {why}", lang.pick("cannot do it:", "无法完成：")),
        ),
    };
    status(m, level, text);
}

pub fn update(m: &mut Model, msg: Msg) -> Vec<Effect> {
    let fx = update_on(m, msg);
    common::forget_stale_status(m);
    fx
}

fn update_on(m: &mut Model, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Key(k) => key(m, k),
        // The picker's overlay is on top: the panes under it stay still.
        Msg::Mouse(_) if picker::is_open(m) => Vec::new(),
        Msg::Mouse(e) => match mouse::event(m, e) {
            mouse::Outcome::Done(fx) => fx,
            mouse::Outcome::Act(a) => action(m, a),
            mouse::Outcome::Enter(t) => enter_tab(m, t),
        },
        Msg::Resize(w, h) => {
            m.size = (w, h);
            Vec::new()
        }
        Msg::Progress { .. } | Msg::Arrived { .. } | Msg::Loaded { .. } => jobs::on_message(m, msg),
        Msg::Lesson { req, result } => {
            learn::measured(m, req, result);
            Vec::new()
        }
        Msg::Checked { req, result } => {
            learn::checked(m, req, result);
            Vec::new()
        }
        Msg::Query { req, reply } => {
            query::reply(m, req, reply);
            // A new page is searched again.
            documents::research(m);
            Vec::new()
        }
        Msg::Exporting { req, written } => {
            query::export_progress(m, req, written);
            Vec::new()
        }
        Msg::Exported { req, result } => {
            query::exported(m, req, result);
            Vec::new()
        }
        Msg::Done(d) => {
            done(m, d);
            Vec::new()
        }
        // The query history of the target switched to, read by the
        // executor.
        Msg::Switched { target, history } => {
            if m.target == target {
                m.docs.query.history = history;
            }
            Vec::new()
        }
        Msg::Terminate | Msg::Signal(_) | Msg::InputFailed(_) => {
            m.quit = true;
            vec![Effect::Quit]
        }
    }
}

/// A key: to the connection picker, the query bar or the prompt while one
/// is open (a control key bound to quitting, ctrl-c, quits from them too
/// instead of typing a letter), else its action.
fn key(m: &mut Model, k: KeyEvent) -> Vec<Effect> {
    if k.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let bound = m.keymap.action(Key::from_event(k));
    let ctrl_quit = bound == Some(Action::Quit) && k.modifiers.contains(KeyModifiers::CONTROL);
    if picker::is_open(m) && !ctrl_quit {
        return picker::key(m, k);
    }
    if m.docs.query.bar.is_some() && !ctrl_quit {
        let fx = query::key(m, k);
        if m.docs.query.bar.is_none() {
            // A query run: its page is searched when it comes.
            documents::research(m);
        }
        return fx;
    }
    if m.input.is_some() && !ctrl_quit {
        prompt::key(m, k);
        return Vec::new();
    }
    if m.docs.search.as_ref().is_some_and(|s| s.editing) && !ctrl_quit {
        return documents::search_key(m, k);
    }
    if m.docs.columns.chooser.is_some() && !ctrl_quit {
        return documents::chooser_key(m, k, bound);
    }
    match bound {
        Some(a) => action(m, a),
        None => Vec::new(),
    }
}

/// What an action does: app-wide ones here, a tab's own keys wherever the
/// focus is (they switch to it), moving and opening in the focused pane.
pub fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    if m.help.open && !matches!(a, Action::Help | Action::Cancel | Action::Quit) {
        help_scroll(m, a);
        return Vec::new();
    }
    if !matches!(
        a,
        Action::Quit
            | Action::Help
            | Action::Cancel
            | Action::Resample
            | Action::SampleMore
            | Action::SampleLess
    ) {
        // The user is finding their own way: a report arriving now keeps
        // their place.
        m.nav.explored = true;
    }
    match a {
        Action::Quit => quit(m),
        Action::Help => {
            m.help.open = !m.help.open;
            m.help.scroll = 0;
            Vec::new()
        }
        Action::Cancel => cancel(m),
        Action::Connect => {
            picker::open(m);
            Vec::new()
        }
        Action::NextPane | Action::PrevPane => {
            focus::cycle(m, a == Action::NextPane);
            Vec::new()
        }
        Action::JumpEvidence | Action::JumpBeforeAfter | Action::JumpScript => {
            focus::jump(
                m,
                match a {
                    Action::JumpEvidence => Section::Evidence,
                    Action::JumpBeforeAfter => Section::BeforeAfter,
                    _ => Section::Script,
                },
            );
            Vec::new()
        }
        // On the Documents tab `c` chooses the table's columns.
        Action::GotoCollection if on_documents(m) => {
            documents::columns(m);
            Vec::new()
        }
        Action::GotoCollection => {
            open::collection(m);
            Vec::new()
        }
        Action::Search => {
            documents::open_search(m);
            Vec::new()
        }
        Action::PrevMatch => {
            documents::next_match(m, false);
            Vec::new()
        }
        Action::NextPage if on_documents(m) && documents::searching(m) => {
            documents::next_match(m, true);
            Vec::new()
        }
        Action::NextTab => enter_tab(m, Tab::ALL[(m.tab.index() + 1) % Tab::ALL.len()]),
        Action::PrevTab => enter_tab(
            m,
            Tab::ALL[(m.tab.index() + Tab::ALL.len() - 1) % Tab::ALL.len()],
        ),
        Action::TabSchema => enter_tab(m, Tab::Schema),
        Action::TabFindings => enter_tab(m, Tab::Findings),
        Action::TabDocuments => enter_tab(m, Tab::Documents),
        Action::TabRelationships => enter_tab(m, Tab::Relationships),
        Action::TabLearn => enter_tab(m, Tab::Learn),
        Action::TabIndexes => enter_tab(m, Tab::Indexes),
        Action::TabWorkload => enter_tab(m, Tab::Workload),
        Action::Resample => start_sampling(m),
        Action::SampleMore | Action::SampleLess => {
            jobs::resize_sample(m, a == Action::SampleMore);
            Vec::new()
        }
        Action::NavSort => {
            nav::sort(m);
            Vec::new()
        }
        Action::LessonLanguage => learn::switch_language(m),
        // Learn's own key; elsewhere it says where it works.
        Action::CheckExercises if m.tab == Tab::Learn => learn::start_checking(m),
        Action::CheckExercises => {
            let key = m.keymap.first_label(Action::TabLearn);
            let hint = match m.lang {
                crate::i18n::Lang::En => format!("exercises are checked on the Learn tab ({key})"),
                crate::i18n::Lang::Zh => format!("练习在“学习”页（{key}）上检查"),
            };
            common::status(m, Level::Info, hint);
            Vec::new()
        }
        Action::Filter => {
            if m.focus == Pane::Main && m.tab == Tab::Documents && m.collection().is_some() {
                query::open(m);
            } else {
                prompt::open(m);
            }
            Vec::new()
        }
        Action::SeverityFilter | Action::RuleFilter => {
            findings::cycle_filter(m, a);
            Vec::new()
        }
        // On the Documents tab with query results `w` writes them; else
        // `y` and `w` take the selected finding's script.
        Action::WriteScript if m.tab == Tab::Documents && model::results(m).is_some() => {
            query::export(m, Format::Json)
        }
        Action::Copy if on_documents(m) => documents::copy(m),
        Action::Copy | Action::WriteScript => findings::script(m, a),
        Action::ExportCsv => query::export(m, Format::Csv),
        Action::NextPage | Action::PrevPage => query::turn_page(m, a == Action::NextPage),
        Action::Explain => query::explain(m),
        Action::DocsWithField => {
            documents::with_field(m);
            Vec::new()
        }
        Action::LargestDocs => {
            documents::largest(m);
            Vec::new()
        }
        Action::FoldLevel => {
            documents::fold_level(m);
            Vec::new()
        }
        // The detail belongs to the selected tab, wherever the focus is.
        Action::DetailUp | Action::DetailDown | Action::DetailLeft | Action::DetailRight => {
            tab_action(m, a)
        }
        Action::Up
        | Action::Down
        | Action::Left
        | Action::Right
        | Action::PageUp
        | Action::PageDown
        | Action::Top
        | Action::Bottom
        | Action::Toggle => match m.focus {
            Pane::Nav => nav::action(m, a),
            Pane::Detail if focus::has_detail(m) => focus::action(m, a),
            Pane::Main | Pane::Detail => tab_action(m, a),
        },
    }
}

/// The Documents tab of a collection is shown.
fn on_documents(m: &Model) -> bool {
    m.tab == Tab::Documents && m.collection().is_some()
}

/// An action for the selected tab's own module.
fn tab_action(m: &mut Model, a: Action) -> Vec<Effect> {
    match m.tab {
        Tab::Schema => schema::action(m, a),
        // Enter on a finding opens it: on its collection, in its detail.
        Tab::Findings if a == Action::Toggle => {
            open::finding(m);
            Vec::new()
        }
        Tab::Findings => findings::action(m, a),
        Tab::Documents => documents::action(m, a),
        Tab::Relationships => relationships::action(m, a),
        Tab::Learn => learn::action(m, a),
        Tab::Indexes => indexes::action(m, a),
        Tab::Workload => workload::action(m, a),
    }
}

/// `q`: the run in flight cancelled, and out.
fn quit(m: &mut Model) -> Vec<Effect> {
    m.quit = true;
    let mut fx: Vec<Effect> = m
        .job
        .take()
        .map(|j| Effect::Cancel { req: j.req })
        .into_iter()
        .collect();
    fx.push(Effect::Quit);
    fx
}

/// Keys while the help is open scroll it.
fn help_scroll(m: &mut Model, a: Action) {
    let page = layout::help_visible(m);
    let max = layout::help_max_scroll(m);
    m.help.scroll = match a {
        Action::Up => m.help.scroll.saturating_sub(1),
        Action::Down => m.help.scroll + 1,
        Action::PageUp => m.help.scroll.saturating_sub(page),
        Action::PageDown => m.help.scroll + page,
        Action::Top => 0,
        Action::Bottom => max,
        _ => m.help.scroll,
    }
    .min(max);
}

/// Esc undoes the nearest thing: the help; an export; the detail's focus
/// (back to the list); a query the user just ran
/// (before a sampling run); a sampling run (stop, then abandon); the
/// query's results (back to the sample); a field filter; the collection
/// filter; a narrowed document list; else the status line.
fn cancel(m: &mut Model) -> Vec<Effect> {
    if m.help.open {
        m.help.open = false;
        return Vec::new();
    }
    if let Some(fx) = query::stop_export(m) {
        return fx;
    }
    if focus::leave_detail(m) {
        return Vec::new();
    }
    let on_docs = m.tab == Tab::Documents;
    if on_docs && documents::leave(m) {
        return Vec::new();
    }
    if on_docs && m.docs.query.running() && model::results(m).is_some() {
        return query_cancel(m);
    }
    if let Some(fx) = jobs::stop_or_abandon(m) {
        return fx;
    }
    if on_docs && model::results(m).is_some() {
        return query_cancel(m);
    }
    let cleared = (m.focus == Pane::Main && schema::clear_filter(m))
        || nav::clear_filter(m)
        || (on_docs && documents::show_all(m));
    if !cleared {
        m.status = None;
    }
    Vec::new()
}

fn query_cancel(m: &mut Model) -> Vec<Effect> {
    let fx = query::cancel(m).unwrap_or_default();
    documents::rebuild(m);
    fx
}

/// Switches tab; the Learn tab measures its lesson when nothing is shown,
/// and on a class's server checks its exercises for every student.
pub(crate) fn enter_tab(m: &mut Model, t: Tab) -> Vec<Effect> {
    set_tab(m, t);
    let mut fx = Vec::new();
    if t == Tab::Learn && m.learn.req.is_none() && !matches!(m.learn.text, Some(Ok(_))) {
        fx.extend(learn::start_measuring(m));
    }
    if t == Tab::Learn {
        fx.extend(learn::check_class(m));
    }
    fx
}
