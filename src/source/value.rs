//! Comparable keys for values (reference values above all), so that an `int` 5 in one
//! collection matches a `long` 5 in another, as it would in a query.

use crate::profile::raw::{self, BsonType, Element};

/// Comparable families of reference values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    ObjectId,
    Number,
    String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, PartialOrd, Ord)]
pub enum ValueKey {
    /// Integers of any width, and doubles that hold one exactly: `int` 5,
    /// `long` 5 and `double` 5.0 are one key, as they are to a query, and
    /// a `long` past 2^53 keeps every digit.
    Int(i64),
    /// Other numbers (bit pattern of the double, -0 folded into 0).
    Num(u64),
    Str(Box<[u8]>),
    Oid([u8; 12]),
    Other(u8, Box<[u8]>),
}

/// 2^63 as a double: below it, an integral double converts exactly.
const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

fn num(x: f64) -> Option<ValueKey> {
    if x.is_nan() {
        return None;
    }
    if x.fract() == 0.0 && (-I64_LIMIT..I64_LIMIT).contains(&x) {
        return Some(ValueKey::Int(x as i64));
    }
    Some(ValueKey::Num(x.to_bits()))
}

impl ValueKey {
    /// The number as a double (an integer past 2^53 rounded), for
    /// densities; `None` when the key is not a number.
    pub(crate) fn as_f64(&self) -> Option<f64> {
        match self {
            ValueKey::Int(i) => Some(*i as f64),
            ValueKey::Num(bits) => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    /// The string, when the key is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            ValueKey::Str(b) => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }

    /// A value a query can ask for that matches exactly the values with
    /// this key: integers as `int` when they fit, else `long` (a server
    /// compares numbers across widths). `None` for keys of other types,
    /// which reference values never have.
    pub fn to_bson(&self) -> Option<bson::Bson> {
        Some(match self {
            ValueKey::Int(i) => match i32::try_from(*i) {
                Ok(small) => bson::Bson::Int32(small),
                Err(_) => bson::Bson::Int64(*i),
            },
            ValueKey::Num(bits) => bson::Bson::Double(f64::from_bits(*bits)),
            ValueKey::Str(b) => bson::Bson::String(std::str::from_utf8(b).ok()?.to_owned()),
            ValueKey::Oid(o) => bson::Bson::ObjectId(bson::oid::ObjectId::from_bytes(*o)),
            ValueKey::Other(..) => return None,
        })
    }
}

/// The key of a raw element's value; `None` for containers and nulls.
pub(crate) fn of_element(el: &Element<'_>) -> Option<ValueKey> {
    let v = el.value;
    match el.ty {
        BsonType::Int => Some(ValueKey::Int(raw::value::i32(v)?.into())),
        BsonType::Long => Some(ValueKey::Int(raw::value::i64(v)?)),
        BsonType::Double => num(raw::value::f64(v)?),
        BsonType::String => Some(ValueKey::Str(raw::value::str(v)?.as_bytes().into())),
        BsonType::ObjectId => Some(ValueKey::Oid(v.get(..12)?.try_into().ok()?)),
        BsonType::Object | BsonType::Array | BsonType::Null | BsonType::Undefined => None,
        t => Some(ValueKey::Other(t as u8, v.into())),
    }
}

/// A string holding a value of another family, as the server's
/// `$toObjectId` and `$toInt`/`$toLong` would read it: 24 hex digits are
/// an ObjectId, a decimal integer (optional sign, no spaces, no leading
/// `+`, within 64 bits) a number. `None` for anything else.
pub(crate) fn converted(s: &str, family: Family) -> Option<ValueKey> {
    match family {
        Family::ObjectId => {
            if s.len() != 24 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let mut bytes = [0u8; 12];
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
            }
            Some(ValueKey::Oid(bytes))
        }
        Family::Number => {
            let digits = s.strip_prefix('-').unwrap_or(s);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            s.parse::<i64>().ok().map(ValueKey::Int)
        }
        Family::String => None,
    }
}

/// The key a decoded value has once read as a value of `family`, the way
/// the server's conversions read it: a hex string as the ObjectId it
/// writes and an ObjectId as its hex string, a numeric string as its
/// number and an integer as its decimal string. A value already of
/// `family`, or one no conversion reads, keeps its own key. An id copied
/// as text is then compared with the key it names.
pub(crate) fn key_as(b: &bson::Bson, family: Family) -> Option<ValueKey> {
    match (b, family) {
        (bson::Bson::String(s), Family::ObjectId | Family::Number) => {
            converted(s, family).or_else(|| of_bson(b))
        }
        (bson::Bson::ObjectId(o), Family::String) => {
            Some(ValueKey::Str(o.to_hex().into_bytes().into()))
        }
        (bson::Bson::Int32(_) | bson::Bson::Int64(_), Family::String) => match of_bson(b)? {
            ValueKey::Int(i) => Some(ValueKey::Str(i.to_string().into_bytes().into())),
            k => Some(k),
        },
        _ => of_bson(b),
    }
}

/// The family of a value's type, when values of that type can be keys.
pub(crate) fn family_of_bson(b: &bson::Bson) -> Option<Family> {
    match b {
        bson::Bson::ObjectId(_) => Some(Family::ObjectId),
        bson::Bson::Int32(_) | bson::Bson::Int64(_) | bson::Bson::Double(_) => Some(Family::Number),
        bson::Bson::String(_) => Some(Family::String),
        _ => None,
    }
}

/// The key of a decoded value.
pub(crate) fn of_bson(b: &bson::Bson) -> Option<ValueKey> {
    match b {
        bson::Bson::Int32(x) => Some(ValueKey::Int((*x).into())),
        bson::Bson::Int64(x) => Some(ValueKey::Int(*x)),
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
        assert_ne!(
            of_bson(&bson::Bson::Double(2.5)),
            of_bson(&bson::Bson::Int32(2))
        );
    }

    #[test]
    fn values_read_as_another_family_as_the_server_converts_them() {
        use bson::Bson;
        let oid = bson::oid::ObjectId::from_bytes([
            0x61, 0x95, 0x0b, 0x47, 0x52, 0xf0, 0xac, 0x35, 0xb0, 0xdc, 0x84, 0x32,
        ]);
        let hex = Bson::String("61950b4752f0ac35b0dc8432".into());
        let upper = Bson::String("61950B4752F0AC35B0DC8432".into());
        let cases: Vec<(Bson, Family, Option<ValueKey>)> = vec![
            // A hex string names the ObjectId it writes, in either case.
            (hex.clone(), Family::ObjectId, of_bson(&Bson::ObjectId(oid))),
            (upper, Family::ObjectId, of_bson(&Bson::ObjectId(oid))),
            // An ObjectId read as text is its lower-case hex string.
            (Bson::ObjectId(oid), Family::String, of_bson(&hex)),
            // Numbers and numeric strings, both ways, across widths.
            (
                Bson::String("42".into()),
                Family::Number,
                of_bson(&Bson::Int64(42)),
            ),
            (
                Bson::Int64(42),
                Family::String,
                of_bson(&Bson::String("42".into())),
            ),
            (
                Bson::Int32(-7),
                Family::String,
                of_bson(&Bson::String("-7".into())),
            ),
            (Bson::Double(4.0), Family::Number, of_bson(&Bson::Int32(4))),
            // What no conversion reads keeps its own key.
            (
                Bson::String("ann".into()),
                Family::ObjectId,
                of_bson(&Bson::String("ann".into())),
            ),
            (
                Bson::String("4 2".into()),
                Family::Number,
                of_bson(&Bson::String("4 2".into())),
            ),
            (
                Bson::ObjectId(oid),
                Family::Number,
                of_bson(&Bson::ObjectId(oid)),
            ),
            (Bson::Null, Family::String, None),
        ];
        for (b, family, want) in cases {
            assert_eq!(key_as(&b, family), want, "{b:?} as {family:?}");
        }
        assert_eq!(family_of_bson(&Bson::Int64(1)), Some(Family::Number));
        assert_eq!(family_of_bson(&Bson::Boolean(true)), None);
    }

    #[test]
    fn big_longs_keep_every_digit() {
        let a = of_bson(&bson::Bson::Int64((1 << 53) + 1)).expect("a key");
        let b = of_bson(&bson::Bson::Int64(1 << 53)).expect("a key");
        assert_ne!(a, b);
        assert_eq!(a.to_bson(), Some(bson::Bson::Int64((1 << 53) + 1)));
        assert_eq!(
            of_bson(&bson::Bson::Double(9.3e18)),
            Some(ValueKey::Num(9.3e18f64.to_bits())),
            "past i64 a double stays a double"
        );
    }

    #[test]
    fn keys_turn_back_into_the_values_they_match() {
        for b in [
            bson::Bson::Int32(-7),
            bson::Bson::Int64(i64::MIN),
            bson::Bson::Int64(1 << 40),
            bson::Bson::Double(0.25),
            bson::Bson::String("ab c".into()),
            bson::Bson::ObjectId(bson::oid::ObjectId::from_bytes([7; 12])),
        ] {
            let k = of_bson(&b).expect("a key");
            let back = k.to_bson().expect("a value");
            assert_eq!(of_bson(&back), Some(k), "{b:?} → {back:?}");
        }
        assert_eq!(
            of_bson(&bson::Bson::Int64(5)).expect("a key").to_bson(),
            Some(bson::Bson::Int32(5))
        );
    }
}
