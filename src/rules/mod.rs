//! The rule catalogue (`../shared/spec/rules.md`). Every rule is a pure
//! function of what was measured — the profile, the collection's metadata,
//! relationships and growth — returning findings with their evidence, an
//! explanation citing where the rule comes from, and a suggestion.
//!
//! Every finding's evidence says its `scope` (`sample` or `collection`),
//! stamped in [`check_collection`] from what the rule's figures rest on;
//! a rule that measured the whole collection says so itself.
//!
//! Where this catalogue is stricter than `rules.md`, and why:
//! - `long-field-names` also needs the proposed renames to save at least
//!   `min-saved-share` of the average document and `min-saved-bytes` over
//!   the whole collection (bytes × documents): renaming fields of a small
//!   collection costs a migration and saves nothing worth reading about.
//!   Names a standard fixes (GeoJSON, GridFS, `system.profile`, time-series
//!   buckets, `mongod` log entries) are never proposed for renaming.
//! - `too-many-fields` does not count paths under objects `dynamic-keys`
//!   reports (one cause, one finding), and a fixed schema (the median path
//!   is in more than half of the documents that have its parent) is reported only above the
//!   warning threshold, with `separate` instead of `attribute`.
//! - `mixed-types` on numeric widths only (int/long/double) is not
//!   reported: they compare, sort and aggregate as one number. It is an
//!   info when the mix can change a value: a decimal beside binary
//!   numbers, or doubles beside longs beyond 2^53.
//! - Growth forecasts (`days_to_limit`, `document-near-limit`,
//!   `unbounded-array`) start from the largest document, not the p99 one
//!   the contract names: the largest is the document at risk, and a
//!   forecast from a smaller one contradicts its size told beside it.

pub mod config;
pub mod context;

mod bloated_document;
mod dangling_references;
mod deep_nesting;
mod denormalization_drift;
mod document_near_limit;
mod dynamic_keys;
mod large_reference_array;
mod long_field_names;
pub mod lossy_numbers;
mod missing_reference_index;
mod mixed_types;
mod non_unique_reference_key;
mod polymorphic_without_discriminator;
mod redundant_index;
pub mod string_dates;
#[cfg(test)]
pub(crate) mod testing;
mod time_series_per_event;
mod too_many_collections;
mod too_many_fields;
mod too_many_indexes;
mod unbounded_array;
mod unused_index;

#[cfg(test)]
pub(crate) mod kit;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use config::{ConfigError, Thresholds};
pub use context::{CollectionCtx, DeploymentCtx, DriftCheck};

use crate::i18n::Lang;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// One thing in the schema that will hurt, with its proof and its fix.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    pub namespace: String,
    /// The path the finding is about; `None` for the collection as a whole.
    pub path: Option<String>,
    pub message: String,
    /// The measured values, the threshold crossed and the sample size.
    pub evidence: serde_json::Map<String, serde_json::Value>,
    /// Why it matters.
    pub explanation: String,
    /// Where the rule comes from (a seed file, MongoDB's documentation …).
    pub source: String,
    pub suggestion: Suggestion,
}

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
    /// A `mongosh` script, safe to re-run; docshape never runs it.
    pub migration: String,
}

/// Every rule identifier, in the contract's order.
pub const RULES: [&str; 21] = [
    "unbounded-array",
    "large-reference-array",
    "document-near-limit",
    "bloated-document",
    "time-series-per-event",
    "dynamic-keys",
    "mixed-types",
    "denormalization-drift",
    "missing-reference-index",
    "redundant-index",
    "unused-index",
    "too-many-indexes",
    "too-many-collections",
    "deep-nesting",
    "too-many-fields",
    "polymorphic-without-discriminator",
    "long-field-names",
    "dangling-references",
    "string-dates",
    "lossy-numbers",
    "non-unique-reference-key",
];

type CollectionRule = fn(&CollectionCtx<'_>, &Thresholds, Lang) -> Vec<Finding>;

/// What a rule's figures rest on, for the `scope` of its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Basis {
    /// Documents read: `sample` unless every document was (the number read
    /// is the finding's `sampled` evidence, else the profile's).
    Documents,
    /// The collection's metadata (its indexes, their statistics): always
    /// `collection`.
    Metadata,
}

const COLLECTION_RULES: [(&str, CollectionRule, Basis); 20] = [
    ("unbounded-array", unbounded_array::check, Basis::Documents),
    (
        "large-reference-array",
        large_reference_array::check,
        Basis::Documents,
    ),
    (
        "document-near-limit",
        document_near_limit::check,
        Basis::Documents,
    ),
    (
        "bloated-document",
        bloated_document::check,
        Basis::Documents,
    ),
    (
        "time-series-per-event",
        time_series_per_event::check,
        Basis::Documents,
    ),
    ("dynamic-keys", dynamic_keys::check, Basis::Documents),
    ("mixed-types", mixed_types::check, Basis::Documents),
    (
        "denormalization-drift",
        denormalization_drift::check,
        Basis::Documents,
    ),
    (
        "missing-reference-index",
        missing_reference_index::check,
        Basis::Documents,
    ),
    ("redundant-index", redundant_index::check, Basis::Metadata),
    ("unused-index", unused_index::check, Basis::Metadata),
    ("too-many-indexes", too_many_indexes::check, Basis::Metadata),
    ("deep-nesting", deep_nesting::check, Basis::Documents),
    ("too-many-fields", too_many_fields::check, Basis::Documents),
    (
        "polymorphic-without-discriminator",
        polymorphic_without_discriminator::check,
        Basis::Documents,
    ),
    (
        "long-field-names",
        long_field_names::check,
        Basis::Documents,
    ),
    (
        "dangling-references",
        dangling_references::check,
        Basis::Documents,
    ),
    ("string-dates", string_dates::check, Basis::Documents),
    ("lossy-numbers", lossy_numbers::check, Basis::Documents),
    (
        "non-unique-reference-key",
        non_unique_reference_key::check,
        Basis::Documents,
    ),
];

/// Runs every enabled rule on one collection. Findings come sorted by
/// severity (worst first), then rule and path.
pub fn check_collection(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let mut out = Vec::new();
    for (id, rule, basis) in COLLECTION_RULES {
        if t.enabled(id) {
            for mut f in rule(ctx, t, lang) {
                stamp_scope(&mut f, ctx, basis);
                out.push(f);
            }
        }
    }
    sort(&mut out);
    out
}

/// Puts `scope` in a finding's evidence, the one place every finding gets
/// it: a rule that measured something on the whole collection (a server
/// count, every document) says so itself; otherwise the scope follows from
/// the documents its figures rest on (its `sampled` evidence).
fn stamp_scope(f: &mut Finding, ctx: &CollectionCtx<'_>, basis: Basis) {
    if f.evidence.contains_key("scope") {
        return;
    }
    let scope = match basis {
        Basis::Metadata => context::SCOPE_COLLECTION,
        Basis::Documents => {
            let n = f
                .evidence
                .get("sampled")
                .and_then(serde_json::Value::as_u64)
                .unwrap_or_else(|| ctx.sampled());
            ctx.scope_name(n)
        }
    };
    f.evidence.insert("scope".into(), scope.into());
}

/// Rules about a whole database or deployment; their figures (collection
/// listings) are always of the whole deployment: `scope` is `collection`.
pub fn check_deployment(ctx: &DeploymentCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let mut out = Vec::new();
    if t.enabled("too-many-collections") {
        out.extend(too_many_collections::check(ctx, t, lang));
    }
    for f in &mut out {
        f.evidence
            .entry("scope")
            .or_insert_with(|| context::SCOPE_COLLECTION.into());
    }
    sort(&mut out);
    out
}

pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.rule.cmp(b.rule))
            .then_with(|| a.namespace.cmp(&b.namespace))
            .then_with(|| a.path.cmp(&b.path))
    });
}

/// Builds the evidence object from `(name, value)` pairs.
pub fn evidence<const N: usize>(
    pairs: [(&str, serde_json::Value); N],
) -> serde_json::Map<String, serde_json::Value> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// The `threshold` entry of a finding's evidence: which number it crossed.
pub fn crossed(t: &Thresholds, rule: &str, key: &str) -> serde_json::Value {
    serde_json::json!({
        "name": format!("{rule}.{key}"),
        "value": t.get(rule, key),
        "profile": t.profile_name(),
    })
}
