//! `docs/rules.md`, written from the rule registry and the threshold
//! profiles: what each rule looks at, its thresholds per profile, why it
//! matters and where it comes from. A test fails when the file is stale;
//! `DOCSHAPE_WRITE_DOCS=1 cargo test --lib rules::docs` rewrites it.

use std::fmt::Write;

use super::config::PROFILE_NAMES;
use super::registry::{Basis, Check};
use super::Thresholds;
use super::REGISTRY;
use crate::i18n::Lang;

/// The whole of `docs/rules.md`.
pub fn rules_md() -> String {
    let profiles: Vec<Thresholds> = PROFILE_NAMES
        .iter()
        .filter_map(|n| Thresholds::profile(n))
        .collect();
    let mut s = String::new();
    s.push_str("# docshape rules\n\n");
    s.push_str("<!-- Generated from src/rules/catalog/ and src/rules/config.rs; do not edit.\n     Regenerate: DOCSHAPE_WRITE_DOCS=1 cargo test --lib rules::docs -->\n\n");
    s.push_str("Every rule `audit` checks, in the contract's order. Thresholds are set per\nrule in `docshape.toml` (`[rule-id]` tables, `enabled = false` to switch a\nrule off) over a named profile (`--rules default|atlas|compass|strict`).\n\n");
    s.push_str("| rule | looks at | what it finds |\n| --- | --- | --- |\n");
    for r in &REGISTRY {
        let _ = writeln!(
            s,
            "| [`{id}`](#{id}) | {} | {} |",
            looks_at(r.check),
            r.title,
            id = r.id
        );
    }
    for r in &REGISTRY {
        let _ = write!(
            s,
            "\n## {}\n\n{}.\n\n**Looks at:** {}.\n\n",
            r.id,
            r.title,
            looks_at(r.check)
        );
        if r.thresholds.is_empty() {
            s.push_str("**Thresholds:** none.\n\n");
        } else {
            s.push_str("**Thresholds:**\n\n| key | ");
            s.push_str(&PROFILE_NAMES.join(" | "));
            s.push_str(" | meaning |\n| --- |");
            s.push_str(&" ---: |".repeat(PROFILE_NAMES.len()));
            s.push_str(" --- |\n");
            for m in r.thresholds {
                let key = m.key();
                let _ = write!(s, "| `{key}` |");
                for p in &profiles {
                    let value = p.value(r.id, &key).map_or_else(String::new, number);
                    let _ = write!(s, " {value} |");
                }
                let _ = writeln!(s, " {} |", m.meaning());
            }
            s.push('\n');
        }
        let _ = write!(
            s,
            "**Why:** {}\n\n**Source:** {}\n",
            r.explanation(Lang::En),
            r.source
        );
    }
    s
}

fn looks_at(c: Check) -> &'static str {
    match c {
        Check::Collection(_, Basis::Documents) => "one collection's documents",
        Check::Collection(_, Basis::Metadata) => "one collection's indexes and their statistics",
        Check::Deployment(_) => "the collections of every database read",
    }
}

/// A threshold as people write it: grouped digits, no trailing `.0`.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        crate::fmt::group(v as u64)
    } else {
        format!("{v}")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn docs_rules_md_is_current() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
        let want = super::rules_md();
        if std::env::var_os("DOCSHAPE_WRITE_DOCS").is_some() {
            std::fs::write(&path, &want).expect("write docs/rules.md");
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            have == want,
            "docs/rules.md is stale: regenerate it with DOCSHAPE_WRITE_DOCS=1 cargo test --lib rules::docs"
        );
    }
}
