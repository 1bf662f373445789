//! Numbers written as text stored as numbers (`numeric-strings`): the
//! type chosen from the values (whole numbers int or long, fractions
//! double, money decimal), converted by the expressions the `mixed-types`
//! conversion uses ([`convert`](super::convert)), so the two never
//! disagree on what is a plain number. Empty text becomes no field: an
//! empty string is no number, and a field left empty would be text beside
//! numbers. Other text stays and is counted, and the script's last line
//! says what the next audit will report.

use std::fmt::Write;

use bson::Bson;
use serde_json::{json, Map};

use super::change::Plan;
use super::convert::{self, Place};
use super::{js, js_value, Suggestion};
use crate::i18n::Lang;
use crate::profile::extjson::Relaxed as _;
use crate::profile::{query_path, FieldProfile};
use crate::rules::number_text::Target;
use crate::rules::CollectionCtx;

/// What the type is chosen for, said to the reader.
fn why_type(target: Target, lang: Lang) -> &'static str {
    match target {
        Target::Int => lang.pick("whole numbers that fit in 32 bits", "32 位以内的整数"),
        Target::Long => lang.pick("whole numbers beyond 32 bits", "超出 32 位的整数"),
        Target::Double => lang.pick("numbers with a fraction", "带小数的数"),
        Target::Decimal => lang.pick(
            "money (or digits a double would round): Decimal128 keeps every digit",
            "金额（或 double 会舍入的位数）：Decimal128 保留每一位",
        ),
    }
}

/// The conversion of the numbers written as text at `f` to `target`, with
/// a backup; empty text removed (outside arrays); the rest counted.
pub(crate) fn numeric_strings(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    target: Target,
    empty: u64,
    example: &str,
    mixed_floor: f64,
    lang: Lang,
) -> Suggestion {
    let dotted = query_path(&f.segments);
    let t = target.alias();
    let what = format!("{}.{}: text -> {t}", ctx.ns(), f.path);
    let before = Some(json!({ dotted.clone(): example }));
    let after = match convert::classify(&Bson::String(example.to_owned()), target) {
        convert::Outcome::Convert(v) => Some(json!({ dotted.clone(): v.relaxed() })),
        _ => None,
    };
    let mut summary = lang.pick(
        format!("Store `{dotted}` as {t} ({}): fix the writer to send numbers, and convert the text already stored. The script converts only plain numbers (\"-3\", \"12.5\"), saving each document first; any other text stays, counted.", why_type(target, lang)),
        format!("把 `{dotted}` 保存为 {t}（{}）：修正写入方，让它写入数字，并转换已经存下的文本。脚本只转换普通的数字（\"-3\"、\"12.5\"），每个文档都先备份；其他文本保持原样并计数。", why_type(target, lang)),
    );
    let place = convert::place(&f.path);
    let kept = super::kept_value(ctx, f, lang);
    let (Some(place), None) = (place, kept.clone()) else {
        let why = kept.unwrap_or_else(|| {
            lang.pick(
                format!(
                    "`{}` lies inside arrays an update cannot reach in one step",
                    f.path
                ),
                format!("`{}` 位于一次更新无法触及的多层数组中", f.path),
            )
        });
        summary.push_str(&lang.pick(
            format!(" Here the script converts nothing, it counts: {why}."),
            format!(" 此处脚本不做转换，只计数：{why}。"),
        ));
        return Suggestion {
            pattern: "schema-versioning",
            summary,
            before,
            after,
            effect: Map::new(),
            migration: convert::count_only(
                lang,
                &format!("{what} (counted)"),
                (ctx.db(), ctx.coll()),
                (&dotted, &f.path),
                &why,
                &["numeric-strings"],
                &crate::rules::Reaudit::default(),
            ),
        };
    };
    let field = matches!(place, Place::Field(_));
    if empty > 0 {
        summary.push_str(&if field {
            lang.pick(
                format!(" Empty text is no number: the script removes `{dotted}` from the documents holding \"\" ({empty} in the sample), so a missing value reads as missing."),
                format!(" 空字符串不是数字：脚本会从值为 \"\" 的文档中删除 `{dotted}`（样本中有 {empty} 个），缺失的值就表现为缺失。"),
            )
        } else {
            lang.pick(
                format!(" Empty text inside an array ({empty} in the sample) stays: the script removes no element."),
                format!(" 数组中的空字符串（样本中有 {empty} 个）保持不变：脚本不删除任何元素。"),
            )
        });
    }
    let p = Plan::new(lang, ctx.db(), ctx.coll(), "numbers", &what);
    let to_number = json!({ "$expr": { "$anyElementTrue": [ { "$map": {
        "input": convert::values_expr(&place), "as": "x", "in": convert::converts("$$x", target)
    } } ] } });
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", p.coll(ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(&dotted));
    let _ = writeln!(
        s,
        "const strings = {{ [path]: {{ $type: \"string\" }} }};\nconst toNumber = {};",
        js_value(&to_number)
    );
    if field {
        let _ = writeln!(
            s,
            "const blank = {{ [path]: {{ $type: \"string\", $regex: /^\\s*$/ }} }};"
        );
    }
    let _ = writeln!(s, "\n// What the script does, before it does it.");
    let _ = writeln!(s, "const willConvert = coll.countDocuments(toNumber);");
    let _ = writeln!(
        s,
        "const willRemove = {};",
        if field {
            "coll.countDocuments(blank)"
        } else {
            "0"
        }
    );
    let _ = writeln!(s, "const holding = coll.countDocuments(strings);");
    let _ = writeln!(
        s,
        "const numeric = {{ [path]: {{ $type: \"number\" }} }};\nconst numbersNow = coll.countDocuments(numeric);"
    );
    let removal = if field {
        lang.pick(
            "hold empty text: the field is removed from them (an empty string is no number)",
            "是空字符串：从这些文档中删除该字段（空字符串不是数字）",
        )
    } else {
        lang.pick(
            "hold empty text in the array: it stays (no element is removed)",
            "数组中有空字符串：保持不变（不删除任何元素）",
        )
    };
    let _ = writeln!(
        s,
        "print({});",
        lang.pick(
            format!("`${{willConvert}} documents hold numbers written as text in ${{path}}: they become {t}; ${{willRemove}} {removal}; ${{Math.max(0, holding - willConvert - willRemove)}} hold other text, left as it is`"),
            format!("`${{path}} 中 ${{willConvert}} 个文档存有写成文本的数字：它们将变成 {t}；${{willRemove}} 个文档{removal}；${{Math.max(0, holding - willConvert - willRemove)}} 个文档存有其他文本，保持原样`"),
        )
    );
    let _ = writeln!(
        s,
        "\n// Only values that convert exactly are matched: a second run finds none. _id is never set."
    );
    let _ = writeln!(
        s,
        "ds.update(coll, toNumber, [{}]);",
        js_value(&convert::set_stage(&place, target))
    );
    if field {
        let _ = writeln!(
            s,
            "ds.update(coll, blank, {{ $unset: {{ [path]: \"\" }} }});"
        );
    }
    let _ = writeln!(
        s,
        "\n// What the next audit reports: measured after a run, foreseen by a dry run."
    );
    let _ = writeln!(s, "const mixedFloor = {mixed_floor};");
    let _ = writeln!(s, "function verdict(left, numbers) {{");
    let _ = writeln!(
        s,
        "  if (left > 0 && numbers === 0) return {} + {};",
        js(super::change::still_reported(lang)),
        lang.pick(
            "`${left} documents still hold numbers written as text in ${path}, and none holds a number`",
            "`${path} 中仍有 ${left} 个文档存着写成文本的数字，而没有一个是数字`",
        )
    );
    let _ = writeln!(
        s,
        "  if (left > 0 && left >= (left + numbers) * mixedFloor) return {};",
        lang.pick(
            "`docshape will report mixed-types on ${path} instead: ${left} documents still hold text beside ${numbers} holding numbers`",
            "`docshape 将改为在 ${path} 上报告 mixed-types：仍有 ${left} 个文档存着文本，另有 ${numbers} 个文档存着数字`",
        )
    );
    let _ = writeln!(
        s,
        "  if (left > 0) return {};",
        lang.pick(
            "`docshape will report neither numeric-strings nor mixed-types on ${path}: the ${left} documents still holding text are under mixed-types' floor of ${mixedFloor * 100} % of its values`",
            "`docshape 不会在 ${path} 上报告 numeric-strings 或 mixed-types：仍存着文本的 ${left} 个文档低于 mixed-types 的下限（其值的 ${mixedFloor * 100} %）`",
        )
    );
    let _ = writeln!(
        s,
        "  return {};\n}}",
        lang.pick(
            "`docshape will no longer report numeric-strings on ${path}: every value is a number`",
            "`docshape 不会再在 ${path} 上报告 numeric-strings：每个值都是数字`",
        )
    );
    let _ = writeln!(
        s,
        "if (apply) print(verdict(coll.countDocuments(strings), coll.countDocuments(numeric)));"
    );
    let _ = writeln!(
        s,
        "else print({} + verdict(Math.max(0, holding - willConvert - willRemove), numbersNow + willConvert));",
        js(lang.pick("once applied: ", "执行之后："))
    );
    Suggestion {
        pattern: "schema-versioning",
        summary,
        before,
        after,
        effect: Map::new(),
        migration: p.finish(&s),
    }
}
