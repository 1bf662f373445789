//! The data-set table of `sample-data/README.md` is true: every rule a row
//! names fires on that data set's bad variant once `docshape seed` has
//! written it, at docshape's default thresholds (as a new user audits it),
//! with the severity the row gives and on the database where it says so,
//! and not on the good variant. A rule marked "teaching floor only" fires
//! with the README's teaching configuration and not at the defaults; one
//! marked "seed only" does not fire on the committed files, and every other
//! rule does (`docshape audit sample-data`, no server).

use crate::common;
use crate::seed::{audit_db, findings, seed_all, teaching_config};

use std::collections::BTreeSet;
use std::time::Instant;

use common::{unique_db, uri};
use docshape::seed::datasets;

/// A rule as a row of the table names it.
struct Named {
    rule: String,
    /// Drawn only with `long-field-names`' floor of bytes saved lifted (the
    /// README's Teaching configuration), not at the defaults.
    floor: bool,
    /// Drawn only by the documents `seed` generates, not by the committed
    /// files.
    seed_only: bool,
    /// The severity the row gives it, if any (on the seeded data).
    severity: Option<&'static str>,
    /// A finding on the database rather than on a collection.
    on_database: bool,
}

/// One row of the table: a data set and the rules its bad variant draws.
struct Row {
    dataset: String,
    rules: Vec<Named>,
}

/// The cells of a Markdown table row.
fn cells(line: &str) -> Vec<&str> {
    line.trim_start_matches('|')
        .trim_end_matches('|')
        .split('|')
        .map(str::trim)
        .collect()
}

/// A cell's code spans, each with the plain text that follows it up to the
/// next one (its qualifier: "(info)", "(seed only)" …).
fn code_spans(cell: &str) -> Vec<(&str, &str)> {
    let parts: Vec<&str> = cell.split('`').collect();
    parts
        .iter()
        .enumerate()
        .skip(1)
        .step_by(2)
        .map(|(i, code)| (*code, parts.get(i + 1).copied().unwrap_or("")))
        .collect()
}

/// The rows of the table whose header has a "rules on bad" column.
fn table() -> Vec<Row> {
    let path = common::repo().join("sample-data/README.md");
    let text = std::fs::read_to_string(&path).expect("read sample-data/README.md");
    let mut lines = text.lines().map(str::trim);
    let header = lines
        .by_ref()
        .find(|l| l.starts_with('|') && cells(l).contains(&"rules on bad"))
        .expect("sample-data/README.md has a table with a \"rules on bad\" column");
    let heads = cells(header);
    let column = |name: &str| {
        heads
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("the data-set table has no {name:?} column: {header}"))
    };
    let (dataset, rules) = (column("data set"), column("rules on bad"));
    let known = docshape::rules::RULES;
    lines
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|line| {
            let row = cells(line);
            let name = match code_spans(row[dataset]).as_slice() {
                [(name, _)] => (*name).to_owned(),
                _ => panic!("a data-set cell names one data set in backticks: {line}"),
            };
            let rules: Vec<Named> = code_spans(row[rules])
                .into_iter()
                .map(|(rule, qualifier)| {
                    assert!(
                        known.contains(&rule),
                        "{name}: `{rule}` in the rules column is not a docshape rule"
                    );
                    Named {
                        rule: rule.to_owned(),
                        floor: qualifier.contains("teaching floor"),
                        seed_only: qualifier.contains("seed only"),
                        severity: ["critical", "warning", "info"]
                            .into_iter()
                            .find(|s| qualifier.contains(s)),
                        on_database: qualifier.contains("on the database"),
                    }
                })
                .collect();
            assert!(!rules.is_empty(), "{name}: the row names no rule: {line}");
            Row {
                dataset: name,
                rules,
            }
        })
        .collect()
}

/// What one audit of a data set's database found, by variant:
/// `(collection, rule, severity)`. A database-level finding
/// (`too-many-collections`) belongs to the variant that made the
/// collections: the bad one.
#[derive(Default)]
struct Variants {
    good: Vec<(String, String, String)>,
    bad: Vec<(String, String, String)>,
}

impl Variants {
    fn of(report: &serde_json::Value, db: &str) -> Variants {
        let mut v = Variants::default();
        for (ns, rule, severity) in findings(report) {
            let coll = ns
                .strip_prefix(db)
                .and_then(|r| r.strip_prefix('.'))
                .unwrap_or("")
                .to_owned();
            if coll.starts_with("good_") {
                v.good.push((coll, rule, severity));
            } else if coll.starts_with("bad_") || ns == db {
                v.bad.push((coll, rule, severity));
            }
        }
        v
    }

    /// The collections `rule` fired on.
    fn fired<'a>(found: &'a [(String, String, String)], rule: &str) -> BTreeSet<&'a str> {
        found
            .iter()
            .filter(|(_, r, _)| r == rule)
            .map(|(c, _, _)| c.as_str())
            .collect()
    }

    /// `rule on collection (severity)`, for a failure message.
    fn list(found: &[(String, String, String)]) -> String {
        if found.is_empty() {
            return "nothing".to_owned();
        }
        found
            .iter()
            .map(|(c, r, s)| {
                let on = if c.is_empty() { "the database" } else { c };
                format!("{r} on {on} ({s})")
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// What the audits of one data set found.
struct Audits {
    /// The seeded data at the default thresholds.
    seeded: Variants,
    /// The seeded data with the teaching floor, when the row needs it.
    floor: Option<Variants>,
    /// The committed files alone, at the default thresholds.
    committed: Variants,
}

/// What is wrong with one named rule of a row, if anything.
fn judge(dataset: &str, named: &Named, a: &Audits) -> Vec<String> {
    let rule = named.rule.as_str();
    let (found, how) = match &a.floor {
        Some(f) if named.floor => (f, "with the teaching floor"),
        _ => (&a.seeded, "at the default thresholds"),
    };
    let mut wrong = Vec::new();
    let on_bad = Variants::fired(&found.bad, rule);
    if on_bad.is_empty() {
        wrong.push(format!(
            "{dataset}: `{rule}` did not fire on the seeded bad variant {how}; it fired instead: {}",
            Variants::list(&found.bad)
        ));
    }
    let severities: BTreeSet<&str> = found
        .bad
        .iter()
        .filter(|(_, r, _)| r == rule)
        .map(|(_, _, s)| s.as_str())
        .collect();
    if let Some(want) = named.severity {
        if !on_bad.is_empty() && !severities.contains(want) {
            wrong.push(format!(
                "{dataset}: `{rule}` fired on the seeded bad variant as {severities:?}, the table says {want}"
            ));
        }
    }
    if named.on_database && !on_bad.is_empty() && !on_bad.contains("") {
        wrong.push(format!(
            "{dataset}: `{rule}` fired on {on_bad:?}, not on the database as the table says"
        ));
    }
    let on_good = Variants::fired(&found.good, rule);
    if !on_good.is_empty() {
        wrong.push(format!(
            "{dataset}: `{rule}` fired on the good variant ({}) {how}; the good variant drew: {}",
            on_good.into_iter().collect::<Vec<_>>().join(", "),
            Variants::list(&found.good)
        ));
    }
    if named.floor && !Variants::fired(&a.seeded.bad, rule).is_empty() {
        wrong.push(format!(
            "{dataset}: `{rule}` is marked teaching floor only, but fires at the default thresholds too: {}",
            Variants::list(&a.seeded.bad)
        ));
    }
    let committed = !Variants::fired(&a.committed.bad, rule).is_empty();
    if named.seed_only && committed {
        wrong.push(format!(
            "{dataset}: `{rule}` is marked seed only, but fires on the committed files too: {}",
            Variants::list(&a.committed.bad)
        ));
    } else if !named.seed_only && !named.floor && !committed {
        wrong.push(format!(
            "{dataset}: `{rule}` did not fire on the committed files (sample-data/{dataset}, no server), \
             and the table does not mark it seed only; they drew: {}",
            Variants::list(&a.committed.bad)
        ));
    }
    wrong
}

#[tokio::test(flavor = "current_thread")]
async fn every_rule_of_the_data_set_table_fires_on_the_seeded_bad_variant_only() {
    let started = Instant::now();
    let rows = table();
    let in_table: BTreeSet<&str> = rows.iter().map(|r| r.dataset.as_str()).collect();
    let seeded: BTreeSet<&str> = datasets::NAMES.into_iter().collect();
    assert_eq!(
        in_table, seeded,
        "the data-set table of sample-data/README.md against the data sets `seed` writes"
    );

    let target = uri();
    let prefix = format!("{}_", unique_db("t"));
    seed_all(&target, &prefix).await;

    let teaching = teaching_config();
    let files = common::repo().join("sample-data");
    let files = files.to_str().expect("utf-8 path");
    let mut wrong = Vec::new();
    for row in &rows {
        let (name, db) = (row.dataset.as_str(), format!("{prefix}{}", row.dataset));
        let audits = Audits {
            seeded: Variants::of(&audit_db(&target, &db, None).await, &db),
            floor: if row.rules.iter().any(|n| n.floor) {
                Some(Variants::of(
                    &audit_db(&target, &db, Some(&teaching)).await,
                    &db,
                ))
            } else {
                None
            },
            committed: Variants::of(&audit_db(files, name, None).await, name),
        };
        for named in &row.rules {
            wrong.extend(judge(name, named, &audits));
        }
    }
    eprintln!(
        "seeding and auditing {} data sets took {:.1} s",
        rows.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        wrong.is_empty(),
        "the data-set table of sample-data/README.md is not true of the data:\n{}",
        wrong.join("\n")
    );
}
