//! What a rule proposes to do about a finding, as data: the refactor
//! pattern and its parameters, named by the collection's own paths. The
//! `advise` stage turns a remedy into the suggestion a reader sees (summary,
//! before/after, effect, migration script); rules never build that text.

use crate::relate::{DriftCheck, KeyUniqueness, Relationship};
use crate::source::IndexInfo;

use super::lossy_numbers::Loss;
use super::number_text::Target;
use super::string_dates::DateFormat;
use super::Thresholds;

/// What the next audit judges a converted path by: the thresholds of the
/// rules that what a conversion leaves behind can set off (`None`: the
/// rule is switched off). A conversion script reads them to say, at run
/// time, which findings the re-audit will make on its path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reaudit {
    /// `mixed-types`' `min-share`: the share of values a second type needs.
    pub mixed_types: Option<f64>,
    /// `string-dates`' `min-share`: the share of documents holding dates as text.
    pub string_dates: Option<f64>,
    /// `reference-type-mismatch`' `min-share`: the share of references
    /// stored as strings.
    pub reference_type_mismatch: Option<f64>,
    /// `lossy-numbers`' `min-values`: integral doubles beyond 2^53.
    pub lossy_min_values: Option<f64>,
    /// `lossy-numbers`' `money-share`.
    pub lossy_money_share: f64,
}

impl Reaudit {
    pub(crate) fn of(t: &Thresholds) -> Reaudit {
        let on = |rule: &str, v: f64| t.enabled(rule).then_some(v);
        Reaudit {
            mixed_types: on("mixed-types", t.mixed_types.min_share),
            string_dates: on("string-dates", t.string_dates.min_share),
            reference_type_mismatch: on(
                "reference-type-mismatch",
                t.reference_type_mismatch.min_share,
            ),
            lossy_min_values: on("lossy-numbers", t.lossy_numbers.min_values),
            lossy_money_share: t.lossy_numbers.money_share,
        }
    }
}

impl Default for Reaudit {
    fn default() -> Reaudit {
        Reaudit::of(&Thresholds::default())
    }
}

/// One variant per suggestion `advise` can build. Paths are the profile's
/// paths (`reviews`, `a.b[]`) of the finding's collection.
#[derive(Clone, Debug)]
pub enum Remedy {
    /// Move the elements of the array at `array` into their own collection,
    /// each referencing its parent (`parent-reference`).
    ParentReference { array: String },
    /// Keep the last `keep` elements of `array` in the document, every
    /// element in a child collection (`subset`).
    Subset { array: String, keep: u64 },
    /// Move `path` to its own collection, one document per parent
    /// (`separate-collection`, or `gridfs` for binary data).
    Separate { path: String },
    /// Store the object at `object` as `{k, v}` pairs (`attribute`).
    Attribute { object: String },
    /// One document per hour (and series) instead of one per event (`bucket`).
    Bucket {
        date: String,
        series: Option<String>,
    },
    /// Create an index on the dotted path `keys` (`index`).
    CreateIndex { keys: String },
    /// Create the index `keys` (field, direction) in ESR order, replacing
    /// the index `extends` whose key is a prefix of it (`index`).
    EsrIndex {
        keys: Vec<(String, i64)>,
        extends: Option<String>,
    },
    /// Bound the array `array` (pushed onto as `update_path`) with
    /// `$push` + `$each` + `$slice`, keeping the last `keep` (`subset`).
    SlicePush {
        array: String,
        update_path: String,
        keep: u64,
    },
    /// A case-insensitive collation index on `field` (`index`).
    CollationIndex { field: String },
    /// What a hot `$lookup` of `from` joins: embedded (`embed`, or
    /// `extended-reference` when each document joins `one`), else an index
    /// on `foreign` (`index`).
    HotLookup {
        from: String,
        local: Option<String>,
        foreign: Option<String>,
        as_field: String,
        embed: bool,
        one: bool,
    },
    /// Stop copying `fields` of `source_ns` into `holder` (found by
    /// `reference`): they are written too often to copy
    /// (`extended-reference`, read-mostly fields only).
    StopCopying {
        holder: String,
        reference: String,
        source_ns: String,
        fields: Vec<String>,
    },
    /// Drop the index `name`: one that `covered_by` serves the same
    /// queries, or (`None`) one nobody uses (`index`).
    DropIndex {
        name: String,
        covered_by: Option<String>,
    },
    /// Drop the index `name`, led by `_id`, which serves nothing the `_id`
    /// index does not; `instead` is the field to index in its place, when
    /// the collection shows one (`index`).
    IdLedIndex {
        name: String,
        instead: Option<String>,
    },
    /// Drop the index `name`, whose leading key `lead` no document has;
    /// `instead` is a field the documents hold under a related name
    /// (`index`).
    DropLeadAbsent {
        name: String,
        lead: String,
        instead: Option<String>,
    },
    /// A TTL index whose field no document holds: check it (`index`).
    TtlField { index: IndexInfo },
    /// A sparse index whose fields no document holds: it holds no entry
    /// and costs nothing; say so, drop nothing (`index`).
    EmptySparseIndex { index: IndexInfo },
    /// Review the indexes with `$indexStats`, attributes in one index
    /// (`attribute`).
    ReviewIndexes,
    /// Convert the values at `path` to the one type that loses nothing
    /// (`schema-versioning`).
    ConvertType { path: String, reaudit: Reaudit },
    /// Add a discriminator telling the shapes apart: `(name, first field)`
    /// per shape (`polymorphic`).
    Discriminator { shapes: Vec<(String, String)> },
    /// Shorter field names: `(old, new)` (`schema-versioning`).
    Rename { renames: Vec<(String, String)> },
    /// Replace the array of child ids at `array` by a reference in each
    /// child of `child_coll` found by `child_key` (`parent-reference`).
    IdsToParentReference {
        array: String,
        child_coll: String,
        child_key: String,
    },
    /// Refresh copies from their source (`extended-reference`).
    RefreshCopies { drift: DriftCheck },
    /// List copies that disagree with each other (`extended-reference`).
    CopiesDisagree { drift: DriftCheck },
    /// Read the strings of a reference kept in two representations as the
    /// other one, where they name an existing document (`schema-versioning`).
    ConvertReference {
        relationship: Relationship,
        reaudit: Reaudit,
    },
    /// Copies that are a snapshot of their source: keep only the fields
    /// that do not change, or a reference — never a refresh, which would
    /// rewrite what the holder recorded (`extended-reference`).
    SnapshotCopies { drift: DriftCheck },
    /// Copy a family of collections of `db` (`(collection, key)`) into
    /// `target`, each document with its key in `key_field` (`polymorphic`).
    ConsolidateFamily {
        db: String,
        target: String,
        key_field: String,
        members: Vec<(String, String)>,
    },
    /// Collections of database `db` holding one kind of document under the
    /// names of its types: one collection with `type_field` telling them
    /// apart (`polymorphic`). `shared` are the top-level fields all hold;
    /// `recorded`: each member already holds its type in `type_field`;
    /// `kinds`: each member's value of it (the one recorded, else the
    /// member's name in the singular); `reference`: a shared reference
    /// field, the one index's first key.
    Siblings {
        db: String,
        members: Vec<String>,
        kinds: Vec<String>,
        shared: Vec<String>,
        type_field: String,
        recorded: bool,
        reference: Option<String>,
    },
    /// Two collections holding the same documents: count what they share,
    /// then drop one or make it a view (`a` and `b` are `db.coll`).
    DuplicateCollection { a: String, b: String },
    /// Merge collections of one shape of database `db` (`polymorphic`).
    MergeCollections { db: String, colls: Vec<String> },
    /// Flatten or split off the deep sub-tree at `path`
    /// (`separate-collection`).
    Flatten { path: String },
    /// Convert date strings at `path` to BSON dates (`schema-versioning`).
    StringDates {
        path: String,
        formats: Vec<(DateFormat, u64)>,
        example: String,
        reaudit: Reaudit,
    },
    /// Store the numbers written as text at `path` as `target`, empty text
    /// removed (`empty` values of it in the sample); what does not convert
    /// stays, and beside numbers it is `mixed-types`' from `mixed_floor`
    /// of the values on (`schema-versioning`).
    NumericStrings {
        path: String,
        target: Target,
        empty: u64,
        example: String,
        mixed_floor: f64,
    },
    /// Let the server delete documents once their date at `path` has
    /// passed: a TTL index (`expireAfterSeconds: 0`; with `start`, the date
    /// is when the document began and the lifetime is the application's),
    /// deleting the `expired` documents as soon as it exists; and an index
    /// on `lookup`, the key documents are found by (`index`).
    ExpireDocuments {
        path: String,
        start: bool,
        expired: u64,
        lookup: Option<String>,
        indexes_known: bool,
    },
    /// Give numbers at `path` a type that holds them exactly.
    LossyNumbers {
        path: String,
        loss: Loss,
        reaudit: Reaudit,
    },
    /// Find and settle references that point at no document.
    Dangling { relationship: Relationship },
    /// List the links of a two-way reference held by one side only (the
    /// relationship carries the check): keep one side, or write both in
    /// one transaction.
    TwoWaySync { relationship: Relationship },
    /// Make the referenced key `key` unique.
    UniqueKey {
        key: String,
        uniqueness: KeyUniqueness,
        /// The uniqueness was measured on the whole collection (a unique
        /// index, a server count, a whole file, or every document kept),
        /// not on a sample.
        whole: bool,
    },
}
