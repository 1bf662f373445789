//! `audit --format sarif`: SARIF 2.1.0, one result per finding, for
//! code-scanning interfaces.

use serde_json::{json, Value};

use super::{CollectionReport, Open, Report, WriteError};
use crate::advise::Advice;
use crate::rules::{Severity, REGISTRY};

pub const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

pub(crate) fn level(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub(crate) fn camel(rule: &str) -> String {
    rule.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// The artifact a finding is located in: the file for file targets, the
/// (password-masked) server address for servers.
fn artifact(report: &Report, namespace: &str) -> String {
    if crate::target::is_uri(&report.target) {
        let base = report
            .target
            .split('?')
            .next()
            .unwrap_or(&report.target)
            .trim_end_matches('/');
        let host = base.splitn(4, '/').take(3).collect::<Vec<_>>().join("/");
        format!("{host}/{}", namespace.replace('.', "/"))
    } else {
        report.target.clone()
    }
}

/// The run: successful when every part of the target was read; each part
/// that was not is an error notification (the results are then known to
/// be incomplete, and docshape exits with 2).
fn invocation(report: &Report) -> Value {
    if report.errors.is_empty() {
        return json!({ "executionSuccessful": true, "endTimeUtc": report.generated_at });
    }
    let notifications: Vec<Value> = report
        .errors
        .iter()
        .map(|e| {
            let uri = if crate::target::is_uri(&report.target) {
                artifact(report, &e.target)
            } else {
                e.target.clone()
            };
            json!({
                "level": "error",
                "message": { "text": e.message },
                "locations": [{ "physicalLocation": { "artifactLocation": { "uri": uri } } }],
            })
        })
        .collect();
    json!({
        "executionSuccessful": false,
        "exitCode": 2,
        "endTimeUtc": report.generated_at,
        "toolExecutionNotifications": notifications,
    })
}

pub fn render(report: &Report) -> String {
    render_with(report, &[])
}

/// The log of `report`, with `findings` of collections it does not hold
/// first.
fn render_with(report: &Report, findings: &[Advice]) -> String {
    let rules: Vec<Value> = REGISTRY
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": camel(r.id),
                "shortDescription": { "text": r.title },
                "help": { "text": format!("docshape lesson and rule catalogue: {} (see docs/rules.md)", r.id) },
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .chain(report.all_findings())
        .map(|f| {
            let logical = match &f.path {
                Some(p) => format!("{}.{p}", f.namespace),
                None => f.namespace.clone(),
            };
            let index = REGISTRY.iter().position(|r| r.id == f.rule).unwrap_or(0);
            let fingerprint = crate::profile::sketch::hash_bytes(
                1,
                format!(
                    "{}|{}|{}",
                    f.rule,
                    f.namespace,
                    f.path.as_deref().unwrap_or("")
                )
                .as_bytes(),
            );
            json!({
                "ruleId": f.rule,
                "ruleIndex": index,
                "level": level(f.severity),
                "message": { "text": format!("{}. {}", f.message, f.suggestion.summary) },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": artifact(report, &f.namespace) },
                        "region": { "startLine": 1 }
                    },
                    "logicalLocations": [{ "fullyQualifiedName": logical, "kind": "member" }]
                }],
                "partialFingerprints": { "docshapeFinding/v1": format!("{fingerprint:016x}") },
                "properties": {
                    "severity": f.severity.name(),
                    "evidence": Value::Object(f.evidence.clone()),
                    "explanation": f.explanation,
                    "source": f.source,
                    "pattern": f.suggestion.pattern,
                    "migration": f.suggestion.migration,
                }
            })
        })
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "docshape",
                "version": report.docshape,
                "rules": rules,
            } },
            "invocations": [invocation(report)],
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&log).unwrap_or_default();
    s.push('\n');
    s
}

/// The SARIF log, written from the whole report: of each collection as it
/// comes, only its findings are kept.
pub struct SarifWriter {
    findings: Vec<Advice>,
    open: Open,
}

impl SarifWriter {
    pub fn new(open: Open) -> SarifWriter {
        SarifWriter {
            findings: Vec::new(),
            open,
        }
    }
}

impl super::Writer for SarifWriter {
    fn collection(&mut self, _head: &Report, c: CollectionReport) -> Result<(), WriteError> {
        self.findings.extend(c.findings);
        Ok(())
    }

    fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    fn finish(self: Box<Self>, report: &Report) -> Result<(), WriteError> {
        let log = render_with(report, &self.findings);
        super::write_to(self.open, |w| w.write_all(log.as_bytes()))
    }
}
