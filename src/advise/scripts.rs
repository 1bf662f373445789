//! `mongosh` migration scripts. Each is safe to re-run: copies go through
//! `$merge` keyed by deterministic ids, updates filter on the old shape, and
//! nothing is removed until the copy has been checked.

use std::fmt::Write;

use serde_json::{json, Value};

use super::{js, js_coll, js_value};

#[allow(clippy::too_many_arguments)]
pub fn move_array_out(
    header: &str,
    db: &str,
    coll: &str,
    dotted: &str,
    child: &str,
    parent_key: &str,
    keep: Option<u64>,
) -> String {
    let field = format!("${dotted}");
    let first = format!("{dotted}.0");
    // One child document: the element's own fields win over the generated
    // `_id` and `position` (a sub-document's `_id` stays its identity); the
    // reference to the parent is always written.
    let elem = |e: &str, pos: &str| {
        json!({ "$mergeObjects": [
            {
                "_id": { "$concat": [ { "$toString": "$_id" }, ":", { "$toString": pos } ] },
                "position": pos
            },
            { "$cond": [ { "$eq": [ { "$type": e }, "object" ] }, e, { "value": e } ] },
            { parent_key: "$_id" }
        ] })
    };
    let copy = json!([
        { "$match": { first: { "$exists": true } } },
        { "$unwind": { "path": field, "includeArrayIndex": "position" } },
        { "$replaceRoot": { "newRoot": elem(&field, "$position") } },
        { "$merge": { "into": child, "on": "_id", "whenMatched": "keepExisting", "whenNotMatched": "insert" } }
    ]);
    let mut s = String::from(header);
    let _ = writeln!(s, "const src = {};", js_coll(db, coll));
    let _ = writeln!(s, "const dst = {};", js_coll(db, child));
    let _ = writeln!(s, "\n// 1. One document per element; its _id is the element's own _id, else \"<parent _id>:<position>\", so a re-run adds nothing twice.");
    let _ = writeln!(s, "src.aggregate({});", pretty(&copy));
    let _ = writeln!(s, "\n// 2. Index the reference to the parent.");
    let _ = writeln!(
        s,
        "dst.createIndex({});",
        js_value(&json!({ parent_key: 1, "position": 1 }))
    );
    // A parent is trimmed only when each of its elements is in the child
    // collection exactly as step 1 builds it from the array as it is now: a
    // parent whose array changed since its elements were copied keeps it.
    // Built by the same expression, the documents compare equal field for
    // field, and the set comparison stays fast on long arrays.
    let expected = json!({ "$map": {
        "input": { "$range": [0, { "$size": field }] },
        "as": "i",
        "in": { "$let": {
            "vars": { "e": { "$arrayElemAt": [field, "$$i"] } },
            "in": elem("$$e", "$$i")
        } }
    } });
    let verify = json!([
        { "$match": { dotted: { "$type": "array" } } },
        { "$lookup": { "from": child, "localField": "_id", "foreignField": parent_key, "as": "__c" } },
        { "$project": { "ok": { "$setIsSubset": [expected, "$__c"] } } },
        { "$match": { "ok": true } },
        { "$project": { "_id": 1 } }
    ]);
    let _ = writeln!(
        s,
        "\n// 3. Trim only the parents whose every element is in {child} as it is now."
    );
    let _ = writeln!(
        s,
        "const arrays = src.countDocuments({});",
        js_value(&json!({ dotted: { "$type": "array" } }))
    );
    let _ = writeln!(
        s,
        "const others = src.countDocuments({});",
        js_value(&json!({ dotted: { "$exists": true, "$not": { "$type": "array" } } }))
    );
    let _ = writeln!(
        s,
        "const ok = src.aggregate({}, {{ allowDiskUse: true }}).toArray().map((d) => d._id);",
        js_value(&verify)
    );
    match keep {
        None => {
            let _ = writeln!(
                s,
                "src.updateMany({{ _id: {{ $in: ok }}, {}: {{ $type: \"array\" }} }}, {});",
                js(dotted),
                js_value(&json!({ "$unset": { dotted: "" } }))
            );
        }
        Some(k) => {
            let longer = format!("{dotted}.{k}");
            let _ = writeln!(
                s,
                "src.updateMany({{ _id: {{ $in: ok }}, {}: {{ $exists: true }} }}, [{}]);",
                js(&longer),
                js_value(
                    &json!({ "$set": { dotted: { "$slice": [field, -(i64::try_from(k).unwrap_or(i64::MAX))] } } })
                )
            );
        }
    }
    let _ = writeln!(
        s,
        "print(`${{ok.length}} of ${{arrays}} documents trimmed; ${{arrays - ok.length}} keep {dotted}: some elements are not in {child} as they are now; ${{others}} documents hold a {dotted} that is not an array: left as they are`);"
    );
    s
}

pub fn split_off(
    header: &str,
    db: &str,
    coll: &str,
    dotted: &str,
    child: &str,
    parent_key: &str,
) -> String {
    let name = dotted.rsplit('.').next().unwrap_or(dotted);
    let copy = json!([
        { "$match": { dotted: { "$exists": true } } },
        { "$project": { "_id": 1, parent_key: "$_id", name: format!("${dotted}") } },
        { "$merge": { "into": child, "on": "_id", "whenMatched": "keepExisting", "whenNotMatched": "insert" } }
    ]);
    let mut s = String::from(header);
    let _ = writeln!(s, "const src = {};", js_coll(db, coll));
    let _ = writeln!(s, "const dst = {};", js_coll(db, child));
    let _ = writeln!(
        s,
        "\n// 1. Copy the value into its own document, keyed by the parent's _id."
    );
    let _ = writeln!(s, "src.aggregate({});", pretty(&copy));
    // Whether each parent's value is the one its copy holds.
    let compare = json!([
        { "$match": { dotted: { "$exists": true } } },
        { "$lookup": { "from": child, "localField": "_id", "foreignField": "_id", "as": "__c" } },
        { "$project": { "same": { "$let": {
            "vars": { "c": { "$ifNull": [ { "$arrayElemAt": ["$__c", 0] }, {} ] } },
            "in": { "$and": [
                { "$in": [name, { "$map": { "input": { "$objectToArray": "$$c" }, "as": "kv", "in": "$$kv.k" } }] },
                { "$eq": [format!("$$c.{name}"), format!("${dotted}")] }
            ] }
        } } } },
        { "$group": { "_id": "$same", "ids": { "$push": "$_id" } } }
    ]);
    let _ = writeln!(
        s,
        "\n// 2. Remove it from the parents whose copy holds the same value. A parent whose value\n//    changed since its copy was made keeps it (and the copy stays): counted below."
    );
    let _ = writeln!(s, "let moved = [];\nlet differ = 0;");
    let _ = writeln!(
        s,
        "src.aggregate({}, {{ allowDiskUse: true }}).forEach((g) => {{ if (g._id === true) {{ moved = g.ids; }} else {{ differ = g.ids.length; }} }});",
        js_value(&compare)
    );
    let _ = writeln!(
        s,
        "src.updateMany({{ _id: {{ $in: moved }}, {}: {{ $exists: true }} }}, {});",
        js(dotted),
        js_value(&json!({ "$unset": { dotted: "" } }))
    );
    let _ = writeln!(
        s,
        "print(`moved {dotted} of ${{moved.length}} documents to {child}; ${{differ}} documents hold a value that differs from its copy in {child}: left as they are`);"
    );
    s
}

pub fn attribute(header: &str, db: &str, coll: &str, dotted: &str, per_key: &[&str]) -> String {
    let mut s = String::from(header);
    let _ = writeln!(s, "const coll = {};", js_coll(db, coll));
    let _ = writeln!(s, "\n// Objects become arrays of {{k, v}}; documents already converted are not matched again.");
    let _ = writeln!(
        s,
        "coll.updateMany({}, [{}]);",
        // `$type` in a query also matches arrays holding objects; the
        // aggregation `$type` tells an object from an array.
        js_value(&json!({ "$expr": { "$eq": [ { "$type": format!("${dotted}") }, "object" ] } })),
        js_value(&json!({ "$set": { dotted: { "$objectToArray": format!("${dotted}") } } }))
    );
    let _ = writeln!(
        s,
        "coll.createIndex({});",
        js_value(&json!({ format!("{dotted}.k"): 1, format!("{dotted}.v"): 1 }))
    );
    if !per_key.is_empty() {
        let _ = writeln!(
            s,
            "\n// These indexes each served one key of {dotted} and now index nothing.\n// Drop them once the application queries {dotted} with $elemMatch: {{k, v}}:"
        );
        for name in per_key {
            let _ = writeln!(s, "// coll.dropIndex({});", js_value(&json!(name)));
        }
    }
    s
}

#[allow(clippy::too_many_arguments)]
pub fn bucket(
    header: &str,
    db: &str,
    coll: &str,
    target: &str,
    date_field: &str,
    series_key: Option<&str>,
    values: &[String],
    numeric: &[String],
) -> String {
    let mut id = serde_json::Map::new();
    if let Some(k) = series_key {
        id.insert(k.into(), json!(format!("${k}")));
    }
    id.insert(
        "hour".into(),
        json!({ "$dateTrunc": { "date": format!("${date_field}"), "unit": "hour" } }),
    );
    let mut event = serde_json::Map::new();
    event.insert(date_field.into(), json!(format!("${date_field}")));
    for v in values {
        event.insert(v.clone(), json!(format!("${v}")));
    }
    let mut group = serde_json::Map::new();
    group.insert("_id".into(), Value::Object(id));
    group.insert("count".into(), json!({ "$sum": 1 }));
    group.insert("first".into(), json!({ "$min": format!("${date_field}") }));
    group.insert("last".into(), json!({ "$max": format!("${date_field}") }));
    for n in numeric {
        group.insert(format!("{n}_min"), json!({ "$min": format!("${n}") }));
        group.insert(format!("{n}_max"), json!({ "$max": format!("${n}") }));
        group.insert(format!("{n}_sum"), json!({ "$sum": format!("${n}") }));
    }
    group.insert("events".into(), json!({ "$push": Value::Object(event) }));
    let pipeline = json!([
        { "$match": { date_field: { "$type": "date" } } },
        { "$sort": { date_field: 1 } },
        { "$group": Value::Object(group) },
        { "$merge": { "into": target, "on": "_id", "whenMatched": "replace", "whenNotMatched": "insert" } }
    ]);
    let mut s = String::from(header);
    let _ = writeln!(s, "const src = {};", js_coll(db, coll));
    let _ = writeln!(s, "\n// One document per {}hour, rebuilt from the events on every run (whenMatched: replace).", if series_key.is_some() { "series and " } else { "" });
    let _ = writeln!(
        s,
        "src.aggregate({}, {{ allowDiskUse: true }});",
        pretty(&pipeline)
    );
    let _ = writeln!(s, "\n// The events stay in {coll}: compare counts, point the application at {target}, then drop {coll} yourself.");
    let _ = writeln!(
        s,
        "print(`${{src.countDocuments({{}})}} events in ${{{}.countDocuments({{}})}} buckets`);",
        js_coll(db, target)
    );
    s
}

pub fn discriminator(
    header: &str,
    db: &str,
    coll: &str,
    field: &str,
    shapes: &[(String, String)],
) -> String {
    let mut s = String::from(header);
    let _ = writeln!(s, "const coll = {};", js_coll(db, coll));
    let _ = writeln!(s, "\n// Each shape is recognised by a field only it has; documents already typed are skipped.");
    for (name, own) in shapes {
        let _ = writeln!(
            s,
            "coll.updateMany({}, {});",
            js_value(&json!({ field: { "$exists": false }, own: { "$exists": true } })),
            js_value(&json!({ "$set": { field: name } }))
        );
    }
    let _ = writeln!(s, "coll.createIndex({});", js_value(&json!({ field: 1 })));
    let _ = writeln!(
        s,
        "print(`${{coll.countDocuments({})}} documents match no shape and were left without {field}`);",
        js_value(&json!({ field: { "$exists": false } }))
    );
    s
}

pub fn rename(header: &str, db: &str, coll: &str, renames: &[(String, String)]) -> String {
    let mut s = String::from(header);
    let _ = writeln!(s, "const coll = {};", js_coll(db, coll));
    let _ = writeln!(
        s,
        "\n// Only documents that still have the old name are touched."
    );
    let _ = writeln!(
        s,
        "// $rename overwrites the new name: a document that already has it is left as it is, and counted."
    );
    for (old, new) in renames {
        let _ = writeln!(
            s,
            "coll.updateMany({}, {});",
            js_value(&json!({ old: { "$exists": true }, new: { "$exists": false } })),
            js_value(&json!({ "$rename": { old: new } }))
        );
        let _ = writeln!(
            s,
            "print(`${{coll.countDocuments({})}} documents already have {new} beside {old}: left as they are`);",
            js_value(&json!({ old: { "$exists": true }, new: { "$exists": true } }))
        );
    }
    let _ = writeln!(
        s,
        "// Update the application (or its ODM mapping) to the new names at the same time."
    );
    s
}

#[allow(clippy::too_many_arguments)]
pub fn ids_to_parent(
    header: &str,
    db: &str,
    coll: &str,
    dotted: &str,
    child_coll: &str,
    child_key: &str,
    parent_key: &str,
) -> String {
    let field = format!("${dotted}");
    let shared = json!([
        { "$unwind": field },
        { "$group": { "_id": field, "n": { "$sum": 1 } } },
        { "$match": { "n": { "$gt": 1 } } },
        { "$limit": 1 }
    ]);
    let copy = json!([
        { "$match": { format!("{dotted}.0"): { "$exists": true } } },
        { "$unwind": field },
        { "$project": { "_id": 0, child_key: field, parent_key: "$_id" } },
        { "$merge": { "into": child_coll, "on": child_key, "whenMatched": "merge", "whenNotMatched": "discard" } }
    ]);
    let mut s = String::from(header);
    let _ = writeln!(s, "const src = {};", js_coll(db, coll));
    let _ = writeln!(s, "const dst = {};", js_coll(db, child_coll));
    let _ = writeln!(s, "\n// 0. A child listed by two parents is many-to-many: then keep the array (or a link collection).");
    let _ = writeln!(
        s,
        "if (src.aggregate({}).toArray().length > 0) {{",
        js_value(&shared)
    );
    let _ = writeln!(
        s,
        "  print(\"some children belong to several parents; nothing was changed\");"
    );
    let _ = writeln!(s, "  quit(1);");
    let _ = writeln!(s, "}}");
    if child_key != "_id" {
        let _ = writeln!(s, "// $merge on {child_key} needs a unique index on it.");
        let _ = writeln!(
            s,
            "dst.createIndex({}, {{ unique: true }});",
            js_value(&json!({ child_key: 1 }))
        );
    }
    let _ = writeln!(s, "\n// 1. Every child records its parent.");
    let _ = writeln!(s, "src.aggregate({});", pretty(&copy));
    let _ = writeln!(
        s,
        "dst.createIndex({});",
        js_value(&json!({ parent_key: 1 }))
    );
    // A parent's array goes only when every child it lists exists and
    // points back to it.
    let verify = json!([
        { "$match": { dotted: { "$type": "array" } } },
        { "$lookup": { "from": child_coll, "localField": "_id", "foreignField": parent_key, "as": "__c" } },
        { "$project": { "ok": { "$setIsSubset": [
            field,
            { "$map": { "input": "$__c", "as": "c", "in": format!("$$c.{child_key}") } }
        ] } } },
        { "$match": { "ok": true } },
        { "$project": { "_id": 1 } }
    ]);
    let _ = writeln!(
        s,
        "\n// 2. Drop each array once every child it lists points back to its parent."
    );
    let _ = writeln!(
        s,
        "const arrays = src.countDocuments({});",
        js_value(&json!({ dotted: { "$type": "array" } }))
    );
    let _ = writeln!(
        s,
        "const others = src.countDocuments({});",
        js_value(&json!({ dotted: { "$exists": true, "$not": { "$type": "array" } } }))
    );
    let _ = writeln!(
        s,
        "const ok = src.aggregate({}, {{ allowDiskUse: true }}).toArray().map((d) => d._id);",
        js_value(&verify)
    );
    let _ = writeln!(
        s,
        "src.updateMany({{ _id: {{ $in: ok }}, {}: {{ $type: \"array\" }} }}, {});",
        js(dotted),
        js_value(&json!({ "$unset": { dotted: "" } }))
    );
    let _ = writeln!(
        s,
        "print(`${{ok.length}} of ${{arrays}} documents no longer hold {dotted}; ${{arrays - ok.length}} keep it: some children it lists do not exist in {child_coll} or point elsewhere; ${{others}} documents hold a {dotted} that is not an array: left as they are`);"
    );
    s
}

pub fn refresh_copies(
    header: &str,
    db: &str,
    coll: &str,
    source_coll: &str,
    holder: &str,
    reference: &str,
    fields: &[String],
) -> String {
    let mut s = String::from(header);
    let _ = writeln!(s, "const coll = {};", js_coll(db, coll));
    // The source's value of `f` in `doc` (an expression), or `copy` when
    // the source document lacks the field: a copy is never removed. The
    // field is looked for among the source's keys, which every server
    // answers alike (some report a missing field as null).
    let value = |doc: Value, f: &str, copy: String| {
        json!({ "$let": {
            "vars": { "s": doc },
            "in": { "$cond": [
                { "$in": [f, { "$map": { "input": { "$objectToArray": "$$s" }, "as": "kv", "in": "$$kv.k" } }] },
                format!("$$s.{f}"),
                copy
            ] }
        } })
    };
    let set = if let Some(arr) = holder.strip_suffix("[]") {
        let ref_in_elem = elem_reference(holder, arr, reference);
        let ids = json!({ "$map": { "input": "$__src", "as": "x", "in": "$$x._id" } });
        let mut merged = serde_json::Map::new();
        for f in fields {
            merged.insert(
                f.clone(),
                json!({ "$let": {
                    "vars": { "i": { "$indexOfArray": [ids, format!("$$it.{ref_in_elem}")] } },
                    "in": { "$cond": [
                        { "$gte": ["$$i", 0] },
                        value(json!({ "$arrayElemAt": ["$__src", "$$i"] }), f, format!("$$it.{f}")),
                        format!("$$it.{f}")
                    ] }
                } }),
            );
        }
        json!({ arr: { "$map": { "input": format!("${arr}"), "as": "it", "in": { "$mergeObjects": ["$$it", Value::Object(merged)] } } } })
    } else {
        let mut m = serde_json::Map::new();
        for f in fields {
            m.insert(
                format!("{holder}.{f}"),
                value(
                    json!({ "$arrayElemAt": ["$__src", 0] }),
                    f,
                    format!("${holder}.{f}"),
                ),
            );
        }
        Value::Object(m)
    };
    // The references of a document: one value, or (copies in an array)
    // the array of each element's reference, gathered first so that the
    // lookup sees plain values.
    let mut pipeline = Vec::new();
    let mut unresolved = Vec::new();
    let mut temporary = vec!["__src"];
    if let Some(arr) = holder.strip_suffix("[]") {
        let ref_in_elem = elem_reference(holder, arr, reference);
        pipeline.push(json!({ "$set": { "__ref": { "$map": {
            "input": { "$cond": [ { "$isArray": format!("${arr}") }, format!("${arr}"), [] ] },
            "as": "x",
            "in": format!("$$x.{ref_in_elem}")
        } } } }));
        pipeline.push(json!({ "$lookup": { "from": source_coll, "localField": "__ref", "foreignField": "_id", "as": "__src" } }));
        temporary.push("__ref");
        unresolved.extend(pipeline.iter().cloned());
    } else {
        let local = reference.replace("[]", "");
        pipeline.push(json!({ "$lookup": { "from": source_coll, "localField": local, "foreignField": "_id", "as": "__src" } }));
        unresolved.push(json!({ "$match": { local.clone(): { "$exists": true } } }));
        unresolved.push(json!({ "$set": { "__ref": [format!("${local}")] } }));
        unresolved.extend(pipeline.iter().cloned());
    }
    let refs =
        json!({ "$filter": { "input": "$__ref", "as": "r", "cond": { "$ne": ["$$r", null] } } });
    let found = json!({ "$map": { "input": "$__src", "as": "x", "in": "$$x._id" } });
    unresolved.push(json!({ "$match": { "$expr": { "$gt": [ { "$size": { "$setDifference": [refs, found] } }, 0 ] } } }));
    unresolved.push(json!({ "$count": "n" }));
    pipeline.push(json!({ "$match": { "__src.0": { "$exists": true } } }));
    pipeline.push(json!({ "$set": set }));
    pipeline.push(json!({ "$unset": temporary }));
    pipeline.push(json!({ "$merge": { "into": coll, "on": "_id", "whenMatched": "merge", "whenNotMatched": "discard" } }));
    let pipeline = Value::Array(pipeline);
    let _ = writeln!(
        s,
        "\n// Re-copy the fields from {source_coll}; running it again copies the same values."
    );
    let _ = writeln!(s, "coll.aggregate({});", pretty(&pipeline));
    let _ = writeln!(
        s,
        "\n// Copies whose reference matches no document in {source_coll} have nothing to be refreshed from: left as they are, counted."
    );
    let _ = writeln!(
        s,
        "const unresolved = coll.aggregate({}).toArray();",
        js_value(&Value::Array(unresolved))
    );
    let _ = writeln!(
        s,
        "print(`${{unresolved.length ? unresolved[0].n : 0}} documents hold copies whose reference matches no document in {source_coll}: left as they are`);"
    );
    s
}

/// The reference inside each element of the array holding copies:
/// `product_id` for the holder `items[]` and the reference
/// `items[].product_id`.
fn elem_reference(holder: &str, arr: &str, reference: &str) -> String {
    reference
        .strip_prefix(&format!("{holder}."))
        .or_else(|| reference.strip_prefix(&format!("{arr}.")))
        .unwrap_or(reference)
        .replace("[]", "")
}

pub fn merge_collections(header: &str, db: &str, colls: &[String]) -> String {
    let mut s = String::from(header);
    let base = common_base(colls);
    let target = merge_target(colls);
    let _ = writeln!(
        s,
        "const target = {}; // the single collection",
        js(&target)
    );
    if base.is_empty() {
        let _ = writeln!(s, "const names = {};", js_value(&json!(colls)));
    } else {
        let _ = writeln!(
            s,
            "// Every collection named {base} followed by digits or separators ({} …).",
            colls.iter().take(3).cloned().collect::<Vec<_>>().join(", ")
        );
        let _ = writeln!(
            s,
            "const names = db.getSiblingDB({}).getCollectionNames().filter((n) => n !== target && /^{}[-_.0-9]+$/.test(n));",
            js(db),
            regex_escape(&base)
        );
    }
    let _ = writeln!(
        s,
        "\n// `kind` names the collection a document came from: a collection whose documents already use it is not merged over."
    );
    let _ = writeln!(
        s,
        "const clash = names.filter((n) => db.getSiblingDB({}).getCollection(n).findOne({{ kind: {{ $exists: true }} }}, {{ _id: 1 }}) !== null);",
        js(db)
    );
    let _ = writeln!(s, "if (clash.length > 0) {{");
    let _ = writeln!(
        s,
        "  print(`${{clash.join(\", \")}} already use the field kind: nothing was merged; rename that field first`);"
    );
    let _ = writeln!(s, "}} else {{");
    let _ = writeln!(s, "  for (const name of names) {{");
    let _ = writeln!(
        s,
        "    db.getSiblingDB({}).getCollection(name).aggregate([{{ $set: {{ _id: {{ source: name, id: \"$_id\" }}, kind: name }} }}, {{ $merge: {{ into: target, on: \"_id\", whenMatched: \"replace\", whenNotMatched: \"insert\" }} }}]);",
        js(db)
    );
    let _ = writeln!(s, "  }}");
    let _ = writeln!(
        s,
        "  print(`${{names.length}} collections copied into ${{target}}`);"
    );
    let _ = writeln!(
        s,
        "  db.getSiblingDB({}).getCollection(target).createIndex({{ kind: 1 }});",
        js(db)
    );
    let _ = writeln!(s, "}}");
    let _ = writeln!(
        s,
        "// Drop the old collections yourself once the application reads the merged one."
    );
    s
}

/// The collection [`merge_collections`] copies into: the name the
/// collections share, else `merged`.
pub fn merge_target(colls: &[String]) -> String {
    let base = common_base(colls);
    if base.is_empty() {
        "merged".to_owned()
    } else {
        base
    }
}

/// The name the collections share once trailing digits and separators go.
fn common_base(colls: &[String]) -> String {
    let strip = |n: &str| {
        n.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_' || c == '-' || c == '.')
            .to_owned()
    };
    match colls.first() {
        Some(first) if colls.len() > 1 => {
            let b = strip(first);
            if colls.iter().all(|c| strip(c) == b) {
                b
            } else {
                String::new()
            }
        }
        _ => String::new(),
    }
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if c.is_alphanumeric() || c == '_' {
                vec![c]
            } else {
                vec!['\\', c]
            }
        })
        .collect()
}

/// A pipeline as indented JSON (valid JavaScript).
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| "[]".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_inside_an_element_is_relative_to_it() {
        assert_eq!(
            elem_reference("items[]", "items", "items[].product_id"),
            "product_id"
        );
        assert_eq!(
            elem_reference("items[]", "items", "items.product.id"),
            "product.id"
        );
        assert_eq!(elem_reference("lines[]", "lines", "sku"), "sku");
    }

    #[test]
    fn the_merge_target_is_the_shared_name() {
        let names = |n: &[&str]| n.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            merge_target(&names(&["events_001", "events_002"])),
            "events"
        );
        assert_eq!(merge_target(&names(&["a_1", "b_2"])), "merged");
    }

    #[test]
    fn rename_never_matches_a_document_holding_the_new_name() {
        let s = rename("", "db", "c", &[("customer_name".into(), "cn".into())]);
        assert!(
            s.contains(r#"{"customer_name":{"$exists":true},"cn":{"$exists":false}}"#),
            "{s}"
        );
    }
}
