//! The Schema tab: the field tree with a stacked type bar, presence and
//! array lengths per field, and the selected field's detail.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Paragraph};
use ratatui::Frame;

use super::widgets::{block, fit, human_count};
use crate::profile::raw::BsonType;
use crate::profile::sketch::LogHistogram;
use crate::profile::{FieldProfile, Seg};
use crate::tui::layout::{inner, offset, split};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

const BAR_W: usize = 10;

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
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
    let pres_w = 11;
    let arr_w = if w >= 60 { 12 } else { 0 };
    let name_w = w.saturating_sub(BAR_W + pres_w + arr_w + 2);
    let mut lines = Vec::with_capacity(h + 1);
    let lang = m.lang;
    let presence_label = lang.pick("presence", "出现率");
    let mut header = format!(
        "{} {} {}{presence_label}",
        crate::tui::layout::pad(lang.pick("field", "字段"), name_w),
        crate::tui::layout::pad(lang.pick("types", "类型"), BAR_W),
        " ".repeat(pres_w.saturating_sub(crate::fmt::display_width(presence_label)))
    );
    if arr_w > 0 {
        header.push_str(lang.pick("  arr p50/max", "  数组 p50/最大"));
    }
    lines.push(Line::styled(fit(&header, w), theme.dim()));
    let off = offset(m.schema.sel, m.schema.rows.len(), h);
    for (r, &fi) in m.schema.rows.iter().enumerate().skip(off).take(h) {
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
        let label = match fp.segments.last() {
            Some(Seg::Elem) => "[]".to_owned(),
            _ => fp.name.clone(),
        };
        let indent = if m.schema.filter.is_empty() {
            "  ".repeat(fp.segments.len().saturating_sub(1))
        } else {
            String::new()
        };
        let text = if m.schema.filter.is_empty() {
            format!("{indent}{marker}{label}")
        } else {
            format!("{marker}{}", fp.path)
        };
        let mut spans = vec![Span::styled(
            format!("{:<name_w$} ", fit(&text, name_w)),
            theme.text(),
        )];
        spans.extend(type_bar(fp, BAR_W, theme));
        spans.push(Span::styled(
            format!(" {:>pres_w$}", presence(fp)),
            if fp.presence < 0.999 {
                theme.fg("type.number")
            } else {
                theme.text()
            },
        ));
        if arr_w > 0 {
            let a = fp
                .array
                .as_ref()
                .map(|a| format!("{}/{}", a.p50, a.max))
                .unwrap_or_default();
            spans.push(Span::styled(format!(" {a:>11}"), theme.dim()));
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

fn presence(fp: &FieldProfile) -> String {
    let p = crate::fmt::percent(fp.presence);
    match fp.presence_ci {
        Some([lo, hi]) => {
            let half = ((hi - lo) * 50.0).round();
            if half >= 1.0 {
                format!("{p} ±{half:.0}")
            } else {
                p
            }
        }
        None => p,
    }
}

/// Columns of an example value shown at most (`<` `>` scroll to them).
const EXAMPLE_COLUMNS: usize = 400;

/// The letter a type's share is drawn with under `NO_COLOR`, one per type
/// so no two read alike (`o` object, `O` ObjectId, `d` double, `D`
/// decimal, `t` date, `T` timestamp …).
pub fn type_letter(t: BsonType) -> char {
    match t {
        BsonType::Double => 'd',
        BsonType::Decimal => 'D',
        BsonType::Int => 'i',
        BsonType::Long => 'l',
        BsonType::String => 's',
        BsonType::Symbol => 'S',
        BsonType::Object => 'o',
        BsonType::ObjectId => 'O',
        BsonType::Array => 'a',
        BsonType::BinData => 'B',
        BsonType::Bool => 'b',
        BsonType::Date => 't',
        BsonType::Timestamp => 'T',
        BsonType::Null => 'n',
        BsonType::Undefined => 'u',
        BsonType::Regex => 'r',
        BsonType::DbPointer => 'p',
        BsonType::Javascript => 'j',
        BsonType::JavascriptWithScope => 'J',
        BsonType::MinKey => '-',
        BsonType::MaxKey => '+',
    }
}

/// The field's types as one bar, each type's share in its colour (or its
/// letter under `NO_COLOR`).
pub fn type_bar(fp: &FieldProfile, width: usize, theme: &Theme) -> Vec<Span<'static>> {
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
            block(format!(" {} ", m.lang.pick("Field", "字段")), false, theme),
            area,
        );
        return;
    };
    let b = block(format!(" {} ", fp.path), false, theme);
    let inside = inner(area);
    f.render_widget(b, area);
    let chart_h = if inside.height >= 14 { 7 } else { 0 };
    let [text_area, chart_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(chart_h)]).areas(inside);
    let mut lines: Vec<Line> = Vec::new();
    let lang = m.lang;
    let label = |s: &str| Span::styled(crate::tui::layout::pad(s, 10), theme.dim());
    let total: u64 = fp.types.iter().map(|t| t.1).sum();
    for (t, n) in &fp.types {
        lines.push(Line::from(vec![
            label(if lines.is_empty() {
                lang.pick("types", "类型")
            } else {
                ""
            }),
            Span::styled(
                if theme.no_color {
                    format!("{} ", type_letter(*t))
                } else {
                    "■ ".to_owned()
                },
                Style::default().fg(theme.bson_type(*t)),
            ),
            Span::styled(
                format!(
                    "{:<10} {:>7}  ({})",
                    t.alias(),
                    crate::fmt::percent(*n as f64 / total.max(1) as f64),
                    human_count(*n)
                ),
                theme.text(),
            ),
        ]));
    }
    let ci = fp
        .presence_ci
        .map(|[lo, hi]| {
            format!(
                "  (95 % CI {}–{})",
                crate::fmt::percent(lo),
                crate::fmt::percent(hi)
            )
        })
        .unwrap_or_default();
    lines.push(Line::from(vec![
        label(lang.pick("presence", "出现率")),
        Span::styled(
            lang.pick(
                format!(
                    "{} of {} sampled{ci}",
                    crate::fmt::percent(fp.presence),
                    human_count(c.sampled)
                ),
                format!(
                    "样本 {} 个文档中的 {}{ci}",
                    human_count(c.sampled),
                    crate::fmt::percent(fp.presence)
                ),
            ),
            theme.text(),
        ),
    ]));
    lines.push(Line::from(vec![
        label(lang.pick("bytes", "字节")),
        Span::styled(
            lang.pick(
                format!(
                    "{} per document, {} of all bytes",
                    crate::fmt::bytes(fp.bytes_avg),
                    crate::fmt::percent(fp.bytes_share)
                ),
                format!(
                    "每个文档 {}，占全部字节的 {}",
                    crate::fmt::bytes(fp.bytes_avg),
                    crate::fmt::percent(fp.bytes_share)
                ),
            ),
            theme.text(),
        ),
    ]));
    if let Some(d) = &fp.distinct {
        lines.push(Line::from(vec![
            label(lang.pick("distinct", "不同值")),
            Span::styled(
                format!(
                    "{}{}",
                    if d.exact { "" } else { "≈" },
                    human_count(d.estimate)
                ),
                theme.text(),
            ),
        ]));
    }
    if let Some([lo, hi]) = fp.number_range {
        lines.push(kv(
            &label,
            lang.pick("range", "范围"),
            format!("{lo} … {hi}"),
            theme,
        ));
    }
    if let Some([lo, hi]) = &fp.date_range {
        lines.push(kv(
            &label,
            lang.pick("dates", "日期"),
            format!("{lo} … {hi}"),
            theme,
        ));
    }
    if let Some([lo, hi]) = &fp.objectid_time {
        lines.push(kv(
            &label,
            lang.pick("id times", "ID 时间"),
            format!("{lo} … {hi}"),
            theme,
        ));
    }
    if let Some([lo, hi]) = fp.string_length {
        lines.push(kv(
            &label,
            lang.pick("length", "长度"),
            lang.pick(
                format!("{lo} … {hi} characters"),
                format!("{lo} … {hi} 个字符"),
            ),
            theme,
        ));
    }
    if let Some(a) = &fp.array {
        lines.push(kv(
            &label,
            lang.pick("array", "数组"),
            format!(
                "min {} · avg {:.1} · p50 {} · p95 {} · max {}",
                a.min, a.avg, a.p50, a.p95, a.max
            ),
            theme,
        ));
    }
    if let Some(g) = c.growth.get(&fp.path) {
        let limit = g
            .days_to_limit
            .map(|d| {
                let (en, zh) = crate::fmt::duration_days(d);
                lang.pick(
                    format!(", 16 MiB in ~{en}"),
                    format!("，约{zh}后达到 16 MiB"),
                )
            })
            .unwrap_or_default();
        lines.push(kv(
            &label,
            lang.pick("growth", "增长"),
            lang.pick(
                format!(
                    "{:+.2} elements/day (ρ {:.2}, {}, n={}){limit}",
                    g.per_day, g.correlation, g.method, g.n
                ),
                format!(
                    "每天 {:+.2} 个元素（ρ {:.2}，{}，n={}）{limit}",
                    g.per_day, g.correlation, g.method, g.n
                ),
            ),
            theme,
        ));
        // Why this measurement decides, wrapped under the value: the
        // sentence is long and every word of it is evidence.
        if let Some(d) = g.decision_text(lang) {
            let width = usize::from(text_area.width).saturating_sub(11).max(20);
            for part in super::widgets::wrap(&d, width) {
                lines.push(kv(&label, "", part, theme));
            }
        }
    }
    for (i, e) in fp.examples.iter().enumerate() {
        let s = serde_json::to_string(e).unwrap_or_default();
        lines.push(Line::from(vec![
            label(if i == 0 {
                lang.pick("examples", "示例")
            } else {
                ""
            }),
            Span::styled(fit(&s, EXAMPLE_COLUMNS), theme.fg("code.string")),
        ]));
    }
    let offsets = super::widgets::detail_offsets(m, &lines, text_area);
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

fn kv<'a>(label: &dyn Fn(&str) -> Span<'a>, k: &str, v: String, theme: &Theme) -> Line<'a> {
    Line::from(vec![label(k), Span::styled(v, theme.text())])
}

/// Compact number for bar labels.
fn short(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=9_999_999 => format!("{}k", n / 1000),
        _ => format!("{}M", n / 1_000_000),
    }
}

/// A `LogHistogram` as a bar chart; adjacent bins merge until they fit.
pub fn histogram(title: &str, h: &LogHistogram, theme: &Theme, f: &mut Frame, area: Rect) {
    let mut bins = h.bins();
    let fit_bars = (usize::from(area.width.saturating_sub(2)) / 6).max(1);
    while bins.len() > fit_bars {
        bins = bins
            .chunks(2)
            .map(|c| {
                let lo = c[0].0;
                let hi = c[c.len() - 1].1;
                (lo, hi, c.iter().map(|b| b.2).sum())
            })
            .collect();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_types_share_a_letter() {
        let mut seen = std::collections::HashMap::new();
        for t in BsonType::ALL {
            if let Some(other) = seen.insert(type_letter(t), t) {
                panic!(
                    "{} and {} both draw as {}",
                    other.alias(),
                    t.alias(),
                    type_letter(t)
                );
            }
        }
    }
}
