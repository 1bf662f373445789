//! The Documents tab's query bar, key by key: `update` turns keys into
//! query effects, the real executor runs them as a scan of the bundled
//! sample data on its worker threads, and the replies come back as
//! messages — the matches, most of them outside the 20 documents sampled,
//! their count, pages, explain, history, cancelling, and the screen that
//! shows them in both languages.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use docshape::audit::{self, Plan};
use docshape::i18n::Lang;
use docshape::report::Report;
use docshape::source::{FileSource, SampleMode, Selection};
use docshape::target::Target;
use docshape::tui::effects::{Effect, Executor, QueryWork};
use docshape::tui::keymap::Keymap;
use docshape::tui::model::{Model, Tab};
use docshape::tui::querybar;
use docshape::tui::theme::Theme;
use docshape::tui::update::{set_report, update, Msg};
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
    assert_eq!(m.docs.len(), SAMPLE as usize);
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

struct Worker {
    exec: Executor,
    rx: Receiver<Msg>,
}

impl Worker {
    fn new() -> Worker {
        let (tx, rx) = channel();
        let plan = Plan::new(Selection::default(), SampleMode::Sample(SAMPLE));
        let exec = Executor::new(Target::Path(data()), plan, Duration::from_secs(10), tx);
        Worker { exec, rx }
    }

    /// Runs the effects and feeds every reply to `update`.
    fn run(&mut self, m: &mut Model, fx: Vec<Effect>) {
        let mut out = Vec::new();
        let mut waiting = 0;
        for e in fx {
            waiting += usize::from(matches!(e, Effect::Query { .. } | Effect::Export { .. }));
            self.exec.run(e, &mut out);
        }
        for _ in 0..waiting {
            let msg = self
                .rx
                .recv_timeout(Duration::from_secs(30))
                .expect("a reply from the worker");
            assert!(update(m, msg).is_empty());
        }
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
    (0..m.docs.len())
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
    assert!(m.query.bar.is_some());
    typed(&mut m, "{status: 'paid'}");
    let fx = key(&mut m, KeyCode::Enter);
    assert!(m.query.bar.is_none());
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

    let r = querybar::results(&m).expect("results");
    assert_eq!(r.count, Some(Ok(paid as u64)));
    assert_eq!(m.docs.len(), querybar::PAGE as usize);
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
    assert_eq!(m.docs.len(), paid - querybar::PAGE as usize);
    assert!(statuses(&m).iter().all(|s| s == "paid"));
    assert!(screen(&m).contains("page 2/2"));
    assert!(key(&mut m, KeyCode::Char('n')).is_empty());
    // Back, and down past the end of the first page loads the second.
    let fx = key(&mut m, KeyCode::Char('p'));
    w.run(&mut m, fx);
    assert_eq!(m.docs.len(), querybar::PAGE as usize);
    key(&mut m, KeyCode::End);
    let fx = key(&mut m, KeyCode::Down);
    assert_eq!(fx.len(), 1, "{fx:?}");
    w.run(&mut m, fx);
    assert_eq!(querybar::results(&m).map(|r| r.page), Some(1));

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
    let open = m.doc_lines.values().flatten();
    assert_eq!(
        open.filter(|l| l.trim() == "\"status\": \"paid\",").count(),
        1
    );

    // Esc: back to the sample.
    assert!(key(&mut m, KeyCode::Esc).is_empty());
    assert!(querybar::results(&m).is_none());
    assert_eq!(m.docs.len(), SAMPLE as usize);
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
    let docs: Vec<bson::Document> = (0..m.docs.len())
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
    let r = querybar::results(&m).expect("results");
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
    let bar = m.query.bar.as_ref().expect("still open");
    let e = bar.error.as_deref().expect("an error");
    assert!(e.contains("`paid`") && e.contains("column 10"), "{e}");
    assert!(
        screen(&m).contains("✗ the filter has `paid`"),
        "{}",
        screen(&m)
    );
    // Typing clears it; Esc closes the bar and runs nothing.
    key(&mut m, KeyCode::Backspace);
    assert!(m.query.bar.as_ref().is_some_and(|b| b.error.is_none()));
    assert!(key(&mut m, KeyCode::Esc).is_empty());
    assert!(m.query.bar.is_none());
    assert!(querybar::results(&m).is_none());
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
        assert!(querybar::results(&m).is_some_and(|r| r.docs.is_empty() && !r.loading));
        key(&mut m, KeyCode::Esc);
        assert_eq!(m.docs.len(), SAMPLE as usize);
    }
    key(&mut m, KeyCode::Char('/'));
    let text = |m: &Model| m.query.bar.as_ref().map(|b| b.text.filter.clone());
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
    assert_eq!(m.query.history.len(), 1);
    assert_eq!(m.query.history.keys().next().cloned(), ns);
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
    let [Effect::Export { path, contents, .. }] = &fx[..] else {
        panic!("{fx:?}");
    };
    assert_eq!(path, Path::new("shop.orders.query.json"));
    let docs: Vec<serde_json::Value> = serde_json::from_str(contents).expect("JSON");
    assert_eq!(docs.len(), 4);
    assert!(docs.iter().all(|d| d["status"] == "paid"));
    // `W`: the same page as CSV, a header and a row per document.
    let fx = key(&mut m, KeyCode::Char('W'));
    let [Effect::Export {
        path,
        contents: csv,
        ..
    }] = &fx[..]
    else {
        panic!("{fx:?}");
    };
    assert_eq!(path, Path::new("shop.orders.query.csv"));
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 5, "{csv}");
    assert!(rows[0].starts_with("_id,"), "{csv}");
    assert!(rows[0].contains(",status,"), "{csv}");
    // Nested values are quoted Extended JSON, so the status stands alone.
    assert!(rows[1..].iter().all(|r| r.contains("]\",paid,")), "{csv}");
    // Written beside nothing else: a new file, never over an old one.
    let target = dir.path().join("shop.orders.query.json");
    std::fs::write(&target, "old").expect("write");
    let fx = vec![Effect::Export {
        path: target.clone(),
        contents: contents.clone(),
        what: "x".into(),
    }];
    w.run(&mut m, fx);
    assert_eq!(
        std::fs::read_to_string(&target).ok().as_deref(),
        Some("old")
    );
    let second = dir.path().join("shop.orders.query-2.json");
    assert_eq!(
        std::fs::read_to_string(second).ok().as_deref(),
        Some(contents.as_str())
    );
}
