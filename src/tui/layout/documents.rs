//! An open document's lines: pretty relaxed Extended JSON, its objects
//! and arrays folded as the user asked. The Documents tab draws them and
//! `update` moves its cursor over them.

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
pub fn doc_lines(bytes: &[u8], folds: Folds<'_>) -> Vec<DocLine> {
    let value = match bson::Document::from_reader(bytes) {
        Ok(d) => bson::Bson::Document(d).relaxed(),
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
}
