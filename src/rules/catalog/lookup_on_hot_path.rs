//! `lookup-on-hot-path`: a `$lookup` runs in a large share of a
//! collection's reads. The measured fan-out of the relationship it follows
//! decides the fix: one-to-one or one-to-few → embed, or copy the fields
//! read (extended reference); more → keep the reference and index it
//! (seed 003; Atlas: reduce `$lookup` operations).

use serde::Serialize;
use serde_json::Value;

use crate::rules::shapes;
use crate::rules::{CollectionCtx, Crossed, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::relate::{Cardinality, Fanout, Relationship};
use crate::source::OpCounts;
use crate::workload::Shape;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "lookup-on-hot-path",
    title: "$lookup on most reads of a collection",
    explanation: (
        "A $lookup is a join: on every read it runs a query on the other collection per document. When most reads of a collection join the same few documents, the model splits what the application reads together. The seeds: with one-to-one or one-to-few (N < 100) embed, or copy the few fields read (extended reference); with more, keep the reference and index the field the join uses.",
        "$lookup 就是关联：每次读取都要为每个文档在另一个集合上执行一次查询。当一个集合的大多数读取都关联同样少量的文档时，说明模型把应用一起读取的数据拆开了。种子材料：一对一或一对少量（N<100）时内嵌，或只复制读取的少数字段（扩展引用）；更多时保留引用，并为关联用的字段建立索引。",
    ),
    source: "seeds/003 (embed vs reference, extended reference); MongoDB Atlas (reduce $lookup operations)",
    check: Check::Collection(check, Basis::Metadata),
    needs: Shapes,
    limits: {
        /// share of the collection's reads that run the `$lookup`
        min_read_share: 0.1,
    },
}

/// One `$lookup` of a pipeline: the collection it reads and how.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Lookup {
    pub from: String,
    pub local: Option<String>,
    pub foreign: Option<String>,
    pub as_field: String,
}

/// The `$lookup` stages of a pipeline shape.
pub fn lookups(pipeline: &Value) -> Vec<Lookup> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    pipeline
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|stage| stage.get("$lookup"))
        .filter_map(|l| {
            Some(Lookup {
                from: s(l, "from")?,
                local: s(l, "localField"),
                foreign: s(l, "foreignField"),
                as_field: s(l, "as").unwrap_or_default(),
            })
        })
        .collect()
}

/// The relationship a lookup from this collection follows, and whether
/// this collection holds the reference (each document finds one target).
fn relationship<'a>(
    ctx: &'a CollectionCtx<'_>,
    other_ns: &str,
    l: &Lookup,
) -> Option<(&'a Relationship, bool)> {
    let key_of = |r: &Relationship| {
        r.to.strip_prefix(&format!("{}.", r.to_ns))
            .map(str::to_owned)
    };
    ctx.relationships.iter().find_map(|r| {
        if r.from_ns == ctx.ns()
            && r.to_ns == other_ns
            && l.local.as_deref().is_none_or(|p| p == r.from_path)
            && l.foreign
                .as_deref()
                .is_none_or(|k| Some(k.to_owned()) == key_of(r))
        {
            Some((*r, true))
        } else if r.to_ns == ctx.ns()
            && r.from_ns == other_ns
            && l.foreign.as_deref().is_none_or(|p| p == r.from_path)
            && l.local
                .as_deref()
                .is_none_or(|k| Some(k.to_owned()) == key_of(r))
        {
            Some((*r, false))
        } else {
            None
        }
    })
}

/// Runs of each lookup, over every shape that has it, with the rank of
/// the costliest shape, which stands for it in the evidence.
fn lookup_runs(shapes: &[(usize, &Shape)]) -> Vec<(Lookup, u64, usize)> {
    let mut by_lookup: Vec<(Lookup, u64, usize)> = Vec::new();
    for &(rank, s) in shapes {
        if s.op != "aggregate" {
            continue;
        }
        let Some(p) = &s.pipeline else { continue };
        for l in lookups(p) {
            match by_lookup.iter_mut().find(|(x, _, _)| *x == l) {
                Some(e) => e.1 += s.count,
                None => by_lookup.push((l, s.count, rank)),
            }
        }
    }
    by_lookup
}

/// One-to-one or one-to-few: joined documents to embed.
fn is_small(cardinality: Option<Cardinality>) -> bool {
    matches!(
        cardinality,
        Some(Cardinality::OneToOne | Cardinality::OneToFew)
    )
}

/// What to do about a lookup joining documents of this cardinality.
fn hot_lookup(lk: &Lookup, cardinality: Option<Cardinality>) -> Remedy {
    Remedy::HotLookup {
        from: lk.from.clone(),
        local: lk.local.clone(),
        foreign: lk.foreign.clone(),
        as_field: lk.as_field.clone(),
        embed: is_small(cardinality),
        one: cardinality == Some(Cardinality::OneToOne),
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let Some(w) = &ctx.workload else {
        return Vec::new();
    };
    let reads = w.profiled_reads();
    let profiled_reads = reads;
    let (reads, counted) = w.reads_of(reads, ctx.ns());
    if reads == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (lk, runs, rank) in lookup_runs(&w.shapes) {
        let share = runs as f64 / reads as f64;
        if share < t.lookup_on_hot_path.min_read_share {
            continue;
        }
        let Some(&(_, shape)) = w.shapes.iter().find(|(r, _)| *r == rank) else {
            continue;
        };
        let other_ns = format!("{}.{}", ctx.db(), lk.from);
        let rel = relationship(ctx, &other_ns, &lk);
        // Seen from this collection: one target per document when it holds
        // the reference, else the fan-out of the relationship.
        let cardinality = rel.map(|(r, holds)| {
            if holds {
                Cardinality::OneToOne
            } else {
                r.cardinality
            }
        });
        let small = is_small(cardinality);
        // Many documents joined: the fix is the index on the reference the
        // join follows; once it is there, nothing is left to do.
        if !small && rel.is_some_and(|(r, holds)| !holds && r.indexed == Some(true)) {
            continue;
        }
        let severity = if small {
            Severity::Warning
        } else {
            Severity::Info
        };
        let evidence = Joined {
            shape: shapes::evidence(rank, shape, w.total_ms),
            lookup: Stage {
                from: &lk.from,
                local: lk.local.as_deref(),
                foreign: lk.foreign.as_deref(),
                as_field: &lk.as_field,
            },
            lookups: runs,
            reads,
            read_share: (share * 1e4).round() / 1e4,
            cardinality,
            fanout: rel.and_then(|(r, holds)| (!holds).then_some(r.fanout.as_ref()).flatten()),
            relationship: rel.map(|(r, _)| format!("{} → {}", r.from, r.to)),
            threshold: Crossed::of(t, Key::min_read_share),
            server_counts: counted,
            share,
            counted_by: counted.filter(|_| reads != profiled_reads),
            coll: ctx.coll(),
            rel,
            small,
        };
        let path = Some(if lk.as_field.is_empty() {
            lk.from.clone()
        } else {
            lk.as_field.clone()
        });
        let remedy = hot_lookup(&lk, cardinality);
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `lookup-on-hot-path` found of one `$lookup` run in many reads.
#[derive(Serialize)]
struct Joined<'a> {
    shape: Value,
    lookup: Stage<'a>,
    lookups: u64,
    reads: u64,
    read_share: f64,
    cardinality: Option<Cardinality>,
    fanout: Option<&'a Fanout>,
    relationship: Option<String>,
    threshold: Crossed,
    /// What the server counted, and from where: the share is taken
    /// against it when the profiler holds only slow reads.
    #[serde(skip_serializing_if = "Option::is_none")]
    server_counts: Option<&'a OpCounts>,
    #[serde(skip)]
    share: f64,
    /// Where the reads were counted, when not in the shapes.
    #[serde(skip)]
    counted_by: Option<&'a OpCounts>,
    #[serde(skip)]
    coll: &'a str,
    /// The relationship the lookup follows, and whether this collection
    /// holds the reference.
    #[serde(skip)]
    rel: Option<(&'a Relationship, bool)>,
    /// One-to-one or one-to-few: embed rather than join.
    #[serde(skip)]
    small: bool,
}

/// The `$lookup` stage as the pipeline writes it.
#[derive(Serialize)]
struct Stage<'a> {
    from: &'a str,
    #[serde(rename = "localField")]
    local: Option<&'a str>,
    #[serde(rename = "foreignField")]
    foreign: Option<&'a str>,
    #[serde(rename = "as")]
    as_field: &'a str,
}

impl Joined<'_> {
    /// What was measured of the relationship the lookup follows.
    fn measured(&self, lang: Lang) -> String {
        let from = self.lookup.from;
        match (self.rel, self.fanout) {
            (Some((r, false)), Some(f)) => {
                let card = serde_json::to_value(r.cardinality).unwrap_or(Value::Null);
                let card = card.as_str().unwrap_or("");
                let (max, avg, parents) = (group(f.max), f.avg, group(f.parents));
                let one = crate::i18n::singular(self.coll);
                lang.pick(
                    format!("; {from} documents per {one} (max {max}, average {avg:.1}, measured over {parents} parents: {card})"),
                    format!("；每个父文档对应的 {from} 文档数：最多 {max}，平均 {avg:.1}（在 {parents} 个父文档上测得：{card}）"),
                )
            }
            (Some((r, true)), _) => lang.pick(
                format!("; each document references one {from} document ({})", r.from),
                format!("；每个文档引用一个 {from} 文档（{}）", r.from),
            ),
            _ => lang.pick(
                "; no reference between the two collections was measured, so its fan-out is unknown".to_owned(),
                "；两个集合之间没有测得引用关系，扇出未知".to_owned(),
            ),
        }
    }
}

impl Evidence for Joined<'_> {
    fn describe(&self, lang: Lang) -> String {
        let from = self.lookup.from;
        let whose = match self.counted_by {
            Some(c) => lang.pick(
                format!(" counted by the server ({})", c.source),
                format!("（服务器统计，来自 {}）", c.source),
            ),
            None => String::new(),
        };
        let fix = if self.small {
            lang.pick(
                format!("embed {from} (or copy the fields read, an extended reference) instead of joining on every read"),
                format!("把 {from} 内嵌进来（或只复制读取的字段，即扩展引用），而不是每次读取都关联"),
            )
        } else {
            let foreign = self.lookup.foreign.unwrap_or("?");
            lang.pick(
                format!("keep the reference and make sure {from}.{foreign} is indexed"),
                format!("保留引用，并确保 {from}.{foreign} 有索引"),
            )
        };
        let measured = self.measured(lang);
        let (runs, reads, coll, share) = (
            group(self.lookups),
            group(self.reads),
            self.coll,
            percent(self.share),
        );
        lang.pick(
            format!("$lookup from {from} runs in {runs} of {reads} reads{whose} of {coll} ({share}){measured}: {fix}"),
            format!("来自 {from} 的 $lookup 在 {coll} 的 {reads} 次读取{whose}中执行了 {runs} 次（{share}）{measured}：{fix}"),
        )
    }
}
