//! The memory budget of a run (`--memory`) and how it is shared out: the
//! kept documents of each collection, the profiles waiting on the shelf,
//! and what the program itself takes whatever it reads.

use crate::i18n::Lang;

/// Memory budget of a run unless told otherwise (`--memory`), in MiB.
pub const MEMORY_MIB: usize = 256;

/// Most bytes of documents kept in memory per collection after profiling.
/// Derived: a kept sample of 1,000 documents (the default sample size) at
/// 64 KiB each; a budget shared among many collections lowers it
/// ([`keep_share`]).
pub const KEEP_BYTES: usize = 64 * 1024 * 1024;

/// A kept document is cut (see [`crate::source::sample::cut`]) when larger than its
/// share of the collection's bytes, and never below this. Derived: the
/// floor of a collection's share, so that the smallest share still keeps
/// one cut document ([`keep_share`]).
pub const DOC_CAP_MIN: usize = 4 * 1024;

/// What the program itself takes whatever it reads: its code, its
/// threads' stacks, the runtime. Measured as the peak RSS (`VmHWM`) of the
/// whole audit of a small database, `sample-data/blog`, release build:
/// 13.0 MiB, rounded down.
pub const PROGRAM_BYTES: usize = 12 << 20;

/// The share of the usable budget the kept documents of all collections
/// take together (one in 2): the rest goes to the profiles being built,
/// the shelf and the replies in flight.
const KEPT_SHARE: usize = 2;

/// The share of the usable budget the shelved profiles hold in memory (one
/// in 8), the rest waiting on disk. Derived: with the kept documents' half,
/// it leaves three eighths for the profile being built and the replies in
/// flight.
const SHELF_SHARE: usize = 8;

/// Bytes of kept documents per `_id` sketched (16 bytes each): a 256th of a
/// collection's share. Derived: the default share ([`KEEP_BYTES`]) then
/// sketches 4,096 `_id`s, every `_id` of a default sample.
const ID_SKETCH_BYTES: usize = 256;

/// Fewest and most `_id`s a collection's sketch holds (1 KiB to 64 KiB);
/// the most hold every `_id` of a default sample.
const ID_SKETCH_MIN: usize = 64;
const ID_SKETCH_MAX: usize = 4096;

/// The budget left once the program itself is counted, never less than
/// half of it.
fn usable(budget: usize) -> usize {
    budget.saturating_sub(PROGRAM_BYTES).max(budget / 2)
}

/// Bytes of kept documents per collection: half the usable budget shared
/// out among `collections`, at most [`KEEP_BYTES`] and never less than one
/// document cut to [`DOC_CAP_MIN`] (so the budget holds up to some 30,000
/// collections at its default; the relationship stage sees fewer
/// documents of each as there are more collections).
pub fn keep_share(budget: usize, collections: usize) -> usize {
    (usable(budget) / KEPT_SHARE / collections.max(1)).clamp(DOC_CAP_MIN, KEEP_BYTES)
}

/// Bytes of shelved profiles held in memory
/// ([`crate::profile::shelf::Shelf`]): an eighth of the usable budget; the
/// rest wait on disk.
pub fn shelf_share(budget: usize) -> usize {
    usable(budget) / SHELF_SHARE
}

/// `_id`s a collection's sketch holds, by its share of kept bytes.
pub(crate) fn id_sketch_size(keep_bytes: usize) -> usize {
    (keep_bytes / ID_SKETCH_BYTES).clamp(ID_SKETCH_MIN, ID_SKETCH_MAX)
}

/// Each kept document's share of a collection's `keep_bytes`, by the
/// documents expected (at most `keep`), never below [`DOC_CAP_MIN`].
pub(crate) fn doc_cap(keep_bytes: usize, expected: Option<u64>, keep: u64) -> usize {
    (keep_bytes
        / usize::try_from(expected.unwrap_or(keep).clamp(1, keep.max(1)))
            .unwrap_or(usize::MAX)
            .max(1))
    .max(DOC_CAP_MIN)
}

/// Says so when the run's peak went over its budget, with what the budget
/// holds (kept documents, at least one cut document per collection, and
/// the profiles waiting in memory) and what it does not.
pub(crate) fn over_budget(
    lang: Lang,
    peak: Option<u64>,
    budget: usize,
    kept: usize,
    waiting: usize,
    collections: usize,
) -> Option<String> {
    let peak = peak.filter(|&p| p > budget as u64)?;
    let (peak, budget, kept, n, min, waiting) = (
        crate::fmt::bytes(peak as f64),
        crate::fmt::bytes(budget as f64),
        crate::fmt::bytes(kept as f64),
        crate::fmt::group(collections as u64),
        crate::fmt::bytes(DOC_CAP_MIN as f64),
        crate::fmt::bytes(waiting as f64),
    );
    Some(lang.pick(
        format!("peak memory {peak} was over the budget of {budget} (--memory): kept documents took {kept} ({n} collections, at least {min} each) and profiles waiting in memory {waiting}; a collection's profile and largest document while it is read, the replies in flight and the findings a SARIF report holds are not bounded by it"),
        format!("内存峰值 {peak} 超出预算 {budget}（--memory）：保留的文档占 {kept}（{n} 个集合，每个至少 {min}），内存中等待的分析结果占 {waiting}；读取中集合的分析结果和最大的文档、传输中的回复和 SARIF 报告中的发现不受预算限制"),
    ))
}

/// Says the profiles of `spilled` of `profiles` collections waited on disk
/// (`on_disk` bytes) to stay within the budget.
pub(crate) fn spilled(lang: Lang, spilled: usize, profiles: usize, on_disk: u64) -> String {
    let (spilled, profiles, on_disk) = (
        crate::fmt::group(spilled as u64),
        crate::fmt::group(profiles as u64),
        crate::fmt::bytes(on_disk as f64),
    );
    lang.pick(
        format!("the profiles of {spilled} of {profiles} collections waited on disk ({on_disk}, an unnamed temporary file) to stay within the memory budget"),
        format!("{profiles} 个集合中有 {spilled} 个的分析结果暂存在磁盘上（{on_disk}，一个匿名临时文件），以不超出内存预算"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_peak_over_the_budget_is_said_with_what_the_budget_does_not_bound() {
        let mib = 1 << 20;
        let en = Lang::En;
        assert_eq!(over_budget(en, Some(60 * mib), 64 << 20, 10, 0, 3), None);
        assert_eq!(over_budget(en, None, 64 << 20, 10, 0, 3), None);
        let note =
            over_budget(en, Some(150 * mib), 64 << 20, 40 << 20, 8 << 20, 1000).expect("over");
        assert!(
            note.contains("150.0 MiB") && note.contains("64.0 MiB"),
            "{note}"
        );
        assert!(
            note.contains("40.0 MiB") && note.contains("1,000 collections"),
            "{note}"
        );
        assert!(note.contains("8.0 MiB"), "{note}");
        let zh = over_budget(Lang::Zh, Some(150 * mib), 64 << 20, 40 << 20, 8 << 20, 1000)
            .expect("over");
        assert!(zh.contains("内存峰值 150.0 MiB"), "{zh}");
    }

    #[test]
    fn the_kept_share_holds_the_budget_down_to_one_cut_document() {
        let mib = 1 << 20;
        assert_eq!(keep_share(256 * mib, 1), KEEP_BYTES);
        assert_eq!(keep_share(256 * mib, 40), 122 * mib / 40);
        // A thousand collections under 64 MiB share 26 MiB.
        assert_eq!(keep_share(64 * mib, 1000), 26 * mib / 1000);
        assert!(keep_share(64 * mib, 1000) * 1000 <= 32 * mib);
        assert_eq!(keep_share(16 * mib, 100_000), DOC_CAP_MIN);
        assert_eq!(shelf_share(32 * mib), 5 * mib / 2);
    }

    #[test]
    fn the_id_sketch_holds_a_default_sample() {
        assert_eq!(id_sketch_size(KEEP_BYTES), ID_SKETCH_MAX);
        assert_eq!(id_sketch_size(DOC_CAP_MIN), ID_SKETCH_MIN);
    }
}
