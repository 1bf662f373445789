//! `docshape schema --format json-schema`: a `$jsonSchema` validator built
//! from the inferred shape — required fields from presence, `bsonType`
//! unions from the types seen, array `items` — ready for `collMod`.
//! Every document profiled validates against it.

use serde_json::{json, Map, Value};

use super::CollectionReport;
use crate::profile::raw::BsonType;
use crate::profile::{FieldProfile, Seg};

pub(crate) fn render(c: &CollectionReport) -> String {
    let mut s =
        serde_json::to_string_pretty(&json!({ "$jsonSchema": schema(c) })).unwrap_or_default();
    s.push('\n');
    s
}

/// The `$jsonSchema` document for one collection.
pub(crate) fn schema(c: &CollectionReport) -> Value {
    let top: Vec<&FieldProfile> = c.fields.iter().filter(|f| f.segments.len() == 1).collect();
    let mut root = Map::new();
    root.insert("bsonType".into(), json!("object"));
    let required: Vec<&str> = top
        .iter()
        .filter(|f| f.count == c.sampled && c.sampled > 0)
        .map(|f| f.name.as_str())
        .collect();
    if !required.is_empty() {
        root.insert("required".into(), json!(required));
    }
    root.insert("properties".into(), Value::Object(properties(c, &[], &top)));
    root.insert(
        "description".into(),
        json!(format!(
            "inferred by docshape {} from {} documents of {}",
            super::VERSION,
            c.sampled,
            c.namespace
        )),
    );
    Value::Object(root)
}

fn properties(
    c: &CollectionReport,
    _parent: &[Seg],
    fields: &[&FieldProfile],
) -> Map<String, Value> {
    fields
        .iter()
        .map(|f| (f.name.clone(), node(c, f)))
        .collect()
}

/// The paths one step below `f`: its named members and its element node.
pub(super) fn children<'a>(c: &'a CollectionReport, f: &FieldProfile) -> Vec<&'a FieldProfile> {
    let n = f.segments.len();
    c.fields
        .iter()
        .filter(|x| x.segments.len() == n + 1 && x.segments[..n] == f.segments[..])
        .collect()
}

fn node(c: &CollectionReport, f: &FieldProfile) -> Value {
    let mut m = Map::new();
    let types: Vec<&str> = f.types.iter().map(|(t, _)| bson_type(*t)).collect();
    m.insert(
        "bsonType".into(),
        if types.len() == 1 {
            json!(types[0])
        } else {
            json!(types)
        },
    );
    let kids = children(c, f);
    let objects = f.type_count(BsonType::Object);
    let keyed = keyed(&kids);
    if objects > 0 && !keyed.is_empty() {
        let required: Vec<&str> = keyed
            .iter()
            .filter(|k| in_every_object(f, k) && f.types.len() == 1)
            .map(|k| k.name.as_str())
            .collect();
        if !required.is_empty() {
            m.insert("required".into(), json!(required));
        }
        m.insert(
            "properties".into(),
            Value::Object(properties(c, &f.segments, &keyed)),
        );
    }
    if let Some(elem) = kids.iter().find(|k| k.segments.last() == Some(&Seg::Elem)) {
        m.insert("items".into(), node(c, elem));
    }
    Value::Object(m)
}

/// The named members among `kids` (not the element node).
pub(super) fn keyed<'a>(kids: &[&'a FieldProfile]) -> Vec<&'a FieldProfile> {
    kids.iter()
        .copied()
        .filter(|k| matches!(k.segments.last(), Some(Seg::Key(_))))
        .collect()
}

/// Member `k` of `f` was in every object seen at `f`.
pub(super) fn in_every_object(f: &FieldProfile, k: &FieldProfile) -> bool {
    k.values >= f.type_count(BsonType::Object)
}

/// `$jsonSchema` names `javascriptWithScope` and the others as `$type` does.
fn bson_type(t: BsonType) -> &'static str {
    t.alias()
}
