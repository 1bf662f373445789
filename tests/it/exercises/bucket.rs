//! The exercises of lesson `bucket`.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;

use bson::{doc, Bson, Document};
use mongodb::{Database, IndexModel};

use super::{all, exercise, untouched, Fix};

type Fut<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// How a fix builds its buckets.
#[derive(Clone, Copy, PartialEq)]
enum Buckets {
    /// One per sensor per hour, with count, sum, min and max.
    Hourly,
    /// The same without count, min and max.
    Bare,
    /// Only the first half of each hour kept.
    HalfHour,
    /// One per hour for all sensors together.
    Mixed,
}

async fn bucket(db: &Database, how: Buckets, drop_events: bool) {
    let mut per: BTreeMap<(String, i64), Vec<f64>> = BTreeMap::new();
    for e in all(db, "bad_events").await {
        let sensor = e.get_str("sensor_identifier").expect("sensor").to_owned();
        let t = e
            .get_datetime("measurement_timestamp")
            .expect("time")
            .timestamp_millis();
        let x = e.get_f64("temperature_in_celsius").expect("value");
        let key = if how == Buckets::Mixed {
            String::from("all")
        } else {
            sensor
        };
        if how == Buckets::HalfHour && (t / 60_000) % 60 >= 30 {
            continue;
        }
        per.entry((key, t - t.rem_euclid(3_600_000)))
            .or_default()
            .push(x);
    }
    let docs: Vec<Document> = per
        .into_iter()
        .map(|((sensor, start), m)| {
            let mut d = doc! {"sensor": sensor, "start": bson::DateTime::from_millis(start)};
            if how != Buckets::Bare {
                d.insert("count", m.len() as i32);
                d.insert("sum", m.iter().sum::<f64>());
                d.insert("min", m.iter().copied().fold(f64::INFINITY, f64::min));
                d.insert("max", m.iter().copied().fold(f64::NEG_INFINITY, f64::max));
            }
            d.insert("m", m.into_iter().map(Bson::Double).collect::<Vec<_>>());
            d
        })
        .collect();
    let readings = db.collection::<Document>("bad_readings");
    readings.insert_many(docs).await.expect("insert");
    readings
        .create_index(
            IndexModel::builder()
                .keys(doc! {"sensor": 1, "start": 1})
                .build(),
        )
        .await
        .expect("index");
    if drop_events {
        db.collection::<Document>("bad_events")
            .drop()
            .await
            .expect("drop");
    }
}

fn hourly(db: &Database) -> Fut<'_> {
    Box::pin(bucket(db, Buckets::Hourly, true))
}

/// Wrong: buckets built, but the events kept beside them.
fn events_kept(db: &Database) -> Fut<'_> {
    Box::pin(bucket(db, Buckets::Hourly, false))
}

/// Wrong: the events dropped, nothing built.
fn events_dropped(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        db.collection::<Document>("bad_events")
            .drop()
            .await
            .expect("drop");
    })
}

fn bare(db: &Database) -> Fut<'_> {
    Box::pin(bucket(db, Buckets::Bare, true))
}

fn half_hour(db: &Database) -> Fut<'_> {
    Box::pin(bucket(db, Buckets::HalfHour, true))
}

fn mixed(db: &Database) -> Fut<'_> {
    Box::pin(bucket(db, Buckets::Mixed, true))
}

#[tokio::test(flavor = "current_thread")]
async fn readings() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &[
                "time-series-per-event still fires on",
                "time_series.bad_events",
            ],
        ),
        (
            "hourly buckets, events dropped",
            hourly,
            true,
            &["12,000 readings of 5 sensors, all there, in 200 buckets of bad_readings"],
        ),
        (
            "buckets beside the events",
            events_kept,
            false,
            &[
                "time-series-per-event still fires on",
                "time_series.bad_events",
            ],
        ),
        (
            "events dropped",
            events_dropped,
            false,
            &["no collection holds the readings in arrays: seed wrote 12,000"],
        ),
        ("no count, min, max", bare, false, &["has no count"]),
        (
            "half of each hour kept",
            half_hour,
            false,
            &["sensor-0: seed wrote 2,400 readings", "hold 1,200"],
        ),
        (
            "all sensors in one bucket",
            mixed,
            false,
            &["names no sensor"],
        ),
    ];
    exercise("bucket", "bucket/readings", &["time_series"], cases).await;
}

/// Merges the 101 per-sensor collections into bad_readings, with the
/// sensor as a field or not, dropping them or not.
async fn merge(db: &Database, with_sensor: bool, drop: bool, index: bool) {
    let readings = db.collection::<Document>("bad_readings");
    for s in 0..101 {
        let name = format!("bad_sensor_{s:03}");
        let mut docs = all(db, &name).await;
        if with_sensor {
            for d in &mut docs {
                d.insert("sensor", format!("s{s:03}"));
            }
        }
        readings.insert_many(docs).await.expect("insert");
        if drop {
            db.collection::<Document>(&name).drop().await.expect("drop");
        }
    }
    if index {
        readings
            .create_index(
                IndexModel::builder()
                    .keys(doc! {"sensor": 1, "time": 1})
                    .build(),
            )
            .await
            .expect("index");
    }
}

fn merged(db: &Database) -> Fut<'_> {
    Box::pin(merge(db, true, true, true))
}

/// Wrong: merged without saying which sensor a reading is from.
fn merged_anonymous(db: &Database) -> Fut<'_> {
    Box::pin(merge(db, false, true, true))
}

/// Wrong: merged, the per-sensor collections kept.
fn merged_kept(db: &Database) -> Fut<'_> {
    Box::pin(merge(db, true, false, true))
}

/// Wrong: the per-sensor collections dropped, nothing merged.
fn sensors_dropped(db: &Database) -> Fut<'_> {
    Box::pin(async move {
        for s in 0..101 {
            db.collection::<Document>(&format!("bad_sensor_{s:03}"))
                .drop()
                .await
                .expect("drop");
        }
    })
}

#[tokio::test(flavor = "current_thread")]
async fn sensor_collections() {
    let cases: &[(&str, Fix, bool, &[&str])] = &[
        (
            "untouched",
            untouched,
            false,
            &["collection-per-tenant still fires on"],
        ),
        (
            "merged with a sensor field",
            merged,
            true,
            &["all 505 readings of the 101 sensors are in bad_readings, each saying its sensor in sensor (indexed)"],
        ),
        (
            "merged without a sensor",
            merged_anonymous,
            false,
            &["no field says which of the 101 sensors"],
        ),
        (
            "merged, collections kept",
            merged_kept,
            false,
            &["collection-per-tenant still fires on"],
        ),
        (
            "collections dropped",
            sensors_dropped,
            false,
            &["seed wrote 505 readings of 101 sensors, 0 of them are in one collection"],
        ),
    ];
    exercise(
        "bucket",
        "bucket/sensor-collections",
        &["sensor_collections"],
        cases,
    )
    .await;
}
