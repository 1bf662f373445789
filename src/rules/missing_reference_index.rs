//! `missing-reference-index`: a parent reference with no index starting
//! with it, so finding a parent's children scans the collection (seed 003:
//! "确保引用字段有索引"; 004).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::relate::Kind;

const RULE: &str = "missing-reference-index";

/// `[missing-reference-index]` in `docshape.toml`: this rule's thresholds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// child collection size that makes a missing index critical
    pub critical_documents: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            critical_documents: 1_000_000.0,
        }
    }
}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[(
    "critical-documents",
    "child collection size that makes a missing index critical",
)];

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let crit = t.missing_reference_index.critical_documents;
    let mut out = Vec::new();
    for r in &ctx.relationships {
        if r.from_ns != ctx.ns() || r.indexed != Some(false) {
            continue;
        }
        if !matches!(
            r.kind,
            Kind::ParentReference | Kind::TwoWayReference | Kind::ExtendedReference
        ) {
            continue;
        }
        // A reference copied along with a whole document is the source's
        // to index, not the copy's.
        if crate::relate::inside_a_copy(r, &ctx.relationships) {
            continue;
        }
        let dotted = r.from_path.replace("[]", "");
        let docs = ctx.documents();
        let severity = if docs as f64 > crit {
            Severity::Critical
        } else {
            Severity::Warning
        };
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(r.from_path.clone()),
            message: lang.pick(
                format!("{} references {} but no index starts with it: finding one parent's children scans {} documents", r.from_path, r.to, group(docs)),
                format!("{} 引用了 {}，但没有以它开头的索引：查找某个父文档的子文档需要扫描 {} 个文档", r.from_path, r.to, group(docs)),
            ),
            evidence: evidence([
                ("reference", json!(r.to)),
                ("kind", json!(r.kind)),
                ("documents", json!(docs)),
                ("indexes", json!(ctx.data.indexes.iter().map(|i| &i.name).collect::<Vec<_>>())),
                ("threshold", crossed(t, RULE, "critical-documents")),
            ]),
            remedy: Remedy::CreateIndex { keys: dotted },
        });
    }
    out
}
