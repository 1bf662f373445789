//! Exercises of the lesson `cardinality`: one per data set, each moving
//! the bad variant to the design its cardinality calls for.

use bson::{doc, Bson, Document};

use super::parts::{key, reference_fields, ChildMove, HINT_DATA, HINT_DESIGN};
use super::{documents_kept, ids, seeded, Checking, Exercise, Tally, Verdict, View};
use crate::fmt::group;
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[
Exercise {
    id: "cardinality/embed-addresses",
    lesson: "cardinality",
    datasets: &["one_to_few"],
    task: (
        "A person has one to three addresses, yet bad_addresses keeps them in a collection of their own, found through an unindexed person_id. Give each person of bad_people their addresses in the design a one-to-few relationship calls for, without losing one.",
        "一个人只有一到三个地址，bad_addresses 却把它们放在独立的集合里，通过没有索引的 person_id 查找。按照一对很少关系应有的设计，把地址交还给 bad_people 中的每个人，一个地址也不能丢。",
    ),
    hints: &[
        (
            "How many addresses can a person have? For one-to-few the lesson says one read should return everything. An index on person_id silences the rule but keeps the extra read.",
            "一个人能有几个地址？对一对很少，课程说一次读取就应该拿到全部。给 person_id 建索引能让规则不再报警，但多出来的那次读取还在。",
        ),
        (
            "Embed: copy each person's addresses (kind, street, city, country) into an addresses array of the person, then drop bad_addresses once every address is in its person.",
            "内嵌：把每个人的地址（kind、street、city、country）复制到该人的 addresses 数组中，所有地址都放进去之后再删除 bad_addresses。",
        ),
        (
            "In mongosh: db.bad_people.find().forEach(p => db.bad_people.updateOne({_id: p._id}, {$set: {addresses: db.bad_addresses.find({person_id: p._id}, {_id: 0, person_id: 0}).toArray()}})); db.bad_addresses.drop()",
            "在 mongosh 中：db.bad_people.find().forEach(p => db.bad_people.updateOne({_id: p._id}, {$set: {addresses: db.bad_addresses.find({person_id: p._id}, {_id: 0, person_id: 0}).toArray()}})); db.bad_addresses.drop()",
        ),
    ],
    check: embed_addresses,
},
Exercise {
    id: "cardinality/part-references",
    lesson: "cardinality",
    datasets: &["one_to_many"],
    task: (
        "Each product of bad_products holds 1,200 to 1,600 part ids in part_ids, an array that is read and rewritten whole. Turn the relationship around so that no product document carries the long list, without losing which parts a product uses, and so that a product's parts are still found by an index.",
        "bad_products 的每个产品在 part_ids 中保存 1,200 到 1,600 个零件 id，这个数组每次都要整体读写。把关系反过来，让产品文档不再携带这个长列表，同时不丢失每个产品使用哪些零件，并且仍然能通过索引找到一个产品的零件。",
    ),
    hints: &[
        (
            "An array of ids in the parent suits a few hundred children; beyond that the lesson's other reference goes the other way round. Which side is small here: how many products does one part belong to?",
            "父文档中的 id 数组适合几百个子文档；再多的话，课程里的另一种引用方向正好相反。这里哪一边小：一个零件属于几个产品？",
        ),
        (
            "Parent reference: store in each part of bad_parts the ids of the products that use it (product_ids, at most three), index that field, then remove part_ids from the products.",
            "父引用：在 bad_parts 的每个零件中保存使用它的产品 id（product_ids，最多三个），为这个字段建索引，然后从产品中删除 part_ids。",
        ),
        (
            "In mongosh: db.bad_products.find().forEach(p => db.bad_parts.updateMany({_id: {$in: p.part_ids}}, {$addToSet: {product_ids: p._id}})); db.bad_parts.createIndex({product_ids: 1}); db.bad_products.updateMany({}, {$unset: {part_ids: 1}})",
            "在 mongosh 中：db.bad_products.find().forEach(p => db.bad_parts.updateMany({_id: {$in: p.part_ids}}, {$addToSet: {product_ids: p._id}})); db.bad_parts.createIndex({product_ids: 1}); db.bad_products.updateMany({}, {$unset: {part_ids: 1}})",
        ),
    ],
    check: part_references,
},
Exercise {
    id: "cardinality/host-logs",
    lesson: "cardinality",
    datasets: &["one_to_squillions"],
    task: (
        "The documents of bad_hosts keep every log message of their host, so they grow without end. Move the messages out so that a host document stops growing, without losing a message, and so that a host's messages are still found quickly.",
        "bad_hosts 的文档保存了主机的每一条日志，因此会无限增长。把日志移出去，让主机文档不再增长，一条日志也不能丢，而且仍然能快速找到一台主机的日志。",
    ),
    hints: &[
        (
            "A host's messages have no upper bound: one-to-squillions. Which of the lesson's three designs keeps no array in the parent at all?",
            "一台主机的日志没有上限：这是一对非常多。课程里的三种方案中，哪一种在父文档里完全不放数组？",
        ),
        (
            "Parent reference: give every message a document of its own in a new collection (bad_logmsg, say) holding its host's _id (host), its time and its message; then remove the logs array from bad_hosts. Count the messages before and after.",
            "父引用：在一个新集合（例如 bad_logmsg）中为每条日志建立自己的文档，保存主机的 _id（host）、时间和内容；然后从 bad_hosts 中删除 logs 数组。前后都数一数日志的条数。",
        ),
        (
            "In mongosh: db.bad_hosts.find().forEach(h => db.bad_logmsg.insertMany(h.logs.map(l => ({host: h._id, time: l.time, message: l.message})))); db.bad_hosts.updateMany({}, {$unset: {logs: 1}}); db.bad_logmsg.createIndex({host: 1, time: -1})",
            "在 mongosh 中：db.bad_hosts.find().forEach(h => db.bad_logmsg.insertMany(h.logs.map(l => ({host: h._id, time: l.time, message: l.message})))); db.bad_hosts.updateMany({}, {$unset: {logs: 1}}); db.bad_logmsg.createIndex({host: 1, time: -1})",
        ),
    ],
    check: host_logs,
},
];

const HOST_LOGS: ChildMove = ChildMove {
    dataset: "one_to_squillions",
    parent: "bad_hosts",
    array: "logs",
    rule: "unbounded-array",
    keys: &["time", "message"],
    noun: ("log messages", "日志"),
    index: true,
};

fn host_logs(v: &View) -> Checking<'_> {
    Box::pin(async move {
        Ok(match HOST_LOGS.check(v).await? {
            Ok(moved) => Verdict::Pass(HOST_LOGS.confirmed(&moved)),
            Err(fail) => fail,
        })
    })
}

/// The addresses embedded in one person: the elements of any array of
/// sub-documents that have a street.
fn embedded_addresses(person: &Document) -> Vec<&Document> {
    person
        .values()
        .filter_map(Bson::as_array)
        .flatten()
        .filter_map(Bson::as_document)
        .filter(|a| a.contains_key("street"))
        .collect()
}

fn embed_addresses(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let ds = "one_to_few";
        let mut t = Tally::default();
        t.rule(v, ds, "missing-reference-index", 0);
        t.add(documents_kept(v, ds, "bad_people", 1).await?);
        let people = v.find(ds, "bad_people", Document::new(), 10_000).await?;
        let by_person: std::collections::BTreeMap<String, Vec<&Document>> = people
            .iter()
            .map(|p| (key(p.get("_id")), embedded_addresses(p)))
            .collect();
        let seeded_addresses = seeded(ds, "bad_addresses");
        let total = seeded_addresses.len() as u64;
        let embedded: u64 = by_person.values().map(|a| a.len() as u64).sum();
        let missing = seeded_addresses
            .iter()
            .filter(|a| {
                !by_person.get(&key(a.get("person_id"))).is_some_and(|mine| {
                    mine.iter().any(|m| {
                        m.get("street") == a.get("street") && m.get("city") == a.get("city")
                    })
                })
            })
            .count() as u64;
        if missing > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of the {} addresses seed wrote are not embedded in their person in bad_people ({} embedded in all)",
                        group(missing),
                        group(total),
                        group(embedded)
                    ),
                    format!(
                        "seed 写入的 {} 个地址中有 {} 个没有内嵌到 bad_people 中对应的人（共内嵌了 {} 个）",
                        group(total),
                        group(missing),
                        group(embedded)
                    ),
                ),
                1,
            );
        }
        let left = v.count(ds, "bad_addresses", Document::new()).await?;
        if left > 0 {
            t.fail(
                Text::new(
                    format!(
                        "bad_addresses still holds {} addresses: reading a person still takes a second query (one-to-few: embed, and the separate collection goes)",
                        group(left)
                    ),
                    format!(
                        "bad_addresses 中仍有 {} 个地址：读取一个人仍然需要第二次查询（一对很少：内嵌，独立的集合就不再需要）",
                        group(left)
                    ),
                ),
                if missing > 0 { HINT_DESIGN } else { HINT_DATA },
            );
        }
        Ok(t.verdict(vec![
            Text::new(
                "missing-reference-index no longer fires on one_to_few",
                "missing-reference-index 不再在 one_to_few 上触发",
            ),
            Text::new(
                format!(
                    "all {} addresses are embedded in their person; bad_addresses is empty",
                    group(total)
                ),
                format!(
                    "全部 {} 个地址都内嵌在对应的人中；bad_addresses 已经清空",
                    group(total)
                ),
            ),
        ]))
    })
}

fn part_references(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let ds = "one_to_many";
        let mut t = Tally::default();
        t.rule(v, ds, "large-reference-array", 0);
        t.add(documents_kept(v, ds, "bad_products", 1).await?);
        t.add(documents_kept(v, ds, "bad_parts", 1).await?);
        let products = seeded(ds, "bad_products");
        let product_ids = ids(&products);
        let total: u64 = products
            .iter()
            .map(|p| p.get_array("part_ids").map_or(0, |a| a.len() as u64))
            .sum();
        // The field of bad_parts that holds the products' ids.
        let probe = v.find(ds, "bad_parts", Document::new(), 50).await?;
        let mut fields: Vec<String> = probe
            .iter()
            .flat_map(|d| reference_fields(d, &product_ids))
            .collect();
        fields.sort();
        fields.dedup();
        let Some(field) = fields.into_iter().next() else {
            t.fail(
                Text::new(
                    format!(
                        "no part of bad_parts references the products that use it: the {} references seed wrote in part_ids are not on the parts' side",
                        group(total)
                    ),
                    format!(
                        "bad_parts 中没有任何零件引用使用它的产品：seed 写在 part_ids 中的 {} 个引用没有放到零件一侧",
                        group(total)
                    ),
                ),
                if t.failed() { HINT_DESIGN } else { HINT_DATA },
            );
            return Ok(t.verdict(Vec::new()));
        };
        // Every part that names a product, read once: the parts each
        // product names against the parts it uses.
        let naming = v
            .find(
                ds,
                "bad_parts",
                doc! {field.as_str(): {"$in": product_ids.clone()}},
                1_000_000,
            )
            .await?;
        let named = |part: &Document, pid: &Bson| -> bool {
            let mut at: Option<&Bson> = None;
            let mut doc = Some(part);
            for seg in field.split('.') {
                at = doc.and_then(|d| d.get(seg));
                doc = at.and_then(Bson::as_document);
            }
            match at {
                Some(Bson::Array(a)) => a.contains(pid),
                Some(b) => b == pid,
                None => false,
            }
        };
        let mut lost = 0u64;
        let mut wrong = 0u64;
        for p in &products {
            let pid = p.get("_id").cloned().unwrap_or(Bson::Null);
            let uses: std::collections::BTreeSet<String> = p
                .get_array("part_ids")
                .map(|a| a.iter().map(|b| key(Some(b))).collect())
                .unwrap_or_default();
            let mut right = 0u64;
            for part in naming.iter().filter(|d| named(d, &pid)) {
                if uses.contains(&key(part.get("_id"))) {
                    right += 1;
                } else {
                    wrong += 1;
                }
            }
            lost += (uses.len() as u64).saturating_sub(right);
        }
        if lost > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of the {} part references are lost: those parts do not name their product in bad_parts.{field}",
                        group(lost),
                        group(total)
                    ),
                    format!(
                        "{} 个零件引用中丢失了 {} 个：这些零件没有在 bad_parts.{field} 中写明它们的产品",
                        group(total),
                        group(lost)
                    ),
                ),
                1,
            );
        }
        if wrong > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} parts name a product in bad_parts.{field} that does not use them",
                        group(wrong)
                    ),
                    format!(
                        "有 {} 个零件在 bad_parts.{field} 中写了并不使用它们的产品",
                        group(wrong)
                    ),
                ),
                1,
            );
        }
        if !v.indexed(ds, "bad_parts", &field) {
            t.fail(
                Text::new(
                    format!(
                        "no index of bad_parts starts with {field}: finding a product's parts scans all of them"
                    ),
                    format!("bad_parts 上没有以 {field} 开头的索引：查找一个产品的零件要扫描全部零件"),
                ),
                2,
            );
        }
        Ok(t.verdict(vec![
            Text::new(
                "large-reference-array no longer fires on one_to_many",
                "large-reference-array 不再在 one_to_many 上触发",
            ),
            Text::new(
                format!(
                    "all {} part references are found through bad_parts.{field} (indexed)",
                    group(total)
                ),
                format!(
                    "全部 {} 个零件引用都能通过 bad_parts.{field} 找到（有索引）",
                    group(total)
                ),
            ),
        ]))
    })
}
