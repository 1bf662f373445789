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
use super::progress::{clear_progress, progress_printer};
use super::Fatal;
use crate::audit::{self, Plan, Progress};
use crate::report::{self, CollectionReport, Report};
use crate::source::Source;
use crate::target::{self, Origin, Target};

/// Where a run hands each judged collection, with the report's head.
type JudgedOut<'a> = dyn FnMut(&Report, CollectionReport) + 'a;

/// Opens the target and profiles what the plan selects; with `out`, each
/// judged collection goes there as it comes, not into the report.
pub async fn profile(
    c: &Common,
    workload: Option<Arc<crate::workload::Workload>>,
    mut out: Option<&mut JudgedOut<'_>>,
) -> Result<Report, Fatal> {
    let settings = Settings::read(c)?;
    let mut plan = plan(c, &settings)?;
    plan.workload = workload;
    let given = settings.target(c)?;
    let (target, origin) = target::resolve(given.as_deref()).await;
    match origin {
        Origin::BundledSample => eprintln!(
            "docshape: no target given, no $MONGODB_URI and no server on 127.0.0.1:27017; reading the bundled sample data in {}",
            target.label()
        ),
        Origin::LocalServer => eprintln!("docshape: no target given; reading {}", target.label()),
        Origin::EnvUri => eprintln!("docshape: reading $MONGODB_URI ({})", target.label()),
        Origin::Given => {}
    }
    let mut show = progress_printer();
    let options = target::OpenOptions {
        timeout: Duration::from_secs(c.timeout),
        mode: plan.mode,
    };
    let mut src = target::open(&target, &options).await?;
    let report = run(&mut src, &plan, &mut show, out.take()).await?;
    clear_progress();
    Ok(report)
}

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

async fn run<S: Source>(
    src: &mut S,
    plan: &Plan,
    show: &mut dyn FnMut(&Progress<'_>),
    out: Option<&mut JudgedOut<'_>>,
) -> Result<Report, Fatal> {
    Ok(match out {
        Some(out) => audit::run_into(src, plan, show, out).await?,
        None => audit::run(src, plan, show).await?,
    })
}

pub async fn run_audit(a: AuditArgs) -> Result<ExitCode, Fatal> {
    if let Some(baseline) = &a.baseline {
        return super::diff::against_baseline(&a, baseline).await;
    }
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

/// 1 when `worst` is at or above `fail_on`, else 0.
pub fn exit_code(fail_on: FailOn, worst: Option<crate::rules::Severity>) -> ExitCode {
    let threshold = match fail_on {
        FailOn::Info => Some(crate::rules::Severity::Info),
        FailOn::Warning => Some(crate::rules::Severity::Warning),
        FailOn::Critical => Some(crate::rules::Severity::Critical),
        FailOn::Never => None,
    };
    let failed = matches!((threshold, worst), (Some(t), Some(w)) if w >= t);
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Each part of the target that could not be read, on stderr, one
/// sentence each; true when there was one (then the exit code is 2, once
/// the report is written).
pub fn unreadable_parts(report: &Report) -> bool {
    for e in &report.errors {
        eprintln!("docshape: {}", report::text::safe(&e.message));
    }
    !report.errors.is_empty()
}
