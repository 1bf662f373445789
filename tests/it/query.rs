//! The query bar's reading: the same queries, typed as a user types them,
//! run on the MongoDB-wire test server (`find`, `countDocuments`,
//! `explain`) and as a scan of the same documents in a `.bson` file; both
//! must bring back the same documents in the same order, and the count
//! must agree with what the test computes on its own.

use crate::common;

use std::sync::Mutex;
use std::time::Duration;

use bson::{doc, Bson, Document};
use docshape::source::{
    Browse, CollectionMeta, Documents, FileSource, MongoSource, Query, QueryText,
};

/// The tests of this file one at a time: one reads the server's write
/// counters, which another test's inserts would move.
static SERIAL: Mutex<()> = Mutex::new(());

/// The documents both sources hold.
fn documents() -> Vec<Document> {
    (0..200)
        .map(|i: i32| {
            let mut d = doc! {
                "_id": i,
                "sku": format!("s{}", i % 20),
                "qty": i,
                "tags": if i % 2 == 0 { vec!["even", "x"] } else { vec!["odd"] },
                "dims": {"h": i % 7, "w": 2.5},
                "at": bson::DateTime::from_millis(1_767_225_600_000 + i64::from(i) * 1000),
            };
            if i % 10 == 0 {
                d.insert("note", "tenth");
            }
            d
        })
        .collect()
}

fn text(filter: &str, sort: &str, projection: &str, skip: &str, limit: &str) -> QueryText {
    QueryText {
        filter: filter.into(),
        sort: sort.into(),
        projection: projection.into(),
        skip: skip.into(),
        limit: limit.into(),
    }
}

/// Queries, and the `_id`s each must match (before skip and limit),
/// computed here without the matcher.
fn cases() -> Vec<(QueryText, Vec<i32>)> {
    let all = 0..200;
    let ids = |f: &dyn Fn(i32) -> bool| all.clone().filter(|&i| f(i)).collect::<Vec<i32>>();
    vec![
        (
            text("{qty: {$gte: 50, $lt: 60}}", "{qty: -1}", "", "", ""),
            ids(&|i| (50..60).contains(&i)),
        ),
        (text("{sku: 's3'}", "", "", "", ""), ids(&|i| i % 20 == 3)),
        (
            text(
                "sku: {$in: ['s1', \"s2\"]}, qty: {$gt: 100},",
                "{_id: 1}",
                "",
                "",
                "",
            ),
            ids(&|i| matches!(i % 20, 1 | 2) && i > 100),
        ),
        (text("{tags: 'even'}", "", "", "", ""), ids(&|i| i % 2 == 0)),
        (
            text("{'dims.h': {$lte: 1}}", "", "", "", ""),
            ids(&|i| i % 7 <= 1),
        ),
        (
            text("{$or: [{qty: 1}, {sku: /^S1[0-9]$/i}]}", "", "", "", ""),
            ids(&|i| i == 1 || (10..20).contains(&(i % 20))),
        ),
        (
            text("{note: {$exists: false}}", "", "", "", ""),
            ids(&|i| i % 10 != 0),
        ),
        (
            text(
                "{qty: {$nin: [1, 2, 3]}, sku: {$ne: 's0'}}",
                "{qty: 1}",
                "",
                "5",
                "10",
            ),
            ids(&|i| !matches!(i, 1..=3) && i % 20 != 0),
        ),
        (
            text(
                "{at: {$gte: ISODate('2026-01-01T00:03:00Z')}}",
                "{at: -1}",
                "{sku: 1, _id: 0}",
                "",
                "",
            ),
            ids(&|i| i >= 180),
        ),
        (
            text("{_id: NumberLong(7)}", "", "{tags: 0, dims: 0}", "", ""),
            vec![7],
        ),
    ]
}

fn ids(docs: &[Document]) -> Vec<i32> {
    docs.iter().filter_map(|d| d.get_i32("_id").ok()).collect()
}

/// What a page must hold: the expected ids cut by skip and limit (sorted
/// by the query's sort key when it has one, else in `_id` order).
fn expected_page(q: &Query, mut want: Vec<i32>) -> Vec<i32> {
    if let Some(s) = &q.sort {
        if s.get_i32("qty").ok() == Some(-1) || s.get_i32("at").ok() == Some(-1) {
            want.reverse();
        }
    }
    let skip = usize::try_from(q.skip).expect("skip");
    let limit = q
        .limit
        .map_or(usize::MAX, |l| usize::try_from(l).expect("limit"));
    want.into_iter().skip(skip).take(limit).collect()
}

async fn check<B: Browse>(src: &B, meta: &CollectionMeta, label: &str) {
    for (t, want) in cases() {
        let q = t.parse().expect("the test's queries parse");
        let count = src
            .count_matching(meta, &q.filter)
            .await
            .unwrap_or_else(|e| panic!("{label} count {}: {e}", t.summary()));
        assert_eq!(count, want.len() as u64, "{label} count {}", t.summary());
        let page = src
            .find_page(meta, &q)
            .await
            .unwrap_or_else(|e| panic!("{label} find {}: {e}", t.summary()));
        let page_want = expected_page(&q, want);
        let mut got = ids(&page);
        if q.projection
            .as_ref()
            .is_some_and(|p| p.get_i32("_id").ok() == Some(0))
        {
            // `_id` projected away: the page is checked by its size and
            // its fields.
            assert_eq!(page.len(), page_want.len(), "{label} {}", t.summary());
            for d in &page {
                let keys: Vec<&str> = d.keys().map(String::as_str).collect();
                assert_eq!(keys, ["sku"], "{label} {}", t.summary());
            }
            continue;
        }
        if q.sort.is_none() {
            got.sort_unstable();
        }
        assert_eq!(got, page_want, "{label} {}", t.summary());
        if let Some(p) = &q.projection {
            for d in &page {
                for k in p.keys() {
                    assert!(!d.contains_key(k), "{label} {} kept {k}", t.summary());
                }
            }
        }
    }
}

#[test]
fn server_and_file_scan_agree_on_every_query() {
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let uri = common::uri();
    let db = common::unique_db("query");
    let dir = tempfile::tempdir().expect("temp dir");
    let docs = documents();
    std::fs::create_dir_all(dir.path().join(&db)).expect("dir");
    common::write_bson(&dir.path().join(&db).join("items.bson"), &docs);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = common::client().await;
        let coll = client.database(&db).collection::<Document>("items");
        coll.insert_many(docs.clone()).await.expect("insert");
        coll.create_index(mongodb::IndexModel::builder().keys(doc! {"sku": 1}).build())
            .await
            .expect("index");
        let meta = CollectionMeta::new(&db, "items");

        let server = MongoSource::connect(&uri, Duration::from_secs(10))
            .await
            .expect("connect");
        let writes_before = writes(&client).await;
        check(&server, &meta, "server").await;

        let mut files = FileSource::open(dir.path()).expect("open the dump");
        let listed = files
            .collections(&docshape::source::Selection::default())
            .await
            .expect("list");
        assert_eq!(listed.len(), 1);
        check(&files, &meta, "file scan").await;

        // The file scan explains itself in words a user reads.
        let q = text("{sku: 's3'}", "", "", "", "").parse().expect("parse");
        let e = files.explain(&meta, &q).await.expect("file explain");
        assert_eq!(e.plan, ["file scan"]);
        assert_eq!(e.docs_examined, Some(200));
        assert_eq!(e.returned, Some(10));
        assert_eq!(e.index, None);

        // An operator the scan does not know is named, not missed.
        let q = text("{$where: 'this.qty > 1'}", "", "", "", "")
            .parse()
            .expect("parse");
        let err = files
            .find_page(&meta, &q)
            .await
            .expect_err("unknown operator");
        assert!(err.to_string().contains("$where"), "{err}");

        // The server's explain: the plan, what it examined, the index.
        let e = server
            .explain(&meta, &q_sku())
            .await
            .expect("server explain");
        assert_eq!(e.plan, ["FETCH", "IXSCAN"], "{e:?}");
        assert_eq!(e.index.as_deref(), Some(r#"sku_1 {"sku":1}"#), "{e:?}");
        assert_eq!(e.keys_examined, Some(10), "{e:?}");
        assert_eq!(e.docs_examined, Some(10), "{e:?}");
        assert_eq!(e.returned, Some(10), "{e:?}");
        // Without an index the whole collection is read.
        let by_qty = Query {
            filter: doc! {"qty": {"$lt": 5}},
            ..Query::default()
        };
        let e = server
            .explain(&meta, &by_qty)
            .await
            .expect("server explain");
        assert_eq!(e.plan, ["COLLSCAN"], "{e:?}");
        assert_eq!((e.index, e.docs_examined), (None, Some(200)));
        // Read-only: nothing of all that wrote to the server.
        assert_eq!(writes(&client).await, writes_before);
    });
}

/// The server's write counters (`serverStatus.opcounters`).
async fn writes(c: &mongodb::Client) -> Vec<(String, Option<Bson>)> {
    let status = c
        .database("admin")
        .run_command(doc! {"serverStatus": 1})
        .await
        .expect("serverStatus");
    let ops = status.get_document("opcounters").expect("opcounters");
    ["insert", "update", "delete"]
        .iter()
        .map(|k| ((*k).to_owned(), ops.get(*k).cloned()))
        .collect()
}

fn q_sku() -> Query {
    Query {
        filter: doc! {"sku": "s3"},
        ..Query::default()
    }
}

#[test]
fn a_query_the_server_refuses_is_one_sentence() {
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let uri = common::uri();
    let db = common::unique_db("querybad");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let client = common::client().await;
        client
            .database(&db)
            .collection::<Document>("c")
            .insert_one(doc! {"a": 1})
            .await
            .expect("insert");
        let server = MongoSource::connect(&uri, Duration::from_secs(10))
            .await
            .expect("connect");
        let meta = CollectionMeta::new(&db, "c");
        let q = Query {
            filter: doc! {"a": {"$nosuchop": 1}},
            ..Query::default()
        };
        let err = server.find_page(&meta, &q).await.expect_err("refused");
        let s = err.to_string();
        assert!(s.contains("querying") && !s.contains('\n'), "{s}");
        let n = server
            .count_matching(&meta, &doc! {"a": Bson::Int64(1)})
            .await
            .expect("count");
        assert_eq!(n, 1);
    });
}

/// Connections the server has accepted since it started.
async fn connections_made(c: &mongodb::Client) -> i64 {
    let status = c
        .database("admin")
        .run_command(doc! {"serverStatus": 1})
        .await
        .expect("serverStatus");
    let n = status
        .get_document("connections")
        .ok()
        .and_then(|d| d.get("totalCreated"))
        .and_then(docshape::source::bson_as_i64);
    n.expect("serverStatus.connections.totalCreated")
}

#[test]
fn the_explorer_keeps_one_connection_for_its_queries() {
    use docshape::tui::effects::{Effect, QueryWork};
    use docshape::tui::executor::{channel, Executor};
    use docshape::tui::msg::Msg;
    use docshape::tui::querybar::Reply;
    let _one = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let uri = common::uri();
    let db = common::unique_db("queryconn");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = rt.block_on(async {
        let client = common::client().await;
        client
            .database(&db)
            .collection::<Document>("c")
            .insert_many((0..20).map(|i| doc! {"_id": i}))
            .await
            .expect("insert");
        client
    });
    let explorer = docshape::tui::runtime().expect("runtime");
    let (tx, mut rx) = channel();
    let plan = docshape::audit::Plan::new(
        docshape::source::Selection::default(),
        docshape::source::SampleMode::Sample(10),
    );
    let mut exec = Executor::new(
        explorer.handle().clone(),
        docshape::target::Target::Mongo(uri),
        plan,
        Duration::from_secs(10),
        tx,
    );
    let mut page = |req: u64, skip: u64| {
        let query = Query {
            skip,
            limit: Some(5),
            ..Query::default()
        };
        exec.run(
            Effect::Query {
                req,
                db: db.clone(),
                coll: "c".into(),
                query: Box::new(query),
                work: QueryWork::Page,
            },
            &mut Vec::new(),
        );
        let reply = explorer
            .block_on(async { tokio::time::timeout(Duration::from_secs(30), rx.recv()).await });
        match reply {
            Ok(Some(Msg::Query {
                req: r,
                reply: Reply::Page(Ok(docs)),
            })) if r == req => docs.len(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(page(1, 0), 5);
    let after_first = rt.block_on(connections_made(&client));
    for (req, skip) in [(2, 5), (3, 10), (4, 15)] {
        assert_eq!(page(req, skip), 5);
    }
    let after_all = rt.block_on(connections_made(&client));
    // A connection per query would add at least one per page (three
    // here); the count is the whole server's, so a monitor of either
    // driver reconnecting on a loaded machine may add one on its own.
    let opened = after_all - after_first;
    assert!(
        opened < 3,
        "the three pages opened {opened} connections ({after_first} → {after_all}): one per query?"
    );
}
