//! The loop: terminal events, worker messages and a render tick arrive on
//! one channel; each becomes a `Msg` for `update`, whose effects go to the
//! executor; a frame is drawn when something changed. Nothing here waits on
//! IO except the channel.

use std::io;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{self, DisableMouseCapture, EnableMouseCapture, Event};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::Terminal;

use super::effects::{Effect, Executor};
use super::model::Model;
use super::theme::Theme;
use super::update::{start_sampling, update, Msg};
use super::views;

/// How often progress is redrawn while nothing else happens.
const TICK: Duration = Duration::from_millis(100);

/// Leaves the alternate screen, raw mode and mouse capture. Safe to call
/// more than once.
pub fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// Restores the terminal when dropped: every return and unwinding panic.
struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Restores the terminal before the previous panic hook prints, so the
/// message lands on a usable screen.
fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal();
        tracing::error!("panic: {info}");
        previous(info);
    }));
}

/// Terminal events on their own thread, so the loop only waits on a channel.
fn spawn_input(tx: Sender<Msg>) {
    let _ = std::thread::Builder::new()
        .name("docshape-input".into())
        .spawn(move || loop {
            match event::read() {
                Ok(Event::Key(k)) => {
                    if tx.send(Msg::Key(k)).is_err() {
                        return;
                    }
                }
                Ok(Event::Mouse(m)) => {
                    if tx.send(Msg::Mouse(m)).is_err() {
                        return;
                    }
                }
                Ok(Event::Resize(w, h)) => {
                    if tx.send(Msg::Resize(w, h)).is_err() {
                        return;
                    }
                }
                Ok(_) => {}
                Err(_) => return,
            }
        });
}

/// SIGTERM and SIGHUP become a clean quit (the terminal is restored).
fn spawn_signals(tx: Sender<Msg>) {
    let _ = std::thread::Builder::new()
        .name("docshape-signals".into())
        .spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                use tokio::signal::unix::{signal, SignalKind};
                let (Ok(mut term), Ok(mut hup)) = (
                    signal(SignalKind::terminate()),
                    signal(SignalKind::hangup()),
                ) else {
                    return;
                };
                tokio::select! {
                    _ = term.recv() => {}
                    _ = hup.recv() => {}
                }
                let _ = tx.send(Msg::Terminate);
            });
        });
}

/// Runs the explorer until the user quits.
pub fn run_loop(
    mut model: Model,
    theme: &Theme,
    mut exec: Executor,
    rx: &Receiver<Msg>,
) -> io::Result<()> {
    install_panic_hook();
    enable_raw_mode()?;
    let _guard = Guard;
    let mut stdout = io::stdout();
    execute!(stdout, EnterAlternateScreen, EnableMouseCapture)?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    let size = terminal.size()?;
    model.size = (size.width, size.height);
    spawn_input(exec.tx.clone());
    spawn_signals(exec.tx.clone());
    let started = Instant::now();
    for fx in start_sampling(&mut model) {
        exec.run(fx, &mut stdout);
    }
    let mut dirty = true;
    let mut first = true;
    loop {
        if dirty || model.job.is_some() {
            let t = Instant::now();
            terminal.draw(|f| views::render(&model, theme, f))?;
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
            for fx in update(&mut model, msg) {
                let quit = fx == Effect::Quit;
                exec.run(fx, &mut stdout);
                if quit {
                    return Ok(());
                }
            }
        }
        if model.quit {
            return Ok(());
        }
        dirty = true;
    }
    Ok(())
}

/// A channel for the loop.
pub fn channel() -> (Sender<Msg>, Receiver<Msg>) {
    mpsc::channel()
}
