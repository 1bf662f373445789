//! Reading the values at a path out of a raw document, for the stages that
//! look at individual documents after profiling (references, growth).

use std::collections::HashMap;

use super::raw::{self, BsonType, Element};
use super::Seg;

/// Calls `each` with every element found at `segs` in the document `doc`.
/// Missing steps yield nothing; malformed bytes end the walk quietly.
pub(crate) fn visit<'a>(doc: &'a [u8], segs: &[Seg], each: &mut dyn FnMut(&Element<'a>)) {
    walk(doc, false, segs, each);
}

fn walk<'a>(body: &'a [u8], is_array: bool, segs: &[Seg], each: &mut dyn FnMut(&Element<'a>)) {
    let Some((first, rest)) = segs.split_first() else {
        return;
    };
    let Ok(iter) = raw::elements(body) else {
        return;
    };
    for el in iter {
        let Ok(el) = el else { return };
        let hit = match first {
            Seg::Elem => is_array,
            Seg::Key(k) => !is_array && el.key == k.as_bytes(),
        };
        if !hit {
            continue;
        }
        if rest.is_empty() {
            each(&el);
        } else if el.ty.is_container() {
            walk(el.value, el.ty == BsonType::Array, rest, each);
        }
        if matches!(first, Seg::Key(_)) {
            // Keys are unique in well-formed documents.
            return;
        }
    }
}

/// Calls `each` with every value a query on the dotted `keys` would compare
/// against: arrays are traversed implicitly at every step, and an array at
/// the end yields its elements (as MongoDB's `$in` matches them).
pub(crate) fn query_visit<'a>(doc: &'a [u8], keys: &[&str], each: &mut dyn FnMut(&Element<'a>)) {
    let Some((first, rest)) = keys.split_first() else {
        return;
    };
    let Ok(iter) = raw::elements(doc) else {
        return;
    };
    for el in iter {
        let Ok(el) = el else { return };
        if el.key != first.as_bytes() {
            continue;
        }
        descend(&el, rest, each);
        return;
    }
}

fn descend<'a>(el: &Element<'a>, rest: &[&str], each: &mut dyn FnMut(&Element<'a>)) {
    match (el.ty, rest.is_empty()) {
        (BsonType::Array, true) => {
            if let Ok(items) = raw::elements(el.value) {
                for item in items.flatten() {
                    each(&item);
                }
            }
        }
        (_, true) => each(el),
        (BsonType::Object, false) => query_visit(el.value, rest, each),
        (BsonType::Array, false) => {
            if let Ok(items) = raw::elements(el.value) {
                for item in items.flatten() {
                    if item.ty == BsonType::Object {
                        query_visit(item.value, rest, each);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Whether the document holds a value (not null) at the dotted `keys`, as
/// `{path: {$ne: null}}` matches it: arrays are traversed at every step, a
/// numeric step also names an array position (`a.0.b`), and an array (even
/// an empty one) is a value.
pub(crate) fn has_value(doc: &[u8], keys: &[&str]) -> bool {
    let Some((first, rest)) = keys.split_first() else {
        return false;
    };
    let Ok(iter) = raw::elements(doc) else {
        return false;
    };
    for el in iter {
        let Ok(el) = el else { return false };
        if el.key == first.as_bytes() {
            return value_below(&el, rest);
        }
    }
    false
}

fn value_below(el: &Element<'_>, rest: &[&str]) -> bool {
    let Some((next, after)) = rest.split_first() else {
        return el.ty != BsonType::Null;
    };
    match el.ty {
        BsonType::Object => has_value(el.value, rest),
        BsonType::Array => raw::elements(el.value).is_ok_and(|items| {
            items.flatten().any(|item| {
                (item.key == next.as_bytes() && value_below(&item, after))
                    || (item.ty == BsonType::Object && has_value(item.value, rest))
            })
        }),
        _ => false,
    }
}

/// The elements at a path, collected.
pub fn values<'a>(doc: &'a [u8], segs: &[Seg]) -> Vec<Element<'a>> {
    let mut out = Vec::new();
    visit(doc, segs, &mut |e| out.push(*e));
    out
}

/// The first top-level element named `key`.
pub(crate) fn top<'a>(doc: &'a [u8], key: &str) -> Option<Element<'a>> {
    raw::elements(doc)
        .ok()?
        .filter_map(Result::ok)
        .find(|e| e.key == key.as_bytes())
}

/// Number of elements of an array value.
pub(crate) fn array_len(el: &Element<'_>) -> Option<u64> {
    (el.ty == BsonType::Array).then(|| raw::elements(el.value).map_or(0, Iterator::count) as u64)
}

/// What one document carries at one of its paths: the bytes of its values
/// there (whole elements: tag, key and value), and the arrays found there
/// with their elements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathWeight {
    pub bytes: u64,
    pub arrays: u64,
    pub elements: u64,
}

/// Paths a [`Weighed`] document keeps at most.
pub const WEIGHED_PATHS: usize = 64;

/// A document measured path by path, without its bytes: what the advice
/// needs of a document too large to keep (how much a change at a path
/// would take out of it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Weighed {
    /// Its `_id` as relaxed Extended JSON.
    pub id: Option<serde_json::Value>,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its place among the kept documents when it is kept cut (long
    /// strings shortened), so that it is measured once, whole.
    pub kept_cut_at: Option<usize>,
    /// The paths that carry at least 1 % of it (the profile's notation:
    /// `[]` for the elements of an array), heaviest first.
    pub paths: Vec<(Vec<Seg>, PathWeight)>,
}

impl Weighed {
    /// `doc` measured path by path; malformed bytes end the walk where they
    /// start.
    pub(crate) fn of(doc: &[u8]) -> Weighed {
        let mut at: HashMap<Vec<Seg>, usize> = HashMap::new();
        let mut paths = Vec::new();
        weigh(doc, false, &mut Vec::new(), &mut at, &mut paths);
        // Only the paths that carry a share of it are kept (the heaviest
        // first, at most `WEIGHED_PATHS`): a change at a lighter path moves
        // its size by under 1 %, and a document of many fields would
        // otherwise keep a path list per collection for the whole run.
        let floor = doc.len() as u64 / 100;
        paths.retain(|(_, w)| w.bytes >= floor);
        paths.sort_by_key(|p| std::cmp::Reverse(p.1.bytes));
        paths.truncate(WEIGHED_PATHS);
        paths.shrink_to_fit();
        let id = top(doc, "_id")
            .and_then(|e| super::value::to_bson(e.ty, e.value))
            .map(super::extjson::Relaxed::relaxed);
        Weighed {
            id,
            bytes: doc.len() as u64,
            kept_cut_at: None,
            paths,
        }
    }

    /// What it carries at `segs` (nothing when it holds no such path, or
    /// one lighter than 1 % of it).
    pub(crate) fn at(&self, segs: &[Seg]) -> PathWeight {
        self.paths
            .iter()
            .find(|(p, _)| p.as_slice() == segs)
            .map_or_else(PathWeight::default, |(_, w)| *w)
    }
}

fn weigh(
    body: &[u8],
    is_array: bool,
    prefix: &mut Vec<Seg>,
    at: &mut HashMap<Vec<Seg>, usize>,
    paths: &mut Vec<(Vec<Seg>, PathWeight)>,
) {
    let Ok(iter) = raw::elements(body) else {
        return;
    };
    for el in iter {
        let Ok(el) = el else { return };
        prefix.push(if is_array {
            Seg::Elem
        } else {
            Seg::Key(String::from_utf8_lossy(el.key).into_owned())
        });
        let i = match at.get(prefix.as_slice()) {
            Some(&i) => i,
            None => {
                at.insert(prefix.clone(), paths.len());
                paths.push((prefix.clone(), PathWeight::default()));
                paths.len() - 1
            }
        };
        let w = &mut paths[i].1;
        w.bytes += el.size as u64;
        if el.ty == BsonType::Array {
            w.arrays += 1;
            w.elements += raw::elements(el.value).map_or(0, Iterator::count) as u64;
        }
        if el.ty.is_container() {
            weigh(el.value, el.ty == BsonType::Array, prefix, at, paths);
        }
        prefix.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn a_weighed_document_carries_what_its_values_carry_at_each_path() {
        let mut buf = Vec::new();
        doc! {"_id": 7, "post": "p", "comments": [{"t": "a"}, {"t": "bb"}, {"u": 1}], "m": [[1, 2], [3]]}
            .to_writer(&mut buf)
            .expect("encode");
        let w = Weighed::of(&buf);
        assert_eq!(w.bytes, buf.len() as u64);
        assert_eq!(w.id, Some(serde_json::json!(7)));
        for path in [
            vec![Seg::Key("comments".into())],
            vec![Seg::Key("comments".into()), Seg::Elem, Seg::Key("t".into())],
            vec![Seg::Key("m".into()), Seg::Elem, Seg::Elem],
            vec![Seg::Key("post".into())],
        ] {
            let sum: usize = values(&buf, &path).iter().map(|e| e.size).sum();
            assert_eq!(w.at(&path).bytes, sum as u64, "{path:?}");
        }
        let comments = w.at(&[Seg::Key("comments".into())]);
        assert_eq!((comments.arrays, comments.elements), (1, 3));
        let inner = w.at(&[Seg::Key("m".into()), Seg::Elem]);
        assert_eq!((inner.arrays, inner.elements), (2, 3));
        assert_eq!(w.at(&[Seg::Key("nothing".into())]), PathWeight::default());
        assert!(
            w.paths.windows(2).all(|p| p[0].1.bytes >= p[1].1.bytes),
            "heaviest first"
        );
        let top: u64 = w
            .paths
            .iter()
            .filter(|(p, _)| p.len() == 1)
            .map(|(_, x)| x.bytes)
            .sum();
        assert_eq!(
            top + 5,
            w.bytes,
            "the top-level paths carry the document but its frame"
        );
    }

    #[test]
    fn a_weighed_document_keeps_only_its_heavy_paths() {
        let mut d = bson::Document::new();
        for i in 0..500 {
            d.insert(format!("f{i}"), i);
        }
        d.insert("big", "x".repeat(20_000));
        let mut buf = Vec::new();
        d.to_writer(&mut buf).expect("encode");
        let w = Weighed::of(&buf);
        assert!(w.paths.len() <= WEIGHED_PATHS, "{}", w.paths.len());
        assert_eq!(w.paths[0].0, vec![Seg::Key("big".into())]);
        assert_eq!(
            w.at(&[Seg::Key("f3".into())]),
            PathWeight::default(),
            "under 1 %"
        );
    }

    #[test]
    fn finds_values_through_arrays_and_objects() {
        let mut buf = Vec::new();
        doc! {"items": [{"sku": "a"}, {"sku": "b"}, {"x": 1}], "c": {"d": [1, 2]}, "a.b": 5}
            .to_writer(&mut buf)
            .expect("write");
        let segs = [Seg::Key("items".into()), Seg::Elem, Seg::Key("sku".into())];
        let got: Vec<_> = values(&buf, &segs)
            .iter()
            .filter_map(|e| raw::value::str(e.value))
            .collect();
        assert_eq!(got, ["a", "b"]);
        let d = values(&buf, &[Seg::Key("c".into()), Seg::Key("d".into())]);
        assert_eq!(d.len(), 1);
        assert_eq!(array_len(&d[0]), Some(2));
        assert_eq!(values(&buf, &[Seg::Key("a.b".into())]).len(), 1);
        assert!(values(&buf, &[Seg::Key("zzz".into())]).is_empty());
        assert!(top(&buf, "c").is_some());
        let mut skus = Vec::new();
        query_visit(&buf, &["items", "sku"], &mut |e| {
            skus.push(raw::value::str(e.value).map(str::to_owned));
        });
        assert_eq!(skus, [Some("a".to_owned()), Some("b".to_owned())]);
        let mut ds = 0;
        query_visit(&buf, &["c", "d"], &mut |_| ds += 1);
        assert_eq!(ds, 2);
    }

    #[test]
    fn has_value_matches_what_the_server_matches() {
        let mut buf = Vec::new();
        doc! {"n": null, "e": [], "items": [{"sku": "a"}, {"x": 1}, {"sku": null}], "pos": [[1, 2], {"q": 1}], "o": {"p": {"q": 0}}, "s": "str"}
            .to_writer(&mut buf)
            .expect("write");
        let has = |p: &str| has_value(&buf, &p.split('.').collect::<Vec<_>>());
        for p in [
            "e",
            "items",
            "items.sku",
            "items.x",
            "items.0",
            "items.0.sku",
            "items.1.x",
            "pos.0",
            "pos.1.q",
            "pos.q",
            "o.p",
            "o.p.q",
            "s",
        ] {
            assert!(has(p), "{p} has a value");
        }
        for p in [
            "n",
            "missing",
            "items.y",
            "items.1.sku",
            "items.2.sku",
            "items.3",
            "pos.0.q",
            "o.q",
            "s.length",
            "n.x",
            "e.0",
            "",
        ] {
            assert!(!has(p), "{p} has no value");
        }
    }
}
