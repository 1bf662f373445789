//! What a rule declares, and the lookups over the catalogue.
//!
//! A rule is one declaration in its own file under `rules/catalog/`: the
//! `rule!` macro gives it its id, its one-line title (SARIF's short
//! description), why it matters (explanation, both languages), where it
//! comes from, what it needs to run, its check, and its thresholds (a
//! typed `Limits` with defaults and meanings, and a `Key` per threshold).
//! The catalogue's one list (`catalog!`, in `rules/catalog/mod.rs`)
//! makes the registry, the configuration's [`Thresholds`] and every rule
//! set from them. The rule list, the configuration, SARIF's rule
//! descriptors and `docs/rules.md` all read the registry. Adding a rule:
//! its own file, one line in the catalogue.

use super::{CollectionCtx, DeploymentCtx, Finding, Thresholds, REGISTRY};
use crate::i18n::Lang;

/// A rule on one collection.
pub type CollectionCheck = fn(&CollectionCtx<'_>, &Thresholds, Lang) -> Vec<Finding>;
/// A rule on every database read.
pub type DeploymentCheck = fn(&DeploymentCtx<'_>, &Thresholds, Lang) -> Vec<Finding>;

/// What a rule looks at, and so how it runs.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    Collection(CollectionCheck, Basis),
    Deployment(DeploymentCheck),
}

/// What a collection rule's figures rest on, for the `scope` of its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Documents read: `sample` unless every document was (the number read
    /// is the finding's `sampled` evidence, else the profile's).
    Documents,
    /// The collection's metadata (its indexes, their statistics): always
    /// `collection`.
    Metadata,
}

/// What a rule needs before it can judge, and so when it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// The collection itself (its documents, profile, growth, extremes and
    /// indexes), never another collection: it judges a collection as soon
    /// as it is read (a test holds each such rule to its final findings).
    Itself,
    /// Every collection read: relationships, copies' drift, index
    /// statistics or the whole deployment.
    Everything,
    /// The workload's query shapes (`--workload`) with the collection's
    /// documents, counts or indexes.
    Workload,
    /// The workload's query shapes alone: it runs on a collection known
    /// only from the workload (`audit --workload LOG` with no target).
    Shapes,
}

/// One threshold a rule declares: its field in the rule's `Limits` and
/// what it means.
#[derive(Clone, Copy, Debug)]
pub struct Meaning {
    /// The field's name in `Limits` (snake case).
    pub field: &'static str,
    /// What the threshold means, from the field's doc comment.
    meaning: &'static str,
}

impl Meaning {
    #[doc(hidden)]
    pub const fn new(field: &'static str, meaning: &'static str) -> Meaning {
        Meaning { field, meaning }
    }

    /// The key in the rule's `[rule-id]` table (`max-length`).
    pub(crate) fn key(&self) -> String {
        key_of(self.field)
    }

    /// What the threshold means, one line.
    pub fn meaning(&self) -> &'static str {
        self.meaning.trim()
    }
}

/// A threshold's key in `docshape.toml` from its field in `Limits`
/// (`max_length` → `max-length`), as serde's kebab case names it.
fn key_of(field: &str) -> String {
    field.replace('_', "-")
}

/// One rule of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct RuleInfo {
    pub id: &'static str,
    /// One line, English (SARIF `shortDescription`).
    pub title: &'static str,
    /// Why it matters: `(English, Chinese)`.
    pub explanation: (&'static str, &'static str),
    /// Where the rule comes from (a seed file, MongoDB's documentation …).
    pub source: &'static str,
    /// The keys of its `[rule-id]` table and what each means (the values
    /// are in the rule's `Limits`), in the order the docs list them.
    pub thresholds: &'static [Meaning],
    pub check: Check,
    pub needs: Needs,
}

impl RuleInfo {
    /// The explanation in `lang`.
    pub(crate) fn explanation(&self, lang: Lang) -> &'static str {
        lang.pick(self.explanation.0, self.explanation.1)
    }

    /// Whether `key` is one of its thresholds (as written in
    /// `docshape.toml`).
    pub(crate) fn has_threshold(&self, key: &str) -> bool {
        self.thresholds.iter().any(|m| m.key() == key)
    }
}

/// The rule with this id.
pub(crate) fn rule(id: &str) -> Option<&'static RuleInfo> {
    REGISTRY.iter().find(|r| r.id == id)
}

/// The ids of the rules that need what `wanted` accepts, in the
/// contract's order (`N` is their number: a mismatch fails to compile).
pub(crate) const fn ids<const N: usize>(wanted: &[Needs]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut n) = (0, 0);
    while i < REGISTRY.len() {
        let mut j = 0;
        while j < wanted.len() {
            if wanted[j] as u8 == REGISTRY[i].needs as u8 {
                out[n] = REGISTRY[i].id;
                n += 1;
            }
            j += 1;
        }
        i += 1;
    }
    assert!(n == N, "the rule set's length is not its number of rules");
    out
}

/// A threshold of one rule, typed: each rule's `Key` (one variant per
/// field of its `Limits`), so a finding names a threshold that exists.
pub trait Threshold: Copy {
    /// The rule's id.
    const RULE: &'static str;
    /// The threshold's field in `Limits`.
    fn field(self) -> &'static str;
    /// Its value in force.
    fn value(self, t: &Thresholds) -> f64;
    /// `rule-id.key`, as evidence and `docshape.toml` name it.
    fn name(self) -> String {
        format!("{}.{}", Self::RULE, key_of(self.field()))
    }
}

/// A rule's `Limits` as the thresholds in force hold it.
pub trait Of {
    fn of(t: &Thresholds) -> &Self;
}
