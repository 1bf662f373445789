//! Progress on standard error while a run reads its target.

use std::io::IsTerminal;

use crate::audit::{self, Progress};
use crate::report;

/// Progress on stderr when it is a terminal: one line, rewritten in place.
pub(crate) fn progress_printer() -> impl FnMut(&Progress<'_>) {
    let tty = std::io::stderr().is_terminal();
    move |p: &Progress<'_>| {
        if !tty {
            return;
        }
        if p.stage != audit::Stage::Sampling {
            eprint!(
                "\r\x1b[2K[{}/{}] {}…",
                p.position.0,
                p.position.1,
                p.stage.name(crate::i18n::Lang::En)
            );
            return;
        }
        let expected = p
            .expected
            .map(|e| format!("/{}", crate::fmt::group(e)))
            .unwrap_or_default();
        // A collection reported as finished carries no time of its own.
        let rate = if p.elapsed.is_zero() {
            String::new()
        } else {
            format!("  {} docs/s", crate::fmt::group(p.rate().round() as u64))
        };
        eprint!(
            "\r\x1b[2K[{}/{}] {}  {}{} documents{rate}",
            p.position.0,
            p.position.1,
            report::text::safe(p.namespace),
            crate::fmt::group(p.documents),
            expected,
        );
    }
}

pub fn clear_progress() {
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K");
    }
}
