//! `too-many-indexes`: more indexes than a collection should carry
//! (Compass: 10, Atlas: 30).

use serde::Serialize;

use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::source::IndexKind;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "too-many-indexes",
    title: "Too many indexes on one collection",
    explanation: (
        "Each index is kept in memory and updated on every insert and on every update of its fields. Many indexes on one collection usually mean one index per optional attribute; the attribute pattern (an array of {k, v} with one compound index) serves them all, and unused ones can go.",
        "每个索引都驻留内存，并在每次插入以及其字段被更新时维护。一个集合上索引很多，通常意味着每个可选属性都建了一个索引；属性模式（{k, v} 数组加一个复合索引）可以覆盖它们，没人使用的索引则可以删除。",
    ),
    source: "MongoDB Compass (> 10 indexes), Atlas (> 30 indexes); seeds/002 (index size uses RAM)",
    check: Check::Collection(check, Basis::Metadata),
    needs: Itself,
    limits: {
        /// indexes beyond which to inform
        info: 10.0,
        /// indexes beyond which to warn
        warning: 30.0,
    },
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let n = ctx.data.indexes.len() as f64;
    let (info, warn) = (t.too_many_indexes.info, t.too_many_indexes.warning);
    let severity = if n > warn {
        Severity::Warning
    } else if n > info {
        Severity::Info
    } else {
        return Vec::new();
    };
    let key = if severity == Severity::Warning {
        Key::warning
    } else {
        Key::info
    };
    let evidence = IndexCount {
        indexes: ctx.data.indexes.iter().map(|i| i.name.as_str()).collect(),
        threshold: Crossed::of(t, key),
        ns: ctx.ns(),
    };
    let remedy = match per_attribute(ctx) {
        Some(object) => Remedy::Attribute { object },
        None => Remedy::ReviewIndexes,
    };
    vec![Finding::new(RULE, severity, ctx.ns(), None, &evidence, lang, remedy)]
}

/// What `too-many-indexes` counted.
#[derive(Serialize)]
struct IndexCount<'a> {
    /// The collection's indexes, by name.
    indexes: Vec<&'a str>,
    threshold: Crossed,
    #[serde(skip)]
    ns: &'a str,
}

impl Evidence for IndexCount<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (ns, n) = (self.ns, self.indexes.len());
        lang.pick(
            format!("{ns} has {n} indexes"),
            format!("{ns} 有 {n} 个索引"),
        )
    }
}

/// Single-field indexes on this many children of one embedded object are
/// one index per attribute: the attribute pattern's case (seeds 003), where
/// one index on `{k, v}` pairs serves every attribute.
const PER_ATTRIBUTE: usize = 3;

/// The embedded object whose children carry the most single-field indexes,
/// when there are at least [`PER_ATTRIBUTE`] of them.
fn per_attribute(ctx: &CollectionCtx<'_>) -> Option<String> {
    let mut per_parent = std::collections::BTreeMap::<&str, usize>::new();
    for i in ctx.data.indexes {
        if i.kinds != [IndexKind::Single] || i.partial.is_some() || i.unique {
            continue;
        }
        let Some((path, _)) = i.key.iter().next() else {
            continue;
        };
        if let Some((parent, _)) = path.rsplit_once('.') {
            *per_parent.entry(parent).or_default() += 1;
        }
    }
    per_parent
        .into_iter()
        .filter(|&(_, n)| n >= PER_ATTRIBUTE)
        .filter(|&(parent, _)| {
            ctx.field(parent)
                .is_some_and(|f| f.main_type() == Some(BsonType::Object))
        })
        .max_by_key(|&(_, n)| n)
        .map(|(parent, _)| parent.to_owned())
}
