//! `non-unique-reference-key`: a reference to a key other than `_id` that
//! is not unique (seed 003: index every reference; a reference must name
//! one document, and only a unique index guarantees that it does).

use serde::Serialize;

use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "non-unique-reference-key",
    title: "Referenced key that is not unique",
    explanation: (
        "A reference names one document only if its key is unique. MongoDB guarantees that for `_id`; for any other key only a unique index does. With duplicates, a $lookup returns several parents for one child, counts double, and which document an update reaches is left to chance; without a unique index, the next writer can create a duplicate at any time. The seeds: index every reference field — on the referenced side, make that index unique, or reference `_id`.",
        "只有键唯一时，一个引用才指向唯一的文档。MongoDB 只为 `_id` 保证这一点；其他键只有唯一索引才能保证。键重复时，$lookup 会为一个子文档返回多个父文档，统计会重复计算，更新会落到哪一个文档也无法确定；没有唯一索引时，下一个写入方随时可能写入重复值。种子材料：为每个引用字段建立索引——在被引用的一侧，把该索引建成唯一索引，或者改为引用 `_id`。",
    ),
    source: "seeds/003 (index every reference field), MongoDB docs (unique indexes)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// 1: a referenced key other than _id needs a unique index; 0: only duplicates count
        require_unique_index: 1.0,
    },
}

/// What `non-unique-reference-key` found on a key references point at.
#[derive(Serialize)]
struct NotUnique<'a> {
    unique: bool,
    /// How uniqueness was checked (`unique-index`, a count, a scan, the
    /// sample).
    method: &'a str,
    /// A value more than one document holds.
    duplicate: Option<&'a serde_json::Value>,
    unique_index: bool,
    indexes_known: bool,
    referenced_by: Vec<&'a str>,
    threshold: Crossed,
    scope: &'static str,
    /// The key, in this collection.
    #[serde(skip)]
    key: &'a str,
}

impl Evidence for NotUnique<'_> {
    fn describe(&self, lang: Lang) -> String {
        let key = self.key;
        let by = self.referenced_by.join(lang.pick(", ", "、"));
        if self.unique {
            lang.pick(
                format!("{key} is referenced by {by} but no unique index guarantees that a value names one document"),
                format!("{key} 被 {by} 引用，但没有唯一索引保证一个值只对应一个文档"),
            )
        } else {
            let dup = self.duplicate.map(ToString::to_string).unwrap_or_default();
            lang.pick(
                format!("{key} is referenced by {by} but is not unique: {dup} is held by more than one document"),
                format!("{key} 被 {by} 引用，但它并不唯一：{dup} 出现在多个文档中"),
            )
        }
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let require_index = t.non_unique_reference_key.require_unique_index >= 1.0;
    let mut out = Vec::new();
    // Without index information (a JSON export) "no unique index" means
    // nothing; duplicates still count.
    let indexes_known = !ctx.data.indexes.is_empty();
    let mut seen: Vec<&str> = Vec::new();
    for r in &ctx.relationships {
        if r.to_ns != ctx.ns() {
            continue;
        }
        let Some(u) = &r.target_unique else {
            continue;
        };
        let key = r.to.strip_prefix(&format!("{}.", r.to_ns)).unwrap_or(&r.to);
        let no_index = u.method != "unique-index";
        // A unique index, a server count or a scan of the whole file speak
        // for the whole collection; the kept documents only when they are
        // all of it.
        let whole = match u.method.as_str() {
            "sample" => !ctx.is_sample(),
            _ => true,
        };
        let fires = !u.unique || (no_index && indexes_known && require_index);
        if !fires || seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let referrers: Vec<&str> = ctx
            .relationships
            .iter()
            .filter(|x| x.to == r.to)
            .map(|x| x.from.as_str())
            .collect();
        let evidence = NotUnique {
            unique: u.unique,
            method: &u.method,
            duplicate: u.duplicate.as_ref(),
            unique_index: !no_index,
            indexes_known,
            referenced_by: referrers,
            threshold: Crossed::of(t, Key::require_unique_index),
            scope: if whole {
                crate::rules::context::SCOPE_COLLECTION
            } else {
                crate::rules::context::SCOPE_SAMPLE
            },
            key,
        };
        let remedy = Remedy::UniqueKey {
            key: key.to_owned(),
            uniqueness: u.clone(),
            whole,
        };
        let path = Some(key.to_owned());
        out.push(Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::relate::KeyUniqueness;
    use crate::rules::testing;
    use crate::source::IndexInfo;
    use bson::doc;

    #[allow(clippy::unnecessary_wraps)]
    fn uniq(unique: bool, method: &str) -> Option<KeyUniqueness> {
        Some(KeyUniqueness {
            unique,
            method: method.into(),
            duplicate: (!unique).then(|| json!(627_788)),
        })
    }

    #[test]
    fn fires_on_duplicates_and_on_a_missing_unique_index() {
        let docs: Vec<bson::Document> = (0..10).map(|i| doc! {"_id": i, "account_id": i}).collect();
        let mut r = testing::report("db.accounts", &docs);
        let t = Thresholds::default();
        let rel = |u| {
            [testing::relationship(
                "db.customers",
                "accounts",
                "db.accounts",
                "account_id",
                10,
                10,
                u,
            )]
        };
        // Indexes unknown (a JSON export): only duplicates count.
        for (u, fires) in [
            (uniq(false, "sample"), true),
            (uniq(true, "sample"), false),
            (uniq(true, "unique-index"), false),
            (None, false),
        ] {
            let rels = rel(u.clone());
            let ctx = testing::ctx(&r, &rels);
            let f = check(&ctx, &t, Lang::En);
            assert_eq!(f.len(), usize::from(fires), "{u:?}");
            if fires {
                assert!(f[0].message.contains("627788"), "{}", f[0].message);
                assert!(
                    matches!(&f[0].remedy, Remedy::UniqueKey { key, .. } if key == "account_id"),
                    "{:?}",
                    f[0].remedy
                );
            }
        }
        // Indexes known: a key unique today but without a unique index fires too.
        r.indexes = vec![
            IndexInfo::from_spec(&doc! {"v": 2, "name": "_id_", "key": {"_id": 1}}).expect("index"),
        ];
        for (u, fires) in [
            (uniq(true, "server-group"), true),
            (uniq(true, "unique-index"), false),
        ] {
            let rels = rel(u.clone());
            assert_eq!(
                check(&testing::ctx(&r, &rels), &t, Lang::Zh).len(),
                usize::from(fires),
                "{u:?}"
            );
        }
        // Referencing `_id` is never this rule's business.
        let rels = [testing::relationship(
            "db.customers",
            "accounts",
            "db.accounts",
            "_id",
            10,
            10,
            None,
        )];
        assert!(check(&testing::ctx(&r, &rels), &t, Lang::En).is_empty());
    }
}
