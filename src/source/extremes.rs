//! Whole-collection extremes: the few documents and arrays a sample almost
//! never contains. A sample of 1,000 from 20,000 documents sees a single
//! outlier with probability 5 %; the largest documents, the longest arrays
//! and how many documents pass the size thresholds are measured over every
//! document instead — by one aggregation the server runs, or by hopping a
//! `.bson` file's length prefixes.

use std::time::Duration;

use serde::Serialize;

use crate::profile::Seg;

/// Largest documents listed per collection.
pub const TOP_K: usize = 5;

/// Above this many bytes of (uncompressed) data, as `collStats` states, the
/// server is not asked to read every document: the aggregation is a full
/// collection scan, and at the few hundred MB/s a server scans from cache
/// (100–200 MB/s from disk) 4 GiB takes 10–40 s — the order of the default
/// 30 s `--timeout`, past which it would be cut anyway, after loading a
/// production server for nothing.
pub const MAX_SCAN_BYTES: u64 = 4 << 30;
/// Above this many documents the scan is skipped too: each document costs
/// the server a `$bsonSize` and a `$size` per array path (about a
/// microsecond each), so 20 million documents are again tens of seconds.
pub const MAX_SCAN_DOCUMENTS: u64 = 20_000_000;

/// What to measure over the whole collection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtremesAsk {
    /// Largest documents to list.
    pub top: usize,
    /// Array paths whose longest length to find: the profile's notation
    /// (`tags`, `items[].parts`) and its steps.
    pub arrays: Vec<(String, Vec<Seg>)>,
    /// Size thresholds to count documents over: `(name, bytes)`.
    pub thresholds: Vec<(String, u64)>,
    /// Date paths (outside arrays) whose documents to count before
    /// `now_ms`: the profile's notation and its steps.
    pub dates: Vec<(String, Vec<Seg>)>,
    /// The instant the dates are counted against (milliseconds since the
    /// epoch).
    pub now_ms: i64,
}

/// What an extremes pass came to.
#[derive(Clone, Debug, PartialEq)]
pub enum ExtremesOutcome {
    Measured(Extremes),
    /// Not measured, and why (one sentence for the collection's notes).
    Skipped(String),
}

/// One of the largest documents.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LargeDocument {
    /// Its `_id` as relaxed Extended JSON (absent when the source cannot
    /// tell it cheaply).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<serde_json::Value>,
    pub bytes: u64,
}

/// The longest length of one array path over the whole collection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ArrayExtreme {
    pub path: String,
    pub max_length: u64,
}

/// The dates one path holds over the whole collection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DateExtreme {
    pub path: String,
    /// Documents holding a date there.
    pub documents: u64,
    /// Of them, those dated before the instant asked (`before`).
    pub past: u64,
    /// Milliseconds since the epoch the dates were counted against.
    pub before: i64,
    /// The earliest and latest date, in milliseconds since the epoch.
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// How many documents are over one size threshold.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OverThreshold {
    /// `rule.key`, e.g. `document-near-limit.warning-bytes`.
    pub threshold: String,
    pub bytes: u64,
    pub documents: u64,
}

/// Figures measured over every document of a collection.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Extremes {
    /// Always `collection`: every document was looked at.
    pub scope: &'static str,
    /// How: `server-aggregation` or `bson-skim`.
    pub method: &'static str,
    /// Documents the pass looked at.
    pub documents: u64,
    /// The largest documents, largest first.
    pub largest: Vec<LargeDocument>,
    /// Longest length of each array path asked for that any document holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub arrays: Vec<ArrayExtreme>,
    /// Documents over each size threshold.
    pub over: Vec<OverThreshold>,
    /// Dates of each date path asked for, where measured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dates: Vec<DateExtreme>,
    /// Array paths asked for that this pass could not measure, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_measured: Vec<String>,
    /// Time the pass took, in milliseconds.
    pub millis: u64,
}

impl Extremes {
    pub(crate) fn new(method: &'static str) -> Extremes {
        Extremes {
            scope: "collection",
            method,
            documents: 0,
            largest: Vec::new(),
            arrays: Vec::new(),
            over: Vec::new(),
            dates: Vec::new(),
            not_measured: Vec::new(),
            millis: 0,
        }
    }

    /// Size of the largest document.
    pub(crate) fn max_bytes(&self) -> Option<u64> {
        self.largest.first().map(|d| d.bytes)
    }

    /// Longest length of `path` in the whole collection, when measured.
    pub(crate) fn array_max(&self, path: &str) -> Option<u64> {
        self.arrays
            .iter()
            .find(|a| a.path == path)
            .map(|a| a.max_length)
    }

    /// Documents over the threshold named `name`, when counted.
    pub(crate) fn over(&self, name: &str) -> Option<u64> {
        self.over
            .iter()
            .find(|o| o.threshold == name)
            .map(|o| o.documents)
    }

    pub(crate) fn set_elapsed(&mut self, d: Duration) {
        self.millis = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    }
}

/// How an array path is reached, for a server-side `$size`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrayReach {
    /// Through sub-documents only: `$size` of the dotted path.
    Direct(String),
    /// Inside the elements of one outer array: the longest `$size` of the
    /// inner dotted path over the outer array's elements.
    InArray { outer: String, inner: String },
}

/// How to reach an array path (its profile steps) from the document's
/// root, or why it cannot be measured cheaply: arrays nested two arrays
/// deep (`a[].b[].c`, `a[][]`) and names a field path cannot spell (with a
/// `.` or a leading `$`).
pub(crate) fn reach(segments: &[Seg]) -> std::result::Result<ArrayReach, &'static str> {
    let mut runs: Vec<Vec<&str>> = vec![Vec::new()];
    for s in segments {
        match s {
            Seg::Key(k) if k.is_empty() || k.contains('.') || k.starts_with('$') => {
                return Err("its name cannot be written as a field path")
            }
            Seg::Key(k) => {
                if let Some(run) = runs.last_mut() {
                    run.push(k);
                }
            }
            Seg::Elem => runs.push(Vec::new()),
        }
    }
    match runs.as_slice() {
        [one] if !one.is_empty() => Ok(ArrayReach::Direct(one.join("."))),
        [outer, inner] if !outer.is_empty() && !inner.is_empty() => Ok(ArrayReach::InArray {
            outer: outer.join("."),
            inner: inner.join("."),
        }),
        [_, _] => Err("it is an array of arrays"),
        _ => Err("it lies inside more than one array"),
    }
}

/// Keeps the `k` largest `(bytes, tag)` pairs seen, largest first; ties
/// keep the earliest.
#[derive(Clone, Debug)]
pub struct TopK<T> {
    k: usize,
    items: Vec<(u64, T)>,
}

impl<T> TopK<T> {
    pub(crate) fn new(k: usize) -> TopK<T> {
        TopK {
            k,
            items: Vec::with_capacity(k + 1),
        }
    }

    /// Whether a document of `bytes` would enter the list.
    pub(crate) fn wants(&self, bytes: u64) -> bool {
        self.k > 0
            && (self.items.len() < self.k || self.items.last().is_some_and(|(b, _)| bytes > *b))
    }

    pub(crate) fn offer(&mut self, bytes: u64, tag: T) {
        if !self.wants(bytes) {
            return;
        }
        let at = self.items.partition_point(|(b, _)| *b >= bytes);
        self.items.insert(at, (bytes, tag));
        self.items.truncate(self.k);
    }

    pub(crate) fn into_vec(self) -> Vec<(u64, T)> {
        self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_k_keeps_the_largest_in_order() {
        let mut t = TopK::new(3);
        for (i, b) in [5u64, 1, 9, 7, 9, 2, 8].into_iter().enumerate() {
            t.offer(b, i);
        }
        assert_eq!(t.into_vec(), vec![(9, 2), (9, 4), (8, 6)]);
        let mut none = TopK::new(0);
        none.offer(1, ());
        assert!(none.into_vec().is_empty());
    }

    fn segs(path: &str) -> Vec<Seg> {
        let mut out = Vec::new();
        for (i, part) in path.split("[]").enumerate() {
            if i > 0 {
                out.push(Seg::Elem);
            }
            out.extend(
                part.split('.')
                    .filter(|k| !k.is_empty())
                    .map(|k| Seg::Key(k.to_owned())),
            );
        }
        out
    }

    #[test]
    fn array_paths_reach_through_one_array_at_most() {
        assert_eq!(reach(&segs("tags")), Ok(ArrayReach::Direct("tags".into())));
        assert_eq!(reach(&segs("a.b")), Ok(ArrayReach::Direct("a.b".into())));
        assert_eq!(
            reach(&segs("items[].parts")),
            Ok(ArrayReach::InArray {
                outer: "items".into(),
                inner: "parts".into()
            })
        );
        assert_eq!(
            reach(&segs("a.b[].c.d")),
            Ok(ArrayReach::InArray {
                outer: "a.b".into(),
                inner: "c.d".into()
            })
        );
        assert!(reach(&segs("a[].b[].c")).is_err());
        assert!(reach(&segs("a[][]")).is_err());
        assert!(reach(&segs("$weird")).is_err());
        assert!(reach(&[Seg::Key("a.b".into())]).is_err());
    }
}
