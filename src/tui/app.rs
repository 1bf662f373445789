//! The loop, on the explorer's one tokio runtime: it `select!`s over the
//! terminal's events, the executor's messages, a render tick and the
//! stopping signals; each becomes a `Msg` for `update`, whose effects go
//! to the executor; a frame is drawn when something changed. Nothing here
//! waits on anything but that `select!`.

use std::io;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{Event, EventStream};
use ratatui::Terminal;
use tokio::sync::mpsc::UnboundedReceiver;

use super::effects::Effect;
use super::executor::Executor;
use super::model::Model;
use super::msg::Msg;
use super::terminal::{self, inject_panic, Signals};
use super::theme::Theme;
use super::update::{start_sampling, update};
use super::views;

/// How often progress is redrawn while nothing else happens.
const TICK: Duration = Duration::from_millis(100);
/// Messages handled before a frame is drawn, at most: a burst of progress
/// costs one frame, and keys still get one soon.
const BATCH: usize = 256;

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
    pub(crate) fn code(self) -> u8 {
        match self {
            Exit::Quit => 0,
            Exit::Signal(n) => u8::try_from(128 + n).unwrap_or(u8::MAX),
        }
    }
}

/// A terminal event as a message; `None` for those the explorer ignores.
fn from_event(e: Option<io::Result<Event>>) -> Option<Msg> {
    match e {
        Some(Ok(Event::Key(k))) => Some(Msg::Key(k)),
        Some(Ok(Event::Mouse(m))) => Some(Msg::Mouse(m)),
        Some(Ok(Event::Resize(w, h))) => Some(Msg::Resize(w, h)),
        Some(Ok(_)) => None,
        // The terminal can no longer be read: the loop is told, instead of
        // running on deaf.
        Some(Err(e)) => Some(Msg::InputFailed(e.to_string())),
        None => Some(Msg::InputFailed("the terminal's events ended".into())),
    }
}

/// Runs the explorer until the user quits or a signal stops it. The
/// terminal is restored on every way out. Must run on the runtime the
/// executor spawns on.
pub(crate) async fn run_loop(
    mut model: Model,
    theme: &Theme,
    mut exec: Executor,
    mut rx: UnboundedReceiver<Msg>,
) -> io::Result<Exit> {
    // Before the terminal changes, so that no signal finds it changed and
    // unhandled.
    let mut signals = Signals::install().unwrap_or_else(|e| {
        tracing::warn!("signals are not handled: {e}");
        Signals::none()
    });
    let _guard = terminal::enter()?;
    let mut stdout = io::stdout();
    let mut term = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    term.clear()?;
    let size = term.size()?;
    model.size = (size.width, size.height);
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
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
    // Collections arrived since the last frame, logged once drawn.
    let mut arrived: Vec<String> = Vec::new();
    loop {
        if dirty {
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
            for namespace in arrived.drain(..) {
                tracing::debug!(%namespace, "collection drawn");
            }
        }
        let mut batch = Vec::new();
        tokio::select! {
            n = signals.next() => batch.push(Msg::Signal(n)),
            e = events.next() => batch.extend(from_event(e)),
            m = rx.recv() => match m {
                Some(m) => batch.push(m),
                // Every sender is gone: nothing more can happen.
                None => break,
            },
            _ = tick.tick() => {
                // Progress moves while a run goes on.
                dirty = model.job.is_some();
                continue;
            }
        }
        // Drain what is already waiting so a burst of progress costs one
        // frame.
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(m) => batch.push(m),
                Err(_) => break,
            }
        }
        let mut done = false;
        for msg in batch {
            match &msg {
                Msg::Key(_) => inject_panic("key", &unmasked),
                Msg::Signal(n) => {
                    tracing::info!(signal = n, "signal received, quitting");
                    exit = Exit::Signal(*n);
                }
                Msg::InputFailed(e) => input_error = Some(e.clone()),
                Msg::Arrived { collection, .. } => arrived.push(collection.namespace.clone()),
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
        if done {
            break;
        }
        dirty = true;
    }
    tracing::info!(?exit, "explorer stopped");
    match input_error {
        Some(e) => Err(io::Error::other(format!("cannot read the terminal: {e}"))),
        None => Ok(exit),
    }
}
