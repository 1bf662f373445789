//! Query shapes: an operation with its values replaced by their types, so
//! every run of the same query counts as one shape (`{status: "A"}` and
//! `{status: "B"}` are both `{status: "string"}`).

use serde_json::{Map, Value};

/// How one field is matched by a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Predicate {
    Equality,
    Range,
    In,
    /// `^abc` without the `i` option: an index serves it as a range.
    PrefixRegex,
    /// Unanchored or case-insensitive: every key must be read.
    ScanRegex,
    Exists,
    ElemMatch,
    /// `$ne`, `$nin`, `$not`, `$expr` …: no index bounds.
    Other,
}

/// The type name a value is replaced by (MongoDB's `$type` aliases).
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int",
        Value::Number(_) => "double",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(o) => match o.keys().next().map(String::as_str) {
            Some("$oid") => "objectId",
            Some("$date") => "date",
            Some("$numberLong") => "long",
            Some("$numberInt") => "int",
            Some("$numberDouble") => "double",
            Some("$numberDecimal") => "decimal",
            Some("$binary" | "$uuid") => "binData",
            Some("$timestamp") => "timestamp",
            Some("$regularExpression" | "$regex") => "regex",
            Some("$minKey") => "minKey",
            Some("$maxKey") => "maxKey",
            _ => "object",
        },
    }
}

/// Is `o` one Extended JSON value (`{"$oid": …}`) rather than a document?
fn is_ejson_value(o: &Map<String, Value>) -> bool {
    !matches!(type_name(&Value::Object(o.clone())), "object")
        && o.keys().next().is_some_and(|k| k.starts_with('$'))
}

/// `1`, `2-10`, `11-100`, `101-1000`, `>1000`: how long an `$in` list is.
pub(crate) fn length_class(n: usize) -> &'static str {
    match n {
        0 => "0",
        1 => "1",
        2..=10 => "2-10",
        11..=100 => "11-100",
        101..=1000 => "101-1000",
        _ => ">1000",
    }
}

/// A filter, pipeline or update with every value replaced by its type.
/// Operators and field names stay; lists after `$in`, `$nin` and `$all`
/// become `array(LENGTH-CLASS)`.
pub(crate) fn shape(v: &Value) -> Value {
    match v {
        Value::Object(o) if is_ejson_value(o) => Value::String(type_name(v).to_owned()),
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, x) in o {
                let s = match (k.as_str(), x) {
                    ("$in" | "$nin" | "$all", Value::Array(a)) => {
                        Value::String(format!("array({})", length_class(a.len())))
                    }
                    // Structure, not values: field references and directions.
                    ("$sort" | "$project" | "$group" | "$unwind" | "$lookup" | "$count", _) => {
                        keep_structure(x)
                    }
                    _ => shape(x),
                };
                out.insert(k.clone(), s);
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(shape).collect()),
        other => Value::String(type_name(other).to_owned()),
    }
}

/// Pipeline stages whose values are names and directions, not data:
/// kept as written, except literal values inside them.
fn keep_structure(v: &Value) -> Value {
    match v {
        Value::Object(o) if is_ejson_value(o) => Value::String(type_name(v).to_owned()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), keep_structure(x)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(keep_structure).collect()),
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => v.clone(),
    }
}

/// A pipeline's shape: `$match` filters as shapes, the other stages as
/// their structure.
pub(crate) fn pipeline_shape(stages: &[Value]) -> Value {
    Value::Array(
        stages
            .iter()
            .map(|s| match s.as_object().and_then(|o| o.iter().next()) {
                Some((k, m)) if k == "$match" => {
                    let mut o = Map::new();
                    o.insert(k.clone(), shape(m));
                    Value::Object(o)
                }
                _ => shape(s),
            })
            .collect(),
    )
}

/// Each field a filter matches and how, in the filter's order (`$and`
/// lists are opened; `$or` branches are listed too).
pub(crate) fn predicates(filter: &Value) -> Vec<(String, Predicate)> {
    let mut out = Vec::new();
    collect(filter, &mut out);
    out
}

fn collect(filter: &Value, out: &mut Vec<(String, Predicate)>) {
    let Some(o) = filter.as_object() else { return };
    for (k, v) in o {
        if k == "$and" || k == "$or" || k == "$nor" {
            for branch in v.as_array().into_iter().flatten() {
                collect(branch, out);
            }
            continue;
        }
        if k.starts_with('$') {
            continue;
        }
        out.push((k.clone(), classify(v)));
    }
}

fn classify(v: &Value) -> Predicate {
    let Some(o) = v.as_object() else {
        return Predicate::Equality;
    };
    if is_ejson_value(o) {
        return match type_name(v) {
            "regex" => regex_class(o),
            _ => Predicate::Equality,
        };
    }
    let ops: Vec<&str> = o.keys().map(String::as_str).collect();
    if ops.iter().all(|k| !k.starts_with('$')) {
        // A whole sub-document compared for equality.
        return Predicate::Equality;
    }
    let mut class = Predicate::Other;
    for op in ops {
        let c = match op {
            "$eq" => Predicate::Equality,
            "$gt" | "$gte" | "$lt" | "$lte" => Predicate::Range,
            "$in" => Predicate::In,
            "$regex" => regex_class(o),
            "$exists" => Predicate::Exists,
            "$elemMatch" => Predicate::ElemMatch,
            _ => Predicate::Other,
        };
        // The most index-friendly operator decides (`$gte`+`$lt` is a range).
        class = class.min(c);
    }
    class
}

fn regex_class(o: &Map<String, Value>) -> Predicate {
    let (pattern, options) = match o.get("$regularExpression") {
        Some(r) => (
            r.get("pattern").and_then(Value::as_str).unwrap_or(""),
            r.get("options").and_then(Value::as_str).unwrap_or(""),
        ),
        None => (
            o.get("$regex").and_then(Value::as_str).unwrap_or(""),
            o.get("$options").and_then(Value::as_str).unwrap_or(""),
        ),
    };
    if pattern.starts_with('^') && !options.contains('i') {
        Predicate::PrefixRegex
    } else {
        Predicate::ScanRegex
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_become_types_and_lists_their_length() {
        let f = json!({
            "status": "A",
            "qty": {"$gte": 5, "$lt": 10.5},
            "_id": {"$oid": "65f20b835538c55aa02d9e04"},
            "at": {"$gte": {"$date": "2026-01-01T00:00:00Z"}},
            "sku": {"$in": ["a", "b", "c"]},
            "name": {"$regularExpression": {"pattern": "^ab", "options": ""}},
            "tags": {"$elemMatch": {"k": "x"}},
        });
        assert_eq!(
            shape(&f),
            json!({
                "status": "string",
                "qty": {"$gte": "int", "$lt": "double"},
                "_id": "objectId",
                "at": {"$gte": "date"},
                "sku": {"$in": "array(2-10)"},
                "name": "regex",
                "tags": {"$elemMatch": {"k": "string"}},
            })
        );
        // Two runs with other values are one shape.
        let g = json!({"status": "B", "qty": {"$gte": 1, "$lt": 2.5}});
        let h = json!({"status": "Z", "qty": {"$gte": 9, "$lt": 0.5}});
        assert_eq!(shape(&g), shape(&h));
    }

    #[test]
    fn predicates_are_classified_for_index_order() {
        let f = json!({
            "status": "A",
            "qty": {"$gte": 5, "$lt": 10},
            "sku": {"$in": [1, 2]},
            "name": {"$regex": "^ab"},
            "email": {"$regex": "gmail", "$options": "i"},
            "deleted": {"$exists": false},
            "kind": {"$ne": "x"},
            "$or": [{"a": 1}, {"b": {"$gt": 2}}],
        });
        let p = predicates(&f);
        let want = vec![
            ("status".to_owned(), Predicate::Equality),
            ("qty".to_owned(), Predicate::Range),
            ("sku".to_owned(), Predicate::In),
            ("name".to_owned(), Predicate::PrefixRegex),
            ("email".to_owned(), Predicate::ScanRegex),
            ("deleted".to_owned(), Predicate::Exists),
            ("kind".to_owned(), Predicate::Other),
            ("a".to_owned(), Predicate::Equality),
            ("b".to_owned(), Predicate::Range),
        ];
        assert_eq!(p, want);
    }

    #[test]
    fn pipelines_keep_their_structure_and_lose_their_values() {
        let p = json!([
            {"$match": {"customer": {"$oid": "65f20b835538c55aa02d9e04"}}},
            {"$lookup": {"from": "items", "localField": "sku", "foreignField": "sku", "as": "item"}},
            {"$group": {"_id": "$customer", "n": {"$sum": 1}}},
            {"$sort": {"n": -1}},
            {"$limit": 10},
        ]);
        let s = pipeline_shape(p.as_array().expect("array"));
        assert_eq!(
            s,
            json!([
                {"$match": {"customer": "objectId"}},
                {"$lookup": {"from": "items", "localField": "sku", "foreignField": "sku", "as": "item"}},
                {"$group": {"_id": "$customer", "n": {"$sum": 1}}},
                {"$sort": {"n": -1}},
                {"$limit": "int"},
            ])
        );
    }
}
