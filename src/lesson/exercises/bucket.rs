//! Exercises of the lesson `bucket`: the per-event time series regrouped
//! into one document per sensor per period.

use std::collections::BTreeMap;

use bson::{doc, Bson, Document};

use super::checks::{array_numbers, close, number};
use super::{rule_gone, seeded, Checking, Exercise, Verdict, View};
use crate::fmt::{decimal, group};
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "bucket/readings",
    lesson: "bucket",
    datasets: &["time_series"],
    task: (
        "bad_events stores each of 12,000 temperature readings as a document of its own. Regroup them into buckets — one document per sensor per hour (or another period), holding the sensor, the readings in an array and count, min and max — indexed by sensor, without losing a reading; then drop the per-event documents.",
        "bad_events 把 12,000 个温度读数每个都存成一个文档。把它们重新分桶——每个传感器每小时（或其他时段）一个文档，保存传感器、放在数组中的读数以及 count、min、max——按传感器建索引，一个读数也不能丢；然后删除逐事件的文档。",
    ),
    hints: &[
        (
            "Per event, the _id, the index entries and the long field names cost more than the reading itself. Which pattern stores many readings of one sensor in one document?",
            "逐事件存储时，_id、索引项和长字段名比读数本身还占地方。哪种模式把一个传感器的许多读数存进一个文档？",
        ),
        (
            "The bucket pattern: group bad_events by sensor_identifier and by the hour of measurement_timestamp; each bucket holds sensor, start, the readings in an array (m) and count, sum, min and max of them. Count the readings before you drop bad_events: 12,000, 2,400 per sensor.",
            "桶模式：按 sensor_identifier 和 measurement_timestamp 所在的小时对 bad_events 分组；每个桶保存 sensor、start、数组中的读数（m）以及它们的 count、sum、min、max。删除 bad_events 之前数一数读数：共 12,000 个，每个传感器 2,400 个。",
        ),
        (
            "In mongosh: db.bad_events.aggregate([{$group: {_id: {sensor: \"$sensor_identifier\", start: {$dateTrunc: {date: \"$measurement_timestamp\", unit: \"hour\"}}}, m: {$push: \"$temperature_in_celsius\"}, count: {$sum: 1}, sum: {$sum: \"$temperature_in_celsius\"}, min: {$min: \"$temperature_in_celsius\"}, max: {$max: \"$temperature_in_celsius\"}}}, {$set: {sensor: \"$_id.sensor\", start: \"$_id.start\"}}, {$unset: \"_id\"}, {$out: \"bad_readings\"}]); db.bad_readings.createIndex({sensor: 1, start: 1}); db.bad_events.drop()",
            "在 mongosh 中：db.bad_events.aggregate([{$group: {_id: {sensor: \"$sensor_identifier\", start: {$dateTrunc: {date: \"$measurement_timestamp\", unit: \"hour\"}}}, m: {$push: \"$temperature_in_celsius\"}, count: {$sum: 1}, sum: {$sum: \"$temperature_in_celsius\"}, min: {$min: \"$temperature_in_celsius\"}, max: {$max: \"$temperature_in_celsius\"}}}, {$set: {sensor: \"$_id.sensor\", start: \"$_id.start\"}}, {$unset: \"_id\"}, {$out: \"bad_readings\"}]); db.bad_readings.createIndex({sensor: 1, start: 1}); db.bad_events.drop()",
        ),
    ],
    check: readings,
}];

const DATASET: &str = "time_series";
const EVENTS: &str = "bad_events";
const SENSOR: &str = "sensor_identifier";
const VALUE: &str = "temperature_in_celsius";
/// Buckets read at most (an hour's buckets: 200).
const MAX_BUCKETS: u64 = 1_200;

/// Per sensor, the readings seed wrote: (count, sum).
fn expected() -> BTreeMap<String, (u64, f64)> {
    let mut per: BTreeMap<String, (u64, f64)> = BTreeMap::new();
    for e in seeded(DATASET, EVENTS) {
        if let (Ok(s), Some(x)) = (e.get_str(SENSOR), e.get(VALUE).and_then(number)) {
            let p = per.entry(s.to_owned()).or_default();
            p.0 += 1;
            p.1 += x;
        }
    }
    per
}

/// The sensor a bucket names: a field (top level or one down, `_id.sensor`)
/// holding one of the sensors, and its path.
fn sensor_of(d: &Document, sensors: &BTreeMap<String, (u64, f64)>) -> Option<(String, String)> {
    for (k, v) in d {
        match v {
            Bson::String(s) if sensors.contains_key(s) => return Some((k.clone(), s.clone())),
            Bson::Document(sub) => {
                for (k2, v2) in sub {
                    if let Bson::String(s) = v2 {
                        if sensors.contains_key(s) {
                            return Some((format!("{k}.{k2}"), s.clone()));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The readings of a bucket: the numbers in its arrays.
fn readings_of(d: &Document) -> Vec<f64> {
    let mut out = Vec::new();
    for (k, v) in d {
        if k != "_id" {
            array_numbers(v, &mut out);
        }
    }
    out
}

fn id_text(d: &Document) -> String {
    d.get("_id").map(ToString::to_string).unwrap_or_default()
}

/// Whether a bucket's `count`, `min` and `max` agree with its readings;
/// why not otherwise.
fn summary_fault(d: &Document, r: &[f64]) -> Option<Text> {
    let id = id_text(d);
    let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (field, want) in [("count", r.len() as f64), ("min", lo), ("max", hi)] {
        match d.get(field).and_then(number) {
            None => {
                return Some(Text::new(
                    format!("bucket {id} has no {field}: a bucket keeps count, min and max of its readings so that most questions need not read them"),
                    format!("桶 {id} 没有 {field}：桶要保存读数的 count、min、max，大多数问题就不必读取读数本身"),
                ))
            }
            Some(have) if !close(have, want) => {
                return Some(Text::new(
                    format!("bucket {id} says {field} {} but its {} readings give {}", decimal(have), group(r.len() as u64), decimal(want)),
                    format!("桶 {id} 的 {field} 是 {}，但它的 {} 个读数得出的是 {}", decimal(have), group(r.len() as u64), decimal(want)),
                ))
            }
            Some(_) => {}
        }
    }
    None
}

fn readings(v: &View) -> Checking<'_> {
    Box::pin(async move {
        if let Some(fail) = rule_gone(v, DATASET, "time-series-per-event", 0) {
            return Ok(fail);
        }
        let want = expected();
        let total: u64 = want.values().map(|w| w.0).sum();
        // The collection holding the most readings in arrays.
        let mut best: Option<(String, Vec<Document>, u64)> = None;
        for c in v.collections(DATASET) {
            let name = &c.meta.name;
            if name.starts_with("good_") {
                continue;
            }
            let n = v.count(DATASET, name, doc! {}).await?;
            let docs = v
                .find(DATASET, name, doc! {}, MAX_BUCKETS as i64 + 1)
                .await?;
            let held: u64 = docs.iter().map(|d| readings_of(d).len() as u64).sum();
            if held > 0 && best.as_ref().is_none_or(|b| held > b.2) {
                best = Some((name.clone(), docs, held));
            }
            if n > MAX_BUCKETS && held > 0 {
                return Ok(Verdict::fail(
                    Text::new(
                        format!("{name} holds {} documents for {} readings: a bucket groups one sensor's readings over a period (one per sensor per hour makes 200)", group(n), group(total)),
                        format!("{name} 用 {} 个文档保存 {} 个读数：一个桶应当把一个传感器在一段时间内的读数放在一起（每个传感器每小时一个，共 200 个）", group(n), group(total)),
                    ),
                    1,
                ));
            }
        }
        let Some((coll, buckets, _)) = best else {
            return Ok(Verdict::fail(
                Text::new(
                    format!("no collection holds the readings in arrays: seed wrote {} readings into {EVENTS}, and none is found in a bucket", group(total)),
                    format!("没有任何集合用数组保存这些读数：seed 向 {EVENTS} 写入了 {} 个读数，桶中一个也找不到", group(total)),
                ),
                1,
            ));
        };
        let mut have: BTreeMap<String, (u64, f64)> = BTreeMap::new();
        let mut sensor_path = None;
        for b in &buckets {
            let r = readings_of(b);
            let Some((path, sensor)) = sensor_of(b, &want) else {
                return Ok(Verdict::fail(
                    Text::new(
                        format!("bucket {} of {coll} names no sensor: each bucket holds the readings of one sensor, and says which", id_text(b)),
                        format!("{coll} 的桶 {} 没有写明传感器：每个桶保存一个传感器的读数，并注明是哪一个", id_text(b)),
                    ),
                    1,
                ));
            };
            if let Some(fault) = summary_fault(b, &r) {
                return Ok(Verdict::fail(fault, 1));
            }
            let h = have.entry(sensor).or_default();
            h.0 += r.len() as u64;
            h.1 += r.iter().sum::<f64>();
            sensor_path.get_or_insert(path);
        }
        let mut lost = Vec::new();
        for (s, (n, sum)) in &want {
            let (hn, hsum) = have.get(s).copied().unwrap_or_default();
            if hn != *n || !close(hsum, *sum) {
                lost.push(Text::new(
                    format!("{s}: seed wrote {} readings (sum {}), the buckets of {coll} hold {} (sum {})", group(*n), decimal(*sum), group(hn), decimal(hsum)),
                    format!("{s}：seed 写入了 {} 个读数（总和 {}），{coll} 的桶中有 {} 个（总和 {}）", group(*n), decimal(*sum), group(hn), decimal(hsum)),
                ));
            }
        }
        if !lost.is_empty() {
            return Ok(Verdict::Fail {
                evidence: lost,
                hint: 1,
            });
        }
        let path = sensor_path.unwrap_or_default();
        if !v.indexed(DATASET, &coll, &path) {
            return Ok(Verdict::fail(
                Text::new(
                    format!("no index of {coll} starts with {path}: a sensor's buckets are found by scanning them all"),
                    format!("{coll} 没有以 {path} 开头的索引：查找一个传感器的桶要扫描全部桶"),
                ),
                2,
            ));
        }
        Ok(Verdict::Pass(vec![
            Text::new(
                format!("{} readings of {} sensors, all there, in {} buckets of {coll} (was {} documents)", group(total), want.len(), group(buckets.len() as u64), group(total)),
                format!("{} 个传感器的 {} 个读数都在，存放在 {coll} 的 {} 个桶中（原来是 {} 个文档）", want.len(), group(total), group(buckets.len() as u64), group(total)),
            ),
            Text::new(
                format!("every bucket names its sensor ({path}, indexed) and keeps count, min and max in step with its readings"),
                format!("每个桶都写明了传感器（{path}，有索引），count、min、max 与读数一致"),
            ),
        ]))
    })
}
