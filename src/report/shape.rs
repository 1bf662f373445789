//! What the typed exports (`typescript`, `json-schema-2020`, `rust`) are
//! written from: one collection's profile as a tree of values, objects and
//! members, with the counts each rendering needs to say how sure it is.
//!
//! A member is required when it was in every object of its parent that the
//! profile saw; an object the `dynamic-keys` rule judged to be keyed by data
//! is a map, its members merged into the one value type a key holds.

use crate::fmt::percent;
use crate::profile::raw::BsonType;
use crate::profile::sketch::wilson;
use crate::profile::{FieldProfile, Seg};

use super::json_schema::{children, in_every_object, keyed};
use super::CollectionReport;

/// One collection's documents as a type.
#[derive(Clone, Debug)]
pub struct Model {
    pub namespace: String,
    /// The document type's name: the collection's name, singular and
    /// PascalCase (`shop.order_items` → `OrderItem`).
    pub name: String,
    /// Documents profiled.
    pub sampled: u64,
    /// Documents in the collection, when known.
    pub documents: Option<u64>,
    /// True when the profile is a sample, not every document.
    pub sample: bool,
    /// True when the profile stopped listing new paths at its cap.
    pub paths_capped: bool,
    pub root: Object,
}

/// What one path holds.
#[derive(Clone, Debug)]
pub struct Value {
    /// The path, in the contract's notation (`items[].sku`).
    pub path: String,
    /// Values seen.
    pub values: u64,
    /// Values seen of each type, most common first.
    pub types: Vec<(BsonType, u64)>,
    /// The smallest and largest number seen.
    pub number_range: Option<[f64; 2]>,
    /// The members of the objects seen here.
    pub object: Option<Object>,
    /// The elements of the arrays seen here, when any had one.
    pub elem: Option<Box<Value>>,
}

/// The objects seen at one path.
#[derive(Clone, Debug, Default)]
pub struct Object {
    /// Objects seen (the documents, at the root).
    pub objects: u64,
    pub members: Vec<Member>,
    /// For an object keyed by data: its keys' values as one type, and how
    /// many different keys the profile saw.
    pub map: Option<(Box<Value>, usize)>,
}

/// A named member of an object.
#[derive(Clone, Debug)]
pub struct Member {
    pub name: String,
    /// Objects of the parent that hold it.
    pub present: u64,
    /// The presence's 95 % interval the profile gives (top-level members
    /// of a sample).
    pub presence_ci: Option<[f64; 2]>,
    pub value: Value,
}

impl Member {
    /// In every object of its parent that the profile saw.
    pub(crate) fn required(&self, parent: &Object) -> bool {
        self.present >= parent.objects && parent.objects > 0
    }
}

/// How the objects seen at a path are typed.
pub enum Objects<'a> {
    /// Keyed by data: a map to this value.
    Map(&'a Value),
    /// No member seen (only empty objects, or none walked): any object.
    Open,
    /// A type of its own with these members.
    Named(&'a Object),
}

impl Value {
    /// How the objects seen here are typed.
    pub(crate) fn objects(&self) -> Objects<'_> {
        match &self.object {
            Some(Object {
                map: Some((m, _)), ..
            }) => Objects::Map(m),
            Some(o) if !o.members.is_empty() => Objects::Named(o),
            _ => Objects::Open,
        }
    }

    /// What the objects here are, for a member's presence among them.
    pub(crate) fn objects_here(&self) -> String {
        format!("objects at {}", self.path)
    }

    /// The note on an object keyed by data, if this is one.
    pub(crate) fn map_note(&self) -> Option<String> {
        let (_, keys) = self.object.as_ref()?.map.as_ref()?;
        Some(format!(
            "keys are data (docshape's dynamic-keys finding): {} different keys seen",
            crate::fmt::group(*keys as u64)
        ))
    }

    /// The note on arrays or objects that were always empty, if they were:
    /// the type stays open, as nothing was seen to narrow it.
    pub(crate) fn empty_note(&self) -> Option<String> {
        let has = |t: BsonType| self.types.iter().any(|(x, _)| *x == t);
        let arrays = has(BsonType::Array) && self.elem.is_none();
        let objects = has(BsonType::Object)
            && self
                .object
                .as_ref()
                .is_some_and(|o| o.members.is_empty() && o.map.is_none());
        match (arrays, objects) {
            (true, true) => Some("every array and object seen here was empty".to_owned()),
            (true, false) => Some("every array seen here was empty".to_owned()),
            (false, true) => Some("every object seen here was empty".to_owned()),
            (false, false) => None,
        }
    }

    /// The types seen other than null.
    pub(crate) fn non_null(&self) -> Vec<BsonType> {
        self.types
            .iter()
            .map(|(t, _)| *t)
            .filter(|t| *t != BsonType::Null)
            .collect()
    }

    /// Null was seen here.
    pub(crate) fn nullable(&self) -> bool {
        self.types.iter().any(|(t, _)| *t == BsonType::Null)
    }

    /// Longs were seen and some number here is beyond 2^53, which a
    /// JavaScript number cannot hold exactly.
    pub(crate) fn wide_long(&self) -> bool {
        const EXACT: f64 = 9_007_199_254_740_991.0;
        self.types.iter().any(|(t, _)| *t == BsonType::Long)
            && self
                .number_range
                .is_some_and(|[lo, hi]| lo.abs() > EXACT || hi.abs() > EXACT)
    }

    /// The types' shares, with their 95 % intervals when the profile is a
    /// sample: `int 80 % (95 %: 77–83 %), string 20 % (…)`.
    pub(crate) fn shares(&self, sample: bool) -> String {
        let parts: Vec<String> = self
            .types
            .iter()
            .map(|(t, n)| {
                let share = percent(*n as f64 / self.values.max(1) as f64);
                if sample {
                    let (lo, hi) = wilson(*n, self.values);
                    format!(
                        "{} {share} (95 %: {}–{})",
                        t.alias(),
                        percent(lo),
                        percent(hi)
                    )
                } else {
                    format!("{} {share}", t.alias())
                }
            })
            .collect();
        parts.join(", ")
    }

    /// Adds `other`'s counts to these (two keys of a map, one type).
    fn merge(&mut self, other: &Value) {
        self.values += other.values;
        for (t, n) in &other.types {
            match self.types.iter_mut().find(|(x, _)| x == t) {
                Some((_, m)) => *m += n,
                None => self.types.push((*t, *n)),
            }
        }
        self.types.sort_by_key(|t| std::cmp::Reverse(t.1));
        self.number_range = match (self.number_range, other.number_range) {
            (Some([a, b]), Some([c, d])) => Some([a.min(c), b.max(d)]),
            (a, b) => a.or(b),
        };
        match (&mut self.object, &other.object) {
            (Some(o), Some(p)) => o.merge(p),
            (None, Some(p)) => self.object = Some(p.clone()),
            _ => {}
        }
        match (&mut self.elem, &other.elem) {
            (Some(e), Some(f)) => e.merge(f),
            (None, Some(f)) => self.elem = Some(f.clone()),
            _ => {}
        }
    }
}

impl Object {
    fn merge(&mut self, other: &Object) {
        self.objects += other.objects;
        for m in &other.members {
            match self.members.iter_mut().find(|x| x.name == m.name) {
                Some(x) => {
                    x.present += m.present;
                    x.presence_ci = None;
                    x.value.merge(&m.value);
                }
                None => self.members.push(m.clone()),
            }
        }
        match (&mut self.map, &other.map) {
            (Some((v, n)), Some((w, k))) => {
                v.merge(w);
                *n += k;
            }
            (None, Some(p)) => self.map = Some(p.clone()),
            _ => {}
        }
    }
}

/// The model of collection `c`.
pub(crate) fn model(c: &CollectionReport) -> Model {
    let sample = c.documents.is_none_or(|d| d > c.sampled);
    let top: Vec<&FieldProfile> = c.fields.iter().filter(|f| f.segments.len() == 1).collect();
    let members = top
        .iter()
        .map(|f| Member {
            name: f.name.clone(),
            present: f.count,
            presence_ci: f.presence_ci,
            value: value(c, f, sample),
        })
        .collect();
    let coll = c
        .namespace
        .split_once('.')
        .map_or(c.namespace.as_str(), |(_, coll)| coll);
    Model {
        namespace: c.namespace.clone(),
        name: type_name(coll),
        sampled: c.sampled,
        documents: c.documents,
        sample,
        paths_capped: c.paths_capped,
        root: Object {
            objects: c.sampled,
            members,
            map: None,
        },
    }
}

/// What path `f` holds; `sample` when the profile is a sample, for the
/// intervals of its members' presence.
fn value(c: &CollectionReport, f: &FieldProfile, sample: bool) -> Value {
    let objects = f.type_count(BsonType::Object);
    let kids = children(c, f);
    let named = keyed(&kids);
    let object = (objects > 0).then(|| {
        let members: Vec<Member> = named
            .iter()
            .map(|k| {
                let present = if in_every_object(f, k) {
                    objects
                } else {
                    k.values.min(objects)
                };
                // One object per document outside arrays: the objects are
                // a sample of documents, as at the top level.
                let independent = !f.segments.contains(&Seg::Elem);
                Member {
                    name: k.name.clone(),
                    present,
                    presence_ci: (sample && independent).then(|| {
                        let (lo, hi) = wilson(present, objects);
                        [lo, hi]
                    }),
                    value: value(c, k, sample),
                }
            })
            .collect();
        let dynamic = c
            .findings
            .iter()
            .any(|a| a.rule == "dynamic-keys" && a.path.as_deref() == Some(f.path.as_str()));
        if dynamic && !members.is_empty() {
            let n = members.len();
            let mut merged = members[0].value.clone();
            for m in &members[1..] {
                merged.merge(&m.value);
            }
            merged.path = format!("{}.*", f.path);
            Object {
                objects,
                members: Vec::new(),
                map: Some((Box::new(merged), n)),
            }
        } else {
            Object {
                objects,
                members,
                map: None,
            }
        }
    });
    let elem = kids
        .iter()
        .find(|k| k.segments.last() == Some(&Seg::Elem))
        .map(|e| Box::new(value(c, e, sample)));
    Value {
        path: f.path.clone(),
        values: f.values,
        types: f.types.clone(),
        number_range: f.number_range,
        object,
        elem,
    }
}

/// The name of one document of collection `coll`: singular, PascalCase
/// (`countries` → `Country`, `order_items` → `OrderItem`).
pub(crate) fn type_name(coll: &str) -> String {
    let name = pascal(&crate::i18n::singular(coll));
    if name.is_empty() {
        "Document".to_owned()
    } else {
        name
    }
}

/// `words_of-a.name` → `WordsOfAName`, `userId` → `UserId`: ASCII letters
/// and digits only, each word's first letter raised, never starting with a
/// digit.
pub(crate) fn pascal(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for ch in s.chars() {
        if ch.is_ascii_alphanumeric() {
            if up {
                out.push(ch.to_ascii_uppercase());
            } else {
                out.push(ch);
            }
            up = false;
        } else {
            up = true;
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'N');
    }
    out
}

/// Type names handed out once each in one rendering.
#[derive(Default)]
pub struct Names(std::collections::HashSet<String>);

impl Names {
    /// Names with `taken` already handed out.
    pub(crate) fn reserving(taken: &[&str]) -> Names {
        Names(taken.iter().map(|s| (*s).to_owned()).collect())
    }

    /// `base`, or `base2`, `base3` … when taken.
    pub(crate) fn fresh(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut n = 2;
        while !self.0.insert(name.clone()) {
            name = format!("{base}{n}");
            n += 1;
        }
        name
    }
}

/// A member's presence in words: `in 812 of 1,000 documents (81.2 %, 95 %:
/// 78.7–83.5 %)`; `of` names what the parent's objects are.
pub(crate) fn presence(m: &Member, parent: &Object, of: &str) -> String {
    let share = percent(m.present as f64 / parent.objects.max(1) as f64);
    let ci = m.presence_ci.map_or(String::new(), |[lo, hi]| {
        format!(", 95 %: {}–{}", percent(lo), percent(hi))
    });
    format!(
        "in {} of {} {of} ({share}{ci})",
        crate::fmt::group(m.present),
        crate::fmt::group(parent.objects)
    )
}

/// What a required member's presence proves: in every document of the
/// sample, so in at least this share of the collection (95 %).
pub(crate) fn required_bound(model: &Model) -> Option<String> {
    model.sample.then(|| {
        let (lo, _) = wilson(model.sampled, model.sampled);
        format!(
            "a field in all {} sampled documents is in at least {} of the collection's documents (95 % confidence), not provably in all",
            crate::fmt::group(model.sampled),
            percent(lo)
        )
    })
}

/// `s` on one line: control characters as spaces.
pub(crate) fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The header as `//` comment lines, for TypeScript and Rust.
pub(crate) fn comment_header(model: &Model) -> String {
    let mut out = String::new();
    for line in header(model) {
        out.push_str("// ");
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The first lines every typed export starts with.
pub(crate) fn header(model: &Model) -> Vec<String> {
    let read = if model.sample {
        format!(
            "{} sampled documents{}",
            crate::fmt::group(model.sampled),
            model.documents.map_or(String::new(), |d| format!(
                " of about {}",
                crate::fmt::group(d)
            ))
        )
    } else {
        format!("all {} documents", crate::fmt::group(model.sampled))
    };
    let mut lines = vec![format!(
        "{} documents, inferred by docshape {} from {read}.",
        model.namespace,
        super::VERSION,
    )];
    if let Some(b) = required_bound(model) {
        lines.push(format!("Required members: {b}."));
    }
    if model.paths_capped {
        lines.push(
            "The profile stopped at its path cap: paths beyond it are not typed here.".to_owned(),
        );
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{json_schema_2020, rust_types, typescript};

    /// A report of `docs` as collection `ns`, sampled from `documents`.
    fn report(ns: &str, docs: &[bson::Document], documents: u64) -> CollectionReport {
        let mut p = crate::profile::ShardedProfiler::new(1, 100);
        for d in docs {
            let mut v = Vec::new();
            d.to_writer(&mut v).expect("serialise");
            p.add(&v).expect("valid");
        }
        let mut profile = p.finish();
        let sampled = profile.sampled;
        let mut fields = std::mem::take(&mut profile.fields);
        for f in &mut fields {
            f.set_confidence(sampled, Some(documents));
        }
        let (db, coll) = ns.split_once('.').expect("a namespace");
        let meta = crate::source::CollectionMeta::new(db, coll);
        CollectionReport {
            namespace: meta.namespace(),
            kind: meta.kind,
            documents: Some(documents),
            sampled,
            sample_method: "$sample".into(),
            partial: None,
            doc_size: profile.doc_size,
            max_depth: profile.max_depth,
            storage: None,
            indexes: Vec::new(),
            options: None,
            fields,
            findings: Vec::new(),
            paths_capped: false,
            notes: Vec::new(),
            round_trips: None,
            extremes: None,
            growth: crate::growth::ByPath::new(),
            profile,
            kept: Vec::new(),
            meta,
        }
    }

    fn sample() -> CollectionReport {
        let docs: Vec<bson::Document> = (0..10)
            .map(|i| {
                let mut d = bson::doc! { "_id": bson::oid::ObjectId::new(), "qty": i };
                if i >= 8 {
                    d.insert("qty", format!("{i}"));
                }
                if i % 2 == 0 {
                    d.insert("first name", "x");
                }
                d.insert("type", bson::doc! { "code": i });
                d
            })
            .collect();
        report("shop.order_items", &docs, 1000)
    }

    #[test]
    fn the_document_type_is_named_after_the_collection() {
        assert_eq!(type_name("countries"), "Country");
        assert_eq!(type_name("order_items"), "OrderItem");
        assert_eq!(type_name("people"), "Person");
        assert_eq!(type_name("2024-stats"), "N2024Stat");
        assert_eq!(model(&sample()).name, "OrderItem");
    }

    #[test]
    fn a_sample_gives_shares_with_their_intervals_and_what_required_proves() {
        let c = sample();
        let ts = typescript::render(&c);
        assert!(ts.contains("export interface OrderItem {"), "{ts}");
        assert!(ts.contains("  qty: number | string;"), "{ts}");
        assert!(
            ts.contains("types: int 80 % (95 %: 49 %–94 %), string 20 % (95 %: 6 %–51 %)"),
            "{ts}"
        );
        assert!(ts.contains("  \"first name\"?: string;"), "{ts}");
        assert!(
            ts.contains("in 5 of 10 documents (50 %, 95 %: 24 %–76 %)"),
            "{ts}"
        );
        assert!(
            ts.contains("in at least 72 % of the collection's documents"),
            "{ts}"
        );
        let rs = rust_types::render(&c);
        assert!(rs.contains("#[serde(untagged)]\npub enum OrderItemQty {\n    Int32(i32),\n    String(String),\n}"), "{rs}");
        assert!(rs.contains("#[serde(rename = \"first name\", default, skip_serializing_if = \"Option::is_none\")]\n    pub first_name: Option<String>,"), "{rs}");
        assert!(
            rs.contains("#[serde(rename = \"type\")]\n    pub type_: OrderItemType,"),
            "{rs}"
        );
        assert!(
            rs.contains("#[serde(rename = \"_id\")]\n    pub id: bson::oid::ObjectId,"),
            "{rs}"
        );
        let js = json_schema_2020::schema(&c);
        assert_eq!(
            js["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(js["required"], serde_json::json!(["_id", "qty", "type"]));
        assert_eq!(js["properties"]["_id"]["$ref"], "#/$defs/objectId");
        assert_eq!(js["$defs"]["objectId"]["required"][0], "$oid");
        assert_eq!(
            js["properties"]["qty"]["type"],
            serde_json::json!(["integer", "string"])
        );
    }
}
