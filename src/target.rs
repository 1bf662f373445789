//! What the user pointed docshape at, and how it is shown (passwords masked).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::connections::{Connection, ConnectionsSection};
use crate::secret;

/// Where documents will be read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Mongo(String),
    Path(PathBuf),
}

/// How the target was chosen, for the one-line notice the contract asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Given,
    EnvUri,
    LocalServer,
    BundledSample,
}

pub(crate) fn is_uri(s: &str) -> bool {
    s.starts_with("mongodb://") || s.starts_with("mongodb+srv://")
}

impl Target {
    pub(crate) fn parse(s: &str) -> Target {
        if is_uri(s) {
            Target::Mongo(s.to_owned())
        } else {
            Target::Path(PathBuf::from(s))
        }
    }

    /// The target as it may be shown to anyone.
    pub fn label(&self) -> String {
        match self {
            Target::Mongo(u) => secret::mask_uri(u),
            Target::Path(p) => p.display().to_string(),
        }
    }
}

/// How a target is opened for a run.
#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    /// Every server call's bound.
    pub timeout: Duration,
    /// How the run reads each collection: files count their documents
    /// only as far as the run keeps them.
    pub mode: crate::source::SampleMode,
}

/// Opens `target` for a run: the one place the command line, the
/// explorer and the lessons open what they read, so that they read it
/// alike.
pub(crate) async fn open(
    target: &Target,
    options: &OpenOptions,
) -> Result<crate::source::Opened, crate::source::SourceError> {
    use crate::source::Opened;
    Ok(match target {
        Target::Mongo(uri) => Opened::Server(connect(uri, options.timeout).await?),
        Target::Path(p) => {
            Opened::Files(open_files(p)?.counting_up_to(options.mode.kept_at_most()))
        }
    })
}

/// The server at `uri`, connected (the handshake bounded by `timeout`):
/// what [`open`] does for a server, for those that need the server itself
/// (the explorer's queries, the profiler, `seed`).
pub(crate) async fn connect(
    uri: &str,
    timeout: Duration,
) -> Result<crate::source::MongoSource, crate::source::SourceError> {
    crate::source::MongoSource::connect(uri, timeout).await
}

/// As [`connect`], under the application name `app` (which the profiler
/// records with each operation).
pub async fn connect_as(
    uri: &str,
    timeout: Duration,
    app: &str,
) -> Result<crate::source::MongoSource, crate::source::SourceError> {
    crate::source::MongoSource::connect_as(uri, timeout, app).await
}

/// The files at `path` (a file or a directory), opened: what [`open`] does
/// for a path, without a run's counting bound.
pub(crate) fn open_files(
    path: &std::path::Path,
) -> Result<crate::source::FileSource, crate::source::SourceError> {
    crate::source::FileSource::open(path)
}

/// The default local server the contract probes when no target is given.
pub const LOCAL_URI: &str = "mongodb://127.0.0.1:27017";

/// Resolves an optional target: given, else `$MONGODB_URI`, else a local
/// server answering within 1 s, else the bundled sample data.
pub(crate) async fn resolve(given: Option<&str>) -> (Target, Origin) {
    if let Some(g) = given {
        return (Target::parse(g), Origin::Given);
    }
    if let Ok(uri) = std::env::var("MONGODB_URI") {
        if !uri.trim().is_empty() {
            return (Target::Mongo(uri), Origin::EnvUri);
        }
    }
    let probe = tokio::time::timeout(
        Duration::from_secs(1),
        tokio::net::TcpStream::connect(("127.0.0.1", 27017)),
    )
    .await;
    if matches!(probe, Ok(Ok(_))) {
        return (Target::Mongo(LOCAL_URI.to_owned()), Origin::LocalServer);
    }
    (Target::Path(sample_data_dir()), Origin::BundledSample)
}

/// The bundled `sample-data/` directory: `$DOCSHAPE_SAMPLE_DATA`, else next
/// to the installed binary (`../share/docshape/sample-data`), else the source
/// tree docshape was built from.
pub(crate) fn sample_data_dir() -> PathBuf {
    if let Ok(p) = std::env::var("DOCSHAPE_SAMPLE_DATA") {
        return PathBuf::from(p);
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(bin) = exe.parent() {
            let share = bin.join("../share/docshape/sample-data");
            if share.is_dir() {
                return share;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")
}

/// Why a saved connection cannot be used (its `Display` the sentence the
/// user sees, naming the configuration file and the entry).
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    #[error(
        "{file}: `connections.{name}.uri` must be a mongodb:// or mongodb+srv:// connection string"
    )]
    NotAUri { file: String, name: String },
    #[error("{file}: `connections.{name}.uri` holds a password; keep it out of the file and name an environment variable in `connections.{name}.password-env`")]
    PasswordInUri { file: String, name: String },
    /// No password: the prompt could not ask for one (why, in its words).
    #[error("{0}")]
    NotAsked(String),
    /// No password: the prompt could not ask, and the variable that would
    /// have held it is unset.
    #[error("{reason}; or set ${var} to the password of `{name}`")]
    NotAskedNorSet {
        reason: String,
        var: String,
        name: String,
    },
}

/// The connection string of the saved connection `name` in a
/// configuration, with its password put in: from the environment variable
/// the entry names (`env` reads it), else from `prompt` (given the masked
/// URI). `Ok(None)` when there is no such entry. The password is never part
/// of the configuration: a URI holding one is refused. `file` names the
/// configuration in errors.
pub(crate) fn saved_connection<E: std::fmt::Display>(
    connections: &ConnectionsSection,
    file: &str,
    name: &str,
    env: impl Fn(&str) -> Option<String>,
    prompt: impl FnOnce(&str) -> Result<String, E>,
) -> Result<Option<String>, ConnectionError> {
    connections
        .get(name)
        .map(|c| connection_uri(c, file, name, env, prompt))
        .transpose()
}

/// A saved connection's URI with its password put in.
fn connection_uri<E: std::fmt::Display>(
    c: &Connection,
    file: &str,
    name: &str,
    env: impl Fn(&str) -> Option<String>,
    prompt: impl FnOnce(&str) -> Result<String, E>,
) -> Result<String, ConnectionError> {
    if !is_uri(&c.uri) {
        return Err(ConnectionError::NotAUri {
            file: file.to_owned(),
            name: name.to_owned(),
        });
    }
    if secret::uri_password(&c.uri).is_some() {
        return Err(ConnectionError::PasswordInUri {
            file: file.to_owned(),
            name: name.to_owned(),
        });
    }
    if !secret::names_a_user(&c.uri) {
        // No user: nothing to authenticate with.
        return Ok(c.uri.clone());
    }
    let password = match c.password_env.as_deref().and_then(&env) {
        Some(p) => p,
        None => prompt(&secret::mask_uri(&c.uri)).map_err(|e| match &c.password_env {
            Some(v) => ConnectionError::NotAskedNorSet {
                reason: e.to_string(),
                var: v.clone(),
                name: name.to_owned(),
            },
            None => ConnectionError::NotAsked(e.to_string()),
        })?,
    };
    Ok(secret::with_password(&c.uri, &password))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Why a saved connection is refused: by the file's reading, or as a
    /// connection.
    #[derive(Debug, thiserror::Error)]
    enum Refused {
        #[error(transparent)]
        Config(#[from] crate::config::ConfigError),
        #[error(transparent)]
        Connection(#[from] ConnectionError),
    }

    /// The saved connection `name` in the configuration file `text`, read
    /// as the command line reads it.
    fn saved_connection(
        text: &str,
        file: &str,
        name: &str,
        env: impl Fn(&str) -> Option<String>,
        prompt: impl FnOnce(&str) -> Result<String, &'static str>,
    ) -> Result<Option<String>, Refused> {
        let config = crate::config::parse(text, file)?;
        Ok(super::saved_connection(
            &config.connections,
            file,
            name,
            env,
            prompt,
        )?)
    }

    #[test]
    fn parses_targets() {
        assert_eq!(
            Target::parse("mongodb://x"),
            Target::Mongo("mongodb://x".into())
        );
        assert_eq!(Target::parse("dump/"), Target::Path("dump/".into()));
        assert_eq!(
            Target::parse("mongodb://a:b@h").label(),
            "mongodb://a:****@h"
        );
    }

    #[test]
    fn saved_connections_take_their_password_from_the_environment_or_a_prompt() {
        let t = r#"
            [connections.prod]
            uri = "mongodb://reader@db1.example.com:27017/?replicaSet=rs0"
            password-env = "PROD_PW"
            [connections.local]
            uri = "mongodb://127.0.0.1:27017"
            [connections.ask]
            uri = "mongodb+srv://ana@c.example.net/"
            "#;
        let env = |v: &str| (v == "PROD_PW").then(|| "p@ss:w/rd".to_owned());
        let never = |_: &str| -> Result<String, &'static str> { panic!("no prompt expected") };
        let uri = saved_connection(t, "f", "prod", env, never)
            .expect("ok")
            .expect("found");
        assert_eq!(
            uri,
            "mongodb://reader:p%40ss%3Aw%2Frd@db1.example.com:27017/?replicaSet=rs0"
        );
        assert_eq!(secret::uri_password(&uri).as_deref(), Some("p@ss:w/rd"));
        assert_eq!(
            saved_connection(t, "f", "local", env, never).expect("ok"),
            Some("mongodb://127.0.0.1:27017".into())
        );
        assert_eq!(
            saved_connection(t, "f", "nosuch", env, never).expect("ok"),
            None
        );
        // No variable set: the prompt is asked, shown the URI without a password.
        let asked = saved_connection(
            t,
            "f",
            "ask",
            |_| None,
            |shown| {
                assert_eq!(shown, "mongodb+srv://ana@c.example.net/");
                Ok("x".into())
            },
        )
        .expect("ok");
        assert_eq!(asked, Some("mongodb+srv://ana:x@c.example.net/".into()));
        // The variable is named but unset and there is no terminal to ask.
        let no_var = saved_connection(
            t,
            "f",
            "prod",
            |_| None,
            |_| Err("no terminal to ask for the password"),
        )
        .expect_err("no password")
        .to_string();
        assert!(no_var.contains("$PROD_PW"), "{no_var}");
    }

    #[test]
    fn a_saved_connection_never_holds_a_password() {
        for (text, want) in [
            (
                "[connections.x]\nuri = \"mongodb://u:secret@h/\"",
                "holds a password",
            ),
            (
                "[connections.x]\nuri = \"http://h/\"",
                "must be a mongodb://",
            ),
            (
                "[connections.x]\nuri = \"mongodb://h/\"\npassword = \"p\"",
                "unknown field `password`",
            ),
            ("connections = 3", "expected a map"),
        ] {
            let e = saved_connection(text, "docshape.toml", "x", |_| None, |_| Ok(String::new()))
                .expect_err(text)
                .to_string();
            assert!(e.contains(want), "{text}: {e}");
            assert!(!e.contains("secret"), "{e}");
        }
    }
}
