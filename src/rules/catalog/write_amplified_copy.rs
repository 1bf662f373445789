//! `write-amplified-copy`: a field that an extended reference copies is
//! updated in its source often (more than once per 100 reads of the
//! copies), or the copies drift: each update should rewrite every copy
//! (seed 000, rule 6: denormalize only fields read far more often than
//! written; 001: a group edit that became a million-document write).
//! Reported on the collection holding the copies.

use serde::Serialize;
use serde_json::Value;

use crate::rules::shapes;
use crate::rules::{
    CollectionCtx, Crossed, DriftCheck, Evidence, Finding, Remedy, Severity, Thresholds,
};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::relate::drift::DriftKind;
use crate::relate::Fanout;
use crate::source::OpCounts;
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

/// An update shape of a source: its rank, the shape and the copied fields
/// it sets.
type SourceUpdate<'s> = (usize, &'s Shape, Vec<String>);

/// Runs of the updates of `d`'s source that set a copied field, and the
/// costliest such shape.
fn copied_updates<'s>(all: &'s [Shape], d: &DriftCheck) -> (u64, Option<SourceUpdate<'s>>) {
    let mut writes = 0u64;
    let mut costliest: Option<SourceUpdate<'s>> = None;
    for (i, s) in all.iter().enumerate() {
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
    (writes, costliest)
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let Some(w) = &ctx.workload else {
        return Vec::new();
    };
    let reads = w.profiled_reads();
    let mut out = Vec::new();
    for d in ctx.drift.iter().filter(|d| d.kind == DriftKind::Source) {
        let (writes, costliest) = copied_updates(w.all, d);
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
        // Copies each update should rewrite: the fan-out of the reference.
        let fanout = ctx
            .relationships
            .iter()
            .find(|r| r.from_ns == ctx.ns() && r.to_ns == d.source_ns && r.from_path == d.reference)
            .and_then(|r| r.fanout.as_ref());
        let evidence = Amplified {
            shape: shapes::evidence(rank, s, w.total_ms),
            source: &d.source_ns,
            fields: &fields,
            updates: writes,
            reads,
            fanout,
            drift: Drift {
                checked: d.checked,
                disagree: d.disagree,
            },
            threshold: Crossed::of(t, Key::max_writes_per_read),
            server_counts: counted.map(|(copies, source)| Counted { copies, source }),
            holder: &d.holder,
            coll: ctx.coll(),
        };
        let remedy = Remedy::StopCopying {
            holder: d.holder.clone(),
            reference: d.reference.clone(),
            source_ns: d.source_ns.clone(),
            fields: fields.clone(),
        };
        let path = Some(d.holder.clone());
        out.push(Finding::new(RULE, Severity::Warning, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `write-amplified-copy` found of one collection's copies of a
/// source whose copied fields are updated.
#[derive(Serialize)]
struct Amplified<'a> {
    shape: Value,
    source: &'a str,
    fields: &'a [String],
    updates: u64,
    reads: u64,
    fanout: Option<&'a Fanout>,
    drift: Drift,
    threshold: Crossed,
    /// The server's own counts of the copies' collection and the source's.
    #[serde(skip_serializing_if = "Option::is_none")]
    server_counts: Option<Counted<'a>>,
    #[serde(skip)]
    holder: &'a str,
    #[serde(skip)]
    coll: &'a str,
}

/// Copies checked against their source, and those that disagree.
#[derive(Serialize)]
struct Drift {
    checked: u64,
    disagree: u64,
}

/// What the server counted on the copies' collection and on the source.
#[derive(Serialize)]
struct Counted<'a> {
    copies: &'a OpCounts,
    source: &'a OpCounts,
}

impl Evidence for Amplified<'_> {
    fn describe(&self, lang: Lang) -> String {
        let copies = self.fanout.map_or_else(String::new, |f| {
            let (avg, max) = (f.avg, group(f.max));
            lang.pick(
                format!("; each update should rewrite {avg:.1} copies on average (up to {max})"),
                format!("；每次更新平均要改写 {avg:.1} 个副本（最多 {max}）"),
            )
        });
        let d = &self.drift;
        let drift = if d.disagree > 0 {
            let (disagree, checked) = (group(d.disagree), group(d.checked));
            lang.pick(
                format!("; {disagree} of {checked} copies checked already disagree with their source"),
                format!("；检查的 {checked} 个副本中已有 {disagree} 个与源文档不一致"),
            )
        } else {
            String::new()
        };
        let list = self.fields.join(", ");
        let (holder, source, coll) = (self.holder, self.source, self.coll);
        let (writes, reads) = (group(self.updates), group(self.reads));
        let per_100 =
            group((self.updates as f64 * 100.0 / self.reads.max(1) as f64).round() as u64);
        lang.pick(
            format!("{holder} copies {list} from {source}; updates of {list} there ran {writes} times against {reads} reads of {coll} ({per_100} per 100 reads){copies}{drift}"),
            format!("{holder} 从 {source} 复制了 {list}；那里对 {list} 的更新执行了 {writes} 次，而 {coll} 的读取为 {reads} 次（每 100 次读取 {per_100} 次）{copies}{drift}"),
        )
    }
}
