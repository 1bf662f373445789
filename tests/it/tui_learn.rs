//! The Learn tab: lessons measured on the bundled sample data by an effect,
//! stale results dropped, the language switch, and the tab drawn into
//! ratatui's `TestBackend` in English and in Chinese.

use std::time::Duration;

use docshape::i18n::Lang;
use docshape::lesson::{self, LESSONS};
use docshape::report::Report;
use docshape::tui::effects::Effect;
use docshape::tui::executor::{channel, Executor};
use docshape::tui::keymap::{Action, Key, Keymap};
use docshape::tui::model::{Model, Pane, Tab};
use docshape::tui::msg::Msg;
use docshape::tui::theme::Theme;
use docshape::tui::update::{action, update};
use docshape::tui::views;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;

fn model(w: u16, h: u16) -> Model {
    let mut m = Model::new("sample-data".into(), 1000, Keymap::default());
    m.size = (w, h);
    m
}

fn ch(m: &mut Model, c: char) -> Vec<Effect> {
    update(
        m,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
    )
}

fn index(name: &str) -> usize {
    LESSONS
        .iter()
        .position(|l| l.name == name)
        .expect("a lesson")
}

/// The one `Measure` among `fx`.
fn measure(fx: &[Effect]) -> (u64, usize, Lang) {
    let all: Vec<_> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Measure { req, lesson, lang } => Some((*req, *lesson, *lang)),
            _ => None,
        })
        .collect();
    assert_eq!(all.len(), 1, "{fx:?}");
    all[0]
}

fn measured(name: &str, lang: Lang) -> Vec<(String, Report)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(lesson::measure(
        &LESSONS[index(name)],
        None,
        "docshape_",
        lang,
        Duration::from_secs(30),
    ))
    .expect("measure")
}

fn screen(m: &Model, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| views::render(m, &Theme::default(), f))
        .expect("draw");
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        for x in 0..w {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// The screen without spaces: a wide character leaves a blank cell behind.
fn packed(s: &str) -> String {
    s.chars().filter(|c| *c != ' ').collect()
}

#[test]
fn entering_the_learn_tab_measures_the_first_lesson() {
    let mut m = model(120, 40);
    let fx = ch(&mut m, '5');
    assert_eq!(m.tab, Tab::Learn);
    assert_eq!(m.focus, Pane::Main);
    let (req, lesson, lang) = measure(&fx);
    assert_eq!((lesson, lang), (0, Lang::En));
    assert_eq!(m.learn.req, Some(req));
    // Entering again while it runs does not start another.
    ch(&mut m, '1');
    assert!(ch(&mut m, '5').is_empty());
}

#[test]
fn the_tab_keys_cycle_through_learn_indexes_and_workload() {
    let mut m = model(120, 40);
    action(&mut m, Action::TabRelationships);
    let fx = action(&mut m, Action::NextTab);
    assert_eq!(m.tab, Tab::Learn);
    measure(&fx);
    action(&mut m, Action::NextTab);
    assert_eq!(m.tab, Tab::Indexes);
    action(&mut m, Action::NextTab);
    assert_eq!(m.tab, Tab::Workload);
    action(&mut m, Action::NextTab);
    assert_eq!(m.tab, Tab::Schema);
    action(&mut m, Action::PrevTab);
    assert_eq!(m.tab, Tab::Workload);
    action(&mut m, Action::PrevTab);
    assert_eq!(m.tab, Tab::Indexes);
    action(&mut m, Action::PrevTab);
    assert_eq!(m.tab, Tab::Learn);
    assert_eq!(Tab::ALL.last(), Some(&Tab::Workload));
}

#[test]
fn results_of_the_current_request_are_kept_and_stale_ones_dropped() {
    let mut m = model(120, 40);
    let (first, ..) = measure(&ch(&mut m, '5'));
    // Down picks the next lesson: the first measuring is cancelled.
    let fx = ch(&mut m, 'j');
    assert!(fx.contains(&Effect::Cancel { req: first }), "{fx:?}");
    let (second, lesson, _) = measure(&fx);
    assert_eq!(lesson, 1);
    assert_eq!(m.learn.sel, 1);

    update(
        &mut m,
        Msg::Lesson {
            req: first,
            result: Ok(Vec::new()),
        },
    );
    assert!(m.learn.text.is_none(), "a stale result is ignored");
    assert_eq!(m.learn.req, Some(second));

    update(
        &mut m,
        Msg::Lesson {
            req: second,
            result: Ok(Vec::new()),
        },
    );
    assert_eq!(m.learn.req, None);
    let text = m.learn.text.clone().expect("text").expect("ok");
    assert!(text.contains(LESSONS[1].title(Lang::En)), "{text}");
    assert!(text.contains("Question for the class"), "{text}");

    // A late duplicate changes nothing.
    update(
        &mut m,
        Msg::Lesson {
            req: second,
            result: Err(docshape::tui::msg::Failure::Source("late".into())),
        },
    );
    assert!(matches!(m.learn.text, Some(Ok(_))));

    // A failure is shown, not fatal, and Enter tries again.
    let (third, ..) = measure(&ch(&mut m, 'j'));
    update(
        &mut m,
        Msg::Lesson {
            req: third,
            result: Err(docshape::tui::msg::Failure::Source("data set gone".into())),
        },
    );
    assert_eq!(
        m.learn.text,
        Some(Err(docshape::tui::msg::Failure::Source(
            "data set gone".into()
        )))
    );
    let s = screen(&m, 120, 40);
    assert!(
        s.contains("cannot measure this lesson: data set gone"),
        "{s}"
    );
    let (_, lesson, _) = measure(&action(&mut m, Action::Toggle));
    assert_eq!(lesson, 2);
}

#[test]
fn the_language_key_switches_and_measures_again() {
    let mut m = model(120, 40);
    assert_eq!(m.learn.lang, Lang::En);
    let (req, ..) = measure(&ch(&mut m, '5'));
    update(
        &mut m,
        Msg::Lesson {
            req,
            result: Ok(Vec::new()),
        },
    );
    let fx = ch(&mut m, 't');
    assert_eq!(m.learn.lang, Lang::Zh);
    let (_, lesson, lang) = measure(&fx);
    assert_eq!((lesson, lang), (0, Lang::Zh));
    // Re-rendered at once from what was measured.
    let text = m.learn.text.clone().expect("text").expect("ok");
    assert!(text.contains("课堂提问"), "{text}");

    // Elsewhere the key only changes the language; entering measures.
    ch(&mut m, '1');
    let fx = ch(&mut m, 't');
    assert_eq!(m.learn.lang, Lang::En);
    assert!(
        fx.iter().all(|e| matches!(e, Effect::Cancel { .. })),
        "{fx:?}"
    );
    assert!(m.learn.text.is_none());
    let (_, _, lang) = measure(&ch(&mut m, '5'));
    assert_eq!(lang, Lang::En);
}

#[test]
fn the_language_key_is_in_the_keymap_and_rebindable() {
    let m = Keymap::default();
    assert!(m
        .help(docshape::i18n::Lang::En)
        .iter()
        .any(|(k, d)| k == "t" && d.contains("Chinese")));
    assert!(m
        .help(docshape::i18n::Lang::Zh)
        .iter()
        .any(|(k, d)| k == "t" && d.contains("中文")));
    assert_eq!(m.label(Action::TabLearn), "5");
    let t: toml::Table = toml::from_str("lesson-language = \"x\"").expect("toml");
    let (m, w) = Keymap::with_overrides(Some(&t));
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(
        m.action(Key::parse("x").expect("key")),
        Some(Action::LessonLanguage)
    );
    assert_eq!(m.action(Key::parse("t").expect("key")), None);
}

#[test]
fn the_effect_measures_the_bundled_sample_data() {
    let rt = docshape::tui::runtime().expect("runtime");
    let (tx, mut rx) = channel();
    let plan = docshape::audit::Plan::new(
        docshape::source::Selection::default(),
        docshape::source::SampleMode::Sample(10),
    );
    let mut ex = Executor::new(
        rt.handle().clone(),
        docshape::target::Target::Path(".".into()),
        plan,
        Duration::from_secs(30),
        tx,
    );
    let mut out = Vec::new();
    ex.run(
        Effect::Measure {
            req: 7,
            lesson: index("two-way"),
            lang: Lang::En,
        },
        &mut out,
    );
    match rt.block_on(async { tokio::time::timeout(Duration::from_secs(120), rx.recv()).await }) {
        Ok(Some(Msg::Lesson { req: 7, result })) => {
            let reports = result.expect("measured");
            assert_eq!(reports.len(), 1);
            assert_eq!(reports[0].0, "two_way");
        }
        other => panic!("{other:?}"),
    }
}

const SIZES: [(u16, u16); 2] = [(80, 24), (200, 60)];

/// The Learn tab showing `name` measured in `lang`.
fn showing(name: &str, lang: Lang, w: u16, h: u16) -> Model {
    let mut m = model(w, h);
    if lang == Lang::Zh {
        ch(&mut m, 't');
    }
    ch(&mut m, '5');
    while m.learn.sel < index(name) {
        ch(&mut m, 'j');
    }
    let req = m.learn.req.expect("measuring");
    update(
        &mut m,
        Msg::Lesson {
            req,
            result: Ok(measured(name, lang)),
        },
    );
    assert!(matches!(m.learn.text, Some(Ok(_))));
    m
}

/// Scrolls the lesson down until `want` shows; the screen then.
fn scroll_to(m: &mut Model, want: &str, w: u16, h: u16) -> String {
    for _ in 0..200 {
        let s = screen(m, w, h);
        if packed(&s).contains(&packed(want)) {
            return s;
        }
        ch(m, 'J');
    }
    panic!("{want} never shows:\n{}", screen(m, w, h));
}

#[test]
fn learn_tab_in_english() {
    for (w, h) in SIZES {
        let mut m = showing("two-way", Lang::En, w, h);
        let s = screen(&m, w, h);
        assert!(s.contains("Learn"), "{s}");
        assert!(s.contains("Lessons"), "{s}");
        assert!(s.contains("Two-way referencing\n") || s.contains("Two-way referencing "));
        assert!(s.contains("==================="), "{s}");
        assert!(s.contains("cardinality"), "{s}");
        let s = scroll_to(&mut m, "Question for the class", w, h);
        if h < 30 {
            assert!(m.learn.scroll > 0, "{s}");
        }
        // Back to the top.
        for _ in 0..200 {
            ch(&mut m, 'K');
        }
        assert_eq!(m.learn.scroll, 0);
    }
}

#[test]
fn learn_tab_in_chinese() {
    for (w, h) in SIZES {
        let mut m = showing("two-way", Lang::Zh, w, h);
        let s = screen(&m, w, h);
        let title = LESSONS[index("two-way")].title(Lang::Zh);
        assert!(packed(&s).contains("课程"), "{s}");
        assert!(packed(&s).contains(&packed(title)), "{s}");
        assert!(s.contains("English"), "{s}");
        scroll_to(&mut m, "课堂提问", w, h);
    }
}

#[test]
fn while_measuring_the_tab_says_so() {
    let mut m = model(80, 24);
    ch(&mut m, '5');
    let s = screen(&m, 80, 24);
    assert!(s.contains("measuring…"), "{s}");
    assert!(s.contains("Lessons"), "{s}");
}

/// The lessons that read the bundled workload are on the tab, with its
/// shapes and the findings they drew.
#[test]
fn the_workload_lessons_are_on_the_tab() {
    for (w, h) in SIZES {
        let mut m = showing("esr", Lang::En, w, h);
        let s = screen(&m, w, h);
        assert!(s.contains("The ESR rule, measured on a workload"), "{s}");
        scroll_to(&mut m, "WORKLOAD (sample-data/workload/mongod.log)", w, h);
        if w >= 120 {
            scroll_to(&mut m, "sorted in memory → index-esr", w, h);
        }
        let mut m = showing("refine-by-workload", Lang::Zh, w, h);
        scroll_to(&mut m, "工作负载", w, h);
        scroll_to(&mut m, "bad_groups", w, h);
    }
}
