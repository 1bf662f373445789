//! `push-without-slice`: an update `$push`es onto an array without
//! `$slice`, so nothing bounds the array (seed 000: keep the last 1000 with
//! `$push` + `$slice`; 001). Corroborated by the path's measured growth
//! and length in the sample: critical when the array also grows so that
//! the largest document passes 16 MiB within `critical-days`, or is over
//! `critical-length` elements. Growth whose forecast is further off keeps
//! the warning the unbounded `$push` earns by itself (as `unbounded-array`
//! calibrates its own severity: a limit reached only in years is no
//! emergency).

use serde::Serialize;
use serde_json::Value;

use crate::growth::Growth;
use crate::profile::sketch::Summary;
use crate::rules::shapes;
use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::workload::Shape;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "push-without-slice",
    title: "$push without $slice on an array",
    explanation: (
        "An update that $pushes onto an array without $slice lets the array grow for as long as the application runs: every push rewrites a larger document, reads carry the whole history, and the document heads for the 16 MiB limit. The seeds keep the last 1000 log lines in a host document with $push and $slice, and move the full history to its own collection (parent reference) or buckets.",
        "不带 $slice 的 $push 更新会让数组随应用运行一直增长：每次追加都要重写更大的文档，读取时要带上全部历史，文档最终逼近 16 MiB 上限。种子材料用 $push 加 $slice 在主机文档中只保留最近 1000 条日志，完整历史放到独立集合（父引用）或分桶中。",
    ),
    source: "seeds/000 (keep the last 1000 with $push + $slice; rule 3), seeds/001",
    check: Check::Collection(check, Basis::Documents),
    needs: Shapes,
    limits: {
        /// array length in the sample that makes the finding critical
        critical_length: 1000.0,
        /// rank correlation of length with age that counts as growth
        min_correlation: 0.5,
        /// documents needed to judge growth
        min_documents: 30.0,
        /// most elements a suggested `$slice` keeps
        keep: 1000.0,
        /// forecast (days to 16 MiB) within which measured growth makes the finding critical
        critical_days: 365.0,
    },
}

/// The array paths an update shape `$push`es onto without `$slice`.
pub fn unsliced_pushes(s: &Shape) -> Vec<String> {
    let Some(push) = s
        .update
        .as_ref()
        .and_then(|u| u.get("$push"))
        .and_then(Value::as_object)
    else {
        return Vec::new();
    };
    push.iter()
        .filter(|(_, v)| v.get("$slice").is_none())
        .map(|(k, _)| k.clone())
        .collect()
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let Some(w) = &ctx.workload else {
        return Vec::new();
    };
    let l = &t.push_without_slice;
    let mut out = Vec::new();
    for &(rank, s) in &w.shapes {
        for dotted in unsliced_pushes(s) {
            let path = shapes::profile_path(ctx, &dotted);
            let field = ctx.field(&path);
            let len = field.and_then(|f| f.array);
            let growth = field.and_then(|f| ctx.growth_of(&f.path)).filter(|g| {
                let enough = match &g.within {
                    Some(w) => w.elements as f64 >= t.unbounded_array.min_dated_elements,
                    None => g.n as f64 >= l.min_documents,
                };
                enough && g.correlation >= l.min_correlation && g.per_day > 0.0
            });
            let long = len.is_some_and(|a| a.max as f64 > l.critical_length);
            let soon = growth
                .and_then(|g| g.days_to_limit)
                .is_some_and(|d| d <= l.critical_days);
            let severity = if soon || long {
                Severity::Critical
            } else {
                Severity::Warning
            };
            // The p95 length, at least 10, never more than `keep` (which a
            // user may set below 10).
            let keep = len
                .map_or(l.keep, |a| (a.p95 as f64).max(10.0).min(l.keep))
                .round() as u64;
            let threshold = if soon {
                Bound::Crossed(Crossed::of(t, Key::critical_days))
            } else if long {
                Bound::Crossed(Crossed::of(t, Key::critical_length))
            } else if growth.is_some() {
                Bound::Crossed(Crossed::of(t, Key::min_correlation))
            } else {
                Bound::Unsliced(Unsliced {
                    name: RULE,
                    value: "a $push without $slice",
                    profile: t.profile_name(),
                })
            };
            let evidence = Pushed {
                shape: shapes::evidence(rank, s, w.total_ms),
                array_length: len,
                growth,
                sampled: ctx.sampled(),
                threshold,
                s,
                total_ms: w.total_ms,
                dotted: &dotted,
                measured: ctx.measured(),
            };
            let remedy = Remedy::SlicePush {
                array: path.clone(),
                update_path: dotted.clone(),
                keep,
            };
            out.push(Finding::new(RULE, severity, ctx.ns(), Some(path), &evidence, lang, remedy));
        }
    }
    out
}

/// What `push-without-slice` found of one array an update pushes onto.
#[derive(Serialize)]
struct Pushed<'a> {
    shape: Value,
    array_length: Option<Summary>,
    growth: Option<&'a Growth>,
    sampled: u64,
    threshold: Bound<'a>,
    #[serde(skip)]
    s: &'a Shape,
    #[serde(skip)]
    total_ms: u64,
    /// The path the update pushes onto, as it writes it.
    #[serde(skip)]
    dotted: &'a str,
    #[serde(skip)]
    measured: Measured,
}

/// What the push was judged against: a measured figure crossed, or the
/// unbounded `$push` itself.
#[derive(Serialize)]
#[serde(untagged)]
enum Bound<'a> {
    Crossed(Crossed),
    Unsliced(Unsliced<'a>),
}

/// The test a `$push` without `$slice` fails by itself.
#[derive(Serialize)]
struct Unsliced<'a> {
    name: &'static str,
    value: &'static str,
    profile: &'a str,
}

impl Pushed<'_> {
    /// What was measured of the array: its length and its growth.
    fn measured(&self, lang: Lang) -> String {
        let mut measured = Vec::new();
        if let Some(a) = self.array_length {
            let (max, p95, scope) = (group(a.max), group(a.p95), self.measured.words(lang));
            measured.push(lang.pick(
                format!("up to {max} elements {scope} (p95 {p95})"),
                format!("{scope}最多 {max} 个元素（p95 {p95}）"),
            ));
        }
        if let Some(g) = self.growth {
            let when = g.days_to_limit.map(|d| {
                let (en, zh) = crate::fmt::duration_days(d);
                (format!("; 16 MiB in {en}"), format!("；{zh}后达到 16 MiB"))
            });
            let (when_en, when_zh) = when.unwrap_or_default();
            let (per_day, n, r) = (g.per_day, g.n, g.correlation);
            measured.push(match &g.within {
                Some(w) => lang.pick(
                    format!("growing inside one document (+{per_day:.2} elements/day over its {} dated elements{when_en})", w.elements),
                    format!("在单个文档内增长（{} 个带日期的元素，每天 +{per_day:.2} 个{when_zh}）", w.elements),
                ),
                None => lang.pick(
                    format!("growing with document age (+{per_day:.2} elements/day, rank correlation {r:.2} over {n} documents{when_en})"),
                    format!("随文档年龄增长（每天 +{per_day:.2} 个元素，{n} 个文档上的秩相关系数 {r:.2}{when_zh}）"),
                ),
            });
        }
        if measured.is_empty() {
            String::new()
        } else {
            lang.pick(
                format!("; the array holds {}", measured.join(", ")),
                format!("；该数组{}", measured.join("，")),
            )
        }
    }
}

impl Evidence for Pushed<'_> {
    fn describe(&self, lang: Lang) -> String {
        let (s, dotted, measured) = (self.s, self.dotted, self.measured(lang));
        let (label, cost) = (shapes::label(s), shapes::cost(s, self.total_ms, lang));
        lang.pick(
            format!("{label} {cost} and pushes onto {dotted} without $slice{measured}: nothing bounds the array"),
            format!("{label} {cost}，向 {dotted} 执行 $push 却没有 $slice{measured}：没有任何东西限制数组的长度"),
        )
    }
}
