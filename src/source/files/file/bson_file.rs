//! `mongodump` BSON files: concatenated documents read with every length
//! prefix checked, handed over in runs as they lie in the file; counted
//! or skimmed for sizes by hopping from length prefix to length prefix;
//! and the errors that say where a damaged file goes wrong.

use crate::profile::extjson::Relaxed as _;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::profile::parallel::{each_document, BATCH_BYTES};
use crate::profile::raw;

/// Largest BSON document accepted from a file (the server's limit is 16 MiB;
/// a dump never holds more, so anything far beyond is a corrupt prefix).
pub const MAX_BSON_DOC: usize = 48 * 1024 * 1024;

/// Why a `.bson` file cannot be read on: the document (counted from 1)
/// and the byte offset where it starts, and what is wrong (its `Display`
/// the sentence the user sees).
#[derive(Debug, thiserror::Error)]
pub enum BsonFileError {
    #[error("document {document} at byte offset {offset} declares a negative length ({len})")]
    NegativeLength {
        document: u64,
        offset: u64,
        len: i32,
    },
    #[error("document {document} at byte offset {offset} declares an impossible length of {len} bytes; this is not a BSON file or it is corrupt")]
    ImpossibleLength {
        document: u64,
        offset: u64,
        len: usize,
    },
    #[error("document {document} at byte offset {offset} is corrupt (no terminating zero)")]
    NoTerminator { document: u64, offset: u64 },
    #[error("file ends inside the length of document {document} (byte offset {offset}, {present} of 4 bytes)")]
    EndsInLength {
        document: u64,
        offset: u64,
        present: usize,
    },
    #[error("file ends inside document {document} (byte offset {offset}: {present} of {len} bytes present)")]
    EndsInDocument {
        document: u64,
        offset: u64,
        present: usize,
        len: usize,
    },
    /// Reading failed; the documents before were handed over.
    #[error("{0}")]
    Read(#[from] std::io::Error),
}

/// Reads concatenated BSON documents, checking every length prefix.
pub fn read_bson<R: Read>(
    reader: R,
    each: &mut dyn FnMut(&[u8]),
) -> std::result::Result<u64, BsonFileError> {
    read_bson_runs(reader, &mut |run| each_document(&run, &mut *each))
}

/// Bytes read into one run of documents (a larger document makes a run of
/// its own).
pub(super) const RUN_BYTES: usize = BATCH_BYTES;

/// Reads concatenated BSON documents, checking every length prefix (at
/// least 5 bytes, at most [`MAX_BSON_DOC`], ending in a zero), and hands
/// them to `each_run` as they lie in the file, whole documents about
/// [`RUN_BYTES`] at a time: read once into the run, never copied one by
/// one. The documents before a damaged one are handed over before its
/// error is returned.
pub fn read_bson_runs<R: Read>(
    mut reader: R,
    each_run: &mut dyn FnMut(Vec<u8>),
) -> std::result::Result<u64, BsonFileError> {
    let mut buf: Vec<u8> = Vec::with_capacity(RUN_BYTES);
    let mut count = 0u64;
    // File offset of `buf[0]`.
    let mut offset = 0u64;
    let mut eof = false;
    let mut read_error = None;
    // Bytes `buf` must hold before it is looked at again.
    let mut want = RUN_BYTES;
    loop {
        while buf.len() < want && !eof {
            let room = (want - buf.len()) as u64;
            match reader.by_ref().take(room).read_to_end(&mut buf) {
                Ok(n) => eof = (n as u64) < room,
                Err(e) => {
                    // The whole documents read so far are still handed over.
                    read_error = Some(BsonFileError::Read(e));
                    eof = true;
                }
            }
        }
        // Whole documents from the start of `buf`.
        let mut at = 0usize;
        let failure = loop {
            let Some(prefix) = buf.get(at..at + 4) else {
                break None;
            };
            let here = offset + at as u64;
            let len = i32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
            let Ok(len) = usize::try_from(len) else {
                break Some(BsonFileError::NegativeLength {
                    document: count + 1,
                    offset: here,
                    len,
                });
            };
            if !(5..=MAX_BSON_DOC).contains(&len) {
                break Some(BsonFileError::ImpossibleLength {
                    document: count + 1,
                    offset: here,
                    len,
                });
            }
            let Some(&last) = buf.get(at + len - 1) else {
                break None;
            };
            if last != 0 {
                break Some(BsonFileError::NoTerminator {
                    document: count + 1,
                    offset: here,
                });
            }
            at += len;
            count += 1;
        };
        let rest = buf.len() - at;
        // Checked above when its 4 bytes are here.
        let next_len = buf.get(at..).and_then(raw::doc_len);
        let run = buf_before(&mut buf, at);
        offset += run.len() as u64;
        if !run.is_empty() {
            each_run(run);
        }
        if let Some(reason) = failure.or_else(|| read_error.take()) {
            return Err(reason);
        }
        if eof {
            return match (rest, next_len) {
                (0, _) => Ok(count),
                (present, None) => Err(BsonFileError::EndsInLength {
                    document: count + 1,
                    offset,
                    present,
                }),
                (present, Some(len)) => Err(BsonFileError::EndsInDocument {
                    document: count + 1,
                    offset,
                    present,
                    len,
                }),
            };
        }
        // The next document whole, or the next run's worth.
        want = next_len.map_or(RUN_BYTES, |len| len.max(RUN_BYTES));
    }
}

/// Takes `buf[..at]` out of `buf` as a run, leaving the bytes after it.
fn buf_before(buf: &mut Vec<u8>, at: usize) -> Vec<u8> {
    let mut rest = Vec::with_capacity(RUN_BYTES.max(buf.len() - at));
    rest.extend_from_slice(&buf[at..]);
    buf.truncate(at);
    std::mem::replace(buf, rest)
}

fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Counts the documents of a BSON file by following length prefixes only;
/// `None` when there are more than `limit`.
pub(super) fn count_bson(path: &Path, limit: Option<u64>) -> std::io::Result<Option<u64>> {
    // Hops from length prefix to length prefix; a buffered reader keeps
    // the hops over small documents inside its buffer (no system call per
    // document), large documents are skipped by seeking.
    let f = File::open(path)?;
    let size = f.metadata()?.len();
    // A bounded count hops over the first documents only.
    let buffer = if limit.is_some() { 64 << 10 } else { 1 << 20 };
    let mut r = std::io::BufReader::with_capacity(buffer, f);
    let mut pos = 0u64;
    let mut n = 0u64;
    let mut len = [0u8; 4];
    while pos < size {
        if read_full(&mut r, &mut len)? < 4 {
            break;
        }
        let Some(l) = raw::doc_len(&len).filter(|&l| l >= 5) else {
            break;
        };
        pos += l as u64;
        if pos > size {
            break;
        }
        n += 1;
        if limit.is_some_and(|most| n > most) {
            return Ok(None);
        }
        r.seek_relative(l as i64 - 4)?;
    }
    Ok(Some(n))
}

/// The whole-file figures a `.bson` file gives without parsing: every
/// document's size from hopping its length prefixes (no document is read
/// but the largest few, for their `_id`), the largest `ask.top` and the
/// documents at or over each threshold. Array lengths need the documents
/// parsed: they are listed as not measured.
pub fn skim_bson(
    path: &Path,
    ask: &crate::source::ExtremesAsk,
) -> std::io::Result<crate::source::Extremes> {
    use crate::source::extremes::{LargeDocument, OverThreshold, TopK};
    let start = std::time::Instant::now();
    let mut out = crate::source::Extremes::new("bson-skim");
    let f = File::open(path)?;
    let size = f.metadata()?.len();
    let mut r = std::io::BufReader::with_capacity(1 << 20, f);
    let mut top = TopK::new(ask.top);
    let mut over = vec![0u64; ask.thresholds.len()];
    let mut pos = 0u64;
    let mut len = [0u8; 4];
    while pos < size {
        if read_full(&mut r, &mut len)? < 4 {
            break;
        }
        let Some(l) = raw::doc_len(&len).filter(|&l| l >= 5) else {
            break;
        };
        let bytes = l as u64;
        if pos + bytes > size {
            break;
        }
        out.documents += 1;
        top.offer(bytes, pos);
        for (n, (_, at)) in over.iter_mut().zip(&ask.thresholds) {
            if bytes >= *at {
                *n += 1;
            }
        }
        pos += bytes;
        r.seek_relative(l as i64 - 4)?;
    }
    let mut f = r.into_inner();
    for (bytes, at) in top.into_vec() {
        out.largest.push(LargeDocument {
            id: first_id(&mut f, at, bytes),
            bytes,
        });
    }
    out.over = ask
        .thresholds
        .iter()
        .zip(over)
        .map(|((name, bytes), documents)| OverThreshold {
            threshold: name.clone(),
            bytes: *bytes,
            documents,
        })
        .collect();
    out.not_measured = ask
        .arrays
        .iter()
        .map(|(p, _)| format!("{p}: a skim of length prefixes does not read arrays"))
        .chain(
            ask.dates
                .iter()
                .map(|(p, _)| format!("{p}: a skim of length prefixes does not read dates")),
        )
        .collect();
    out.set_elapsed(start.elapsed());
    Ok(out)
}

/// The `_id` of the document of `len` bytes at `offset`, when it is the
/// first field (as the server writes it): only its first bytes are read.
fn first_id(f: &mut File, offset: u64, len: u64) -> Option<serde_json::Value> {
    use std::io::Seek;
    // `_id` first and at most a 1 KiB string or binary: enough for ids.
    let want = usize::try_from(len.min(1024 + 64)).ok()?;
    f.seek(std::io::SeekFrom::Start(offset)).ok()?;
    let mut buf = vec![0u8; want];
    if read_full(f, &mut buf).ok()? < want {
        return None;
    }
    // The prefix as a document of its own: its first element is whole
    // when the `_id` fits.
    buf.push(0);
    let n = i32::try_from(buf.len()).ok()?;
    buf[..4].copy_from_slice(&n.to_le_bytes());
    let first = raw::elements(&buf).ok()?.next()?.ok()?;
    if first.key != b"_id" {
        return None;
    }
    let mut doc = Vec::with_capacity(first.size + 5);
    doc.extend_from_slice(&i32::try_from(first.size + 5).ok()?.to_le_bytes());
    doc.extend_from_slice(buf.get(4..4 + first.size)?);
    doc.push(0);
    let d = bson::Document::from_reader(doc.as_slice()).ok()?;
    d.get("_id").map(|v| v.clone().relaxed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bson_stream_errors_are_clear() {
        let mut one = Vec::new();
        bson::doc! {"a": 1}.to_writer(&mut one).expect("write");
        let mut two = one.clone();
        two.extend_from_slice(&one);
        let mut n = 0;
        assert_eq!(read_bson(&two[..], &mut |_| n += 1).ok(), Some(2));
        assert_eq!(n, 2);
        let e = read_bson(&two[..two.len() - 3], &mut |_| {})
            .expect_err("truncated")
            .to_string();
        assert!(e.contains("file ends inside document 2"), "{e}");
        let e = read_bson(&b"{\"a\": 1}\n"[..], &mut |_| {})
            .expect_err("json")
            .to_string();
        assert!(e.contains("impossible length"), "{e}");
        assert_eq!(read_bson(&b""[..], &mut |_| {}).ok(), Some(0));
    }

    /// A reader that hands out at most `step` bytes per read, then fails
    /// (when `fail`) instead of ending.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
        fail: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.data.is_empty() && self.fail {
                return Err(std::io::Error::other("disk gone"));
            }
            let n = self.step.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn runs_of_a_bson_file_are_its_documents_whole_and_in_order() {
        // Small documents, then one larger than a run, then small again.
        let mut file = Vec::new();
        let mut docs = Vec::new();
        for i in 0..3_000 {
            let pad = "y".repeat(if i == 1_500 { 3 * RUN_BYTES } else { i % 97 });
            let mut d = Vec::new();
            bson::doc! {"_id": i as i64, "pad": pad}
                .to_writer(&mut d)
                .expect("write");
            file.extend_from_slice(&d);
            docs.push(d);
        }
        for step in [1, 7, 4096, usize::MAX] {
            let mut runs = Vec::new();
            let reader = Trickle {
                data: &file,
                step,
                fail: false,
            };
            let n = read_bson_runs(reader, &mut |run| runs.push(run)).expect("reads");
            assert_eq!(n, 3_000);
            assert_eq!(runs.concat(), file, "step {step}: the runs are the file");
            let mut got = Vec::new();
            for run in &runs {
                assert!(
                    run.len() <= 4 * RUN_BYTES,
                    "step {step}: a run of {}",
                    run.len()
                );
                each_document(run, |d| got.push(d.to_vec()));
            }
            assert!(got == docs, "step {step}: documents differ");
        }
        // Damage: the documents before it are handed over, then the error
        // that reading document by document gives.
        let cut = &file[..file.len() - 3];
        let mut whole = 0;
        let e = read_bson_runs(cut, &mut |run| each_document(&run, |_| whole += 1))
            .expect_err("truncated")
            .to_string();
        assert_eq!(whole, 2_999);
        let offset = file.len() - docs[2_999].len();
        assert_eq!(
            e,
            format!(
                "file ends inside document 3000 (byte offset {offset}: {} of {} bytes present)",
                docs[2_999].len() - 3,
                docs[2_999].len()
            )
        );
        let mut zeroless = file.clone();
        let end = docs[0].len() + docs[1].len();
        zeroless[end - 1] = 1;
        let mut whole = 0;
        let e = read_bson_runs(&zeroless[..], &mut |run| {
            each_document(&run, |_| whole += 1);
        })
        .expect_err("no zero")
        .to_string();
        assert_eq!(whole, 1);
        assert_eq!(
            e,
            format!(
                "document 2 at byte offset {} is corrupt (no terminating zero)",
                docs[0].len()
            )
        );
        let e = read_bson_runs(&file[..docs[0].len() + 2], &mut |_| {})
            .expect_err("length cut")
            .to_string();
        assert_eq!(
            e,
            format!(
                "file ends inside the length of document 2 (byte offset {}, 2 of 4 bytes)",
                docs[0].len()
            )
        );
        let mut whole = 0;
        let failing = Trickle {
            data: &file[..end],
            step: 5,
            fail: true,
        };
        let e = read_bson_runs(failing, &mut |run| each_document(&run, |_| whole += 1))
            .expect_err("read error")
            .to_string();
        assert_eq!((whole, e.as_str()), (2, "disk gone"));
    }
}
