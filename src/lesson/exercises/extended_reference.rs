//! Exercises of the lesson `extended-reference`.

use std::collections::BTreeMap;

use bson::Document;

use super::parts::key;
use super::{documents_kept, seeded, Checking, Exercise, Tally, View};
use crate::fmt::group;
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "extended-reference/hot-fields-only",
    lesson: "extended-reference",
    datasets: &["extended_reference"],
    task: (
        "The orders of bad_orders copy their customer's e-mail, phone and loyalty points, which have changed since, and a customer's orders cannot be found by an index. Keep in each order only what an order page needs of its customer, keep the shipping address as it was, and make a customer's orders quick to find, without losing an order or its customer.",
        "bad_orders 的订单复制了客户的邮箱、电话和积分，而这些后来都变了；按客户查找订单也用不上索引。每个订单只保留订单页面需要的客户字段，收货地址保持原样，并让一个客户的订单能快速找到，不能丢失任何订单或它的客户。",
    ),
    hints: &[
        (
            "An extended reference copies only fields that are read with the order and rarely change. Which of the copied fields change all the time? Updating every copy after each change is not the pattern.",
            "扩展引用只复制随订单一起读取、而且很少改变的字段。复制过来的字段中，哪些一直在变？每次改变之后去更新每一份副本不是这个模式的做法。",
        ),
        (
            "Keep customer.id and customer.name, remove customer.email, customer.phone and customer.loyalty_points from the orders, leave ship_to alone (a snapshot), and index customer.id.",
            "保留 customer.id 和 customer.name，从订单中删除 customer.email、customer.phone 和 customer.loyalty_points，不要动 ship_to（它是快照），并为 customer.id 建索引。",
        ),
        (
            "In mongosh: db.bad_orders.updateMany({}, {$unset: {\"customer.email\": 1, \"customer.phone\": 1, \"customer.loyalty_points\": 1}}); db.bad_orders.createIndex({\"customer.id\": 1, date: -1})",
            "在 mongosh 中：db.bad_orders.updateMany({}, {$unset: {\"customer.email\": 1, \"customer.phone\": 1, \"customer.loyalty_points\": 1}}); db.bad_orders.createIndex({\"customer.id\": 1, date: -1})",
        ),
    ],
    check: hot_fields_only,
}];

/// Fields of a customer that change: no order should copy them.
const VOLATILE: [&str; 3] = ["email", "phone", "loyalty_points"];

fn hot_fields_only(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let ds = "extended_reference";
        let mut t = Tally::default();
        t.rule(v, ds, "denormalization-drift", 0);
        t.rule(v, ds, "missing-reference-index", 1);
        t.add(documents_kept(v, ds, "bad_orders", 1).await?);
        t.add(documents_kept(v, ds, "bad_customers", 1).await?);
        let orders = v.find(ds, "bad_orders", Document::new(), 100_000).await?;
        let now: BTreeMap<String, &Document> =
            orders.iter().map(|d| (key(d.get("_id")), d)).collect();
        let (mut copying, mut lost, mut moved) = (0u64, 0u64, 0u64);
        let seeded_orders = seeded(ds, "bad_orders");
        for s in &seeded_orders {
            let Some(d) = now.get(&key(s.get("_id"))) else {
                continue;
            };
            let want = s.get_document("customer").ok();
            let have = d.get_document("customer").ok();
            let same = |f: &str| {
                have.and_then(|h| h.get(f)).is_some()
                    && have.and_then(|h| h.get(f)) == want.and_then(|w| w.get(f))
            };
            if !same("id") || !same("name") {
                lost += 1;
            }
            if have.is_some_and(|h| VOLATILE.iter().any(|f| h.contains_key(*f))) {
                copying += 1;
            }
            if d.get("ship_to") != s.get("ship_to") {
                moved += 1;
            }
        }
        let total = seeded_orders.len() as u64;
        if copying > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of {} orders still copy the customer's {}: they change, and every change must reach every copy",
                        group(copying),
                        group(total),
                        VOLATILE.join(", ")
                    ),
                    format!(
                        "{} 个订单中仍有 {} 个复制了客户的 {}：这些字段会变，每次变化都必须同步到每一份副本",
                        group(total),
                        group(copying),
                        VOLATILE.join("、")
                    ),
                ),
                0,
            );
        }
        if lost > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of {} orders no longer hold their customer's id and name (customer.id, customer.name) as seed wrote them",
                        group(lost),
                        group(total)
                    ),
                    format!(
                        "{} 个订单中有 {} 个不再保存 seed 写入的客户 id 和姓名（customer.id、customer.name）",
                        group(total),
                        group(lost)
                    ),
                ),
                1,
            );
        }
        if moved > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} orders changed their ship_to: it is a snapshot of where the order went and stays as it was",
                        group(moved)
                    ),
                    format!("有 {} 个订单改了 ship_to：它是订单寄送地址的快照，应保持原样", group(moved)),
                ),
                1,
            );
        }
        if !v.indexed(ds, "bad_orders", "customer.id") {
            t.fail(
                Text::new(
                    "no index of bad_orders starts with customer.id: a customer's orders are found by scanning all of them",
                    "bad_orders 上没有以 customer.id 开头的索引：查找一个客户的订单要扫描全部订单",
                ),
                2,
            );
        }
        Ok(t.verdict(vec![
            Text::new(
                "denormalization-drift and missing-reference-index no longer fire on extended_reference",
                "denormalization-drift 和 missing-reference-index 不再在 extended_reference 上触发",
            ),
            Text::new(
                format!(
                    "all {} orders keep customer.id (indexed) and customer.name, their ship_to as it was, and copy nothing that changes",
                    group(total)
                ),
                format!(
                    "全部 {} 个订单都保留了 customer.id（有索引）和 customer.name、原样的 ship_to，不再复制会变化的字段",
                    group(total)
                ),
            ),
        ]))
    })
}
