//! A diff as text (for people), JSON (the contract's diff report) and
//! Markdown (for a pull request).

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::{Change, Diff};
use crate::report::markdown::{icon, md};
use crate::report::text::safe;

/// The formats of `docshape diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    /// For people: the changes, worst first.
    Text,
    /// The contract's diff report.
    Json,
    /// A Markdown table, for a pull request or a wiki.
    Markdown,
    /// SARIF 2.1.0, a result per change, for code-scanning tools.
    Sarif,
}

impl DiffFormat {
    pub const ALL: [DiffFormat; 4] = [
        DiffFormat::Text,
        DiffFormat::Json,
        DiffFormat::Markdown,
        DiffFormat::Sarif,
    ];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            DiffFormat::Text => "text",
            DiffFormat::Json => "json",
            DiffFormat::Markdown => "markdown",
            DiffFormat::Sarif => "sarif",
        }
    }

    /// What it is for, as `--help` says.
    pub fn about(self) -> &'static str {
        match self {
            DiffFormat::Text => "For people: the changes, worst first",
            DiffFormat::Json => "The contract's diff report",
            DiffFormat::Markdown => "A Markdown table, for a pull request or a wiki",
            DiffFormat::Sarif => "SARIF 2.1.0, a result per change, for code-scanning tools",
        }
    }
}

pub(crate) fn render(d: &Diff, format: DiffFormat) -> String {
    match format {
        DiffFormat::Text => text(d),
        DiffFormat::Json => {
            let mut s = serde_json::to_string_pretty(d).unwrap_or_else(|e| {
                format!("{{\"error\": \"diff could not be serialised: {e}\"}}")
            });
            s.push('\n');
            s
        }
        DiffFormat::Markdown => markdown(d),
        DiffFormat::Sarif => sarif(d),
    }
}

/// The changes worst first, then by namespace and path.
fn ordered(d: &Diff) -> Vec<&Change> {
    let mut v: Vec<&Change> = d.changes.iter().collect();
    v.sort_by_key(|c| std::cmp::Reverse(c.severity));
    v
}

fn text(d: &Diff) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "docshape diff: {} → {}",
        safe(&d.before),
        safe(&d.after)
    );
    if d.changes.is_empty() {
        let _ = writeln!(out, "{}", nothing(d));
        return out;
    }
    let _ = writeln!(
        out,
        "{} change(s); compared by a {} at family-wise level {} over {} comparisons.\n",
        d.changes.len(),
        d.test.name,
        d.test.alpha,
        d.test.comparisons
    );
    for c in ordered(d) {
        let _ = writeln!(
            out,
            "{:<8} {:<20} {}",
            c.severity.name(),
            c.kind.name(),
            line(c)
        );
    }
    out
}

fn markdown(d: &Diff) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# docshape diff\n");
    let _ = writeln!(out, "`{}` → `{}`\n", md(&d.before), md(&d.after));
    if d.changes.is_empty() {
        let _ = writeln!(out, "{}", nothing(d));
        return out;
    }
    out.push_str("| Severity | Change | Namespace | Path | Before | After | Confidence, note |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for c in ordered(d) {
        let _ = writeln!(
            out,
            "| {} {} | {} | {} | {} | {} | {} | {} |",
            icon(c.severity),
            c.severity.name(),
            c.kind.name(),
            md(&c.namespace),
            c.path.as_deref().map(md).unwrap_or_default(),
            md(&describe(&c.before)),
            md(&describe(&c.after)),
            c.confidence
                .map(|x| x.to_string())
                .into_iter()
                .chain(c.note.as_deref().map(md))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    let _ = writeln!(
        out,
        "\nCompared by a {} at family-wise level {} over {} comparisons.",
        d.test.name, d.test.alpha, d.test.comparisons
    );
    out
}

/// A line of the text form: the change's place, and what it was and is.
fn line(c: &Change) -> String {
    let mut s = safe(&c.namespace);
    if let Some(p) = &c.path {
        let _ = write!(s, " {}", safe(p));
    }
    let _ = write!(s, ": {} → {}", describe(&c.before), describe(&c.after));
    match (c.confidence, c.distance) {
        (Some(conf), Some(d)) => {
            let _ = write!(s, " (confidence {conf}; {} of values moved)", pct(d));
        }
        (Some(conf), None) => {
            let _ = write!(s, " (confidence {conf})");
        }
        _ => {}
    }
    if let Some(n) = &c.note {
        let _ = write!(s, " [{n}]");
    }
    s
}

/// SARIF 2.1.0: a rule per kind of change, a result per change, located
/// in AFTER (the report or target the changes are now in) and by the
/// change's namespace and path.
fn sarif(d: &Diff) -> String {
    use crate::report::sarif::{camel, level, SCHEMA};
    let rules: Vec<Value> = super::Kind::ALL
        .iter()
        .map(|k| {
            let id = k.name();
            json!({"id": id, "name": camel(&id), "shortDescription": {"text": format!("docshape diff: {id}")}})
        })
        .collect();
    let results: Vec<Value> = d
        .changes
        .iter()
        .map(|c| {
            let id = c.kind.name();
            let logical = match &c.path {
                Some(p) => format!("{}.{p}", c.namespace),
                None => c.namespace.clone(),
            };
            let index = super::Kind::ALL.iter().position(|k| *k == c.kind).unwrap_or(0);
            let fingerprint = crate::profile::sketch::hash_bytes(
                2,
                format!("{id}|{logical}|{}|{}", c.before, c.after).as_bytes(),
            );
            let mut properties = json!({"severity": c.severity.name(), "before": c.before, "after": c.after});
            if let Some(conf) = c.confidence {
                properties["confidence"] = json!(conf);
            }
            if let Some(d) = c.distance {
                properties["distance"] = json!(d);
            }
            if let Some(n) = &c.note {
                properties["note"] = json!(n);
            }
            json!({
                "ruleId": id,
                "ruleIndex": index,
                "level": level(c.severity),
                "message": {"text": format!("{id}: {}", line(c))},
                "locations": [{
                    "physicalLocation": {"artifactLocation": {"uri": d.after}, "region": {"startLine": 1}},
                    "logicalLocations": [{"fullyQualifiedName": logical, "kind": "member"}]
                }],
                "partialFingerprints": {"docshapeChange/v1": format!("{fingerprint:016x}")},
                "properties": properties,
            })
        })
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "docshape", "version": crate::report::VERSION, "rules": rules}},
            "invocations": [{"executionSuccessful": true}],
            "results": results,
            "properties": {"before": d.before, "after": d.after, "test": d.test},
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

/// What a diff without changes says.
fn nothing(d: &Diff) -> String {
    format!(
        "No change beyond sampling noise ({} comparisons, family-wise level {}).",
        d.test.comparisons, d.test.alpha
    )
}

fn pct(x: f64) -> String {
    crate::fmt::percent(x)
}

/// A side of a change in a few words.
fn describe(v: &Value) -> String {
    let Value::Object(m) = v else {
        return if v.is_null() {
            "—".into()
        } else {
            v.to_string()
        };
    };
    if let Some(p) = m.get("presence").and_then(Value::as_f64) {
        let mut s = format!("present in {}", pct(p));
        if let Some([lo, hi]) = m
            .get("presence_ci")
            .and_then(Value::as_array)
            .and_then(|a| <&[Value; 2]>::try_from(a.as_slice()).ok())
        {
            let _ = write!(
                s,
                " [{}–{}]",
                pct(lo.as_f64().unwrap_or(0.0)),
                pct(hi.as_f64().unwrap_or(0.0))
            );
        }
        return s;
    }
    if let Some(r) = m.get("rule").and_then(Value::as_str) {
        let sev = m.get("severity").and_then(Value::as_str).unwrap_or("");
        return format!("{r} ({sev})");
    }
    if let (Some(from), Some(to)) = (
        m.get("from").and_then(Value::as_str),
        m.get("to").and_then(Value::as_str),
    ) {
        let field = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or_default();
        return format!(
            "{from} → {to} ({}, {})",
            field("kind"),
            field("cardinality")
        );
    }
    if let Some(n) = m.get("name").and_then(Value::as_str) {
        return format!("{n} {}", m.get("key").cloned().unwrap_or_default());
    }
    if m.contains_key("p50") {
        let sizes = m.contains_key("documents");
        let num = |k: &str| {
            let x = m.get(k).and_then(Value::as_f64).unwrap_or(0.0);
            if sizes {
                crate::fmt::bytes(x)
            } else {
                crate::fmt::decimal(x)
            }
        };
        let n = m
            .get(if sizes { "documents" } else { "arrays" })
            .and_then(Value::as_u64)
            .unwrap_or(0);
        return format!(
            "median {}, p95 {}, mean {} ({} {})",
            num("p50"),
            num("p95"),
            num("avg"),
            crate::fmt::group(n),
            if sizes { "documents" } else { "arrays" }
        );
    }
    if m.contains_key("sampled") {
        return format!(
            "{} documents",
            m.get("documents").and_then(Value::as_u64).unwrap_or(0)
        );
    }
    if m.values().all(Value::is_f64) || m.values().all(Value::is_number) {
        return m
            .iter()
            .map(|(t, s)| format!("{t} {}", pct(s.as_f64().unwrap_or(0.0))))
            .collect::<Vec<_>>()
            .join(", ");
    }
    v.to_string()
}
