//! Where things go on the explorer's screen, and how far each part
//! scrolls: pure functions of the model and the terminal's size. The views
//! draw into these areas; `update` maps clicks back to rows and bounds
//! scrolling with the same arithmetic.

pub mod documents;
pub mod learn;

use ratatui::layout::{Constraint, Layout, Margin, Rect};

use crate::lesson::LESSONS;

use ratatui::text::Line;

use super::model::{Detail, Model, Tab};

/// Below this the explorer says so instead of drawing.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 15;

/// Where each part of the screen goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub nav: Rect,
    pub tabs: Rect,
    pub main: Rect,
    pub status: Rect,
}

pub fn areas(area: Rect) -> Option<Areas> {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return None;
    }
    let [body, status] = Layout::vertical([Constraint::Min(0), Constraint::Length(2)]).areas(area);
    let nav_w = (body.width / 4).clamp(22, 40);
    let [nav, right] =
        Layout::horizontal([Constraint::Length(nav_w), Constraint::Min(0)]).areas(body);
    let [tabs, main] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(right);
    Some(Areas {
        nav,
        tabs,
        main,
        status,
    })
}

/// A bordered area's inside.
pub(crate) fn inner(r: Rect) -> Rect {
    r.inner(Margin {
        horizontal: 1,
        vertical: 1,
    })
}

/// First row shown so that `sel` stays visible in `height` rows.
pub(crate) fn offset(sel: usize, len: usize, height: usize) -> usize {
    if height == 0 || len <= height || sel < height {
        return 0;
    }
    (sel + 1 - height).min(len - height)
}

/// A list beside (wide) or above (narrow) its detail.
pub fn split(main: Rect) -> (Rect, Rect) {
    if main.width >= 110 {
        let [a, b] = Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
            .areas(main);
        (a, b)
    } else {
        let [a, b] =
            Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(main);
        (a, b)
    }
}

/// The clickable list of the current tab and the height of its header.
pub(crate) fn list_area(m: &Model, main: Rect) -> Option<(Rect, u16)> {
    match m.tab {
        Tab::Schema | Tab::Relationships | Tab::Indexes | Tab::Workload => {
            Some((inner(split(main).0), 1))
        }
        Tab::Findings => Some((inner(findings_split(main).0), 0)),
        Tab::Learn => Some((inner(learn_split(main).0), 0)),
        Tab::Documents => None,
    }
}

/// The tab bar's labels, as much as fits in `width` columns: the full
/// titles, else the short ones, else the selected tab's short title and
/// the others' numbers. The Findings tab says how many there are.
pub(crate) fn tab_labels(m: &Model, width: u16) -> Vec<(Tab, String)> {
    let n = m.listed_findings().len();
    let label = |i: usize, t: Tab, short: bool, bare: bool| {
        if bare {
            return format!(" {} ", i + 1);
        }
        let title = if short {
            t.short_title(m.lang)
        } else {
            t.title(m.lang)
        };
        if t == Tab::Findings && n > 0 {
            format!(" {} {title} ({n}) ", i + 1)
        } else {
            format!(" {} {title} ", i + 1)
        }
    };
    let tier = |short: bool, compact: bool| -> Vec<(Tab, String)> {
        Tab::ALL
            .iter()
            .enumerate()
            .map(|(i, t)| (*t, label(i, *t, short, compact && *t != m.tab)))
            .collect()
    };
    let fits = |labels: &[(Tab, String)]| {
        labels
            .iter()
            .map(|(_, l)| crate::fmt::display_width(l) + 1)
            .sum::<usize>()
            <= usize::from(width)
    };
    [(false, false), (true, false)]
        .into_iter()
        .map(|(short, compact)| tier(short, compact))
        .find(|l| fits(l))
        .unwrap_or_else(|| tier(true, true))
}

/// The tab under column `col` of the tab bar.
pub(crate) fn tab_at(m: &Model, tabs: Rect, col: u16) -> Option<Tab> {
    let mut x = tabs.x;
    for (t, label) in tab_labels(m, tabs.width) {
        let w = crate::fmt::display_width(&label) as u16;
        if col >= x && col < x + w {
            return Some(t);
        }
        x += w + 1;
    }
    None
}

/// The list on top, the detail below: findings read best full width.
pub fn findings_split(main: Rect) -> (Rect, Rect) {
    let list_h = (main.height / 3).clamp(4, 12);
    let [a, b] = Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(main);
    (a, b)
}

/// The list beside (wide) or above (narrow) the lesson.
pub fn learn_split(main: Rect) -> (Rect, Rect) {
    if main.width >= 110 {
        let list_w = (main.width / 3).clamp(30, 48);
        let [a, b] =
            Layout::horizontal([Constraint::Length(list_w), Constraint::Min(0)]).areas(main);
        (a, b)
    } else {
        let list_h = (LESSONS.len() as u16 + 2).min(main.height / 3).max(3);
        let [a, b] = Layout::vertical([Constraint::Length(list_h), Constraint::Min(0)]).areas(main);
        (a, b)
    }
}

/// The inside of the lesson text's block on a screen of `size`.
pub(crate) fn learn_text_area(size: (u16, u16)) -> Option<Rect> {
    let a = areas(Rect::new(0, 0, size.0, size.1))?;
    Some(inner(learn_split(a.main).1))
}

/// Padded to a width in cells (see `fmt::pad`).
pub use crate::fmt::pad;

/// The help box within the screen `area`.
pub fn help_box(area: Rect, lines: usize) -> Rect {
    let w = area.width.saturating_sub(4).min(70);
    let h = (u16::try_from(lines).unwrap_or(u16::MAX).saturating_add(2))
        .min(area.height.saturating_sub(2));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// How a line of the help's legend is painted: a severity badge, or the
/// letters of the BSON types drawn in one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    Severity(crate::rules::Severity),
    /// A colour meaning of the theme (`type.string` …).
    Type(&'static str),
}

/// A finding's severity as the lists mark it.
pub fn badge(s: Option<crate::rules::Severity>) -> &'static str {
    use crate::rules::Severity;
    match s {
        Some(Severity::Critical) => "●",
        Some(Severity::Warning) => "▲",
        Some(Severity::Info) => "i",
        None => " ",
    }
}

/// The legend at the end of the help: what each severity badge and each
/// type colour of the type bars means (the letters are what `NO_COLOR`
/// shows), with the mark it is drawn as.
pub fn legend(lang: crate::i18n::Lang) -> Vec<(String, Paint, String)> {
    use crate::rules::Severity;
    let sev = |s: Severity, en: &str, zh: &str| {
        (
            badge(Some(s)).to_owned(),
            Paint::Severity(s),
            lang.pick(en, zh).to_owned(),
        )
    };
    let ty = |letters: &str, meaning: &'static str, en: &str, zh: &str| {
        (
            letters.to_owned(),
            Paint::Type(meaning),
            lang.pick(en, zh).to_owned(),
        )
    };
    vec![
        sev(
            Severity::Critical,
            "critical: will break or lose data; fix first",
            "严重：会出错或丢数据，先修",
        ),
        sev(
            Severity::Warning,
            "warning: will cost as the data grows",
            "警告：数据增长后会付出代价",
        ),
        sev(
            Severity::Info,
            "info: worth knowing, nothing urgent",
            "提示：值得了解，不紧急",
        ),
        ty("s", "type.string", "type bars: string", "类型条：字符串"),
        ty(
            "d D i l",
            "type.number",
            "double, decimal, int, long",
            "double、decimal、int、long",
        ),
        ty("b", "type.bool", "bool", "布尔"),
        ty("t T", "type.date", "date, timestamp", "日期、时间戳"),
        ty("O", "type.objectid", "ObjectId", "ObjectId"),
        ty(
            "o",
            "type.object",
            "object (sub-document)",
            "对象（子文档）",
        ),
        ty("a", "type.array", "array", "数组"),
        ty("n", "type.null", "null, undefined", "null、undefined"),
        ty(
            "B …",
            "type.other",
            "binary and every other type",
            "二进制及其他类型",
        ),
    ]
}

/// One line of the help: its key (or pane, or legend mark) on the first
/// line of an entry, `None` on continuations; its text; how the key is
/// painted when it is a legend's mark.
pub type HelpLine = (Option<String>, String, Option<Paint>);

/// The help's lines: first the focus model (each pane and what Tab, Enter
/// and Esc do there), then each key and what it does, then the legend of
/// badges and type colours, wrapped to the box (the continuation lines
/// under the description), so no word is lost at any width. An empty line
/// between the parts.
pub fn help_lines(m: &Model) -> Vec<HelpLine> {
    let focus = m.keymap.focus_help(m.lang);
    let help = m.keymap.help(m.lang);
    let legend = legend(m.lang);
    let w = usize::from(m.size.0.saturating_sub(4).min(70)).saturating_sub(2);
    let kw = help
        .iter()
        .map(|(k, _)| crate::fmt::display_width(k))
        .chain(focus.iter().map(|(p, _)| crate::fmt::display_width(p)))
        .chain(legend.iter().map(|(k, _, _)| crate::fmt::display_width(k)))
        .max()
        .unwrap_or(4)
        .min(20);
    let text_w = w.saturating_sub(kw + 3).max(8);
    let mut out = Vec::new();
    let gap = || ("", None, "");
    let rows = focus
        .iter()
        .map(|(p, d)| (p.as_str(), None, d.as_str()))
        .chain(std::iter::once(gap()))
        .chain(help.iter().map(|(k, d)| (k.as_str(), None, *d)))
        .chain(std::iter::once(gap()))
        .chain(
            legend
                .iter()
                .map(|(k, p, d)| (k.as_str(), Some(*p), d.as_str())),
        );
    for (k, paint, d) in rows {
        if d.is_empty() {
            out.push((Some(String::new()), String::new(), None));
            continue;
        }
        for (i, part) in crate::fmt::wrap(d, text_w).into_iter().enumerate() {
            let key = (i == 0).then(|| format!(" {}  ", pad(k, kw)));
            out.push((key, part, paint.filter(|_| i == 0)));
        }
    }
    out
}

/// Help lines shown at once: the box leaves a row above and below, and
/// has a border.
pub(crate) fn help_visible(m: &Model) -> usize {
    usize::from(m.size.1.saturating_sub(4)).max(1)
}

/// The furthest the help scrolls.
pub(crate) fn help_max_scroll(m: &Model) -> usize {
    help_lines(m).len().saturating_sub(help_visible(m))
}

/// What the main area shows, as the views draw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shown {
    Learn,
    Workload,
    Findings,
    Schema,
    Documents,
    Relationships,
    Indexes,
    /// Nothing read yet, or no collection selected.
    Waiting,
}

/// What the main area shows for the model.
pub(crate) fn shown(m: &Model) -> Shown {
    match (&m.report, m.collection(), m.tab) {
        // Lessons read the bundled sample data, not the target.
        (_, _, Tab::Learn) => Shown::Learn,
        // The overview or a database: the query shapes or the findings of
        // everything under it.
        (Some(_), None, Tab::Workload) if m.is_summary() => Shown::Workload,
        (Some(_), None, _) if m.is_summary() => Shown::Findings,
        (Some(_), Some(_), Tab::Schema) => Shown::Schema,
        (Some(_), Some(_), Tab::Findings) => Shown::Findings,
        (Some(_), Some(_), Tab::Documents) => Shown::Documents,
        (Some(_), Some(_), Tab::Relationships) => Shown::Relationships,
        (Some(_), Some(_), Tab::Indexes) => Shown::Indexes,
        (Some(_), Some(_), Tab::Workload) => Shown::Workload,
        _ => Shown::Waiting,
    }
}

/// How far text of `lines` lines, the widest `widest` columns, scrolls
/// down and sideways in `area`.
pub(crate) fn limits(lines: usize, widest: usize, area: Rect) -> (u16, u16) {
    let beyond = |n: usize, room: u16| u16::try_from(n.saturating_sub(usize::from(room)));
    (
        beyond(lines, area.height).unwrap_or(u16::MAX),
        beyond(widest, area.width).unwrap_or(u16::MAX),
    )
}

/// The detail's offsets down and sideways for `lines` drawn in `area`,
/// each no further than the text needs.
pub(crate) fn detail_offsets(d: &Detail, lines: &[Line<'_>], area: Rect) -> (u16, u16) {
    let widest = lines.iter().map(Line::width).max().unwrap_or(0);
    let (down, right) = limits(lines.len(), widest, area);
    (d.scroll.min(down), d.hscroll.min(right))
}

/// How far an open document's `lines` scroll sideways in `width` columns.
pub(crate) fn doc_hscroll_limit<'a>(lines: impl IntoIterator<Item = &'a str>, width: usize) -> u16 {
    let widest = lines
        .into_iter()
        .map(crate::fmt::display_width)
        .max()
        .unwrap_or(0);
    u16::try_from(widest.saturating_sub(width)).unwrap_or(u16::MAX)
}

/// The Documents tab's text columns: its block's inside, less the indent
/// of an open document's lines.
pub(crate) fn doc_text_width(main: Rect) -> usize {
    usize::from(inner(main).width).saturating_sub(2)
}
