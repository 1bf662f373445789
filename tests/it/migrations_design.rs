//! The rules an expert flags on real applications' databases, end to end
//! on the test server: `unused-index` on an absent leading key, an empty
//! sparse index, `id-led-index`, dates written for people
//! (`string-dates`), `collection-per-tenant` and `duplicate-collection`.
//! Each fires on its planted problem; each changing script runs twice with
//! the real `mongosh` (a dry run first, which changes nothing), does what
//! it says, and a new audit sees the result.

use crate::common;
use crate::migrate;

use bson::{doc, Bson, Document};
use common::{client, unique_db};
use migrate::{all, audit, dump, findings, report_findings, run_as_written, run_twice};
use mongodb::options::IndexOptions;
use mongodb::IndexModel;

fn script(f: &serde_json::Value) -> &str {
    f["suggestion"]["migration"].as_str().expect("script")
}

async fn insert(c: &mongodb::Client, db: &str, coll: &str, docs: Vec<Document>) {
    c.database(db)
        .collection::<Document>(coll)
        .insert_many(docs)
        .await
        .unwrap_or_else(|e| panic!("insert into {coll}: {e}"));
}

async fn index(c: &mongodb::Client, db: &str, coll: &str, keys: Document, sparse: bool) {
    c.database(db)
        .collection::<Document>(coll)
        .create_index(
            IndexModel::builder()
                .keys(keys)
                .options(IndexOptions::builder().sparse(sparse).build())
                .build(),
        )
        .await
        .expect("index");
}

/// The dry run changes nothing; applied twice, the second run changes
/// nothing more.
async fn dry_then_twice(db: &str, s: &str, name: &str) -> (String, String, String) {
    let before = dump(db).await;
    let (ok, dry) = run_as_written(s, &format!("{name}_dry"));
    assert!(ok, "{name} dry run failed: {dry}");
    assert!(
        dump(db).await == before,
        "{name}: the dry run changed data: {dry}"
    );
    let (first, second) = run_twice(db, s, name).await;
    (dry, first, second)
}

/// Messages written with `chat` while two indexes lead with `chatId`; a
/// sparse index on a field nobody writes yet.
#[tokio::test(flavor = "current_thread")]
async fn an_index_led_by_an_absent_key_is_dropped_and_an_empty_sparse_one_is_kept() {
    let c = client().await;
    let db = unique_db("lead");
    let docs: Vec<Document> = (0..60)
        .map(|i| doc! {"_id": i, "chat": i % 4, "createdAt": bson::DateTime::from_millis(1_700_000_000_000 + i64::from(i)), "text": "hi"})
        .collect();
    insert(&c, &db, "messages", docs).await;
    index(
        &c,
        &db,
        "messages",
        doc! {"chatId": 1, "createdAt": -1},
        false,
    )
    .await;
    index(
        &c,
        &db,
        "messages",
        doc! {"chat": 1, "createdAt": -1},
        false,
    )
    .await;
    index(&c, &db, "messages", doc! {"publicKey": 1}, true).await;
    let ns = format!("{db}.messages");
    let report = audit(&ns).await;
    let unused = findings(&report, &ns, "unused-index");
    let lead = unused
        .iter()
        .find(|f| f["path"] == "chatId")
        .unwrap_or_else(|| panic!("chatId: {unused:#?}"));
    assert_eq!(lead["severity"], "warning");
    assert_eq!(lead["evidence"]["absence"]["measured_over"], "collection");
    assert_eq!(lead["evidence"]["written_instead"], "chat");
    let why = lead["suggestion"]["summary"].as_str().expect("summary");
    assert!(
        why.contains("chat_1_createdAt_-1 already indexes it"),
        "{why}"
    );
    let sparse = unused
        .iter()
        .find(|f| f["path"] == "publicKey")
        .unwrap_or_else(|| panic!("publicKey: {unused:#?}"));
    assert_eq!(sparse["severity"], "info");
    assert!(
        !script(sparse).contains("const apply"),
        "nothing to change: {}",
        script(sparse)
    );
    assert!(
        unused.iter().all(|f| f["path"] != "chat"),
        "the index the app uses stays"
    );

    let (dry, first, _) = dry_then_twice(&db, script(lead), "drop_lead").await;
    assert!(
        dry.contains("createIndex"),
        "the dry run prints the rebuild: {dry}"
    );
    assert!(first.contains("(function undo()"), "{first}");
    let names = c
        .database(&db)
        .collection::<Document>("messages")
        .list_index_names()
        .await
        .expect("indexes");
    assert!(!names.iter().any(|n| n.starts_with("chatId")), "{names:?}");
    assert!(
        names.iter().any(|n| n.starts_with("chat_1")) && names.iter().any(|n| n == "publicKey_1"),
        "{names:?}"
    );
    let (ok, out) = run_as_written(script(sparse), "sparse_check");
    assert!(ok && out.contains("holds no entry"), "{out}");
    let after = audit(&ns).await;
    assert!(findings(&after, &ns, "unused-index")
        .iter()
        .all(|f| f["path"] != "chatId"));
}

#[tokio::test(flavor = "current_thread")]
async fn an_index_led_by_id_is_dropped_and_its_second_key_named() {
    let c = client().await;
    let db = unique_db("idled");
    let docs: Vec<Document> = (0..30)
        .map(|i| doc! {"_id": i, "bookId": format!("isbn-{}", i % 5), "text": "fine"})
        .collect();
    insert(&c, &db, "reviews", docs).await;
    index(&c, &db, "reviews", doc! {"_id": 1, "bookId": 1}, false).await;
    let ns = format!("{db}.reviews");
    let report = audit(&ns).await;
    let f = findings(&report, &ns, "id-led-index");
    assert_eq!(
        f.len(),
        1,
        "{}",
        common::collection(&report, &ns)["findings"]
    );
    assert_eq!(f[0]["evidence"]["index_instead"], "bookId");
    assert!(f[0]["suggestion"]["summary"]
        .as_str()
        .expect("summary")
        .contains("createIndex({ bookId: 1 })"));
    let (dry, _, _) = dry_then_twice(&db, script(f[0]), "drop_id_led").await;
    assert!(dry.contains("createIndex"), "{dry}");
    let names = c
        .database(&db)
        .collection::<Document>("reviews")
        .list_index_names()
        .await
        .expect("indexes");
    assert_eq!(names, ["_id_"]);
    assert!(findings(&audit(&ns).await, &ns, "id-led-index").is_empty());
}

/// 2017-06-08T23:13:42Z.
const JUNE_8: i64 = 1_496_963_622_000;

#[tokio::test(flavor = "current_thread")]
async fn dates_written_for_people_become_dates_only_when_exact() {
    let client = client().await;
    let db = unique_db("people");
    // (named, day-first digits, undecided digits) and the instants.
    let docs: Vec<Document> = (0..40i64)
        .map(|i| {
            let day = 86_400_000 * i;
            let at = bson::DateTime::from_millis(JUNE_8 + day);
            let t = at.try_to_rfc3339_string().expect("rfc3339");
            let (y, m, d) = (&t[..4], &t[5..7], &t[8..10]);
            let month = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"][m.parse::<usize>().expect("month") - 1];
            let dn: u32 = d.parse().expect("day");
            let named = if i % 2 == 0 {
                format!("{month} {dn}th {y}, 11:13:42 pm")
            } else {
                let wd = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][usize::try_from((JUNE_8 + day).div_euclid(86_400_000) + 4).expect("days") % 7];
                format!("{wd} {} {d} {y} 23:13:42 GMT+0000 (Coordinated Universal Time)", &month[..3])
            };
            let digits = format!("{d}/{m}/{y} 23:13");
            doc! {"_id": i, "named": named, "digits": digits, "undecided": format!("0{}/0{}/2017", i % 9 + 1, (i + 3) % 9 + 1)}
        })
        .collect();
    insert(&client, &db, "events", docs).await;
    let ns = format!("{db}.events");
    let report = audit(&ns).await;
    let f = findings(&report, &ns, "string-dates");
    let by = |p: &str| {
        *f.iter()
            .find(|x| x["path"] == p)
            .unwrap_or_else(|| panic!("{p}: {f:#?}"))
    };
    let undecided = by("undecided");
    assert!(undecided["suggestion"]["summary"]
        .as_str()
        .expect("summary")
        .contains("ambiguous"));
    // Nothing in the whole collection settles the order: the script says
    // so before anything changes, converts none, and ends saying the
    // finding stays.
    let (dry, first, _) = dry_then_twice(&db, script(undecided), "dates_undecided").await;
    for out in [&dry, &first] {
        assert!(
            out.contains("40 documents hold a string; 0 of them")
                && out
                    .contains("left: 40 dates in digits whose day and month cannot be told apart"),
            "{out}"
        );
    }
    assert!(
        dry.trim_end()
            .ends_with("re-audit once applied: string-dates on undecided — it will hold string ×40; 40 of the strings are dates it could not convert"),
        "{dry}"
    );
    for p in ["named", "digits"] {
        let (dry, _, second) = dry_then_twice(&db, script(by(p)), &format!("dates_{p}")).await;
        assert!(
            dry.contains(&format!("{p}: 40 documents hold a string; 40 of them would be converted to dates, 0 stay strings")),
            "{dry}"
        );
        assert!(
            second
                .trim_end()
                .ends_with(&format!("re-audit: nothing on {p} — it holds date ×40")),
            "{second}"
        );
    }
    for d in all(&client.database(&db).collection::<Document>("events")).await {
        let i = d.get_i64("_id").expect("_id");
        let want = JUNE_8 + 86_400_000 * i;
        assert_eq!(
            d.get_datetime("named").map(|x| x.timestamp_millis()).ok(),
            Some(want),
            "{d}"
        );
        assert_eq!(
            d.get_datetime("digits").map(|x| x.timestamp_millis()).ok(),
            Some(want - 42_000),
            "{d}"
        );
        assert!(matches!(d.get("undecided"), Some(Bson::String(_))), "{d}");
    }
    let after = audit(&ns).await;
    let left: Vec<&str> = findings(&after, &ns, "string-dates")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect();
    assert_eq!(left, ["undecided"]);
}

/// Dates as sdl3's dossiers hold them (ISO beside `11-01-2022`, which no
/// value settles), and the same with one value whose day is above 12: the
/// script says first what it converts and what it leaves and why, and its
/// last line is what the re-audit then reports on the path.
#[tokio::test(flavor = "current_thread")]
async fn a_partial_conversion_says_first_that_the_path_will_be_mixed() {
    let client = client().await;
    let db = unique_db("dossiers");
    let values = |extra: Option<&str>| -> Vec<Document> {
        let mut v: Vec<String> = (0..5).map(|_| "2022-11-02".to_owned()).collect();
        v.push("2021-11-11".to_owned());
        v.extend((0..9).map(|_| "11-01-2022".to_owned()));
        v.extend(extra.map(str::to_owned));
        v.into_iter()
            .enumerate()
            .map(|(i, d)| doc! {"_id": i as i64, "date_depo": d})
            .collect()
    };
    insert(&client, &db, "ambiguous", values(None)).await;
    insert(&client, &db, "settled", values(Some("13-01-2022"))).await;
    let mut said = Vec::new();
    for coll in ["ambiguous", "settled"] {
        let ns = format!("{db}.{coll}");
        let report = audit(&ns).await;
        let f = findings(&report, &ns, "string-dates");
        assert_eq!(f.len(), 1, "{coll}: {f:#?}");
        let (dry, first, second) =
            dry_then_twice(&db, script(f[0]), &format!("dossiers_{coll}")).await;
        let line = |out: &str| out.trim_end().lines().last().unwrap_or_default().to_owned();
        // The dry run says what the run does.
        let (d, r) = (line(&dry), line(&first));
        assert_eq!(
            d.strip_prefix("re-audit once applied: ")
                .map(|x| x.split(" — ").next()),
            r.strip_prefix("re-audit: ").map(|x| x.split(" — ").next()),
            "{dry}\n{first}"
        );
        let after = audit(&ns).await;
        let found: Vec<String> = common::collection(&after, &ns)["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["path"] == "date_depo")
            .filter_map(|f| f["rule"].as_str().map(str::to_owned))
            .collect();
        said.push((coll, dry, second, found));
    }
    let (_, dry, second, found) = &said[0];
    assert!(
        dry.contains("date_depo: 15 documents hold a string; 6 of them would be converted to dates, 9 stay strings")
            && dry.contains("left: 9 dates in digits whose day and month cannot be told apart (ambiguous day/month)")
            && dry.contains("this leaves date_depo mixed (string ×9, date ×6): the re-audit will report mixed-types on it"),
        "{dry}"
    );
    assert!(
        second.trim_end().ends_with("re-audit: mixed-types on date_depo — it holds string ×9, date ×6; 9 of the strings are dates it could not convert"),
        "{second}"
    );
    assert_eq!(found, &["mixed-types".to_owned()]);
    let (_, dry, second, found) = &said[1];
    assert!(
        dry.contains(
            "16 documents hold a string; 16 of them would be converted to dates, 0 stay strings"
        ) && dry.contains("are day first over the whole collection, as \"13-01-2022\" shows"),
        "{dry}"
    );
    assert!(
        second
            .trim_end()
            .ends_with("re-audit: nothing on date_depo — it holds date ×16"),
        "{second}"
    );
    assert!(found.is_empty(), "{found:?}");
    let settled = all(&client.database(&db).collection::<Document>("settled")).await;
    let jan11 = settled
        .iter()
        .find(|d| d.get_i64("_id").ok() == Some(6))
        .and_then(|d| d.get_datetime("date_depo").ok())
        .map(|d| d.timestamp_millis());
    // 11 January 2022, day first.
    assert_eq!(jan11, Some(1_641_859_200_000));
}

#[tokio::test(flavor = "current_thread")]
async fn a_family_of_collections_becomes_one_and_its_repeats_are_said_once() {
    let c = client().await;
    let db = unique_db("tenant");
    let tenants = [
        "acme",
        "globex",
        "initech",
        "umbrella",
        "hooli",
        "stark",
        "wayne",
        "wonka",
        "tyrell",
        "cyberdyne",
    ];
    for (t, name) in tenants.iter().enumerate() {
        let docs: Vec<Document> = (0..8i32)
            .map(|i| doc! {"_id": bson::oid::ObjectId::new(), "item": format!("i{i}"), "qty": i, "at": format!("2024-01-{:02}T10:00:00Z", i as usize + 1 + t % 3)})
            .collect();
        insert(&c, &db, &format!("orders_{name}"), docs).await;
    }
    let report = audit(&format!("{db}.*")).await;
    let fam = report_findings(&report, "collection-per-tenant");
    assert_eq!(fam.len(), 1, "{:#}", report["findings"]);
    let f = fam[0];
    assert_eq!(f["evidence"]["collections"], 10);
    let repeated = f["evidence"]["repeated_findings"]
        .as_array()
        .expect("repeated");
    assert!(
        repeated
            .iter()
            .any(|r| r["rule"] == "string-dates" && r["members"] == 10),
        "{repeated:?}"
    );
    let said: usize = tenants
        .iter()
        .map(|t| findings(&report, &format!("{db}.orders_{t}"), "string-dates").len())
        .sum();
    assert_eq!(said, 1, "said once, on the first member");
    dry_then_twice(&db, script(f), "consolidate").await;
    let one = all(&c.database(&db).collection::<Document>("orders")).await;
    assert_eq!(one.len(), 80);
    assert_eq!(
        one.iter()
            .filter(|d| d.get_str("tenant").ok() == Some("wonka"))
            .count(),
        8
    );
    let names = c
        .database(&db)
        .list_collection_names()
        .await
        .expect("names");
    assert!(
        tenants
            .iter()
            .all(|t| names.contains(&format!("orders_{t}"))),
        "nothing dropped: {names:?}"
    );
    let idx = c
        .database(&db)
        .collection::<Document>("orders")
        .list_index_names()
        .await
        .expect("indexes");
    assert!(idx.iter().any(|n| n == "tenant_1"), "{idx:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_copy_of_a_collection_is_found_and_counted() {
    let c = client().await;
    let db = unique_db("dup");
    let docs: Vec<Document> = (0..50)
        .map(|i| doc! {"_id": i, "name": format!("n{i}"), "v": i * 3})
        .collect();
    insert(&c, &db, "people", docs.clone()).await;
    insert(&c, &db, "people_old", docs[..48].to_vec()).await;
    // Numbered alike, other documents: no copy.
    let other: Vec<Document> = (0..50)
        .map(|i| doc! {"_id": i, "name": format!("m{i}"), "v": i})
        .collect();
    insert(&c, &db, "others", other).await;
    let report = audit(&format!("{db}.*")).await;
    let dup = report_findings(&report, "duplicate-collection");
    assert_eq!(dup.len(), 1, "{:#}", report["findings"]);
    assert_eq!(dup[0]["evidence"]["method"], "exact");
    assert_eq!(dup[0]["severity"], "info");
    let (ok, out) = run_as_written(script(dup[0]), "dup_count");
    assert!(ok, "{out}");
    assert!(
        out.contains("_ids in both: 48 (48 of them the same document)"),
        "{out}"
    );
}
