//! Sampling runs: starting one, its progress, the collections as they
//! arrive, its report, and stopping or abandoning it (Esc).

use crate::fmt::group;
use crate::i18n::Lang;
use crate::report::{CollectionReport, InputError, Report};

use super::super::effects::Effect;
use super::super::failure::Failure;
use super::super::keymap::Action;
use super::super::model::{Job, Level, Model, NavRow};
use super::super::msg::Msg;
use super::common::status;
use super::nav;
use super::selection::collection_changed;

/// Smallest and largest sample sizes `+`/`-` reach.
pub const MIN_SAMPLE: u64 = 10;
pub const MAX_SAMPLE: u64 = 10_000_000;

/// Starts a sampling run with the current sample size.
pub fn start_sampling(m: &mut Model) -> Vec<Effect> {
    let mut fx = Vec::new();
    if let Some(j) = m.job.take() {
        fx.push(Effect::Cancel { req: j.req });
    }
    let req = m.next_req();
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

/// `+` / `-`: the sample size doubled or halved, for the next run.
pub(crate) fn resize_sample(m: &mut Model, more: bool) {
    m.sample = if more {
        m.sample.saturating_mul(2).min(MAX_SAMPLE)
    } else {
        (m.sample / 2).max(MIN_SAMPLE)
    };
    let key = m.keymap.first_label(Action::Resample);
    let msg = match m.lang {
        Lang::En => format!("sample size {} — {key} samples again", m.sample),
        Lang::Zh => format!("样本大小 {}——按 {key} 重新采样", m.sample),
    };
    status(m, Level::Info, msg);
}

/// A message of a sampling run: its progress, a collection read, its end.
/// Those of another request than the running one are dropped.
pub(crate) fn on_message(m: &mut Model, msg: Msg) -> Vec<Effect> {
    match msg {
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
        }
        Msg::Arrived {
            req,
            position,
            collection,
        } => arrived(m, req, position, *collection),
        Msg::Loaded { req, result } => loaded(m, req, result),
        _ => {}
    }
    Vec::new()
}

/// Request `req` read one more collection (profiled, not yet judged).
fn arrived(m: &mut Model, req: u64, position: (usize, usize), collection: CollectionReport) {
    if m.job.as_ref().is_none_or(|j| j.req != req) {
        return;
    }
    if let Some(j) = m.job.as_mut() {
        j.position = position;
    }
    // The first run fills the navigator as collections arrive; a
    // re-sample keeps the last report on screen until its own ends.
    if m.report.is_some() && m.arriving != Some(req) {
        return;
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
    r.collections.push(collection);
    m.report = Some(r);
    m.arriving = Some(req);
    nav::add_arrival(m);
}

/// Request `req` finished: its report, or why there is none.
fn loaded(m: &mut Model, req: u64, result: Result<Box<Report>, Failure>) {
    if m.job.as_ref().is_none_or(|j| j.req != req) {
        return;
    }
    let stopped = m.job.take().is_some_and(|j| j.stopping);
    let r = match result {
        Ok(r) => r,
        Err(e) => {
            let key = m.keymap.first_label(Action::Resample);
            let elsewhere =
                crate::tui::picker::offer(&m.keymap.first_label(Action::Connect), m.lang);
            let msg = match m.lang {
                Lang::En => format!("{e} — {key} retries, {elsewhere}"),
                Lang::Zh => format!("{e}——按 {key} 重试，{elsewhere}"),
            };
            return status(m, Level::Error, msg);
        }
    };
    m.picker.read_well();
    let n = r.collections.len();
    let lang = r.rules.lang;
    let unreadable = unreadable_status(&r.errors, n, lang);
    // The run ended early: say why, from the report's note.
    let cut_short = crate::audit::ended_early_note(&r.notes).cloned();
    set_report(m, *r);
    nav::open_on_findings(m);
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
            match m.lang {
                Lang::En => format!(
                    "{why} — {} samples again",
                    m.keymap.first_label(Action::Resample)
                ),
                Lang::Zh => format!(
                    "{why}——按 {} 重新采样",
                    m.keymap.first_label(Action::Resample)
                ),
            },
        ),
        (None, None) => status(
            m,
            Level::Info,
            m.lang.pick(
                format!("sampled {n} collections, up to {} documents each", m.sample),
                format!("已采样 {n} 个集合，每个最多 {} 个文档", m.sample),
            ),
        ),
    }
}

/// Esc while sampling: the first reads no further collection and judges
/// those read; the second abandons the run, and with it the collections
/// it read but never judged. `None` when no run is going.
pub(crate) fn stop_or_abandon(m: &mut Model) -> Option<Vec<Effect>> {
    if let Some(j) = m.job.as_mut().filter(|j| !j.stopping) {
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
        return Some(vec![Effect::Stop { req }]);
    }
    let j = m.job.take()?;
    if m.arriving == Some(j.req) {
        m.arriving = None;
        m.report = None;
        nav::rebuild(m);
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
    Some(vec![Effect::Cancel { req: j.req }])
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
pub fn set_report(m: &mut Model, r: Report) {
    let keep = m.collection().map(|c| c.namespace.clone());
    m.arriving = None;
    m.report = Some(r);
    nav::rebuild(m);
    if let Some(ns) = keep {
        if let Some(i) = m.nav.rows.iter().position(|row| match row {
            NavRow::Coll(i) => m
                .report
                .as_ref()
                .is_some_and(|r| r.collections[*i].namespace == ns),
            NavRow::Db(_) | NavRow::Overview => false,
        }) {
            m.nav.sel = i;
        }
    }
    collection_changed(m);
}
