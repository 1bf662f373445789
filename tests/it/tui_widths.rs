//! Widths measured in terminal cells: the explorer at 80×24 and 160×45, in
//! English and Chinese, on a database whose collection and field names and
//! values are Chinese, and whose two collections share a long prefix
//! (`good_avatars.chunks`, `good_avatars.files`). No cell is drawn over,
//! no border crossed, every column's values start (or, for numbers, end)
//! where its header does, and the end of a cut name that tells it from
//! its neighbours stays in sight.

use std::fmt::Write as _;
use std::path::Path;

use docshape::audit::{self, Plan};
use docshape::i18n::Lang;
use docshape::report::Report;
use docshape::source::{FileSource, SampleMode, Selection};
use docshape::tui::keymap::{Action, Keymap};
use docshape::tui::layout;
use docshape::tui::model::{Model, Tab};
use docshape::tui::theme::Theme;
use docshape::tui::update::{action, set_report};
use docshape::tui::views;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::Terminal;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 45)];
const LANGS: [Lang; 2] = [Lang::En, Lang::Zh];
const CHINESE: &str = "用户资料";

fn oid(n: u32) -> String {
    format!("{{\"$oid\":\"6554ee20{n:016x}\"}}")
}

/// `app`: `用户资料` (Chinese field names and values, a compound index on
/// two of them), and `good_avatars.files` with its `good_avatars.chunks`.
fn write_data(dir: &Path) {
    let db = dir.join("app");
    std::fs::create_dir_all(&db).expect("db dir");
    let cities = ["北京", "上海", "广州", "深圳", "杭州"];
    let mut users = String::new();
    for i in 0..40u32 {
        let city = cities[i as usize % cities.len()];
        let note = if i % 2 == 0 {
            format!(",\"备注\":\"第{i}位用户的备注\"")
        } else {
            String::new()
        };
        let _ = writeln!(
            users,
            "{{\"_id\":{},\"用户名\":\"张伟{i}\"{note},\"电子邮件地址\":\"user{i}@例子.中国\",\"所在城市和详细的收货地址信息\":\"{city}市朝阳区建国路{i}号\",\"收货地址\":{{\"省份\":\"{city}\",\"城市\":\"{city}市\"}},\"订单数量\":{i},\"标签\":[\"新用户\",\"会员\"]}}",
            oid(i)
        );
    }
    std::fs::write(db.join(format!("{CHINESE}.json")), users).expect("users");
    std::fs::write(
        db.join(format!("{CHINESE}.metadata.json")),
        r#"{"indexes":[{"v":2,"key":{"_id":1},"name":"_id_"},{"v":2,"key":{"用户名":1,"所在城市和详细的收货地址信息":-1},"name":"用户名_1_所在城市和详细的收货地址信息_-1"}]}"#,
    )
    .expect("users' indexes");
    let mut files = String::new();
    let mut chunks = String::new();
    for i in 0..20u32 {
        let _ = writeln!(
            files,
            "{{\"_id\":{},\"filename\":\"头像{i}.png\",\"length\":{},\"chunkSize\":261120}}",
            oid(1000 + i),
            1000 + i
        );
        for n in 0..2u32 {
            let _ = writeln!(
                chunks,
                "{{\"_id\":{},\"files_id\":{},\"n\":{n},\"data\":\"aGVsbG8=\"}}",
                oid(2000 + i * 2 + n),
                oid(1000 + i)
            );
        }
    }
    std::fs::write(db.join("good_avatars.files.json"), files).expect("files");
    std::fs::write(db.join("good_avatars.chunks.json"), chunks).expect("chunks");
}

fn report(dir: &Path, lang: Lang) -> Report {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut src = FileSource::open(dir).expect("the test data");
        let mut plan = Plan::new(
            Selection {
                dbs: vec!["app".into()],
                collections: Vec::new(),
            },
            SampleMode::Sample(1000),
        );
        plan.lang = lang;
        audit::run(&mut src, &plan, &mut |_| {})
            .await
            .expect("audit")
    })
}

/// The explorer on collection `name`, on `tab`.
fn model(report: &Report, lang: Lang, (w, h): (u16, u16), name: &str, tab: Action) -> Model {
    let mut m = Model::new("mongodb://u:****@h/".into(), 1000, Keymap::default());
    m.size = (w, h);
    m.lang = lang;
    m.learn.lang = lang;
    set_report(&mut m, report.clone());
    for _ in 0..10 {
        if m.collection().is_some_and(|c| c.meta.name == name) {
            break;
        }
        action(&mut m, Action::Down);
    }
    assert_eq!(m.collection().map(|c| c.meta.name.as_str()), Some(name));
    action(&mut m, tab);
    m
}

fn draw(m: &Model, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    t.draw(|f| views::render(m, &Theme::default(), f))
        .expect("draw");
    t.backend().buffer().clone()
}

/// Row `y` as text, each wide character once, with the cell each
/// character starts at.
fn row(buf: &Buffer, y: u16) -> Vec<(u16, String)> {
    let mut out = Vec::new();
    let mut x = 0;
    while x < buf.area.width {
        let sym = buf[(x, y)].symbol().to_owned();
        let w = docshape::fmt::display_width(&sym).max(1);
        out.push((x, sym));
        x += u16::try_from(w).unwrap_or(1);
    }
    out
}

fn text(buf: &Buffer) -> String {
    (0..buf.area.height)
        .map(|y| row(buf, y).into_iter().map(|(_, s)| s).collect::<String>() + "\n")
        .collect()
}

/// The cell at which `needle` starts in row `y` between columns `from`
/// and `to`, if it shows there.
fn find(buf: &Buffer, y: u16, (from, to): (u16, u16), needle: &str) -> Option<u16> {
    let cells: Vec<(u16, String)> = row(buf, y)
        .into_iter()
        .filter(|(x, _)| *x >= from && *x < to)
        .collect();
    let line: String = cells.iter().map(|c| c.1.as_str()).collect();
    let at = line.find(needle)?;
    let mut bytes = 0;
    cells.iter().find_map(|(x, s)| {
        let here = bytes;
        bytes += s.len();
        (here == at).then_some(*x)
    })
}

/// The cell just after `needle` ends in row `y` of `span`.
fn find_end(buf: &Buffer, y: u16, span: (u16, u16), needle: &str) -> Option<u16> {
    let x = find(buf, y, span, needle)?;
    Some(x + u16::try_from(docshape::fmt::display_width(needle)).unwrap_or(0))
}

/// Every wide character whole: its second cell the blank ratatui leaves,
/// and not cut at the right edge.
fn wide_characters_whole(buf: &Buffer, at: &str) {
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let sym = buf[(x, y)].symbol();
            for k in 1..docshape::fmt::display_width(sym) {
                let next = x + u16::try_from(k).unwrap_or(u16::MAX);
                assert!(
                    next < buf.area.width,
                    "{at}: `{sym}` at {x},{y} cut at the edge"
                );
                assert_eq!(
                    buf[(next, y)].symbol(),
                    " ",
                    "{at}: the second half of `{sym}` at {x},{y} drawn over\n{}",
                    text(buf)
                );
            }
        }
    }
}

/// The blocks a screen is drawn in: the navigator's, and the main area's
/// one or two (a list beside or above its detail).
fn blocks(m: &Model, w: u16, h: u16) -> Vec<Rect> {
    let areas = layout::areas(Rect::new(0, 0, w, h)).expect("areas");
    let main = areas.main;
    let (list, detail) = match m.tab {
        Tab::Findings => layout::findings_split(main),
        Tab::Learn => layout::learn_split(main),
        Tab::Documents => (main, Rect::default()),
        // Without a workload the tab says how to give one, in one block.
        Tab::Workload if m.report.as_ref().is_none_or(|r| r.workload.is_none()) => {
            (main, Rect::default())
        }
        _ => layout::split(main),
    };
    let mut v = vec![areas.nav, list];
    if detail.area() > 0 {
        v.push(detail);
    }
    v
}

/// Every block's left and right border drawn on every one of its rows.
fn borders_intact(m: &Model, buf: &Buffer, w: u16, h: u16, at: &str) {
    for r in blocks(m, w, h) {
        for y in r.y + 1..r.bottom() - 1 {
            for x in [r.x, r.right() - 1] {
                assert_eq!(
                    buf[(x, y)].symbol(),
                    "│",
                    "{at}: the border of {r:?} at {x},{y} is crossed\n{}",
                    text(buf)
                );
            }
        }
    }
}

fn every_screen(check: impl Fn(&Model, &Buffer, (u16, u16), &str)) {
    let tmp = tempfile::tempdir().expect("temp dir");
    write_data(tmp.path());
    for lang in LANGS {
        let r = report(tmp.path(), lang);
        for size in SIZES {
            for name in [CHINESE, "good_avatars.chunks", "good_avatars.files"] {
                for tab in [
                    Action::TabSchema,
                    Action::TabFindings,
                    Action::TabDocuments,
                    Action::TabRelationships,
                    Action::TabIndexes,
                    Action::TabWorkload,
                ] {
                    let mut m = model(&r, lang, size, name, tab);
                    if tab == Action::TabDocuments {
                        action(&mut m, Action::Toggle);
                    }
                    let buf = draw(&m, size.0, size.1);
                    let at = format!("{lang:?} {}×{} {name} {:?}", size.0, size.1, m.tab);
                    check(&m, &buf, size, &at);
                }
            }
        }
    }
}

#[test]
fn tui_widths_no_cell_drawn_over_and_no_border_crossed() {
    every_screen(|m, buf, (w, h), at| {
        wide_characters_whole(buf, at);
        borders_intact(m, buf, w, h, at);
    });
}

/// The Schema tab's columns: the type bars start under `types`, the
/// presences end under `presence`, whole (`100 %`, `50 %`), whatever the
/// width of the Chinese field names before them.
#[test]
fn tui_widths_schema_columns_line_up_under_their_headers() {
    let tmp = tempfile::tempdir().expect("temp dir");
    write_data(tmp.path());
    for lang in LANGS {
        let r = report(tmp.path(), lang);
        for (w, h) in SIZES {
            let m = model(&r, lang, (w, h), CHINESE, Action::TabSchema);
            let buf = draw(&m, w, h);
            let at = format!("{lang:?} {w}×{h}");
            let list = blocks(&m, w, h)[1];
            let span = (list.x + 1, list.right() - 1);
            let head_y = list.y + 1;
            let types = find(&buf, head_y, span, lang.pick("types", "类型"))
                .unwrap_or_else(|| panic!("{at}: no types header\n{}", text(&buf)));
            let presence = find_end(&buf, head_y, span, lang.pick("presence", "出现率"))
                .unwrap_or_else(|| panic!("{at}: no presence header\n{}", text(&buf)));
            let mut rows = 0;
            for y in head_y + 1..list.bottom() - 1 {
                let Some(bar) = find(&buf, y, span, "█") else {
                    continue;
                };
                rows += 1;
                assert_eq!(bar, types, "{at}: row {y}'s type bar\n{}", text(&buf));
                let end = find_end(&buf, y, span, " %").unwrap_or_else(|| {
                    panic!("{at}: row {y} has no whole presence\n{}", text(&buf))
                });
                assert_eq!(end, presence, "{at}: row {y}'s presence\n{}", text(&buf));
            }
            assert!(rows >= 4, "{at}: {rows} rows\n{}", text(&buf));
            let s = text(&buf);
            assert!(s.contains("100 %") && s.contains("50 %"), "{at}\n{s}");
            assert!(
                s.contains("用户名") && s.contains("电子邮件地址"),
                "{at}\n{s}"
            );
        }
    }
}

/// The Indexes tab: the key starts under `key` and the kind under `kind`
/// on every row; at 160 columns the whole key shows.
#[test]
fn tui_widths_index_columns_line_up_and_keys_show() {
    let tmp = tempfile::tempdir().expect("temp dir");
    write_data(tmp.path());
    for lang in LANGS {
        let r = report(tmp.path(), lang);
        for (w, h) in SIZES {
            let m = model(&r, lang, (w, h), CHINESE, Action::TabIndexes);
            let buf = draw(&m, w, h);
            let at = format!("{lang:?} {w}×{h}");
            let list = blocks(&m, w, h)[1];
            let span = (list.x + 1, list.right() - 1);
            let head_y = list.y + 1;
            let key = find(&buf, head_y, span, lang.pick("key", "键"))
                .unwrap_or_else(|| panic!("{at}: no key header\n{}", text(&buf)));
            let kind = find(&buf, head_y, span, lang.pick("kind", "类型"))
                .unwrap_or_else(|| panic!("{at}: no kind header\n{}", text(&buf)));
            for (y, kind_text) in [(head_y + 1, "id,"), (head_y + 2, "compound")] {
                assert_eq!(
                    find(&buf, y, span, "{"),
                    Some(key),
                    "{at}: row {y}'s key\n{}",
                    text(&buf)
                );
                assert_eq!(
                    find(&buf, y, span, kind_text),
                    Some(kind),
                    "{at}: row {y}'s kind\n{}",
                    text(&buf)
                );
            }
            let s = text(&buf);
            assert!(s.contains("{_id: 1}"), "{at}: the _id key whole\n{s}");
            if w >= 160 {
                assert!(
                    s.contains("{用户名: 1") && s.contains("地址信息: -1}"),
                    "{at}: the compound key's both ends\n{s}"
                );
            }
        }
    }
}

/// At 80 columns the navigator tells `good_avatars.chunks` from
/// `good_avatars.files`, and the tab bar names the collection shown.
#[test]
fn tui_widths_names_keep_their_distinguishing_end() {
    let tmp = tempfile::tempdir().expect("temp dir");
    write_data(tmp.path());
    for lang in LANGS {
        let r = report(tmp.path(), lang);
        for (w, h) in SIZES {
            for tab in [
                Action::TabSchema,
                Action::TabIndexes,
                Action::TabRelationships,
            ] {
                let m = model(&r, lang, (w, h), "good_avatars.chunks", tab);
                let buf = draw(&m, w, h);
                let at = format!("{lang:?} {w}×{h} {tab:?}");
                let nav = blocks(&m, w, h)[0];
                let names: Vec<String> = (nav.y + 1..nav.bottom() - 1)
                    .map(|y| {
                        row(&buf, y)
                            .into_iter()
                            .filter(|(x, _)| *x > nav.x && *x < nav.right() - 1)
                            .map(|(_, s)| s)
                            .collect()
                    })
                    .collect();
                assert!(
                    names.iter().any(|n| n.contains("chunks"))
                        && names.iter().any(|n| n.contains("files")),
                    "{at}: {names:#?}"
                );
                let tabs = layout::areas(Rect::new(0, 0, w, h)).expect("areas").tabs;
                let bar: String = row(&buf, tabs.y).into_iter().map(|(_, s)| s).collect();
                assert!(bar.contains("chunks"), "{at}: tab bar `{bar}`");
            }
        }
    }
}

/// The Relationships tab: the kind starts under `kind` and the
/// cardinality under `cardinality`, and both ends of the reference show
/// their last part (`files_id`, `._id`), at both sizes.
#[test]
fn tui_widths_relationship_columns_line_up_and_show_both_ends() {
    let tmp = tempfile::tempdir().expect("temp dir");
    write_data(tmp.path());
    for lang in LANGS {
        let r = report(tmp.path(), lang);
        for (w, h) in SIZES {
            let m = model(
                &r,
                lang,
                (w, h),
                "good_avatars.chunks",
                Action::TabRelationships,
            );
            let buf = draw(&m, w, h);
            let at = format!("{lang:?} {w}×{h}");
            let list = blocks(&m, w, h)[1];
            let span = (list.x + 1, list.right() - 1);
            let head_y = list.y + 1;
            let kind = find(&buf, head_y, span, lang.pick("kind", "类型"))
                .unwrap_or_else(|| panic!("{at}: no kind header\n{}", text(&buf)));
            let card = find(&buf, head_y, span, lang.pick("cardinality", "基数"))
                .unwrap_or_else(|| panic!("{at}: no cardinality header\n{}", text(&buf)));
            let y = (head_y + 1..list.bottom() - 1)
                .find(|&y| find(&buf, y, span, "files_id").is_some())
                .unwrap_or_else(|| panic!("{at}: no files_id reference\n{}", text(&buf)));
            assert!(
                find(&buf, y, span, "._id").is_some() && find(&buf, y, span, "→").is_some(),
                "{at}: the end referred to\n{}",
                text(&buf)
            );
            assert_eq!(
                find(&buf, y, span, lang.pick("parent-reference", "父引用")),
                Some(kind),
                "{at}: the kind\n{}",
                text(&buf)
            );
            assert_eq!(
                find(&buf, y, span, lang.pick("one-to-", "一对")),
                Some(card),
                "{at}: the cardinality\n{}",
                text(&buf)
            );
            // The detail names both ends whole.
            let s = text(&buf);
            assert!(
                s.contains("app.good_avatars.chunks.files_id")
                    && s.contains("app.good_avatars.files._id"),
                "{at}: the ends whole in the detail\n{s}"
            );
        }
    }
}

/// The rows of the Documents tab tell the documents apart: their `_id`s
/// differ on screen, not only past the cut.
#[test]
fn tui_widths_document_rows_differ() {
    let tmp = tempfile::tempdir().expect("temp dir");
    write_data(tmp.path());
    for lang in LANGS {
        let r = report(tmp.path(), lang);
        let (w, h) = (80, 24);
        let m = model(&r, lang, (w, h), CHINESE, Action::TabDocuments);
        let buf = draw(&m, w, h);
        let main = layout::areas(Rect::new(0, 0, w, h)).expect("areas").main;
        let heads: Vec<String> = (main.y + 1..main.bottom() - 1)
            .map(|y| {
                row(&buf, y)
                    .into_iter()
                    .filter(|(x, _)| *x > main.x && *x < main.right() - 1)
                    .map(|(_, s)| s)
                    .collect::<String>()
            })
            .filter(|l| l.contains('#'))
            .collect();
        assert!(heads.len() >= 5, "{heads:#?}");
        let ids: std::collections::BTreeSet<String> = heads
            .iter()
            .map(|l| l.split_once("_id").map_or("", |x| x.1).to_owned())
            .collect();
        assert_eq!(ids.len(), heads.len(), "{lang:?}: {heads:#?}");
    }
}

/// The Learn tab in Chinese: the lesson's lines stay inside its border.
#[test]
fn tui_widths_learn_tab_stays_inside_its_border() {
    use docshape::tui::msg::Msg;
    use docshape::tui::update::update;
    let tmp = tempfile::tempdir().expect("temp dir");
    write_data(tmp.path());
    let r = report(tmp.path(), Lang::Zh);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for (i, lesson) in docshape::lesson::LESSONS.iter().enumerate() {
        let measured = rt
            .block_on(docshape::lesson::measure(
                lesson,
                None,
                "docshape_",
                Lang::Zh,
                std::time::Duration::from_secs(30),
            ))
            .expect("the lesson");
        for (w, h) in SIZES {
            let mut m = model(&r, Lang::Zh, (w, h), CHINESE, Action::TabSchema);
            let fx = action(&mut m, Action::TabLearn);
            m.learn.sel = i;
            let _ = fx;
            m.learn.req = Some(0);
            update(
                &mut m,
                Msg::Lesson {
                    req: 0,
                    result: Ok(measured.clone()),
                },
            );
            for _ in 0..3 {
                let buf = draw(&m, w, h);
                let at = format!("lesson {} {w}×{h} scrolled {}", lesson.name, m.learn.scroll);
                wide_characters_whole(&buf, &at);
                borders_intact(&m, &buf, w, h, &at);
                for _ in 0..usize::from(h / 2) {
                    action(&mut m, Action::DetailDown);
                }
            }
        }
    }
}

/// The Workload tab on the sample shop with its log: every number ends
/// under its header (`runs`, `total`), and the shape starts under
/// `shape`, at both sizes and in both languages.
#[test]
fn tui_widths_workload_columns_line_up() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let log = crate::common::mongod_log::shop_log(tmp.path());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    for lang in LANGS {
        let r = rt.block_on(async {
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
            plan.workload = Some(std::sync::Arc::new(
                docshape::workload::read_logs(&log).expect("the log"),
            ));
            audit::run(&mut src, &plan, &mut |_| {})
                .await
                .expect("audit")
        });
        for (w, h) in SIZES {
            let m = model(&r, lang, (w, h), "orders", Action::TabWorkload);
            let buf = draw(&m, w, h);
            let at = format!("{lang:?} {w}×{h}");
            let list = blocks(&m, w, h)[1];
            let span = (list.x + 1, list.right() - 1);
            let head_y = list.y + 1;
            let shape = find(&buf, head_y, span, lang.pick("shape", "形状"))
                .unwrap_or_else(|| panic!("{at}: no shape header\n{}", text(&buf)));
            let runs = find_end(&buf, head_y, span, lang.pick("runs", "次数"))
                .unwrap_or_else(|| panic!("{at}: no runs header\n{}", text(&buf)));
            let total = find_end(&buf, head_y, span, lang.pick("total", "总耗时"))
                .unwrap_or_else(|| panic!("{at}: no total header\n{}", text(&buf)));
            for (y, count) in [(head_y + 1, "150"), (head_y + 2, "400")] {
                assert_eq!(
                    find(&buf, y, span, "{"),
                    Some(shape),
                    "{at}: row {y}\n{}",
                    text(&buf)
                );
                assert_eq!(
                    find_end(&buf, y, span, &format!(" {count} ")).map(|x| x - 1),
                    Some(runs),
                    "{at}: row {y}'s runs\n{}",
                    text(&buf)
                );
                let line: String = row(&buf, y)
                    .into_iter()
                    .filter(|(x, _)| *x >= span.0 && *x < span.1)
                    .map(|(_, s)| s)
                    .collect();
                let ms = line
                    .split_whitespace()
                    .position(|t| t == "ms")
                    .and_then(|i| {
                        line.split_whitespace()
                            .nth(i - 1)
                            .map(|n| format!("{n} ms"))
                    })
                    .unwrap_or_else(|| panic!("{at}: no total on row {y}: {line}"));
                assert_eq!(
                    find_end(&buf, y, span, &ms),
                    Some(total),
                    "{at}: row {y}'s total\n{}",
                    text(&buf)
                );
            }
        }
    }
}
