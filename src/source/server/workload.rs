//! What a server recorded of its workload, for `--workload profile`: the
//! profiler's entries (`system.profile` of each selected database, read
//! like any collection), the plan `explain` gives for a read whose entry
//! names none, the reads and writes counted per collection (`$collStats`
//! latencyStats, `top`) and `$queryStats`. Read-only like every source:
//! the profiling level is read (`{profile: -1}`), never set.

use std::collections::BTreeMap;

use bson::{doc, Document};
use futures_util::StreamExt;
use serde::Serialize;

use super::MongoSource;
use crate::source::{bson_as_i64, Result, Selection, SourceError};

/// Profiler entries per reply: small replies, so a slow link or a large
/// profile is read a bounded batch at a time.
const PROFILE_BATCH: u32 = 1000;

/// How the profiler of one database stands, and what reading it gave.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ProfilerDb {
    pub db: String,
    /// The profiling level now (0 off, 1 slow operations, 2 every
    /// operation), where the server says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<i64>,
    /// Milliseconds that make an operation slow, where the server says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowms: Option<i64>,
    /// Entries read from `system.profile`.
    pub entries: u64,
    /// Why `system.profile` could not be read (to the end), if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Operations a server counted on one collection since it started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OpCounts {
    pub reads: u64,
    pub writes: u64,
    /// Where the counts come from: `latencyStats` (`$collStats`) or `top`.
    pub source: String,
}

/// Operations `$collStats` latencyStats counted on one collection.
#[derive(Clone, Copy, Debug, Default)]
struct Latency {
    reads: u64,
    writes: u64,
    commands: u64,
}

/// Entry fields never needed for a shape, left on the server.
fn profile_projection() -> Document {
    doc! {
        "command.documents": 0,
        "originatingCommand": 0,
        "execStats": 0,
        "locks": 0,
        "storage": 0,
        "flowControl": 0,
        "responseLength": 0,
        "allUsers": 0,
    }
}

fn count(d: &Document, path: &[&str]) -> u64 {
    let mut cur = d;
    for (i, k) in path.iter().enumerate() {
        if i + 1 == path.len() {
            return cur
                .get(*k)
                .and_then(bson_as_i64)
                .and_then(|n| u64::try_from(n).ok())
                .unwrap_or(0);
        }
        match cur.get_document(*k) {
            Ok(next) => cur = next,
            Err(_) => return 0,
        }
    }
    0
}

impl MongoSource {
    /// The profiling level and slow threshold of `db` (`{profile: -1}`
    /// reads them and changes nothing).
    async fn profiling_status(&self, db: &str) -> Result<(Option<i64>, Option<i64>)> {
        let database = self.client().database(db);
        let reply = self
            .call(&format!("reading the profiling level of {db}"), async {
                database.run_command(doc! {"profile": -1}).await
            })
            .await?;
        Ok((
            reply.get("was").and_then(bson_as_i64),
            reply.get("slowms").and_then(bson_as_i64),
        ))
    }

    /// Every entry of `db.system.profile`, in the order the server holds
    /// them, each batch bounded by the timeout; how many were read.
    async fn profile_entries(
        &self,
        db: &str,
        each: &mut dyn FnMut(&str, &Document),
    ) -> Result<u64> {
        let coll = self
            .client()
            .database(db)
            .collection::<Document>("system.profile");
        let what = format!("reading {db}.system.profile");
        let max_time = self.timeout();
        let mut cursor = self
            .call(&what, async {
                coll.find(doc! {})
                    .projection(profile_projection())
                    .batch_size(PROFILE_BATCH)
                    .max_time(max_time)
                    .await
            })
            .await?;
        let mut n = 0u64;
        while self.call(&what, async { cursor.advance().await }).await? {
            // An entry that does not decode is handed over empty: it is
            // counted, and skipped with a reason.
            let d = cursor.deserialize_current().unwrap_or_default();
            each(db, &d);
            n += 1;
        }
        Ok(n)
    }

    pub(super) async fn read_profiler(
        &self,
        selection: &Selection,
        each: &mut dyn FnMut(&str, &Document),
    ) -> Result<Vec<ProfilerDb>> {
        let mut out = Vec::new();
        for db in self.database_names(selection).await? {
            let mut p = ProfilerDb {
                db: db.clone(),
                ..ProfilerDb::default()
            };
            match self.profiling_status(&db).await {
                Ok((level, slowms)) => (p.level, p.slowms) = (level, slowms),
                Err(e) if e.is_gone() => return Err(e),
                // A user without the `enableProfiler` action may still
                // read `system.profile`: the level stays unknown.
                Err(_) => {}
            }
            let mut read = 0u64;
            let mut counted = |d: &str, e: &Document| {
                read += 1;
                each(d, e);
            };
            match self.profile_entries(&db, &mut counted).await {
                Ok(_) => {}
                Err(e) if e.is_gone() => return Err(e),
                Err(e) => p.error = Some(e.to_string()),
            }
            p.entries = read;
            out.push(p);
        }
        Ok(out)
    }

    pub(super) async fn explain_read(&self, db: &str, command: Document) -> Result<Document> {
        let max_time = i64::try_from(self.timeout().as_millis()).unwrap_or(i64::MAX);
        let database = self.client().database(db);
        self.call(&format!("explaining a query of {db}"), async {
            database
                .run_command(
                    doc! {"explain": command, "verbosity": "queryPlanner", "maxTimeMS": max_time},
                )
                .await
        })
        .await
    }

    /// `top`'s counters of every namespace: (reads, writes), reads being
    /// the operations under a read lock other than a cursor's `getMore`.
    async fn top(&self) -> Result<BTreeMap<String, (u64, u64)>> {
        let admin = self.client().database("admin");
        let reply = self
            .call("reading top", async {
                admin.run_command(doc! {"top": 1}).await
            })
            .await?;
        let mut out = BTreeMap::new();
        if let Ok(totals) = reply.get_document("totals") {
            for (ns, v) in totals {
                let Some(t) = v.as_document() else { continue };
                let reads = count(t, &["readLock", "count"])
                    .saturating_sub(count(t, &["getmore", "count"]));
                out.insert(ns.clone(), (reads, count(t, &["writeLock", "count"])));
            }
        }
        Ok(out)
    }

    /// `$collStats` latencyStats of one namespace.
    async fn latency_stats(&self, ns: &str) -> Result<Latency> {
        let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
        let collection = self.client().database(db).collection::<Document>(coll);
        let max_time = self.timeout();
        let what = format!("reading the latency statistics of {ns}");
        let mut cursor = self
            .call(&what, async {
                collection
                    .aggregate([doc! {"$collStats": {"latencyStats": {}}}])
                    .max_time(max_time)
                    .await
            })
            .await?;
        let mut ops = Latency::default();
        while self.call(&what, async { cursor.advance().await }).await? {
            let stats = cursor
                .deserialize_current()
                .map_err(|e| SourceError::Server {
                    what: what.clone(),
                    reason: e.to_string(),
                })?;
            // One document per shard on a sharded cluster: summed.
            ops.reads += count(&stats, &["latencyStats", "reads", "ops"]);
            ops.writes += count(&stats, &["latencyStats", "writes", "ops"]);
            ops.commands += count(&stats, &["latencyStats", "commands", "ops"]);
        }
        Ok(ops)
    }

    pub(super) async fn read_op_counts(
        &self,
        namespaces: &[String],
    ) -> Result<(BTreeMap<String, OpCounts>, Vec<String>)> {
        let mut notes = Vec::new();
        let top = match self.top().await {
            Ok(t) => Some(t),
            Err(e) if e.is_gone() => return Err(e),
            Err(e) => {
                notes.push(format!("top was not answered: {e}"));
                None
            }
        };
        let latency: Vec<(String, Result<Latency>)> =
            futures_util::stream::iter(namespaces.iter().cloned())
                .map(|ns| async move {
                    let r = self.latency_stats(&ns).await;
                    (ns, r)
                })
                .buffered(crate::source::Documents::in_flight(self).max(1))
                .collect()
                .await;
        let mut refused = None;
        let mut out = BTreeMap::new();
        for (ns, answer) in latency {
            let latency = match answer {
                Ok(l) => Some(l),
                Err(e) if e.is_gone() => return Err(e),
                Err(e) => {
                    refused.get_or_insert(e.to_string());
                    None
                }
            };
            let locks = top.as_ref().and_then(|t| t.get(&ns)).copied();
            // latencyStats tells reads from writes by command; a server
            // that answers it with nothing counted (none on a busy
            // collection) is read through top instead.
            let counts = match (latency, locks) {
                (Some(l), _) if l.reads + l.writes + l.commands > 0 => {
                    Some((l.reads, l.writes, "latencyStats"))
                }
                (_, Some((reads, writes))) if reads + writes > 0 => Some((reads, writes, "top")),
                (Some(l), _) => Some((l.reads, l.writes, "latencyStats")),
                (None, Some((reads, writes))) => Some((reads, writes, "top")),
                (None, None) => None,
            };
            if let Some((reads, writes, source)) = counts {
                out.insert(
                    ns,
                    OpCounts {
                        reads,
                        writes,
                        source: source.to_owned(),
                    },
                );
            }
        }
        if let Some(e) = refused {
            notes.push(format!("$collStats latencyStats was not answered: {e}"));
        }
        Ok((out, notes))
    }

    pub(super) async fn read_query_stats(&self, each: &mut dyn FnMut(&Document)) -> Result<u64> {
        let admin = self.client().database("admin");
        let max_time = self.timeout();
        let what = "reading $queryStats";
        let mut cursor = self
            .call(what, async {
                admin
                    .aggregate([doc! {"$queryStats": {}}])
                    .max_time(max_time)
                    .batch_size(PROFILE_BATCH)
                    .await
            })
            .await?;
        let mut n = 0u64;
        while self.call(what, async { cursor.advance().await }).await? {
            let d = cursor.deserialize_current().unwrap_or_default();
            each(&d);
            n += 1;
        }
        Ok(n)
    }
}
