//! The expert-verdict corpus: every finding docshape emits on real data
//! nobody shaped for it (`../shared/realdata` and the real applications'
//! dumps of `../shared/realapps`, each read as files and, loaded into the
//! test server, read in full) and on the bundled `sample-data/`,
//! and what the workload rules find with the bundled workload on the
//! sample data and in the real `mongod` log read alone (workload-only),
//! held against a reviewed list, `tests/corpus/verdicts.tsv`, where each
//! finding carries a verdict (`true`, `false`, `debatable`) and a one-line
//! reason.
//!
//! The test fails on a finding the list does not have, on a listed finding
//! that is no longer emitted, on a row nobody reviewed yet (`unreviewed`), on
//! a warning or critical the list calls `false`, and when the real data draws
//! more info findings than it has collections (one per collection on
//! average). Run with `--nocapture` to see the per-rule table.
//!
//! After a rule change, `DOCSHAPE_CORPUS_WRITE=1 cargo test --test it corpus::`
//! rewrites the list from the current output: existing rows keep their
//! verdict, new findings (and findings whose severity changed) arrive as
//! `unreviewed` with docshape's message as a reminder, vanished ones are
//! dropped. The test still fails until every `unreviewed` row is judged.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

use common::{client, docshape, json_ok, load_dir, load_ejson, realdata, repo, uri};
use docshape::rules::WORKLOAD_RULES;

/// The reviewed list, relative to the repository.
const VERDICTS: &str = "tests/corpus/verdicts.tsv";
/// The environment variable that rewrites the list from the current output.
const WRITE_ENV: &str = "DOCSHAPE_CORPUS_WRITE";
/// Columns of the list, in order.
const HEADER: [&str; 7] = [
    "where",
    "namespace",
    "rule",
    "path",
    "severity",
    "verdict",
    "reason",
];
/// Verdicts a reviewer may give.
const VERDICT_VALUES: [&str; 3] = ["true", "false", "debatable"];
/// The verdict of a row nobody has judged yet.
const UNREVIEWED: &str = "unreviewed";
/// Databases of the test server that hold the real data: this prefix and
/// the directory's name.
const DB_PREFIX: &str = "corpus_";
/// The runs, in the order they are listed.
const FILES: &str = "files";
const SERVER: &str = "server";
const SAMPLE_DATA: &str = "sample-data";
/// `sample-data/` with the bundled workload: the workload rules' findings
/// (the others are `sample-data`'s).
const WORKLOAD: &str = "workload";
/// The real `mongod` log of `../shared/realdata/logs`, read alone.
const LOG: &str = "log";
/// The real applications' dumps of `../shared/realapps`, each tree read as
/// files (default sample) and loaded into the test server (`--full`);
/// namespaces are `APP/db.coll`.
const APPS_FILES: &str = "apps-files";
const APPS_SERVER: &str = "apps-server";
/// Databases of the test server that hold the applications' dumps:
/// `apps_APP_DB`.
const APPS_PREFIX: &str = "apps_";
const PLACES: [&str; 7] = [
    FILES,
    SERVER,
    SAMPLE_DATA,
    WORKLOAD,
    LOG,
    APPS_FILES,
    APPS_SERVER,
];

/// What identifies a finding across runs: where it was found, the
/// collection, the rule, the path (`-` when the finding is about the whole
/// collection) and the severity.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    place: String,
    namespace: String,
    rule: String,
    path: String,
    severity: String,
}

impl Key {
    fn show(&self) -> String {
        format!(
            "{:<11} {} {} {} [{}]",
            self.place, self.namespace, self.rule, self.path, self.severity
        )
    }

    /// The same finding at any severity.
    fn sans_severity(&self) -> (&str, &str, &str, &str) {
        (&self.place, &self.namespace, &self.rule, &self.path)
    }
}

#[derive(Clone, Debug)]
struct Row {
    key: Key,
    verdict: String,
    reason: String,
    line: usize,
}

/// The output of one run: its findings (with docshape's message) and how
/// many collections it audited.
struct Run {
    findings: BTreeMap<Key, String>,
    collections: usize,
}

fn severity_rank(s: &str) -> u8 {
    match s {
        "critical" => 0,
        "warning" => 1,
        "info" => 2,
        _ => 3,
    }
}

/// Parses the list; any malformed line is a failure naming it.
fn parse_verdicts(text: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut header_seen = false;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        if !header_seen {
            assert_eq!(
                cols, HEADER,
                "{VERDICTS}:{n}: the first line that is not a comment must be the header"
            );
            header_seen = true;
            continue;
        }
        assert_eq!(
            cols.len(),
            HEADER.len(),
            "{VERDICTS}:{n}: expected {} tab-separated columns ({}), got {}: {line:?}",
            HEADER.len(),
            HEADER.join(", "),
            cols.len()
        );
        let key = Key {
            place: cols[0].to_owned(),
            namespace: cols[1].to_owned(),
            rule: cols[2].to_owned(),
            path: cols[3].to_owned(),
            severity: cols[4].to_owned(),
        };
        assert!(
            PLACES.contains(&cols[0]),
            "{VERDICTS}:{n}: `where` must be one of {PLACES:?}, got {:?}",
            cols[0]
        );
        assert!(
            severity_rank(cols[4]) < 3,
            "{VERDICTS}:{n}: unknown severity {:?}",
            cols[4]
        );
        assert!(
            VERDICT_VALUES.contains(&cols[5]) || cols[5] == UNREVIEWED,
            "{VERDICTS}:{n}: verdict must be one of {VERDICT_VALUES:?}, got {:?}",
            cols[5]
        );
        assert!(
            !cols[6].trim().is_empty(),
            "{VERDICTS}:{n}: every verdict needs a one-line reason"
        );
        rows.push(Row {
            key,
            verdict: cols[5].to_owned(),
            reason: cols[6].to_owned(),
            line: n,
        });
    }
    assert!(header_seen, "{VERDICTS} has no header line");
    rows
}

/// The findings of a JSON report, keyed; `rename` maps a database name of
/// the run back to the one the list uses.
fn findings_of(report: &Value, place: &str, rename: &dyn Fn(&str) -> String) -> Run {
    let mut all: Vec<&Value> = Vec::new();
    let colls = report["collections"]
        .as_array()
        .expect("report.collections is an array");
    for c in colls {
        all.extend(c["findings"].as_array().expect("collection findings"));
    }
    all.extend(report["findings"].as_array().expect("report findings"));
    let mut findings = BTreeMap::new();
    for f in all {
        let ns = f["namespace"].as_str().expect("finding namespace");
        let (db, coll) = ns.split_once('.').unwrap_or((ns, ""));
        let key = Key {
            place: place.to_owned(),
            namespace: format!("{}.{coll}", rename(db)),
            rule: f["rule"].as_str().expect("finding rule").to_owned(),
            // An index finding is about one index: two indexes may begin
            // with the same field.
            path: match f["evidence"]["index"]["name"].as_str() {
                Some(index) => format!("{}@{index}", f["path"].as_str().unwrap_or("-")),
                None => f["path"].as_str().unwrap_or("-").to_owned(),
            },
            severity: f["severity"].as_str().expect("finding severity").to_owned(),
        };
        let message = f["message"]
            .as_str()
            .unwrap_or("")
            .replace(['\t', '\n'], " ");
        if let Some(old) = findings.insert(key.clone(), message) {
            panic!("two findings with the same key {}: {old}", key.show());
        }
    }
    Run {
        findings,
        collections: colls.len(),
    }
}

/// The environment variable naming a directory where the JSON
/// reports are kept, to read a finding's evidence and suggestion when
/// judging it.
const REPORTS_ENV: &str = "DOCSHAPE_CORPUS_REPORTS";

/// `docshape audit TARGET ... --format json`, deterministic and hermetic;
/// the report is kept as `PLACE.json` under `$DOCSHAPE_CORPUS_REPORTS`.
fn audit(place: &str, args: &[&str]) -> Value {
    let mut all = vec!["audit"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--no-snapshot", "--fail-on", "never", "--format", "json"]);
    let out = docshape(&all);
    let report = json_ok(&out);
    if let Some(dir) = std::env::var_os(REPORTS_ENV).filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
        let file = dir.join(format!("{place}.json"));
        std::fs::write(&file, &out.stdout)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", file.display()));
    }
    report
}

/// The Extended JSON files of the real data, by database (directory).
fn realdata_files() -> BTreeMap<String, Vec<PathBuf>> {
    let root = realdata("");
    let mut out: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for dir in std::fs::read_dir(&root).expect("read realdata") {
        let dir = dir.expect("realdata entry").path();
        if !dir.is_dir() {
            continue;
        }
        let db = dir
            .file_name()
            .and_then(|s| s.to_str())
            .expect("directory name")
            .to_owned();
        for f in std::fs::read_dir(&dir).expect("read realdata directory") {
            let f = f.expect("realdata file").path();
            if f.extension().and_then(|e| e.to_str()) == Some("json") {
                out.entry(db.clone()).or_default().push(f);
            }
        }
    }
    for files in out.values_mut() {
        files.sort();
    }
    out
}

/// Loads every real-data file into the test server (one database per
/// directory, one collection per file, types preserved by docshape's own
/// Extended JSON reader) and audits all of it with `--full`.
fn server_run(files: &BTreeMap<String, Vec<PathBuf>>) -> Run {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    // Fixed names: the documents an audit keeps for its later stages are
    // drawn with a seed taken from the namespace, so a name that changed
    // from run to run would change the findings.
    let names: BTreeMap<String, String> = files
        .keys()
        .map(|db| (format!("{DB_PREFIX}{db}"), db.clone()))
        .collect();
    rt.block_on(async {
        let c = client().await;
        for server_db in names.keys() {
            c.database(server_db)
                .drop()
                .await
                .unwrap_or_else(|e| panic!("cannot drop {server_db}: {e}"));
        }
        let mut loads = Vec::new();
        for (server_db, db) in &names {
            for path in &files[db] {
                let c = c.clone();
                let server_db = server_db.clone();
                let path = path.clone();
                loads.push(tokio::spawn(async move {
                    let coll = path
                        .file_stem()
                        .and_then(|s| s.to_str())
                        .expect("file stem")
                        .to_owned();
                    let n = load_ejson(&c, &server_db, &coll, &path).await;
                    assert!(n > 0, "{} loaded no documents", path.display());
                }));
            }
        }
        for l in loads {
            l.await.expect("loading a real-data file panicked");
        }
    });
    let target = uri();
    // A generous bound: the test server is slow on a busy machine, and a
    // timed-out read would be a finding-less collection, not a failure.
    let mut args: Vec<&str> = vec![&target, "--full", "--timeout", "600"];
    for server_db in names.keys() {
        args.extend(["--db", server_db]);
    }
    let report = audit(SERVER, &args);
    findings_of(&report, SERVER, &|db| {
        names
            .get(db)
            .cloned()
            .unwrap_or_else(|| panic!("the audit read a database it was not given: {db}"))
    })
}

/// The applications' dump trees (`../shared/realapps/APP`), by name.
fn app_trees() -> BTreeMap<String, PathBuf> {
    let root = repo().join("../shared/realapps");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&root).expect("read realapps") {
        let p = e.expect("realapps entry").path();
        if p.is_dir() {
            let name = p
                .file_name()
                .and_then(|s| s.to_str())
                .expect("directory name")
                .to_owned();
            out.insert(name, p);
        }
    }
    out
}

/// Each application's dump audited as files; its findings' namespaces
/// prefixed with the application.
fn apps_file_run(trees: &BTreeMap<String, PathBuf>) -> Run {
    let mut run = Run {
        findings: BTreeMap::new(),
        collections: 0,
    };
    for (app, dir) in trees {
        let report = audit(
            &format!("{APPS_FILES}-{app}"),
            &[dir.to_str().expect("utf-8 path")],
        );
        let one = findings_of(&report, APPS_FILES, &|db| format!("{app}/{db}"));
        run.collections += one.collections;
        run.findings.extend(one.findings);
    }
    run
}

/// Every application's dump loaded into the test server (one database per
/// dumped database, `apps_APP_DB`, with its indexes, as mongorestore makes
/// it; a folder of exports `test.X.json` as the collections `X` of
/// `apps_APP_test`) and audited with `--full`.
fn apps_server_run(trees: &BTreeMap<String, PathBuf>) -> Run {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut dirs: Vec<(String, PathBuf)> = Vec::new();
    for (app, tree) in trees {
        for e in std::fs::read_dir(tree).expect("read a dump tree") {
            let d = e.expect("dump entry").path();
            if !d.is_dir() {
                continue;
            }
            // The database the folder holds, as docshape names it: a dump
            // folder's own name, or `test` for a folder of exports
            // `test.users.json` (whose collections load as `users`).
            let db = common::dir_naming(&d).db;
            let server_db = format!("{APPS_PREFIX}{app}_{db}");
            let key = format!("{app}/{db}");
            assert!(
                !names.values().any(|k| *k == key),
                "two folders of {app} hold the database {db}"
            );
            names.insert(server_db.clone(), key);
            dirs.push((server_db, d));
        }
    }
    let made = rt.block_on(async {
        let c = client().await;
        let mut loads = Vec::new();
        for (server_db, dir) in &dirs {
            c.database(server_db)
                .drop()
                .await
                .unwrap_or_else(|e| panic!("cannot drop {server_db}: {e}"));
            let c = c.clone();
            let (server_db, dir) = (server_db.clone(), dir.clone());
            loads.push(tokio::spawn(async move {
                let (made, failed) = load_dir(&c, &dir, &server_db).await;
                assert!(
                    failed.is_empty(),
                    "indexes the server could not build: {failed:?}"
                );
                made.len()
            }));
        }
        let mut made = 0;
        for l in loads {
            made += l.await.expect("loading a dump panicked");
        }
        made
    });
    let target = uri();
    let mut args: Vec<&str> = vec![&target, "--full", "--timeout", "600"];
    for server_db in names.keys() {
        args.extend(["--db", server_db]);
    }
    let report = audit(APPS_SERVER, &args);
    let run = findings_of(&report, APPS_SERVER, &|db| {
        names
            .get(db)
            .cloned()
            .unwrap_or_else(|| panic!("the audit read a database it was not given: {db}"))
    });
    assert_eq!(
        run.collections, made,
        "the server audit read {} of the {made} collections loaded from the dumps",
        run.collections
    );
    run
}

/// The verdict counts of one rule and severity, per place.
#[derive(Default)]
struct Tally(BTreeMap<&'static str, [usize; 4]>);

/// The per-rule table of the list: true/false/debatable(/unreviewed) by
/// rule and severity, per place.
fn table(rows: &[Row]) -> String {
    let mut by: BTreeMap<(String, u8, String), Tally> = BTreeMap::new();
    for r in rows {
        let t = by
            .entry((
                r.key.rule.clone(),
                severity_rank(&r.key.severity),
                r.key.severity.clone(),
            ))
            .or_default();
        let place = PLACES
            .iter()
            .find(|p| **p == r.key.place)
            .expect("place checked when parsed");
        let i = match r.verdict.as_str() {
            "true" => 0,
            "false" => 1,
            "debatable" => 2,
            _ => 3,
        };
        t.0.entry(place).or_default()[i] += 1;
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "verdicts per rule (true/false/debatable, +unreviewed)\n{:<34} {:<8} {:>12} {:>12} {:>12} {:>12} {:>12}",
        "rule", "severity", FILES, SERVER, SAMPLE_DATA, APPS_FILES, APPS_SERVER
    );
    let cell = |c: Option<&[usize; 4]>| match c {
        None => "-".to_owned(),
        Some(c) if c[3] > 0 => format!("{}/{}/{}+{}", c[0], c[1], c[2], c[3]),
        Some(c) => format!("{}/{}/{}", c[0], c[1], c[2]),
    };
    for ((rule, _, severity), t) in &by {
        let _ = writeln!(
            out,
            "{rule:<34} {severity:<8} {:>12} {:>12} {:>12} {:>12} {:>12}",
            cell(t.0.get(FILES)),
            cell(t.0.get(SERVER)),
            cell(t.0.get(SAMPLE_DATA)),
            cell(t.0.get(APPS_FILES)),
            cell(t.0.get(APPS_SERVER)),
        );
    }
    out
}

/// Rewrites the list from the current findings, keeping every existing
/// verdict whose finding is still emitted at the same severity.
fn write_verdicts(path: &Path, rows: &[Row], found: &BTreeMap<Key, String>) {
    let by_key: BTreeMap<&Key, &Row> = rows.iter().map(|r| (&r.key, r)).collect();
    let by_loose: BTreeMap<(&str, &str, &str, &str), &Row> =
        rows.iter().map(|r| (r.key.sans_severity(), r)).collect();
    let mut keys: Vec<&Key> = found.keys().collect();
    keys.sort_by(|a, b| {
        let pa = PLACES.iter().position(|p| *p == a.place);
        let pb = PLACES.iter().position(|p| *p == b.place);
        (
            pa,
            &a.namespace,
            &a.rule,
            &a.path,
            severity_rank(&a.severity),
        )
            .cmp(&(
                pb,
                &b.namespace,
                &b.rule,
                &b.path,
                severity_rank(&b.severity),
            ))
    });
    let mut out = String::from(
        "# Expert verdicts on every finding docshape emits on the real data (`files`:\n\
         # ../shared/realdata as files, default sample; `server`: the same data loaded\n\
         # into the test server, read with --full) and on sample-data/ (`sample-data`);\n\
         # the workload rules' findings on sample-data/ with the bundled workload\n\
         # (`workload`) and on the real mongod log read alone (`log`: none, each of its\n\
         # 22 shapes is served by an index or _id, or returns what it reads); the real\n\
         # applications' dumps of ../shared/realapps read as files (`apps-files`, default\n\
         # sample) and loaded into the test server (`apps-server`, --full), namespaces\n\
         # APP/db.coll.\n\
         # verdict: true | false | debatable; reason: one line, honest. A finding whose\n\
         # suggestion would do harm is not `true`. Checked by tests/it/corpus.rs;\n\
         # DOCSHAPE_CORPUS_WRITE=1 cargo test --test it corpus:: rewrites the rows, keeping\n\
         # verdicts, and marks new ones `unreviewed`. Path `-`: the whole collection.\n",
    );
    out.push_str(&HEADER.join("\t"));
    out.push('\n');
    let (mut kept, mut new) = (0, 0);
    for k in keys {
        let (verdict, reason) = match by_key.get(k) {
            Some(r) => {
                kept += 1;
                (r.verdict.clone(), r.reason.clone())
            }
            None => {
                new += 1;
                let was = by_loose
                    .get(&k.sans_severity())
                    .map(|r| format!("was {} {}: {}; ", r.key.severity, r.verdict, r.reason))
                    .unwrap_or_default();
                // One line, no tab: the reason is the last column.
                let reason = format!("{was}docshape says: {}", found[k]);
                (UNREVIEWED.to_owned(), reason.replace(['\t', '\n'], " "))
            }
        };
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{verdict}\t{reason}",
            k.place, k.namespace, k.rule, k.path, k.severity
        );
    }
    std::fs::write(path, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
    eprintln!(
        "{WRITE_ENV}: wrote {} ({kept} rows kept, {new} new rows marked `{UNREVIEWED}`, {} dropped)",
        path.display(),
        rows.len() - kept
    );
}

/// Everything the list and the findings disagree on, one line each: a
/// finding not listed, a listed one no longer emitted (or at another
/// severity), a row listed twice, a row not reviewed, a warning or critical
/// the list calls `false`, more info findings on a real-data run than it
/// has collections.
fn disagreements(rows: &[Row], found: &BTreeMap<Key, String>, real_runs: &[&Run]) -> Vec<String> {
    let mut problems: Vec<String> = Vec::new();
    let mut listed: BTreeMap<&Key, &Row> = BTreeMap::new();
    for r in rows {
        if let Some(first) = listed.insert(&r.key, r) {
            problems.push(format!(
                "listed twice (lines {} and {}): {}",
                first.line,
                r.line,
                r.key.show()
            ));
        }
    }
    let loose: BTreeMap<(&str, &str, &str, &str), &Row> =
        rows.iter().map(|r| (r.key.sans_severity(), r)).collect();

    // Findings the list does not have.
    for (k, message) in found {
        if listed.contains_key(k) {
            continue;
        }
        match loose.get(&k.sans_severity()) {
            Some(r) if !found.contains_key(&r.key) => problems.push(format!(
                "severity changed {} -> {} (was `{}`: {}): {}",
                r.key.severity,
                k.severity,
                r.verdict,
                r.reason,
                k.show()
            )),
            _ => problems.push(format!(
                "new finding, not in the list: {}\n      {message}",
                k.show()
            )),
        }
    }
    // Listed findings no longer emitted.
    for r in rows {
        let moved = found
            .keys()
            .any(|k| k.sans_severity() == r.key.sans_severity() && *k != r.key);
        if !found.contains_key(&r.key) && !moved {
            problems.push(format!(
                "listed (line {}, `{}`) but no longer emitted: {}",
                r.line,
                r.verdict,
                r.key.show()
            ));
        }
    }
    // Unjudged rows, and warnings or criticals the list calls false.
    for r in rows {
        if r.verdict == UNREVIEWED {
            problems.push(format!(
                "not reviewed yet (line {}): {}\n      {}",
                r.line,
                r.key.show(),
                r.reason
            ));
        } else if r.verdict == "false" && r.key.severity != "info" && found.contains_key(&r.key) {
            problems.push(format!(
                "false {} (line {}): {}\n      {}",
                r.key.severity,
                r.line,
                r.key.show(),
                r.reason
            ));
        }
    }
    // On the real data, at most one info finding per collection on average.
    for run in real_runs {
        let infos: Vec<&Key> = run
            .findings
            .keys()
            .filter(|k| k.severity == "info")
            .collect();
        if infos.len() > run.collections {
            problems.push(format!(
                "{} info findings on {} real-data collections (at most one per collection on average)",
                infos.len(),
                run.collections
            ));
        }
    }

    problems
}

#[test]
fn every_finding_on_real_data_has_an_expert_verdict() {
    let started = Instant::now();
    let files = realdata_files();
    let on_disk: usize = files.values().map(Vec::len).sum();

    let trees = app_trees();
    // The file audits run while the server is loaded.
    let (file_run, sample_run, workload_run, log_run, server_run, apps_files_run, apps_server_run) =
        std::thread::scope(|s| {
            let f = s.spawn(|| {
                let root = realdata("");
                let report = audit(FILES, &[root.to_str().expect("utf-8 path")]);
                findings_of(&report, FILES, &str::to_owned)
            });
            let d = s.spawn(|| {
                let dir = repo().join("sample-data");
                let report = audit(SAMPLE_DATA, &[dir.to_str().expect("utf-8 path")]);
                findings_of(&report, SAMPLE_DATA, &str::to_owned)
            });
            let w = s.spawn(|| {
                let dir = repo().join("sample-data");
                let log = dir.join("workload/mongod.log");
                let report = audit(
                    WORKLOAD,
                    &[
                        dir.to_str().expect("utf-8 path"),
                        "--workload",
                        log.to_str().expect("utf-8 path"),
                    ],
                );
                let mut run = findings_of(&report, WORKLOAD, &str::to_owned);
                run.findings
                    .retain(|k, _| WORKLOAD_RULES.contains(&k.rule.as_str()));
                run
            });
            let l = s.spawn(|| {
                let log = realdata("logs");
                let report = audit(LOG, &["--workload", log.to_str().expect("utf-8 path")]);
                // Not vacuous: the log's shapes were read and judged.
                let shapes = report["workload"]["shapes"].as_array().map_or(0, Vec::len);
                assert!(shapes >= 20, "the real log gave {shapes} shapes");
                findings_of(&report, LOG, &str::to_owned)
            });
            let af = s.spawn(|| apps_file_run(&trees));
            let server = server_run(&files);
            let apps_server = apps_server_run(&trees);
            (
                f.join().expect("the file audit panicked"),
                d.join().expect("the sample-data audit panicked"),
                w.join().expect("the workload audit panicked"),
                l.join().expect("the log audit panicked"),
                server,
                af.join().expect("the applications' file audit panicked"),
                apps_server,
            )
        });
    eprintln!(
        "corpus: seven audits in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Every file of the real data is one audited collection, both ways.
    assert_eq!(
        file_run.collections, on_disk,
        "the file audit read {} collections, realdata has {on_disk} files",
        file_run.collections
    );
    assert_eq!(
        server_run.collections, on_disk,
        "the server audit read {} collections, realdata has {on_disk} files",
        server_run.collections
    );

    let mut found: BTreeMap<Key, String> = BTreeMap::new();
    for run in [
        &file_run,
        &server_run,
        &sample_run,
        &workload_run,
        &log_run,
        &apps_files_run,
        &apps_server_run,
    ] {
        found.extend(run.findings.iter().map(|(k, m)| (k.clone(), m.clone())));
    }

    let path = repo().join(VERDICTS);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut rows = parse_verdicts(&text);
    if std::env::var(WRITE_ENV).is_ok_and(|v| !v.is_empty() && v != "0") {
        write_verdicts(&path, &rows, &found);
        let text = std::fs::read_to_string(&path).expect("read the list just written");
        rows = parse_verdicts(&text);
    }

    eprintln!("{}", table(&rows));

    for run in [&file_run, &server_run, &apps_files_run, &apps_server_run] {
        let infos = run.findings.keys().filter(|k| k.severity == "info").count();
        let place = run.findings.keys().next().map_or("-", |k| k.place.as_str());
        eprintln!(
            "corpus: {infos} info findings on {} real-data collections ({place})",
            run.collections
        );
    }
    let problems = disagreements(
        &rows,
        &found,
        &[&file_run, &server_run, &apps_files_run, &apps_server_run],
    );

    let counts = |place: &str| found.keys().filter(|k| k.place == place).count();
    eprintln!(
        "corpus: {} findings (files {}, server {}, sample-data {}, workload {}, log {}, apps-files {}, apps-server {}), {} listed, {:.1} s",
        found.len(),
        counts(FILES),
        counts(SERVER),
        counts(SAMPLE_DATA),
        counts(WORKLOAD),
        counts(LOG),
        counts(APPS_FILES),
        counts(APPS_SERVER),
        rows.len(),
        started.elapsed().as_secs_f64()
    );
    let unique: BTreeSet<&String> = problems.iter().collect();
    assert!(
        problems.is_empty(),
        "the corpus disagrees with {VERDICTS} ({} problems; after a reviewed rule change, \
         `{WRITE_ENV}=1 cargo test --test it corpus::` rewrites the list keeping verdicts, \
         then judge every `{UNREVIEWED}` row):\n  {}",
        unique.len(),
        unique.into_iter().cloned().collect::<Vec<_>>().join("\n  ")
    );
}

/// The checks themselves, on a made-up list and made-up findings: each way
/// the list and the output can disagree is caught, and a clean pair passes.
mod checks {
    use super::*;

    const LIST: &str = "# a comment\n\
        where\tnamespace\trule\tpath\tseverity\tverdict\treason\n\
        files\tdb.a\tmixed-types\tx\twarning\ttrue\treal\n\
        files\tdb.a\tlong-field-names\t-\tinfo\tfalse\tordinary names\n\
        sample-data\tdb.b\tunused-index\ti\twarning\tdebatable\tmaybe\n";

    fn key(place: &str, ns: &str, rule: &str, path: &str, severity: &str) -> Key {
        Key {
            place: place.into(),
            namespace: ns.into(),
            rule: rule.into(),
            path: path.into(),
            severity: severity.into(),
        }
    }

    fn found_all() -> BTreeMap<Key, String> {
        [
            key(FILES, "db.a", "mixed-types", "x", "warning"),
            key(FILES, "db.a", "long-field-names", "-", "info"),
            key(SAMPLE_DATA, "db.b", "unused-index", "i", "warning"),
        ]
        .into_iter()
        .map(|k| (k, "message".to_owned()))
        .collect()
    }

    fn run_of(found: &BTreeMap<Key, String>, collections: usize) -> Run {
        Run {
            findings: found
                .iter()
                .filter(|(k, _)| k.place == FILES)
                .map(|(k, m)| (k.clone(), m.clone()))
                .collect(),
            collections,
        }
    }

    fn check(list: &str, found: &BTreeMap<Key, String>, collections: usize) -> Vec<String> {
        let rows = parse_verdicts(list);
        let run = run_of(found, collections);
        disagreements(&rows, found, &[&run])
    }

    #[test]
    fn a_list_that_matches_passes() {
        assert_eq!(check(LIST, &found_all(), 1), Vec::<String>::new());
    }

    #[test]
    fn a_new_finding_fails() {
        let mut found = found_all();
        found.insert(
            key(FILES, "db.c", "deep-nesting", "t", "warning"),
            "deep".into(),
        );
        let p = check(LIST, &found, 2);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("new finding") && p[0].contains("db.c deep-nesting t"),
            "{p:?}"
        );
    }

    #[test]
    fn a_vanished_finding_fails() {
        let mut found = found_all();
        found.remove(&key(SAMPLE_DATA, "db.b", "unused-index", "i", "warning"));
        let p = check(LIST, &found, 1);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].contains("no longer emitted") && p[0].contains("line 5"),
            "{p:?}"
        );
    }

    #[test]
    fn a_changed_severity_is_one_problem_naming_the_old_verdict() {
        let mut found = found_all();
        found.remove(&key(FILES, "db.a", "long-field-names", "-", "info"));
        found.insert(
            key(FILES, "db.a", "long-field-names", "-", "warning"),
            "m".into(),
        );
        let p = check(LIST, &found, 1);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("severity changed info -> warning (was `false`"),
            "{p:?}"
        );
    }

    #[test]
    fn a_false_warning_fails_and_a_false_info_does_not() {
        let list = LIST.replace("warning\ttrue\treal", "warning\tfalse\twrong");
        let p = check(&list, &found_all(), 1);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("false warning (line 3)"), "{p:?}");
    }

    #[test]
    fn an_unreviewed_row_fails() {
        let list = LIST.replace(
            "warning\tdebatable\tmaybe",
            "warning\tunreviewed\tdocshape says: m",
        );
        let p = check(&list, &found_all(), 1);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].starts_with("not reviewed yet (line 5)"), "{p:?}");
    }

    #[test]
    fn a_row_listed_twice_fails() {
        let list = format!("{LIST}files\tdb.a\tmixed-types\tx\twarning\ttrue\tagain\n");
        let p = check(&list, &found_all(), 1);
        assert!(
            p.iter()
                .any(|l| l.starts_with("listed twice (lines 3 and 6)")),
            "{p:?}"
        );
    }

    #[test]
    fn more_infos_than_collections_fails() {
        let mut found = found_all();
        found.insert(key(FILES, "db.a", "mixed-types", "y", "info"), "m".into());
        let list = format!("{LIST}files\tdb.a\tmixed-types\ty\tinfo\tfalse\twidths\n");
        assert_eq!(check(&list, &found, 2), Vec::<String>::new());
        let p = check(&list, &found, 1);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(
            p[0].starts_with("2 info findings on 1 real-data collections"),
            "{p:?}"
        );
    }

    #[test]
    #[should_panic(expected = "verdict must be one of")]
    fn an_unknown_verdict_is_refused() {
        parse_verdicts(&LIST.replace("\ttrue\treal", "\tyes\treal"));
    }

    #[test]
    #[should_panic(expected = "needs a one-line reason")]
    fn a_verdict_without_reason_is_refused() {
        parse_verdicts(&LIST.replace("\ttrue\treal", "\ttrue\t "));
    }

    #[test]
    fn rewriting_keeps_verdicts_marks_new_rows_and_drops_vanished_ones() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("verdicts.tsv");
        let rows = parse_verdicts(LIST);
        let mut found = found_all();
        found.remove(&key(SAMPLE_DATA, "db.b", "unused-index", "i", "warning"));
        found.remove(&key(FILES, "db.a", "long-field-names", "-", "info"));
        found.insert(
            key(FILES, "db.a", "long-field-names", "-", "warning"),
            "names".into(),
        );
        found.insert(
            key(SERVER, "db.a", "deep-nesting", "t", "warning"),
            "deep\tone".into(),
        );
        write_verdicts(&path, &rows, &found);
        let text = std::fs::read_to_string(&path).expect("read back");
        let again = parse_verdicts(&text);
        let got: Vec<(String, &str, &str)> = again
            .iter()
            .map(|r| (r.key.show(), r.verdict.as_str(), r.reason.as_str()))
            .collect();
        assert_eq!(got.len(), 3, "{got:?}");
        // Sorted by place, then namespace, rule, path.
        assert!(got[0].0.contains("long-field-names - [warning]"), "{got:?}");
        assert_eq!(got[0].1, UNREVIEWED);
        assert!(
            got[0]
                .2
                .starts_with("was info false: ordinary names; docshape says: names"),
            "{got:?}"
        );
        assert!(got[1].0.contains("mixed-types x [warning]"), "{got:?}");
        assert_eq!((got[1].1, got[1].2), ("true", "real"));
        assert!(got[2].0.starts_with("server"), "{got:?}");
        assert_eq!(got[2].1, UNREVIEWED);
        // A rewritten list is refused until the new rows are judged.
        let run = run_of(&found, 3);
        let p = disagreements(&again, &found, &[&run]);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p.iter().all(|l| l.starts_with("not reviewed yet")), "{p:?}");
    }
}
