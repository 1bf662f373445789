//! Why a request the executor ran brought nothing back: one type for the
//! messages that carry a failure and the model that keeps it.

/// Why a worker's request brought nothing back (its `Display` the text the
/// view shows). Kept in the model, so it is plain data.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The source refused or failed, in its words.
    #[error("{0}")]
    Source(String),
    /// The worker panicked while doing `what`.
    #[error("internal error while {what} (a bug, please report it): {message}")]
    Panic { what: &'static str, message: String },
    #[error("no lesson number {0}")]
    NoLesson(usize),
    #[error("cannot write {path}: {reason}")]
    Write { path: String, reason: String },
    /// An export stopped for `why`; its partial file at `path` was removed.
    #[error("export stopped: {why}; {path} was removed")]
    ExportStopped { why: Box<Failure>, path: String },
    /// Cancelled by the user, said in the explorer's language.
    #[error("{0}")]
    Cancelled(&'static str),
}

impl From<crate::source::SourceError> for Failure {
    fn from(e: crate::source::SourceError) -> Self {
        Failure::Source(e.to_string())
    }
}
