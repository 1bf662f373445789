//! Browsing a collection with a user's query: a page of the documents
//! that match, how many match, and how the query runs. Read-only like
//! every source: on a server a `find`, a `countDocuments` (an `aggregate`
//! with `$match` and `$group`) and an `explain` of the `find`, each bounded
//! by the timeout; in files a scan with [`super::matcher`].

use bson::{doc, Bson, Document};
use futures_util::TryStreamExt;

use super::matcher::{self, Matcher};
use super::query::Query;
use super::{CollectionMeta, FileSource, MongoSource, Result, SampleMode, Source, SourceError};

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

/// Reads an `explain` reply (classic and slot-based plans alike).
pub fn explain_of(reply: &Document) -> Explain {
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
                .map(|k| format!(" {}", Bson::Document(k.clone()).into_relaxed_extjson()))
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
                .and_then(super::bson_as_i64)
                .and_then(|v| u64::try_from(v).ok())
        };
        out.returned = n("nReturned");
        out.keys_examined = n("totalKeysExamined");
        out.docs_examined = n("totalDocsExamined");
        out.millis = n("executionTimeMillis");
    }
    out
}

impl FileSource {
    /// Every document of the collection that matches `filter`, handed to
    /// `each` in file order; the number of documents read.
    async fn scan_matching(
        &self,
        meta: &CollectionMeta,
        filter: &Document,
        each: &mut dyn FnMut(Document),
    ) -> Result<u64> {
        let ns = meta.namespace();
        let m = Matcher::new(filter).map_err(|e| bad_query(&ns, e))?;
        let mut sink = |bytes: &[u8]| {
            if let Ok(d) = Document::from_reader(bytes) {
                if m.matches(&d) {
                    each(d);
                }
            }
        };
        let out = self.sample(meta, SampleMode::Full, &mut sink).await?;
        Ok(out.total.unwrap_or(out.read))
    }
}

impl Browse for FileSource {
    async fn find_page(&self, meta: &CollectionMeta, q: &Query) -> Result<Vec<Document>> {
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
                self.scan_matching(meta, &q.filter, &mut |d| {
                    kept.push(d);
                    if kept.len() >= keep.saturating_mul(2).max(1024) {
                        kept.sort_by(&order);
                        kept.truncate(keep);
                    }
                })
                .await?;
                kept.sort_by(&order);
                kept.truncate(keep);
            }
            None => {
                let mut seen = 0usize;
                self.scan_matching(meta, &q.filter, &mut |d| {
                    if seen >= skip && seen < keep {
                        kept.push(d);
                    }
                    seen += 1;
                })
                .await?;
                return Ok(project_all(kept, q.projection.as_ref()));
            }
        }
        let page = kept.split_off(skip.min(kept.len()));
        Ok(project_all(page, q.projection.as_ref()))
    }

    async fn count_matching(&self, meta: &CollectionMeta, filter: &Document) -> Result<u64> {
        let mut n = 0;
        self.scan_matching(meta, filter, &mut |_| n += 1).await?;
        Ok(n)
    }

    async fn explain(&self, meta: &CollectionMeta, q: &Query) -> Result<Explain> {
        let started = std::time::Instant::now();
        let mut returned = 0u64;
        let read = self
            .scan_matching(meta, &q.filter, &mut |_| returned += 1)
            .await?;
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

fn project_all(docs: Vec<Document>, projection: Option<&Document>) -> Vec<Document> {
    match projection {
        Some(p) => docs.iter().map(|d| matcher::project(d, p)).collect(),
        None => docs,
    }
}
