//! `docshape audit`: profile the selected collections and write the
//! report in the format asked for.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::args::{AuditArgs, Common, FailOn};
use super::config::Settings;
use super::output::{open, written};
use super::plan::{plan, read_workload, workload_from_profile};
use super::run::{exit_code, profile, unreadable_parts};
use super::Fatal;
use crate::audit;
use crate::report::{self, CollectionReport, Report};
use crate::target::{self, Origin, Target};

/// `audit --workload profile` with no target: the profiler of the server
/// the default target finds (`$MONGODB_URI`, or one on 127.0.0.1:27017),
/// as a workload-only report, as for a log read without its target.
async fn profiler_only(c: &Common) -> Result<Report, Fatal> {
    let plan = plan(c, &Settings::read(c)?)?;
    let (target, origin) = target::resolve(None).await;
    let Target::Mongo(uri) = &target else {
        return Err(Fatal(
            "--workload profile reads a server's profiler, and no target was given, $MONGODB_URI is not set and no server answers on 127.0.0.1:27017".into(),
        ));
    };
    if origin == Origin::EnvUri {
        eprintln!(
            "docshape: reading the profiler of $MONGODB_URI ({})",
            target.label()
        );
    } else {
        eprintln!(
            "docshape: no target given; reading the profiler of {}",
            target.label()
        );
    }
    let src = crate::target::connect(uri, Duration::from_secs(c.timeout)).await?;
    Ok(audit::profiled_workload_only(&src, &plan, target.label()).await?)
}

/// The report (without `--baseline`).
pub async fn run_audit(a: AuditArgs) -> Result<ExitCode, Fatal> {
    let workload = read_workload(&a.common)?;
    let color = a.output.is_none()
        && std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut writer = report::writer(
        a.format,
        report::Options {
            color,
            open: open(a.output.clone()),
        },
    );
    // The first failure to write; the collections after it are still
    // counted, for the exit code.
    let mut failed = None;
    let report = match (workload, a.common.target.is_some()) {
        (Some(w), false) => {
            let label = a
                .common
                .workload
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            audit::workload_only(&plan(&a.common, &Settings::read(&a.common)?)?, label, w)
        }
        (None, false) if workload_from_profile(&a.common) => profiler_only(&a.common).await?,
        (w, _) => {
            let mut out = |head: &Report, c: CollectionReport| {
                if let Err(e) = writer.collection(head, c) {
                    failed.get_or_insert(e);
                }
            };
            profile(&a.common, w.map(Arc::new), Some(&mut out)).await?
        }
    };
    let worst = report.worst().max(writer.worst());
    let result = match failed {
        Some(e) => Err(e),
        None => writer.finish(&report),
    };
    written(result, a.output.as_deref())?;
    if unreadable_parts(&report) {
        return Ok(ExitCode::from(2));
    }
    Ok(exit_code(a.fail_on.unwrap_or(FailOn::Critical), worst))
}
