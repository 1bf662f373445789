//! The profiler held against an independent count: documents where any
//! path may hold any BSON type, in any order (scalars, objects, arrays,
//! arrays of arrays, nested several levels), profiled on 1, 2 and 3
//! threads, in the process and through the binary from a `.bson` file and
//! from canonical and relaxed Extended JSON, and compared path by path with
//! `support/reference_profile.rs`, which walks the documents as the `bson`
//! crate decodes them.
//!
//! The seed is fixed; `DOCSHAPE_REFERENCE_CASES` and
//! `DOCSHAPE_REFERENCE_SEED` run more cases or others (the fuzzing step
//! runs the `profile_reference` target for longer). A failure names its
//! seed.

use crate::common;
use crate::support::reference_profile;

use std::collections::BTreeMap;
use std::io::Write as _;

use bson::{Bson, Document};
use docshape::profile::{Profile, Profiler, ShardedProfiler};
use serde_json::Value;

use common::{docshape_env, json_ok};
use reference_profile::{disagreements, reference, shape_orders, Reported, Rng};

/// Random cases run in the process by default.
const CASES: u64 = 60;
const SEED: u64 = 0x00d0_c5ba_9e00_0030;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

fn raw(d: &Document) -> Vec<u8> {
    let mut v = Vec::new();
    d.to_writer(&mut v).expect("serialise");
    v
}

fn reported(p: &Profile) -> Vec<Reported> {
    p.fields
        .iter()
        .map(|f| Reported {
            path: f.path.clone(),
            count: f.count,
            values: f.values,
            types: f
                .types
                .iter()
                .map(|(t, c)| (t.alias().to_owned(), *c))
                .collect(),
            array: f.array.as_ref().map(|a| (a.min, a.max)),
            bytes_avg: f.bytes_avg,
        })
        .collect()
}

/// The profile of `docs` on `threads` threads (1: one `Profiler`).
fn profile(docs: &[Document], threads: usize) -> Profile {
    if threads == 1 {
        let mut p = Profiler::default();
        for d in docs {
            p.add(&raw(d)).expect("a valid document");
        }
        p.finish()
    } else {
        let mut p = ShardedProfiler::new(threads, docshape::profile::DEFAULT_MAX_PATHS).at_once();
        for d in docs {
            p.add(&raw(d)).expect("a valid document");
        }
        p.finish()
    }
}

fn check(docs: &[Document], threads: usize, what: &str) {
    let r = reference(docs);
    let p = profile(docs, threads);
    let bad = disagreements(&r, p.sampled, &reported(&p));
    assert!(
        bad.is_empty(),
        "{what}, {threads} thread(s): the profile disagrees with the reference count:\n{}\ndocuments: {}",
        bad.join("\n"),
        docs.iter()
            .take(6)
            .map(|d| Bson::Document(d.clone()).into_relaxed_extjson().to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn an_object_then_an_array_of_objects_under_one_field() {
    // The minimal case: `e` an object first, an array of objects after.
    let docs = vec![
        bson::doc! {"_id": 2, "e": {"p": 2}},
        bson::doc! {"_id": 3, "e": [{"p": 1}]},
    ];
    let p = profile(&docs, 1);
    let paths: Vec<&str> = p.fields.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["_id", "e", "e.p", "e[]", "e[].p"]);
    let ep = p.fields.iter().find(|f| f.path == "e.p").expect("e.p");
    assert_eq!((ep.count, ep.values), (1, 1));
    assert_eq!(ep.types.len(), 1, "e.p holds one int: {:?}", ep.types);
    check(&docs, 1, "object then array");
    check(&docs, 2, "object then array");
    let mut reversed = docs.clone();
    reversed.reverse();
    check(&reversed, 1, "array then object");
}

#[test]
fn an_empty_field_name_is_not_an_arrays_elements() {
    let docs = vec![
        bson::doc! {"_id": 1, "e": {"": 5}},
        bson::doc! {"_id": 2, "e": [true]},
        bson::doc! {"_id": 3, "e": {"": "s"}},
    ];
    check(&docs, 1, "empty name then array");
}

#[test]
fn every_order_of_three_shapes_under_one_field() {
    let cases = shape_orders();
    assert_eq!(cases.len(), 60);
    for (i, docs) in cases.iter().enumerate() {
        for threads in 1..=3 {
            check(docs, threads, &format!("shape order {i}"));
        }
    }
}

#[test]
fn random_documents_of_every_type_on_one_two_and_three_threads() {
    let seed = env_u64("DOCSHAPE_REFERENCE_SEED", SEED);
    let cases = env_u64("DOCSHAPE_REFERENCE_CASES", CASES);
    for case in 0..cases {
        let case_seed = seed.wrapping_add(case.wrapping_mul(0x9E37_79B9));
        let mut rng = Rng(case_seed);
        let n = 1 + rng.below(120);
        let docs: Vec<Document> = (0..n)
            .map(|i| reference_profile::document(&mut rng, i as i64))
            .collect();
        for threads in 1..=3 {
            check(&docs, threads, &format!("seed {case_seed:#x}"));
        }
    }
}

/// Enough documents that a file is read on every thread (past
/// `LARGE_INPUT`) and the in-process profilers get several batches each;
/// `pad` bytes of string in each make the same bytes out of fewer
/// documents.
fn many_documents(seed: u64, bytes: usize, pad: usize) -> Vec<Document> {
    let mut rng = Rng(seed);
    let mut docs = Vec::new();
    let mut total = 0;
    let mut id = 0;
    while total < bytes {
        let mut d = reference_profile::document(&mut rng, id);
        if pad > 0 {
            d.insert("pad", "x".repeat(pad));
        }
        total += raw(&d).len();
        docs.push(d);
        id += 1;
    }
    docs
}

#[test]
fn many_batches_merge_into_the_reference_profile() {
    let docs = many_documents(SEED ^ 0x5eed, 900 << 10, 0);
    for threads in 1..=3 {
        check(&docs, threads, "900 KiB of documents");
    }
}

/// What `docshape schema FILE --full --format json` reported.
fn reported_json(c: &Value) -> (u64, Vec<Reported>) {
    let fields = c["fields"].as_array().expect("fields");
    let got = fields
        .iter()
        .map(|f| Reported {
            path: f["path"].as_str().expect("path").to_owned(),
            count: f["count"].as_u64().expect("count"),
            values: f["values"].as_u64().expect("values"),
            types: f["types"]
                .as_object()
                .expect("types")
                .iter()
                .map(|(k, v)| (k.clone(), v.as_u64().expect("a count")))
                .collect::<BTreeMap<_, _>>(),
            array: f.get("array").map(|a| {
                (
                    a["min"].as_u64().expect("min"),
                    a["max"].as_u64().expect("max"),
                )
            }),
            bytes_avg: f["bytes_avg"].as_f64().expect("bytes_avg"),
        })
        .collect();
    (c["sampled"].as_u64().expect("sampled"), got)
}

#[test]
fn files_in_every_format_on_one_two_and_three_threads() {
    let docs = many_documents(SEED ^ 0xf11e, 2_400 << 10, 1_500);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let bson_path = dir.path().join("mixed.bson");
    {
        let mut f = std::fs::File::create(&bson_path).expect("create");
        for d in &docs {
            f.write_all(&raw(d)).expect("write");
        }
    }
    let canonical = dir.path().join("canonical.json");
    let relaxed = dir.path().join("relaxed.json");
    {
        let mut c = std::fs::File::create(&canonical).expect("create");
        let mut r = std::fs::File::create(&relaxed).expect("create");
        for d in &docs {
            let b = Bson::Document(d.clone());
            writeln!(c, "{}", b.clone().into_canonical_extjson()).expect("write");
            writeln!(r, "{}", b.into_relaxed_extjson()).expect("write");
        }
    }
    // Relaxed Extended JSON loses some types by design (a small long is
    // read back as an int): the reference is what the `bson` crate reads
    // back from the same text.
    let relaxed_docs: Vec<Document> = std::fs::read_to_string(&relaxed)
        .expect("read back")
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("JSON");
            match Bson::try_from(v).expect("Extended JSON") {
                Bson::Document(d) => d,
                other => panic!("not a document: {other:?}"),
            }
        })
        .collect();
    let cases = [
        (&bson_path, reference(&docs)),
        (&canonical, reference(&docs)),
        (&relaxed, reference(&relaxed_docs)),
    ];
    for (path, r) in &cases {
        for threads in ["1", "2", "3"] {
            let out = docshape_env(
                &[
                    "schema",
                    path.to_str().expect("a UTF-8 path"),
                    "--full",
                    "--format",
                    "json",
                ],
                &[("DOCSHAPE_THREADS", threads)],
            );
            let (sampled, got) = reported_json(&json_ok(&out));
            let bad = disagreements(r, sampled, &got);
            assert!(
                bad.is_empty(),
                "{} on {threads} thread(s) disagrees with the reference count:\n{}",
                path.display(),
                bad.join("\n")
            );
        }
    }
}
