//! The report for a terminal: a summary per collection and its field table.

use std::fmt::Write;

use super::{plain, CollectionReport, Open, Report, Spool, Spooled, WriteError};
use crate::fmt::{bytes, display_width, group};
use crate::profile::raw::BsonType;
use crate::profile::FieldProfile;
use crate::source::IndexKind;

/// ANSI styling, or none at all.
#[derive(Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
    fn bold(self, s: &str) -> String {
        self.paint("1", s)
    }
    fn dim(self, s: &str) -> String {
        self.paint("2", s)
    }
    fn cyan(self, s: &str) -> String {
        self.paint("36", s)
    }
    fn yellow(self, s: &str) -> String {
        self.paint("33", s)
    }
}

const PATH_WIDTH: usize = 34;
const TYPE_WIDTH: usize = 26;

pub fn render(report: &Report, style: Style) -> String {
    let mut parts = Spooled::new(Spool::in_memory(), Spool::in_memory());
    for c in &report.collections {
        let _ = add(&mut parts, c, style);
    }
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = finish(report, style, &mut parts, &mut out);
    String::from_utf8(out).unwrap_or_default()
}

/// Renders collection `c` into `parts`, as it comes.
pub(super) fn add(parts: &mut Spooled, c: &CollectionReport, style: Style) -> std::io::Result<()> {
    let mut out = String::from("\n");
    collection(&mut out, c, style);
    parts.collections += 1;
    parts.count(c.findings.iter());
    std::io::Write::write_all(&mut parts.sections, out.as_bytes())
}

/// Writes the report: its head, the collections rendered into `parts`
/// ([`add`]; `report.collections` is not read), and the rest.
pub(super) fn finish(
    report: &Report,
    style: Style,
    parts: &mut Spooled,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {}  {}",
        style.bold("docshape"),
        super::VERSION,
        style.dim(&safe(&report.target))
    );
    let sampling = match report.sampling.size {
        Some(n) => format!("sample of up to {} documents per collection", group(n)),
        None => "every document read".to_owned(),
    };
    if report.sampling.mode != "none" {
        let _ = writeln!(out, "{} collections · {sampling}", parts.collections);
    }
    for note in &report.notes {
        let _ = writeln!(out, "{} {}", style.yellow("note:"), safe(note));
    }
    errors(&mut out, report, style);
    w.write_all(out.as_bytes())?;
    parts.sections.drain_into(w)?;
    let mut out = String::new();
    if parts.collections == 0 && report.sampling.mode != "none" {
        let _ = writeln!(out, "\nNo collections matched.");
    }
    if !report.relationships.is_empty() {
        relationships(&mut out, report, style);
    }
    for f in &report.findings {
        finding(&mut out, f, style);
    }
    if let Some(w) = &report.workload {
        workload(&mut out, w, report.rules.lang, style);
    }
    parts.count(report.findings.iter());
    summary(&mut out, report, parts.severities, style);
    w.write_all(out.as_bytes())
}

/// The text report, each collection rendered as it comes and spooled on
/// disk until the report's head is written.
pub struct TextWriter {
    style: Style,
    parts: Spooled,
    open: Open,
}

impl TextWriter {
    pub fn new(style: Style, open: Open) -> TextWriter {
        TextWriter {
            style,
            parts: Spooled::new(Spool::on_disk(), Spool::on_disk()),
            open,
        }
    }
}

impl super::Writer for TextWriter {
    fn collection(&mut self, _head: &Report, c: CollectionReport) -> Result<(), WriteError> {
        add(&mut self.parts, &c, self.style).map_err(WriteError::Spool)
    }

    fn worst(&self) -> Option<crate::rules::Severity> {
        self.parts.worst()
    }

    fn finish(self: Box<Self>, report: &Report) -> Result<(), WriteError> {
        let TextWriter {
            style,
            mut parts,
            open,
        } = *self;
        super::write_to(open, |w| finish(report, style, &mut parts, w))
    }
}

/// Shapes shown in the text report at most (the JSON report has them all).
const SHAPES_SHOWN: usize = 20;

/// The workload: query shapes by total time, each with its plans.
fn workload(
    out: &mut String,
    w: &crate::workload::Workload,
    lang: crate::i18n::Lang,
    style: Style,
) {
    let head = if w.from_server() {
        lang.pick(
            format!(
                "{} entries of {}, {} shapes, {} skipped",
                group(w.slow_queries),
                w.sources.join(" and "),
                group(w.shapes.len() as u64),
                group(w.skipped.values().sum())
            ),
            format!(
                "{} 的 {} 条记录，{} 种查询形状，跳过 {} 条",
                w.sources.join("、"),
                group(w.slow_queries),
                group(w.shapes.len() as u64),
                group(w.skipped.values().sum())
            ),
        )
    } else {
        lang.pick(
            format!(
                "{} lines, {} slow queries, {} shapes, {} skipped",
                group(w.lines),
                group(w.slow_queries),
                group(w.shapes.len() as u64),
                group(w.skipped.values().sum())
            ),
            format!(
                "{} 行，{} 条慢查询，{} 种查询形状，跳过 {} 条",
                group(w.lines),
                group(w.slow_queries),
                group(w.shapes.len() as u64),
                group(w.skipped.values().sum())
            ),
        )
    };
    let _ = writeln!(
        out,
        "\n{} {}",
        style.bold(lang.pick("Workload", "工作负载")),
        style.dim(&head)
    );
    let total: u64 = w.shapes.iter().map(|s| s.ms.total).sum();
    for s in w.shapes.iter().take(SHAPES_SHOWN) {
        let mut what = s
            .filter
            .as_ref()
            .or(s.pipeline.as_ref())
            .map(|v| safe(&v.to_string()))
            .unwrap_or_default();
        if let Some(sort) = &s.sort {
            what = format!("{what} sort {}", safe(&sort.to_string()));
        }
        if let Some(u) = &s.update {
            what = format!("{what} → {}", safe(&u.to_string()));
        }
        let share = if total > 0 {
            crate::fmt::percent(s.ms.total as f64 / total as f64)
        } else {
            "–".to_owned()
        };
        let led_to = if s.findings.is_empty() {
            String::new()
        } else {
            format!("  → {}", style.bold(&s.findings.join(", ")))
        };
        let _ = writeln!(
            out,
            "  {:>7} {:>6}  {} {} {}{led_to}",
            format!("{} ms", group(s.ms.total)),
            share,
            s.op,
            safe(&s.namespace),
            what
        );
        let per_returned = s.examined_per_returned();
        let plans: Vec<String> = s
            .plans
            .iter()
            .map(|(p, n)| format!("{} ×{}", safe(p), group(*n)))
            .collect();
        let _ = writeln!(
            out,
            "  {}",
            style.dim(&format!(
                "          {} runs, p50 {} ms, p95 {} ms, max {} ms, {} documents examined per returned; {}",
                group(s.count),
                group(s.ms.p50),
                group(s.ms.p95),
                group(s.ms.max),
                per_returned,
                if plans.is_empty() { "no plan logged".to_owned() } else { plans.join(", ") }
            ))
        );
        if s.explained > 0 {
            let _ = writeln!(
                out,
                "  {}",
                style.dim(&lang.pick(
                    format!(
                        "          plan of {} runs from explain (not recorded)",
                        group(s.explained)
                    ),
                    format!(
                        "          其中 {} 次的执行计划来自 explain（未被记录）",
                        group(s.explained)
                    ),
                ))
            );
        }
    }
    if w.shapes.len() > SHAPES_SHOWN {
        let _ = writeln!(
            out,
            "  {}",
            style.dim(&format!(
                "… and {} more shapes in the JSON report",
                group((w.shapes.len() - SHAPES_SHOWN) as u64)
            ))
        );
    }
    for (ns, c) in &w.counts {
        let _ = writeln!(
            out,
            "  {}",
            style.dim(&lang.pick(
                format!(
                    "{}: {} reads, {} writes counted by the server ({})",
                    safe(ns),
                    group(c.reads),
                    group(c.writes),
                    c.source
                ),
                format!(
                    "{}：服务器统计读取 {} 次、写入 {} 次（{}）",
                    safe(ns),
                    group(c.reads),
                    group(c.writes),
                    c.source
                ),
            ))
        );
    }
    for (why, n) in &w.skipped {
        let _ = writeln!(
            out,
            "  {}",
            style.dim(&format!("skipped {}: {}", group(*n), safe(why)))
        );
    }
}

/// What could not be read, before everything that could.
fn errors(out: &mut String, report: &Report, style: Style) {
    if report.errors.is_empty() {
        return;
    }
    let lang = report.rules.lang;
    let _ = writeln!(
        out,
        "\n{} {}",
        style.paint("31;1", lang.pick("Errors:", "错误：")),
        lang.pick(
            format!(
                "{} could not be read; everything else is reported below",
                plural(report.errors.len(), "part", "parts")
            ),
            format!(
                "{} 处无法读取；其余部分照常报告",
                group(report.errors.len() as u64)
            )
        )
    );
    for e in &report.errors {
        let _ = writeln!(out, "  {} {}", style.paint("31", "✗"), safe(&e.message));
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", group(n as u64), if n == 1 { one } else { many })
}

/// The closing line: every finding by severity (critical, warning, info).
fn summary(out: &mut String, report: &Report, [c, w, i]: [usize; 3], style: Style) {
    let _ = writeln!(
        out,
        "\n{} {} critical · {} warning · {} info (rules: {})",
        style.bold("Findings:"),
        if c > 0 {
            style.paint("31;1", &c.to_string())
        } else {
            c.to_string()
        },
        if w > 0 {
            style.yellow(&w.to_string())
        } else {
            w.to_string()
        },
        i,
        report.rules.profile
    );
}

fn finding(out: &mut String, f: &crate::advise::Advice, style: Style) {
    use crate::rules::Severity;
    let tag = match f.severity {
        Severity::Critical => style.paint("31;1", "CRITICAL"),
        Severity::Warning => style.yellow("WARNING "),
        Severity::Info => style.paint("34", "INFO    "),
    };
    let path = f
        .path
        .as_deref()
        .map(|p| format!(" {}", style.cyan(&safe(p))))
        .unwrap_or_default();
    let _ = writeln!(out, "  {tag} {}{path}", style.bold(f.rule));
    let _ = writeln!(out, "           {}", safe(&f.message));
    let _ = writeln!(
        out,
        "           {} {} ({})",
        style.dim("→"),
        safe(&f.suggestion.summary),
        f.suggestion.pattern
    );
}

fn relationships(out: &mut String, report: &Report, style: Style) {
    let _ = writeln!(out, "\n{}", style.bold("Relationships"));
    for r in &report.relationships {
        let kind = super::plain(&r.kind);
        let card = super::plain(&r.cardinality);
        let _ = writeln!(
            out,
            "  {} → {}",
            style.cyan(&safe(&r.from)),
            style.cyan(&safe(&r.to))
        );
        let mut facts = vec![format!("{kind}, {card}")];
        if let Some(f) = &r.fanout {
            facts.push(format!(
                "children per parent min {} · avg {:.1} · p95 {} · max {} over {} parents ({})",
                group(f.min),
                f.avg,
                group(f.p95),
                group(f.max),
                group(f.parents),
                r.fanout_method.as_deref().unwrap_or("measured")
            ));
            if let Some(d) = f.dangling_children.filter(|&d| d > 0) {
                facts.push(format!(
                    "{} references to missing parents left out",
                    group(d)
                ));
            }
        }
        if r.references_probed > 0 {
            facts.push(format!(
                "{} of {} sampled references found ({}, {} dangling)",
                group(r.references_matched),
                group(r.references_probed),
                crate::fmt::percent(r.match_rate),
                crate::fmt::percent(r.dangling)
            ));
        }
        if let Some(e) = &r.evidence {
            facts.push(format!(
                "by {} (chance {})",
                e.accepted_by.unwrap_or("-"),
                crate::fmt::percent(e.chance_rate)
            ));
        }
        if let Some(p) = &r.polymorphic {
            facts.push(match (&p.discriminator, &p.class) {
                (Some(d), Some(c)) => format!(
                    "polymorphic: {d} = {c} ({} of {} targets)",
                    1,
                    p.targets.len()
                ),
                _ => format!("polymorphic: one of {} targets", p.targets.len()),
            });
        }
        if r.to_one_pointer {
            facts.push("a to-one pointer to a later document".into());
        }
        if r.target_unique.as_ref().is_some_and(|u| !u.unique) {
            facts.push(style.yellow("target key not unique"));
        }
        match r.indexed {
            Some(true) => facts.push("indexed".into()),
            Some(false) => facts.push(style.yellow("no index starts with this field")),
            None => {}
        }
        let _ = writeln!(out, "    {}", facts.join(" · "));
    }
}

fn collection(out: &mut String, c: &CollectionReport, style: Style) {
    let docs = match c.documents {
        Some(1) => "1 document".to_owned(),
        Some(n) => format!("{} documents", group(n)),
        None => "document count unknown".to_owned(),
    };
    let _ = writeln!(
        out,
        "{}  {docs} · {} profiled ({}) · {} index{}",
        style.bold(&safe(&c.namespace)),
        group(c.sampled),
        c.sample_method,
        c.indexes.len(),
        if c.indexes.len() == 1 { "" } else { "es" }
    );
    if let Some(p) = &c.partial {
        let _ = writeln!(out, "  {} {}", style.yellow("partial:"), safe(p));
    }
    if let Some(g) = &c.meta.gridfs {
        let line = gridfs_line(g, c.kind, crate::i18n::Lang::En);
        let _ = writeln!(out, "  {} {}", style.dim("gridfs:"), safe(&line));
    }
    for n in &c.notes {
        let _ = writeln!(out, "  {} {}", style.yellow("note:"), safe(n));
    }
    if c.sampled == 0 {
        let _ = writeln!(out, "  (no documents)");
        return;
    }
    let s = &c.doc_size;
    let _ = writeln!(
        out,
        "  document size  min {} · avg {} · p50 {} · p95 {} · max {} · nesting depth {}",
        bytes(s.min as f64),
        bytes(s.avg),
        bytes(s.p50 as f64),
        bytes(s.p95 as f64),
        bytes(s.max as f64),
        c.max_depth
    );
    if let Some(e) = &c.extremes {
        let _ = writeln!(
            out,
            "  whole collection  {}",
            safe(&extremes_line(e, crate::i18n::Lang::En))
        );
    }
    if !c.indexes.is_empty() {
        let names: Vec<String> = c
            .indexes
            .iter()
            .map(|i| {
                let keys: Vec<String> = i.key.iter().map(|(k, v)| format!("{k}:{v}")).collect();
                let kinds: Vec<String> = i
                    .kinds
                    .iter()
                    .filter(|k| {
                        !matches!(k, IndexKind::Id | IndexKind::Single | IndexKind::Compound)
                    })
                    .map(plain)
                    .collect();
                if kinds.is_empty() {
                    format!("{} {{{}}}", i.name, keys.join(", "))
                } else {
                    format!("{} {{{}}} [{}]", i.name, keys.join(", "), kinds.join(", "))
                }
            })
            .collect();
        let _ = writeln!(out, "  indexes  {}", safe(&names.join(" · ")));
    }
    // The path and type columns as wide as their widest, up to a cap past
    // which a value is cut in its middle.
    let widths = (
        column_width("PATH", c.fields.iter().map(path_text), PATH_WIDTH),
        column_width("TYPES", c.fields.iter().map(types_label), TYPE_WIDTH),
    );
    let _ = writeln!(
        out,
        "  {}",
        style.dim(&format!(
            "{} {} {:>8} {:>18} {:>9} {:>8}",
            crate::fmt::pad("PATH", widths.0),
            crate::fmt::pad("TYPES", widths.1),
            "PRESENT",
            "ARRAY min/avg/max",
            "BYTES/doc",
            "DISTINCT"
        ))
    );
    for f in &c.fields {
        let Some(g) = c.growth.get(&f.path) else {
            continue;
        };
        // A path whose growth was measured twice is shown whatever was
        // decided: the choice and the measurement set aside are evidence.
        let decided = g.decision_text(crate::i18n::Lang::En);
        if !g.is_significant(0.5) && decided.is_none() {
            continue;
        }
        let limit = g.days_to_limit.map_or_else(
            || "never reaches 16 MiB at this pace".to_owned(),
            |d| {
                format!(
                    "largest document passes 16 MiB in {}",
                    crate::fmt::duration_days(d).0
                )
            },
        );
        let _ = writeln!(
            out,
            "  {} {} grows {:+.2} elements/day ({}, ρ {:.2}, n {}) · {limit}",
            style.yellow("growth"),
            safe(&f.path),
            g.per_day,
            g.method,
            g.correlation,
            g.n
        );
        if let Some(d) = decided {
            let _ = writeln!(out, "    {}", style.dim(&safe(&d)));
        }
    }
    let mut folded: Option<String> = None;
    for f in &c.fields {
        if let Some(prefix) = &folded {
            if f.path.starts_with(prefix.as_str()) {
                continue;
            }
            folded = None;
        }
        field_row(out, f, widths, style);
        if f.children > FOLD_KEYS && f.main_type() == Some(BsonType::Object) {
            let indent = "  ".repeat(f.depth as usize + 1);
            let _ = writeln!(
                out,
                "  {}",
                style.dim(&format!(
                    "{indent}… {} different keys under {}, folded: keys that vary from document to document are usually data (--format json lists every path)",
                    group(f.children as u64),
                    safe(&f.path)
                ))
            );
            folded = Some(format!("{}.", f.path));
        }
    }
    if !c.findings.is_empty() {
        let _ = writeln!(out, "  {}", style.bold("findings"));
        for f in &c.findings {
            finding(out, f, style);
        }
    }
}

/// Objects with more keys than this have their sub-paths folded in text.
const FOLD_KEYS: usize = 30;

/// A field's path as the table shows it: indented by its depth, escaped.
fn path_text(f: &FieldProfile) -> String {
    format!("{}{}", "  ".repeat(f.depth as usize), safe(&f.path))
}

/// A column's width in cells: its header's or its widest value's, at most
/// `cap`.
fn column_width(header: &str, values: impl Iterator<Item = String>, cap: usize) -> usize {
    values
        .map(|v| display_width(&v))
        .chain(std::iter::once(display_width(header)))
        .max()
        .unwrap_or(0)
        .min(cap)
}

fn field_row(out: &mut String, f: &FieldProfile, (path_w, type_w): (usize, usize), style: Style) {
    let path = crate::fmt::fit(&path_text(f), path_w);
    let types = crate::fmt::fit(&types_label(f), type_w);
    let presence = crate::fmt::percent(f.presence);
    let array = f
        .array
        .map(|a| format!("{}/{:.1}/{}", a.min, a.avg, a.max))
        .unwrap_or_default();
    let distinct = f
        .distinct
        .map(|d| {
            if d.exact {
                group(d.estimate)
            } else {
                format!("~{}", group(d.estimate))
            }
        })
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  {} {} {:>8} {:>18} {:>9} {:>8}",
        style.cyan(&crate::fmt::pad(&path, path_w)),
        crate::fmt::pad(&types, type_w),
        presence,
        array,
        bytes(f.bytes_avg),
        distinct
    );
}

/// `int 98% · string 2%` style type breakdown.
pub(crate) fn types_label(f: &FieldProfile) -> String {
    let total: u64 = f.types.iter().map(|t| t.1).sum();
    if f.types.len() == 1 {
        return f.types[0].0.alias().to_owned();
    }
    f.types
        .iter()
        .map(|(t, c)| {
            format!(
                "{} {}",
                t.alias(),
                crate::fmt::percent(*c as f64 / total.max(1) as f64)
            )
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// Replaces characters that would corrupt a terminal (controls, escapes)
/// with visible escapes.
pub(crate) fn safe(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if ch.is_control()
            || matches!(ch, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        {
            let _ = write!(out, "\\u{{{:x}}}", ch as u32);
        } else {
            out.push(ch);
        }
    }
    out
}

/// A GridFS bucket's part in one line: what the bucket holds (files, their
/// sizes, the chunk size, chunks, orphan chunks), what was not measured,
/// and that it is not judged by the rules.
pub(crate) fn gridfs_line(
    g: &crate::source::gridfs::Gridfs,
    kind: crate::source::CollectionKind,
    lang: crate::i18n::Lang,
) -> String {
    let part = if kind == crate::source::CollectionKind::GridfsChunks {
        lang.pick("its chunks", "块部分")
    } else {
        lang.pick("its files", "文件部分")
    };
    let mut parts = vec![lang.pick(
        format!("GridFS bucket {} ({part})", g.bucket),
        format!("GridFS 存储桶 {}（{part}）", g.bucket),
    )];
    if let Some(n) = g.files {
        parts.push(lang.pick(
            format!("{} files", group(n)),
            format!("{} 个文件", group(n)),
        ));
    }
    if let Some(b) = g.total_bytes {
        let b = bytes(b as f64);
        parts.push(lang.pick(format!("{b} in all"), format!("共 {b}")));
    }
    if let Some(b) = g.largest_bytes {
        let b = bytes(b as f64);
        parts.push(lang.pick(format!("largest {b}"), format!("最大 {b}")));
    }
    if !g.chunk_sizes.is_empty() {
        let sizes: Vec<String> = g
            .chunk_sizes
            .iter()
            .map(|c| bytes(c.bytes as f64))
            .collect();
        let sizes = sizes.join(", ");
        parts.push(lang.pick(format!("chunk size {sizes}"), format!("块大小 {sizes}")));
    }
    if let Some(n) = g.chunks {
        parts.push(lang.pick(format!("{} chunks", group(n)), format!("{} 个块", group(n))));
    }
    if let Some(n) = g.orphan_chunks {
        parts.push(lang.pick(
            format!("{} orphan chunks (no file names them)", group(n)),
            format!("{} 个孤立块（没有文件指向）", group(n)),
        ));
    }
    if !g.not_measured.is_empty() {
        let why = g.not_measured.join("; ");
        parts.push(lang.pick(format!("not measured: {why}"), format!("未测量：{why}")));
    }
    parts.push(
        lang.pick(
            "the driver's layout, not judged by the rules",
            "驱动程序的存储布局，不按规则评判",
        )
        .to_owned(),
    );
    parts.join(" · ")
}

/// The whole-collection extremes in one line: the largest document, the
/// documents over each size threshold, the longest arrays, how and how long.
pub(crate) fn extremes_line(e: &crate::source::Extremes, lang: crate::i18n::Lang) -> String {
    let mut parts = Vec::new();
    if let Some(d) = e.largest.first() {
        let id =
            d.id.as_ref()
                .map(|i| format!(" (_id {i})"))
                .filter(|s| display_width(s) <= 72)
                .unwrap_or_default();
        parts.push(lang.pick(
            format!("largest {}{id}", bytes(d.bytes as f64)),
            format!("最大 {}{id}", bytes(d.bytes as f64)),
        ));
    }
    for o in &e.over {
        parts.push(format!(
            "{} ≥ {}",
            group(o.documents),
            bytes(o.bytes as f64)
        ));
    }
    let mut arrays: Vec<&crate::source::extremes::ArrayExtreme> = e.arrays.iter().collect();
    arrays.sort_by_key(|a| std::cmp::Reverse(a.max_length));
    for a in arrays.iter().take(3) {
        parts.push(format!("{} ≤ {}", a.path, group(a.max_length)));
    }
    let secs = e.millis as f64 / 1000.0;
    parts.push(lang.pick(
        format!(
            "{} of {} documents in {secs:.1} s",
            e.method,
            group(e.documents)
        ),
        format!(
            "{}，{} 个文档，用时 {secs:.1} 秒",
            e.method,
            group(e.documents)
        ),
    ));
    parts.join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsafe_names_are_escaped_and_clipped_by_width() {
        assert_eq!(safe("a\x1b[31mb"), "a\\u{1b}[31mb");
        assert_eq!(safe("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(display_width("名字"), 4);
        let c = crate::fmt::fit(&"名".repeat(30), 10);
        assert!(display_width(&c) <= 10, "{c}");
        assert_eq!(column_width("PATH", ["名字".to_owned()].into_iter(), 34), 4);
        assert_eq!(
            column_width("PATH", ["用户的名字".to_owned()].into_iter(), 34),
            10
        );
        assert_eq!(column_width("PATH", ["x".repeat(50)].into_iter(), 34), 34);
    }
}
