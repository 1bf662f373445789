//! The Documents tab: the kept sample — or a page of a query's results —
//! as pretty, coloured relaxed Extended JSON, one fold per document, under
//! the query bar when it is open. Only the documents on screen are decoded.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::highlight::json_line;
use super::{block, clamp_hscroll, fit, inner, shift};
use crate::i18n::Lang;
use crate::tui::model::{DocLine, DocView, Model, Pane};
use crate::tui::querybar::{self, Bar, Part, Results, PAGE};
use crate::tui::theme::Theme;

/// Lines shown of one open document at most.
const MAX_LINES: usize = 5_000;

/// How an open document is folded: objects and arrays nested deeper than
/// `depth` (`z`), each of `toggled` the other way round from that.
#[derive(Clone, Copy, Debug)]
pub struct Folds<'a> {
    pub depth: Option<usize>,
    pub toggled: &'a std::collections::HashSet<String>,
}

/// The lines an open document shows, folded as `folds` says, at most
/// `MAX_LINES`.
pub fn doc_lines(bytes: &[u8], folds: Folds<'_>) -> Vec<DocLine> {
    let value = match bson::Document::from_reader(bytes) {
        Ok(d) => bson::Bson::Document(d).into_relaxed_extjson(),
        Err(e) => {
            return vec![DocLine {
                text: format!("(cannot decode this document: {e})"),
                node: String::new(),
            }]
        }
    };
    let mut lines = Vec::new();
    let at = Place {
        level: 0,
        path: String::new(),
        holder: String::new(),
    };
    fold_value(&value, &at, folds, ("", ""), &mut lines);
    if lines.len() > MAX_LINES {
        lines.truncate(MAX_LINES);
        lines.push(DocLine {
            text: format!("… (more than {MAX_LINES} lines)"),
            node: String::new(),
        });
    }
    lines
}

/// The lines' text: objects and arrays nested deeper than `depth` folded.
pub fn folded_lines(bytes: &[u8], depth: Option<usize>) -> Vec<String> {
    let none = std::collections::HashSet::new();
    let folds = Folds {
        depth,
        toggled: &none,
    };
    doc_lines(bytes, folds)
        .into_iter()
        .map(|l| l.text)
        .collect()
}

/// An Extended JSON wrapper (`{"$oid": …}`, `{"$date": …}`): a value, not
/// an object to fold.
fn is_wrapper(m: &serde_json::Map<String, serde_json::Value>) -> bool {
    m.len() <= 2 && m.keys().all(|k| k.starts_with('$'))
}

/// Where a value sits: its nesting level, its path, and the path of the
/// object or array holding it.
struct Place {
    level: usize,
    path: String,
    holder: String,
}

/// A key or index as a step of a path.
fn step(parent: &str, key: &str) -> String {
    format!("{parent}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// Writes `v` as pretty JSON lines, `head` before it (`"key": `) and
/// `tail` after it (`,`).
fn fold_value(
    v: &serde_json::Value,
    at: &Place,
    folds: Folds<'_>,
    (head, tail): (&str, &str),
    out: &mut Vec<DocLine>,
) {
    use serde_json::Value;
    let pad = "  ".repeat(at.level);
    let compact = |v: &Value| serde_json::to_string(v).unwrap_or_default();
    let (open, close, items): (&str, &str, Vec<(String, String, &Value)>) = match v {
        Value::Object(m) if !m.is_empty() && !is_wrapper(m) => (
            "{",
            "}",
            m.iter()
                .map(|(k, v)| {
                    let h = format!("{}: ", compact(&Value::String(k.clone())));
                    (h, step(&at.path, k), v)
                })
                .collect(),
        ),
        Value::Array(a) if !a.is_empty() => (
            "[",
            "]",
            a.iter()
                .enumerate()
                .map(|(i, v)| (String::new(), step(&at.path, &i.to_string()), v))
                .collect(),
        ),
        other => {
            out.push(DocLine {
                text: format!("{pad}{head}{}{tail}", compact(other)),
                node: at.holder.clone(),
            });
            return;
        }
    };
    let by_level = folds.depth.is_some_and(|d| at.level >= d && at.level > 0);
    if by_level != folds.toggled.contains(&at.path) {
        let n = items.len();
        let what = match (open, n) {
            ("{", 1) => "1 field".to_owned(),
            ("{", n) => format!("{n} fields"),
            (_, 1) => "1 item".to_owned(),
            (_, n) => format!("{n} items"),
        };
        out.push(DocLine {
            text: format!("{pad}{head}{open}… {what}{close}{tail}"),
            node: at.path.clone(),
        });
        return;
    }
    out.push(DocLine {
        text: format!("{pad}{head}{open}"),
        node: at.path.clone(),
    });
    let last = items.len().saturating_sub(1);
    for (i, (h, path, child)) in items.into_iter().enumerate() {
        let inner = Place {
            level: at.level + 1,
            path,
            holder: at.path.clone(),
        };
        let sep = if i < last { "," } else { "" };
        fold_value(child, &inner, folds, (&h, sep), out);
        if out.len() > MAX_LINES {
            return;
        }
    }
    out.push(DocLine {
        text: format!("{pad}{close}{tail}"),
        node: at.path.clone(),
    });
}

/// `_id` and the number of top-level fields, read without decoding the
/// whole document.
fn summary(bytes: &[u8]) -> String {
    let Ok(raw) = bson::RawDocument::from_bytes(bytes) else {
        return "undecodable".into();
    };
    let show = |v: bson::RawBsonRef<'_>| {
        v.to_raw_bson().try_into().map_or_else(
            |_: bson::raw::Error| "?".to_owned(),
            |b: bson::Bson| b.into_relaxed_extjson().to_string(),
        )
    };
    // A projection may leave `_id` out: then the first field stands for it.
    let head = match raw.get("_id") {
        Ok(Some(v)) => format!("_id {}", show(v)),
        _ => match raw.iter().next() {
            Some(Ok((k, v))) => format!("{k} {}", show(v)),
            _ => "no _id".into(),
        },
    };
    format!("{head} · {} fields", raw.iter().count())
}

/// "N match", "counting…" or why the count failed.
fn count_text(r: &Results, lang: Lang) -> String {
    match &r.count {
        None => lang.pick("counting…", "计数中…").to_owned(),
        Some(Ok(n)) => match lang {
            Lang::En => format!("{} match", crate::fmt::group(*n)),
            Lang::Zh => format!("匹配 {} 个", crate::fmt::group(*n)),
        },
        Some(Err(e)) => format!("{} ({e})", lang.pick("not counted", "未计数")),
    }
}

/// The tab's title: what is listed.
fn title(m: &Model, results: Option<&Results>) -> String {
    let l = m.lang;
    if let Some(r) = results {
        let pages = r.pages().map_or_else(|| "?".to_owned(), |p| p.to_string());
        return format!(
            " {}: {} · {} {}/{pages} ",
            l.pick("Query", "查询"),
            count_text(r, l),
            l.pick("page", "页"),
            r.page + 1,
        );
    }
    let which = match &m.docs.view {
        DocView::All => l.pick("kept sample", "保留的样本").to_owned(),
        DocView::WithField(p) => format!("{} {p}", l.pick("holding", "含有")),
        DocView::Largest => l.pick("largest first", "最大的在前").to_owned(),
    };
    format!(
        " {}: {which} ({}) · {} ",
        l.pick("Documents", "文档"),
        m.docs.list.len(),
        l.pick("Enter folds · / queries", "Enter 折叠 · / 查询")
    )
}

/// The open bar: the parts (the edited one marked), its text, and what
/// is wrong with it.
fn bar_lines(bar: &Bar, lang: Lang, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut parts = vec![Span::styled(
        format!("{} ", lang.pick("query", "查询")),
        theme.title(),
    )];
    for p in Part::ALL {
        let style = if p == bar.part {
            theme.selected()
        } else {
            theme.dim()
        };
        let filled = if querybar::text_of(&bar.text, p).trim().is_empty() {
            ""
        } else {
            "•"
        };
        parts.push(Span::styled(format!(" {}{filled} ", p.label(lang)), style));
    }
    let hint = lang.pick(
        "Enter runs · Tab next · ↑↓ history · Esc closes",
        "Enter 运行 · Tab 下一项 · ↑↓ 历史 · Esc 关闭",
    );
    let used: usize = parts
        .iter()
        .map(|p| crate::fmt::display_width(&p.content))
        .sum();
    // The keys on the parts' line when they fit, else on a line of their own.
    let hint_below = used + 2 + crate::fmt::display_width(hint) > w;
    if !hint_below {
        parts.push(Span::styled(format!("  {hint}"), theme.dim()));
    }
    let text = querybar::text_of(&bar.text, bar.part);
    // The end of a long text stays in sight, where the cursor is.
    let room = w.saturating_sub(4);
    let shown = if crate::fmt::display_width(text) > room {
        let mut tail: Vec<char> = Vec::new();
        let mut used = 0;
        for c in text.chars().rev() {
            used += crate::fmt::char_width(c);
            if used + 1 > room {
                break;
            }
            tail.push(c);
        }
        format!("…{}", tail.into_iter().rev().collect::<String>())
    } else {
        text.to_owned()
    };
    let mut out = vec![Line::from(parts)];
    if hint_below {
        out.push(Line::styled(fit(hint, w), theme.dim()));
    }
    out.push(Line::from(vec![
        Span::styled("› ", theme.title()),
        Span::styled(format!("{shown}▏"), theme.text()),
    ]));
    if let Some(e) = &bar.error {
        for l in super::wrap(&format!("✗ {e}"), w.max(1)) {
            out.push(Line::styled(
                l,
                theme.text().fg(theme.color("status.error")),
            ));
        }
    }
    out
}

/// The query shown, its state, and its explain when asked for.
fn results_lines(r: &Results, lang: Lang, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(vec![
        Span::styled(format!("{} ", lang.pick("query", "查询")), theme.title()),
        Span::styled(fit(&r.text.summary(), w.saturating_sub(6)), theme.text()),
    ])];
    let first = r.page * PAGE + 1;
    let state = if r.loading {
        lang.pick("reading…", "读取中…").to_owned()
    } else if let Some(e) = &r.error {
        format!("✗ {e}")
    } else if r.docs.is_empty() {
        lang.pick("no document matches", "没有匹配的文档")
            .to_owned()
    } else {
        format!(
            "{} {first}–{} · {} · n/p {} · x {} · w {} · Esc {}",
            lang.pick("documents", "文档"),
            first + r.docs.len() as u64 - 1,
            count_text(r, lang),
            lang.pick("pages", "翻页"),
            lang.pick("explain", "执行计划"),
            lang.pick("export", "导出"),
            lang.pick("the sample", "样本"),
        )
    };
    let style = if r.error.is_some() {
        theme.text().fg(theme.color("status.error"))
    } else {
        theme.dim()
    };
    for l in super::wrap(&state, w.max(1)) {
        out.push(Line::styled(l, style));
    }
    if r.show_explain {
        match &r.explain {
            None => out.push(Line::styled(
                lang.pick("explaining…", "分析中…"),
                theme.dim(),
            )),
            Some(Ok(e)) => {
                for l in querybar::explain_lines(e, lang) {
                    for part in super::wrap(&l, w.saturating_sub(2).max(1)) {
                        out.push(Line::styled(format!("  {part}"), theme.text()));
                    }
                }
            }
            Some(Err(e)) => {
                let text = format!("{}: {e}", lang.pick("no explain", "无法分析"));
                for part in super::wrap(&text, w.saturating_sub(2).max(1)) {
                    out.push(Line::styled(
                        format!("  {part}"),
                        theme.text().fg(theme.color("status.warning")),
                    ));
                }
            }
        }
    }
    out
}

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    if m.collection().is_none() {
        return;
    }
    let results = querybar::results(m);
    f.render_widget(block(title(m, results), m.focus == Pane::Main, theme), area);
    let inside = inner(area);
    let w = usize::from(inside.width);
    let mut lines: Vec<Line> = Vec::new();
    if let Some(bar) = &m.docs.query.bar {
        lines.extend(bar_lines(bar, m.lang, w, theme));
    }
    if let Some(r) = results {
        lines.extend(results_lines(r, m.lang, w, theme));
    }
    let h = usize::from(inside.height);
    if m.docs.list.is_empty() && results.is_none() {
        lines.push(Line::styled(
            m.lang.pick(
                "no kept document here (d on a field, L for the largest, Esc for all)",
                "这里没有保留的文档（在字段上按 d，L 看最大的，Esc 看全部）",
            ),
            theme.dim(),
        ));
    }
    // Rows each listed document takes: its heading, and its lines if open.
    let rows = |d: usize| {
        1 + if m.docs.open.contains(&d) {
            m.docs.lines.get(&d).map_or(0, Vec::len)
        } else {
            0
        }
    };
    // Keep two documents above the selection, but never leave the screen
    // part empty when the list could fill it (as after `G`); with the
    // cursor in the selected document, that document at the top.
    let mut last_start = m.docs.list.len();
    let mut filled = lines.len();
    while last_start > 0 && filled < h {
        last_start -= 1;
        filled += rows(m.docs.list[last_start]);
    }
    let cursor = m.docs.cursor;
    let start = match cursor {
        Some(_) => m.docs.sel,
        None => m.docs.sel.saturating_sub(2).min(last_start),
    };
    for (pos, &d) in m.docs.list.iter().enumerate().skip(start) {
        if lines.len() >= h {
            break;
        }
        let Some(bytes) = m.doc_bytes(d) else {
            continue;
        };
        let open = m.docs.open.contains(&d);
        let here = pos == m.docs.sel;
        // Results are numbered from the query's first match.
        let n = results.map_or(d, |r| (r.page * PAGE) as usize + d + 1);
        let head = format!(
            "{} #{n:<4} {:>9}  {}",
            if open { "▾" } else { "▸" },
            crate::fmt::bytes(bytes.len() as f64),
            summary(bytes)
        );
        let mut l = Line::from(Span::styled(fit(&head, w), theme.text()));
        if here && cursor.is_none() {
            l = l.style(theme.selected());
        }
        lines.push(l);
        if !open {
            continue;
        }
        let text = m.docs.lines.get(&d).map_or(&[][..], Vec::as_slice);
        let (skip, hs) = if here {
            let hs = clamp_hscroll(m, text.iter().map(|l| l.text.as_str()), w.saturating_sub(2));
            let room = h.saturating_sub(lines.len());
            (cursor.map_or(0, |c| super::offset(c, text.len(), room)), hs)
        } else {
            (0, 0)
        };
        for (i, line) in text.iter().enumerate().skip(skip) {
            if lines.len() >= h {
                break;
            }
            let mut l = json_line(&fit(&format!("  {}", shift(&line.text, hs)), w), theme);
            if here && cursor == Some(i) {
                l = l.style(theme.selected());
            }
            lines.push(l);
        }
    }
    f.render_widget(Paragraph::new(lines), inside);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(d: &bson::Document) -> Vec<u8> {
        let mut b = Vec::new();
        d.to_writer(&mut b).expect("BSON");
        b
    }

    #[test]
    fn each_object_and_array_folds_by_itself_and_lines_name_their_node() {
        let d = bson::doc! {"a": {"b": {"c": 1}, "d": [1, 2]}, "e/f": [{"g": 1}]};
        let b = bytes(&d);
        let mut toggled = std::collections::HashSet::new();
        let lines = |toggled: &std::collections::HashSet<String>, depth| {
            doc_lines(&b, Folds { depth, toggled })
        };
        let all = lines(&toggled, None);
        let nodes: Vec<(&str, &str)> = all
            .iter()
            .map(|l| (l.text.trim(), l.node.as_str()))
            .collect();
        assert_eq!(
            nodes,
            [
                ("{", ""),
                (r#""a": {"#, "/a"),
                (r#""b": {"#, "/a/b"),
                (r#""c": 1"#, "/a/b"),
                ("},", "/a/b"),
                (r#""d": ["#, "/a/d"),
                ("1,", "/a/d"),
                ("2", "/a/d"),
                ("]", "/a/d"),
                ("},", "/a"),
                (r#""e/f": ["#, "/e~1f"),
                ("{", "/e~1f/0"),
                (r#""g": 1"#, "/e~1f/0"),
                ("}", "/e~1f/0"),
                ("]", "/e~1f"),
                ("}", ""),
            ]
        );
        // One object folded, its sibling array left open.
        toggled.insert("/a/b".to_owned());
        let texts: Vec<String> = lines(&toggled, None).into_iter().map(|l| l.text).collect();
        assert_eq!(texts[2], r#"    "b": {… 1 field},"#);
        assert_eq!(texts[3], r#"    "d": ["#);
        // Against a level fold, a toggle opens what the level folds.
        toggled.clear();
        toggled.insert("/a".to_owned());
        let texts: Vec<String> = lines(&toggled, Some(1))
            .into_iter()
            .map(|l| l.text)
            .collect();
        assert_eq!(texts[1], r#"  "a": {"#);
        assert_eq!(texts[2], r#"    "b": {… 1 field},"#);
        assert_eq!(texts.last().map(String::as_str), Some("}"));
        assert!(
            texts.iter().any(|t| t == r#"  "e/f": [… 1 item]"#),
            "{texts:?}"
        );
    }

    #[test]
    fn folds_nested_objects_and_arrays_below_a_level() {
        let d = bson::doc! {
            "_id": bson::oid::ObjectId::parse_str("65a1b2c3d4e5f60718293a4b").expect("oid"),
            "a": {"b": {"c": 1}, "d": [1, 2]},
            "e": [{"f": 1}],
            "g": [],
            "h": "x",
        };
        let b = bytes(&d);
        assert_eq!(
            folded_lines(&b, Some(1)),
            [
                "{",
                r#"  "_id": {"$oid":"65a1b2c3d4e5f60718293a4b"},"#,
                r#"  "a": {… 2 fields},"#,
                r#"  "e": [… 1 item],"#,
                r#"  "g": [],"#,
                r#"  "h": "x""#,
                "}",
            ]
        );
        assert_eq!(
            folded_lines(&b, Some(2))[2..6],
            [
                r#"  "a": {"#,
                r#"    "b": {… 1 field},"#,
                r#"    "d": [… 2 items]"#,
                "  },",
            ]
        );
        // Unfolded, the printer writes what serde_json writes, wrappers on
        // one line aside.
        let plain = bson::doc! {"a": {"b": [1, {"c": "d"}]}, "e": true};
        let b = bytes(&plain);
        let serde =
            serde_json::to_string_pretty(&bson::Bson::Document(plain).into_relaxed_extjson())
                .expect("json");
        let serde: Vec<&str> = serde.lines().collect();
        assert_eq!(folded_lines(&b, Some(10)), serde);
        assert_eq!(folded_lines(&b, None), serde);
    }
}
