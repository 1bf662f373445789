//! `denormalization-drift`: copied fields that no longer match their source
//! (seed 000: denormalize only read-mostly fields — a copy is not updated
//! atomically with its source; 003: extended reference).

use serde::Serialize;

use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::relate::DriftKind;
use crate::rules::DriftCheck;
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

/// What `denormalization-drift` compared in one collection's copies.
#[derive(Serialize)]
struct Drifted<'a> {
    checked: u64,
    disagree: u64,
    share: f64,
    /// `source`, or `other-copies` (copies of one document compared with
    /// one another).
    compared_with: &'static str,
    references: u64,
    references_disagreeing: u64,
    own_fields: &'a [String],
    source: &'a str,
    fields: &'a [String],
    /// `live`, or `snapshot` (a copy kept at the time it was taken).
    copy: &'static str,
    identities_converted: u64,
    key_type: Option<&'static str>,
    lagging_fields: Vec<Lag<'a>>,
    examples: Vec<Example<'a>>,
    threshold: Crossed,
    #[serde(skip)]
    drift: &'a DriftCheck,
}

/// A field in which copies are older than their source.
#[derive(Serialize)]
struct Lag<'a> {
    field: &'a str,
    copies_behind: u64,
}

/// One copy that differs.
#[derive(Serialize)]
struct Example<'a> {
    reference: &'a str,
    field: &'a str,
    copy: &'a str,
    source: &'a str,
}

impl Evidence for Drifted<'_> {
    fn describe(&self, lang: Lang) -> String {
        let d = self.drift;
        let between = self.compared_with == "other-copies";
        let example = self.examples.first().map_or_else(String::new, |e| {
            let (r, f, copy, other) = (e.reference, e.field, e.copy, e.source);
            if between {
                lang.pick(
                    format!("; e.g. {r}: {f} is {copy} in one copy but {other} in most"),
                    format!("；例如 {r}：一份副本中的 {f} 是 {copy}，而多数副本中是 {other}"),
                )
            } else {
                let source = self.source;
                lang.pick(
                    format!("; e.g. {r}: {f} is {copy} here but {other} in {source}"),
                    format!("；例如 {r}：这里的 {f} 是 {copy}，而 {source} 中是 {other}"),
                )
            }
        });
        // Copies that name their source in another type than its key (an
        // ObjectId copied as its hex string) were matched as that key.
        let converted = match self.key_type {
            Some(ty) if self.identities_converted > 0 => {
                let n = group(self.identities_converted);
                lang.pick(
                    format!(" ({n} of the copies name their source in another type than its key, read as {ty} to find it)"),
                    format!("（其中 {n} 份副本以不同于源文档键的类型记录来源，按 {ty} 读取后找到源文档）"),
                )
            }
            _ => String::new(),
        };
        let example = format!("{converted}{example}");
        let (holder, source) = (&d.holder, self.source);
        let (disagree, checked, share) = (group(self.disagree), group(self.checked), percent(self.share));
        let fields = self.fields.join(lang.pick(", ", "、"));
        if self.copy == "snapshot" {
            let clock: Vec<&str> = self.lagging_fields.iter().map(|l| l.field).collect();
            let clock = clock.join(lang.pick(", ", "、"));
            lang.pick(
                format!("{holder} holds snapshots of {source}: {disagree} of {checked} copies ({share}) differ from it, and where {clock} differ the copy is always the older{example}"),
                format!("{holder} 保存的是 {source} 的快照：{checked} 份副本中有 {disagree} 份（{share}）与源文档不同，而在 {clock} 不同之处副本总是较旧的{example}"),
            )
        } else if between {
            let (reference, groups, disagreeing) = (&d.reference, group(self.references), group(self.references_disagreeing));
            lang.pick(
                format!("{disagree} of {checked} copies in {holder} ({share}) disagree with other copies of the same {reference} on {fields} ({disagreeing} of {groups} references have copies that differ){example}"),
                format!("{holder} 中的 {checked} 份副本里有 {disagree} 份（{share}）与同一 {reference} 的其他副本在 {fields} 上不一致（{groups} 个引用中有 {disagreeing} 个的副本互不相同）{example}"),
            )
        } else {
            lang.pick(
                format!("{disagree} of {checked} copies in {holder} ({share}) disagree with {source} on {fields}{example}"),
                format!("{holder} 中的 {checked} 份冗余副本里有 {disagree} 份（{share}）与 {source} 的 {fields} 不一致{example}"),
            )
        }
    }
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
        let evidence = Drifted {
            checked: d.checked,
            disagree: d.disagree,
            share,
            compared_with: if between { "other-copies" } else { "source" },
            references: d.groups,
            references_disagreeing: d.groups_disagreeing,
            own_fields: &d.own_fields,
            source: &d.source_ns,
            fields: &d.fields,
            copy: if snapshot { "snapshot" } else { "live" },
            identities_converted: d.identities_converted,
            key_type: d.key_type,
            lagging_fields: d
                .snapshot
                .iter()
                .map(|(field, copies_behind)| Lag {
                    field,
                    copies_behind: *copies_behind,
                })
                .collect(),
            examples: d
                .examples
                .iter()
                .map(|(reference, field, copy, source)| Example {
                    reference,
                    field,
                    copy,
                    source,
                })
                .collect(),
            threshold: Crossed::of(t, Key::warning_share),
            drift: d,
        };
        let remedy = if snapshot {
            Remedy::SnapshotCopies { drift: d.clone() }
        } else if between {
            Remedy::CopiesDisagree { drift: d.clone() }
        } else {
            Remedy::RefreshCopies { drift: d.clone() }
        };
        let path = Some(d.holder.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
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
