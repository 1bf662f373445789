//! The `docshape` command line: its arguments, parsed, and the command
//! they name, run (the commands themselves are `docshape::cli`).

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use docshape::cli::args::{Cli, Command};
use docshape::cli::{self, Fatal};

fn main() -> ExitCode {
    let parsed = match Cli::try_parse() {
        Ok(parsed) => parsed,
        // Usage errors: one sentence and exit 2, as for every other error.
        Err(e) if e.use_stderr() => {
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            let first = first.strip_prefix("error: ").unwrap_or(first);
            eprintln!("docshape: {first} (see docshape --help)");
            return ExitCode::from(2);
        }
        // --help and --version.
        Err(e) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    // The explorer runs on its own runtime (the loop, its tasks and its
    // blocking pool); every other command on one thread.
    let explorer = parsed.command.is_none();
    let built = if explorer {
        docshape::tui::runtime()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    };
    let rt = match built {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("docshape: cannot start: {e}");
            return ExitCode::from(2);
        }
    };
    let result = rt.block_on(async {
        match parsed.command {
            Some(Command::Audit(a)) => cli::run_audit(a).await,
            Some(Command::Schema(s)) => cli::run_schema(s).await,
            Some(Command::Seed(s)) => cli::run_seed(s).await,
            Some(Command::Lesson(l)) => cli::run_lesson(l).await,
            Some(Command::Diff(d)) => cli::run_diff(&d).await,
            Some(Command::Class(c)) => cli::run_class(c).await,
            None => cli::run_explorer(parsed.explore).await,
        }
    });
    if explorer {
        // Short writes (the query history) get a moment to finish; a
        // sampling run or a file scan still going on the blocking pool is
        // abandoned: the user has left.
        rt.shutdown_timeout(Duration::from_millis(250));
    }
    match result {
        Ok(code) => code,
        Err(Fatal(msg)) => {
            cli::clear_progress();
            eprintln!("docshape: {msg}");
            ExitCode::from(2)
        }
    }
}
