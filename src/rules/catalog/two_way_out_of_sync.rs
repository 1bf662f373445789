//! `two-way-out-of-sync`: both sides of a two-way reference are kept — a
//! room lists its controllers and each controller names its room — and
//! they disagree (seed 000: two-way referencing; the two sides are two
//! writes, and nothing keeps them in step).

use serde::Serialize;

use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::relate::twoway::{Direction, Side, TwoWaySync};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "two-way-out-of-sync",
    title: "Both sides of a two-way reference disagree",
    explanation: (
        "A two-way reference keeps one link twice: the parent lists its children's ids and each child names its parent. Either side can then be read without a join, but the two sides are two writes to two documents, and MongoDB updates one document atomically, not two: a child moved to another parent and still listed by the old one, or deleted and still listed, leaves the sides disagreeing, and readers of each side see a different relationship. The seeds: two-way referencing is worth it only when both directions are read often, and then every change must update both sides. Keep one side (the child's parent reference, indexed, cannot name two parents), or write both in one multi-document transaction.",
        "双向引用把同一个链接保存两次：父文档列出子文档的 id，每个子文档也记录自己的父文档。这样从任一边读取都不需要关联查询，但两边是对两个文档的两次写入，而 MongoDB 只保证单个文档的更新是原子的，不保证两个：子文档换了父文档而旧的父文档仍然列着它，或者子文档已删除却仍被列出，两边就不再一致，从不同一边读取的人看到的是不同的关系。种子材料：只有两个方向都经常读取时双向引用才值得，而且每次修改都必须同时更新两边。只保留一边（子文档上建了索引的父引用不可能指向两个父文档），或者在一个多文档事务中同时写两边。",
    ),
    source: "seeds/000 (two-way referencing: the two sides are not updated atomically), MongoDB docs (multi-document transactions)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// share of checked links held by one side only for a warning
        warning_share: 0.01,
    },
}

/// The collection's name in `db.coll`.
fn coll(ns: &str) -> &str {
    ns.split_once('.').map_or(ns, |(_, c)| c)
}

/// `coll.path`, as a reader names one side.
fn named(s: &Side) -> String {
    format!("{}.{}", coll(&s.namespace), s.path)
}

/// "names" after one, "name" after several.
fn verb(n: u64) -> &'static str {
    if n == 1 {
        "names"
    } else {
        "name"
    }
}

/// What the links `from` holds found on the side `to`, in a clause per
/// kind of disagreement ("1 names a controllers document whose roomId
/// names another").
fn found(d: &Direction, from: &Side, to: &Side, lang: Lang) -> String {
    let (other, back) = (coll(&to.namespace), &to.path);
    // (links, what the document they name holds, in English and Chinese)
    let kinds = [
        (
            d.names_another,
            format!("whose {back} names another"),
            format!("的 {back} 指向别处"),
        ),
        (
            d.names_none,
            format!("with no {back}"),
            format!("没有 {back}"),
        ),
        (
            d.missing,
            "that does not exist".to_owned(),
            "不存在".to_owned(),
        ),
    ];
    let parts: Vec<String> = kinds
        .into_iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, en, zh)| {
            lang.pick(
                format!("{} {} a {other} document {en}", group(n), verb(n)),
                format!("{} 个指向的 {other} 文档{zh}", group(n)),
            )
        })
        .collect();
    let detail = if parts.is_empty() {
        lang.pick(
            "all held back".to_owned(),
            "全部有对应的反向引用".to_owned(),
        )
    } else {
        parts.join(lang.pick(", ", "，"))
    };
    lang.pick(
        format!(
            "of {} links in {}, {}",
            group(d.checked),
            named(from),
            detail
        ),
        format!(
            "{} 中的 {} 个链接里，{}",
            named(from),
            group(d.checked),
            detail
        ),
    )
}

/// One link held by one side only, as a reader checks it.
fn example(d: &Direction, from: &Side, to: &Side, lang: Lang) -> Option<String> {
    let e = d.examples.first()?;
    let (holder, names) = (coll(&from.namespace), coll(&to.namespace));
    Some(match &e.back {
        Some(back) => lang.pick(
            format!(
                "{holder} {} has {names} {} in {}, whose {} is {back}",
                e.holder, e.names, from.path, to.path
            ),
            format!(
                "{holder} {} 的 {} 中有 {names} {}，而后者的 {} 是 {back}",
                e.holder, from.path, e.names, to.path
            ),
        ),
        None => lang.pick(
            format!(
                "{holder} {} has {names} {} in {}, which does not exist",
                e.holder, e.names, from.path
            ),
            format!(
                "{holder} {} 的 {} 中有 {names} {}，而该文档不存在",
                e.holder, from.path, e.names
            ),
        ),
    })
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let warn = t.two_way_out_of_sync.warning_share;
    let mut out = Vec::new();
    for r in &ctx.relationships {
        if r.from_ns != ctx.ns() {
            continue;
        }
        let Some(s) = &r.two_way else {
            continue;
        };
        if !s.is_two_way() || s.disagree() == 0 || s.share() < warn {
            continue;
        }
        out.push(finding(ctx, t, lang, r, s));
    }
    out
}

fn finding(
    ctx: &CollectionCtx<'_>,
    t: &Thresholds,
    lang: Lang,
    r: &crate::relate::Relationship,
    s: &TwoWaySync,
) -> Finding {
    let evidence = OutOfSync {
        checked: s.checked(),
        disagree: s.disagree(),
        share: s.share(),
        this_side: &s.this,
        other_side: &s.other,
        from_this_side: &s.from_this,
        from_other_side: &s.from_other,
        scope: s.scope,
        threshold: Crossed::of(t, Key::warning_share),
        sync: s,
    };
    let remedy = Remedy::TwoWaySync {
        relationship: r.clone(),
    };
    let path = Some(r.from_path.clone());
    Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy)
}

/// What `two-way-out-of-sync` checked on a link kept from both sides.
#[derive(Serialize)]
struct OutOfSync<'a> {
    /// Links checked both ways.
    checked: u64,
    /// Links held by one side only.
    disagree: u64,
    share: f64,
    this_side: &'a Side,
    other_side: &'a Side,
    from_this_side: &'a Direction,
    from_other_side: &'a Direction,
    scope: &'static str,
    threshold: Crossed,
    #[serde(skip)]
    sync: &'a TwoWaySync,
}

impl Evidence for OutOfSync<'_> {
    fn describe(&self, lang: Lang) -> String {
        let s = self.sync;
        let (this, other) = (&s.this, &s.other);
        let clauses = [
            found(&s.from_this, this, other, lang),
            found(&s.from_other, other, this, lang),
        ]
        .join(lang.pick("; ", "；"));
        let example = example(&s.from_this, this, other, lang)
            .or_else(|| example(&s.from_other, other, this, lang))
            .map_or_else(String::new, |e| {
                lang.pick(format!(" (e.g. {e})"), format!("（例如 {e}）"))
            });
        let (a, b) = (named(this), named(other));
        let (disagree, checked) = (group(self.disagree), group(self.checked));
        let share = percent(self.share);
        lang.pick(
            format!("{a} and {b} keep one link from both sides, and {disagree} of {checked} links checked both ways ({share}) are held by one side only: {clauses}{example}"),
            format!("{a} 与 {b} 从两边各保存同一个链接，双向检查的 {checked} 个链接中有 {disagree} 个（{share}）只有一边保存：{clauses}{example}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::relate::twoway::Disagreement;
    use crate::rules::testing;
    use bson::doc;

    fn side(ns: &str, path: &str, list: bool) -> Side {
        Side {
            namespace: ns.into(),
            path: path.into(),
            key: "_id".into(),
            key_type: "objectId",
            list,
            values: if list {
                format!("{path}[]")
            } else {
                path.into()
            },
        }
    }

    fn dir(checked: u64, agree: u64, names_another: u64, missing: u64) -> Direction {
        Direction {
            checked,
            agree,
            names_another,
            names_none: checked - agree - names_another - missing,
            missing,
            repeated: 0,
            examples: if agree < checked {
                vec![Disagreement {
                    holder: json!({"$oid": "62f0d550d2ced131c57467cd"}),
                    names: json!({"$oid": "62e2749404c9bd0bb0a2ae79"}),
                    back: (missing == 0).then(|| json!({"$oid": "62fb3dfa1616235e6658d458"})),
                }]
            } else {
                Vec::new()
            },
        }
    }

    fn rel(sync: TwoWaySync) -> crate::relate::Relationship {
        let mut r = testing::relationship(
            "test.userrooms",
            "controllers",
            "test.controllers",
            "_id",
            5,
            5,
            None,
        );
        r.kind = crate::relate::Kind::TwoWayReference;
        r.two_way = Some(sync);
        r
    }

    fn sync(from_this: Direction, from_other: Direction) -> TwoWaySync {
        TwoWaySync {
            this: side("test.userrooms", "controllers", true),
            other: side("test.controllers", "roomId", false),
            from_this,
            from_other,
            scope: "collection",
        }
    }

    #[test]
    fn fires_when_the_sides_disagree_in_a_share_of_the_links() {
        let docs: Vec<bson::Document> = (0..6).map(|i| doc! {"_id": i}).collect();
        let report = testing::report("test.userrooms", &docs);
        let t = Thresholds::default();
        // (from the rooms, from the controllers) → fires
        for (this, other, fires) in [
            // The real application: a controller listed by two rooms, and
            // one naming a deleted room.
            (dir(5, 4, 1, 0), dir(5, 4, 0, 1), true),
            (dir(100, 100, 0, 0), dir(100, 100, 0, 0), false),
            // 1 of 200 links: below 1 %.
            (dir(100, 99, 1, 0), dir(100, 100, 0, 0), false),
            (dir(50, 49, 1, 0), dir(50, 50, 0, 0), true),
            // Not one link kept twice: the references are unrelated.
            (dir(10, 2, 8, 0), dir(10, 10, 0, 0), false),
        ] {
            let rels = [rel(sync(this.clone(), other.clone()))];
            let found = check(&testing::ctx(&report, &rels), &t, Lang::En);
            assert_eq!(found.len(), usize::from(fires), "{this:?} {other:?}");
            if let Some(f) = found.first() {
                assert_eq!(f.severity, Severity::Warning);
                assert_eq!(f.path.as_deref(), Some("controllers"));
                assert_eq!(
                    f.evidence["disagree"],
                    json!(this.disagree() + other.disagree())
                );
            }
        }
        // Only the collection holding the reporting side reports.
        let rels = [rel(sync(dir(5, 4, 1, 0), dir(5, 4, 0, 1)))];
        let other_report = testing::report("test.controllers", &docs);
        assert!(check(&testing::ctx(&other_report, &rels), &t, Lang::En).is_empty());
    }

    #[test]
    fn the_message_names_both_sides_and_each_kind_of_disagreement() {
        let docs: Vec<bson::Document> = (0..6).map(|i| doc! {"_id": i}).collect();
        let report = testing::report("test.userrooms", &docs);
        let rels = [rel(sync(dir(5, 4, 1, 0), dir(5, 4, 0, 1)))];
        let t = Thresholds::default();
        let f = &check(&testing::ctx(&report, &rels), &t, Lang::En)[0];
        for part in [
            "userrooms.controllers and controllers.roomId keep one link from both sides",
            "2 of 10 links checked both ways (20",
            "of 5 links in userrooms.controllers, 1 names a controllers document whose roomId names another",
            "of 5 links in controllers.roomId, 1 names a userrooms document that does not exist",
            "whose roomId is",
        ] {
            assert!(f.message.contains(part), "{part:?} not in {}", f.message);
        }
        let zh = &check(&testing::ctx(&report, &rels), &t, Lang::Zh)[0];
        assert!(zh.message.contains("只有一边保存"), "{}", zh.message);
        assert_eq!(f.evidence["scope"], json!("collection"));
        assert_eq!(f.evidence["from_other_side"]["missing"], json!(1));
    }
}
