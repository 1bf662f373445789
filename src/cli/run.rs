//! What `audit`, `diff` and `audit --baseline` share: a target opened and
//! profiled as the plan selects, and the exit code a run ends with.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::args::{Common, FailOn};
use super::config::Settings;
use super::plan::plan;
use super::progress::{clear_progress, progress_printer};
use super::Fatal;
use crate::audit::{self, Plan, Progress};
use crate::report::{self, CollectionReport, Report};
use crate::source::Source;
use crate::target::{self, Origin};

/// Where a run hands each judged collection, with the report's head.
type JudgedOut<'a> = dyn FnMut(&Report, CollectionReport) + 'a;

/// Opens the target and profiles what the plan selects; with `out`, each
/// judged collection goes there as it comes, not into the report.
pub(crate) async fn profile(
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

/// 1 when `worst` is at or above `fail_on`, else 0.
pub(crate) fn exit_code(fail_on: FailOn, worst: Option<crate::rules::Severity>) -> ExitCode {
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
pub(crate) fn unreadable_parts(report: &Report) -> bool {
    for e in &report.errors {
        eprintln!("docshape: {}", report::text::safe(&e.message));
    }
    !report.errors.is_empty()
}
