//! Passwords, and every way of keeping them out of sight: the one place
//! that reads the password of a connection string, masks it where the
//! string is shown, drops it where the string is kept, and masks it (and
//! any connection string) in a message that may quote it.
//!
//! The earliest stage of the journey: it imports nothing from the crate.
//!
//! A connection string's password is read as the driver reads it: the
//! userinfo is everything up to the last `@` before the options (`?`), so
//! a password written with a bare `@`, `:` or `/` is masked whole. The
//! values of options named `…password` (`tlsCertificateKeyFilePassword`)
//! are masked where a string is shown as well.

use std::fmt;

/// What a password is replaced by wherever it would be shown.
pub const MASK: &str = "****";

/// Where the userinfo of `scheme://userinfo@hosts…` stands, if there is
/// one: after the scheme, up to the last `@` before the options.
fn userinfo_span(uri: &str) -> Option<(usize, usize)> {
    let start = uri.find("://")? + 3;
    let rest = &uri[start..];
    let before_options = &rest[..rest.find('?').unwrap_or(rest.len())];
    let at = before_options.rfind('@')?;
    Some((start, start + at))
}

/// Where the passwords of a connection string stand, as written, in
/// order: the userinfo's (after the user's `:`, possibly empty) and the
/// value of each option named `…password`.
fn password_spans(uri: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let Some(start) = uri.find("://").map(|i| i + 3) else {
        return spans;
    };
    if let Some((s, e)) = userinfo_span(uri) {
        if let Some(colon) = uri[s..e].find(':') {
            spans.push((s + colon + 1, e));
        }
    }
    if let Some(q) = uri[start..].find('?').map(|i| start + i + 1) {
        let mut at = q;
        for option in uri[q..].split('&') {
            if let Some((name, value)) = option.split_once('=') {
                if !value.is_empty() && name.to_ascii_lowercase().ends_with("password") {
                    let from = at + name.len() + 1;
                    spans.push((from, from + value.len()));
                }
            }
            at += option.len() + 1;
        }
    }
    spans
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// The password in a connection string, percent-decoded, if any.
pub fn uri_password(uri: &str) -> Option<String> {
    let (s, e) = userinfo_span(uri)?;
    let (_, pw) = uri[s..e].split_once(':')?;
    Some(percent_decode(pw))
}

/// A connection string with each password in it (the userinfo's, and the
/// value of each option named `…password`) replaced by [`MASK`]: what may
/// be shown. Anything else is returned as it is.
pub(crate) fn mask_uri(uri: &str) -> String {
    let mut out = String::with_capacity(uri.len());
    let mut from = 0;
    for (s, e) in password_spans(uri) {
        out.push_str(&uri[from..s]);
        out.push_str(MASK);
        from = e;
    }
    out.push_str(&uri[from..]);
    out
}

/// A connection string without its password (`user@` kept): what may be
/// written down, as the explorer's list of recent targets is.
pub fn without_password(uri: &str) -> String {
    let Some((s, e)) = userinfo_span(uri) else {
        return uri.to_owned();
    };
    match uri[s..e].split_once(':') {
        Some((user, _)) => format!("{}{user}{}", &uri[..s], &uri[e..]),
        None => uri.to_owned(),
    }
}

/// A connection string names a user (`user@` or `user:password@`).
pub(crate) fn names_a_user(uri: &str) -> bool {
    userinfo_span(uri).is_some()
}

/// A connection string names a user and no password, and authenticates
/// with one (not X.509): the password must be asked for.
pub(crate) fn needs_password(uri: &str) -> bool {
    let Some((s, e)) = userinfo_span(uri) else {
        return false;
    };
    !uri[s..e].contains(':') && !uri.to_ascii_uppercase().contains("MONGODB-X509")
}

/// `uri` (a user and no password) with `password` put in, percent-encoded.
pub(crate) fn with_password(uri: &str, password: &str) -> String {
    let Some((_, end)) = userinfo_span(uri) else {
        return uri.to_owned();
    };
    let encoded =
        percent_encoding::utf8_percent_encode(password, percent_encoding::NON_ALPHANUMERIC);
    format!("{}:{encoded}{}", &uri[..end], &uri[end..])
}

/// `text` with the passwords of every connection string in it masked (a
/// connection string ends at white space, a quote or an angle bracket).
fn mask_uris_in(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("mongodb") {
        out.push_str(&rest[..i]);
        let from = &rest[i..];
        if from.starts_with("mongodb://") || from.starts_with("mongodb+srv://") {
            let end = from
                .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
                .unwrap_or(from.len());
            out.push_str(&mask_uri(&from[..end]));
            rest = &from[end..];
        } else {
            out.push_str("mongodb");
            rest = &from["mongodb".len()..];
        }
    }
    out.push_str(rest);
    out
}

/// Strings never to show: the passwords of the connection strings in use,
/// as written and percent-decoded. `Debug` says how many, never which.
#[derive(Clone, Default)]
pub struct Secrets(Vec<String>);

impl Secrets {
    /// No secret yet: [`Secrets::scrub`] masks connection strings only.
    pub const fn new() -> Secrets {
        Secrets(Vec::new())
    }

    /// The passwords of the connection string `uri`, as written and
    /// percent-decoded.
    pub(crate) fn of_uri(uri: &str) -> Secrets {
        let mut secrets = Secrets::new();
        for (s, e) in password_spans(uri) {
            secrets.keep(&uri[s..e]);
            secrets.keep(&percent_decode(&uri[s..e]));
        }
        secrets
    }

    /// Keeps `secret` too (an empty one hides nothing and is not kept).
    pub(crate) fn keep(&mut self, secret: &str) {
        if !secret.is_empty() && !self.0.iter().any(|s| s == secret) {
            self.0.push(secret.to_owned());
        }
    }

    /// Keeps `other`'s secrets too.
    pub(crate) fn keep_all(&mut self, other: &Secrets) {
        for s in &other.0 {
            self.keep(s);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with the password of every connection string in it, and
    /// every secret kept, replaced by [`MASK`] (the longest secrets first,
    /// so that none is left half shown by a shorter one inside it).
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut out = mask_uris_in(text);
        let mut longest_first: Vec<&str> = self.0.iter().map(String::as_str).collect();
        longest_first.sort_by_key(|s| std::cmp::Reverse(s.len()));
        for s in longest_first {
            out = out.replace(s, MASK);
        }
        out
    }
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secrets({} kept)", self.0.len())
    }
}

/// An error as it may be shown: its words and those of each of its causes,
/// scrubbed. What an error keeps as its `#[source]` when the cause may
/// quote a password: the causes stay a chain, and no level of it holds
/// the password.
#[derive(Clone, Debug)]
#[must_use]
pub struct Masked {
    message: String,
    cause: Option<Box<Masked>>,
}

impl Masked {
    /// `message` (an error's words, as they are to be shown) with the
    /// chain of its `cause`, each scrubbed of connection strings'
    /// passwords and of `secrets`.
    pub fn new(
        message: &str,
        cause: Option<&(dyn std::error::Error + 'static)>,
        secrets: &Secrets,
    ) -> Masked {
        Masked {
            message: secrets.scrub(message),
            cause: cause.map(|c| Box::new(Masked::of(c, secrets))),
        }
    }

    /// The error `e` and its causes, scrubbed.
    pub(crate) fn of(e: &(dyn std::error::Error + 'static), secrets: &Secrets) -> Masked {
        Masked::new(&e.to_string(), e.source(), secrets)
    }

    /// The same with `secrets` masked too, at every level (for an error
    /// made where the secrets were not known).
    pub fn hiding(self, secrets: &Secrets) -> Masked {
        Masked {
            message: secrets.scrub(&self.message),
            cause: self.cause.map(|c| Box::new(c.hiding(secrets))),
        }
    }
}

impl fmt::Display for Masked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Masked {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
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
            (
                "mongodb://u:a:b@h1:1,h2:2/db",
                "mongodb://u:****@h1:1,h2:2/db",
            ),
            // A bare `/` in the password: the driver still reads it as the
            // password, so it is masked whole.
            ("mongodb://u:pa/ss@h/db", "mongodb://u:****@h/db"),
            ("mongodb://u:@h", "mongodb://u:****@h"),
            ("mongodb://host:27017", "mongodb://host:27017"),
            ("mongodb://onlyuser@host", "mongodb://onlyuser@host"),
            ("mongodb://host/db?x=a@b", "mongodb://host/db?x=a@b"),
            (
                "mongodb://h/?tls=true&tlsCertificateKeyFilePassword=k3y&w=1",
                "mongodb://h/?tls=true&tlsCertificateKeyFilePassword=****&w=1",
            ),
            (
                "mongodb://u:p@h/?PASSWORD=x",
                "mongodb://u:****@h/?PASSWORD=****",
            ),
            ("dump/?password=x", "dump/?password=x"),
        ] {
            assert_eq!(mask_uri(uri), want, "{uri}");
        }
    }

    #[test]
    fn reads_drops_and_puts_in_passwords() {
        assert_eq!(uri_password("mongodb://u:p%40ss@h"), Some("p@ss".into()));
        assert_eq!(uri_password("mongodb://u:a@b@h/"), Some("a@b".into()));
        assert_eq!(uri_password("mongodb://h"), None);
        assert_eq!(uri_password("mongodb://h/db?x=a:b@c"), None);
        assert_eq!(
            without_password("mongodb://u:s3cret@db:27017/x?authSource=a"),
            "mongodb://u@db:27017/x?authSource=a"
        );
        assert_eq!(without_password("mongodb://u:a@b@h/"), "mongodb://u@h/");
        assert_eq!(without_password("mongodb://h/db"), "mongodb://h/db");
        assert!(names_a_user("mongodb://u@h/"));
        assert!(!names_a_user("mongodb://h/?x=a@b"));
        assert!(needs_password("mongodb://u@h/"));
        assert!(!needs_password("mongodb://u:p@h/"));
        assert!(!needs_password("mongodb://h/?x=a@b"));
        assert!(!needs_password(
            "mongodb://CN=me@h/?authMechanism=MONGODB-X509"
        ));
        assert_eq!(
            with_password("mongodb://u@h/", "p@ss"),
            "mongodb://u:p%40ss@h/"
        );
        assert_eq!(
            uri_password(&with_password("mongodb://u@h/", "p@ss:w/rd")).as_deref(),
            Some("p@ss:w/rd")
        );
    }

    #[test]
    fn scrubs_connection_strings() {
        let none = Secrets::new();
        assert_eq!(
            none.scrub("cannot reach mongodb://app:s3cret@db:27017/x now"),
            "cannot reach mongodb://app:****@db:27017/x now"
        );
        assert_eq!(
            none.scrub("\"mongodb+srv://u:p%40ss@c.example.net/?tls=true\""),
            "\"mongodb+srv://u:****@c.example.net/?tls=true\""
        );
        assert_eq!(
            none.scrub("mongodb rocks, mongodb://h"),
            "mongodb rocks, mongodb://h"
        );
        assert_eq!(
            none.scrub("<mongodb://u:a@b@h1,h2/db> and 'mongodb://v:c@h'"),
            "<mongodb://u:****@h1,h2/db> and 'mongodb://v:****@h'"
        );
    }

    #[test]
    fn scrubs_the_secrets_of_a_connection_string() {
        let s = Secrets::of_uri("mongodb://u:p%40ss@h/db");
        assert_eq!(
            s.scrub("auth failed: p@ss, p%40ss"),
            "auth failed: ****, ****"
        );
        assert!(Secrets::of_uri("mongodb://h/db?x=a:b@c").is_empty());
        assert!(Secrets::of_uri("mongodb://u:@h").is_empty());
        let tls = Secrets::of_uri("mongodb://h/?tlsCertificateKeyFilePassword=k%2By");
        assert_eq!(tls.scrub("bad key k+y (k%2By)"), "bad key **** (****)");
        // The longer secret first: none is left half shown.
        let mut both = Secrets::new();
        both.keep("pw");
        both.keep("pw-long");
        assert_eq!(both.scrub("x pw-long pw"), "x **** ****");
        let mut kept = Secrets::new();
        kept.keep_all(&s);
        kept.keep_all(&s);
        kept.keep("");
        assert_eq!(format!("{kept:?}"), "Secrets(2 kept)");
        assert_eq!(
            Secrets::new().scrub("the server said s3cret"),
            "the server said s3cret"
        );
    }

    #[derive(Debug, thiserror::Error)]
    #[error("io: refused by mongodb://u:s3cret@h (s3cret)")]
    struct Io;

    #[derive(Debug, thiserror::Error)]
    #[error("driver: s3cret")]
    struct Driver(#[source] Io);

    #[test]
    fn masked_errors_keep_their_causes_masked() {
        use std::error::Error as _;
        let e = Driver(Io);
        let m = Masked::of(&e, &Secrets::new());
        assert_eq!(m.to_string(), "driver: s3cret");
        let cause = m.source().expect("the cause is kept");
        assert_eq!(
            cause.to_string(),
            "io: refused by mongodb://u:****@h (s3cret)"
        );
        assert!(cause.source().is_none());
        let hidden = m.hiding(&Secrets::of_uri("mongodb://u:s3cret@h"));
        assert_eq!(hidden.to_string(), "driver: ****");
        let cause = hidden.source().expect("still kept");
        assert_eq!(
            cause.to_string(),
            "io: refused by mongodb://u:****@h (****)"
        );
        assert!(!format!("{hidden:?}").contains("s3cret"));
        let text = Masked::new(
            "one: s3cret",
            Some(&e),
            &Secrets::of_uri("mongodb://u:s3cret@h"),
        );
        assert_eq!(text.to_string(), "one: ****");
        assert_eq!(
            text.source().map(ToString::to_string).as_deref(),
            Some("driver: ****")
        );
    }
}
