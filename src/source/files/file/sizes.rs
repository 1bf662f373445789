//! The BSON sizes of every document of a file, tallied while a sample is
//! drawn from it: the whole-file extremes of a file that no skim of length
//! prefixes measures (Extended JSON, a time-series collection's buckets).

/// Documents at least this large are listed one by one while a file is
/// sampled, so that any size threshold from here up is counted exactly
/// (at most one entry per MiB of file).
pub const TALLY_FLOOR: u64 = 1 << 20;

/// The BSON sizes of every document of a file, as a sample is drawn.
pub(super) struct SizeTally {
    documents: u64,
    top: crate::source::extremes::TopK<Option<serde_json::Value>>,
    /// Sizes of documents of at least [`TALLY_FLOOR`] bytes.
    large: Vec<u64>,
}

impl SizeTally {
    pub(super) fn new() -> SizeTally {
        SizeTally {
            documents: 0,
            top: crate::source::extremes::TopK::new(crate::source::extremes::TOP_K),
            large: Vec::new(),
        }
    }

    pub(super) fn add(&mut self, doc: &[u8]) {
        let bytes = doc.len() as u64;
        self.documents += 1;
        if self.top.wants(bytes) {
            let id = bson::RawDocument::from_bytes(doc)
                .ok()
                .and_then(|d| d.get("_id").ok().flatten())
                .and_then(|v| bson::Bson::try_from(v).ok())
                .map(crate::profile::extjson::Relaxed::relaxed);
            self.top.offer(bytes, id);
        }
        if bytes >= TALLY_FLOOR {
            self.large.push(bytes);
        }
    }

    /// The figures for `ask`: thresholds under [`TALLY_FLOOR`] and arrays
    /// are listed as not measured.
    pub(super) fn extremes(self, ask: &crate::source::ExtremesAsk) -> crate::source::Extremes {
        use crate::source::extremes::{LargeDocument, OverThreshold};
        let mut out = crate::source::Extremes::new("file-scan");
        out.documents = self.documents;
        out.largest = self
            .top
            .into_vec()
            .into_iter()
            .map(|(bytes, id)| LargeDocument { id, bytes })
            .collect();
        for (name, at) in &ask.thresholds {
            if *at >= TALLY_FLOOR {
                out.over.push(OverThreshold {
                    threshold: name.clone(),
                    bytes: *at,
                    documents: self.large.iter().filter(|b| *b >= at).count() as u64,
                });
            } else {
                out.not_measured.push(format!(
                    "{name}: thresholds under {} are not counted while sampling a file",
                    crate::fmt::bytes(TALLY_FLOOR as f64)
                ));
            }
        }
        out.not_measured.extend(ask.arrays.iter().map(|(p, _)| {
            format!("{p}: array lengths are the sample's (only document sizes are tallied)")
        }));
        out.not_measured.extend(ask.dates.iter().map(|(p, _)| {
            format!("{p}: dates are the sample's (only document sizes are tallied)")
        }));
        out
    }
}
