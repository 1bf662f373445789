//! The Workload tab: the query shapes read with `--workload`, by total
//! time — on a collection its own, on a database or the overview all of
//! theirs — each with its runs, times, documents examined per document
//! returned, plans, the findings it led to and the index they suggest.
//! Enter opens the shape's finding on the Findings tab.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::widgets::{block, fit};
use crate::advise::Advice;
use crate::fmt::group;
use crate::i18n::Lang;
use crate::rules::remedy::Remedy;
use crate::tui::keymap::Action;
use crate::tui::layout::{inner, offset, pad, split};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;
use crate::workload::Shape;

/// The shape as people read it: its filter (or pipeline), sort and update.
pub fn shape_text(s: &Shape) -> String {
    let label = crate::rules::shapes::label(s);
    label
        .strip_prefix(s.op.as_str())
        .unwrap_or(&label)
        .trim_start()
        .to_owned()
}

/// Milliseconds, grouped.
fn ms(n: u64) -> String {
    format!("{} ms", group(n))
}

/// The plans a shape ran with, most used first (`COLLSCAN ×150`).
fn plans(s: &Shape) -> Vec<(String, u64)> {
    let mut p: Vec<(String, u64)> = s
        .plans
        .iter()
        .map(|(k, n)| (crate::report::text::safe(k), *n))
        .collect();
    p.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    p
}

/// The index a finding proposes, as a key (`{status: 1, at: -1}`).
pub fn suggested_index(f: &Advice, lang: Lang) -> Option<String> {
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

/// One list row: each cell cut or padded to its width, numbers on the right.
fn row(cells: &[(&str, usize, bool)]) -> String {
    let mut out = String::new();
    for (i, (text, w, right)) in cells.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let t = fit(text, *w);
        if *right {
            out.push_str(&" ".repeat(w.saturating_sub(crate::fmt::display_width(&t))));
            out.push_str(&t);
        } else {
            out.push_str(&pad(&t, *w));
        }
    }
    out
}

/// The columns shown at a list width `w`: the shape gets what is left.
struct Columns {
    op: usize,
    shape: usize,
    wide: bool,
    plan: usize,
}

fn columns(w: usize) -> Columns {
    let wide = w >= 76;
    let plan = if w >= 110 { 20 } else { 0 };
    let op = 8;
    // badge, op, runs (7), total (11), and when wide p95 (9) and ex/ret (9).
    let p95_ratio = if wide { 1 + 9 + 1 + 9 } else { 0 };
    let plan_w = if plan > 0 { 1 + plan } else { 0 };
    let fixed = 2 + op + 1 + 7 + 1 + 11 + p95_ratio + plan_w;
    Columns {
        op,
        shape: w.saturating_sub(fixed + 1).max(6),
        wide,
        plan,
    }
}

fn cells<'a>(
    c: &Columns,
    op: &'a str,
    shape: &'a str,
    nums: [&'a str; 4],
    plan: &'a str,
) -> Vec<(&'a str, usize, bool)> {
    let [runs, total, p95, ratio] = nums;
    let mut v = vec![
        (op, c.op, false),
        (shape, c.shape, false),
        (runs, 7, true),
        (total, 11, true),
    ];
    if c.wide {
        v.push((p95, 9, true));
        v.push((ratio, 9, true));
    }
    if c.plan > 0 {
        v.push((plan, c.plan, false));
    }
    v
}

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let lang = m.lang;
    let focused = m.focus == Pane::Main;
    let Some(w) = m.report.as_ref().and_then(|r| r.workload.as_ref()) else {
        let text = lang.pick(
            "No workload read: start docshape with --workload LOG (mongod JSON log files, a .gz or a directory of them) to see the query shapes here.",
            "没有读取负载：用 --workload LOG（mongod 的 JSON 日志文件、.gz 文件或其所在目录）启动 docshape，即可在此看到查询形状。",
        );
        f.render_widget(
            Paragraph::new(Line::styled(text, theme.text()))
                .wrap(Wrap { trim: false })
                .block(block(
                    format!(" {} ", lang.pick("Workload", "负载")),
                    focused,
                    theme,
                )),
            area,
        );
        return;
    };
    let total_ms: u64 = w.shapes.iter().map(|s| s.ms.total).sum();
    let shapes = m.shapes();
    let (list, detail) = split(area);
    f.render_widget(
        block(
            lang.pick(
                format!(" Query shapes ({}) ", group(shapes.len() as u64)),
                format!(" 查询形状（{}） ", group(shapes.len() as u64)),
            ),
            focused,
            theme,
        ),
        list,
    );
    let sel = m.workload.sel.min(shapes.len().saturating_sub(1));
    render_list(m, theme, f, list, (&shapes, sel, w.shapes.len()));
    let Some(&(rank, s)) = shapes.get(sel) else {
        f.render_widget(
            block(format!(" {} ", lang.pick("Shape", "形状")), false, theme),
            detail,
        );
        return;
    };
    render_detail(m, theme, f, detail, (rank, s, total_ms));
}

/// The shapes listed, `sel` selected, `all` the workload's count.
fn render_list(
    m: &Model,
    theme: &Theme,
    f: &mut Frame,
    list: Rect,
    (shapes, sel, all): (&[(usize, &Shape)], usize, usize),
) {
    let lang = m.lang;
    let summary = m.is_summary();
    let inside = inner(list);
    let lw = usize::from(inside.width);
    let h = usize::from(inside.height.saturating_sub(1));
    let cols = columns(lw);
    let head = row(&cells(
        &cols,
        lang.pick("op", "操作"),
        lang.pick("shape", "形状"),
        [
            lang.pick("runs", "次数"),
            lang.pick("total", "总耗时"),
            "p95",
            lang.pick("ex/ret", "检查/返回"),
        ],
        lang.pick("plan", "执行计划"),
    ));
    let mut lines = vec![Line::styled(fit(&format!("  {head}"), lw), theme.dim())];
    let off = offset(sel, shapes.len(), h);
    for (i, (rank, s)) in shapes.iter().enumerate().skip(off).take(h) {
        let worst = m.shape_findings(*rank).first().map(|f| f.severity);
        let mut what = shape_text(s);
        if summary {
            what = format!("{} {what}", crate::report::text::safe(&s.namespace));
        }
        let (runs, total, p95, ratio) = (
            group(s.count),
            ms(s.ms.total),
            ms(s.ms.p95),
            s.examined_per_returned(),
        );
        let plan = plans(s).first().map(|p| p.0.clone()).unwrap_or_default();
        let text = row(&cells(
            &cols,
            &s.op,
            &what,
            [runs.as_str(), total.as_str(), p95.as_str(), ratio.as_str()],
            &plan,
        ));
        let mut l = Line::from(vec![
            Span::styled(
                super::widgets::badge(worst),
                worst.map_or_else(|| theme.dim(), |s| theme.severity(s)),
            ),
            Span::styled(fit(&format!(" {text}"), lw.saturating_sub(1)), theme.text()),
        ]);
        if i == sel {
            l = l.style(theme.selected());
        }
        lines.push(l);
    }
    if shapes.is_empty() {
        let text = lang.pick(
            format!(
                "No query shape of the workload ran here ({} shapes in all).",
                group(all as u64)
            ),
            format!(
                "负载中没有在此运行的查询形状（共 {} 种）。",
                group(all as u64)
            ),
        );
        for l in crate::fmt::wrap(&text, lw) {
            lines.push(Line::styled(l, theme.dim()));
        }
    }
    f.render_widget(Paragraph::new(lines), inside);
}

/// The selected shape (rank `rank`) in detail; `total_ms` the workload's.
fn render_detail(
    m: &Model,
    theme: &Theme,
    f: &mut Frame,
    detail: Rect,
    (rank, s, total_ms): (usize, &Shape, u64),
) {
    let lang = m.lang;
    f.render_widget(
        block(
            format!(" {} · {} ", s.op, crate::report::text::safe(&s.namespace)),
            false,
            theme,
        ),
        detail,
    );
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
            format!("{} {}", fd.severity.name(), fd.rule),
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
        d.extend(super::widgets::message_lines(fd, dw, theme));
        d.push(Line::styled(format!("{:8} {}", "", fd.rule), theme.dim()));
    }
    let offsets = super::widgets::detail_offsets(m, &d, dinside);
    f.render_widget(Paragraph::new(d).scroll(offsets), dinside);
}
