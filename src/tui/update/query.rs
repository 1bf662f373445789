//! The Documents tab's query bar at work: keys while it is open, Enter
//! running the query (a page and its count), paging, explain, export,
//! Esc cancelling, and the replies (stale ones dropped). Read-only: only
//! `find`, `countDocuments` and `explain` ever leave.

use std::path::PathBuf;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::i18n::Lang;
use crate::source::QueryText;

use super::super::effects::{Effect, QueryWork};
use super::super::export::Format;
use super::super::history::PER_COLLECTION;
use super::super::model::results;
use super::super::model::{Level, Model};
use super::super::querybar::{self, Bar, Exporting, Part, Reply, Results};
use super::common::status;

/// The selected collection's database and name.
fn namespace(m: &Model) -> Option<(String, String)> {
    let c = m.collection()?;
    Some((c.meta.db.clone(), c.meta.name.clone()))
}

/// Opens the bar on the selected collection, holding the filter of the
/// query shown and nothing else: a new query, as a new `find` in mongosh,
/// has no sort, projection, skip or limit unless it is given one (↑ brings
/// back a whole query run before).
pub(crate) fn open(m: &mut Model) {
    let filter = results(m)
        .map(|r| r.text.filter.clone())
        .unwrap_or_default();
    m.docs.query.bar = Some(Bar {
        text: QueryText {
            filter,
            ..QueryText::default()
        },
        ..Bar::default()
    });
}

/// What of the previous query `text` does not keep, in words: its sort,
/// projection, skip and limit, those it had and `text` has not.
fn not_kept(before: &QueryText, text: &QueryText, lang: Lang) -> Option<String> {
    let dropped: Vec<String> = [Part::Sort, Part::Projection, Part::Skip, Part::Limit]
        .into_iter()
        .filter(|&p| {
            !querybar::text_of(before, p).trim().is_empty()
                && querybar::text_of(text, p).trim().is_empty()
        })
        .map(|p| format!("{} {}", p.label(lang), querybar::text_of(before, p).trim()))
        .collect();
    if dropped.is_empty() {
        return None;
    }
    Some(match lang {
        Lang::En => format!(
            "a new query, as a new find: the previous {} not kept — ↑ in the bar brings the whole query back",
            dropped.join(", ")
        ),
        Lang::Zh => format!(
            "新的查询，如同新的 find：未保留之前的 {}——在查询栏按 ↑ 可找回整个查询",
            dropped.join("、")
        ),
    })
}

/// A key while the bar is open.
pub(crate) fn key(m: &mut Model, k: KeyEvent) -> Vec<Effect> {
    let Some(bar) = m.docs.query.bar.as_mut() else {
        return Vec::new();
    };
    let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
    match k.code {
        KeyCode::Esc => m.docs.query.bar = None,
        KeyCode::Enter => return run(m),
        KeyCode::Tab => bar.part = bar.part.step(1),
        KeyCode::BackTab => bar.part = bar.part.step(-1),
        KeyCode::Up | KeyCode::Down => {
            let Some(ns) = m.collection().map(|c| c.namespace.clone()) else {
                return Vec::new();
            };
            let Some(bar) = m.docs.query.bar.as_mut() else {
                return Vec::new();
            };
            let past = m.docs.query.history.get(&ns).map_or(&[][..], Vec::as_slice);
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
            super::super::querybar::text_mut(&mut bar.text, bar.part).pop();
            bar.error = None;
        }
        KeyCode::Char('u') if ctrl => {
            super::super::querybar::text_mut(&mut bar.text, bar.part).clear();
            bar.error = None;
        }
        KeyCode::Char(c)
            if !k
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            super::super::querybar::text_mut(&mut bar.text, bar.part).push(c);
            bar.error = None;
        }
        _ => {}
    }
    Vec::new()
}

/// Enter: the bar's text parsed and run, or why it cannot be.
pub(crate) fn run(m: &mut Model) -> Vec<Effect> {
    let Some(bar) = m.docs.query.bar.as_mut() else {
        return Vec::new();
    };
    let text = bar.text.clone();
    let query = match text.parse() {
        Ok(q) => q,
        Err(e) => {
            bar.error = Some(e.to_string());
            return Vec::new();
        }
    };
    let Some((db, coll)) = namespace(m) else {
        m.docs.query.bar = None;
        return Vec::new();
    };
    m.docs.query.bar = None;
    let said = results(m).and_then(|r| not_kept(&r.text, &text, m.lang));
    let ns = format!("{db}.{coll}");
    let past = m.docs.query.history.entry(ns.clone()).or_default();
    past.retain(|t| *t != text);
    past.push(text.clone());
    if past.len() > PER_COLLECTION {
        past.remove(0);
    }
    let mut fx = vec![Effect::SaveHistory {
        target: m.target.clone(),
        namespace: ns.clone(),
        queries: past.clone(),
    }];
    fx.extend(m.docs.query.cancel_all());
    m.docs.query.results = Some(Results {
        namespace: ns,
        text,
        query: query.clone(),
        loading: true,
        ..Results::default()
    });
    let page = m.next_req();
    let count = m.next_req();
    m.docs.query.page_req = Some(page);
    m.docs.query.count_req = Some(count);
    m.status = None;
    if let Some(said) = said {
        status(m, Level::Info, said);
    }
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
    m.docs.sel = 0;
    m.docs.open.clear();
    m.docs.lines.clear();
    m.docs.toggled.clear();
    m.docs.cursor = None;
    m.detail.scroll = 0;
    m.detail.hscroll = 0;
    m.docs.list = results(m).map_or_else(Vec::new, |r| (0..r.docs.len()).collect());
}

/// `n` / `p`: the next or previous page.
pub(crate) fn turn_page(m: &mut Model, forward: bool) -> Vec<Effect> {
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
        .docs
        .query
        .page_req
        .take()
        .map(|req| Effect::Cancel { req })
        .into_iter()
        .collect();
    let req = m.next_req();
    m.docs.query.page_req = Some(req);
    if let Some(r) = m.docs.query.results.as_mut() {
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
        fx.extend(
            m.docs
                .query
                .explain_req
                .take()
                .map(|req| Effect::Cancel { req }),
        );
        let req = m.next_req();
        m.docs.query.explain_req = Some(req);
        if let Some(r) = m.docs.query.results.as_mut() {
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
pub(crate) fn explain(m: &mut Model) -> Vec<Effect> {
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
    let asked = r.explain.is_some() || m.docs.query.explain_req.is_some();
    let query = r.page_query(r.page);
    if let Some(r) = m.docs.query.results.as_mut() {
        r.show_explain = !r.show_explain;
        if !r.show_explain || asked {
            return Vec::new();
        }
    }
    let req = m.next_req();
    m.docs.query.explain_req = Some(req);
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
pub(crate) fn cancel(m: &mut Model) -> Option<Vec<Effect>> {
    results(m)?;
    if m.docs.query.running() {
        let fx = m.docs.query.cancel_all();
        if let Some(r) = m.docs.query.results.as_mut() {
            r.loading = false;
            if r.count.is_none() {
                r.count = Some(Err(crate::tui::failure::Failure::Cancelled(
                    m.lang.pick("cancelled", "已取消"),
                )));
            }
        }
        let msg = m.lang.pick(
            "query cancelled — Esc again shows the sample",
            "查询已取消——再按 Esc 显示样本",
        );
        status(m, Level::Warning, msg);
        return Some(fx);
    }
    let fx = m.docs.query.cancel_all();
    m.docs.query.results = None;
    let msg = m.lang.pick("back to the kept sample", "回到保留的样本");
    status(m, Level::Info, msg);
    Some(fx)
}

/// `w` / `W` with results: every document the query matches, written to
/// a new file as it is read.
pub(crate) fn export(m: &mut Model, format: Format) -> Vec<Effect> {
    let Some(r) = results(m) else {
        let msg = m.lang.pick(
            "nothing to write: run a query first (/ on the Documents tab)",
            "没有可写出的内容：请先运行查询（在文档页按 /）",
        );
        status(m, Level::Info, msg);
        return Vec::new();
    };
    if m.docs.query.export.is_some() {
        let msg = m.lang.pick(
            "an export is running — Esc stops it",
            "正在导出——按 Esc 停止",
        );
        status(m, Level::Info, msg);
        return Vec::new();
    }
    let (query, ns) = (r.query.clone(), r.namespace.clone());
    let Some((db, coll)) = namespace(m) else {
        return Vec::new();
    };
    let safe: String = ns
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = PathBuf::from(format!("{safe}.query.{}", format.extension()));
    let req = m.next_req();
    let msg = match m.lang {
        Lang::En => format!(
            "writing every match of the query on {ns} to {} — Esc stops",
            path.display()
        ),
        Lang::Zh => format!(
            "正在把 {ns} 上查询的全部匹配写入 {}——按 Esc 停止",
            path.display()
        ),
    };
    status(m, Level::Info, msg);
    m.docs.query.export = Some(Exporting {
        req,
        namespace: ns,
        asked: path.clone(),
        written: 0,
    });
    vec![Effect::Export {
        req,
        db,
        coll,
        query: Box::new(query),
        format,
        path,
    }]
}

/// How far the export has come, in the status line.
pub(crate) fn export_progress(m: &mut Model, req: u64, written: u64) {
    let Some(e) = m.docs.query.export.as_mut().filter(|e| e.req == req) else {
        return;
    };
    e.written = written;
    let (n, to) = (crate::fmt::group(written), e.asked.display().to_string());
    let msg = match m.lang {
        Lang::En => format!("exporting to {to}: {n} documents written — Esc stops"),
        Lang::Zh => format!("正在导出到 {to}：已写入 {n} 个文档——按 Esc 停止"),
    };
    status(m, Level::Info, msg);
}

/// The export ended: where its documents are, or why there are none.
pub(crate) fn exported(
    m: &mut Model,
    req: u64,
    result: Result<(PathBuf, u64), crate::tui::failure::Failure>,
) {
    let Some(e) = m.docs.query.export.take_if(|e| e.req == req) else {
        return;
    };
    match result {
        Ok((path, n)) => {
            let n = crate::fmt::group(n);
            let beside = if path == e.asked {
                String::new()
            } else {
                m.lang.pick(
                    format!(" ({} exists and was left as it is)", e.asked.display()),
                    format!("（{} 已存在，未改动）", e.asked.display()),
                )
            };
            let msg = match m.lang {
                Lang::En => format!(
                    "wrote {n} documents of the query on {} to {}{beside}",
                    e.namespace,
                    path.display()
                ),
                Lang::Zh => format!(
                    "已把 {} 上查询的 {n} 个文档写入 {}{beside}",
                    e.namespace,
                    path.display()
                ),
            };
            status(m, Level::Info, msg);
        }
        Err(why) => status(m, Level::Error, why.to_string()),
    }
}

/// Esc while exporting: the export stops and its partial file is
/// removed. `None` when none runs.
pub(crate) fn stop_export(m: &mut Model) -> Option<Vec<Effect>> {
    let e = m.docs.query.export.take()?;
    let msg = match m.lang {
        Lang::En => format!(
            "export stopped after {} documents; nothing was kept",
            crate::fmt::group(e.written)
        ),
        Lang::Zh => format!(
            "导出已停止（已写 {} 个文档）；未保留任何文件",
            crate::fmt::group(e.written)
        ),
    };
    status(m, Level::Warning, msg);
    Some(vec![Effect::Cancel { req: e.req }])
}

/// A reply from a query request; stale ones are dropped.
pub(crate) fn reply(m: &mut Model, req: u64, reply: Reply) {
    match reply {
        Reply::Page(result) if m.docs.query.page_req == Some(req) => {
            m.docs.query.page_req = None;
            if let Some(r) = m.docs.query.results.as_mut() {
                r.loading = false;
                match result {
                    Ok(docs) => {
                        r.docs = docs;
                        r.error = None;
                    }
                    Err(e) => {
                        r.docs.clear();
                        r.error = Some(e.to_string());
                    }
                }
            }
            if results(m).is_some() {
                reset_docs(m);
            }
        }
        Reply::Count(result) if m.docs.query.count_req == Some(req) => {
            m.docs.query.count_req = None;
            if let Some(r) = m.docs.query.results.as_mut() {
                r.count = Some(result);
            }
        }
        Reply::Explain(result) if m.docs.query.explain_req == Some(req) => {
            m.docs.query.explain_req = None;
            if let Some(r) = m.docs.query.results.as_mut() {
                r.explain = Some(result);
            }
        }
        _ => {}
    }
}
