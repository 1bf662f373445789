//! Table-driven tests of the rule layer on collections built in memory.

use bson::{doc, Document};

use super::kit::{check, report};

fn people(n: u32) -> Vec<Document> {
    (0..n)
        .map(|i| doc! {"_id": i, "name": format!("person {i}"), "age": i % 90})
        .collect()
}

#[test]
fn every_finding_says_its_scope() {
    // (documents read, documents in the collection, expected scope)
    let cases: [(u32, u64, &str); 2] = [(300, 300, "collection"), (300, 30_000, "sample")];
    for (read, total, want) in cases {
        let mut docs = people(read);
        for (i, d) in docs.iter_mut().enumerate() {
            // A path of two types in every document: mixed-types fires.
            d.insert(
                "code",
                if i % 2 == 0 {
                    bson::Bson::Int32(1)
                } else {
                    "x".into()
                },
            );
        }
        let r = report("people", &docs, total);
        let found = check(&r);
        assert!(!found.is_empty(), "mixed-types fires");
        for f in &found {
            assert_eq!(
                f.evidence.get("scope").and_then(|v| v.as_str()),
                Some(want),
                "{} {:?}",
                f.rule,
                f.message
            );
            if want == "sample" {
                assert!(!f.message.contains("in all"), "{}", f.message);
            }
        }
    }
}
