//! Exercises of the lesson `when-to-reference`: a large part (avatars) and
//! a growing part (comments) moved out of their parents.

use bson::{doc, Bson, Document};

use super::parts::{ChildMove, HINT_DATA, HINT_DESIGN};
use super::{documents_kept, ids, seeded, Checking, Exercise, Tally, Verdict, View};
use crate::fmt::{bytes, group};
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[
    Exercise {
        id: "when-to-reference/avatars-out",
        lesson: "when-to-reference",
        datasets: &["contacts"],
        task: (
            "Four contacts of bad_contacts embed a 5–9.5 MB avatar, which every read of the contact drags along although one query in ten shows it. Move the avatars out of the contacts so that a contact stays small, keeping each avatar whole and reachable from its contact.",
            "bad_contacts 中有四个联系人内嵌了 5–9.5 MB 的头像，每次读取联系人都要把它带上，而十次查询中只有一次会显示头像。把头像移出联系人文档，让联系人保持小巧，同时每个头像都完整保留，并能从对应的联系人找到。",
        ),
        hints: &[
            (
                "bloated-document names the path that carries the bytes. Large and rarely read: the lesson says to reference it. Deleting or shrinking the avatars is not the fix.",
                "bloated-document 指出了承载这些字节的路径。又大又很少读取：课程说应该引用它。删除或缩小头像都不是正确的修改。",
            ),
            (
                "Store each avatar on its own — in GridFS (a bucket's files and chunks) or in a collection of its own, one document per avatar — keep its _id in the contact (avatar_id), then remove the avatar field.",
                "把每个头像单独存放——放进 GridFS（一个 bucket 的 files 和 chunks），或放进独立的集合，每个头像一个文档——在联系人中保存它的 _id（avatar_id），然后删除 avatar 字段。",
            ),
            (
                "In mongosh: db.bad_contacts.find({avatar: {$exists: true}}).forEach(c => { const id = ObjectId(); db.bad_avatars.insertOne({_id: id, data: c.avatar}); db.bad_contacts.updateOne({_id: c._id}, {$set: {avatar_id: id}, $unset: {avatar: 1}}) })",
                "在 mongosh 中：db.bad_contacts.find({avatar: {$exists: true}}).forEach(c => { const id = ObjectId(); db.bad_avatars.insertOne({_id: id, data: c.avatar}); db.bad_contacts.updateOne({_id: c._id}, {$set: {avatar_id: id}, $unset: {avatar: 1}}) })",
            ),
        ],
        check: avatars_out,
    },
    Exercise {
        id: "when-to-reference/comments-out",
        lesson: "when-to-reference",
        datasets: &["blog"],
        task: (
            "The posts of bad_posts embed their comments; they grow every day and one viral post is close to the 16 MiB limit. Move the comments out so that a post stops growing, without losing a comment, and so that a post's comments are still found quickly.",
            "bad_posts 的帖子内嵌了评论；它们每天都在增长，一篇爆款帖子已经接近 16 MiB 上限。把评论移出去，让帖子不再增长，一条评论也不能丢，而且仍然能快速找到一篇帖子的评论。",
        ),
        hints: &[
            (
                "Comments grow without a cap: the third reason the lesson gives for a reference. Which design keeps no array in the post?",
                "评论会无上限地增长：这是课程给出的第三个使用引用的理由。哪种设计在帖子里不放数组？",
            ),
            (
                "Parent reference: give every comment a document in a new collection (bad_comments, say) holding the post's _id (post_id), author, text and time; then remove the comments array from the posts. The viral post alone has tens of thousands: insert them in batches.",
                "父引用：在一个新集合（例如 bad_comments）中为每条评论建立文档，保存帖子的 _id（post_id）、author、text 和时间；然后从帖子中删除 comments 数组。光是那篇爆款帖子就有几万条评论：分批插入。",
            ),
            (
                "In mongosh: db.bad_posts.find().forEach(p => db.bad_comments.insertMany(p.comments.map(c => ({post_id: p._id, author: c.author, text: c.text, at: c.at})))); db.bad_posts.updateMany({}, {$unset: {comments: 1}}); db.bad_comments.createIndex({post_id: 1, at: -1})",
                "在 mongosh 中：db.bad_posts.find().forEach(p => db.bad_comments.insertMany(p.comments.map(c => ({post_id: p._id, author: c.author, text: c.text, at: c.at})))); db.bad_posts.updateMany({}, {$unset: {comments: 1}}); db.bad_comments.createIndex({post_id: 1, at: -1})",
            ),
        ],
        check: comments_out,
    },
];

const COMMENTS: ChildMove = ChildMove {
    dataset: "blog",
    parent: "bad_posts",
    array: "comments",
    rule: "unbounded-array",
    keys: &["author", "text", "at"],
    noun: ("comments", "评论"),
    index: true,
};

fn comments_out(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let mut t = Tally::default();
        let moved = match COMMENTS.check(v).await? {
            Ok(m) => Some(m),
            Err(fail) => {
                t.add(Some(fail));
                None
            }
        };
        t.rule(v, "blog", "document-near-limit", 0);
        t.rule(v, "blog", "bloated-document", 0);
        Ok(t.verdict(moved.map(|m| COMMENTS.confirmed(&m)).unwrap_or_default()))
    })
}

/// The bytes of the first binary value of a document, if any.
fn binary_len(d: &Document) -> Option<usize> {
    d.values().find_map(|v| match v {
        Bson::Binary(b) => Some(b.bytes.len()),
        _ => None,
    })
}

/// Whether the avatar of `len` bytes is stored whole under `id` in some
/// collection of the data set other than the contacts: a GridFS file
/// (`….files` with its chunks) or a document holding the bytes.
async fn stored(v: &View, id: &Bson, len: usize) -> Result<bool, crate::source::SourceError> {
    let ds = "contacts";
    let names: Vec<String> = v
        .collections(ds)
        .iter()
        .map(|c| c.meta.name.clone())
        .filter(|n| !n.starts_with("good_") && n != "bad_contacts" && n != "bad_groups")
        .collect();
    for name in &names {
        if let Some(bucket) = name.strip_suffix(".files") {
            let files = v.find(ds, name, doc! {"_id": id.clone()}, 1).await?;
            let Some(f) = files.first() else { continue };
            let length = match f.get("length") {
                Some(Bson::Int64(n)) => usize::try_from(*n).unwrap_or(0),
                Some(Bson::Int32(n)) => usize::try_from(*n).unwrap_or(0),
                _ => 0,
            };
            let chunk = match f.get("chunkSize") {
                Some(Bson::Int32(n)) => usize::try_from(*n).unwrap_or(1).max(1),
                Some(Bson::Int64(n)) => usize::try_from(*n).unwrap_or(1).max(1),
                _ => 255 * 1024,
            };
            let chunks = v
                .count(
                    ds,
                    &format!("{bucket}.chunks"),
                    doc! {"files_id": id.clone()},
                )
                .await?;
            if length == len && chunks as usize == len.div_ceil(chunk) {
                return Ok(true);
            }
        } else if !name.ends_with(".chunks") {
            let docs = v.find(ds, name, doc! {"_id": id.clone()}, 1).await?;
            if docs.first().and_then(binary_len) == Some(len) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

fn avatars_out(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let ds = "contacts";
        let mut t = Tally::default();
        t.rule(v, ds, "bloated-document", 0);
        t.add(documents_kept(v, ds, "bad_contacts", 1).await?);
        let with_avatar: Vec<(Bson, usize)> = seeded(ds, "bad_contacts")
            .iter()
            .filter_map(|c| {
                let Some(Bson::Binary(b)) = c.get("avatar") else {
                    return None;
                };
                Some((c.get("_id")?.clone(), b.bytes.len()))
            })
            .collect();
        let still = v
            .count(ds, "bad_contacts", doc! {"avatar": {"$exists": true}})
            .await?;
        let group_ids = ids(&seeded(ds, "bad_groups"));
        let mut lost = Vec::new();
        for (cid, len) in &with_avatar {
            let now = v
                .find_fields(
                    ds,
                    "bad_contacts",
                    doc! {"_id": cid.clone()},
                    doc! {"avatar": 0},
                    1,
                )
                .await?;
            // The contact's own _id (an avatar stored under the same id)
            // and every id it holds besides its group's.
            let mut candidates = vec![cid.clone()];
            if let Some(c) = now.first() {
                for (k, val) in c {
                    let nested: Vec<&Bson> = match val {
                        Bson::Document(d) => d.values().collect(),
                        other => vec![other],
                    };
                    for b in nested {
                        if k != "_id" && matches!(b, Bson::ObjectId(_)) && !group_ids.contains(b) {
                            candidates.push(b.clone());
                        }
                    }
                }
            }
            let mut found = false;
            for id in &candidates {
                if stored(v, id, *len).await? {
                    found = true;
                    break;
                }
            }
            if !found {
                lost.push(*len);
            }
        }
        let total = with_avatar.len() as u64;
        if !lost.is_empty() {
            let sizes = lost
                .iter()
                .map(|l| bytes(*l as f64))
                .collect::<Vec<_>>()
                .join(", ");
            t.fail(
                Text::new(
                    format!(
                        "{} of the {} avatars seed embedded ({sizes}) are not found whole through a reference in their contact ({} still embedded)",
                        group(lost.len() as u64),
                        group(total),
                        group(still)
                    ),
                    format!(
                        "seed 内嵌的 {} 个头像中有 {} 个（{sizes}）无法通过联系人中的引用完整找到（仍内嵌的有 {} 个）",
                        group(total),
                        group(lost.len() as u64),
                        group(still)
                    ),
                ),
                if still > 0 { HINT_DESIGN } else { HINT_DATA },
            );
        } else if still > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} contacts still embed their avatar beside the stored copy",
                        group(still)
                    ),
                    format!(
                        "仍有 {} 个联系人在已单独存放的头像之外还内嵌着头像",
                        group(still)
                    ),
                ),
                1,
            );
        }
        if t.failed() {
            return Ok(t.verdict(Vec::new()));
        }
        Ok(Verdict::Pass(vec![
            Text::new(
                "bloated-document no longer fires on contacts",
                "bloated-document 不再在 contacts 上触发",
            ),
            Text::new(
                format!(
                    "all {} avatars are stored whole on their own and referenced from their contact",
                    group(total)
                ),
                format!("全部 {} 个头像都完整地单独存放，并由对应的联系人引用", group(total)),
            ),
        ]))
    })
}
