//! An open document's lines: pretty relaxed Extended JSON, its objects
//! and arrays folded as the user asked. The Documents tab draws them and
//! `update` moves its cursor over them.

use crate::fmt::fit_end;
use crate::profile::extjson::Relaxed as _;
use crate::tui::model::DocLine;

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
pub(crate) fn doc_lines(bytes: &[u8], folds: Folds<'_>) -> Vec<DocLine> {
    let value = match bson::Document::from_reader(bytes) {
        Ok(d) => {
            let mut v = bson::Bson::Document(d).relaxed();
            readable_dates(&mut v);
            v
        }
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

/// Dates before 1970 (or after 9999), which relaxed Extended JSON writes as
/// `{"$date": {"$numberLong": "-2085523200000"}}`, shown as the ISO-8601
/// date they are, like every other date; a date no calendar year of four
/// digits holds is left as it is.
fn readable_dates(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            if m.len() == 1 {
                let iso = m
                    .get("$date")
                    .and_then(|d| d.get("$numberLong"))
                    .and_then(Value::as_str)
                    .and_then(|n| n.parse::<i64>().ok())
                    .and_then(|ms| bson::DateTime::from_millis(ms).try_to_rfc3339_string().ok());
                if let Some(iso) = iso {
                    m.insert("$date".into(), Value::String(iso));
                    return;
                }
            }
            m.values_mut().for_each(readable_dates);
        }
        Value::Array(a) => a.iter_mut().for_each(readable_dates),
        _ => {}
    }
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

/// A value as a row shows it: a string quoted, an object `{…}`, an
/// array `[n]`, an `ObjectId` as its hex, a date as ISO-8601, a number as
/// it is; anything else as compact relaxed Extended JSON. Never longer
/// than one line.
pub(crate) fn compact(v: bson::RawBsonRef<'_>) -> String {
    use bson::RawBsonRef as B;
    let text = match v {
        B::String(s) => {
            // A long string is cut before it is measured: a row never
            // holds more than a screen's width.
            let head: String = s.chars().take(COMPACT_MAX - 3).collect();
            let mut q = serde_json::to_string(&head).unwrap_or_default();
            if head.len() < s.len() {
                q.insert(q.len().saturating_sub(1), '…');
            }
            q
        }
        B::Document(_) => "{…}".to_owned(),
        B::Array(a) => format!("[{}]", a.into_iter().count()),
        B::ObjectId(o) => o.to_hex(),
        B::DateTime(d) => d
            .try_to_rfc3339_string()
            .unwrap_or_else(|_| d.timestamp_millis().to_string()),
        B::Int32(n) => n.to_string(),
        B::Int64(n) => n.to_string(),
        B::Double(f) => f.to_string(),
        B::Boolean(b) => b.to_string(),
        B::Null => "null".to_owned(),
        other => bson::RawBson::from(other).try_into().map_or_else(
            |_: bson::error::Error| "?".to_owned(),
            |b: bson::Bson| b.relaxed().to_string(),
        ),
    };
    let text = text.replace(['\n', '\r', '\t'], " ");
    if text.chars().count() > COMPACT_MAX {
        let mut t: String = text.chars().take(COMPACT_MAX).collect();
        t.push('…');
        return t;
    }
    text
}

/// Characters of a value a row shows at most, before it is cut to the
/// row's width.
const COMPACT_MAX: usize = 240;

/// A row's preview: `_id` (or, without one, the first field), then the
/// top-level fields as `key: value`, as many as `w` cells hold (the last
/// one cut with `…`).
pub fn preview(bytes: &[u8], w: usize) -> String {
    let Ok(raw) = bson::RawDocument::from_bytes(bytes) else {
        return fit_end("undecodable", w);
    };
    let mut out = String::new();
    let id = raw.get("_id").ok().flatten();
    let fields = id.map(|v| ("_id", v)).into_iter().chain(
        raw.iter()
            .filter_map(Result::ok)
            .map(|(k, v)| (k.as_str(), v))
            .filter(|(k, _)| *k != "_id"),
    );
    for (k, v) in fields {
        if !out.is_empty() {
            out.push_str("  ");
        }
        out.push_str(k);
        out.push_str(": ");
        out.push_str(&compact(v));
        if crate::fmt::display_width(&out) > w {
            break;
        }
    }
    if out.is_empty() {
        out.push_str("{}");
    }
    fit_end(&out, w)
}

/// The cell of top-level field `key`: its compact value, empty when the
/// document has none.
pub(crate) fn cell(bytes: &[u8], key: &str) -> String {
    bson::RawDocument::from_bytes(bytes)
        .ok()
        .and_then(|d| d.get(key).ok().flatten())
        .map(compact)
        .unwrap_or_default()
}

/// Widths of the table's columns in terminal cells: each as wide as its
/// header and widest cell, and, when they do not all fit in `room` (a
/// space between columns), the widest cut down first, none below 3.
pub(crate) fn column_widths(headers: &[String], rows: &[Vec<String>], room: usize) -> Vec<usize> {
    use crate::fmt::display_width;
    let mut w: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| display_width(c))
                .chain([display_width(h)])
                .max()
                .unwrap_or(0)
                .max(1)
        })
        .collect();
    let gaps = w.len().saturating_sub(1);
    let room = room.saturating_sub(gaps);
    while w.iter().sum::<usize>() > room {
        let Some((i, &widest)) = w.iter().enumerate().max_by_key(|(_, v)| **v) else {
            break;
        };
        if widest <= 3 {
            break;
        }
        w[i] -= 1;
    }
    w
}

/// A cell padded (or cut) to exactly `w` cells.
pub fn pad(s: &str, w: usize) -> String {
    let c = fit_end(s, w);
    let used = crate::fmt::display_width(&c);
    format!("{c}{}", " ".repeat(w.saturating_sub(used)))
}

/// A document as relaxed Extended JSON, pretty: what `y` copies.
pub(crate) fn json(bytes: &[u8]) -> Option<String> {
    let d = bson::Document::from_reader(bytes).ok()?;
    serde_json::to_string_pretty(&bson::Bson::Document(d).relaxed()).ok()
}

/// A document's text as the search reads it: compact relaxed Extended
/// JSON, lower case.
pub(crate) fn search_text(bytes: &[u8]) -> String {
    bson::Document::from_reader(bytes)
        .map(|d| bson::Bson::Document(d).relaxed().to_string().to_lowercase())
        .unwrap_or_default()
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
            serde_json::to_string_pretty(&bson::Bson::Document(plain).relaxed()).expect("json");
        let serde: Vec<&str> = serde.lines().collect();
        assert_eq!(folded_lines(&b, Some(10)), serde);
        assert_eq!(folded_lines(&b, None), serde);
    }

    #[test]
    fn a_preview_shows_fields_compactly_and_never_splits_a_wide_character() {
        let d = bson::doc! {
            "name": "日本語のなまえ",
            "_id": 7,
            "tags": ["a", "b", "c"],
            "addr": {"city": "x"},
            "n": 2.5,
        };
        let b = bytes(&d);
        assert_eq!(
            preview(&b, 200),
            r#"_id: 7  name: "日本語のなまえ"  tags: [3]  addr: {…}  n: 2.5"#
        );
        for w in 0..60 {
            let p = preview(&b, w);
            assert!(crate::fmt::display_width(&p) <= w, "{w}: {p}");
            assert!(w < 4 || p.starts_with("_id"), "{w}: {p}");
        }
        // 15 cells: `_id: 7  name: "` is 15, the first wide one would be the 16th.
        assert_eq!(preview(&b, 16), "_id: 7  name: \"…");
        assert_eq!(cell(&b, "tags"), "[3]");
        let long = bytes(&bson::doc! {"s": "é".repeat(10_000)});
        let c = cell(&long, "s");
        assert_eq!(c.chars().count(), COMPACT_MAX, "{c}");
        assert!(c.ends_with("é…\""), "{c}");
        assert_eq!(cell(&b, "missing"), "");
    }

    #[test]
    fn columns_fit_the_room_the_widest_cut_first() {
        let h = vec!["_id".to_owned(), "name".to_owned()];
        let rows = vec![vec!["1".to_owned(), "x".repeat(40)]];
        assert_eq!(column_widths(&h, &rows, 100), [3, 40]);
        assert_eq!(column_widths(&h, &rows, 20), [3, 16]);
        assert_eq!(pad("中文字", 4), "中… ");
    }

    #[test]
    fn dates_before_1970_show_as_dates() {
        let d = bson::doc! {
            "born": bson::DateTime::from_millis(-2_085_523_200_000),
            "at": [bson::DateTime::from_millis(0)],
        };
        let lines = folded_lines(&bytes(&d), None);
        assert!(
            lines.contains(&r#"  "born": {"$date":"1903-12-01T00:00:00Z"},"#.to_owned()),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains(r#"{"$date":"1970-01-01T00:00:00Z"}"#)),
            "{lines:?}"
        );
        assert!(
            lines.iter().all(|l| !l.contains("-2085523200000")),
            "{lines:?}"
        );
    }
}
