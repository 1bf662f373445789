//! The Extended JSON reader on arbitrary bytes: it must return documents or
//! an error, never panic, and every document it yields must profile.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut profiler = docshape::profile::Profiler::new(2_000);
    let _ = docshape::source::ejson::read_documents(data, &mut |doc| {
        assert!(profiler.add(doc).is_ok(), "the reader yielded invalid BSON");
    });
    let _ = profiler.finish();
});
