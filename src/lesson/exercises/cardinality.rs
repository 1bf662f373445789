//! Exercises of the lesson `cardinality`: one per data set, each moving
//! the bad variant to the design its cardinality calls for.

use super::parts::ChildMove;
use super::{Checking, Exercise, Verdict, View};

pub const EXERCISES: &[Exercise] = &[Exercise {
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
}];

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
