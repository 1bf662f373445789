//! The teaching data sets: one per scenario of the seeds, each with a good
//! and a bad variant side by side (`good_…` and `bad_…` collections).
//!
//! Everything here is deterministic. Small collections are also committed
//! as Extended JSON under `sample-data/<dataset>/` (a test checks the files
//! match this code); large or numerous documents come from a collection's
//! [`Collection::generated`] part and are written only by `docshape seed`.

use std::fmt::Write as _;

use bson::{doc, Bson, Document};

use super::gen::{blob, blob_bytes, date, email, person, street, Ids, Rng, CITIES, DAY, HOUR, NOW};

/// Documents produced at seed time, in insertion order.
pub type Generator = Box<dyn FnOnce() -> Box<dyn Iterator<Item = Document>>>;

/// An index to create (and to list in `COLL.metadata.json`).
#[derive(Clone, Debug)]
pub struct Index {
    pub keys: Document,
    pub unique: bool,
    /// A TTL index: seconds after the date it keys on that a document is
    /// deleted.
    pub expire_after_seconds: Option<u32>,
}

impl Index {
    pub fn on(keys: Document) -> Index {
        Index {
            keys,
            unique: false,
            expire_after_seconds: None,
        }
    }

    /// The name the server would give it: `a_1_b_-1`.
    pub fn name(&self) -> String {
        self.keys
            .iter()
            .map(|(k, v)| format!("{k}_{}", v.as_i32().unwrap_or(1)))
            .collect::<Vec<_>>()
            .join("_")
    }
}

pub struct Collection {
    pub name: String,
    /// The committed documents (also in `sample-data/`).
    pub docs: Vec<Document>,
    pub indexes: Vec<Index>,
    /// Documents generated at seed time, inserted after `docs`.
    pub generated: Option<Generator>,
    /// What the generator adds, for the README and progress.
    pub generated_note: &'static str,
}

impl Collection {
    fn new(name: &str, docs: Vec<Document>) -> Collection {
        Collection {
            name: name.to_owned(),
            docs,
            indexes: Vec::new(),
            generated: None,
            generated_note: "",
        }
    }

    fn index(mut self, keys: Document) -> Collection {
        self.indexes.push(Index::on(keys));
        self
    }

    fn unique(mut self, keys: Document) -> Collection {
        self.indexes.push(Index {
            unique: true,
            ..Index::on(keys)
        });
        self
    }

    /// A TTL index on `keys`: a document goes `secs` after its date.
    fn ttl(mut self, keys: Document, secs: u32) -> Collection {
        self.indexes.push(Index {
            expire_after_seconds: Some(secs),
            ..Index::on(keys)
        });
        self
    }

    fn generate(
        mut self,
        note: &'static str,
        g: impl FnOnce() -> Box<dyn Iterator<Item = Document>> + 'static,
    ) -> Collection {
        self.generated = Some(Box::new(g));
        self.generated_note = note;
        self
    }
}

pub struct Dataset {
    pub name: &'static str,
    /// One line: the scenario.
    pub title: &'static str,
    /// Which seed texts it comes from.
    pub seeds: &'static str,
    /// Rules the bad variant must make fire.
    pub bad_fires: &'static [&'static str],
    pub collections: Vec<Collection>,
}

/// Every data set's name, in the order they are seeded.
pub const NAMES: [&str; 22] = [
    "one_to_few",
    "one_to_many",
    "one_to_squillions",
    "two_way",
    "denormalization",
    "contacts",
    "polymorphic",
    "schema_evolution",
    "time_series",
    "sensor_collections",
    "page_stats",
    "computed",
    "extended_reference",
    "blog",
    "tree",
    "indexes",
    "integrity",
    "two_way_sync",
    "sibling_collections",
    "login_history",
    "expiring_tokens",
    "numeric_text",
];

/// Builds one data set by name (committed documents now, generators lazily).
pub(crate) fn build(name: &str) -> Option<Dataset> {
    let n = NAMES.iter().position(|x| *x == name)? as u8;
    Some(match name {
        "one_to_few" => one_to_few(n),
        "one_to_many" => one_to_many(n),
        "one_to_squillions" => one_to_squillions(n),
        "two_way" => two_way(n),
        "denormalization" => denormalization(n),
        "contacts" => contacts(n),
        "polymorphic" => polymorphic(n),
        "schema_evolution" => schema_evolution(n),
        "time_series" => time_series(n),
        "sensor_collections" => sensor_collections(n),
        "page_stats" => page_stats(n),
        "computed" => computed(n),
        "extended_reference" => extended_reference(n),
        "blog" => blog(n),
        "tree" => tree(n),
        "indexes" => indexes(n),
        "two_way_sync" => two_way_sync(n),
        "sibling_collections" => sibling_collections(n),
        "login_history" => login_history(n),
        "expiring_tokens" => expiring_tokens(n),
        "numeric_text" => numeric_text(n),
        _ => integrity(n),
    })
}

pub fn all() -> Vec<Dataset> {
    NAMES.iter().filter_map(|n| build(n)).collect()
}

fn id_of(d: &Document) -> Bson {
    d.get("_id").cloned().unwrap_or(Bson::Null)
}

/// 000/004 one-to-few: a person's addresses.
fn one_to_few(n: u8) -> Dataset {
    let mut rng = Rng::new(1);
    let (mut good_ids, mut bad_ids) = (Ids::new(n, 1), Ids::new(n, 2));
    let mut good = Vec::new();
    let mut bad = Vec::new();
    let mut bad_addresses = Vec::new();
    for i in 0..30u32 {
        let k = 1 + (i * 7) % 3;
        let addresses: Vec<Document> = (0..k)
            .map(|a| {
                doc! {"kind": (["home", "work", "holiday"][a as usize]), "street": street(&mut rng),
                "city": *rng.pick(&CITIES), "country": "CN"}
            })
            .collect();
        let days = 400 - i * 11;
        good.push(doc! {"_id": good_ids.days_ago(days), "name": person(i), "email": email(i, "mail"), "phone": format!("+86 10 6552 {:04}", 3000 + i * 41), "addresses": addresses.clone()});
        let pid = bad_ids.days_ago(days);
        bad.push(doc! {"_id": pid, "name": person(i), "email": email(i, "mail"), "phone": format!("+86 10 6552 {:04}", 3000 + i * 41)});
        for a in addresses {
            let mut d = doc! {"_id": bad_ids.days_ago(days), "person_id": pid};
            d.extend(a);
            bad_addresses.push(d);
        }
    }
    Dataset {
        name: "one_to_few",
        title: "One-to-few: a person's few addresses, embedded (good) or in a collection of their own without an index on the reference (bad)",
        seeds: "000, 003, 004",
        bad_fires: &["missing-reference-index"],
        collections: vec![
            Collection::new("good_people", good),
            Collection::new("bad_people", bad),
            Collection::new("bad_addresses", bad_addresses),
        ],
    }
}

fn parts(ids: &mut Ids, rng: &mut Rng, count: u32, days: u32) -> Vec<Document> {
    const KINDS: [&str; 6] = ["bolt", "washer", "bracket", "spring", "gasket", "hinge"];
    (0..count)
        .map(|p| {
            doc! {"_id": ids.days_ago(days), "partno": format!("{}-{p:05}", (["AX", "BQ", "CT"][(p % 3) as usize])),
            "name": format!("{} {}", KINDS[(p % 6) as usize], 4 + p % 9), "qty": rng.range(1, 500) as i32,
            "cost": rng.money(0, 20), "price": rng.money(1, 40)}
        })
        .collect()
}

/// 000 one-to-many: products hold an array of their parts' ids.
fn one_to_many(n: u8) -> Dataset {
    let mut rng = Rng::new(2);
    let (mut g, mut b) = (Ids::new(n, 1), Ids::new(n, 2));
    let good_parts = parts(&mut g, &mut rng, 200, 500);
    let good_products: Vec<Document> = (0..20u32)
        .map(|i| {
            let k = rng.range(4, 16);
            let start = rng.range(0, 180);
            let ids: Vec<Bson> = (start..start + k)
                .map(|p| id_of(&good_parts[p as usize]))
                .collect();
            doc! {"_id": g.days_ago(300 - i * 5), "name": format!("left-handed smoke shifter {i}"),
            "manufacturer": "Acme Corp", "catalog_number": 1000 + i as i32, "part_ids": ids}
        })
        .collect();
    let bad_parts = parts(&mut b, &mut rng, 1600, 500);
    let bad_products: Vec<Document> = (0..3u32)
        .map(|i| {
            let k = 1200 + 200 * i;
            let ids: Vec<Bson> = (0..k).map(|p| id_of(&bad_parts[p as usize])).collect();
            doc! {"_id": b.days_ago(300 - i * 5), "name": format!("industrial press {i}"),
            "manufacturer": "Acme Corp", "catalog_number": 2000 + i as i32, "part_ids": ids}
        })
        .collect();
    Dataset {
        name: "one_to_many",
        title:
            "One-to-many: products with an array of part ids — a dozen (good) or 1,200–1,600 (bad)",
        seeds: "000, 004",
        bad_fires: &["large-reference-array"],
        collections: vec![
            Collection::new("good_parts", good_parts),
            Collection::new("good_products", good_products),
            Collection::new("bad_parts", bad_parts),
            Collection::new("bad_products", bad_products),
        ],
    }
}

const LOG_MESSAGES: [&str; 5] = [
    "cpu load above 90% for 5 minutes",
    "disk /var at 85%",
    "sshd: accepted publickey for deploy",
    "kernel: eth0 link up 1000Mbps",
    "cron: backup finished",
];

/// 000/004 one-to-squillions: hosts and their log messages.
fn one_to_squillions(n: u8) -> Dataset {
    let (mut g, mut b) = (Ids::new(n, 1), Ids::new(n, 2));
    let mut good_hosts = Vec::new();
    let mut good_logs = Vec::new();
    let mut bad_hosts = Vec::new();
    for h in 0..36u32 {
        let age = 12 * (36 - h);
        let name = format!("web{h:02}.example.net");
        let ip = format!("10.0.{}.{}", h / 16, 10 + h);
        let gid = g.days_ago(age);
        good_hosts.push(doc! {"_id": gid, "name": name.clone(), "ipaddr": ip.clone()});
        // Older hosts have logged more: 3 messages per 12 days of age.
        let count = 3 * (36 - h);
        let mut logs = Vec::new();
        for k in 0..count {
            let t = NOW - age * DAY + (k + 1) * (age * DAY / (count + 1));
            let msg = LOG_MESSAGES[((h + k) % 5) as usize];
            good_logs.push(doc! {"_id": g.at(t), "time": date(t), "message": msg, "host": gid});
            logs.push(doc! {"time": date(t), "message": msg});
        }
        bad_hosts.push(doc! {"_id": b.days_ago(age), "name": name, "ipaddr": ip, "logs": logs});
    }
    good_logs.sort_by_key(|d| d.get_object_id("_id").map(|o| o.timestamp()).ok());
    Dataset {
        name: "one_to_squillions",
        title: "One-to-squillions: log messages referencing their host (good) or embedded in the host, growing with its age (bad)",
        seeds: "000, 001, 004",
        bad_fires: &["unbounded-array"],
        collections: vec![
            Collection::new("good_hosts", good_hosts),
            Collection::new("good_logmsg", good_logs).index(doc! {"host": 1, "time": -1}),
            Collection::new("bad_hosts", bad_hosts),
        ],
    }
}

/// 000 two-way referencing: people ↔ tasks.
fn two_way(n: u8) -> Dataset {
    let mut rng = Rng::new(4);
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let mut people: Vec<Document> = (0..20u32)
            .map(|i| doc! {"_id": ids.days_ago(200 - i), "name": person(i), "team": (["ops", "web", "data"][(i % 3) as usize])})
            .collect();
        let mut task_ids: Vec<Vec<Bson>> = vec![Vec::new(); people.len()];
        let mut tasks = Vec::new();
        for t in 0..90u32 {
            let owner = rng.range(0, 19) as usize;
            let days = 90 - t;
            let id = ids.days_ago(days);
            task_ids[owner].push(Bson::ObjectId(id));
            tasks.push(doc! {"_id": id, "description": format!("rotate the certificates of service {t}"),
            "due_date": date(NOW + (t % 30) * DAY), "done": t % 4 == 0, "owner": id_of(&people[owner])});
        }
        for (p, ids) in people.iter_mut().zip(task_ids) {
            p.insert("task_ids", ids);
        }
        out.push(Collection::new(&format!("{prefix}_people"), people));
        let tasks = Collection::new(&format!("{prefix}_tasks"), tasks);
        out.push(if variant == 1 {
            tasks.index(doc! {"owner": 1})
        } else {
            tasks
        });
    }
    Dataset {
        name: "two_way",
        title: "Two-way referencing: people hold their task ids and tasks their owner; the owner is indexed (good) or not (bad)",
        seeds: "000, 003",
        bad_fires: &["missing-reference-index"],
        collections: out,
    }
}

/// 000 denormalization: part names copied into products (many → one) and
/// product names copied into parts (one → many); the bad copies went stale.
fn denormalization(n: u8) -> Dataset {
    let mut rng = Rng::new(5);
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let mut products = Vec::new();
        let mut parts = Vec::new();
        for p in 0..20u32 {
            let pid = ids.days_ago(300 - p);
            let pname = format!("smoke shifter model {p}");
            let mut copies = Vec::new();
            for k in 0..5u32 {
                let part_id = ids.days_ago(300 - p);
                let name = format!(
                    "{} {}",
                    (["bolt", "washer", "spring", "hinge", "gasket"][k as usize]),
                    4 + p % 7
                );
                copies.push(doc! {"id": part_id, "name": name.clone()});
                // Bad: a fifth of the parts were renamed after products copied their names.
                let source_name = if variant == 2 && (p * 5 + k) % 5 == 2 {
                    format!("{name} (rev B)")
                } else {
                    name
                };
                // Bad: every third product was renamed after its parts copied the name.
                let copied_pname = if variant == 2 && p % 3 == 0 {
                    format!("smoke shifter mk{p}")
                } else {
                    pname.clone()
                };
                parts.push(
                    doc! {"_id": part_id, "partno": format!("P-{p:03}-{k}"), "name": source_name,
                    "price": rng.money(1, 30), "product": {"id": pid, "name": copied_pname}},
                );
            }
            products.push(
                doc! {"_id": pid, "name": pname, "price": rng.money(50, 400), "parts": copies},
            );
        }
        out.push(Collection::new(&format!("{prefix}_products"), products));
        out.push(Collection::new(&format!("{prefix}_parts"), parts).index(doc! {"product.id": 1}));
    }
    Dataset {
        name: "denormalization",
        title: "Denormalization many→one and one→many: part names copied into products and product names into parts — kept in step (good) or gone stale (bad)",
        seeds: "000, 003",
        bad_fires: &["denormalization-drift"],
        collections: out,
    }
}

/// Sizes of the generated avatars (5–10 MB, 001).
pub const AVATAR_BYTES: [usize; 4] = [5_000_000, 6_500_000, 8_000_000, 9_500_000];
/// GridFS's default chunk size.
const CHUNK: usize = 255 * 1024;

/// 001: contacts with group data copied into each contact vs a groups
/// collection, and 5–10 MB avatars embedded vs referenced.
fn contacts(n: u8) -> Dataset {
    const GROUPS: [(&str, &str); 5] = [
        ("family", "the people I live with and their partners"),
        ("colleagues", "the platform team and the on-call rotation"),
        ("climbing", "Tuesday bouldering at the old gasworks"),
        ("suppliers", "hardware vendors and their account managers"),
        ("school", "class of 2010, Beijing No. 4 High School"),
    ];
    let mut g = Ids::new(n, 1);
    let mut b = Ids::new(n, 2);
    let good_groups: Vec<Document> = GROUPS
        .iter()
        .map(|(name, desc)| doc! {"_id": g.days_ago(900), "name": *name, "description": *desc, "owner": "me"})
        .collect();
    let mut bad_groups: Vec<Document> = GROUPS
        .iter()
        .map(|(name, desc)| doc! {"_id": b.days_ago(900), "name": *name, "description": *desc, "owner": "me"})
        .collect();
    // Avatar file ids are fixed now so committed contacts can point at them.
    let avatar_ids: Vec<bson::oid::ObjectId> = (0..AVATAR_BYTES.len() as u32)
        .map(|i| g.days_ago(120 - i))
        .collect();
    let mut good_contacts = Vec::new();
    let mut bad_contacts = Vec::new();
    for i in 0..44u32 {
        let grp = (i % 5) as usize;
        let days = 800 - i * 15;
        let mut d = doc! {"_id": g.days_ago(days), "name": person(i), "email": format!("{}@example.com", person(i).to_lowercase().replace(' ', ".")),
        "phone": format!("+86 10 5555 {:04}", 1000 + i * 37), "group_id": id_of(&good_groups[grp])};
        if i % 11 == 3 {
            d.insert("avatar_id", avatar_ids[(i / 11) as usize]);
        }
        good_contacts.push(d);
        if i < 40 {
            let gr = &bad_groups[grp];
            bad_contacts.push(doc! {"_id": b.days_ago(days), "name": person(i), "email": format!("c{i}@example.com"),
            "phone": format!("+86 10 5555 {:04}", 1000 + i * 37),
            "group": {"id": id_of(gr), "name": gr.get_str("name").unwrap_or_default(), "description": gr.get_str("description").unwrap_or_default(), "owner": "me"}});
        }
    }
    // Bad: two groups were edited after their data was copied into contacts;
    // the million-document update never finished.
    bad_groups[1].insert("name", "platform team");
    bad_groups[2].insert(
        "description",
        "Tuesday and Thursday bouldering at the old gasworks",
    );
    let bad_extra_ids: Vec<bson::oid::ObjectId> = (0..AVATAR_BYTES.len() as u32)
        .map(|i| b.days_ago(100 - i))
        .collect();
    let bad_extra_groups: Vec<Document> = bad_groups.clone();
    let files = avatar_ids.clone();
    Dataset {
        name: "contacts",
        title: "Contacts: group data copied into every contact vs a groups collection, and 5–10 MB avatars embedded vs stored in GridFS",
        seeds: "001",
        bad_fires: &["denormalization-drift", "bloated-document"],
        collections: vec![
            Collection::new("good_groups", good_groups),
            Collection::new("good_contacts", good_contacts)
                .index(doc! {"group_id": 1})
                .index(doc! {"avatar_id": 1}),
            Collection::new("good_avatars.files", Vec::new())
                .index(doc! {"filename": 1, "uploadDate": 1})
                .generate("4 GridFS files of 5–9.5 MB (one per avatar)", move || {
                    Box::new(files.into_iter().zip(AVATAR_BYTES).enumerate().map(|(i, (id, len))| {
                        doc! {"_id": id, "length": len as i64, "chunkSize": CHUNK as i32,
                        "uploadDate": date(NOW - (120 - i as u32) * DAY), "filename": format!("avatar-{i}.png"),
                        "metadata": {"contentType": "image/png"}}
                    }))
                }),
            Collection::new("good_avatars.chunks", Vec::new())
                .unique(doc! {"files_id": 1, "n": 1})
                .generate("the avatars' 255 KiB chunks", move || {
                    let mut ids = Ids::new(n, 3);
                    Box::new(avatar_ids.into_iter().zip(AVATAR_BYTES).enumerate().flat_map(move |(i, (fid, len))| {
                        let bytes = blob_bytes(len, i as u8);
                        let chunks: Vec<Document> = bytes
                            .chunks(CHUNK)
                            .enumerate()
                            .map(|(k, c)| doc! {"_id": ids.days_ago(120 - i as u32), "files_id": fid, "n": k as i32,
                            "data": bson::Binary {subtype: bson::spec::BinarySubtype::Generic, bytes: c.to_vec()}})
                            .collect();
                        chunks
                    }))
                }),
            Collection::new("bad_groups", bad_groups),
            Collection::new("bad_contacts", bad_contacts)
                .index(doc! {"group.id": 1})
                .generate("4 more contacts, each with a 5–9.5 MB avatar embedded", move || {
                    Box::new(bad_extra_ids.into_iter().zip(AVATAR_BYTES).enumerate().map(move |(k, (id, len))| {
                        let i = 40 + k as u32;
                        let gr = &bad_extra_groups[k % 5];
                        doc! {"_id": id, "name": person(i), "email": format!("c{i}@example.com"),
                        "phone": format!("+86 10 5555 {:04}", 1000 + i * 37),
                        "group": {"id": id_of(gr), "name": gr.get_str("name").unwrap_or_default(), "description": gr.get_str("description").unwrap_or_default(), "owner": "me"},
                        "avatar": blob(len, k as u8)}
                    }))
                }),
        ],
    }
}

/// 002/003 polymorphic: books, lamps and shirts in one collection.
fn polymorphic(n: u8) -> Dataset {
    let mut rng = Rng::new(7);
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let docs: Vec<Document> = (0..60u32)
            .map(|i| {
                let id = ids.days_ago(200 - i);
                let price = 5.0 + f64::from(i) * 1.25;
                let (kind, mut d) = match i % 3 {
                    0 => ("book", doc! {"_id": id, "name": format!("Data Modeling vol. {i}"), "price": price,
                        "author": person(i), "pages": 120 + rng.range(0, 400) as i32, "isbn": format!("978-7-{:05}-{}", 10_000 + i * 7, i % 10)}),
                    1 => ("lamp", doc! {"_id": id, "name": format!("desk lamp {i}"), "price": price,
                        "watts": rng.range(5, 60) as i32, "voltage": 220, "socket": "E27"}),
                    _ => ("shirt", doc! {"_id": id, "name": format!("linen shirt {i}"), "price": price,
                        "size": (["S", "M", "L", "XL"][(i % 4) as usize]), "color": (["white", "blue", "sand"][(i % 3) as usize]), "fabric": "linen"}),
                };
                if variant == 1 {
                    d.insert("type", kind);
                }
                d
            })
            .collect();
        out.push(Collection::new(&format!("{prefix}_products"), docs));
    }
    Dataset {
        name: "polymorphic",
        title: "Polymorphic products (books, lamps, shirts) in one collection, with a `type` field (good) or without (bad)",
        seeds: "002, 003",
        bad_fires: &["polymorphic-without-discriminator"],
        collections: out,
    }
}

/// 002 schema evolution: old and new documents side by side.
fn schema_evolution(n: u8) -> Dataset {
    let mut g = Ids::new(n, 1);
    let mut b = Ids::new(n, 2);
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for i in 0..100u32 {
        let days = 700 - i * 7;
        let zip = format!("{}", 100_000 + i * 173);
        let phone = format!("+86 21 6{:07}", 1_000_000 + i * 7919);
        let v2 = i >= 70;
        // Good: each document says which version it has; paths keep one type.
        let mut d = doc! {"_id": g.days_ago(days), "schema_version": if v2 { 2 } else { 1 }, "name": person(i),
        "email": email(i, "users"), "zip": zip.clone()};
        if v2 {
            d.insert(
                "phones",
                vec![doc! {"kind": "mobile", "number": phone.clone()}],
            );
        } else {
            d.insert("phone", phone.clone());
        }
        good.push(d);
        // Bad: a new writer changed the types in place.
        let mut d = doc! {"_id": b.days_ago(days), "name": person(i), "email": email(i, "users")};
        if v2 {
            d.insert("zip", 100_000 + i as i32 * 173);
            d.insert("phone", doc! {"country": 86, "number": phone});
        } else {
            d.insert("zip", zip);
            d.insert("phone", phone);
        }
        bad.push(d);
    }
    Dataset {
        name: "schema_evolution",
        title: "Schema evolution: a versioned migration with a schema_version field (good) vs a writer that changed types in place (bad)",
        seeds: "002",
        bad_fires: &["mixed-types"],
        collections: vec![
            Collection::new("good_customers", good),
            Collection::new("bad_customers", bad),
        ],
    }
}

const SENSORS: u32 = 5;
const HOURS: u32 = 40;
/// Bad events committed to `sample-data/` (the rest are generated).
const EVENTS_COMMITTED: u32 = 300;

fn reading(sensor: u32, minute: u32) -> f64 {
    let x = f64::from((sensor * 131 + minute * 17) % 200);
    (180.0 + x) / 10.0
}

/// One measurement per minute per sensor, as the bad variant stores it.
fn event(ids: &mut Ids, k: u32) -> Document {
    let (minute, sensor) = (k / SENSORS, k % SENSORS);
    let t = NOW - HOURS * HOUR + minute * 60;
    doc! {"_id": ids.at(t), "sensor_identifier": format!("sensor-{sensor}"), "measurement_timestamp": date(t),
    "temperature_in_celsius": reading(sensor, minute)}
}

/// 002 ch. 4 / 003 bucket: a time series per event vs hourly buckets.
fn time_series(n: u8) -> Dataset {
    let mut g = Ids::new(n, 1);
    let mut good = Vec::new();
    for h in 0..HOURS {
        for s in 0..SENSORS {
            let start = NOW - HOURS * HOUR + h * HOUR;
            let m: Vec<f64> = (0..60).map(|k| reading(s, h * 60 + k)).collect();
            let sum: f64 = m.iter().sum();
            let min = m.iter().copied().fold(f64::INFINITY, f64::min);
            let max = m.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            good.push(doc! {"_id": g.at(start), "sensor": format!("sensor-{s}"), "start": date(start), "count": 60,
            "sum": (sum * 10.0).round() / 10.0, "min": min, "max": max, "m": m});
        }
    }
    let mut b = Ids::new(n, 2);
    let bad: Vec<Document> = (0..EVENTS_COMMITTED).map(|k| event(&mut b, k)).collect();
    Dataset {
        name: "time_series",
        title: "Time series: 12,000 temperature readings as one small document per event with long field names (bad) vs one bucket per sensor per hour (good)",
        seeds: "002, 003",
        bad_fires: &["time-series-per-event", "long-field-names"],
        collections: vec![
            Collection::new("good_readings", good).index(doc! {"sensor": 1, "start": 1}),
            Collection::new("bad_events", bad).generate(
                "the remaining 11,700 events (12,000 in all: 5 sensors × 40 hours × 60 minutes)",
                move || {
                    let mut b = b;
                    Box::new((EVENTS_COMMITTED..SENSORS * HOURS * 60).map(move |k| event(&mut b, k)))
                },
            ),
        ],
    }
}

/// Atlas/Compass: a collection per sensor instead of a field.
fn sensor_collections(n: u8) -> Dataset {
    let mut g = Ids::new(n, 1);
    let mut good = Vec::new();
    for k in 0..5u32 {
        for s in 0..101u32 {
            let t = NOW - 5 * HOUR + k * HOUR + s;
            good.push(doc! {"_id": g.at(t), "sensor": format!("s{s:03}"), "time": date(t), "value": reading(s, k)});
        }
    }
    let mut out = vec![Collection::new("good_readings", good).index(doc! {"sensor": 1, "time": 1})];
    for s in 0..101u32 {
        out.push(
            Collection::new(&format!("bad_sensor_{s:03}"), Vec::new()).generate(
                "5 readings of one sensor",
                move || {
                    let mut b = Ids::new(n, 2);
                    Box::new((0..5u32).map(move |k| {
                        let t = NOW - 5 * HOUR + k * HOUR + s;
                        doc! {"_id": b.at(t), "time": date(t), "value": reading(s, k)}
                    }))
                },
            ),
        );
    }
    Dataset {
        name: "sensor_collections",
        title: "101 sensors: one collection with a sensor field (good) vs one collection per sensor (bad; generated at seed time)",
        seeds: "002 (operational intelligence); Atlas (> 100 collections per database)",
        bad_fires: &["too-many-collections"],
        collections: out,
    }
}

const PAGES: [&str; 3] = ["/index.html", "/pricing.html", "/docs/start.html"];

fn views(page: u32, day: u32, minute: u32) -> i32 {
    ((page * 7 + day * 3 + minute * 13) % 23) as i32
}

/// 002 pre-aggregated reports: one document per page per day.
fn page_stats(n: u8) -> Dataset {
    let (mut g, mut b) = (Ids::new(n, 1), Ids::new(n, 2));
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for day in 0..7u32 {
        for (p, page) in PAGES.iter().enumerate() {
            let p = p as u32;
            let start = NOW - (7 - day) * DAY;
            let total: i32 = (0..1440).map(|m| views(p, day, m)).sum();
            let mut minute = Document::new();
            for m in 0..1440 {
                minute.insert(m.to_string(), views(p, day, m));
            }
            bad.push(doc! {"_id": b.at(start + p), "page": *page, "day": date(start), "total": total, "minute": minute});
            let hours: Vec<Document> = (0..24)
                .map(|h| {
                    let mins: Vec<i32> = (0..60).map(|m| views(p, day, h * 60 + m)).collect();
                    doc! {"hour": h as i32, "total": mins.iter().sum::<i32>(), "minutes": mins}
                })
                .collect();
            good.push(doc! {"_id": g.at(start + p), "page": *page, "day": date(start), "total": total, "hours": hours});
        }
    }
    Dataset {
        name: "page_stats",
        title: "Pre-aggregated page statistics: 1,440 minute keys per day (bad) vs 24 hour sub-documents of 60 minutes (good)",
        seeds: "002",
        bad_fires: &["dynamic-keys"],
        collections: vec![
            Collection::new("good_daily", good).index(doc! {"page": 1, "day": 1}),
            Collection::new("bad_daily", bad).index(doc! {"page": 1, "day": 1}),
        ],
    }
}

/// 003 computed pattern: rating statistics kept up to date on write.
fn computed(n: u8) -> Dataset {
    let mut rng = Rng::new(12);
    let (mut g, mut b) = (Ids::new(n, 1), Ids::new(n, 2));
    let mut good_movies = Vec::new();
    let mut good_reviews = Vec::new();
    let mut bad_movies = Vec::new();
    for i in 0..36u32 {
        let age = 10 * (36 - i);
        let title = format!("The Schema Strikes Back {}", i + 1);
        let mid = g.days_ago(age);
        // Older movies have more reviews.
        let count = 4 * (36 - i);
        let mut reviews = Vec::new();
        let mut sum = 0;
        for k in 0..count {
            let stars = rng.range(1, 5) as i32;
            sum += stars;
            let t = NOW - age * DAY + (k + 1) * (age * DAY / (count + 1));
            good_reviews.push(doc! {"_id": g.at(t), "movie_id": mid, "user": format!("u{}", rng.range(1, 900)), "stars": stars, "at": date(t)});
            reviews.push(
                doc! {"user": format!("u{}", rng.range(1, 900)), "stars": stars, "at": date(t)},
            );
        }
        good_movies.push(doc! {"_id": mid, "title": title.clone(), "year": 2000 + (i % 25) as i32,
        "rating": {"count": count as i32, "sum": sum, "avg": (f64::from(sum) / f64::from(count) * 100.0).round() / 100.0}});
        bad_movies.push(doc! {"_id": b.days_ago(age), "title": title, "year": 2000 + (i % 25) as i32, "reviews": reviews});
    }
    good_reviews.sort_by_key(|d| d.get_object_id("_id").map(|o| o.timestamp()).ok());
    Dataset {
        name: "computed",
        title: "Computed pattern: rating statistics kept in the movie with reviews in their own collection (good) vs every review embedded and averaged on read (bad)",
        seeds: "003",
        bad_fires: &["unbounded-array"],
        collections: vec![
            Collection::new("good_movies", good_movies),
            Collection::new("good_reviews", good_reviews).index(doc! {"movie_id": 1, "at": -1}),
            Collection::new("bad_movies", bad_movies),
        ],
    }
}

/// 003 extended reference: an order keeps a snapshot of its customer.
fn extended_reference(n: u8) -> Dataset {
    let mut rng = Rng::new(13);
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let mut customers: Vec<Document> = (0..30u32)
            .map(|i| {
                doc! {"_id": ids.days_ago(900 - i), "name": person(i), "email": email(i, "shop"),
                "phone": format!("+86 755 8{:07}", 2_000_000 + i * 4241), "loyalty_points": 100 * (i as i32 % 7),
                "address": {"street": street(&mut rng), "city": *rng.pick(&CITIES)}}
            })
            .collect();
        let mut orders = Vec::new();
        for o in 0..200u32 {
            let c = &customers[(o * 7 % 30) as usize];
            let addr = c.get_document("address").cloned().unwrap_or_default();
            let items: Vec<Document> = (0..=o % 3)
                .map(|k| doc! {"sku": format!("SKU-{:04}", (o * 13 + k * 101) % 500), "qty": 1 + (k as i32), "price": rng.money(5, 90)})
                .collect();
            let total: f64 = items
                .iter()
                .map(|it| {
                    it.get_f64("price").unwrap_or(0.0) * f64::from(it.get_i32("qty").unwrap_or(1))
                })
                .sum();
            let t = NOW - (200 - o) * DAY;
            let customer = if variant == 1 {
                // A few read-mostly fields; the address is a snapshot on its own.
                doc! {"id": id_of(c), "name": c.get_str("name").unwrap_or_default()}
            } else {
                // Volatile fields copied too.
                doc! {"id": id_of(c), "name": c.get_str("name").unwrap_or_default(), "email": c.get_str("email").unwrap_or_default(),
                "phone": c.get_str("phone").unwrap_or_default(), "loyalty_points": c.get_i32("loyalty_points").unwrap_or(0)}
            };
            orders.push(
                doc! {"_id": ids.at(t), "date": date(t), "customer": customer, "ship_to": addr,
                "items": items, "total": (total * 100.0).round() / 100.0},
            );
        }
        if variant == 2 {
            // Since the orders were placed, a third of the customers earned
            // points or changed their e-mail; the copies never followed.
            for (i, c) in customers.iter_mut().enumerate() {
                if i % 3 == 1 {
                    c.insert("loyalty_points", 100 * (i as i32 % 7) + 250);
                }
                if i % 5 == 4 {
                    c.insert("email", email(i as u32, "newmail"));
                }
            }
        }
        out.push(Collection::new(&format!("{prefix}_customers"), customers));
        let orders = Collection::new(&format!("{prefix}_orders"), orders);
        out.push(if variant == 1 {
            orders.index(doc! {"customer.id": 1, "date": -1})
        } else {
            orders
        });
    }
    Dataset {
        name: "extended_reference",
        title: "Extended reference: orders copy the customer's id and name, with the shipping address as a snapshot (good), or copy volatile fields that went stale, without an index (bad)",
        seeds: "003, 000",
        bad_fires: &["denormalization-drift", "missing-reference-index"],
        collections: out,
    }
}

/// Bytes of the generated viral post (close to the 16 MiB limit).
pub const VIRAL_BYTES: usize = 15_000_000;

fn comment(i: u32, t: u32) -> Document {
    doc! {"author": format!("reader{:05}", i % 99_991), "text": format!("{:0>180}", format!("comment {i}: this changes everything about how I model one-to-many")), "at": date(t)}
}

/// 000/001: a blog whose posts embed their comments without bound.
fn blog(n: u8) -> Dataset {
    let (mut g, mut b) = (Ids::new(n, 1), Ids::new(n, 2));
    let mut good_posts = Vec::new();
    let mut good_comments = Vec::new();
    let mut bad_posts = Vec::new();
    for i in 0..40u32 {
        let age = 9 * (40 - i);
        let title = format!("Schema design, part {}", i + 1);
        let body = format!("Notes on embedding versus referencing, chapter {}.", i + 1);
        let pid = g.days_ago(age);
        let count = 40 - i;
        let mut comments = Vec::new();
        for k in 0..count {
            let t = NOW - age * DAY + (k + 1) * (age * DAY / (count + 1));
            let by = person((i + k) % 120);
            let text = format!("comment {k} on part {}", i + 1);
            good_comments.push(doc! {"_id": g.at(t), "post_id": pid, "author": by.clone(), "text": text.clone(), "at": date(t)});
            comments.push(doc! {"author": by, "text": text, "at": date(t)});
        }
        good_posts.push(doc! {"_id": pid, "title": title.clone(), "author": "editor", "body": body.clone(), "comment_count": count as i32});
        bad_posts.push(doc! {"_id": b.days_ago(age), "title": title, "author": "editor", "body": body, "comments": comments});
    }
    good_comments.sort_by_key(|d| d.get_object_id("_id").map(|o| o.timestamp()).ok());
    Dataset {
        name: "blog",
        title: "A blog: comments in their own collection (good) vs embedded in the post, growing with its age, plus one viral post close to 16 MiB (bad)",
        seeds: "000, 001, 003",
        bad_fires: &["unbounded-array", "document-near-limit"],
        collections: vec![
            Collection::new("good_posts", good_posts),
            Collection::new("good_comments", good_comments).index(doc! {"post_id": 1, "at": -1}),
            Collection::new("bad_posts", bad_posts).generate(
                "one viral post, 365 days old, with about 15 MB of embedded comments",
                move || {
                    let mut b = b;
                    let age = 365;
                    let one = bson::serialize_to_vec(&comment(0, NOW)).map_or(260, |v| v.len() + 7);
                    let count = (VIRAL_BYTES / one) as u32;
                    let comments: Vec<Document> = (0..count)
                        .map(|k| comment(k, NOW - age * DAY + k * (age * DAY / (count + 1))))
                        .collect();
                    let post = doc! {"_id": b.days_ago(age), "title": "Why we moved to MongoDB", "author": "editor",
                    "body": "It went viral.", "comments": comments};
                    Box::new(std::iter::once(post))
                },
            ),
        ],
    }
}

/// A category tree: nested 24 levels deep (bad) vs one document per node.
fn tree(n: u8) -> Dataset {
    const DEPTH: u32 = 24;
    let mut b = Ids::new(n, 2);
    let names: Vec<String> = (0..DEPTH).map(|d| format!("level-{d:02}")).collect();
    let mut good = Vec::new();
    for root in 0..3u32 {
        for d in 0..DEPTH {
            let ancestors: Vec<String> = (0..d)
                .map(|a| format!("{}/{}", root, names[a as usize]))
                .collect();
            let parent = if d == 0 {
                Bson::Null
            } else {
                Bson::String(format!("{}/{}", root, names[(d - 1) as usize]))
            };
            good.push(doc! {"_id": format!("{}/{}", root, names[d as usize]), "name": names[d as usize].clone(),
            "parent": parent, "ancestors": ancestors});
        }
    }
    let bad: Vec<Document> = (0..3u32)
        .map(|root| {
            let mut node = doc! {"name": names[(DEPTH - 1) as usize].clone(), "children": Vec::<Document>::new()};
            for d in (0..DEPTH - 1).rev() {
                node = doc! {"name": names[d as usize].clone(), "children": vec![node]};
            }
            doc! {"_id": b.days_ago(30 - root), "catalog": format!("catalog {root}"), "root": node}
        })
        .collect();
    Dataset {
        name: "tree",
        title: "A category tree: one document per node with parent and ancestors (good) vs the whole tree nested 24 levels deep in one document (bad)",
        seeds: "MongoDB limits (nesting depth 100); 000 (favour embedding only when it stays small)",
        bad_fires: &["deep-nesting"],
        collections: vec![
            Collection::new("good_categories", good)
                .index(doc! {"parent": 1})
                .index(doc! {"ancestors": 1}),
            Collection::new("bad_categories", bad),
        ],
    }
}

/// 002 index rules (equality, sort, range): one compound index vs a pile.
fn indexes(n: u8) -> Dataset {
    let mut rng = Rng::new(16);
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let docs: Vec<Document> = (0..300u32)
            .map(|o| {
                let t = NOW - (300 - o) * HOUR;
                let who = rng.range(1, 80);
                doc! {"_id": ids.at(t), "customer": format!("CUST-{who:06}"), "email": email(who, "orders"),
                "ship_to": format!("{}, {} {}", street(&mut rng), rng.pick(&CITIES), 100_000 + who * 37),
                "status": (["new", "paid", "shipped", "delivered"][(o % 4) as usize]), "placed_at": date(t),
                "total": rng.money(5, 500), "channel": (["web", "app", "store"][(o % 3) as usize])}
            })
            .collect();
        if variant == 2 {
            // A copy someone kept before re-indexing, never dropped.
            out.push(Collection::new(
                &format!("{prefix}_orders_backup"),
                docs.clone(),
            ));
        }
        let c = Collection::new(&format!("{prefix}_orders"), docs);
        out.push(if variant == 1 {
            c.index(doc! {"customer": 1, "status": 1, "placed_at": -1})
        } else {
            c.index(doc! {"customer": 1})
                .index(doc! {"_id": 1, "status": 1})
                .index(doc! {"customer": 1, "status": 1, "placed_at": -1})
                .index(doc! {"coupon_code": 1})
                .index(doc! {"status": 1})
                .index(doc! {"placed_at": 1})
                .index(doc! {"total": -1})
                .index(doc! {"channel": 1, "placed_at": -1})
                .index(doc! {"status": 1, "total": 1, "channel": 1})
                .index(doc! {"placed_at": -1, "status": 1})
                .index(doc! {"total": 1, "customer": 1})
                .index(doc! {"channel": 1, "status": 1, "customer": 1})
        });
    }
    Dataset {
        name: "indexes",
        title: "Indexes: one compound index in equality-sort-range order (good) vs thirteen indexes, one a prefix of another, one led by _id and one on a field no document has, beside a forgotten copy of the collection (bad)",
        seeds: "002 (index rules); Atlas and Compass index advice",
        bad_fires: &[
            "redundant-index",
            "unused-index",
            "too-many-indexes",
            "id-led-index",
            "duplicate-collection",
        ],
        collections: out,
    }
}

/// `secs` after the epoch as an application might write it into a string:
/// `2026-03-01 12:00:00` (no zone, a space for the `T`).
fn date_text(secs: u32) -> String {
    bson::DateTime::from_millis(i64::from(secs) * 1000)
        .try_to_rfc3339_string()
        .ok()
        .and_then(|s| s.get(..19).map(|s| s.replace('T', " ")))
        .unwrap_or_default()
}

/// 000/001/002/003 referential integrity: reviews of products, orders
/// referencing accounts by account number.
fn integrity(n: u8) -> Dataset {
    const KINDS: [&str; 5] = ["kettle", "toaster", "blender", "grinder", "scale"];
    const WORDS: [&str; 4] = ["works as described", "sturdy", "too loud", "great value"];
    let mut rng = Rng::new(17);
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let bad = variant == 2;
        // Products; the bad variant has since deleted every sixth one
        // (a sixth of them) and left their reviews behind.
        let all_products: Vec<Document> = (0..60u32)
            .map(|p| {
                doc! {"_id": ids.days_ago(700 - p * 5), "name": format!("{} {}", KINDS[(p % 5) as usize], 100 + p),
                "sku": format!("SKU-{variant}{p:04}")}
            })
            .collect();
        let mut reviews = Vec::new();
        for r in 0..300u32 {
            let product = &all_products[((r * 7) % 60) as usize];
            let t = NOW - (300 - r) * 2 * HOUR - rng.range(0, 3_600);
            let at = if bad {
                Bson::String(date_text(t))
            } else {
                date(t)
            };
            // In the bad variant an import wrote every tenth review's
            // product as the ObjectId's hex string.
            let product_id = match id_of(product) {
                Bson::ObjectId(oid) if bad && r % 10 == 3 => Bson::String(oid.to_hex()),
                other => other,
            };
            reviews.push(doc! {"_id": ids.at(t), "product_id": product_id, "author": format!("reader{:03}", r % 97),
            "rating": rng.range(1, 5) as i32, "text": *rng.pick(&WORDS), "created_at": at});
        }
        let products: Vec<Document> = all_products
            .into_iter()
            .enumerate()
            .filter(|(p, _)| !bad || p % 6 != 5)
            .map(|(_, d)| d)
            .collect();
        // Accounts, found by their account number; in the bad variant three
        // numbers were issued twice and nothing stops a fourth.
        let numbers: Vec<String> = (0..50u32)
            .map(|a| format!("AC-{variant}{:05}", 1_000 + a * 37))
            .collect();
        let accounts: Vec<Document> = (0..50u32)
            .map(|a| {
                let no = if bad && a >= 47 {
                    numbers[(a - 40) as usize].clone()
                } else {
                    numbers[a as usize].clone()
                };
                doc! {"_id": ids.days_ago(900 - a * 3), "account_no": no, "holder": person(a), "email": email(a, "bank")}
            })
            .collect();
        let orders: Vec<Document> = (0..200u32)
            .map(|o| {
                let t = NOW - (200 - o) * DAY;
                doc! {"_id": ids.at(t), "account_no": numbers[((o * 13) % 47) as usize].clone(), "placed_at": date(t),
                "status": (["new", "paid", "shipped"][(o % 3) as usize]), "items": (1 + o % 4) as i32}
            })
            .collect();
        out.push(Collection::new(&format!("{prefix}_products"), products));
        out.push(
            Collection::new(&format!("{prefix}_reviews"), reviews)
                .index(doc! {"product_id": 1, "created_at": -1}),
        );
        let accounts = Collection::new(&format!("{prefix}_accounts"), accounts);
        out.push(if bad {
            accounts
        } else {
            accounts.unique(doc! {"account_no": 1})
        });
        out.push(
            Collection::new(&format!("{prefix}_orders"), orders)
                .index(doc! {"account_no": 1, "placed_at": -1}),
        );
    }
    Dataset {
        name: "integrity",
        title: "Referential integrity: every review names an existing product by its ObjectId, review times are dates, and account numbers are unique by index (good) vs reviews of deleted products, a tenth of the product references written as hex strings, times stored as text, and account numbers issued twice with no unique index (bad)",
        seeds: "000, 001, 002, 003",
        bad_fires: &[
            "dangling-references",
            "reference-type-mismatch",
            "string-dates",
            "non-unique-reference-key",
        ],
        collections: out,
    }
}

/// 002 TTL: refresh tokens that expire a week after they are issued, each
/// found by its token; the good store lets the server delete them once
/// expired, the bad one keeps every token it ever issued.
fn expiring_tokens(n: u8) -> Dataset {
    let mut rng = Rng::new(19);
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let users: Vec<Document> = (0..40u32)
            .map(|u| doc! {"_id": ids.days_ago(400 - u * 5), "name": person(u), "email": email(u, "app")})
            .collect();
        // One token every 4.8 hours over the 60 days before NOW: those
        // issued more than a week before it have expired (265 of 300), and
        // the rest a week after it.
        let mut tokens = Vec::new();
        let mut secret = || {
            let mut s = String::new();
            for _ in 0..4 {
                let _ = write!(s, "{:016x}", rng.next_u64());
            }
            s
        };
        for t in 0..300u32 {
            let issued = NOW - 60 * DAY + t * 17_280 + 17 * 60;
            let user = id_of(&users[((t * 7) % 40) as usize]);
            let mut d = doc! {"_id": ids.at(issued), "user": user, "token": secret(),
            "issued": date(issued), "expires": date(issued + 7 * DAY)};
            // Most tokens were rotated: each names the one that replaced it.
            if t % 5 != 4 {
                d.insert("replaced_by", secret());
            }
            tokens.push(d);
        }
        out.push(Collection::new(&format!("{prefix}_users"), users));
        let tokens = Collection::new(&format!("{prefix}_refresh_tokens"), tokens);
        out.push(if variant == 1 {
            tokens
                .ttl(doc! {"expires": 1}, 0)
                .unique(doc! {"token": 1})
                .index(doc! {"user": 1})
        } else {
            tokens
        });
    }
    Dataset {
        name: "expiring_tokens",
        title: "Refresh tokens that expire a week after they are issued: a TTL index deletes each once expired and tokens are found by an index on token (good) vs every token ever issued kept, most of them long expired, and each lookup by token scanning the collection (bad)",
        seeds: "002",
        bad_fires: &["expiring-without-ttl"],
        collections: out,
    }
}

/// 002 types: a climbing guide's routes with a score, a length and a
/// rating count; the good guide stores numbers, the bad one the text a
/// form sent (a few scores left empty), beside a postcode, which is text
/// in both.
fn numeric_text(n: u8) -> Dataset {
    const AREAS: [&str; 4] = ["Schrammsteine", "Bielatal", "Rathen", "Affensteine"];
    const GRADES: [&str; 6] = ["III", "IV", "V", "VIIa", "VIIb", "VIIIa"];
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut rng = Rng::new(23);
        let mut ids = Ids::new(n, variant);
        let bad = variant == 2;
        let routes: Vec<Document> = (0..300u32)
            .map(|r| {
                let score = rng.range(0, 6) as i32 - 3;
                let tenths = rng.range(80, 450);
                let ratings = rng.range(0, 140) as i32;
                let mut d = doc! {"_id": ids.days_ago(900 - r * 3), "name": format!("{} route {r}", AREAS[(r % 4) as usize]),
                "area": AREAS[(r % 4) as usize], "grade": GRADES[(r % 6) as usize],
                "postcode": format!("0{}", 1_800 + (r % 4) * 24)};
                if bad {
                    // The form sent every number as text, and an empty
                    // score for routes nobody scored.
                    d.insert("score", if r % 60 == 7 { String::new() } else { score.to_string() });
                    d.insert("length_m", format!("{}.{}", tenths / 10, tenths % 10));
                    d.insert("ratings", ratings.to_string());
                } else {
                    if r % 60 != 7 {
                        d.insert("score", score);
                    }
                    d.insert("length_m", f64::from(tenths) / 10.0);
                    d.insert("ratings", ratings);
                }
                d
            })
            .collect();
        out.push(
            Collection::new(&format!("{prefix}_routes"), routes)
                .index(doc! {"area": 1, "score": -1}),
        );
    }
    Dataset {
        name: "numeric_text",
        title: "A climbing guide's routes: score, length and rating count stored as numbers, postcodes as text (good) vs every number stored as the text a form sent, a few scores left empty, beside the same postcodes (bad)",
        seeds: "002",
        bad_fires: &["numeric-strings"],
        collections: out,
    }
}

/// 000 two-way referencing and 003 extended reference, written by the
/// application on both sides: rooms list their controllers and each
/// controller names its room; teams copy their players from the users.
/// In the bad variant four controllers were moved without being taken off
/// their old room's list (listed by two rooms), and the copies name their
/// user by the hex string of its id, four users having changed their
/// nickname or e-mail since.
fn two_way_sync(n: u8) -> Dataset {
    const KINDS: [&str; 4] = ["switch", "dimmer", "thermostat", "sensor"];
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let bad = variant == 2;
        let mut rooms: Vec<Document> = (0..12u32)
            .map(|r| doc! {"_id": ids.days_ago(400 - r * 3), "name": format!("{} room {}", CITIES[(r % 8) as usize], r + 1)})
            .collect();
        let mut listed: Vec<Vec<Bson>> = vec![Vec::new(); rooms.len()];
        let mut controllers = Vec::new();
        for c in 0..36u32 {
            let room = ((c * 5) % 12) as usize;
            let id = ids.days_ago(300 - c * 4);
            listed[room].push(Bson::ObjectId(id));
            // Moved since: its new room lists it, and so does the old one.
            let now_in = if bad && c % 9 == 4 {
                (room + 1) % 12
            } else {
                room
            };
            if now_in != room {
                listed[now_in].push(Bson::ObjectId(id));
            }
            controllers.push(
                doc! {"_id": id, "name": format!("{} {}", KINDS[(c % 4) as usize], c + 1),
                "room_id": id_of(&rooms[now_in]), "online": c % 7 != 0},
            );
        }
        for (room, list) in rooms.iter_mut().zip(listed) {
            room.insert("controller_ids", list);
        }
        out.push(Collection::new(&format!("{prefix}_rooms"), rooms));
        out.push(
            Collection::new(&format!("{prefix}_controllers"), controllers)
                .index(doc! {"room_id": 1}),
        );
        // Users, and teams copying some of their fields.
        let users: Vec<Document> = (0..24u32)
            .map(|u| {
                // Renamed, or a new address, after the teams copied them.
                let changed = bad && u % 6 == 1;
                let nickname = if changed && u % 12 == 1 {
                    format!("player{u}-renamed")
                } else {
                    format!("player{u}")
                };
                let address = if changed && u % 12 == 7 {
                    email(u + 100, "poker")
                } else {
                    email(u, "poker")
                };
                doc! {"_id": ids.days_ago(500 - u * 5), "nickname": nickname, "email": address, "name": person(u)}
            })
            .collect();
        let teams: Vec<Document> = (0..6u32)
            .map(|t| {
                let players: Vec<Document> = (0..4u32)
                    .map(|k| {
                        let u = t * 4 + k;
                        let user = id_of(&users[u as usize]);
                        if bad {
                            let hex = match &user {
                                Bson::ObjectId(o) => o.to_hex(),
                                _ => String::new(),
                            };
                            doc! {"_id": hex, "nickname": format!("player{u}"), "email": email(u, "poker"), "name": person(u)}
                        } else {
                            doc! {"user_id": user, "nickname": format!("player{u}")}
                        }
                    })
                    .collect();
                doc! {"_id": ids.days_ago(200 - t * 10), "name": format!("table {}", t + 1), "players": players}
            })
            .collect();
        out.push(Collection::new(&format!("{prefix}_users"), users));
        let teams = Collection::new(&format!("{prefix}_teams"), teams);
        out.push(if bad {
            teams
        } else {
            teams.index(doc! {"players.user_id": 1})
        });
    }
    Dataset {
        name: "two_way_sync",
        title: "Links kept on both sides: rooms list their controllers and controllers name their room, teams copy their players' nicknames by the user's id, all in step (good) vs four controllers moved and still listed by their old room, and teams copying whole users by the hex string of their id, four users changed since (bad)",
        seeds: "000, 003",
        bad_fires: &["two-way-out-of-sync", "denormalization-drift"],
        collections: out,
    }
}

/// 002/003 polymorphic pattern: the things to do in a city, one collection
/// with a `type` field and one index (good), or one collection per type
/// written by a `switch` on the type, each of one shape and each saying its
/// type again in `category` (bad).
fn sibling_collections(n: u8) -> Dataset {
    const KINDS: [(&str, &str, &[&str]); 3] = [
        (
            "adventures",
            "Adventures",
            &[
                "Gorge trek",
                "River rafting",
                "Night climb",
                "Canyon ride",
                "Cliff walk",
                "Cave dive",
            ],
        ),
        (
            "attractions",
            "Attractions",
            &[
                "Old town gate",
                "Temple of Heaven",
                "Silk market",
                "Bell tower",
                "Lake pagoda",
                "City wall",
                "Stone bridge",
            ],
        ),
        (
            "events",
            "Events",
            &[
                "Lantern festival",
                "Spring fair",
                "Dragon boat race",
                "Jazz night",
                "Harvest market",
            ],
        ),
    ];
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let cities: Vec<Document> = CITIES
            .iter()
            .take(4)
            .enumerate()
            .map(|(i, c)| doc! {"_id": ids.days_ago(500 - i as u32), "name": *c, "country": "CN"})
            .collect();
        let mut places = Vec::new();
        let mut per_kind: Vec<Vec<Document>> = vec![Vec::new(); KINDS.len()];
        let mut age = 300u32;
        for (k, (kind, category, names)) in KINDS.iter().enumerate() {
            for (i, name) in names.iter().enumerate() {
                let city = &cities[(i + k) % cities.len()];
                let id = ids.days_ago(age);
                age -= 7;
                let image = format!("https://img.example/{kind}/{}.jpg", i + 1);
                let rating = f64::from((i as u32 * 3 + k as u32) % 5 + 1);
                if variant == 1 {
                    places.push(doc! {"_id": id, "type": &kind[..kind.len() - 1], "name": *name,
                        "description": format!("{name} in {}", city.get_str("name").unwrap_or("")),
                        "city_id": id_of(city), "images": [image], "rating": rating, "created_at": date(NOW - age * DAY)});
                } else {
                    per_kind[k].push(doc! {"_id": id, "name": *name,
                        "description": format!("{name} in {}", city.get_str("name").unwrap_or("")),
                        "category": *category, "city": city.get_str("name").unwrap_or(""), "city_id": id_of(city),
                        "images": [image], "rating": rating, "created_at": date(NOW - age * DAY)});
                }
            }
        }
        out.push(Collection::new(&format!("{prefix}_cities"), cities));
        if variant == 1 {
            out.push(Collection::new("good_places", places).index(doc! {"city_id": 1, "type": 1}));
        } else {
            for ((kind, _, _), docs) in KINDS.iter().zip(per_kind) {
                out.push(Collection::new(&format!("bad_{kind}"), docs).index(doc! {"city_id": 1}));
            }
        }
    }
    Dataset {
        name: "sibling_collections",
        title: "Polymorphic pattern: a city's adventures, attractions and events in one collection with a type field and one index (good), or one collection per type of one shape, each repeating its type in category (bad)",
        seeds: "002, 003",
        bad_fires: &["sibling-collections"],
        collections: out,
    }
}

/// 000/001 growth inside one document: each sign-in of a user, with the
/// access token issued, kept in a collection of its own referencing the
/// user (good), or appended to the user's `logins` array and never pruned
/// (bad): a dozen users are too few to see growth across documents, but
/// the power user's 220 dated sign-ins in 30 days show it inside one.
fn login_history(n: u8) -> Dataset {
    let mut rng = Rng::new(19);
    let devices = [
        "iPhone 15 / iOS 18",
        "Pixel 8 / Android 15",
        "Firefox 131 / Linux",
        "Safari 18 / macOS",
    ];
    let mut out = Vec::new();
    for (variant, prefix) in [(1u8, "good"), (2u8, "bad")] {
        let mut ids = Ids::new(n, variant);
        let mut users = Vec::new();
        let mut logins = Vec::new();
        for u in 0..12u32 {
            let joined = 40 - u;
            let uid = ids.days_ago(joined);
            // The first user signs in 7 times a day or more; the others now
            // and then.
            let count = if u == 0 { 220 } else { 2 + (u * 5) % 17 };
            let first = NOW - (joined - 1) * DAY;
            let span = (joined - 2).min(30) * DAY;
            let mut mine = Vec::new();
            for k in 0..count {
                let at = first
                    + (u64::from(span) * u64::from(k) / u64::from(count)) as u32
                    + rng.range(0, 600);
                let token: String = (0..48)
                    .map(|_| format!("{:016x}", rng.next_u64()))
                    .collect::<Vec<_>>()
                    .join(".");
                mine.push(
                    doc! {"at": date(at), "ip": format!("10.0.{}.{}", u, rng.range(2, 250)),
                    "device": *rng.pick(&devices), "token": token},
                );
            }
            let user = doc! {"_id": uid, "name": person(u), "email": email(u, "mail")};
            if variant == 1 {
                for l in mine {
                    let mut d = doc! {"_id": ids.at(l.get_datetime("at").map_or(NOW, |t| (t.timestamp_millis() / 1000) as u32)), "user_id": uid};
                    d.extend(l);
                    logins.push(d);
                }
                users.push(user);
            } else {
                let mut user = user;
                user.insert("logins", mine);
                users.push(user);
            }
        }
        out.push(Collection::new(&format!("{prefix}_users"), users));
        if variant == 1 {
            logins.sort_by_key(|d| d.get_object_id("_id").map(|o| o.timestamp()).ok());
            out.push(Collection::new("good_logins", logins).index(doc! {"user_id": 1, "at": -1}));
        }
    }
    Dataset {
        name: "login_history",
        title: "Growth inside one document: sign-ins in a collection of their own referencing the user (good), or appended to the user's logins array and never pruned, one user holding 220 in 30 days (bad)",
        seeds: "000, 001",
        bad_fires: &["unbounded-array"],
        collections: out,
    }
}
