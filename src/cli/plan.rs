//! The plan of a run, from the arguments every reading command shares.

use super::args::Common;
use super::config::Settings;
use super::Fatal;
use crate::audit::Plan;
use crate::i18n::Lang;
use crate::source::{SampleMode, Selection};

/// The plan of a run: what to read, how, and how to judge it.
pub(crate) fn plan(c: &Common, settings: &Settings) -> Result<Plan, Fatal> {
    let mut plan = Plan::new(
        Selection {
            dbs: c.dbs.clone(),
            collections: c.collections.clone(),
        },
        if c.full {
            SampleMode::Full
        } else {
            SampleMode::Sample(c.sample)
        },
    );
    plan.snapshots = if c.no_snapshot {
        None
    } else {
        crate::growth::snapshot::dir()
    };
    plan.thresholds = settings.thresholds(c)?;
    plan.lang = c.lang.unwrap_or_else(Lang::from_env);
    plan.in_flight = Some(c.concurrency);
    plan.memory = c.memory << 20;
    plan.extremes = !c.no_extremes;
    plan.workload_profile = workload_from_profile(c);
    Ok(plan)
}

/// `--workload profile`: the server's profiler, read by the run itself
/// (a log file named `profile` is given as `./profile`).
pub(crate) fn workload_from_profile(c: &Common) -> bool {
    c.workload.as_deref() == Some(std::path::Path::new(crate::workload::profile::PROFILE))
}

/// The workload of `--workload LOG|DIR`, read before any target is
/// opened (`profile` is read by the run, once connected).
pub(crate) fn read_workload(c: &Common) -> Result<Option<crate::workload::Workload>, Fatal> {
    if workload_from_profile(c) {
        return Ok(None);
    }
    c.workload
        .as_deref()
        .map(|p| crate::workload::read_logs(p).map_err(|e| Fatal(e.to_string())))
        .transpose()
}
