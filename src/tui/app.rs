//! The loop: terminal events, worker messages and a render tick arrive on
//! one channel; each becomes a `Msg` for `update`, whose effects go to the
//! executor; a frame is drawn when something changed. Nothing here waits on
//! IO except the channel.

use std::io;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, Event};
use ratatui::Terminal;

use super::effects::{Effect, Executor};
use super::model::Model;
use super::terminal::{self, inject_panic};
use super::theme::Theme;
use super::update::{start_sampling, update, Msg};
use super::views;

/// How often progress is redrawn while nothing else happens.
const TICK: Duration = Duration::from_millis(100);

/// Why the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The user quit.
    Quit,
    /// A signal (its number) asked the explorer to stop.
    Signal(i32),
}

impl Exit {
    /// The process's exit status: 0, or 128 + the signal's number as a
    /// shell reports a process stopped by that signal.
    pub fn code(self) -> u8 {
        match self {
            Exit::Quit => 0,
            Exit::Signal(n) => u8::try_from(128 + n).unwrap_or(u8::MAX),
        }
    }
}

/// Terminal events on their own thread, so the loop only waits on a channel.
/// When the terminal can no longer be read the loop is told, instead of
/// running on deaf.
fn spawn_input(tx: Sender<Msg>) {
    let _ = std::thread::Builder::new()
        .name("docshape-input".into())
        .spawn(move || loop {
            let msg = match event::read() {
                Ok(Event::Key(k)) => Msg::Key(k),
                Ok(Event::Mouse(m)) => Msg::Mouse(m),
                Ok(Event::Resize(w, h)) => Msg::Resize(w, h),
                Ok(_) => continue,
                Err(e) => {
                    let _ = tx.send(Msg::InputFailed(e.to_string()));
                    return;
                }
            };
            if tx.send(msg).is_err() {
                return;
            }
        });
}

/// Runs the explorer until the user quits or a signal stops it. The
/// terminal is restored on every way out.
pub fn run_loop(
    mut model: Model,
    theme: &Theme,
    mut exec: Executor,
    rx: &Receiver<Msg>,
) -> io::Result<Exit> {
    // Before the terminal changes, so that no signal finds it changed and
    // unhandled.
    terminal::spawn_signals(exec.tx.clone());
    let _guard = terminal::enter()?;
    let mut stdout = io::stdout();
    let mut term = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    term.clear()?;
    let size = term.size()?;
    model.size = (size.width, size.height);
    spawn_input(exec.tx.clone());
    // What an injected panic quotes (test builds): the target unmasked, so
    // the tests see that the panic hook masks it.
    let unmasked = match &exec.target {
        crate::target::Target::Mongo(uri) => uri.clone(),
        crate::target::Target::Path(p) => p.display().to_string(),
    };
    let started = Instant::now();
    for fx in start_sampling(&mut model) {
        exec.run(fx, &mut stdout);
    }
    let mut exit = Exit::Quit;
    let mut input_error = None;
    let mut dirty = true;
    let mut first = true;
    let mut done = false;
    while !done {
        if dirty || model.job.is_some() {
            let t = Instant::now();
            term.draw(|f| {
                views::render(&model, theme, f);
                inject_panic("draw", &unmasked);
            })?;
            if first {
                tracing::info!(elapsed = ?started.elapsed(), "first frame");
                first = false;
            }
            tracing::trace!(render = ?t.elapsed(), "frame");
            dirty = false;
        }
        let msg = match rx.recv_timeout(TICK) {
            Ok(m) => m,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let mut batch = vec![msg];
        // Drain what is already waiting so a burst of progress costs one frame.
        while let Ok(m) = rx.try_recv() {
            batch.push(m);
            if batch.len() > 256 {
                break;
            }
        }
        for msg in batch {
            match &msg {
                Msg::Key(_) => inject_panic("key", &unmasked),
                Msg::Signal(n) => exit = Exit::Signal(*n),
                Msg::InputFailed(e) => input_error = Some(e.clone()),
                _ => {}
            }
            let mut quit = false;
            for fx in update(&mut model, msg) {
                quit |= fx == Effect::Quit;
                exec.run(fx, &mut stdout);
            }
            if quit || model.quit {
                done = true;
                break;
            }
        }
        dirty = true;
    }
    tracing::info!(?exit, "explorer stopped");
    match input_error {
        Some(e) => Err(io::Error::other(format!("cannot read the terminal: {e}"))),
        None => Ok(exit),
    }
}

/// A channel for the loop.
pub fn channel() -> (Sender<Msg>, Receiver<Msg>) {
    mpsc::channel()
}
