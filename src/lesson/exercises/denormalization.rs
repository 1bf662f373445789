//! Exercises of the lesson `denormalization`: stale copies brought back in
//! step with their source, and a copied group turned into a reference.

use std::collections::BTreeMap;

use bson::{Bson, Document};

use super::parts::{key, reference_fields};
use super::{documents_kept, ids, seeded, Checking, Exercise, Tally, View};
use crate::fmt::group;
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[
    Exercise {
        id: "denormalization/copies-in-step",
        lesson: "denormalization",
        datasets: &["denormalization"],
        task: (
            "Products copy their parts' names (bad_products.parts[].name) and parts copy their product's name (bad_parts.product.name), but some parts and products were renamed after the copies were made. Bring every copy back in step with its source, keeping the copies and the sources' current names.",
            "产品复制了零件的名称（bad_products.parts[].name），零件复制了产品的名称（bad_parts.product.name），但一些零件和产品在复制之后改了名。让每一份副本重新与源数据一致：保留副本，也保留源数据现在的名称。",
        ),
        hints: &[
            (
                "denormalization-drift says which copies disagree with their source and how many. The source is right: the copy follows it, never the other way round.",
                "denormalization-drift 指出了哪些副本与源数据不一致、有多少个。源数据是对的：副本跟着源数据改，反过来不行。",
            ),
            (
                "For each part, set its name in every product that copies it (parts.$[e].name with an array filter on e.id); for each product, set product.name in its parts. Deleting the copies or renaming the sources back is not the fix.",
                "对每个零件，在所有复制了它的产品中设置名称（parts.$[e].name，配合对 e.id 的 arrayFilters）；对每个产品，在它的零件中设置 product.name。删除副本或把源数据改回原名都不是正确的修改。",
            ),
            (
                "In mongosh: db.bad_parts.find().forEach(p => db.bad_products.updateMany({\"parts.id\": p._id}, {$set: {\"parts.$[e].name\": p.name}}, {arrayFilters: [{\"e.id\": p._id}]})); db.bad_products.find().forEach(p => db.bad_parts.updateMany({\"product.id\": p._id}, {$set: {\"product.name\": p.name}}))",
                "在 mongosh 中：db.bad_parts.find().forEach(p => db.bad_products.updateMany({\"parts.id\": p._id}, {$set: {\"parts.$[e].name\": p.name}}, {arrayFilters: [{\"e.id\": p._id}]})); db.bad_products.find().forEach(p => db.bad_parts.updateMany({\"product.id\": p._id}, {$set: {\"product.name\": p.name}}))",
            ),
        ],
        check: copies_in_step,
    },
    Exercise {
        id: "denormalization/group-reference",
        lesson: "denormalization",
        datasets: &["contacts"],
        task: (
            "Every contact of bad_contacts carries a copy of its group (name, description, owner), and two groups were edited since, so the copies are stale. Change the design so that editing a group is one write, without losing which group a contact belongs to.",
            "bad_contacts 中的每个联系人都带着所属分组的副本（name、description、owner），而有两个分组后来被修改了，副本已经过期。修改设计，让编辑一个分组只需一次写入，同时不丢失每个联系人属于哪个分组。",
        ),
        hints: &[
            (
                "A group is edited and has many contacts: every copy is one more write per edit. Bringing the copies in step fixes today, not the next edit. Which design keeps the group in one place?",
                "分组会被编辑，而且有很多联系人：每一份副本都意味着每次编辑多一次写入。把副本同步好只解决了今天，解决不了下一次编辑。哪种设计让分组只存在一个地方？",
            ),
            (
                "Reference: keep only the group's _id in each contact (group_id, or group.id alone), remove the copied name, description and owner, and index the reference so a group's contacts are found quickly.",
                "引用：每个联系人只保存分组的 _id（group_id，或只保留 group.id），删除复制过来的 name、description 和 owner，并为引用建索引，以便快速找到一个分组的联系人。",
            ),
            (
                "In mongosh: db.bad_contacts.find().forEach(c => db.bad_contacts.updateOne({_id: c._id}, {$set: {group_id: c.group.id}, $unset: {group: 1}})); db.bad_contacts.createIndex({group_id: 1})",
                "在 mongosh 中：db.bad_contacts.find().forEach(c => db.bad_contacts.updateOne({_id: c._id}, {$set: {group_id: c.group.id}, $unset: {group: 1}})); db.bad_contacts.createIndex({group_id: 1})",
            ),
        ],
        check: group_reference,
    },
];

/// The value at a dotted path.
fn at<'a>(d: &'a Document, path: &str) -> Option<&'a Bson> {
    let mut cur = d;
    let mut parts = path.split('.').peekable();
    while let Some(p) = parts.next() {
        let v = cur.get(p)?;
        if parts.peek().is_none() {
            return Some(v);
        }
        cur = v.as_document()?;
    }
    None
}

/// Fails when documents of `coll` no longer hold the value seed wrote at
/// `field` (by `_id`): the source was changed.
fn sources_kept(
    t: &mut Tally,
    have: &[Document],
    dataset: &str,
    coll: &str,
    field: &str,
    hint: usize,
) {
    let now: BTreeMap<String, &Document> = have.iter().map(|d| (key(d.get("_id")), d)).collect();
    let changed: Vec<(String, String)> = seeded(dataset, coll)
        .iter()
        .filter_map(|s| {
            let d = now.get(&key(s.get("_id")))?;
            let (want, got) = (at(s, field)?, at(d, field));
            (got != Some(want)).then(|| {
                (
                    want.as_str().unwrap_or_default().to_owned(),
                    got.and_then(Bson::as_str).unwrap_or("(none)").to_owned(),
                )
            })
        })
        .collect();
    if let Some((want, got)) = changed.first() {
        t.fail(
            Text::new(
                format!(
                    "{} sources in {coll} no longer hold their current {field} (\"{want}\" became \"{got}\"): the copies follow the source, the source does not go back to the copies",
                    group(changed.len() as u64)
                ),
                format!(
                    "{coll} 中有 {} 个源文档的 {field} 被改掉了（“{want}”变成了“{got}”）：副本跟随源数据，源数据不能改回副本的值",
                    group(changed.len() as u64)
                ),
            ),
            hint,
        );
    }
}

fn copies_in_step(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let ds = "denormalization";
        let mut t = Tally::default();
        t.rule(v, ds, "denormalization-drift", 0);
        t.add(documents_kept(v, ds, "bad_products", 1).await?);
        t.add(documents_kept(v, ds, "bad_parts", 1).await?);
        let products = v.find(ds, "bad_products", Document::new(), 100_000).await?;
        let parts = v.find(ds, "bad_parts", Document::new(), 100_000).await?;
        sources_kept(&mut t, &products, ds, "bad_products", "name", 1);
        sources_kept(&mut t, &parts, ds, "bad_parts", "name", 1);
        let name_of: BTreeMap<String, Option<&Bson>> = products
            .iter()
            .chain(parts.iter())
            .map(|d| (key(d.get("_id")), d.get("name")))
            .collect();
        // Every copy seed made: (source id, where it is copied).
        let mut copies = 0u64;
        let mut gone = 0u64;
        let mut stale = 0u64;
        let mut judge = |source: Option<&Bson>, copy: Option<&Bson>| {
            copies += 1;
            match (copy, source.and_then(|s| name_of.get(&key(Some(s))))) {
                (None, _) => gone += 1,
                (Some(c), Some(Some(n))) if c == *n => {}
                _ => stale += 1,
            }
        };
        let by_id: BTreeMap<String, &Document> = products
            .iter()
            .chain(parts.iter())
            .map(|d| (key(d.get("_id")), d))
            .collect();
        for p in seeded(ds, "bad_products") {
            let now = by_id.get(&key(p.get("_id")));
            let elems: Vec<&Document> = now
                .and_then(|d| d.get_array("parts").ok())
                .map(|a| a.iter().filter_map(Bson::as_document).collect())
                .unwrap_or_default();
            for s in p.get_array("parts").map(|a| a.iter()).into_iter().flatten() {
                let sid = s.as_document().and_then(|s| s.get("id"));
                let copy = elems
                    .iter()
                    .find(|e| e.get("id") == sid)
                    .and_then(|e| e.get("name"));
                judge(sid, copy);
            }
        }
        for p in seeded(ds, "bad_parts") {
            let now = by_id.get(&key(p.get("_id")));
            let sid = at(&p, "product.id");
            judge(sid, now.and_then(|d| at(d, "product.name")));
        }
        if gone > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of the {} name copies seed wrote are gone: the reads they saved need a join again",
                        group(gone),
                        group(copies)
                    ),
                    format!(
                        "seed 写入的 {} 份名称副本中有 {} 份不见了：它们省下的读取又需要关联查询了",
                        group(copies),
                        group(gone)
                    ),
                ),
                1,
            );
        }
        if stale > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of the {} name copies still differ from their source",
                        group(stale),
                        group(copies)
                    ),
                    format!(
                        "{} 份名称副本中仍有 {} 份与源数据不一致",
                        group(copies),
                        group(stale)
                    ),
                ),
                1,
            );
        }
        Ok(t.verdict(vec![
            Text::new(
                "denormalization-drift no longer fires on denormalization",
                "denormalization-drift 不再在 denormalization 上触发",
            ),
            Text::new(
                format!(
                    "all {} name copies are there and equal their source's current name",
                    group(copies)
                ),
                format!(
                    "全部 {} 份名称副本都在，并且等于源数据现在的名称",
                    group(copies)
                ),
            ),
        ]))
    })
}

fn group_reference(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let ds = "contacts";
        let mut t = Tally::default();
        t.rule(v, ds, "denormalization-drift", 0);
        t.add(documents_kept(v, ds, "bad_groups", 1).await?);
        t.add(documents_kept(v, ds, "bad_contacts", 1).await?);
        let groups_now = v.find(ds, "bad_groups", Document::new(), 100_000).await?;
        sources_kept(&mut t, &groups_now, ds, "bad_groups", "name", 1);
        sources_kept(&mut t, &groups_now, ds, "bad_groups", "description", 1);
        let group_ids = ids(&seeded(ds, "bad_groups"));
        // The contacts without their avatars (read-only projection).
        let contacts = v
            .find_fields(
                ds,
                "bad_contacts",
                Document::new(),
                bson::doc! {"avatar": 0},
                100_000,
            )
            .await?;
        let now: BTreeMap<String, &Document> =
            contacts.iter().map(|d| (key(d.get("_id")), d)).collect();
        let mut lost = 0u64;
        let mut wrong = 0u64;
        let mut still_copied = 0u64;
        let mut fields: Vec<String> = Vec::new();
        let seeded_contacts = seeded(ds, "bad_contacts");
        for s in &seeded_contacts {
            let Some(d) = now.get(&key(s.get("_id"))) else {
                continue;
            };
            let want = at(s, "group.id");
            let refs = reference_fields(d, &group_ids);
            match refs.first() {
                None => lost += 1,
                Some(f) => {
                    if at(d, f) != want {
                        wrong += 1;
                    }
                    if !fields.contains(f) {
                        fields.push(f.clone());
                    }
                }
            }
            if ["group.name", "group.description", "group.owner"]
                .iter()
                .any(|p| at(d, p).is_some())
            {
                still_copied += 1;
            }
        }
        let total = seeded_contacts.len() as u64;
        if still_copied > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} contacts still copy their group's name, description or owner: every edit of a group still rewrites its contacts",
                        group(still_copied)
                    ),
                    format!(
                        "仍有 {} 个联系人复制了分组的 name、description 或 owner：每次编辑分组仍然要改写它的所有联系人",
                        group(still_copied)
                    ),
                ),
                0,
            );
        }
        if lost > 0 || wrong > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of {} contacts no longer reference their group by _id ({} reference none, {} another group)",
                        group(lost + wrong),
                        group(total),
                        group(lost),
                        group(wrong)
                    ),
                    format!(
                        "{} 个联系人中有 {} 个不再按 _id 引用自己的分组（{} 个没有引用，{} 个引用了别的分组）",
                        group(total),
                        group(lost + wrong),
                        group(lost),
                        group(wrong)
                    ),
                ),
                1,
            );
        }
        let unindexed: Vec<&String> = fields
            .iter()
            .filter(|f| !v.indexed(ds, "bad_contacts", f))
            .collect();
        if let Some(f) = unindexed.first() {
            t.fail(
                Text::new(
                    format!("no index of bad_contacts starts with {f}: finding a group's contacts scans them all"),
                    format!("bad_contacts 上没有以 {f} 开头的索引：查找一个分组的联系人要扫描全部联系人"),
                ),
                2,
            );
        }
        let field = fields.first().cloned().unwrap_or_default();
        Ok(t.verdict(vec![
            Text::new(
                "denormalization-drift no longer fires on contacts",
                "denormalization-drift 不再在 contacts 上触发",
            ),
            Text::new(
                format!(
                    "all {} contacts reference their group through bad_contacts.{field} (indexed), and copy nothing else of it",
                    group(total)
                ),
                format!(
                    "全部 {} 个联系人都通过 bad_contacts.{field} 引用分组（有索引），不再复制分组的其他字段",
                    group(total)
                ),
            ),
        ]))
    })
}
