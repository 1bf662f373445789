//! `[keys]`: the explorer's keys, `action = "key"` or `action = ["key",
//! …]`. The explorer knows its actions and the keys' names, and refuses an
//! entry naming an action it does not have.

use std::collections::BTreeMap;

use serde::Deserialize;

/// Keys by action name.
pub type KeysSection = BTreeMap<String, Binding>;

/// The keys bound to one action.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged, expecting = "expected a key or a list of keys")]
pub enum Binding {
    One(String),
    Many(Vec<String>),
}

impl Binding {
    /// The keys as written.
    pub(crate) fn keys(&self) -> Vec<&str> {
        match self {
            Binding::One(k) => vec![k.as_str()],
            Binding::Many(ks) => ks.iter().map(String::as_str).collect(),
        }
    }
}
