//! The Indexes tab's detail: the selected index's keys, kind, size and use
//! since the server started counting, and the findings that name it.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::advise::Advice;
use crate::report::CollectionReport;
use crate::source::index::IndexInfo;
use crate::tui::layout::inner;
use crate::tui::model::Model;
use crate::tui::theme::Theme;

/// `{a: 1, b: -1}` as people write a key in mongosh.
pub(crate) fn key_text(ix: &IndexInfo) -> String {
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
pub(crate) fn kinds_text(ix: &IndexInfo) -> String {
    let names: Vec<String> = ix
        .kinds
        .iter()
        .filter_map(|k| serde_json::to_value(k).ok())
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect();
    names.join(", ")
}

/// Does `v` hold the string `name` anywhere?
pub(crate) fn holds(v: &serde_json::Value, name: &str) -> bool {
    match v {
        serde_json::Value::String(s) => s == name,
        serde_json::Value::Array(a) => a.iter().any(|x| holds(x, name)),
        serde_json::Value::Object(o) => o.values().any(|x| holds(x, name)),
        _ => false,
    }
}

/// The collection's findings that name the index in their evidence.
pub(crate) fn findings_about<'a>(c: &'a CollectionReport, name: &str) -> Vec<&'a Advice> {
    c.findings
        .iter()
        .filter(|f| f.evidence.values().any(|v| holds(v, name)))
        .collect()
}

/// Is `f` about the index itself (its `index` evidence), not only naming it
/// (as the index that covers another, or one of many)?
pub(crate) fn is_about(f: &Advice, name: &str) -> bool {
    f.evidence.get("index").is_some_and(|v| holds(v, name))
}

/// Operations counted by `$indexStats` and since when, if the source has them.
pub(crate) fn usage(c: &CollectionReport, name: &str) -> Option<(u64, Option<f64>)> {
    let u = c
        .meta
        .index_usage
        .as_ref()?
        .iter()
        .find(|u| u.name == name)?;
    Some((u.ops, u.since))
}

pub(crate) fn since_text(secs: f64) -> String {
    bson::DateTime::from_millis((secs * 1000.0) as i64)
        .try_to_rfc3339_string()
        .unwrap_or_else(|_| format!("{secs:.0} s since the epoch"))
}

pub(crate) fn size_of(c: &CollectionReport, name: &str) -> Option<u64> {
    c.storage.as_ref()?.index_sizes.get(name).copied()
}

/// The selected index's detail: its lines, and the part of `detail` they
/// are drawn in.
pub(crate) fn text<'a>(
    m: &'a Model,
    c: &'a CollectionReport,
    theme: &Theme,
    detail: Rect,
) -> Option<(Vec<Line<'a>>, Rect)> {
    let lang = m.lang;
    let ix = c.indexes.get(m.indexes.sel)?;
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
        d.extend(super::parts::message_lines(fd, dw, theme, m.lang));
        d.push(Line::styled(format!("{:8} {}", "", fd.rule), theme.dim()));
    }
    Some((d, dinside))
}
