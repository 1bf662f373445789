//! Numbers as people read them, one convention everywhere: reports,
//! messages, lessons and the explorer all format through here.
//!
//! The earliest stage of the journey: it imports nothing from the crate.
//! Byte sizes use binary units labelled without ambiguity (`KiB`, `MiB`,
//! `GiB`; 1 KiB = 1,024 B), the units of MongoDB's own 16 MiB limit.

/// `1,234,567`: thousands grouped with commas (readers of English and of
/// Chinese both expect `12,000`).
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

const BINARY_UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];

/// `940 B`, `2.1 KiB`, `14.4 MiB`: powers of 1,024, one decimal past bytes.
/// A value that would round up to 1,024 of a unit is shown in the next one.
pub fn bytes(b: f64) -> String {
    if !b.is_finite() || b.round() < 1024.0 {
        return format!("{b:.0} B");
    }
    let mut v = b / 1024.0;
    let mut unit = 0;
    while unit + 1 < BINARY_UNITS.len() && (v * 10.0).round() >= 10_240.0 {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", BINARY_UNITS[unit])
}

/// A share (0–1) as a percentage that never misleads at the ends: whole
/// percents in between, one decimal close to 0 or 100 %, and never `0 %`
/// for a share above nothing nor `100 %` for one below all
/// (`<0.1 %`, `0.4 %`, `42 %`, `99.6 %`, `>99.9 %`).
pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p.is_nan() || p <= 0.0 {
        "0 %".to_owned()
    } else if p >= 100.0 {
        "100 %".to_owned()
    } else if p < 0.1 {
        "<0.1 %".to_owned()
    } else if p > 99.9 {
        ">99.9 %".to_owned()
    } else if !(1.0..=99.0).contains(&p) {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

/// A length of time given in days, as people say it, also below a day:
/// `("1.2 hours", " 1.2 小时")`, `("35 minutes", " 35 分钟")`, else as
/// [`duration_days`].
pub(crate) fn span_days(d: f64) -> (String, String) {
    let hours = d * 24.0;
    if hours < 1.0 {
        let m = (hours * 60.0).round();
        (format!("{m:.0} minutes"), format!(" {m:.0} 分钟"))
    } else if d < 1.0 {
        (format!("{hours:.1} hours"), format!(" {hours:.1} 小时"))
    } else if d < 10.0 {
        (format!("{d:.1} days"), format!(" {d:.1} 天"))
    } else {
        duration_days(d)
    }
}

/// A number of days as people say it, in English and in Chinese:
/// `("40 days", " 40 天")` below two years, `("3.5 years", " 3.5 年")` past.
/// The Chinese text starts with a space, as it follows a Chinese word.
pub(crate) fn duration_days(d: f64) -> (String, String) {
    if d < 730.0 {
        (format!("{d:.0} days"), format!(" {d:.0} 天"))
    } else {
        let y = d / 365.25;
        let n = if y < 100.0 {
            format!("{y:.1}")
        } else {
            group(y.round() as u64)
        };
        (format!("{n} years"), format!(" {n} 年"))
    }
}

/// Terminal columns a string takes (wide East Asian characters count two),
/// as the terminal draws it (Unicode's East Asian Width, via `unicode-width`).
pub fn display_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// Terminal columns of one character (control characters count none).
pub(crate) fn char_width(c: char) -> usize {
    unicode_width::UnicodeWidthChar::width(c).unwrap_or(0)
}

/// `s` in at most `cells` terminal cells: whole when it fits, else its
/// middle cut out and marked `…`, so that both its head and its
/// distinguishing end show (`good_a…chunks`, `good_a….files`): half the
/// room each, or, when the last `.`-separated part of a name is longer
/// than half and fits in three quarters, that part whole. A wide character is
/// never split.
pub fn fit(s: &str, cells: usize) -> String {
    let total = display_width(s);
    if total <= cells {
        return s.to_owned();
    }
    if cells <= 1 {
        return "…".repeat(cells);
    }
    let room = cells - 1;
    let last_part = s
        .rfind('.')
        .filter(|&i| i > 0 && i + 1 < s.len())
        .map_or(0, |i| display_width(&s[i + 1..]));
    let half = room - room / 2;
    let tail_w = if last_part > half && last_part * 4 <= room * 3 {
        last_part
    } else {
        half
    };
    let tail = tail_cells(s, tail_w);
    let head = head_cells(s, room - display_width(tail));
    format!("{head}…{tail}")
}

/// `s` in at most `cells` terminal cells, its end cut and marked `…`:
/// for a line read from its start, as a scrolled detail or a sentence.
pub fn fit_end(s: &str, cells: usize) -> String {
    if display_width(s) <= cells {
        return s.to_owned();
    }
    if cells == 0 {
        return String::new();
    }
    format!("{}…", head_cells(s, cells - 1))
}

/// `s` in at most `cells` terminal cells, its start cut and marked `…`:
/// for text being typed, whose end (where the cursor is) must show.
pub(crate) fn fit_start(s: &str, cells: usize) -> String {
    if display_width(s) <= cells {
        return s.to_owned();
    }
    if cells == 0 {
        return String::new();
    }
    format!("…{}", tail_cells(s, cells - 1))
}

/// The longest start of `s` that takes at most `cells` cells.
fn head_cells(s: &str, cells: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices() {
        used += char_width(c);
        if used > cells {
            return &s[..i];
        }
    }
    s
}

/// The longest end of `s` that takes at most `cells` cells.
fn tail_cells(s: &str, cells: usize) -> &str {
    let mut used = 0;
    for (i, c) in s.char_indices().rev() {
        used += char_width(c);
        if used > cells {
            return &s[i + c.len_utf8()..];
        }
    }
    s
}

/// `s` padded with spaces on the right to `cells` terminal cells (wide
/// characters count two; `format!("{:<n$}")` counts them one), or as it
/// is when wider.
pub fn pad(s: &str, cells: usize) -> String {
    let used = display_width(s);
    format!("{s}{}", " ".repeat(cells.saturating_sub(used)))
}

/// `s` right-aligned in `cells` terminal cells, as numbers are.
pub(crate) fn pad_left(s: &str, cells: usize) -> String {
    let used = display_width(s);
    format!("{}{s}", " ".repeat(cells.saturating_sub(used)))
}

/// `s` fitted into exactly `cells` cells: cut in the middle when longer
/// ([`fit`]), padded when shorter; `right` aligns it to the right.
pub(crate) fn cell(s: &str, cells: usize, right: bool) -> String {
    let t = fit(s, cells);
    if right {
        pad_left(&t, cells)
    } else {
        pad(&t, cells)
    }
}

/// One column of a table, for [`column_widths`]: the widest of its header
/// and values (`want`), the least it may be cut to (`min`; a column whose
/// `min` is its `want`, such as a percentage, is never cut).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    pub want: usize,
    pub min: usize,
}

impl Column {
    /// A column as wide as the widest of `texts`, cut no narrower than `min`.
    pub(crate) fn of<'a>(texts: impl IntoIterator<Item = &'a str>, min: usize) -> Self {
        let want = texts.into_iter().map(display_width).max().unwrap_or(0);
        Column {
            want,
            min: min.min(want),
        }
    }

    /// A column never cut: as wide as the widest of `texts`.
    pub(crate) fn whole<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let c = Column::of(texts, 0);
        Column {
            want: c.want,
            min: c.want,
        }
    }
}

/// Widths of `cols` laid out in `room` cells with `gap` cells between
/// them, sized from their content: every column as wide as it wants when
/// they fit; else the widest are cut first, down to a common width, never
/// below their `min` (short columns, such as numbers, keep their width).
/// Room left over goes to the column `grow`, if any.
pub(crate) fn column_widths(
    cols: &[Column],
    room: usize,
    gap: usize,
    grow: Option<usize>,
) -> Vec<usize> {
    let gaps = gap * cols.len().saturating_sub(1);
    let avail = room.saturating_sub(gaps);
    let wanted: usize = cols.iter().map(|c| c.want).sum();
    let mut widths: Vec<usize> = cols.iter().map(|c| c.want).collect();
    if wanted <= avail {
        if let Some(g) = grow.filter(|&g| g < widths.len()) {
            widths[g] += avail - wanted;
        }
        return widths;
    }
    // The widest column loses a cell until they fit: first down to the
    // columns' `min`; when even that is too wide, the columns that may be
    // cut (`min` below `want`) below it; at last any.
    for w in &mut widths {
        *w = (*w).min(avail);
    }
    let mut over = widths.iter().sum::<usize>().saturating_sub(avail);
    for pass in 0..3 {
        while over > 0 {
            let widest = widths
                .iter()
                .zip(cols)
                .enumerate()
                .filter(|(_, (w, c))| match pass {
                    0 => **w > c.min,
                    1 => **w > 1 && c.min < c.want,
                    _ => **w > 0,
                })
                .max_by_key(|(i, (w, _))| (**w, std::cmp::Reverse(*i)))
                .map(|(i, _)| i);
            let Some(i) = widest else { break };
            widths[i] -= 1;
            over -= 1;
        }
    }
    widths
}

/// Lines of at most `width` terminal columns, broken where Unicode allows
/// (UAX #14: between words, and between Chinese characters, never inside
/// an identifier such as `movie_id`); a word longer than the width is
/// split. Paragraphs (`\n`) are kept, and no text is ever dropped.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let opts = textwrap::Options::new(width.max(10))
        .word_separator(textwrap::WordSeparator::UnicodeBreakProperties)
        .break_words(true);
    text.split('\n')
        .flat_map(|para| {
            let lines = textwrap::wrap(para, &opts);
            if lines.is_empty() {
                vec![String::new()]
            } else {
                lines
                    .into_iter()
                    .map(std::borrow::Cow::into_owned)
                    .collect()
            }
        })
        .collect()
}

/// A count in at most five characters, for a status line or a chart axis
/// (`999`, `1.2k`, `3.4M`): where the exact count is shown elsewhere.
pub(crate) fn compact(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.1}G", n as f64 / 1e9),
    }
}

/// A measured ratio: grouped and whole from 1,000, else at most two
/// decimals (`1,234`, `30`, `2.5`, `0.33`).
pub fn decimal(f: f64) -> String {
    if f.abs() >= 1000.0 {
        let whole = group(f.abs().round() as u64);
        if f < 0.0 {
            format!("-{whole}")
        } else {
            whole
        }
    } else {
        let t = format!("{f:.2}");
        t.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

/// An evidence value as people read it: counts grouped, shares as
/// percentages, byte sizes in binary units, lists and objects spelled out
/// (`name: unbounded-array.max-length, value: 1,000`) instead of raw JSON.
/// `key` names the value (`share`, `avg_bytes` …) and picks its unit.
pub fn evidence(key: &str, v: &serde_json::Value) -> String {
    evidence_named(key, v, &|_, k| k.to_owned(), &|_, _, _| None)
}

/// [`evidence`], with the keys of nested objects shown by `name(parent,
/// key)` (a reader's language; `parent` tells docshape's own structure from
/// a user's fields); units still follow the keys themselves. A nested
/// string is shown as `word(parent, key, value)` where that gives one
/// (docshape's own words in the reader's language).
pub(crate) fn evidence_named(
    key: &str,
    v: &serde_json::Value,
    name: &dyn Fn(&str, &str) -> String,
    word: &dyn Fn(&str, &str, &str) -> Option<String>,
) -> String {
    use serde_json::Value;
    let evidence = |key: &str, v: &Value| evidence_named(key, v, name, word);
    let is_share = ["share", "rate", "ratio", "presence"]
        .iter()
        .any(|w| key.contains(w));
    let is_bytes = key.contains("bytes") || key == "doc_size";
    match v {
        Value::Null => "—".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => s.clone(),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                if is_bytes && u >= 1024 {
                    format!("{} ({} B)", bytes(u as f64), group(u))
                } else if is_bytes {
                    format!("{} B", group(u))
                } else {
                    group(u)
                }
            } else if let Some(i) = n.as_i64() {
                format!("-{}", group(i.unsigned_abs()))
            } else {
                let f = n.as_f64().unwrap_or(f64::NAN);
                if is_share && (0.0..=1.0).contains(&f) {
                    percent(f)
                } else if is_bytes && f >= 0.0 {
                    bytes(f)
                } else {
                    decimal(f)
                }
            }
        }
        Value::Array(items) if items.is_empty() => "—".to_owned(),
        Value::Array(items) => items
            .iter()
            .map(|x| match x {
                Value::Object(_) | Value::Array(_) => format!("({})", evidence(key, x)),
                _ => evidence(key, x),
            })
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(m) => m
            .iter()
            .map(|(k, x)| {
                // A threshold's `value` is measured in its `name`'s unit.
                let unit = match (k.as_str(), m.get("name")) {
                    ("value", Some(Value::String(n))) => n.as_str(),
                    _ => k.as_str(),
                };
                let shown = name(key, k);
                match x {
                    Value::String(t) => match word(key, k, t) {
                        Some(w) => format!("{shown}: {w}"),
                        None => format!("{shown}: {t}"),
                    },
                    Value::Object(_) => format!("{shown}: ({})", evidence(unit, x)),
                    _ => format!("{shown}: {}", evidence(unit, x)),
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        for (n, want) in [
            (0, "0"),
            (100, "100"),
            (1_000, "1,000"),
            (1_234_567, "1,234,567"),
        ] {
            assert_eq!(group(n), want, "{n}");
        }
    }

    #[test]
    fn bytes_in_binary_units() {
        for (b, want) in [
            (0.0, "0 B"),
            (940.2, "940 B"),
            (1023.0, "1023 B"),
            (1023.6, "1.0 KiB"),
            (1024.0, "1.0 KiB"),
            (2100.0, "2.1 KiB"),
            (262_144.0, "256.0 KiB"),
            (1_048_575.0, "1.0 MiB"),
            (10_000_000.0, "9.5 MiB"),
            (15_100_000.0, "14.4 MiB"),
            (16.0 * 1_048_576.0, "16.0 MiB"),
            (3.0 * 1_073_741_824.0, "3.0 GiB"),
            (5.0 * 1_099_511_627_776.0, "5.0 TiB"),
        ] {
            assert_eq!(bytes(b), want, "{b}");
        }
    }

    #[test]
    fn percent_never_rounds_to_none_or_all() {
        for (share, want) in [
            (0.0, "0 %"),
            (0.000_2, "<0.1 %"),
            (0.001, "0.1 %"),
            (0.004, "0.4 %"),
            (0.009_96, "1.0 %"),
            (0.01, "1 %"),
            (0.423, "42 %"),
            (0.99, "99 %"),
            (0.996, "99.6 %"),
            (0.999_6, ">99.9 %"),
            (1.0, "100 %"),
        ] {
            assert_eq!(percent(share), want, "{share}");
        }
    }

    #[test]
    fn durations_in_days_then_years() {
        assert_eq!(duration_days(40.0).0, "40 days");
        assert_eq!(duration_days(40.0).1, " 40 天");
        assert_eq!(duration_days(1278.0).0, "3.5 years");
        assert_eq!(duration_days(1278.0).1, " 3.5 年");
        assert_eq!(duration_days(365_250.0).0, "1,000 years");
    }

    #[test]
    fn wrap_keeps_every_character_and_every_identifier() {
        let zh = "MongoDB 拒绝任何超过 16 MiB 的文档，越过上限的写入会直接失败；远在此之前，每次读写都要搬动数兆字节的数据。字段 movie_id 必须建立索引。";
        for width in [10, 17, 30, 58, 80] {
            let lines = wrap(zh, width);
            assert!(
                lines.iter().all(|l| display_width(l) <= width),
                "{width}: {lines:?}"
            );
            let joined: String = lines.concat().split_whitespace().collect();
            let want: String = zh.split_whitespace().collect();
            assert_eq!(joined, want, "{width}: text lost or changed");
            if width >= 10 {
                assert!(
                    lines.iter().any(|l| l.contains("movie_id")),
                    "{width}: {lines:?}"
                );
            }
        }
        let en = "an index on comments.movie_id serves the lookup";
        let lines = wrap(en, 20);
        assert!(lines.iter().all(|l| display_width(l) <= 20), "{lines:?}");
        assert!(
            lines.iter().any(|l| l.contains("comments.movie_id")),
            "{lines:?}"
        );
        assert_eq!(wrap("a\n\nb", 40), vec!["a", "", "b"]);
    }

    #[test]
    fn fit_cuts_the_middle_and_keeps_the_distinguishing_end() {
        assert_eq!(fit("orders", 10), "orders");
        assert_eq!(fit("good_avatars.chunks", 13), "good_a…chunks");
        assert_eq!(fit("good_avatars.files", 13), "good_a….files");
        assert_eq!(
            fit("shop.a_long_collection_name", 20),
            "shop.a_lo…ction_name"
        );
        assert_eq!(fit("a.very_long_field.x", 9), "a.ve…ld.x");
        assert_ne!(
            fit("good_avatars.chunks", 10),
            fit("good_avatars.files", 10)
        );
        assert_eq!(fit("abcdefghij", 5), "ab…ij");
        assert_eq!(fit("abc", 1), "…");
        assert_eq!(fit("abc", 0), "");
        for w in 0..20 {
            for s in ["用户名称和电子邮件地址", "a名b字c.订单明细", "x.y"] {
                let f = fit(s, w);
                assert!(display_width(&f) <= w, "{s} {w}: {f}");
                if display_width(s) > w && w >= 3 {
                    assert!(f.contains('…'), "{s} {w}: {f}");
                }
            }
        }
        assert_eq!(fit_end("abcdef", 4), "abc…");
        assert_eq!(fit_end("名字名字", 5), "名字…");
        assert_eq!(fit_start("abcdef", 4), "…def");
        assert_eq!(fit_start("名字名字", 6), "…名字");
    }

    #[test]
    fn pads_count_cells() {
        assert_eq!(pad("名字", 6), "名字  ");
        assert_eq!(pad_left("名", 4), "  名");
        assert_eq!(cell("订单明细表", 6, false), "订…表 ");
        assert_eq!(display_width(&cell("订单明细表", 7, false)), 7);
        assert_eq!(cell("7", 3, true), "  7");
    }

    #[test]
    fn columns_fit_their_content_and_cut_the_longest_first() {
        let cols = [
            Column::of(["name", "a_very_long_field_name_here"], 6),
            Column::whole(["presence", "100 %"]),
            Column::of(["kind", "single"], 4),
        ];
        // Room for all: as wanted, the rest to the first.
        assert_eq!(column_widths(&cols, 60, 1, Some(0)), vec![27 + 17, 8, 6]);
        assert_eq!(column_widths(&cols, 60, 1, None), vec![27, 8, 6]);
        // Tight: the long one is cut, the percentage never.
        let w = column_widths(&cols, 30, 1, None);
        assert_eq!(w[1], 8);
        assert_eq!(w[2], 6);
        assert_eq!(w.iter().sum::<usize>() + 2, 30);
        // Tighter still: both cut, down to their minimums.
        let w = column_widths(&cols, 20, 1, None);
        assert_eq!(w, vec![6, 8, 4]);
        // Too narrow for the minimums: still no wider than the room.
        let w = column_widths(&cols, 12, 1, None);
        assert_eq!(w.iter().sum::<usize>() + 2, 12, "{w:?}");
    }

    #[test]
    fn widths_count_wide_characters_twice() {
        assert_eq!(display_width("名字"), 4);
        assert_eq!(display_width("ab"), 2);
    }

    #[test]
    fn evidence_reads_as_people_write() {
        use serde_json::json;
        for (key, v, want) in [
            ("share", json!(0.999_633_187_821_649_7), ">99.9 %"),
            ("share", json!(0.42), "42 %"),
            ("documents", json!(1_564), "1,564"),
            ("avg_bytes", json!(2_150_000), "2.1 MiB (2,150,000 B)"),
            ("avg_bytes", json!(512), "512 B"),
            ("days", json!(12.5), "12.5"),
            ("delta", json!(-1_234), "-1,234"),
            ("scope", json!("sample"), "sample"),
            ("paths", json!(["a.b", "c"]), "a.b, c"),
            ("x", json!(null), "—"),
            ("own_fields", json!([]), "—"),
            (
                "threshold",
                json!({"name": "bloated-document.avg-bytes", "value": 1_048_576, "profile": "default"}),
                "name: bloated-document.avg-bytes, value: 1.0 MiB (1,048,576 B), profile: default",
            ),
        ] {
            assert_eq!(evidence(key, &v), want, "{key} = {v}");
        }
    }
}
