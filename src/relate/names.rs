//! What names say about references, where values cannot: a field's name
//! linking it to a collection (`AlbumId` → `Album`, `o_custkey` →
//! `customer`, `quotedMsgId` → `messages`), a person's role pointing at the
//! collection of people (`SupportRepId` → `Employee`), a hierarchy pointing
//! back into its own collection (`ReportsTo`, `parent_id`).
//!
//! Names decide only where the values' domain is dense (small integers,
//! words): there every integer or word could be a key by chance, and the
//! name is what an expert reads. Where values can prove a reference
//! (ObjectIds, hex strings, long codes), names only break ties.

/// Words a field name ends with when it names a reference rather than
/// what it refers to (`customer_id`, `order_key`, `account_no`).
const REFERENCE_WORDS: [&str; 10] = [
    "id", "ids", "key", "keys", "ref", "refs", "fk", "no", "num", "nr",
];
/// Suffixes of one-word names that mean the same (`custkey`, `userid`).
const REFERENCE_SUFFIXES: [&str; 4] = ["ids", "id", "keys", "key"];
/// Fewest letters left for a one-word name's suffix to be cut
/// (`custkey` → `cust`; `paid` stays `paid`).
const MIN_STEM: usize = 3;
/// Fewest letters of an abbreviation (`msg`, `emp`, `cust`).
const MIN_ABBREVIATION: usize = 3;

/// Roles a person plays: a field named so holds a person (`SupportRepId`,
/// `createdBy`, `assignee`).
const PERSON_ROLES: [&str; 44] = [
    "rep",
    "representative",
    "agent",
    "manager",
    "supervisor",
    "owner",
    "creator",
    "author",
    "sender",
    "receiver",
    "recipient",
    "assignee",
    "reviewer",
    "approver",
    "editor",
    "reporter",
    "requester",
    "employee",
    "staff",
    "salesperson",
    "seller",
    "buyer",
    "member",
    "user",
    "admin",
    "moderator",
    "leader",
    "host",
    "organizer",
    "instructor",
    "teacher",
    "coach",
    "mentor",
    "follower",
    "liker",
    "commenter",
    "uploader",
    "driver",
    "boss",
    "superior",
    "customer",
    "client",
    "person",
    "contact",
];
/// Verbs of a role (`createdBy`, `assignedTo`, `reportsTo`): the holder of
/// the role is a person.
const PERSON_VERBS: [&str; 12] = [
    "created",
    "updated",
    "modified",
    "deleted",
    "assigned",
    "reports",
    "approved",
    "reviewed",
    "uploaded",
    "owned",
    "managed",
    "supervised",
];
/// Roles that point at a superior of the same kind: a hierarchy kept in
/// its own collection (`Employee.ReportsTo`, `categories.parent_id`).
const HIERARCHY: [&str; 6] = [
    "reports",
    "manager",
    "supervisor",
    "boss",
    "superior",
    "parent",
];
/// Collections of people, by the singular of their name's last word.
const PEOPLE: [&str; 17] = [
    "user",
    "employee",
    "staff",
    "person",
    "people",
    "member",
    "customer",
    "client",
    "account",
    "student",
    "teacher",
    "instructor",
    "contact",
    "agent",
    "admin",
    "player",
    "patient",
];

/// The words of a name, lower case: split at `_`, `-`, `.`, spaces and
/// where the case turns (`SupportRepId` → support, rep, id; `HTTPServer` →
/// http, server).
pub(crate) fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let turn = c.is_uppercase()
            && (prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(char::is_uppercase) && next.is_some_and(char::is_lowercase)));
        if turn && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The singular of one lower-case word.
fn singular(word: &str) -> String {
    crate::i18n::singular(word).to_lowercase()
}

/// The words a collection's name is made of, the last one singular
/// (`InvoiceLine` → invoice, line; `order_items` → order, item). A dotted
/// name is named by its last part (`fs.files` → file).
pub(crate) fn collection_words(name: &str) -> Vec<String> {
    let last = name.rsplit('.').next().unwrap_or(name);
    let mut w = words(last);
    if let Some(last) = w.last_mut() {
        *last = singular(last);
    }
    w
}

/// The prefix every field of a collection carries (`l_` in `l_orderkey`,
/// `l_partkey` …, as SQL schemas name columns after their table), if at
/// least two fields and four in five share one ending in `_`.
pub(crate) fn column_prefix<'a>(fields: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    let mut n = 0usize;
    for f in fields {
        if f == "_id" || f.starts_with('_') {
            continue;
        }
        n += 1;
        if let Some(at) = f.find('_') {
            if at > 0 && at + 1 < f.len() && at <= 4 {
                *counts.entry(&f[..=at]).or_default() += 1;
            }
        }
    }
    let (prefix, count) = counts
        .into_iter()
        .max_by_key(|&(p, c)| (c, std::cmp::Reverse(p)))?;
    (count >= 2 && count * 5 >= n * 4).then(|| prefix.to_owned())
}

/// The words of what a field refers to: its name without a column prefix
/// and the words that say "reference" (`customer_id` → customer;
/// `o_custkey` → cust; `quotedMsgId` → quoted, msg). A name that is only
/// such a word (`id`, `_id`, `ref`) names its holder: `holder` is used
/// instead (`customer.id` → customer).
pub(crate) fn referent(name: &str, holder: Option<&str>, prefix: Option<&str>) -> Vec<String> {
    let bare = prefix
        .and_then(|p| name.strip_prefix(p))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(name);
    let mut w = words(bare);
    while w.len() > 1
        && w.last()
            .is_some_and(|l| REFERENCE_WORDS.contains(&l.as_str()))
    {
        w.pop();
    }
    if w.len() == 1 {
        if REFERENCE_WORDS.contains(&w[0].as_str()) {
            return holder.map(|h| referent(h, None, None)).unwrap_or_default();
        }
        // One word: a suffix written without a separator (`custkey`).
        if w[0].chars().all(|c| c.is_ascii_lowercase()) {
            let cut = REFERENCE_SUFFIXES
                .iter()
                .find_map(|s| w[0].strip_suffix(s).filter(|stem| stem.len() >= MIN_STEM))
                .map(str::len);
            if let Some(len) = cut {
                w[0].truncate(len);
            }
        }
    }
    if let Some(last) = w.last_mut() {
        *last = singular(last);
    }
    w
}

/// How a field's name links it to a collection, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Link {
    /// A person's role pointing at the one collection of people it can
    /// mean (`SupportRepId` → `Employee`), or a hierarchy pointing into
    /// its own collection (`ReportsTo` → `Employee`).
    Role,
    /// The name abbreviates the collection's (`o_custkey` → `customer`,
    /// `quotedMsgId` → `messages`).
    Abbreviation,
    /// The name ends with the collection's (`assignedUser` → `users`,
    /// `manager_staff_id` → `staff`).
    Tail,
    /// The name is the collection's (`AlbumId` → `Album`, `customer_id`
    /// → `customers`).
    Exact,
}

/// How the words of a field's referent link it to a collection by name
/// alone (no role): exact, at the tail, or abbreviated.
pub(crate) fn link(referent: &[String], collection: &[String]) -> Option<Link> {
    if referent.is_empty() || collection.is_empty() {
        return None;
    }
    let joined = referent.concat();
    let coll = collection.concat();
    if joined == coll {
        return Some(Link::Exact);
    }
    if referent.len() > collection.len() && referent.ends_with(collection) {
        return Some(Link::Tail);
    }
    // The referent's last word abbreviates the collection's name: its
    // prefix (`cust` → customer), or its letters in order from the first
    // (`msg` → message, `dept` → department).
    let last = referent.last().map_or("", String::as_str);
    if last.len() >= MIN_ABBREVIATION && last.len() < coll.len() && abbreviates(last, &coll) {
        return Some(Link::Abbreviation);
    }
    None
}

/// Whether `short` abbreviates `long`: same first letter, and every letter
/// of `short` found in `long` in order.
fn abbreviates(short: &str, long: &str) -> bool {
    let mut s = short.chars();
    let mut l = long.chars();
    if s.next() != l.next() {
        return false;
    }
    s.all(|c| l.any(|d| d == c))
}

/// Whether a field's words name a person's role (`SupportRepId`,
/// `createdBy`, `assignee`).
pub(crate) fn is_person_role(referent: &[String]) -> bool {
    referent
        .iter()
        .any(|w| PERSON_ROLES.contains(&w.as_str()) || PERSON_VERBS.contains(&w.as_str()))
}

/// Whether a field's words name a superior of the same kind (`ReportsTo`,
/// `manager`, `parent_id`).
pub(crate) fn is_hierarchy(referent: &[String]) -> bool {
    referent.iter().any(|w| HIERARCHY.contains(&w.as_str()))
}

/// Whether a collection holds people, by its name's last word.
pub(crate) fn holds_people(collection: &[String]) -> bool {
    collection
        .last()
        .is_some_and(|w| PEOPLE.contains(&w.as_str()))
}

/// Whether a field's name says it identifies its document (`account_id`,
/// `isbn`, `sku`, `email`, `username`, `activityName`): what a key other
/// than `_id` is named, and an amount (`totalPaid`) is not.
pub(crate) fn names_an_identifier(name: &str) -> bool {
    const IDENTIFYING: [&str; 17] = [
        "id", "key", "code", "no", "num", "nr", "number", "uuid", "guid", "slug", "email", "login",
        "username", "handle", "isbn", "sku", "name",
    ];
    let w = words(name);
    w.last().is_some_and(|l| IDENTIFYING.contains(&l.as_str()))
        || w.len() == 1 && {
            // One word: a suffix of three letters or more (`postalcode`,
            // `custkey`), never `id` alone (`paid`, `valid`).
            let one = w[0].as_str();
            IDENTIFYING
                .iter()
                .any(|s| s.len() >= 3 && one.len() > s.len() + 1 && one.ends_with(s))
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(words: &[&str]) -> Vec<String> {
        words.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn words_split_where_a_reader_splits() {
        for (name, want) in [
            ("SupportRepId", vec!["support", "rep", "id"]),
            ("customer_id", vec!["customer", "id"]),
            ("HTTPServer", vec!["http", "server"]),
            ("quotedMsgId", vec!["quoted", "msg", "id"]),
            ("l_orderkey", vec!["l", "orderkey"]),
            ("MediaTypeId", vec!["media", "type", "id"]),
            ("_id", vec!["id"]),
            ("userID", vec!["user", "id"]),
            ("address2", vec!["address2"]),
        ] {
            assert_eq!(words(name), v(&want), "{name}");
        }
    }

    #[test]
    fn referents() {
        for (name, holder, prefix, want) in [
            ("customer_id", None, None, vec!["customer"]),
            ("AlbumId", None, None, vec!["album"]),
            ("l_orderkey", None, Some("l_"), vec!["order"]),
            ("o_custkey", None, Some("o_"), vec!["cust"]),
            ("ps_suppkey", None, Some("ps_"), vec!["supp"]),
            ("id", Some("customer"), None, vec!["customer"]),
            ("account_ids", None, None, vec!["account"]),
            ("paid", None, None, vec!["paid"]),
            ("ReportsTo", None, None, vec!["reports", "to"]),
            ("genres", None, None, vec!["genre"]),
            ("account_no", None, None, vec!["account"]),
        ] {
            assert_eq!(referent(name, holder, prefix), v(&want), "{name}");
        }
    }

    #[test]
    fn links_by_strength() {
        let c = |n: &str| collection_words(n);
        let r = |n: &str, p: Option<&str>| referent(n, None, p);
        assert_eq!(link(&r("AlbumId", None), &c("Album")), Some(Link::Exact));
        assert_eq!(
            link(&r("MediaTypeId", None), &c("MediaType")),
            Some(Link::Exact)
        );
        assert_eq!(
            link(&r("customer_id", None), &c("customers")),
            Some(Link::Exact)
        );
        assert_eq!(
            link(&r("assignedUser", None), &c("users")),
            Some(Link::Tail)
        );
        assert_eq!(
            link(&r("manager_staff_id", None), &c("staff")),
            Some(Link::Tail)
        );
        assert_eq!(
            link(&r("o_custkey", Some("o_")), &c("customer")),
            Some(Link::Abbreviation)
        );
        assert_eq!(
            link(&r("quotedMsgId", None), &c("messages")),
            Some(Link::Abbreviation)
        );
        assert_eq!(
            link(&r("l_partkey", Some("l_")), &c("part")),
            Some(Link::Exact)
        );
        assert_eq!(
            link(&r("l_partkey", Some("l_")), &c("partsupp")),
            Some(Link::Abbreviation)
        );
        assert_eq!(link(&r("SupportRepId", None), &c("Employee")), None);
        assert_eq!(link(&r("roomname", None), &c("roomtypes")), None);
        assert_eq!(link(&r("from", None), &c("cities")), None);
        assert_eq!(link(&r("amount", None), &c("bookings")), None);
        assert!(Link::Exact > Link::Tail && Link::Tail > Link::Abbreviation);
        assert!(Link::Abbreviation > Link::Role);
    }

    #[test]
    fn roles_and_people() {
        assert!(is_person_role(&referent("SupportRepId", None, None)));
        assert!(is_person_role(&referent("createdBy", None, None)));
        assert!(!is_person_role(&referent("GenreId", None, None)));
        assert!(is_hierarchy(&referent("ReportsTo", None, None)));
        assert!(is_hierarchy(&referent("parent_id", None, None)));
        assert!(holds_people(&collection_words("Employee")));
        assert!(holds_people(&collection_words("users")));
        assert!(!holds_people(&collection_words("MediaType")));
    }

    #[test]
    fn prefixes_of_columns() {
        assert_eq!(
            column_prefix(["l_orderkey", "l_partkey", "l_suppkey", "l_quantity"]),
            Some("l_".to_owned())
        );
        assert_eq!(column_prefix(["_id", "name", "user_id"]), None);
        assert_eq!(
            column_prefix(["user_id", "user_name", "created"]),
            None,
            "two of three is not a convention"
        );
    }

    #[test]
    fn identifying_names() {
        for n in [
            "account_id",
            "isbn",
            "sku",
            "email",
            "activityName",
            "payId",
            "postalcode",
        ] {
            assert!(names_an_identifier(n), "{n}");
        }
        for n in ["totalPaid", "amount", "image", "price", "score", "valid"] {
            assert!(!names_an_identifier(n), "{n}");
        }
    }
}
