//! What comes back to `update`: a terminal event, or the answer of an
//! `Effect` the executor ran, tagged with its request id.

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::report::{CollectionReport, Report};

pub use super::failure::Failure;
use super::querybar::Reply;

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
    /// Request `req` checked the selected lesson's exercises: the
    /// verdicts (or the class's board) as text.
    Checked {
        req: u64,
        result: Result<String, Failure>,
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
    /// The explorer switched to `target` (as shown): its query history.
    Switched {
        target: String,
        history: std::collections::HashMap<String, Vec<crate::source::QueryText>>,
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
    /// `what` ("the script of …", "document _id … of …"), `lines`
    /// long, went to the clipboard.
    Copied { what: String, lines: usize },
    /// It could not be done: why.
    Failed(String),
}
