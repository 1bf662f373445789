//! The profiler against an independent count, on documents generated from
//! the fuzzer's input (any path any type, in any order), profiled on one,
//! two and three threads: the longer run of `tests/it/profile_reference.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/it/support/reference_profile.rs"]
mod reference_profile;

use reference_profile::{disagreements, reference, Reported, Rng};

fuzz_target!(|data: &[u8]| {
    let mut seed = 0xcbf2_9ce4_8422_2325u64;
    for &b in data {
        seed = (seed ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut rng = Rng(seed);
    let n = 1 + data.first().map_or(0, |&b| u64::from(b)) % 200;
    let docs: Vec<bson::Document> = (0..n)
        .map(|i| reference_profile::document(&mut rng, i as i64))
        .collect();
    let raw: Vec<Vec<u8>> = docs
        .iter()
        .map(|d| {
            let mut v = Vec::new();
            d.to_writer(&mut v).expect("a generated document serialises");
            v
        })
        .collect();
    let want = reference(&docs);
    for threads in 1..=3 {
        let mut p = docshape::profile::ShardedProfiler::new(threads, docshape::profile::DEFAULT_MAX_PATHS)
            .at_once();
        for d in &raw {
            p.add(d).expect("a valid document");
        }
        let profile = p.finish();
        let got: Vec<Reported> = profile
            .fields
            .iter()
            .map(|f| Reported {
                path: f.path.clone(),
                count: f.count,
                values: f.values,
                types: f.types.iter().map(|(t, c)| (t.alias().to_owned(), *c)).collect(),
                array: f.array.as_ref().map(|a| (a.min, a.max)),
                bytes_avg: f.bytes_avg,
            })
            .collect();
        let bad = disagreements(&want, profile.sampled, &got);
        assert!(bad.is_empty(), "seed {seed:#x}, {threads} thread(s):\n{}", bad.join("\n"));
    }
});
