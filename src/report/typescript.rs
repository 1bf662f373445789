//! `docshape schema --format typescript`: the collection's documents as an
//! exported TypeScript interface, named after the collection (`ref.countries`
//! → `Country`), with the values a MongoDB driver hands back: `ObjectId`,
//! `Decimal128`, `Binary` … from the `bson` package, `Date` for dates.
//! Optional members where a field was missing from some documents, unions
//! where a path held several types, each with a comment giving the shares
//! and their confidence; objects keyed by data are `Record`s.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::profile::raw::BsonType;

use super::shape::{self, Names, Object, Objects, Value};
use super::CollectionReport;

/// Names a TypeScript file may not reuse for a generated interface.
const RESERVED: [&str; 24] = [
    "Array",
    "Binary",
    "BSONRegExp",
    "BSONSymbol",
    "Boolean",
    "Code",
    "DBRef",
    "Date",
    "Decimal128",
    "Long",
    "MaxKey",
    "MinKey",
    "Number",
    "Object",
    "ObjectId",
    "Record",
    "RegExp",
    "String",
    "Symbol",
    "Timestamp",
    "Function",
    "Map",
    "Set",
    "Promise",
];

pub(crate) fn render(c: &CollectionReport) -> String {
    let model = shape::model(c);
    let mut r = Renderer {
        sample: model.sample,
        names: Names::reserving(&RESERVED),
        imports: BTreeSet::new(),
        interfaces: Vec::new(),
    };
    let root = r.names.fresh(&model.name);
    r.interface(&root, &model.root, "documents");
    let mut out = shape::comment_header(&model);
    if !r.imports.is_empty() {
        let names: Vec<&str> = r.imports.iter().copied().collect();
        let _ = writeln!(out, "import type {{ {} }} from \"bson\";", names.join(", "));
    }
    for i in r.interfaces {
        out.push('\n');
        out.push_str(&i);
    }
    out
}

struct Renderer {
    sample: bool,
    names: Names,
    imports: BTreeSet<&'static str>,
    /// Rendered interfaces, the document's first.
    interfaces: Vec<String>,
}

impl Renderer {
    /// Renders interface `name` for `o` (whose objects are `of`).
    fn interface(&mut self, name: &str, o: &Object, of: &str) {
        let slot = self.interfaces.len();
        self.interfaces.push(String::new());
        let mut body = format!("export interface {name} {{\n");
        for m in &o.members {
            let required = m.required(o);
            let hint = format!("{name}{}", shape::pascal(&m.name));
            let ty = self.value(&m.value, &hint);
            let mut notes = Vec::new();
            if !required {
                notes.push(shape::presence(m, o, of));
            }
            notes.extend(self.notes(&m.value));
            if !notes.is_empty() {
                let _ = writeln!(body, "  /** {} */", comment(&notes.join("; ")));
            }
            let _ = writeln!(
                body,
                "  {}{}: {ty};",
                member_name(&m.name),
                if required { "" } else { "?" }
            );
        }
        body.push_str("}\n");
        self.interfaces[slot] = body;
    }

    /// What a comment says about `v`: its types' shares when it holds more
    /// than one, its elements' and a map's the same way.
    fn notes(&self, v: &Value) -> Vec<String> {
        let mut notes = Vec::new();
        if v.types.len() > 1 {
            notes.push(format!("types: {}", v.shares(self.sample)));
        }
        if let Some(e) = &v.elem {
            if e.types.len() > 1 {
                notes.push(format!("elements: {}", e.shares(self.sample)));
            }
        }
        notes.extend(v.map_note());
        notes.extend(v.empty_note());
        if let Objects::Map(m) = v.objects() {
            if m.types.len() > 1 {
                notes.push(format!("values: {}", m.shares(self.sample)));
            }
        }
        notes
    }

    /// The TypeScript type of `v`; `hint` names an interface it needs.
    fn value(&mut self, v: &Value, hint: &str) -> String {
        let mut parts: Vec<String> = Vec::new();
        for (t, _) in &v.types {
            let p = self.one(*t, v, hint);
            if !parts.contains(&p) {
                parts.push(p);
            }
            if *t == BsonType::Long && v.wide_long() && !parts.iter().any(|p| p == "Long") {
                self.imports.insert("Long");
                parts.push("Long".to_owned());
            }
        }
        if parts.is_empty() {
            return "unknown".to_owned();
        }
        parts.join(" | ")
    }

    fn one(&mut self, t: BsonType, v: &Value, hint: &str) -> String {
        let import = |r: &mut Renderer, name: &'static str| {
            r.imports.insert(name);
            name.to_owned()
        };
        match t {
            BsonType::Double | BsonType::Int | BsonType::Long => "number".to_owned(),
            BsonType::String => "string".to_owned(),
            BsonType::Bool => "boolean".to_owned(),
            BsonType::Null => "null".to_owned(),
            BsonType::Undefined => "undefined".to_owned(),
            BsonType::Date => "Date".to_owned(),
            BsonType::ObjectId => import(self, "ObjectId"),
            BsonType::Decimal => import(self, "Decimal128"),
            BsonType::BinData => import(self, "Binary"),
            BsonType::Timestamp => import(self, "Timestamp"),
            BsonType::Regex => format!("RegExp | {}", import(self, "BSONRegExp")),
            BsonType::Javascript | BsonType::JavascriptWithScope => import(self, "Code"),
            BsonType::Symbol => import(self, "BSONSymbol"),
            BsonType::DbPointer => import(self, "DBRef"),
            BsonType::MinKey => import(self, "MinKey"),
            BsonType::MaxKey => import(self, "MaxKey"),
            BsonType::Array => match &v.elem {
                Some(e) => {
                    let ty = self.value(e, &element_hint(hint));
                    if ty.contains(' ') {
                        format!("({ty})[]")
                    } else {
                        format!("{ty}[]")
                    }
                }
                None => "unknown[]".to_owned(),
            },
            BsonType::Object => match v.objects() {
                Objects::Map(m) => {
                    let ty = self.value(m, &format!("{hint}Value"));
                    format!("Record<string, {ty}>")
                }
                Objects::Open => "Record<string, unknown>".to_owned(),
                Objects::Named(o) => {
                    let name = self.names.fresh(hint);
                    self.interface(&name, o, &v.objects_here());
                    name
                }
            },
        }
    }
}

/// The name of an array's element type: `OrderItems` → `OrderItem`, or
/// `…Item` when the name is singular already.
pub(crate) fn element_hint(hint: &str) -> String {
    let one = shape::pascal(&crate::i18n::singular(hint));
    if one == hint {
        format!("{hint}Item")
    } else {
        one
    }
}

/// A member name as TypeScript accepts it: bare when an identifier, quoted
/// otherwise.
fn member_name(name: &str) -> String {
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.to_owned()
    } else {
        serde_json::to_string(name).unwrap_or_default()
    }
}

/// Text safe inside a `/** … */` comment on one line.
fn comment(s: &str) -> String {
    shape::one_line(&s.replace("*/", "* /"))
}
