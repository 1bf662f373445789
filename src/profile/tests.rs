use bson::{doc, Bson, Document};

use super::*;

fn raw(d: &Document) -> Vec<u8> {
    let mut v = Vec::new();
    d.to_writer(&mut v).expect("serialise");
    v
}

fn profile(docs: &[Document]) -> Profile {
    let mut p = Profiler::default();
    for d in docs {
        p.add(&raw(d)).expect("valid document");
    }
    p.finish()
}

fn field<'a>(p: &'a Profile, path: &str) -> &'a FieldProfile {
    p.fields
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no path {path:?} in {:?}", paths(p)))
}

fn paths(p: &Profile) -> Vec<&str> {
    p.fields.iter().map(|f| f.path.as_str()).collect()
}

fn types(f: &FieldProfile) -> Vec<(&'static str, u64)> {
    f.types.iter().map(|(t, c)| (t.alias(), *c)).collect()
}

#[test]
fn every_bson_type_is_named_by_its_alias() {
    let cases: Vec<(Bson, &str)> = vec![
        (Bson::Double(1.5), "double"),
        (Bson::String("s".into()), "string"),
        (Bson::Document(doc! {"x": 1}), "object"),
        (Bson::Array(vec![Bson::Int32(1)]), "array"),
        (
            Bson::Binary(bson::Binary {
                subtype: bson::spec::BinarySubtype::Generic,
                bytes: vec![1, 2],
            }),
            "binData",
        ),
        (Bson::Undefined, "undefined"),
        (Bson::ObjectId(bson::oid::ObjectId::from_bytes([1; 12])), "objectId"),
        (Bson::Boolean(true), "bool"),
        (Bson::DateTime(bson::DateTime::from_millis(0)), "date"),
        (Bson::Null, "null"),
        (
            Bson::RegularExpression(bson::Regex {
                pattern: bson::raw::cstr!("a").into(),
                options: bson::raw::cstr!("").into(),
            }),
            "regex",
        ),
        (
            Bson::DbPointer(
                bson::Bson::try_from(serde_json::json!({"$dbPointer": {"$ref": "c", "$id": {"$oid": "5ca4bbcea2dd94ee58162a68"}}}))
                    .ok()
                    .and_then(|b| match b {
                        Bson::DbPointer(p) => Some(p),
                        _ => None,
                    })
                    .expect("dbPointer"),
            ),
            "dbPointer",
        ),
        (Bson::JavaScriptCode("f()".into()), "javascript"),
        (Bson::Symbol("sym".into()), "symbol"),
        (
            Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
                code: "f()".into(),
                scope: doc! {"a": 1},
            }),
            "javascriptWithScope",
        ),
        (Bson::Int32(1), "int"),
        (Bson::Timestamp(bson::Timestamp { time: 1, increment: 1 }), "timestamp"),
        (Bson::Int64(1), "long"),
        (Bson::Decimal128(bson::Decimal128::from_bytes([0; 16])), "decimal"),
        (Bson::MinKey, "minKey"),
        (Bson::MaxKey, "maxKey"),
    ];
    for (value, alias) in cases {
        let p = profile(&[doc! {"v": value.clone()}]);
        assert_eq!(types(field(&p, "v")), vec![(alias, 1)], "{value:?}");
    }
}

#[test]
fn nested_arrays_of_arrays_get_bracket_paths() {
    let p = profile(&[doc! {"m": [[1, 2], [3]]}, doc! {"m": [[4, 5, 6]]}]);
    assert_eq!(paths(&p), ["m", "m[]", "m[][]"]);
    let m = field(&p, "m");
    assert_eq!(m.array.map(|a| (a.min, a.max)), Some((1, 2)));
    let inner = field(&p, "m[]");
    assert_eq!(types(inner), [("array", 3)]);
    assert_eq!(inner.array.map(|a| (a.min, a.max)), Some((1, 3)));
    let leaf = field(&p, "m[][]");
    assert_eq!(types(leaf), [("int", 6)]);
    assert_eq!(leaf.count, 2, "both documents have a leaf");
    assert_eq!(leaf.values, 6);
}

#[test]
fn empty_arrays_have_length_zero_and_no_element_path() {
    let p = profile(&[doc! {"a": []}, doc! {"a": [1]}]);
    let a = field(&p, "a");
    assert_eq!(a.array.map(|s| (s.min, s.max, s.avg)), Some((0, 1, 0.5)));
    assert_eq!(field(&p, "a[]").count, 1);
}

#[test]
fn missing_is_not_null() {
    let p = profile(&[doc! {"x": null}, doc! {}, doc! {"x": 1}, doc! {"y": 1}]);
    let x = field(&p, "x");
    assert_eq!(x.count, 2);
    assert!((x.presence - 0.5).abs() < 1e-12);
    assert_eq!(types(x), [("null", 1), ("int", 1)]);
    assert!((field(&p, "y").presence - 0.25).abs() < 1e-12);
}

#[test]
fn weird_field_names_are_kept_verbatim() {
    let p = profile(&[doc! {"": 1, "a.b": 2, "$x": 3, "名字": "值", "a": {"b": 4}}]);
    for path in ["", "a.b", "$x", "名字", "a", "a.b"] {
        field(&p, path);
    }
    // The literal "a.b" key and the nested a.b are distinct nodes that share
    // a rendering; both are listed.
    assert_eq!(p.fields.iter().filter(|f| f.path == "a.b").count(), 2);
    assert_eq!(field(&p, "名字").examples, [serde_json::json!("值")]);
}

#[test]
fn presence_under_arrays_counts_documents_not_values() {
    let p = profile(&[
        doc! {"items": [{"sku": "a"}, {"sku": "b"}, {"qty": 1}]},
        doc! {"items": [{"qty": 2}]},
        doc! {"other": 1},
    ]);
    let sku = field(&p, "items[].sku");
    assert_eq!(sku.count, 1);
    assert_eq!(sku.values, 2);
    assert_eq!(field(&p, "items[].qty").count, 2);
    assert_eq!(field(&p, "items[]").values, 4);
}

#[test]
fn bytes_of_top_level_fields_add_up_to_document_sizes() {
    let docs: Vec<Document> = (0..50)
        .map(|i| doc! {"_id": i, "name": "x".repeat(i as usize), "tags": (0..i % 7).map(|t| t.to_string()).collect::<Vec<_>>()})
        .collect();
    let p = profile(&docs);
    let top: f64 = p
        .fields
        .iter()
        .filter(|f| f.depth == 0)
        .map(|f| f.bytes_avg)
        .sum();
    // Every document has a 4-byte length and a terminating zero.
    assert!(
        (top + 5.0 - p.doc_size.avg).abs() < 0.05,
        "{top} vs {}",
        p.doc_size.avg
    );
    let share: f64 = p
        .fields
        .iter()
        .filter(|f| f.depth == 0)
        .map(|f| f.bytes_share)
        .sum();
    assert!(share < 1.0 && share > 0.8);
}

#[test]
fn ranges_of_numbers_dates_and_object_id_times() {
    let p = profile(&[
        doc! {"n": 5_i32, "d": bson::DateTime::from_millis(1_000), "o": bson::oid::ObjectId::from_bytes([0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0]), "s": "abc"},
        doc! {"n": -2.5, "d": bson::DateTime::from_millis(86_400_000), "o": bson::oid::ObjectId::from_bytes([0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0]), "s": "a"},
        doc! {"n": 7_000_000_000_i64},
    ]);
    assert_eq!(field(&p, "n").number_range, Some([-2.5, 7e9]));
    let d = field(&p, "d").date_range.clone().expect("dates");
    assert_eq!(d[0], "1970-01-01T00:00:01Z");
    assert_eq!(d[1], "1970-01-02T00:00:00Z");
    let o = field(&p, "o").objectid_time.clone().expect("oid times");
    assert_eq!(o, ["1970-01-01T00:00:10Z", "1970-01-01T00:00:20Z"]);
    assert_eq!(field(&p, "s").string_length, Some([1, 3]));
}

#[test]
fn string_lengths_in_characters_match_a_count_of_chars_in_every_order() {
    // Strings of 1- to 4-byte characters, mixed: the character range must
    // be what `str::chars` counts, whatever the order the documents come
    // in (the count is skipped when a string's bytes cannot move the
    // range) and however they are split into shards and merged.
    // The fewest characters (2 emoji, 8 bytes) and the most (200 ASCII
    // letters, fewer bytes than 150 Chinese characters) are not the
    // fewest and most bytes, so a range kept in bytes fails.
    let pieces = ["abcdef", "é", "中", "😀", "ab", "文字", "x😀y"];
    let mut strings: Vec<String> = vec!["😀😀".into(), "a".repeat(200), "中".repeat(150)];
    for (i, p) in pieces.iter().enumerate() {
        for n in [3, 5, 8, 13, 40] {
            strings.push(p.repeat(n + i % 3));
        }
    }
    let chars: Vec<u64> = strings.iter().map(|s| s.chars().count() as u64).collect();
    let bytes: Vec<u64> = strings.iter().map(|s| s.len() as u64).collect();
    let want_chars = [
        *chars.iter().min().expect("some"),
        *chars.iter().max().expect("some"),
    ];
    let want_bytes = [
        *bytes.iter().min().expect("some"),
        *bytes.iter().max().expect("some"),
    ];
    let mut orders: Vec<Vec<usize>> = Vec::new();
    let idx: Vec<usize> = (0..strings.len()).collect();
    let mut by_bytes = idx.clone();
    by_bytes.sort_by_key(|&i| bytes[i]);
    orders.push(by_bytes.clone());
    orders.push(by_bytes.iter().rev().copied().collect());
    let mut by_chars = idx.clone();
    by_chars.sort_by_key(|&i| (chars[i], std::cmp::Reverse(bytes[i])));
    orders.push(by_chars.clone());
    orders.push(by_chars.iter().rev().copied().collect());
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    for _ in 0..20 {
        let mut o = idx.clone();
        for k in (1..o.len()).rev() {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            o.swap(k, (state >> 33) as usize % (k + 1));
        }
        orders.push(o);
    }
    for order in orders {
        let docs: Vec<Document> = order.iter().map(|&i| doc! {"s": &strings[i]}).collect();
        let p = profile(&docs);
        assert_eq!(field(&p, "s").string_chars, Some(want_chars), "{order:?}");
        assert_eq!(field(&p, "s").string_length, Some(want_bytes), "{order:?}");
        let mut shards = [Profiler::default(), Profiler::default()];
        for (n, d) in docs.iter().enumerate() {
            shards[n % 2]
                .add_numbered(&raw(d), n as u64 + 1)
                .expect("valid document");
        }
        let [mut merged, other] = shards;
        merged.merge(&other);
        let merged = merged.finish();
        assert_eq!(
            field(&merged, "s").string_chars,
            Some(want_chars),
            "{order:?}"
        );
    }
}

#[test]
fn distinct_counts_and_examples_are_bounded() {
    let docs: Vec<Document> = (0..1000).map(|i| doc! {"k": i % 3, "u": i}).collect();
    let p = profile(&docs);
    let k = field(&p, "k");
    assert_eq!(k.distinct.map(|d| (d.estimate, d.exact)), Some((3, true)));
    assert_eq!(k.examples.len(), 3);
    let u = field(&p, "u");
    let est = u.distinct.expect("distinct").estimate as f64;
    assert!((est - 1000.0).abs() / 1000.0 < 0.08, "{est}");
    assert!(est <= 1000.0, "never more distinct values than values");
    assert_eq!(u.examples.len(), MAX_EXAMPLES);
}

#[test]
fn merged_shards_equal_one_pass() {
    // Fields that appear late (and first in one shard), values past the
    // exact distinct limit (sketches), malformed documents, batches dealt
    // round-robin: the merged profile is the one-pass profile, byte for byte.
    let docs: Vec<Vec<u8>> = (0..3000)
        .map(|i| {
            let mut d =
                doc! {"_id": i, "a": {"b": i * 2, "c": [i, i + 1]}, "s": format!("v{}", i % 97)};
            if i % 5 == 0 {
                d.insert("opt", "x");
            }
            if i % 7 == 0 {
                d.insert("a", "string now");
            }
            if i > 1500 && i % 11 == 3 {
                d.insert("late", doc! {"z": i, "y": [doc! {"q": i % 13}]});
            }
            if i == 1 {
                d.insert("p", 1);
            }
            if i == 8 {
                d.insert("r", 1);
            }
            if i == 2222 {
                return vec![9, 0, 0, 0, 1];
            }
            raw(&d)
        })
        .collect();
    let mut whole = Profiler::default();
    for d in &docs {
        let _ = whole.add(d);
    }
    let whole = whole.finish();
    for batch in [1, 7, 64, 1000] {
        let mut shards = [
            Profiler::default(),
            Profiler::default(),
            Profiler::default(),
        ];
        for (b, chunk) in docs.chunks(batch).enumerate() {
            let shard = &mut shards[b % 3];
            for (j, d) in chunk.iter().enumerate() {
                let _ = shard.add_numbered(d, (b * batch + j + 1) as u64);
            }
        }
        let [mut merged, second, third] = shards;
        // Merge in an order other than the documents' own.
        merged.merge(&third);
        merged.merge(&second);
        let merged = merged.finish();
        assert_eq!(
            serde_json::to_value(&merged).expect("json"),
            serde_json::to_value(&whole).expect("json"),
            "batches of {batch}"
        );
    }
    let paths: Vec<&str> = whole.fields.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths.last(), Some(&"late.y[].q"), "first-seen order kept");
    assert_eq!(whole.invalid, 1);
}

#[test]
fn path_cap_bounds_memory_and_is_reported() {
    let mut p = Profiler::new(50);
    for i in 0..100 {
        let mut d = Document::new();
        for k in 0..100 {
            d.insert(format!("k{i}_{k}"), k);
        }
        p.add(&raw(&d)).expect("valid");
    }
    let out = p.finish();
    assert_eq!(out.fields.len(), 50);
    assert!(out.paths_capped);
    assert_eq!(out.dropped_values, 100 * 100 - 50);
    assert_eq!(out.sampled, 100);
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let mut d = doc! {"leaf": 1};
    for _ in 0..(MAX_WALK_DEPTH + 50) {
        d = doc! {"n": d};
    }
    let p = profile(&[d]);
    assert!(p.too_deep > 0);
    assert_eq!(p.max_depth, MAX_WALK_DEPTH + 1);
}

#[test]
fn malformed_documents_are_counted_and_ignored() {
    let mut p = Profiler::default();
    let good = raw(&doc! {"a": 1});
    let mut bad = raw(&doc! {"a": "text", "b": 2});
    let n = bad.len();
    bad[n - 3] = 0x42; // corrupt the last element's value framing
    bad[4] = 0xEE; // and the first element's type
    assert!(p.add(&good).is_ok());
    assert!(p.add(&bad).is_err());
    assert!(p.add(&[1, 2, 3]).is_err());
    let out = p.finish();
    assert_eq!(out.sampled, 1);
    assert_eq!(out.invalid, 2);
    assert_eq!(paths(&out), ["a"]);
    assert!(out.first_error.is_some());
}

#[test]
fn document_sizes_and_depth() {
    let p = profile(&[doc! {"a": 1}, doc! {"a": {"b": {"c": [1]}}}]);
    assert_eq!(p.doc_size.min, 12);
    assert_eq!(p.max_depth, 4);
    assert_eq!(p.sampled, 2);
    assert_eq!(field(&p, "a.b.c").depth, 2);
    assert_eq!(field(&p, "a.b.c[]").depth, 3);
}

#[test]
fn confidence_interval_only_for_samples() {
    let p = profile(&[doc! {"x": 1}, doc! {}]);
    let mut f = field(&p, "x").clone();
    f.set_confidence(2, Some(2));
    assert!(f.presence_ci.is_none());
    f.set_confidence(2, Some(1000));
    let [lo, hi] = f.presence_ci.expect("ci");
    assert!(lo < 0.5 && hi > 0.5);
}

#[test]
fn an_object_then_an_array_keeps_the_arrays_elements_apart() {
    // Before: the array's elements were taken for the object's first field
    // (`e.p` object and int, a path `e.p.p`, no `e[]`).
    let p = profile(&[
        doc! {"_id": 2, "e": {"p": 2}},
        doc! {"_id": 3, "e": [{"p": 1}]},
    ]);
    assert_eq!(paths(&p), ["_id", "e", "e.p", "e[]", "e[].p"]);
    assert_eq!(types(field(&p, "e.p")), [("int", 1)]);
    assert_eq!(types(field(&p, "e[]")), [("object", 1)]);
    assert_eq!(types(field(&p, "e[].p")), [("int", 1)]);
    // A field named "" is a field, not the elements of an array.
    let p = profile(&[doc! {"e": {"": 1}}, doc! {"e": [true]}]);
    assert_eq!(paths(&p), ["e", "e.", "e[]"]);
    assert_eq!(types(field(&p, "e[]")), [("bool", 1)]);
}
