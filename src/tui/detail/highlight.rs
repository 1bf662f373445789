//! Just enough colouring for mongosh scripts and Extended JSON: strings,
//! numbers, keywords, comments and object keys.

use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;

const KEYWORDS: &[&str] = &[
    "const",
    "let",
    "var",
    "function",
    "return",
    "if",
    "else",
    "for",
    "while",
    "of",
    "in",
    "new",
    "true",
    "false",
    "null",
    "undefined",
    "await",
    "async",
    "db",
    "this",
    "try",
    "catch",
    "throw",
    "break",
    "continue",
];

/// Colours one line of JavaScript (a migration script).
pub(crate) fn js_line(line: &str, theme: &Theme) -> Line<'static> {
    tokens(line, theme, true)
}

/// Colours one line of pretty-printed JSON.
pub(crate) fn json_line(line: &str, theme: &Theme) -> Line<'static> {
    tokens(line, theme, false)
}

fn tokens(line: &str, theme: &Theme, js: bool) -> Line<'static> {
    let chars: Vec<char> = line.chars().collect();
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut plain = String::new();
    let mut i = 0;
    let flush = |plain: &mut String, spans: &mut Vec<Span<'static>>| {
        if !plain.is_empty() {
            spans.push(Span::styled(std::mem::take(plain), theme.text()));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if js && c == '/' && chars.get(i + 1) == Some(&'/') {
            flush(&mut plain, &mut spans);
            let rest: String = chars[i..].iter().collect();
            spans.push(Span::styled(rest, theme.fg("code.comment")));
            return Line::from(spans);
        }
        if c == '"' || (js && (c == '\'' || c == '`')) {
            flush(&mut plain, &mut spans);
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            let end = (i + 1).min(chars.len());
            let s: String = chars[start..end].iter().collect();
            let is_key = !js && chars[end..].iter().find(|c| !c.is_whitespace()) == Some(&':');
            spans.push(Span::styled(
                s,
                theme.fg(if is_key { "code.key" } else { "code.string" }),
            ));
            i = end;
            continue;
        }
        if c.is_ascii_digit() || (c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let prev_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
            if !prev_word {
                flush(&mut plain, &mut spans);
                let start = i;
                i += 1;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_')
                {
                    i += 1;
                }
                spans.push(Span::styled(
                    chars[start..i].iter().collect::<String>(),
                    theme.fg("code.number"),
                ));
                continue;
            }
        }
        if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            if KEYWORDS.contains(&word.as_str()) {
                flush(&mut plain, &mut spans);
                spans.push(Span::styled(word, theme.fg("code.keyword")));
            } else {
                plain.push_str(&word);
            }
            continue;
        }
        plain.push(c);
        i += 1;
    }
    flush(&mut plain, &mut spans);
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(l: &Line<'_>) -> Vec<String> {
        l.spans.iter().map(|s| s.content.to_string()).collect()
    }

    #[test]
    fn splits_strings_keywords_comments() {
        let t = Theme::default();
        let l = js_line("const x = db.c.find({a: \"s\"}); // note", &t);
        let k = kinds(&l);
        assert!(k.contains(&"const".to_owned()));
        assert!(k.contains(&"\"s\"".to_owned()));
        assert!(k.contains(&"// note".to_owned()));
        let j = json_line("  \"a\": 12,", &t);
        assert_eq!(kinds(&j).concat(), "  \"a\": 12,");
        assert_eq!(j.spans[1].style.fg, Some(t.color("code.key")));
    }
}
