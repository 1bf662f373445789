//! The teacher's board: `docshape class URI` and the Learn tab, on a server
//! holding three students' copies of a lesson's data sets, one of them
//! fixed the way the lesson teaches, one "fixed" by deleting the data.

use std::time::{Duration, Instant};

use bson::{doc, Document};
use futures_util::TryStreamExt;
use mongodb::{Client, IndexModel};

use crate::common;
use docshape::audit::Plan;
use docshape::source::{SampleMode, Selection};
use docshape::target::Target;
use docshape::tui::executor::{channel, Executor};
use docshape::tui::keymap::{Action, Keymap};
use docshape::tui::model::{Model, Tab};
use docshape::tui::msg::Msg;
use docshape::tui::update::{action, start_sampling, update};

const SETS: [&str; 2] = ["one_to_squillions", "one_to_few"];
const EXERCISE: &str = "cardinality/host-logs";

/// Three students (`<base>a_`, `b_`, `c_`) seeded with [`SETS`]: `b_`
/// moved its hosts' log messages out to a parent reference, indexed; `c_`
/// deleted them.
async fn class(client: &Client, uri: &str, base: &str) -> Vec<String> {
    let students: Vec<String> = ["a_", "b_", "c_"]
        .iter()
        .map(|s| format!("{base}{s}"))
        .collect();
    for p in &students {
        let mut args = vec!["seed", uri, "--prefix", p];
        for s in SETS {
            args.extend(["--dataset", s]);
        }
        let out = common::docshape_async(&args).await;
        assert!(out.status.success(), "{}", common::stderr(&out));
    }
    let db = client.database(&format!("{}one_to_squillions", students[1]));
    let hosts = db.collection::<Document>("bad_hosts");
    let logs = db.collection::<Document>("bad_logmsg");
    let all: Vec<Document> = hosts
        .find(doc! {})
        .await
        .expect("find")
        .try_collect()
        .await
        .expect("hosts");
    for h in all {
        let id = h.get("_id").cloned().expect("_id");
        let moved: Vec<Document> = h
            .get_array("logs")
            .expect("logs")
            .iter()
            .filter_map(|l| l.as_document())
            .map(|l| doc! {"host": id.clone(), "time": l.get("time").cloned(), "message": l.get("message").cloned()})
            .collect();
        logs.insert_many(moved).await.expect("insert");
    }
    hosts
        .update_many(doc! {}, doc! {"$unset": {"logs": 1}})
        .await
        .expect("unset");
    logs.create_index(
        IndexModel::builder()
            .keys(doc! {"host": 1, "time": -1})
            .build(),
    )
    .await
    .expect("index");
    client
        .database(&format!("{}one_to_squillions", students[2]))
        .collection::<Document>("bad_hosts")
        .update_many(doc! {}, doc! {"$unset": {"logs": 1}})
        .await
        .expect("deleted");
    students
}

/// The board's rows: prefix → (marks, "passed/total"); and the column of
/// exercise `id` (from the legend under the table).
fn parse(board: &str, id: &str) -> (Vec<(String, Vec<String>, String)>, usize) {
    let column = board
        .lines()
        .find_map(|l| {
            let mut t = l.split_whitespace();
            let n: usize = t.next()?.parse().ok()?;
            (t.next()? == id && t.next().is_none()).then_some(n - 1)
        })
        .unwrap_or_else(|| panic!("{id} is not named under the board:\n{board}"));
    let rows = board
        .lines()
        .filter_map(|l| {
            let t: Vec<&str> = l.split_whitespace().collect();
            let last = t.last()?;
            (t.len() > 2 && last.contains('/') && t[0].ends_with('_')).then(|| {
                (
                    t[0].to_owned(),
                    t[1..t.len() - 1].iter().map(ToString::to_string).collect(),
                    last.to_string(),
                )
            })
        })
        .collect();
    (rows, column)
}

/// Checks that `board` marks [`EXERCISE`] ✗ ✓ ✗ for the three students of
/// [`class`] (untouched, fixed as taught, data deleted), `shown` printed on
/// failure; returns the board's rows.
fn marked_as_taught(
    board: &str,
    students: &[String],
    shown: &str,
) -> Vec<(String, Vec<String>, String)> {
    let (rows, col) = parse(board, EXERCISE);
    let got: Vec<(&str, &str)> = rows
        .iter()
        .map(|(p, marks, _)| (p.as_str(), marks[col].as_str()))
        .collect();
    let want: Vec<(&str, &str)> = students
        .iter()
        .map(String::as_str)
        .zip(["✗", "✓", "✗"])
        .collect();
    assert_eq!(got, want, "{shown}");
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn class_board_has_a_row_per_student_and_a_mark_per_exercise() {
    let uri = common::uri();
    let client = common::client().await;
    let base = common::unique_db("cls");
    let students = class(&client, &uri, &base).await;
    let pattern = format!("{base}*");
    let out = common::docshape_async(&[
        "class", &uri, "--prefix", &pattern, "--once", "--lang", "en",
    ])
    .await;
    assert!(out.status.success(), "{}", common::stderr(&out));
    let board = common::stdout(&out);
    assert!(board.contains("3 students"), "{board}");
    let rows = marked_as_taught(&board, &students, &board);
    for (p, marks, passed) in &rows {
        let ok = marks.iter().filter(|m| *m == "✓").count();
        let seeded = marks.iter().filter(|m| *m != "·").count();
        assert_eq!(*passed, format!("{ok}/{seeded}"), "{p}: {board}");
        assert!(seeded < marks.len(), "{p}: {board}");
        assert!(marks.iter().all(|m| ["✓", "✗", "·"].contains(&m.as_str())));
    }
    // In Chinese, the same board.
    let zh = common::docshape_async(&[
        "class", &uri, "--prefix", &pattern, "--once", "--lang", "zh",
    ])
    .await;
    let zh = common::stdout(&zh);
    assert!(zh.contains("3 名学生") && zh.contains("学生"), "{zh}");
    assert_eq!(parse(&zh, EXERCISE).0, rows, "{zh}");
    // Nobody matching: an empty board, said so; a server not there: exit 2.
    let none = common::docshape_async(&["class", &uri, "--prefix", "nobody_*", "--once"]).await;
    assert!(common::stdout(&none).contains("No student's databases found"));
    let port = common::free_port();
    let gone = common::docshape_async(&[
        "class",
        &format!("mongodb://127.0.0.1:{port}/"),
        "--once",
        "--timeout",
        "2",
    ])
    .await;
    common::assert_fails_cleanly(&gone, "class on a closed port");
}

/// Runs the model's effects until `done` holds (60 s at most).
fn pump(
    m: &mut Model,
    rt: &tokio::runtime::Runtime,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    ex: &mut Executor,
    done: impl Fn(&Model) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done(m) {
        assert!(Instant::now() < deadline, "gave up waiting");
        let msg = rt
            .block_on(async { tokio::time::timeout(Duration::from_secs(30), rx.recv()).await })
            .ok()
            .flatten()
            .expect("a message");
        for fx in update(m, msg) {
            ex.run(fx, &mut Vec::new());
        }
    }
}

#[test]
fn class_board_is_drawn_on_the_learn_tab_for_three_students() {
    let uri = common::uri();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let base = common::unique_db("tui");
    let students = rt.block_on(async {
        let client = Client::with_uri_str(&uri).await.expect("client");
        class(&client, &uri, &base).await
    });
    let (tx, mut rx) = channel();
    let plan = Plan::new(
        Selection {
            dbs: students
                .iter()
                .flat_map(|p| SETS.iter().map(move |s| format!("{p}{s}")))
                .collect(),
            collections: Vec::new(),
        },
        SampleMode::Sample(100),
    );
    let target = Target::Mongo(uri.clone());
    let mut ex = Executor::new(
        rt.handle().clone(),
        target.clone(),
        plan,
        Duration::from_secs(30),
        tx,
    );
    let mut m = Model::new(target.label(), 100, Keymap::default());
    m.size = (150, 45);
    for fx in start_sampling(&mut m) {
        ex.run(fx, &mut Vec::new());
    }
    pump(&mut m, &rt, &mut rx, &mut ex, |m| m.job.is_none());
    // The Learn tab on a class's server: the first lesson's board, checked
    // without a key.
    for fx in action(&mut m, Action::TabLearn) {
        ex.run(fx, &mut Vec::new());
    }
    assert_eq!(m.tab, Tab::Learn);
    assert!(m.learn.check_req.is_some(), "no check started");
    pump(&mut m, &rt, &mut rx, &mut ex, |m| {
        m.learn.check.is_some() && m.learn.req.is_none()
    });
    let s = common::screen(&m, 150, 45);
    assert!(s.contains("3 students"), "{s}");
    let board: String = s
        .lines()
        .map(|l| l.split('│').nth(5).unwrap_or("").trim_end().to_owned() + "\n")
        .collect();
    marked_as_taught(&board, &students, &s);
    // `v` checks again; another lesson forgets the board until checked.
    for fx in action(&mut m, Action::CheckExercises) {
        ex.run(fx, &mut Vec::new());
    }
    assert!(m.learn.check_req.is_some());
    pump(&mut m, &rt, &mut rx, &mut ex, |m| {
        m.learn.check_req.is_none()
    });
    assert!(matches!(m.learn.check, Some(Ok(_))));
}
