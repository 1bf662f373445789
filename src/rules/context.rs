//! What a rule may look at: one collection's measurements, the
//! relationships that touch it, and what the sources checked for it.

use crate::profile::FieldProfile;
pub use crate::relate::DriftCheck;
use crate::relate::Relationship;
use crate::report::CollectionReport;
use crate::source::IndexUsage;

pub struct CollectionCtx<'a> {
    pub report: &'a CollectionReport,
    /// Relationships whose `from` or `to` is this collection.
    pub relationships: Vec<&'a Relationship>,
    pub drift: Vec<DriftCheck>,
    pub index_usage: Option<&'a [IndexUsage]>,
    /// Seconds since the epoch, for ages and forecasts.
    pub now: f64,
}

impl CollectionCtx<'_> {
    pub fn ns(&self) -> &str {
        &self.report.namespace
    }

    pub fn db(&self) -> &str {
        &self.report.meta.db
    }

    pub fn coll(&self) -> &str {
        &self.report.meta.name
    }

    pub fn sampled(&self) -> u64 {
        self.report.sampled
    }

    /// True when the figures come from a sample rather than every document.
    pub fn is_sample(&self) -> bool {
        self.report
            .documents
            .is_none_or(|d| d > self.report.sampled)
    }

    pub fn documents(&self) -> u64 {
        self.report.documents.unwrap_or(self.report.sampled)
    }

    pub fn fields(&self) -> &[FieldProfile] {
        &self.report.fields
    }

    pub fn field(&self, path: &str) -> Option<&FieldProfile> {
        self.report.fields.iter().find(|f| f.path == path)
    }

    /// Direct children of a field (`a.b` for `a`, `a[]` for an array `a`).
    pub fn children_of<'b>(
        &'b self,
        f: &'b FieldProfile,
    ) -> impl Iterator<Item = &'b FieldProfile> + 'b {
        let n = f.segments.len();
        self.report
            .fields
            .iter()
            .filter(move |c| c.segments.len() == n + 1 && c.segments[..n] == f.segments[..])
    }

    /// "in 840 of 1,000 sampled documents" / "in all 840 documents".
    pub fn scope(&self, lang: crate::i18n::Lang) -> String {
        let n = crate::fmt::group(self.sampled());
        if self.is_sample() {
            lang.pick(
                format!("in a sample of {n} documents"),
                format!("在抽样的 {n} 个文档中"),
            )
        } else {
            lang.pick(
                format!("in all {n} documents"),
                format!("在全部 {n} 个文档中"),
            )
        }
    }
}

/// What the deployment-level rules look at.
pub struct DeploymentCtx<'a> {
    /// `(database, collection names)` for every database read.
    pub databases: Vec<(&'a str, Vec<&'a str>)>,
    pub total: usize,
}
