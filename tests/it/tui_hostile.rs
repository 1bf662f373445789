//! The explorer never leaves the terminal broken. Each end-to-end test runs
//! the binary in a tmux pane of its own (its own tmux server, `-L`), ends
//! it in a hostile way — a panic, a signal, the server vanishing, the
//! window shrunk to one cell — and then, from the shell in the same pane,
//! checks the terminal: raw mode off (`stty -a` shows `icanon`, `echo`,
//! `isig`, `icrnl`, `opost`, `iexten`), the alternate screen left (what was
//! printed before is back), the cursor shown and mouse reporting off (tmux's
//! own pane flags). A control test kills the explorer with SIGKILL and
//! proves these checks do see a broken terminal.
//!
//! The views are also drawn into `TestBackend` at every small size, in every
//! tab and state, and `update` is fed resizes, clicks and keys at those
//! sizes: none may panic. Needs `tmux` on PATH and, for the vanished server,
//! `secantusd-py`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use docshape::audit::{self, Plan};
use docshape::report::Report;
use docshape::source::{FileSource, SampleMode, Selection};
use docshape::tui::keymap::{Action, Keymap};
use docshape::tui::layout;
use docshape::tui::model::{DocView, Input, InputFor, Level, Model, Pane, Status, Tab};
use docshape::tui::msg::Msg;
use docshape::tui::theme::Theme;
use docshape::tui::update::{action, set_report, start_sampling, update};
use docshape::tui::views;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::Terminal;

// ---------------------------------------------------------------------------
// A tmux server of the test's own.

/// A tmux server on a socket no other test uses, with one pane running a
/// script; the server (and whatever still runs in it) is killed when this
/// is dropped, also while a failed test unwinds.
struct Tmux {
    socket: String,
    /// The socket's file, which tmux leaves behind.
    socket_path: Option<PathBuf>,
    home: tempfile::TempDir,
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
        if let Some(p) = &self.socket_path {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// What the pane runs around the explorer: a marker printed before it, its
/// exit status, and the terminal's settings once it is gone.
const SCRIPT: &str = r#"
printf 'DOCSHAPE_BEFORE\n'
sh -c 'echo $$ >"$0"; exec "$@"' "$PIDFILE" "$@"
printf 'DOCSHAPE_EXIT=%s\n' "$?"
printf 'STTY_BEGIN\n'
stty -a
printf 'STTY_END\n'
exec sleep 600
"#;

const MARKER_BEFORE: &str = "DOCSHAPE_BEFORE";

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl Tmux {
    /// Starts `docshape ARGS` with `env` in a `w`×`h` pane.
    fn explorer(args: &[&str], env: &[(&str, &str)], w: u16, h: u16) -> Tmux {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let home = tempfile::tempdir().expect("temp dir");
        let mut t = Tmux {
            socket: format!("docshape-hostile-{}-{n}", std::process::id()),
            socket_path: None,
            home,
        };
        let script = t.home.path().join("run.sh");
        std::fs::write(&script, SCRIPT).expect("write the pane script");
        let h_ = t.home.path().display().to_string();
        let mut cmd = vec![
            "env".to_owned(),
            "-u".into(),
            "DOCSHAPE_INJECT_PANIC".into(),
            "-u".into(),
            "NO_COLOR".into(),
            "-u".into(),
            "LC_ALL".into(),
            format!("PIDFILE={h_}/pid"),
            "sh".into(),
            script.display().to_string(),
            "env".into(),
            format!("XDG_CONFIG_HOME={h_}/config"),
            format!("XDG_STATE_HOME={h_}/state"),
            format!("DOCSHAPE_LOG={h_}/log"),
            "LANG=C.UTF-8".into(),
            "RUST_BACKTRACE=0".into(),
        ];
        cmd.extend(env.iter().map(|(k, v)| format!("{k}={v}")));
        cmd.push(common::docshape_bin().to_owned());
        cmd.extend(args.iter().map(|a| (*a).to_owned()));
        let line: Vec<String> = cmd.iter().map(|a| shell_quote(a)).collect();
        t.tmux(&[
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &w.to_string(),
            "-y",
            &h.to_string(),
            &line.join(" "),
        ]);
        t.socket_path = Some(PathBuf::from(t.pane("#{socket_path}")));
        // Let resize-window shrink the window below any client's size.
        t.tmux(&["set-option", "-g", "window-size", "manual"]);
        t
    }

    fn tmux(&self, args: &[&str]) -> String {
        let o = Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
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

    /// The visible screen, wrapped lines joined.
    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-t", "t"])
    }

    /// The scrollback and the screen.
    fn transcript(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-S", "-", "-t", "t"])
    }

    /// A tmux format for the pane (`#{alternate_on}` …).
    fn pane(&self, format: &str) -> String {
        self.tmux(&["display-message", "-p", "-t", "t", format])
            .trim()
            .to_owned()
    }

    /// Polls the screen until `ok` holds, for at most `secs`.
    fn wait_until(&self, what: &str, secs: u64, ok: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let text = self.screen();
            if ok(&text) {
                return text;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: not within {secs} s; the screen:\n{text}\nthe log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for(&self, what: &str, secs: u64) -> String {
        self.wait_until(&format!("`{what}` on screen"), secs, |s| s.contains(what))
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    fn resize(&self, w: u16, h: u16) {
        self.tmux(&[
            "resize-window",
            "-t",
            "t",
            "-x",
            &w.to_string(),
            "-y",
            &h.to_string(),
        ]);
        assert_eq!(
            self.pane("#{pane_width}x#{pane_height}"),
            format!("{w}x{h}"),
            "tmux did not resize the pane"
        );
    }

    /// The explorer's process id (the pane script writes it before exec).
    fn pid(&self) -> String {
        let path = self.home.path().join("pid");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(s) = std::fs::read_to_string(&path) {
                if !s.trim().is_empty() {
                    return s.trim().to_owned();
                }
            }
            assert!(Instant::now() < deadline, "no pid file {}", path.display());
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn signal(&self, sig: &str) {
        let pid = self.pid();
        let st = Command::new("kill")
            .args([format!("-{sig}"), pid.clone()])
            .status()
            .expect("run kill");
        assert!(st.success(), "kill -{sig} {pid} failed");
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.home.path().join("log")).unwrap_or_default()
    }

    /// Waits for the explorer to end and the pane script to print the
    /// terminal's settings; returns the exit status and the transcript.
    fn finished(&self, secs: u64) -> (i32, String) {
        self.wait_until("the explorer ends and stty runs", secs, |s| {
            s.contains("STTY_END")
        });
        let text = self.transcript();
        // Anywhere on a line: a terminal left raw does not return the
        // carriage.
        let code = text
            .split_once("DOCSHAPE_EXIT=")
            .and_then(|(_, rest)| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .unwrap_or_else(|| panic!("no exit status in:\n{text}"));
        (code, text)
    }

    /// What is wrong with the terminal once the explorer has ended; empty
    /// when it is fully restored.
    fn problems(&self, transcript: &str) -> Vec<String> {
        let mut bad = Vec::new();
        if self.pane("#{alternate_on}") != "0" {
            bad.push("still on the alternate screen".to_owned());
        }
        if self.pane("#{cursor_flag}") != "1" {
            bad.push("cursor hidden".to_owned());
        }
        let mouse = self.pane("#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}");
        if mouse != "000" {
            bad.push(format!("mouse reporting still on ({mouse})"));
        }
        let stty = transcript
            .rsplit_once("STTY_BEGIN")
            .and_then(|(_, rest)| rest.split_once("STTY_END"))
            .map_or("", |(s, _)| s);
        let tokens: Vec<&str> = stty
            .split(|c: char| c.is_whitespace() || c == ';')
            .collect();
        for flag in ["icanon", "echo", "isig", "icrnl", "opost", "iexten"] {
            if !tokens.contains(&flag) {
                let off = format!("-{flag}");
                bad.push(if tokens.contains(&off.as_str()) {
                    format!("stty: {off} (raw mode left on)")
                } else {
                    format!("stty: {flag} not shown")
                });
            }
        }
        let screen = self.screen();
        if !screen.contains(MARKER_BEFORE) {
            bad.push("what was printed before the explorer is not on screen".into());
        }
        for ui in ["Collections", "q quit"] {
            if screen.contains(ui) {
                bad.push(format!("the explorer's `{ui}` is still on screen"));
            }
        }
        bad
    }

    /// Asserts the terminal is fully restored.
    fn assert_restored(&self, transcript: &str) {
        let bad = self.problems(transcript);
        assert!(
            bad.is_empty(),
            "the terminal is not restored: {bad:?}\nthe transcript:\n{transcript}"
        );
    }
}

fn sample_data() -> String {
    common::repo().join("sample-data").display().to_string()
}

/// The explorer on the bundled shop data (three small files, no server).
fn shop(env: &[(&str, &str)], w: u16, h: u16) -> Tmux {
    let data = sample_data();
    let t = Tmux::explorer(&[&data, "--db", "shop", "--no-snapshot"], env, w, h);
    t.wait_for("orders", 60);
    t
}

// ---------------------------------------------------------------------------
// The checks can fail.

#[test]
fn the_checks_see_a_terminal_left_broken() {
    let t = shop(&[], 100, 30);
    // SIGKILL cannot be handled: the terminal stays as the explorer set it.
    t.signal("KILL");
    let (code, text) = t.finished(20);
    assert_eq!(code, 137, "{text}");
    let bad = t.problems(&text);
    assert!(
        bad.iter().any(|p| p.contains("alternate screen")),
        "{bad:?}\n{text}"
    );
    assert!(
        bad.iter().any(|p| p.contains("raw mode")),
        "{bad:?}\n{text}"
    );
}

// ---------------------------------------------------------------------------
// Panics.

/// A password the panic message must never show.
const PASSWORD: &str = "Hunter2-s3cret";

/// The explorer on an unreachable server with a password in its URI, the
/// test build told to panic at `at`.
fn panicking(at: &str) -> Tmux {
    let uri = format!(
        "mongodb://alice:{PASSWORD}@127.0.0.1:{}/?directConnection=true",
        common::free_port()
    );
    Tmux::explorer(
        &[&uri, "--timeout", "2", "--no-snapshot"],
        &[("DOCSHAPE_INJECT_PANIC", at)],
        100,
        30,
    )
}

/// The panic message: on the restored screen, readable, password masked.
fn assert_panic_reported(code: i32, text: &str, at: &str) {
    assert_eq!(code, 101, "a panic exits with Rust's panic status:\n{text}");
    let first = text
        .lines()
        .find(|l| l.starts_with("docshape: internal error"))
        .unwrap_or_else(|| panic!("no panic message at the start of a line:\n{text}"));
    assert!(first.contains(&format!("injected panic ({at})")), "{first}");
    assert!(first.contains("alice:****@127.0.0.1"), "{first}");
    assert!(first.contains("src/tui/app.rs"), "{first}");
    assert!(!text.contains(PASSWORD), "the password leaked:\n{text}");
    assert!(text.contains("the terminal has been restored"), "{text}");
    // The message comes after the restore: below the shell's own output,
    // not inside the (gone) alternate screen.
    let before = text.find(MARKER_BEFORE).expect("marker");
    let msg = text.find("docshape: internal error").expect("message");
    assert!(before < msg, "{text}");
}

#[test]
fn a_panic_on_a_key_press_restores_the_terminal() {
    let t = panicking("key");
    t.wait_for("Collections", 30);
    t.keys(&["j"]);
    if cfg!(debug_assertions) {
        let (code, text) = t.finished(20);
        assert_panic_reported(code, &text, "key");
        t.assert_restored(&text);
    } else {
        // Release builds have no injection: the key just moves.
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(t.pane("#{alternate_on}"), "1");
        t.keys(&["q"]);
        let (code, text) = t.finished(20);
        assert_eq!(code, 0, "{text}");
        t.assert_restored(&text);
    }
}

#[test]
fn a_panic_while_drawing_restores_the_terminal() {
    let t = panicking("draw");
    if cfg!(debug_assertions) {
        let (code, text) = t.finished(30);
        assert_panic_reported(code, &text, "draw");
        t.assert_restored(&text);
    } else {
        t.wait_for("Collections", 30);
        t.keys(&["q"]);
        let (code, text) = t.finished(20);
        assert_eq!(code, 0, "{text}");
        t.assert_restored(&text);
    }
}

/// A panic on the sampling worker is a failed run shown in the UI, which
/// keeps the screen and keeps working; the panic hook must not restore the
/// terminal under it.
#[test]
fn a_panic_in_the_sampling_worker_is_an_error_in_the_ui() {
    let data = sample_data();
    let t = Tmux::explorer(
        &[&data, "--db", "shop", "--no-snapshot"],
        &[("DOCSHAPE_INJECT_PANIC", "sample")],
        160,
        30,
    );
    if cfg!(debug_assertions) {
        let s = t.wait_for("error: internal error while sampling", 30);
        assert!(s.contains("injected panic (sample)"), "{s}");
        assert!(s.contains("Nothing sampled yet"), "{s}");
    } else {
        t.wait_for("orders", 30);
    }
    assert_eq!(t.pane("#{alternate_on}"), "1", "the UI gave up the screen");
    t.keys(&["?"]);
    t.wait_for("Esc closes)", 10);
    t.keys(&["Escape"]);
    t.wait_until("help closed", 10, |s| !s.contains("Esc closes)"));
    t.keys(&["q"]);
    let (code, text) = t.finished(20);
    assert_eq!(code, 0, "{text}");
    assert!(!text.contains("docshape: internal error"), "{text}");
    t.assert_restored(&text);
}

// ---------------------------------------------------------------------------
// Signals and Ctrl-C.

fn stopped_by(sig: &str, status: i32) {
    let t = shop(&[], 100, 30);
    t.signal(sig);
    let (code, text) = t.finished(20);
    assert_eq!(code, status, "SIG{sig}: {text}");
    t.assert_restored(&text);
    // The explorer exited by itself (128 + n), it was not killed by the
    // signal: it logged why it stopped.
    let log = t.log();
    assert!(log.contains("signal received, quitting"), "SIG{sig}: {log}");
    assert!(log.contains("explorer stopped"), "SIG{sig}: {log}");
}

#[test]
fn sigterm_restores_the_terminal_and_exits_143() {
    stopped_by("TERM", 143);
}

#[test]
fn sigint_restores_the_terminal_and_exits_130() {
    stopped_by("INT", 130);
}

#[test]
fn sighup_and_sigquit_restore_the_terminal() {
    stopped_by("HUP", 129);
    stopped_by("QUIT", 131);
}

/// In raw mode Ctrl-C is a key, bound to quit: it quits (status 0), also
/// from the filter prompt, where it used to type a `c`.
#[test]
fn ctrl_c_quits_cleanly_even_from_the_prompt() {
    let t = shop(&[], 100, 30);
    t.keys(&["-l", "/or"]);
    t.wait_for(" / or", 10);
    t.keys(&["C-c"]);
    let (code, text) = t.finished(20);
    assert_eq!(code, 0, "{text}");
    t.assert_restored(&text);
}

// ---------------------------------------------------------------------------
// The server disappears.

#[test]
fn a_vanished_server_is_an_error_in_the_ui_and_quitting_is_clean() {
    let server = common::PrivateServer::start(Path::new(":memory:"), &[]);
    let uri = server.uri();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = mongodb::Client::with_uri_str(&uri)
            .await
            .expect("client for the private server");
        for coll in ["customers", "orders", "products"] {
            let path = common::repo().join(format!("sample-data/shop/{coll}.json"));
            common::load_ejson(&client, "shop", coll, &path).await;
        }
        client.shutdown().await;
    });
    let t = Tmux::explorer(
        &[&uri, "--db", "shop", "--timeout", "2", "--no-snapshot"],
        &[],
        120,
        30,
    );
    t.wait_for("orders", 60);
    t.wait_until("sampling done", 60, |s| s.contains("sampled 3 collections"));
    server.stop();
    // Ask for something that needs the server.
    t.keys(&["r"]);
    let asked = Instant::now();
    t.wait_until("a new sampling run", 10, |s| {
        !s.contains("sampled 3 collections")
    });
    // The loop answers while the worker waits for the server.
    t.keys(&["?"]);
    t.wait_for("Esc closes)", 5);
    t.keys(&["Escape"]);
    // Until the help is gone: an Escape read together with a later key is
    // that key with Alt.
    t.wait_until("the help closed", 10, |s| !s.contains("Esc closes)"));
    let s = t.wait_for("error:", 30);
    let took = asked.elapsed();
    assert!(
        took < Duration::from_secs(12),
        "the error took {took:?} with --timeout 2"
    );
    assert!(s.contains("r retries"), "{s}");
    assert!(
        s.contains("127.0.0.1") || s.to_lowercase().contains("server"),
        "the error should say what could not be reached: {s}"
    );
    // What was sampled before is still there and still browsable.
    assert!(s.contains("Collections") && s.contains("orders"), "{s}");
    t.keys(&["2"]);
    t.wait_for("Findings", 10);
    t.keys(&["q"]);
    let (code, text) = t.finished(20);
    assert_eq!(code, 0, "{text}");
    t.assert_restored(&text);
}

// ---------------------------------------------------------------------------
// Resizing.

/// What the screen shows at `w`×`h` below the minimum: the "terminal too
/// small" notice with the size when there is room for it, else as much of
/// its first word as fits on the first line.
fn too_small_shows(w: u16, h: u16) -> impl Fn(&str) -> bool {
    move |s: &str| {
        if w >= 12 || h >= 3 {
            let text: String = s.split_whitespace().collect();
            text.contains(&format!("{w}×{h}"))
        } else {
            let first = s.lines().next().unwrap_or("").trim_end();
            first == &"terminal"[..usize::from(w).min(8)]
        }
    }
}

#[test]
fn shrinking_to_one_cell_and_back_redraws_the_ui() {
    let t = shop(&[], 100, 30);
    for (w, h) in [
        (1, 1),
        (2, 1),
        (10, 3),
        (300, 5),
        (59, 15),
        (60, 14),
        (1, 1),
    ] {
        t.resize(w, h);
        t.wait_until(
            &format!("the too-small notice at {w}×{h}"),
            10,
            too_small_shows(w, h),
        );
        assert_eq!(
            t.pane("#{alternate_on}"),
            "1",
            "the explorer left at {w}×{h}"
        );
    }
    for (w, h) in [(80, 24), (120, 40), (60, 15), (300, 50)] {
        t.resize(w, h);
        let s = t.wait_until(&format!("the UI at {w}×{h}"), 10, |s| {
            s.contains("Collections") && s.contains("q quit")
        });
        assert!(s.contains("orders"), "{w}×{h}:\n{s}");
    }
    // A storm of resizes, no waiting between them, then a usable size.
    for i in 0..40u16 {
        t.resize(1 + (i * 37) % 200, 1 + (i * 13) % 50);
    }
    t.resize(120, 40);
    t.wait_until("the UI after a resize storm", 10, |s| {
        s.contains("Collections") && s.contains("q quit")
    });
    // Still working: the Findings tab.
    t.keys(&["2"]);
    t.wait_for("Findings (", 10);
    t.keys(&["q"]);
    let (code, text) = t.finished(20);
    assert_eq!(code, 0, "{text}");
    t.assert_restored(&text);
}

// ---------------------------------------------------------------------------
// Views and update at every small size (no terminal).

fn sample_report() -> Report {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let dir: PathBuf = common::repo().join("sample-data");
        let mut src = FileSource::open(&dir).expect("sample data");
        let plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
        audit::run(&mut src, &plan, &mut |_| {})
            .await
            .expect("audit")
    })
}

/// Models in every state worth drawing: nothing yet, sampling, each tab on
/// a collection (with its detail, open documents, help, a prompt, an error
/// and a warning in the status bar).
fn models(report: &Report) -> Vec<(String, Model)> {
    let mut out = Vec::new();
    let fresh = || Model::new("mongodb://u:****@h/".into(), 1000, Keymap::default());
    out.push(("empty".into(), fresh()));
    let mut m = fresh();
    start_sampling(&mut m);
    update(
        &mut m,
        Msg::Progress {
            stage: docshape::audit::Stage::Sampling,
            req: 1,
            namespace: "db.a-very-long-collection-name-indeed".into(),
            position: (1, 3),
            documents: 123_456,
            expected: Some(1_000_000),
            rate: 3000.0,
        },
    );
    out.push(("sampling".into(), m));
    for tab in Tab::ALL {
        for variant in 0..3 {
            let mut m = fresh();
            set_report(&mut m, report.clone());
            // A collection with nested fields, findings and references.
            for _ in 0..3 {
                action(&mut m, Action::Down);
            }
            action(&mut m, Action::NextPane);
            let _ = match tab {
                Tab::Schema => action(&mut m, Action::TabSchema),
                Tab::Findings => action(&mut m, Action::TabFindings),
                Tab::Documents => {
                    action(&mut m, Action::TabDocuments);
                    action(&mut m, Action::Toggle)
                }
                Tab::Relationships => action(&mut m, Action::TabRelationships),
                Tab::Indexes => action(&mut m, Action::TabIndexes),
                Tab::Workload => action(&mut m, Action::TabWorkload),
                Tab::Learn => {
                    action(&mut m, Action::TabLearn);
                    m.learn.req = None;
                    m.learn.text = Some(if variant == 0 {
                        Err(docshape::tui::msg::Failure::Source(
                            "cannot read the sample data".into(),
                        ))
                    } else {
                        Ok("A lesson.\n\n".repeat(200))
                    });
                    Vec::new()
                }
            };
            for _ in 0..variant * 3 {
                action(&mut m, Action::Down);
                action(&mut m, Action::DetailDown);
            }
            match variant {
                1 => {
                    m.status = Some(Status {
                        text: "x".repeat(300),
                        level: Level::Error,
                        place: m.place(),
                    });
                    m.warnings.push("a bad theme".into());
                    m.input = Some(Input {
                        target: InputFor::Fields,
                        text: "é".repeat(100),
                    });
                }
                2 => {
                    m.help.open = true;
                    m.docs.view = DocView::Largest;
                    m.focus = Pane::Nav;
                }
                _ => {}
            }
            out.push((format!("{tab:?} #{variant}"), m));
        }
    }
    out
}

fn draw(m: &Model, theme: &Theme, w: u16, h: u16) -> Result<(), String> {
    let mut t = Terminal::new(TestBackend::new(w, h)).map_err(|e| e.to_string())?;
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        t.draw(|f| views::render(m, theme, f)).map(|_| ())
    }))
    .map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default()
    })?
    .map_err(|e| e.to_string())
}

/// Every size from 1×1 to 12×6, the sizes around the minimum and the
/// layout's breakpoints (narrow/wide splits, the detail charts), extremes.
fn sizes() -> Vec<(u16, u16)> {
    let mut v: Vec<(u16, u16)> = (1..=12)
        .flat_map(|w| (1..=6).map(move |h| (w, h)))
        .collect();
    for w in layout::MIN_WIDTH - 1..=layout::MIN_WIDTH + 1 {
        for h in layout::MIN_HEIGHT - 1..=layout::MIN_HEIGHT + 1 {
            v.push((w, h));
        }
    }
    for w in [70, 87, 109, 110, 111, 132] {
        for h in [15, 17, 18, 24, 28, 29, 30, 31, 45] {
            v.push((w, h));
        }
    }
    v.extend([
        (1, 300),
        (1000, 1),
        (300, 5),
        (60, 200),
        (500, 15),
        (400, 120),
    ]);
    v
}

#[test]
fn views_draw_at_every_small_size_without_panicking() {
    let report = sample_report();
    let themes = [Theme::default(), {
        let mut t = Theme::default();
        t.no_color = true;
        t
    }];
    let mut failures = Vec::new();
    for (name, m) in models(&report) {
        for &(w, h) in &sizes() {
            for theme in &themes {
                if let Err(e) = draw(&m, theme, w, h) {
                    failures.push(format!("{name} at {w}×{h}: {e}"));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} draws panicked:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn update_survives_resizes_clicks_and_keys_at_every_small_size() {
    let report = sample_report();
    let keys = [
        KeyCode::PageDown,
        KeyCode::PageUp,
        KeyCode::End,
        KeyCode::Home,
        KeyCode::Down,
        KeyCode::Up,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Enter,
        KeyCode::Char('J'),
        KeyCode::Char('K'),
        KeyCode::Char(']'),
    ];
    for (name, mut m) in models(&report) {
        for &(w, h) in &sizes() {
            update(&mut m, Msg::Resize(w, h));
            for (x, y) in [
                (0, 0),
                (w / 2, h / 2),
                (w.saturating_sub(1), h.saturating_sub(1)),
                (w, h),
                (u16::MAX, u16::MAX),
            ] {
                for kind in [
                    MouseEventKind::Down(MouseButton::Left),
                    MouseEventKind::ScrollDown,
                    MouseEventKind::ScrollUp,
                ] {
                    update(
                        &mut m,
                        Msg::Mouse(MouseEvent {
                            kind,
                            column: x,
                            row: y,
                            modifiers: KeyModifiers::NONE,
                        }),
                    );
                }
            }
            for k in keys {
                update(&mut m, Msg::Key(KeyEvent::new(k, KeyModifiers::NONE)));
            }
            // Whatever state that left, it still draws.
            draw(&m, &Theme::default(), w, h).unwrap_or_else(|e| panic!("{name} at {w}×{h}: {e}"));
        }
    }
}

#[test]
fn areas_stay_inside_the_screen() {
    for &(w, h) in &sizes() {
        let screen = ratatui::layout::Rect::new(0, 0, w, h);
        if let Some(a) = layout::areas(screen) {
            for (what, r) in [
                ("nav", a.nav),
                ("tabs", a.tabs),
                ("main", a.main),
                ("status", a.status),
            ] {
                assert!(
                    screen.contains(r.as_position()) && r.right() <= w && r.bottom() <= h,
                    "{what} {r:?} outside {w}×{h}"
                );
            }
        } else {
            assert!(w < layout::MIN_WIDTH || h < layout::MIN_HEIGHT, "{w}×{h}");
        }
    }
}
