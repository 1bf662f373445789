//! Exercises of the lesson `two-way`.

use std::collections::BTreeMap;

use bson::{Bson, Document};

use super::parts::key;
use super::{documents_kept, Checking, Exercise, Tally, View};
use crate::fmt::group;
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "two-way/both-directions",
    lesson: "two-way",
    datasets: &["two_way"],
    task: (
        "People hold their task ids (bad_people.task_ids) and tasks their owner (bad_tasks.owner), but only one direction can use an index. Make both directions one indexed query, and make sure the two directions agree, without losing a task or either direction.",
        "person 保存了任务 id（bad_people.task_ids），task 保存了负责人（bad_tasks.owner），但只有一个方向能用上索引。让两个方向都只需一次带索引的查询，并确保两个方向一致，不能丢失任何任务，也不能丢掉任何一个方向。",
    ),
    hints: &[
        (
            "Which of the two queries — a person's tasks, a task's owner, or all the tasks of an owner — cannot use an index? docshape names the field. Removing a direction is not the fix: the lesson keeps both.",
            "两个查询中——某人的任务、某个任务的负责人、某个负责人的全部任务——哪一个用不上索引？docshape 指出了那个字段。去掉一个方向不是正确的修改：课程要求保留两个方向。",
        ),
        (
            "Index bad_tasks.owner. Then compare the directions: every task must appear in its owner's task_ids, and every id in a person's task_ids must be a task that person owns.",
            "为 bad_tasks.owner 建索引。然后比对两个方向：每个任务都必须出现在其负责人的 task_ids 中，每个人 task_ids 中的每个 id 都必须是这个人负责的任务。",
        ),
        (
            "In mongosh: db.bad_tasks.createIndex({owner: 1}). To reassign a task later, change both documents in one transaction: session.withTransaction(() => { tasks.updateOne({_id: t}, {$set: {owner: b}}); people.updateOne({_id: a}, {$pull: {task_ids: t}}); people.updateOne({_id: b}, {$push: {task_ids: t}}) })",
            "在 mongosh 中：db.bad_tasks.createIndex({owner: 1})。以后转交任务时，在一个事务中修改两个文档：session.withTransaction(() => { tasks.updateOne({_id: t}, {$set: {owner: b}}); people.updateOne({_id: a}, {$pull: {task_ids: t}}); people.updateOne({_id: b}, {$push: {task_ids: t}}) })",
        ),
    ],
    check: both_directions,
}];

fn both_directions(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let ds = "two_way";
        let mut t = Tally::default();
        t.rule(v, ds, "missing-reference-index", 0);
        t.add(documents_kept(v, ds, "bad_people", 1).await?);
        t.add(documents_kept(v, ds, "bad_tasks", 1).await?);
        let people = v.find(ds, "bad_people", Document::new(), 100_000).await?;
        let tasks = v.find(ds, "bad_tasks", Document::new(), 100_000).await?;
        let name_of: BTreeMap<String, String> = people
            .iter()
            .map(|p| {
                (
                    key(p.get("_id")),
                    p.get_str("name").unwrap_or("?").to_owned(),
                )
            })
            .collect();
        // Task → its owner, as the task says and as the people say.
        let owner_says: BTreeMap<String, String> = tasks
            .iter()
            .filter_map(|t| Some((key(t.get("_id")), key(Some(t.get("owner")?)))))
            .collect();
        let mut listed: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for p in &people {
            for id in p
                .get_array("task_ids")
                .map(|a| a.iter())
                .into_iter()
                .flatten()
            {
                listed
                    .entry(key(Some(id)))
                    .or_default()
                    .push(key(p.get("_id")));
            }
        }
        let without_owner = tasks.len() - owner_says.len();
        let unlisted = tasks
            .iter()
            .filter(|t| !listed.contains_key(&key(t.get("_id"))))
            .count();
        if without_owner > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of {} tasks no longer name their owner: the task → owner direction is gone",
                        group(without_owner as u64),
                        group(tasks.len() as u64)
                    ),
                    format!(
                        "{} 个任务中有 {} 个不再写明负责人：任务 → 负责人这个方向没有了",
                        group(tasks.len() as u64),
                        group(without_owner as u64)
                    ),
                ),
                0,
            );
        }
        if unlisted > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of {} tasks are in no person's task_ids: the person → tasks direction lost them",
                        group(unlisted as u64),
                        group(tasks.len() as u64)
                    ),
                    format!(
                        "{} 个任务中有 {} 个不在任何人的 task_ids 中：人 → 任务这个方向把它们丢了",
                        group(tasks.len() as u64),
                        group(unlisted as u64)
                    ),
                ),
                0,
            );
        }
        // Disagreements: a task listed under someone other than its owner.
        let mut disagree = Vec::new();
        for task in &tasks {
            let id = key(task.get("_id"));
            let (Some(owner), Some(under)) = (owner_says.get(&id), listed.get(&id)) else {
                continue;
            };
            if under.iter().any(|p| p != owner) || !under.contains(owner) {
                disagree.push((task, owner, under));
            }
        }
        if let Some((task, owner, under)) = disagree.first() {
            let name = |id: &String| name_of.get(id).cloned().unwrap_or_else(|| id.clone());
            let desc = task
                .get("description")
                .and_then(Bson::as_str)
                .unwrap_or("?");
            let lists = under.iter().map(name).collect::<Vec<_>>().join(", ");
            t.fail(
                Text::new(
                    format!(
                        "the two directions disagree (tasks: {}): \"{desc}\" is owned by {} but listed under {lists}",
                        group(disagree.len() as u64),
                        name(owner)
                    ),
                    format!(
                        "两个方向在 {} 个任务上不一致：“{desc}”的负责人是 {}，却列在 {lists} 名下",
                        group(disagree.len() as u64),
                        name(owner)
                    ),
                ),
                1,
            );
        }
        if !v.indexed(ds, "bad_tasks", "owner") {
            t.fail(
                Text::new(
                    "no index of bad_tasks starts with owner: listing an owner's tasks from the task side scans every task",
                    "bad_tasks 上没有以 owner 开头的索引：从任务一侧列出某人的任务要扫描全部任务",
                ),
                1,
            );
        }
        Ok(t.verdict(vec![
            Text::new(
                "missing-reference-index no longer fires on two_way",
                "missing-reference-index 不再在 two_way 上触发",
            ),
            Text::new(
                format!(
                    "all {} tasks name their owner (indexed) and sit in that owner's task_ids, and nowhere else",
                    group(tasks.len() as u64)
                ),
                format!(
                    "全部 {} 个任务都写明了负责人（有索引），并且只出现在该负责人的 task_ids 中",
                    group(tasks.len() as u64)
                ),
            ),
        ]))
    })
}
