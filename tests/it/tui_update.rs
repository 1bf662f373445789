//! Update/effect tests: messages in, model and effects out. No terminal,
//! no tokio in the loop (the fixture report is built once with a runtime).

use std::path::Path;

use docshape::audit::{self, Plan};
use docshape::report::Report;
use docshape::source::{FileSource, SampleMode, Selection};
use docshape::tui::effects::Effect;
use docshape::tui::keymap::Keymap;
use docshape::tui::model::{DocView, Level, Model, NavRow, Pane, Tab};
use docshape::tui::msg::{Done, Msg};
use docshape::tui::update::{set_report, start_sampling, update};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

pub fn sample_report() -> Report {
    audit_sample("shop", None)
}

/// The database `db` of the sample data audited, with the bundled
/// workload's `mongod` log when `workload` names it.
fn audit_sample(db: &str, workload: Option<&Path>) -> Report {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data");
        let mut src = FileSource::open(&dir).expect("sample data");
        let mut plan = Plan::new(
            Selection {
                dbs: vec![db.into()],
                collections: Vec::new(),
            },
            SampleMode::Sample(1000),
        );
        plan.workload = workload.map(|p| {
            std::sync::Arc::new(docshape::workload::read_logs(p).expect("the workload log"))
        });
        audit::run(&mut src, &plan, &mut |_| {})
            .await
            .expect("audit")
    })
}

fn model() -> Model {
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (120, 40);
    set_report(&mut m, sample_report());
    m
}

fn key(m: &mut Model, c: KeyCode) -> Vec<Effect> {
    update(m, Msg::Key(KeyEvent::new(c, KeyModifiers::NONE)))
}

fn ch(m: &mut Model, c: char) -> Vec<Effect> {
    key(m, KeyCode::Char(c))
}

fn select(m: &mut Model, coll: &str) {
    ch(m, 'g');
    for _ in 0..10 {
        if m.collection().is_some_and(|c| c.meta.name == coll) {
            return;
        }
        ch(m, 'j');
    }
    panic!("no collection {coll}");
}

#[test]
fn navigator_lists_databases_then_collections() {
    let m = model();
    assert_eq!(m.nav.rows[0], NavRow::Overview);
    assert_eq!(m.nav.rows[1], NavRow::Db("shop".into()));
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.customers")
    );
    assert_eq!(m.focus, Pane::Nav);
}

#[test]
fn moving_in_the_navigator_changes_the_collection() {
    let mut m = model();
    ch(&mut m, 'j');
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.orders")
    );
    assert!(!m.schema.rows.is_empty());
    key(&mut m, KeyCode::Tab);
    assert_eq!(m.focus, Pane::Main);
    ch(&mut m, 'j');
    assert_eq!(m.schema.sel, 1);
    // The navigator keeps its selection when focus is elsewhere.
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.orders")
    );
}

#[test]
fn findings_are_sorted_by_severity_and_filterable() {
    let mut m = model();
    select(&mut m, "orders");
    ch(&mut m, '2');
    assert_eq!(m.tab, Tab::Findings);
    let all = m.listed_findings();
    let sevs: Vec<_> = m.findings.rows.iter().map(|&i| all[i].severity).collect();
    assert!(sevs.windows(2).all(|w| w[0] >= w[1]), "{sevs:?}");
    assert!(!sevs.is_empty());
    ch(&mut m, 's'); // critical only
    let all = m.listed_findings();
    assert!(m
        .findings
        .rows
        .iter()
        .all(|&i| all[i].severity == docshape::rules::Severity::Critical));
    ch(&mut m, 's');
    ch(&mut m, 's');
    ch(&mut m, 's'); // back to all
    assert_eq!(m.findings.severity, None);
    ch(&mut m, 'f');
    let rule = m.findings.rule.expect("a rule filter");
    let all = m.listed_findings();
    assert!(m.findings.rows.iter().all(|&i| all[i].rule == rule));
}

#[test]
fn write_and_copy_return_effects_for_the_selected_finding() {
    let mut m = model();
    select(&mut m, "orders");
    ch(&mut m, '2');
    let f = m.selected_finding().expect("finding").clone();
    let fx = ch(&mut m, 'w');
    let what = match &f.path {
        Some(p) => format!("{} at {p}", f.rule),
        None => format!("{} on {}", f.rule, f.namespace),
    };
    assert_eq!(
        fx,
        vec![Effect::WriteFile {
            path: format!("{}.{}.js", f.namespace, f.rule).into(),
            contents: f.suggestion.migration.clone(),
            what: what.clone(),
        }]
    );
    assert_eq!(
        ch(&mut m, 'y'),
        vec![Effect::Copy {
            text: f.suggestion.migration,
            what: format!("the script of {what}"),
        }]
    );
    let wrote = |written: &str| {
        Msg::Done(Done::Wrote {
            what: "rule at x".into(),
            written: written.into(),
            asked: "x.js".into(),
        })
    };
    update(&mut m, wrote("x.js"));
    assert_eq!(
        m.status.as_ref().map(|s| s.text.as_str()),
        Some("wrote the script of rule at x to x.js")
    );
    // In Chinese, as every other line the explorer writes.
    m.lang = docshape::i18n::Lang::Zh;
    update(&mut m, wrote("x-2.js"));
    assert_eq!(
        m.status.as_ref().map(|s| s.text.as_str()),
        Some("已把 rule at x 的脚本写入 x-2.js（x.js 已存在，未改动）")
    );
    let fx = ch(&mut m, 'y');
    let [Effect::Copy { what, .. }] = &fx[..] else {
        panic!("{fx:?}");
    };
    assert!(what.contains(" 上的 "), "{what}");
    update(
        &mut m,
        Msg::Done(Done::Copied {
            what: what.clone(),
            lines: 3,
        }),
    );
    let said = m
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(
        said.starts_with("已通过 OSC 52 复制") && said.contains("3 行"),
        "{said}"
    );
}

/// A hint is about what was on screen when it was said: it goes when the
/// user moves to another tab or collection, and an error stays.
#[test]
fn a_hint_goes_with_the_tab_it_was_said_on_and_an_error_stays() {
    let mut m = model();
    select(&mut m, "orders");
    ch(&mut m, '2');
    let copied = || {
        Msg::Done(Done::Copied {
            what: "the script".into(),
            lines: 3,
        })
    };
    update(&mut m, copied());
    assert!(m.status.is_some());
    ch(&mut m, 'j');
    assert!(m.status.is_some(), "moving within the tab keeps it");
    ch(&mut m, '1');
    assert!(m.status.is_none(), "another tab drops it");
    ch(&mut m, '2');
    update(&mut m, copied());
    m.focus = Pane::Nav;
    select(&mut m, "customers");
    assert!(m.status.is_none(), "another collection drops it");
    docshape::tui::update::common::status(&mut m, Level::Error, "the server went away");
    ch(&mut m, '1');
    assert_eq!(
        m.status.as_ref().map(|s| s.level),
        Some(Level::Error),
        "an error stays"
    );
}

#[test]
fn sampling_progress_cancel_and_stale_results() {
    let mut m = Model::new("t".into(), 100, Keymap::default());
    let fx = start_sampling(&mut m);
    assert_eq!(fx, vec![Effect::Sample { req: 1, size: 100 }]);
    update(
        &mut m,
        Msg::Progress {
            req: 1,
            stage: docshape::audit::Stage::Sampling,
            namespace: "a.b".into(),
            position: (1, 2),
            documents: 50,
            expected: Some(100),
            rate: 500.0,
        },
    );
    assert_eq!(m.job.as_ref().map(|j| j.documents), Some(50));
    // A result for another request is dropped.
    update(
        &mut m,
        Msg::Loaded {
            req: 7,
            result: Ok(Box::new(sample_report())),
        },
    );
    assert!(m.report.is_none() && m.job.is_some());
    // Esc stops the reading (what was read is judged); a second Esc
    // cancels.
    assert_eq!(key(&mut m, KeyCode::Esc), vec![Effect::Stop { req: 1 }]);
    assert!(m.job.is_some());
    assert_eq!(key(&mut m, KeyCode::Esc), vec![Effect::Cancel { req: 1 }]);
    assert!(m.job.is_none());
    assert_eq!(m.status.as_ref().map(|s| s.level), Some(Level::Warning));
    // The cancelled run's late result is stale too.
    update(
        &mut m,
        Msg::Loaded {
            req: 1,
            result: Ok(Box::new(sample_report())),
        },
    );
    assert!(m.report.is_none());
    // + doubles the sample, r samples again with it.
    ch(&mut m, '+');
    assert_eq!(m.sample, 200);
    assert_eq!(ch(&mut m, 'r'), vec![Effect::Sample { req: 2, size: 200 }]);
    update(
        &mut m,
        Msg::Loaded {
            req: 2,
            result: Ok(Box::new(sample_report())),
        },
    );
    assert!(m.report.is_some() && m.job.is_none());
}

#[test]
fn a_failed_run_shows_an_error_line() {
    let mut m = Model::new("t".into(), 100, Keymap::default());
    start_sampling(&mut m);
    update(
        &mut m,
        Msg::Loaded {
            req: 1,
            result: Err(docshape::tui::msg::Failure::Source(
                "cannot reach the server at x: refused".into(),
            )),
        },
    );
    let s = m.status.as_ref().expect("status");
    assert_eq!(s.level, Level::Error);
    assert!(s.text.contains("cannot reach"));
    assert!(m.job.is_none() && !m.quit);
}

#[test]
fn collapse_filter_and_jump_to_documents() {
    let mut m = model();
    select(&mut m, "orders");
    key(&mut m, KeyCode::Tab);
    let before = m.schema.rows.len();
    // Find `items` and fold it.
    while m.selected_field().is_some_and(|f| f.path != "items") {
        ch(&mut m, 'j');
    }
    key(&mut m, KeyCode::Enter);
    assert!(m.schema.rows.len() < before);
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.schema.rows.len(), before);
    // Documents that have the field, then the largest ones.
    ch(&mut m, 'd');
    assert_eq!(m.tab, Tab::Documents);
    assert_eq!(m.docs.view, DocView::WithField("items".into()));
    assert!(!m.docs.list.is_empty());
    ch(&mut m, 'L');
    let c = m.collection().expect("coll");
    let sizes: Vec<usize> = m.docs.list.iter().map(|&d| c.kept[d].len()).collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    key(&mut m, KeyCode::Enter);
    assert!(m.docs.open.contains(&m.docs.list[0]));
    // On the Documents tab `/` opens the query bar; on the Schema tab it
    // filters the fields.
    ch(&mut m, '/');
    assert!(m.docs.query.bar.is_some());
    key(&mut m, KeyCode::Esc);
    ch(&mut m, '1');
    ch(&mut m, '/');
    for c in "sku".chars() {
        ch(&mut m, c);
    }
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.tab, Tab::Schema);
    let c = m.collection().expect("coll");
    assert!(!m.schema.rows.is_empty());
    assert!(m
        .schema
        .rows
        .iter()
        .all(|&i| c.fields[i].path.contains("sku")));
    key(&mut m, KeyCode::Esc);
    assert!(m.schema.filter.is_empty());
}

#[test]
fn collection_filter_and_help_and_quit() {
    let mut m = model();
    ch(&mut m, '/');
    for c in "prod".chars() {
        ch(&mut m, c);
    }
    key(&mut m, KeyCode::Enter);
    assert_eq!(
        m.collection().map(|c| c.meta.name.as_str()),
        Some("products")
    );
    ch(&mut m, '?');
    assert!(m.help.open);
    ch(&mut m, 'j'); // ignored under help
    key(&mut m, KeyCode::Esc);
    assert!(!m.help.open);
    assert_eq!(ch(&mut m, 'q'), vec![Effect::Quit]);
    assert!(m.quit);
}

#[test]
fn mouse_click_selects_a_collection_and_a_tab() {
    let mut m = model();
    let a = docshape::tui::layout::areas(ratatui::layout::Rect::new(0, 0, 120, 40)).expect("areas");
    // Row 0 inside the navigator is the overview, row 1 the database, row 3
    // the second collection.
    let click = |col, row| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: col,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut m, click(a.nav.x + 3, a.nav.y + 4));
    assert_eq!(m.collection().map(|c| c.meta.name.as_str()), Some("orders"));
    update(&mut m, click(a.tabs.x + 15, a.tabs.y));
    assert_eq!(m.tab, Tab::Findings);
    update(
        &mut m,
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: a.nav.x + 3,
            row: a.nav.y + 3,
            modifiers: KeyModifiers::NONE,
        }),
    );
    assert_eq!(
        m.collection().map(|c| c.meta.name.as_str()),
        Some("products")
    );
}

#[test]
fn configured_keys_are_used() {
    let t: toml::Table = toml::from_str("quit = \"x\"").expect("toml");
    let (keymap, warnings) = Keymap::with_overrides(Some(&t));
    assert!(warnings.is_empty());
    let mut m = Model::new("t".into(), 10, keymap);
    assert!(ch(&mut m, 'q').is_empty());
    assert_eq!(ch(&mut m, 'x'), vec![Effect::Quit]);
}

#[test]
fn terminate_quits() {
    let mut m = Model::new("t".into(), 10, Keymap::default());
    assert_eq!(update(&mut m, Msg::Terminate), vec![Effect::Quit]);
}

#[test]
fn a_partly_unreadable_directory_shows_what_was_read_and_says_what_was_not() {
    // The shop data set, plus one collection whose file breaks off.
    let tmp = tempfile::tempdir().expect("tempdir");
    let shop = tmp.path().join("shop");
    std::fs::create_dir_all(&shop).expect("mkdir");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data/shop");
    for f in std::fs::read_dir(&data).expect("sample data") {
        let f = f.expect("entry").path();
        let name = f.file_name().expect("name");
        std::fs::copy(&f, shop.join(name)).expect("copy");
    }
    std::fs::write(shop.join("broken.json"), "{\"a\": 1}\n{\"a\": [1, 2").expect("write");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let report = rt.block_on(async {
        let mut src = FileSource::open(tmp.path()).expect("directory");
        let plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
        audit::run(&mut src, &plan, &mut |_| {})
            .await
            .expect("the readable part is a report")
    });
    assert_eq!(report.errors.len(), 1, "{:?}", report.errors);
    let read = report.collections.len();
    assert_eq!(read, 3);

    let mut m = Model::new("dir".into(), 1000, Keymap::default());
    m.size = (120, 40);
    start_sampling(&mut m);
    update(
        &mut m,
        Msg::Loaded {
            req: 1,
            result: Ok(Box::new(report)),
        },
    );
    let collections = m
        .nav
        .rows
        .iter()
        .filter(|r| matches!(r, NavRow::Coll(..)))
        .count();
    assert_eq!(collections, read, "{:?}", m.nav.rows);
    let s = m.status.as_ref().expect("status");
    assert_eq!(s.level, Level::Error);
    assert!(s.text.contains("broken.json"), "{}", s.text);
    assert!(s.text.contains("3 collections read"), "{}", s.text);

    // On screen, under the collections that were read.
    let mut t =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).expect("terminal");
    t.draw(|f| docshape::tui::views::render(&m, &docshape::tui::theme::Theme::default(), f))
        .expect("draw");
    let buf = t.backend().buffer();
    let screen: String = (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_owned())
                .collect::<String>()
                + "\n"
        })
        .collect();
    assert!(screen.contains("broken.json"), "{screen}");
    assert!(screen.contains("orders"), "{screen}");
}

fn all_data() -> Model {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let report = rt.block_on(async {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data");
        let mut src = FileSource::open(&dir).expect("sample data");
        let plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
        audit::run(&mut src, &plan, &mut |_| {})
            .await
            .expect("audit")
    });
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (120, 40);
    set_report(&mut m, report);
    m
}

#[test]
fn the_overview_lists_every_finding_worst_first() {
    let mut m = all_data();
    let total: usize = m.report.as_ref().map_or(0, |r| {
        r.collections
            .iter()
            .map(|c| c.findings.len())
            .sum::<usize>()
            + r.findings.len()
    });
    assert!(total > 10, "sample-data has findings in many collections");
    ch(&mut m, 'g');
    assert_eq!(m.nav.rows[m.nav.sel], NavRow::Overview);
    assert!(m.is_summary());
    assert_eq!(m.tab, Tab::Findings);
    assert_eq!(m.findings.rows.len(), total);
    let all = m.listed_findings();
    let sevs: Vec<_> = m.findings.rows.iter().map(|&i| all[i].severity).collect();
    assert!(sevs.windows(2).all(|w| w[0] >= w[1]), "{sevs:?}");
    // More than one collection in the list.
    let namespaces: std::collections::HashSet<_> = m
        .findings
        .rows
        .iter()
        .map(|&i| all[i].namespace.clone())
        .collect();
    assert!(namespaces.len() > 3, "{namespaces:?}");
}

#[test]
fn database_rows_carry_a_badge_and_fold() {
    let mut m = all_data();
    let db = "indexes";
    let row = m
        .nav
        .rows
        .iter()
        .position(|r| *r == NavRow::Db(db.into()))
        .expect("db row");
    let worst = m.report.as_ref().and_then(|r| {
        r.collections
            .iter()
            .filter(|c| c.meta.db == db)
            .flat_map(|c| c.findings.iter().map(|f| f.severity))
            .max()
    });
    assert!(worst.is_some());
    assert_eq!(m.worst_in_db(db), worst);
    let before = m.nav.rows.len();
    ch(&mut m, 'g');
    while m.nav.sel < row {
        ch(&mut m, 'j');
    }
    assert_eq!(m.selected_db(), Some(db));
    // Its findings are those of its collections.
    assert!(m.is_summary());
    let all = m.listed_findings();
    assert!(!all.is_empty() && all.iter().all(|f| f.namespace.starts_with("indexes")));
    let in_db = m.report.as_ref().map_or(0, |r| {
        r.collections.iter().filter(|c| c.meta.db == db).count()
    });
    assert!(in_db >= 2, "{in_db} collections in {db}");
    key(&mut m, KeyCode::Enter);
    assert_eq!(
        m.nav.rows.len(),
        before - in_db,
        "its {in_db} collections are folded"
    );
    assert_eq!(m.selected_db(), Some(db));
    key(&mut m, KeyCode::Right);
    assert_eq!(m.nav.rows.len(), before);
    key(&mut m, KeyCode::Left);
    assert_eq!(m.nav.rows.len(), before - in_db);
}

#[test]
fn the_navigator_sorts_by_severity_size_and_documents() {
    let mut m = all_data();
    let order = |m: &Model| -> Vec<String> {
        let r = m.report.as_ref().expect("report");
        m.nav
            .rows
            .iter()
            .filter_map(|row| match row {
                NavRow::Coll(i) => Some(r.collections[*i].namespace.clone()),
                _ => None,
            })
            .collect()
    };
    let by_name = order(&m);
    ch(&mut m, 'o');
    let by_severity = order(&m);
    let rep = m.report.as_ref().expect("report");
    // The first database in the list holds the worst finding anywhere.
    let worst_any = rep.collections.iter().filter_map(Model::worst).max();
    let first = rep
        .collections
        .iter()
        .find(|c| c.namespace == by_severity[0])
        .expect("first");
    assert_eq!(Model::worst(first), worst_any);
    assert_ne!(by_name, by_severity);
    ch(&mut m, 'o');
    ch(&mut m, 'o');
    // By documents: within each database, most documents first.
    let rep = m.report.as_ref().expect("report");
    let mut last_db = String::new();
    let mut last_docs = u64::MAX;
    for row in &m.nav.rows {
        match row {
            NavRow::Db(d) => {
                last_db = d.clone();
                last_docs = u64::MAX;
            }
            NavRow::Coll(i) => {
                let c = &rep.collections[*i];
                assert_eq!(c.meta.db, last_db);
                let n = c.documents.unwrap_or(0);
                assert!(n <= last_docs, "{} out of order", c.namespace);
                last_docs = n;
            }
            NavRow::Overview => {}
        }
    }
    ch(&mut m, 'o');
    assert_eq!(order(&m), by_name);
}

#[test]
fn enter_on_a_relationship_opens_the_other_collection() {
    let mut m = all_data();
    // extended_reference.bad_orders.customer.id → extended_reference.bad_customers._id
    let ns = "extended_reference.bad_orders";
    let i = m
        .report
        .as_ref()
        .and_then(|r| r.collections.iter().position(|c| c.namespace == ns))
        .expect("collection");
    let row = m
        .nav
        .rows
        .iter()
        .position(|r| *r == NavRow::Coll(i))
        .expect("row");
    ch(&mut m, 'g');
    while m.nav.sel < row {
        ch(&mut m, 'j');
    }
    ch(&mut m, '4');
    assert_eq!(m.focus, Pane::Main);
    let rel = m.selected_relationship().cloned().expect("a relationship");
    assert!(rel.from.starts_with(ns), "{rel:?}");
    key(&mut m, KeyCode::Enter);
    let c = m.collection().expect("a collection");
    assert!(
        rel.to.starts_with(&format!("{}.", c.namespace)),
        "{} vs {rel:?}",
        c.namespace
    );
    assert_ne!(c.namespace, ns);
    assert_eq!(m.tab, Tab::Schema);
    let field = m.selected_field().expect("field");
    assert_eq!(
        format!("{}.{}", c.namespace, field.path),
        rel.to,
        "the schema opens at the referenced path"
    );
}

/// The explorer on the sample data's `contacts` with the bundled workload:
/// the Workload tab of `bad_groups` shows the finding its group renames
/// drew (as `audit` links it to the shape), though the finding is about
/// the copies in `bad_contacts`; Enter opens it there.
#[test]
fn a_shape_shows_and_opens_its_finding_on_another_collection() {
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("sample-data")
        .join(docshape::seed::workload::LOG_PATH);
    let report = audit_sample("contacts", Some(&log));
    let linked: Vec<String> = report
        .workload
        .as_ref()
        .expect("workload")
        .shapes
        .iter()
        .filter(|s| s.namespace == "contacts.bad_groups")
        .flat_map(|s| s.findings.clone())
        .collect();
    assert_eq!(linked, ["write-amplified-copy"], "audit links the renames");
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (120, 40);
    set_report(&mut m, report);
    select(&mut m, "bad_groups");
    ch(&mut m, '7');
    assert_eq!(m.tab, Tab::Workload);
    let (rank, shape) = m.selected_shape().expect("the renames' shape");
    assert_eq!(shape.op, "update");
    let rules: Vec<&str> = m.shape_findings(rank).iter().map(|f| f.rule).collect();
    assert_eq!(
        rules,
        ["write-amplified-copy"],
        "the tab shows what audit links"
    );
    assert!(
        m.listed_findings().is_empty(),
        "bad_groups holds no finding of its own"
    );
    m.focus = Pane::Main;
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.tab, Tab::Findings);
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("contacts.bad_contacts")
    );
    let f = m.selected_finding().expect("the opened finding");
    assert_eq!(f.rule, "write-amplified-copy");
    assert_eq!(f.evidence["shape"]["rank"].as_u64(), Some(rank as u64));
}

/// Each tab's update is a module of its own, driven here without the
/// dispatcher: it changes its own tab's state and nothing else; and the
/// dispatcher hands a movement to the focused pane only.
#[test]
fn each_tab_answers_on_its_own_and_the_focused_one_gets_the_keys() {
    use docshape::tui::keymap::Action;
    use docshape::tui::update::{self, action};
    let mut m = model();
    select(&mut m, "orders");
    let nav_before = m.nav.sel;
    assert!(update::schema::action(&mut m, Action::Down).is_empty());
    assert_eq!(
        (m.schema.sel, m.nav.sel, m.findings.sel),
        (1, nav_before, 0)
    );
    update::findings::action(&mut m, Action::Bottom);
    assert!(m.findings.rows.len() > 1, "{:?}", m.findings.rows);
    assert_eq!(m.findings.sel, m.findings.rows.len() - 1);
    assert_eq!(m.schema.sel, 1);
    update::documents::action(&mut m, Action::Toggle);
    assert_eq!(m.docs.open.len(), 1);
    assert!(m.docs.lines.values().all(|l| l.len() > 2));
    let fx = update::findings::script(&mut m, Action::Copy);
    assert!(matches!(&fx[..], [Effect::Copy { .. }]), "{fx:?}");
    update::nav::action(&mut m, Action::Down);
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.products")
    );
    // A new collection: every tab back at its start.
    assert_eq!((m.schema.sel, m.findings.sel), (0, 0));
    assert!(m.docs.open.is_empty());
    // The dispatcher: Down moves the navigator while it has the focus,
    // the tab's list once the tab has it.
    assert_eq!(m.focus, Pane::Nav);
    action(&mut m, Action::Down);
    assert_eq!(m.schema.sel, 0);
    action(&mut m, Action::NextPane);
    action(&mut m, Action::Down);
    assert_eq!(m.schema.sel, 1);
}

/// The explorer as it opens: a sampling run whose report comes in.
fn opened(report: Report) -> Model {
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (120, 40);
    start_sampling(&mut m);
    update(
        &mut m,
        Msg::Loaded {
            req: 1,
            result: Ok(Box::new(report)),
        },
    );
    m
}

fn text(m: &mut Model, s: &str) {
    for c in s.chars() {
        ch(m, c);
    }
}

fn shift_tab(m: &mut Model) -> Vec<Effect> {
    update(
        m,
        Msg::Key(KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT)),
    )
}

/// Someone who came for the problems finds them first: the explorer opens
/// on *All findings*; without findings, on the first collection; and a
/// user who moved while the collections arrived keeps their place.
#[test]
fn the_explorer_opens_on_all_findings() {
    let m = opened(sample_report());
    assert_eq!(m.nav.rows[m.nav.sel], NavRow::Overview);
    assert_eq!(m.tab, Tab::Findings);
    assert_eq!(m.focus, Pane::Nav);
    assert!(!m.findings.rows.is_empty());
    // The worst finding first.
    let all = m.listed_findings();
    let worst = m.findings.rows.iter().map(|&i| all[i].severity).max();
    assert_eq!(m.selected_finding().map(|f| f.severity), worst);

    let mut clean = sample_report();
    clean.findings.clear();
    for c in &mut clean.collections {
        c.findings.clear();
    }
    let m = opened(clean);
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.customers")
    );
    assert_eq!(m.tab, Tab::Schema);

    // Collections arrive; the user moves to the second one; the report
    // keeps them there.
    let full = sample_report();
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (120, 40);
    start_sampling(&mut m);
    for (i, c) in full.collections.iter().take(2).enumerate() {
        let mut c = c.clone();
        c.findings.clear();
        update(
            &mut m,
            Msg::Arrived {
                req: 1,
                position: (i + 1, full.collections.len()),
                collection: Box::new(c),
            },
        );
    }
    ch(&mut m, 'j');
    let there = m.collection().map(|c| c.namespace.clone());
    assert!(there.is_some());
    update(
        &mut m,
        Msg::Loaded {
            req: 1,
            result: Ok(Box::new(full)),
        },
    );
    assert_eq!(m.collection().map(|c| c.namespace.clone()), there);
}

/// After the collection filter changes the list, the selection is on a
/// collection that matches: the old one while it is listed, else the
/// first match, so that `3` shows its documents at once.
#[test]
fn a_filter_selects_the_first_match_unless_the_selection_still_shows() {
    let mut m = opened(sample_report());
    assert!(m.is_summary());
    ch(&mut m, '/');
    text(&mut m, "ord");
    key(&mut m, KeyCode::Enter);
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.orders")
    );
    ch(&mut m, '3');
    assert_eq!(m.tab, Tab::Documents);
    assert!(!m.docs.list.is_empty());

    // A selection the filter still lists stays.
    let mut m = model();
    select(&mut m, "products");
    ch(&mut m, '/');
    text(&mut m, "shop");
    assert_eq!(
        m.collection().map(|c| c.meta.name.as_str()),
        Some("products")
    );
    // Hidden by the filter: the first match.
    key(&mut m, KeyCode::Backspace);
    key(&mut m, KeyCode::Backspace);
    key(&mut m, KeyCode::Backspace);
    key(&mut m, KeyCode::Backspace);
    text(&mut m, "cust");
    assert_eq!(
        m.collection().map(|c| c.meta.name.as_str()),
        Some("customers")
    );
    // Nothing matches: the overview, the only row left.
    text(&mut m, "zzz");
    assert_eq!(m.nav.rows, [NavRow::Overview]);
    assert!(m.is_summary());
}

/// Esc on the filter, typing it or after, clears it and keeps the
/// selected collection (its database unfolded if it was folded).
#[test]
fn esc_on_the_filter_keeps_the_selected_collection() {
    let mut m = model();
    ch(&mut m, '/');
    text(&mut m, "prod");
    key(&mut m, KeyCode::Esc);
    assert!(m.nav.filter.is_empty() && m.input.is_none());
    assert_eq!(
        m.collection().map(|c| c.meta.name.as_str()),
        Some("products")
    );
    assert!(m.nav.rows.len() > 3, "every collection listed again");

    ch(&mut m, '/');
    text(&mut m, "ord");
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.collection().map(|c| c.meta.name.as_str()), Some("orders"));
    key(&mut m, KeyCode::Esc);
    assert!(m.nav.filter.is_empty());
    assert_eq!(m.collection().map(|c| c.meta.name.as_str()), Some("orders"));

    // Its database folded before the filter: unfolded to keep it.
    m.nav.folded.insert("shop".into());
    ch(&mut m, '/');
    text(&mut m, "cust");
    key(&mut m, KeyCode::Esc);
    assert_eq!(
        m.collection().map(|c| c.meta.name.as_str()),
        Some("customers")
    );
}

/// Enter on a row of *All findings* opens that finding on its
/// collection's Findings tab, selected, its detail focused; Enter on a
/// collection's own finding focuses its detail.
#[test]
fn enter_on_an_all_findings_row_opens_the_finding() {
    let mut m = opened(all_data().report.take().expect("report"));
    assert!(m.is_summary());
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.focus, Pane::Main, "Enter in the navigator: the list");
    ch(&mut m, 'j');
    let f = m.selected_finding().expect("a finding").clone();
    let colls: Vec<String> = m
        .report
        .as_ref()
        .map(|r| r.collections.iter().map(|c| c.namespace.clone()).collect())
        .unwrap_or_default();
    assert!(colls.contains(&f.namespace), "{}", f.namespace);
    key(&mut m, KeyCode::Enter);
    assert_eq!(
        m.collection().map(|c| c.namespace.clone()),
        Some(f.namespace.clone())
    );
    assert_eq!(m.tab, Tab::Findings);
    let opened = m.selected_finding().expect("the opened finding");
    assert_eq!((opened.rule, &opened.path), (f.rule, &f.path));
    assert_eq!(opened.message, f.message);
    assert_eq!(m.focus, Pane::Detail);
    assert_eq!(m.detail.scroll, 0);
    // Esc: back to the list; Enter there: the detail again.
    key(&mut m, KeyCode::Esc);
    assert_eq!(m.focus, Pane::Main);
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.focus, Pane::Detail);
}

/// The detail takes the focus with Tab; its keys jump to a finding's
/// evidence, before/after and script; `y` there copies the script; Esc
/// and Shift-Tab go back.
#[test]
fn the_detail_takes_the_focus_and_jumps_to_a_findings_parts() {
    use docshape::tui::detail::findings::text_and_sections;
    let mut m = model();
    select(&mut m, "orders");
    ch(&mut m, '2');
    assert_eq!(m.focus, Pane::Main);
    // A finding with a before and after.
    while m
        .selected_finding()
        .is_some_and(|f| f.suggestion.before.is_none())
    {
        let at = m.findings.sel;
        ch(&mut m, 'j');
        assert_ne!(at, m.findings.sel, "a finding with a before/after");
    }
    key(&mut m, KeyCode::Tab);
    assert_eq!(m.focus, Pane::Detail);
    let listed = m.findings.sel;
    ch(&mut m, 'j');
    assert_eq!(m.detail.scroll, 1, "a move scrolls the detail");
    assert_eq!(m.findings.sel, listed, "not the list");

    let a = docshape::tui::layout::areas(ratatui::layout::Rect::new(0, 0, 120, 40)).expect("areas");
    let area = docshape::tui::layout::findings_split(a.main).1;
    let theme = docshape::tui::theme::Theme::default();
    let (lines, inside, sections) = text_and_sections(&m, &theme, area).expect("detail");
    let max = lines.len().saturating_sub(usize::from(inside.height));
    let at = |line: usize| u16::try_from(line.min(max)).expect("u16");
    let before_after = sections.before_after.expect("before/after");
    assert!(sections.evidence < before_after && before_after < sections.script);
    ch(&mut m, 'm');
    assert_eq!(m.detail.scroll, at(sections.script));
    ch(&mut m, 'e');
    assert_eq!(m.detail.scroll, at(sections.evidence));
    ch(&mut m, 'b');
    assert_eq!(m.detail.scroll, at(before_after));
    assert_eq!(m.focus, Pane::Detail);

    let f = m.selected_finding().expect("finding").clone();
    let fx = ch(&mut m, 'y');
    assert!(
        matches!(&fx[..], [Effect::Copy { text, .. }] if *text == f.suggestion.migration),
        "{fx:?}"
    );
    // Esc: the list; Shift-Tab from the detail: the list; from the list:
    // the navigator; Tab cycles navigator → list → detail.
    key(&mut m, KeyCode::Esc);
    assert_eq!(m.focus, Pane::Main);
    key(&mut m, KeyCode::Tab);
    shift_tab(&mut m);
    assert_eq!(m.focus, Pane::Main);
    shift_tab(&mut m);
    assert_eq!(m.focus, Pane::Nav);
    shift_tab(&mut m);
    assert_eq!(m.focus, Pane::Detail, "backwards, the navigator → detail");
    key(&mut m, KeyCode::Tab);
    assert_eq!(m.focus, Pane::Nav);

    // From the list, a jump key takes the detail there too.
    key(&mut m, KeyCode::Tab);
    assert_eq!(m.focus, Pane::Main);
    ch(&mut m, 'm');
    assert_eq!(
        (m.focus, m.detail.scroll),
        (Pane::Detail, at(sections.script))
    );

    // On the Documents tab there is no detail to focus, nor a finding.
    ch(&mut m, '3');
    key(&mut m, KeyCode::Tab);
    assert_eq!(m.focus, Pane::Nav);
    ch(&mut m, 'm');
    assert_eq!(m.status.as_ref().map(|s| s.level), Some(Level::Warning));
    assert_eq!(m.focus, Pane::Nav);
}

/// `c`: from a finding to its collection, on the Schema tab at its field.
#[test]
fn a_key_goes_from_a_finding_to_its_collection() {
    let mut m = opened(all_data().report.take().expect("report"));
    key(&mut m, KeyCode::Tab);
    // A finding about a field of a collection.
    while m.selected_finding().is_some_and(|f| {
        f.path.as_deref().is_none_or(str::is_empty)
            || !m
                .report
                .as_ref()
                .is_some_and(|r| r.collections.iter().any(|c| c.namespace == f.namespace))
    }) {
        let at = m.findings.sel;
        ch(&mut m, 'j');
        assert_ne!(at, m.findings.sel, "a finding about a field");
    }
    let f = m.selected_finding().expect("finding").clone();
    ch(&mut m, 'c');
    assert_eq!(
        m.collection().map(|c| c.namespace.clone()),
        Some(f.namespace.clone())
    );
    assert_eq!(m.tab, Tab::Schema);
    assert_eq!(m.focus, Pane::Main);
    let field = m.selected_field().expect("field");
    assert_eq!(
        field.path.replace("[]", ""),
        f.path.as_deref().unwrap_or("").replace("[]", "")
    );
    // On the Schema tab there is no finding shown to go from.
    ch(&mut m, 'c');
    assert_eq!(m.status.as_ref().map(|s| s.level), Some(Level::Warning));
}

/// A click in the detail gives it the focus; the wheel over it scrolls it,
/// not the list.
#[test]
fn a_click_focuses_the_detail_and_the_wheel_scrolls_it() {
    let mut m = model();
    select(&mut m, "orders");
    ch(&mut m, '2');
    let a = docshape::tui::layout::areas(ratatui::layout::Rect::new(0, 0, 120, 40)).expect("areas");
    let detail = docshape::tui::layout::findings_split(a.main).1;
    let at = |kind| {
        Msg::Mouse(MouseEvent {
            kind,
            column: detail.x + 5,
            row: detail.y + 5,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut m, at(MouseEventKind::Down(MouseButton::Left)));
    assert_eq!(m.focus, Pane::Detail);
    let listed = m.findings.sel;
    update(&mut m, at(MouseEventKind::ScrollDown));
    update(&mut m, at(MouseEventKind::ScrollDown));
    assert_eq!((m.detail.scroll, m.findings.sel), (2, listed));
    // A click on the list: the list's again.
    let list = docshape::tui::layout::findings_split(a.main).0;
    update(
        &mut m,
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: list.x + 3,
            row: list.y + 1,
            modifiers: KeyModifiers::NONE,
        }),
    );
    assert_eq!(m.focus, Pane::Main);
}

/// Findings that come with an arriving collection (its own rules) are
/// listed under All findings at once, while the rest is read; a finding
/// selected there stays selected as more arrive.
#[test]
fn findings_of_an_arriving_collection_are_listed_while_the_rest_is_read() {
    let full = sample_report();
    let with: Vec<usize> = (0..full.collections.len())
        .filter(|&i| !full.collections[i].findings.is_empty())
        .collect();
    assert!(with.len() >= 2, "two collections with findings");
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (120, 40);
    start_sampling(&mut m);
    let arrive = |m: &mut Model, n: usize, i: usize| {
        update(
            m,
            Msg::Arrived {
                req: 1,
                position: (n, full.collections.len()),
                collection: Box::new(full.collections[i].clone()),
            },
        );
    };
    arrive(&mut m, 1, with[0]);
    assert!(
        m.is_summary(),
        "All findings is selected while collections arrive"
    );
    let first = full.collections[with[0]].findings.len();
    assert_eq!(m.findings.rows.len(), first);
    let screen = {
        use ratatui::{backend::TestBackend, Terminal};
        let mut t = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
        let theme = docshape::tui::theme::Theme::default();
        t.draw(|f| docshape::tui::views::render(&m, &theme, f))
            .expect("draw");
        let buf = t.backend().buffer().clone();
        (0..40)
            .map(|y| (0..120).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert!(screen.contains("so far"), "{screen}");
    // The user picks the last finding listed; another collection arrives.
    key(&mut m, KeyCode::Tab);
    assert_eq!(m.focus, Pane::Main);
    for _ in 0..first {
        key(&mut m, KeyCode::Down);
    }
    let chosen = m
        .selected_finding()
        .map(|f| (f.rule, f.namespace.clone(), f.path.clone()));
    arrive(&mut m, 2, with[1]);
    assert_eq!(
        m.findings.rows.len(),
        first + full.collections[with[1]].findings.len()
    );
    assert_eq!(
        m.selected_finding()
            .map(|f| (f.rule, f.namespace.clone(), f.path.clone())),
        chosen,
        "the selected finding stays selected"
    );
}
/// The orders' Documents tab, the list focused.
fn orders_documents() -> Model {
    let mut m = model();
    select(&mut m, "orders");
    ch(&mut m, '3');
    assert_eq!(m.tab, Tab::Documents);
    assert!(m.docs.list.len() > 10);
    m
}

fn said(m: &Model) -> String {
    m.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

fn ctrl(m: &mut Model, c: char) -> Vec<Effect> {
    update(
        m,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    )
}

#[test]
fn a_row_previews_its_first_fields() {
    let m = orders_documents();
    let bytes = m.doc_bytes(m.docs.list[m.docs.sel]).expect("a document");
    let p = docshape::tui::layout::documents::preview(bytes, 400);
    assert!(p.starts_with("_id: "), "{p}");
    assert!(p.contains("customer: {…}"), "{p}");
    assert!(p.contains("items: ["), "{p}");
    assert!(p.contains("status: \""), "{p}");
    let short = docshape::tui::layout::documents::preview(bytes, 30);
    assert_eq!(docshape::fmt::display_width(&short), 30, "{short}");
    assert!(short.ends_with('…'), "{short}");
}

#[test]
fn c_on_documents_chooses_columns_and_toggles_the_table() {
    let mut m = orders_documents();
    ch(&mut m, 'c');
    let chooser = m.docs.columns.chooser.as_ref().expect("the chooser");
    let c = m.collection().expect("orders");
    let top: Vec<&str> = c
        .fields
        .iter()
        .filter(|f| f.depth == 0)
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(chooser.fields, top);
    assert!(top.contains(&"status") && !top.iter().any(|f| f.contains('.')));
    // Status first, then _id: columns in the order ticked.
    let at = |m: &Model, f: &str| {
        m.docs
            .columns
            .chooser
            .as_ref()
            .and_then(|c| c.fields.iter().position(|x| x == f))
            .expect("field")
    };
    let status = at(&m, "status");
    for _ in 0..status {
        ch(&mut m, 'j');
    }
    ch(&mut m, ' ');
    ch(&mut m, 'g');
    ch(&mut m, ' ');
    key(&mut m, KeyCode::Enter);
    assert!(m.docs.columns.chooser.is_none());
    assert!(m.docs.columns.table);
    assert_eq!(m.docs.columns.chosen, ["status", "_id"]);
    assert!(said(&m).contains("status, _id"), "{}", said(&m));
    // `c` again: the previews; once more: the chooser, ticks kept.
    ch(&mut m, 'c');
    assert!(!m.docs.columns.table);
    ch(&mut m, 'c');
    assert_eq!(
        m.docs.columns.chooser.as_ref().map(|c| c.ticked.clone()),
        Some(vec!["status".to_owned(), "_id".to_owned()])
    );
    // Esc closes the chooser as it was; `c` in it shows the table.
    key(&mut m, KeyCode::Esc);
    assert!(m.docs.columns.chooser.is_none() && !m.docs.columns.table);
    ch(&mut m, 'c');
    ch(&mut m, 'c');
    assert!(m.docs.columns.table);
    // Esc from the table: the previews, the query results untouched.
    key(&mut m, KeyCode::Esc);
    assert!(!m.docs.columns.table);
    assert_eq!(m.tab, Tab::Documents);
    // On the Findings tab `c` still goes from a finding to its collection.
    ch(&mut m, '2');
    ch(&mut m, 'c');
    assert_eq!(m.tab, Tab::Schema);
    assert!(m.docs.columns.chooser.is_none());
}

#[test]
fn y_on_documents_copies_the_document_as_relaxed_extended_json() {
    let mut m = orders_documents();
    ch(&mut m, 'j');
    let d = m.docs.list[m.docs.sel];
    let doc = bson::Document::from_reader(m.doc_bytes(d).expect("bytes")).expect("document");
    let fx = ch(&mut m, 'y');
    let [Effect::Copy { text, what }] = &fx[..] else {
        panic!("{fx:?}");
    };
    let json: serde_json::Value = serde_json::from_str(text).expect("JSON");
    assert_eq!(
        json,
        bson::Bson::Document(doc.clone()).into_relaxed_extjson()
    );
    let id = doc.get_object_id("_id").expect("_id").to_hex();
    assert_eq!(
        what,
        &format!("document _id {id} of shop.orders as relaxed Extended JSON")
    );
    update(
        &mut m,
        Msg::Done(Done::Copied {
            what: what.clone(),
            lines: text.lines().count(),
        }),
    );
    assert!(
        said(&m).starts_with(&format!(
            "copied document _id {id} of shop.orders as relaxed Extended JSON ({} lines)",
            text.lines().count()
        )),
        "{}",
        said(&m)
    );
    // In Chinese too.
    m.lang = docshape::i18n::Lang::Zh;
    let fx = ch(&mut m, 'y');
    let [Effect::Copy { what, .. }] = &fx[..] else {
        panic!("{fx:?}");
    };
    assert_eq!(
        what,
        &format!("shop.orders 中 _id 为 {id} 的文档（relaxed Extended JSON）")
    );
    update(
        &mut m,
        Msg::Done(Done::Copied {
            what: what.clone(),
            lines: 3,
        }),
    );
    assert!(
        said(&m).starts_with("已通过 OSC 52 复制shop.orders 中") && said(&m).contains("3 行"),
        "{}",
        said(&m)
    );
}

#[test]
fn ctrl_f_searches_the_listed_documents_and_n_walks_the_matches() {
    let mut m = orders_documents();
    let c = m.collection().expect("orders");
    let texts: Vec<String> = m
        .docs
        .list
        .iter()
        .map(|&d| {
            bson::Bson::Document(bson::Document::from_reader(&c.kept[d][..]).expect("doc"))
                .into_relaxed_extjson()
                .to_string()
        })
        .collect();
    let want: Vec<usize> = (0..texts.len())
        .filter(|&i| texts[i].contains("SKU-0015"))
        .collect();
    assert!(want.len() > 1, "{want:?}");
    ctrl(&mut m, 'f');
    // Typed in lower case: the search ignores case.
    for c in "sku-0015".chars() {
        ch(&mut m, c);
    }
    let s = m.docs.search.as_ref().expect("search");
    assert!(s.editing);
    assert_eq!(s.hits, want);
    assert_eq!(m.docs.sel, want[0]);
    key(&mut m, KeyCode::Enter);
    assert!(m.docs.search.as_ref().is_some_and(|s| !s.editing));
    assert!(
        said(&m).contains(&format!("match 1 of {}", want.len())),
        "{}",
        said(&m)
    );
    // `n` the next match (not the next page), `N` back, round the ends.
    ch(&mut m, 'n');
    assert_eq!(m.docs.sel, want[1]);
    assert!(said(&m).contains(&format!("match 2 of {}", want.len())));
    ch(&mut m, 'N');
    ch(&mut m, 'N');
    assert_eq!(m.docs.sel, want[want.len() - 1]);
    assert!(said(&m).contains("(wrapped)"), "{}", said(&m));
    // Esc ends the search; `n` then says there is none.
    key(&mut m, KeyCode::Esc);
    assert!(m.docs.search.is_none());
    ch(&mut m, 'n');
    assert!(said(&m).contains("no query results"), "{}", said(&m));
    // Nothing found says so.
    ctrl(&mut m, 'f');
    for c in "no such text".chars() {
        ch(&mut m, c);
    }
    key(&mut m, KeyCode::Enter);
    assert!(said(&m).contains("in none of the"), "{}", said(&m));
    key(&mut m, KeyCode::Esc);
    // In Chinese too, from the top.
    m.lang = docshape::i18n::Lang::Zh;
    ch(&mut m, 'g');
    ctrl(&mut m, 'f');
    for c in "SKU-0015".chars() {
        ch(&mut m, c);
    }
    key(&mut m, KeyCode::Enter);
    assert!(
        said(&m).contains(&format!("第 1 个匹配，共 {} 个", want.len())),
        "{}",
        said(&m)
    );
}

#[test]
fn a_new_filter_starts_without_the_previous_sort_and_projection() {
    let mut m = orders_documents();
    ch(&mut m, '/');
    for c in "{status: 'paid'}".chars() {
        ch(&mut m, c);
    }
    key(&mut m, KeyCode::Tab);
    for c in "{_id: -1}".chars() {
        ch(&mut m, c);
    }
    key(&mut m, KeyCode::Tab);
    for c in "{status: 1}".chars() {
        ch(&mut m, c);
    }
    let fx = key(&mut m, KeyCode::Enter);
    let sorted = fx.iter().any(|e| {
        matches!(e, Effect::Query { query, work: docshape::tui::effects::QueryWork::Page, .. }
            if query.sort.is_some() && query.projection.is_some())
    });
    assert!(sorted, "{fx:?}");
    assert!(m.status.is_none());
    // The bar opens on the filter only; a new one runs without the rest.
    ch(&mut m, '/');
    let bar = m.docs.query.bar.as_ref().expect("bar");
    assert_eq!(bar.text.filter, "{status: 'paid'}");
    assert!(bar.text.sort.is_empty() && bar.text.projection.is_empty());
    for _ in 0.."'paid'}".len() {
        key(&mut m, KeyCode::Backspace);
    }
    for c in "'shipped'}".chars() {
        ch(&mut m, c);
    }
    let fx = key(&mut m, KeyCode::Enter);
    let plain = fx.iter().any(|e| {
        matches!(e, Effect::Query { query, work: docshape::tui::effects::QueryWork::Page, .. }
            if query.sort.is_none() && query.projection.is_none())
    });
    assert!(plain, "{fx:?}");
    let s = said(&m);
    assert!(s.contains("as a new find"), "{s}");
    assert!(s.contains("sort {_id: -1}, projection {status: 1}"), "{s}");
    assert!(s.contains("↑"), "{s}");
    // ↑ brings the whole query back.
    ch(&mut m, '/');
    key(&mut m, KeyCode::Up);
    let bar = m.docs.query.bar.as_ref().expect("bar");
    assert_eq!(bar.text.filter, "{status: 'shipped'}");
    key(&mut m, KeyCode::Up);
    let bar = m.docs.query.bar.as_ref().expect("bar");
    assert_eq!(bar.text.sort, "{_id: -1}");
}

/// A filter typed while collections arrive (their findings opening All
/// findings) selects the first collection it matches, and the selection
/// stays there as the rest arrives and the report comes in.
#[test]
fn a_filter_typed_while_collections_arrive_keeps_its_match() {
    let full = sample_report();
    let n = full.collections.len();
    let target = full
        .collections
        .iter()
        .position(|c| c.namespace == "shop.orders")
        .expect("shop.orders");
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (120, 40);
    start_sampling(&mut m);
    let arrive = |m: &mut Model, i: usize| {
        update(
            m,
            Msg::Arrived {
                req: 1,
                position: (i + 1, n),
                collection: Box::new(full.collections[i].clone()),
            },
        );
    };
    // Typed before the collection it matches has arrived.
    for i in 0..target {
        arrive(&mut m, i);
    }
    ch(&mut m, '/');
    text(&mut m, "shop.ord");
    arrive(&mut m, target);
    text(&mut m, "ers");
    key(&mut m, KeyCode::Enter);
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.orders")
    );
    for i in target + 1..n {
        arrive(&mut m, i);
    }
    update(
        &mut m,
        Msg::Loaded {
            req: 1,
            result: Ok(Box::new(full.clone())),
        },
    );
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.orders")
    );
}

/// The report may come in while the filter is still being typed.
#[test]
fn a_filter_typed_while_the_report_comes_in_keeps_its_match() {
    let full = sample_report();
    let n = full.collections.len();
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (120, 40);
    start_sampling(&mut m);
    for i in 0..n {
        update(
            &mut m,
            Msg::Arrived {
                req: 1,
                position: (i + 1, n),
                collection: Box::new(full.collections[i].clone()),
            },
        );
    }
    ch(&mut m, '/');
    text(&mut m, "shop.ord");
    update(
        &mut m,
        Msg::Loaded {
            req: 1,
            result: Ok(Box::new(full.clone())),
        },
    );
    text(&mut m, "ers");
    key(&mut m, KeyCode::Enter);
    assert_eq!(
        m.collection().map(|c| c.namespace.as_str()),
        Some("shop.orders")
    );
}
