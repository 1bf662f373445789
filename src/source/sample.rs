//! A bounded, uniform sample of documents kept in memory after profiling,
//! for the stages that look at individual documents (references, growth,
//! the explorer's document view).

use crate::profile::raw::{self, BsonType, RawError};
use crate::source::Sink;

/// Bytes of a string or binary value left in a cut document.
pub const CUT_VALUE: usize = 256;

/// A copy of `doc` with every string and binary value longer than `max`
/// bytes cut to its first `max` bytes (strings at a character boundary).
/// Keys, nesting, numbers, ids, dates and array lengths stay as they were:
/// what the reference and growth stages read. `None` for a malformed
/// document.
pub(crate) fn cut(doc: &[u8], max: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(doc.len().min(4096));
    cut_into(doc, max, &mut out).ok()?;
    // Kept bytes are counted by length: hold no more than that.
    out.shrink_to_fit();
    Some(out)
}

fn push_len(out: &mut Vec<u8>, n: usize) -> Result<(), RawError> {
    let n = i32::try_from(n).map_err(|_| RawError::Truncated)?;
    out.extend_from_slice(&n.to_le_bytes());
    Ok(())
}

fn cut_into(doc: &[u8], max: usize, out: &mut Vec<u8>) -> Result<(), RawError> {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    for el in raw::elements(doc)? {
        let el = el?;
        out.push(el.ty as u8);
        out.extend_from_slice(el.key);
        out.push(0);
        match el.ty {
            BsonType::String if el.value.len() > max + 5 => {
                let s = &el.value[4..el.value.len() - 1];
                let mut n = max;
                // Back to the start of a UTF-8 character.
                while n > 0 && s.get(n).is_some_and(|b| b & 0xC0 == 0x80) {
                    n -= 1;
                }
                push_len(out, n + 1)?;
                out.extend_from_slice(&s[..n]);
                out.push(0);
            }
            // Subtype 2 (old binary) carries a second length: left whole.
            BsonType::BinData if el.value.len() > max + 5 && el.value[4] != 2 => {
                push_len(out, max)?;
                out.extend_from_slice(&el.value[4..5 + max]);
            }
            BsonType::Object | BsonType::Array => cut_into(el.value, max, out)?,
            _ => out.extend_from_slice(el.value),
        }
    }
    out.push(0);
    let len = i32::try_from(out.len() - start).map_err(|_| RawError::Truncated)?;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// Uniform sample of a stream of unknown length (Vitter's algorithm R), with
/// a fixed seed per collection so that a file gives the same sample on
/// every run.
pub struct Reservoir {
    cap: u64,
    max_bytes: usize,
    bytes: usize,
    seen: u64,
    rng: u64,
    /// (read order, kept bytes, size of the document as read).
    items: Vec<(u64, Vec<u8>, u64)>,
    /// Documents passed over because they alone would exceed the budget.
    oversized: u64,
    /// Documents larger than this are kept cut (see [`cut`]).
    doc_cap: usize,
    /// Documents kept cut.
    cut: u64,
    /// Keep only documents whose BSON framing checks out.
    checked: bool,
    /// The largest document offered: its read order and its bytes (one
    /// buffer, reused), so that the advice can measure it even when it is
    /// not kept.
    largest: Option<(u64, Vec<u8>)>,
}

impl Reservoir {
    /// At most `cap` documents and (roughly) `max_bytes` bytes.
    pub fn new(cap: u64, max_bytes: usize, seed: u64) -> Reservoir {
        Reservoir {
            cap,
            max_bytes,
            bytes: 0,
            seen: 0,
            rng: seed | 1,
            items: Vec::new(),
            oversized: 0,
            doc_cap: usize::MAX,
            cut: 0,
            checked: false,
            largest: None,
        }
    }

    /// Keeps documents larger than `doc_cap` bytes cut to their shape,
    /// numbers and short values (see [`cut`]).
    #[must_use]
    pub(crate) fn cutting_above(mut self, doc_cap: usize) -> Reservoir {
        self.doc_cap = doc_cap;
        self
    }

    /// Keeps only well-formed BSON documents, checking each one it would
    /// keep (a malformed document still counts as read).
    #[must_use]
    pub(crate) fn checking_bson(mut self) -> Reservoir {
        self.checked = true;
        self
    }

    /// What is kept of `bytes`: the document, or its cut copy.
    fn keep(&mut self, bytes: &[u8]) -> Option<Vec<u8>> {
        if self.checked && crate::profile::check(bytes).is_err() {
            return None;
        }
        if bytes.len() <= self.doc_cap {
            return Some(bytes.to_vec());
        }
        let c = cut(bytes, CUT_VALUE)?;
        self.cut += 1;
        Some(c)
    }

    fn next_rand(&mut self) -> u64 {
        // xorshift64*
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn offer(&mut self, bytes: &[u8]) {
        let i = self.seen;
        self.seen += 1;
        let size = bytes.len() as u64;
        match &mut self.largest {
            Some((at, b)) if b.len() < bytes.len() => {
                *at = i;
                b.clear();
                b.extend_from_slice(bytes);
            }
            Some(_) => {}
            None => self.largest = Some((i, bytes.to_vec())),
        }
        if (self.items.len() as u64) < self.cap {
            let Some(kept) = self.keep(bytes) else { return };
            if self.bytes + kept.len() > self.max_bytes {
                self.oversized += 1;
                return;
            }
            self.bytes += kept.len();
            self.items.push((i, kept, size));
            return;
        }
        let j = self.next_rand() % self.seen;
        if j < self.cap {
            let Some(kept) = self.keep(bytes) else { return };
            let slot = &mut self.items[j as usize];
            if self.bytes - slot.1.len() + kept.len() > self.max_bytes {
                self.oversized += 1;
                return;
            }
            self.bytes = self.bytes - slot.1.len() + kept.len();
            *slot = (i, kept, size);
        }
    }

    /// Documents skipped to stay within the byte budget.
    pub(crate) fn oversized(&self) -> u64 {
        self.oversized
    }

    /// Documents kept cut to stay within the byte budget.
    pub(crate) fn cut_count(&self) -> u64 {
        self.cut
    }

    /// Bytes kept.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The kept documents in the order they were read.
    pub fn into_documents(self) -> Vec<Vec<u8>> {
        self.into_parts().0
    }

    /// The largest document offered, measured path by path, when it is not
    /// kept whole (passed over, cut, or not drawn into the sample): the
    /// kept documents then do not show it.
    pub(crate) fn largest_unkept(&self) -> Option<crate::profile::extract::Weighed> {
        let (at, bytes) = self.largest.as_ref()?;
        let kept = self.items.iter().find(|(i, _, _)| i == at);
        if kept.is_some_and(|(_, b, n)| b.len() as u64 == *n)
            || (self.checked && crate::profile::check(bytes).is_err())
        {
            return None;
        }
        let mut w = crate::profile::extract::Weighed::of(bytes);
        // Its place once the kept documents are in read order.
        w.kept_cut_at = kept.map(|_| self.items.iter().filter(|(i, _, _)| i < at).count());
        Some(w)
    }

    /// The kept documents in the order they were read, and the size of
    /// each as it was read (before any cut).
    pub(crate) fn into_parts(mut self) -> (Vec<Vec<u8>>, Vec<u64>) {
        self.items.sort_unstable_by_key(|(i, _, _)| *i);
        self.items.into_iter().map(|(_, b, n)| (b, n)).unzip()
    }

    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Hands the sample to `sink` in the order the documents were read.
    pub(crate) fn drain_into(mut self, sink: &mut dyn Sink) {
        self.items.sort_unstable_by_key(|(i, _, _)| *i);
        for (_, b, _) in &self.items {
            sink.document(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservoir_is_uniform_enough_and_bounded() {
        let mut hits = vec![0u32; 100];
        for seed in 0..400u64 {
            let mut r = Reservoir::new(10, usize::MAX, seed * 7919 + 1);
            for i in 0..100u8 {
                r.offer(&[i]);
            }
            assert_eq!(r.len(), 10);
            let mut got = Vec::new();
            r.drain_into(&mut |b: &[u8]| got.push(b[0]));
            assert!(got.windows(2).all(|w| w[0] < w[1]), "kept in read order");
            for g in got {
                hits[g as usize] += 1;
            }
        }
        // Each item is expected 40 times; allow generous noise.
        assert!(hits.iter().all(|&h| (15..=70).contains(&h)), "{hits:?}");
    }

    #[test]
    fn a_checking_reservoir_keeps_only_well_formed_documents() {
        let mut good = Vec::new();
        bson::doc! {"a": 1}.to_writer(&mut good).expect("encode");
        let mut bad = good.clone();
        bad[4] = 0xEE;
        let mut r = Reservoir::new(10, usize::MAX, 1).checking_bson();
        r.offer(&bad);
        r.offer(&good);
        assert_eq!(r.into_documents(), vec![good.clone()]);
        let mut r = Reservoir::new(10, usize::MAX, 1);
        r.offer(&bad);
        assert_eq!(r.len(), 1, "an unchecking reservoir keeps any bytes");
    }

    #[test]
    fn byte_budget_is_respected() {
        let mut r = Reservoir::new(100, 50, 1);
        for i in 0..100u8 {
            r.offer(&[i; 10]);
        }
        assert_eq!(r.len(), 5);
        assert!(r.oversized() > 0);
        let docs = r.into_documents();
        assert!(docs.iter().map(Vec::len).sum::<usize>() <= 50);
    }
}

#[cfg(test)]
mod cut_tests {
    use super::*;
    use bson::{doc, oid::ObjectId, spec::BinarySubtype, Binary, Document};

    fn bytes(d: &Document) -> Vec<u8> {
        let mut v = Vec::new();
        d.to_writer(&mut v).expect("serialise");
        v
    }

    #[test]
    fn cut_keeps_shape_numbers_ids_and_array_lengths() {
        let id = ObjectId::new();
        let long = "é".repeat(5000);
        let d = doc! {
            "_id": id,
            "n": 42_i64,
            "short": "abc",
            "long": &long,
            "bin": Binary { subtype: BinarySubtype::Generic, bytes: vec![7; 9000] },
            "arr": (0..300).map(bson::Bson::Int32).collect::<Vec<_>>(),
            "nested": {"deep": &long, "ref": id},
            "list": [{"t": &long}, {"t": "x"}],
        };
        let raw = bytes(&d);
        let c = cut(&raw, 256).expect("a cut copy");
        assert!(c.len() < 4096, "{} bytes", c.len());
        let back = Document::from_reader(&mut c.as_slice()).expect("still BSON");
        assert_eq!(back.get_object_id("_id").ok(), Some(id));
        assert_eq!(back.get_i64("n").ok(), Some(42));
        assert_eq!(back.get_str("short").ok(), Some("abc"));
        let s = back.get_str("long").expect("a string");
        assert!(s.len() <= 256 && long.starts_with(s), "cut at a character");
        assert_eq!(back.get_array("arr").map(Vec::len).ok(), Some(300));
        let nested = back.get_document("nested").expect("nested");
        assert_eq!(nested.get_object_id("ref").ok(), Some(id));
        assert_eq!(back.get_array("list").map(Vec::len).ok(), Some(2));
        match back.get("bin") {
            Some(bson::Bson::Binary(b)) => assert_eq!(b.bytes.len(), 256),
            other => panic!("binary expected, got {other:?}"),
        }
        // A small document comes back as it was.
        let small = bytes(&doc! {"a": 1, "b": "two"});
        assert_eq!(cut(&small, 256).as_deref(), Some(small.as_slice()));
        assert_eq!(cut(&[1, 2, 3], 256), None, "malformed");
    }

    #[test]
    fn reservoir_cuts_large_documents_and_remembers_their_size() {
        let big = bytes(&doc! {"_id": 1, "pad": "p".repeat(100_000)});
        let small = bytes(&doc! {"_id": 2, "pad": "p"});
        let mut r = Reservoir::new(10, 1 << 20, 1).cutting_above(4096);
        r.offer(&big);
        r.offer(&small);
        assert_eq!(r.cut_count(), 1);
        assert!(r.bytes() < 4096 + small.len());
        let (docs, sizes) = r.into_parts();
        assert_eq!(sizes, vec![big.len() as u64, small.len() as u64]);
        assert!(docs[0].len() < 1024);
        assert_eq!(docs[1], small);
    }
}
