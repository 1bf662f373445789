//! `case-insensitive-regex`: a frequent query shape filters with an
//! unanchored or case-insensitive regular expression, which no ordinary
//! index bounds: every key (or document) is read (Atlas).

use serde::Serialize;
use serde_json::Value;

use crate::rules::shapes;
use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::source::IndexInfo;
use crate::workload::{Predicate, Shape};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "case-insensitive-regex",
    title: "Frequent query with an unanchored or case-insensitive regex",
    explanation: (
        "An index can bound only a case-sensitive regular expression anchored at the start (/^abc/); an unanchored or /i one reads every index key or every document, however few it returns. For case-insensitive matches of whole values, an index with a case-insensitive collation (strength 2) and an equality query under the same collation is exact and bounded; for substrings, a search index.",
        "索引只能限定区分大小写、以开头锚定的正则表达式（/^abc/）；未锚定或带 /i 的正则无论返回多少文档，都要读取每一个索引键或每一个文档。需要不区分大小写地匹配整个值时，使用不区分大小写排序规则（strength 2）的索引，并在同一排序规则下用等值查询，既精确又有范围；需要子串匹配时，使用搜索索引。",
    ),
    source: "MongoDB Atlas Performance Advisor; MongoDB docs ($regex index use, case-insensitive indexes)",
    check: Check::Collection(check, Basis::Metadata),
    needs: Shapes,
    limits: {
        /// share of the workload's time that makes a shape frequent
        min_time_share: 0.01,
        /// runs that make a shape frequent
        min_count: 100.0,
    },
}

/// An index that leads with `field` under a case-insensitive collation
/// (strength 1 or 2): an equality query under the same collation is served
/// by it. Made after the log was written, it is the fix already in place.
pub fn case_insensitive_index<'a>(
    ctx: &'a CollectionCtx<'_>,
    field: &str,
) -> Option<&'a IndexInfo> {
    ctx.data.indexes.iter().find(|i| {
        !i.hidden
            && i.partial.is_none()
            && i.key.keys().next().is_some_and(|k| k == field)
            && i.collation
                .as_ref()
                .and_then(|c| c.get("strength"))
                .and_then(serde_json::Value::as_f64)
                .is_some_and(|s| s <= 2.0)
    })
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let Some(w) = &ctx.workload else {
        return Vec::new();
    };
    let l = &t.case_insensitive_regex;
    let mut out = Vec::new();
    for &(rank, s) in &w.shapes {
        if !shapes::is_query(s) || !shapes::frequent(s, w.total_ms, l.min_time_share, l.min_count) {
            continue;
        }
        for (field, p) in &s.predicates {
            if *p != Predicate::ScanRegex || case_insensitive_index(ctx, field).is_some() {
                continue;
            }
            let threshold = if s.count as f64 >= l.min_count {
                Crossed::of(t, Key::min_count)
            } else {
                Crossed::of(t, Key::min_time_share)
            };
            let evidence = Unbounded {
                shape: shapes::evidence(rank, s, w.total_ms),
                field,
                threshold,
                s,
                total_ms: w.total_ms,
            };
            let path = Some(shapes::profile_path(ctx, field));
            let remedy = Remedy::CollationIndex {
                field: field.clone(),
            };
            out.push(Finding::new(RULE, Severity::Info, ctx.ns(), path, &evidence, lang, remedy));
        }
    }
    out
}

/// What `case-insensitive-regex` found of one field a frequent shape
/// matches with a regular expression no index bounds.
#[derive(Serialize)]
struct Unbounded<'a> {
    shape: Value,
    field: &'a str,
    threshold: Crossed,
    #[serde(skip)]
    s: &'a Shape,
    #[serde(skip)]
    total_ms: u64,
}

impl Evidence for Unbounded<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (s, field) = (self.s, self.field);
        let (label, cost, plans) = (
            shapes::label(s),
            shapes::cost(s, self.total_ms, lang),
            shapes::plans(s),
        );
        lang.pick(
            format!("{label} {cost} with plans {plans}, matching {field} with an unanchored or case-insensitive regular expression: no index bounds it, every key or document is read"),
            format!("{label} {cost}，执行计划 {plans}，用未锚定或不区分大小写的正则表达式匹配 {field}：任何索引都无法限定范围，要读取每个索引键或文档"),
        )
    }
}
