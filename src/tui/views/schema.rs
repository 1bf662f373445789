//! The Schema tab: the field tree with a stacked type bar, presence and
//! array lengths per field, and the selected field's detail.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph};
use ratatui::Frame;

use super::widgets::block;
use crate::profile::sketch::LogHistogram;
use crate::profile::{FieldProfile, Seg};
use crate::tui::detail::parts::fit;
use crate::tui::detail::schema::{presence, short, type_letter};
use crate::tui::layout::{inner, offset, split};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

const BAR_W: usize = 10;

pub(crate) fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(c) = m.collection() else { return };
    let (list, detail) = split(area);
    let fields = m.lang.pick("Fields", "字段");
    let title = if m.schema.filter.is_empty() {
        format!(" {fields} ({}) ", c.fields.len())
    } else {
        format!(
            " {fields} /{} ({} / {}) ",
            m.schema.filter,
            m.schema.rows.len(),
            c.fields.len()
        )
    };
    f.render_widget(block(title, m.focus == Pane::Main, theme), list);
    let inside = inner(list);
    let w = usize::from(inside.width);
    let h = usize::from(inside.height.saturating_sub(1));
    let lang = m.lang;
    let rows: Vec<(&FieldProfile, String)> = m
        .schema
        .rows
        .iter()
        .map(|&fi| (&c.fields[fi], field_label(m, c, fi)))
        .collect();
    let presences: Vec<String> = rows.iter().map(|(fp, _)| presence(fp)).collect();
    let arrays: Vec<String> = rows
        .iter()
        .map(|(fp, _)| {
            fp.array
                .as_ref()
                .map(|a| format!("{}/{}", a.p50, a.max))
                .unwrap_or_default()
        })
        .collect();
    let heads = [
        lang.pick("field", "字段"),
        lang.pick("types", "类型"),
        lang.pick("presence", "出现率"),
        lang.pick("arr p50/max", "数组 p50/最大"),
    ];
    let widths = columns(&rows, &presences, &arrays, heads, w);
    let cell = crate::fmt::cell;
    let mut header = format!(
        "{} {} {}",
        cell(heads[0], widths[0], false),
        cell(heads[1], widths[1], false),
        cell(heads[2], widths[2], true),
    );
    if let Some(&arr_w) = widths.get(3) {
        header.push(' ');
        header.push_str(&cell(heads[3], arr_w, true));
    }
    let mut lines = Vec::with_capacity(h + 1);
    lines.push(Line::styled(fit(&header, w), theme.dim()));
    let off = offset(m.schema.sel, m.schema.rows.len(), h);
    for (r, (fp, text)) in rows.iter().enumerate().skip(off).take(h) {
        let mut spans = vec![Span::styled(
            format!("{} ", cell(text, widths[0], false)),
            theme.text(),
        )];
        spans.extend(type_bar(fp, widths[1], theme));
        spans.push(Span::styled(
            format!(" {}", cell(&presences[r], widths[2], true)),
            if fp.presence < 0.999 {
                theme.fg("type.number")
            } else {
                theme.text()
            },
        ));
        if let Some(&arr_w) = widths.get(3) {
            spans.push(Span::styled(
                format!(" {}", cell(&arrays[r], arr_w, true)),
                theme.dim(),
            ));
        }
        let mut line = Line::from(spans);
        if r == m.schema.sel {
            line = line.style(theme.selected());
        }
        lines.push(line);
    }
    if m.schema.rows.is_empty() {
        lines.push(Line::styled("no field matches", theme.dim()));
    }
    f.render_widget(Paragraph::new(lines), inside);
    render_detail(m, theme, f, detail);
}

/// The field's row label: indented under its parent with a fold marker,
/// or its whole path while the list is filtered.
fn field_label(m: &Model, c: &crate::report::CollectionReport, fi: usize) -> String {
    let fp = &c.fields[fi];
    let has_kids = c
        .fields
        .get(fi + 1)
        .is_some_and(|n| n.segments.len() > fp.segments.len());
    let marker = if !has_kids {
        "  "
    } else if m.schema.collapsed.contains(&fp.path) {
        "▸ "
    } else {
        "▾ "
    };
    if !m.schema.filter.is_empty() {
        return format!("{marker}{}", fp.path);
    }
    let label = match fp.segments.last() {
        Some(Seg::Elem) => "[]",
        _ => fp.name.as_str(),
    };
    let indent = "  ".repeat(fp.segments.len().saturating_sub(1));
    format!("{indent}{marker}{label}")
}

/// The widths of the field, type bar, presence and (when there is room)
/// array columns in `w` cells: from their content, the presences whole,
/// the names cut first and given what is left.
fn columns(
    rows: &[(&FieldProfile, String)],
    presences: &[String],
    arrays: &[String],
    heads: [&str; 4],
    w: usize,
) -> Vec<usize> {
    use crate::fmt::{column_widths, Column};
    let name = Column::of(
        std::iter::once(heads[0]).chain(rows.iter().map(|r| r.1.as_str())),
        8,
    );
    let bar = Column {
        want: BAR_W.max(crate::fmt::display_width(heads[1])),
        min: BAR_W.min(crate::fmt::display_width(heads[1]).max(4)),
    };
    let pres = Column::whole(std::iter::once(heads[2]).chain(presences.iter().map(String::as_str)));
    let arr = Column::whole(std::iter::once(heads[3]).chain(arrays.iter().map(String::as_str)));
    let has_arrays = arrays.iter().any(|a| !a.is_empty());
    if has_arrays && name.min.max(12) + bar.want + pres.want + arr.want + 3 <= w {
        return column_widths(&[name, bar, pres, arr], w, 1, Some(0));
    }
    column_widths(&[name, bar, pres], w, 1, Some(0))
}

/// The field's types as one bar, each type's share in its colour (or its
/// letter under `NO_COLOR`).
pub(crate) fn type_bar(fp: &FieldProfile, width: usize, theme: &Theme) -> Vec<Span<'static>> {
    let total: u64 = fp.types.iter().map(|t| t.1).sum();
    if total == 0 {
        return vec![Span::raw(" ".repeat(width))];
    }
    // Largest remainder, every present type at least one cell when it fits.
    let mut cells: Vec<(usize, f64)> = fp
        .types
        .iter()
        .map(|t| {
            let exact = t.1 as f64 / total as f64 * width as f64;
            (exact.floor() as usize, exact - exact.floor())
        })
        .collect();
    let mut used: usize = cells.iter().map(|c| c.0).sum();
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by(|&a, &b| cells[b].1.total_cmp(&cells[a].1));
    for &i in &order {
        if used >= width {
            break;
        }
        if cells[i].0 == 0 || cells[i].1 > 0.0 {
            cells[i].0 += 1;
            used += 1;
        }
    }
    while used > width {
        if let Some(i) = (0..cells.len()).max_by_key(|&i| cells[i].0) {
            cells[i].0 -= 1;
            used -= 1;
        }
    }
    let mut spans = Vec::new();
    for (t, (n, _)) in fp.types.iter().zip(cells) {
        if n == 0 {
            continue;
        }
        let ch = if theme.no_color {
            type_letter(t.0)
        } else {
            '█'
        };
        spans.push(Span::styled(
            ch.to_string().repeat(n),
            Style::default().fg(theme.bson_type(t.0)),
        ));
    }
    if used < width {
        spans.push(Span::raw(" ".repeat(width - used)));
    }
    spans
}

fn render_detail(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(c) = m.collection() else { return };
    let Some(fp) = m.selected_field() else {
        f.render_widget(
            block(
                format!(" {} ", m.lang.pick("Field", "字段")),
                m.focus == Pane::Detail,
                theme,
            ),
            area,
        );
        return;
    };
    let b = block(format!(" {} ", fp.path), m.focus == Pane::Detail, theme);
    let inside = inner(area);
    f.render_widget(b, area);
    let chart_h = if inside.height >= 14 { 7 } else { 0 };
    let [_, chart_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(chart_h)]).areas(inside);
    let Some((lines, text_area)) = crate::tui::detail::schema::text(m, theme, area) else {
        return;
    };
    let lang = m.lang;
    let offsets = crate::tui::layout::detail_offsets(&m.detail, &lines, text_area);
    f.render_widget(Paragraph::new(lines).scroll(offsets), text_area);
    if chart_h > 0 {
        let (title, hist) = match &fp.array_lengths {
            Some(h) => (lang.pick(" array lengths ", " 数组长度 "), h),
            None => (
                lang.pick(" document sizes (bytes) ", " 文档大小（字节） "),
                &c.profile.doc_sizes,
            ),
        };
        histogram(title, hist, theme, f, chart_area);
    }
}

/// A `LogHistogram` as a bar chart; adjacent bins merge until they fit.
pub(crate) fn histogram(title: &str, h: &LogHistogram, theme: &Theme, f: &mut Frame, area: Rect) {
    let bins = h.bins_at_most(usize::from(area.width.saturating_sub(2)) / 6);
    let bars: Vec<Bar> = bins
        .iter()
        .map(|(lo, _, n)| {
            Bar::default()
                .value(*n)
                .label(Line::from(short(*lo)))
                .text_value(short(*n))
        })
        .collect();
    let chart = BarChart::default()
        .block(block(title.to_owned(), false, theme))
        .bar_width(5)
        .bar_gap(1)
        .bar_style(theme.fg("chart.bar"))
        .value_style(theme.status())
        .label_style(theme.dim())
        .data(BarGroup::default().bars(&bars));
    f.render_widget(chart, area);
}
