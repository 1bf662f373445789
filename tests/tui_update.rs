//! Update/effect tests: messages in, model and effects out. No terminal,
//! no tokio in the loop (the fixture report is built once with a runtime).

use std::path::Path;

use docshape::audit::{self, Plan};
use docshape::report::Report;
use docshape::source::{FileSource, SampleMode, Selection};
use docshape::tui::effects::Effect;
use docshape::tui::keymap::Keymap;
use docshape::tui::model::{DocView, Level, Model, NavRow, Pane, Tab};
use docshape::tui::update::{set_report, start_sampling, update, Msg};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

pub fn sample_report() -> Report {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data");
        let mut src = FileSource::open(&dir).expect("sample data");
        let plan = Plan::new(
            Selection {
                dbs: vec!["shop".into()],
                collections: Vec::new(),
            },
            SampleMode::Sample(1000),
        );
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
    assert_eq!(m.nav[0], NavRow::Db("shop".into()));
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
    assert!(!m.rows.is_empty());
    key(&mut m, KeyCode::Tab);
    assert_eq!(m.focus, Pane::Main);
    ch(&mut m, 'j');
    assert_eq!(m.field_sel, 1);
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
    let all = m.findings();
    let sevs: Vec<_> = m.finding_rows.iter().map(|&i| all[i].severity).collect();
    assert!(sevs.windows(2).all(|w| w[0] >= w[1]), "{sevs:?}");
    assert!(!sevs.is_empty());
    ch(&mut m, 's'); // critical only
    let all = m.findings();
    assert!(m
        .finding_rows
        .iter()
        .all(|&i| all[i].severity == docshape::rules::Severity::Critical));
    ch(&mut m, 's');
    ch(&mut m, 's');
    ch(&mut m, 's'); // back to all
    assert_eq!(m.severity_filter, None);
    ch(&mut m, 'f');
    let rule = m.rule_filter.expect("a rule filter");
    let all = m.findings();
    assert!(m.finding_rows.iter().all(|&i| all[i].rule == rule));
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
            what
        }]
    );
    update(&mut m, Msg::Done(Ok("wrote x.js".into())));
    assert_eq!(
        m.status.as_ref().map(|s| s.text.as_str()),
        Some("wrote x.js")
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
    // Esc cancels.
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
            result: Err("cannot reach the server at x: refused".into()),
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
    let before = m.rows.len();
    // Find `items` and fold it.
    while m.selected_field().is_some_and(|f| f.path != "items") {
        ch(&mut m, 'j');
    }
    key(&mut m, KeyCode::Enter);
    assert!(m.rows.len() < before);
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.rows.len(), before);
    // Documents that have the field, then the largest ones.
    ch(&mut m, 'd');
    assert_eq!(m.tab, Tab::Documents);
    assert_eq!(m.doc_view, DocView::WithField("items".into()));
    assert!(!m.docs.is_empty());
    ch(&mut m, 'L');
    let c = m.collection().expect("coll");
    let sizes: Vec<usize> = m.docs.iter().map(|&d| c.kept[d].len()).collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    key(&mut m, KeyCode::Enter);
    assert!(m.doc_open.contains(&m.docs[0]));
    // `/` filters the fields.
    ch(&mut m, '/');
    for c in "sku".chars() {
        ch(&mut m, c);
    }
    key(&mut m, KeyCode::Enter);
    assert_eq!(m.tab, Tab::Schema);
    let c = m.collection().expect("coll");
    assert!(!m.rows.is_empty());
    assert!(m.rows.iter().all(|&i| c.fields[i].path.contains("sku")));
    key(&mut m, KeyCode::Esc);
    assert!(m.field_filter.is_empty());
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
    assert!(m.help);
    ch(&mut m, 'j'); // ignored under help
    key(&mut m, KeyCode::Esc);
    assert!(!m.help);
    assert_eq!(ch(&mut m, 'q'), vec![Effect::Quit]);
    assert!(m.quit);
}

#[test]
fn mouse_click_selects_a_collection_and_a_tab() {
    let mut m = model();
    let a = docshape::tui::views::areas(ratatui::layout::Rect::new(0, 0, 120, 40)).expect("areas");
    // Row 0 inside the navigator is the database, row 2 the second collection.
    let click = |col, row| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: col,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut m, click(a.nav.x + 3, a.nav.y + 3));
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
        .iter()
        .filter(|r| matches!(r, NavRow::Coll(..)))
        .count();
    assert_eq!(collections, read, "{:?}", m.nav);
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
