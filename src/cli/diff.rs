//! `docshape diff BEFORE AFTER`: two JSON reports compared, written in the
//! format asked for; the exit code says whether a change reached
//! `--fail-on`.

use std::path::Path;
use std::process::ExitCode;

use super::args::DiffArgs;
use super::audit::exit_code;
use super::output::{open, written};
use super::Fatal;
use crate::diff::{self, render};

pub fn run_diff(d: &DiffArgs) -> Result<ExitCode, Fatal> {
    let before = read(&d.before)?;
    let after = read(&d.after)?;
    let label = |p: &Path| p.display().to_string();
    let result = diff::compare(&label(&d.before), &before, &label(&d.after), &after);
    let text = render::render(&result, d.format);
    written(
        crate::report::write_to(open(d.output.clone()), |w| w.write_all(text.as_bytes())),
        d.output.as_deref(),
    )?;
    Ok(exit_code(d.fail_on, result.worst()))
}

/// The JSON report in file `p`, or the sentence that says why not.
fn read(p: &Path) -> Result<serde_json::Value, Fatal> {
    let shown = p.display();
    let bytes = std::fs::read(p).map_err(|e| Fatal(format!("cannot read {shown}: {e}")))?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
        Fatal(format!(
            "{shown} is not a docshape JSON report: it is not JSON ({e})"
        ))
    })?;
    diff::check(&v).map_err(|e| Fatal(format!("{shown}: {e}")))?;
    Ok(v)
}
