//! End to end: the explorer binary in a real terminal (tmux) against the
//! MongoDB-wire test server loaded with the bundled sample data. It opens a
//! collection, opens a finding, quits, and checks the terminal came back;
//! and the Workload tab on the bundled sample data with a `mongod` log.
//! Needs `tmux` on PATH.

use crate::common;
use crate::common::mongod_log;
use crate::common::proxy;

use std::process::Command;
use std::time::{Duration, Instant};

struct Session(String);

impl Session {
    /// `cmd` in a detached tmux session of `size` columns × rows.
    fn start(prefix: &str, size: (u16, u16), cmd: &str) -> Session {
        let name = format!("{prefix}-{}", std::process::id());
        let (w, h) = (size.0.to_string(), size.1.to_string());
        tmux(&["new-session", "-d", "-s", &name, "-x", &w, "-y", &h, cmd]);
        Session(name)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .status();
    }
}

fn tmux(args: &[&str]) -> String {
    let o = Command::new("tmux")
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run tmux (install it: apt-get install tmux): {e}"));
    assert!(
        o.status.success(),
        "tmux {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn screen(s: &Session) -> String {
    tmux(&["capture-pane", "-p", "-t", &s.0])
}

fn wait_for(s: &Session, what: &str, secs: u64) -> String {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let text = screen(s);
        if text.contains(what) {
            return text;
        }
        assert!(
            Instant::now() < deadline,
            "`{what}` did not appear within {secs} s; the screen:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn keys(s: &Session, keys: &[&str]) {
    let mut args = vec!["send-keys", "-t", s.0.as_str()];
    args.extend_from_slice(keys);
    tmux(&args);
    std::thread::sleep(Duration::from_millis(150));
}

#[test]
fn explorer_opens_a_finding_and_restores_the_terminal() {
    let uri = common::uri();
    let db = common::unique_db("tui");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = common::client().await;
        for coll in ["customers", "orders", "products"] {
            let path = common::repo().join(format!("sample-data/shop/{coll}.json"));
            common::load_ejson(&client, &db, coll, &path).await;
        }
    });
    let home = tempfile::tempdir().expect("temp dir");
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} DOCSHAPE_LOG={h}/log '{bin}' '{uri}' --db {db} --no-snapshot; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
    );
    let s = Session::start("docshape-e2e", (100, 30), &cmd);
    let first = wait_for(&s, "orders", 60);
    assert!(first.contains(&db), "{first}");
    // The navigator has focus: filter it to `orders`.
    keys(&s, &["-l", "/orders"]);
    keys(&s, &["Enter"]);
    let o = wait_for(&s, "Fields (15)", 10);
    assert!(o.contains("customer_id"), "{o}");
    // Findings tab, the first finding's detail.
    keys(&s, &["2"]);
    let f = wait_for(&s, "Evidence", 10);
    assert!(f.contains("mixed-types"), "{f}");
    assert!(f.contains("Why it matters"), "{f}");
    // Help, then away.
    keys(&s, &["?"]);
    wait_for(&s, "Esc closes)", 10);
    keys(&s, &["Escape"]);
    keys(&s, &["q"]);
    let end = wait_for(&s, "DOCSHAPE_EXIT=", 10);
    assert!(end.contains("DOCSHAPE_EXIT=0"), "{end}");
    // Back on the normal screen, nothing of the explorer left.
    assert!(!end.contains("Collections"), "{end}");
    let alt = tmux(&["display-message", "-p", "-t", &s.0, "#{alternate_on}"]);
    assert_eq!(alt.trim(), "0");
}

#[test]
fn indexes_tab_shows_kind_size_and_use() {
    use mongodb::bson::doc;
    use mongodb::IndexModel;
    let uri = common::uri();
    let db = common::unique_db("tuiix");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let ops = rt.block_on(async {
        let client = common::client().await;
        let c = client
            .database(&db)
            .collection::<mongodb::bson::Document>("orders");
        let docs: Vec<_> = (0..200)
            .map(|i| doc! {"sku": format!("s{}", i % 20), "qty": i, "at": i * 10})
            .collect();
        c.insert_many(docs).await.expect("insert");
        c.create_index(IndexModel::builder().keys(doc! {"sku": 1}).build())
            .await
            .expect("index sku");
        c.create_index(
            IndexModel::builder()
                .keys(doc! {"sku": 1, "at": -1})
                .options(
                    mongodb::options::IndexOptions::builder()
                        .unique(true)
                        .build(),
                )
                .build(),
        )
        .await
        .expect("index sku, at");
        // Queries the `sku_1` index serves, so `$indexStats` counts them.
        for i in 0..5 {
            c.find_one(doc! {"sku": format!("s{i}")})
                .hint(mongodb::options::Hint::Name("sku_1".into()))
                .await
                .expect("find");
        }
        // What the server counts (the test server counts nothing; mongod 5).
        let mut cur = c
            .aggregate([doc! {"$indexStats": {}}])
            .await
            .expect("$indexStats");
        let mut ops = None;
        while cur.advance().await.expect("next") {
            let d = cur.deserialize_current().expect("doc");
            if d.get_str("name").ok() == Some("sku_1") {
                let a = d.get_document("accesses").expect("accesses");
                ops = a.get("ops").and_then(|v| match v {
                    mongodb::bson::Bson::Int64(n) => Some(*n),
                    mongodb::bson::Bson::Int32(n) => Some(i64::from(*n)),
                    _ => None,
                });
            }
        }
        ops.expect("sku_1 in $indexStats")
    });
    let home = tempfile::tempdir().expect("temp dir");
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} '{bin}' '{uri}' --db {db} --no-snapshot; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
    );
    let s = Session::start("docshape-ix", (120, 34), &cmd);
    wait_for(&s, "orders", 60);
    keys(&s, &["-l", "/orders"]);
    keys(&s, &["Enter"]);
    wait_for(&s, "Fields (", 10);
    keys(&s, &["6"]);
    let t = wait_for(&s, "Indexes (3)", 10);
    assert!(t.contains("sku_1_at_-1"), "{t}");
    assert!(t.contains("compound, unique"), "{t}");
    assert!(t.contains("{sku: 1, at: -1}"), "{t}");
    // The selected index's detail: its use counted by $indexStats. (Tab
    // goes round the navigator, the list and the detail: three bring the
    // list back.)
    keys(&s, &["Tab"]);
    keys(&s, &["Tab"]);
    keys(&s, &["Tab"]);
    keys(&s, &["j"]);
    let d = wait_for(&s, "operations", 10);
    assert!(d.contains("┌ sku_1 "), "{d}");
    let want = format!("used        {ops} operations");
    assert!(d.contains(&want), "{want}\n{d}");
    // Sizes from collStats' indexSizes.
    assert!(
        d.lines().any(|l| l.contains("size") && l.contains(" KiB")),
        "{d}"
    );
    keys(&s, &["q"]);
    let end = wait_for(&s, "DOCSHAPE_EXIT=", 10);
    assert!(end.contains("DOCSHAPE_EXIT=0"), "{end}");
}

/// Through a slow link, collections show in the navigator as they are
/// read, the stage is named, and Esc stops the reading: the collections
/// read so far are judged and kept, the rest is said.
#[test]
fn collections_arrive_and_esc_keeps_them() {
    const COLLECTIONS: usize = 40;
    let db = common::unique_db("tui_arrive");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = common::client().await;
        for i in 0..COLLECTIONS {
            let docs: Vec<mongodb::bson::Document> = (0..20)
                .map(|k| mongodb::bson::doc! {"_id": k, "n": k, "tag": format!("t{}", k % 3)})
                .collect();
            client
                .database(&db)
                .collection(&format!("c{i:02}"))
                .insert_many(docs)
                .await
                .expect("insert");
        }
    });
    let Some(upstream) = proxy::upstream_of(&common::uri()) else {
        eprintln!("the proxy cannot stand in for {}; skipped", common::uri());
        return;
    };
    let link = proxy::DelayProxy::start(&upstream, Duration::from_millis(80));
    let via = format!("mongodb://127.0.0.1:{}/?directConnection=true", link.port);
    let home = tempfile::tempdir().expect("temp dir");
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} DOCSHAPE_LOG={h}/log '{bin}' '{via}' --db {db} --no-snapshot --concurrency 1; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
    );
    let s = Session::start("docshape-arrive", (100, 30), &cmd);
    // The first collections are listed while the others are still read.
    let early = wait_for(&s, "c01", 60);
    assert!(
        early.contains(&format!("/{COLLECTIONS}]")) && early.contains("sampling ["),
        "the run goes on: {early}"
    );
    assert!(!early.contains("c39"), "not all read yet: {early}");
    keys(&s, &["Escape"]);
    let end = wait_for(&s, "stopped after", 60);
    // Those read are kept (and judged); the last ones never arrived.
    assert!(end.contains("c00") && end.contains("c01"), "{end}");
    assert!(!end.contains("c39"), "{end}");
    assert!(!end.contains("findings come once"), "{end}");
    keys(&s, &["q"]);
    let bye = wait_for(&s, "DOCSHAPE_EXIT=", 10);
    assert!(bye.contains("DOCSHAPE_EXIT=0"), "{bye}");
    drop(link);
    rt.block_on(async {
        let _ = common::client().await.database(&db).drop().await;
    });
}

/// A collection's own findings are on screen while the rest is still
/// read: 150 collections behind a link that holds every reply 25 ms, each
/// storing dates as strings; the first `string-dates` finding shows under
/// All findings before the last collection is read, and the list's title
/// says what is still to come.
#[test]
fn the_first_finding_shows_before_the_last_collection_is_read() {
    const COLLECTIONS: usize = 150;
    let db = common::unique_db("tui_early");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = common::client().await;
        for i in 0..COLLECTIONS {
            let docs: Vec<mongodb::bson::Document> = (0..40)
                .map(|k| mongodb::bson::doc! {"_id": k, "at": format!("2020-01-{:02}T03:04:05Z", k % 28 + 1)})
                .collect();
            client
                .database(&db)
                .collection(&format!("c{i:03}"))
                .insert_many(docs)
                .await
                .expect("insert");
        }
    });
    let upstream = proxy::upstream_of(&common::uri())
        .unwrap_or_else(|| panic!("the delaying proxy cannot stand in for {}", common::uri()));
    let link = proxy::DelayProxy::start(&upstream, Duration::from_millis(25));
    let via = format!("mongodb://127.0.0.1:{}/?directConnection=true", link.port);
    let home = tempfile::tempdir().expect("temp dir");
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} LANG=C.UTF-8 '{bin}' '{via}' --db {db} --no-snapshot; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
    );
    let s = Session::start("docshape-early", (120, 40), &cmd);
    let early = wait_for(&s, "string-dates", 120);
    // Still reading: the progress names a collection short of the last,
    // and the last has not arrived.
    let at = early
        .split("sampling [")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or_else(|| panic!("the run is still sampling:\n{early}"));
    assert!(at < COLLECTIONS, "{early}");
    assert!(early.contains(&format!("/{COLLECTIONS}]")), "{early}");
    assert!(
        !early.contains(&format!("c{:03}", COLLECTIONS - 1)),
        "{early}"
    );
    assert!(
        early.contains("so far"),
        "the title says more is to come:\n{early}"
    );
    // At the end the title no longer says "so far" (the collections'
    // shared finding is then said once, for their family).
    let end = wait_for(&s, &format!("sampled {COLLECTIONS} collections"), 180);
    assert!(
        !end.contains("so far") && end.contains("string-dates"),
        "{end}"
    );
    keys(&s, &["q"]);
    let bye = wait_for(&s, "DOCSHAPE_EXIT=", 10);
    assert!(bye.contains("DOCSHAPE_EXIT=0"), "{bye}");
    drop(link);
    rt.block_on(async {
        let _ = common::client().await.database(&db).drop().await;
    });
}

#[test]
fn query_bar_finds_matches_outside_the_sample_with_their_count() {
    use mongodb::bson::doc;
    let uri = common::uri();
    let db = common::unique_db("tuiq");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = common::client().await;
        let c = client
            .database(&db)
            .collection::<mongodb::bson::Document>("events");
        let docs: Vec<_> = (0..300)
            .map(|i| doc! {"n": i, "kind": if i % 3 == 0 { "a" } else { "b" }})
            .collect();
        c.insert_many(docs).await.expect("insert");
    });
    let home = tempfile::tempdir().expect("temp dir");
    // Ten sampled documents; the filter matches fifty, most never sampled.
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} '{bin}' '{uri}' --db {db} --sample 10 --no-snapshot; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
    );
    let s = Session::start("docshape-query", (120, 40), &cmd);
    wait_for(&s, "events", 60);
    keys(&s, &["-l", "/events"]);
    keys(&s, &["Enter"]);
    wait_for(&s, "Fields (", 10);
    keys(&s, &["3"]);
    wait_for(&s, "kept sample (10)", 10);
    keys(&s, &["/"]);
    wait_for(&s, "Enter runs", 10);
    keys(&s, &["-l", "{kind: 'a', n: {$gte: 150}}"]);
    keys(&s, &["Tab"]);
    keys(&s, &["-l", "{n: 1}"]);
    keys(&s, &["Enter"]);
    let t = wait_for(&s, "50 match", 20);
    assert!(t.contains("{kind: 'a', n: {$gte: 150}} sort {n: 1}"), "{t}");
    assert!(t.contains("documents 1–50"), "{t}");
    // The first match, opened: the smallest n that matches.
    keys(&s, &["Enter"]);
    let t = wait_for(&s, "\"n\": 150", 10);
    assert!(t.contains("\"kind\": \"a\""), "{t}");
    // How the server ran it.
    keys(&s, &["x"]);
    let t = wait_for(&s, "documents examined", 10);
    assert!(t.contains("plan "), "{t}");
    keys(&s, &["Escape"]);
    wait_for(&s, "kept sample (10)", 10);
    keys(&s, &["q"]);
    let end = wait_for(&s, "DOCSHAPE_EXIT=", 10);
    assert!(end.contains("DOCSHAPE_EXIT=0"), "{end}");
}

/// `docshape sample-data --workload LOG`: key 7 shows the shapes of the
/// collection by total time, with their plans; Enter opens the finding the
/// worst shape led to on the Findings tab.
#[test]
fn workload_tab_shows_shapes_and_enter_opens_their_finding() {
    let home = tempfile::tempdir().expect("temp dir");
    let log = mongod_log::shop_log(home.path());
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} LANG=C.UTF-8 '{bin}' '{data}' --workload '{log}' --no-snapshot; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
        data = common::repo().join("sample-data").display(),
        log = log.display(),
    );
    let s = Session::start("docshape-workload", (120, 40), &cmd);
    wait_for(&s, "orders", 60);
    keys(&s, &["-l", "/shop.orders"]);
    keys(&s, &["Enter"]);
    wait_for(&s, "Fields (15)", 10);
    keys(&s, &["7"]);
    let t = wait_for(&s, "Query shapes (2)", 10);
    let scan = t.find("{\"coupon\":\"string\"}").unwrap_or(usize::MAX);
    let lookups = t
        .find("{\"customer_id\":\"objectId\"}")
        .unwrap_or(usize::MAX);
    assert!(scan < lookups && lookups < usize::MAX, "by total time: {t}");
    assert!(t.contains("COLLSCAN ×150"), "{t}");
    assert!(t.contains("{coupon: 1, placed_at: -1}"), "{t}");
    keys(&s, &["Enter"]);
    let f = wait_for(&s, "Evidence", 10);
    assert!(f.contains("index-esr"), "{f}");
    keys(&s, &["q"]);
    let end = wait_for(&s, "DOCSHAPE_EXIT=", 10);
    assert!(end.contains("DOCSHAPE_EXIT=0"), "{end}");
}

/// `docshape mongodb://127.0.0.1:PORT` with nothing listening there: the
/// refusal is on screen within 2 s of starting, not after the timeout, and
/// the explorer stays usable (`r` tries again, `q` quits cleanly).
#[test]
fn a_refused_connection_is_reported_within_two_seconds() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        l.local_addr().expect("address").port()
    };
    let home = tempfile::tempdir().expect("temp dir");
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} '{bin}' 'mongodb://127.0.0.1:{port}' --timeout 30 --no-snapshot; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
    );
    let started = Instant::now();
    let s = Session::start("docshape-refused", (100, 30), &cmd);
    let t = wait_for(&s, "refused", 10);
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "the refusal took {took:?} to show:\n{t}"
    );
    assert!(
        t.contains(&format!(
            "cannot reach the server at mongodb://127.0.0.1:{port}"
        )),
        "{t}"
    );
    assert!(!t.contains("Sampling"), "{t}");
    // Asked again, refused again, as fast.
    keys(&s, &["r"]);
    wait_for(&s, "refused", 5);
    keys(&s, &["q"]);
    let end = wait_for(&s, "DOCSHAPE_EXIT=", 10);
    assert!(end.contains("DOCSHAPE_EXIT=0"), "{end}");
}

/// A tmux server of the test's own (`-L`), so that what one test sets on
/// it (the clipboard) touches no other session.
struct Server {
    socket: String,
}

impl Server {
    /// `cmd` in a detached session of `size` on a new server, which lets
    /// programs set its clipboard with OSC 52.
    fn start(prefix: &str, size: (u16, u16), cmd: &str) -> Server {
        let s = Server {
            socket: format!("{prefix}-{}", std::process::id()),
        };
        let (w, h) = (size.0.to_string(), size.1.to_string());
        s.run(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "main",
            "-x",
            &w,
            "-y",
            &h,
            cmd,
        ]);
        s.run(&["set-option", "-s", "set-clipboard", "on"]);
        s
    }

    fn run(&self, args: &[&str]) -> String {
        let mut all = vec!["-L", self.socket.as_str()];
        all.extend_from_slice(args);
        tmux(&all)
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "main"])
    }

    fn wait_for(&self, what: &str, secs: u64) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let text = self.screen();
            if text.contains(what) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "`{what}` did not appear within {secs} s; the screen:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "main"];
        args.extend_from_slice(keys);
        self.run(&args);
        std::thread::sleep(Duration::from_millis(150));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

/// Someone new who came for the problems: the explorer opens on *All
/// findings*; Enter goes into the list, Enter opens the worst finding on
/// its collection, `m` shows its script, `y` copies it (into tmux's
/// clipboard, through OSC 52); back in the navigator a filter selects the
/// matching collection, whose documents `3` shows at once.
#[test]
fn a_newcomer_goes_from_all_findings_to_a_script_and_to_a_collection() {
    let home = tempfile::tempdir().expect("temp dir");
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} LANG=C.UTF-8 '{bin}' '{data}' --no-snapshot; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
        data = common::repo().join("sample-data").display(),
    );
    let s = Server::start("docshape-newcomer", (120, 40), &cmd);
    let first = s.wait_for("collections, up to", 60);
    // All findings selected: the list holds every finding, no collection
    // is named in the tab bar, no schema is shown.
    let total = first
        .split("All findings (")
        .nth(1)
        .and_then(|r| r.split(')').next())
        .and_then(|n| n.parse::<usize>().ok())
        .expect("All findings (N)");
    assert!(total > 10, "{first}");
    assert!(first.contains(&format!("┌ Findings ({total}) ")), "{first}");
    assert!(!first.contains("Fields ("), "{first}");
    // The worst finding, first in the list.
    let worst = first
        .lines()
        .find(|l| l.contains("││warning ") || l.contains("││critical "))
        .and_then(|l| l.split("││").nth(1))
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>())
        .expect("a finding row");
    let (rule, where_) = (worst[1], worst[2]);
    s.keys(&["Enter"]);
    s.keys(&["Enter"]);
    // On its collection's Findings tab, its detail focused.
    let opened = s.wait_for(&format!("{rule} · e evidence"), 10);
    let top = opened.lines().next().unwrap_or_default();
    // A namespace wider than its room is cut in its middle (`contac…bad_contacts`).
    let shown = top.rsplit(' ').next().unwrap_or("?");
    let (head, tail) = shown.split_once('…').unwrap_or((shown, ""));
    assert!(
        !head.is_empty() && where_.starts_with(head) && where_[head.len()..].contains(tail),
        "the tab bar names {where_}'s collection: {top}"
    );
    s.keys(&["m"]);
    let script = s.wait_for("Migration script (mongosh)", 10);
    let below: Vec<&str> = script
        .lines()
        .skip_while(|l| !l.contains(&format!("{rule} · e evidence")))
        .collect();
    assert!(
        below.get(1).is_some_and(|l| l.contains("Migration script")),
        "the script at the top of the detail:\n{script}"
    );
    s.keys(&["y"]);
    s.wait_for("copied the script of", 10);
    let copied = s.run(&["show-buffer"]);
    assert!(copied.contains("docshape migration"), "{copied}");
    // Back to the navigator (Tab from the detail); a filter selects the
    // first match (of blog.good_posts, denormalization.good_parts …).
    s.keys(&["Tab"]);
    s.keys(&["-l", "/good_p"]);
    s.keys(&["Enter"]);
    s.keys(&["3"]);
    let docs = s.wait_for("kept sample (", 10);
    let top = docs.lines().next().unwrap_or_default();
    assert!(top.trim_end().ends_with(" blog.good_posts"), "{docs}");
    s.keys(&["q"]);
    let end = s.wait_for("DOCSHAPE_EXIT=", 10);
    assert!(end.contains("DOCSHAPE_EXIT=0"), "{end}");
}
