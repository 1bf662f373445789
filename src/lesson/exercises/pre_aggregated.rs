//! Exercises of the lesson `pre-aggregated`: a day's per-minute counters
//! kept as arrays (per hour, or one of 1,440) instead of keys that are data.

use bson::{doc, Bson, Document};

use super::checks::{array_numbers, close, number};
use super::{documents_kept, ids, rule_gone, seeded, Checking, Exercise, Verdict, View};
use crate::fmt::{decimal, group};
use crate::i18n::Text;

pub const EXERCISES: &[Exercise] = &[Exercise {
    id: "pre-aggregated/minutes",
    lesson: "pre-aggregated",
    datasets: &["page_stats"],
    task: (
        "Each document of bad_daily counts a page's views of one day under 1,440 keys \"0\" … \"1439\" in minute. Restructure every day so that its per-minute counts are kept in arrays — 24 hour sub-documents of 60 minutes, as the lesson suggests — with the day's total still equal to their sum, and no count lost.",
        "bad_daily 的每个文档在 minute 下用 1,440 个键“0”……“1439”记录一个页面一天的访问数。把每一天改成用数组保存每分钟的计数——按课程的建议，24 个小时子文档、每个 60 分钟——当天的 total 仍然等于它们的和，一个计数也不能丢。",
    ),
    hints: &[
        (
            "The keys of minute are data (minute numbers), not names: dynamic-keys. How could the same counts live at fixed paths, with a scan that stays short?",
            "minute 的键是数据（分钟编号），而不是字段名：这就是 dynamic-keys。怎样让这些计数放在固定的路径上，同时让扫描保持很短？",
        ),
        (
            "Build hours: 24 sub-documents {hour, total, minutes}, minutes an array of the 60 counts of that hour in order (minute key h*60+m), total their sum; then unset minute. Keep each day's total.",
            "构建 hours：24 个子文档 {hour, total, minutes}，minutes 是该小时 60 个计数按顺序组成的数组（分钟键 h*60+m），total 是它们的和；然后删除 minute。保留每天的 total。",
        ),
        (
            "In mongosh: db.bad_daily.find().forEach(d => db.bad_daily.updateOne({_id: d._id}, {$set: {hours: Array.from({length: 24}, (_, h) => { const m = Array.from({length: 60}, (_, k) => d.minute[String(h * 60 + k)]); return {hour: h, total: m.reduce((a, b) => a + b, 0), minutes: m}; })}, $unset: {minute: 1}}))",
            "在 mongosh 中：db.bad_daily.find().forEach(d => db.bad_daily.updateOne({_id: d._id}, {$set: {hours: Array.from({length: 24}, (_, h) => { const m = Array.from({length: 60}, (_, k) => d.minute[String(h * 60 + k)]); return {hour: h, total: m.reduce((a, b) => a + b, 0), minutes: m}; })}, $unset: {minute: 1}}))",
        ),
    ],
    check: minutes,
}];

const DATASET: &str = "page_stats";
const DAILY: &str = "bad_daily";
const MINUTES: usize = 1_440;

/// The counts of a seeded day, minute 0 to 1439.
fn seeded_minutes(d: &Document) -> Vec<f64> {
    let m = d.get_document("minute").ok();
    (0..MINUTES)
        .map(|k| {
            m.and_then(|m| m.get(k.to_string()))
                .and_then(number)
                .unwrap_or(0.0)
        })
        .collect()
}

/// Sub-documents of `d` (one level of arrays down) whose `total` differs
/// from the sum of the numbers in their arrays.
fn hour_fault(d: &Document) -> Option<(String, f64, f64)> {
    for (k, v) in d {
        let Bson::Array(a) = v else { continue };
        for (i, e) in a.iter().enumerate() {
            let Bson::Document(sub) = e else { continue };
            let Some(total) = sub.get("total").and_then(number) else {
                continue;
            };
            let mut m = Vec::new();
            array_numbers(e, &mut m);
            let sum: f64 = m.iter().sum();
            if !m.is_empty() && !close(total, sum) {
                return Some((format!("{k}.{i}.total"), total, sum));
            }
        }
    }
    None
}

fn minutes(v: &View) -> Checking<'_> {
    Box::pin(async move {
        if let Some(fail) = documents_kept(v, DATASET, DAILY, 1).await? {
            return Ok(fail);
        }
        if let Some(fail) = rule_gone(v, DATASET, "dynamic-keys", 0) {
            return Ok(fail);
        }
        let days = seeded(DATASET, DAILY);
        let have = v
            .find(
                DATASET,
                DAILY,
                doc! {"_id": {"$in": ids(&days)}},
                days.len() as i64,
            )
            .await?;
        let mut values = 0u64;
        for want in &days {
            let id = want.get("_id").cloned().unwrap_or(Bson::Null);
            let Some(d) = have.iter().find(|d| d.get("_id") == Some(&id)) else {
                continue;
            };
            let (page, day) = (
                want.get_str("page").unwrap_or_default(),
                want.get_datetime("day")
                    .ok()
                    .and_then(|t| t.try_to_rfc3339_string().ok())
                    .map(|s| s.chars().take(10).collect::<String>())
                    .unwrap_or_default(),
            );
            let expect = seeded_minutes(want);
            let mut got = Vec::new();
            for (k, x) in d {
                if k != "_id" {
                    array_numbers(x, &mut got);
                }
            }
            if got.len() != MINUTES {
                return Ok(Verdict::fail(
                    Text::new(
                        format!("the day {day} of {page} keeps {} per-minute counts in arrays, seed wrote {}", group(got.len() as u64), group(MINUTES as u64)),
                        format!("{page} 在 {day} 这一天用数组保存了 {} 个每分钟计数，seed 写入的是 {} 个", group(got.len() as u64), group(MINUTES as u64)),
                    ),
                    1,
                ));
            }
            if let Some(k) = (0..MINUTES).find(|&k| !close(got[k], expect[k])) {
                return Ok(Verdict::fail(
                    Text::new(
                        format!("the day {day} of {page}: minute {k} holds {}, seed counted {} (the counts must stay in minute order)", decimal(got[k]), decimal(expect[k])),
                        format!("{page} 在 {day} 这一天：第 {k} 分钟是 {}，seed 记录的是 {}（计数必须保持分钟顺序）", decimal(got[k]), decimal(expect[k])),
                    ),
                    1,
                ));
            }
            let sum: f64 = got.iter().sum();
            match d.get("total").and_then(number) {
                Some(t) if close(t, sum) => {}
                t => {
                    let (t_en, t_zh) = t.map_or_else(
                        || ("missing".to_owned(), "缺失".to_owned()),
                        |t| (decimal(t), decimal(t)),
                    );
                    let sum = decimal(sum);
                    return Ok(Verdict::fail(
                        Text::new(
                            format!("the day {day} of {page}: total is {t_en}, its minutes add up to {sum}"),
                            format!("{page} 在 {day} 这一天：total 是 {t_zh}，各分钟之和是 {sum}"),
                        ),
                        1,
                    ));
                }
            }
            if let Some((path, t, s)) = hour_fault(d) {
                let (t, s) = (decimal(t), decimal(s));
                return Ok(Verdict::fail(
                    Text::new(
                        format!(
                            "the day {day} of {page}: {path} is {t}, its minutes add up to {s}"
                        ),
                        format!("{page} 在 {day} 这一天：{path} 是 {t}，各分钟之和是 {s}"),
                    ),
                    1,
                ));
            }
            values += got.len() as u64;
        }
        Ok(Verdict::Pass(vec![
            Text::new(
                format!("{} days of {DAILY} keep all {} per-minute counts in arrays, in minute order; no key is data any more", group(days.len() as u64), group(values)),
                format!("{DAILY} 的 {} 天用数组按分钟顺序保存了全部 {} 个每分钟计数；不再有作为数据的键", group(days.len() as u64), group(values)),
            ),
            Text::new(
                "every total (the day's, and each hour's where kept) equals the sum of its minutes",
                "每个 total（当天的，以及保存了的每小时的）都等于各分钟之和",
            ),
        ]))
    })
}
