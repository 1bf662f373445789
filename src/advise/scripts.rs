//! `mongosh` migration scripts that move, split, regroup or rewrite
//! documents. Every change goes through the helpers of [`super::change`]:
//! a dry run unless `apply` is set, a backup before each change, an undo
//! command after. Each is safe to re-run: copies go through `$merge` keyed
//! by deterministic ids, updates filter on the old shape, and nothing is
//! removed until the copy has been checked.

use std::fmt::Write;

use serde_json::{json, Value};

use super::change::Plan;
use super::{js, js_value};

/// Moves the elements of the array at `dotted` into `child` (`keep`: the
/// last `keep` elements stay in the parent).
pub(crate) fn move_array_out(
    p: &Plan,
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
        { "$replaceRoot": { "newRoot": elem(&field, "$position") } }
    ]);
    let mut s = String::new();
    let _ = writeln!(s, "const src = {};", p.coll(coll));
    let _ = writeln!(s, "const dst = {};", p.coll(child));
    let _ = writeln!(s, "\n// 1. One document per element; its _id is the element's own _id, else \"<parent _id>:<position>\", so a re-run adds nothing twice.");
    let _ = writeln!(s, "if (ds.creates({})) {{", js(child));
    let _ = writeln!(
        s,
        "  ds.write(src, {}, {}, \"keepExisting\");",
        pretty(&copy),
        js(child)
    );
    let _ = writeln!(s, "\n  // 2. Index the reference to the parent.");
    let _ = writeln!(
        s,
        "  ds.createIndex(dst, {});",
        js_value(&json!({ parent_key: 1, "position": 1 }))
    );
    let _ = writeln!(s, "}}");
    // A parent is trimmed only when each of its elements is in the child
    // collection exactly as step 1 builds it from the array as it is now: a
    // parent whose array changed since its elements were copied keeps it.
    // Element by element, never gathered: the array is unwound (each
    // document one element), the child document step 1 builds is looked
    // up by its `_id` and compared whole, and the matches are counted per
    // parent. No stage holds more than one element and one child, so a
    // parent near 16 MiB, whose elements and children together would pass
    // the limit of one document, is checked like any other.
    let verify = json!([
        { "$match": { dotted: { "$type": "array" } } },
        { "$project": { "_id": 1, "__e": field } },
        { "$unwind": { "path": "$__e", "includeArrayIndex": "__i", "preserveNullAndEmptyArrays": true } },
        { "$project": { "_id": 1, "__i": 1, "__x": elem("$__e", "$__i") } },
        { "$lookup": {
            "from": child,
            "localField": "__x._id",
            "foreignField": "_id",
            "let": { "x": "$__x" },
            "pipeline": [
                { "$match": { "$expr": { "$eq": ["$$ROOT", "$$x"] } } },
                { "$project": { "_id": 1 } }
            ],
            "as": "__m"
        } },
        { "$group": {
            "_id": "$_id",
            "elements": { "$sum": { "$cond": [ { "$eq": ["$__i", null] }, 0, 1 ] } },
            "found": { "$sum": { "$cond": [ { "$gt": [ { "$size": "$__m" }, 0 ] }, 1, 0 ] } }
        } },
        { "$match": { "$expr": { "$eq": ["$elements", "$found"] } } },
        { "$project": { "_id": 1 } }
    ]);
    let _ = writeln!(
        s,
        "\n// 3. Trim only the parents whose every element is in {child} as it is now\n//    (in a dry run, every parent holding an array)."
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
    let checked = format!(
        "() => src.aggregate({}, {{ allowDiskUse: true }})",
        js_value(&verify)
    );
    match keep {
        None => {
            let _ = writeln!(
                s,
                "const done = ds.updateEach(src, {checked}, {{ {d}: {{ $type: \"array\" }} }}, {});",
                js_value(&json!({ "$unset": { dotted: "" } })),
                d = js(dotted),
            );
        }
        Some(k) => {
            let longer = js(&format!("{dotted}.{k}"));
            let _ = writeln!(
                s,
                "const done = ds.updateEach(src, {checked}, {{ {longer}: {{ $exists: true }} }}, [{}]);",
                js_value(
                    &json!({ "$set": { dotted: { "$slice": [field, -(i64::try_from(k).unwrap_or(i64::MAX))] } } })
                )
            );
        }
    }
    kept_arrays(
        &mut s,
        p,
        dotted,
        &format!("${{done}} of ${{arrays}} documents trimmed; ${{arrays - done}} keep {dotted}: some elements are not in {child} as they are now"),
    );
    p.finish(&s)
}

/// After a run: how many parents were done, how many keep the array at
/// `dotted` (then why the finding stays) and how many hold something else.
fn kept_arrays(s: &mut String, p: &Plan, dotted: &str, done: &str) {
    let _ = writeln!(s, "if (apply) {{");
    let _ = writeln!(
        s,
        "  print(`{done}; ${{others}} documents hold a {dotted} that is not an array: left as they are`);"
    );
    let _ = writeln!(
        s,
        "  if (arrays - done > 0) {}",
        p.stays(&format!("`${{arrays - done}} documents keep {dotted}`"))
            .trim_end()
    );
    let _ = writeln!(s, "}}");
}

/// Moves the value at `dotted` into `child`, one document per parent.
pub(crate) fn split_off(
    p: &Plan,
    coll: &str,
    dotted: &str,
    child: &str,
    parent_key: &str,
) -> String {
    let name = dotted.rsplit('.').next().unwrap_or(dotted);
    let copy = json!([
        { "$match": { dotted: { "$exists": true } } },
        { "$project": { "_id": 1, parent_key: "$_id", name: format!("${dotted}") } }
    ]);
    let mut s = String::new();
    let _ = writeln!(s, "const src = {};", p.coll(coll));
    let _ = writeln!(
        s,
        "\n// 1. Copy the value into its own document, keyed by the parent's _id."
    );
    let _ = writeln!(s, "if (ds.creates({})) {{", js(child));
    let _ = writeln!(
        s,
        "  ds.write(src, {}, {}, \"keepExisting\");",
        pretty(&copy),
        js(child)
    );
    let _ = writeln!(s, "}}");
    // Whether each parent's value is the one its copy holds.
    // The copy is compared inside the lookup, which passes on only its
    // `_id`: a parent and a copy of its value together would pass 16 MiB
    // when the value is over half of it.
    let compare = json!([
        { "$match": { dotted: { "$exists": true } } },
        { "$project": { "_id": 1, "__v": format!("${dotted}") } },
        { "$lookup": {
            "from": child,
            "localField": "_id",
            "foreignField": "_id",
            "let": { "v": "$__v" },
            "pipeline": [
                { "$match": { name: { "$exists": true } } },
                { "$match": { "$expr": { "$eq": [format!("${name}"), "$$v"] } } },
                { "$project": { "_id": 1 } }
            ],
            "as": "__c"
        } },
        { "$project": { "same": { "$gt": [ { "$size": "$__c" }, 0 ] } } }
    ]);
    let same = |v: bool| {
        let mut pipeline = compare.as_array().cloned().unwrap_or_default();
        pipeline.push(json!({ "$match": { "same": v } }));
        js_value(&Value::Array(pipeline))
    };
    let _ = writeln!(
        s,
        "\n// 2. Remove it from the parents whose copy holds the same value. A parent whose value\n//    changed since its copy was made keeps it (and the copy stays): counted below."
    );
    let _ = writeln!(
        s,
        "const differ = apply && ds.ok() ? src.aggregate({}.concat([{{ $count: \"n\" }}]), {{ allowDiskUse: true }}).toArray().reduce((n, r) => n + r.n, 0) : 0;",
        same(false)
    );
    let _ = writeln!(
        s,
        "const moved = ds.updateEach(src, () => src.aggregate({}, {{ allowDiskUse: true }}), {{ {d}: {{ $exists: true }} }}, {});",
        same(true),
        js_value(&json!({ "$unset": { dotted: "" } })),
        d = js(dotted),
    );
    let _ = writeln!(s, "if (apply) {{");
    let _ = writeln!(
        s,
        "  print(`moved {dotted} of ${{moved}} documents to {child}; ${{differ}} documents hold a value that differs from its copy in {child}: left as they are`);"
    );
    let _ = writeln!(
        s,
        "  if (differ > 0) {}",
        p.stays(&format!("`${{differ}} documents keep {dotted}`"))
            .trim_end()
    );
    let _ = writeln!(s, "}}");
    p.finish(&s)
}

/// Turns the object at `dotted` into an array of `{k, v}` pairs.
pub fn attribute(p: &Plan, coll: &str, dotted: &str, per_key: &[&str]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", p.coll(coll));
    let _ = writeln!(s, "\n// Objects become arrays of {{k, v}}; documents already converted are not matched again.");
    let _ = writeln!(
        s,
        "ds.update(coll, {}, [{}]);",
        // `$type` in a query also matches arrays holding objects; the
        // aggregation `$type` tells an object from an array.
        js_value(&json!({ "$expr": { "$eq": [ { "$type": format!("${dotted}") }, "object" ] } })),
        js_value(&json!({ "$set": { dotted: { "$objectToArray": format!("${dotted}") } } }))
    );
    let _ = writeln!(
        s,
        "ds.createIndex(coll, {});",
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
    p.finish(&s)
}

#[allow(clippy::too_many_arguments)]
pub fn bucket(
    p: &Plan,
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
    // Events of the same instant in `_id` order, so that every run builds
    // the same buckets.
    let pipeline = json!([
        { "$match": { date_field: { "$type": "date" } } },
        { "$sort": { date_field: 1, "_id": 1 } },
        { "$group": Value::Object(group) }
    ]);
    let mut s = String::new();
    let _ = writeln!(s, "const src = {};", p.coll(coll));
    let _ = writeln!(s, "\n// One document per {}hour, rebuilt from the events on every run (whenMatched: replace).", if series_key.is_some() { "series and " } else { "" });
    let _ = writeln!(s, "if (ds.creates({})) {{", js(target));
    let _ = writeln!(
        s,
        "  ds.write(src, {}, {}, \"replace\");",
        pretty(&pipeline),
        js(target)
    );
    let _ = writeln!(s, "}}");
    let _ = writeln!(s, "\n// The events stay in {coll}: compare counts, point the application at {target}, then drop {coll} yourself.");
    let _ = writeln!(
        s,
        "print(`${{src.countDocuments({{}})}} events in ${{{}.countDocuments({{}})}} buckets`);",
        p.coll(target)
    );
    s.push_str(&p.stays(&js(&p.lang.pick(
        format!("the events stay in {coll} until you drop it"),
        format!("事件仍保留在 {coll} 中，直到你删除它"),
    ))));
    p.finish(&s)
}

pub(crate) fn discriminator(
    p: &Plan,
    coll: &str,
    field: &str,
    shapes: &[(String, String)],
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", p.coll(coll));
    let _ = writeln!(s, "\n// Each shape is recognised by a field only it has; documents already typed are skipped.");
    for (name, own) in shapes {
        let _ = writeln!(
            s,
            "ds.update(coll, {}, {});",
            js_value(&json!({ field: { "$exists": false }, own: { "$exists": true } })),
            js_value(&json!({ "$set": { field: name } }))
        );
    }
    let _ = writeln!(
        s,
        "ds.createIndex(coll, {});",
        js_value(&json!({ field: 1 }))
    );
    let _ = writeln!(
        s,
        "const untyped = coll.countDocuments({});",
        js_value(&json!({ field: { "$exists": false } }))
    );
    let _ = writeln!(
        s,
        "print(`${{untyped}} documents match no shape and were left without {field}`);"
    );
    let _ = writeln!(
        s,
        "if (untyped > 0) {}",
        p.stays(&format!("`${{untyped}} documents have no {field}`"))
            .trim_end()
    );
    p.finish(&s)
}

pub fn rename(p: &Plan, coll: &str, renames: &[(String, String)]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", p.coll(coll));
    let _ = writeln!(
        s,
        "\n// Only documents that still have the old name are touched."
    );
    let _ = writeln!(
        s,
        "// $rename overwrites the new name: a document that already has it is left as it is, and counted."
    );
    let _ = writeln!(s, "let both = 0;");
    for (old, new) in renames {
        let _ = writeln!(
            s,
            "ds.update(coll, {}, {});",
            js_value(&json!({ old: { "$exists": true }, new: { "$exists": false } })),
            js_value(&json!({ "$rename": { old: new } }))
        );
        let _ = writeln!(
            s,
            "const both_{n} = coll.countDocuments({});\nboth += both_{n};",
            js_value(&json!({ old: { "$exists": true }, new: { "$exists": true } })),
            n = ident(new),
        );
        let _ = writeln!(
            s,
            "print(`${{both_{n}}} documents already have {new} beside {old}: left as they are`);",
            n = ident(new),
        );
    }
    let _ = writeln!(
        s,
        "if (both > 0) {}",
        p.stays("`${both} documents keep a long name beside its short one`")
            .trim_end()
    );
    let _ = writeln!(
        s,
        "// Update the application (or its ODM mapping) to the new names at the same time."
    );
    p.finish(&s)
}

/// A field name as part of a JavaScript identifier.
fn ident(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Each child listed in the parents' arrays at `dotted` gets `parent_key`,
/// its parent's `_id`; a parent's array goes once every child it lists
/// points back to it. A child that already names a parent keeps it.
pub(crate) fn ids_to_parent(
    p: &Plan,
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
    // The new version of each child that names no parent yet.
    let children = json!([
        { "$match": { format!("{dotted}.0"): { "$exists": true } } },
        { "$unwind": field },
        { "$lookup": { "from": child_coll, "localField": dotted, "foreignField": child_key, "as": "__c" } },
        { "$unwind": "$__c" },
        { "$match": { format!("__c.{parent_key}"): { "$exists": false } } },
        { "$replaceRoot": { "newRoot": { "$mergeObjects": ["$__c", { parent_key: "$_id" }] } } }
    ]);
    let mut s = String::new();
    let _ = writeln!(s, "const src = {};", p.coll(coll));
    let _ = writeln!(s, "const dst = {};", p.coll(child_coll));
    let _ = writeln!(s, "\n// 0. A child listed by two parents is many-to-many: then keep the array (or a link collection).");
    let _ = writeln!(
        s,
        "if (src.aggregate({}).toArray().length > 0) {{",
        js_value(&shared)
    );
    let _ = writeln!(
        s,
        "  ds.stop({});",
        js(p.lang.pick(
            "some children belong to several parents: keep the array, or a link collection",
            "有些子文档属于多个父文档：请保留数组，或改用关联集合",
        ))
    );
    let _ = writeln!(s, "}}");
    let _ = writeln!(
        s,
        "\n// 1. Every child records its parent; a child that already names one keeps it."
    );
    let _ = writeln!(s, "ds.rewrite(dst, src, {});", pretty(&children));
    let _ = writeln!(
        s,
        "ds.createIndex(dst, {});",
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
        "\n// 2. Drop each array once every child it lists points back to its parent\n//    (in a dry run, every array)."
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
        "const done = ds.updateEach(src, () => src.aggregate({}, {{ allowDiskUse: true }}), {{ {d}: {{ $type: \"array\" }} }}, {});",
        js_value(&verify),
        js_value(&json!({ "$unset": { dotted: "" } })),
        d = js(dotted),
    );
    kept_arrays(
        &mut s,
        p,
        dotted,
        &format!("${{done}} of ${{arrays}} documents no longer hold {dotted}; ${{arrays - done}} keep it: some children it lists do not exist in {child_coll} or point elsewhere"),
    );
    p.finish(&s)
}

/// Where copies sit, in the shapes a refresh can rewrite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holder {
    /// `customer`, `data.ticket`: one sub-document.
    Object(String),
    /// `items[]`: the elements of one array (of sub-documents).
    Elements(String),
}

impl Holder {
    /// `None` for copies inside nested arrays or inside the elements of an
    /// array (`a[].b`, `a[].b[]`): no refresh is written for them.
    pub(crate) fn of(holder: &str) -> Option<Holder> {
        match holder.strip_suffix("[]") {
            Some(arr) if !arr.is_empty() && !arr.contains("[]") => {
                Some(Holder::Elements(arr.to_owned()))
            }
            None if !holder.is_empty() && !holder.contains("[]") => {
                Some(Holder::Object(holder.to_owned()))
            }
            _ => None,
        }
    }
}

/// The field of a copy that names its source (`user` in `participants[]`
/// found by `participants[].user`), when the reference lies in the copy.
pub(crate) fn copy_reference(holder: &Holder, reference: &str) -> Option<String> {
    let inner = match holder {
        Holder::Elements(arr) => reference
            .strip_prefix(&format!("{arr}[]."))
            .or_else(|| reference.strip_prefix(&format!("{arr}."))),
        Holder::Object(h) => reference.strip_prefix(&format!("{h}.")),
    }?;
    inner.replace("[]", "").split('.').next().map(str::to_owned)
}

/// Whether the object `obj` (an expression) holds the field `f`, asked of
/// its keys: every server answers alike (some report a missing field as null).
fn holds(obj: &str, f: &str) -> Value {
    json!({ "$in": [f, { "$map": { "input": { "$objectToArray": obj }, "as": "kv", "in": "$$kv.k" } }] })
}

/// The refreshed copy `it` (an expression naming a sub-document): each of
/// `fields` that both the copy and the source document `src` hold takes
/// the source's value; everything else stays as it is. The fields set are
/// built as `{k, v}` pairs of exactly those fields, so a field the copy
/// lacks is never added (not even as null, as some servers write a missing
/// value in an object expression).
fn refreshed(it: &str, src: &Value, fields: &[String]) -> Value {
    let pairs: Vec<Value> = fields
        .iter()
        .map(|f| {
            json!({ "$cond": [
                { "$and": [ holds(it, f), holds("$$s", f) ] },
                [ { "k": f, "v": format!("$$s.{f}") } ],
                []
            ] })
        })
        .collect();
    json!({ "$mergeObjects": [
        it,
        { "$let": { "vars": { "s": src }, "in": { "$arrayToObject": { "$concatArrays": pairs } } } }
    ] })
}

/// The collection copies come from, and the type a copy's identity is
/// read as when it names its source in another (`objectId` for ids copied
/// as their hex strings).
pub struct CopySource<'a> {
    pub coll: &'a str,
    pub key_type: Option<&'a str>,
}

impl CopySource<'_> {
    /// The expression `expr` (a copy's identity) as the source's key: a
    /// `$convert` to the key's type where the copies name it in another,
    /// leaving a value that does not convert as it is.
    fn identity(&self, expr: &str) -> Value {
        match self.key_type {
            Some(to) => {
                json!({ "$convert": { "input": expr, "to": to, "onError": expr, "onNull": null } })
            }
            None => json!(expr),
        }
    }
}

/// Refreshes the copied `fields` of the copies at `holder` from
/// `source`, found by `reference` (relative to the document). Only
/// `fields` are written, and only where both the copy and its source hold
/// them: the caller leaves out `_id` and the reference itself.
pub fn refresh_copies(
    p: &Plan,
    coll: &str,
    source: &CopySource<'_>,
    holder: &Holder,
    reference: &str,
    fields: &[String],
    stays: &str,
) -> String {
    let source_coll = source.coll;
    let mut pipeline = Vec::new();
    let unresolved = match holder {
        Holder::Elements(arr) => {
            let inner = elem_reference(arr, reference);
            let refs = json!({ "$map": { "input": format!("${arr}"), "as": "x", "in": source.identity(&format!("$$x.{inner}")) } });
            let ids = json!({ "$map": { "input": "$__src", "as": "x", "in": "$$x._id" } });
            pipeline.push(json!({ "$match": { arr.clone(): { "$type": "array" } } }));
            pipeline.push(json!({ "$set": { "__ref": refs } }));
            pipeline.push(json!({ "$lookup": { "from": source_coll, "localField": "__ref", "foreignField": "_id", "as": "__src" } }));
            pipeline.push(json!({ "$set": { "__ids": ids.clone() } }));
            let at =
                json!({ "$indexOfArray": ["$__ids", source.identity(&format!("$$it.{inner}"))] });
            let src = json!({ "$arrayElemAt": ["$__src", at.clone()] });
            // An element that is no sub-document, or whose source was not
            // found, stays as it is.
            let elem = json!({ "$cond": [
                { "$and": [
                    { "$eq": [ { "$type": "$$it" }, "object" ] },
                    { "$gte": [ at, 0 ] }
                ] },
                refreshed("$$it", &src, fields),
                "$$it"
            ] });
            pipeline.push(json!({ "$set": { "__new": { "$map": { "input": format!("${arr}"), "as": "it", "in": elem } } } }));
            pipeline
                .push(json!({ "$match": { "$expr": { "$ne": ["$__new", format!("${arr}")] } } }));
            pipeline.push(json!({ "$set": { arr.clone(): "$__new" } }));
            pipeline.push(json!({ "$unset": ["__ref", "__src", "__ids", "__new"] }));
            json!([
                { "$match": { arr.clone(): { "$type": "array" } } },
                { "$set": { "__ref": { "$filter": { "input": refs, "as": "r", "cond": { "$ne": [{ "$ifNull": ["$$r", null] }, null] } } } } },
                { "$lookup": { "from": source_coll, "localField": "__ref", "foreignField": "_id", "as": "__src" } },
                { "$match": { "$expr": { "$gt": [ { "$size": { "$setDifference": ["$__ref", ids] } }, 0 ] } } },
                { "$count": "n" }
            ])
        }
        Holder::Object(h) => {
            let local = reference.replace("[]", "");
            // The copy's identity as the source's key, where it is written
            // in another type.
            let (lookup_by, unset): (String, Vec<&str>) = if source.key_type.is_some() {
                ("__ref".to_owned(), vec!["__ref", "__src", "__new"])
            } else {
                (local.clone(), vec!["__src", "__new"])
            };
            let as_key = json!({ "$set": { "__ref": source.identity(&format!("${local}")) } });
            pipeline.push(json!({ "$match": { h.clone(): { "$type": "object" }, local.clone(): { "$exists": true } } }));
            if source.key_type.is_some() {
                pipeline.push(as_key.clone());
            }
            pipeline.push(json!({ "$lookup": { "from": source_coll, "localField": lookup_by.clone(), "foreignField": "_id", "as": "__src" } }));
            pipeline.push(json!({ "$match": { "__src.0": { "$exists": true } } }));
            let src = json!({ "$arrayElemAt": ["$__src", 0] });
            pipeline
                .push(json!({ "$set": { "__new": refreshed(&format!("${h}"), &src, fields) } }));
            pipeline.push(json!({ "$match": { "$expr": { "$ne": ["$__new", format!("${h}")] } } }));
            pipeline.push(json!({ "$set": { h.clone(): "$__new" } }));
            pipeline.push(json!({ "$unset": unset }));
            let mut count = vec![
                json!({ "$match": { h.clone(): { "$type": "object" }, local.clone(): { "$exists": true, "$ne": null } } }),
            ];
            if source.key_type.is_some() {
                count.push(as_key);
            }
            count.extend([
                json!({ "$lookup": { "from": source_coll, "localField": lookup_by, "foreignField": "_id", "as": "__src" } }),
                json!({ "$match": { "__src.0": { "$exists": false } } }),
                json!({ "$count": "n" }),
            ]);
            Value::Array(count)
        }
    };
    let shown = match holder {
        Holder::Elements(a) => format!("{a}[]"),
        Holder::Object(h) => h.clone(),
    };
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", p.coll(coll));
    let _ = writeln!(
        s,
        "\n// Re-copy {} into {shown} from {source_coll}, only where the copy and its source both hold\n// the field: nothing else of a copy changes (never an _id, never the reference {reference}).\n// Running it again finds every copy already equal to its source.",
        fields.join(", ")
    );
    let _ = writeln!(
        s,
        "ds.rewrite(coll, coll, {});",
        pretty(&Value::Array(pipeline))
    );
    let _ = writeln!(
        s,
        "\n// Copies whose reference matches no document in {source_coll} have nothing to be refreshed from: left as they are, counted."
    );
    let _ = writeln!(
        s,
        "const unresolved = coll.aggregate({}).toArray();",
        js_value(&unresolved)
    );
    let _ = writeln!(
        s,
        "print(`${{unresolved.length ? unresolved[0].n : 0}} documents hold copies whose reference matches no document in {source_coll}: left as they are`);"
    );
    s.push_str(stays);
    p.finish(&s)
}

/// The reference inside each element of the array `arr` holding copies:
/// `product_id` for the array `items` and the reference `items[].product_id`.
fn elem_reference(arr: &str, reference: &str) -> String {
    reference
        .strip_prefix(&format!("{arr}[]."))
        .or_else(|| reference.strip_prefix(&format!("{arr}.")))
        .unwrap_or(reference)
        .replace("[]", "")
}

pub fn merge_collections(p: &Plan, db: &str, colls: &[String]) -> String {
    let mut s = String::new();
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
    let _ = writeln!(s, "const clash = [];");
    let _ = writeln!(
        s,
        "for (const n of names) {{ if (db.getSiblingDB({}).getCollection(n).findOne({{ kind: {{ $exists: true }} }}, {{ _id: 1 }}) !== null) clash.push(n); }}",
        js(db)
    );
    let _ = writeln!(s, "if (clash.length > 0) {{");
    let _ = writeln!(
        s,
        "  print(`${{clash.join(\", \")}} already use the field kind: nothing was merged; rename that field first`);"
    );
    let _ = writeln!(s, "}} else if (ds.creates(target)) {{");
    let _ = writeln!(s, "  for (const name of names) {{");
    let _ = writeln!(
        s,
        "    ds.write(db.getSiblingDB({}).getCollection(name), [{{ $set: {{ _id: {{ source: name, id: \"$_id\" }}, kind: name }} }}], target, \"replace\");",
        js(db)
    );
    let _ = writeln!(s, "  }}");
    let _ = writeln!(
        s,
        "  print(`${{names.length}} collections copied into ${{target}}`);"
    );
    let _ = writeln!(
        s,
        "  ds.createIndex(db.getSiblingDB({}).getCollection(target), {{ kind: 1 }});",
        js(db)
    );
    let _ = writeln!(s, "}}");
    let _ = writeln!(
        s,
        "// Drop the old collections yourself once the application reads the merged one."
    );
    s.push_str(&p.stays(&js(p.lang.pick(
        "the old collections stay until you drop them",
        "旧集合会一直保留，直到你删除它们",
    ))));
    p.finish(&s)
}

/// The collection [`merge_collections`] copies into: the name the
/// collections share, else `merged`.
pub(crate) fn merge_target(colls: &[String]) -> String {
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
        assert_eq!(elem_reference("items", "items[].product_id"), "product_id");
        assert_eq!(elem_reference("items", "items.product.id"), "product.id");
        assert_eq!(elem_reference("lines", "sku"), "sku");
    }

    #[test]
    fn copies_in_nested_arrays_have_no_refresh() {
        assert_eq!(
            Holder::of("items[]"),
            Some(Holder::Elements("items".into()))
        );
        assert_eq!(
            Holder::of("data.ticket"),
            Some(Holder::Object("data.ticket".into()))
        );
        assert_eq!(Holder::of("a[].b[]"), None);
        assert_eq!(Holder::of("a[].b"), None);
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
        let p = Plan::new(crate::i18n::Lang::En, "db", "c", "rename", "x");
        let s = rename(&p, "c", &[("customer_name".into(), "cn".into())]);
        assert!(
            s.contains(r#"{"customer_name":{"$exists":true},"cn":{"$exists":false}}"#),
            "{s}"
        );
    }
}
