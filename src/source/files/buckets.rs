//! A time-series collection as `mongodump` writes it: the bucket documents
//! of `system.buckets.NAME` (`system.buckets.NAME.bson`), described by
//! `NAME.metadata.json` (`options.timeseries`: `timeField`, `metaField`,
//! `granularity`). Each bucket is turned back into the measurements it
//! holds, one document per measurement, so that the profile, the sizes
//! and the rules see what the application wrote.
//!
//! A bucket holds `control` (its version, the min and max of each field,
//! and in compressed buckets the measurement count), `meta` (the meta
//! field's value, common to every measurement of the bucket) and `data`:
//! one column per field. Version 1 writes a column as a document
//! `{"0": v0, "1": v1, …}` keyed by the measurement's position (a field a
//! measurement lacks is skipped); versions 2 and 3 write it as a BSON
//! column, a binary of subtype 7 ([`super::bsoncolumn`]).

use std::path::PathBuf;

use crate::profile::raw::{self, BsonType};

/// Most measurements taken from one bucket (the server closes a bucket at
/// 1,000 by default; fewer than its bytes allow, in any case).
pub const MAX_MEASUREMENTS: usize = 1 << 20;

/// Most bytes the measurements of one bucket may take once unpacked (the
/// server keeps a bucket's measurements to a few megabytes; a compressed
/// column repeating a large value may claim far more).
pub const MAX_UNPACKED_BYTES: usize = 64 << 20;

/// What the collection's metadata says about its buckets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Spec {
    /// `timeseries.timeField`: every measurement has it.
    pub time_field: Option<String>,
    /// `timeseries.metaField`: each bucket's `meta`, put back under this
    /// name in every measurement.
    pub meta_field: Option<String>,
    /// `timeseries.granularity` (`seconds`, `minutes`, `hours`), when set.
    pub granularity: Option<String>,
    /// The metadata file these came from (`None`: none was found).
    pub metadata: Option<PathBuf>,
}

/// The name the bucket's `meta` is given when no metadata names its field.
pub const UNKNOWN_META: &str = "meta";

impl Spec {
    /// From a collection's options (`{"timeseries": {…}}`), read from
    /// `metadata`.
    pub(crate) fn from_options(opts: &bson::Document, metadata: PathBuf) -> Spec {
        let ts = opts.get_document("timeseries").ok();
        let text = |k: &str| {
            ts.and_then(|t| t.get_str(k).ok())
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        Spec {
            time_field: text("timeField"),
            meta_field: text("metaField").filter(|m| !m.contains('\0')),
            granularity: text("granularity"),
            metadata: Some(metadata),
        }
    }

    /// The name the bucket's `meta` takes in each measurement.
    fn meta_name(&self) -> Option<&str> {
        match (&self.meta_field, &self.metadata) {
            (Some(m), _) => Some(m),
            // Metadata that names no meta field: the collection has none.
            (None, Some(_)) => None,
            (None, None) => Some(UNKNOWN_META),
        }
    }
}

/// Why a bucket's measurements could not be taken from it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Skip {
    /// The bucket is not a BSON document.
    Malformed(String),
    /// It has no `data` document.
    NoData,
    /// A column is neither a document of positions nor a BSON column.
    BadColumn(String),
    /// A compressed column that could not be decoded.
    Column { field: String, reason: String },
    /// The columns disagree on how many measurements the bucket holds.
    Inconsistent(String),
    /// Its measurements would take more than [`MAX_UNPACKED_BYTES`].
    TooLarge,
}

impl Skip {
    /// One phrase, in English and Chinese.
    pub(crate) fn text(&self) -> crate::i18n::Text {
        use crate::i18n::Text;
        match self {
            Skip::Malformed(e) => Text::new(
                format!("not a valid BSON document ({e})"),
                format!("不是有效的 BSON 文档（{e}）"),
            ),
            Skip::NoData => Text::new("no data document", "没有 data 文档"),
            Skip::BadColumn(f) => Text::new(
                format!("data.{f} is neither a document of positions nor a BSON column"),
                format!("data.{f} 既不是按位置编号的文档，也不是 BSON 列"),
            ),
            Skip::Column { field, reason } => Text::new(
                format!("the compressed column data.{field} could not be decoded: {reason}"),
                format!("压缩列 data.{field} 无法解码：{reason}"),
            ),
            Skip::Inconsistent(why) => Text::new(
                format!("its columns disagree ({why})"),
                format!("各列互相矛盾（{why}）"),
            ),
            Skip::TooLarge => Text::new(
                format!(
                    "its measurements would take more than {} MiB once unpacked",
                    MAX_UNPACKED_BYTES >> 20
                ),
                format!("其测量解开后会超过 {} MiB", MAX_UNPACKED_BYTES >> 20),
            ),
        }
    }
}

impl Skip {
    /// What kind of reason it is, to count buckets skipped alike.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Skip::Malformed(_) => "malformed",
            Skip::NoData => "no-data",
            Skip::BadColumn(_) => "bad-column",
            Skip::Column { .. } => "compressed",
            Skip::Inconsistent(_) => "inconsistent",
            Skip::TooLarge => "too-large",
        }
    }
}

/// The measurements a bucket says it holds (`control.count`, written in
/// compressed buckets).
pub(crate) fn declared_count(bucket: &[u8]) -> Option<u64> {
    raw::elements(bucket)
        .ok()?
        .flatten()
        .find(|e| e.key == b"control" && e.ty == BsonType::Object)
        .and_then(|c| control_count(c.value))
}

/// A value of a column: its BSON type tag and value bytes.
pub type Cell<'a> = Option<(u8, &'a [u8])>;

/// A column of a bucket: a document of positions, or a decoded BSON
/// column.
enum Column<'a> {
    Positions(Vec<Cell<'a>>),
    Decoded(super::bsoncolumn::Values),
}

impl Column<'_> {
    fn len(&self) -> usize {
        match self {
            Column::Positions(c) => c.len(),
            Column::Decoded(v) => v.len(),
        }
    }

    fn get(&self, row: usize) -> Cell<'_> {
        match self {
            Column::Positions(c) => c.get(row).copied().flatten(),
            Column::Decoded(v) => v.get(row).flatten(),
        }
    }
}

/// Appends the measurements of one `bucket` to `out`, each a BSON
/// document with its own length prefix: the time field first, then the
/// meta field, then the other fields in the bucket's column order. The
/// number of measurements, or why the bucket was skipped (`out` is then
/// as it was).
pub fn unpack(bucket: &[u8], spec: &Spec, out: &mut Vec<u8>) -> Result<u64, Skip> {
    let malformed = |e: raw::RawError| Skip::Malformed(e.to_string());
    let mut data = None;
    let mut meta = None;
    let mut count = None;
    for el in raw::elements(bucket).map_err(malformed)? {
        let el = el.map_err(malformed)?;
        match el.key {
            b"data" if el.ty == BsonType::Object => data = Some(el.value),
            b"meta" => meta = Some(el),
            b"control" if el.ty == BsonType::Object => count = control_count(el.value),
            _ => {}
        }
    }
    let data = data.ok_or(Skip::NoData)?;
    // Each measurement's time takes at least 11 bytes of a column of
    // positions; a compressed column may repeat a value 1,920 times in 8
    // bytes, so its measurements are bounded by the count the bucket
    // declares.
    let most = (bucket.len() / 11).min(MAX_MEASUREMENTS);
    let most_compressed = count.map_or(MAX_MEASUREMENTS, |c| {
        usize::try_from(c).map_or(MAX_MEASUREMENTS, |c| c.min(MAX_MEASUREMENTS))
    });
    let mut budget = MAX_UNPACKED_BYTES;
    let mut columns: Vec<(&[u8], Column<'_>)> = Vec::new();
    for el in raw::elements(data).map_err(malformed)? {
        let el = el.map_err(malformed)?;
        let field = String::from_utf8_lossy(el.key);
        let column = match el.ty {
            BsonType::Object => Column::Positions(positions(el.value, most).map_err(|why| {
                if why == PositionError::NotAPosition {
                    Skip::BadColumn(field.to_string())
                } else {
                    Skip::Inconsistent(format!("data.{field}: {why}"))
                }
            })?),
            BsonType::BinData if el.value.get(4) == Some(&7) => {
                let bytes = el.value.get(5..).unwrap_or_default();
                let values = super::bsoncolumn::decode_within(bytes, most_compressed, budget)
                    .map_err(|e| Skip::Column {
                        field: field.to_string(),
                        reason: e.to_string(),
                    })?;
                budget -= values.held();
                Column::Decoded(values)
            }
            _ => return Err(Skip::BadColumn(field.to_string())),
        };
        columns.push((el.key, column));
    }
    // Every measurement has its time: the time column is the longest.
    let longest = columns.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
    let n = match &spec.time_field {
        Some(t) => match columns.iter().find(|(k, _)| *k == t.as_bytes()) {
            Some((_, c)) => c.len(),
            None if columns.is_empty() => 0,
            None => return Err(Skip::Inconsistent(format!("no column data.{t}"))),
        },
        None => longest,
    };
    if longest > n {
        return Err(Skip::Inconsistent(format!(
            "a column holds {longest} values, the time column {n}"
        )));
    }
    if let Some(c) = count.filter(|&c| c != n as u64 && !columns.is_empty()) {
        return Err(Skip::Inconsistent(format!(
            "control.count is {c}, the time column holds {n}"
        )));
    }
    // Fields in measurement order: time, meta, the others.
    let time_at = spec
        .time_field
        .as_ref()
        .and_then(|t| columns.iter().position(|(k, _)| *k == t.as_bytes()));
    let mut order: Vec<usize> = time_at.into_iter().collect();
    order.extend((0..columns.len()).filter(|&i| Some(i) != time_at));
    if let Some(t) = time_at {
        if let Some(k) = (0..n).find(|&row| columns[t].1.get(row).is_none()) {
            return Err(Skip::Inconsistent(format!("measurement {k} has no time")));
        }
    }
    let meta = meta.and_then(|m| spec.meta_name().map(|name| (name.as_bytes(), m)));
    // What the measurements will take, before any is written.
    let mut size = n * (5 + meta.map_or(0, |(name, m)| name.len() + 2 + m.value.len()));
    for (key, column) in &columns {
        for row in 0..column.len() {
            if let Some((_, value)) = column.get(row) {
                size = size.saturating_add(key.len() + 2 + value.len());
            }
        }
    }
    if size > MAX_UNPACKED_BYTES {
        return Err(Skip::TooLarge);
    }
    out.reserve(size);
    // The meta field goes before this column (after the time field).
    let meta_before = usize::from(time_at.is_some());
    for row in 0..n {
        let at = out.len();
        out.extend_from_slice(&[0; 4]);
        let mut put = |key: &[u8], tag: u8, value: &[u8]| {
            out.push(tag);
            out.extend_from_slice(key);
            out.push(0);
            out.extend_from_slice(value);
        };
        let mut meta_left = meta;
        for (i, &c) in order.iter().enumerate() {
            if i == meta_before {
                if let Some((name, m)) = meta_left.take() {
                    put(name, m.ty as u8, m.value);
                }
            }
            let (key, column) = &columns[c];
            if let Some((tag, value)) = column.get(row) {
                put(key, tag, value);
            }
        }
        if let Some((name, m)) = meta_left {
            put(name, m.ty as u8, m.value);
        }
        out.push(0);
        let len = i32::try_from(out.len() - at).unwrap_or(i32::MAX);
        out[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
    Ok(n as u64)
}

/// `control.count` of a compressed bucket.
fn control_count(control: &[u8]) -> Option<u64> {
    raw::elements(control)
        .ok()?
        .flatten()
        .find(|e| e.key == b"count")
        .and_then(|e| match e.ty {
            BsonType::Int => raw::value::i32(e.value).map(i64::from),
            BsonType::Long => raw::value::i64(e.value),
            BsonType::Double => raw::value::f64(e.value).map(|f| f as i64),
            _ => None,
        })
        .and_then(|c| u64::try_from(c).ok())
}

/// Why an uncompressed column's positions cannot be read.
#[derive(Debug, PartialEq, thiserror::Error)]
enum PositionError {
    /// A key is not a position: the column is not a column of positions.
    #[error("a key is not a position")]
    NotAPosition,
    #[error("{0}")]
    Raw(#[from] raw::RawError),
    #[error("position {at} is past the {most} measurements the bucket can hold")]
    PastEnd { at: usize, most: usize },
    #[error("position {0} twice")]
    Twice(usize),
}

/// The cells of an uncompressed column `{"0": v0, "1": v1, …}`, by
/// position, or why the positions are impossible.
fn positions(column: &[u8], most: usize) -> Result<Vec<Cell<'_>>, PositionError> {
    let mut cells: Vec<Cell<'_>> = Vec::new();
    for el in raw::elements(column)? {
        let el = el?;
        let at: usize = std::str::from_utf8(el.key)
            .ok()
            .filter(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|k| k.parse().ok())
            .ok_or(PositionError::NotAPosition)?;
        if at >= most {
            return Err(PositionError::PastEnd { at, most });
        }
        if at >= cells.len() {
            cells.resize(at + 1, None);
        }
        if cells[at].is_some() {
            return Err(PositionError::Twice(at));
        }
        cells[at] = Some((el.ty as u8, el.value));
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, Bson, DateTime, Document};

    fn bytes(d: &Document) -> Vec<u8> {
        bson::serialize_to_vec(d).expect("encode")
    }

    fn docs(run: &[u8]) -> Vec<Document> {
        let mut out = Vec::new();
        crate::profile::parallel::each_document(run, |d| {
            out.push(Document::from_reader(d).expect("a measurement is a document"));
        });
        out
    }

    fn spec() -> Spec {
        Spec {
            time_field: Some("t".into()),
            meta_field: Some("m".into()),
            granularity: None,
            metadata: Some(PathBuf::from("x.metadata.json")),
        }
    }

    #[test]
    fn a_bucket_gives_back_its_measurements_in_the_servers_order() {
        let t = |ms| Bson::DateTime(DateTime::from_millis(ms));
        // Columns out of order, a position written before a lower one, a
        // field missing from the second measurement.
        let bucket = doc! {
            "_id": 1,
            "control": {"version": 1},
            "data": {
                "v": {"2": 3, "0": 1},
                "t": {"0": t(10), "1": t(20), "2": t(30)},
                "w": {"1": "b"},
            },
            "meta": {"site": "x"},
        };
        let mut out = Vec::new();
        assert_eq!(unpack(&bytes(&bucket), &spec(), &mut out), Ok(3));
        assert_eq!(
            docs(&out),
            vec![
                doc! {"t": t(10), "m": {"site": "x"}, "v": 1},
                doc! {"t": t(20), "m": {"site": "x"}, "w": "b"},
                doc! {"t": t(30), "m": {"site": "x"}, "v": 3},
            ]
        );
        // No metadata: the time field unknown, the meta under `meta`,
        // first.
        let mut out = Vec::new();
        assert_eq!(unpack(&bytes(&bucket), &Spec::default(), &mut out), Ok(3));
        assert_eq!(
            docs(&out)[1],
            doc! {"meta": {"site": "x"}, "t": t(20), "w": "b"}
        );
        // Metadata naming no meta field: there is none to put back.
        let none = Spec {
            meta_field: None,
            ..spec()
        };
        let mut out = Vec::new();
        assert_eq!(unpack(&bytes(&bucket), &none, &mut out), Ok(3));
        assert_eq!(docs(&out)[0], doc! {"t": t(10), "v": 1});
    }

    #[test]
    fn impossible_buckets_are_refused_and_leave_nothing_behind() {
        let t = |ms| Bson::DateTime(DateTime::from_millis(ms));
        let cases = [
            (doc! {"control": {}}, "no-data"),
            (doc! {"data": {"t": {"a": t(1)}}}, "bad-column"),
            (doc! {"data": {"t": 5}}, "bad-column"),
            (doc! {"data": {"t": {"0": t(1), "2": t(2)}}}, "inconsistent"),
            (
                doc! {"data": {"t": {"0": t(1)}, "v": {"3": 1}}},
                "inconsistent",
            ),
            (doc! {"data": {"v": {"0": 1}}}, "inconsistent"),
            (
                doc! {"control": {"count": 2}, "data": {"t": {"0": t(1)}}},
                "inconsistent",
            ),
            (doc! {"data": {"t": {"99999999": t(1)}}}, "inconsistent"),
        ];
        for (bucket, kind) in cases {
            let mut out = vec![1, 2, 3];
            let e = unpack(&bytes(&bucket), &spec(), &mut out).expect_err("refused");
            assert_eq!(e.kind(), kind, "{bucket}: {e:?}");
            assert_eq!(out, [1, 2, 3], "{bucket}");
            assert!(!e.text().en.is_empty() && !e.text().zh.is_empty());
        }
    }

    /// Every byte of a bucket changed, one at a time, to every value that
    /// matters: never a panic, and what comes out is whole documents.
    #[test]
    fn a_damaged_bucket_never_panics() {
        let t = |ms| Bson::DateTime(DateTime::from_millis(ms));
        let bucket = bytes(&doc! {
            "control": {"version": 1, "count": 2},
            "meta": "s",
            "data": {"t": {"0": t(1), "1": t(2)}, "v": {"1": "x"}},
        });
        for at in 0..bucket.len() {
            for b in [0u8, 1, 2, 3, 4, 5, 7, 0x30, 0x7f, 0xff] {
                let mut damaged = bucket.clone();
                damaged[at] = b;
                for spec in [spec(), Spec::default()] {
                    let mut out = Vec::new();
                    if let Ok(n) = unpack(&damaged, &spec, &mut out) {
                        let mut seen = 0;
                        crate::profile::parallel::each_document(&out, |d| {
                            assert!(crate::profile::raw::elements(d).is_ok());
                            seen += 1;
                        });
                        assert_eq!(seen, n);
                    }
                }
            }
        }
    }
}
