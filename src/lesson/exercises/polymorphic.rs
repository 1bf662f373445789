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
}, Exercise {
    id: "polymorphic/schema-version",
    lesson: "polymorphic",
    datasets: &["schema_evolution"],
    task: (
        "In bad_customers a new writer stored zip as a number and phone as an object, beside old documents with strings. Migrate so that every path holds one type — either every document in the new shape, or old and new shapes told apart by a schema_version field — without losing a customer, a zip code or a phone number.",
        "bad_customers 中一个新的写入方把 zip 存成了数字，把 phone 存成了对象，与使用字符串的旧文档混在一起。迁移数据，让每个路径只有一种类型——要么所有文档都是新结构，要么用 schema_version 字段区分新旧结构——客户、邮编和电话号码一个都不能丢。",
    ),
    hints: &[
        (
            "mixed-types shows zip and phone holding two types each. A reader cannot know which it will get. How does schema versioning let old and new documents live side by side?",
            "mixed-types 显示 zip 和 phone 各自保存了两种类型，读取方无法知道会拿到哪一种。模式版本化怎样让新旧文档并存？",
        ),
        (
            "Give each shape its own path and a version: the new documents get zip back as a string, their phone object becomes phones: [{kind: \"mobile\", number}] and schema_version 2; the old ones schema_version 1. Keep every number.",
            "让每种结构有自己的路径和版本号：新文档把 zip 改回字符串，phone 对象改成 phones: [{kind: \"mobile\", number}]，schema_version 设为 2；旧文档设为 schema_version 1。每个号码都要保留。",
        ),
        (
            "In mongosh: db.bad_customers.updateMany({phone: {$type: \"object\"}}, [{$set: {zip: {$toString: \"$zip\"}, phones: [{kind: \"mobile\", number: \"$phone.number\"}], schema_version: 2}}, {$unset: \"phone\"}]); db.bad_customers.updateMany({schema_version: {$exists: false}}, {$set: {schema_version: 1}})",
            "在 mongosh 中：db.bad_customers.updateMany({phone: {$type: \"object\"}}, [{$set: {zip: {$toString: \"$zip\"}, phones: [{kind: \"mobile\", number: \"$phone.number\"}], schema_version: 2}}, {$unset: \"phone\"}]); db.bad_customers.updateMany({schema_version: {$exists: false}}, {$set: {schema_version: 1}})",
        ),
    ],
    check: schema_version,
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
                "{f} is missing from {} of the {} documents: a reader cannot tell what those are",
                group(missing as u64),
                group(docs.len() as u64)
            ),
            format!(
                "{} 个文档中有 {} 个没有 {f}：读取方无法知道它们是什么",
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
            format!("{f} = {v} is given to documents of {} shapes ({{{}}}): the value does not say which shape a document has", shapes.len(), list.join("}, {")),
            format!("{f} = {v} 被赋给了 {} 种结构的文档（{{{}}}）：这个取值说明不了文档是哪种结构", shapes.len(), list.join("}, {")),
        ));
    }
    if let Some((s, values)) = values_of.iter().find(|(_, v)| v.len() > 1) {
        let fields: Vec<&str> = s.iter().map(String::as_str).collect();
        return Err(Text::new(
            format!(
                "documents of one shape ({}) carry {} values of {f}: one shape, one value",
                fields.join(", "),
                values.len()
            ),
            format!(
                "同一种结构（{}）的文档有 {} 个不同的 {f} 取值：一种结构只能有一个取值",
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

const EVOLVED: &str = "schema_evolution";
const CUSTOMERS: &str = "bad_customers";

/// The strings (numbers written as text) of a value, at any depth.
fn texts(v: &Bson, out: &mut Vec<String>) {
    match v {
        Bson::String(s) => out.push(s.clone()),
        Bson::Int32(x) => out.push(x.to_string()),
        Bson::Int64(x) => out.push(x.to_string()),
        Bson::Document(d) => d.values().for_each(|x| texts(x, out)),
        Bson::Array(a) => a.iter().for_each(|x| texts(x, out)),
        _ => {}
    }
}

/// What a seeded customer must still hold: its zip code and phone number
/// (as text).
fn kept_values(d: &Document) -> Vec<String> {
    let mut out = Vec::new();
    for f in ["zip", "phone"] {
        if let Some(v) = d.get(f) {
            let mut t = Vec::new();
            texts(v, &mut t);
            // The phone object's number, not its country code.
            out.extend(t.into_iter().filter(|s| s.len() > 3));
        }
    }
    out
}

fn schema_version(v: &View) -> Checking<'_> {
    Box::pin(async move {
        if let Some(fail) = documents_kept(v, EVOLVED, CUSTOMERS, 1).await? {
            return Ok(fail);
        }
        if let Some(fail) = rule_gone(v, EVOLVED, "mixed-types", 0) {
            return Ok(fail);
        }
        let want = seeded(EVOLVED, CUSTOMERS);
        let docs = v
            .find(EVOLVED, CUSTOMERS, doc! {}, want.len() as i64 * 2)
            .await?;
        let mut lost = 0u64;
        let mut example = None;
        for w in &want {
            let Some(d) = docs.iter().find(|d| d.get("_id") == w.get("_id")) else {
                continue;
            };
            let mut have = Vec::new();
            texts(&Bson::Document(d.clone()), &mut have);
            let missing: Vec<String> = kept_values(w)
                .into_iter()
                .filter(|x| !have.contains(x))
                .collect();
            if !missing.is_empty() {
                lost += 1;
                example.get_or_insert_with(|| missing.join(", "));
            }
        }
        if lost > 0 {
            let e = example.unwrap_or_default();
            return Ok(Verdict::fail(
                Text::new(
                    format!(
                        "{} of {} customers lost their zip code or phone number (e.g. {e})",
                        group(lost),
                        group(want.len() as u64)
                    ),
                    format!(
                        "{} 个客户中有 {} 个丢失了邮编或电话号码（例如 {e}）",
                        group(want.len() as u64),
                        group(lost)
                    ),
                ),
                1,
            ));
        }
        let shapes: BTreeSet<BTreeSet<String>> = docs.iter().map(|d| shape(d, "")).collect();
        if shapes.len() == 1 {
            return Ok(Verdict::Pass(vec![Text::new(
                format!("all {} customers are in one shape, one type per path, every zip code and phone number kept", group(docs.len() as u64)),
                format!("全部 {} 个客户都是同一种结构，每个路径一种类型，邮编和电话号码都保留了", group(docs.len() as u64)),
            )]));
        }
        let fields: BTreeSet<String> = docs
            .iter()
            .flat_map(|d| d.keys().cloned().collect::<Vec<_>>())
            .filter(|k| k != "_id")
            .collect();
        if let Some((f, kinds)) = fields
            .iter()
            .find_map(|f| separates(&docs, f).ok().filter(|k| *k >= 2).map(|k| (f, k)))
        {
            return Ok(Verdict::Pass(vec![Text::new(
                format!("{} customers in {kinds} shapes, told apart by {f}, one type per path, every zip code and phone number kept", group(docs.len() as u64)),
                format!("{} 个客户分为 {kinds} 种结构，由 {f} 区分，每个路径一种类型，邮编和电话号码都保留了", group(docs.len() as u64)),
            )]));
        }
        let evidence = match separates(&docs, "schema_version") {
            Err(why) => why,
            Ok(_) => Text::new(
                "schema_version has one value for documents of different shapes",
                "schema_version 对不同结构的文档取值相同",
            ),
        };
        Ok(Verdict::Fail {
            evidence: vec![
                Text::new(
                    format!(
                        "{CUSTOMERS} holds {} shapes and no field tells them apart",
                        shapes.len()
                    ),
                    format!("{CUSTOMERS} 有 {} 种结构，却没有字段区分它们", shapes.len()),
                ),
                evidence,
            ],
            hint: 1,
        })
    })
}
