//! The Learn tab: a lesson picked from the list, measured on the bundled
//! sample data in the tab's language, and scrolled.

use crate::i18n::Lang;
use crate::lesson::{self, LESSONS};
use crate::report::Report;

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::layout;
use super::super::model::{Level, Model, Tab};
use super::common::{common, moved, page, status};

/// A key for the Learn tab: up and down pick a lesson, the page keys and
/// the detail keys scroll it, Enter measures it again after a failure.
pub(crate) fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        Action::Up | Action::Down | Action::Top | Action::Bottom => {
            let sel = moved(m.learn.sel, LESSONS.len(), a, page(m));
            select_lesson(m, sel)
        }
        Action::PageUp | Action::PageDown => {
            let h = layout::learn_text_area(m.size).map_or(10, |r| r.height.max(1));
            learn_scroll(m, a == Action::PageDown, h);
            Vec::new()
        }
        Action::DetailUp | Action::DetailDown => {
            learn_scroll(m, a == Action::DetailDown, 3);
            Vec::new()
        }
        Action::Toggle if m.learn.req.is_none() => start_measuring(m),
        _ => common(m, a),
    }
}

/// The measured data sets of request `req`, or why they could not be.
pub(crate) fn measured(
    m: &mut Model,
    req: u64,
    result: Result<Vec<(String, Report)>, crate::tui::failure::Failure>,
) {
    if m.learn.req != Some(req) {
        return;
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
}

/// `t`: lessons in the other language; on the Learn tab at once from the
/// measured data, the findings' own words when the measuring in the new
/// language comes back.
pub(crate) fn switch_language(m: &mut Model) -> Vec<Effect> {
    m.learn.lang = match m.learn.lang {
        Lang::En => Lang::Zh,
        Lang::Zh => Lang::En,
    };
    let now = m.learn.lang.pick("lessons in English", "课程语言：中文");
    status(m, Level::Info, now);
    let forgot = forget_check(m);
    let mut fx: Vec<Effect> = forgot.into_iter().collect();
    if m.tab == Tab::Learn {
        render_lesson(m);
        fx.extend(start_measuring(m));
        return fx;
    }
    m.learn.text = None;
    m.learn.reports = None;
    fx.extend(m.learn.req.take().map(|req| Effect::Cancel { req }));
    fx
}

/// Measures the selected lesson in the Learn tab's language, cancelling
/// the measuring in flight.
pub fn start_measuring(m: &mut Model) -> Vec<Effect> {
    let mut fx = Vec::new();
    if let Some(req) = m.learn.req.take() {
        fx.push(Effect::Cancel { req });
    }
    let req = m.next_req();
    m.learn.req = Some(req);
    fx.push(Effect::Measure {
        req,
        lesson: m.learn.sel,
        lang: m.learn.lang,
    });
    fx
}

/// Checks the selected lesson's exercises on the target's server,
/// cancelling the check in flight.
pub(crate) fn start_checking(m: &mut Model) -> Vec<Effect> {
    let mut fx = Vec::new();
    if let Some(req) = m.learn.check_req.take() {
        fx.push(Effect::Cancel { req });
    }
    let req = m.next_req();
    m.learn.check_req = Some(req);
    fx.push(Effect::CheckExercises {
        req,
        lesson: m.learn.sel,
        students: students(m),
        lang: m.learn.lang,
    });
    fx
}

/// The students (database prefixes) of the report on screen with a copy
/// of the selected lesson's exercises' data sets.
fn students(m: &Model) -> Vec<String> {
    let (Some(r), Some(l)) = (&m.report, LESSONS.get(m.learn.sel)) else {
        return Vec::new();
    };
    let mut dbs: Vec<String> = r.collections.iter().map(|c| c.meta.db.clone()).collect();
    dbs.dedup();
    lesson::class::students_of(l.name, &dbs)
}

/// On a server holding several students' copies of the selected lesson's
/// data sets (a class), the lesson's board is checked without a key.
pub(crate) fn check_class(m: &mut Model) -> Vec<Effect> {
    if m.learn.check.is_some() || m.learn.check_req.is_some() || !crate::target::is_uri(&m.target) {
        return Vec::new();
    }
    if students(m).len() >= 2 {
        start_checking(m)
    } else {
        Vec::new()
    }
}

/// The exercises checked by request `req`, or why they could not be.
pub(crate) fn checked(
    m: &mut Model,
    req: u64,
    result: Result<String, crate::tui::failure::Failure>,
) {
    if m.learn.check_req != Some(req) {
        return;
    }
    m.learn.check_req = None;
    m.learn.check = Some(result);
}

/// Forgets the exercises checked (another lesson, another language).
fn forget_check(m: &mut Model) -> Option<Effect> {
    m.learn.check = None;
    m.learn.check_req.take().map(|req| Effect::Cancel { req })
}

/// Selects lesson `sel` and measures it, unless it is already shown or
/// being measured.
pub(crate) fn select_lesson(m: &mut Model, sel: usize) -> Vec<Effect> {
    let sel = sel.min(LESSONS.len().saturating_sub(1));
    if sel == m.learn.sel && (matches!(m.learn.text, Some(Ok(_))) || m.learn.req.is_some()) {
        return Vec::new();
    }
    m.learn.sel = sel;
    m.learn.scroll = 0;
    m.learn.text = None;
    m.learn.reports = None;
    let mut fx: Vec<Effect> = forget_check(m).into_iter().collect();
    fx.extend(start_measuring(m));
    fx.extend(check_class(m));
    fx
}

fn render_lesson(m: &mut Model) {
    if let (Some(l), Some(reports)) = (LESSONS.get(m.learn.sel), &m.learn.reports) {
        let text = lesson::render(l, reports, m.learn.lang);
        m.learn.text = Some(Ok(layout::learn::reflow(&text)));
    }
}

fn learn_scroll(m: &mut Model, down: bool, by: u16) {
    let max = match (&m.learn.text, layout::learn_text_area(m.size)) {
        // Half a screen of slack: word wrapping can make more lines than
        // the estimate.
        (Some(Ok(t)), Some(area)) => {
            let shown = m.learn.with_check(t);
            layout::learn::max_scroll(&shown, area.width).saturating_sub(area.height / 2)
        }
        _ => 0,
    };
    m.learn.scroll = if down {
        m.learn.scroll.saturating_add(by).min(max)
    } else {
        m.learn.scroll.saturating_sub(by)
    };
}
