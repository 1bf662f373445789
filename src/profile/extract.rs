//! Reading the values at a path out of a raw document, for the stages that
//! look at individual documents after profiling (references, growth).

use super::raw::{self, BsonType, Element};
use super::Seg;

/// Calls `each` with every element found at `segs` in the document `doc`.
/// Missing steps yield nothing; malformed bytes end the walk quietly.
pub fn visit<'a>(doc: &'a [u8], segs: &[Seg], each: &mut dyn FnMut(&Element<'a>)) {
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
pub fn query_visit<'a>(doc: &'a [u8], keys: &[&str], each: &mut dyn FnMut(&Element<'a>)) {
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

/// The elements at a path, collected.
pub fn values<'a>(doc: &'a [u8], segs: &[Seg]) -> Vec<Element<'a>> {
    let mut out = Vec::new();
    visit(doc, segs, &mut |e| out.push(*e));
    out
}

/// The first top-level element named `key`.
pub fn top<'a>(doc: &'a [u8], key: &str) -> Option<Element<'a>> {
    raw::elements(doc)
        .ok()?
        .filter_map(Result::ok)
        .find(|e| e.key == key.as_bytes())
}

/// Number of elements of an array value.
pub fn array_len(el: &Element<'_>) -> Option<u64> {
    (el.ty == BsonType::Array).then(|| raw::elements(el.value).map_or(0, Iterator::count) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

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
}
