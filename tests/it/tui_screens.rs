//! Screen tests: the views drawn into ratatui's `TestBackend` at 80×24, at
//! a large size, and in a terminal too small to use; every tab and the help
//! in both languages at three sizes against the snapshots in
//! `tests/snapshots/tui/` (`DOCSHAPE_UPDATE_SNAPSHOTS=1` rewrites them),
//! with no wide character lost or split.

use crate::common::mongod_log;

use std::path::Path;

use docshape::audit::{self, Plan};
use docshape::report::Report;
use docshape::source::{FileSource, SampleMode, Selection};
use docshape::tui::keymap::Action;
use docshape::tui::keymap::Keymap;
use docshape::tui::layout;
use docshape::tui::model::{Model, Tab};
use docshape::tui::theme::Theme;
use docshape::tui::update::{action, set_report};
use docshape::tui::views;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn sample_report() -> Report {
    report_of(docshape::i18n::Lang::En, None)
}

/// The `shop` database of the sample data audited in `lang`, with the
/// workload of the `mongod` log `workload` when there is one.
fn report_of(lang: docshape::i18n::Lang, workload: Option<&Path>) -> Report {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data");
        let mut src = FileSource::open(&dir).expect("sample data");
        let mut plan = Plan::new(
            Selection {
                dbs: vec!["shop".into()],
                collections: Vec::new(),
            },
            SampleMode::Sample(1000),
        );
        plan.lang = lang;
        plan.workload = workload.map(|p| {
            std::sync::Arc::new(docshape::workload::read_logs(p).expect("the workload log"))
        });
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

/// In an open document `J`/`K` move a cursor over its lines, and Enter
/// on a line folds (or unfolds) the object or array the line opens or
/// sits in — one at a time, the others left as they are.
#[test]
fn each_object_and_array_of_a_document_folds_under_the_cursor() {
    let (w, h) = (120, 40);
    let mut m = orders(w, h);
    action(&mut m, Action::TabDocuments);
    action(&mut m, Action::Toggle);
    let said = m
        .status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    assert!(said.contains("J/K move through its lines"), "{said}");
    let line_of = |m: &Model, text: &str| {
        let d = m.docs.list[m.docs.sel];
        m.docs.lines[&d].iter().position(|l| l.text.trim() == text)
    };
    let to = |m: &mut Model, text: &str| {
        let want = line_of(m, text).unwrap_or_else(|| panic!("no line `{text}`"));
        while m.docs.cursor != Some(want) {
            let down = m.docs.cursor.is_none_or(|c| c < want);
            action(
                m,
                if down {
                    Action::DetailDown
                } else {
                    Action::DetailUp
                },
            );
        }
    };
    to(&mut m, r#""customer": {"#);
    action(&mut m, Action::Toggle);
    let s = screen(&m, w, h);
    assert!(s.contains(r#""customer": {… 2 fields},"#), "{s}");
    assert!(s.contains(r#""items": ["#), "{s}");
    assert!(!s.contains("c91@example.com"), "{s}");
    // Enter on a value inside an array folds that array; the cursor goes
    // to the line that now shows it.
    to(&mut m, r#""sku": "SKU-0021","#);
    action(&mut m, Action::Toggle);
    let s = screen(&m, w, h);
    assert!(s.contains("{… 4 fields},"), "{s}");
    assert!(s.contains(r#""sku": "SKU-0015","#), "{s}");
    assert!(!s.contains("SKU-0021"), "{s}");
    assert_eq!(m.docs.cursor, line_of(&m, "{… 4 fields},"));
    // And back open.
    action(&mut m, Action::Toggle);
    assert!(screen(&m, w, h).contains("SKU-0021"));
    to(&mut m, r#""customer": {… 2 fields},"#);
    action(&mut m, Action::Toggle);
    assert!(screen(&m, w, h).contains("c91@example.com"));
    // Up past the first line: the heading again, where Enter closes it.
    for _ in 0..100 {
        action(&mut m, Action::DetailUp);
    }
    assert_eq!(m.docs.cursor, None);
    action(&mut m, Action::Toggle);
    assert!(m.docs.open.is_empty());
    // A cursor far down a long document keeps its line on screen.
    let mut m = orders(80, 24);
    action(&mut m, Action::TabDocuments);
    action(&mut m, Action::Toggle);
    to(&mut m, r#""total": "448.31""#);
    assert!(screen(&m, 80, 24).contains(r#""total": "448.31""#));
}

/// Before and after are never cut for good: side by side when each line
/// fits its column, else one above the other, so that every line no wider
/// than the detail shows whole as the detail scrolls down.
#[test]
fn before_and_after_show_every_line_whole() {
    let (w, h) = (80, 24);
    let mut m = orders(w, h);
    // Every finding of the sample, from the overview.
    action(&mut m, Action::Top);
    let listed = m.findings.rows.len();
    assert!(listed > 2, "{listed} findings");
    let mut checked = 0;
    for i in 0..listed {
        m.findings.sel = i;
        m.detail.scroll = 0;
        let f = m.selected_finding().expect("a finding").clone();
        let pretty = |v: Option<&serde_json::Value>| -> Vec<String> {
            v.map(|v| serde_json::to_string_pretty(v).expect("json"))
                .unwrap_or_default()
                .lines()
                .map(|l| l.trim().to_owned())
                .collect()
        };
        let mut want = pretty(f.suggestion.before.as_ref());
        want.extend(pretty(f.suggestion.after.as_ref()));
        let mut seen = String::new();
        for _ in 0..100 {
            seen.push_str(&screen(&m, w, h));
            m.detail.scroll += 3;
        }
        // The detail is 56 columns wide here.
        for l in want.iter().filter(|l| l.chars().count() <= 50) {
            assert!(
                seen.contains(l.as_str()),
                "{}: `{l}` is never shown whole",
                f.rule
            );
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked} lines checked");
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

/// The help begins with the focus model: what has the focus, and what
/// Tab, Enter and Esc do in each pane, in English and in Chinese.
#[test]
fn the_help_shows_the_focus_model() {
    use docshape::i18n::Lang;
    for (lang, words) in [
        (
            Lang::En,
            [
                "Focus",
                "navigator → list → detail: Tab moves on, S-Tab back",
                "Navigator",
                "Enter: the selected collection or All findings",
                "clears the filter, the collection kept",
                "List",
                "on its collection's Findings tab",
                "Detail",
                "e evidence, b before/after, m script",
                "y copies the script; Esc back to the list",
                "c: its collection",
            ],
        ),
        (
            Lang::Zh,
            [
                "焦点",
                "导航栏 → 列表 → 详情：Tab 前进，S-Tab 后退",
                "导航栏",
                "Enter：进入所选集合或“全部问题”的列表",
                "清除筛选，保留所选集合",
                "列表",
                "在其集合的问题标签页打开",
                "详情",
                "e 证据，b 改前/改后，m 脚本",
                "y 复制脚本；Esc 回到列表",
                "c：转到它的集合",
            ],
        ),
    ] {
        let mut m = orders(120, 40);
        m.lang = lang;
        action(&mut m, Action::Help);
        let s = screen(&m, 120, 40);
        // The help box's inside, its lines joined without their spaces, so
        // that a phrase wrapped over two lines still reads.
        let buf = screen_with(&m, 120, 40, &Theme::default());
        let r = layout::help_box(buf.area, layout::help_lines(&m).len());
        let squeeze = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        let inside: String = (r.y + 1..r.y + r.height - 1)
            .flat_map(|y| (r.x + 1..r.x + r.width - 1).map(move |x| (x, y)))
            .map(|(x, y)| buf[(x, y)].symbol().to_owned())
            .collect();
        let inside = squeeze(&inside);
        for w in words {
            assert!(
                inside.contains(&squeeze(w)),
                "{lang:?}: `{w}` not in the help:\n{s}"
            );
        }
        // Before the keys.
        let focus = s.find(lang.pick("navigator →", "导航栏 →")).expect("focus");
        let quit = s.find(lang.pick("quit", "退出")).expect("keys");
        assert!(focus < quit, "{s}");
    }
}

/// Scrolled from top to bottom, the help shows every key's description
/// whole, at every size and in both languages: long ones wrap under
/// themselves instead of being cut at the box's edge.
#[test]
fn the_help_shows_every_word_of_every_key() {
    use docshape::i18n::Lang;
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    for lang in [Lang::En, Lang::Zh] {
        for (w, h) in [(80, 24), (120, 40), (200, 60), (60, 15)] {
            let mut m = orders(w, h);
            m.lang = lang;
            action(&mut m, Action::Help);
            let lines = layout::help_lines(&m);
            // The wrapped lines hold every description, in order.
            let wrapped: String = lines.iter().map(|(_, d, _)| squeeze(d)).collect();
            // The focus model first, then every key, then the legend.
            let wanted: String = m
                .keymap
                .focus_help(lang)
                .iter()
                .map(|(_, d)| squeeze(d))
                .chain(m.keymap.help(lang).iter().map(|(_, d)| squeeze(d)))
                .chain(layout::legend(lang).iter().map(|(_, _, d)| squeeze(d)))
                .collect();
            assert_eq!(wrapped, wanted, "{lang:?} {w}x{h}");
            // And each shows, whole, on a screen as the help scrolls.
            let mut screens = String::new();
            for _ in 0..=lines.len() {
                screens.push_str(&squeeze(&screen(&m, w, h)));
                action(&mut m, Action::Down);
            }
            for (_, d, _) in &lines {
                assert!(
                    screens.contains(&squeeze(d)),
                    "{lang:?} {w}x{h}: `{d}` is not shown whole"
                );
            }
        }
    }
}

/// The help ends with a legend: each severity badge and each type colour
/// of the type bars, the mark drawn in the colour the lists use.
#[test]
fn the_help_explains_the_badges_and_the_type_colours() {
    use docshape::i18n::Lang;
    use docshape::rules::Severity;
    use docshape::tui::layout::Paint;
    for lang in [Lang::En, Lang::Zh] {
        let mut m = orders(120, 40);
        m.lang = lang;
        action(&mut m, Action::Help);
        let lines = layout::help_lines(&m);
        let marks: Vec<Paint> = lines.iter().filter_map(|(_, _, p)| *p).collect();
        for s in [Severity::Critical, Severity::Warning, Severity::Info] {
            assert!(marks.contains(&Paint::Severity(s)), "{lang:?} {s:?}");
        }
        for t in [
            "type.string",
            "type.number",
            "type.date",
            "type.objectid",
            "type.array",
            "type.null",
        ] {
            assert!(marks.contains(&Paint::Type(t)), "{lang:?} {t}");
        }
        // Scrolled to its end, the critical badge is drawn in the
        // critical colour, and the string letter in the string colour.
        let theme = Theme::default();
        for _ in 0..lines.len() {
            action(&mut m, Action::Down);
        }
        let buf = screen_with(&m, 120, 40, &theme);
        let r = layout::help_box(buf.area, lines.len());
        let cell = |sym: &str, words: &str| {
            (r.y + 1..r.y + r.height - 1).find_map(|y| {
                let row: String = (r.x..r.x + r.width)
                    .map(|x| buf[(x, y)].symbol())
                    .filter(|c| !c.trim().is_empty())
                    .collect();
                row.contains(words)
                    .then(|| {
                        (r.x..r.x + r.width)
                            .find(|&x| buf[(x, y)].symbol() == sym)
                            .map(|x| buf[(x, y)].fg)
                    })
                    .flatten()
            })
        };
        let shown = screen(&m, 120, 40);
        let critical = cell("●", lang.pick("critical", "严重"))
            .unwrap_or_else(|| panic!("the critical badge:\n{shown}"));
        assert_eq!(Some(critical), theme.severity(Severity::Critical).fg);
        let string = cell("s", lang.pick("string", "字符串")).expect("the string letter");
        assert_eq!(string, theme.color("type.string"));
    }
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
        docshape::tui::msg::Msg::Progress {
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
    assert!(s.contains("1.5k documents  3.0k docs/s"), "{s}");
}

/// A collection as it arrives during a run: its profile and a few kept
/// documents (what `audit::Collection::preview` hands the explorer).
fn arrival(c: &docshape::report::CollectionReport) -> docshape::report::CollectionReport {
    let mut a = c.clone();
    a.kept.truncate(10);
    a
}

/// Collections arrive one by one: the navigator fills while the run goes
/// on, the user's place is kept, the findings say they are to come, the
/// later stages are named, and the run's report replaces the arrivals.
#[test]
fn collections_show_as_they_arrive() {
    use docshape::tui::msg::Msg;
    use docshape::tui::update::update;
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
                collection: Box::new(arrival(c)),
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
            collection: Box::new(arrival(&full.collections[2])),
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
    use docshape::tui::msg::Msg;
    use docshape::tui::update::update;
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
    assert_eq!(m.detail.hscroll, 0);
    action(&mut m, Action::DetailRight);
    let after = screen(&m, w, h);
    assert!(m.detail.hscroll > 0, "the documents scroll sideways");
    assert_ne!(before, after);
    assert!(after.contains('…'), "{after}");
    // Never further than the widest line needs, and back to the start.
    for _ in 0..200 {
        action(&mut m, Action::DetailRight);
        screen(&m, w, h);
    }
    assert_eq!(m.detail.hscroll, m.detail.hmax.get());
    for _ in 0..200 {
        action(&mut m, Action::DetailLeft);
    }
    assert_eq!(m.detail.hscroll, 0);
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

/// Every wide (CJK) character drawn whole: the cell after its first half
/// is the blank continuation ratatui leaves, nothing drawn over it, and it
/// is not cut at the right edge. `where_` names the screen in the message.
fn wide_characters_whole(buf: &ratatui::buffer::Buffer, where_: &str) {
    let area = buf.area;
    for y in 0..area.height {
        for x in 0..area.width {
            let sym = buf[(x, y)].symbol();
            let w = docshape::fmt::display_width(sym);
            for k in 1..w {
                let next = x + u16::try_from(k).unwrap_or(u16::MAX);
                assert!(
                    next < area.width,
                    "{where_}: `{sym}` at {x},{y} is cut at the right edge"
                );
                let cont = buf[(next, y)].symbol();
                assert_eq!(
                    cont, " ",
                    "{where_}: the second half of `{sym}` at {x},{y} is drawn over with `{cont}`"
                );
            }
        }
    }
}

/// What a snapshot may not hold: the temporary directory and the
/// checkout's path, replaced by fixed names.
fn normalised(text: &str, tmp: &Path) -> String {
    let text = text
        .replace(&tmp.display().to_string(), "<tmp>")
        .replace(env!("CARGO_MANIFEST_DIR"), "<repo>");
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The Chinese words a screen must show whole, besides the chrome.
fn chinese_words(name: &str, w: u16, h: u16) -> Vec<&'static str> {
    let mut v = vec!["集合", "样本", "退出"];
    match name {
        "1-schema" => v.extend(["结构", "字段", "出现率", "类型"]),
        "2-findings" => v.extend(["问题", "证据"]),
        "3-documents" => v.extend(["文档", "保留的样本"]),
        "4-relationships" => v.extend(["关系", "引用"]),
        "5-learn" => v.push("学习"),
        "6-indexes" => v.extend(["索引", "名称"]),
        "7-workload" => {
            v.extend([
                "负载",
                "查询形状",
                "次数",
                "总耗时",
                "建议索引",
                "在问题标签页打开它",
            ]);
            if w >= 120 {
                v.extend(["执行计划", "这个查询形状引出的问题"]);
            }
        }
        "help" => {
            v.extend(["按键", "显示或隐藏本帮助"]);
            // Below the first screenful at 80×24.
            if h >= 40 {
                v.push("负载标签页（查询形状；Enter 打开该形状的问题）");
            }
        }
        _ => {}
    }
    v
}

/// Every tab (1–7, data on each: the sample shop and a workload log) and
/// the help, at 80×24, 120×40 and 200×60, in English and Chinese: each
/// screen as `tests/snapshots/tui/LANG-WxH-NAME.txt` has it, and, whatever
/// the snapshot says, with every wide character whole and the Chinese
/// words of the screen shown.
#[test]
fn every_screen_matches_its_snapshot_with_wide_characters_whole() {
    use docshape::i18n::Lang;
    use docshape::tui::msg::Msg;
    use docshape::tui::update::update;
    let tmp = tempfile::tempdir().expect("temp dir");
    let log = mongod_log::shop_log(tmp.path());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tui");
    let rewrite = std::env::var_os("DOCSHAPE_UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    let screens: [(&str, Action); 8] = [
        ("1-schema", Action::TabSchema),
        ("2-findings", Action::TabFindings),
        ("3-documents", Action::TabDocuments),
        ("4-relationships", Action::TabRelationships),
        ("5-learn", Action::TabLearn),
        ("6-indexes", Action::TabIndexes),
        ("7-workload", Action::TabWorkload),
        ("help", Action::Help),
    ];
    let mut differ = Vec::new();
    for lang in [Lang::En, Lang::Zh] {
        let report = report_of(lang, Some(&log));
        assert!(report.workload.is_some());
        let lesson = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(docshape::lesson::measure(
                &docshape::lesson::LESSONS[0],
                None,
                "docshape_",
                lang,
                std::time::Duration::from_secs(30),
            ))
            .expect("the first lesson");
        for (w, h) in [(80, 24), (120, 40), (200, 60)] {
            for (name, key) in screens {
                let mut m = Model::new("mongodb://u:****@h/".into(), 1000, Keymap::default());
                m.size = (w, h);
                m.lang = lang;
                m.learn.lang = lang;
                set_report(&mut m, report.clone());
                action(&mut m, Action::Down);
                assert_eq!(
                    m.collection().map(|c| c.namespace.as_str()),
                    Some("shop.orders")
                );
                for fx in action(&mut m, key) {
                    if let docshape::tui::effects::Effect::Measure { req, .. } = fx {
                        update(
                            &mut m,
                            Msg::Lesson {
                                req,
                                result: Ok(lesson.clone()),
                            },
                        );
                    }
                }
                if name == "3-documents" {
                    action(&mut m, Action::Toggle);
                }
                let at = format!("{}-{w}x{h}-{name}", lang.pick("en", "zh"));
                let buf = screen_with(&m, w, h, &Theme::default());
                wide_characters_whole(&buf, &at);
                let text = normalised(&screen(&m, w, h), tmp.path());
                if lang == Lang::Zh {
                    for word in chinese_words(name, w, h) {
                        assert!(text.contains(word), "{at} lacks `{word}`:\n{text}");
                    }
                }
                let file = dir.join(format!("{at}.txt"));
                if rewrite {
                    std::fs::create_dir_all(&dir).expect("snapshot dir");
                    std::fs::write(&file, &text).expect("write the snapshot");
                    continue;
                }
                let want = std::fs::read_to_string(&file).unwrap_or_default();
                if want != text {
                    let line = want
                        .lines()
                        .zip(text.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or(0);
                    differ.push(format!(
                        "{at}: line {} differs\n--- snapshot\n{}\n--- drawn\n{text}",
                        line + 1,
                        want.lines().nth(line).unwrap_or("(no snapshot)")
                    ));
                }
            }
        }
    }
    assert!(
        differ.is_empty(),
        "{} screens differ from tests/snapshots/tui (DOCSHAPE_UPDATE_SNAPSHOTS=1 rewrites them):\n{}",
        differ.len(),
        differ.join("\n")
    );
}

/// The Workload tab on its own: the shapes of the selected collection by
/// total time with their numbers, the index the finding proposes, and
/// Enter opening that finding on the Findings tab; without a workload, how
/// to give one.
#[test]
fn workload_tab_lists_shapes_and_opens_their_finding() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let log = mongod_log::shop_log(tmp.path());
    let report = report_of(docshape::i18n::Lang::En, Some(&log));
    let (w, h) = (200, 60);
    let mut m = Model::new("x".into(), 1000, Keymap::default());
    m.size = (w, h);
    set_report(&mut m, report);
    action(&mut m, Action::Down);
    action(&mut m, Action::TabWorkload);
    assert_eq!(m.tab, Tab::Workload);
    let s = screen(&m, w, h);
    assert!(s.contains("Query shapes (2)"), "{s}");
    // By total time: the scan (150 runs, 40–46 ms) before the lookups.
    let scan = s.find("{\"coupon\":\"string\"}").expect("the scan");
    let by_customer = s
        .find("{\"customer_id\":\"objectId\"}")
        .expect("the lookups");
    assert!(scan < by_customer, "{s}");
    let total: u64 = (0..150u64).map(|i| 40 + i % 7).sum();
    assert!(
        s.contains(&format!("{} ms", docshape::fmt::group(total))),
        "{s}"
    );
    assert!(s.contains("COLLSCAN ×150"), "{s}");
    assert!(
        s.contains("documents examined per document returned: 30"),
        "{s}"
    );
    assert!(s.contains("{coupon: 1, placed_at: -1}"), "{s}");
    assert!(s.contains("index-esr"), "{s}");
    // Enter: the finding, on the Findings tab.
    assert_eq!(m.focus, docshape::tui::model::Pane::Main);
    action(&mut m, Action::Toggle);
    assert_eq!(m.tab, Tab::Findings);
    let finding = m.selected_finding().expect("a finding");
    assert_eq!(finding.rule, "index-esr");
    // The lookups led to nothing: Enter stays and says so.
    action(&mut m, Action::TabWorkload);
    action(&mut m, Action::Down);
    action(&mut m, Action::Toggle);
    assert_eq!(m.tab, Tab::Workload);
    assert!(screen(&m, w, h).contains("no finding names this query shape"));
    // The overview lists every shape, with its namespace (Shift-Tab: from
    // the list back to the navigator).
    action(&mut m, Action::PrevPane);
    action(&mut m, Action::Top);
    let s = screen(&m, w, h);
    assert_eq!(m.tab, Tab::Workload);
    assert!(
        s.contains("Query shapes (3)") && s.contains("shop.customers"),
        "{s}"
    );
    // Without a workload: how to give one.
    let mut bare = orders(100, 30);
    action(&mut bare, Action::TabWorkload);
    let s = screen(&bare, 100, 30);
    assert!(s.contains("--workload LOG"), "{s}");
}

/// A shape whose every plan came from `explain` (a profiler that records
/// no plan, nor what was examined) says so, never "0 documents examined".
#[test]
fn workload_tab_says_what_was_not_recorded() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let log = mongod_log::shop_log(tmp.path());
    let mut report = report_of(docshape::i18n::Lang::En, Some(&log));
    let w = report.workload.as_mut().expect("a workload");
    for s in &mut w.shapes {
        s.explained = s.count;
        s.docs_examined = 0;
        s.keys_examined = 0;
    }
    let (w, h) = (200, 60);
    let mut m = Model::new("x".into(), 1000, Keymap::default());
    m.size = (w, h);
    set_report(&mut m, report);
    action(&mut m, Action::Down);
    action(&mut m, Action::TabWorkload);
    let s = screen(&m, w, h);
    assert!(
        s.contains("not recorded: the profiler named no plan"),
        "{s}"
    );
    // (The finding's own words were written from the log's figures.)
    assert!(
        !s.contains("documents examined per document returned:"),
        "{s}"
    );
    assert!(!s.contains("0 documents, 0 keys"), "{s}");
}

/// The check above fails on a wide character drawn over or cut at the edge.
#[test]
fn a_wide_character_drawn_over_or_cut_is_caught() {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    let mut buf = Buffer::empty(Rect::new(0, 0, 4, 1));
    buf.set_string(0, 0, "中", ratatui::style::Style::default());
    wide_characters_whole(&buf, "whole");
    let mut over = buf.clone();
    over[(1, 0)].set_symbol("│");
    assert!(std::panic::catch_unwind(|| wide_characters_whole(&over, "drawn over")).is_err());
    let mut cut = Buffer::empty(Rect::new(0, 0, 4, 1));
    cut[(3, 0)].set_symbol("中");
    assert!(std::panic::catch_unwind(|| wide_characters_whole(&cut, "cut")).is_err());
}

/// A click on a tab's number opens that tab, whichever labels the bar
/// could fit (full, short, or numbers only) in either language.
#[test]
fn a_click_on_a_tab_number_opens_that_tab() {
    use docshape::i18n::Lang;
    use docshape::tui::msg::Msg;
    use docshape::tui::update::update;
    use ratatui::crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let report = sample_report();
    for (w, h) in [(80, 24), (120, 40), (200, 60)] {
        for lang in [Lang::En, Lang::Zh] {
            let mut m = Model::new("x".into(), 1000, Keymap::default());
            m.size = (w, h);
            m.lang = lang;
            set_report(&mut m, report.clone());
            action(&mut m, Action::Down);
            let tabs = layout::areas(ratatui::layout::Rect::new(0, 0, w, h))
                .expect("areas")
                .tabs;
            for (i, want) in Tab::ALL.into_iter().enumerate() {
                let buf = screen_with(&m, w, h, &Theme::default());
                let digit = (i + 1).to_string();
                let col = (tabs.x + 1..tabs.x + tabs.width)
                    .find(|&x| {
                        buf[(x, tabs.y)].symbol() == digit
                            && buf[(x - 1, tabs.y)].symbol() == " "
                            && buf[(x + 1, tabs.y)].symbol() == " "
                    })
                    .unwrap_or_else(|| panic!("{w}×{h}: no tab {digit}"));
                update(
                    &mut m,
                    Msg::Mouse(MouseEvent {
                        kind: MouseEventKind::Down(MouseButton::Left),
                        column: col,
                        row: tabs.y,
                        modifiers: KeyModifiers::NONE,
                    }),
                );
                assert_eq!(m.tab, want, "{w}×{h} {lang:?}: a click on {digit}");
            }
        }
    }
}

/// A row previews its first fields after its `_id`, cut to the row; `c`
/// and ticks make a table of the chosen fields, a column each, as wide
/// as its values and the room allow.
#[test]
fn documents_preview_and_table_view() {
    use docshape::tui::msg::Msg;
    use docshape::tui::update::update;
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let press = |m: &mut Model, c: KeyCode| {
        update(m, Msg::Key(KeyEvent::new(c, KeyModifiers::NONE)));
    };
    for (w, h) in [(80, 24), (160, 45)] {
        let mut m = orders(w, h);
        action(&mut m, Action::TabDocuments);
        let s = screen(&m, w, h);
        let rows: Vec<&str> = s.lines().filter(|l| l.contains("▸ #")).collect();
        assert!(rows.len() > 5, "{s}");
        assert!(rows.iter().all(|r| r.contains("_id: ")), "{s}");
        if w >= 160 {
            assert!(s.contains("customer: {…}"), "{s}");
            assert!(s.contains("items: ["), "{s}");
        } else {
            assert!(rows.iter().all(|r| r.contains('…')), "{s}");
        }
        wide_characters_whole(&screen_with(&m, w, h, &Theme::default()), "preview");
        // The chooser, then the table of status and total.
        press(&mut m, KeyCode::Char('c'));
        let s = screen(&m, w, h);
        assert!(s.contains("Space ticks a field"), "{s}");
        assert!(s.contains("[ ]  customer_id"), "{s}");
        for f in ["status", "total"] {
            let at = m
                .docs
                .columns
                .chooser
                .as_ref()
                .and_then(|c| c.fields.iter().position(|x| x == f))
                .expect(f);
            press(&mut m, KeyCode::Home);
            for _ in 0..at {
                press(&mut m, KeyCode::Down);
            }
            press(&mut m, KeyCode::Char(' '));
        }
        let s = screen(&m, w, h);
        assert!(s.contains("[1]  status") && s.contains("[2]  total"), "{s}");
        press(&mut m, KeyCode::Enter);
        let s = screen(&m, w, h);
        assert!(s.contains("kept sample (300) · table"), "{s}");
        let head = s
            .lines()
            .find(|l| l.contains("status") && l.contains("total") && !l.contains('#'))
            .unwrap_or_else(|| panic!("no header:\n{s}"));
        let col = |l: &str, pat: &str| l.find(pat).map(|b| l[..b].chars().count());
        let (sc, tc) = (
            col(head, "status").expect("status"),
            col(head, "total").expect("total"),
        );
        assert!(sc < tc, "{head}");
        let rows: Vec<&str> = s.lines().filter(|l| l.contains("▸ #")).collect();
        assert!(rows.len() > 5, "{s}");
        assert!(rows.iter().all(|r| r.chars().nth(sc) == Some('"')), "{s}");
        assert!(!rows.iter().any(|r| r.contains("_id: ")), "{s}");
        // `c` again: the previews.
        press(&mut m, KeyCode::Char('c'));
        assert!(screen(&m, w, h).contains("_id: "));
    }
}

/// One collection, every number that describes it: the explorer's Schema,
/// Findings and Documents tabs show what `audit --format json` says of the
/// same target — the documents in the collection and sampled, each
/// field's presence, a finding's words and its evidence — and the
/// Documents tab names the kept documents the finding counted.
#[test]
fn the_tabs_and_the_json_report_give_the_same_numbers() {
    use crate::common;
    let owner = |k: u32| format!("65a1b2c3d4e5f6a7b8c9{k:04x}");
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("pop");
    std::fs::create_dir_all(&db).expect("db dir");
    let mut docs = String::new();
    for i in 0..3000 {
        use std::fmt::Write as _;
        let note = if i % 3 == 0 { r#", "note": "n""# } else { "" };
        let _ = writeln!(
            docs,
            "{{\"_id\": {i}, \"at\": \"2020-01-{:02}T03:04:05Z\", \"n\": {i}, \"owner_id\": {{\"$oid\": \"{}\"}}{note}}}",
            i % 28 + 1,
            owner(i % 50)
        );
    }
    std::fs::write(db.join("items.json"), docs).expect("write");
    let mut owners = String::new();
    for k in 0..50 {
        use std::fmt::Write as _;
        let _ = writeln!(
            owners,
            "{{\"_id\": {{\"$oid\": \"{}\"}}, \"name\": \"owner {k}\"}}",
            owner(k)
        );
    }
    std::fs::write(db.join("owners.json"), owners).expect("write");
    let target = dir.path().display().to_string();
    let out = common::docshape(&["audit", &target, "--sample", "1000", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let c = common::collection(&json, "pop.items");
    let report = {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async {
            let mut src = FileSource::open(dir.path()).expect("the directory");
            let plan = Plan::new(Selection::default(), SampleMode::Sample(1000));
            audit::run(&mut src, &plan, &mut |_| {})
                .await
                .expect("audit")
        })
    };
    let mine = report
        .collections
        .iter()
        .find(|x| x.namespace == "pop.items")
        .expect("pop.items");
    assert_eq!(Some(mine.documents.unwrap_or(0)), c["documents"].as_u64());
    assert_eq!(c["documents"], 3000);
    assert_eq!(c["sampled"], 1000);
    let mut m = Model::new(target.clone(), 1000, Keymap::default());
    m.size = (160, 45);
    set_report(&mut m, report);
    while m.collection().is_none() {
        action(&mut m, Action::Down);
    }
    // Schema: each field's presence as the report gives it.
    let schema = screen(&m, 160, 45);
    for f in c["fields"].as_array().expect("fields") {
        let path = f["path"].as_str().expect("path");
        let presence = docshape::fmt::percent(f["presence"].as_f64().expect("presence"));
        let row = schema
            .lines()
            .find(|l| l.contains('█') && l.split_whitespace().any(|t| t == path))
            .unwrap_or_else(|| panic!("no row for {path}:\n{schema}"));
        assert!(row.contains(&presence), "{path}: {presence} in\n{row}");
    }
    // Findings: the same words and evidence.
    action(&mut m, Action::TabFindings);
    let finding = c["findings"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["rule"] == "string-dates"))
        .expect("string-dates in the JSON report");
    let shown = m
        .listed_findings()
        .into_iter()
        .find(|f| f.rule == "string-dates")
        .expect("string-dates in the explorer");
    assert_eq!(
        shown.message,
        finding["message"].as_str().unwrap_or_default()
    );
    for k in ["documents", "date_strings", "sampled", "kept"] {
        assert_eq!(shown.evidence[k], finding["evidence"][k], "{k}");
    }
    let findings = screen(&m, 160, 45);
    assert!(
        findings.contains(&docshape::fmt::group(
            finding["evidence"]["date_strings"].as_u64().unwrap_or(0)
        )),
        "{findings}"
    );
    // Documents: the kept documents the finding counted.
    action(&mut m, Action::TabDocuments);
    let documents = screen(&m, 160, 45);
    let kept = finding["evidence"]["kept"].as_u64().expect("kept");
    assert!(
        documents.contains(&format!("kept sample ({kept})")),
        "{kept}:\n{documents}"
    );
    // Relationships: the reference's match and fan-out as the report
    // gives them, exact.
    let rel = json["relationships"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["from"] == "pop.items.owner_id"))
        .expect("the reference in the JSON report");
    action(&mut m, Action::TabRelationships);
    while m
        .selected_relationship()
        .is_some_and(|r| r.from != "pop.items.owner_id")
    {
        action(&mut m, Action::Down);
    }
    // Wide enough for each line of the detail whole.
    m.size = (240, 50);
    let rels = screen(&m, 240, 50);
    let group = |k: &str| docshape::fmt::group(rel[k].as_u64().expect(k));
    let matched = format!(
        "{} ({} of {} references in the kept sample)",
        docshape::fmt::percent(rel["match_rate"].as_f64().expect("rate")),
        group("references_matched"),
        group("references_probed")
    );
    assert!(rels.contains(&matched), "{matched}:\n{rels}");
    let fo = &rel["fanout"];
    let g = |k: &str| docshape::fmt::group(fo[k].as_u64().expect(k));
    let fanout = format!(
        "min {} · avg {} · p95 {} · max {} over {} parents",
        g("min"),
        docshape::fmt::decimal(fo["avg"].as_f64().expect("avg")),
        g("p95"),
        g("max"),
        g("parents")
    );
    assert!(rels.contains(&fanout), "{fanout}:\n{rels}");
}
