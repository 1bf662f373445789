//! `unused-index`: an index no operation used for at least a week, one
//! that reads only fields no document of the collection has, or one whose
//! leading key no document has (Atlas: 7 days). What absence means for
//! each kind of index is `source::index`'s; absence counts only when the
//! whole collection was checked (a server query, a whole file, every
//! document profiled), never on a sample alone.
//!
//! A plain index leads with its first key: with that field absent from
//! every document, every entry sits under `null`, so no query on the
//! field (nor any sort by the index) finds anything through it, while
//! every write of its other fields still updates it. A sparse index whose
//! fields are all absent holds no entry at all: it costs nothing, and is
//! said to, never dropped.

use serde::Serialize;

use crate::rules::context::SCOPE_COLLECTION;
use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::source::index::{
    absence, present_paths, Absence, CheckMethod, IfAbsent, KeyPart, PresenceCheck, Reads,
};
use crate::source::{CollectionMeta, IndexInfo, IndexUsage};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "unused-index",
    title: "Index that is not used",
    explanation: (
        "An index nobody uses still takes memory and is updated on every write. Counters restart when the server restarts, so check every member of a replica set before dropping; an index that reads only fields no document of the collection has is often a leftover of an old schema (or a typo in the field name). Text, wildcard, geospatial, hashed, unique, partial and hidden indexes are never judged by absent fields, and a TTL index on an absent field only means nothing expires.",
        "没人使用的索引仍然占用内存，并在每次写入时被更新。计数器会在服务器重启后清零，所以删除前要检查副本集的每个成员；只读取集合中没有任何文档包含的字段的索引，往往是旧模式留下的（或者字段名拼错了）。文本、通配符、地理空间、哈希、唯一、部分和隐藏索引从不因字段缺失而被判定，TTL 索引的字段缺失只说明没有文档会过期。",
    ),
    source: "MongoDB Atlas performance advisor (unused indexes, 7 days); seeds/002 (index size uses RAM)",
    check: Check::Collection(check, Basis::Metadata),
    needs: Everything,
    limits: {
        /// days of index statistics needed to call an index unused
        min_days: 7.0,
    },
}

/// The first key of a plain-led index, when it is a field of its own (an
/// ascending or descending part): the field every query through the index
/// starts from.
fn leading_field(i: &IndexInfo) -> Option<&str> {
    let (field, part) = i.parts().next()?;
    matches!(part, KeyPart::Ascending | KeyPart::Descending).then_some(field)
}

/// The leading key an index needs checked beyond the sample: a plain-led
/// index of a kind absence can condemn, unused by `$indexStats`, whose
/// leading field none of the sampled documents has while another field it
/// reads is there (with every field absent, [`absence`] judges it).
pub fn leading_key_to_check(
    i: &IndexInfo,
    meta: &CollectionMeta,
    present: &std::collections::BTreeSet<String>,
    sampled: u64,
    usage: Option<&IndexUsage>,
) -> Option<String> {
    if sampled == 0 || usage.is_some_and(|u| u.ops > 0) || i.key.len() < 2 {
        return None;
    }
    let lead = leading_field(i)?;
    if i.if_absent(&meta.layout()) != IfAbsent::IndexesNothing {
        return None;
    }
    let only = |f: &str| Reads {
        fields: vec![f.to_owned()],
        ..Reads::default()
    };
    let lead_seen = only(lead).found_in(present);
    let others_seen = i.reads().found_in(present);
    (!lead_seen && others_seen).then(|| lead.to_owned())
}

/// The whole-collection check that found `i`'s leading key absent, if one
/// did.
fn leading_key_absent<'m>(
    i: &IndexInfo,
    meta: &'m CollectionMeta,
    present: &std::collections::BTreeSet<String>,
    sampled: u64,
    usage: Option<&IndexUsage>,
) -> Option<&'m PresenceCheck> {
    let lead = leading_key_to_check(i, meta, present, sampled, usage)?;
    meta.presence_checks
        .iter()
        .find(|c| c.paths.len() == 1 && c.paths[0] == lead && !c.found)
}

/// A field the documents hold whose name is the absent `field`'s without
/// an id suffix or with different case and separators (`chatId` beside
/// `chat`, `user_id` beside `userId`): likely what the writer uses now.
fn written_instead(field: &str, present: &std::collections::BTreeSet<String>) -> Option<String> {
    let (parent, name) = match field.rsplit_once('.') {
        Some((p, n)) => (Some(p), n),
        None => (None, field),
    };
    let norm = |n: &str| -> String {
        let lower: String = n
            .chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect();
        lower
            .strip_suffix("id")
            .filter(|s| !s.is_empty())
            .map_or(lower.clone(), str::to_owned)
    };
    let want = norm(name);
    present
        .iter()
        .filter(|p| p.as_str() != field)
        .find(|p| {
            let (pp, pn) = match p.rsplit_once('.') {
                Some((a, b)) => (Some(a), b),
                None => (None, p.as_str()),
            };
            pp == parent && norm(pn) == want
        })
        .cloned()
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_days = t.unused_index.min_days;
    let present = present_paths(ctx.fields());
    let mut out = Vec::new();
    for i in ctx.data.indexes {
        if i.name == "_id_" {
            continue;
        }
        let read = i.fields_read();
        let Some(first) = read.first().or(i.key.keys().next()) else {
            continue;
        };
        // A shape whose plan used the index: never unused.
        let used_by = shapes_using(ctx, i);
        if used_by > 0 {
            continue;
        }
        let usage = ctx
            .index_usage
            .and_then(|u| u.iter().find(|x| x.name == i.name));
        let idle_days = usage
            .and_then(|u| (u.ops == 0).then_some(u.since).flatten())
            .map(|s| (ctx.now - s) / 86_400.0);
        // Absent fields condemn an index only when its kind makes absence
        // meaningful and the whole collection, not only the sample, lacks them.
        let verdict = absence(i, ctx.data.meta, &present, ctx.sampled(), usage);
        let leading = leading_key_absent(i, ctx.data.meta, &present, ctx.sampled(), usage);
        let (why, check) = if let Absence::Absent { effect, check } = &verdict {
            let why = if *effect == IfAbsent::NothingExpires {
                Why::Ttl
            } else if i.sparse {
                Why::EmptySparse
            } else {
                Why::Absent
            };
            (why, Some(check))
        } else if let Some(check) = leading {
            (Why::Lead, Some(check))
        } else if let Some(d) = idle_days.filter(|d| *d >= min_days && i.idle_means_unused()) {
            (Why::Idle(d), None)
        } else {
            continue;
        };
        let threshold = match check {
            Some(check) => Judged::Absent(AbsentFrom::new(why, check)),
            None => Judged::Crossed(Crossed::of(t, Key::min_days)),
        };
        let lead = (why == Why::Lead).then(|| check.map(|c| c.paths[0].as_str())).flatten();
        let evidence = Unused {
            index: i,
            usage,
            sampled: ctx.sampled(),
            threshold,
            absence: check.map(|check| Absent {
                fields: &check.paths,
                measured_over: SCOPE_COLLECTION,
                method: check.method,
                sampled: ctx.sampled(),
                in_sample: 0,
                leading_key_only: why == Why::Lead,
                check,
            }),
            written_instead: lead.and_then(|l| written_instead(l, &present)),
            workload: workload(ctx),
            why,
        };
        let path = lead.unwrap_or(first).to_owned();
        let remedy = evidence.remedy(lead);
        let severity = why.severity();
        out.push(Finding::new(RULE, severity, ctx.ns(), Some(path), &evidence, lang, remedy));
    }
    out
}

/// The workload's query shapes, none of which used the index, when there
/// are any.
fn workload(ctx: &CollectionCtx<'_>) -> Option<Workload> {
    let w = ctx.workload.as_ref().filter(|w| !w.shapes.is_empty())?;
    Some(Workload {
        shapes: w.shapes.len(),
        runs: w.shapes.iter().map(|(_, s)| s.count).sum(),
        shapes_using_it: 0,
    })
}

/// Why an index is reported.
#[derive(Clone, Copy, PartialEq)]
enum Why {
    /// Every field it reads is absent from the whole collection: drop it
    /// (the script checks the absence again first).
    Absent,
    /// Its leading key is absent from the whole collection (perhaps
    /// written under another name): drop it.
    Lead,
    /// A TTL index on an absent field, which expires nothing: check, never
    /// drop.
    Ttl,
    /// A sparse index on absent fields holds no entry: costs nothing, said
    /// so.
    EmptySparse,
    /// It served no operation in this many days (`$indexStats`): drop it.
    Idle(f64),
}

impl Why {
    fn severity(self) -> Severity {
        match self {
            Why::Absent | Why::Lead => Severity::Warning,
            Why::Ttl | Why::EmptySparse | Why::Idle(_) => Severity::Info,
        }
    }
}

/// What `unused-index` found of one index.
#[derive(Serialize)]
struct Unused<'a> {
    index: &'a IndexInfo,
    usage: Option<&'a IndexUsage>,
    sampled: u64,
    threshold: Judged<'a>,
    /// How its fields were found absent from the whole collection.
    #[serde(skip_serializing_if = "Option::is_none")]
    absence: Option<Absent<'a>>,
    /// A field the documents hold in place of an absent leading key.
    #[serde(skip_serializing_if = "Option::is_none")]
    written_instead: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    workload: Option<Workload>,
    #[serde(skip)]
    why: Why,
}

/// What the index was judged against: days of idle statistics, or a
/// field absent from the whole collection, with the check that found it.
#[derive(Serialize)]
#[serde(untagged)]
enum Judged<'a> {
    Crossed(Crossed),
    Absent(AbsentFrom<'a>),
}

/// The test an index failed by its absent fields, and the check.
#[derive(Serialize)]
struct AbsentFrom<'a> {
    name: &'static str,
    value: &'static str,
    check: &'a PresenceCheck,
}

impl<'a> AbsentFrom<'a> {
    fn new(why: Why, check: &'a PresenceCheck) -> AbsentFrom<'a> {
        let (name, value) = match why {
            Why::Lead => (
                "unused-index.absent-leading-key",
                "the index's leading key is absent from the whole collection",
            ),
            Why::EmptySparse => (
                "unused-index.absent-field",
                "every field the sparse index reads is absent from the whole collection: it holds no entry",
            ),
            _ => (
                "unused-index.absent-field",
                "every field the index reads is absent from the whole collection",
            ),
        };
        AbsentFrom { name, value, check }
    }
}

/// How an index's fields were found absent: over the whole collection
/// (the check's method), with the sample's size beside it.
#[derive(Serialize)]
struct Absent<'a> {
    fields: &'a [String],
    measured_over: &'static str,
    method: CheckMethod,
    sampled: u64,
    in_sample: u64,
    leading_key_only: bool,
    #[serde(skip)]
    check: &'a PresenceCheck,
}

/// The workload's query shapes and their runs; none used the index.
#[derive(Serialize)]
struct Workload {
    shapes: usize,
    runs: u64,
    shapes_using_it: u64,
}

impl Unused<'_> {
    /// What to do with the index; `lead` is its absent leading key.
    fn remedy(&self, lead: Option<&str>) -> Remedy {
        let i = self.index;
        match (self.why, lead) {
            (Why::Ttl, _) => Remedy::TtlField { index: i.clone() },
            (Why::EmptySparse, _) => Remedy::EmptySparseIndex { index: i.clone() },
            (Why::Lead, Some(lead)) => Remedy::DropLeadAbsent {
                name: i.name.clone(),
                lead: lead.to_owned(),
                instead: self.written_instead.clone(),
            },
            _ => Remedy::DropIndex {
                name: i.name.clone(),
                covered_by: None,
            },
        }
    }

    /// The message for an index whose leading key is absent.
    fn lead_absent(&self, how: &str, lang: Lang) -> String {
        let (name, n) = (&self.index.name, group(self.sampled));
        let lead = self.absence.as_ref().map_or("", |a| a.fields[0].as_str());
        let hint = match &self.written_instead {
            Some(w) => lang.pick(
                format!("; the documents hold {w}, which may be the field the index was meant for"),
                format!("；文档中有 {w}，它可能才是这个索引本该使用的字段"),
            ),
            None => String::new(),
        };
        lang.pick(
            format!("index {name} leads with {lead}, which none of the {n} sampled documents has, nor any document of the collection ({how}): every entry sits under null, so no query on {lead} finds anything through it, while every write of its other fields still updates it{hint}"),
            format!("索引 {name} 以 {lead} 开头，抽样的 {n} 个文档中没有一个包含它，集合中也没有任何文档包含（{how}）：所有条目都在 null 之下，按 {lead} 的查询无法借助它找到任何文档，而写入它的其他字段时仍要更新它{hint}"),
        )
    }
}

impl Evidence for Unused<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (name, n) = (&self.index.name, group(self.sampled));
        let fields = self.index.fields_read().join(", ");
        let how = self
            .absence
            .as_ref()
            .map(|a| a.check.describe(lang))
            .unwrap_or_default();
        let mut message = match self.why {
            Why::Ttl => lang.pick(
                format!("TTL index {name} expires documents by {fields}, which no document of the collection has ({how}): nothing ever expires"),
                format!("TTL 索引 {name} 按 {fields} 让文档过期，而集合中没有任何文档包含该字段（{how}）：没有文档会过期"),
            ),
            Why::EmptySparse => lang.pick(
                format!("sparse index {name} reads only {fields}, which none of the {n} sampled documents has, nor any document of the collection ({how}): it holds no entry, so it costs nothing on writes and no space to speak of; it serves no query until documents have {fields}"),
                format!("稀疏索引 {name} 只读取 {fields}，抽样的 {n} 个文档中没有一个包含它，集合中也没有任何文档包含（{how}）：它不含任何条目，写入时没有开销，也几乎不占空间；在文档有了 {fields} 之前它不服务任何查询"),
            ),
            Why::Absent => lang.pick(
                format!("index {name} reads only {fields}, which none of the {n} sampled documents has, nor any document of the collection ({how})"),
                format!("索引 {name} 只读取 {fields}，抽样的 {n} 个文档中没有一个包含它，集合中也没有任何文档包含（{how}）"),
            ),
            Why::Lead => self.lead_absent(&how, lang),
            Why::Idle(d) => lang.pick(
                format!("index {name} has served no operation in {d:.0} days ($indexStats)"),
                format!("索引 {name} 在 {d:.0} 天内没有被任何操作使用（$indexStats）"),
            ),
        };
        if let Some(w) = &self.workload {
            let (shapes, runs) = (group(w.shapes as u64), group(w.runs));
            message.push_str(&lang.pick(
                format!("; none of the {shapes} query shapes of the workload ({runs} runs) used it"),
                format!("；工作负载中的 {shapes} 种查询形状（{runs} 次运行）都没有用到它"),
            ));
        }
        message
    }
}

/// `{ a: 1, b: -1 }`: an index key as `planSummary` writes it.
fn plan_key(i: &IndexInfo) -> String {
    let parts: Vec<String> = i
        .key
        .iter()
        .map(|(k, v)| match v {
            serde_json::Value::Number(n) => match n.as_f64() {
                Some(f) if f.fract() == 0.0 => format!("{k}: {}", f as i64),
                _ => format!("{k}: {n}"),
            },
            serde_json::Value::String(s) => format!("{k}: \"{s}\""),
            other => format!("{k}: {other}"),
        })
        .collect();
    format!("{{ {} }}", parts.join(", "))
}

/// Runs of the workload's shapes of this collection whose plan used `i`.
pub fn shapes_using(ctx: &CollectionCtx<'_>, i: &IndexInfo) -> u64 {
    let Some(w) = &ctx.workload else { return 0 };
    let key = plan_key(i);
    w.shapes
        .iter()
        .flat_map(|(_, s)| &s.plans)
        .filter(|(p, _)| p.contains(&key))
        .map(|(_, n)| n)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing;
    use bson::doc;
    use serde_json::json;

    fn idx(spec: &bson::Document) -> IndexInfo {
        IndexInfo::from_spec(spec).expect("index")
    }

    /// Messages written with `chat` while an index leads with `chatId`.
    fn messages(indexes: &[IndexInfo], checks: &[(&[&str], bool)]) -> testing::Collection {
        let docs: Vec<bson::Document> = (0..30)
            .map(|i| doc! {"_id": i, "chat": i % 3, "createdAt": bson::DateTime::from_millis(i64::from(i)), "text": "hi"})
            .collect();
        let mut r = testing::report("chat.messages", &docs);
        r.indexes = indexes.to_vec();
        r.meta.indexes = indexes.to_vec();
        r.meta.presence_checks = checks
            .iter()
            .map(|(paths, found)| PresenceCheck {
                paths: paths.iter().map(|p| (*p).to_owned()).collect(),
                found: *found,
                method: CheckMethod::ServerQuery,
            })
            .collect();
        r
    }

    fn run(r: &testing::Collection) -> Vec<Finding> {
        check(&testing::ctx(r, &[]), &Thresholds::default(), Lang::En)
    }

    fn chat_id() -> IndexInfo {
        idx(&doc! {"name": "chatId_1_createdAt_-1", "key": {"chatId": 1, "createdAt": -1}})
    }

    #[test]
    fn a_leading_key_absent_from_the_whole_collection_is_a_warning() {
        let r = messages(&[chat_id()], &[(&["chatId"], false)]);
        let f = run(&r);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::Warning);
        assert_eq!(f[0].path.as_deref(), Some("chatId"));
        let a = &f[0].evidence["absence"];
        assert_eq!(a["measured_over"], json!("collection"));
        assert_eq!(a["method"], json!("server-query"));
        assert_eq!(a["leading_key_only"], json!(true));
        assert_eq!(a["sampled"], json!(30));
        assert_eq!(f[0].evidence["written_instead"], json!("chat"));
        assert!(
            f[0].message.contains("checked on the server"),
            "{}",
            f[0].message
        );
        assert!(
            matches!(&f[0].remedy, Remedy::DropLeadAbsent { name, lead, instead: Some(w) } if name == "chatId_1_createdAt_-1" && lead == "chatId" && w == "chat")
        );
    }

    #[test]
    fn a_sample_alone_or_a_document_found_beyond_it_condemns_nothing() {
        // Not checked beyond the sample: no verdict.
        assert!(run(&messages(&[chat_id()], &[])).is_empty());
        // The server found a document with chatId.
        assert!(run(&messages(&[chat_id()], &[(&["chatId"], true)])).is_empty());
        // A check of another group says nothing about chatId alone.
        assert!(run(&messages(
            &[chat_id()],
            &[(&["chatId", "createdAt"], false)]
        ))
        .is_empty());
    }

    #[test]
    fn the_leading_key_is_checked_only_where_absence_can_condemn() {
        let r = messages(&[], &[]);
        let present = present_paths(&r.fields);
        let ask = |i: &IndexInfo| leading_key_to_check(i, &r.meta, &present, 30, None);
        assert_eq!(ask(&chat_id()).as_deref(), Some("chatId"));
        // Led by a field the sample has, or every field absent (absence judges it).
        assert_eq!(
            ask(&idx(&doc! {"name": "a", "key": {"chat": 1, "nope": 1}})),
            None
        );
        assert_eq!(
            ask(&idx(&doc! {"name": "b", "key": {"nope": 1, "gone": 1}})),
            None
        );
        // Kinds never dropped for an absent field.
        for spec in [
            doc! {"name": "u", "key": {"chatId": 1, "createdAt": -1}, "unique": true},
            doc! {"name": "p", "key": {"chatId": 1, "createdAt": -1}, "partialFilterExpression": {"chatId": {"$exists": true}}},
            doc! {"name": "t", "key": {"chatId": "text", "createdAt": 1}},
            doc! {"name": "g", "key": {"chatId": "2dsphere", "createdAt": 1}},
            doc! {"name": "h", "key": {"chatId": "hashed", "createdAt": 1}},
        ] {
            assert_eq!(ask(&idx(&spec)), None, "{spec}");
        }
        // Used by some operation: never.
        let used = IndexUsage {
            name: "chatId_1_createdAt_-1".into(),
            ops: 3,
            since: None,
        };
        assert_eq!(
            leading_key_to_check(&chat_id(), &r.meta, &present, 30, Some(&used)),
            None
        );
        // A unique one with its check made still gives no finding.
        let u = idx(&doc! {"name": "u", "key": {"chatId": 1, "createdAt": -1}, "unique": true});
        assert!(run(&messages(&[u], &[(&["chatId"], false)])).is_empty());
    }

    #[test]
    fn a_sparse_index_with_no_entry_is_said_to_cost_nothing() {
        let sparse =
            idx(&doc! {"name": "key_1", "key": {"encryptionPublicKey": 1}, "sparse": true});
        let f = run(&messages(&[sparse], &[(&["encryptionPublicKey"], false)]));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::Info);
        assert!(f[0].message.contains("costs nothing"), "{}", f[0].message);
        assert!(matches!(f[0].remedy, Remedy::EmptySparseIndex { .. }));
        // The same index, not sparse: a warning to drop it.
        let plain = idx(&doc! {"name": "key_1", "key": {"encryptionPublicKey": 1}});
        let f = run(&messages(&[plain], &[(&["encryptionPublicKey"], false)]));
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(matches!(f[0].remedy, Remedy::DropIndex { .. }));
    }

    #[test]
    fn a_renamed_field_is_found_by_its_stem() {
        let present: std::collections::BTreeSet<String> =
            ["chat", "user.name", "user_id", "createdAt"]
                .iter()
                .map(|s| (*s).to_owned())
                .collect();
        assert_eq!(written_instead("chatId", &present).as_deref(), Some("chat"));
        assert_eq!(
            written_instead("userId", &present).as_deref(),
            Some("user_id")
        );
        assert_eq!(written_instead("user.fullName", &present), None);
        assert_eq!(
            written_instead("created_at", &present).as_deref(),
            Some("createdAt")
        );
        assert_eq!(written_instead("id", &present), None);
    }
}
