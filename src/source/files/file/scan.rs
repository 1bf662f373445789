//! Every document of one collection's file: streamed in file order, or
//! visited on several threads, the reading thread dealing batches of
//! documents to workers.

use std::fs::File;

use super::listing::Holds;
use super::{ejson, io_err, read_bson_runs, FileSource, Format};
use crate::profile::parallel::{each_in, frame, new_batch, BATCH_BYTES, PARALLEL_AFTER, QUEUE};
use crate::source::{CollectionMeta, Result, Sink, SourceError};

impl FileSource {
    /// Streams every document of one collection's file.
    pub(super) fn stream(
        &self,
        meta: &CollectionMeta,
        mut each: &mut dyn FnMut(&[u8]),
    ) -> Result<u64> {
        self.stream_into(meta, &mut each)
    }

    /// Streams every document of one collection's file into `sink`.
    pub(super) fn stream_into(&self, meta: &CollectionMeta, sink: &mut dyn Sink) -> Result<u64> {
        let (at, entry) = self.entry_at(meta)?;
        if let Holds::MetadataOnly = entry.holds {
            return Ok(0);
        }
        let file = File::open(&entry.path).map_err(|e| io_err(&entry.path, &e))?;
        match (&entry.holds, entry.format) {
            (Holds::Buckets(spec), _) => self
                .read_buckets(at, entry, spec, file, &mut |run| sink.documents(run))
                .map(|t| t.measurements)
                .map_err(|e| e.to_string()),
            (_, Format::ExtJson) => {
                let size = file.metadata().ok().map(|m| m.len());
                ejson::read_documents_into(file, size, sink).map_err(|e| e.to_string())
            }
            (_, Format::Bson) => {
                read_bson_runs(file, &mut |run| sink.documents(run)).map_err(|e| e.to_string())
            }
        }
        .map_err(|reason| SourceError::Malformed {
            path: entry.path.display().to_string(),
            reason,
        })
    }

    /// Visits every document of `meta` with `visit`, on `threads` threads
    /// when the file is large: the reading thread (which for Extended JSON only puts
    /// in order what every core parsed) gathers documents into batches and
    /// deals them round-robin to workers, each visiting into its own state
    /// made by `init`. Returns every state; what they hold must not depend
    /// on which thread saw which document (sets, counts).
    pub(super) fn scan_on<T: Send>(
        &self,
        threads: usize,
        meta: &CollectionMeta,
        init: impl Fn() -> T + Sync,
        visit: impl Fn(&mut T, &[u8]) + Sync,
    ) -> Result<Vec<T>> {
        let large = self
            .entry(meta)
            .ok()
            .and_then(|e| std::fs::metadata(&e.path).ok())
            .is_some_and(|m| m.len() >= PARALLEL_AFTER as u64);
        if threads <= 1 || !large {
            let mut state = init();
            self.stream(meta, &mut |doc| visit(&mut state, doc))?;
            return Ok(vec![state]);
        }
        let (init, visit) = (&init, &visit);
        std::thread::scope(|scope| {
            // One queue that every worker takes from: a worker that is
            // ahead takes the next batch instead of waiting for its turn.
            // A batch is framed (`frame`) or documents as they come.
            let (tx, rx) = crossbeam_channel::bounded::<(Vec<u8>, bool)>(QUEUE * threads);
            let mut workers = Vec::with_capacity(threads);
            for _ in 0..threads {
                let rx = rx.clone();
                let spawned = std::thread::Builder::new()
                    .name("docshape-scan".into())
                    .spawn_scoped(scope, move || {
                        let mut state = init();
                        while let Ok((batch, framed)) = rx.recv() {
                            each_in(&batch, framed, |doc| visit(&mut state, doc));
                        }
                        state
                    });
                match spawned {
                    Ok(handle) => workers.push(handle),
                    Err(_) => break,
                }
            }
            drop(rx);
            // What no worker could take is visited here.
            let mut dealer = Dealer {
                local: init(),
                batch: new_batch(),
                tx: (!workers.is_empty()).then_some(tx),
                visit,
            };
            let read = self.stream_into(meta, &mut dealer);
            let full = std::mem::take(&mut dealer.batch);
            dealer.deal(full, true);
            dealer.tx = None;
            let mut states = vec![dealer.local];
            for w in workers {
                match w.join() {
                    Ok(state) => states.push(state),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
            read.map(|_| states)
        })
    }
}

/// The reading side of a scan on several threads: gathers documents into
/// batches for the workers' queue; what no worker can take is visited here.
struct Dealer<'v, T, V> {
    local: T,
    batch: Vec<u8>,
    /// The workers' queue (`None`: no worker runs).
    tx: Option<crossbeam_channel::Sender<(Vec<u8>, bool)>>,
    visit: &'v V,
}

impl<T, V: Fn(&mut T, &[u8])> Dealer<'_, T, V> {
    fn deal(&mut self, batch: Vec<u8>, framed: bool) {
        if batch.is_empty() {
            return;
        }
        let unsent = match &self.tx {
            Some(tx) => tx.send((batch, framed)).err().map(|e| e.0 .0),
            None => Some(batch),
        };
        if let Some(batch) = unsent {
            let (visit, local) = (self.visit, &mut self.local);
            each_in(&batch, framed, |doc| visit(local, doc));
        }
    }
}

impl<T, V: Fn(&mut T, &[u8])> Sink for Dealer<'_, T, V> {
    fn document(&mut self, doc: &[u8]) {
        if u32::try_from(doc.len()).is_ok() {
            frame(&mut self.batch, doc);
        } else {
            (self.visit)(&mut self.local, doc);
        }
        if self.batch.len() >= BATCH_BYTES {
            let full = std::mem::replace(&mut self.batch, new_batch());
            self.deal(full, true);
        }
    }

    fn documents(&mut self, docs: Vec<u8>) {
        self.deal(docs, false);
    }
}
