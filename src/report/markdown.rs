//! `audit --format markdown`: a report to attach to a design review — a
//! summary by severity, then each collection with its findings, fields and
//! relationships.

use std::fmt::Write;

use super::{CollectionReport, Open, Report, Spool, Spooled, WriteError};
use crate::advise::Advice;
use crate::rules::Severity;

pub fn render(report: &Report) -> String {
    let mut parts = Spooled::new(Spool::in_memory(), Spool::in_memory());
    for c in &report.collections {
        // Writing to memory cannot fail.
        let _ = add(&mut parts, c, report.rules.lang == crate::i18n::Lang::Zh);
    }
    let mut out = Vec::new();
    let _ = finish(report, &mut parts, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// A finding's row in the summary table at the top.
fn row(out: &mut String, f: &Advice) {
    let _ = writeln!(
        out,
        "| {} | `{}` | {} | {} | {} |",
        icon(f.severity),
        f.rule,
        md(&f.namespace),
        f.path
            .as_deref()
            .map(|p| format!("`{}`", md(p)))
            .unwrap_or_default(),
        md(&f.message)
    );
}

/// Renders collection `c` into `parts`, as it comes: its section, and a
/// row for each of its findings.
pub(super) fn add(parts: &mut Spooled, c: &CollectionReport, zh: bool) -> std::io::Result<()> {
    let mut section = String::new();
    collection(&mut section, c, zh);
    let mut rows = String::new();
    for f in &c.findings {
        row(&mut rows, f);
    }
    parts.collections += 1;
    parts.count(c.findings.iter());
    std::io::Write::write_all(&mut parts.sections, section.as_bytes())?;
    std::io::Write::write_all(&mut parts.rows, rows.as_bytes())
}

/// Writes the report: its head and summary, with the rows of the
/// collections' findings rendered into `parts` ([`add`]), then their
/// sections, then the rest (`report.collections` is not read).
pub(super) fn finish(
    report: &Report,
    parts: &mut Spooled,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let zh = report.rules.lang == crate::i18n::Lang::Zh;
    let t = |en: &'static str, cn: &'static str| if zh { cn } else { en };
    let mut out = String::new();
    let _ = writeln!(out, "# docshape audit: {}\n", md(&report.target));
    let sampling = match report.sampling.size {
        Some(n) => format!(
            "{} {}",
            t("sample of up to", "每个集合最多抽样"),
            crate::fmt::group(n)
        ),
        None => t("every document", "读取全部文档").to_owned(),
    };
    let _ = writeln!(
        out,
        "{} {} · {} `{}` · {} · docshape {}\n",
        t("Generated", "生成于"),
        report.generated_at,
        t("rule profile", "规则配置"),
        report.rules.profile,
        sampling,
        report.docshape
    );
    if !report.errors.is_empty() {
        let _ = writeln!(out, "## {}\n", t("Errors", "错误"));
        let _ = writeln!(
            out,
            "{}\n",
            t(
                "These parts could not be read; everything else is reported below.",
                "以下部分无法读取；其余部分照常报告。"
            )
        );
        let _ = writeln!(
            out,
            "| {} | {} |\n| --- | --- |",
            t("target", "对象"),
            t("error", "错误")
        );
        for e in &report.errors {
            let _ = writeln!(out, "| {} | {} |", md(&e.target), md(&e.message));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "## {}\n", t("Summary", "概要"));
    let _ = writeln!(
        out,
        "| {} | {} |\n| --- | ---: |",
        t("severity", "严重程度"),
        t("findings", "问题数")
    );
    parts.count(report.findings.iter());
    for (s, n) in super::SEVERITIES.into_iter().zip(parts.severities) {
        let _ = writeln!(out, "| {} {} | {n} |", icon(s), s.name());
    }
    if parts.severities.iter().sum::<usize>() > 0 {
        let _ = writeln!(
            out,
            "\n| | {} | {} | {} | {} |\n| --- | --- | --- | --- | --- |",
            t("rule", "规则"),
            t("collection", "集合"),
            t("path", "路径"),
            t("finding", "发现")
        );
    }
    w.write_all(out.as_bytes())?;
    parts.rows.drain_into(w)?;
    let mut out = String::new();
    for f in &report.findings {
        row(&mut out, f);
    }
    for n in &report.notes {
        let _ = writeln!(out, "\n> {}", md(n));
    }
    for f in &report.findings {
        finding(&mut out, f, zh);
    }
    w.write_all(out.as_bytes())?;
    parts.sections.drain_into(w)?;
    let mut out = String::new();
    if !report.relationships.is_empty() {
        let _ = writeln!(out, "\n## {}\n", t("Relationships", "集合间关系"));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |\n| --- | --- | --- | --- | --- | ---: |",
            t("from", "从"),
            t("to", "到"),
            t("kind", "类型"),
            t("cardinality", "基数"),
            t(
                "children per parent (min/avg/p95/max)",
                "每个父文档的子文档数（最小/平均/p95/最大）"
            ),
            t("ids found", "命中率")
        );
        for r in &report.relationships {
            let fan = r
                .fanout
                .as_ref()
                .map(|f| format!("{} / {:.1} / {} / {}", f.min, f.avg, f.p95, f.max))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| `{}` | `{}` | {} | {} | {fan} | {} |",
                md(&r.from),
                md(&r.to),
                super::plain(&r.kind),
                super::plain(&r.cardinality),
                crate::fmt::percent(r.match_rate)
            );
        }
    }
    if let Some(w) = &report.workload {
        workload(&mut out, w, zh);
    }
    w.write_all(out.as_bytes())
}

/// Shapes listed in the Markdown report at most (the JSON report has all).
const SHAPES_SHOWN: usize = 50;

/// The workload: query shapes by total time, with their plans and the
/// findings they led to.
/// The Markdown report, each collection rendered as it comes and spooled
/// on disk until the report's head and summary are written.
pub struct MarkdownWriter {
    parts: Spooled,
    open: Open,
}

impl MarkdownWriter {
    pub fn new(open: Open) -> MarkdownWriter {
        MarkdownWriter {
            parts: Spooled::new(Spool::on_disk(), Spool::on_disk()),
            open,
        }
    }
}

impl super::Writer for MarkdownWriter {
    fn collection(&mut self, head: &Report, c: CollectionReport) -> Result<(), WriteError> {
        let zh = head.rules.lang == crate::i18n::Lang::Zh;
        add(&mut self.parts, &c, zh).map_err(WriteError::Spool)
    }

    fn worst(&self) -> Option<crate::rules::Severity> {
        self.parts.worst()
    }

    fn finish(self: Box<Self>, report: &Report) -> Result<(), WriteError> {
        let MarkdownWriter { mut parts, open } = *self;
        super::write_to(open, |w| finish(report, &mut parts, w))
    }
}

fn workload(out: &mut String, w: &crate::workload::Workload, zh: bool) {
    use crate::fmt::{group, percent};
    let t = |en: &'static str, cn: &'static str| if zh { cn } else { en };
    let _ = writeln!(out, "\n## {}\n", t("Workload", "工作负载"));
    let skipped: u64 = w.skipped.values().sum();
    if w.from_server() {
        let _ = writeln!(
            out,
            "{} {} ({}) · {} {} · {} {}\n",
            group(w.slow_queries),
            t("entries", "条记录"),
            md(&w.sources.join(", ")),
            group(w.shapes.len() as u64),
            t("shapes", "种查询形状"),
            group(skipped),
            t("skipped", "条跳过"),
        );
    } else {
        let _ = writeln!(
            out,
            "{} {} · {} {} · {} {} · {} {}\n",
            group(w.lines),
            t("lines", "行"),
            group(w.slow_queries),
            t("slow queries", "条慢查询"),
            group(w.shapes.len() as u64),
            t("shapes", "种查询形状"),
            group(skipped),
            t("skipped", "条跳过"),
        );
    }
    if !w.counts.is_empty() {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |\n| --- | ---: | ---: | --- |",
            t("collection", "集合"),
            t("reads counted", "读取次数"),
            t("writes counted", "写入次数"),
            t("counted by", "来源"),
        );
        for (ns, c) in &w.counts {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                md(ns),
                group(c.reads),
                group(c.writes),
                md(&c.source)
            );
        }
        let _ = writeln!(out);
    }
    if w.shapes.is_empty() {
        return;
    }
    let total: u64 = w.shapes.iter().map(|s| s.ms.total).sum();
    let _ = writeln!(
        out,
        "| ms | {} | {} | {} | {} | {} | {} | {} |\n| ---: | ---: | ---: | --- | --- | --- | ---: | --- |",
        t("share", "占比"),
        t("runs", "次数"),
        t("collection", "集合"),
        t("shape", "查询形状"),
        t("plans", "执行计划"),
        t("examined / returned", "检查数/返回数"),
        t("findings", "发现"),
    );
    for s in w.shapes.iter().take(SHAPES_SHOWN) {
        let share = if total > 0 {
            percent(s.ms.total as f64 / total as f64)
        } else {
            "–".to_owned()
        };
        let plans: Vec<String> = s
            .plans
            .iter()
            .map(|(p, n)| format!("{} ×{}", md(p), group(*n)))
            .collect();
        let findings: Vec<String> = s.findings.iter().map(|f| format!("`{f}`")).collect();
        let _ = writeln!(
            out,
            "| {} | {share} | {} | {} | `{}` | {} | {} | {} |",
            group(s.ms.total),
            group(s.count),
            md(&s.namespace),
            md(&crate::rules::shapes::label(s)),
            plans.join(", "),
            s.examined_per_returned(),
            findings.join(" "),
        );
    }
    if w.shapes.len() > SHAPES_SHOWN {
        let _ = writeln!(
            out,
            "\n{} {}",
            group((w.shapes.len() - SHAPES_SHOWN) as u64),
            t("more shapes in the JSON report", "种查询形状见 JSON 报告"),
        );
    }
}

fn collection(out: &mut String, c: &CollectionReport, zh: bool) {
    let t = |en: &'static str, cn: &'static str| if zh { cn } else { en };
    let _ = writeln!(out, "\n## {}\n", md(&c.namespace));
    let docs = c
        .documents
        .map_or_else(|| "?".to_owned(), crate::fmt::group);
    let s = c.doc_size;
    let _ = writeln!(
        out,
        "{} {docs} · {} {} ({}) · {} {} / {} / {} / {} · {} {} · {} {}\n",
        t("documents", "文档数"),
        t("profiled", "已分析"),
        crate::fmt::group(c.sampled),
        c.sample_method,
        t("size min/avg/p95/max", "大小 最小/平均/p95/最大"),
        crate::fmt::bytes(s.min as f64),
        crate::fmt::bytes(s.avg),
        crate::fmt::bytes(s.p95 as f64),
        crate::fmt::bytes(s.max as f64),
        t("depth", "嵌套深度"),
        c.max_depth,
        t("indexes", "索引"),
        c.indexes.len()
    );
    if let Some(e) = &c.extremes {
        let _ = writeln!(
            out,
            "{}: {}\n",
            t("Whole collection", "整个集合"),
            md(&super::text::extremes_line(
                e,
                if zh {
                    crate::i18n::Lang::Zh
                } else {
                    crate::i18n::Lang::En
                }
            ))
        );
    }
    if let Some(g) = &c.meta.gridfs {
        let lang = if zh {
            crate::i18n::Lang::Zh
        } else {
            crate::i18n::Lang::En
        };
        let _ = writeln!(out, "{}\n", md(&super::text::gridfs_line(g, c.kind, lang)));
    } else if c.findings.is_empty() {
        let _ = writeln!(out, "{}", t("No findings.", "未发现问题。"));
    }
    for f in &c.findings {
        finding(out, f, zh);
    }
    let _ = writeln!(
        out,
        "\n<details><summary>{} ({})</summary>\n\n| {} | {} | {} | {} | {} |\n| --- | --- | ---: | --- | ---: |",
        t("Fields", "字段"),
        c.fields.len(),
        t("path", "路径"),
        t("types", "类型"),
        t("present", "出现率"),
        t("array length min/avg/max", "数组长度 最小/平均/最大"),
        t("bytes/doc", "字节/文档")
    );
    for f in c.fields.iter().take(200) {
        let arr = f
            .array
            .map(|a| format!("{}/{:.1}/{}", a.min, a.avg, a.max))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {arr} | {} |",
            md(&f.path),
            super::text::types_label(f),
            crate::fmt::percent(f.presence),
            crate::fmt::bytes(f.bytes_avg)
        );
    }
    if c.fields.len() > 200 {
        let _ = writeln!(
            out,
            "\n… {} {}",
            c.fields.len() - 200,
            t("more paths in the JSON report", "个路径见 JSON 报告")
        );
    }
    let _ = writeln!(out, "\n</details>");
}

fn finding(out: &mut String, f: &Advice, zh: bool) {
    let t = |en: &'static str, cn: &'static str| if zh { cn } else { en };
    let path = f
        .path
        .as_deref()
        .map(|p| format!(" `{}`", md(p)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "\n### {} `{}`{path} ({})\n",
        icon(f.severity),
        f.rule,
        f.severity.name()
    );
    let _ = writeln!(out, "{}\n", md(&f.message));
    let _ = writeln!(
        out,
        "**{}** {} _({})_\n",
        t("Why it matters.", "为什么重要。"),
        md(&f.explanation),
        md(&f.source)
    );
    let _ = writeln!(
        out,
        "**{}** (`{}`) {}\n",
        t("Suggestion", "建议"),
        f.suggestion.pattern,
        md(&f.suggestion.summary)
    );
    if let (Some(b), Some(a)) = (&f.suggestion.before, &f.suggestion.after) {
        let _ = writeln!(
            out,
            "{}\n```json\n{}\n```\n{}\n```json\n{}\n```\n",
            t("Before:", "修改前："),
            pretty(b),
            t("After:", "修改后："),
            pretty(a)
        );
    }
    if !f.suggestion.effect.is_empty() {
        let _ = writeln!(
            out,
            "{} `{}`\n",
            t("Estimated effect on the sample:", "在样本上估算的效果："),
            serde_json::Value::Object(f.suggestion.effect.clone())
        );
    }
    let _ = writeln!(
        out,
        "<details><summary>{}</summary>\n\n```json\n{}\n```\n\n```js\n{}```\n</details>",
        t("Evidence and migration script", "证据与迁移脚本"),
        pretty(&serde_json::Value::Object(f.evidence.clone())),
        f.suggestion.migration
    );
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

pub(crate) fn icon(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "🔴",
        Severity::Warning => "🟠",
        Severity::Info => "🔵",
    }
}

/// Escapes what would break a Markdown table or inline text.
pub(crate) fn md(s: &str) -> String {
    super::text::safe(s).replace('|', "\\|").replace('\n', " ")
}
