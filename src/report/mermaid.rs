//! `docshape schema --format mermaid`: the collections and their
//! references as a Mermaid ER diagram, with measured cardinalities.

use std::fmt::Write;

use super::{CollectionReport, Report};
use crate::relate::{Cardinality, Kind, Relationship};

pub(crate) fn render(report: &Report) -> String {
    let mut out = String::from("erDiagram\n");
    let multi_db = {
        let mut dbs: Vec<&str> = report
            .collections
            .iter()
            .map(|c| c.meta.db.as_str())
            .collect();
        dbs.sort_unstable();
        dbs.dedup();
        dbs.len() > 1
    };
    let name = |ns: &str| -> String {
        let short = if multi_db {
            ns.to_owned()
        } else {
            ns.split_once('.').map_or(ns, |(_, c)| c).to_owned()
        };
        ident(&short)
    };
    for c in &report.collections {
        entity(&mut out, c, &name(&c.namespace));
    }
    for r in &report.relationships {
        if r.kind == Kind::Embedded {
            continue;
        }
        let (left, right) = ends(r);
        let label = format!("{} ({})", r.from_path, super::plain(&r.cardinality));
        let _ = writeln!(
            out,
            "    {} {} {} : \"{}\"",
            name(left),
            connector(r),
            name(right),
            label.replace('"', "'")
        );
    }
    out
}

/// Parent first: who holds many of whom.
pub(super) fn ends(r: &Relationship) -> (&str, &str) {
    match r.kind {
        Kind::ParentReference => (&r.to_ns, &r.from_ns),
        _ => (&r.from_ns, &r.to_ns),
    }
}

fn connector(r: &Relationship) -> &'static str {
    match (r.kind, r.cardinality) {
        (Kind::TwoWayReference, _) => "}o--o{",
        (_, Cardinality::OneToOne) => "||--o|",
        _ => "||--o{",
    }
}

fn entity(out: &mut String, c: &CollectionReport, name: &str) {
    let _ = writeln!(out, "    {name} {{");
    for f in c.fields.iter().filter(|f| f.depth == 0) {
        let ty = f.main_type().map_or("null", |t| t.alias());
        let _ = writeln!(out, "        {ty} {}", ident(&f.path));
    }
    let _ = writeln!(out, "    }}");
}

/// Mermaid identifiers: letters, digits, `_` and `-` only.
fn ident(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_sanitised() {
        assert_eq!(ident("shop.orders"), "shop_orders");
        assert_eq!(ident("2fa"), "_2fa");
        assert_eq!(ident(""), "_");
        assert_eq!(ident("名字"), "__");
    }
}
