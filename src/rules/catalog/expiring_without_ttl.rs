//! `expiring-without-ttl`: documents that carry the date they expire, and
//! nothing removes them once it has passed (seed 002: let a TTL index
//! expire data rather than keep it, or cap it). Sessions, refresh tokens,
//! one-time codes: each one the application refuses once expired, each
//! one still stored, read by every scan and kept in every backup.
//!
//! An expiry date is a date field whose name says the document ends then
//! (`expires`, `expiresAt`, `expiry`, `expirationDate`, `validUntil`,
//! `exp`, `deleteAt` …) and most of whose values lie in the past; in a
//! session or token store (by its collection's name) a qualified name
//! counts too (`tokenExpiry`), and without one the store's own date
//! (`createdAt`: there the lifetime is the application's, and the finding
//! is an info). Elsewhere only a bare name counts (`passwordResetExpires`
//! in `users` dates a reset, not the user) and only in a collection no
//! reference points at and whose documents mostly carry it: a TTL index
//! deletes whole documents, and a referenced one (a job posting its
//! applications name) is history, not garbage; there the finding is an
//! info too.

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::{group, percent};
use crate::i18n::Lang;
use crate::profile::raw::{self, BsonType};
use crate::profile::{extract, FieldProfile, Seg};
use crate::relate::names::words;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "expiring-without-ttl",
    title: "Expired documents nothing removes",
    explanation: (
        "Sessions, refresh tokens and one-time codes carry the date they expire; once it has passed the application refuses them, yet they stay: every scan and backup carries them, the collection only grows, and a token that should be gone is still there to be stolen with the rest. A TTL index with expireAfterSeconds: 0 on the expiry date lets the server delete each document when its date passes (its TTL monitor runs every 60 seconds) — the seeds prefer it to capped collections for data that ages out. A store of tokens is also read by the token itself: without an index on that field every lookup scans the collection.",
        "会话、刷新令牌和一次性验证码都带有过期时间；过期之后应用不再接受它们，它们却仍然留在库里：每次扫描和备份都要带上它们，集合只增不减，本该消失的令牌还留在那里，可能和其他数据一起被窃取。在过期时间字段上建立 expireAfterSeconds: 0 的 TTL 索引，服务器就会在每个文档的时间到达后删除它（TTL 监视器每 60 秒运行一次）——对于会过期的数据，种子材料更推荐 TTL 而不是固定集合。令牌集合还要按令牌本身查找：这个字段没有索引时，每次查找都要扫描整个集合。",
    ),
    source: "seeds/002 (expire data with a TTL index rather than a capped collection), MongoDB docs (TTL indexes: expire documents at a specific clock time)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// share of an expiry field's dates that lie in the past
        min_expired_share: 0.5,
        /// share of the collection's documents expired that makes it a warning
        warning_share: 0.5,
    },
}

/// Words that say a date ends its document.
const EXPIRY: [&str; 15] = [
    "exp",
    "expire",
    "expires",
    "expired",
    "expiry",
    "expiration",
    "expiring",
    "ttl",
    "until",
    "delete",
    "deletion",
    "purge",
    "remove",
    "removal",
    "evict",
];

/// Words that may stand beside an expiry word in a bare name
/// (`expiresAt`, `validUntil`, `dateExpire`, `expiration_date`).
const BARE: [&str; 12] = [
    "at",
    "on",
    "date",
    "time",
    "ts",
    "timestamp",
    "in",
    "valid",
    "to",
    "thru",
    "through",
    "after",
];

/// Parts of a collection's name that make it a store of sessions or
/// tokens (`sessions`, `refreshtokens`, `oauth_authcodes`).
const STORES: [&str; 8] = [
    "session",
    "token",
    "nonce",
    "authcode",
    "magiclink",
    "verification",
    "passwordreset",
    "resetpassword",
];

/// Whole words of a collection's name that make it such a store.
const STORE_WORDS: [&str; 2] = ["otp", "otps"];

/// How a date names the end of its document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// Only expiry words and their companions (`expiresAt`, `validUntil`).
    Bare,
    /// An expiry word qualified by what expires (`tokenExpiry`,
    /// `resetPasswordExpires`).
    Qualified,
}

/// Whether `name` names an expiry, and how.
pub fn expiry_name(name: &str) -> Option<Named> {
    let w = words(name);
    let expiry = w.iter().any(|x| EXPIRY.contains(&x.as_str()))
        || (w.iter().any(|x| x == "valid")
            && w.iter()
                .any(|x| matches!(x.as_str(), "to" | "thru" | "through")));
    if !expiry {
        return None;
    }
    let bare = w
        .iter()
        .all(|x| EXPIRY.contains(&x.as_str()) || BARE.contains(&x.as_str()));
    Some(if bare { Named::Bare } else { Named::Qualified })
}

/// True when a collection's name makes it a store of sessions or tokens.
pub fn store_name(coll: &str) -> bool {
    let last = coll.rsplit('.').next().unwrap_or(coll).to_lowercase();
    STORES.iter().any(|s| last.contains(s))
        || words(coll)
            .iter()
            .any(|w| STORE_WORDS.contains(&w.as_str()))
}

/// The last key of a path.
fn last_key(f: &FieldProfile) -> Option<&str> {
    match f.segments.last() {
        Some(Seg::Key(k)) => Some(k),
        _ => None,
    }
}

/// A date path a TTL index could expire documents by: mostly dates, outside
/// any array.
fn datelike(f: &FieldProfile) -> bool {
    let dates = f.type_count(BsonType::Date);
    let held: u64 = f
        .types
        .iter()
        .filter(|(t, _)| !matches!(t, BsonType::Null | BsonType::Undefined))
        .map(|(_, n)| n)
        .sum();
    dates > 0 && dates * 20 >= held * 19 && !f.segments.contains(&Seg::Elem)
}

/// The date paths of collection `coll` that the rule judges, with what
/// makes each an end: the expiry-named ones; in a store of sessions or
/// tokens without one, its dates (`None`). The whole-collection pass
/// counts their expired documents.
pub fn dated_paths<'a>(
    coll: &str,
    fields: &'a [FieldProfile],
) -> Vec<(&'a FieldProfile, Option<Named>)> {
    let store = store_name(coll);
    let named: Vec<(&FieldProfile, Option<Named>)> = fields
        .iter()
        .filter(|f| datelike(f))
        .filter_map(|f| {
            let n = expiry_name(last_key(f)?)?;
            (store || n == Named::Bare).then_some((f, Some(n)))
        })
        .collect();
    if !named.is_empty() || !store {
        return named;
    }
    fields
        .iter()
        .filter(|f| datelike(f) && f.depth == 0)
        .map(|f| (f, None))
        .collect()
}

/// What the documents say of one date path.
#[derive(Clone, Copy, Default)]
struct Dates {
    /// Documents holding a date there.
    holding: u64,
    /// Of them, those before now.
    past: u64,
    /// Documents counted (every document of the collection when `whole`).
    documents: u64,
    min: Option<i64>,
    max: Option<i64>,
    whole: bool,
}

fn count_kept(ctx: &CollectionCtx<'_>, f: &FieldProfile) -> Dates {
    let now_ms = (ctx.now * 1000.0) as i64;
    let mut d = Dates {
        documents: ctx.data.kept.len() as u64,
        ..Dates::default()
    };
    for doc in ctx.data.kept {
        let at = extract::values(doc, &f.segments)
            .into_iter()
            .find(|e| e.ty == BsonType::Date)
            .and_then(|e| raw::value::i64(e.value));
        if let Some(ms) = at {
            d.holding += 1;
            d.past += u64::from(ms < now_ms);
            d.min = Some(d.min.map_or(ms, |m| m.min(ms)));
            d.max = Some(d.max.map_or(ms, |m| m.max(ms)));
        }
    }
    d.whole = ctx.scope_name(d.documents) == crate::rules::context::SCOPE_COLLECTION;
    d
}

/// The dates of `f`: counted by the server over every document where the
/// whole-collection pass measured them, else in the kept documents.
fn dates_of(ctx: &CollectionCtx<'_>, f: &FieldProfile) -> Dates {
    let measured = ctx
        .data
        .extremes
        .and_then(|e| e.dates.iter().find(|d| d.path == f.path).map(|d| (e, d)));
    match measured {
        Some((e, m)) => Dates {
            holding: m.documents,
            past: m.past,
            documents: e.documents,
            min: m.min,
            max: m.max,
            whole: true,
        },
        None => count_kept(ctx, f),
    }
}

/// Whether an index or the collection's options remove documents on their
/// own: a TTL index on a date the documents hold, a capped collection, or
/// a time-series or clustered collection with `expireAfterSeconds`.
fn removed_by(ctx: &CollectionCtx<'_>) -> Option<String> {
    let ttl = ctx.data.indexes.iter().find(|i| {
        i.expire_after_seconds.is_some()
            && i.key
                .keys()
                .next()
                .and_then(|k| ctx.field(k))
                .is_some_and(|f| f.type_count(BsonType::Date) > 0)
    });
    if let Some(i) = ttl {
        return Some(i.name.clone());
    }
    let opts = ctx.data.meta.options.as_ref()?;
    if opts.get("capped").and_then(serde_json::Value::as_bool) == Some(true) {
        return Some("capped".into());
    }
    opts.get("expireAfterSeconds")
        .map(|_| "expireAfterSeconds".into())
}

/// Words that make a field the key a token or session is found by.
const LOOKUP_WORDS: [&str; 5] = ["token", "sid", "jti", "hash", "code"];
/// Words that make such a field point at another token instead.
const NOT_LOOKUP: [&str; 5] = ["replaced", "previous", "prev", "old", "parent"];

/// The field a store's documents are found by (`token`, `refreshToken`,
/// `sessionId`): a top-level string or binary field held by nearly every
/// document, named so; the most distinct one when several are.
fn lookup_key<'a>(ctx: &'a CollectionCtx<'_>) -> Option<&'a FieldProfile> {
    let named = |f: &FieldProfile| {
        let w = words(&f.name);
        let joined = w.concat();
        !w.iter().any(|x| NOT_LOOKUP.contains(&x.as_str()))
            && (w.iter().any(|x| LOOKUP_WORDS.contains(&x.as_str())) || joined == "sessionid")
    };
    let typed = |f: &FieldProfile| {
        matches!(
            f.main_type(),
            Some(BsonType::String | BsonType::BinData | BsonType::ObjectId)
        )
    };
    ctx.fields()
        .iter()
        .filter(|f| f.depth == 0 && f.path != "_id" && f.presence >= 0.9)
        .filter(|f| typed(f) && named(f))
        .max_by(|a, b| {
            let d = |f: &FieldProfile| f.distinct.map_or(0, |d| d.estimate);
            let exact = |f: &FieldProfile| u8::from(f.name == "token");
            (d(a), exact(a), a.presence)
                .partial_cmp(&(d(b), exact(b), b.presence))
                .unwrap_or(std::cmp::Ordering::Equal)
        })
}

/// Whether an index leads with `path`.
fn leads_an_index(ctx: &CollectionCtx<'_>, path: &str) -> bool {
    ctx.data
        .indexes
        .iter()
        .any(|i| i.key.keys().next().is_some_and(|x| x == path))
}

/// What makes the date an expiry: its name, bare or qualified, or a
/// store's own date.
fn basis(named: Option<Named>) -> &'static str {
    match named {
        Some(Named::Bare) => "expiry-name",
        Some(Named::Qualified) => "qualified-expiry-name",
        None => "store-date",
    }
}

/// A date as RFC 3339 text.
fn iso(ms: Option<i64>) -> Option<String> {
    ms.and_then(|ms| bson::DateTime::from_millis(ms).try_to_rfc3339_string().ok())
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let l = &t.expiring_without_ttl;
    if removed_by(ctx).is_some() || ctx.data.kind != crate::source::CollectionKind::Collection {
        return Vec::new();
    }
    let store = store_name(ctx.coll());
    // A TTL index deletes whole documents: never one a reference names.
    let referenced = ctx
        .relationships
        .iter()
        .any(|r| r.to_ns == ctx.ns() && r.from_ns != ctx.ns());
    if !store && referenced {
        return Vec::new();
    }
    let indexes_known = !ctx.data.indexes.is_empty();
    // The first expiry path whose dates have run out; a store's own date
    // when it has no expiry path.
    let found = dated_paths(ctx.coll(), ctx.fields())
        .into_iter()
        .map(|(f, named)| (f, named, dates_of(ctx, f)))
        .find(|(_, named, d)| {
            // Outside a store, most documents must carry the date: a few
            // that do (the reservations among a library's loans) do not
            // make the collection's documents ones that expire.
            d.holding > 0
                && (store || d.holding * 2 > d.documents)
                && (named.is_none() || d.past as f64 / d.holding as f64 >= l.min_expired_share)
        });
    let Some((f, named, d)) = found else {
        return Vec::new();
    };
    let start = named.is_none();
    let expired_share = d.past as f64 / d.documents.max(1) as f64;
    let severity = if store && !start && indexes_known && expired_share >= l.warning_share {
        Severity::Warning
    } else {
        Severity::Info
    };
    let lookup = if store { lookup_key(ctx) } else { None };
    let lookup_indexed = lookup.is_some_and(|k| leads_an_index(ctx, &k.path));
    let counted_on = if d.whole { "collection" } else { "sample" };
    let evidence = Expiring {
        date_field: &f.path,
        basis: basis(named),
        store,
        documents: d.documents,
        holding: d.holding,
        expired: d.past,
        expired_share,
        oldest: iso(d.min),
        newest: iso(d.max),
        counted_on,
        indexes_known,
        lookup_key: lookup.map(|k| LookupKey {
            path: &k.path,
            indexed: lookup_indexed,
        }),
        sampled: if d.whole { d.documents } else { ctx.sampled() },
        scope: counted_on,
        threshold: Crossed::of(t, if severity == Severity::Warning {
            Key::warning_share
        } else {
            Key::min_expired_share
        }),
        coll: ctx.coll(),
        measured: if d.whole { ctx.measured_on(d.documents) } else { ctx.measured() },
        kept: (!d.whole).then_some(ctx.data.kept.len() as u64),
    };
    let remedy = Remedy::ExpireDocuments {
        path: f.path.clone(),
        start,
        expired: d.past,
        lookup: lookup.filter(|_| !lookup_indexed).map(|k| k.path.clone()),
        indexes_known,
    };
    let path = Some(f.path.clone());
    vec![Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy)]
}

/// What `expiring-without-ttl` found of a collection's expiry date.
#[derive(Serialize)]
struct Expiring<'a> {
    date_field: &'a str,
    /// `expiry-name`, `qualified-expiry-name`, or `store-date` (a store's
    /// own date, when it has no expiry field).
    basis: &'static str,
    store: bool,
    documents: u64,
    holding: u64,
    expired: u64,
    expired_share: f64,
    oldest: Option<String>,
    newest: Option<String>,
    counted_on: &'static str,
    indexes_known: bool,
    lookup_key: Option<LookupKey<'a>>,
    sampled: u64,
    scope: &'static str,
    threshold: Crossed,
    #[serde(skip)]
    coll: &'a str,
    #[serde(skip)]
    measured: Measured,
    /// The documents kept in memory the dates were counted on, when not
    /// every document's dates were.
    #[serde(skip)]
    kept: Option<u64>,
}

/// The field a store's documents are found by, and whether an index
/// leads with it.
#[derive(Serialize)]
struct LookupKey<'a> {
    path: &'a str,
    indexed: bool,
}

impl Evidence for Expiring<'_> {
    fn describe(&self, lang: Lang) -> String {
        let scope = match self.kept {
            Some(kept) => self.measured.kept_words(kept, lang),
            None => self.measured.words(lang),
        };
        let removal = if self.indexes_known {
            lang.pick(
                "no TTL index removes them".to_owned(),
                "没有 TTL 索引删除它们".to_owned(),
            )
        } else {
            lang.pick(
                "the export lists no indexes, so whether a TTL index removes them is unknown"
                    .to_owned(),
                "导出中没有索引信息，无法判断是否有 TTL 索引删除它们".to_owned(),
            )
        };
        let (coll, path) = (self.coll, self.date_field);
        if self.basis == "store-date" {
            let (holding, documents) = (group(self.holding), group(self.documents));
            let oldest = self.oldest.as_deref().unwrap_or("?");
            return lang.pick(
                format!("{coll} stores sessions or tokens and has no expiry field: its documents are dated by {path} ({holding} of {documents} documents, the oldest from {oldest}) {scope}, and {removal}"),
                format!("{coll} 保存会话或令牌，却没有过期字段：它的文档以 {path} 记录日期（{documents} 个文档中有 {holding} 个，最早的是 {oldest}），{scope}，{removal}"),
            );
        }
        let key_note = match &self.lookup_key {
            Some(key) if self.indexes_known && !key.indexed => lang.pick(
                format!("; nor does an index lead with {}, the field a token is found by", key.path),
                format!("；也没有以 {}（查找令牌所用的字段）开头的索引", key.path),
            ),
            _ => String::new(),
        };
        let (past, share) = (group(self.expired), percent(self.expired_share));
        lang.pick(
            format!("{past} documents have expired ({path} in the past) {scope} ({share}), and {removal}{key_note}"),
            format!("{scope}有 {past} 个文档已过期（{path} 早于当前时间；占 {share}），{removal}{key_note}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use crate::rules::testing;
    use crate::source::IndexInfo;
    use bson::{doc, Document};

    /// `ctx.now` of the rules' tests, in milliseconds.
    const NOW_MS: i64 = 1_800_000_000_000;
    const DAY_MS: i64 = 86_400_000;

    fn date(ms: i64) -> bson::DateTime {
        bson::DateTime::from_millis(ms)
    }

    /// `n` refresh tokens, `past` of them expired.
    fn tokens(n: i64, past: i64) -> Vec<Document> {
        (0..n)
            .map(|i| {
                let expires = if i < past {
                    NOW_MS - (i + 1) * DAY_MS
                } else {
                    NOW_MS + (i + 1) * DAY_MS
                };
                doc! {"_id": i, "user": i % 7, "token": format!("t{i:04}"), "expires": date(expires), "created": date(expires - 7 * DAY_MS)}
            })
            .collect()
    }

    fn index(spec: &Document) -> IndexInfo {
        IndexInfo::from_spec(spec).expect("index spec")
    }

    fn id_index() -> IndexInfo {
        index(&doc! {"v": 2, "name": "_id_", "key": {"_id": 1}})
    }

    fn run_with(ns: &str, docs: &[Document], indexes: Vec<IndexInfo>) -> Vec<Finding> {
        let mut r = testing::report(ns, docs);
        r.indexes = indexes;
        check(&testing::ctx(&r, &[]), &Thresholds::default(), Lang::En)
    }

    #[test]
    fn names_that_end_a_document() {
        for (name, want) in [
            ("expires", Some(Named::Bare)),
            ("expiresAt", Some(Named::Bare)),
            ("expireAt", Some(Named::Bare)),
            ("expiry", Some(Named::Bare)),
            ("expirationDate", Some(Named::Bare)),
            ("dateExpire", Some(Named::Bare)),
            ("validUntil", Some(Named::Bare)),
            ("valid_to", Some(Named::Bare)),
            ("exp", Some(Named::Bare)),
            ("deleteAt", Some(Named::Bare)),
            ("tokenExpiry", Some(Named::Qualified)),
            ("resetPasswordExpires", Some(Named::Qualified)),
            ("endDate", None),
            ("dueDate", None),
            ("created", None),
            ("experience", None),
            ("export", None),
        ] {
            assert_eq!(expiry_name(name), want, "{name}");
        }
        for (coll, want) in [
            ("refreshtokens", true),
            ("sessions", true),
            ("oauth_authcodes", true),
            ("user_otps", true),
            ("footprints", false),
            ("users", false),
            ("jobs", false),
        ] {
            assert_eq!(store_name(coll), want, "{coll}");
        }
    }

    #[test]
    fn expired_tokens_without_a_ttl_index_are_a_warning_with_the_lookup_key() {
        let f = run_with("auth.refreshtokens", &tokens(100, 80), vec![id_index()]);
        assert_eq!(f.len(), 1, "{f:?}");
        let x = &f[0];
        assert_eq!(x.severity, Severity::Warning);
        assert_eq!(x.path.as_deref(), Some("expires"));
        assert_eq!(x.evidence["expired"], json!(80));
        assert_eq!(x.evidence["documents"], json!(100));
        assert_eq!(x.evidence["counted_on"], json!("collection"));
        assert_eq!(
            x.evidence["lookup_key"],
            json!({"path": "token", "indexed": false})
        );
        assert!(
            x.message.starts_with("80 documents have expired (expires in the past) in all 100 documents (80 %), and no TTL index removes them; nor does an index lead with token"),
            "{}",
            x.message
        );
        assert!(matches!(
            &x.remedy,
            Remedy::ExpireDocuments { path, start: false, expired: 80, lookup: Some(k), indexes_known: true } if path == "expires" && k == "token"
        ));
        // Fewer than half expired: info.
        let f = run_with("auth.refreshtokens", &tokens(100, 30), vec![id_index()]);
        assert!(f.is_empty(), "under half the dates past: {f:?}");
        let mut t = Thresholds::default();
        t.expiring_without_ttl.min_expired_share = 0.2;
        let mut r = testing::report("auth.refreshtokens", &tokens(100, 30));
        r.indexes = vec![id_index()];
        let f = check(&testing::ctx(&r, &[]), &t, Lang::Zh);
        assert_eq!(f[0].severity, Severity::Info);
        assert!(
            f[0].message.contains("有 30 个文档已过期"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn a_ttl_index_or_an_index_on_the_key_is_seen() {
        let ttl = index(
            &doc! {"v": 2, "name": "expires_1", "key": {"expires": 1}, "expireAfterSeconds": 0},
        );
        assert_eq!(ttl.expire_after_seconds, Some(0));
        let f = run_with("auth.refreshtokens", &tokens(50, 50), vec![id_index(), ttl]);
        assert!(f.is_empty(), "{f:?}");
        let keyed = index(&doc! {"v": 2, "name": "token_1", "key": {"token": 1}});
        let f = run_with(
            "auth.refreshtokens",
            &tokens(50, 50),
            vec![id_index(), keyed],
        );
        assert_eq!(f[0].evidence["lookup_key"]["indexed"], json!(true));
        assert!(matches!(
            &f[0].remedy,
            Remedy::ExpireDocuments { lookup: None, .. }
        ));
    }

    #[test]
    fn unknown_indexes_are_said_and_never_claimed() {
        let f = run_with("auth.refreshtokens", &tokens(50, 50), Vec::new());
        assert_eq!(f[0].severity, Severity::Info);
        assert!(
            f[0].message.contains("the export lists no indexes")
                && !f[0].message.contains("no TTL index"),
            "{}",
            f[0].message
        );
    }

    #[test]
    fn business_dates_and_referenced_documents_are_not_garbage() {
        // A user's password-reset expiry dates the reset, not the user.
        let users: Vec<Document> = (0..40)
            .map(|i| doc! {"_id": i, "name": format!("u{i}"), "local": {"resetPasswordExpires": date(NOW_MS - DAY_MS)}})
            .collect();
        assert!(run_with("app.users", &users, vec![id_index()]).is_empty());
        // Bookings end; their end is no expiry.
        let bookings: Vec<Document> = (0..40)
            .map(|i| doc! {"_id": i, "endDate": date(NOW_MS - DAY_MS)})
            .collect();
        assert!(run_with("app.bookings", &bookings, vec![id_index()]).is_empty());
        // A job posting expires, and applications reference it.
        let jobs: Vec<Document> = (0..40)
            .map(|i| doc! {"_id": i, "title": "x", "dateExpire": date(NOW_MS - DAY_MS)})
            .collect();
        let mut r = testing::report("app.jobs", &jobs);
        r.indexes = vec![id_index()];
        let rel = testing::relationship("app.applications", "job", "app.jobs", "_id", 10, 10, None);
        let f = check(
            &testing::ctx(&r, std::slice::from_ref(&rel)),
            &Thresholds::default(),
            Lang::En,
        );
        assert!(f.is_empty(), "{f:?}");
        // Unreferenced, it is an info: removing expired postings is the
        // application's call.
        let f = check(&testing::ctx(&r, &[]), &Thresholds::default(), Lang::En);
        assert_eq!(f[0].severity, Severity::Info);
        // A few loans among many that carry an expiry (reservations): the
        // collection's documents are not ones that expire.
        let loans: Vec<Document> = (0..40)
            .map(|i| {
                let mut d = doc! {"_id": i, "book": i % 9};
                if i < 3 {
                    d.insert("expirationDate", date(NOW_MS - DAY_MS));
                }
                d
            })
            .collect();
        assert!(run_with("library.issueDetails", &loans, vec![id_index()]).is_empty());
    }

    #[test]
    fn a_store_without_an_expiry_field_is_dated_by_its_own_date() {
        let sessions: Vec<Document> = (0..30)
            .map(|i| doc! {"_id": format!("s{i}"), "createdAt": date(NOW_MS - i * DAY_MS), "data": "{}"})
            .collect();
        let f = run_with("app.sessions", &sessions, vec![id_index()]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::Info);
        assert_eq!(f[0].evidence["basis"], json!("store-date"));
        assert!(matches!(
            &f[0].remedy,
            Remedy::ExpireDocuments { start: true, .. }
        ));
    }
}
