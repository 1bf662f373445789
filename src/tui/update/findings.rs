//! The Findings tab (and the overview's and a database's list): moving,
//! the severity and rule filters, and a finding's migration script copied
//! or written.

use std::path::PathBuf;

use crate::i18n::Lang;
use crate::rules::Severity;

use super::super::effects::Effect;
use super::super::keymap::Action;
use super::super::model::{Level, Model, Tab};
use super::common::{common, moved, page, set_tab, status};

/// A key for the Findings tab.
pub fn action(m: &mut Model, a: Action) -> Vec<Effect> {
    match a {
        a if a.is_move() => {
            let s = moved(m.findings.sel, m.findings.rows.len(), a, page(m));
            if s != m.findings.sel {
                m.detail.reset();
            }
            m.findings.sel = s;
            Vec::new()
        }
        _ => common(m, a),
    }
}

/// `s` / `f`: the next severity or rule filter, on the Findings tab.
pub(crate) fn cycle_filter(m: &mut Model, a: Action) {
    if a == Action::SeverityFilter {
        m.findings.severity = match m.findings.severity {
            None => Some(Severity::Critical),
            Some(Severity::Critical) => Some(Severity::Warning),
            Some(Severity::Warning) => Some(Severity::Info),
            Some(Severity::Info) => None,
        };
    } else {
        let mut rules: Vec<&'static str> = m.listed_findings().iter().map(|f| f.rule).collect();
        rules.sort_unstable();
        rules.dedup();
        m.findings.rule = match m
            .findings
            .rule
            .and_then(|r| rules.iter().position(|x| *x == r))
        {
            None => rules.first().copied(),
            Some(i) => rules.get(i + 1).copied(),
        };
    }
    m.findings.sel = 0;
    rebuild(m);
    set_tab(m, Tab::Findings);
}

/// `y` / `w`: the selected finding's migration script copied (OSC 52) or
/// written to a new file, the finding named in the status line.
pub fn script(m: &mut Model, a: Action) -> Vec<Effect> {
    let lang = m.lang;
    let Some(f) = m.selected_finding() else {
        let msg = lang.pick(
            "select a finding first (Findings tab)",
            "请先选择一个问题（问题标签页）",
        );
        status(m, Level::Warning, msg);
        return Vec::new();
    };
    let script = f.suggestion.migration.clone();
    let name = script_name(&f.namespace, f.rule);
    if script.trim().is_empty() {
        let msg = lang.pick(
            "this finding has no migration script",
            "这个问题没有迁移脚本",
        );
        status(m, Level::Warning, msg);
        return Vec::new();
    }
    // Named in the status line: on the Schema tab the finding is the
    // selected field's, which the user may not have looked at.
    let what = match (&f.path, lang) {
        (Some(p), Lang::En) if !p.is_empty() => format!("{} at {p}", f.rule),
        (Some(p), Lang::Zh) if !p.is_empty() => format!("{p} 上的 {}", f.rule),
        (_, Lang::En) => format!("{} on {}", f.rule, f.namespace),
        (_, Lang::Zh) => format!("{} 上的 {}", f.namespace, f.rule),
    };
    vec![if a == Action::Copy {
        let what = match lang {
            Lang::En => format!("the script of {what}"),
            Lang::Zh => format!("{what} 的脚本"),
        };
        Effect::Copy { text: script, what }
    } else {
        Effect::WriteFile {
            path: PathBuf::from(name),
            contents: script,
            what,
        }
    }]
}

/// A new collection: the first finding, no rule filter (the severity
/// filter stays).
pub(crate) fn collection_changed(m: &mut Model) {
    m.findings.sel = 0;
    m.findings.rule = None;
    rebuild(m);
}

/// [`rebuild`] as the list grows: the selected finding (by rule,
/// collection and path) stays selected wherever it moves.
pub(crate) fn rebuild_keeping(m: &mut Model) {
    let key = |f: &crate::rules::Finding| (f.rule, f.namespace.clone(), f.path.clone());
    let selected = {
        let all = m.listed_findings();
        m.findings
            .rows
            .get(m.findings.sel)
            .and_then(|&i| all.get(i))
            .map(|f| key(f))
    };
    rebuild(m);
    if let Some(sel) = selected {
        let all = m.listed_findings();
        if let Some(r) = m.findings.rows.iter().position(|&i| key(all[i]) == sel) {
            m.findings.sel = r;
        }
    }
}

/// The listed findings: filtered, worst first.
pub(crate) fn rebuild(m: &mut Model) {
    let all = m.listed_findings();
    let mut rows: Vec<usize> = (0..all.len())
        .filter(|&i| m.findings.severity.is_none_or(|s| all[i].severity == s))
        .filter(|&i| m.findings.rule.is_none_or(|r| all[i].rule == r))
        .collect();
    rows.sort_by(|&a, &b| all[b].severity.cmp(&all[a].severity).then(a.cmp(&b)));
    m.findings.rows = rows;
    m.findings.sel = m.findings.sel.min(m.findings.rows.len().saturating_sub(1));
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
