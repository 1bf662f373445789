//! `unbounded-array`: arrays that grow with the document's age, or are
//! already too long to stay embedded (seed 000, rule 3: "数组不应该无限制增长";
//! 001: when to reference; Atlas > 10,000; Compass ≥ 250).
//!
//! Growth is measured across documents of different ages (30 or more), or
//! inside one document whose elements carry the time they were appended
//! (`element-dates`: one user's 117 logins in eight weeks).
//!
//! Severity follows the forecast: critical when the largest document
//! passes 16 MiB within `critical-days` (a year); a warning within
//! `warning-days` (ten years); beyond, info. Ten years is the horizon an
//! engineer plans a schema for: data models are reworked, applications
//! rewritten and hardware renewed well within it, and a straight line
//! drawn from weeks or months of data says nothing reliable about the
//! decades after it. An array that reaches the limit only then still costs
//! every read and write that carries it — reported, as info. Lengths keep
//! their own severity (critical ≥ `max-length`, a warning ≥
//! `max-subdocument-length`): they are a cost paid now, not a forecast.

use serde::Serialize;

use crate::rules::context::SCOPE_COLLECTION;
use crate::rules::{
    extremes, CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::group;
use crate::growth::Growth;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::sketch::Summary;
use crate::profile::Seg;
use crate::source::extremes::Extremes;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "unbounded-array",
    title: "Array grows without bound or is too long to embed",
    explanation: (
        "An array that keeps growing makes every write move a larger document, every read fetch all of it, and the document eventually hits MongoDB's 16 MiB limit. The seeds' third rule of thumb: arrays must not grow without bound — with hundreds of children keep an array of references, with thousands or an open-ended stream (logs, comments, transactions) let each child reference its parent.",
        "不断增长的数组会让每次写入都要移动更大的文档，每次读取都要取回整个数组，文档最终会碰到 MongoDB 16 MiB 的上限。种子材料的第三条经验法则：数组不应该无限制增长——“多”的一方有数百个时用子引用数组，有数千个或无上限（日志、评论、交易）时改用父引用，让每个子文档引用其父文档。",
    ),
    source: "seeds/000 (rule 3), seeds/001 (when to reference), seeds/004; Atlas schema advisor (> 10,000), Compass (≥ 250)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// rank correlation of length with age that counts as growth
        min_correlation: 0.5,
        /// documents needed to judge growth
        min_documents: 30.0,
        /// array length that is too long whatever its growth
        max_length: 10_000.0,
        /// length of arrays of sub-documents or strings that is too long
        max_subdocument_length: 250.0,
        /// forecast (days to 16 MiB) that makes growth critical
        critical_days: 365.0,
        /// forecast (days to 16 MiB) within which growth is a warning; beyond, info
        warning_days: 3650.0,
        /// dated elements in one document, in the array's order, that show growth inside it
        min_dated_elements: crate::growth::MIN_DATED_ELEMENTS as f64,
    },
}

/// Whether a growth measurement is growth at these thresholds: enough
/// documents of different ages, or (inside one document) enough dated
/// elements; a rank correlation of at least `min-correlation`; a positive
/// pace.
pub fn grows(g: &Growth, l: &Limits) -> bool {
    let enough = match &g.within {
        Some(w) => w.elements as f64 >= l.min_dated_elements,
        None => g.n as f64 >= l.min_documents,
    };
    enough && g.correlation >= l.min_correlation && g.per_day > 0.0
}

/// The severity a growth forecast earns: critical within `critical-days`,
/// a warning within `warning-days`, else info (no forecast: never).
pub fn forecast_severity(days_to_limit: Option<f64>, l: &Limits) -> Severity {
    match days_to_limit {
        Some(d) if d <= l.critical_days => Severity::Critical,
        Some(d) if d <= l.warning_days => Severity::Warning,
        _ => Severity::Info,
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let limits = &t.unbounded_array;
    let max_len = limits.max_length;
    let max_sub = limits.max_subdocument_length;
    let mut out = Vec::new();
    for f in ctx.fields() {
        let Some(a) = f.array else { continue };
        let elem_type = ctx
            .children_of(f)
            .find(|c| c.segments.last() == Some(&Seg::Elem))
            .and_then(crate::profile::FieldProfile::main_type);
        let heavy_elems = matches!(elem_type, Some(BsonType::Object | BsonType::String));
        let growing = ctx.growth_of(&f.path).filter(|g| grows(g, limits));
        // The longest in the whole collection, where it was measured: a
        // sample almost never holds the one array that grew without bound.
        let whole = ctx
            .data
            .extremes
            .and_then(|e| e.array_max(&f.path).map(|m| (e, m)));
        let longest = whole.map_or(a.max, |(_, m)| m.max(a.max));
        let too_long = longest as f64 >= max_len;
        let long_heavy = heavy_elems && longest as f64 >= max_sub;
        if growing.is_none() && !too_long && !long_heavy {
            continue;
        }
        // Arrays of plain references are `large-reference-array`'s concern
        // unless they grow.
        if growing.is_none() && elem_type == Some(BsonType::ObjectId) {
            continue;
        }
        let by_forecast = growing.map(|g| forecast_severity(g.days_to_limit, limits));
        let severity = severity_of(by_forecast, too_long, long_heavy);
        let key = match growing {
            Some(g) if g.within.is_some() => Key::min_dated_elements,
            Some(_) => Key::min_correlation,
            None if too_long => Key::max_length,
            None => Key::max_subdocument_length,
        };
        let evidence = Unbounded {
            array_length: a,
            sampled: ctx.sampled(),
            element_type: elem_type.map(BsonType::alias),
            longest_in_collection: whole.map(|(e, m)| Longest {
                length: m,
                documents: e.documents,
                method: e.method,
            }),
            scope: (whole.is_some() && growing.is_none()).then_some(SCOPE_COLLECTION),
            growth: growing,
            threshold: Crossed::of(t, key),
            forecast_severity: growing.zip(by_forecast).map(|(g, s)| Forecast {
                days_to_limit: g.days_to_limit,
                severity: s.name(),
                critical_days: limits.critical_days,
                warning_days: limits.warning_days,
            }),
            path: &f.path,
            longest,
            too_long,
            whole: whole.map(|(e, _)| e),
            measured: ctx.measured(),
            largest_bytes: ctx.largest_bytes(),
        };
        let remedy = if growing.is_some() || too_long {
            Remedy::ParentReference {
                array: f.path.clone(),
            }
        } else {
            Remedy::Subset {
                array: f.path.clone(),
                keep: a.p95.clamp(10, 100),
            }
        };
        let path = Some(f.path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// The forecast's severity, and the length's: the worse decides.
fn severity_of(by_forecast: Option<Severity>, too_long: bool, long_heavy: bool) -> Severity {
    let by_length = if too_long {
        Some(Severity::Critical)
    } else if long_heavy {
        Some(Severity::Warning)
    } else {
        None
    };
    by_forecast.max(by_length).unwrap_or(Severity::Warning)
}

/// What `unbounded-array` measured of one array path.
#[derive(Serialize)]
struct Unbounded<'a> {
    array_length: Summary,
    sampled: u64,
    /// The elements' main type; null when none was seen.
    element_type: Option<&'static str>,
    /// The longest array of the whole collection, where it was measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    longest_in_collection: Option<Longest>,
    /// `collection` when the length judged is the whole collection's.
    #[serde(skip_serializing_if = "Option::is_none")]
    scope: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    growth: Option<&'a Growth>,
    threshold: Crossed,
    /// The severity the growth's forecast earns, and the horizons.
    #[serde(skip_serializing_if = "Option::is_none")]
    forecast_severity: Option<Forecast>,
    #[serde(skip)]
    path: &'a str,
    /// The longest length seen, sample or whole collection.
    #[serde(skip)]
    longest: u64,
    /// Whether that length is past `max-length`.
    #[serde(skip)]
    too_long: bool,
    #[serde(skip)]
    whole: Option<&'a Extremes>,
    #[serde(skip)]
    measured: Measured,
    /// The largest document's size, in bytes, the forecast starts from.
    #[serde(skip)]
    largest_bytes: u64,
}

/// The longest array of the whole collection, and how it was measured.
#[derive(Serialize)]
struct Longest {
    length: u64,
    documents: u64,
    method: &'static str,
}

/// When the largest document passes 16 MiB, and the severity that earns.
#[derive(Serialize)]
struct Forecast {
    days_to_limit: Option<f64>,
    severity: &'static str,
    critical_days: f64,
    warning_days: f64,
}

impl Evidence for Unbounded<'_> {
    fn describe(&self, lang: Lang) -> String {
        let path = self.path;
        let (longest, p95) = (group(self.longest), group(self.array_length.p95));
        if let (Some(g), Some(f)) = (self.growth, &self.forecast_severity) {
            let forecast = forecast_text(g, self.largest_bytes, f.warning_days, lang);
            return match &g.within {
                Some(w) => {
                    let (en, zh) = crate::fmt::span_days(w.span_days);
                    let clock = g.age_from.as_deref().unwrap_or("");
                    lang.pick(
                        format!("{path} grows inside its documents: one holds {} elements dated over {en} by {clock} (+{:.2} elements/day; their dates follow the array's order, rank correlation {:.2}; {} documents measured; longest {longest}); {forecast}", group(w.elements), g.per_day, g.correlation, g.n),
                        format!("{path} 在单个文档内增长：一个文档有 {} 个元素，按 {clock} 的日期跨越{zh}（每天 +{:.2} 个元素；日期与数组顺序一致，秩相关系数 {:.2}；测量了 {} 个文档；最长 {longest}）；{forecast}", group(w.elements), g.per_day, g.correlation, g.n),
                    )
                }
                None => lang.pick(
                    format!("{path} grows with document age (+{:.2} elements/day, rank correlation {:.2} over {} documents; longest {longest}); {forecast}", g.per_day, g.correlation, g.n),
                    format!("{path} 随文档年龄增长（每天 +{:.2} 个元素，{} 个文档上的秩相关系数 {:.2}；最长 {longest}）；{forecast}", g.per_day, g.n, g.correlation),
                ),
            };
        }
        let scope = match self.whole {
            Some(e) => extremes::whole(e, lang),
            None => self.measured.words(lang),
        };
        if self.too_long {
            let avg = self.array_length.avg;
            return lang.pick(
                format!("{path} holds up to {longest} elements {scope} (p95 {p95}, average {avg:.1} in the sample)"),
                format!("{path} 最多有 {longest} 个元素，{scope}（样本 p95 {p95}，平均 {avg:.1}）"),
            );
        }
        let strings = self.element_type == Some(BsonType::String.alias());
        let (what_en, what_zh) = if strings {
            ("strings", "字符串")
        } else {
            ("sub-documents", "子文档")
        };
        lang.pick(
            format!("{path} holds up to {longest} {what_en} {scope} (p95 {p95} in the sample)"),
            format!("{path} 最多包含 {longest} 个{what_zh}，{scope}（样本 p95 {p95}）"),
        )
    }
}

/// When the largest document passes 16 MiB at the measured pace, and what
/// that horizon makes of the finding: beyond `warning-days`, the cost of
/// carrying the array, not the limit, is why it is reported.
fn forecast_text(g: &Growth, largest_bytes: u64, warning_days: f64, lang: Lang) -> String {
    let beyond = |when_en: &str, when_zh: &str| {
        let (en, zh) = crate::fmt::duration_days(warning_days);
        lang.pick(
            format!("{when_en}: beyond the {en} within which growth is a warning, so the limit is no concern; the cost is every read and write carrying the whole array"),
            format!("{when_zh}：超出了作为警告的{zh}期限，16 MiB 上限不足为虑；代价在于每次读写都要带上整个数组"),
        )
    };
    match g.days_to_limit {
        None => beyond(
            "it would take centuries to reach 16 MiB at this pace",
            "按此速度需要几百年才会达到 16 MiB",
        ),
        Some(d) => {
            let (en, zh) = crate::fmt::duration_days(d);
            let size = crate::fmt::bytes(largest_bytes as f64);
            let when_en =
                format!("at this pace the largest document ({size}) passes 16 MiB in {en}");
            let when_zh = format!("按此速度，最大的文档（{size}）将在{zh}后超过 16 MiB");
            if d > warning_days {
                beyond(&when_en, &when_zh)
            } else {
                lang.pick(when_en, when_zh)
            }
        }
    }
}
