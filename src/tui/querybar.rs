//! The Documents tab's query bar: `/` opens it, a filter (and, after Tab,
//! a sort, projection, skip and limit) in Extended JSON or mongosh syntax,
//! Enter runs it in the background — a page of the matching documents and
//! how many match — `n`/`p` page, `x` explains, `w` exports the page, ↑/↓
//! in the bar walk this collection's history. Read-only: only `find`,
//! `countDocuments` and `explain` ever leave.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::i18n::Lang;
use crate::source::{Explain, Query, QueryText};

use super::effects::{Effect, QueryWork};
use super::model::{Level, Model, Status};

/// Documents per page of results.
pub const PAGE: u64 = 50;
/// Queries remembered per collection.
const HISTORY: usize = 50;

/// The part of the query the bar edits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Part {
    #[default]
    Filter,
    Sort,
    Projection,
    Skip,
    Limit,
}

impl Part {
    pub const ALL: [Part; 5] = [
        Part::Filter,
        Part::Sort,
        Part::Projection,
        Part::Skip,
        Part::Limit,
    ];

    pub fn label(self, lang: Lang) -> &'static str {
        match self {
            Part::Filter => lang.pick("filter", "筛选"),
            Part::Sort => lang.pick("sort", "排序"),
            Part::Projection => lang.pick("projection", "投影"),
            Part::Skip => lang.pick("skip", "跳过"),
            Part::Limit => lang.pick("limit", "限制"),
        }
    }

    fn index(self) -> usize {
        Part::ALL.iter().position(|p| *p == self).unwrap_or(0)
    }

    fn step(self, by: isize) -> Part {
        let n = Part::ALL.len() as isize;
        Part::ALL[(self.index() as isize + by).rem_euclid(n) as usize]
    }
}

/// The text of `part` in `q`.
pub fn text_of(q: &QueryText, part: Part) -> &str {
    match part {
        Part::Filter => &q.filter,
        Part::Sort => &q.sort,
        Part::Projection => &q.projection,
        Part::Skip => &q.skip,
        Part::Limit => &q.limit,
    }
}

fn text_mut(q: &mut QueryText, part: Part) -> &mut String {
    match part {
        Part::Filter => &mut q.filter,
        Part::Sort => &mut q.sort,
        Part::Projection => &mut q.projection,
        Part::Skip => &mut q.skip,
        Part::Limit => &mut q.limit,
    }
}

/// The bar while it is open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bar {
    pub text: QueryText,
    pub part: Part,
    /// Position in this collection's history while ↑/↓ walk it.
    pub history_pos: Option<usize>,
    /// Why the text cannot be run, after Enter.
    pub error: Option<String>,
}

/// What a query brought back, for one collection.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub namespace: String,
    pub text: QueryText,
    pub query: Query,
    /// The page shown, from 0.
    pub page: u64,
    /// The page's documents as BSON.
    pub docs: Vec<Vec<u8>>,
    /// The page is being read.
    pub loading: bool,
    /// How many documents match, once counted.
    pub count: Option<Result<u64, String>>,
    pub explain: Option<Result<Explain, String>>,
    pub show_explain: bool,
    /// Why the page could not be read.
    pub error: Option<String>,
}

impl Results {
    /// Matching documents the user's skip and limit leave.
    pub fn total(&self) -> Option<u64> {
        let n = *self.count.as_ref()?.as_ref().ok()?;
        let n = n.saturating_sub(self.query.skip);
        Some(self.query.limit.map_or(n, |l| n.min(l)))
    }

    /// Pages in all, once counted.
    pub fn pages(&self) -> Option<u64> {
        self.total().map(|t| t.div_ceil(PAGE).max(1))
    }

    /// Whether a page follows the one shown.
    pub fn has_next(&self) -> bool {
        match self.pages() {
            Some(p) => self.page + 1 < p,
            None => self.docs.len() as u64 == PAGE,
        }
    }

    /// The query for page `page`: the user's skip and limit, cut to pages.
    pub fn page_query(&self, page: u64) -> Query {
        let mut q = self.query.clone();
        let before = page.saturating_mul(PAGE);
        q.skip = self.query.skip.saturating_add(before);
        q.limit = Some(
            self.query
                .limit
                .map_or(PAGE, |l| l.saturating_sub(before).min(PAGE)),
        );
        q
    }
}

/// Everything the query bar keeps.
#[derive(Debug, Default)]
pub struct QueryState {
    pub bar: Option<Bar>,
    pub results: Option<Results>,
    /// Queries run, oldest first, per namespace.
    pub history: HashMap<String, Vec<QueryText>>,
    /// Requests in flight: the page, the count, the explain.
    pub page_req: Option<u64>,
    pub count_req: Option<u64>,
    pub explain_req: Option<u64>,
}

impl QueryState {
    pub fn running(&self) -> bool {
        self.page_req.is_some() || self.count_req.is_some()
    }

    /// Every request in flight, forgotten, as cancel effects.
    pub fn cancel_all(&mut self) -> Vec<Effect> {
        [
            self.page_req.take(),
            self.count_req.take(),
            self.explain_req.take(),
        ]
        .into_iter()
        .flatten()
        .map(|req| Effect::Cancel { req })
        .collect()
    }
}

/// A reply to a query request.
#[derive(Debug)]
pub enum Reply {
    Page(Result<Vec<Vec<u8>>, String>),
    Count(Result<u64, String>),
    Explain(Result<Explain, String>),
}

fn status(m: &mut Model, level: Level, text: impl Into<String>) {
    m.status = Some(Status {
        text: text.into(),
        level,
    });
}

/// The results of the selected collection, if the query bar has any.
pub fn results(m: &Model) -> Option<&Results> {
    let ns = &m.collection()?.namespace;
    m.query.results.as_ref().filter(|r| &r.namespace == ns)
}

/// Opens the bar on the selected collection, holding the query shown.
pub fn open(m: &mut Model) {
    let text = results(m).map(|r| r.text.clone()).unwrap_or_default();
    m.query.bar = Some(Bar {
        text,
        ..Bar::default()
    });
}

fn next_req(m: &mut Model) -> u64 {
    let r = m.next_req;
    m.next_req += 1;
    r
}

fn namespace(m: &Model) -> Option<(String, String)> {
    let c = m.collection()?;
    Some((c.meta.db.clone(), c.meta.name.clone()))
}

/// A key while the bar is open.
pub fn key(m: &mut Model, k: KeyEvent) -> Vec<Effect> {
    let Some(bar) = m.query.bar.as_mut() else {
        return Vec::new();
    };
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Esc => m.query.bar = None,
        KeyCode::Enter => return run(m),
        KeyCode::Tab => bar.part = bar.part.step(1),
        KeyCode::BackTab => bar.part = bar.part.step(-1),
        KeyCode::Up | KeyCode::Down => {
            let Some(ns) = m.collection().map(|c| c.namespace.clone()) else {
                return Vec::new();
            };
            let Some(bar) = m.query.bar.as_mut() else {
                return Vec::new();
            };
            let past = m.query.history.get(&ns).map_or(&[][..], Vec::as_slice);
            if past.is_empty() {
                return Vec::new();
            }
            let last = past.len() - 1;
            let pos = match (k.code, bar.history_pos) {
                (KeyCode::Up, None) => Some(last),
                (KeyCode::Up, Some(p)) => Some(p.saturating_sub(1)),
                (_, Some(p)) if p < last => Some(p + 1),
                _ => None,
            };
            bar.text = pos.map(|p| past[p].clone()).unwrap_or_default();
            bar.history_pos = pos;
            bar.error = None;
        }
        KeyCode::Backspace => {
            text_mut(&mut bar.text, bar.part).pop();
            bar.error = None;
        }
        KeyCode::Char('u') if ctrl => {
            text_mut(&mut bar.text, bar.part).clear();
            bar.error = None;
        }
        KeyCode::Char(c)
            if !k
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            text_mut(&mut bar.text, bar.part).push(c);
            bar.error = None;
        }
        _ => {}
    }
    Vec::new()
}

/// Enter: the bar's text parsed and run, or why it cannot be.
fn run(m: &mut Model) -> Vec<Effect> {
    let Some(bar) = m.query.bar.as_mut() else {
        return Vec::new();
    };
    let text = bar.text.clone();
    let query = match text.parse() {
        Ok(q) => q,
        Err(e) => {
            bar.error = Some(e);
            return Vec::new();
        }
    };
    let Some((db, coll)) = namespace(m) else {
        m.query.bar = None;
        return Vec::new();
    };
    m.query.bar = None;
    let ns = format!("{db}.{coll}");
    let past = m.query.history.entry(ns.clone()).or_default();
    past.retain(|t| *t != text);
    past.push(text.clone());
    if past.len() > HISTORY {
        past.remove(0);
    }
    let mut fx = m.query.cancel_all();
    m.query.results = Some(Results {
        namespace: ns,
        text,
        query: query.clone(),
        loading: true,
        ..Results::default()
    });
    let page = next_req(m);
    let count = next_req(m);
    m.query.page_req = Some(page);
    m.query.count_req = Some(count);
    m.status = None;
    fx.push(Effect::Query {
        req: page,
        db: db.clone(),
        coll: coll.clone(),
        query: Box::new(results(m).map_or(query.clone(), |r| r.page_query(0))),
        work: QueryWork::Page,
    });
    fx.push(Effect::Query {
        req: count,
        db,
        coll,
        query: Box::new(query),
        work: QueryWork::Count,
    });
    reset_docs(m);
    fx
}

/// The list shows what the results now hold.
fn reset_docs(m: &mut Model) {
    m.doc_sel = 0;
    m.doc_open.clear();
    m.doc_lines.clear();
    m.detail_scroll = 0;
    m.detail_hscroll = 0;
    m.docs = results(m).map_or_else(Vec::new, |r| (0..r.docs.len()).collect());
}

/// `n` / `p`: the next or previous page.
pub fn turn_page(m: &mut Model, forward: bool) -> Vec<Effect> {
    let Some(r) = results(m) else {
        status(
            m,
            Level::Info,
            m.lang.pick(
                "no query results to page through — / on the Documents tab runs a query",
                "没有可翻页的查询结果——在文档页按 / 运行查询",
            ),
        );
        return Vec::new();
    };
    let page = if forward {
        if !r.has_next() {
            let msg = m.lang.pick("this is the last page", "已是最后一页");
            status(m, Level::Info, msg);
            return Vec::new();
        }
        r.page + 1
    } else {
        if r.page == 0 {
            let msg = m.lang.pick("this is the first page", "已是第一页");
            status(m, Level::Info, msg);
            return Vec::new();
        }
        r.page - 1
    };
    load_page(m, page)
}

fn load_page(m: &mut Model, page: u64) -> Vec<Effect> {
    let Some((db, coll)) = namespace(m) else {
        return Vec::new();
    };
    let Some(query) = results(m).map(|r| r.page_query(page)) else {
        return Vec::new();
    };
    let mut fx: Vec<Effect> = m
        .query
        .page_req
        .take()
        .map(|req| Effect::Cancel { req })
        .into_iter()
        .collect();
    let req = next_req(m);
    m.query.page_req = Some(req);
    if let Some(r) = m.query.results.as_mut() {
        r.page = page;
        r.loading = true;
        r.error = None;
    }
    fx.push(Effect::Query {
        req,
        db: db.clone(),
        coll: coll.clone(),
        query: Box::new(query.clone()),
        work: QueryWork::Page,
    });
    // An explain on screen follows the page it explains.
    if results(m).is_some_and(|r| r.show_explain) {
        fx.extend(m.query.explain_req.take().map(|req| Effect::Cancel { req }));
        let req = next_req(m);
        m.query.explain_req = Some(req);
        if let Some(r) = m.query.results.as_mut() {
            r.explain = None;
        }
        fx.push(Effect::Query {
            req,
            db,
            coll,
            query: Box::new(query),
            work: QueryWork::Explain,
        });
    }
    fx
}

/// `x`: shows or hides how the query runs, asking for it the first time.
pub fn explain(m: &mut Model) -> Vec<Effect> {
    let Some((db, coll)) = namespace(m) else {
        return Vec::new();
    };
    let Some(r) = results(m) else {
        status(
            m,
            Level::Info,
            m.lang.pick(
                "run a query first: / on the Documents tab",
                "请先运行查询：在文档页按 /",
            ),
        );
        return Vec::new();
    };
    let asked = r.explain.is_some() || m.query.explain_req.is_some();
    let query = r.page_query(r.page);
    if let Some(r) = m.query.results.as_mut() {
        r.show_explain = !r.show_explain;
        if !r.show_explain || asked {
            return Vec::new();
        }
    }
    let req = next_req(m);
    m.query.explain_req = Some(req);
    vec![Effect::Query {
        req,
        db,
        coll,
        query: Box::new(query),
        work: QueryWork::Explain,
    }]
}

/// Esc with results: cancel what runs, else back to the sample; `None`
/// when the selected collection shows no results.
pub fn cancel(m: &mut Model) -> Option<Vec<Effect>> {
    results(m)?;
    if m.query.running() {
        let fx = m.query.cancel_all();
        if let Some(r) = m.query.results.as_mut() {
            r.loading = false;
            if r.count.is_none() {
                r.count = Some(Err(m.lang.pick("cancelled", "已取消").to_owned()));
            }
        }
        let msg = m.lang.pick(
            "query cancelled — Esc again shows the sample",
            "查询已取消——再按 Esc 显示样本",
        );
        status(m, Level::Warning, msg);
        return Some(fx);
    }
    let fx = m.query.cancel_all();
    m.query.results = None;
    let msg = m.lang.pick("back to the kept sample", "回到保留的样本");
    status(m, Level::Info, msg);
    Some(fx)
}

/// What `w` and `W` write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An array of relaxed Extended JSON documents.
    Json,
    /// One row per document, one column per top-level field.
    Csv,
}

/// `w` / `W` with results: the page in a new file.
pub fn export(m: &mut Model, format: Format) -> Vec<Effect> {
    let Some(r) = results(m) else {
        let msg = m.lang.pick(
            "nothing to write: run a query first (/ on the Documents tab)",
            "没有可写出的内容：请先运行查询（在文档页按 /）",
        );
        status(m, Level::Info, msg);
        return Vec::new();
    };
    let docs: Vec<bson::Document> = r
        .docs
        .iter()
        .filter_map(|b| bson::Document::from_reader(b.as_slice()).ok())
        .collect();
    let (contents, ext) = match format {
        Format::Json => (json(&docs), "json"),
        Format::Csv => (csv(&docs), "csv"),
    };
    let safe: String = r
        .namespace
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let what = match m.lang {
        Lang::En => format!("{} documents of the query on {}", docs.len(), r.namespace),
        Lang::Zh => format!("{} 上查询结果的 {} 个文档", r.namespace, docs.len()),
    };
    vec![Effect::Export {
        path: PathBuf::from(format!("{safe}.query.{ext}")),
        contents,
        what,
    }]
}

fn json(docs: &[bson::Document]) -> String {
    let values: Vec<serde_json::Value> = docs
        .iter()
        .map(|d| bson::Bson::Document(d.clone()).into_relaxed_extjson())
        .collect();
    serde_json::to_string_pretty(&values).unwrap_or_default() + "\n"
}

/// A CSV file (RFC 4180): a header of every top-level field in the order
/// first seen, then a row per document; strings, numbers, booleans, ids
/// and dates as they read, anything else as compact Extended JSON.
pub fn csv(docs: &[bson::Document]) -> String {
    let mut columns: Vec<&str> = Vec::new();
    for d in docs {
        for k in d.keys() {
            if !columns.contains(&k.as_str()) {
                columns.push(k);
            }
        }
    }
    let row = |cells: Vec<String>| {
        cells
            .iter()
            .map(|c| csv_cell(c))
            .collect::<Vec<_>>()
            .join(",")
            + "\r\n"
    };
    let mut out = row(columns.iter().map(|c| (*c).to_owned()).collect());
    for d in docs {
        out.push_str(&row(columns
            .iter()
            .map(|c| d.get(*c).map_or_else(String::new, csv_value))
            .collect()));
    }
    out
}

fn csv_value(v: &bson::Bson) -> String {
    use bson::Bson;
    match v {
        Bson::String(s) => s.clone(),
        Bson::Null | Bson::Undefined => String::new(),
        Bson::Boolean(b) => b.to_string(),
        Bson::Int32(n) => n.to_string(),
        Bson::Int64(n) => n.to_string(),
        Bson::Double(x) => x.to_string(),
        Bson::Decimal128(x) => x.to_string(),
        Bson::ObjectId(o) => o.to_hex(),
        Bson::DateTime(d) => d
            .try_to_rfc3339_string()
            .unwrap_or_else(|_| d.timestamp_millis().to_string()),
        other => other.clone().into_relaxed_extjson().to_string(),
    }
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// A reply from a query request; stale ones are dropped.
pub fn reply(m: &mut Model, req: u64, reply: Reply) {
    match reply {
        Reply::Page(result) if m.query.page_req == Some(req) => {
            m.query.page_req = None;
            if let Some(r) = m.query.results.as_mut() {
                r.loading = false;
                match result {
                    Ok(docs) => {
                        r.docs = docs;
                        r.error = None;
                    }
                    Err(e) => {
                        r.docs.clear();
                        r.error = Some(e.clone());
                    }
                }
            }
            if results(m).is_some() {
                reset_docs(m);
            }
        }
        Reply::Count(result) if m.query.count_req == Some(req) => {
            m.query.count_req = None;
            if let Some(r) = m.query.results.as_mut() {
                r.count = Some(result);
            }
        }
        Reply::Explain(result) if m.query.explain_req == Some(req) => {
            m.query.explain_req = None;
            if let Some(r) = m.query.results.as_mut() {
                r.explain = Some(result);
            }
        }
        _ => {}
    }
}

/// Explain in a few words per line.
pub fn explain_lines(e: &Explain, lang: Lang) -> Vec<String> {
    let n = |v: Option<u64>| v.map_or_else(|| "?".to_owned(), |v| v.to_string());
    let mut out = vec![format!(
        "{} {}",
        lang.pick("plan", "计划"),
        if e.plan.is_empty() {
            "?".to_owned()
        } else {
            e.plan
                .iter()
                .map(|s| match s.as_str() {
                    "file scan" => lang.pick("file scan", "文件扫描"),
                    other => other,
                })
                .collect::<Vec<_>>()
                .join(" ← ")
        }
    )];
    out.push(match &e.index {
        Some(i) => format!("{} {i}", lang.pick("index", "索引")),
        None => lang.pick("no index used", "未使用索引").to_owned(),
    });
    let mut counts = format!(
        "{} {} · {} {} · {} {}",
        lang.pick("keys examined", "检查键"),
        n(e.keys_examined),
        lang.pick("documents examined", "检查文档"),
        n(e.docs_examined),
        lang.pick("returned", "返回"),
        n(e.returned),
    );
    if let Some(ms) = e.millis {
        let _ = write!(counts, " · {ms} ms");
    }
    out.push(counts);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::doc;

    #[test]
    fn csv_has_every_field_and_quotes_what_needs_it() {
        let docs = [
            doc! {"_id": 1, "name": "a, \"b\"", "at": bson::DateTime::from_millis(0)},
            doc! {"_id": 2, "tags": ["x", "y"], "note": "two\nlines", "n": null},
        ];
        assert_eq!(
            csv(&docs),
            "_id,name,at,tags,note,n\r\n\
             1,\"a, \"\"b\"\"\",1970-01-01T00:00:00Z,,,\r\n\
             2,,,\"[\"\"x\"\",\"\"y\"\"]\",\"two\nlines\",\r\n"
        );
        assert_eq!(csv(&[]), "\r\n");
    }

    #[test]
    fn pages_cut_the_users_skip_and_limit() {
        let mut r = Results {
            query: Query {
                skip: 5,
                limit: Some(120),
                ..Query::default()
            },
            count: Some(Ok(1000)),
            ..Results::default()
        };
        assert_eq!(r.total(), Some(120));
        assert_eq!(r.pages(), Some(3));
        let q = r.page_query(2);
        assert_eq!((q.skip, q.limit), (5 + 2 * PAGE, Some(120 - 2 * PAGE)));
        r.page = 2;
        assert!(!r.has_next());
        // Uncounted: a full page may have another after it.
        r.count = None;
        r.page = 0;
        r.docs = vec![Vec::new(); PAGE as usize];
        assert!(r.has_next());
        r.docs.pop();
        assert!(!r.has_next());
        r.query.limit = None;
        assert_eq!(r.page_query(1).limit, Some(PAGE));
    }
}
