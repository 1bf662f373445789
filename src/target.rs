//! What the user pointed docshape at, and how it is shown (passwords masked).

use std::path::{Path, PathBuf};
use std::time::Duration;

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

pub fn is_uri(s: &str) -> bool {
    s.starts_with("mongodb://") || s.starts_with("mongodb+srv://")
}

impl Target {
    pub fn parse(s: &str) -> Target {
        if is_uri(s) {
            Target::Mongo(s.to_owned())
        } else {
            Target::Path(PathBuf::from(s))
        }
    }

    /// The target as it may be shown to anyone.
    pub fn label(&self) -> String {
        match self {
            Target::Mongo(u) => mask_uri(u),
            Target::Path(p) => p.display().to_string(),
        }
    }
}

/// The default local server the contract probes when no target is given.
pub const LOCAL_URI: &str = "mongodb://127.0.0.1:27017";

/// Resolves an optional target: given, else `$MONGODB_URI`, else a local
/// server answering within 1 s, else the bundled sample data.
pub async fn resolve(given: Option<&str>) -> (Target, Origin) {
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
pub fn sample_data_dir() -> PathBuf {
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

/// Splits `scheme://userinfo@hosts/...` into its parts, if it has userinfo.
fn userinfo_span(uri: &str) -> Option<(usize, usize)> {
    let start = uri.find("://")? + 3;
    let rest = &uri[start..];
    let auth_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let at = rest[..auth_end].rfind('@')?;
    Some((start, start + at))
}

/// The password in a connection string, percent-decoded, if any.
pub fn uri_password(uri: &str) -> Option<String> {
    let (s, e) = userinfo_span(uri)?;
    let (_, pw) = uri[s..e].split_once(':')?;
    Some(percent_decode(pw))
}

/// A connection string with its password replaced by `****`.
pub fn mask_uri(uri: &str) -> String {
    let Some((s, e)) = userinfo_span(uri) else {
        return uri.to_owned();
    };
    let info = &uri[s..e];
    match info.split_once(':') {
        Some((user, _)) => format!("{}{user}:****{}", &uri[..s], &uri[e..]),
        None => uri.to_owned(),
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|c| (*c as char).to_digit(16)),
                b.get(i + 2).and_then(|c| (*c as char).to_digit(16)),
            ) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_passwords() {
        for (uri, want) in [
            (
                "mongodb://app:s3cret@db:27017/x",
                "mongodb://app:****@db:27017/x",
            ),
            (
                "mongodb+srv://u:p%40ss@c.example.net/?tls=true",
                "mongodb+srv://u:****@c.example.net/?tls=true",
            ),
            ("mongodb://u:a@b@h1,h2/db", "mongodb://u:****@h1,h2/db"),
            ("mongodb://host:27017", "mongodb://host:27017"),
            ("mongodb://onlyuser@host", "mongodb://onlyuser@host"),
            ("mongodb://host/db?x=a@b", "mongodb://host/db?x=a@b"),
        ] {
            assert_eq!(mask_uri(uri), want, "{uri}");
        }
        assert_eq!(uri_password("mongodb://u:p%40ss@h"), Some("p@ss".into()));
        assert_eq!(uri_password("mongodb://h"), None);
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
}
