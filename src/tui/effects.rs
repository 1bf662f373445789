//! Effects: what `update` asks to be done outside the model, as plain
//! data. The executor (`super::executor`) runs them on the explorer's
//! runtime and answers with `Msg`s tagged with the request id.

use std::path::PathBuf;

use crate::i18n::Lang;
use crate::source::{Query, QueryText};

use super::export::Format;

/// What a query request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryWork {
    /// A page of the matching documents (the query's skip and limit).
    Page,
    /// How many documents match the filter.
    Count,
    /// How the query runs.
    Explain,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Sample and analyse every selected collection with `size` documents.
    Sample {
        req: u64,
        size: u64,
    },
    Cancel {
        req: u64,
    },
    /// Read no further collection in request `req`: those read go on to
    /// the rules and the run reports them.
    Stop {
        req: u64,
    },
    /// Measure lesson `lesson` (an index into `lesson::LESSONS`) on the
    /// bundled sample data, in `lang`.
    /// Check lesson `lesson`'s exercises on the target's server for
    /// `students` (database prefixes: one student's copy, or a class), in
    /// `lang`.
    CheckExercises {
        req: u64,
        lesson: usize,
        students: Vec<String>,
        lang: Lang,
    },
    Measure {
        req: u64,
        lesson: usize,
        lang: Lang,
    },
    /// Put text on the clipboard with OSC 52; `what` names it in the
    /// status line.
    Copy {
        text: String,
        what: String,
    },
    /// Write a new file at `path`, or beside it (`name-2.js` …) when a file
    /// of that name exists: nothing is ever overwritten.
    WriteFile {
        path: PathBuf,
        contents: String,
        what: String,
    },
    /// Run a read-only query on `db.coll` of the target.
    Query {
        req: u64,
        db: String,
        coll: String,
        query: Box<Query>,
        work: QueryWork,
    },
    /// Write every document matching `query` on `db.coll` to a new file at
    /// `path` (or beside it, as `WriteFile` does), as it is read, with
    /// progress; bounded by the timeout, stopped by a `Cancel`.
    Export {
        req: u64,
        db: String,
        coll: String,
        query: Box<Query>,
        format: Format,
        path: PathBuf,
    },
    /// Keep `queries` (oldest first) as the query history of `namespace`
    /// on `target` (as shown: password masked), across sessions.
    SaveHistory {
        target: String,
        namespace: String,
        queries: Vec<QueryText>,
    },
    /// Read `target` from now on, in place of the one read so far: every
    /// request in flight cancelled, the kept connection dropped. The
    /// target is remembered (without its password) among the recent ones.
    Switch {
        target: crate::target::Target,
    },
    Quit,
}
