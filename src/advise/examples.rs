//! Before/after examples made from the user's own documents: a kept
//! document shown as it is, and the same data after the refactor.

use crate::profile::extjson::Relaxed as _;
use bson::{Bson, Document};
use serde_json::{json, Value};

use crate::profile::{extract, Seg};
use crate::rules::CollectionCtx;

/// Longest string shown in an example.
const MAX_STRING: usize = 48;

/// The kept document that shows a path best: the one where the path carries
/// the most bytes, or the median-sized document when no path is given.
pub fn pick_doc(ctx: &CollectionCtx<'_>, segs: Option<&[Seg]>) -> Option<Vec<u8>> {
    let kept = &ctx.data.kept;
    match segs {
        Some(s) => kept
            .iter()
            .max_by_key(|d| extract::values(d, s).iter().map(|e| e.size).sum::<usize>())
            .cloned(),
        None => {
            let mut sizes: Vec<&Vec<u8>> = kept.iter().collect();
            sizes.sort_by_key(|d| d.len());
            sizes.get(sizes.len() / 2).map(|d| (*d).clone())
        }
    }
}

/// A document for display: arrays cut to `max_array` elements (and a note
/// of how many more), long strings shortened, binary data summarised.
pub fn display_doc(raw: &[u8], max_array: usize) -> Option<Value> {
    let d = Document::from_reader(raw).ok()?;
    Some(display(&Bson::Document(d), max_array))
}

fn display(b: &Bson, max_array: usize) -> Value {
    match b {
        Bson::Document(d) => {
            let m: serde_json::Map<String, Value> = d
                .iter()
                .map(|(k, v)| (k.clone(), display(v, max_array)))
                .collect();
            Value::Object(m)
        }
        Bson::Array(a) => {
            let mut out: Vec<Value> = a
                .iter()
                .take(max_array)
                .map(|v| display(v, max_array))
                .collect();
            if a.len() > max_array {
                out.push(json!(format!("… {} more", a.len() - max_array)));
            }
            Value::Array(out)
        }
        Bson::String(s) if s.chars().count() > MAX_STRING => {
            let mut t: String = s.chars().take(MAX_STRING).collect();
            t.push('…');
            json!(t)
        }
        Bson::Binary(bin) => json!({
            "$binary": format!("{} bytes", crate::fmt::group(bin.bytes.len() as u64))
        }),
        other => other.clone().relaxed(),
    }
}

fn remove_path(d: &mut Document, segs: &[Seg]) -> Option<Bson> {
    match segs {
        [Seg::Key(k)] => d.remove(k),
        [Seg::Key(k), rest @ ..] if !rest.contains(&Seg::Elem) => match d.get_mut(k) {
            Some(Bson::Document(inner)) => remove_path(inner, rest),
            _ => None,
        },
        _ => None,
    }
}

/// The array at a path of field names (no array steps), to change in place.
fn array_mut<'a>(d: &'a mut Document, segs: &[Seg]) -> Option<&'a mut Vec<Bson>> {
    match segs {
        [Seg::Key(k)] => match d.get_mut(k) {
            Some(Bson::Array(a)) => Some(a),
            _ => None,
        },
        [Seg::Key(k), rest @ ..] => match d.get_mut(k) {
            Some(Bson::Document(inner)) => array_mut(inner, rest),
            _ => None,
        },
        _ => None,
    }
}

/// Keeps the last `keep` elements of the array at `segs`, as the subset
/// script's `$slice` does; false when there is no such array.
pub(crate) fn keep_last(d: &mut Document, segs: &[Seg], keep: u64) -> bool {
    let Some(a) = array_mut(d, segs) else {
        return false;
    };
    let start = a
        .len()
        .saturating_sub(usize::try_from(keep).unwrap_or(usize::MAX));
    a.drain(..start);
    true
}

/// Removes the value at `segs`, as the scripts' `$unset` does; false when
/// the path holds nothing or crosses an array.
pub(crate) fn remove(d: &mut Document, segs: &[Seg]) -> bool {
    remove_path(d, segs).is_some()
}

/// The document without the value at `segs`, for display.
pub fn strip_path(raw: &[u8], segs: &[Seg]) -> Option<Value> {
    let mut d = Document::from_reader(raw).ok()?;
    remove_path(&mut d, segs);
    Some(display(&Bson::Document(d), 2))
}

fn id_of(d: &Document) -> Value {
    d.get("_id").map_or(json!("…"), |v| v.clone().relaxed())
}

fn as_child(elem: &Bson, parent_key: &str, parent_id: &Value, position: usize) -> Value {
    let mut out = serde_json::Map::new();
    out.insert(
        "_id".into(),
        json!(format!("{}:{position}", parent_id_text(parent_id))),
    );
    out.insert("position".into(), json!(position));
    // As the script builds it: the element's own fields (its `_id`
    // included) win, the reference to the parent is always written.
    match display(elem, 2) {
        Value::Object(m) => out.extend(m),
        v => {
            out.insert("value".into(), v);
        }
    }
    out.insert(parent_key.into(), parent_id.clone());
    Value::Object(out)
}

fn parent_id_text(v: &Value) -> String {
    match v {
        Value::Object(m) => m
            .get("$oid")
            .and_then(Value::as_str)
            .map_or_else(|| v.to_string(), str::to_owned),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An array moved to a child collection with a parent reference.
pub(crate) fn moved_out(
    raw: Option<&[u8]>,
    segs: &[Seg],
    child: &str,
    parent_key: &str,
) -> (Option<Value>, Option<Value>) {
    let Some(raw) = raw else { return (None, None) };
    let before = display_doc(raw, 2);
    let Ok(mut d) = Document::from_reader(raw) else {
        return (before, None);
    };
    let id = id_of(&d);
    let removed = remove_path(&mut d, segs);
    let children: Vec<Value> = match removed {
        Some(Bson::Array(a)) => a
            .iter()
            .take(2)
            .enumerate()
            .map(|(i, e)| as_child(e, parent_key, &id, i))
            .collect(),
        _ => Vec::new(),
    };
    let parent_name = "parent";
    let after = json!({
        parent_name: display(&Bson::Document(d), 2),
        child: children,
    });
    (before, Some(after))
}

/// Only the newest `keep` elements stay; the rest live in the child.
pub fn subset(
    raw: Option<&[u8]>,
    segs: &[Seg],
    keep: u64,
    child: &str,
    parent_key: &str,
) -> (Option<Value>, Option<Value>) {
    let (before, after) = moved_out(raw, segs, child, parent_key);
    let Some(raw) = raw else {
        return (before, after);
    };
    let Ok(d) = Document::from_reader(raw) else {
        return (before, after);
    };
    let mut parent = d;
    keep_last(&mut parent, segs, keep);
    let after = after.map(|mut a| {
        if let Some(obj) = a.as_object_mut() {
            obj.insert("parent".into(), display(&Bson::Document(parent), 2));
        }
        a
    });
    (before, after)
}

/// A large value split off into a one-per-parent collection.
pub(crate) fn split_off(
    raw: Option<&[u8]>,
    segs: &[Seg],
    child: &str,
    parent_key: &str,
) -> (Option<Value>, Option<Value>) {
    let Some(raw) = raw else { return (None, None) };
    let before = display_doc(raw, 2);
    let Ok(mut d) = Document::from_reader(raw) else {
        return (before, None);
    };
    let id = id_of(&d);
    let removed = remove_path(&mut d, segs).map(|v| display(&v, 2));
    let name = crate::profile::render_path(segs);
    let after = json!({
        "parent": display(&Bson::Document(d), 2),
        child: { "_id": id.clone(), parent_key: id, name: removed },
    });
    (before, Some(after))
}

/// An object with data-like keys as `{k, v}` pairs.
pub fn attribute(raw: Option<&[u8]>, segs: &[Seg]) -> (Option<Value>, Option<Value>) {
    let Some(raw) = raw else { return (None, None) };
    let Ok(d) = Document::from_reader(raw) else {
        return (None, None);
    };
    let mut obj: Option<&Document> = Some(&d);
    for s in segs {
        obj = match (s, obj) {
            (Seg::Key(k), Some(o)) => o.get_document(k).ok(),
            _ => None,
        };
    }
    let Some(o) = obj else { return (None, None) };
    let name = crate::profile::render_path(segs);
    let before_map: serde_json::Map<String, Value> = o
        .iter()
        .take(3)
        .map(|(k, v)| (k.clone(), display(v, 2)))
        .collect();
    let pairs: Vec<Value> = o
        .iter()
        .take(3)
        .map(|(k, v)| json!({"k": k, "v": display(v, 2)}))
        .collect();
    let more = o.len().saturating_sub(3);
    let mut before = json!({ name.clone(): before_map });
    let mut after = json!({ name.clone(): pairs });
    if more > 0 {
        let note = json!(format!("… {more} more"));
        if let Some(m) = before.get_mut(&name).and_then(Value::as_object_mut) {
            m.insert("…".into(), note.clone());
        }
        if let Some(a) = after.get_mut(&name).and_then(Value::as_array_mut) {
            a.push(note);
        }
    }
    (Some(before), Some(after))
}

/// Events grouped into an hourly bucket.
pub fn bucket(
    docs: &[Document],
    date_field: &str,
    series_key: Option<&str>,
    values: &[String],
    numeric: &[String],
) -> (Option<Value>, Option<Value>) {
    if docs.is_empty() {
        return (None, None);
    }
    let before: Vec<Value> = docs
        .iter()
        .take(2)
        .map(|d| display(&Bson::Document(d.clone()), 2))
        .collect();
    let first = &docs[0];
    let mut id = serde_json::Map::new();
    if let Some(s) = series_key {
        id.insert(
            s.into(),
            first.get(s).map_or(Value::Null, |v| v.clone().relaxed()),
        );
    }
    id.insert("hour".into(), json!("…T10:00:00Z"));
    let events: Vec<Value> = docs
        .iter()
        .take(2)
        .map(|d| {
            let mut m = serde_json::Map::new();
            m.insert(
                date_field.into(),
                d.get(date_field)
                    .map_or(Value::Null, |v| v.clone().relaxed()),
            );
            for v in values {
                if let Some(x) = d.get(v) {
                    m.insert(v.clone(), display(x, 2));
                }
            }
            Value::Object(m)
        })
        .collect();
    let mut after = serde_json::Map::new();
    after.insert("_id".into(), Value::Object(id));
    after.insert("count".into(), json!(docs.len()));
    for n in numeric {
        after.insert(format!("{n}_min"), json!("…"));
        after.insert(format!("{n}_max"), json!("…"));
        after.insert(format!("{n}_sum"), json!("…"));
    }
    after.insert("events".into(), Value::Array(events));
    (Some(Value::Array(before)), Some(Value::Object(after)))
}
