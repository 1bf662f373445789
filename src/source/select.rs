//! Which databases and collections to read (`--db`, `-c DB.COLL` with `*`).

/// Databases skipped unless named explicitly.
pub const SYSTEM_DBS: [&str; 3] = ["admin", "config", "local"];

#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// `--db NAME`, repeatable. Empty: every non-system database.
    pub dbs: Vec<String>,
    /// `-c DB.COLL` patterns with `*` wildcards. Empty: every collection.
    pub collections: Vec<String>,
}

impl Selection {
    /// Whether a database may hold selected collections.
    pub(crate) fn wants_db(&self, db: &str) -> bool {
        if !self.dbs.is_empty() {
            return self.dbs.iter().any(|d| d == db);
        }
        if !self.collections.is_empty() {
            return self.collections.iter().any(|p| {
                let (pdb, _) = split_ns(p);
                glob(pdb, db)
            });
        }
        !SYSTEM_DBS.contains(&db)
    }

    /// Whether a collection is selected.
    pub(crate) fn wants(&self, db: &str, coll: &str) -> bool {
        if !self.wants_db(db) {
            return false;
        }
        if self.collections.is_empty() {
            return !coll.starts_with("system.");
        }
        // A wildcard leaves the server's own collections (`system.profile`,
        // `system.views` …) out; a pattern naming `system.` keeps them.
        self.collections.iter().any(|p| {
            let (pdb, pcoll) = split_ns(p);
            glob(pdb, db)
                && glob(pcoll, coll)
                && (!coll.starts_with("system.") || pcoll.starts_with("system."))
        })
    }
}

/// Splits `db.coll.with.dots` at the first dot; a bare name matches any db.
fn split_ns(p: &str) -> (&str, &str) {
    match p.split_once('.') {
        Some((d, c)) => (d, c),
        None => ("*", p),
    }
}

/// Matches `text` against `pattern`, where `*` matches any run of characters.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while ti < t.len() {
        if pi < p.len() && (p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some(pi);
            mark = ti;
            pi += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        for (p, t, want) in [
            ("*", "anything", true),
            ("ord*", "orders", true),
            ("*ers", "orders", true),
            ("o*d*s", "orders", true),
            ("orders", "order", false),
            ("a*b", "acb", true),
            ("a*b", "acbd", false),
            ("", "", true),
        ] {
            assert_eq!(glob(p, t), want, "{p} vs {t}");
        }
    }

    #[test]
    fn default_selection_skips_system_namespaces() {
        let s = Selection::default();
        assert!(s.wants("shop", "orders"));
        assert!(!s.wants("admin", "users"));
        assert!(!s.wants("shop", "system.views"));
    }

    #[test]
    fn explicit_selection() {
        let s = Selection {
            dbs: vec![],
            collections: vec!["shop.ord*".into(), "logs".into()],
        };
        assert!(s.wants("shop", "orders"));
        assert!(!s.wants("shop", "users"));
        assert!(s.wants("other", "logs"));
        let s = Selection {
            dbs: vec![],
            collections: vec!["shop.*".into(), "logs.system.js".into()],
        };
        assert!(s.wants("shop", "orders"));
        assert!(!s.wants("shop", "system.profile"));
        assert!(s.wants("logs", "system.js"));
        let s = Selection {
            dbs: vec!["admin".into()],
            collections: vec![],
        };
        assert!(s.wants("admin", "x"));
        assert!(!s.wants("shop", "x"));
    }
}
