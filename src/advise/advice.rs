//! A finding with its explanation and suggestion: `advise` turns each
//! rule's typed [`Remedy`] into the suggestion a reader sees, and takes the
//! explanation and source from the rule registry.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{js_coll, Suggestion};
use crate::i18n::Lang;
use crate::rules::{registry, CollectionCtx, Finding, Remedy};

/// A finding as the report lists it: the rule's output, why it matters and
/// what to do instead. Serialised flat: the finding's keys, then
/// `explanation`, `source` and `suggestion`.
#[derive(Clone, Debug, Serialize)]
pub struct Advice {
    #[serde(flatten)]
    pub finding: Finding,
    /// Why it matters.
    pub explanation: String,
    /// Where the rule comes from (a seed file, MongoDB's documentation …).
    pub source: String,
    pub suggestion: Suggestion,
}

impl std::ops::Deref for Advice {
    type Target = Finding;

    fn deref(&self) -> &Finding {
        &self.finding
    }
}

/// The advice for a finding on the collection `ctx` describes.
pub fn advise(ctx: &CollectionCtx<'_>, finding: Finding, lang: Lang) -> Advice {
    let suggestion = suggest(Some(ctx), &finding.remedy, lang);
    explained(finding, suggestion, lang)
}

/// The advice for a finding about a database or the deployment (no one
/// collection to draw examples from).
pub fn advise_deployment(finding: Finding, lang: Lang) -> Advice {
    let suggestion = suggest(None, &finding.remedy, lang);
    explained(finding, suggestion, lang)
}

/// A finding made as soon as its collection was read, before the stages
/// that need every collection: its advice (which may take references and
/// copies into account) comes with the whole run, so it has none yet and
/// says so. Pattern `pending`; only the explorer shows it, never a report.
pub fn pending(finding: Finding, lang: Lang) -> Advice {
    let suggestion = Suggestion {
        pattern: PENDING,
        summary: lang
            .pick(
                "The advice, its before / after and its script come once every collection is read.",
                "建议、改前 / 改后和脚本会在读完所有集合后给出。",
            )
            .to_owned(),
        before: None,
        after: None,
        effect: serde_json::Map::new(),
        migration: String::new(),
    };
    explained(finding, suggestion, lang)
}

/// The pattern of a [`pending`] suggestion.
pub const PENDING: &str = "pending";

fn explained(finding: Finding, suggestion: Suggestion, lang: Lang) -> Advice {
    let (explanation, source) =
        registry::rule(finding.rule).map_or(("", ""), |r| (r.explanation(lang), r.source));
    Advice {
        finding,
        explanation: explanation.to_owned(),
        source: source.to_owned(),
        suggestion,
    }
}

/// The suggestion a remedy stands for. A remedy about a path the
/// collection's profile does not hold (or a collection remedy without a
/// collection) gets a suggestion without example or script.
pub fn suggest(ctx: Option<&CollectionCtx<'_>>, remedy: &Remedy, lang: Lang) -> Suggestion {
    if let Remedy::MergeCollections { db, colls } = remedy {
        return super::merge_collections(db, colls, lang);
    }
    if let Remedy::ConsolidateFamily {
        db,
        target,
        key_field,
        members,
    } = remedy
    {
        return super::family::consolidate(db, target, key_field, members, lang);
    }
    if let Remedy::DuplicateCollection { a, b } = remedy {
        return super::family::duplicate(a, b, lang);
    }
    if let Remedy::Siblings {
        db,
        members,
        kinds,
        shared,
        type_field,
        recorded,
        reference,
    } = remedy
    {
        return super::family::siblings(
            db,
            &super::family::Kinds {
                members,
                kinds,
                type_field,
                recorded: *recorded,
            },
            shared,
            reference.as_deref(),
            lang,
        );
    }
    let Some(ctx) = ctx else {
        return unavailable(remedy);
    };
    let field = |path: &str| ctx.field(path);
    let built = match remedy {
        Remedy::ParentReference { array } => {
            field(array).map(|f| super::parent_reference(ctx, f, lang))
        }
        Remedy::Subset { array, keep } => field(array).map(|f| super::subset(ctx, f, *keep, lang)),
        Remedy::Separate { path } => field(path).map(|f| super::separate(ctx, f, lang)),
        Remedy::Attribute { object } => field(object).map(|f| super::attribute(ctx, f, lang)),
        Remedy::Bucket { date, series } => Some(super::bucket(ctx, date, series.as_deref(), lang)),
        Remedy::CreateIndex { keys } => Some(super::index(ctx, keys, lang)),
        Remedy::EsrIndex { keys, extends } => {
            (!keys.is_empty()).then(|| super::esr_index(ctx, keys, extends.as_deref(), lang))
        }
        Remedy::SlicePush {
            array,
            update_path,
            keep,
        } => Some(super::workload::slice_push(
            ctx,
            array,
            update_path,
            *keep,
            lang,
        )),
        Remedy::CollationIndex { field } => {
            Some(super::workload::collation_index(ctx, field, lang))
        }
        Remedy::HotLookup {
            from,
            local,
            foreign,
            as_field,
            embed,
            one,
        } => Some(super::workload::hot_lookup(
            ctx,
            from,
            local.as_deref(),
            foreign.as_deref(),
            as_field,
            *embed,
            *one,
            lang,
        )),
        Remedy::StopCopying {
            holder,
            reference,
            source_ns,
            fields,
        } => Some(super::workload::stop_copying(
            ctx, holder, reference, source_ns, fields, lang,
        )),
        Remedy::DropIndex { name, covered_by } => {
            let why = match covered_by {
                Some(b) => lang.pick(
                    format!("Drop {name}; {b} already serves its queries."),
                    format!("删除 {name}；{b} 已能满足它的查询。"),
                ),
                None => lang.pick(
                    format!("Drop {name} after checking it is unused on every member."),
                    format!("确认所有成员上都未使用后，删除 {name}。"),
                ),
            };
            Some(super::drop_index(ctx, name, why, lang))
        }
        Remedy::TtlField { index } => Some(super::ttl_field(ctx, index, lang)),
        Remedy::DropLeadAbsent {
            name,
            lead,
            instead,
        } => Some(super::drop_lead_absent(
            ctx,
            name,
            lead,
            instead.as_deref(),
            lang,
        )),
        Remedy::IdLedIndex { name, instead } => {
            Some(super::id_led_index(ctx, name, instead.as_deref(), lang))
        }
        Remedy::EmptySparseIndex { index } => Some(super::empty_sparse_index(ctx, index, lang)),
        Remedy::ReviewIndexes => Some(review_indexes(ctx, lang)),
        Remedy::ConvertType { path, reaudit } => {
            field(path).map(|f| super::convert_types(ctx, f, reaudit, lang))
        }
        Remedy::Discriminator { shapes } => Some(super::polymorphic(ctx, shapes, lang)),
        Remedy::Rename { renames } => Some(super::rename(ctx, renames, lang)),
        Remedy::IdsToParentReference {
            array,
            child_coll,
            child_key,
        } => field(array)
            .map(|f| super::ids_to_parent_reference(ctx, f, child_coll, child_key, lang)),
        Remedy::RefreshCopies { drift } => Some(super::refresh_copies(ctx, drift, lang)),
        Remedy::CopiesDisagree { drift } => {
            Some(super::integrity::copies_disagree(ctx, drift, lang))
        }
        Remedy::ConvertReference {
            relationship,
            reaudit,
        } => Some(super::integrity::convert_reference(
            ctx,
            relationship,
            reaudit,
            lang,
        )),
        Remedy::SnapshotCopies { drift } => {
            Some(super::integrity::snapshot_copies(ctx, drift, lang))
        }
        Remedy::Flatten { path } => field(path).map(|f| super::flatten(ctx, f, lang)),
        Remedy::StringDates {
            path,
            formats,
            example,
            reaudit,
        } => {
            field(path).map(|f| super::dates::string_dates(ctx, f, formats, example, reaudit, lang))
        }
        Remedy::NumericStrings {
            path,
            target,
            empty,
            example,
            mixed_floor,
        } => field(path).map(|f| {
            super::numbers::numeric_strings(ctx, f, *target, *empty, example, *mixed_floor, lang)
        }),
        Remedy::ExpireDocuments {
            path,
            start,
            expired,
            lookup,
            indexes_known,
        } => field(path).map(|f| {
            super::expiry::expire_documents(
                ctx,
                f,
                *start,
                *expired,
                lookup.as_deref(),
                *indexes_known,
                lang,
            )
        }),
        Remedy::LossyNumbers {
            path,
            loss,
            reaudit,
        } => field(path).map(|f| super::integrity::lossy_numbers(ctx, f, loss, reaudit, lang)),
        Remedy::Dangling { relationship } => {
            Some(super::integrity::dangling(ctx, relationship, lang))
        }
        Remedy::TwoWaySync { relationship } => {
            Some(super::integrity::two_way_sync(ctx, relationship, lang))
        }
        Remedy::UniqueKey {
            key,
            uniqueness,
            whole,
        } => Some(super::integrity::unique_key(
            ctx, key, uniqueness, *whole, lang,
        )),
        Remedy::MergeCollections { db, colls } => Some(super::merge_collections(db, colls, lang)),
        Remedy::ConsolidateFamily {
            db,
            target,
            key_field,
            members,
        } => Some(super::family::consolidate(
            db, target, key_field, members, lang,
        )),
        Remedy::DuplicateCollection { a, b } => Some(super::family::duplicate(a, b, lang)),
        Remedy::Siblings {
            db,
            members,
            kinds,
            shared,
            type_field,
            recorded,
            reference,
        } => Some(super::family::siblings(
            db,
            &super::family::Kinds {
                members,
                kinds,
                type_field,
                recorded: *recorded,
            },
            shared,
            reference.as_deref(),
            lang,
        )),
    };
    built.unwrap_or_else(|| unavailable(remedy))
}

/// The pattern a remedy applies, without example or script.
fn unavailable(remedy: &Remedy) -> Suggestion {
    let pattern = match remedy {
        Remedy::ParentReference { .. } | Remedy::IdsToParentReference { .. } => "parent-reference",
        Remedy::TwoWaySync { .. } => "two-way-reference",
        Remedy::Subset { .. } | Remedy::SlicePush { .. } => "subset",
        Remedy::Separate { .. } | Remedy::Flatten { .. } => "separate-collection",
        Remedy::Attribute { .. } => "attribute",
        Remedy::Bucket { .. } => "bucket",
        Remedy::CreateIndex { .. }
        | Remedy::ReviewIndexes
        | Remedy::EsrIndex { .. }
        | Remedy::CollationIndex { .. }
        | Remedy::HotLookup { embed: false, .. }
        | Remedy::DropIndex { .. }
        | Remedy::TtlField { .. }
        | Remedy::EmptySparseIndex { .. }
        | Remedy::IdLedIndex { .. }
        | Remedy::DropLeadAbsent { .. }
        | Remedy::ExpireDocuments { .. }
        | Remedy::UniqueKey { .. } => "index",
        Remedy::Discriminator { .. }
        | Remedy::MergeCollections { .. }
        | Remedy::ConsolidateFamily { .. }
        | Remedy::Siblings { .. } => "polymorphic",
        Remedy::DuplicateCollection { .. } => "computed",
        Remedy::RefreshCopies { .. }
        | Remedy::CopiesDisagree { .. }
        | Remedy::SnapshotCopies { .. }
        | Remedy::Dangling { .. }
        | Remedy::HotLookup { one: true, .. }
        | Remedy::StopCopying { .. } => "extended-reference",
        Remedy::HotLookup { .. } => "embed",
        Remedy::ConvertType { .. }
        | Remedy::Rename { .. }
        | Remedy::StringDates { .. }
        | Remedy::ConvertReference { .. }
        | Remedy::NumericStrings { .. }
        | Remedy::LossyNumbers { .. } => "schema-versioning",
    };
    Suggestion {
        pattern,
        summary: String::new(),
        before: None,
        after: None,
        effect: Map::new(),
        migration: String::new(),
    }
}

/// Many indexes and no per-attribute group among them: a read-only look at
/// what each index served, naming those `$indexStats` already shows idle
/// (`index`). The script drops nothing; the summary says so.
pub fn review_indexes(ctx: &CollectionCtx<'_>, lang: Lang) -> Suggestion {
    let script = format!(
        "// docshape: review which indexes are used before dropping any (read-only).\n{}.aggregate([{{ $indexStats: {{}} }}, {{ $project: {{ name: 1, ops: \"$accesses.ops\", since: \"$accesses.since\" }} }}, {{ $sort: {{ ops: 1 }} }}]).forEach(printjson);\n{}",
        js_coll(ctx.db(), ctx.coll()),
        super::change::stays_line(
            lang,
            &super::js(lang.pick(
                "which indexes to drop is yours to decide from what they served",
                "删除哪些索引，要由你根据它们服务过的操作来决定",
            ))
        ),
    );
    let idle: Vec<&str> = ctx
        .index_usage
        .unwrap_or_default()
        .iter()
        .filter(|u| u.ops == 0 && u.name != "_id_")
        .map(|u| u.name.as_str())
        .collect();
    let n = ctx.data.indexes.len();
    let idle_note = match (ctx.index_usage, idle.is_empty()) {
        (None, _) => lang.pick(
            " No index statistics were read here, so none is named.".to_owned(),
            " 这里没有读到索引统计，因此不点名任何索引。".to_owned(),
        ),
        (Some(_), true) => lang.pick(
            " Every index served operations since the statistics began.".to_owned(),
            " 自统计开始以来每个索引都服务过操作。".to_owned(),
        ),
        (Some(_), false) => lang.pick(
            format!(
                " Served nothing since the statistics began: {}.",
                idle.join(", ")
            ),
            format!(" 自统计开始以来没有服务过任何操作：{}。", idle.join("、")),
        ),
    };
    let mut effect = Map::<String, Value>::new();
    effect.insert("indexes".into(), Value::from(n));
    if ctx.index_usage.is_some() {
        effect.insert("idle_by_index_stats".into(), Value::from(idle.clone()));
    }
    Suggestion {
        pattern: "index",
        summary: lang.pick(
            format!("Each of the {n} indexes costs a write on every insert and on every update of its fields. The script only lists what each index served since the server started ($indexStats, read-only); drop an index only when no query needs it — unused-index and redundant-index findings name the candidates.{idle_note}"),
            format!("这 {n} 个索引中的每一个，都会在插入时以及更新其字段时多一次写入。脚本只列出每个索引自服务器启动以来服务过的操作（$indexStats，只读）；只有在没有查询需要它时才删除索引——unused-index 和 redundant-index 的发现会点名候选。{idle_note}"),
        ),
        before: None,
        after: None,
        effect,
        migration: script,
    }
}
