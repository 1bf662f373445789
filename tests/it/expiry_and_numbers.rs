//! `expiring-without-ttl` and `numeric-strings` end to end: on the real
//! collections an expert found them in (`../shared/realapps`, read as files
//! and loaded into the test server), left alone where the data is a code or
//! a business date, on planted problems beside clean twins, and their
//! scripts run with the real `mongosh`: the dry run changes nothing, the
//! run changes only what it names (saving it first), the second run nothing,
//! the undo gives every document and index back, and the script's last
//! line says what the next audit then says.

use crate::common;
use crate::migrate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bson::{doc, Bson, Document};
use serde_json::Value;

use common::{client, docshape, insert_all, json_ok, load_dir, unique_db};
use migrate::{all, applied, findings, snapshot, undo_command, Shell, Snapshot};

fn realapps(rel: &str) -> PathBuf {
    let p = common::repo().join("../shared/realapps").join(rel);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

/// The JSON report of `audit TARGET`, in English.
fn audit_files(target: &Path) -> Value {
    json_ok(&docshape(&[
        "audit",
        target.to_str().expect("utf-8 path"),
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
        "--lang",
        "en",
    ]))
}

/// The finding of `rule` on `ns` at `path`, if there is one.
fn at<'a>(report: &'a Value, ns: &str, rule: &str, path: &str) -> Option<&'a Value> {
    findings(report, ns, rule)
        .into_iter()
        .find(|f| f["path"] == path)
}

fn rule_paths(report: &Value, ns: &str, rule: &str) -> Vec<String> {
    findings(report, ns, rule)
        .iter()
        .filter_map(|f| f["path"].as_str().map(str::to_owned))
        .collect()
}

/// The migration script of a finding.
fn script(f: &Value) -> &str {
    f["suggestion"]["migration"].as_str().expect("a script")
}

/// The lines a run printed before its undo command (the report's own
/// last line, what the next audit will say, comes right before it).
fn before_undo(out: &str) -> Vec<&str> {
    out.lines()
        .take_while(|l| !l.starts_with("to undo this run"))
        .collect()
}

#[test]
fn the_experts_misses_are_found_in_the_real_applications() {
    // zion: 936 refresh tokens, every one past `expires`, no TTL index, no
    // index on `token`.
    let r = audit_files(&realapps("zion"));
    let f = at(&r, "test.refreshtokens", "expiring-without-ttl", "expires").unwrap_or_else(|| {
        panic!(
            "{}",
            common::collection(&r, "test.refreshtokens")["findings"]
        )
    });
    assert_eq!(f["severity"], "warning", "{f}");
    let ev = &f["evidence"];
    assert_eq!(ev["documents"], 936, "{f}");
    // 748 had expired when the expert looked; every one has since.
    assert!(ev["expired"].as_u64().unwrap_or(0) >= 748, "{f}");
    assert_eq!(
        ev["counted_on"], "collection",
        "every document was read: {f}"
    );
    assert_eq!(ev["scope"], "collection");
    assert_eq!(ev["lookup_key"]["path"], "token", "{f}");
    assert_eq!(ev["lookup_key"]["indexed"], false);
    let s = script(f);
    assert!(s.starts_with(migrate::DRY), "{s}");
    assert!(
        s.contains("ds.createIndex(coll, { [path]: 1 }, { expireAfterSeconds: 0 });")
            && s.contains("ds.createIndex(coll, { \"token\": 1 });")
            && s.contains("ds.remove(coll, expired);"),
        "{s}"
    );
    // No other collection of zion is a store of expiring documents.
    let elsewhere: Vec<&Value> = common::collections(&r)
        .iter()
        .flat_map(|c| c["findings"].as_array().expect("findings"))
        .filter(|f| f["rule"] == "expiring-without-ttl" && f["namespace"] != "test.refreshtokens")
        .collect();
    assert!(elsewhere.is_empty(), "{elsewhere:?}");

    // gipfel: the Teufelsturm score "-3" … "3" as text (its id is a code).
    let r = audit_files(&realapps("gipfel"));
    let f = at(&r, "test.routes", "numeric-strings", "teufelsturmScore")
        .unwrap_or_else(|| panic!("{}", common::collection(&r, "test.routes")["findings"]));
    assert_eq!(f["evidence"]["target_type"], "int", "{f}");
    assert_eq!(
        f["evidence"]["range"],
        serde_json::json!([-3.0, 3.0]),
        "{f}"
    );
    for (ns, path) in [
        ("test.routes", "teufelsturmId"),
        ("test.summits", "teufelsturmId"),
    ] {
        assert!(at(&r, ns, "numeric-strings", path).is_none(), "{ns}.{path}");
    }
    // sdl3: the scoring notes of a housing file ("90").
    let r = audit_files(&realapps("sdl3"));
    let f = at(&r, "test.dossiers", "numeric-strings", "notes")
        .unwrap_or_else(|| panic!("{}", common::collection(&r, "test.dossiers")["findings"]));
    assert_eq!(f["evidence"]["numbers_as_text"], 15, "{f}");
    // Phone numbers, wilaya and commune codes are codes.
    assert!(rule_paths(&r, "test.users", "numeric-strings").is_empty());
    assert!(rule_paths(&r, "test.communes", "numeric-strings").is_empty());
    assert!(rule_paths(&r, "test.wilayas", "numeric-strings").is_empty());
    // inventory: entry_value repeats an integer as text.
    let r = audit_files(&realapps("inventory"));
    let f = at(&r, "test.entries", "numeric-strings", "entry_value")
        .unwrap_or_else(|| panic!("{}", common::collection(&r, "test.entries")["findings"]));
    assert_eq!(f["evidence"]["numbers_as_text"], 204, "{f}");
    assert_eq!(f["severity"], "info");
}

#[test]
fn codes_and_business_dates_are_left_alone_in_the_real_applications() {
    // Bank account numbers, IFSC codes, phone numbers, card digits,
    // acquirer references: codes written in digits.
    let r = audit_files(&realapps("travelerconnect"));
    for coll in ["guides", "userprofiles", "payments", "modeofpayments"] {
        let ns = format!("test.{coll}");
        assert!(
            rule_paths(&r, &ns, "numeric-strings").is_empty(),
            "{ns}: {:?}",
            rule_paths(&r, &ns, "numeric-strings")
        );
    }
    // Bookings and reservations end; their end is no expiry.
    assert!(rule_paths(&r, "test.bookings", "expiring-without-ttl").is_empty());
    // A dump of 2014: job postings expire, and applications name them (a
    // TTL index would delete history); a user's password-reset expiry
    // dates the reset, not the user. The OAuth token stores expire and
    // nothing removes them.
    let r = audit_files(&realapps("linkedout"));
    assert!(rule_paths(&r, "linkedoutdev.jobs", "expiring-without-ttl").is_empty());
    assert!(rule_paths(&r, "linkedoutdev.users", "expiring-without-ttl").is_empty());
    for coll in ["oauth_refreshtokens", "oauth_accesstokens"] {
        let ns = format!("linkedoutdev.{coll}");
        let f = at(&r, &ns, "expiring-without-ttl", "expires").unwrap_or_else(|| panic!("{ns}"));
        // Found by a unique index on the token already: no index to add.
        assert_eq!(f["evidence"]["lookup_key"]["indexed"], true, "{f}");
        assert!(!script(f).contains("ds.createIndex(coll, { \"refreshToken\""));
    }
    // trudesk's sessions have their TTL index (connect-mongo makes it);
    // HTTP headers kept by Form.io are the protocol's text.
    let r = audit_files(&realapps("trudesk"));
    assert!(rule_paths(&r, "myhelpdesk.sessions", "expiring-without-ttl").is_empty());
    assert!(!rule_paths(&r, "formioapp.submissions", "numeric-strings")
        .iter()
        .any(|p| p.contains("headers")));
    // Version numbers ("3.4") are labels.
    let r = audit_files(&realapps("reportify"));
    assert!(rule_paths(&r, "test.ros", "numeric-strings").is_empty());
}

/// Runs `script` switched on in `sh`, asserting it succeeded.
fn run_once(sh: &mut Shell, script: &str) -> String {
    let (ok, out) = sh.run(&applied(script));
    assert!(ok, "{out}\nscript:\n{script}");
    out
}

/// Runs `script` switched on twice in `sh`: the second run must change
/// nothing in `db`, and no `_id` may change. The output of both runs.
async fn run_twice(sh: &mut Shell, db: &str, script: &str) -> (String, String) {
    let c = client().await;
    let before = snapshot(&c, db).await;
    let first = run_once(sh, script);
    let once = snapshot(&c, db).await;
    let second = run_once(sh, script);
    assert!(
        snapshot(&c, db).await == once,
        "the second run changed the data\nfirst run said: {first}\nsecond run said: {second}"
    );
    for (coll, held) in &before {
        let now = once.get(coll).expect("collection kept");
        assert!(
            held.docs.keys().eq(now.docs.keys()),
            "the _ids of {coll} changed"
        );
    }
    (first, second)
}

/// Documents by `_id`, whatever order the server returns them in.
fn by_id(docs: Vec<Document>) -> BTreeMap<String, Document> {
    docs.into_iter()
        .map(|d| (format!("{:?}", d.get("_id")), d))
        .collect()
}

/// Every collection of `snap` but the backups a script made.
fn originals(snap: &Snapshot) -> Snapshot {
    snap.iter()
        .filter(|(n, _)| docshape::advise::change::backed_up(n).is_none())
        .map(|(n, h)| (n.clone(), h.clone()))
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn zions_refresh_tokens_expire_on_the_server_and_come_back_with_the_undo() {
    let c = client().await;
    let mut sh = Shell::start();
    let db = unique_db("zion_ttl");
    let (made, failed) = load_dir(&c, &realapps("zion/test"), &db).await;
    assert!(failed.is_empty() && made.contains(&"refreshtokens".to_owned()));
    let ns = format!("{db}.refreshtokens");
    let report = migrate::audit(&ns).await;
    let f = at(&report, &ns, "expiring-without-ttl", "expires")
        .unwrap_or_else(|| panic!("{}", common::collection(&report, &ns)["findings"]));
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["evidence"]["expired"], 936, "{f}");
    let s = script(f).to_owned();
    let before = snapshot(&c, &db).await;

    // The dry run says how many documents the index deletes, and changes
    // nothing.
    let (ok, dry) = sh.run(&s);
    assert!(ok, "{dry}");
    assert!(
        dry.contains(&format!("936 documents of {ns} expired before"))
            && dry.contains(&format!("would delete 936 documents of {ns}"))
            && dry.contains("would create the index {\"expires\":1} {\"expireAfterSeconds\":0}")
            && dry.contains("would create the index {\"token\":1}")
            && dry.contains(&format!(
                "once applied: docshape will no longer report expiring-without-ttl on {ns}"
            )),
        "{dry}"
    );
    assert!(
        snapshot(&c, &db).await == before,
        "the dry run changed data"
    );

    // The run: the expired tokens saved whole, deleted, the two indexes built.
    let out = run_once(&mut sh, &s);
    let after = snapshot(&c, &db).await;
    let tokens = &after["refreshtokens"];
    assert!(tokens.docs.is_empty(), "every token had expired");
    let names: Vec<&str> = tokens
        .indexes
        .iter()
        .filter_map(|i| i.get_str("name").ok())
        .collect();
    assert_eq!(
        names,
        ["_id_", "expires_1", "token_1"],
        "{:?}",
        tokens.indexes
    );
    let ttl = tokens
        .indexes
        .iter()
        .find(|i| i.get_str("name").ok() == Some("expires_1"))
        .expect("the TTL index");
    assert_eq!(
        ttl.get("expireAfterSeconds")
            .and_then(docshape::source::bson_as_i64),
        Some(0),
        "{ttl}"
    );
    let backups: Vec<&String> = after
        .keys()
        .filter(|n| docshape::advise::change::backed_up(n) == Some("refreshtokens"))
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    assert_eq!(
        after[backups[0]].docs, before["refreshtokens"].docs,
        "the backup holds every deleted token, byte for byte"
    );
    for (name, held) in &before {
        if name != "refreshtokens" {
            assert!(after.get(name) == Some(held), "{name} changed");
        }
    }
    let last = before_undo(&out);
    assert_eq!(
        last.last().copied(),
        Some(
            format!("docshape will no longer report expiring-without-ttl on {ns}: a TTL index removes its documents as they expire")
                .as_str()
        ),
        "{out}"
    );
    let undo = undo_command(&out).expect("an undo command").to_owned();

    // The next audit agrees.
    let again = migrate::audit(&ns).await;
    assert!(
        findings(&again, &ns, "expiring-without-ttl").is_empty(),
        "{}",
        common::collection(&again, &ns)["findings"]
    );

    // A second run finds the TTL index and changes nothing.
    let second = run_once(&mut sh, &s);
    assert!(
        second.contains(&format!(
            "{ns} already has a TTL index (expires_1 on expires)"
        )) && second.contains("nothing was changed: there was nothing left to change"),
        "{second}"
    );
    assert!(
        snapshot(&c, &db).await == after,
        "the second run changed data"
    );

    // The undo drops both indexes and puts every token back.
    let (ok, undone) = sh.run(&undo);
    assert!(ok, "{undone}\n{undo}");
    assert!(
        originals(&snapshot(&c, &db).await) == before,
        "the undo did not give everything back"
    );
    c.database(&db).drop().await.expect("drop");
}

#[tokio::test(flavor = "current_thread")]
async fn gipfels_scores_become_numbers_on_the_server() {
    let c = client().await;
    let mut sh = Shell::start();
    let db = unique_db("gipfel_num");
    // gipfel's own routes: every one whose score is empty, and every
    // tenth of the others (13,043 routes in all take minutes to convert,
    // back up and restore on the test server; the whole dump's scripts run
    // in scripts_on_real_data).
    let all_routes = common::read_bson_file(&realapps("gipfel/test/routes.bson"));
    let empty_score = |d: &Document| d.get_str("teufelsturmScore").ok() == Some("");
    let kept: Vec<Document> = all_routes
        .iter()
        .enumerate()
        .filter(|(i, d)| empty_score(d) || i % 10 == 0)
        .map(|(_, d)| d.clone())
        .collect();
    insert_all(&c, &db, "routes", &kept).await;
    let ns = format!("{db}.routes");
    let report = migrate::audit(&ns).await;
    let f = at(&report, &ns, "numeric-strings", "teufelsturmScore")
        .unwrap_or_else(|| panic!("{}", common::collection(&report, &ns)["findings"]));
    let s = script(f).to_owned();
    let routes = c.database(&db).collection::<Document>("routes");
    let before = by_id(all(&routes).await);
    let texts = before
        .values()
        .filter(|d| d.get_str("teufelsturmScore").is_ok_and(|t| !t.is_empty()))
        .count();
    let empty = before.values().filter(|d| empty_score(d)).count();
    assert!(texts > 1_000 && empty > 0, "{texts} scores, {empty} empty");
    let dry_counts = format!("{texts} documents hold numbers written as text in teufelsturmScore: they become int; {empty} hold empty text: the field is removed from them");

    let (ok, dry) = sh.run(&s);
    assert!(ok, "{dry}");
    assert!(
        dry.contains(&dry_counts)
            && dry.contains("once applied: docshape will no longer report numeric-strings on teufelsturmScore: every value is a number"),
        "{dry}"
    );
    assert!(
        by_id(all(&routes).await) == before,
        "the dry run changed data"
    );

    let (first, second) = run_twice(&mut sh, &db, &s).await;
    assert!(
        before_undo(&first).last().copied()
            == Some("docshape will no longer report numeric-strings on teufelsturmScore: every value is a number"),
        "{first}"
    );
    assert!(second.contains("nothing was changed"), "{second}");
    let after = by_id(all(&routes).await);
    assert_eq!(after.len(), before.len());
    for (old, new) in before.values().zip(after.values()) {
        let mut want = old.clone();
        match old.get_str("teufelsturmScore").ok() {
            Some("") => {
                want.remove("teufelsturmScore");
            }
            Some(text) => {
                let score: i32 = text.parse().expect("a number");
                want.insert("teufelsturmScore", score);
            }
            None => {}
        }
        // Only the score changed: same fields otherwise, in order but for it.
        let mut new_sorted = new.clone();
        let mut want_sorted = want.clone();
        for d in [&mut new_sorted, &mut want_sorted] {
            d.remove("teufelsturmScore");
        }
        assert_eq!(new_sorted, want_sorted, "only teufelsturmScore changes");
        assert_eq!(
            new.get("teufelsturmScore"),
            want.get("teufelsturmScore"),
            "{old} -> {new}"
        );
    }
    let again = migrate::audit(&ns).await;
    for rule in ["numeric-strings", "mixed-types"] {
        assert!(
            at(&again, &ns, rule, "teufelsturmScore").is_none(),
            "{rule}: {}",
            common::collection(&again, &ns)["findings"]
        );
    }
    let undo = undo_command(&first).expect("an undo command").to_owned();
    let (ok, undone) = sh.run(&undo);
    assert!(ok, "{undone}");
    assert!(
        by_id(all(&routes).await) == before,
        "the undo gives every route back"
    );
    c.database(&db).drop().await.expect("drop");
}

const NOW_MS: i64 = 1_790_812_800_000;
const DAY_MS: i64 = 86_400_000;

/// `n` sessions, three in four expired (relative to any clock after
/// 2026-10-01), found by `sid`.
fn sessions(n: i64) -> Vec<Document> {
    (0..n)
        .map(|i| {
            let expires = if i % 4 == 3 {
                // Years ahead: still valid whenever the test runs.
                NOW_MS + 3_650 * DAY_MS + i * 1000
            } else {
                NOW_MS - 30 * DAY_MS + i * 1000
            };
            doc! {"_id": i, "sid": format!("s{i:06x}{:08x}", i * 7919), "user": i % 50,
            "expiresAt": bson::DateTime::from_millis(expires)}
        })
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn expired_sessions_are_counted_on_the_whole_collection_and_a_clean_twin_is_silent() {
    let c = client().await;
    let mut sh = Shell::start();
    let db = unique_db("ttl_planted");
    insert_all(&c, &db, "bad_sessions", &sessions(2_000)).await;
    insert_all(&c, &db, "good_sessions", &sessions(2_000)).await;
    insert_all(&c, &db, "plain_sessions", &sessions(400)).await;
    for (coll, ttl) in [("good_sessions", true), ("plain_sessions", false)] {
        let mut spec = doc! {"key": {"expiresAt": 1}, "name": "expiresAt_1"};
        if ttl {
            spec.insert("expireAfterSeconds", 0);
        }
        c.database(&db)
            .run_command(doc! {"createIndexes": coll, "indexes": [spec]})
            .await
            .expect("index");
    }
    // The TTL monitor would delete the good twin's expired sessions within
    // a minute; do it now, so that nothing moves during the audit.
    c.database(&db)
        .collection::<Document>("good_sessions")
        .delete_many(doc! {"expiresAt": {"$lt": bson::DateTime::now()}})
        .await
        .expect("expire");
    // A sample of 300: the counts come from the server, over every document.
    let out = docshape(&[
        "audit",
        &common::uri(),
        "-c",
        &format!("{db}.*"),
        "--sample",
        "300",
        "--format",
        "json",
        "--no-snapshot",
        "--fail-on",
        "never",
    ]);
    let r = json_ok(&out);
    let bad = format!("{db}.bad_sessions");
    let f = at(&r, &bad, "expiring-without-ttl", "expiresAt")
        .unwrap_or_else(|| panic!("{}", common::collection(&r, &bad)["findings"]));
    assert_eq!(f["severity"], "warning", "{f}");
    let ev = &f["evidence"];
    assert_eq!(
        (ev["expired"].as_u64(), ev["documents"].as_u64()),
        (Some(1_500), Some(2_000)),
        "{f}"
    );
    assert_eq!(ev["counted_on"], "collection", "{f}");
    assert_eq!(ev["lookup_key"]["path"], "sid", "{f}");
    assert!(
        f["message"].as_str().unwrap_or_default().starts_with(
            "1,500 documents have expired (expiresAt in the past) in all 2,000 documents (75 %)"
        ),
        "{f}"
    );
    assert!(findings(&r, &format!("{db}.good_sessions"), "expiring-without-ttl").is_empty());

    // A plain index on the expiry date: a second index on that key cannot
    // be built; the script says so and changes nothing.
    let plain = format!("{db}.plain_sessions");
    let f = at(&r, &plain, "expiring-without-ttl", "expiresAt").expect("plain_sessions");
    let before = snapshot(&c, &db).await;
    let (ok, said) = sh.run(&applied(script(f)));
    assert!(!ok, "it stops: {said}");
    assert!(
        said.contains("the index expiresAt_1 on expiresAt is not a TTL index")
            && said.contains(docshape::advise::change::still_reported(
                docshape::i18n::Lang::En
            )),
        "{said}"
    );
    assert!(snapshot(&c, &db).await == before, "nothing changed");
    c.database(&db).drop().await.expect("drop");
}

/// Items of a shop: enough that one late text among them stays under
/// mixed-types' floor of 1 %.
const ITEMS: i64 = 150;

/// Items of a shop whose form sent every number as text (`bad`), or the
/// numbers themselves.
fn items(bad: bool) -> Vec<Document> {
    (0..ITEMS)
        .map(|i| {
            let qty = i * 7 % 500;
            let cents = 1_250 + i * 13;
            let weight = format!("{}.{}", 1 + i % 9, i % 10);
            let zip = format!("0{}", 1_000 + i % 90);
            let mut d = doc! {"_id": i, "name": format!("item {i}"), "zip": zip.clone()};
            if bad {
                // One quantity in thirty left empty by the form.
                d.insert(
                    "qty",
                    if i % 30 == 7 {
                        String::new()
                    } else {
                        qty.to_string()
                    },
                );
                d.insert("price", format!("{}.{:02}", cents / 100, cents % 100));
                d.insert("weight", weight);
                d.insert(
                    "lines",
                    vec![
                        doc! {"n": (i % 4).to_string()},
                        doc! {"n": ((i + 1) % 4).to_string()},
                    ],
                );
            } else {
                if i % 30 != 7 {
                    d.insert("qty", qty);
                }
                d.insert(
                    "price",
                    format!("{}.{:02}", cents / 100, cents % 100)
                        .parse::<bson::Decimal128>()
                        .expect("decimal"),
                );
                d.insert("weight", weight.parse::<f64>().expect("number"));
                d.insert("lines", vec![doc! {"n": i % 4}, doc! {"n": (i + 1) % 4}]);
            }
            d
        })
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn numbers_written_as_text_are_converted_and_the_last_line_tells_the_truth() {
    let c = client().await;
    let mut sh = Shell::start();
    let db = unique_db("num_planted");
    insert_all(&c, &db, "bad_items", &items(true)).await;
    insert_all(&c, &db, "good_items", &items(false)).await;
    let r = migrate::audit(&format!("{db}.*")).await;
    let bad = format!("{db}.bad_items");
    let mut paths = rule_paths(&r, &bad, "numeric-strings");
    paths.sort();
    assert_eq!(
        paths,
        ["lines[].n", "price", "qty", "weight"],
        "zip is a code"
    );
    let types: Vec<(String, Value)> = findings(&r, &bad, "numeric-strings")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or("").to_owned(),
                f["evidence"]["target_type"].clone(),
            )
        })
        .collect();
    for (path, want) in [
        ("qty", "int"),
        ("price", "decimal"),
        ("weight", "double"),
        ("lines[].n", "int"),
    ] {
        assert!(
            types.contains(&(path.to_owned(), Value::from(want))),
            "{path}: {types:?}"
        );
    }
    assert!(findings(&r, &format!("{db}.good_items"), "numeric-strings").is_empty());
    assert!(findings(&r, &format!("{db}.good_items"), "mixed-types").is_empty());

    // A writer added an item since the audit, its quantity not a plain
    // number: the script leaves it, says so, and says what the audit will
    // then report (one text among 150 items: under mixed-types' floor).
    insert_all(
        &c,
        &db,
        "bad_items",
        &[doc! {"_id": 1_000, "name": "late", "qty": "1e3"}],
    )
    .await;
    let coll = c.database(&db).collection::<Document>("bad_items");
    let before = by_id(all(&coll).await);
    let empty_qty = before
        .values()
        .filter(|d| d.get_str("qty").ok() == Some(""))
        .count() as i64;
    assert!(empty_qty > 0);
    let snap = snapshot(&c, &db).await;
    let mut undos = Vec::new();
    for path in ["qty", "price", "weight", "lines[].n"] {
        let f = at(&r, &bad, "numeric-strings", path).expect("finding");
        let here = snapshot(&c, &db).await;
        let (ok, dry) = sh.run(script(f));
        assert!(ok, "{dry}");
        assert!(
            snapshot(&c, &db).await == here,
            "the dry run of {path} changed data"
        );
        let (first, second) = run_twice(&mut sh, &db, script(f)).await;
        assert!(second.contains("nothing was changed"), "{second}");
        if path == "qty" {
            assert!(
                dry.contains(&format!("{} documents hold numbers written as text in qty: they become int; {} hold empty text: the field is removed from them (an empty string is no number); 1 hold other text, left as it is", ITEMS - empty_qty, empty_qty))
                    && dry.contains("once applied: docshape will report neither numeric-strings nor mixed-types on qty: the 1 documents still holding text are under mixed-types' floor of 1 % of its values"),
                "{dry}"
            );
            assert_eq!(
                before_undo(&first).last().copied(),
                Some("docshape will report neither numeric-strings nor mixed-types on qty: the 1 documents still holding text are under mixed-types' floor of 1 % of its values"),
                "{first}"
            );
        } else {
            assert!(
                before_undo(&first).last().is_some_and(
                    |l| l.starts_with("docshape will no longer report numeric-strings")
                ),
                "{first}"
            );
        }
        undos.push(undo_command(&first).expect("undo").to_owned());
    }
    let after = by_id(all(&coll).await);
    for (old, new) in before.values().zip(after.values()) {
        let i = old
            .get_i64("_id")
            .or_else(|_| old.get_i32("_id").map(i64::from))
            .expect("_id");
        if i == 1_000 {
            assert_eq!(new, old, "the late item is left as it was");
            continue;
        }
        assert_eq!(
            new.get_str("zip").ok(),
            old.get_str("zip").ok(),
            "codes stay text"
        );
        match old.get_str("qty").ok() {
            Some("") => assert!(new.get("qty").is_none(), "{new}"),
            Some(text) => assert_eq!(new.get_i32("qty").ok(), text.parse().ok(), "{new}"),
            None => panic!("{old}"),
        }
        let price = old.get_str("price").expect("price");
        assert!(
            matches!(new.get("price"), Some(Bson::Decimal128(d)) if d.to_string() == price),
            "{new}"
        );
        let weight: f64 = old.get_str("weight").expect("weight").parse().expect("f64");
        assert_eq!(new.get_f64("weight").ok(), Some(weight), "{new}");
        let lines = new.get_array("lines").expect("lines");
        assert!(
            lines.iter().all(|l| matches!(
                l.as_document().and_then(|d| d.get("n")),
                Some(Bson::Int32(_))
            )),
            "{new}"
        );
    }
    let again = migrate::audit(&format!("{db}.*")).await;
    assert!(
        findings(&again, &bad, "numeric-strings").is_empty(),
        "{}",
        common::collection(&again, &bad)["findings"]
    );
    assert!(
        findings(&again, &bad, "mixed-types").is_empty(),
        "{}",
        common::collection(&again, &bad)["findings"]
    );
    for undo in undos.iter().rev() {
        let (ok, out) = sh.run(undo);
        assert!(ok, "{out}");
    }
    assert!(
        originals(&snapshot(&c, &db).await) == snap,
        "the undos give everything back"
    );
    c.database(&db).drop().await.expect("drop");
}
