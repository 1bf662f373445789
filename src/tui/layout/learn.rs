//! A lesson's text measured: reflowed to the tab's width, and how far it
//! scrolls.

use crate::fmt::display_width;

/// Undoes the 78-column wrapping of `lesson::render` in its prose so the
/// tab can wrap it to its own width: a long line is joined with the next
/// when that one continues the paragraph (not blank, not indented, not an
/// underline). Tables and headings stay as they are.
pub fn reflow(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev_long = false;
    for line in text.lines() {
        let continues = prev_long
            && !line.is_empty()
            && !line.starts_with(char::is_whitespace)
            && !line.starts_with('=');
        if continues {
            let wide = |c: Option<char>| c.is_some_and(|c| display_width(&c.to_string()) == 2);
            if !(wide(out.chars().last()) || wide(line.chars().next())) {
                out.push(' ');
            }
        } else if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
        prev_long = !line.starts_with(char::is_whitespace) && display_width(line) >= 60;
    }
    out
}

/// How far the text can scroll: its lines once wrapped to `width` columns
/// (an estimate: word wrapping can add a few).
pub fn max_scroll(text: &str, width: u16) -> u16 {
    let w = usize::from(width.max(1));
    let lines: usize = text
        .lines()
        .map(|l| display_width(l).div_ceil(w).max(1))
        .sum();
    u16::try_from(lines).unwrap_or(u16::MAX)
}
