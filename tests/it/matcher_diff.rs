//! The file scan's matcher answers as a server does: generated documents
//! (mixed types, nulls, missing fields, arrays of scalars and of objects,
//! a field that is an object in some documents and an array of objects in
//! others, arrays of arrays) and generated filters (every operator the
//! README lists, dotted paths into arrays and array positions, `$and`,
//! `$or`, `$nor`, `$not`) are run through `source::query::matcher::Matcher` and
//! through the test server's `find`; the `_id`s each matches must be the
//! same. Generation is seeded, so a failure names a filter that fails on
//! every run.

use crate::common;

use bson::{doc, Bson, Document};
use docshape::source::query::matcher::Matcher;
use futures_util::TryStreamExt;

/// A small deterministic generator (64-bit LCG, high bits).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
}

fn date(ms: i64) -> Bson {
    Bson::DateTime(bson::DateTime::from_millis(ms))
}

/// Scalars of every family the comparisons bracket by type.
fn scalars() -> Vec<Bson> {
    vec![
        Bson::Int32(0),
        Bson::Int32(1),
        Bson::Int32(2),
        Bson::Int64(2),
        Bson::Double(2.0),
        Bson::Double(2.5),
        Bson::Int32(-3),
        Bson::String("a".into()),
        Bson::String("b".into()),
        Bson::String("ab".into()),
        Bson::String("B".into()),
        Bson::String(String::new()),
        Bson::String("中文".into()),
        Bson::Null,
        Bson::Boolean(true),
        Bson::Boolean(false),
        date(0),
        date(-86_400_000),
        date(1_700_000_000_000),
    ]
}

fn value(r: &mut Rng, depth: u32) -> Bson {
    let s = scalars();
    match r.below(if depth > 1 { 6 } else { 9 }) {
        0..=5 => r.pick(&s),
        6 => {
            let n = r.below(4);
            Bson::Array((0..n).map(|_| value(r, depth + 1)).collect())
        }
        7 => {
            let mut d = Document::new();
            if r.below(3) > 0 {
                d.insert("x", value(r, depth + 1));
            }
            if r.below(2) == 0 {
                d.insert("y", r.pick(&s));
            }
            Bson::Document(d)
        }
        _ => {
            // An array of objects: the shape of `b` that dotted paths walk.
            let n = r.below(3) + 1;
            Bson::Array(
                (0..n)
                    .map(|_| {
                        let mut d = Document::new();
                        if r.below(4) > 0 {
                            d.insert("x", r.pick(&s));
                        }
                        if r.below(3) == 0 {
                            d.insert("y", r.pick(&s));
                        }
                        Bson::Document(d)
                    })
                    .collect(),
            )
        }
    }
}

fn documents(r: &mut Rng, n: i32) -> Vec<Document> {
    (0..n)
        .map(|i| {
            let mut d = doc! {"_id": i};
            for field in ["a", "b", "c"] {
                // Missing in about one document in five.
                if r.below(5) > 0 {
                    d.insert(field, value(r, 0));
                }
            }
            if r.below(3) > 0 {
                let tags: Vec<Bson> = (0..r.below(4))
                    .map(|_| Bson::String(r.pick(&["red", "green", "blue", "Red"]).to_owned()))
                    .collect();
                d.insert("tags", tags);
            }
            d
        })
        .collect()
}

const PATHS: &[&str] = &[
    "a", "b", "c", "tags", "a.x", "b.x", "b.y", "c.x", "a.0", "b.0.x", "b.1", "tags.0", "a.x.x",
];

fn operand(r: &mut Rng) -> Bson {
    let s = scalars();
    match r.below(10) {
        0 => Bson::Array(vec![r.pick(&s), r.pick(&s)]),
        1 => Bson::Document(doc! {"x": r.pick(&s)}),
        _ => r.pick(&s),
    }
}

/// One condition on a path: `{path: …}`.
fn condition(r: &mut Rng, depth: u32) -> Document {
    let path = r.pick(PATHS);
    let s = scalars();
    let cond: Bson = match r.below(17) {
        0 => operand(r),
        1 => Bson::Document(doc! {"$eq": operand(r)}),
        2 => Bson::Document(doc! {"$ne": operand(r)}),
        3 => Bson::Document(doc! {"$gt": r.pick(&s)}),
        4 => Bson::Document(doc! {"$gte": r.pick(&s)}),
        5 => Bson::Document(doc! {"$lt": r.pick(&s)}),
        6 => Bson::Document(doc! {"$lte": r.pick(&s), "$gt": r.pick(&s)}),
        7 => {
            let n = r.below(3) + 1;
            Bson::Document(doc! {"$in": (0..n).map(|_| r.pick(&s)).collect::<Vec<_>>()})
        }
        8 => {
            let n = r.below(3) + 1;
            Bson::Document(doc! {"$nin": (0..n).map(|_| r.pick(&s)).collect::<Vec<_>>()})
        }
        9 => {
            let n = r.below(2) + 1;
            Bson::Document(doc! {"$all": (0..n).map(|_| r.pick(&s)).collect::<Vec<_>>()})
        }
        10 => Bson::Document(doc! {"$size": r.below(4) as i32}),
        11 => Bson::Document(doc! {"$exists": r.below(2) == 0}),
        12 => Bson::Document(doc! {"$regex": r.pick(&["^a", "b$", "^R", "e", "中"])}),
        13 => Bson::Document(doc! {"$regex": r.pick(&["^r", "B"]), "$options": "i"}),
        14 => Bson::Document(doc! {"$not": {"$gt": r.pick(&s)}}),
        15 => Bson::Document(doc! {"$elemMatch": {"$gte": r.pick(&s), "$lt": r.pick(&s)}}),
        _ => {
            if depth > 0 {
                Bson::Document(doc! {"$elemMatch": {"x": r.pick(&s)}})
            } else {
                let inner = condition(r, depth + 1);
                Bson::Document(doc! {"$elemMatch": inner})
            }
        }
    };
    let mut d = Document::new();
    d.insert(path, cond);
    d
}

fn filter(r: &mut Rng) -> Document {
    match r.below(8) {
        0 => doc! {"$and": [condition(r, 0), condition(r, 0)]},
        1 => doc! {"$or": [condition(r, 0), condition(r, 0)]},
        2 => doc! {"$nor": [condition(r, 0)]},
        3 => {
            let mut d = condition(r, 0);
            d.extend(condition(r, 0));
            d
        }
        _ => condition(r, 0),
    }
}

#[test]
fn the_matcher_matches_what_the_server_matches() {
    let mut r = Rng(0x5EED_0032);
    let docs = documents(&mut r, 240);
    let filters: Vec<Document> = (0..800).map(|_| filter(&mut r)).collect();
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    let db = common::unique_db("matcher_diff");
    let disagreements = rt.block_on(async {
        let client = common::client().await;
        let coll = client.database(&db).collection::<Document>("docs");
        coll.drop().await.expect("drop");
        coll.insert_many(docs.clone()).await.expect("insert");
        let mut out = Vec::new();
        let mut compared = 0;
        for f in &filters {
            let matcher = match Matcher::new(f) {
                Ok(m) => m,
                Err(e) => {
                    out.push(format!("{f}: the matcher refuses it: {e}"));
                    continue;
                }
            };
            let server: Vec<i32> = match coll
                .find(f.clone())
                .projection(doc! {"_id": 1})
                .sort(doc! {"_id": 1})
                .await
            {
                Ok(cursor) => cursor
                    .try_collect::<Vec<Document>>()
                    .await
                    .expect("the server's results")
                    .iter()
                    .map(|d| d.get_i32("_id").expect("an int _id"))
                    .collect(),
                // A filter the server refuses is not one to compare.
                Err(_) => continue,
            };
            let mine: Vec<i32> = docs
                .iter()
                .filter(|d| matcher.matches(d))
                .map(|d| d.get_i32("_id").expect("an int _id"))
                .collect();
            compared += 1;
            if mine != server {
                let only_mine: Vec<_> = mine.iter().filter(|i| !server.contains(i)).collect();
                let only_server: Vec<_> = server.iter().filter(|i| !mine.contains(i)).collect();
                let show = |ids: &[&i32]| {
                    ids.iter()
                        .take(2)
                        .map(|&&i| docs[i as usize].to_string())
                        .collect::<Vec<_>>()
                        .join(" ; ")
                };
                out.push(format!(
                    "{f}\n   only the matcher: {only_mine:?} e.g. {}\n   only the server: {only_server:?} e.g. {}",
                    show(&only_mine),
                    show(&only_server)
                ));
            }
        }
        client.database(&db).drop().await.expect("drop");
        assert!(compared >= 700, "only {compared} filters compared");
        out
    });
    assert!(
        disagreements.is_empty(),
        "{} of {} filters match other documents than the server's:\n{}",
        disagreements.len(),
        filters.len(),
        disagreements.join("\n")
    );
}
