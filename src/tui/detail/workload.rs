//! The Workload tab's detail: the selected query shape's runs, times,
//! documents examined per document returned, plans, the findings it led to
//! and the index they suggest.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::advise::Advice;
use crate::fmt::group;
use crate::i18n::Lang;
use crate::rules::remedy::Remedy;
use crate::tui::keymap::Action;
use crate::tui::layout::{inner, pad};
use crate::tui::model::Model;
use crate::tui::theme::Theme;
use crate::workload::Shape;

/// The shape as people read it: its filter (or pipeline), sort and update.
pub(crate) fn shape_text(s: &Shape) -> String {
    let label = crate::rules::shapes::label(s);
    label
        .strip_prefix(s.op.as_str())
        .unwrap_or(&label)
        .trim_start()
        .to_owned()
}

/// Milliseconds, grouped.
pub(crate) fn ms(n: u64) -> String {
    format!("{} ms", group(n))
}

/// The plans a shape ran with, most used first (`COLLSCAN ×150`).
pub(crate) fn plans(s: &Shape) -> Vec<(String, u64)> {
    let mut p: Vec<(String, u64)> = s
        .plans
        .iter()
        .map(|(k, n)| (crate::report::text::safe(k), *n))
        .collect();
    p.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    p
}

/// The index a finding proposes, as a key (`{status: 1, at: -1}`).
pub(crate) fn suggested_index(f: &Advice, lang: Lang) -> Option<String> {
    match &f.remedy {
        Remedy::EsrIndex { keys, .. } => Some(crate::rules::shapes::show_keys(keys)),
        Remedy::CreateIndex { keys } => Some(format!("{{{keys}: 1}}")),
        Remedy::CollationIndex { field } => Some(lang.pick(
            format!("{{{field}: 1}} with a case-insensitive collation (strength 2)"),
            format!("{{{field}: 1}}，不区分大小写的排序规则（strength 2）"),
        )),
        Remedy::HotLookup {
            from,
            foreign: Some(k),
            embed: false,
            ..
        } => Some(lang.pick(
            format!("{{{k}: 1}} on {from}"),
            format!("{from} 上的 {{{k}: 1}}"),
        )),
        _ => f
            .suggestion
            .after
            .as_ref()
            .and_then(|a| a.get("createIndex"))
            .map(ToString::to_string),
    }
}

/// The selected shape's detail (rank `rank`; `total_ms` the workload's):
/// its lines, and the part of `detail` they are drawn in.
pub fn text<'a>(
    m: &'a Model,
    theme: &Theme,
    detail: Rect,
    (rank, s, total_ms): (usize, &'a Shape, u64),
) -> Option<(Vec<Line<'a>>, Rect)> {
    let lang = m.lang;
    let dinside = inner(detail);
    let dw = usize::from(dinside.width);
    // A label and its value, wrapped under the value's column.
    let kv = |k: &str, v: String| -> Vec<Line<'static>> {
        crate::fmt::wrap(&v, dw.saturating_sub(12))
            .into_iter()
            .enumerate()
            .map(|(i, part)| {
                Line::from(vec![
                    Span::styled(pad(if i == 0 { k } else { "" }, 12), theme.dim()),
                    Span::styled(part, theme.text()),
                ])
            })
            .collect()
    };
    let json = |v: &serde_json::Value| v.to_string();
    let mut d = Vec::new();
    for (k, v) in [
        (lang.pick("filter", "筛选"), &s.filter),
        (lang.pick("sort", "排序"), &s.sort),
        (lang.pick("projection", "投影"), &s.projection),
        (lang.pick("pipeline", "管道"), &s.pipeline),
        (lang.pick("update", "更新"), &s.update),
    ] {
        if let Some(v) = v {
            d.extend(kv(k, json(v)));
        }
    }
    // What the shape led to first: the rule and the index it proposes.
    let found = m.shape_findings(rank);
    for fd in &found {
        d.extend(kv(
            lang.pick("finding", "问题"),
            format!("{} {}", fd.severity.label(lang), fd.rule),
        ));
        if let Some(ix) = suggested_index(fd, lang) {
            d.extend(kv(lang.pick("index", "建议索引"), ix));
        }
    }
    if !found.is_empty() {
        let key = m.keymap.first_label(Action::Toggle);
        d.extend(kv(
            "",
            lang.pick(
                format!("{key} opens it on the Findings tab"),
                format!("{key} 在问题标签页打开它"),
            ),
        ));
    }
    d.extend(kv(
        lang.pick("runs", "次数"),
        crate::rules::shapes::cost(s, total_ms, lang),
    ));
    d.extend(kv(
        lang.pick("time", "耗时"),
        format!(
            "p50 {} · p95 {} · max {}",
            ms(s.ms.p50),
            ms(s.ms.p95),
            ms(s.ms.max)
        ),
    ));
    if s.examined_recorded() {
        d.extend(kv(
            lang.pick("examined", "检查"),
            lang.pick(
                format!(
                    "{} documents, {} keys; {} returned",
                    group(s.docs_examined),
                    group(s.keys_examined),
                    group(s.nreturned)
                ),
                format!(
                    "{} 个文档，{} 个索引键；返回 {} 个",
                    group(s.docs_examined),
                    group(s.keys_examined),
                    group(s.nreturned)
                ),
            ),
        ));
        d.extend(kv(
            "",
            lang.pick(
                format!(
                    "documents examined per document returned: {}",
                    s.examined_per_returned()
                ),
                format!("每返回一个文档检查 {} 个文档", s.examined_per_returned()),
            ),
        ));
    } else {
        d.extend(kv(
            lang.pick("examined", "检查"),
            lang.pick(
                format!(
                    "not recorded: the profiler named no plan for these runs; the plan is what explain says the server chooses now ({} returned)",
                    group(s.nreturned)
                ),
                format!(
                    "未记录：性能分析器没有记录这些运行的执行计划；计划来自 explain，即服务器现在会选择的计划（返回 {} 个）",
                    group(s.nreturned)
                ),
            ),
        ));
    }
    if s.in_memory_sorts > 0 {
        d.extend(kv(
            lang.pick("sorts", "排序"),
            lang.pick(
                format!("{} in memory", group(s.in_memory_sorts)),
                format!("{} 次在内存中排序", group(s.in_memory_sorts)),
            ),
        ));
    }
    for (i, (p, n)) in plans(s).into_iter().enumerate() {
        let k = if i == 0 {
            lang.pick("plans", "执行计划")
        } else {
            ""
        };
        d.extend(kv(k, format!("{p} ×{}", group(n))));
    }
    d.push(Line::default());
    d.push(Line::styled(
        lang.pick("Findings from this shape", "这个查询形状引出的问题"),
        theme.title(),
    ));
    if found.is_empty() {
        d.push(Line::styled(lang.pick("  none", "  无"), theme.dim()));
    }
    for fd in &found {
        d.extend(super::parts::message_lines(fd, dw, theme, lang));
        d.push(Line::styled(format!("{:8} {}", "", fd.rule), theme.dim()));
    }
    Some((d, dinside))
}

/// The selected shape, its rank, and the workload's total time: what the
/// detail shows.
pub(crate) fn selected(m: &Model) -> Option<(usize, &Shape, u64)> {
    let w = m.report.as_ref()?.workload.as_ref()?;
    let total_ms: u64 = w.shapes.iter().map(|s| s.ms.total).sum();
    let shapes = m.shapes();
    let sel = m.workload.sel.min(shapes.len().saturating_sub(1));
    let &(rank, s) = shapes.get(sel)?;
    Some((rank, s, total_ms))
}
