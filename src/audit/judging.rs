//! The rules and their advice over what a run read: each collection judged
//! a window at a time on every core and handed out in the listing's
//! order, the deployment judged as a whole, and the findings a family of
//! collections shares said once.

use std::fmt::Write as _;

use crate::advise::{self, Advice};
use crate::i18n::Lang;
use crate::profile::parallel::map_ordered;
use crate::profile::threads_from_env;
use crate::relate;
use crate::report::{CollectionReport, InputError, Report};
use crate::rules::{self, CollectionCtx, DeploymentCtx};
use crate::source::{CollectionMeta, Documents, Insight};

use super::stages::{now_secs, Run};
use super::{rules_used, sampling_of, Collection, Control, Plan, Stage};

/// Collections judged at once on each core.
const WINDOW_PER_CORE: usize = 4;

impl Run<'_> {
    /// Judges every collection read by the rules and hands each to `out`
    /// with the report's head, in the listing's order; the report returned
    /// has the run's findings, relationships, errors and notes, and no
    /// collection.
    pub(crate) fn judge<S: Documents + Insight>(
        mut self,
        source: &S,
        control: &mut Control<'_>,
        out: &mut dyn FnMut(&Report, CollectionReport),
    ) -> Report {
        let plan = self.plan;
        super::stages::begin(control, Stage::Rules, self.total);
        let now = now_secs();
        let relationships = std::mem::take(&mut self.relationships);
        for c in &mut self.collections {
            c.relationships = relationships
                .iter()
                .enumerate()
                .filter(|(_, r)| r.from_ns == c.namespace || r.to_ns == c.namespace)
                .map(|(i, _)| i)
                .collect();
        }
        let collections = std::mem::take(&mut self.collections);
        let mut deployment = deployment_findings(&collections, plan);
        let mut families = family_repeats(&collections, plan, &deployment);
        let kept_bytes: usize = collections.iter().flat_map(|c| &c.kept).map(Vec::len).sum();
        let shelf_peak = self.shelf.usage().in_memory;
        let n_collections = collections.len();
        let mut report = Report::empty(
            std::mem::take(&mut self.label),
            sampling_of(plan),
            rules_used(plan),
            plan.memory as u64,
        );
        let workload = self.workload.take();
        let mut linked_workload = workload.as_deref().cloned();
        // The rules and their advice, a window of collections at a time on
        // every core, each collection's profile taken back from the shelf for
        // them and handed out, judged, in the listing's order.
        let window = threads_from_env().max(1) * WINDOW_PER_CORE;
        let mut pending = collections
            .into_iter()
            .zip(std::mem::take(&mut self.drift))
            .peekable();
        while pending.peek().is_some() {
            let mut batch: Vec<(Collection, Vec<relate::drift::DriftCheck>)> =
                Vec::with_capacity(window);
            for (mut c, d) in pending.by_ref().take(window) {
                match c.unshelve(&self.shelf) {
                    Ok(()) => batch.push((c, d)),
                    Err(e) => {
                        let ns = &c.namespace;
                        self.errors.push(InputError {
                            target: ns.clone(),
                            message: plan.lang.pick(
                                format!("{ns} was read but could not be judged: {e}"),
                                format!("{ns} 已读取，但无法评判：{e}"),
                            ),
                        });
                    }
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
                // A GridFS bucket is the driver's layout, not the
                // application's design: reported, not judged.
                if c.meta.kind.is_gridfs() {
                    return Vec::new();
                }
                let found = rules::check_collection(&ctx, &plan.thresholds, plan.lang);
                found
                    .into_iter()
                    .map(|f| advise::advise(&ctx, f, plan.lang))
                    .collect()
            });
            for ((mut c, _), f) in batch.into_iter().zip(findings_per) {
                c.findings = f;
                for fam in &mut families {
                    fam.thin(&mut c, plan.lang);
                }
                c.round_trips = source.round_trips(&c.namespace);
                if let Some(w) = linked_workload.take() {
                    linked_workload = Some(crate::report::linked(w, c.findings.iter()));
                }
                out(&report, c.into_report());
            }
        }
        for fam in &families {
            fam.record(&mut deployment, plan.lang);
        }
        report.errors = std::mem::take(&mut self.errors);
        report.relationships = relationships;
        report.findings = deployment;
        report.relationship_cost = std::mem::take(&mut self.cost);
        report.workload = linked_workload;
        self.notes(source, &mut report, kept_bytes, shelf_peak, n_collections);
        report
    }
}

/// The findings a collection's own rules ([`rules::ALONE_RULES`]) make as
/// soon as it is read, for the explorer to show while the rest is read:
/// the same findings the whole run will make for those rules, their advice
/// pending (it comes with the run, which may weigh references and copies).
pub fn early_findings(c: &Collection, plan: &Plan) -> Vec<Advice> {
    let gridfs = crate::source::gridfs::part_of(&c.meta.name).is_some_and(|(_, part)| {
        crate::source::gridfs::shape(part, c.profile.sampled, &c.profile.fields, &c.meta.indexes)
            == crate::source::gridfs::Shape::Part
    });
    if gridfs || c.meta.kind.is_gridfs() {
        return Vec::new();
    }
    let ctx = CollectionCtx {
        data: c.data(),
        relationships: Vec::new(),
        drift: Vec::new(),
        index_usage: c.meta.index_usage.as_deref(),
        now: now_secs(),
        workload: None,
    };
    rules::check_collection_alone(&ctx, &plan.thresholds, plan.lang)
        .into_iter()
        .map(|f| advise::pending(f, plan.lang))
        .collect()
}

/// The rules that read the query shapes alone, on each namespace of a
/// workload read without its target: no document, count or index is known.
pub(super) fn workload_findings(plan: &Plan, workload: &crate::workload::Workload) -> Vec<Advice> {
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

fn deployment_findings(collections: &[Collection], plan: &Plan) -> Vec<Advice> {
    let ctx = deployment_ctx(collections);
    rules::check_deployment(&ctx, &plan.thresholds, plan.lang)
        .into_iter()
        .map(|f| advise::advise_deployment(f, plan.lang))
        .collect()
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
    fn thin(&mut self, c: &mut Collection, lang: Lang) {
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
            let n = before - c.findings.len();
            c.notes.push(lang.pick(
                format!("{n} findings it shares with the other collections of its family are said once, on {first} (collection-per-tenant)"),
                format!("它与同族其他集合共有的 {n} 项发现只在 {first} 上说一次（collection-per-tenant）"),
            ));
        }
    }

    /// The counts, in the family's finding.
    fn record(&self, findings: &mut [Advice], lang: Lang) {
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
            let (n, first) = (repeated.len(), self.first.as_deref().unwrap_or(""));
            let _ = match lang {
                Lang::En => write!(
                    f.finding.message,
                    "; {n} findings repeated across its members are said once, on {first}"
                ),
                Lang::Zh => write!(
                    f.finding.message,
                    "；成员间重复的 {n} 项发现只在 {first} 上说一次"
                ),
            };
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

/// The deployment as its rules see it: the application's collections,
/// GridFS buckets left out.
fn deployment_ctx(collections: &[Collection]) -> DeploymentCtx<'_> {
    let collections: Vec<&Collection> = collections
        .iter()
        .filter(|c| !c.meta.kind.is_gridfs())
        .collect();
    let mut dbs: Vec<(&str, Vec<&str>)> = Vec::new();
    for c in collections.iter().copied() {
        match dbs.iter_mut().find(|(d, _)| *d == c.meta.db) {
            Some((_, names)) => names.push(&c.meta.name),
            None => dbs.push((&c.meta.db, vec![&c.meta.name])),
        }
    }
    DeploymentCtx {
        total: collections.len(),
        databases: dbs,
        summaries: collections
            .into_iter()
            .map(|c| rules::CollectionSummary {
                db: &c.meta.db,
                name: &c.meta.name,
                shape: &c.shape,
                ids: &c.ids,
                documents: c.documents,
                complete: c.complete,
                top: &c.top,
            })
            .collect(),
    }
}
