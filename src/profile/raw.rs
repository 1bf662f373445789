//! A minimal, bounds-checked walker over raw BSON bytes.
//!
//! The profiler touches every element of every document, so it reads the
//! bytes directly instead of going through `bson::RawDocument`: one pass, no
//! allocation, no UTF-8 validation of keys it has already seen, and the exact
//! byte length of every element (which the profile reports as "bytes carried").
//! Every length is checked against the buffer; malformed input yields an
//! error, never a panic.

use std::fmt;

/// BSON element type tags, named by their `$type` aliases.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum BsonType {
    Double = 0x01,
    String = 0x02,
    Object = 0x03,
    Array = 0x04,
    BinData = 0x05,
    Undefined = 0x06,
    ObjectId = 0x07,
    Bool = 0x08,
    Date = 0x09,
    Null = 0x0A,
    Regex = 0x0B,
    DbPointer = 0x0C,
    Javascript = 0x0D,
    Symbol = 0x0E,
    JavascriptWithScope = 0x0F,
    Int = 0x10,
    Timestamp = 0x11,
    Long = 0x12,
    Decimal = 0x13,
    MinKey = 0xFF,
    MaxKey = 0x7F,
}

/// Number of distinct type slots (index with [`BsonType::slot`]).
pub const TYPE_SLOTS: usize = 21;

impl BsonType {
    pub const ALL: [BsonType; TYPE_SLOTS] = [
        BsonType::Double,
        BsonType::String,
        BsonType::Object,
        BsonType::Array,
        BsonType::BinData,
        BsonType::Undefined,
        BsonType::ObjectId,
        BsonType::Bool,
        BsonType::Date,
        BsonType::Null,
        BsonType::Regex,
        BsonType::DbPointer,
        BsonType::Javascript,
        BsonType::Symbol,
        BsonType::JavascriptWithScope,
        BsonType::Int,
        BsonType::Timestamp,
        BsonType::Long,
        BsonType::Decimal,
        BsonType::MinKey,
        BsonType::MaxKey,
    ];

    pub(crate) fn from_tag(tag: u8) -> Option<BsonType> {
        Some(match tag {
            0x01 => BsonType::Double,
            0x02 => BsonType::String,
            0x03 => BsonType::Object,
            0x04 => BsonType::Array,
            0x05 => BsonType::BinData,
            0x06 => BsonType::Undefined,
            0x07 => BsonType::ObjectId,
            0x08 => BsonType::Bool,
            0x09 => BsonType::Date,
            0x0A => BsonType::Null,
            0x0B => BsonType::Regex,
            0x0C => BsonType::DbPointer,
            0x0D => BsonType::Javascript,
            0x0E => BsonType::Symbol,
            0x0F => BsonType::JavascriptWithScope,
            0x10 => BsonType::Int,
            0x11 => BsonType::Timestamp,
            0x12 => BsonType::Long,
            0x13 => BsonType::Decimal,
            0xFF => BsonType::MinKey,
            0x7F => BsonType::MaxKey,
            _ => return None,
        })
    }

    /// Dense index in `0..TYPE_SLOTS`.
    pub(crate) fn slot(self) -> usize {
        match self {
            BsonType::MinKey => 19,
            BsonType::MaxKey => 20,
            t => t as usize - 1,
        }
    }

    /// MongoDB's `$type` alias.
    pub fn alias(self) -> &'static str {
        match self {
            BsonType::Double => "double",
            BsonType::String => "string",
            BsonType::Object => "object",
            BsonType::Array => "array",
            BsonType::BinData => "binData",
            BsonType::Undefined => "undefined",
            BsonType::ObjectId => "objectId",
            BsonType::Bool => "bool",
            BsonType::Date => "date",
            BsonType::Null => "null",
            BsonType::Regex => "regex",
            BsonType::DbPointer => "dbPointer",
            BsonType::Javascript => "javascript",
            BsonType::Symbol => "symbol",
            BsonType::JavascriptWithScope => "javascriptWithScope",
            BsonType::Int => "int",
            BsonType::Timestamp => "timestamp",
            BsonType::Long => "long",
            BsonType::Decimal => "decimal",
            BsonType::MinKey => "minKey",
            BsonType::MaxKey => "maxKey",
        }
    }

    pub fn from_alias(alias: &str) -> Option<BsonType> {
        BsonType::ALL.into_iter().find(|t| t.alias() == alias)
    }

    pub fn is_container(self) -> bool {
        matches!(self, BsonType::Object | BsonType::Array)
    }

    pub(crate) fn is_numeric(self) -> bool {
        matches!(
            self,
            BsonType::Double | BsonType::Int | BsonType::Long | BsonType::Decimal
        )
    }
}

impl fmt::Display for BsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.alias())
    }
}

/// Why a byte buffer is not a BSON document.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RawError {
    #[error("document is shorter than its 5-byte minimum")]
    TooShort,
    #[error("length prefix {declared} does not match the {actual} bytes available")]
    BadLength { declared: i64, actual: usize },
    #[error("document does not end with a zero byte")]
    NoTerminator,
    #[error("unknown element type 0x{0:02x}")]
    UnknownType(u8),
    #[error("element runs past the end of its document")]
    Truncated,
    #[error("field name is not terminated")]
    BadKey,
    #[error("string value has an invalid length")]
    BadString,
}

/// One element of a document: its key bytes, type and value bytes.
#[derive(Clone, Copy, Debug)]
pub struct Element<'a> {
    pub key: &'a [u8],
    pub ty: BsonType,
    pub value: &'a [u8],
    /// Whole element size in bytes: type tag, key, terminator and value.
    pub size: usize,
}

/// Validates the outer framing of a document and returns its body iterator.
pub fn elements(doc: &[u8]) -> Result<Elements<'_>, RawError> {
    if doc.len() < 5 {
        return Err(RawError::TooShort);
    }
    let declared = i32::from_le_bytes([doc[0], doc[1], doc[2], doc[3]]);
    if declared < 5 || declared as usize != doc.len() {
        return Err(RawError::BadLength {
            declared: i64::from(declared),
            actual: doc.len(),
        });
    }
    if doc[doc.len() - 1] != 0 {
        return Err(RawError::NoTerminator);
    }
    Ok(Elements {
        buf: doc,
        pos: 4,
        end: doc.len() - 1,
    })
}

/// Reads the length prefix of the document starting at `buf[0..4]`.
pub(crate) fn doc_len(buf: &[u8]) -> Option<usize> {
    let b: [u8; 4] = buf.get(..4)?.try_into().ok()?;
    let n = i32::from_le_bytes(b);
    usize::try_from(n).ok()
}

pub struct Elements<'a> {
    buf: &'a [u8],
    pos: usize,
    end: usize,
}

impl<'a> Elements<'a> {
    #[allow(clippy::unnecessary_wraps)]
    fn fail(&mut self, e: RawError) -> Option<Result<Element<'a>, RawError>> {
        self.pos = self.end;
        Some(Err(e))
    }
}

fn read_i32(buf: &[u8], at: usize) -> Option<i32> {
    let b: [u8; 4] = buf.get(at..at + 4)?.try_into().ok()?;
    Some(i32::from_le_bytes(b))
}

impl<'a> Iterator for Elements<'a> {
    type Item = Result<Element<'a>, RawError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.end {
            return None;
        }
        let start = self.pos;
        let tag = self.buf[start];
        let Some(ty) = BsonType::from_tag(tag) else {
            return self.fail(RawError::UnknownType(tag));
        };
        let key_start = start + 1;
        let Some(nul) = self.buf[key_start..self.end].iter().position(|&b| b == 0) else {
            return self.fail(RawError::BadKey);
        };
        let key = &self.buf[key_start..key_start + nul];
        let vs = key_start + nul + 1;
        let Some(vlen) = value_len(ty, self.buf, vs, self.end) else {
            return self.fail(RawError::Truncated);
        };
        let ve = vs + vlen;
        if ve > self.end {
            return self.fail(RawError::Truncated);
        }
        if ty == BsonType::String && (vlen < 5 || self.buf[ve - 1] != 0) {
            return self.fail(RawError::BadString);
        }
        self.pos = ve;
        Some(Ok(Element {
            key,
            ty,
            value: &self.buf[vs..ve],
            size: ve - start,
        }))
    }
}

/// Byte length of a value of type `ty` starting at `at`, or `None` if the
/// declared length is impossible.
pub(crate) fn value_len(ty: BsonType, buf: &[u8], at: usize, end: usize) -> Option<usize> {
    let len = match ty {
        BsonType::Double | BsonType::Date | BsonType::Timestamp | BsonType::Long => 8,
        BsonType::Decimal => 16,
        BsonType::ObjectId => 12,
        BsonType::Bool => 1,
        BsonType::Int => 4,
        BsonType::Null | BsonType::Undefined | BsonType::MinKey | BsonType::MaxKey => 0,
        BsonType::String | BsonType::Javascript | BsonType::Symbol => {
            4 + usize::try_from(read_i32(buf, at)?).ok()?
        }
        BsonType::Object | BsonType::Array | BsonType::JavascriptWithScope => {
            let n = usize::try_from(read_i32(buf, at)?).ok()?;
            if n < 5 {
                return None;
            }
            n
        }
        BsonType::BinData => 5 + usize::try_from(read_i32(buf, at)?).ok()?,
        BsonType::Regex => {
            let p1 = buf.get(at..end)?.iter().position(|&b| b == 0)?;
            let p2 = buf.get(at + p1 + 1..end)?.iter().position(|&b| b == 0)?;
            p1 + p2 + 2
        }
        BsonType::DbPointer => {
            let n = usize::try_from(read_i32(buf, at)?).ok()?;
            4 + n + 12
        }
    };
    Some(len)
}

/// Helpers to read fixed-size values from an element's value bytes.
pub mod value {
    pub(crate) fn i32(v: &[u8]) -> Option<i32> {
        Some(i32::from_le_bytes(v.get(..4)?.try_into().ok()?))
    }
    pub(crate) fn i64(v: &[u8]) -> Option<i64> {
        Some(i64::from_le_bytes(v.get(..8)?.try_into().ok()?))
    }
    pub(crate) fn f64(v: &[u8]) -> Option<f64> {
        Some(f64::from_le_bytes(v.get(..8)?.try_into().ok()?))
    }
    /// The UTF-8 text of a string value (without length prefix and NUL).
    pub(crate) fn str(v: &[u8]) -> Option<&str> {
        let body = v.get(4..v.len().checked_sub(1)?)?;
        std::str::from_utf8(body).ok()
    }
    /// Seconds since the epoch encoded in an ObjectId.
    pub(crate) fn oid_seconds(v: &[u8]) -> Option<u32> {
        Some(u32::from_be_bytes(v.get(..4)?.try_into().ok()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn bytes(d: &bson::Document) -> Vec<u8> {
        let mut v = Vec::new();
        d.to_writer(&mut v).expect("serialise");
        v
    }

    #[test]
    fn walks_every_type_with_exact_sizes() {
        let d = doc! {
            "d": 1.5, "s": "hé", "o": {"x": 1}, "a": [1, 2], "b": bson::Binary{subtype: bson::spec::BinarySubtype::Generic, bytes: vec![1,2,3]},
            "oid": bson::oid::ObjectId::new(), "t": true, "dt": bson::DateTime::from_millis(5), "n": null,
            "re": bson::Regex{pattern: bson::raw::cstr!("a+").into(), options: bson::raw::cstr!("i").into()}, "js": bson::Bson::JavaScriptCode("f()".into()),
            "i": 7_i32, "ts": bson::Timestamp{time: 1, increment: 2}, "l": 9_i64,
            "dec": bson::Bson::Decimal128(bson::Decimal128::from_bytes([0; 16])),
            "min": bson::Bson::MinKey, "max": bson::Bson::MaxKey, "u": bson::Bson::Undefined,
            "sym": bson::Bson::Symbol("q".into()),
        };
        let raw = bytes(&d);
        let els: Vec<_> = elements(&raw)
            .expect("framing")
            .collect::<Result<_, _>>()
            .expect("valid");
        assert_eq!(els.len(), d.len());
        let total: usize = els.iter().map(|e| e.size).sum();
        assert_eq!(total + 5, raw.len());
        let types: Vec<_> = els.iter().map(|e| e.ty.alias()).collect();
        assert_eq!(
            types,
            [
                "double",
                "string",
                "object",
                "array",
                "binData",
                "objectId",
                "bool",
                "date",
                "null",
                "regex",
                "javascript",
                "int",
                "timestamp",
                "long",
                "decimal",
                "minKey",
                "maxKey",
                "undefined",
                "symbol"
            ]
        );
        assert_eq!(value::str(els[1].value), Some("hé"));
    }

    #[test]
    fn rejects_malformed_input_without_panicking() {
        let raw = bytes(&doc! {"a": "hello", "b": {"c": 1}});
        for cut in 0..raw.len() {
            let mut broken = raw[..cut].to_vec();
            // Re-declare the shorter length so the framing passes and the
            // element walker meets the truncation.
            if broken.len() >= 4 {
                let n = broken.len() as i32;
                broken[..4].copy_from_slice(&n.to_le_bytes());
            }
            if let Ok(it) = elements(&broken) {
                for _ in it {}
            }
        }
        for i in 0..raw.len() {
            for b in [0u8, 0x7f, 0xff, 0x05] {
                let mut m = raw.clone();
                m[i] = b;
                if let Ok(it) = elements(&m) {
                    for _ in it {}
                }
            }
        }
        assert!(matches!(elements(&[1, 0]), Err(RawError::TooShort)));
    }
}
