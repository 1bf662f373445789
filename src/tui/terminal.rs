//! The terminal's state and every way back to a usable one. Raw mode, the
//! alternate screen and mouse capture are entered in one place and left in
//! one place, at most once (leaving the alternate screen twice would move
//! the cursor back over what was printed since), from whichever comes
//! first: a normal return, an unwinding panic (the RAII guard), the panic
//! hook, or a signal.
//!
//! The panic hook does not chain to the default one: that would print the
//! panic message as it is, and a message may quote a connection string. It
//! prints the message with passwords masked instead, after the terminal is
//! back. A panic on a worker thread while the explorer runs leaves the
//! screen alone: the worker reports the failure to the UI, which stays up.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::thread::ThreadId;
use std::time::Duration;

use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};

use crate::secret::Secrets;

/// Whether the explorer owns the terminal (raw mode, alternate screen).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The thread running the UI loop.
static UI_THREAD: OnceLock<ThreadId> = OnceLock::new();
/// Strings never to print: the passwords of the targets read, raw and
/// decoded.
static SECRETS: Mutex<Secrets> = Mutex::new(Secrets::new());

/// How long the loop has to finish after a signal before the watchdog
/// restores the terminal and exits by itself.
const GRACE: Duration = Duration::from_secs(3);

/// Takes the terminal: raw mode, alternate screen, mouse capture. The
/// returned guard gives it back when dropped.
pub(crate) fn enter() -> io::Result<Guard> {
    install_panic_hook();
    let _ = UI_THREAD.set(std::thread::current().id());
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let guard = Guard;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    Ok(guard)
}

/// Leaves the alternate screen, mouse capture and raw mode and shows the
/// cursor, once: later calls do nothing.
pub(crate) fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

/// Whether the explorer owns the terminal.
pub(crate) fn is_active() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

/// Restores the terminal when dropped: every return and unwinding panic.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Remembers the password of the connection string `uri` (as written and
/// percent-decoded) so that no panic message shows it: the start-up
/// target's, and each one the connection picker opens.
pub(crate) fn keep_secrets_of(uri: &str) {
    SECRETS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .keep_all(&Secrets::of_uri(uri));
}

fn on_ui_thread() -> bool {
    UI_THREAD
        .get()
        .is_some_and(|id| *id == std::thread::current().id())
}

/// The panic hook: restore, then one readable, scrubbed message (and a
/// backtrace when `RUST_BACKTRACE` asks for one).
pub(crate) fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let msg = panic_message(info.payload());
            let at = info
                .location()
                .map(|l| format!(" ({}:{}:{})", l.file(), l.line(), l.column()))
                .unwrap_or_default();
            let thread = std::thread::current();
            let name = thread.name().unwrap_or("unnamed");
            tracing::error!(thread = name, "panic: {msg}{at}");
            if is_active() && !on_ui_thread() {
                // The worker reports it through the UI, which owns the
                // screen.
                return;
            }
            restore();
            let backtrace = std::backtrace::Backtrace::capture();
            let backtrace = match backtrace.status() {
                std::backtrace::BacktraceStatus::Captured => format!("\n{backtrace}"),
                _ => String::new(),
            };
            eprintln!(
                "docshape: internal error (a bug, please report it): {msg}{at} [thread {name}]\n\
                 docshape: the terminal has been restored; DOCSHAPE_LOG=FILE keeps a log, \
                 RUST_BACKTRACE=1 shows a backtrace{backtrace}"
            );
        }));
    });
}

/// What a caught panic's payload says, scrubbed: the password of every
/// connection string in it, and every kept secret, masked.
pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    let kept = SECRETS
        .lock()
        .map_or_else(|p| p.into_inner().clone(), |k| k.clone());
    kept.scrub(text)
}

/// The signals that stop the explorer: SIGTERM, SIGINT, SIGHUP, SIGQUIT.
const STOPPING: [fn() -> tokio::signal::unix::SignalKind; 4] = [
    tokio::signal::unix::SignalKind::terminate,
    tokio::signal::unix::SignalKind::interrupt,
    tokio::signal::unix::SignalKind::hangup,
    tokio::signal::unix::SignalKind::quit,
];

/// The stopping signals as one stream, for the loop's `select!`: each
/// quits cleanly and the process exits with 128 + its number.
pub struct Signals(Vec<(tokio::signal::unix::Signal, i32)>);

impl Signals {
    /// Installs the handlers (on the current runtime): from now on no
    /// stopping signal is missed. Also starts the watchdog: if the loop has
    /// not ended `GRACE` after a signal, or a second one comes, the
    /// watchdog task (on a worker of the runtime, not the loop's thread)
    /// restores the terminal and exits by itself.
    pub(crate) fn install() -> io::Result<Signals> {
        let signals = Signals::listen()?;
        let mut watched = Signals::listen()?;
        tokio::spawn(async move {
            let n = watched.next().await;
            tokio::select! {
                () = tokio::time::sleep(GRACE) => {}
                _ = watched.next() => {}
            }
            tracing::warn!(signal = n, "the loop did not end in time; exiting");
            restore();
            eprintln!("docshape: stopped by signal {n}");
            std::process::exit(128 + n);
        });
        Ok(signals)
    }

    fn listen() -> io::Result<Signals> {
        let mut streams = Vec::with_capacity(STOPPING.len());
        for kind in STOPPING {
            let kind = kind();
            streams.push((tokio::signal::unix::signal(kind)?, kind.as_raw_value()));
        }
        Ok(Signals(streams))
    }

    /// No signal handled (they could not be installed): `next` never ends.
    pub(crate) fn none() -> Signals {
        Signals(Vec::new())
    }

    /// The number of the next signal. Cancel-safe.
    pub(crate) async fn next(&mut self) -> i32 {
        if self.0.is_empty() {
            return std::future::pending().await;
        }
        let waits = self.0.iter_mut().map(|(s, n)| {
            let n = *n;
            Box::pin(async move {
                s.recv().await;
                n
            })
        });
        futures_util::future::select_all(waits).await.0
    }
}

/// Test builds only: panics at `at` when `DOCSHAPE_INJECT_PANIC=at`, so the
/// tests can prove the terminal survives a panic there. `context` goes into
/// the message (the tests pass the unmasked target to prove the scrubbing).
#[cfg(debug_assertions)]
#[track_caller]
pub(crate) fn inject_panic(at: &str, context: &dyn std::fmt::Display) {
    static WHERE: OnceLock<Option<String>> = OnceLock::new();
    let wanted = WHERE.get_or_init(|| std::env::var("DOCSHAPE_INJECT_PANIC").ok());
    assert!(
        wanted.as_deref() != Some(at),
        "injected panic ({at}) while exploring {context}"
    );
}

/// Release builds: nothing.
#[cfg(not(debug_assertions))]
pub(crate) fn inject_panic(_at: &str, _context: &dyn std::fmt::Display) {}
