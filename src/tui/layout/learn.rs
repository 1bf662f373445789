//! A lesson's text measured: reflowed to the tab's width, and how far it
//! scrolls.

use crate::fmt::display_width;

/// Undoes the 78-column wrapping of `lesson::render` in its prose so the
/// tab can wrap it to its own width: a long line is joined with the next
/// when that one continues the paragraph (not blank, not indented, not an
/// underline). Tables and headings stay as they are.
pub(crate) fn reflow(text: &str) -> String {
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

/// The text's lines wrapped to `width` cells, as the tab draws them:
/// measured in cells (a Chinese character takes two), so that no line
/// reaches past the block's border.
pub(crate) fn wrapped(text: &str, width: u16) -> Vec<String> {
    crate::fmt::wrap(text, usize::from(width.max(1)))
}

/// How far the text can scroll: its lines once wrapped to `width` columns.
pub(crate) fn max_scroll(text: &str, width: u16) -> u16 {
    u16::try_from(wrapped(text, width).len()).unwrap_or(u16::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lesson's Chinese lines, wrapped, fit the tab: none reaches past
    /// the width, where ratatui's own wrapping let one overwrite the
    /// border.
    #[test]
    fn wrapped_chinese_lines_fit_the_width() {
        let text = reflow(
            "      [警告] missing-reference-index: person_id 引用了 one_to_few.bad_people._id，但没有以它开头的索引：查找某个父文档的子文档需要扫描 60 个文档\n设计一对多关系之前，先问：“多”到底有多少？一对很少（一个人的几个地址，远少于一百个）：直接内嵌，一次读取就拿到全部。",
        );
        for width in [20u16, 41, 56, 78, 79, 80, 118] {
            let lines = wrapped(&text, width);
            assert!(
                lines.iter().all(|l| display_width(l) <= usize::from(width)),
                "{width}: {lines:#?}"
            );
            assert_eq!(usize::from(max_scroll(&text, width)), lines.len());
        }
    }
}
