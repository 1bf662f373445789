//! `long-field-names`: field names taking a large share of every document
//! (seed 002: BSON stores every name in every document).

use std::collections::BTreeMap;

use serde_json::json;

use super::{crossed, evidence, CollectionCtx, Finding, Severity, Thresholds};
use crate::advise;
use crate::fmt::percent;
use crate::i18n::Lang;
use crate::profile::raw::{self, BsonType};

const RULE: &str = "long-field-names";

/// Bytes of names (with their terminating zero) in a document, and per name.
fn name_bytes(doc: &[u8], in_array: bool, per_name: &mut BTreeMap<String, u64>) -> u64 {
    let Ok(it) = raw::elements(doc) else { return 0 };
    let mut total = 0;
    for el in it.flatten() {
        let n = el.key.len() as u64 + 1;
        total += n;
        if !in_array {
            *per_name
                .entry(String::from_utf8_lossy(el.key).into_owned())
                .or_default() += n;
        }
        if el.ty.is_container() {
            total += name_bytes(el.value, el.ty == BsonType::Array, per_name);
        }
    }
    total
}

/// `customer_email_address` → `cea`, `shippingAddress` → `sa`.
fn abbreviate(name: &str) -> String {
    let mut out = String::new();
    let mut boundary = true;
    for c in name.chars() {
        if c == '_' || c == '-' || c == '.' {
            boundary = true;
            continue;
        }
        if boundary || c.is_uppercase() {
            out.extend(c.to_lowercase());
        }
        boundary = false;
    }
    if out.len() < 2 {
        name.chars().take(3).collect()
    } else {
        out
    }
}

pub fn check(ctx: &CollectionCtx<'_>, t: &Thresholds, lang: Lang) -> Vec<Finding> {
    let limit = t.get(RULE, "share");
    let docs = &ctx.report.kept;
    if docs.is_empty() {
        return Vec::new();
    }
    let mut per_name = BTreeMap::new();
    let names: u64 = docs
        .iter()
        .map(|d| name_bytes(d, false, &mut per_name))
        .sum();
    let total: u64 = docs.iter().map(|d| d.len() as u64).sum();
    let share = names as f64 / total.max(1) as f64;
    if share < limit {
        return Vec::new();
    }
    let mut longest: Vec<(String, u64)> = per_name
        .into_iter()
        .filter(|(n, _)| n.chars().count() > 8 && !super::dynamic_keys::data_like(n))
        .collect();
    if longest.is_empty() {
        // Small documents with short names: nothing to shorten.
        return Vec::new();
    }
    longest.sort_by_key(|x| std::cmp::Reverse(x.1));
    longest.truncate(5);
    let mut taken: Vec<String> = Vec::new();
    let renames: Vec<(String, String)> = longest
        .iter()
        .map(|(n, _)| {
            let mut short = abbreviate(n);
            while taken.contains(&short) || ctx.field(&short).is_some() {
                short.push('_');
            }
            taken.push(short.clone());
            (n.clone(), short)
        })
        .collect();
    let avg_names = names as f64 / docs.len() as f64;
    vec![Finding {
        rule: RULE,
        severity: Severity::Info,
        namespace: ctx.ns().to_owned(),
        path: None,
        message: lang.pick(
            format!("field names take {} of the bytes ({:.0} of {:.0} bytes per document) {}; longest: {}", percent(share), avg_names, ctx.report.doc_size.avg, ctx.scope(lang), longest.iter().map(|x| x.0.as_str()).collect::<Vec<_>>().join(", ")),
            format!("{}字段名占了 {} 的字节（每个文档 {:.0} 字节中的 {:.0} 字节）；最长的字段名：{}", ctx.scope(lang), percent(share), ctx.report.doc_size.avg, avg_names, longest.iter().map(|x| x.0.as_str()).collect::<Vec<_>>().join("、")),
        ),
        evidence: evidence([
            ("name_bytes_share", json!(share)),
            ("name_bytes_per_document", json!(avg_names)),
            ("avg_document_bytes", json!(ctx.report.doc_size.avg)),
            ("sampled", json!(docs.len())),
            ("threshold", crossed(t, RULE, "share")),
        ]),
        explanation: lang.pick(
            "BSON stores every field name in every document, so long names are paid for again in each of them — on disk, in the cache and on the wire. The seeds suggest shorter names, or an object-document mapper that maps short stored names to readable ones in code.".to_owned(),
            "BSON 在每个文档中都保存每个字段的名字，所以长字段名在每个文档里都要重复付出代价——磁盘、缓存和网络传输都是如此。种子材料建议使用较短的字段名，或者用对象-文档映射（ODM）在代码中把短的存储名映射为易读的名字。".to_owned(),
        ),
        source: "seeds/002 (BSON storage efficiency)".into(),
        suggestion: advise::rename(ctx, &renames, lang),
    }]
}

#[cfg(test)]
mod tests {
    #[test]
    fn abbreviations() {
        assert_eq!(super::abbreviate("customer_email_address"), "cea");
        assert_eq!(super::abbreviate("shippingAddress"), "sa");
        assert_eq!(super::abbreviate("x"), "x");
    }
}
