//! Concatenated documents parsed on several threads.
//!
//! The caller's thread cuts the input into jobs and deals them round-robin
//! to worker threads; each worker parses its job with the same fast and
//! reference paths as the single-threaded reader. Results are taken back in
//! the order the jobs were dealt, so documents reach the caller in the
//! file's order.
//!
//! Jobs are cut in one of two ways:
//! - **At line ends** (the first way tried): a job is the next
//!   `job_bytes`, up to the next newline, as `mongoexport` writes one
//!   document per line. Finding a newline costs the caller's thread next to
//!   nothing; the worker parses document after document from the job's
//!   start. A job's documents are only right if the job starts between two
//!   documents, which holds while every earlier job ended exactly at its
//!   last document's end — and a job that did not is where the
//!   single-threaded reader takes over (below), the jobs after it being
//!   discarded.
//! - **At object ends**: the caller's thread finds where each top-level
//!   object ends (a scan for brackets outside strings, far cheaper than
//!   parsing but a fifth of the parse itself) and a job holds whole
//!   documents. A stream switches to this for good once a document is
//!   found running over a line-end cut (pretty-printed documents).
//!
//! A worker parses only what it is sure of: a document that either path
//! rejects, that runs past the job's end, or that does not end where the
//! scan said, ends its job there. The caller's thread then puts that
//! document and every byte after it back into the input, with its line and
//! column, and the single-threaded reader goes on from it — so errors,
//! their messages and their positions are exactly those of the
//! single-threaded reader.

use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use super::{count_newlines, fast_document, reference_value, skip_ws, Ctx, Fast, Reader, Step};
use crate::profile::parallel::each_document;

/// Bytes of the input read on the caller's thread before workers start
/// (and again after the workers handed back a document they could not
/// parse), so that small files never start a thread.
const PARALLEL_AFTER: usize = 1 << 20;
/// Bytes of documents in one job: large enough that handing it over costs
/// nothing next to parsing it, small enough that the jobs in flight
/// (workers × `QUEUE` × 2, text and BSON; a job cut at a line end holds up
/// to four times this) stay within a few MiB.
const JOB_BYTES: usize = 256 << 10;
/// Jobs queued per worker before the caller waits (bounds memory).
const QUEUE: usize = 2;

/// How a stream of documents is spread over threads.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tuning {
    pub threads: usize,
    /// Bytes read on the caller's thread before workers start.
    pub after: usize,
    /// Bytes of documents in one job.
    pub job_bytes: usize,
}

impl Tuning {
    pub(super) fn threads(threads: usize) -> Tuning {
        Tuning {
            threads: threads.max(1),
            after: PARALLEL_AFTER,
            job_bytes: JOB_BYTES,
        }
    }
}

/// Documents, with the white space around them, for one worker.
struct Job {
    /// The bytes, exactly as read.
    text: Vec<u8>,
    /// Where each document starts and ends in `text`, when cut at object
    /// ends; `None` when cut at a line end (the worker finds them).
    spans: Option<Vec<(usize, usize)>>,
    /// Offset of `text[0]` in the input.
    offset: u64,
}

/// A job back from its worker.
struct Done {
    job: Job,
    /// The BSON of the documents parsed, one after another (each starts
    /// with its own length).
    out: Vec<u8>,
    /// Where in `job.text` the first document the worker left to the
    /// single-threaded reader starts (`None`: it parsed them all).
    stop: Option<usize>,
    /// Whether it stopped at a document running past the job's end.
    cut_short: bool,
    /// Documents in `out`.
    documents: u64,
    /// Newlines in `job.text`, and the bytes after the last one.
    newlines: usize,
    tail: usize,
}

struct Worker {
    jobs: SyncSender<Job>,
    done: Receiver<Done>,
    handle: JoinHandle<()>,
}

/// Where the object that starts at `buf[0]` (a `{`) ends.
enum Scan {
    /// Just past its closing brace.
    End(usize),
    /// `buf` ends first.
    NeedMore,
    /// The brackets do not pair: the single-threaded reader says why.
    Odd,
}

fn object_end(buf: &[u8]) -> Scan {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&b) = buf.get(i) {
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = match depth.checked_sub(1) {
                    Some(d) => d,
                    None => return Scan::Odd,
                };
                if depth == 0 {
                    return if b == b'}' {
                        Scan::End(i + 1)
                    } else {
                        Scan::Odd
                    };
                }
            }
            b'"' => {
                // To the closing quote, past escaped characters.
                i += 1;
                loop {
                    let Some(k) = buf
                        .get(i..)
                        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
                    else {
                        return Scan::NeedMore;
                    };
                    i += k;
                    if buf[i] == b'"' {
                        break;
                    }
                    i += 2;
                }
            }
            _ => {}
        }
        i += 1;
    }
    Scan::NeedMore
}

/// Parses every document of a job, up to the first one it is not sure of.
fn parse_job(job: Job, ctx: &mut Ctx, scratch: &mut Vec<u8>) -> Done {
    let mut out = Vec::with_capacity(job.text.len() + job.text.len() / 4);
    let (stop, cut_short) = match &job.spans {
        Some(spans) => (parse_spans(&job.text, spans, ctx, scratch, &mut out), false),
        None => parse_lines(&job.text, ctx, scratch, &mut out),
    };
    let mut documents = 0;
    each_document(&out, |_| documents += 1);
    let newlines = count_newlines(&job.text);
    let tail = match job.text.iter().rposition(|&b| b == b'\n') {
        Some(last) => job.text.len() - last - 1,
        None => job.text.len(),
    };
    Done {
        job,
        out,
        stop,
        cut_short,
        documents,
        newlines,
        tail,
    }
}

/// The documents at `spans`, until one does not parse or does not end
/// where the scan said: returns where that one starts.
fn parse_spans(
    text: &[u8],
    spans: &[(usize, usize)],
    ctx: &mut Ctx,
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Option<usize> {
    for &(start, end) in spans {
        let doc = &text[start..end];
        match fast_document(doc, ctx) {
            Ok(n) if n == doc.len() => out.extend_from_slice(&ctx.out),
            Ok(_) | Err(Fast::NeedMore) => return Some(start),
            Err(Fast::Reference) => match reference_value(doc, None, 0, scratch).0 {
                Step::Element(n) if n == doc.len() => out.extend_from_slice(scratch),
                _ => return Some(start),
            },
        }
    }
    None
}

/// Document after document from the start of `text`, as the
/// single-threaded reader goes, until one it would need more bytes for (it
/// runs past the end: the flag says so), one that is not an object, or one
/// either path rejects: returns where that one starts.
fn parse_lines(
    text: &[u8],
    ctx: &mut Ctx,
    scratch: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> (Option<usize>, bool) {
    let mut p = skip_ws(text, 0);
    while p < text.len() {
        if text[p] != b'{' {
            return (Some(p), false);
        }
        match fast_document(&text[p..], ctx) {
            Ok(n) => {
                out.extend_from_slice(&ctx.out);
                p = skip_ws(text, p + n);
                continue;
            }
            Err(Fast::NeedMore) => return (Some(p), true),
            Err(Fast::Reference) => {}
        }
        match reference_value(&text[p..], None, 0, scratch) {
            (_, true) => return (Some(p), true),
            (Step::Element(n), false) => {
                out.extend_from_slice(scratch);
                p = skip_ws(text, p + n);
            }
            _ => return (Some(p), false),
        }
    }
    (None, false)
}

fn start_workers(threads: usize) -> Vec<Worker> {
    let mut workers = Vec::with_capacity(threads);
    for i in 0..threads {
        let (jobs, job_rx) = sync_channel::<Job>(QUEUE);
        let (done_tx, done) = sync_channel::<Done>(QUEUE);
        let spawned = std::thread::Builder::new()
            .name(format!("docshape-ejson-{i}"))
            .spawn(move || {
                let mut ctx = Ctx {
                    max_level: usize::MAX,
                    ..Ctx::default()
                };
                let mut scratch = Vec::new();
                while let Ok(job) = job_rx.recv() {
                    if done_tx
                        .send(parse_job(job, &mut ctx, &mut scratch))
                        .is_err()
                    {
                        return;
                    }
                }
            });
        match spawned {
            Ok(handle) => workers.push(Worker { jobs, done, handle }),
            Err(_) => break,
        }
    }
    workers
}

/// `(line, col)` moved past bytes holding `newlines` newlines, `tail`
/// bytes after the last (or `len` bytes and none).
fn advance(pos: (usize, usize), newlines: usize, tail: usize) -> (usize, usize) {
    if newlines == 0 {
        (pos.0, pos.1 + tail)
    } else {
        (pos.0 + newlines, tail)
    }
}

fn position_after(pos: (usize, usize), bytes: &[u8]) -> (usize, usize) {
    match bytes.iter().rposition(|&b| b == b'\n') {
        Some(last) => advance(pos, count_newlines(bytes), bytes.len() - last - 1),
        None => advance(pos, 0, bytes.len()),
    }
}

impl<R: Read> Reader<'_, R> {
    /// Parses the documents from `buf[at]` on, on worker threads, while the
    /// input is objects one after another; returns where in the buffer the
    /// single-threaded reader goes on (the input's end, a byte that does
    /// not start an object, or a document the workers left to it).
    pub(super) fn parallel(&mut self, mut at: usize) -> usize {
        let threads = self.tuning.threads;
        let mut workers = start_workers(threads);
        if workers.is_empty() {
            return at;
        }
        let n = workers.len();
        // Position of the first byte not yet taken back from a worker: the
        // workers count the lines of what they were dealt, and the input
        // need not count them again as it reads on.
        let mut pos = self.input.position_of(at);
        self.input.tracked = false;
        let (mut sent, mut received) = (0usize, 0usize);
        let mut scanning = true;
        let mut resume = None;
        loop {
            while scanning && sent - received < n * QUEUE {
                let (job, more) = if self.lines {
                    self.next_lines(&mut at)
                } else {
                    self.next_job(&mut at)
                };
                scanning = more;
                let Some(job) = job else { break };
                if workers[sent % n].jobs.send(job).is_err() {
                    // Only a panic ends a worker early: taking back its
                    // results fails below and the join lets it surface.
                    scanning = false;
                    break;
                }
                sent += 1;
            }
            if received == sent {
                break;
            }
            let Ok(mut done) = workers[received % n].done.recv() else {
                break;
            };
            received += 1;
            self.count += done.documents;
            self.each.documents(std::mem::take(&mut done.out));
            if let Some(stop) = done.stop {
                if done.cut_short {
                    // Documents run over line ends: cut at object ends.
                    self.lines = false;
                }
                resume = Some((done.job, stop));
                break;
            }
            pos = advance(pos, done.newlines, done.tail);
        }
        if let Some((job, start)) = resume {
            // From the first document the workers left, everything goes
            // back into the input: that job's rest, the jobs dealt after
            // it, then what is still buffered.
            let from = position_after(pos, &job.text[..start]);
            let mut back = job.text[start..].to_vec();
            let offset = job.offset + start as u64;
            while received < sent {
                let Ok(done) = workers[received % n].done.recv() else {
                    break;
                };
                received += 1;
                back.extend_from_slice(&done.job.text);
            }
            back.extend_from_slice(&self.input.buf[at..]);
            self.input.size = self.input.size.max(back.len());
            self.input.buf = back;
            (self.input.line, self.input.col) = from;
            self.input.offset = offset;
            at = 0;
        } else {
            // Every byte before `at` went to a worker and came back: `pos`
            // is where `at` is.
            self.input.offset += at as u64;
            self.input.buf.drain(..at);
            (self.input.line, self.input.col) = pos;
            at = 0;
        }
        self.input.tracked = true;
        for w in workers.drain(..) {
            drop(w.jobs);
            drop(w.done);
            if let Err(panic) = w.handle.join() {
                std::panic::resume_unwind(panic);
            }
        }
        at
    }

    /// The next job: whole documents from `buf[*at]`, with the white space
    /// between them, reading more input as needed; `*at` moves past it.
    /// The flag is false when scanning must stop after this job (the input
    /// ended, or what follows is for the single-threaded reader).
    fn next_job(&mut self, at: &mut usize) -> (Option<Job>, bool) {
        let mut text = Vec::with_capacity(self.tuning.job_bytes + (self.tuning.job_bytes >> 2));
        let mut spans = Vec::new();
        let offset = self.input.offset + *at as u64;
        // Bytes of the buffer from `seg` are not yet copied into `text`.
        let mut seg = *at;
        let mut p = *at;
        let more = loop {
            let buf = &self.input.buf[..];
            let q = skip_ws(buf, p);
            if q == buf.len() {
                text.extend_from_slice(&buf[seg..q]);
                if self.input.eof {
                    p = q;
                    break false;
                }
                self.input.fill_from(q);
                (seg, p) = (0, 0);
                continue;
            }
            if buf[q] != b'{' {
                text.extend_from_slice(&buf[seg..q]);
                p = q;
                break false;
            }
            match object_end(&buf[q..]) {
                Scan::End(n) => {
                    let start = text.len() + (q - seg);
                    spans.push((start, start + n));
                    p = q + n;
                    if text.len() + (p - seg) >= self.tuning.job_bytes {
                        text.extend_from_slice(&buf[seg..p]);
                        break true;
                    }
                }
                Scan::NeedMore if !self.input.eof => {
                    text.extend_from_slice(&buf[seg..q]);
                    self.input.fill_from(q);
                    (seg, p) = (0, 0);
                }
                Scan::NeedMore | Scan::Odd => {
                    text.extend_from_slice(&buf[seg..q]);
                    p = q;
                    break false;
                }
            }
        };
        *at = p;
        if text.is_empty() {
            return (None, more);
        }
        // A job of white space only still goes round, so that the jobs
        // hold every byte and positions after them stay exact.
        (
            Some(Job {
                text,
                spans: Some(spans),
                offset,
            }),
            more,
        )
    }

    /// The next job cut at a line end: from `buf[*at]`, `job_bytes` and on
    /// to the next newline (or, with none within four times that, cut
    /// there), reading more input as needed; `*at` moves past it. The flag
    /// is false when the input has ended.
    fn next_lines(&mut self, at: &mut usize) -> (Option<Job>, bool) {
        let want = self.tuning.job_bytes;
        let most = want.saturating_mul(4);
        let mut text = Vec::with_capacity(want + (want >> 2));
        let offset = self.input.offset + *at as u64;
        let mut p = *at;
        let more = loop {
            let buf = &self.input.buf[..];
            // Where a newline may end the job, and how far to look for one.
            let from = (p + want.saturating_sub(text.len())).min(buf.len());
            let to = (p + most.saturating_sub(text.len()))
                .min(buf.len())
                .max(from);
            if let Some(k) = memchr::memchr(b'\n', &buf[from..to]) {
                let end = from + k + 1;
                text.extend_from_slice(&buf[p..end]);
                p = end;
                break true;
            }
            if text.len() + (to - p) >= most {
                text.extend_from_slice(&buf[p..to]);
                p = to;
                break true;
            }
            text.extend_from_slice(&buf[p..]);
            p = buf.len();
            if self.input.eof {
                break false;
            }
            self.input.fill_from(p);
            p = 0;
        };
        *at = p;
        if text.is_empty() {
            return (None, more);
        }
        (
            Some(Job {
                text,
                spans: None,
                offset,
            }),
            more,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{read_tuned, ReadError};
    use super::*;

    /// What reading `text` gives: the count or the error (with where it
    /// stopped), and the documents read.
    fn read(text: &[u8], chunk: usize, tuning: Tuning) -> (Result<u64, ReadError>, Vec<Vec<u8>>) {
        let mut docs = Vec::new();
        let r = read_tuned(text, chunk, tuning, &mut |d: &[u8]| docs.push(d.to_vec()));
        (r, docs)
    }

    fn tiny(threads: usize) -> Tuning {
        Tuning {
            threads,
            after: 100,
            job_bytes: 300,
        }
    }

    fn lines(n: usize) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        for i in 0..n {
            match i % 7 {
                0 => writeln!(
                    s,
                    "{{\"_id\": {{\"$oid\": \"{i:024x}\"}}, \"s\": \"a \\\"{{quoted}}\\\" \\\\ [x]\", \"n\": {i}}}"
                ),
                1 => writeln!(
                    s,
                    "{{\"_id\": {i}, \"at\": {{\"$date\": \"2009-04-01T00:00:00.000-0700\"}}}}"
                ),
                2 => write!(
                    s,
                    "{{\n  \"_id\": {i},\n  \"nested\": {{\"a\": [1, {{\"b\": [[]]}}]}}\n}}\n\n"
                ),
                3 => write!(s, "{{\"_id\": {i}, \"k\": 1, \"k\": 2}}  "),
                _ => writeln!(s, "{{\"_id\": {i}, \"x\": {}.5, \"t\": \"中文\"}}", i * 3),
            }
            .expect("writing to a String");
        }
        s
    }

    #[test]
    fn threads_change_nothing_in_what_is_read() {
        let text = lines(2_000);
        let (want, want_docs) = read(text.as_bytes(), 1 << 20, Tuning::threads(1));
        assert_eq!(want, Ok(2_000));
        for threads in [2, 3] {
            for chunk in [64, 1000, 1 << 20] {
                let (got, docs) = read(text.as_bytes(), chunk, tiny(threads));
                assert_eq!(got, want, "{threads} threads, chunk {chunk}");
                assert!(
                    docs == want_docs,
                    "{threads} threads, chunk {chunk}: documents differ"
                );
            }
        }
    }

    #[test]
    fn errors_are_those_of_one_thread() {
        let good = lines(400);
        let cases: Vec<String> = vec![
            format!("{good}{{\"_id\": 1, \"a\": }}\n{good}"),
            format!("{good}{{\"_id\": 1, \"a\": [}}\n{good}"),
            format!("{good}{{\"_id\": 1, \"a\": \"open\n"),
            format!("{good}[1, 2]\n"),
            format!("{good}{{\"_id\": 1}} garbage {good}"),
            format!("{good}{{\"_id\": {{\"$numberLong\": \"x\"}}}}\n{good}"),
            format!("{good}{{\"a\": 1}}]\n"),
            format!("{good}{{\"a\": \"\\"),
        ];
        for (i, text) in cases.iter().enumerate() {
            let (want, want_docs) = read(text.as_bytes(), 1 << 20, Tuning::threads(1));
            assert!(want.is_err(), "case {i} should fail: {want:?}");
            for threads in [2, 3] {
                for chunk in [64, 1 << 20] {
                    let (got, docs) = read(text.as_bytes(), chunk, tiny(threads));
                    assert_eq!(got, want, "case {i}, {threads} threads, chunk {chunk}");
                    assert_eq!(docs.len(), want_docs.len(), "case {i}");
                    assert!(docs == want_docs, "case {i}: documents differ");
                }
            }
        }
    }

    #[test]
    fn damaged_inputs_read_the_same_on_two_threads() {
        // Random bytes changed, dropped or doubled in well-formed lines:
        // whatever the reader makes of them, two threads make the same.
        let good = lines(60).into_bytes();
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let alphabet = b"{}[]\"\\:, \n0a$";
        for round in 0..400 {
            let mut text = good.clone();
            for _ in 0..=(next() % 4) {
                let at = (next() % text.len() as u64) as usize;
                match next() % 3 {
                    0 => text[at] = alphabet[(next() % alphabet.len() as u64) as usize],
                    1 => {
                        text.remove(at);
                    }
                    _ => text.insert(at, text[at]),
                }
            }
            let (want, want_docs) = read(&text, 1 << 20, Tuning::threads(1));
            for (after, job_bytes) in [(0, 1), (0, 64), (50, 300)] {
                let t = Tuning {
                    threads: 2,
                    after,
                    job_bytes,
                };
                let (got, docs) = read(&text, 1 << 20, t);
                assert_eq!(got, want, "round {round}, after {after}, job {job_bytes}");
                assert!(docs == want_docs, "round {round}: documents differ");
            }
        }
    }

    #[test]
    fn a_job_cut_at_a_line_end_stops_where_one_thread_would_need_more() {
        let mut ctx = Ctx {
            max_level: usize::MAX,
            ..Ctx::default()
        };
        let (mut scratch, mut out) = (Vec::new(), Vec::new());
        let mut parse = |text: &[u8]| {
            out.clear();
            let r = parse_lines(text, &mut ctx, &mut scratch, &mut out);
            let mut docs = 0;
            each_document(&out, |_| docs += 1);
            (r, docs)
        };
        // Whole lines: all parsed, the job ends between documents.
        let whole = b"{\"a\": 1}\n  {\"b\": {\"$numberLong\": \"2\"}}\n\n";
        assert_eq!(parse(whole), ((None, false), 2));
        // A pretty-printed document cut by the job's end: cut short, at its
        // start, after the documents before it.
        let cut = b"{\"a\": 1}\n{\n  \"b\": [1,\n";
        assert_eq!(parse(cut), ((Some(9), true), 1));
        // Not an object, or an error: left to one thread, not cut short.
        assert_eq!(parse(b"{\"a\": 1} [1]\n"), ((Some(9), false), 1));
        assert_eq!(parse(b"{\"a\": }\n{\"b\": 2}\n"), ((Some(0), false), 0));
    }

    #[test]
    fn one_document_per_line_and_pretty_printed_read_the_same_on_every_thread() {
        use std::fmt::Write as _;
        // Lines only (cut at line ends throughout), then the same documents
        // with pretty-printed ones among them (the cut changes midway).
        let mut one_per_line = String::new();
        for i in 0..3_000 {
            writeln!(
                one_per_line,
                "{{\"_id\": {i}, \"s\": \"x\\n{{\", \"n\": [{i}, {{\"k\": 1}}]}}"
            )
            .expect("writing to a String");
        }
        let mixed = format!("{one_per_line}{}", lines(700));
        for text in [&one_per_line, &mixed] {
            let (want, want_docs) = read(text.as_bytes(), 1 << 20, Tuning::threads(1));
            assert!(want.is_ok());
            for (threads, job_bytes) in [(2, 300), (3, 1000), (2, 1 << 16)] {
                let t = Tuning {
                    threads,
                    after: 100,
                    job_bytes,
                };
                for chunk in [64, 4096, 1 << 20] {
                    let (got, docs) = read(text.as_bytes(), chunk, t);
                    assert_eq!(
                        got, want,
                        "{threads} threads, job {job_bytes}, chunk {chunk}"
                    );
                    assert!(docs == want_docs, "{threads} threads: documents differ");
                }
            }
        }
    }

    #[test]
    fn the_scan_finds_object_ends() {
        assert!(matches!(object_end(br#"{"a": "}"}x"#), Scan::End(10)));
        assert!(matches!(object_end(br#"{"a": "\"}"}"#), Scan::End(12)));
        assert!(matches!(object_end(br#"{"a": "\\"}"#), Scan::End(11)));
        assert!(matches!(object_end(br#"{"a": [{}]"#), Scan::NeedMore));
        assert!(matches!(object_end(br#"{"a": "\"#), Scan::NeedMore));
        assert!(matches!(object_end(br#"{"a": 1]"#), Scan::Odd));
    }
}
