//! How a run is steered while it goes, apart from what it reads
//! ([`super::Plan`]): where its progress is reported, whether it was asked
//! to stop, and whether a server lost midway ends it or only its reading.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::i18n::Lang;

use super::Progress;

/// The run's steering: its progress callback, its stop flag, and what a
/// server lost after some collections were read does.
pub struct Control<'p> {
    /// Where the run's progress goes ([`Progress`]).
    pub progress: &'p mut dyn FnMut(&Progress<'_>),
    /// Set to stop reading further collections: those finished go on to
    /// the rules, the stages that ask the server again are skipped, and the
    /// report says so (the explorer's Esc).
    pub stop: Option<Arc<AtomicBool>>,
    /// A server that goes away after some collections were read ends the
    /// reading, not the run: the finished collections are reported with a
    /// note (the explorer). Otherwise the run fails, as the CLI's exit code
    /// says.
    pub keep_partial: bool,
}

impl<'p> Control<'p> {
    /// A run reporting to `progress`, never stopped, failing when its
    /// server goes away (the command line's).
    pub fn new(progress: &'p mut dyn FnMut(&Progress<'_>)) -> Control<'p> {
        Control {
            progress,
            stop: None,
            keep_partial: false,
        }
    }

    /// Stops reading further collections once `stop` is set.
    #[must_use]
    pub fn stopping_on(mut self, stop: Arc<AtomicBool>) -> Control<'p> {
        self.stop = Some(stop);
        self
    }

    /// Keeps the collections read when the server goes away midway.
    #[must_use]
    pub fn keeping_partial(mut self) -> Control<'p> {
        self.keep_partial = true;
        self
    }
}

/// Whether a run was asked to stop: shared by the threads that read.
#[derive(Clone, Copy)]
pub(crate) struct StopFlag<'a>(pub(crate) Option<&'a AtomicBool>);

impl StopFlag<'_> {
    pub(crate) fn stopped(self) -> bool {
        self.0.is_some_and(|s| s.load(Ordering::Relaxed))
    }
}

/// Why the reading ended early: the user stopped it after `read` of
/// `total` collections, or the server went away after them (`gone`).
pub(crate) fn ended_early(lang: Lang, read: usize, total: usize, gone: Option<&str>) -> String {
    match gone {
        Some(e) => lang.pick(
            format!("{ENDED_GONE} {read} of {total} collections ({e}); those read are reported"),
            format!("{ENDED_GONE_ZH}已读 {read}/{total} 个集合（{e}），报告已读的集合"),
        ),
        None => lang.pick(
            format!("{ENDED_STOPPED} {read} of {total} collections; those read are reported"),
            format!("{ENDED_STOPPED_ZH}已读 {read}/{total} 个集合，报告已读的集合"),
        ),
    }
}

const ENDED_GONE: &str = "the server went away after";
const ENDED_GONE_ZH: &str = "服务器断开：";
const ENDED_STOPPED: &str = "stopped after";
const ENDED_STOPPED_ZH: &str = "已停止：";

/// The report's note saying the reading ended early, in either language.
pub fn ended_early_note(notes: &[String]) -> Option<&String> {
    notes.iter().find(|n| {
        [ENDED_GONE, ENDED_STOPPED, ENDED_GONE_ZH, ENDED_STOPPED_ZH]
            .iter()
            .any(|p| n.starts_with(p))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_of_a_reading_ended_early_is_found_in_either_language() {
        for lang in [Lang::En, Lang::Zh] {
            for gone in [None, Some("connection reset")] {
                let note = ended_early(lang, 3, 12, gone);
                let notes = vec!["another note".to_owned(), format!("{note}; more")];
                assert_eq!(ended_early_note(&notes), Some(&notes[1]), "{note}");
            }
        }
        assert_eq!(ended_early_note(&["another note".to_owned()]), None);
    }
}
