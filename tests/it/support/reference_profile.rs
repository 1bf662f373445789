//! An independent, naive account of a collection's shape, to hold the
//! profiler against: documents are decoded by the `bson` crate (never by
//! docshape's raw walker) and walked recursively, every path of every
//! document counted in plain maps. Nothing here is fast or clever, so that
//! it is obviously right.
//!
//! Also a generator of documents where any path may hold any BSON type in
//! any order — scalars, objects, arrays, arrays of arrays, nested several
//! levels — from a seed, so a failure is replayed by its seed.
//!
//! Shared by the differential test (`tests/it/profile_reference.rs`) and the
//! `profile_reference` fuzz target.

#![allow(dead_code)]

use std::collections::BTreeMap;

use bson::spec::BinarySubtype;
use bson::{Bson, Document};

/// What the reference counts for one path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RefField {
    /// Documents in which the path occurs at least once.
    pub count: u64,
    /// Values at the path (more than `count` under arrays).
    pub values: u64,
    /// Values by `$type` alias.
    pub types: BTreeMap<String, u64>,
    /// Shortest and longest array at the path, when it held one.
    pub array: Option<(u64, u64)>,
    /// Bytes of the whole elements (type, name, value) at the path.
    pub bytes: u64,
    /// Where the path was first met: document number and the element's
    /// number within that document, in a depth-first walk.
    pub first: (u64, u64),
}

/// The reference profile: fields by rendered path (`a.b`, `a[]`, `a[].b`),
/// and the order a profile lists them in.
#[derive(Debug, Default)]
pub struct Reference {
    pub documents: u64,
    pub fields: BTreeMap<String, RefField>,
    /// Paths in listing order: a parent before its children, siblings in
    /// the order first met.
    pub order: Vec<String>,
}

/// `$type` alias of a value.
pub fn alias(v: &Bson) -> &'static str {
    match v {
        Bson::Double(_) => "double",
        Bson::String(_) => "string",
        Bson::Document(_) => "object",
        Bson::Array(_) => "array",
        Bson::Binary(_) => "binData",
        Bson::Undefined => "undefined",
        Bson::ObjectId(_) => "objectId",
        Bson::Boolean(_) => "bool",
        Bson::DateTime(_) => "date",
        Bson::Null => "null",
        Bson::RegularExpression(_) => "regex",
        Bson::DbPointer(_) => "dbPointer",
        Bson::JavaScriptCode(_) => "javascript",
        Bson::Symbol(_) => "symbol",
        Bson::JavaScriptCodeWithScope(_) => "javascriptWithScope",
        Bson::Int32(_) => "int",
        Bson::Timestamp(_) => "timestamp",
        Bson::Int64(_) => "long",
        Bson::Decimal128(_) => "decimal",
        Bson::MinKey => "minKey",
        Bson::MaxKey => "maxKey",
    }
}

/// Size of the element `key: value` as BSON writes it: the document
/// `{key: value}` less its 4-byte length and its terminating zero.
fn element_size(key: &str, value: &Bson) -> u64 {
    let mut d = Document::new();
    d.insert(key, value.clone());
    let mut bytes = Vec::new();
    d.to_writer(&mut bytes)
        .expect("a generated value serialises");
    bytes.len() as u64 - 5
}

/// The parent of top-level paths in the tree of paths (a top-level field
/// may itself be named "").
const ROOT: &str = "\u{0}root";

/// Walks every document; `docs` are numbered from 1 in the order given.
pub fn reference(docs: &[Document]) -> Reference {
    let mut r = Reference::default();
    // Children of each path in the tree, to derive the listing order.
    let mut children: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, doc) in docs.iter().enumerate() {
        let no = i as u64 + 1;
        r.documents += 1;
        let mut ord = 0u64;
        let mut seen_here = std::collections::BTreeSet::<String>::new();
        for (k, v) in doc {
            visit(
                &mut r,
                &mut children,
                &mut seen_here,
                ROOT,
                k,
                &k.clone(),
                v,
                no,
                &mut ord,
            );
        }
    }
    // Listing order: depth first from the top, siblings by first meeting.
    let mut stack: Vec<String> = sorted_kids(&r, children.get(ROOT).cloned().unwrap_or_default());
    stack.reverse();
    while let Some(p) = stack.pop() {
        let mut kids = sorted_kids(&r, children.get(&p).cloned().unwrap_or_default());
        kids.reverse();
        r.order.push(p);
        stack.extend(kids);
    }
    r
}

fn sorted_kids(r: &Reference, mut kids: Vec<String>) -> Vec<String> {
    kids.sort_by_key(|k| r.fields[k].first);
    kids
}

#[allow(clippy::too_many_arguments, clippy::many_single_char_names)]
fn visit(
    r: &mut Reference,
    children: &mut BTreeMap<String, Vec<String>>,
    seen_here: &mut std::collections::BTreeSet<String>,
    parent: &str,
    key: &str,
    path: &str,
    v: &Bson,
    no: u64,
    ord: &mut u64,
) {
    *ord += 1;
    let new = !r.fields.contains_key(path);
    let f = r.fields.entry(path.to_owned()).or_default();
    if new {
        f.first = (no, *ord);
        children
            .entry(parent.to_owned())
            .or_default()
            .push(path.to_owned());
    }
    if seen_here.insert(path.to_owned()) {
        f.count += 1;
    }
    f.values += 1;
    *f.types.entry(alias(v).to_owned()).or_default() += 1;
    f.bytes += element_size(key, v);
    match v {
        Bson::Document(d) => {
            for (k, child) in d {
                let p = format!("{path}.{k}");
                visit(r, children, seen_here, path, k, &p, child, no, ord);
            }
        }
        Bson::Array(a) => {
            let len = a.len() as u64;
            let f = r.fields.get_mut(path).expect("just inserted");
            f.array = Some(match f.array {
                Some((lo, hi)) => (lo.min(len), hi.max(len)),
                None => (len, len),
            });
            let p = format!("{path}[]");
            for (i, child) in a.iter().enumerate() {
                visit(
                    r,
                    children,
                    seen_here,
                    path,
                    &i.to_string(),
                    &p,
                    child,
                    no,
                    ord,
                );
            }
        }
        _ => {}
    }
}

/// A small, seedable generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, per_cent: u64) -> bool {
        self.below(100) < per_cent
    }
}

/// Field names: few, so that paths meet each other under every type; the
/// empty name too, which must never be taken for an array's elements.
const KEYS: [&str; 6] = ["e", "p", "q", "x", "", "long_name"];

/// How deep generated values nest.
pub const MAX_DEPTH: u32 = 5;

/// A generated document: an `_id` and a few fields of any type.
pub fn document(rng: &mut Rng, id: i64) -> Document {
    let mut d = Document::new();
    d.insert("_id", Bson::Int64(id));
    for _ in 0..=rng.below(4) {
        let k = KEYS[rng.below(KEYS.len() as u64) as usize];
        let v = value(rng, 1);
        d.insert(k, v);
    }
    d
}

/// Any BSON value; containers only above `MAX_DEPTH`.
pub fn value(rng: &mut Rng, depth: u32) -> Bson {
    let containers = depth < MAX_DEPTH;
    // Containers half the time while allowed, so paths change between
    // object, array and scalar often.
    if containers && rng.chance(50) {
        return if rng.chance(50) {
            let mut d = Document::new();
            for _ in 0..rng.below(4) {
                let k = KEYS[rng.below(KEYS.len() as u64) as usize];
                d.insert(k, value(rng, depth + 1));
            }
            Bson::Document(d)
        } else {
            let n = rng.below(4);
            Bson::Array((0..n).map(|_| value(rng, depth + 1)).collect())
        };
    }
    scalar(rng)
}

/// Any scalar BSON value, odd ones included.
pub fn scalar(rng: &mut Rng) -> Bson {
    match rng.below(19) {
        0 => Bson::Double(match rng.below(5) {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => -0.0,
            3 => 2.5,
            _ => rng.below(1000) as f64 / 7.0,
        }),
        1 => Bson::String(
            ["", "a", "hello world", "中文字段", "2026-11-27T00:00:00Z"][rng.below(5) as usize]
                .to_owned(),
        ),
        2 => Bson::Binary(bson::Binary {
            subtype: if rng.chance(50) {
                BinarySubtype::Generic
            } else {
                BinarySubtype::Uuid
            },
            bytes: (0..16)
                .map(|i| (rng.below(256) as u8).wrapping_add(i))
                .collect(),
        }),
        3 => Bson::Undefined,
        4 => Bson::ObjectId(bson::oid::ObjectId::from_bytes({
            let mut b = [0u8; 12];
            for x in &mut b {
                *x = rng.below(256) as u8;
            }
            b
        })),
        5 => Bson::Boolean(rng.chance(50)),
        6 => Bson::DateTime(bson::DateTime::from_millis(
            rng.below(4_000_000_000_000) as i64 - 1_000_000_000_000,
        )),
        7 => Bson::Null,
        8 => Bson::RegularExpression(bson::Regex {
            pattern: bson::raw::cstr!("^a.b").into(),
            options: bson::raw::cstr!("i").into(),
        }),
        9 => {
            let json = serde_json::json!({"$dbPointer": {"$ref": "c", "$id": {"$oid": "5ca4bbcea2dd94ee58162a68"}}});
            Bson::try_from(json).expect("a dbPointer")
        }
        10 => Bson::JavaScriptCode("function () { return 1; }".into()),
        11 => Bson::Symbol("sym".into()),
        12 => Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
            code: "f()".into(),
            scope: bson::doc! {"a": 1},
        }),
        13 => Bson::Int32(rng.below(2000) as i32 - 1000),
        14 => Bson::Timestamp(bson::Timestamp {
            time: rng.below(2_000_000_000) as u32,
            increment: rng.below(10) as u32,
        }),
        15 => Bson::Int64(if rng.chance(30) {
            1 << 40
        } else {
            rng.below(1000) as i64
        }),
        16 => Bson::Decimal128(
            "12.50"
                .parse::<bson::Decimal128>()
                .expect("a decimal literal"),
        ),
        17 => Bson::MinKey,
        _ => Bson::MaxKey,
    }
}

/// The five shapes the object-then-array regression puts under one field:
/// a string, an object, an array of objects, an array of arrays, nested
/// objects.
pub fn shapes() -> [Bson; 5] {
    [
        Bson::String("a@example.org".into()),
        Bson::Document(bson::doc! {"p": 2}),
        Bson::Array(vec![Bson::Document(bson::doc! {"p": 1, "q": "x"})]),
        Bson::Array(vec![Bson::Array(vec![Bson::Int32(1), Bson::Int32(2)])]),
        Bson::Document(bson::doc! {"p": {"p": {"tourCompleted": true}}}),
    ]
}

/// Every order of three distinct shapes (5 × 4 × 3 = 60), each as three
/// documents `{_id, e: shape}`.
pub fn shape_orders() -> Vec<Vec<Document>> {
    let s = shapes();
    let mut out = Vec::new();
    for a in 0..s.len() {
        for b in 0..s.len() {
            for c in 0..s.len() {
                if a == b || b == c || a == c {
                    continue;
                }
                out.push(
                    [a, b, c]
                        .iter()
                        .enumerate()
                        .map(|(i, &k)| bson::doc! {"_id": i as i32 + 1, "e": s[k].clone()})
                        .collect(),
                );
            }
        }
    }
    out
}

/// A profile as the reference states it, for comparison with what
/// docshape reports: `(path, field)` in listing order.
pub fn listing(r: &Reference) -> Vec<(String, RefField)> {
    r.order
        .iter()
        .map(|p| (p.clone(), r.fields[p].clone()))
        .collect()
}

/// What docshape reported for one path, in the same terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Reported {
    pub path: String,
    pub count: u64,
    pub values: u64,
    pub types: BTreeMap<String, u64>,
    pub array: Option<(u64, u64)>,
    pub bytes_avg: f64,
}

/// Every disagreement between the reference and a reported profile of the
/// same documents, one line each; empty when they agree.
pub fn disagreements(r: &Reference, sampled: u64, got: &[Reported]) -> Vec<String> {
    let mut out = Vec::new();
    if sampled != r.documents {
        out.push(format!(
            "documents: reference {}, profile {sampled}",
            r.documents
        ));
    }
    let want: Vec<&String> = r.order.iter().collect();
    let have: Vec<&String> = got.iter().map(|g| &g.path).collect();
    if want != have {
        let missing: Vec<&&String> = want.iter().filter(|p| !have.contains(p)).collect();
        let extra: Vec<&&String> = have.iter().filter(|p| !want.contains(p)).collect();
        out.push(format!(
            "paths differ: missing {missing:?}, unexpected {extra:?}; reference order {want:?}, profile order {have:?}"
        ));
    }
    for g in got {
        let Some(f) = r.fields.get(&g.path) else {
            continue;
        };
        if (g.count, g.values) != (f.count, f.values) {
            out.push(format!(
                "{}: count/values reference {}/{}, profile {}/{}",
                g.path, f.count, f.values, g.count, g.values
            ));
        }
        if g.types != f.types {
            out.push(format!(
                "{}: types reference {:?}, profile {:?}",
                g.path, f.types, g.types
            ));
        }
        if g.array != f.array {
            out.push(format!(
                "{}: array lengths reference {:?}, profile {:?}",
                g.path, f.array, g.array
            ));
        }
        let avg = if sampled == 0 {
            0.0
        } else {
            f.bytes as f64 / sampled as f64
        };
        if (g.bytes_avg - avg).abs() > 0.0051 {
            out.push(format!(
                "{}: bytes per document reference {avg:.3}, profile {}",
                g.path, g.bytes_avg
            ));
        }
    }
    out
}
