//! The rules for data stored in a form that loses information
//! (`dangling-references`, `string-dates`, `lossy-numbers`,
//! `non-unique-reference-key`) end to end on the test server: each fires on
//! its planted problem and stays silent on a clean twin; each one's script
//! runs twice with the real `mongosh`, does what it says (converts only what
//! it can convert exactly, deletes nothing), and a new audit sees the result.

use crate::common;
use crate::migrate;

use bson::{doc, Bson, Document};
use common::{client, unique_db};
use migrate::{all, findings, run_twice};
use mongodb::options::IndexOptions;
use mongodb::IndexModel;

/// 2015-08-13T00:27:59.177Z, the first `lastupdated` of mflix.
const BASE_MS: i64 = 1_439_425_679_177;

/// `YYYY-MM-DDThh:mm:ss` and the milliseconds of an instant.
fn parts(ms: i64) -> (String, i64) {
    let iso = bson::DateTime::from_millis(ms)
        .try_to_rfc3339_string()
        .expect("rfc3339");
    (iso[..19].to_owned(), ms.rem_euclid(1000))
}

/// `(text, the instant it names)`: the formats real exports hold.
fn date_strings(i: i64) -> (String, i64) {
    let ms = BASE_MS + i * 3_600_123;
    let (secs, milli) = parts(ms);
    match i % 4 {
        // mflix: a space, nine fraction digits, no offset.
        0 | 1 => (
            format!("{} {}.{milli:03}000000", &secs[..10], &secs[11..]),
            ms,
        ),
        // UTC with a Z, whole seconds.
        2 => (format!("{secs}Z"), ms - milli),
        // Two hours ahead of UTC: the same instant written in local time.
        _ => {
            let (local, milli) = parts(ms + 7_200_000);
            (format!("{local}.{milli:03}+02:00"), ms)
        }
    }
}

fn movie_oid(i: i64) -> bson::oid::ObjectId {
    common::oid(common::NEWEST - 1000 * i as u32, i as u32)
}

/// Planted problems (`bad`) or their clean twins.
fn data(bad: bool) -> Vec<(&'static str, Vec<Document>)> {
    let mut out = Vec::new();
    // Movies and comments referencing them; 30 % of the comments point at
    // movies that do not exist when bad.
    out.push((
        "movies",
        (0..100i64)
            .map(|i| {
                let lastupdated = if bad {
                    if i == 99 {
                        Bson::String("not recorded".into())
                    } else if i == 98 {
                        Bson::String("Thu, 13 Aug 2015 00:27:59 +0000".into())
                    } else {
                        Bson::String(date_strings(i).0)
                    }
                } else {
                    Bson::DateTime(bson::DateTime::from_millis(date_strings(i).1))
                };
                doc! {"_id": movie_oid(i), "n": i, "title": format!("movie {i}"), "lastupdated": lastupdated}
            })
            .collect(),
    ));
    out.push((
        "comments",
        (0..300i64)
            .map(|i| {
                let movie = if bad && i % 10 < 3 {
                    common::oid(common::NEWEST, 90_000 + i as u32)
                } else {
                    movie_oid(i % 100)
                };
                doc! {"_id": i, "movie_id": movie, "text": format!("comment {i}")}
            })
            .collect(),
    ));
    // 64-bit ids stored as doubles, and prices as doubles.
    out.push((
        "tweets",
        (0..50i64)
            .map(|i| {
                let id = if i == 0 {
                    9_007_199_254_740_993_i64 * 1_000
                } else {
                    1_000_000 + i
                };
                let tweet_id = if bad {
                    Bson::Double(id as f64)
                } else {
                    Bson::Int64(id)
                };
                doc! {"_id": i, "tweet_id": tweet_id}
            })
            .collect(),
    ));
    out.push((
        "orders",
        (0..50i64)
            .map(|i| {
                let cents = 1999 + i * 100;
                let price = if bad {
                    Bson::Double(cents as f64 / 100.0)
                } else {
                    Bson::Decimal128(
                        format!("{}.{:02}", cents / 100, cents % 100)
                            .parse()
                            .expect("decimal"),
                    )
                };
                doc! {"_id": i, "price": price, "qty": i % 3 + 1}
            })
            .collect(),
    ));
    // Accounts referenced by their own account number; one number is held
    // by two accounts when bad.
    let numbers: Vec<i64> = (0..60i64).map(|i| 371_138 + i * 7_919).collect();
    out.push((
        "accounts",
        (0..60i64)
            .map(|i| {
                let n = if bad && i == 59 {
                    numbers[0]
                } else {
                    numbers[i as usize]
                };
                doc! {"_id": bson::oid::ObjectId::new(), "account_id": n, "limit": 10_000}
            })
            .collect(),
    ));
    out.push((
        "customers",
        (0..30i64)
            .map(|c| {
                let ids: Vec<i64> = (0..3)
                    .map(|k| numbers[((c * 2 + k) % 59) as usize])
                    .collect();
                doc! {"_id": c, "name": format!("customer {c}"), "accounts": ids}
            })
            .collect(),
    ));
    out
}

async fn load(c: &mongodb::Client, db: &str, bad: bool) {
    for (name, docs) in data(bad) {
        let coll = c.database(db).collection::<Document>(name);
        coll.insert_many(docs)
            .await
            .unwrap_or_else(|e| panic!("insert into {name}: {e}"));
    }
    let accounts = c.database(db).collection::<Document>("accounts");
    let options = IndexOptions::builder().unique(Some(!bad)).build();
    if !bad {
        accounts
            .create_index(
                IndexModel::builder()
                    .keys(doc! {"account_id": 1})
                    .options(options)
                    .build(),
            )
            .await
            .expect("unique index");
    }
}

async fn audit(db: &str) -> serde_json::Value {
    migrate::audit(&format!("{db}.*")).await
}

const PLANTED: [(&str, &str, &str); 4] = [
    ("dangling-references", "comments", "movie_id"),
    ("string-dates", "movies", "lastupdated"),
    ("lossy-numbers", "tweets", "tweet_id"),
    ("non-unique-reference-key", "accounts", "account_id"),
];

#[tokio::test(flavor = "current_thread")]
#[allow(clippy::many_single_char_names)]
async fn new_rules_fire_on_their_problem_and_not_on_the_clean_twin() {
    let c = client().await;
    let bad = unique_db("nr_bad");
    let good = unique_db("nr_good");
    load(&c, &bad, true).await;
    load(&c, &good, false).await;
    let r = audit(&bad).await;
    for (rule, coll, path) in PLANTED {
        let f = findings(&r, &format!("{bad}.{coll}"), rule);
        assert!(
            f.iter().any(|x| x["path"] == path),
            "{rule} did not fire on {coll}.{path}: {}",
            serde_json::to_string_pretty(&r["relationships"]).unwrap_or_default()
        );
        for x in &f {
            let ev = x["evidence"].as_object().expect("evidence");
            assert!(ev.contains_key("threshold"), "{x}");
            assert!(!x["explanation"].as_str().unwrap_or("").is_empty());
            assert!(x["suggestion"]["migration"]
                .as_str()
                .unwrap_or("")
                .contains("db.getSiblingDB"));
        }
    }
    let money = findings(&r, &format!("{bad}.orders"), "lossy-numbers");
    assert!(
        money.iter().any(|x| x["path"] == "price"),
        "money as double"
    );
    let d = &findings(&r, &format!("{bad}.comments"), "dangling-references")[0];
    assert_eq!(d["severity"], "warning", "30 % dangling: {d}");
    let share = d["evidence"]["share"].as_f64().expect("share");
    assert!((share - 0.3).abs() < 0.08, "about 30 % of references: {d}");
    let s = &findings(&r, &format!("{bad}.movies"), "string-dates")[0];
    assert_eq!(s["evidence"]["date_strings"], 99, "{s}");
    assert_eq!(s["evidence"]["documents"], 100, "{s}");

    let r = audit(&good).await;
    for (rule, coll, _) in PLANTED {
        let f = findings(&r, &format!("{good}.{coll}"), rule);
        assert!(f.is_empty(), "{rule} fired on the clean {coll}: {f:?}");
    }
    assert!(findings(&r, &format!("{good}.orders"), "lossy-numbers").is_empty());
}

fn script<'a>(report: &'a serde_json::Value, ns: &str, rule: &str, path: &str) -> &'a str {
    findings(report, ns, rule)
        .into_iter()
        .find(|f| f["path"] == path)
        .unwrap_or_else(|| panic!("no {rule} on {ns}.{path}"))["suggestion"]["migration"]
        .as_str()
        .expect("script")
}

#[tokio::test(flavor = "current_thread")]
async fn new_rules_scripts_run_twice_and_the_audit_sees_the_result() {
    let c = client().await;
    let db = unique_db("nr_mig");
    load(&c, &db, true).await;
    let ns = |coll: &str| format!("{db}.{coll}");
    let report = audit(&db).await;

    // string-dates: every date string becomes the instant it names; the one
    // that is not a date stays a string, and is counted.
    let out = run_twice(
        &db,
        script(&report, &ns("movies"), "string-dates", "lastupdated"),
        "string_dates",
    )
    .await;
    assert!(
        out.1
            .contains("left: 1 strings that are not dates (unparseable, e.g. \"not recorded\")"),
        "{out:?}"
    );
    assert!(
        out.1.trim_end().lines().last().is_some_and(
            |l| l.starts_with("re-audit: ") && l.contains(" on lastupdated — it holds date ×")
        ),
        "{out:?}"
    );
    let movies = c.database(&db).collection::<Document>("movies");
    for m in all(&movies).await {
        let i = m.get_i64("n").expect("n");
        match i {
            99 => assert_eq!(m.get_str("lastupdated").ok(), Some("not recorded")),
            98 => assert_eq!(
                m.get_datetime("lastupdated")
                    .map(|d| d.timestamp_millis())
                    .ok(),
                Some(1_439_425_679_000)
            ),
            _ => assert_eq!(
                m.get_datetime("lastupdated")
                    .map(|d| d.timestamp_millis())
                    .ok(),
                Some(date_strings(i).1),
                "movie {i}: {m}"
            ),
        }
    }

    // lossy-numbers: ids within 2^53 become long with the same value; the
    // one beyond stays a double and is listed.
    let out = run_twice(
        &db,
        script(&report, &ns("tweets"), "lossy-numbers", "tweet_id"),
        "lossy_ids",
    )
    .await;
    assert!(
        out.1.contains("1 documents hold a double beyond 2^53"),
        "{out:?}"
    );
    let tweets = c.database(&db).collection::<Document>("tweets");
    for t in all(&tweets).await {
        let i = t.get_i64("_id").expect("_id");
        if i == 0 {
            assert!(t.get_f64("tweet_id").is_ok(), "left as it was: {t}");
        } else {
            assert_eq!(t.get_i64("tweet_id").ok(), Some(1_000_000 + i), "{t}");
        }
    }
    // Money: each price becomes the decimal it was meant to be.
    run_twice(
        &db,
        script(&report, &ns("orders"), "lossy-numbers", "price"),
        "lossy_money",
    )
    .await;
    let orders = c.database(&db).collection::<Document>("orders");
    for o in all(&orders).await {
        let i = o.get_i64("_id").expect("_id");
        let cents = 1999 + i * 100;
        let want = format!("{}.{:02}", cents / 100, cents % 100);
        match o.get("price") {
            Some(Bson::Decimal128(d)) => assert_eq!(d.to_string(), want, "{o}"),
            other => panic!("price not converted: {other:?}"),
        }
    }

    // dangling-references: counted and listed, nothing changed.
    let comments = c.database(&db).collection::<Document>("comments");
    let before = all(&comments).await;
    let out = run_twice(
        &db,
        script(&report, &ns("comments"), "dangling-references", "movie_id"),
        "dangling",
    )
    .await;
    assert!(
        out.0
            .contains("90 references in movie_id point at no document"),
        "{out:?}"
    );
    assert_eq!(all(&comments).await, before, "the script changes nothing");

    // non-unique-reference-key: duplicates printed, no index built; once
    // resolved, the unique index is created (and found the second time).
    let accounts = c.database(&db).collection::<Document>("accounts");
    let unique_script = script(
        &report,
        &ns("accounts"),
        "non-unique-reference-key",
        "account_id",
    );
    let out = run_twice(&db, unique_script, "unique_dups").await;
    assert!(
        out.0.contains("371138"),
        "the duplicate is printed: {out:?}"
    );
    let names = accounts.list_index_names().await.expect("indexes");
    assert_eq!(names, vec!["_id_".to_owned()], "no index over duplicates");
    accounts
        .update_one(
            doc! {"account_id": 371_138, "_id": {"$ne": all(&accounts).await[0].get_object_id("_id").expect("oid")}},
            doc! {"$set": {"account_id": 371_138 + 59 * 7_919}},
        )
        .await
        .expect("resolve the duplicate");
    let out = run_twice(&db, unique_script, "unique_ok").await;
    assert!(
        out.0.contains("created") && out.1.contains("already has a unique index"),
        "{out:?}"
    );

    // The audit after the migrations.
    let after = audit(&db).await;
    assert!(findings(&after, &ns("movies"), "string-dates").is_empty());
    assert!(findings(&after, &ns("orders"), "lossy-numbers").is_empty());
    assert!(
        findings(&after, &ns("accounts"), "non-unique-reference-key").is_empty(),
        "{}",
        serde_json::to_string_pretty(&after["relationships"]).unwrap_or_default()
    );
    let lossy = findings(&after, &ns("tweets"), "lossy-numbers");
    assert_eq!(
        lossy.len(),
        1,
        "lost precision is not restored by a migration"
    );
    assert_eq!(lossy[0]["evidence"]["integers_beyond_2_53"], 1);
    assert_eq!(
        findings(&after, &ns("comments"), "dangling-references").len(),
        1,
        "dangling references stay until someone fixes them"
    );
}
