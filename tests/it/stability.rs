//! A warning stands only on evidence that does not depend on which
//! documents the sample drew: every real collection (`../shared/realdata`
//! and the applications' dumps in `../shared/realapps`) loaded into ONE
//! database of the test server — so that every field may be taken for a
//! reference to every key, dense integer ids next to years and counts,
//! names next to names — and audited with different samples: the default
//! sample twice (the server's `$sample` draws anew each time, from a fixed
//! seed on the test server), a small one, and every document. The warnings and criticals must be the same
//! in all four; info findings may differ (they say what would settle
//! them).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::{
    client, create_indexes, docshape, dumped_indexes, insert_all, json_ok, read_bson_file,
    read_ejson, realdata, repo, uri,
};

const DB: &str = "stability_all";

/// A warning or critical: `(collection, rule, path)`.
type Warning = (String, String, String);

/// Every collection of the real data, as `(collection name, documents,
/// index specifications)`; names carry their source so none collide.
fn real_collections() -> Vec<(String, Vec<bson::Document>, Vec<bson::Document>)> {
    let mut out = Vec::new();
    let data = realdata("");
    let mut dirs: Vec<_> = std::fs::read_dir(&data)
        .expect("realdata")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir() && !p.ends_with("logs"))
        .collect();
    dirs.sort();
    for dir in dirs {
        let dname = dir
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8")
            .to_owned();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("a realdata directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for f in files {
            let stem = f.file_stem().and_then(|s| s.to_str()).expect("utf-8");
            out.push((format!("{dname}__{stem}"), read_ejson(&f), Vec::new()));
        }
    }
    let apps = repo().join("../shared/realapps");
    let mut app_dirs: Vec<_> = std::fs::read_dir(&apps)
        .expect("realapps")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    app_dirs.sort();
    for app in app_dirs {
        let aname = app
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8")
            .to_owned();
        let mut dbs: Vec<_> = std::fs::read_dir(&app)
            .expect("an application's dump")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        dbs.sort();
        for db in dbs {
            let dbname = db
                .file_name()
                .and_then(|n| n.to_str())
                .expect("utf-8")
                .to_owned();
            let mut files: Vec<_> = std::fs::read_dir(&db)
                .expect("a dumped database")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "bson"))
                .collect();
            files.sort();
            for f in files {
                let stem = f.file_stem().and_then(|s| s.to_str()).expect("utf-8");
                if stem.starts_with("system.") {
                    continue;
                }
                let specs = dumped_indexes(&db, &dbname, stem);
                out.push((
                    format!("{aname}__{dbname}__{stem}"),
                    read_bson_file(&f),
                    specs,
                ));
            }
        }
    }
    out
}

/// The warnings and criticals of an audit of the database: `(collection,
/// rule, path)`, deployment-wide ones under `-`.
fn warnings(args: &[&str]) -> BTreeSet<Warning> {
    let target = uri();
    let mut all: Vec<&str> = vec![
        "audit",
        &target,
        "--db",
        DB,
        "--timeout",
        "900",
        "--format",
        "json",
        "--fail-on",
        "never",
    ];
    all.extend(args);
    let out = docshape(&all);
    let report = json_ok(&out);
    // `DOCSHAPE_STABILITY_REPORTS=DIR` keeps each report, to read why a
    // finding came and went.
    if let Some(dir) = std::env::var_os("DOCSHAPE_STABILITY_REPORTS").filter(|d| !d.is_empty()) {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("a directory for the reports");
        let name: String = args
            .iter()
            .map(|a| a.trim_start_matches('-'))
            .collect::<Vec<_>>()
            .join("_");
        let name = if name.is_empty() {
            "default".to_owned()
        } else {
            name
        };
        let mut file = dir.join(format!("{name}.json"));
        let mut n = 1;
        while file.exists() {
            n += 1;
            file = dir.join(format!("{name}-{n}.json"));
        }
        std::fs::write(&file, &out.stdout).expect("write a report");
    }
    let mut out = BTreeSet::new();
    let mut add = |ns: &str, f: &serde_json::Value| {
        let sev = f["severity"].as_str().unwrap_or("");
        if sev == "warning" || sev == "critical" {
            out.insert((
                ns.to_owned(),
                f["rule"].as_str().unwrap_or("").to_owned(),
                f["path"].as_str().unwrap_or("-").to_owned(),
            ));
        }
    };
    for c in report["collections"].as_array().expect("collections") {
        let ns = c["namespace"].as_str().expect("namespace");
        for f in c["findings"].as_array().expect("findings") {
            add(ns, f);
        }
    }
    for f in report["findings"].as_array().map_or(&[][..], Vec::as_slice) {
        add("-", f);
    }
    out
}

#[test]
fn warnings_do_not_depend_on_the_sample() {
    let started = std::time::Instant::now();
    let colls = real_collections();
    assert!(colls.len() > 100, "{} real collections", colls.len());
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    rt.block_on(async {
        let c = client().await;
        c.database(DB).drop().await.expect("drop");
        let mut loads = Vec::new();
        for (name, docs, specs) in colls {
            let c = c.clone();
            loads.push(tokio::spawn(async move {
                insert_all(&c, DB, &name, &docs).await;
                let failed = create_indexes(&c, DB, &name, &specs).await;
                assert!(failed.is_empty(), "{failed:?}");
            }));
        }
        for l in loads {
            l.await.expect("loading panicked");
        }
    });
    eprintln!(
        "stability: loaded in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    // The test server draws every `$sample` from one generator of a fixed
    // seed (`common::SAMPLE_SEED`): the sampled audits run one after the
    // other, each reading one collection at a time (the listing is sorted),
    // so the draws come in the same order and the samples are the same on
    // every run, though different between the audits. The audit of every
    // document draws nothing and runs beside them. (A `$MONGODB_URI` server
    // draws at random: there the verdict rests on docshape alone.)
    let sampled: [(&str, &[&str]); 3] = [
        ("default sample", &["--concurrency", "1"]),
        ("default sample, drawn again", &["--concurrency", "1"]),
        ("200 documents", &["--sample", "200", "--concurrency", "1"]),
    ];
    let found: Vec<(&str, BTreeSet<Warning>)> = std::thread::scope(|s| {
        let full = s.spawn(common::inherit(|| warnings(&["--full"])));
        let mut found: Vec<(&str, BTreeSet<Warning>)> = sampled
            .iter()
            .map(|(name, args)| (*name, warnings(args)))
            .collect();
        found.push(("every document", full.join().expect("an audit panicked")));
        found
    });
    eprintln!(
        "stability: four audits done in {:.1} s, {} warnings in the first",
        started.elapsed().as_secs_f64(),
        found[0].1.len()
    );
    let mut problems: BTreeMap<Warning, Vec<&str>> = BTreeMap::new();
    let union: BTreeSet<&Warning> = found.iter().flat_map(|(_, w)| w).collect();
    for w in union {
        let missing: Vec<&str> = found
            .iter()
            .filter(|(_, set)| !set.contains(w))
            .map(|(n, _)| *n)
            .collect();
        if !missing.is_empty() {
            problems.insert(w.clone(), missing);
        }
    }
    assert!(
        problems.is_empty(),
        "warnings that depend on the sample ({}):\n{}",
        problems.len(),
        problems
            .iter()
            .map(|((ns, rule, path), missing)| format!(
                "  {ns} {rule} {path}: absent with {}",
                missing.join(", ")
            ))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
