//! What the configuration file says for a run: the saved connection a
//! target names, and the thresholds.

use super::args::Common;
use super::password::ask_password;
use super::Fatal;
use crate::rules::Thresholds;
use crate::target;

/// The target as given, or the URI of the saved connection it names
/// (`[connections.NAME]` in the configuration file) when it is neither a
/// connection string nor an existing file or directory.
pub fn saved_target(c: &Common) -> Result<Option<String>, Fatal> {
    let Some(given) = c.target.clone() else {
        return Ok(None);
    };
    if target::is_uri(&given) || std::path::Path::new(&given).exists() {
        return Ok(Some(given));
    }
    let Some(path) = c.config.clone().or_else(crate::rules::config::default_path) else {
        return Ok(Some(given));
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Some(given));
    };
    // A file that does not parse is reported with the rules it holds.
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(Some(given));
    };
    let env = |v: &str| std::env::var(v).ok().filter(|p| !p.is_empty());
    let found = target::saved_connection(
        &table,
        &path.display().to_string(),
        &given,
        env,
        ask_password,
    )
    .map_err(Fatal)?;
    Ok(Some(found.unwrap_or(given)))
}

pub fn thresholds(c: &Common) -> Result<Thresholds, Fatal> {
    let path = c.config.clone().or_else(crate::rules::config::default_path);
    match path {
        Some(p) => Thresholds::load(&p, c.rules.as_deref()).map_err(|e| Fatal(e.to_string())),
        None => {
            Ok(Thresholds::profile(c.rules.as_deref().unwrap_or("default")).unwrap_or_default())
        }
    }
}
