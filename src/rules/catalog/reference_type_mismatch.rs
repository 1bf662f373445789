//! `reference-type-mismatch`: one reference kept in two representations —
//! ObjectIds beside their 24-hex strings, numbers beside numeric strings —
//! so that the strings match nothing (`{_id: "64d4…"}` never equals an
//! ObjectId) and every `$lookup` and query on the field silently misses
//! them (seed 001: no foreign keys, the application keeps references
//! consistent).

use serde_json::json;

use crate::rules::{crossed, evidence, CollectionCtx, Finding, Reaudit, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "reference-type-mismatch",
    title: "One reference stored in two representations",
    explanation: (
        "A reference kept sometimes as an ObjectId and sometimes as its 24-hex string (or as a number and a numeric string) is two references to the server: a string never equals an ObjectId, so every $lookup, every query by that field and every index on it silently misses the documents of the other representation, and counts per parent come out short. MongoDB has no foreign keys and checks no types (seed 001): the application must write one representation. Convert the minority where it names an existing document ($toObjectId, $toLong) and fix the writer that produces it.",
        "同一个引用有时保存为 ObjectId，有时保存为它的 24 位十六进制字符串（或者数字与数字字符串），对服务器来说就是两种不同的引用：字符串永远不等于 ObjectId，因此每个 $lookup、每个按该字段的查询以及它上面的索引都会悄悄漏掉另一种表示的文档，按父文档统计的数量也会偏少。MongoDB 没有外键，也不检查类型（种子材料 001）：必须由应用只写入一种表示。把少数派中确实指向已有文档的值转换过来（$toObjectId、$toLong），并修正产生它们的写入方。",
    ),
    source: "seeds/001 (no foreign keys in MongoDB: the application keeps references consistent), MongoDB docs ($toObjectId, comparison of BSON types)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// least share of references in each representation
        min_share: 0.01,
    },
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_share = t.reference_type_mismatch.min_share;
    let mut out = Vec::new();
    for r in &ctx.relationships {
        if r.from_ns != ctx.ns() {
            continue;
        }
        let Some(rep) = &r.representations else {
            continue;
        };
        if rep.references == 0 {
            continue;
        }
        let strings = rep.strings as f64 / rep.references as f64;
        let native = 1.0 - strings;
        // Converting must find more of the references than they find as
        // they are stored: strings that convert to nothing are no mismatch.
        if strings < min_share || rep.matched_converted <= rep.matched_as_stored {
            continue;
        }
        if native < min_share {
            out.push(whole_field(ctx, t, lang, r, rep));
            continue;
        }
        let before = rep.matched_as_stored as f64 / rep.references as f64;
        let after = rep.matched_converted as f64 / rep.references as f64;
        let strings_matched = rep.matched_converted - rep.matched_as_stored;
        out.push(Finding {
            rule: RULE,
            severity: if crate::relate::in_varying_place(r) {
                Severity::Info
            } else {
                Severity::Warning
            },
            namespace: ctx.ns().to_owned(),
            path: Some(r.from_path.clone()),
            message: lang.pick(
                format!(
                    "{} holds {} of {} sampled references to {} as strings ({}), the rest as {}: as stored, {} of the references find their document; with the strings read by {} ({} of {} match), {}",
                    r.from_path,
                    group(rep.strings),
                    group(rep.references),
                    r.to,
                    percent(strings),
                    rep.native,
                    percent(before),
                    rep.conversion,
                    group(strings_matched),
                    group(rep.strings),
                    percent(after),
                ),
                format!(
                    "{} 中抽样的 {} 个指向 {} 的引用里有 {} 个以字符串保存（{}），其余为 {}：按原样只有 {} 的引用能找到对应文档；用 {} 转换字符串后（{} 个中有 {} 个匹配），为 {}",
                    r.from_path,
                    group(rep.references),
                    r.to,
                    group(rep.strings),
                    percent(strings),
                    rep.native,
                    percent(before),
                    rep.conversion,
                    group(rep.strings),
                    group(strings_matched),
                    percent(after),
                ),
            ),
            evidence: evidence([
                ("references", json!(rep.references)),
                ("stored_as_strings", json!(rep.strings)),
                ("strings_share", json!(strings)),
                ("native_type", json!(rep.native)),
                ("conversion", json!(rep.conversion)),
                ("match_rate_as_stored", json!(before)),
                ("match_rate_converted", json!(after)),
                ("strings_matched", json!(strings_matched)),
                ("target", json!(r.to)),
                ("threshold", crossed(t, Key::min_share)),
            ]),
            remedy: Remedy::ConvertReference {
                relationship: (*r).clone(),
                reaudit: Reaudit::of(t),
            },
        });
    }
    out
}

/// A reference stored whole in another representation than its target
/// key: every `$lookup` and query by the target's value finds none.
fn whole_field(
    ctx: &CollectionCtx<'_>,
    t: &Thresholds,
    lang: Lang,
    r: &crate::relate::Relationship,
    rep: &crate::relate::Representations,
) -> Finding {
    let after = rep.matched_converted as f64 / rep.references as f64;
    Finding {
        rule: RULE,
        severity: if crate::relate::in_varying_place(r) {
            Severity::Info
        } else {
            Severity::Warning
        },
        namespace: ctx.ns().to_owned(),
        path: Some(r.from_path.clone()),
        message: lang.pick(
            format!(
                "{} stores its references to {} as strings, where the key is {}: a $lookup or a query by the {} finds none of them; read by {}, {} of {} sampled references ({}) find their document",
                r.from_path,
                r.to,
                rep.native,
                rep.native,
                rep.conversion,
                group(rep.matched_converted),
                group(rep.references),
                percent(after),
            ),
            format!(
                "{} 以字符串保存指向 {} 的引用，而目标键是 {}：按 {} 做的 $lookup 或查询一个也找不到；用 {} 转换后，抽样的 {} 个引用中有 {} 个（{}）能找到对应文档",
                r.from_path,
                r.to,
                rep.native,
                rep.native,
                rep.conversion,
                group(rep.references),
                group(rep.matched_converted),
                percent(after),
            ),
        ),
        evidence: evidence([
            ("references", json!(rep.references)),
            ("stored_as_strings", json!(rep.strings)),
            ("strings_share", json!(rep.strings as f64 / rep.references as f64)),
            ("native_type", json!(rep.native)),
            ("conversion", json!(rep.conversion)),
            ("match_rate_as_stored", json!(rep.matched_as_stored as f64 / rep.references as f64)),
            ("match_rate_converted", json!(after)),
            ("strings_matched", json!(rep.matched_converted - rep.matched_as_stored)),
            ("target", json!(r.to)),
            ("whole_field", json!(true)),
            ("threshold", crossed(t, Key::min_share)),
        ]),
        remedy: Remedy::ConvertReference {
            relationship: r.clone(),
            reaudit: Reaudit::of(t),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relate::Representations;
    use crate::rules::testing;
    use bson::doc;

    fn rel(
        strings: u64,
        matched_as_stored: u64,
        matched_converted: u64,
    ) -> crate::relate::Relationship {
        let mut r = testing::relationship(
            "db.issues",
            "user._id",
            "db.users",
            "_id",
            100,
            matched_converted,
            None,
        );
        r.representations = Some(Representations {
            native: "objectId",
            stored_as: "string",
            conversion: "$toObjectId",
            references: 100,
            strings,
            matched_as_stored,
            matched_converted,
        });
        r
    }

    #[test]
    fn fires_when_converting_the_strings_finds_more() {
        let docs: Vec<bson::Document> = (0..10).map(|i| doc! {"_id": i}).collect();
        let report = testing::report("db.issues", &docs);
        let t = Thresholds::default();
        // (strings, found as stored, found converted) → fires
        for (strings, before, after, fires) in [
            (41, 59, 99, true),
            (41, 59, 59, false), // the strings convert to nothing that exists
            (0, 100, 100, false),
            // The whole field as strings: every $lookup misses.
            (100, 0, 100, true),
            (100, 0, 0, false), // strings that name nothing
            (1, 99, 100, true),
        ] {
            let rels = [rel(strings, before, after)];
            let found = check(&testing::ctx(&report, &rels), &t, Lang::En);
            assert_eq!(
                found.len(),
                usize::from(fires),
                "{strings} {before} {after}"
            );
            if let Some(f) = found.first() {
                assert_eq!(f.severity, Severity::Warning);
                assert_eq!(f.evidence["stored_as_strings"], strings);
                assert!(f.message.contains("$toObjectId"), "{}", f.message);
            }
        }
    }
}
