//! `reference-type-mismatch`: one reference kept in two representations —
//! ObjectIds beside their 24-hex strings, numbers beside numeric strings —
//! so that the strings match nothing (`{_id: "64d4…"}` never equals an
//! ObjectId) and every `$lookup` and query on the field silently misses
//! them (seed 001: no foreign keys, the application keeps references
//! consistent).

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Reaudit, Remedy, Severity, Thresholds,
};
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
        // Stored whole in another representation than its target key:
        // every `$lookup` and query by the target's value finds none.
        let whole = native < min_share;
        let evidence = Mismatch {
            references: rep.references,
            stored_as_strings: rep.strings,
            strings_share: strings,
            native_type: rep.native,
            conversion: rep.conversion,
            match_rate_as_stored: rep.matched_as_stored as f64 / rep.references as f64,
            match_rate_converted: rep.matched_converted as f64 / rep.references as f64,
            strings_matched: rep.matched_converted - rep.matched_as_stored,
            target: &r.to,
            whole_field: whole.then_some(true),
            threshold: Crossed::of(t, Key::min_share),
            path: &r.from_path,
            matched_converted: rep.matched_converted,
        };
        let severity = if crate::relate::in_varying_place(r) {
            Severity::Info
        } else {
            Severity::Warning
        };
        let remedy = Remedy::ConvertReference {
            relationship: (*r).clone(),
            reaudit: Reaudit::of(t),
        };
        let path = Some(r.from_path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `reference-type-mismatch` found on one reference: how many of its
/// values are strings where the key is another type, and what they find
/// as stored and converted.
#[derive(Serialize)]
struct Mismatch<'a> {
    references: u64,
    stored_as_strings: u64,
    strings_share: f64,
    native_type: &'static str,
    conversion: &'static str,
    match_rate_as_stored: f64,
    match_rate_converted: f64,
    strings_matched: u64,
    target: &'a str,
    /// Every value is a string: the field is stored whole in another type.
    #[serde(skip_serializing_if = "Option::is_none")]
    whole_field: Option<bool>,
    threshold: Crossed,
    #[serde(skip)]
    path: &'a str,
    #[serde(skip)]
    matched_converted: u64,
}

impl Evidence for Mismatch<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (path, to, native, conversion) = (self.path, self.target, self.native_type, self.conversion);
        let (refs, strings) = (group(self.references), group(self.stored_as_strings));
        let after = percent(self.match_rate_converted);
        if self.whole_field.is_some() {
            let found = group(self.matched_converted);
            return lang.pick(
                format!("{path} stores its references to {to} as strings, where the key is {native}: a $lookup or a query by the {native} finds none of them; read by {conversion}, {found} of {refs} sampled references ({after}) find their document"),
                format!("{path} 以字符串保存指向 {to} 的引用，而目标键是 {native}：按 {native} 做的 $lookup 或查询一个也找不到；用 {conversion} 转换后，抽样的 {refs} 个引用中有 {found} 个（{after}）能找到对应文档"),
            );
        }
        let (share, before) = (percent(self.strings_share), percent(self.match_rate_as_stored));
        let matched = group(self.strings_matched);
        lang.pick(
            format!("{path} holds {strings} of {refs} sampled references to {to} as strings ({share}), the rest as {native}: as stored, {before} of the references find their document; with the strings read by {conversion} ({matched} of {strings} match), {after}"),
            format!("{path} 中抽样的 {refs} 个指向 {to} 的引用里有 {strings} 个以字符串保存（{share}），其余为 {native}：按原样只有 {before} 的引用能找到对应文档；用 {conversion} 转换字符串后（{strings} 个中有 {matched} 个匹配），为 {after}"),
        )
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
