//! Profiling on several cores. The caller's thread checks each document's
//! framing and gathers documents into batches; worker threads, each with its
//! own `Profiler`, take the batches from one queue (a worker that is ahead
//! takes the next batch rather than wait its turn); at the end the profilers
//! merge. Every document keeps its number in the stream, so the merged
//! profile is exactly the one a single profiler would have produced (field
//! order, examples and all) — only the path cap, once reached, can keep
//! different paths.
//!
//! Small inputs never start a thread: the first `PARALLEL_AFTER` bytes are
//! profiled on the caller's thread, and workers start only past them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;

use crossbeam_channel::{bounded, Sender};

use super::raw::RawError;
use super::{Profile, Profiler};

/// Bytes profiled on the caller's thread before workers are started (and
/// the size from which a file's other scans use every core).
pub const PARALLEL_AFTER: usize = 1 << 20;
/// Size from which an input known in advance (a file read whole) is spread
/// over the cores from its first byte.
pub const LARGE_INPUT: u64 = 2 * PARALLEL_AFTER as u64;
/// Bytes gathered before a batch is handed to a worker: large enough that
/// handing over costs nothing next to profiling it, small enough that the
/// batches in flight (workers × (`QUEUE` + 1)) stay well under a few MiB.
pub const BATCH_BYTES: usize = 128 << 10;
/// Batches queued per worker before the caller waits (bounds memory).
pub const QUEUE: usize = 2;

/// Profiling workers alive in the process (see `start_workers`).
static LIVE_WORKERS: AtomicUsize = AtomicUsize::new(0);

/// Held by a worker thread while it lives, however it ends.
struct Live;

impl Drop for Live {
    fn drop(&mut self) {
        LIVE_WORKERS.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Worker threads to use: `DOCSHAPE_THREADS` when set to a number, else
/// every core available to this process. There is no fixed cap: the
/// caller's thread only frames and batches (a length check and a copy per
/// document), so each added core adds a profiler's worth of throughput
/// until the reading thread is the bottleneck; a thread that cannot be
/// started leaves its share to the others.
pub fn threads_from_env() -> usize {
    std::env::var("DOCSHAPE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
        .max(1)
}

/// The run's pool for work spread over collections (pairing candidate
/// fields with keys, growth, the rules): [`threads_from_env`] threads,
/// started on first use; `None` when they could not be started.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads_from_env())
            .thread_name(|i| format!("docshape-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// `f(0)`, …, `f(n - 1)`, computed on every core and returned in that
/// order, so that what follows does not depend on the number of threads.
/// On one thread (or when no thread could be started) they are computed
/// in turn on the caller's thread.
pub(crate) fn map_ordered<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    use rayon::prelude::*;
    match pool().filter(|p| n > 1 && p.current_num_threads() > 1) {
        Some(p) => p.install(|| (0..n).into_par_iter().map(f).collect()),
        None => (0..n).map(f).collect(),
    }
}

/// Documents of a batch: each as a little-endian `u32` length, then bytes
/// (built by [`frame`]), or BSON documents as they come (each starting
/// with its own length, as [`ShardedProfiler::add_documents`] takes them).
struct Batch {
    /// Number of the batch's first document in the stream.
    first: u64,
    bytes: Vec<u8>,
    framed: bool,
}

/// A profiler that spreads large inputs over worker threads.
pub struct ShardedProfiler {
    /// Profiles the first documents, counts malformed ones, and receives
    /// the workers' profilers at the end.
    local: Profiler,
    /// Worker threads to deal batches to past the first MiB (0: none, the
    /// caller's thread profiles everything).
    workers_wanted: usize,
    max_paths: usize,
    /// The queue every worker takes batches from (`None` while no worker
    /// runs).
    queue: Option<Sender<Batch>>,
    workers: Vec<JoinHandle<Profiler>>,
    batch: Batch,
    /// Number of the last document handed in.
    seen: u64,
    /// Bytes handed in so far.
    bytes: usize,
    /// Bytes profiled here before workers start.
    after: usize,
}

impl ShardedProfiler {
    /// A profiler using up to `threads` worker threads (1: none at all).
    pub fn new(threads: usize, max_paths: usize) -> ShardedProfiler {
        ShardedProfiler {
            local: Profiler::new(max_paths),
            workers_wanted: if threads > 1 { threads } else { 0 },
            max_paths,
            queue: None,
            workers: Vec::new(),
            batch: Batch {
                first: 1,
                bytes: Vec::new(),
                framed: true,
            },
            seen: 0,
            bytes: 0,
            after: PARALLEL_AFTER,
        }
    }

    /// Starts the workers with the first batch, not after the first MiB:
    /// for an input known to be large (a whole file read past
    /// [`LARGE_INPUT`] bytes), where the first MiB on one thread is only
    /// time lost.
    #[must_use]
    pub fn at_once(mut self) -> ShardedProfiler {
        self.after = 0;
        self
    }

    /// Profiles one document (or counts it as malformed, as
    /// `Profiler::add` does). Past the first MiB, documents are only framed
    /// here (their length prefixes read into a batch); the worker that
    /// profiles a batch checks each document, so a malformed one is counted
    /// in the profile but not returned as an error. A caller that must know
    /// (to keep a document) checks it with `check`.
    pub fn add(&mut self, doc: &[u8]) -> Result<(), RawError> {
        self.seen += 1;
        let no = self.seen;
        if self.profiles_here() || doc.len() > u32::MAX as usize {
            self.bytes = self.bytes.saturating_add(doc.len());
            if !self.workers.is_empty() {
                // Keep the stream's order: what is batched goes first.
                self.flush();
            }
            return self.local.add_numbered(doc, no);
        }
        if self.batch.bytes.is_empty() {
            self.batch.first = no;
        }
        frame(&mut self.batch.bytes, doc);
        if self.batch.bytes.len() >= BATCH_BYTES {
            self.flush();
        }
        Ok(())
    }

    /// Whether what comes next is profiled on the caller's thread: no
    /// workers wanted, or not yet past the first bytes.
    fn profiles_here(&self) -> bool {
        self.workers_wanted == 0 || self.bytes < self.after
    }

    /// Hands the gathered batch to the workers' queue (starting workers the
    /// first time). If every worker is gone (they can only have panicked),
    /// the batch is profiled here instead.
    fn flush(&mut self) {
        if self.batch.bytes.is_empty() {
            return;
        }
        let batch = std::mem::replace(
            &mut self.batch,
            Batch {
                first: self.seen + 1,
                bytes: new_batch(),
                framed: true,
            },
        );
        self.deal(batch);
    }

    /// Profiles `docs`, BSON documents one after another, each starting
    /// with its own length (as [`each_document`] reads them): past the
    /// first MiB they go to a worker as they are, without a copy.
    pub(crate) fn add_documents(&mut self, docs: Vec<u8>) {
        if self.profiles_here() {
            each_document(&docs, |d| {
                let _ = self.add(d);
            });
            return;
        }
        self.flush();
        let first = self.seen + 1;
        each_document(&docs, |_| self.seen += 1);
        self.bytes = self.bytes.saturating_add(docs.len());
        self.deal(Batch {
            first,
            bytes: docs,
            framed: false,
        });
    }

    /// Hands a batch to the workers' queue, starting them the first time;
    /// with no worker, profiles it here.
    fn deal(&mut self, batch: Batch) {
        if self.workers.is_empty() {
            self.start_workers();
        }
        let batch = match &self.queue {
            Some(tx) => tx.send(batch).err().map(|e| e.0),
            None => Some(batch),
        };
        if let Some(batch) = batch {
            profile_batch(&mut self.local, &batch);
        }
    }

    fn start_workers(&mut self) {
        // Several files read side by side each start their workers: the
        // run's workers alive at once are capped at twice the threads, so
        // that many cores do not make their square of profilers.
        let cap = 2 * threads_from_env();
        let (tx, rx) = bounded::<Batch>(QUEUE * self.workers_wanted.max(1));
        for i in 0..self.workers_wanted {
            if LIVE_WORKERS.fetch_add(1, Ordering::AcqRel) >= cap {
                LIVE_WORKERS.fetch_sub(1, Ordering::AcqRel);
                break;
            }
            let rx = rx.clone();
            let max_paths = self.max_paths;
            let spawned = std::thread::Builder::new()
                .name(format!("docshape-profile-{i}"))
                .spawn(move || {
                    let _live = Live;
                    let mut p = Profiler::new(max_paths);
                    while let Ok(batch) = rx.recv() {
                        profile_batch(&mut p, &batch);
                    }
                    p
                });
            match spawned {
                Ok(handle) => self.workers.push(handle),
                // No thread to be had: what is not dealt out is profiled here.
                Err(_) => {
                    LIVE_WORKERS.fetch_sub(1, Ordering::AcqRel);
                    break;
                }
            }
        }
        // With no worker to be had, batches are profiled here (and the
        // next batch asks again).
        self.queue = (!self.workers.is_empty()).then_some(tx);
    }

    /// Waits for the workers and returns the profiler of the whole stream.
    pub(crate) fn into_profiler(mut self) -> Profiler {
        self.flush();
        // The workers end once the queue is closed and drained.
        self.queue = None;
        for h in std::mem::take(&mut self.workers) {
            match h.join() {
                Ok(p) => self.local.merge(&p),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        std::mem::replace(&mut self.local, Profiler::new(1))
    }

    /// The profile of every document handed in.
    pub fn finish(self) -> Profile {
        self.into_profiler().finish()
    }
}

impl Drop for ShardedProfiler {
    fn drop(&mut self) {
        // Dropped before `finish` (a cancelled run): let the workers drain
        // their queue and end, without waiting for them.
        self.queue = None;
        self.workers.clear();
    }
}

fn profile_batch(p: &mut Profiler, batch: &Batch) {
    let mut no = batch.first;
    each_in(&batch.bytes, batch.framed, |doc| {
        // A malformed document is counted by the profiler (`invalid`,
        // with the first error and its number).
        let _ = p.add_numbered(doc, no);
        no += 1;
    });
}

/// An empty batch, with room for a full one.
pub(crate) fn new_batch() -> Vec<u8> {
    Vec::with_capacity(BATCH_BYTES + (BATCH_BYTES >> 3))
}

/// Appends `doc` to a batch: its length as a little-endian `u32`, then its
/// bytes. The caller keeps documents over `u32::MAX` bytes out.
pub(crate) fn frame(batch: &mut Vec<u8>, doc: &[u8]) {
    batch.extend_from_slice(&(doc.len() as u32).to_le_bytes());
    batch.extend_from_slice(doc);
}

/// Calls `each` on every document of a batch built by [`frame`].
pub(crate) fn each_framed(batch: &[u8], mut each: impl FnMut(&[u8])) {
    let mut at = 0usize;
    while let Some(len) = batch
        .get(at..at + 4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(|b| u32::from_le_bytes(b) as usize)
    {
        let Some(doc) = batch.get(at + 4..at + 4 + len) else {
            break;
        };
        each(doc);
        at += 4 + len;
    }
}

/// Calls `each` on every document of concatenated BSON documents, each
/// starting with its own length (as a `.bson` file holds them); stops at a
/// length under 5 or past the end.
pub fn each_document(docs: &[u8], mut each: impl FnMut(&[u8])) {
    let mut at = 0usize;
    while let Some(len) = docs
        .get(at..)
        .and_then(super::raw::doc_len)
        .filter(|&len| len >= 5)
    {
        let Some(doc) = docs.get(at..at + len) else {
            break;
        };
        each(doc);
        at += len;
    }
}

/// Calls `each` on every document of a batch: built by [`frame`] when
/// `framed`, else documents as they come (see [`each_document`]).
pub(crate) fn each_in(batch: &[u8], framed: bool, each: impl FnMut(&[u8])) {
    if framed {
        each_framed(batch, each);
    } else {
        each_document(batch, each);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_spread_over_the_cores_comes_back_in_order() {
        // Uneven work, so that later items finish first on several threads.
        let out = map_ordered(64, |i| {
            let spin = (64 - i) * 2_000;
            std::hint::black_box((0..spin).fold(i as u64, |a, b| a.wrapping_mul(31) ^ b as u64));
            i * 3
        });
        assert_eq!(out, (0..64).map(|i| i * 3).collect::<Vec<_>>());
        assert_eq!(map_ordered(0, |i| i), Vec::<usize>::new());
        assert_eq!(map_ordered(1, |i| i + 7), vec![7]);
    }
    use bson::doc;

    fn docs(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                let mut d =
                    doc! {"_id": i as i64, "k": (i % 17) as i32, "pad": "x".repeat(i % 300)};
                if i % 1000 == 999 {
                    d.insert("rare", doc! {"deep": [i as i64]});
                }
                let mut out = Vec::new();
                d.to_writer(&mut out).expect("encodes");
                if i == 30_000 {
                    out[4] = 0xEE; // a malformed document in a batch
                }
                out
            })
            .collect()
    }

    /// The profile of `docs` on the caller's thread alone, as JSON.
    fn profile_on_one_thread(docs: &[Vec<u8>]) -> serde_json::Value {
        let mut whole = Profiler::default();
        for d in docs {
            let _ = whole.add(d);
        }
        serde_json::to_value(whole.finish()).expect("json")
    }

    #[test]
    fn runs_handed_over_whole_profile_as_documents_one_by_one() {
        // Runs of documents as a file holds them, between single documents,
        // past the first MiB: batches of both kinds go to the workers.
        let docs = docs(40_000);
        let whole = profile_on_one_thread(&docs);
        for (threads, at_once) in [(1, false), (2, false), (3, false), (2, true)] {
            let mut p = ShardedProfiler::new(threads, super::super::DEFAULT_MAX_PATHS);
            if at_once {
                p = p.at_once();
            }
            for (i, part) in docs.chunks(700).enumerate() {
                if i % 3 == 2 {
                    for d in part {
                        let _ = p.add(d);
                    }
                } else {
                    p.add_documents(part.concat());
                }
            }
            let got = serde_json::to_value(p.finish()).expect("json");
            assert_eq!(got, whole, "{threads} threads, at once: {at_once}");
        }
    }

    #[test]
    fn threads_change_nothing_in_the_profile() {
        let docs = docs(40_000);
        let whole = profile_on_one_thread(&docs);
        for threads in [1, 2, 3] {
            let mut p = ShardedProfiler::new(threads, super::super::DEFAULT_MAX_PATHS);
            let mut invalid = 0;
            for d in &docs {
                invalid += usize::from(p.add(d).is_err());
            }
            // Only a document profiled on the caller's thread returns its
            // error; the profile counts it either way (compared below).
            assert_eq!(invalid, usize::from(threads == 1), "{threads} threads");
            let sharded = serde_json::to_value(p.finish()).expect("json");
            assert_eq!(sharded, whole, "{threads} threads");
        }
    }

    #[test]
    fn profilers_side_by_side_share_a_cap_on_workers_and_stay_exact() {
        let docs = docs(12_000);
        let whole = profile_on_one_thread(&docs);
        // Each asks for four times the threads; together they may not
        // start more than twice the threads, and each profile is exact
        // whatever it was given.
        let cap = 2 * threads_from_env();
        let mut side_by_side: Vec<ShardedProfiler> = (0..3)
            .map(|_| ShardedProfiler::new(4 * threads_from_env(), super::super::DEFAULT_MAX_PATHS))
            .collect();
        for d in &docs {
            for p in &mut side_by_side {
                let _ = p.add(d);
            }
        }
        let started: usize = side_by_side.iter().map(|p| p.workers.len()).sum();
        assert!(started <= cap, "{started} workers for a cap of {cap}");
        for p in side_by_side {
            assert_eq!(serde_json::to_value(p.finish()).expect("json"), whole);
        }
    }

    #[test]
    fn a_dropped_profiler_ends_its_workers() {
        let docs = docs(20_000);
        let mut p = ShardedProfiler::new(2, 100);
        for d in &docs {
            let _ = p.add(d);
        }
        drop(p);
    }
}
