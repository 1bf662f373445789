//! Exercises of the lesson `polymorphic`: a discriminator field that tells
//! the shapes of one collection apart.

use std::collections::{BTreeMap, BTreeSet};

use bson::{doc, Bson, Document};

use super::{documents_kept, rule_gone, seeded, Checking, Exercise, Verdict, View};
use crate::fmt::group;
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "polymorphic/type",
    lesson: "polymorphic",
    datasets: &["polymorphic"],
    task: (
        "bad_products holds books, lamps and shirts, and nothing says which is which. Give every product a field that says what it is, one value per kind, without losing a product.",
        "bad_products 里有图书、台灯和衬衫，却没有任何字段说明哪个是哪个。给每个商品加一个说明它是什么的字段，每一类一个取值，一个商品也不能丢。",
    ),
    hints: &[
        (
            "A reader of bad_products must guess a product's kind from the fields it happens to have. Which pattern makes each document say what it is?",
            "读取 bad_products 的程序只能根据碰巧存在的字段去猜商品的种类。哪种模式让每个文档自己说明它是什么？",
        ),
        (
            "The polymorphic pattern: a discriminator, type, with one value per shape — book for the products with an isbn, lamp for those with watts, shirt for those with a size. Every product gets one.",
            "多态模式：一个区分字段 type，每种结构一个取值——有 isbn 的是 book，有 watts 的是 lamp，有 size 的是 shirt。每个商品都要有。",
        ),
        (
            "In mongosh: db.bad_products.updateMany({isbn: {$exists: true}}, {$set: {type: \"book\"}}); db.bad_products.updateMany({watts: {$exists: true}}, {$set: {type: \"lamp\"}}); db.bad_products.updateMany({size: {$exists: true}}, {$set: {type: \"shirt\"}})",
            "在 mongosh 中：db.bad_products.updateMany({isbn: {$exists: true}}, {$set: {type: \"book\"}}); db.bad_products.updateMany({watts: {$exists: true}}, {$set: {type: \"lamp\"}}); db.bad_products.updateMany({size: {$exists: true}}, {$set: {type: \"shirt\"}})",
        ),
    ],
    check: discriminator,
}];

const DATASET: &str = "polymorphic";
const PRODUCTS: &str = "bad_products";

/// A document's shape without field `except`: its top-level keys.
fn shape(d: &Document, except: &str) -> BTreeSet<String> {
    d.keys()
        .filter(|k| *k != "_id" && *k != except)
        .cloned()
        .collect()
}

fn value_text(v: &Bson) -> String {
    match v {
        Bson::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether field `f` tells the shapes of `docs` apart: present in every
/// document, one value per shape and one shape per value. Why not
/// otherwise.
fn separates(docs: &[Document], f: &str) -> Result<usize, Text> {
    let missing = docs.iter().filter(|d| !d.contains_key(f)).count();
    if missing > 0 {
        return Err(Text::new(
            format!(
                "{f} is missing from {} of the {} products: a reader cannot tell what those are",
                group(missing as u64),
                group(docs.len() as u64)
            ),
            format!(
                "{} 个商品中有 {} 个没有 {f}：读取方无法知道它们是什么",
                group(docs.len() as u64),
                group(missing as u64)
            ),
        ));
    }
    let mut shapes_of: BTreeMap<String, BTreeSet<BTreeSet<String>>> = BTreeMap::new();
    let mut values_of: BTreeMap<BTreeSet<String>, BTreeSet<String>> = BTreeMap::new();
    for d in docs {
        let v = d.get(f).map(value_text).unwrap_or_default();
        let s = shape(d, f);
        shapes_of.entry(v.clone()).or_default().insert(s.clone());
        values_of.entry(s).or_default().insert(v);
    }
    if let Some((v, shapes)) = shapes_of.iter().find(|(_, s)| s.len() > 1) {
        let list: Vec<String> = shapes
            .iter()
            .map(|s| s.iter().cloned().collect::<Vec<_>>().join(", "))
            .collect();
        return Err(Text::new(
            format!("{f} = {v} is given to products of {} shapes ({{{}}}): the value does not say what a product is", shapes.len(), list.join("}, {")),
            format!("{f} = {v} 被赋给了 {} 种结构的商品（{{{}}}）：这个取值说明不了商品是什么", shapes.len(), list.join("}, {")),
        ));
    }
    if let Some((s, values)) = values_of.iter().find(|(_, v)| v.len() > 1) {
        let fields: Vec<&str> = s.iter().map(String::as_str).collect();
        return Err(Text::new(
            format!(
                "products of one shape ({}) carry {} values of {f}: one kind, one value",
                fields.join(", "),
                values.len()
            ),
            format!(
                "同一种结构（{}）的商品有 {} 个不同的 {f} 取值：一类商品只能有一个取值",
                fields.join(", "),
                values.len()
            ),
        ));
    }
    Ok(shapes_of.len())
}

fn discriminator(v: &View) -> Checking<'_> {
    Box::pin(async move {
        if let Some(fail) = documents_kept(v, DATASET, PRODUCTS, 1).await? {
            return Ok(fail);
        }
        let still = rule_gone(v, DATASET, "polymorphic-without-discriminator", 0);
        let want = seeded(DATASET, PRODUCTS).len();
        let docs = v.find(DATASET, PRODUCTS, doc! {}, want as i64 * 2).await?;
        let old: BTreeSet<String> = seeded(DATASET, PRODUCTS)
            .iter()
            .flat_map(|d| d.keys().cloned().collect::<Vec<_>>())
            .collect();
        // Fields the student added are the candidates to explain.
        let mut added: Vec<String> = docs
            .iter()
            .flat_map(|d| d.keys().cloned().collect::<Vec<_>>())
            .filter(|k| !old.contains(k))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let fields: BTreeSet<String> = docs
            .iter()
            .flat_map(|d| d.keys().cloned().collect::<Vec<_>>())
            .filter(|k| k != "_id")
            .collect();
        for f in &fields {
            if let Ok(kinds) = separates(&docs, f) {
                if kinds >= 2 && still.is_none() {
                    return Ok(Verdict::Pass(vec![Text::new(
                        format!("every one of the {} products says what it is: {f} has one value per shape ({kinds} kinds)", group(docs.len() as u64)),
                        format!("{} 个商品都说明了自己是什么：{f} 每种结构一个取值（{kinds} 类）", group(docs.len() as u64)),
                    )]));
                }
            }
        }
        added.sort_by_key(|f| !f.contains("type"));
        let evidence: Vec<Text> = added
            .iter()
            .map(|f| match separates(&docs, f) {
                Err(why) => why,
                Ok(_) => Text::new(
                    format!("{f} has the same value on every product: it does not tell a book from a lamp"),
                    format!("{f} 在每个商品上取值都相同：它区分不了图书和台灯"),
                ),
            })
            .collect();
        // The rule's finding first, then why the fields added do not help.
        let (mut all, hint) = match still {
            Some(Verdict::Fail { evidence, .. }) => (evidence, usize::from(!added.is_empty())),
            _ => (Vec::new(), 1),
        };
        all.extend(evidence);
        Ok(if all.is_empty() {
            Verdict::fail(
                Text::new(
                    format!("no field of {PRODUCTS} tells books, lamps and shirts apart"),
                    format!("{PRODUCTS} 没有任何字段能区分图书、台灯和衬衫"),
                ),
                1,
            )
        } else {
            Verdict::Fail {
                evidence: all,
                hint,
            }
        })
    })
}
