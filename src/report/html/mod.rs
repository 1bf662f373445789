//! `audit --format html`: one self-contained page for a reviewer — style,
//! script and pictures inline, nothing fetched (its Content-Security-Policy
//! forbids it), so that it opens from a file or an e-mail attachment. The
//! findings by severity come first, then the relationships as a diagram,
//! then each collection: its charts, findings with their evidence,
//! before / after and script, and its field tree.
//!
//! Written as the other formats are: each collection is rendered as it is
//! judged and spooled on disk (its section, its line in the contents, and
//! a summary row per finding, one spool per severity so that the summary
//! comes worst first), then the page is written in order.

mod svg;

use std::fmt::Write;

use super::{CollectionReport, Open, Report, Spool, Spooled, WriteError};
use crate::advise::Advice;
use crate::i18n::Lang;
use crate::rules::Severity;

const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("script.js");

/// The page's policy: inline style and script, images only as `data:`,
/// nothing else — no request leaves the page.
pub const CSP: &str =
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

/// Paths listed in a collection's field tree at most (the JSON report has
/// all).
const FIELDS_SHOWN: usize = 200;
/// Array paths whose length histogram a collection shows at most.
const ARRAY_CHARTS: usize = 6;
/// Array paths whose growth chart a collection shows at most.
const GROWTH_CHARTS: usize = 4;
/// Characters of a path the summary shows (the whole path is its
/// tooltip, and the finding's own heading).
const PATH_CHARS: usize = 48;
/// Nesting levels the field tree indents (deeper paths are indented as
/// this one; the style sheet has a class for each).
const DEPTHS_INDENTED: u32 = 8;
/// Query shapes listed at most (the JSON report has all).
const SHAPES_SHOWN: usize = 50;

/// Text as HTML text or an attribute value: markup characters escaped, and
/// control and direction-changing characters shown as visible escapes (as
/// the text report shows them).
pub fn esc(s: &str) -> String {
    let safe = super::text::safe(s);
    let mut out = String::with_capacity(safe.len());
    for ch in safe.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Like [`esc`], keeping line breaks and tabs (a script, a document).
fn esc_block(s: &str) -> String {
    s.split('\n')
        .map(|line| line.split('\t').map(esc).collect::<Vec<_>>().join("\t"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// What the page keeps of the collections written so far.
struct Parts {
    /// Sections (`sections`) and contents lines (`rows`), with the counts.
    spooled: Spooled,
    /// Summary rows of the findings, by severity (critical, warning, info).
    by_severity: [Spool; 3],
    /// Findings numbered so far (their anchors `f1`, `f2` …).
    findings: usize,
}

impl Parts {
    fn new(spool: fn() -> Spool) -> Parts {
        Parts {
            spooled: Spooled::new(spool(), spool()),
            by_severity: [spool(), spool(), spool()],
            findings: 0,
        }
    }
}

/// The HTML report, each collection rendered as it comes and spooled on
/// disk until the page's head and summary are written.
pub struct HtmlWriter {
    parts: Parts,
    open: Open,
}

impl HtmlWriter {
    pub fn new(open: Open) -> HtmlWriter {
        HtmlWriter {
            parts: Parts::new(Spool::on_disk),
            open,
        }
    }
}

impl super::Writer for HtmlWriter {
    fn collection(&mut self, head: &Report, c: CollectionReport) -> Result<(), WriteError> {
        add(&mut self.parts, &c, head.rules.lang).map_err(WriteError::Spool)
    }

    fn worst(&self) -> Option<Severity> {
        self.parts.spooled.worst()
    }

    fn finish(self: Box<Self>, report: &Report) -> Result<(), WriteError> {
        let HtmlWriter { mut parts, open } = *self;
        super::write_to(open, |w| finish(report, &mut parts, w))
    }
}

/// The whole page of `report`, in memory.
pub fn render(report: &Report) -> String {
    let mut parts = Parts::new(Spool::in_memory);
    for c in &report.collections {
        // Writing to memory cannot fail.
        let _ = add(&mut parts, c, report.rules.lang);
    }
    let mut out = Vec::new();
    let _ = finish(report, &mut parts, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

fn severity_index(s: Severity) -> usize {
    super::SEVERITIES.iter().position(|&x| x == s).unwrap_or(2)
}

/// Renders collection `c` into `parts`: its section, its contents line and
/// a summary row per finding.
fn add(parts: &mut Parts, c: &CollectionReport, lang: Lang) -> std::io::Result<()> {
    let n = parts.spooled.collections + 1;
    let anchor = format!("c{n}");
    let mut section = String::new();
    let first = parts.findings + 1;
    collection(&mut section, c, &anchor, first, lang);
    let mut rows: [String; 3] = Default::default();
    for (i, f) in c.findings.iter().enumerate() {
        row(
            &mut rows[severity_index(f.severity)],
            f,
            &format!("f{}", first + i),
            Some(&anchor),
            lang,
        );
    }
    parts.findings += c.findings.len();
    let worst = c.findings.iter().map(|f| f.severity).max();
    let mut nav = format!("<li><a href=\"#{anchor}\">{}</a>", esc(&c.namespace));
    if let Some(s) = worst {
        let _ = write!(
            nav,
            " <span class=\"sev sev-{}\">{}</span>",
            s.name(),
            c.findings.len()
        );
    }
    nav.push_str("</li>\n");
    parts.spooled.collections += 1;
    parts.spooled.count(c.findings.iter());
    std::io::Write::write_all(&mut parts.spooled.sections, section.as_bytes())?;
    std::io::Write::write_all(&mut parts.spooled.rows, nav.as_bytes())?;
    for (spool, text) in parts.by_severity.iter_mut().zip(rows) {
        std::io::Write::write_all(spool, text.as_bytes())?;
    }
    Ok(())
}

/// A finding's row in the summary: severity, rule, collection, path and
/// message, linked to the finding itself.
fn row(out: &mut String, f: &Advice, id: &str, coll: Option<&str>, lang: Lang) {
    let ns = match coll {
        Some(a) => format!("<a href=\"#{a}\">{}</a>", esc(&f.namespace)),
        None => esc(&f.namespace),
    };
    let _ = writeln!(
        out,
        "<tr class=\"sev-row\" data-severity=\"{}\"><td>{}</td><td><code>{}</code></td><td>{ns}</td><td class=\"path\">{}</td><td><a href=\"#{id}\">{}</a></td></tr>",
        f.severity.name(),
        badge(f.severity, lang),
        f.rule,
        f.path
            .as_deref()
            .map(|p| format!(
                "<span title=\"{}\">{}</span>",
                esc(p),
                esc(&crate::fmt::fit(p, PATH_CHARS))
            ))
            .unwrap_or_default(),
        esc(&f.message)
    );
}

fn badge(s: Severity, lang: Lang) -> String {
    format!(
        "<span class=\"sev sev-{}\">{}</span>",
        s.name(),
        s.label(lang)
    )
}

/// Writes the page: head, summary (rows spooled by severity), the
/// database-wide findings, relationships, the spooled collections, the
/// workload, and the script.
fn finish(report: &Report, parts: &mut Parts, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let lang = report.rules.lang;
    let t = |en: &'static str, zh: &'static str| lang.pick(en, zh);
    let mut out = String::new();
    let title = format!("docshape audit: {}", report.target);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"color-scheme\" content=\"light dark\">\
         <meta name=\"generator\" content=\"docshape {}\">\
         <title>{}</title><style>{STYLE}</style></head>\n<body>\n\
         <a class=\"skip\" href=\"#findings\">{}</a>\n<main>\n<header><h1>{}</h1>",
        lang.pick("en", "zh"),
        report.docshape,
        esc(&title),
        t("Skip to the findings", "跳到发现的问题"),
        esc(&title)
    );
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
        "<p class=\"meta\">{} {} · {} <code>{}</code> · {} · docshape {}</p>\
         <p class=\"keys\">{}</p></header>",
        t("Generated", "生成于"),
        esc(&report.generated_at),
        t("rule profile", "规则配置"),
        esc(&report.rules.profile),
        sampling,
        report.docshape,
        t(
            "Keys: <kbd>Tab</kbd> moves between links and findings, <kbd>Enter</kbd> opens a finding, <kbd>j</kbd> / <kbd>k</kbd> go to the next / previous finding.",
            "按键：<kbd>Tab</kbd> 在链接和问题之间移动，<kbd>Enter</kbd> 展开问题，<kbd>j</kbd> / <kbd>k</kbd> 跳到下一个 / 上一个问题。"
        )
    );
    if !report.errors.is_empty() {
        let _ = writeln!(
            out,
            "<section id=\"errors\"><h2>{}</h2><p>{}</p><table><tr><th>{}</th><th>{}</th></tr>",
            t("Errors", "错误"),
            t(
                "These parts could not be read; everything else is reported below.",
                "以下部分无法读取；其余部分照常报告。"
            ),
            t("target", "对象"),
            t("error", "错误")
        );
        for e in &report.errors {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td></tr>",
                esc(&e.target),
                esc(&e.message)
            );
        }
        out.push_str("</table></section>\n");
    }
    // The summary: counts by severity, then every finding, worst first.
    parts.spooled.count(report.findings.iter());
    let mut deployment: [String; 3] = Default::default();
    let first = parts.findings + 1;
    for (i, f) in report.findings.iter().enumerate() {
        row(
            &mut deployment[severity_index(f.severity)],
            f,
            &format!("f{}", first + i),
            None,
            lang,
        );
    }
    let _ = write!(
        out,
        "<section id=\"findings\" tabindex=\"-1\"><h2>{}</h2><div class=\"counts\">",
        t("Findings by severity", "按严重程度列出的问题")
    );
    for (s, n) in super::SEVERITIES.into_iter().zip(parts.spooled.severities) {
        let _ = write!(
            out,
            "<div class=\"sev-{}\" data-severity=\"{}\"><b>{}</b>{}</div>",
            s.name(),
            s.name(),
            crate::fmt::group(n as u64),
            s.label(lang)
        );
    }
    let _ = write!(
        out,
        "<div><b>{}</b>{}</div></div>",
        crate::fmt::group(parts.spooled.collections as u64),
        t("collections", "个集合")
    );
    let total: usize = parts.spooled.severities.iter().sum();
    if total == 0 {
        let _ = writeln!(out, "<p>{}</p>", t("No findings.", "未发现问题。"));
    } else {
        let _ = writeln!(
            out,
            "<div class=\"wrap\"><table class=\"summary\"><tr><th></th><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>",
            t("rule", "规则"),
            t("collection", "集合"),
            t("path", "路径"),
            t("finding", "发现")
        );
    }
    w.write_all(out.as_bytes())?;
    for (spool, dep) in parts.by_severity.iter_mut().zip(&deployment) {
        spool.drain_into(w)?;
        w.write_all(dep.as_bytes())?;
    }
    let mut out = String::new();
    if total > 0 {
        out.push_str("</table></div>\n");
    }
    for n in &report.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(n));
    }
    if !report.findings.is_empty() {
        let _ = writeln!(
            out,
            "<h3>{}</h3>",
            t("Database and deployment findings", "数据库与部署层面的问题")
        );
        for (i, f) in report.findings.iter().enumerate() {
            finding(&mut out, f, first + i, lang);
        }
    }
    out.push_str("</section>\n");
    relationships(&mut out, report, lang);
    let _ = writeln!(
        out,
        "<nav id=\"contents\" aria-label=\"{0}\"><h2>{0}</h2><ol>",
        t("Collections", "集合")
    );
    w.write_all(out.as_bytes())?;
    parts.spooled.rows.drain_into(w)?;
    w.write_all(b"</ol></nav>\n")?;
    parts.spooled.sections.drain_into(w)?;
    let mut out = String::new();
    if let Some(wl) = &report.workload {
        workload(&mut out, wl, lang);
    }
    let _ = write!(out, "</main>\n<script>{SCRIPT}</script>\n</body></html>\n");
    w.write_all(out.as_bytes())
}

/// One collection's section.
fn collection(out: &mut String, c: &CollectionReport, anchor: &str, first: usize, lang: Lang) {
    use crate::fmt::{bytes, group};
    let t = |en: &'static str, zh: &'static str| lang.pick(en, zh);
    let _ = writeln!(
        out,
        "<section class=\"coll\" id=\"{anchor}\" data-ns=\"{}\" aria-labelledby=\"{anchor}-h\"><h2 id=\"{anchor}-h\">{}</h2>",
        esc(&c.namespace),
        esc(&c.namespace)
    );
    let docs = c.documents.map_or_else(|| "?".to_owned(), group);
    let s = c.doc_size;
    let _ = writeln!(
        out,
        "<p class=\"facts\">{} <b class=\"documents\">{docs}</b> · {} <b class=\"sampled\">{}</b> ({}) · {} <b class=\"size\">{} / {} / {} / {}</b> · {} {} · {} {}</p>",
        t("documents", "文档数"),
        t("profiled", "已分析"),
        group(c.sampled),
        esc(&c.sample_method),
        t("size min/avg/p95/max", "大小 最小/平均/p95/最大"),
        bytes(s.min as f64),
        bytes(s.avg),
        bytes(s.p95 as f64),
        bytes(s.max as f64),
        t("depth", "嵌套深度"),
        c.max_depth,
        t("indexes", "索引"),
        c.indexes.len()
    );
    if let Some(p) = &c.partial {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(p));
    }
    if let Some(e) = &c.extremes {
        let _ = writeln!(
            out,
            "<p>{}: {}</p>",
            t("Whole collection", "整个集合"),
            esc(&super::text::extremes_line(e, lang))
        );
    }
    if let Some(g) = &c.meta.gridfs {
        let _ = writeln!(
            out,
            "<p class=\"gridfs\">{}</p>",
            esc(&super::text::gridfs_line(g, c.kind, lang))
        );
    }
    for n in &c.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(n));
    }
    charts(out, c, lang);
    let _ = writeln!(out, "<h3>{}</h3>", t("Findings", "发现的问题"));
    if c.findings.is_empty() {
        let _ = writeln!(out, "<p>{}</p>", t("No findings.", "未发现问题。"));
    } else {
        let _ = writeln!(
            out,
            "<p><button type=\"button\" data-toggle=\"findings\" aria-pressed=\"false\">{}</button></p>",
            t("Open or close all findings", "展开或收起全部问题")
        );
    }
    let mut order: Vec<(usize, &Advice)> = c.findings.iter().enumerate().collect();
    order.sort_by_key(|(i, f)| (std::cmp::Reverse(f.severity), *i));
    for (i, f) in order {
        finding(out, f, first + i, lang);
    }
    fields(out, c, lang);
    out.push_str("</section>\n");
}

/// The collection's charts: document sizes, array lengths, and growth.
fn charts(out: &mut String, c: &CollectionReport, lang: Lang) {
    let t = |en: &'static str, zh: &'static str| lang.pick(en, zh);
    out.push_str("<div class=\"charts\">");
    if c.profile.doc_sizes.count() > 0 {
        let title = t("Document sizes", "文档大小");
        let _ = write!(out, "<figure class=\"chart sizes\">");
        svg::histogram(out, title, &c.profile.doc_sizes, &|b| {
            crate::fmt::bytes(b as f64)
        });
        let _ = write!(
            out,
            "<figcaption>{title} ({})</figcaption></figure>",
            t("documents per size", "各大小的文档数")
        );
    }
    for f in c
        .fields
        .iter()
        .filter(|f| f.array_lengths.is_some())
        .take(ARRAY_CHARTS)
    {
        let Some(h) = &f.array_lengths else { continue };
        let title = format!("{} {}", t("Array lengths of", "数组长度："), f.path);
        let _ = write!(
            out,
            "<figure class=\"chart lengths\" data-path=\"{}\">",
            esc(&f.path)
        );
        svg::histogram(out, &title, h, &crate::fmt::group);
        let _ = write!(
            out,
            "<figcaption>{} <code>{}</code> ({})</figcaption></figure>",
            t("Array lengths of", "数组长度："),
            esc(&f.path),
            t("values per length", "各长度的数组数")
        );
    }
    let src = crate::growth::age_source_of(&c.fields, c.sampled);
    let births = src.map(|s| crate::growth::Births::of(&c.kept, &s));
    for (path, g) in c.growth.iter().take(GROWTH_CHARTS) {
        let (Some(births), Some(f)) = (&births, c.field(path)) else {
            continue;
        };
        let (ages, lens) = births.lengths(&c.kept, f);
        if ages.is_empty() {
            continue;
        }
        let title = format!(
            "{} {}",
            t("Length against age of", "长度随文档年龄："),
            path
        );
        let _ = write!(
            out,
            "<figure class=\"chart growth\" data-path=\"{}\">",
            esc(path)
        );
        svg::growth(out, &title, &ages, &lens, g.per_day);
        let _ = write!(
            out,
            "<figcaption>{} <code>{}</code>: {} ({}), {} {} · {}</figcaption></figure>",
            t("Length against age of", "长度随文档年龄："),
            esc(path),
            t("age in days", "年龄（天）"),
            esc(g.age_from.as_deref().unwrap_or("_id")),
            t("fitted slope", "拟合斜率"),
            lang.pick(
                format!("{} elements/day", crate::fmt::decimal(g.per_day)),
                format!("每天 {} 个元素", crate::fmt::decimal(g.per_day))
            ),
            g.strength(lang)
        );
    }
    out.push_str("</div>\n");
}

/// A finding in full: message, why, suggestion, before / after, effect,
/// evidence and the script with its copy button.
fn finding(out: &mut String, f: &Advice, n: usize, lang: Lang) {
    use crate::i18n::evidence::{key, shown, shown_entry};
    let t = |en: &'static str, zh: &'static str| lang.pick(en, zh);
    let open = if f.severity == Severity::Critical {
        " open"
    } else {
        ""
    };
    let path = f
        .path
        .as_deref()
        .map(|p| format!(" <code class=\"path\">{}</code>", esc(p)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<details class=\"finding sev-{}\" id=\"f{n}\" data-rule=\"{}\"{open}><summary>{} <code>{}</code>{path} — {}</summary>",
        f.severity.name(),
        f.rule,
        badge(f.severity, lang),
        f.rule,
        esc(&f.message)
    );
    let _ = writeln!(
        out,
        "<p><b>{}</b> {} <span class=\"dim\">({})</span></p>",
        t("Why it matters.", "为什么重要。"),
        esc(&f.explanation),
        esc(&f.source)
    );
    let pattern = crate::i18n::evidence::value("pattern", f.suggestion.pattern, lang)
        .unwrap_or(f.suggestion.pattern);
    let _ = writeln!(
        out,
        "<p><b>{}</b> (<code>{}</code>) {}</p>",
        t("Suggestion", "建议"),
        esc(pattern),
        esc(&f.suggestion.summary)
    );
    if let (Some(b), Some(a)) = (&f.suggestion.before, &f.suggestion.after) {
        let _ = writeln!(
            out,
            "<div class=\"ba\"><figure><figcaption>{}</figcaption><pre class=\"before\">{}</pre></figure><figure><figcaption>{}</figcaption><pre class=\"after\">{}</pre></figure></div>",
            t("Before", "修改前"),
            esc_block(&pretty(b)),
            t("After", "修改后"),
            esc_block(&pretty(a))
        );
    }
    if !f.suggestion.effect.is_empty() {
        let _ = write!(
            out,
            "<p><b>{}</b></p><dl class=\"effect\">",
            t("Estimated effect on the sample", "在样本上估算的效果")
        );
        for (k, v) in &f.suggestion.effect {
            let _ = write!(
                out,
                "<dt>{}</dt><dd>{}</dd>",
                esc(key(k, lang)),
                esc(&shown(k, v, lang))
            );
        }
        out.push_str("</dl>\n");
    }
    let _ = write!(
        out,
        "<p><b>{}</b></p><dl class=\"evidence\">",
        t("Evidence", "证据")
    );
    for (k, v) in &f.evidence {
        let _ = write!(
            out,
            "<dt>{}</dt><dd>{}</dd>",
            esc(key(k, lang)),
            esc(&shown_entry(k, v, lang))
        );
    }
    out.push_str("</dl>\n");
    if !f.suggestion.migration.is_empty() {
        let _ = writeln!(
            out,
            "<p><b>{}</b> <span class=\"dim\">{}</span></p><div class=\"script\"><button type=\"button\" class=\"copy\" data-copy=\"s{n}\" data-done=\"{}\">{}</button><pre id=\"s{n}\"><code>{}</code></pre></div>",
            t("Migration script", "迁移脚本"),
            t(
                "(mongosh; a dry run until apply is set; docshape never runs it)",
                "（mongosh；设置 apply 之前只是演练；docshape 从不执行它）"
            ),
            t("Copied", "已复制"),
            t("Copy script", "复制脚本"),
            esc_block(&f.suggestion.migration)
        );
    }
    out.push_str("</details>\n");
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// The field tree: each path indented by its depth, with its types as a
/// bar, its presence with the interval, array lengths and bytes.
fn fields(out: &mut String, c: &CollectionReport, lang: Lang) {
    use crate::fmt::{bytes, group, percent};
    let t = |en: &'static str, zh: &'static str| lang.pick(en, zh);
    let _ = writeln!(
        out,
        "<h3>{} ({})</h3><div class=\"wrap\"><table class=\"fields\"><tr><th>{}</th><th>{}</th><th class=\"n\">{}</th><th class=\"n\">{}</th><th class=\"n\">{}</th></tr>",
        t("Fields", "字段"),
        group(c.fields.len() as u64),
        t("path", "路径"),
        t("types", "类型"),
        t("present (95 % interval)", "出现率（95% 区间）"),
        t("array length min/avg/max", "数组长度 最小/平均/最大"),
        t("bytes/doc", "字节/文档")
    );
    for f in c.fields.iter().take(FIELDS_SHOWN) {
        let name = if f.name.is_empty() { &f.path } else { &f.name };
        let _ = write!(
            out,
            "<tr data-path=\"{}\"><td class=\"path d{}\"><span>{}</span></td><td>",
            esc(&f.path),
            f.depth.min(DEPTHS_INDENTED),
            esc(name)
        );
        svg::type_bar(out, &f.types);
        let _ = write!(
            out,
            " {}</td><td class=\"n\">",
            esc(&super::text::types_label(f))
        );
        svg::presence(out, f.presence, f.presence_ci);
        let ci = f
            .presence_ci
            .map(|[lo, hi]| format!(" ({}–{})", percent(lo), percent(hi)))
            .unwrap_or_default();
        let arr = f
            .array
            .map(|a| {
                format!(
                    "{} / {} / {}",
                    group(a.min),
                    crate::fmt::decimal(a.avg),
                    group(a.max)
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            " <span class=\"presence\">{}</span>{ci}</td><td class=\"n\">{arr}</td><td class=\"n\">{}</td></tr>",
            percent(f.presence),
            bytes(f.bytes_avg)
        );
    }
    out.push_str("</table></div>\n");
    if c.fields.len() > FIELDS_SHOWN {
        let _ = writeln!(
            out,
            "<p class=\"dim\">… {} {}</p>",
            group((c.fields.len() - FIELDS_SHOWN) as u64),
            t("more paths in the JSON report", "个路径见 JSON 报告")
        );
    }
    if c.paths_capped {
        let _ = writeln!(
            out,
            "<p class=\"note\">{}</p>",
            t(
                "The collection had more distinct paths than the profile keeps; those beyond the cap are not listed.",
                "该集合的不同路径数超过了分析的上限；超出部分未列出。"
            )
        );
    }
}

/// The relationships: a diagram of the references, and a table of all.
fn relationships(out: &mut String, report: &Report, lang: Lang) {
    let t = |en: &'static str, zh: &'static str| lang.pick(en, zh);
    if report.relationships.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"relationships\"><h2>{}</h2>",
        t("Relationships", "集合间关系")
    );
    let rels: Vec<&crate::relate::Relationship> = report.relationships.iter().collect();
    if rels.iter().any(|r| r.kind != crate::relate::Kind::Embedded) {
        let title = t(
            "References between collections, parent to child",
            "集合之间的引用（从父到子）",
        );
        out.push_str("<figure class=\"chart relations\"><div class=\"wrap\">");
        svg::diagram(out, title, &rels, &|r| {
            let (a, b) = super::mermaid::ends(r);
            (a.to_owned(), b.to_owned())
        });
        let _ = writeln!(
            out,
            "</div><figcaption>{title}; {}</figcaption></figure>",
            t(
                "each arrow is labelled with the referencing path and its measured cardinality",
                "箭头上标注引用路径及测得的基数"
            )
        );
    }
    let _ = writeln!(
        out,
        "<div class=\"wrap\"><table><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th><th class=\"n\">{}</th><th class=\"n\">{}</th></tr>",
        t("from", "从"),
        t("to", "到"),
        t("kind", "类型"),
        t("cardinality", "基数"),
        t("children per parent (min/avg/p95/max)", "每个父文档的子文档数（最小/平均/p95/最大）"),
        t("ids found", "命中率")
    );
    for r in &report.relationships {
        let fan = r
            .fanout
            .as_ref()
            .map(|f| {
                format!(
                    "{} / {} / {} / {}",
                    crate::fmt::group(f.min),
                    crate::fmt::decimal(f.avg),
                    crate::fmt::group(f.p95),
                    crate::fmt::group(f.max)
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr><td class=\"path\"><code>{}</code></td><td class=\"path\"><code>{}</code></td><td>{}</td><td>{}</td><td class=\"n\">{fan}</td><td class=\"n\">{}</td></tr>",
            esc(&r.from),
            esc(&r.to),
            super::plain(&r.kind),
            super::plain(&r.cardinality),
            crate::fmt::percent(r.match_rate)
        );
    }
    out.push_str("</table></div></section>\n");
}

/// The workload: query shapes by total time.
fn workload(out: &mut String, w: &crate::workload::Workload, lang: Lang) {
    use crate::fmt::{group, percent};
    let t = |en: &'static str, zh: &'static str| lang.pick(en, zh);
    let _ = writeln!(
        out,
        "<section id=\"workload\"><h2>{}</h2><p>{} {} · {} {}</p>",
        t("Workload", "工作负载"),
        group(w.slow_queries),
        t("slow queries", "条慢查询"),
        group(w.shapes.len() as u64),
        t("shapes", "种查询形状"),
    );
    if !w.shapes.is_empty() {
        let total: u64 = w.shapes.iter().map(|s| s.ms.total).sum();
        let _ = writeln!(
            out,
            "<div class=\"wrap\"><table><tr><th class=\"n\">ms</th><th class=\"n\">{}</th><th class=\"n\">{}</th><th>{}</th><th>{}</th><th class=\"n\">{}</th><th>{}</th></tr>",
            t("share", "占比"),
            t("runs", "次数"),
            t("collection", "集合"),
            t("shape", "查询形状"),
            t("examined / returned", "检查数/返回数"),
            t("findings", "发现"),
        );
        for s in w.shapes.iter().take(SHAPES_SHOWN) {
            let share = if total > 0 {
                percent(s.ms.total as f64 / total as f64)
            } else {
                "–".to_owned()
            };
            let _ = writeln!(
                out,
                "<tr><td class=\"n\">{}</td><td class=\"n\">{share}</td><td class=\"n\">{}</td><td>{}</td><td><code>{}</code></td><td class=\"n\">{}</td><td>{}</td></tr>",
                group(s.ms.total),
                group(s.count),
                esc(&s.namespace),
                esc(&crate::rules::shapes::label(s)),
                esc(&s.examined_per_returned()),
                esc(&s.findings.join(" ")),
            );
        }
        out.push_str("</table></div>\n");
        if w.shapes.len() > SHAPES_SHOWN {
            let _ = writeln!(
                out,
                "<p class=\"dim\">{} {}</p>",
                group((w.shapes.len() - SHAPES_SHOWN) as u64),
                t("more shapes in the JSON report", "种查询形状见 JSON 报告"),
            );
        }
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_leaves_no_markup_or_control_characters() {
        let hostile = "<script>alert(\"x\")</script>'&\u{0}\u{202e}";
        let e = esc(hostile);
        for bad in ['<', '>', '"', '\'', '\u{0}', '\u{202e}'] {
            assert!(!e.contains(bad), "{bad:?} in {e}");
        }
        assert!(e.contains("&lt;script&gt;"), "{e}");
        assert_eq!(esc_block("a<\n\tb"), "a&lt;\n\tb");
    }
}
