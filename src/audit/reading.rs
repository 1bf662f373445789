//! The reading of a run's collections: several at once, each sampled and
//! profiled with its kept documents within its share of the budget, its
//! whole-collection extremes and its cross-section growth measured where
//! it was read, handed on in the listing's order whatever order they
//! finish in.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::StreamExt;

use crate::growth;
use crate::i18n::Lang;
use crate::profile::shelf::Shelf;
use crate::profile::{threads_from_env, ShardedProfiler, DEFAULT_MAX_PATHS};
use crate::report::InputError;
use crate::rules;
use crate::source::sample::Reservoir;
use crate::source::{
    CollectionMeta, Documents, ExtremesOutcome, SampleMode, SampleOutcome, Sink, SourceError,
};

use super::budget::{self, keep_share, KEEP_BYTES};
use super::control::{ended_early, StopFlag};
use super::{kept_at_most, Collection, Control, Plan, Progress, Stage};

/// Progress is reported at most this often while a collection is read.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// What the reading stage leaves: the collections read, in the listing's
/// order, those that could not be read, and why the reading ended early.
pub(crate) struct Read {
    pub collections: Vec<Collection>,
    pub errors: Vec<InputError>,
    pub first_error: Option<SourceError>,
    /// Why the reading ended early, if it did: the later stages that ask
    /// the server again are then skipped.
    pub cut_short: Option<String>,
}

/// Reads every collection of `metas`, shelving each one's profile on
/// `shelf` as it arrives. A server gone ends the run, unless `control`
/// keeps what was read.
pub(crate) async fn read_all<S: Documents>(
    source: &S,
    metas: Vec<CollectionMeta>,
    plan: &Plan,
    control: &mut Control<'_>,
    shelf: &Shelf,
) -> Result<Read, SourceError> {
    let total = metas.len();
    let stop = StopFlag(control.stop.as_deref());
    let keep_partial = control.keep_partial;
    let mut read = Read {
        collections: Vec::with_capacity(total),
        errors: Vec::new(),
        first_error: None,
        cut_short: None,
    };
    {
        let tracker = Tracker {
            total,
            keep_bytes: keep_share(plan.memory, total),
            finished: std::cell::Cell::new(0),
            progress: std::cell::RefCell::new(&mut *control.progress),
        };
        let tracker = &tracker;
        let read = &mut read;
        // Each collection read, in the listing's order: whether to read on.
        let mut take = |namespace: String, r: Result<Collection, SourceError>| {
            match r {
                Ok(mut c) => {
                    tracker.arrived(&c, read.collections.len() + read.errors.len() + 1);
                    c.shelve(shelf);
                    read.collections.push(c);
                }
                Err(e) if e.is_gone() && keep_partial && !read.collections.is_empty() => {
                    let gone = e.to_string();
                    read.cut_short = Some(ended_early(
                        plan.lang,
                        read.collections.len(),
                        total,
                        Some(&gone),
                    ));
                    return Ok(false);
                }
                Err(e) if e.is_gone() => return Err(e),
                Err(e) => {
                    read.errors.push(unreadable(&namespace, &e));
                    read.first_error.get_or_insert(e);
                }
            }
            Ok(!stop.stopped())
        };
        match source
            .in_place()
            .filter(|_| total > 1 && threads_from_env() > 1)
        {
            // Files: one collection per core, side by side.
            Some(local) => read_side_by_side(local, &metas, plan, stop, tracker, &mut take)?,
            None => {
                // Several collections are read at once; their results come
                // back in the listing's order whatever order they finish in.
                let mut reads = futures_util::stream::iter(metas)
                    .map(|meta| async move {
                        let namespace = meta.namespace();
                        let r = match read_collection(source, meta, plan.mode, plan.lang, tracker)
                            .await
                        {
                            Ok(c) => with_extremes(source, c, plan, stop)
                                .await
                                .map(|c| grown(c, plan)),
                            Err(e) => Err(e),
                        };
                        (namespace, r)
                    })
                    .buffered(source.in_flight().max(1));
                while let Some((namespace, r)) = reads.next().await {
                    if !take(namespace, r)? {
                        break;
                    }
                }
            }
        }
    }
    let done = read.collections.len() + read.errors.len();
    if read.cut_short.is_none() && done < total && stop.stopped() {
        read.cut_short = Some(ended_early(plan.lang, done, total, None));
    }
    Ok(read)
}

/// A collection that could not be read: named by its file, or by its
/// namespace on a server.
fn unreadable(namespace: &str, e: &SourceError) -> InputError {
    let target = match e {
        SourceError::Malformed { path, .. } | SourceError::Io { path, .. } => path.clone(),
        _ => namespace.to_owned(),
    };
    // One sentence, on one line.
    let message = e
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    InputError { target, message }
}

/// Progress of the collections in flight: how many there are, how many
/// have finished, and where to report.
struct Tracker<'p, 'f> {
    total: usize,
    /// Bytes of kept documents per collection.
    keep_bytes: usize,
    finished: std::cell::Cell<usize>,
    progress: std::cell::RefCell<&'p mut (dyn FnMut(&Progress<'_>) + 'f)>,
}

impl Tracker<'_, '_> {
    /// Reports a finished collection, the `n`th of the listing.
    fn arrived(&self, c: &Collection, n: usize) {
        if let Ok(mut f) = self.progress.try_borrow_mut() {
            f(&Progress {
                stage: Stage::Sampling,
                finished: Some(c),
                namespace: &c.namespace,
                position: (n.min(self.total), self.total),
                documents: c.profile.sampled,
                expected: c.documents,
                elapsed: Duration::ZERO,
                done: false,
            });
        }
    }

    /// Reports `p` with its position: the collections finished so far,
    /// counting this one (while it is read: the next to finish), of all.
    fn report(&self, mut p: Progress<'_>) {
        if p.done {
            self.finished.set(self.finished.get() + 1);
        }
        let n = if p.done {
            self.finished.get()
        } else {
            self.finished.get() + 1
        };
        p.position = (n.min(self.total), self.total);
        // Never held across an await: the futures in flight take turns.
        if let Ok(mut f) = self.progress.try_borrow_mut() {
            f(&p);
        }
    }
}

/// Samples and profiles one collection, keeping a bounded sample.
/// `position` is this collection's place in the run's progress.
pub async fn profile_collection<S: Documents>(
    source: &S,
    meta: CollectionMeta,
    mode: SampleMode,
    position: (usize, usize),
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<Collection, SourceError> {
    let tracker = Tracker {
        total: position.1,
        keep_bytes: KEEP_BYTES,
        finished: std::cell::Cell::new(position.0.saturating_sub(1)),
        progress: std::cell::RefCell::new(progress),
    };
    read_collection(source, meta, mode, Lang::En, &tracker).await
}

async fn read_collection<S: Documents>(
    source: &S,
    meta: CollectionMeta,
    mode: SampleMode,
    lang: Lang,
    tracker: &Tracker<'_, '_>,
) -> Result<Collection, SourceError> {
    let profiler = ShardedProfiler::new(threads_from_env(), DEFAULT_MAX_PATHS);
    let mut reading = Reading::new(&meta, mode, lang, tracker.keep_bytes, profiler);
    let outcome = {
        let mut sink = ReadingSink {
            reading: &mut reading,
            report: &mut |p| tracker.report(p),
        };
        source.sample(&meta, mode, &mut sink).await
    };
    tracker.report(reading.done(&outcome));
    reading.finish(meta, outcome)
}

/// Where a source hands the documents of a collection being read.
struct ReadingSink<'r, 'f> {
    reading: &'r mut Reading,
    report: &'f mut dyn FnMut(Progress<'_>),
}

impl Sink for ReadingSink<'_, '_> {
    fn document(&mut self, bytes: &[u8]) {
        self.reading.add(bytes, self.report);
    }

    fn documents(&mut self, docs: Vec<u8>) {
        self.reading.add_documents(docs, self.report);
    }
}

/// One collection as it is read: its profile and kept sample so far.
struct Reading {
    namespace: String,
    /// The language of its notes.
    lang: Lang,
    expected: Option<u64>,
    keep_bytes: usize,
    doc_cap: usize,
    profiler: ShardedProfiler,
    kept: Reservoir,
    /// The `_id`s read, sketched for comparing collections.
    ids: crate::profile::ids::IdSketcher,
    seen: u64,
    start: Instant,
    last: Instant,
}

impl Reading {
    fn new(
        meta: &CollectionMeta,
        mode: SampleMode,
        lang: Lang,
        keep_bytes: usize,
        profiler: ShardedProfiler,
    ) -> Reading {
        let namespace = meta.namespace();
        let expected = match mode {
            SampleMode::Sample(n) => Some(meta.documents.map_or(n, |d| d.min(n))),
            SampleMode::Full => meta.documents,
        };
        let keep = kept_at_most(mode);
        // Each kept document's share of the bytes, by the documents expected.
        let doc_cap = budget::doc_cap(keep_bytes, expected, keep);
        // A whole collection known to be large is spread over the cores
        // from its first document.
        let large = meta
            .storage
            .as_ref()
            .and_then(|s| s.size.or(s.storage_size))
            .is_some_and(|bytes| bytes >= crate::profile::parallel::LARGE_INPUT);
        let profiler = if mode == SampleMode::Full && large {
            profiler.at_once()
        } else {
            profiler
        };
        let kept = Reservoir::new(
            keep,
            keep_bytes,
            crate::profile::sketch::hash_bytes(7, namespace.as_bytes()),
        )
        .cutting_above(doc_cap)
        .checking_bson();
        let start = Instant::now();
        Reading {
            namespace,
            lang,
            expected,
            keep_bytes,
            doc_cap,
            profiler,
            kept,
            ids: crate::profile::ids::IdSketcher::new(budget::id_sketch_size(keep_bytes)),
            seen: 0,
            start,
            last: start,
        }
    }

    /// Profiles a document and offers it to the kept sample; reports the
    /// progress every [`PROGRESS_EVERY`].
    fn add(&mut self, bytes: &[u8], report: &mut dyn FnMut(Progress<'_>)) {
        // Malformed documents are counted by the profiler and reported;
        // the reservoir keeps only well-formed ones.
        let _ = self.profiler.add(bytes);
        self.offer(bytes, report);
    }

    /// As [`Reading::add`] for each of `docs` (see [`Sink::documents`]),
    /// the profiler taking them all at once.
    fn add_documents(&mut self, docs: Vec<u8>, report: &mut dyn FnMut(Progress<'_>)) {
        crate::profile::parallel::each_document(&docs, |d| self.offer(d, report));
        self.profiler.add_documents(docs);
    }

    /// Offers a document to the kept sample and counts it.
    fn offer(&mut self, bytes: &[u8], report: &mut dyn FnMut(Progress<'_>)) {
        self.kept.offer(bytes);
        self.ids.add(bytes);
        self.seen += 1;
        if self.seen.is_multiple_of(256) {
            let now = Instant::now();
            if now.duration_since(self.last) >= PROGRESS_EVERY {
                self.last = now;
                report(self.progress(self.seen, false));
            }
        }
    }

    fn progress(&self, documents: u64, done: bool) -> Progress<'_> {
        Progress {
            stage: Stage::Sampling,
            finished: None,
            namespace: &self.namespace,
            position: (0, 0),
            documents,
            expected: self.expected,
            elapsed: self.start.elapsed(),
            done,
        }
    }

    /// The last progress of this collection: read, or (an error) given up.
    fn done(&self, outcome: &Result<SampleOutcome, SourceError>) -> Progress<'_> {
        let documents = outcome.as_ref().map_or(self.seen, |o| o.read);
        self.progress(documents, true)
    }

    fn finish(
        self,
        meta: CollectionMeta,
        outcome: Result<SampleOutcome, SourceError>,
    ) -> Result<Collection, SourceError> {
        let outcome = outcome?;
        let (kept, keep_bytes, doc_cap) = (self.kept, self.keep_bytes, self.doc_cap);
        let oversized = kept.oversized();
        let cut = kept.cut_count();
        let mut report = Collection::new_in(meta, &outcome, self.profiler.finish(), self.lang);
        report.ids = self.ids.finish();
        let lang = self.lang;
        if oversized > 0 {
            let share = keep_bytes >> 10;
            report.notes.push(lang.pick(
                format!("{oversized} large documents were profiled but not kept for the growth and reference stages (memory share {share} KiB)"),
                format!("{oversized} 个大文档已分析，但没有保留给增长和引用阶段（内存份额 {share} KiB）"),
            ));
        }
        if cut > 0 {
            let (over, to) = (doc_cap >> 10, crate::source::sample::CUT_VALUE);
            report.notes.push(lang.pick(
                format!("{cut} documents over {over} KiB were kept with long strings cut to {to} bytes, to stay within the memory budget (profiled whole)"),
                format!("{cut} 个超过 {over} KiB 的文档保留时把长字符串截短到 {to} 字节，以不超出内存预算（分析时是完整的）"),
            ));
        }
        report.largest_unkept = kept.largest_unkept();
        (report.kept, report.kept_sizes) = kept.into_parts();
        Ok(report)
    }
}

/// The collection with the growth of every array path its kept sample
/// shows (across documents of different ages, or inside one document by
/// its elements' dates): measured where it was read, before its profile
/// waits on the shelf.
fn grown(mut c: Collection, plan: &Plan) -> Collection {
    let min_corr = plan.thresholds.unbounded_array.min_correlation;
    let g = growth::measure(&c.profile, &c.kept, c.largest_bytes(), min_corr);
    c.growth.extend(g);
    c
}

/// Measures what a sample misses over the whole collection (the largest
/// documents, the longest arrays, documents over the size thresholds),
/// unless every document was profiled or the plan says not to. A source
/// that cannot is noted; only a server that is gone ends the run.
async fn with_extremes<S: Documents>(
    source: &S,
    c: Collection,
    plan: &Plan,
    stop: StopFlag<'_>,
) -> Result<Collection, SourceError> {
    match extremes_ask(&c, plan, stop) {
        Some(ask) => {
            let measured = source.extremes(&c.meta, &ask).await;
            with_measured(c, measured, plan.lang)
        }
        None => Ok(c),
    }
}

/// What to measure over the whole collection, unless it is not wanted: off,
/// the run stopped, or every document was profiled.
fn extremes_ask(
    c: &Collection,
    plan: &Plan,
    stop: StopFlag<'_>,
) -> Option<crate::source::ExtremesAsk> {
    if !plan.extremes || stop.stopped() || c.complete || plan.mode == SampleMode::Full {
        return None;
    }
    Some(rules::extremes::ask(
        &c.meta.name,
        &c.profile.fields,
        &plan.thresholds,
        super::stages::now_secs(),
    ))
}

/// The collection with its whole-collection extremes, or a note on why
/// they are missing; an error only when the server is gone.
fn with_measured(
    mut c: Collection,
    measured: Result<ExtremesOutcome, SourceError>,
    lang: Lang,
) -> Result<Collection, SourceError> {
    match measured {
        Ok(ExtremesOutcome::Measured(e)) => c.extremes = Some(e),
        Ok(ExtremesOutcome::Skipped(note)) => c.notes.push(note),
        Err(e) if e.is_gone() => return Err(e),
        Err(e) => c.notes.push(lang.pick(
            format!("whole-collection extremes not measured: {e}"),
            format!("未测量整个集合的极值：{e}"),
        )),
    }
    Ok(c)
}

/// What a collection read on another thread sends back.
enum Sent {
    Progress {
        namespace: String,
        documents: u64,
        expected: Option<u64>,
        elapsed: Duration,
        done: bool,
    },
    Read(usize, String, Box<Result<Collection, SourceError>>),
}

impl Sent {
    fn progress(p: &Progress<'_>) -> Sent {
        Sent::Progress {
            namespace: p.namespace.to_owned(),
            documents: p.documents,
            expected: p.expected,
            elapsed: p.elapsed,
            done: p.done,
        }
    }
}

/// Reads the collections of a source that reads in place one per core, and
/// hands each, with its whole-collection extremes, to `take` in the
/// listing's order whatever order they finish in. No collection is begun
/// once `take` says to stop or the run is stopped; an error `take` returns
/// ends the reading and is returned.
fn read_side_by_side(
    local: &dyn crate::source::InPlace,
    metas: &[CollectionMeta],
    plan: &Plan,
    stop: StopFlag<'_>,
    tracker: &Tracker<'_, '_>,
    take: &mut dyn FnMut(String, Result<Collection, SourceError>) -> Result<bool, SourceError>,
) -> Result<(), SourceError> {
    use std::sync::atomic::AtomicUsize;
    let total = metas.len();
    let next = AtomicUsize::new(0);
    let quit = AtomicBool::new(false);
    let keep_bytes = tracker.keep_bytes;
    let halt = || quit.load(Ordering::Relaxed) || stop.stopped();
    let readers = threads_from_env().min(total).max(1);
    let work = |tx: std::sync::mpsc::Sender<Sent>| {
        while !halt() {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(meta) = metas.get(i) else { break };
            let namespace = meta.namespace();
            // Past its first MiB a file deals its batches to workers, as
            // many as the run's cap on them leaves (see `profile::parallel`).
            let profiler = ShardedProfiler::new(threads_from_env(), DEFAULT_MAX_PATHS);
            let mut reading = Reading::new(meta, plan.mode, plan.lang, keep_bytes, profiler);
            let outcome = {
                let mut send = |p: Progress<'_>| {
                    let _ = tx.send(Sent::progress(&p));
                };
                let mut sink = ReadingSink {
                    reading: &mut reading,
                    report: &mut send,
                };
                local.sample_now(meta, plan.mode, &mut sink)
            };
            let _ = tx.send(Sent::progress(&reading.done(&outcome)));
            let read = reading
                .finish(meta.clone(), outcome)
                .and_then(|c| match extremes_ask(&c, plan, stop) {
                    Some(ask) => {
                        let measured = local.extremes_now(&c.meta, &ask);
                        with_measured(c, measured, plan.lang)
                    }
                    None => Ok(c),
                })
                .map(|c| grown(c, plan));
            if tx.send(Sent::Read(i, namespace, Box::new(read))).is_err() {
                break;
            }
        }
    };
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<Sent>();
        let work = &work;
        let mut started = 0;
        for _ in 0..readers {
            let tx = tx.clone();
            let spawned = std::thread::Builder::new()
                .name("docshape-read".into())
                .spawn_scoped(s, move || work(tx));
            started += usize::from(spawned.is_ok());
        }
        // A thread that cannot be started leaves its share to the others;
        // with none at all, this thread reads them all first.
        if started == 0 {
            work(tx.clone());
        }
        drop(tx);
        let mut ready = std::collections::BTreeMap::new();
        let mut due = 0;
        let mut ended = Ok(());
        for sent in rx {
            match sent {
                Sent::Progress {
                    namespace,
                    documents,
                    expected,
                    elapsed,
                    done,
                } => tracker.report(Progress {
                    stage: Stage::Sampling,
                    finished: None,
                    namespace: &namespace,
                    position: (0, total),
                    documents,
                    expected,
                    elapsed,
                    done,
                }),
                Sent::Read(i, namespace, read) => {
                    ready.insert(i, (namespace, read));
                    while let Some((namespace, read)) = ready.remove(&due) {
                        due += 1;
                        if ended.is_err() || quit.load(Ordering::Relaxed) {
                            continue;
                        }
                        match take(namespace, *read) {
                            Ok(true) => {}
                            Ok(false) => quit.store(true, Ordering::Relaxed),
                            Err(e) => {
                                quit.store(true, Ordering::Relaxed);
                                ended = Err(e);
                            }
                        }
                    }
                }
            }
        }
        ended
    })
}
