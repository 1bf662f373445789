//! `docshape diff BEFORE AFTER`: two JSON reports (or targets, audited
//! first) compared, written in the format asked for; the exit code says
//! whether a change reached `--fail-on`.

use std::path::Path;
use std::process::ExitCode;

use clap::Parser;
use serde_json::Value;

use super::args::{AuditArgs, Common, DiffArgs, FailOn};
use super::output::{open, written};
use super::run::{exit_code, profile, unreadable_parts};
use super::Fatal;
use crate::diff::{self, render};

/// A side given as a target, read with the options `audit` has by default.
#[derive(Parser)]
struct Side {
    #[command(flatten)]
    common: Common,
}

/// One side of the diff: its label and its report, and whether parts of
/// its target could not be read.
struct Read {
    label: String,
    report: Value,
    unreadable: bool,
}

pub async fn run_diff(d: &DiffArgs) -> Result<ExitCode, Fatal> {
    let mut before = side(&d.before, d).await?;
    let mut after = side(&d.after, d).await?;
    if !d.dbs.is_empty() || !d.collections.is_empty() {
        let selection = crate::source::select::Selection {
            dbs: d.dbs.clone(),
            collections: d.collections.clone(),
        };
        diff::select(&mut before.report, &selection);
        diff::select(&mut after.report, &selection);
    }
    let result = diff::compare(&before.label, &before.report, &after.label, &after.report);
    let text = render::render(&result, d.format);
    written(
        crate::report::write_to(open(d.output.clone()), |w| w.write_all(text.as_bytes())),
        d.output.as_deref(),
    )?;
    if before.unreadable || after.unreadable {
        return Ok(ExitCode::from(2));
    }
    Ok(exit_code(d.fail_on, result.worst()))
}

/// `audit TARGET --baseline FILE`: the target audited as `audit` reads
/// it, then compared with the JSON report in FILE, as `diff FILE TARGET`
/// compares them; `--fail-on` (default warning) counts the changes.
pub async fn against_baseline(a: &AuditArgs, baseline: &Path) -> Result<ExitCode, Fatal> {
    use crate::diff::render::DiffFormat;
    use crate::report::Format;
    let format = match a.format {
        Format::Text => DiffFormat::Text,
        Format::Json => DiffFormat::Json,
        Format::Markdown => DiffFormat::Markdown,
        Format::Sarif => DiffFormat::Sarif,
        Format::Jsonl | Format::Html => {
            return Err(Fatal(format!(
                "--baseline writes what changed as text, json, markdown or sarif, not {}",
                a.format.name()
            )))
        }
    };
    let Some(before) = report_file(baseline)? else {
        return Err(Fatal(format!(
            "{} is not a JSON report of docshape audit --format json",
            baseline.display()
        )));
    };
    let workload = super::plan::read_workload(&a.common)?;
    let now = audited(&a.common, workload.map(std::sync::Arc::new)).await?;
    let label = baseline.display().to_string();
    let result = diff::compare(&label, &before, &now.label, &now.report);
    let text = render::render(&result, format);
    written(
        crate::report::write_to(open(a.output.clone()), |w| w.write_all(text.as_bytes())),
        a.output.as_deref(),
    )?;
    if now.unreadable {
        return Ok(ExitCode::from(2));
    }
    Ok(exit_code(
        a.fail_on.unwrap_or(FailOn::Warning),
        result.worst(),
    ))
}

/// A side: the JSON report in file `arg`, or else the target `arg` names,
/// audited.
async fn side(arg: &str, d: &DiffArgs) -> Result<Read, Fatal> {
    let p = Path::new(arg);
    if let Some(report) = report_file(p)? {
        return Ok(Read {
            label: arg.to_owned(),
            report,
            unreadable: false,
        });
    }
    // The target with every setting as `docshape TARGET` has it, then the
    // diff's own selection and sample.
    let mut common = Side::try_parse_from(["docshape", "--", arg])
        .map_err(|e| {
            let e = e.to_string();
            let first = e.lines().next().unwrap_or_default().to_owned();
            Fatal(format!(
                "{arg} is neither a JSON report nor a target: {first}"
            ))
        })?
        .common;
    common.dbs.clone_from(&d.dbs);
    common.collections.clone_from(&d.collections);
    if let Some(n) = d.sample {
        common.sample = n;
    }
    common.full = d.full;
    audited(&common, None).await
}

/// The target `c` names, audited, as one side of a diff.
async fn audited(
    c: &Common,
    workload: Option<std::sync::Arc<crate::workload::Workload>>,
) -> Result<Read, Fatal> {
    let report = profile(c, workload, None).await?;
    let unreadable = unreadable_parts(&report);
    let value = serde_json::to_value(&report).map_err(|e| {
        Fatal(format!(
            "the report of {} could not be made: {e}",
            report.target
        ))
    })?;
    Ok(Read {
        label: report.target.clone(),
        report: value,
        unreadable,
    })
}

/// The report in file `p`; `None` when `p` is no file that holds one
/// (a connection string, a directory, a file of documents); an error when
/// it cannot be read, or holds a JSON object that is meant as a report
/// and is not one.
fn report_file(p: &Path) -> Result<Option<Value>, Fatal> {
    let shown = p.display();
    if !p.is_file() || p.extension().is_some_and(|x| x == "bson") {
        // A path that names nothing; a connection string or the name of a
        // saved connection goes on as a target.
        let name = shown.to_string();
        let pathlike = !name.contains("://") && (name.contains('/') || name.contains('.'));
        if !p.exists() && pathlike {
            return Err(Fatal(format!(
                "cannot read {shown}: no such file or directory"
            )));
        }
        return Ok(None);
    }
    let bytes = std::fs::read(p).map_err(|e| Fatal(format!("cannot read {shown}: {e}")))?;
    // Not one JSON value: documents one per line, a file of documents.
    let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
        return Ok(None);
    };
    match diff::check(&v) {
        Ok(()) => Ok(Some(v)),
        // A JSON array, or a single document: a file of documents.
        Err(_) if !looks_meant_as_report(&v) => Ok(None),
        Err(e) => Err(Fatal(format!("{shown}: {e}"))),
    }
}

/// A JSON object with a report's own keys.
fn looks_meant_as_report(v: &Value) -> bool {
    ["docshape", "collections", "generated_at"]
        .iter()
        .any(|k| v.get(k).is_some())
}
