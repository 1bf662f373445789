//! The data's journey for one run: source → sample → profile → growth and
//! relationships → report. The CLI and the explorer both go through here,
//! so they always agree.
//!
//! A run is a sequence of stages over one state ([`stages`]): what it
//! reads is its [`Plan`], how it is steered while it goes its
//! [`Control`]. Memory follows the budget whatever the number of
//! collections ([`budget`]): as each collection is read ([`reading`]) its
//! cross-section growth is measured and its profile's paths go on the
//! run's shelf (`profile::shelf`: compact, on disk past the shelf's
//! share), so that while the others are read and the relationship stage
//! looks at them all, a collection holds its kept documents (its share of
//! half the budget) and little else. The rules then take the collections
//! back a window at a time and hand each one, judged, to the caller in the
//! listing's order ([`run_into`], [`judging`]): the JSON report is written
//! as they come.

use std::time::Duration;

use crate::i18n::Lang;
use crate::report::{CollectionReport, Report, Sampling};
use crate::rules;
use crate::source::{Insight, SampleMode, Source, SourceError};

pub mod budget;
pub mod collection;
pub mod control;
mod judging;
pub mod plan;
pub mod reading;
mod stages;

pub use crate::source::KEEP_FULL;
pub use budget::{keep_share, shelf_share, KEEP_BYTES, MEMORY_MIB};
pub use collection::Collection;
pub use control::{ended_early_note, Control};
pub use judging::early_findings;
pub use plan::Plan;
pub use reading::profile_collection;
pub use stages::check_index_fields;

/// Most documents a collection keeps when read in `mode`
/// ([`SampleMode::kept_at_most`]).
pub(crate) fn kept_at_most(mode: SampleMode) -> u64 {
    mode.kept_at_most()
}

/// What a run is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reading the server's profiler (`--workload profile`).
    Workload,
    /// Listing the collections to read.
    Listing,
    /// Reading and profiling collections.
    Sampling,
    /// Looking for indexed fields the sample lacks.
    Indexes,
    /// Measuring how arrays grow.
    Growth,
    /// Looking for references between collections.
    Relationships,
    /// Judging each collection by the rules.
    Rules,
}

impl Stage {
    pub(crate) fn name(self, lang: Lang) -> &'static str {
        match self {
            Stage::Workload => lang.pick("reading the profiler", "读取性能分析器"),
            Stage::Listing => lang.pick("listing", "列出集合"),
            Stage::Sampling => lang.pick("sampling", "采样"),
            Stage::Indexes => lang.pick("indexes", "检查索引"),
            Stage::Growth => lang.pick("growth", "测量增长"),
            Stage::Relationships => lang.pick("relationships", "查找关系"),
            Stage::Rules => lang.pick("rules", "应用规则"),
        }
    }
}

/// Progress of a run, reported a few times a second while a collection is
/// read, once when each collection is finished (with its profile), and
/// once as each later stage begins.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    pub stage: Stage,
    /// A collection just finished: profiled, not yet judged (no findings,
    /// no relationships). Reported in the listing's order.
    pub finished: Option<&'a Collection>,
    pub namespace: &'a str,
    /// Index of this collection and how many there are.
    pub position: (usize, usize),
    pub documents: u64,
    /// Documents expected, when known.
    pub expected: Option<u64>,
    pub elapsed: Duration,
    /// The collection `namespace` has just been read (once per collection,
    /// before it is profiled to the end and reported as `finished`).
    pub done: bool,
}

impl Progress<'_> {
    pub(crate) fn rate(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.documents as f64 / s
        } else {
            0.0
        }
    }
}

/// Profiles every selected collection of `source`, then measures growth and
/// relationships.
///
/// A collection that cannot be read (a damaged file, a collection the user
/// may not read) is listed in the report's `errors` and the others are
/// reported; only when it was the one collection selected is its error the
/// run's. A server that is gone or refuses us ends the run.
pub async fn run<S: Source>(
    source: &mut S,
    plan: &Plan,
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<Report, SourceError> {
    run_with(source, plan, Control::new(progress)).await
}

/// As [`run`], steered by `control`: stopped when its flag is set, keeping
/// what was read when the server goes away if it says so (the explorer).
pub async fn run_with<S: Source>(
    source: &mut S,
    plan: &Plan,
    control: Control<'_>,
) -> Result<Report, SourceError> {
    let mut judged = Vec::new();
    let mut report = run_into_with(source, plan, control, &mut |_, c| judged.push(c)).await?;
    report.collections = judged;
    Ok(report)
}

/// As [`run`], handing each judged collection to `out` as soon as it is
/// ready, in the listing's order, with the report's head (its target,
/// time and sampling; no collection yet), instead of holding them all: the
/// report returned has no collections. Nothing is handed out before every
/// question to the source has been answered, so a run that fails hands out
/// nothing.
pub(crate) async fn run_into<S: Source>(
    source: &mut S,
    plan: &Plan,
    progress: &mut dyn FnMut(&Progress<'_>),
    out: &mut dyn FnMut(&Report, CollectionReport),
) -> Result<Report, SourceError> {
    run_into_with(source, plan, Control::new(progress), out).await
}

/// As [`run_into`], steered by `control` (see [`run_with`]).
pub(crate) async fn run_into_with<S: Source>(
    source: &mut S,
    plan: &Plan,
    mut control: Control<'_>,
    out: &mut dyn FnMut(&Report, CollectionReport),
) -> Result<Report, SourceError> {
    if let Some(n) = plan.in_flight {
        source.set_in_flight(n);
    }
    let control = &mut control;
    let mut run = stages::Run::new(plan);
    run.workload(source, control).await?;
    let metas = run.listing(source, control).await?;
    run.read(source, metas, control).await?;
    run.check_indexes(source, control).await?;
    run.gridfs(source).await?;
    run.growth(source, control).await?;
    run.relationships(source, control).await?;
    Ok(run.judge(source, control, out))
}

/// A report of a server's profiler alone (`audit --workload profile` with no
/// target, read from the default server): the query shapes and their plans,
/// no collection read.
pub async fn profiled_workload_only<S: Insight>(
    source: &S,
    plan: &Plan,
    label: String,
) -> Result<Report, SourceError> {
    let mut notes = Vec::new();
    let workload = stages::profiled_workload(source, plan, &mut notes).await?;
    let mut r = workload_only(plan, label, workload);
    r.notes.extend(notes);
    Ok(r)
}

/// A report of the workload alone (`audit --workload LOG` with no target):
/// no collection read, the query shapes and their plans.
pub fn workload_only(plan: &Plan, label: String, workload: crate::workload::Workload) -> Report {
    let mut r = Report::empty(
        label,
        Sampling {
            mode: "none",
            size: None,
        },
        rules_used(plan),
        plan.memory as u64,
    );
    r.findings = judging::workload_findings(plan, &workload);
    r.workload = Some(crate::report::linked(workload, r.findings.iter()));
    r.notes = vec![plan.lang.pick(
        format!("Only the query shapes were read, so only {} ran: without the target no document, count or index is known (an index made since the log was written is not seen).", rules::SHAPE_RULES.join(", ")),
        format!("只读取了查询形状，因此只运行了 {}：没有目标数据库，就不知道任何文档、文档数或索引（日志写入之后才建立的索引也看不到）。", rules::SHAPE_RULES.join("、")),
    )];
    r.peak_memory_bytes = peak_memory_bytes();
    r
}

/// How a run of `plan` draws documents, for the report.
pub(crate) fn sampling_of(plan: &Plan) -> Sampling {
    match plan.mode {
        SampleMode::Sample(n) => Sampling {
            mode: "sample",
            size: Some(n),
        },
        SampleMode::Full => Sampling {
            mode: "full",
            size: None,
        },
    }
}

/// The rules a run of `plan` judges by, for the report.
pub(crate) fn rules_used(plan: &Plan) -> crate::report::RulesUsed {
    crate::report::RulesUsed {
        profile: plan.thresholds.profile_name().to_owned(),
        lang: plan.lang,
        disabled: plan.thresholds.disabled().to_vec(),
    }
}

/// The process's peak resident memory (`VmHWM`), where the system says.
pub fn peak_memory_bytes() -> Option<u64> {
    peak_memory_of("/proc/self/status")
}

/// The peak resident memory (`VmHWM`) a `/proc/PID/status` file states.
pub fn peak_memory_of(status_file: &str) -> Option<u64> {
    let status = std::fs::read_to_string(status_file).ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}
