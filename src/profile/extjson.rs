//! Values as relaxed Extended JSON, the one form reports, examples and the
//! explorer show them in.

use bson::Bson;
use serde_json::{json, Value};

/// Relaxed Extended JSON of a value.
pub trait Relaxed {
    /// The value as relaxed Extended JSON; a code-with-scope's scope in the
    /// `bson` crate's serde form (a date as `{"$date": {"$numberLong":
    /// "…"}}`), as docshape has always shown it, where the `bson` crate's
    /// own `into_relaxed_extjson` (since bson 3) shows the scope relaxed.
    fn relaxed(self) -> Value;
}

impl Relaxed for Bson {
    fn relaxed(self) -> Value {
        match self {
            Bson::Document(d) => {
                Value::Object(d.into_iter().map(|(k, v)| (k, v.relaxed())).collect())
            }
            Bson::Array(a) => Value::Array(a.into_iter().map(Relaxed::relaxed).collect()),
            Bson::JavaScriptCodeWithScope(c) => json!({
                "$code": c.code,
                "$scope": serde_json::to_value(&c.scope).unwrap_or(Value::Null),
            }),
            other => other.into_relaxed_extjson(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Relaxed;
    use bson::{doc, Bson, JavaScriptCodeWithScope};
    use serde_json::json;

    #[test]
    fn a_scope_keeps_its_serde_form_at_any_depth() {
        let cws = Bson::JavaScriptCodeWithScope(JavaScriptCodeWithScope {
            code: "g()".into(),
            scope: doc! {"at": bson::DateTime::from_millis(1_238_569_200_000), "n": 1_i64},
        });
        let want = json!({
            "$code": "g()",
            "$scope": {"at": {"$date": {"$numberLong": "1238569200000"}}, "n": 1},
        });
        assert_eq!(cws.clone().relaxed(), want);
        assert_eq!(
            Bson::Document(doc! {"a": [cws], "d": bson::DateTime::from_millis(0)}).relaxed(),
            json!({"a": [want], "d": {"$date": "1970-01-01T00:00:00Z"}})
        );
    }
}
