//! The data's journey for one run: source → sample → profile → growth and
//! relationships → report. The CLI and the explorer both go through here,
//! so they always agree.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::growth::{self, snapshot};
use crate::i18n::Lang;
use crate::profile::{query_path, threads_from_env, Seg, ShardedProfiler, DEFAULT_MAX_PATHS};
use crate::relate::{self, CollectionView, Fanout, Relationship};
use crate::report::{now_iso, CollectionReport, Report, Sampling, VERSION};
use crate::rules::{self, CollectionCtx, DeploymentCtx, DriftCheck, Thresholds};
use crate::sample::Reservoir;
use crate::source::{CollectionMeta, SampleMode, Selection, Source, SourceError};

/// Bytes of documents kept in memory per collection after profiling.
pub const KEEP_BYTES: usize = 64 * 1024 * 1024;
/// Documents kept per collection when every document is read.
pub const KEEP_FULL: u64 = 1000;
/// Collections above this many documents get their fan-out estimated from
/// the sample instead of a whole-collection `$group`.
pub const GROUP_LIMIT: u64 = 50_000_000;

/// What to read and which stages to run.
#[derive(Clone, Debug)]
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
}

impl Plan {
    pub fn new(selection: Selection, mode: SampleMode) -> Plan {
        Plan {
            selection,
            mode,
            relationships: true,
            snapshots: None,
            thresholds: Thresholds::default(),
            lang: Lang::En,
        }
    }
}

/// Progress of the collection being read, reported a few times a second.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    pub namespace: &'a str,
    /// Index of this collection and how many there are.
    pub position: (usize, usize),
    pub documents: u64,
    /// Documents expected, when known.
    pub expected: Option<u64>,
    pub elapsed: Duration,
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

/// Errors that end the run: the server is gone or refuses us, or an input
/// file cannot be read (the contract's exit code 2). Anything else is
/// noted and the run goes on.
fn fatal(e: &SourceError) -> bool {
    matches!(
        e,
        SourceError::Unreachable { .. }
            | SourceError::Auth { .. }
            | SourceError::BadUri(_)
            | SourceError::Malformed { .. }
            | SourceError::Io { .. }
    )
}

/// Profiles every selected collection of `source`, then measures growth and
/// relationships.
pub async fn run<S: Source>(
    source: &mut S,
    plan: &Plan,
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<Report, SourceError> {
    let metas = source.collections(&plan.selection).await?;
    let total = metas.len();
    let mut collections = Vec::with_capacity(total);
    let mut notes = Vec::new();
    for (i, meta) in metas.into_iter().enumerate() {
        match profile_collection(source, meta, plan.mode, (i + 1, total), progress).await {
            Ok(c) => collections.push(c),
            Err(e) if fatal(&e) => return Err(e),
            Err(e) => notes.push(e.to_string()),
        }
    }
    for c in &mut collections {
        if let Err(e) = check_index_fields(source, c).await {
            if fatal(&e) {
                return Err(e);
            }
            c.notes.push(format!(
                "indexed fields absent from the sample were not looked for in the whole collection: {e}"
            ));
        }
    }
    let label = source.label();
    for c in &mut collections {
        measure_growth(c);
        if let Some(dir) = &plan.snapshots {
            if let Err(e) = snapshot_growth(source, c, dir, &label).await {
                if fatal(&e) {
                    return Err(e);
                }
                c.notes.push(format!("growth snapshot skipped: {e}"));
            }
        }
    }
    let mut cost = RelateCost::default();
    let relationships = if plan.relationships {
        relationships(source, &collections, &mut notes, &mut cost).await?
    } else {
        Vec::new()
    };
    let mut drift = Vec::with_capacity(collections.len());
    for c in &collections {
        match drift_checks(source, c, &collections, &relationships).await {
            Ok(d) => drift.push(d),
            Err(e) if fatal(&e) => return Err(e),
            Err(e) => {
                notes.push(format!(
                    "copies in {} not checked against their source: {e}",
                    c.namespace
                ));
                drift.push(Vec::new());
            }
        }
    }
    let now = now_secs();
    let mut findings_per: Vec<Vec<rules::Finding>> = Vec::with_capacity(collections.len());
    for (c, d) in collections.iter().zip(drift) {
        let ctx = CollectionCtx {
            report: c,
            relationships: relationships
                .iter()
                .filter(|r| r.from_ns == c.namespace || r.to_ns == c.namespace)
                .collect(),
            drift: d,
            index_usage: c.meta.index_usage.as_deref(),
            now,
        };
        findings_per.push(rules::check_collection(&ctx, &plan.thresholds, plan.lang));
    }
    for (c, f) in collections.iter_mut().zip(findings_per) {
        c.findings = f;
        c.round_trips = source.round_trips(&c.namespace);
    }
    let deployment = deployment_findings(&collections, plan);
    Ok(Report {
        docshape: VERSION,
        target: label,
        generated_at: now_iso(),
        sampling: match plan.mode {
            SampleMode::Sample(n) => Sampling {
                mode: "sample",
                size: Some(n),
            },
            SampleMode::Full => Sampling {
                mode: "full",
                size: None,
            },
        },
        collections,
        relationships,
        findings: deployment,
        relationship_cost: cost,
        rules: crate::report::RulesUsed {
            profile: plan.thresholds.profile_name().to_owned(),
            lang: plan.lang,
            disabled: plan.thresholds.disabled().to_vec(),
        },
        notes,
    })
}

fn deployment_findings(collections: &[CollectionReport], plan: &Plan) -> Vec<rules::Finding> {
    let mut dbs: Vec<(&str, Vec<&str>)> = Vec::new();
    for c in collections {
        match dbs.iter_mut().find(|(d, _)| *d == c.meta.db) {
            Some((_, names)) => names.push(&c.meta.name),
            None => dbs.push((&c.meta.db, vec![&c.meta.name])),
        }
    }
    let ctx = DeploymentCtx {
        total: collections.len(),
        databases: dbs,
    };
    rules::check_deployment(&ctx, &plan.thresholds, plan.lang)
}

/// Distinct references whose source documents are read to check copies.
const DRIFT_REFS: usize = 200;

/// For each extended reference held by `c`, compares the copied fields
/// with the referenced documents (fetched by id) and, where the source has
/// none of them, copies of the same reference with each other.
async fn drift_checks<S: Source>(
    source: &mut S,
    c: &CollectionReport,
    all: &[CollectionReport],
    rels: &[Relationship],
) -> Result<Vec<DriftCheck>, SourceError> {
    use crate::relate::value::{of_bson, ValueKey};
    let mut out = Vec::new();
    for r in rels
        .iter()
        .filter(|r| r.from_ns == c.namespace && r.kind == crate::relate::Kind::ExtendedReference)
    {
        let Some(field) = c.profile.fields.iter().find(|f| f.path == r.from_path) else {
            continue;
        };
        let holder_segs = &field.segments[..field.segments.len() - 1];
        let Some(Seg::Key(ref_name)) = field.segments.last() else {
            continue;
        };
        let copied: Vec<String> = c
            .profile
            .fields
            .iter()
            .filter(|f| {
                f.segments.len() == field.segments.len()
                    && f.segments[..holder_segs.len()] == *holder_segs
                    && f.segments != field.segments
            })
            .filter(|f| f.main_type().is_some_and(|t| !t.is_container()))
            .map(|f| f.name.clone())
            .collect();
        if copied.is_empty() {
            continue;
        }
        // Each copy: (reference value, copied fields) from the kept sample.
        let mut copies: Vec<(bson::Bson, bson::Document)> = Vec::new();
        for d in &c.kept {
            for holder in crate::profile::extract::values(d, holder_segs) {
                if holder.ty != crate::profile::raw::BsonType::Object {
                    continue;
                }
                let Ok(h) = bson::Document::from_reader(holder.value) else {
                    continue;
                };
                let Some(rv) = h.get(ref_name).cloned() else {
                    continue;
                };
                copies.push((rv, h));
            }
        }
        let mut ids: Vec<bson::Bson> = Vec::new();
        let mut seen: std::collections::HashSet<ValueKey> = std::collections::HashSet::new();
        for (rv, _) in &copies {
            if ids.len() >= DRIFT_REFS {
                break;
            }
            if let Some(k) = of_bson(rv) {
                if seen.insert(k) {
                    ids.push(rv.clone());
                }
            }
        }
        let Some(target) = all.iter().find(|x| x.namespace == r.to_ns) else {
            continue;
        };
        let key = r.to.rsplit_once('.').map_or("_id", |(_, k)| k).to_owned();
        let sources = source.fetch(&target.meta, &key, &ids, &copied).await?;
        let by_id: std::collections::HashMap<ValueKey, &bson::Document> = sources
            .iter()
            .filter_map(|d| d.get(&key).and_then(of_bson).map(|k| (k, d)))
            .collect();
        let shared: Vec<String> = copied
            .iter()
            .filter(|f| sources.iter().any(|s| s.contains_key(f.as_str())))
            .cloned()
            .collect();
        let mut check = DriftCheck {
            holder: crate::profile::render_path(holder_segs),
            reference: r.from_path.clone(),
            source_ns: r.to_ns.clone(),
            fields: shared.clone(),
            ..DriftCheck::default()
        };
        if shared.is_empty() {
            continue;
        }
        for (rv, h) in &copies {
            let Some(src) = of_bson(rv).and_then(|k| by_id.get(&k)) else {
                continue;
            };
            check.checked += 1;
            let differing =
                shared
                    .iter()
                    .find(|f| match (h.get(f.as_str()), src.get(f.as_str())) {
                        (Some(a), Some(b)) => !same_value(a, b),
                        _ => false,
                    });
            if let Some(f) = differing {
                check.disagree += 1;
                if check.examples.len() < 3 {
                    let show = |b: Option<&bson::Bson>| {
                        b.map_or_else(String::new, |v| {
                            v.clone().into_relaxed_extjson().to_string()
                        })
                    };
                    check.examples.push((
                        rv.clone().into_relaxed_extjson().to_string(),
                        f.clone(),
                        show(h.get(f.as_str())),
                        show(src.get(f.as_str())),
                    ));
                }
            }
        }
        out.push(check);
    }
    Ok(out)
}

/// Equality as a query sees it: numbers compare across widths.
fn same_value(a: &bson::Bson, b: &bson::Bson) -> bool {
    use crate::relate::value::of_bson;
    match (of_bson(a), of_bson(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Samples and profiles one collection, keeping a bounded sample.
pub async fn profile_collection<S: Source>(
    source: &mut S,
    meta: CollectionMeta,
    mode: SampleMode,
    position: (usize, usize),
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<CollectionReport, SourceError> {
    let ns = meta.namespace();
    let expected = match mode {
        SampleMode::Sample(n) => Some(meta.documents.map_or(n, |d| d.min(n))),
        SampleMode::Full => meta.documents,
    };
    let keep = match mode {
        SampleMode::Sample(n) => n,
        SampleMode::Full => KEEP_FULL,
    };
    let start = Instant::now();
    let mut last = start;
    let mut profiler = ShardedProfiler::new(threads_from_env(), DEFAULT_MAX_PATHS);
    let mut kept = Reservoir::new(
        keep,
        KEEP_BYTES,
        crate::profile::sketch::hash_bytes(7, ns.as_bytes()),
    );
    let mut seen = 0u64;
    let mut sink = |bytes: &[u8]| {
        // Malformed documents are counted by the profiler and reported.
        if profiler.add(bytes).is_ok() {
            kept.offer(bytes);
        }
        seen += 1;
        if seen.is_multiple_of(256) {
            let now = Instant::now();
            if now.duration_since(last) >= PROGRESS_EVERY {
                last = now;
                progress(&Progress {
                    namespace: &ns,
                    position,
                    documents: seen,
                    expected,
                    elapsed: now - start,
                    done: false,
                });
            }
        }
    };
    let outcome = source.sample(&meta, mode, &mut sink).await?;
    progress(&Progress {
        namespace: &ns,
        position,
        documents: outcome.read,
        expected,
        elapsed: start.elapsed(),
        done: true,
    });
    let oversized = kept.oversized();
    let mut report = CollectionReport::new(meta, &outcome, profiler.finish());
    if oversized > 0 {
        report.notes.push(format!(
            "{oversized} large documents were profiled but not kept for the growth and reference stages (memory budget {} MiB)",
            KEEP_BYTES >> 20
        ));
    }
    report.kept = kept.into_documents();
    Ok(report)
}

/// A sample is not the collection: for each index that reads only fields
/// no sampled document has (and whose kind makes that meaningful), looks
/// for them in the whole collection — unless every document was profiled —
/// and records the result for `unused-index`.
pub async fn check_index_fields<S: Source>(
    source: &mut S,
    c: &mut CollectionReport,
) -> Result<(), SourceError> {
    use crate::source::index::{self, Absence};
    use crate::source::{CheckMethod, PresenceCheck};
    let present = index::present_paths(&c.fields);
    let mut groups: Vec<Vec<String>> = Vec::new();
    for i in &c.indexes {
        let usage = c
            .meta
            .index_usage
            .as_deref()
            .and_then(|u| u.iter().find(|x| x.name == i.name));
        if let Absence::Unconfirmed(_) = index::absence(i, &c.meta, &present, c.sampled, usage) {
            let paths = i.fields_read();
            if !groups.contains(&paths) {
                groups.push(paths);
            }
        }
    }
    if groups.is_empty() {
        return Ok(());
    }
    // The profile saw every path of every document.
    let every_document = c.complete && !c.paths_capped && c.profile.too_deep == 0;
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

/// Cross-section growth of every array path, from the kept sample.
pub fn measure_growth(c: &mut CollectionReport) {
    for (path, g) in growth::cross_section(&c.profile, &c.kept) {
        set_growth(c, &path, g);
    }
}

fn set_growth(c: &mut CollectionReport, path: &str, g: growth::Growth) {
    if let Some(f) = c.fields.iter_mut().find(|f| f.path == path) {
        f.growth = Some(g.clone());
    }
    if let Some(f) = c.profile.fields.iter_mut().find(|f| f.path == path) {
        f.growth = Some(g);
    }
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
    c: &mut CollectionReport,
    dir: &std::path::Path,
    label: &str,
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
        let p99 = c.profile.doc_sizes.quantile(0.99) as f64;
        for (path, g) in snapshot::compare(old, &current, now, p99) {
            set_growth(c, &path, g);
        }
    }
    let stale = old
        .as_ref()
        .is_none_or(|o| now - o.taken_at > SNAPSHOT_MAX_AGE_SECS);
    if stale {
        if let Some(snap) = snapshot::take(&c.namespace, &c.profile, &c.kept, now) {
            snapshot::save(&file, &snap).map_err(|e| SourceError::Io {
                path: file.display().to_string(),
                reason: e.to_string(),
            })?;
        }
    }
    Ok(())
}

/// What the relationship stage asked of the source: one `distinct` probe
/// per (candidate path, compatible target key) pair, and one `$group` per
/// accepted reference whose fan-out is counted on the children.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct RelateCost {
    pub candidate_paths: u64,
    pub target_keys: u64,
    pub probes: u64,
    pub fanout_queries: u64,
}

/// Finds references between the collections of each database, measures
/// their fan-out and classifies them.
pub async fn relationships<S: Source>(
    source: &mut S,
    colls: &[CollectionReport],
    notes: &mut Vec<String>,
    cost: &mut RelateCost,
) -> Result<Vec<Relationship>, SourceError> {
    let views: Vec<CollectionView<'_>> = colls
        .iter()
        .map(|c| CollectionView {
            db: &c.meta.db,
            name: &c.meta.name,
            profile: &c.profile,
            docs: &c.kept,
            indexes: &c.indexes,
            documents: c.documents,
        })
        .collect();
    let cands = relate::candidates(&views);
    let targets = relate::target_keys(&views);
    cost.candidate_paths = cands.len() as u64;
    cost.target_keys = targets.len() as u64;
    let mut out = Vec::new();
    let mut referencing: Vec<(usize, Vec<Seg>)> = Vec::new();
    for cand in &cands {
        let mut best: Option<(f64, usize, u64)> = None;
        for (ti, t) in targets.iter().enumerate() {
            if !relate::worth_probing(cand, t, &views) {
                continue;
            }
            cost.probes += 1;
            let found = match source
                .probe(&colls[t.coll].meta, &t.key, &cand.values)
                .await
            {
                Ok(f) => f,
                Err(e) if fatal(&e) => return Err(e),
                Err(e) => {
                    notes.push(format!(
                        "reference probe of {} skipped: {e}",
                        colls[t.coll].namespace
                    ));
                    continue;
                }
            };
            let matched = found
                .iter()
                .filter_map(relate::value::of_bson)
                .filter(|k| cand.keys.contains(k))
                .count() as u64;
            let rate = matched as f64 / cand.keys.len().max(1) as f64;
            if relate::accept(cand, t, rate, &views)
                && best.is_none_or(|(r, bi, _)| {
                    rate > r
                        || ((rate - r).abs() < f64::EPSILON
                            && relate::name_affinity(cand, t, &views)
                            && !relate::name_affinity(cand, &targets[bi], &views))
                })
            {
                best = Some((rate, ti, matched));
            }
        }
        let Some((rate, ti, matched)) = best else {
            continue;
        };
        let t = &targets[ti];
        let from = &colls[cand.coll];
        let to = &colls[t.coll];
        let kind = relate::kind_of(cand, &from.profile);
        let (fanout, method, indexed) = fanout_of(source, cand, from, to, notes).await?;
        if method.as_deref() == Some(source.group_method()) {
            cost.fanout_queries += 1;
        }
        let growing = relate::holding_array(&cand.segments)
            .and_then(|arr| from.profile.fields.iter().find(|f| f.segments == arr))
            .and_then(|f| f.growth.as_ref())
            .is_some_and(|g| g.is_significant(0.5));
        referencing.push((cand.coll, cand.segments.clone()));
        // An array of ids is named by the array field itself (`kits.component_ids`).
        let from_path = if cand.segments.last() == Some(&Seg::Elem) {
            crate::profile::render_path(&cand.segments[..cand.segments.len() - 1])
        } else {
            cand.path.clone()
        };
        out.push(Relationship {
            from: format!("{}.{from_path}", from.namespace),
            to: format!("{}.{}", to.namespace, t.key),
            kind,
            cardinality: relate::Cardinality::of(fanout.as_ref().map_or(0, |f| f.max), growing),
            fanout,
            match_rate: crate::profile::sketch::round2(rate),
            probed: cand.keys.len() as u64,
            matched,
            fanout_method: method,
            indexed,
            from_ns: from.namespace.clone(),
            from_path,
            to_ns: to.namespace.clone(),
        });
    }
    relate::mark_two_way(&mut out);
    out.extend(relate::embedded(&views, &referencing));
    Ok(out)
}

/// Children per parent for one accepted reference.
async fn fanout_of<S: Source>(
    source: &mut S,
    cand: &relate::Candidate,
    from: &CollectionReport,
    to: &CollectionReport,
    notes: &mut Vec<String>,
) -> Result<(Option<Fanout>, Option<String>, Option<bool>), SourceError> {
    if let Some(arr) = relate::holding_array(&cand.segments) {
        // The parent holds its children's ids: the array length is the
        // fan-out, over every profiled document.
        let f = from
            .profile
            .fields
            .iter()
            .find(|f| f.segments == arr)
            .and_then(|f| f.array_lengths.as_ref())
            .and_then(Fanout::from_histogram);
        return Ok((f, Some("array-length".into()), None));
    }
    let dotted = query_path(&cand.segments);
    let indexed = Some(relate::has_leading_index(&from.indexes, &dotted));
    let big = from.documents.is_some_and(|d| d > GROUP_LIMIT);
    if !big {
        match source.group_counts(&from.meta, &dotted).await {
            Ok(mut counts) => {
                // Parents no child points at have zero children.
                let with_children: u64 = counts.iter().map(|c| c.1).sum();
                if let Some(parents) = to.documents {
                    if parents > with_children {
                        counts.push((0, parents - with_children));
                    }
                }
                let method = source.group_method();
                return Ok((Fanout::from_counts(&counts), Some(method.into()), indexed));
            }
            Err(e) if fatal(&e) => return Err(e),
            Err(e) => notes.push(format!(
                "fan-out of {}.{} estimated from the sample: {e}",
                from.namespace, cand.path
            )),
        }
    }
    // Count over the kept sample, scaled to the collection.
    let scale = match (from.documents, from.kept.len()) {
        (Some(d), n) if n > 0 => d as f64 / n as f64,
        _ => 1.0,
    };
    let mut per: std::collections::HashMap<relate::value::ValueKey, u64> =
        std::collections::HashMap::new();
    for d in &from.kept {
        for el in crate::profile::extract::values(d, &cand.segments) {
            if let Some(k) = relate::value::of_element(&el) {
                *per.entry(k).or_insert(0) += 1;
            }
        }
    }
    let mut hist = std::collections::BTreeMap::new();
    for n in per.into_values() {
        *hist
            .entry(((n as f64) * scale).round() as u64)
            .or_insert(0u64) += 1;
    }
    let counts: Vec<(u64, u64)> = hist.into_iter().collect();
    Ok((Fanout::from_counts(&counts), Some("sample".into()), indexed))
}
