//! A time-series bucket (and the BSON columns in it) unpacked into
//! measurements from arbitrary bytes: never a panic, and what comes out
//! is whole documents the profiler reads.
#![no_main]

use docshape::source::files::buckets::{unpack, Spec};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let named = Spec {
        time_field: Some("t".into()),
        meta_field: Some("m".into()),
        ..Spec::default()
    };
    let _ = docshape::source::files::bsoncolumn::decode_within(data, 1_000, 1 << 20);
    for spec in [Spec::default(), named] {
        let mut out = Vec::new();
        if let Ok(n) = unpack(data, &spec, &mut out) {
            let mut profiler = docshape::profile::Profiler::new(2_000);
            let mut seen = 0u64;
            docshape::profile::parallel::each_document(&out, |doc| {
                seen += 1;
                let _ = profiler.add(doc);
            });
            assert_eq!(seen, n);
            let _ = profiler.finish();
        }
    }
});
