//! The BSON column of a compressed time-series bucket (`BinData` subtype
//! 7): a column's values one after another, each run started by a control
//! byte. A control byte that is a BSON type tag starts a literal — one
//! element with an empty name, written whole; a zero byte ends the column.
//! Runs of Simple-8b blocks (deltas from the previous value) and
//! interleaved objects are not decoded here: a column holding one is
//! reported as such, and its bucket skipped by the caller.

use crate::profile::raw::{self, BsonType};

/// A column's values, in order: each its BSON type tag and value bytes,
/// or `None` where the measurement lacks the field.
pub type Values = Vec<Option<(u8, Vec<u8>)>>;

/// The values of a column, in order, each its BSON type tag and value
/// bytes (`None`: the measurement lacks the field); at most `max` of them.
pub fn decode(column: &[u8], max: usize) -> Result<Values, String> {
    let mut out = Vec::new();
    let mut at = 0usize;
    loop {
        let Some(&control) = column.get(at) else {
            return Err("it ends without its closing zero byte".into());
        };
        if control == 0 {
            return Ok(out);
        }
        let Some(ty) = literal(control) else {
            return Err(match control {
                0xF0..=0xF2 => {
                    "it holds objects or arrays in interleaved mode, which docshape does not decode"
                        .into()
                }
                _ if control & 0xF0 >= 0x80 => {
                    "it holds Simple-8b delta blocks, which docshape does not decode".into()
                }
                _ => format!("unknown control byte 0x{control:02x} at byte {at}"),
            });
        };
        // A literal: the type tag, an empty name, the value.
        if column.get(at + 1) != Some(&0) {
            return Err(format!("the literal at byte {at} has a name"));
        }
        let start = at + 2;
        let len = raw::value_len(ty, column, start, column.len())
            .filter(|&l| start + l <= column.len())
            .ok_or_else(|| format!("the literal at byte {at} runs past the column"))?;
        if out.len() >= max {
            return Err(format!("more than {max} values"));
        }
        out.push(Some((control, column[start..start + len].to_vec())));
        at = start + len;
    }
}

/// The type of a literal's control byte (a BSON type tag), if it is one.
fn literal(control: u8) -> Option<BsonType> {
    if control & 0xE0 == 0 || control == 0x7F || control == 0xFF {
        BsonType::from_tag(control).filter(|t| *t != BsonType::JavascriptWithScope)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(s: &str) -> Vec<u8> {
        use base64::Engine;
        base64::engine::general_purpose::STANDARD
            .decode(s)
            .expect("base64")
    }

    #[test]
    fn literals_are_read_and_deltas_refused() {
        // A date literal (1,000 ms after the epoch), then the end.
        let col = b64("CQDoAwAAAAAAAAA=");
        let got = decode(&col, 10).expect("decodes");
        assert_eq!(got, vec![Some((0x09, 1000i64.to_le_bytes().to_vec()))]);
        // A string literal "foo".
        let col = b64("AgAEAAAAZm9vAAA=");
        let got = decode(&col, 10).expect("decodes");
        assert_eq!(got, vec![Some((0x02, b"\x04\0\0\0foo\0".to_vec()))]);
        // A date literal followed by one Simple-8b block.
        let col = b64("CQAYhggUjQEAAIAOAAAAAAAAAAA=");
        let e = decode(&col, 10).expect_err("deltas");
        assert!(e.contains("Simple-8b"), "{e}");
        // No closing zero; a literal cut short; too many values.
        assert!(decode(&col[..11], 10).is_err());
        assert!(decode(&b64("CQDoAwAAAAAAAAA=")[..6], 10).is_err());
        assert!(decode(&b64("CQDoAwAAAAAAAAA="), 0).is_err());
        assert!(decode(&[0xF1, 0], 10)
            .expect_err("interleaved")
            .contains("interleaved"));
    }
}
