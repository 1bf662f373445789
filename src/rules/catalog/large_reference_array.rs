//! `large-reference-array`: arrays of references with thousands of entries
//! (seeds 000/004: hundreds of children → an array of ids; thousands → no
//! array at all, the child references its parent).

use serde_json::json;

use crate::rules::{crossed, evidence, CollectionCtx, Finding, Remedy, Severity, Thresholds};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::Seg;
use crate::relate::Kind;
use crate::rules::declare::rule;
use crate::rules::registry::{Basis, Check};

rule! {
    id: "large-reference-array",
    title: "Array of thousands of references",
    explanation: (
        "An array of child ids works for hundreds of children; with thousands the parent document grows with every child, each append rewrites it, and the array alone approaches the 16 MiB limit. The seeds' rule: with thousands of children, do not embed even their ObjectIds — store the parent's id in each child (parent reference) and index it.",
        "子引用数组适合数百个子文档；当有数千个时，父文档会随每个子文档增长，每次追加都要重写父文档，仅这个数组就可能逼近 16 MiB 上限。种子材料的法则：如果有数千个文档对象，就不要再内嵌 ObjectID 的数组——改为在每个子文档中保存父文档的 id（父引用），并为它建立索引。",
    ),
    source: "seeds/000 (rule 3), seeds/004 (one-to-many vs one-to-squillions)",
    check: Check::Collection(check, Basis::Documents),
    needs: Everything,
    limits: {
        /// references in one array that warrant a warning
        warning_length: 1_000.0,
        /// references in one array that are critical
        critical_length: 10_000.0,
    },
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let warn = t.large_reference_array.warning_length;
    let crit = t.large_reference_array.critical_length;
    let mut out = Vec::new();
    for f in ctx.fields() {
        let Some(a) = f.array else { continue };
        if (a.max as f64) <= warn {
            continue;
        }
        let elem = ctx
            .children_of(f)
            .find(|c| c.segments.last() == Some(&Seg::Elem));
        let oids =
            elem.is_some_and(|e| e.type_count(BsonType::ObjectId) as f64 >= 0.9 * e.values as f64);
        let rel = ctx.relationships.iter().find(|r| {
            r.from_ns == ctx.ns()
                && r.from_path == f.path
                && matches!(r.kind, Kind::ChildReference | Kind::TwoWayReference)
        });
        if !oids && rel.is_none() {
            continue;
        }
        let severity = if a.max as f64 > crit {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let (child_coll, child_key) = rel.map_or_else(
            || (f.name.clone(), "_id".to_owned()),
            |r| {
                let to =
                    r.to.strip_prefix(&format!("{}.", ctx.db()))
                        .unwrap_or(&r.to);
                match to.split_once('.') {
                    Some((c, k)) => (c.to_owned(), k.to_owned()),
                    None => (to.to_owned(), "_id".to_owned()),
                }
            },
        );
        let mut ev = evidence([
            ("array_length", json!(a)),
            ("sampled", json!(ctx.sampled())),
            ("references", json!(rel.map(|r| r.to.clone()))),
            (
                "threshold",
                crossed(t, if severity == Severity::Critical {
                        Key::critical_length
                    } else {
                        Key::warning_length
                    }),
            ),
        ]);
        if rel.is_none() {
            ev.insert(
                "note".into(),
                json!("ObjectIds whose target collection was not found"),
            );
        }
        out.push(Finding {
            rule: RULE,
            severity,
            namespace: ctx.ns().to_owned(),
            path: Some(f.path.clone()),
            message: lang.pick(
                format!(
                    "{} holds up to {} references {} (p95 {}, average {:.1})",
                    f.path,
                    group(a.max),
                    ctx.scope(lang),
                    group(a.p95),
                    a.avg
                ),
                format!(
                    "{} 最多保存了 {} 个引用，{}（p95 {}，平均 {:.1}）",
                    f.path,
                    group(a.max),
                    ctx.scope(lang),
                    group(a.p95),
                    a.avg
                ),
            ),
            evidence: ev,
            remedy: Remedy::IdsToParentReference {
                array: f.path.clone(),
                child_coll,
                child_key,
            },
        });
    }
    out
}
