//! What a conversion script says last: which findings docshape's next
//! audit will make on the path it converts, worked out at run time from
//! what the path then holds, by the rules' own tests and thresholds.
//!
//! A conversion rarely ends with one clean type: values that do not
//! convert exactly (ambiguous dates, `"N/A"` among numbers, integers past
//! 2^53) stay, and beside the converted ones they can make the path
//! `mixed-types` where it was `string-dates`. The script counts the
//! path's types once it ran (or, in a dry run, as they would be) and ends
//! with one line:
//!
//! ```text
//! re-audit: mixed-types on date_depo — it will hold date ×6, string ×9 …
//! re-audit: nothing on lastupdated — it will hold date ×23,539
//! ```
//!
//! (`re-audit once applied:` in a dry run). The rules a line speaks about
//! are those a conversion of its finding's rule can leave behind
//! ([`watched`]): `nothing` means none of them, not that the collection
//! has no other finding.

use std::fmt::Write;

use super::{js, js_value};
use crate::i18n::Lang;
use crate::profile::FieldProfile;
use crate::rules::{CollectionCtx, Reaudit};

/// The words a re-audit line begins with, after a run that changed data
/// (or one that reads only) and in a dry run.
pub(crate) fn words(lang: Lang, dry: bool) -> &'static str {
    if dry {
        lang.pick("re-audit once applied: ", "应用后重新审计：")
    } else {
        lang.pick("re-audit: ", "重新审计：")
    }
}

/// The rules a conversion made for a finding of `rule` can leave behind on
/// its path, and which its re-audit line therefore speaks about.
pub fn watched(rule: &str) -> &'static [&'static str] {
    match rule {
        "string-dates" => &["string-dates", "mixed-types"],
        "lossy-numbers" => &["lossy-numbers", "mixed-types"],
        "reference-type-mismatch" => &["reference-type-mismatch", "mixed-types"],
        "mixed-types" => &["mixed-types"],
        _ => &[],
    }
}

/// What an English re-audit line says: the rules it names (none for
/// `nothing`) and the path. `None` for any other line.
pub fn read_line(line: &str) -> Option<(Vec<String>, String)> {
    let rest = line
        .strip_prefix(words(Lang::En, false))
        .or_else(|| line.strip_prefix(words(Lang::En, true)))?;
    let (rules, rest) = rest.split_once(" on ")?;
    let path = rest.split(" — ").next()?.to_owned();
    let rules = if rules == "nothing" {
        Vec::new()
    } else {
        rules.split(", ").map(str::to_owned).collect()
    };
    Some((rules, path))
}

/// JavaScript defining, for the path `shown`:
///
/// - `mixedTypes(types, wide)`: whether `mixed-types` fires on a path
///   whose values count `types` (`{ alias: n }`, as `$type` names them);
///   `wide` when a number reaches 2^53 (a double beside a long then
///   matters);
/// - `heldText(types)`: the types held, most first (`date ×6, string ×9`);
/// - `reaudit(rules, why)`: the line that ends the script.
///
/// `changing`: the script has `apply` (a read-only one always speaks of
/// the data as it is).
pub(crate) fn js_helpers(lang: Lang, shown: &str, r: &Reaudit, changing: bool) -> String {
    let min = r
        .mixed_types
        .map_or_else(|| "null".to_owned(), |m| format!("{m}"));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{}",
        lang.pick(
            "// What docshape's next audit reports on this path, from what it then holds: mixed-types\n// when two types each hold at least this share of its values (null: the rule is off).",
            "// docshape 下次审计时会在该路径上报告什么，取决于它届时保存的值：两种类型各占至少\n// 这一比例的值时报告 mixed-types（null：该规则已关闭）。",
        )
    );
    let _ = writeln!(s, "const mixedMin = {min};");
    s.push_str(
        r#"const typeFamily = (t) => (["double", "int", "long", "decimal"].includes(t) ? "number" : t === "symbol" ? "string" : t === "timestamp" ? "date" : t);
const heldTypes = (types) => Object.keys(types).filter((t) => types[t] > 0 && !["null", "undefined", "missing"].includes(t));
const mixedTypes = (types, wide) => {
  if (mixedMin === null) return false;
  const held = heldTypes(types);
  const total = held.reduce((n, t) => n + types[t], 0);
  const counted = held.filter((t) => types[t] / total >= mixedMin);
  if (counted.length < 2) return false;
  if (new Set(counted.map(typeFamily)).size > 1) return true;
  const has = (t) => counted.includes(t);
  return (has("decimal") && (has("double") || has("int") || has("long"))) || (has("double") && has("long") && wide);
};
const heldText = (types) => heldTypes(types).sort((a, b) => types[b] - types[a]).map((t) => `${t} ×${types[t]}`).join(", ");
"#,
    );
    let (done, dry) = (words(lang, false), words(lang, true));
    let prefix = if changing {
        format!("(apply ? {} : {})", js(done), js(dry))
    } else {
        js(done)
    };
    let shown = js(shown);
    let _ = writeln!(
        s,
        "{}",
        lang.pick(
            format!("const reaudit = (rules, why) => {prefix} + (rules.length > 0 ? rules.join(\", \") + \" on \" + {shown} : \"nothing on \" + {shown}) + \" — \" + why;"),
            format!("const reaudit = (rules, why) => {prefix} + {shown} + (rules.length > 0 ? \" 上报告 \" + rules.join(\", \") : \" 上不再报告这些问题\") + \"——\" + why;"),
        )
    );
    s
}

/// The rules a conversion of `rule` speaks about that the audit made on
/// `f`, as a script that changes nothing leaves them: `rule` itself, and
/// `mixed-types` when the path's types set it off (a reference kept in two
/// representations is `reference-type-mismatch`'s instead).
pub(crate) fn as_audited(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    rule: &'static str,
    r: &Reaudit,
) -> Vec<&'static str> {
    let mut rules = vec![rule];
    let two_representations = ctx
        .relationships
        .iter()
        .any(|x| x.from_ns == ctx.ns() && x.from_path == f.path && x.representations.is_some());
    let mixed = rule != "mixed-types"
        && !two_representations
        && r.mixed_types
            .is_some_and(|m| crate::rules::mixed_types::fires(&f.types, f.number_range, m));
    if mixed {
        rules.push("mixed-types");
    }
    rules
}

/// The end of a script that changes nothing: its re-audit line, naming the
/// rules the audit made ([`as_audited`]).
pub(crate) fn unchanged(lang: Lang, shown: &str, rules: &[&str], r: &Reaudit) -> String {
    let mut s = js_helpers(lang, shown, r, false);
    let _ = writeln!(
        s,
        "print(reaudit({}, {}));",
        js_value(&serde_json::json!(rules)),
        js(lang.pick("this script changes nothing", "这个脚本不做任何修改"))
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back_as_it_was_written() {
        assert_eq!(
            read_line("re-audit: mixed-types on date_depo — it will hold date ×6, string ×9"),
            Some((vec!["mixed-types".to_owned()], "date_depo".to_owned()))
        );
        assert_eq!(
            read_line("re-audit once applied: lossy-numbers, mixed-types on a.b — x"),
            Some((
                vec!["lossy-numbers".to_owned(), "mixed-types".to_owned()],
                "a.b".to_owned()
            ))
        );
        assert_eq!(
            read_line("re-audit: nothing on items[].qty — x"),
            Some((Vec::new(), "items[].qty".to_owned()))
        );
        assert_eq!(
            read_line("docshape will still report this finding: x"),
            None
        );
    }

    #[test]
    fn the_helpers_name_the_threshold_or_say_the_rule_is_off() {
        let r = Reaudit::default();
        let on = js_helpers(Lang::En, "at", &r, true);
        assert!(on.contains("const mixedMin = 0.01;"), "{on}");
        assert!(on.contains("apply ?"), "{on}");
        let off = Reaudit {
            mixed_types: None,
            ..r
        };
        let read_only = js_helpers(Lang::Zh, "at", &off, false);
        assert!(read_only.contains("const mixedMin = null;"), "{read_only}");
        assert!(!read_only.contains("apply"), "{read_only}");
    }
}
