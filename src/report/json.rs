//! The contract's JSON report.

use super::{CollectionReport, Report};

pub fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report)
        .unwrap_or_else(|e| format!("{{\"error\": \"report could not be serialised: {e}\"}}"));
    s.push('\n');
    s
}

/// Writes the report as [`render`] gives it, without holding its text: a
/// deployment of thousands of collections makes tens of megabytes of JSON.
pub fn write(report: &Report, out: &mut (impl std::io::Write + ?Sized)) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

/// One collection's profile, as `docshape schema --format json` prints it.
pub fn render_collection(c: &CollectionReport) -> String {
    let mut s = serde_json::to_string_pretty(c)
        .unwrap_or_else(|e| format!("{{\"error\": \"profile could not be serialised: {e}\"}}"));
    s.push('\n');
    s
}
