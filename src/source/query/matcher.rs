//! A query run over documents on this machine, as files are scanned: the
//! common filter operators (`$eq`, `$ne`, `$gt`/`$gte`/`$lt`/`$lte`,
//! `$in`/`$nin`, `$exists`, `$regex`, `$not`, `$size`, `$all`,
//! `$elemMatch`, `$and`/`$or`/`$nor`) on dotted paths, where an array
//! matches when any element does, as the server matches; a sort in BSON's
//! order of types; a projection. Pure. An operator it does not know is an
//! error naming it, never a silent miss.

use std::cmp::Ordering;

use bson::{Bson, Document};

/// A compiled filter.
#[derive(Debug)]
pub struct Matcher {
    root: Vec<Clause>,
}

#[derive(Debug)]
enum Clause {
    And(Vec<Vec<Clause>>),
    Or(Vec<Vec<Clause>>),
    Nor(Vec<Vec<Clause>>),
    Field(Vec<String>, Vec<Cond>),
}

#[derive(Debug)]
enum Cond {
    Eq(Bson),
    Ne(Bson),
    Cmp(Ordering, bool, Bson),
    In(Vec<Pattern>),
    Nin(Vec<Pattern>),
    Exists(bool),
    Regex(regex_lite::Regex),
    Not(Vec<Cond>),
    Size(usize),
    All(Vec<Pattern>),
    ElemMatch(Box<Elem>),
}

/// `$elemMatch` on documents (a filter) or on values (conditions).
#[derive(Debug)]
enum Elem {
    Filter(Vec<Clause>),
    Conds(Vec<Cond>),
}

#[derive(Debug)]
enum Pattern {
    Value(Bson),
    Regex(regex_lite::Regex),
}

impl Matcher {
    pub fn new(filter: &Document) -> Result<Matcher, FilterError> {
        Ok(Matcher {
            root: clauses(filter)?,
        })
    }

    pub fn matches(&self, doc: &Document) -> bool {
        all(&self.root, doc)
    }
}

fn clauses(filter: &Document) -> Result<Vec<Clause>, FilterError> {
    let mut out = Vec::new();
    for (k, v) in filter {
        let list = |v: &Bson| -> Result<Vec<Vec<Clause>>, FilterError> {
            match v {
                Bson::Array(a) if !a.is_empty() => a
                    .iter()
                    .map(|b| match b {
                        Bson::Document(d) => clauses(d),
                        _ => Err(FilterError::takes(k, "a list of documents")),
                    })
                    .collect(),
                _ => Err(FilterError::takes(k, "a non-empty list of documents")),
            }
        };
        out.push(match k.as_str() {
            "$and" => Clause::And(list(v)?),
            "$or" => Clause::Or(list(v)?),
            "$nor" => Clause::Nor(list(v)?),
            "$comment" => continue,
            op if op.starts_with('$') => return Err(unsupported(op)),
            path => Clause::Field(path.split('.').map(str::to_owned).collect(), conds(v)?),
        });
    }
    Ok(out)
}

fn unsupported(op: &str) -> FilterError {
    FilterError::Unsupported(op.to_owned())
}

/// Why a filter cannot be run over a file's documents (its `Display` is
/// the sentence for the user).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FilterError {
    /// An operator only a server runs (`$where`, `$text` …).
    Unsupported(String),
    /// An operator given a value it cannot take, and what it takes.
    Argument {
        operator: String,
        takes: &'static str,
    },
    /// A regular expression that cannot be compiled.
    Regex { pattern: String, reason: String },
}

impl FilterError {
    fn takes(operator: &str, takes: &'static str) -> FilterError {
        FilterError::Argument {
            operator: operator.to_owned(),
            takes,
        }
    }
}

impl std::fmt::Display for FilterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FilterError::Unsupported(op) => {
                write!(
                    f,
                    "the file scan does not know the operator {op}; a server does"
                )
            }
            FilterError::Argument { operator, takes } => write!(f, "{operator} takes {takes}"),
            FilterError::Regex { pattern, reason } => {
                write!(
                    f,
                    "the regular expression /{pattern}/ cannot be read: {reason}"
                )
            }
        }
    }
}

impl std::error::Error for FilterError {}

/// Whether `v` is an operator document (`{$gt: 1}`) rather than a value.
fn is_operators(v: &Bson) -> Option<&Document> {
    match v {
        Bson::Document(d) if d.keys().next().is_some_and(|k| k.starts_with('$')) => Some(d),
        _ => None,
    }
}

fn conds(v: &Bson) -> Result<Vec<Cond>, FilterError> {
    let Some(ops) = is_operators(v) else {
        return Ok(vec![match v {
            Bson::RegularExpression(r) => {
                Cond::Regex(regex(r.pattern.as_str(), r.options.as_str())?)
            }
            other => Cond::Eq(other.clone()),
        }]);
    };
    let mut out = Vec::new();
    let options = ops.get_str("$options").unwrap_or("");
    for (op, arg) in ops {
        let list = || match arg {
            Bson::Array(a) => a.iter().map(pattern).collect::<Result<Vec<_>, _>>(),
            _ => Err(FilterError::takes(op, "a list")),
        };
        out.push(match op.as_str() {
            "$eq" => Cond::Eq(arg.clone()),
            "$ne" => Cond::Ne(arg.clone()),
            "$gt" => Cond::Cmp(Ordering::Greater, false, arg.clone()),
            "$gte" => Cond::Cmp(Ordering::Greater, true, arg.clone()),
            "$lt" => Cond::Cmp(Ordering::Less, false, arg.clone()),
            "$lte" => Cond::Cmp(Ordering::Less, true, arg.clone()),
            "$in" => Cond::In(list()?),
            "$nin" => Cond::Nin(list()?),
            "$all" => Cond::All(list()?),
            "$exists" => Cond::Exists(truthy(arg)),
            "$regex" => match arg {
                Bson::String(p) => Cond::Regex(regex(p, options)?),
                Bson::RegularExpression(r) => {
                    let o = if options.is_empty() {
                        r.options.as_str()
                    } else {
                        options
                    };
                    Cond::Regex(regex(r.pattern.as_str(), o)?)
                }
                _ => return Err(FilterError::takes("$regex", "a string")),
            },
            "$options" => continue,
            "$not" => match arg {
                Bson::RegularExpression(r) => Cond::Not(vec![Cond::Regex(regex(
                    r.pattern.as_str(),
                    r.options.as_str(),
                )?)]),
                Bson::Document(_) if is_operators(arg).is_some() => Cond::Not(conds(arg)?),
                _ => {
                    return Err(FilterError::takes(
                        "$not",
                        "an operator document or a regular expression",
                    ))
                }
            },
            "$size" => {
                match crate::source::bson_as_i64(arg).and_then(|n| usize::try_from(n).ok()) {
                    Some(n) => Cond::Size(n),
                    None => return Err(FilterError::takes("$size", "a whole number")),
                }
            }
            "$elemMatch" => match arg {
                Bson::Document(d) => Cond::ElemMatch(Box::new(
                    if is_operators(arg).is_some()
                        && !d
                            .keys()
                            .any(|k| matches!(k.as_str(), "$and" | "$or" | "$nor"))
                    {
                        Elem::Conds(conds(arg)?)
                    } else {
                        Elem::Filter(clauses(d)?)
                    },
                )),
                _ => return Err(FilterError::takes("$elemMatch", "a document")),
            },
            other => return Err(unsupported(other)),
        });
    }
    Ok(out)
}

fn pattern(b: &Bson) -> Result<Pattern, FilterError> {
    Ok(match b {
        Bson::RegularExpression(r) => {
            Pattern::Regex(regex(r.pattern.as_str(), r.options.as_str())?)
        }
        other => Pattern::Value(other.clone()),
    })
}

fn truthy(b: &Bson) -> bool {
    match b {
        Bson::Boolean(x) => *x,
        Bson::Null | Bson::Undefined => false,
        other => crate::source::bson_as_i64(other).is_none_or(|n| n != 0),
    }
}

fn regex(pattern: &str, options: &str) -> Result<regex_lite::Regex, FilterError> {
    let flags: String = options.chars().filter(|c| "imsx".contains(*c)).collect();
    let full = if flags.is_empty() {
        pattern.to_owned()
    } else {
        format!("(?{flags}){pattern}")
    };
    regex_lite::Regex::new(&full).map_err(|e| FilterError::Regex {
        pattern: pattern.to_owned(),
        reason: e.to_string(),
    })
}

fn all(clauses: &[Clause], doc: &Document) -> bool {
    clauses.iter().all(|c| clause(c, doc))
}

fn clause(c: &Clause, doc: &Document) -> bool {
    match c {
        Clause::And(l) => l.iter().all(|cs| all(cs, doc)),
        Clause::Or(l) => l.iter().any(|cs| all(cs, doc)),
        Clause::Nor(l) => !l.iter().any(|cs| all(cs, doc)),
        Clause::Field(path, conds) => {
            let found = resolve(doc, path);
            conds.iter().all(|c| cond(c, &found))
        }
    }
}

/// One value a dotted path reaches, as the server's matcher sees it.
#[derive(Clone, Copy)]
enum Reached<'a> {
    /// The path ends in no value here (a missing field, a field of a
    /// scalar, an index past an array's end).
    Missing,
    /// A value; `positional` when an array was reached by its index in an
    /// array (`a.0` over `[[1, 2]]`): such an array is not looked into for
    /// its elements, as the server does not.
    Value { v: &'a Bson, positional: bool },
}

/// What a dotted path reaches in a document.
struct Found<'a> {
    values: Vec<Reached<'a>>,
}

impl<'a> Found<'a> {
    fn present(&self) -> impl Iterator<Item = &'a Bson> + '_ {
        self.values.iter().filter_map(|r| match r {
            Reached::Value { v, .. } => Some(*v),
            Reached::Missing => None,
        })
    }

    /// Each value, and each element of an array value that may be looked
    /// into (`descend`, not reached by index): what `$eq`, the
    /// comparisons and `$regex` look at. A missing value is `None`.
    fn candidates(&self, descend: bool) -> impl Iterator<Item = Option<&'a Bson>> + '_ {
        self.values.iter().flat_map(move |r| {
            let (one, elems): (Option<&'a Bson>, &'a [Bson]) = match *r {
                Reached::Missing => (None, &[]),
                Reached::Value { v, positional } => match v {
                    Bson::Array(a) if descend && !positional => (Some(v), a.as_slice()),
                    _ => (Some(v), &[]),
                },
            };
            std::iter::once(one).chain(elems.iter().map(Some))
        })
    }
}

/// Every value `path` reaches. A field over an array is read in each of
/// its documents (a document without it reaches nothing there: missing); a
/// number over an array is both readings, the element at that index and
/// the field of that name in each document element, as the server reads
/// it.
fn resolve<'a>(doc: &'a Document, path: &[String]) -> Found<'a> {
    let field = |d: &'a Document, seg: &str| match d.get(seg) {
        Some(v) => Reached::Value {
            v,
            positional: false,
        },
        None => Reached::Missing,
    };
    let mut current: Vec<Reached<'a>> = Vec::new();
    let Some((first, rest)) = path.split_first() else {
        return Found { values: current };
    };
    current.push(field(doc, first));
    for seg in rest {
        let index = seg
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| seg.parse::<usize>().ok());
        let mut next = Vec::with_capacity(current.len());
        for r in &current {
            match *r {
                Reached::Value {
                    v: Bson::Document(d),
                    ..
                } => next.push(field(d, seg)),
                Reached::Value {
                    v: Bson::Array(a), ..
                } => {
                    if let Some(i) = index {
                        next.push(match i.and_then(|i| a.get(i)) {
                            Some(v) => Reached::Value {
                                v,
                                positional: matches!(v, Bson::Array(_)),
                            },
                            None => Reached::Missing,
                        });
                    }
                    for e in a {
                        if let Bson::Document(d) = e {
                            next.push(field(d, seg));
                        }
                    }
                }
                _ => next.push(Reached::Missing),
            }
        }
        current = next;
    }
    Found { values: current }
}

fn cond(c: &Cond, found: &Found<'_>) -> bool {
    cond_in(c, found, true)
}

/// `c` over what a path reached; `descend` is false for an element
/// `$elemMatch` chose, which is not looked into again.
fn cond_in(c: &Cond, found: &Found<'_>, descend: bool) -> bool {
    match c {
        Cond::Eq(x) => eq(found, x, descend),
        Cond::Ne(x) => !eq(found, x, descend),
        // `$gte`/`$lte` null are `$eq` null: null orders equal only to
        // null, and a missing field is null.
        Cond::Cmp(_, true, Bson::Null) => eq(found, &Bson::Null, descend),
        Cond::Cmp(dir, or_equal, x) => found.candidates(descend).any(|v| {
            let v = v.unwrap_or(&Bson::Null);
            in_range_bracket(v, x)
                && match compare(v, x) {
                    Ordering::Equal => *or_equal,
                    o => o == *dir,
                }
        }),
        Cond::In(ps) => ps.iter().any(|p| matches_pattern(found, p, descend)),
        Cond::Nin(ps) => !ps.iter().any(|p| matches_pattern(found, p, descend)),
        Cond::Exists(want) => (found.present().next().is_some()) == *want,
        Cond::Regex(r) => regex_any(found, r, descend),
        Cond::Not(cs) => !cs.iter().all(|c| cond_in(c, found, descend)),
        Cond::Size(n) => found
            .present()
            .any(|v| matches!(v, Bson::Array(a) if a.len() == *n)),
        // Each value on its own must hold every one; an array holds one
        // when it or (looked into) an element equals it.
        Cond::All(ps) => {
            !ps.is_empty()
                && found.values.iter().any(|r| {
                    let one = Found { values: vec![*r] };
                    matches!(r, Reached::Value { .. })
                        && ps.iter().all(|p| matches_pattern(&one, p, descend))
                })
        }
        Cond::ElemMatch(e) => found.present().any(|v| {
            let Bson::Array(a) = v else { return false };
            a.iter().any(|el| match (&**e, el) {
                (Elem::Filter(cs), Bson::Document(d)) => all(cs, d),
                (Elem::Filter(cs), Bson::Array(_)) => cs.is_empty(),
                (Elem::Filter(_), _) => false,
                (Elem::Conds(cs), el) => {
                    let one = Found {
                        values: vec![Reached::Value {
                            v: el,
                            positional: false,
                        }],
                    };
                    cs.iter().all(|c| cond_in(c, &one, false))
                }
            })
        }),
    }
}

fn regex_any(found: &Found<'_>, r: &regex_lite::Regex, descend: bool) -> bool {
    found.candidates(descend).flatten().any(|v| match v {
        Bson::String(s) | Bson::Symbol(s) => r.is_match(s),
        _ => false,
    })
}

fn matches_pattern(found: &Found<'_>, p: &Pattern, descend: bool) -> bool {
    match p {
        Pattern::Value(x) => eq(found, x, descend),
        Pattern::Regex(r) => regex_any(found, r, descend),
    }
}

/// Equality as the server sees it: `null` also matches a missing value,
/// numbers of any type compare by value, an array matches when it or (not
/// reached by index) any element equals the value.
fn eq(found: &Found<'_>, x: &Bson, descend: bool) -> bool {
    found.candidates(descend).any(|v| match v {
        None => matches!(x, Bson::Null),
        Some(v) => equal(v, x),
    })
}

fn equal(v: &Bson, x: &Bson) -> bool {
    comparable(v, x) && compare(v, x) == Ordering::Equal
}

/// BSON's order of types for comparing and sorting; numbers share one.
fn rank(v: &Bson) -> u8 {
    match v {
        Bson::MinKey => 0,
        Bson::Null | Bson::Undefined => 1,
        Bson::Int32(_) | Bson::Int64(_) | Bson::Double(_) | Bson::Decimal128(_) => 2,
        Bson::String(_) | Bson::Symbol(_) => 3,
        Bson::Document(_) => 4,
        Bson::Array(_) => 5,
        Bson::Binary(_) => 6,
        Bson::ObjectId(_) => 7,
        Bson::Boolean(_) => 8,
        Bson::DateTime(_) => 9,
        Bson::Timestamp(_) => 10,
        Bson::RegularExpression(_) => 11,
        Bson::JavaScriptCode(_) | Bson::JavaScriptCodeWithScope(_) | Bson::DbPointer(_) => 12,
        Bson::MaxKey => 13,
    }
}

/// A query compares values of one type class only (`{a: {$gt: 5}}` never
/// matches a string).
fn comparable(a: &Bson, b: &Bson) -> bool {
    rank(a) == rank(b)
}

/// A range bound of `MinKey` or `MaxKey` compares with every type; any
/// other bound only with its own.
fn in_range_bracket(v: &Bson, bound: &Bson) -> bool {
    matches!(bound, Bson::MinKey | Bson::MaxKey) || comparable(v, bound)
}

fn number(v: &Bson) -> f64 {
    match v {
        Bson::Int32(x) => f64::from(*x),
        Bson::Int64(x) => *x as f64,
        Bson::Double(x) => *x,
        Bson::Decimal128(d) => d.to_string().parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}

/// Total order on BSON values, types first.
#[allow(clippy::many_single_char_names)]
pub(crate) fn compare(a: &Bson, b: &Bson) -> Ordering {
    let (ra, rb) = (rank(a), rank(b));
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (Bson::Int32(x), Bson::Int32(y)) => x.cmp(y),
        (Bson::Int64(x), Bson::Int64(y)) => x.cmp(y),
        _ if ra == 2 => number(a).total_cmp(&number(b)),
        (Bson::String(x) | Bson::Symbol(x), Bson::String(y) | Bson::Symbol(y)) => x.cmp(y),
        (Bson::Document(x), Bson::Document(y)) => {
            let mut ix = x.iter();
            let mut iy = y.iter();
            loop {
                match (ix.next(), iy.next()) {
                    (None, None) => return Ordering::Equal,
                    (None, Some(_)) => return Ordering::Less,
                    (Some(_), None) => return Ordering::Greater,
                    (Some((kx, vx)), Some((ky, vy))) => {
                        let o = compare(vx, vy).then_with(|| kx.cmp(ky));
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                }
            }
        }
        (Bson::Array(x), Bson::Array(y)) => {
            for (vx, vy) in x.iter().zip(y) {
                let o = compare(vx, vy);
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        (Bson::Binary(x), Bson::Binary(y)) => x
            .bytes
            .len()
            .cmp(&y.bytes.len())
            .then(u8::from(x.subtype).cmp(&u8::from(y.subtype)))
            .then_with(|| x.bytes.cmp(&y.bytes)),
        (Bson::ObjectId(x), Bson::ObjectId(y)) => x.bytes().cmp(&y.bytes()),
        (Bson::Boolean(x), Bson::Boolean(y)) => x.cmp(y),
        (Bson::DateTime(x), Bson::DateTime(y)) => x.cmp(y),
        (Bson::Timestamp(x), Bson::Timestamp(y)) => {
            (x.time, x.increment).cmp(&(y.time, y.increment))
        }
        (Bson::RegularExpression(x), Bson::RegularExpression(y)) => {
            (x.pattern.as_str(), x.options.as_str()).cmp(&(y.pattern.as_str(), y.options.as_str()))
        }
        _ => Ordering::Equal,
    }
}

/// The value a document sorts by at `path`: for an array, its smallest
/// element ascending and its largest descending, as the server sorts.
fn sort_key<'a>(doc: &'a Document, path: &[String], ascending: bool) -> Option<&'a Bson> {
    let found = resolve(doc, path);
    let mut keys: Vec<&Bson> = found
        .present()
        .flat_map(|v| match v {
            Bson::Array(a) if !a.is_empty() => a.iter().collect::<Vec<_>>(),
            other => vec![other],
        })
        .collect();
    keys.sort_by(|a, b| compare(a, b));
    if ascending {
        keys.first().copied()
    } else {
        keys.last().copied()
    }
}

/// Orders documents by `sort` (`{field: 1 | -1, …}`); a missing field
/// sorts as `null`.
pub(crate) fn sort_order(sort: &Document) -> impl Fn(&Document, &Document) -> Ordering + '_ {
    let keys: Vec<(Vec<String>, bool)> = sort
        .iter()
        .map(|(k, v)| {
            (
                k.split('.').map(str::to_owned).collect(),
                crate::source::bson_as_i64(v) != Some(-1),
            )
        })
        .collect();
    move |a, b| {
        for (path, asc) in &keys {
            let ka = sort_key(a, path, *asc).unwrap_or(&Bson::Null);
            let kb = sort_key(b, path, *asc).unwrap_or(&Bson::Null);
            let o = compare(ka, kb);
            let o = if *asc { o } else { o.reverse() };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// A projection applied: `{a: 1, "b.c": 1}` keeps those (and `_id` unless
/// `_id: 0`), `{a: 0}` drops them.
pub(crate) fn project(doc: &Document, projection: &Document) -> Document {
    let include = projection
        .iter()
        .filter(|(k, _)| k.as_str() != "_id")
        .any(|(_, v)| truthy(v));
    let id_shown = projection.get("_id").is_none_or(truthy);
    if include {
        let mut out = Document::new();
        if id_shown {
            if let Some(id) = doc.get("_id") {
                out.insert("_id", id.clone());
            }
        }
        for (k, v) in projection {
            if k != "_id" && truthy(v) {
                let path: Vec<&str> = k.split('.').collect();
                copy_path(doc, &path, &mut out);
            }
        }
        out
    } else {
        let mut out = doc.clone();
        for (k, v) in projection {
            if !truthy(v) {
                let path: Vec<&str> = k.split('.').collect();
                drop_path(&mut out, &path);
            }
        }
        out
    }
}

fn copy_path(from: &Document, path: &[&str], to: &mut Document) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let Some(v) = from.get(*first) else { return };
    if rest.is_empty() {
        to.insert(*first, v.clone());
        return;
    }
    match v {
        Bson::Document(inner) => {
            if !matches!(to.get(*first), Some(Bson::Document(_))) {
                to.insert(*first, Document::new());
            }
            if let Some(Bson::Document(t)) = to.get_mut(*first) {
                copy_path(inner, rest, t);
            }
        }
        Bson::Array(items) => {
            let projected: Vec<Bson> = items
                .iter()
                .filter_map(|e| match e {
                    Bson::Document(d) => {
                        let mut t = Document::new();
                        copy_path(d, rest, &mut t);
                        Some(Bson::Document(t))
                    }
                    _ => None,
                })
                .collect();
            to.insert(*first, projected);
        }
        _ => {}
    }
}

fn drop_path(doc: &mut Document, path: &[&str]) {
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    if rest.is_empty() {
        doc.remove(*first);
        return;
    }
    match doc.get_mut(*first) {
        Some(Bson::Document(inner)) => drop_path(inner, rest),
        Some(Bson::Array(items)) => {
            for e in items {
                if let Bson::Document(d) = e {
                    drop_path(d, rest);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::query::parse::parse_document;
    use bson::doc;

    fn m(filter: &str, d: &Document) -> bool {
        let f = parse_document(filter, "filter").expect("a value");
        Matcher::new(&f).expect("a value").matches(d)
    }

    #[test]
    fn operators_match_as_the_server_does() {
        let d = doc! {
            "_id": 1, "status": "A", "qty": 15, "price": 2.5,
            "tags": ["red", "blank"], "size": {"h": 14, "uom": "cm"},
            "items": [{"sku": "a", "n": 1}, {"sku": "b", "n": 5}],
            "nothing": null,
        };
        for (filter, want) in [
            ("{}", true),
            ("{status: 'A'}", true),
            ("{status: 'B'}", false),
            ("{qty: 15.0}", true),
            ("{qty: NumberLong(15)}", true),
            ("{qty: {$gt: 10, $lte: 15}}", true),
            ("{qty: {$gt: 15}}", false),
            ("{qty: {$gt: '1'}}", false),
            ("{status: {$gte: 'A', $lt: 'B'}}", true),
            ("{status: {$ne: 'A'}}", false),
            ("{missing: {$ne: 1}}", true),
            ("{qty: {$in: [1, 15]}}", true),
            ("{qty: {$nin: [1, 15]}}", false),
            ("{status: {$in: [/^a/i]}}", true),
            ("{tags: 'red'}", true),
            ("{tags: ['red', 'blank']}", true),
            ("{tags: {$all: ['blank', 'red']}}", true),
            ("{tags: {$size: 2}}", true),
            ("{'tags.1': 'blank'}", true),
            ("{'size.h': {$lt: 15}}", true),
            ("{'size.uom': 'in'}", false),
            ("{'items.sku': 'b'}", true),
            ("{'items.n': {$gt: 4}}", true),
            ("{items: {$elemMatch: {sku: 'a', n: {$gt: 2}}}}", false),
            ("{items: {$elemMatch: {sku: 'b', n: {$gt: 2}}}}", true),
            ("{qty: {$not: {$gt: 20}}}", true),
            ("{status: /^a$/i}", true),
            ("{status: {$regex: '^a', $options: 'i'}}", true),
            ("{status: {$regex: '^a'}}", false),
            ("{missing: {$exists: false}}", true),
            ("{nothing: {$exists: true}}", true),
            ("{nothing: null}", true),
            ("{missing: null}", true),
            ("{qty: null}", false),
            ("{$or: [{qty: 1}, {status: 'A'}]}", true),
            ("{$and: [{qty: 15}, {status: 'B'}]}", false),
            ("{$nor: [{qty: 1}]}", true),
            ("{size: {h: 14, uom: 'cm'}}", true),
            ("{size: {uom: 'cm', h: 14}}", false),
        ] {
            assert_eq!(m(filter, &d), want, "{filter}");
        }
    }

    #[test]
    fn unknown_operators_are_named() {
        let f = doc! {"$where": "1"};
        let e = Matcher::new(&f).expect_err("an error");
        assert_eq!(e, FilterError::Unsupported("$where".into()));
        assert!(e.to_string().contains("$where"), "{e}");
        let f = doc! {"a": {"$near": [0, 0]}};
        assert_eq!(
            Matcher::new(&f).expect_err("an error"),
            FilterError::Unsupported("$near".into())
        );
        let f = doc! {"a": {"$regex": "("}};
        let e = Matcher::new(&f).expect_err("an error");
        assert!(
            matches!(&e, FilterError::Regex { pattern, .. } if pattern == "("),
            "{e:?}"
        );
        assert!(e.to_string().contains("cannot be read"), "{e}");
        let f = doc! {"$or": 1};
        let e = Matcher::new(&f).expect_err("an error");
        assert!(
            matches!(&e, FilterError::Argument { operator, .. } if operator == "$or"),
            "{e:?}"
        );
    }

    #[test]
    fn sorts_by_type_then_value() {
        let mut docs = [
            doc! {"_id": 1, "a": "x"},
            doc! {"_id": 2, "a": 3},
            doc! {"_id": 3},
            doc! {"_id": 4, "a": 1.5},
            doc! {"_id": 5, "a": [10, 0]},
        ];
        let s = doc! {"a": 1, "_id": 1};
        docs.sort_by(sort_order(&s));
        let ids: Vec<i32> = docs
            .iter()
            .map(|d| d.get_i32("_id").expect("a value"))
            .collect();
        assert_eq!(ids, [3, 5, 4, 2, 1]);
        let s = doc! {"a": -1};
        docs.sort_by(sort_order(&s));
        let ids: Vec<i32> = docs
            .iter()
            .map(|d| d.get_i32("_id").expect("a value"))
            .collect();
        assert_eq!(ids, [1, 5, 2, 4, 3]);
    }

    #[test]
    fn projects_in_and_out() {
        let d = doc! {"_id": 1, "a": 1, "b": {"c": 2, "d": 3}, "e": [{"f": 1, "g": 2}]};
        assert_eq!(project(&d, &doc! {"a": 1}), doc! {"_id": 1, "a": 1});
        assert_eq!(
            project(&d, &doc! {"b.c": 1, "e.g": 1, "_id": 0}),
            doc! {"b": {"c": 2}, "e": [{"g": 2}]}
        );
        assert_eq!(
            project(&d, &doc! {"b.d": 0, "e": 0}),
            doc! {"_id": 1, "a": 1, "b": {"c": 2}}
        );
        assert_eq!(project(&d, &doc! {"_id": 0}).get("_id"), None);
    }
}
