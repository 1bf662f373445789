//! Servers and scales that try to break docshape: TLS that cannot work, a
//! collection dropped in the middle of a read, a user refused `collStats` or
//! `aggregate`, thousands of indexes, a million documents, and a server that
//! stops answering one particular command. Each must end in one clear
//! sentence and exit code 2, or in a result that says what it could not do —
//! never a panic, never a hang past `--timeout`.
//!
//! Timing and memory are measured, so the tests of this file run one at a
//! time (see [`serial`]); each bounds every wait it makes.

use crate::common;

use std::io::{BufWriter, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bson::{doc, Bson, Document};
use common::{assert_fails_cleanly, collection, json_ok, stderr, stdout};

const PASSWORD: &str = "Hush-9f8e7d-pw";

/// Room for process start, connecting and exiting on top of `--timeout`
/// (a debug build on a loaded two-core machine).
const SLACK: Duration = Duration::from_secs(4);

/// One test of this file at a time: several measure wall time or memory,
/// which a neighbour profiling a million documents would distort.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Tests that provision a server of their own (`--auth`, TLS, failpoints)
/// cannot do so against an external `$MONGODB_URI`.
fn external_server() -> bool {
    std::env::var("MONGODB_URI").is_ok_and(|u| !u.trim().is_empty())
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(f)
}

/// A finished docshape run and its wall time.
struct Run {
    out: Output,
    took: Duration,
    /// When docshape was seen to have exited.
    ended: Instant,
}

/// The docshape binary with the hermetic environment of
/// [`common::docshape_env`]: fresh state and configuration directories
/// (inside `home`), English, no colour settings, backtraces on.
fn docshape_command(args: &[&str], home: &Path) -> Command {
    let mut cmd = Command::new(common::docshape_bin());
    cmd.args(args)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env("LANG", "C.UTF-8")
        .env_remove("NO_COLOR")
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null());
    cmd
}

/// Runs docshape and waits at most `limit` for it: a run that takes longer
/// is killed and fails the test as a hang.
fn run_bounded(args: &[&str], limit: Duration) -> Run {
    let home = tempfile::tempdir().expect("a temporary home for docshape");
    let start = Instant::now();
    let mut child = docshape_command(args, home.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", common::docshape_bin()));
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = r.read_to_end(&mut v);
            v
        })
    };
    let out_reader = drain(Box::new(child.stdout.take().expect("piped stdout")));
    let err_reader = drain(Box::new(child.stderr.take().expect("piped stderr")));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for docshape") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let err = err_reader.join().unwrap_or_default();
            panic!(
                "docshape {args:?} still ran after {limit:?} (a hang); stderr so far: {}",
                String::from_utf8_lossy(&err)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = start.elapsed();
    let out = Output {
        status,
        stdout: out_reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    };
    Run {
        out,
        took,
        ended: start + took,
    }
}

/// Neither stream of a run shows the password.
fn assert_no_password(o: &Output, what: &str) {
    for text in [stdout(o), stderr(o)] {
        assert!(!text.contains(PASSWORD), "{what}: password printed: {text}");
    }
}

/// The test server's connection string aimed at `127.0.0.1:port` instead
/// (a proxy), with `directConnection=true`, and the address it named. `None`
/// when a plain TCP proxy cannot stand in for it (SRV, TLS).
fn redirect(uri: &str, port: u16) -> Option<(String, String)> {
    let lower = uri.to_ascii_lowercase();
    if lower.contains("tls=true") || lower.contains("ssl=true") {
        return None;
    }
    let rest = uri.strip_prefix("mongodb://")?;
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (userinfo, hosts) = match authority.rsplit_once('@') {
        Some((u, h)) => (format!("{u}@"), h),
        None => (String::new(), authority),
    };
    let first = hosts.split(',').next()?;
    let upstream = if first
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        first.to_owned()
    } else {
        format!("{first}:27017")
    };
    let mut tail = tail.to_owned();
    if !lower.contains("directconnection=") {
        tail.push_str(match (tail.contains('?'), tail.is_empty()) {
            (true, _) => "&directConnection=true",
            (false, true) => "/?directConnection=true",
            (false, false) => "?directConnection=true",
        });
    }
    Some((
        format!("mongodb://{userinfo}127.0.0.1:{port}{tail}"),
        upstream,
    ))
}

// ---------------------------------------------------------------------------
// A MongoDB wire-protocol proxy that misbehaves on one command.
// ---------------------------------------------------------------------------

/// What the proxy does with the first client message its matcher accepts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Act {
    /// Never forward it (nor anything after it on that connection), and
    /// keep the connection open: a server that stopped answering.
    Stall,
    /// Forward it once the test calls [`Proxy::release`].
    Hold,
}

#[derive(Default)]
struct ProxyState {
    /// The command the matcher accepted, once it has.
    hit: Option<String>,
    /// When the matching message arrived.
    hit_at: Option<Instant>,
    released: bool,
    stopped: bool,
}

type Matcher = Box<dyn Fn(&Document) -> bool + Send + Sync>;

struct Shared {
    upstream: String,
    act: Act,
    matcher: Matcher,
    state: Mutex<ProxyState>,
    cv: Condvar,
    /// Every socket, to close them all when the proxy goes.
    sockets: Mutex<Vec<TcpStream>>,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, ProxyState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn track(&self, s: &TcpStream) {
        if let Ok(c) = s.try_clone() {
            self.sockets
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(c);
        }
    }
}

/// Forwards loopback connections to the test server, reading the client's
/// side message by message (OP_MSG) so it can stall or hold the first one
/// whose command document the matcher accepts. Replies pass untouched.
struct Proxy {
    port: u16,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl Proxy {
    fn start(
        upstream: &str,
        act: Act,
        matcher: impl Fn(&Document) -> bool + Send + Sync + 'static,
    ) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let port = listener.local_addr().expect("proxy address").port();
        let shared = Arc::new(Shared {
            upstream: upstream.to_owned(),
            act,
            matcher: Box::new(matcher),
            state: Mutex::new(ProxyState::default()),
            cv: Condvar::new(),
            sockets: Mutex::new(Vec::new()),
        });
        let sh = Arc::clone(&shared);
        let accept = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if sh.state().stopped {
                    break;
                }
                let Ok(client) = conn else { continue };
                let Ok(server) = TcpStream::connect(&sh.upstream) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                sh.track(&client);
                sh.track(&server);
                let (Ok(mut replies_from), Ok(mut replies_to)) =
                    (server.try_clone(), client.try_clone())
                else {
                    continue;
                };
                let fwd = Arc::clone(&sh);
                std::thread::spawn(move || forward_requests(&fwd, client, server));
                std::thread::spawn(move || {
                    let _ = std::io::copy(&mut replies_from, &mut replies_to);
                    let _ = replies_to.shutdown(Shutdown::Both);
                    let _ = replies_from.shutdown(Shutdown::Both);
                });
            }
        });
        Proxy {
            port,
            shared,
            accept: Some(accept),
        }
    }

    /// The command the matcher accepted, waiting for it at most `limit`.
    fn wait_hit(&self, limit: Duration) -> Option<String> {
        let deadline = Instant::now() + limit;
        let mut st = self.shared.state();
        while st.hit.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            st = self
                .shared
                .cv
                .wait_timeout(st, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        st.hit.clone()
    }

    fn hit_at(&self) -> Option<Instant> {
        self.shared.state().hit_at
    }

    /// Lets a held message through.
    fn release(&self) {
        self.shared.state().released = true;
        self.shared.cv.notify_all();
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.shared.state().stopped = true;
        self.shared.cv.notify_all();
        for s in self
            .shared
            .sockets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            let _ = s.shutdown(Shutdown::Both);
        }
        // Wake the accept loop so it sees `stopped`.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(a) = self.accept.take() {
            let _ = a.join();
        }
    }
}

/// The command document of an OP_MSG (its kind-0 section).
fn command_of(msg: &[u8]) -> Option<Document> {
    const OP_MSG: i32 = 2013;
    let op = i32::from_le_bytes(msg.get(12..16)?.try_into().ok()?);
    if op != OP_MSG {
        return None;
    }
    let mut pos = 20; // header (16) and flag bits (4)
    while pos < msg.len() {
        let kind = msg[pos];
        let size = i32::from_le_bytes(msg.get(pos + 1..pos + 5)?.try_into().ok()?);
        let size = usize::try_from(size).ok()?;
        let body = msg.get(pos + 1..pos + 1 + size)?;
        if kind == 0 {
            return Document::from_reader(body).ok();
        }
        pos += 1 + size;
    }
    None
}

fn forward_requests(sh: &Shared, mut client: TcpStream, mut server: TcpStream) {
    loop {
        let mut header = [0u8; 16];
        if client.read_exact(&mut header).is_err() {
            break;
        }
        let len = i32::from_le_bytes([header[0], header[1], header[2], header[3]]);
        let Ok(len) = usize::try_from(len) else { break };
        if !(16..=64 << 20).contains(&len) {
            break;
        }
        let mut msg = header.to_vec();
        msg.resize(len, 0);
        if client.read_exact(&mut msg[16..]).is_err() {
            break;
        }
        if let Some(cmd) = command_of(&msg).filter(|d| (sh.matcher)(d)) {
            let mut st = sh.state();
            if st.hit.is_none() {
                st.hit = Some(cmd.keys().next().cloned().unwrap_or_default());
                st.hit_at = Some(Instant::now());
                sh.cv.notify_all();
                while !st.stopped && (sh.act == Act::Stall || !st.released) {
                    st = sh.cv.wait(st).unwrap_or_else(PoisonError::into_inner);
                }
                if st.stopped {
                    break;
                }
            }
        }
        if server.write_all(&msg).is_err() {
            break;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    let _ = server.shutdown(Shutdown::Both);
}

/// The collection a command document addresses (`getMore` names it in
/// `collection`, the others in their first field).
fn target(d: &Document) -> Option<&str> {
    match d.keys().next()?.as_str() {
        "getMore" => d.get_str("collection").ok(),
        name => d.get_str(name).ok(),
    }
}

fn is_command(d: &Document, name: &str, coll: Option<&str>) -> bool {
    d.keys().next().is_some_and(|k| k == name) && coll.is_none_or(|c| target(d) == Some(c))
}

/// The first stage name of an `aggregate`'s pipeline.
fn first_stage(d: &Document) -> Option<String> {
    d.get_array("pipeline")
        .ok()?
        .first()?
        .as_document()?
        .keys()
        .next()
        .cloned()
}

fn pipeline_has(d: &Document, stage: &str) -> bool {
    d.get_array("pipeline").is_ok_and(|p| {
        p.iter()
            .filter_map(Bson::as_document)
            .any(|s| s.contains_key(stage))
    })
}

// ---------------------------------------------------------------------------
// 1. TLS that cannot work.
// ---------------------------------------------------------------------------

/// Runs `openssl` in `dir`, failing the test with its output if it fails.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("the TLS test makes its certificates with the openssl command: {e}")
        });
    assert!(
        out.status.success(),
        "openssl {args:?} failed: {}",
        stderr(&out)
    );
}

/// A CA and a server certificate it signed for 127.0.0.1, in `dir`:
/// `ca.pem`, `server.pem`, `server.key`.
fn make_certificates(dir: &Path) {
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"];
    let mut ca = vec!["req", "-x509", "-nodes", "-days", "2"];
    ca.extend(ec);
    ca.extend([
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-subj",
        "/CN=docshape test CA",
    ]);
    openssl(dir, &ca);
    let mut req = vec!["req", "-nodes"];
    req.extend(ec);
    req.extend([
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    openssl(dir, &req);
    std::fs::write(
        dir.join("ext.cnf"),
        "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
    )
    .expect("write ext.cnf");
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-out",
            "server.pem",
            "-extfile",
            "ext.cnf",
        ],
    );
}

/// Every TLS mistake ends within the timeout in one sentence that points at
/// TLS or the certificate, and never shows the password.
#[test]
fn tls_errors_fail_cleanly_within_the_timeout() {
    let _serial = serial();
    let timeout = Duration::from_secs(3);
    let secs = timeout.as_secs().to_string();
    let tmp = tempfile::tempdir().expect("tempdir");
    let not_pem = tmp.path().join("not-a-ca.pem");
    std::fs::write(&not_pem, "this is not a certificate\n").expect("write");
    let not_pem = not_pem.to_str().expect("utf-8").to_owned();

    // Against the plain (non-TLS) test server.
    let (_, upstream) = redirect(&common::uri(), 0).expect("a mongodb:// test server");
    let plain = format!("mongodb://alice:{PASSWORD}@{upstream}/?directConnection=true");
    let cases = [
        // The server never completes the handshake: docshape says it asked
        // for TLS.
        (format!("{plain}&tls=true"), "tls"),
        (
            format!("{plain}&tls=true&tlsCAFile=/nonexistent/ca.pem"),
            "certificate",
        ),
        (format!("{plain}&tlsCAFile={not_pem}"), "tls"),
    ];
    for (uri, word) in &cases {
        let run = run_bounded(
            &["audit", uri, "--timeout", &secs, "--no-snapshot"],
            timeout + SLACK * 3,
        );
        let line = assert_fails_cleanly(&run.out, uri);
        assert!(
            line.to_lowercase().contains(word),
            "{uri}: the message should mention {word}: {line}"
        );
        assert!(
            run.took < timeout + SLACK,
            "{uri}: took {:?}, timeout {timeout:?}",
            run.took
        );
        assert_no_password(&run.out, uri);
        eprintln!("tls: {:.1} s: {line}", run.took.as_secs_f64());
    }

    // Against a TLS server of our own, whose certificate a test CA signed.
    if external_server() {
        eprintln!(
            "tls: the TLS server cases need a private secantusd-py; skipped with MONGODB_URI"
        );
        return;
    }
    make_certificates(tmp.path());
    let cert = tmp.path().join("server.pem");
    let key = tmp.path().join("server.key");
    let ca = tmp.path().join("ca.pem");
    let server = common::PrivateServer::start(
        Path::new(":memory:"),
        &[
            "--tls-cert-file",
            cert.to_str().expect("utf-8"),
            "--tls-key-file",
            key.to_str().expect("utf-8"),
        ],
    );
    let port = server.port();
    let ca = ca.to_str().expect("utf-8");
    // The control: with the right CA the same server is read, so what fails
    // below fails because of TLS.
    let ok = run_bounded(
        &[
            "audit",
            &format!("mongodb://127.0.0.1:{port}/?tls=true&tlsCAFile={ca}"),
            "--timeout",
            "10",
            "--no-snapshot",
            "--format",
            "json",
        ],
        Duration::from_secs(60),
    );
    json_ok(&ok.out);
    let tls = format!("mongodb://alice:{PASSWORD}@127.0.0.1:{port}/?directConnection=true");
    let cases = [
        // No CA given: the system roots do not know the test CA.
        (format!("{tls}&tls=true"), Some("certificate")),
        // A CA file with no certificate in it trusts nothing.
        (
            format!("{tls}&tls=true&tlsCAFile={not_pem}"),
            Some("certificate"),
        ),
        // Plain text to a TLS server: the server hangs up. Nothing in the
        // driver's error says TLS, but it is one clear sentence.
        (tls.clone(), None),
    ];
    for (uri, word) in &cases {
        let run = run_bounded(
            &["audit", uri, "--timeout", &secs, "--no-snapshot"],
            timeout + SLACK * 3,
        );
        let line = assert_fails_cleanly(&run.out, uri);
        if let Some(word) = word {
            assert!(
                line.to_lowercase().contains(word),
                "{uri}: the message should mention {word}: {line}"
            );
        }
        assert!(
            run.took < timeout + SLACK,
            "{uri}: took {:?}, timeout {timeout:?}",
            run.took
        );
        assert_no_password(&run.out, uri);
        eprintln!("tls server: {:.1} s: {line}", run.took.as_secs_f64());
    }
    server.stop();
}

// ---------------------------------------------------------------------------
// 2. A collection dropped while it is read.
// ---------------------------------------------------------------------------

/// Another client drops the collection between two batches of docshape's
/// cursor (the proxy holds docshape's first `getMore` until the drop is
/// done, so the timing is certain). docshape keeps what it read and marks
/// the collection partial, naming it; it neither fails the run nor passes
/// the first batch off as the whole collection.
///
/// Documents of 100 KB make any read take several batches: a server caps a
/// reply at 16 MiB whatever batch size docshape asks for.
#[test]
fn a_collection_dropped_mid_read_is_reported_partial() {
    const DOCS: i32 = 250;
    let _serial = serial();
    let uri = common::uri();
    let Some((_, upstream)) = redirect(&uri, 0) else {
        eprintln!("dropped mid-read: the proxy cannot stand in for {uri}; skipped");
        return;
    };
    let db = common::unique_db("dropped");
    block_on(async {
        let c = common::client().await;
        for name in ["full", "sampled"] {
            let coll = c.database(&db).collection::<Document>(name);
            let docs: Vec<Document> = (0..DOCS)
                .map(|i| doc! {"_id": i, "n": i, "pad": "x".repeat(100_000), "tags": ["a", "b"]})
                .collect();
            for chunk in docs.chunks(50) {
                coll.insert_many(chunk).await.expect("insert");
            }
        }
    });
    for (name, extra) in [
        ("full", vec!["--full"]),
        ("sampled", vec!["--sample", "200"]),
    ] {
        let ns = format!("{db}.{name}");
        let coll = name.to_owned();
        let proxy = Proxy::start(&upstream, Act::Hold, move |d| {
            is_command(d, "getMore", Some(&coll))
        });
        let (via, _) = redirect(&uri, proxy.port).expect("redirect");
        let mut args = vec![
            "audit".to_owned(),
            via,
            "-c".to_owned(),
            ns.clone(),
            "--format".to_owned(),
            "json".to_owned(),
            "--timeout".to_owned(),
            "10".to_owned(),
            "--no-snapshot".to_owned(),
            "--fail-on".to_owned(),
            "never".to_owned(),
        ];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        let child = std::thread::spawn(move || {
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            run_bounded(&a, Duration::from_secs(120))
        });
        let hit = proxy.wait_hit(Duration::from_secs(60));
        assert_eq!(
            hit.as_deref(),
            Some("getMore"),
            "{name}: docshape never asked for a second batch"
        );
        block_on(async {
            let c = common::client().await;
            c.database(&db)
                .collection::<Document>(name)
                .drop()
                .await
                .expect("drop");
        });
        proxy.release();
        let run = child.join().expect("the docshape thread");
        let report = json_ok(&run.out);
        let c = collection(&report, &ns);
        let partial = c["partial"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: the collection is not marked partial: {c}"));
        assert!(
            partial.contains(&ns),
            "{name}: names the collection: {partial}"
        );
        let sampled = c["sampled"].as_i64().expect("sampled");
        assert!(
            sampled > 0 && sampled < i64::from(DOCS),
            "{name}: the first batch, and only it, was profiled: {sampled}"
        );
        assert!(
            partial.contains(&format!("stopped after {sampled} documents")),
            "{name}: says how far it got: {partial}"
        );
        assert_eq!(
            c["documents"],
            i64::from(DOCS),
            "{name}: the count is the server's estimate, not the documents read"
        );
        let text = stderr(&run.out).to_lowercase();
        assert!(!text.contains("panicked"), "{name}: {text}");
        eprintln!("dropped mid-read ({name}): partial: {partial}");
    }
}

// ---------------------------------------------------------------------------
// 3. Refused collStats, refused aggregate ($sample).
// ---------------------------------------------------------------------------

/// A real role, under `--auth`, that may find, list collections and list
/// indexes, but not run `collStats`. docshape falls back to `$collStats`
/// (SecantusDB, like mongod before 4.4, authorises `aggregate` through the
/// `find` action) and says so on the collection.
#[test]
fn a_user_refused_collstats_gets_storage_from_collstats_stage_with_a_note() {
    let _serial = serial();
    if external_server() {
        eprintln!(
            "refused collStats: provisions a role on a private server; skipped with MONGODB_URI"
        );
        return;
    }
    let storage = tempfile::tempdir().expect("tempdir");
    let server = common::PrivateServer::start(storage.path(), &[]);
    let port = server.port();
    block_on(async {
        let c = common::wait_ping(&format!(
            "mongodb://127.0.0.1:{port}/?directConnection=true"
        ))
        .await;
        let perm = c.database("perm");
        perm.run_command(doc! {
            "createRole": "noStats",
            "privileges": [{
                "resource": {"db": "perm", "collection": ""},
                "actions": ["find", "listCollections", "listIndexes"],
            }],
            "roles": [],
        })
        .await
        .expect("createRole");
        perm.run_command(doc! {
            "createUser": "reader",
            "pwd": PASSWORD,
            "roles": [{"role": "noStats", "db": "perm"}],
        })
        .await
        .expect("createUser");
        perm.collection::<Document>("items")
            .insert_many((0..300).map(|i| doc! {"_id": i, "sku": format!("s{i}"), "qty": i % 7}))
            .await
            .expect("insert");
    });
    server.stop();
    let server = common::PrivateServer::start_on(port, storage.path(), &["--auth"]);
    let uri = format!(
        "mongodb://reader:{PASSWORD}@127.0.0.1:{port}/perm?authSource=perm&directConnection=true"
    );
    // The role really is refused collStats (else this test proves nothing).
    block_on(async {
        let c = common::wait_ping(&uri).await;
        let refused = c
            .database("perm")
            .run_command(doc! {"collStats": "items"})
            .await
            .expect_err("collStats must be refused to this role");
        assert!(refused.to_string().contains("not authorized"), "{refused}");
    });
    let run = run_bounded(
        &[
            "audit",
            &uri,
            "--format",
            "json",
            "--sample",
            "100",
            "--timeout",
            "10",
            "--no-snapshot",
            "--fail-on",
            "never",
        ],
        Duration::from_secs(60),
    );
    let report = json_ok(&run.out);
    assert_no_password(&run.out, "refused collStats");
    let c = collection(&report, "perm.items");
    let notes: Vec<&str> = c["notes"]
        .as_array()
        .map(|a| a.iter().filter_map(|n| n.as_str()).collect())
        .unwrap_or_default();
    assert!(
        notes.iter().any(|n| n.contains("collStats was refused")
            && n.contains("not authorized")
            && n.contains("$collStats")),
        "a note says collStats was refused and where the sizes came from: {notes:?}"
    );
    assert!(
        c["storage"].is_object(),
        "storage figures from $collStats: {c}"
    );
    assert_eq!(c["sample_method"], "$sample");
    assert_eq!(c["sampled"], 100);
    eprintln!("refused collStats: notes {notes:?}");
    server.stop();
}

/// A real role, under `--auth`, that may read the database `perm` but in
/// `vault` only list the collections, not read them (the test server
/// grants privileges per database). The readable collection is
/// reported, the other is in the report's `errors` and on stderr, and the
/// exit code is 2 after the report is written.
#[test]
fn a_collection_the_user_may_not_read_is_an_error_beside_the_report() {
    let _serial = serial();
    if external_server() {
        eprintln!(
            "refused collection: provisions a role on a private server; skipped with MONGODB_URI"
        );
        return;
    }
    let storage = tempfile::tempdir().expect("tempdir");
    let server = common::PrivateServer::start(storage.path(), &[]);
    let port = server.port();
    block_on(async {
        let c = common::wait_ping(&format!(
            "mongodb://127.0.0.1:{port}/?directConnection=true"
        ))
        .await;
        let perm = c.database("perm");
        perm.run_command(doc! {
            "createRole": "itemsOnly",
            "privileges": [
                {
                    "resource": {"db": "perm", "collection": ""},
                    "actions": ["find", "listCollections", "listIndexes", "collStats"],
                },
                {
                    "resource": {"db": "vault", "collection": ""},
                    "actions": ["listCollections"],
                },
            ],
            "roles": [],
        })
        .await
        .expect("createRole");
        perm.run_command(doc! {
            "createUser": "reader",
            "pwd": PASSWORD,
            "roles": [{"role": "itemsOnly", "db": "perm"}],
        })
        .await
        .expect("createUser");
        for (db, name) in [("perm", "items"), ("vault", "secret")] {
            c.database(db)
                .collection::<Document>(name)
                .insert_many((0..50).map(|i| doc! {"_id": i, "sku": format!("s{i}")}))
                .await
                .expect("insert");
        }
    });
    server.stop();
    let server = common::PrivateServer::start_on(port, storage.path(), &["--auth"]);
    let uri = format!(
        "mongodb://reader:{PASSWORD}@127.0.0.1:{port}/perm?authSource=perm&directConnection=true"
    );
    // The role really is refused `vault.secret` (else this test proves
    // nothing), and may list it.
    block_on(async {
        let c = common::wait_ping(&uri).await;
        let listed = c
            .database("vault")
            .list_collection_names()
            .await
            .expect("listing vault is allowed");
        assert_eq!(listed, vec!["secret".to_owned()]);
        let refused = c
            .database("vault")
            .collection::<Document>("secret")
            .find_one(doc! {})
            .await
            .expect_err("reading vault.secret must be refused to this role");
        assert!(refused.to_string().contains("not authorized"), "{refused}");
    });
    let run = run_bounded(
        &[
            "audit",
            &uri,
            "--db",
            "perm",
            "--db",
            "vault",
            "--format",
            "json",
            "--timeout",
            "10",
            "--no-snapshot",
            "--fail-on",
            "never",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(run.out.status.code(), Some(2), "{}", stderr(&run.out));
    assert_no_password(&run.out, "refused collection");
    let report: serde_json::Value =
        serde_json::from_slice(&run.out.stdout).expect("the report is written in full");
    assert_eq!(collection(&report, "perm.items")["sampled"], 50);
    let errors = report["errors"].as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["target"], "vault.secret");
    let message = errors[0]["message"].as_str().expect("message");
    assert!(message.contains("not authorized"), "{message}");
    let said: Vec<&str> = std::str::from_utf8(&run.out.stderr)
        .expect("utf-8")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(said.len(), 1, "one sentence per unreadable part: {said:?}");
    assert!(said[0].contains(message), "{said:?}");
    server.stop();
}

/// SecantusDB's roles cannot refuse `aggregate` while allowing `find` (both
/// need the `find` action), so the refusal is injected with a `failCommand`
/// failpoint answering `aggregate` and `collStats` with Unauthorized (13),
/// exactly what mongod answers a role without those privileges. docshape
/// reads the first documents with `find` instead of `$sample`, reports no
/// storage figures, and says both on the collection; exit 0.
#[test]
fn a_user_refused_aggregate_falls_back_to_find_and_says_so() {
    let _serial = serial();
    if external_server() {
        eprintln!("refused aggregate: needs a private server with test commands; skipped with MONGODB_URI");
        return;
    }
    let server = common::PrivateServer::start(Path::new(":memory:"), &["--enable-test-commands"]);
    let uri = server.uri();
    block_on(async {
        let c = common::wait_ping(&uri).await;
        c.database("fp")
            .collection::<Document>("items")
            .insert_many((0..300).map(|i| doc! {"_id": i, "sku": format!("s{i}")}))
            .await
            .expect("insert");
        c.database("admin")
            .run_command(doc! {
                "configureFailPoint": "failCommand",
                "mode": "alwaysOn",
                "data": {"failCommands": ["aggregate", "collStats"], "errorCode": 13},
            })
            .await
            .expect("configureFailPoint");
        let refused = c
            .database("fp")
            .collection::<Document>("items")
            .aggregate([doc! {"$sample": {"size": 1}}])
            .await;
        assert!(refused.is_err(), "the failpoint refuses aggregate");
    });
    let run = run_bounded(
        &[
            "audit",
            &uri,
            "--db",
            "fp",
            "--format",
            "json",
            "--sample",
            "100",
            "--timeout",
            "10",
            "--no-snapshot",
            "--fail-on",
            "never",
        ],
        Duration::from_secs(60),
    );
    let report = json_ok(&run.out);
    let c = collection(&report, "fp.items");
    assert_eq!(c["sample_method"], "find (first documents)", "{c}");
    assert_eq!(c["sampled"], 100);
    let partial = c["partial"].as_str().unwrap_or_default();
    assert!(
        partial.contains("$sample was refused") && partial.contains("code 13"),
        "the report says the sample is not random, and why: {partial:?}"
    );
    let notes: Vec<&str> = c["notes"]
        .as_array()
        .map(|a| a.iter().filter_map(|n| n.as_str()).collect())
        .unwrap_or_default();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("storage sizes unavailable") && n.contains("collStats")),
        "a note says there are no storage figures: {notes:?}"
    );
    assert!(
        c.get("storage").is_none_or(serde_json::Value::is_null),
        "{c}"
    );
    eprintln!("refused aggregate: partial {partial:?}; notes {notes:?}");
    server.stop();
}

// ---------------------------------------------------------------------------
// 4. Fifty collections of two hundred indexes.
// ---------------------------------------------------------------------------

/// mongod refuses a 65th index on a collection; SecantusDB has no such cap
/// and accepts 200 (plus `_id_`), which is what this test creates: more
/// than any real server holds, so docshape's listing is tested past it.
#[test]
fn fifty_collections_of_two_hundred_indexes_are_listed() {
    const COLLECTIONS: usize = 50;
    const INDEXES: usize = 200;
    let _serial = serial();
    let db = common::unique_db("indexes");
    let setup = Instant::now();
    let max = block_on(async {
        let c = common::client().await;
        let database = c.database(&db);
        let mut max = INDEXES;
        for k in 0..COLLECTIONS {
            let name = format!("c{k:02}");
            database
                .collection::<Document>(&name)
                .insert_many((0..3).map(|i| doc! {"_id": i, "f0": i}))
                .await
                .expect("insert");
            let specs: Vec<Document> = (0..INDEXES)
                .map(|i| doc! {"key": {format!("f{i}"): 1}, "name": format!("f{i}_1")})
                .collect();
            if let Err(e) = database
                .run_command(doc! {"createIndexes": &name, "indexes": specs})
                .await
            {
                // A real mongod caps a collection at 64 indexes.
                assert!(
                    external_server(),
                    "SecantusDB refused {INDEXES} indexes: {e}"
                );
                max = 63;
                let specs: Vec<Document> = (0..max)
                    .map(|i| doc! {"key": {format!("f{i}"): 1}, "name": format!("f{i}_1")})
                    .collect();
                database
                    .run_command(doc! {"createIndexes": &name, "indexes": specs})
                    .await
                    .expect("createIndexes");
            }
        }
        max
    });
    eprintln!(
        "indexes: created {COLLECTIONS} x {max} indexes in {:.1} s",
        setup.elapsed().as_secs_f64()
    );
    let run = run_bounded(
        &[
            "audit",
            &common::uri(),
            "--db",
            &db,
            "--format",
            "json",
            "--timeout",
            "30",
            "--no-snapshot",
            "--fail-on",
            "never",
        ],
        Duration::from_secs(120),
    );
    let report = json_ok(&run.out);
    let colls = common::collections(&report);
    assert_eq!(colls.len(), COLLECTIONS, "every collection is listed");
    for k in 0..COLLECTIONS {
        let c = collection(&report, &format!("{db}.c{k:02}"));
        let names: Vec<&str> = c["indexes"]
            .as_array()
            .expect("indexes")
            .iter()
            .filter_map(|i| i["name"].as_str())
            .collect();
        assert_eq!(names.len(), max + 1, "{}: {names:?}", c["namespace"]);
        for i in 0..max {
            let want = format!("f{i}_1");
            assert!(
                names.contains(&want.as_str()),
                "{}: no {want}",
                c["namespace"]
            );
        }
        // Said on the collection, or — fifty collections of one shape
        // named by a number are one family (collection-per-tenant) —
        // once for the family, on its first member.
        let said_here = c["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["rule"] == "too-many-indexes");
        assert!(
            said_here || k > 0,
            "{}: too-many-indexes fires",
            c["namespace"]
        );
    }
    let family = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "collection-per-tenant");
    if let Some(family) = family {
        let repeated = family["evidence"]["repeated_findings"]
            .as_array()
            .expect("repeated findings");
        assert!(
            repeated
                .iter()
                .any(|r| r["rule"] == "too-many-indexes" && r["members"] == COLLECTIONS),
            "{repeated:?}"
        );
    } else {
        for k in 0..COLLECTIONS {
            let c = collection(&report, &format!("{db}.c{k:02}"));
            assert!(
                c["findings"]
                    .as_array()
                    .expect("findings")
                    .iter()
                    .any(|f| f["rule"] == "too-many-indexes"),
                "{}: too-many-indexes fires",
                c["namespace"]
            );
        }
    }
    assert!(
        run.took < Duration::from_secs(60),
        "listing took {:?}",
        run.took
    );
    eprintln!(
        "indexes: audit of {COLLECTIONS} collections x {} indexes: {:.1} s",
        max + 1,
        run.took.as_secs_f64()
    );
}

// ---------------------------------------------------------------------------
// 5. Flat memory over a million documents.
// ---------------------------------------------------------------------------

/// Writes `n` small documents of varied shape straight as BSON bytes: an
/// int `_id`, a short string, a field whose type cycles through int, double,
/// string, bool and null, an array of 0–3 strings, and every tenth document
/// a sub-document. The set of paths is the same for any `n`.
fn write_generated_bson(path: &Path, n: u32) {
    fn elem(buf: &mut Vec<u8>, ty: u8, name: &str) {
        buf.push(ty);
        buf.extend_from_slice(name.as_bytes());
        buf.push(0);
    }
    fn string(buf: &mut Vec<u8>, s: &str) {
        buf.extend_from_slice(&(s.len() as i32 + 1).to_le_bytes());
        buf.extend_from_slice(s.as_bytes());
        buf.push(0);
    }
    const KINDS: [&str; 4] = ["a", "bb", "ccc", "dddd"];
    const KEYS: [&str; 3] = ["0", "1", "2"];
    let f = std::fs::File::create(path).expect("create the .bson file");
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let mut d = Vec::with_capacity(256);
    let mut arr = Vec::with_capacity(64);
    for i in 0..n {
        d.clear();
        d.extend_from_slice(&[0; 4]);
        elem(&mut d, 0x10, "_id");
        d.extend_from_slice(&(i as i32).to_le_bytes());
        elem(&mut d, 0x02, "kind");
        string(&mut d, KINDS[(i % 4) as usize]);
        match i % 5 {
            0 => {
                elem(&mut d, 0x10, "v");
                d.extend_from_slice(&(i as i32).to_le_bytes());
            }
            1 => {
                elem(&mut d, 0x01, "v");
                d.extend_from_slice(&(f64::from(i) / 7.0).to_le_bytes());
            }
            2 => {
                elem(&mut d, 0x02, "v");
                string(&mut d, &format!("s{}", i % 997));
            }
            3 => {
                elem(&mut d, 0x08, "v");
                d.push(u8::from(i % 2 == 0));
            }
            _ => elem(&mut d, 0x0A, "v"),
        }
        arr.clear();
        arr.extend_from_slice(&[0; 4]);
        for key in KEYS.iter().take((i % 4) as usize) {
            elem(&mut arr, 0x02, key);
            string(&mut arr, &format!("t{}", i % 13));
        }
        arr.push(0);
        let len = arr.len() as i32;
        arr[..4].copy_from_slice(&len.to_le_bytes());
        elem(&mut d, 0x04, "tags");
        d.extend_from_slice(&arr);
        if i % 10 == 0 {
            elem(&mut d, 0x03, "meta");
            let mut sub = vec![0; 4];
            elem(&mut sub, 0x12, "k");
            sub.extend_from_slice(&i64::from(i).to_le_bytes());
            sub.push(0);
            let len = sub.len() as i32;
            sub[..4].copy_from_slice(&len.to_le_bytes());
            d.extend_from_slice(&sub);
        }
        d.push(0);
        let len = d.len() as i32;
        d[..4].copy_from_slice(&len.to_le_bytes());
        w.write_all(&d).expect("write a document");
    }
    w.flush().expect("flush the .bson file");
}

/// The process's peak resident set (`VmHWM`, KiB), while it runs.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    docshape::audit::peak_memory_of(&format!("/proc/{pid}/status")).map(|b| b / 1024)
}

/// Runs `audit FILE --full --format json -o OUT` and samples the child's
/// peak RSS every few milliseconds until it exits (`VmHWM` only grows, so
/// the last reading is the peak up to a few milliseconds before exit).
fn audit_measuring_memory(file: &Path, out: &Path, limit: Duration) -> (u64, Duration) {
    let home = tempfile::tempdir().expect("tempdir");
    let args = [
        "audit",
        file.to_str().expect("utf-8"),
        "--full",
        "--format",
        "json",
        "-o",
        out.to_str().expect("utf-8"),
        "--no-snapshot",
        "--fail-on",
        "never",
    ];
    let start = Instant::now();
    let mut child = docshape_command(&args, home.path())
        // Two profiling workers whatever the machine: their bounded batch
        // queues are part of the peak (see the bound below).
        .env("DOCSHAPE_THREADS", "2")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run docshape");
    let pid = child.id();
    let mut peak = 0;
    let status = loop {
        if let Some(kib) = peak_rss_kib(pid) {
            peak = peak.max(kib);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("docshape on {} ran past {limit:?}", file.display());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let took = start.elapsed();
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut err);
    }
    assert!(
        status.success(),
        "docshape on {}: {status}: {err}",
        file.display()
    );
    assert!(peak > 0, "no VmHWM read for pid {pid}");
    (peak, took)
}

/// The contract: docshape never holds more than the sample in memory. Ten
/// times the documents may not cost ten percent more peak memory.
#[test]
fn memory_stays_flat_from_a_hundred_thousand_to_a_million_documents() {
    let _serial = serial();
    if !Path::new("/proc/self/status").exists() {
        eprintln!("flat memory: needs /proc to read a child's peak RSS; skipped");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let gen = Instant::now();
    let small = tmp.path().join("gen100k.bson");
    let large = tmp.path().join("gen1m.bson");
    write_generated_bson(&small, 100_000);
    write_generated_bson(&large, 1_000_000);
    let size = std::fs::metadata(&large).expect("metadata").len();
    eprintln!(
        "flat memory: generated 1.1 M documents ({} MB for 1 M) in {:.1} s",
        size / 1_000_000,
        gen.elapsed().as_secs_f64()
    );
    let limit = Duration::from_secs(400);
    let mut measured: Vec<(u32, u64, Duration, serde_json::Value)> = Vec::new();
    for (n, file) in [(100_000u32, &small), (1_000_000, &large)] {
        let out: PathBuf = tmp.path().join(format!("report{n}.json"));
        let (peak, took) = audit_measuring_memory(file, &out, limit);
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&out).expect("read the report"))
                .expect("the report is JSON");
        eprintln!(
            "flat memory: {n} documents: peak RSS {:.1} MiB, {:.1} s",
            peak as f64 / 1024.0,
            took.as_secs_f64()
        );
        measured.push((n, peak, took, report));
    }
    for (n, _, _, report) in &measured {
        let c = &common::collections(report)[0];
        assert_eq!(c["documents"], *n, "every document is counted");
        assert_eq!(c["sampled"], *n, "every document is profiled");
        assert_eq!(common::field(c, "v")["types"]["null"], n / 5);
    }
    let (small_peak, large_peak) = (measured[0].1, measured[1].1);
    // 10 % of the smaller peak, plus 4 MiB that do not grow with the input:
    // the profiling workers' queues hold up to (2 queued + 1 in hand) x 512
    // KiB batches each, 3 MiB for two workers, which a long input fills and
    // 100,000 documents (6 MB, the first 4 MiB profiled before any worker
    // starts) barely do; and about 1 MiB of allocator noise. Measured on a
    // debug build: peak heap 2.7 MB at 100,000 documents and 5.1 MB at
    // 1,000,000 (heaptrack, nearly all of the difference in those batches);
    // peak RSS 12.0, 14.5 and 14.7 MiB at 100,000, 1,000,000 and 3,000,000.
    let bound = small_peak + small_peak / 10 + 4 * 1024;
    assert!(
        large_peak <= bound,
        "peak RSS grew with the input: {small_peak} KiB for 100,000 documents, {large_peak} KiB for 1,000,000 (bound {bound} KiB)"
    );
}

// ---------------------------------------------------------------------------
// 6. A server that stops answering one command.
// ---------------------------------------------------------------------------

/// For each kind of call docshape makes, a proxy forwards everything until
/// that call and then goes silent on it (the connection stays open). Each
/// run must end with exit code 2 and one sentence naming what it was doing,
/// within `--timeout` and a little slack.
#[test]
fn every_server_call_is_cut_off_by_the_timeout() {
    const FULL: &[&str] = &["--full"];
    const SAMPLE: &[&str] = &["--sample", "200"];
    type Case = (&'static str, &'static [&'static str], &'static str, Matcher);
    let _serial = serial();
    let uri = common::uri();
    let Some((_, upstream)) = redirect(&uri, 0) else {
        eprintln!("stalls: the proxy cannot stand in for {uri}; skipped");
        return;
    };
    let db = common::unique_db("stall");
    let big_db = common::unique_db("stallbig");
    block_on(async {
        let c = common::client().await;
        let parents: Vec<Document> = (0..1500u32)
            .map(|i| doc! {"_id": common::oid(common::NEWEST - i * 60, i), "name": format!("p{i}")})
            .collect();
        let children: Vec<Document> = (0..3000u32)
            .map(|i| {
                let p = i % 1500;
                doc! {
                    "_id": common::oid(common::NEWEST - i * 30, 100_000 + i),
                    "parent_id": common::oid(common::NEWEST - p * 60, p),
                    "n": i,
                }
            })
            .collect();
        for (name, docs) in [("parents", parents), ("children", children)] {
            let coll = c.database(&db).collection::<Document>(name);
            for chunk in docs.chunks(1500) {
                coll.insert_many(chunk).await.expect("insert");
            }
        }
        // 25 MB: more than one 16 MiB reply, so a full read needs a getMore
        // whatever batch size docshape asks for.
        let bulky = c.database(&big_db).collection::<Document>("bulky");
        for chunk in (0..250).collect::<Vec<i32>>().chunks(50) {
            bulky
                .insert_many(
                    chunk
                        .iter()
                        .map(|i| doc! {"_id": i, "pad": "x".repeat(100_000)}),
                )
                .await
                .expect("insert");
        }
    });
    let timeout = Duration::from_secs(2);
    let dbname = db.clone();
    let kids = Some("children");
    let cases: Vec<Case> = vec![
        (
            "listDatabases",
            FULL,
            "listing databases",
            Box::new(|d: &Document| is_command(d, "listDatabases", None)),
        ),
        (
            "listCollections",
            FULL,
            "listing collections",
            Box::new(move |d: &Document| {
                is_command(d, "listCollections", None)
                    && d.get_str("$db").ok() == Some(dbname.as_str())
            }),
        ),
        (
            "count",
            FULL,
            "counting the documents of",
            Box::new(move |d: &Document| is_command(d, "count", kids)),
        ),
        (
            "collStats",
            FULL,
            "reading collStats of",
            Box::new(move |d: &Document| is_command(d, "collStats", kids)),
        ),
        (
            "listIndexes",
            FULL,
            "listing the indexes of",
            Box::new(move |d: &Document| is_command(d, "listIndexes", kids)),
        ),
        (
            "$indexStats",
            FULL,
            "reading $indexStats of",
            Box::new(move |d: &Document| {
                is_command(d, "aggregate", kids) && first_stage(d).as_deref() == Some("$indexStats")
            }),
        ),
        (
            "$sample",
            SAMPLE,
            "starting $sample on",
            Box::new(move |d: &Document| {
                is_command(d, "aggregate", kids) && first_stage(d).as_deref() == Some("$sample")
            }),
        ),
        (
            "find",
            FULL,
            "starting a scan of",
            Box::new(move |d: &Document| is_command(d, "find", kids)),
        ),
        (
            "getMore",
            FULL,
            "reading documents from",
            // On the database of big documents (below).
            Box::new(move |d: &Document| is_command(d, "getMore", Some("bulky"))),
        ),
        (
            "distinct",
            FULL,
            "probing references",
            Box::new(|d: &Document| is_command(d, "distinct", None)),
        ),
        (
            "$group",
            FULL,
            "counting children per parent",
            Box::new(move |d: &Document| {
                is_command(d, "aggregate", kids) && pipeline_has(d, "$group")
            }),
        ),
    ];
    let secs = timeout.as_secs().to_string();
    // Two at a time: each run mostly waits on its stalled call.
    let mut cases = cases.into_iter().peekable();
    let mut results = Vec::new();
    while cases.peek().is_some() {
        let batch: Vec<Case> = cases.by_ref().take(2).collect();
        std::thread::scope(|s| {
            let handles: Vec<_> = batch
                .into_iter()
                .map(|(label, extra, stage, matcher)| {
                    let db = if label == "getMore" { &big_db } else { &db };
                    let (upstream, uri, secs) = (&upstream, &uri, &secs);
                    s.spawn(move || {
                        let proxy = Proxy::start(upstream, Act::Stall, matcher);
                        let (via, _) = redirect(uri, proxy.port).expect("redirect");
                        let mut args = vec![
                            "audit",
                            via.as_str(),
                            "--db",
                            db.as_str(),
                            "--timeout",
                            secs.as_str(),
                            "--no-snapshot",
                            "--format",
                            "json",
                        ];
                        args.extend_from_slice(extra);
                        let run = run_bounded(&args, timeout + SLACK * 5);
                        (label, stage, proxy.hit_at(), run)
                    })
                })
                .collect();
            for h in handles {
                results.push(h.join().expect("a stall case"));
            }
        });
    }
    // From the stalled call to docshape's exit: the timeout, the half
    // second of grace docshape gives the server's own maxTimeMS error, and
    // a second for a loaded machine to notice and exit.
    let bound = timeout + Duration::from_millis(1500);
    for (label, stage, hit_at, run) in results {
        let Some(hit_at) = hit_at else {
            panic!(
                "{label}: docshape never sent it (exit {}, stderr {})",
                run.out.status,
                stderr(&run.out)
            );
        };
        let waited = run.ended.saturating_duration_since(hit_at);
        let line = assert_fails_cleanly(&run.out, label);
        assert!(
            line.contains(&format!("no reply within {} s", timeout.as_secs())) && line.contains(stage),
            "{label}: the message says the server stopped answering and what docshape was doing: {line}"
        );
        assert!(
            waited < bound,
            "{label}: exited {waited:?} after the stalled call, with --timeout {}",
            timeout.as_secs()
        );
        eprintln!(
            "stall on {label}: exit 2 {:.2} s after the stalled call ({:.2} s in all): {line}",
            waited.as_secs_f64(),
            run.took.as_secs_f64()
        );
    }
}
