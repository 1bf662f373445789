//! Lessons for a class on schema design, one per topic of the seeds. Each
//! explains the idea, then shows the good and bad variants of its data sets
//! side by side with numbers measured live (document sizes, array lengths
//! and growth, fan-out, findings), and ends with a question for the class.
//! The text is fixed; every number comes from the data.

pub mod class;
pub mod exercises;
mod texts;

use std::fmt::Write;

use crate::fmt::{bytes, group};
use crate::i18n::{Lang, Text};
use crate::report::{CollectionReport, Report};
use crate::rules::Severity;

pub use texts::LESSONS;

/// One lesson: what it teaches and which data sets show it.
pub struct Lesson {
    pub name: &'static str,
    pub title: (&'static str, &'static str),
    /// Data sets (databases of `sample-data/`, or `docshape_<name>` on a
    /// seeded server) whose variants the lesson compares.
    pub datasets: &'static [&'static str],
    pub seeds: &'static str,
    /// Audited with the bundled workload (`sample-data/workload/mongod.log`),
    /// whose query shapes the lesson lists beside the data.
    pub workload: bool,
    pub idea: (&'static str, &'static str),
    /// What to look for in the numbers.
    pub look_for: (&'static str, &'static str),
    pub question: (&'static str, &'static str),
}

impl Lesson {
    pub fn title(&self, lang: Lang) -> &'static str {
        lang.pick(self.title.0, self.title.1)
    }
}

pub(crate) fn find(name: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.name == name)
}

/// The list `docshape lesson` prints without a name.
pub fn index(lang: Lang) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}\n",
        lang.pick(
            "Lessons (docshape lesson NAME):",
            "课程（docshape lesson 名称）："
        )
    );
    for l in LESSONS {
        let _ = writeln!(out, "  {} {}", crate::fmt::pad(l.name, 20), l.title(lang));
    }
    out
}

/// Which variant a collection belongs to, from its name.
fn variant(c: &CollectionReport) -> Option<&'static str> {
    let name = &c.meta.name;
    if name.starts_with("good_") {
        Some("good")
    } else if name.starts_with("bad_") {
        Some("bad")
    } else {
        None
    }
}

/// Renders a lesson with the numbers of `reports` (one per data set).
pub(crate) fn render(lesson: &Lesson, reports: &[(String, Report)], lang: Lang) -> String {
    let mut out = String::new();
    let title = lesson.title(lang);
    let _ = writeln!(
        out,
        "{title}\n{}\n",
        "=".repeat(crate::fmt::display_width(title))
    );
    let _ = writeln!(
        out,
        "{}\n",
        wrap(lang.pick(lesson.idea.0, lesson.idea.1), 78)
    );
    let _ = writeln!(out, "{} {}\n", lang.pick("Seeds:", "出处："), lesson.seeds);
    for (dataset, report) in reports {
        let _ = writeln!(
            out,
            "{} {dataset}",
            lang.pick("Measured in data set", "数据集实测：")
        );
        for v in ["good", "bad"] {
            let colls: Vec<&CollectionReport> = report
                .collections
                .iter()
                .filter(|c| variant(c) == Some(v))
                .collect();
            if colls.is_empty() {
                continue;
            }
            let label = match (v, lang) {
                ("good", Lang::En) => "  GOOD",
                ("bad", Lang::En) => "  BAD",
                ("good", Lang::Zh) => "  好的设计",
                _ => "  不好的设计",
            };
            let _ = writeln!(out, "{label}");
            for c in colls {
                collection(&mut out, c, report, lang);
            }
        }
        if lesson.workload {
            workload(&mut out, dataset, report, lang);
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{}\n{}\n",
        lang.pick("What to look for", "看点"),
        wrap(lang.pick(lesson.look_for.0, lesson.look_for.1), 78)
    );
    let _ = writeln!(
        out,
        "{}\n{}",
        lang.pick("Question for the class", "课堂提问"),
        wrap(lang.pick(lesson.question.0, lesson.question.1), 78)
    );
    let tasks = exercises::tasks(lesson.name, lang);
    if !tasks.is_empty() {
        let _ = write!(out, "\n{tasks}");
    }
    out
}

fn collection(out: &mut String, c: &CollectionReport, report: &Report, lang: Lang) {
    let docs = c.documents.unwrap_or(c.sampled);
    let s = c.doc_size;
    let _ = writeln!(
        out,
        "    {} {} {} · {} {} · {} {}",
        crate::fmt::pad(&c.meta.name, 28),
        group(docs),
        lang.pick("docs", "个文档"),
        lang.pick("avg", "平均"),
        bytes(s.avg),
        lang.pick("max", "最大"),
        bytes(s.max as f64)
    );
    let widest = c
        .fields
        .iter()
        .filter(|f| f.array.is_some() && !f.segments.contains(&crate::profile::Seg::Elem))
        .max_by_key(|f| f.array.map_or(0, |a| a.max));
    if let Some(f) = widest {
        let a = f.array.unwrap_or_default();
        let growth = c
            .growth
            .get(&f.path)
            .filter(|g| g.is_significant(0.5))
            .map(|g| {
                lang.pick(
                    format!(", growing {:+.2}/day", g.per_day),
                    format!("，每天增长 {:+.2}", g.per_day),
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "      {} {}: {} {} · {} {:.1}{growth}",
            lang.pick("array", "数组"),
            f.path,
            lang.pick("up to", "最多"),
            group(a.max),
            lang.pick("avg", "平均"),
            a.avg
        );
    }
    for r in report
        .relationships
        .iter()
        .filter(|r| r.from_ns == c.namespace && r.kind != crate::relate::Kind::Embedded)
    {
        let fan = r
            .fanout
            .as_ref()
            .map(|f| {
                format!(
                    " · {} {}/{:.1}/{}",
                    lang.pick(
                        "children per parent min/avg/max",
                        "每个父文档的子文档数 最小/平均/最大"
                    ),
                    f.min,
                    f.avg,
                    f.max
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "      {} → {} ({}, {}){fan}",
            r.from_path,
            r.to,
            crate::report::plain(&r.kind),
            crate::report::plain(&r.cardinality)
        );
    }
    if c.findings.is_empty() {
        let _ = writeln!(out, "      {}", lang.pick("no findings", "没有发现问题"));
    }
    for f in &c.findings {
        let sev = match (f.severity, lang) {
            (Severity::Critical, Lang::En) => "critical",
            (Severity::Warning, Lang::En) => "warning",
            (Severity::Info, Lang::En) => "info",
            (Severity::Critical, Lang::Zh) => "严重",
            (Severity::Warning, Lang::Zh) => "警告",
            (Severity::Info, Lang::Zh) => "提示",
        };
        let _ = writeln!(out, "      [{sev}] {}: {}", f.rule, f.message);
    }
}

/// The workload's shapes on one data set's collections: reads and writes
/// per collection, then each shape with its runs, plan, documents examined
/// per document returned, sorts in memory and the rules it drew.
fn workload(out: &mut String, dataset: &str, report: &Report, lang: Lang) {
    let Some(w) = &report.workload else { return };
    // The data set's database: its name, or `<prefix><name>` on a server.
    let db = report
        .collections
        .first()
        .map_or_else(|| dataset.to_owned(), |c| c.meta.db.clone());
    let of_db =
        |s: &&crate::workload::Shape| s.namespace.split_once('.').is_some_and(|(d, _)| d == db);
    let shapes: Vec<&crate::workload::Shape> = w.shapes.iter().filter(of_db).collect();
    let _ = writeln!(
        out,
        "  {} (sample-data/{})",
        lang.pick("WORKLOAD", "工作负载"),
        crate::seed::workload::LOG_PATH
    );
    if shapes.is_empty() {
        let _ = writeln!(
            out,
            "    {}",
            lang.pick("no query of this data set", "没有针对这个数据集的查询")
        );
        return;
    }
    let mut colls: Vec<&str> = Vec::new();
    for s in &shapes {
        let c = s.namespace.split_once('.').map_or("", |(_, c)| c);
        if !colls.contains(&c) {
            colls.push(c);
        }
    }
    colls.sort_unstable();
    for c in colls {
        let mine: Vec<&crate::workload::Shape> = shapes
            .iter()
            .copied()
            .filter(|s| s.namespace.split_once('.').is_some_and(|(_, x)| x == c))
            .collect();
        let (mut reads, mut writes) = (0u64, 0u64);
        for s in &mine {
            if matches!(s.op.as_str(), "find" | "aggregate" | "count" | "distinct") {
                reads += s.count;
            } else {
                writes += s.count;
            }
        }
        let _ = writeln!(
            out,
            "    {} {} {} · {} {}",
            crate::fmt::pad(c, 28),
            group(reads),
            lang.pick("reads", "次读取"),
            group(writes),
            lang.pick("writes", "次写入")
        );
        for s in mine {
            let _ = writeln!(out, "      {}", shape_line(s, lang));
        }
    }
}

/// One shape: what it does and what its runs cost.
fn shape_line(s: &crate::workload::Shape, lang: Lang) -> String {
    let mut what = s.op.clone();
    for v in [&s.filter, &s.pipeline].into_iter().flatten().take(1) {
        what.push(' ');
        what.push_str(&v.to_string());
    }
    if let Some(sort) = &s.sort {
        if s.pipeline.is_none() {
            what.push_str(" sort ");
            what.push_str(&sort.to_string());
        }
    }
    if let Some(u) = &s.update {
        what.push_str(" → ");
        what.push_str(&u.to_string());
    }
    let mut plans: Vec<(&String, &u64)> = s.plans.iter().collect();
    plans.sort_by(|a, b| b.1.cmp(a.1));
    let plans = plans
        .iter()
        .map(|(p, n)| format!("{p} ×{}", group(**n)))
        .collect::<Vec<_>>()
        .join(", ");
    let per = s.docs_examined as f64 / s.nreturned.max(1) as f64;
    let mut cost = vec![lang.pick(
        format!("{} runs", group(s.count)),
        format!("{} 次", group(s.count)),
    )];
    if !plans.is_empty() {
        cost.push(plans);
    }
    if s.docs_examined > 0 || s.keys_examined > 0 {
        cost.push(lang.pick(
            format!("{per:.1} docs examined per returned"),
            format!("每返回一个文档检查 {per:.1} 个文档"),
        ));
    }
    if s.in_memory_sorts > 0 {
        cost.push(lang.pick(
            format!("{} sorted in memory", group(s.in_memory_sorts)),
            format!("{} 次在内存中排序", group(s.in_memory_sorts)),
        ));
    }
    let drew = if s.findings.is_empty() {
        String::new()
    } else {
        format!(" → {}", s.findings.join(", "))
    };
    format!("{what}\n        {}{drew}", cost.join(" · "))
}

/// Wraps text to `width` columns (East Asian characters count two),
/// paragraphs (blank lines) kept.
pub(crate) fn wrap(text: &str, width: usize) -> String {
    crate::fmt::wrap(text, width).join("\n")
}

/// Kept for the explorer: a lesson's title in both languages.
pub fn titles(lesson: &Lesson) -> Text {
    Text::new(lesson.title.0, lesson.title.1)
}

/// Audits the lesson's data sets: from the bundled `sample-data/<set>`
/// directories, or from a seeded server's `<prefix><set>` databases.
pub async fn measure(
    lesson: &Lesson,
    from: Option<&str>,
    prefix: &str,
    lang: Lang,
    timeout: std::time::Duration,
) -> Result<Vec<(String, Report)>, crate::source::SourceError> {
    use crate::audit::{self, Plan};
    use crate::source::{SampleMode, Selection, SourceError};
    use crate::target::Target;
    let mut out = Vec::new();
    let workload = if lesson.workload {
        Some(std::sync::Arc::new(bundled_workload(from.map(|_| prefix))?))
    } else {
        None
    };
    for set in lesson.datasets {
        let mut plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
        plan.lang = lang;
        plan.workload.clone_from(&workload);
        let target = match from {
            Some(uri) => {
                plan.selection.dbs = vec![format!("{prefix}{set}")];
                Target::Mongo(uri.to_owned())
            }
            None => {
                let dir = crate::target::sample_data_dir().join(set);
                if !dir.is_dir() {
                    return Err(SourceError::NotFound(format!(
                        "data set {set} is not in {} (the bundled sample data)",
                        crate::target::sample_data_dir().display()
                    )));
                }
                Target::Path(dir)
            }
        };
        let options = crate::target::OpenOptions {
            timeout,
            mode: plan.mode,
        };
        let mut src = crate::target::open(&target, &options).await?;
        let report = audit::run(&mut src, &plan, &mut |_| {}).await?;
        out.push(((*set).to_owned(), report));
    }
    Ok(out)
}

/// The bundled workload (`sample-data/workload/mongod.log`), its databases
/// renamed `<prefix><dataset>` for a seeded server.
pub(crate) fn bundled_workload(
    prefix: Option<&str>,
) -> Result<crate::workload::Workload, crate::source::SourceError> {
    let path = crate::target::sample_data_dir().join(crate::seed::workload::LOG_PATH);
    let mut w = crate::workload::read_logs(&path)
        .map_err(|e| crate::source::SourceError::NotFound(e.to_string()))?;
    if let Some(p) = prefix {
        for s in &mut w.shapes {
            s.namespace = format!("{p}{}", s.namespace);
        }
    }
    Ok(w)
}
