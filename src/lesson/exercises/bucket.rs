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
}, Exercise {
    id: "bucket/sensor-collections",
    lesson: "bucket",
    datasets: &["sensor_collections"],
    task: (
        "sensor_collections keeps each of 101 sensors in a collection of its own (bad_sensor_000 … bad_sensor_100). Merge them into one collection whose documents say which sensor they belong to, indexed by sensor, without losing a reading; then drop the per-sensor collections.",
        "sensor_collections 把 101 个传感器各自存放在单独的集合中（bad_sensor_000 … bad_sensor_100）。把它们合并到一个集合里，每个文档注明属于哪个传感器，并按传感器建索引，一个读数也不能丢；然后删除按传感器划分的集合。",
    ),
    hints: &[
        (
            "Every collection costs its own files and indexes, and a question over all sensors must visit 101 of them. What turns a collection name into data?",
            "每个集合都有自己的数据文件和索引，而涉及所有传感器的问题要访问 101 个集合。怎样把集合名变成数据？",
        ),
        (
            "One collection (bad_readings, say) with a sensor field holding what the collection name held (s000 … s100), indexed by {sensor: 1, time: 1}; copy each collection's readings into it, count them (505), then drop the 101 collections.",
            "建一个集合（例如 bad_readings），用 sensor 字段保存原来集合名中的信息（s000 … s100），按 {sensor: 1, time: 1} 建索引；把每个集合的读数复制进去，数一数（505 个），然后删除这 101 个集合。",
        ),
        (
            "In mongosh: db.getCollectionNames().filter(n => n.startsWith(\"bad_sensor_\")).forEach(n => { db[n].find().forEach(r => db.bad_readings.insertOne({...r, sensor: \"s\" + n.slice(11)})); db[n].drop(); }); db.bad_readings.createIndex({sensor: 1, time: 1})",
            "在 mongosh 中：db.getCollectionNames().filter(n => n.startsWith(\"bad_sensor_\")).forEach(n => { db[n].find().forEach(r => db.bad_readings.insertOne({...r, sensor: \"s\" + n.slice(11)})); db[n].drop(); }); db.bad_readings.createIndex({sensor: 1, time: 1})",
        ),
    ],
    check: sensor_collections,
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

const SENSORS_SET: &str = "sensor_collections";
const PER_SENSOR: &str = "bad_sensor_";
const SENSOR_COUNT: u32 = 101;

/// Per reading time, the sensor (its collection's number) and value seed
/// wrote: every reading's time is distinct.
fn sensor_readings() -> BTreeMap<i64, (u32, f64)> {
    let mut out = BTreeMap::new();
    for s in 0..SENSOR_COUNT {
        for d in seeded(SENSORS_SET, &format!("{PER_SENSOR}{s:03}")) {
            if let (Ok(t), Some(x)) = (d.get_datetime("time"), d.get("value").and_then(number)) {
                out.insert(t.timestamp_millis(), (s, x));
            }
        }
    }
    out
}

fn sensor_collections(v: &View) -> Checking<'_> {
    Box::pin(async move {
        for rule in ["collection-per-tenant", "too-many-collections"] {
            if let Some(fail) = rule_gone(v, SENSORS_SET, rule, 0) {
                return Ok(fail);
            }
        }
        let want = sensor_readings();
        let total = want.len() as u64;
        // The collection holding the readings: the non-good one with most.
        let mut best: Option<(String, Vec<Document>)> = None;
        for c in v.collections(SENSORS_SET) {
            let name = &c.meta.name;
            if name.starts_with("good_") {
                continue;
            }
            let docs = v.find(SENSORS_SET, name, doc! {}, total as i64 * 2).await?;
            if best.as_ref().is_none_or(|b| docs.len() > b.1.len()) {
                best = Some((name.clone(), docs));
            }
        }
        let (coll, docs) = best.unwrap_or_default();
        let found: Vec<(&Document, u32)> = docs
            .iter()
            .filter_map(|d| {
                let t = d.get_datetime("time").ok()?.timestamp_millis();
                let (s, x) = want.get(&t)?;
                d.get("value")
                    .and_then(number)
                    .is_some_and(|y| close(*x, y))
                    .then_some((d, *s))
            })
            .collect();
        if (found.len() as u64) < total {
            return Ok(Verdict::fail(
                Text::new(
                    format!("seed wrote {} readings of {SENSOR_COUNT} sensors, {} of them are in one collection{}", group(total), group(found.len() as u64), if coll.is_empty() { String::new() } else { format!(" ({coll})") }),
                    format!("seed 写入了 {SENSOR_COUNT} 个传感器的 {} 个读数，其中只有 {} 个在同一个集合中{}", group(total), group(found.len() as u64), if coll.is_empty() { String::new() } else { format!("（{coll}）") }),
                ),
                1,
            ));
        }
        // A field whose values match the sensors one to one.
        let fields: Vec<String> = docs
            .first()
            .map(|d| {
                d.keys()
                    .filter(|k| !["_id", "time", "value"].contains(&k.as_str()))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let field = fields.into_iter().find(|f| {
            let mut of_value: BTreeMap<String, u32> = BTreeMap::new();
            let mut of_sensor: BTreeMap<u32, String> = BTreeMap::new();
            found.iter().all(|(d, s)| {
                let Some(val) = d.get(f).map(ToString::to_string) else {
                    return false;
                };
                *of_value.entry(val.clone()).or_insert(*s) == *s
                    && *of_sensor.entry(*s).or_insert(val.clone()) == val
            })
        });
        let Some(field) = field else {
            return Ok(Verdict::fail(
                Text::new(
                    format!("the {} readings are in {coll}, but no field says which of the {SENSOR_COUNT} sensors each belongs to: the collection name was the only place that said it", group(total)),
                    format!("{} 个读数都在 {coll} 中，但没有字段说明每个读数属于 {SENSOR_COUNT} 个传感器中的哪一个：原来只有集合名说明了这一点", group(total)),
                ),
                1,
            ));
        };
        if !v.indexed(SENSORS_SET, &coll, &field) {
            return Ok(Verdict::fail(
                Text::new(
                    format!("no index of {coll} starts with {field}: one sensor's readings are found by scanning all {}", group(total)),
                    format!("{coll} 没有以 {field} 开头的索引：查找一个传感器的读数要扫描全部 {} 个", group(total)),
                ),
                2,
            ));
        }
        Ok(Verdict::Pass(vec![Text::new(
            format!("all {} readings of the {SENSOR_COUNT} sensors are in {coll}, each saying its sensor in {field} (indexed); the per-sensor collections are gone", group(total)),
            format!("{SENSOR_COUNT} 个传感器的全部 {} 个读数都在 {coll} 中，每个都在 {field} 中注明传感器（有索引）；按传感器划分的集合已经删除", group(total)),
        )]))
    })
}
