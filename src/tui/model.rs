//! Everything the explorer shows, as plain data. Only `update` changes it;
//! views read it.

use std::collections::{HashMap, HashSet};

use crate::advise::Advice;
use crate::i18n::Lang;
use crate::report::{CollectionReport, Report};
use crate::rules::Severity;
use crate::workload::Shape;

use super::keymap::Keymap;
use super::querybar::{QueryState, Results};

/// What has the focus: the navigator, the selected tab's list, or the
/// detail beside (or under) that list. Tab moves on in that order (the
/// detail only on a tab that has one), Shift-Tab back; Enter opens what
/// is selected in the navigator or the list; Esc from the detail goes
/// back to the list. The help tells it (`Keymap::focus_help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Nav,
    Main,
    /// The detail: the move keys scroll it; `e` / `b` / `m` jump to a
    /// finding's evidence, before/after and script.
    Detail,
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

    pub(crate) fn title(self, lang: Lang) -> &'static str {
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
    pub(crate) fn short_title(self, lang: Lang) -> &'static str {
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
    pub(crate) fn next(self) -> NavSort {
        match self {
            NavSort::Name => NavSort::Severity,
            NavSort::Severity => NavSort::Size,
            NavSort::Size => NavSort::Documents,
            NavSort::Documents => NavSort::Name,
        }
    }

    pub(crate) fn label(self, lang: Lang) -> &'static str {
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
    /// Where it was said: a hint or a warning is about what was on screen
    /// then, and is dropped once the user moves to another tab or
    /// collection (an error stays until Esc).
    pub place: Place,
}

/// A tab of one collection (or of the overview: no collection).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub tab: Tab,
    pub ns: Option<String>,
}

/// One line of an open document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocLine {
    pub text: String,
    /// The object or array this line opens, closes or shows folded — for
    /// a plain value, the one holding it: what Enter on the line folds or
    /// unfolds. A path of keys and indexes, `/`-separated (`~0` for `~`,
    /// `~1` for `/` in a key), `""` for the document itself.
    pub node: String,
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
    pub text: Option<Result<String, super::failure::Failure>>,
    /// First line of the text shown (wrapped lines).
    pub scroll: u16,
    /// The exercise check in flight, for lesson `sel`.
    pub check_req: Option<u64>,
    /// Lesson `sel`'s exercises as last checked, or why they could not be.
    pub check: Option<Result<String, super::failure::Failure>>,
}

impl Learn {
    /// What the lesson's pane shows above the lesson `text`: the exercises
    /// as last checked, or why they could not be.
    pub(crate) fn with_check<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        let lang = self.lang;
        match &self.check {
            None => text.into(),
            Some(Ok(checked)) => format!("{checked}\n{}\n\n{text}", "─".repeat(40)).into(),
            Some(Err(e)) => format!(
                "{} {e}\n\n{text}",
                lang.pick("Cannot check the exercises:", "无法检查练习：")
            )
            .into(),
        }
    }
}

/// The navigator: databases and collections, and how they are listed.
#[derive(Debug, Default)]
pub struct Nav {
    pub rows: Vec<NavRow>,
    pub sel: usize,
    /// The collection filter (`/` in the navigator).
    pub filter: String,
    /// Databases folded.
    pub folded: HashSet<String>,
    pub sort: NavSort,
    /// The overview row is selected on purpose, by the user or as the row
    /// the explorer opens on (kept there on new reports).
    pub overview_chosen: bool,
    /// The user has moved, switched or filtered since the explorer opened:
    /// a report that arrives then keeps their place instead of opening on
    /// *All findings*.
    pub explored: bool,
    /// The tab to go back to when a collection is selected again after
    /// the overview or a database.
    pub tab_before_summary: Option<Tab>,
}

/// The Schema tab: the selected collection's fields as a tree.
#[derive(Debug, Default)]
pub struct Schema {
    /// Visible fields: indexes into the collection's `fields`.
    pub rows: Vec<usize>,
    /// Paths whose subtrees are folded.
    pub collapsed: HashSet<String>,
    pub sel: usize,
    /// The field filter (`/` on the Schema tab).
    pub filter: String,
}

/// The Findings tab (also the overview's and a database's list).
#[derive(Debug, Default)]
pub struct Findings {
    /// Shown findings, sorted by severity: indexes into
    /// [`Model::listed_findings`].
    pub rows: Vec<usize>,
    pub sel: usize,
    pub severity: Option<Severity>,
    pub rule: Option<&'static str>,
}

/// The Documents tab: the kept sample or a page of query results.
#[derive(Debug)]
pub struct Documents {
    pub view: DocView,
    /// Listed documents: indexes into the collection's `kept`, or into the
    /// page of query results.
    pub list: Vec<usize>,
    pub sel: usize,
    pub open: HashSet<usize>,
    /// Objects and arrays nested deeper than this are folded in open
    /// documents (`z` cycles 1, 2, none).
    pub depth: Option<usize>,
    /// Pretty Extended JSON of the open documents, made when opened (and
    /// when folded) so a frame never decodes a document.
    pub lines: HashMap<usize, Vec<DocLine>>,
    /// Per open document, the objects and arrays folded the other way
    /// round from what `depth` says (Enter on one of their lines).
    pub toggled: HashMap<usize, HashSet<String>>,
    /// The line of the selected open document the cursor is on (`J`/`K`);
    /// `None` on its heading.
    pub cursor: Option<usize>,
    /// The query bar and what its queries brought back.
    pub query: QueryState,
    /// The text search over the listed documents (Ctrl-F), if one is on.
    pub search: Option<Search>,
    /// The table view: the fields chosen as columns (`c`).
    pub columns: Columns,
}

/// A text search over the listed documents, in their relaxed Extended
/// JSON text, ignoring case: `n` / `N` go from match to match.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Search {
    pub text: String,
    /// The search line is open and takes the keys.
    pub editing: bool,
    /// Positions in the list of the documents whose text holds `text`.
    pub hits: Vec<usize>,
    /// Which of `hits` is selected.
    pub at: Option<usize>,
    /// The selection when the search line opened: typing finds the first
    /// match from there, not from the last match of a shorter text.
    pub from: usize,
    /// The listed documents' text, lower case, made when the list changes
    /// so that typing never decodes a document.
    pub texts: Vec<String>,
}

/// The Documents tab as a table: one column per chosen top-level field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    /// The fields, in the order they were ticked.
    pub chosen: Vec<String>,
    /// The list shows the table instead of the previews.
    pub table: bool,
    /// The chooser, while it is open.
    pub chooser: Option<Chooser>,
}

/// The list of the collection's top-level fields to tick as columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chooser {
    /// The collection's top-level fields, as the profile lists them.
    pub fields: Vec<String>,
    /// Those ticked, in the order they were ticked.
    pub ticked: Vec<String>,
    pub sel: usize,
}

impl Default for Documents {
    fn default() -> Documents {
        Documents {
            view: DocView::All,
            list: Vec::new(),
            sel: 0,
            open: HashSet::new(),
            depth: None,
            lines: HashMap::new(),
            toggled: HashMap::new(),
            cursor: None,
            query: QueryState::default(),
            search: None,
            columns: Columns::default(),
        }
    }
}

/// The Relationships tab.
#[derive(Debug, Default)]
pub struct Relationships {
    /// Relationships of the selected collection's database: indexes into
    /// the report's.
    pub rows: Vec<usize>,
    pub sel: usize,
}

/// The Indexes tab.
#[derive(Debug, Default)]
pub struct Indexes {
    /// The selected index of the collection.
    pub sel: usize,
}

/// The Workload tab.
#[derive(Debug, Default)]
pub struct Workload {
    /// The selected query shape.
    pub sel: usize,
}

/// The help screen.
#[derive(Debug, Default)]
pub struct Help {
    pub open: bool,
    /// First key line shown.
    pub scroll: usize,
}

/// The detail pane beside (or under) a tab's list, shared by the tabs.
#[derive(Debug)]
pub struct Detail {
    pub scroll: u16,
    /// Display columns the long lines are scrolled sideways.
    pub hscroll: u16,
    /// The furthest it scrolls sideways, as `update` last measured it.
    pub hmax: Bound,
    /// The furthest it scrolls, as `update` last measured it.
    pub max: Bound,
}

impl Default for Detail {
    fn default() -> Detail {
        Detail {
            scroll: 0,
            hscroll: 0,
            hmax: Bound(0),
            max: Bound(u16::MAX),
        }
    }
}

/// How far something scrolls, measured from the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound(pub u16);

impl Bound {
    pub fn get(self) -> u16 {
        self.0
    }
}

impl Detail {
    /// Back to the top left, as for a new selection.
    pub(crate) fn reset(&mut self) {
        self.scroll = 0;
        self.hscroll = 0;
    }
}

/// Everything the explorer shows. What every tab shares is at the top;
/// each tab's own state is a struct of its own, changed by its own
/// module of `update`.
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
    pub focus: Pane,
    pub tab: Tab,
    /// The language of the explorer's own words (tabs, headings); findings
    /// and lessons come in it too.
    pub lang: Lang,
    pub keymap: Keymap,
    pub status: Option<Status>,
    /// Shown once, from the theme and the configuration.
    pub warnings: Vec<String>,
    pub size: (u16, u16),
    pub quit: bool,
    /// The filter prompt (fields or collections).
    pub input: Option<Input>,
    pub help: Help,
    pub detail: Detail,
    pub nav: Nav,
    pub schema: Schema,
    pub findings: Findings,
    pub docs: Documents,
    pub rels: Relationships,
    pub indexes: Indexes,
    pub workload: Workload,
    pub learn: Learn,
    /// The connection picker: what it offers, and its overlay.
    pub picker: super::picker::Picker,
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
            focus: Pane::Nav,
            tab: Tab::Schema,
            lang: Lang::En,
            keymap,
            status: None,
            warnings: Vec::new(),
            size: (80, 24),
            quit: false,
            input: None,
            help: Help::default(),
            detail: Detail::default(),
            nav: Nav::default(),
            schema: Schema::default(),
            findings: Findings::default(),
            docs: Documents::default(),
            rels: Relationships::default(),
            indexes: Indexes::default(),
            workload: Workload::default(),
            learn: Learn::default(),
            picker: super::picker::Picker::default(),
        }
    }

    /// A fresh request id.
    pub(crate) fn next_req(&mut self) -> u64 {
        let r = self.next_req;
        self.next_req += 1;
        r
    }

    /// The tab and collection on screen.
    pub fn place(&self) -> Place {
        Place {
            tab: self.tab,
            ns: self.collection().map(|c| c.namespace.clone()),
        }
    }

    /// The selected collection.
    pub fn collection(&self) -> Option<&CollectionReport> {
        match self.nav.rows.get(self.nav.sel)? {
            NavRow::Coll(i) => self.report.as_ref()?.collections.get(*i),
            NavRow::Db(_) | NavRow::Overview => None,
        }
    }

    /// Listed document `d` of the Documents tab: a page of query results
    /// when a query ran on the selected collection, else the kept sample.
    pub fn doc_bytes(&self, d: usize) -> Option<&[u8]> {
        match results(self) {
            Some(r) => r.docs.get(d).map(Vec::as_slice),
            None => self.collection()?.kept.get(d).map(Vec::as_slice),
        }
    }

    /// The database row selected in the navigator, if it is one.
    pub fn selected_db(&self) -> Option<&str> {
        match self.nav.rows.get(self.nav.sel)? {
            NavRow::Db(name) => Some(name),
            _ => None,
        }
    }

    /// The overview or a database is selected: the main pane shows the
    /// findings of everything under it.
    pub fn is_summary(&self) -> bool {
        matches!(
            self.nav.rows.get(self.nav.sel),
            Some(NavRow::Overview | NavRow::Db(_))
        )
    }

    /// Findings about the selected collection, then those about its
    /// database, unsorted.
    pub fn listed_findings(&self) -> Vec<&Advice> {
        let Some(r) = self.report.as_ref() else {
            return Vec::new();
        };
        match self.nav.rows.get(self.nav.sel) {
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
        let all = self.listed_findings();
        let i = *self.findings.rows.get(self.findings.sel)?;
        all.get(i).copied()
    }

    pub fn selected_field(&self) -> Option<&crate::profile::FieldProfile> {
        let c = self.collection()?;
        c.fields.get(*self.schema.rows.get(self.schema.sel)?)
    }

    /// The query shapes the Workload tab lists, by total time: the
    /// selected collection's, a database's, or all of them on the overview;
    /// each with its rank in the whole workload (1 first), as findings
    /// name it.
    pub(crate) fn shapes(&self) -> Vec<(usize, &Shape)> {
        let Some(w) = self.report.as_ref().and_then(|r| r.workload.as_ref()) else {
            return Vec::new();
        };
        let wanted = |s: &Shape| match self.nav.rows.get(self.nav.sel) {
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
        self.shapes().get(self.workload.sel).copied()
    }

    /// The report's findings that name the shape of rank `rank` (their
    /// evidence's `shape.rank`), worst first. They may sit on another
    /// collection than the shape's: `write-amplified-copy` is about the
    /// collection holding the copies, drawn by the updates of the source.
    pub fn shape_findings(&self, rank: usize) -> Vec<&Advice> {
        let Some(r) = self.report.as_ref() else {
            return Vec::new();
        };
        let mut found: Vec<&Advice> = r
            .all_findings()
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
        r.relationships.get(*self.rels.rows.get(self.rels.sel)?)
    }

    /// Worst severity among a collection's findings, for its badge.
    pub fn worst(c: &CollectionReport) -> Option<Severity> {
        c.findings.iter().map(|f| f.severity).max()
    }

    /// The collection's bytes: the server's data size, else the sampled
    /// average document times the documents.
    pub(crate) fn bytes(c: &CollectionReport) -> f64 {
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

/// The results of the selected collection, if the query bar has any.
pub fn results(m: &Model) -> Option<&Results> {
    let ns = &m.collection()?.namespace;
    m.docs.query.results.as_ref().filter(|r| &r.namespace == ns)
}
