//! Refactor advice: for each pattern, a before/after example built from the
//! collection's own field names and sampled values, the effect estimated on
//! the sample, and a `mongosh` migration script that is safe to re-run: a
//! dry run until `apply` is set, a backup before every change and an undo
//! command after it (see [`change`]).
//! docshape never runs these scripts; it only writes them.
mod advice;
#[cfg(test)]
mod cases;
pub mod change;
mod convert;
mod copies;
pub mod dates;
mod effect;
mod examples;
mod expiry;
pub mod family;
mod indexes;
pub mod integrity;
mod mixed_types;
mod moves;
mod numbers;
pub mod reaudit;
mod reshape;
mod scripts;
mod workload;

use serde::Serialize;
use serde_json::Value;

use crate::i18n::Lang;
use crate::profile::{FieldProfile, Seg};
use crate::rules::CollectionCtx;

pub use advice::{advise, advise_deployment, pending, review_indexes, suggest, Advice, PENDING};
pub use copies::refresh_copies;
pub use examples::{display_doc, pick_doc, strip_path};
pub use indexes::{
    drop_index, drop_lead_absent, empty_sparse_index, esr_index, id_led_index, index, ttl_field,
};
pub use mixed_types::convert_types;
pub(crate) use mixed_types::kept_value;
pub use moves::{flatten, ids_to_parent_reference, parent_reference, separate, subset};
pub use reshape::{attribute, bucket, merge_collections, polymorphic, rename};

/// What to do instead.
#[derive(Clone, Debug, Serialize)]
pub struct Suggestion {
    /// One of the contract's pattern identifiers.
    pub pattern: &'static str,
    pub summary: String,
    /// A document as it is now, from the collection's own fields and values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<serde_json::Value>,
    /// The same data after the refactor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<serde_json::Value>,
    /// The effect estimated on the sample (sizes before and after …).
    #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
    pub effect: serde_json::Map<String, serde_json::Value>,
    /// A `mongosh` script: a dry run until its `apply` is set, safe to
    /// re-run, with a backup and an undo; docshape never runs it.
    pub migration: String,
}

/// `db.getSiblingDB("db").getCollection("coll")`, quoted safely.
pub(crate) fn js_coll(db: &str, coll: &str) -> String {
    format!("db.getSiblingDB({}).getCollection({})", js(db), js(coll))
}

/// A string as a JavaScript literal.
pub(crate) fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

/// A JSON value as JavaScript source.
pub(crate) fn js_value(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// `threads` → `thread`: the name one document of a collection goes by.
pub(crate) fn singular(name: &str) -> String {
    crate::i18n::singular(name.rsplit('.').next().unwrap_or(name))
}

/// A collection name made of a parent's name and a field's.
pub(crate) fn child_collection(coll: &str, field: &str) -> String {
    let f: String = field
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{coll}_{f}")
}

/// The plan of a changing script about the collection `ctx` describes:
/// `tag` names the change, `what` describes it.
fn plan(ctx: &CollectionCtx<'_>, lang: Lang, tag: &str, what: &str) -> change::Plan {
    change::Plan::new(lang, ctx.db(), ctx.coll(), tag, what)
}

/// An MQL path for a profile path: array steps (`[]`) left out, as a query
/// or an index key reaches the elements of an array.
pub(crate) fn mql_path(path: &str) -> String {
    path.replace("[]", "")
}

/// The suggestion without its script when `f` lies inside an array: one
/// update cannot move or rewrite it safely there (it would take a `$map`
/// over every enclosing array), so docshape offers none, and says so.
fn inside_array(mut s: Suggestion, f: &FieldProfile, lang: Lang) -> Suggestion {
    if f.segments.contains(&Seg::Elem) {
        s.migration = String::new();
        s.summary.push_str(&lang.pick(
            format!(" `{}` lies inside an array, which this change cannot reach safely: docshape writes no script for it; make the change in the application that writes it.", f.path),
            format!(" `{}` 位于数组内部，这一修改无法安全地作用到那里：docshape 不为它生成脚本；请在写入它的应用中修改。", f.path),
        ));
    }
    s
}
