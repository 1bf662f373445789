//! A bounded sketch of a collection's `_id`s, for telling whether two
//! collections hold the same documents without holding either: the `k`
//! smallest hashes of the `_id`s read (a bottom-k sketch), each with a hash
//! of its whole document. While at most `k` documents were read it holds
//! every one of them, so comparing two such sketches is exact.

use std::collections::BinaryHeap;

use super::sketch::hash_bytes;

/// Seeds of the two hashes, fixed so that sketches of two collections
/// compare.
const ID_SEED: u64 = 0x1d5e_ed01;
const DOC_SEED: u64 = 0x0d0c_5eed;

/// Builds an [`IdSketch`] one document at a time.
#[derive(Debug)]
pub struct IdSketcher {
    k: usize,
    heap: BinaryHeap<(u64, u64)>,
    read: u64,
    unique_kind: u64,
}

/// The `k` smallest `(_id hash, document hash)` pairs of the documents
/// read, sorted by `_id` hash.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdSketch {
    pub k: usize,
    pub entries: Vec<(u64, u64)>,
    /// Documents read (with an `_id`).
    pub read: u64,
    /// Of them, those whose `_id` is unique by construction (an ObjectId,
    /// a UUID): shared only by a copy, never by chance.
    pub unique_kind: u64,
}

/// A field path's hash, for sets of paths (a collection's shape) that
/// compare without holding the names.
pub(crate) fn path_hash(path: &str) -> u64 {
    hash_bytes(0x5a4e_5e7d, path.as_bytes())
}

/// A collection's shape: the sorted hashes of its field paths.
pub(crate) fn shape_of<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<u64> {
    let mut v: Vec<u64> = paths.into_iter().map(path_hash).collect();
    v.sort_unstable();
    v.dedup();
    v
}

impl IdSketcher {
    pub(crate) fn new(k: usize) -> IdSketcher {
        IdSketcher {
            k: k.max(1),
            heap: BinaryHeap::new(),
            read: 0,
            unique_kind: 0,
        }
    }

    /// Adds one raw BSON document; one without an `_id` is left out.
    pub(crate) fn add(&mut self, doc: &[u8]) {
        let Ok(raw) = bson::RawDocument::from_bytes(doc) else {
            return;
        };
        let Some((ty, bytes)) = id_of(raw) else {
            return;
        };
        self.read += 1;
        let unique = ty == 0x07 || (ty == 0x05 && bytes.len() == 21 && matches!(bytes[4], 3 | 4));
        self.unique_kind += u64::from(unique);
        let mut key = Vec::with_capacity(bytes.len() + 1);
        key.push(ty);
        key.extend_from_slice(bytes);
        let h = hash_bytes(ID_SEED, &key);
        if self.heap.len() < self.k {
            self.heap.push((h, hash_bytes(DOC_SEED, doc)));
        } else if self.heap.peek().is_some_and(|top| h < top.0) {
            self.heap.pop();
            self.heap.push((h, hash_bytes(DOC_SEED, doc)));
        }
    }

    pub(crate) fn finish(self) -> IdSketch {
        let mut entries = self.heap.into_vec();
        entries.sort_unstable();
        entries.dedup_by_key(|e| e.0);
        IdSketch {
            k: self.k,
            entries,
            read: self.read,
            unique_kind: self.unique_kind,
        }
    }
}

/// The `_id`'s BSON type and value bytes (as the document stores them).
fn id_of(raw: &bson::RawDocument) -> Option<(u8, &[u8])> {
    let bytes = raw.as_bytes();
    // Walk the elements: type byte, cstring name, value.
    let mut at = 4;
    while at < bytes.len().saturating_sub(1) {
        let ty = bytes[at];
        let name_end = at + 1 + bytes.get(at + 1..)?.iter().position(|b| *b == 0)?;
        let name = &bytes[at + 1..name_end];
        let value_at = name_end + 1;
        let len = value_len(ty, bytes.get(value_at..)?)?;
        if name == b"_id" {
            return Some((ty, bytes.get(value_at..value_at + len)?));
        }
        at = value_at + len;
    }
    None
}

/// The length of a value of type `ty` at the start of `b`.
fn value_len(ty: u8, b: &[u8]) -> Option<usize> {
    let i32_at = |o: usize| -> Option<usize> {
        let x: [u8; 4] = b.get(o..o + 4)?.try_into().ok()?;
        usize::try_from(i32::from_le_bytes(x)).ok()
    };
    let cstr = |o: usize| -> Option<usize> { Some(b.get(o..)?.iter().position(|x| *x == 0)? + 1) };
    Some(match ty {
        0x01 | 0x09 | 0x11 | 0x12 => 8,
        0x02 | 0x0D | 0x0E => 4 + i32_at(0)?,
        0x03 | 0x04 | 0x0F => i32_at(0)?,
        0x05 => 5 + i32_at(0)?,
        0x06 | 0x0A | 0x7F | 0xFF => 0,
        0x07 => 12,
        0x08 => 1,
        0x0B => {
            let a = cstr(0)?;
            a + cstr(a)?
        }
        0x0C => 4 + i32_at(0)? + 12,
        0x10 => 4,
        0x13 => 16,
        _ => return None,
    })
}

impl IdSketch {
    /// Whether it holds every document read.
    pub(crate) fn holds_all(&self) -> bool {
        self.read as usize <= self.k && self.entries.len() as u64 == self.read
    }

    /// `(shared, same)`: entries of `self` whose `_id` hash `other` holds
    /// too, and of those, the ones whose document hash is equal as well.
    pub(crate) fn shared_with(&self, other: &IdSketch) -> (u64, u64) {
        let (mut i, mut j, mut shared, mut same) = (0, 0, 0, 0);
        while i < self.entries.len() && j < other.entries.len() {
            let (a, b) = (self.entries[i], other.entries[j]);
            match a.0.cmp(&b.0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    same += u64::from(a.1 == b.1);
                    i += 1;
                    j += 1;
                }
            }
        }
        (shared, same)
    }

    /// Whether every `_id` read is unique by construction.
    pub(crate) fn ids_unique_by_kind(&self) -> bool {
        self.read > 0 && self.unique_kind == self.read
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn sketch(docs: &[bson::Document], k: usize) -> IdSketch {
        let mut s = IdSketcher::new(k);
        for d in docs {
            s.add(&bson::serialize_to_vec(d).expect("bson"));
        }
        s.finish()
    }

    #[test]
    fn the_id_is_found_wherever_it_is_and_hashed_by_type_and_value() {
        let a = sketch(&[doc! {"x": {"y": [1, 2]}, "s": "t", "_id": 7}], 8);
        let b = sketch(&[doc! {"_id": 7, "x": 1}], 8);
        let c = sketch(&[doc! {"_id": 7_i64}], 8);
        assert_eq!(a.shared_with(&b), (1, 0), "same _id, other document");
        assert_eq!(
            a.shared_with(&c),
            (0, 0),
            "an int and a long are other values"
        );
        assert_eq!(sketch(&[doc! {"x": 1}], 8).read, 0, "no _id: left out");
    }

    #[test]
    fn it_keeps_the_smallest_hashes_and_says_when_it_holds_all() {
        let docs: Vec<bson::Document> = (0..100).map(|i| doc! {"_id": i}).collect();
        let all = sketch(&docs, 200);
        assert!(all.holds_all());
        assert_eq!(all.entries.len(), 100);
        let some = sketch(&docs, 10);
        assert!(!some.holds_all());
        assert_eq!(some.entries, all.entries[..10].to_vec());
        let copy = sketch(&docs, 200);
        assert_eq!(all.shared_with(&copy), (100, 100));
        let oid = sketch(&[doc! {"_id": bson::oid::ObjectId::new()}], 4);
        assert!(oid.ids_unique_by_kind() && !all.ids_unique_by_kind());
    }
}
