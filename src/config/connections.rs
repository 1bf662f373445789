//! `[connections.NAME]`: saved connections, so that `docshape prod` opens
//! one by name. An entry holds a URI without its password and, optionally,
//! the environment variable the password comes from; the target stage
//! refuses a URI that holds a password and asks for one that is missing.

use std::collections::BTreeMap;

use serde::Deserialize;

/// Saved connections by name.
pub type ConnectionsSection = BTreeMap<String, Connection>;

/// One saved connection.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Connection {
    pub uri: String,
    /// The environment variable holding the password (never the file).
    pub password_env: Option<String>,
}
