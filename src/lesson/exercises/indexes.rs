//! Exercises of the lesson `indexes`: prune `bad_orders`' pile of indexes
//! down to the ones its queries use.

use super::checks::{index_keys, index_name};
use super::{documents_kept, rule_gone, Checking, Exercise, Verdict, View};
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "indexes/prune",
    lesson: "indexes",
    datasets: &["indexes"],
    task: (
        "bad_orders carries 13 indexes: two are prefixes of others, one is led by _id and one is on coupon_code, which no document has. Drop the indexes that are pure cost, keep every order, and keep an index for the query the application runs on bad_orders (paid orders over an amount: an equality on status).",
        "bad_orders 有 13 个索引：其中两个是别的索引的前缀，一个以 _id 开头，还有一个建在没有任何文档拥有的 coupon_code 上。删掉这些只有开销的索引，订单一个也不能丢，并且为应用在 bad_orders 上运行的查询（金额超过某值的已付款订单：status 等值匹配）保留一个索引。",
    ),
    hints: &[
        (
            "Every index costs memory and write time. Which of bad_orders' indexes can never be chosen, or only ever do what another index already does? redundant-index, id-led-index and unused-index name them.",
            "每个索引都占用内存并拖慢写入。bad_orders 的哪些索引永远不会被选中，或者只能做另一个索引已经能做的事？redundant-index、id-led-index 和 unused-index 会指出它们。",
        ),
        (
            "Drop the prefixes customer_1 and status_1 (their longer indexes serve the same queries), _id_1_status_1 (the _id index is already unique) and coupon_code_1 (no document has the field). Keep status_1_total_1_channel_1: the workload's query filters on status. Drop indexes, never documents.",
            "删除作为前缀的 customer_1 和 status_1（更长的索引能服务同样的查询）、_id_1_status_1（_id 索引本身已经唯一）以及 coupon_code_1（没有文档有这个字段）。保留 status_1_total_1_channel_1：工作负载的查询按 status 过滤。只删索引，不要删文档。",
        ),
        (
            "In mongosh: [\"customer_1\", \"status_1\", \"_id_1_status_1\", \"coupon_code_1\"].forEach(n => db.bad_orders.dropIndex(n))",
            "在 mongosh 中：[\"customer_1\", \"status_1\", \"_id_1_status_1\", \"coupon_code_1\"].forEach(n => db.bad_orders.dropIndex(n))",
        ),
    ],
    check: prune,
}];

const DATASET: &str = "indexes";
const ORDERS: &str = "bad_orders";
/// The equality field of the workload's query on `bad_orders`.
const QUERIED: &str = "status";

fn prune(v: &View) -> Checking<'_> {
    Box::pin(async move {
        if let Some(fail) = documents_kept(v, DATASET, ORDERS, 1).await? {
            return Ok(fail);
        }
        for rule in [
            "redundant-index",
            "id-led-index",
            "unused-index",
            "too-many-indexes",
        ] {
            if let Some(fail) = rule_gone(v, DATASET, rule, 1) {
                return Ok(fail);
            }
        }
        let indexes: Vec<_> = v
            .collection(DATASET, ORDERS)
            .map(|c| c.indexes.iter().collect())
            .unwrap_or_default();
        let Some(kept) = indexes
            .iter()
            .find(|i| index_keys(i).first().is_some_and(|(k, _)| k == QUERIED))
        else {
            return Ok(Verdict::fail(
                Text::new(
                    format!("no index of {ORDERS} starts with {QUERIED} any more: the workload's query (paid orders over an amount, {{{QUERIED}: …, total: {{$gte: …}}}}) would scan every order on each of its runs"),
                    format!("{ORDERS} 已经没有以 {QUERIED} 开头的索引：工作负载的查询（金额超过某值的已付款订单，{{{QUERIED}: …, total: {{$gte: …}}}}）每次执行都要扫描全部订单"),
                ),
                1,
            ));
        };
        let left = indexes.len();
        Ok(Verdict::Pass(vec![
            Text::new(
                format!("{ORDERS} keeps every order, with {left} indexes: none redundant, led by _id or on a field no document has"),
                format!("{ORDERS} 保留了全部订单，现有 {left} 个索引：没有冗余的、以 _id 开头的或建在无人拥有的字段上的索引"),
            ),
            Text::new(
                format!("the workload's query on {QUERIED} still has an index: {}", index_name(kept)),
                format!("工作负载按 {QUERIED} 的查询仍然有索引：{}", index_name(kept)),
            ),
        ]))
    })
}
