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

use std::path::Path;

use super::Thresholds;
use crate::config::{self, rules::RulesSection};

/// The named profiles: TOML overlays on the defaults, read exactly as a
/// user's `docshape.toml` is.
const PROFILES: &[(&str, &str)] = &[
    ("default", ""),
    // Atlas's schema advisor and performance advisor.
    (
        "atlas",
        "
[too-many-indexes]
info = 30
warning = 30

[unbounded-array]
max-subdocument-length = 10000

[bloated-document]
p95-bytes = 2000000
",
    ),
    // Compass's schema and performance insights.
    (
        "compass",
        "
[too-many-indexes]
info = 10
warning = 10

[unbounded-array]
max-subdocument-length = 250

[document-near-limit]
warning-bytes = 10000000

[too-many-collections]
per-deployment = 10000
",
    ),
    (
        "strict",
        "
[unbounded-array]
min-correlation = 0.3
max-length = 1000
max-subdocument-length = 100

[large-reference-array]
warning-length = 500
critical-length = 5000

[document-near-limit]
warning-bytes = 4000000

[bloated-document]
p95-bytes = 1000000

[too-many-indexes]
info = 5
warning = 15

[too-many-fields]
info = 100
warning = 500

[deep-nesting]
warning = 10

[long-field-names]
share = 0.2

[mixed-types]
min-share = 0.001
",
    ),
];

pub const PROFILE_NAMES: [&str; 4] = ["default", "atlas", "compass", "strict"];

/// Why a configuration was refused (the configuration's own error).
pub use crate::config::ConfigError;

impl Default for Thresholds {
    /// The `default` profile.
    fn default() -> Self {
        Thresholds::profile("default").unwrap_or_else(Thresholds::defaults)
    }
}

impl Thresholds {
    /// The named profile over the defaults; `None` for an unknown name.
    pub fn profile(name: &str) -> Option<Thresholds> {
        let (_, overlay) = PROFILES.iter().find(|(n, _)| *n == name)?;
        let mut t = Thresholds {
            profile: name.to_owned(),
            ..Thresholds::defaults()
        };
        // The overlays are docshape's own and parse (a test reads each).
        let path = format!("profile {name}");
        let section = config::parse(overlay, &path).ok()?.rules;
        t.overlay(&section, &path).ok()?;
        Some(t)
    }

    pub(crate) fn profile_name(&self) -> &str {
        &self.profile
    }

    pub(crate) fn disabled(&self) -> &[String] {
        &self.disabled
    }

    pub(crate) fn enabled(&self, rule: &str) -> bool {
        !self.disabled.iter().any(|d| d == rule)
    }

    pub(crate) fn disable(&mut self, rule: &str) {
        self.disabled.push(rule.to_owned());
    }

    /// Loads a configuration file over a profile (`--rules`, which wins over
    /// the file's own `rules = …` when given).
    pub fn load(path: &Path, cli_profile: Option<&str>) -> Result<Thresholds, ConfigError> {
        let config = config::load(path)?;
        Thresholds::from_section(&config.rules, &path.display().to_string(), cli_profile)
    }

    pub fn parse(
        text: &str,
        path: &str,
        cli_profile: Option<&str>,
    ) -> Result<Thresholds, ConfigError> {
        Thresholds::from_section(&config::parse(text, path)?.rules, path, cli_profile)
    }

    /// The configuration's rules section over its profile (`cli_profile`
    /// wins over the section's own); `path` names the file in errors.
    pub(crate) fn from_section(
        section: &RulesSection,
        path: &str,
        cli_profile: Option<&str>,
    ) -> Result<Thresholds, ConfigError> {
        let name = cli_profile
            .or(section.profile.as_deref())
            .unwrap_or("default");
        let mut t = Thresholds::profile(name).ok_or_else(|| ConfigError::Profile {
            path: path.to_owned(),
            name: name.to_owned(),
        })?;
        t.overlay(section, path)?;
        Ok(t)
    }

    /// Switches off the section's rules and sets its rules' thresholds over
    /// those in force. On an error the thresholds are left part-set: the
    /// caller drops them.
    fn overlay(&mut self, section: &RulesSection, path: &str) -> Result<(), ConfigError> {
        let bad = |key: String, expected: &str| ConfigError::BadValue {
            path: path.to_owned(),
            key,
            expected: expected.to_owned(),
        };
        for id in &section.disable {
            if !super::RULES.contains(&id.as_str()) {
                return Err(ConfigError::UnknownKey {
                    path: path.to_owned(),
                    key: format!("disable: {id}"),
                    hint: format!(" (rules: {})", super::RULES.join(", ")),
                });
            }
        }
        // Rules switched off by `enabled = false`, in the file's key order.
        let mut switched_off: Vec<&str> = Vec::new();
        for (rule, value) in &section.tables {
            let Some(info) = super::registry::rule(rule) else {
                return Err(ConfigError::UnknownKey {
                    path: path.to_owned(),
                    key: rule.clone(),
                    hint: " (top-level keys: rules, disable, keys, theme, lang, connections, and one table per rule)".into(),
                });
            };
            let table = value
                .as_table()
                .ok_or_else(|| bad(rule.clone(), "a table of thresholds"))?;
            for (k, v) in table {
                let key = format!("{rule}.{k}");
                if k == "enabled" {
                    if !v.as_bool().ok_or_else(|| bad(key, "true or false"))? {
                        switched_off.push(rule);
                    }
                    continue;
                }
                if !info.has_threshold(k) {
                    let known: Vec<String> = info
                        .thresholds
                        .iter()
                        .map(super::registry::Meaning::key)
                        .collect();
                    return Err(ConfigError::UnknownKey {
                        path: path.to_owned(),
                        key,
                        hint: format!(" (known: enabled, {})", known.join(", ")),
                    });
                }
                let n = match v {
                    toml::Value::Integer(i) => *i as f64,
                    toml::Value::Float(f) if f.is_finite() => *f,
                    _ => return Err(bad(key, "a number")),
                };
                if n < 0.0 {
                    return Err(bad(key, "a number ≥ 0"));
                }
                self.set(rule, k, n);
            }
        }
        // The rules switched off, in the order of the file's sorted
        // top-level keys (the report lists them so).
        let (before, after): (Vec<&str>, Vec<&str>) =
            switched_off.into_iter().partition(|r| *r < "disable");
        for id in before
            .into_iter()
            .chain(section.disable.iter().map(String::as_str))
            .chain(after)
        {
            self.disable(id);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_where_the_products_differ() {
        let d = Thresholds::profile("default").expect("default");
        let a = Thresholds::profile("atlas").expect("atlas");
        let c = Thresholds::profile("compass").expect("compass");
        assert!((d.too_many_indexes.warning - 30.0).abs() < 1e-9);
        assert!((c.too_many_indexes.warning - 10.0).abs() < 1e-9);
        assert!((a.too_many_indexes.info - 30.0).abs() < 1e-9);
        assert!(Thresholds::profile("nope").is_none());
        assert_eq!(d.value("too-many-indexes", "warning"), Some(30.0));
        assert_eq!(d.value("no-rule", "x"), None);
        assert_eq!(d.value("too-many-indexes", "x"), None);
        for name in PROFILE_NAMES {
            assert_eq!(
                Thresholds::profile(name).map(|t| t.profile),
                Some(name.to_owned())
            );
        }
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
        assert!((t.unbounded_array.max_length - 42.0).abs() < 1e-9);
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

    #[test]
    fn every_shipped_configuration_gives_thresholds() {
        for (name, text) in crate::config::tests::shipped_configs() {
            Thresholds::parse(&text, &name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let t = Thresholds::parse("[long-field-names]\nmin-saved-bytes = 0\n", "x.toml", None)
            .expect("valid");
        assert!(t.long_field_names.min_saved_bytes.abs() < 1e-9);
        assert_eq!(t, {
            let mut d = Thresholds::default();
            d.long_field_names.min_saved_bytes = 0.0;
            d
        });
    }

    #[test]
    fn rules_switched_off_are_listed_in_the_files_key_order() {
        let t = Thresholds::parse(
            "disable = [\"mixed-types\"]\n[unused-index]\nenabled = false\n[deep-nesting]\nenabled = false\n",
            "x.toml",
            None,
        )
        .expect("valid");
        assert_eq!(
            t.disabled(),
            ["deep-nesting", "mixed-types", "unused-index"]
        );
    }

    #[test]
    fn a_mistyped_key_names_its_rule() {
        for (text, needle) in [
            (
                "[too-many-indexes]\nwarnng = 3\n",
                "unknown key `too-many-indexes.warnng` (known: enabled, ",
            ),
            (
                "[too-many-indexe]\nwarning = 3\n",
                "unknown key `too-many-indexe`",
            ),
            (
                "[deep-nesting]\nenabled = 1\n",
                "`deep-nesting.enabled` must be true or false",
            ),
            (
                "deep-nesting = 3\n",
                "`deep-nesting` must be a table of thresholds",
            ),
            ("rules = 3\n", "expected a string"),
            ("disable = \"deep-nesting\"\n", "expected a sequence"),
        ] {
            let e = Thresholds::parse(text, "x.toml", None)
                .expect_err(text)
                .to_string();
            assert!(e.contains(needle), "{text}: {e}");
            assert!(e.starts_with("x.toml"), "{e}");
        }
    }
}
