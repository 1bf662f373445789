//! Lessons render in both languages from the bundled data, offline, and the
//! numbers they quote come from the data: change the data, the numbers move.

mod common;

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
