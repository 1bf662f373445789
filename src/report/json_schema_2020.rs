//! `docshape schema --format json-schema-2020`: the collection's documents
//! as standard JSON Schema (draft 2020-12), for validators outside MongoDB.
//! A document is validated as relaxed Extended JSON (`mongoexport`'s
//! default): an ObjectId is `{"$oid": …}`, a date `{"$date": …}`, a
//! decimal `{"$numberDecimal": …}`. Required members are those in every
//! document profiled, and the schema says what a sample can prove of them;
//! members never seen are allowed, since a sample cannot rule them out.

use serde_json::{json, Map, Value as Json};

use crate::profile::raw::BsonType;

use super::shape::{self, Model, Object, Value};
use super::CollectionReport;

const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

pub(crate) fn render(c: &CollectionReport) -> String {
    let mut s = serde_json::to_string_pretty(&schema(c)).unwrap_or_default();
    s.push('\n');
    s
}

/// The JSON Schema of collection `c`'s documents.
pub(crate) fn schema(c: &CollectionReport) -> Json {
    let model = shape::model(c);
    let mut r = Renderer {
        model: &model,
        defs: Map::new(),
    };
    let mut root = Map::new();
    root.insert("$schema".into(), json!(DIALECT));
    root.insert("title".into(), json!(model.name));
    let mut about = shape::header(&model);
    about.push(
        "Documents as relaxed Extended JSON. Fields the profile never saw are allowed: a sample cannot rule them out.".to_owned(),
    );
    root.insert("description".into(), json!(about.join(" ")));
    let body = r.object(&model.root, "documents");
    root.extend(body);
    if !r.defs.is_empty() {
        root.insert("$defs".into(), Json::Object(r.defs));
    }
    Json::Object(root)
}

struct Renderer<'a> {
    model: &'a Model,
    /// The Extended JSON wrappers used, by name.
    defs: Map<String, Json>,
}

impl Renderer<'_> {
    fn object(&mut self, o: &Object, of: &str) -> Map<String, Json> {
        let mut m = Map::new();
        m.insert("type".into(), json!("object"));
        if let Some((v, _)) = &o.map {
            m.insert("additionalProperties".into(), self.value(v));
            return m;
        }
        if o.members.is_empty() {
            return m;
        }
        let mut props = Map::new();
        let mut required = Vec::new();
        for mem in &o.members {
            let mut s = self.value(&mem.value);
            let mut notes = Vec::new();
            if mem.required(o) {
                required.push(json!(mem.name));
            } else {
                notes.push(shape::presence(mem, o, of));
            }
            if mem.value.types.len() > 1 {
                notes.push(format!("types: {}", mem.value.shares(self.model.sample)));
            }
            notes.extend(mem.value.map_note());
            notes.extend(mem.value.empty_note());
            if let (Json::Object(s), false) = (&mut s, notes.is_empty()) {
                s.insert("description".into(), json!(notes.join("; ")));
            }
            props.insert(mem.name.clone(), s);
        }
        if !required.is_empty() {
            m.insert("required".into(), Json::Array(required));
        }
        m.insert("properties".into(), Json::Object(props));
        m
    }

    /// The schema of what `v` holds: one alternative per type seen.
    fn value(&mut self, v: &Value) -> Json {
        let mut simple: Vec<&str> = Vec::new();
        let mut others: Vec<Json> = Vec::new();
        for (t, _) in &v.types {
            let plain = match t {
                BsonType::Double => Some("number"),
                BsonType::Int | BsonType::Long => Some("integer"),
                BsonType::String => Some("string"),
                BsonType::Bool => Some("boolean"),
                BsonType::Null => Some("null"),
                _ => None,
            };
            if let Some(p) = plain {
                if !simple.contains(&p) {
                    simple.push(p);
                }
                if *t == BsonType::Double {
                    others.push(self.wrapper(BsonType::Double));
                }
                continue;
            }
            let s = match t {
                BsonType::Array => {
                    let mut a = Map::new();
                    a.insert("type".into(), json!("array"));
                    if let Some(e) = &v.elem {
                        a.insert("items".into(), self.value(e));
                    }
                    Json::Object(a)
                }
                BsonType::Object => match &v.object {
                    Some(o) => Json::Object(self.object(o, &v.objects_here())),
                    None => json!({ "type": "object" }),
                },
                other => self.wrapper(*other),
            };
            if !others.contains(&s) {
                others.push(s);
            }
        }
        // `integer` is within `number`.
        if simple.contains(&"number") {
            simple.retain(|s| *s != "integer");
        }
        let mut alts = Vec::new();
        match simple.len() {
            0 => {}
            1 => alts.push(json!({ "type": simple[0] })),
            _ => alts.push(json!({ "type": simple })),
        }
        alts.extend(others);
        match alts.len() {
            0 => json!({}),
            1 => alts.pop().unwrap_or_default(),
            _ => json!({ "anyOf": alts }),
        }
    }

    /// A reference to the Extended JSON wrapper of `t`, defined once.
    fn wrapper(&mut self, t: BsonType) -> Json {
        let (name, def) = ejson(t);
        self.defs.entry(name).or_insert(def);
        if t == BsonType::DbPointer {
            let (oid, def) = ejson(BsonType::ObjectId);
            self.defs.entry(oid).or_insert(def);
        }
        json!({ "$ref": format!("#/$defs/{name}") })
    }
}

/// One key's wrapper object: `{"$oid": <schema>}` and nothing else.
fn wrapped(key: &str, inner: &Json) -> Json {
    json!({
        "type": "object",
        "properties": { key: inner },
        "required": [key],
        "additionalProperties": false,
    })
}

/// The relaxed Extended JSON form of a value of type `t`, and its name.
fn ejson(t: BsonType) -> (&'static str, Json) {
    let string = json!({ "type": "string" });
    let number_long = wrapped(
        "$numberLong",
        &json!({ "type": "string", "pattern": "^-?[0-9]+$" }),
    );
    match t {
        BsonType::Double => (
            "nonFiniteDouble",
            wrapped(
                "$numberDouble",
                &json!({ "enum": ["NaN", "Infinity", "-Infinity"] }),
            ),
        ),
        BsonType::ObjectId => (
            "objectId",
            wrapped(
                "$oid",
                &json!({ "type": "string", "pattern": "^[0-9a-fA-F]{24}$" }),
            ),
        ),
        BsonType::Date => (
            "date",
            wrapped(
                "$date",
                &json!({ "anyOf": [
                    { "type": "string", "format": "date-time" },
                    number_long,
                ] }),
            ),
        ),
        BsonType::Decimal => ("decimal", wrapped("$numberDecimal", &string)),
        BsonType::BinData => (
            "binary",
            wrapped(
                "$binary",
                &json!({
                    "type": "object",
                    "properties": {
                        "base64": { "type": "string" },
                        "subType": { "type": "string", "pattern": "^[0-9a-fA-F]{1,2}$" },
                    },
                    "required": ["base64", "subType"],
                    "additionalProperties": false,
                }),
            ),
        ),
        BsonType::Regex => (
            "regex",
            wrapped(
                "$regularExpression",
                &json!({
                    "type": "object",
                    "properties": { "pattern": string, "options": string },
                    "required": ["pattern", "options"],
                    "additionalProperties": false,
                }),
            ),
        ),
        BsonType::Timestamp => (
            "timestamp",
            wrapped(
                "$timestamp",
                &json!({
                    "type": "object",
                    "properties": {
                        "t": { "type": "integer", "minimum": 0 },
                        "i": { "type": "integer", "minimum": 0 },
                    },
                    "required": ["t", "i"],
                    "additionalProperties": false,
                }),
            ),
        ),
        BsonType::Javascript => ("code", wrapped("$code", &string)),
        BsonType::JavascriptWithScope => (
            "codeWithScope",
            json!({
                "type": "object",
                "properties": { "$code": string, "$scope": { "type": "object" } },
                "required": ["$code", "$scope"],
                "additionalProperties": false,
            }),
        ),
        BsonType::Symbol => ("symbol", wrapped("$symbol", &string)),
        BsonType::DbPointer => (
            "dbPointer",
            wrapped(
                "$dbPointer",
                &json!({
                    "type": "object",
                    "properties": {
                        "$ref": string,
                        "$id": { "$ref": "#/$defs/objectId" },
                    },
                    "required": ["$ref", "$id"],
                }),
            ),
        ),
        BsonType::Undefined => (
            "undefined",
            wrapped("$undefined", &json!({ "const": true })),
        ),
        BsonType::MinKey => ("minKey", wrapped("$minKey", &json!({ "const": 1 }))),
        BsonType::MaxKey => ("maxKey", wrapped("$maxKey", &json!({ "const": 1 }))),
        // Plain JSON, handled by the caller.
        BsonType::String
        | BsonType::Int
        | BsonType::Long
        | BsonType::Bool
        | BsonType::Null
        | BsonType::Array
        | BsonType::Object => ("any", json!({})),
    }
}
