//! `redundant-index`: an index whose key is a prefix of another's, which
//! serves every query it serves (Atlas performance advisor).

use serde::Serialize;

use crate::rules::{CollectionCtx, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::source::IndexInfo;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "redundant-index",
    title: "Index that is a prefix of another",
    explanation: (
        "Every index costs memory and slows every write that touches its fields. An index whose key is a prefix of another index's key (same fields, same order, same directions) answers nothing the longer one cannot, so it is pure cost.",
        "每个索引都会占用内存，并拖慢所有涉及其字段的写入。如果一个索引的键是另一个索引键的前缀（字段、顺序和方向都相同），较长的索引就能满足它能满足的所有查询，它只剩下开销。",
    ),
    source: "MongoDB Atlas performance advisor (redundant indexes); seeds/002 (index size uses RAM)",
    check: Check::Collection(check, Basis::Metadata),
    needs: Itself,
    limits: {
    },
}

pub fn check(ctx: &CollectionCtx<'_>, _t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let idx = ctx.data.indexes;
    let mut out = Vec::new();
    for a in idx {
        let Some(b) = idx.iter().find(|b| a.covered_by(b)) else {
            continue;
        };
        let evidence = Redundant {
            index: a,
            covered_by: b,
            threshold: PREFIX,
        };
        let remedy = Remedy::DropIndex {
            name: a.name.clone(),
            covered_by: Some(b.name.clone()),
        };
        let path = a.key.keys().next().cloned();
        out.push(Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What makes an index redundant: the rule's test, in words, where other
/// rules name a number.
#[derive(Serialize)]
struct Criterion {
    name: &'static str,
    value: &'static str,
}

const PREFIX: Criterion = Criterion {
    name: "redundant-index.prefix",
    value: "plain key, a prefix with the same directions and collation; not unique, sparse, partial or TTL; covered by a visible index that is neither sparse nor partial",
};

/// An index, and the longer one that serves every query it serves.
#[derive(Serialize)]
struct Redundant<'a> {
    index: &'a IndexInfo,
    covered_by: &'a IndexInfo,
    threshold: Criterion,
}

impl Evidence for Redundant<'_> {
    fn describe(&self, lang: Lang) -> String {
        let keys = |i: &IndexInfo| serde_json::Value::Object(i.key.clone()).to_string();
        let (a, b) = (&self.index.name, &self.covered_by.name);
        let (ka, kb) = (keys(self.index), keys(self.covered_by));
        lang.pick(
            format!("index {a} {ka} is a prefix of {b} {kb}, which serves the same queries"),
            format!("索引 {a} {ka} 是 {b} {kb} 的前缀，后者能满足同样的查询"),
        )
    }
}
