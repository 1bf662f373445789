//! `denormalization-drift`: copied fields that no longer match their source
//! (seed 000: denormalize only read-mostly fields — a copy is not updated
//! atomically with its source; 003: extended reference).

use serde_json::json;

use crate::rules::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::relate::DriftKind;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "denormalization-drift",
    title: "Copied fields disagree with their source",
    explanation: (
        "A denormalized copy saves a join on every read, but it is not updated atomically with its source: every change to the source must also be written to each copy, and copies that were missed go stale. The seeds: denormalize only fields that are read far more often than they change, and weigh the update cost; an extended reference is a deliberate snapshot, which is fine only if stale values are acceptable.",
        "反范式的冗余副本让每次读取省去一次关联查询，但它不会与源数据原子地更新：源数据的每次修改都必须同时写入每一份副本，遗漏的副本就会过期。种子材料：只有读取远多于修改的字段才适合冗余，并且要权衡更新的代价；扩展引用是有意保存的快照，只有能接受旧值时才合适。",
    ),
    source: "seeds/000 (denormalization), seeds/001 (group data copied into contacts), seeds/003 (extended reference)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// share of checked copies that disagree for a warning
        warning_share: 0.01,
    },
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let warn = t.denormalization_drift.warning_share;
    let mut out = Vec::new();
    for d in &ctx.drift {
        if d.checked == 0 || d.disagree == 0 {
            continue;
        }
        let share = d.disagree as f64 / d.checked as f64;
        let snapshot = d.is_snapshot();
        // A snapshot is expected to keep its value at copy time: what it
        // says is for the reader's information, never a stale live copy.
        let severity = if share >= warn && !snapshot {
            Severity::Warning
        } else {
            Severity::Info
        };
        let between = d.kind == DriftKind::BetweenCopies;
        let example = d
            .examples
            .first()
            .map_or_else(String::new, |(r, f, copy, other)| {
                if between {
                    lang.pick(
                        format!("; e.g. {r}: {f} is {copy} in one copy but {other} in most"),
                        format!("；例如 {r}：一份副本中的 {f} 是 {copy}，而多数副本中是 {other}"),
                    )
                } else {
                    lang.pick(
                        format!(
                            "; e.g. {r}: {f} is {copy} here but {other} in {}",
                            d.source_ns
                        ),
                        format!(
                            "；例如 {r}：这里的 {f} 是 {copy}，而 {} 中是 {other}",
                            d.source_ns
                        ),
                    )
                }
            });
        let clock: Vec<&str> = d.snapshot.iter().map(|(f, _)| f.as_str()).collect();
        // Copies that name their source in another type than its key (an
        // ObjectId copied as its hex string) were matched as that key.
        let converted = match d.key_type {
            Some(ty) if d.identities_converted > 0 => lang.pick(
                format!(
                    " ({} of the copies name their source in another type than its key, read as {ty} to find it)",
                    group(d.identities_converted)
                ),
                format!(
                    "（其中 {} 份副本以不同于源文档键的类型记录来源，按 {ty} 读取后找到源文档）",
                    group(d.identities_converted)
                ),
            ),
            _ => String::new(),
        };
        let example = format!("{converted}{example}");
        let message = if snapshot {
            lang.pick(
                format!(
                    "{} holds snapshots of {}: {} of {} copies ({}) differ from it, and where {} differ the copy is always the older{example}",
                    d.holder,
                    d.source_ns,
                    group(d.disagree),
                    group(d.checked),
                    percent(share),
                    clock.join(", ")
                ),
                format!(
                    "{} 保存的是 {} 的快照：{} 份副本中有 {} 份（{}）与源文档不同，而在 {} 不同之处副本总是较旧的{example}",
                    d.holder,
                    d.source_ns,
                    group(d.checked),
                    group(d.disagree),
                    percent(share),
                    clock.join("、")
                ),
            )
        } else if between {
            lang.pick(
                format!("{} of {} copies in {} ({}) disagree with other copies of the same {} on {} ({} of {} references have copies that differ){example}", group(d.disagree), group(d.checked), d.holder, percent(share), d.reference, d.fields.join(", "), group(d.groups_disagreeing), group(d.groups)),
                format!("{} 中的 {} 份副本里有 {} 份（{}）与同一 {} 的其他副本在 {} 上不一致（{} 个引用中有 {} 个的副本互不相同）{example}", d.holder, group(d.checked), group(d.disagree), percent(share), d.reference, d.fields.join("、"), group(d.groups), group(d.groups_disagreeing)),
            )
        } else {
            lang.pick(
                format!(
                    "{} of {} copies in {} ({}) disagree with {} on {}{example}",
                    group(d.disagree),
                    group(d.checked),
                    d.holder,
                    percent(share),
                    d.source_ns,
                    d.fields.join(", ")
                ),
                format!(
                    "{} 中的 {} 份冗余副本里有 {} 份（{}）与 {} 的 {} 不一致{example}",
                    d.holder,
                    group(d.checked),
                    group(d.disagree),
                    percent(share),
                    d.source_ns,
                    d.fields.join("、")
                ),
            )
        };
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(d.holder.clone()),
            message,
            evidence: evidence([
                ("checked", json!(d.checked)),
                ("disagree", json!(d.disagree)),
                ("share", json!(share)),
                ("compared_with", json!(if between { "other-copies" } else { "source" })),
                ("references", json!(d.groups)),
                ("references_disagreeing", json!(d.groups_disagreeing)),
                ("own_fields", json!(d.own_fields)),
                ("source", json!(d.source_ns)),
                ("fields", json!(d.fields)),
                ("copy", json!(if snapshot { "snapshot" } else { "live" })),
                ("identities_converted", json!(d.identities_converted)),
                ("key_type", json!(d.key_type)),
                ("lagging_fields", json!(d.snapshot.iter().map(|(f, n)| json!({"field": f, "copies_behind": n})).collect::<Vec<_>>())),
                ("examples", json!(d.examples.iter().map(|(r, f, c, s)| json!({"reference": r, "field": f, "copy": c, "source": s})).collect::<Vec<_>>())),
                ("threshold", crossed(t, Key::warning_share)),
            ]),
            remedy: if snapshot {
                Remedy::SnapshotCopies { drift: d.clone() }
            } else if between {
                Remedy::CopiesDisagree { drift: d.clone() }
            } else {
                Remedy::RefreshCopies { drift: d.clone() }
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing;
    use crate::rules::DriftCheck;
    use bson::doc;

    #[test]
    fn copies_disagreeing_with_each_other_fire_and_are_only_listed() {
        let docs: Vec<bson::Document> = (0..10)
            .map(|i| doc! {"_id": i, "items": [{"product_id": i, "name": "pen"}]})
            .collect();
        let r = testing::report("shop.orders", &docs);
        let mut ctx = testing::ctx(&r, &[]);
        let t = Thresholds::default();
        // (checked, disagree) → severity, or none.
        for (checked, disagree, want) in [
            (838, 670, Some(Severity::Warning)),
            (1000, 10, Some(Severity::Warning)),
            (1000, 9, Some(Severity::Info)),
            (1000, 0, None),
        ] {
            ctx.drift = vec![DriftCheck {
                kind: DriftKind::BetweenCopies,
                holder: "items[]".into(),
                reference: "items[].product_id".into(),
                source_ns: "shop.products".into(),
                fields: vec!["name".into()],
                checked,
                disagree,
                groups: 300,
                groups_disagreeing: 280,
                own_fields: vec!["qty".into()],
                snapshot: Vec::new(),
                changed: Vec::new(),
                identities_converted: 0,
                key_type: None,
                examples: vec![(
                    "7".into(),
                    "name".into(),
                    "\"pen\"".into(),
                    "\"pencil\"".into(),
                )],
            }];
            let f = check(&ctx, &t, Lang::En);
            assert_eq!(
                f.first().map(|x| x.severity),
                want,
                "{disagree} of {checked}"
            );
            if let Some(x) = f.first() {
                assert!(x.message.contains("other copies"), "{}", x.message);
                assert_eq!(x.evidence["compared_with"], json!("other-copies"));
                assert!(
                    matches!(&x.remedy, Remedy::CopiesDisagree { drift } if drift.holder == "items[]"),
                    "{:?}",
                    x.remedy
                );
            }
        }
    }
}
