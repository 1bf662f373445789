//! `deep-nesting`: documents nested dozens of levels deep (the server
//! refuses 100 levels).

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::i18n::Lang;
use crate::profile::Seg;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "deep-nesting",
    title: "Documents nested too deeply",
    explanation: (
        "Deeply nested documents are hard to query, index and update with dotted paths and positional operators, and MongoDB refuses documents nested 100 levels or more — a write that adds one level too many fails. Usually the nesting mirrors a tree or a recursive structure that belongs in its own collection with references.",
        "嵌套很深的文档难以用点路径和位置操作符查询、建索引和更新，而且 MongoDB 拒绝嵌套 100 层及以上的文档——多加一层的写入会直接失败。这种嵌套通常对应树形或递归结构，更适合放到独立集合中用引用表示。",
    ),
    source: "MongoDB limits (nesting depth 100)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// nesting depth beyond which to warn
        warning: 20.0,
        /// nesting depth that is critical (the server refuses 100)
        critical: 90.0,
    },
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let (warn, crit) = (t.deep_nesting.warning, t.deep_nesting.critical);
    let depth = f64::from(ctx.data.max_depth);
    if depth <= warn {
        return Vec::new();
    }
    let severity = if depth >= crit {
        Severity::Critical
    } else {
        Severity::Warning
    };
    let deepest = ctx.fields().iter().max_by_key(|f| f.depth);
    // Move the top-level field that holds the deepest path.
    let top = deepest.and_then(|d| {
        let first = d.segments.first()?.clone();
        ctx.fields()
            .iter()
            .find(|f| f.segments == [first.clone()] && first != Seg::Elem)
    });
    let Some(top) = top else {
        return Vec::new();
    };
    let key = if severity == Severity::Critical {
        Key::critical
    } else {
        Key::warning
    };
    let evidence = Nesting {
        max_depth: ctx.data.max_depth,
        deepest_path: deepest.map(|d| d.path.as_str()),
        server_limit: SERVER_LIMIT,
        threshold: Crossed::of(t, key),
        measured: ctx.measured(),
        under: &top.path,
    };
    let remedy = Remedy::Flatten {
        path: top.path.clone(),
    };
    let path = deepest.map(|d| d.path.clone());
    vec![Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy)]
}

/// The nesting depth the server refuses.
const SERVER_LIMIT: u32 = 100;

/// What `deep-nesting` measured.
#[derive(Serialize)]
struct Nesting<'a> {
    max_depth: u32,
    deepest_path: Option<&'a str>,
    server_limit: u32,
    threshold: Crossed,
    #[serde(skip)]
    measured: Measured,
    /// The top-level field holding the deepest path.
    #[serde(skip)]
    under: &'a str,
}

impl Evidence for Nesting<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (depth, under) = (self.max_depth, self.under);
        let scope = self.measured.words(lang);
        lang.pick(
            format!("documents nest {depth} levels deep {scope} (under {under})"),
            format!("{scope}文档嵌套深达 {depth} 层（在 {under} 之下）"),
        )
    }
}
