//! The mongodump `.bson` stream reader on arbitrary bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut profiler = docshape::profile::Profiler::new(2_000);
    let _ = docshape::source::files::file::read_bson(data, &mut |doc| {
        let _ = profiler.add(doc);
    });
    let _ = profiler.finish();
});
