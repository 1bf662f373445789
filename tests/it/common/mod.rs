//! Shared end-to-end test support: a MongoDB-wire test server, a driver
//! client, loaders for Extended JSON files, and helpers to run the binary.
//!
//! The server is `$MONGODB_URI` when set; otherwise one `secantusd-py`
//! (`SecantusDB`, `pip install secantusdb`) per test module, on a free loopback
//! port with in-memory storage. It runs under a tiny shell watchdog holding
//! the read end of a pipe whose write end only this process owns: when the
//! test process exits, however it exits, the pipe closes and the watchdog
//! stops the server. A server that cannot be started is a failure, never a
//! skip.

// Each test module uses a different subset of these helpers.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

pub mod mongod_log;
pub mod proxy;

use bson::{doc, Document};
use mongodb::Client;

/// How long the server may take to come up.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Documents per `insert_many`.
const INSERT_BATCH: usize = 500;
/// The seed of the test servers' `$sample` (see [`spawn_watched`]).
pub const SAMPLE_SEED: &str = "31";

struct Server {
    uri: String,
    /// The watchdog (and, through it, the server) when this process started
    /// one. Never dropped: a static lives until the process exits, and so
    /// does the pipe that keeps the watchdog waiting.
    _child: Option<Mutex<Child>>,
}

/// A server, or why there is none: a failure is remembered so that every
/// test of the module fails at once with the same message instead of
/// retrying.
type Slot = Arc<OnceLock<Result<Server, String>>>;

/// One server per test module (the first segment of a test's name), so that
/// the modules' databases never meet, however their tests interleave.
static SERVERS: Mutex<BTreeMap<String, Slot>> = Mutex::new(BTreeMap::new());

/// The connection string of the calling test module's server, starting it
/// on first use. Call it on the test's own thread (libtest names it after
/// the test) and pass the string to threads and tasks the test spawns.
/// Panics when there is no server: in CI that is a failure, never a skip.
pub fn uri() -> String {
    let module = test_module();
    let slot = SERVERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .entry(module.clone())
        .or_default()
        .clone();
    match slot.get_or_init(|| start_server(&module)) {
        Ok(s) => s.uri.clone(),
        Err(msg) => panic!("{msg}"),
    }
}

thread_local! {
    /// The test module a thread works for, when [`inherit`] started it.
    static MODULE: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The module of the test running on this thread: libtest names a test's
/// thread after its path (`e2e_server::audits_a_server`); a thread the test
/// started with [`inherit`] works for the same module.
fn test_module() -> String {
    if let Some(module) = MODULE.with(|m| m.borrow().clone()) {
        return module;
    }
    let thread = std::thread::current();
    match thread.name().and_then(|n| n.split_once("::")) {
        Some((module, _)) => module.to_owned(),
        None => panic!(
            "common::uri() was called on thread {:?}, neither a test's own thread nor one \
             it started through common::inherit",
            thread.name()
        ),
    }
}

/// `f`, to run on another thread (`std::thread::spawn`, a scope's `spawn`,
/// `spawn_blocking`) on behalf of the calling test: there [`uri`] and
/// [`client`] reach the calling test module's server.
pub fn inherit<T>(f: impl FnOnce() -> T + Send) -> impl FnOnce() -> T + Send {
    let module = test_module();
    move || {
        MODULE.with(|m| *m.borrow_mut() = Some(module));
        f()
    }
}

/// A new driver client for the test server. Create one per test (per tokio
/// runtime): a client's background tasks belong to the runtime that made it.
pub async fn client() -> Client {
    Client::with_uri_str(uri())
        .await
        .expect("the test server's URI is a valid connection string")
}

/// A driver client for `uri` once the server answers a ping (30 s at most),
/// for servers a test starts itself.
pub async fn wait_ping(uri: &str) -> Client {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(c) = Client::with_uri_str(uri).await {
            if c.database("admin")
                .run_command(doc! {"ping": 1})
                .await
                .is_ok()
            {
                return c;
            }
        }
        assert!(Instant::now() < deadline, "server at {uri} did not answer");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn start_server(module: &str) -> Result<Server, String> {
    if let Ok(uri) = std::env::var("MONGODB_URI") {
        if !uri.trim().is_empty() {
            ping(&uri, STARTUP_TIMEOUT).map_err(|e| {
                format!("MONGODB_URI is set but the server does not answer a ping: {e}")
            })?;
            return Ok(Server { uri, _child: None });
        }
    }
    let bin = find_server_binary().ok_or_else(|| {
        format!(
            "no test server: MONGODB_URI is not set and `secantusd-py` is neither in {} nor on PATH. \
             Run scripts/test.sh (it installs it into .venv), or `pip install secantusdb`, \
             or set MONGODB_URI to a disposable server",
            repo().join(".venv/bin").display()
        )
    })?;
    // The port is free when chosen but may be taken before the server binds
    // it; try again on another one then.
    let mut attempt = 1;
    loop {
        match spawn_server(&bin, module) {
            Ok(server) => return Ok(server),
            Err(Failure::PortTaken(msg)) if attempt < 3 => {
                eprintln!("test server: {msg}; trying another port");
                attempt += 1;
            }
            Err(Failure::PortTaken(msg) | Failure::Fatal(msg)) => return Err(msg),
        }
    }
}

enum Failure {
    PortTaken(String),
    Fatal(String),
}

/// Starts a test module's `secantusd-py` on a free port and waits until it
/// answers a `ping`.
fn spawn_server(bin: &Path, module: &str) -> Result<Server, Failure> {
    let port = free_port();
    let (log, pid_file) = server_files(module);
    let mut child = spawn_watched(bin, port, Path::new(":memory:"), &[], &log, &pid_file)
        .map_err(|e| Failure::Fatal(format!("cannot start the test server watchdog (sh): {e}")))?;
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    wait_for_port(&mut child, bin, port, &log, deadline)?;
    let uri = format!("mongodb://127.0.0.1:{port}/?directConnection=true");
    let left = deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(1);
    if let Err(e) = ping(&uri, left) {
        return Err(Failure::Fatal(format!(
            "the test server on port {port} accepts connections but does not answer a ping: {e}; its log:\n{}",
            read_log(&log)
        )));
    }
    Ok(Server {
        uri,
        _child: Some(Mutex::new(child)),
    })
}

/// Starts `bin` under a watchdog shell that stops it (SIGTERM) as soon as
/// the pipe on its stdin closes, that is when the returned child's stdin is
/// dropped or this process exits in any way. Waiting on the child waits for
/// the server to have exited.
fn spawn_watched(
    bin: &Path,
    port: u16,
    storage: &Path,
    extra: &[&str],
    log: &Path,
    pid_file: &Path,
) -> std::io::Result<Child> {
    // $0 server, $1 port, $2 log file, $3 pid file (present while the server
    // runs, so scripts/test.sh can wait for it to finish stopping), $4
    // storage, then extra server arguments. fd 3 keeps the pipe: the stdin
    // of a background job would be /dev/null.
    let script = r#"
B=$0 P=$1 L=$2 F=$3 D=$4
shift 4
exec 3<&0
"$B" --host 127.0.0.1 --port "$P" --storage-path "$D" "$@" </dev/null >"$L" 2>&1 3<&- &
S=$!
echo "$S" >"$F"
( read -r _ <&3; kill "$S" 2>/dev/null ) &
W=$!
exec 3<&-
wait "$S"
rm -f "$F"
kill "$W" 2>/dev/null
"#;
    Command::new("sh")
        .arg("-c")
        .arg(script)
        // The server draws its `$sample`s from a generator of this seed
        // (one per server process, advancing with each draw), not from
        // fresh entropy: a module whose draws come in a fixed order gets
        // the same samples on every run.
        .env("SECANTUS_SAMPLE_SEED", SAMPLE_SEED)
        .arg(bin)
        .arg(port.to_string())
        .arg(log)
        .arg(pid_file)
        .arg(storage)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
}

/// Waits until the server accepts TCP connections on `port`.
fn wait_for_port(
    child: &mut Child,
    bin: &Path,
    port: u16,
    log: &Path,
    deadline: Instant,
) -> Result<(), Failure> {
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let text = read_log(log);
            let msg = format!(
                "the test server ({}) exited ({status}) before accepting connections on port {port}; its log:\n{text}",
                bin.display()
            );
            return Err(if text.contains("Address already in use") {
                Failure::PortTaken(msg)
            } else {
                Failure::Fatal(msg)
            });
        }
        if TcpStream::connect_timeout(&([127, 0, 0, 1], port).into(), Duration::from_millis(200))
            .is_ok()
        {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(Failure::Fatal(format!(
                "the test server ({}) did not accept connections on port {port} within {} s; its log:\n{}",
                bin.display(),
                STARTUP_TIMEOUT.as_secs(),
                read_log(log)
            )));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A server of a test's own, for what the shared one cannot do (`--auth`,
/// on-disk storage kept across a restart), under the same watchdog: it
/// stops when dropped (also while a failed test unwinds) and when the test
/// process dies. Requires `secantusd-py` even when `$MONGODB_URI` is set.
pub struct PrivateServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl PrivateServer {
    /// Starts a server on a free port. `storage` is `:memory:` or a
    /// directory; `extra` are further `secantusd-py` arguments (`--auth`).
    /// Returns once the port accepts connections: ping it with the
    /// credentials it needs.
    pub fn start(storage: &Path, extra: &[&str]) -> PrivateServer {
        PrivateServer::start_on(free_port(), storage, extra)
    }

    /// Like [`PrivateServer::start`], on a given port (to restart a server).
    pub fn start_on(port: u16, storage: &Path, extra: &[&str]) -> PrivateServer {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let bin = find_server_binary().unwrap_or_else(|| {
            panic!("`secantusd-py` is neither in .venv/bin nor on PATH (run scripts/test.sh)")
        });
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let (log, pid_file) = server_files(&format!("private{n}"));
        let mut child = spawn_watched(&bin, port, storage, extra, &log, &pid_file)
            .unwrap_or_else(|e| panic!("cannot start the test server watchdog (sh): {e}"));
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        if let Err(Failure::PortTaken(msg) | Failure::Fatal(msg)) =
            wait_for_port(&mut child, &bin, port, &log, deadline)
        {
            panic!("{msg}");
        }
        PrivateServer { child, port, log }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `mongodb://127.0.0.1:PORT/?directConnection=true`.
    pub fn uri(&self) -> String {
        format!("mongodb://127.0.0.1:{}/?directConnection=true", self.port)
    }

    /// The server's output so far (for failure messages).
    pub fn log(&self) -> String {
        read_log(&self.log)
    }

    /// Stops the server gracefully (its data is on disk afterwards) and
    /// waits until it has exited.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        // Closing the pipe makes the watchdog send SIGTERM; the watchdog
        // exits once the server has.
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

impl Drop for PrivateServer {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// A server's log and pid files: in `$DOCSHAPE_TEST_SERVER_DIR` when set
/// (scripts/test.sh sets it, to wait for every server to stop), else under
/// Cargo's temporary directory for tests, named after the test binary (and
/// `tag`) and replaced on every run.
fn server_files(tag: &str) -> (PathBuf, PathBuf) {
    let exe = std::env::current_exe().ok();
    let name = exe
        .as_deref()
        .and_then(Path::file_stem)
        .and_then(|s| s.to_str())
        .and_then(|s| s.split('-').next())
        .unwrap_or("tests");
    let tag = if tag.is_empty() {
        String::new()
    } else {
        format!("-{tag}")
    };
    let (dir, stem) = match std::env::var_os("DOCSHAPE_TEST_SERVER_DIR") {
        Some(d) if !d.is_empty() => (
            PathBuf::from(d),
            format!("{name}-{}{tag}", std::process::id()),
        ),
        _ => (
            PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("test-server"),
            format!("{name}{tag}"),
        ),
    };
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    (
        dir.join(format!("{stem}.log")),
        dir.join(format!("{stem}.pid")),
    )
}

fn read_log(path: &Path) -> String {
    let mut s = String::new();
    if let Ok(mut f) = std::fs::File::open(path) {
        let _ = f.read_to_string(&mut s);
    }
    // The end of a long log, cut at a character boundary.
    if let Some(cut) = (s.len().saturating_sub(4000)..s.len()).find(|&i| s.is_char_boundary(i)) {
        s.drain(..cut);
    }
    s
}

/// Pings `uri` with the driver, retrying until `within` has passed. Runs on a
/// thread of its own so it works from inside a test's runtime too.
fn ping(uri: &str, within: Duration) -> Result<(), String> {
    let uri = uri.to_owned();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("cannot build a tokio runtime: {e}"))?;
        rt.block_on(async move {
            let mut opts = mongodb::options::ClientOptions::parse(&uri)
                .await
                .map_err(|e| e.to_string())?;
            opts.server_selection_timeout = Some(within.min(Duration::from_secs(5)));
            let client = Client::with_options(opts).map_err(|e| e.to_string())?;
            let deadline = Instant::now() + within;
            loop {
                match client.database("admin").run_command(doc! {"ping": 1}).await {
                    Ok(_) => return Ok(()),
                    Err(e) if Instant::now() > deadline => return Err(e.to_string()),
                    Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            }
        })
    })
    .join()
    .map_err(|_| "the ping thread panicked".to_owned())?
}

/// `secantusd-py` from the repository's `.venv`, else from PATH.
fn find_server_binary() -> Option<PathBuf> {
    let venv = repo().join(".venv/bin/secantusd-py");
    if venv.is_file() {
        return Some(venv);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("secantusd-py"))
        .find(|p| p.is_file())
}

/// A loopback port nothing listens on (at the moment of asking).
pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral loopback port");
    l.local_addr()
        .expect("local address of a bound socket")
        .port()
}

/// A database name no other test (or test run) uses: `ds<pid>_<n>_<name>`.
pub fn unique_db(name: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let db = format!("ds{}_{n}_{name}", std::process::id());
    assert!(db.len() <= 63, "database name too long: {db}");
    db
}

/// Reads an Extended JSON file with docshape's own reader.
pub fn read_ejson(path: &Path) -> Vec<Document> {
    let file =
        std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let mut docs = Vec::new();
    docshape::source::files::ejson::read_documents(file, &mut |bytes| {
        docs.push(Document::from_reader(bytes).expect("read_documents yields valid BSON"));
    })
    .unwrap_or_else(|e| panic!("{} is not valid Extended JSON: {e}", path.display()));
    docs
}

/// Loads an Extended JSON file into `db.coll`, in batches; returns the
/// number of documents inserted.
pub async fn load_ejson(client: &Client, db: &str, coll: &str, path: &Path) -> u64 {
    insert_all(client, db, coll, &read_ejson(path)).await
}

/// Reads a `.bson` file as `mongodump` writes it, with docshape's reader.
pub fn read_bson_file(path: &Path) -> Vec<Document> {
    let file =
        std::fs::File::open(path).unwrap_or_else(|e| panic!("cannot open {}: {e}", path.display()));
    let mut docs = Vec::new();
    docshape::source::files::file::read_bson(std::io::BufReader::new(file), &mut |bytes| {
        docs.push(Document::from_reader(bytes).expect("read_bson yields valid BSON"));
    })
    .unwrap_or_else(|e| panic!("{} is not valid BSON: {e}", path.display()));
    docs
}

/// Inserts `docs` into `db.coll` in batches (creating the collection even
/// when there are none); the number inserted.
pub async fn insert_all(client: &Client, db: &str, coll: &str, docs: &[Document]) -> u64 {
    let d = client.database(db);
    if docs.is_empty() {
        d.create_collection(coll)
            .await
            .unwrap_or_else(|e| panic!("create {db}.{coll} failed: {e}"));
        return 0;
    }
    let c = d.collection::<Document>(coll);
    let mut n = 0u64;
    for batch in docs.chunks(INSERT_BATCH) {
        let r = c
            .insert_many(batch)
            .await
            .unwrap_or_else(|e| panic!("insert into {db}.{coll} failed: {e}"));
        n += r.inserted_ids.len() as u64;
    }
    n
}

/// The index specifications a dump holds for `coll` (beside `_id_`): those
/// of `COLL.metadata.json`, else (a MongoDB 3.x dump) those of
/// `system.indexes.bson` whose `ns` names the collection.
pub fn dumped_indexes(dir: &Path, db_name: &str, coll: &str) -> Vec<Document> {
    indexes_of(dir, db_name, coll, coll)
}

/// [`dumped_indexes`] of the collection `coll` of `db_name` whose files are
/// named `stem` (`DB.COLL` in a folder of exports).
fn indexes_of(dir: &Path, db_name: &str, stem: &str, coll: &str) -> Vec<Document> {
    let meta = dir.join(format!("{stem}.metadata.json"));
    let mut specs: Vec<Document> = std::fs::read_to_string(&meta)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| docshape::source::files::ejson::to_bson(v).ok())
        .and_then(|b| match b {
            bson::Bson::Document(d) => d.get_array("indexes").ok().cloned(),
            _ => None,
        })
        .unwrap_or_default()
        .into_iter()
        .filter_map(|i| i.as_document().cloned())
        .collect();
    let legacy = dir.join("system.indexes.bson");
    if specs.is_empty() && legacy.exists() {
        let ns = format!("{db_name}.{coll}");
        specs = read_bson_file(&legacy)
            .into_iter()
            .filter(|i| i.get_str("ns").ok() == Some(ns.as_str()))
            .collect();
    }
    specs.retain(|s| s.get_str("name").ok() != Some("_id_"));
    for s in &mut specs {
        s.remove("ns");
        s.remove("v");
    }
    specs
}

/// Creates the indexes `specs` on `db.coll`, each on its own: one the
/// server cannot build is reported, not fatal (the collection is still
/// audited with the others).
pub async fn create_indexes(
    client: &Client,
    db: &str,
    coll: &str,
    specs: &[Document],
) -> Vec<String> {
    let mut failed = Vec::new();
    for spec in specs {
        // Options of MongoDB 2.x that today's servers refuse, and that
        // mongorestore drops as well.
        let mut spec = spec.clone();
        for legacy in ["safe", "dropDups"] {
            spec.remove(legacy);
        }
        let r = client
            .database(db)
            .run_command(doc! {"createIndexes": coll, "indexes": [spec.clone()]})
            .await;
        if let Err(e) = r {
            failed.push(format!("{db}.{coll} index {spec}: {e}"));
        }
    }
    failed
}

/// Removes the documents a TTL index among `specs` has expired, as the
/// server would on its next pass: then no document vanishes while a test
/// compares what the collection holds.
async fn expire(client: &Client, db: &str, coll: &str, specs: &[Document]) {
    for s in specs {
        let Some(secs) = s
            .get("expireAfterSeconds")
            .and_then(docshape::source::bson_as_i64)
        else {
            continue;
        };
        let Some(field) = s.get_document("key").ok().and_then(|k| k.keys().next()) else {
            continue;
        };
        let now = bson::DateTime::now().timestamp_millis();
        let cutoff = bson::DateTime::from_millis(now.saturating_sub(secs.saturating_mul(1000)));
        client
            .database(db)
            .collection::<Document>(coll)
            .delete_many(doc! { field: { "$lt": cutoff } })
            .await
            .unwrap_or_else(|e| panic!("expire {db}.{coll}: {e}"));
    }
}

/// The collection files of the folder `dir`, sorted, each with its stem
/// (its name less `.bson`, `.json`, `.jsonl`, `.ndjson` or
/// `.metadata.json`) and whether it is a collection's metadata: a tool's
/// own file (mongodump's `prelude.json`) and the server's `system.*` files
/// are not collections, as `mongorestore` restores none of them.
fn collection_files(dir: &Path) -> Vec<(String, PathBuf, bool)> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    let mut out = Vec::new();
    for p in entries {
        let Some(file) = p.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        if docshape::source::files::names::tool_file(&p).is_some() {
            continue;
        }
        let (stem, meta) = match file.strip_suffix(".metadata.json") {
            Some(stem) => (stem.to_owned(), true),
            None => match [".bson", ".json", ".jsonl", ".ndjson"]
                .iter()
                .find_map(|ext| file.strip_suffix(ext))
            {
                Some(stem) => (stem.to_owned(), false),
                None => continue,
            },
        };
        if !stem.starts_with("system.") {
            out.push((stem, p, meta));
        }
    }
    out
}

/// How docshape names the database and collections of the folder `dir`
/// ([`docshape::source::files::names::naming`]): a `mongodump` folder is
/// the database it is named after, each file a collection named after its
/// stem; a folder of Compass or `mongoexport` exports (`test.users.json`)
/// holds the collections (`users`) of the database their names begin
/// with (`test`).
pub fn dir_naming(dir: &Path) -> docshape::source::files::names::Naming {
    let folder = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    let mut stems: Vec<(String, Option<String>)> = Vec::new();
    for (stem, path, meta) in collection_files(dir) {
        let said = meta
            .then(|| std::fs::read_to_string(&path).ok())
            .flatten()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| docshape::source::files::ejson::to_bson(v).ok())
            .and_then(|b| match b {
                bson::Bson::Document(d) => docshape::source::files::names::metadata_collection(&d),
                _ => None,
            });
        match stems.iter_mut().find(|(s, _)| *s == stem) {
            Some(e) => e.1 = e.1.take().or(said),
            None => stems.push((stem, said)),
        }
    }
    let pairs: Vec<(&str, Option<&str>)> = stems
        .iter()
        .map(|(s, c)| (s.as_str(), c.as_deref()))
        .collect();
    docshape::source::files::names::naming(&folder, &pairs)
}

/// One directory of documents loaded into the database `db`, which stands
/// for the database the folder holds ([`dir_naming`]): every `.bson` file
/// (`mongodump`) and every Extended JSON file (`.json`, `.jsonl`,
/// `.ndjson`) a collection named as the application names it — after its
/// stem, less the `DB.` of a folder of exports (`test.users.json` is
/// `users`) — with the indexes its dump names; a `COLL.metadata.json`
/// without documents an empty collection with its indexes, as `mongorestore`
/// makes it (which restores no tool file: mongodump's `prelude.json` is
/// left out). Returns the collections made and the indexes the server
/// could not build.
pub async fn load_dir(client: &Client, dir: &Path, db: &str) -> (Vec<String>, Vec<String>) {
    let naming = dir_naming(dir);
    // (collection, stem, file of documents)
    let mut names: Vec<(String, String, Option<PathBuf>)> = Vec::new();
    for (stem, path, meta) in collection_files(dir) {
        let coll = naming.collection(&stem).to_owned();
        let file = (!meta).then_some(path);
        match names.iter_mut().find(|(n, _, _)| *n == coll) {
            Some(e) => e.2 = e.2.take().or(file),
            None => names.push((coll, stem, file)),
        }
    }
    let mut failed = Vec::new();
    let mut made = Vec::new();
    for (coll, stem, file) in names {
        let docs = match &file {
            Some(f) if f.extension().is_some_and(|e| e == "bson") => read_bson_file(f),
            Some(f) => read_ejson(f),
            None => Vec::new(),
        };
        insert_all(client, db, &coll, &docs).await;
        let specs = indexes_of(dir, &naming.db, &stem, &coll);
        failed.extend(create_indexes(client, db, &coll, &specs).await);
        expire(client, db, &coll, &specs).await;
        made.push(coll);
    }
    (made, failed)
}

/// Writes `docs` as a `.bson` file, as mongodump does.
pub fn write_bson(path: &Path, docs: &[Document]) {
    let mut out = Vec::new();
    for d in docs {
        d.to_writer(&mut out).expect("encode");
    }
    std::fs::write(path, out).expect("write bson");
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A file or directory of the shared real data (`../shared/realdata`).
pub fn realdata(rel: &str) -> PathBuf {
    let p = repo().join("../shared/realdata").join(rel);
    assert!(
        p.exists(),
        "test data {} is missing (expected the shared real data beside the repository)",
        p.display()
    );
    p
}

/// The Python of `.venv` (where `scripts/test.sh` installs `jsonschema`),
/// else the system's.
pub fn python() -> PathBuf {
    let venv = repo().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// The `docshape` binary under test.
pub fn docshape_bin() -> &'static str {
    env!("CARGO_BIN_EXE_docshape")
}

/// Runs `docshape` with `args`, no terminal, no inherited colour settings.
pub fn docshape(args: &[&str]) -> Output {
    docshape_env(args, &[])
}

/// Runs `docshape` with `args` and extra environment variables (applied last,
/// so they override the defaults below).
///
/// Every run is hermetic: a fresh, empty `$XDG_STATE_HOME` (growth
/// snapshots) and `$XDG_CONFIG_HOME` (configuration, themes), so no run sees
/// what an earlier test or the user's own docshape left behind; English
/// messages; no `NO_COLOR`; `RUST_BACKTRACE=1` so a panic cannot hide.
pub fn docshape_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let home = tempfile::tempdir().expect("a temporary directory for docshape's state");
    let mut cmd = Command::new(docshape_bin());
    cmd.args(args)
        .env("XDG_STATE_HOME", home.path().join("state"))
        .env("XDG_CONFIG_HOME", home.path().join("config"))
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C.UTF-8")
        .env_remove("NO_COLOR")
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", docshape_bin()))
}

/// `docshape` run from async code without blocking the runtime's thread.
pub async fn docshape_async(args: &[&str]) -> Output {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    tokio::task::spawn_blocking(move || {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        docshape(&a)
    })
    .await
    .expect("the thread running docshape panicked")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts a successful run and parses its stdout as JSON.
pub fn json_ok(o: &Output) -> serde_json::Value {
    assert!(
        o.status.success(),
        "docshape failed ({}):\nstderr: {}\nstdout: {}",
        o.status,
        stderr(o),
        stdout(o)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "docshape's stdout is not JSON ({e}):\n{}",
            stdout(o).chars().take(2000).collect::<String>()
        )
    })
}

/// Asserts the contract's failure shape: exit code 2, nothing on stdout, one
/// sentence on stderr (clap's own usage errors may add its standard
/// `For more information, try '--help'.` hint), no panic or backtrace.
pub fn assert_fails_cleanly(o: &Output, what: &str) -> String {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{what}: expected exit code 2, got {}\nstderr: {err}\nstdout: {}",
        o.status,
        stdout(o)
    );
    assert!(
        o.stdout.is_empty(),
        "{what}: nothing may be written on failure, stdout was: {}",
        stdout(o)
    );
    let lower = err.to_lowercase();
    for bad in ["panicked", "backtrace", "stack backtrace", "rust_backtrace"] {
        assert!(!lower.contains(bad), "{what}: stderr shows a panic: {err}");
    }
    let lines: Vec<&str> = err
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information, try"))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "{what}: expected one line on stderr, got: {err:?}"
    );
    lines[0].to_owned()
}

/// The collection reports of an audit, by namespace.
pub fn collections(report: &serde_json::Value) -> &Vec<serde_json::Value> {
    report["collections"]
        .as_array()
        .expect("report.collections is an array")
}

/// The report of collection `ns`.
pub fn collection<'a>(report: &'a serde_json::Value, ns: &str) -> &'a serde_json::Value {
    collections(report)
        .iter()
        .find(|c| c["namespace"] == ns)
        .unwrap_or_else(|| {
            let names: Vec<&serde_json::Value> = collections(report)
                .iter()
                .map(|c| &c["namespace"])
                .collect();
            panic!("no collection {ns} in the report; it has {names:?}")
        })
}

/// The profile of `path` in a collection report.
pub fn field<'a>(coll: &'a serde_json::Value, path: &str) -> &'a serde_json::Value {
    coll["fields"]
        .as_array()
        .expect("collection.fields is an array")
        .iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no field {path} in {}", coll["namespace"]))
}

/// 2024-01-01T00:00:00Z: the creation time of the newest generated document.
pub const NEWEST: u32 = 1_704_067_200;
pub const DAY: u32 = 86_400;

/// An ObjectId created at `secs` (seconds since the epoch), unique by `n`:
/// generated data whose document ages are known.
pub fn oid(secs: u32, n: u32) -> bson::oid::ObjectId {
    let mut b = [0u8; 12];
    b[..4].copy_from_slice(&secs.to_be_bytes());
    b[8..].copy_from_slice(&n.to_be_bytes());
    bson::oid::ObjectId::from_bytes(b)
}

/// The explorer drawn at `w`×`h` on a test backend, as text: one line per
/// row, a wide character once (the cell it covers skipped).
pub fn screen(m: &docshape::tui::model::Model, w: u16, h: u16) -> String {
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| docshape::tui::views::render(m, &docshape::tui::theme::Theme::default(), f))
        .expect("draw");
    let buf = t.backend().buffer();
    let mut out = String::new();
    for row in 0..h {
        let mut col = 0;
        while col < w {
            let sym = buf[(col, row)].symbol();
            out.push_str(sym);
            col += u16::try_from(docshape::fmt::display_width(sym).max(1)).unwrap_or(1);
        }
        out.push('\n');
    }
    out
}
