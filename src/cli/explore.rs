//! The interactive explorer (`docshape` without a command).

use std::process::ExitCode;
use std::time::Duration;

use super::args::ExploreArgs;
use super::config::Settings;
use super::plan::{plan, read_workload};
use super::Fatal;

pub async fn run_explorer(e: ExploreArgs) -> Result<ExitCode, Fatal> {
    let settings = Settings::read(&e.common)?;
    let mut plan = plan(&e.common, &settings)?;
    plan.workload = read_workload(&e.common)?.map(std::sync::Arc::new);
    let opts = crate::tui::Options {
        target: settings.target(&e.common)?,
        plan,
        timeout: Duration::from_secs(e.common.timeout),
        theme: e.theme,
        config: settings.into_file(),
    };
    // A signal (SIGTERM, SIGINT, SIGHUP, SIGQUIT) ends the explorer cleanly
    // with 128 + its number, as a shell reports a process it stopped.
    let exit = crate::tui::run(opts)
        .await
        .map_err(|e| Fatal(e.to_string()))?;
    Ok(ExitCode::from(exit.code()))
}
