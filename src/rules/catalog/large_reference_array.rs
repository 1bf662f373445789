//! `large-reference-array`: arrays of references with thousands of entries
//! (seeds 000/004: hundreds of children → an array of ids; thousands → no
//! array at all, the child references its parent).

use serde::Serialize;

use crate::rules::{
    CollectionCtx, Crossed, Evidence, Finding, Measured, Remedy, Severity, Thresholds,
};
use crate::fmt::group;
use crate::i18n::Lang;
use crate::profile::raw::BsonType;
use crate::profile::sketch::Summary;
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
        let (severity, key) = if a.max as f64 > crit {
            (Severity::Critical, Key::critical_length)
        } else {
            (Severity::Warning, Key::warning_length)
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
        let evidence = RefArray {
            array_length: a,
            sampled: ctx.sampled(),
            references: rel.map(|r| r.to.as_str()),
            threshold: Crossed::of(t, key),
            note: rel
                .is_none()
                .then_some("ObjectIds whose target collection was not found"),
            path: &f.path,
            measured: ctx.measured(),
        };
        let remedy = Remedy::IdsToParentReference {
            array: f.path.clone(),
            child_coll,
            child_key,
        };
        let path = Some(f.path.clone());
        out.push(Finding::new(RULE, severity, ctx.ns(), path, &evidence, lang, remedy));
    }
    out
}

/// What `large-reference-array` measured of one array of references.
#[derive(Serialize)]
struct RefArray<'a> {
    array_length: Summary,
    sampled: u64,
    /// The collection (and key) the references point to, when found.
    references: Option<&'a str>,
    threshold: Crossed,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'static str>,
    #[serde(skip)]
    path: &'a str,
    #[serde(skip)]
    measured: Measured,
}

impl Evidence for RefArray<'_> {
    fn describe(&self, lang: Lang) -> String {
        let a = self.array_length;
        let (path, max, p95, avg) = (self.path, group(a.max), group(a.p95), a.avg);
        let scope = self.measured.words(lang);
        lang.pick(
            format!("{path} holds up to {max} references {scope} (p95 {p95}, average {avg:.1})"),
            format!("{path} 最多保存了 {max} 个引用，{scope}（p95 {p95}，平均 {avg:.1}）"),
        )
    }
}
