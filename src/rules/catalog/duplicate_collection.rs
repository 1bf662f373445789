//! `duplicate-collection`: two collections (of any databases) that hold the
//! same documents: most of their `_id`s shared and the same shape — a copy
//! left behind by a migration, a restore into a second database, a backup
//! kept beside its source. Each copy costs its storage and indexes, and
//! the application may write to one and read the other.
//!
//! The share is measured only where it can be, and says over what:
//! exactly when both collections were read whole and their sketches hold
//! every `_id` (`profile::ids`); from a sample of one against the whole
//! other (a Wilson interval, the lower bound deciding); from the two
//! sketches' smallest hashes when both were read whole but are larger
//! (an estimate with its standard error). Two samples of two large
//! collections say nothing of it, and no finding is made. An `_id` counts
//! as shared when it is unique by construction (an ObjectId, a UUID) in
//! both, else only when the whole document is the same: `1, 2, 3 …` are
//! in many collections by chance.

use std::collections::HashMap;

use serde::Serialize;

use crate::rules::collection_per_tenant::jaccard;
use crate::rules::context::CollectionSummary;
use crate::rules::{Crossed, DeploymentCtx, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::rules::declare::rule;
use crate::rules::registry::Check;

/// `_id` hashes held by more collections than this are no evidence of a
/// copy (every collection numbered from 1 holds `_id: 1`).
const COMMON_ID: usize = 64;

rule! {
    id: "duplicate-collection",
    title: "Two collections holding the same documents",
    explanation: (
        "Two collections that share most of their _ids and their shape hold the same documents twice: a copy left by a migration, a restore into a second database, a backup beside its source. Each costs storage, indexes and cache; worse, an application that writes to one and reads the other sees stale data. Keep one: drop the other once nothing reads it, or replace it by a view on the one kept.",
        "两个集合的 _id 大部分相同、结构也相同，说明同样的文档被保存了两份：迁移留下的副本、恢复到第二个数据库的数据、放在源集合旁边的备份。每一份都要占用存储、索引和缓存；更糟的是，应用写一个、读另一个时会读到过期数据。只保留一个：确认没人读取后删除另一个，或者用基于保留集合的视图代替它。",
    ),
    source: "MongoDB docs (views); storage and index costs per collection",
    check: Check::Deployment(check),
    needs: Everything,
    limits: {
        /// share of each collection's _ids the other holds
        min_shared: 0.9,
        /// Jaccard similarity of the two collections' field-path sets
        min_similarity: 0.9,
    },
}

/// How the shared share was measured.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// Every `_id` of both compared.
    Exact,
    /// A sample of one against every `_id` of the other.
    SampleAgainstWhole,
    /// The smallest hashes of two collections read whole.
    SmallestHashes,
}

/// The share of each collection's `_id`s the other holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    pub method: Method,
    /// `_id`s compared, and of them shared.
    pub compared: u64,
    pub shared: u64,
    /// Of the shared ones, those whose whole document is the same.
    pub same: u64,
    /// Share of `a`'s and of `b`'s `_id`s the other holds (estimates).
    pub share_a: f64,
    pub share_b: f64,
    /// The lower bound the decision reads (the share itself when exact).
    pub low: f64,
}

fn counted(a: &CollectionSummary<'_>, b: &CollectionSummary<'_>, shared: u64, same: u64) -> u64 {
    if a.ids.ids_unique_by_kind() && b.ids.ids_unique_by_kind() {
        shared
    } else {
        same
    }
}

/// The share of `_id`s `a` and `b` hold in common, where it can be
/// measured.
pub fn measure(a: &CollectionSummary<'_>, b: &CollectionSummary<'_>) -> Option<Measure> {
    if whole(a) && whole(b) {
        return Some(exact(a, b));
    }
    // One whole, the other a sample held whole by its sketch.
    if let Some(mut m) = one_sided(a, b) {
        // Measured from b's side: share_a above is b's.
        (m.share_a, m.share_b) = (m.share_b, m.share_a);
        return Some(m);
    }
    if let Some(m) = one_sided(b, a) {
        return Some(m);
    }
    // Both read whole, too many to hold: the union's smallest hashes.
    if a.complete && b.complete && a.ids.read > 0 && b.ids.read > 0 {
        return smallest_hashes(a, b);
    }
    None
}

/// Every `_id` of the collection was read and its sketch holds them all.
fn whole(s: &CollectionSummary<'_>) -> bool {
    s.complete && s.ids.holds_all() && s.ids.read > 0
}

/// Both collections' `_id`s held whole: the shares counted exactly.
fn exact(a: &CollectionSummary<'_>, b: &CollectionSummary<'_>) -> Measure {
    let (na, nb) = (a.ids.read, b.ids.read);
    let (shared, same) = a.ids.shared_with(b.ids);
    let c = counted(a, b, shared, same);
    let (sa, sb) = (c as f64 / na as f64, c as f64 / nb as f64);
    Measure {
        method: Method::Exact,
        compared: na + nb - shared,
        shared,
        same,
        share_a: sa,
        share_b: sb,
        low: sa.min(sb),
    }
}

/// `w` held whole, `s` a sample its sketch holds whole: the share of the
/// sample in `w`, carried to `s`'s whole count (`share_a` is `s`'s side).
#[allow(clippy::many_single_char_names)]
fn one_sided(w: &CollectionSummary<'_>, s: &CollectionSummary<'_>) -> Option<Measure> {
    if !(whole(w) && s.ids.holds_all() && s.ids.read > 0) {
        return None;
    }
    let total = s.documents.filter(|d| *d > 0)? as f64;
    let (shared, same) = s.ids.shared_with(w.ids);
    let c = counted(w, s, shared, same);
    let n = s.ids.read;
    let p = c as f64 / n as f64;
    let (lo, _) = crate::profile::sketch::wilson(c, n);
    let wn = w.ids.read as f64;
    // Of s's documents about p hold an _id of w: p * total of w's.
    let of_w = |x: f64| (x * total / wn).min(1.0);
    Some(Measure {
        method: Method::SampleAgainstWhole,
        compared: n,
        shared,
        same,
        share_a: p,
        share_b: of_w(p),
        low: lo.min(of_w(lo)),
    })
}

/// Both read whole but too many `_id`s to hold: the share estimated from
/// the union's smallest hashes (a bottom-k sketch of each).
#[allow(clippy::many_single_char_names)]
fn smallest_hashes(a: &CollectionSummary<'_>, b: &CollectionSummary<'_>) -> Option<Measure> {
    let (na, nb) = (a.ids.read, b.ids.read);
    let union = union_of_smallest(a, b);
    let shared = union.iter().filter(|u| u.2).count() as u64;
    let same: u64 = union.iter().map(|u| u.1).sum();
    let c = counted(a, b, shared, same) as f64;
    let n = union.len() as f64;
    if n == 0.0 {
        return None;
    }
    let j = c / n;
    let se = (j * (1.0 - j) / n).sqrt();
    let both = |j: f64| j / (1.0 + j) * (na + nb) as f64;
    let (sa, sb) = (both(j) / na as f64, both(j) / nb as f64);
    let jl = (j - 2.0 * se).max(0.0);
    Some(Measure {
        method: Method::SmallestHashes,
        compared: union.len() as u64,
        shared,
        same,
        share_a: sa.min(1.0),
        share_b: sb.min(1.0),
        low: (both(jl) / na as f64).min(both(jl) / nb as f64).min(1.0),
    })
}

/// The `k` smallest hashes of both sketches merged: (hash, 1 when both
/// hold it with the same document, held by both).
#[allow(clippy::many_single_char_names)]
fn union_of_smallest(a: &CollectionSummary<'_>, b: &CollectionSummary<'_>) -> Vec<(u64, u64, bool)> {
    let k = a.ids.k.min(b.ids.k);
    let mut union: Vec<(u64, u64, bool)> = Vec::with_capacity(2 * k);
    let (ea, eb) = (&a.ids.entries, &b.ids.entries);
    let (mut i, mut j) = (0, 0);
    while union.len() < k && (i < ea.len() || j < eb.len()) {
        match (ea.get(i), eb.get(j)) {
            (Some(x), Some(y)) if x.0 == y.0 => {
                union.push((x.0, u64::from(x.1 == y.1), true));
                i += 1;
                j += 1;
            }
            (Some(x), Some(y)) if x.0 < y.0 => {
                union.push((x.0, 0, false));
                i += 1;
            }
            (Some(_) | None, Some(y)) => {
                union.push((y.0, 0, false));
                j += 1;
            }
            (Some(x), None) => {
                union.push((x.0, 0, false));
                i += 1;
            }
            (None, None) => break,
        }
    }
    union
}

#[allow(clippy::many_single_char_names)]
pub fn check(ctx: &DeploymentCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let l = &t.duplicate_collection;
    let s = &ctx.summaries;
    // Pairs sharing an _id hash, through an index of the hashes.
    let mut holders: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, c) in s.iter().enumerate() {
        for (h, _) in &c.ids.entries {
            holders.entry(*h).or_default().push(i);
        }
    }
    let mut pairs: HashMap<(usize, usize), u64> = HashMap::new();
    for list in holders
        .values()
        .filter(|l| l.len() > 1 && l.len() <= COMMON_ID)
    {
        for (x, &i) in list.iter().enumerate() {
            for &j in &list[x + 1..] {
                *pairs.entry((i, j)).or_default() += 1;
            }
        }
    }
    let mut pairs: Vec<(usize, usize)> = pairs.into_keys().collect();
    pairs.sort_unstable();
    let mut out = Vec::new();
    for (i, j) in pairs {
        let (a, b) = (&s[i], &s[j]);
        let similarity = jaccard(a.shape, b.shape);
        if similarity < l.min_similarity {
            continue;
        }
        let Some(m) = measure(a, b) else { continue };
        if m.low < l.min_shared {
            continue;
        }
        let (an, bn) = (
            format!("{}.{}", a.db, a.name),
            format!("{}.{}", b.db, b.name),
        );
        let evidence = Duplicated {
            collections: [&an, &bn],
            documents: [a.documents, b.documents],
            share_held_by_other: [m.share_a, m.share_b],
            share_lower_bound: m.low,
            ids_compared: m.compared,
            ids_shared: m.shared,
            same_documents: m.same,
            method: m.method,
            shape_similarity: similarity,
            threshold: Crossed::of(t, Key::min_shared),
            scope: if m.method == Method::SampleAgainstWhole {
                "sample"
            } else {
                "collection"
            },
            ids_read: [a.ids.read, b.ids.read],
            unique_by_kind: a.ids.ids_unique_by_kind() && b.ids.ids_unique_by_kind(),
        };
        let remedy = Remedy::DuplicateCollection {
            a: an.clone(),
            b: bn.clone(),
        };
        out.push(Finding::new(RULE, Severity::Info, &an, None, &evidence, lang, remedy));
    }
    out
}

/// What `duplicate-collection` measured of two collections.
#[derive(Serialize)]
struct Duplicated<'a> {
    collections: [&'a str; 2],
    /// Each collection's documents, where counted.
    documents: [Option<u64>; 2],
    share_held_by_other: [f64; 2],
    share_lower_bound: f64,
    ids_compared: u64,
    ids_shared: u64,
    same_documents: u64,
    method: Method,
    shape_similarity: f64,
    threshold: Crossed,
    scope: &'static str,
    /// The `_id`s each collection read.
    #[serde(skip)]
    ids_read: [u64; 2],
    /// Both collections' `_id`s are ObjectIds or UUIDs, shared only by a
    /// copy.
    #[serde(skip)]
    unique_by_kind: bool,
}

impl Evidence for Duplicated<'_> {
    fn describe(&self, lang: Lang) -> String {
        let [an, bn] = self.collections;
        let (compared, low) = (group(self.ids_compared), percent(self.share_lower_bound));
        let over = match self.method {
            Method::Exact => {
                let (ra, rb) = (group(self.ids_read[0]), group(self.ids_read[1]));
                lang.pick(
                    format!("every _id of both compared ({ra} and {rb})"),
                    format!("比较了两者的全部 _id（{ra} 个和 {rb} 个）"),
                )
            }
            Method::SampleAgainstWhole => lang.pick(
                format!("a sample of {compared} _ids against every _id of the other; the lower bound of the 95 % interval is {low}"),
                format!("用 {compared} 个抽样 _id 与另一个集合的全部 _id 比较；95% 区间的下限为 {low}"),
            ),
            Method::SmallestHashes => lang.pick(
                format!("estimated from the {compared} smallest _id hashes of both, every document read; its lower bound is {low}"),
                format!("根据两者最小的 {compared} 个 _id 哈希估计（已读取全部文档）；下限为 {low}"),
            ),
        };
        let what_counts = if self.unique_by_kind {
            lang.pick(
                "their _ids are ObjectIds or UUIDs, shared only by a copy",
                "它们的 _id 是 ObjectId 或 UUID，只有复制才会相同",
            )
        } else {
            lang.pick(
                "an _id counts only with the same whole document",
                "只有整个文档也相同时才计入该 _id",
            )
        };
        let (sa, sb) = (percent(self.share_held_by_other[0]), percent(self.share_held_by_other[1]));
        let similarity = self.shape_similarity;
        lang.pick(
            format!("{an} and {bn} hold the same documents: {sa} of {an}'s _ids and {sb} of {bn}'s are in the other ({over}; {what_counts}), and their shapes are alike (similarity {similarity:.2})"),
            format!("{an} 和 {bn} 保存的是同样的文档：{an} 的 _id 有 {sa} 在另一个集合中，{bn} 的有 {sb}（{over}；{what_counts}），两者结构也相同（相似度 {similarity:.2}）"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// No top-level fields: these rules compare shapes only.
    static NO_TOP: std::sync::LazyLock<crate::rules::context::TopFields> =
        std::sync::LazyLock::new(Default::default);
    use crate::profile::ids::{shape_of, IdSketch, IdSketcher};
    use bson::doc;

    fn sketch(docs: &[bson::Document]) -> IdSketch {
        let mut s = IdSketcher::new(4096);
        for d in docs {
            s.add(&bson::serialize_to_vec(d).expect("bson"));
        }
        s.finish()
    }

    fn summary<'a>(
        name: &'a str,
        shape: &'a [u64],
        ids: &'a IdSketch,
        documents: u64,
        complete: bool,
    ) -> CollectionSummary<'a> {
        CollectionSummary {
            db: "app",
            name,
            shape,
            ids,
            documents: Some(documents),
            complete,
            top: &NO_TOP,
        }
    }

    fn run(s: Vec<CollectionSummary<'_>>) -> Vec<Finding> {
        let ctx = DeploymentCtx {
            databases: vec![],
            total: s.len(),
            summaries: s,
        };
        check(&ctx, &Thresholds::default(), Lang::En)
    }

    fn people(n: i32, from: i32, tag: &str) -> Vec<bson::Document> {
        (from..from + n)
            .map(|i| doc! {"_id": i, "name": format!("{tag}{i}")})
            .collect()
    }

    #[test]
    fn a_copy_is_found_exactly_and_a_numbering_by_chance_is_not() {
        let shape = shape_of(["_id", "name"]);
        let a = sketch(&people(100, 0, "p"));
        let copy = sketch(&people(100, 0, "p"));
        let other = sketch(&people(100, 0, "q"));
        let f = run(vec![
            summary("a", &shape, &a, 100, true),
            summary("b", &shape, &copy, 100, true),
        ]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence["method"], json!("exact"));
        assert_eq!(f[0].evidence["share_lower_bound"], json!(1.0));
        // The same _ids 0..99 with other documents: numbered alike, not copies.
        assert!(run(vec![
            summary("a", &shape, &a, 100, true),
            summary("c", &shape, &other, 100, true)
        ])
        .is_empty());
        // Other shapes: no finding.
        let other_shape = shape_of(["_id", "title", "year"]);
        assert!(run(vec![
            summary("a", &shape, &a, 100, true),
            summary("b", &other_shape, &copy, 100, true)
        ])
        .is_empty());
        // Under 90 % shared: 85 of 100.
        let part = sketch(&people(100, 15, "p"));
        assert!(run(vec![
            summary("a", &shape, &a, 100, true),
            summary("b", &shape, &part, 100, true)
        ])
        .is_empty());
    }

    #[test]
    fn object_ids_count_by_themselves_and_two_samples_say_nothing() {
        let shape = shape_of(["_id", "v"]);
        let docs: Vec<bson::Document> = (0..200)
            .map(|i| doc! {"_id": bson::oid::ObjectId::new(), "v": i})
            .collect();
        let edited: Vec<bson::Document> = docs
            .iter()
            .map(|d| {
                let mut d = d.clone();
                d.insert(String::from("v"), -1);
                d
            })
            .collect();
        let a = sketch(&docs);
        let b = sketch(&edited);
        let f = run(vec![
            summary("a", &shape, &a, 200, true),
            summary("b", &shape, &b, 200, true),
        ]);
        assert_eq!(f.len(), 1, "a stale copy with the same ObjectIds: {f:?}");
        // A sample of 100 of b against the whole of a.
        let sample = sketch(&edited[..100]);
        let f = run(vec![
            summary("a", &shape, &a, 200, true),
            summary("b", &shape, &sample, 200, false),
        ]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence["method"], json!("sample-against-whole"));
        assert_eq!(f[0].evidence["scope"], json!("sample"));
        // Two samples of two large collections: not measured.
        let sa = sketch(&docs[..100]);
        assert!(run(vec![
            summary("a", &shape, &sa, 200, false),
            summary("b", &shape, &sample, 200, false)
        ])
        .is_empty());
    }
}
