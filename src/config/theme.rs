//! A theme file (`themes/*.toml`, or the user's): its name, an optional
//! `parent` theme it overrides, a `[palette]` of named colours, and
//! `[colors]`: one slot per meaning (`severity.critical`, `type.string`,
//! `border.focused` …), each a palette name or a colour. The explorer
//! resolves the parents and turns the slots into terminal colours.
//!
//! `[colors] severity = { critical = "red" }` and `"severity.critical" =
//! "red"` mean the same.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer};

/// The layout of a theme file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThemeFile {
    /// The theme's name, for people (the file's stem names it to docshape).
    pub name: Option<String>,
    /// The theme this one overrides (else the default theme).
    pub parent: Option<String>,
    /// Colours by a name of the theme's own, for `[colors]` to use.
    #[serde(default)]
    pub palette: BTreeMap<String, String>,
    #[serde(default, deserialize_with = "nested_colors")]
    pub colors: Colors,
}

/// Declares [`Colors`]: one optional colour per meaning, and the list of
/// meanings.
macro_rules! slots {
    ($($name:literal => $field:ident,)*) => {
        /// The colour of each meaning, as written: a palette name, a
        /// colour name or `#rrggbb`. `None` takes the parent's.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct Colors {
            $(
                #[serde(rename = $name)]
                pub $field: Option<String>,
            )*
        }

        impl Colors {
            /// Every meaning a theme colours.
            pub const SLOTS: &'static [&'static str] = &[$($name),*];

            /// The slots this theme sets, with their values.
            pub(crate) fn set(&self) -> Vec<(&'static str, &str)> {
                let mut out = Vec::new();
                $(
                    if let Some(v) = &self.$field {
                        out.push(($name, v.as_str()));
                    }
                )*
                out
            }

            /// These colours with `over`'s wherever it sets one.
            pub(crate) fn overlay(&mut self, over: Colors) {
                $(
                    if over.$field.is_some() {
                        self.$field = over.$field;
                    }
                )*
            }
        }
    };
}

slots! {
    "background" => background,
    "text" => text,
    "text.dim" => text_dim,
    "text.title" => text_title,
    "border" => border,
    "border.focused" => border_focused,
    "selection.bg" => selection_bg,
    "status.bg" => status_bg,
    "status.fg" => status_fg,
    "status.error" => status_error,
    "status.warning" => status_warning,
    "tab.active" => tab_active,
    "severity.critical" => severity_critical,
    "severity.warning" => severity_warning,
    "severity.info" => severity_info,
    "type.string" => type_string,
    "type.number" => type_number,
    "type.bool" => type_bool,
    "type.date" => type_date,
    "type.objectid" => type_objectid,
    "type.object" => type_object,
    "type.array" => type_array,
    "type.null" => type_null,
    "type.other" => type_other,
    "code.string" => code_string,
    "code.number" => code_number,
    "code.keyword" => code_keyword,
    "code.comment" => code_comment,
    "code.key" => code_key,
    "chart.bar" => chart_bar,
}

/// Reads `[colors]`, nested tables joined into dotted slot names, into
/// the typed slots (an unknown slot is refused by name).
fn nested_colors<'de, D: Deserializer<'de>>(d: D) -> Result<Colors, D::Error> {
    use serde::de::Error;
    let table = toml::Table::deserialize(d)?;
    let mut flat = toml::Table::new();
    flatten("", &table, &mut flat).map_err(D::Error::custom)?;
    Colors::deserialize(toml::Value::Table(flat)).map_err(|e| D::Error::custom(e.message()))
}

/// A `[colors]` entry that is neither a colour nor a table of them.
#[derive(Debug, thiserror::Error)]
#[error("colour `{0}` must be a string")]
struct NotAString(String);

fn flatten(prefix: &str, t: &toml::Table, out: &mut toml::Table) -> Result<(), NotAString> {
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::Table(sub) => flatten(&key, sub, out)?,
            toml::Value::String(_) => {
                out.insert(key, v.clone());
            }
            _ => return Err(NotAString(key)),
        }
    }
    Ok(())
}
