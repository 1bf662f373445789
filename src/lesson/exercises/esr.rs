//! Exercises of the lesson `esr`: an index in equality–sort–range order for
//! the query the bundled workload runs on `bad_orders`.
//!
//! The check's audit runs without the workload, so it reads the indexes of
//! `bad_orders` and matches their keys against the workload's query shape
//! (`src/seed/workload.rs`: `{status: S, total: {$gte: X}}` sorted by
//! `{placed_at: -1}`).

use super::checks::{index_keys, index_name};
use super::{documents_kept, Checking, Exercise, Verdict, View};
use crate::i18n::Text;
use crate::source::index::IndexInfo;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "esr/orders",
    lesson: "esr",
    datasets: &["indexes"],
    task: (
        "The workload asks bad_orders for paid orders over an amount, newest first: find({status: \"paid\", total: {$gte: 100}}).sort({placed_at: -1}). Give bad_orders an index in equality–sort–range order for that query, keeping every order. The check reads bad_orders' index keys against this query shape.",
        "工作负载向 bad_orders 查询金额超过某值的已付款订单，按时间从新到旧：find({status: \"paid\", total: {$gte: 100}}).sort({placed_at: -1})。为这个查询给 bad_orders 建一个按等值–排序–范围顺序的索引，订单一个也不能丢。检查会拿 bad_orders 的索引键与这个查询形状对照。",
    ),
    hints: &[
        (
            "Sort the query's fields into the three roles: which one is matched by equality, which one orders the result, which one is a range?",
            "把查询的字段分成三类：哪个是等值匹配，哪个决定结果的顺序，哪个是范围条件？",
        ),
        (
            "status is the equality, placed_at the sort, total the range. status_1_total_1_channel_1 puts the range before the sort, so the server sorts in memory: build an index with status first, then placed_at, then total.",
            "status 是等值，placed_at 是排序，total 是范围。status_1_total_1_channel_1 把范围放在了排序之前，所以服务器要在内存中排序：建一个先 status、再 placed_at、最后 total 的索引。",
        ),
        (
            "In mongosh: db.bad_orders.createIndex({status: 1, placed_at: -1, total: 1})",
            "在 mongosh 中：db.bad_orders.createIndex({status: 1, placed_at: -1, total: 1})",
        ),
    ],
    check: orders,
}];

const DATASET: &str = "indexes";
const ORDERS: &str = "bad_orders";
/// The workload's query on `bad_orders`: equality, sort, range.
const EQUALITY: &str = "status";
const SORT: &str = "placed_at";
const RANGE: &str = "total";

/// What an index does for the query: `Ok` in ESR order, or why not.
fn diagnose(i: &IndexInfo) -> Result<(), Text> {
    let keys: Vec<String> = index_keys(i).into_iter().map(|(k, _)| k).collect();
    let name = index_name(i);
    let at = |f: &str| keys.iter().position(|k| k == f);
    if keys.first().map(String::as_str) != Some(EQUALITY) {
        let first = keys.first().cloned().unwrap_or_default();
        return Err(Text::new(
            format!("{name} starts with {first}, not with the equality field {EQUALITY}: the query reads it across every status"),
            format!("{name} 以 {first} 开头，而不是等值字段 {EQUALITY}：查询要跨所有 status 读取它"),
        ));
    }
    match (at(SORT), at(RANGE)) {
        (Some(1), Some(r)) if r > 1 => Ok(()),
        (Some(1), None) => Err(Text::new(
            format!("{name} gives the order of {SORT} after {EQUALITY} but holds no {RANGE}: the range is checked on every document fetched"),
            format!("{name} 在 {EQUALITY} 之后给出了 {SORT} 的顺序，但不含 {RANGE}：范围条件要在取回的每个文档上检查"),
        )),
        (Some(s), Some(r)) if r < s => Err(Text::new(
            format!("{name} puts {RANGE} (the range) before {SORT} (the sort): the matching keys come in {RANGE} order and the server sorts them in memory"),
            format!("{name} 把 {RANGE}（范围）放在了 {SORT}（排序）之前：匹配的键按 {RANGE} 排列，服务器只好在内存中排序"),
        )),
        (None, Some(1)) => Err(Text::new(
            format!("{name} puts {RANGE} (the range) right after {EQUALITY} and holds no {SORT} (the sort): the server sorts in memory"),
            format!("{name} 在 {EQUALITY} 之后紧接着 {RANGE}（范围），且不含 {SORT}（排序）：服务器只好在内存中排序"),
        )),
        _ => Err(Text::new(
            format!("{name} has no {SORT} right after {EQUALITY}: the matching keys are not in the order asked for, and the server sorts them in memory"),
            format!("{name} 在 {EQUALITY} 之后没有紧接着 {SORT}：匹配的键不是所要的顺序，服务器只好在内存中排序"),
        )),
    }
}

fn orders(v: &View) -> Checking<'_> {
    Box::pin(async move {
        if let Some(fail) = documents_kept(v, DATASET, ORDERS, 1).await? {
            return Ok(fail);
        }
        let indexes: Vec<&IndexInfo> = v
            .collection(DATASET, ORDERS)
            .map(|c| c.indexes.iter().collect())
            .unwrap_or_default();
        if let Some(good) = indexes.iter().find(|i| diagnose(i).is_ok()) {
            return Ok(Verdict::Pass(vec![Text::new(
                format!("{} serves find({{{EQUALITY}: …, {RANGE}: {{$gte: …}}}}).sort({{{SORT}: -1}}) in ESR order: one run of {EQUALITY}'s keys, already in {SORT} order, {RANGE} checked on the keys", index_name(good)),
                format!("{} 按 ESR 顺序服务 find({{{EQUALITY}: …, {RANGE}: {{$gte: …}}}}).sort({{{SORT}: -1}})：读取 {EQUALITY} 的连续一段键，已经按 {SORT} 排好序，{RANGE} 在键上检查", index_name(good)),
            )]));
        }
        // Why the indexes that touch the query do not serve it.
        let mut evidence: Vec<Text> = indexes
            .iter()
            .filter(|i| {
                let keys = index_keys(i);
                keys.first().is_some_and(|(k, _)| k == EQUALITY)
                    || [EQUALITY, SORT, RANGE]
                        .iter()
                        .all(|f| keys.iter().any(|(k, _)| k == f))
            })
            .filter_map(|i| diagnose(i).err())
            .collect();
        evidence.insert(
            0,
            Text::new(
                format!("no index of {ORDERS} has {EQUALITY}, {SORT}, {RANGE} in equality–sort–range order"),
                format!("{ORDERS} 没有按等值–排序–范围顺序包含 {EQUALITY}、{SORT}、{RANGE} 的索引"),
            ),
        );
        Ok(Verdict::Fail { evidence, hint: 1 })
    })
}
