//! `write-amplified-copy`: a field that an extended reference copies is
//! updated in its source often (more than once per 100 reads of the
//! copies), or the copies drift: each update should rewrite every copy
//! (seed 000, rule 6: denormalize only fields read far more often than
//! written; 001: a group edit that became a million-document write).
//! Reported on the collection holding the copies.

use serde_json::{json, Value};

use crate::rules::shapes;
use crate::rules::{crossed, evidence, CollectionCtx, DriftCheck, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::relate::drift::DriftKind;
use crate::workload::Shape;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "write-amplified-copy",
    title: "Copied field updated often in its source",
    explanation: (
        "An extended reference copies a few fields of another document so reads need no join; every update of such a field must then rewrite each copy, or the copies go stale. The seeds' sixth rule of thumb: denormalize only fields read far more often than written. Their contact example: data of a group copied into a million contacts made one group edit a million-document write. Fields that change often are referenced, not copied.",
        "扩展引用复制另一个文档的少数字段，读取时就无需关联；但这类字段每更新一次，就必须改写每一个副本，否则副本就会过期。种子材料的第六条经验法则：只对读取远多于写入的字段做反范式化。其中联系人的例子：把分组的数据复制到一百万个联系人中，一次分组修改就变成了一百万个文档的写入。经常变化的字段应该引用，而不是复制。",
    ),
    source: "seeds/000 (rule 6: denormalize read-mostly fields), seeds/001 (group data copied into a million contacts), seeds/003 (extended reference)",
    check: Check::Collection(check, Basis::Metadata),
    needs: Workload,
    limits: {
        /// updates of a copied field per read of the copies
        max_writes_per_read: 0.01,
    },
}

/// The top-level fields an update shape sets (operators' paths, or a
/// replacement document's fields), first segment only.
fn fields_written(s: &Shape) -> Vec<String> {
    let Some(Value::Object(u)) = &s.update else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (k, v) in u {
        let paths: Vec<&String> = if k.starts_with('$') {
            v.as_object()
                .map(|o| o.keys().collect())
                .unwrap_or_default()
        } else {
            vec![k]
        };
        for p in paths {
            let first = p.split('.').next().unwrap_or(p).to_owned();
            if !out.contains(&first) {
                out.push(first);
            }
        }
    }
    out
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let Some(w) = &ctx.workload else {
        return Vec::new();
    };
    let reads: u64 = w
        .shapes
        .iter()
        .filter(|(_, s)| shapes::is_read(s))
        .map(|(_, s)| s.count)
        .sum();
    let mut out = Vec::new();
    for d in ctx.drift.iter().filter(|d| d.kind == DriftKind::Source) {
        // Updates of the source that set a copied field.
        let mut writes = 0u64;
        let mut costliest: Option<(usize, &Shape, Vec<String>)> = None;
        for (i, s) in w.all.iter().enumerate() {
            if s.namespace != d.source_ns || !matches!(s.op.as_str(), "update" | "findAndModify") {
                continue;
            }
            let hit: Vec<String> = fields_written(s)
                .into_iter()
                .filter(|f| d.fields.contains(f))
                .collect();
            if hit.is_empty() {
                continue;
            }
            writes += s.count;
            if costliest.is_none() {
                costliest = Some((i + 1, s, hit));
            }
        }
        let per_read = writes as f64 / reads.max(1) as f64;
        // The server's own counts since it started: every write of the
        // source per read of the copies bounds the updates of a copied
        // field per read from above, so at or under the threshold the
        // shapes (only the slow reads, or a short window) overstate it.
        let counted = w.counts.get(ctx.ns()).zip(w.counts.get(&d.source_ns));
        let bounded = counted.is_some_and(|(copies, source)| {
            copies.reads > 0
                && source.writes as f64 / copies.reads as f64
                    <= t.write_amplified_copy.max_writes_per_read
        });
        let frequent =
            writes > 0 && per_read > t.write_amplified_copy.max_writes_per_read && !bounded;
        let drifted = d.disagree > 0;
        if !(frequent || (drifted && writes > 0)) {
            continue;
        }
        let Some((rank, s, fields)) = costliest else {
            continue;
        };
        finding(
            ctx,
            t,
            lang,
            d,
            (rank, s, &fields, w.total_ms),
            (writes, reads),
            &mut out,
        );
        if let (Some((copies, source)), Some(f)) = (counted, out.last_mut()) {
            f.evidence.insert(
                "server_counts".into(),
                serde_json::json!({"copies": copies, "source": source}),
            );
        }
    }
    out
}

fn finding(
    ctx: &CollectionCtx<'_>,
    t: &Thresholds,
    lang: Lang,
    d: &DriftCheck,
    (rank, s, fields, total_ms): (usize, &Shape, &[String], u64),
    (writes, reads): (u64, u64),
    out: &mut Vec<Finding>,
) {
    // Copies each update should rewrite: the fan-out of the reference.
    let fanout = ctx
        .relationships
        .iter()
        .find(|r| r.from_ns == ctx.ns() && r.to_ns == d.source_ns && r.from_path == d.reference)
        .and_then(|r| r.fanout.as_ref());
    let copies = fanout.map_or_else(String::new, |f| {
        lang.pick(
            format!(
                "; each update should rewrite {:.1} copies on average (up to {})",
                f.avg,
                group(f.max)
            ),
            format!(
                "；每次更新平均要改写 {:.1} 个副本（最多 {}）",
                f.avg,
                group(f.max)
            ),
        )
    });
    let drift = if d.disagree > 0 {
        lang.pick(
            format!(
                "; {} of {} copies checked already disagree with their source",
                group(d.disagree),
                group(d.checked)
            ),
            format!(
                "；检查的 {} 个副本中已有 {} 个与源文档不一致",
                group(d.checked),
                group(d.disagree)
            ),
        )
    } else {
        String::new()
    };
    let list = fields.join(", ");
    let message = lang.pick(
        format!(
            "{} copies {list} from {}; updates of {list} there ran {} times against {} reads of {} ({} per 100 reads){copies}{drift}",
            d.holder,
            d.source_ns,
            group(writes),
            group(reads),
            ctx.coll(),
            crate::fmt::group((writes as f64 * 100.0 / reads.max(1) as f64).round() as u64),
        ),
        format!(
            "{} 从 {} 复制了 {list}；那里对 {list} 的更新执行了 {} 次，而 {} 的读取为 {} 次（每 100 次读取 {} 次）{copies}{drift}",
            d.holder,
            d.source_ns,
            group(writes),
            ctx.coll(),
            group(reads),
            crate::fmt::group((writes as f64 * 100.0 / reads.max(1) as f64).round() as u64),
        ),
    );
    out.push(Finding {
        rule: RULE,
        severity: Severity::Warning,
        namespace: ctx.ns().to_owned(),
        path: Some(d.holder.clone()),
        message,
        evidence: evidence([
            ("shape", shapes::evidence(rank, s, total_ms)),
            ("source", json!(d.source_ns)),
            ("fields", json!(fields)),
            ("updates", json!(writes)),
            ("reads", json!(reads)),
            ("fanout", json!(fanout)),
            (
                "drift",
                json!({"checked": d.checked, "disagree": d.disagree}),
            ),
            ("threshold", crossed(t, Key::max_writes_per_read)),
        ]),
        remedy: Remedy::StopCopying {
            holder: d.holder.clone(),
            reference: d.reference.clone(),
            source_ns: d.source_ns.clone(),
            fields: fields.to_vec(),
        },
    });
}
