//! `too-many-fields`: hundreds or thousands of distinct paths (Compass
//! cannot export more than 1,000 fields).
//!
//! Paths under objects `dynamic-keys` already reports (keys that are data)
//! are not counted again. A fixed schema — most paths present in most
//! documents that have their parent, a wide but settled document such as a tweet — is not what
//! the attribute pattern is for: below the warning threshold it is not
//! reported, above it the suggestion is to move the widest object out.

use std::collections::HashMap;

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::{FieldProfile, Seg};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "too-many-fields",
    title: "Too many distinct fields",
    explanation: (
        "Thousands of distinct fields mean no query, index or tool can know the shape: Compass stops exporting at 1,000 fields, every index covers a sliver of the data, and the documents are hard to reason about. When the fields are attributes that vary between documents, the attribute pattern (an array of {k, v}) turns them into data with one index.",
        "成千上万个不同字段意味着任何查询、索引或工具都无法掌握文档结构：Compass 导出超过 1,000 个字段就会停止，每个索引只覆盖一小部分数据，文档也难以理解。如果这些字段是因文档而异的属性，属性模式（{k, v} 数组）能把它们变成数据，用一个索引覆盖。",
    ),
    source: "MongoDB Compass (1,000-field export limit); seeds/002 (semi-structured data, attribute arrays)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// distinct paths beyond which to inform
        info: 200.0,
        /// distinct paths beyond which to warn
        warning: 1_000.0,
    },
}

/// Median presence of the paths where they could be: each path's share
/// of the documents that have its parent (top-level paths: of all). Above
/// one half, most paths are present in most documents where they can be —
/// a fixed schema, however wide (a tweet); attributes that vary between
/// documents each appear in a fraction of them.
fn median_presence(ctx: &CollectionCtx<'_>, fields: &[&FieldProfile]) -> f64 {
    let counts: HashMap<&[Seg], u64> = ctx
        .fields()
        .iter()
        .map(|f| (f.segments.as_slice(), f.count))
        .collect();
    let docs = ctx.sampled().max(1);
    let mut p: Vec<f64> = fields
        .iter()
        .map(|f| {
            let parent = f.segments.len().saturating_sub(1);
            let of = if parent == 0 {
                docs
            } else {
                counts.get(&f.segments[..parent]).copied().unwrap_or(docs)
            };
            f.count as f64 / of.max(1) as f64
        })
        .collect();
    if p.is_empty() {
        return 0.0;
    }
    p.sort_by(f64::total_cmp);
    p[p.len() / 2]
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let (info, warn) = (t.too_many_fields.info, t.too_many_fields.warning);
    // Objects whose keys are data, already reported by `dynamic-keys`.
    let dynamic: Vec<Vec<Seg>> = if t.enabled("dynamic-keys") {
        crate::rules::dynamic_keys::check(ctx, t, lang)
            .iter()
            .filter_map(|f| f.path.as_deref())
            .filter_map(|p| ctx.field(p))
            .map(|f| f.segments.clone())
            .collect()
    } else {
        Vec::new()
    };
    let counted: Vec<&FieldProfile> = ctx
        .fields()
        .iter()
        .filter(|f| {
            !dynamic
                .iter()
                .any(|d| f.segments.len() > d.len() && f.segments.starts_with(d))
        })
        .collect();
    let n = counted.len();
    let severity = if n as f64 > warn {
        Severity::Warning
    } else if n as f64 > info {
        Severity::Info
    } else {
        return Vec::new();
    };
    let median = median_presence(ctx, &counted);
    let fixed = median > 0.5;
    if fixed && severity == Severity::Info {
        return Vec::new();
    }
    // The object with the most keys is where the paths come from.
    let widest = counted
        .iter()
        .copied()
        .filter(|f| f.main_type() == Some(BsonType::Object))
        .max_by_key(|f| f.children);
    let Some(widest) = widest else {
        return Vec::new();
    };
    let remedy = if fixed {
        Remedy::Separate {
            path: widest.path.clone(),
        }
    } else {
        Remedy::Attribute {
            object: widest.path.clone(),
        }
    };
    let key = if severity == Severity::Warning {
        Key::warning
    } else {
        Key::info
    };
    let evidence = PathCount {
        paths: n,
        paths_under_dynamic_keys: ctx.fields().len() - n,
        median_presence: median,
        fixed_schema: fixed,
        sampled: ctx.sampled(),
        paths_capped: ctx.data.paths_capped,
        widest_object: Widest {
            path: &widest.path,
            keys: widest.children,
        },
        threshold: Crossed::of(t, key),
        measured: ctx.measured(),
    };
    let path = Some(widest.path.clone());
    vec![Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy)]
}

/// What `too-many-fields` counted.
#[derive(Serialize)]
struct PathCount<'a> {
    /// Distinct paths, those under `dynamic-keys`' objects left out.
    paths: usize,
    paths_under_dynamic_keys: usize,
    median_presence: f64,
    fixed_schema: bool,
    sampled: u64,
    paths_capped: bool,
    widest_object: Widest<'a>,
    threshold: Crossed,
    #[serde(skip)]
    measured: Measured,
}

/// The object with the most keys.
#[derive(Serialize)]
struct Widest<'a> {
    path: &'a str,
    keys: usize,
}

impl Evidence for PathCount<'_> {
    fn describe(&self, lang: Lang) -> String {
        let at_least = if self.paths_capped {
            lang.pick("at least ", "至少 ")
        } else {
            ""
        };
        let n = group(self.paths as u64);
        let (widest, keys) = (self.widest_object.path, group(self.widest_object.keys as u64));
        let scope = self.measured.words(lang);
        lang.pick(
            format!("{at_least}{n} distinct paths {scope}; {widest} alone has {keys} keys"),
            format!("{scope}共有{at_least}{n} 个不同的路径；其中 {widest} 一个字段就有 {keys} 个键"),
        )
    }
}
