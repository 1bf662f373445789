//! What the size and array rules want measured over the whole collection
//! (see [`crate::source::extremes`]): the array paths the sample found, the
//! size thresholds `document-near-limit` and `bloated-document` judge by,
//! under the names their evidence uses, and the dates
//! `expiring-without-ttl` counts expired documents by.

use serde::ser::{Serialize, SerializeStruct, Serializer};

use super::Thresholds;
use crate::i18n::Lang;
use crate::profile::FieldProfile;
use crate::source::extremes::{Extremes, ExtremesAsk, TOP_K};

/// Documents at or over `document-near-limit`'s warning size.
pub const NEAR_LIMIT_WARNING: &str = "document-near-limit.warning-bytes";
/// Documents at or over `document-near-limit`'s critical size.
pub const NEAR_LIMIT_CRITICAL: &str = "document-near-limit.critical-bytes";
/// Documents at or over `bloated-document`'s p95 size.
pub const BLOATED_P95: &str = "bloated-document.p95-bytes";

/// The whole-collection figures the rules would use for these profiled
/// `fields` of the collection `coll` under thresholds `t`, the dates
/// counted against `now` (seconds since the epoch).
pub(crate) fn ask(coll: &str, fields: &[FieldProfile], t: &Thresholds, now: f64) -> ExtremesAsk {
    let bytes = |v: f64| {
        if v.is_finite() && v > 0.0 {
            v as u64
        } else {
            0
        }
    };
    ExtremesAsk {
        top: TOP_K,
        arrays: fields
            .iter()
            .filter(|f| f.array.is_some())
            .map(|f| (f.path.clone(), f.segments.clone()))
            .collect(),
        thresholds: vec![
            (
                NEAR_LIMIT_WARNING.into(),
                bytes(t.document_near_limit.warning_bytes),
            ),
            (
                NEAR_LIMIT_CRITICAL.into(),
                bytes(t.document_near_limit.critical_bytes),
            ),
            (BLOATED_P95.into(), bytes(t.bloated_document.p95_bytes)),
        ],
        dates: super::expiring_without_ttl::dated_paths(coll, fields)
            .into_iter()
            .map(|(f, _)| (f.path.clone(), f.segments.clone()))
            .collect(),
        now_ms: (now * 1000.0) as i64,
    }
}

/// "in the whole collection (20,001 documents)": a figure measured over
/// every document by an extremes pass.
pub(crate) fn whole(e: &Extremes, lang: Lang) -> String {
    let n = crate::fmt::group(e.documents);
    lang.pick(
        format!("in the whole collection ({n} documents)"),
        format!("在整个集合（{n} 个文档）中"),
    )
}

/// A finding's evidence of the sizes measured over every document: how
/// they were measured, over how many documents, the largest documents and
/// the counts over each size threshold.
#[derive(Clone, Copy)]
pub struct Sizes<'a>(pub &'a Extremes);

impl Serialize for Sizes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut m = s.serialize_struct("Sizes", 4)?;
        m.serialize_field("method", e.method)?;
        m.serialize_field("documents", &e.documents)?;
        m.serialize_field("largest", &e.largest)?;
        m.serialize_field("over", &e.over)?;
        m.end()
    }
}

/// The largest document's `_id`, as it may be quoted in a message.
pub(crate) fn largest_id(e: &Extremes) -> Option<String> {
    let id = e.largest.first()?.id.as_ref()?;
    let s = match id {
        serde_json::Value::String(s) => format!("{s:?}"),
        other => other.to_string(),
    };
    // An id long enough to drown the message is left to the evidence.
    (s.chars().count() <= 64).then_some(s)
}
