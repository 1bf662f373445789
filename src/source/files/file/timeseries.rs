//! A time-series collection read from its buckets: unpacked into
//! measurements a run at a time, with the report's note on what was read
//! and what was skipped.

use std::collections::BTreeMap;
use std::io::Read;

use super::bson_file::{read_bson_runs, RUN_BYTES};
use super::listing::Entry;
use super::{BsonFileError, FileSource};
use crate::i18n::Text;
use crate::profile::parallel::each_document;
use crate::source::files::buckets::{self, Spec};

impl FileSource {
    /// Reads the buckets of `entry` from `reader` and hands their
    /// measurements to `each_run`, a run of documents at a time; notes
    /// what was read and what was skipped, for the report.
    pub(super) fn read_buckets<R: Read>(
        &self,
        at: usize,
        entry: &Entry,
        spec: &Spec,
        reader: R,
        each_run: &mut dyn FnMut(Vec<u8>),
    ) -> std::result::Result<BucketTally, BsonFileError> {
        let mut tally = BucketTally::default();
        let mut out = Vec::new();
        let read = read_bson_runs(reader, &mut |run| {
            each_document(&run, |bucket| {
                tally.buckets += 1;
                match buckets::unpack(bucket, spec, &mut out) {
                    Ok(n) => tally.measurements += n,
                    Err(skip) => {
                        tally.lost += buckets::declared_count(bucket).unwrap_or(0);
                        let e = tally.skipped.entry(skip.kind()).or_insert((0, skip.text()));
                        e.0 += 1;
                    }
                }
                if out.len() >= RUN_BYTES {
                    each_run(std::mem::take(&mut out));
                }
            });
        });
        if !out.is_empty() {
            each_run(out);
        }
        if let Ok(mut notes) = self.notes.lock() {
            notes.insert((at, "buckets"), tally.note(entry, spec));
        }
        read.map(|_| tally)
    }
}

/// What a read of a time-series collection's buckets found.
#[derive(Default)]
pub(super) struct BucketTally {
    buckets: u64,
    pub(super) measurements: u64,
    /// Buckets skipped, by why: how many, and the first reason.
    skipped: BTreeMap<&'static str, (u64, Text)>,
    /// Measurements the skipped buckets declare (`control.count`).
    pub(super) lost: u64,
}

impl BucketTally {
    pub(super) fn skipped_buckets(&self) -> u64 {
        self.skipped.values().map(|(n, _)| n).sum()
    }

    /// The report's note on the collection: what it is and what was read.
    fn note(&self, entry: &Entry, spec: &Spec) -> Text {
        use crate::fmt::group;
        use std::fmt::Write;
        let ns = entry.namespace();
        let file = entry
            .path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default();
        let field = |f: &Option<String>| f.as_deref().map(|f| format!("`{f}`"));
        let unknown = ("unknown".to_owned(), "未知".to_owned());
        let time = field(&spec.time_field);
        let meta = field(&spec.meta_field);
        let gran = spec.granularity.clone();
        let (t_en, t_zh) = time.map_or(unknown.clone(), |t| (t.clone(), t));
        let (m_en, m_zh) = match (&meta, &spec.metadata) {
            (Some(m), _) => (m.clone(), m.clone()),
            (None, Some(_)) => ("none".to_owned(), "无".to_owned()),
            (None, None) => unknown.clone(),
        };
        let (g_en, g_zh) = match (&gran, &spec.metadata) {
            (Some(g), _) => (g.clone(), g.clone()),
            (None, Some(_)) => ("not set".to_owned(), "未设置".to_owned()),
            (None, None) => unknown,
        };
        let many = |n: u64, one: &str, more: &str| {
            format!("{} {}", group(n), if n == 1 { one } else { more })
        };
        let mut en = format!(
            "{ns} is a time-series collection (time field {t_en}, meta field {m_en}, granularity {g_en}): {} read from {} in {file}",
            many(self.measurements, "measurement", "measurements"),
            many(self.buckets, "bucket", "buckets")
        );
        let mut zh = format!(
            "{ns} 是时间序列集合（时间字段 {t_zh}，元字段 {m_zh}，粒度 {g_zh}）：从 {file} 的 {} 个桶读出 {} 条测量",
            group(self.buckets),
            group(self.measurements)
        );
        let skipped = self.skipped_buckets();
        if skipped > 0 {
            let lost_en = if self.lost > 0 {
                format!(
                    ", holding {},",
                    many(self.lost, "measurement", "measurements")
                )
            } else {
                String::new()
            };
            let lost_zh = if self.lost > 0 {
                format!("（共 {} 条测量）", group(self.lost))
            } else {
                String::new()
            };
            let why_en: Vec<String> = self
                .skipped
                .values()
                .map(|(n, t)| format!("{}: {}", group(*n), t.en))
                .collect();
            let why_zh: Vec<String> = self
                .skipped
                .values()
                .map(|(n, t)| format!("{} 个：{}", group(*n), t.zh))
                .collect();
            let _ = write!(
                en,
                "; {}{lost_en} could not be read and {} skipped ({})",
                many(skipped, "bucket", "buckets"),
                if skipped == 1 { "was" } else { "were" },
                why_en.join("; ")
            );
            let _ = write!(
                zh,
                "；{} 个桶{lost_zh}无法读取，已跳过（{}）",
                group(skipped),
                why_zh.join("；")
            );
        }
        Text::new(en, zh)
    }
}
