//! What comes back to `update`: a terminal event, or the answer of an
//! `Effect` the executor ran, tagged with its request id.

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::report::{CollectionReport, Report};

use super::querybar::Reply;

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

#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Progress of request `req`.
    Progress {
        req: u64,
        stage: crate::audit::Stage,
        namespace: String,
        position: (usize, usize),
        documents: u64,
        expected: Option<u64>,
        rate: f64,
    },
    /// Request `req` has read one more collection, the `position.0`th of
    /// `position.1` (profiled, not yet judged).
    Arrived {
        req: u64,
        position: (usize, usize),
        collection: Box<CollectionReport>,
    },
    /// Request `req` finished.
    Loaded {
        req: u64,
        result: Result<Box<Report>, Failure>,
    },
    /// Request `req` measured the selected lesson's data sets.
    Lesson {
        req: u64,
        result: Result<Vec<(String, Report)>, Failure>,
    },
    /// Query request `req` answered.
    Query {
        req: u64,
        reply: Reply,
    },
    /// Export request `req` has written `written` documents.
    Exporting {
        req: u64,
        written: u64,
    },
    /// Export request `req` ended: the file and the documents in it, or
    /// why it stopped (its partial file removed).
    Exported {
        req: u64,
        result: Result<(std::path::PathBuf, u64), Failure>,
    },
    /// A side effect reports back (a file written, a copy made).
    Done(Done),
    /// Leave cleanly, as on a quit key.
    Terminate,
    /// Signal number `n` arrived: leave cleanly (the process then exits
    /// with 128 + `n`).
    Signal(i32),
    /// The terminal can no longer be read: leave.
    InputFailed(String),
}

/// What a side effect did, for the status line.
#[derive(Debug)]
pub enum Done {
    /// The script of `what` went to the new file `written` (`asked`, or a
    /// name beside it when that was taken).
    Wrote {
        what: String,
        written: std::path::PathBuf,
        asked: std::path::PathBuf,
    },
    /// The script of `what`, `lines` long, went to the clipboard.
    Copied { what: String, lines: usize },
    /// It could not be done: why.
    Failed(String),
}
