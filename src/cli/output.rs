//! Where a report goes: a file (`--output`) or standard output.

use std::path::{Path, PathBuf};

use super::Fatal;
use crate::report::{self, WriteError};

/// Opens `output`, or standard output, buffered, when the report's first
/// byte is due.
pub(crate) fn open(output: Option<PathBuf>) -> report::Open {
    Box::new(move || {
        Ok(match output {
            Some(p) => Box::new(std::io::BufWriter::new(std::fs::File::create(p)?)),
            None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
        })
    })
}

/// A report's failure to be written as the user is told it, to `output`
/// or standard output.
pub(crate) fn written(result: Result<(), WriteError>, output: Option<&Path>) -> Result<(), Fatal> {
    let e = match result {
        Ok(()) => return Ok(()),
        Err(WriteError::Spool(e)) => {
            return Err(Fatal(format!(
                "cannot write the report's temporary file: {e}"
            )))
        }
        Err(WriteError::Output(e)) => e,
    };
    match output {
        Some(p) => Err(Fatal(format!("cannot write {}: {e}", p.display()))),
        // A closed pipe (`| head`) is not an error worth a message.
        None if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        None => Err(Fatal(format!("cannot write the report: {e}"))),
    }
}

/// Writes `text` to standard output.
pub(crate) fn emit(text: &str) -> Result<(), Fatal> {
    let result = report::write_to(open(None), |w| w.write_all(text.as_bytes()));
    written(result, None)
}
