//! Exercises: each lesson ends with one or more tasks on its bad data
//! set(s), hints that get more specific, and a check that grades the
//! student's fix on a server seeded with `docshape seed`.
//!
//! A check reads a [`View`] of the student's databases (`<prefix><data
//! set>`): docshape's own audit of each one, and read-only counts and
//! reads on the server where documents or array elements must be counted
//! against what `seed` wrote ([`seeded`]: the data sets are deterministic).
//! It passes only on a real refactor: the rule that fired no longer fires,
//! nothing is lost, moved data is reachable through its new reference (with
//! an index where the lesson asks for one), and the design is the one the
//! lesson teaches. Nothing here writes: the view offers no write, and its
//! aggregations refuse `$out` and `$merge`.
//!
//! One file per lesson (`cardinality.rs` …), each exporting
//! `pub const EXERCISES: &[Exercise]`; [`ALL`] lists them.

mod bucket;
mod cardinality;
mod checks;
mod computed;
mod denormalization;
mod esr;
mod extended_reference;
mod indexes;
mod parts;
mod polymorphic;
mod pre_aggregated;
mod refine_by_workload;
mod two_way;
mod when_to_reference;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use bson::{doc, Bson, Document};
use futures_util::TryStreamExt;

use crate::advise::Advice;
use crate::fmt::group;
use crate::i18n::{Lang, Text};
use crate::report::{CollectionReport, Report};
use crate::source::{MongoSource, SourceError};

pub use parts::{ChildMove, Moved};

/// Every lesson's exercises: one line per lesson file, in the lessons'
/// order (kept one per line, so lessons are added without touching each
/// other's lines).
#[rustfmt::skip]
pub const ALL: &[&[Exercise]] = &[
    cardinality::EXERCISES,
    two_way::EXERCISES,
    denormalization::EXERCISES,
    when_to_reference::EXERCISES,
    polymorphic::EXERCISES,
    bucket::EXERCISES,
    computed::EXERCISES,
    extended_reference::EXERCISES,
    pre_aggregated::EXERCISES,
    indexes::EXERCISES,
    esr::EXERCISES,
    refine_by_workload::EXERCISES,
];

/// The exercises of lesson `name`, in order.
pub(crate) fn of(lesson: &str) -> Vec<&'static Exercise> {
    ALL.iter()
        .flat_map(|l| l.iter())
        .filter(|e| e.lesson == lesson)
        .collect()
}

/// What a check returns: a future borrowing the view.
pub type Checking<'a> = Pin<Box<dyn Future<Output = Result<Verdict, SourceError>> + 'a>>;

/// A check: the student's databases, audited, in; a verdict out. Write one
/// as `fn check(v: &View) -> Checking<'_> { Box::pin(async move { … }) }`.
pub type Check = for<'a> fn(&'a View) -> Checking<'a>;

/// One exercise of a lesson.
pub struct Exercise {
    /// `lesson/short-name`, unique.
    pub id: &'static str,
    pub lesson: &'static str,
    /// The data sets it works on (each seeded as `<prefix><name>`).
    pub datasets: &'static [&'static str],
    /// The task, in a sentence or two (English, Chinese).
    pub task: (&'static str, &'static str),
    /// Hints, each more specific than the one before.
    pub hints: &'static [(&'static str, &'static str)],
    pub check: Check,
}

impl Exercise {
    pub(crate) fn task(&self, lang: Lang) -> &'static str {
        lang.pick(self.task.0, self.task.1)
    }

    /// Hint `n` (the last one when `n` is past the end).
    pub(crate) fn hint(&self, n: usize, lang: Lang) -> Option<&'static str> {
        let h = self.hints.get(n.min(self.hints.len().saturating_sub(1)))?;
        Some(lang.pick(h.0, h.1))
    }
}

/// A check's verdict.
#[derive(Debug)]
pub enum Verdict {
    /// Passed; what was confirmed.
    Pass(Vec<Text>),
    /// Not yet: the evidence that still stands, and which hint fits it.
    Fail { evidence: Vec<Text>, hint: usize },
}

impl Verdict {
    pub(crate) fn passed(&self) -> bool {
        matches!(self, Verdict::Pass(_))
    }

    /// A failure with one piece of evidence.
    pub(crate) fn fail(evidence: Text, hint: usize) -> Verdict {
        Verdict::Fail {
            evidence: vec![evidence],
            hint,
        }
    }
}

/// Evidence gathered by a check: each failure with the hint it calls for;
/// the verdict fails when any was added, pointing at the least specific
/// hint among them.
#[derive(Default)]
pub struct Tally {
    evidence: Vec<Text>,
    hint: Option<usize>,
}

impl Tally {
    pub(crate) fn fail(&mut self, t: Text, hint: usize) {
        self.evidence.push(t);
        self.hint = Some(self.hint.map_or(hint, |h| h.min(hint)));
    }

    /// Adds a failed verdict's evidence.
    pub(crate) fn add(&mut self, v: Option<Verdict>) {
        if let Some(Verdict::Fail { evidence, hint }) = v {
            for t in evidence {
                self.fail(t, hint);
            }
        }
    }

    /// Adds every finding of `rule` still standing on the data set.
    pub(crate) fn rule(&mut self, v: &View, dataset: &str, rule: &str, hint: usize) {
        self.add(rule_gone(v, dataset, rule, hint));
    }

    pub(crate) fn failed(&self) -> bool {
        self.hint.is_some()
    }

    /// The verdict: failed with the evidence gathered, or passed with
    /// `confirmed`.
    pub(crate) fn verdict(self, confirmed: Vec<Text>) -> Verdict {
        match self.hint {
            Some(hint) => Verdict::Fail {
                evidence: self.evidence,
                hint,
            },
            None => Verdict::Pass(confirmed),
        }
    }
}

/// The student's databases as a check sees them: the audit of each data
/// set's database, and a read-only handle on the server.
pub struct View {
    prefix: String,
    /// Data set → its database's audit (absent: the database is gone).
    reports: BTreeMap<String, Report>,
    server: MongoSource,
}

/// Pipeline stages that write; a view never sends them.
const WRITING_STAGES: [&str; 2] = ["$out", "$merge"];

impl View {
    /// The database a data set was seeded into.
    pub(crate) fn db(&self, dataset: &str) -> String {
        format!("{}{dataset}", self.prefix)
    }

    /// The audit of a data set's database (`None` when it holds nothing).
    pub(crate) fn report(&self, dataset: &str) -> Option<&Report> {
        self.reports.get(dataset)
    }

    /// A collection's report.
    pub(crate) fn collection(&self, dataset: &str, coll: &str) -> Option<&CollectionReport> {
        self.report(dataset)?
            .collections
            .iter()
            .find(|c| c.meta.name == coll)
    }

    /// The collections of a data set's database, by name.
    pub(crate) fn collections(&self, dataset: &str) -> Vec<&CollectionReport> {
        self.report(dataset)
            .map(|r| r.collections.iter().collect())
            .unwrap_or_default()
    }

    /// The findings of `rule` on the data set's database outside its good
    /// variant (on any other collection, or on the database itself).
    pub(crate) fn fired(&self, dataset: &str, rule: &str) -> Vec<&Advice> {
        let Some(r) = self.report(dataset) else {
            return Vec::new();
        };
        r.collections
            .iter()
            .filter(|c| !c.meta.name.starts_with("good_"))
            .flat_map(|c| c.findings.iter())
            .chain(r.findings.iter())
            .filter(|f| f.rule == rule)
            .collect()
    }

    /// Whether a collection has an index whose first key is `field`.
    pub(crate) fn indexed(&self, dataset: &str, coll: &str, field: &str) -> bool {
        self.collection(dataset, coll).is_some_and(|c| {
            c.indexes
                .iter()
                .any(|i| i.key.keys().next().is_some_and(|k| k == field))
        })
    }

    fn timeout(&self) -> Duration {
        self.server.timeout()
    }

    /// The driver's handle on a collection of a data set's database.
    fn handle(&self, dataset: &str, coll: &str) -> mongodb::Collection<Document> {
        self.server
            .client()
            .database(&self.db(dataset))
            .collection::<Document>(coll)
    }

    /// Documents of a collection matching `filter` (a `count` bounded by
    /// the timeout; 0 for a collection that does not exist).
    pub(crate) async fn count(
        &self,
        dataset: &str,
        coll: &str,
        filter: Document,
    ) -> Result<u64, SourceError> {
        let c = self.handle(dataset, coll);
        let what = format!("counting documents of {}.{coll}", self.db(dataset));
        self.server
            .call(&what, async {
                c.count_documents(filter).max_time(self.timeout()).await
            })
            .await
    }

    /// Up to `limit` documents of a collection matching `filter`.
    pub(crate) async fn find(
        &self,
        dataset: &str,
        coll: &str,
        filter: Document,
        limit: i64,
    ) -> Result<Vec<Document>, SourceError> {
        let c = self.handle(dataset, coll);
        let what = format!("reading {}.{coll}", self.db(dataset));
        self.server
            .call(&what, async {
                c.find(filter)
                    .limit(limit)
                    .max_time(self.timeout())
                    .await?
                    .try_collect()
                    .await
            })
            .await
    }

    /// The `_id`s of a collection's documents (as map keys: their
    /// Extended JSON), read with a projection; empty for a collection that
    /// does not exist.
    pub(crate) async fn id_keys(
        &self,
        dataset: &str,
        coll: &str,
    ) -> Result<std::collections::BTreeSet<String>, SourceError> {
        let c = self.handle(dataset, coll);
        let what = format!("reading the _ids of {}.{coll}", self.db(dataset));
        let docs: Vec<Document> = self
            .server
            .call(&what, async {
                c.find(Document::new())
                    .projection(doc! {"_id": 1})
                    .max_time(self.timeout())
                    .await?
                    .try_collect()
                    .await
            })
            .await?;
        Ok(docs.iter().map(|d| parts::key(d.get("_id"))).collect())
    }

    /// As [`View::find`], with a projection.
    pub(crate) async fn find_fields(
        &self,
        dataset: &str,
        coll: &str,
        filter: Document,
        projection: Document,
        limit: i64,
    ) -> Result<Vec<Document>, SourceError> {
        let c = self.handle(dataset, coll);
        let what = format!("reading {}.{coll}", self.db(dataset));
        self.server
            .call(&what, async {
                c.find(filter)
                    .projection(projection)
                    .limit(limit)
                    .max_time(self.timeout())
                    .await?
                    .try_collect()
                    .await
            })
            .await
    }

    /// The result of a read-only aggregation (`$out` and `$merge` are
    /// refused).
    pub(crate) async fn aggregate(
        &self,
        dataset: &str,
        coll: &str,
        pipeline: Vec<Document>,
    ) -> Result<Vec<Document>, SourceError> {
        if let Some(stage) = pipeline
            .iter()
            .flat_map(|s| s.keys())
            .find(|k| WRITING_STAGES.contains(&k.as_str()))
        {
            return Err(SourceError::NotFound(format!(
                "an exercise check may not write ({stage})"
            )));
        }
        let c = self.handle(dataset, coll);
        let what = format!("aggregating {}.{coll}", self.db(dataset));
        self.server
            .call(&what, async {
                c.aggregate(pipeline)
                    .max_time(self.timeout())
                    .await?
                    .try_collect()
                    .await
            })
            .await
    }
}

/// What `docshape seed` wrote into collection `coll` of data set
/// `dataset`, generated documents included (seed is deterministic).
pub(crate) fn seeded(dataset: &str, coll: &str) -> Vec<Document> {
    let Some(ds) = crate::seed::datasets::build(dataset) else {
        return Vec::new();
    };
    let Some(c) = ds.collections.into_iter().find(|c| c.name == coll) else {
        return Vec::new();
    };
    let mut docs = c.docs;
    if let Some(g) = c.generated {
        docs.extend(g());
    }
    docs
}

/// The `_id`s of documents.
pub(crate) fn ids(docs: &[Document]) -> Vec<Bson> {
    docs.iter().filter_map(|d| d.get("_id").cloned()).collect()
}

/// The evidence of a finding still firing: rule, place and its message.
pub(crate) fn still_fires(f: &Advice) -> Text {
    let place = match &f.path {
        Some(p) => format!("{}.{p}", f.namespace),
        None => f.namespace.clone(),
    };
    Text::new(
        format!("{} still fires on {place}: {}", f.rule, f.message),
        format!("{} 仍然在 {place} 上触发：{}", f.rule, f.message),
    )
}

/// Fails with the findings of `rule` still standing on the data set, if
/// any.
pub(crate) fn rule_gone(v: &View, dataset: &str, rule: &str, hint: usize) -> Option<Verdict> {
    let fired = v.fired(dataset, rule);
    if fired.is_empty() {
        return None;
    }
    Some(Verdict::Fail {
        evidence: fired.into_iter().map(still_fires).collect(),
        hint,
    })
}

/// Fails when collection `coll` of the data set no longer holds the
/// documents seed wrote (counted by `_id`).
pub(crate) async fn documents_kept(
    v: &View,
    dataset: &str,
    coll: &str,
    hint: usize,
) -> Result<Option<Verdict>, SourceError> {
    let want = ids(&seeded(dataset, coll));
    let present = v.id_keys(dataset, coll).await?;
    let have = want
        .iter()
        .filter(|b| present.contains(&parts::key(Some(b))))
        .count() as u64;
    if have as usize >= want.len() {
        return Ok(None);
    }
    let (w, h) = (group(want.len() as u64), group(have));
    let what = if v.collection(dataset, coll).is_none() && have == 0 {
        Text::new(
            format!("{coll} is gone: seed wrote {w} documents into it, none is left"),
            format!("{coll} 已经不存在了：seed 向其中写入了 {w} 个文档，现在一个也没有"),
        )
    } else {
        Text::new(
            format!(
                "{coll} lost documents: seed wrote {w}, {h} of them are still there ({} missing)",
                group(want.len() as u64 - have)
            ),
            format!(
                "{coll} 丢失了文档：seed 写入了 {w} 个，只剩 {h} 个（缺少 {} 个）",
                group(want.len() as u64 - have)
            ),
        )
    };
    Ok(Some(Verdict::fail(what, hint)))
}

/// Why checking could not start.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{0}")]
    Source(#[from] SourceError),
    #[error("none of the databases {dbs} is on the server: seed them first (docshape seed URI --prefix {prefix})")]
    NotSeeded { dbs: String, prefix: String },
}

/// One exercise checked.
pub struct Checked {
    pub exercise: &'static Exercise,
    pub verdict: Verdict,
}

/// Audits the data sets of `exercises` on the server at `uri` (databases
/// `<prefix><data set>`) and runs each check.
pub(crate) async fn check(
    exercises: &[&'static Exercise],
    uri: &str,
    prefix: &str,
    lang: Lang,
    timeout: Duration,
) -> Result<Vec<Checked>, CheckError> {
    use crate::audit::{self, Plan};
    use crate::source::{SampleMode, Selection};
    let mut server = crate::target::connect(uri, timeout).await?;
    let mut sets: Vec<&str> = exercises
        .iter()
        .flat_map(|e| e.datasets.iter().copied())
        .collect();
    sets.sort_unstable();
    sets.dedup();
    let present: Vec<String> = server
        .call("listing databases", async {
            server.client().list_database_names().await
        })
        .await?;
    if !sets
        .iter()
        .any(|s| present.contains(&format!("{prefix}{s}")))
    {
        return Err(CheckError::NotSeeded {
            dbs: sets
                .iter()
                .map(|s| format!("{prefix}{s}"))
                .collect::<Vec<_>>()
                .join(", "),
            prefix: prefix.to_owned(),
        });
    }
    let mut reports = BTreeMap::new();
    for set in sets {
        let db = format!("{prefix}{set}");
        if !present.contains(&db) {
            continue;
        }
        let mut plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
        plan.lang = lang;
        plan.selection.dbs = vec![db];
        let report = audit::run(&mut server, &plan, &mut |_| {}).await?;
        reports.insert(set.to_owned(), report);
    }
    let view = View {
        prefix: prefix.to_owned(),
        reports,
        server,
    };
    let mut out = Vec::new();
    for e in exercises {
        let verdict = (e.check)(&view).await?;
        out.push(Checked {
            exercise: e,
            verdict,
        });
    }
    Ok(out)
}

/// The verdicts as text: per exercise PASS or FAIL, the evidence and the
/// next hint.
pub(crate) fn render(checked: &[Checked], target: &str, prefix: &str, lang: Lang) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}\n",
        lang.pick(
            format!("Exercises checked on {target} (databases {prefix}…)"),
            format!("在 {target} 上检查练习（数据库 {prefix}…）"),
        )
    );
    for c in checked {
        let e = c.exercise;
        let (mark, evidence, hint) = match &c.verdict {
            Verdict::Pass(seen) => (lang.pick("PASS", "通过"), seen, None),
            Verdict::Fail { evidence, hint } => {
                (lang.pick("FAIL", "未通过"), evidence, Some(*hint))
            }
        };
        let _ = writeln!(out, "{mark}  {}", e.id);
        for line in crate::fmt::wrap(e.task(lang), 72) {
            let _ = writeln!(out, "      {line}");
        }
        if !evidence.is_empty() {
            let head = if hint.is_some() {
                lang.pick("Still standing:", "仍然存在：")
            } else {
                lang.pick("Confirmed:", "已确认：")
            };
            let _ = writeln!(out, "    {head}");
            for t in evidence {
                let mut first = true;
                for line in crate::fmt::wrap(t.get(lang), 70) {
                    let lead = if first { "  - " } else { "    " };
                    first = false;
                    let _ = writeln!(out, "    {lead}{line}");
                }
            }
        }
        if let Some(n) = hint {
            if let Some(h) = e.hint(n, lang) {
                let k = n.min(e.hints.len().saturating_sub(1)) + 1;
                let _ = writeln!(
                    out,
                    "    {}",
                    lang.pick(
                        format!("Hint {k} of {}:", e.hints.len()),
                        format!("提示 {k}/{}：", e.hints.len()),
                    )
                );
                for line in crate::fmt::wrap(h, 70) {
                    let _ = writeln!(out, "      {line}");
                }
            }
        }
        out.push('\n');
    }
    let failed = checked.iter().filter(|c| !c.verdict.passed()).count() as u64;
    let total = checked.len() as u64;
    let _ = writeln!(
        out,
        "{}",
        if failed == 0 {
            lang.pick(
                format!("All {} exercises passed.", group(total)),
                format!("全部 {} 个练习都已通过。", group(total)),
            )
        } else {
            lang.pick(
                format!(
                    "{} of {} exercises not passed yet.",
                    group(failed),
                    group(total)
                ),
                format!("{} 个练习中还有 {} 个未通过。", group(total), group(failed)),
            )
        }
    );
    out
}

/// The exercises at the end of a lesson: their tasks.
pub(crate) fn tasks(lesson: &str, lang: Lang) -> String {
    let list = of(lesson);
    if list.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        lang.pick(
            "Exercises (check your fix: docshape lesson NAME --check URI)",
            "练习（检查你的修改：docshape lesson 名称 --check URI）"
        )
    );
    for (i, e) in list.iter().enumerate() {
        let _ = writeln!(out, "  {}. {} [{}]", i + 1, e.id, e.datasets.join(", "));
        for line in crate::fmt::wrap(e.task(lang), 72) {
            let _ = writeln!(out, "     {line}");
        }
    }
    out
}
