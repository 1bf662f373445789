//! `index-esr`: a frequent query shape served by no index, or by one in
//! the wrong order (it sorts in memory, or reads ten keys per document it
//! returns). The index it needs puts equality fields first (most selective
//! first, from the sample), then the sort fields in the query's direction,
//! then range fields (seeds 002 ch. 4 and 003: ESR; Atlas Performance
//! Advisor).

use serde::Serialize;
use serde_json::Value;

use crate::rules::shapes::{self, EsrKey};
use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::workload::Shape;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "index-esr",
    title: "Frequent query served by no index or by one in the wrong order",
    explanation: (
        "A query the application runs often pays for its plan every time: without an index it reads the whole collection, and with an index in the wrong order it reads many keys per document returned or sorts in memory (limited to 100 MB, and slow). The seeds' ESR rule orders a compound index: fields matched by equality first (the most selective first), then the sort fields in the query's direction, then fields matched by a range. An existing index whose key is a prefix of that key is extended rather than joined by another.",
        "应用频繁执行的查询每次都要为它的执行计划付出代价：没有索引时要读取整个集合；索引顺序不对时，每返回一个文档要读取许多索引键，或者在内存中排序（有 100 MB 限制，而且很慢）。种子材料的 ESR 规则规定复合索引的顺序：等值匹配的字段放最前（选择性高的在前），然后按查询的方向放排序字段，最后放范围匹配的字段。已有索引的键是这个键的前缀时，应扩展它，而不是再加一个索引。",
    ),
    source: "seeds/002 (ch. 4, indexes), seeds/003 (ESR rule: Equality, Sort, Range); MongoDB Atlas Performance Advisor",
    check: Check::Collection(check, Basis::Metadata),
    needs: Shapes,
    limits: {
        /// share of the workload's time that makes a shape frequent
        min_time_share: 0.01,
        /// runs that make a shape frequent
        min_count: 100.0,
        /// keys examined per document returned that mean the index is in the wrong order
        max_keys_per_returned: 10.0,
        /// share of the workload's time that makes the finding critical
        critical_time_share: 0.5,
    },
}

/// What is wrong with how a shape was served.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Served {
    /// Runs that scanned the collection.
    pub collscans: u64,
    /// Runs that sorted in memory.
    pub in_memory_sorts: u64,
    /// Keys examined per document returned, when at or over the limit.
    pub keys_per_returned: Option<f64>,
}

/// How `s` was badly served, if it was and is frequent; `None` otherwise.
pub fn badly_served(s: &Shape, total_ms: u64, t: &Thresholds) -> Option<Served> {
    let l = &t.index_esr;
    if !shapes::is_query(s) || !shapes::frequent(s, total_ms, l.min_time_share, l.min_count) {
        return None;
    }
    let kpr = shapes::per_returned(s.keys_examined, s);
    let served = Served {
        collscans: shapes::collscans(s),
        in_memory_sorts: s.in_memory_sorts,
        keys_per_returned: (s.keys_examined > 0 && kpr >= l.max_keys_per_returned).then_some(kpr),
    };
    (served.collscans > 0 || served.in_memory_sorts > 0 || served.keys_per_returned.is_some())
        .then_some(served)
}

/// The index a badly served frequent shape needs, when no index serves it
/// already: the rule fires on it.
pub fn needs(
    ctx: &CollectionCtx<'_>,
    s: &Shape,
    total_ms: u64,
    t: &Thresholds,
) -> Option<(Served, EsrKey)> {
    let served = badly_served(s, total_ms, t)?;
    let key = shapes::esr_key(ctx, s)?;
    if shapes::served_by(ctx, &key).is_some() {
        // The index exists now (made after the log was written).
        return None;
    }
    Some((served, key))
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let Some(w) = &ctx.workload else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for &(rank, s) in &w.shapes {
        let Some((served, key)) = needs(ctx, s, w.total_ms, t) else {
            continue;
        };
        let share = shapes::time_share(s, w.total_ms);
        let critical = share >= t.index_esr.critical_time_share;
        let severity = if critical {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let threshold = if critical {
            Crossed::of(t, Key::critical_time_share)
        } else if s.count as f64 >= t.index_esr.min_count {
            Crossed::of(t, Key::min_count)
        } else {
            Crossed::of(t, Key::min_time_share)
        };
        let extends = shapes::extendable(ctx, &key);
        let evidence = Misserved {
            shape: shapes::evidence(rank, s, w.total_ms),
            index: shapes::key_evidence(&key),
            extends: extends.map(|i| &i.name),
            time_share: percent(share),
            threshold,
            s,
            total_ms: w.total_ms,
            served,
            key: &key,
        };
        let keys = key.keys();
        let path = keys.first().map(|(f, _)| f.clone());
        let remedy = Remedy::EsrIndex {
            keys,
            extends: extends.map(|i| i.name.clone()),
        };
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `index-esr` found of one frequent shape badly served.
#[derive(Serialize)]
struct Misserved<'a> {
    shape: Value,
    index: Value,
    /// The index the new key extends, if one does.
    extends: Option<&'a String>,
    time_share: String,
    threshold: Crossed,
    #[serde(skip)]
    s: &'a Shape,
    #[serde(skip)]
    total_ms: u64,
    #[serde(skip)]
    served: Served,
    #[serde(skip)]
    key: &'a EsrKey,
}

impl Misserved<'_> {
    /// Why the shape is badly served, one clause per cause.
    fn why(&self, lang: Lang) -> Vec<String> {
        let (s, served) = (self.s, self.served);
        let mut why: Vec<String> = Vec::new();
        let scans = group(served.collscans);
        if served.collscans > 0 && s.docs_examined == 0 {
            // The documents examined were not recorded (a plan from explain).
            why.push(lang.pick(
                format!("{scans} of its runs scanned the whole collection"),
                format!("其中 {scans} 次扫描了整个集合"),
            ));
        } else if served.collscans > 0 {
            let per = group(shapes::per_returned(s.docs_examined, s).round() as u64);
            why.push(lang.pick(
                format!("{scans} of its runs scanned the whole collection ({per} documents examined per document returned)"),
                format!("其中 {scans} 次扫描了整个集合（每返回一个文档检查 {per} 个文档）"),
            ));
        }
        if served.in_memory_sorts > 0 {
            let n = group(served.in_memory_sorts);
            why.push(lang.pick(
                format!("{n} sorted in memory"),
                format!("{n} 次在内存中排序"),
            ));
        }
        if let Some(k) = served.keys_per_returned {
            let k = group(k.round() as u64);
            why.push(lang.pick(
                format!("it read {k} index keys per document returned"),
                format!("每返回一个文档读取 {k} 个索引键"),
            ));
        }
        why
    }
}

impl Evidence for Misserved<'_> {
    fn describe(&self, lang: Lang) -> String {
        let key = self.key.show();
        let fix = match self.extends {
            Some(name) => lang.pick(
                format!("extend index {name} to {key} (equality, sort, range)"),
                format!("把索引 {name} 扩展为 {key}（等值、排序、范围）"),
            ),
            None => lang.pick(
                format!("an index {key} (equality, sort, range) serves it"),
                format!("索引 {key}（等值、排序、范围）可以满足它"),
            ),
        };
        let (s, why) = (self.s, self.why(lang));
        let (label, cost, plans) = (
            shapes::label(s),
            shapes::cost(s, self.total_ms, lang),
            shapes::plans(s),
        );
        lang.pick(
            format!("{label} {cost} with plans {plans}: {}; {fix}", why.join(", ")),
            format!("{label} {cost}，执行计划 {plans}：{}；{fix}", why.join("，")),
        )
    }
}
