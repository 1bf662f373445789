//! The command line: each command run from its parsed arguments, and what
//! they share (the plan of a run, the configuration file, the output, the
//! progress line). Failures here are sentences for the user ([`Fatal`]).

pub mod args;
mod audit;
mod class;
mod config;
mod diff;
mod explore;
mod lesson;
mod output;
mod password;
mod plan;
mod progress;
mod run;
mod schema;

pub use class::run_class;
pub use diff::run_diff;
pub use explore::run_explorer;
pub use lesson::run_lesson;
pub use progress::clear_progress;
pub use schema::run_schema;

use std::process::ExitCode;

use crate::source::SourceError;

/// `docshape audit`: the report, or with `--baseline FILE` what changed
/// since the report in FILE.
pub async fn run_audit(a: args::AuditArgs) -> Result<ExitCode, Fatal> {
    match &a.baseline {
        Some(baseline) => diff::against_baseline(&a, baseline).await,
        None => audit::run_audit(a).await,
    }
}

/// `docshape seed`: the teaching data sets written to a server.
pub async fn run_seed(s: args::SeedArgs) -> Result<ExitCode, Fatal> {
    crate::seed::run(s.into())
        .await
        .map(|()| ExitCode::SUCCESS)
        .map_err(|e| Fatal(e.to_string()))
}

/// A failure the user must see: one sentence, exit code 2.
pub struct Fatal(pub String);

impl From<SourceError> for Fatal {
    fn from(e: SourceError) -> Self {
        Fatal(e.to_string())
    }
}
