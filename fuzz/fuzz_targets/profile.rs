//! The profiler on arbitrary bytes taken as one document, then the stages
//! that read the kept documents again (growth, rule examples).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut profiler = docshape::profile::Profiler::new(500);
    let _ = profiler.add(data);
    let profile = profiler.finish();
    let docs = vec![data.to_vec()];
    let _ = docshape::growth::cross_section(&profile, &docs);
    for f in &profile.fields {
        let _ = docshape::profile::extract::values(data, &f.segments);
    }
});
