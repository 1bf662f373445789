//! The state of the Documents tab's query bar: the bar being edited (a
//! filter and, after Tab, a sort, projection, skip and limit, in Extended
//! JSON or mongosh syntax), what the query brought back (a page of the
//! matches, how many match, the explain), the requests in flight, the
//! history and a running export. `update::query` changes it.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::i18n::Lang;
use crate::source::{Explain, Query, QueryText};

use super::effects::Effect;
use super::failure::Failure;

/// Documents per page of results.
pub const PAGE: u64 = 50;

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

    pub(crate) fn label(self, lang: Lang) -> &'static str {
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

    #[must_use]
    pub(crate) fn step(self, by: isize) -> Part {
        let n = Part::ALL.len() as isize;
        Part::ALL[(self.index() as isize + by).rem_euclid(n) as usize]
    }
}

/// The text of `part` in `q`.
pub(crate) fn text_of(q: &QueryText, part: Part) -> &str {
    match part {
        Part::Filter => &q.filter,
        Part::Sort => &q.sort,
        Part::Projection => &q.projection,
        Part::Skip => &q.skip,
        Part::Limit => &q.limit,
    }
}

pub(crate) fn text_mut(q: &mut QueryText, part: Part) -> &mut String {
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
    pub count: Option<Result<u64, Failure>>,
    pub explain: Option<Result<Explain, Failure>>,
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
    pub(crate) fn pages(&self) -> Option<u64> {
        self.total().map(|t| t.div_ceil(PAGE).max(1))
    }

    /// Whether a page follows the one shown.
    pub(crate) fn has_next(&self) -> bool {
        match self.pages() {
            Some(p) => self.page + 1 < p,
            None => self.docs.len() as u64 == PAGE,
        }
    }

    /// The query for page `page`: the user's skip and limit, cut to pages.
    pub(crate) fn page_query(&self, page: u64) -> Query {
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

/// An export of a query's matches, running.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exporting {
    pub req: u64,
    pub namespace: String,
    /// The file asked for (the one written may be beside it).
    pub asked: std::path::PathBuf,
    /// Documents written so far.
    pub written: u64,
}

/// Everything the query bar keeps.
#[derive(Debug, Default)]
pub struct QueryState {
    pub bar: Option<Bar>,
    pub results: Option<Results>,
    /// Queries run, oldest first, per namespace (kept across sessions by
    /// `super::history`).
    pub history: HashMap<String, Vec<QueryText>>,
    /// Requests in flight: the page, the count, the explain.
    pub page_req: Option<u64>,
    pub count_req: Option<u64>,
    pub explain_req: Option<u64>,
    /// The export running, if one is.
    pub export: Option<Exporting>,
}

impl QueryState {
    pub(crate) fn running(&self) -> bool {
        self.page_req.is_some() || self.count_req.is_some()
    }

    /// Every request in flight, forgotten, as cancel effects.
    pub(crate) fn cancel_all(&mut self) -> Vec<Effect> {
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
    Page(Result<Vec<Vec<u8>>, Failure>),
    Count(Result<u64, Failure>),
    Explain(Result<Explain, Failure>),
}

/// Explain in a few words per line.
pub(crate) fn explain_lines(e: &Explain, lang: Lang) -> Vec<String> {
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
