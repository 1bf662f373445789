//! An encoder of BSON columns (`BinData` subtype 7, the columns of
//! compressed time-series buckets), written from the format's description
//! and not from docshape's decoder, to hold the decoder against: values go
//! in, bytes come out, and the decoder must give the values back.
//!
//! Every choice the format leaves open is made at random from a seed: a
//! literal where a delta would do, any Simple-8b selector (plain or
//! extended) whose slots fit, a repeat block where the last slot repeats,
//! how many blocks a control byte holds, the scale of doubles, whether a
//! run of objects is interleaved (and in which of the three modes), the
//! reference object's values. Which selectors and modes were used is
//! counted, so a test can check it used them all.
//!
//! Also a generator of columns — every BSON type, constant runs, small and
//! large steps, missing values alone and in long runs, changes of type,
//! objects whose fields come and go, nested arrays — from a seed.
//!
//! Shared by `tests/it/bsoncolumn.rs`, `tests/it/e2e_files.rs` and the profile
//! benchmark.

#![allow(dead_code)]

use std::collections::BTreeSet;

use bson::{Bson, Document};

/// A value of a column: its BSON type tag and value bytes, or `None` where
/// the measurement lacks the field.
pub type Value = Option<(u8, Vec<u8>)>;

/// xorshift64* from a seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

/// What an encoding used, over one or many columns.
#[derive(Clone, Debug, Default)]
pub struct Used {
    /// Plain selectors 1–14, as `(selector, 0)`; extended ones as
    /// `(7 or 8, extension)`.
    pub selectors: BTreeSet<(u8, u8)>,
    /// Repeat blocks, by count of 120s (1–16).
    pub repeats: BTreeSet<u8>,
    /// Scale indexes of control bytes (5: bits as an integer).
    pub scales: BTreeSet<u8>,
    /// Interleaved start bytes.
    pub interleaved: BTreeSet<u8>,
    /// Blocks per control byte.
    pub blocks_per_control: BTreeSet<u8>,
    pub literals: u64,
    pub missing_slots: u64,
    pub deltas: u64,
    /// Literals inside interleaved runs.
    pub sub_literals: u64,
    /// Sub-objects kept empty by the reference.
    pub kept_empty: u64,
    /// Strings written as a delta from 0 after one no integer holds.
    pub from_zero: u64,
}

/// How freely the encoder chooses.
#[derive(Clone, Debug)]
pub struct Style {
    /// Percent of values written as literals where a delta would do.
    pub literals: u64,
    /// Percent of runs of objects (or arrays) interleaved.
    pub interleaving: u64,
    /// Percent of repeatable slots written as repeat blocks.
    pub repeating: u64,
    /// Percent of blocks given the densest selector that fits (the rest
    /// get any that fits).
    pub dense: u64,
}

impl Default for Style {
    fn default() -> Style {
        Style {
            literals: 3,
            interleaving: 85,
            repeating: 80,
            dense: 50,
        }
    }
}

/// Encodes `values` as a BSON column.
pub fn encode(values: &[Value], rng: &mut Rng, style: &Style, used: &mut Used) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = Enc { rng, style, used };
    let mut regular = Stream::new();
    let mut i = 0;
    while i < values.len() {
        let run = e.object_run(&values[i..]);
        if run > 0 {
            let mode = e.mode_for(&values[i..i + run]);
            if let Some(mode) = mode {
                let taken = &values[i..i + run];
                regular.flush(&mut e, &mut out);
                e.interleave(mode, taken, &mut out);
                regular = Stream::new();
                if let Some(Some(last)) = taken.last() {
                    regular.last = Some(last.clone());
                }
                i += run;
                continue;
            }
        }
        regular.push(&mut e, &values[i], &mut out);
        i += 1;
    }
    regular.flush(&mut e, &mut out);
    out.push(0);
    out
}

/// A slot: missing, or a zig-zag encoded delta.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Missing,
    Value(u128),
}

/// Slots written under one scale (doubles) — the unit split into control
/// bytes.
#[derive(Clone, Debug)]
struct Segment {
    scale: u8,
    slots: Vec<Slot>,
}

/// What the encoder writes for one (sub-)column: a literal, or a control
/// byte with its blocks and how many slots they hold.
#[derive(Clone, Debug)]
enum Item {
    Literal(Vec<u8>),
    Blocks(Vec<u8>, usize),
}

impl Item {
    fn bytes(&self) -> &[u8] {
        match self {
            Item::Literal(b) | Item::Blocks(b, _) => b,
        }
    }
}

struct Enc<'a> {
    rng: &'a mut Rng,
    style: &'a Style,
    used: &'a mut Used,
}

const SCALES: [f64; 5] = [1.0, 10.0, 100.0, 10_000.0, 100_000_000.0];

/// A double as an integer at scale index `s` (5: its bits), if the
/// integer divided back gives exactly the same bits.
fn scaled(value: f64, scale: u8) -> Option<i64> {
    if scale == 5 {
        return Some(value.to_bits() as i64);
    }
    let mult = SCALES[usize::from(scale)];
    let x = value * mult;
    let limit = 2f64.powi(53);
    if x.is_nan() || x < -limit || x > limit {
        return None;
    }
    let n = x.round() as i64;
    ((n as f64 / mult).to_bits() == value.to_bits()).then_some(n)
}

fn zigzag(d: i64) -> u128 {
    u128::from(((d << 1) ^ (d >> 63)) as u64)
}

fn zigzag_wide(d: i128) -> u128 {
    ((d << 1) ^ (d >> 127)) as u128
}

/// A string's bytes reversed, as a little-endian 128-bit integer, when
/// it fits (at most 16 bytes, not starting with a zero byte).
fn text_int(value: &[u8]) -> Option<i128> {
    let text = &value[4..value.len() - 1];
    if text.len() > 16 || text.first() == Some(&0) {
        return None;
    }
    let mut b = [0u8; 16];
    for (k, &x) in text.iter().rev().enumerate() {
        b[k] = x;
    }
    Some(i128::from_le_bytes(b))
}

fn binary_int(value: &[u8]) -> Option<i128> {
    let data = &value[5..];
    if data.len() > 16 {
        return None;
    }
    let mut b = [0u8; 16];
    b[..data.len()].copy_from_slice(data);
    Some(i128::from_le_bytes(b))
}

fn oid_int(v: &[u8]) -> i64 {
    i64::from_le_bytes([v[11], v[3], v[10], v[2], v[9], v[1], v[0], 0])
}

fn i64_of(v: &[u8]) -> i64 {
    i64::from_le_bytes(v[..8].try_into().expect("8 bytes"))
}

/// The slots one block can hold: `(selector, extension, slots, value
/// bits, count bits, zero bits per count)`.
const LAYOUTS: [(u8, u8, u8, u8, u8, u8); 36] = [
    (1, 0, 60, 1, 0, 0),
    (2, 0, 30, 2, 0, 0),
    (3, 0, 20, 3, 0, 0),
    (4, 0, 15, 4, 0, 0),
    (5, 0, 12, 5, 0, 0),
    (6, 0, 10, 6, 0, 0),
    (7, 0, 8, 7, 0, 0),
    (8, 0, 7, 8, 0, 0),
    (9, 0, 6, 10, 0, 0),
    (10, 0, 5, 12, 0, 0),
    (11, 0, 4, 15, 0, 0),
    (12, 0, 3, 20, 0, 0),
    (13, 0, 2, 30, 0, 0),
    (14, 0, 1, 60, 0, 0),
    (7, 1, 9, 2, 4, 1),
    (7, 2, 8, 3, 4, 1),
    (7, 3, 7, 4, 4, 1),
    (7, 4, 6, 5, 4, 1),
    (7, 5, 5, 7, 4, 1),
    (7, 6, 4, 10, 4, 1),
    (7, 7, 3, 14, 4, 1),
    (7, 8, 2, 24, 4, 1),
    (7, 9, 1, 52, 4, 1),
    (8, 1, 7, 4, 4, 4),
    (8, 2, 6, 5, 4, 4),
    (8, 3, 5, 7, 4, 4),
    (8, 4, 4, 10, 4, 4),
    (8, 5, 3, 14, 4, 4),
    (8, 6, 2, 24, 4, 4),
    (8, 7, 1, 52, 4, 4),
    (8, 8, 6, 4, 5, 4),
    (8, 9, 5, 6, 5, 4),
    (8, 10, 4, 9, 5, 4),
    (8, 11, 3, 13, 5, 4),
    (8, 12, 2, 23, 5, 4),
    (8, 13, 1, 51, 5, 4),
];

/// The bits of `slot` in a slot of `vb` value bits and `cb` count bits
/// (counting zero bits `m` at a time), if it fits.
fn slot_bits(slot: Slot, vb: u8, cb: u8, m: u8) -> Option<u64> {
    let width = vb + cb;
    let all = (1u64 << width) - 1;
    let Slot::Value(u) = slot else {
        return Some(all);
    };
    if cb == 0 {
        return (u < u128::from(all)).then_some(u as u64);
    }
    if u == 0 {
        return Some(0);
    }
    let tz = u.trailing_zeros();
    let max_count = (1u32 << cb) - 1;
    let mut c = (tz / u32::from(m)).min(max_count);
    loop {
        let v = u >> (c * u32::from(m));
        if v < (1u128 << vb) {
            let bits = ((v as u64) << cb) | u64::from(c);
            if bits != all {
                return Some(bits);
            }
        }
        if c == 0 {
            return None;
        }
        c -= 1;
    }
}

/// Whether some block can hold `slot`.
fn fits_some(slot: Slot) -> bool {
    LAYOUTS
        .iter()
        .any(|&(_, _, _, vb, cb, m)| slot_bits(slot, vb, cb, m).is_some())
}

impl Enc<'_> {
    /// Packs `slots` into Simple-8b blocks; `prev` is the last slot
    /// written before them (which a repeat block repeats).
    fn pack(&mut self, slots: &[Slot], prev: &mut Slot) -> Vec<(u64, usize)> {
        let mut words = Vec::new();
        let mut i = 0;
        while i < slots.len() {
            let same = slots[i..].iter().take_while(|&&s| s == *prev).count();
            if same >= 120 && self.rng.chance(self.style.repeating) {
                let most = (same / 120).min(16) as u64;
                // The longest repeat, or any shorter one.
                let k = if self.rng.chance(40) {
                    most
                } else {
                    self.rng.range(1, most)
                };
                words.push((15 | ((k - 1) << 4), 120 * k as usize));
                self.used.repeats.insert(k as u8);
                i += 120 * k as usize;
                continue;
            }
            let fitting: Vec<(u8, u8, u8, u8, u8, u8)> = LAYOUTS
                .iter()
                .copied()
                .filter(|&(_, _, n, vb, cb, m)| {
                    i + usize::from(n) <= slots.len()
                        && slots[i..i + usize::from(n)]
                            .iter()
                            .all(|&s| slot_bits(s, vb, cb, m).is_some())
                })
                .collect();
            assert!(!fitting.is_empty(), "no block holds slot {:?}", slots[i]);
            let pick = if self.rng.chance(self.style.dense) {
                *fitting.iter().max_by_key(|l| l.2).expect("one fits")
            } else {
                fitting[self.rng.below(fitting.len() as u64) as usize]
            };
            let (sel, ext, n, vb, cb, m) = pick;
            let mut word = u64::from(sel);
            let mut at = 4;
            if sel == 7 || sel == 8 {
                word |= u64::from(ext) << 4;
                at = 8;
            }
            for &s in &slots[i..i + usize::from(n)] {
                word |= slot_bits(s, vb, cb, m).expect("fits") << at;
                at += u32::from(vb + cb);
            }
            self.used.selectors.insert((sel, ext));
            words.push((word, usize::from(n)));
            *prev = slots[i + usize::from(n) - 1];
            i += usize::from(n);
        }
        words
    }

    /// Control bytes of 1–16 blocks each for a segment.
    fn controls(&mut self, seg: &Segment, prev: &mut Slot, items: &mut Vec<Item>) {
        let words = self.pack(&seg.slots, prev);
        let nibble = if seg.scale == 5 {
            0x80
        } else {
            0x90 + (seg.scale << 4)
        };
        let mut i = 0;
        while i < words.len() {
            let n = (self.rng.range(1, 16) as usize).min(words.len() - i);
            let mut bytes = vec![nibble | (n as u8 - 1)];
            let mut count = 0;
            for &(w, k) in &words[i..i + n] {
                bytes.extend_from_slice(&w.to_le_bytes());
                count += k;
            }
            self.used.blocks_per_control.insert(n as u8);
            self.used.scales.insert(seg.scale);
            items.push(Item::Blocks(bytes, count));
            i += n;
        }
    }

    /// How many values from the start of `values` could form one run of
    /// objects (or of arrays): values of the first one's type with a
    /// scalar in them, or missing, at least two of them present.
    fn object_run(&mut self, values: &[Value]) -> usize {
        let Some(Some((tag @ (3 | 4), _))) = values.first() else {
            return 0;
        };
        if !self.rng.chance(self.style.interleaving) {
            return 0;
        }
        let mut n = 0;
        let mut present = 0;
        for v in values.iter().take(1_000) {
            match v {
                Some((t, b)) if t == tag && has_scalar(b) => present += 1,
                None => {}
                _ => break,
            }
            n += 1;
        }
        if present < 2 {
            return 0;
        }
        // Missing values at the end are left to the regular column, so
        // each run ends on an object.
        while values[n - 1].is_none() {
            n -= 1;
        }
        self.rng.range(2, n as u64) as usize
    }

    /// The interleaving mode for `run` (whose first value is present),
    /// if its objects decode back exactly under one: `0xF1` or `0xF0` for
    /// objects, `0xF2` for arrays.
    fn mode_for(&mut self, run: &[Value]) -> Option<u8> {
        let Some(Some((tag, _))) = run.first() else {
            return None;
        };
        let modes: &[u8] = if *tag == 4 {
            &[0xF2]
        } else if self.rng.chance(25) {
            &[0xF0, 0xF1]
        } else {
            &[0xF1, 0xF0]
        };
        modes.iter().copied().find(|&mode| {
            let arrays = mode != 0xF0;
            let docs: Vec<Option<Document>> = run
                .iter()
                .map(|v| v.as_ref().map(|(_, b)| doc_of(b)))
                .collect();
            let Some(reference) = merge_all(&docs, arrays) else {
                return false;
            };
            scalars(&reference, arrays) > 0
                && docs
                    .iter()
                    .all(|d| decodes_back(&reference, d.as_ref(), arrays))
        })
    }

    /// An interleaved run of `values` in `mode`.
    fn interleave(&mut self, mode: u8, values: &[Value], out: &mut Vec<u8>) {
        let arrays = mode != 0xF0;
        let docs: Vec<Option<Document>> = values
            .iter()
            .map(|v| v.as_ref().map(|(_, b)| doc_of(b)))
            .collect();
        let mut reference = merge_all(&docs, arrays).expect("checked");
        // The reference's scalars: the first value present, or now and
        // then another value (which makes the first a literal).
        let paths = leaf_paths(&reference, arrays);
        for path in &paths {
            let first = docs.iter().flatten().find_map(|d| get_path(d, path));
            let value = match first {
                Some(v) if !self.rng.chance(30) => v,
                _ => random_scalar(self.rng),
            };
            set_path(&mut reference, path, value);
        }
        self.used.kept_empty += empties(&reference, arrays);
        let mut streams: Vec<(Stream, Vec<Item>)> = paths
            .iter()
            .map(|p| {
                let mut s = Stream::new();
                s.start_from(&bson_value(&get_path(&reference, p).expect("a leaf")));
                (s, Vec::new())
            })
            .collect();
        for d in &docs {
            for (k, path) in paths.iter().enumerate() {
                let v = d
                    .as_ref()
                    .and_then(|d| get_path(d, path))
                    .map(|b| bson_value(&b));
                let (s, items) = &mut streams[k];
                s.push_item(self, &v, items);
            }
        }
        for (s, items) in &mut streams {
            s.flush_items(self, items);
        }
        self.used.sub_literals += streams
            .iter()
            .map(|(_, items)| {
                items
                    .iter()
                    .filter(|i| matches!(i, Item::Literal(_)))
                    .count() as u64
            })
            .sum::<u64>();
        out.push(mode);
        out.extend_from_slice(&bson::serialize_to_vec(&reference).expect("reference"));
        // Items in the order the decoder asks for them: each object takes
        // one value of every sub-column, in order.
        let mut queues: Vec<std::collections::VecDeque<Item>> =
            streams.into_iter().map(|(_, items)| items.into()).collect();
        let mut left = vec![0usize; queues.len()];
        for _ in 0..docs.len() {
            for (k, q) in queues.iter_mut().enumerate() {
                if left[k] == 0 {
                    let item = q.pop_front().expect("a sub-column ran out");
                    out.extend_from_slice(item.bytes());
                    left[k] = match item {
                        Item::Literal(_) => 1,
                        Item::Blocks(_, n) => n,
                    };
                }
                left[k] -= 1;
            }
        }
        assert!(left.iter().all(|&n| n == 0), "a sub-column has values left");
        assert!(queues.iter().all(std::collections::VecDeque::is_empty));
        out.push(0);
        self.used.interleaved.insert(mode);
    }
}

/// A (sub-)column being encoded: the last value present and what a delta
/// is taken from, the slots not yet written.
#[derive(Clone, Debug)]
struct Stream {
    last: Option<(u8, Vec<u8>)>,
    /// For deltas of deltas: the last delta.
    step: i64,
    /// Slots since the last literal, by scale.
    segments: Vec<Segment>,
    /// The last slot written (a repeat block repeats it).
    prev: Slot,
}

impl Stream {
    fn new() -> Stream {
        Stream {
            last: None,
            step: 0,
            segments: Vec::new(),
            prev: Slot::Value(0),
        }
    }

    /// Starts from a reference object's scalar, as after a literal.
    fn start_from(&mut self, v: &(u8, Vec<u8>)) {
        self.last = Some(v.clone());
        self.step = 0;
        self.prev = Slot::Value(0);
    }

    fn push(&mut self, e: &mut Enc<'_>, v: &Value, out: &mut Vec<u8>) {
        let mut items = Vec::new();
        self.push_item(e, v, &mut items);
        for i in items {
            out.extend_from_slice(i.bytes());
        }
    }

    fn flush(&mut self, e: &mut Enc<'_>, out: &mut Vec<u8>) {
        let mut items = Vec::new();
        self.flush_items(e, &mut items);
        for i in items {
            out.extend_from_slice(i.bytes());
        }
    }

    /// Writes the slots waiting, as control bytes.
    fn flush_items(&mut self, e: &mut Enc<'_>, items: &mut Vec<Item>) {
        for seg in std::mem::take(&mut self.segments) {
            e.controls(&seg, &mut self.prev, items);
        }
    }

    /// Adds a slot under `scale`, splitting segments now and then to
    /// have several control bytes of one scale.
    fn slot(&mut self, e: &mut Enc<'_>, scale: u8, slot: Slot) {
        match self.segments.last_mut() {
            Some(seg) if seg.scale == scale && e.rng.below(3_000) != 0 => seg.slots.push(slot),
            _ => self.segments.push(Segment {
                scale,
                slots: vec![slot],
            }),
        }
        match slot {
            Slot::Missing => e.used.missing_slots += 1,
            Slot::Value(_) => e.used.deltas += 1,
        }
    }

    fn push_item(&mut self, e: &mut Enc<'_>, v: &Value, items: &mut Vec<Item>) {
        let Some((tag, bytes)) = v else {
            let scale = self.segments.last().map_or(5, |s| s.scale);
            self.slot(e, scale, Slot::Missing);
            return;
        };
        if !e.rng.chance(e.style.literals) {
            if let Some((scale, slot, step)) = self.delta(e, *tag, bytes) {
                if fits_some(slot) {
                    self.slot(e, scale, slot);
                    self.step = step;
                    self.last = Some((*tag, bytes.clone()));
                    return;
                }
            }
        }
        self.flush_items(e, items);
        let mut lit = vec![*tag, 0];
        lit.extend_from_slice(bytes);
        items.push(Item::Literal(lit));
        e.used.literals += 1;
        self.start_from(&(*tag, bytes.clone()));
    }

    /// The slot taking the last value to `(tag, v)`, if a delta can: its
    /// scale, the slot, the delta of deltas' new step (`a` and `b`: the
    /// new and the last value as numbers).
    #[allow(clippy::many_single_char_names)]
    fn delta(&mut self, e: &mut Enc<'_>, tag: u8, v: &[u8]) -> Option<(u8, Slot, i64)> {
        let (last_tag, last) = self.last.as_ref()?;
        if *last_tag != tag {
            return None;
        }
        let plain = |d: i64| Some((5, Slot::Value(zigzag(d)), 0));
        match tag {
            0x10 => {
                let a = i64::from(i32::from_le_bytes(v[..4].try_into().ok()?));
                let b = i64::from(i32::from_le_bytes(last[..4].try_into().ok()?));
                plain(a - b)
            }
            0x12 => plain(i64_of(v).wrapping_sub(i64_of(last))),
            0x08 => plain(i64::from(v[0]) - i64::from(last[0])),
            0x09 | 0x11 => {
                let d = i64_of(v).wrapping_sub(i64_of(last));
                Some((5, Slot::Value(zigzag(d.wrapping_sub(self.step))), d))
            }
            0x07 => {
                if v[4..9] != last[4..9] {
                    return None;
                }
                let d = oid_int(v) - oid_int(last);
                Some((5, Slot::Value(zigzag(d.wrapping_sub(self.step))), d))
            }
            0x01 => {
                let (a, b) = (
                    f64::from_le_bytes(v.try_into().ok()?),
                    f64::from_le_bytes(last[..8].try_into().ok()?),
                );
                let current = self.segments.last().map(|s| s.scale);
                let works = |s: u8| Some(scaled(a, s)?.wrapping_sub(scaled(b, s)?));
                // The current scale when it serves, else one that does
                // (at random among those, the bits-as-integer one last).
                let scale = match current {
                    Some(s) if works(s).is_some() && !e.rng.chance(5) => s,
                    _ => {
                        let ok: Vec<u8> = (0..5).filter(|&s| works(s).is_some()).collect();
                        if ok.is_empty() || e.rng.chance(10) {
                            5
                        } else {
                            ok[e.rng.below(ok.len() as u64) as usize]
                        }
                    }
                };
                Some((scale, Slot::Value(zigzag(works(scale)?)), 0))
            }
            0x02 | 0x0D | 0x05 | 0x13 => {
                if v == &last[..] {
                    return Some((5, Slot::Value(0), 0));
                }
                let (a, b) = match tag {
                    0x05 => {
                        if v.len() != last.len() || v[4] != last[4] {
                            return None;
                        }
                        (binary_int(v)?, binary_int(last)?)
                    }
                    0x13 => (
                        i128::from_le_bytes(v.try_into().ok()?),
                        i128::from_le_bytes(last[..].try_into().ok()?),
                    ),
                    // A string no integer holds is a base of 0; a new
                    // string of 0 (empty) would read as a repeat.
                    _ => {
                        let a = text_int(v)?;
                        match text_int(last) {
                            Some(b) => (a, b),
                            None if a != 0 => {
                                e.used.from_zero += 1;
                                (a, 0)
                            }
                            None => return None,
                        }
                    }
                };
                Some((5, Slot::Value(zigzag_wide(a.wrapping_sub(b))), 0))
            }
            _ => (v == &last[..]).then_some((5, Slot::Value(0), 0)),
        }
    }
}

// ---------------------------------------------------------------------
// Objects: the reference a run of them is interleaved against.

fn doc_of(bytes: &[u8]) -> Document {
    Document::from_reader(bytes).expect("an object value is a document")
}

/// A value as a column holds it: its tag and value bytes.
pub fn bson_value(v: &Bson) -> (u8, Vec<u8>) {
    let d = bson::doc! {"": v.clone()};
    let b = bson::serialize_to_vec(&d).expect("encode");
    // Length (4), tag, empty name's zero byte, value, closing zero.
    (b[4], b[6..b.len() - 1].to_vec())
}

/// Whether an object value holds a scalar anywhere (an interleaved run
/// needs one).
fn has_scalar(bytes: &[u8]) -> bool {
    fn any(d: &Document) -> bool {
        d.iter().any(|(_, v)| match v {
            Bson::Document(s) => any(s),
            Bson::Array(a) => a.iter().any(|x| match x {
                Bson::Document(s) => any(s),
                Bson::Array(_) => any(&array_doc(x)),
                _ => true,
            }),
            _ => true,
        })
    }
    any(&doc_of(bytes))
}

fn is_sub(v: &Bson, arrays: bool) -> bool {
    matches!(v, Bson::Document(_)) || (arrays && matches!(v, Bson::Array(_)))
}

/// An array as the document of its positions.
fn array_doc(v: &Bson) -> Document {
    match v {
        Bson::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, x)| (i.to_string(), x.clone()))
            .collect(),
        Bson::Document(d) => d.clone(),
        _ => Document::new(),
    }
}

fn from_doc(d: Document, like: &Bson) -> Bson {
    match like {
        Bson::Array(_) => Bson::Array(d.into_iter().map(|(_, v)| v).collect()),
        _ => Bson::Document(d),
    }
}

/// The smallest object holding every field of `docs`, in their order,
/// if there is one: the reference of an interleaved run.
fn merge_all(docs: &[Option<Document>], arrays: bool) -> Option<Document> {
    let mut reference = Document::new();
    for d in docs.iter().flatten() {
        reference = merge(&reference, d, arrays)?;
    }
    Some(reference)
}

fn merge(a: &Document, b: &Document, arrays: bool) -> Option<Document> {
    // Fields of `b` must come in `a`'s order; new ones go after the field
    // of `b` before them.
    let mut out: Vec<(String, Bson)> = a.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let mut after = 0;
    for (k, v) in b {
        match out.iter().position(|(x, _)| x == k) {
            Some(p) => {
                if p < after {
                    return None;
                }
                let old = &out[p].1;
                if is_sub(old, arrays) || is_sub(v, arrays) {
                    if !(is_sub(old, arrays) && is_sub(v, arrays))
                        || std::mem::discriminant(old) != std::mem::discriminant(v)
                    {
                        return None;
                    }
                    let m = merge(&array_doc(old), &array_doc(v), arrays)?;
                    if matches!(old, Bson::Array(_))
                        && m.keys().enumerate().any(|(i, key)| *key != i.to_string())
                    {
                        return None;
                    }
                    out[p].1 = from_doc(m, old);
                }
                after = p + 1;
            }
            None => {
                out.insert(after, (k.clone(), v.clone()));
                after += 1;
            }
        }
    }
    Some(out.into_iter().collect())
}

/// The scalars of a reference.
fn scalars(d: &Document, arrays: bool) -> usize {
    d.iter()
        .map(|(_, v)| {
            if is_sub(v, arrays) {
                scalars(&array_doc(v), arrays)
            } else {
                1
            }
        })
        .sum()
}

/// Sub-objects of a reference that are empty (kept in every object).
fn empties(d: &Document, arrays: bool) -> u64 {
    d.iter()
        .map(|(_, v)| match v {
            _ if !is_sub(v, arrays) => 0,
            _ if array_doc(v).is_empty() => 1,
            _ => empties(&array_doc(v), arrays),
        })
        .sum()
}

fn leaf_paths(d: &Document, arrays: bool) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (k, v) in d {
        if is_sub(v, arrays) {
            for mut p in leaf_paths(&array_doc(v), arrays) {
                p.insert(0, k.clone());
                out.push(p);
            }
        } else {
            out.push(vec![k.clone()]);
        }
    }
    out
}

fn get_path(d: &Document, path: &[String]) -> Option<Bson> {
    let v = d.get(&path[0])?;
    if path.len() == 1 {
        return Some(v.clone());
    }
    match v {
        Bson::Document(_) | Bson::Array(_) => get_path(&array_doc(v), &path[1..]),
        _ => None,
    }
}

fn set_path(d: &mut Document, path: &[String], value: Bson) {
    if path.len() == 1 {
        d.insert(path[0].clone(), value);
        return;
    }
    if let Some(v) = d.get_mut(&path[0]) {
        let mut inner = array_doc(v);
        set_path(&mut inner, &path[1..], value);
        *v = from_doc(inner, v);
    }
}

/// What an interleaved run gives back for `d` against `reference`: each
/// scalar where `d` has it, sub-objects with nothing present left out
/// unless empty in the reference, nothing at all a missing value.
fn rebuild(reference: &Document, d: Option<&Document>, arrays: bool) -> Option<Document> {
    let mut out = Document::new();
    for (k, r) in reference {
        let mine = d.and_then(|d| d.get(k));
        if is_sub(r, arrays) {
            let sub_ref = array_doc(r);
            let sub_mine = mine.filter(|m| is_sub(m, arrays)).map(array_doc);
            match rebuild(&sub_ref, sub_mine.as_ref(), arrays) {
                Some(s) => {
                    out.insert(k.clone(), from_doc_keyed(s, r));
                }
                None if sub_ref.is_empty() => {
                    out.insert(k.clone(), from_doc_keyed(Document::new(), r));
                }
                None => {}
            }
        } else if let Some(m) = mine {
            out.insert(k.clone(), m.clone());
        }
    }
    (!out.is_empty()).then_some(out)
}

/// A rebuilt sub-object as the type the reference gives it; an array
/// keeps its reference keys, so it only compares equal to a real array
/// when they run 0, 1, 2…
fn from_doc_keyed(d: Document, like: &Bson) -> Bson {
    match like {
        Bson::Array(_) if d.keys().enumerate().all(|(i, k)| *k == i.to_string()) => {
            Bson::Array(d.into_iter().map(|(_, v)| v).collect())
        }
        _ => Bson::Document(d),
    }
}

/// Whether every field of `d` is in the reference, at the same kind.
fn covered(r: &Document, d: &Document, arrays: bool) -> bool {
    d.iter().all(|(k, v)| match r.get(k) {
        Some(rv) if is_sub(rv, arrays) => {
            is_sub(v, arrays)
                && std::mem::discriminant(rv) == std::mem::discriminant(v)
                && covered(&array_doc(rv), &array_doc(v), arrays)
        }
        Some(_) => true,
        None => false,
    })
}

/// Whether `d` comes back exactly from an interleaved run against
/// `reference`.
fn decodes_back(reference: &Document, d: Option<&Document>, arrays: bool) -> bool {
    let Some(d) = d else {
        return rebuild(reference, None, arrays).is_none();
    };
    covered(reference, d, arrays)
        && rebuild(reference, Some(d), arrays).is_some_and(|r| {
            bson::serialize_to_vec(&r).expect("encode")
                == bson::serialize_to_vec(d).expect("encode")
        })
}

// ---------------------------------------------------------------------
// Values to encode.

fn oid_bytes(seconds: u32, unique: [u8; 5], counter: u32) -> [u8; 12] {
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&seconds.to_be_bytes());
    b[4..9].copy_from_slice(&unique);
    b[9..].copy_from_slice(&counter.to_be_bytes()[1..]);
    b
}

/// A scalar of any type the column may hold.
pub fn random_scalar(r: &mut Rng) -> Bson {
    use bson::spec::BinarySubtype;
    match r.below(18) {
        0 => Bson::Int32(r.next() as i32),
        1 => Bson::Int64(r.next() as i64),
        2 => Bson::Double(f64::from((r.next() % 100_000) as u32) / 100.0),
        3 => Bson::Double(f64::from_bits(r.next())),
        4 => Bson::String(short_text(r)),
        5 => Bson::String("a string longer than sixteen bytes".into()),
        6 => Bson::Boolean(r.chance(50)),
        7 => Bson::DateTime(bson::DateTime::from_millis(r.next() as i64 >> 20)),
        8 => Bson::Timestamp(bson::Timestamp {
            time: r.next() as u32,
            increment: r.next() as u32,
        }),
        9 => Bson::ObjectId(bson::oid::ObjectId::from_bytes(oid_bytes(
            r.next() as u32,
            [1, 2, 3, 4, 5],
            r.next() as u32,
        ))),
        10 => Bson::Null,
        11 => Bson::MinKey,
        12 => Bson::MaxKey,
        13 => Bson::Decimal128(bson::Decimal128::from_bytes(
            u128::from(r.next()).to_le_bytes(),
        )),
        14 => Bson::Binary(bson::Binary {
            subtype: BinarySubtype::Generic,
            bytes: r.next().to_le_bytes()[..r.range(0, 8) as usize].to_vec(),
        }),
        15 => Bson::RegularExpression(bson::Regex {
            pattern: bson::raw::cstr!("^a").into(),
            options: bson::raw::cstr!("i").into(),
        }),
        16 => Bson::JavaScriptCode(short_text(r)),
        _ => Bson::Symbol("sym".into()),
    }
}

fn short_text(r: &mut Rng) -> String {
    let n = r.range(0, 16) as usize;
    (0..n)
        .map(|_| char::from(b'a' + r.below(26) as u8))
        .collect()
}

/// A column of `n` values of one kind and pattern, from `r`.
pub fn column(r: &mut Rng, n: usize) -> Vec<Value> {
    let kind = r.below(20);
    let missing = match r.below(4) {
        0 => 0,
        1 => 2,
        2 => 20,
        _ => 60,
    };
    // Long runs: missing, or the same step.
    let run_len = |r: &mut Rng| match r.below(10) {
        0 => r.range(1_900, 4_000),
        1 => r.range(120, 1_900),
        _ => r.range(1, 40),
    } as usize;
    let mut out = Vec::with_capacity(n);
    let mut state = State::new(r);
    while out.len() < n {
        let len = run_len(r).min(n - out.len());
        let gap = r.chance(missing);
        let change = r.chance(15);
        for _ in 0..len {
            if gap || r.chance(missing / 10) {
                out.push(None);
            } else {
                let v = state.next(r, kind, change);
                out.push(Some(bson_value(&v)));
            }
        }
    }
    out
}

/// The running state of a generated column.
struct State {
    int: i64,
    step: i64,
    float: f64,
    text: Vec<u8>,
    seconds: u32,
    counter: u32,
    unique: [u8; 5],
    template: Document,
}

impl State {
    fn new(r: &mut Rng) -> State {
        State {
            int: (r.next() as i64) >> r.range(1, 62),
            step: r.range(0, 3) as i64,
            float: f64::from((r.next() % 10_000) as u32) / 4.0,
            text: b"sensor-0001".to_vec(),
            seconds: 1_700_000_000,
            counter: r.next() as u32 & 0xFF_FFFF,
            unique: [9, 8, 7, 6, 5],
            template: template(r, 0),
        }
    }

    /// The next value of column kind `kind`; `change` varies the steps.
    fn next(&mut self, r: &mut Rng, kind: u64, change: bool) -> Bson {
        if change {
            self.step = match r.below(5) {
                0 => 0,
                1 => r.range(1, 10) as i64,
                2 => -(r.range(1, 1_000) as i64),
                3 => (r.next() as i64) >> r.range(2, 40),
                _ => (r.next() as i64) >> 1,
            };
        }
        self.int = self.int.wrapping_add(if r.below(1_000) != 0 {
            self.step
        } else {
            r.next() as i64 >> r.range(0, 50)
        });
        match kind {
            0 => Bson::Int32(self.int as i32),
            1 => Bson::Int64(self.int),
            2 => Bson::Boolean(self.int & 1 == 1),
            3 => {
                // Prices, readings, whole numbers, raw bits.
                self.float += match r.below(6) {
                    0 => 0.01 * f64::from(r.range(0, 50) as u32),
                    1 => f64::from(r.range(0, 3) as u32),
                    2 => 0.0001 * f64::from(r.range(0, 99) as u32),
                    3 => 0.000_000_01 * f64::from(r.range(0, 9) as u32),
                    _ => 0.0,
                };
                match r.below(40) {
                    0 => Bson::Double(f64::from_bits(r.next())),
                    1 => Bson::Double(-0.0),
                    2 => Bson::Double(f64::NAN),
                    3 => Bson::Double(f64::INFINITY),
                    _ => Bson::Double((self.float * 100.0).round() / 100.0),
                }
            }
            4 => Bson::DateTime(bson::DateTime::from_millis(
                1_700_000_000_000 + self.int % (1 << 40),
            )),
            5 => Bson::Timestamp(bson::Timestamp {
                time: (self.int >> 8) as u32,
                increment: self.int as u32 & 0xFF,
            }),
            6 => {
                self.counter = self.counter.wrapping_add(r.range(0, 3) as u32) & 0xFF_FFFF;
                if r.chance(5) {
                    self.seconds += r.range(0, 100) as u32;
                }
                if r.chance(1) {
                    self.unique[0] ^= 1;
                }
                Bson::ObjectId(bson::oid::ObjectId::from_bytes(oid_bytes(
                    self.seconds,
                    self.unique,
                    self.counter,
                )))
            }
            7 => {
                // Short strings that change in their last bytes.
                if let Some(last) = self.text.last_mut().filter(|_| r.chance(30)) {
                    *last = b'0' + r.below(10) as u8;
                }
                if r.chance(3) {
                    self.text = short_text(r).into_bytes();
                }
                if r.chance(2) {
                    return Bson::String("\0starts with a zero byte".into());
                }
                Bson::String(String::from_utf8(self.text.clone()).unwrap_or_default())
            }
            // Long strings (no integer holds them), now and then a short
            // one: a delta from 0.
            8 if r.chance(30) => Bson::String(format!("s{}", self.int % 50)),
            8 => Bson::String(format!(
                "a long string, longer than 16 bytes: {}",
                self.int % 4
            )),
            9 => Bson::JavaScriptCode(format!("f{}", self.int % 7)),
            10 => {
                use bson::spec::BinarySubtype;
                let len = if r.chance(90) {
                    8
                } else {
                    r.range(0, 24) as usize
                };
                let mut bytes = self.int.to_le_bytes().to_vec();
                bytes.resize(len, 7);
                Bson::Binary(bson::Binary {
                    subtype: if r.chance(95) {
                        BinarySubtype::Generic
                    } else {
                        BinarySubtype::UserDefined(0x80)
                    },
                    bytes,
                })
            }
            11 => Bson::Decimal128(bson::Decimal128::from_bytes(
                (0x3040_0000_0000_0000_0000_0000_0000_0000u128
                    + u128::from(self.int as u64 % 1_000_000))
                .to_le_bytes(),
            )),
            12 => match r.below(6) {
                0 => Bson::Null,
                1 => Bson::MinKey,
                2 => Bson::MaxKey,
                3 => Bson::Undefined,
                4 => Bson::RegularExpression(bson::Regex {
                    pattern: bson::raw::cstr!("x").into(),
                    options: bson::raw::cstr!("").into(),
                }),
                _ => Bson::Symbol("s".into()),
            },
            13 => Bson::Null,
            14..=16 => Bson::Document(self.object(r)),
            17 => {
                let n = r.range(1, 4) as usize;
                Bson::Array(
                    (0..n)
                        .map(|k| Bson::Int32(self.int as i32 + k as i32))
                        .collect(),
                )
            }
            18 => random_scalar(r),
            _ => {
                // A mix of types.
                match r.below(3) {
                    0 => Bson::Int32(self.int as i32),
                    1 => Bson::Double(self.float),
                    _ => Bson::Document(self.object(r)),
                }
            }
        }
    }

    /// An object shaped like the template: fields kept or left out,
    /// arrays cut short, values stepping.
    fn object(&mut self, r: &mut Rng) -> Document {
        if r.chance(2) {
            self.template = template(r, 0);
        }
        let t = self.template.clone();
        let mut d = fill(r, &t, self.int);
        if d.is_empty() {
            d.insert("x", 1);
        }
        d
    }
}

/// A shape of object: scalars, sub-objects, arrays of scalars or objects,
/// now and then an empty sub-object.
fn template(r: &mut Rng, depth: u32) -> Document {
    let mut d = Document::new();
    for k in 0..r.range(1, 5) {
        let name = format!(
            "{}{k}",
            ["a", "temp", "v", "pos", "tags"][r.below(5) as usize]
        );
        let v = match r.below(if depth < 2 { 8 } else { 5 }) {
            0 => Bson::Int32(0),
            1 => Bson::Double(0.0),
            2 => Bson::String(String::new()),
            3 => Bson::DateTime(bson::DateTime::from_millis(0)),
            4 => Bson::Boolean(false),
            5 => Bson::Document(template(r, depth + 1)),
            6 => Bson::Array((0..r.range(1, 3)).map(|_| Bson::Int64(0)).collect()),
            7 if r.chance(30) => Bson::Array(vec![Bson::Array(vec![Bson::Int64(0); 3])]),
            _ if r.chance(20) => Bson::Document(Document::new()),
            _ => Bson::Array(vec![Bson::Document(template(r, depth + 1))]),
        };
        d.insert(name, v);
    }
    d
}

/// Values for a template's scalars, some left out.
fn fill(r: &mut Rng, t: &Document, base: i64) -> Document {
    let mut d = Document::new();
    for (k, v) in t {
        if r.chance(10) {
            continue;
        }
        let x = match v {
            Bson::Int32(_) => Bson::Int32(base as i32 / 3),
            Bson::Double(_) => Bson::Double(f64::from((base % 10_000) as i32) / 10.0),
            Bson::String(_) => Bson::String(format!("s{}", base % 5)),
            Bson::DateTime(_) => Bson::DateTime(bson::DateTime::from_millis(
                1_600_000_000_000 + base % 1_000_000,
            )),
            Bson::Boolean(_) => Bson::Boolean(base % 3 == 0),
            Bson::Int64(_) => Bson::Int64(base / 7),
            Bson::Document(s) if s.is_empty() => Bson::Document(Document::new()),
            Bson::Document(s) => {
                let inner = fill(r, s, base);
                if inner.is_empty() {
                    continue;
                }
                Bson::Document(inner)
            }
            Bson::Array(a) => Bson::Array(fill_array(r, a, base)),
            other => other.clone(),
        };
        d.insert(k.clone(), x);
    }
    d
}

/// Values for an array of a template, cut short now and then.
fn fill_array(r: &mut Rng, a: &[Bson], base: i64) -> Vec<Bson> {
    let n = r.range(1, a.len() as u64) as usize;
    a[..n]
        .iter()
        .map(|x| match x {
            Bson::Document(s) => Bson::Document(fill(r, s, base)),
            Bson::Array(inner) => Bson::Array(fill_array(r, inner, base)),
            _ => Bson::Int64(base.wrapping_mul(3)),
        })
        .collect()
}
