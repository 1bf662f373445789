//! The contract's JSON report.

use super::{CollectionReport, Report};

pub fn render(report: &Report) -> String {
    let mut s = serde_json::to_string_pretty(report)
        .unwrap_or_else(|e| format!("{{\"error\": \"report could not be serialised: {e}\"}}"));
    s.push('\n');
    s
}

/// One collection's profile, as `docshape schema --format json` prints it.
pub fn render_collection(c: &CollectionReport) -> String {
    let mut s = serde_json::to_string_pretty(c)
        .unwrap_or_else(|e| format!("{{\"error\": \"profile could not be serialised: {e}\"}}"));
    s.push('\n');
    s
}
