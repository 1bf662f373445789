//! `sibling-collections`: a few collections of one database (2–9, below
//! `collection-per-tenant`'s family) that hold one shape under names that
//! are a vocabulary of types — `adventures`, `attractions`, `cuisines`,
//! `events`, written by one `switch (type)` — or twins holding the same
//! kind of documents (`aichats`, `aiintegrations`). Each needs its own
//! indexes, a query across them one query per collection, and every
//! change of the shape the same change in each; one collection with a
//! type field (the polymorphic pattern) holds them all, with one index
//! (seed 002: one collection per kind of document).
//!
//! Shapes are compared as `collection-per-tenant` compares them (the
//! Jaccard similarity of their path sets). What keeps apart collections
//! that merely look alike:
//! - shared fields: at least `min-shared-fields` paths in common beyond
//!   identity and bookkeeping (`_id`, `__v`, creation and update times):
//!   small lookup tables that happen to share `{_id, name}` or `{_id,
//!   name, code}` are not one kind of document;
//! - documents: each member holds at least `min-documents`; a collection
//!   the application has barely written says little about what it keeps;
//! - names: each member's name has its own head word (`adventures`,
//!   `events`), and none is another's name with words added (`orders` and
//!   `orders_old`, `movies` and `embedded_movies`, `good_orders` and
//!   `bad_orders` name variants of one collection, not kinds);
//! - documents apart: siblings hold different documents; two that share
//!   more than `max-shared-ids` of their `_id`s are copies
//!   (`duplicate-collection`'s concern);
//! - collections of a `collection-per-tenant` family are that rule's.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::rules::collection_per_tenant::{families, jaccard};
use crate::rules::context::{CollectionSummary, TopField};
use crate::rules::{Crossed, DeploymentCtx, Evidence, Finding, Remedy, Severity, Thresholds};
use crate::i18n::Lang;
use crate::profile::ids::path_hash;
use crate::profile::raw::BsonType;
use crate::rules::declare::rule;
use crate::rules::registry::Check;

rule! {
    id: "sibling-collections",
    title: "A few collections of one shape, one per type",
    explanation: (
        "Collections that hold the same shape under the names of its types (adventures, attractions, events — usually written by one switch on the type) or as twins (chat logs in two collections) keep one kind of document in several places: each needs its own indexes, a query across the kinds is one query per collection merged by the application, and every change of the shape must be made in each. The seeds keep one kind of document in one collection and tell the kinds apart by a field (the polymorphic pattern): one collection with a type field, and one index — the type, then the field the queries filter on — serves every kind. A few collections cost little by themselves; this is advice for the next change of the schema, not an emergency.",
        "以类型名命名、结构相同的几个集合（adventures、attractions、events——通常由同一个按类型的 switch 写入），或保存同一类文档的一对孪生集合，把同一类文档放在了好几个地方：每个集合都要有自己的索引，跨类型查询要对每个集合各查一次再由应用合并，结构的每次改动也要在每个集合里重复一遍。种子材料主张同一类文档放在同一个集合中，用字段区分种类（多态模式）：一个带类型字段的集合，加一个索引——先是类型，再是查询过滤的字段——就能服务所有种类。几个集合本身代价不大；这是给下一次结构调整的建议，而不是紧急问题。",
    ),
    source: "seeds/002 (one collection per kind of document, polymorphic schemas), seeds/003 (polymorphic pattern)",
    check: Check::Deployment(check),
    needs: Everything,
    limits: {
        /// Jaccard similarity of field-path sets for two collections to hold one shape
        min_similarity: 0.9,
        /// paths all members share beyond _id, __v and creation and update times
        min_shared_fields: 4.0,
        /// documents each member holds at least
        min_documents: 5.0,
        /// most collections of one shape the rule groups (more are a family)
        max_collections: 9.0,
        /// share of either collection's _ids the other holds above which they are copies
        max_shared_ids: 0.05,
    },
}

/// Identity and bookkeeping every collection may carry: no evidence of
/// one kind of document.
fn bookkeeping(name: &str) -> bool {
    let folded: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    matches!(name, "_id" | "__v" | "_class" | "__t")
        || matches!(
            folded.as_str(),
            "createdat"
                | "updatedat"
                | "created"
                | "updated"
                | "modified"
                | "modifiedat"
                | "datecreated"
                | "datemodified"
                | "dateupdated"
                | "lastmodified"
                | "lastupdated"
                | "insertedat"
                | "creationdate"
                | "timestamp"
        )
}

/// A name cut into lower-case words: at separators, at a lower-to-upper
/// case change (`issueDetails`) and between letters and digits.
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev: Option<char> = None;
    for c in name.chars() {
        let cut = match prev {
            _ if !c.is_alphanumeric() => true,
            Some(p) => {
                (p.is_lowercase() && c.is_uppercase())
                    || (p.is_ascii_digit() != c.is_ascii_digit() && p.is_alphanumeric())
            }
            None => false,
        };
        if cut && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        if c.is_alphanumeric() {
            cur.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The word a name is about: its last word of letters, in the singular
/// (`chat_logs` → `log`, `orders_2024` → `order`).
fn head(w: &[String]) -> Option<String> {
    w.iter()
        .rev()
        .find(|x| x.chars().all(char::is_alphabetic))
        .map(|x| crate::i18n::singular(x))
}

/// Whether two names are two kinds rather than variants of one: their
/// head words differ, neither is the other with words added before or
/// after it, and past the words they both begin with (a prefix naming
/// their group: `bad_`, `app_`) they share no word (`bad_orders_backup`
/// and `good_orders` are both about orders).
fn kinds_apart(a: &str, b: &str) -> bool {
    let (wa, wb) = (words(a), words(b));
    let (Some(ha), Some(hb)) = (head(&wa), head(&wb)) else {
        return false;
    };
    let within = |short: &[String], long: &[String]| {
        short.len() < long.len() && (long.starts_with(short) || long.ends_with(short))
    };
    let lead = wa.iter().zip(&wb).take_while(|(x, y)| x == y).count();
    let rest = |w: &[String]| -> Vec<String> {
        w[lead..].iter().map(|x| crate::i18n::singular(x)).collect()
    };
    let (ra, rb) = (rest(&wa), rest(&wb));
    let shared_word = ra.iter().any(|x| rb.contains(x));
    ha != hb && !within(&wa, &wb) && !within(&wb, &wa) && !shared_word
}

/// Whether two collections hold (some of) the same documents: more than
/// `max` of either's `_id`s in the other, as far as their sketches tell
/// (ObjectIds and UUIDs shared count; other `_id`s only with the same
/// whole document, since `1, 2, 3 …` are in many collections by chance).
fn copies(a: &CollectionSummary<'_>, b: &CollectionSummary<'_>, max: f64) -> bool {
    let (shared, same) = a.ids.shared_with(b.ids);
    let held = if a.ids.ids_unique_by_kind() && b.ids.ids_unique_by_kind() {
        shared
    } else {
        same
    };
    let fewer = a.ids.entries.len().min(b.ids.entries.len()).max(1);
    held as f64 / fewer as f64 > max
}

/// A group of sibling collections of one database.
#[derive(Clone, Debug, PartialEq)]
pub struct Siblings {
    pub db: String,
    /// The members, by name.
    pub members: Vec<String>,
    pub documents: Vec<Option<u64>>,
    /// Top-level fields every member has (identity and bookkeeping aside),
    /// in the first member's order.
    pub shared: Vec<String>,
    /// Paths at any depth every member has, identity and bookkeeping aside.
    pub shared_paths: usize,
    /// The least Jaccard similarity between two members' shapes.
    pub similarity: f64,
    /// A field each member already holds with one string of its own
    /// (`category`: `Adventures`, `Events` …), with those values.
    pub discriminator: Option<(String, Vec<String>)>,
    /// The field to tell the kinds apart in one collection: the
    /// discriminator, else a name no member uses.
    pub type_field: String,
    /// A shared top-level reference (an ObjectId field other than `_id`):
    /// the second key of the one index.
    pub reference: Option<String>,
}

/// The sibling groups of `ctx`'s databases, in the listing's order.
pub fn siblings(ctx: &DeploymentCtx<'_>, t: &Thresholds) -> Vec<Siblings> {
    let l = &t.sibling_collections;
    let tenant = &t.collection_per_tenant;
    let in_family: Vec<(String, String)> = families(
        ctx,
        tenant.min_collections.max(2.0) as usize,
        tenant.min_similarity,
    )
    .into_iter()
    .flat_map(|f| {
        let db = f.db.clone();
        f.members.into_iter().map(move |(c, _)| (db.clone(), c))
    })
    .collect();
    let mut by_db: BTreeMap<&str, Vec<&CollectionSummary<'_>>> = BTreeMap::new();
    for s in &ctx.summaries {
        let documents = s.documents.unwrap_or(s.ids.read);
        let family = in_family.iter().any(|(d, c)| d == s.db && c == s.name);
        if !s.shape.is_empty() && documents as f64 >= l.min_documents && !family {
            by_db.entry(s.db).or_default().push(s);
        }
    }
    let mut out = Vec::new();
    for (db, colls) in by_db {
        let alike = |a: &CollectionSummary<'_>, b: &CollectionSummary<'_>| {
            jaccard(a.shape, b.shape) >= l.min_similarity
                && kinds_apart(a.name, b.name)
                && !copies(a, b, l.max_shared_ids)
        };
        let mut taken = vec![false; colls.len()];
        for i in 0..colls.len() {
            if taken[i] {
                continue;
            }
            let mut group = vec![i];
            for j in i + 1..colls.len() {
                if !taken[j] && group.iter().all(|&g| alike(colls[g], colls[j])) {
                    group.push(j);
                }
            }
            if group.len() < 2 {
                continue;
            }
            for &g in &group {
                taken[g] = true;
            }
            let members: Vec<&CollectionSummary<'_>> = group.iter().map(|&g| colls[g]).collect();
            if members.len() as f64 > l.max_collections {
                continue;
            }
            if let Some(s) = described(db, &members, l) {
                out.push(s);
            }
        }
    }
    out
}

/// The group as a finding describes it, when its members share enough
/// fields of their own.
fn described<'a>(db: &str, members: &[&CollectionSummary<'a>], l: &Limits) -> Option<Siblings> {
    let mut common: Vec<u64> = members[0].shape.to_vec();
    for m in &members[1..] {
        common.retain(|h| m.shape.binary_search(h).is_ok());
    }
    let first = members[0].top;
    let kept_out = first
        .iter()
        .filter(|f| bookkeeping(f.name) && common.binary_search(&path_hash(f.name)).is_ok())
        .count();
    let shared_paths = common.len().saturating_sub(kept_out);
    if (shared_paths as f64) < l.min_shared_fields {
        return None;
    }
    let everywhere = |name: &str| members.iter().all(|m| m.top.contains(name));
    let shared: Vec<String> = first
        .iter()
        .filter(|f| !bookkeeping(f.name) && everywhere(f.name))
        .map(|f| f.name.to_owned())
        .collect();
    let field = |m: &CollectionSummary<'a>, name: &str| -> Option<TopField<'a>> { m.top.get(name) };
    // A field holding one string per member, a different one in each.
    let discriminator = shared.iter().find_map(|name| {
        let values: Vec<String> = members
            .iter()
            .map(|m| field(m, name).and_then(|f| f.constant).map(str::to_owned))
            .collect::<Option<Vec<String>>>()?;
        let mut distinct = values.clone();
        distinct.sort();
        distinct.dedup();
        (distinct.len() == values.len()).then(|| (name.clone(), values))
    });
    let used = |name: &str| members.iter().any(|m| m.top.contains(name));
    let type_field = discriminator.as_ref().map_or_else(
        || {
            ["type", "kind", "docType", "itemType"]
                .iter()
                .find(|n| !used(n))
                .map_or_else(|| "docshape_type".to_owned(), |n| (*n).to_owned())
        },
        |(name, _)| name.clone(),
    );
    let reference = shared
        .iter()
        .find(|name| {
            members
                .iter()
                .all(|m| field(m, name).is_some_and(|f| f.main_type == Some(BsonType::ObjectId)))
        })
        .cloned();
    let similarity = members
        .iter()
        .enumerate()
        .flat_map(|(i, a)| members[i + 1..].iter().map(|b| jaccard(a.shape, b.shape)))
        .fold(1.0, f64::min);
    Some(Siblings {
        db: db.to_owned(),
        members: members.iter().map(|m| m.name.to_owned()).collect(),
        documents: members.iter().map(|m| m.documents).collect(),
        shared,
        shared_paths,
        similarity,
        discriminator,
        type_field,
        reference,
    })
}

pub fn check(ctx: &DeploymentCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    siblings(ctx, t)
        .into_iter()
        .map(|s| {
            let evidence = Split {
                collections: &s.members,
                documents: &s.documents,
                kind: if s.members.len() == 2 { "twins" } else { "types" },
                shared_fields: &s.shared,
                shared_paths: s.shared_paths,
                shape_similarity: s.similarity,
                discriminator: s
                    .discriminator
                    .as_ref()
                    .map(|(field, values)| Discriminator { field, values }),
                threshold: Crossed::of(t, Key::min_shared_fields),
                db: &s.db,
                type_field: &s.type_field,
            };
            let remedy = Remedy::Siblings {
                db: s.db.clone(),
                members: s.members.clone(),
                kinds: s.discriminator.as_ref().map_or_else(
                    || s.members.iter().map(|m| crate::i18n::singular(m)).collect(),
                    |(_, v)| v.clone(),
                ),
                shared: s.shared.clone(),
                type_field: s.type_field.clone(),
                recorded: s.discriminator.is_some(),
                reference: s.reference.clone(),
            };
            let ns = format!("{}.{}", s.db, s.members[0]);
            Finding::new(RULE, Severity::Info, &ns, None, &evidence, lang, remedy)
        })
        .collect()
}

/// What `sibling-collections` found of one group of collections.
#[derive(Serialize)]
struct Split<'a> {
    collections: &'a [String],
    documents: &'a [Option<u64>],
    /// `twins` (two members) or `types` (one collection per type).
    kind: &'static str,
    shared_fields: &'a [String],
    shared_paths: usize,
    shape_similarity: f64,
    /// The field each member already records its type in; null when none.
    discriminator: Option<Discriminator<'a>>,
    threshold: Crossed,
    #[serde(skip)]
    db: &'a str,
    /// The field to tell the kinds apart in one collection.
    #[serde(skip)]
    type_field: &'a str,
}

/// A field each member holds with one string of its own, and those values.
#[derive(Serialize)]
struct Discriminator<'a> {
    field: &'a str,
    values: &'a [String],
}

impl Evidence for Split<'_> {
    fn describe(&self, lang: Lang) -> String {
        let n = self.collections.len();
        let names = self.collections.join(", ");
        let what = match (self.kind, lang) {
            ("twins", Lang::En) => "twins holding the same kind of documents".to_owned(),
            ("twins", Lang::Zh) => "保存同一类文档的一对孪生集合".to_owned(),
            (_, Lang::En) => "one kind of document split by type, one collection per type".to_owned(),
            (_, Lang::Zh) => "同一类文档按类型拆开，每种类型一个集合".to_owned(),
        };
        let shown: Vec<&str> = self.shared_fields.iter().take(6).map(String::as_str).collect();
        let more = if self.shared_fields.len() > shown.len() { ", …" } else { "" };
        let already = self.discriminator.as_ref().map_or_else(String::new, |d| {
            let (f, v) = (d.field, d.values);
            lang.pick(
                format!("; each already records its type in {f} ({})", v.join(", ")),
                format!("；每个集合已经在 {f} 中记录了自己的类型（{}）", v.join("、")),
            )
        });
        let (db, paths, similarity, type_field) = (self.db, self.shared_paths, self.shape_similarity, self.type_field);
        lang.pick(
            format!("{n} collections of {db} hold one shape under names that differ by kind ({names}): {what}, sharing {paths} paths beyond _id and timestamps (fields {}{more}; similarity {similarity:.2}){already}; one collection with {type_field} telling them apart would need one set of indexes instead of {n}", shown.join(", ")),
            format!("{db} 中有 {n} 个集合结构相同、名字按类别区分（{names}）：{what}，除 _id 和时间戳外共有 {paths} 个路径（字段 {}{more}；相似度 {similarity:.2}）{already}；合并为一个集合并用 {type_field} 区分，只需一套索引而不是 {n} 套", shown.join("、")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::profile::ids::{shape_of, IdSketch, IdSketcher};
    use crate::rules::context::TopFields;
    use bson::{doc, oid::ObjectId};

    /// A collection as the deployment rules see it: its paths, its
    /// top-level fields (with a constant where given) and its documents'
    /// `_id`s.
    struct Coll {
        name: String,
        shape: Vec<u64>,
        top: TopFields,
        ids: IdSketch,
        documents: u64,
    }

    fn coll(name: &str, paths: &[&str], constant: Option<(&str, &str)>, ids: &[ObjectId]) -> Coll {
        let mut s = IdSketcher::new(4096);
        for id in ids {
            s.add(&bson::serialize_to_vec(&doc! {"_id": *id}).expect("bson"));
        }
        let top = TopFields::from_fields(
            paths
                .iter()
                .filter(|p| !p.contains('.') && !p.contains('['))
                .map(|p| TopField {
                    name: p,
                    main_type: Some(if p.ends_with("Id") {
                        BsonType::ObjectId
                    } else {
                        BsonType::String
                    }),
                    constant: constant.filter(|(f, _)| f == p).map(|(_, v)| v),
                }),
        );
        Coll {
            name: name.to_owned(),
            shape: shape_of(paths.iter().copied()),
            top,
            ids: s.finish(),
            documents: ids.len() as u64,
        }
    }

    fn fresh(n: usize) -> Vec<ObjectId> {
        (0..n).map(|_| ObjectId::new()).collect()
    }

    fn run(colls: &[Coll], t: &Thresholds) -> Vec<Finding> {
        run_in(colls, t, Lang::En)
    }

    fn run_in(colls: &[Coll], t: &Thresholds, lang: Lang) -> Vec<Finding> {
        let summaries: Vec<CollectionSummary<'_>> = colls
            .iter()
            .map(|c| CollectionSummary {
                db: "travel",
                name: &c.name,
                shape: &c.shape,
                ids: &c.ids,
                documents: Some(c.documents),
                complete: true,
                top: &c.top,
            })
            .collect();
        let ctx = DeploymentCtx {
            databases: vec![("travel", colls.iter().map(|c| c.name.as_str()).collect())],
            total: colls.len(),
            summaries,
        };
        check(&ctx, t, lang)
    }

    const ITEM: &[&str] = &[
        "_id",
        "name",
        "description",
        "city",
        "cityId",
        "images",
        "images[]",
        "category",
        "rating",
        "createdAt",
        "updatedAt",
        "__v",
    ];

    #[test]
    fn a_vocabulary_of_types_is_one_finding_naming_the_recorded_type() {
        let colls: Vec<Coll> = [
            ("adventures", "Adventures"),
            ("attractions", "Attractions"),
            ("cuisines", "Cuisines"),
            ("events", "Events"),
        ]
        .iter()
        .map(|(n, v)| coll(n, ITEM, Some(("category", v)), &fresh(8)))
        .chain([coll(
            "users",
            &["_id", "email", "password", "name", "role"],
            None,
            &fresh(9),
        )])
        .collect();
        let f = run(&colls, &Thresholds::default());
        assert_eq!(f.len(), 1, "{f:?}");
        let f = &f[0];
        assert_eq!(f.severity, Severity::Info);
        assert_eq!(f.namespace, "travel.adventures");
        assert_eq!(
            f.evidence["collections"],
            json!(["adventures", "attractions", "cuisines", "events"])
        );
        assert_eq!(f.evidence["kind"], json!("types"));
        // _id, __v and the two timestamps are not counted.
        assert_eq!(f.evidence["shared_paths"], json!(8));
        assert_eq!(f.evidence["discriminator"]["field"], json!("category"));
        assert!(f.message.contains("each already records its type in category (Adventures, Attractions, Cuisines, Events)"), "{}", f.message);
        assert!(
            matches!(&f.remedy, Remedy::Siblings { type_field, recorded: true, reference: Some(r), .. } if type_field == "category" && r == "cityId"),
            "{:?}",
            f.remedy
        );
    }

    #[test]
    fn twins_without_a_type_field_get_one_no_member_uses() {
        let chat = &[
            "_id",
            "userId",
            "query",
            "response",
            "responseStatus",
            "type",
            "createdAt",
        ];
        let colls = vec![
            coll("aichats", chat, None, &fresh(34)),
            coll("aiintegrations", chat, None, &fresh(50)),
        ];
        let f = run(&colls, &Thresholds::default());
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].evidence["kind"], json!("twins"));
        assert!(
            matches!(&f[0].remedy, Remedy::Siblings { type_field, recorded: false, .. } if type_field == "kind"),
            "{:?}",
            f[0].remedy
        );
        let zh = run_in(&colls, &Thresholds::default(), Lang::Zh);
        assert!(
            zh[0].message.contains("保存同一类文档的一对孪生集合"),
            "{}",
            zh[0].message
        );
        // Similarity just below the threshold: one field apart of 7 and 8
        // paths is 7/8.
        let mut chat2 = chat.to_vec();
        chat2.push("model");
        let apart = vec![
            coll("aichats", chat, None, &fresh(34)),
            coll("aiintegrations", &chat2, None, &fresh(50)),
        ];
        assert!(run(&apart, &Thresholds::default()).is_empty());
        let mut loose = Thresholds::default();
        loose.sibling_collections.min_similarity = 7.0 / 8.0;
        assert_eq!(run(&apart, &loose).len(), 1);
    }

    #[test]
    fn lookup_tables_copies_variants_and_small_collections_are_not_siblings() {
        let t = Thresholds::default();
        // {_id, name, code}: lookup tables share no fields of their own.
        let tables = vec![
            coll(
                "countries",
                &["_id", "name", "code", "__v"],
                None,
                &fresh(20),
            ),
            coll(
                "languages",
                &["_id", "name", "code", "__v"],
                None,
                &fresh(20),
            ),
        ];
        assert!(run(&tables, &t).is_empty());
        // One more shared field of their own and they would be.
        let mut lower = t.clone();
        lower.sibling_collections.min_shared_fields = 2.0;
        assert_eq!(run(&tables, &lower).len(), 1);
        // Variants of one name.
        for (a, b) in [
            ("orders", "orders_old"),
            ("movies", "embedded_movies"),
            ("good_orders", "bad_orders"),
            ("orders_2023", "orders_2024"),
            ("accesstokens", "oauth_accesstokens"),
            ("bad_orders_backup", "good_orders"),
        ] {
            let colls = vec![
                coll(a, ITEM, None, &fresh(8)),
                coll(b, ITEM, None, &fresh(8)),
            ];
            assert!(run(&colls, &t).is_empty(), "{a} / {b}");
        }
        // Copies: half of one's documents in the other.
        let ids = fresh(10);
        let mut other = ids[..5].to_vec();
        other.extend(fresh(5));
        let colls = vec![
            coll("issueDetails", ITEM, None, &ids),
            coll("operations", ITEM, None, &other),
        ];
        assert!(run(&colls, &t).is_empty());
        // A collection of 4 documents.
        let colls = vec![
            coll("adventures", ITEM, None, &fresh(4)),
            coll("events", ITEM, None, &fresh(8)),
        ];
        assert!(run(&colls, &t).is_empty());
        // Different shapes.
        let colls = vec![
            coll("adventures", ITEM, None, &fresh(8)),
            coll(
                "events",
                &["_id", "title", "startsAt", "venue", "price", "seats"],
                None,
                &fresh(8),
            ),
        ];
        assert!(run(&colls, &t).is_empty());
    }

    #[test]
    fn ten_of_one_shape_are_too_many_for_siblings() {
        let names = [
            "apples", "bananas", "cherries", "dates", "figs", "grapes", "kiwis", "lemons",
            "mangos", "pears",
        ];
        let colls: Vec<Coll> = names
            .iter()
            .map(|n| coll(n, ITEM, None, &fresh(6)))
            .collect();
        assert!(run(&colls, &Thresholds::default()).is_empty());
        assert_eq!(run(&colls[..9], &Thresholds::default()).len(), 1);
    }

    #[test]
    fn names_are_cut_into_words_and_heads() {
        assert_eq!(words("issueDetails"), ["issue", "details"]);
        assert_eq!(words("orders_2024"), ["orders", "2024"]);
        assert_eq!(words("bad_sensor-003"), ["bad", "sensor", "003"]);
        assert_eq!(head(&words("chat_logs")).as_deref(), Some("log"));
        assert!(kinds_apart("adventures", "attractions"));
        assert!(kinds_apart("aichats", "aiintegrations"));
        assert!(!kinds_apart("event", "events"));
        assert!(!kinds_apart("users_v1", "users_v2"));
        // A group's prefix is not a shared word; a word past it is.
        assert!(kinds_apart("bad_adventures", "bad_events"));
        assert!(!kinds_apart("bad_orders_backup", "good_orders"));
        assert!(!kinds_apart("user_settings", "settings_history"));
        assert!(bookkeeping("created_at") && bookkeeping("updatedAt") && !bookkeeping("name"));
    }
}
