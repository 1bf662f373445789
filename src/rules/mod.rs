//! The rule catalogue (`../shared/spec/rules.md`). Every rule is a pure
//! function of what was measured — the profile, the collection's metadata,
//! relationships and growth — returning findings with their evidence, an
//! explanation citing where the rule comes from, and a suggestion.

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

const COLLECTION_RULES: [(&str, CollectionRule); 20] = [
    ("unbounded-array", unbounded_array::check),
    ("large-reference-array", large_reference_array::check),
    ("document-near-limit", document_near_limit::check),
    ("bloated-document", bloated_document::check),
    ("time-series-per-event", time_series_per_event::check),
    ("dynamic-keys", dynamic_keys::check),
    ("mixed-types", mixed_types::check),
    ("denormalization-drift", denormalization_drift::check),
    ("missing-reference-index", missing_reference_index::check),
    ("redundant-index", redundant_index::check),
    ("unused-index", unused_index::check),
    ("too-many-indexes", too_many_indexes::check),
    ("deep-nesting", deep_nesting::check),
    ("too-many-fields", too_many_fields::check),
    (
        "polymorphic-without-discriminator",
        polymorphic_without_discriminator::check,
    ),
    ("long-field-names", long_field_names::check),
    ("dangling-references", dangling_references::check),
    ("string-dates", string_dates::check),
    ("lossy-numbers", lossy_numbers::check),
    ("non-unique-reference-key", non_unique_reference_key::check),
];

/// Runs every enabled rule on one collection. Findings come sorted by
/// severity (worst first), then rule and path.
pub fn check_collection(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let mut out = Vec::new();
    for (id, rule) in COLLECTION_RULES {
        if t.enabled(id) {
            out.extend(rule(ctx, t, lang));
        }
    }
    sort(&mut out);
    out
}

/// Rules about a whole database or deployment.
pub fn check_deployment(ctx: &DeploymentCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let mut out = Vec::new();
    if t.enabled("too-many-collections") {
        out.extend(too_many_collections::check(ctx, t, lang));
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
