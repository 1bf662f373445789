//! `docshape schema --format rust`: the collection's documents as `serde`
//! structs over the `bson` crate's types (`bson::oid::ObjectId`,
//! `bson::DateTime`, `bson::Decimal128` …), for `bson::deserialize_from_document` or a
//! driver's typed collection. `Option` where a field was missing from some
//! documents or null, an untagged enum where a path held several types (its
//! comment gives the shares and their confidence), a `HashMap` for objects
//! keyed by data, `#[serde(rename)]` where a field's name is no Rust
//! identifier. Every path is written out with its crate, so the structs
//! need no `use`.

use crate::profile::raw::BsonType;
use std::fmt::Write as _;

use super::shape::{self, one_line as line, Names, Object, Objects, Value};
use super::typescript::element_hint;
use super::CollectionReport;

/// Names a generated type may not take: the prelude's, which the
/// generated fields use.
const RESERVED: [&str; 10] = [
    "String", "Option", "Vec", "Box", "Result", "Some", "None", "Ok", "Err", "Self",
];

const KEYWORDS: [&str; 51] = [
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
];

const DERIVE: &str = "#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]";

pub(crate) fn render(c: &CollectionReport) -> String {
    let model = shape::model(c);
    let mut r = Renderer {
        sample: model.sample,
        names: Names::reserving(&RESERVED),
        items: Vec::new(),
    };
    let root = r.names.fresh(&model.name);
    r.structure(&root, &model.root, "documents");
    let mut out = shape::comment_header(&model);
    for i in r.items {
        out.push('\n');
        out.push_str(&i);
    }
    out
}

struct Renderer {
    sample: bool,
    names: Names,
    /// Rendered structs and enums, the document's first.
    items: Vec<String>,
}

impl Renderer {
    fn structure(&mut self, name: &str, o: &Object, of: &str) {
        let slot = self.items.len();
        self.items.push(String::new());
        let mut body = format!("{DERIVE}\npub struct {name} {{\n");
        let mut fields = Names::default();
        for m in &o.members {
            let required = m.required(o);
            let hint = format!("{name}{}", shape::pascal(&m.name));
            let mut ty = self.value(&m.value, &hint);
            let ident = fields.fresh(&snake(&m.name));
            if !required {
                let _ = writeln!(body, "    /// {}", line(&shape::presence(m, o, of)));
            }
            for note in m.value.map_note().into_iter().chain(m.value.empty_note()) {
                let _ = writeln!(body, "    /// {note}.");
            }
            let mut attrs = Vec::new();
            if ident != m.name {
                attrs.push(format!("rename = {:?}", m.name));
            }
            if !required {
                if !ty.starts_with("Option<") {
                    ty = format!("Option<{ty}>");
                }
                attrs.push("default, skip_serializing_if = \"Option::is_none\"".to_owned());
            }
            if !attrs.is_empty() {
                let _ = writeln!(body, "    #[serde({})]", attrs.join(", "));
            }
            let _ = writeln!(body, "    pub {ident}: {ty},");
        }
        body.push_str("}\n");
        self.items[slot] = body;
    }

    /// The Rust type of `v`; `hint` names a struct or enum it needs.
    fn value(&mut self, v: &Value, hint: &str) -> String {
        let types = v.non_null();
        let inner = match types.as_slice() {
            [] => "bson::Bson".to_owned(),
            [t] => self.one(*t, v, hint),
            _ => self.union(v, &types, hint),
        };
        if v.nullable() {
            format!("Option<{inner}>")
        } else {
            inner
        }
    }

    /// An untagged enum of `types`, tried in an order where no variant
    /// takes another's values (a string before an ObjectId, which would
    /// parse a hex string; anything else last).
    fn union(&mut self, v: &Value, types: &[BsonType], hint: &str) -> String {
        let name = self.names.fresh(hint);
        let slot = self.items.len();
        self.items.push(String::new());
        let mut variants: Vec<(usize, &str, String)> = Vec::new();
        for t in types {
            let (rank, variant) = variant(*t);
            if variants.iter().any(|(_, v, _)| *v == variant) {
                continue;
            }
            let ty = if variant == "Other" {
                "bson::Bson".to_owned()
            } else {
                self.one(*t, v, &format!("{name}{variant}"))
            };
            variants.push((rank, variant, ty));
        }
        variants.sort_by_key(|(rank, _, _)| *rank);
        let mut body = format!(
            "/// {}: {}.\n{DERIVE}\n#[serde(untagged)]\npub enum {name} {{\n",
            line(&v.path),
            line(&v.shares(self.sample))
        );
        for (_, variant, ty) in variants {
            let _ = writeln!(body, "    {variant}({ty}),");
        }
        body.push_str("}\n");
        self.items[slot] = body;
        name
    }

    fn one(&mut self, t: BsonType, v: &Value, hint: &str) -> String {
        match t {
            BsonType::Double => "f64".to_owned(),
            BsonType::Int => "i32".to_owned(),
            BsonType::Long => "i64".to_owned(),
            BsonType::String => "String".to_owned(),
            BsonType::Bool => "bool".to_owned(),
            BsonType::Date => "bson::DateTime".to_owned(),
            BsonType::ObjectId => "bson::oid::ObjectId".to_owned(),
            BsonType::Decimal => "bson::Decimal128".to_owned(),
            BsonType::BinData => "bson::Binary".to_owned(),
            BsonType::Timestamp => "bson::Timestamp".to_owned(),
            BsonType::Regex => "bson::Regex".to_owned(),
            BsonType::Array => match &v.elem {
                Some(e) => format!("Vec<{}>", self.value(e, &element_hint(hint))),
                None => "Vec<bson::Bson>".to_owned(),
            },
            BsonType::Object => match v.objects() {
                Objects::Map(m) => {
                    let ty = self.value(m, &format!("{hint}Value"));
                    format!("std::collections::HashMap<String, {ty}>")
                }
                Objects::Open => "bson::Document".to_owned(),
                Objects::Named(o) => {
                    let name = self.names.fresh(hint);
                    self.structure(&name, o, &v.objects_here());
                    name
                }
            },
            BsonType::Null
            | BsonType::Undefined
            | BsonType::Javascript
            | BsonType::JavascriptWithScope
            | BsonType::Symbol
            | BsonType::DbPointer
            | BsonType::MinKey
            | BsonType::MaxKey => "bson::Bson".to_owned(),
        }
    }
}

/// A type's variant in a union, and the order variants are tried in.
fn variant(t: BsonType) -> (usize, &'static str) {
    match t {
        BsonType::Bool => (0, "Bool"),
        BsonType::Int => (1, "Int32"),
        BsonType::Long => (2, "Int64"),
        BsonType::Double => (3, "Double"),
        BsonType::String => (4, "String"),
        BsonType::Decimal => (5, "Decimal128"),
        BsonType::ObjectId => (6, "ObjectId"),
        BsonType::Date => (7, "DateTime"),
        BsonType::BinData => (8, "Binary"),
        BsonType::Timestamp => (9, "Timestamp"),
        BsonType::Regex => (10, "Regex"),
        BsonType::Array => (11, "Array"),
        BsonType::Object => (12, "Object"),
        _ => (13, "Other"),
    }
}

/// A field's name as a Rust identifier: `firstName` → `first_name`,
/// `_id` → `id`, `2024` → `n2024`, `type` → `type_`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    let mut prev: Option<char> = None;
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            if ch.is_ascii_uppercase()
                && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
            {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        prev = Some(ch);
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.is_empty() {
        "field".to_owned()
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("n{out}")
    } else if KEYWORDS.contains(&out.as_str()) {
        format!("{out}_")
    } else {
        out
    }
}
