//! `docshape.toml`, read once into typed sections, one module per section:
//! the rules' thresholds ([`rules`]), saved connections ([`connections`]),
//! the explorer's keys ([`keys`]) and its theme (`theme = …` here, the
//! theme files' own layout in [`theme`]).
//!
//! The file is only read here; each stage turns its own section into what
//! it works with (the rules into `Thresholds`, the explorer into a keymap
//! and colours), so this module names nothing of the stages above it.
//!
//! ```toml
//! rules = "atlas"                    # a named threshold profile
//! disable = ["long-field-names"]     # rules to switch off
//! theme = "solarized"                # the explorer's theme
//!
//! [unbounded-array]                  # one table per rule
//! max-length = 5000
//!
//! [keys]                             # the explorer's keys, by action
//! quit = ["q", "ctrl-c"]
//!
//! [connections.prod]                 # `docshape prod`
//! uri = "mongodb://reader@db1.example.com:27017/"
//! password-env = "DOCSHAPE_PROD_PASSWORD"
//! ```

pub mod connections;
pub mod keys;
pub mod rules;
pub mod theme;

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::Deserialize;

/// Everything `docshape.toml` holds. A rule's table is a top-level table
/// named after the rule, so the rules' section takes every key the other
/// sections do not; the rules stage refuses the ones that name no rule.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct Config {
    /// `[keys]`: the explorer's keys, by action.
    #[serde(default)]
    pub keys: keys::KeysSection,
    /// `theme = "NAME|PATH"`: the explorer's theme (`--theme` wins).
    pub theme: Option<String>,
    /// `lang = "en|zh"`: accepted for the language (`--lang` and `$LANG`
    /// decide it).
    pub lang: Option<String>,
    /// `[connections.NAME]`: saved connections.
    #[serde(default)]
    pub connections: connections::ConnectionsSection,
    /// `rules`, `disable` and one `[rule-id]` table per rule.
    #[serde(flatten)]
    pub rules: rules::RulesSection,
}

/// Why a configuration (or a theme file) was refused. Every message starts
/// with the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not valid TOML: {reason} (line {line}, column {column})")]
    Syntax {
        path: String,
        reason: String,
        line: usize,
        column: usize,
    },
    /// Valid TOML that does not fit: an unknown key, a value of the wrong
    /// type. `section` is the table it is in (`top level` for none).
    #[error("{path}, line {line}, column {column}, in {section}: {reason}")]
    Invalid {
        path: String,
        section: String,
        reason: String,
        line: usize,
        column: usize,
    },
    #[error("{path}: unknown rule profile \"{name}\" (known: default, atlas, compass, strict)")]
    Profile { path: String, name: String },
    #[error("{path}: unknown key `{key}`{hint}")]
    UnknownKey {
        path: String,
        key: String,
        hint: String,
    },
    #[error("{path}: `{key}` must be {expected}")]
    BadValue {
        path: String,
        key: String,
        expected: String,
    },
}

/// Reads and parses a configuration file.
pub(crate) fn load(path: &Path) -> Result<Config, ConfigError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: shown.clone(),
        source,
    })?;
    parse(&text, &shown)
}

/// Parses a configuration's text; `path` names it in errors.
pub(crate) fn parse(text: &str, path: &str) -> Result<Config, ConfigError> {
    from_toml(text, path)
}

/// Reads a TOML text into a typed value. An error says where: the line, the
/// column and the table, with toml's own words (which name the key).
pub(crate) fn from_toml<T: DeserializeOwned>(text: &str, path: &str) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        let (line, column) = line_column(text, at);
        let reason = e.message().to_owned();
        // Only a text that is not TOML at all fails to parse untyped.
        if text.parse::<toml::Table>().is_err() {
            ConfigError::Syntax {
                path: path.to_owned(),
                reason,
                line,
                column,
            }
        } else {
            // toml names an unknown key itself; a value of the wrong kind
            // is named by the key on its line.
            let reason = match key_at(text, at) {
                Some(key) if !reason.contains(&format!("`{key}`")) => format!("`{key}`: {reason}"),
                _ => reason,
            };
            ConfigError::Invalid {
                path: path.to_owned(),
                section: section_at(text, at),
                reason,
                line,
                column,
            }
        }
    })
}

/// The 1-based line and column of a byte offset.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..floor(text, at)];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// The table a byte offset is in, as written in its header (`[keys]`,
/// `[connections.prod]`), or `top level`.
fn section_at(text: &str, at: usize) -> String {
    let end = floor(text, at);
    // The header itself counts as inside its table.
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    text[..line_end]
        .lines()
        .map(str::trim)
        .rfind(|l| l.starts_with('['))
        .and_then(|l| l.split('#').next())
        .map_or_else(|| "top level".to_owned(), |h| h.trim().to_owned())
}

/// The key of the `key = value` line a byte offset is on.
fn key_at(text: &str, at: usize) -> Option<String> {
    let at = floor(text, at);
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next()?.trim();
    if line.starts_with('[') {
        return None;
    }
    let (key, _) = line.split_once('=')?;
    Some(
        key.trim()
            .trim_matches(|c| c == '"' || c == '\'')
            .to_owned(),
    )
}

/// The char boundary at or before byte `i` of `text`.
fn floor(text: &str, i: usize) -> usize {
    let mut i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The configuration file docshape reads when `--config` is not given:
/// `$XDG_CONFIG_HOME/docshape/docshape.toml` (or `~/.config/…`), if present.
pub(crate) fn default_path() -> Option<PathBuf> {
    let p = crate::paths::config_dir()?.join("docshape.toml");
    p.is_file().then_some(p)
}

/// The file to read: the one given (`--config`), else [`default_path`].
pub(crate) fn path(given: Option<&Path>) -> Option<PathBuf> {
    given.map(Path::to_path_buf).or_else(default_path)
}

#[cfg(test)]
pub(crate) mod tests;
