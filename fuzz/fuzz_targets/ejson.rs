//! The Extended JSON reader on arbitrary bytes: it must return documents or
//! an error, never panic, and every document it yields must profile. Read
//! on two threads (workers starting at once, small jobs), it must yield the
//! same documents and the same result as on one.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut profiler = docshape::profile::Profiler::new(2_000);
    let mut one = Vec::new();
    let single = docshape::source::files::ejson::read_documents_on(data, 1, &mut |doc| {
        assert!(profiler.add(doc).is_ok(), "the reader yielded invalid BSON");
        one.push(doc.to_vec());
    });
    let _ = profiler.finish();
    let mut two = Vec::new();
    let split = docshape::source::files::ejson::read_documents_split(data, 2, 0, 64, &mut |doc| {
        two.push(doc.to_vec());
    });
    assert_eq!(single, split, "two threads changed the result");
    assert!(one == two, "two threads changed the documents");
});
