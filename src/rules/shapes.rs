//! What the workload rules share: which shapes are frequent, a shape's
//! evidence and its one-line name, and the index a query shape needs in
//! ESR order (equality, sort, range: seeds 002 ch. 4 and 003).

use serde_json::{json, Map, Value};

use super::CollectionCtx;
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::source::IndexInfo;
use crate::workload::{Predicate, Shape};

/// Operations that run a query plan over the collection's documents.
pub(crate) fn is_query(s: &Shape) -> bool {
    matches!(
        s.op.as_str(),
        "find" | "aggregate" | "count" | "distinct" | "findAndModify" | "update" | "delete"
    )
}

/// Operations that only read.
pub(crate) fn is_read(s: &Shape) -> bool {
    matches!(s.op.as_str(), "find" | "aggregate" | "count" | "distinct")
}

/// The shape's share of the whole workload's time.
pub(crate) fn time_share(s: &Shape, total_ms: u64) -> f64 {
    if total_ms == 0 {
        0.0
    } else {
        s.ms.total as f64 / total_ms as f64
    }
}

/// Frequent: at least `min_share` of the workload's time or `min_count`
/// runs.
pub(crate) fn frequent(s: &Shape, total_ms: u64, min_share: f64, min_count: f64) -> bool {
    s.count as f64 >= min_count || (total_ms > 0 && time_share(s, total_ms) >= min_share)
}

/// `n` per document returned (a run that returned nothing counts as one).
pub(crate) fn per_returned(n: u64, s: &Shape) -> f64 {
    n as f64 / s.nreturned.max(1) as f64
}

/// Runs whose plan was a collection scan.
pub(crate) fn collscans(s: &Shape) -> u64 {
    s.plans
        .iter()
        .filter(|(p, _)| p.starts_with("COLLSCAN"))
        .map(|(_, n)| n)
        .sum()
}

/// The filter the query plan starts from: a find's filter, or an
/// aggregation's leading `$match`.
pub(crate) fn filter(s: &Shape) -> Option<&Value> {
    s.filter
        .as_ref()
        .or_else(|| s.pipeline.as_ref()?.as_array()?.first()?.get("$match"))
}

/// `find {"status":"string"} sort {"at":-1}`: the shape in one line.
pub(crate) fn label(s: &Shape) -> String {
    let mut out = s.op.clone();
    if let Some(f) = s.filter.as_ref().or(s.pipeline.as_ref()) {
        out.push(' ');
        out.push_str(&f.to_string());
    }
    if let Some(sort) = &s.sort {
        out.push_str(" sort ");
        out.push_str(&sort.to_string());
    }
    if let Some(u) = &s.update {
        out.push_str(" → ");
        out.push_str(&u.to_string());
    }
    out
}

/// The shape as a finding's evidence: which one (`rank` in the report's
/// workload), what it does and what its runs cost.
pub(crate) fn evidence(rank: usize, s: &Shape, total_ms: u64) -> Value {
    let mut m = Map::new();
    m.insert("rank".into(), json!(rank));
    m.insert("op".into(), json!(s.op));
    for (k, v) in [
        ("filter", &s.filter),
        ("sort", &s.sort),
        ("pipeline", &s.pipeline),
        ("update", &s.update),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), v.clone());
        }
    }
    m.insert("count".into(), json!(s.count));
    m.insert("ms".into(), json!(s.ms));
    m.insert(
        "time_share".into(),
        json!((time_share(s, total_ms) * 1e4).round() / 1e4),
    );
    m.insert("plans".into(), json!(s.plans));
    m.insert(
        "docs_examined_per_returned".into(),
        json!((per_returned(s.docs_examined, s) * 10.0).round() / 10.0),
    );
    m.insert(
        "keys_examined_per_returned".into(),
        json!((per_returned(s.keys_examined, s) * 10.0).round() / 10.0),
    );
    m.insert("nreturned".into(), json!(s.nreturned));
    if s.in_memory_sorts > 0 {
        m.insert("in_memory_sorts".into(), json!(s.in_memory_sorts));
    }
    Value::Object(m)
}

/// "ran 120 times for 3,400 ms (12 % of the workload's time)".
pub(crate) fn cost(s: &Shape, total_ms: u64, lang: Lang) -> String {
    let share = percent(time_share(s, total_ms));
    lang.pick(
        format!(
            "ran {} times for {} ms ({share} of the workload's time)",
            group(s.count),
            group(s.ms.total)
        ),
        format!(
            "运行 {} 次，共 {} 毫秒（占工作负载时间的 {share}）",
            group(s.count),
            group(s.ms.total)
        ),
    )
}

/// The plans seen, most frequent first: `COLLSCAN ×120, IXSCAN { a: 1 } ×3`.
pub(crate) fn plans(s: &Shape) -> String {
    let mut p: Vec<(&String, &u64)> = s.plans.iter().collect();
    p.sort_by(|a, b| b.1.cmp(a.1));
    p.iter()
        .map(|(k, n)| format!("{k} ×{}", group(**n)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An index key in ESR order: equality fields (most selective first),
/// then the sort fields in the query's directions, then range fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EsrKey {
    pub equality: Vec<String>,
    pub sort: Vec<(String, i64)>,
    pub range: Vec<String>,
    /// Distinct values of each equality field in the sample, where the
    /// profile has it.
    pub distinct: Vec<(String, u64)>,
}

impl EsrKey {
    /// The key, in order, with its directions.
    pub(crate) fn keys(&self) -> Vec<(String, i64)> {
        self.equality
            .iter()
            .map(|f| (f.clone(), 1))
            .chain(self.sort.iter().cloned())
            .chain(self.range.iter().map(|f| (f.clone(), 1)))
            .collect()
    }

    /// `{status: 1, at: -1, qty: 1}`.
    pub(crate) fn show(&self) -> String {
        show_keys(&self.keys())
    }

    /// Whether an index whose key starts with `index`'s fields serves the
    /// whole of this key: the same fields in the same order, the sort in
    /// its direction or all reversed (equality and range directions do
    /// not matter).
    fn is_prefix_of(&self, index: &[(String, i64)]) -> bool {
        let keys = self.keys();
        if keys.len() > index.len() {
            return false;
        }
        let names_match = keys.iter().zip(index).all(|(a, b)| a.0 == b.0);
        names_match && self.sort_matches(index)
    }

    fn sort_matches(&self, index: &[(String, i64)]) -> bool {
        let at = self.equality.len();
        let pairs: Vec<(i64, i64)> = self
            .sort
            .iter()
            .zip(index.iter().skip(at))
            .map(|(a, b)| (a.1, b.1))
            .collect();
        pairs.iter().all(|(a, b)| a == b) || pairs.iter().all(|(a, b)| a == &-b)
    }
}

/// `{a: 1, b: -1}`.
pub(crate) fn show_keys(keys: &[(String, i64)]) -> String {
    let parts: Vec<String> = keys.iter().map(|(f, d)| format!("{f}: {d}")).collect();
    format!("{{{}}}", parts.join(", "))
}

/// A plain index's key as `(field, direction)`; `None` for any other kind.
fn plain_key(i: &IndexInfo) -> Option<Vec<(String, i64)>> {
    if !i.is_plain() || i.hidden {
        return None;
    }
    i.key
        .iter()
        .map(|(k, v)| {
            let d = v.as_f64()?;
            Some((k.clone(), if d < 0.0 { -1 } else { 1 }))
        })
        .collect()
}

/// An index already serving `key` (its key starts with `key`).
pub(crate) fn served_by<'a>(ctx: &'a CollectionCtx<'_>, key: &EsrKey) -> Option<&'a IndexInfo> {
    ctx.data.indexes.iter().find(|i| {
        i.partial.is_none()
            && i.collation.is_none()
            && plain_key(i).is_some_and(|k| key.is_prefix_of(&k))
    })
}

/// An index whose key is a proper prefix of `key`, that the new index can
/// replace: plain, and neither unique, sparse, partial, TTL nor collated.
pub(crate) fn extendable<'a>(ctx: &'a CollectionCtx<'_>, key: &EsrKey) -> Option<&'a IndexInfo> {
    let keys = key.keys();
    ctx.data.indexes.iter().find(|i| {
        let Some(k) = plain_key(i) else { return false };
        i.name != "_id_"
            && !i.unique
            && !i.sparse
            && i.partial.is_none()
            && i.expire_after_seconds.is_none()
            && i.collation.is_none()
            && k.len() < keys.len()
            && k.iter().zip(&keys).all(|(a, b)| a.0 == b.0)
            && key.sort_matches(&k)
    })
}

/// The profile's path of a dotted query or update path (`items.sku` →
/// `items[].sku` when `items` is an array; positional parts such as `$`
/// and `$[]` are the array's elements).
pub(crate) fn profile_path(ctx: &CollectionCtx<'_>, dotted: &str) -> String {
    let mut path = String::new();
    for part in dotted.split('.').filter(|p| !p.starts_with('$')) {
        if !path.is_empty() {
            if ctx.field(&path).is_some_and(|f| f.array.is_some()) {
                path.push_str("[]");
            }
            path.push('.');
        }
        path.push_str(part);
    }
    path
}

/// How the shape orders the profile path `path` by its values, if it
/// does: a range predicate on it (`$gt`, `$lt` …) or a sort by it (a
/// find's sort, or a `$sort` stage of a pipeline). Equality does not order:
/// text and numbers match themselves alike.
pub(crate) fn orders_by(ctx: &CollectionCtx<'_>, s: &Shape, path: &str) -> Option<&'static str> {
    if s.predicates
        .iter()
        .any(|(f, p)| *p == Predicate::Range && profile_path(ctx, f) == path)
    {
        return Some("range");
    }
    let sorts = s.sort.iter().chain(
        s.pipeline
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|stage| stage.get("$sort")),
    );
    for sort in sorts {
        if sort
            .as_object()
            .is_some_and(|o| o.keys().any(|k| profile_path(ctx, k) == path))
        {
            return Some("sort");
        }
    }
    None
}

/// Distinct values of a field in the sample.
fn distinct(ctx: &CollectionCtx<'_>, dotted: &str) -> Option<u64> {
    let f = ctx.field(&profile_path(ctx, dotted))?;
    f.distinct.as_ref().map(|d| d.estimate)
}

/// The sort a query plan can serve with an index: a find's sort, or an
/// aggregation's `$sort` with only `$match` stages before it. `None` when
/// there is none or it sorts by something other than fields (`$meta`).
fn index_sort(s: &Shape) -> Option<Vec<(String, i64)>> {
    let sort = match (&s.sort, &s.pipeline) {
        (Some(sort), None) => sort,
        (Some(_), Some(p)) => {
            let stages = p.as_array()?;
            let at = stages.iter().position(|x| x.get("$sort").is_some())?;
            if !stages[..at].iter().all(|x| x.get("$match").is_some()) {
                return None;
            }
            stages[at].get("$sort")?
        }
        _ => return None,
    };
    sort.as_object()?
        .iter()
        .map(|(k, v)| {
            let d = v.as_f64()?;
            Some((k.clone(), if d < 0.0 { -1 } else { 1 }))
        })
        .collect()
}

/// The ESR key of a query shape; `None` when an index cannot serve it
/// (an `$or` is served branch by branch, an `_id` equality is a lookup
/// already) or it has nothing to index.
pub(crate) fn esr_key(ctx: &CollectionCtx<'_>, s: &Shape) -> Option<EsrKey> {
    if let Some(f) = filter(s).and_then(Value::as_object) {
        if f.contains_key("$or") || f.contains_key("$nor") {
            return None;
        }
    }
    let mut equality: Vec<String> = Vec::new();
    let mut range: Vec<String> = Vec::new();
    for (field, p) in &s.predicates {
        match p {
            Predicate::Equality | Predicate::In if field == "_id" => return None,
            Predicate::Equality | Predicate::In if !equality.contains(field) => {
                equality.push(field.clone());
            }
            Predicate::Range | Predicate::PrefixRegex if !range.contains(field) => {
                range.push(field.clone());
            }
            _ => {}
        }
    }
    let sort: Vec<(String, i64)> = index_sort(s)
        .unwrap_or_default()
        .into_iter()
        .filter(|(f, _)| !equality.contains(f))
        .collect();
    range.retain(|f| !equality.contains(f) && !sort.iter().any(|(x, _)| x == f));
    // Most selective first: more distinct values, fewer documents per
    // value. Fields the profile does not know keep the filter's order,
    // after the known ones.
    let distinct: Vec<(String, u64)> = equality
        .iter()
        .filter_map(|f| distinct(ctx, f).map(|d| (f.clone(), d)))
        .collect();
    let rank = |f: &String| distinct.iter().find(|(x, _)| x == f).map(|(_, d)| *d);
    equality.sort_by(|a, b| match (rank(a), rank(b)) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let key = EsrKey {
        equality,
        sort,
        range,
        distinct,
    };
    (!key.keys().is_empty()).then_some(key)
}

/// The ESR key as evidence.
pub(crate) fn key_evidence(key: &EsrKey) -> Value {
    let keys: Map<String, Value> = key.keys().into_iter().map(|(k, d)| (k, json!(d))).collect();
    json!({
        "key": keys,
        "equality": key.equality,
        "sort": key.sort.iter().map(|(f, d)| json!({f: d})).collect::<Vec<_>>(),
        "range": key.range,
        "distinct_in_sample": key.distinct.iter().map(|(f, d)| json!({f: d})).collect::<Vec<_>>(),
    })
}
