//! Two-way references: one link kept on both sides — a room lists its
//! controllers (`rooms.controllers[]`) and each controller names its room
//! (`controllers.roomId`). Seed 000: two-way referencing lets either side
//! be read without a join, at the price that the two sides are separate
//! writes and nothing keeps them in step. The links each side holds are
//! checked against the other side's documents, both ways; what the checks
//! found decides whether the two references are one two-way reference at
//! all ([`TwoWaySync::is_two_way`]) and how far its sides disagree.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::profile::extjson::Relaxed;
use crate::profile::{extract, Seg};
use crate::source::value::{self, Family, ValueKey};

/// Links agreeing on both sides, over both directions, needed before two
/// references are taken for one two-way reference: with ids drawn from a
/// small range a link or two can agree by chance.
pub const MIN_AGREEING: u64 = 3;

/// One side of a two-way reference.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Side {
    /// `db.coll`.
    pub namespace: String,
    /// Its reference to the other side, as its relationship names it
    /// (`controllers`, `roomId`).
    pub path: String,
    /// The key of its own documents the other side names (`_id`), and the
    /// `$type` its values have (`objectId`).
    pub key: String,
    pub key_type: &'static str,
    /// It holds a list of links (an array of ids), not one.
    pub list: bool,
    /// Where its reference's values lie (`controllers[]`, `roomId`).
    pub values: String,
}

/// The links one side holds, each checked against the document of the
/// other side it names.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Direction {
    /// Links checked: the document named was looked for.
    pub checked: u64,
    /// The document named names this one back.
    pub agree: u64,
    /// It names another document (or others), not this one.
    pub names_another: u64,
    /// It names no document of this side.
    pub names_none: u64,
    /// It does not exist.
    pub missing: u64,
    /// Links naming an existing document another link of this side
    /// already names.
    pub repeated: u64,
    /// Up to three links held by this side only.
    pub examples: Vec<Disagreement>,
}

impl Direction {
    /// Links held by this side only.
    pub(crate) fn disagree(&self) -> u64 {
        self.checked - self.agree
    }

    /// Links whose other document exists.
    pub(crate) fn found(&self) -> u64 {
        self.checked - self.missing
    }
}

/// A link held by one side only: the document holding it, the document it
/// names, and what that one holds back (absent when it does not exist).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Disagreement {
    pub holder: serde_json::Value,
    pub names: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub back: Option<serde_json::Value>,
}

/// Both sides of a pair of references between two collections, each
/// side's links checked against the other's documents.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TwoWaySync {
    /// The side whose relationship carries this check, and the other.
    pub this: Side,
    pub other: Side,
    pub from_this: Direction,
    pub from_other: Direction,
    /// Each side's documents were all read (`collection`), or a sample
    /// was (`sample`).
    pub scope: &'static str,
}

impl TwoWaySync {
    /// Whether the two references are one link kept twice: each side,
    /// where the document it names exists, is named back in at least half
    /// of its links, and at least [`MIN_AGREEING`] links agree in all. Two
    /// unrelated references between the same collections (a user's
    /// favourite products, a product's author) agree only by accident.
    ///
    /// A document holding one link back can mirror only one of the links
    /// that name it: where more than a tenth of one side's links (and more
    /// than one) name a document another of them already names, and that
    /// document holds one link back, its link is one chosen among many (a
    /// user's current profile picture among the photos naming the user),
    /// not the mirror of theirs.
    pub(crate) fn is_two_way(&self) -> bool {
        let holds = |d: &Direction| d.agree > 0 && 2 * d.agree >= d.found();
        let mirrored =
            |d: &Direction, back: &Side| back.list || d.repeated * 10 <= d.found().max(10);
        holds(&self.from_this)
            && holds(&self.from_other)
            && mirrored(&self.from_this, &self.other)
            && mirrored(&self.from_other, &self.this)
            && self.from_this.agree + self.from_other.agree >= MIN_AGREEING
    }

    pub(crate) fn checked(&self) -> u64 {
        self.from_this.checked + self.from_other.checked
    }

    pub(crate) fn disagree(&self) -> u64 {
        self.from_this.disagree() + self.from_other.disagree()
    }

    /// Share of the links checked, both ways, held by one side only.
    pub(crate) fn share(&self) -> f64 {
        match self.checked() {
            0 => 0.0,
            n => self.disagree() as f64 / n as f64,
        }
    }
}

/// One link a document holds: its own key, and the key of the document it
/// names, each read in its key's family; with both as they are stored.
#[derive(Clone, Debug)]
pub struct Link {
    pub own: ValueKey,
    pub names: ValueKey,
    pub own_shown: serde_json::Value,
    pub names_shown: serde_json::Value,
}

/// The first scalar value at `segs` of a raw document, as a decoded value.
fn scalar_at(doc: &[u8], segs: &[Seg]) -> Option<bson::Bson> {
    extract::values(doc, segs)
        .into_iter()
        .find_map(|el| value::of_element(&el).and_then(|k| k.to_bson()))
}

/// Every value at `segs` of a raw document, as decoded values.
fn values_at(doc: &[u8], segs: &[Seg]) -> Vec<bson::Bson> {
    extract::values(doc, segs)
        .into_iter()
        .filter_map(|el| value::of_element(&el).and_then(|k| k.to_bson()))
        .collect()
}

/// The links the documents hold: each document's own key (at `key`, read
/// as `own_family`) with every value of its reference (at `reference`,
/// read as `names_family`, the family of the key it names). A hex string
/// naming an ObjectId key is read as that ObjectId.
pub(crate) fn links(
    docs: &[Vec<u8>],
    key: &[Seg],
    own_family: Family,
    reference: &[Seg],
    names_family: Family,
) -> Vec<Link> {
    let mut out = Vec::new();
    for d in docs {
        let Some(own_value) = scalar_at(d, key) else {
            continue;
        };
        let Some(own) = value::key_as(&own_value, own_family) else {
            continue;
        };
        for v in values_at(d, reference) {
            let Some(names) = value::key_as(&v, names_family) else {
                continue;
            };
            out.push(Link {
                own: own.clone(),
                names,
                own_shown: own_value.clone().relaxed(),
                names_shown: v.relaxed(),
            });
        }
    }
    out
}

/// The other side's documents, by their key (read as its family): what
/// each names back, read in the family of this side's key, and as stored.
pub type Named = HashMap<ValueKey, (Vec<ValueKey>, serde_json::Value)>;

/// What documents (raw) name back: by their key at `key` (as
/// `key_family`), the values of their reference at `reference` (as
/// `back_family`).
pub(crate) fn named_back(
    docs: &[Vec<u8>],
    key: &[Seg],
    key_family: Family,
    reference: &[Seg],
    back_family: Family,
) -> Named {
    let mut out = Named::new();
    for d in docs {
        let Some(k) = scalar_at(d, key).and_then(|v| value::key_as(&v, key_family)) else {
            continue;
        };
        let stored = values_at(d, reference);
        let back: Vec<ValueKey> = stored
            .iter()
            .filter_map(|v| value::key_as(v, back_family))
            .collect();
        let shown = if reference.contains(&Seg::Elem) {
            serde_json::Value::Array(stored.into_iter().map(Relaxed::relaxed).collect())
        } else {
            stored
                .into_iter()
                .next()
                .map_or(serde_json::Value::Null, Relaxed::relaxed)
        };
        out.entry(k).or_insert((back, shown));
    }
    out
}

/// Checks each link against the document it names: among `looked` (the
/// keys looked for: every key when the other side was read whole), a key
/// absent from `other` is a document that does not exist. Links whose
/// document was not looked for are not counted.
pub(crate) fn check(
    links: &[Link],
    other: &Named,
    looked: &dyn Fn(&ValueKey) -> bool,
) -> Direction {
    let mut d = Direction::default();
    let mut named = HashSet::new();
    for l in links {
        if !looked(&l.names) {
            continue;
        }
        d.checked += 1;
        let back = other.get(&l.names);
        if back.is_some() && !named.insert(&l.names) {
            d.repeated += 1;
        }
        let agrees = match back {
            None => {
                d.missing += 1;
                false
            }
            Some((keys, _)) if keys.contains(&l.own) => {
                d.agree += 1;
                true
            }
            Some((keys, _)) if keys.is_empty() => {
                d.names_none += 1;
                false
            }
            Some(_) => {
                d.names_another += 1;
                false
            }
        };
        if !agrees && d.examples.len() < 3 {
            d.examples.push(Disagreement {
                holder: l.own_shown.clone(),
                names: l.names_shown.clone(),
                back: back.map(|(_, shown)| shown.clone()),
            });
        }
    }
    d
}

/// The distinct keys the links name, in the order met, at most `max`.
pub(crate) fn named_keys(links: &[Link], max: usize) -> Vec<ValueKey> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for l in links {
        if out.len() >= max {
            break;
        }
        if seen.insert(&l.names) {
            out.push(l.names.clone());
        }
    }
    out
}

/// Which of the two sides reports their disagreement: the side holding a
/// list when only one does (a room listing a controller twice is the
/// visible fault), else the side holding more links the other does not
/// hold back, else the first by name.
pub(crate) fn reported_by_first(first: (&Side, &Direction), second: (&Side, &Direction)) -> bool {
    match (first.0.list, second.0.list) {
        (true, false) => true,
        (false, true) => false,
        _ => match first.1.disagree().cmp(&second.1.disagree()) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => {
                (&first.0.namespace, &first.0.path) <= (&second.0.namespace, &second.0.path)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bson::{doc, oid::ObjectId};

    fn raw(d: &bson::Document) -> Vec<u8> {
        let mut v = Vec::new();
        d.to_writer(&mut v).expect("serialise");
        v
    }

    fn oid(n: u8) -> ObjectId {
        ObjectId::from_bytes([0x62, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n])
    }

    fn segs(path: &str) -> Vec<Seg> {
        path.split('.')
            .flat_map(|p| match p.strip_suffix("[]") {
                Some(k) => vec![Seg::Key(k.to_owned()), Seg::Elem],
                None => vec![Seg::Key(p.to_owned())],
            })
            .collect()
    }

    /// The smart home of the real application: rooms list their
    /// controllers, controllers name their room. Controller 9 moved to
    /// room 2 and is still listed by room 1; controller 8 names room 7,
    /// deleted.
    fn home() -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let rooms = [
            doc! {"_id": oid(1), "controllers": [oid(9)]},
            doc! {"_id": oid(2), "controllers": [oid(9)]},
            doc! {"_id": oid(3), "controllers": [oid(4), oid(5)]},
            doc! {"_id": oid(6), "controllers": []},
        ];
        let controllers = [
            doc! {"_id": oid(9), "roomId": oid(2)},
            doc! {"_id": oid(4), "roomId": oid(3)},
            doc! {"_id": oid(5), "roomId": oid(3)},
            doc! {"_id": oid(8), "roomId": oid(7)},
            doc! {"_id": oid(10)},
        ];
        (
            rooms.iter().map(raw).collect(),
            controllers.iter().map(raw).collect(),
        )
    }

    fn sync(rooms: &[Vec<u8>], controllers: &[Vec<u8>]) -> TwoWaySync {
        let (id, list, room) = (segs("_id"), segs("controllers[]"), segs("roomId"));
        let oid = Family::ObjectId;
        let from_rooms = links(rooms, &id, oid, &list, oid);
        let from_controllers = links(controllers, &id, oid, &room, oid);
        let rooms_named = named_back(rooms, &id, oid, &list, oid);
        let controllers_named = named_back(controllers, &id, oid, &room, oid);
        let all = |_: &ValueKey| true;
        TwoWaySync {
            this: Side {
                namespace: "test.userrooms".into(),
                path: "controllers".into(),
                key: "_id".into(),
                key_type: "objectId",
                list: true,
                values: String::new(),
            },
            other: Side {
                namespace: "test.controllers".into(),
                path: "roomId".into(),
                key: "_id".into(),
                key_type: "objectId",
                list: false,
                values: String::new(),
            },
            from_this: check(&from_rooms, &controllers_named, &all),
            from_other: check(&from_controllers, &rooms_named, &all),
            scope: "collection",
        }
    }

    #[test]
    fn both_sides_checked_against_each_other() {
        let (rooms, controllers) = home();
        let s = sync(&rooms, &controllers);
        // Room 1 lists controller 9, which names room 2.
        assert_eq!(
            (
                s.from_this.checked,
                s.from_this.agree,
                s.from_this.names_another
            ),
            (4, 3, 1)
        );
        assert_eq!(
            s.from_this.examples[0],
            Disagreement {
                holder: oid(1).relaxed_json(),
                names: oid(9).relaxed_json(),
                back: Some(oid(2).relaxed_json()),
            }
        );
        // Controller 8 names room 7, which does not exist; controller 10
        // names none and holds no link.
        assert_eq!(
            (
                s.from_other.checked,
                s.from_other.agree,
                s.from_other.missing
            ),
            (4, 3, 1)
        );
        assert!(s.is_two_way());
        assert_eq!((s.disagree(), s.checked()), (2, 8));
        assert!((s.share() - 0.25).abs() < 1e-9);
    }

    trait Shown {
        fn relaxed_json(self) -> serde_json::Value;
    }

    impl Shown for ObjectId {
        fn relaxed_json(self) -> serde_json::Value {
            bson::Bson::ObjectId(self).relaxed()
        }
    }

    #[test]
    fn ids_kept_as_hex_strings_name_their_objectids() {
        // Users list their teams by the hex string of the team's id.
        let teams: Vec<Vec<u8>> = (1..=3u8)
            .map(|t| raw(&doc! {"_id": oid(t), "members": [oid(10 + t)]}))
            .collect();
        let users: Vec<Vec<u8>> = (1..=3u8)
            .map(|t| raw(&doc! {"_id": oid(10 + t), "teams": [oid(t).to_hex()]}))
            .collect();
        let (id, oidf) = (segs("_id"), Family::ObjectId);
        let from_users = links(&users, &id, oidf, &segs("teams[]"), oidf);
        let teams_named = named_back(&teams, &id, oidf, &segs("members[]"), oidf);
        let d = check(&from_users, &teams_named, &|_| true);
        assert_eq!((d.checked, d.agree), (3, 3));
        // Read as they are stored, the strings name nothing.
        let as_text = links(&users, &id, oidf, &segs("teams[]"), Family::String);
        let d = check(&as_text, &teams_named, &|_| true);
        assert_eq!((d.checked, d.missing), (3, 3));
    }

    #[test]
    fn unrelated_references_between_the_same_collections_are_not_two_way() {
        // Users' favourite posts and posts' authors: a user rarely
        // favours their own post.
        let users: Vec<Vec<u8>> = (0..10u8)
            .map(|u| raw(&doc! {"_id": oid(u), "favourite": oid(100 + (u + 3) % 10)}))
            .collect();
        let posts: Vec<Vec<u8>> = (0..10u8)
            .map(|p| raw(&doc! {"_id": oid(100 + p), "author": oid(p)}))
            .collect();
        let (id, f) = (segs("_id"), Family::ObjectId);
        let all = |_: &ValueKey| true;
        let s = TwoWaySync {
            this: Side {
                namespace: "db.users".into(),
                path: "favourite".into(),
                key: "_id".into(),
                key_type: "objectId",
                list: false,
                values: String::new(),
            },
            other: Side {
                namespace: "db.posts".into(),
                path: "author".into(),
                key: "_id".into(),
                key_type: "objectId",
                list: false,
                values: String::new(),
            },
            from_this: check(
                &links(&users, &id, f, &segs("favourite"), f),
                &named_back(&posts, &id, f, &segs("author"), f),
                &all,
            ),
            from_other: check(
                &links(&posts, &id, f, &segs("author"), f),
                &named_back(&users, &id, f, &segs("favourite"), f),
                &all,
            ),
            scope: "collection",
        };
        assert_eq!(s.from_this.agree, 0);
        assert!(!s.is_two_way());
    }

    #[test]
    fn a_pointer_to_one_of_many_is_not_the_mirror_of_their_links() {
        // Photos name their owner; a user names their current profile
        // picture, one of their photos: most photos agree, but the users
        // with several photos name only one of them back.
        let mut photos = Vec::new();
        let mut users = Vec::new();
        for u in 0..10u8 {
            let n = if u < 4 { 3 } else { 1 };
            for k in 0..n {
                photos.push(raw(&doc! {"_id": oid(100 + u * 3 + k), "user": oid(u)}));
            }
            users.push(raw(
                &doc! {"_id": oid(u), "profilePicture": oid(100 + u * 3)},
            ));
        }
        let (id, f) = (segs("_id"), Family::ObjectId);
        let all = |_: &ValueKey| true;
        let side = |ns: &str, path: &str| Side {
            namespace: ns.into(),
            path: path.into(),
            key: "_id".into(),
            key_type: "objectId",
            list: false,
            values: path.into(),
        };
        let s = TwoWaySync {
            this: side("db.photos", "user"),
            other: side("db.users", "profilePicture"),
            from_this: check(
                &links(&photos, &id, f, &segs("user"), f),
                &named_back(&users, &id, f, &segs("profilePicture"), f),
                &all,
            ),
            from_other: check(
                &links(&users, &id, f, &segs("profilePicture"), f),
                &named_back(&photos, &id, f, &segs("user"), f),
                &all,
            ),
            scope: "collection",
        };
        assert_eq!(
            (s.from_this.checked, s.from_this.agree, s.from_this.repeated),
            (18, 10, 8)
        );
        assert!(!s.is_two_way());
        // One stale duplicate among many one-to-one links is still a
        // two-way reference out of step.
        let mut s = s;
        s.from_this = Direction {
            checked: 20,
            agree: 19,
            names_another: 1,
            repeated: 1,
            ..Direction::default()
        };
        assert!(s.is_two_way());
    }

    #[test]
    fn links_not_looked_for_are_not_counted() {
        let (rooms, controllers) = home();
        let (id, f) = (segs("_id"), Family::ObjectId);
        let from_rooms = links(&rooms, &id, f, &segs("controllers[]"), f);
        let asked = named_keys(&from_rooms, 2);
        assert_eq!(asked.len(), 2);
        let named = named_back(&controllers, &id, f, &segs("roomId"), f);
        let d = check(&from_rooms, &named, &|k| asked.contains(k));
        // Controllers 9 (listed twice) and 4 were looked for.
        assert_eq!((d.checked, d.agree), (3, 2));
    }

    #[test]
    fn the_side_holding_a_list_reports() {
        let side = |ns: &str, list: bool| Side {
            namespace: ns.into(),
            path: "p".into(),
            key: "_id".into(),
            key_type: "objectId",
            list,
            values: String::new(),
        };
        let dir = |disagree: u64| Direction {
            checked: 10,
            agree: 10 - disagree,
            ..Direction::default()
        };
        let (a, b) = (side("db.a", true), side("db.b", false));
        assert!(reported_by_first((&a, &dir(0)), (&b, &dir(5))));
        assert!(!reported_by_first((&b, &dir(5)), (&a, &dir(0))));
        // Neither or both lists: the side with more one-sided links, then
        // the first by name.
        let (c, d) = (side("db.c", false), side("db.d", false));
        assert!(!reported_by_first((&c, &dir(0)), (&d, &dir(6))));
        assert!(reported_by_first((&c, &dir(1)), (&d, &dir(1))));
        assert!(!reported_by_first((&d, &dir(1)), (&c, &dir(1))));
    }
}
