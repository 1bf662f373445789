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

use serde_json::json;

use crate::rules::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::source::index::{
    absence, present_paths, Absence, IfAbsent, KeyPart, PresenceCheck, Reads,
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

/// How an index's fields were found absent: over the whole collection
/// (`check`'s method), with the sample's size beside it.
fn absence_evidence(check: &PresenceCheck, sampled: u64, leading_only: bool) -> serde_json::Value {
    json!({
        "fields": check.paths,
        "measured_over": crate::rules::context::SCOPE_COLLECTION,
        "method": check.method,
        "sampled": sampled,
        "in_sample": 0,
        "leading_key_only": leading_only,
    })
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
        let fields = read.join(", ");
        let mut extra: Vec<(&str, serde_json::Value)> = Vec::new();
        let (severity, message, threshold, kind) = if let Absence::Absent { effect, check } =
            &verdict
        {
            let how = check.describe(lang);
            extra.push(("absence", absence_evidence(check, ctx.sampled(), false)));
            if *effect == IfAbsent::NothingExpires {
                (
                    Severity::Info,
                    lang.pick(
                        format!("TTL index {} expires documents by {fields}, which no document of the collection has ({how}): nothing ever expires", i.name),
                        format!("TTL 索引 {} 按 {fields} 让文档过期，而集合中没有任何文档包含该字段（{how}）：没有文档会过期", i.name),
                    ),
                    json!({"name": "unused-index.absent-field", "value": "every field the index reads is absent from the whole collection", "check": check}),
                    Kind::Ttl,
                )
            } else if i.sparse {
                (
                    Severity::Info,
                    lang.pick(
                        format!("sparse index {} reads only {fields}, which none of the {} sampled documents has, nor any document of the collection ({how}): it holds no entry, so it costs nothing on writes and no space to speak of; it serves no query until documents have {fields}", i.name, group(ctx.sampled())),
                        format!("稀疏索引 {} 只读取 {fields}，抽样的 {} 个文档中没有一个包含它，集合中也没有任何文档包含（{how}）：它不含任何条目，写入时没有开销，也几乎不占空间；在文档有了 {fields} 之前它不服务任何查询", i.name, group(ctx.sampled())),
                    ),
                    json!({"name": "unused-index.absent-field", "value": "every field the sparse index reads is absent from the whole collection: it holds no entry", "check": check}),
                    Kind::EmptySparse,
                )
            } else {
                (
                    Severity::Warning,
                    lang.pick(
                        format!("index {} reads only {fields}, which none of the {} sampled documents has, nor any document of the collection ({how})", i.name, group(ctx.sampled())),
                        format!("索引 {} 只读取 {fields}，抽样的 {} 个文档中没有一个包含它，集合中也没有任何文档包含（{how}）", i.name, group(ctx.sampled())),
                    ),
                    json!({"name": "unused-index.absent-field", "value": "every field the index reads is absent from the whole collection", "check": check}),
                    Kind::Drop,
                )
            }
        } else if let Some(check) = leading {
            let how = check.describe(lang);
            let lead = &check.paths[0];
            extra.push(("absence", absence_evidence(check, ctx.sampled(), true)));
            let instead = written_instead(lead, &present);
            let hint = match &instead {
                Some(w) => {
                    extra.push(("written_instead", json!(w)));
                    lang.pick(
                        format!("; the documents hold {w}, which may be the field the index was meant for"),
                        format!("；文档中有 {w}，它可能才是这个索引本该使用的字段"),
                    )
                }
                None => String::new(),
            };
            (
                Severity::Warning,
                lang.pick(
                    format!("index {} leads with {lead}, which none of the {} sampled documents has, nor any document of the collection ({how}): every entry sits under null, so no query on {lead} finds anything through it, while every write of its other fields still updates it{hint}", i.name, group(ctx.sampled())),
                    format!("索引 {} 以 {lead} 开头，抽样的 {} 个文档中没有一个包含它，集合中也没有任何文档包含（{how}）：所有条目都在 null 之下，按 {lead} 的查询无法借助它找到任何文档，而写入它的其他字段时仍要更新它{hint}", i.name, group(ctx.sampled())),
                ),
                json!({"name": "unused-index.absent-leading-key", "value": "the index's leading key is absent from the whole collection", "check": check}),
                Kind::DropLead {
                    lead: lead.clone(),
                    instead,
                },
            )
        } else if let Some(d) = idle_days.filter(|d| *d >= min_days && i.idle_means_unused()) {
            (
                Severity::Info,
                lang.pick(
                    format!(
                        "index {} has served no operation in {d:.0} days ($indexStats)",
                        i.name
                    ),
                    format!(
                        "索引 {} 在 {d:.0} 天内没有被任何操作使用（$indexStats）",
                        i.name
                    ),
                ),
                crossed(t, Key::min_days),
                Kind::Drop,
            )
        } else {
            continue;
        };
        let mut ev = evidence([
            ("index", json!(i)),
            ("usage", json!(usage)),
            ("sampled", json!(ctx.sampled())),
            ("threshold", threshold),
        ]);
        for (k, v) in extra {
            ev.insert(k.to_owned(), v);
        }
        let mut message = message;
        if let Some(w) = ctx.workload.as_ref().filter(|w| !w.shapes.is_empty()) {
            let runs: u64 = w.shapes.iter().map(|(_, s)| s.count).sum();
            ev.insert(
                "workload".into(),
                json!({"shapes": w.shapes.len(), "runs": runs, "shapes_using_it": 0}),
            );
            message.push_str(&lang.pick(
                format!(
                    "; none of the {} query shapes of the workload ({} runs) used it",
                    group(w.shapes.len() as u64),
                    group(runs)
                ),
                format!(
                    "；工作负载中的 {} 种查询形状（{} 次运行）都没有用到它",
                    group(w.shapes.len() as u64),
                    group(runs)
                ),
            ));
        }
        let path = match (&verdict, leading) {
            (Absence::Absent { .. }, _) | (_, None) => first.clone(),
            (_, Some(c)) => c.paths[0].clone(),
        };
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(path),
            message,
            evidence: ev,
            remedy: match kind {
                Kind::Ttl => Remedy::TtlField { index: i.clone() },
                Kind::EmptySparse => Remedy::EmptySparseIndex { index: i.clone() },
                Kind::Drop => Remedy::DropIndex {
                    name: i.name.clone(),
                    covered_by: None,
                },
                Kind::DropLead { lead, instead } => Remedy::DropLeadAbsent {
                    name: i.name.clone(),
                    lead,
                    instead,
                },
            },
        });
    }
    out
}

/// What a finding proposes for its index.
#[derive(Clone, PartialEq, Eq)]
enum Kind {
    /// Drop it (the script checks the absence again first).
    Drop,
    /// Drop it: its leading key is absent (perhaps written under
    /// another name).
    DropLead {
        lead: String,
        instead: Option<String>,
    },
    /// A TTL index that expires nothing: check, never drop.
    Ttl,
    /// A sparse index with no entry: costs nothing, said so.
    EmptySparse,
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
    use crate::source::index::CheckMethod;
    use bson::doc;

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
