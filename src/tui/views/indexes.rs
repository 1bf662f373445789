//! The Indexes tab: every index of the selected collection with its keys,
//! kind, size and use since the server started counting, and the findings
//! that name it.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

use super::widgets::{block, fit};
use crate::advise::Advice;
use crate::report::CollectionReport;
use crate::source::index::IndexInfo;
use crate::tui::layout::{inner, offset, split};
use crate::tui::model::{Model, Pane};
use crate::tui::theme::Theme;

/// `{a: 1, b: -1}` as people write a key in mongosh.
pub fn key_text(ix: &IndexInfo) -> String {
    let parts: Vec<String> = ix
        .key
        .iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => format!("{k}: \"{s}\""),
            other => format!("{k}: {other}"),
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The index's kinds as one word list (`compound, unique`).
pub fn kinds_text(ix: &IndexInfo) -> String {
    let names: Vec<String> = ix
        .kinds
        .iter()
        .filter_map(|k| serde_json::to_value(k).ok())
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    names.join(", ")
}

/// Does `v` hold the string `name` anywhere?
fn holds(v: &serde_json::Value, name: &str) -> bool {
    match v {
        serde_json::Value::String(s) => s == name,
        serde_json::Value::Array(a) => a.iter().any(|x| holds(x, name)),
        serde_json::Value::Object(o) => o.values().any(|x| holds(x, name)),
        _ => false,
    }
}

/// The collection's findings that name the index in their evidence.
pub fn findings_about<'a>(c: &'a CollectionReport, name: &str) -> Vec<&'a Advice> {
    c.findings
        .iter()
        .filter(|f| f.evidence.values().any(|v| holds(v, name)))
        .collect()
}

/// Is `f` about the index itself (its `index` evidence), not only naming it
/// (as the index that covers another, or one of many)?
fn is_about(f: &Advice, name: &str) -> bool {
    f.evidence.get("index").is_some_and(|v| holds(v, name))
}

/// Operations counted by `$indexStats` and since when, if the source has them.
fn usage(c: &CollectionReport, name: &str) -> Option<(u64, Option<f64>)> {
    let u = c
        .meta
        .index_usage
        .as_ref()?
        .iter()
        .find(|u| u.name == name)?;
    Some((u.ops, u.since))
}

fn since_text(secs: f64) -> String {
    bson::DateTime::from_millis((secs * 1000.0) as i64)
        .try_to_rfc3339_string()
        .unwrap_or_else(|_| format!("{secs:.0} s since the epoch"))
}

fn size_of(c: &CollectionReport, name: &str) -> Option<u64> {
    c.storage.as_ref()?.index_sizes.get(name).copied()
}

pub fn render(m: &Model, theme: &Theme, f: &mut Frame, area: Rect) {
    let Some(c) = m.collection() else { return };
    let (list, detail) = split(area);
    render_list(m, c, theme, f, list);
    render_detail(m, c, theme, f, detail);
}

/// The collection's indexes, one row each.
fn render_list(m: &Model, c: &CollectionReport, theme: &Theme, f: &mut Frame, list: Rect) {
    let lang = m.lang;
    f.render_widget(
        block(
            format!(" {} ({}) ", lang.pick("Indexes", "索引"), c.indexes.len()),
            m.focus == Pane::Main,
            theme,
        ),
        list,
    );
    let inside = inner(list);
    let w = usize::from(inside.width);
    let h = usize::from(inside.height.saturating_sub(1));
    // name · kind · size · ops, the key in what is left.
    let name_w = (w / 4).clamp(8, 28);
    let kind_w = 16;
    let tail = 10 + 1 + 9;
    let key_w = w.saturating_sub(2 + name_w + kind_w + tail + 4).max(6);
    let row = |badge: &str, name: &str, key: &str, kind: &str, size: &str, ops: &str| {
        let right = |s: &str, w: usize| {
            format!(
                "{}{s}",
                " ".repeat(w.saturating_sub(crate::fmt::display_width(s)))
            )
        };
        format!(
            "{badge} {} {} {} {} {}",
            crate::tui::layout::pad(&fit(name, name_w), name_w),
            crate::tui::layout::pad(&fit(key, key_w), key_w),
            crate::tui::layout::pad(&fit(kind, kind_w), kind_w),
            right(size, 10),
            right(ops, 9)
        )
    };
    let mut lines = vec![Line::styled(
        fit(
            &row(
                " ",
                lang.pick("name", "名称"),
                lang.pick("key", "键"),
                lang.pick("kind", "类型"),
                lang.pick("size", "大小"),
                lang.pick("ops", "操作数"),
            ),
            w,
        ),
        theme.dim(),
    )];
    let off = offset(m.indexes.sel, c.indexes.len(), h);
    for (i, ix) in c.indexes.iter().enumerate().skip(off).take(h) {
        let size = size_of(c, &ix.name).map_or_else(|| "–".into(), |b| crate::fmt::bytes(b as f64));
        let ops = usage(c, &ix.name).map_or_else(|| "–".into(), |(n, _)| crate::fmt::group(n));
        let worst = c
            .findings
            .iter()
            .filter(|f| is_about(f, &ix.name))
            .map(|f| f.severity)
            .max();
        let text = row(
            super::widgets::badge(worst),
            &ix.name,
            &key_text(ix),
            &kinds_text(ix),
            &size,
            &ops,
        );
        let mut l = Line::styled(fit(&text, w), theme.text());
        if i == m.indexes.sel {
            l = l.style(theme.selected());
        }
        lines.push(l);
    }
    if c.indexes.is_empty() {
        lines.push(Line::styled(
            m.lang.pick(
                "no indexes known for this collection",
                "此集合没有已知的索引",
            ),
            theme.dim(),
        ));
    }
    f.render_widget(Paragraph::new(lines), inside);
}

/// The selected index in detail.
fn render_detail(m: &Model, c: &CollectionReport, theme: &Theme, f: &mut Frame, detail: Rect) {
    let lang = m.lang;
    let Some(ix) = c.indexes.get(m.indexes.sel) else {
        f.render_widget(
            block(format!(" {} ", lang.pick("Index", "索引")), false, theme),
            detail,
        );
        return;
    };
    f.render_widget(block(format!(" {} ", ix.name), false, theme), detail);
    let dinside = inner(detail);
    let dw = usize::from(dinside.width);
    let kv = |k: &str, v: String| {
        Line::from(vec![
            Span::styled(crate::tui::layout::pad(k, 12), theme.dim()),
            Span::styled(v, theme.text()),
        ])
    };
    let json = |v: &serde_json::Value| serde_json::to_string(v).unwrap_or_default();
    let mut d = vec![
        kv(lang.pick("key", "键"), key_text(ix)),
        kv(lang.pick("kind", "类型"), kinds_text(ix)),
    ];
    if let Some(b) = size_of(c, &ix.name) {
        d.push(kv(lang.pick("size", "大小"), crate::fmt::bytes(b as f64)));
    }
    let used = lang.pick("used", "使用");
    match usage(c, &ix.name) {
        Some((n, Some(since))) => d.push(kv(
            used,
            lang.pick(
                format!(
                    "{} operations since {}",
                    crate::fmt::group(n),
                    since_text(since)
                ),
                format!(
                    "自 {} 以来 {} 次操作",
                    since_text(since),
                    crate::fmt::group(n)
                ),
            ),
        )),
        Some((n, None)) => d.push(kv(
            used,
            lang.pick(
                format!("{} operations", crate::fmt::group(n)),
                format!("{} 次操作", crate::fmt::group(n)),
            ),
        )),
        None => d.push(kv(
            used,
            m.lang
                .pick(
                    "not known ($indexStats not available here)",
                    "未知（此处无 $indexStats）",
                )
                .to_owned(),
        )),
    }
    if let Some(p) = &ix.partial {
        d.push(kv(lang.pick("partial", "部分索引"), json(p)));
    }
    if let Some(s) = ix.expire_after_seconds {
        d.push(kv(
            lang.pick("expires", "过期"),
            lang.pick(
                format!("{s} s after the date in its field"),
                format!("字段中的日期之后 {s} 秒"),
            ),
        ));
    }
    if let Some(cl) = &ix.collation {
        d.push(kv(lang.pick("collation", "排序规则"), json(cl)));
    }
    if let Some(wts) = &ix.weights {
        d.push(kv(
            lang.pick("weights", "权重"),
            json(&serde_json::Value::Object(wts.clone())),
        ));
    }
    if let Some(l) = &ix.default_language {
        d.push(kv(lang.pick("language", "语言"), l.clone()));
    }
    if let Some(p) = &ix.wildcard_projection {
        d.push(kv(
            lang.pick("projection", "投影"),
            json(&serde_json::Value::Object(p.clone())),
        ));
    }
    let about = findings_about(c, &ix.name);
    d.push(Line::default());
    d.push(Line::styled(
        m.lang
            .pick("Findings that name this index", "提到此索引的问题"),
        theme.title(),
    ));
    if about.is_empty() {
        d.push(Line::styled(m.lang.pick("  none", "  无"), theme.dim()));
    }
    for fd in about {
        d.extend(super::widgets::message_lines(fd, dw, theme));
        d.push(Line::styled(format!("{:8} {}", "", fd.rule), theme.dim()));
    }
    let offsets = super::widgets::detail_offsets(m, &d, dinside);
    f.render_widget(Paragraph::new(d).scroll(offsets), dinside);
}
