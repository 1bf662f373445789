//! The connection picker (`C`): an overlay that lists the saved
//! connections of `docshape.toml` and the targets used lately, with a field
//! for a URI, a path or a saved connection's name; Enter reads the chosen
//! target in place of the one on screen, without quitting.
//!
//! The recent targets are kept in `recent-targets.json` in docshape's state
//! directory, beside the query history, readable by their owner only, and
//! never with a password: a connection string is written without it, and
//! asked for again when it is chosen. A password typed into the picker
//! lives in the overlay until Enter and is then only in the connection
//! string handed to the executor; it is never drawn, only one `•` per
//! character.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::connections::{Connection, ConnectionsSection};
use crate::secret;
use crate::target::Target;

/// Targets remembered, most recent first.
pub const RECENT: usize = 8;

const FILE: &str = "recent-targets.json";

/// What the picker offers, and the overlay when it is open.
#[derive(Debug, Default)]
pub struct Picker {
    /// `[connections.NAME]` of the configuration file.
    pub saved: ConnectionsSection,
    /// The configuration file holding them, as errors name it.
    pub file: String,
    /// Targets used lately, most recent first, without passwords.
    pub recent: Vec<String>,
    /// The target being read, as it is remembered: it joins `recent` once
    /// a run of it succeeds, so that a refused target is never offered.
    pub reading: Option<String>,
    pub open: Option<Overlay>,
}

/// The open overlay.
#[derive(Debug, Default)]
pub struct Overlay {
    /// Index into [`Picker::rows`]; the last row is the field.
    pub sel: usize,
    /// The URI, path or name typed into the field.
    pub text: String,
    /// A password being typed for the chosen connection.
    pub asking: Option<Asking>,
    /// Why the last choice could not be used.
    pub error: Option<String>,
}

/// The masked prompt for the password of a chosen connection.
#[derive(Debug)]
pub struct Asking {
    pub choice: Choice,
    /// The connection as it may be shown (no password).
    pub shown: String,
    pub password: Secret,
}

/// A chosen connection that needs its password.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A saved connection, by name.
    Saved(String),
    /// A connection string with a user and no password.
    Uri(String),
}

/// Text never shown: `Debug` prints `****`.
#[derive(Default)]
pub struct Secret(String);

impl Secret {
    pub fn push(&mut self, c: char) {
        self.0.push(c);
    }

    pub(crate) fn pop(&mut self) {
        self.0.pop();
    }

    /// Characters typed, for the mask.
    pub(crate) fn len(&self) -> usize {
        self.0.chars().count()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The password, handed over once.
    pub(crate) fn take(&mut self) -> String {
        std::mem::take(&mut self.0)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(secret::MASK)
    }
}

/// One row of the overlay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Row<'a> {
    Saved(&'a str, &'a Connection),
    Recent(&'a str),
    /// The field for a URI, a path or a name.
    Field,
}

impl Picker {
    /// The configuration's saved connections (`file` names it) and the
    /// recent targets.
    pub fn new(saved: ConnectionsSection, file: String, recent: Vec<String>) -> Picker {
        Picker {
            saved,
            file,
            recent,
            reading: None,
            open: None,
        }
    }

    /// The saved connections by name, then the recent targets that are
    /// not one of them, then the field.
    pub fn rows(&self) -> Vec<Row<'_>> {
        let saved_uris: Vec<String> = self
            .saved
            .values()
            .map(|c| secret::without_password(&c.uri))
            .collect();
        self.saved
            .iter()
            .map(|(n, c)| Row::Saved(n, c))
            .chain(
                self.recent
                    .iter()
                    .filter(|r| !saved_uris.contains(r))
                    .map(|r| Row::Recent(r)),
            )
            .chain(std::iter::once(Row::Field))
            .collect()
    }

    /// The row the overlay has selected.
    pub fn selected(&self) -> Option<Row<'_>> {
        let sel = self.open.as_ref()?.sel;
        self.rows().get(sel).copied()
    }
}

/// How a target is remembered: a connection string without its password,
/// a path made absolute (so that it reads from anywhere).
pub(crate) fn remembered(t: &Target) -> String {
    match t {
        Target::Mongo(uri) => secret::without_password(uri),
        Target::Path(p) => std::path::absolute(p)
            .unwrap_or_else(|_| p.clone())
            .display()
            .to_string(),
    }
}

impl Picker {
    /// A run of the target being read succeeded: it is now a recent one.
    pub(crate) fn read_well(&mut self) {
        if let Some(t) = self.reading.take() {
            record(&mut self.recent, t);
        }
    }
}

/// `entry` first in `recent`, once, at most [`RECENT`] kept.
pub(crate) fn record(recent: &mut Vec<String>, entry: String) {
    recent.retain(|r| *r != entry);
    recent.insert(0, entry);
    recent.truncate(RECENT);
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    /// Most recent first.
    targets: Vec<String>,
}

/// The recent-targets file in the state directory `dir`.
pub(crate) fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE)
}

/// The targets used lately, most recent first; none when the file is
/// missing or unreadable. A password found in one (written by hand) is
/// dropped.
pub fn load_recent(dir: &Path) -> Vec<String> {
    let file: File = std::fs::read(path_in(dir))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut out = Vec::new();
    for t in file.targets.into_iter().rev() {
        record(&mut out, secret::without_password(&t));
    }
    out
}

/// Keeps `t` (without its password) as the most recent target; returns
/// the list as now kept.
pub(crate) fn remember(dir: &Path, t: &Target) -> std::io::Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    let mut targets = load_recent(dir);
    record(&mut targets, remembered(t));
    let text = serde_json::to_vec_pretty(&File {
        targets: targets.clone(),
    })
    .map_err(std::io::Error::other)?;
    super::history::write_private(dir, FILE, &text)?;
    Ok(targets)
}

/// What the status line says about the picker when a target fails: its
/// key (`key`, from the keymap) and what it does.
pub(crate) fn offer(key: &str, lang: crate::i18n::Lang) -> String {
    match lang {
        crate::i18n::Lang::En => format!("{key} connects to another target"),
        crate::i18n::Lang::Zh => format!("按 {key} 连接到另一个目标"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_targets_are_kept_without_passwords_most_recent_first() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let d = dir.path().join("state");
        assert!(load_recent(&d).is_empty());
        remember(&d, &Target::Mongo("mongodb://ana:s3cret@h1/".into())).expect("kept");
        remember(&d, &Target::Path("/data/dump".into())).expect("kept");
        let kept = remember(&d, &Target::Mongo("mongodb://ana:other@h1/".into())).expect("kept");
        assert_eq!(kept, ["mongodb://ana@h1/", "/data/dump"]);
        assert_eq!(load_recent(&d), kept);
        let text = std::fs::read_to_string(path_in(&d)).expect("file");
        assert!(
            !text.contains("s3cret") && !text.contains("other"),
            "{text}"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(path_in(&d))
                .expect("file")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        for i in 0..RECENT + 3 {
            remember(&d, &Target::Path(format!("/d{i}").into())).expect("kept");
        }
        assert_eq!(load_recent(&d).len(), RECENT);
        // A damaged file is an empty list, and a password written into it
        // by hand is not read back.
        std::fs::write(path_in(&d), "{not json").expect("write");
        assert!(load_recent(&d).is_empty());
        std::fs::write(path_in(&d), r#"{"targets": ["mongodb://u:pw@h/"]}"#).expect("write");
        assert_eq!(load_recent(&d), ["mongodb://u@h/"]);
    }

    #[test]
    fn a_secret_is_never_printed() {
        let mut s = Secret::default();
        for c in "hunter2".chars() {
            s.push(c);
        }
        assert_eq!(format!("{s:?}"), "****");
        assert_eq!(s.len(), 7);
        assert_eq!(s.take(), "hunter2");
        assert!(s.is_empty());
    }
}
