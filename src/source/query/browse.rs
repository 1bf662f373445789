//! Browsing a collection with a user's query: a page of the documents
//! that match, how many match, and how the query runs. Read-only like
//! every source: on a server a `find`, a `countDocuments` (an `aggregate`
//! with `$match` and `$group`) and an `explain` of the `find`, each bounded
//! by the timeout; in files a scan with [`super::matcher`].

use crate::profile::extjson::Relaxed as _;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bson::{doc, Bson, Document};
use futures_util::TryStreamExt;

use super::matcher::{self, Matcher};
use super::parse::Query;
use crate::source::{CollectionMeta, FileSource, MongoSource, Result, SourceError};

/// How a query runs, from `explain` (or a file scan).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explain {
    /// The winning plan's stages, outermost first (`LIMIT ← FETCH ←
    /// IXSCAN`), or `file scan`.
    pub plan: Vec<String>,
    /// The index used, with its key pattern (`status_1 {status: 1}`).
    pub index: Option<String>,
    pub keys_examined: Option<u64>,
    pub docs_examined: Option<u64>,
    pub returned: Option<u64>,
    pub millis: Option<u64>,
}

/// Reading a collection through a query.
#[allow(async_fn_in_trait)]
pub trait Browse {
    /// The documents matching `q` from its `skip`, at most its `limit`.
    async fn find_page(&self, meta: &CollectionMeta, q: &Query) -> Result<Vec<Document>>;

    /// How many documents match `filter`.
    async fn count_matching(&self, meta: &CollectionMeta, filter: &Document) -> Result<u64>;

    /// How the query runs.
    async fn explain(&self, meta: &CollectionMeta, q: &Query) -> Result<Explain>;
}

fn bad_query(ns: &str, reason: String) -> SourceError {
    SourceError::Server {
        what: format!("running the query on {ns}"),
        reason,
    }
}

impl Browse for MongoSource {
    async fn find_page(&self, meta: &CollectionMeta, q: &Query) -> Result<Vec<Document>> {
        let coll = self
            .client()
            .database(&meta.db)
            .collection::<Document>(&meta.name);
        let what = format!("querying {}", meta.namespace());
        let mut find = coll
            .find(q.filter.clone())
            .skip(q.skip)
            .max_time(self.timeout());
        if let Some(l) = q.limit {
            let l = i64::try_from(l).unwrap_or(i64::MAX);
            find = find
                .limit(l)
                .batch_size(u32::try_from(l).unwrap_or(u32::MAX));
        }
        if let Some(s) = &q.sort {
            find = find.sort(s.clone());
        }
        if let Some(p) = &q.projection {
            find = find.projection(p.clone());
        }
        let cursor = self.call(&what, async { find.await }).await?;
        self.call(&what, async { cursor.try_collect::<Vec<_>>().await })
            .await
    }

    async fn count_matching(&self, meta: &CollectionMeta, filter: &Document) -> Result<u64> {
        let coll = self
            .client()
            .database(&meta.db)
            .collection::<Document>(&meta.name);
        let what = format!("counting the matching documents of {}", meta.namespace());
        self.call(&what, async {
            coll.count_documents(filter.clone())
                .max_time(self.timeout())
                .await
        })
        .await
    }

    async fn explain(&self, meta: &CollectionMeta, q: &Query) -> Result<Explain> {
        let mut find = doc! {"find": &meta.name, "filter": q.filter.clone()};
        if let Some(s) = &q.sort {
            find.insert("sort", s.clone());
        }
        if let Some(p) = &q.projection {
            find.insert("projection", p.clone());
        }
        if q.skip > 0 {
            find.insert("skip", i64::try_from(q.skip).unwrap_or(i64::MAX));
        }
        if let Some(l) = q.limit {
            find.insert("limit", i64::try_from(l).unwrap_or(i64::MAX));
        }
        let millis = i64::try_from(self.timeout().as_millis()).unwrap_or(i64::MAX);
        let command = doc! {"explain": find, "verbosity": "executionStats", "maxTimeMS": millis};
        let database = self.client().database(&meta.db);
        let reply = self
            .call(
                &format!("explaining the query on {}", meta.namespace()),
                async { database.run_command(command).await },
            )
            .await?;
        Ok(explain_of(&reply))
    }
}

impl MongoSource {
    /// Every document matching `q` — its skip, limit, sort and
    /// projection — handed to `each` as the cursor brings them, until
    /// `each` answers `false`; the number handed. The server's work is
    /// bounded by the timeout (`maxTimeMS`, for the cursor as a whole), and
    /// so is every wait for a batch.
    pub(crate) async fn find_each(
        &self,
        meta: &CollectionMeta,
        q: &Query,
        each: &mut dyn FnMut(Document) -> bool,
    ) -> Result<u64> {
        let coll = self
            .client()
            .database(&meta.db)
            .collection::<Document>(&meta.name);
        let what = format!("reading the matches of {}", meta.namespace());
        let mut find = coll
            .find(q.filter.clone())
            .skip(q.skip)
            .max_time(self.timeout());
        if let Some(l) = q.limit {
            find = find.limit(i64::try_from(l).unwrap_or(i64::MAX));
        }
        if let Some(s) = &q.sort {
            find = find.sort(s.clone());
        }
        if let Some(p) = &q.projection {
            find = find.projection(p.clone());
        }
        let mut cursor = self.call(&what, async { find.await }).await?;
        let mut handed = 0u64;
        while let Some(d) = self.call(&what, async { cursor.try_next().await }).await? {
            handed += 1;
            if !each(d) {
                break;
            }
        }
        Ok(handed)
    }
}

/// Reads an `explain` reply (classic and slot-based plans alike).
pub(crate) fn explain_of(reply: &Document) -> Explain {
    let mut out = Explain::default();
    let planner = reply.get_document("queryPlanner").ok();
    let winning = planner.and_then(|p| p.get_document("winningPlan").ok());
    let plan = winning.map(|w| w.get_document("queryPlan").unwrap_or(w));
    let mut stage = plan;
    while let Some(s) = stage {
        if let Ok(name) = s.get_str("stage") {
            out.plan.push(name.to_owned());
        }
        if let Ok(index) = s.get_str("indexName") {
            let keys = s
                .get_document("keyPattern")
                .map(|k| format!(" {}", Bson::Document(k.clone()).relaxed()))
                .unwrap_or_default();
            out.index.get_or_insert_with(|| format!("{index}{keys}"));
        }
        stage = s.get_document("inputStage").ok().or_else(|| {
            s.get_array("inputStages")
                .ok()
                .and_then(|a| a.first())
                .and_then(Bson::as_document)
        });
    }
    if let Ok(stats) = reply.get_document("executionStats") {
        let n = |k: &str| {
            stats
                .get(k)
                .and_then(crate::source::bson_as_i64)
                .and_then(|v| u64::try_from(v).ok())
        };
        out.returned = n("nReturned");
        out.keys_examined = n("totalKeysExamined");
        out.docs_examined = n("totalDocsExamined");
        out.millis = n("executionTimeMillis");
    }
    out
}

/// When a file scan gives up before the end of the file: its time is up
/// (the explorer's `--timeout`), or it was cancelled (Esc). Checked at
/// every read of the file, so a scan stops within one buffer of either.
#[derive(Clone, Debug)]
pub struct Stop {
    started: Instant,
    timeout: Option<Duration>,
    cancelled: Arc<AtomicBool>,
}

/// Why a scan stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stopped {
    TimedOut(Duration),
    Cancelled,
}

impl Stop {
    /// A scan that ends at the end of the file, whatever it takes.
    pub fn never() -> Stop {
        Stop {
            started: Instant::now(),
            timeout: None,
            cancelled: Arc::default(),
        }
    }

    /// A scan that gives up `timeout` from now, or once `cancelled` is set.
    pub fn after(timeout: Duration, cancelled: Arc<AtomicBool>) -> Stop {
        Stop {
            started: Instant::now(),
            timeout: Some(timeout),
            cancelled,
        }
    }

    fn stopped(&self) -> Option<Stopped> {
        if self.cancelled.load(Ordering::Relaxed) {
            return Some(Stopped::Cancelled);
        }
        match self.timeout {
            Some(t) if self.started.elapsed() >= t => Some(Stopped::TimedOut(t)),
            _ => None,
        }
    }

    /// The error of a scan that failed: why it stopped, if it was stopped.
    fn explain(&self, what: String, e: SourceError) -> SourceError {
        match self.stopped() {
            Some(Stopped::TimedOut(t)) => SourceError::Timeout {
                secs: t.as_secs().max(1),
                what,
            },
            Some(Stopped::Cancelled) => SourceError::Server {
                what,
                reason: "cancelled".into(),
            },
            None => e,
        }
    }
}

/// A file read that fails once its scan is stopped, or has read enough.
struct Stoppable<'a, R> {
    inner: R,
    stop: &'a Stop,
    enough: &'a std::cell::Cell<bool>,
}

impl<R: Read> Read for Stoppable<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.enough.get() || self.stop.stopped().is_some() {
            return Err(std::io::Error::other("the scan was stopped"));
        }
        self.inner.read(buf)
    }
}

impl FileSource {
    /// Every document of the collection that matches `filter`, handed to
    /// `each` in file order, until the end of the file, `stop`, or `each`
    /// answers `false` (it has what it needs); the number of documents
    /// read.
    pub fn scan_within(
        &self,
        meta: &CollectionMeta,
        filter: &Document,
        stop: &Stop,
        each: &mut dyn FnMut(Document) -> bool,
    ) -> Result<u64> {
        let ns = meta.namespace();
        let m = Matcher::new(filter).map_err(|e| bad_query(&ns, e.to_string()))?;
        let enough = std::cell::Cell::new(false);
        let mut read = 0u64;
        let mut sink = |bytes: &[u8]| {
            if enough.get() {
                return;
            }
            read += 1;
            if let Ok(d) = Document::from_reader(bytes) {
                if m.matches(&d) && !each(d) {
                    enough.set(true);
                }
            }
        };
        let reader = |inner| Stoppable {
            inner,
            stop,
            enough: &enough,
        };
        match self.read_through(meta, reader, &mut sink) {
            Ok(_) => Ok(read),
            Err(_) if enough.get() => Ok(read),
            Err(e) => Err(stop.explain(format!("scanning {ns}"), e)),
        }
    }

    /// Every document matching `q` — its skip, limit, sort and
    /// projection — handed to `each` (which may answer `false` to stop),
    /// within `stop`; the number handed. A sort holds the matches in
    /// memory: past `memory` bytes of them it gives up and says so.
    pub(crate) fn find_each_within(
        &self,
        meta: &CollectionMeta,
        q: &Query,
        stop: &Stop,
        memory: usize,
        each: &mut dyn FnMut(Document) -> bool,
    ) -> Result<u64> {
        let skip = q.skip;
        let limit = q.limit.unwrap_or(u64::MAX);
        let project = |d: Document| match &q.projection {
            Some(p) => matcher::project(&d, p),
            None => d,
        };
        let mut handed = 0u64;
        let Some(sort) = &q.sort else {
            let mut seen = 0u64;
            self.scan_within(meta, &q.filter, stop, &mut |d| {
                seen += 1;
                if seen <= skip {
                    return true;
                }
                if handed >= limit {
                    return false;
                }
                handed += 1;
                each(project(d)) && handed < limit
            })?;
            return Ok(handed);
        };
        let mut held: Vec<Document> = Vec::new();
        let mut bytes = 0usize;
        let mut over = false;
        self.scan_within(meta, &q.filter, stop, &mut |d| {
            bytes = bytes.saturating_add(bson::serialize_to_vec(&d).map_or(0, |v| v.len()));
            if bytes > memory {
                over = true;
                return false;
            }
            held.push(d);
            true
        })?;
        if over {
            return Err(bad_query(
                &meta.namespace(),
                format!(
                    "a sorted export of a file holds the matches in memory, and more than {} of them match; export without a sort, or raise --memory",
                    crate::fmt::bytes(memory as f64)
                ),
            ));
        }
        held.sort_by(matcher::sort_order(sort));
        let skip = usize::try_from(skip).unwrap_or(usize::MAX);
        for d in held.into_iter().skip(skip) {
            if handed >= limit {
                break;
            }
            handed += 1;
            if !each(project(d)) {
                break;
            }
        }
        Ok(handed)
    }

    /// As [`Browse::find_page`], within `stop`.
    pub(crate) fn find_page_within(
        &self,
        meta: &CollectionMeta,
        q: &Query,
        stop: &Stop,
    ) -> Result<Vec<Document>> {
        let skip = usize::try_from(q.skip).unwrap_or(usize::MAX);
        let limit = q
            .limit
            .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        let keep = skip.saturating_add(limit);
        let mut kept: Vec<Document> = Vec::new();
        match &q.sort {
            Some(sort) => {
                // Only the first `keep` in sort order are ever needed: trim
                // to them whenever twice as many are held.
                let order = matcher::sort_order(sort);
                self.scan_within(meta, &q.filter, stop, &mut |d| {
                    kept.push(d);
                    if kept.len() >= keep.saturating_mul(2).max(1024) {
                        kept.sort_by(&order);
                        kept.truncate(keep);
                    }
                    true
                })?;
                kept.sort_by(&order);
                kept.truncate(keep);
            }
            None => {
                let mut seen = 0usize;
                self.scan_within(meta, &q.filter, stop, &mut |d| {
                    if seen >= skip && seen < keep {
                        kept.push(d);
                    }
                    seen += 1;
                    // The page is complete: the rest of the file is not read.
                    seen < keep
                })?;
                return Ok(project_all(kept, q.projection.as_ref()));
            }
        }
        let page = kept.split_off(skip.min(kept.len()));
        Ok(project_all(page, q.projection.as_ref()))
    }

    /// As [`Browse::count_matching`], within `stop`.
    pub fn count_within(
        &self,
        meta: &CollectionMeta,
        filter: &Document,
        stop: &Stop,
    ) -> Result<u64> {
        let mut n = 0;
        self.scan_within(meta, filter, stop, &mut |_| {
            n += 1;
            true
        })?;
        Ok(n)
    }

    /// As [`Browse::explain`], within `stop`.
    pub(crate) fn explain_within(
        &self,
        meta: &CollectionMeta,
        q: &Query,
        stop: &Stop,
    ) -> Result<Explain> {
        let started = Instant::now();
        let mut returned = 0u64;
        let read = self.scan_within(meta, &q.filter, stop, &mut |_| {
            returned += 1;
            true
        })?;
        let shown = returned.saturating_sub(q.skip);
        Ok(Explain {
            plan: vec!["file scan".into()],
            index: None,
            keys_examined: Some(0),
            docs_examined: Some(read),
            returned: Some(q.limit.map_or(shown, |l| shown.min(l))),
            millis: u64::try_from(started.elapsed().as_millis()).ok(),
        })
    }
}

impl Browse for FileSource {
    async fn find_page(&self, meta: &CollectionMeta, q: &Query) -> Result<Vec<Document>> {
        self.find_page_within(meta, q, &Stop::never())
    }

    async fn count_matching(&self, meta: &CollectionMeta, filter: &Document) -> Result<u64> {
        self.count_within(meta, filter, &Stop::never())
    }

    async fn explain(&self, meta: &CollectionMeta, q: &Query) -> Result<Explain> {
        self.explain_within(meta, q, &Stop::never())
    }
}

fn project_all(docs: Vec<Document>, projection: Option<&Document>) -> Vec<Document> {
    match projection {
        Some(p) => docs.iter().map(|d| matcher::project(d, p)).collect(),
        None => docs,
    }
}
