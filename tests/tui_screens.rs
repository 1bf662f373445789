//! Screen tests: the views drawn into ratatui's `TestBackend` at 80×24, at
//! a large size, and in a terminal too small to use.

use std::path::Path;

use docshape::audit::{self, Plan};
use docshape::report::Report;
use docshape::source::{FileSource, SampleMode, Selection};
use docshape::tui::keymap::Action;
use docshape::tui::keymap::Keymap;
use docshape::tui::model::{Model, Tab};
use docshape::tui::theme::Theme;
use docshape::tui::update::{action, set_report};
use docshape::tui::views;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn sample_report() -> Report {
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

fn orders(w: u16, h: u16) -> Model {
    let mut m = Model::new("mongodb://u:****@h/".into(), 1000, Keymap::default());
    m.size = (w, h);
    set_report(&mut m, sample_report());
    action(&mut m, Action::Down);
    m
}

/// The screen as text, a wide character once (its second cell skipped).
fn screen(m: &Model, width: u16, height: u16) -> String {
    let buf = screen_with(m, width, height, &Theme::default());
    let mut out = String::new();
    for row in 0..height {
        let mut col = 0;
        while col < width {
            let sym = buf[(col, row)].symbol();
            out.push_str(sym);
            col += u16::try_from(docshape::fmt::display_width(sym).max(1)).unwrap_or(1);
        }
        out.push('\n');
    }
    out
}

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

#[test]
fn schema_tab() {
    for (w, h) in SIZES {
        let m = orders(w, h);
        let s = screen(&m, w, h);
        assert!(s.contains("Collections"), "{s}");
        assert!(s.contains("orders"), "{s}");
        assert!(s.contains("Fields (15)"), "{s}");
        assert!(s.contains("customer_id"), "{s}");
        assert!(s.contains("100 %"), "{s}");
        assert!(s.contains("types"), "{s}");
        assert!(s.contains("u:****@h"), "{s}");
        assert!(s.contains("quit"), "{s}");
        if h >= 30 {
            assert!(s.contains("document sizes"), "{s}");
        }
    }
}

#[test]
fn schema_detail_shows_array_lengths() {
    let (w, h) = (200, 60);
    let mut m = orders(w, h);
    action(&mut m, Action::NextPane);
    while m.selected_field().is_some_and(|f| f.path != "items") {
        action(&mut m, Action::Down);
    }
    let s = screen(&m, w, h);
    assert!(s.contains("array lengths"), "{s}");
    assert!(s.contains("p95"), "{s}");
}

#[test]
fn findings_tab() {
    for (w, h) in SIZES {
        let mut m = orders(w, h);
        action(&mut m, Action::TabFindings);
        assert_eq!(m.tab, Tab::Findings);
        let s = screen(&m, w, h);
        assert!(s.contains("mixed-types"), "{s}");
        assert!(s.contains("warning"), "{s}");
        assert!(s.contains("Evidence"), "{s}");
        if h >= 60 {
            assert!(s.contains("Before"), "{s}");
        }
        // The script is below: `J` reaches it, at every size.
        let mut seen = s.contains("Migration script");
        for _ in 0..60 {
            if seen {
                break;
            }
            action(&mut m, Action::DetailDown);
            seen = screen(&m, w, h).contains("Migration script");
        }
        assert!(seen, "the migration script is never reached at {w}×{h}");
    }
}

#[test]
fn documents_tab() {
    for (w, h) in SIZES {
        let mut m = orders(w, h);
        action(&mut m, Action::TabDocuments);
        action(&mut m, Action::Toggle);
        let s = screen(&m, w, h);
        assert!(s.contains("Documents: kept sample (300)"), "{s}");
        assert!(s.contains("\"$oid\""), "{s}");
        assert!(s.contains("\"customer\": {"), "{s}");
    }
}

#[test]
fn relationships_tab() {
    for (w, h) in SIZES {
        let mut m = orders(w, h);
        action(&mut m, Action::TabRelationships);
        let s = screen(&m, w, h);
        assert!(s.contains("References (3)"), "{s}");
        assert!(s.contains("parent-reference"), "{s}");
        assert!(s.contains("fan-out"), "{s}");
        if h >= 60 {
            assert!(s.contains("parents by number of children"), "{s}");
        }
    }
}

#[test]
fn help_is_built_from_the_keymap() {
    let mut m = orders(80, 24);
    action(&mut m, Action::Help);
    let s = screen(&m, 80, 24);
    assert!(s.contains("Keys"), "{s}");
    assert!(s.contains("quit"), "{s}");
}

#[test]
fn too_small_says_so() {
    let m = orders(50, 10);
    let s = screen(&m, 50, 10);
    assert!(s.contains("terminal too small"), "{s}");
    assert!(!s.contains("Collections"), "{s}");
}

#[test]
fn while_sampling_the_progress_shows() {
    let mut m = Model::new("x".into(), 1000, Keymap::default());
    docshape::tui::update::start_sampling(&mut m);
    docshape::tui::update::update(
        &mut m,
        docshape::tui::update::Msg::Progress {
            req: 1,
            stage: audit::Stage::Sampling,
            namespace: "db.big".into(),
            position: (1, 3),
            documents: 1500,
            expected: None,
            rate: 3000.0,
        },
    );
    let s = screen(&m, 80, 24);
    assert!(s.contains("Sampling"), "{s}");
    assert!(s.contains("db.big"), "{s}");
    assert!(s.contains("3000 docs/s"), "{s}");
}

/// Collections arrive one by one: the navigator fills while the run goes
/// on, the user's place is kept, the findings say they are to come, the
/// later stages are named, and the run's report replaces the arrivals.
#[test]
fn collections_show_as_they_arrive() {
    use docshape::tui::update::{update, Msg};
    let full = sample_report();
    let mut m = Model::new("x".into(), 1000, Keymap::default());
    m.size = (100, 30);
    docshape::tui::update::start_sampling(&mut m);
    let total = full.collections.len();
    assert!(total >= 3, "the shop sample data has several collections");
    for (i, c) in full.collections.iter().take(2).enumerate() {
        update(
            &mut m,
            Msg::Arrived {
                req: 1,
                position: (i + 1, total),
                collection: Box::new(c.preview(10)),
            },
        );
    }
    let first = &full.collections[0].namespace;
    let second = &full.collections[1].namespace;
    let third = &full.collections[2].namespace;
    let s = screen(&m, 100, 30);
    let name = |ns: &str| ns.rsplit('.').next().unwrap_or(ns).to_owned();
    assert!(s.contains(&name(first)) && s.contains(&name(second)), "{s}");
    assert!(!s.contains(&name(third)), "not arrived yet: {s}");
    assert!(s.contains(&format!("[2/{total}]")), "{s}");
    // On the first collection: its fields are there, its findings to come.
    while m.collection().map(|c| &c.namespace) != Some(first) {
        action(&mut m, Action::Down);
    }
    action(&mut m, Action::TabFindings);
    let s = screen(&m, 100, 30);
    assert!(
        s.contains("findings come once the collections are read"),
        "{s}"
    );
    // A third arrives: the user stays where they were.
    update(
        &mut m,
        Msg::Arrived {
            req: 1,
            position: (3, total),
            collection: Box::new(full.collections[2].preview(10)),
        },
    );
    assert_eq!(m.collection().map(|c| &c.namespace), Some(first));
    // The later stages are named.
    update(
        &mut m,
        Msg::Progress {
            req: 1,
            stage: audit::Stage::Relationships,
            namespace: String::new(),
            position: (total, total),
            documents: 0,
            expected: None,
            rate: 0.0,
        },
    );
    let s = screen(&m, 100, 30);
    assert!(s.contains("relationships…"), "{s}");
    // The report replaces the arrivals, findings and all.
    update(
        &mut m,
        Msg::Loaded {
            req: 1,
            result: Ok(Box::new(full.clone())),
        },
    );
    assert_eq!(m.arriving, None);
    assert_eq!(m.collection().map(|c| &c.namespace), Some(first));
    let s = screen(&m, 100, 30);
    assert!(!s.contains("findings come once"), "{s}");
    assert_eq!(m.report.as_ref().map(|r| r.collections.len()), Some(total));
}

/// Esc while sampling stops the reading and keeps what was read; a second
/// Esc abandons the run.
#[test]
fn esc_stops_reading_then_abandons() {
    use docshape::tui::effects::Effect;
    use docshape::tui::update::{update, Msg};
    let mut m = Model::new("x".into(), 1000, Keymap::default());
    docshape::tui::update::start_sampling(&mut m);
    let fx = update(
        &mut m,
        Msg::Key(ratatui::crossterm::event::KeyEvent::from(
            ratatui::crossterm::event::KeyCode::Esc,
        )),
    );
    assert_eq!(fx, [Effect::Stop { req: 1 }]);
    assert!(m.job.as_ref().is_some_and(|j| j.stopping));
    let s = screen(&m, 100, 30);
    assert!(s.contains("stopping"), "{s}");
    let fx = update(
        &mut m,
        Msg::Key(ratatui::crossterm::event::KeyEvent::from(
            ratatui::crossterm::event::KeyCode::Esc,
        )),
    );
    assert_eq!(fx, [Effect::Cancel { req: 1 }]);
    assert!(m.job.is_none());
}

fn screen_with(m: &Model, w: u16, h: u16, theme: &Theme) -> ratatui::buffer::Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| views::render(m, theme, f)).expect("draw");
    t.backend().buffer().clone()
}

#[test]
fn evidence_reads_as_numbers_not_json() {
    let mut m = orders(120, 60);
    action(&mut m, Action::TabFindings);
    let s = screen(&m, 120, 60);
    assert!(s.contains("Evidence"), "{s}");
    // Shares as percentages, counts grouped, no raw JSON objects.
    assert!(s.contains(" %"), "{s}");
    assert!(!s.contains("{\"name\""), "{s}");
    assert!(
        !s.lines().any(|l| l.contains("share: 0.")),
        "a share printed as a raw float: {s}"
    );
}

#[test]
fn long_document_lines_scroll_sideways() {
    let (w, h) = (60, 30);
    let mut m = orders(w, h);
    action(&mut m, Action::TabDocuments);
    action(&mut m, Action::Toggle);
    let before = screen(&m, w, h);
    assert_eq!(m.detail_hscroll, 0);
    action(&mut m, Action::DetailRight);
    let after = screen(&m, w, h);
    assert!(m.detail_hscroll > 0, "the documents scroll sideways");
    assert_ne!(before, after);
    assert!(after.contains('…'), "{after}");
    // Never further than the widest line needs, and back to the start.
    for _ in 0..200 {
        action(&mut m, Action::DetailRight);
        screen(&m, w, h);
    }
    assert_eq!(m.detail_hscroll, m.detail_hmax.get());
    for _ in 0..200 {
        action(&mut m, Action::DetailLeft);
    }
    assert_eq!(m.detail_hscroll, 0);
    assert_eq!(screen(&m, w, h), before);
}

#[test]
fn themes_with_a_background_paint_every_cell() {
    let (w, h) = (100, 30);
    let mut m = orders(w, h);
    for tab in [Action::TabSchema, Action::TabFindings, Action::TabDocuments] {
        action(&mut m, tab);
        for name in ["light", "solarized", "projector"] {
            let theme = Theme::builtin(name).expect("theme");
            let bg = theme.color("background");
            assert_ne!(
                bg,
                ratatui::style::Color::Reset,
                "{name} names a background"
            );
            let buf = screen_with(&m, w, h, &theme);
            for y in 0..h {
                for x in 0..w {
                    assert_ne!(
                        buf[(x, y)].bg,
                        ratatui::style::Color::Reset,
                        "{name}: cell {x},{y} has the terminal's background"
                    );
                }
            }
        }
    }
}

/// Every tab at three sizes in both languages: in Chinese the explorer's
/// own words (titles, headings, labels, hints) are Chinese, and nothing of
/// the English chrome is left; in English, the reverse.
#[test]
fn every_tab_speaks_the_chosen_language() {
    use docshape::i18n::Lang;
    let report = sample_report();
    // English chrome that must not show in Chinese.
    let english = [
        " Fields (",
        " Findings (",
        " References (",
        " Indexes (",
        " Collections ",
        "presence",
        "│ sample ",
        " quit ",
        " help ",
        "Evidence",
        "Why it matters",
        "show or hide this help",
        "Keys (",
        "Documents:",
        "kept sample",
    ];
    for (w, h) in [(80, 24), (120, 40), (200, 60)] {
        for lang in [Lang::En, Lang::Zh] {
            let mut m = Model::new("mongodb://u:****@h/".into(), 1000, Keymap::default());
            m.size = (w, h);
            m.lang = lang;
            set_report(&mut m, report.clone());
            action(&mut m, Action::Down);
            let mut seen = String::new();
            for tab in [
                Action::TabSchema,
                Action::TabFindings,
                Action::TabDocuments,
                Action::TabRelationships,
                Action::TabIndexes,
            ] {
                action(&mut m, tab);
                seen.push_str(&screen(&m, w, h));
            }
            // The help screen too.
            action(&mut m, Action::Help);
            seen.push_str(&screen(&m, w, h));
            action(&mut m, Action::Help);
            match lang {
                Lang::Zh => {
                    for word in english {
                        assert!(!seen.contains(word), "{w}×{h} zh shows `{word}`:\n{seen}");
                    }
                    for word in [
                        "字段",
                        "问题",
                        "集合",
                        "出现率",
                        "样本",
                        "退出",
                        "显示或隐藏本帮助",
                    ] {
                        assert!(seen.contains(word), "{w}×{h} zh lacks `{word}`:\n{seen}");
                    }
                }
                Lang::En => {
                    for word in ["Fields (", "Findings (", "Collections", "presence"] {
                        assert!(seen.contains(word), "{w}×{h} en lacks `{word}`:\n{seen}");
                    }
                    for word in ["字段", "出现率", "退出"] {
                        assert!(!seen.contains(word), "{w}×{h} en shows `{word}`");
                    }
                }
            }
        }
    }
}
