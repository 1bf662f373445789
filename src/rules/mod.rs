//! The rules (`../shared/spec/rules.md`). Every rule is a pure function of
//! what was measured — the profile, the collection's metadata,
//! relationships and growth — returning findings with their evidence and a
//! typed [`Remedy`]; `advise` turns the remedy into a suggestion. Each rule
//! is one declaration in its file of the [`catalog`] (`declare.rs`),
//! from which its explanation, source and thresholds come.
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
//! - The workload rules (`--workload`) report a shape only when they can
//!   name the fix: `index-esr` and `unindexed-query` skip shapes no single
//!   index serves (an `$or`, an `_id` lookup) and shapes an index already
//!   serves (made after the log was written); `unindexed-query` leaves a
//!   frequent shape to `index-esr` (one cause, one finding);
//!   `write-amplified-copy` needs updates of a copied field in the
//!   workload (copies that drift without them are `denormalization-drift`'s);
//!   `case-insensitive-regex` skips a field a case-insensitive collation
//!   index leads with, and `lookup-on-hot-path` a join of many documents
//!   by a reference that is indexed (the fix each suggests, made after the
//!   log was written).
//! - `unbounded-array`'s severity follows its forecast: critical within a
//!   year (as rules.md), a warning within ten years (`warning-days`), info
//!   beyond — rules.md's "else warning" would rate an array passing 16 MiB
//!   in 5,480 years as one. Growth is also read inside one document
//!   (`element-dates`), from 20 dated elements (`min-dated-elements`), where
//!   too few documents exist for the cross-section's 30.
//! - `push-without-slice` is critical with measured growth only when that
//!   growth passes 16 MiB within `critical-days` (a year); further off, the
//!   unbounded `$push` keeps its warning.
//! - `numeric-strings` needs at least `min-values` numbers written as
//!   text (5): a handful of values cannot tell a quantity from a label.
//!   Digit strings that are codes are never reported (leading zeros in one
//!   value in ten, one fixed width of three digits or more, whole numbers
//!   of nine digits or more, names such as `…Id`, `code`, `zip`, `phone`,
//!   `version`, a name ending in `number`, HTTP `headers`): a fixed width
//!   sorts as text the way it does as a number, so a year written as
//!   `"2019"` is left too, as the conversions of `mixed-types` leave it.
//! - `expiring-without-ttl` is a warning only in a store of sessions or
//!   tokens (named so), whose expired documents the application has no use
//!   for; an expiry field elsewhere (`jobs.dateExpire`) is an info, and none
//!   at all in a collection a reference points at, where most documents
//!   lack the date (a library's few reservations among its loans) or for a
//!   qualified name (`users.local.resetPasswordExpires` dates a reset, not
//!   the user): a TTL index deletes whole documents. It is an info too when the indexes are
//!   unknown (an export without metadata), which it says.
//! - Growth forecasts (`days_to_limit`, `document-near-limit`,
//!   `unbounded-array`) start from the largest document, not the p99 one
//!   the contract names: the largest is the document at risk, and a
//!   forecast from a smaller one contradicts its size told beside it.

pub mod catalog;
pub mod config;
pub mod context;
pub mod date_text;
pub(crate) mod declare;
pub mod docs;
pub mod extremes;
pub mod number_text;
pub mod registry;
pub mod remedy;
pub mod shapes;

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod cases;
#[cfg(test)]
mod cases_references;
#[cfg(test)]
mod cases_workload;
#[cfg(test)]
pub(crate) mod kit;
#[cfg(test)]
mod tests;

use serde::Serialize;

pub use catalog::*;
pub use config::ConfigError;
pub use context::{
    CollectionCtx, CollectionSummary, DeploymentCtx, DriftCheck, Measured, ShapesView,
};
pub use registry::{Basis, Check, Needs, RuleInfo};
pub use remedy::{Reaudit, Remedy};

use crate::i18n::Lang;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
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

    /// The severity as a reader of `lang` says it (the contract's name in
    /// English).
    pub(crate) fn label(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => self.name(),
            Lang::Zh => match self {
                Severity::Info => "提示",
                Severity::Warning => "警告",
                Severity::Critical => "严重",
            },
        }
    }
}

/// One thing in the schema that will hurt, with its proof and what to do
/// about it.
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
    /// The refactor proposed, for `advise` to spell out.
    #[serde(skip)]
    pub remedy: Remedy,
}

/// Every rule identifier, in the contract's order.
pub const RULES: [&str; REGISTRY.len()] = registry::ids(&[
    Needs::Itself,
    Needs::Everything,
    Needs::Workload,
    Needs::Shapes,
]);

/// The collection rules that read nothing but the collection itself (its
/// documents, profile, growth, extremes and indexes): never the
/// relationships, the copies' drift, the index statistics or the workload
/// ([`Needs::Itself`]). They can judge a collection as soon as it is read;
/// the others wait for every collection (a test holds each of these to its
/// final findings).
pub const ALONE_RULES: [&str; 12] = registry::ids(&[Needs::Itself]);

/// Runs every enabled rule on one collection. Findings come sorted by
/// severity (worst first), then rule and path.
pub(crate) fn check_collection(
    ctx: &CollectionCtx<'_>,
    t: &Thresholds,
    lang: Lang,
) -> Vec<Finding> {
    check_collection_where(ctx, t, lang, |_| true)
}

/// [`check_collection`] with only the [`ALONE_RULES`]: what a collection
/// shows as soon as it is read.
pub(crate) fn check_collection_alone(
    ctx: &CollectionCtx<'_>,
    t: &Thresholds,
    lang: Lang,
) -> Vec<Finding> {
    check_collection_where(ctx, t, lang, |id| ALONE_RULES.contains(&id))
}

fn check_collection_where(
    ctx: &CollectionCtx<'_>,
    t: &Thresholds,
    lang: Lang,
    wanted: impl Fn(&str) -> bool,
) -> Vec<Finding> {
    let rules: Vec<_> = REGISTRY
        .iter()
        .filter(|r| t.enabled(r.id) && wanted(r.id))
        .filter_map(|r| match r.check {
            Check::Collection(rule, basis) => Some((rule, basis)),
            Check::Deployment(_) => None,
        })
        .collect();
    // Each rule reads the collection on its own: a collection's rules run
    // on every core (a few of them walk every kept document).
    let found = crate::profile::parallel::map_ordered(rules.len(), |i| {
        let (rule, basis) = rules[i];
        let mut found = rule(ctx, t, lang);
        for f in &mut found {
            stamp_scope(f, ctx, basis);
        }
        found
    });
    let mut out: Vec<Finding> = found.into_iter().flatten().collect();
    sort(&mut out);
    out
}

/// The rules that need only the workload's query shapes ([`Needs::Shapes`]).
pub const SHAPE_RULES: [&str; 4] = registry::ids(&[Needs::Shapes]);

/// Every rule that judges a workload's query shapes (`--workload`).
pub const WORKLOAD_RULES: [&str; 6] = registry::ids(&[Needs::Workload, Needs::Shapes]);

/// Runs the [`SHAPE_RULES`] on a collection known only from the workload
/// (`audit --workload LOG` with no target). The others need documents,
/// counts or indexes (`unindexed-query` needs the collection's size).
pub fn check_shapes_only(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in REGISTRY.iter().filter(|r| SHAPE_RULES.contains(&r.id)) {
        if let Check::Collection(rule, _) = r.check {
            if t.enabled(r.id) {
                for mut f in rule(ctx, t, lang) {
                    f.evidence.insert("scope".into(), "workload".into());
                    out.push(f);
                }
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
pub(crate) fn check_deployment(
    ctx: &DeploymentCtx<'_>,
    t: &Thresholds,
    lang: Lang,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for r in &REGISTRY {
        if let Check::Deployment(rule) = r.check {
            if t.enabled(r.id) {
                out.extend(rule(ctx, t, lang));
            }
        }
    }
    for f in &mut out {
        f.evidence
            .entry("scope")
            .or_insert_with(|| context::SCOPE_COLLECTION.into());
    }
    sort(&mut out);
    out
}

pub(crate) fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.rule.cmp(b.rule))
            .then_with(|| a.namespace.cmp(&b.namespace))
            .then_with(|| a.path.cmp(&b.path))
    });
}

/// A rule's evidence: the typed facts a finding rests on. Serialised, it
/// is the report's `evidence` object (its fields, in order, are the
/// report's keys); described, it is the finding's message in either
/// language, so the words come from the facts and from one place.
pub trait Evidence: Serialize {
    /// The finding's message in `lang`.
    fn describe(&self, lang: Lang) -> String;
}

impl Finding {
    /// A finding from its typed evidence, its message the evidence
    /// described in `lang`.
    pub(crate) fn new(
        rule: &'static str,
        severity: Severity,
        namespace: &str,
        path: Option<String>,
        evidence: &impl Evidence,
        lang: Lang,
        remedy: Remedy,
    ) -> Finding {
        let message = evidence.describe(lang);
        let evidence = match serde_json::to_value(evidence) {
            Ok(serde_json::Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        Finding {
            rule,
            severity,
            namespace: namespace.to_owned(),
            path,
            message,
            evidence,
            remedy,
        }
    }
}

/// The `threshold` entry of a finding's evidence: which number it crossed
/// (a rule's typed `Key`), its value in force and the profile.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Crossed {
    pub name: String,
    pub value: f64,
    pub profile: String,
}

impl Crossed {
    pub(crate) fn of<K: registry::Threshold>(t: &Thresholds, key: K) -> Crossed {
        Crossed {
            name: key.name(),
            value: key.value(t),
            profile: t.profile_name().to_owned(),
        }
    }
}
