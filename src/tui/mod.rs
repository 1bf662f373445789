//! The interactive explorer: `docshape [TARGET]`.
//!
//! Elm-like: `model` is plain data, grouped by tab; `update` turns a `Msg`
//! into a new model and a list of `effects::Effect`s (plain data), a module
//! per tab; `views` draw the model and never mutate it; `executor` runs the
//! effects as tasks on the explorer's one tokio runtime ([`runtime`]);
//! `app` is the loop on that runtime, `select!`ing over terminal events,
//! messages, a tick and signals; `terminal` owns the terminal's state (and
//! every way back to a usable one: guard, panic hook, signals). Everything
//! but `app`, `terminal` and the executor is tested without a terminal.

// Views follow ratatui's conventions: `f` the frame, `m` the model, `w`/`h`
// the sizes of the area being drawn.
#![allow(clippy::many_single_char_names)]

pub mod app;
pub mod detail;
pub mod effects;
pub mod executor;
pub mod export;
pub mod failure;
pub mod history;
pub mod keymap;
pub mod layout;
pub mod model;
pub mod msg;
pub mod picker;
pub mod querybar;
pub mod terminal;
pub mod theme;
pub mod update;
pub mod views;

use std::path::PathBuf;
use std::time::Duration;

use crate::audit::Plan;
use crate::config::Config;
use crate::target::{self, Origin};

/// What the command line hands the explorer.
pub struct Options {
    pub target: Option<String>,
    pub plan: Plan,
    pub timeout: Duration,
    /// `--theme NAME|PATH`; else `theme = …` in the configuration file.
    pub theme: Option<String>,
    /// The configuration file, as the command line read it (`[keys]`,
    /// `theme`).
    pub config: Option<(PathBuf, Config)>,
}

/// Why the explorer could not start, or stopped on an error of the
/// terminal (its `Display` the sentence `main` prints).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("the explorer needs a terminal; use `docshape audit` for a report")]
    NoTerminal,
    /// The configuration file's `[keys]` name an unknown action or a key
    /// without a name: each mistake, in its words.
    #[error("{}: {}", path.display(), problems.join("; "))]
    Keys {
        path: PathBuf,
        problems: Vec<String>,
    },
    /// The theme named on the command line cannot be used.
    #[error("{0}")]
    Theme(#[from] theme::ThemeError),
    #[error("terminal error: {0}")]
    Terminal(#[source] std::io::Error),
}

/// The configuration (as the command line read it) and the keymap its
/// `[keys]` make. An unknown action or a key without a name stops the
/// explorer with the reason, as a mistake in the thresholds stops `audit`.
fn read_config(file: Option<(PathBuf, Config)>) -> Result<(Config, keymap::Keymap), RunError> {
    let Some((path, config)) = file else {
        return Ok((Config::default(), keymap::Keymap::default()));
    };
    let (keymap, problems) = keymap::Keymap::with_section(&config.keys);
    if !problems.is_empty() {
        return Err(RunError::Keys { path, problems });
    }
    Ok((config, keymap))
}

/// Logs go to the file named by `$DOCSHAPE_LOG`, never to the screen.
fn init_logging() {
    let Some(path) = std::env::var_os("DOCSHAPE_LOG").filter(|p| !p.is_empty()) else {
        return;
    };
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    else {
        return;
    };
    let level = std::env::var("DOCSHAPE_LOG_LEVEL")
        .ok()
        .and_then(|l| l.parse::<tracing::Level>().ok())
        .unwrap_or(tracing::Level::INFO);
    let _ = tracing_subscriber::fmt()
        .with_writer(std::sync::Mutex::new(file))
        .with_ansi(false)
        .with_max_level(level)
        .try_init();
}

/// The explorer's one runtime: the loop runs on the thread that blocks on
/// it, its tasks (queries, connections, the signal watchdog) on two
/// workers, and the work that keeps a core busy (a sampling run, a file
/// scan) on its blocking pool.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("docshape-rt")
        .enable_all()
        .build()
}

/// Runs the explorer until the user quits or a signal stops it. The
/// terminal is restored on every way out. Runs on [`runtime`].
pub(crate) async fn run(opts: Options) -> Result<app::Exit, RunError> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return Err(RunError::NoTerminal);
    }
    init_logging();
    let config_file = opts
        .config
        .as_ref()
        .map(|(path, c)| (path.clone(), c.connections.clone()));
    let (config, keymap) = read_config(opts.config)?;
    // A theme named on the command line that cannot be used is a typo to
    // fix now, not a line in the status bar; one from the config file only
    // warns, so a stale theme never locks the explorer.
    if let Some(asked) = opts.theme.as_deref() {
        theme::Theme::named(asked)?;
    }
    let (theme, theme_warning) =
        theme::Theme::load(opts.theme.as_deref().or(config.theme.as_deref()));
    let mut warnings: Vec<String> = theme_warning.into_iter().collect();
    let (target, origin) = target::resolve(opts.target.as_deref()).await;
    if let target::Target::Mongo(uri) = &target {
        terminal::keep_secrets_of(uri);
    }
    terminal::install_panic_hook();
    match origin {
        Origin::BundledSample => warnings.push(format!(
            "no target given, no $MONGODB_URI and no server on 127.0.0.1:27017; reading the bundled sample data in {}",
            target.label()
        )),
        Origin::LocalServer | Origin::EnvUri | Origin::Given => {}
    }
    tracing::info!(target = %target.label(), "explorer starting");
    let sample = match opts.plan.mode {
        crate::source::SampleMode::Sample(n) => n,
        crate::source::SampleMode::Full => 1000,
    };
    let mut model = model::Model::new(target.label(), sample, keymap);
    model.warnings = warnings;
    // `--lang` (else the locale) for the explorer's words, the findings and
    // the lessons alike.
    model.lang = opts.plan.lang;
    model.learn.lang = opts.plan.lang;
    // The queries of earlier sessions on this target; the connections the
    // picker offers: the saved ones and those used lately (this one joins
    // them once it has been read).
    let (saved, file) = config_file
        .map(|(path, connections)| (connections, path.display().to_string()))
        .unwrap_or_default();
    let mut recent = Vec::new();
    if let Some(dir) = crate::paths::state_dir() {
        model.docs.query.history = history::load(&dir, &model.target);
        recent = picker::load_recent(&dir);
    }
    model.picker = picker::Picker::new(saved, file, recent);
    model.picker.reading = Some(picker::remembered(&target));
    let (tx, rx) = executor::channel();
    let rt = tokio::runtime::Handle::current();
    let exec = executor::Executor::new(rt, target, opts.plan, opts.timeout, tx);
    app::run_loop(model, &theme, exec, rx)
        .await
        .map_err(RunError::Terminal)
}

#[cfg(test)]
mod tests {
    use super::read_config;
    use crate::config::{load, Config};
    use std::path::{Path, PathBuf};

    /// `text` as the configuration file the command line read, its
    /// thresholds checked as the command line checks them.
    fn file(
        path: &Path,
        text: &str,
    ) -> Result<Option<(PathBuf, Config)>, crate::config::ConfigError> {
        std::fs::write(path, text).expect("write");
        let config = load(path)?;
        let shown = path.display().to_string();
        crate::rules::Thresholds::from_section(&config.rules, &shown, None)?;
        Ok(Some((path.to_owned(), config)))
    }

    #[test]
    fn a_bad_configuration_stops_the_explorer_with_the_reason() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("docshape.toml");
        // Mistakes in the keys the explorer turns into its keymap.
        for (text, needle) in [
            ("[keys]\nquiet = \"x\"\n", "unknown action `quiet`"),
            (
                "[keys]\nquit = \"nonsense\"\n",
                "cannot read the key for `quit`",
            ),
        ] {
            let read = file(&path, text).expect("the file reads");
            let e = read_config(read).map(|_| ()).expect_err(text).to_string();
            assert!(e.starts_with(&path.display().to_string()), "{e}");
            assert!(e.contains(needle), "{text}: {e}");
        }
        // Mistakes the one reading of the file already stops at.
        for (text, needle) in [
            ("them = \"light\"\n", "unknown key `them`"),
            ("theme = 1\n", "expected a string"),
            ("[keys\n", "not valid TOML"),
        ] {
            let e = file(&path, text).map(|_| ()).expect_err(text).to_string();
            assert!(e.starts_with(&path.display().to_string()), "{e}");
            assert!(e.contains(needle), "{text}: {e}");
        }
        let e = load(&dir.path().join("none.toml"))
            .map(|_| ())
            .expect_err("unreadable")
            .to_string();
        assert!(e.starts_with("cannot read"), "{e}");
        let read = file(&path, "theme = \"light\"\n[keys]\nquit = \"x\"\n").expect("valid");
        let (config, keymap) = read_config(read).expect("valid");
        assert_eq!(config.theme.as_deref(), Some("light"));
        assert_eq!(keymap.label(super::keymap::Action::Quit), "x");
    }
}
