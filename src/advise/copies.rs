//! Fields copied from another collection's documents that no longer
//! agree with their source (`extended-reference`): a script that
//! refreshes them from the source, where one refresh can do so safely.

use serde_json::{json, Map};

use super::{js, plan, scripts, Suggestion};
use crate::i18n::Lang;
use crate::rules::CollectionCtx;

/// Refreshes copied fields from their source (`extended-reference`).
pub fn refresh_copies(
    ctx: &CollectionCtx<'_>,
    d: &crate::rules::context::DriftCheck,
    lang: Lang,
) -> Suggestion {
    let (source_db, source_coll) = d
        .source_ns
        .split_once('.')
        .unwrap_or((ctx.db(), d.source_ns.as_str()));
    let holder = scripts::Holder::of(&d.holder);
    // What a refresh may write: the copied fields, never a copy's own
    // `_id`, never the reference it is found by, never a name a path
    // cannot reach.
    let joins = holder
        .as_ref()
        .and_then(|h| scripts::copy_reference(h, &d.reference));
    let (fields, never): (Vec<String>, Vec<String>) = d.fields.iter().cloned().partition(|f| {
        f != "_id"
            && Some(f.as_str()) != joins.as_deref()
            && !f.contains('.')
            && !f.starts_with('$')
    });
    let never_note = if never.is_empty() {
        String::new()
    } else {
        lang.pick(
            format!(" The copies also differ on {}, which no script rewrites (a copy's own identity, or the reference it is found by): compare them by hand.", never.join(", ")),
            format!(" 副本在 {} 上也不一致，任何脚本都不会改写它们（副本自身的标识，或用来找到源文档的引用）：请人工核对。", never.join("、")),
        )
    };
    // A copy carries its source's identity, or none: sub-documents whose
    // own `_id` differs from their source's are not copies of it (entities
    // of their own that reference it), and a refresh would overwrite their
    // own data with the source's.
    let own_identity = d.fields.iter().any(|f| f == "_id");
    let no_script = if own_identity {
        Some(lang.pick(
            format!("The sub-documents at `{}` have an `_id` of their own, not that of the `{source_coll}` document they reference: they are not copies of it (more likely entities of their own that reference it), so docshape writes no refresh, which would overwrite their own fields; compare the fields by hand.", d.holder),
            format!("`{}` 处的子文档有自己的 `_id`，而不是它们所引用的 `{source_coll}` 文档的 `_id`：它们不是该文档的副本（更可能是引用它的独立实体），刷新会覆盖它们自己的字段，所以 docshape 不生成刷新脚本；请人工核对这些字段。", d.holder),
        ))
    } else if source_db != ctx.db() {
        Some(lang.pick(
            format!("{} is in another database, which $lookup cannot reach: docshape writes no refresh.", d.source_ns),
            format!("{} 在另一个数据库中，$lookup 无法访问：docshape 不生成刷新脚本。", d.source_ns),
        ))
    } else if holder.is_none() {
        Some(lang.pick(
            format!("The copies sit inside nested arrays (or inside the elements of an array), which one refresh cannot rewrite safely: docshape writes no refresh for `{}`.", d.holder),
            format!("这些副本位于嵌套数组中（或数组元素内部），一次刷新无法安全改写：docshape 不为 `{}` 生成刷新脚本。", d.holder),
        ))
    } else if fields.is_empty() {
        Some(lang.pick(
            "No copied field is left to refresh once the copies' own `_id` and their reference are set aside: docshape writes no refresh.".to_owned(),
            "除去副本自身的 `_id` 和它们的引用后，已没有可刷新的复制字段：docshape 不生成刷新脚本。".to_owned(),
        ))
    } else {
        None
    };
    let summary = lang.pick(
        format!("Copy into `{}` only fields that rarely change, refresh them whenever `{source_coll}` changes them, or reference `{source_coll}` instead of copying.", d.holder),
        format!("只把很少变化的字段冗余到 `{}` 中（扩展引用），并在 `{source_coll}` 修改它们时同步更新；否则改为引用 `{source_coll}`，不要冗余。", d.holder),
    );
    let (summary, migration) = match (no_script, holder) {
        (Some(why), _) if own_identity => (format!("{summary} {why}"), String::new()),
        (Some(why), _) => (format!("{summary} {why}{never_note}"), String::new()),
        (None, None) => (format!("{summary}{never_note}"), String::new()),
        (None, Some(h)) => {
            let what = format!(
                "refresh {} in {}.{} from {}",
                fields.join(", "),
                ctx.ns(),
                d.holder,
                d.source_ns
            );
            let p = plan(ctx, lang, "drift", &what);
            let stays = if never.is_empty() {
                String::new()
            } else {
                p.stays(&js(&lang.pick(
                    format!(
                        "the copies also differ on {}, which no script rewrites",
                        never.join(", ")
                    ),
                    format!(
                        "副本在 {} 上也不一致，任何脚本都不会改写它们",
                        never.join("、")
                    ),
                )))
            };
            let s = scripts::refresh_copies(
                &p,
                ctx.coll(),
                &scripts::CopySource {
                    coll: source_coll,
                    key_type: d.key_type,
                },
                &h,
                &d.reference,
                &fields,
                &stays,
            );
            let converted = match d.key_type {
                Some(ty) => lang.pick(
                    format!(" The copies name their `{source_coll}` document in another type than its `_id`: the script reads each copy's reference as {ty} to find it, and leaves the reference as it is."),
                    format!(" 副本记录 `{source_coll}` 文档的类型与其 `_id` 不同：脚本按 {ty} 读取每份副本的引用来找到源文档，引用本身保持不变。"),
                ),
                None => String::new(),
            };
            (
                format!(
                    "{summary}{}{converted}{never_note}",
                    lang.pick(
                        format!(" The script refreshes {} once, from `{source_coll}`, where a copy and its source both hold the field.", fields.join(", ")),
                        format!(" 脚本从 `{source_coll}` 刷新一次 {}，只改副本与源文档都有的字段。", fields.join("、")),
                    )
                ),
                s,
            )
        }
    };
    Suggestion {
        pattern: "extended-reference",
        summary,
        before: d.examples.first().map(
            |(r, f, copy, src)| json!({ "reference": r, "field": f, "copy": copy, "source": src }),
        ),
        after: None,
        effect: Map::new(),
        migration,
    }
}
