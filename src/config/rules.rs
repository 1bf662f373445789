//! The rules' part of `docshape.toml`: the profile to start from, the
//! rules switched off, and one table of thresholds per rule. The rules
//! stage knows which rules and thresholds exist (each rule's `Limits`) and
//! turns this section into its `Thresholds`, refusing what names none.

use std::collections::BTreeMap;

use serde::Deserialize;

/// `rules = …`, `disable = […]` and the `[rule-id]` tables.
#[derive(Debug, Default, Deserialize)]
pub struct RulesSection {
    /// `rules = "atlas"`: the named profile the thresholds start from.
    #[serde(rename = "rules")]
    pub profile: Option<String>,
    /// `disable = ["long-field-names"]`: rules switched off.
    #[serde(default)]
    pub disable: Vec<String>,
    /// Every other top-level key: a rule's table, by the rule's id.
    #[serde(flatten)]
    pub tables: BTreeMap<String, toml::Value>,
}
