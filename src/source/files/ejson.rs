//! Extended JSON (canonical or relaxed) to raw BSON, streamed: one document
//! per line, concatenated documents, or one JSON array, as `mongoexport`
//! writes them.
//!
//! The input is read in large chunks and parsed from the buffered bytes with
//! `serde_json`; each document is written straight to BSON by a visitor, with
//! no `serde_json::Value` or `bson::Document` in between. Extended JSON
//! wrappers (an object whose first key starts with `$`) are small: each is
//! collected and converted by the `bson` crate, as before. Whatever the fast
//! path does not handle exactly the way the `bson` crate would (duplicate
//! keys, NUL bytes in keys, a wrapper key after ordinary keys, any error), it
//! hands to the reference path: the same document parsed again the old way,
//! with `serde_json::Value` and `bson::Bson::try_from`, so results and error
//! messages (with line and column) are the same as they always were.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashSet;
use std::io::Read;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::profile::parallel::LARGE_INPUT;
use crate::source::Sink;

mod legacy;

pub(crate) use legacy::{days_from_civil, days_in_month};
mod parallel;

pub use legacy::{date_millis, to_bson, ConvertError};

/// Why an Extended JSON input cannot be read: the line and column where
/// reading stopped, when its syntax is at fault (line from 1, column in
/// bytes, as `serde_json` counts them), and the sentence for the user (its
/// `Display`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub line: Option<usize>,
    pub column: Option<usize>,
    message: String,
}

impl ReadError {
    /// An error of the input as a whole, or of a read, with no position.
    fn plain(message: String) -> ReadError {
        ReadError {
            line: None,
            column: None,
            message,
        }
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ReadError {}

/// Why an Extended JSON value is not a BSON document.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    #[error("not valid Extended JSON: {0}")]
    Convert(#[from] legacy::ConvertError),
    /// What it is instead ("an array", "null" …).
    #[error("expected a document, found {0}")]
    NotADocument(&'static str),
    #[error("document cannot be encoded as BSON: {0}")]
    Encode(#[from] bson::error::Error),
}

/// Converts one Extended JSON value (which must be an object) to BSON bytes.
pub(crate) fn to_bson_bytes(
    value: serde_json::Value,
    out: &mut Vec<u8>,
) -> Result<(), DocumentError> {
    let b = to_bson(value)?;
    let bson::Bson::Document(doc) = b else {
        return Err(DocumentError::NotADocument(bson_kind(&b)));
    };
    out.clear();
    Ok(doc.to_writer(out)?)
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

/// The read buffer's size once the input has proved large; it only grows
/// beyond this for a single document that does not fit.
const CHUNK: usize = 8 << 20;
/// The read buffer's first size, so that small files cost little.
const FIRST_CHUNK: usize = 64 << 10;
/// The UTF-8 byte-order mark some editors put at the start of a file.
pub const BOM: &[u8] = b"\xef\xbb\xbf";

/// Reads every document of an Extended JSON stream, calling `each` with its
/// BSON bytes. Returns the number of documents, or a message locating the
/// first syntax error (line and column).
///
/// Concatenated documents (one per line, as `mongoexport` writes them) are
/// parsed on as many threads as the profiler uses (`DOCSHAPE_THREADS`, else
/// the cores available); see [`read_documents_on`].
pub fn read_documents<R: Read>(reader: R, each: &mut dyn FnMut(&[u8])) -> Result<u64, ReadError> {
    read_documents_on(reader, crate::profile::threads_from_env(), each)
}

/// As [`read_documents`], handing the documents to `sink`: those parsed on
/// worker threads go to [`Sink::documents`] a job at a time, uncopied. An
/// input of `size` bytes past [`LARGE_INPUT`] is parsed on every core from
/// its start.
pub(crate) fn read_documents_into<R: Read>(
    reader: R,
    size: Option<u64>,
    sink: &mut dyn Sink,
) -> Result<u64, ReadError> {
    let mut tuning = parallel::Tuning::threads(crate::profile::threads_from_env());
    if size.is_some_and(|s| s >= LARGE_INPUT) {
        tuning.after = 0;
    }
    read_tuned(reader, CHUNK, tuning, sink)
}

/// As [`read_documents`], with concatenated documents parsed on `threads`
/// threads (1: on the caller's thread only). The documents reach `each` in
/// the file's order, on the caller's thread, and the result — documents and
/// error messages — is the same whatever the number of threads.
pub fn read_documents_on<R: Read>(
    reader: R,
    threads: usize,
    each: &mut dyn FnMut(&[u8]),
) -> Result<u64, ReadError> {
    read_tuned(reader, CHUNK, parallel::Tuning::threads(threads), &mut {
        each
    })
}

/// As [`read_documents_on`], with the workers starting after `after` bytes
/// and taking `job_bytes` of documents at a time instead of the defaults:
/// for tests and fuzzing, which compare it with one thread on small inputs.
#[doc(hidden)]
pub fn read_documents_split<R: Read>(
    reader: R,
    threads: usize,
    after: usize,
    job_bytes: usize,
    each: &mut dyn FnMut(&[u8]),
) -> Result<u64, ReadError> {
    let tuning = parallel::Tuning {
        threads: threads.max(1),
        after,
        job_bytes: job_bytes.max(1),
    };
    read_tuned(reader, CHUNK, tuning, &mut { each })
}

#[cfg(test)]
fn read_chunked<R: Read>(
    reader: R,
    chunk: usize,
    each: &mut dyn FnMut(&[u8]),
) -> Result<u64, ReadError> {
    read_tuned(reader, chunk, parallel::Tuning::threads(1), &mut { each })
}

fn read_tuned<R: Read>(
    reader: R,
    chunk: usize,
    tuning: parallel::Tuning,
    each: &mut dyn Sink,
) -> Result<u64, ReadError> {
    let mut input = Input {
        reader,
        buf: Vec::new(),
        size: 0,
        eof: false,
        failed: None,
        chunk: chunk.max(1),
        line: 1,
        col: 0,
        offset: 0,
        tracked: true,
    };
    // A byte-order mark, then leading white space; lines and columns count
    // from the first other byte.
    while input.buf.len() < BOM.len() && !input.eof {
        input.fill_from(0);
    }
    if input.buf.starts_with(BOM) {
        input.buf.drain(..BOM.len());
    }
    let first = loop {
        if let Some(i) = input.buf.iter().position(|b| !b.is_ascii_whitespace()) {
            input.buf.drain(..i);
            break input.buf[0];
        }
        input.buf.clear();
        if input.eof {
            return input.finish(0);
        }
        input.fill_from(0);
    };
    let parallel_at = tuning.after as u64;
    let mut r = Reader {
        input,
        ctx: Ctx::default(),
        scratch: Vec::new(),
        count: 0,
        each,
        tuning,
        parallel_at,
        lines: true,
    };
    match first {
        b'[' => r.array(),
        b'{' => r.stream(),
        other => Err(ReadError::plain(format!(
            "not Extended JSON: expected '{{' or '[' but the file starts with {}",
            describe_byte(other)
        ))),
    }
}

fn describe_byte(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

/// The buffered input: `buf` holds unread bytes; `line` and `col` are
/// the position of `buf[0]` (line from 1, column in bytes from 0, as
/// `serde_json` counts them).
struct Input<R> {
    reader: R,
    buf: Vec<u8>,
    /// The buffer's size: how many bytes it may hold.
    size: usize,
    /// No more bytes will come: the input ended, or a read failed.
    eof: bool,
    /// The read error that ended the input, reported once the bytes read
    /// before it are used up, as the old parser reported it.
    failed: Option<(std::io::ErrorKind, String)>,
    chunk: usize,
    line: usize,
    col: usize,
    /// Bytes of the input before `buf[0]`.
    offset: u64,
    /// Whether `line` and `col` follow the bytes dropped; off while worker
    /// threads parse the input, which count its lines themselves.
    tracked: bool,
}

impl<R: Read> Input<R> {
    /// Drops `buf[..from]`, moves the rest to the front and reads more:
    /// until the buffer is full or the input ends. The buffer grows when the
    /// bytes kept fill it (one document larger than the buffer), and while
    /// it is smaller than the chunk size.
    fn fill_from(&mut self, from: usize) {
        if self.tracked {
            (self.line, self.col) = self.position_of(from);
        }
        self.offset += from as u64;
        self.buf.drain(..from);
        let full = self.buf.len() == self.size;
        if full || self.size < self.chunk {
            let mut grown = (self.size * 2).max(FIRST_CHUNK.min(self.chunk));
            if !full {
                grown = grown.min(self.chunk);
            }
            self.size = grown;
        }
        let want = self.size - self.buf.len();
        self.buf.reserve_exact(want);
        // Until the buffer is full or the input ends.
        match self
            .reader
            .by_ref()
            .take(want as u64)
            .read_to_end(&mut self.buf)
        {
            Ok(n) => self.eof = n < want,
            Err(e) => {
                self.failed = Some((e.kind(), e.to_string()));
                self.eof = true;
            }
        }
    }
}

impl<R> Input<R> {
    /// The end of the input, after the last document: done, or the read
    /// error that ended it.
    fn finish(&self, count: u64) -> Result<u64, ReadError> {
        match &self.failed {
            Some((_, msg)) => Err(ReadError::plain(msg.clone())),
            None => Ok(count),
        }
    }

    /// Line and column of `buf[off]`.
    fn position_of(&self, off: usize) -> (usize, usize) {
        let before = &self.buf[..off];
        match before.iter().rposition(|&b| b == b'\n') {
            Some(last) => (self.line + count_newlines(before), off - last - 1),
            None => (self.line, self.col + off),
        }
    }

    /// Turns an error of the reference parser, which read `prefix` bytes of
    /// its own and then `buf[at..]`, into today's message.
    fn locate(&self, e: &serde_json::Error, at: usize, prefix: usize) -> ReadError {
        let (line, col) = if e.line() == 0 {
            (0, 0)
        } else {
            let (l0, c0) = self.position_of(at);
            if e.line() == 1 {
                (l0, c0 + e.column().saturating_sub(prefix))
            } else {
                (l0 + e.line() - 1, e.column())
            }
        };
        let msg = e.to_string();
        // serde_json appends " at line L column C"; keep one clear sentence.
        let core = msg.split(" at line ").next().unwrap_or(&msg);
        let (line_at, column_at, message) = if e.is_io() {
            if e.line() == 0 {
                (None, None, msg.clone())
            } else {
                (
                    Some(line),
                    Some(col),
                    format!("{core} at line {line} column {col}"),
                )
            }
        } else if e.is_eof() {
            (
                Some(line),
                None,
                format!("file ends in the middle of a document (line {line})"),
            )
        } else {
            (
                Some(line),
                Some(col),
                format!("line {line}, column {col}: {core}"),
            )
        };
        ReadError {
            line: line_at,
            column: column_at,
            message,
        }
    }
}

/// The number of `\n` in `bytes`, eight bytes at a time.
fn count_newlines(bytes: &[u8]) -> usize {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let mut chunks = bytes.chunks_exact(8);
    let mut n = 0;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        // A byte of `x` is zero where the byte is a newline.
        let x = u64::from_le_bytes(w) ^ (ONES * u64::from(b'\n'));
        let nonzero = ((x & !HIGH) + !HIGH) | x;
        n += (!nonzero & HIGH).count_ones() as usize;
    }
    n + chunks
        .remainder()
        .iter()
        .map(|&b| usize::from(b == b'\n'))
        .sum::<usize>()
}

fn skip_ws(buf: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = buf.get(i) {
        i += 1;
    }
    i
}

struct Reader<'e, R> {
    input: Input<R>,
    ctx: Ctx,
    scratch: Vec<u8>,
    count: u64,
    each: &'e mut dyn Sink,
    tuning: parallel::Tuning,
    /// Where in the input (a byte offset) the documents may next be handed
    /// to worker threads.
    parallel_at: u64,
    /// Whether jobs for the workers are cut at line ends (until a document
    /// is found running over one) rather than at object ends.
    lines: bool,
}

impl<R: Read> Reader<'_, R> {
    /// Concatenated documents (one per line, or pretty-printed).
    fn stream(&mut self) -> Result<u64, ReadError> {
        self.ctx.max_level = usize::MAX;
        let mut at = 0;
        loop {
            if self.tuning.threads > 1 && self.input.offset + at as u64 >= self.parallel_at {
                // Past the first bytes: the workers take over while the
                // input is well-formed objects, and this loop goes on
                // where they stopped (an error, anything else, the end).
                at = self.parallel(at);
                self.parallel_at = self.input.offset + (at + self.tuning.after.max(1)) as u64;
            }
            let buf = &self.input.buf[..];
            let p = skip_ws(buf, at);
            if p == buf.len() {
                if self.input.eof {
                    return self.input.finish(self.count);
                }
                self.input.fill_from(p);
                at = 0;
                continue;
            }
            if buf[p] == b'{' {
                match fast_document(&buf[p..], &mut self.ctx) {
                    Ok(n) => {
                        self.each.document(&self.ctx.out);
                        self.count += 1;
                        at = p + n;
                        continue;
                    }
                    Err(Fast::NeedMore) if !self.input.eof => {
                        self.input.fill_from(p);
                        at = 0;
                        continue;
                    }
                    Err(_) => {}
                }
            }
            let (step, hit_end) = reference_value(
                &buf[p..],
                self.input.failed.as_ref(),
                self.count,
                &mut self.scratch,
            );
            if hit_end && !self.input.eof {
                self.input.fill_from(p);
                at = 0;
                continue;
            }
            match step {
                Step::Element(n) => {
                    self.each.document(&self.scratch);
                    self.count += 1;
                    at = p + n;
                }
                Step::End(n) => at = p + n,
                Step::Failed(e) => return Err(self.input.locate(&e, p, 0)),
                Step::Unconvertible(msg) => return Err(ReadError::plain(msg)),
            }
        }
    }

    /// One JSON array of documents. `at` is where the old parser would next
    /// look for an element: the `[` itself (`first`), or just after the
    /// previous element.
    fn array(&mut self) -> Result<u64, ReadError> {
        // The array is one level of nesting already.
        self.ctx.max_level = MAX_LEVEL - 1;
        let mut at = 0;
        let mut first = true;
        loop {
            let buf = &self.input.buf[..];
            let mut need_more = false;
            match next_in_array(buf, at, first) {
                Slot::Element(e) if buf[e] == b'{' => match fast_document(&buf[e..], &mut self.ctx)
                {
                    Ok(n) => {
                        self.each.document(&self.ctx.out);
                        self.count += 1;
                        at = e + n;
                        first = false;
                        continue;
                    }
                    Err(Fast::NeedMore) => need_more = true,
                    Err(_) => {}
                },
                Slot::End(t) => return self.trailing(t),
                Slot::NeedMore => need_more = true,
                Slot::Element(_) | Slot::Other => {}
            }
            if need_more && !self.input.eof {
                self.input.fill_from(at);
                at = 0;
                continue;
            }
            let prefix: &'static [u8] = if first { b"" } else { b"[[]" };
            let (step, hit_end) = reference_element(
                &buf[at..],
                prefix,
                self.input.failed.as_ref(),
                self.count,
                &mut self.scratch,
            );
            if hit_end && !self.input.eof {
                self.input.fill_from(at);
                at = 0;
                continue;
            }
            match step {
                Step::Element(n) => {
                    self.each.document(&self.scratch);
                    self.count += 1;
                    at += n;
                    first = false;
                }
                Step::End(n) => return self.trailing(at + n),
                Step::Failed(e) => return Err(self.input.locate(&e, at, prefix.len())),
                Step::Unconvertible(msg) => return Err(ReadError::plain(msg)),
            }
        }
    }

    /// After the closing `]`: only white space may follow.
    fn trailing(&mut self, mut at: usize) -> Result<u64, ReadError> {
        loop {
            let buf = &self.input.buf[..];
            let p = skip_ws(buf, at);
            if p < buf.len() {
                let probe = Probe::new(&buf[p..], b"", self.input.failed.as_ref());
                let mut de = serde_json::Deserializer::from_reader(&probe);
                return match de.end() {
                    Ok(()) => Ok(self.count),
                    Err(e) => Err(self.input.locate(&e, p, 0)),
                };
            }
            if self.input.eof {
                return self.input.finish(self.count);
            }
            self.input.fill_from(p);
            at = 0;
        }
    }
}

enum Slot {
    /// An element starts here.
    Element(usize),
    /// The array ends just before here.
    End(usize),
    /// The buffer ends first.
    NeedMore,
    /// Anything else: the reference parser says what is wrong.
    Other,
}

fn next_in_array(buf: &[u8], at: usize, first: bool) -> Slot {
    let i = skip_ws(buf, if first { at + 1 } else { at });
    let Some(&c) = buf.get(i) else {
        return Slot::NeedMore;
    };
    if c == b']' {
        return Slot::End(i + 1);
    }
    if first {
        return Slot::Element(i);
    }
    if c != b',' {
        return Slot::Other;
    }
    let j = skip_ws(buf, i + 1);
    match buf.get(j) {
        None => Slot::NeedMore,
        Some(b']') => Slot::Other,
        Some(_) => Slot::Element(j),
    }
}

// ---------------------------------------------------------------------------
// The reference path: the old parser (serde_json over an `io::Read`, to a
// `serde_json::Value`, converted by the bson crate), one document at a time.

enum Step {
    /// A document, `n` bytes consumed; its BSON is in the scratch buffer.
    Element(usize),
    /// No document: `n` bytes of white space, or the end of the array.
    End(usize),
    Failed(serde_json::Error),
    Unconvertible(String),
}

/// `prefix` then `data`, a byte at a time (serde_json's `IoRead` asks for no
/// more); `pos` counts bytes served, `hit_end` says the parser wanted more
/// than `data` holds.
struct Probe<'a> {
    data: &'a [u8],
    prefix: &'static [u8],
    /// The read error that follows `data`, if any.
    failed: Option<&'a (std::io::ErrorKind, String)>,
    pos: Cell<usize>,
    hit_end: Cell<bool>,
}

impl<'a> Probe<'a> {
    fn new(
        data: &'a [u8],
        prefix: &'static [u8],
        failed: Option<&'a (std::io::ErrorKind, String)>,
    ) -> Self {
        Probe {
            data,
            prefix,
            failed,
            pos: Cell::new(0),
            hit_end: Cell::new(false),
        }
    }
}

impl Read for &Probe<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let Some(slot) = out.first_mut() else {
            return Ok(0);
        };
        let p = self.pos.get();
        let byte = match p.checked_sub(self.prefix.len()) {
            None => self.prefix[p],
            Some(i) => match self.data.get(i) {
                Some(&b) => b,
                None => {
                    self.hit_end.set(true);
                    return match self.failed {
                        Some((kind, msg)) => Err(std::io::Error::new(*kind, msg.clone())),
                        None => Ok(0),
                    };
                }
            },
        };
        *slot = byte;
        self.pos.set(p + 1);
        Ok(1)
    }
}

/// The next top-level value of a stream of concatenated documents.
fn reference_value(
    data: &[u8],
    failed: Option<&(std::io::ErrorKind, String)>,
    count: u64,
    scratch: &mut Vec<u8>,
) -> (Step, bool) {
    let probe = Probe::new(data, b"", failed);
    let mut values = serde_json::Deserializer::from_reader(&probe).into_iter::<Value>();
    let step = match values.next() {
        None => Step::End(values.byte_offset()),
        Some(Ok(v)) => match to_bson_bytes(v, scratch) {
            Ok(()) => Step::Element(values.byte_offset()),
            Err(e) => Step::Unconvertible(format!("document {}: {e}", count + 1)),
        },
        Some(Err(e)) => Step::Failed(e),
    };
    (step, probe.hit_end.get())
}

/// The next element of the array, the old way: `data` starts at the `[`
/// (no prefix) or just after the previous element, behind a stand-in first
/// element (`[[]`) so that the parser is in the same state as it was.
fn reference_element(
    data: &[u8],
    prefix: &'static [u8],
    failed: Option<&(std::io::ErrorKind, String)>,
    count: u64,
    scratch: &mut Vec<u8>,
) -> (Step, bool) {
    let probe = Probe::new(data, prefix, failed);
    let element_end = Cell::new(None);
    let mut de = serde_json::Deserializer::from_reader(&probe);
    let seed = OneElement {
        skip_first: !prefix.is_empty(),
        count,
        scratch,
        probe: &probe,
        element_end: &element_end,
    };
    let result = seed.deserialize(&mut de);
    let step = match (result, element_end.get()) {
        (_, Some(end)) => Step::Element(end - prefix.len()),
        (Ok(()), None) => Step::End(probe.pos.get() - prefix.len()),
        (Err(e), None) => Step::Failed(e),
    };
    let hit_end = probe.hit_end.get() && !matches!(step, Step::Element(_));
    (step, hit_end)
}

struct OneElement<'a, 'p> {
    skip_first: bool,
    count: u64,
    scratch: &'a mut Vec<u8>,
    probe: &'a Probe<'p>,
    element_end: &'a Cell<Option<usize>>,
}

impl<'de> DeserializeSeed<'de> for OneElement<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for OneElement<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON array of documents")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.skip_first {
            seq.next_element::<IgnoredAny>()?;
        }
        let Some(v) = seq.next_element::<Value>()? else {
            return Ok(());
        };
        to_bson_bytes(v, self.scratch)
            .map_err(|e| A::Error::custom(format!("document {}: {e}", self.count + 1)))?;
        self.element_end.set(Some(self.probe.pos.get()));
        // Stop here; the caller carries on from the element's end.
        Err(A::Error::custom("one element read"))
    }
}

// ---------------------------------------------------------------------------
// The fast path: from a slice, straight to BSON.

// BSON element types.
const DOUBLE: u8 = 0x01;
const STRING: u8 = 0x02;
const DOCUMENT: u8 = 0x03;
const ARRAY: u8 = 0x04;
const OBJECT_ID: u8 = 0x07;
const BOOLEAN: u8 = 0x08;
const DATE_TIME: u8 = 0x09;
const NULL: u8 = 0x0a;
const INT32: u8 = 0x10;
const INT64: u8 = 0x12;
const DECIMAL128: u8 = 0x13;

/// serde_json's nesting limit: 127 levels of arrays and objects.
const MAX_LEVEL: usize = 127;

#[derive(Default)]
struct Ctx {
    /// The document being written.
    out: Vec<u8>,
    /// Hashes of the keys of the objects being written (a stack).
    keys: Vec<u64>,
    /// Set when the reference path must decide.
    fallback: bool,
    /// The deepest level of nesting the old parser accepted here (the
    /// document is level 1), when that is less than serde_json's own limit.
    max_level: usize,
}

enum Fast {
    /// The document is cut by the end of the buffer.
    NeedMore,
    /// The reference path decides (a syntax error, or something the fast
    /// path does not do exactly as the bson crate does).
    Reference,
}

/// Parses the object at the start of `data` into `ctx.out`; returns the
/// number of bytes it took.
fn fast_document(data: &[u8], ctx: &mut Ctx) -> Result<usize, Fast> {
    ctx.out.clear();
    ctx.keys.clear();
    ctx.fallback = false;
    let mut de = serde_json::Deserializer::from_slice(data);
    match TopSeed(ctx).deserialize(&mut de) {
        Ok(()) => Ok(de.into_iter::<IgnoredAny>().byte_offset()),
        Err(_) if ctx.fallback => Err(Fast::Reference),
        Err(e) if e.is_eof() || near_end(data, &e) => Err(Fast::NeedMore),
        Err(_) => Err(Fast::Reference),
    }
}

/// Whether a syntax error is at the very end of `data`, where a number cut
/// short (`1e`, `-`) is an error that more bytes would mend.
fn near_end(data: &[u8], e: &serde_json::Error) -> bool {
    let mut line_start = 0;
    if e.line() > 1 {
        let mut line = 1;
        for (i, &b) in data.iter().enumerate() {
            if b == b'\n' {
                line += 1;
                if line == e.line() {
                    line_start = i + 1;
                    break;
                }
            }
        }
    }
    line_start + e.column() + 4 >= data.len()
}

fn fallback<E: serde::de::Error>(ctx: &mut Ctx) -> E {
    ctx.fallback = true;
    E::custom("handed to the reference path")
}

/// The keys that make the bson crate read an object as an Extended JSON
/// wrapper wherever they appear in it.
fn is_wrapper_key(k: &str) -> bool {
    matches!(
        k,
        "$oid"
            | "$symbol"
            | "$regularExpression"
            | "$numberInt"
            | "$numberLong"
            | "$numberDouble"
            | "$numberDecimal"
            | "$binary"
            | "$uuid"
            | "$code"
            | "$timestamp"
            | "$date"
            | "$minKey"
            | "$maxKey"
            | "$dbPointer"
            | "$undefined"
    )
}

/// A hash of a key, or `None` when it holds a NUL byte (which a BSON key
/// cannot hold).
fn key_hash(b: &[u8]) -> Option<u64> {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    let mut h = (b.len() as u64).wrapping_mul(K);
    let mut nul = 0;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let w = u64::from_le_bytes(w);
        // Non-zero when a byte of `w` is zero.
        nul |= w.wrapping_sub(ONES) & !w & HIGH;
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        if rest.contains(&0) {
            return None;
        }
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
    }
    (nul == 0).then_some(h)
}

/// Keys' hashes are hashes already.
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

type KeySet = HashSet<u64, std::hash::BuildHasherDefault<KeyHasher>>;

/// Writes the BSON length of the document or array that starts at `start`.
fn patch_len<E: serde::de::Error>(ctx: &mut Ctx, start: usize) -> Result<(), E> {
    let Ok(len) = i32::try_from(ctx.out.len() - start) else {
        return Err(fallback(ctx));
    };
    ctx.out[start..start + 4].copy_from_slice(&len.to_le_bytes());
    Ok(())
}

/// Writes an ordinary key: a placeholder type byte, then the key.
fn write_key(out: &mut Vec<u8>, k: &str) {
    out.push(0);
    out.extend_from_slice(k.as_bytes());
    out.push(0);
}

fn write_int(out: &mut Vec<u8>, v: i64) -> u8 {
    if let Ok(v) = i32::try_from(v) {
        out.extend_from_slice(&v.to_le_bytes());
        INT32
    } else {
        out.extend_from_slice(&v.to_le_bytes());
        INT64
    }
}

fn write_index(out: &mut Vec<u8>, i: usize) {
    if i < 10 {
        out.push(b'0' + i as u8);
    } else {
        let mut digits = [0u8; 20];
        let mut n = i;
        let mut p = digits.len();
        while n > 0 {
            p -= 1;
            digits[p] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        out.extend_from_slice(&digits[p..]);
    }
    out.push(0);
}

struct TopSeed<'c>(&'c mut Ctx);

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a document")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let ctx = self.0;
        ctx.out.extend_from_slice(&[0; 4]);
        let base = ctx.keys.len();
        match map.next_key_seed(FirstKey(ctx))? {
            None => {
                ctx.out.push(0);
                patch_len(ctx, 0)
            }
            Some(Key::Dollar(k)) => {
                // A wrapper at the top: exactly the old conversion, which
                // may well say it is not a document.
                let obj = Value::Object(collect_rest(k, &mut map)?);
                if ctx.max_level < MAX_LEVEL && value_depth(&obj) > ctx.max_level {
                    return Err(fallback(ctx));
                }
                match to_bson_bytes(obj, &mut ctx.out) {
                    Ok(()) => Ok(()),
                    Err(_) => Err(fallback(ctx)),
                }
            }
            Some(Key::Written) => write_members(ctx, 1, 0, base, map).map(|_| ()),
        }
    }
}

/// Reads the rest of an object whose first key is `k`, as serde_json's own
/// `Value` does.
fn collect_rest<'de, A: MapAccess<'de>>(
    k: Cow<'de, str>,
    map: &mut A,
) -> Result<Map<String, Value>, A::Error> {
    let mut m = Map::new();
    m.insert(k.into_owned(), map.next_value()?);
    while let Some((k, v)) = map.next_entry()? {
        m.insert(k, v);
    }
    Ok(m)
}

/// Levels of arrays and objects in `v` (a scalar is 0).
fn value_depth(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(value_depth).max().unwrap_or(0),
        Value::Object(m) => 1 + m.values().map(value_depth).max().unwrap_or(0),
        _ => 0,
    }
}

enum Key<'de> {
    /// An ordinary key, written.
    Written,
    /// A first key that starts with `$`: maybe a wrapper.
    Dollar(Cow<'de, str>),
}

/// The first key of an object.
struct FirstKey<'c>(&'c mut Ctx);

impl<'de> DeserializeSeed<'de> for FirstKey<'_> {
    type Value = Key<'de>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for FirstKey<'_> {
    type Value = Key<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, k: &'de str) -> Result<Key<'de>, E> {
        if k.starts_with('$') {
            return Ok(Key::Dollar(Cow::Borrowed(k)));
        }
        self.visit_str(k)
    }
    fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<Key<'de>, E> {
        if k.starts_with('$') {
            return Ok(Key::Dollar(Cow::Owned(k.to_owned())));
        }
        let ctx = self.0;
        let Some(h) = key_hash(k.as_bytes()) else {
            return Err(fallback(ctx));
        };
        ctx.keys.push(h);
        write_key(&mut ctx.out, k);
        Ok(Key::Written)
    }
}

/// The second and later keys of an ordinary object.
struct NextKey<'c, 's> {
    ctx: &'c mut Ctx,
    base: usize,
    /// For a wide object, the hashes of its keys in a set.
    set: &'s mut Option<KeySet>,
}

impl<'de> DeserializeSeed<'de> for NextKey<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for NextKey<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<(), E> {
        let ctx = self.ctx;
        if k.starts_with('$') && is_wrapper_key(k) {
            return Err(fallback(ctx));
        }
        // A repeated key: serde_json's map keeps the last value in the first
        // place; the reference path does exactly that.
        let Some(h) = key_hash(k.as_bytes()) else {
            return Err(fallback(ctx));
        };
        if let Some(set) = self.set {
            if !set.insert(h) {
                return Err(fallback(ctx));
            }
        } else {
            if ctx.keys[self.base..].contains(&h) {
                return Err(fallback(ctx));
            }
            ctx.keys.push(h);
            if ctx.keys.len() - self.base >= 32 {
                *self.set = Some(ctx.keys[self.base..].iter().copied().collect());
            }
        }
        write_key(&mut ctx.out, k);
        Ok(())
    }
}

/// Writes the rest of an ordinary object that starts at `start`, its first
/// key written: the values, and the other members.
fn write_members<'de, A: MapAccess<'de>>(
    ctx: &mut Ctx,
    level: usize,
    start: usize,
    base: usize,
    mut map: A,
) -> Result<u8, A::Error> {
    let mut set = None;
    // The first key was written just after the length.
    let mut tpos = start + 4;
    loop {
        let t = map.next_value_seed(ValueSeed { ctx, level })?;
        ctx.out[tpos] = t;
        tpos = ctx.out.len();
        let more = map.next_key_seed(NextKey {
            ctx,
            base,
            set: &mut set,
        })?;
        if more.is_none() {
            break;
        }
    }
    ctx.keys.truncate(base);
    ctx.out.push(0);
    patch_len(ctx, start)?;
    Ok(DOCUMENT)
}

/// The value of a member or element, written; its BSON type is returned.
struct ValueSeed<'c> {
    ctx: &'c mut Ctx,
    /// The level of the object or array that holds the value.
    level: usize,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = u8;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<u8, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = u8;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<u8, E> {
        self.ctx.out.push(u8::from(v));
        Ok(BOOLEAN)
    }
    // Numbers as `Bson::try_from(Value)` has them: an integer that fits in
    // i32 is Int32, else Int64; an integer beyond i64 and any other number
    // is a Double.
    fn visit_i64<E>(self, v: i64) -> Result<u8, E> {
        Ok(write_int(&mut self.ctx.out, v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<u8, E> {
        if let Ok(v) = i64::try_from(v) {
            Ok(write_int(&mut self.ctx.out, v))
        } else {
            self.ctx.out.extend_from_slice(&(v as f64).to_le_bytes());
            Ok(DOUBLE)
        }
    }
    fn visit_f64<E>(self, v: f64) -> Result<u8, E> {
        // serde_json's Value has no non-finite numbers: they become null.
        if v.is_finite() {
            self.ctx.out.extend_from_slice(&v.to_le_bytes());
            Ok(DOUBLE)
        } else {
            Ok(NULL)
        }
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<u8, E> {
        let Ok(len) = i32::try_from(v.len() + 1) else {
            return Err(fallback(self.ctx));
        };
        let out = &mut self.ctx.out;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(v.as_bytes());
        out.push(0);
        Ok(STRING)
    }
    fn visit_unit<E>(self) -> Result<u8, E> {
        Ok(NULL)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u8, A::Error> {
        let ctx = self.ctx;
        let level = self.level + 1;
        if level > ctx.max_level {
            return Err(fallback(ctx));
        }
        let start = ctx.out.len();
        ctx.out.extend_from_slice(&[0; 4]);
        let mut i = 0;
        loop {
            let tpos = ctx.out.len();
            ctx.out.push(0);
            write_index(&mut ctx.out, i);
            match seq.next_element_seed(ValueSeed { ctx, level })? {
                Some(t) => ctx.out[tpos] = t,
                None => {
                    ctx.out.truncate(tpos);
                    break;
                }
            }
            i += 1;
        }
        ctx.out.push(0);
        patch_len(ctx, start)?;
        Ok(ARRAY)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u8, A::Error> {
        let ctx = self.ctx;
        let level = self.level + 1;
        if level > ctx.max_level {
            return Err(fallback(ctx));
        }
        let start = ctx.out.len();
        ctx.out.extend_from_slice(&[0; 4]);
        let base = ctx.keys.len();
        match map.next_key_seed(FirstKey(ctx))? {
            None => {
                ctx.out.push(0);
                patch_len(ctx, start)?;
                Ok(DOCUMENT)
            }
            Some(Key::Dollar(k)) => {
                ctx.out.truncate(start);
                write_wrapper(ctx, level, k, map)
            }
            Some(Key::Written) => write_members(ctx, level, start, base, map),
        }
    }
}

/// An object whose first key `key` starts with `$`, at `level`: converted
/// as the bson crate converts it, and its value written.
fn write_wrapper<'de, A: MapAccess<'de>>(
    ctx: &mut Ctx,
    level: usize,
    key: Cow<'de, str>,
    mut map: A,
) -> Result<u8, A::Error> {
    let bounded = ctx.max_level < MAX_LEVEL;
    let first = map.next_value_seed(WrapperValue)?;
    let depth = match &first {
        Wrapped::Str(_) => 0,
        Wrapped::Long(_) => 1,
        Wrapped::Other(value) => value_depth(value),
    };
    if bounded && level + depth > ctx.max_level {
        return Err(fallback(ctx));
    }
    let second: Option<String> = map.next_key()?;
    if second.is_none() {
        if let Some(t) = write_common_wrapper(&mut ctx.out, &key, &first) {
            return Ok(t);
        }
    }
    let mut members = Map::new();
    members.insert(key.into_owned(), first.into_value());
    if let Some(second) = second {
        members.insert(second, map.next_value()?);
        while let Some((key, value)) = map.next_entry()? {
            members.insert(key, value);
        }
    }
    let obj = Value::Object(members);
    if bounded && level - 1 + value_depth(&obj) > ctx.max_level {
        return Err(fallback(ctx));
    }
    let Ok(b) = to_bson(obj) else {
        return Err(fallback(ctx));
    };
    // The value's bytes, as the bson crate writes them in a document.
    let mut d = bson::Document::new();
    d.insert("", b);
    match bson::serialize_to_vec(&d) {
        // length, type, "" and its NUL, value, the document's NUL
        Ok(bytes) if bytes.len() >= 7 => {
            ctx.out.extend_from_slice(&bytes[6..bytes.len() - 1]);
            Ok(bytes[4])
        }
        _ => Err(fallback(ctx)),
    }
}

/// The value of a wrapper's first member: a string or a `$numberLong`
/// object as it is, anything else as serde_json's own `Value`.
enum Wrapped<'de> {
    Str(Cow<'de, str>),
    /// `{"$numberLong": "…"}`
    Long(Cow<'de, str>),
    Other(Value),
}

impl Wrapped<'_> {
    fn into_value(self) -> Value {
        match self {
            Wrapped::Str(s) => Value::String(s.into_owned()),
            Wrapped::Long(s) => {
                let mut m = Map::new();
                m.insert("$numberLong".to_owned(), Value::String(s.into_owned()));
                Value::Object(m)
            }
            Wrapped::Other(v) => v,
        }
    }
}

struct WrapperValue;

/// A key, borrowed when it has no escapes.
struct CowKey;

impl<'de> DeserializeSeed<'de> for CowKey {
    type Value = Cow<'de, str>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for CowKey {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

impl<'de> DeserializeSeed<'de> for WrapperValue {
    type Value = Wrapped<'de>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Wrapped<'de>, D::Error> {
        d.deserialize_any(self)
    }
}

/// Builds what serde_json's `Value` visitor builds, short of the two cases
/// that need no allocation.
impl<'de> Visitor<'de> for WrapperValue {
    type Value = Wrapped<'de>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Wrapped<'de>, E> {
        Ok(Wrapped::Other(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Wrapped<'de>, E> {
        Ok(Wrapped::Other(Value::Number(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Wrapped<'de>, E> {
        Ok(Wrapped::Other(Value::Number(v.into())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Wrapped<'de>, E> {
        Ok(Wrapped::Other(
            serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Wrapped<'de>, E> {
        Ok(Wrapped::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Wrapped<'de>, E> {
        Ok(Wrapped::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_unit<E>(self) -> Result<Wrapped<'de>, E> {
        Ok(Wrapped::Other(Value::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Wrapped<'de>, A::Error> {
        let mut v = Vec::new();
        while let Some(e) = seq.next_element()? {
            v.push(e);
        }
        Ok(Wrapped::Other(Value::Array(v)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Wrapped<'de>, A::Error> {
        let Some(k) = map.next_key_seed(CowKey)? else {
            return Ok(Wrapped::Other(Value::Object(Map::new())));
        };
        let first = map.next_value_seed(WrapperValue)?;
        let next: Option<String> = map.next_key()?;
        if next.is_none() && k == "$numberLong" {
            if let Wrapped::Str(s) = first {
                return Ok(Wrapped::Long(s));
            }
        }
        let mut m = Map::new();
        m.insert(k.into_owned(), first.into_value());
        if let Some(k2) = next {
            m.insert(k2, map.next_value()?);
            while let Some((k, v)) = map.next_entry()? {
                m.insert(k, v);
            }
        }
        Ok(Wrapped::Other(Value::Object(m)))
    }
}

/// The commonest wrappers, written directly (with the bson crate's own
/// parsing where it is not trivial); `None` when it is not one of them, or
/// is not valid.
fn write_common_wrapper(out: &mut Vec<u8>, k: &str, v: &Wrapped) -> Option<u8> {
    let s = match v {
        Wrapped::Str(s) => s,
        Wrapped::Long(s) if k == "$date" => {
            let ms: i64 = s.parse().ok()?;
            out.extend_from_slice(&ms.to_le_bytes());
            return Some(DATE_TIME);
        }
        _ => return None,
    };
    match k {
        "$oid" => {
            out.extend_from_slice(&parse_object_id(s.as_bytes())?);
            Some(OBJECT_ID)
        }
        "$date" => {
            out.extend_from_slice(&date_millis(s)?.to_le_bytes());
            Some(DATE_TIME)
        }
        "$numberDecimal" => {
            let bytes = match parse_plain_decimal(s.as_bytes()) {
                Some(b) => b,
                None => s.parse::<bson::Decimal128>().ok()?.bytes(),
            };
            out.extend_from_slice(&bytes);
            Some(DECIMAL128)
        }
        "$numberLong" => {
            let v: i64 = s.parse().ok()?;
            out.extend_from_slice(&v.to_le_bytes());
            Some(INT64)
        }
        "$numberInt" => {
            let v: i32 = s.parse().ok()?;
            out.extend_from_slice(&v.to_le_bytes());
            Some(INT32)
        }
        "$numberDouble" => {
            let v = match s.as_ref() {
                "Infinity" => f64::INFINITY,
                "-Infinity" => f64::NEG_INFINITY,
                "NaN" => f64::NAN,
                other => other.parse().ok()?,
            };
            out.extend_from_slice(&v.to_le_bytes());
            Some(DOUBLE)
        }
        _ => None,
    }
}

/// 24 hexadecimal digits, either case, as `ObjectId::parse_str` reads them.
fn parse_object_id(s: &[u8]) -> Option<[u8; 12]> {
    /// The value of each hexadecimal digit; 0xff for other bytes.
    const HEX: [u8; 256] = {
        let mut t = [0xff; 256];
        let mut i = 0;
        while i < 10 {
            t[b'0' as usize + i] = i as u8;
            i += 1;
        }
        let mut i = 0;
        while i < 6 {
            t[b'a' as usize + i] = 10 + i as u8;
            t[b'A' as usize + i] = 10 + i as u8;
            i += 1;
        }
        t
    };
    if s.len() != 24 {
        return None;
    }
    let mut id = [0u8; 12];
    let mut bad = 0;
    for (byte, pair) in id.iter_mut().zip(s.chunks_exact(2)) {
        let (hi, lo) = (HEX[usize::from(pair[0])], HEX[usize::from(pair[1])]);
        bad |= hi | lo;
        *byte = (hi << 4) | lo;
    }
    (bad & 0xf0 == 0).then_some(id)
}

/// A plain decimal (`-12.50`: a sign, digits, at most one point, no
/// exponent, at most 34 significant digits) as BSON Decimal128 bytes, the
/// way `bson::Decimal128::from_str` encodes it: the digits as the
/// coefficient, the exponent minus the number of digits after the point.
/// `None` for anything else, which the bson crate then parses.
fn parse_plain_decimal(s: &[u8]) -> Option<[u8; 16]> {
    let (negative, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.len() > 40 {
        return None;
    }
    let mut coefficient: u128 = 0;
    let mut significant = 0;
    let mut after_point: Option<u16> = None;
    for &c in digits {
        match c {
            b'0'..=b'9' => {
                if coefficient > 0 || c != b'0' {
                    significant += 1;
                    if significant > 34 {
                        return None;
                    }
                }
                coefficient = coefficient * 10 + u128::from(c - b'0');
                if let Some(n) = &mut after_point {
                    *n += 1;
                }
            }
            b'.' if after_point.is_none() => after_point = Some(0),
            _ => return None,
        }
    }
    // Biased by 6176; at most 40 digits after the point, so never below
    // the smallest exponent.
    let exponent = 6176 - u128::from(after_point.unwrap_or(0));
    let bits = (u128::from(negative) << 127) | (exponent << 113) | coefficient;
    Some(bits.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(text: &str) -> Result<Vec<bson::Document>, ReadError> {
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
        let e = docs("{\"a\":1}\n{\"a\":}\n").expect_err("bad").to_string();
        assert!(e.contains("line 2"), "{e}");
        let e = docs("{\"a\":1}\n{\"a\":[1,2").expect_err("bad").to_string();
        assert!(e.contains("ends in the middle"), "{e}");
        let e = docs("[1, 2]").expect_err("bad").to_string();
        assert!(e.contains("expected a document"), "{e}");
        let e = docs("hello").expect_err("bad").to_string();
        assert!(e.contains("not Extended JSON"), "{e}");
    }

    #[test]
    fn an_error_carries_its_position() {
        let read = |text: &str| read_documents(text.as_bytes(), &mut |_| {}).expect_err("bad");
        let e = read("{\"a\":1}\n{\"a\":}\n");
        assert_eq!(e.line, Some(2), "{e:?}");
        let column = e.column.expect("a column");
        assert!(
            e.to_string()
                .starts_with(&format!("line 2, column {column}:")),
            "{e}"
        );
        // The same on two threads, with the workers starting at once.
        let split = read_documents_split("{\"a\":1}\n{\"a\":}\n".as_bytes(), 2, 0, 1, &mut |_| {})
            .expect_err("bad");
        assert_eq!(split, e);
        let e = read("{\"a\":1}\n{\"a\":[1,2");
        assert_eq!((e.line, e.column), (Some(2), None), "{e:?}");
        let e = read("hello");
        assert_eq!((e.line, e.column), (None, None), "{e:?}");
    }

    #[test]
    fn a_byte_order_mark_is_skipped_in_every_layout() {
        for text in [
            "{\"a\":1}\n{\"a\":2}\n",
            "[{\"a\":1},{\"a\":2}]",
            "{\"a\":1}{\"a\":2}",
            "{\n  \"a\": 1\n}\n{\n  \"a\": 2\n}\n",
        ] {
            let plain = docs(text).expect("without a mark");
            assert_eq!(plain.len(), 2);
            for chunk in [CHUNK, 1, 2, 4] {
                let mut out = Vec::new();
                let with = [BOM, text.as_bytes()].concat();
                read_chunked(&with[..], chunk, &mut |b| {
                    out.push(bson::Document::from_reader(b).expect("valid bson"));
                })
                .expect("with a mark");
                assert_eq!(out, plain, "{text:?} chunk {chunk}");
            }
        }
        // Only at the very start: elsewhere it is an error, located.
        let e = docs("{\"a\":1}\n\u{feff}{\"a\":2}")
            .expect_err("a mark inside")
            .to_string();
        assert!(e.contains("line 2"), "{e}");
        assert_eq!(docs("\u{feff}").expect("only a mark").len(), 0);
    }

    #[test]
    fn legacy_forms_read_as_what_they_mean() {
        let d = docs(concat!(
            r#"{"d":{"$date":"2009-04-01T00:00:00.000-0700"},"n":{"$date":1238569200000},"#,
            r#""b":{"$binary":"AQID","$type":"00"},"r":{"$regex":"^a","$options":"i"},"#,
            r#""u":{"$undefined":true},"p":{"$dbPointer":{"$ref":"db.c","$id":{"$oid":"5ca4bbcea2dd94ee58162a68"}}},"#,
            r#""ref":{"$ref":"c","$id":1},"nan":{"$numberDouble":"NaN"}}"#
        ))
        .expect("legacy forms");
        let d = &d[0];
        let when = bson::DateTime::from_millis(1_238_569_200_000);
        assert_eq!(
            when.try_to_rfc3339_string().ok().as_deref(),
            Some("2009-04-01T07:00:00Z")
        );
        assert_eq!(d.get("d"), Some(&bson::Bson::DateTime(when)));
        assert_eq!(d.get("n"), Some(&bson::Bson::DateTime(when)));
        assert_eq!(
            d.get("b"),
            Some(&bson::Bson::Binary(bson::Binary {
                subtype: bson::spec::BinarySubtype::Generic,
                bytes: vec![1, 2, 3],
            }))
        );
        assert_eq!(
            d.get("r"),
            Some(&bson::Bson::RegularExpression(bson::Regex {
                pattern: bson::raw::cstr!("^a").into(),
                options: bson::raw::cstr!("i").into(),
            }))
        );
        assert_eq!(d.get("u"), Some(&bson::Bson::Undefined));
        assert!(matches!(d.get("p"), Some(bson::Bson::DbPointer(_))));
        assert_eq!(
            d.get_document("ref").ok(),
            Some(&bson::doc! {"$ref": "c", "$id": 1})
        );
        assert!(matches!(d.get("nan"), Some(bson::Bson::Double(x)) if x.is_nan()));
    }

    #[test]
    fn a_nul_byte_in_a_key_is_an_error() {
        let e = docs("{\"a\\u0000b\": 1}")
            .expect_err("NUL in a key")
            .to_string();
        assert!(e.starts_with("document 1: "), "{e}");
        let e = docs("[{\"x\": {\"a\\u0000\": 1}}]")
            .expect_err("NUL in a key")
            .to_string();
        assert!(e.contains("document 1: "), "{e}");
    }

    /// The reader as it was before the fast path: serde_json from a
    /// `Read` to a `Value`, converted by the bson crate. The reference for
    /// the parity tests.
    mod old {
        use super::super::{describe_byte, to_bson_bytes, ReadError};
        use serde::de::{DeserializeSeed, SeqAccess, Visitor};
        use std::io::{BufRead, Read};

        pub(crate) fn read_documents<R: Read>(
            reader: R,
            each: &mut dyn FnMut(&[u8]),
        ) -> Result<u64, ReadError> {
            let mut reader = std::io::BufReader::with_capacity(1 << 16, reader);
            let mut at_start = true;
            let first = loop {
                let buf = reader
                    .fill_buf()
                    .map_err(|e| ReadError::plain(e.to_string()))?;
                if buf.is_empty() {
                    return Ok(0);
                }
                if std::mem::take(&mut at_start) && buf.starts_with(super::super::BOM) {
                    reader.consume(super::super::BOM.len());
                    continue;
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
            let mut handle = |v: serde_json::Value| -> Result<(), ReadError> {
                to_bson_bytes(v, &mut scratch)
                    .map_err(|e| ReadError::plain(format!("document {}: {e}", count + 1)))?;
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
                    let stream = serde_json::Deserializer::from_reader(reader)
                        .into_iter::<serde_json::Value>();
                    for v in stream {
                        let v = v.map_err(|e| locate(&e))?;
                        handle(v)?;
                    }
                }
                other => {
                    return Err(ReadError::plain(format!(
                        "not Extended JSON: expected '{{' or '[' but the file starts with {}",
                        describe_byte(other)
                    )))
                }
            }
            Ok(count)
        }

        /// The error as the old reader said it (with no position kept).
        fn locate(e: &serde_json::Error) -> ReadError {
            if e.is_io() {
                return ReadError::plain(e.to_string());
            }
            let msg = e.to_string();
            let core = msg.split(" at line ").next().unwrap_or(&msg);
            ReadError::plain(if e.is_eof() {
                format!("file ends in the middle of a document (line {})", e.line())
            } else {
                format!("line {}, column {}: {core}", e.line(), e.column())
            })
        }

        struct EachElement<'a>(&'a mut dyn FnMut(serde_json::Value) -> Result<(), ReadError>);

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
    }

    /// The count or the error, and the documents read.
    type Outcome = (Result<u64, ReadError>, Vec<Vec<u8>>);

    /// What the user is told of an outcome: the count, else the error's
    /// sentence (the old reader kept no position), and the documents.
    fn told(o: &Outcome) -> (Option<u64>, Option<String>, &[Vec<u8>]) {
        (
            o.0.as_ref().ok().copied(),
            o.0.as_ref().err().map(ToString::to_string),
            &o.1,
        )
    }

    fn run_old(input: &[u8]) -> Outcome {
        let mut out = Vec::new();
        let r = old::read_documents(input, &mut |b| out.push(b.to_vec()));
        (r, out)
    }

    fn run_new(input: &[u8], chunk: usize) -> Outcome {
        let mut out = Vec::new();
        let r = read_chunked(input, chunk, &mut |b| out.push(b.to_vec()));
        (r, out)
    }

    /// A reader that hands out at most `n` bytes a call.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn assert_parity(input: &[u8], chunks: &[usize]) {
        let want = run_old(input);
        for &chunk in chunks {
            let got = run_new(input, chunk);
            if told(&got) != told(&want) {
                let show = |o: &Outcome| (o.0.clone(), o.1.len());
                panic!(
                    "chunk {chunk}: new {:?} != old {:?}, docs equal: {}, input {:?}",
                    show(&got),
                    show(&want),
                    got.1 == want.1,
                    String::from_utf8_lossy(&input[..input.len().min(300)])
                );
            }
        }
        let mut out = Vec::new();
        let r = read_chunked(Trickle(input, 3), 1, &mut |b| out.push(b.to_vec()));
        assert_eq!(
            told(&(r, out)),
            told(&want),
            "short reads: {:?}",
            String::from_utf8_lossy(input)
        );
    }

    fn json_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                json_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }

    #[test]
    fn same_bson_as_the_old_reader_on_every_data_file() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        json_files(&root.join("sample-data"), &mut files);
        assert!(files.len() > 20, "sample-data is missing");
        json_files(&root.join("../shared/realdata"), &mut files);
        let check = |f: &std::path::PathBuf| {
            let data = std::fs::read(f).expect("read");
            let want = run_old(&data);
            let got = run_new(&data, CHUNK);
            assert!(
                told(&got) == told(&want),
                "{}: {:?} != {:?}",
                f.display(),
                got.0,
                want.0
            );
            // The start of the file through a small buffer, and as one JSON
            // array (the whole file would make this test slow).
            let text = String::from_utf8_lossy(&data[..data.len().min(12_000)]);
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            if lines.len() > 2 && lines[0].starts_with('{') {
                let lines = &lines[..lines.len() - 1];
                let ndjson = lines.join("\n");
                assert_parity(ndjson.as_bytes(), &[1000]);
                let array = format!("[\n{}\n]\n", lines.join(",\n"));
                assert_parity(array.as_bytes(), &[4096]);
            }
            want.1.len()
        };
        // Two threads: the old reader is slow in a debug build.
        let (odd, even): (Vec<_>, Vec<_>) = files.iter().enumerate().partition(|(i, _)| i % 2 == 1);
        let total: usize = std::thread::scope(|s| {
            let other = s.spawn(|| odd.iter().map(|(_, f)| check(f)).sum::<usize>());
            even.iter().map(|(_, f)| check(f)).sum::<usize>() + other.join().expect("thread")
        });
        assert!(total > 1000);
    }

    const EDGE_CASES: &[&str] = &[
        r#"{"i":0,"a":2147483647,"b":2147483648,"c":-2147483648,"d":-2147483649}"#,
        r#"{"a":9223372036854775807,"b":9223372036854775808,"c":-9223372036854775808,"d":18446744073709551615,"e":18446744073709551616}"#,
        r#"{"a":-9223372036854775809,"b":123456789012345678901234567890,"c":-0,"d":-0.0,"e":0.0}"#,
        r#"{"a":1e308,"b":-1e308,"c":1.7976931348623157e308,"d":5e-324,"e":1e-400,"f":2.5E+3,"g":1E2,"h":1e0,"i":-1.5e-7}"#,
        r#"{"a":1e400}"#,
        r#"{"a":0.1,"b":0.30000000000000004,"c":3.141592653589793238462643383279,"d":100000000000000000000000}"#,
        r#"{"s":"plain","t":"esc\"aped\\ \/ \b\f\n\r\t","u":"\u00e9\u4e2d\ud83d\ude00","v":"é中😀","w":"","x":"nul\u0000inside"}"#,
        r#"{"\u00e9":1,"k\"q":2,"":3,"a.b":4,"\ud83d\ude00":5}"#,
        r#"{"s":"\ud800"}"#,
        r#"{"\ud800":1}"#,
        r#"{"a":1,"\udc00x":1}"#,
        r#"{"\u0024oid":"5ca4bbcea2dd94ee58162a68"}"#,
        r#"{"x":{"\u0024oid":"5ca4bbcea2dd94ee58162a68"}}"#,
        r#"{"a":1,"\u0024oid":"5ca4bbcea2dd94ee58162a68"}"#,
        r#"{"a\u0009b":1,"c\nd":2}"#,
        r#"{"$\u0009x":1}"#,
        r#"{"x":{"$\u0009x":1}}"#,
        r#"{"x":{"$\u0000x":1}}"#,
        r#"{"x":{"a":1,"b\u0000":1}}"#,
        "{\"a\tb\":1}",
        "{\"x\":1,\"a\tb\":1}",
        "{\"$a\tb\":1}",
        "{\"x\":{\"$a\u{1f}b\":1}}",
        "{\"x\":\"a\tb\"}",
        r#"{"s":"\udc00x"}"#,
        r#"{"e":{},"f":[],"g":[[]],"h":[{}],"i":{"j":{}},"k":null,"t":true,"u":false}"#,
        r"{}",
        r#"{"$oid":"5ca4bbcea2dd94ee58162a68"}"#,
        r#"{"$foo":1,"bar":2}"#,
        r#"{"x":{"$foo":1,"bar":2}}"#,
        r#"{"a":1,"$foo":2,"b":{"c":3,"$bar":[1]}}"#,
        r#"{"a":1,"$oid":"5ca4bbcea2dd94ee58162a68"}"#,
        r#"{"a":{"b":1,"$date":"2019-01-01T00:00:00Z"}}"#,
        r#"{"a":{"b":1,"$numberLong":"5"}}"#,
        r#"{"a":{"$oid":"5ca4bbcea2dd94ee58162a68","b":1}}"#,
        r#"{"a":{"$foo":1,"$oid":"5ca4bbcea2dd94ee58162a68"}}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"a":1,"b":2,"a":{"x":1}}"#,
        r#"{"x":{"a":[1],"b":2,"a":3},"y":{"a":1}}"#,
        r#"{"$foo":1,"$foo":2}"#,
        r#"{"a\u0000b":1}"#,
        r#"{"x":[{"a\u0000":1}]}"#,
        r#"{"x":{"$foo":1,"a\u0000":2}}"#,
        r#"{"$foo":1,"a\u0000":2}"#,
        r#"{"a":[{"$oid":"5ca4bbcea2dd94ee58162a68"},{"$date":"2019-01-01T00:00:00Z"},{"$numberDecimal":"1.10"},[{"$numberLong":"7"}]]}"#,
        r#"{"d1":{"$date":"2019-01-01T00:00:00Z"},"d2":{"$date":"2019-01-01T00:00:00.123+02:00"},"d3":{"$date":{"$numberLong":"-62135596800000"}},"d4":{"$date":1546300800000},"d5":{"$date":"1969-12-31T23:59:59.999Z"},"d6":{"$date":"2019-01-01t00:00:00z"},"d7":{"$date":"9999-12-31T23:59:59.999999999Z"}}"#,
        r#"{"d":{"$date":"not a date"}}"#,
        r#"{"d":{"$date":{"$numberLong":"x"}}}"#,
        r#"{"d":{"$date":{"$numberLong":"1","x":2}}}"#,
        r#"{"d":{"$date":-1.5}}"#,
        r#"{"d":{"$date":18446744073709551615}}"#,
        r#"{"n":{"$numberInt":"2147483647"},"m":{"$numberInt":"-2147483648"},"l":{"$numberLong":"9223372036854775807"},"k":{"$numberLong":"+5"},"j":{"$numberInt":"007"}}"#,
        r#"{"n":{"$numberInt":"2147483648"}}"#,
        r#"{"n":{"$numberInt":5}}"#,
        r#"{"n":{"$numberLong":"1.5"}}"#,
        r#"{"f":{"$numberDouble":"Infinity"},"g":{"$numberDouble":"-Infinity"},"h":{"$numberDouble":"NaN"},"i":{"$numberDouble":"1.5e300"},"j":{"$numberDouble":"-0.0"},"k":{"$numberDouble":"inf"}}"#,
        r#"{"f":{"$numberDouble":"one"}}"#,
        r#"{"a":{"$numberDecimal":"1.10"},"b":{"$numberDecimal":"-0"},"c":{"$numberDecimal":"NaN"},"d":{"$numberDecimal":"Infinity"},"e":{"$numberDecimal":"1E+6144"},"f":{"$numberDecimal":"123456789012345678901234567890123456"}}"#,
        r#"{"a":{"$numberDecimal":"abc"}}"#,
        r#"{"o":{"$oid":"5CA4BBCEA2DD94EE58162A68"}}"#,
        r#"{"o":{"$oid":"5ca4bbcea2dd94ee58162a6"}}"#,
        r#"{"o":{"$oid":5}}"#,
        r#"{"b":{"$binary":{"base64":"AQID","subType":"00"}},"c":{"$binary":{"base64":"AQID","subType":"80"}},"d":{"$binary":"AQID","$type":"00"}}"#,
        r#"{"b":{"$binary":{"base64":"AQID","subType":"0"}}}"#,
        r#"{"u":{"$uuid":"73ffd264-44b3-4c69-90e8-e7d1dfc035d4"}}"#,
        r#"{"u":{"$uuid":"nope"}}"#,
        r#"{"r":{"$regularExpression":{"pattern":"^a.*b$","options":"im"}},"s":{"$regex":"^x","$options":"i"}}"#,
        r#"{"r":{"$regularExpression":{"pattern":"a\u0000b","options":""}}}"#,
        r#"{"t":{"$timestamp":{"t":1565545664,"i":1}}}"#,
        r#"{"c":{"$code":"function(){}"},"cs":{"$code":"f()","$scope":{"x":1,"y":{"$numberLong":"2"}}}}"#,
        r#"{"m":{"$minKey":1},"x":{"$maxKey":1}}"#,
        r#"{"m":{"$minKey":2}}"#,
        r#"{"u":{"$undefined":true}}"#,
        r#"{"u":{"$undefined":false}}"#,
        r#"{"p":{"$dbPointer":{"$ref":"db.coll","$id":{"$oid":"5ca4bbcea2dd94ee58162a68"}}}}"#,
        r#"{"s":{"$symbol":"sym"}}"#,
        // Legacy forms: mongoexport before 4.2, pymongo's json_util.
        r#"{"d":{"$date":"2009-04-01T00:00:00.000-0700"},"e":{"$date":"2009-04-01T00:00:00-07"},"f":{"$date":"2009-04-01"},"g":{"$date":"2009-04-01T07:00"},"h":{"$date":"2009-04-01T07:00:00.123456789123"}}"#,
        r#"{"d":{"$date":1238569200000.5},"e":{"$date":-0.5},"f":{"$date":1e300},"g":{"$date":-1e19}}"#,
        r#"{"d":{"$date":"2009-02-29T00:00:00-0700"}}"#,
        r#"{"d":{"$date":"2009-04-01T00:00:00-0700","x":1}}"#,
        r#"{"d":{"x":1,"$date":"2009-04-01T00:00:00-0700"}}"#,
        r#"{"$date":"2009-04-01T00:00:00-0700"}"#,
        r#"{"b":{"$binary":"AQID","$type":"80"},"c":{"$type":"00","$binary":"AQID"},"d":{"$binary":"AQID","$type":4},"e":{"$binary":"AQID","$type":"ffffff80"},"f":{"$binary":"","$type":"0"}}"#,
        r#"{"b":{"$binary":"AQID","$type":"zz"}}"#,
        r#"{"b":{"$binary":"AQID","$type":1000}}"#,
        r#"{"b":{"$binary":"@@@","$type":"00"}}"#,
        r#"{"b":{"$binary":"AQID","$type":"00","$x":1}}"#,
        r#"{"r":{"$regex":"^a","$options":"mi"},"s":{"$options":"i","$regex":"x"},"t":{"$regex":"y"},"q":{"$regex":{"$in":[1]}},"u":{"$regex":"a","$options":"i","v":1},"w":{"a":1,"$regex":"z"}}"#,
        r#"{"r":{"$regex":"a\u0000","$options":""}}"#,
        r#"{"r":{"$regex":"a","$options":5}}"#,
        r#"{"$regex":"a","$options":"i"}"#,
        r#"{"l":{"$numberLong":5},"m":{"$numberLong":-9223372036854775808},"n":{"$numberLong":5.5}}"#,
        r#"{"c":{"$code":"f()","$scope":{"d":{"$date":"2009-04-01T00:00:00-0700"},"e":{"$oid":"5ca4bbcea2dd94ee58162a68"},"$oid":1}}}"#,
        r#"{"c":{"$code":"f()","$scope":{"d":{"$date":"never"}}}}"#,
        r#"{"a":[{"$date":"2009-04-01T00:00:00-0700"},{"$regex":"x"},{"$binary":"AQID","$type":"00"}]}"#,
        r#"{"x":{"$unknown":"y"},"y":{"$ref":"coll","$id":1}}"#,
        r#"{"x":{"$oid":"5ca4bbcea2dd94ee58162a68"},"$y":1}"#,
        r#"{"deep":[[[[[[[[[[{"a":[{"b":{"$oid":"5ca4bbcea2dd94ee58162a68"}}]}]]]]]]]]]]}"#,
        "{\"a\":1}\n{\"b\":2}\r\n\t{\"c\":3}{\"d\":4}   ",
        "{\"a\":1} [1]",
        "{\"a\":1} 5",
        "{\"a\":1} 5x",
        "{\"a\":1} \"s\"",
        "{\"a\":1} null",
        "{\"a\":1} true",
        "{\"a\":1} {\"$oid\":\"5ca4bbcea2dd94ee58162a68\"}",
        "{\"a\":1} [{\"$oid\":1}]",
        "{\"a\":1}\n{\"a\":\n",
        "{\"a\":1}\n\u{c}{\"b\":2}",
        "\u{c}\n  {\"a\":1}\n{\"a\":}",
        "\n\n   {\"a\":1}\n  {\"a\" 1}",
        "[]",
        "[ ]  \n",
        "[{}]",
        "[{\"a\":1},{\"b\":2}]",
        "[{\"a\":1},]",
        "[{\"a\":1}{\"b\":2}]",
        "[{\"a\":1},,{\"b\":2}]",
        "[{\"a\":1} , 5]",
        "[{\"a\":1}, [1]]",
        "[{\"a\":1}, \"x\"]",
        "[{\"a\":1}, {\"$oid\":\"5ca4bbcea2dd94ee58162a68\"}]",
        "[{\"a\":1}, {\"a\":1,\"a\":2}]",
        "[{\"a\":1}, {\"x\":{\"$date\":\"bad\"}}]",
        "[{\"a\":1}]  x",
        "[{\"a\":1}] ]",
        "[{\"a\":1}] {\"b\":2}",
        "[{\"a\":1}",
        "[{\"a\":1},",
        "[{\"a\":1}, {\"b\":",
        "[5]",
        "[,{\"a\":1}]",
        "  [\n  {\"a\":1}\n , {\"b\":}\n]",
        "[{\"a\":1}]\n\n\n   ",
        "[{\"a\":1}\n,\n{\"a\":2}\n]",
        "x",
        "\u{1}",
        "]",
        "",
        "{",
        "[",
        "{\"a\":1}}",
        "{\"a\":tru}",
        "{\"a\":1.}",
        "{\"a\":1e}",
        "{\"a\":-}",
        "{\"a\":01}",
        "{\"a\":\"\u{1}\"}",
        "{\"a\":\"\\x\"}",
        "{\"a\":1}\u{0}",
    ];

    #[test]
    fn same_bson_and_errors_as_the_old_reader_on_edge_cases() {
        for case in EDGE_CASES {
            assert_parity(case.as_bytes(), &[CHUNK, 1, 2, 5, 16]);
            // As the only document of an array too.
            let array = format!("[{case}]");
            assert_parity(array.as_bytes(), &[CHUNK, 7]);
        }
        // Invalid UTF-8.
        assert_parity(b"{\"a\":\"\xff\"}", &[CHUNK, 3]);
        assert_parity(b"{\"\xc3\":1}", &[CHUNK, 3]);
        for bom in [
            &b"\xef\xbb\xbf{\"a\":1}"[..],
            b"\xef\xbb\xbf",
            b"\xef\xbb",
            b"\xef\xbb\xbf\xef\xbb\xbf{}",
            b"\xef\xbb\xbf\n  [{\"a\":1},{\"b\":2}]\n",
            b"\xef\xbb\xbf{\"a\":1}\n{\"b\":2}\n",
            b"\xef\xbb\xbf{\"a\":1}{\"b\":2}",
            b"\xef\xbb\xbf{\"a\":}",
            b"\xef\xbb\xbf[{\"a\":1},]",
            b" \xef\xbb\xbf{\"a\":1}",
        ] {
            assert_parity(bom, &[CHUNK, 1, 2, 3, 5]);
        }
        assert_parity(b"{\"a\":1}\n{\"b\xff\":2}\n{\"c\":3}", &[CHUNK, 5]);
        assert_parity(b"{\"a\":1}\n{\"b\":\"\xe4\xb8\"}\n{\"c\":3}", &[CHUNK, 5]);
        assert_parity(b"{\"a\":1}\n{\"b\":2}\xff\n{\"c\":3}", &[CHUNK, 5]);
        assert_parity(
            "[{\"中文\":\"é\"},{\"名字\":{\"$oid\":\"5ca4bbcea2dd94ee58162a68\"}}]".as_bytes(),
            &[CHUNK, 1, 2, 3, 5],
        );
    }

    #[test]
    fn same_errors_as_the_old_reader_on_damaged_input() {
        let stream = "{\"_id\":{\"$oid\":\"5ca4bbcea2dd94ee58162a68\"},\"n\":-12.5e3,\"s\":\"a\\\"b\",\n \"a\":[1,{\"k\":null},true],\"d\":{\"$date\":\"2019-01-01T00:00:00Z\"}}\n{\"x\":{\"y\":[]}}\n";
        let array = format!(
            "[\n{},\n{}]\n",
            stream.lines().next().unwrap_or(""),
            "{\"x\":1}"
        );
        let inserts = [b'}', b',', b'x', b'"', b'[', b'\n', b'0', b'$', b':'];
        for text in [stream, array.as_str()] {
            let bytes = text.as_bytes();
            for i in 0..=bytes.len() {
                assert_parity(&bytes[..i], &[CHUNK, 4]);
                if i < bytes.len() {
                    let mut cut = bytes.to_vec();
                    cut.remove(i);
                    assert_parity(&cut, &[CHUNK, 4]);
                }
                for b in inserts {
                    let mut v = bytes.to_vec();
                    v.insert(i, b);
                    assert_parity(&v, &[CHUNK]);
                }
            }
        }
    }

    #[test]
    fn nesting_limits_are_the_old_ones() {
        for depth in [120, 125, 126, 127, 128, 129] {
            let arrays = format!(
                "{{\"a\":{}1{}}}",
                "[".repeat(depth - 1),
                "]".repeat(depth - 1)
            );
            let objects = format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth));
            let wrapped = format!(
                "{{\"a\":{}{{\"$date\":{{\"$numberLong\":\"1\"}}}}{}}}",
                "[".repeat(depth - 3),
                "]".repeat(depth - 3)
            );
            let foo = format!(
                "{{\"$foo\":{}1{}}}",
                "[".repeat(depth - 1),
                "]".repeat(depth - 1)
            );
            for doc in [arrays, objects, wrapped, foo] {
                assert_parity(doc.as_bytes(), &[CHUNK, 64]);
                assert_parity(format!("[{doc}]").as_bytes(), &[CHUNK, 64]);
                assert_parity(format!("[{{}},{doc}]").as_bytes(), &[CHUNK]);
            }
        }
    }

    #[test]
    fn wide_and_large_documents() {
        // Many keys (the duplicate check switches to a set), one repeated.
        let mut wide = String::from("{");
        for i in 0..300 {
            wide.push_str(&["\"k", &i.to_string(), "\":", &i.to_string(), ","].concat());
        }
        wide.push_str("\"last\":1}");
        assert_parity(wide.as_bytes(), &[CHUNK, 100]);
        let dup = wide.replace("\"last\"", "\"k7\"");
        assert_parity(dup.as_bytes(), &[CHUNK]);
        // A document far larger than the buffer, between small ones.
        let big = format!(
            "{{\"a\":1}}\n{{\"s\":\"{}\",\"t\":[{}0]}}\n{{\"b\":2}}\n",
            "x".repeat(300_000),
            "1,".repeat(20_000)
        );
        assert_parity(big.as_bytes(), &[CHUNK, 1000]);
        let array = format!("[{}]", big.trim_end().replace('\n', ","));
        assert_parity(array.as_bytes(), &[CHUNK, 1000]);
    }

    #[test]
    fn io_errors_are_reported_after_the_documents_before_them() {
        struct Broken(&'static [u8], usize);
        impl Read for Broken {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                if self.1 == 0 {
                    return Err(std::io::Error::other("disk on fire"));
                }
                self.1 -= 1;
                let n = out.len().min(self.0.len()).min(5);
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        for text in [
            "{\"a\":1}\n{\"b\":[1,2]}\n{\"c\":3}\n",
            "  [{\"a\":1},{\"b\":[1,2]},{\"c\":3}]",
        ] {
            for reads in 0..12 {
                let mut old_docs = Vec::new();
                let old = old::read_documents(Broken(text.as_bytes(), reads), &mut |b| {
                    old_docs.push(b.to_vec());
                });
                // (A smaller buffer would ask for fewer bytes, and this
                // reader would then fail at another place.)
                let mut docs = Vec::new();
                let new = read_chunked(Broken(text.as_bytes(), reads), CHUNK, &mut |b| {
                    docs.push(b.to_vec());
                });
                assert_eq!(
                    told(&(new, docs)),
                    told(&(old, old_docs)),
                    "{text:?} {reads}"
                );
            }
        }
    }

    /// A small deterministic generator for the tests below.
    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn plain_decimals_are_encoded_as_the_bson_crate_encodes_them() {
        let mut cases: Vec<String> = [
            "0",
            "-0",
            "+0",
            "0.00",
            "1.10",
            "-12.50",
            "007.5",
            ".5",
            "1.",
            ".",
            "",
            "-",
            "+",
            "1234567890123456789012345678901234",
            "12345678901234567890123456789012345",
            "-9999999999999999999999999999999999.0",
            "0.0000000000000000000000000000000000000001",
            "00000000000000000000000000000000000000001",
            "1.2.3",
            "1e5",
            "1E+3",
            "abc",
            "--1",
            "-+1",
            "NaN",
            "-Infinity",
            " 1",
            "1 ",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        let mut x = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..3000 {
            let len = (xorshift(&mut x) % 38) as usize;
            let mut t = String::new();
            match xorshift(&mut x) % 4 {
                0 => t.push('-'),
                1 => t.push('+'),
                _ => {}
            }
            let point = (xorshift(&mut x) % 40) as usize;
            for i in 0..len {
                if i == point {
                    t.push('.');
                }
                let zeros = xorshift(&mut x).is_multiple_of(3);
                t.push(if zeros {
                    '0'
                } else {
                    char::from(b'0' + (xorshift(&mut x) % 10) as u8)
                });
            }
            cases.push(t);
        }
        let mut fast = 0;
        for c in &cases {
            let want = c.parse::<bson::Decimal128>().map(|d| d.bytes()).ok();
            if let Some(got) = parse_plain_decimal(c.as_bytes()) {
                fast += 1;
                assert_eq!(Some(got), want, "{c:?}");
            }
        }
        assert!(fast > 2000, "{fast}");
        assert!(parse_plain_decimal(b"1234.56").is_some());
    }

    #[test]
    fn object_ids_are_read_as_the_bson_crate_reads_them() {
        let mut x = 0x2545_f491_4f6c_dd1d;
        let alphabet = b"0123456789abcdefABCDEFxg-";
        for i in 0..3000 {
            let len = if i % 10 == 0 {
                (xorshift(&mut x) % 30) as usize
            } else {
                24
            };
            let valid = i % 3 != 0;
            let s: String = (0..len)
                .map(|_| {
                    let n = if valid { 22 } else { alphabet.len() as u64 };
                    char::from(alphabet[(xorshift(&mut x) % n) as usize])
                })
                .collect();
            let want = bson::oid::ObjectId::parse_str(&s).ok().map(|o| o.bytes());
            assert_eq!(parse_object_id(s.as_bytes()), want, "{s:?}");
        }
    }

    #[test]
    fn newlines_are_counted() {
        let mut x = 0x1234_5678_9abc_def1;
        for len in 0..200 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| [b'\n', b'a', 0x8a, 0x0b][(xorshift(&mut x) % 4) as usize])
                .collect();
            let want = bytes
                .iter()
                .map(|&b| usize::from(b == b'\n'))
                .sum::<usize>();
            assert_eq!(count_newlines(&bytes), want);
        }
    }
}
