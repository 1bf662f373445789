//! Documents that expire, removed by the server (`expiring-without-ttl`):
//! a TTL index on the expiry date, and an index on the key a token or
//! session is found by.
//!
//! A TTL index deletes data: the documents already expired go as soon as
//! it exists (the server's TTL monitor runs every 60 seconds). The script
//! says how many in its dry run, saves them whole in its backup and
//! deletes them itself before it builds the index, so the backup holds
//! exactly what went; its undo drops the index, then puts them back. A
//! document that expires later is deleted by the server with no backup:
//! that is what the index is for.

use std::fmt::Write;

use serde_json::{json, Map};

use super::change::{self, Plan};
use super::{js, js_coll, Suggestion};
use crate::i18n::Lang;
use crate::profile::{query_path, FieldProfile};
use crate::rules::CollectionCtx;

/// The suggestion for documents dated by `f` that nothing removes: with
/// `start`, `f` is when each began and the lifetime is the application's
/// (a script that only reads); otherwise `f` is when each expires.
pub(crate) fn expire_documents(
    ctx: &CollectionCtx<'_>,
    f: &FieldProfile,
    start: bool,
    expired: u64,
    lookup: Option<&str>,
    indexes_known: bool,
    lang: Lang,
) -> Suggestion {
    let dotted = query_path(&f.segments);
    if start {
        return lifetime_unknown(ctx, &dotted, lang);
    }
    let what = format!("{}: TTL index on {dotted}", ctx.ns());
    let p = Plan::new(lang, ctx.db(), ctx.coll(), "ttl", &what);
    let backup = format!("{}.{}", ctx.db(), p.backup(ctx.coll()));
    let mut s = String::new();
    let _ = writeln!(s, "const coll = {};", p.coll(ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(&dotted));
    let _ = writeln!(s, "const now = new Date();");
    let _ = writeln!(
        s,
        "const expired = {{ [path]: {{ $type: \"date\", $lt: now }} }};"
    );
    let _ = writeln!(
        s,
        "const indexes = coll.getDB().getCollectionNames().includes(coll.getName()) ? coll.getIndexes() : [];"
    );
    let _ = writeln!(
        s,
        "const ttl = indexes.find((i) => i.expireAfterSeconds !== undefined);"
    );
    let _ = writeln!(
        s,
        "const plain = indexes.find((i) => i.expireAfterSeconds === undefined && JSON.stringify(i.key) === JSON.stringify({{ [path]: 1 }}));"
    );
    let _ = writeln!(s, "if (ttl !== undefined) {{");
    let _ = writeln!(
        s,
        "  print({});",
        lang.pick(
            "`${coll.getFullName()} already has a TTL index (${ttl.name} on ${Object.keys(ttl.key).join(\", \")}): the server removes documents as they expire`",
            "`${coll.getFullName()} 已有 TTL 索引（${ttl.name}，字段 ${Object.keys(ttl.key).join(\"、\")}）：服务器会在文档过期时删除它们`",
        )
    );
    let _ = writeln!(s, "}} else if (plain !== undefined) {{");
    let _ = writeln!(
        s,
        "  ds.stop({});",
        lang.pick(
            "`the index ${plain.name} on ${path} is not a TTL index, and a second index on the same key cannot be built: add expireAfterSeconds to it with collMod (MongoDB 5.1 or later), or drop it, then run this again`",
            "`${path} 上的索引 ${plain.name} 不是 TTL 索引，而同一个键上不能再建第二个索引：请用 collMod 给它加上 expireAfterSeconds（MongoDB 5.1 及以上），或删除它，然后重新运行`",
        )
    );
    let _ = writeln!(s, "}} else {{");
    let _ = writeln!(s, "  const n = coll.countDocuments(expired);");
    let _ = writeln!(
        s,
        "  print({});",
        lang.pick(
            format!("`${{n}} documents of ${{coll.getFullName()}} expired before ${{now.toISOString()}} (${{path}}): the server deletes them as soon as a TTL index on ${{path}} exists (its TTL monitor runs every 60 s). This script saves them first in {backup} and deletes them itself, so that the backup holds exactly what goes; from then on the server deletes each document when its ${{path}} passes, with no backup, as the index is meant to`"),
            format!("`${{coll.getFullName()}} 中有 ${{n}} 个文档在 ${{now.toISOString()}} 之前过期（${{path}}）：${{path}} 上的 TTL 索引一建立，服务器就会删除它们（TTL 监视器每 60 秒运行一次）。本脚本先把它们保存到 {backup}，再自行删除，使备份正好包含被删除的文档；此后每个文档的 ${{path}} 一到，服务器就会删除它，不再备份，这正是该索引的用途`"),
        )
    );
    let _ = writeln!(s, "  ds.remove(coll, expired);");
    let _ = writeln!(
        s,
        "  ds.createIndex(coll, {{ [path]: 1 }}, {{ expireAfterSeconds: 0 }});"
    );
    let _ = writeln!(s, "}}");
    if let Some(key) = lookup {
        let _ = writeln!(
            s,
            "\n// The key a document is found by: without an index every lookup scans the collection."
        );
        let _ = writeln!(s, "ds.createIndex(coll, {{ {}: 1 }});", js(key));
    }
    let _ = writeln!(
        s,
        "if (ds.ok()) print((apply ? \"\" : {}) + {});",
        js(lang.pick("once applied: ", "执行之后：")),
        lang.pick(
            "`docshape will no longer report expiring-without-ttl on ${coll.getFullName()}: a TTL index removes its documents as they expire`",
            "`docshape 不会再在 ${coll.getFullName()} 上报告 expiring-without-ttl：TTL 索引会在文档过期时删除它们`",
        )
    );
    let migration = p.finish(&s);
    let known = if indexes_known {
        String::new()
    } else {
        lang.pick(
            " The export lists no indexes: the script reads them from the server first, and does nothing if a TTL index is there already.".to_owned(),
            " 导出中没有索引信息：脚本会先从服务器读取索引，如果已有 TTL 索引就什么也不做。".to_owned(),
        )
    };
    let key = lookup.map_or_else(String::new, |k| {
        lang.pick(
            format!(" It also indexes `{k}`, the field a document is found by: without that index every lookup scans the collection."),
            format!(" 脚本还会为 `{k}`（查找文档所用的字段）建立索引：没有它，每次查找都要扫描整个集合。"),
        )
    });
    Suggestion {
        pattern: "index",
        summary: lang.pick(
            format!("Let the server delete what has expired: a TTL index on `{dotted}` with expireAfterSeconds: 0 removes each document once its `{dotted}` has passed. As soon as it exists the server deletes the documents already expired ({expired} counted here): the script says how many in its dry run, saves them first and prints the undo (drop the index, put them back).{key}{known}"),
            format!("让服务器删除已过期的数据：在 `{dotted}` 上建立 expireAfterSeconds: 0 的 TTL 索引，每个文档的 `{dotted}` 一过就会被删除。索引一建立，服务器就会删除已经过期的文档（这里统计到 {expired} 个）：脚本在试运行时会说明数量，先备份它们，并打印撤销命令（删除索引，放回文档）。{key}{known}"),
        ),
        before: None,
        after: Some(json!({ "createIndex": { dotted: 1 }, "expireAfterSeconds": 0 })),
        effect: Map::new(),
        migration,
    }
}

/// A store dated only by when each document began: how old its documents
/// are, and the TTL index to build once the application's lifetime is
/// known. It only reads.
fn lifetime_unknown(ctx: &CollectionCtx<'_>, dotted: &str, lang: Lang) -> Suggestion {
    let mut s = change::read_only(lang, &format!("{}: documents by age of {dotted}", ctx.ns()));
    let _ = writeln!(s, "const coll = {};", js_coll(ctx.db(), ctx.coll()));
    let _ = writeln!(s, "const path = {};", js(dotted));
    let _ = writeln!(s, "const day = 24 * 3600 * 1000;");
    let _ = writeln!(
        s,
        "for (const days of [1, 7, 30, 90, 365]) print(`${{coll.countDocuments({{ [path]: {{ $lt: new Date(Date.now() - days * day) }} }})}} documents are older than ${{days}} days (${{path}})`);"
    );
    let _ = writeln!(
        s,
        "print(`once the lifetime L (in seconds) is known: ${{coll.getFullName()}}.createIndex({{ ${{path}}: 1 }}, {{ expireAfterSeconds: L }})`);"
    );
    s.push_str(&change::stays_line(
        lang,
        &js(lang.pick(
            "how long a session or token lives is the application's to say",
            "会话或令牌的有效期由应用决定",
        )),
    ));
    Suggestion {
        pattern: "index",
        summary: lang.pick(
            format!("A TTL index removes each document a fixed time after `{dotted}`: `createIndex({{ {dotted}: 1 }}, {{ expireAfterSeconds: L }})`, with L the lifetime the application gives a session or token. Only the application knows L, so the script builds nothing: it counts the documents by age."),
            format!("TTL 索引会在 `{dotted}` 之后的固定时间删除每个文档：`createIndex({{ {dotted}: 1 }}, {{ expireAfterSeconds: L }})`，L 是应用给会话或令牌的有效期。只有应用知道 L，所以脚本不建立任何索引：它只按年龄统计文档。"),
        ),
        before: None,
        after: None,
        effect: Map::new(),
        migration: s,
    }
}
