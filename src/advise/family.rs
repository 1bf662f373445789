//! Suggestions about several collections at once: a family of collections
//! named by a key, made one collection with the key as a field; two
//! collections holding the same documents.

use std::fmt::Write;

use serde_json::{json, Map};

use super::change::{self, Plan};
use super::{js, js_value, Suggestion};
use crate::i18n::Lang;

/// Copies every member of a family into `target`, each document with its
/// member's key in `key_field` (`polymorphic`). The copy keeps each `_id`
/// (references to the documents stay valid), so it stops when two members
/// share an `_id` or a member already uses `key_field`; `$merge` on `_id`
/// keeps what is there, so a second run adds nothing. It counts each
/// member's documents in `target` and never drops a member: it prints the
/// commands that do, for after the check.
pub fn consolidate(
    db: &str,
    target: &str,
    key_field: &str,
    members: &[(String, String)],
    lang: Lang,
) -> Suggestion {
    let what = format!(
        "copy {} collections of {db} into {target} with {key_field}",
        members.len()
    );
    let p = Plan::new(lang, db, target, "family", &what);
    let list: Vec<serde_json::Value> = members.iter().map(|(c, k)| json!([c, k])).collect();
    let mut s = String::new();
    let _ = writeln!(s, "const database = db.getSiblingDB({});", js(db));
    let _ = writeln!(s, "const target = {}; // the one collection", js(target));
    let _ = writeln!(
        s,
        "const key = {}; // the field holding the key each name carried",
        js(key_field)
    );
    let _ = writeln!(
        s,
        "// (collection, key): the family, as the audit found it."
    );
    let _ = writeln!(s, "const members = {};", js_value(&json!(list)));
    let _ = writeln!(
        s,
        "const here = members.filter(([n]) => database.getCollectionNames().includes(n));"
    );
    let _ = writeln!(
        s,
        "\n// A member whose documents already use the key field is not copied over it."
    );
    let _ = writeln!(s, "const clash = here.filter(([n]) => database.getCollection(n).findOne({{ [key]: {{ $exists: true }} }}, {{ _id: 1 }}) !== null).map(([n]) => n);");
    let _ = writeln!(
        s,
        "// Each copy keeps its _id: two members holding one _id cannot share a collection so."
    );
    let _ = writeln!(s, "const twice = here.length < 2 ? [] : database.getCollection(here[0][0]).aggregate(\n  [{{ $project: {{ _id: 1 }} }}]\n    .concat(here.slice(1).map(([n]) => ({{ $unionWith: {{ coll: n, pipeline: [{{ $project: {{ _id: 1 }} }}] }} }})))\n    .concat([{{ $group: {{ _id: \"$_id\", n: {{ $sum: 1 }} }} }}, {{ $match: {{ n: {{ $gt: 1 }} }} }}, {{ $limit: 5 }}]),\n  {{ allowDiskUse: true }}).toArray();");
    let _ = writeln!(s, "if (clash.length > 0) {{");
    let _ = writeln!(s, "  ds.stop(`${{clash.join(\", \")}} already use the field ${{key}}: rename it there first`);");
    let _ = writeln!(s, "}} else if (twice.length > 0) {{");
    let _ = writeln!(s, "  ds.stop(`_ids held by more than one member (e.g. ${{twice.map((x) => EJSON.stringify(x._id)).join(\", \")}}): give the copies new _ids (keeping the old one in a field) and update what references them, then run this again`);");
    let _ = writeln!(s, "}} else if (ds.creates(target)) {{");
    let _ = writeln!(s, "  for (const [name, value] of here) {{");
    let _ = writeln!(s, "    ds.write(database.getCollection(name), [{{ $set: {{ [key]: value }} }}], target, \"keepExisting\");");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(
        s,
        "  // A dry run created nothing: the index is said, not looked for.\n  if (apply) ds.createIndex(database.getCollection(target), {{ [key]: 1 }});\n  else print(`would create the index ${{EJSON.stringify({{ [key]: 1 }})}} on ${{database.getName()}}.${{target}}`);"
    );
    let _ = writeln!(s, "  if (apply) {{");
    let _ = writeln!(
        s,
        "    // Every member's documents, counted in the one collection."
    );
    let _ = writeln!(s, "    const short = [];");
    let _ = writeln!(s, "    for (const [name, value] of here) {{");
    let _ = writeln!(
        s,
        "      const n = database.getCollection(name).countDocuments({{}});"
    );
    let _ = writeln!(
        s,
        "      const m = database.getCollection(target).countDocuments({{ [key]: value }});"
    );
    let _ = writeln!(
        s,
        "      if (m !== n) short.push(`${{name}}: ${{n}} documents, ${{m}} in ${{target}}`);"
    );
    let _ = writeln!(s, "    }}");
    let _ = writeln!(s, "    if (short.length > 0) print(`not every document is in ${{target}}: ${{short.join(\"; \")}}`);");
    let _ = writeln!(s, "    else print(`each of the ${{here.length}} collections has all its documents in ${{target}}`);");
    let _ = writeln!(s, "    print(\"the old collections are kept; once the application reads and writes \" + target + \" only, drop them:\");");
    let _ = writeln!(s, "    print(here.map(([n]) => `db.getSiblingDB(${{JSON.stringify(database.getName())}}).getCollection(${{JSON.stringify(n)}}).drop();`).join(\" \"));");
    let _ = writeln!(s, "  }}");
    let _ = writeln!(s, "}}");
    s.push_str(&p.stays(&js(lang.pick(
        "the old collections stay until you drop them",
        "旧集合会一直保留，直到你删除它们",
    ))));
    let first = members.first().map_or("", |(c, _)| c.as_str());
    let first_key = members.first().map_or("", |(_, k)| k.as_str());
    Suggestion {
        pattern: "polymorphic",
        summary: lang.pick(
            format!("Keep the {} collections as one, `{target}`, with the key each name carries in a field `{key_field}` and an index on it; queries for one key filter on `{key_field}`. The script copies every member into `{target}` (each document keeps its _id and gets `{key_field}`; a second run adds nothing), builds the index, counts each member's documents there, and drops nothing: it prints the commands that drop the old collections, to run once the application uses `{target}`.", members.len()),
            format!("把这 {} 个集合合并为一个 `{target}`：名字里的键放进字段 `{key_field}` 并为它建立索引；按某个键查询时按 `{key_field}` 过滤。脚本把每个成员复制到 `{target}`（每个文档保留 _id 并加上 `{key_field}`；再运行一次不会重复添加），建立索引，统计每个成员在其中的文档数，不删除任何集合：它打印删除旧集合的命令，等应用改用 `{target}` 后再执行。", members.len()),
        ),
        before: Some(json!({ "collection": first, "document": { "_id": "…" } })),
        after: Some(json!({ "collection": target, "document": { "_id": "…", key_field: first_key }, "index": { key_field: 1 } })),
        effect: Map::new(),
        migration: p.finish(&s),
    }
}

/// Counts the `_id`s two collections share and those only one holds, and
/// how many shared documents are the same (`computed`: a view). Reads
/// only.
pub fn duplicate(a: &str, b: &str, lang: Lang) -> Suggestion {
    let coll = |ns: &str| {
        let (d, c) = ns.split_once('.').unwrap_or((ns, ""));
        format!("db.getSiblingDB({}).getCollection({})", js(d), js(c))
    };
    let mut s = change::read_only(lang, &format!("the _ids {a} and {b} share"));
    let _ = writeln!(s, "const a = {};", coll(a));
    let _ = writeln!(s, "const b = {};", coll(b));
    let _ = writeln!(
        s,
        "let inA = 0;\nlet shared = 0;\nlet same = 0;\nlet batch = [];"
    );
    let _ = writeln!(s, "const flush = () => {{\n  if (batch.length === 0) return;\n  const there = new Map(b.find({{ _id: {{ $in: batch.map((d) => d._id) }} }}).toArray().map((d) => [EJSON.stringify(d._id), d]));\n  for (const d of batch) {{\n    const o = there.get(EJSON.stringify(d._id));\n    if (o !== undefined) {{ shared += 1; if (EJSON.stringify(o) === EJSON.stringify(d)) same += 1; }}\n  }}\n  batch = [];\n}};");
    let _ = writeln!(s, "a.find({{}}).forEach((d) => {{ inA += 1; batch.push(d); if (batch.length === 500) flush(); }});\nflush();");
    let _ = writeln!(s, "const inB = b.countDocuments({{}});");
    let _ = writeln!(s, "print(`${{a.getFullName()}}: ${{inA}} documents; ${{b.getFullName()}}: ${{inB}}; _ids in both: ${{shared}} (${{same}} of them the same document); only in ${{a.getFullName()}}: ${{inA - shared}}; only in ${{b.getFullName()}}: ${{inB - shared}}`);");
    s.push_str(&change::stays_line(
        lang,
        &js(lang.pick(
            "which copy to keep is yours to decide; this script only counts",
            "保留哪一份由你决定；这个脚本只做统计",
        )),
    ));
    Suggestion {
        pattern: "computed",
        summary: lang.pick(
            format!("Keep one of {a} and {b}. Find which one the application reads and writes; back up and drop the other (`.drop()`), or, where something still reads it, replace it with a view on the one kept (`db.createView(name, source, [])`), so that both names show the same documents. The script only counts the _ids both hold, those only one holds, and the shared documents that are the same."),
            format!("{a} 和 {b} 只保留一个。先查明应用读写的是哪一个；备份后删除另一个（`.drop()`），如果仍有代码读取它，就用基于保留集合的视图代替它（`db.createView(name, source, [])`），让两个名字看到同样的文档。脚本只统计两者都有的 _id、只在一方的 _id，以及共有文档中完全相同的数量。"),
        ),
        before: None,
        after: None,
        effect: Map::new(),
        migration: s,
    }
}
