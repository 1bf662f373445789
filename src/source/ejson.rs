//! Extended JSON (canonical or relaxed) to raw BSON, streamed: one document
//! per line, concatenated documents, or one JSON array, as `mongoexport`
//! writes them.

use std::io::{BufRead, Read};

use serde::de::{DeserializeSeed, SeqAccess, Visitor};

/// Converts one Extended JSON value (which must be an object) to BSON bytes.
pub fn to_bson_bytes(value: serde_json::Value, out: &mut Vec<u8>) -> Result<(), String> {
    let b = bson::Bson::try_from(value).map_err(|e| format!("not valid Extended JSON: {e}"))?;
    let bson::Bson::Document(doc) = b else {
        return Err(format!("expected a document, found {}", bson_kind(&b)));
    };
    out.clear();
    doc.to_writer(out)
        .map_err(|e| format!("document cannot be encoded as BSON: {e}"))
}

fn bson_kind(b: &bson::Bson) -> &'static str {
    match b {
        bson::Bson::Array(_) => "an array",
        bson::Bson::String(_) => "a string",
        bson::Bson::Null => "null",
        bson::Bson::Boolean(_) => "a boolean",
        _ => "a scalar value",
    }
}

/// Reads every document of an Extended JSON stream, calling `each` with its
/// BSON bytes. Returns the number of documents, or a message locating the
/// first syntax error (line and column).
pub fn read_documents<R: Read>(reader: R, each: &mut dyn FnMut(&[u8])) -> Result<u64, String> {
    let mut reader = std::io::BufReader::with_capacity(1 << 16, reader);
    let first = loop {
        let buf = reader.fill_buf().map_err(|e| e.to_string())?;
        if buf.is_empty() {
            return Ok(0);
        }
        if let Some(i) = buf.iter().position(|b| !b.is_ascii_whitespace()) {
            let c = buf[i];
            reader.consume(i);
            break c;
        }
        let n = buf.len();
        reader.consume(n);
    };
    let mut scratch = Vec::with_capacity(1024);
    let mut count = 0u64;
    let mut handle = |v: serde_json::Value| -> Result<(), String> {
        to_bson_bytes(v, &mut scratch).map_err(|e| format!("document {}: {e}", count + 1))?;
        count += 1;
        each(&scratch);
        Ok(())
    };
    match first {
        b'[' => {
            let mut de = serde_json::Deserializer::from_reader(reader);
            EachElement(&mut handle)
                .deserialize(&mut de)
                .map_err(|e| locate(&e))?;
            de.end().map_err(|e| locate(&e))?;
        }
        b'{' => {
            let stream =
                serde_json::Deserializer::from_reader(reader).into_iter::<serde_json::Value>();
            for v in stream {
                let v = v.map_err(|e| locate(&e))?;
                handle(v)?;
            }
        }
        other => {
            return Err(format!(
                "not Extended JSON: expected '{{' or '[' but the file starts with {}",
                describe_byte(other)
            ))
        }
    }
    Ok(count)
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

fn locate(e: &serde_json::Error) -> String {
    if e.is_io() {
        return e.to_string();
    }
    let msg = e.to_string();
    // serde_json appends " at line L column C"; keep one clear sentence.
    let core = msg.split(" at line ").next().unwrap_or(&msg);
    if e.is_eof() {
        format!("file ends in the middle of a document (line {})", e.line())
    } else {
        format!("line {}, column {}: {core}", e.line(), e.column())
    }
}

struct EachElement<'a>(&'a mut dyn FnMut(serde_json::Value) -> Result<(), String>);

impl<'de> DeserializeSeed<'de> for EachElement<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EachElement<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of documents")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(v) = seq.next_element::<serde_json::Value>()? {
            (self.0)(v).map_err(serde::de::Error::custom)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(text: &str) -> Result<Vec<bson::Document>, String> {
        let mut out = Vec::new();
        read_documents(text.as_bytes(), &mut |b| {
            out.push(bson::Document::from_reader(b).expect("valid bson"));
        })?;
        Ok(out)
    }

    #[test]
    fn canonical_and_relaxed_forms() {
        let d = docs(concat!(
            r#"{"a":{"$numberInt":"5"},"b":{"$date":{"$numberLong":"226117231000"}},"c":{"$oid":"5ca4bbcea2dd94ee58162a68"}}"#,
            "\n",
            r#"{"a":5,"b":{"$date":"2019-01-01T00:00:00Z"},"d":1.5,"e":{"$numberDecimal":"1.10"},"big":9007199254740993}"#,
            "\n\n"
        ))
        .expect("parse");
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].get("a"), Some(&bson::Bson::Int32(5)));
        assert!(matches!(d[0].get("b"), Some(bson::Bson::DateTime(_))));
        assert!(matches!(d[0].get("c"), Some(bson::Bson::ObjectId(_))));
        assert_eq!(d[1].get("a"), Some(&bson::Bson::Int32(5)));
        assert!(matches!(d[1].get("b"), Some(bson::Bson::DateTime(_))));
        assert!(matches!(d[1].get("e"), Some(bson::Bson::Decimal128(_))));
        assert_eq!(
            d[1].get("big"),
            Some(&bson::Bson::Int64(9_007_199_254_740_993))
        );
    }

    #[test]
    fn arrays_and_pretty_documents() {
        let d = docs("  [ {\"x\": 1},\n {\"x\": [1,2]} ]  ").expect("parse");
        assert_eq!(d.len(), 2);
        let d = docs("{\n \"x\": 1\n}\n{\n \"x\": 2\n}").expect("parse");
        assert_eq!(d.len(), 2);
        assert_eq!(docs("   \n").expect("empty").len(), 0);
    }

    #[test]
    fn errors_are_located() {
        let e = docs("{\"a\":1}\n{\"a\":}\n").expect_err("bad");
        assert!(e.contains("line 2"), "{e}");
        let e = docs("{\"a\":1}\n{\"a\":[1,2").expect_err("bad");
        assert!(e.contains("ends in the middle"), "{e}");
        let e = docs("[1, 2]").expect_err("bad");
        assert!(e.contains("expected a document"), "{e}");
        let e = docs("hello").expect_err("bad");
        assert!(e.contains("not Extended JSON"), "{e}");
    }
}
