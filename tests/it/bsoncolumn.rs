//! BSON columns (the compressed columns of time-series buckets) decoded
//! against columns written by MongoDB itself, published with the values
//! they hold, and against an independent encoder (`support/column_encoder.rs`)
//! over generated columns of every type and pattern.

use crate::support::column_encoder;

use base64::Engine;
use bson::{Bson, DateTime};
use column_encoder::{bson_value, column, encode, Rng, Style, Used, Value};
use docshape::source::files::bsoncolumn::{decode, decode_within, Values};

fn b64(s: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .expect("base64")
}

fn values(v: &Values) -> Vec<Value> {
    v.iter().map(|c| c.map(|(t, b)| (t, b.to_vec()))).collect()
}

fn decoded(col: &[u8]) -> Vec<Bson> {
    let v = decode(col, 10_000).unwrap_or_else(|e| panic!("{e}"));
    v.iter()
        .map(|c| {
            let (tag, bytes) = c.expect("no value is missing");
            let mut doc = vec![0u8; 4];
            doc.push(tag);
            doc.push(b'v');
            doc.push(0);
            doc.extend_from_slice(bytes);
            doc.push(0);
            let n = doc.len() as i32;
            doc[..4].copy_from_slice(&n.to_le_bytes());
            bson::Document::from_reader(&doc[..])
                .expect("a value")
                .get("v")
                .expect("v")
                .clone()
        })
        .collect()
}

fn date(iso: &str) -> Bson {
    Bson::DateTime(DateTime::parse_rfc3339_str(iso).expect("date"))
}

fn oid(hex: &str) -> Bson {
    Bson::ObjectId(bson::oid::ObjectId::parse_str(hex).expect("oid"))
}

/// mongodb/mongo, `jstests/change_streams/timeseries.js`: two measurements
/// `{_id: 1, ts: new Date(1000)}` inserted into one bucket; the test
/// expects the insert to write the columns `ts` and `_id` and the second
/// insert to append the given bytes at offset 10 of each.
#[test]
fn columns_a_server_appended_to() {
    let mut ts = b64("CQDoAwAAAAAAAAA=");
    ts.truncate(10);
    ts.extend(b64("gA4AAAAAAAAAAA=="));
    let mut id = b64("AQAAAAAAAADwPwA=");
    id.truncate(10);
    id.extend(b64("kA4AAAAAAAAAAA=="));
    let one = Bson::DateTime(DateTime::from_millis(1_000));
    assert_eq!(decoded(&ts), vec![one.clone(), one]);
    assert_eq!(decoded(&id), vec![Bson::Double(1.0), Bson::Double(1.0)]);
    assert_eq!(
        decoded(&b64("CQDoAwAAAAAAAAA=")),
        vec![Bson::DateTime(DateTime::from_millis(1_000))]
    );
}

/// mongodb/mongo, `src/mongo/db/validate/collection_validation_test.cpp`
/// (`TimeseriesCollectionValidationTest::getSampleDoc`): a bucket the
/// test inserts and validation accepts, its `control` giving the count
/// and the bounds of each column. The measurements are the stock sample
/// of MongoDB's time-series quick start (mongodb/docs,
/// `content/code-examples/tested/javascript/driver/time-series/quick-start/quick-start-setup.snippet.load-sample-data.js`),
/// inserted from 15:59 back to 15:55 and kept by time: the last inserted
/// (the highest ObjectId counter) first.
#[test]
fn a_bucket_of_stock_prices() {
    let dates = decoded(&b64("CQAg6EDOfQEAAIEMTB0AAAAAAA4AAAAAAAAAAA=="));
    let want: Vec<Bson> = (55..=59)
        .map(|m| date(&format!("2021-12-18T15:{m}:00Z")))
        .collect();
    assert_eq!(dates, want);
    assert_eq!(
        decoded(&b64("AQApXI/C9cBvQLD7BBgAHAK2AAA=")),
        [254.03, 253.63, 253.61, 252.93, 252.47].map(Bson::Double)
    );
    assert_eq!(
        decoded(&b64("AQAAAAAAwKnjQJB7C0YAo3jwqwA=")),
        [40270.0, 27890.0, 40182.0, 44042.0, 55046.0].map(Bson::Double)
    );
    assert_eq!(
        decoded(&b64("BwBpEgidgwL3sOyO70WAGwAAAAAAAAAA")),
        ["45", "44", "43", "42", "41"].map(|c| oid(&format!("6912089d8302f7b0ec8eef{c}")))
    );
}

/// The same test's `getVersion3ControlSampleDoc` and
/// `getExtendedTimeRangeSampleDoc`: five measurements of which the
/// bucket gives the count and bounds, and one before 1970.
#[test]
fn buckets_known_by_their_bounds() {
    let texts = decoded(&b64("AgACAAAAYQCBLAAAAgAgAADOPwwAAAAAAAA="));
    assert_eq!(texts.len(), 5);
    let texts: Vec<&str> = texts
        .iter()
        .map(|t| t.as_str().expect("a string"))
        .collect();
    assert_eq!(
        (texts.iter().min(), texts.iter().max()),
        (Some(&"a"), Some(&"d")),
        "{texts:?}"
    );
    let dates = decoded(&b64("CQDpOGDCmwEAAICLLuFtJFWCTwA="));
    assert_eq!(dates.len(), 5);
    let ms: Vec<i64> = dates
        .iter()
        .map(|d| d.as_datetime().expect("a date").timestamp_millis())
        .collect();
    let lo = DateTime::parse_rfc3339_str("2026-01-15T15:57:00Z")
        .expect("date")
        .timestamp_millis();
    let hi = DateTime::parse_rfc3339_str("2026-01-15T15:57:32.636Z")
        .expect("date")
        .timestamp_millis();
    // Version 3 keeps measurements as they came, not by time.
    assert!(
        ms.iter().all(|&m| m >= lo) && ms.iter().max() == Some(&hi),
        "{ms:?}"
    );
    let ids = decoded(&b64("BwBpaQ5kKmiNEQMoTQyAK2AAEPwXANQA"));
    assert_eq!(ids.len(), 5);
    let ids: Vec<String> = ids
        .iter()
        .map(|i| i.as_object_id().expect("an ObjectId").to_hex())
        .collect();
    assert_eq!(ids.iter().min().expect("ids"), "69690e642a688d1103284d0c");
    assert_eq!(ids.iter().max().expect("ids"), "69690ea22a688d1103284d10");
    assert!(
        ids.iter().all(|i| i[8..18] == *"2a688d1103"),
        "one process: {ids:?}"
    );

    assert_eq!(
        decoded(&b64("AgADAAAAYmIAAA==")),
        vec![Bson::String("bb".into())]
    );
    assert_eq!(
        decoded(&b64("CQAofsQfqP///wA=")),
        vec![Bson::DateTime(DateTime::from_millis(-377_424_151_000))]
    );
    assert_eq!(
        decoded(&b64("BwBpaTQMKmiNEQMoTREA")),
        vec![oid("6969340c2a688d1103284d11")]
    );
}

/// mongodb/mongo, `src/mongo/db/timeseries/timeseries_write_util_test.cpp`
/// (`PerformAtomicWritesForUserUpdate`): a bucket of three measurements
/// at 15:34:30 with `a` and `b` 1, 2 and 3; updating two leaves the
/// bucket holding the one with 2, compressed again.
#[test]
fn a_bucket_before_and_after_an_update() {
    let t = date("2022-06-06T15:34:30Z");
    assert_eq!(
        decoded(&b64("CQBwO6c5gQEAAIANAAAAAAAAAAA=")),
        vec![t.clone(), t.clone(), t.clone()]
    );
    assert_eq!(
        decoded(&b64("AQAAAAAAAADwP5AtAAAACAAAAAA=")),
        [1.0, 2.0, 3.0].map(Bson::Double)
    );
    assert_eq!(decoded(&b64("CQBwO6c5gQEAAAA=")), vec![t]);
    assert_eq!(decoded(&b64("EAACAAAAAA==")), vec![Bson::Int32(2)]);
}

/// mongodb/mongo, the block decoding tests of
/// `src/mongo/db/exec/sbe/values/` (`BsonBlockDecodingTest`,
/// `PathBasedLegacyInterleaved`): a column in the legacy interleaved
/// mode of four objects `{a: [10], b: 20}`.
#[test]
fn legacy_interleaved_objects() {
    let want = bson::doc! {"a": [10], "b": 20};
    let got = decoded(&b64(
        "8BsAAAAEYQAMAAAAEDAACgAAAAAQYgAUAAAAAIALAAAAAAAAAIALAAAAAAAAAAAA",
    ));
    assert_eq!(got, vec![Bson::Document(want); 4]);
}

/// mongodb/mongo,
/// `jstests/noPassthrough/timeseries/timeseries_insert_decompression_failure.js`:
/// the bucket's columns before the test corrupts them, two measurements
/// at `time` with consecutive ObjectIds, as `control.min` and `max` say.
#[test]
fn a_bucket_of_two_measurements() {
    let t = date("2024-01-16T20:48:39.448Z");
    assert_eq!(
        decoded(&b64("CQAYhggUjQEAAIAOAAAAAAAAAAA=")),
        vec![t.clone(), t]
    );
    assert_eq!(
        decoded(&b64("BwBlpuun5tLoSOCMN1CALgAAAAAAAAAA")),
        vec![
            oid("65a6eba7e6d2e848e08c3750"),
            oid("65a6eba7e6d2e848e08c3751")
        ]
    );
}

/// Generated columns of every type and pattern, each encoded with choices
/// made at random, decode to exactly the values encoded; over the run
/// the encoder used every selector, extension, repeat count, scale,
/// interleaving mode and count of blocks per control byte.
#[test]
fn generated_columns_decode_to_what_was_encoded() {
    let mut r = Rng::new(0x05EE_DC01);
    let mut used = Used::default();
    let mut columns = 0;
    for round in 0..400u64 {
        let n = match r.below(10) {
            0 => r.range(1, 5),
            1..=6 => r.range(5, 400),
            _ => r.range(400, 5_000),
        } as usize;
        let values = column(&mut r, n);
        let style = Style {
            literals: [0, 1, 5, 30][r.below(4) as usize],
            interleaving: [0, 70, 100][r.below(3) as usize],
            repeating: [0, 50, 100][r.below(3) as usize],
            dense: [0, 50, 100][r.below(3) as usize],
        };
        let col = encode(&values, &mut r, &style, &mut used);
        let got = decode(&col, values.len()).unwrap_or_else(|e| {
            panic!(
                "round {round}: {e}\ncolumn {:02x?}\nvalues {values:?}",
                &col[..col.len().min(400)]
            )
        });
        same(&values_of(&got), &values, &format!("round {round}"));
        // One value fewer than the column holds is refused.
        assert!(decode(&col, values.len() - 1).is_err(), "round {round}");
        columns += 1;
    }
    assert_eq!(columns, 400);
    let layouts: Vec<(u8, u8)> = (1..=14)
        .map(|s| (s, 0))
        .chain((1..=9).map(|e| (7, e)))
        .chain((1..=13).map(|e| (8, e)))
        .collect();
    for l in &layouts {
        assert!(
            used.selectors.contains(l),
            "selector {l:?} never used: {:?}",
            used.selectors
        );
    }
    assert_eq!(used.repeats, (1..=16).collect(), "repeat counts");
    assert_eq!(used.scales, (0..=5).collect(), "scales of doubles");
    assert_eq!(
        used.interleaved,
        [0xF0, 0xF1, 0xF2].into_iter().collect(),
        "interleaved modes"
    );
    assert_eq!(
        used.blocks_per_control,
        (1..=16).collect(),
        "blocks per control byte"
    );
    assert!(
        used.sub_literals > 0 && used.kept_empty > 0 && used.from_zero > 0,
        "{used:?}"
    );
    assert!(
        used.missing_slots > 10_000 && used.deltas > 10_000 && used.literals > 1_000,
        "{used:?}"
    );
}

fn values_of(v: &Values) -> Vec<Value> {
    values(v)
}

/// Every type the column holds, one after another and each repeated,
/// comes back (a regression check on the generator's reach).
#[test]
fn every_type_round_trips() {
    let mut r = Rng::new(7);
    let mut all: Vec<Value> = Vec::new();
    for _ in 0..200 {
        let v = column_encoder::random_scalar(&mut r);
        all.push(Some(bson_value(&v)));
        all.push(Some(bson_value(&v)));
        all.push(None);
    }
    let mut used = Used::default();
    let col = encode(&all, &mut r, &Style::default(), &mut used);
    same(
        &values(&decode(&col, all.len()).expect("decodes")),
        &all,
        "every type",
    );
}

/// Fails at the first value decoded differently from the one encoded.
fn same(got: &[Value], want: &[Value], what: &str) {
    if got != want {
        let at = got
            .iter()
            .zip(want)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        panic!(
            "{what}: value {at} of {} differs: decoded {:?}, encoded {:?}",
            want.len(),
            got.get(at),
            want.get(at)
        );
    }
}

/// Columns cut short, or with any byte changed, are decoded or refused:
/// never a panic, never more values or bytes than allowed.
#[test]
fn damaged_columns_are_refused_or_bounded() {
    let mut r = Rng::new(99);
    let mut used = Used::default();
    for _ in 0..60 {
        let n = r.range(1, 300) as usize;
        let values = column(&mut r, n);
        let col = encode(&values, &mut r, &Style::default(), &mut used);
        for cut in [0, 1, col.len() / 2, col.len() - 1] {
            assert!(decode(&col[..cut], 10_000).is_err());
        }
        for _ in 0..200 {
            let mut bad = col.clone();
            let at = r.below(bad.len() as u64) as usize;
            bad[at] = r.next() as u8;
            if let Ok(v) = decode_within(&bad, 5_000, 1 << 20) {
                assert!(v.len() <= 5_000 && v.held() <= 1 << 20);
            }
        }
    }
}

/// Writes compressed buckets (each column encoded here, regular and
/// interleaved) into the seed corpus of the `buckets` fuzz target, and a
/// column on its own: `cargo test --test it bsoncolumn:: -- --ignored`.
#[test]
#[ignore = "writes the fuzz corpus"]
fn write_fuzz_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/buckets");
    let mut r = Rng::new(0xF022);
    let mut used = Used::default();
    for k in 0..6u8 {
        let n = [3usize, 40, 130, 300, 8, 1_000][usize::from(k)];
        let mut data = bson::Document::new();
        let times: Vec<Value> = (0..n)
            .map(|i| {
                Some(bson_value(&Bson::DateTime(DateTime::from_millis(
                    1_000 * i as i64 + i64::from(k),
                ))))
            })
            .collect();
        let style = Style::default();
        data.insert("t", binary(encode(&times, &mut r, &style, &mut used)));
        for f in ["a", "b", "c"] {
            let values = column(&mut r, n);
            data.insert(f, binary(encode(&values, &mut r, &style, &mut used)));
        }
        // Objects with a sub-object and an array: an interleaved run.
        let objects: Vec<Value> = (0..n as i32)
            .map(|i| {
                let o = bson::doc! {"x": i, "s": {"y": f64::from(i) / 2.0}, "arr": [i, "z"]};
                (i % 7 != 3).then(|| bson_value(&Bson::Document(o)))
            })
            .collect();
        data.insert("o", binary(encode(&objects, &mut r, &style, &mut used)));
        let bucket = bson::doc! {
            "_id": 1,
            "control": {"version": 2, "count": n as i32},
            "meta": {"m": i32::from(k)},
            "data": data,
        };
        let bytes = bson::serialize_to_vec(&bucket).expect("bucket");
        let spec = docshape::source::files::buckets::Spec {
            time_field: Some("t".into()),
            ..Default::default()
        };
        assert_eq!(
            docshape::source::files::buckets::unpack(&bytes, &spec, &mut Vec::new()),
            Ok(n as u64)
        );
        std::fs::write(dir.join(format!("v2_compressed_{k}")), bytes).expect("write");
        if k < 2 {
            assert!(
                !used.interleaved.is_empty(),
                "an interleaved run in the corpus"
            );
            let values = column(&mut r, 50);
            std::fs::write(
                dir.join(format!("column_{k}")),
                encode(&values, &mut r, &style, &mut used),
            )
            .expect("write");
        }
    }
}

fn binary(bytes: Vec<u8>) -> Bson {
    Bson::Binary(bson::Binary {
        subtype: bson::spec::BinarySubtype::from(7u8),
        bytes,
    })
}

/// A Simple-8b block of selector 9 (six slots of 10 bits) or 13 (two of
/// 30) holding `slots` (zig-zag deltas; `None` missing).
fn block(slots: &[Option<i64>]) -> Vec<u8> {
    let (selector, bits): (u64, u32) = match slots.len() {
        6 => (9, 10),
        2 => (13, 30),
        n => panic!("{n} slots"),
    };
    let mut word = selector;
    for (k, s) in slots.iter().enumerate() {
        let v = match s {
            Some(d) => ((d << 1) ^ (d >> 63)) as u64,
            None => (1 << bits) - 1,
        };
        word |= v << (4 + k as u32 * bits);
    }
    let mut out = vec![0x80];
    out.extend_from_slice(&word.to_le_bytes());
    out
}

/// mongodb/mongo, `src/mongo/bson/column/bsoncolumn_test.cpp`
/// (`BSONColumnTest.Interleaved` and `InterleavedArray`): the sub-columns
/// that test expects the builder to write for a run of objects — the first
/// object as the reference, each field's deltas from its last present
/// value, a missing object missing from every field — decode to the
/// objects it appended. (The test states the slots; the selector holding
/// them is chosen here.)
#[test]
fn interleaved_runs_as_mongodb_tests_write_them() {
    let objects = [
        Some(bson::doc! {"x": 1, "y": 2}),
        Some(bson::doc! {"x": 1, "y": 3}),
        Some(bson::doc! {"x": 1, "y": 3}),
        None,
        Some(bson::doc! {"y": 4}),
        Some(bson::doc! {"x": 1, "y": 3}),
    ];
    let mut col = vec![0xF1];
    col.extend(bson::serialize_to_vec(&bson::doc! {"x": 1, "y": 2}).expect("doc"));
    col.extend(block(&[Some(0), Some(0), Some(0), None, None, Some(0)]));
    col.extend(block(&[Some(0), Some(1), Some(0), None, Some(1), Some(-1)]));
    col.extend([0, 0]);
    let want: Vec<Value> = objects
        .iter()
        .map(|o| {
            o.as_ref()
                .map(|d| (3, bson::serialize_to_vec(d).expect("doc")))
        })
        .collect();
    same(
        &values(&decode(&col, 10).expect("decodes")),
        &want,
        "Interleaved",
    );

    let mut col = vec![0xF1];
    col.extend(bson::serialize_to_vec(&bson::doc! {"x": [1, 2]}).expect("doc"));
    col.extend(block(&[Some(0), Some(1)]));
    col.extend(block(&[Some(0), Some(1)]));
    col.extend([0, 0]);
    let want: Vec<Value> = [bson::doc! {"x": [1, 2]}, bson::doc! {"x": [2, 3]}]
        .iter()
        .map(|d| Some((3, bson::serialize_to_vec(d).expect("doc"))))
        .collect();
    same(
        &values(&decode(&col, 10).expect("decodes")),
        &want,
        "InterleavedArray",
    );
}

/// mongodb/mongo, `src/mongo/bson/column/bsoncolumn_test.cpp` (the double
/// test whose skips "do not fit in a single simple8b block"): the smallest
/// subnormal, a missing value, 0.0 and 148 missing values; the test
/// expects the literal, a control byte of the bits-as-integer scale whose
/// one block holds the next 30 slots, then a control byte of scale ×1
/// holding one repeat block of 120 — which repeats the last slot of the
/// control byte before it, a missing value.
#[test]
fn a_repeat_block_repeats_across_control_bytes() {
    let mut col = vec![0x01, 0];
    col.extend_from_slice(&f64::from_bits(1).to_le_bytes());
    // Selector 2: 30 slots of 2 bits; 0b11 missing, 0b01 the delta -1.
    let mut word: u64 = 0x2;
    for k in 0..30 {
        let slot: u64 = if k == 1 { 0b01 } else { 0b11 };
        word |= slot << (4 + 2 * k);
    }
    col.push(0x80);
    col.extend_from_slice(&word.to_le_bytes());
    col.push(0x90);
    col.extend_from_slice(&0x0Fu64.to_le_bytes());
    col.push(0);
    let mut want: Vec<Value> = vec![
        Some((1, f64::from_bits(1).to_le_bytes().to_vec())),
        None,
        Some((1, 0f64.to_le_bytes().to_vec())),
    ];
    want.resize(151, None);
    same(
        &values(&decode(&col, 200).expect("decodes")),
        &want,
        "repeat of a missing value",
    );
}
