//! The Workload tab: the query shapes read with `--workload`, by total
//! time — on a collection its own, on a database or the overview all of
//! theirs — each with its runs, times, documents examined per document
//! returned, plans, the findings it led to and the index they suggest.
//! Enter opens the shape's finding on the Findings tab.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

use super::widgets::block;
use crate::fmt::group;
use crate::tui::detail::parts::fit;
use crate::tui::detail::workload::{ms, plans, shape_text};
use crate::tui::layout::{inner, offset, pad, split};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;
use crate::workload::Shape;

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
    let Some(selected) = crate::tui::detail::workload::selected(m) else {
        f.render_widget(
            block(
                format!(" {} ", lang.pick("Shape", "形状")),
                m.focus == Pane::Detail,
                theme,
            ),
            detail,
        );
        return;
    };
    render_detail(m, theme, f, detail, selected);
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
    f.render_widget(
        block(
            format!(" {} · {} ", s.op, crate::report::text::safe(&s.namespace)),
            m.focus == Pane::Detail,
            theme,
        ),
        detail,
    );
    let Some((d, dinside)) =
        crate::tui::detail::workload::text(m, theme, detail, (rank, s, total_ms))
    else {
        return;
    };
    let offsets = crate::tui::layout::detail_offsets(&m.detail, &d, dinside);
    f.render_widget(Paragraph::new(d).scroll(offsets), dinside);
}
