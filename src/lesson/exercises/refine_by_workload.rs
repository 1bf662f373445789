//! Exercises of the lesson `refine-by-workload`: what the bundled workload
//! draws on `contacts` — groups renamed while every contact carries a copy.
//!
//! The check's audit runs without the workload: the workload's counts (30
//! renames of `bad_groups` against 900 reads of `bad_contacts`,
//! `src/seed/workload.rs`) are stated in the task, and the check reads the
//! contacts themselves.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document};

use super::{documents_kept, rule_gone, seeded, Checking, Exercise, Verdict, View};
use crate::fmt::group;
use crate::i18n::Text;
use crate::source::SourceError;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "refine-by-workload/group-copies",
    lesson: "refine-by-workload",
    datasets: &["contacts"],
    task: (
        "The workload renames a group of bad_groups 30 times while it reads bad_contacts 900 times, and every contact carries a copy of its group (name, description, owner) — two of which already disagree with bad_groups. Groups are now renamed every day: keep in each contact only the reference to its group, indexed, and no copy of the group's fields, without losing a contact or a group.",
        "工作负载把 bad_groups 中的分组改名 30 次，同时读取 bad_contacts 900 次，而每个联系人都带着其分组的副本（name、description、owner）——其中两个分组的副本已经与 bad_groups 不一致。现在分组每天都会改名：每个联系人只保留对其分组的引用（并建索引），不再复制分组的字段，联系人和分组一个也不能丢。",
    ),
    hints: &[
        (
            "A copied field is cheap to read and expensive to change. How often are groups written, and how often is the copy read? Which design makes a rename one write?",
            "复制的字段读起来便宜，改起来昂贵。分组多久写一次，副本多久读一次？哪种设计让改名只需一次写入？",
        ),
        (
            "A reference: keep the group's _id in each contact (group_id, or group.id alone), drop name, description and owner from the contact, and index the reference so that a group's contacts are found without a scan.",
            "引用：每个联系人只保留分组的 _id（group_id，或者只留 group.id），从联系人中删除 name、description 和 owner，并为引用建索引，这样查找一个分组的联系人不必扫描。",
        ),
        (
            "In mongosh: db.bad_contacts.updateMany({}, [{$set: {group_id: \"$group.id\"}}, {$unset: \"group\"}]); db.bad_contacts.createIndex({group_id: 1})",
            "在 mongosh 中：db.bad_contacts.updateMany({}, [{$set: {group_id: \"$group.id\"}}, {$unset: \"group\"}]); db.bad_contacts.createIndex({group_id: 1})",
        ),
    ],
    check: group_copies,
}, Exercise {
    id: "refine-by-workload/avatars",
    lesson: "refine-by-workload",
    datasets: &["contacts"],
    task: (
        "Four contacts of bad_contacts embed a 5–10 MB avatar, and every read of a contact carries it, though the workload shows an avatar in one read of ten. Move each avatar out of its contact (GridFS, or a collection of its own), keep in the contact a reference to it, and lose no byte of any avatar.",
        "bad_contacts 中有四个联系人内嵌了 5–10 MB 的头像，每次读取联系人都要带上它，而工作负载显示十次读取只有一次要显示头像。把每个头像移出联系人（GridFS 或独立的集合），在联系人中保留对它的引用，任何头像一个字节也不能丢。",
    ),
    hints: &[
        (
            "bloated-document shows which path carries the bytes. A field few queries want makes every other read carry it: where else could it live?",
            "bloated-document 指出是哪个路径占用了字节。少数查询才需要的字段会让其余每次读取都背着它：它还可以放在哪里？",
        ),
        (
            "Store each avatar apart — in GridFS (files and 255 KiB chunks: no document near the limit) or a collection of its own — put its _id into the contact as avatar_id, then unset avatar. Compare the byte lengths before and after.",
            "把每个头像单独存放——放进 GridFS（files 加 255 KiB 的 chunks：不会有文档接近上限）或独立的集合——把它的 _id 作为 avatar_id 写进联系人，然后删除 avatar。前后比较字节长度。",
        ),
        (
            "In a shell with the GridFS tools: mongofiles put each avatar, or in mongosh: db.bad_contacts.find({avatar: {$exists: true}}).forEach(c => { const id = db.bad_avatars.insertOne({contact: c._id, data: c.avatar}).insertedId; db.bad_contacts.updateOne({_id: c._id}, {$set: {avatar_id: id}, $unset: {avatar: 1}}); })",
            "可以用 GridFS 工具：用 mongofiles 逐个存入头像；或者在 mongosh 中：db.bad_contacts.find({avatar: {$exists: true}}).forEach(c => { const id = db.bad_avatars.insertOne({contact: c._id, data: c.avatar}).insertedId; db.bad_contacts.updateOne({_id: c._id}, {$set: {avatar_id: id}, $unset: {avatar: 1}}); })",
        ),
    ],
    check: avatars,
}];

const DATASET: &str = "contacts";
const CONTACTS: &str = "bad_contacts";
const GROUPS: &str = "bad_groups";
/// Where a contact's reference to its group may be.
const PATHS: [&str; 3] = ["group_id", "group.id", "group"];
/// The copied fields of a group.
const COPIED: [&str; 3] = ["name", "description", "owner"];

/// Per group `_id`, the contacts seed gave it.
fn members() -> BTreeMap<String, (Bson, u64)> {
    let mut per: BTreeMap<String, (Bson, u64)> = BTreeMap::new();
    for c in seeded(DATASET, CONTACTS) {
        if let Some(id) = c.get_document("group").ok().and_then(|g| g.get("id")) {
            per.entry(id.to_string()).or_insert((id.clone(), 0)).1 += 1;
        }
    }
    per
}

/// The strings of a document, at any depth.
fn strings(v: &Bson, out: &mut Vec<String>) {
    match v {
        Bson::String(s) => out.push(s.clone()),
        Bson::Document(d) => d.values().for_each(|x| strings(x, out)),
        Bson::Array(a) => a.iter().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn group_copies(v: &View) -> Checking<'_> {
    Box::pin(async move {
        for coll in [CONTACTS, GROUPS] {
            if let Some(fail) = documents_kept(v, DATASET, coll, 1).await? {
                return Ok(fail);
            }
        }
        if let Some(fail) = rule_gone(v, DATASET, "denormalization-drift", 0) {
            return Ok(fail);
        }
        let per = members();
        let total: u64 = per.values().map(|p| p.1).sum();
        let all_ids: Vec<Bson> = per.values().map(|p| p.0.clone()).collect();
        // The path holding every contact's group id.
        let mut path = None;
        for p in PATHS {
            let n = v
                .count(DATASET, CONTACTS, doc! {p: {"$in": all_ids.clone()}})
                .await?;
            if n >= total {
                path = Some(p);
                break;
            }
        }
        let Some(path) = path else {
            return Ok(Verdict::fail(
                Text::new(
                    format!("the contacts no longer hold their group's _id (in group_id or group.id): seed gave {} contacts a group, and a contact must still say which", group(total)),
                    format!("联系人不再保存其分组的 _id（group_id 或 group.id）：seed 给 {} 个联系人分配了分组，联系人必须仍然能说明属于哪个分组", group(total)),
                ),
                1,
            ));
        };
        for (id, n) in per.values() {
            let have = v.count(DATASET, CONTACTS, doc! {path: id.clone()}).await?;
            if have != *n {
                return Ok(Verdict::fail(
                    Text::new(
                        format!(
                            "group {id} had {} contacts, {} of them now reference it in {path}",
                            group(*n),
                            group(have)
                        ),
                        format!(
                            "分组 {id} 原有 {} 个联系人，现在其中 {} 个在 {path} 中引用它",
                            group(*n),
                            group(have)
                        ),
                    ),
                    1,
                ));
            }
        }
        // Copies left: a group's name or description, in any field of a
        // contact (the avatar, a large binary, left out of the read).
        let mut words: Vec<String> = Vec::new();
        for g in seeded(DATASET, GROUPS)
            .iter()
            .chain(v.find(DATASET, GROUPS, doc! {}, 100).await?.iter())
        {
            for f in ["name", "description"] {
                if let Ok(s) = g.get_str(f) {
                    words.push(s.to_owned());
                }
            }
        }
        let contacts = v
            .aggregate(
                DATASET,
                CONTACTS,
                vec![doc! {"$project": {"avatar": 0, "name": 0, "email": 0, "phone": 0}}],
            )
            .await?;
        let copying = contacts
            .iter()
            .filter(|c| {
                let mut s = Vec::new();
                strings(&Bson::Document((*c).clone()), &mut s);
                s.iter().any(|x| words.contains(x))
                    || COPIED
                        .iter()
                        .any(|f| c.get_document("group").is_ok_and(|g| g.contains_key(f)))
            })
            .count() as u64;
        if copying > 0 {
            return Ok(Verdict::fail(
                Text::new(
                    format!("{} of {} contacts still copy their group's fields ({}): every rename of a group must rewrite them", group(copying), group(contacts.len() as u64), COPIED.join(", ")),
                    format!("{} 个联系人中仍有 {} 个复制了分组的字段（{}）：分组每改一次名都要改写它们", group(contacts.len() as u64), group(copying), COPIED.join("、")),
                ),
                1,
            ));
        }
        if !v.indexed(DATASET, CONTACTS, path) {
            return Ok(Verdict::fail(
                Text::new(
                    format!("no index of {CONTACTS} starts with {path}: listing a group's contacts scans them all"),
                    format!("{CONTACTS} 没有以 {path} 开头的索引：列出一个分组的联系人要扫描全部联系人"),
                ),
                2,
            ));
        }
        Ok(Verdict::Pass(vec![
            Text::new(
                format!("all {} contacts reference their group by {path} (indexed) and copy none of its fields: a rename is one write to {GROUPS}", group(total)),
                format!("全部 {} 个联系人都通过 {path}（有索引）引用其分组，不再复制分组的字段：改名只需对 {GROUPS} 写一次", group(total)),
            ),
        ]))
    })
}

/// The byte length of an avatar stored at `id` in collection `coll`: a
/// GridFS file (its `length`, with every chunk there) or a document
/// holding the bytes.
async fn stored_length(v: &View, coll: &str, id: &Bson) -> Result<Option<u64>, SourceError> {
    let Some(d) = v
        .find(DATASET, coll, doc! {"_id": id.clone()}, 1)
        .await?
        .pop()
    else {
        return Ok(None);
    };
    if let (Some(len), Some(chunk)) = (
        d.get("length").and_then(super::checks::number),
        d.get("chunkSize").and_then(super::checks::number),
    ) {
        let bucket = coll.strip_suffix(".files").unwrap_or(coll);
        let chunks = v
            .count(
                DATASET,
                &format!("{bucket}.chunks"),
                doc! {"files_id": id.clone()},
            )
            .await?;
        let want = (len / chunk.max(1.0)).ceil() as u64;
        return Ok((chunks >= want).then_some(len as u64));
    }
    Ok(d.values()
        .filter_map(|x| match x {
            Bson::Binary(b) => Some(b.bytes.len() as u64),
            _ => None,
        })
        .max())
}

fn avatars(v: &View) -> Checking<'_> {
    Box::pin(async move {
        if let Some(fail) = documents_kept(v, DATASET, CONTACTS, 1).await? {
            return Ok(fail);
        }
        let still: Vec<Text> = v
            .fired(DATASET, "bloated-document")
            .into_iter()
            .filter(|f| f.namespace.ends_with(&format!(".{CONTACTS}")))
            .map(super::still_fires)
            .collect();
        if !still.is_empty() {
            return Ok(Verdict::Fail {
                evidence: still,
                hint: 0,
            });
        }
        let with: Vec<Document> = seeded(DATASET, CONTACTS)
            .into_iter()
            .filter(|c| c.contains_key("avatar"))
            .collect();
        let others: Vec<String> = v
            .collections(DATASET)
            .iter()
            .map(|c| c.meta.name.clone())
            .filter(|n| !n.starts_with("good_") && n != CONTACTS && !n.ends_with(".chunks"))
            .collect();
        let mut bytes = 0u64;
        for c in &with {
            let id = c.get("_id").cloned().unwrap_or(Bson::Null);
            let want = match c.get("avatar") {
                Some(Bson::Binary(b)) => b.bytes.len() as u64,
                _ => 0,
            };
            let now = v
                .aggregate(
                    DATASET,
                    CONTACTS,
                    vec![
                        doc! {"$match": {"_id": id.clone()}},
                        doc! {"$project": {"avatar": 0}},
                    ],
                )
                .await?
                .pop()
                .unwrap_or_default();
            let mut found = None;
            'search: for (k, r) in &now {
                if k == "_id" {
                    continue;
                }
                for coll in &others {
                    if let Some(len) = stored_length(v, coll, r).await? {
                        found = Some((k.clone(), coll.clone(), len));
                        break 'search;
                    }
                }
            }
            let name = c.get_str("name").unwrap_or_default();
            match found {
                None => {
                    return Ok(Verdict::fail(
                        Text::new(
                            format!("{name}'s avatar ({}) is nowhere: no field of the contact references a document or GridFS file that holds it", crate::fmt::bytes(want as f64)),
                            format!("{name} 的头像（{}）找不到了：联系人没有任何字段引用保存它的文档或 GridFS 文件", crate::fmt::bytes(want as f64)),
                        ),
                        1,
                    ));
                }
                Some((field, coll, len)) if len != want => {
                    return Ok(Verdict::fail(
                        Text::new(
                            format!("{name}'s avatar, referenced by {field} in {coll}, holds {} of its {} bytes", group(len), group(want)),
                            format!("{name} 的头像（通过 {field} 引用，在 {coll} 中）只有 {} 字节，原有 {} 字节", group(len), group(want)),
                        ),
                        1,
                    ));
                }
                Some(_) => bytes += want,
            }
        }
        Ok(Verdict::Pass(vec![Text::new(
            format!("the {} avatars ({} bytes) are out of {CONTACTS}, each referenced by its contact and whole", with.len(), group(bytes)),
            format!("{} 个头像（{} 字节）已移出 {CONTACTS}，每个都由其联系人引用，且完整无缺", with.len(), group(bytes)),
        )]))
    })
}
