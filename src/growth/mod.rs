//! Array growth, from a cross-section of documents of different ages: if
//! older documents hold longer arrays, the arrays grow as documents age.
//! Rank correlation says whether, Theil–Sen slope says how fast, and the
//! observed bytes per element turn the pace into a date at which the largest
//! document would pass MongoDB's 16 MiB limit.
//!
//! Growth is also read inside one document, where its elements carry the
//! time they were appended ([`element_dates`]): one user's 117 logins in
//! eight weeks show a log growing without 30 documents of different ages.
//!
//! Pure maths over the kept sample; no I/O.

pub mod snapshot;

use serde::{Deserialize, Serialize};

use crate::fmt::{decimal, percent, span_days};
use crate::i18n::Lang;
use crate::profile::raw::{self, BsonType};
use crate::profile::{extract, FieldProfile, Profile, Seg};

/// MongoDB's document size limit.
pub const LIMIT_BYTES: f64 = 16.0 * 1024.0 * 1024.0;
/// Fewer documents than this cannot show a trend.
pub const MIN_DOCS: usize = 30;
/// Pairs beyond which Theil–Sen works on a deterministic subsample.
const MAX_SLOPE_PAIRS: usize = 200_000;

/// How each array path grows, by path: what the growth stage measured for
/// a collection, held beside its profile.
pub type ByPath = std::collections::BTreeMap<String, Growth>;

/// How an array path grows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Growth {
    /// `age-correlation` (cross-section) or `snapshot` (re-read over time).
    pub method: String,
    /// Spearman rank correlation of length with age (cross-section), or the
    /// share of re-read documents whose array grew (snapshot).
    pub correlation: f64,
    /// Elements added per document per day.
    pub per_day: f64,
    /// Days until the largest document passes 16 MiB at this pace (the
    /// document at risk: a forecast from a smaller one would contradict its
    /// size); `None` when
    /// it never would (no growth).
    pub days_to_limit: Option<f64>,
    /// Documents the figures rest on.
    pub n: u64,
    pub bytes_per_element: f64,
    /// Where ages came from: `_id` (ObjectId time) or a date field's path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub age_from: Option<String>,
    /// Days between the two snapshots (snapshot method only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub days_observed: Option<f64>,
    /// The elements of the measured document and the days between its
    /// first and last element date (element-dates method only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub within: Option<Within>,
    /// When both methods measured the path: why this one decides, and the
    /// other measurement with its own strength.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<Box<Decision>>,
}

/// The method that reads growth off the dates the elements of one
/// document carry.
pub const ELEMENT_DATES: &str = "element-dates";
/// Dated elements, in the array's order and over at least a day, from
/// which one document shows a pace the catalogue treats as real (the
/// rule's `min-dated-elements` is the configurable form): arrays whose
/// elements carry dates but record a bounded process (a few statuses, the
/// readers of one message, a chat's participants) rarely hold this many.
pub const MIN_DATED_ELEMENTS: u64 = 20;
/// Fewer dated elements than this in one document measure nothing.
const MIN_DATED_MEASURED: usize = 3;
/// Elements whose dates span less than this were written at once (with
/// their document, or in one update): a burst, not a pace.
pub const MIN_SPAN_DAYS: f64 = 1.0;
/// An element dated earlier than its document's creation by more than
/// this was not appended to it: it is a copy of a record with its own
/// history (an embedded user, a quoted message).
const BIRTH_SLACK_SECS: f64 = 86_400.0;

/// What growth inside one document rests on (`element-dates`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Within {
    /// Dated elements of the document measured: the one holding the most.
    pub elements: u64,
    /// Days from its first element's date to its last one's.
    pub span_days: f64,
    /// The `_id` of that document, as relaxed Extended JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<serde_json::Value>,
}

/// Why one growth measurement was preferred to the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reason {
    /// The snapshot saw arrays grow: growth observed directly decides.
    SnapshotSawGrowth,
    /// Both saw growth and the snapshot's window is long enough to give a
    /// pace: a pace measured over time beats one read off document ages.
    SnapshotPaceMeasured,
    /// The snapshot saw no growth over a window long enough that the
    /// cross-section's pace would have shown (at least a day, and enough
    /// elements expected that seeing none is not chance).
    SnapshotSawNoGrowth,
    /// The snapshot's window is too short to show the cross-section's
    /// pace, or to refute it: writes may come in bursts.
    SnapshotWindowTooShort,
    /// Too few documents were found again to measure anything.
    SnapshotTooFewDocuments,
    /// The dates one document's elements carry show it growing; the
    /// cross-section shows no trend (too few documents, or none).
    ElementDatesSawGrowth,
    /// Neither shows growth; the snapshot, measured over time, is kept.
    NeitherGrows,
}

impl Reason {
    pub fn code(self) -> &'static str {
        match self {
            Reason::SnapshotSawGrowth => "snapshot-saw-growth",
            Reason::SnapshotPaceMeasured => "snapshot-pace-measured",
            Reason::SnapshotSawNoGrowth => "snapshot-saw-no-growth",
            Reason::SnapshotWindowTooShort => "snapshot-window-too-short",
            Reason::SnapshotTooFewDocuments => "snapshot-too-few-documents",
            Reason::ElementDatesSawGrowth => "element-dates-saw-growth",
            Reason::NeitherGrows => "neither-grows",
        }
    }
}

impl Growth {
    /// The measurement in a few words, with its strength: how many
    /// documents, over what window or ages, and how strongly.
    pub(crate) fn strength(&self, lang: Lang) -> String {
        if let Some(w) = &self.within {
            let (en, zh) = span_days(w.span_days);
            let clock = self.age_from.as_deref().unwrap_or("");
            return lang.pick(
                format!(
                    "element dates: {} elements of one document over {en} by {clock}, {} elements/day, ρ {:.2} with their order",
                    w.elements,
                    signed(self.per_day),
                    self.correlation
                ),
                format!(
                    "元素日期：一个文档的 {} 个元素，按 {clock} 跨越{zh}，每天 {} 个元素，与顺序的 ρ {:.2}",
                    w.elements,
                    signed(self.per_day),
                    self.correlation
                ),
            );
        }
        match self.days_observed {
            Some(days) => {
                let (en, zh) = span_days(days);
                lang.pick(
                    format!(
                        "snapshot: {} of {} re-read documents grew over {en}, {} elements/day",
                        percent(self.correlation),
                        self.n,
                        signed(self.per_day)
                    ),
                    format!(
                        "快照：间隔{zh}重读 {} 个文档，{} 增长，每天 {} 个元素",
                        self.n,
                        percent(self.correlation),
                        signed(self.per_day)
                    ),
                )
            }
            None => lang.pick(
                format!(
                    "age correlation: ρ {:.2} over {} documents, {} elements/day",
                    self.correlation,
                    self.n,
                    signed(self.per_day)
                ),
                format!(
                    "年龄相关：{} 个文档，ρ {:.2}，每天 {} 个元素",
                    self.n,
                    self.correlation,
                    signed(self.per_day)
                ),
            ),
        }
    }

    /// Why this measurement decides over the other one, in a sentence; `None`
    /// when only one method measured the path.
    pub(crate) fn decision_text(&self, lang: Lang) -> Option<String> {
        let d = self.decision.as_deref()?;
        let expected = decimal(d.expected_elements);
        let why = match d.reason {
            Reason::SnapshotSawGrowth => lang.pick(
                "the snapshot saw the arrays grow, the cross-section shows no trend".to_owned(),
                "快照直接观察到数组增长，横截面没有趋势".to_owned(),
            ),
            Reason::SnapshotPaceMeasured => lang.pick(
                "a pace measured over time on the same documents beats one read off their ages"
                    .to_owned(),
                "在同一批文档上随时间测得的速度比按文档年龄推算的更可靠".to_owned(),
            ),
            Reason::SnapshotSawNoGrowth => lang.pick(
                format!("none grew where the cross-section's pace predicts {expected} elements: the arrays were long when written, they do not grow"),
                format!("横截面的速度预计应增加 {expected} 个元素，实际没有任何增长：数组写入时就长，并不随时间增长"),
            ),
            Reason::SnapshotWindowTooShort => lang.pick(
                format!("the snapshot's window is too short to show or refute the cross-section's pace ({expected} elements expected; a day and 3 elements are needed)"),
                format!("快照间隔太短，不足以证实或否定横截面的速度（预计 {expected} 个元素；至少需要一天和 3 个元素）"),
            ),
            Reason::SnapshotTooFewDocuments => lang.pick(
                format!("too few documents were found again ({MIN_DOCS} needed)"),
                format!("重新找到的文档太少（至少需要 {MIN_DOCS} 个）"),
            ),
            Reason::ElementDatesSawGrowth => lang.pick(
                "the dates of one document's elements show it growing, the cross-section shows no trend".to_owned(),
                "一个文档内元素的日期显示它在增长，横截面没有趋势".to_owned(),
            ),
            Reason::NeitherGrows => lang.pick(
                "neither shows growth".to_owned(),
                "两者都没有显示增长".to_owned(),
            ),
        };
        Some(lang.pick(
            format!(
                "decided by {} over {} ({}): {why}",
                self.method,
                d.other.method,
                d.other.strength(lang)
            ),
            format!(
                "由 {} 决定，而非 {}（{}）：{why}",
                self.method,
                d.other.method,
                d.other.strength(lang)
            ),
        ))
    }
}

/// A pace with its sign: `+3`, `-0.5`, `0`.
fn signed(x: f64) -> String {
    if x > 0.0 {
        format!("+{}", decimal(x))
    } else {
        decimal(x)
    }
}

/// The choice between a cross-section and a snapshot of the same path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    pub reason: Reason,
    /// Elements the cross-section's pace would have added to the re-read
    /// documents over the snapshot's window, all together: seeing none when
    /// this is large refutes the pace; when it is small, it refutes nothing.
    pub expected_elements: f64,
    /// The measurement that did not decide.
    pub other: Growth,
}

impl Growth {
    /// Growth the rule catalogue treats as real: enough documents (or,
    /// inside one document, enough dated elements), a rank correlation of
    /// at least `min_corr`, and a positive pace.
    pub(crate) fn is_significant(&self, min_corr: f64) -> bool {
        let enough = match &self.within {
            Some(w) => w.elements >= MIN_DATED_ELEMENTS,
            None => self.n as usize >= MIN_DOCS,
        };
        enough && self.correlation >= min_corr && self.per_day > 0.0
    }
}

/// Where a document's age comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgeSource {
    ObjectId,
    DateField(Vec<Seg>, String),
}

/// Chooses the age source: `_id` when it is an ObjectId in nearly every
/// document, else the top-level date field present in ≥ 95 % of them.
pub(crate) fn age_source(profile: &Profile) -> Option<AgeSource> {
    age_source_of(&profile.fields, profile.sampled)
}

/// [`age_source`], from a profile's paths and its sample size (a report
/// holds its paths apart from its profile).
pub(crate) fn age_source_of(fields: &[FieldProfile], sampled: u64) -> Option<AgeSource> {
    let n = sampled.max(1) as f64;
    let is_top = |f: &&FieldProfile| f.depth == 0;
    if let Some(id) = fields.iter().filter(is_top).find(|f| f.path == "_id") {
        if id.type_count(BsonType::ObjectId) as f64 / n >= 0.95 {
            return Some(AgeSource::ObjectId);
        }
    }
    fields
        .iter()
        .filter(is_top)
        .filter(|f| f.type_count(BsonType::Date) as f64 / n >= 0.95)
        .max_by(|a, b| a.count.cmp(&b.count))
        .map(|f| AgeSource::DateField(f.segments.clone(), f.path.clone()))
}

/// Seconds since the epoch at which a document was created, per the source.
pub(crate) fn birth(doc: &[u8], src: &AgeSource) -> Option<f64> {
    match src {
        AgeSource::ObjectId => {
            let id = extract::top(doc, "_id")?;
            (id.ty == BsonType::ObjectId)
                .then(|| raw::value::oid_seconds(id.value).map(f64::from))
                .flatten()
        }
        AgeSource::DateField(segs, _) => {
            let v = extract::values(doc, segs);
            let d = v.iter().find(|e| e.ty == BsonType::Date)?;
            raw::value::i64(d.value).map(|ms| ms as f64 / 1000.0)
        }
    }
}

/// Measures cross-section growth for every array path that is not itself
/// inside an array, from the kept documents.
pub fn cross_section(profile: &Profile, docs: &[Vec<u8>]) -> Vec<(String, Growth)> {
    cross_section_from(profile, docs, profile.doc_sizes.max())
}

/// [`cross_section`], forecasting from a largest document of `largest`
/// bytes (measured over the whole collection, it may be larger than any
/// the profile saw).
pub(crate) fn cross_section_from(
    profile: &Profile,
    docs: &[Vec<u8>],
    largest: u64,
) -> Vec<(String, Growth)> {
    let Some(src) = age_source(profile) else {
        return Vec::new();
    };
    let births = Births::of(docs, &src);
    let largest = largest.max(profile.doc_sizes.max()) as f64;
    let mut out = Vec::new();
    for f in &profile.fields {
        if !grows(f) {
            continue;
        }
        let (ages, lens) = births.lengths(docs, f);
        if ages.len() < MIN_DOCS {
            continue;
        }
        let corr = spearman(&ages, &lens);
        let slope = theil_sen(&ages, &lens);
        let bpe = bytes_per_element(profile, f);
        let growth = Growth {
            method: "age-correlation".into(),
            correlation: round(corr, 3),
            per_day: round(slope, 4),
            days_to_limit: days_to_limit(largest, slope, bpe),
            n: ages.len() as u64,
            bytes_per_element: round(bpe, 1),
            age_from: Some(match &src {
                AgeSource::ObjectId => "_id".into(),
                AgeSource::DateField(_, p) => p.clone(),
            }),
            days_observed: None,
            within: None,
            decision: None,
        };
        out.push((f.path.clone(), growth));
    }
    out
}

/// Every growth measurement the kept documents allow, by path: the
/// cross-section where it shows growth at `min_corr`, else growth inside
/// one document read off its elements' dates, with the cross-section set
/// aside in its decision.
pub(crate) fn measure(profile: &Profile, docs: &[Vec<u8>], largest: u64, min_corr: f64) -> ByPath {
    let mut out: ByPath = cross_section_from(profile, docs, largest)
        .into_iter()
        .collect();
    for (path, within) in element_dates(profile, docs, largest) {
        let cross = out.remove(&path);
        let decided = match cross {
            Some(c) if c.is_significant(min_corr) || !within.is_significant(min_corr) => c,
            Some(c) => Growth {
                decision: Some(Box::new(Decision {
                    reason: Reason::ElementDatesSawGrowth,
                    expected_elements: 0.0,
                    other: c,
                })),
                ..within
            },
            None => within,
        };
        out.insert(path, decided);
    }
    out
}

/// Where the elements of an array carry the time they were added: a date
/// field of theirs (`platforms[].date`), else their own generated
/// ObjectId `_id` (a sub-document's, as Mongoose adds).
fn element_clock(profile: &Profile, f: &FieldProfile) -> Option<(Vec<Seg>, String, BsonType)> {
    let mut elem = f.segments.clone();
    elem.push(Seg::Elem);
    let objects = profile
        .fields
        .iter()
        .find(|e| e.segments == elem)?
        .type_count(BsonType::Object);
    if objects == 0 {
        return None;
    }
    let inside = |e: &&FieldProfile| {
        e.segments.len() == elem.len() + 1 && e.segments[..elem.len()] == elem[..]
    };
    let most = |e: &FieldProfile, t: BsonType| e.type_count(t) as f64 >= 0.95 * objects as f64;
    let date = profile
        .fields
        .iter()
        .filter(inside)
        .filter(|e| most(e, BsonType::Date))
        .max_by_key(|e| e.type_count(BsonType::Date));
    let id = || {
        profile
            .fields
            .iter()
            .filter(inside)
            .find(|e| e.name == "_id" && most(e, BsonType::ObjectId))
    };
    let (e, ty) = match date {
        Some(e) => (e, BsonType::Date),
        None => (id()?, BsonType::ObjectId),
    };
    Some((e.segments[f.segments.len()..].to_vec(), e.path.clone(), ty))
}

/// Seconds since the epoch of a date or an ObjectId's time.
fn seconds(e: &raw::Element<'_>, ty: BsonType) -> Option<f64> {
    if e.ty != ty {
        return None;
    }
    match ty {
        BsonType::Date => raw::value::i64(e.value).map(|ms| ms as f64 / 1000.0),
        _ => raw::value::oid_seconds(e.value).map(f64::from),
    }
}

/// One document's dated array, measured.
struct DocPace {
    elements: usize,
    span_days: f64,
    per_day: f64,
    order: f64,
    id: Option<serde_json::Value>,
}

/// The dated elements of one document's array at `f`, in the array's
/// order; `None` when fewer than 3 are dated, when their dates span less
/// than a day (written at once), or when one predates the document itself
/// by more than a day (a copy of an older record, not an append).
fn doc_pace(
    doc: &[u8],
    f: &FieldProfile,
    clock: &[Seg],
    ty: BsonType,
    born: Option<f64>,
) -> Option<DocPace> {
    let arr = extract::values(doc, &f.segments)
        .into_iter()
        .find(|e| e.ty == BsonType::Array)?;
    let mut times = Vec::new();
    for item in raw::elements(arr.value).ok()?.flatten() {
        if item.ty != BsonType::Object {
            continue;
        }
        let at = extract::values(item.value, &clock[1..]);
        if let Some(t) = at.first().and_then(|e| seconds(e, ty)) {
            times.push(t);
        }
    }
    if times.len() < MIN_DATED_MEASURED {
        return None;
    }
    let first = times.iter().copied().fold(f64::INFINITY, f64::min);
    let last = times.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if born.is_some_and(|b| first < b - BIRTH_SLACK_SECS) {
        return None;
    }
    let span_days = (last - first) / 86_400.0;
    if span_days < MIN_SPAN_DAYS {
        return None;
    }
    let order: Vec<f64> = (0..times.len()).map(|i| i as f64).collect();
    let id = extract::top(doc, "_id")
        .and_then(|e| crate::profile::value_of(&e))
        .map(bson::Bson::into_relaxed_extjson);
    Some(DocPace {
        elements: times.len(),
        span_days,
        per_day: (times.len() - 1) as f64 / span_days,
        order: spearman(&order, &times),
        id,
    })
}

/// Growth inside single documents, by array path: where the elements of
/// an array of sub-documents carry the time they were added (a date field
/// of theirs, or their own ObjectId `_id`), each kept document's elements
/// per day over the span of their dates. The document holding the most
/// dated elements is the one measured (the longest log is the strongest
/// evidence, and the document at risk); `correlation` is the rank
/// correlation of its elements' dates with their order in the array
/// (appends come in order), `n` the documents whose dated elements could
/// be measured. Elements dated before their document was created are
/// copies of older records, not appends: such documents are not measured.
pub(crate) fn element_dates(
    profile: &Profile,
    docs: &[Vec<u8>],
    largest: u64,
) -> Vec<(String, Growth)> {
    let largest = largest.max(profile.doc_sizes.max()) as f64;
    let births = age_source(profile).map(|src| Births::of(docs, &src));
    let mut out = Vec::new();
    for f in profile.fields.iter().filter(|f| grows(f)) {
        let Some((clock, clock_path, ty)) = element_clock(profile, f) else {
            continue;
        };
        let mut measured = 0u64;
        let mut best: Option<DocPace> = None;
        for (i, doc) in docs.iter().enumerate() {
            let born = births.as_ref().and_then(|b| b.births[i]);
            let Some(p) = doc_pace(doc, f, &clock, ty, born) else {
                continue;
            };
            measured += 1;
            let better = best
                .as_ref()
                .is_none_or(|b| (p.elements, p.per_day) > (b.elements, b.per_day));
            if better {
                best = Some(p);
            }
        }
        let Some(b) = best else { continue };
        let bpe = bytes_per_element(profile, f);
        out.push((
            f.path.clone(),
            Growth {
                method: ELEMENT_DATES.into(),
                correlation: round(b.order, 3),
                per_day: round(b.per_day, 4),
                days_to_limit: days_to_limit(largest, b.per_day, bpe),
                n: measured,
                bytes_per_element: round(bpe, 1),
                age_from: Some(clock_path),
                days_observed: None,
                within: Some(Within {
                    elements: b.elements as u64,
                    span_days: round(b.span_days, 1),
                    document: b.id,
                }),
                decision: None,
            },
        ));
    }
    out
}

/// Whether the cross-section measures path `f`: an array not itself
/// inside an array.
pub(crate) fn grows(f: &FieldProfile) -> bool {
    f.array.is_some() && !f.segments.contains(&Seg::Elem)
}

/// When each kept document was created, by the age source, and the newest
/// of them: the ages the cross-section measures lengths against.
pub struct Births {
    births: Vec<Option<f64>>,
    newest: f64,
}

impl Births {
    pub(crate) fn of(docs: &[Vec<u8>], src: &AgeSource) -> Births {
        let births: Vec<Option<f64>> = docs.iter().map(|d| birth(d, src)).collect();
        let newest = births.iter().flatten().copied().fold(f64::MIN, f64::max);
        Births { births, newest }
    }

    /// The age in days (from the newest document) and the length of array
    /// path `f` in each document of `docs` (the documents the births were
    /// taken of) that has both: the points the fitted slope rests on.
    pub(crate) fn lengths(&self, docs: &[Vec<u8>], f: &FieldProfile) -> (Vec<f64>, Vec<f64>) {
        let mut ages = Vec::new();
        let mut lens = Vec::new();
        for (doc, b) in docs.iter().zip(&self.births) {
            let Some(b) = b else { continue };
            let vals = extract::values(doc, &f.segments);
            let Some(len) = vals.first().and_then(extract::array_len) else {
                continue;
            };
            ages.push((self.newest - b) / 86_400.0);
            lens.push(len as f64);
        }
        (ages, lens)
    }
}

/// A snapshot's window shorter than this cannot refute growth: an
/// application's writes follow the day (batch jobs, office hours).
pub const MIN_REFUTING_DAYS: f64 = 1.0;
/// Elements the cross-section's pace must predict over the snapshot's
/// window, for all re-read documents together, before seeing none refutes
/// it: with Poisson arrivals, none at all when 3 are expected happens by
/// chance 5 % of the time (e^-3).
pub const MIN_REFUTING_ELEMENTS: f64 = 3.0;

/// Chooses between the cross-section (`cross`) and the snapshot (`snap`) of
/// one array path: the measurement with the evidence decides, and keeps the
/// other, with the reason, in its `decision`. Either alone decides alone.
pub(crate) fn decide(cross: Option<Growth>, snap: Option<Growth>, min_corr: f64) -> Option<Growth> {
    let (cross, snap) = match (cross, snap) {
        (Some(c), Some(s)) => (c, s),
        (c, s) => return c.or(s),
    };
    let days = snap.days_observed.unwrap_or(0.0);
    let cross_grows = cross.is_significant(min_corr);
    let snap_grew = snap.per_day > 0.0 && snap.correlation > 0.0;
    // A pace read inside one document is that document's, not every
    // re-read one's.
    let documents = if cross.within.is_some() {
        1.0
    } else {
        snap.n as f64
    };
    let expected = if cross_grows {
        cross.per_day * days * documents
    } else {
        0.0
    };
    let (reason, snap_decides) = if (snap.n as usize) < MIN_DOCS {
        (Reason::SnapshotTooFewDocuments, false)
    } else if snap_grew && !cross_grows {
        (Reason::SnapshotSawGrowth, true)
    } else if snap_grew {
        if days >= MIN_REFUTING_DAYS {
            (Reason::SnapshotPaceMeasured, true)
        } else {
            (Reason::SnapshotWindowTooShort, false)
        }
    } else if !cross_grows {
        (Reason::NeitherGrows, true)
    } else if days >= MIN_REFUTING_DAYS && expected >= MIN_REFUTING_ELEMENTS {
        (Reason::SnapshotSawNoGrowth, true)
    } else {
        (Reason::SnapshotWindowTooShort, false)
    };
    let (mut winner, other) = if snap_decides {
        (snap, cross)
    } else {
        (cross, snap)
    };
    winner.decision = Some(Box::new(Decision {
        reason,
        expected_elements: round(expected, 1),
        other,
    }));
    Some(winner)
}

/// Average bytes one element of the array at `f` takes, from the profile.
pub(crate) fn bytes_per_element(profile: &Profile, f: &FieldProfile) -> f64 {
    let elem_path = format!("{}[]", f.path);
    match profile.fields.iter().find(|e| e.path == elem_path) {
        Some(e) if e.values > 0 => e.bytes_avg * profile.sampled as f64 / e.values as f64,
        _ => 0.0,
    }
}

/// Days until a document of `size` bytes passes 16 MiB when it gains
/// `per_day` elements of `bytes_per_element` bytes a day.
pub(crate) fn days_to_limit(size: f64, per_day: f64, bytes_per_element: f64) -> Option<f64> {
    let pace = per_day * bytes_per_element;
    if pace <= 0.0 || !pace.is_finite() {
        return None;
    }
    Some(round(((LIMIT_BYTES - size) / pace).max(0.0), 1))
}

fn round(x: f64, digits: i32) -> f64 {
    let m = 10f64.powi(digits);
    // `+ 0.0` folds a negative zero into zero.
    (x * m).round() / m + 0.0
}

/// Ranks with ties given their average rank.
fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut idx: Vec<usize> = (0..xs.len()).collect();
    idx.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut r = vec![0.0; xs.len()];
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && xs[idx[j + 1]].total_cmp(&xs[idx[i]]).is_eq() {
            j += 1;
        }
        let avg = (i + j) as f64 / 2.0 + 1.0;
        for &k in &idx[i..=j] {
            r[k] = avg;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation (Pearson's on ranks, so ties are handled);
/// 0 when either side is constant.
pub(crate) fn spearman(x: &[f64], y: &[f64]) -> f64 {
    if x.len() != y.len() || x.len() < 2 {
        return 0.0;
    }
    pearson(&ranks(x), &ranks(y))
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        0.0
    } else {
        sxy / (sxx * syy).sqrt()
    }
}

/// The Theil–Sen line's intercept for `slope`: the median of `y − slope·x`
/// (0 with no points).
pub(crate) fn intercept(x: &[f64], y: &[f64], slope: f64) -> f64 {
    let mut offsets: Vec<f64> = x
        .iter()
        .zip(y)
        .map(|(a, b)| b - slope * a)
        .filter(|v| v.is_finite())
        .collect();
    if offsets.is_empty() {
        return 0.0;
    }
    let mid = offsets.len() / 2;
    let (_, m, _) = offsets.select_nth_unstable_by(mid, f64::total_cmp);
    *m
}

/// Theil–Sen slope: the median of pairwise slopes, robust to outliers.
/// Pairs with (nearly) equal x are skipped. Large inputs use a fixed,
/// evenly strided subset of pairs.
#[allow(clippy::many_single_char_names)]
pub(crate) fn theil_sen(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len().min(y.len());
    let total = n * n.saturating_sub(1) / 2;
    let stride = (total / MAX_SLOPE_PAIRS).max(1);
    let mut slopes = Vec::with_capacity(total.min(MAX_SLOPE_PAIRS) + 1);
    let mut k = 0usize;
    for i in 0..n {
        for j in (i + 1)..n {
            k += 1;
            if !k.is_multiple_of(stride) {
                continue;
            }
            let dx = x[j] - x[i];
            if dx.abs() > 1e-9 {
                slopes.push((y[j] - y[i]) / dx);
            }
        }
    }
    if slopes.is_empty() {
        return 0.0;
    }
    let mid = slopes.len() / 2;
    let (_, m, _) = slopes.select_nth_unstable_by(mid, f64::total_cmp);
    *m
}

#[cfg(test)]
#[allow(clippy::many_single_char_names)]
mod tests {
    use super::*;

    #[test]
    fn spearman_detects_monotone_relations() {
        let x: Vec<f64> = (0..100).map(f64::from).collect();
        let y: Vec<f64> = x.iter().map(|v| v * v).collect();
        assert!((spearman(&x, &y) - 1.0).abs() < 1e-12);
        let z: Vec<f64> = x.iter().map(|v| -v).collect();
        assert!((spearman(&x, &z) + 1.0).abs() < 1e-12);
        let flat = vec![3.0; 100];
        assert!(spearman(&x, &flat).abs() < 1e-12);
    }

    #[test]
    fn spearman_of_shuffled_data_is_small() {
        let x: Vec<f64> = (0..500).map(f64::from).collect();
        let y: Vec<f64> = (0..500u64)
            .map(|i| ((i * 7919 + 13) % 503) as f64)
            .collect();
        assert!(spearman(&x, &y).abs() < 0.15);
    }

    #[test]
    fn theil_sen_recovers_a_slope_despite_outliers() {
        let x: Vec<f64> = (0..200).map(f64::from).collect();
        let mut y: Vec<f64> = x.iter().map(|v| 2.5 * v + 3.0).collect();
        for i in (0..200).step_by(17) {
            y[i] = 10_000.0;
        }
        assert!((theil_sen(&x, &y) - 2.5).abs() < 0.05);
    }

    fn measured(method: &str, correlation: f64, per_day: f64, n: u64, days: Option<f64>) -> Growth {
        Growth {
            method: method.into(),
            correlation,
            per_day,
            days_to_limit: None,
            n,
            bytes_per_element: 10.0,
            age_from: None,
            days_observed: days,
            within: None,
            decision: None,
        }
    }

    /// The measurement with the evidence decides, whatever came first.
    #[test]
    fn the_measurement_with_the_evidence_decides() {
        let cross = |c: f64, p: f64, n: u64| Some(measured("age-correlation", c, p, n, None));
        let snap =
            |share: f64, p: f64, n: u64, d: f64| Some(measured("snapshot", share, p, n, Some(d)));
        // (cross, snapshot, method that decides, reason)
        let cases = [
            // 1.2 hours after the first audit, nobody wrote: a strong trend
            // over hundreds of documents stands.
            (
                cross(0.98, 3.0, 800),
                snap(0.0, 0.0, 200, 0.05),
                "age-correlation",
                Reason::SnapshotWindowTooShort,
            ),
            // Ten days without a single new element where 6,000 were due.
            (
                cross(0.98, 3.0, 800),
                snap(0.0, 0.0, 200, 10.0),
                "snapshot",
                Reason::SnapshotSawNoGrowth,
            ),
            // Two days, but a pace so slow that none was expected either.
            (
                cross(0.9, 0.001, 800),
                snap(0.0, 0.0, 200, 2.0),
                "age-correlation",
                Reason::SnapshotWindowTooShort,
            ),
            // Growth seen directly where the ages show none.
            (
                cross(0.05, 0.0, 800),
                snap(1.0, 3.0, 50, 10.0),
                "snapshot",
                Reason::SnapshotSawGrowth,
            ),
            // ... even over a short window: it was seen.
            (
                cross(0.05, 0.0, 800),
                snap(0.4, 8.0, 50, 0.1),
                "snapshot",
                Reason::SnapshotSawGrowth,
            ),
            // Both grow: the pace measured over days wins; over hours, not.
            (
                cross(0.9, 3.0, 800),
                snap(0.9, 2.0, 200, 5.0),
                "snapshot",
                Reason::SnapshotPaceMeasured,
            ),
            (
                cross(0.9, 3.0, 800),
                snap(0.9, 20.0, 200, 0.2),
                "age-correlation",
                Reason::SnapshotWindowTooShort,
            ),
            // Few documents found again say nothing.
            (
                cross(0.9, 3.0, 800),
                snap(0.0, 0.0, 12, 30.0),
                "age-correlation",
                Reason::SnapshotTooFewDocuments,
            ),
            (
                cross(0.1, 0.0, 800),
                snap(0.0, 0.0, 200, 30.0),
                "snapshot",
                Reason::NeitherGrows,
            ),
        ];
        for (i, (c, s, method, reason)) in cases.into_iter().enumerate() {
            let other = if method == "snapshot" {
                c.clone()
            } else {
                s.clone()
            };
            let g = decide(c, s, 0.5).expect("two measurements");
            assert_eq!(g.method, method, "case {i}");
            let d = g.decision.as_deref().expect("a decision");
            assert_eq!(d.reason, reason, "case {i}");
            assert_eq!(
                Some(&d.other),
                other.as_ref(),
                "case {i}: the other is kept whole"
            );
            assert!(g
                .decision_text(Lang::En)
                .is_some_and(|t| t.contains(&d.other.method)));
            assert!(g.decision_text(Lang::Zh).is_some());
        }
        // Alone, a measurement decides alone and says nothing of a choice.
        let only = decide(cross(0.9, 3.0, 800), None, 0.5).expect("one");
        assert!(only.decision.is_none() && only.decision_text(Lang::En).is_none());
        assert!(decide(None, None, 0.5).is_none());
    }

    /// An ObjectId created at `secs`, numbered `n`.
    fn oid(secs: u32, n: u32) -> bson::oid::ObjectId {
        let mut b = [0u8; 12];
        b[..4].copy_from_slice(&secs.to_be_bytes());
        b[8..].copy_from_slice(&n.to_be_bytes());
        bson::oid::ObjectId::from_bytes(b)
    }

    const T0: u32 = 1_700_000_000;
    const DAY: u32 = 86_400;

    /// Forty users created together, 10 days before `T0`: the first with
    /// `many` logins dated by `at` (the date of login `k` of `n`, seconds;
    /// `None` leaves it undated), each other with 3 over 10 days.
    fn users(many: u32, at: &dyn Fn(u32, u32) -> Option<u32>) -> (Profile, Vec<Vec<u8>>) {
        let docs: Vec<Vec<u8>> = (0..40u32)
            .map(|u| {
                let n = if u == 0 { many } else { 3 };
                let logins: Vec<bson::Document> = (0..n)
                    .map(|k| {
                        let t = if u == 0 { at(k, n) } else { Some(T0 + k * 5 * DAY) };
                        match t {
                            Some(t) => bson::doc! {"at": bson::DateTime::from_millis(i64::from(t) * 1000), "ip": "10.0.0.1"},
                            None => bson::doc! {"ip": "10.0.0.1"},
                        }
                    })
                    .collect();
                bson::serialize_to_vec(&bson::doc! {"_id": oid(T0 - 10 * DAY, u), "logins": logins})
                    .expect("bson")
            })
            .collect();
        let mut p = crate::profile::Profiler::default();
        for d in &docs {
            p.add(d).expect("valid");
        }
        (p.finish(), docs)
    }

    #[test]
    fn growth_inside_one_document_from_its_elements_dates() {
        // 120 logins over 60 days, in order.
        let (p, docs) = users(120, &|k, n| Some(T0 + k * 60 * DAY / (n - 1)));
        let by_path = measure(&p, &docs, p.doc_sizes.max(), 0.5);
        let g = &by_path["logins"];
        assert_eq!(g.method, ELEMENT_DATES);
        assert_eq!(g.age_from.as_deref(), Some("logins[].at"));
        let w = g.within.as_ref().expect("within");
        assert_eq!((w.elements, w.span_days), (120, 60.0));
        assert!((g.per_day - 119.0 / 60.0).abs() < 1e-3, "{g:?}");
        assert!(g.correlation > 0.99, "{g:?}");
        assert_eq!(g.n, 40, "every user's dated logins were measured");
        assert!(g.is_significant(0.5));
        assert!(g.days_to_limit.is_some_and(|d| d > 0.0));
        // Users created together show no growth across documents: the
        // cross-section is kept aside.
        let d = g.decision.as_deref().expect("the cross-section set aside");
        assert_eq!(d.reason, Reason::ElementDatesSawGrowth);
        assert_eq!(d.other.method, "age-correlation");
        assert!(g
            .strength(Lang::En)
            .contains("120 elements of one document"));
        assert!(g.decision_text(Lang::Zh).is_some());
        // 19 dated elements are measured, but are not growth to rely on:
        // the cross-section stays.
        let (p, docs) = users(19, &|k, n| Some(T0 + k * 60 * DAY / (n - 1)));
        let within = element_dates(&p, &docs, p.doc_sizes.max());
        assert_eq!(within[0].1.within.as_ref().map(|w| w.elements), Some(19));
        assert!(!within[0].1.is_significant(0.5));
        let g = &measure(&p, &docs, p.doc_sizes.max(), 0.5)["logins"];
        assert_eq!(g.method, "age-correlation");
    }

    #[test]
    fn elements_that_are_not_appends_show_no_growth_inside() {
        let measured = |at: &dyn Fn(u32, u32) -> Option<u32>| {
            let (p, docs) = users(120, at);
            element_dates(&p, &docs, p.doc_sizes.max())
                .into_iter()
                .find(|(path, _)| path == "logins")
                .map(|(_, g)| g)
        };
        // Dates against the array's order: a copy sorted otherwise.
        let g = measured(&|k, n| Some(T0 + (n - 1 - k) * 60 * DAY / (n - 1))).expect("measured");
        assert!(g.correlation < -0.99 && !g.is_significant(0.5), "{g:?}");
        // Written at once: 120 elements within an hour.
        let g = measured(&|k, _| Some(T0 + k * 30)).expect("the others are measured");
        assert_eq!(g.within.map(|w| w.elements), Some(3), "the burst is not");
        // Dated a year before their document was created: embedded copies
        // of older records.
        let g =
            measured(&|k, n| Some(T0 - 365 * DAY + k * 60 * DAY / (n - 1))).expect("the others");
        assert_eq!(g.within.map(|w| w.elements), Some(3));
        // Most elements undated: no clock.
        let (p, docs) = users(400, &|k, _| (k % 3 == 0).then_some(T0 + k * DAY));
        let found = element_dates(&p, &docs, p.doc_sizes.max());
        assert!(found.iter().all(|(path, _)| path != "logins"), "{found:?}");
    }

    #[test]
    fn an_elements_own_object_id_is_its_clock() {
        let docs: Vec<Vec<u8>> = (0..3u32)
            .map(|u| {
                let items: Vec<bson::Document> = (0..30u32)
                    .map(|k| bson::doc! {"_id": oid(T0 + k * DAY, k), "text": "hi"})
                    .collect();
                bson::serialize_to_vec(&bson::doc! {"_id": oid(T0, 1000 + u), "items": items})
                    .expect("bson")
            })
            .collect();
        let mut p = crate::profile::Profiler::default();
        for d in &docs {
            p.add(d).expect("valid");
        }
        let p = p.finish();
        let g = &measure(&p, &docs, p.doc_sizes.max(), 0.5)["items"];
        assert_eq!(g.age_from.as_deref(), Some("items[]._id"));
        assert_eq!(g.within.as_ref().map(|w| w.elements), Some(30));
        assert!((g.per_day - 1.0).abs() < 1e-9, "{g:?}");
    }

    #[test]
    fn forecast() {
        assert_eq!(days_to_limit(1000.0, 0.0, 100.0), None);
        let d = days_to_limit(0.0, 1.0, 1024.0).expect("growing");
        assert!((d - 16384.0).abs() < 0.1);
        assert_eq!(days_to_limit(LIMIT_BYTES * 2.0, 1.0, 1.0), Some(0.0));
    }
}
