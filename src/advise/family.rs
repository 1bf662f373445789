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
pub(crate) fn consolidate(
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
    let _ = writeln!(s, "const twice = {};", held_twice("here.map(([n]) => n)"));
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

/// A mongosh expression: up to five `_id`s held by more than one of the
/// collections of `database` named by the JavaScript array `names`.
fn held_twice(names: &str) -> String {
    format!("((names) => names.length < 2 ? [] : database.getCollection(names[0]).aggregate(\n  [{{ $project: {{ _id: 1 }} }}]\n    .concat(names.slice(1).map((n) => ({{ $unionWith: {{ coll: n, pipeline: [{{ $project: {{ _id: 1 }} }}] }} }})))\n    .concat([{{ $group: {{ _id: \"$_id\", n: {{ $sum: 1 }} }} }}, {{ $match: {{ n: {{ $gt: 1 }} }} }}, {{ $limit: 5 }}]),\n  {{ allowDiskUse: true }}).toArray())({names})")
}

/// Sibling collections and the field that would tell them apart in one.
pub struct Kinds<'a> {
    pub members: &'a [String],
    /// Each member's value of `type_field`.
    pub kinds: &'a [String],
    pub type_field: &'a str,
    /// The members already hold their kind in `type_field`.
    pub recorded: bool,
}

/// Sibling collections of `db` (one kind of document kept per type) as
/// one collection with a type field telling the kinds apart
/// (`polymorphic`), and one index serving every kind. The script only
/// reports what a merge would meet: each member's documents, how many
/// hold every shared field, the values of the type field, and `_id`s held
/// by two members.
pub(crate) fn siblings(
    db: &str,
    k: &Kinds<'_>,
    shared: &[String],
    reference: Option<&str>,
    lang: Lang,
) -> Suggestion {
    let (members, type_field, recorded) = (k.members, k.type_field, k.recorded);
    let names = members.join(", ");
    // The reference first: one index finds every kind of one parent (the
    // query only a merge makes possible) and, with the type, one kind.
    let mut index = Map::new();
    if let Some(r) = reference {
        index.insert(r.to_owned(), json!(1));
    }
    index.insert(type_field.to_owned(), json!(1));
    let index = serde_json::Value::Object(index);
    let mut s = change::read_only(
        lang,
        &format!("what merging {names} of {db} into one collection would meet"),
    );
    let _ = writeln!(s, "const database = db.getSiblingDB({});", js(db));
    let pairs: Vec<serde_json::Value> = members
        .iter()
        .zip(k.kinds)
        .map(|(m, v)| json!([m, v]))
        .collect();
    let _ = writeln!(
        s,
        "// (collection, its kind): one kind of document, one collection per type."
    );
    let _ = writeln!(s, "const members = {};", js_value(&json!(pairs)));
    let _ = writeln!(
        s,
        "const shared = {}; // the fields every member holds",
        js_value(&json!(shared))
    );
    let _ = writeln!(
        s,
        "const typeField = {}; // the field that tells the kinds apart in one collection",
        js(type_field)
    );
    let _ = writeln!(
        s,
        "const here = members.filter(([n]) => database.getCollectionNames().includes(n));"
    );
    let _ = writeln!(s, "const whole = shared.length === 0 ? {{}} : {{ $and: shared.map((f) => ({{ [f]: {{ $exists: true }} }})) }};");
    let _ = writeln!(s, "for (const [n, kind] of here) {{");
    let _ = writeln!(s, "  const c = database.getCollection(n);");
    let _ = writeln!(
        s,
        "  const types = c.distinct(typeField).slice(0, 5).map((v) => EJSON.stringify(v));"
    );
    let _ = writeln!(s, "  print(`${{n}}: ${{c.countDocuments({{}})}} documents, ${{c.countDocuments(whole)}} with every shared field; ${{typeField}} now: ${{types.length === 0 ? \"none\" : types.join(\", \")}}; in one collection: ${{EJSON.stringify(kind)}}`);");
    let _ = writeln!(s, "}}");
    let _ = writeln!(
        s,
        "// A merge that keeps each _id (references to the documents stay valid) must settle these first."
    );
    let _ = writeln!(s, "const twice = {};", held_twice("here.map(([n]) => n)"));
    let _ = writeln!(s, "if (twice.length > 0) print(`_ids held by more than one of them (e.g. ${{twice.map((x) => EJSON.stringify(x._id)).join(\", \")}}): give those copies new _ids before a merge`);");
    let _ = writeln!(
        s,
        "else print(`no _id is held by two of them: each document can keep its _id in one collection`);"
    );
    let _ = writeln!(
        s,
        "print(`one collection, each document with ${{typeField}}, needs one index: ${{EJSON.stringify({})}}`);",
        js_value(&index)
    );
    s.push_str(&change::stays_line(
        lang,
        &js(lang.pick(
            "this script only reports; merging is a change of the application's writes, yours to make",
            "这个脚本只做报告；合并需要修改应用的写入，由你来完成",
        )),
    ));
    let first_kind = k.kinds.first().map_or("", String::as_str);
    let mut before_doc = Map::new();
    before_doc.insert("_id".into(), json!("…"));
    for f in shared.iter().take(3) {
        before_doc.insert(f.clone(), json!("…"));
    }
    let mut after_doc = before_doc.clone();
    after_doc.insert(type_field.to_owned(), json!(first_kind));
    let (already_en, already_zh) = if recorded {
        (
            format!(" They already record their kind in `{type_field}`: only the collections keep the kinds apart."),
            format!("它们已经在 `{type_field}` 中记录了自己的种类：把种类分开的只是集合本身。"),
        )
    } else {
        (String::new(), String::new())
    };
    let idx = crate::advise::js_value(&index);
    Suggestion {
        pattern: "polymorphic",
        summary: lang.pick(
            format!("Keep {names} in one collection, each document with `{type_field}` saying which kind it is (the polymorphic pattern), and one index `{idx}` serving every kind where each collection now needs its own.{already_en} The application's write per type becomes one insert with `{type_field}` set; reads of one kind filter on it, and reads across kinds need no union. The script only reports what a merge would meet: each collection's documents, how many hold every shared field, the values of `{type_field}`, and any _id two of them hold; it changes nothing."),
            format!("把 {names} 放进一个集合，每个文档用 `{type_field}` 说明自己的种类（多态模式），一个索引 `{idx}` 就能服务所有种类，而现在每个集合都要有自己的索引。{already_zh}应用按类型的写入变成一次设置了 `{type_field}` 的插入；读取某一种类时按它过滤，跨种类读取也不再需要合并多个集合。脚本只报告合并会遇到的情况：每个集合的文档数、含有全部共有字段的文档数、`{type_field}` 的取值，以及两个集合共有的 _id；它不做任何修改。"),
        ),
        before: Some(json!({ "collections": members, "document": before_doc })),
        after: Some(json!({ "collection": lang.pick("one collection", "一个集合"), "document": after_doc, "index": index })),
        effect: Map::new(),
        migration: s,
    }
}

/// Counts the `_id`s two collections share and those only one holds, and
/// how many shared documents are the same (`computed`: a view). Reads
/// only.
pub(crate) fn duplicate(a: &str, b: &str, lang: Lang) -> Suggestion {
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
