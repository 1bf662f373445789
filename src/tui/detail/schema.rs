//! The Schema tab's detail: the selected field's types, presence, sizes,
//! growth and examples, and the type letters the field list shares.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::parts::fit;
use crate::profile::raw::BsonType;
use crate::profile::FieldProfile;
use crate::tui::layout::inner;
use crate::tui::model::Model;
use crate::tui::theme::Theme;

pub(crate) fn presence(fp: &FieldProfile) -> String {
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
pub(crate) fn type_letter(t: BsonType) -> char {
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

/// The selected field's detail: its lines, and the part of `area` they
/// are drawn in (a histogram may take the rest).
pub(crate) fn text<'a>(m: &'a Model, theme: &Theme, area: Rect) -> Option<(Vec<Line<'a>>, Rect)> {
    let c = m.collection()?;
    let fp = m.selected_field()?;
    let inside = inner(area);
    let chart_h = if inside.height >= 14 { 7 } else { 0 };
    let [text_area, _] =
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
                    crate::fmt::group(*n)
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
                    crate::fmt::group(c.sampled)
                ),
                format!(
                    "样本 {} 个文档中的 {}{ci}",
                    crate::fmt::group(c.sampled),
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
                    crate::fmt::group(d.estimate)
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
    if let Some([lo, hi]) = fp.string_chars {
        // Characters, and the bytes they take where those differ (text
        // beyond ASCII).
        let bytes = fp
            .string_length
            .filter(|b| *b != [lo, hi])
            .map(|[a, b]| lang.pick(format!(" · {a} … {b} bytes"), format!(" · {a} … {b} 字节")))
            .unwrap_or_default();
        lines.push(kv(
            &label,
            lang.pick("length", "长度"),
            lang.pick(
                format!("{lo} … {hi} characters{bytes}"),
                format!("{lo} … {hi} 个字符{bytes}"),
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
            for part in super::parts::wrap(&d, width) {
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
    Some((lines, text_area))
}

pub(crate) fn kv<'a>(
    label: &dyn Fn(&str) -> Span<'a>,
    k: &str,
    v: String,
    theme: &Theme,
) -> Line<'a> {
    Line::from(vec![label(k), Span::styled(v, theme.text())])
}

/// Compact number for bar labels.
pub(crate) fn short(n: u64) -> String {
    match n {
        0..=9_999 => n.to_string(),
        10_000..=9_999_999 => format!("{}k", n / 1000),
        _ => format!("{}M", n / 1_000_000),
    }
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
