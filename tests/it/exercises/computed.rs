//! The exercises of lesson `computed`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Bson, Document};
use mongodb::{Database, IndexModel};

use super::{all, exercise, untouched, Fix};

type Step<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// Moves the reviews to `bad_reviews` (indexed), with or without the
/// summary; `avg_of` computes the average stored.
async fn move_reviews(db: &Database, summary: bool, avg_of: fn(i32, i32) -> f64) {
    let reviews = db.collection::<Document>("bad_reviews");
    let movies = db.collection::<Document>("bad_movies");
    for m in all(db, "bad_movies").await {
        let id = m.get("_id").cloned().expect("_id");
        let rs: Vec<Document> = m
            .get_array("reviews")
            .expect("reviews")
            .iter()
            .filter_map(Bson::as_document)
            .map(|r| {
                let mut r = r.clone();
                r.insert("movie_id", id.clone());
                r
            })
            .collect();
        let sum: i32 = rs.iter().map(|r| r.get_i32("stars").expect("stars")).sum();
        let count = rs.len() as i32;
        reviews.insert_many(rs).await.expect("insert");
        let mut update = doc! {"$unset": {"reviews": 1}};
        if summary {
            update.insert(
                "$set",
                doc! {"rating": {"count": count, "sum": sum, "avg": avg_of(sum, count)}},
            );
        }
        movies
            .update_one(doc! {"_id": id}, update)
            .await
            .expect("update");
    }
    reviews
        .create_index(
            IndexModel::builder()
                .keys(doc! {"movie_id": 1, "at": -1})
                .build(),
        )
        .await
        .expect("index");
}

fn average(sum: i32, count: i32) -> f64 {
    f64::from(sum) / f64::from(count)
}

/// The fix: reviews referenced, summary kept.
fn reviews_out_with_summary(db: &Database) -> Step<'_> {
    Box::pin(move_reviews(db, true, average))
}

/// Wrong: reviews moved, no summary.
fn reviews_out_no_summary(db: &Database) -> Step<'_> {
    Box::pin(move_reviews(db, false, average))
}

/// Wrong: a summary that does not agree (the sum stored as the average).
fn wrong_summary(db: &Database) -> Step<'_> {
    Box::pin(move_reviews(db, true, |sum, _| f64::from(sum)))
}

/// Wrong: the summary stored, the reviews deleted.
fn reviews_deleted(db: &Database) -> Step<'_> {
    Box::pin(async move {
        let movies = db.collection::<Document>("bad_movies");
        for m in all(db, "bad_movies").await {
            let stars: Vec<i32> = m
                .get_array("reviews")
                .expect("reviews")
                .iter()
                .filter_map(|r| r.as_document()?.get_i32("stars").ok())
                .collect();
            let (sum, count) = (stars.iter().sum::<i32>(), stars.len() as i32);
            movies
                .update_one(
                    doc! {"_id": m.get("_id").cloned().expect("_id")},
                    doc! {"$set": {"rating": {"count": count, "sum": sum, "avg": average(sum, count)}}, "$unset": {"reviews": 1}},
                )
                .await
                .expect("update");
        }
    })
}

#[tokio::test(flavor = "current_thread")]
async fn rating_summary() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "unbounded-array still fires on",
                "36 of 36 movies have no rating summary",
            ],
        ),
        (
            "reviews out, summary kept",
            reviews_out_with_summary,
            true,
            &[
                "all 2,664 reviews are in bad_reviews",
                "agrees with their reviews",
            ],
        ),
        (
            "reviews out, no summary",
            reviews_out_no_summary,
            false,
            &["36 of 36 movies have no rating summary"],
        ),
        (
            "summary that disagrees",
            wrong_summary,
            false,
            &["movies' rating summary disagrees with their reviews"],
        ),
        (
            "reviews deleted, summary kept",
            reviews_deleted,
            false,
            &[
                "no collection holds reviews that reference bad_movies",
                "2,664",
            ],
        ),
    ];
    exercise("computed", "computed/rating-summary", &["computed"], cases).await;
}
