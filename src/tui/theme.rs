//! Colours by meaning (`severity.critical`, `type.string`, `border.focused`
//! …) read from `themes/*.toml` (laid out as `config::theme` says): a
//! `[palette]` of named colours, `[colors]` mapping meanings to palette
//! names or `#rrggbb`, and an optional `parent`.
//! The shipped themes are compiled in; user themes live in
//! `$XDG_CONFIG_HOME/docshape/themes`. A bad theme never stops the explorer:
//! it falls back to the default and says why.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};

use crate::config::{self, theme::Colors, theme::ThemeFile};
use crate::profile::raw::BsonType;
use crate::rules::Severity;

/// The shipped themes, embedded so an installed binary has them.
pub const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("projector", include_str!("../../themes/projector.toml")),
    ("solarized", include_str!("../../themes/solarized.toml")),
];

pub const DEFAULT: &str = "dark";

/// Parents deeper than this are taken for a cycle.
const MAX_PARENTS: usize = 8;

#[derive(Clone, Debug)]
pub struct Theme {
    pub name: String,
    colors: HashMap<String, Color>,
    /// `NO_COLOR`: no colour at all, emphasis by modifiers only.
    pub no_color: bool,
}

impl Default for Theme {
    fn default() -> Self {
        Theme::builtin(DEFAULT).unwrap_or_else(|_| Theme {
            name: DEFAULT.into(),
            colors: HashMap::new(),
            no_color: false,
        })
    }
}

/// Why a theme cannot be used (its `Display` the sentence the user sees,
/// naming the theme, and the slot and value where one is at fault).
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    /// The file is not a theme: TOML or its layout, with line and column.
    #[error("{0}")]
    Parse(#[from] config::ConfigError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    /// No theme by that name; `available` lists those there are.
    #[error("no theme named `{name}`; themes: {}", available.join(", "))]
    Unknown {
        name: String,
        available: Vec<String>,
    },
    #[error("no theme named `{0}`")]
    NotBuiltin(String),
    #[error("theme `{0}`: parents nest too deep (a cycle?)")]
    ParentsTooDeep(String),
    #[error("parent of `{name}`: {source}")]
    Parent {
        name: String,
        source: Box<ThemeError>,
    },
    #[error("theme `{theme}`: [colors] `{slot}`: `{written}` is not a colour")]
    NotAColour {
        theme: String,
        slot: String,
        written: String,
    },
    #[error("theme `{theme}`: [colors] `{slot}`: `{written}` is `{resolved}` in the palette, not a colour")]
    PaletteNotAColour {
        theme: String,
        slot: String,
        written: String,
        resolved: String,
    },
}

/// A theme file's text, typed; `name` names it in errors.
fn parse_file(name: &str, text: &str) -> Result<ThemeFile, ThemeError> {
    Ok(config::from_toml(text, &format!("theme `{name}`"))?)
}

/// Where user themes live: `themes/` in docshape's configuration directory.
pub(crate) fn user_dir() -> Option<PathBuf> {
    Some(crate::paths::config_dir()?.join("themes"))
}

/// Every theme `--theme` accepts by name: the user's (in [`user_dir`]),
/// then the shipped ones.
pub(crate) fn available() -> Vec<String> {
    let mut names: Vec<String> = user_dir()
        .and_then(|d| std::fs::read_dir(d).ok())
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let p = e.ok()?.path();
            if p.extension()? != "toml" {
                return None;
            }
            Some(p.file_stem()?.to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    for (n, _) in BUILTIN {
        if !names.iter().any(|u| u == n) {
            names.push((*n).to_owned());
        }
    }
    names
}

/// The text of a theme by name (user directory first, then shipped) or path.
fn text_of(spec: &str) -> Result<String, ThemeError> {
    let looks_like_path = spec.contains('/')
        || Path::new(spec)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    if looks_like_path {
        return std::fs::read_to_string(spec).map_err(|source| ThemeError::Read {
            path: spec.to_owned(),
            source,
        });
    }
    if let Some(dir) = user_dir() {
        let p = dir.join(format!("{spec}.toml"));
        if p.is_file() {
            return std::fs::read_to_string(&p).map_err(|source| ThemeError::Read {
                path: p.display().to_string(),
                source,
            });
        }
    }
    BUILTIN
        .iter()
        .find(|(n, _)| *n == spec)
        .map(|(_, t)| (*t).to_owned())
        .ok_or_else(|| ThemeError::Unknown {
            name: spec.to_owned(),
            available: available(),
        })
}

impl Theme {
    pub fn builtin(name: &str) -> Result<Theme, ThemeError> {
        let text = BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| ThemeError::NotBuiltin(name.to_owned()))?;
        Theme::from_text(name, text, &|p| text_of(p))
    }

    /// Resolves a theme from its text; `load` fetches parents by name.
    pub(crate) fn from_text(
        name: &str,
        text: &str,
        load: &dyn Fn(&str) -> Result<String, ThemeError>,
    ) -> Result<Theme, ThemeError> {
        let mut chain = vec![parse_file(name, text)?];
        while let Some(parent) = chain.last().and_then(|r| r.parent.clone()) {
            if chain.len() > MAX_PARENTS {
                return Err(ThemeError::ParentsTooDeep(name.to_owned()));
            }
            let t = load(&parent).map_err(|e| ThemeError::Parent {
                name: name.to_owned(),
                source: Box::new(e),
            })?;
            chain.push(parse_file(&parent, &t)?);
        }
        // Every theme stands on the default, so a partial one is complete.
        if chain.last().and_then(|r| r.parent.as_deref()).is_none() && name != DEFAULT {
            let base = BUILTIN
                .iter()
                .find(|(n, _)| *n == DEFAULT)
                .map_or("", |(_, t)| *t);
            chain.push(parse_file(DEFAULT, base)?);
        }
        let mut palette = BTreeMap::new();
        let mut colors = Colors::default();
        for file in chain.into_iter().rev() {
            palette.extend(file.palette);
            colors.overlay(file.colors);
        }
        let mut out = HashMap::new();
        for (slot, written) in colors.set() {
            let resolved = palette.get(written).map_or(written, String::as_str);
            let c = Color::from_str(resolved).map_err(|_| {
                if resolved == written {
                    ThemeError::NotAColour {
                        theme: name.to_owned(),
                        slot: slot.to_owned(),
                        written: written.to_owned(),
                    }
                } else {
                    ThemeError::PaletteNotAColour {
                        theme: name.to_owned(),
                        slot: slot.to_owned(),
                        written: written.to_owned(),
                        resolved: resolved.to_owned(),
                    }
                }
            })?;
            out.insert(slot.to_owned(), c);
        }
        Ok(Theme {
            name: name.to_owned(),
            colors: out,
            no_color: false,
        })
    }

    /// The theme `spec` names: a user theme, a shipped one or a path.
    pub(crate) fn named(spec: &str) -> Result<Theme, ThemeError> {
        let name = Path::new(spec)
            .file_stem()
            .map_or_else(|| spec.to_owned(), |n| n.to_string_lossy().into_owned());
        text_of(spec).and_then(|t| Theme::from_text(&name, &t, &|p| text_of(p)))
    }

    /// The theme `spec` names (a name or a path), or the default with the
    /// reason it could not be used.
    pub(crate) fn load(spec: Option<&str>) -> (Theme, Option<String>) {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let (mut theme, warning) = match spec {
            None => (Theme::default(), None),
            Some(s) => match Theme::named(s) {
                Ok(t) => (t, None),
                Err(e) => (
                    Theme::default(),
                    Some(format!("theme `{s}` not used ({e}); using the default")),
                ),
            },
        };
        theme.no_color = no_color;
        (theme, warning)
    }

    /// The colour for a meaning; `Reset` when unknown or under `NO_COLOR`.
    pub fn color(&self, meaning: &str) -> Color {
        debug_assert!(
            Colors::SLOTS.contains(&meaning),
            "no colour slot `{meaning}`"
        );
        if self.no_color {
            return Color::Reset;
        }
        self.colors.get(meaning).copied().unwrap_or(Color::Reset)
    }

    pub(crate) fn fg(&self, meaning: &str) -> Style {
        Style::default().fg(self.color(meaning))
    }

    /// The whole screen's colours: the theme's `background` (left to the
    /// terminal when the theme names none) and its text colour.
    pub(crate) fn base(&self) -> Style {
        Style::default()
            .bg(self.color("background"))
            .fg(self.color("text"))
    }

    pub(crate) fn text(&self) -> Style {
        self.fg("text")
    }

    pub(crate) fn dim(&self) -> Style {
        if self.no_color {
            Style::default().add_modifier(Modifier::DIM)
        } else {
            self.fg("text.dim")
        }
    }

    pub(crate) fn title(&self) -> Style {
        self.fg("text.title").add_modifier(Modifier::BOLD)
    }

    pub(crate) fn selected(&self) -> Style {
        if self.no_color {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
                .bg(self.color("selection.bg"))
                .add_modifier(Modifier::BOLD)
        }
    }

    pub(crate) fn border(&self, focused: bool) -> Style {
        if focused {
            self.fg("border.focused").add_modifier(Modifier::BOLD)
        } else {
            self.fg("border")
        }
    }

    pub fn severity(&self, s: Severity) -> Style {
        let st = self.fg(&format!("severity.{}", s.name()));
        if s == Severity::Critical {
            st.add_modifier(Modifier::BOLD)
        } else {
            st
        }
    }

    pub(crate) fn bson_type(&self, t: BsonType) -> Color {
        self.color(type_meaning(t))
    }

    pub(crate) fn status(&self) -> Style {
        Style::default()
            .bg(self.color("status.bg"))
            .fg(self.color("status.fg"))
    }
}

/// The colour meaning a BSON type is drawn with.
pub(crate) fn type_meaning(t: BsonType) -> &'static str {
    match t {
        BsonType::String | BsonType::Symbol => "type.string",
        BsonType::Double | BsonType::Int | BsonType::Long | BsonType::Decimal => "type.number",
        BsonType::Bool => "type.bool",
        BsonType::Date | BsonType::Timestamp => "type.date",
        BsonType::ObjectId => "type.objectid",
        BsonType::Object => "type.object",
        BsonType::Array => "type.array",
        BsonType::Null | BsonType::Undefined => "type.null",
        _ => "type.other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_themes_resolve_completely() {
        let dark = Theme::builtin("dark").expect("dark");
        for (name, _) in BUILTIN {
            let t = Theme::builtin(name).expect(name);
            for key in dark.colors.keys() {
                assert!(t.colors.contains_key(key), "{name} lacks {key}");
            }
        }
        assert_ne!(
            Theme::builtin("light").expect("light").color("text"),
            dark.color("text")
        );
    }

    #[test]
    fn bad_theme_falls_back_with_warning() {
        let (t, w) = Theme::load(Some("/nonexistent/x.toml"));
        assert_eq!(t.name, DEFAULT);
        assert!(w.is_some_and(|w| w.contains("not used")));
        let err = Theme::from_text("bad", "[colors]\ntext = \"nocolour\"", &|p| text_of(p));
        assert!(err.is_err());
    }

    #[test]
    fn a_bad_colour_names_its_slot_and_value() {
        for (text, needles) in [
            (
                "[colors]\n\"status.bg\" = \"#12345\"",
                &["theme `bad`", "`status.bg`", "`#12345`", "not a colour"][..],
            ),
            (
                "[palette]\nsea = \"blu\"\n[colors]\ntext = \"sea\"",
                &["`text`", "`sea`", "`blu`"],
            ),
            (
                "[colors]\n\"text.dimm\" = \"red\"",
                &["theme `bad`", "[colors]", "unknown field `text.dimm`"],
            ),
        ] {
            let e = Theme::from_text("bad", text, &|p| text_of(p))
                .expect_err(text)
                .to_string();
            for n in needles {
                assert!(e.contains(n), "{text}: `{n}` not in {e}");
            }
        }
    }

    #[test]
    fn partial_theme_inherits_the_default() {
        let t = Theme::from_text("mine", "[colors]\ntext = \"#010203\"", &|p| text_of(p))
            .expect("theme");
        assert_eq!(t.color("text"), Color::Rgb(1, 2, 3));
        assert_eq!(
            t.color("severity.critical"),
            Theme::default().color("severity.critical")
        );
    }
}
