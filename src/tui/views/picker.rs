//! The connection picker's overlay: the saved connections (name and URI,
//! any password masked), the recent targets, the field, and the masked
//! prompt for a password.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;

use super::super::detail::parts::fit;
use super::super::layout::{offset, pad};
use super::super::model::Model;
use super::super::picker::{Overlay, Row};
use super::super::theme::Theme;
use super::widgets::block;
use crate::fmt::display_width;
use crate::secret::mask_uri;

/// Draws the overlay when it is open.
pub(crate) fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(o) = m.picker.open.as_ref() else {
        return;
    };
    let l = m.lang;
    let w = area.width.saturating_sub(4).min(76);
    let inner_w = usize::from(w.saturating_sub(2));
    let (title, body) = match &o.asking {
        Some(a) => (
            l.pick(
                " Password (Enter connects · Esc back) ",
                " 密码（Enter 连接 · Esc 返回） ",
            ),
            password_lines(m, theme, o, &a.shown, a.password.len(), inner_w),
        ),
        None => (
            l.pick(
                " Connect to (Enter opens · Esc closes) ",
                " 连接到（Enter 打开 · Esc 关闭） ",
            ),
            list_lines(m, theme, o, inner_w, area.height),
        ),
    };
    let h = (u16::try_from(body.len())
        .unwrap_or(u16::MAX)
        .saturating_add(2))
    .min(area.height.saturating_sub(2));
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, r);
    f.render_widget(Block::default().style(theme.base()), r);
    f.render_widget(Paragraph::new(body).block(block(title, true, theme)), r);
}

/// The rows, the field and the hints, the rows scrolled to keep the
/// selection in sight within `height` of the terminal.
fn list_lines(m: &Model, theme: &Theme, o: &Overlay, w: usize, height: u16) -> Vec<Line<'static>> {
    let l = m.lang;
    let rows = m.picker.rows();
    let name_w = m
        .picker
        .saved
        .keys()
        .map(|n| display_width(n))
        .max()
        .unwrap_or(0)
        .min(w / 3);
    let marker = |i: usize| if i == o.sel { " › " } else { "   " };
    let style = |i: usize| {
        if i == o.sel {
            theme.selected()
        } else {
            theme.text()
        }
    };
    // The list: headings and rows; `at` is the line of the selection.
    let mut list: Vec<Line<'static>> = Vec::new();
    let mut at = 0;
    let heading = |text: String| Line::styled(fit(&format!(" {text}"), w), theme.title());
    let source = if m.picker.file.is_empty() {
        "docshape.toml".to_owned()
    } else {
        m.picker.file.clone()
    };
    list.push(heading(l.pick(
        format!("Saved connections · {source}"),
        format!("已保存的连接 · {source}"),
    )));
    if m.picker.saved.is_empty() {
        list.push(Line::styled(
            fit(
                l.pick(
                    "   none: [connections.NAME] in docshape.toml saves one",
                    "   无：在 docshape.toml 的 [connections.NAME] 中保存",
                ),
                w,
            ),
            theme.dim(),
        ));
    }
    let recent_at = rows
        .iter()
        .position(|r| matches!(r, Row::Recent(_)))
        .unwrap_or(usize::MAX);
    for (i, row) in rows.iter().enumerate() {
        if i == recent_at {
            list.push(heading(l.pick("Recent".to_owned(), "最近使用".to_owned())));
        }
        let text = match row {
            Row::Saved(name, c) => {
                format!(
                    "{}{}  {}",
                    marker(i),
                    pad(&fit(name, name_w), name_w),
                    mask_uri(&c.uri)
                )
            }
            Row::Recent(t) => format!("{}{}", marker(i), mask_uri(t)),
            Row::Field => continue,
        };
        if i == o.sel {
            at = list.len();
        }
        list.push(Line::styled(fit(&text, w), style(i)));
    }
    let field = rows.len().saturating_sub(1);
    let mut tail = vec![
        heading(l.pick(
            "Connection string, path or saved name".to_owned(),
            "连接字符串、路径或已保存连接的名称".to_owned(),
        )),
        Line::from(vec![
            Span::styled(marker(field), style(field)),
            Span::styled(
                fit_end(&format!("{}▏", mask_uri(&o.text)), w.saturating_sub(3)),
                style(field),
            ),
        ]),
    ];
    if let Some(e) = &o.error {
        for part in crate::fmt::wrap(e, w.saturating_sub(1)) {
            tail.push(Line::styled(format!(" {part}"), theme.fg("status.error")));
        }
    }
    tail.push(Line::styled(
        fit(
            l.pick(
                " ↑↓ choose · type a URI or a path · Enter opens · Esc closes",
                " ↑↓ 选择 · 输入 URI 或路径 · Enter 打开 · Esc 关闭",
            ),
            w,
        ),
        theme.dim(),
    ));
    // What the terminal leaves for the list: its height less the box's
    // borders, the margin and the tail.
    let room = usize::from(height.saturating_sub(4))
        .saturating_sub(tail.len())
        .max(1);
    let first = offset(at, list.len(), room);
    let mut out: Vec<Line<'static>> = list.into_iter().skip(first).take(room).collect();
    out.extend(tail);
    out
}

/// The masked prompt: the connection, one `•` per character typed.
fn password_lines(
    m: &Model,
    theme: &Theme,
    o: &Overlay,
    shown: &str,
    typed: usize,
    w: usize,
) -> Vec<Line<'static>> {
    let l = m.lang;
    let mut lines = vec![
        Line::styled(
            fit(
                &l.pick(format!(" Password for {shown}"), format!(" {shown} 的密码")),
                w,
            ),
            theme.title(),
        ),
        Line::styled(
            fit_end(&format!(" › {}▏", "•".repeat(typed)), w),
            theme.selected(),
        ),
    ];
    if let Some(e) = &o.error {
        lines.push(Line::styled(
            fit(&format!(" {e}"), w),
            theme.fg("status.error"),
        ));
    }
    lines.push(Line::styled(
        fit(
            l.pick(
                " never shown nor kept · Enter connects · Esc back to the list",
                " 不显示也不保存 · Enter 连接 · Esc 返回列表",
            ),
            w,
        ),
        theme.dim(),
    ));
    lines
}

/// The end of `s` in `w` columns: what is being typed stays in sight.
fn fit_end(s: &str, w: usize) -> String {
    if display_width(s) <= w {
        return s.to_owned();
    }
    let mut out: Vec<char> = Vec::new();
    let mut used = 1;
    for c in s.chars().rev() {
        let cw = crate::fmt::char_width(c);
        if used + cw > w {
            break;
        }
        used += cw;
        out.push(c);
    }
    out.push('…');
    out.into_iter().rev().collect()
}
