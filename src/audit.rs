//! The data's journey for one run: source → sample → profile → report.
//! The CLI and the explorer both go through here, so they always agree.

use std::time::{Duration, Instant};

use crate::profile::Profiler;
use crate::report::{now_iso, CollectionReport, Report, Sampling, VERSION};
use crate::source::{CollectionMeta, SampleMode, Selection, Source, SourceError};

/// What to read.
#[derive(Clone, Debug)]
pub struct Plan {
    pub selection: Selection,
    pub mode: SampleMode,
}

/// Progress of the collection being read, reported a few times a second.
#[derive(Clone, Debug)]
pub struct Progress<'a> {
    pub namespace: &'a str,
    /// Index of this collection and how many there are.
    pub position: (usize, usize),
    pub documents: u64,
    /// Documents expected, when known.
    pub expected: Option<u64>,
    pub elapsed: Duration,
    pub done: bool,
}

impl Progress<'_> {
    pub fn rate(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.documents as f64 / s
        } else {
            0.0
        }
    }
}

const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// Profiles every selected collection of `source`.
pub async fn run<S: Source>(
    source: &mut S,
    plan: &Plan,
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<Report, SourceError> {
    let metas = source.collections(&plan.selection).await?;
    let total = metas.len();
    let mut collections = Vec::with_capacity(total);
    let mut notes = Vec::new();
    for (i, meta) in metas.into_iter().enumerate() {
        match profile_collection(source, meta, plan.mode, (i + 1, total), progress).await {
            Ok(c) => collections.push(c),
            Err(e @ (SourceError::Unreachable { .. } | SourceError::Auth { .. } | SourceError::BadUri(_))) => {
                return Err(e)
            }
            Err(e) => notes.push(e.to_string()),
        }
    }
    Ok(Report {
        docshape: VERSION,
        target: source.label(),
        generated_at: now_iso(),
        sampling: match plan.mode {
            SampleMode::Sample(n) => Sampling {
                mode: "sample",
                size: Some(n),
            },
            SampleMode::Full => Sampling {
                mode: "full",
                size: None,
            },
        },
        collections,
        relationships: Vec::new(),
        notes,
    })
}

/// Samples and profiles one collection.
pub async fn profile_collection<S: Source>(
    source: &mut S,
    meta: CollectionMeta,
    mode: SampleMode,
    position: (usize, usize),
    progress: &mut dyn FnMut(&Progress<'_>),
) -> Result<CollectionReport, SourceError> {
    let ns = meta.namespace();
    let expected = match mode {
        SampleMode::Sample(n) => Some(meta.documents.map_or(n, |d| d.min(n))),
        SampleMode::Full => meta.documents,
    };
    let start = Instant::now();
    let mut last = start;
    let mut profiler = Profiler::default();
    let mut seen = 0u64;
    let mut sink = |bytes: &[u8]| {
        // Malformed documents are counted by the profiler and reported.
        let _ = profiler.add(bytes);
        seen += 1;
        if seen % 256 == 0 {
            let now = Instant::now();
            if now.duration_since(last) >= PROGRESS_EVERY {
                last = now;
                progress(&Progress {
                    namespace: &ns,
                    position,
                    documents: seen,
                    expected,
                    elapsed: now - start,
                    done: false,
                });
            }
        }
    };
    let outcome = source.sample(&meta, mode, &mut sink).await?;
    progress(&Progress {
        namespace: &ns,
        position,
        documents: outcome.read,
        expected,
        elapsed: start.elapsed(),
        done: true,
    });
    Ok(CollectionReport::new(meta, &outcome, profiler.finish()))
}
