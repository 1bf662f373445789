//! Pieces several checks share: finding where embedded elements were moved
//! (a child collection holding its parent's `_id`) and counting them
//! against what `seed` embedded.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document};

use super::{documents_kept, ids, seeded, still_fires, Verdict, View};
use crate::fmt::group;
use crate::i18n::Text;
use crate::source::SourceError;

/// Documents read from each candidate collection to find a field holding
/// the parents' ids.
const PROBE_DOCS: i64 = 50;
/// Moved elements looked up one by one through the new reference.
const SAMPLED: usize = 6;

/// An exercise that moves an embedded array out of its parents into a
/// collection of its own whose documents hold their parent's `_id` (a
/// parent reference), indexed.
pub struct ChildMove {
    pub dataset: &'static str,
    /// The parents' collection (`bad_hosts`).
    pub parent: &'static str,
    /// The embedded array moved out (`logs`).
    pub array: &'static str,
    /// The rule that fired on it.
    pub rule: &'static str,
    /// Fields of an element that must be found again, with its parent's
    /// id, in the child collection (`time`, `message`).
    pub keys: &'static [&'static str],
    /// What the elements are, plural (English, Chinese).
    pub noun: (&'static str, &'static str),
    /// Whether the reference must be indexed.
    pub index: bool,
}

/// Where the elements went: the child collection and its reference field.
#[derive(Clone, Debug)]
pub struct Moved {
    pub coll: String,
    pub field: String,
    /// Elements found through the reference, over all parents.
    pub found: u64,
    /// Elements found per parent (`_id` as Extended JSON).
    pub per_parent: BTreeMap<String, u64>,
}

/// Hints a [`ChildMove`] failure points to: the rule (which design), the
/// data (what to copy where), the index.
pub const HINT_DESIGN: usize = 0;
pub const HINT_DATA: usize = 1;
pub const HINT_INDEX: usize = 2;

/// A top-level field (or one a level down, `host.id`) of `d` whose value
/// is one of `ids`, or an array holding one.
pub(crate) fn reference_fields(d: &Document, ids: &[Bson]) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in d {
        if k == "_id" {
            continue;
        }
        if ids.contains(v) {
            out.push(k.clone());
        } else if let Bson::Array(a) = v {
            if a.iter().any(|e| ids.contains(e)) {
                out.push(k.clone());
            }
        } else if let Bson::Document(sub) = v {
            for (k2, v2) in sub {
                if ids.contains(v2) {
                    out.push(format!("{k}.{k2}"));
                }
            }
        }
    }
    out
}

impl ChildMove {
    /// Counts per parent `_id` of the elements seed embedded.
    fn expected(&self) -> (Vec<Document>, BTreeMap<String, Vec<Document>>) {
        let parents = seeded(self.dataset, self.parent);
        let mut per = BTreeMap::new();
        for p in &parents {
            let elems: Vec<Document> = p
                .get_array(self.array)
                .map(|a| a.iter().filter_map(|e| e.as_document().cloned()).collect())
                .unwrap_or_default();
            per.insert(key(p.get("_id")), elems);
        }
        (parents, per)
    }

    /// The collection and field holding the parents' ids with the most
    /// documents, if any collection does.
    async fn find_child(
        &self,
        v: &View,
        parent_ids: &[Bson],
    ) -> Result<Option<Moved>, SourceError> {
        let mut best: Option<Moved> = None;
        for c in v.collections(self.dataset) {
            let name = c.meta.name.as_str();
            if name == self.parent || name.starts_with("good_") {
                continue;
            }
            let docs = v
                .find(self.dataset, name, Document::new(), PROBE_DOCS)
                .await?;
            let mut fields: Vec<String> = docs
                .iter()
                .flat_map(|d| reference_fields(d, parent_ids))
                .collect();
            fields.sort();
            fields.dedup();
            for f in fields {
                let per = self.per_parent(v, name, &f, parent_ids).await?;
                let n: u64 = per.values().sum();
                if best.as_ref().is_none_or(|b| n > b.found) {
                    best = Some(Moved {
                        coll: name.to_owned(),
                        field: f,
                        found: n,
                        per_parent: per,
                    });
                }
            }
        }
        Ok(best)
    }

    /// Elements per parent `_id` through `field` of `coll`.
    async fn per_parent(
        &self,
        v: &View,
        coll: &str,
        field: &str,
        parent_ids: &[Bson],
    ) -> Result<BTreeMap<String, u64>, SourceError> {
        // Grouped on the server, matched here: a `$match` on a long `$in`
        // costs some servers a scan per value.
        let rows = v
            .aggregate(
                self.dataset,
                coll,
                vec![doc! {"$group": {"_id": format!("${field}"), "n": {"$sum": 1}}}],
            )
            .await?;
        let wanted: std::collections::BTreeSet<String> =
            parent_ids.iter().map(|b| key(Some(b))).collect();
        Ok(rows
            .iter()
            .map(|r| (key(r.get("_id")), count_of(r.get("n"))))
            .filter(|(k, _)| wanted.contains(k))
            .collect())
    }

    /// Elements still embedded per parent `_id`.
    async fn still_embedded(&self, v: &View) -> Result<BTreeMap<String, u64>, SourceError> {
        let rows = v
            .aggregate(
                self.dataset,
                self.parent,
                vec![doc! {"$project": {"n": {"$cond": [
                    {"$isArray": format!("${}", self.array)},
                    {"$size": format!("${}", self.array)},
                    0
                ]}}}],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| (key(r.get("_id")), count_of(r.get("n"))))
            .collect())
    }

    /// Checks the move: `Ok(Ok(moved))` when it is complete (the caller
    /// may check more), `Ok(Err(verdict))` when it is not.
    pub(crate) async fn check(&self, v: &View) -> Result<Result<Moved, Verdict>, SourceError> {
        let (en, zh) = self.noun;
        let mut evidence: Vec<Text> = Vec::new();
        let mut hint = usize::MAX;
        let mut fail = |t: Text, h: usize, evidence: &mut Vec<Text>| {
            evidence.push(t);
            hint = hint.min(h);
        };
        if let Some(Verdict::Fail {
            evidence: e,
            hint: h,
        }) = documents_kept(v, self.dataset, self.parent, HINT_DATA).await?
        {
            for t in e {
                fail(t, h, &mut evidence);
            }
        }
        for f in v.fired(self.dataset, self.rule) {
            fail(still_fires(f), HINT_DESIGN, &mut evidence);
        }
        let (parents, expected) = self.expected();
        let parent_ids = ids(&parents);
        let total: u64 = expected.values().map(|e| e.len() as u64).sum();
        let child = self.find_child(v, &parent_ids).await?;
        let embedded = self.still_embedded(v).await?;
        let through = child
            .as_ref()
            .map(|m| m.per_parent.clone())
            .unwrap_or_default();
        let mut lost = 0u64;
        let mut short_parents = 0u64;
        for (id, want) in &expected {
            let have = through
                .get(id)
                .copied()
                .unwrap_or(0)
                .max(embedded.get(id).copied().unwrap_or(0));
            let want = want.len() as u64;
            if have < want {
                lost += want - have;
                short_parents += 1;
            }
        }
        let parent = self.parent;
        let Some(moved) = child else {
            let kept: u64 = embedded.values().sum();
            fail(
                Text::new(
                    format!(
                        "no collection holds {en} that reference {parent} by _id: seed embedded {} {en}; {} are still in {parent}.{}, {} are nowhere",
                        group(total),
                        group(kept),
                        self.array,
                        group(total.saturating_sub(kept))
                    ),
                    format!(
                        "没有任何集合保存按 _id 引用 {parent} 的{zh}：seed 内嵌了 {} 条{zh}；{parent}.{} 中还剩 {} 条，{} 条已经找不到了",
                        group(total),
                        self.array,
                        group(kept),
                        group(total.saturating_sub(kept))
                    ),
                ),
                if kept == 0 { HINT_DATA } else { HINT_DESIGN },
                &mut evidence,
            );
            return Ok(Err(Verdict::Fail { evidence, hint }));
        };
        let place = format!("{}.{}", moved.coll, moved.field);
        if lost > 0 {
            fail(
                Text::new(
                    format!(
                        "{} of the {} {en} seed embedded are lost: {} of {} {parent} documents have fewer {en} through {place} than seed wrote",
                        group(lost),
                        group(total),
                        group(short_parents),
                        group(expected.len() as u64)
                    ),
                    format!(
                        "seed 内嵌的 {} 条{zh}中丢失了 {} 条：{} 个 {parent} 文档中有 {} 个通过 {place} 找到的{zh}少于 seed 写入的数量",
                        group(total),
                        group(lost),
                        group(expected.len() as u64),
                        group(short_parents)
                    ),
                ),
                HINT_DATA,
                &mut evidence,
            );
        }
        // A few elements, spread over the parents, found again through the
        // reference with their own fields.
        let sample: Vec<(&String, &Document)> = {
            let all: Vec<(&String, &Document)> = expected
                .iter()
                .flat_map(|(id, es)| es.iter().map(move |e| (id, e)))
                .collect();
            let step = (all.len() / SAMPLED).max(1);
            all.into_iter().step_by(step).take(SAMPLED).collect()
        };
        let by_id: BTreeMap<String, &Bson> = parent_ids.iter().map(|b| (key(Some(b)), b)).collect();
        let mut missing = 0u64;
        for (id, e) in &sample {
            let Some(pid) = by_id.get(*id) else { continue };
            let mut filter = doc! {moved.field.as_str(): (*pid).clone()};
            for k in self.keys {
                if let Some(val) = e.get(*k) {
                    filter.insert(*k, val.clone());
                }
            }
            if v.count(self.dataset, &moved.coll, filter).await? == 0 {
                missing += 1;
            }
        }
        if missing > 0 {
            fail(
                Text::new(
                    format!(
                        "{} of {} {en} looked up through {place} with their {} are not found",
                        group(missing),
                        group(sample.len() as u64),
                        self.keys.join(", ")
                    ),
                    format!(
                        "通过 {place} 按 {} 查找 {} 条{zh}，有 {} 条找不到",
                        self.keys.join("、"),
                        group(sample.len() as u64),
                        group(missing)
                    ),
                ),
                HINT_DATA,
                &mut evidence,
            );
        }
        if self.index && !v.indexed(self.dataset, &moved.coll, &moved.field) {
            fail(
                Text::new(
                    format!(
                        "no index of {} starts with {}: finding a parent's {en} scans the whole collection",
                        moved.coll, moved.field
                    ),
                    format!(
                        "{} 上没有以 {} 开头的索引：查找一个父文档的{zh}要扫描整个集合",
                        moved.coll, moved.field
                    ),
                ),
                HINT_INDEX,
                &mut evidence,
            );
        }
        if evidence.is_empty() {
            Ok(Ok(moved))
        } else {
            Ok(Err(Verdict::Fail { evidence, hint }))
        }
    }

    /// What a passing move confirms.
    pub(crate) fn confirmed(&self, m: &Moved) -> Vec<Text> {
        let (en, zh) = self.noun;
        let parents = group(seeded(self.dataset, self.parent).len() as u64);
        vec![
            Text::new(
                format!("{} no longer fires on {}", self.rule, self.parent),
                format!("{} 不再在 {} 上触发", self.rule, self.parent),
            ),
            Text::new(
                format!(
                    "all {} {en} are in {}; each of the {parents} {} documents finds its own through {}.{}{}",
                    group(m.found),
                    m.coll,
                    self.parent,
                    m.coll,
                    m.field,
                    if self.index { " (indexed)" } else { "" }
                ),
                format!(
                    "全部 {} 条{zh}都在 {} 中；{parents} 个 {} 文档都能通过 {}.{} 找到自己的{zh}{}",
                    group(m.found),
                    m.coll,
                    self.parent,
                    m.coll,
                    m.field,
                    if self.index { "（有索引）" } else { "" }
                ),
            ),
        ]
    }
}

/// A map key for an `_id` (its Extended JSON).
pub(crate) fn key(b: Option<&Bson>) -> String {
    b.map(|b| b.clone().into_relaxed_extjson().to_string())
        .unwrap_or_default()
}

/// A count from an aggregation (`$sum` gives an int32 or an int64).
pub(crate) fn count_of(b: Option<&Bson>) -> u64 {
    match b {
        Some(Bson::Int32(n)) => u64::try_from(*n).unwrap_or(0),
        Some(Bson::Int64(n)) => u64::try_from(*n).unwrap_or(0),
        Some(Bson::Double(n)) if *n >= 0.0 => *n as u64,
        _ => 0,
    }
}
