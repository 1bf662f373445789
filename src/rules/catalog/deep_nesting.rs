//! `deep-nesting`: documents nested dozens of levels deep (the server
//! refuses 100 levels).

use serde_json::json;

use crate::rules::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
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
    let mut findings = Vec::new();
    let Some(top) = top else { return findings };
    findings.push(Finding {
        rule: RULE,
        severity,
        namespace: ctx.ns().to_owned(),
        path: deepest.map(|d| d.path.clone()),
        message: lang.pick(
            format!(
                "documents nest {} levels deep {} (under {})",
                ctx.data.max_depth,
                ctx.scope(lang),
                top.path
            ),
            format!(
                "{}文档嵌套深达 {} 层（在 {} 之下）",
                ctx.scope(lang),
                ctx.data.max_depth,
                top.path
            ),
        ),
        evidence: evidence([
            ("max_depth", json!(ctx.data.max_depth)),
            ("deepest_path", json!(deepest.map(|d| &d.path))),
            ("server_limit", json!(100)),
            (
                "threshold",
                crossed(t, if severity == Severity::Critical {
                        Key::critical
                    } else {
                        Key::warning
                    }),
            ),
        ]),
        remedy: Remedy::Flatten {
            path: top.path.clone(),
        },
    });
    findings
}
