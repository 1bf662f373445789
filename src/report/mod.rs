//! What an audit found, as one serialisable value, and its renderings.
//! The JSON rendering is the contract's report; the text one is for people.

pub mod html;
pub mod json;
pub mod json_schema;
pub mod json_schema_2020;
pub mod markdown;
pub mod mermaid;
pub mod rust_types;
pub mod sarif;
pub mod shape;
pub mod text;
pub mod typescript;

use serde::Serialize;

use crate::profile::sketch::Summary;
use crate::profile::{FieldProfile, Profile};
use crate::source::{CollectionKind, CollectionMeta, IndexInfo, StorageStats};

/// docshape's version, as the report's `docshape` field.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The formats of `docshape audit`. A format is a file of this module with
/// its [`Writer`], and an arm here and in [`writer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// For people: each collection's summary, findings and field table.
    Text,
    /// The contract's JSON report, written as each collection is judged.
    Json,
    /// JSON lines: a `head` line, a `collection` line for each collection
    /// as it is judged, and an `end` line with the rest of the report.
    Jsonl,
    /// A Markdown review, for a pull request or a wiki.
    Markdown,
    /// SARIF 2.1.0, for code-scanning tools.
    Sarif,
    /// One self-contained HTML page for a reviewer: findings by severity,
    /// charts, the field tree and a relationship diagram; nothing fetched.
    Html,
}

impl Format {
    pub const ALL: [Format; 6] = [
        Format::Text,
        Format::Json,
        Format::Jsonl,
        Format::Markdown,
        Format::Sarif,
        Format::Html,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Jsonl => "jsonl",
            Format::Markdown => "markdown",
            Format::Sarif => "sarif",
            Format::Html => "html",
        }
    }

    /// What it is for, as `--help` says.
    pub fn about(self) -> &'static str {
        match self {
            Format::Text => "For people: each collection's summary, findings and field table",
            Format::Json => "The contract's JSON report, written as each collection is judged",
            Format::Jsonl => "JSON lines: a `head` line, a `collection` line for each collection as it is judged, and an `end` line with the rest of the report",
            Format::Markdown => "A Markdown review, for a pull request or a wiki",
            Format::Sarif => "SARIF 2.1.0, for code-scanning tools",
            Format::Html => "One self-contained HTML page for a reviewer: findings by severity, charts, the field tree and a relationship diagram; nothing fetched",
        }
    }
}

/// Opens where a report goes (a file, standard output) when its first byte
/// is due, so that a run that fails before writes nothing.
pub type Open = Box<dyn FnOnce() -> std::io::Result<Box<dyn std::io::Write>>>;

/// How a report is written.
pub struct Options {
    /// ANSI colour in the text report.
    pub color: bool,
    /// Where the report goes.
    pub open: Open,
}

/// Why a report could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// The temporary file the collections are put aside in.
    Spool(std::io::Error),
    /// The report's output.
    Output(std::io::Error),
}

/// A report written as the audit judges its collections: each is handed to
/// [`Writer::collection`] as it comes, then the rest of the report to
/// [`Writer::finish`].
pub trait Writer {
    /// Takes judged collection `c`, with the report's `head` (its target,
    /// sampling and rules; no collections).
    fn collection(&mut self, head: &Report, c: CollectionReport) -> Result<(), WriteError>;

    /// The worst finding of the collections taken.
    fn worst(&self) -> Option<crate::rules::Severity>;

    /// Writes the report: the collections taken, and the rest of `report`
    /// (its head, relationships, database-wide findings and workload).
    fn finish(self: Box<Self>, report: &Report) -> Result<(), WriteError>;
}

/// The writer of `format`.
pub fn writer(format: Format, options: Options) -> Box<dyn Writer> {
    let Options { color, open } = options;
    match format {
        Format::Text => Box::new(text::TextWriter::new(text::Style { color }, open)),
        Format::Json => Box::new(json::JsonWriter::new(open, false)),
        Format::Jsonl => Box::new(json::JsonWriter::new(open, true)),
        Format::Markdown => Box::new(markdown::MarkdownWriter::new(open)),
        Format::Sarif => Box::new(sarif::SarifWriter::new(open)),
        Format::Html => Box::new(html::HtmlWriter::new(open)),
    }
}

/// Opens `open`, hands it to `write`, and flushes it.
pub(crate) fn write_to(
    open: Open,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let mut out = open().map_err(WriteError::Output)?;
    write(&mut *out)
        .and_then(|()| out.flush())
        .map_err(WriteError::Output)
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub docshape: &'static str,
    /// The target, password masked.
    pub target: String,
    pub generated_at: String,
    /// How documents were drawn: `{"mode": "sample", "size": 1000}` or
    /// `{"mode": "full"}`.
    pub sampling: Sampling,
    pub collections: Vec<CollectionReport>,
    /// Parts of the target that could not be read (a damaged file, a
    /// collection the user may not read); empty when all was read.
    pub errors: Vec<InputError>,
    pub relationships: Vec<crate::relate::Relationship>,
    /// Findings about whole databases or the deployment.
    pub findings: Vec<crate::advise::Advice>,
    /// Queries the relationship stage sent (or file scans it made).
    pub relationship_cost: crate::relate::RelateCost,
    /// The rule profile findings were judged by, and the language.
    pub rules: RulesUsed,
    /// Things the run could not do, said plainly.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What the queries do (`--workload`): shapes by total time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload: Option<crate::workload::Workload>,
    /// The memory budget of the run (`--memory`), in bytes.
    pub memory_budget_bytes: u64,
    /// The process's peak resident memory when the report was made, where
    /// the system says (Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_memory_bytes: Option<u64>,
}

impl Report {
    /// A report of nothing yet, for `target`: what a run starts from, and
    /// what the explorer fills as collections arrive.
    pub fn empty(
        target: String,
        sampling: Sampling,
        rules: RulesUsed,
        memory_budget_bytes: u64,
    ) -> Report {
        Report {
            docshape: VERSION,
            target,
            generated_at: now_iso(),
            sampling,
            collections: Vec::new(),
            errors: Vec::new(),
            relationships: Vec::new(),
            findings: Vec::new(),
            relationship_cost: crate::relate::RelateCost::default(),
            rules,
            notes: Vec::new(),
            workload: None,
            memory_budget_bytes,
            peak_memory_bytes: None,
        }
    }
}

/// A part of the target that could not be read, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputError {
    /// The file, or the namespace on a server.
    pub target: String,
    /// One sentence.
    pub message: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct RulesUsed {
    pub profile: String,
    pub lang: crate::i18n::Lang,
    /// Rules switched off by configuration.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disabled: Vec<String>,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Sampling {
    pub mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct CollectionReport {
    pub namespace: String,
    pub kind: CollectionKind,
    /// Documents in the collection: exact when every document was read,
    /// otherwise the server's estimate.
    pub documents: Option<u64>,
    pub sampled: u64,
    /// `$sample`, `find`, `reservoir` or `all`.
    pub sample_method: String,
    pub partial: Option<String>,
    pub doc_size: Summary,
    pub max_depth: u32,
    pub storage: Option<StorageStats>,
    pub indexes: Vec<IndexInfo>,
    pub options: Option<serde_json::Value>,
    pub fields: Vec<FieldProfile>,
    pub findings: Vec<crate::advise::Advice>,
    /// True when the collection had more distinct paths than the profile
    /// keeps; the paths beyond the cap are not listed.
    pub paths_capped: bool,
    pub notes: Vec<String>,
    /// Commands sent to the server for this collection, by command name
    /// (servers only): listing, sampling, references and growth together.
    pub round_trips: Option<std::collections::BTreeMap<String, u64>>,
    /// Figures measured over every document when only a sample was
    /// profiled: the largest documents, the longest arrays, documents over
    /// the size thresholds (`scope: collection`).
    pub extremes: Option<crate::source::Extremes>,
    /// How each array path grows, by path (the growth stage's figures;
    /// the JSON report shows them on the path's field).
    pub growth: crate::growth::ByPath,
    /// The profile's figures over whole documents (its paths are `fields`,
    /// held once).
    pub profile: Profile,
    /// Documents of the sample, as raw BSON, for the explorer to show (a
    /// document over its share of the memory budget is kept cut).
    pub kept: Vec<Vec<u8>>,
    pub meta: CollectionMeta,
}

impl CollectionReport {
    pub(crate) fn field(&self, path: &str) -> Option<&FieldProfile> {
        self.fields.iter().find(|f| f.path == path)
    }
}

impl Serialize for CollectionReport {
    /// The contract's collection object, in its order; each field with its
    /// growth (held by path beside the profile).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let CollectionReport {
            namespace,
            kind,
            documents,
            sampled,
            sample_method,
            partial,
            doc_size,
            max_depth,
            storage,
            indexes,
            options,
            fields: _,
            findings,
            paths_capped,
            notes,
            round_trips,
            extremes,
            // Not in the report: the growth is shown on its fields, the
            // rest is the run's working data.
            growth: _,
            profile: _,
            kept: _,
            meta: _,
        } = self;
        let mut out = s.serialize_struct("CollectionReport", 19)?;
        out.serialize_field("namespace", namespace)?;
        out.serialize_field("kind", kind)?;
        // A GridFS bucket's part: the bucket's figures, on both parts.
        if let Some(g) = &self.meta.gridfs {
            out.serialize_field("gridfs", g)?;
        }
        out.serialize_field("documents", documents)?;
        out.serialize_field("sampled", sampled)?;
        out.serialize_field("sample_method", sample_method)?;
        if let Some(p) = partial {
            out.serialize_field("partial", p)?;
        }
        out.serialize_field("doc_size", doc_size)?;
        // Sizes by report bin, `[low, high, documents]`: what `diff`
        // compares (absent when the profile's histogram is not at hand).
        if self.profile.doc_sizes.count() > 0 {
            out.serialize_field("doc_size_histogram", &self.profile.doc_sizes.report_bins())?;
        }
        out.serialize_field("max_depth", max_depth)?;
        if let Some(st) = storage {
            out.serialize_field("storage", st)?;
        }
        out.serialize_field("indexes", indexes)?;
        if let Some(o) = options {
            out.serialize_field("options", o)?;
        }
        out.serialize_field("fields", &FieldsOut(self))?;
        out.serialize_field("findings", findings)?;
        if *paths_capped {
            out.serialize_field("paths_capped", paths_capped)?;
        }
        if !notes.is_empty() {
            out.serialize_field("notes", notes)?;
        }
        if let Some(t) = round_trips {
            out.serialize_field("round_trips", t)?;
        }
        if let Some(e) = extremes {
            out.serialize_field("extremes", e)?;
        }
        out.end()
    }
}

/// A field as the JSON report shows it: the profile's figures and, on an
/// array path, how it grows.
#[derive(Serialize)]
struct FieldOut<'a> {
    #[serde(flatten)]
    field: &'a FieldProfile,
    #[serde(skip_serializing_if = "Option::is_none")]
    growth: Option<&'a crate::growth::Growth>,
}

/// The report's fields with their growth, serialised in place.
struct FieldsOut<'a>(&'a CollectionReport);

impl Serialize for FieldsOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.fields.iter().map(|f| FieldOut {
            field: f,
            growth: self.0.growth.get(&f.path),
        }))
    }
}

/// Text put aside while a report is written a collection at a time: in an
/// unnamed temporary file, so that a report of thousands of collections is
/// not held in memory (in memory where no such file can be made).
struct Spool {
    file: Option<std::fs::File>,
    memory: Vec<u8>,
}

impl Spool {
    /// A spool in a temporary file.
    pub fn on_disk() -> Spool {
        Spool {
            file: tempfile::tempfile().ok(),
            memory: Vec::new(),
        }
    }

    /// A spool in memory (a report rendered whole anyway).
    pub fn in_memory() -> Spool {
        Spool {
            file: None,
            memory: Vec::new(),
        }
    }

    /// Writes everything spooled so far to `out`, and empties the spool.
    pub(crate) fn drain_into(&mut self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};
        if let Some(f) = &mut self.file {
            f.seek(SeekFrom::Start(0))?;
            std::io::copy(f, out)?;
            f.set_len(0)?;
            f.seek(SeekFrom::Start(0))?;
        }
        out.write_all(&self.memory)?;
        self.memory.clear();
        Ok(())
    }
}

impl std::io::Write for Spool {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => self.memory.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

/// The severities in the order the reports count them: worst first.
pub const SEVERITIES: [crate::rules::Severity; 3] = [
    crate::rules::Severity::Critical,
    crate::rules::Severity::Warning,
    crate::rules::Severity::Info,
];

/// What a text or Markdown report written a collection at a time keeps of
/// the collections written so far: how many, their findings by severity,
/// and their rendered parts, spooled (`sections`: each collection's;
/// `rows`: a line per finding, for the summary that comes first).
struct Spooled {
    pub collections: usize,
    /// Critical, warning, info.
    pub severities: [usize; 3],
    pub sections: Spool,
    pub rows: Spool,
}

impl Spooled {
    pub fn new(sections: Spool, rows: Spool) -> Spooled {
        Spooled {
            collections: 0,
            severities: [0; 3],
            sections,
            rows,
        }
    }

    /// The worst finding of the collections written.
    pub(crate) fn worst(&self) -> Option<crate::rules::Severity> {
        SEVERITIES
            .into_iter()
            .zip(self.severities)
            .find(|&(_, n)| n > 0)
            .map(|(s, _)| s)
    }

    /// Counts `findings` by severity.
    fn count<'a>(&mut self, findings: impl Iterator<Item = &'a crate::advise::Advice>) {
        for f in findings {
            if let Some(i) = SEVERITIES.iter().position(|&s| s == f.severity) {
                self.severities[i] += 1;
            }
        }
    }
}

/// The current time as ISO-8601 UTC.
pub(crate) fn now_iso() -> String {
    bson::DateTime::now()
        .try_to_rfc3339_string()
        .unwrap_or_default()
}

/// A unit enum's serialised name (`one-to-few`).
pub(crate) fn plain<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

impl Report {
    /// Every finding: per collection, then database-wide.
    pub fn all_findings(&self) -> impl Iterator<Item = &crate::advise::Advice> {
        self.collections
            .iter()
            .flat_map(|c| c.findings.iter())
            .chain(self.findings.iter())
    }

    /// The worst severity found, if any.
    pub fn worst(&self) -> Option<crate::rules::Severity> {
        self.all_findings().map(|f| f.severity).max()
    }
}

/// The workload with each shape's findings: the rules whose findings'
/// evidence names the shape (its `shape.rank`).
pub(crate) fn linked<'a>(
    mut w: crate::workload::Workload,
    findings: impl Iterator<Item = &'a crate::advise::Advice>,
) -> crate::workload::Workload {
    for f in findings {
        let rank = f
            .evidence
            .get("shape")
            .and_then(|s| s.get("rank"))
            .and_then(serde_json::Value::as_u64);
        let Some(s) = rank
            .and_then(|r| usize::try_from(r).ok())
            .and_then(|r| w.shapes.get_mut(r.wrapping_sub(1)))
        else {
            continue;
        };
        if !s.findings.iter().any(|x| x == f.rule) {
            s.findings.push(f.rule.to_owned());
        }
    }
    w
}
