//! Pieces the exercises of the design-pattern and index lessons share:
//! reading an index's key in order, and walking a document's values.

use bson::{Bson, Document};

use crate::source::index::IndexInfo;

/// An index's key, in order: (field, direction), the direction 1 or -1
/// (0 for a special index: text, 2dsphere, hashed …).
pub(crate) fn index_keys(i: &IndexInfo) -> Vec<(String, i32)> {
    i.key
        .iter()
        .map(|(k, v)| {
            let dir = v.as_f64().map_or(0, |d| d.signum() as i32);
            (k.clone(), dir)
        })
        .collect()
}

/// An index as a student wrote it: its name.
pub(crate) fn index_name(i: &IndexInfo) -> String {
    i.name.clone()
}

/// A BSON number as f64.
pub(crate) fn number(v: &Bson) -> Option<f64> {
    match v {
        Bson::Double(x) => Some(*x),
        Bson::Int32(x) => Some(f64::from(*x)),
        Bson::Int64(x) => Some(*x as f64),
        Bson::Decimal128(d) => d.to_string().parse().ok(),
        _ => None,
    }
}

/// The numbers held in arrays anywhere in `v`, in document order: an
/// array's numeric elements, and the arrays inside its documents. Numbers
/// that are plain fields (an hour's `total`, its `hour`) are not counted.
pub(crate) fn array_numbers(v: &Bson, out: &mut Vec<f64>) {
    match v {
        Bson::Array(a) => {
            for e in a {
                match e {
                    Bson::Document(d) => doc_array_numbers(d, out),
                    Bson::Array(_) => array_numbers(e, out),
                    other => out.extend(number(other)),
                }
            }
        }
        Bson::Document(d) => doc_array_numbers(d, out),
        _ => {}
    }
}

fn doc_array_numbers(d: &Document, out: &mut Vec<f64>) {
    for (_, v) in d {
        array_numbers(v, out);
    }
}

/// Two totals equal up to rounding.
pub(crate) fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}
