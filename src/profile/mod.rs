//! Streaming shape inference: one pass over raw BSON documents, memory
//! bounded by the number of distinct paths (itself capped), never by the
//! number of documents.
//!
//! The accumulator is a tree of path nodes. A document is walked element by
//! element; each element finds its node among its parent's children by
//! comparing raw key bytes, so a path is allocated once, when first seen, and
//! every later value only updates counters and fixed-size sketches.

pub mod extjson;
pub mod extract;
pub mod ids;
pub mod parallel;
pub mod raw;
pub mod shelf;
pub mod sketch;
mod value;

use std::collections::HashMap;

use serde::Serialize;

pub use parallel::{threads_from_env, ShardedProfiler};
use raw::{BsonType, Element, RawError, TYPE_SLOTS};
use sketch::{hash_bytes, wilson, Distinct, LogHistogram, Summary};

/// How many distinct paths one collection may have before new ones are
/// dropped (and the report says so).
pub const DEFAULT_MAX_PATHS: usize = 20_000;
/// Nesting below this depth is counted but not descended into.
pub const MAX_WALK_DEPTH: u32 = 200;
/// Example values kept per path.
pub const MAX_EXAMPLES: usize = 5;
/// Children of one node beyond which lookups go through a hash map.
const LINEAR_CHILDREN: usize = 12;

const ROOT: u32 = 0;

/// Field names are short and not attacker-controlled in a way that matters
/// for a local profile, so a fast non-cryptographic hash suffices.
type BuildKeyHasher = std::hash::BuildHasherDefault<KeyHasher>;

#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = sketch::hash_bytes(self.0, bytes);
    }
}

#[derive(Debug)]
struct Node {
    key: Box<[u8]>,
    /// True for the element node of an array (`items[]`).
    elem: bool,
    depth: u32,
    /// Every child, named fields and the element node alike (listing order
    /// comes from `first`).
    children: Vec<u32>,
    /// The element node among `children`, when this path has held an
    /// array; 0 (the root, never a child) when it has not. A path may hold
    /// an object in one document and an array in another, so the element
    /// node is found by what it is, never by its place among the children.
    elem_id: u32,
    /// Named children by key, once there are many (the element node is
    /// never in it).
    index: Option<HashMap<Box<[u8]>, u32, BuildKeyHasher>>,
    last_doc: u64,
    /// Where the path was first seen: (document number, element number in
    /// that document). Children are listed in this order, so a profile is
    /// the same however the documents were split between profilers.
    first: (u64, u32),
    count: u64,
    values: u64,
    types: [u64; TYPE_SLOTS],
    bytes: u64,
    arr: Option<Box<LogHistogram>>,
    distinct: Distinct,
    /// The `MAX_EXAMPLES` distinct values with the smallest hashes (a
    /// bottom-k sample: independent of document order, merges exactly).
    examples: Vec<Example>,
    /// Values hashing below this may enter `examples`.
    example_gate: u64,
    num: Option<(f64, f64)>,
    date: Option<(i64, i64)>,
    oid: Option<(u32, u32)>,
    str_len: Option<(u64, u64)>,
    str_chars: Option<(u64, u64)>,
}

impl Node {
    fn new(key: &[u8], elem: bool, depth: u32, first: (u64, u32)) -> Node {
        Node {
            key: key.into(),
            elem,
            depth,
            children: Vec::new(),
            elem_id: ROOT,
            index: None,
            last_doc: 0,
            first,
            count: 0,
            values: 0,
            types: [0; TYPE_SLOTS],
            bytes: 0,
            arr: None,
            distinct: Distinct::default(),
            examples: Vec::new(),
            example_gate: u64::MAX,
            num: None,
            date: None,
            oid: None,
            str_len: None,
            str_chars: None,
        }
    }

    /// Offers a value's hash (first seen in document `at`) to the bottom-k
    /// example sample; `make` builds the value only when it is kept.
    fn offer_example(&mut self, h: u64, at: u64, make: impl FnOnce() -> Option<serde_json::Value>) {
        if let Some(e) = self.examples.iter_mut().find(|e| e.hash == h) {
            e.at = e.at.min(at);
            return;
        }
        let Some(value) = make() else { return };
        let e = Example { hash: h, at, value };
        if self.examples.len() < MAX_EXAMPLES {
            self.examples.push(e);
        } else if let Some(worst) = self.examples.iter_mut().max_by_key(|e| e.hash) {
            *worst = e;
        }
        self.example_gate = if self.examples.len() < MAX_EXAMPLES {
            u64::MAX
        } else {
            self.examples
                .iter()
                .map(|e| e.hash)
                .max()
                .unwrap_or(u64::MAX)
        };
    }
}

/// One kept example value.
#[derive(Clone, Debug)]
struct Example {
    hash: u64,
    /// The first document it was seen in.
    at: u64,
    value: serde_json::Value,
}

/// Accumulates the shape of one collection from a stream of documents.
#[derive(Debug)]
pub struct Profiler {
    nodes: Vec<Node>,
    docs: u64,
    /// Number of the document being walked (1-based, counting every
    /// document handed in, valid or not, across all shards).
    doc_no: u64,
    /// Element number inside the document being walked.
    ord: u32,
    sizes: LogHistogram,
    total_bytes: u128,
    max_depth: u32,
    max_paths: usize,
    dropped_values: u64,
    too_deep: u64,
    invalid: u64,
    /// The first malformed document: its number and what was wrong.
    first_error: Option<(u64, String)>,
}

impl Default for Profiler {
    fn default() -> Self {
        Profiler::new(DEFAULT_MAX_PATHS)
    }
}

impl Profiler {
    pub fn new(max_paths: usize) -> Profiler {
        Profiler {
            nodes: vec![Node::new(b"", false, 0, (0, 0))],
            docs: 0,
            doc_no: 0,
            ord: 0,
            sizes: LogHistogram::default(),
            total_bytes: 0,
            max_depth: 0,
            max_paths: max_paths.max(1),
            dropped_values: 0,
            too_deep: 0,
            invalid: 0,
            first_error: None,
        }
    }

    /// Documents profiled so far (valid ones).
    pub fn documents(&self) -> u64 {
        self.docs
    }

    /// Profiles one document given as raw BSON bytes. A malformed document is
    /// counted as invalid and otherwise ignored; what was read of it before
    /// the fault is kept out of the profile.
    pub fn add(&mut self, doc: &[u8]) -> Result<(), RawError> {
        self.add_numbered(doc, self.doc_no + 1)
    }

    /// Profiles document number `no` (1-based) of a stream that may be
    /// split between several profilers; numbers must increase. Profilers
    /// fed disjoint parts of a stream merge into exactly the profile of the
    /// whole stream (as long as the path cap is not reached).
    pub(crate) fn add_numbered(&mut self, doc: &[u8], no: u64) -> Result<(), RawError> {
        debug_assert!(no > self.doc_no, "document numbers increase");
        self.doc_no = no;
        self.ord = 0;
        // Validate first so a broken document never leaves half its fields
        // counted. Validation is a cheap framing walk; the main walk below
        // re-checks every bound anyway.
        if let Err(e) = validate(doc, 0) {
            self.invalid += 1;
            if self.first_error.is_none() {
                self.first_error = Some((no, e.to_string()));
            }
            return Err(e);
        }
        self.add_valid(doc, no);
        Ok(())
    }

    /// Profiles document number `no`, already validated by `check`.
    fn add_valid(&mut self, doc: &[u8], no: u64) {
        self.doc_no = no;
        self.ord = 0;
        self.docs += 1;
        self.sizes.record(doc.len() as u64);
        self.total_bytes += doc.len() as u128;
        let (depth, _) = self.walk(ROOT, doc, false, 1);
        self.max_depth = self.max_depth.max(depth);
    }

    /// Walks a document or array body; returns its nesting depth.
    /// Walks a document or array body; returns its nesting depth and the
    /// number of elements it holds (an array's length).
    fn walk(&mut self, parent: u32, body: &[u8], is_array: bool, depth: u32) -> (u32, u64) {
        let Ok(iter) = raw::elements(body) else {
            return (depth, 0);
        };
        let mut deepest = depth;
        let mut count = 0u64;
        for (i, el) in iter.enumerate() {
            let Ok(el) = el else { break };
            count += 1;
            self.ord = self.ord.wrapping_add(1);
            let node = if is_array {
                self.elem_child(parent)
            } else {
                self.child(parent, el.key, i)
            };
            let Some(node) = node else {
                // Past the path cap: not profiled, but its depth still counts.
                self.dropped_values += 1;
                if el.ty == BsonType::Array || el.ty == BsonType::Object {
                    deepest = deepest.max(depth_of(el.value, depth + 1));
                }
                continue;
            };
            self.visit(node, &el);
            if el.ty == BsonType::Array || el.ty == BsonType::Object {
                let array = el.ty == BsonType::Array;
                if depth >= MAX_WALK_DEPTH {
                    self.too_deep += 1;
                    deepest = deepest.max(depth + 1);
                    if array {
                        let len = raw::elements(el.value).map_or(0, Iterator::count) as u64;
                        self.record_len(node, len);
                    }
                    continue;
                }
                let (d, len) = self.walk(node, el.value, array, depth + 1);
                if array {
                    self.record_len(node, len);
                }
                deepest = deepest.max(d);
            }
        }
        (deepest, count)
    }

    fn record_len(&mut self, node: u32, len: u64) {
        self.nodes[node as usize]
            .arr
            .get_or_insert_with(Box::default)
            .record(len);
    }

    fn elem_child(&mut self, parent: u32) -> Option<u32> {
        match self.nodes[parent as usize].elem_id {
            ROOT => self.push_child(parent, b"", true),
            c => Some(c),
        }
    }

    /// The child named `key`; `pos` is the element's position, tried first
    /// because documents of a collection usually keep their field order.
    fn child(&mut self, parent: u32, key: &[u8], pos: usize) -> Option<u32> {
        let p = &self.nodes[parent as usize];
        let named = |c: u32| {
            let n = &self.nodes[c as usize];
            !n.elem && &*n.key == key
        };
        if let Some(&c) = p.children.get(pos) {
            if named(c) {
                return Some(c);
            }
        }
        if let Some(index) = &p.index {
            if let Some(&c) = index.get(key) {
                return Some(c);
            }
        } else if let Some(&c) = p.children.iter().find(|&&c| named(c)) {
            return Some(c);
        }
        self.push_child(parent, key, false)
    }

    fn push_child(&mut self, parent: u32, key: &[u8], elem: bool) -> Option<u32> {
        if self.nodes.len() > self.max_paths {
            return None;
        }
        let id = self.nodes.len() as u32;
        let depth = self.nodes[parent as usize].depth + 1;
        self.nodes
            .push(Node::new(key, elem, depth, (self.doc_no, self.ord)));
        let p = &mut self.nodes[parent as usize];
        p.children.push(id);
        if elem {
            p.elem_id = id;
        } else if let Some(index) = &mut p.index {
            index.insert(key.into(), id);
        } else if p.children.len() > LINEAR_CHILDREN {
            let kids = std::mem::take(&mut p.children);
            let map: HashMap<Box<[u8]>, u32, BuildKeyHasher> = kids
                .iter()
                .filter(|&&c| !self.nodes[c as usize].elem)
                .map(|&c| (self.nodes[c as usize].key.clone(), c))
                .collect();
            let p = &mut self.nodes[parent as usize];
            p.children = kids;
            p.index = Some(map);
        }
        Some(id)
    }

    fn visit(&mut self, id: u32, el: &Element<'_>) {
        let doc_no = self.doc_no;
        let n = &mut self.nodes[id as usize];
        if n.last_doc != doc_no {
            n.last_doc = doc_no;
            n.count += 1;
        }
        n.values += 1;
        n.types[el.ty.slot()] += 1;
        n.bytes += el.size as u64;
        match el.ty {
            // Array lengths are recorded by `walk`, which counts the
            // elements as it visits them.
            BsonType::Object | BsonType::Array => {}
            ty => {
                let h = hash_bytes(u64::from(ty as u8), el.value);
                // While the distinct set is exact, a value already seen has
                // already been offered; past it, every value below the gate is.
                let new = n.distinct.insert(h);
                if h < n.example_gate && (new || !n.distinct.is_exact()) {
                    n.offer_example(h, doc_no, || value::example(el));
                }
                value::track_range(n, el);
            }
        }
    }

    /// Merges another profiler's accumulators into this one. Counts, types,
    /// bytes, histograms and sketches merge exactly; the path cap still holds.
    pub(crate) fn merge(&mut self, other: &Profiler) {
        self.docs += other.docs;
        self.doc_no = self.doc_no.max(other.doc_no);
        self.sizes.merge(&other.sizes);
        self.total_bytes += other.total_bytes;
        self.max_depth = self.max_depth.max(other.max_depth);
        self.dropped_values += other.dropped_values;
        self.too_deep += other.too_deep;
        self.invalid += other.invalid;
        if let Some((no, e)) = &other.first_error {
            if self.first_error.as_ref().is_none_or(|(mine, _)| no < mine) {
                self.first_error = Some((*no, e.clone()));
            }
        }
        self.merge_node(ROOT, other, ROOT);
    }

    fn merge_node(&mut self, mine: u32, other: &Profiler, theirs: u32) {
        for &oc in &other.nodes[theirs as usize].children {
            let on = &other.nodes[oc as usize];
            let before = self.nodes.len();
            let target = if on.elem {
                self.elem_child(mine)
            } else {
                self.child(mine, &on.key, usize::MAX)
            };
            let Some(t) = target else {
                self.dropped_values += on.values;
                continue;
            };
            let created = self.nodes.len() > before;
            let n = &mut self.nodes[t as usize];
            n.first = if created {
                on.first
            } else {
                n.first.min(on.first)
            };
            n.count += on.count;
            n.values += on.values;
            for (a, b) in n.types.iter_mut().zip(on.types) {
                *a += b;
            }
            n.bytes += on.bytes;
            if let Some(oa) = &on.arr {
                n.arr.get_or_insert_with(Box::default).merge(oa);
            }
            n.distinct.merge(&on.distinct);
            for ex in &on.examples {
                if ex.hash < n.example_gate || n.examples.iter().any(|e| e.hash == ex.hash) {
                    n.offer_example(ex.hash, ex.at, || Some(ex.value.clone()));
                }
            }
            n.num = merge_range(n.num, on.num, f64::min, f64::max);
            n.date = merge_range(n.date, on.date, i64::min, i64::max);
            n.oid = merge_range(n.oid, on.oid, u32::min, u32::max);
            n.str_len = merge_range(n.str_len, on.str_len, u64::min, u64::max);
            n.str_chars = merge_range(n.str_chars, on.str_chars, u64::min, u64::max);
            self.merge_node(t, other, oc);
        }
    }

    /// Turns the accumulators into the profile reports show.
    pub fn finish(&self) -> Profile {
        let sampled = self.docs;
        let mut fields = Vec::with_capacity(self.nodes.len());
        let mut stack: Vec<(u32, String, Vec<Seg>)> = self
            .ordered_children(ROOT)
            .into_iter()
            .rev()
            .map(|c| (c, self.name_of(c), vec![Seg::Key(self.name_of(c))]))
            .collect();
        while let Some((id, path, segs)) = stack.pop() {
            let n = &self.nodes[id as usize];
            for c in self.ordered_children(id).into_iter().rev() {
                let cn = &self.nodes[c as usize];
                let mut cs = segs.clone();
                let p = if cn.elem {
                    cs.push(Seg::Elem);
                    format!("{path}[]")
                } else {
                    let name = self.name_of(c);
                    let p = format!("{path}.{name}");
                    cs.push(Seg::Key(name));
                    p
                };
                stack.push((c, p, cs));
            }
            fields.push(self.field(n, path, segs, sampled));
        }
        Profile {
            sampled,
            doc_size: self.sizes.summary(),
            doc_sizes: self.sizes.clone(),
            total_bytes: self.total_bytes as u64,
            max_depth: self.max_depth,
            fields,
            paths_capped: self.dropped_values > 0,
            dropped_values: self.dropped_values,
            too_deep: self.too_deep,
            invalid: self.invalid,
            first_error: self.first_error.as_ref().map(|(_, e)| e.clone()),
        }
    }

    /// A node's children in the order they were first seen in the stream.
    fn ordered_children(&self, id: u32) -> Vec<u32> {
        let mut kids = self.nodes[id as usize].children.clone();
        kids.sort_by_key(|&c| self.nodes[c as usize].first);
        kids
    }

    fn name_of(&self, id: u32) -> String {
        String::from_utf8_lossy(&self.nodes[id as usize].key).into_owned()
    }

    fn field(&self, n: &Node, path: String, segments: Vec<Seg>, sampled: u64) -> FieldProfile {
        let presence = if sampled == 0 {
            0.0
        } else {
            n.count as f64 / sampled as f64
        };
        let mut types: Vec<(BsonType, u64)> = BsonType::ALL
            .iter()
            .filter(|t| n.types[t.slot()] > 0)
            .map(|&t| (t, n.types[t.slot()]))
            .collect();
        types.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let scalar_values: u64 = types
            .iter()
            .filter(|(t, _)| !t.is_container())
            .map(|(_, c)| c)
            .sum();
        FieldProfile {
            path,
            segments,
            name: String::from_utf8_lossy(&n.key).into_owned(),
            depth: n.depth.saturating_sub(1),
            count: n.count,
            presence,
            presence_ci: None,
            values: n.values,
            types,
            array: n.arr.as_ref().map(|h| h.summary()),
            array_lengths: n.arr.as_deref().cloned(),
            bytes_avg: if sampled == 0 {
                0.0
            } else {
                sketch::round2(n.bytes as f64 / sampled as f64)
            },
            bytes_share: if self.total_bytes == 0 {
                0.0
            } else {
                n.bytes as f64 / self.total_bytes as f64
            },
            distinct: (scalar_values > 0).then(|| Distinctness {
                // A sketch may overshoot; there are never more distinct
                // values than values.
                estimate: n.distinct.estimate().min(scalar_values),
                exact: n.distinct.is_exact(),
                frequencies: n.distinct.frequencies(),
                unique: false,
            }),
            examples: {
                let mut ex: Vec<&Example> = n.examples.iter().collect();
                ex.sort_by_key(|e| (e.at, e.hash));
                ex.into_iter().map(|e| e.value.clone()).collect()
            },
            number_range: n.num.map(|(a, b)| [a, b]),
            date_range: n
                .date
                .map(|(a, b)| [value::iso_millis(a), value::iso_millis(b)]),
            objectid_time: n.oid.map(|(a, b)| [value::iso_secs(a), value::iso_secs(b)]),
            string_length: n.str_len.map(|(a, b)| [a, b]),
            string_chars: n.str_chars.map(|(a, b)| [a, b]),
            children: n.children.len(),
        }
    }
}

fn merge_range<T: Copy>(
    a: Option<(T, T)>,
    b: Option<(T, T)>,
    lo: fn(T, T) -> T,
    hi: fn(T, T) -> T,
) -> Option<(T, T)> {
    match (a, b) {
        (Some((a0, a1)), Some((b0, b1))) => Some((lo(a0, b0), hi(a1, b1))),
        (x, None) | (None, x) => x,
    }
}

/// Nesting depth of a container body at `depth`, without profiling it.
fn depth_of(body: &[u8], depth: u32) -> u32 {
    if depth >= MAX_WALK_DEPTH {
        return depth;
    }
    let Ok(iter) = raw::elements(body) else {
        return depth;
    };
    iter.flatten()
        .filter(|e| e.ty == BsonType::Array || e.ty == BsonType::Object)
        .map(|e| depth_of(e.value, depth + 1))
        .max()
        .unwrap_or(depth)
}

/// Checks the framing of a document and all its sub-documents, as
/// `Profiler::add` does before counting anything of it.
pub(crate) fn check(doc: &[u8]) -> Result<(), RawError> {
    validate(doc, 0)
}

fn validate(doc: &[u8], depth: u32) -> Result<(), RawError> {
    for el in raw::elements(doc)? {
        let el = el?;
        if el.ty.is_container() && depth < MAX_WALK_DEPTH {
            validate(el.value, depth + 1)?;
        }
    }
    Ok(())
}

/// The shape of one collection as measured on the documents profiled.
#[derive(Clone, Debug, Serialize)]
pub struct Profile {
    pub sampled: u64,
    pub doc_size: Summary,
    #[serde(skip)]
    pub doc_sizes: LogHistogram,
    pub total_bytes: u64,
    pub max_depth: u32,
    pub fields: Vec<FieldProfile>,
    pub paths_capped: bool,
    pub dropped_values: u64,
    pub too_deep: u64,
    pub invalid: u64,
    pub first_error: Option<String>,
}

/// Decodes the value of one raw element.
pub(crate) fn value_of(el: &Element<'_>) -> Option<bson::Bson> {
    value::to_bson(el.ty, el.value)
}

/// One step of a path: a field name, or "each element of the array".
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    Key(String),
    Elem,
}

/// Renders steps in the contract's notation (`a.b`, `items[].sku`).
pub(crate) fn render_path(segs: &[Seg]) -> String {
    let mut out = String::new();
    for s in segs {
        match s {
            Seg::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Seg::Elem => out.push_str("[]"),
        }
    }
    out
}

/// The dotted form a query or an index uses (`items.sku`): array steps are
/// implicit in MongoDB's query language.
pub(crate) fn query_path(segs: &[Seg]) -> String {
    let keys: Vec<&str> = segs
        .iter()
        .filter_map(|s| match s {
            Seg::Key(k) => Some(k.as_str()),
            Seg::Elem => None,
        })
        .collect();
    keys.join(".")
}

/// Everything measured about one path.
#[derive(Clone, Debug, Serialize)]
pub struct FieldProfile {
    pub path: String,
    /// The path as unambiguous steps (a field name may itself hold a dot).
    #[serde(skip)]
    pub segments: Vec<Seg>,
    #[serde(skip)]
    pub name: String,
    /// Nesting level: 0 for top-level fields.
    pub depth: u32,
    /// Documents in which the path occurs at least once.
    pub count: u64,
    /// `count / sampled`.
    pub presence: f64,
    /// 95 % Wilson interval of the presence, when the profile is a sample.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub presence_ci: Option<[f64; 2]>,
    /// Values seen (more than `count` under arrays).
    pub values: u64,
    #[serde(serialize_with = "ser_types")]
    pub types: Vec<(BsonType, u64)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array: Option<Summary>,
    /// The array lengths by report bin: `array_histogram` in the report,
    /// `[low, high, arrays]` ascending (`LogHistogram::report_bins`).
    #[serde(
        rename = "array_histogram",
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_bins"
    )]
    pub array_lengths: Option<LogHistogram>,
    /// Bytes this path carries per document on average (whole elements:
    /// type, name and value).
    pub bytes_avg: f64,
    /// Share of all profiled bytes carried by this path.
    pub bytes_share: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct: Option<Distinctness>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number_range: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date_range: Option<[String; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objectid_time: Option<[String; 2]>,
    /// Shortest and longest string, in bytes (UTF-8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string_length: Option<[u64; 2]>,
    /// Shortest and longest string, in characters (Unicode scalar values).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub string_chars: Option<[u64; 2]>,
    #[serde(skip)]
    pub children: usize,
}

impl FieldProfile {
    /// The most common type.
    pub(crate) fn main_type(&self) -> Option<BsonType> {
        self.types.first().map(|t| t.0)
    }

    pub(crate) fn type_count(&self, t: BsonType) -> u64 {
        self.types
            .iter()
            .find(|(x, _)| *x == t)
            .map_or(0, |(_, c)| *c)
    }

    /// Sets the confidence interval of the presence for a sample of
    /// `sampled` documents out of `population`.
    /// Marks every value of this path as different from every other (the
    /// `_id`, a unique index): the distinct count is the number of values,
    /// exactly, however the sketch rounded it.
    pub(crate) fn set_unique(&mut self) {
        let scalars: u64 = self
            .types
            .iter()
            .filter(|(t, _)| !t.is_container())
            .map(|(_, c)| c)
            .sum();
        if let Some(d) = &mut self.distinct {
            d.estimate = scalars;
            d.exact = true;
            d.frequencies = Some((scalars, 0));
            d.unique = true;
        }
    }

    pub(crate) fn set_confidence(&mut self, sampled: u64, population: Option<u64>) {
        let is_sample = population.is_none_or(|p| p > sampled);
        self.presence_ci = is_sample.then(|| {
            let (lo, hi) = wilson(self.count, sampled);
            [
                sketch::round2(lo * 100.0) / 100.0,
                sketch::round2(hi * 100.0) / 100.0,
            ]
        });
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Distinctness {
    pub estimate: u64,
    /// True when counted exactly (small sets), false for a sketch estimate.
    pub exact: bool,
    /// `(f1, f2)`: distinct values seen once and twice, while exact.
    #[serde(skip)]
    pub frequencies: Option<(u64, u64)>,
    /// Every value is different (`_id`, a unique index): exact anywhere.
    #[serde(skip)]
    pub unique: bool,
}

impl FieldProfile {
    /// Distinct values of this path in the whole collection of
    /// `documents`, estimated from the profile (Duj1 over the values
    /// profiled; exact when every document was).
    pub(crate) fn population_distinct(
        &self,
        documents: u64,
        sampled: u64,
    ) -> Option<sketch::PopulationDistinct> {
        let d = self.distinct?;
        let scalars: u64 = self
            .types
            .iter()
            .filter(|(t, _)| !t.is_container())
            .map(|(_, c)| c)
            .sum();
        // Values in the collection, at the sample's values per document.
        let population = if documents <= sampled || sampled == 0 {
            scalars
        } else {
            (scalars as f64 * documents as f64 / sampled as f64).round() as u64
        };
        if d.unique {
            return Some(sketch::PopulationDistinct {
                estimator: "unique",
                estimate: population,
                n: scalars,
                population,
                d: scalars,
                f1: scalars,
                f1_exact: true,
            });
        }
        let (f1, f1_exact) = match d.frequencies {
            Some((f1, _)) => (f1, true),
            None => (d.estimate.min(scalars), false),
        };
        Some(sketch::duj1(scalars, population, d.estimate, f1, f1_exact))
    }
}

#[allow(
    clippy::ref_option,
    reason = "serde's serialize_with lends the field as it is"
)]
fn ser_bins<S: serde::Serializer>(h: &Option<LogHistogram>, s: S) -> Result<S::Ok, S::Error> {
    use serde::Serialize as _;
    h.as_ref().map(LogHistogram::report_bins).serialize(s)
}

fn ser_types<S: serde::Serializer>(types: &[(BsonType, u64)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(types.len()))?;
    for (t, c) in types {
        m.serialize_entry(t.alias(), c)?;
    }
    m.end()
}

#[cfg(test)]
mod tests;
