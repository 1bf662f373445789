//! The rule catalogue in one place: every rule's id, what it looks at,
//! its one-line title (SARIF's short description), why it matters
//! (explanation, both languages), where it comes from, and its check. The
//! rule list, the configuration, SARIF's rule descriptors and
//! `docs/rules.md` all read it. Adding a rule: its own file, one line here,
//! its thresholds in `config`.

use super::{
    bloated_document, case_insensitive_regex, collection_per_tenant, dangling_references,
    deep_nesting, denormalization_drift, document_near_limit, duplicate_collection, dynamic_keys,
    expiring_without_ttl, id_led_index, index_esr, large_reference_array, long_field_names,
    lookup_on_hot_path, lossy_numbers, missing_reference_index, mixed_types,
    non_unique_reference_key, numeric_strings, polymorphic_without_discriminator,
    push_without_slice, redundant_index, reference_type_mismatch, sibling_collections,
    string_dates, time_series_per_event, too_many_collections, too_many_fields, too_many_indexes,
    two_way_out_of_sync, unbounded_array, unindexed_query, unused_index, write_amplified_copy,
    CollectionCtx, DeploymentCtx, Finding, Thresholds,
};
use crate::i18n::Lang;

/// A rule on one collection.
pub type CollectionCheck = fn(&CollectionCtx<'_>, &Thresholds, Lang) -> Vec<Finding>;
/// A rule on every database read.
pub type DeploymentCheck = fn(&DeploymentCtx<'_>, &Thresholds, Lang) -> Vec<Finding>;

/// What a rule looks at, and so how it runs.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    Collection(CollectionCheck, Basis),
    Deployment(DeploymentCheck),
}

/// What a collection rule's figures rest on, for the `scope` of its findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Documents read: `sample` unless every document was (the number read
    /// is the finding's `sampled` evidence, else the profile's).
    Documents,
    /// The collection's metadata (its indexes, their statistics): always
    /// `collection`.
    Metadata,
}

/// One rule of the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct RuleInfo {
    pub id: &'static str,
    /// One line, English (SARIF `shortDescription`).
    pub title: &'static str,
    /// Why it matters: `(English, Chinese)`.
    pub explanation: (&'static str, &'static str),
    /// Where the rule comes from (a seed file, MongoDB's documentation …).
    pub source: &'static str,
    /// The keys of its `[rule-id]` table and what each means (the values
    /// are in the rule's `Limits`).
    pub thresholds: &'static [(&'static str, &'static str)],
    pub check: Check,
}

impl RuleInfo {
    /// The explanation in `lang`.
    pub fn explanation(&self, lang: Lang) -> &'static str {
        lang.pick(self.explanation.0, self.explanation.1)
    }
}

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static RuleInfo> {
    REGISTRY.iter().find(|r| r.id == id)
}

/// Every rule, in the contract's order.
pub const REGISTRY: [RuleInfo; 35] = [
    RuleInfo {
        id: "unbounded-array",
        title: "Array grows without bound or is too long to embed",
        explanation: (
            "An array that keeps growing makes every write move a larger document, every read fetch all of it, and the document eventually hits MongoDB's 16 MiB limit. The seeds' third rule of thumb: arrays must not grow without bound — with hundreds of children keep an array of references, with thousands or an open-ended stream (logs, comments, transactions) let each child reference its parent.",
            "不断增长的数组会让每次写入都要移动更大的文档，每次读取都要取回整个数组，文档最终会碰到 MongoDB 16 MiB 的上限。种子材料的第三条经验法则：数组不应该无限制增长——“多”的一方有数百个时用子引用数组，有数千个或无上限（日志、评论、交易）时改用父引用，让每个子文档引用其父文档。",
        ),
        source: "seeds/000 (rule 3), seeds/001 (when to reference), seeds/004; Atlas schema advisor (> 10,000), Compass (≥ 250)",
        thresholds: unbounded_array::THRESHOLDS,
        check: Check::Collection(unbounded_array::check, Basis::Documents),
    },
    RuleInfo {
        id: "large-reference-array",
        title: "Array of thousands of references",
        explanation: (
            "An array of child ids works for hundreds of children; with thousands the parent document grows with every child, each append rewrites it, and the array alone approaches the 16 MiB limit. The seeds' rule: with thousands of children, do not embed even their ObjectIds — store the parent's id in each child (parent reference) and index it.",
            "子引用数组适合数百个子文档；当有数千个时，父文档会随每个子文档增长，每次追加都要重写父文档，仅这个数组就可能逼近 16 MiB 上限。种子材料的法则：如果有数千个文档对象，就不要再内嵌 ObjectID 的数组——改为在每个子文档中保存父文档的 id（父引用），并为它建立索引。",
        ),
        source: "seeds/000 (rule 3), seeds/004 (one-to-many vs one-to-squillions)",
        thresholds: large_reference_array::THRESHOLDS,
        check: Check::Collection(large_reference_array::check, Basis::Documents),
    },
    RuleInfo {
        id: "document-near-limit",
        title: "Document near the 16 MiB limit",
        explanation: (
            "MongoDB refuses any document over 16 MiB, so a write that would cross the limit fails outright; long before that, every read and update moves megabytes. The seeds: reference what is large (MBs, near 16 MiB), what changes often, and what grows without a cap — keep in the document only what is read with it.",
            "MongoDB 拒绝任何超过 16 MiB 的文档，越过上限的写入会直接失败；远在此之前，每次读写都要搬动数兆字节的数据。种子材料：内嵌文档太大（数 MB 或接近 16 MiB）、频繁修改或持续增长没有封顶时，应使用引用——文档中只保留与它一起读取的数据。",
        ),
        source: "seeds/001 (when to reference), seeds/002, seeds/003; Compass (10 MB)",
        thresholds: document_near_limit::THRESHOLDS,
        check: Check::Collection(document_near_limit::check, Basis::Documents),
    },
    RuleInfo {
        id: "bloated-document",
        title: "Large documents, or one field carrying most of the bytes",
        explanation: (
            "Large documents fill the cache with bytes most queries never use, so fewer documents fit in memory and every read costs more I/O. The seeds' avatar example: a 5–10 MB image read by one query in ten belongs in its own collection (or GridFS), referenced from the contact.",
            "大文档会用大多数查询根本不需要的字节填满缓存，内存能容纳的文档变少，每次读取的 I/O 代价更高。种子材料中的头像例子：5–10 MB、十次查询只用到一次的头像，应该放到独立集合（或 GridFS）中，由联系人文档引用。",
        ),
        source: "seeds/001 (avatar 5–10 MB), Atlas schema advisor (> 2 MB)",
        thresholds: bloated_document::THRESHOLDS,
        check: Check::Collection(bloated_document::check, Basis::Documents),
    },
    RuleInfo {
        id: "time-series-per-event",
        title: "Time series stored one event per document",
        explanation: (
            "One document per event pays the per-document overhead (its _id, index entries, field names) for a few bytes of data, and a query over an hour reads thousands of documents. The bucket pattern stores one document per series and time span with the events in an array and pre-computed counts and sums, cutting document and index counts by an order of magnitude; MongoDB's time-series collections do this for you.",
            "每个事件一个文档，意味着为几个字节的数据付出每个文档固定的开销（_id、索引项、字段名），而查询一小时的数据就要读取成千上万个文档。桶模式按序列和时间段把事件存进一个文档的数组中，并预先计算 count、sum 等统计值，可以把文档数和索引项减少一个数量级；MongoDB 的时间序列集合也会自动这样做。",
        ),
        source: "seeds/002 (ch. 4, operational intelligence), seeds/003 (bucket pattern)",
        thresholds: time_series_per_event::THRESHOLDS,
        check: Check::Collection(time_series_per_event::check, Basis::Documents),
    },
    RuleInfo {
        id: "dynamic-keys",
        title: "Object keys that are data",
        explanation: (
            "When keys are values (minutes of the day, dates, ids), every new value adds a field: the schema never settles, each key needs its own index, and MongoDB finds a key by scanning the object in order — the seeds measure that updating minute 1439 of 1440 keys is much slower than minute 0, and split the day into 24 hour sub-documents. Storing the pairs as an array of {k, v} (attribute pattern) makes the keys queryable and indexable with one index.",
            "当键本身就是值（一天中的分钟数、日期、id）时，每出现一个新值就多一个字段：结构永远无法稳定，每个键都需要单独的索引，而且 MongoDB 要按顺序扫描对象才能找到某个键——种子材料指出，在 1440 个分钟键中更新第 1439 分钟比更新第 0 分钟慢得多，因此把一天拆成 24 个小时子文档。把它们存成 {k, v} 数组（属性模式），一个索引就能查询所有键。",
        ),
        source: "seeds/002 (pre-aggregated reports, 1440 minute keys)",
        thresholds: dynamic_keys::THRESHOLDS,
        check: Check::Collection(dynamic_keys::check, Basis::Documents),
    },
    RuleInfo {
        id: "mixed-types",
        title: "One field, several types",
        explanation: (
            "A path with two types is usually two versions of the schema living side by side: queries that compare, sort or index it see two orders (numbers sort before strings), aggregations silently skip what they cannot convert, and every reader must handle both. The seeds accept schema evolution — migrate documents piece by piece and record which version each has — but the old shape should not stay forever. Different numeric widths (int/long/double) compare correctly and matter less.",
            "一个路径上出现两种类型，通常意味着两个版本的模式并存：比较、排序或建索引时会出现两种顺序（数字排在字符串之前），聚合会悄悄跳过无法转换的值，每个读取方都得兼容两种类型。种子材料接受模式演进——分批迁移文档并记录每个文档的版本——但旧结构不应永远留下。不同宽度的数值（int/long/double）之间可以正确比较，影响较小。",
        ),
        source: "seeds/002 (polymorphic schemas, schema evolution)",
        thresholds: mixed_types::THRESHOLDS,
        check: Check::Collection(mixed_types::check, Basis::Documents),
    },
    RuleInfo {
        id: "denormalization-drift",
        title: "Copied fields disagree with their source",
        explanation: (
            "A denormalized copy saves a join on every read, but it is not updated atomically with its source: every change to the source must also be written to each copy, and copies that were missed go stale. The seeds: denormalize only fields that are read far more often than they change, and weigh the update cost; an extended reference is a deliberate snapshot, which is fine only if stale values are acceptable.",
            "反范式的冗余副本让每次读取省去一次关联查询，但它不会与源数据原子地更新：源数据的每次修改都必须同时写入每一份副本，遗漏的副本就会过期。种子材料：只有读取远多于修改的字段才适合冗余，并且要权衡更新的代价；扩展引用是有意保存的快照，只有能接受旧值时才合适。",
        ),
        source: "seeds/000 (denormalization), seeds/001 (group data copied into contacts), seeds/003 (extended reference)",
        thresholds: denormalization_drift::THRESHOLDS,
        check: Check::Collection(denormalization_drift::check, Basis::Documents),
    },
    RuleInfo {
        id: "missing-reference-index",
        title: "Reference field without an index",
        explanation: (
            "A parent reference is read by querying the children for the parent's id. Without an index on that field each such query is a collection scan, and an application-level join that should cost one index lookup costs the whole collection. The seeds are explicit: make sure every reference field has an index — then application joins are nearly as cheap as a relational join.",
            "父引用的读取方式是用父文档的 id 去查询子文档。如果该字段没有索引，每次这样的查询都是全集合扫描，本应只需一次索引查找的应用层关联就要付出扫描整个集合的代价。种子材料说得很明确：确保引用字段有索引——这样应用层级别的 join 并不会比关系数据库的 join 开销大多少。",
        ),
        source: "seeds/003 (确保引用字段有索引), seeds/000 (rule 4), seeds/004",
        thresholds: missing_reference_index::THRESHOLDS,
        check: Check::Collection(missing_reference_index::check, Basis::Documents),
    },
    RuleInfo {
        id: "redundant-index",
        title: "Index that is a prefix of another",
        explanation: (
            "Every index costs memory and slows every write that touches its fields. An index whose key is a prefix of another index's key (same fields, same order, same directions) answers nothing the longer one cannot, so it is pure cost.",
            "每个索引都会占用内存，并拖慢所有涉及其字段的写入。如果一个索引的键是另一个索引键的前缀（字段、顺序和方向都相同），较长的索引就能满足它能满足的所有查询，它只剩下开销。",
        ),
        source: "MongoDB Atlas performance advisor (redundant indexes); seeds/002 (index size uses RAM)",
        thresholds: redundant_index::THRESHOLDS,
        check: Check::Collection(redundant_index::check, Basis::Metadata),
    },
    RuleInfo {
        id: "unused-index",
        title: "Index that is not used",
        explanation: (
            "An index nobody uses still takes memory and is updated on every write. Counters restart when the server restarts, so check every member of a replica set before dropping; an index that reads only fields no document of the collection has is often a leftover of an old schema (or a typo in the field name). Text, wildcard, geospatial, hashed, unique, partial and hidden indexes are never judged by absent fields, and a TTL index on an absent field only means nothing expires.",
            "没人使用的索引仍然占用内存，并在每次写入时被更新。计数器会在服务器重启后清零，所以删除前要检查副本集的每个成员；只读取集合中没有任何文档包含的字段的索引，往往是旧模式留下的（或者字段名拼错了）。文本、通配符、地理空间、哈希、唯一、部分和隐藏索引从不因字段缺失而被判定，TTL 索引的字段缺失只说明没有文档会过期。",
        ),
        source: "MongoDB Atlas performance advisor (unused indexes, 7 days); seeds/002 (index size uses RAM)",
        thresholds: unused_index::THRESHOLDS,
        check: Check::Collection(unused_index::check, Basis::Metadata),
    },
    RuleInfo {
        id: "too-many-indexes",
        title: "Too many indexes on one collection",
        explanation: (
            "Each index is kept in memory and updated on every insert and on every update of its fields. Many indexes on one collection usually mean one index per optional attribute; the attribute pattern (an array of {k, v} with one compound index) serves them all, and unused ones can go.",
            "每个索引都驻留内存，并在每次插入以及其字段被更新时维护。一个集合上索引很多，通常意味着每个可选属性都建了一个索引；属性模式（{k, v} 数组加一个复合索引）可以覆盖它们，没人使用的索引则可以删除。",
        ),
        source: "MongoDB Compass (> 10 indexes), Atlas (> 30 indexes); seeds/002 (index size uses RAM)",
        thresholds: too_many_indexes::THRESHOLDS,
        check: Check::Collection(too_many_indexes::check, Basis::Metadata),
    },
    RuleInfo {
        id: "too-many-collections",
        title: "Too many collections",
        explanation: (
            "Every collection has its own files and at least one index, each with memory and file-handle costs, so thousands of collections slow the storage engine, backups and restarts. Many collections with the same shape (one per customer, per day) are better stored as one collection with a field telling them apart.",
            "每个集合都有自己的数据文件和至少一个索引，各自占用内存和文件句柄，成千上万个集合会拖慢存储引擎、备份和重启。结构相同的大量集合（每个客户一个、每天一个）最好合并成一个集合，用一个字段区分。",
        ),
        source: "MongoDB Atlas (100 collections per database), Compass and the manual (10,000); seeds/002 (polymorphic collections)",
        thresholds: too_many_collections::THRESHOLDS,
        check: Check::Deployment(too_many_collections::check),
    },
    RuleInfo {
        id: "deep-nesting",
        title: "Documents nested too deeply",
        explanation: (
            "Deeply nested documents are hard to query, index and update with dotted paths and positional operators, and MongoDB refuses documents nested 100 levels or more — a write that adds one level too many fails. Usually the nesting mirrors a tree or a recursive structure that belongs in its own collection with references.",
            "嵌套很深的文档难以用点路径和位置操作符查询、建索引和更新，而且 MongoDB 拒绝嵌套 100 层及以上的文档——多加一层的写入会直接失败。这种嵌套通常对应树形或递归结构，更适合放到独立集合中用引用表示。",
        ),
        source: "MongoDB limits (nesting depth 100)",
        thresholds: deep_nesting::THRESHOLDS,
        check: Check::Collection(deep_nesting::check, Basis::Documents),
    },
    RuleInfo {
        id: "too-many-fields",
        title: "Too many distinct fields",
        explanation: (
            "Thousands of distinct fields mean no query, index or tool can know the shape: Compass stops exporting at 1,000 fields, every index covers a sliver of the data, and the documents are hard to reason about. When the fields are attributes that vary between documents, the attribute pattern (an array of {k, v}) turns them into data with one index.",
            "成千上万个不同字段意味着任何查询、索引或工具都无法掌握文档结构：Compass 导出超过 1,000 个字段就会停止，每个索引只覆盖一小部分数据，文档也难以理解。如果这些字段是因文档而异的属性，属性模式（{k, v} 数组）能把它们变成数据，用一个索引覆盖。",
        ),
        source: "MongoDB Compass (1,000-field export limit); seeds/002 (semi-structured data, attribute arrays)",
        thresholds: too_many_fields::THRESHOLDS,
        check: Check::Collection(too_many_fields::check, Basis::Documents),
    },
    RuleInfo {
        id: "polymorphic-without-discriminator",
        title: "Several shapes and no type field",
        explanation: (
            "Keeping similar but different documents in one collection is MongoDB's polymorphic pattern and works well — as long as each document says what it is. Without a type field, every query and every reader has to guess the shape from which fields are present, and an index cannot target one kind.",
            "把相似但不完全相同的文档放在同一个集合中，正是 MongoDB 的多态模式，效果很好——前提是每个文档都说明自己是哪一种。没有类型字段时，每个查询和读取方都只能根据有哪些字段去猜测结构，索引也无法针对某一类文档。",
        ),
        source: "seeds/002 (polymorphic schemas), seeds/003 (polymorphic pattern)",
        thresholds: polymorphic_without_discriminator::THRESHOLDS,
        check: Check::Collection(polymorphic_without_discriminator::check, Basis::Documents),
    },
    RuleInfo {
        id: "long-field-names",
        title: "Field names take much of the document",
        explanation: (
            "BSON stores every field name in every document, so long names are paid for again in each of them — in the cache and on the wire (on disk, compression recovers much of it). The seeds suggest shorter names, or an object-document mapper that maps short stored names to readable ones in code. Names a standard fixes (GeoJSON, GridFS, the server's own documents) are left alone.",
            "BSON 在每个文档中都保存每个字段的名字，所以长字段名在每个文档里都要重复付出代价——缓存和网络传输都是如此（磁盘上压缩能挽回大部分）。种子材料建议使用较短的字段名，或者用对象-文档映射（ODM）在代码中把短的存储名映射为易读的名字。由标准规定的字段名（GeoJSON、GridFS、服务器自己的文档）不在此列。",
        ),
        source: "seeds/002 (BSON storage efficiency)",
        thresholds: long_field_names::THRESHOLDS,
        check: Check::Collection(long_field_names::check, Basis::Documents),
    },
    RuleInfo {
        id: "dangling-references",
        title: "References that point at no document",
        explanation: (
            "MongoDB has no foreign keys: nothing checks that a referenced document exists, and deleting a parent leaves its children's references behind. A dangling reference makes a $lookup return an empty array (or drop the document after $unwind), counts per parent wrong, and application code that assumes the target exists fail. The seeds: the application keeps references consistent — write the parent first, delete children (or mark them) with the parent — and queries must tolerate a missing target.",
            "MongoDB 没有外键：没有任何机制检查被引用的文档是否存在，删除父文档也会留下子文档中的引用。悬空引用会让 $lookup 返回空数组（或在 $unwind 之后丢掉该文档），按父文档统计的数量出错，假设目标一定存在的应用代码也会失败。种子材料：由应用保证引用一致——先写父文档，删除父文档时一并删除（或标记）子文档——并且查询要能容忍目标缺失。",
        ),
        source: "seeds/001 (no foreign keys in MongoDB: the application keeps references consistent)",
        thresholds: dangling_references::THRESHOLDS,
        check: Check::Collection(dangling_references::check, Basis::Documents),
    },
    RuleInfo {
        id: "string-dates",
        title: "Dates stored as strings",
        explanation: (
            "A date kept as a string is not a date to the server: it sorts and compares as text (\"2015-8-9\" after \"2015-10-01\", offsets ignored), range queries and indexes see text, date operators ($year, $dateTrunc, TTL indexes) cannot use it, and each writer may pick another format. The seeds' advice on types and MongoDB's BSON type documentation: store points in time as BSON dates (8 bytes, UTC milliseconds) and format them for display.",
            "以字符串保存的日期对服务器来说并不是日期：它按文本排序和比较（\"2015-8-9\" 会排在 \"2015-10-01\" 之后，时区偏移被忽略），范围查询和索引看到的也是文本，日期运算符（$year、$dateTrunc、TTL 索引）无法使用它，而且每个写入方都可能采用不同的格式。种子材料关于类型的建议以及 MongoDB 的 BSON 类型文档：时间点应保存为 BSON 日期（8 字节，UTC 毫秒），显示时再格式化。",
        ),
        source: "seeds/002 (BSON types), MongoDB docs (BSON types: Date; $dateFromString)",
        thresholds: string_dates::THRESHOLDS,
        check: Check::Collection(string_dates::check, Basis::Documents),
    },
    RuleInfo {
        id: "lossy-numbers",
        title: "Numbers a double cannot hold exactly",
        explanation: (
            "A BSON double has 53 bits of precision: integers beyond 2^53 (9,007,199,254,740,992) — 64-bit ids, nanosecond timestamps — are rounded to a neighbour when stored, so two ids can become equal, and most decimal fractions (0.1, 19.99) are only approximated, so sums of money drift by cents. MongoDB's BSON types: use `long` for 64-bit integers, `decimal` (Decimal128) for money, a string for opaque identifiers. Precision already lost in a double cannot be restored from the database.",
            "BSON 的 double 只有 53 位精度：超过 2^53（9,007,199,254,740,992）的整数——64 位 ID、纳秒时间戳——在保存时会被舍入到相邻的值，两个不同的 ID 可能变得相同；大多数十进制小数（0.1、19.99）也只能近似表示，金额求和会出现几分钱的偏差。MongoDB 的 BSON 类型：64 位整数用 `long`，金额用 `decimal`（Decimal128），不透明的标识符用字符串。已经在 double 中丢失的精度无法从数据库中恢复。",
        ),
        source: "MongoDB docs (BSON types: double, long, decimal; model monetary data)",
        thresholds: lossy_numbers::THRESHOLDS,
        check: Check::Collection(lossy_numbers::check, Basis::Documents),
    },
    RuleInfo {
        id: "non-unique-reference-key",
        title: "Referenced key that is not unique",
        explanation: (
            "A reference names one document only if its key is unique. MongoDB guarantees that for `_id`; for any other key only a unique index does. With duplicates, a $lookup returns several parents for one child, counts double, and which document an update reaches is left to chance; without a unique index, the next writer can create a duplicate at any time. The seeds: index every reference field — on the referenced side, make that index unique, or reference `_id`.",
            "只有键唯一时，一个引用才指向唯一的文档。MongoDB 只为 `_id` 保证这一点；其他键只有唯一索引才能保证。键重复时，$lookup 会为一个子文档返回多个父文档，统计会重复计算，更新会落到哪一个文档也无法确定；没有唯一索引时，下一个写入方随时可能写入重复值。种子材料：为每个引用字段建立索引——在被引用的一侧，把该索引建成唯一索引，或者改为引用 `_id`。",
        ),
        source: "seeds/003 (index every reference field), MongoDB docs (unique indexes)",
        thresholds: non_unique_reference_key::THRESHOLDS,
        check: Check::Collection(non_unique_reference_key::check, Basis::Documents),
    },
    RuleInfo {
        id: "reference-type-mismatch",
        title: "One reference stored in two representations",
        explanation: (
            "A reference kept sometimes as an ObjectId and sometimes as its 24-hex string (or as a number and a numeric string) is two references to the server: a string never equals an ObjectId, so every $lookup, every query by that field and every index on it silently misses the documents of the other representation, and counts per parent come out short. MongoDB has no foreign keys and checks no types (seed 001): the application must write one representation. Convert the minority where it names an existing document ($toObjectId, $toLong) and fix the writer that produces it.",
            "同一个引用有时保存为 ObjectId，有时保存为它的 24 位十六进制字符串（或者数字与数字字符串），对服务器来说就是两种不同的引用：字符串永远不等于 ObjectId，因此每个 $lookup、每个按该字段的查询以及它上面的索引都会悄悄漏掉另一种表示的文档，按父文档统计的数量也会偏少。MongoDB 没有外键，也不检查类型（种子材料 001）：必须由应用只写入一种表示。把少数派中确实指向已有文档的值转换过来（$toObjectId、$toLong），并修正产生它们的写入方。",
        ),
        source: "seeds/001 (no foreign keys in MongoDB: the application keeps references consistent), MongoDB docs ($toObjectId, comparison of BSON types)",
        thresholds: reference_type_mismatch::THRESHOLDS,
        check: Check::Collection(reference_type_mismatch::check, Basis::Documents),
    },
    RuleInfo {
        id: "id-led-index",
        title: "Compound index led by _id",
        explanation: (
            "Every collection has a unique index on _id, so an equality on _id finds at most one document: an index that begins with _id and goes on with other keys narrows nothing further, and a query on those other keys cannot use it, because an index serves only queries on a prefix of its keys. It still costs memory and a write on every insert and on every update of its fields. Usually it was meant to lead with its second key, or the field the application looks documents up by has no index of its own. MongoDB's documentation on the _id index (unique) and on compound index prefixes.",
            "每个集合都有 _id 上的唯一索引，因此对 _id 的等值查询最多只找到一个文档：以 _id 开头、后面再跟其他键的索引不会进一步缩小范围；而只按那些其他键查询也用不上它，因为索引只服务于针对其键前缀的查询。它却仍然占用内存，并在每次插入以及更新其字段时多一次写入。通常它本来想以第二个键开头，或者应用用来查找文档的字段没有自己的索引。依据：MongoDB 文档关于 _id 索引（唯一）和复合索引前缀的说明。",
        ),
        source: "MongoDB docs (the _id index is unique; compound index prefixes)",
        thresholds: id_led_index::THRESHOLDS,
        check: Check::Collection(id_led_index::check, Basis::Metadata),
    },
    RuleInfo {
        id: "collection-per-tenant",
        title: "One collection per tenant, customer or day",
        explanation: (
            "Collections that hold one kind of document and differ only by a key in their names (one per customer, per token, per day) multiply files, indexes and file handles with every new key, need one query per collection to look across them, and repeat every schema problem once per collection. The seeds keep one kind of document in one collection and tell documents apart by a field (the polymorphic pattern); Atlas flags databases with too many collections. One collection with the key as an indexed field holds them all, and a query per tenant filters on it.",
            "只是名字里差一个键（每个客户、每个令牌、每天一个）而保存同一类文档的集合，会随着每个新键增加文件、索引和文件句柄，跨它们查询要对每个集合各查一次，每个结构问题也要在每个集合里重复一遍。种子材料主张同一类文档放在同一个集合中，用字段区分（多态模式）；Atlas 也会提示集合过多的数据库。用一个集合加一个带索引的键字段就能容纳它们全部，按租户的查询按这个字段过滤即可。",
        ),
        source: "seeds/002 (one collection per kind of document, polymorphic schemas), MongoDB Atlas (too many collections)",
        thresholds: collection_per_tenant::THRESHOLDS,
        check: Check::Deployment(collection_per_tenant::check),
    },
    RuleInfo {
        id: "duplicate-collection",
        title: "Two collections holding the same documents",
        explanation: (
            "Two collections that share most of their _ids and their shape hold the same documents twice: a copy left by a migration, a restore into a second database, a backup beside its source. Each costs storage, indexes and cache; worse, an application that writes to one and reads the other sees stale data. Keep one: drop the other once nothing reads it, or replace it by a view on the one kept.",
            "两个集合的 _id 大部分相同、结构也相同，说明同样的文档被保存了两份：迁移留下的副本、恢复到第二个数据库的数据、放在源集合旁边的备份。每一份都要占用存储、索引和缓存；更糟的是，应用写一个、读另一个时会读到过期数据。只保留一个：确认没人读取后删除另一个，或者用基于保留集合的视图代替它。",
        ),
        source: "MongoDB docs (views); storage and index costs per collection",
        thresholds: duplicate_collection::THRESHOLDS,
        check: Check::Deployment(duplicate_collection::check),
    },
    RuleInfo {
        id: "sibling-collections",
        title: "A few collections of one shape, one per type",
        explanation: (
            "Collections that hold the same shape under the names of its types (adventures, attractions, events — usually written by one switch on the type) or as twins (chat logs in two collections) keep one kind of document in several places: each needs its own indexes, a query across the kinds is one query per collection merged by the application, and every change of the shape must be made in each. The seeds keep one kind of document in one collection and tell the kinds apart by a field (the polymorphic pattern): one collection with a type field, and one index — the type, then the field the queries filter on — serves every kind. A few collections cost little by themselves; this is advice for the next change of the schema, not an emergency.",
            "以类型名命名、结构相同的几个集合（adventures、attractions、events——通常由同一个按类型的 switch 写入），或保存同一类文档的一对孪生集合，把同一类文档放在了好几个地方：每个集合都要有自己的索引，跨类型查询要对每个集合各查一次再由应用合并，结构的每次改动也要在每个集合里重复一遍。种子材料主张同一类文档放在同一个集合中，用字段区分种类（多态模式）：一个带类型字段的集合，加一个索引——先是类型，再是查询过滤的字段——就能服务所有种类。几个集合本身代价不大；这是给下一次结构调整的建议，而不是紧急问题。",
        ),
        source: "seeds/002 (one collection per kind of document, polymorphic schemas), seeds/003 (polymorphic pattern)",
        thresholds: sibling_collections::THRESHOLDS,
        check: Check::Deployment(sibling_collections::check),
    },
    RuleInfo {
        id: "expiring-without-ttl",
        title: "Expired documents nothing removes",
        explanation: (
            "Sessions, refresh tokens and one-time codes carry the date they expire; once it has passed the application refuses them, yet they stay: every scan and backup carries them, the collection only grows, and a token that should be gone is still there to be stolen with the rest. A TTL index with expireAfterSeconds: 0 on the expiry date lets the server delete each document when its date passes (its TTL monitor runs every 60 seconds) — the seeds prefer it to capped collections for data that ages out. A store of tokens is also read by the token itself: without an index on that field every lookup scans the collection.",
            "会话、刷新令牌和一次性验证码都带有过期时间；过期之后应用不再接受它们，它们却仍然留在库里：每次扫描和备份都要带上它们，集合只增不减，本该消失的令牌还留在那里，可能和其他数据一起被窃取。在过期时间字段上建立 expireAfterSeconds: 0 的 TTL 索引，服务器就会在每个文档的时间到达后删除它（TTL 监视器每 60 秒运行一次）——对于会过期的数据，种子材料更推荐 TTL 而不是固定集合。令牌集合还要按令牌本身查找：这个字段没有索引时，每次查找都要扫描整个集合。",
        ),
        source: "seeds/002 (expire data with a TTL index rather than a capped collection), MongoDB docs (TTL indexes: expire documents at a specific clock time)",
        thresholds: expiring_without_ttl::THRESHOLDS,
        check: Check::Collection(expiring_without_ttl::check, Basis::Documents),
    },
    RuleInfo {
        id: "numeric-strings",
        title: "Numbers stored as text",
        explanation: (
            "A number kept as a string is text to the server: it sorts and compares character by character (\"10\" before \"9\", \"-1\" before \"-3\"), so a range query or a sort answers wrongly; $sum and $avg skip it, $inc refuses it, and an index on it orders text. When every value is text there is no second type for mixed-types to see. The seeds' advice on types: store a value in the type queries can use — int or long for whole numbers, double for measurements, decimal (Decimal128) for money. Codes made of digits (postal codes, phone numbers, ids with leading zeros, versions) are text and stay text.",
            "以字符串保存的数字对服务器来说是文本：它按字符逐个排序和比较（\"10\" 排在 \"9\" 前面，\"-1\" 排在 \"-3\" 前面），所以范围查询和排序的结果都不对；$sum 和 $avg 会跳过它，$inc 会拒绝它，它上面的索引按文本排序。当所有值都是文本时，也就没有第二种类型能让 mixed-types 发现问题。种子材料关于类型的建议：用查询能使用的类型保存数据——整数用 int 或 long，测量值用 double，金额用 decimal（Decimal128）。由数字组成的编码（邮政编码、电话号码、带前导零的编号、版本号）本来就是文本，应保持为文本。",
        ),
        source: "seeds/002 (BSON types a query can use), MongoDB docs (comparison and sort order of BSON types; $convert)",
        thresholds: numeric_strings::THRESHOLDS,
        check: Check::Collection(numeric_strings::check, Basis::Documents),
    },
    RuleInfo {
        id: "index-esr",
        title: "Frequent query served by no index or by one in the wrong order",
        explanation: (
            "A query the application runs often pays for its plan every time: without an index it reads the whole collection, and with an index in the wrong order it reads many keys per document returned or sorts in memory (limited to 100 MB, and slow). The seeds' ESR rule orders a compound index: fields matched by equality first (the most selective first), then the sort fields in the query's direction, then fields matched by a range. An existing index whose key is a prefix of that key is extended rather than joined by another.",
            "应用频繁执行的查询每次都要为它的执行计划付出代价：没有索引时要读取整个集合；索引顺序不对时，每返回一个文档要读取许多索引键，或者在内存中排序（有 100 MB 限制，而且很慢）。种子材料的 ESR 规则规定复合索引的顺序：等值匹配的字段放最前（选择性高的在前），然后按查询的方向放排序字段，最后放范围匹配的字段。已有索引的键是这个键的前缀时，应扩展它，而不是再加一个索引。",
        ),
        source: "seeds/002 (ch. 4, indexes), seeds/003 (ESR rule: Equality, Sort, Range); MongoDB Atlas Performance Advisor",
        thresholds: index_esr::THRESHOLDS,
        check: Check::Collection(index_esr::check, Basis::Metadata),
    },
    RuleInfo {
        id: "unindexed-query",
        title: "Query scanning a large collection",
        explanation: (
            "A collection scan reads every document to return a few: its cost grows with the collection, not with the answer, and it pushes the working set out of the cache for every other query. An index on the query's fields (equality, then sort, then range) lets the server read only the documents it returns.",
            "全集合扫描为了返回少数文档要读取每一个文档：它的代价随集合增长，而不是随结果增长，还会把其他查询的工作集挤出缓存。在查询字段上建立索引（先等值、再排序、后范围），服务器就只需读取它返回的文档。",
        ),
        source: "MongoDB Atlas Performance Advisor, Compass (explain plan: COLLSCAN); seeds/003 (ESR rule)",
        thresholds: unindexed_query::THRESHOLDS,
        check: Check::Collection(unindexed_query::check, Basis::Metadata),
    },
    RuleInfo {
        id: "lookup-on-hot-path",
        title: "$lookup on most reads of a collection",
        explanation: (
            "A $lookup is a join: on every read it runs a query on the other collection per document. When most reads of a collection join the same few documents, the model splits what the application reads together. The seeds: with one-to-one or one-to-few (N < 100) embed, or copy the few fields read (extended reference); with more, keep the reference and index the field the join uses.",
            "$lookup 就是关联：每次读取都要为每个文档在另一个集合上执行一次查询。当一个集合的大多数读取都关联同样少量的文档时，说明模型把应用一起读取的数据拆开了。种子材料：一对一或一对少量（N<100）时内嵌，或只复制读取的少数字段（扩展引用）；更多时保留引用，并为关联用的字段建立索引。",
        ),
        source: "seeds/003 (embed vs reference, extended reference); MongoDB Atlas (reduce $lookup operations)",
        thresholds: lookup_on_hot_path::THRESHOLDS,
        check: Check::Collection(lookup_on_hot_path::check, Basis::Metadata),
    },
    RuleInfo {
        id: "push-without-slice",
        title: "$push without $slice on an array",
        explanation: (
            "An update that $pushes onto an array without $slice lets the array grow for as long as the application runs: every push rewrites a larger document, reads carry the whole history, and the document heads for the 16 MiB limit. The seeds keep the last 1000 log lines in a host document with $push and $slice, and move the full history to its own collection (parent reference) or buckets.",
            "不带 $slice 的 $push 更新会让数组随应用运行一直增长：每次追加都要重写更大的文档，读取时要带上全部历史，文档最终逼近 16 MiB 上限。种子材料用 $push 加 $slice 在主机文档中只保留最近 1000 条日志，完整历史放到独立集合（父引用）或分桶中。",
        ),
        source: "seeds/000 (keep the last 1000 with $push + $slice; rule 3), seeds/001",
        thresholds: push_without_slice::THRESHOLDS,
        check: Check::Collection(push_without_slice::check, Basis::Documents),
    },
    RuleInfo {
        id: "write-amplified-copy",
        title: "Copied field updated often in its source",
        explanation: (
            "An extended reference copies a few fields of another document so reads need no join; every update of such a field must then rewrite each copy, or the copies go stale. The seeds' sixth rule of thumb: denormalize only fields read far more often than written. Their contact example: data of a group copied into a million contacts made one group edit a million-document write. Fields that change often are referenced, not copied.",
            "扩展引用复制另一个文档的少数字段，读取时就无需关联；但这类字段每更新一次，就必须改写每一个副本，否则副本就会过期。种子材料的第六条经验法则：只对读取远多于写入的字段做反范式化。其中联系人的例子：把分组的数据复制到一百万个联系人中，一次分组修改就变成了一百万个文档的写入。经常变化的字段应该引用，而不是复制。",
        ),
        source: "seeds/000 (rule 6: denormalize read-mostly fields), seeds/001 (group data copied into a million contacts), seeds/003 (extended reference)",
        thresholds: write_amplified_copy::THRESHOLDS,
        check: Check::Collection(write_amplified_copy::check, Basis::Metadata),
    },
    RuleInfo {
        id: "case-insensitive-regex",
        title: "Frequent query with an unanchored or case-insensitive regex",
        explanation: (
            "An index can bound only a case-sensitive regular expression anchored at the start (/^abc/); an unanchored or /i one reads every index key or every document, however few it returns. For case-insensitive matches of whole values, an index with a case-insensitive collation (strength 2) and an equality query under the same collation is exact and bounded; for substrings, a search index.",
            "索引只能限定区分大小写、以开头锚定的正则表达式（/^abc/）；未锚定或带 /i 的正则无论返回多少文档，都要读取每一个索引键或每一个文档。需要不区分大小写地匹配整个值时，使用不区分大小写排序规则（strength 2）的索引，并在同一排序规则下用等值查询，既精确又有范围；需要子串匹配时，使用搜索索引。",
        ),
        source: "MongoDB Atlas Performance Advisor; MongoDB docs ($regex index use, case-insensitive indexes)",
        thresholds: case_insensitive_regex::THRESHOLDS,
        check: Check::Collection(case_insensitive_regex::check, Basis::Metadata),
    },
    RuleInfo {
        id: "two-way-out-of-sync",
        title: "Both sides of a two-way reference disagree",
        explanation: (
            "A two-way reference keeps one link twice: the parent lists its children's ids and each child names its parent. Either side can then be read without a join, but the two sides are two writes to two documents, and MongoDB updates one document atomically, not two: a child moved to another parent and still listed by the old one, or deleted and still listed, leaves the sides disagreeing, and readers of each side see a different relationship. The seeds: two-way referencing is worth it only when both directions are read often, and then every change must update both sides. Keep one side (the child's parent reference, indexed, cannot name two parents), or write both in one multi-document transaction.",
            "双向引用把同一个链接保存两次：父文档列出子文档的 id，每个子文档也记录自己的父文档。这样从任一边读取都不需要关联查询，但两边是对两个文档的两次写入，而 MongoDB 只保证单个文档的更新是原子的，不保证两个：子文档换了父文档而旧的父文档仍然列着它，或者子文档已删除却仍被列出，两边就不再一致，从不同一边读取的人看到的是不同的关系。种子材料：只有两个方向都经常读取时双向引用才值得，而且每次修改都必须同时更新两边。只保留一边（子文档上建了索引的父引用不可能指向两个父文档），或者在一个多文档事务中同时写两边。",
        ),
        source: "seeds/000 (two-way referencing: the two sides are not updated atomically), MongoDB docs (multi-document transactions)",
        thresholds: two_way_out_of_sync::THRESHOLDS,
        check: Check::Collection(two_way_out_of_sync::check, Basis::Documents),
    },
];
