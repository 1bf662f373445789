//! What a run reads and which stages it runs: the user's choices, apart
//! from how the run is steered while it goes ([`super::Control`]).

use std::path::PathBuf;

use crate::i18n::Lang;
use crate::rules::Thresholds;
use crate::source::{SampleMode, Selection};

use super::budget::MEMORY_MIB;

/// What to read and which stages to run.
#[derive(Clone, Debug)]
pub struct Plan {
    pub selection: Selection,
    pub mode: SampleMode,
    /// Detect references between collections.
    pub relationships: bool,
    /// Where growth snapshots live; `None` turns them off.
    pub snapshots: Option<PathBuf>,
    /// Thresholds and enabled rules.
    pub thresholds: Thresholds,
    /// Language of messages and explanations.
    pub lang: Lang,
    /// Collections read at once (`None`: the source's default).
    pub in_flight: Option<usize>,
    /// Memory budget of the run in bytes: half of it is shared out among
    /// the collections' kept samples.
    pub memory: usize,
    /// Query shapes read from logs (`--workload`), for the rules.
    pub workload: Option<std::sync::Arc<crate::workload::Workload>>,
    /// Read the query shapes from the server's profiler instead
    /// (`--workload profile`), before any collection is read, so this
    /// run's own reads are not among them.
    pub workload_profile: bool,
    /// Measure the largest documents and longest arrays over the whole
    /// collection when only a sample is profiled (`--no-extremes`: off).
    pub extremes: bool,
}

impl Plan {
    pub fn new(selection: Selection, mode: SampleMode) -> Plan {
        Plan {
            selection,
            mode,
            relationships: true,
            snapshots: None,
            thresholds: Thresholds::default(),
            lang: Lang::En,
            in_flight: None,
            memory: MEMORY_MIB << 20,
            workload: None,
            workload_profile: false,
            extremes: true,
        }
    }
}
