//! Dates written for people rather than machines, as applications store
//! them: a month by name (`June 8th 2017, 11:13:42 pm`, moment.js's
//! `MMMM Do YYYY, h:mm:ss a`; `Thu Jun 08 2017 23:13:42 GMT+0000 (UTC)`,
//! JavaScript's `Date.toString()`; `8 June 2017`), or day, month and year
//! in digits (`08/06/2017 23:13`, `2017/06/08`).
//!
//! Each family is one regular expression, written once here and used both
//! by the rule and, unchanged, by the conversion script in `mongosh`
//! (`advise::integrity`), so the two agree on which strings are dates; the
//! captured parts are then checked (a real day of that month, a weekday
//! that is the date's, an hour the clock allows). Day and month in digits
//! are in an order only the values can tell: a value whose first number is
//! over 12 is day-first, one whose second is over 12 month-first; values
//! that never say leave the order undecided.

use std::fmt::Write as _;
use std::sync::OnceLock;

use regex_lite::{Captures, Regex, RegexBuilder};

/// The time of day written after the date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Clock {
    /// No time: the date alone.
    None,
    /// `23:13`, `23:13:42`, `23:13:42.123`.
    H24 { seconds: bool, frac: bool },
    /// `11:13 pm`, `11:13:42 PM`.
    H12 { seconds: bool },
}

/// What the string says of its time zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Zone {
    /// Nothing: read as UTC, as the ISO strings without an offset are.
    None,
    /// `UTC`, `GMT` or `Z` alone.
    Utc,
    /// An offset: `GMT+0000`, `+02:00`, `-0530` (a zone name in brackets
    /// may follow, as `Date.toString()` writes it).
    Offset,
}

/// The order of day and month written in digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Order {
    /// `08/06/2017` is 8 June.
    DayFirst,
    /// `06/08/2017` is 8 June.
    MonthFirst,
    /// `2017/06/08`.
    YearFirst,
    /// No value has a number over 12 in either place: either order reads.
    Undecided,
    /// Some values are day-first, others month-first.
    Mixed,
}

/// A month written by name.
// Each flag is one independent part of the written form.
#[allow(clippy::struct_excessive_bools)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Named {
    pub weekday: bool,
    pub long_month: bool,
    pub day_first: bool,
    pub ordinal: bool,
    pub clock: Clock,
    pub zone: Zone,
}

/// Day, month and year in digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Numeric {
    pub order: Order,
    pub sep: u8,
    pub clock: Clock,
    pub zone: Zone,
}

/// The time and zone after a date, shared by every family (JavaScript and
/// `regex_lite` read it alike; matched case-insensitively).
const TAIL: &str = r"(?:(?:,? +| *T|, *)(?:at +)?(?<h>\d{1,2}):(?<mi>\d{2})(?::(?<s>\d{2})(?:[.,](?<f>\d{1,9}))?)?(?: *(?<ap>[ap])\.?m\.?)?)?(?: *(?<z>z|utc|gmt)?(?<off>[+-]\d{2}:?\d{2})?)?(?: +\((?<zn>[^()]*)\))?";

/// A month by name, with an optional weekday before it.
pub(crate) fn named_source() -> String {
    format!(
        r"^(?:(?<wd>[a-z]{{3,9}})\.?,? +)?(?:(?<mon1>[a-z]{{3,9}})\.? +(?<d1>\d{{1,2}})(?<o1>st|nd|rd|th)?|(?<d2>\d{{1,2}})(?<o2>st|nd|rd|th)? +(?<mon2>[a-z]{{3,9}})\.?),? +(?<y>\d{{4}}){TAIL}$"
    )
}

/// Two numbers of one or two digits, then a four-digit year.
pub(crate) fn numeric_source() -> String {
    format!(r"^(?<a>\d{{1,2}})(?<sep>[/.-])(?<b>\d{{1,2}})(?<sep2>[/.-])(?<y>\d{{4}}){TAIL}$")
}

/// A four-digit year, then month and day (`/` or `.`: with `-` it is ISO).
pub(crate) fn year_first_source() -> String {
    format!(r"^(?<y>\d{{4}})(?<sep>[/.])(?<b>\d{{1,2}})(?<sep2>[/.])(?<a>\d{{1,2}}){TAIL}$")
}

fn compile(src: &str) -> Option<Regex> {
    RegexBuilder::new(src).case_insensitive(true).build().ok()
}

fn named_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| compile(&named_source())).as_ref()
}

fn numeric_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| compile(&numeric_source())).as_ref()
}

fn year_first_re() -> Option<&'static Regex> {
    static RE: OnceLock<Option<Regex>> = OnceLock::new();
    RE.get_or_init(|| compile(&year_first_source())).as_ref()
}

/// Month names, in English as the formatting libraries write them.
pub const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
/// Weekday names from Sunday, as JavaScript's `getUTCDay` counts.
pub const WEEKDAYS: [&str; 7] = [
    "sunday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
];

/// The position of `word` in `names`, written whole or by its first three
/// letters (any case); and whether it was whole.
fn name_of(word: &str, names: &[&str]) -> Option<(usize, bool)> {
    let w = word.to_ascii_lowercase();
    names.iter().enumerate().find_map(|(i, n)| {
        if w == *n {
            Some((i, true))
        } else if w.len() == 3 && n.starts_with(&w) {
            Some((i, false))
        } else {
            None
        }
    })
}

fn valid_day(y: i64, m: i64, d: i64) -> bool {
    (1..=12).contains(&m) && (1..=crate::source::files::ejson::days_in_month(y, m)).contains(&d)
}

fn num(c: &Captures<'_>, name: &str) -> Option<i64> {
    c.name(name).and_then(|m| m.as_str().parse().ok())
}

/// The instant (milliseconds since the epoch, UTC) of a date and the time
/// and zone `c` captured, with the date's weekday (0 = Sunday); `None`
/// when a part is out of range.
#[allow(clippy::many_single_char_names)]
fn instant(c: &Captures<'_>, y: i64, m: i64, d: i64) -> Option<(i64, usize, Clock, Zone)> {
    if !valid_day(y, m, d) {
        return None;
    }
    let (mut h, mi, s) = (num(c, "h"), num(c, "mi"), num(c, "s"));
    let frac = c.name("f").map(|f| f.as_str());
    let clock = match (h, c.name("ap")) {
        (None, _) => Clock::None,
        (Some(_), Some(ap)) => {
            let hour = h.unwrap_or(0);
            if !(1..=12).contains(&hour) || frac.is_some() {
                return None;
            }
            h = Some(
                hour % 12
                    + if ap.as_str().eq_ignore_ascii_case("p") {
                        12
                    } else {
                        0
                    },
            );
            Clock::H12 {
                seconds: s.is_some(),
            }
        }
        (Some(_), None) => Clock::H24 {
            seconds: s.is_some(),
            frac: frac.is_some(),
        },
    };
    let (h, mi, s) = (h.unwrap_or(0), mi.unwrap_or(0), s.unwrap_or(0));
    if h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let ms = frac.map_or(0, |f| {
        let mut digits: String = f.chars().take(3).collect();
        while digits.len() < 3 {
            digits.push('0');
        }
        digits.parse::<i64>().unwrap_or(0)
    });
    let (zone, offset_min) = match (c.name("off"), c.name("z")) {
        (Some(o), _) => {
            let o = o.as_str().replace(':', "");
            let oh: i64 = o.get(1..3)?.parse().ok()?;
            let om: i64 = o.get(3..5)?.parse().ok()?;
            if oh > 23 || om > 59 {
                return None;
            }
            let sign = if o.starts_with('-') { -1 } else { 1 };
            (Zone::Offset, sign * (oh * 60 + om))
        }
        (None, Some(_)) => (Zone::Utc, 0),
        (None, None) if c.name("zn").is_some() => return None,
        (None, None) => (Zone::None, 0),
    };
    let days = crate::source::files::ejson::days_from_civil(y, m, d);
    let weekday = (days + 4).rem_euclid(7) as usize;
    let ms = ((days * 24 + h) * 60 + mi - offset_min) * 60_000 + s * 1000 + ms;
    Some((ms, weekday, clock, zone))
}

/// A month by name: the format and the instant it names.
#[allow(clippy::many_single_char_names)]
pub(crate) fn parse_named(s: &str) -> Option<(Named, i64)> {
    if !s.bytes().any(|b| b.is_ascii_alphabetic()) {
        return None;
    }
    let c = named_re()?.captures(s)?;
    let (mon, d, ordinal, day_first) = match (c.name("mon1"), c.name("mon2")) {
        (Some(m), _) => (m, num(&c, "d1")?, c.name("o1").is_some(), false),
        (None, Some(m)) => (m, num(&c, "d2")?, c.name("o2").is_some(), true),
        (None, None) => return None,
    };
    let (mi, long_month) = name_of(mon.as_str(), &MONTHS)?;
    let y = num(&c, "y")?;
    let (ms, weekday, clock, zone) = instant(&c, y, mi as i64 + 1, d)?;
    let has_weekday = match c.name("wd") {
        Some(w) => {
            let (wi, _) = name_of(w.as_str(), &WEEKDAYS)?;
            if wi != weekday {
                return None;
            }
            true
        }
        None => false,
    };
    Some((
        Named {
            weekday: has_weekday,
            long_month,
            day_first,
            ordinal,
            clock,
            zone,
        },
        ms,
    ))
}

/// Day, month and year in digits: the format, with the order this value
/// settles (or `Undecided`), and the instant it names in that order (read
/// day-first when undecided).
#[allow(clippy::many_single_char_names)]
pub(crate) fn parse_numeric(s: &str) -> Option<(Numeric, i64)> {
    if !s.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    let (c, year_first) = match numeric_re()?.captures(s) {
        Some(c) => (c, false),
        None => (year_first_re()?.captures(s)?, true),
    };
    let sep = c.name("sep")?.as_str().as_bytes()[0];
    if c.name("sep2")?.as_str().as_bytes()[0] != sep {
        return None;
    }
    let (a, b, y) = (num(&c, "a")?, num(&c, "b")?, num(&c, "y")?);
    let order = if year_first {
        Order::YearFirst
    } else if a > 12 && b <= 12 {
        Order::DayFirst
    } else if b > 12 && a <= 12 {
        Order::MonthFirst
    } else if a <= 12 && b <= 12 {
        Order::Undecided
    } else {
        return None;
    };
    let (d, m) = match order {
        Order::MonthFirst => (b, a),
        _ => (a, b),
    };
    let (ms, _, clock, zone) = instant(&c, y, m, d)?;
    Some((
        Numeric {
            order,
            sep,
            clock,
            zone,
        },
        ms,
    ))
}

/// The order a set of values settles: each value's own order, counted.
pub(crate) fn settle(orders: impl IntoIterator<Item = Order>) -> Order {
    let (mut day, mut month, mut year) = (false, false, false);
    for o in orders {
        match o {
            Order::DayFirst => day = true,
            Order::MonthFirst => month = true,
            Order::YearFirst => year = true,
            Order::Mixed => return Order::Mixed,
            Order::Undecided => {}
        }
    }
    match (day, month, year) {
        (true, true, _) => Order::Mixed,
        (true, false, _) => Order::DayFirst,
        (false, true, _) => Order::MonthFirst,
        (false, false, true) => Order::YearFirst,
        (false, false, false) => Order::Undecided,
    }
}

fn clock_label(c: Clock) -> &'static str {
    match c {
        Clock::None => "",
        Clock::H24 {
            seconds: false,
            frac: _,
        } => " HH:mm",
        Clock::H24 {
            seconds: true,
            frac: false,
        } => " HH:mm:ss",
        Clock::H24 {
            seconds: true,
            frac: true,
        } => " HH:mm:ss.SSS",
        Clock::H12 { seconds: false } => " h:mm a",
        Clock::H12 { seconds: true } => " h:mm:ss a",
    }
}

fn zone_label(z: Zone) -> &'static str {
    match z {
        Zone::None => "",
        Zone::Utc => " UTC",
        Zone::Offset => " +hhmm",
    }
}

impl Named {
    /// A readable pattern, in moment.js's letters: `MMMM Do YYYY h:mm:ss a`.
    pub(crate) fn label(self) -> String {
        let month = if self.long_month { "MMMM" } else { "MMM" };
        let day = if self.ordinal { "Do" } else { "D" };
        let mut s = String::new();
        if self.weekday {
            s.push_str("ddd ");
        }
        if self.day_first {
            let _ = write!(s, "{day} {month} YYYY");
        } else {
            let _ = write!(s, "{month} {day} YYYY");
        }
        s.push_str(clock_label(self.clock));
        s.push_str(zone_label(self.zone));
        s
    }
}

impl Numeric {
    /// A readable pattern: `DD/MM/YYYY HH:mm`, `??/??/YYYY` when undecided.
    pub(crate) fn label(self) -> String {
        let sep = char::from(self.sep);
        let date = match self.order {
            Order::DayFirst => format!("DD{sep}MM{sep}YYYY"),
            Order::MonthFirst => format!("MM{sep}DD{sep}YYYY"),
            Order::YearFirst => format!("YYYY{sep}MM{sep}DD"),
            Order::Undecided => format!("DD{sep}MM{sep}YYYY or MM{sep}DD{sep}YYYY (undecided)"),
            Order::Mixed => format!("DD{sep}MM{sep}YYYY and MM{sep}DD{sep}YYYY (both)"),
        };
        format!("{date}{}{}", clock_label(self.clock), zone_label(self.zone))
    }

    /// Whether a script can convert these values exactly: the order is
    /// known.
    pub(crate) fn convertible(self) -> bool {
        matches!(
            self.order,
            Order::DayFirst | Order::MonthFirst | Order::YearFirst
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2017-06-08T23:13:42Z in milliseconds.
    const JUNE_8: i64 = 1_496_963_622_000;

    #[test]
    fn named_months_as_libraries_write_them() {
        for (s, want, label) in [
            (
                "June 8th 2017, 11:13:42 pm",
                JUNE_8,
                "MMMM Do YYYY h:mm:ss a",
            ),
            (
                "Thu Jun 08 2017 23:13:42 GMT+0000 (Coordinated Universal Time)",
                JUNE_8,
                "ddd MMM D YYYY HH:mm:ss +hhmm",
            ),
            (
                "Fri Jun 09 2017 01:13:42 GMT+0200 (CEST)",
                JUNE_8,
                "ddd MMM D YYYY HH:mm:ss +hhmm",
            ),
            (
                "June 8, 2017 11:13 PM",
                JUNE_8 - 42_000,
                "MMMM D YYYY h:mm a",
            ),
            ("8 June 2017", JUNE_8 - 83_622_000, "D MMMM YYYY"),
            (
                "Thursday, June 8, 2017",
                JUNE_8 - 83_622_000,
                "ddd MMMM D YYYY",
            ),
            (
                "13 August 2015 00:27:59 +0000",
                1_439_425_679_000,
                "D MMMM YYYY HH:mm:ss +hhmm",
            ),
            (
                "jun 8 2017 12:00 am",
                JUNE_8 - 83_622_000,
                "MMM D YYYY h:mm a",
            ),
        ] {
            let (f, ms) = parse_named(s).unwrap_or_else(|| panic!("{s}"));
            assert_eq!(ms, want, "{s}");
            assert_eq!(f.label(), label, "{s}");
        }
        for s in [
            "June 31st 2017",                          // no such day
            "Fri Jun 08 2017 23:13:42 GMT+0000 (UTC)", // 8 June 2017 was a Thursday
            "June 8th 2017, 13:13:42 pm",              // no 13 pm
            "Junk 8 2017",
            "Room 8 June 2017",
            "June 2017",
            "June 8th 2017 at noon",
            "8 June 17",
            "Thu Jun 08 2017 23:13:42 (UTC)", // a zone name with no offset
        ] {
            assert_eq!(parse_named(s), None, "{s}");
        }
    }

    #[test]
    fn digits_tell_their_order_only_past_twelve() {
        let p = |s: &str| parse_numeric(s).unwrap_or_else(|| panic!("{s}"));
        let (f, ms) = p("08/06/2017 23:13");
        assert_eq!(f.order, Order::Undecided);
        assert_eq!(ms, JUNE_8 - 42_000, "read day-first when undecided");
        let (f, ms) = p("13/06/2017 23:13:42");
        assert_eq!(
            (f.order, f.label().as_str()),
            (Order::DayFirst, "DD/MM/YYYY HH:mm:ss")
        );
        assert_eq!(ms, JUNE_8 + 5 * 86_400_000);
        let (f, ms) = p("06/13/2017");
        assert_eq!(f.order, Order::MonthFirst);
        assert_eq!(ms, JUNE_8 - 83_622_000 + 5 * 86_400_000);
        let (f, ms) = p("2017/06/08 23:13:42.123");
        assert_eq!(f.order, Order::YearFirst);
        assert_eq!(ms, JUNE_8 + 123);
        let (f, _) = p("8.6.2017");
        assert_eq!(f.sep, b'.');
        for s in [
            "13/13/2017",
            "08/06-2017",
            "31/02/2017",
            "8/6/17",
            "1.2.3",
            "08/06/2017 25:00",
            "2017-06-08",
        ] {
            assert_eq!(parse_numeric(s), None, "{s}");
        }
        assert_eq!(settle([Order::Undecided, Order::DayFirst]), Order::DayFirst);
        assert_eq!(
            settle([Order::Undecided, Order::Undecided]),
            Order::Undecided
        );
        assert_eq!(settle([Order::MonthFirst, Order::DayFirst]), Order::Mixed);
    }

    #[test]
    fn the_sources_compile_for_both_readers() {
        // JavaScript reads the same text: no syntax regex_lite alone knows.
        for src in [named_source(), numeric_source(), year_first_source()] {
            assert!(compile(&src).is_some(), "{src}");
            assert!(!src.contains("(?P<") && !src.contains("(?i)"), "{src}");
        }
    }
}
