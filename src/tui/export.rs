//! Query results written to a file as they are read: a JSON array of
//! relaxed Extended JSON documents, or CSV (RFC 4180) with a column per
//! top-level field. The file is new — its name is taken before the first
//! document, and when a file of that name exists the next free one beside
//! it (`name-2.json` …) is used: nothing is ever overwritten. An export
//! that does not finish removes what it wrote.
//!
//! CSV's header holds every field in the order first seen, which is known
//! only at the end: rows go to a scratch file beside the export (their
//! cells for the columns known then), and the header and the rows, padded
//! to every column, are written when the last document is in.

use crate::profile::extjson::Relaxed as _;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use bson::{Bson, Document};

/// What `w` and `W` write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An array of relaxed Extended JSON documents.
    Json,
    /// One row per document, one column per top-level field.
    Csv,
}

impl Format {
    pub(crate) fn extension(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
        }
    }
}

/// A file being written.
pub struct ExportFile {
    path: PathBuf,
    out: BufWriter<File>,
    written: u64,
    /// CSV: the columns so far and the scratch file of the rows.
    csv: Option<Rows>,
}

struct Rows {
    columns: Vec<String>,
    path: PathBuf,
    out: BufWriter<File>,
}

impl ExportFile {
    /// A new file at `asked`, or beside it when that name is taken.
    pub(crate) fn create(asked: &Path, format: Format) -> std::io::Result<ExportFile> {
        let (file, path) = create_new(asked)?;
        let mut out = BufWriter::new(file);
        let csv = match format {
            Format::Json => {
                out.write_all(b"[")?;
                None
            }
            Format::Csv => {
                let name = path
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                let scratch = path.with_file_name(format!(".{name}.rows"));
                match create_new(&scratch) {
                    Ok((f, p)) => Some(Rows {
                        columns: Vec::new(),
                        path: p,
                        out: BufWriter::new(f),
                    }),
                    Err(e) => {
                        let _ = std::fs::remove_file(&path);
                        return Err(e);
                    }
                }
            }
        };
        Ok(ExportFile {
            path,
            out,
            written: 0,
            csv,
        })
    }

    /// The file written to.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Documents written so far.
    pub(crate) fn written(&self) -> u64 {
        self.written
    }

    /// One more document.
    pub(crate) fn add(&mut self, d: &Document) -> std::io::Result<()> {
        match &mut self.csv {
            None => {
                let v = Bson::Document(d.clone()).relaxed();
                let text = serde_json::to_string_pretty(&v).map_err(std::io::Error::other)?;
                self.out
                    .write_all(if self.written == 0 { b"\n" } else { b",\n" })?;
                for (i, line) in text.lines().enumerate() {
                    if i > 0 {
                        self.out.write_all(b"\n")?;
                    }
                    self.out.write_all(b"  ")?;
                    self.out.write_all(line.as_bytes())?;
                }
            }
            Some(rows) => {
                for k in d.keys() {
                    if !rows.columns.iter().any(|c| c == k) {
                        rows.columns.push(k.clone());
                    }
                }
                // The row's cells, for the columns known now; a length
                // before the row and before each cell.
                let cells: Vec<String> = rows
                    .columns
                    .iter()
                    .map(|c| d.get(c).map_or_else(String::new, csv_value))
                    .collect();
                let n = u32::try_from(cells.len()).map_err(std::io::Error::other)?;
                rows.out.write_all(&n.to_le_bytes())?;
                for c in cells {
                    let len = u32::try_from(c.len()).map_err(std::io::Error::other)?;
                    rows.out.write_all(&len.to_le_bytes())?;
                    rows.out.write_all(c.as_bytes())?;
                }
            }
        }
        self.written += 1;
        Ok(())
    }

    /// The file complete: its path and the documents in it.
    pub(crate) fn finish(mut self) -> std::io::Result<(PathBuf, u64)> {
        match self.csv.take() {
            None => {
                self.out
                    .write_all(if self.written == 0 { b"]\n" } else { b"\n]\n" })?;
            }
            Some(rows) => {
                let done = write_csv(&mut self.out, &rows.columns, rows.out, &rows.path);
                let _ = std::fs::remove_file(&rows.path);
                done?;
            }
        }
        self.out.flush()?;
        Ok((self.path.clone(), self.written))
    }

    /// Gives up: what was written is removed.
    pub(crate) fn abandon(self) {
        let ExportFile { path, out, csv, .. } = self;
        drop(out);
        let _ = std::fs::remove_file(&path);
        if let Some(rows) = csv {
            drop(rows.out);
            let _ = std::fs::remove_file(&rows.path);
        }
    }
}

/// The header, then every row of the scratch file padded to every column.
fn write_csv(
    out: &mut impl Write,
    columns: &[String],
    rows: BufWriter<File>,
    scratch: &Path,
) -> std::io::Result<()> {
    // Flushed and closed before it is read back.
    drop(
        rows.into_inner()
            .map_err(std::io::IntoInnerError::into_error)?,
    );
    let header: Vec<String> = columns.iter().map(|c| csv_cell(c)).collect();
    out.write_all(header.join(",").as_bytes())?;
    out.write_all(b"\r\n")?;
    let mut r = BufReader::new(File::open(scratch)?);
    let mut word = [0u8; 4];
    let mut cell = Vec::new();
    loop {
        match r.read_exact(&mut word) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        let n = u32::from_le_bytes(word) as usize;
        for i in 0..columns.len() {
            if i > 0 {
                out.write_all(b",")?;
            }
            if i < n {
                r.read_exact(&mut word)?;
                cell.resize(u32::from_le_bytes(word) as usize, 0);
                r.read_exact(&mut cell)?;
                out.write_all(csv_cell(&String::from_utf8_lossy(&cell)).as_bytes())?;
            }
        }
        out.write_all(b"\r\n")?;
    }
}

/// A value as a CSV cell reads: strings, numbers, booleans, ids and dates
/// as they are, anything else as compact Extended JSON.
fn csv_value(v: &Bson) -> String {
    match v {
        Bson::String(s) => s.clone(),
        Bson::Null | Bson::Undefined => String::new(),
        Bson::Boolean(b) => b.to_string(),
        Bson::Int32(n) => n.to_string(),
        Bson::Int64(n) => n.to_string(),
        Bson::Double(x) => x.to_string(),
        Bson::Decimal128(x) => x.to_string(),
        Bson::ObjectId(o) => o.to_hex(),
        Bson::DateTime(d) => d
            .try_to_rfc3339_string()
            .unwrap_or_else(|_| d.timestamp_millis().to_string()),
        other => other.clone().relaxed().to_string(),
    }
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// A file that did not exist, created: `path`, else `stem-2.ext`,
/// `stem-3.ext` … beside it. Nothing is ever overwritten.
pub(crate) fn create_new(path: &std::path::Path) -> std::io::Result<(std::fs::File, PathBuf)> {
    let stem = path
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let ext = path
        .extension()
        .map_or_else(String::new, |e| format!(".{}", e.to_string_lossy()));
    let mut last = None;
    for n in 1..=999 {
        let p = if n == 1 {
            path.to_path_buf()
        } else {
            path.with_file_name(format!("{stem}-{n}{ext}"))
        };
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p);
        match file {
            Ok(f) => return Ok((f, p)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free file name")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    fn export(docs: &[Document], format: Format) -> String {
        let dir = tempfile::tempdir().expect("temporary directory");
        let mut f = ExportFile::create(&dir.path().join("x.out"), format).expect("create");
        for d in docs {
            f.add(d).expect("add");
        }
        let (path, n) = f.finish().expect("finish");
        assert_eq!(n, docs.len() as u64);
        // Only the export is left.
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1);
        std::fs::read_to_string(path).expect("read")
    }

    #[test]
    fn csv_has_every_field_and_quotes_what_needs_it() {
        let docs = [
            doc! {"_id": 1, "name": "a, \"b\"", "at": bson::DateTime::from_millis(0)},
            doc! {"_id": 2, "tags": ["x", "y"], "note": "two\nlines", "n": null},
            doc! {"name": "c"},
        ];
        assert_eq!(
            export(&docs, Format::Csv),
            "_id,name,at,tags,note,n\r\n\
             1,\"a, \"\"b\"\"\",1970-01-01T00:00:00Z,,,\r\n\
             2,,,\"[\"\"x\"\",\"\"y\"\"]\",\"two\nlines\",\r\n\
             ,c,,,,\r\n"
        );
        assert_eq!(export(&[], Format::Csv), "\r\n");
    }

    #[test]
    fn json_is_the_pretty_array_serde_writes() {
        let docs = [doc! {"a": 1, "b": {"c": [1, 2]}}, doc! {"d": "e"}];
        let values: Vec<serde_json::Value> = docs
            .iter()
            .map(|d| Bson::Document(d.clone()).relaxed())
            .collect();
        let whole = serde_json::to_string_pretty(&values).expect("json") + "\n";
        assert_eq!(export(&docs, Format::Json), whole);
        assert_eq!(export(&[], Format::Json), "[]\n");
    }

    #[test]
    fn a_taken_name_is_left_alone_and_an_abandoned_export_removed() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let asked = dir.path().join("q.csv");
        std::fs::write(&asked, "mine").expect("write");
        let mut f = ExportFile::create(&asked, Format::Csv).expect("create");
        assert_eq!(f.path(), dir.path().join("q-2.csv"));
        f.add(&doc! {"a": 1}).expect("add");
        f.abandon();
        assert_eq!(
            std::fs::read_to_string(&asked).ok().as_deref(),
            Some("mine")
        );
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from("q.csv")]);
    }
}
