//! The data's journey for one run: source → sample → profile → growth and
//! relationships → report. The CLI and the explorer both go through here,
//! so they always agree.
//!
//! Memory follows the budget whatever the number of collections: as each
//! collection is read its cross-section growth is measured and its
//! profile's paths go on the run's shelf (`profile::shelf`: compact, on
//! disk past the shelf's share), so that while the others are read and the
//! relationship stage looks at them all, a collection holds its kept
//! documents (its share of half the budget) and little else. The rules
//! then take the collections back a window at a time and hand each one,
//! judged, to the caller in the listing's order ([`run_into`]): the JSON
//! report is written as they come.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use futures_util::StreamExt;
use std::time::{Duration, Instant};

use crate::advise::{self, Advice};
use crate::growth::{self, snapshot};
use crate::i18n::Lang;
use crate::profile::shelf::Shelf;
use crate::profile::{threads_from_env, ShardedProfiler, DEFAULT_MAX_PATHS};
use crate::relate::{self, CollectionView, RelateCost};
use crate::report::{CollectionReport, InputError, Report, Sampling};

pub mod collection;
use crate::profile::parallel::map_ordered;
use crate::rules::{self, CollectionCtx, DeploymentCtx, Thresholds};
use crate::sample::Reservoir;
use crate::source::{
    CollectionMeta, ExtremesOutcome, SampleMode, SampleOutcome, Selection, Sink, Source,
    SourceError,
};
pub use collection::Collection;

/// Most bytes of documents kept in memory per collection after profiling.
pub const KEEP_BYTES: usize = 64 * 1024 * 1024;
/// A kept document is cut (see [`crate::sample::cut`]) when larger than its
/// share of the collection's bytes, and never below this.
const DOC_CAP_MIN: usize = 4 * 1024;
/// Memory budget of a run unless told otherwise (`--memory`), in MiB.
pub const MEMORY_MIB: usize = 256;
pub use crate::source::KEEP_FULL;

/// Most documents a collection keeps when read in `mode`
/// ([`SampleMode::kept_at_most`]).
pub fn kept_at_most(mode: SampleMode) -> u64 {
    mode.kept_at_most()
}

/// What to read and which stages to run.
#[derive(Clone, Debug)]
#[allow(clippy::struct_excessive_bools)] // independent switches, each an option
pub struct Plan {
    pub selection: Selection,
    pub mode: SampleMode,
    /// Detect references between collections.
    pub relationships: bool,
    /// Where growth snapshots live; `None` turns them off.
    pub snapshots: Option<PathBuf>,
    /// Thresholds and enabled rules.
    pub thresholds: Thresholds,
    /// Language of messages and explanations.
    pub lang: Lang,
    /// Collections read at once (`None`: the source's default).
    pub in_flight: Option<usize>,
    /// Memory budget of the run in bytes: half of it is shared out among
    /// the collections' kept samples.
    pub memory: usize,
    /// Set to stop reading further collections: those finished go on to
    /// the rules, the stages that ask the server again are skipped, and the
    /// report says so (the explorer's Esc).
    pub stop: Option<Arc<AtomicBool>>,
    /// A server that goes away after some collections were read ends the
    /// reading, not the run: the finished collections are reported with a
    /// note (the explorer). Otherwise the run fails, as the CLI's exit code
    /// says.
    pub keep_partial: bool,
    /// Query shapes read from logs (`--workload`), for the rules.
    pub workload: Option<std::sync::Arc<crate::workload::Workload>>,
    /// Read the query shapes from the server's profiler instead
    /// (`--workload profile`), before any collection is read, so this
    /// run's own reads are not among them.
    pub workload_profile: bool,
    /// Measure the largest documents and longest arrays over the whole
    /// collection when only a sample is profiled (`--no-extremes`: off).
    pub extremes: bool,
}

impl Plan {
    /// Whether the run was asked to stop (`stop` set).
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    pub fn new(selection: Selection, mode: SampleMode) -> Plan {
        Plan {
            selection,
            mode,
            relationships: true,
            snapshots: None,
            thresholds: Thresholds::default(),
            lang: Lang::En,
            in_flight: None,
            memory: MEMORY_MIB << 20,
            stop: None,
            keep_partial: false,
            workload: None,
            workload_profile: false,
            extremes: true,
        }
    }
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
    pub fn name(self, lang: Lang) -> &'static str {
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
    pub fn rate(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.documents as f64 / s
        } else {
            0.0
        }
    }
}

const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// What the program itself takes whatever it reads: its code, its
/// threads' stacks, the runtime (13.0 MiB peak RSS for the whole audit of
/// a small database, `sample-data/blog`, release build).
const PROGRAM_BYTES: usize = 12 << 20;

/// The budget left once the program itself is counted.
fn usable(budget: usize) -> usize {
    budget.saturating_sub(PROGRAM_BYTES).max(budget / 2)
}

/// Bytes of kept documents per collection: half the usable budget shared
/// out among `collections`, at most [`KEEP_BYTES`] and never less than one
/// document cut to [`DOC_CAP_MIN`] (so the budget holds up to some 30,000
/// collections at its default; the relationship stage sees fewer
/// documents of each as there are more collections).
pub fn keep_share(budget: usize, collections: usize) -> usize {
    (usable(budget) / 2 / collections.max(1)).clamp(DOC_CAP_MIN, KEEP_BYTES)
}

/// Bytes of shelved profiles held in memory ([`Shelf`]): an eighth of the
/// usable budget; the rest wait on disk.
pub fn shelf_share(budget: usize) -> usize {
    usable(budget) / 8
}

/// A collection that could not be read: named by its file, or by its
/// namespace on a server.
fn unreadable(namespace: &str, e: &SourceError) -> InputError {
    let target = match e {
        SourceError::Malformed { path, .. } | SourceError::Io { path, .. } => path.clone(),
        _ => namespace.to_owned(),
    };
    // One sentence, on one line.
    let message = e
        .to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    InputError { target, message }
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
    let mut judged = Vec::new();
    let mut report = run_into(source, plan, progress, &mut |_, c| judged.push(c)).await?;
    report.collections = judged;
    Ok(report)
}

/// As [`run`], handing each judged collection to `out` as soon as it is
/// ready, in the listing's order, with the report's head (its target,
/// time and sampling; no collection yet), instead of holding them all: the
/// report returned has no collections. Nothing is handed out before every
/// question to the source has been answered, so a run that fails hands out
/// nothing.
pub async fn run_into<S: Source>(
    source: &mut S,
    plan: &Plan,
    progress: &mut dyn FnMut(&Progress<'_>),
    out: &mut dyn FnMut(&Report, CollectionReport),
) -> Result<Report, SourceError> {
    if let Some(n) = plan.in_flight {
        source.set_in_flight(n);
    }
    let stage = |progress: &mut dyn FnMut(&Progress<'_>), stage: Stage, total: usize| {
        progress(&Progress {
            stage,
            finished: None,
            namespace: "",
            position: (total, total),
            documents: 0,
            expected: None,
            elapsed: Duration::ZERO,
            done: false,
        });
    };
    let mut notes = Vec::new();
    let workload = if plan.workload_profile {
        stage(progress, Stage::Workload, 0);
        Some(std::sync::Arc::new(
            profiled_workload(source, plan, &mut notes).await?,
        ))
    } else {
        plan.workload.clone()
    };
    stage(progress, Stage::Listing, 0);
    let metas = source.collections(&plan.selection).await?;
    let total = metas.len();
    // Why the reading ended early, if it did: the later stages that ask
    // the server again are then skipped.
    let mut cut_short: Option<String> = None;
    let mut collections = Vec::with_capacity(total);
    let mut errors = Vec::new();
    let mut first_error = None;
    // The profiles of the collections read wait here for the others.
    let shelf = Shelf::new(shelf_share(plan.memory));
    {
        let shared: &S = source;
        let tracker = Tracker {
            total,
            keep_bytes: keep_share(plan.memory, total),
            finished: std::cell::Cell::new(0),
            progress: std::cell::RefCell::new(progress),
        };
        let tracker = &tracker;
        let shelf = &shelf;
        // Each collection read, in the listing's order: whether to read on.
        let mut take = |namespace: String, r: Result<Collection, SourceError>| {
            match r {
                Ok(mut c) => {
                    tracker.arrived(&c, collections.len() + errors.len() + 1);
                    c.shelve(shelf);
                    collections.push(c);
                }
                Err(e) if e.is_gone() && plan.keep_partial && !collections.is_empty() => {
                    cut_short = Some(format!(
                        "the server went away after {} of {total} collections ({e}); those read are reported",
                        collections.len()
                    ));
                    return Ok(false);
                }
                Err(e) if e.is_gone() => return Err(e),
                Err(e) => {
                    errors.push(unreadable(&namespace, &e));
                    first_error.get_or_insert(e);
                }
            }
            Ok(!plan.stopped())
        };
        match shared
            .in_place()
            .filter(|_| total > 1 && threads_from_env() > 1)
        {
            // Files: one collection per core, side by side.
            Some(local) => read_side_by_side(local, &metas, plan, tracker, &mut take)?,
            None => {
                // Several collections are read at once; their results come
                // back in the listing's order whatever order they finish in.
                let mut read = futures_util::stream::iter(metas)
                    .map(|meta| async move {
                        let namespace = meta.namespace();
                        let r = match read_collection(shared, meta, plan.mode, tracker).await {
                            Ok(c) => with_extremes(shared, c, plan).await.map(grown),
                            Err(e) => Err(e),
                        };
                        (namespace, r)
                    })
                    .buffered(shared.in_flight().max(1));
                while let Some((namespace, r)) = read.next().await {
                    if !take(namespace, r)? {
                        break;
                    }
                }
            }
        }
    }
    let read = collections.len() + errors.len();
    if cut_short.is_none() && read < total && plan.stopped() {
        cut_short = Some(format!(
            "stopped after {read} of {total} collections; those read are reported"
        ));
    }
    if let Some(why) = &cut_short {
        notes.push(format!(
            "{why}; indexed fields, growth snapshots, relationships and copies were not checked"
        ));
    }
    let asks_server = cut_short.is_none();
    // Nothing readable: the one error is the run's, said once.
    if let (0, 1, Some(e)) = (collections.len(), errors.len(), first_error) {
        return Err(e);
    }
    stage(progress, Stage::Indexes, total);
    for c in collections.iter_mut().filter(|_| asks_server) {
        if let Err(e) = c.bring_back(&shelf) {
            c.notes
                .push(format!("indexed fields were not checked: {e}"));
            continue;
        }
        let checked = check_index_fields(source, c).await;
        c.put_back();
        if let Err(e) = checked {
            if e.is_fatal() {
                return Err(e);
            }
            c.notes.push(format!(
                "indexed fields absent from the sample were not looked for in the whole collection: {e}"
            ));
        }
    }
    let label = source.label();
    // Growth across the kept sample was measured as each collection was
    // read ([`grown`]); growth over time compares with the last snapshot.
    stage(progress, Stage::Growth, total);
    for c in &mut collections {
        if let Some(dir) = plan.snapshots.as_ref().filter(|_| asks_server) {
            let min_corr = plan.thresholds.unbounded_array.min_correlation;
            if let Err(e) = c.bring_back(&shelf) {
                c.notes.push(format!("growth snapshot skipped: {e}"));
                continue;
            }
            let taken = snapshot_growth(source, c, dir, &label, min_corr).await;
            c.put_back();
            if let Err(e) = taken {
                if e.is_fatal() {
                    return Err(e);
                }
                c.notes.push(format!("growth snapshot skipped: {e}"));
            }
        }
    }
    let mut cost = RelateCost::default();
    let views: Vec<CollectionView<'_>> = collections.iter().map(|c| c.view(&shelf)).collect();
    stage(progress, Stage::Relationships, total);
    let relationships = if plan.relationships && asks_server {
        relate::discover::relationships(source, &views, &mut notes, &mut cost).await?
    } else {
        Vec::new()
    };
    let mut drift = Vec::with_capacity(collections.len());
    for (i, c) in collections.iter().enumerate() {
        if !asks_server {
            drift.push(Vec::new());
            continue;
        }
        match relate::discover::drift_checks(source, i, &views, &relationships, &mut cost).await {
            Ok(d) => drift.push(d),
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => {
                notes.push(format!(
                    "copies in {} not checked against their source: {e}",
                    c.namespace
                ));
                drift.push(Vec::new());
            }
        }
    }
    drop(views);
    stage(progress, Stage::Rules, total);
    let now = now_secs();
    for c in &mut collections {
        c.relationships = relationships
            .iter()
            .enumerate()
            .filter(|(_, r)| r.from_ns == c.namespace || r.to_ns == c.namespace)
            .map(|(i, _)| i)
            .collect();
    }
    let mut deployment = deployment_findings(&collections, plan);
    let mut families = family_repeats(&collections, plan, &deployment);
    let kept_bytes: usize = collections.iter().flat_map(|c| &c.kept).map(Vec::len).sum();
    let shelf_peak = shelf.usage().in_memory;
    let n_collections = collections.len();
    let mut report = Report::empty(
        label,
        sampling_of(plan),
        rules_used(plan),
        plan.memory as u64,
    );
    let mut linked_workload = workload.as_deref().cloned();
    // The rules and their advice, a window of collections at a time on
    // every core, each collection's profile taken back from the shelf for
    // them and handed out, judged, in the listing's order.
    let window = threads_from_env().max(1) * 4;
    let mut pending = collections.into_iter().zip(drift).peekable();
    while pending.peek().is_some() {
        let mut batch: Vec<(Collection, Vec<relate::drift::DriftCheck>)> =
            Vec::with_capacity(window);
        for (mut c, d) in pending.by_ref().take(window) {
            match c.unshelve(&shelf) {
                Ok(()) => batch.push((c, d)),
                Err(e) => errors.push(InputError {
                    target: c.namespace.clone(),
                    message: format!("{} was read but could not be judged: {e}", c.namespace),
                }),
            }
        }
        let findings_per: Vec<Vec<Advice>> = map_ordered(batch.len(), |i| {
            let (c, drift) = &batch[i];
            let ctx = CollectionCtx {
                data: c.data(),
                relationships: c.relationships.iter().map(|&i| &relationships[i]).collect(),
                drift: drift.clone(),
                index_usage: c.meta.index_usage.as_deref(),
                now,
                workload: (workload.as_deref()).map(|w| rules::ShapesView::of(w, &c.namespace)),
            };
            let found = rules::check_collection(&ctx, &plan.thresholds, plan.lang);
            found
                .into_iter()
                .map(|f| advise::advise(&ctx, f, plan.lang))
                .collect()
        });
        for ((mut c, _), f) in batch.into_iter().zip(findings_per) {
            c.findings = f;
            for fam in &mut families {
                fam.thin(&mut c);
            }
            c.round_trips = source.round_trips(&c.namespace);
            if let Some(w) = linked_workload.take() {
                linked_workload = Some(crate::report::linked(w, c.findings.iter()));
            }
            out(&report, c.into_report());
        }
    }
    for fam in &families {
        fam.record(&mut deployment);
    }
    report.errors = errors;
    report.relationships = relationships;
    report.findings = deployment;
    report.relationship_cost = cost;
    report.notes = source
        .notes()
        .iter()
        .map(|t| t.get(plan.lang).to_owned())
        .collect();
    report.notes.extend(notes);
    report.workload = linked_workload;
    let shelved = shelf.usage();
    if let Some(failure) = &shelved.failure {
        report.notes.push(failure.clone());
    }
    if shelved.spilled > 0 {
        report.notes.push(format!(
            "the profiles of {} of {} collections waited on disk ({}, an unnamed temporary file) to stay within the memory budget",
            crate::fmt::group(shelved.spilled as u64),
            crate::fmt::group(shelved.profiles as u64),
            crate::fmt::bytes(shelved.on_disk as f64),
        ));
    }
    report.peak_memory_bytes = peak_memory_bytes();
    if let Some(note) = over_budget(
        report.peak_memory_bytes,
        plan.memory,
        kept_bytes,
        shelf_peak,
        n_collections,
    ) {
        report.notes.push(note);
    }
    Ok(report)
}

/// Says so when the run's peak went over its budget, with what the budget
/// holds (kept documents, at least one cut document per collection, and
/// the profiles waiting in memory) and what it does not.
fn over_budget(
    peak: Option<u64>,
    budget: usize,
    kept: usize,
    waiting: usize,
    collections: usize,
) -> Option<String> {
    let peak = peak.filter(|&p| p > budget as u64)?;
    Some(format!(
        "peak memory {} was over the budget of {} (--memory): kept documents took {} ({} collections, at least {} each) and profiles waiting in memory {}; a collection's profile while it is read, the replies in flight and the findings a SARIF report holds are not bounded by it",
        crate::fmt::bytes(peak as f64),
        crate::fmt::bytes(budget as f64),
        crate::fmt::bytes(kept as f64),
        crate::fmt::group(collections as u64),
        crate::fmt::bytes(DOC_CAP_MIN as f64),
        crate::fmt::bytes(waiting as f64),
    ))
}

/// The workload of the server's profiler (`--workload profile`), with
/// its notes; a source without one (files) gives an empty workload and a
/// note saying so.
async fn profiled_workload<S: Source>(
    source: &S,
    plan: &Plan,
    notes: &mut Vec<String>,
) -> Result<crate::workload::Workload, SourceError> {
    match crate::workload::profile::read(source, &plan.selection, plan.lang).await {
        Some(read) => {
            let read = read?;
            notes.extend(read.notes);
            Ok(read.workload)
        }
        None => {
            notes.push(plan.lang.pick(
                "--workload profile reads a server's profiler (system.profile): files have none, so no query shape was read".to_owned(),
                "--workload profile 读取服务器的性能分析器（system.profile）：文件没有性能分析器，因此没有读取任何查询形状".to_owned(),
            ));
            Ok(crate::workload::Workload {
                sources: vec![crate::workload::profile::PROFILE.to_owned()],
                ..crate::workload::Workload::default()
            })
        }
    }
}

/// A report of a server's profiler alone (`audit --workload profile` with no
/// target, read from the default server): the query shapes and their plans,
/// no collection read.
pub async fn profiled_workload_only<S: Source>(
    source: &S,
    plan: &Plan,
    label: String,
) -> Result<Report, SourceError> {
    let mut notes = Vec::new();
    let workload = profiled_workload(source, plan, &mut notes).await?;
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
    r.findings = workload_findings(plan, &workload);
    r.workload = Some(crate::report::linked(workload, r.findings.iter()));
    r.notes = vec![plan.lang.pick(
        format!("Only the query shapes were read, so only {} ran: without the target no document, count or index is known (an index made since the log was written is not seen).", rules::SHAPE_RULES.join(", ")),
        format!("只读取了查询形状，因此只运行了 {}：没有目标数据库，就不知道任何文档、文档数或索引（日志写入之后才建立的索引也看不到）。", rules::SHAPE_RULES.join("、")),
    )];
    r.peak_memory_bytes = peak_memory_bytes();
    r
}

/// How a run of `plan` draws documents, for the report.
pub fn sampling_of(plan: &Plan) -> Sampling {
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
pub fn rules_used(plan: &Plan) -> crate::report::RulesUsed {
    crate::report::RulesUsed {
        profile: plan.thresholds.profile_name().to_owned(),
        lang: plan.lang,
        disabled: plan.thresholds.disabled().to_vec(),
    }
}

/// The rules that read the query shapes alone, on each namespace of a
/// workload read without its target: no document, count or index is known.
fn workload_findings(plan: &Plan, workload: &crate::workload::Workload) -> Vec<Advice> {
    let namespaces: std::collections::BTreeSet<&str> = workload
        .shapes
        .iter()
        .map(|s| s.namespace.as_str())
        .collect();
    let now = now_secs();
    let mut out = Vec::new();
    for ns in namespaces {
        let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
        let meta = CollectionMeta::new(db, coll);
        let ctx = CollectionCtx {
            data: rules::context::CollectionData::unread(&meta, ns),
            relationships: Vec::new(),
            drift: Vec::new(),
            index_usage: None,
            now,
            workload: Some(rules::ShapesView::of(workload, ns)),
        };
        let found = rules::check_shapes_only(&ctx, &plan.thresholds, plan.lang);
        out.extend(
            found
                .into_iter()
                .map(|f| advise::advise(&ctx, f, plan.lang)),
        );
    }
    out
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

fn deployment_findings(collections: &[Collection], plan: &Plan) -> Vec<Advice> {
    let ctx = deployment_ctx(collections);
    rules::check_deployment(&ctx, &plan.thresholds, plan.lang)
        .into_iter()
        .map(|f| advise::advise_deployment(f, plan.lang))
        .collect()
}

/// `_id`s a collection's sketch holds: a 256th of its share of kept
/// bytes (16 bytes each), from 64 to 4,096, so that it holds every `_id`
/// of a default sample.
fn id_sketch_size(keep_bytes: usize) -> usize {
    (keep_bytes / 256).clamp(64, 4096)
}

/// A finding as a family compares it: rule, path, severity.
type FindingKey = (&'static str, Option<String>, rules::Severity);

/// The findings a family's members share are said once, on its first
/// member (in the listing's order); the family's finding counts them.
struct FamilyRepeats {
    /// Index of the family's finding in the report's findings.
    finding: usize,
    members: std::collections::BTreeSet<String>,
    first: Option<String>,
    /// `(rule, path, severity)` of the first member's findings, with the
    /// members that have it.
    said: Vec<(FindingKey, u64)>,
}

impl FamilyRepeats {
    /// Takes out of `c`'s findings those its family's first member
    /// already has.
    fn thin(&mut self, c: &mut Collection) {
        if !self.members.contains(&c.namespace) {
            return;
        }
        let key = |a: &Advice| (a.rule, a.path.clone(), a.severity);
        let Some(first) = &self.first else {
            self.first = Some(c.namespace.clone());
            self.said = c.findings.iter().map(|a| (key(a), 1)).collect();
            return;
        };
        let before = c.findings.len();
        c.findings.retain(|a| {
            let k = key(a);
            match self.said.iter_mut().find(|(s, _)| *s == k) {
                Some((_, n)) => {
                    *n += 1;
                    false
                }
                None => true,
            }
        });
        if c.findings.len() < before {
            c.notes.push(format!(
                "{} findings it shares with the other collections of its family are said once, on {first} (collection-per-tenant)",
                before - c.findings.len()
            ));
        }
    }

    /// The counts, in the family's finding.
    fn record(&self, findings: &mut [Advice]) {
        let Some(f) = findings.get_mut(self.finding) else {
            return;
        };
        let repeated: Vec<serde_json::Value> = self
            .said
            .iter()
            .filter(|(_, n)| *n > 1)
            .map(|((rule, path, sev), n)| {
                serde_json::json!({"rule": rule, "path": path, "severity": sev, "members": n, "said_on": self.first})
            })
            .collect();
        if !repeated.is_empty() {
            let _ = write!(
                f.finding.message,
                "; {} findings repeated across its members are said once, on {}",
                repeated.len(),
                self.first.as_deref().unwrap_or("")
            );
        }
        f.finding.evidence.insert(
            "repeated_findings".into(),
            serde_json::Value::Array(repeated),
        );
    }
}

/// The families `collection-per-tenant` found, each tied to its finding.
fn family_repeats(
    collections: &[Collection],
    plan: &Plan,
    deployment: &[Advice],
) -> Vec<FamilyRepeats> {
    if !plan.thresholds.enabled("collection-per-tenant") {
        return Vec::new();
    }
    let ctx = deployment_ctx(collections);
    let l = &plan.thresholds.collection_per_tenant;
    let fams = rules::collection_per_tenant::families(
        &ctx,
        l.min_collections.max(2.0) as usize,
        l.min_similarity,
    );
    fams.into_iter()
        .filter_map(|f| {
            let pattern = serde_json::json!(f.pattern());
            let finding = deployment.iter().position(|a| {
                a.rule == "collection-per-tenant"
                    && a.namespace == f.db
                    && a.evidence.get("pattern") == Some(&pattern)
            })?;
            Some(FamilyRepeats {
                finding,
                members: f
                    .members
                    .iter()
                    .map(|(c, _)| format!("{}.{c}", f.db))
                    .collect(),
                first: None,
                said: Vec::new(),
            })
        })
        .collect()
}

fn deployment_ctx(collections: &[Collection]) -> DeploymentCtx<'_> {
    let mut dbs: Vec<(&str, Vec<&str>)> = Vec::new();
    for c in collections {
        match dbs.iter_mut().find(|(d, _)| *d == c.meta.db) {
            Some((_, names)) => names.push(&c.meta.name),
            None => dbs.push((&c.meta.db, vec![&c.meta.name])),
        }
    }
    DeploymentCtx {
        total: collections.len(),
        databases: dbs,
        summaries: collections
            .iter()
            .map(|c| rules::CollectionSummary {
                db: &c.meta.db,
                name: &c.meta.name,
                shape: &c.shape,
                ids: &c.ids,
                documents: c.documents,
                complete: c.complete,
            })
            .collect(),
    }
}

/// Progress of the collections in flight: how many there are, how many
/// have finished, and where to report.
struct Tracker<'p, 'f> {
    total: usize,
    /// Bytes of kept documents per collection.
    keep_bytes: usize,
    finished: std::cell::Cell<usize>,
    progress: std::cell::RefCell<&'p mut (dyn FnMut(&Progress<'_>) + 'f)>,
}

impl Tracker<'_, '_> {
    /// Reports a finished collection, the `n`th of the listing.
    fn arrived(&self, c: &Collection, n: usize) {
        if let Ok(mut f) = self.progress.try_borrow_mut() {
            f(&Progress {
                stage: Stage::Sampling,
                finished: Some(c),
                namespace: &c.namespace,
                position: (n.min(self.total), self.total),
                documents: c.profile.sampled,
                expected: c.documents,
                elapsed: Duration::ZERO,
                done: false,
            });
        }
    }

    /// Reports `p` with its position: the collections finished so far,
    /// counting this one (while it is read: the next to finish), of all.
    fn report(&self, mut p: Progress<'_>) {
        if p.done {
            self.finished.set(self.finished.get() + 1);
        }
        let n = if p.done {
            self.finished.get()
        } else {
            self.finished.get() + 1
        };
        p.position = (n.min(self.total), self.total);
        // Never held across an await: the futures in flight take turns.
        if let Ok(mut f) = self.progress.try_borrow_mut() {
            f(&p);
        }
    }
}

/// Samples and profiles one collection, keeping a bounded sample.
/// `position` is this collection's place in the run's progress.
pub async fn profile_collection<S: Source>(
    source: &S,
    meta: CollectionMeta,
    mode: SampleMode,
    position: (usize, usize),
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<Collection, SourceError> {
    let tracker = Tracker {
        total: position.1,
        keep_bytes: KEEP_BYTES,
        finished: std::cell::Cell::new(position.0.saturating_sub(1)),
        progress: std::cell::RefCell::new(progress),
    };
    read_collection(source, meta, mode, &tracker).await
}

async fn read_collection<S: Source>(
    source: &S,
    meta: CollectionMeta,
    mode: SampleMode,
    tracker: &Tracker<'_, '_>,
) -> Result<Collection, SourceError> {
    let profiler = ShardedProfiler::new(threads_from_env(), DEFAULT_MAX_PATHS);
    let mut reading = Reading::new(&meta, mode, tracker.keep_bytes, profiler);
    let outcome = {
        let mut sink = ReadingSink {
            reading: &mut reading,
            report: &mut |p| tracker.report(p),
        };
        source.sample(&meta, mode, &mut sink).await
    };
    tracker.report(reading.done(&outcome));
    reading.finish(meta, outcome)
}

/// Where a source hands the documents of a collection being read.
struct ReadingSink<'r, 'f> {
    reading: &'r mut Reading,
    report: &'f mut dyn FnMut(Progress<'_>),
}

impl Sink for ReadingSink<'_, '_> {
    fn document(&mut self, bytes: &[u8]) {
        self.reading.add(bytes, self.report);
    }

    fn documents(&mut self, docs: Vec<u8>) {
        self.reading.add_documents(docs, self.report);
    }
}

/// One collection as it is read: its profile and kept sample so far.
struct Reading {
    namespace: String,
    expected: Option<u64>,
    keep_bytes: usize,
    doc_cap: usize,
    profiler: ShardedProfiler,
    kept: Reservoir,
    /// The `_id`s read, sketched for comparing collections.
    ids: crate::profile::ids::IdSketcher,
    seen: u64,
    start: Instant,
    last: Instant,
}

impl Reading {
    fn new(
        meta: &CollectionMeta,
        mode: SampleMode,
        keep_bytes: usize,
        profiler: ShardedProfiler,
    ) -> Reading {
        let namespace = meta.namespace();
        let expected = match mode {
            SampleMode::Sample(n) => Some(meta.documents.map_or(n, |d| d.min(n))),
            SampleMode::Full => meta.documents,
        };
        let keep = kept_at_most(mode);
        // Each kept document's share of the bytes, by the documents expected.
        let doc_cap = (keep_bytes
            / usize::try_from(expected.unwrap_or(keep).clamp(1, keep.max(1)))
                .unwrap_or(usize::MAX)
                .max(1))
        .max(DOC_CAP_MIN);
        // A whole collection known to be large is spread over the cores
        // from its first document.
        let large = meta
            .storage
            .as_ref()
            .and_then(|s| s.size.or(s.storage_size))
            .is_some_and(|bytes| bytes >= crate::profile::parallel::LARGE_INPUT);
        let profiler = if mode == SampleMode::Full && large {
            profiler.at_once()
        } else {
            profiler
        };
        let kept = Reservoir::new(
            keep,
            keep_bytes,
            crate::profile::sketch::hash_bytes(7, namespace.as_bytes()),
        )
        .cutting_above(doc_cap)
        .checking_bson();
        let start = Instant::now();
        Reading {
            namespace,
            expected,
            keep_bytes,
            doc_cap,
            profiler,
            kept,
            ids: crate::profile::ids::IdSketcher::new(id_sketch_size(keep_bytes)),
            seen: 0,
            start,
            last: start,
        }
    }

    /// Profiles a document and offers it to the kept sample; reports the
    /// progress every [`PROGRESS_EVERY`].
    fn add(&mut self, bytes: &[u8], report: &mut dyn FnMut(Progress<'_>)) {
        // Malformed documents are counted by the profiler and reported;
        // the reservoir keeps only well-formed ones.
        let _ = self.profiler.add(bytes);
        self.offer(bytes, report);
    }

    /// As [`Reading::add`] for each of `docs` (see [`Sink::documents`]),
    /// the profiler taking them all at once.
    fn add_documents(&mut self, docs: Vec<u8>, report: &mut dyn FnMut(Progress<'_>)) {
        crate::profile::parallel::each_document(&docs, |d| self.offer(d, report));
        self.profiler.add_documents(docs);
    }

    /// Offers a document to the kept sample and counts it.
    fn offer(&mut self, bytes: &[u8], report: &mut dyn FnMut(Progress<'_>)) {
        self.kept.offer(bytes);
        self.ids.add(bytes);
        self.seen += 1;
        if self.seen.is_multiple_of(256) {
            let now = Instant::now();
            if now.duration_since(self.last) >= PROGRESS_EVERY {
                self.last = now;
                report(self.progress(self.seen, false));
            }
        }
    }

    fn progress(&self, documents: u64, done: bool) -> Progress<'_> {
        Progress {
            stage: Stage::Sampling,
            finished: None,
            namespace: &self.namespace,
            position: (0, 0),
            documents,
            expected: self.expected,
            elapsed: self.start.elapsed(),
            done,
        }
    }

    /// The last progress of this collection: read, or (an error) given up.
    fn done(&self, outcome: &Result<SampleOutcome, SourceError>) -> Progress<'_> {
        let documents = outcome.as_ref().map_or(self.seen, |o| o.read);
        self.progress(documents, true)
    }

    fn finish(
        self,
        meta: CollectionMeta,
        outcome: Result<SampleOutcome, SourceError>,
    ) -> Result<Collection, SourceError> {
        let outcome = outcome?;
        let (kept, keep_bytes, doc_cap) = (self.kept, self.keep_bytes, self.doc_cap);
        let oversized = kept.oversized();
        let cut = kept.cut_count();
        let mut report = Collection::new(meta, &outcome, self.profiler.finish());
        report.ids = self.ids.finish();
        if oversized > 0 {
            report.notes.push(format!(
                "{oversized} large documents were profiled but not kept for the growth and reference stages (memory share {} KiB)",
                keep_bytes >> 10
            ));
        }
        if cut > 0 {
            report.notes.push(format!(
                "{cut} documents over {} KiB were kept with long strings cut to {} bytes, to stay within the memory budget (profiled whole)",
                doc_cap >> 10,
                crate::sample::CUT_VALUE
            ));
        }
        (report.kept, report.kept_sizes) = kept.into_parts();
        Ok(report)
    }
}

/// A sample is not the collection: for each index that reads only fields
/// no sampled document has, or whose leading key no sampled document has
/// (and whose kind makes that meaningful), looks for them in the whole
/// collection — unless every document was profiled — and records the
/// result for `unused-index`.
pub async fn check_index_fields<S: Source>(
    source: &mut S,
    c: &mut Collection,
) -> Result<(), SourceError> {
    use crate::source::index::{self, Absence};
    use crate::source::{CheckMethod, PresenceCheck};
    let present = index::present_paths(&c.profile.fields);
    let mut groups: Vec<Vec<String>> = Vec::new();
    for i in &c.meta.indexes {
        let usage = c
            .meta
            .index_usage
            .as_deref()
            .and_then(|u| u.iter().find(|x| x.name == i.name));
        if let Absence::Unconfirmed(_) =
            index::absence(i, &c.meta, &present, c.profile.sampled, usage)
        {
            let paths = i.fields_read();
            if !groups.contains(&paths) {
                groups.push(paths);
            }
        }
        // A leading key the sample lacks while the index's other fields
        // are there: looked for on its own.
        if let Some(lead) = rules::unused_index::leading_key_to_check(
            i,
            &c.meta,
            &present,
            c.profile.sampled,
            usage,
        ) {
            let paths = vec![lead];
            if !groups.contains(&paths) {
                groups.push(paths);
            }
        }
    }
    if groups.is_empty() {
        return Ok(());
    }
    // The profile saw every path of every document.
    let every_document = c.complete && !c.profile.paths_capped && c.profile.too_deep == 0;
    c.meta.presence_checks = if every_document {
        groups
            .into_iter()
            .map(|paths| PresenceCheck {
                paths,
                found: false,
                method: CheckMethod::EveryDocument,
            })
            .collect()
    } else {
        source.presence(&c.meta, &groups).await?
    };
    Ok(())
}

/// The collection with the cross-section growth of every array path, from
/// its kept sample: measured where it was read, before its profile waits
/// on the shelf.
fn grown(mut c: Collection) -> Collection {
    let g = growth::cross_section_from(&c.profile, &c.kept, c.largest_bytes());
    c.growth.extend(g);
    c
}

fn set_growth(c: &mut Collection, path: &str, g: growth::Growth) {
    c.growth.insert(path.to_owned(), g);
}

/// Snapshots older than this are replaced by a fresh one.
const SNAPSHOT_MAX_AGE_SECS: f64 = 30.0 * 86_400.0;

fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Growth over time: compares with the previous snapshot of this
/// collection, if any, and keeps a snapshot for the next run.
async fn snapshot_growth<S: Source>(
    source: &mut S,
    c: &mut Collection,
    dir: &std::path::Path,
    label: &str,
    min_corr: f64,
) -> Result<(), SourceError> {
    let file = snapshot::file_for(dir, label, &c.namespace);
    let now = now_secs();
    let old = snapshot::load(&file);
    if let Some(old) = &old {
        let ids: Vec<bson::Bson> = old
            .docs
            .iter()
            .filter_map(|d| bson::Bson::try_from(d.id.clone()).ok())
            .collect();
        let dotted: Vec<String> = old.paths.iter().map(|p| p.replace("[]", "")).collect();
        let found = source.reread(&c.meta, &ids, &dotted).await?;
        let current: Vec<snapshot::SnapDoc> = found
            .into_iter()
            .map(|r| snapshot::SnapDoc {
                id: r.id.into_canonical_extjson(),
                size: r.size,
                lengths: r.lengths,
            })
            .collect();
        let largest = c.largest_bytes() as f64;
        // Both measurements are kept: the one with the evidence decides
        // (`growth::decide`), the other goes with it, with the reason.
        for (path, g) in snapshot::compare(old, &current, now, largest) {
            let cross = c.growth.remove(&path);
            if let Some(g) = growth::decide(cross, Some(g), min_corr) {
                set_growth(c, &path, g);
            }
        }
    }
    let stale = old
        .as_ref()
        .is_none_or(|o| now - o.taken_at > SNAPSHOT_MAX_AGE_SECS);
    if stale {
        if let Some(snap) = snapshot::take(&c.namespace, &c.profile, &c.kept, &c.kept_sizes, now) {
            snapshot::save(&file, &snap).map_err(|e| SourceError::Io {
                path: file.display().to_string(),
                reason: e.to_string(),
            })?;
        }
    }
    Ok(())
}

/// Measures what a sample misses over the whole collection (the largest
/// documents, the longest arrays, documents over the size thresholds),
/// unless every document was profiled or the plan says not to. A source
/// that cannot is noted; only a server that is gone ends the run.
async fn with_extremes<S: Source>(
    source: &S,
    c: Collection,
    plan: &Plan,
) -> Result<Collection, SourceError> {
    match extremes_ask(&c, plan) {
        Some(ask) => {
            let measured = source.extremes(&c.meta, &ask).await;
            with_measured(c, measured)
        }
        None => Ok(c),
    }
}

/// What to measure over the whole collection, unless it is not wanted: off,
/// the run stopped, or every document was profiled.
fn extremes_ask(c: &Collection, plan: &Plan) -> Option<crate::source::ExtremesAsk> {
    if !plan.extremes || plan.stopped() || c.complete || plan.mode == SampleMode::Full {
        return None;
    }
    Some(rules::extremes::ask(&c.profile.fields, &plan.thresholds))
}

/// The collection with its whole-collection extremes, or a note on why
/// they are missing; an error only when the server is gone.
fn with_measured(
    mut c: Collection,
    measured: Result<ExtremesOutcome, SourceError>,
) -> Result<Collection, SourceError> {
    match measured {
        Ok(ExtremesOutcome::Measured(e)) => c.extremes = Some(e),
        Ok(ExtremesOutcome::Skipped(note)) => c.notes.push(note),
        Err(e) if e.is_gone() => return Err(e),
        Err(e) => c
            .notes
            .push(format!("whole-collection extremes not measured: {e}")),
    }
    Ok(c)
}

/// What a collection read on another thread sends back.
enum Sent {
    Progress {
        namespace: String,
        documents: u64,
        expected: Option<u64>,
        elapsed: Duration,
        done: bool,
    },
    Read(usize, String, Box<Result<Collection, SourceError>>),
}

impl Sent {
    fn progress(p: &Progress<'_>) -> Sent {
        Sent::Progress {
            namespace: p.namespace.to_owned(),
            documents: p.documents,
            expected: p.expected,
            elapsed: p.elapsed,
            done: p.done,
        }
    }
}

/// Reads the collections of a source that reads in place one per core, and
/// hands each, with its whole-collection extremes, to `take` in the
/// listing's order whatever order they finish in. No collection is begun
/// once `take` says to stop or the run is stopped; an error `take` returns
/// ends the reading and is returned.
fn read_side_by_side(
    local: &dyn crate::source::InPlace,
    metas: &[CollectionMeta],
    plan: &Plan,
    tracker: &Tracker<'_, '_>,
    take: &mut dyn FnMut(String, Result<Collection, SourceError>) -> Result<bool, SourceError>,
) -> Result<(), SourceError> {
    use std::sync::atomic::AtomicUsize;
    let total = metas.len();
    let next = AtomicUsize::new(0);
    let quit = AtomicBool::new(false);
    let keep_bytes = tracker.keep_bytes;
    let halt = || quit.load(Ordering::Relaxed) || plan.stopped();
    let readers = threads_from_env().min(total).max(1);
    let work = |tx: std::sync::mpsc::Sender<Sent>| {
        while !halt() {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(meta) = metas.get(i) else { break };
            let namespace = meta.namespace();
            // Past its first MiB a file deals its batches to workers, as
            // many as the run's cap on them leaves (see `profile::parallel`).
            let profiler = ShardedProfiler::new(threads_from_env(), DEFAULT_MAX_PATHS);
            let mut reading = Reading::new(meta, plan.mode, keep_bytes, profiler);
            let outcome = {
                let mut send = |p: Progress<'_>| {
                    let _ = tx.send(Sent::progress(&p));
                };
                let mut sink = ReadingSink {
                    reading: &mut reading,
                    report: &mut send,
                };
                local.sample_now(meta, plan.mode, &mut sink)
            };
            let _ = tx.send(Sent::progress(&reading.done(&outcome)));
            let read = reading
                .finish(meta.clone(), outcome)
                .and_then(|c| match extremes_ask(&c, plan) {
                    Some(ask) => {
                        let measured = local.extremes_now(&c.meta, &ask);
                        with_measured(c, measured)
                    }
                    None => Ok(c),
                })
                .map(grown);
            if tx.send(Sent::Read(i, namespace, Box::new(read))).is_err() {
                break;
            }
        }
    };
    std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel::<Sent>();
        let work = &work;
        let mut started = 0;
        for _ in 0..readers {
            let tx = tx.clone();
            let spawned = std::thread::Builder::new()
                .name("docshape-read".into())
                .spawn_scoped(s, move || work(tx));
            started += usize::from(spawned.is_ok());
        }
        // A thread that cannot be started leaves its share to the others;
        // with none at all, this thread reads them all first.
        if started == 0 {
            work(tx.clone());
        }
        drop(tx);
        let mut ready = std::collections::BTreeMap::new();
        let mut due = 0;
        let mut ended = Ok(());
        for sent in rx {
            match sent {
                Sent::Progress {
                    namespace,
                    documents,
                    expected,
                    elapsed,
                    done,
                } => tracker.report(Progress {
                    stage: Stage::Sampling,
                    finished: None,
                    namespace: &namespace,
                    position: (0, total),
                    documents,
                    expected,
                    elapsed,
                    done,
                }),
                Sent::Read(i, namespace, read) => {
                    ready.insert(i, (namespace, read));
                    while let Some((namespace, read)) = ready.remove(&due) {
                        due += 1;
                        if ended.is_err() || quit.load(Ordering::Relaxed) {
                            continue;
                        }
                        match take(namespace, *read) {
                            Ok(true) => {}
                            Ok(false) => quit.store(true, Ordering::Relaxed),
                            Err(e) => {
                                quit.store(true, Ordering::Relaxed);
                                ended = Err(e);
                            }
                        }
                    }
                }
            }
        }
        ended
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peak_over_the_budget_is_said_with_what_the_budget_does_not_bound() {
        let mib = 1 << 20;
        assert_eq!(over_budget(Some(60 * mib), 64 << 20, 10, 0, 3), None);
        assert_eq!(over_budget(None, 64 << 20, 10, 0, 3), None);
        let note = over_budget(Some(150 * mib), 64 << 20, 40 << 20, 8 << 20, 1000).expect("over");
        assert!(
            note.contains("150.0 MiB") && note.contains("64.0 MiB"),
            "{note}"
        );
        assert!(
            note.contains("40.0 MiB") && note.contains("1,000 collections"),
            "{note}"
        );
        assert!(note.contains("8.0 MiB"), "{note}");
    }

    #[test]
    fn the_kept_share_holds_the_budget_down_to_one_cut_document() {
        let mib = 1 << 20;
        assert_eq!(keep_share(256 * mib, 1), KEEP_BYTES);
        assert_eq!(keep_share(256 * mib, 40), 122 * mib / 40);
        // A thousand collections under 64 MiB share 26 MiB.
        assert_eq!(keep_share(64 * mib, 1000), 26 * mib / 1000);
        assert!(keep_share(64 * mib, 1000) * 1000 <= 32 * mib);
        assert_eq!(keep_share(16 * mib, 100_000), DOC_CAP_MIN);
        assert_eq!(shelf_share(32 * mib), 5 * mib / 2);
    }
}
