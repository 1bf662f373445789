//! The findings the explorer shows as soon as a collection is read (its
//! own rules, `rules::ALONE_RULES`) are the ones the whole run makes for
//! those rules: on the bundled sample data, the real data sets and the
//! real applications' dumps, nothing shown early is taken back or changed
//! at the end, and nothing those rules find at the end was missing early.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use docshape::audit::{self, Plan};
use docshape::rules::ALONE_RULES;
use docshape::source::{FileSource, SampleMode, Selection};

use crate::common::{realdata, repo};

/// (collection, rule, path, severity, message) of each finding.
type Seen = Vec<(String, String, String, String, String)>;

fn seen<'a>(ns: &str, findings: impl Iterator<Item = &'a docshape::advise::Advice>) -> Seen {
    let mut v: Seen = findings
        .filter(|f| ALONE_RULES.contains(&f.rule))
        .map(|f| {
            (
                ns.to_owned(),
                f.rule.to_owned(),
                f.path.clone().unwrap_or_default(),
                f.severity.name().to_owned(),
                f.message.clone(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Early and final findings of the alone rules, per collection, for one
/// directory read as files.
fn early_and_final(dir: &Path) -> (BTreeMap<String, Seen>, BTreeMap<String, Seen>) {
    let plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
    let mut early = BTreeMap::new();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let report = rt
        .block_on(async {
            let mut src = FileSource::open(dir).expect("open the directory");
            let mut progress = |p: &audit::Progress<'_>| {
                if let Some(c) = p.finished {
                    let found = audit::early_findings(c, &plan);
                    assert!(
                        found
                            .iter()
                            .all(|a| a.suggestion.pattern == docshape::advise::PENDING),
                        "early findings carry no advice yet"
                    );
                    early.insert(c.namespace.clone(), seen(&c.namespace, found.iter()));
                }
            };
            audit::run_with(&mut src, &plan, audit::Control::new(&mut progress)).await
        })
        .expect("the audit ends with a report");
    let last = report
        .collections
        .iter()
        .map(|c| (c.namespace.clone(), seen(&c.namespace, c.findings.iter())))
        .collect();
    (early, last)
}

fn dirs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let subdirs = |root: PathBuf| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&root)
            .unwrap_or_else(|e| panic!("read {}: {e}", root.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        v.sort();
        v
    };
    out.push(repo().join("sample-data"));
    out.extend(
        subdirs(realdata(""))
            .into_iter()
            .filter(|p| !p.ends_with("logs")),
    );
    out.extend(subdirs(repo().join("../shared/realapps")));
    out
}

#[test]
fn early_findings_are_the_final_findings_of_the_same_rules() {
    let dirs = dirs();
    assert!(dirs.len() >= 8, "the data sets are there: {dirs:?}");
    let (mut collections, mut findings) = (0, 0);
    let mut rules = std::collections::BTreeSet::new();
    let mut differ = Vec::new();
    for dir in &dirs {
        let (early, last) = early_and_final(dir);
        assert_eq!(
            early.keys().collect::<Vec<_>>(),
            last.keys().collect::<Vec<_>>(),
            "{}: every collection arrived before it was judged",
            dir.display()
        );
        for (ns, e) in &early {
            collections += 1;
            findings += e.len();
            rules.extend(e.iter().map(|f| f.1.clone()));
            if e != &last[ns] {
                differ.push(format!(
                    "{} {ns}:\n  early {e:?}\n  final {:?}",
                    dir.display(),
                    last[ns]
                ));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    // The comparison is not empty: more than one of the rules fired.
    assert!(
        collections > 0 && rules.len() > 1,
        "{collections} collections, {findings} findings of {rules:?}"
    );
    eprintln!("{collections} collections, {findings} findings of {rules:?}: the same early and at the end");
}
