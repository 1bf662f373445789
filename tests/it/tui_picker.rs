//! The connection picker (`C`): opening it, moving, choosing, Esc, the
//! masked password prompt (update level); the overlay at 80×24 in English
//! and Chinese (`TestBackend`); a switch that really reads the new target
//! (the executor on two directories of files); and, in a real terminal, a
//! refused start-up target left for a saved connection to the test server.

use crate::common;

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use docshape::audit::Plan;
use docshape::config::connections::{Connection, ConnectionsSection};
use docshape::source::{SampleMode, Selection};
use docshape::target::Target;
use docshape::tui::effects::Effect;
use docshape::tui::executor::{channel, Executor};
use docshape::tui::keymap::Keymap;
use docshape::tui::model::{Level, Model, NavRow};
use docshape::tui::msg::{Failure, Msg};
use docshape::tui::picker::{Picker, Row};
use docshape::tui::update::{start_sampling, update};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn saved() -> ConnectionsSection {
    let mut s = ConnectionsSection::new();
    for (name, uri, env) in [
        ("ask", "mongodb+srv://ana@c.example.net/", None),
        ("local", "mongodb://127.0.0.1:27017", None),
        // A password in the file: shown masked, refused when chosen.
        ("leaky", "mongodb://app:hunter2@db.example:27017/", None),
        (
            "prod",
            "mongodb://reader@db1.example.com:27017/",
            Some("DOCSHAPE_PICKER_TEST_UNSET"),
        ),
    ] {
        s.insert(
            name.into(),
            Connection {
                uri: uri.into(),
                password_env: env.map(Into::into),
            },
        );
    }
    s
}

fn model() -> Model {
    let mut m = Model::new("mongodb://127.0.0.1:9".into(), 100, Keymap::default());
    m.picker = Picker::new(
        saved(),
        "docshape.toml".into(),
        vec![
            "mongodb://bob@h2:27017/".into(),
            "/data/dump".into(),
            // A saved connection's URI is listed once, as saved.
            "mongodb://127.0.0.1:27017".into(),
        ],
    );
    m
}

fn key(m: &mut Model, c: KeyCode) -> Vec<Effect> {
    update(m, Msg::Key(KeyEvent::new(c, KeyModifiers::NONE)))
}

fn typed(m: &mut Model, text: &str) {
    for c in text.chars() {
        key(m, KeyCode::Char(c));
    }
}

fn switched_to(fx: &[Effect]) -> Option<&Target> {
    fx.iter().find_map(|e| match e {
        Effect::Switch { target } => Some(target),
        _ => None,
    })
}

#[test]
fn tui_picker_opens_moves_and_closes() {
    let mut m = model();
    assert!(m.picker.open.is_none());
    key(&mut m, KeyCode::Char('C'));
    let rows = m.picker.rows();
    assert_eq!(
        rows,
        [
            Row::Saved("ask", &saved()["ask"]),
            Row::Saved("leaky", &saved()["leaky"]),
            Row::Saved("local", &saved()["local"]),
            Row::Saved("prod", &saved()["prod"]),
            Row::Recent("mongodb://bob@h2:27017/"),
            Row::Recent("/data/dump"),
            Row::Field,
        ]
    );
    assert_eq!(m.picker.open.as_ref().map(|o| o.sel), Some(0));
    key(&mut m, KeyCode::Down);
    key(&mut m, KeyCode::Down);
    assert_eq!(
        m.picker.selected(),
        Some(Row::Saved("local", &saved()["local"]))
    );
    key(&mut m, KeyCode::End);
    assert_eq!(m.picker.selected(), Some(Row::Field));
    key(&mut m, KeyCode::Down);
    assert_eq!(m.picker.selected(), Some(Row::Field));
    key(&mut m, KeyCode::Home);
    key(&mut m, KeyCode::Up);
    assert_eq!(m.picker.open.as_ref().map(|o| o.sel), Some(0));
    // Letters are typed into the field, not taken as keys (`q` does not
    // quit, `j` does not move).
    typed(&mut m, "qj");
    assert!(!m.quit);
    assert_eq!(m.picker.open.as_ref().map(|o| o.text.as_str()), Some("qj"));
    assert_eq!(m.picker.selected(), Some(Row::Field));
    // Enter on an empty field says what to type.
    key(&mut m, KeyCode::Backspace);
    key(&mut m, KeyCode::Backspace);
    assert!(key(&mut m, KeyCode::Enter).is_empty());
    assert!(m
        .picker
        .open
        .as_ref()
        .and_then(|o| o.error.as_deref())
        .is_some_and(|e| e.contains("type a connection string")));
    key(&mut m, KeyCode::Esc);
    assert!(m.picker.open.is_none());
    assert_eq!(m.target, "mongodb://127.0.0.1:9");
    // Ctrl-C quits from the picker too.
    key(&mut m, KeyCode::Char('C'));
    let fx = update(
        &mut m,
        Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert!(m.quit && fx.contains(&Effect::Quit));
}

#[test]
fn tui_picker_switches_to_a_saved_connection_and_resets_the_model() {
    let mut m = model();
    let old = start_sampling(&mut m);
    let Some(Effect::Sample { req: old_req, .. }) = old.last() else {
        panic!("{old:?}");
    };
    let old_req = *old_req;
    key(&mut m, KeyCode::Char('C'));
    key(&mut m, KeyCode::Down);
    key(&mut m, KeyCode::Down);
    let fx = key(&mut m, KeyCode::Enter);
    // The old run cancelled, the executor told, a new run started.
    assert_eq!(fx.first(), Some(&Effect::Cancel { req: old_req }));
    assert_eq!(
        switched_to(&fx),
        Some(&Target::Mongo("mongodb://127.0.0.1:27017".into()))
    );
    let Some(Effect::Sample { req, .. }) = fx.last() else {
        panic!("{fx:?}");
    };
    assert!(*req > old_req);
    assert_eq!(m.job.as_ref().map(|j| j.req), Some(*req));
    assert!(m.picker.open.is_none() && m.report.is_none());
    assert_eq!(m.target, "mongodb://127.0.0.1:27017");
    // The target joins the recent ones only once it has been read.
    let recent = m.picker.recent.clone();
    assert_eq!(
        m.picker.reading.as_deref(),
        Some("mongodb://127.0.0.1:27017")
    );
    // A late answer of the old target is dropped.
    update(
        &mut m,
        Msg::Loaded {
            req: old_req,
            result: Err(Failure::Source("refused".into())),
        },
    );
    assert!(m.status.is_none() && m.job.is_some());
    assert_eq!(m.picker.recent, recent);
    // The new target's run succeeds: it is now the most recent.
    let report = docshape::report::Report::empty(
        m.target.clone(),
        docshape::report::Sampling {
            mode: "sample",
            size: Some(m.sample),
        },
        docshape::report::RulesUsed {
            profile: String::new(),
            lang: m.lang,
            disabled: Vec::new(),
        },
        0,
    );
    update(
        &mut m,
        Msg::Loaded {
            req: *req,
            result: Ok(Box::new(report)),
        },
    );
    assert_eq!(m.picker.recent[0], "mongodb://127.0.0.1:27017");
    assert!(m.picker.reading.is_none());
    // The executor's answer brings the new target's query history.
    let mut history = std::collections::HashMap::new();
    history.insert(
        "a.b".to_owned(),
        vec![docshape::source::QueryText::filter("{x: 1}")],
    );
    update(
        &mut m,
        Msg::Switched {
            target: "mongodb://127.0.0.1:27017".into(),
            history,
        },
    );
    assert_eq!(m.docs.query.history["a.b"].len(), 1);
}

#[test]
fn tui_picker_asks_for_a_password_in_a_masked_prompt() {
    let mut m = model();
    key(&mut m, KeyCode::Char('C'));
    // `ask` names a user and no password.
    assert!(key(&mut m, KeyCode::Enter).is_empty());
    assert!(m.picker.open.as_ref().is_some_and(|o| o.asking.is_some()));
    typed(&mut m, "s3cret");
    let s = common::screen(&m, 80, 24);
    assert!(
        s.contains("Password for mongodb+srv://ana@c.example.net/"),
        "{s}"
    );
    assert!(s.contains(" › ••••••▏"), "{s}");
    assert!(!s.contains("s3cret"), "{s}");
    assert!(!format!("{m:?}").contains("s3cret"));
    // Esc goes back to the list; the password typed is gone.
    key(&mut m, KeyCode::Esc);
    assert!(m.picker.open.as_ref().is_some_and(|o| o.asking.is_none()));
    key(&mut m, KeyCode::Enter);
    typed(&mut m, "p@ss");
    key(&mut m, KeyCode::Backspace);
    typed(&mut m, "s");
    let fx = key(&mut m, KeyCode::Enter);
    assert_eq!(
        switched_to(&fx),
        Some(&Target::Mongo(
            "mongodb+srv://ana:p%40ss@c.example.net/".into()
        ))
    );
    assert_eq!(m.target, "mongodb+srv://ana:****@c.example.net/");
    assert_eq!(
        m.picker.reading.as_deref(),
        Some("mongodb+srv://ana@c.example.net/")
    );
    assert!(!format!("{m:?}").contains("p@ss"));
    // A saved connection whose variable is unset asks too; a recent URI
    // with a user asks; a password in the file is refused.
    for (downs, asks) in [(3, true), (4, true)] {
        key(&mut m, KeyCode::Char('C'));
        for _ in 0..downs {
            key(&mut m, KeyCode::Down);
        }
        key(&mut m, KeyCode::Enter);
        assert_eq!(
            m.picker.open.as_ref().is_some_and(|o| o.asking.is_some()),
            asks
        );
        key(&mut m, KeyCode::Esc);
        key(&mut m, KeyCode::Esc);
    }
    // Enter with nothing typed connects without a password.
    key(&mut m, KeyCode::Char('C'));
    key(&mut m, KeyCode::Home);
    key(&mut m, KeyCode::Enter);
    let fx = key(&mut m, KeyCode::Enter);
    assert_eq!(
        switched_to(&fx),
        Some(&Target::Mongo("mongodb+srv://ana@c.example.net/".into()))
    );
    key(&mut m, KeyCode::Char('C'));
    key(&mut m, KeyCode::Down);
    assert!(key(&mut m, KeyCode::Enter).is_empty());
    let e = m
        .picker
        .open
        .as_ref()
        .and_then(|o| o.error.clone())
        .expect("refused");
    assert!(
        e.contains("holds a password") && !e.contains("hunter2"),
        "{e}"
    );
}

#[test]
fn tui_picker_field_takes_a_path_a_uri_or_a_saved_name() {
    let mut m = model();
    key(&mut m, KeyCode::Char('C'));
    typed(&mut m, "/tmp/dump");
    let fx = key(&mut m, KeyCode::Enter);
    assert_eq!(switched_to(&fx), Some(&Target::Path("/tmp/dump".into())));
    assert_eq!(m.target, "/tmp/dump");
    key(&mut m, KeyCode::Char('C'));
    typed(&mut m, "local");
    let fx = key(&mut m, KeyCode::Enter);
    assert_eq!(
        switched_to(&fx),
        Some(&Target::Mongo("mongodb://127.0.0.1:27017".into()))
    );
    // A URI typed with its password is used as typed, shown masked, and
    // remembered without it.
    key(&mut m, KeyCode::Char('C'));
    typed(&mut m, "mongodb://u:pw9@h3/");
    let s = common::screen(&m, 80, 24);
    assert!(s.contains("mongodb://u:****@h3/"), "{s}");
    assert!(!s.contains("pw9"), "{s}");
    let fx = key(&mut m, KeyCode::Enter);
    assert_eq!(
        switched_to(&fx),
        Some(&Target::Mongo("mongodb://u:pw9@h3/".into()))
    );
    assert_eq!(m.picker.reading.as_deref(), Some("mongodb://u@h3/"));
}

#[test]
fn tui_picker_screen_lists_saved_connections_with_passwords_masked() {
    for lang in [docshape::i18n::Lang::En, docshape::i18n::Lang::Zh] {
        let mut m = model();
        m.lang = lang;
        m.size = (80, 24);
        key(&mut m, KeyCode::Char('C'));
        key(&mut m, KeyCode::Down);
        let s = common::screen(&m, 80, 24);
        for want in [
            "ask",
            "mongodb+srv://ana@c.example.net/",
            "leaky",
            "mongodb://app:****@db.example:27017/",
            "prod",
            "mongodb://reader@db1.example.com:27017/",
            "mongodb://bob@h2:27017/",
            "/data/dump",
            "docshape.toml",
        ] {
            assert!(s.contains(want), "{lang:?}: {want}\n{s}");
        }
        assert!(!s.contains("hunter2"), "{s}");
        let words = lang.pick(
            ["Saved connections", "Recent", "Esc closes"],
            ["已保存的连接", "最近使用", "Esc 关闭"],
        );
        for want in words {
            assert!(s.contains(want), "{lang:?}: {want}\n{s}");
        }
        assert!(s.contains(" › leaky"), "{s}");
    }
}

#[test]
fn tui_picker_is_offered_when_the_target_is_refused() {
    for lang in [docshape::i18n::Lang::En, docshape::i18n::Lang::Zh] {
        let mut m = model();
        m.lang = lang;
        start_sampling(&mut m);
        update(
            &mut m,
            Msg::Loaded {
                req: 1,
                result: Err(Failure::Source(
                    "cannot reach the server at 127.0.0.1:9: connection refused".into(),
                )),
            },
        );
        let status = m.status.as_ref().expect("status");
        assert_eq!(status.level, Level::Error);
        assert!(
            status
                .text
                .contains(lang.pick("C connects to another target", "按 C 连接到另一个目标")),
            "{}",
            status.text
        );
        let s = common::screen(&m, 80, 24);
        assert!(
            s.contains(lang.pick("C connects to another target", "C 连接到另一个目标")),
            "{s}"
        );
    }
    // The help says it, in both languages.
    let mut m = model();
    m.help.open = true;
    m.size = (80, 60);
    let s = common::screen(&m, 80, 60);
    assert!(s.contains("connect elsewhere"), "{s}");
}

/// Waits for the answer of the sampling run `req`, handing every message to
/// `update`.
fn until_loaded(
    m: &mut Model,
    rt: &tokio::runtime::Runtime,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    ex: &mut Executor,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while m.job.is_some() {
        assert!(Instant::now() < deadline, "the run did not end");
        let msg = rt
            .block_on(async { tokio::time::timeout(Duration::from_secs(30), rx.recv()).await })
            .ok()
            .flatten()
            .expect("a message");
        for fx in update(m, msg) {
            ex.run(fx, &mut Vec::new());
        }
    }
}

fn collections(m: &Model) -> Vec<String> {
    let r = m.report.as_ref().expect("a report");
    m.nav
        .rows
        .iter()
        .filter_map(|row| match row {
            NavRow::Coll(i) => Some(r.collections[*i].namespace.clone()),
            _ => None,
        })
        .collect()
}

fn write_docs(dir: &Path, db: &str, coll: &str) {
    let d = dir.join(db);
    std::fs::create_dir_all(&d).expect("dir");
    let docs = (0..20).fold(String::new(), |mut out, i| {
        let _ = writeln!(out, "{{\"_id\": {i}, \"name\": \"n{i}\"}}");
        out
    });
    std::fs::write(d.join(format!("{coll}.json")), docs).expect("write");
}

#[test]
fn tui_picker_switch_reads_the_new_target() {
    let (a, b, state) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    write_docs(a.path(), "first", "alpha");
    write_docs(b.path(), "second", "beta");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (tx, mut rx) = channel();
    // `--db first`: what to read of the first target; another target is
    // read whole.
    let plan = Plan::new(
        Selection {
            dbs: vec!["first".into()],
            collections: Vec::new(),
        },
        SampleMode::Sample(100),
    );
    let start = Target::Path(a.path().to_path_buf());
    let mut ex = Executor::new(
        rt.handle().clone(),
        start.clone(),
        plan,
        Duration::from_secs(10),
        tx,
    );
    ex.state_dir = Some(state.path().to_path_buf());
    let mut m = Model::new(start.label(), 100, Keymap::default());
    m.picker = Picker::new(ConnectionsSection::new(), String::new(), Vec::new());
    for fx in start_sampling(&mut m) {
        ex.run(fx, &mut Vec::new());
    }
    until_loaded(&mut m, &rt, &mut rx, &mut ex);
    assert_eq!(collections(&m), ["first.alpha"]);
    key(&mut m, KeyCode::Char('C'));
    typed(&mut m, &b.path().display().to_string());
    for fx in key(&mut m, KeyCode::Enter) {
        ex.run(fx, &mut Vec::new());
    }
    assert_eq!(ex.target, Target::Path(b.path().to_path_buf()));
    until_loaded(&mut m, &rt, &mut rx, &mut ex);
    assert_eq!(collections(&m), ["second.beta"]);
    assert_eq!(m.target, b.path().display().to_string());
    // A switch while a run is in flight: the run is cancelled, and what it
    // might still send is dropped.
    for fx in start_sampling(&mut m) {
        ex.run(fx, &mut Vec::new());
    }
    key(&mut m, KeyCode::Char('C'));
    typed(&mut m, &a.path().display().to_string());
    for fx in key(&mut m, KeyCode::Enter) {
        ex.run(fx, &mut Vec::new());
    }
    until_loaded(&mut m, &rt, &mut rx, &mut ex);
    assert_eq!(collections(&m), ["first.alpha"]);
    key(&mut m, KeyCode::Char('C'));
    typed(&mut m, &b.path().display().to_string());
    for fx in key(&mut m, KeyCode::Enter) {
        ex.run(fx, &mut Vec::new());
    }
    until_loaded(&mut m, &rt, &mut rx, &mut ex);
    // The new target is remembered among the recent ones.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let recent = docshape::tui::picker::load_recent(state.path());
        if recent.first() == Some(&b.path().display().to_string()) {
            break;
        }
        assert!(Instant::now() < deadline, "{recent:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills its tmux session when dropped.
struct Kill(String);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = std::process::Command::new("tmux")
            .args(["kill-session", "-t", &self.0])
            .status();
    }
}

/// In a real terminal: the start-up target refuses, the error screen
/// offers the picker, and a saved connection to the test server is read.
#[test]
fn tui_picker_leaves_a_refused_host_for_a_saved_connection() {
    use std::process::Command;
    let uri = common::uri();
    let db = common::unique_db("picker");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = common::client().await;
        let path = common::repo().join("sample-data/shop/orders.json");
        common::load_ejson(&client, &db, "orders", &path).await;
    });
    // A loopback port nothing listens on.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let home = tempfile::tempdir().expect("temp dir");
    let conf = home.path().join("docshape");
    std::fs::create_dir_all(&conf).expect("dir");
    std::fs::write(
        conf.join("docshape.toml"),
        format!("[connections.testserver]\nuri = \"{uri}\"\n"),
    )
    .expect("config");
    let cmd = format!(
        "env XDG_CONFIG_HOME={h} XDG_STATE_HOME={h} '{bin}' 'mongodb://127.0.0.1:{closed}/' --db {db} --no-snapshot --timeout 3; echo DOCSHAPE_EXIT=$?; sleep 60",
        h = home.path().display(),
        bin = common::docshape_bin(),
    );
    let name = format!("docshape-picker-{}", std::process::id());
    let tmux = |args: &[&str]| -> String {
        let o = Command::new("tmux")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run tmux: {e}"));
        assert!(o.status.success(), "tmux {args:?}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &name,
        "-x",
        "100",
        "-y",
        "30",
        &cmd,
    ]);
    let _kill = Kill(name.clone());
    let wait_for = |what: &str, secs: u64| -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let text = tmux(&["capture-pane", "-p", "-t", &name]);
            if text.contains(what) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "`{what}` did not appear within {secs} s; the screen:\n{text}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let refused = wait_for("connects to another target", 60);
    assert!(refused.contains("error"), "{refused}");
    tmux(&["send-keys", "-t", &name, "C"]);
    let picker = wait_for("testserver", 10);
    assert!(picker.contains("Saved connections"), "{picker}");
    tmux(&["send-keys", "-t", &name, "Enter"]);
    let read = wait_for("orders", 60);
    assert!(read.contains(&db), "{read}");
    tmux(&["send-keys", "-t", &name, "q"]);
    let end = wait_for("DOCSHAPE_EXIT=", 10);
    assert!(end.contains("DOCSHAPE_EXIT=0"), "{end}");
    // The recent targets hold the one that was read, without a password,
    // and not the one that refused.
    let recent = std::fs::read_to_string(home.path().join("docshape/recent-targets.json"))
        .expect("recent targets");
    assert!(
        recent.contains(&docshape::secret::without_password(&uri)),
        "{recent}"
    );
    assert!(!recent.contains(&format!("127.0.0.1:{closed}")), "{recent}");
    if let Some(pw) = docshape::secret::uri_password(&uri) {
        assert!(!recent.contains(&pw), "a password was kept");
    }
}
