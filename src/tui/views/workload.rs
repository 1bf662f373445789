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
use crate::tui::layout::{inner, offset, split};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;
use crate::workload::Shape;

/// The list's columns shown at a list width `w`: the operation, the shape,
/// runs and total time, then, when wide, p95 and documents examined per
/// returned, and wider still the plan. Numbers are right-aligned.
const COLUMNS: [(bool, Option<usize>); 7] = [
    (false, None),
    (false, None),
    (true, None),
    (true, None),
    (true, Some(76)),
    (true, Some(76)),
    (false, Some(110)),
];

/// Which columns show at `w`, and their widths from the header and rows
/// given: the numbers whole, the shape (then the plan) cut in its middle
/// first and given the room left.
fn widths(head: &[&str; 7], rows: &[[String; 7]], w: usize) -> Vec<Option<usize>> {
    use crate::fmt::{column_widths, Column};
    let shown: Vec<usize> = (0..7)
        .filter(|&i| COLUMNS[i].1.is_none_or(|from| w >= from))
        .collect();
    let cols: Vec<Column> = shown
        .iter()
        .map(|&i| {
            let texts = std::iter::once(head[i]).chain(rows.iter().map(|r| r[i].as_str()));
            match i {
                1 => Column::of(texts, 12),
                6 => Column::of(texts, 8),
                _ => Column::whole(texts),
            }
        })
        .collect();
    let got = column_widths(&cols, w, 1, Some(1));
    let mut out = vec![None; 7];
    for (&i, cw) in shown.iter().zip(got) {
        out[i] = Some(cw);
    }
    out
}

/// One list row: each cell cut in its middle or padded to its width.
fn row(cells: [&str; 7], widths: &[Option<usize>]) -> String {
    cells
        .iter()
        .zip(widths)
        .zip(COLUMNS)
        .filter_map(|((t, w), (right, _))| w.map(|w| crate::fmt::cell(t, w, right)))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
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
    let head = [
        lang.pick("op", "操作"),
        lang.pick("shape", "形状"),
        lang.pick("runs", "次数"),
        lang.pick("total", "总耗时"),
        "p95",
        lang.pick("ex/ret", "检查/返回"),
        lang.pick("plan", "执行计划"),
    ];
    let rows: Vec<[String; 7]> = shapes
        .iter()
        .map(|(_, s)| {
            let mut what = shape_text(s);
            if summary {
                what = format!("{} {what}", crate::report::text::safe(&s.namespace));
            }
            [
                s.op.clone(),
                what,
                group(s.count),
                ms(s.ms.total),
                ms(s.ms.p95),
                s.examined_per_returned(),
                plans(s).first().map(|p| p.0.clone()).unwrap_or_default(),
            ]
        })
        .collect();
    // The badge and a space before each row.
    let widths = widths(&head, &rows, lw.saturating_sub(2));
    let mut lines = vec![Line::styled(
        fit(&format!("  {}", row(head, &widths)), lw),
        theme.dim(),
    )];
    let off = offset(sel, shapes.len(), h);
    for (i, ((rank, _), cells)) in shapes.iter().zip(&rows).enumerate().skip(off).take(h) {
        let worst = m.shape_findings(*rank).first().map(|f| f.severity);
        let text = row(
            [
                &cells[0], &cells[1], &cells[2], &cells[3], &cells[4], &cells[5], &cells[6],
            ],
            &widths,
        );
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
