//! Two JSON reports compared: what changed per collection and path, with
//! a severity and, for proportions, a confidence. A shift two samples of
//! the same unchanged collection could show by chance is not a change
//! ([`stats`] says how that is decided); sampled maxima are never
//! compared.
//!
//! The reports are read as JSON values, as `audit --format json` wrote
//! them (possibly by another docshape version): only the contract's keys
//! are read, and a missing one counts as empty.

pub mod render;
pub mod stats;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::profile::sketch::wilson;
use crate::rules::Severity;
use stats::{distance, distribution_p_value, p_value, Binned, Share, ALPHA};

/// What changed between two reports.
#[derive(Clone, Debug, Serialize)]
pub struct Diff {
    /// The BEFORE side as given (a file name).
    pub before: String,
    pub after: String,
    pub changes: Vec<Change>,
    /// How proportions were compared: the test, the family-wise level and
    /// the number of comparisons it was shared among.
    pub test: TestUsed,
}

#[derive(Clone, Debug, Serialize)]
pub struct TestUsed {
    pub name: &'static str,
    pub alpha: f64,
    pub comparisons: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Change {
    pub namespace: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub kind: Kind,
    pub severity: Severity,
    pub before: Value,
    pub after: Value,
    /// One minus the comparison's p-value times the number of comparisons
    /// (Bonferroni), for a change of a sampled proportion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// For a distribution shift (`array-length-changed`, `size-changed`):
    /// the largest gap between the two sides' cumulative shares over the
    /// report's bins, the share of values that moved past some length or
    /// size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<f64>,
    /// Why a change is shown at a lower severity than its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    CollectionAdded,
    CollectionRemoved,
    PathAdded,
    PathRemoved,
    TypeAdded,
    TypeRemoved,
    PresenceChanged,
    ArrayLengthChanged,
    SizeChanged,
    IndexAdded,
    IndexRemoved,
    RelationshipAdded,
    RelationshipRemoved,
    CardinalityChanged,
    FindingAdded,
    FindingResolved,
}

impl Kind {
    /// Every kind, in the contract's order.
    pub const ALL: [Kind; 16] = [
        Kind::CollectionAdded,
        Kind::CollectionRemoved,
        Kind::PathAdded,
        Kind::PathRemoved,
        Kind::TypeAdded,
        Kind::TypeRemoved,
        Kind::PresenceChanged,
        Kind::ArrayLengthChanged,
        Kind::SizeChanged,
        Kind::IndexAdded,
        Kind::IndexRemoved,
        Kind::RelationshipAdded,
        Kind::RelationshipRemoved,
        Kind::CardinalityChanged,
        Kind::FindingAdded,
        Kind::FindingResolved,
    ];

    pub(crate) fn name(self) -> String {
        crate::report::plain(&self)
    }
}

/// Why a file is not a report to compare.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NotAReport(pub String);

/// Checks that `v` is a docshape JSON report (an object with `docshape`
/// and a `collections` array).
pub(crate) fn check(v: &Value) -> Result<(), NotAReport> {
    let ok = v.get("docshape").is_some_and(Value::is_string)
        && v.get("collections").is_some_and(Value::is_array);
    if ok {
        Ok(())
    } else {
        Err(NotAReport(
            "it is not a docshape JSON report (one is written by `docshape audit TARGET --format json -o FILE`)".into(),
        ))
    }
}

/// Keeps of report `r` what `selection` selects: its collections, the
/// references from them, and the deployment-wide findings about a
/// selected database or collection.
pub(crate) fn select(r: &mut Value, selection: &crate::source::select::Selection) {
    let wants = |ns: &str| match ns.split_once('.') {
        Some((db, coll)) => selection.wants(db, coll),
        None => selection.wants_db(ns),
    };
    if let Some(cs) = r.get_mut("collections").and_then(Value::as_array_mut) {
        cs.retain(|c| {
            c.get("namespace")
                .and_then(Value::as_str)
                .is_some_and(wants)
        });
    }
    let kept: Vec<String> = collections(r).into_keys().collect();
    if let Some(rs) = r.get_mut("relationships").and_then(Value::as_array_mut) {
        rs.retain(|x| {
            let from = x.get("from").and_then(Value::as_str).unwrap_or_default();
            kept.iter().any(|ns| from.starts_with(&format!("{ns}.")))
        });
    }
    if let Some(fs) = r.get_mut("findings").and_then(Value::as_array_mut) {
        fs.retain(|f| {
            f.get("namespace")
                .and_then(Value::as_str)
                .is_some_and(wants)
        });
    }
}

/// A comparison waiting for the family's level; one not `shown` only
/// says whether a finding's evidence moved (a shift of type shares).
struct Candidate {
    change: Change,
    p: f64,
    shown: bool,
}

/// Compares report `b` (before) with report `a` (after).
pub(crate) fn compare(before_label: &str, b: &Value, after_label: &str, a: &Value) -> Diff {
    let mut sure = Vec::new();
    let mut tested = Vec::new();
    let bc = collections(b);
    let ac = collections(a);
    for (ns, bcoll) in &bc {
        match ac.get(ns) {
            None => sure.push(plain(
                ns,
                None,
                Kind::CollectionRemoved,
                Severity::Warning,
                summary(bcoll),
                Value::Null,
            )),
            Some(acoll) => collection(ns, bcoll, acoll, &mut sure, &mut tested),
        }
    }
    for (ns, acoll) in &ac {
        if !bc.contains_key(ns) {
            sure.push(plain(
                ns,
                None,
                Kind::CollectionAdded,
                Severity::Info,
                Value::Null,
                summary(acoll),
            ));
        }
    }
    relationships(b, a, &mut sure);
    let comparisons = tested.len();
    let level = ALPHA / comparisons.max(1) as f64;
    let moved: BTreeSet<(String, Option<String>)> = tested
        .iter()
        .filter(|c| c.p <= level)
        .map(|c| (c.change.namespace.clone(), c.change.path.clone()))
        .collect();
    findings(b, a, &moved, &mut sure);
    let mut changes = sure;
    for c in tested {
        if c.p <= level && c.shown {
            let mut change = c.change;
            change.confidence = Some(round4(1.0 - (c.p * comparisons as f64).min(1.0)));
            changes.push(change);
        }
    }
    changes.sort_by(|x, y| (&x.namespace, &x.path, x.kind).cmp(&(&y.namespace, &y.path, y.kind)));
    Diff {
        before: before_label.to_owned(),
        after: after_label.to_owned(),
        changes,
        test: TestUsed {
            name: "two-proportion z-test (pooled, continuity-corrected; one-sample against a side read whole) for proportions, chi-square on the report's bins for sizes and array lengths, Bonferroni",
            alpha: ALPHA,
            comparisons,
        },
    }
}

impl Diff {
    /// The worst change's severity.
    pub(crate) fn worst(&self) -> Option<Severity> {
        self.changes.iter().map(|c| c.severity).max()
    }
}

fn plain(
    ns: &str,
    path: Option<&str>,
    kind: Kind,
    severity: Severity,
    before: Value,
    after: Value,
) -> Change {
    Change {
        namespace: ns.to_owned(),
        path: path.map(str::to_owned),
        kind,
        severity,
        before,
        after,
        confidence: None,
        distance: None,
        note: None,
    }
}

fn collections(r: &Value) -> BTreeMap<String, &Value> {
    r.get("collections")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| Some((c.get("namespace")?.as_str()?.to_owned(), c)))
        .collect()
}

fn summary(c: &Value) -> Value {
    json!({"documents": c.get("documents"), "sampled": c.get("sampled")})
}

fn u(v: Option<&Value>) -> u64 {
    v.and_then(Value::as_u64).unwrap_or(0)
}

/// True when the collection's sample is all its documents.
fn whole(c: &Value) -> bool {
    let sampled = u(c.get("sampled"));
    c.get("sample_method").and_then(Value::as_str) == Some("all")
        || c.get("documents").and_then(Value::as_u64) == Some(sampled)
}

fn fields(c: &Value) -> BTreeMap<&str, &Value> {
    c.get("fields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| Some((f.get("path")?.as_str()?, f)))
        .collect()
}

fn types(f: &Value) -> BTreeMap<String, u64> {
    f.get("types")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(t, n)| (t.clone(), n.as_u64().unwrap_or(0)))
        .collect()
}

/// Each type's share of the path's values.
fn shares(t: &BTreeMap<String, u64>) -> Value {
    let total: u64 = t.values().sum();
    let mut m = Map::new();
    for (name, &n) in t {
        if total > 0 {
            m.insert(name.clone(), json!(round4(n as f64 / total as f64)));
        }
    }
    Value::Object(m)
}

/// A presence with its 95 % Wilson interval when sampled.
fn presence(s: Share) -> Value {
    let mut v = json!({"presence": round4(s.rate()), "count": s.k, "sampled": s.n});
    if !s.whole {
        let (lo, hi) = wilson(s.k, s.n);
        v["presence_ci"] = json!([round4(lo), round4(hi)]);
    }
    v
}

/// Paths and indexes of a collection on both sides.
fn collection(ns: &str, b: &Value, a: &Value, sure: &mut Vec<Change>, tested: &mut Vec<Candidate>) {
    let (bn, an) = (u(b.get("sampled")), u(a.get("sampled")));
    let (bw, aw) = (whole(b), whole(a));
    let capped = |c: &Value| c.get("paths_capped").and_then(Value::as_bool) == Some(true);
    let capped = capped(a) || capped(b);
    let bf = fields(b);
    let af = fields(a);
    let share = |f: Option<&&Value>, n, whole| Share {
        k: f.map_or(0, |f| u(f.get("count"))),
        n,
        whole,
    };
    for path in bf.keys().chain(af.keys()).collect::<BTreeSet<_>>() {
        let (fb, fa) = (bf.get(path), af.get(path));
        let (sb, sa) = (share(fb, bn, bw), share(fa, an, aw));
        let p = p_value(sb, sa);
        let (kind, severity) = match (fb, fa) {
            // A path beyond the cap of paths kept is not known to be absent.
            (None, Some(_)) | (Some(_), None) if capped => continue,
            (None, Some(_)) => (Kind::PathAdded, Severity::Info),
            (Some(_), None) => {
                // A path in every sampled document looked required.
                let required = sb.k == sb.n;
                (
                    Kind::PathRemoved,
                    if required {
                        Severity::Warning
                    } else {
                        Severity::Info
                    },
                )
            }
            (Some(fb), Some(fa)) => {
                type_changes(ns, path, fb, fa, (sb, sa), (bw, aw), tested);
                // An array under an array is measured many times per
                // document: its lengths cluster within documents, so they
                // are not independent draws and no test of counts is fair
                // to them.
                if !path.contains("[]") {
                    let bins = |f: &Value| histogram(f.get("array_histogram"));
                    let sides = [
                        (bins(fb), bw, fb.get("array")),
                        (bins(fa), aw, fa.get("array")),
                    ];
                    shift(ns, Some(path), Kind::ArrayLengthChanged, sides, tested);
                }
                let required = sb.k == sb.n && sa.k < sa.n;
                let large = (sb.rate() - sa.rate()).abs() >= 0.25;
                (
                    Kind::PresenceChanged,
                    if required || large {
                        Severity::Warning
                    } else {
                        Severity::Info
                    },
                )
            }
            (None, None) => continue,
        };
        tested.push(Candidate {
            change: plain(ns, Some(path), kind, severity, presence(sb), presence(sa)),
            p,
            shown: true,
        });
    }
    let bins = |c: &Value| histogram(c.get("doc_size_histogram"));
    let sides = [
        (bins(b), bw, b.get("doc_size")),
        (bins(a), aw, a.get("doc_size")),
    ];
    shift(ns, None, Kind::SizeChanged, sides, tested);
    indexes(ns, b, a, sure);
}

/// A report's histogram (`[[low, high, count], …]`); empty when absent,
/// as in a report of an older docshape, or malformed.
fn histogram(v: Option<&Value>) -> Vec<[u64; 3]> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map_while(|bin| {
            let b = bin.as_array()?;
            match b.as_slice() {
                [lo, hi, n] => Some([lo.as_u64()?, hi.as_u64()?, n.as_u64()?]),
                _ => None,
            }
        })
        .collect()
}

/// How far the median or the 95th percentile must move (as a factor,
/// up or down) for a distribution shift to be a warning: by half.
const LARGE_FACTOR: f64 = 1.5;

/// The largest factor by which the median or the 95th percentile moved
/// between summaries `b` and `a`, up or down; a length of 0 counts as 1
/// less than 1 (`x + 1`), so an empty array that now holds two is a
/// factor of 3.
fn factor(b: Option<&Value>, a: Option<&Value>) -> f64 {
    ["p50", "p95"]
        .iter()
        .map(|k| {
            let at = |s: Option<&Value>| {
                s.and_then(|s| s.get(*k))
                    .and_then(Value::as_f64)
                    .unwrap_or(0.0)
                    + 1.0
            };
            let (x, y) = (at(b), at(a));
            x.max(y) / x.min(y)
        })
        .fold(1.0, f64::max)
}

/// A side of a distribution: its bins, whether it is the whole
/// collection, and the report's summary of it.
type Side<'v> = (Vec<[u64; 3]>, bool, Option<&'v Value>);

/// A shift of a distribution (sizes, array lengths) on the report's bins,
/// tested when both sides have them. What each side shows is its
/// quantiles and mean, never its sampled maximum.
fn shift(ns: &str, path: Option<&str>, kind: Kind, [b, a]: [Side; 2], tested: &mut Vec<Candidate>) {
    let count = |bins: &[[u64; 3]]| bins.iter().map(|x| x[2]).sum::<u64>();
    if count(&b.0) == 0 || count(&a.0) == 0 {
        return;
    }
    let (sb, sa) = (
        Binned {
            bins: &b.0,
            whole: b.1,
        },
        Binned {
            bins: &a.0,
            whole: a.1,
        },
    );
    let gap = distance(sb, sa);
    let unit = if kind == Kind::SizeChanged {
        "documents"
    } else {
        "arrays"
    };
    let side = |bins: &[[u64; 3]], summary: Option<&Value>| {
        let at = |k: &str| {
            summary
                .and_then(|s| s.get(k))
                .cloned()
                .unwrap_or(Value::Null)
        };
        json!({"p50": at("p50"), "p95": at("p95"), "avg": at("avg"), unit: count(bins)})
    };
    let mut change = plain(
        ns,
        path,
        kind,
        if factor(b.2, a.2) >= LARGE_FACTOR {
            Severity::Warning
        } else {
            Severity::Info
        },
        side(&b.0, b.2),
        side(&a.0, a.2),
    );
    change.distance = Some(round4(gap));
    tested.push(Candidate {
        change,
        p: distribution_p_value(sb, sa),
        shown: true,
    });
}

/// A type that appears or disappears on a path found on both sides.
fn type_changes(
    ns: &str,
    path: &str,
    fb: &Value,
    fa: &Value,
    (sb, sa): (Share, Share),
    (bw, aw): (bool, bool),
    tested: &mut Vec<Candidate>,
) {
    let (tb, ta) = (types(fb), types(fa));
    let (vb, va): (u64, u64) = (tb.values().sum(), ta.values().sum());
    for t in tb.keys().chain(ta.keys()).collect::<BTreeSet<_>>() {
        let (kb, ka) = (
            tb.get(t).copied().unwrap_or(0),
            ta.get(t).copied().unwrap_or(0),
        );
        let kind = match (kb, ka) {
            (0, _) => Kind::TypeAdded,
            (_, 0) => Kind::TypeRemoved,
            // A shift of shares between types both sides hold is not a
            // change of its own: the presence and the new or gone types
            // say what readers meet. Where both sides mix types, it is
            // tested all the same, for a finding that rests on the shares
            // (`mixed-types`).
            _ if tb.len() < 2 || ta.len() < 2 => continue,
            _ => {
                let p = p_value(
                    Share {
                        k: kb,
                        n: vb,
                        whole: bw,
                    },
                    Share {
                        k: ka,
                        n: va,
                        whole: aw,
                    },
                );
                tested.push(Candidate {
                    change: plain(
                        ns,
                        Some(path),
                        Kind::TypeAdded,
                        Severity::Info,
                        Value::Null,
                        Value::Null,
                    ),
                    p,
                    shown: false,
                });
                continue;
            }
        };
        // On a path most documents hold, a new or gone type is met by
        // most readers.
        let most = if kind == Kind::TypeAdded {
            sa.rate()
        } else {
            sb.rate()
        } >= 0.5;
        let p = p_value(
            Share {
                k: kb,
                n: vb,
                whole: bw,
            },
            Share {
                k: ka,
                n: va,
                whole: aw,
            },
        );
        tested.push(Candidate {
            change: plain(
                ns,
                Some(path),
                kind,
                if most {
                    Severity::Warning
                } else {
                    Severity::Info
                },
                shares(&tb),
                shares(&ta),
            ),
            p,
            shown: true,
        });
    }
}

/// Indexes by name and key: an index dropped is a warning (queries that
/// used it now scan), one added is news.
fn indexes(ns: &str, b: &Value, a: &Value, sure: &mut Vec<Change>) {
    let keyed = |c: &Value| -> BTreeMap<String, Value> {
        c.get("indexes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|i| {
                let name = i.get("name").and_then(Value::as_str).unwrap_or_default();
                let key = i.get("key").cloned().unwrap_or(Value::Null);
                (format!("{name} {key}"), json!({"name": name, "key": key}))
            })
            .collect()
    };
    let (ib, ia) = (keyed(b), keyed(a));
    let (gone, new) = one_side(&ib, &ia);
    for (_, v) in gone {
        let c = plain(
            ns,
            None,
            Kind::IndexRemoved,
            Severity::Warning,
            v.clone(),
            Value::Null,
        );
        sure.push(c);
    }
    for (_, v) in new {
        sure.push(plain(
            ns,
            None,
            Kind::IndexAdded,
            Severity::Info,
            Value::Null,
            v.clone(),
        ));
    }
}

/// Entries of a map, borrowed.
type Entries<'m, K, V> = Vec<(&'m K, &'m V)>;

/// What only `b` holds, and what only `a` holds.
fn one_side<'m, K: Ord, V>(
    b: &'m BTreeMap<K, V>,
    a: &'m BTreeMap<K, V>,
) -> (Entries<'m, K, V>, Entries<'m, K, V>) {
    let only = |x: &'m BTreeMap<K, V>, y: &BTreeMap<K, V>| {
        x.iter()
            .filter(|(k, _)| !y.contains_key(k))
            .collect::<Vec<_>>()
    };
    (only(b, a), only(a, b))
}

/// References between collections, by the path that refers and the one
/// referred to. A relationship is found by a test of its own and its
/// cardinality is a class of its fan-out, so one near the edge of either
/// may come and go between samples: these changes are `info`, to read,
/// not to fail a build on.
fn relationships(b: &Value, a: &Value, sure: &mut Vec<Change>) {
    let keyed = |r: &Value| -> BTreeMap<(String, String), Value> {
        r.get("relationships")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|x| {
                let s = |k: &str| x.get(k).and_then(Value::as_str).unwrap_or_default().to_owned();
                let summary = json!({"from": s("from"), "to": s("to"), "kind": s("kind"), "cardinality": s("cardinality")});
                ((s("from"), s("to")), summary)
            })
            .collect()
    };
    let (rb, ra) = (keyed(b), keyed(a));
    // The namespace of a path `db.coll.path`: the report names it on the
    // relationship's `from`, whose collection may hold dots only in a way
    // the report's collections resolve.
    let namespaces: BTreeSet<String> = collections(b)
        .into_keys()
        .chain(collections(a).into_keys())
        .collect();
    let place = |from: &str| -> (String, Option<String>) {
        namespaces
            .iter()
            .filter(|ns| from.starts_with(&format!("{ns}.")))
            .max_by_key(|ns| ns.len())
            .map_or((from.to_owned(), None), |ns| {
                (ns.clone(), Some(from[ns.len() + 1..].to_owned()))
            })
    };
    let (gone, new) = one_side(&rb, &ra);
    for (kind, entries) in [
        (Kind::RelationshipRemoved, gone),
        (Kind::RelationshipAdded, new),
    ] {
        for ((from, _), v) in entries {
            let (ns, path) = place(from);
            let (before, after) = match kind {
                Kind::RelationshipRemoved => (v.clone(), Value::Null),
                _ => (Value::Null, v.clone()),
            };
            sure.push(plain(
                &ns,
                path.as_deref(),
                kind,
                Severity::Info,
                before,
                after,
            ));
        }
    }
    for (key, vb) in &rb {
        if let Some(va) = ra.get(key) {
            if vb["cardinality"] != va["cardinality"] {
                let (ns, path) = place(&key.0);
                let c = plain(
                    &ns,
                    path.as_deref(),
                    Kind::CardinalityChanged,
                    Severity::Info,
                    vb.clone(),
                    va.clone(),
                );
                sure.push(c);
            }
        }
    }
}

/// Every finding of a report (per collection and deployment-wide) by rule,
/// namespace and path.
fn all_findings(r: &Value) -> BTreeMap<(String, String, String), &Value> {
    let per = r
        .get("collections")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("findings").and_then(Value::as_array))
        .flatten();
    let top = r
        .get("findings")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    per.chain(top)
        .map(|f| {
            let s = |k: &str| {
                f.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            ((s("namespace"), s("path"), s("rule")), f)
        })
        .collect()
}

fn severity_of(f: &Value) -> Severity {
    match f.get("severity").and_then(Value::as_str) {
        Some("critical") => Severity::Critical,
        Some("warning") => Severity::Warning,
        _ => Severity::Info,
    }
}

fn finding_summary(f: &Value) -> Value {
    json!({"rule": f.get("rule"), "severity": f.get("severity"), "message": f.get("message")})
}

/// True when finding `f` rests on a sample (its evidence's `scope`).
fn sampled(f: &Value) -> bool {
    f.pointer("/evidence/scope").and_then(Value::as_str) == Some("sample")
}

/// True when something at namespace `ns` and `path` moved beyond sampling
/// noise: a change on the path, above it or within it, or of the
/// collection's sizes; for a finding without a path, anything in its
/// collection.
fn corroborated(moved: &BTreeSet<(String, Option<String>)>, ns: &str, path: Option<&str>) -> bool {
    let related = |x: &str, y: &str| {
        x == y
            || [".", "[]"].iter().any(|sep| {
                x.starts_with(&format!("{y}{sep}")) || y.starts_with(&format!("{x}{sep}"))
            })
    };
    moved.iter().any(|(n, p)| {
        n == ns
            && match (path, p) {
                (Some(f), Some(p)) => related(f, p),
                _ => true,
            }
    })
}

/// Why a finding that came or went on a sample is shown at `info`.
const NEAR_THRESHOLD: &str = "the finding rests on a sample and nothing on its path moved beyond sampling noise: a rule near its threshold can fire on one sample and not the next";

/// A finding new in AFTER keeps its severity; one gone is news. A finding
/// that rests on a sample came or went for certain only when what it
/// measures moved too: otherwise it may be a rule near its threshold
/// firing on one sample and not the other, shown at `info` with a note.
fn findings(
    b: &Value,
    a: &Value,
    moved: &BTreeSet<(String, Option<String>)>,
    sure: &mut Vec<Change>,
) {
    let (fb, fa) = (all_findings(b), all_findings(a));
    let (gone, new) = one_side(&fb, &fa);
    let gone = gone.into_iter().map(|(k, f)| {
        (
            k,
            Kind::FindingResolved,
            Severity::Info,
            finding_summary(f),
            Value::Null,
            sampled(f),
        )
    });
    let new = new.into_iter().map(|(k, f)| {
        (
            k,
            Kind::FindingAdded,
            severity_of(f),
            Value::Null,
            finding_summary(f),
            sampled(f),
        )
    });
    for ((ns, path, _), kind, severity, before, after, noisy) in new.chain(gone) {
        let path = (!path.is_empty()).then_some(path.as_str());
        let mut change = plain(ns, path, kind, severity, before, after);
        if noisy && severity > Severity::Info && !corroborated(moved, ns, path) {
            change.severity = Severity::Info;
            change.note = Some(NEAR_THRESHOLD.to_owned());
        }
        sure.push(change);
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests;
