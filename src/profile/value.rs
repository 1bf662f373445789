//! Reading scalar values out of raw elements: ranges and examples.

use super::raw::{self, BsonType, Element};
use super::Node;
use crate::profile::extjson::Relaxed as _;

/// Longest example string kept, in characters.
const EXAMPLE_CHARS: usize = 80;

/// Updates a node's numeric, date, ObjectId-time and string-length ranges.
pub(super) fn track_range(n: &mut Node, el: &Element<'_>) {
    let v = el.value;
    match el.ty {
        BsonType::Int => widen_f(&mut n.num, raw::value::i32(v).map(f64::from)),
        BsonType::Long => widen_f(&mut n.num, raw::value::i64(v).map(|x| x as f64)),
        BsonType::Double => widen_f(&mut n.num, raw::value::f64(v).filter(|x| !x.is_nan())),
        BsonType::Date => {
            if let Some(ms) = raw::value::i64(v) {
                widen(&mut n.date, ms);
            }
        }
        BsonType::ObjectId => {
            if let Some(s) = raw::value::oid_seconds(v) {
                widen(&mut n.oid, s);
            }
        }
        BsonType::String => {
            let bytes = v.len().saturating_sub(5) as u64;
            widen(&mut n.str_len, bytes);
            // A string of b bytes (UTF-8) has between ⌈b/4⌉ and b
            // characters: its characters are counted only when that span
            // reaches past the range seen so far, so a field of strings of
            // similar lengths is counted a handful of times, not once per
            // value.
            let (lo, hi) = n.str_chars.unwrap_or((u64::MAX, 0));
            if bytes > hi || bytes.div_ceil(4) < lo {
                widen(
                    &mut n.str_chars,
                    utf8_chars(v.get(4..v.len().saturating_sub(1)).unwrap_or(&[])),
                );
            }
        }
        _ => {}
    }
}

/// Characters of UTF-8 text: every byte but the continuation bytes
/// (`10xxxxxx`) starts one.
fn utf8_chars(text: &[u8]) -> u64 {
    text.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64
}

fn widen<T: PartialOrd + Copy>(r: &mut Option<(T, T)>, x: T) {
    match r {
        None => *r = Some((x, x)),
        Some((lo, hi)) => {
            if x < *lo {
                *lo = x;
            }
            if x > *hi {
                *hi = x;
            }
        }
    }
}

fn widen_f(r: &mut Option<(f64, f64)>, x: Option<f64>) {
    if let Some(x) = x {
        widen(r, x);
    }
}

/// A scalar value as relaxed Extended JSON, long strings shortened.
pub(super) fn example(el: &Element<'_>) -> Option<serde_json::Value> {
    let b = to_bson(el.ty, el.value)?;
    let v = match b {
        bson::Bson::String(s) => serde_json::Value::String(shorten(&s)),
        bson::Bson::Binary(bin) => serde_json::json!({
            "$binary": {"subType": format!("{:02x}", u8::from(bin.subtype)), "length": bin.bytes.len()}
        }),
        other => other.relaxed(),
    };
    Some(v)
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= EXAMPLE_CHARS {
        return s.to_owned();
    }
    let mut out: String = s.chars().take(EXAMPLE_CHARS).collect();
    out.push('…');
    out
}

/// Decodes one value by framing it as the only element of a document.
pub fn to_bson(ty: BsonType, value: &[u8]) -> Option<bson::Bson> {
    let mut buf = Vec::with_capacity(value.len() + 8);
    buf.extend_from_slice(&[0, 0, 0, 0, ty as u8, b'v', 0]);
    buf.extend_from_slice(value);
    buf.push(0);
    let len = i32::try_from(buf.len()).ok()?;
    buf[..4].copy_from_slice(&len.to_le_bytes());
    let doc = bson::RawDocument::from_bytes(&buf).ok()?;
    let v = doc.get("v").ok()??;
    bson::RawBson::from(v).try_into().ok()
}

/// Milliseconds since the epoch as an ISO-8601 string.
pub(crate) fn iso_millis(ms: i64) -> String {
    bson::DateTime::from_millis(ms)
        .try_to_rfc3339_string()
        .unwrap_or_else(|_| format!("{ms} ms"))
}

/// Seconds since the epoch as an ISO-8601 string.
pub(crate) fn iso_secs(s: u32) -> String {
    iso_millis(i64::from(s) * 1000)
}
