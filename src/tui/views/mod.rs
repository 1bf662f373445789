//! Pure views: `render(model, theme, frame)` draws and never mutates. Where
//! each part goes comes from `layout` and the detail's text from `detail`;
//! `update` bounds scrolling and maps clicks with the same two.

pub mod documents;
pub mod findings;
pub mod indexes;
pub mod learn;
pub mod picker;
pub mod relationships;
pub mod schema;
pub mod widgets;
pub mod workload;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::detail::parts::fit;
use super::keymap::Action;
use super::layout::{
    areas, help_box, help_lines, help_max_scroll, inner, offset, pad, shown, tab_labels, Shown,
    MIN_HEIGHT, MIN_WIDTH,
};
use super::model::{Level, Model, NavRow, Pane, Status, Tab};
use super::theme::Theme;
use crate::fmt::cell;
use widgets::{badge, block};

pub fn render(m: &Model, theme: &Theme, f: &mut Frame) {
    let area = f.area();
    f.render_widget(Block::default().style(theme.base()), area);
    let Some(a) = areas(area) else {
        let msg = vec![
            Line::from(m.lang.pick("terminal too small", "终端太小")),
            Line::from(m.lang.pick(
                format!(
                    "{}×{} — docshape needs at least {MIN_WIDTH}×{MIN_HEIGHT}",
                    area.width, area.height
                ),
                format!(
                    "{}×{} —— docshape 至少需要 {MIN_WIDTH}×{MIN_HEIGHT}",
                    area.width, area.height
                ),
            )),
        ];
        f.render_widget(
            Paragraph::new(msg)
                .style(theme.text())
                .wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    };
    render_nav(m, theme, f, a.nav);
    render_tabs(m, theme, f, a.tabs);
    match shown(m) {
        Shown::Learn => learn::render(m, theme, f, a.main),
        Shown::Workload => workload::render(m, theme, f, a.main),
        Shown::Findings => findings::render(m, theme, f, a.main),
        Shown::Schema => schema::render(m, theme, f, a.main),
        Shown::Documents => documents::render(m, theme, f, a.main),
        Shown::Relationships => relationships::render(m, theme, f, a.main),
        Shown::Indexes => indexes::render(m, theme, f, a.main),
        Shown::Waiting => render_waiting(m, theme, f, a.main),
    }
    render_status(m, theme, f, a.status);
    if m.help.open {
        render_help(m, theme, f, area);
    }
    picker::render(m, theme, f, area);
}

fn render_waiting(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let mut lines = Vec::new();
    if let Some(j) = &m.job {
        lines.push(Line::styled(stage_title(m, j), theme.title()));
        if !j.namespace.is_empty() && j.stage == crate::audit::Stage::Sampling {
            lines.push(Line::from(format!(
                "[{}/{}] {}  {} documents  {} docs/s",
                j.position.0,
                j.position.1,
                j.namespace,
                crate::fmt::compact(j.documents),
                crate::fmt::compact(j.rate.round() as u64)
            )));
        }
        lines.push(Line::styled(
            m.lang.pick(
                format!(
                    "{} stops: the collections read so far are judged",
                    m.keymap.label(Action::Cancel)
                ),
                format!(
                    "{} 停止：只评判已读取的集合",
                    m.keymap.label(Action::Cancel)
                ),
            ),
            theme.dim(),
        ));
    } else if m.report.is_some() {
        lines.push(Line::from(m.lang.pick(
            "No collection selected (or none matched).",
            "没有选中集合（或没有集合匹配）。",
        )));
    } else {
        lines.push(Line::from(
            m.lang.pick("Nothing sampled yet.", "还没有采样。"),
        ));
        if let Some(s) = m.status.as_ref().filter(|s| s.level == Level::Error) {
            lines.push(Line::default());
            lines.push(Line::styled(s.text.clone(), theme.fg("status.error")));
            lines.push(Line::default());
        }
        lines.push(Line::styled(
            m.lang.pick(
                format!("{} samples", m.keymap.label(Action::Resample)),
                format!("{} 采样", m.keymap.label(Action::Resample)),
            ),
            theme.dim(),
        ));
        lines.push(Line::styled(
            m.lang.pick(
                format!(
                    "{} connects to another target: a saved connection, a recent one, a URI or a path",
                    m.keymap.label(Action::Connect)
                ),
                format!(
                    "{} 连接到另一个目标：已保存的连接、最近的目标、URI 或路径",
                    m.keymap.label(Action::Connect)
                ),
            ),
            theme.dim(),
        ));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(block(" docshape ", m.focus == Pane::Main, theme)),
        area,
    );
}

/// What the run is doing, named: "sampling…", "relationships…", or
/// "stopping…" once the user asked it to read no further.
fn stage_title(m: &Model, j: &crate::tui::model::Job) -> String {
    if j.stopping {
        return m
            .lang
            .pick(
                "stopping: judging what was read…",
                "正在停止：评判已读取的集合…",
            )
            .to_owned();
    }
    let name = j.stage.name(m.lang);
    let mut t = String::with_capacity(name.len() + 3);
    let mut chars = name.chars();
    if let Some(c) = chars.next() {
        t.extend(c.to_uppercase());
        t.push_str(chars.as_str());
    }
    t.push('…');
    t
}

fn render_nav(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let title = if m.nav.filter.is_empty() {
        format!(" {} ", m.lang.pick("Collections", "集合"))
    } else {
        format!(" /{} ", m.nav.filter)
    };
    let b = block(title, m.focus == Pane::Nav, theme);
    let inside = inner(area);
    f.render_widget(b, area);
    let Some(r) = &m.report else {
        let t = if m.job.is_some() {
            m.lang.pick("sampling…", "采样中…")
        } else {
            ""
        };
        f.render_widget(Paragraph::new(t).style(theme.dim()), inside);
        return;
    };
    let h = usize::from(inside.height);
    let w = usize::from(inside.width);
    let off = offset(m.nav.sel, m.nav.rows.len(), h);
    let cols = nav_columns(m, r, w);
    let mut lines = Vec::with_capacity(h);
    for (i, row) in m.nav.rows.iter().enumerate().skip(off).take(h) {
        let line = match row {
            NavRow::Overview => {
                let n: usize = r
                    .collections
                    .iter()
                    .map(|c| c.findings.len())
                    .sum::<usize>()
                    + r.findings.len();
                let worst = r
                    .collections
                    .iter()
                    .filter_map(Model::worst)
                    .chain(r.findings.iter().map(|f| f.severity))
                    .max();
                let text = format!("{} ({n})", m.lang.pick("All findings", "全部问题"));
                let mut l = Line::from(vec![
                    Span::styled(
                        pad(&fit(&text, w.saturating_sub(2)), w.saturating_sub(2)),
                        theme.title(),
                    ),
                    Span::styled(
                        badge(worst),
                        worst.map_or_else(|| theme.dim(), |s| theme.severity(s)),
                    ),
                ]);
                if i == m.nav.sel {
                    l = l.style(theme.selected());
                }
                l
            }
            NavRow::Db(name) => {
                let folded = m.nav.folded.contains(name) && m.nav.filter.is_empty();
                let colls = r.collections.iter().filter(|c| &c.meta.db == name).count();
                let worst = m.worst_in_db(name);
                let right = format!("{colls:>3} ");
                let name_w = w.saturating_sub(crate::fmt::display_width(&right) + 3);
                let text = format!(
                    "{} {}",
                    if folded { "▸" } else { "▾" },
                    pad(&fit(name, name_w), name_w)
                );
                let mut l = Line::from(vec![
                    Span::styled(fit(&text, name_w + 2), theme.title()),
                    Span::styled(right, theme.dim()),
                    Span::styled(
                        badge(worst),
                        worst.map_or_else(|| theme.dim(), |s| theme.severity(s)),
                    ),
                ]);
                if i == m.nav.sel {
                    l = l.style(theme.selected());
                }
                l
            }
            NavRow::Coll(ci) => {
                let c = &r.collections[*ci];
                let worst = Model::worst(c);
                let (count, size) = nav_numbers(c);
                let name = format!("  {} ", cell(&c.meta.name, cols.name, false));
                let mut right = format!("{} ", cell(&count, cols.count, true));
                if cols.size > 0 {
                    right.push_str(&cell(&size, cols.size, true));
                    right.push(' ');
                }
                let sev_style = worst.map_or_else(|| theme.dim(), |s| theme.severity(s));
                let mut l = Line::from(vec![
                    Span::styled(name, theme.text()),
                    Span::styled(right, theme.dim()),
                    Span::styled(badge(worst), sev_style),
                ]);
                if i == m.nav.sel {
                    l = l.style(theme.selected());
                }
                l
            }
        };
        lines.push(line);
    }
    f.render_widget(Paragraph::new(lines), inside);
}

/// A collection's document count and size as the navigator shows them.
fn nav_numbers(c: &crate::report::CollectionReport) -> (String, String) {
    (
        c.documents.map_or_else(|| "?".into(), crate::fmt::compact),
        crate::fmt::bytes(Model::bytes(c)),
    )
}

/// The widths of the navigator's collection rows: the name, the count
/// and (when the name keeps room enough beside it) the size.
struct NavColumns {
    name: usize,
    count: usize,
    size: usize,
}

/// The collection rows' columns in `w` cells, sized from every listed
/// collection so that they line up: `  NAME COUNT SIZE B` (`B` the badge).
fn nav_columns(m: &Model, r: &crate::report::Report, w: usize) -> NavColumns {
    use crate::fmt::{column_widths, Column};
    let colls: Vec<&crate::report::CollectionReport> = m
        .nav
        .rows
        .iter()
        .filter_map(|row| match row {
            NavRow::Coll(ci) => r.collections.get(*ci),
            _ => None,
        })
        .collect();
    let numbers: Vec<(String, String)> = colls.iter().map(|c| nav_numbers(c)).collect();
    let name = Column::of(colls.iter().map(|c| c.meta.name.as_str()), 6);
    let count = Column::whole(numbers.iter().map(|n| n.0.as_str()));
    let size = Column::whole(numbers.iter().map(|n| n.1.as_str()));
    // The indent, the spaces between and before the badge, the badge.
    let room = w.saturating_sub(2 + 1 + 1);
    let with_size = column_widths(&[name, count, size], room, 1, Some(0));
    if with_size[0] >= name.want.min(14) {
        return NavColumns {
            name: with_size[0],
            count: with_size[1],
            size: with_size[2],
        };
    }
    let without = column_widths(&[name, count], room, 1, Some(0));
    NavColumns {
        name: without[0],
        count: without[1],
        size: 0,
    }
}

fn render_tabs(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let mut spans = Vec::new();
    for (t, label) in tab_labels(m, area.width) {
        let st = if t == m.tab {
            theme
                .fg("tab.active")
                .add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            theme.dim()
        };
        spans.push(Span::styled(label, st));
        spans.push(Span::styled("│", theme.dim()));
    }
    if let Some(c) = m.collection() {
        // What is left of the bar, the namespace cut in its middle: the
        // collection's name, at its end, stays.
        let used: usize = spans.iter().map(Span::width).sum();
        let room = usize::from(area.width).saturating_sub(used + 1);
        spans.push(Span::styled(
            format!(" {}", fit(&c.namespace, room)),
            theme.text(),
        ));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// An error (a server gone, a failed run) first and on both lines of the
/// status bar, in place of the key hints, so that it is read whole: one
/// line would cut it at the width of the target label.
fn render_error_status(m: &Model, theme: &Theme, f: &mut Frame, area: Rect, text: &str) {
    let style = theme
        .status()
        .fg(theme.color("status.error"))
        .add_modifier(Modifier::BOLD);
    render_wrapped_status(m, theme, f, area, format!(" error: {text} "), style);
}

/// A message on both lines of the status bar, wrapped, then the target.
fn render_long_status(m: &Model, theme: &Theme, f: &mut Frame, area: Rect, s: &Status) {
    let color = match s.level {
        Level::Warning => theme.color("status.warning"),
        Level::Info | Level::Error => theme.color("status.fg"),
    };
    let style = theme.status().fg(color);
    render_wrapped_status(m, theme, f, area, format!(" {} ", s.text), style);
}

/// `message`, then the target and the sample size, wrapped over the
/// status bar's lines.
fn render_wrapped_status(
    m: &Model,
    theme: &Theme,
    f: &mut Frame,
    area: Rect,
    message: String,
    style: Style,
) {
    let line = Line::from(vec![
        Span::styled(message, style),
        Span::styled(format!("│ {} ", m.target), theme.status()),
        Span::styled(
            format!("│ {} {} ", m.lang.pick("sample", "样本"), m.sample),
            theme.status(),
        ),
    ]);
    f.render_widget(
        Paragraph::new(line)
            .style(theme.status())
            .wrap(ratatui::widgets::Wrap { trim: false }),
        area,
    );
}

fn render_status(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    if let (Some(s), None, None) = (&m.status, &m.input, &m.job) {
        if s.level == Level::Error {
            render_error_status(m, theme, f, area, &s.text);
            return;
        }
        // A message too long for the line even on its own takes both
        // lines, in place of the key hints (Esc clears it).
        if crate::fmt::display_width(&s.text) + 4 > usize::from(area.width) {
            render_long_status(m, theme, f, area, s);
            return;
        }
    }
    let [top, bottom] =
        Layout::vertical([Constraint::Length(1), Constraint::Length(1)]).areas(area);
    let mut spans = vec![
        Span::styled(
            format!(" {} ", m.target),
            theme.status().add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("│ {} {} ", m.lang.pick("sample", "样本"), m.sample),
            theme.status(),
        ),
    ];
    if let Some(j) = &m.job {
        let expected = j
            .expected
            .map(|e| format!("/{}", crate::fmt::compact(e)))
            .unwrap_or_default();
        let text = if j.stage == crate::audit::Stage::Sampling && !j.stopping {
            format!(
                "│ {} [{}/{}] {} {}{} docs {:.0}/s ",
                j.stage.name(m.lang),
                j.position.0,
                j.position.1,
                j.namespace,
                crate::fmt::compact(j.documents),
                expected,
                j.rate
            )
        } else if j.position.1 == 0 {
            // Listing: how many there are is not known yet.
            format!("│ {} ", stage_title(m, j).to_lowercase())
        } else {
            format!(
                "│ {} [{}/{}] ",
                stage_title(m, j).to_lowercase(),
                j.position.0,
                j.position.1
            )
        };
        spans.push(Span::styled(
            text,
            theme.status().fg(theme.color("status.warning")),
        ));
    }
    if let Some(s) = &m.status {
        let color = match s.level {
            Level::Info => theme.color("status.fg"),
            Level::Warning => theme.color("status.warning"),
            Level::Error => theme.color("status.error"),
        };
        let prefix = if s.level == Level::Error {
            m.lang.pick("error: ", "错误：")
        } else {
            ""
        };
        spans.push(Span::styled(
            format!("│ {prefix}{} ", s.text),
            theme
                .status()
                .fg(color)
                .add_modifier(if s.level == Level::Error {
                    Modifier::BOLD
                } else {
                    Modifier::empty()
                }),
        ));
    }
    if let Some(w) = m.warnings.first() {
        spans.push(Span::styled(
            format!("│ ⚠ {w} "),
            theme.status().fg(theme.color("status.warning")),
        ));
    }
    // Too long for the line: the message goes first, so what is cut is
    // the target's name, never the message.
    let used: usize = spans.iter().map(Span::width).sum();
    if used > usize::from(area.width) && m.status.is_some() {
        let at = spans.len() - 1 - usize::from(!m.warnings.is_empty());
        let mut message = spans.remove(at);
        message.content = format!(" {}", message.content.trim_start_matches('│').trim()).into();
        message.content = format!("{} ", message.content).into();
        spans.insert(0, message);
        spans[1].content = format!("│{}", spans[1].content).into();
    }
    f.render_widget(Paragraph::new(Line::from(spans)).style(theme.status()), top);
    let line = if let Some(input) = &m.input {
        Line::from(vec![
            Span::styled(" / ", theme.title()),
            Span::styled(format!("{}▏", input.text), theme.text()),
            Span::styled(
                m.lang
                    .pick("  Enter keeps · Esc clears", "  Enter 保留 · Esc 清除"),
                theme.dim(),
            ),
        ])
    } else {
        let l = m.lang;
        let hints = [
            (Action::Quit, l.pick("quit", "退出")),
            (Action::Help, l.pick("help", "帮助")),
            (Action::NextPane, l.pick("pane", "窗格")),
            (Action::TabSchema, l.pick("tabs", "标签页")),
            (Action::Filter, l.pick("filter", "筛选")),
            (Action::Resample, l.pick("re-sample", "重新采样")),
            (Action::SampleMore, l.pick("more", "加大样本")),
            (Action::SampleLess, l.pick("less", "减小样本")),
            (Action::Cancel, l.pick("stop", "停止")),
        ];
        let mut spans = Vec::new();
        // Whole hints only: one that does not fit is left out, never cut.
        let mut room = usize::from(bottom.width);
        for (a, what) in hints {
            let k = m.keymap.first_label(a);
            // On the Documents tab `/` opens the query bar.
            let what = if a == Action::Filter && m.tab == Tab::Documents && m.focus == Pane::Main {
                l.pick("query", "查询")
            } else {
                what
            };
            let (key, word) = (format!(" {k}"), format!(" {what} "));
            let need =
                crate::fmt::display_width(&key) + crate::fmt::display_width(word.trim_end()) + 1;
            if need > room {
                break;
            }
            room -= need;
            spans.push(Span::styled(key, theme.title()));
            spans.push(Span::styled(word, theme.dim()));
        }
        Line::from(spans)
    };
    f.render_widget(Paragraph::new(line), bottom);
}

fn render_help(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let help = help_lines(m);
    let r = help_box(area, help.len());
    let indent = help
        .iter()
        .find_map(|(k, _, _)| k.as_deref().map(crate::fmt::display_width))
        .unwrap_or(0);
    let first = m.help.scroll.min(help_max_scroll(m));
    let shown = usize::from(r.height.saturating_sub(2));
    let lines: Vec<Line> = help
        .iter()
        .skip(first)
        .take(shown)
        .map(|(k, d, paint)| {
            let key = k.clone().unwrap_or_else(|| " ".repeat(indent));
            let style = match paint {
                Some(crate::tui::layout::Paint::Severity(s)) => theme.severity(*s),
                Some(crate::tui::layout::Paint::Type(meaning)) => theme.fg(meaning),
                None => theme.title(),
            };
            Line::from(vec![
                Span::styled(key, style),
                Span::styled(d.clone(), theme.text()),
            ])
        })
        .collect();
    let title = if shown >= help.len() {
        m.lang
            .pick(" Keys (Esc closes) ", " 按键（Esc 关闭） ")
            .to_owned()
    } else {
        m.lang.pick(
            format!(
                " Keys {}–{} of {} lines (↑↓ PgUp PgDn scroll, Esc closes) ",
                first + 1,
                (first + shown).min(help.len()),
                help.len()
            ),
            format!(
                " 按键 第 {}–{} 行，共 {} 行（↑↓ PgUp PgDn 滚动，Esc 关闭） ",
                first + 1,
                (first + shown).min(help.len()),
                help.len()
            ),
        )
    };
    f.render_widget(Clear, r);
    f.render_widget(Block::default().style(theme.base()), r);
    f.render_widget(Paragraph::new(lines).block(block(title, true, theme)), r);
}
