//! Everything the explorer shows, as plain data. Only `update` changes it;
//! views read it.

use std::collections::{HashMap, HashSet};

use crate::advise::Advice;
use crate::i18n::Lang;
use crate::report::{CollectionReport, Report};
use crate::rules::Severity;
use crate::workload::Shape;

use super::keymap::Keymap;
use super::querybar::QueryState;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Nav,
    Main,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Schema,
    Findings,
    Documents,
    Relationships,
    Learn,
    Indexes,
    Workload,
}

impl Tab {
    pub const ALL: [Tab; 7] = [
        Tab::Schema,
        Tab::Findings,
        Tab::Documents,
        Tab::Relationships,
        Tab::Learn,
        Tab::Indexes,
        Tab::Workload,
    ];

    pub fn title(self, lang: Lang) -> &'static str {
        let (en, zh) = match self {
            Tab::Schema => ("Schema", "结构"),
            Tab::Findings => ("Findings", "问题"),
            Tab::Documents => ("Documents", "文档"),
            Tab::Relationships => ("Relationships", "关系"),
            Tab::Learn => ("Learn", "学习"),
            Tab::Indexes => ("Indexes", "索引"),
            Tab::Workload => ("Workload", "负载"),
        };
        lang.pick(en, zh)
    }

    /// The title when the tab bar is too narrow for the full ones.
    pub fn short_title(self, lang: Lang) -> &'static str {
        if lang == Lang::Zh {
            return self.title(lang);
        }
        match self {
            Tab::Schema => "Schema",
            Tab::Findings => "Finds",
            Tab::Documents => "Docs",
            Tab::Relationships => "Refs",
            Tab::Learn => "Learn",
            Tab::Indexes => "Idx",
            Tab::Workload => "Load",
        }
    }

    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }
}

/// One line of the navigator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NavRow {
    /// Every finding of the deployment, worst first (the audit's headline).
    Overview,
    Db(String),
    /// Index into `report.collections`.
    Coll(usize),
}

/// How the navigator orders databases and the collections in each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NavSort {
    /// As the source lists them (by name).
    #[default]
    Name,
    /// Worst finding first.
    Severity,
    /// Largest first.
    Size,
    /// Most documents first.
    Documents,
}

impl NavSort {
    #[must_use]
    pub fn next(self) -> NavSort {
        match self {
            NavSort::Name => NavSort::Severity,
            NavSort::Severity => NavSort::Size,
            NavSort::Size => NavSort::Documents,
            NavSort::Documents => NavSort::Name,
        }
    }

    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            NavSort::Name => lang.pick("by name", "按名称"),
            NavSort::Severity => lang.pick("by severity", "按严重程度"),
            NavSort::Size => lang.pick("by size", "按大小"),
            NavSort::Documents => lang.pick("by documents", "按文档数"),
        }
    }
}

/// A sampling run in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    pub req: u64,
    /// What the run is doing.
    pub stage: crate::audit::Stage,
    /// The user asked to read no further collection; the run is judging
    /// those read.
    pub stopping: bool,
    pub namespace: String,
    pub position: (usize, usize),
    pub documents: u64,
    pub expected: Option<u64>,
    pub rate: f64,
}

/// What the text prompt edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFor {
    Fields,
    Collections,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub target: InputFor,
    pub text: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub level: Level,
}

/// Which kept documents the Documents tab lists, in which order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DocView {
    All,
    WithField(String),
    Largest,
}

/// The Learn tab: the lessons of `crate::lesson::LESSONS` and the selected
/// one measured on the bundled sample data.
#[derive(Debug, Default)]
pub struct Learn {
    /// Index into `LESSONS`.
    pub sel: usize,
    /// The language lessons are measured and rendered in.
    pub lang: Lang,
    /// The measuring in flight, for lesson `sel` in `lang`.
    pub req: Option<u64>,
    /// The measured data sets of lesson `sel`, kept so a language change
    /// re-renders at once while the new measuring runs.
    pub reports: Option<Vec<(String, Report)>>,
    /// The rendered lesson, or why it could not be measured.
    pub text: Option<Result<String, String>>,
    /// First line of the text shown (wrapped lines).
    pub scroll: u16,
}

#[derive(Debug)]
pub struct Model {
    /// The target as shown: password masked.
    pub target: String,
    pub sample: u64,
    pub report: Option<Report>,
    /// The report holds the collections request `N` has read so far, not
    /// yet judged: that run's report replaces it.
    pub arriving: Option<u64>,
    pub job: Option<Job>,
    pub next_req: u64,
    pub nav: Vec<NavRow>,
    pub nav_sel: usize,
    pub coll_filter: String,
    /// Databases folded in the navigator.
    pub folded_dbs: HashSet<String>,
    pub nav_sort: NavSort,
    /// The user moved onto the overview row (kept there on new reports).
    pub overview_chosen: bool,
    /// The tab to go back to when a collection is selected again after
    /// the overview or a database.
    pub tab_before_summary: Option<Tab>,
    pub focus: Pane,
    pub tab: Tab,
    /// Visible fields: indexes into the collection's `fields`.
    pub rows: Vec<usize>,
    pub collapsed: HashSet<String>,
    pub field_sel: usize,
    pub field_filter: String,
    /// Shown findings, sorted by severity: indexes into `findings()`.
    pub finding_rows: Vec<usize>,
    pub finding_sel: usize,
    pub severity_filter: Option<Severity>,
    pub rule_filter: Option<&'static str>,
    pub doc_view: DocView,
    /// Listed documents: indexes into the collection's `kept`.
    pub docs: Vec<usize>,
    pub doc_sel: usize,
    pub doc_open: HashSet<usize>,
    /// Objects and arrays nested deeper than this are folded in open
    /// documents (`z` cycles 1, 2, none).
    pub doc_depth: Option<usize>,
    /// Pretty Extended JSON of the open documents, made when opened so a
    /// frame never decodes a document.
    pub doc_lines: HashMap<usize, Vec<String>>,
    /// Relationships of the selected collection's database.
    pub rel_rows: Vec<usize>,
    pub rel_sel: usize,
    /// The selected index on the Indexes tab.
    pub index_sel: usize,
    /// The selected query shape on the Workload tab.
    pub shape_sel: usize,
    pub detail_scroll: u16,
    /// Display columns the detail's long lines are scrolled sideways.
    pub detail_hscroll: u16,
    /// The furthest the detail scrolls sideways, as the last frame drew it.
    pub detail_hmax: std::cell::Cell<u16>,
    /// The furthest the detail scrolls, as the last frame drew it.
    pub detail_max: std::cell::Cell<u16>,
    pub learn: Learn,
    /// The Documents tab's query bar and what its queries brought back.
    pub query: QueryState,
    pub input: Option<Input>,
    pub help: bool,
    /// The language of the explorer's own words (tabs, headings); findings
    /// and lessons come in it too.
    pub lang: Lang,
    /// First key line shown on the help screen.
    pub help_scroll: usize,
    pub status: Option<Status>,
    /// Shown once, from the theme and the configuration.
    pub warnings: Vec<String>,
    pub size: (u16, u16),
    pub keymap: Keymap,
    pub quit: bool,
}

impl Model {
    pub fn new(target: String, sample: u64, keymap: Keymap) -> Model {
        Model {
            target,
            sample,
            report: None,
            arriving: None,
            job: None,
            next_req: 1,
            nav: Vec::new(),
            nav_sel: 0,
            coll_filter: String::new(),
            folded_dbs: HashSet::new(),
            nav_sort: NavSort::Name,
            overview_chosen: false,
            tab_before_summary: None,
            focus: Pane::Nav,
            tab: Tab::Schema,
            rows: Vec::new(),
            collapsed: HashSet::new(),
            field_sel: 0,
            field_filter: String::new(),
            finding_rows: Vec::new(),
            finding_sel: 0,
            severity_filter: None,
            rule_filter: None,
            doc_view: DocView::All,
            docs: Vec::new(),
            doc_sel: 0,
            doc_open: HashSet::new(),
            doc_depth: None,
            doc_lines: HashMap::new(),
            rel_rows: Vec::new(),
            rel_sel: 0,
            index_sel: 0,
            shape_sel: 0,
            detail_scroll: 0,
            detail_hscroll: 0,
            detail_hmax: std::cell::Cell::new(0),
            detail_max: std::cell::Cell::new(u16::MAX),
            learn: Learn::default(),
            query: QueryState::default(),
            input: None,
            help: false,
            lang: Lang::En,
            help_scroll: 0,
            status: None,
            warnings: Vec::new(),
            size: (80, 24),
            keymap,
            quit: false,
        }
    }

    /// Key lines the help screen shows at once (its box leaves a row above
    /// and below, and has a border).
    pub fn help_visible(&self) -> usize {
        usize::from(self.size.1.saturating_sub(4)).max(1)
    }

    /// The furthest the help screen scrolls.
    pub fn help_max_scroll(&self) -> usize {
        self.keymap
            .help(self.lang)
            .len()
            .saturating_sub(self.help_visible())
    }

    /// The selected collection.
    pub fn collection(&self) -> Option<&CollectionReport> {
        match self.nav.get(self.nav_sel)? {
            NavRow::Coll(i) => self.report.as_ref()?.collections.get(*i),
            NavRow::Db(_) | NavRow::Overview => None,
        }
    }

    /// Listed document `d` of the Documents tab: a page of query results
    /// when a query ran on the selected collection, else the kept sample.
    pub fn doc_bytes(&self, d: usize) -> Option<&[u8]> {
        match super::querybar::results(self) {
            Some(r) => r.docs.get(d).map(Vec::as_slice),
            None => self.collection()?.kept.get(d).map(Vec::as_slice),
        }
    }

    /// The database row selected in the navigator, if it is one.
    pub fn selected_db(&self) -> Option<&str> {
        match self.nav.get(self.nav_sel)? {
            NavRow::Db(name) => Some(name),
            _ => None,
        }
    }

    /// The overview or a database is selected: the main pane shows the
    /// findings of everything under it.
    pub fn is_summary(&self) -> bool {
        matches!(
            self.nav.get(self.nav_sel),
            Some(NavRow::Overview | NavRow::Db(_))
        )
    }

    /// Findings about the selected collection, then those about its
    /// database, unsorted.
    pub fn findings(&self) -> Vec<&Advice> {
        let Some(r) = self.report.as_ref() else {
            return Vec::new();
        };
        match self.nav.get(self.nav_sel) {
            Some(NavRow::Overview) => {
                return r
                    .collections
                    .iter()
                    .flat_map(|c| c.findings.iter())
                    .chain(r.findings.iter())
                    .collect();
            }
            Some(NavRow::Db(db)) => {
                return r
                    .collections
                    .iter()
                    .filter(|c| &c.meta.db == db)
                    .flat_map(|c| c.findings.iter())
                    .chain(r.findings.iter().filter(|f| {
                        f.namespace == *db || f.namespace.starts_with(&format!("{db}."))
                    }))
                    .collect();
            }
            _ => {}
        }
        let Some(c) = self.collection() else {
            return Vec::new();
        };
        c.findings
            .iter()
            .chain(
                r.findings
                    .iter()
                    .filter(|f| f.namespace == c.meta.db || f.namespace == c.namespace),
            )
            .collect()
    }

    pub fn selected_finding(&self) -> Option<&Advice> {
        let all = self.findings();
        let i = *self.finding_rows.get(self.finding_sel)?;
        all.get(i).copied()
    }

    pub fn selected_field(&self) -> Option<&crate::profile::FieldProfile> {
        let c = self.collection()?;
        c.fields.get(*self.rows.get(self.field_sel)?)
    }

    /// The query shapes the Workload tab lists, by total time: the
    /// selected collection's, a database's, or all of them on the overview;
    /// each with its rank in the whole workload (1 first), as findings
    /// name it.
    pub fn shapes(&self) -> Vec<(usize, &Shape)> {
        let Some(w) = self.report.as_ref().and_then(|r| r.workload.as_ref()) else {
            return Vec::new();
        };
        let wanted = |s: &Shape| match self.nav.get(self.nav_sel) {
            Some(NavRow::Overview) => true,
            Some(NavRow::Db(db)) => {
                s.namespace.split_once('.').map(|(d, _)| d) == Some(db.as_str())
            }
            Some(NavRow::Coll(_)) => self
                .collection()
                .is_some_and(|c| c.namespace == s.namespace),
            None => false,
        };
        w.shapes
            .iter()
            .enumerate()
            .filter(|(_, s)| wanted(s))
            .map(|(i, s)| (i + 1, s))
            .collect()
    }

    pub fn selected_shape(&self) -> Option<(usize, &Shape)> {
        self.shapes().get(self.shape_sel).copied()
    }

    /// The shown findings that name the shape of rank `rank` (their
    /// evidence's `shape.rank`), worst first.
    pub fn shape_findings(&self, rank: usize) -> Vec<&Advice> {
        let mut found: Vec<&Advice> = self
            .findings()
            .into_iter()
            .filter(|f| {
                f.evidence
                    .get("shape")
                    .and_then(|s| s.get("rank"))
                    .and_then(serde_json::Value::as_u64)
                    == Some(rank as u64)
            })
            .collect();
        found.sort_by_key(|f| std::cmp::Reverse(f.severity));
        found
    }

    pub fn selected_relationship(&self) -> Option<&crate::relate::Relationship> {
        let r = self.report.as_ref()?;
        r.relationships.get(*self.rel_rows.get(self.rel_sel)?)
    }

    /// Worst severity among a collection's findings, for its badge.
    pub fn worst(c: &CollectionReport) -> Option<Severity> {
        c.findings.iter().map(|f| f.severity).max()
    }

    /// The collection's bytes: the server's data size, else the sampled
    /// average document times the documents.
    pub fn bytes(c: &CollectionReport) -> f64 {
        c.storage.as_ref().and_then(|s| s.size).map_or_else(
            || c.doc_size.avg * c.documents.unwrap_or(0) as f64,
            |s| s as f64,
        )
    }

    /// The worst finding of a database: its collections' and its own.
    pub fn worst_in_db(&self, db: &str) -> Option<Severity> {
        let r = self.report.as_ref()?;
        r.collections
            .iter()
            .filter(|c| c.meta.db == db)
            .filter_map(Model::worst)
            .chain(
                r.findings
                    .iter()
                    .filter(|f| f.namespace == db)
                    .map(|f| f.severity),
            )
            .max()
    }
}
