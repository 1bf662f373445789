//! Every migration script docshape suggests for real data, run with the
//! real `mongosh` on that data: each database of `../shared/realdata`,
//! `../shared/realapps` and `sample-data/` is loaded into the test server
//! and audited, and every script of the report runs three times — as
//! written (a dry run), switched on, and switched on again — after which:
//!
//! - (a) the dry run changed nothing at all;
//! - (b) every collection holds the same documents, by `_id` (but for
//!   those a TTL index deletes, `expiring-without-ttl`: each, as it was,
//!   in a backup the undo names);
//! - (c) nothing changed outside the paths the finding names (a field no
//!   document held before may appear elsewhere: a discriminator, a version
//!   stamp), no `_id` changed at any depth, and no value a reference joins
//!   on changed;
//! - (d) every document that changed is, as it was, in a backup collection
//!   the undo command names;
//! - (f) the second run changed nothing;
//! - (g) once every script of the database ran, the audit no longer finds
//!   what each fixed, or the script said why it would;
//! - (h) a conversion (of dates, numbers, types, references) ends each run
//!   with what the re-audit will report on its path, and tells the truth:
//!   the dry run says what the run then says, and the re-audit finds on
//!   the path exactly the rules the last conversion of it named, among
//!   those a conversion can leave behind (a path left `mixed-types` is
//!   said to be, before anything changed);
//! - (e) the undo command each printed, run in the reverse order, gives
//!   back every document and index byte for byte, leaving only the backups
//!   it names.
//!
//! Databases are worked on side by side, each worker with one `mongosh`
//! that runs every script it is given, one block each.

use crate::common;
use crate::migrate;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bson::Document;
use serde_json::Value;

use docshape::advise::change::still_reported;
use docshape::advise::reaudit;
use docshape::i18n::Lang;
use migrate::{
    applied, changes, held_paths, inner_ids, leaf_paths, named_collections, undo_command, Change,
    Shell, Snapshot, DRY,
};

/// One database to load: a directory of documents, loaded under the names
/// the application gives its collections (a folder of exports
/// `test.users.json` as collection `users`, in a database standing for
/// `test`).
struct Job {
    /// Where it comes from (`realapps/trudesk/ticketdesk`).
    label: String,
    dir: PathBuf,
    db: String,
    bytes: u64,
}

/// What one database showed.
#[derive(Default)]
struct Outcome {
    label: String,
    collections: usize,
    scripts: usize,
    changing: usize,
    rules: BTreeMap<String, usize>,
    failures: Vec<String>,
    secs: f64,
    /// Seconds spent on each step.
    phases: Vec<(&'static str, f64)>,
}

/// One script of the report, with the finding it belongs to.
struct Script {
    namespace: String,
    rule: String,
    path: Option<String>,
    /// The fields under `path` the finding names (`evidence.fields`).
    fields: Vec<String>,
    source: Option<String>,
    migration: String,
}

impl Script {
    fn name(&self) -> String {
        format!(
            "{} {} {}{}",
            self.namespace,
            self.rule,
            self.path.as_deref().unwrap_or("-"),
            self.source
                .as_deref()
                .map_or_else(String::new, |s| format!(" (from {s})"))
        )
    }

    fn coll(&self, db: &str) -> Option<String> {
        self.namespace
            .strip_prefix(&format!("{db}."))
            .map(str::to_owned)
    }

    /// The same finding in another report.
    fn present_in(&self, report: &Value) -> bool {
        let same = |f: &Value| {
            f["rule"] == self.rule.as_str()
                && f["path"].as_str() == self.path.as_deref()
                && f["evidence"]["source"].as_str() == self.source.as_deref()
        };
        common::collections(report)
            .iter()
            .filter(|c| c["namespace"] == self.namespace.as_str())
            .flat_map(|c| c["findings"].as_array().into_iter().flatten())
            .chain(report["findings"].as_array().into_iter().flatten())
            .any(|f| f["namespace"] == self.namespace.as_str() && same(f))
    }
}

/// Every directory of documents under the three roots, as a database.
fn jobs() -> Vec<Job> {
    let repo = common::repo();
    let shared = repo.join("../shared");
    let mut roots: Vec<(String, PathBuf)> = vec![
        ("realdata".into(), shared.join("realdata")),
        ("sample-data".into(), repo.join("sample-data")),
    ];
    let apps = shared.join("realapps");
    let mut trees: Vec<PathBuf> = std::fs::read_dir(&apps)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", apps.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    trees.sort();
    for t in trees {
        let name = t
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("app")
            .to_owned();
        roots.push((format!("realapps/{name}"), t));
    }
    let mut out = Vec::new();
    for (root_label, root) in roots {
        assert!(root.is_dir(), "{} is missing", root.display());
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
            .unwrap_or_else(|e| panic!("cannot list {}: {e}", root.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for dir in dirs {
            let name = dir
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("db")
                .to_owned();
            let bytes = std::fs::read_dir(&dir).map_or(0, |r| {
                r.filter_map(|e| e.ok()?.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            });
            // The database the folder holds (`test` for a folder of exports
            // `test.users.json`), in a name unique to this run.
            let held = common::dir_naming(&dir).db;
            let tag: String = format!("{}_{held}", root_label.rsplit('/').next().unwrap_or("d"))
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(40)
                .collect();
            out.push(Job {
                label: format!("{root_label}/{name}"),
                db: common::unique_db(&tag),
                dir,
                bytes,
            });
        }
    }
    out
}

/// The scripts of a report about `db`, in the report's order.
fn scripts_of(report: &Value, db: &str) -> Vec<Script> {
    let ours = |f: &Value| {
        f["namespace"]
            .as_str()
            .is_some_and(|ns| ns == db || ns.starts_with(&format!("{db}.")))
    };
    common::collections(report)
        .iter()
        .flat_map(|c| c["findings"].as_array().into_iter().flatten())
        .chain(report["findings"].as_array().into_iter().flatten())
        .filter(|f| ours(f))
        .filter_map(|f| {
            let migration = f["suggestion"]["migration"].as_str()?;
            (!migration.is_empty()).then(|| Script {
                namespace: f["namespace"].as_str().unwrap_or_default().to_owned(),
                rule: f["rule"].as_str().unwrap_or_default().to_owned(),
                path: f["path"].as_str().map(str::to_owned),
                fields: f["evidence"]["fields"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
                source: f["evidence"]["source"].as_str().map(str::to_owned),
                migration: migration.to_owned(),
            })
        })
        .collect()
}

/// The reference paths of each collection of `db`: `(collection, path)`
/// for every relationship's `from`.
fn references(report: &Value, db: &str) -> BTreeSet<(String, String)> {
    let colls: Vec<String> = common::collections(report)
        .iter()
        .filter_map(|c| c["namespace"].as_str())
        .filter_map(|ns| ns.strip_prefix(&format!("{db}.")).map(str::to_owned))
        .collect();
    let mut out = BTreeSet::new();
    // An embedded relationship is the sub-documents of an array, not a
    // reference.
    for r in report["relationships"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["kind"] != "embedded")
    {
        let Some(from) = r["from"]
            .as_str()
            .and_then(|f| f.strip_prefix(&format!("{db}.")))
        else {
            continue;
        };
        // The longest collection name the path starts with (names hold dots).
        if let Some(c) = colls
            .iter()
            .filter(|c| from.starts_with(&format!("{c}.")))
            .max_by_key(|c| c.len())
        {
            out.insert((c.clone(), from[c.len() + 1..].to_owned()));
        }
    }
    out
}

/// `x` is `prefix` or lies below it.
fn under(x: &str, prefix: &str) -> bool {
    x == prefix
        || x.strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with("[]"))
}

fn doc(raw: &bson::RawDocumentBuf) -> Document {
    Document::try_from(raw).expect("a stored document decodes")
}

/// Which collections of two snapshots differ, and how (for messages).
fn differences(a: &Snapshot, b: &Snapshot) -> String {
    let mut out = Vec::new();
    for (name, held) in a {
        match b.get(name) {
            None => out.push(format!("{name} gone")),
            Some(h) if h != held => {
                let docs = held
                    .docs
                    .iter()
                    .filter(|(id, d)| h.docs.get(*id) != Some(*d))
                    .count()
                    + h.docs
                        .keys()
                        .filter(|id| !held.docs.contains_key(*id))
                        .count();
                let idx = if h.indexes == held.indexes {
                    String::new()
                } else {
                    format!(
                        ", indexes {:?} -> {:?}",
                        names(&held.indexes),
                        names(&h.indexes)
                    )
                };
                out.push(format!("{name}: {docs} documents differ{idx}"));
            }
            Some(_) => {}
        }
    }
    for name in b.keys().filter(|n| !a.contains_key(*n)) {
        out.push(format!("{name} new"));
    }
    out.join("; ")
}

fn names(idx: &[Document]) -> Vec<String> {
    idx.iter()
        .map(|i| i.get_str("name").unwrap_or("?").to_owned())
        .collect()
}

/// Checks (b), (c) and (d) of one switched-on run that took `before` to
/// `after`; the failures, each a sentence.
fn check_apply(
    s: &Script,
    db: &str,
    before: &Snapshot,
    after: &Snapshot,
    out: &str,
    refs: &BTreeSet<(String, String)>,
) -> Vec<String> {
    let mut bad = Vec::new();
    let undo = undo_command(out);
    let named = undo.map(named_collections).unwrap_or_default();
    let fresh: Vec<&String> = after.keys().filter(|n| !before.contains_key(*n)).collect();
    let changed = !fresh.is_empty() || before.iter().any(|(n, h)| after.get(n) != Some(h));
    if changed && undo.is_none() {
        bad.push(format!(
            "it changed data ({}) but printed no undo command:\n{out}",
            differences(before, after)
        ));
    }
    let home = s.coll(db);
    for (name, held) in before {
        let Some(now) = after.get(name) else {
            bad.push(format!("(b) collection {name} is gone"));
            continue;
        };
        if held.docs.keys().ne(now.docs.keys()) {
            // A TTL index deletes what has expired, and says so: the
            // documents gone must be, as they were, in a backup the undo
            // names; none may appear.
            let gone: Vec<&String> = held
                .docs
                .keys()
                .filter(|id| !now.docs.contains_key(*id))
                .collect();
            let saved = |id: &String| {
                fresh
                    .iter()
                    .filter(|b| named.contains(b.as_str()))
                    .any(|b| after[*b].docs.get(id) == held.docs.get(id))
            };
            let deletes = s.rule == "expiring-without-ttl" && Some(name) == home.as_ref();
            let appeared = now.docs.keys().any(|id| !held.docs.contains_key(id));
            if !deletes || appeared || !gone.iter().all(|id| saved(id)) {
                bad.push(format!(
                    "(b) {name} no longer holds the same documents: {} before, {} after",
                    held.docs.len(),
                    now.docs.len()
                ));
                continue;
            }
        }
        let mut held_before: Option<BTreeSet<String>> = None;
        for (id, old) in &held.docs {
            // Deleted (and saved) by a TTL index, checked above.
            let Some(new) = now.docs.get(id) else {
                continue;
            };
            if new == old {
                continue;
            }
            // (d) the document as it was, in a backup the undo names.
            let saved = fresh
                .iter()
                .filter(|b| named.contains(b.as_str()))
                .any(|b| after[*b].docs.get(id) == Some(old));
            if !saved {
                bad.push(format!(
                    "(d) {name} {id} changed but is in no backup the undo names"
                ));
            }
            let (old, new) = (doc(old), doc(new));
            if !inner_ids(&new).iter().all(|x| inner_ids(&old).contains(x)) {
                bad.push(format!(
                    "(c) an _id inside {name} {id} changed:\nbefore {old}\nafter  {new}"
                ));
            }
            let held_before = held_before.get_or_insert_with(|| {
                let mut paths = BTreeSet::new();
                for d in held.docs.values() {
                    held_paths(&doc(d), &mut paths);
                }
                paths
            });
            for c in changes(&old, &new) {
                let x = c.path();
                if let Some((_, r)) = refs.iter().find(|(c, r)| {
                    c == name && under(x, r) && s.path.as_deref() != Some(r.as_str())
                }) {
                    bad.push(format!(
                        "(c) {name} {id}: {x} changed, a value the reference {r} joins on"
                    ));
                    continue;
                }
                // New fields, no document held before, outside the finding's path.
                let outside = |p: &str| s.path.as_deref().is_none_or(|f| !under(p, f));
                let new_field = match &c {
                    Change::Added(p, v) => {
                        let mut leaves = Vec::new();
                        leaf_paths(p, v, &mut leaves);
                        leaves
                            .iter()
                            .all(|l| !held_before.contains(l) && outside(l))
                    }
                    _ => false,
                };
                // What the finding names: its path (only the fields its
                // evidence names, when it names some); a field holding that
                // path may go as a whole (a sub-tree moved out).
                let allowed = if Some(name) == home.as_ref() {
                    match (s.path.as_deref(), &c) {
                        (None, _) => true,
                        (Some(p), Change::Removed(r)) if under(p, r) && s.fields.is_empty() => true,
                        (Some(p), _) if s.fields.is_empty() => under(x, p),
                        (Some(p), _) => s.fields.iter().any(|f| under(x, &format!("{p}.{f}"))),
                    }
                } else {
                    false
                };
                if !allowed && !new_field {
                    bad.push(format!(
                        "(c) {name} {id}: {x} changed, outside what the finding names ({}{}):\nbefore {old}\nafter  {new}",
                        s.path.as_deref().unwrap_or("-"),
                        if s.fields.is_empty() { String::new() } else { format!(": {}", s.fields.join(", ")) }
                    ));
                }
            }
        }
    }
    bad
}

/// The collections of `state` that `js` names (as a JSON string, the way
/// every script names a collection: `getCollection("…")`, `from`, `into`),
/// and any collection `state` does not hold (made since). A script reaches
/// no other collection, so only these are read back after it ran; the
/// whole database is compared once every script is undone.
fn reach<'a>(state: &'a Snapshot, js: &'a str) -> impl Fn(&str) -> bool + 'a {
    move |name: &str| {
        !state.contains_key(name)
            || serde_json::to_string(name).is_ok_and(|quoted| js.contains(&quoted))
    }
}

/// `snap` written over `state`, and the collections it lacks that `state`
/// held only because they were new gone from it: what the database holds.
fn absorb(state: &mut Snapshot, snap: Snapshot, seen: &impl Fn(&str) -> bool) {
    state.retain(|name, _| !seen(name) || snap.contains_key(name));
    state.extend(snap);
}

/// What one script ran on and left.
struct Ran {
    script: usize,
    /// The collections it reached, as they were before it.
    before: Snapshot,
    /// Every collection there was before it.
    names: BTreeSet<String>,
    undo: Option<String>,
    /// What it printed.
    out: String,
    /// What it printed last in its dry run, its run and its second run.
    last: [String; 3],
}

/// The last line a run printed.
fn last_line(out: &str) -> String {
    out.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_owned()
}

/// The last conversion of a path: the script, the rules its last line
/// named, and the rules the lines of the path's conversions speak about.
type LastSaid = (usize, Vec<String>, BTreeSet<String>);

/// (h): each conversion's re-audit lines against one another and against
/// the audit of what every script left (`later`); the failures.
fn check_reaudit(scripts: &[Script], ran: &[Ran], later: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    // The last conversion of each path: what it said, and what it speaks of.
    let mut last: BTreeMap<(String, String), LastSaid> = BTreeMap::new();
    for r in ran {
        let s = &scripts[r.script];
        let watched = reaudit::watched(&s.rule);
        if watched.is_empty() {
            continue;
        }
        let said: Vec<Option<(Vec<String>, String)>> =
            r.last.iter().map(|l| reaudit::read_line(l)).collect();
        let [Some(dry), Some(run), Some(again)] = [&said[0], &said[1], &said[2]] else {
            bad.push(format!(
                "{}: (h) a conversion's runs must each end with what the re-audit will report; they ended with:\n{}",
                s.name(),
                r.last.join("\n")
            ));
            continue;
        };
        if dry.0 != run.0 {
            bad.push(format!(
                "{}: (h) the dry run said one thing, the run another:\n{}\n{}",
                s.name(),
                r.last[0],
                r.last[1]
            ));
        }
        let Some(path) = s.path.clone() else { continue };
        let key = (s.namespace.clone(), path);
        let mut speaks: BTreeSet<String> = watched.iter().map(|w| (*w).to_owned()).collect();
        if let Some((_, _, before)) = last.get(&key) {
            speaks.extend(before.iter().cloned());
        }
        speaks.extend(again.0.iter().cloned());
        last.insert(key, (r.script, again.0.clone(), speaks));
    }
    for ((ns, path), (i, said, speaks)) in &last {
        let found: BTreeSet<String> = common::collections(later)
            .iter()
            .filter(|c| c["namespace"] == ns.as_str())
            .flat_map(|c| c["findings"].as_array().into_iter().flatten())
            .filter(|f| f["path"].as_str() == Some(path.as_str()))
            .filter_map(|f| f["rule"].as_str().map(str::to_owned))
            .filter(|r| speaks.contains(r))
            .collect();
        let said: BTreeSet<String> = said.iter().cloned().collect();
        if found != said {
            let r = ran.iter().find(|r| r.script == *i).expect("ran");
            bad.push(format!(
                "{}: (h) its last line says the re-audit reports {said:?} on {path}, the re-audit reports {found:?}:\n{}",
                scripts[*i].name(),
                r.last[2]
            ));
        }
    }
    bad
}

/// Seconds since `t`, and `t` set to now.
fn lap(t: &mut Instant) -> f64 {
    let s = t.elapsed().as_secs_f64();
    *t = Instant::now();
    s
}

/// Loads, audits and runs every script of one database.
fn run_job(
    rt: &tokio::runtime::Runtime,
    client: &mongodb::Client,
    shell: &mut Shell,
    job: &Job,
) -> Outcome {
    let started = Instant::now();
    let mut t = Instant::now();
    let mut o = Outcome {
        label: job.label.clone(),
        ..Outcome::default()
    };
    let db = job.db.as_str();
    let (made, index_failures) = rt.block_on(common::load_dir(client, &job.dir, db));
    o.phases.push(("load", lap(&mut t)));
    for f in index_failures {
        eprintln!("{}: {f}", job.label);
    }
    if made.is_empty() {
        return o;
    }
    let report = rt.block_on(migrate::audit(&format!("{db}.*")));
    o.phases.push(("audit", lap(&mut t)));
    let audited: BTreeSet<String> = common::collections(&report)
        .iter()
        .filter_map(|c| c["namespace"].as_str())
        .map(str::to_owned)
        .collect();
    for c in &made {
        if !audited.contains(&format!("{db}.{c}")) {
            o.failures
                .push(format!("{}: {c} was loaded but not audited", job.label));
        }
    }
    o.collections = made.len();
    let scripts = scripts_of(&report, db);
    let refs = references(&report, db);
    let still = still_reported(Lang::En);
    let first = rt.block_on(migrate::snapshot(client, db));
    let mut state = first.clone();
    let mut ran: Vec<Ran> = Vec::new();
    for (i, s) in scripts.iter().enumerate() {
        let name = format!("{}: {}", job.label, s.name());
        let mut fail = |m: String| o.failures.push(format!("{name}: {m}"));
        o.scripts += 1;
        *o.rules.entry(s.rule.clone()).or_default() += 1;
        let changing = s.migration.starts_with(DRY);
        o.changing += usize::from(changing);
        let snap = |state: &Snapshot| {
            rt.block_on(migrate::snapshot_of(client, db, reach(state, &s.migration)))
        };
        let before: Snapshot = state
            .iter()
            .filter(|(n, _)| reach(&state, &s.migration)(n))
            .map(|(n, h)| (n.clone(), h.clone()))
            .collect();
        // (a)
        let (ok, dry) = shell.run(&s.migration);
        let mut last = [last_line(&dry), String::new(), String::new()];
        if !ok && !dry.contains(still) {
            fail(format!("the dry run failed:\n{dry}"));
        }
        let now = snap(&state);
        if now != before {
            fail(format!(
                "(a) the dry run changed {}:\n{dry}",
                differences(&before, &now)
            ));
        }
        let text = applied(&s.migration);
        let (ok, out) = shell.run(&text);
        last[1] = last_line(&out);
        if !ok && !out.contains(still) {
            fail(format!("the run failed:\n{out}"));
        }
        let after = snap(&state);
        for m in check_apply(s, db, &before, &after, &out, &refs) {
            fail(m);
        }
        // (f)
        let (ok, again) = shell.run(&text);
        last[2] = last_line(&again);
        if !ok && !again.contains(still) {
            fail(format!("the second run failed:\n{again}"));
        }
        let twice = snap(&state);
        if twice != after {
            fail(format!(
                "(f) the second run changed {}:\n{again}",
                differences(&after, &twice)
            ));
        }
        let names = state.keys().cloned().collect();
        let mut next = state.clone();
        absorb(&mut next, twice, &reach(&state, &s.migration));
        state = next;
        ran.push(Ran {
            script: i,
            before,
            names,
            undo: undo_command(&out).map(str::to_owned),
            out: format!("{dry}{out}"),
            last,
        });
    }
    o.phases.push(("scripts", lap(&mut t)));
    // (g): an audit of what the scripts left. A database no script changed
    // (none printed an undo command; a change without one has failed
    // above) is what was audited already.
    if !scripts.is_empty() {
        let later = if ran.iter().any(|r| r.undo.is_some()) {
            rt.block_on(migrate::audit(&format!("{db}.*")))
        } else {
            report.clone()
        };
        for Ran { script, out, .. } in &ran {
            let s = &scripts[*script];
            if s.present_in(&later) && !out.contains(still) {
                o.failures.push(format!(
                    "{}: {}: (g) the audit still finds it, and the script did not say why:\n{out}",
                    job.label,
                    s.name()
                ));
            }
        }
        for m in check_reaudit(&scripts, &ran, &later) {
            o.failures.push(format!("{}: {m}", job.label));
        }
    }
    o.phases.push(("re-audit", lap(&mut t)));
    // (e), newest first.
    for Ran {
        script,
        before,
        names,
        undo,
        ..
    } in ran.iter().rev()
    {
        let Some(undo) = undo else { continue };
        let name = format!("{}: {}", job.label, scripts[*script].name());
        let (ok, out) = shell.run(undo);
        if !ok {
            o.failures.push(format!(
                "{name}: (e) the undo command failed:\n{out}\n{undo}"
            ));
        }
        let named = named_collections(undo);
        let now = rt.block_on(migrate::snapshot_of(client, db, |n| {
            before.contains_key(n) || !names.contains(n)
        }));
        for (coll, held) in before {
            if now.get(coll) != Some(held) {
                o.failures.push(format!(
                    "{name}: (e) the undo command did not give {coll} back: {}",
                    differences(
                        &Snapshot::from([(coll.clone(), held.clone())]),
                        &now.get(coll)
                            .map(|h| Snapshot::from([(coll.clone(), h.clone())]))
                            .unwrap_or_default()
                    )
                ));
            }
        }
        // What is left is what this script made, and every later one's is
        // gone already: only the backups its undo names may stay.
        for left in now.keys().filter(|n| !names.contains(*n)) {
            if !named.contains(left) {
                o.failures.push(format!(
                    "{name}: (e) the undo left {left} behind, which it does not name"
                ));
            }
            rt.block_on(async {
                client
                    .database(db)
                    .collection::<Document>(left)
                    .drop()
                    .await
                    .expect("drop a backup");
            });
        }
    }
    let last = rt.block_on(migrate::snapshot(client, db));
    if last != first {
        o.failures.push(format!(
            "{}: after every undo the database differs from what was loaded: {}",
            job.label,
            differences(&first, &last)
        ));
    }
    o.phases.push(("undo", lap(&mut t)));
    rt.block_on(async { client.database(db).drop().await.expect("drop the database") });
    o.secs = started.elapsed().as_secs_f64();
    o
}

/// Set to parts of databases' labels, comma-separated
/// (`realapps/chitchat,sample-data/shop`), to work on those databases only
/// while working on a script; unset, every database.
const ONLY: &str = "DOCSHAPE_REAL_DATA_ONLY";

#[test]
fn every_script_on_every_real_collection() {
    let started = Instant::now();
    let mut jobs = jobs();
    if let Ok(only) = std::env::var(ONLY) {
        jobs.retain(|j| only.split(',').any(|o| j.label.contains(o)));
        eprintln!("{ONLY}={only}: {} databases only", jobs.len());
    }
    // The largest first, so that the longest database does not start last.
    jobs.sort_by_key(|j| std::cmp::Reverse(j.bytes));
    let total = jobs.len();
    let queue = Arc::new(Mutex::new(jobs.into_iter().collect::<VecDeque<Job>>()));
    let results = Arc::new(Mutex::new(Vec::new()));
    let workers = std::thread::available_parallelism().map_or(2, std::num::NonZero::get) + 1;
    let handles: Vec<_> = (0..workers.min(total))
        .map(|_| {
            let queue = Arc::clone(&queue);
            let results = Arc::clone(&results);
            std::thread::spawn(common::inherit(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime");
                let client = rt.block_on(common::client());
                let mut shell = Shell::start();
                loop {
                    let Some(job) = queue.lock().expect("queue").pop_front() else {
                        break;
                    };
                    let o = run_job(&rt, &client, &mut shell, &job);
                    results.lock().expect("results").push(o);
                }
            }))
        })
        .collect();
    for h in handles {
        h.join().expect("a worker panicked");
    }
    let results = std::mem::take(&mut *results.lock().expect("results"));
    let mut rules: BTreeMap<String, usize> = BTreeMap::new();
    let (mut colls, mut scripts, mut changing) = (0, 0, 0);
    let mut failures = Vec::new();
    for o in &results {
        let phases: Vec<String> = o
            .phases
            .iter()
            .map(|(p, s)| format!("{p} {s:.1}"))
            .collect();
        eprintln!(
            "{:<40} {:>3} collections {:>3} scripts {:>6.1} s ({})",
            o.label,
            o.collections,
            o.scripts,
            o.secs,
            phases.join(", ")
        );
        colls += o.collections;
        scripts += o.scripts;
        changing += o.changing;
        for (r, n) in &o.rules {
            *rules.entry(r.clone()).or_default() += n;
        }
        failures.extend(o.failures.iter().cloned());
    }
    eprintln!(
        "{} databases, {colls} collections, {scripts} scripts ({changing} that change data) in {:.1} s",
        results.len(),
        started.elapsed().as_secs_f64()
    );
    for (r, n) in &rules {
        eprintln!("  {r}: {n}");
    }
    assert_eq!(results.len(), total, "every database was worked on");
    assert!(colls > 0 && scripts > 0, "real data was loaded and judged");
    assert!(
        failures.is_empty(),
        "{} failures:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
