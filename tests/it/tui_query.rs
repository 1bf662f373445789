//! The Documents tab's query bar, key by key: `update` turns keys into
//! query effects, the real executor runs them as a scan of the bundled
//! sample data on its worker threads, and the replies come back as
//! messages — the matches, most of them outside the 20 documents sampled,
//! their count, pages, explain, history, cancelling, and the screen that
//! shows them in both languages.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use docshape::audit::{self, Plan};
use docshape::i18n::Lang;
use docshape::report::Report;
use docshape::source::{FileSource, SampleMode, Selection};
use docshape::target::Target;
use docshape::tui::effects::{Effect, QueryWork};
use docshape::tui::executor::{channel, Executor};
use docshape::tui::export::Format;
use docshape::tui::keymap::Keymap;
use docshape::tui::model::{self, Model, Tab};
use docshape::tui::msg::Msg;
use docshape::tui::querybar;
use docshape::tui::theme::Theme;
use docshape::tui::update::{set_report, update};
use docshape::tui::views;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

const SAMPLE: u64 = 20;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")
}

fn sample_report() -> Report {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut src = FileSource::open(&data()).expect("sample data");
        let plan = Plan::new(
            Selection {
                dbs: vec!["shop".into()],
                collections: vec!["shop.orders".into()],
            },
            SampleMode::Sample(SAMPLE),
        );
        audit::run(&mut src, &plan, &mut |_| {})
            .await
            .expect("audit")
    })
}

/// The orders of the sample data, their Documents tab in front.
fn model() -> Model {
    let mut m = Model::new("sample-data".into(), SAMPLE, Keymap::default());
    m.size = (120, 40);
    set_report(&mut m, sample_report());
    while m.collection().is_none() {
        key(&mut m, KeyCode::Down);
    }
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.orders")
    );
    key(&mut m, KeyCode::Char('3'));
    assert_eq!(m.tab, Tab::Documents);
    assert_eq!(m.docs.list.len(), SAMPLE as usize);
    m
}

fn key(m: &mut Model, c: KeyCode) -> Vec<Effect> {
    update(m, Msg::Key(KeyEvent::new(c, KeyModifiers::NONE)))
}

fn typed(m: &mut Model, s: &str) {
    for c in s.chars() {
        assert!(key(m, KeyCode::Char(c)).is_empty());
    }
}

/// The orders whose status is `status`, read here without docshape.
fn orders_with_status(status: &str) -> usize {
    std::fs::read_to_string(data().join("shop/orders.json"))
        .expect("orders")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|d| d["status"] == status)
        .count()
}

/// The explorer's executor on the explorer's runtime, as `docshape` runs
/// them.
struct Worker {
    rt: tokio::runtime::Runtime,
    exec: Executor,
    rx: tokio::sync::mpsc::UnboundedReceiver<Msg>,
    /// The database the queries go to, when not the one the model names.
    db: Option<String>,
}

impl Worker {
    fn new() -> Worker {
        Worker::on(Target::Path(data()), 10)
    }

    fn on(target: Target, timeout: u64) -> Worker {
        let rt = docshape::tui::runtime().expect("runtime");
        let (tx, rx) = channel();
        let plan = Plan::new(Selection::default(), SampleMode::Sample(SAMPLE));
        let mut exec = Executor::new(
            rt.handle().clone(),
            target,
            plan,
            Duration::from_secs(timeout),
            tx,
        );
        // The user's own history is not the tests' to write.
        exec.state_dir = None;
        Worker {
            rt,
            exec,
            rx,
            db: None,
        }
    }

    /// The next message, within `secs` seconds.
    fn next(&mut self, secs: u64) -> Msg {
        self.rt
            .block_on(async {
                tokio::time::timeout(Duration::from_secs(secs), self.rx.recv()).await
            })
            .ok()
            .flatten()
            .expect("a reply from the worker")
    }

    /// Runs the effects and feeds every message to `update` until each
    /// query has its reply and each export its end; an export's file goes
    /// to `into` (its name kept).
    fn run_into(&mut self, m: &mut Model, fx: Vec<Effect>, into: Option<&Path>) {
        let mut out = Vec::new();
        let mut waiting = std::collections::HashSet::new();
        for mut e in fx {
            match &mut e {
                Effect::Query { req, db, .. } => {
                    waiting.insert(*req);
                    if let Some(to) = &self.db {
                        db.clone_from(to);
                    }
                }
                Effect::Export { req, path, .. } => {
                    waiting.insert(*req);
                    if let (Some(dir), Some(name)) = (into, path.file_name()) {
                        *path = dir.join(name);
                    }
                }
                _ => {}
            }
            self.exec.run(e, &mut out);
        }
        while !waiting.is_empty() {
            let msg = self.next(30);
            match &msg {
                Msg::Query { req, .. } | Msg::Exported { req, .. } => {
                    waiting.remove(req);
                }
                _ => {}
            }
            assert!(update(m, msg).is_empty());
        }
    }

    fn run(&mut self, m: &mut Model, fx: Vec<Effect>) {
        self.run_into(m, fx, None);
    }
}

fn screen(m: &Model) -> String {
    let (w, h) = m.size;
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| views::render(m, &Theme::default(), f))
        .expect("draw");
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        for x in 0..w {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

fn statuses(m: &Model) -> Vec<String> {
    (0..m.docs.list.len())
        .filter_map(|d| m.doc_bytes(d))
        .map(|b| {
            bson::Document::from_reader(b)
                .ok()
                .and_then(|d| d.get_str("status").ok().map(str::to_owned))
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn a_filter_finds_every_match_not_only_the_sample_and_pages_through_them() {
    let mut m = model();
    let mut w = Worker::new();
    let paid = orders_with_status("paid");
    assert!(paid > querybar::PAGE as usize, "{paid}");

    assert!(key(&mut m, KeyCode::Char('/')).is_empty());
    assert!(m.docs.query.bar.is_some());
    typed(&mut m, "{status: 'paid'}");
    let fx = key(&mut m, KeyCode::Enter);
    assert!(m.docs.query.bar.is_none());
    let works: Vec<QueryWork> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Query { work, db, coll, .. } => {
                assert_eq!((db.as_str(), coll.as_str()), ("shop", "orders"));
                Some(*work)
            }
            _ => None,
        })
        .collect();
    assert_eq!(works, [QueryWork::Page, QueryWork::Count]);
    // Nothing is waited for: the UI shows the query running.
    assert!(screen(&m).contains("reading…"), "{}", screen(&m));
    w.run(&mut m, fx);

    let r = model::results(&m).expect("results");
    assert_eq!(r.count, Some(Ok(paid as u64)));
    assert_eq!(m.docs.list.len(), querybar::PAGE as usize);
    assert!(statuses(&m).iter().all(|s| s == "paid"));
    let s = screen(&m);
    assert!(s.contains(&format!("{paid} match")), "{s}");
    assert!(s.contains("{status: 'paid'}"), "{s}");
    assert!(s.contains("page 1/2"), "{s}");

    // The next page holds the rest; past the last there is none.
    let fx = key(&mut m, KeyCode::Char('n'));
    assert!(
        matches!(&fx[..], [Effect::Query { query, work: QueryWork::Page, .. }] if query.skip == querybar::PAGE)
    );
    w.run(&mut m, fx);
    assert_eq!(m.docs.list.len(), paid - querybar::PAGE as usize);
    assert!(statuses(&m).iter().all(|s| s == "paid"));
    assert!(screen(&m).contains("page 2/2"));
    assert!(key(&mut m, KeyCode::Char('n')).is_empty());
    // Back, and down past the end of the first page loads the second.
    let fx = key(&mut m, KeyCode::Char('p'));
    w.run(&mut m, fx);
    assert_eq!(m.docs.list.len(), querybar::PAGE as usize);
    key(&mut m, KeyCode::End);
    let fx = key(&mut m, KeyCode::Down);
    assert_eq!(fx.len(), 1, "{fx:?}");
    w.run(&mut m, fx);
    assert_eq!(model::results(&m).map(|r| r.page), Some(1));

    // Explain: a file scan that read every order.
    let fx = key(&mut m, KeyCode::Char('x'));
    w.run(&mut m, fx);
    let s = screen(&m);
    assert!(s.contains("plan file scan"), "{s}");
    assert!(s.contains("documents examined 300"), "{s}");

    // A document of the results opens.
    key(&mut m, KeyCode::Home);
    key(&mut m, KeyCode::Enter);
    assert!(screen(&m).contains("▾ #51"), "{}", screen(&m));
    let open = m.docs.lines.values().flatten();
    assert_eq!(
        open.filter(|l| l.text.trim() == "\"status\": \"paid\",")
            .count(),
        1
    );

    // Esc: back to the sample.
    assert!(key(&mut m, KeyCode::Esc).is_empty());
    assert!(model::results(&m).is_none());
    assert_eq!(m.docs.list.len(), SAMPLE as usize);
}

#[test]
fn sort_projection_skip_and_limit_come_from_the_bar() {
    let mut m = model();
    let mut w = Worker::new();
    key(&mut m, KeyCode::Char('/'));
    typed(&mut m, "status: \"paid\"");
    key(&mut m, KeyCode::Tab);
    typed(&mut m, "{_id: -1}");
    key(&mut m, KeyCode::Tab);
    typed(&mut m, "{status: 1}");
    key(&mut m, KeyCode::Tab);
    typed(&mut m, "2");
    key(&mut m, KeyCode::Tab);
    typed(&mut m, "3");
    let fx = key(&mut m, KeyCode::Enter);
    w.run(&mut m, fx);
    let docs: Vec<bson::Document> = (0..m.docs.list.len())
        .filter_map(|d| m.doc_bytes(d))
        .filter_map(|b| bson::Document::from_reader(b).ok())
        .collect();
    assert_eq!(docs.len(), 3);
    for d in &docs {
        let keys: Vec<&str> = d.keys().map(String::as_str).collect();
        assert_eq!(keys, ["_id", "status"]);
    }
    let ids: Vec<_> = docs
        .iter()
        .filter_map(|d| d.get_object_id("_id").ok())
        .collect();
    assert!(ids.windows(2).all(|p| p[0] > p[1]), "{ids:?}");
    let r = model::results(&m).expect("results");
    // The count is the filter's; the pages are what skip and limit leave.
    assert_eq!(r.count, Some(Ok(orders_with_status("paid") as u64)));
    assert_eq!(r.total(), Some(3));
    assert!(screen(&m).contains("page 1/1"));
}

#[test]
fn a_bad_filter_keeps_the_bar_open_with_one_sentence() {
    let mut m = model();
    key(&mut m, KeyCode::Char('/'));
    typed(&mut m, "{status: paid}");
    assert!(key(&mut m, KeyCode::Enter).is_empty());
    let bar = m.docs.query.bar.as_ref().expect("still open");
    let e = bar.error.as_deref().expect("an error");
    assert!(e.contains("`paid`") && e.contains("column 10"), "{e}");
    assert!(
        screen(&m).contains("✗ the filter has `paid`"),
        "{}",
        screen(&m)
    );
    // Typing clears it; Esc closes the bar and runs nothing.
    key(&mut m, KeyCode::Backspace);
    assert!(m.docs.query.bar.as_ref().is_some_and(|b| b.error.is_none()));
    assert!(key(&mut m, KeyCode::Esc).is_empty());
    assert!(m.docs.query.bar.is_none());
    assert!(model::results(&m).is_none());
}

#[test]
fn history_per_collection_and_esc_cancels_a_running_query() {
    let mut m = model();
    for f in ["{status: 'paid'}", "{status: 'shipped'}"] {
        key(&mut m, KeyCode::Char('/'));
        key(&mut m, KeyCode::Char('u'));
        // Ctrl-U clears what the bar holds.
        update(
            &mut m,
            Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
        );
        typed(&mut m, f);
        let fx = key(&mut m, KeyCode::Enter);
        let reqs: Vec<u64> = fx
            .iter()
            .filter_map(|e| match e {
                Effect::Query { req, .. } => Some(*req),
                _ => None,
            })
            .collect();
        assert_eq!(reqs.len(), 2);
        // Esc while it runs cancels both requests; their late replies
        // change nothing.
        let fx = key(&mut m, KeyCode::Esc);
        for r in &reqs {
            assert!(fx.contains(&Effect::Cancel { req: *r }), "{fx:?}");
        }
        update(
            &mut m,
            Msg::Query {
                req: reqs[0],
                reply: querybar::Reply::Page(Ok(Vec::new())),
            },
        );
        assert!(model::results(&m).is_some_and(|r| r.docs.is_empty() && !r.loading));
        key(&mut m, KeyCode::Esc);
        assert_eq!(m.docs.list.len(), SAMPLE as usize);
    }
    key(&mut m, KeyCode::Char('/'));
    let text = |m: &Model| m.docs.query.bar.as_ref().map(|b| b.text.filter.clone());
    assert_eq!(text(&m).as_deref(), Some(""));
    key(&mut m, KeyCode::Up);
    assert_eq!(text(&m).as_deref(), Some("{status: 'shipped'}"));
    key(&mut m, KeyCode::Up);
    assert_eq!(text(&m).as_deref(), Some("{status: 'paid'}"));
    key(&mut m, KeyCode::Down);
    key(&mut m, KeyCode::Down);
    assert_eq!(text(&m).as_deref(), Some(""));
    key(&mut m, KeyCode::Esc);
    // Another collection has a history of its own.
    let ns = m.collection().map(|c| c.namespace.clone());
    assert_eq!(m.docs.query.history.len(), 1);
    assert_eq!(m.docs.query.history.keys().next().cloned(), ns);
}

#[test]
fn results_export_and_chinese() {
    let mut m = model();
    m.lang = Lang::Zh;
    let mut w = Worker::new();
    let dir = tempfile::tempdir().expect("temp dir");
    key(&mut m, KeyCode::Char('/'));
    typed(&mut m, "{status: 'paid'}");
    key(&mut m, KeyCode::Tab);
    key(&mut m, KeyCode::Tab);
    key(&mut m, KeyCode::Tab);
    key(&mut m, KeyCode::Tab);
    typed(&mut m, "4");
    // Wide characters take two cells; the second is blank.
    let s = screen(&m).replace(' ', "");
    assert!(s.contains("限制•") && s.contains("Enter运行"), "{s}");
    let fx = key(&mut m, KeyCode::Enter);
    w.run(&mut m, fx);
    let s = screen(&m).replace(' ', "");
    assert!(
        s.contains(&format!("匹配{}个", orders_with_status("paid"))),
        "{s}"
    );
    let fx = key(&mut m, KeyCode::Char('x'));
    w.run(&mut m, fx);
    let s = screen(&m).replace(' ', "");
    assert!(
        s.contains("计划文件扫描") && s.contains("检查文档300"),
        "{s}"
    );
    let fx = key(&mut m, KeyCode::Char('w'));
    let [Effect::Export {
        path,
        format: Format::Json,
        query,
        ..
    }] = &fx[..]
    else {
        panic!("{fx:?}");
    };
    assert_eq!(path, Path::new("shop.orders.query.json"));
    assert_eq!(query.limit, Some(4));
    w.run_into(&mut m, fx, Some(dir.path()));
    let target = dir.path().join("shop.orders.query.json");
    let contents = std::fs::read_to_string(&target).expect("the export");
    let docs: Vec<serde_json::Value> = serde_json::from_str(&contents).expect("JSON");
    assert_eq!(docs.len(), 4);
    assert!(docs.iter().all(|d| d["status"] == "paid"));
    let said = m
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(said.contains("4 个文档"), "{said}");
    // `W`: as CSV, a header and a row per document.
    let fx = key(&mut m, KeyCode::Char('W'));
    assert!(matches!(
        &fx[..],
        [Effect::Export {
            format: Format::Csv,
            ..
        }]
    ));
    w.run_into(&mut m, fx, Some(dir.path()));
    let csv = std::fs::read_to_string(dir.path().join("shop.orders.query.csv")).expect("CSV");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 5, "{csv}");
    assert!(rows[0].starts_with("_id,"), "{csv}");
    assert!(rows[0].contains(",status,"), "{csv}");
    // Nested values are quoted Extended JSON, so the status stands alone.
    assert!(rows[1..].iter().all(|r| r.contains("]\",paid,")), "{csv}");
    // Written beside nothing else: a new file, never over an old one.
    std::fs::write(&target, "old").expect("write");
    let fx = key(&mut m, KeyCode::Char('w'));
    w.run_into(&mut m, fx, Some(dir.path()));
    assert_eq!(
        std::fs::read_to_string(&target).ok().as_deref(),
        Some("old")
    );
    let second = dir.path().join("shop.orders.query-2.json");
    assert_eq!(
        std::fs::read_to_string(second).ok().as_deref(),
        Some(contents.as_str())
    );
    let said = m
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(said.contains("已存在"), "{said}");
}

/// `w` writes every document the query matches, not the page on screen:
/// the paid orders, more than a page of them, all in the file.
#[test]
fn export_writes_every_match_not_only_the_page() {
    let mut m = model();
    let mut w = Worker::new();
    let dir = tempfile::tempdir().expect("temp dir");
    key(&mut m, KeyCode::Char('/'));
    typed(&mut m, "{status: 'paid'}");
    let fx = key(&mut m, KeyCode::Enter);
    w.run(&mut m, fx);
    let paid = orders_with_status("paid");
    assert!(paid > querybar::PAGE as usize);
    assert_eq!(m.docs.list.len(), querybar::PAGE as usize);
    let fx = key(&mut m, KeyCode::Char('w'));
    w.run_into(&mut m, fx, Some(dir.path()));
    let text = std::fs::read_to_string(dir.path().join("shop.orders.query.json")).expect("JSON");
    let docs: Vec<serde_json::Value> = serde_json::from_str(&text).expect("JSON");
    assert_eq!(docs.len(), paid);
    assert!(docs.iter().all(|d| d["status"] == "paid"));
    let said = m
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(said.contains(&format!("wrote {paid} documents")), "{said}");
    let fx = key(&mut m, KeyCode::Char('W'));
    w.run_into(&mut m, fx, Some(dir.path()));
    let csv = std::fs::read_to_string(dir.path().join("shop.orders.query.csv")).expect("CSV");
    assert_eq!(csv.lines().count(), paid + 1);
}

/// An export stopped (a cancel, the timeout) leaves no file behind and
/// says why.
#[test]
fn a_stopped_export_removes_its_file() {
    let big = big_bson(100_000);
    let out = tempfile::tempdir().expect("temp dir");
    for (timeout, cancel, why) in [
        (Duration::from_secs(600), true, "cancelled"),
        (Duration::from_millis(1), false, "timed out"),
    ] {
        let rt = docshape::tui::runtime().expect("runtime");
        let (tx, mut rx) = channel();
        let plan = Plan::new(Selection::default(), SampleMode::Sample(SAMPLE));
        let mut exec = Executor::new(
            rt.handle().clone(),
            Target::Path(big.path().to_owned()),
            plan,
            timeout,
            tx,
        );
        let path = out.path().join("big.c.query.json");
        exec.run(
            Effect::Export {
                req: 1,
                db: "big".into(),
                coll: "c".into(),
                query: Box::default(),
                format: Format::Json,
                path: path.clone(),
            },
            &mut Vec::new(),
        );
        if cancel {
            exec.run(Effect::Cancel { req: 1 }, &mut Vec::new());
        }
        let end = loop {
            let msg = rt
                .block_on(async { tokio::time::timeout(Duration::from_secs(60), rx.recv()).await });
            match msg {
                Ok(Some(Msg::Exported { req: 1, result })) => break result,
                Ok(Some(Msg::Exporting { .. })) => {}
                other => panic!("{other:?}"),
            }
        };
        let e = end.expect_err("stopped");
        assert!(
            e.to_string().contains(why) && e.to_string().contains("was removed"),
            "{e}"
        );
        assert_eq!(std::fs::read_dir(out.path()).expect("dir").count(), 0);
    }
}

/// A directory holding `big.c`, `n` small documents as a `.bson` file.
fn big_bson(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::create_dir(dir.path().join("big")).expect("db directory");
    let mut bytes = Vec::new();
    for i in 0..n {
        bson::doc! {"_id": i as i64, "k": (i % 7) as i32, "s": "abcdefgh"}
            .to_writer(&mut bytes)
            .expect("BSON");
    }
    std::fs::write(dir.path().join("big/c.bson"), bytes).expect("write");
    dir
}

/// A file scan stops at its next read once it is cancelled, not at the
/// end of the file: cancelled at the 1,000th match of 100,000, it has seen
/// no more than a read buffer beyond it.
#[test]
fn a_file_scan_stops_mid_file_when_cancelled() {
    use docshape::source::{CollectionMeta, Stop};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let dir = big_bson(100_000);
    let src = FileSource::open(dir.path()).expect("files");
    let meta = CollectionMeta::new("big", "c");
    let flag = Arc::new(AtomicBool::new(false));
    let stop = Stop::after(Duration::from_secs(600), Arc::clone(&flag));
    let mut seen = 0u64;
    let r = src.scan_within(&meta, &bson::doc! {}, &stop, &mut |_| {
        seen += 1;
        if seen == 1_000 {
            flag.store(true, Ordering::Relaxed);
        }
        true
    });
    let e = r.expect_err("stopped");
    assert!(e.to_string().contains("cancelled"), "{e}");
    // One 64 KiB buffer holds about 1,600 of these documents.
    assert!(
        (1_000..5_000).contains(&seen),
        "{seen} documents after the cancel"
    );
    // Not stopped: every document.
    let n = src
        .count_within(&meta, &bson::doc! {"k": 3}, &Stop::never())
        .expect("count");
    assert_eq!(n, (0..100_000).filter(|i| i % 7 == 3).count() as u64);
}

/// A query on files is bounded by the explorer's timeout, as one on a
/// server is: the count gives up with a timeout instead of reading on.
#[test]
fn a_file_query_gives_up_at_the_timeout() {
    let dir = big_bson(100_000);
    let rt = docshape::tui::runtime().expect("runtime");
    let (tx, mut rx) = channel();
    let plan = Plan::new(Selection::default(), SampleMode::Sample(SAMPLE));
    let mut exec = Executor::new(
        rt.handle().clone(),
        Target::Path(dir.path().to_owned()),
        plan,
        Duration::from_millis(1),
        tx,
    );
    let query = docshape::source::Query::default();
    exec.run(
        Effect::Query {
            req: 1,
            db: "big".into(),
            coll: "c".into(),
            query: Box::new(query),
            work: QueryWork::Count,
        },
        &mut Vec::new(),
    );
    let msg = rt.block_on(async { tokio::time::timeout(Duration::from_secs(30), rx.recv()).await });
    match msg {
        Ok(Some(Msg::Query {
            req: 1,
            reply: querybar::Reply::Count(Err(e)),
        })) => assert!(
            e.to_string().contains("timed out") && e.to_string().contains("big.c"),
            "{e}"
        ),
        other => panic!("{other:?}"),
    }
}

/// On a server the export streams the cursor of the whole query — its
/// filter, sort, projection, skip and limit — into the file.
#[test]
fn export_from_the_server_streams_the_whole_query() {
    let rt = docshape::tui::runtime().expect("runtime");
    let db = common::unique_db("tuiexport");
    rt.block_on(async {
        let client = common::client().await;
        client
            .database(&db)
            .collection::<bson::Document>("c")
            .insert_many((0..300).map(|i| bson::doc! {"_id": i, "even": i % 2 == 0, "x": "y"}))
            .await
            .expect("insert");
    });
    let (tx, mut rx) = channel();
    let plan = Plan::new(Selection::default(), SampleMode::Sample(SAMPLE));
    let mut exec = Executor::new(
        rt.handle().clone(),
        Target::Mongo(common::uri()),
        plan,
        Duration::from_secs(30),
        tx,
    );
    let out = tempfile::tempdir().expect("temp dir");
    let query = docshape::source::QueryText {
        filter: "{even: true}".into(),
        sort: "{_id: -1}".into(),
        projection: "{x: 0}".into(),
        skip: "5".into(),
        limit: "120".into(),
    }
    .parse()
    .expect("query");
    exec.run(
        Effect::Export {
            req: 3,
            db: db.clone(),
            coll: "c".into(),
            query: Box::new(query),
            format: Format::Csv,
            path: out.path().join("e.csv"),
        },
        &mut Vec::new(),
    );
    let end = loop {
        match rt.block_on(async { tokio::time::timeout(Duration::from_secs(60), rx.recv()).await })
        {
            Ok(Some(Msg::Exported { req: 3, result })) => break result,
            Ok(Some(Msg::Exporting { .. })) => {}
            other => panic!("{other:?}"),
        }
    };
    let (path, n) = end.expect("exported");
    assert_eq!(n, 120);
    let csv = std::fs::read_to_string(path).expect("CSV");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows[0], "_id,even");
    // Even ids from the top, the first five skipped: 288, 286, …
    let ids: Vec<i64> = (0..120).map(|i| 288 - 2 * i).collect();
    let got: Vec<i64> = rows[1..]
        .iter()
        .map(|r| {
            r.split(',')
                .next()
                .and_then(|v| v.parse().ok())
                .expect("id")
        })
        .collect();
    assert_eq!(got, ids);
}

/// The history of a collection's queries outlives the session: kept in
/// the state directory, private to its owner, under the target as shown
/// (password masked), and offered by ↑ in the next session's bar.
#[test]
fn history_is_kept_across_sessions_and_never_holds_a_password() {
    let state = tempfile::tempdir().expect("state directory");
    let file = docshape::tui::history::path_in(state.path());
    let wait_for_file = |what: &str| {
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                if text.contains(what) {
                    return text;
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "no `{what}` in {file:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let mut m = model();
    let mut w = Worker::new();
    w.exec.state_dir = Some(state.path().to_owned());
    key(&mut m, KeyCode::Char('/'));
    typed(&mut m, "{status: 'shipped'}");
    let fx = key(&mut m, KeyCode::Enter);
    assert!(fx
        .iter()
        .any(|e| matches!(e, Effect::SaveHistory { namespace, .. } if namespace == "shop.orders")));
    w.run(&mut m, fx);
    wait_for_file("shipped");
    // A new session on the same target: ↑ in the bar brings it back.
    let mut again = model();
    again.docs.query.history = docshape::tui::history::load(state.path(), &again.target);
    key(&mut again, KeyCode::Char('/'));
    key(&mut again, KeyCode::Up);
    let text = again.docs.query.bar.as_ref().map(|b| b.text.filter.clone());
    assert_eq!(text.as_deref(), Some("{status: 'shipped'}"));
    // Another target does not see it.
    assert!(docshape::tui::history::load(state.path(), "elsewhere").is_empty());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("history")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // A server target with a password: the explorer shows it masked, and
    // the history names it so.
    let uri = "mongodb://app:s3cr%40t@127.0.0.1:1/db";
    let mut m = model();
    m.target = Target::Mongo(uri.into()).label();
    key(&mut m, KeyCode::Char('/'));
    typed(&mut m, "{pw: 1}");
    let fx = key(&mut m, KeyCode::Enter);
    let save: Vec<Effect> = fx
        .into_iter()
        .filter(|e| matches!(e, Effect::SaveHistory { .. }))
        .collect();
    w.run(&mut m, save);
    let text = wait_for_file("{pw: 1}");
    assert!(text.contains("app:****@127.0.0.1:1"), "{text}");
    assert!(!text.contains("s3cr"), "{text}");
}

/// On a server: a sorted, projected query, a search in its page (`n`
/// round the matches, searched again on the next page), then a new filter
/// that runs without the sort and projection and says so.
#[test]
fn on_a_server_search_the_results_and_a_new_filter_drops_sort_and_projection() {
    let db = common::unique_db("tuibrowse");
    let mut w = Worker::on(Target::Mongo(common::uri()), 30);
    w.db = Some(db.clone());
    w.rt.block_on(async {
        let client = common::client().await;
        common::load_ejson(&client, &db, "orders", &data().join("shop/orders.json")).await;
    });
    let mut m = model();
    key(&mut m, KeyCode::Char('/'));
    typed(&mut m, "{status: 'paid'}");
    key(&mut m, KeyCode::Tab);
    typed(&mut m, "{_id: -1}");
    key(&mut m, KeyCode::Tab);
    typed(&mut m, "{status: 1, total: 1}");
    let fx = key(&mut m, KeyCode::Enter);
    w.run(&mut m, fx);
    let docs = |m: &Model| -> Vec<bson::Document> {
        (0..m.docs.list.len())
            .filter_map(|d| m.doc_bytes(d))
            .filter_map(|b| bson::Document::from_reader(b).ok())
            .collect()
    };
    let page = docs(&m);
    assert_eq!(page.len(), querybar::PAGE as usize);
    assert!(page
        .iter()
        .all(|d| d.keys().collect::<Vec<_>>() == ["_id", "status", "total"]));
    let ids: Vec<_> = page
        .iter()
        .filter_map(|d| d.get_object_id("_id").ok())
        .collect();
    assert!(ids.windows(2).all(|p| p[0] > p[1]), "{ids:?}");
    assert_eq!(
        model::results(&m).and_then(|r| r.count.clone()),
        Some(Ok(orders_with_status("paid") as u64))
    );

    // Ctrl-F: the seventh document's _id, in capitals, found in it alone.
    let hex = ids[7].to_hex().to_uppercase();
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL)),
    );
    typed(&mut m, &hex);
    key(&mut m, KeyCode::Enter);
    assert_eq!(
        m.docs.search.as_ref().map(|s| s.hits.clone()),
        Some(vec![7])
    );
    assert_eq!(m.docs.sel, 7);
    let said = |m: &Model| {
        m.status
            .as_ref()
            .map(|s| s.text.clone())
            .unwrap_or_default()
    };
    assert!(
        said(&m).contains("match 1 of 1 in the 50 documents listed"),
        "{}",
        said(&m)
    );
    assert!(screen(&m).contains("1 of 1"), "{}", screen(&m));
    // `n` is the next match while the search has one: no page is read.
    assert!(key(&mut m, KeyCode::Char('n')).is_empty());
    assert!(said(&m).contains("(wrapped)"), "{}", said(&m));
    // Down past the page's end reads the next page, searched in its turn.
    key(&mut m, KeyCode::End);
    let fx = key(&mut m, KeyCode::Down);
    w.run(&mut m, fx);
    assert_eq!(model::results(&m).map(|r| r.page), Some(1));
    assert!(m.docs.search.as_ref().is_some_and(|s| s.hits.is_empty()));
    assert!(said(&m).contains("in none of the"), "{}", said(&m));
    key(&mut m, KeyCode::Esc);
    assert!(m.docs.search.is_none());

    // A new filter: the bar holds the filter only, the query runs with
    // neither sort nor projection, and the status says so.
    key(&mut m, KeyCode::Char('/'));
    let bar = m.docs.query.bar.as_ref().expect("bar");
    assert_eq!(bar.text.filter, "{status: 'paid'}");
    assert!(bar.text.sort.is_empty() && bar.text.projection.is_empty());
    update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL)),
    );
    typed(&mut m, "{status: 'shipped'}");
    let fx = key(&mut m, KeyCode::Enter);
    let s = said(&m);
    assert!(
        s.contains(
            "as a new find: the previous sort {_id: -1}, projection {status: 1, total: 1} not kept"
        ),
        "{s}"
    );
    w.run(&mut m, fx);
    let page = docs(&m);
    let shipped = orders_with_status("shipped");
    assert_eq!(page.len(), shipped.min(querybar::PAGE as usize));
    assert!(page
        .iter()
        .all(|d| d.get_str("status").ok() == Some("shipped")));
    assert!(
        page.iter().all(|d| d.contains_key("customer")),
        "projection kept"
    );
    let ids: Vec<_> = page
        .iter()
        .filter_map(|d| d.get_object_id("_id").ok())
        .collect();
    assert!(!ids.windows(2).all(|p| p[0] > p[1]), "sort kept: {ids:?}");
    assert!(screen(&m).contains("{status: 'shipped'}"), "{}", screen(&m));
}
