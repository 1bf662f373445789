//! A target opened for an audit: the server or the files, behind one
//! [`Source`](super::Source). [`crate::target::open`] is the only place a
//! target is opened for a run, so the command line, the explorer and the lessons read the
//! same target the same way (the same document counts, the same limits).

use std::collections::BTreeMap;

use super::{
    CollectionMeta, Documents, ExtremesAsk, ExtremesOutcome, FileSource, InPlace, Insight,
    MongoSource, OpCounts, PresenceCheck, Probes, ProfilerDb, Reread, Result, SampleMode,
    SampleOutcome, Selection, Sink,
};

/// The source a target opened to.
pub enum Opened {
    Server(MongoSource),
    Files(FileSource),
}

/// Calls the same method on whichever source is open.
macro_rules! either {
    ($self:expr, $s:ident => $call:expr) => {
        match $self {
            Opened::Server($s) => $call,
            Opened::Files($s) => $call,
        }
    };
}

impl Documents for Opened {
    fn label(&self) -> String {
        either!(self, s => s.label())
    }

    async fn collections(&mut self, selection: &Selection) -> Result<Vec<CollectionMeta>> {
        either!(self, s => s.collections(selection).await)
    }

    fn notes(&self) -> Vec<crate::i18n::Text> {
        either!(self, s => s.notes())
    }

    fn in_place(&self) -> Option<&dyn InPlace> {
        either!(self, s => s.in_place())
    }

    async fn sample(
        &self,
        meta: &CollectionMeta,
        mode: SampleMode,
        sink: &mut dyn Sink,
    ) -> Result<SampleOutcome> {
        either!(self, s => s.sample(meta, mode, sink).await)
    }

    async fn extremes(&self, meta: &CollectionMeta, ask: &ExtremesAsk) -> Result<ExtremesOutcome> {
        either!(self, s => s.extremes(meta, ask).await)
    }

    fn in_flight(&self) -> usize {
        either!(self, s => s.in_flight())
    }

    fn set_in_flight(&mut self, n: usize) {
        either!(self, s => s.set_in_flight(n));
    }
}

impl Probes for Opened {
    fn group_method(&self) -> &'static str {
        either!(self, s => s.group_method())
    }

    async fn probe(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
    ) -> Result<Vec<bson::Bson>> {
        either!(self, s => s.probe(meta, key, values).await)
    }

    async fn probe_many(
        &mut self,
        meta: &CollectionMeta,
        asks: &[(&str, &[bson::Bson])],
    ) -> Result<Vec<Result<Vec<bson::Bson>>>> {
        either!(self, s => s.probe_many(meta, asks).await)
    }

    async fn group_counts(&mut self, meta: &CollectionMeta, key: &str) -> Result<Vec<(u64, u64)>> {
        either!(self, s => s.group_counts(meta, key).await)
    }

    async fn value_counts(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        max: usize,
    ) -> Result<Option<Vec<(bson::Bson, u64)>>> {
        either!(self, s => s.value_counts(meta, key, max).await)
    }

    async fn duplicate_key(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
    ) -> Result<Option<bson::Bson>> {
        either!(self, s => s.duplicate_key(meta, key).await)
    }

    async fn fetch(
        &mut self,
        meta: &CollectionMeta,
        key: &str,
        values: &[bson::Bson],
        fields: &[String],
    ) -> Result<Vec<bson::Document>> {
        either!(self, s => s.fetch(meta, key, values, fields).await)
    }

    async fn presence(
        &mut self,
        meta: &CollectionMeta,
        groups: &[Vec<String>],
    ) -> Result<Vec<PresenceCheck>> {
        either!(self, s => s.presence(meta, groups).await)
    }

    async fn reread(
        &mut self,
        meta: &CollectionMeta,
        ids: &[bson::Bson],
        paths: &[String],
    ) -> Result<Vec<Reread>> {
        either!(self, s => s.reread(meta, ids, paths).await)
    }
}

impl Insight for Opened {
    fn round_trips(&self, namespace: &str) -> Option<BTreeMap<String, u64>> {
        either!(self, s => s.round_trips(namespace))
    }

    async fn profiler(
        &self,
        selection: &Selection,
        each: &mut dyn FnMut(&str, &bson::Document),
    ) -> Option<Result<Vec<ProfilerDb>>> {
        either!(self, s => s.profiler(selection, each).await)
    }

    async fn explain_command(
        &self,
        db: &str,
        command: bson::Document,
    ) -> Option<Result<bson::Document>> {
        either!(self, s => s.explain_command(db, command).await)
    }

    async fn op_counts(
        &self,
        namespaces: &[String],
    ) -> Option<Result<(BTreeMap<String, OpCounts>, Vec<String>)>> {
        either!(self, s => s.op_counts(namespaces).await)
    }

    async fn query_stats(&self, each: &mut dyn FnMut(&bson::Document)) -> Option<Result<u64>> {
        either!(self, s => s.query_stats(each).await)
    }
}
