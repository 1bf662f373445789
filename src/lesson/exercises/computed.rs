//! Exercises of the lesson `computed`.

use std::collections::BTreeMap;

use bson::{Bson, Document};

use super::parts::{key, ChildMove};
use super::{seeded, Checking, Exercise, Tally, Verdict, View};
use crate::fmt::group;
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "computed/rating-summary",
    lesson: "computed",
    datasets: &["computed"],
    task: (
        "Every movie of bad_movies embeds all its reviews, and the page that shows a movie's average rating averages them on every read. Move the reviews out so that a movie stops growing, without losing one, and keep in each movie a rating summary (rating.count, rating.sum, rating.avg) that agrees with its reviews.",
        "bad_movies 的每部电影都内嵌了全部评论，显示平均评分的页面每次读取都要重新计算。把评论移出去，让电影文档不再增长，一条评论也不能丢；并在每部电影中保存与评论一致的评分汇总（rating.count、rating.sum、rating.avg）。",
    ),
    hints: &[
        (
            "Two patterns at once: the reviews grow without bound (which reference suits that?), and the average is read far more often than a review is written (which pattern stores it?).",
            "同时用到两个模式：评论会无限增长（哪种引用适合？），平均分的读取远多于评论的写入（哪种模式把它存下来？）。",
        ),
        (
            "Give every review a document in a new collection (bad_reviews, say) holding the movie's _id (movie_id), its user, stars and time; index movie_id; store rating {count, sum, avg} in each movie from its reviews; then remove the reviews array.",
            "在一个新集合（例如 bad_reviews）中为每条评论建立文档，保存电影的 _id（movie_id）、user、stars 和时间；为 movie_id 建索引；根据评论在每部电影中保存 rating {count, sum, avg}；然后删除 reviews 数组。",
        ),
        (
            "In mongosh: db.bad_movies.find().forEach(m => { db.bad_reviews.insertMany(m.reviews.map(r => ({movie_id: m._id, user: r.user, stars: r.stars, at: r.at}))); const sum = m.reviews.reduce((s, r) => s + r.stars, 0); db.bad_movies.updateOne({_id: m._id}, {$set: {rating: {count: m.reviews.length, sum: sum, avg: sum / m.reviews.length}}, $unset: {reviews: 1}}) }); db.bad_reviews.createIndex({movie_id: 1, at: -1})",
            "在 mongosh 中：db.bad_movies.find().forEach(m => { db.bad_reviews.insertMany(m.reviews.map(r => ({movie_id: m._id, user: r.user, stars: r.stars, at: r.at}))); const sum = m.reviews.reduce((s, r) => s + r.stars, 0); db.bad_movies.updateOne({_id: m._id}, {$set: {rating: {count: m.reviews.length, sum: sum, avg: sum / m.reviews.length}}, $unset: {reviews: 1}}) }); db.bad_reviews.createIndex({movie_id: 1, at: -1})",
        ),
    ],
    check: rating_summary,
}];

const REVIEWS: ChildMove = ChildMove {
    dataset: "computed",
    parent: "bad_movies",
    array: "reviews",
    rule: "unbounded-array",
    keys: &["user", "stars", "at"],
    noun: ("reviews", "评论"),
    index: true,
};

/// A number, whichever numeric type holds it.
fn number(b: Option<&Bson>) -> Option<f64> {
    match b? {
        Bson::Int32(n) => Some(f64::from(*n)),
        Bson::Int64(n) => Some(*n as f64),
        Bson::Double(n) => Some(*n),
        Bson::Decimal128(d) => d.to_string().parse().ok(),
        _ => None,
    }
}

fn rating_summary(v: &View) -> Checking<'_> {
    Box::pin(async move {
        let ds = "computed";
        let mut t = Tally::default();
        let moved = match REVIEWS.check(v).await? {
            Ok(m) => Some(m),
            Err(Verdict::Fail { evidence, hint }) => {
                for e in evidence {
                    t.fail(e, hint);
                }
                None
            }
            Err(Verdict::Pass(_)) => None,
        };
        // The summary of each movie against what seed's reviews give.
        let movies = v
            .find_fields(
                ds,
                "bad_movies",
                Document::new(),
                bson::doc! {"reviews": 0},
                100_000,
            )
            .await?;
        let now: BTreeMap<String, &Document> =
            movies.iter().map(|d| (key(d.get("_id")), d)).collect();
        let (mut missing, mut wrong) = (0u64, Vec::new());
        let seeded_movies = seeded(ds, "bad_movies");
        for s in &seeded_movies {
            let Some(movie) = now.get(&key(s.get("_id"))) else {
                continue;
            };
            let stars: Vec<f64> = s
                .get_array("reviews")
                .map(|a| {
                    a.iter()
                        .filter_map(|r| number(r.as_document()?.get("stars")))
                        .collect()
                })
                .unwrap_or_default();
            let (count, sum) = (stars.len() as f64, stars.iter().sum::<f64>());
            let avg = if count > 0.0 { sum / count } else { 0.0 };
            let Ok(rating) = movie.get_document("rating") else {
                missing += 1;
                continue;
            };
            let (c, su, a) = (
                number(rating.get("count")),
                number(rating.get("sum")),
                number(rating.get("avg")),
            );
            let ok = c == Some(count)
                && su.is_some_and(|x| (x - sum).abs() < 1e-6)
                && a.is_some_and(|x| (x - avg).abs() < 0.01);
            if !ok {
                wrong.push((
                    movie.get_str("title").unwrap_or("?").to_owned(),
                    c.unwrap_or(f64::NAN),
                    a.unwrap_or(f64::NAN),
                    count,
                    avg,
                ));
            }
        }
        let total = seeded_movies.len() as u64;
        if missing > 0 {
            t.fail(
                Text::new(
                    format!(
                        "{} of {} movies have no rating summary (rating.count, rating.sum, rating.avg): the average is still computed on every read",
                        group(missing),
                        group(total)
                    ),
                    format!(
                        "{} 部电影中有 {} 部没有评分汇总（rating.count、rating.sum、rating.avg）：平均分仍然要在每次读取时计算",
                        group(total),
                        group(missing)
                    ),
                ),
                1,
            );
        }
        if let Some((title, c, a, count, avg)) = wrong.first() {
            t.fail(
                Text::new(
                    format!(
                        "{} movies' rating summary disagrees with their reviews: \"{title}\" says {} reviews averaging {:.2}, its reviews are {} averaging {:.2}",
                        group(wrong.len() as u64),
                        c,
                        a,
                        count,
                        avg
                    ),
                    format!(
                        "有 {} 部电影的评分汇总与评论不一致：“{title}”记录了 {} 条评论、平均 {:.2}，实际是 {} 条、平均 {:.2}",
                        group(wrong.len() as u64),
                        c,
                        a,
                        count,
                        avg
                    ),
                ),
                1,
            );
        }
        let mut confirmed = moved.map(|m| REVIEWS.confirmed(&m)).unwrap_or_default();
        confirmed.push(Text::new(
            format!(
                "all {} movies keep a rating summary that agrees with their reviews",
                group(total)
            ),
            format!("全部 {} 部电影都保存了与评论一致的评分汇总", group(total)),
        ));
        Ok(t.verdict(confirmed))
    })
}
