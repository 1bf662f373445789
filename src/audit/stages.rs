//! The stages of a run over one state ([`Run`]): the workload, the
//! listing, the reading, then the stages that ask the source again about
//! what was read — indexed fields, growth over time, relationships and
//! copies — before the rules judge it ([`super::judging`]).

use std::sync::Arc;
use std::time::Duration;

use crate::advise;
use crate::growth::{self, snapshot};
use crate::i18n::Lang;
use crate::profile::shelf::Shelf;
use crate::relate::{self, CollectionView, RelateCost};
use crate::report::{InputError, Report};
use crate::rules;
use crate::source::gridfs;
use crate::source::{
    CollectionKind, CollectionMeta, Documents, Insight, Probes, Selection, SourceError,
};
use crate::workload::Workload;

use super::budget::{self, shelf_share};
use super::reading;
use super::{Collection, Control, Plan, Progress, Stage};

/// Everything a run holds between its stages.
pub(crate) struct Run<'a> {
    pub plan: &'a Plan,
    /// Collections listed.
    pub total: usize,
    /// The run's notes, in the order they were written.
    pub notes: Vec<String>,
    /// The query shapes the rules read.
    pub workload: Option<Arc<Workload>>,
    /// The collections read, in the listing's order.
    pub collections: Vec<Collection>,
    /// Those that could not be read, or judged.
    pub errors: Vec<InputError>,
    /// The reading ran to its end: the later stages may ask the source.
    pub asks_server: bool,
    /// The profiles of the collections read wait here for the others.
    pub shelf: Shelf,
    /// The source's name for the report and the snapshots.
    pub label: String,
    pub relationships: Vec<relate::Relationship>,
    /// The copies of each collection checked against their source.
    pub drift: Vec<Vec<relate::drift::DriftCheck>>,
    pub cost: RelateCost,
}

/// Says `stage` begins, after `total` collections were listed.
pub(super) fn begin(control: &mut Control<'_>, stage: Stage, total: usize) {
    (control.progress)(&Progress {
        stage,
        finished: None,
        namespace: "",
        position: (total, total),
        documents: 0,
        expected: None,
        elapsed: Duration::ZERO,
        done: false,
    });
}

impl<'a> Run<'a> {
    pub(crate) fn new(plan: &'a Plan) -> Run<'a> {
        Run {
            plan,
            total: 0,
            notes: Vec::new(),
            workload: None,
            collections: Vec::new(),
            errors: Vec::new(),
            asks_server: true,
            shelf: Shelf::new(shelf_share(plan.memory)),
            label: String::new(),
            relationships: Vec::new(),
            drift: Vec::new(),
            cost: RelateCost::default(),
        }
    }

    /// The query shapes: the plan's, or the server's profiler read before
    /// any collection is (`--workload profile`).
    pub(crate) async fn workload<S: Insight>(
        &mut self,
        source: &S,
        control: &mut Control<'_>,
    ) -> Result<(), SourceError> {
        self.workload = if self.plan.workload_profile {
            begin(control, Stage::Workload, 0);
            Some(Arc::new(
                profiled_workload(source, self.plan, &mut self.notes).await?,
            ))
        } else {
            self.plan.workload.clone()
        };
        Ok(())
    }

    /// The collections to read.
    pub(crate) async fn listing<S: Documents>(
        &mut self,
        source: &mut S,
        control: &mut Control<'_>,
    ) -> Result<Vec<CollectionMeta>, SourceError> {
        begin(control, Stage::Listing, 0);
        let mut metas = source.collections(&self.plan.selection).await?;
        if let Some(note) = leave_out_backups(&mut metas, &self.plan.selection, self.plan.lang) {
            self.notes.push(note);
        }
        self.total = metas.len();
        Ok(metas)
    }

    /// Reads the collections listed. When nothing could be read but the
    /// one collection selected, its error is the run's, said once.
    pub(crate) async fn read<S: Documents>(
        &mut self,
        source: &S,
        metas: Vec<CollectionMeta>,
        control: &mut Control<'_>,
    ) -> Result<(), SourceError> {
        let read = reading::read_all(source, metas, self.plan, control, &self.shelf).await?;
        if let Some(why) = &read.cut_short {
            self.notes.push(self.plan.lang.pick(
                format!("{why}; indexed fields, growth snapshots, relationships and copies were not checked"),
                format!("{why}；未检查索引字段、增长快照、关系和副本"),
            ));
        }
        self.asks_server = read.cut_short.is_none();
        if let (0, 1, Some(e)) = (read.collections.len(), read.errors.len(), read.first_error) {
            return Err(e);
        }
        self.collections = read.collections;
        self.errors = read.errors;
        Ok(())
    }

    /// Looks in the whole collection for the indexed fields its sample
    /// lacks ([`check_index_fields`]).
    pub(crate) async fn check_indexes<S: Probes>(
        &mut self,
        source: &mut S,
        control: &mut Control<'_>,
    ) -> Result<(), SourceError> {
        begin(control, Stage::Indexes, self.total);
        let lang = self.plan.lang;
        for c in self.collections.iter_mut().filter(|_| self.asks_server) {
            if let Err(e) = c.bring_back(&self.shelf) {
                c.notes.push(lang.pick(
                    format!("indexed fields were not checked: {e}"),
                    format!("未检查索引字段：{e}"),
                ));
                continue;
            }
            let checked = check_index_fields(source, c).await;
            c.put_back();
            if let Err(e) = checked {
                if e.is_fatal() {
                    return Err(e);
                }
                c.notes.push(lang.pick(
                    format!("indexed fields absent from the sample were not looked for in the whole collection: {e}"),
                    format!("样本中缺少的索引字段未在整个集合中查找：{e}"),
                ));
            }
        }
        Ok(())
    }

    /// GridFS buckets: each collection shaped as a bucket's part
    /// ([`gridfs::shape`]) takes the part's kind, and the bucket's figures
    /// are measured on the source and given to both its parts.
    pub(crate) async fn gridfs<S: Probes>(&mut self, source: &mut S) -> Result<(), SourceError> {
        use gridfs::{Part, Shape};
        let mut found: Vec<(usize, String, Part, Shape)> = Vec::new();
        for (i, c) in self.collections.iter_mut().enumerate() {
            let Some((bucket, part)) = gridfs::part_of(&c.meta.name) else {
                continue;
            };
            let bucket = bucket.to_owned();
            if c.bring_back(&self.shelf).is_err() {
                continue;
            }
            let shape = gridfs::shape(part, c.profile.sampled, &c.profile.fields, &c.meta.indexes);
            c.put_back();
            found.push((i, bucket, part, shape));
        }
        let other_is_part = |db: &str, bucket: &str, part: Part| {
            found.iter().any(|(j, b, p, s)| {
                b == bucket && *p != part && *s == Shape::Part && self.collections[*j].meta.db == db
            })
        };
        let parts: Vec<(usize, String, Part)> = found
            .iter()
            .filter(|(i, bucket, part, shape)| match shape {
                Shape::Part => true,
                Shape::Other => false,
                Shape::Empty { indexed } => {
                    *indexed || other_is_part(&self.collections[*i].meta.db, bucket, *part)
                }
            })
            .map(|(i, b, p, _)| (*i, b.clone(), *p))
            .collect();
        for (i, _, part) in &parts {
            self.collections[*i].meta.kind = match part {
                Part::Files => CollectionKind::GridfsFiles,
                Part::Chunks => CollectionKind::GridfsChunks,
            };
        }
        let mut measured: Vec<(String, String)> = Vec::new();
        for (i, bucket, _) in &parts {
            let db = self.collections[*i].meta.db.clone();
            if measured.contains(&(db.clone(), bucket.clone())) {
                continue;
            }
            measured.push((db.clone(), bucket.clone()));
            let of = |part: Part| {
                parts
                    .iter()
                    .find(|(j, b, p)| {
                        b == bucket && *p == part && self.collections[*j].meta.db == db
                    })
                    .map(|(j, _, _)| {
                        (
                            self.collections[*j].meta.clone(),
                            self.collections[*j].documents,
                        )
                    })
            };
            let (files, chunks) = (of(Part::Files), of(Part::Chunks));
            let b = gridfs::Bucket {
                name: bucket,
                files: files.as_ref().map(|(m, n)| (m, *n)),
                chunks: chunks.as_ref().map(|(m, n)| (m, *n)),
            };
            let figures = if self.asks_server {
                gridfs::measure(source, &b).await?
            } else {
                gridfs::Gridfs {
                    bucket: bucket.clone(),
                    files: b.files.and_then(|(_, n)| n),
                    chunks: b.chunks.and_then(|(_, n)| n),
                    not_measured: vec![
                        "the reading stopped early: sizes and orphan chunks were not measured"
                            .to_owned(),
                    ],
                    ..gridfs::Gridfs::default()
                }
            };
            for (j, bj, _) in &parts {
                if bj == bucket && self.collections[*j].meta.db == db {
                    self.collections[*j].meta.gridfs = Some(figures.clone());
                }
            }
        }
        Ok(())
    }

    /// Growth over time, against the last snapshot of each collection:
    /// growth across the kept sample was measured as each was read.
    pub(crate) async fn growth<S: Documents + Probes>(
        &mut self,
        source: &mut S,
        control: &mut Control<'_>,
    ) -> Result<(), SourceError> {
        self.label = source.label();
        begin(control, Stage::Growth, self.total);
        let Some(dir) = self.plan.snapshots.as_ref().filter(|_| self.asks_server) else {
            return Ok(());
        };
        let lang = self.plan.lang;
        let skipped = |e: &dyn std::fmt::Display| {
            lang.pick(
                format!("growth snapshot skipped: {e}"),
                format!("跳过了增长快照：{e}"),
            )
        };
        let min_corr = self.plan.thresholds.unbounded_array.min_correlation;
        for c in &mut self.collections {
            if let Err(e) = c.bring_back(&self.shelf) {
                c.notes.push(skipped(&e));
                continue;
            }
            let taken = snapshot_growth(source, c, dir, &self.label, min_corr).await;
            c.put_back();
            if let Err(e) = taken {
                if e.is_fatal() {
                    return Err(e);
                }
                c.notes.push(skipped(&e));
            }
        }
        Ok(())
    }

    /// References between the collections, and the copies of each
    /// checked against their source.
    pub(crate) async fn relationships<S: Probes>(
        &mut self,
        source: &mut S,
        control: &mut Control<'_>,
    ) -> Result<(), SourceError> {
        let views: Vec<CollectionView<'_>> = self
            .collections
            .iter()
            .map(|c| c.view(&self.shelf))
            .collect();
        begin(control, Stage::Relationships, self.total);
        let cost = &mut self.cost;
        let relationships = if self.plan.relationships && self.asks_server {
            let mut found =
                relate::discover::relationships(source, &views, &mut self.notes, cost).await?;
            relate::discover::two_way_checks(source, &views, &mut found, &mut self.notes, cost)
                .await?;
            found
        } else {
            Vec::new()
        };
        let mut drift = Vec::with_capacity(self.collections.len());
        for (i, c) in self.collections.iter().enumerate() {
            if !self.asks_server {
                drift.push(Vec::new());
                continue;
            }
            match relate::discover::drift_checks(source, i, &views, &relationships, cost).await {
                Ok(d) => drift.push(d),
                Err(e) if e.is_fatal() => return Err(e),
                Err(e) => {
                    let ns = &c.namespace;
                    self.notes.push(self.plan.lang.pick(
                        format!("copies in {ns} not checked against their source: {e}"),
                        format!("{ns} 中的副本未与其来源核对：{e}"),
                    ));
                    drift.push(Vec::new());
                }
            }
        }
        drop(views);
        self.relationships = relationships;
        self.drift = drift;
        Ok(())
    }

    /// The report's notes: the source's, the run's, and what keeping to
    /// the memory budget took (`kept_bytes` of documents, `shelf_peak` of
    /// profiles in memory, for `collections` collections).
    pub(crate) fn notes<S: Documents>(
        &mut self,
        source: &S,
        report: &mut Report,
        kept_bytes: usize,
        shelf_peak: usize,
        collections: usize,
    ) {
        let lang = self.plan.lang;
        report.notes = source
            .notes()
            .iter()
            .map(|t| t.get(lang).to_owned())
            .collect();
        report.notes.append(&mut self.notes);
        let shelved = self.shelf.usage();
        if let Some(failure) = &shelved.failure {
            report.notes.push(failure.clone());
        }
        if shelved.spilled > 0 {
            report.notes.push(budget::spilled(
                lang,
                shelved.spilled,
                shelved.profiles,
                shelved.on_disk,
            ));
        }
        report.peak_memory_bytes = super::peak_memory_bytes();
        if let Some(note) = budget::over_budget(
            lang,
            report.peak_memory_bytes,
            self.plan.memory,
            kept_bytes,
            shelf_peak,
            collections,
        ) {
            report.notes.push(note);
        }
    }
}

/// Takes the backup collections docshape's own scripts made
/// ([`advise::change::backed_up`]) out of `metas`, unless `-c` names one
/// without a wildcard or it is all there is (a file named on its own):
/// copies of documents saved before a change are not the application's
/// collections. The note naming them, if any were.
fn leave_out_backups(
    metas: &mut Vec<CollectionMeta>,
    selection: &Selection,
    lang: Lang,
) -> Option<String> {
    if metas.len() < 2 {
        return None;
    }
    let named = |m: &CollectionMeta| selection.collections.iter().any(|p| *p == m.namespace());
    let mut left: Vec<String> = Vec::new();
    metas.retain(|m| match advise::change::backed_up(&m.name) {
        Some(of) if !named(m) => {
            left.push(lang.pick(
                format!("{} (of {}.{of})", m.namespace(), m.db),
                format!("{}（{}.{of} 的备份）", m.namespace(), m.db),
            ));
            false
        }
        _ => true,
    });
    let n = left.len();
    (n > 0).then(|| lang.pick(
        format!(
            "left out {n} backup collection{} made by docshape's migration scripts: {}; {} the documents a script saved before changing them, not the application's data: drop each once its change is verified",
            if n == 1 { "" } else { "s" },
            left.join(", "),
            if n == 1 { "it holds" } else { "they hold" },
        ),
        format!(
            "已略过 docshape 迁移脚本创建的 {n} 个备份集合：{}；其中是脚本修改文档之前保存的副本，不是应用的数据：确认修改无误后即可删除",
            left.join("、"),
        ),
    ))
}

/// The workload of the server's profiler (`--workload profile`), with
/// its notes; a source without one (files) gives an empty workload and a
/// note saying so.
pub(crate) async fn profiled_workload<S: Insight>(
    source: &S,
    plan: &Plan,
    notes: &mut Vec<String>,
) -> Result<Workload, SourceError> {
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

/// A sample is not the collection: for each index that reads only fields
/// no sampled document has, or whose leading key no sampled document has
/// (and whose kind makes that meaningful), looks for them in the whole
/// collection — unless every document was profiled — and records the
/// result for `unused-index`.
pub async fn check_index_fields<S: Probes>(
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

fn set_growth(c: &mut Collection, path: &str, g: growth::Growth) {
    c.growth.insert(path.to_owned(), g);
}

/// Snapshots older than this are replaced by a fresh one.
const SNAPSHOT_MAX_AGE_SECS: f64 = 30.0 * 86_400.0;

pub(super) fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// Growth over time: compares with the previous snapshot of this
/// collection, if any, and keeps a snapshot for the next run.
async fn snapshot_growth<S: Probes>(
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
