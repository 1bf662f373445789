//! Lessons render in both languages from the bundled data, offline, and the
//! numbers they quote come from the data: change the data, the numbers move.

use crate::common;

use std::path::Path;

use common::docshape_env;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

fn lesson(name: &str, lang: &str, data: &Path) -> String {
    let out = docshape_env(
        &["lesson", name, "--lang", lang],
        &[
            ("DOCSHAPE_SAMPLE_DATA", data.to_str().expect("utf-8")),
            ("MONGODB_URI", ""),
        ],
    );
    assert!(
        out.status.success(),
        "lesson {name} ({lang}): {}",
        common::stderr(&out)
    );
    common::stdout(&out)
}

#[test]
fn every_lesson_renders_in_both_languages_offline() {
    let data = common::repo().join("sample-data");
    let list = common::stdout(&docshape_env(&["lesson", "--lang", "en"], &[]));
    let names: Vec<String> = list
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(names.len() >= 10, "{list}");
    for name in &names {
        let en = lesson(name, "en", &data);
        assert!(en.contains("Question for the class"), "{name}: {en}");
        assert!(
            en.contains("GOOD") && en.contains("BAD"),
            "{name} shows both variants: {en}"
        );
        let zh = lesson(name, "zh", &data);
        assert!(
            zh.contains("课堂提问") && zh.contains("好的设计") && zh.contains("不好的设计"),
            "{name}: {zh}"
        );
    }
    let out = docshape_env(&["lesson", "no-such-lesson"], &[]);
    common::assert_fails_cleanly(&out, "unknown lesson");
}

#[test]
fn lesson_numbers_follow_the_data() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("sample-data");
    let src = common::repo().join("sample-data");
    for set in ["one_to_few", "one_to_many", "one_to_squillions"] {
        copy_dir(&src.join(set), &root.join(set));
    }
    let before = lesson("cardinality", "en", &root);
    assert!(
        before.contains("up to 1,600"),
        "the bad products hold up to 1,600 part ids: {before}"
    );

    // Cut every bad product's part list to its first 7 ids.
    let file = root.join("one_to_many/bad_products.json");
    let text = std::fs::read_to_string(&file).expect("read");
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut v: serde_json::Value = serde_json::from_str(line).expect("json line");
        if let Some(ids) = v
            .get_mut("part_ids")
            .and_then(serde_json::Value::as_array_mut)
        {
            ids.truncate(7);
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    std::fs::write(&file, out).expect("write");
    let after = lesson("cardinality", "en", &root);
    assert!(!after.contains("up to 1,600"), "{after}");
    assert!(
        after.contains("part_ids: up to 7"),
        "the lesson quotes the new length: {after}"
    );
    assert_ne!(before, after);
}

/// Keeps the lines of `log` for which `keep(namespace, n)` holds, `n`
/// counting that namespace's lines from 1.
fn filter_log(log: &Path, keep: &dyn Fn(&str, usize) -> bool) {
    let text = std::fs::read_to_string(log).expect("read log");
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut out = String::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("log line");
        let ns = v["attr"]["ns"].as_str().expect("ns").to_owned();
        let n = seen.entry(ns.clone()).or_default();
        *n += 1;
        if keep(&ns, *n) {
            out.push_str(line);
            out.push('\n');
        }
    }
    std::fs::write(log, out).expect("write log");
}

#[test]
fn workload_lessons_quote_the_bundled_log_and_follow_it() {
    let list = common::stdout(&docshape_env(&["lesson", "--lang", "en"], &[]));
    assert!(
        list.contains("esr") && list.contains("refine-by-workload"),
        "{list}"
    );
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().join("sample-data");
    let src = common::repo().join("sample-data");
    for set in ["indexes", "contacts", "extended_reference", "workload"] {
        copy_dir(&src.join(set), &root.join(set));
    }

    let esr = lesson("esr", "en", &root);
    assert!(esr.contains("WORKLOAD"), "{esr}");
    // The shape, its cost and the index in ESR order, from the audit.
    assert!(
        esr.contains(r#"find {"status":"string","total":{"$gte":"double"}} sort {"placed_at":-1}"#),
        "{esr}"
    );
    assert!(
        esr.contains("150 runs · IXSCAN { status: 1, total: 1, channel: 1 }")
            && esr.contains("ran 150 times"),
        "{esr}"
    );
    assert!(esr.contains("150 sorted in memory"), "{esr}");
    assert!(
        esr.contains("{status: 1, placed_at: -1, total: 1}") && esr.contains("index-esr"),
        "{esr}"
    );
    let zh = lesson("esr", "zh", &root);
    assert!(
        zh.contains("工作负载") && zh.contains("次在内存中排序") && zh.contains("002"),
        "{zh}"
    );

    let refine = lesson("refine-by-workload", "en", &root);
    assert!(refine.contains("900 reads · 0 writes"), "{refine}");
    assert!(refine.contains("0 reads · 30 writes"), "{refine}");
    assert!(refine.contains("write-amplified-copy"), "{refine}");
    assert!(refine.contains("ran 30 times"), "{refine}");
    let zh = lesson("refine-by-workload", "zh", &root);
    assert!(zh.contains("次读取") && zh.contains("001"), "{zh}");

    // Fewer runs in the log: the lessons' numbers follow.
    filter_log(&root.join("workload/mongod.log"), &|ns, n| match ns {
        "indexes.bad_orders" => n <= 40,
        "contacts.bad_groups" => n <= 4,
        _ => true,
    });
    let esr_after = lesson("esr", "en", &root);
    assert!(
        esr_after.contains("40 runs · IXSCAN { status: 1, total: 1, channel: 1 }")
            && esr_after.contains("ran 40 times"),
        "{esr_after}"
    );
    assert!(!esr_after.contains("ran 150 times"), "{esr_after}");
    let refine_after = lesson("refine-by-workload", "en", &root);
    assert!(
        refine_after.contains("0 reads · 4 writes"),
        "{refine_after}"
    );
    assert!(refine_after.contains("ran 4 times"), "{refine_after}");
}
