//! `string-dates`: dates stored as strings (seed 002: use the BSON type that
//! fits the data; MongoDB's documentation: BSON dates sort, compare, index
//! and feed date operators, strings do none of that correctly across
//! formats and offsets).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::rules::date_text::{self, Named, Numeric, Order};
use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::{extract, value_of, Seg};
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "string-dates",
    title: "Dates stored as strings",
    explanation: (
        "A date kept as a string is not a date to the server: it sorts and compares as text (\"2015-8-9\" after \"2015-10-01\", offsets ignored), range queries and indexes see text, date operators ($year, $dateTrunc, TTL indexes) cannot use it, and each writer may pick another format. The seeds' advice on types and MongoDB's BSON type documentation: store points in time as BSON dates (8 bytes, UTC milliseconds) and format them for display.",
        "以字符串保存的日期对服务器来说并不是日期：它按文本排序和比较（\"2015-8-9\" 会排在 \"2015-10-01\" 之后，时区偏移被忽略），范围查询和索引看到的也是文本，日期运算符（$year、$dateTrunc、TTL 索引）无法使用它，而且每个写入方都可能采用不同的格式。种子材料关于类型的建议以及 MongoDB 的 BSON 类型文档：时间点应保存为 BSON 日期（8 字节，UTC 毫秒），显示时再格式化。",
    ),
    source: "seeds/002 (BSON types), MongoDB docs (BSON types: Date; $dateFromString)",
    check: Check::Collection(check, Basis::Documents),
    needs: Itself,
    limits: {
        /// share of documents whose string values are all dates
        min_share: 0.95,
    },
}

/// The time-zone part of an ISO-8601 date-time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Offset {
    /// None written: read as UTC.
    None,
    Z,
    /// `+02:00`
    Colon,
    /// `+0200`
    Plain,
}

/// A date format recognised in a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DateFormat {
    /// ISO-8601: `YYYY-MM-DD`, optionally `T` or a space, `hh:mm`,
    /// optionally `:ss` and a fraction of any number of digits, and an
    /// offset.
    Iso {
        date_only: bool,
        sep: u8,
        seconds: bool,
        frac: u8,
        offset: Offset,
    },
    /// RFC 2822: `[Tue, ]13 Aug 2015 00:27:59 +0000`.
    Rfc2822,
    /// A month by name: `June 8th 2017, 11:13:42 pm`,
    /// `Thu Jun 08 2017 23:13:42 GMT+0000 (UTC)` (see [`date_text`]).
    Named(Named),
    /// Day, month and year in digits: `08/06/2017 23:13`; the order is the
    /// path's, settled by its values (see [`date_text`]).
    Numeric(Numeric),
}

impl DateFormat {
    /// A readable pattern: `YYYY-MM-DD hh:mm:ss.fffffffff`, `RFC 2822`.
    pub fn label(self) -> String {
        match self {
            DateFormat::Rfc2822 => "RFC 2822".into(),
            DateFormat::Named(n) => n.label(),
            DateFormat::Numeric(n) => n.label(),
            DateFormat::Iso {
                date_only,
                sep,
                seconds,
                frac,
                offset,
            } => {
                let mut s = String::from("YYYY-MM-DD");
                if date_only {
                    return s;
                }
                s.push(char::from(sep));
                s.push_str("hh:mm");
                if seconds {
                    s.push_str(":ss");
                    if frac > 0 {
                        s.push('.');
                        s.extend(std::iter::repeat_n('f', usize::from(frac)));
                    }
                }
                s.push_str(match offset {
                    Offset::None => "",
                    Offset::Z => "Z",
                    Offset::Colon => "+hh:mm",
                    Offset::Plain => "+hhmm",
                });
                s
            }
        }
    }
}

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn valid_date(y: u32, m: u32, d: u32) -> bool {
    (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

fn valid_time(h: u32, m: u32, s: u32) -> bool {
    h <= 23 && m <= 59 && s <= 59
}

/// `+hh:mm`, `+hhmm`, `Z` or nothing at the end of an ISO date-time.
fn iso_offset(rest: &[u8]) -> Option<Offset> {
    match rest {
        [] => Some(Offset::None),
        [b'Z' | b'z'] => Some(Offset::Z),
        [b'+' | b'-', h @ .., b':', m1, m2] if h.len() == 2 => {
            let (h, m) = (digits(h)?, digits(&[*m1, *m2])?);
            (h <= 23 && m <= 59).then_some(Offset::Colon)
        }
        [b'+' | b'-', rest @ ..] if rest.len() == 4 => {
            let (h, m) = (digits(&rest[..2])?, digits(&rest[2..])?);
            (h <= 23 && m <= 59).then_some(Offset::Plain)
        }
        _ => None,
    }
}

#[allow(clippy::many_single_char_names)]
fn parse_iso(s: &[u8]) -> Option<DateFormat> {
    if s.len() < 10 || s[4] != b'-' || s[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (digits(&s[..4])?, digits(&s[5..7])?, digits(&s[8..10])?);
    if !valid_date(y, mo, d) {
        return None;
    }
    if s.len() == 10 {
        return Some(DateFormat::Iso {
            date_only: true,
            sep: b'T',
            seconds: false,
            frac: 0,
            offset: Offset::None,
        });
    }
    let sep = s[10];
    if !(sep == b'T' || sep == b' ') || s.len() < 16 || s[13] != b':' {
        return None;
    }
    let (h, mi) = (digits(&s[11..13])?, digits(&s[14..16])?);
    let mut pos = 16;
    let (mut seconds, mut sec, mut frac) = (false, 0, 0u8);
    if s.get(pos) == Some(&b':') {
        sec = digits(s.get(17..19)?)?;
        seconds = true;
        pos = 19;
        if s.get(pos) == Some(&b'.') {
            let n = s[pos + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if n == 0 || n > 9 {
                return None;
            }
            frac = n as u8;
            pos += 1 + n;
        }
    }
    if !valid_time(h, mi, sec) {
        return None;
    }
    Some(DateFormat::Iso {
        date_only: false,
        sep,
        seconds,
        frac,
        offset: iso_offset(&s[pos..])?,
    })
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const ZONES: [&str; 10] = [
    "UT", "GMT", "EST", "EDT", "CST", "CDT", "MST", "MDT", "PST", "PDT",
];

#[allow(clippy::many_single_char_names)]
fn parse_rfc2822(s: &str) -> Option<DateFormat> {
    let mut t: Vec<&str> = s.split_whitespace().collect();
    if let Some(day) = t.first().and_then(|w| w.strip_suffix(',')) {
        if !WEEKDAYS.contains(&day) {
            return None;
        }
        t.remove(0);
    }
    let [day, month, year, time, zone] = t.as_slice() else {
        return None;
    };
    let d = digits(day.as_bytes()).filter(|_| day.len() <= 2)?;
    let m = MONTHS.iter().position(|x| x == month)? as u32 + 1;
    let y = digits(year.as_bytes()).filter(|_| year.len() == 4)?;
    if !valid_date(y, m, d) {
        return None;
    }
    let parts: Vec<&str> = time.split(':').collect();
    if !(2..=3).contains(&parts.len()) || parts.iter().any(|p| p.len() != 2) {
        return None;
    }
    let h = digits(parts[0].as_bytes())?;
    let mi = digits(parts[1].as_bytes())?;
    let sec = match parts.get(2) {
        Some(p) => digits(p.as_bytes())?,
        None => 0,
    };
    if !valid_time(h, mi, sec) {
        return None;
    }
    let zone_ok = ZONES.contains(zone)
        || matches!(zone.as_bytes(), [b'+' | b'-', rest @ ..] if rest.len() == 4 && digits(rest).is_some());
    zone_ok.then_some(DateFormat::Rfc2822)
}

/// The date format a string is written in, when it is a valid date. A
/// date in digits carries the order this one value settles.
pub fn date_format(s: &str) -> Option<DateFormat> {
    let s = s.trim();
    // Every family needs a digit, and no date is written in more.
    if s.len() > 80 || !s.bytes().any(|b| b.is_ascii_digit()) {
        return None;
    }
    parse_iso(s.as_bytes())
        .or_else(|| parse_rfc2822(s))
        .or_else(|| date_text::parse_named(s).map(|(f, _)| DateFormat::Named(f)))
        .or_else(|| date_text::parse_numeric(s).map(|(f, _)| DateFormat::Numeric(f)))
}

/// The formats of a path with the order of its dates in digits settled
/// over all its values: one entry per layout (separator, clock, zone), in
/// the order the values together say. The order is the separator's: a
/// day above 12 in any value written with `-` settles every value written
/// with `-`, with or without a time (one writer's habit), while values
/// written with another separator are another writer's and settle apart.
fn settle_numeric(formats: BTreeMap<DateFormat, u64>) -> BTreeMap<DateFormat, u64> {
    let mut out = BTreeMap::new();
    // Year first (`2017/06/08`) is a layout of its own, whatever its separator.
    let mut numeric: BTreeMap<(bool, u8, date_text::Clock, date_text::Zone), u64> = BTreeMap::new();
    let mut by_sep: BTreeMap<(bool, u8), Vec<Order>> = BTreeMap::new();
    for (f, n) in formats {
        match f {
            DateFormat::Numeric(x) => {
                let year = x.order == Order::YearFirst;
                *numeric.entry((year, x.sep, x.clock, x.zone)).or_default() += n;
                by_sep.entry((year, x.sep)).or_default().push(x.order);
            }
            other => *out.entry(other).or_insert(0) += n,
        }
    }
    for ((year, sep, clock, zone), n) in numeric {
        let orders = by_sep.get(&(year, sep)).cloned().unwrap_or_default();
        let order = date_text::settle(orders);
        let f = DateFormat::Numeric(Numeric {
            order,
            sep,
            clock,
            zone,
        });
        *out.entry(f).or_insert(0) += n;
    }
    out
}

/// What a path's values show: documents holding a value, those whose
/// values are all date strings, the formats met, and examples.
#[derive(Default)]
struct Tally {
    documents: u64,
    dates: u64,
    formats: BTreeMap<DateFormat, u64>,
    example: Option<String>,
    other: Option<String>,
}

/// Stops once more than `give_up` documents hold a value that is not a
/// date (the share can no longer reach the threshold).
fn tally(docs: &[Vec<u8>], segs: &[Seg], give_up: u64) -> Tally {
    let mut t = Tally::default();
    for d in docs {
        if t.documents - t.dates > give_up {
            break;
        }
        let vals = extract::values(d, segs);
        let vals: Vec<_> = vals
            .iter()
            .filter(|e| !matches!(e.ty, BsonType::Null | BsonType::Undefined))
            .collect();
        if vals.is_empty() {
            continue;
        }
        t.documents += 1;
        let mut all = true;
        let mut seen = Vec::new();
        for e in vals {
            let text = match value_of(e) {
                Some(bson::Bson::String(s)) if e.ty == BsonType::String => s,
                _ => {
                    all = false;
                    break;
                }
            };
            match date_format(&text) {
                Some(f) => {
                    seen.push(f);
                    if t.example.is_none() {
                        t.example = Some(text);
                    }
                }
                None => {
                    if t.other.is_none() {
                        t.other = Some(text);
                    }
                    all = false;
                    break;
                }
            }
        }
        if all {
            t.dates += 1;
            for f in seen {
                *t.formats.entry(f).or_insert(0) += 1;
            }
        }
    }
    t
}

/// The strings of a path, as dates: how many strings there are, how many
/// of them are dates, their formats (the order of dates in digits settled
/// over them all), most frequent first, and an example date.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strings {
    pub strings: u64,
    pub dates: u64,
    pub formats: Vec<(DateFormat, u64)>,
    pub example: String,
}

/// [`Strings`] of the path `segs` in `docs`.
pub fn strings(docs: &[Vec<u8>], segs: &[Seg]) -> Strings {
    let mut out = Strings::default();
    let mut formats = BTreeMap::new();
    for d in docs {
        for e in extract::values(d, segs) {
            if e.ty != BsonType::String {
                continue;
            }
            let Some(bson::Bson::String(text)) = value_of(&e) else {
                continue;
            };
            out.strings += 1;
            if let Some(f) = date_format(&text) {
                out.dates += 1;
                *formats.entry(f).or_insert(0) += 1;
                if out.example.is_empty() {
                    out.example = text;
                }
            }
        }
    }
    out.formats = settle_numeric(formats).into_iter().collect();
    out.formats.sort_by_key(|x| std::cmp::Reverse(x.1));
    out
}

/// What `string-dates` counted in one field's values.
#[derive(Serialize)]
struct TextDates<'a> {
    /// Documents of the kept sample that hold the field.
    documents: u64,
    date_strings: u64,
    share: f64,
    share_interval: [f64; 2],
    formats: Counts<'a>,
    example: &'a str,
    not_a_date: Option<&'a str>,
    sampled: u64,
    kept: usize,
    threshold: Crossed,
    #[serde(skip)]
    path: &'a str,
    #[serde(skip)]
    measured: Measured,
}

/// Each date format's count, as an object by its label.
struct Counts<'a>(&'a [(DateFormat, u64)]);

impl Serialize for Counts<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(f, n)| (f.label(), n)))
    }
}

impl Evidence for TextDates<'_> {
    fn describe(&self, lang: Lang) -> String {
        let labels: Vec<String> = self.formats.0.iter().map(|(f, _)| f.label()).collect();
        let labels = labels.join(lang.pick(", ", "、"));
        let (path, example) = (self.path, self.example);
        let (dates, docs, share) = (group(self.date_strings), group(self.documents), percent(self.share));
        let scope = self.measured.kept_words(self.kept as u64, lang);
        lang.pick(
            format!("{path} holds dates as strings ({labels}, e.g. \"{example}\") in {dates} of the {docs} documents that hold it ({share}; {scope})"),
            format!("{path} 把日期存成了字符串（{labels}，例如 \"{example}\"）：持有该字段的 {docs} 个文档中有 {dates} 个（{share}；{scope}）"),
        )
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let min_share = t.string_dates.min_share;
    let mut out = Vec::new();
    for f in ctx.fields() {
        // `_id` cannot be changed in place; arrays are judged by elements.
        if f.path == "_id" || f.type_count(BsonType::String) == 0 {
            continue;
        }
        let holding = ctx.data.kept.len() as f64;
        // (A hair over, so that 0.2 × 10 is 2, not 1.999….)
        let give_up = ((1.0 - min_share) * holding + 1e-9).floor().max(0.0) as u64;
        let tl = tally(ctx.data.kept, &f.segments, give_up);
        if tl.dates == 0 || tl.documents == 0 {
            continue;
        }
        let share = tl.dates as f64 / tl.documents as f64;
        if share < min_share {
            continue;
        }
        let mut formats: Vec<(DateFormat, u64)> = settle_numeric(tl.formats).into_iter().collect();
        formats.sort_by_key(|x| std::cmp::Reverse(x.1));
        let (lo, hi) = crate::profile::sketch::wilson(tl.dates, tl.documents);
        let evidence = TextDates {
            documents: tl.documents,
            date_strings: tl.dates,
            share,
            share_interval: [lo, hi],
            formats: Counts(&formats),
            example: tl.example.as_deref().unwrap_or_default(),
            not_a_date: tl.other.as_deref(),
            sampled: ctx.sampled(),
            kept: ctx.data.kept.len(),
            threshold: Crossed::of(t, Key::min_share),
            path: &f.path,
            measured: ctx.measured(),
        };
        let remedy = Remedy::StringDates {
            path: f.path.clone(),
            formats: formats.clone(),
            example: evidence.example.to_owned(),
            reaudit: crate::rules::Reaudit::of(t),
        };
        let path = Some(f.path.clone());
        out.push(Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::rules::testing;
    use bson::doc;

    #[test]
    fn formats_recognised_and_refused() {
        let iso = |sep, seconds, frac, offset| DateFormat::Iso {
            date_only: false,
            sep,
            seconds,
            frac,
            offset,
        };
        for (s, want) in [
            (
                "2015-08-13 00:27:59.177000000",
                Some(iso(b' ', true, 9, Offset::None)),
            ),
            ("2015-08-13T00:27:59Z", Some(iso(b'T', true, 0, Offset::Z))),
            (
                "2015-08-13T00:27:59.5+02:00",
                Some(iso(b'T', true, 1, Offset::Colon)),
            ),
            (
                "2024-02-29T23:59-0530",
                Some(iso(b'T', false, 0, Offset::Plain)),
            ),
            (
                "2015-08-13",
                Some(DateFormat::Iso {
                    date_only: true,
                    sep: b'T',
                    seconds: false,
                    frac: 0,
                    offset: Offset::None,
                }),
            ),
            ("Tue, 13 Aug 2015 00:27:59 +0000", Some(DateFormat::Rfc2822)),
            ("1 Feb 2020 10:00 GMT", Some(DateFormat::Rfc2822)),
            // Not dates, or impossible ones.
            ("2015-13-01", None),
            ("2023-02-29", None),
            ("2015-08-13T24:00:00Z", None),
            ("2015-08-13T00:27:59+2", None),
            ("2015-08-13x", None),
            ("20150813", None),
            ("Tue, 31 Apr 2015 00:27:59 +0000", None),
            ("Foo, 13 Aug 2015 00:27:59 +0000", None),
            (
                "13 August 2015 00:27:59 +0000",
                date_text::parse_named("13 August 2015 00:27:59 +0000")
                    .map(|(f, _)| DateFormat::Named(f)),
            ),
            ("hello", None),
            ("2015", None),
            ("", None),
        ] {
            assert_eq!(date_format(s), want, "{s}");
        }
    }

    /// The order of day and month of dates in digits is the separator's,
    /// over every value of the path: a day above 12 in one value written
    /// with `-` settles the others written with `-`, with a time or
    /// without; values written with `/` settle apart; ISO dates are no
    /// dates in digits at all.
    #[test]
    fn a_day_above_12_settles_every_date_written_with_its_separator() {
        let orders = |values: &[&str]| -> Vec<(char, Order, u64)> {
            let docs: Vec<Vec<u8>> = values
                .iter()
                .map(|v| bson::serialize_to_vec(&doc! {"at": *v}).expect("bson"))
                .collect();
            let mut out: Vec<(char, Order, u64)> = strings(&docs, &[Seg::Key("at".into())])
                .formats
                .into_iter()
                .filter_map(|(f, n)| match f {
                    DateFormat::Numeric(x) => Some((char::from(x.sep), x.order, n)),
                    _ => None,
                })
                .collect();
            out.sort_by_key(|x| (x.0, x.2));
            out
        };
        // The values of sdl3's dossiers: ISO dates beside "11-01-2022",
        // which nothing settles.
        let mut dossiers = vec!["2022-11-02"; 5];
        dossiers.push("2021-11-11");
        dossiers.extend(["11-01-2022"; 9]);
        assert_eq!(orders(&dossiers), [('-', Order::Undecided, 9)]);
        // One value with a day above 12 settles them all, a time or not.
        let mut settled = dossiers.clone();
        settled.push("13-01-2022 10:00");
        assert_eq!(
            orders(&settled),
            [('-', Order::DayFirst, 1), ('-', Order::DayFirst, 9)]
        );
        let mut month = dossiers.clone();
        month.push("01-13-2022");
        assert_eq!(orders(&month), [('-', Order::MonthFirst, 10)]);
        // Another separator is another writer's habit.
        let mut apart = settled.clone();
        apart.push("11/01/2022");
        assert_eq!(
            orders(&apart),
            [
                ('-', Order::DayFirst, 1),
                ('-', Order::DayFirst, 9),
                ('/', Order::Undecided, 1)
            ]
        );
        // Both orders with one separator: none is trusted.
        let mut both = month.clone();
        both.push("13-01-2022");
        assert_eq!(orders(&both), [('-', Order::Mixed, 11)]);
    }

    #[test]
    fn dates_written_for_people_are_dates_and_their_order_is_the_values() {
        let label = |s: &str| date_format(s).map(DateFormat::label);
        assert_eq!(
            label("June 8th 2017, 11:13:42 pm").as_deref(),
            Some("MMMM Do YYYY h:mm:ss a")
        );
        assert_eq!(
            label("Thu Jun 08 2017 23:13:42 GMT+0000 (UTC)").as_deref(),
            Some("ddd MMM D YYYY HH:mm:ss +hhmm")
        );
        assert_eq!(
            label("2017-06-08 23:13:42.123").as_deref(),
            Some("YYYY-MM-DD hh:mm:ss.fff")
        );
        assert!(
            matches!(date_format("08/06/2017 23:13"), Some(DateFormat::Numeric(n)) if n.order == Order::Undecided)
        );
        // One path: the values settle the order, or leave it undecided.
        let docs = |values: &[&str]| -> Vec<bson::Document> {
            values
                .iter()
                .enumerate()
                .map(|(i, v)| doc! {"_id": i as i32, "at": *v})
                .collect()
        };
        let order = |values: &[&str]| -> Vec<Order> {
            run(&docs(values))
                .iter()
                .filter_map(|f| match &f.remedy {
                    Remedy::StringDates { formats, .. } => Some(formats.clone()),
                    _ => None,
                })
                .flatten()
                .filter_map(|(f, _)| match f {
                    DateFormat::Numeric(n) => Some(n.order),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            order(&["08/06/2017 23:13", "13/06/2017 01:00", "01/02/2017 00:00"]),
            [Order::DayFirst]
        );
        assert_eq!(
            order(&["08/06/2017 23:13", "06/13/2017 01:00"]),
            [Order::MonthFirst]
        );
        assert_eq!(
            order(&["08/06/2017 23:13", "01/02/2017 00:00"]),
            [Order::Undecided]
        );
        assert_eq!(
            order(&["13/06/2017 23:13", "06/13/2017 01:00"]),
            [Order::Mixed]
        );
    }

    fn run(docs: &[bson::Document]) -> Vec<Finding> {
        let r = testing::report("db.items", docs);
        check(&testing::ctx(&r, &[]), &Thresholds::default(), Lang::En)
    }

    #[test]
    fn fires_on_date_strings_and_not_on_dates_or_text() {
        // (documents, fires): 100 documents, `k` of them holding a non-date.
        let docs = |bad: usize| -> Vec<bson::Document> {
            (0..100)
                .map(|i| {
                    let v = if i < bad {
                        format!("unknown {i}")
                    } else {
                        format!("2015-08-{:02} 00:27:59.177000000", i % 28 + 1)
                    };
                    doc! {"_id": i as i32, "lastupdated": v, "title": format!("movie {i}")}
                })
                .collect()
        };
        for (bad, fires) in [(0, true), (5, true), (6, false), (100, false)] {
            let f = run(&docs(bad));
            assert_eq!(
                f.iter().any(|x| x.path.as_deref() == Some("lastupdated")),
                fires,
                "{bad} non-dates of 100: {f:?}"
            );
            assert!(f.iter().all(|x| x.path.as_deref() != Some("title")));
        }
        let f = run(&docs(5));
        assert_eq!(f[0].evidence["date_strings"], json!(95));
        assert_eq!(f[0].evidence["documents"], json!(100));
        assert!(
            matches!(&f[0].remedy, Remedy::StringDates { path, formats, .. } if path == "lastupdated" && !formats.is_empty()),
            "{:?}",
            f[0].remedy
        );
        // The clean twin: BSON dates.
        let clean: Vec<bson::Document> = (0..100)
            .map(|i| doc! {"_id": i, "lastupdated": bson::DateTime::from_millis(1_439_425_679_177 + i)})
            .collect();
        assert!(run(&clean).is_empty());
    }

    #[test]
    fn threshold_comes_from_the_configuration() {
        let docs: Vec<bson::Document> = (0..10)
            .map(|i| {
                let v = if i < 2 {
                    "n/a".to_owned()
                } else {
                    "2020-01-02T03:04:05Z".to_owned()
                };
                doc! {"_id": i, "at": v}
            })
            .collect();
        let r = testing::report("db.items", &docs);
        let ctx = testing::ctx(&r, &[]);
        assert!(check(&ctx, &Thresholds::default(), Lang::En).is_empty());
        let mut t = Thresholds::default();
        t.string_dates.min_share = 0.8;
        assert_eq!(check(&ctx, &t, Lang::Zh).len(), 1);
    }

    #[test]
    fn a_count_on_the_kept_documents_names_them_and_the_documents_read() {
        let docs: Vec<bson::Document> = (0..40)
            .map(|i| doc! {"_id": i, "at": "2020-01-02T03:04:05Z"})
            .collect();
        let mut r = testing::report("db.items", &docs);
        let whole = check(&testing::ctx(&r, &[]), &Thresholds::default(), Lang::En);
        assert!(
            whole[0].message.contains("in all 40 documents"),
            "{}",
            whole[0].message
        );
        // The profile read 40 documents; memory kept 25 of them.
        r.kept.truncate(25);
        let f = check(&testing::ctx(&r, &[]), &Thresholds::default(), Lang::En);
        assert!(
            f[0].message.contains("25 of the 25 documents that hold it")
                && f[0]
                    .message
                    .contains("in the 25 documents kept of the 40 read"),
            "{}",
            f[0].message
        );
        assert_eq!(f[0].evidence["kept"], 25);
        assert_eq!(f[0].evidence["sampled"], 40);
    }
}
