//! A live MongoDB deployment through the official driver. Read-only: the
//! only commands sent are `hello`, `listDatabases`, `listCollections`,
//! `listIndexes`, `collStats` (or `$collStats`), `count` and read cursors
//! (`aggregate` with `$sample`, `find`, `find(...).limit(1)` to look for an
//! indexed field); with `--workload profile` also `{profile: -1}` (which
//! reads the level), a `find` on `system.profile`, `explain` of a read at
//! `queryPlanner` verbosity, `top`, `$collStats` latencyStats and
//! `$queryStats` (see [`super::workload`]). Every call carries `maxTimeMS`
//! and is also cut off on the client after the same timeout.

use crate::profile::extjson::Relaxed as _;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bson::{doc, Document, RawDocumentBuf};
use futures_util::StreamExt;
use mongodb::error::ErrorKind;
use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::{ClientOptions, ServerAddress};
use mongodb::{Client, Collection};

use crate::secret::{mask_uri, Secrets};
use crate::source::{
    CheckMethod, CollectionKind, CollectionMeta, Documents, IndexInfo, IndexUsage, Insight,
    PresenceCheck, Probes, Reread, Result, SampleMode, SampleOutcome, Selection, Sink, SourceError,
    StorageStats,
};

/// Documents per cursor batch for small reads (probes, re-reads).
pub const BATCH_SIZE: u32 = 1000;
/// Most queries looking for indexed fields per collection (mongod holds at
/// most 64 indexes per collection, and each query settles one or more).
const MAX_PRESENCE_QUERIES: usize = 64;
/// Bytes a reading batch aims at: the server caps a reply at 16 MiB anyway.
const BATCH_BYTES: u64 = 16 << 20;

/// Documents per batch when reading a collection: a sample of `n` comes
/// back in one reply when it fits in 16 MiB (one more than `n`, so the
/// server closes the cursor instead of waiting for a `getMore`); a full
/// scan asks for as many documents as fill 16 MiB at the collection's
/// average size, so round trips ≈ data size / 16 MiB.
fn batch_size(meta: &CollectionMeta, n: Option<u64>) -> u32 {
    let avg = meta
        .storage
        .as_ref()
        .and_then(|s| s.avg_obj_size)
        .filter(|a| a.is_finite() && *a >= 1.0)
        .map_or(1024, |a| a.ceil() as u64);
    let fill = (BATCH_BYTES / avg).max(u64::from(BATCH_SIZE));
    let want = match n {
        Some(n) => n.saturating_add(1).min(100_000),
        None => fill,
    };
    u32::try_from(want.clamp(1, 1_000_000)).unwrap_or(1_000_000)
}

fn mode_limit(mode: SampleMode) -> Option<u64> {
    match mode {
        SampleMode::Sample(n) => Some(n),
        SampleMode::Full => None,
    }
}

pub struct MongoSource {
    client: Client,
    /// The same deployment without command monitoring, for reading
    /// documents: monitoring hands every reply to its handler as a parsed
    /// `Document`, which for a 16 MiB batch of small documents costs
    /// hundreds of MB. Round trips of its reads are counted by hand.
    reader: Client,
    label: String,
    timeout: Duration,
    /// The database named in the connection string, used when the user may
    /// not list databases.
    default_db: Option<String>,
    /// Passwords to scrub from any message shown.
    secrets: Secrets,
    /// Commands sent, per namespace and command name, as the driver's
    /// command monitoring sees them (every round trip to a server).
    trips: Arc<Mutex<RoundTrips>>,
    /// Collections described and read at once (at most the pool size).
    in_flight: usize,
    /// Connections the driver may open per server (`maxPoolSize`).
    pool: usize,
}

/// The application name docshape's connections give the server (the
/// profiler and the logs record it), so its own operations can be told
/// from the workload's.
pub const APP_NAME: &str = "docshape";

/// Collections in flight unless told otherwise.
pub const IN_FLIGHT: usize = 8;

/// Round trips per namespace (`db.coll`; `db` alone for database-level
/// commands), then per command name.
pub type RoundTrips = BTreeMap<String, BTreeMap<String, u64>>;

/// The namespace a command works on, from its document.
fn command_namespace(db: &str, name: &str, command: &Document) -> String {
    let coll = match name {
        "getMore" => command.get_str("collection").ok(),
        _ => command.get_str(name).ok(),
    };
    match coll {
        Some(c) => format!("{db}.{c}"),
        None => db.to_owned(),
    }
}

/// How long the first look at each seed host may take.
const PROBE: Duration = Duration::from_secs(2);

/// Why none of the seed hosts can be reached, when each one plainly cannot
/// (refused, unknown name, no route) within [`PROBE`]; `None` as soon as
/// one accepts a connection, or when one is only slow (a far server is the
/// driver's to wait for, within `--timeout`). The probe connects and
/// closes; it sends nothing.
async fn unreachable_seeds(hosts: &[ServerAddress]) -> Option<String> {
    let probes = hosts.iter().map(|h| async move {
        let ServerAddress::Tcp { host, port } = h else {
            return None;
        };
        let addr = format!("{host}:{}", port.unwrap_or(27017));
        match tokio::time::timeout(PROBE, tokio::net::TcpStream::connect(&addr)).await {
            Ok(Ok(_)) | Err(_) => None,
            Ok(Err(e)) => Some((addr, e)),
        }
    });
    let failures = futures_util::future::join_all(probes).await;
    if failures.is_empty() || failures.iter().any(Option::is_none) {
        return None;
    }
    let one = failures.len() == 1;
    Some(
        failures
            .into_iter()
            .flatten()
            .map(|(addr, e)| {
                if one {
                    e.to_string()
                } else {
                    format!("{addr}: {e}")
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
    )
}

impl MongoSource {
    /// Parses the URI and checks, within `timeout`, that a server answers.
    pub async fn connect(uri: &str, timeout: Duration) -> Result<MongoSource> {
        MongoSource::connect_as(uri, timeout, APP_NAME).await
    }

    /// [`MongoSource::connect`] under another application name (`seed`'s
    /// workload runs as the application it stands for, not as docshape).
    pub(crate) async fn connect_as(uri: &str, timeout: Duration, app: &str) -> Result<MongoSource> {
        let label = mask_uri(uri);
        let secrets = Secrets::of_uri(uri);
        let scrub = |s: String| secrets.scrub(&s);
        let mut opts = within(timeout, "parsing the connection string", async {
            ClientOptions::parse(uri).await
        })
        .await?
        .map_err(|e| SourceError::BadUri(scrub(short_message(&e))))?;
        opts.app_name = Some(app.into());
        // A refused port or an unknown host is known in milliseconds; the
        // driver would retry it until server selection gives up.
        if let Some(reason) = unreachable_seeds(&opts.hosts).await {
            return Err(SourceError::Unreachable {
                target: label,
                reason: scrub(reason),
            });
        }
        opts.server_selection_timeout = Some(timeout);
        opts.connect_timeout = Some(timeout.min(Duration::from_secs(10)));
        let default_db = opts.default_database.clone();
        // The driver's default pool holds 10 connections; 0 means no cap.
        let pool = match opts.max_pool_size {
            Some(0) => usize::MAX,
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
            None => 10,
        };
        let trips = Arc::new(Mutex::new(RoundTrips::new()));
        let tally = Arc::clone(&trips);
        let reader = Client::with_options(opts.clone())
            .map_err(|e| SourceError::BadUri(scrub(short_message(&e))))?;
        opts.command_event_handler = Some(EventHandler::callback(move |ev: CommandEvent| {
            if let CommandEvent::Started(s) = ev {
                let ns = command_namespace(&s.db, &s.command_name, &s.command);
                if let Ok(mut t) = tally.lock() {
                    *t.entry(ns).or_default().entry(s.command_name).or_default() += 1;
                }
            }
        }));
        let client = Client::with_options(opts)
            .map_err(|e| SourceError::BadUri(scrub(short_message(&e))))?;
        let src = MongoSource {
            client,
            reader,
            label,
            timeout,
            default_db,
            secrets,
            trips,
            in_flight: IN_FLIGHT.min(pool),
            pool,
        };
        src.call("connecting", async {
            src.client
                .database("admin")
                .run_command(doc! {"ping": 1})
                .await
        })
        .await?;
        Ok(src)
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    fn max_time(&self) -> Duration {
        self.timeout
    }

    /// Runs one driver call bounded by the timeout, mapping its errors.
    pub(crate) async fn call<T>(
        &self,
        what: &str,
        fut: impl Future<Output = mongodb::error::Result<T>>,
    ) -> Result<T> {
        match within(self.timeout, what, fut).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(self.map_error(what, &e)),
            // Not even the server's own maxTimeMS error came back: the
            // server (or the network to it) has stopped answering, and the
            // next call would wait just as long. That ends the run.
            Err(_) => Err(SourceError::Unreachable {
                target: self.label.clone(),
                reason: format!(
                    "no reply within {} s while {what}",
                    self.timeout.as_secs().max(1)
                ),
            }),
        }
    }

    /// Which of `values` the dotted `key` of `meta` holds: one `distinct`
    /// bounded by the timeout.
    async fn probe_one(
        &self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
    ) -> Result<Vec<bson::Bson>> {
        let database = self.client.database(&meta.db);
        let max_time = millis(self.max_time());
        let values: Vec<bson::Bson> = values.to_vec();
        let reply = self
            .call(
                &format!("probing references in {}", meta.namespace()),
                async {
                    database
                        .run_command(doc! {
                            "distinct": &meta.name,
                            "key": key,
                            "query": {key: {"$in": values}},
                            "maxTimeMS": max_time,
                        })
                        .await
                },
            )
            .await?;
        Ok(reply.get_array("values").cloned().unwrap_or_default())
    }

    fn map_error(&self, what: &str, e: &mongodb::error::Error) -> SourceError {
        let s = |x: String| self.secrets.scrub(&x);
        match &*e.kind {
            ErrorKind::ServerSelection { message, .. } => SourceError::Unreachable {
                target: self.label.clone(),
                reason: match selection_cause(message) {
                    // Why the server could not be used (a TLS handshake
                    // that failed, a refused connection) says more than
                    // the wait that followed.
                    Some(cause) => s(format!(
                        "no server answered within {} s ({cause})",
                        self.timeout.as_secs().max(1)
                    )),
                    // A TLS handshake with a server that does not speak
                    // TLS may simply never finish: nothing to quote, but
                    // the user asked for TLS, so say where to look.
                    None if asks_for_tls(&self.label) => format!(
                        "no server answered within {} s; the connection string asks for TLS and no TLS handshake completed (does the server accept TLS connections?)",
                        self.timeout.as_secs().max(1)
                    ),
                    None => format!(
                        "no server answered within {} s",
                        self.timeout.as_secs().max(1)
                    ),
                },
            },
            ErrorKind::DnsResolve { message, .. } => SourceError::Unreachable {
                target: self.label.clone(),
                reason: s(format!("DNS lookup failed ({message})")),
            },
            ErrorKind::Authentication { message, .. } => SourceError::Auth {
                target: self.label.clone(),
                reason: s(message.clone()),
            },
            ErrorKind::InvalidArgument { message, .. } => SourceError::BadUri(s(message.clone())),
            ErrorKind::InvalidTlsConfig { message, .. } => SourceError::Unreachable {
                target: self.label.clone(),
                reason: s(format!("TLS configuration error: {message}")),
            },
            ErrorKind::Command(c) if c.code == 50 => SourceError::Timeout {
                secs: self.timeout.as_secs(),
                what: what.to_owned(),
            },
            ErrorKind::Command(c) if c.code == 18 => SourceError::Auth {
                target: self.label.clone(),
                reason: s(c.message.clone()),
            },
            ErrorKind::Command(c) => SourceError::Server {
                what: what.to_owned(),
                reason: s(format!("{} (code {})", c.message, c.code)),
            },
            ErrorKind::Io(io) => SourceError::Unreachable {
                target: self.label.clone(),
                reason: s(io.to_string()),
            },
            _ => SourceError::Server {
                what: what.to_owned(),
                reason: s(short_message(e)),
            },
        }
    }

    pub(super) async fn database_names(&self, selection: &Selection) -> Result<Vec<String>> {
        let listed = self
            .call("listing databases", async {
                self.client.list_database_names().await
            })
            .await;
        let mut names = match listed {
            Ok(n) => n,
            // A user without listDatabases can still read the database the
            // connection string names, or the ones asked for by name.
            Err(SourceError::Server { .. }) => {
                let mut n = selection.dbs.clone();
                n.extend(self.default_db.clone());
                n
            }
            Err(e) => return Err(e),
        };
        names.retain(|d| selection.wants_db(d));
        names.sort();
        names.dedup();
        Ok(names)
    }

    /// Metadata of one collection. What the user may not read is noted;
    /// a server that is gone (or refuses us) ends the run.
    async fn describe(&self, db: &str, spec: &Document) -> Result<Option<CollectionMeta>> {
        let Ok(name) = spec.get_str("name") else {
            return Ok(None);
        };
        let mut meta = CollectionMeta::new(db, name);
        meta.kind = match spec.get_str("type").unwrap_or("collection") {
            "view" => CollectionKind::View,
            "timeseries" => CollectionKind::Timeseries,
            _ => CollectionKind::Collection,
        };
        if let Ok(opts) = spec.get_document("options") {
            if !opts.is_empty() {
                meta.options = Some(bson::Bson::Document(opts.clone()).relaxed());
            }
            // Some servers list a time-series collection as type
            // "collection" with its `timeseries` options.
            if meta.kind == CollectionKind::Collection && opts.contains_key("timeseries") {
                meta.kind = CollectionKind::Timeseries;
            }
        }
        let database = self.client.database(db);
        let coll = database.collection::<Document>(name);
        let max_time = self.max_time();
        let ns = meta.namespace();

        match self
            .call(&format!("counting the documents of {ns}"), async {
                coll.estimated_document_count().max_time(max_time).await
            })
            .await
        {
            Ok(n) => meta.documents = Some(n),
            Err(e) if gone(&e) => return Err(e),
            Err(e) => meta.notes.push(format!("document count unavailable: {e}")),
        }

        if meta.kind != CollectionKind::View {
            match self.storage_stats(db, name).await {
                Ok((s, note)) => {
                    meta.storage = Some(s);
                    meta.notes.extend(note);
                }
                Err(e) if gone(&e) => return Err(e),
                Err(e) => meta.notes.push(format!("storage sizes unavailable: {e}")),
            }
            match self
                .call(&format!("listing the indexes of {ns}"), async {
                    database
                        .run_command(doc! {"listIndexes": name, "maxTimeMS": millis(max_time)})
                        .await
                })
                .await
            {
                Ok(reply) => {
                    // Like listCollections, the first batch holds only the
                    // server's default batch size (101 on SecantusDB).
                    let what = format!("listing the indexes of {ns}");
                    match self.rest_of_cursor(db, &reply, &what).await {
                        Ok(rest) => {
                            meta.indexes = first_batch(&reply)
                                .iter()
                                .chain(&rest)
                                .filter_map(IndexInfo::from_spec)
                                .collect();
                        }
                        Err(e) if gone(&e) => return Err(e),
                        Err(e) => meta.notes.push(format!("indexes unavailable: {e}")),
                    }
                }
                Err(e) if gone(&e) => return Err(e),
                Err(e) => meta.notes.push(format!("indexes unavailable: {e}")),
            }
            match self.index_usage(&meta).await {
                Ok(u) => meta.index_usage = Some(u),
                Err(e) if gone(&e) => return Err(e),
                Err(_) => {}
            }
        }
        Ok(Some(meta))
    }

    /// `$indexStats`: operations per index since the server started counting.
    async fn index_usage(&self, meta: &CollectionMeta) -> Result<Vec<IndexUsage>> {
        let rows = self
            .aggregate_all(
                meta,
                &format!("reading $indexStats of {}", meta.namespace()),
                vec![doc! {"$indexStats": {}}],
            )
            .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let name = r.get_str("name").ok()?.to_owned();
                let acc = r.get_document("accesses").ok()?;
                let ops = acc
                    .get("ops")
                    .and_then(crate::source::bson_as_i64)
                    .unwrap_or(0);
                let since = match acc.get("since") {
                    Some(bson::Bson::DateTime(d)) => Some(d.timestamp_millis() as f64 / 1000.0),
                    _ => None,
                };
                Some(IndexUsage {
                    name,
                    ops: u64::try_from(ops).unwrap_or(0),
                    since,
                })
            })
            .collect())
    }

    /// Storage figures from `collStats`, else from `$collStats` (with a
    /// note saying why).
    async fn storage_stats(&self, db: &str, name: &str) -> Result<(StorageStats, Option<String>)> {
        let database = self.client.database(db);
        let max_time = millis(self.max_time());
        let reply = self
            .call(&format!("reading collStats of {db}.{name}"), async {
                database
                    .run_command(doc! {"collStats": name, "maxTimeMS": max_time})
                    .await
            })
            .await;
        let from_doc = |d: &Document| StorageStats {
            size: d
                .get("size")
                .and_then(crate::source::bson_as_i64)
                .map(|v| v as u64),
            storage_size: d
                .get("storageSize")
                .and_then(crate::source::bson_as_i64)
                .map(|v| v as u64),
            total_index_size: d
                .get("totalIndexSize")
                .and_then(crate::source::bson_as_i64)
                .map(|v| v as u64),
            index_sizes: d
                .get_document("indexSizes")
                .map(|s| {
                    s.iter()
                        .filter_map(|(k, v)| {
                            Some((k.clone(), crate::source::bson_as_i64(v)? as u64))
                        })
                        .collect()
                })
                .unwrap_or_default(),
            avg_obj_size: d.get("avgObjSize").and_then(|v| match v {
                bson::Bson::Double(x) => Some(*x),
                other => crate::source::bson_as_i64(other).map(|x| x as f64),
            }),
        };
        match reply {
            Ok(d) => Ok((from_doc(&d), None)),
            // Only a refusal is worth another try: after a timeout or a
            // lost connection the second command would fare no better.
            Err(first @ SourceError::Server { .. }) => {
                // collStats is deprecated on newer servers and may be refused
                // (a role without the collStats action); $collStats is the
                // supported route.
                let coll = database.collection::<Document>(name);
                let fallback = self
                    .call(&format!("reading $collStats of {db}.{name}"), async {
                        let mut c = coll
                            .aggregate([doc! {"$collStats": {"storageStats": {}}}])
                            .max_time(self.max_time())
                            .await?;
                        let mut out = None;
                        if c.advance().await? {
                            out = Some(c.deserialize_current()?);
                        }
                        Ok(out)
                    })
                    .await;
                let reason = match &first {
                    SourceError::Server { reason, .. } => reason.as_str(),
                    _ => "",
                };
                match fallback {
                    Ok(Some(d)) => Ok((
                        d.get_document("storageStats")
                            .map(from_doc)
                            .unwrap_or_default(),
                        Some(format!(
                            "collStats was refused ({reason}); storage sizes come from $collStats"
                        )),
                    )),
                    Err(e) if gone(&e) => Err(e),
                    Ok(None) | Err(_) => Err(first),
                }
            }
            Err(e) => Err(e),
        }
    }
}

impl Documents for MongoSource {
    fn label(&self) -> String {
        self.label.clone()
    }

    fn in_flight(&self) -> usize {
        self.in_flight
    }

    fn set_in_flight(&mut self, n: usize) {
        self.in_flight = n.clamp(1, self.pool);
    }

    async fn collections(&mut self, selection: &Selection) -> Result<Vec<CollectionMeta>> {
        let mut out = Vec::new();
        for db in self.database_names(selection).await? {
            let database = self.client.database(&db);
            let max_time = millis(self.max_time());
            let reply = self
                .call("listing collections", async {
                    database
                        .run_command(doc! {
                            "listCollections": 1,
                            "authorizedCollections": true,
                            "maxTimeMS": max_time,
                        })
                        .await
                })
                .await?;
            let mut specs = first_batch(&reply);
            // The first batch holds every collection up to the server's
            // default batch size; follow the cursor for the rest.
            let mut specs_rest = self
                .rest_of_cursor(&db, &reply, "listing collections")
                .await?;
            specs.append(&mut specs_rest);
            specs.sort_by(|a, b| {
                a.get_str("name")
                    .unwrap_or("")
                    .cmp(b.get_str("name").unwrap_or(""))
            });
            specs.retain(|spec| {
                spec.get_str("name")
                    .is_ok_and(|name| selection.wants(&db, name))
            });
            // Described a few at once (each is several round trips), kept
            // in name order; the first error that ends the run wins.
            let this = &*self;
            let db = db.as_str();
            let mut described = futures_util::stream::iter(specs.iter())
                .map(|spec| this.describe(db, spec))
                .buffered(this.in_flight.max(1));
            while let Some(meta) = described.next().await {
                out.extend(meta?);
            }
        }
        Ok(out)
    }

    async fn sample(
        &self,
        meta: &CollectionMeta,
        mode: SampleMode,
        sink: &mut dyn Sink,
    ) -> Result<SampleOutcome> {
        self.read_documents(meta, mode, sink).await
    }

    async fn extremes(
        &self,
        meta: &CollectionMeta,
        ask: &crate::source::ExtremesAsk,
    ) -> Result<crate::source::ExtremesOutcome> {
        self.whole_collection_extremes(meta, ask).await
    }
}

impl Probes for MongoSource {
    fn group_method(&self) -> &'static str {
        "server-group"
    }

    async fn probe(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
    ) -> Result<Vec<bson::Bson>> {
        self.probe_one(meta, key, values).await
    }

    /// Several probes of one collection, up to [`Documents::in_flight`] at
    /// once on the pool's connections (a far server answers them in one
    /// round trip's time instead of one each); answers in the order asked.
    async fn probe_many(
        &mut self,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Result<Vec<bson::Bson>>>> {
        let this = &*self;
        let mut replies = futures_util::stream::iter(asks.iter())
            .map(|(key, values)| this.probe_one(meta, key, values))
            .buffered(this.in_flight.max(1));
        let mut out = Vec::with_capacity(asks.len());
        while let Some(answer) = replies.next().await {
            match answer {
                Err(e) if e.is_fatal() => return Err(e),
                answer => out.push(answer),
            }
        }
        Ok(out)
    }

    async fn group_counts(&mut self, meta: &CollectionMeta, key: &str) -> Result<Vec<(u64, u64)>> {
        let field = format!("${key}");
        let rows = self
            .aggregate_all(
                meta,
                &format!("counting children per parent in {}", meta.namespace()),
                vec![
                    doc! {"$match": {key: {"$exists": true, "$ne": null}}},
                    doc! {"$group": {"_id": &field, "n": {"$sum": 1}}},
                    doc! {"$group": {"_id": "$n", "parents": {"$sum": 1}}},
                ],
            )
            .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                let n = r.get("_id").and_then(crate::source::bson_as_i64)?;
                let p = r.get("parents").and_then(crate::source::bson_as_i64)?;
                Some((u64::try_from(n).ok()?, u64::try_from(p).ok()?))
            })
            .collect())
    }

    async fn value_counts(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        max: usize,
    ) -> Result<Option<Vec<(bson::Bson, u64)>>> {
        let field = format!("${key}");
        let limit = i64::try_from(max).unwrap_or(i64::MAX).saturating_add(1);
        let rows = self
            .aggregate_all(
                meta,
                &format!("counting children per parent in {}", meta.namespace()),
                vec![
                    doc! {"$match": {key: {"$exists": true, "$ne": null}}},
                    doc! {"$group": {"_id": &field, "n": {"$sum": 1}}},
                    doc! {"$limit": limit},
                ],
            )
            .await?;
        if rows.len() > max {
            return Ok(None);
        }
        Ok(Some(
            rows.iter()
                .filter_map(|r| {
                    let n = r.get("n").and_then(crate::source::bson_as_i64)?;
                    Some((r.get("_id")?.clone(), u64::try_from(n).ok()?))
                })
                .collect(),
        ))
    }

    async fn duplicate_key(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
    ) -> Result<Option<bson::Bson>> {
        let field = format!("${key}");
        let rows = self
            .aggregate_all(
                meta,
                &format!("looking for a repeated {key} in {}", meta.namespace()),
                vec![
                    doc! {"$match": {key: {"$exists": true, "$ne": null}}},
                    doc! {"$group": {"_id": &field, "n": {"$sum": 1}}},
                    doc! {"$match": {"n": {"$gt": 1}}},
                    doc! {"$limit": 1},
                ],
            )
            .await?;
        Ok(rows.first().and_then(|r| r.get("_id").cloned()))
    }

    async fn fetch(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
        fields: &[String],
    ) -> Result<Vec<bson::Document>> {
        let coll = self
            .client
            .database(&meta.db)
            .collection::<Document>(&meta.name);
        let mut projection = doc! {key: 1};
        for f in fields {
            projection.insert(f, 1);
        }
        let filter = doc! {key: {"$in": values.to_vec()}};
        let limit = i64::try_from(values.len()).unwrap_or(i64::MAX);
        let max_time = self.max_time();
        let mut cursor = self
            .call("reading referenced documents", async {
                coll.find(filter)
                    .projection(projection)
                    .limit(limit)
                    .max_time(max_time)
                    .await
            })
            .await?;
        self.drain(&mut cursor, "reading referenced documents")
            .await
    }

    async fn presence(
        &mut self,
        meta: &CollectionMeta,
        groups: &[Vec<String>],
    ) -> Result<Vec<PresenceCheck>> {
        // Usually no group has a value anywhere, and one query over them all
        // says so. A document it finds settles every group it has a value
        // in; the query is asked again about the rest, each round trip
        // settling at least one group.
        let mut found = vec![false; groups.len()];
        let mut open: Vec<usize> = (0..groups.len()).collect();
        let mut rounds = 0;
        while !open.is_empty() {
            if rounds == MAX_PRESENCE_QUERIES {
                // Unsettled groups stay unchecked: no verdict on them.
                let checked = |i: &usize| !open.contains(i);
                return Ok((0..groups.len())
                    .filter(checked)
                    .map(|i| PresenceCheck {
                        paths: groups[i].clone(),
                        found: found[i],
                        method: CheckMethod::ServerQuery,
                    })
                    .collect());
            }
            rounds += 1;
            let branches: Vec<Document> = open
                .iter()
                .flat_map(|&i| PresenceCheck::branches(&groups[i]))
                .collect();
            let filter = match <[Document; 1]>::try_from(branches) {
                Ok([one]) => one,
                Err(many) => doc! {"$or": many},
            };
            let mut top: Vec<&str> = open
                .iter()
                .flat_map(|&i| groups[i].iter())
                .map(|p| p.split('.').next().unwrap_or(p))
                .collect();
            top.sort_unstable();
            top.dedup();
            let Some(hit) = self.first_document(meta, filter, &top).await? else {
                break;
            };
            let mut raw = Vec::new();
            if hit.to_writer(&mut raw).is_err() {
                break;
            }
            let before = open.len();
            open.retain(|&i| {
                let has = groups[i].iter().any(|p| {
                    crate::profile::extract::has_value(&raw, &p.split('.').collect::<Vec<_>>())
                });
                found[i] |= has;
                !has
            });
            if open.len() == before {
                // The server matched a document the client cannot place in
                // any group: ask about each group on its own.
                for &i in &open {
                    found[i] = self
                        .first_document(meta, PresenceCheck::filter(&groups[i]), &[])
                        .await?
                        .is_some();
                }
                open.clear();
            }
        }
        Ok(groups
            .iter()
            .zip(found)
            .map(|(paths, found)| PresenceCheck {
                paths: paths.clone(),
                found,
                method: CheckMethod::ServerQuery,
            })
            .collect())
    }

    async fn reread(
        &mut self,
        meta: &CollectionMeta,
        ids: &[bson::Bson],
        paths: &[String],
    ) -> Result<Vec<Reread>> {
        let mut project = doc! {"_id": 1, "s": {"$bsonSize": "$$ROOT"}};
        for (i, p) in paths.iter().enumerate() {
            let f = format!("${p}");
            project.insert(
                format!("l{i}"),
                doc! {"$cond": [{"$isArray": &f}, {"$size": &f}, null]},
            );
        }
        let rows = self
            .aggregate_all(
                meta,
                "re-reading snapshot documents",
                vec![
                    doc! {"$match": {"_id": {"$in": ids.to_vec()}}},
                    doc! {"$project": project},
                ],
            )
            .await?;
        Ok(rows
            .iter()
            .filter_map(|r| {
                Some(Reread {
                    id: r.get("_id")?.clone(),
                    size: r
                        .get("s")
                        .and_then(crate::source::bson_as_i64)
                        .map_or(0, |v| v as u64),
                    lengths: (0..paths.len())
                        .map(|i| {
                            r.get(format!("l{i}"))
                                .and_then(crate::source::bson_as_i64)
                                .map(|v| v as u64)
                        })
                        .collect(),
                })
            })
            .collect())
    }
}

impl Insight for MongoSource {
    fn round_trips(&self, namespace: &str) -> Option<BTreeMap<String, u64>> {
        Some(
            self.trips
                .lock()
                .ok()
                .and_then(|t| t.get(namespace).cloned())
                .unwrap_or_default(),
        )
    }

    async fn profiler(
        &self,
        selection: &Selection,
        each: &mut dyn FnMut(&str, &Document),
    ) -> Option<Result<Vec<crate::source::ProfilerDb>>> {
        Some(self.read_profiler(selection, each).await)
    }

    async fn explain_command(&self, db: &str, command: Document) -> Option<Result<Document>> {
        Some(self.explain_read(db, command).await)
    }

    async fn op_counts(
        &self,
        namespaces: &[String],
    ) -> Option<Result<(BTreeMap<String, crate::source::OpCounts>, Vec<String>)>> {
        Some(self.read_op_counts(namespaces).await)
    }

    async fn query_stats(&self, each: &mut dyn FnMut(&Document)) -> Option<Result<u64>> {
        Some(self.read_query_stats(each).await)
    }
}

impl MongoSource {
    /// The first document matching `filter`, with only the top-level
    /// `fields` (only `_id` when none): one bounded `find`.
    async fn first_document(
        &self,
        meta: &CollectionMeta,
        filter: Document,
        fields: &[&str],
    ) -> Result<Option<Document>> {
        let coll = self
            .client
            .database(&meta.db)
            .collection::<Document>(&meta.name);
        let max_time = self.max_time();
        let what = format!("looking for indexed fields in {}", meta.namespace());
        let mut projection = doc! {"_id": 1};
        for f in fields {
            projection.insert(*f, 1);
        }
        let mut cursor = self
            .call(&what, async {
                coll.find(filter)
                    .projection(projection)
                    .limit(1)
                    .batch_size(1)
                    .max_time(max_time)
                    .await
            })
            .await?;
        if !self.call(&what, async { cursor.advance().await }).await? {
            return Ok(None);
        }
        cursor
            .deserialize_current()
            .map(Some)
            .map_err(|e| self.map_error(&what, &e))
    }

    /// Runs a small aggregation and returns its documents.
    async fn aggregate_all(
        &self,
        meta: &CollectionMeta,
        what: &str,
        pipeline: Vec<Document>,
    ) -> Result<Vec<Document>> {
        let coll = self
            .client
            .database(&meta.db)
            .collection::<Document>(&meta.name);
        let max_time = self.max_time();
        let mut cursor = self
            .call(what, async {
                coll.aggregate(pipeline)
                    .max_time(max_time)
                    .allow_disk_use(true)
                    .batch_size(BATCH_SIZE)
                    .await
            })
            .await?;
        self.drain(&mut cursor, what).await
    }

    /// Reads a (small) cursor to the end, each batch bounded by the timeout.
    async fn drain(
        &self,
        cursor: &mut mongodb::Cursor<Document>,
        what: &str,
    ) -> Result<Vec<Document>> {
        let mut out = Vec::new();
        while self.call(what, async { cursor.advance().await }).await? {
            let d = cursor
                .deserialize_current()
                .map_err(|e| self.map_error(what, &e))?;
            out.push(d);
        }
        Ok(out)
    }

    /// Follows a command cursor (`listCollections`, `listIndexes`) past
    /// its first batch.
    async fn rest_of_cursor(
        &self,
        db: &str,
        reply: &Document,
        what: &str,
    ) -> Result<Vec<Document>> {
        let mut out = Vec::new();
        let Ok(cursor) = reply.get_document("cursor") else {
            return Ok(out);
        };
        let mut id = cursor.get_i64("id").unwrap_or(0);
        let ns_coll = cursor
            .get_str("ns")
            .ok()
            .and_then(|ns| ns.split_once('.').map(|(_, c)| c.to_owned()))
            .unwrap_or_else(|| "$cmd.listCollections".into());
        let database = self.client.database(db);
        let mut rounds = 0;
        while id != 0 && rounds < 1000 {
            rounds += 1;
            let coll = ns_coll.clone();
            let more = self
                .call(what, async {
                    database
                        .run_command(doc! {"getMore": id, "collection": coll})
                        .await
                })
                .await?;
            let Ok(c) = more.get_document("cursor") else {
                break;
            };
            id = c.get_i64("id").unwrap_or(0);
            if let Ok(batch) = c.get_array("nextBatch") {
                out.extend(batch.iter().filter_map(|b| b.as_document().cloned()));
            }
        }
        Ok(out)
    }
}

impl MongoSource {
    /// Counts one round trip of the unmonitored reading client.
    fn count_trip(&self, ns: &str, command: &str) {
        if let Ok(mut t) = self.trips.lock() {
            *t.entry(ns.to_owned())
                .or_default()
                .entry(command.to_owned())
                .or_default() += 1;
        }
    }

    /// Streams a sample (or every document) of one collection to `sink`,
    /// a server reply at a time: the documents are handed over as slices
    /// of the reply, which is dropped before the next one is asked for, so
    /// at most one reply (16 MiB) is held whatever the collection's size.
    /// Needs only `&self`: several collections may be read at once.
    pub(crate) async fn read_documents(
        &self,
        meta: &CollectionMeta,
        mode: SampleMode,
        sink: &mut dyn Sink,
    ) -> Result<SampleOutcome> {
        let coll: Collection<RawDocumentBuf> =
            self.reader.database(&meta.db).collection(&meta.name);
        let max_time = self.max_time();
        let ns = meta.namespace();
        // When the sample would cover the whole collection, a plain scan
        // reads the same documents without $sample's random sort.
        let mut partial = None;
        let (mut cursor, method) = match mode {
            SampleMode::Sample(n) if meta.documents.is_none_or(|d| d > n) => {
                let size = i64::try_from(n).unwrap_or(i64::MAX);
                self.count_trip(&ns, "aggregate");
                let sampled = self
                    .call(&format!("starting $sample on {ns}"), async {
                        coll.aggregate([doc! {"$sample": {"size": size}}])
                            .max_time(max_time)
                            .batch_size(batch_size(meta, Some(n)))
                            .batch()
                            .await
                    })
                    .await;
                match sampled {
                    Ok(c) => (c, "$sample"),
                    // A user may be refused aggregate (or a view may not
                    // support $sample): fall back to the first documents in
                    // natural order, and say the sample is not random.
                    Err(SourceError::Server { reason, .. }) => {
                        let limit = i64::try_from(n).unwrap_or(i64::MAX);
                        self.count_trip(&ns, "find");
                        let c = self
                            .call(&format!("starting a scan of {ns}"), async {
                                coll.find(doc! {})
                                    .limit(limit)
                                    .max_time(max_time)
                                    .batch_size(batch_size(meta, Some(n)))
                                    .batch()
                                    .await
                            })
                            .await?;
                        partial = Some(format!(
                            "$sample was refused ({reason}); the first {n} documents in natural order were read instead, which may not represent the collection"
                        ));
                        (c, "find (first documents)")
                    }
                    Err(e) => return Err(e),
                }
            }
            _ => {
                self.count_trip(&ns, "find");
                let c = self
                    .call(&format!("starting a scan of {ns}"), async {
                        coll.find(doc! {})
                            .max_time(max_time)
                            .batch_size(batch_size(meta, mode_limit(mode)))
                            .batch()
                            .await
                    })
                    .await?;
                (c, "find")
            }
        };
        let limit = match mode {
            SampleMode::Sample(n) => n,
            SampleMode::Full => u64::MAX,
        };
        let mut read = 0u64;
        let mut skipped = 0u64;
        let reading = format!("reading documents from {ns}");
        let mut complete = true;
        let mut exhausted = false;
        // The first reply came with the command; each further one is a
        // getMore. An open cursor left behind is closed (killCursors).
        let mut replies = 0u64;
        let mut open = true;
        while read < limit {
            if replies > 0 {
                self.count_trip(&ns, "getMore");
            }
            let next = self
                .call(&reading, async { cursor.next().await.transpose() })
                .await;
            let batch = match next {
                Ok(Some(b)) => b,
                Ok(None) => {
                    open = false;
                    exhausted = true;
                    break;
                }
                Err(e) if gone(&e) => return Err(e),
                // The server answered but the cursor is over: the collection
                // was dropped or renamed under it (QueryPlanKilled,
                // CursorNotFound), or the read ran past maxTimeMS. What was
                // read is profiled, and the report says it is partial.
                Err(e) => {
                    open = false;
                    complete = false;
                    let stopped = format!(
                        "the read stopped after {read} documents, so the profile covers only those ({e})"
                    );
                    partial = Some(match partial.take() {
                        Some(p) => format!("{p}; {stopped}"),
                        None => stopped,
                    });
                    break;
                }
            };
            replies += 1;
            open = batch
                .as_raw_document()
                .get_document("cursor")
                .ok()
                .and_then(|c| c.get_i64("id").ok())
                .is_some_and(|id| id != 0);
            let docs = batch
                .doc_slices()
                .map_err(|e| self.map_error(&reading, &e))?;
            for d in docs {
                if read >= limit {
                    break;
                }
                match d.ok().and_then(bson::RawBsonRef::as_document) {
                    Some(d) => {
                        sink.document(d.as_bytes());
                        read += 1;
                    }
                    None => skipped += 1,
                }
            }
            if !open {
                exhausted = true;
                break;
            }
        }
        drop(cursor);
        if open {
            self.count_trip(&ns, "killCursors");
        }
        Ok(SampleOutcome {
            read,
            method: method.into(),
            // A plain scan read to its end saw every document.
            total: (complete && method == "find" && (mode == SampleMode::Full || exhausted))
                .then_some(read),
            partial,
            skipped,
        })
    }
}

/// The error the driver last saw on a server, from the topology description
/// a server selection failure carries (`…, Error: Kind: CAUSE, labels: …`).
fn selection_cause(message: &str) -> Option<String> {
    let (_, rest) = message.rsplit_once("Error: Kind: ")?;
    let cause = rest.split(", labels:").next().unwrap_or(rest);
    let cause = cause.lines().next().unwrap_or("").trim();
    (!cause.is_empty()).then(|| cause.chars().take(300).collect())
}

/// Whether a connection string turns TLS on (`tls=true`, `ssl=true`, or any
/// `tls…` option such as `tlsCAFile`, which implies it).
fn asks_for_tls(uri: &str) -> bool {
    let Some((_, query)) = uri.split_once('?') else {
        return false;
    };
    query.split('&').any(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        let k = k.to_ascii_lowercase();
        if k == "tls" || k == "ssl" {
            v.eq_ignore_ascii_case("true")
        } else {
            k.starts_with("tls")
        }
    })
}

/// The server is unreachable or refuses us: nothing further can succeed.
fn gone(e: &SourceError) -> bool {
    matches!(
        e,
        SourceError::Unreachable { .. } | SourceError::Auth { .. }
    )
}

fn first_batch(reply: &Document) -> Vec<Document> {
    reply
        .get_document("cursor")
        .and_then(|c| c.get_array("firstBatch"))
        .map(|a| a.iter().filter_map(|d| d.as_document().cloned()).collect())
        .unwrap_or_default()
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Bounds a future by `timeout` on the client side.
async fn within<T>(timeout: Duration, what: &str, fut: impl Future<Output = T>) -> Result<T> {
    // A little grace so the server's own maxTimeMS error wins when it can.
    let grace = timeout + Duration::from_millis(500);
    tokio::time::timeout(grace, fut)
        .await
        .map_err(|_| SourceError::Timeout {
            secs: timeout.as_secs(),
            what: what.to_owned(),
        })
}

/// The driver's message without its long topology description.
fn short_message(e: &mongodb::error::Error) -> String {
    let m = e.kind.to_string();
    let m = m.split(", Topology:").next().unwrap_or(&m);
    m.lines().next().unwrap_or("").trim().to_owned()
}

impl MongoSource {
    /// The figures a sample misses, in one aggregation the server runs over
    /// every document: `$bsonSize` of each, the largest `k` by `$topN`,
    /// `$max` of `$size` for each array path, and a `$sum` per size
    /// threshold. Needs `$bsonSize` (MongoDB 4.4) and `$topN` (5.2); a
    /// server that refuses them, a scan past the timeout, or a collection
    /// too big to scan is noted, never a failure.
    async fn whole_collection_extremes(
        &self,
        meta: &CollectionMeta,
        ask: &crate::source::ExtremesAsk,
    ) -> Result<crate::source::ExtremesOutcome> {
        use crate::source::extremes::{
            self, ArrayExtreme, ArrayReach, DateExtreme, LargeDocument, OverThreshold,
        };
        use crate::source::{Extremes, ExtremesOutcome};
        let start = std::time::Instant::now();
        if meta.kind == CollectionKind::View {
            return Ok(ExtremesOutcome::Skipped(
                "whole-collection extremes not measured: a view is computed on every read".into(),
            ));
        }
        let data = meta.storage.as_ref().and_then(|s| s.size);
        if let Some(size) = data.filter(|s| *s > extremes::MAX_SCAN_BYTES) {
            return Ok(ExtremesOutcome::Skipped(format!(
                "whole-collection extremes not measured: {} of data is more than the {} one scan reads within the timeout; sizes and array lengths are the sample's",
                crate::fmt::bytes(size as f64),
                crate::fmt::bytes(extremes::MAX_SCAN_BYTES as f64)
            )));
        }
        if let Some(n) = meta.documents.filter(|n| *n > extremes::MAX_SCAN_DOCUMENTS) {
            return Ok(ExtremesOutcome::Skipped(format!(
                "whole-collection extremes not measured: {} documents are more than the {} one scan reads within the timeout; sizes and array lengths are the sample's",
                crate::fmt::group(n),
                crate::fmt::group(extremes::MAX_SCAN_DOCUMENTS)
            )));
        }
        let mut out = Extremes::new("server-aggregation");
        let mut project = doc! {"_id": 1, "s": {"$bsonSize": "$$ROOT"}};
        let mut group = doc! {
            "_id": null,
            "n": {"$sum": 1},
            "top": {"$topN": {
                "n": i64::try_from(ask.top.max(1)).unwrap_or(1),
                "sortBy": {"s": -1},
                "output": {"i": "$_id", "s": "$s"},
            }},
        };
        let mut measured = Vec::new();
        for (path, segments) in &ask.arrays {
            let length = match extremes::reach(segments) {
                Ok(ArrayReach::Direct(p)) => {
                    let f = format!("${p}");
                    doc! {"$cond": [{"$isArray": &f}, {"$size": &f}, null]}
                }
                Ok(ArrayReach::InArray { outer, inner }) => {
                    let f = format!("${outer}");
                    let e = format!("$$e.{inner}");
                    doc! {"$cond": [
                        {"$isArray": &f},
                        {"$max": {"$map": {"input": &f, "as": "e", "in":
                            {"$cond": [{"$isArray": &e}, {"$size": &e}, null]}}}},
                        null
                    ]}
                }
                Err(why) => {
                    out.not_measured.push(format!("{path}: {why}"));
                    continue;
                }
            };
            let key = format!("l{}", measured.len());
            project.insert(&key, length);
            group.insert(&key, doc! {"$max": format!("${key}")});
            measured.push(path.clone());
        }
        // Dates: documents holding one, those before the instant asked,
        // the earliest and the latest.
        let mut dated = Vec::new();
        let before = bson::DateTime::from_millis(ask.now_ms);
        for (path, segments) in &ask.dates {
            let Ok(ArrayReach::Direct(p)) = extremes::reach(segments) else {
                out.not_measured
                    .push(format!("{path}: dates inside an array are the sample's"));
                continue;
            };
            let key = format!("d{}", dated.len());
            let v = format!("${key}");
            let is_date = doc! {"$eq": [{"$type": &v}, "date"]};
            project.insert(&key, format!("${p}"));
            group.insert(
                format!("{key}n"),
                doc! {"$sum": {"$cond": [is_date.clone(), 1, 0]}},
            );
            group.insert(
                format!("{key}p"),
                doc! {"$sum": {"$cond": [{"$and": [is_date.clone(), {"$lt": [&v, before]}]}, 1, 0]}},
            );
            group.insert(
                format!("{key}lo"),
                doc! {"$min": {"$cond": [is_date.clone(), &v, null]}},
            );
            group.insert(
                format!("{key}hi"),
                doc! {"$max": {"$cond": [is_date, &v, null]}},
            );
            dated.push(path.clone());
        }
        for (i, (_, bytes)) in ask.thresholds.iter().enumerate() {
            let at = i64::try_from(*bytes).unwrap_or(i64::MAX);
            group.insert(
                format!("c{i}"),
                doc! {"$sum": {"$cond": [{"$gte": ["$s", at]}, 1, 0]}},
            );
        }
        let what = format!(
            "measuring whole-collection extremes of {}",
            meta.namespace()
        );
        let coll = self
            .client
            .database(&meta.db)
            .collection::<Document>(&meta.name);
        // The server's own time limit comes first, so that a scan too long
        // is a note here, not a server that stopped answering.
        let max_time = self.timeout.mul_f64(0.9);
        let pipeline = vec![doc! {"$project": project}, doc! {"$group": group}];
        let scan = async {
            let mut cursor = self
                .call(&what, async {
                    coll.aggregate(pipeline)
                        .max_time(max_time)
                        .allow_disk_use(true)
                        .await
                })
                .await?;
            self.drain(&mut cursor, &what).await
        };
        // A server that does not stop at maxTimeMS is left behind at the
        // timeout: a scan too long is a note, not a server gone.
        let Ok(rows) = tokio::time::timeout(self.timeout, scan).await else {
            return Ok(ExtremesOutcome::Skipped(format!(
                "whole-collection extremes not measured: the scan took longer than the {} s timeout; sizes and array lengths are the sample's",
                self.timeout.as_secs().max(1)
            )));
        };
        let rows = match rows {
            Ok(rows) => rows,
            Err(e) if e.is_gone() => return Err(e),
            Err(e) => {
                return Ok(ExtremesOutcome::Skipped(format!(
                    "whole-collection extremes not measured ({e}); sizes and array lengths are the sample's"
                )))
            }
        };
        let as_u64 = |r: &Document, k: &str| {
            r.get(k)
                .and_then(crate::source::bson_as_i64)
                .and_then(|v| u64::try_from(v).ok())
        };
        // No row: an empty collection.
        if let Some(r) = rows.first() {
            out.documents = as_u64(r, "n").unwrap_or(0);
            if let Ok(top) = r.get_array("top") {
                out.largest = top
                    .iter()
                    .filter_map(|t| {
                        let t = t.as_document()?;
                        Some(LargeDocument {
                            id: t.get("i").map(|i| i.clone().relaxed()),
                            bytes: as_u64(t, "s")?,
                        })
                    })
                    .collect();
            }
            for (i, path) in measured.iter().enumerate() {
                if let Some(n) = as_u64(r, &format!("l{i}")) {
                    out.arrays.push(ArrayExtreme {
                        path: path.clone(),
                        max_length: n,
                    });
                }
            }
            for (i, path) in dated.iter().enumerate() {
                let at = |k: &str| {
                    r.get_datetime(format!("d{i}{k}"))
                        .ok()
                        .map(|d| d.timestamp_millis())
                };
                out.dates.push(DateExtreme {
                    path: path.clone(),
                    documents: as_u64(r, &format!("d{i}n")).unwrap_or(0),
                    past: as_u64(r, &format!("d{i}p")).unwrap_or(0),
                    before: ask.now_ms,
                    min: at("lo"),
                    max: at("hi"),
                });
            }
            for (i, (name, bytes)) in ask.thresholds.iter().enumerate() {
                out.over.push(OverThreshold {
                    threshold: name.clone(),
                    bytes: *bytes,
                    documents: as_u64(r, &format!("c{i}")).unwrap_or(0),
                });
            }
        } else {
            out.over = ask
                .thresholds
                .iter()
                .map(|(name, bytes)| OverThreshold {
                    threshold: name.clone(),
                    bytes: *bytes,
                    documents: 0,
                })
                .collect();
        }
        out.set_elapsed(start.elapsed());
        Ok(ExtremesOutcome::Measured(out))
    }
}
