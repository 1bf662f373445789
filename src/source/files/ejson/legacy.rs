//! Extended JSON values to BSON: the bson crate's conversion (canonical and
//! relaxed Extended JSON v2), plus the forms older tools wrote and that
//! `mongoimport` and pymongo's `json_util` still read:
//!
//! - `$date` as an ISO-8601 string that RFC 3339 refuses: an offset without
//!   a colon (`-0700`, as `mongoexport` wrote it before 4.2) or of hours
//!   only (`+07`), no offset (UTC), no seconds, or a date alone (midnight
//!   UTC);
//! - `$date` as a floating-point number of milliseconds (the fraction is
//!   dropped, as pymongo drops it);
//! - `{"$binary": "<base64>", "$type": "<hex>"}`, the subtype also as a
//!   number, or as the eight digits (`ffffff80`) some exports wrote;
//! - `{"$regex": "<pattern>", "$options": "<flags>"}` (a `$regex` whose
//!   value is not a string is a query operator, and stays a document);
//! - `{"$numberLong": 5}`, the number not quoted.
//!
//! Everything else goes to the bson crate as it is, so canonical and relaxed
//! input reads exactly as before, errors included.

use bson::Bson;
use serde_json::{Map, Value};

/// Why an Extended JSON value cannot be converted to BSON (its `Display`
/// the phrase the user sees, after the document's number).
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    /// The bson crate refused it.
    #[error("{0}")]
    Bson(#[from] bson::error::Error),
    #[error(
        "invalid value: string {0:?}, expected an ISO-8601 date and time such as \"2009-04-01T07:00:00Z\""
    )]
    Date(String),
    #[error("invalid value: {0}, expected milliseconds since 1970 within a 64-bit integer")]
    Millis(f64),
    #[error("invalid value: {0}, expected a binary subtype 0-255")]
    SubtypeRange(serde_json::Number),
    #[error("invalid value: {0}, expected a hexadecimal binary subtype")]
    SubtypeKind(Value),
}

/// Converts one Extended JSON value to BSON.
pub fn to_bson(value: Value) -> Result<Bson, ConvertError> {
    match value {
        Value::Object(m) => object(m),
        Value::Array(a) => a
            .into_iter()
            .map(to_bson)
            .collect::<Result<Vec<_>, _>>()
            .map(Bson::Array),
        other => Ok(Bson::try_from(other)?),
    }
}

fn object(m: Map<String, Value>) -> Result<Bson, ConvertError> {
    if m.len() <= 2 {
        if let Some(b) = legacy(&m) {
            return b;
        }
    }
    if m.keys().any(|k| super::is_wrapper_key(k)) {
        return Ok(Bson::try_from(Value::Object(m))?);
    }
    let mut doc = bson::Document::new();
    for (k, v) in m {
        doc.insert(k, to_bson(v)?);
    }
    Ok(Bson::Document(doc))
}

/// The legacy wrapper `m` is, converted; `None` when it is none of them.
fn legacy(m: &Map<String, Value>) -> Option<Result<Bson, ConvertError>> {
    if let Some(d) = m.get("$date") {
        return if m.len() == 1 { date(d) } else { None };
    }
    if let (Some(Value::String(data)), Some(subtype), 2) =
        (m.get("$binary"), m.get("$type"), m.len())
    {
        return Some(binary(data, subtype));
    }
    if let Some(Value::String(pattern)) = m.get("$regex") {
        let options = match m.get("$options") {
            None if m.len() == 1 => "",
            Some(Value::String(o)) if m.len() == 2 => o.as_str(),
            _ => return None,
        };
        let mut canonical = Map::new();
        canonical.insert("pattern".into(), Value::String(pattern.clone()));
        canonical.insert("options".into(), Value::String(options.to_owned()));
        return Some(wrapped("$regularExpression", Value::Object(canonical)));
    }
    if let (Some(Value::String(code)), Some(Value::Object(scope)), 2) =
        (m.get("$code"), m.get("$scope"), m.len())
    {
        // The scope's members are values like any other, legacy forms and
        // all (the scope itself is never a wrapper, as in the bson crate).
        let mut doc = bson::Document::new();
        for (k, v) in scope {
            match to_bson(v.clone()) {
                Ok(b) => doc.insert(k.clone(), b),
                Err(e) => return Some(Err(e)),
            };
        }
        return Some(Ok(Bson::JavaScriptCodeWithScope(
            bson::JavaScriptCodeWithScope {
                code: code.clone(),
                scope: doc,
            },
        )));
    }
    if let (Some(Value::Number(n)), 1) = (m.get("$numberLong"), m.len()) {
        // Not an integer: the bson crate says what is wrong.
        return n.as_i64().map(|v| Ok(Bson::Int64(v)));
    }
    None
}

/// `{key: value}` converted by the bson crate.
fn wrapped(key: &str, value: Value) -> Result<Bson, ConvertError> {
    let mut m = Map::new();
    m.insert(key.to_owned(), value);
    Ok(Bson::try_from(Value::Object(m))?)
}

/// i64's range, as doubles: the upper bound itself is outside.
const MILLIS_RANGE: std::ops::Range<f64> =
    -9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0;

fn date(v: &Value) -> Option<Result<Bson, ConvertError>> {
    let ms = match v {
        Value::String(s) => date_millis(s).ok_or_else(|| ConvertError::Date(s.clone())),
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if MILLIS_RANGE.contains(&f) {
                Ok(f.trunc() as i64)
            } else {
                Err(ConvertError::Millis(f))
            }
        }
        _ => return None,
    };
    Some(ms.map(|ms| Bson::DateTime(bson::DateTime::from_millis(ms))))
}

/// Legacy `$binary`: base64 data and a hexadecimal subtype.
fn binary(data: &str, subtype: &Value) -> Result<Bson, ConvertError> {
    let hex = match subtype {
        Value::Number(n) => match n.as_u64().filter(|&t| t <= 0xff) {
            Some(t) => format!("{t:02x}"),
            None => return Err(ConvertError::SubtypeRange(n.clone())),
        },
        Value::String(s) => {
            // Some exports wrote a negative byte as 32 bits: `ffffff80`.
            let s = match s.len() {
                8 if s[..6].eq_ignore_ascii_case("ffffff") => &s[6..],
                1 => return wrapped_binary(data, &format!("0{s}")),
                _ => s.as_str(),
            };
            s.to_owned()
        }
        other => return Err(ConvertError::SubtypeKind(other.clone())),
    };
    wrapped_binary(data, &hex)
}

fn wrapped_binary(data: &str, subtype: &str) -> Result<Bson, ConvertError> {
    let mut canonical = Map::new();
    canonical.insert("base64".into(), Value::String(data.to_owned()));
    canonical.insert("subType".into(), Value::String(subtype.to_owned()));
    wrapped("$binary", Value::Object(canonical))
}

/// Milliseconds since 1970 of a `$date` string: RFC 3339 as the bson crate
/// reads it, else the ISO-8601 forms older exports wrote.
pub fn date_millis(s: &str) -> Option<i64> {
    match bson::DateTime::parse_rfc3339_str(s) {
        Ok(d) => Some(d.timestamp_millis()),
        Err(_) => iso_millis(s),
    }
}

/// `YYYY-MM-DD`, optionally followed by `THH:MM`, `:SS`, `.fraction` (any
/// number of digits) and a zone: `Z`, `±HH:MM`, `±HHMM`, `±HH` or none
/// (UTC). `T` may be `t` or a space, `Z` may be `z`. Milliseconds are
/// truncated toward zero, as the bson crate truncates them.
fn iso_millis(s: &str) -> Option<i64> {
    let mut c = Cursor {
        b: s.as_bytes(),
        i: 0,
    };
    let year = c.digits(4)?;
    c.byte(b'-')?;
    let month = c.digits(2)?;
    c.byte(b'-')?;
    let day = c.digits(2)?;
    let (mut hour, mut minute, mut second, mut nanos, mut offset) = (0, 0, 0, 0, 0);
    if c.more() {
        c.one_of(b"Tt ")?;
        hour = c.digits(2)?;
        c.byte(b':')?;
        minute = c.digits(2)?;
        if c.byte(b':').is_some() {
            second = c.digits(2)?;
            if c.byte(b'.').is_some() {
                nanos = c.fraction()?;
            }
        }
        match c.next() {
            None | Some(b'Z' | b'z') => {}
            Some(sign @ (b'+' | b'-')) => {
                let h = c.digits(2)?;
                let m = if c.more() {
                    let _ = c.byte(b':');
                    c.digits(2)?
                } else {
                    0
                };
                if h > 23 || m > 59 {
                    return None;
                }
                offset = (h * 60 + m) * 60 * if sign == b'-' { -1 } else { 1 };
            }
            Some(_) => return None,
        }
        if c.more() {
            return None;
        }
    }
    let valid = (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour <= 23
        && minute <= 59
        && second <= 59;
    if !valid {
        return None;
    }
    let secs =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset;
    let total = i128::from(secs) * 1_000_000_000 + i128::from(nanos);
    i64::try_from(total / 1_000_000).ok()
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn more(&self) -> bool {
        self.i < self.b.len()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.b.get(self.i).copied()?;
        self.i += 1;
        Some(c)
    }

    fn byte(&mut self, want: u8) -> Option<()> {
        (self.b.get(self.i) == Some(&want)).then(|| self.i += 1)
    }

    fn one_of(&mut self, set: &[u8]) -> Option<()> {
        let c = self.b.get(self.i)?;
        set.contains(c).then(|| self.i += 1)
    }

    /// Exactly `n` decimal digits.
    fn digits(&mut self, n: usize) -> Option<i64> {
        let d = self.b.get(self.i..self.i + n)?;
        if !d.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(d.iter().fold(0, |v, &c| v * 10 + i64::from(c - b'0')))
    }

    /// One or more digits of a fraction of a second, as nanoseconds
    /// (digits past the ninth are read and dropped).
    fn fraction(&mut self) -> Option<i64> {
        let start = self.i;
        let mut nanos = 0;
        while let Some(&c) = self.b.get(self.i).filter(|c| c.is_ascii_digit()) {
            if self.i - start < 9 {
                nanos = nanos * 10 + i64::from(c - b'0');
            }
            self.i += 1;
        }
        let n = self.i - start;
        if n == 0 {
            return None;
        }
        Some(nanos * 10_i64.pow(9 - n.min(9) as u32))
    }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// Days in month `m` (1–12) of year `y`.
pub(crate) fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
/// (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn millis(s: &str) -> Option<i64> {
        date_millis(s)
    }

    #[test]
    fn offsets_with_and_without_a_colon() {
        // 2009-04-01T07:00:00Z
        let want = Some(1_238_569_200_000);
        for s in [
            "2009-04-01T00:00:00.000-0700",
            "2009-04-01T00:00:00-0700",
            "2009-04-01T00:00:00.000-07:00",
            "2009-04-01T00:00:00-07",
            "2009-04-01T00:00-0700",
            "2009-04-01T07:00:00Z",
            "2009-04-01T07:00:00",
            "2009-04-01t07:00:00z",
            "2009-04-01 07:00:00Z",
            "2009-04-01T07:00Z",
            "2009-04-01T12:30:00+0530",
            "2009-04-01T09:00:00+02",
            "2009-04-01T07:00:00.000000000Z",
        ] {
            assert_eq!(millis(s), want, "{s}");
        }
        assert_eq!(millis("2009-04-01"), Some(1_238_544_000_000));
        assert_eq!(millis("1970-01-01T00:00:00.5Z"), Some(500));
        assert_eq!(millis("1970-01-01T00:00:00.123456789+0000"), Some(123));
        assert_eq!(
            millis("1970-01-01T00:00:00.1234567891234-0000"),
            Some(123),
            "digits past the ninth are dropped"
        );
        assert_eq!(millis("1969-12-31T23:59:59.999-0000"), Some(-1));
        assert_eq!(
            millis("0000-01-01T00:00:00-0000"),
            Some(-62_167_219_200_000)
        );
        assert_eq!(
            millis("9999-12-31T23:59:59.999-0000"),
            Some(253_402_300_799_999)
        );
        assert_eq!(millis("2000-02-29T00:00:00-0000"), Some(951_782_400_000));
    }

    #[test]
    fn what_is_not_a_date_is_refused() {
        for s in [
            "",
            "2009",
            "2009-04",
            "2009-4-01",
            "2009-04-01T",
            "2009-04-01T07",
            "2009-04-01T07:00:00.Z",
            "2009-04-01T07:00:00+7",
            "2009-04-01T07:00:00+070",
            "2009-04-01T07:00:00+07:0",
            "2009-04-01T07:00:00+2400",
            "2009-04-01T07:00:00+0760",
            "2009-04-01T07:00:00ZZ",
            "2009-04-01T07:00:00 Z",
            "2009-13-01T00:00:00Z",
            "2009-02-29T00:00:00-0000",
            "1900-02-29",
            "2009-04-31",
            "2009-04-00",
            "2009-04-01T24:00:00-0000",
            "2009-04-01T23:60:00-0000",
            "2009-04-01T23:59:61-0000",
            "+10000-01-01T00:00:00Z",
            "-0001-01-01T00:00:00Z",
            "99999-01-01",
            "not a date",
            "２００９-04-01",
        ] {
            assert_eq!(millis(s), None, "{s}");
        }
    }

    /// Where RFC 3339 applies, the legacy reader and the bson crate agree.
    #[test]
    fn the_legacy_reader_agrees_with_rfc3339() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..5000 {
            let year = next() % 10_000;
            let month = 1 + next() % 12;
            let day = 1 + next() % 28;
            let (h, m, s) = (next() % 24, next() % 60, next() % 60);
            let digits = (next() % 10) as usize;
            let frac: String = (0..digits)
                .map(|_| char::from(b'0' + (next() % 10) as u8))
                .collect();
            let frac = if digits == 0 {
                String::new()
            } else {
                format!(".{frac}")
            };
            let zone = match next() % 3 {
                0 => "Z".to_owned(),
                _ => format!(
                    "{}{:02}:{:02}",
                    if next() % 2 == 0 { '+' } else { '-' },
                    next() % 24,
                    next() % 60
                ),
            };
            let s = format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}{frac}{zone}");
            let Ok(want) = bson::DateTime::parse_rfc3339_str(&s) else {
                continue;
            };
            assert_eq!(iso_millis(&s), Some(want.timestamp_millis()), "{s}");
            let no_colon = if zone.len() == 6 {
                s.replacen(&zone, &zone.replace(':', ""), 1)
            } else {
                s.clone()
            };
            assert_eq!(
                iso_millis(&no_colon),
                Some(want.timestamp_millis()),
                "{no_colon}"
            );
        }
    }

    fn convert(text: &str) -> Result<Bson, ConvertError> {
        to_bson(serde_json::from_str(text).expect("json"))
    }

    #[test]
    fn legacy_wrappers() {
        let b = |t: u8, bytes: &[u8]| {
            Some(Bson::Binary(bson::Binary {
                subtype: t.into(),
                bytes: bytes.to_vec(),
            }))
        };
        assert_eq!(
            convert(r#"{"$binary":"AQID","$type":"00"}"#).ok(),
            b(0, &[1, 2, 3])
        );
        assert_eq!(
            convert(r#"{"$type":"80","$binary":"AQID"}"#).ok(),
            b(0x80, &[1, 2, 3])
        );
        assert_eq!(
            convert(r#"{"$binary":"AQID","$type":"0"}"#).ok(),
            b(0, &[1, 2, 3])
        );
        assert_eq!(
            convert(r#"{"$binary":"AQID","$type":4}"#).ok(),
            b(4, &[1, 2, 3])
        );
        assert_eq!(
            convert(r#"{"$binary":"AQID","$type":"ffffff80"}"#).ok(),
            b(0x80, &[1, 2, 3])
        );
        assert!(convert(r#"{"$binary":"AQID","$type":"zz"}"#).is_err());
        assert!(convert(r#"{"$binary":"AQID","$type":256}"#).is_err());
        assert!(convert(r#"{"$binary":"not base64!","$type":"00"}"#).is_err());
        assert!(convert(r#"{"$binary":"AQID","$type":"00","x":1}"#).is_err());

        let re = |p: &str, o: &str| {
            Some(Bson::RegularExpression(bson::Regex {
                pattern: p.try_into().expect("a pattern without NUL"),
                options: o.try_into().expect("options without NUL"),
            }))
        };
        assert_eq!(
            convert(r#"{"$regex":"^a","$options":"xi"}"#).ok(),
            re("^a", "ix")
        );
        assert_eq!(
            convert(r#"{"$options":"m","$regex":"b$"}"#).ok(),
            re("b$", "m")
        );
        assert_eq!(convert(r#"{"$regex":"c"}"#).ok(), re("c", ""));
        // A query operator is a document.
        let op = convert(r#"{"$regex":{"$in":[1]},"$options":"i"}"#).expect("document");
        assert!(matches!(op, Bson::Document(_)), "{op:?}");
        let op = convert(r#"{"$regex":"a","$options":"i","x":1}"#).expect("document");
        assert!(matches!(op, Bson::Document(_)), "{op:?}");

        let date = |ms: i64| Some(Bson::DateTime(bson::DateTime::from_millis(ms)));
        assert_eq!(
            convert(r#"{"$date":"2009-04-01T00:00:00.000-0700"}"#).ok(),
            date(1_238_569_200_000)
        );
        assert_eq!(
            convert(r#"{"$date":1238569200000}"#).ok(),
            date(1_238_569_200_000)
        );
        assert_eq!(convert(r#"{"$date":-1000}"#).ok(), date(-1000));
        assert_eq!(
            convert(r#"{"$date":1238569200000.9}"#).ok(),
            date(1_238_569_200_000)
        );
        assert_eq!(convert(r#"{"$date":-1.5}"#).ok(), date(-1));
        assert_eq!(convert(r#"{"$date":{"$numberLong":"-5"}}"#).ok(), date(-5));
        assert!(convert(r#"{"$date":1e300}"#).is_err());
        assert!(convert(r#"{"$date":9223372036854775808.0}"#).is_err());
        let e = convert(r#"{"$date":"yesterday"}"#)
            .expect_err("not a date")
            .to_string();
        assert!(e.contains("yesterday") && e.contains("ISO-8601"), "{e}");

        assert_eq!(convert(r#"{"$numberLong":5}"#).ok(), Some(Bson::Int64(5)));
        assert!(convert(r#"{"$numberLong":5.5}"#).is_err());

        let d = convert(r#"{"$code":"f()","$scope":{"d":{"$date":"2009-04-01T00:00:00-0700"}}}"#);
        let Ok(Bson::JavaScriptCodeWithScope(c)) = d else {
            panic!("code with scope: {d:?}")
        };
        assert_eq!(
            c.scope.get("d"),
            Some(&Bson::DateTime(bson::DateTime::from_millis(
                1_238_569_200_000
            )))
        );

        // Nested, and beside the forms the bson crate reads.
        let d = convert(
            r#"{"a":[{"$date":"2009-04-01T00:00:00-0700"}],"b":{"c":{"$regex":"x","$options":""}},"o":{"$oid":"5ca4bbcea2dd94ee58162a68"},"r":{"$ref":"c","$id":1}}"#,
        )
        .expect("document");
        let Bson::Document(d) = d else {
            panic!("a document")
        };
        assert_eq!(
            d.get_array("a").expect("a")[0],
            Bson::DateTime(bson::DateTime::from_millis(1_238_569_200_000))
        );
        assert!(matches!(
            d.get_document("b").expect("b").get("c"),
            Some(Bson::RegularExpression(_))
        ));
        assert!(matches!(d.get("o"), Some(Bson::ObjectId(_))));
        assert_eq!(
            d.get_document("r").expect("a DBRef is a document"),
            &bson::doc! {"$ref": "c", "$id": 1}
        );
    }
}
