//! Thresholds: docshape's defaults, the named profiles (`default`, `atlas`,
//! `compass`, `strict`), and a user's `docshape.toml` on top.
//!
//! ```toml
//! rules = "atlas"                    # start from a named profile
//! disable = ["long-field-names"]     # rules to switch off
//!
//! [unbounded-array]
//! max-length = 5000                  # any threshold, by rule and name
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every threshold: rule, name, default value, what it means.
pub const DEFAULTS: &[(&str, &str, f64, &str)] = &[
    (
        "unbounded-array",
        "min-correlation",
        0.5,
        "rank correlation of length with age that counts as growth",
    ),
    (
        "unbounded-array",
        "min-documents",
        30.0,
        "documents needed to judge growth",
    ),
    (
        "unbounded-array",
        "max-length",
        10_000.0,
        "array length that is too long whatever its growth",
    ),
    (
        "unbounded-array",
        "max-subdocument-length",
        250.0,
        "length of arrays of sub-documents or strings that is too long",
    ),
    (
        "unbounded-array",
        "critical-days",
        365.0,
        "forecast (days to 16 MiB) that makes growth critical",
    ),
    (
        "large-reference-array",
        "warning-length",
        1_000.0,
        "references in one array that warrant a warning",
    ),
    (
        "large-reference-array",
        "critical-length",
        10_000.0,
        "references in one array that are critical",
    ),
    (
        "document-near-limit",
        "warning-bytes",
        10_000_000.0,
        "document size that warrants a warning",
    ),
    (
        "document-near-limit",
        "critical-bytes",
        12_582_912.0,
        "document size that is critical (75 % of 16 MiB)",
    ),
    (
        "document-near-limit",
        "forecast-days",
        365.0,
        "forecast horizon for growing documents, in days",
    ),
    (
        "bloated-document",
        "p95-bytes",
        2_000_000.0,
        "95th percentile document size that is bloated",
    ),
    (
        "bloated-document",
        "path-share",
        0.5,
        "share of all bytes one path may carry",
    ),
    (
        "bloated-document",
        "path-avg-bytes",
        262_144.0,
        "average bytes of that path that make it bloat",
    ),
    (
        "time-series-per-event",
        "min-documents",
        10_000.0,
        "collection size from which per-event storage is judged",
    ),
    (
        "time-series-per-event",
        "max-avg-bytes",
        256.0,
        "average document size below which documents are events",
    ),
    (
        "time-series-per-event",
        "date-presence",
        0.95,
        "share of documents with a date",
    ),
    (
        "time-series-per-event",
        "series-per-100",
        1.0,
        "distinct series-key values per 100 documents, at most",
    ),
    (
        "dynamic-keys",
        "data-like-share",
        0.8,
        "share of keys that look like data (numbers, dates, hex, UUIDs)",
    ),
    (
        "dynamic-keys",
        "min-keys",
        5.0,
        "keys an object needs before its keys are judged",
    ),
    (
        "dynamic-keys",
        "many-keys",
        50.0,
        "distinct keys beyond which rare keys are data",
    ),
    (
        "dynamic-keys",
        "rare-presence",
        0.1,
        "presence below which a key is rare",
    ),
    (
        "mixed-types",
        "min-share",
        0.01,
        "share of values a second type needs to count",
    ),
    (
        "denormalization-drift",
        "warning-share",
        0.01,
        "share of checked copies that disagree for a warning",
    ),
    (
        "dangling-references",
        "info-share",
        0.01,
        "share of references pointing at no document to inform",
    ),
    (
        "dangling-references",
        "warning-share",
        0.1,
        "share of references pointing at no document to warn",
    ),
    (
        "string-dates",
        "min-share",
        0.95,
        "share of documents whose string values are all dates",
    ),
    (
        "lossy-numbers",
        "min-values",
        1.0,
        "integral doubles beyond 2^53 that make a path lossy",
    ),
    (
        "lossy-numbers",
        "money-share",
        0.01,
        "share of a money path's doubles with inexact decimals",
    ),
    (
        "non-unique-reference-key",
        "require-unique-index",
        1.0,
        "1: a referenced key other than _id needs a unique index; 0: only duplicates count",
    ),
    (
        "missing-reference-index",
        "critical-documents",
        1_000_000.0,
        "child collection size that makes a missing index critical",
    ),
    (
        "unused-index",
        "min-days",
        7.0,
        "days of index statistics needed to call an index unused",
    ),
    (
        "too-many-indexes",
        "info",
        10.0,
        "indexes beyond which to inform",
    ),
    (
        "too-many-indexes",
        "warning",
        30.0,
        "indexes beyond which to warn",
    ),
    (
        "too-many-collections",
        "per-database",
        100.0,
        "collections in one database beyond which to inform",
    ),
    (
        "too-many-collections",
        "per-deployment",
        10_000.0,
        "collections in the deployment from which to warn",
    ),
    (
        "deep-nesting",
        "warning",
        20.0,
        "nesting depth beyond which to warn",
    ),
    (
        "deep-nesting",
        "critical",
        90.0,
        "nesting depth that is critical (the server refuses 100)",
    ),
    (
        "too-many-fields",
        "info",
        200.0,
        "distinct paths beyond which to inform",
    ),
    (
        "too-many-fields",
        "warning",
        1_000.0,
        "distinct paths beyond which to warn",
    ),
    (
        "polymorphic-without-discriminator",
        "max-similarity",
        0.5,
        "Jaccard similarity below which two shapes differ",
    ),
    (
        "polymorphic-without-discriminator",
        "min-share",
        0.05,
        "share of the sample each shape needs",
    ),
    (
        "long-field-names",
        "share",
        0.3,
        "share of document bytes taken by field names",
    ),
    (
        "long-field-names",
        "min-saved-share",
        0.1,
        "share of the average document the proposed renames must save",
    ),
    (
        "long-field-names",
        "min-saved-bytes",
        67_108_864.0,
        "bytes the renames must save over the whole collection (64 MiB)",
    ),
];

/// Overrides of the named profiles, over the defaults.
#[allow(clippy::type_complexity)]
const PROFILES: &[(&str, &[(&str, &str, f64)])] = &[
    ("default", &[]),
    (
        // Atlas's schema advisor and performance advisor.
        "atlas",
        &[
            ("too-many-indexes", "info", 30.0),
            ("too-many-indexes", "warning", 30.0),
            ("unbounded-array", "max-subdocument-length", 10_000.0),
            ("bloated-document", "p95-bytes", 2_000_000.0),
        ],
    ),
    (
        // Compass's schema and performance insights.
        "compass",
        &[
            ("too-many-indexes", "info", 10.0),
            ("too-many-indexes", "warning", 10.0),
            ("unbounded-array", "max-subdocument-length", 250.0),
            ("document-near-limit", "warning-bytes", 10_000_000.0),
            ("too-many-collections", "per-deployment", 10_000.0),
        ],
    ),
    (
        "strict",
        &[
            ("unbounded-array", "min-correlation", 0.3),
            ("unbounded-array", "max-length", 1_000.0),
            ("unbounded-array", "max-subdocument-length", 100.0),
            ("large-reference-array", "warning-length", 500.0),
            ("large-reference-array", "critical-length", 5_000.0),
            ("document-near-limit", "warning-bytes", 4_000_000.0),
            ("bloated-document", "p95-bytes", 1_000_000.0),
            ("too-many-indexes", "info", 5.0),
            ("too-many-indexes", "warning", 15.0),
            ("too-many-fields", "info", 100.0),
            ("too-many-fields", "warning", 500.0),
            ("deep-nesting", "warning", 10.0),
            ("long-field-names", "share", 0.2),
            ("mixed-types", "min-share", 0.001),
        ],
    ),
];

pub const PROFILE_NAMES: [&str; 4] = ["default", "atlas", "compass", "strict"];

/// Why a configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path}: not valid TOML: {reason}")]
    Syntax { path: String, reason: String },
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

/// Thresholds in force, and the rules switched off.
#[derive(Clone, Debug)]
pub struct Thresholds {
    profile: String,
    values: BTreeMap<(String, String), f64>,
    disabled: Vec<String>,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds::profile("default").unwrap_or_else(|| Thresholds {
            profile: "default".into(),
            values: BTreeMap::new(),
            disabled: Vec::new(),
        })
    }
}

impl Thresholds {
    /// The named profile over the defaults; `None` for an unknown name.
    pub fn profile(name: &str) -> Option<Thresholds> {
        let (_, overrides) = PROFILES.iter().find(|(n, _)| *n == name)?;
        let mut values: BTreeMap<(String, String), f64> = DEFAULTS
            .iter()
            .map(|(r, k, v, _)| (((*r).to_owned(), (*k).to_owned()), *v))
            .collect();
        for (r, k, v) in *overrides {
            values.insert(((*r).to_owned(), (*k).to_owned()), *v);
        }
        Some(Thresholds {
            profile: name.to_owned(),
            values,
            disabled: Vec::new(),
        })
    }

    pub fn profile_name(&self) -> &str {
        &self.profile
    }

    /// A threshold's value. Every name used by a rule is in `DEFAULTS`
    /// (a test checks it); an unknown name reads as NaN, which no
    /// comparison passes.
    pub fn get(&self, rule: &str, key: &str) -> f64 {
        self.values
            .get(&(rule.to_owned(), key.to_owned()))
            .copied()
            .unwrap_or(f64::NAN)
    }

    pub fn set(&mut self, rule: &str, key: &str, v: f64) {
        self.values.insert((rule.to_owned(), key.to_owned()), v);
    }

    pub fn disabled(&self) -> &[String] {
        &self.disabled
    }

    pub fn enabled(&self, rule: &str) -> bool {
        !self.disabled.iter().any(|d| d == rule)
    }

    pub fn disable(&mut self, rule: &str) {
        self.disabled.push(rule.to_owned());
    }

    /// Loads a configuration file over a profile (`--rules`, which wins over
    /// the file's own `rules = …` when given).
    pub fn load(path: &Path, cli_profile: Option<&str>) -> Result<Thresholds, ConfigError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: p.clone(),
            reason: e.to_string(),
        })?;
        Thresholds::parse(&text, &p, cli_profile)
    }

    pub fn parse(
        text: &str,
        path: &str,
        cli_profile: Option<&str>,
    ) -> Result<Thresholds, ConfigError> {
        let table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| ConfigError::Syntax {
                    path: path.to_owned(),
                    reason: e.message().to_owned(),
                })?;
        let file_profile = match table.get("rules") {
            None => None,
            Some(toml::Value::String(s)) => Some(s.clone()),
            Some(_) => {
                return Err(ConfigError::BadValue {
                    path: path.to_owned(),
                    key: "rules".into(),
                    expected: "a profile name (default, atlas, compass or strict)".into(),
                })
            }
        };
        let name = cli_profile
            .map(str::to_owned)
            .or(file_profile)
            .unwrap_or_else(|| "default".into());
        let mut t = Thresholds::profile(&name).ok_or_else(|| ConfigError::Profile {
            path: path.to_owned(),
            name: name.clone(),
        })?;
        for (key, value) in &table {
            match key.as_str() {
                "rules" | "keys" | "theme" | "lang" | "connections" => {}
                "disable" => {
                    let list = value.as_array().ok_or_else(|| ConfigError::BadValue {
                        path: path.to_owned(),
                        key: "disable".into(),
                        expected: "a list of rule identifiers".into(),
                    })?;
                    for item in list {
                        let Some(id) = item.as_str() else {
                            return Err(ConfigError::BadValue {
                                path: path.to_owned(),
                                key: "disable".into(),
                                expected: "a list of rule identifiers (strings)".into(),
                            });
                        };
                        if !super::RULES.contains(&id) {
                            return Err(ConfigError::UnknownKey {
                                path: path.to_owned(),
                                key: format!("disable: {id}"),
                                hint: format!(" (rules: {})", super::RULES.join(", ")),
                            });
                        }
                        t.disable(id);
                    }
                }
                rule if super::RULES.contains(&rule) => {
                    let Some(inner) = value.as_table() else {
                        return Err(ConfigError::BadValue {
                            path: path.to_owned(),
                            key: rule.to_owned(),
                            expected: "a table of thresholds".into(),
                        });
                    };
                    for (k, v) in inner {
                        let known: Vec<&str> = DEFAULTS.iter().filter(|d| d.0 == rule).map(|d| d.1).collect();
                        if k == "enabled" {
                            match v.as_bool() {
                                Some(false) => t.disable(rule),
                                Some(true) => {}
                                None => {
                                    return Err(ConfigError::BadValue {
                                        path: path.to_owned(),
                                        key: format!("{rule}.enabled"),
                                        expected: "true or false".into(),
                                    })
                                }
                            }
                            continue;
                        }
                        if !known.contains(&k.as_str()) {
                            return Err(ConfigError::UnknownKey {
                                path: path.to_owned(),
                                key: format!("{rule}.{k}"),
                                hint: format!(" (known: enabled, {})", known.join(", ")),
                            });
                        }
                        let n = match v {
                            toml::Value::Integer(i) => *i as f64,
                            toml::Value::Float(f) if f.is_finite() => *f,
                            _ => {
                                return Err(ConfigError::BadValue {
                                    path: path.to_owned(),
                                    key: format!("{rule}.{k}"),
                                    expected: "a number".into(),
                                })
                            }
                        };
                        if n < 0.0 {
                            return Err(ConfigError::BadValue {
                                path: path.to_owned(),
                                key: format!("{rule}.{k}"),
                                expected: "a number ≥ 0".into(),
                            });
                        }
                        t.set(rule, k, n);
                    }
                }
                other => {
                    return Err(ConfigError::UnknownKey {
                        path: path.to_owned(),
                        key: other.to_owned(),
                        hint: " (top-level keys: rules, disable, keys, theme, lang, and one table per rule)".into(),
                    })
                }
            }
        }
        Ok(t)
    }
}

/// The configuration file docshape reads when `--config` is not given:
/// `$XDG_CONFIG_HOME/docshape/docshape.toml` (or `~/.config/…`), if present.
pub fn default_path() -> Option<PathBuf> {
    let base = match std::env::var_os("XDG_CONFIG_HOME") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(std::env::var_os("HOME")?).join(".config"),
    };
    let p = base.join("docshape").join("docshape.toml");
    p.is_file().then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_where_the_products_differ() {
        let d = Thresholds::profile("default").expect("default");
        let a = Thresholds::profile("atlas").expect("atlas");
        let c = Thresholds::profile("compass").expect("compass");
        assert!((d.get("too-many-indexes", "warning") - 30.0).abs() < 1e-9);
        assert!((c.get("too-many-indexes", "warning") - 10.0).abs() < 1e-9);
        assert!((a.get("too-many-indexes", "info") - 30.0).abs() < 1e-9);
        assert!(Thresholds::profile("nope").is_none());
        assert!(d.get("no-rule", "x").is_nan());
    }

    #[test]
    fn overrides_and_clear_errors() {
        let t = Thresholds::parse(
            "rules = \"strict\"\ndisable = [\"long-field-names\"]\n[unbounded-array]\nmax-length = 42\n",
            "x.toml",
            None,
        )
        .expect("valid");
        assert_eq!(t.profile_name(), "strict");
        assert!((t.get("unbounded-array", "max-length") - 42.0).abs() < 1e-9);
        assert!(!t.enabled("long-field-names"));
        for (text, needle) in [
            (
                "[unbounded-array]\nmax-len = 3\n",
                "unknown key `unbounded-array.max-len`",
            ),
            (
                "[unbounded-array]\nmax-length = \"big\"\n",
                "`unbounded-array.max-length` must be a number",
            ),
            ("rules = \"fast\"\n", "unknown rule profile \"fast\""),
            ("disable = [\"nope\"]\n", "unknown key `disable: nope`"),
            ("colour = 1\n", "unknown key `colour`"),
            ("[[[", "not valid TOML"),
            ("[deep-nesting]\nwarning = -1\n", "must be a number ≥ 0"),
        ] {
            let e = Thresholds::parse(text, "x.toml", None)
                .expect_err(text)
                .to_string();
            assert!(e.contains(needle), "{text}: {e}");
            assert!(e.starts_with("x.toml"), "{e}");
        }
        let t =
            Thresholds::parse("rules = \"strict\"\n", "x.toml", Some("atlas")).expect("cli wins");
        assert_eq!(t.profile_name(), "atlas");
    }
}
