//! The scripts of every other pattern a suggestion can name, proven on the
//! test server: each problem is planted (with awkward values beside it),
//! `audit` suggests a script, the real `mongosh` runs it twice, and the
//! test checks the new shape, that no `_id` changed and no value was
//! dropped, that the second run changed nothing, and what a new audit says.
//!
//! Small collections stand in for large ones: the thresholds that depend
//! on size are lowered with a `docshape.toml`, as a user would.

use crate::common;
use crate::migrate;

use bson::{doc, spec::BinarySubtype, Binary, Bson, Document};
use common::{client, oid, unique_db, DAY, NEWEST};
use migrate::{all, audit_with, dump, findings, nothing_dropped, report_findings, run_twice};
use mongodb::options::IndexOptions;
use mongodb::IndexModel;

/// Thresholds lowered to the size of the planted collections.
const CONFIG: &str = "\
[bloated-document]
path-avg-bytes = 20000
[large-reference-array]
warning-length = 50
[too-many-collections]
per-database = 5
[deep-nesting]
warning = 6
[long-field-names]
min-saved-bytes = 0
[too-many-indexes]
info = 5
";

async fn audit(pattern: &str) -> serde_json::Value {
    audit_with(pattern, Some(CONFIG)).await
}

/// The one finding of `rule` on `ns`.
fn the<'a>(report: &'a serde_json::Value, ns: &str, rule: &str) -> &'a serde_json::Value {
    let f = findings(report, ns, rule);
    assert_eq!(
        f.len(),
        1,
        "one {rule} on {ns}: {}",
        common::collection(report, ns)["findings"]
    );
    f[0]
}

fn script(f: &serde_json::Value) -> &str {
    f["suggestion"]["migration"].as_str().expect("script")
}

fn summary(f: &serde_json::Value) -> &str {
    f["suggestion"]["summary"].as_str().expect("summary")
}

fn blob(n: usize, seed: u8) -> Bson {
    Bson::Binary(Binary {
        subtype: BinarySubtype::Generic,
        bytes: (0..n)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect(),
    })
}

async fn insert(c: &mongodb::Client, db: &str, coll: &str, docs: Vec<Document>) {
    c.database(db)
        .collection::<Document>(coll)
        .insert_many(docs)
        .await
        .unwrap_or_else(|e| panic!("insert into {coll}: {e}"));
}

/// Runs the script of `f` twice on `db`: no `_id` changed, the second run
/// changed nothing, no value was dropped. What the two runs printed.
async fn prove(db: &str, f: &serde_json::Value, name: &str) -> (String, String) {
    let before = dump(db).await;
    let out = run_twice(db, script(f), name).await;
    nothing_dropped(db, &before, name).await;
    out
}

/// `bloated-document`: a binary avatar (gridfs) and a long text
/// (separate-collection) each move to a collection of their own, one
/// document per parent, with the parent's `_id`; documents without the
/// value (missing, null) keep their shape.
#[tokio::test(flavor = "current_thread")]
async fn separate_moves_the_heavy_path_out() {
    let c = client().await;
    let db = unique_db("pat_sep");
    let contacts: Vec<Document> = (0..20_i32)
        .map(|i| match i {
            18 => doc! {"_id": i, "name": "no avatar"},
            19 => doc! {"_id": i, "name": "null avatar", "avatar": Bson::Null},
            _ => doc! {"_id": i, "name": format!("contact {i}"), "avatar": blob(30_000, i as u8)},
        })
        .collect();
    insert(&c, &db, "contacts", contacts).await;
    let articles: Vec<Document> = (0..20)
        .map(|i| match i {
            19 => doc! {"_id": format!("a{i}"), "title": "empty", "body": ""},
            _ => doc! {"_id": format!("a{i}"), "title": format!("t{i}"), "body": format!("{i} ").repeat(15_000)},
        })
        .collect();
    insert(&c, &db, "articles", articles).await;
    let report = audit(&format!("{db}.*")).await;

    let f = the(&report, &format!("{db}.contacts"), "bloated-document");
    assert_eq!(f["suggestion"]["pattern"], "gridfs", "{f}");
    assert!(summary(f).contains("contacts_avatar"), "{}", summary(f));
    prove(&db, f, "separate_gridfs").await;
    let moved = all(&c.database(&db).collection::<Document>("contacts_avatar")).await;
    assert_eq!(moved.len(), 19, "18 avatars and the null one, each once");
    for m in &moved {
        let id = m.get_i32("_id").expect("the parent's _id");
        assert_eq!(m.get_i32("contact_id").ok(), Some(id), "{id}");
        assert!(m.contains_key("avatar"));
    }
    for p in all(&c.database(&db).collection::<Document>("contacts")).await {
        assert!(!p.contains_key("avatar"), "{p}");
        assert!(p.get_str("name").is_ok());
    }
    // A writer not yet moved over sets a new avatar in a parent: the next
    // run keeps it there (and the older copy), and says so.
    let contacts = c.database(&db).collection::<Document>("contacts");
    contacts
        .update_one(
            doc! {"_id": 0},
            doc! {"$set": {"avatar": blob(30_000, 200)}},
        )
        .await
        .expect("new avatar");
    let (first, second) = prove(&db, f, "separate_gridfs_again").await;
    for out in [first, second] {
        assert!(
            out.contains("1 documents hold a value that differs from its copy"),
            "{out}"
        );
    }
    let zero = contacts
        .find_one(doc! {"_id": 0})
        .await
        .expect("find")
        .expect("contact 0");
    assert_eq!(
        zero.get("avatar"),
        Some(&blob(30_000, 200)),
        "the new avatar stays"
    );
    contacts
        .update_one(doc! {"_id": 0}, doc! {"$unset": {"avatar": ""}})
        .await
        .expect("the application moved it");

    let f = the(&report, &format!("{db}.articles"), "bloated-document");
    assert_eq!(f["suggestion"]["pattern"], "separate-collection", "{f}");
    prove(&db, f, "separate_text").await;
    let moved = all(&c.database(&db).collection::<Document>("articles_body")).await;
    assert_eq!(moved.len(), 20, "the empty body moves too: {moved:?}");

    let after = audit(&format!("{db}.*")).await;
    for coll in ["contacts", "articles"] {
        assert!(
            findings(&after, &format!("{db}.{coll}"), "bloated-document").is_empty(),
            "{coll} no longer carries the heavy path"
        );
    }
    // The new collections hold the value and its keys only: separating it
    // again would be circular, and is not suggested.
    for coll in ["contacts_avatar", "articles_body"] {
        assert!(
            findings(&after, &format!("{db}.{coll}"), "bloated-document").is_empty(),
            "{coll} is the separated value: {}",
            common::collection(&after, &format!("{db}.{coll}"))["findings"]
        );
    }
}

/// `deep-nesting`: the deepest top-level sub-tree moves to its own
/// collection; the nesting goes with it, as the summary says, so the
/// finding moves there.
#[tokio::test(flavor = "current_thread")]
async fn flatten_moves_the_deep_subtree_and_says_the_nesting_goes_with_it() {
    let c = client().await;
    let db = unique_db("pat_deep");
    let trees: Vec<Document> = (0..12)
        .map(|i| {
            let mut n = doc! {"leaf": i, "tags": ["", "N/A"]};
            for _ in 0..9 {
                n = doc! {"child": n};
            }
            if i == 11 {
                doc! {"_id": i, "name": "flat"}
            } else {
                doc! {"_id": i, "name": format!("tree {i}"), "root": n}
            }
        })
        .collect();
    insert(&c, &db, "trees", trees).await;
    let ns = format!("{db}.trees");
    let report = audit(&ns).await;
    let f = the(&report, &ns, "deep-nesting");
    assert!(summary(f).contains("trees_root"), "{}", summary(f));
    prove(&db, f, "flatten").await;
    let moved = all(&c.database(&db).collection::<Document>("trees_root")).await;
    assert_eq!(moved.len(), 11);
    for t in all(&c.database(&db).collection::<Document>("trees")).await {
        assert!(!t.contains_key("root"), "{t}");
    }
    let after = audit(&format!("{db}.*")).await;
    assert!(findings(&after, &ns, "deep-nesting").is_empty());
    assert_eq!(
        findings(&after, &format!("{db}.trees_root"), "deep-nesting").len(),
        1,
        "the nesting moved with the sub-tree, as the summary says"
    );
}

/// `polymorphic-without-discriminator`: every document of a recognised
/// shape gets a discriminator; documents of no shape are left and counted;
/// an existing `type` field of another meaning is not taken over.
#[tokio::test(flavor = "current_thread")]
async fn discriminator_names_each_shape() {
    let c = client().await;
    let db = unique_db("pat_poly");
    let mut docs: Vec<Document> = (0..60)
        .map(|i| {
            if i % 2 == 0 {
                doc! {"_id": i, "title": format!("Book {i}"), "author": "A. Writer", "pages": 100 + i, "isbn": format!("978-{i}"), "type": if i % 4 == 0 { "paperback" } else { "hardcover" }}
            } else {
                doc! {"_id": i, "watts": 40 + i, "voltage": 230, "socket": "E27", "brand": "Glow", "type": if i % 3 == 0 { "hardcover" } else { "paperback" }}
            }
        })
        .collect();
    docs.push(doc! {"_id": 60, "code": "GIFT-1", "value": "N/A"});
    docs.push(doc! {"_id": 61, "code": "", "value": Bson::Null});
    insert(&c, &db, "catalog", docs).await;
    let ns = format!("{db}.catalog");
    let report = audit(&ns).await;
    let f = the(&report, &ns, "polymorphic-without-discriminator");
    let (first, second) = prove(&db, f, "discriminator").await;
    assert!(
        first.contains("2 documents match no shape"),
        "the untyped documents are counted: {first}"
    );
    assert!(second.contains("2 documents match no shape"), "{second}");
    let field = f["suggestion"]["effect"]["discriminator"]
        .as_str()
        .expect("the discriminator's name");
    assert_ne!(field, "type", "`type` already means something else here");
    assert!(summary(f).contains(&format!("`{field}`")), "{}", summary(f));
    for d in all(&c.database(&db).collection::<Document>("catalog")).await {
        let kind = d.get_str(field).ok();
        let shapes = f["suggestion"]["effect"]["shapes"]
            .as_object()
            .expect("shapes");
        assert_eq!(shapes.len(), 2, "{shapes:?}");
        let want = shapes
            .iter()
            .find(|(_, own)| d.contains_key(own.as_str().expect("field")))
            .map(|(name, _)| name.as_str());
        assert_eq!(kind, want, "{d}");
        assert_eq!(kind.is_none(), d.contains_key("code"), "{d}");
        assert!(d.get_str("type").is_ok() || d.contains_key("code"), "{d}");
    }
    let after = audit(&ns).await;
    assert!(
        findings(&after, &ns, "polymorphic-without-discriminator").is_empty(),
        "{}",
        common::collection(&after, &ns)["findings"]
    );
}

/// `long-field-names`: names are shortened where only the old name is
/// present; a document that already holds the new name is left as it is
/// and counted, never overwritten.
#[tokio::test(flavor = "current_thread")]
async fn rename_shortens_names_and_never_overwrites() {
    let c = client().await;
    let db = unique_db("pat_rename");
    let docs: Vec<Document> = (0..50)
        .map(|i| {
            let mut d = doc! {"_id": i, "customer_shipping_address_line": "1 Rd", "customer_billing_address_line": "", "preferred_delivery_time_window": "N/A", "loyalty_programme_membership_level": 2};
            if i == 49 {
                d.remove("preferred_delivery_time_window");
            }
            if i == 48 {
                d.insert("customer_billing_address_line", Bson::Null);
            }
            d
        })
        .collect();
    insert(&c, &db, "verbose", docs).await;
    let ns = format!("{db}.verbose");
    let report = audit(&ns).await;
    let f = the(&report, &ns, "long-field-names");
    let renames: Vec<(String, String)> = f["suggestion"]["effect"]["renames"]
        .as_object()
        .expect("renames")
        .iter()
        .map(|(o, n)| (o.clone(), n.as_str().expect("new name").to_owned()))
        .collect();
    assert!(!renames.is_empty(), "{f}");
    // A document written after the audit with both names: left alone.
    let (old, new) = &renames[0];
    c.database(&db)
        .collection::<Document>("verbose")
        .insert_one(doc! {"_id": 50, old.clone(): "old value", new.clone(): "new value"})
        .await
        .expect("insert");
    let (first, _) = prove(&db, f, "rename").await;
    assert!(
        first.contains(&format!("1 documents already have {new}")),
        "{first}"
    );
    for d in all(&c.database(&db).collection::<Document>("verbose")).await {
        if d.get_i32("_id").ok() == Some(50) {
            assert_eq!(d.get_str(old).ok(), Some("old value"), "{d}");
            assert_eq!(d.get_str(new).ok(), Some("new value"), "{d}");
            continue;
        }
        for (o, _) in &renames {
            assert!(!d.contains_key(o), "{o} renamed: {d}");
        }
    }
    c.database(&db)
        .collection::<Document>("verbose")
        .delete_one(doc! {"_id": 50})
        .await
        .expect("delete");
    let after = audit(&ns).await;
    assert!(findings(&after, &ns, "long-field-names").is_empty());
}

/// `large-reference-array`: each child records its parent and the arrays
/// go once every listed child points back; with a listed child missing,
/// the arrays stay and the script says why.
#[tokio::test(flavor = "current_thread")]
async fn ids_become_parent_references() {
    let c = client().await;
    for dangling in [false, true] {
        let db = unique_db(if dangling { "pat_ids_d" } else { "pat_ids" });
        let parts: Vec<Document> = (0..300u32)
            .map(|p| doc! {"_id": oid(NEWEST - 400 * DAY, 10_000 + p), "part": format!("P{p}")})
            .collect();
        let ids: Vec<Bson> = parts
            .iter()
            .map(|p| p.get("_id").cloned().expect("_id"))
            .collect();
        insert(&c, &db, "components", parts).await;
        let kits: Vec<Document> = (0..7u32)
            .map(|k| {
                let id = oid(NEWEST - 300 * DAY, 20_000 + k);
                match k {
                    4 => doc! {"_id": id, "name": "empty kit", "component_ids": []},
                    5 => doc! {"_id": id, "name": "no list"},
                    6 => doc! {"_id": id, "name": "unknown list", "component_ids": "N/A"},
                    _ => {
                        let mut list =
                            ids[(k as usize * 70)..(k as usize * 70 + 60 + k as usize)].to_vec();
                        if dangling && k == 0 {
                            list.push(Bson::ObjectId(oid(NEWEST, 99_999)));
                        }
                        doc! {"_id": id, "name": format!("kit {k}"), "component_ids": list}
                    }
                }
            })
            .collect();
        insert(&c, &db, "kits", kits).await;
        let report = audit(&format!("{db}.*")).await;
        let ns = format!("{db}.kits");
        let f = the(&report, &ns, "large-reference-array");
        let (first, _) = prove(&db, f, "ids_to_parent").await;
        assert!(
            first.contains("1 documents hold a component_ids that is not an array"),
            "{first}"
        );
        let odd = c
            .database(&db)
            .collection::<Document>("kits")
            .count_documents(doc! {"component_ids": "N/A"})
            .await
            .expect("count");
        assert_eq!(odd, 1, "a value that is not an array stays");
        let kits = all(&c.database(&db).collection::<Document>("kits")).await;
        let comps = all(&c.database(&db).collection::<Document>("components")).await;
        let pointing = comps.iter().filter(|x| x.contains_key("kit_id")).count();
        assert_eq!(
            pointing,
            60 + 61 + 62 + 63,
            "every listed child points back"
        );
        for k in &kits {
            if let Ok(list) = k.get_array("component_ids") {
                for id in list {
                    let child = comps.iter().find(|x| x.get("_id") == Some(id));
                    if let Some(child) = child {
                        assert_eq!(child.get("kit_id"), k.get("_id"), "{child}");
                    }
                }
            }
        }
        let after = audit(&format!("{db}.*")).await;
        if dangling {
            assert!(
                first.contains("1 keep it: some children it lists do not exist in components"),
                "{first}"
            );
            let kept: Vec<&Document> = kits
                .iter()
                .filter(|k| k.get_array("component_ids").is_ok())
                .collect();
            assert_eq!(
                kept.len(),
                1,
                "only the kit listing a missing child: {kept:?}"
            );
            assert_eq!(
                findings(&after, &ns, "large-reference-array").len(),
                1,
                "the arrays stay until the missing child is resolved"
            );
        } else {
            assert!(
                kits.iter().all(|k| k.get_array("component_ids").is_err()),
                "{kits:?}"
            );
            assert!(findings(&after, &ns, "large-reference-array").is_empty());
            assert!(findings(
                &after,
                &format!("{db}.components"),
                "missing-reference-index"
            )
            .is_empty());
        }
    }
}

/// `large-reference-array` where a child is listed by two parents: that is
/// many-to-many, and the script stops before changing anything.
#[tokio::test(flavor = "current_thread")]
async fn ids_shared_by_two_parents_change_nothing() {
    let c = client().await;
    let db = unique_db("pat_ids_m2m");
    let parts: Vec<Document> = (0..120u32)
        .map(|p| doc! {"_id": oid(NEWEST - 400 * DAY, 10_000 + p), "part": format!("P{p}")})
        .collect();
    let ids: Vec<Bson> = parts
        .iter()
        .map(|p| p.get("_id").cloned().expect("_id"))
        .collect();
    insert(&c, &db, "components", parts).await;
    let kits: Vec<Document> = (0..2u32)
        .map(|k| doc! {"_id": oid(NEWEST - 300 * DAY, 20_000 + k), "component_ids": ids[(k as usize * 50)..(k as usize * 50 + 70)].to_vec()})
        .collect();
    insert(&c, &db, "kits", kits).await;
    let report = audit(&format!("{db}.*")).await;
    let f = the(&report, &format!("{db}.kits"), "large-reference-array");
    let before = dump(&db).await;
    for _ in 0..2 {
        let (ok, out) = migrate::run_status(script(f), "ids_m2m");
        assert!(!ok, "the script stops with an error: {out}");
        assert!(out.contains("nothing was changed"), "{out}");
        assert_eq!(dump(&db).await, before, "nothing was changed");
    }
}

/// `denormalization-drift` against the source: stale copies take the
/// source's values; copies whose reference resolves to nothing, and fields
/// the source document lacks, are left as they are.
#[tokio::test(flavor = "current_thread")]
async fn refresh_copies_takes_the_source_values() {
    let c = client().await;
    let db = unique_db("pat_refresh");
    let people: Vec<Document> = (0..40)
        .map(|p| {
            let id = oid(NEWEST - 200 * DAY, 40_000 + p);
            match p {
                39 => doc! {"_id": id, "city": "Lyon"},
                _ if p % 4 == 0 => doc! {"_id": id, "name": format!("Renamed {p}"), "city": "Lyon"},
                _ => doc! {"_id": id, "name": format!("Person {p}"), "city": "Lyon"},
            }
        })
        .collect();
    let invoices: Vec<Document> = (0..121u32)
        .map(|i| {
            let p = i % 40;
            let id = if i == 120 {
                Bson::ObjectId(oid(NEWEST, 77_777))
            } else {
                people[p as usize].get("_id").cloned().expect("_id")
            };
            doc! {"_id": i, "amount": f64::from(i), "customer": {"id": id, "name": format!("Person {p}")}}
        })
        .collect();
    insert(&c, &db, "people", people.clone()).await;
    insert(&c, &db, "invoices", invoices).await;
    let report = audit(&format!("{db}.*")).await;
    let ns = format!("{db}.invoices");
    let f = the(&report, &ns, "denormalization-drift");
    assert_eq!(f["evidence"]["compared_with"], "source", "{f}");
    let (first, second) = run_twice(&db, script(f), "refresh_copies").await;
    for out in [first, second] {
        assert!(
            out.contains("1 documents hold copies whose reference matches no document"),
            "{out}"
        );
    }
    for inv in all(&c.database(&db).collection::<Document>("invoices")).await {
        let i = inv.get_i32("_id").expect("_id");
        let cust = inv.get_document("customer").expect("customer");
        let p = i % 40;
        let want = if i == 120 || p == 39 {
            format!("Person {p}")
        } else if p % 4 == 0 {
            format!("Renamed {p}")
        } else {
            format!("Person {p}")
        };
        assert_eq!(cust.get_str("name").ok(), Some(want.as_str()), "{inv}");
        assert!(cust.contains_key("id"));
        assert_eq!(inv.get_f64("amount").ok(), Some(f64::from(i)));
    }
    let after = audit(&format!("{db}.*")).await;
    assert!(findings(&after, &ns, "denormalization-drift").is_empty());
}

/// `denormalization-drift` on copies inside an array: each element takes
/// its own source's values, whatever its position.
#[tokio::test(flavor = "current_thread")]
async fn refresh_copies_in_array_elements() {
    let c = client().await;
    let db = unique_db("pat_refresh_arr");
    let products: Vec<Document> = (0..30)
        .map(|p| {
            let id = oid(NEWEST - 300 * DAY, 70_000 + p);
            match p {
                29 => doc! {"_id": id, "price": 1},
                _ if p % 3 == 0 => doc! {"_id": id, "name": format!("New name {p}"), "price": 1},
                _ => doc! {"_id": id, "name": format!("Product {p}"), "price": 1},
            }
        })
        .collect();
    let pid = |p: u32| products[p as usize].get("_id").cloned().expect("_id");
    let orders: Vec<Document> = (0..90u32)
        .map(|o| {
            let items: Vec<Document> = (0..3u32)
                .map(|k| {
                    let p = (o + k * 7) % 30;
                    let id = if o == 89 && k == 2 {
                        Bson::ObjectId(oid(NEWEST, 88_888))
                    } else {
                        pid(p)
                    };
                    doc! {"product_id": id, "name": format!("Product {p}"), "qty": k + 1}
                })
                .collect();
            doc! {"_id": o, "items": items}
        })
        .collect();
    insert(&c, &db, "products", products).await;
    insert(&c, &db, "orders", orders).await;
    let report = audit(&format!("{db}.*")).await;
    let ns = format!("{db}.orders");
    let f = the(&report, &ns, "denormalization-drift");
    assert_eq!(f["path"], "items[]", "{f}");
    let (first, _) = run_twice(&db, script(f), "refresh_array").await;
    assert!(
        first.contains("1 documents hold copies whose reference matches no document"),
        "{first}"
    );
    for o in all(&c.database(&db).collection::<Document>("orders")).await {
        let n = o.get_i32("_id").expect("_id");
        let items = o.get_array("items").expect("items");
        assert_eq!(items.len(), 3);
        for (k, it) in items.iter().enumerate() {
            let it = it.as_document().expect("element");
            let p = (n as u32 + k as u32 * 7) % 30;
            let dangling = n == 89 && k == 2;
            let want = if !dangling && p.is_multiple_of(3) && p != 29 {
                format!("New name {p}")
            } else {
                format!("Product {p}")
            };
            assert_eq!(it.get_str("name").ok(), Some(want.as_str()), "{o}");
            assert_eq!(it.get_i32("qty").ok(), Some(k as i32 + 1), "{o}");
        }
    }
    let after = audit(&format!("{db}.*")).await;
    assert!(findings(&after, &ns, "denormalization-drift").is_empty());
}

/// `denormalization-drift` between copies: fields the referenced
/// documents do not hold; the script lists the disagreeing references and
/// changes nothing, so the finding stays, as the summary says.
#[tokio::test(flavor = "current_thread")]
async fn copies_that_disagree_are_listed_not_changed() {
    let c = client().await;
    let db = unique_db("pat_copies");
    let people: Vec<Document> = (0..40)
        .map(|p| doc! {"_id": oid(NEWEST - 200 * DAY, 40_000 + p), "name": format!("Person {p}")})
        .collect();
    let invoices: Vec<Document> = (0..160u32)
        .map(|i| {
            let p = i % 40;
            // Three customers have one copy of their tier that differs.
            let tier = if p < 3 && i / 40 == 3 { "gold" } else { "silver" };
            doc! {"_id": i, "customer": {"id": people[p as usize].get("_id").cloned().expect("_id"), "name": format!("Person {p}"), "tier": tier}}
        })
        .collect();
    insert(&c, &db, "people", people).await;
    insert(&c, &db, "invoices", invoices).await;
    let report = audit(&format!("{db}.*")).await;
    let ns = format!("{db}.invoices");
    let f = findings(&report, &ns, "denormalization-drift")
        .into_iter()
        .find(|f| f["evidence"]["compared_with"] == "other-copies")
        .unwrap_or_else(|| panic!("{}", common::collection(&report, &ns)["findings"]));
    assert!(summary(f).contains("lists"), "{}", summary(f));
    let (first, second) = prove(&db, f, "copies_disagree").await;
    assert!(
        first.contains("3 values of customer.id have copies that disagree"),
        "{first}"
    );
    assert_eq!(first, second);
    let after = audit(&format!("{db}.*")).await;
    assert!(
        findings(&after, &ns, "denormalization-drift")
            .iter()
            .any(|f| f["evidence"]["compared_with"] == "other-copies"),
        "nothing was changed, so the copies still disagree"
    );
}

/// `too-many-collections`: collections of one shape are copied into one,
/// each document marked with the collection it came from and its original
/// `_id` kept; the finding stays until the old collections are dropped, as
/// the summary says, and goes once they are.
#[tokio::test(flavor = "current_thread")]
async fn merge_collections_copies_into_one() {
    let c = client().await;
    let db = unique_db("pat_merge");
    for k in 0..8 {
        let docs: Vec<Document> = (0..5)
            .map(|i| match i {
                3 => doc! {"_id": i, "n": "N/A"},
                4 => doc! {"_id": i},
                _ => doc! {"_id": i, "n": k * 10 + i},
            })
            .collect();
        insert(&c, &db, &format!("events_{k:03}"), docs).await;
    }
    let report = audit(&format!("{db}.*")).await;
    let f = report_findings(&report, "too-many-collections");
    assert_eq!(f.len(), 1, "{}", report["findings"]);
    let f = f[0];
    assert!(summary(f).contains("`events`"), "{}", summary(f));
    assert!(summary(f).contains("drop"), "{}", summary(f));
    prove(&db, f, "merge").await;
    let merged = all(&c.database(&db).collection::<Document>("events")).await;
    assert_eq!(merged.len(), 40);
    for m in &merged {
        let id = m.get_document("_id").expect("compound _id");
        let kind = m.get_str("kind").expect("kind");
        assert_eq!(id.get_str("source").ok(), Some(kind));
        let number: i32 = kind["events_".len()..].parse().expect("number");
        let i = id.get_i32("id").expect("original _id");
        let orig = all(&c.database(&db).collection::<Document>(kind)).await;
        let o = orig
            .iter()
            .find(|o| o.get_i32("_id").ok() == Some(i))
            .expect("original");
        assert_eq!(o.get("n"), m.get("n"), "{m}");
        if i < 3 {
            assert_eq!(m.get_i32("n").ok(), Some(number * 10 + i));
        }
    }
    let after = audit(&format!("{db}.*")).await;
    assert_eq!(
        report_findings(&after, "too-many-collections").len(),
        1,
        "the old collections are still there"
    );
    for k in 0..8 {
        c.database(&db)
            .collection::<Document>(&format!("events_{k:03}"))
            .drop()
            .await
            .expect("drop");
    }
    let after = audit(&format!("{db}.*")).await;
    assert!(report_findings(&after, "too-many-collections").is_empty());

    // A collection whose documents already use `kind`: nothing is merged,
    // and the script says why.
    let db = unique_db("pat_merge_kind");
    for k in 0..8 {
        let mut d = doc! {"_id": 1, "n": k};
        if k == 5 {
            d.insert("kind", "customer's own");
        }
        insert(&c, &db, &format!("events_{k:03}"), vec![d]).await;
    }
    let report = audit(&format!("{db}.*")).await;
    let f = report_findings(&report, "too-many-collections");
    let before = dump(&db).await;
    let (first, _) = run_twice(&db, script(f[0]), "merge_kind").await;
    assert!(
        first.contains("events_005 already use the field kind"),
        "{first}"
    );
    assert_eq!(dump(&db).await, before, "nothing merged");
}

/// `missing-reference-index`: the index is created; a second run finds it.
#[tokio::test(flavor = "current_thread")]
async fn index_is_created_once() {
    let c = client().await;
    let db = unique_db("pat_index");
    let hosts: Vec<Document> = (0..10u32)
        .map(|h| doc! {"_id": oid(NEWEST - 100 * DAY, 50_000 + h), "name": format!("h{h}")})
        .collect();
    let logs: Vec<Document> = (0..300u32)
        .map(|l| match l {
            0 => doc! {"_id": oid(NEWEST - l, 60_000 + l), "host_id": Bson::Null, "msg": ""},
            1 => doc! {"_id": oid(NEWEST - l, 60_000 + l), "msg": "N/A"},
            _ => doc! {"_id": oid(NEWEST - l, 60_000 + l), "host_id": hosts[(l % 10) as usize].get("_id").cloned().expect("_id"), "msg": "cpu is on fire"},
        })
        .collect();
    insert(&c, &db, "hosts", hosts).await;
    insert(&c, &db, "logs", logs).await;
    let report = audit(&format!("{db}.*")).await;
    let ns = format!("{db}.logs");
    let f = the(&report, &ns, "missing-reference-index");
    prove(&db, f, "index").await;
    let names = c
        .database(&db)
        .collection::<Document>("logs")
        .list_index_names()
        .await
        .expect("indexes");
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("host_id")), "{names:?}");
    let after = audit(&format!("{db}.*")).await;
    assert!(findings(&after, &ns, "missing-reference-index").is_empty());
}

fn indexed_docs() -> Vec<Document> {
    (0..50)
        .map(|i| {
            let mut d = doc! {"_id": i, "a": i, "b": i % 3, "c": i};
            for k in 0..6 {
                d.insert(format!("f{k}"), i + k);
            }
            d
        })
        .collect()
}

async fn plant_indexes(c: &mongodb::Client, db: &str) -> mongodb::Collection<Document> {
    insert(c, db, "indexed", indexed_docs()).await;
    let coll = c.database(db).collection::<Document>("indexed");
    let mut keys = vec![
        doc! {"a": 1},
        doc! {"a": 1, "b": 1},
        doc! {"no_such_field": 1},
    ];
    for k in 0..6 {
        keys.push(doc! {format!("f{k}"): 1});
    }
    for k in keys {
        coll.create_index(IndexModel::builder().keys(k).build())
            .await
            .expect("index");
    }
    // A unique prefix is a constraint, not a redundancy: never suggested.
    for (k, unique) in [(doc! {"c": 1}, true), (doc! {"c": 1, "b": 1}, false)] {
        coll.create_index(
            IndexModel::builder()
                .keys(k)
                .options(IndexOptions::builder().unique(unique).build())
                .build(),
        )
        .await
        .expect("index");
    }
    coll
}

/// `redundant-index`, `unused-index` and `too-many-indexes`: the prefix
/// index and the index on an absent field are dropped, nothing else; the
/// index review changes nothing; a new audit sees neither dropped index,
/// and still too many indexes (the review only lists them).
#[tokio::test(flavor = "current_thread")]
async fn drop_index_drops_only_what_it_names() {
    let c = client().await;
    let db = unique_db("pat_drop");
    let coll = plant_indexes(&c, &db).await;
    let ns = format!("{db}.indexed");
    let report = audit(&ns).await;
    assert!(
        findings(&report, &ns, "redundant-index")
            .iter()
            .all(|f| f["evidence"]["index"]["name"] != "c_1"),
        "a unique prefix is never redundant"
    );
    let red = the(&report, &ns, "redundant-index");
    let unused = the(&report, &ns, "unused-index");
    let many = the(&report, &ns, "too-many-indexes");
    let before = coll.list_index_names().await.expect("indexes");
    prove(&db, red, "drop_redundant").await;
    prove(&db, unused, "drop_unused").await;
    assert_eq!(many["suggestion"]["pattern"], "index", "{many}");
    assert!(
        summary(many).contains("read-only") && summary(many).contains("only lists"),
        "the summary says the review drops nothing: {}",
        summary(many)
    );
    let (first, _) = prove(&db, many, "index_review").await;
    assert!(
        first.contains("a_1_b_1"),
        "the review lists the indexes: {first}"
    );
    let now = coll.list_index_names().await.expect("indexes");
    let gone: Vec<&String> = before.iter().filter(|n| !now.contains(n)).collect();
    assert_eq!(gone, ["a_1", "no_such_field_1"], "{now:?}");
    let after = audit(&ns).await;
    assert!(findings(&after, &ns, "redundant-index").is_empty());
    assert!(findings(&after, &ns, "unused-index").is_empty());
    assert_eq!(
        findings(&after, &ns, "too-many-indexes").len(),
        1,
        "the review drops nothing"
    );
}

/// `too-many-indexes` on one index per key of an embedded object: the
/// attribute pattern. The object becomes `{k, v}` pairs with one index on
/// them; the per-key indexes are listed, not dropped (the application's
/// queries must change first).
#[tokio::test(flavor = "current_thread")]
async fn per_key_indexes_become_one_attribute_index() {
    let c = client().await;
    let db = unique_db("pat_attr_idx");
    let docs: Vec<Document> = (0..40)
        .map(|i| match i {
            38 => doc! {"_id": i, "name": "no specs"},
            39 => doc! {"_id": i, "name": "null specs", "specs": Bson::Null},
            _ => doc! {"_id": i, "name": format!("p{i}"), "specs": {"color": (if i % 2 == 0 { "red" } else { "blue" }), "size": i, "weight": f64::from(i) / 2.0, "grade": i % 3}},
        })
        .collect();
    insert(&c, &db, "products", docs).await;
    let coll = c.database(&db).collection::<Document>("products");
    for k in [
        "specs.color",
        "specs.size",
        "specs.weight",
        "specs.grade",
        "name",
    ] {
        coll.create_index(IndexModel::builder().keys(doc! {k: 1}).build())
            .await
            .expect("index");
    }
    let ns = format!("{db}.products");
    let report = audit(&ns).await;
    let many = the(&report, &ns, "too-many-indexes");
    assert_eq!(many["suggestion"]["pattern"], "attribute", "{many}");
    assert!(summary(many).contains("specs.color_1"), "{}", summary(many));
    prove(&db, many, "attribute_indexes").await;
    for d in all(&coll).await {
        match d.get("specs") {
            Some(Bson::Array(pairs)) => {
                let keys: Vec<&str> = pairs
                    .iter()
                    .filter_map(|p| p.as_document()?.get_str("k").ok())
                    .collect();
                assert_eq!(keys, ["color", "size", "weight", "grade"], "{d}");
            }
            None | Some(Bson::Null) => {}
            other => panic!("specs left as {other:?} in {d}"),
        }
    }
    let names = coll.list_index_names().await.expect("indexes");
    assert!(
        names.contains(&"specs.k_1_specs.v_1".to_owned()),
        "{names:?}"
    );
    assert!(
        names.contains(&"specs.color_1".to_owned()),
        "the per-key indexes are listed, not dropped: {names:?}"
    );
}

/// The drop scripts check again when they run: the covering index must
/// still exist, and the absent field must still be absent.
#[tokio::test(flavor = "current_thread")]
async fn drop_index_keeps_an_index_that_became_needed() {
    let c = client().await;
    let db = unique_db("pat_keep");
    let coll = plant_indexes(&c, &db).await;
    let ns = format!("{db}.indexed");
    let report = audit(&ns).await;
    let red = the(&report, &ns, "redundant-index");
    let unused = the(&report, &ns, "unused-index");
    // Since the audit: the covering index went, and a document has the field.
    coll.drop_index("a_1_b_1").await.expect("drop");
    coll.insert_one(doc! {"_id": 99, "no_such_field": "now here"})
        .await
        .expect("insert");
    let (first, _) = prove(&db, red, "keep_redundant").await;
    assert!(first.contains("a_1_b_1"), "{first}");
    let (first, _) = prove(&db, unused, "keep_unused").await;
    assert!(first.contains("no_such_field"), "{first}");
    let now = coll.list_index_names().await.expect("indexes");
    assert!(now.iter().any(|n| n == "a_1"), "{now:?}");
    assert!(now.iter().any(|n| n == "no_such_field_1"), "{now:?}");
}
