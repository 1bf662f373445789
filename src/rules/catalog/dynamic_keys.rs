//! `dynamic-keys`: objects whose keys are data — minutes, dates, ids — so
//! the shape changes with the data (seed 002, pre-aggregated reports: 1440
//! minute keys are slow to update; split into hours, or use attributes).

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "dynamic-keys",
    title: "Object keys that are data",
    explanation: (
        "When keys are values (minutes of the day, dates, ids), every new value adds a field: the schema never settles, each key needs its own index, and MongoDB finds a key by scanning the object in order — the seeds measure that updating minute 1439 of 1440 keys is much slower than minute 0, and split the day into 24 hour sub-documents. Storing the pairs as an array of {k, v} (attribute pattern) makes the keys queryable and indexable with one index.",
        "当键本身就是值（一天中的分钟数、日期、id）时，每出现一个新值就多一个字段：结构永远无法稳定，每个键都需要单独的索引，而且 MongoDB 要按顺序扫描对象才能找到某个键——种子材料指出，在 1440 个分钟键中更新第 1439 分钟比更新第 0 分钟慢得多，因此把一天拆成 24 个小时子文档。把它们存成 {k, v} 数组（属性模式），一个索引就能查询所有键。",
    ),
    source: "seeds/002 (pre-aggregated reports, 1440 minute keys)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// share of keys that look like data (numbers, dates, hex, UUIDs)
        data_like_share: 0.8,
        /// keys an object needs before its keys are judged
        min_keys: 5.0,
        /// distinct keys beyond which rare keys are data
        many_keys: 50.0,
        /// presence below which a key is rare
        rare_presence: 0.1,
    },
}

/// Whether a key looks like a value: a number, a date, hex, a UUID.
pub(super) fn data_like(key: &str) -> bool {
    let k = key.trim();
    if k.is_empty() {
        return false;
    }
    let digits = k.chars().all(|c| {
        c.is_ascii_digit() || c == '.' || c == '-' || c == '_' || c == ':' || c == 'T' || c == 'Z'
    });
    if digits && k.chars().any(|c| c.is_ascii_digit()) {
        return true;
    }
    let hex_body: String = k.chars().filter(|c| *c != '-').collect();
    hex_body.len() >= 8
        && hex_body.chars().all(|c| c.is_ascii_hexdigit())
        && hex_body.chars().any(|c| c.is_ascii_digit())
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let share_min = t.dynamic_keys.data_like_share;
    let min_keys = t.dynamic_keys.min_keys;
    let many = t.dynamic_keys.many_keys;
    let rare = t.dynamic_keys.rare_presence;
    let mut out: Vec<Finding> = Vec::new();
    let mut fired: Vec<Vec<crate::profile::Seg>> = Vec::new();
    for f in ctx.fields() {
        if f.main_type() != Some(BsonType::Object) {
            continue;
        }
        if fired.iter().any(|p| f.segments.starts_with(p)) {
            continue;
        }
        let keys: Vec<&crate::profile::FieldProfile> = ctx.children_of(f).collect();
        if (keys.len() as f64) < min_keys {
            continue;
        }
        let data = keys.iter().filter(|k| data_like(&k.name)).count();
        let share = data as f64 / keys.len() as f64;
        let all_rare = keys.iter().all(|k| k.presence < rare);
        let by_share = share >= share_min;
        let by_count = keys.len() as f64 > many && all_rare;
        if !by_share && !by_count {
            continue;
        }
        fired.push(f.segments.clone());
        // Seed 002's own fix for 1,440 minute keys is a fixed grid (24 hour
        // keys of 60 minutes each), written in full when the document is
        // created. Such a small, dense, pre-allocated set of numeric keys is
        // a deliberate layout: say so, at info level.
        let preallocated = keys.len() <= 60
            && keys
                .iter()
                .all(|k| !k.name.is_empty() && k.name.bytes().all(|b| b.is_ascii_digit()))
            && keys.iter().all(|k| k.count as f64 >= 0.9 * f.count as f64);
        let key = if by_share {
            Key::data_like_share
        } else {
            Key::many_keys
        };
        let evidence = DataKeys {
            keys: keys.len(),
            data_like_share: share,
            preallocated,
            examples: keys.iter().take(5).map(|k| k.name.as_str()).collect(),
            max_key_presence: keys.iter().map(|k| k.presence).fold(0.0, f64::max),
            sampled: ctx.sampled(),
            threshold: Crossed::of(t, key),
            path: &f.path,
            paths_capped: ctx.data.paths_capped,
            measured: ctx.measured(),
        };
        let severity = if preallocated {
            Severity::Info
        } else {
            Severity::Warning
        };
        let remedy = Remedy::Attribute {
            object: f.path.clone(),
        };
        let path = Some(f.path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `dynamic-keys` found in one object.
#[derive(Serialize)]
struct DataKeys<'a> {
    /// Distinct keys of the object.
    keys: usize,
    data_like_share: f64,
    /// Every document has every key, all numbers: a pre-allocated grid.
    preallocated: bool,
    examples: Vec<&'a str>,
    max_key_presence: f64,
    sampled: u64,
    threshold: Crossed,
    #[serde(skip)]
    path: &'a str,
    /// The profile stopped recording new paths: there may be more keys.
    #[serde(skip)]
    paths_capped: bool,
    #[serde(skip)]
    measured: Measured,
}

impl Evidence for DataKeys<'_> {
    fn describe(&self, lang: Lang) -> String {
        let capped = if self.paths_capped {
            lang.pick(" (at least)", "（至少）")
        } else {
            ""
        };
        let note = if self.preallocated {
            lang.pick(
                "; every document has every key, a pre-allocated grid as seed 002 recommends — fine while the key set stays this small and fixed",
                "；每个文档都包含全部键，这是种子材料 002 推荐的预分配结构——只要键集合保持这样小而固定就没有问题",
            )
        } else {
            ""
        };
        let (path, n, share) = (self.path, group(self.keys as u64), percent(self.data_like_share));
        let scope = self.measured.words(lang);
        let (en, zh) = (self.examples.join(", "), self.examples.join("、"));
        lang.pick(
            format!("{path} has {n}{capped} different keys {scope} — {share} of them look like data (e.g. {en}){note}"),
            format!("{path} 有 {n}{capped} 个不同的键，{scope}——其中 {share} 看起来是数据（例如 {zh}）{note}"),
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_that_are_data() {
        for k in [
            "0",
            "1439",
            "2024-01-31",
            "5ca4bbcea2dd94ee58162a68",
            "0df078f33aa74a2e9696e0520c1a828a",
            "123e4567-e89b-12d3-a456-426614174000",
            "10:30",
        ] {
            assert!(super::data_like(k), "{k}");
        }
        for k in ["name", "address", "city", "deadbeef", "", "v2"] {
            assert!(!super::data_like(k), "{k}");
        }
    }
}
