//! `polymorphic-without-discriminator`: the documents fall into clearly
//! different shapes and no field says which is which (seeds 002, 003:
//! polymorphic pattern).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::percent;
use crate::i18n::Lang;
use crate::profile::raw;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "polymorphic-without-discriminator",
    title: "Several shapes and no type field",
    explanation: (
        "Keeping similar but different documents in one collection is MongoDB's polymorphic pattern and works well — as long as each document says what it is. Without a type field, every query and every reader has to guess the shape from which fields are present, and an index cannot target one kind.",
        "把相似但不完全相同的文档放在同一个集合中，正是 MongoDB 的多态模式，效果很好——前提是每个文档都说明自己是哪一种。没有类型字段时，每个查询和读取方都只能根据有哪些字段去猜测结构，索引也无法针对某一类文档。",
    ),
    source: "seeds/002 (polymorphic schemas), seeds/003 (polymorphic pattern)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// Jaccard similarity below which two shapes differ
        max_similarity: 0.5,
        /// share of the sample each shape needs
        min_share: 0.05,
    },
}

type Shape = BTreeSet<Vec<u8>>;

fn shape(doc: &[u8]) -> Shape {
    raw::elements(doc)
        .map(|it| it.filter_map(Result::ok).map(|e| e.key.to_vec()).collect())
        .unwrap_or_default()
}

fn jaccard(a: &Shape, b: &Shape) -> f64 {
    let inter = a.intersection(b).count() as f64;
    let union = a.union(b).count() as f64;
    if union == 0.0 {
        1.0
    } else {
        inter / union
    }
}

/// Groups documents into shapes: each distinct field set joins the first
/// cluster (by size) it is similar to, or starts a new one.
fn clusters(docs: &[Vec<u8>], max_sim: f64) -> (Vec<(Shape, usize)>, Vec<usize>) {
    let mut sigs: BTreeMap<Shape, Vec<usize>> = BTreeMap::new();
    for (i, d) in docs.iter().enumerate() {
        sigs.entry(shape(d)).or_default().push(i);
    }
    let mut by_size: Vec<(Shape, Vec<usize>)> = sigs.into_iter().collect();
    by_size.sort_by_key(|x| std::cmp::Reverse(x.1.len()));
    let mut out: Vec<(Shape, usize)> = Vec::new();
    let mut member = vec![0usize; docs.len()];
    for (sig, idx) in by_size {
        let at = out
            .iter()
            .position(|(rep, _)| jaccard(rep, &sig) >= max_sim);
        let c = match at {
            Some(c) => c,
            None => {
                out.push((sig, 0));
                out.len() - 1
            }
        };
        out[c].1 += idx.len();
        for i in idx {
            member[i] = c;
        }
    }
    (out, member)
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let max_sim = t.polymorphic_without_discriminator.max_similarity;
    let min_share = t.polymorphic_without_discriminator.min_share;
    let docs = &ctx.data.kept;
    if docs.len() < 20 {
        return Vec::new();
    }
    let (shapes, member) = clusters(docs, max_sim);
    let n = docs.len() as f64;
    let big: Vec<usize> = (0..shapes.len())
        .filter(|&c| shapes[c].1 as f64 / n >= min_share)
        .collect();
    if big.len() < 2 {
        return Vec::new();
    }
    // A discriminator: a top-level scalar field present almost everywhere
    // whose value tells the shape (each value ≥ 95 % one shape).
    let candidates: Vec<&crate::profile::FieldProfile> = ctx
        .fields()
        .iter()
        .filter(|f| f.depth == 0 && f.path != "_id" && f.presence >= 0.95)
        .filter(|f| f.distinct.is_some_and(|d| d.exact && d.estimate <= 50))
        .collect();
    for f in candidates {
        let mut by_value: BTreeMap<Vec<u8>, BTreeMap<usize, usize>> = BTreeMap::new();
        for (i, d) in docs.iter().enumerate() {
            if let Some(el) = crate::profile::extract::top(d, &f.name) {
                *by_value
                    .entry(el.value.to_vec())
                    .or_default()
                    .entry(member[i])
                    .or_default() += 1;
            }
        }
        let pure = by_value.values().all(|m| {
            let total: usize = m.values().sum();
            let top = m.values().copied().max().unwrap_or(0);
            top as f64 >= 0.95 * total as f64
        });
        if pure && by_value.len() >= big.len() {
            return Vec::new();
        }
    }
    // Name each shape by a field only it has.
    let mut named: Vec<(String, String)> = Vec::new();
    for &c in &big {
        let others: Shape = big
            .iter()
            .filter(|&&o| o != c)
            .flat_map(|&o| shapes[o].0.iter().cloned())
            .collect();
        if let Some(own) = shapes[c].0.iter().find(|k| !others.contains(*k)) {
            let field = String::from_utf8_lossy(own).into_owned();
            named.push((field.clone(), field));
        }
    }
    let evidence = ShapeMix {
        shapes: big
            .iter()
            .map(|&c| ShapeShare {
                fields: shapes[c]
                    .0
                    .iter()
                    .map(|k| String::from_utf8_lossy(k).into_owned())
                    .collect(),
                share: shapes[c].1 as f64 / n,
            })
            .collect(),
        sampled: docs.len(),
        threshold: Crossed::of(t, Key::max_similarity),
        measured: ctx.measured_on(docs.len() as u64),
    };
    let remedy = Remedy::Discriminator { shapes: named };
    vec![Finding::new(RULE, Severity::Info, ctx.ns(), None, &evidence, lang, remedy)]
}

/// What `polymorphic-without-discriminator` found in the kept documents.
#[derive(Serialize)]
struct ShapeMix {
    /// The shapes holding enough documents to count.
    shapes: Vec<ShapeShare>,
    /// The documents kept and grouped.
    sampled: usize,
    threshold: Crossed,
    #[serde(skip)]
    measured: Measured,
}

/// One shape: the fields of its most common field set, and its share of
/// the kept documents.
#[derive(Serialize)]
struct ShapeShare {
    fields: Vec<String>,
    share: f64,
}

impl Evidence for ShapeMix {
    fn describe(&self, lang: Lang) -> String {
        let desc: Vec<String> = self.shapes.iter().map(|s| percent(s.share)).collect();
        let (n, scope) = (self.shapes.len(), self.measured.words(lang));
        let (en, zh) = (desc.join(", "), desc.join("、"));
        lang.pick(
            format!("the documents fall into {n} shapes ({en}) {scope} and no field tells them apart"),
            format!("{scope}文档分成 {n} 种结构（{zh}），却没有字段能区分它们"),
        )
    }
}
