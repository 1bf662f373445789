//! `denormalization-drift`: copied fields that no longer match their source
//! (seed 000: denormalize only read-mostly fields — a copy is not updated
//! atomically with its source; 003: extended reference).

use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Severity, Thresholds};
use crate::advise;
use crate::fmt::{group, percent};
use crate::i18n::Lang;

const RULE: &str = "denormalization-drift";

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let warn = t.get(RULE, "warning-share");
    let mut out = Vec::new();
    for d in &ctx.drift {
        if d.checked == 0 || d.disagree == 0 {
            continue;
        }
        let share = d.disagree as f64 / d.checked as f64;
        let severity = if share >= warn {
            Severity::Warning
        } else {
            Severity::Info
        };
        let example = d
            .examples
            .first()
            .map_or_else(String::new, |(r, f, copy, src)| {
                lang.pick(
                    format!(
                        "; e.g. {r}: {f} is {copy} here but {src} in {}",
                        d.source_ns
                    ),
                    format!(
                        "；例如 {r}：这里的 {f} 是 {copy}，而 {} 中是 {src}",
                        d.source_ns
                    ),
                )
            });
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(d.holder.clone()),
            message: lang.pick(
                format!("{} of {} copies in {} ({}) disagree with {} on {}{example}", group(d.disagree), group(d.checked), d.holder, percent(share), d.source_ns, d.fields.join(", ")),
                format!("{} 中的 {} 份冗余副本里有 {} 份（{}）与 {} 的 {} 不一致{example}", d.holder, group(d.checked), group(d.disagree), percent(share), d.source_ns, d.fields.join("、")),
            ),
            evidence: evidence([
                ("checked", json!(d.checked)),
                ("disagree", json!(d.disagree)),
                ("share", json!(share)),
                ("source", json!(d.source_ns)),
                ("fields", json!(d.fields)),
                ("examples", json!(d.examples.iter().map(|(r, f, c, s)| json!({"reference": r, "field": f, "copy": c, "source": s})).collect::<Vec<_>>())),
                ("threshold", crossed(t, RULE, "warning-share")),
            ]),
            explanation: lang.pick(
                "A denormalized copy saves a join on every read, but it is not updated atomically with its source: every change to the source must also be written to each copy, and copies that were missed go stale. The seeds: denormalize only fields that are read far more often than they change, and weigh the update cost; an extended reference is a deliberate snapshot, which is fine only if stale values are acceptable.".to_owned(),
                "反范式的冗余副本让每次读取省去一次关联查询，但它不会与源数据原子地更新：源数据的每次修改都必须同时写入每一份副本，遗漏的副本就会过期。种子材料：只有读取远多于修改的字段才适合冗余，并且要权衡更新的代价；扩展引用是有意保存的快照，只有能接受旧值时才合适。".to_owned(),
            ),
            source: "seeds/000 (denormalization), seeds/001 (group data copied into contacts), seeds/003 (extended reference)".into(),
            suggestion: advise::refresh_copies(ctx, d, lang),
        });
    }
    out
}
