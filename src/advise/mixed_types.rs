//! The suggestion for a path holding several types (`mixed-types`): the
//! numeric type that loses nothing, with its before/after example and
//! effect counted exactly as the script converts; or, where no conversion
//! is safe (an `_id`, a reference, codes written as digits, values that
//! are mostly no numbers), a script that only counts.

use crate::profile::extjson::Relaxed as _;

use serde_json::{json, Map, Value};

use super::{convert, dates, plan, Suggestion};
use crate::i18n::Lang;
use crate::profile::extract;
use crate::profile::{query_path, FieldProfile, Seg};
use crate::rules::CollectionCtx;

/// Why the value at `f` must keep its type and value, if it must: it is an
/// `_id` below the top (a sub-document's identity) or the value a
/// reference joins on. A conversion there would change what identifies a
/// document or what a reference finds.
pub(crate) fn kept_value(ctx: &CollectionCtx<'_>, f: &FieldProfile, lang: Lang) -> Option<String> {
    let inner_id =
        f.segments.len() > 1 && matches!(f.segments.last(), Some(Seg::Key(k)) if k == "_id");
    let joins = ctx.relationships.iter().any(|r| {
        r.from_ns == ctx.ns() && r.from_path == f.path && r.kind != crate::relate::Kind::Embedded
    });
    if inner_id {
        Some(lang.pick(
            format!(
                "`{}` is the identity of a sub-document, which a script never changes",
                f.path
            ),
            format!("`{}` 是子文档的标识，脚本从不修改它", f.path),
        ))
    } else if joins {
        Some(lang.pick(
            format!("`{}` is a reference, and converting it would change what it joins on: convert it together with what it references, in the application", f.path),
            format!("`{}` 是引用，转换它会改变它关联的对象：请在应用中与它引用的值一起转换", f.path),
        ))
    } else {
        None
    }
}

/// Converts a path holding several types to the numeric type that loses
/// nothing (see [`convert`] for the rule), leaving every value that does not
/// convert exactly as it is and counting it (`schema-versioning`). `_id` is
/// never updated: its suggestion only counts.
pub fn convert_types(
    ctx: &CollectionCtx<'_>,
    field: &FieldProfile,
    r: &crate::rules::Reaudit,
    lang: Lang,
) -> Suggestion {
    use convert::{Outcome, Reason};
    let dotted = query_path(&field.segments);
    let per_doc: Vec<(Option<bson::Bson>, Vec<bson::Bson>)> = ctx
        .data
        .kept
        .iter()
        .map(|d| {
            let vals = extract::values(d, &field.segments)
                .iter()
                .filter_map(crate::profile::value_of)
                .collect();
            let id = extract::top(d, "_id").and_then(|e| crate::profile::value_of(&e));
            (id, vals)
        })
        .collect();
    let all: Vec<bson::Bson> = per_doc
        .iter()
        .flat_map(|(_, v)| v.iter().cloned())
        .collect();
    let types: Vec<&str> = field.types.iter().map(|(t, _)| t.alias()).collect();
    let types = types.join(", ");
    let is_id = matches!(field.segments.first(), Some(Seg::Key(k)) if k == "_id");
    let what = |w: &str| format!("{}.{}: {w}", ctx.ns(), field.path);
    if let Some(why) = (!is_id).then(|| kept_value(ctx, field, lang)).flatten() {
        return Suggestion {
            pattern: "schema-versioning",
            summary: lang.pick(
                format!("`{dotted}` holds {types}. {why}. Fix the writer to store one type; the script only counts the values of each type."),
                format!("`{dotted}` 中混有 {types}。{why}。请修正写入方只写一种类型；脚本只统计各类型值的数量。"),
            ),
            before: None,
            after: None,
            effect: Map::new(),
            migration: convert::count_only(
                lang,
                &what("types (counted)"),
                (ctx.db(), ctx.coll()),
                (&dotted, &field.path),
                &why,
&["mixed-types"],
                r,
            ),
        };
    }
    // Dates beside dates written as text: the strings that are dates
    // become dates.
    if !is_id {
        use crate::profile::raw::BsonType;
        let only_dates = field.types.iter().all(|(t, _)| {
            matches!(
                t,
                BsonType::String | BsonType::Date | BsonType::Null | BsonType::Undefined
            )
        });
        if only_dates && field.type_count(BsonType::Date) > 0 {
            // Most strings are dates: those become dates, the rest stay
            // (counted, and the script says what the re-audit makes of them).
            let st = crate::rules::string_dates::strings(ctx.data.kept, &field.segments);
            if st.dates > 0 && st.dates * 2 > st.strings {
                return dates::mixed_dates(ctx, field, &st.formats, &st.example, r, lang);
            }
        }
    }
    if !is_id && convert::looks_like_codes(&all, &field.name) {
        return Suggestion {
            pattern: "schema-versioning",
            summary: lang.pick(
                format!("`{dotted}` holds {types}, and its digit strings are codes (a fixed width, leading zeros or a code's name), not quantities: keep them strings. Numbers lose leading zeros and invite arithmetic; the numeric values are the ones to turn back into strings, which only the application can do right (it knows the width and the zeros that were lost). Fix the writer to store strings. The script only counts the values of each type."),
                format!("`{dotted}` 中混有 {types}，其中的数字字符串是编码（定长、带前导零或名称表明是编码），不是数量：应保持为字符串。转成数字会丢掉前导零，还会被拿去计算；需要改回字符串的是那些数字值，而只有应用知道原来的位数和丢失的零。请修正写入方统一写字符串。脚本只统计各类型值的数量。"),
            ),
            before: None,
            after: None,
            effect: Map::new(),
            migration: convert::count_only(
                lang,
                &what("types (counted)"),
                (ctx.db(), ctx.coll()),
                (&dotted, &field.path),
                lang.pick(
                    "digit strings here are codes: converting them to numbers would lose leading zeros",
                    "这里的数字字符串是编码：转换成数字会丢掉前导零",
                ),
                &["mixed-types"],
                r,
            ),
        };
    }
    let chosen = convert::plan(&all, &field.name);
    let place = convert::place(&field.path);
    let (to, reason, place) = match (is_id, chosen, place) {
        (true, _, _) => {
            return Suggestion {
                pattern: "schema-versioning",
                summary: lang.pick(
                    format!("`{dotted}` holds {types}. MongoDB never changes `_id` in place, so docshape writes no update: make every writer use one type for new documents. Converting old ones means inserting a copy under the new `_id`, deleting the original and updating every reference to it, a migration of its own. The script only counts the `_id` types."),
                    format!("`{dotted}` 中混有 {types}。MongoDB 从不允许原地修改 `_id`，所以 docshape 不生成更新语句：让所有写入方对新文档使用同一种类型。转换旧文档需要以新 `_id` 插入副本、删除原文档并更新所有引用它的地方，这是一次单独的迁移。脚本只统计 `_id` 各类型的数量。"),
                ),
                before: None,
                after: None,
                effect: Map::new(),
                migration: convert::count_only(
                    lang,
                    &what("types of _id (counted, never updated)"),
                    (ctx.db(), ctx.coll()),
                    (&dotted, &field.path),
                    lang.pick(
                        "MongoDB never changes an _id in place; a document keeps the _id it was created with",
                        "MongoDB 从不原地修改 _id；文档保留创建时的 _id",
                    ),
                    &["mixed-types"],
                    r,
                ),
            };
        }
        (false, None, _) => {
            return Suggestion {
                pattern: "schema-versioning",
                summary: lang.pick(
                    format!("`{dotted}` holds {types}, and most values are not numbers, so no conversion loses nothing: fix the writer to store one type and convert old documents in the application, marking them with a `schema_versions` entry for the path. The script only counts the values of each type."),
                    format!("`{dotted}` 中混有 {types}，且大多数值不是数字，没有不丢信息的自动转换：请修正写入方只写一种类型，并在应用中转换旧文档、用 `schema_versions` 中该路径的条目标记。脚本只统计各类型值的数量。"),
                ),
                before: None,
                after: None,
                effect: Map::new(),
                migration: convert::count_only(
                    lang,
                    &what("types (counted)"),
                    (ctx.db(), ctx.coll()),
                    (&dotted, &field.path),
                    lang.pick(
                        "most values are not numbers: there is no lossless conversion to write",
                        "大多数值不是数字：没有不丢信息的转换可写",
                    ),
                    &["mixed-types"],
                    r,
                ),
            };
        }
        (false, Some((to, _)), None) => {
            return Suggestion {
                pattern: "schema-versioning",
                summary: lang.pick(
                    format!("`{dotted}` lies inside nested arrays, which one update cannot convert safely: convert it to {to} in the application that writes it ({to} loses nothing here). The script only counts the values of each type.", to = to.alias()),
                    format!("`{dotted}` 位于多层嵌套数组中，一次更新无法安全转换：请在写入它的应用中转换为 {to}（此处 {to} 不会丢失信息）。脚本只统计各类型值的数量。", to = to.alias()),
                ),
                before: None,
                after: None,
                effect: Map::new(),
                migration: convert::count_only(
                    lang,
                    &what("types (counted)"),
                    (ctx.db(), ctx.coll()),
                    (&dotted, &field.path),
                    lang.pick(
                        "the path lies inside nested arrays: convert it where it is written",
                        "该路径位于多层嵌套数组中：请在写入它的地方转换",
                    ),
                    &["mixed-types"],
                    r,
                ),
            };
        }
        (false, Some((to, reason)), Some(place)) => (to, reason, place),
    };
    let ty = to.alias();
    let tally = convert::tally(&all, to);
    // Per document, exactly as the script decides: changed when a value
    // converts, marked when every value is then of the target type.
    let mut changed = 0u64;
    let mut example: Option<(usize, u8)> = None;
    for (i, (_, vals)) in per_doc.iter().enumerate() {
        let outs: Vec<Outcome> = vals.iter().map(|v| convert::classify(v, to)).collect();
        if outs.iter().any(|o| matches!(o, Outcome::Convert(_))) {
            changed += 1;
        }
        // Prefer a document showing a string converted, then any conversion.
        let rank = u8::from(outs.iter().any(|o| matches!(o, Outcome::Convert(_))))
            + u8::from(
                vals.iter()
                    .zip(&outs)
                    .any(|(v, o)| matches!((v, o), (bson::Bson::String(_), Outcome::Convert(_)))),
            );
        if rank > 0 && example.is_none_or(|(_, r)| rank > r) {
            example = Some((i, rank));
        }
    }
    let (before, after) =
        example
            .and_then(|(i, _)| per_doc.get(i))
            .map_or((None, None), |(id, vals)| {
                let outs: Vec<Outcome> = vals.iter().map(|v| convert::classify(v, to)).collect();
                let shown = |b: &bson::Bson| b.clone().relaxed();
                let old: Vec<Value> = vals.iter().map(shown).collect();
                let new: Vec<Value> = vals
                    .iter()
                    .zip(&outs)
                    .map(|(v, o)| match o {
                        Outcome::Convert(c) => shown(c),
                        _ => shown(v),
                    })
                    .collect();
                let one = |mut v: Vec<Value>| {
                    if matches!(place, convert::Place::Field(_)) && v.len() == 1 {
                        v.remove(0)
                    } else {
                        Value::Array(v)
                    }
                };
                let id = id.as_ref().map_or(json!("…"), shown);
                let mut b = Map::new();
                b.insert("_id".into(), id.clone());
                b.insert(dotted.clone(), one(old));
                let mut a = Map::new();
                a.insert("_id".into(), id);
                a.insert(dotted.clone(), one(new));
                if outs
                    .iter()
                    .all(|o| matches!(o, Outcome::Already | Outcome::Convert(_) | Outcome::Null))
                {
                    a.insert(
                        "schema_versions".into(),
                        json!({ convert::version_key(&place): 2 }),
                    );
                }
                (Some(Value::Object(b)), Some(Value::Object(a)))
            });
    let marked = format!("schema_versions.{}", convert::version_key(&place));
    let marked_docs = per_doc
        .iter()
        .filter(|(_, vals)| {
            let outs: Vec<Outcome> = vals.iter().map(|v| convert::classify(v, to)).collect();
            outs.iter().any(|o| matches!(o, Outcome::Convert(_)))
                && outs
                    .iter()
                    .all(|o| matches!(o, Outcome::Already | Outcome::Convert(_) | Outcome::Null))
        })
        .count();
    let shown: Vec<String> = tally
        .stays
        .iter()
        .map(|(v, n)| format!("{} ×{}", convert::show(v), crate::fmt::group(*n)))
        .collect();
    let shown = shown.join(", ");
    let (c, s, k) = (
        crate::fmt::group(tally.convert),
        crate::fmt::group(tally.stay),
        crate::fmt::group(tally.already),
    );
    let why = match reason {
        Reason::DecimalPresent => lang.pick(
            "the path already holds decimals, and anything narrower would round them",
            "该路径已有 decimal 值，换成更窄的类型会舍入它们",
        ),
        Reason::Money => lang.pick(
            "it holds money with at most two fraction digits, which decimal keeps exact and double does not",
            "它保存的是最多两位小数的金额，decimal 能精确保存，double 不能",
        ),
        Reason::TooManyDigits => lang.pick(
            "some numbers have more digits than a double holds exactly",
            "有些数字的位数超过了 double 能精确表示的范围",
        ),
        Reason::Fractions => lang.pick(
            "values carry fractions, which int would cut off",
            "有些值带小数，转换为 int 会截断小数",
        ),
        Reason::DoublePresent => lang.pick(
            "doubles are present, and converting them to an integer type would narrow them",
            "已有 double 值，转换为整数类型会收窄它们",
        ),
        Reason::Wide => lang.pick(
            "some integers do not fit in 32 bits",
            "有些整数超出了 32 位范围",
        ),
        Reason::Whole => lang.pick(
            "every number is whole and fits in 32 bits",
            "所有数字都是 32 位范围内的整数",
        ),
    };
    let left = if tally.stay > 0 {
        lang.pick(
            format!(" {s} values are not plain numbers ({shown}): the script leaves them as they are and counts them. Replace them with null (or remove the field) where they mean “no value”; until then this finding stays."),
            format!(" {s} 个值不是普通数字（{shown}）：脚本保持原样并计数。若它们表示“无值”，请改为 null（或删除该字段）；在此之前该问题会继续出现。"),
        )
    } else {
        String::new()
    };
    let summary = if tally.convert == 0 {
        lang.pick(
            format!("Every value of `{dotted}` that converts exactly already is {ty}.{left}"),
            format!("`{dotted}` 中所有能精确转换的值都已是 {ty}。{left}"),
        )
    } else {
        lang.pick(
            format!("Fix the writer that stores other types in `{dotted}` and convert the old values to {ty}, because {why}. On the sample {c} values convert exactly and {k} already are {ty}.{left} Only documents whose every value at the path is then {ty} get `{marked}: 2` (one entry per converted path), so readers know which shape they hold."),
            format!("修正向 `{dotted}` 写入其他类型的程序，并把旧值转换为 {ty}，因为{why}。在样本中有 {c} 个值可以精确转换，{k} 个已是 {ty}。{left}只有该路径上所有值都变为 {ty} 的文档才会标记 `{marked}: 2`（模式版本化，每个转换的路径一个条目），让读取方知道文档是哪种结构。"),
        )
    };
    let mut effect = Map::new();
    effect.insert("target_type".into(), json!(ty));
    effect.insert(
        "values_measured".into(),
        json!(tally.convert + tally.stay + tally.already),
    );
    effect.insert("values_converted".into(), json!(tally.convert));
    effect.insert("values_left_as_they_are".into(), json!(tally.stay));
    effect.insert("values_already_target".into(), json!(tally.already));
    effect.insert("documents_changed".into(), json!(changed));
    effect.insert("documents_marked".into(), json!(marked_docs));
    effect.insert("marked_with".into(), json!(marked));
    if !tally.stays.is_empty() {
        effect.insert(
            "left_as_they_are".into(),
            Value::Array(
                tally
                    .stays
                    .iter()
                    .map(|(v, n)| json!({ "value": v.clone().relaxed(), "count": n }))
                    .collect(),
            ),
        );
    }
    Suggestion {
        pattern: "schema-versioning",
        summary,
        before,
        after,
        effect,
        migration: convert::script(
            &plan(ctx, lang, "types", &what(&format!("{types} -> {ty}"))),
            ctx.coll(),
            &place,
            to,
            r,
        ),
    }
}
