//! The configuration file of a run (`--config`, else the default one),
//! read once: the saved connection a target names, the thresholds, and
//! what the explorer takes from it (keys, theme).

use std::path::PathBuf;

use super::args::Common;
use super::password::ask_password;
use super::Fatal;
use crate::config::Config;
use crate::rules::Thresholds;
use crate::target;

/// The configuration file as read for one command, when there is one.
pub struct Settings {
    file: Option<(PathBuf, Config)>,
}

impl Settings {
    /// Reads `--config`, else the default file when it exists. A file that
    /// cannot be read or holds a mistake stops the command with the reason.
    pub(crate) fn read(c: &Common) -> Result<Settings, Fatal> {
        let Some(path) = crate::config::path(c.config.as_deref()) else {
            return Ok(Settings { file: None });
        };
        let config = crate::config::load(&path).map_err(|e| Fatal(e.to_string()))?;
        Ok(Settings {
            file: Some((path, config)),
        })
    }

    /// The thresholds: `--rules`, else the file's profile, with the file's
    /// overrides.
    pub(crate) fn thresholds(&self, c: &Common) -> Result<Thresholds, Fatal> {
        match &self.file {
            Some((path, config)) => Thresholds::from_section(
                &config.rules,
                &path.display().to_string(),
                c.rules.as_deref(),
            )
            .map_err(|e| Fatal(e.to_string())),
            None => Ok(
                Thresholds::profile(c.rules.as_deref().unwrap_or("default")).unwrap_or_default()
            ),
        }
    }

    /// The target as given, or the URI of the saved connection it names
    /// (`[connections.NAME]`) when it is neither a connection string nor an
    /// existing file or directory.
    pub(crate) fn target(&self, c: &Common) -> Result<Option<String>, Fatal> {
        let Some(given) = c.target.clone() else {
            return Ok(None);
        };
        if target::is_uri(&given) || std::path::Path::new(&given).exists() {
            return Ok(Some(given));
        }
        let Some((path, config)) = &self.file else {
            return Ok(Some(given));
        };
        let env = |v: &str| std::env::var(v).ok().filter(|p| !p.is_empty());
        let found = target::saved_connection(
            &config.connections,
            &path.display().to_string(),
            &given,
            env,
            ask_password,
        )
        .map_err(|e| Fatal(e.to_string()))?;
        Ok(Some(found.unwrap_or(given)))
    }

    /// The file and what it holds, for the explorer's keys and theme.
    pub(crate) fn into_file(self) -> Option<(PathBuf, Config)> {
        self.file
    }
}
