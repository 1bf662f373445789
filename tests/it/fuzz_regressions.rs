//! Every input a fuzzer ever crashed docshape with (`fuzz/regressions/`), and
//! the fuzz seed corpus, replayed through the same code the fuzz targets
//! exercise: the readers and the profiler must return, never panic.

use std::path::Path;

fn files(dir: &Path) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.path().is_file() {
                out.push(std::fs::read(e.path()).expect("read"));
            }
        }
    }
    out
}

fn inputs(target: &str) -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut v = files(&root.join("regressions").join(target));
    v.extend(files(&root.join("corpus").join(target)));
    v
}

#[test]
fn ejson_inputs() {
    let all = inputs("ejson");
    assert!(!all.is_empty(), "the seed corpus is missing");
    for data in all {
        let mut profiler = docshape::profile::Profiler::new(2_000);
        let _ = docshape::source::files::ejson::read_documents(&data[..], &mut |doc| {
            assert!(profiler.add(doc).is_ok(), "the reader yielded invalid BSON");
        });
        let _ = profiler.finish();
    }
}

#[test]
fn bson_stream_inputs() {
    let all = inputs("bson_stream");
    assert!(!all.is_empty(), "the seed corpus is missing");
    for data in all {
        let mut profiler = docshape::profile::Profiler::new(2_000);
        let _ = docshape::source::files::file::read_bson(&data[..], &mut |doc| {
            let _ = profiler.add(doc);
        });
        let _ = profiler.finish();
    }
}

#[test]
fn profile_inputs() {
    let all = inputs("profile");
    assert!(!all.is_empty(), "the seed corpus is missing");
    for data in all {
        let mut profiler = docshape::profile::Profiler::new(500);
        let _ = profiler.add(&data);
        let profile = profiler.finish();
        let docs = vec![data.clone()];
        let _ = docshape::growth::cross_section(&profile, &docs);
        for f in &profile.fields {
            let _ = docshape::profile::extract::values(&data, &f.segments);
        }
    }
}

#[test]
fn query_inputs() {
    let all = inputs("query");
    assert!(!all.is_empty(), "the seed corpus is missing");
    for data in all {
        docshape::source::query::parse::check_input(&String::from_utf8_lossy(&data));
    }
}

#[test]
fn bucket_inputs() {
    use docshape::source::files::buckets::{unpack, Spec};
    let all = inputs("buckets");
    assert!(!all.is_empty(), "the seed corpus is missing");
    let named = Spec {
        time_field: Some("t".into()),
        meta_field: Some("m".into()),
        ..Spec::default()
    };
    for data in all {
        let _ = docshape::source::files::bsoncolumn::decode(&data, 1_000);
        for spec in [Spec::default(), named.clone()] {
            let mut out = Vec::new();
            if let Ok(n) = unpack(&data, &spec, &mut out) {
                let mut profiler = docshape::profile::Profiler::new(2_000);
                let mut seen = 0u64;
                docshape::profile::parallel::each_document(&out, |doc| {
                    seen += 1;
                    assert!(profiler.add(doc).is_ok(), "a measurement is invalid BSON");
                });
                assert_eq!(seen, n);
                let _ = profiler.finish();
            }
        }
    }
}
