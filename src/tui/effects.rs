//! Effects are data returned by `update`; the executor here runs them off
//! the UI loop and answers with `Msg`s. Sampling runs on its own thread with
//! its own runtime, so the profile's CPU work never stalls a frame; a
//! cancelled run is dropped at its next await, and its late messages carry a
//! stale request id that `update` ignores.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use tokio::sync::oneshot;

use crate::audit::{self, Plan, Progress};
use crate::i18n::Lang;
use crate::report::Report;
use crate::source::{
    Browse, CollectionMeta, FileSource, MongoSource, Query, SampleMode, Source, SourceError,
};
use crate::target::Target;

use super::querybar::Reply;
use super::update::Msg;

/// What a query request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryWork {
    /// A page of the matching documents (the query's skip and limit).
    Page,
    /// How many documents match the filter.
    Count,
    /// How the query runs.
    Explain,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Sample and analyse every selected collection with `size` documents.
    Sample {
        req: u64,
        size: u64,
    },
    Cancel {
        req: u64,
    },
    /// Read no further collection in request `req`: those read go on to
    /// the rules and the run reports them.
    Stop {
        req: u64,
    },
    /// Measure lesson `lesson` (an index into `lesson::LESSONS`) on the
    /// bundled sample data, in `lang`.
    Measure {
        req: u64,
        lesson: usize,
        lang: Lang,
    },
    /// Put text on the clipboard with OSC 52; `what` names it in the
    /// status line.
    Copy {
        text: String,
        what: String,
    },
    /// Write a new file at `path`, or beside it (`name-2.js` …) when a file
    /// of that name exists: nothing is ever overwritten.
    WriteFile {
        path: PathBuf,
        contents: String,
        what: String,
    },
    /// Run a read-only query on `db.coll` of the target.
    Query {
        req: u64,
        db: String,
        coll: String,
        query: Box<Query>,
        work: QueryWork,
    },
    /// Write query results to a new file, as `WriteFile` does; `what`
    /// names them in the status line.
    Export {
        path: PathBuf,
        contents: String,
        what: String,
    },
    Quit,
}

/// Runs effects. Owns the cancel handles of running jobs.
pub struct Executor {
    pub target: Target,
    pub plan: Plan,
    pub timeout: Duration,
    pub tx: Sender<Msg>,
    /// The full-read flag from the command line, kept across re-samples.
    pub full: bool,
    cancels: HashMap<u64, oneshot::Sender<()>>,
    stops: HashMap<u64, Arc<AtomicBool>>,
    /// The query worker, once a query ran.
    queries: Option<Jobs>,
}

impl Executor {
    pub fn new(target: Target, plan: Plan, timeout: Duration, tx: Sender<Msg>) -> Executor {
        let full = plan.mode == SampleMode::Full;
        Executor {
            target,
            plan,
            timeout,
            tx,
            full,
            cancels: HashMap::new(),
            stops: HashMap::new(),
            queries: None,
        }
    }

    /// Runs one effect; `out` is the terminal, for OSC 52.
    pub fn run(&mut self, fx: Effect, out: &mut dyn Write) {
        match fx {
            Effect::Sample { req, size } => {
                let mut plan = self.plan.clone();
                if !self.full {
                    plan.mode = SampleMode::Sample(size);
                }
                // The explorer keeps what was read when the user stops the
                // run or the server goes away.
                plan.keep_partial = true;
                let stop = Arc::new(AtomicBool::new(false));
                plan.stop = Some(Arc::clone(&stop));
                let (cancel_tx, cancel_rx) = oneshot::channel();
                self.cancels.retain(|_, c| !c.is_closed());
                self.stops.retain(|r, _| self.cancels.contains_key(r));
                self.cancels.insert(req, cancel_tx);
                self.stops.insert(req, stop);
                spawn_sampling(
                    req,
                    self.target.clone(),
                    plan,
                    self.timeout,
                    cancel_rx,
                    self.tx.clone(),
                );
            }
            Effect::Measure { req, lesson, lang } => {
                let (cancel_tx, cancel_rx) = oneshot::channel();
                self.cancels.retain(|_, c| !c.is_closed());
                self.cancels.insert(req, cancel_tx);
                spawn_measuring(req, lesson, lang, self.timeout, cancel_rx, self.tx.clone());
            }
            Effect::Query {
                req,
                db,
                coll,
                query,
                work,
            } => {
                let (cancel_tx, cancel_rx) = oneshot::channel();
                self.cancels.retain(|_, c| !c.is_closed());
                self.cancels.insert(req, cancel_tx);
                if self.queries.is_none() {
                    self.queries =
                        start_query_worker(self.target.clone(), self.timeout, self.tx.clone());
                }
                let job = QueryJob {
                    req,
                    meta: CollectionMeta::new(&db, &coll),
                    query: *query,
                    work,
                };
                let sent = match &self.queries {
                    Some(q) => q.send((job, cancel_rx)).map_err(|e| e.0 .0),
                    None => Err(job),
                };
                if let Err(job) = sent {
                    let reply = failed(job.work, "cannot start a worker".into());
                    let _ = self.tx.send(Msg::Query { req, reply });
                }
            }
            Effect::Export {
                path,
                contents,
                what,
            } => {
                let _ = self.tx.send(Msg::Done(match write_new(&path, &contents) {
                    Ok(p) if p == path => Ok(format!("wrote {what} to {}", p.display())),
                    Ok(p) => Ok(format!(
                        "wrote {what} to {} ({} exists and was left as it is)",
                        p.display(),
                        path.display()
                    )),
                    Err(e) => Err(format!("cannot write {}: {e}", path.display())),
                }));
            }
            Effect::Cancel { req } => {
                self.stops.remove(&req);
                if let Some(c) = self.cancels.remove(&req) {
                    let _ = c.send(());
                }
            }
            Effect::Stop { req } => {
                if let Some(s) = self.stops.get(&req) {
                    s.store(true, Ordering::Relaxed);
                }
            }
            Effect::Copy { text, what } => {
                let r = out
                    .write_all(osc52(&text).as_bytes())
                    .and_then(|()| out.flush());
                let _ = self.tx.send(Msg::Done(match r {
                    Ok(()) => Ok(format!(
                        "copied the script of {what} ({} lines) with OSC 52 — if your terminal allows it",
                        text.lines().count()
                    )),
                    Err(e) => Err(format!("cannot copy: {e}")),
                }));
            }
            Effect::WriteFile {
                path,
                contents,
                what,
            } => {
                let _ = self.tx.send(Msg::Done(match write_new(&path, &contents) {
                    Ok(p) if p == path => {
                        Ok(format!("wrote the script of {what} to {}", p.display()))
                    }
                    Ok(p) => Ok(format!(
                        "wrote the script of {what} to {} ({} exists and was left as it is)",
                        p.display(),
                        path.display()
                    )),
                    Err(e) => Err(format!("cannot write {}: {e}", path.display())),
                }));
            }
            Effect::Quit => {
                for (_, c) in self.cancels.drain() {
                    let _ = c.send(());
                }
            }
        }
    }
}

/// Writes `contents` to a file that did not exist: `path`, else
/// `stem-2.ext`, `stem-3.ext` … beside it. Returns the path written.
fn write_new(path: &std::path::Path, contents: &str) -> std::io::Result<PathBuf> {
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
            Ok(mut f) => {
                f.write_all(contents.as_bytes())?;
                return Ok(p);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free file name")))
}

/// The OSC 52 escape that asks the terminal to set the clipboard.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

fn base64(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let n = chunk.len();
        let v = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= n {
                out.push(A[((v >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn spawn_sampling(
    req: u64,
    target: Target,
    plan: Plan,
    timeout: Duration,
    cancel: oneshot::Receiver<()>,
    tx: Sender<Msg>,
) {
    let err_tx = tx.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("docshape-sample-{req}"))
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = tx.send(Msg::Loaded {
                        req,
                        result: Err(format!("cannot start a worker: {e}")),
                    });
                    return;
                }
            };
            let progress_tx = tx.clone();
            // A panic in the pipeline is a failed run, shown in the UI; the
            // panic hook leaves the screen to the UI meanwhile.
            let result = catch_panic("sampling", || {
                super::terminal::inject_panic("sample", &target.label());
                rt.block_on(async move {
                    tokio::select! {
                        r = sample(&target, &plan, timeout, req, &progress_tx) => {
                            Some(r.map(Box::new).map_err(|e| e.to_string()))
                        }
                        _ = cancel => None,
                    }
                })
            });
            tracing::debug!(req, cancelled = result.is_none(), "sampling finished");
            if let Some(result) = result {
                let _ = tx.send(Msg::Loaded { req, result });
            }
        });
    if let Err(e) = spawned {
        let _ = err_tx.send(Msg::Loaded {
            req,
            result: Err(format!("cannot start a worker: {e}")),
        });
    }
}

/// One query request, for its worker.
struct QueryJob {
    req: u64,
    meta: CollectionMeta,
    query: Query,
    work: QueryWork,
}

/// The reply a failed request gets, of its kind.
fn failed(work: QueryWork, e: String) -> Reply {
    match work {
        QueryWork::Page => Reply::Page(Err(e)),
        QueryWork::Count => Reply::Count(Err(e)),
        QueryWork::Explain => Reply::Explain(Err(e)),
    }
}

/// The connection queries go through, opened at the first query and kept
/// while it works, so a page costs one round trip, not a new connection.
enum Opened {
    Mongo(MongoSource),
    Files(FileSource),
}

type Jobs = tokio::sync::mpsc::UnboundedSender<(QueryJob, oneshot::Receiver<()>)>;

/// Starts the query worker: its own thread and runtime, like sampling, so
/// the loop never waits for the server. Requests run side by side (a page
/// and its count); a cancelled one is dropped at its next await.
fn start_query_worker(target: Target, timeout: Duration, tx: Sender<Msg>) -> Option<Jobs> {
    let (jobs, mut rx) =
        tokio::sync::mpsc::unbounded_channel::<(QueryJob, oneshot::Receiver<()>)>();
    let spawned = std::thread::Builder::new()
        .name("docshape-query".into())
        .spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                while let Ok((job, _)) = rx.try_recv() {
                    let reply = failed(job.work, "cannot start a worker".into());
                    let _ = tx.send(Msg::Query { req: job.req, reply });
                }
                return;
            };
            let local = tokio::task::LocalSet::new();
            local.block_on(&rt, async move {
                let source: Rc<RefCell<Option<Rc<Opened>>>> = Rc::default();
                while let Some((job, cancel)) = rx.recv().await {
                    let opened = source.borrow().clone();
                    let src = match opened {
                        Some(s) => s,
                        None => match open(&target, timeout).await {
                            Ok(s) => {
                                let s = Rc::new(s);
                                *source.borrow_mut() = Some(Rc::clone(&s));
                                s
                            }
                            Err(e) => {
                                let reply = failed(job.work, e.to_string());
                                let _ = tx.send(Msg::Query { req: job.req, reply });
                                continue;
                            }
                        },
                    };
                    let (tx, source) = (tx.clone(), Rc::clone(&source));
                    tokio::task::spawn_local(async move {
                        let (req, work) = (job.req, job.work);
                        let run = std::panic::AssertUnwindSafe(browse(&src, &job)).catch_unwind();
                        let result = tokio::select! {
                            r = run => Some(r),
                            _ = cancel => None,
                        };
                        tracing::debug!(req, cancelled = result.is_none(), "query finished");
                        let reply = match result {
                            None => return,
                            Some(Ok((reply, gone))) => {
                                // The next query connects again.
                                if gone {
                                    source.borrow_mut().take();
                                }
                                reply
                            }
                            Some(Err(payload)) => failed(
                                work,
                                format!(
                                    "internal error while running the query (a bug, please report it): {}",
                                    super::terminal::panic_message(payload.as_ref())
                                ),
                            ),
                        };
                        let _ = tx.send(Msg::Query { req, reply });
                    });
                }
            });
        });
    spawned.ok().map(|_| jobs)
}

async fn open(target: &Target, timeout: Duration) -> Result<Opened, SourceError> {
    Ok(match target {
        Target::Mongo(uri) => Opened::Mongo(MongoSource::connect(uri, timeout).await?),
        Target::Path(p) => Opened::Files(FileSource::open(p)?),
    })
}

/// The reply, and whether the connection is gone.
async fn browse(src: &Opened, job: &QueryJob) -> (Reply, bool) {
    match src {
        Opened::Mongo(s) => browse_with(s, job).await,
        Opened::Files(s) => browse_with(s, job).await,
    }
}

async fn browse_with<B: Browse>(src: &B, job: &QueryJob) -> (Reply, bool) {
    let (meta, q) = (&job.meta, &job.query);
    let mut gone = false;
    let mut said = |e: SourceError| {
        gone |= e.is_gone();
        e.to_string()
    };
    let reply = match job.work {
        QueryWork::Page => Reply::Page(
            src.find_page(meta, q)
                .await
                .map(|docs| {
                    docs.iter()
                        .filter_map(|d| {
                            let mut b = Vec::new();
                            d.to_writer(&mut b).ok().map(|()| b)
                        })
                        .collect()
                })
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
    what: &str,
    job: impl FnOnce() -> Option<Result<T, String>>,
) -> Option<Result<T, String>> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).unwrap_or_else(|payload| {
        Some(Err(format!(
            "internal error while {what} (a bug, please report it): {}",
            super::terminal::panic_message(payload.as_ref())
        )))
    })
}

/// A lesson's data sets audited on a worker thread, like sampling.
fn spawn_measuring(
    req: u64,
    index: usize,
    lang: Lang,
    timeout: Duration,
    cancel: oneshot::Receiver<()>,
    tx: Sender<Msg>,
) {
    let err_tx = tx.clone();
    let spawned = std::thread::Builder::new()
        .name(format!("docshape-lesson-{req}"))
        .spawn(move || {
            let result = catch_panic("measuring the lesson", || {
                measure(index, lang, timeout, cancel)
            });
            tracing::debug!(req, cancelled = result.is_none(), "lesson measured");
            if let Some(result) = result {
                let _ = tx.send(Msg::Lesson { req, result });
            }
        });
    if let Err(e) = spawned {
        let _ = err_tx.send(Msg::Lesson {
            req,
            result: Err(format!("cannot start a worker: {e}")),
        });
    }
}

/// `None` when cancelled.
fn measure(
    index: usize,
    lang: Lang,
    timeout: Duration,
    cancel: oneshot::Receiver<()>,
) -> Option<Result<Vec<(String, Report)>, String>> {
    let Some(lesson) = crate::lesson::LESSONS.get(index) else {
        return Some(Err(format!("no lesson number {index}")));
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return Some(Err(format!("cannot start a worker: {e}"))),
    };
    rt.block_on(async move {
        tokio::select! {
            r = crate::lesson::measure(lesson, None, "docshape_", lang, timeout) => {
                Some(r.map_err(|e| e.to_string()))
            }
            _ = cancel => None,
        }
    })
}

async fn sample(
    target: &Target,
    plan: &Plan,
    timeout: Duration,
    req: u64,
    tx: &Sender<Msg>,
) -> Result<Report, SourceError> {
    let mut show = |p: &Progress<'_>| {
        if let Some(c) = p.finished {
            let _ = tx.send(Msg::Arrived {
                req,
                position: p.position,
                collection: Box::new(c.preview(ARRIVAL_DOCS)),
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
    match target {
        Target::Mongo(uri) => {
            let mut src = MongoSource::connect(uri, timeout).await?;
            run(&mut src, plan, &mut show).await
        }
        Target::Path(p) => {
            let mut src = FileSource::open(p)?;
            run(&mut src, plan, &mut show).await
        }
    }
}

/// Documents of an arrived collection the explorer shows before the run
/// ends (the whole kept sample comes with the report).
const ARRIVAL_DOCS: usize = 50;

async fn run<S: Source>(
    src: &mut S,
    plan: &Plan,
    show: &mut dyn FnMut(&Progress<'_>),
) -> Result<Report, SourceError> {
    audit::run(src, plan, show).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_known_values() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }
}

#[cfg(test)]
mod executor_tests {
    use super::*;
    use crate::source::Selection;

    #[test]
    fn write_file_reports_back() {
        let (tx, rx) = std::sync::mpsc::channel();
        let plan = Plan::new(Selection::default(), SampleMode::Sample(10));
        let mut ex = Executor::new(Target::Path(".".into()), plan, Duration::from_secs(1), tx);
        let dir = std::env::temp_dir().join(format!("docshape-fx-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join("a.b.rule.js");
        let mut out = Vec::new();
        ex.run(
            Effect::WriteFile {
                path: path.clone(),
                contents: "db.x.find()".into(),
                what: "rule at x".into(),
            },
            &mut out,
        );
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("db.x.find()")
        );
        assert!(
            matches!(rx.try_recv(), Ok(Msg::Done(Ok(s))) if s.contains("a.b.rule.js") && s.contains("rule at x"))
        );
        // A second write never replaces the first file.
        ex.run(
            Effect::WriteFile {
                path: path.clone(),
                contents: "db.y.find()".into(),
                what: "rule at x".into(),
            },
            &mut out,
        );
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("db.x.find()")
        );
        let second = dir.join("a.b.rule-2.js");
        assert_eq!(
            std::fs::read_to_string(&second).ok().as_deref(),
            Some("db.y.find()")
        );
        assert!(
            matches!(rx.try_recv(), Ok(Msg::Done(Ok(s))) if s.contains("a.b.rule-2.js") && s.contains("left as it is"))
        );
        ex.run(
            Effect::Copy {
                text: "hi".into(),
                what: "x".into(),
            },
            &mut out,
        );
        assert_eq!(out, osc52("hi").into_bytes());
        let bad = dir.join("no/such/dir/x.js");
        ex.run(
            Effect::WriteFile {
                path: bad,
                contents: String::new(),
                what: String::new(),
            },
            &mut out,
        );
        let _ = rx.try_recv();
        assert!(matches!(rx.try_recv(), Ok(Msg::Done(Err(_)))));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
