//! A read-only query as a user types it: a filter in Extended JSON or in
//! mongosh's syntax (unquoted keys, single quotes, `ObjectId("…")`,
//! `ISODate("…")`, `NumberLong(…)`, `/re/flags`, trailing commas), and an
//! optional sort, projection, skip and limit. Pure: text in, BSON out, or
//! one sentence saying what is wrong and where.
//!
//! The text is read into Extended JSON (each mongosh constructor becomes
//! its `$oid`, `$date` … wrapper) and converted by the same code that reads
//! `mongoexport` files, so a value means the same in a query as in a file.

use std::fmt::Write as _;

use bson::{Bson, Document};
use serde_json::{Map, Number, Value};

/// How deep objects and arrays may nest in a query.
const MAX_DEPTH: usize = 100;

/// Why a part of a query cannot be read: which part (`filter`, `sort` …),
/// the column where reading stopped when there is one, and one sentence
/// for the user (its `Display`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryError {
    pub part: String,
    /// 1-based, in characters of the part's trimmed text.
    pub column: Option<usize>,
    message: String,
}

impl QueryError {
    fn whole(part: &str, message: String) -> QueryError {
        QueryError {
            part: part.to_owned(),
            column: None,
            message,
        }
    }
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for QueryError {}

/// A parsed query.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Query {
    pub filter: Document,
    pub sort: Option<Document>,
    pub projection: Option<Document>,
    pub skip: u64,
    /// `None`: every matching document.
    pub limit: Option<u64>,
}

/// A query as typed, one text per part; empty parts are left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct QueryText {
    pub filter: String,
    pub sort: String,
    pub projection: String,
    pub skip: String,
    pub limit: String,
}

impl QueryText {
    /// A query with only a filter.
    pub fn filter(text: &str) -> QueryText {
        QueryText {
            filter: text.to_owned(),
            ..QueryText::default()
        }
    }

    pub fn is_empty(&self) -> bool {
        [
            &self.filter,
            &self.sort,
            &self.projection,
            &self.skip,
            &self.limit,
        ]
        .iter()
        .all(|s| s.trim().is_empty())
    }

    /// The query in mongosh's words, for a header or a history line:
    /// `{status: "A"} sort {at: -1} skip 20 limit 10`.
    pub fn summary(&self) -> String {
        let mut out = match self.filter.trim() {
            "" => "{}".to_owned(),
            f => f.to_owned(),
        };
        for (name, text) in [
            ("sort", &self.sort),
            ("projection", &self.projection),
            ("skip", &self.skip),
            ("limit", &self.limit),
        ] {
            let t = text.trim();
            if !t.is_empty() {
                let _ = write!(out, " {name} {t}");
            }
        }
        out
    }

    /// Every part parsed; the first part that cannot be read says why.
    pub fn parse(&self) -> Result<Query, QueryError> {
        let filter = parse_document(&self.filter, "filter")?;
        let sort = optional(&self.sort, "sort")?;
        if let Some(s) = &sort {
            check_sort(s)?;
        }
        let projection = optional(&self.projection, "projection")?;
        let skip = parse_count(&self.skip, "skip")?.unwrap_or(0);
        let limit = parse_count(&self.limit, "limit")?;
        Ok(Query {
            filter,
            sort,
            projection,
            skip,
            limit: limit.filter(|&l| l > 0),
        })
    }
}

fn optional(text: &str, what: &str) -> Result<Option<Document>, QueryError> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    parse_document(text, what).map(|d| (!d.is_empty()).then_some(d))
}

/// A sort's values are 1 or -1 (or a `$meta` document).
fn check_sort(sort: &Document) -> Result<(), QueryError> {
    for (k, v) in sort {
        let ok = match v {
            Bson::Document(d) => d.contains_key("$meta"),
            other => matches!(crate::source::bson_as_i64(other), Some(1 | -1)),
        };
        if !ok {
            return Err(QueryError::whole(
                "sort",
                format!("the sort gives {k} the value {v}; use 1 (ascending) or -1 (descending)"),
            ));
        }
    }
    Ok(())
}

/// A whole number for skip or limit; `None` when empty.
fn parse_count(text: &str, what: &str) -> Result<Option<u64>, QueryError> {
    let t = text.trim().replace('_', "");
    if t.is_empty() {
        return Ok(None);
    }
    t.parse::<u64>().map(Some).map_err(|_| {
        QueryError::whole(
            what,
            format!(
                "the {what} must be a whole number of documents, not `{}`",
                text.trim()
            ),
        )
    })
}

/// A document in Extended JSON or mongosh syntax; the braces around the
/// whole may be left out (`status: "A", qty: {$gt: 5}`). Empty text is
/// the empty document. `what` names the part in errors ("filter").
pub(crate) fn parse_document(text: &str, what: &str) -> Result<Document, QueryError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(Document::new());
    }
    let mut p = Parser {
        chars: trimmed.chars().collect(),
        pos: 0,
        what,
        depth: 0,
    };
    let value = if trimmed.starts_with('{') {
        let v = p.value()?;
        p.space();
        if p.pos < p.chars.len() {
            return Err(p.unexpected("after the closing brace"));
        }
        v
    } else {
        Value::Object(p.members(None)?)
    };
    match crate::source::files::ejson::to_bson(value) {
        Ok(Bson::Document(d)) => Ok(d),
        Ok(_) => Err(QueryError::whole(
            what,
            format!("the {what} must be a document such as {{status: \"A\"}}"),
        )),
        Err(e) => Err(QueryError::whole(
            what,
            format!("the {what} holds a value that is not valid: {e}"),
        )),
    }
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    what: &'a str,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn column(&self) -> usize {
        self.pos + 1
    }

    fn err(&self, msg: &str) -> QueryError {
        self.err_at(msg, "")
    }

    /// `the filter HEAD at column N TAIL`.
    fn err_at(&self, head: &str, tail: &str) -> QueryError {
        let column = self.column();
        QueryError {
            part: self.what.to_owned(),
            column: Some(column),
            message: format!("the {} {head} at column {column}{tail}", self.what),
        }
    }

    /// An error with no column: the text ended, or the part is wrong as a
    /// whole.
    fn whole(&self, message: String) -> QueryError {
        QueryError::whole(self.what, message)
    }

    fn unexpected(&self, context: &str) -> QueryError {
        match self.peek() {
            Some(c) => self.err(&format!("has an unexpected `{c}` {context}")),
            None => self.whole(format!("the {} ends too early ({context})", self.what)),
        }
    }

    fn space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.space();
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, context: &str) -> Result<(), QueryError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.unexpected(&format!("where `{c}` was expected {context}")))
        }
    }

    fn nest(&mut self) -> Result<(), QueryError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.whole(format!(
                "the {} nests deeper than {MAX_DEPTH} levels",
                self.what
            )));
        }
        Ok(())
    }

    fn value(&mut self) -> Result<Value, QueryError> {
        self.space();
        match self.peek() {
            None => Err(self.whole(format!("the {} ends where a value was expected", self.what))),
            Some('{') => {
                self.pos += 1;
                self.nest()?;
                let m = self.members(Some('}'))?;
                self.depth -= 1;
                Ok(Value::Object(m))
            }
            Some('[') => {
                self.pos += 1;
                self.nest()?;
                let a = self.elements()?;
                self.depth -= 1;
                Ok(Value::Array(a))
            }
            Some(q @ ('"' | '\'')) => {
                self.pos += 1;
                self.string(q).map(Value::String)
            }
            Some('/') => self.regex(),
            Some(c) if c == '-' || c == '+' || c == '.' || c.is_ascii_digit() => self.number(),
            Some(c) if is_ident_start(c) => self.word(),
            Some(_) => Err(self.unexpected("where a value was expected")),
        }
    }

    /// `key: value` pairs up to `close` (or the end of the text when
    /// `None`), commas between, a trailing comma allowed.
    fn members(&mut self, close: Option<char>) -> Result<Map<String, Value>, QueryError> {
        let mut m = Map::new();
        loop {
            self.space();
            match (self.peek(), close) {
                (Some(c), Some(end)) if c == end => {
                    self.pos += 1;
                    return Ok(m);
                }
                (None, None) => return Ok(m),
                (None, Some(end)) => {
                    return Err(
                        self.whole(format!("the {} ends before its closing `{end}`", self.what))
                    )
                }
                _ => {}
            }
            let key = self.key()?;
            self.expect(':', &format!("after the key {key}"))?;
            let v = self.value()?;
            m.insert(key, v);
            self.space();
            if !self.eat(',') {
                match (self.peek(), close) {
                    (Some(c), Some(end)) if c == end => {}
                    (None, _) => {}
                    _ => return Err(self.unexpected("where `,` or the end was expected")),
                }
            }
        }
    }

    fn elements(&mut self) -> Result<Vec<Value>, QueryError> {
        let mut a = Vec::new();
        loop {
            if self.eat(']') {
                return Ok(a);
            }
            if self.peek().is_none() {
                return Err(self.whole(format!("the {} ends before its closing `]`", self.what)));
            }
            a.push(self.value()?);
            if !self.eat(',') {
                self.space();
                if self.peek() != Some(']') {
                    return Err(self.unexpected("where `,` or `]` was expected"));
                }
            }
        }
    }

    fn key(&mut self) -> Result<String, QueryError> {
        self.space();
        match self.peek() {
            Some(q @ ('"' | '\'')) => {
                self.pos += 1;
                self.string(q)
            }
            Some(c) if is_ident_start(c) || c.is_ascii_digit() => {
                let start = self.pos;
                while self.peek().is_some_and(|c| is_ident_char(c) || c == '.') {
                    self.pos += 1;
                }
                Ok(self.chars[start..self.pos].iter().collect())
            }
            _ => Err(self.unexpected("where a key was expected")),
        }
    }

    /// A quoted string; the opening quote is read.
    fn string(&mut self, quote: char) -> Result<String, QueryError> {
        let start = self.pos;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                self.pos = start.saturating_sub(1);
                return Err(self.err("has a string that is never closed, starting"));
            };
            self.pos += 1;
            match c {
                c if c == quote => return Ok(out),
                '\\' => {
                    let Some(e) = self.peek() else {
                        return Err(self.whole(format!("the {} ends inside a string", self.what)));
                    };
                    self.pos += 1;
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        '0' => out.push('\0'),
                        'u' => out.push(self.unicode_escape()?),
                        other => out.push(other),
                    }
                }
                c => out.push(c),
            }
        }
    }

    fn unicode_escape(&mut self) -> Result<char, QueryError> {
        let hex = |p: &mut Self| -> Result<u32, QueryError> {
            let digits: String = p.chars.iter().skip(p.pos).take(4).collect();
            if digits.len() != 4 {
                return Err(p.err("has a `\\u` escape without four hex digits"));
            }
            let v = u32::from_str_radix(&digits, 16)
                .map_err(|_| p.err("has a `\\u` escape without four hex digits"))?;
            p.pos += 4;
            Ok(v)
        };
        let first = hex(self)?;
        let code = if (0xD800..0xDC00).contains(&first)
            && self.peek() == Some('\\')
            && self.chars.get(self.pos + 1) == Some(&'u')
        {
            self.pos += 2;
            let low = hex(self)?;
            0x10000 + ((first - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
        } else {
            first
        };
        char::from_u32(code).ok_or_else(|| self.err("has a `\\u` escape that is no character"))
    }

    fn number(&mut self) -> Result<Value, QueryError> {
        let start = self.pos;
        if matches!(self.peek(), Some('-' | '+')) {
            self.pos += 1;
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-'))
        {
            // A sign only right after an exponent.
            if matches!(self.peek(), Some('+' | '-'))
                && !matches!(self.chars.get(self.pos - 1), Some('e' | 'E'))
            {
                break;
            }
            self.pos += 1;
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .filter(|&&c| c != '_')
            .collect();
        let body = text.strip_prefix('+').unwrap_or(&text);
        match body {
            "Infinity" | "-Infinity" => {
                return Ok(wrapper("$numberDouble", Value::String(body.to_owned())))
            }
            _ => {}
        }
        if let Ok(i) = body.parse::<i64>() {
            return Ok(Value::Number(i.into()));
        }
        if let Some(hex) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            if let Ok(i) = i64::from_str_radix(hex, 16) {
                return Ok(Value::Number(i.into()));
            }
        }
        match body.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Number::from_f64(f).map_or(Value::Null, Value::Number)),
            _ => {
                self.pos = start;
                Err(self.err_at(&format!("has `{text}`"), ", which is not a number"))
            }
        }
    }

    /// `/pattern/flags`.
    fn regex(&mut self) -> Result<Value, QueryError> {
        let start = self.pos;
        self.pos += 1;
        let mut pattern = String::new();
        let mut class = false;
        loop {
            let Some(c) = self.peek() else {
                self.pos = start;
                return Err(self.err("has a regular expression that is never closed, starting"));
            };
            self.pos += 1;
            match c {
                '\\' => {
                    pattern.push(c);
                    if let Some(n) = self.peek() {
                        pattern.push(n);
                        self.pos += 1;
                    }
                }
                '[' => {
                    class = true;
                    pattern.push(c);
                }
                ']' => {
                    class = false;
                    pattern.push(c);
                }
                '/' if !class => break,
                c => pattern.push(c),
            }
        }
        let mut flags = Vec::new();
        while let Some(c) = self.peek().filter(char::is_ascii_alphabetic) {
            if !"imsxlu".contains(c) {
                return Err(self.err_at(
                    &format!("has the regular expression flag `{c}`"),
                    "; MongoDB knows i, m, s, x, l and u",
                ));
            }
            flags.push(c);
            self.pos += 1;
        }
        flags.sort_unstable();
        flags.dedup();
        Ok(wrapper(
            "$regularExpression",
            serde_json::json!({"pattern": pattern, "options": flags.into_iter().collect::<String>()}),
        ))
    }

    /// `true`, `false`, `null`, or a constructor such as `ObjectId("…")`.
    fn word(&mut self) -> Result<Value, QueryError> {
        let start = self.pos;
        let mut name = self.ident();
        if name == "new" {
            self.space();
            name = self.ident();
        }
        match name.as_str() {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            "null" | "undefined" => return Ok(Value::Null),
            "Infinity" => return Ok(wrapper("$numberDouble", Value::String("Infinity".into()))),
            "NaN" => return Ok(wrapper("$numberDouble", Value::String("NaN".into()))),
            "MinKey" | "MaxKey" => {
                // `MinKey` and `MinKey()` alike.
                if self.eat('(') {
                    self.expect(')', &format!("after {name}("))?;
                }
                let key = if name == "MinKey" {
                    "$minKey"
                } else {
                    "$maxKey"
                };
                return Ok(wrapper(key, Value::from(1)));
            }
            _ => {}
        }
        if !self.eat('(') {
            self.pos = start;
            return Err(self.err_at(
                &format!("has `{name}`"),
                ", which is not a value; put text in quotes",
            ));
        }
        let mut args = Vec::new();
        loop {
            if self.eat(')') {
                break;
            }
            args.push(self.value()?);
            if !self.eat(',') {
                self.expect(')', &format!("to close {name}("))?;
                break;
            }
        }
        self.constructor(&name, &args, start)
    }

    fn ident(&mut self) -> String {
        let start = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        self.chars[start..self.pos].iter().collect()
    }

    fn constructor(
        &mut self,
        name: &str,
        args: &[Value],
        start: usize,
    ) -> Result<Value, QueryError> {
        let bad = |p: &mut Self, what: &str| {
            p.pos = start;
            Err(p.err_at(&format!("has {name}(…)"), &format!(" with {what}")))
        };
        let text = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        match name {
            "ObjectId" | "ObjectID" => match args {
                [Value::String(s)] if s.len() == 24 && s.chars().all(|c| c.is_ascii_hexdigit()) => {
                    Ok(wrapper("$oid", Value::String(s.clone())))
                }
                _ => bad(self, "something other than 24 hex digits in quotes"),
            },
            "ISODate" | "Date" => match args {
                [] => Ok(wrapper(
                    "$date",
                    wrapper(
                        "$numberLong",
                        Value::String(bson::DateTime::now().timestamp_millis().to_string()),
                    ),
                )),
                [Value::String(s)] => {
                    if crate::source::files::ejson::date_millis(s).is_none() {
                        return bad(self, &format!("`{s}`, which is not an ISO-8601 date"));
                    }
                    Ok(wrapper("$date", Value::String(s.clone())))
                }
                [Value::Number(n)] if n.as_i64().is_some() => Ok(wrapper(
                    "$date",
                    wrapper("$numberLong", Value::String(n.to_string())),
                )),
                _ => bad(self, "something other than a date in quotes"),
            },
            "NumberLong" | "NumberInt" => {
                let Some(t) = args.first().and_then(text).filter(|_| args.len() == 1) else {
                    return bad(self, "something other than one whole number");
                };
                let ok = if name == "NumberLong" {
                    t.parse::<i64>().is_ok()
                } else {
                    t.parse::<i32>().is_ok()
                };
                if !ok {
                    return bad(
                        self,
                        &format!("`{t}`, which is not a whole number in range"),
                    );
                }
                let key = if name == "NumberLong" {
                    "$numberLong"
                } else {
                    "$numberInt"
                };
                Ok(wrapper(key, Value::String(t)))
            }
            "NumberDecimal" | "Decimal128" => {
                match args.first().and_then(text).filter(|_| args.len() == 1) {
                    Some(t) => Ok(wrapper("$numberDecimal", Value::String(t))),
                    None => bad(self, "something other than one number"),
                }
            }
            "UUID" => match args {
                [Value::String(s)] => Ok(wrapper("$uuid", Value::String(s.clone()))),
                _ => bad(self, "something other than a UUID in quotes"),
            },
            "Timestamp" => match args {
                [Value::Number(t), Value::Number(i)] if t.is_u64() && i.is_u64() => {
                    Ok(wrapper("$timestamp", serde_json::json!({"t": t, "i": i})))
                }
                [Value::Object(o)] if o.contains_key("t") && o.contains_key("i") => {
                    Ok(wrapper("$timestamp", Value::Object(o.clone())))
                }
                _ => bad(self, "something other than two whole numbers"),
            },
            "BinData" => match args {
                [Value::Number(sub), Value::String(b64)]
                    if sub.as_u64().is_some_and(|s| s < 256) =>
                {
                    Ok(wrapper(
                        "$binary",
                        serde_json::json!({"base64": b64, "subType": format!("{:02x}", sub.as_u64().unwrap_or(0))}),
                    ))
                }
                _ => bad(self, "something other than a subtype and base64 text"),
            },
            _ => {
                self.pos = start;
                Err(self.err_at(
                    &format!("calls `{name}(…)`"),
                    ", which is not one of ObjectId, ISODate, Date, NumberLong, NumberInt, NumberDecimal, UUID, Timestamp, BinData",
                ))
            }
        }
    }
}

/// Parses `input` as the five parts of a query, one a line, and runs
/// what parses over a few documents: for the fuzz target and its
/// regression test. It must return, whatever the input.
pub fn check_input(input: &str) {
    let mut lines = input.splitn(5, '\n').map(str::to_owned);
    let mut next = || lines.next().unwrap_or_default();
    let text = QueryText {
        filter: next(),
        sort: next(),
        projection: next(),
        skip: next(),
        limit: next(),
    };
    let _ = text.summary();
    let Ok(q) = text.parse() else { return };
    let Ok(m) = super::matcher::Matcher::new(&q.filter) else {
        return;
    };
    let docs = [
        bson::doc! {"_id": 1, "status": "A", "a": [1, {"b": {"c": 2}}, "x"], "d": {"e": [3, 4]}},
        bson::doc! {"_id": 2, "at": bson::DateTime::from_millis(0), "n": 5_i64, "t": null},
        q.filter.clone(),
    ];
    let mut hits: Vec<Document> = docs.iter().filter(|d| m.matches(d)).cloned().collect();
    if let Some(s) = &q.sort {
        hits.sort_by(super::matcher::sort_order(s));
    }
    if let Some(p) = &q.projection {
        for d in &hits {
            let _ = super::matcher::project(d, p);
        }
    }
}

fn wrapper(key: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(key.to_owned(), v);
    Value::Object(m)
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_' || c == '$'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, oid::ObjectId, Regex};

    fn parse(s: &str) -> Document {
        match parse_document(s, "filter") {
            Ok(d) => d,
            Err(e) => panic!("{s}: {e}"),
        }
    }

    fn error(s: &str) -> String {
        match parse_document(s, "filter") {
            Ok(d) => panic!("{s} parsed as {d}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn an_error_names_its_part_and_column() {
        let e = parse_document("{a: 1 b: 2}", "filter").expect_err("an error");
        assert_eq!((e.part.as_str(), e.column), ("filter", Some(7)), "{e}");
        assert!(e.to_string().ends_with("at column 7"), "{e}");
        let e = parse_document("{a: ", "projection").expect_err("an error");
        assert_eq!((e.part.as_str(), e.column), ("projection", None), "{e}");
        let e = QueryText {
            sort: "{at: 2}".into(),
            ..QueryText::default()
        }
        .parse()
        .expect_err("an error");
        assert_eq!((e.part.as_str(), e.column), ("sort", None), "{e}");
    }

    #[test]
    fn reads_extended_json() {
        assert_eq!(parse(r#"{"status": "A"}"#), doc! {"status": "A"});
        assert_eq!(
            parse(r#"{"_id": {"$oid": "65a1b2c3d4e5f60718293a4b"}}"#),
            doc! {"_id": ObjectId::parse_str("65a1b2c3d4e5f60718293a4b").expect("a value")}
        );
        assert_eq!(parse(r#"{"n": {"$numberLong": "5"}}"#), doc! {"n": 5_i64});
        let d = parse(r#"{"at": {"$gte": {"$date": "2026-01-01T00:00:00Z"}}}"#);
        let at = d
            .get_document("at")
            .expect("a value")
            .get_datetime("$gte")
            .expect("a value");
        assert_eq!(at.timestamp_millis(), 1_767_225_600_000);
    }

    #[test]
    fn reads_mongosh_syntax() {
        let d = parse(r#"{status: 'A', at: {$gte: ISODate("2026-01-01")},}"#);
        assert_eq!(d.get_str("status").expect("a value"), "A");
        let at = d
            .get_document("at")
            .expect("a value")
            .get_datetime("$gte")
            .expect("a value");
        assert_eq!(at.timestamp_millis(), 1_767_225_600_000);
        assert_eq!(
            parse(r#"{_id: ObjectId("65a1b2c3d4e5f60718293a4b")}"#),
            doc! {"_id": ObjectId::parse_str("65a1b2c3d4e5f60718293a4b").expect("a value")}
        );
        assert_eq!(
            parse("{n: NumberLong(42), m: NumberLong('-7'), i: NumberInt(3)}"),
            doc! {"n": 42_i64, "m": -7_i64, "i": 3}
        );
        assert_eq!(
            parse("{name: /^ab\\/c[/]/im}"),
            doc! {"name": Regex { pattern: bson::raw::cstr!("^ab\\/c[/]").into(), options: bson::raw::cstr!("im").into() }}
        );
        assert_eq!(
            parse("{'a.b': {$in: [1, 2.5, 'x', null, true,]}, c: {$exists: false}}"),
            doc! {"a.b": {"$in": [1, 2.5, "x", null, true]}, "c": {"$exists": false}}
        );
        assert_eq!(
            parse("{$or: [{a: 1}, {b: {$ne: -2}}]}"),
            doc! {"$or": [{"a": 1}, {"b": {"$ne": -2}}]}
        );
        let d = parse("{at: new Date(0)}");
        assert_eq!(d.get_datetime("at").expect("a value").timestamp_millis(), 0);
        assert_eq!(
            parse("{x: 1e3, y: 0x10, z: 1_000}"),
            doc! {"x": 1000.0, "y": 16, "z": 1000}
        );
        assert_eq!(parse("{s: \"\\u00e9\\n\"}"), doc! {"s": "é\n"});
        assert_eq!(parse("{k: MinKey, l: MaxKey()}").len(), 2);
        assert!(parse("{d: NumberDecimal('1.5')}").get("d").is_some());
        assert!(matches!(
            parse("{ts: Timestamp(5, 1)}").get("ts"),
            Some(Bson::Timestamp(_))
        ));
        assert!(matches!(
            parse("{u: UUID('0e0e2c2a-66b4-4a8e-9e9e-1f1f3f3f5f5f')}").get("u"),
            Some(Bson::Binary(_))
        ));
    }

    #[test]
    fn braces_may_be_left_out_and_empty_is_everything() {
        assert_eq!(
            parse("status: 'A', qty: {$gt: 5}"),
            doc! {"status": "A", "qty": {"$gt": 5}}
        );
        assert_eq!(parse(""), doc! {});
        assert_eq!(parse("  {}  "), doc! {});
        assert_eq!(parse("{ 名前: '值' }"), doc! {"名前": "值"});
    }

    #[test]
    fn bad_input_is_one_sentence_with_a_place() {
        for (input, wanted) in [
            ("{status: }", "unexpected `}`"),
            ("{status: 'A'", "ends before its closing `}`"),
            ("{status: 'A}", "never closed"),
            ("{a: ObjectId('xyz')}", "24 hex digits"),
            ("{a: ISODate('yesterday')}", "not an ISO-8601 date"),
            ("{a: Foo(1)}", "not one of ObjectId"),
            ("{a: active}", "put text in quotes"),
            ("{a: /x/q}", "flag `q`"),
            ("{a: 1} x", "after the closing brace"),
            ("{a 1}", "`:` was expected"),
            ("{a: 1 b: 2}", "`,` or the end"),
            ("{a: [1 2]}", "`,` or `]`"),
            ("{a: NumberLong('x')}", "not a whole number"),
            ("{a: 1.2.3}", "not a number"),
            ("{a: /never", "never closed"),
            ("[1, 2]", "unexpected `[`"),
        ] {
            let e = error(input);
            assert!(e.contains(wanted), "{input}: {e}");
            assert!(e.starts_with("the filter"), "{input}: {e}");
            assert!(!e.contains('\n'), "{input}: {e}");
        }
        assert!(error("{a: 1} x").contains("column 8"));
    }

    #[test]
    fn hostile_input_never_panics() {
        let deep = "{a:".repeat(10_000);
        assert!(error(&deep).contains("deeper"));
        let arrays = format!("{{a: {}}}", "[".repeat(10_000));
        assert!(error(&arrays).contains("deeper"));
        for s in [
            "{",
            "}",
            "{:}",
            "{'",
            "{a:'\\",
            "{a:\"\\u12",
            "{a: -}",
            "{a: new}",
            "{a: new (}",
            "{a: ObjectId(}",
            "{a: /[/}",
            "{a: 1,,}",
            "{,}",
            "\u{0}",
            "{a: \"\\ud800\"}",
            "{a: BinData(999, 'x')}",
            "{a: Timestamp(-1, 2)}",
            "{$date: 'x'}",
        ] {
            let _ = parse_document(s, "filter");
        }
    }

    #[test]
    fn whole_queries() {
        let q = QueryText {
            filter: "{qty: {$gt: 5}}".into(),
            sort: "{at: -1, _id: 1}".into(),
            projection: "{qty: 1, _id: 0}".into(),
            skip: "20".into(),
            limit: "10".into(),
        }
        .parse()
        .expect("a value");
        assert_eq!(q.filter, doc! {"qty": {"$gt": 5}});
        assert_eq!(q.sort, Some(doc! {"at": -1, "_id": 1}));
        assert_eq!(q.projection, Some(doc! {"qty": 1, "_id": 0}));
        assert_eq!((q.skip, q.limit), (20, Some(10)));
        let q = QueryText::filter("").parse().expect("a value");
        assert_eq!(q, Query::default());
        let sort = QueryText {
            sort: "{at: 2}".into(),
            ..QueryText::default()
        };
        assert!(sort
            .parse()
            .expect_err("an error")
            .to_string()
            .contains("1 (ascending)"));
        let skip = QueryText {
            skip: "ten".into(),
            ..QueryText::default()
        };
        assert_eq!(
            skip.parse().expect_err("an error").to_string(),
            "the skip must be a whole number of documents, not `ten`"
        );
        let proj = QueryText {
            projection: "{a: }".into(),
            ..QueryText::default()
        };
        assert!(proj
            .parse()
            .expect_err("an error")
            .to_string()
            .starts_with("the projection"));
        let t = QueryText {
            filter: "{a: 1}".into(),
            limit: "5".into(),
            ..QueryText::default()
        };
        assert_eq!(t.summary(), "{a: 1} limit 5");
    }
}
