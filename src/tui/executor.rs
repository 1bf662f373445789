//! The executor: runs `Effect`s as tasks on the explorer's one tokio
//! runtime and answers with `Msg`s on the loop's channel. Nothing here
//! blocks the loop: work that waits on the network is an async task, work
//! that keeps a core busy (a sampling run's profiling, a lesson, a file
//! scan) runs on the runtime's blocking pool, driving its futures with the
//! runtime's handle. A cancelled request is dropped at its next await (and
//! a file scan stops at its next read); its late messages carry a stale
//! request id that `update` ignores.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use tokio::runtime::Handle;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;

use crate::audit::{self, Plan, Progress};
use crate::i18n::Lang;
use crate::report::Report;
use crate::source::{
    Browse, CollectionMeta, FileSource, MongoSource, Query, SampleMode, SourceError, Stop,
};
use crate::target::Target;

use super::effects::{Effect, QueryWork};
use super::export::{create_new, ExportFile, Format};
use super::msg::{Done, Failure, Msg};
use super::querybar::Reply;

/// The loop's end of the executor's messages.
pub type Sender = UnboundedSender<Msg>;

/// A channel for the loop: the executor's tasks send, the loop receives.
pub fn channel() -> (Sender, tokio::sync::mpsc::UnboundedReceiver<Msg>) {
    tokio::sync::mpsc::unbounded_channel()
}

/// How a running request is stopped.
struct Running {
    /// Dropped or fired: the request's future is dropped at its next await.
    cancel: oneshot::Sender<()>,
    /// Set on `Stop`: a sampling run reads no further collection.
    stop: Option<Arc<AtomicBool>>,
    /// Set on `Cancel`: a file scan stops at its next read.
    abort: Arc<AtomicBool>,
}

/// The connection queries go through, opened at the first query and kept
/// while it works, so a page costs one round trip, not a new connection.
#[derive(Default)]
struct Connection {
    mongo: tokio::sync::Mutex<Option<Arc<MongoSource>>>,
    files: std::sync::Mutex<Option<Arc<FileSource>>>,
}

/// Runs effects. Owns the cancel handles of running requests.
pub struct Executor {
    rt: Handle,
    pub target: Target,
    pub plan: Plan,
    pub timeout: Duration,
    pub tx: Sender,
    /// The full-read flag from the command line, kept across re-samples.
    pub full: bool,
    running: HashMap<u64, Running>,
    conn: Arc<Connection>,
    /// Where the query history is kept (docshape's state directory).
    pub state_dir: Option<PathBuf>,
}

impl Executor {
    /// An executor spawning on `rt`, answering on `tx`.
    pub fn new(rt: Handle, target: Target, plan: Plan, timeout: Duration, tx: Sender) -> Executor {
        let full = plan.mode == SampleMode::Full;
        Executor {
            rt,
            target,
            plan,
            timeout,
            tx,
            full,
            running: HashMap::new(),
            conn: Arc::default(),
            state_dir: crate::paths::state_dir(),
        }
    }

    /// The cancel handles of request `req` (the finished requests'
    /// forgotten): the receiver its future selects on, and the flag its
    /// file scan reads.
    fn register(
        &mut self,
        req: u64,
        stop: Option<Arc<AtomicBool>>,
    ) -> (oneshot::Receiver<()>, Arc<AtomicBool>) {
        let (cancel, cancelled) = oneshot::channel();
        let abort = Arc::new(AtomicBool::new(false));
        self.running.retain(|_, r| !r.cancel.is_closed());
        self.running.insert(
            req,
            Running {
                cancel,
                stop,
                abort: Arc::clone(&abort),
            },
        );
        (cancelled, abort)
    }

    /// Request `req` stopped: its future at its next await, its scan at its
    /// next read.
    fn cancel(r: Running) {
        r.abort.store(true, Ordering::Relaxed);
        let _ = r.cancel.send(());
    }

    /// Runs one effect; `out` is the terminal, for OSC 52.
    pub fn run(&mut self, fx: Effect, out: &mut dyn Write) {
        match fx {
            Effect::Sample { req, size } => {
                let mut plan = self.plan.clone();
                if !self.full {
                    plan.mode = SampleMode::Sample(size);
                }
                let stop = Arc::new(AtomicBool::new(false));
                let (cancelled, _) = self.register(req, Some(Arc::clone(&stop)));
                self.spawn_sampling(req, plan, stop, cancelled);
            }
            Effect::CheckExercises {
                req,
                lesson,
                students,
                lang,
            } => {
                let (cancelled, _) = self.register(req, None);
                self.spawn_checking(req, lesson, students, lang, cancelled);
            }
            Effect::Measure { req, lesson, lang } => {
                let (cancelled, _) = self.register(req, None);
                self.spawn_measuring(req, lesson, lang, cancelled);
            }
            Effect::Query {
                req,
                db,
                coll,
                query,
                work,
            } => {
                let (cancelled, abort) = self.register(req, None);
                let job = QueryJob {
                    req,
                    meta: CollectionMeta::new(&db, &coll),
                    query: *query,
                    work,
                };
                self.spawn_query(job, cancelled, abort);
            }
            Effect::Export {
                req,
                db,
                coll,
                query,
                format,
                path,
            } => {
                let (cancelled, abort) = self.register(req, None);
                let meta = CollectionMeta::new(&db, &coll);
                self.spawn_export(req, meta, *query, format, path, (cancelled, abort));
            }
            Effect::WriteFile {
                path,
                contents,
                what,
            } => {
                let tx = self.tx.clone();
                self.rt.spawn_blocking(move || {
                    let _ = tx.send(Msg::Done(match write_new(&path, &contents) {
                        Ok(written) => Done::Wrote {
                            what,
                            written,
                            asked: path,
                        },
                        Err(e) => Done::Failed(format!("{}: {e}", path.display())),
                    }));
                });
            }
            Effect::Cancel { req } => {
                if let Some(r) = self.running.remove(&req) {
                    Executor::cancel(r);
                }
            }
            Effect::Stop { req } => {
                if let Some(s) = self.running.get(&req).and_then(|r| r.stop.as_ref()) {
                    s.store(true, Ordering::Relaxed);
                }
            }
            Effect::Copy { text, what } => {
                // The terminal is the loop's: written here, at once.
                let r = out
                    .write_all(osc52(&text).as_bytes())
                    .and_then(|()| out.flush());
                let _ = self.tx.send(Msg::Done(match r {
                    Ok(()) => Done::Copied {
                        what,
                        lines: text.lines().count(),
                    },
                    Err(e) => Done::Failed(format!("OSC 52: {e}")),
                }));
            }
            Effect::SaveHistory {
                target: label,
                namespace,
                queries,
            } => {
                let Some(dir) = self.state_dir.clone() else {
                    return;
                };
                self.rt.spawn_blocking(move || {
                    if let Err(e) = super::history::save(&dir, &label, &namespace, &queries) {
                        tracing::warn!("cannot keep the query history in {}: {e}", dir.display());
                    }
                });
            }
            Effect::Switch { target } => self.switch(target),
            Effect::Quit => {
                for (_, r) in self.running.drain() {
                    Executor::cancel(r);
                }
            }
        }
    }

    /// Reads `target` from now on: every request in flight cancelled, the
    /// kept connection dropped (the next query opens the new target). Its
    /// query history goes back to the loop; it is remembered among the
    /// recent targets once a sampling run of it succeeds. The `--db` and
    /// `-c` of the command line named what to read of the first target;
    /// another target is read whole.
    fn switch(&mut self, target: Target) {
        self.plan.selection = crate::source::Selection::default();
        for (_, r) in self.running.drain() {
            Executor::cancel(r);
        }
        if let Target::Mongo(uri) = &target {
            super::terminal::keep_secrets_of(uri);
        }
        self.conn = Arc::default();
        self.target = target.clone();
        let (tx, dir) = (self.tx.clone(), self.state_dir.clone());
        self.rt.spawn_blocking(move || {
            let label = target.label();
            let mut history = std::collections::HashMap::new();
            if let Some(dir) = dir {
                history = super::history::load(&dir, &label);
            }
            let _ = tx.send(Msg::Switched {
                target: label,
                history,
            });
        });
    }

    /// A sampling run: its futures driven on a thread of the blocking pool
    /// (the profile's CPU work never takes a worker of the runtime), its
    /// connection on the runtime's reactor.
    fn spawn_sampling(
        &self,
        req: u64,
        plan: Plan,
        stop: Arc<AtomicBool>,
        cancelled: oneshot::Receiver<()>,
    ) {
        let (rt, tx, target, timeout, dir) = (
            self.rt.clone(),
            self.tx.clone(),
            self.target.clone(),
            self.timeout,
            self.state_dir.clone(),
        );
        self.rt.spawn_blocking(move || {
            let progress_tx = tx.clone();
            let read = &target;
            // A panic in the pipeline is a failed run, shown in the UI; the
            // panic hook leaves the screen to the UI meanwhile.
            let result = catch_panic("sampling", || {
                super::terminal::inject_panic("sample", &read.label());
                rt.block_on(async move {
                    tokio::select! {
                        r = sample(read, &plan, stop, timeout, req, &progress_tx) => {
                            Some(r.map(Box::new).map_err(Failure::from))
                        }
                        _ = cancelled => None,
                    }
                })
            });
            tracing::debug!(req, cancelled = result.is_none(), "sampling finished");
            if let (Some(Ok(_)), Some(dir)) = (&result, &dir) {
                if let Err(e) = super::picker::remember(dir, &target) {
                    tracing::warn!("cannot keep the recent targets in {}: {e}", dir.display());
                }
            }
            if let Some(result) = result {
                let _ = tx.send(Msg::Loaded { req, result });
            }
        });
    }

    /// A lesson's data sets audited on the blocking pool, like sampling.
    fn spawn_measuring(
        &self,
        req: u64,
        index: usize,
        lang: Lang,
        cancelled: oneshot::Receiver<()>,
    ) {
        let (rt, tx, timeout) = (self.rt.clone(), self.tx.clone(), self.timeout);
        self.rt.spawn_blocking(move || {
            let result = catch_panic("measuring the lesson", || {
                let Some(lesson) = crate::lesson::LESSONS.get(index) else {
                    return Some(Err(Failure::NoLesson(index)));
                };
                rt.block_on(async move {
                    tokio::select! {
                        r = crate::lesson::measure(lesson, None, "docshape_", lang, timeout) => {
                            Some(r.map_err(Failure::from))
                        }
                        _ = cancelled => None,
                    }
                })
            });
            tracing::debug!(req, cancelled = result.is_none(), "lesson measured");
            if let Some(result) = result {
                let _ = tx.send(Msg::Lesson { req, result });
            }
        });
    }

    /// A lesson's exercises checked on the target's server, on the
    /// blocking pool like measuring.
    fn spawn_checking(
        &self,
        req: u64,
        index: usize,
        students: Vec<String>,
        lang: Lang,
        cancelled: oneshot::Receiver<()>,
    ) {
        let (rt, tx, timeout, target) = (
            self.rt.clone(),
            self.tx.clone(),
            self.timeout,
            self.target.clone(),
        );
        self.rt.spawn_blocking(move || {
            let result = catch_panic("checking the exercises", || {
                let Some(lesson) = crate::lesson::LESSONS.get(index) else {
                    return Some(Err(Failure::NoLesson(index)));
                };
                let Target::Mongo(uri) = target else {
                    return Some(Err(Failure::Source(
                        lang.pick(
                            "exercises are checked on a server seeded with docshape seed: connect to it first",
                            "练习要在用 docshape seed 写入数据的服务器上检查：请先连接到它",
                        )
                        .to_owned(),
                    )));
                };
                rt.block_on(async move {
                    tokio::select! {
                        r = crate::lesson::class::check_lesson(&uri, lesson.name, &students, lang, timeout) => {
                            Some(r.map_err(|e| Failure::Source(e.to_string())))
                        }
                        _ = cancelled => None,
                    }
                })
            });
            tracing::debug!(req, cancelled = result.is_none(), "exercises checked");
            if let Some(result) = result {
                let _ = tx.send(Msg::Checked { req, result });
            }
        });
    }

    /// A query: on a server an async task on the kept connection (a page
    /// and its count side by side); on files a scan on the blocking pool,
    /// bounded by the timeout and stopped by `abort`.
    fn spawn_query(&self, job: QueryJob, cancelled: oneshot::Receiver<()>, abort: Arc<AtomicBool>) {
        let (tx, conn, timeout) = (self.tx.clone(), Arc::clone(&self.conn), self.timeout);
        let (req, work) = (job.req, job.work);
        let answer = move |result: Option<std::thread::Result<Reply>>| {
            tracing::debug!(req, cancelled = result.is_none(), "query finished");
            let reply = match result {
                None => return,
                Some(Ok(reply)) => reply,
                Some(Err(payload)) => failed(
                    work,
                    Failure::Panic {
                        what: "running the query",
                        message: super::terminal::panic_message(payload.as_ref()),
                    },
                ),
            };
            let _ = tx.send(Msg::Query { req, reply });
        };
        match self.target.clone() {
            Target::Mongo(uri) => {
                self.rt.spawn(async move {
                    let run = std::panic::AssertUnwindSafe(on_server(&conn, &uri, timeout, &job))
                        .catch_unwind();
                    let result = tokio::select! {
                        r = run => Some(r),
                        _ = cancelled => None,
                    };
                    answer(result);
                });
            }
            Target::Path(path) => {
                self.rt.spawn_blocking(move || {
                    let stop = Stop::after(timeout, Arc::clone(&abort));
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        in_files(&conn, &path, &job, &stop)
                    }));
                    // A cancelled scan's reply is nobody's. (Held until
                    // now, `cancelled` keeps the request cancellable.)
                    drop(cancelled);
                    answer((!abort.load(Ordering::Relaxed)).then_some(result));
                });
            }
        }
    }
}

/// How often an export says how far it has come.
const EXPORT_PROGRESS: Duration = Duration::from_millis(200);

impl Executor {
    /// An export: the query's matches written as they are read, on the
    /// blocking pool (a server's cursor driven there with the runtime's
    /// handle), within the timeout; the file removed unless it completes.
    fn spawn_export(
        &self,
        req: u64,
        meta: CollectionMeta,
        query: Query,
        format: Format,
        asked: PathBuf,
        (cancelled, abort): (oneshot::Receiver<()>, Arc<AtomicBool>),
    ) {
        let (rt, tx, conn, timeout, target) = (
            self.rt.clone(),
            self.tx.clone(),
            Arc::clone(&self.conn),
            self.timeout,
            self.target.clone(),
        );
        let memory = self.plan.memory / 2;
        self.rt.spawn_blocking(move || {
            let mut file = match ExportFile::create(&asked, format) {
                Ok(f) => f,
                Err(e) => {
                    let why = Failure::Write {
                        path: asked.display().to_string(),
                        reason: e.to_string(),
                    };
                    let _ = tx.send(Msg::Exported {
                        req,
                        result: Err(why),
                    });
                    return;
                }
            };
            let mut failed_write: Option<std::io::Error> = None;
            let mut told = std::time::Instant::now();
            let mut each = |d: bson::Document| {
                if let Err(e) = file.add(&d) {
                    failed_write = Some(e);
                    return false;
                }
                if told.elapsed() >= EXPORT_PROGRESS {
                    told = std::time::Instant::now();
                    let written = file.written();
                    let _ = tx.send(Msg::Exporting { req, written });
                }
                !abort.load(Ordering::Relaxed)
            };
            let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &target {
                Target::Mongo(uri) => rt.block_on(async {
                    let run = async {
                        let src = connected(&conn, uri, timeout).await?;
                        src.find_each(&meta, &query, &mut each).await
                    };
                    tokio::select! {
                        r = tokio::time::timeout(timeout, run) => r.unwrap_or_else(|_| {
                            Err(SourceError::Timeout {
                                secs: timeout.as_secs().max(1),
                                what: format!("exporting the matches of {}", meta.namespace()),
                            })
                        }),
                        _ = cancelled => Err(SourceError::Server {
                            what: "exporting".into(),
                            reason: "cancelled".into(),
                        }),
                    }
                }),
                Target::Path(path) => {
                    let stop = Stop::after(timeout, Arc::clone(&abort));
                    match opened_files(&conn, path) {
                        Ok(src) => src.find_each_within(&meta, &query, &stop, memory, &mut each),
                        Err(e) => Err(e),
                    }
                }
            }));
            let cancelled = abort.load(Ordering::Relaxed);
            let result = match (read, failed_write) {
                (Ok(Ok(_)), None) if !cancelled => file.finish().map_err(|e| Failure::Write {
                    path: asked.display().to_string(),
                    reason: e.to_string(),
                }),
                (read, failed) => {
                    let path = file.path().display().to_string();
                    file.abandon();
                    let why = match (read, failed) {
                        (_, Some(e)) => Failure::Write {
                            path: path.clone(),
                            reason: e.to_string(),
                        },
                        (Ok(Err(e)), None) => Failure::from(e),
                        (Err(payload), None) => Failure::Panic {
                            what: "exporting",
                            message: super::terminal::panic_message(payload.as_ref()),
                        },
                        (Ok(Ok(_)), None) => Failure::Cancelled("cancelled"),
                    };
                    Err(Failure::ExportStopped {
                        why: Box::new(why),
                        path,
                    })
                }
            };
            let _ = tx.send(Msg::Exported { req, result });
        });
    }
}

/// Writes `contents` to a file that did not exist: `path`, else
/// `stem-2.ext`, `stem-3.ext` … beside it. Returns the path written.
fn write_new(path: &std::path::Path, contents: &str) -> std::io::Result<PathBuf> {
    let (mut f, p) = create_new(path)?;
    f.write_all(contents.as_bytes())?;
    Ok(p)
}

/// The OSC 52 escape that asks the terminal to set the clipboard.
pub(crate) fn osc52(text: &str) -> String {
    use base64::Engine as _;
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

/// One query request.
struct QueryJob {
    req: u64,
    meta: CollectionMeta,
    query: Query,
    work: QueryWork,
}

/// The reply a failed request gets, of its kind.
fn failed(work: QueryWork, e: Failure) -> Reply {
    match work {
        QueryWork::Page => Reply::Page(Err(e)),
        QueryWork::Count => Reply::Count(Err(e)),
        QueryWork::Explain => Reply::Explain(Err(e)),
    }
}

/// The kept connection to the server, opened at the first query (and
/// again after the server went away).
async fn connected(
    conn: &Connection,
    uri: &str,
    timeout: Duration,
) -> Result<Arc<MongoSource>, SourceError> {
    let mut held = conn.mongo.lock().await;
    match held.as_ref() {
        Some(s) => Ok(Arc::clone(s)),
        None => {
            let s = crate::target::connect(uri, timeout).await?;
            Ok(Arc::clone(held.insert(Arc::new(s))))
        }
    }
}

/// The files, opened once.
fn opened_files(conn: &Connection, path: &std::path::Path) -> Result<Arc<FileSource>, SourceError> {
    if let Some(s) = conn.files.lock().ok().and_then(|held| held.clone()) {
        return Ok(s);
    }
    let s = Arc::new(crate::target::open_files(path)?);
    if let Ok(mut held) = conn.files.lock() {
        *held = Some(Arc::clone(&s));
    }
    Ok(s)
}

/// A query on the server, through the kept connection.
async fn on_server(conn: &Connection, uri: &str, timeout: Duration, job: &QueryJob) -> Reply {
    let src = match connected(conn, uri, timeout).await {
        Ok(s) => s,
        Err(e) => return failed(job.work, e.into()),
    };
    let (reply, gone) = browse_with(src.as_ref(), job).await;
    if gone {
        conn.mongo.lock().await.take();
    }
    reply
}

/// A query scanning the files (opened once), within `stop`.
fn in_files(conn: &Connection, path: &std::path::Path, job: &QueryJob, stop: &Stop) -> Reply {
    let src = match opened_files(conn, path) {
        Ok(s) => s,
        Err(e) => return failed(job.work, e.into()),
    };
    let (meta, q) = (&job.meta, &job.query);
    let said = Failure::from;
    match job.work {
        QueryWork::Page => Reply::Page(
            src.find_page_within(meta, q, stop)
                .map(|docs| docs.iter().filter_map(bytes_of).collect())
                .map_err(said),
        ),
        QueryWork::Count => Reply::Count(src.count_within(meta, &q.filter, stop).map_err(said)),
        QueryWork::Explain => Reply::Explain(src.explain_within(meta, q, stop).map_err(said)),
    }
}

/// A document as BSON bytes.
fn bytes_of(d: &bson::Document) -> Option<Vec<u8>> {
    let mut b = Vec::new();
    d.to_writer(&mut b).ok().map(|()| b)
}

/// The reply, and whether the connection is gone.
async fn browse_with<B: Browse>(src: &B, job: &QueryJob) -> (Reply, bool) {
    let (meta, q) = (&job.meta, &job.query);
    let mut gone = false;
    let mut said = |e: SourceError| {
        gone |= e.is_gone();
        Failure::from(e)
    };
    let reply = match job.work {
        QueryWork::Page => Reply::Page(
            src.find_page(meta, q)
                .await
                .map(|docs| docs.iter().filter_map(bytes_of).collect())
                .map_err(&mut said),
        ),
        QueryWork::Count => {
            Reply::Count(src.count_matching(meta, &q.filter).await.map_err(&mut said))
        }
        QueryWork::Explain => Reply::Explain(src.explain(meta, q).await.map_err(&mut said)),
    };
    (reply, gone)
}

/// Runs a worker's job; a panic becomes an error naming `what`.
fn catch_panic<T>(
    what: &'static str,
    job: impl FnOnce() -> Option<Result<T, Failure>>,
) -> Option<Result<T, Failure>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).unwrap_or_else(|payload| {
        Some(Err(Failure::Panic {
            what,
            message: super::terminal::panic_message(payload.as_ref()),
        }))
    })
}

async fn sample(
    target: &Target,
    plan: &Plan,
    stop: Arc<AtomicBool>,
    timeout: Duration,
    req: u64,
    tx: &Sender,
) -> Result<Report, SourceError> {
    let mut show = |p: &Progress<'_>| {
        if let Some(c) = p.finished {
            tracing::debug!(namespace = %c.namespace, "collection read");
            // The collection's own rules judge it now; the rules that need
            // other collections come with the report.
            let mut preview = c.preview(ARRIVAL_DOCS);
            preview.findings = audit::early_findings(c, plan);
            let _ = tx.send(Msg::Arrived {
                req,
                position: p.position,
                collection: Box::new(preview),
            });
            return;
        }
        let _ = tx.send(Msg::Progress {
            req,
            stage: p.stage,
            namespace: p.namespace.to_owned(),
            position: p.position,
            documents: p.documents,
            expected: p.expected,
            rate: p.rate(),
        });
    };
    let options = crate::target::OpenOptions {
        timeout,
        mode: plan.mode,
    };
    let mut src = crate::target::open(target, &options).await?;
    // The explorer keeps what was read when the user stops the run or the
    // server goes away.
    let control = audit::Control::new(&mut show)
        .stopping_on(stop)
        .keeping_partial();
    audit::run_with(&mut src, plan, control).await
}

/// Documents of an arrived collection the explorer shows before the run
/// ends (the whole kept sample comes with the report).
const ARRIVAL_DOCS: usize = 50;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Selection;

    #[test]
    fn osc52_carries_the_text_in_base64() {
        assert_eq!(osc52(""), "\x1b]52;c;\x07");
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
        assert_eq!(osc52("foobar"), "\x1b]52;c;Zm9vYmFy\x07");
        assert_eq!(osc52("问题"), "\x1b]52;c;6Zeu6aKY\x07");
    }

    #[test]
    fn write_file_reports_back() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let (tx, mut rx) = channel();
        let plan = Plan::new(Selection::default(), SampleMode::Sample(10));
        let mut ex = Executor::new(
            rt.handle().clone(),
            Target::Path(".".into()),
            plan,
            Duration::from_secs(1),
            tx,
        );
        let mut next = || {
            rt.block_on(async { tokio::time::timeout(Duration::from_secs(10), rx.recv()).await })
                .ok()
                .flatten()
        };
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("a.b.rule.js");
        let mut out = Vec::new();
        let write = |ex: &mut Executor, out: &mut Vec<u8>, path: &std::path::Path, text: &str| {
            ex.run(
                Effect::WriteFile {
                    path: path.to_path_buf(),
                    contents: text.into(),
                    what: "rule at x".into(),
                },
                out,
            );
        };
        write(&mut ex, &mut out, &path, "db.x.find()");
        assert!(
            matches!(next(), Some(Msg::Done(Done::Wrote { what, written, .. })) if written == path && what == "rule at x")
        );
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("db.x.find()")
        );
        // A second write never replaces the first file.
        write(&mut ex, &mut out, &path, "db.y.find()");
        assert!(
            matches!(next(), Some(Msg::Done(Done::Wrote { written, asked, .. })) if written.ends_with("a.b.rule-2.js") && asked == path)
        );
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("db.x.find()")
        );
        let second = dir.path().join("a.b.rule-2.js");
        assert_eq!(
            std::fs::read_to_string(&second).ok().as_deref(),
            Some("db.y.find()")
        );
        ex.run(
            Effect::Copy {
                text: "hi".into(),
                what: "x".into(),
            },
            &mut out,
        );
        assert_eq!(out, osc52("hi").into_bytes());
        assert!(matches!(
            next(),
            Some(Msg::Done(Done::Copied { lines: 1, .. }))
        ));
        write(&mut ex, &mut out, &dir.path().join("no/such/dir/x.js"), "");
        assert!(matches!(next(), Some(Msg::Done(Done::Failed(_)))));
    }
}
