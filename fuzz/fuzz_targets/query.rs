//! The query bar's parser and the file scan's matcher on arbitrary text:
//! the lines of the input are the filter, sort, projection, skip and
//! limit; whatever parses is compiled and run over a few documents.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    docshape::source::query::parse::check_input(&String::from_utf8_lossy(data));
});
