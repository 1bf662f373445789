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
use std::sync::mpsc::Sender;
use std::sync::{Once, OnceLock};
use std::thread::ThreadId;
use std::time::Duration;

use ratatui::crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};

use super::update::Msg;
use crate::target::mask_uri;

/// Whether the explorer owns the terminal (raw mode, alternate screen).
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// The thread running the UI loop.
static UI_THREAD: OnceLock<ThreadId> = OnceLock::new();
/// Strings never to print: the target's password, raw and decoded.
static SECRETS: OnceLock<Vec<String>> = OnceLock::new();

/// How long the loop has to finish after a signal before the signal
/// thread restores the terminal and exits by itself.
const GRACE: Duration = Duration::from_secs(3);

/// Takes the terminal: raw mode, alternate screen, mouse capture. The
/// returned guard gives it back when dropped.
pub fn enter() -> io::Result<Guard> {
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
pub fn restore() {
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
pub fn is_active() -> bool {
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
/// percent-decoded) so that no panic message shows it. Once per process.
pub fn keep_secrets_of(uri: &str) {
    let mut secrets = Vec::new();
    if let Some(pw) = crate::target::uri_password(uri) {
        secrets.push(pw);
    }
    if let Some(raw) = raw_password(uri) {
        secrets.push(raw.to_owned());
    }
    secrets.retain(|s| !s.is_empty());
    let _ = SECRETS.set(secrets);
}

/// The password of `scheme://user:password@hosts/…` as written.
fn raw_password(uri: &str) -> Option<&str> {
    let start = uri.find("://")? + 3;
    let rest = &uri[start..];
    let auth = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    let info = &auth[..auth.rfind('@')?];
    Some(info.split_once(':')?.1)
}

/// `text` with the password of every connection string in it, and every
/// kept secret, replaced by `****`.
pub fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("mongodb") {
        out.push_str(&rest[..i]);
        let from = &rest[i..];
        if from.starts_with("mongodb://") || from.starts_with("mongodb+srv://") {
            let end = from
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
                .unwrap_or(from.len());
            out.push_str(&mask_uri(&from[..end]));
            rest = &from[end..];
        } else {
            out.push_str("mongodb");
            rest = &from["mongodb".len()..];
        }
    }
    out.push_str(rest);
    for s in SECRETS.get().map_or(&[][..], Vec::as_slice) {
        out = out.replace(s.as_str(), "****");
    }
    out
}

fn on_ui_thread() -> bool {
    UI_THREAD
        .get()
        .is_some_and(|id| *id == std::thread::current().id())
}

/// The panic hook: restore, then one readable, scrubbed message (and a
/// backtrace when `RUST_BACKTRACE` asks for one).
pub fn install_panic_hook() {
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

/// What a caught panic's payload says, scrubbed.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    scrub(text)
}

/// SIGTERM, SIGINT, SIGHUP and SIGQUIT become `Msg::Signal`: the loop
/// quits cleanly and the process exits with 128 + the signal's number. If
/// the loop has not ended `GRACE` after the signal, or a second one comes,
/// this thread restores the terminal and exits by itself. Returns once the
/// handlers are installed, so a signal is never missed after that.
pub fn spawn_signals(tx: Sender<Msg>) {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), String>>();
    let spawned = std::thread::Builder::new()
        .name("docshape-signals".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(e.to_string()));
                    return;
                }
            };
            rt.block_on(async move {
                use tokio::signal::unix::{signal, SignalKind};
                let kinds = [
                    SignalKind::terminate(),
                    SignalKind::interrupt(),
                    SignalKind::hangup(),
                    SignalKind::quit(),
                ];
                let mut streams = Vec::with_capacity(kinds.len());
                for kind in kinds {
                    match signal(kind) {
                        Ok(s) => streams.push((s, kind.as_raw_value())),
                        Err(e) => {
                            let _ = ready_tx.send(Err(e.to_string()));
                            return;
                        }
                    }
                }
                let _ = ready_tx.send(Ok(()));
                let n = next_signal(&mut streams).await;
                tracing::info!(signal = n, "signal received, quitting");
                let _ = tx.send(Msg::Signal(n));
                tokio::select! {
                    () = tokio::time::sleep(GRACE) => {}
                    _ = next_signal(&mut streams) => {}
                }
                tracing::warn!(signal = n, "the loop did not end in time; exiting");
                restore();
                eprintln!("docshape: stopped by signal {n}");
                std::process::exit(128 + n);
            });
        });
    let ready = match spawned {
        Ok(_) => ready_rx
            .recv_timeout(Duration::from_secs(2))
            .unwrap_or_else(|e| Err(e.to_string())),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = ready {
        tracing::warn!("signals are not handled: {e}");
    }
}

/// The number of the next signal on any of `streams`.
async fn next_signal(streams: &mut [(tokio::signal::unix::Signal, i32)]) -> i32 {
    let waits = streams.iter_mut().map(|(s, n)| {
        let n = *n;
        Box::pin(async move {
            s.recv().await;
            n
        })
    });
    futures_util::future::select_all(waits).await.0
}

/// Test builds only: panics at `at` when `DOCSHAPE_INJECT_PANIC=at`, so the
/// tests can prove the terminal survives a panic there. `context` goes into
/// the message (the tests pass the unmasked target to prove the scrubbing).
#[cfg(debug_assertions)]
#[track_caller]
pub fn inject_panic(at: &str, context: &dyn std::fmt::Display) {
    static WHERE: OnceLock<Option<String>> = OnceLock::new();
    let wanted = WHERE.get_or_init(|| std::env::var("DOCSHAPE_INJECT_PANIC").ok());
    assert!(
        wanted.as_deref() != Some(at),
        "injected panic ({at}) while exploring {context}"
    );
}

/// Release builds: nothing.
#[cfg(not(debug_assertions))]
pub fn inject_panic(_at: &str, _context: &dyn std::fmt::Display) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrubs_connection_strings() {
        assert_eq!(
            scrub("cannot reach mongodb://app:s3cret@db:27017/x now"),
            "cannot reach mongodb://app:****@db:27017/x now"
        );
        assert_eq!(
            scrub("\"mongodb+srv://u:p%40ss@c.example.net/?tls=true\""),
            "\"mongodb+srv://u:****@c.example.net/?tls=true\""
        );
        assert_eq!(
            scrub("mongodb rocks, mongodb://h"),
            "mongodb rocks, mongodb://h"
        );
        assert_eq!(raw_password("mongodb://u:p%40ss@h/db"), Some("p%40ss"));
        assert_eq!(raw_password("mongodb://h/db?x=a:b@c"), None);
    }
}
