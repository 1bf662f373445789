//! Opening from a finding: Enter on a row of *All findings* (or of a
//! database) opens it on its collection's Findings tab, and `c` goes to
//! its collection on the Schema tab. Apart from the Findings tab's own
//! module, which the navigator's module reaches through the selection.

use crate::i18n::Lang;

use super::super::layout::{self, Shown};
use super::super::model::{Level, Model, Pane, Tab};
use super::common::{set_tab, status};
use super::{findings, nav};

/// Enter on a finding: on *All findings* or a database, its collection's
/// Findings tab with it selected; then (or on a collection's own list at
/// once) its detail takes the focus. A finding about a whole database
/// opens its detail where it is.
pub(crate) fn finding(m: &mut Model) {
    let Some(f) = m.selected_finding() else {
        return;
    };
    let (ptr, ns) = (
        std::ptr::from_ref::<crate::advise::Advice>(f),
        f.namespace.clone(),
    );
    if m.is_summary() && nav::select_namespace(m, &ns) {
        m.nav.tab_before_summary = None;
        set_tab(m, Tab::Findings);
        select(m, ptr);
    }
    m.detail.reset();
    m.focus = Pane::Detail;
}

/// Selects the listed finding at `ptr`, the filters cleared if they hide it.
fn select(m: &mut Model, ptr: *const crate::advise::Advice) {
    let Some(i) = m
        .listed_findings()
        .iter()
        .position(|x| std::ptr::eq(*x, ptr))
    else {
        return;
    };
    if !m.findings.rows.contains(&i) {
        m.findings.severity = None;
        m.findings.rule = None;
        findings::rebuild(m);
    }
    m.findings.sel = m.findings.rows.iter().position(|&r| r == i).unwrap_or(0);
}

/// `c`: from the selected finding to its collection, on the Schema tab at
/// the field the finding names (the navigator selects the collection).
pub(crate) fn collection(m: &mut Model) {
    let lang = m.lang;
    let shown = layout::shown(m) == Shown::Findings;
    let Some(f) = m.selected_finding().filter(|_| shown) else {
        let msg = lang.pick(
            "select a finding first (Findings tab, or All findings)",
            "请先选择一个问题（问题标签页，或全部问题）",
        );
        status(m, Level::Warning, msg);
        return;
    };
    let (ns, path) = (f.namespace.clone(), f.path.clone().unwrap_or_default());
    if !nav::select_namespace(m, &ns) {
        let msg = match lang {
            Lang::En => format!("this finding is about {ns}, not about one collection read"),
            Lang::Zh => format!("这个问题关于 {ns}，不属于某个已读取的集合"),
        };
        status(m, Level::Info, msg);
        return;
    }
    m.nav.tab_before_summary = None;
    set_tab(m, Tab::Schema);
    let want = path.replace("[]", "");
    if let Some(c) = m.collection() {
        if let Some(row) = m
            .schema
            .rows
            .iter()
            .position(|&fi| !want.is_empty() && c.fields[fi].path.replace("[]", "") == want)
        {
            m.schema.sel = row;
        }
    }
    let msg = match (lang, want.is_empty()) {
        (Lang::En, true) => format!("opened {ns}"),
        (Lang::En, false) => format!("opened {ns} at {want}"),
        (Lang::Zh, true) => format!("已打开 {ns}"),
        (Lang::Zh, false) => format!("已打开 {ns}，定位到 {want}"),
    };
    status(m, Level::Info, msg);
}
