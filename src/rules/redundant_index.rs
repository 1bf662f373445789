//! `redundant-index`: an index whose key is a prefix of another's, which
//! serves every query it serves (Atlas performance advisor).

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::source::IndexInfo;

const RULE: &str = "redundant-index";

/// `[redundant-index]` in `docshape.toml`: this rule has no thresholds (only
/// `enabled`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {}

/// Each threshold's key and meaning, in the order the docs list them.
pub const THRESHOLDS: &[(&str, &str)] = &[];

pub fn check(ctx: &CollectionCtx<'_>, _t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let idx = ctx.data.indexes;
    let mut out = Vec::new();
    for a in idx {
        let Some(b) = idx.iter().find(|b| a.covered_by(b)) else {
            continue;
        };
        let keys = |i: &IndexInfo| serde_json::Value::Object(i.key.clone()).to_string();
        out.push(Finding {
            rule: RULE,
            severity: Severity::Warning,
            namespace: ctx.ns().to_owned(),
            path: a.key.keys().next().cloned(),
            message: lang.pick(
                format!("index {} {} is a prefix of {} {}, which serves the same queries", a.name, keys(a), b.name, keys(b)),
                format!("索引 {} {} 是 {} {} 的前缀，后者能满足同样的查询", a.name, keys(a), b.name, keys(b)),
            ),
            evidence: evidence([
                ("index", json!(a)),
                ("covered_by", json!(b)),
                ("threshold", json!({"name": "redundant-index.prefix", "value": "plain key, a prefix with the same directions and collation; not unique, sparse, partial or TTL; covered by a visible index that is neither sparse nor partial"})),
            ]),
            remedy: Remedy::DropIndex {
                name: a.name.clone(),
                covered_by: Some(b.name.clone()),
            },
        });
    }
    out
}
