//! Colours by meaning (`severity.critical`, `type.string`, `border.focused`
//! …) read from `themes/*.toml`: a `[palette]` of named colours, `[colors]`
//! mapping meanings to palette names or `#rrggbb`, and an optional `parent`.
//! The shipped themes are compiled in; user themes live in
//! `$XDG_CONFIG_HOME/docshape/themes`. A bad theme never stops the explorer:
//! it falls back to the default and says why.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};

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

struct Raw {
    parent: Option<String>,
    palette: toml::Table,
    colors: HashMap<String, String>,
}

fn parse_raw(text: &str) -> Result<Raw, String> {
    let t: toml::Table = toml::from_str(text).map_err(|e| e.message().to_owned())?;
    let parent = match t.get("parent") {
        None => None,
        Some(toml::Value::String(s)) => Some(s.clone()),
        Some(_) => return Err("`parent` must be a theme name".into()),
    };
    let palette = match t.get("palette") {
        None => toml::Table::new(),
        Some(toml::Value::Table(p)) => p.clone(),
        Some(_) => return Err("`palette` must be a table".into()),
    };
    let mut colors = HashMap::new();
    if let Some(c) = t.get("colors") {
        let toml::Value::Table(c) = c else {
            return Err("`colors` must be a table".into());
        };
        flatten("", c, &mut colors)?;
    }
    Ok(Raw {
        parent,
        palette,
        colors,
    })
}

/// `[colors] severity = { critical = "red" }` and `"severity.critical" =
/// "red"` mean the same.
fn flatten(prefix: &str, t: &toml::Table, out: &mut HashMap<String, String>) -> Result<(), String> {
    for (k, v) in t {
        let key = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            toml::Value::String(s) => {
                out.insert(key, s.clone());
            }
            toml::Value::Table(sub) => flatten(&key, sub, out)?,
            _ => return Err(format!("colour `{key}` must be a string")),
        }
    }
    Ok(())
}

fn parse_color(s: &str) -> Option<Color> {
    Color::from_str(s).ok()
}

/// Where user themes live: `themes/` in docshape's configuration directory.
pub fn user_dir() -> Option<PathBuf> {
    Some(crate::paths::config_dir()?.join("themes"))
}

/// Every theme `--theme` accepts by name: the user's (in [`user_dir`]),
/// then the shipped ones.
pub fn available() -> Vec<String> {
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
fn text_of(spec: &str) -> Result<String, String> {
    let looks_like_path = spec.contains('/')
        || Path::new(spec)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    if looks_like_path {
        return std::fs::read_to_string(spec).map_err(|e| format!("cannot read {spec}: {e}"));
    }
    if let Some(dir) = user_dir() {
        let p = dir.join(format!("{spec}.toml"));
        if p.is_file() {
            return std::fs::read_to_string(&p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()));
        }
    }
    BUILTIN
        .iter()
        .find(|(n, _)| *n == spec)
        .map(|(_, t)| (*t).to_owned())
        .ok_or_else(|| {
            format!(
                "no theme named `{spec}`; themes: {}",
                available().join(", ")
            )
        })
}

impl Theme {
    pub fn builtin(name: &str) -> Result<Theme, String> {
        let text = BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| format!("no theme named `{name}`"))?;
        Theme::from_text(name, text, &|p| text_of(p))
    }

    /// Resolves a theme from its text; `load` fetches parents by name.
    pub fn from_text(
        name: &str,
        text: &str,
        load: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Theme, String> {
        let mut chain = vec![parse_raw(text)?];
        while let Some(parent) = chain.last().and_then(|r| r.parent.clone()) {
            if chain.len() > MAX_PARENTS {
                return Err(format!("theme `{name}`: parents nest too deep (a cycle?)"));
            }
            let t = load(&parent).map_err(|e| format!("parent of `{name}`: {e}"))?;
            chain.push(parse_raw(&t).map_err(|e| format!("theme `{parent}`: {e}"))?);
        }
        // Every theme stands on the default, so a partial one is complete.
        if chain.last().and_then(|r| r.parent.as_deref()).is_none() && name != DEFAULT {
            let base = BUILTIN
                .iter()
                .find(|(n, _)| *n == DEFAULT)
                .map_or("", |(_, t)| *t);
            chain.push(parse_raw(base)?);
        }
        let mut palette = toml::Table::new();
        let mut colors: HashMap<String, String> = HashMap::new();
        for raw in chain.into_iter().rev() {
            palette.extend(raw.palette);
            colors.extend(raw.colors);
        }
        let mut out = HashMap::new();
        for (k, v) in colors {
            let resolved = match palette.get(&v) {
                Some(toml::Value::String(p)) => p.clone(),
                Some(_) => return Err(format!("palette entry `{v}` must be a string")),
                None => v.clone(),
            };
            let c = parse_color(&resolved)
                .ok_or_else(|| format!("`{k}`: `{resolved}` is not a colour"))?;
            out.insert(k, c);
        }
        Ok(Theme {
            name: name.to_owned(),
            colors: out,
            no_color: false,
        })
    }

    /// The theme `spec` names: a user theme, a shipped one or a path.
    pub fn named(spec: &str) -> Result<Theme, String> {
        let name = Path::new(spec)
            .file_stem()
            .map_or_else(|| spec.to_owned(), |n| n.to_string_lossy().into_owned());
        text_of(spec).and_then(|t| Theme::from_text(&name, &t, &|p| text_of(p)))
    }

    /// The theme `spec` names (a name or a path), or the default with the
    /// reason it could not be used.
    pub fn load(spec: Option<&str>) -> (Theme, Option<String>) {
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
        if self.no_color {
            return Color::Reset;
        }
        self.colors.get(meaning).copied().unwrap_or(Color::Reset)
    }

    pub fn fg(&self, meaning: &str) -> Style {
        Style::default().fg(self.color(meaning))
    }

    /// The whole screen's colours: the theme's `background` (left to the
    /// terminal when the theme names none) and its text colour.
    pub fn base(&self) -> Style {
        Style::default()
            .bg(self.color("background"))
            .fg(self.color("text"))
    }

    pub fn text(&self) -> Style {
        self.fg("text")
    }

    pub fn dim(&self) -> Style {
        if self.no_color {
            Style::default().add_modifier(Modifier::DIM)
        } else {
            self.fg("text.dim")
        }
    }

    pub fn title(&self) -> Style {
        self.fg("text.title").add_modifier(Modifier::BOLD)
    }

    pub fn selected(&self) -> Style {
        if self.no_color {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
                .bg(self.color("selection.bg"))
                .add_modifier(Modifier::BOLD)
        }
    }

    pub fn border(&self, focused: bool) -> Style {
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

    pub fn bson_type(&self, t: BsonType) -> Color {
        self.color(type_meaning(t))
    }

    pub fn status(&self) -> Style {
        Style::default()
            .bg(self.color("status.bg"))
            .fg(self.color("status.fg"))
    }
}

/// The colour meaning a BSON type is drawn with.
pub fn type_meaning(t: BsonType) -> &'static str {
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
