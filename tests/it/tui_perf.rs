//! Time to first frame and per-frame render time for a collection with
//! more than 5,000 paths. A measurement, not a test of correctness; run it
//! in release mode:
//!
//!     cargo test --release --test it tui_perf:: -- --ignored --nocapture

use std::time::Instant;

use bson::Document;
use docshape::audit::Collection;
use docshape::audit::{self, Plan};
use docshape::profile::Profiler;
use docshape::report::Report;
use docshape::source::{CollectionMeta, FileSource, SampleMode, SampleOutcome, Selection};
use docshape::tui::keymap::{Action, Keymap};
use docshape::tui::model::Model;
use docshape::tui::theme::Theme;
use docshape::tui::update::{action, set_report};
use docshape::tui::views;
use ratatui::backend::TestBackend;
use ratatui::Terminal;

fn shop_report() -> Report {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data");
        let mut src = FileSource::open(&dir).expect("sample data");
        let sel = Selection {
            dbs: vec!["shop".into()],
            collections: Vec::new(),
        };
        let plan = Plan::new(sel, SampleMode::Sample(1000));
        audit::run(&mut src, &plan, &mut |_| {})
            .await
            .expect("audit")
    })
}

fn wide_report() -> Report {
    let mut p = Profiler::default();
    let mut kept = Vec::new();
    for d in 0..200 {
        let mut doc = Document::new();
        for g in 0..60 {
            let mut inner = Document::new();
            for k in 0..90 {
                inner.insert(
                    format!("field_{k}"),
                    if k % 3 == 0 {
                        bson::Bson::Int32(d)
                    } else {
                        bson::Bson::String(format!("v{d}"))
                    },
                );
            }
            inner.insert("tags", vec![bson::Bson::Int32(d); (d % 7) as usize]);
            doc.insert(format!("group_{g}"), inner);
        }
        doc.insert("_id", d);
        let bytes = bson::serialize_to_vec(&doc).expect("bson");
        p.add(&bytes).expect("profile");
        if kept.len() < 50 {
            kept.push(bytes);
        }
    }
    let profile = p.finish();
    let outcome = SampleOutcome {
        read: 200,
        method: "all".into(),
        ..SampleOutcome::default()
    };
    let mut c = Collection::new(CollectionMeta::new("perf", "wide"), &outcome, profile);
    c.kept = kept;
    let c = c.into_report();
    // Start from a real report so new report fields need no change here.
    let mut r = shop_report();
    r.collections = vec![c];
    r.relationships.clear();
    r.findings.clear();
    r
}

#[test]
#[ignore = "a measurement; run with --release --ignored --nocapture"]
fn render_times() {
    let report = wide_report();
    let paths = report.collections[0].fields.len();
    assert!(paths >= 5_000, "{paths} paths");
    let theme = Theme::default();
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let t0 = Instant::now();
        let mut m = Model::new("perf".into(), 1000, Keymap::default());
        m.size = (w, h);
        set_report(&mut m, report.clone());
        let mut term = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        term.draw(|f| views::render(&m, &theme, f)).expect("draw");
        let first = t0.elapsed();
        action(&mut m, Action::NextPane);
        let mut worst = std::time::Duration::ZERO;
        let frames = 200;
        let t1 = Instant::now();
        for i in 0..frames {
            match i % 50 {
                0 => action(&mut m, Action::TabSchema),
                10 => action(&mut m, Action::TabFindings),
                20 => action(&mut m, Action::TabDocuments),
                21 => action(&mut m, Action::Toggle),
                30 => action(&mut m, Action::TabRelationships),
                40 => action(&mut m, Action::Top),
                _ => action(&mut m, Action::PageDown),
            };
            let f0 = Instant::now();
            term.draw(|f| views::render(&m, &theme, f)).expect("draw");
            worst = worst.max(f0.elapsed());
        }
        let per = t1.elapsed() / frames;
        println!(
            "{w}x{h}: {paths} paths; first frame (model + report install + draw) {first:?}; per frame avg {per:?} (update + draw), worst draw {worst:?}"
        );
        assert!(first.as_millis() < 100, "first frame {first:?}");
        assert!(per.as_millis() < 10, "frame {per:?}");
    }
}
