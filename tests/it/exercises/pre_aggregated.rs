//! The exercises of lesson `pre-aggregated`.

use std::future::Future;
use std::pin::Pin;

use bson::{doc, Bson, Document};
use mongodb::Database;

use super::{all, exercise, untouched, Fix};

type Fut<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// How a fix rewrites a day.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// 24 {hour, total, minutes[60]}.
    Hours,
    /// One array of 1,440.
    Flat,
    /// Hours with their totals only, the minutes dropped.
    HourTotals,
    /// Hours, the last minute of each lost.
    Short,
}

async fn reshape(db: &Database, shape: Shape) {
    let c = db.collection::<Document>("bad_daily");
    for d in all(db, "bad_daily").await {
        let m = d.get_document("minute").expect("minute");
        let counts: Vec<i32> = (0..1440)
            .map(|k| m.get_i32(k.to_string()).expect("count"))
            .collect();
        let set = match shape {
            Shape::Flat => doc! {"minutes": counts},
            _ => {
                let hours: Vec<Bson> = counts
                    .chunks(60)
                    .enumerate()
                    .map(|(h, mins)| {
                        let mut hd = doc! {"hour": h as i32, "total": mins.iter().sum::<i32>()};
                        match shape {
                            Shape::HourTotals => {}
                            Shape::Short => {
                                hd.insert("minutes", mins[..59].to_vec());
                            }
                            _ => {
                                hd.insert("minutes", mins.to_vec());
                            }
                        }
                        Bson::Document(hd)
                    })
                    .collect();
                doc! {"hours": hours}
            }
        };
        c.update_one(
            doc! {"_id": d.get("_id").cloned()},
            doc! {"$set": set, "$unset": {"minute": 1}},
        )
        .await
        .expect("update");
    }
}

fn hours(db: &Database) -> Fut<'_> {
    Box::pin(reshape(db, Shape::Hours))
}

fn flat(db: &Database) -> Fut<'_> {
    Box::pin(reshape(db, Shape::Flat))
}

fn hour_totals(db: &Database) -> Fut<'_> {
    Box::pin(reshape(db, Shape::HourTotals))
}

fn short(db: &Database) -> Fut<'_> {
    Box::pin(reshape(db, Shape::Short))
}

/// Wrong: the minute counters deleted.
fn minutes_deleted(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_daily")
            .update_many(doc! {}, doc! {"$unset": {"minute": 1}})
            .await
            .expect("unset");
    })
}

/// Wrong: the field renamed, its keys still minute numbers.
fn renamed(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_daily")
            .update_many(doc! {}, doc! {"$rename": {"minute": "per_minute"}})
            .await
            .expect("rename");
    })
}

#[tokio::test(flavor = "current_thread")]
async fn minutes() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &["dynamic-keys still fires on", "page_stats.bad_daily.minute"],
        ),
        (
            "24 hours of 60 minutes",
            hours,
            true,
            &["21 days of bad_daily keep all 30,240 per-minute counts in arrays"],
        ),
        ("one array of 1,440", flat, true, &["30,240"]),
        (
            "minute deleted",
            minutes_deleted,
            false,
            &["keeps 0 per-minute counts in arrays, seed wrote 1,440"],
        ),
        (
            "renamed",
            renamed,
            false,
            &[
                "dynamic-keys still fires on",
                "page_stats.bad_daily.per_minute",
            ],
        ),
        (
            "hour totals only",
            hour_totals,
            false,
            &["keeps 0 per-minute counts"],
        ),
        (
            "a minute of each hour lost",
            short,
            false,
            &["keeps 1,416 per-minute counts in arrays"],
        ),
    ];
    exercise(
        "pre-aggregated",
        "pre-aggregated/minutes",
        &["page_stats"],
        cases,
    )
    .await;
}
