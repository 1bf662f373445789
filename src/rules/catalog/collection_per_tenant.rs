//! `collection-per-tenant`: many collections of one database that hold one
//! kind of document and differ only by a key in their names (one per
//! customer, per token, per day). Each costs its own files and indexes, a
//! query across them needs one per collection, and every finding about the
//! shape is repeated once per collection; one collection with the key as
//! an indexed field holds them all (seed 002: one collection per kind;
//! Atlas: too many collections). One finding for the whole family: the
//! findings its members share are said once (see `audit`).
//!
//! A family is found by the names first: each name is cut into words and
//! numbers, one run of them replaced by `*` (`orders_*`, `t_*_events`); the
//! collections sharing such a pattern, whose varying parts differ, are then
//! kept when their shapes (sets of field paths) are within the Jaccard
//! similarity of the pattern's most common shape.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::rules::context::CollectionSummary;
use crate::rules::{Crossed, DeploymentCtx, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::rules::declare::rule;
use crate::rules::registry::Check;

rule! {
    id: "collection-per-tenant",
    title: "One collection per tenant, customer or day",
    explanation: (
        "Collections that hold one kind of document and differ only by a key in their names (one per customer, per token, per day) multiply files, indexes and file handles with every new key, need one query per collection to look across them, and repeat every schema problem once per collection. The seeds keep one kind of document in one collection and tell documents apart by a field (the polymorphic pattern); Atlas flags databases with too many collections. One collection with the key as an indexed field holds them all, and a query per tenant filters on it.",
        "只是名字里差一个键（每个客户、每个令牌、每天一个）而保存同一类文档的集合，会随着每个新键增加文件、索引和文件句柄，跨它们查询要对每个集合各查一次，每个结构问题也要在每个集合里重复一遍。种子材料主张同一类文档放在同一个集合中，用字段区分（多态模式）；Atlas 也会提示集合过多的数据库。用一个集合加一个带索引的键字段就能容纳它们全部，按租户的查询按这个字段过滤即可。",
    ),
    source: "seeds/002 (one collection per kind of document, polymorphic schemas), MongoDB Atlas (too many collections)",
    check: Check::Deployment(check),
    needs: Everything,
    limits: {
        /// collections of one shape whose names differ by a key, from which to warn
        min_collections: 10.0,
        /// Jaccard similarity of field-path sets for two shapes to be one
        min_similarity: 0.9,
    },
}

/// What the varying part of the names looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeyKind {
    /// Digits of a date (`2024_01_05`, `20240105`, `2024-01`).
    Date,
    /// Numbers, hex or codes with digits (`42`, `5f3a9c`, `c042`).
    Id,
    /// Words (`acme`, `globex`).
    Name,
}

/// A family of collections: `prefix` + key + `suffix`.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    pub db: String,
    pub prefix: String,
    pub suffix: String,
    /// `(collection, key)`, in the listing's order.
    pub members: Vec<(String, String)>,
    pub kind: KeyKind,
    /// The least Jaccard similarity of a member's shape to the family's.
    pub similarity: f64,
    /// The field the key would be held in.
    pub key_field: String,
}

impl Family {
    /// `orders_*`.
    pub fn pattern(&self) -> String {
        format!("{}*{}", self.prefix, self.suffix)
    }

    /// The one collection the family would become: the names' fixed
    /// parts.
    pub fn target(&self) -> String {
        let p = self.prefix.trim_end_matches(|c: char| !c.is_alphanumeric());
        let s = self
            .suffix
            .trim_start_matches(|c: char| !c.is_alphanumeric());
        let sep = if !p.is_empty() && !s.is_empty() {
            self.prefix
                .chars()
                .last()
                .filter(|c| !c.is_alphanumeric())
                .map_or(String::new(), String::from)
        } else {
            String::new()
        };
        let t = format!("{p}{sep}{s}");
        if t.is_empty() || self.members.iter().any(|(n, _)| *n == t) {
            format!("{t}_all")
        } else {
            t
        }
    }
}

/// A name cut into runs of letters, runs of digits, and the characters
/// between them.
fn tokens(name: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let class = |c: char| {
        if c.is_ascii_digit() {
            1
        } else if c.is_alphabetic() {
            2
        } else {
            0
        }
    };
    let mut prev: Option<u8> = None;
    for (i, c) in name.char_indices() {
        let k = class(c);
        if let Some(p) = prev {
            if p != k || k == 0 {
                out.push(&name[start..i]);
                start = i;
            }
        }
        prev = Some(k);
    }
    if start < name.len() {
        out.push(&name[start..]);
    }
    out
}

/// A name's fixed parts around its key: `(prefix, suffix)`.
type Cut = (String, String);

/// Every `(prefix, varying, suffix)` cut of `name` where the varying part
/// is a run of whole words and numbers and the fixed parts hold a letter.
fn cuts(name: &str) -> Vec<(String, String, String)> {
    let t = tokens(name);
    let word = |s: &str| s.chars().all(char::is_alphanumeric);
    let mut out = Vec::new();
    for i in 0..t.len() {
        if !word(t[i]) {
            continue;
        }
        for j in i..t.len() {
            if !word(t[j]) {
                continue;
            }
            let prefix: String = t[..i].concat();
            let suffix: String = t[j + 1..].concat();
            if !format!("{prefix}{suffix}").chars().any(char::is_alphabetic) {
                continue;
            }
            out.push((prefix, t[i..=j].concat(), suffix));
        }
    }
    out
}

fn key_kind(keys: &[&str]) -> KeyKind {
    let date = |k: &str| {
        let digits: String = k.chars().filter(char::is_ascii_digit).collect();
        k.chars().all(|c| c.is_ascii_digit() || "_-.".contains(c))
            && (6..=8).contains(&digits.len())
            && digits[..4]
                .parse::<u32>()
                .is_ok_and(|y| (1970..=2200).contains(&y))
            && digits[4..6]
                .parse::<u32>()
                .is_ok_and(|m| (1..=12).contains(&m))
    };
    if keys.iter().all(|k| date(k)) {
        KeyKind::Date
    } else if keys.iter().all(|k| k.chars().any(|c| c.is_ascii_digit())) {
        KeyKind::Id
    } else {
        KeyKind::Name
    }
}

/// Jaccard similarity of two sorted sets of path hashes.
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    both as f64 / (a.len() + b.len() - both) as f64
}

/// The families of `ctx`'s databases, largest first; a collection belongs
/// to one family at most.
pub fn families(
    ctx: &DeploymentCtx<'_>,
    min_collections: usize,
    min_similarity: f64,
) -> Vec<Family> {
    let mut by_db: BTreeMap<&str, Vec<&CollectionSummary<'_>>> = BTreeMap::new();
    for s in &ctx.summaries {
        by_db.entry(s.db).or_default().push(s);
    }
    let mut out = Vec::new();
    for (db, colls) in by_db {
        if colls.len() < min_collections {
            continue;
        }
        let mut taken = vec![false; colls.len()];
        for (cut, members) in candidates(&colls, min_collections) {
            let free: Vec<&(usize, String)> = members.iter().filter(|(i, _)| !taken[*i]).collect();
            if free.len() < min_collections {
                continue;
            }
            let limits = (min_collections, min_similarity);
            if let Some(f) = family(db, &colls, &free, cut, limits, &mut taken) {
                out.push(f);
            }
        }
    }
    out.sort_by(|a, b| b.members.len().cmp(&a.members.len()).then(a.db.cmp(&b.db)));
    out
}

/// Every cut of every name of one database's collections shared by at
/// least `min_collections` of them, with those collections and their keys:
/// the largest first; of equal ones, the longest fixed part, so that the
/// key is exactly what varies (`bad_sensor_*`, not `bad_*`).
fn candidates(
    colls: &[&CollectionSummary<'_>],
    min_collections: usize,
) -> Vec<(Cut, Vec<(usize, String)>)> {
    let mut groups: HashMap<(String, String), Vec<(usize, String)>> = HashMap::new();
    for (i, c) in colls.iter().enumerate() {
        for (p, k, s) in cuts(c.name) {
            groups.entry((p, s)).or_default().push((i, k));
        }
    }
    let mut candidates: Vec<(Cut, Vec<(usize, String)>)> = groups
        .into_iter()
        .filter(|(_, m)| m.len() >= min_collections)
        .collect();
    candidates.sort_by(|a, b| {
        b.1.len()
            .cmp(&a.1.len())
            .then((b.0 .0.len() + b.0 .1.len()).cmp(&(a.0 .0.len() + a.0 .1.len())))
            .then(a.0.cmp(&b.0))
    });
    candidates
}

/// The family the `free` collections of one cut make, if enough of them
/// share the most common exact shape closely enough (`limits`: the fewest
/// collections, the least similarity); its members are marked `taken`.
fn family(
    db: &str,
    colls: &[&CollectionSummary<'_>],
    free: &[&(usize, String)],
    (prefix, suffix): Cut,
    (min_collections, min_similarity): (usize, f64),
    taken: &mut [bool],
) -> Option<Family> {
    // The most common exact shape is the family's.
    let mut counts: HashMap<&[u64], usize> = HashMap::new();
    for (i, _) in free {
        *counts.entry(colls[*i].shape).or_default() += 1;
    }
    let (center, _) = counts
        .into_iter()
        .filter(|(s, _)| !s.is_empty())
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))?;
    let kept: Vec<(&(usize, String), f64)> = free
        .iter()
        .map(|m| (*m, jaccard(center, colls[m.0].shape)))
        .filter(|(_, j)| *j >= min_similarity)
        .collect();
    if kept.len() < min_collections {
        return None;
    }
    let keys: Vec<&str> = kept.iter().map(|(m, _)| m.1.as_str()).collect();
    let kind = key_kind(&keys);
    let similarity = kept.iter().map(|(_, j)| *j).fold(1.0, f64::min);
    for (m, _) in &kept {
        taken[m.0] = true;
    }
    let mut members: Vec<(usize, String)> = kept.iter().map(|(m, _)| (m.0, m.1.clone())).collect();
    members.sort_by_key(|m| m.0);
    Some(Family {
        db: db.to_owned(),
        prefix,
        suffix,
        members: members
            .into_iter()
            .map(|(i, k)| (colls[i].name.to_owned(), k))
            .collect(),
        kind,
        similarity,
        key_field: key_field_for(kind, center),
    })
}

/// The field to hold the key: named for what it is, and not a path the
/// documents already have.
fn key_field_for(kind: KeyKind, shape: &[u64]) -> String {
    let first = match kind {
        KeyKind::Date => "date",
        KeyKind::Id | KeyKind::Name => "tenant",
    };
    [first, "tenant_key", "collection_key"]
        .iter()
        .find(|f| {
            shape
                .binary_search(&crate::profile::ids::path_hash(f))
                .is_err()
        })
        .map_or_else(|| "docshape_key".to_owned(), |f| (*f).to_owned())
}

pub fn check(ctx: &DeploymentCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let l = &t.collection_per_tenant;
    let min = l.min_collections.max(2.0) as usize;
    families(ctx, min, l.min_similarity)
        .into_iter()
        .map(|f| {
            let target = f.target();
            let evidence = PerTenant {
                collections: f.members.len(),
                pattern: f.pattern(),
                examples: f.members.iter().take(5).map(|(c, _)| c.as_str()).collect(),
                keys: f.members.iter().take(5).map(|(_, k)| k.as_str()).collect(),
                key_kind: f.kind,
                shape_similarity: f.similarity,
                threshold: Crossed::of(t, Key::min_collections),
                db: &f.db,
                target: &target,
                key_field: &f.key_field,
            };
            let remedy = Remedy::ConsolidateFamily {
                db: f.db.clone(),
                target: target.clone(),
                key_field: f.key_field.clone(),
                members: f.members.clone(),
            };
            Finding::new(RULE, Severity::Warning, &f.db, None, &evidence, lang, remedy)
        })
        .collect()
}

/// What `collection-per-tenant` found of one family of collections.
#[derive(Serialize)]
struct PerTenant<'a> {
    collections: usize,
    /// `orders_*`.
    pattern: String,
    /// The first five members' names, and their keys.
    examples: Vec<&'a str>,
    keys: Vec<&'a str>,
    key_kind: KeyKind,
    shape_similarity: f64,
    threshold: Crossed,
    #[serde(skip)]
    db: &'a str,
    /// The one collection the family would become.
    #[serde(skip)]
    target: &'a str,
    /// The field the key would be held in.
    #[serde(skip)]
    key_field: &'a str,
}

impl Evidence for PerTenant<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (n, db, pattern) = (group(self.collections as u64), self.db, &self.pattern);
        let (target, key_field) = (self.target, self.key_field);
        let more = self.collections > self.keys.len();
        lang.pick(
            format!("{n} collections of {db} hold one shape and differ only by a key in their names ({pattern}: {}{}): one collection {target} with the key in a field {key_field} would hold them all", self.keys.join(", "), if more { ", …" } else { "" }),
            format!("{db} 中有 {n} 个集合结构相同，名字只差一个键（{pattern}：{}{}）：一个集合 {target} 加上保存该键的字段 {key_field} 就能容纳它们全部", self.keys.join("、"), if more { "……" } else { "" }),
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
    use crate::profile::ids::{path_hash, IdSketch};

    fn shape(paths: &[&str]) -> Vec<u64> {
        let mut v: Vec<u64> = paths.iter().map(|p| path_hash(p)).collect();
        v.sort_unstable();
        v
    }

    fn run(names: &[(&str, Vec<u64>)]) -> Vec<Finding> {
        let ids = IdSketch::default();
        let summaries: Vec<CollectionSummary<'_>> = names
            .iter()
            .map(|(n, s)| CollectionSummary {
                db: "saas",
                name: n,
                shape: s,
                ids: &ids,
                documents: Some(10),
                complete: true,
                top: &NO_TOP,
            })
            .collect();
        let ctx = DeploymentCtx {
            databases: vec![("saas", names.iter().map(|(n, _)| *n).collect())],
            total: names.len(),
            summaries,
        };
        check(&ctx, &Thresholds::default(), Lang::En)
    }

    #[test]
    fn one_finding_for_a_family_of_one_shape_named_by_a_key() {
        let orders = shape(&["_id", "item", "qty", "at"]);
        let mut names: Vec<(String, Vec<u64>)> = [
            "acme",
            "globex",
            "initech",
            "umbrella",
            "hooli",
            "stark",
            "wayne",
            "wonka",
            "tyrell",
            "cyberdyne",
            "soylent",
        ]
        .iter()
        .map(|k| (format!("orders_{k}"), orders.clone()))
        .collect();
        // One member with an extra optional field: still the shape.
        names[3].1 = shape(&["_id", "item", "qty", "at", "note", "x", "y", "z", "w", "v"]);
        names.push(("users".into(), shape(&["_id", "name"])));
        let refs: Vec<(&str, Vec<u64>)> =
            names.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
        let f = run(&refs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            f[0].evidence["collections"],
            json!(10),
            "the member of another shape is left out"
        );
        assert_eq!(f[0].evidence["pattern"], json!("orders_*"));
        assert_eq!(f[0].evidence["key_kind"], json!("name"));
        assert!(
            matches!(&f[0].remedy, Remedy::ConsolidateFamily { target, key_field, .. } if target == "orders" && key_field == "tenant")
        );
        // Nine are not a family.
        assert!(run(&refs[..9]).is_empty());
    }

    #[test]
    fn keys_that_are_dates_or_ids_are_told_apart_and_different_shapes_are_no_family() {
        let events = shape(&["_id", "kind", "at"]);
        // Year, month and day all vary: the key is the whole date.
        let days: Vec<(String, Vec<u64>)> = (0..12)
            .map(|i| {
                let name = format!(
                    "events_{}_{:02}_{:02}",
                    2022 + i % 3,
                    i % 12 + 1,
                    (i * 7) % 28 + 1
                );
                (name, events.clone())
            })
            .collect();
        let refs: Vec<(&str, Vec<u64>)> =
            days.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
        let f = run(&refs);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].evidence["key_kind"], json!("date"));
        assert_eq!(f[0].evidence["pattern"], json!("events_*"));
        assert!(
            matches!(&f[0].remedy, Remedy::ConsolidateFamily { key_field, .. } if key_field == "date")
        );
        // The same names, each its own shape.
        let mixed: Vec<(String, Vec<u64>)> = (1..=12)
            .map(|d| {
                (
                    format!("events_2024_01_{d:02}"),
                    shape(&["_id", &format!("f{d}"), &format!("g{d}")]),
                )
            })
            .collect();
        let refs: Vec<(&str, Vec<u64>)> =
            mixed.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
        assert!(run(&refs).is_empty());
        // Numbered sensors: the key is the number, the fixed part the rest.
        let sensors: Vec<(String, Vec<u64>)> = (0..11)
            .map(|i| (format!("bad_sensor_{i:03}"), events.clone()))
            .collect();
        let refs: Vec<(&str, Vec<u64>)> = sensors
            .iter()
            .map(|(n, s)| (n.as_str(), s.clone()))
            .collect();
        let f = run(&refs);
        assert_eq!(f[0].evidence["pattern"], json!("bad_sensor_*"));
        assert!(
            matches!(&f[0].remedy, Remedy::ConsolidateFamily { target, .. } if target == "bad_sensor")
        );
        let ids: Vec<&str> = vec!["c042", "c043"];
        assert_eq!(key_kind(&ids), KeyKind::Id);
    }

    #[test]
    fn names_are_cut_at_words_and_numbers() {
        assert_eq!(tokens("logs2024_01"), ["logs", "2024", "_", "01"]);
        let c = cuts("t_acme_events");
        assert!(c.contains(&("t_".into(), "acme".into(), "_events".into())));
        assert!(!c.iter().any(|(p, _, s)| p.is_empty() && s.is_empty()));
        let f = Family {
            db: "d".into(),
            prefix: "t_".into(),
            suffix: "_events".into(),
            members: vec![],
            kind: KeyKind::Name,
            similarity: 1.0,
            key_field: "tenant".into(),
        };
        assert_eq!(f.target(), "t_events");
    }
}
