//! Comparable keys for reference values, so that an `int` 5 in one
//! collection matches a `long` 5 in another, as it would in a query.

use crate::profile::raw::{self, BsonType, Element};

#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord)]
pub enum ValueKey {
    /// Numbers, compared as doubles (bit pattern, -0 folded into 0).
    Num(u64),
    Str(Box<[u8]>),
    Oid([u8; 12]),
    Other(u8, Box<[u8]>),
}

fn num(x: f64) -> Option<ValueKey> {
    if x.is_nan() {
        return None;
    }
    let x = if x == 0.0 { 0.0 } else { x };
    Some(ValueKey::Num(x.to_bits()))
}

/// The key of a raw element's value; `None` for containers and nulls.
pub fn of_element(el: &Element<'_>) -> Option<ValueKey> {
    let v = el.value;
    match el.ty {
        BsonType::Int => num(f64::from(raw::value::i32(v)?)),
        BsonType::Long => num(raw::value::i64(v)? as f64),
        BsonType::Double => num(raw::value::f64(v)?),
        BsonType::String => Some(ValueKey::Str(raw::value::str(v)?.as_bytes().into())),
        BsonType::ObjectId => Some(ValueKey::Oid(v.get(..12)?.try_into().ok()?)),
        BsonType::Object | BsonType::Array | BsonType::Null | BsonType::Undefined => None,
        t => Some(ValueKey::Other(t as u8, v.into())),
    }
}

/// The key of a decoded value.
pub fn of_bson(b: &bson::Bson) -> Option<ValueKey> {
    match b {
        bson::Bson::Int32(x) => num(f64::from(*x)),
        bson::Bson::Int64(x) => num(*x as f64),
        bson::Bson::Double(x) => num(*x),
        bson::Bson::String(s) => Some(ValueKey::Str(s.as_bytes().into())),
        bson::Bson::ObjectId(o) => Some(ValueKey::Oid(o.bytes())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_match_across_widths() {
        assert_eq!(
            of_bson(&bson::Bson::Int32(5)),
            of_bson(&bson::Bson::Int64(5))
        );
        assert_eq!(
            of_bson(&bson::Bson::Double(5.0)),
            of_bson(&bson::Bson::Int32(5))
        );
        assert_ne!(
            of_bson(&bson::Bson::String("5".into())),
            of_bson(&bson::Bson::Int32(5))
        );
        assert_eq!(
            of_bson(&bson::Bson::Double(-0.0)),
            of_bson(&bson::Bson::Int32(0))
        );
        assert_eq!(of_bson(&bson::Bson::Null), None);
    }
}
