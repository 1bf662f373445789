//! Imports follow the data's journey: no module of the library names a
//! module of a later stage (`../shared/spec/design.md`, "The shape of the
//! code"), and the explorer's modules import one another without a cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common;

/// Each top-level module's stage; a module may name its own stage's
/// modules and earlier ones only.
const STAGES: &[(&str, u8)] = &[
    ("fmt", 0),
    ("i18n", 0),
    ("secret", 0),
    ("profile", 0),
    ("config", 0),
    ("paths", 0),
    ("source", 1),
    ("target", 1),
    ("growth", 1),
    ("relate", 1),
    ("workload", 1),
    ("rules", 2),
    ("advise", 3),
    ("report", 4),
    ("audit", 5),
    ("diff", 5),
    ("lesson", 6),
    ("seed", 6),
    ("tui", 6),
    ("cli", 7),
];

fn stage(module: &str) -> Option<u8> {
    STAGES.iter().find(|(m, _)| *m == module).map(|(_, s)| *s)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read src") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The file's code before its unit tests (which may use anything),
/// without its comments (a doc link is no import).
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read");
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::NAME` the text names, in a path or a `use crate::{…}`
/// group.
fn named(text: &str) -> BTreeSet<String> {
    paths(text)
        .iter()
        .filter_map(|p| p.strip_prefix("crate::"))
        .filter_map(|rest| rest.split("::").next())
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn no_module_names_a_later_stage() {
    let src = common::repo().join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut upward = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let top = rel
            .components()
            .next()
            .and_then(|c| c.as_os_str().to_str())
            .map(|s| s.trim_end_matches(".rs"))
            .unwrap_or_default();
        let Some(own) = stage(top) else { continue };
        for name in named(&code(f)) {
            if stage(&name).is_some_and(|s| s > own) {
                upward.push(format!("{} names crate::{name}", rel.display()));
            }
        }
    }
    assert!(files.len() > 100, "only {} files under src", files.len());
    assert!(
        upward.is_empty(),
        "imports against the journey:\n{}",
        upward.join("\n")
    );
}

type Edges = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// A cycle through `m`, found depth first.
fn visit(
    m: &[String],
    edges: &Edges,
    state: &mut BTreeMap<Vec<String>, u8>,
    stack: &mut Vec<Vec<String>>,
) -> Option<Vec<Vec<String>>> {
    state.insert(m.to_vec(), 1);
    stack.push(m.to_vec());
    for n in edges.get(m).into_iter().flatten() {
        match state.get(n) {
            Some(1) => {
                let at = stack.iter().position(|s| s == n).expect("on the stack");
                let mut cycle = stack[at..].to_vec();
                cycle.push(n.clone());
                return Some(cycle);
            }
            Some(_) => {}
            None => {
                if let Some(c) = visit(n, edges, state, stack) {
                    return Some(c);
                }
            }
        }
    }
    stack.pop();
    state.insert(m.to_vec(), 2);
    None
}

/// Paths the code names from `crate` or `super`, with `{a, b::c}` groups
/// spread out: `super::{a, b::c}` → `super::a`, `super::b::c`.
fn paths(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    for start in ["crate::", "super::"] {
        for (i, _) in text.match_indices(start) {
            if i > 0
                && (bytes[i - 1].is_ascii_alphanumeric()
                    || matches!(bytes[i - 1], b'_' | b':' | b'$'))
            {
                continue;
            }
            let rest = &text[i..];
            let head: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let after = &rest[head.len()..];
            if head.ends_with("::") && after.starts_with('{') {
                let inner = &after[1..after.find('}').unwrap_or(after.len())];
                for item in inner.split(',') {
                    let item = item.split(" as ").next().unwrap_or("").trim();
                    let item = item.trim_start_matches('{');
                    if !item.is_empty() {
                        out.push(format!("{head}{item}"));
                    }
                }
            } else {
                out.push(head.trim_end_matches(':').to_owned());
            }
        }
    }
    out
}

#[test]
fn the_explorer_modules_import_one_another_without_a_cycle() {
    let tui = common::repo().join("src/tui");
    let mut files = Vec::new();
    rust_files(&tui, &mut files);
    // A module is a file: `update/query.rs` is [update, query],
    // `update/mod.rs` is [update].
    let module_of = |f: &Path| -> Vec<String> {
        let rel = f.strip_prefix(&tui).expect("under tui").with_extension("");
        rel.components()
            .filter_map(|c| c.as_os_str().to_str().map(str::to_owned))
            .filter(|p| p != "mod")
            .collect()
    };
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(f)).collect();
    // The longest prefix of `parts` that is a module.
    let resolve = |parts: &[String]| -> Option<Vec<String>> {
        (0..=parts.len())
            .rev()
            .map(|n| parts[..n].to_vec())
            .find(|m| modules.contains(m))
    };
    let mut edges = Edges::new();
    for f in &files {
        let from = module_of(f);
        let text = code(f);
        let mut to = BTreeSet::new();
        for path in paths(&text) {
            let mut parts: Vec<String> = path.split("::").map(str::to_owned).collect();
            let target = if parts[0] == "crate" {
                if parts.get(1).map(String::as_str) != Some("tui") {
                    continue;
                }
                resolve(&parts[2..])
            } else {
                let mut at = from[..from.len().saturating_sub(1)].to_vec();
                parts.remove(0);
                while parts.first().map(String::as_str) == Some("super") {
                    at.pop();
                    parts.remove(0);
                }
                at.extend(parts);
                resolve(&at)
            };
            to.extend(target);
        }
        // A directory's module names its children by their bare names.
        if f.ends_with("mod.rs") {
            for child in modules
                .iter()
                .filter(|m| m.len() == from.len() + 1 && m.starts_with(&from))
            {
                let name = format!("{}::", child[from.len()]);
                let named = text.match_indices(&name).any(|(i, _)| {
                    i == 0
                        || !text[..i]
                            .ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
                });
                if named {
                    to.insert(child.clone());
                }
            }
        }
        to.remove(&from);
        edges.insert(from, to);
    }
    assert!(
        edges.len() > 20,
        "only {} explorer modules read",
        edges.len()
    );
    assert!(
        edges.values().map(BTreeSet::len).sum::<usize>() > 40,
        "too few imports read among the explorer's modules: {edges:?}"
    );
    let mut state = BTreeMap::new();
    for m in edges.keys() {
        if !state.contains_key(m) {
            if let Some(cycle) = visit(m, &edges, &mut state, &mut Vec::new()) {
                let shown: Vec<String> = cycle
                    .iter()
                    .map(|m| format!("tui::{}", m.join("::")))
                    .collect();
                panic!(
                    "the explorer's modules import in a cycle: {}",
                    shown.join(" → ")
                );
            }
        }
    }
}
