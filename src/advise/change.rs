//! What every script that changes data shares, written in one place: the
//! `const apply = false;` switch, the backup collection, the dry-run
//! report, the undo command and the messages around them.
//!
//! A changing script begins with `const apply = false;` and then defines
//! `ds`, a small set of helpers through which it makes every change:
//!
//! - `ds.update(coll, filter, update[, options])`: an `updateMany`;
//! - `ds.updateEach(coll, ids, filter, update[, options])`: the same for
//!   the documents whose `_id`s the cursor `ids()` yields, in batches;
//! - `ds.rewrite(coll, source, pipeline)`: `pipeline`, run on `source`,
//!   yields the whole new version of each document of `coll` it changes
//!   (and only those), which replaces the document by `_id`;
//! - `ds.save(coll, filter)`: saves what a change made by the script
//!   itself (a loop in JavaScript) is about to touch;
//! - `ds.remove(coll, filter)`: a `deleteMany`, each document saved first;
//! - `ds.setEach(coll, path, each)`: sets `path` to a value computed per
//!   document (a date read from its text), where it still holds the old
//!   value, a thousand documents at a time;
//! - `ds.creates(name)` and `ds.write(source, pipeline, name, whenMatched)`:
//!   documents written into a collection the script creates;
//! - `ds.createIndex`, `ds.uniqueIndex`, `ds.dropIndex`;
//! - `ds.stop(why)`: nothing further is done; `ds.stays(why)`: says why the
//!   finding will still be reported; `ds.last(line)`: the line printed
//!   last, after the undo command (a conversion's: what the re-audit will
//!   report, see [`super::reaudit`]); `ds.done()`: the closing report.
//!
//! While `apply` is false each helper only counts and shows a few `_id`s
//! (or the index it would build or drop) and changes nothing. Once it is
//! true, a helper first saves every document it is about to change, whole,
//! in the backup collection `<collection><suffix>` (see [`Plan::backup`]),
//! and `ds.done()` prints one line of JavaScript that undoes the run:
//! restore the saved documents by `_id`, drop what the run created, rebuild
//! what it dropped. Every change is filtered on the old shape, so a second
//! run finds nothing left to change.

use std::fmt::Write;

use super::{js, js_coll};
use crate::i18n::Lang;

/// How the undo command printed by `ds.done()` begins: a line of
/// JavaScript to paste into `mongosh`.
pub const UNDO_START: &str = "(function undo() {";

/// The words with which a script says that docshape will still report its
/// finding after it ran, and why.
pub fn still_reported(lang: Lang) -> &'static str {
    lang.pick(
        "docshape will still report this finding: ",
        "docshape 仍会报告这一问题：",
    )
}

/// The tags of the changes docshape's scripts make, as their backup
/// collections are named (`_backup_<tag>_…`).
pub const BACKUP_TAGS: [&str; 21] = [
    "array",
    "attribute",
    "bucket",
    "copies",
    "dates",
    "drift",
    "esr",
    "family",
    "index",
    "lookup",
    "merge",
    "numbers",
    "refs",
    "reftype",
    "rename",
    "split",
    "subset",
    "ttl",
    "type",
    "types",
    "unique",
];

/// Hexadecimal digits of a backup's hash.
const HASH_DIGITS: usize = 6;

/// The backup collection's suffix for one finding: `_backup_<tag>_<hash>`,
/// the hash of what the script does, so that two findings on one
/// collection never share a backup and the same finding always has the same.
fn suffix(tag: &str, what: &str) -> String {
    // Checked in every unit test (release builds too) and debug build.
    if cfg!(any(test, debug_assertions)) {
        assert!(
            BACKUP_TAGS.contains(&tag),
            "a new change's tag, {tag}, belongs in BACKUP_TAGS so that audits leave its backups out"
        );
    }
    // FNV-1a: stable across runs and platforms.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in what.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("_backup_{tag}_{:06x}", h & 0xff_ffff)
}

/// The collection that `name` backs up, when `name` is a backup
/// collection a docshape script made: `<collection>_backup_<tag>_<hash>`,
/// with one of [`BACKUP_TAGS`] and six lowercase hexadecimal digits,
/// exactly as [`Plan::backup`] names them (a user's `orders_backup` or
/// `orders_backup_2024_01` is not one).
pub fn backed_up(name: &str) -> Option<&str> {
    let (rest, hash) = name.rsplit_once('_')?;
    let hex = hash.len() == HASH_DIGITS
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    let (rest, tag) = rest.rsplit_once('_')?;
    let of = rest.strip_suffix("_backup")?;
    (hex && BACKUP_TAGS.contains(&tag) && !of.is_empty()).then_some(of)
}

/// One changing script: its database, the collection its finding is about,
/// and its backup collections' suffix.
pub struct Plan {
    pub lang: Lang,
    what: String,
    db: String,
    main: String,
    suffix: String,
}

impl Plan {
    /// `tag` is a short name of the change (`drift`, `types` …); `what`
    /// describes it fully (it names the backup).
    pub(crate) fn new(lang: Lang, db: &str, main: &str, tag: &str, what: &str) -> Plan {
        Plan {
            lang,
            what: what.to_owned(),
            db: db.to_owned(),
            main: main.to_owned(),
            suffix: suffix(tag, what),
        }
    }

    /// The collection the documents of `coll` are saved in before they
    /// change.
    pub(crate) fn backup(&self, coll: &str) -> String {
        format!("{coll}{}", self.suffix)
    }

    /// `db.getSiblingDB(…).getCollection(name)` in the script's database.
    pub(crate) fn coll(&self, name: &str) -> String {
        js_coll(&self.db, name)
    }

    /// A line of JavaScript printing why docshape will still report the
    /// finding (`why` is JavaScript: a string or a template literal).
    pub fn stays(&self, why: &str) -> String {
        format!("ds.stays({why});\n")
    }

    /// The opening of the script: `const apply = false;`, what it does, its
    /// backup collection, and the helpers (`ds`).
    fn head(&self, body: &str) -> String {
        let lang = self.lang;
        let what = &self.what;
        let uses = |m: &str| body.contains(&format!("ds.{m}("));
        let documents = uses("update")
            || uses("updateEach")
            || uses("rewrite")
            || uses("save")
            || uses("remove")
            || uses("setEach");
        let mut lines: Vec<String> = vec![
            lang.pick(
                format!("docshape migration: {what}"),
                format!("docshape 迁移脚本：{what}"),
            ),
            lang.pick(
                "Review it, run it on a copy first (mongosh URI --file F), then on production.",
                "请先审阅，在副本上运行（mongosh URI --file F）后再用于生产环境。",
            )
            .to_owned(),
            lang.pick(
                "As written (apply = false) it changes nothing: it reports what it would do. Set",
                "按原样（apply = false）运行时不做任何修改：只报告将要做什么。设为",
            )
            .to_owned(),
        ];
        if documents {
            lines.push(
                lang.pick(
                    "apply = true to do it: every document it changes is first saved, whole, in"
                        .to_owned(),
                    "apply = true 才会执行：它修改的每个文档都先完整保存到".to_owned(),
                ),
            );
            lines.push(format!("  {}.{}", self.db, self.backup(&self.main)));
            lines.push(lang.pick(
                format!(
                    "(<collection>{} for another collection it changes).",
                    self.suffix
                ),
                format!("（其他被修改的集合保存到 <集合名>{}）。", self.suffix),
            ));
        } else {
            lines.push(lang.pick(
                "apply = true to do it.".to_owned(),
                "apply = true 才会执行。".to_owned(),
            ));
        }
        if uses("remove") {
            lines.push(
                lang.pick(
                    "It deletes documents: each is saved there first, and the undo puts it back.",
                    "它会删除文档：每个文档都先保存在那里，撤销命令会把它放回去。",
                )
                .to_owned(),
            );
        }
        if uses("dropIndex") {
            lines.push(
                lang.pick(
                    "Before it drops an index it prints the createIndex that rebuilds it.",
                    "删除索引前，它会打印重建该索引的 createIndex。",
                )
                .to_owned(),
            );
        }
        if uses("uniqueIndex") {
            lines.push(
                lang.pick(
                    "Once a unique index exists, a write that repeats one of its values fails (E11000).",
                    "唯一索引建立后，使其值重复的写入都会失败（E11000）。",
                )
                .to_owned(),
            );
        }
        lines.push(
            lang.pick(
                "It ends by printing the command that undoes what it did. It never changes an _id,",
                "最后它会打印撤销所做修改的命令。它从不修改任何 _id，",
            )
            .to_owned(),
        );
        lines.push(
            lang.pick(
                "and a second run with apply = true changes nothing more.",
                "apply = true 时再运行一次不会再做任何修改。",
            )
            .to_owned(),
        );
        let mut s = String::from("const apply = false;\n");
        for l in lines {
            let _ = writeln!(s, "// {l}");
        }
        s
    }

    /// The helpers `body` calls (and those they call), with their
    /// messages in the script's language.
    fn runtime(&self, body: &str) -> String {
        let t = |en: &str, zh: &str| self.lang.pick(en, zh).to_owned();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}",
            t(
                "// docshape's helpers: every change above goes through them.",
                "// docshape 的辅助函数：上面的每一处修改都经由它们完成。"
            )
        );
        let _ = writeln!(s, "const ds = (() => {{");
        let _ = writeln!(s, "  const base = db.getSiblingDB({});", js(&self.db));
        let _ = writeln!(s, "  const suffix = {};", js(&self.suffix));
        let _ = writeln!(s, "  const main = {};", js(&self.main));
        // The methods the body calls, then every helper they need.
        let mut wanted: Vec<&str> = PIECES
            .iter()
            .filter(|p| p.always)
            .chain(
                METHODS
                    .iter()
                    .filter(|m| m.always || body.contains(&format!("ds.{}(", m.name))),
            )
            .map(|m| m.name)
            .collect();
        let mut i = 0;
        while i < wanted.len() {
            let needs = PIECES
                .iter()
                .chain(METHODS)
                .find(|p| p.name == wanted[i])
                .map_or(&[][..], |p| p.needs);
            for n in needs {
                if !wanted.contains(n) {
                    wanted.push(n);
                }
            }
            i += 1;
        }
        let mut code = String::new();
        for p in PIECES.iter().filter(|p| wanted.contains(&p.name)) {
            code.push_str(p.code);
        }
        code.push_str("  return {\n");
        for m in METHODS.iter().filter(|m| wanted.contains(&m.name)) {
            code.push_str(m.code);
        }
        code.push_str("  };\n})();\n");
        let msgs: [(&str, String); 27] = [
            ("MSG_DUPLICATES_WHY", t(
                "`${dups.length} values of ${key} are held by more than one document`",
                "`${key} 有 ${dups.length} 个值出现在多个文档中`",
            )),
            ("MSG_UNIQUE_THERE", t(
                "`${key} already has a unique index (${same.name})`",
                "`${key} 已有唯一索引（${same.name}）`",
            )),
            ("MSG_WOULD", t(
                "`would change ${n} documents of ${c.getFullName()}${ids.length ? \" (e.g. _id \" + ids.join(\", \") + \")\" : \"\"}`",
                "`将修改 ${c.getFullName()} 的 ${n} 个文档${ids.length ? \"（例如 _id \" + ids.join(\"、\") + \"）\" : \"\"}`",
            )),
            ("MSG_STOP", t(
                "(undo.length > 0 ? `stopped: ${why}` : `nothing was changed: ${why}`)",
                "(undo.length > 0 ? `已停止：${why}` : `没有做任何修改：${why}`)",
            )),
            ("MSG_STAYS", format!("{} + why", js(still_reported(self.lang)))),
            ("MSG_CHANGED_UPDATE", t(
                "`changed ${r.modifiedCount} documents of ${c.getFullName()}, each saved first in ${backupOf(c.getName())}`",
                "`修改了 ${c.getFullName()} 的 ${r.modifiedCount} 个文档，每个都先保存到了 ${backupOf(c.getName())}`",
            )),
            ("MSG_CHANGED_EACH", t(
                "`changed ${changed} documents of ${c.getFullName()}, each saved first in ${backupOf(c.getName())}`",
                "`修改了 ${c.getFullName()} 的 ${changed} 个文档，每个都先保存到了 ${backupOf(c.getName())}`",
            )),
            ("MSG_CHANGED_REWRITE", t(
                "`changed ${n} documents of ${c.getFullName()}, each saved first in ${backupOf(c.getName())}`",
                "`修改了 ${c.getFullName()} 的 ${n} 个文档，每个都先保存到了 ${backupOf(c.getName())}`",
            )),
            ("MSG_WOULD_REMOVE", t(
                "`would delete ${n} documents of ${c.getFullName()}${ids.length ? \" (e.g. _id \" + ids.join(\", \") + \")\" : \"\"}, each saved first in ${backupOf(c.getName())}`",
                "`将删除 ${c.getFullName()} 的 ${n} 个文档${ids.length ? \"（例如 _id \" + ids.join(\"、\") + \"）\" : \"\"}，每个都先保存到 ${backupOf(c.getName())}`",
            )),
            ("MSG_REMOVED", t(
                "`deleted ${r.deletedCount} documents of ${c.getFullName()}, each saved first in ${backupOf(c.getName())}`",
                "`删除了 ${c.getFullName()} 的 ${r.deletedCount} 个文档，每个都先保存到了 ${backupOf(c.getName())}`",
            )),
            ("MSG_SAVED", t(
                "`saved ${n} documents of ${c.getFullName()} in ${backupOf(c.getName())} before changing them`",
                "`修改前已把 ${c.getFullName()} 的 ${n} 个文档保存到 ${backupOf(c.getName())}`",
            )),
            ("MSG_TAKEN", t(
                "`${base.getName()}.${name} already exists and holds documents this script did not write; rename or move that collection first`",
                "`${base.getName()}.${name} 已存在，且其中的文档不是本脚本写入的；请先重命名或移走该集合`",
            )),
            ("MSG_WOULD_CREATE", t(
                "`would create ${base.getName()}.${name}`",
                "`将创建 ${base.getName()}.${name}`",
            )),
            ("MSG_WOULD_WRITE", t(
                "`would write ${n} documents into ${base.getName()}.${name}`",
                "`将向 ${base.getName()}.${name} 写入 ${n} 个文档`",
            )),
            ("MSG_WROTE", t(
                "`wrote ${n} documents into ${base.getName()}.${name} (${fresh} new)`",
                "`向 ${base.getName()}.${name} 写入了 ${n} 个文档（其中 ${fresh} 个是新的）`",
            )),
            ("MSG_INDEX_THERE", t(
                "`${c.getFullName()} already has an index on ${show(key)} (${same.name})`",
                "`${c.getFullName()} 已有 ${show(key)} 上的索引（${same.name}）`",
            )),
            ("MSG_WOULD_INDEX", t(
                "`would create the index ${show(key)}${options ? \" \" + show(options) : \"\"} on ${c.getFullName()}`",
                "`将在 ${c.getFullName()} 上创建索引 ${show(key)}${options ? \" \" + show(options) : \"\"}`",
            )),
            ("MSG_INDEXED", t(
                "`created the index ${name} on ${c.getFullName()}`",
                "`已在 ${c.getFullName()} 上创建索引 ${name}`",
            )),
            ("MSG_DUPLICATES", t(
                "`the values above of ${key} are each held by more than one document of ${c.getFullName()}: no unique index was built; decide which document is right, then run this again`",
                "`上面列出的 ${key} 值各自出现在 ${c.getFullName()} 的多个文档中：没有创建唯一索引；请先确定哪个文档是对的，再重新运行`",
            )),
            ("MSG_NOT_UNIQUE", t(
                "`${key} already has a non-unique index (${same.name}): drop it yourself and run this again to make it unique`",
                "`${key} 已有非唯一索引（${same.name}）：请自行删除它后重新运行，以建立唯一索引`",
            )),
            ("MSG_REFUSES", t(
                "`no two documents of ${c.getFullName()} share a value of ${key} now; once the unique index exists, inserting or updating a document to repeat a value of ${key} fails (E11000 duplicate key)`",
                "`${c.getFullName()} 中目前没有两个文档的 ${key} 相同；唯一索引建立后，插入或更新文档使 ${key} 重复都会失败（E11000 duplicate key）`",
            )),
            ("MSG_GONE", t(
                "`index ${name} of ${c.getFullName()} is already gone`",
                "`${c.getFullName()} 的索引 ${name} 已不存在`",
            )),
            ("MSG_WOULD_DROP", t(
                "`would drop the index ${name} ${show(idx.key)} of ${c.getFullName()}; this rebuilds it: ${rebuild}`",
                "`将删除 ${c.getFullName()} 的索引 ${name} ${show(idx.key)}；重建它的命令：${rebuild}`",
            )),
            ("MSG_DROPPING", t(
                "`dropping the index ${name} of ${c.getFullName()}; this rebuilds it: ${rebuild}`",
                "`正在删除 ${c.getFullName()} 的索引 ${name}；重建它的命令：${rebuild}`",
            )),
            ("MSG_DRY", t(
                "\"dry run: nothing was changed. Set apply = true at the top of the script to make these changes.\"",
                "\"试运行：没有做任何修改。把脚本开头改为 apply = true 才会执行这些修改。\"",
            )),
            ("MSG_NOTHING", t(
                "\"nothing was changed: there was nothing left to change\"",
                "\"没有做任何修改：已没有需要修改的内容\"",
            )),
            ("MSG_UNDO", t(
                "\"to undo this run, paste the next line into mongosh (the backup collections stay; drop them once you no longer need them):\"",
                "\"要撤销本次运行，把下一行粘贴到 mongosh 中执行（备份集合会保留；不再需要时请自行删除）：\"",
            )),
        ];
        let mut code = code.replace("UNDO_START", UNDO_START);
        // Longest names first: `MSG_WOULD` is a prefix of `MSG_WOULD_DROP`.
        let mut msgs = msgs;
        msgs.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        for (k, v) in &msgs {
            code = code.replace(k, v);
        }
        s.push_str(&code);
        s
    }

    /// The whole script: `const apply = false;`, what it does, `body` and
    /// the closing report (in `run`, first, for a reader), the helpers
    /// `body` uses, then the call of `run`.
    pub(crate) fn finish(&self, body: &str) -> String {
        let mut s = self.head(body);
        s.push_str("const run = () => {\n");
        for line in body.lines() {
            if line.is_empty() {
                s.push('\n');
            } else {
                let _ = writeln!(s, "  {line}");
            }
        }
        s.push_str("  ds.done();\n};\n\n");
        s.push_str(&self.runtime(body));
        s.push_str("run();\n");
        s
    }
}

/// A piece of the helpers: a private function, or a method of `ds`.
struct Piece {
    name: &'static str,
    /// Pieces it calls.
    needs: &'static [&'static str],
    /// Part of every script.
    always: bool,
    code: &'static str,
}

/// The private functions of `ds`, in the order they are defined.
const PIECES: &[Piece] = &[
    Piece {
        name: "state",
        needs: &[],
        always: true,
        code: r#"  const undo = [];
  let stopped = false;
  let lastLine = null;
  const show = (v) => EJSON.stringify(v);
  const here = (name) => `db.getSiblingDB(${JSON.stringify(base.getName())}).getCollection(${JSON.stringify(name)})`;
  const has = (name) => base.getCollectionNames().includes(name);
  const backupOf = (name) => name + suffix;
  let begun = has(backupOf(main));
  const undoLine = () => `UNDO_START ${undo.slice().reverse().join(" ")} })();`;
  const later = (line) => { if (!undo.includes(line)) undo.push(line); };
  const stop = (why) => {
    stopped = true;
    print(MSG_STOP);
    print(MSG_STAYS);
    if (undo.length > 0) { print(MSG_UNDO); print(undoLine()); }
    throw new Error(why);
  };
"#,
    },
    Piece {
        name: "indexes",
        needs: &[],
        always: false,
        code: "  const indexes = (c) => (has(c.getName()) ? c.getIndexes() : []);\n",
    },
    Piece {
        name: "count",
        needs: &[],
        always: false,
        code: r#"  const count = (source, pipeline) => {
    const r = source.aggregate(pipeline.concat([{ $count: "n" }]), { allowDiskUse: true }).toArray();
    return r.length > 0 ? r[0].n : 0;
  };
"#,
    },
    Piece {
        name: "start",
        needs: &[],
        always: false,
        code: "  // The first change creates the backup collection, which marks the migration as begun.\n  const start = () => { if (!begun) { if (!has(backupOf(main))) base.createCollection(backupOf(main)); begun = true; } };\n",
    },
    Piece {
        name: "keep",
        needs: &["start"],
        always: false,
        code: r#"  // The documents of c whose _ids `pipeline` yields, saved whole before they change (with
  // their new version, the pipeline's own documents are looked up by _id); a document
  // saved by an earlier run keeps its first copy.
  const keep = (c, source, pipeline) => {
    start();
    const originals = source === c && pipeline.length === 1 && pipeline[0].$match ? [] : [
      { $project: { _id: 1 } },
      { $lookup: { from: c.getName(), localField: "_id", foreignField: "_id", as: "__doc" } },
      { $unwind: "$__doc" },
      { $replaceRoot: { newRoot: "$__doc" } },
    ];
    source.aggregate(pipeline.concat(originals).concat([
      { $merge: { into: backupOf(c.getName()), on: "_id", whenMatched: "keepExisting", whenNotMatched: "insert" } },
    ]), { allowDiskUse: true }).toArray();
    later(`${here(backupOf(c.getName()))}.aggregate([{ $merge: { into: ${JSON.stringify(c.getName())}, on: "_id", whenMatched: "replace", whenNotMatched: "insert" } }]).toArray();`);
  };
"#,
    },
    Piece {
        name: "would",
        needs: &[],
        always: false,
        code: r"  const would = (c, n, docs) => {
    const ids = docs.map((d) => show(d._id));
    print(MSG_WOULD);
  };
",
    },
    Piece {
        name: "createIndex",
        needs: &["indexes"],
        always: false,
        code: r"  const createIndex = (c, key, options) => {
    if (stopped) return null;
    // The same index: the one of that name, or (unnamed) a plain one on that key.
    const named = options && options.name;
    const same = indexes(c).find((i) => named
      ? i.name === named
      : JSON.stringify(i.key) === JSON.stringify(key) && !i.collation && !i.partialFilterExpression);
    if (same) { print(MSG_INDEX_THERE); return same.name; }
    if (!apply) { print(MSG_WOULD_INDEX); return null; }
    const name = c.createIndex(key, options || {});
    later(`${here(c.getName())}.dropIndex(${JSON.stringify(name)});`);
    print(MSG_INDEXED);
    return name;
  };
",
    },
];

/// The methods of `ds`.
const METHODS: &[Piece] = &[
    Piece {
        name: "ok",
        needs: &[],
        always: true,
        code: "    ok() { return !stopped; },\n    stop,\n    stays(why) { print(MSG_STAYS); },\n    // The line printed last, after the undo command: what the re-audit will say.\n    last(line) { lastLine = line; },\n",
    },
    Piece {
        name: "update",
        needs: &["keep", "would"],
        always: false,
        code: r"    update(c, filter, update, options) {
      if (stopped) return 0;
      const n = c.countDocuments(filter);
      if (!apply) { would(c, n, c.find(filter, { _id: 1 }).limit(3).toArray()); return n; }
      if (n === 0) return 0;
      keep(c, c, [{ $match: filter }]);
      const r = c.updateMany(filter, update, options || {});
      print(MSG_CHANGED_UPDATE);
      return r.modifiedCount;
    },
",
    },
    Piece {
        name: "updateEach",
        needs: &["keep", "would"],
        always: false,
        code: r"    // `update` of the documents whose _ids the cursor `ids()` yields that still match
    // `filter`, a thousand _ids at a time: no list of _ids is held whole, and no command
    // passes the limit of one document however many there are. In a dry run (where
    // `ids` is not called), `update(c, filter, ...)`: every document the filter matches.
    updateEach(c, ids, filter, update, options) {
      if (stopped) return 0;
      if (!apply) { const n = c.countDocuments(filter); would(c, n, c.find(filter, { _id: 1 }).limit(3).toArray()); return n; }
      let changed = 0;
      let batch = [];
      const flush = () => {
        if (batch.length === 0) return;
        const f = Object.assign({}, filter, { _id: { $in: batch } });
        batch = [];
        if (c.countDocuments(f) === 0) return;
        keep(c, c, [{ $match: f }]);
        changed += c.updateMany(f, update, options || {}).modifiedCount;
      };
      ids().forEach((d) => { batch.push(d._id); if (batch.length === 1000) flush(); });
      flush();
      if (changed > 0) print(MSG_CHANGED_EACH);
      return changed;
    },
",
    },
    Piece {
        name: "rewrite",
        needs: &["keep", "would", "count"],
        always: false,
        code: r#"    rewrite(c, source, pipeline) {
      if (stopped) return 0;
      const n = count(source, pipeline);
      if (!apply) { would(c, n, source.aggregate(pipeline.concat([{ $limit: 3 }, { $project: { _id: 1 } }]), { allowDiskUse: true }).toArray()); return n; }
      if (n === 0) return 0;
      keep(c, source, pipeline);
      source.aggregate(pipeline.concat([{ $merge: { into: c.getName(), on: "_id", whenMatched: "replace", whenNotMatched: "discard" } }]), { allowDiskUse: true }).toArray();
      print(MSG_CHANGED_REWRITE);
      return n;
    },
"#,
    },
    Piece {
        name: "save",
        needs: &["keep", "would"],
        always: false,
        code: r"    save(c, filter) {
      if (stopped) return false;
      const n = c.countDocuments(filter);
      if (!apply) { would(c, n, c.find(filter, { _id: 1 }).limit(3).toArray()); return false; }
      if (n === 0) return false;
      keep(c, c, [{ $match: filter }]);
      print(MSG_SAVED);
      return true;
    },
",
    },
    Piece {
        name: "remove",
        needs: &["keep"],
        always: false,
        code: r"    // Deletes the documents `filter` matches, each saved whole first: the undo puts them back.
    remove(c, filter) {
      if (stopped) return 0;
      const n = c.countDocuments(filter);
      if (!apply) {
        const ids = c.find(filter, { _id: 1 }).limit(3).toArray().map((d) => show(d._id));
        print(MSG_WOULD_REMOVE);
        return n;
      }
      if (n === 0) return 0;
      keep(c, c, [{ $match: filter }]);
      const r = c.deleteMany(filter);
      print(MSG_REMOVED);
      return r.deletedCount;
    },
",
    },
    Piece {
        name: "setEach",
        needs: &["keep", "would"],
        always: false,
        code: r"    // Sets `path` in each document `each(put)` names by calling put(_id, old, value): only
    // where the path still holds `old`, a thousand documents at a time, each saved first
    // (by _id: no list of them is held whole). In a dry run it counts them.
    setEach(c, path, each) {
      if (stopped) return 0;
      let n = 0;
      let changed = 0;
      const shown = [];
      let batch = [];
      const flush = () => {
        if (batch.length > 0 && apply) {
          keep(c, c, [{ $match: { _id: { $in: batch.map((b) => b.id) } } }]);
          changed += c.bulkWrite(batch.map((b) => ({ updateOne: { filter: { _id: b.id, [path]: b.old }, update: { $set: { [path]: b.value } } } })), { ordered: false }).modifiedCount;
        }
        batch = [];
      };
      each((id, old, value) => {
        n += 1;
        if (shown.length < 3) shown.push({ _id: id });
        batch.push({ id, old, value });
        if (batch.length === 1000) flush();
      });
      flush();
      if (!apply) { would(c, n, shown); return n; }
      if (changed > 0) print(MSG_CHANGED_EACH);
      return changed;
    },
",
    },
    Piece {
        name: "creates",
        needs: &["start"],
        always: false,
        code: r"    creates(name) {
      if (stopped) return false;
      if (has(name) && !begun && base.getCollection(name).estimatedDocumentCount() > 0) stop(MSG_TAKEN);
      if (!apply) { print(MSG_WOULD_CREATE); return true; }
      start();
      if (!has(name)) { base.createCollection(name); later(`${here(name)}.drop();`); }
      return true;
    },
",
    },
    Piece {
        name: "write",
        needs: &["count"],
        always: false,
        code: r#"    write(source, pipeline, name, whenMatched) {
      if (stopped) return 0;
      const n = count(source, pipeline);
      if (!apply) { print(MSG_WOULD_WRITE); return n; }
      const fresh = count(source, pipeline.concat([
        { $lookup: { from: name, localField: "_id", foreignField: "_id", as: "__there" } },
        { $match: { __there: { $size: 0 } } },
      ]));
      source.aggregate(pipeline.concat([{ $merge: { into: name, on: "_id", whenMatched: whenMatched, whenNotMatched: "insert" } }]), { allowDiskUse: true }).toArray();
      print(MSG_WROTE);
      return fresh;
    },
"#,
    },
    Piece {
        name: "createIndex",
        needs: &["createIndex"],
        always: false,
        code: "    createIndex,\n",
    },
    Piece {
        name: "uniqueIndex",
        needs: &["createIndex", "indexes"],
        always: false,
        code: r#"    uniqueIndex(c, key) {
      if (stopped) return null;
      const dups = c.aggregate([
        { $match: { [key]: { $exists: true } } },
        { $group: { _id: "$" + key, n: { $sum: 1 } } },
        { $match: { n: { $gt: 1 } } },
        { $sort: { n: -1 } },
        { $limit: 20 },
      ], { allowDiskUse: true }).toArray();
      if (dups.length > 0) {
        for (const d of dups) printjson({ value: d._id, documents: d.n, ids: c.find({ [key]: d._id }, { _id: 1 }).limit(5).toArray().map((x) => x._id) });
        stopped = true;
        print(MSG_DUPLICATES);
        const why = MSG_DUPLICATES_WHY;
        print(MSG_STAYS);
        return null;
      }
      const same = indexes(c).find((i) => JSON.stringify(i.key) === JSON.stringify({ [key]: 1 }));
      if (same && same.unique) { print(MSG_UNIQUE_THERE); return same.name; }
      if (same) {
        stopped = true;
        const why = MSG_NOT_UNIQUE;
        print(MSG_STAYS);
        return null;
      }
      print(MSG_REFUSES);
      return createIndex(c, { [key]: 1 }, { unique: true, partialFilterExpression: { [key]: { $exists: true } } });
    },
"#,
    },
    Piece {
        name: "dropIndex",
        needs: &["indexes"],
        always: false,
        code: r"    dropIndex(c, name) {
      if (stopped) return false;
      const idx = indexes(c).find((i) => i.name === name);
      if (idx === undefined) { print(MSG_GONE); return false; }
      const opts = Object.assign({}, idx);
      delete opts.key;
      delete opts.v;
      delete opts.ns;
      const rebuild = `${here(c.getName())}.createIndex(EJSON.parse(${JSON.stringify(show(idx.key))}), EJSON.parse(${JSON.stringify(show(opts))}));`;
      if (!apply) { print(MSG_WOULD_DROP); return false; }
      print(MSG_DROPPING);
      c.dropIndex(name);
      later(rebuild);
      return true;
    },
",
    },
    Piece {
        name: "done",
        needs: &[],
        always: true,
        code: r"    done() {
      if (!apply) print(MSG_DRY);
      else if (undo.length === 0) print(MSG_NOTHING);
      else { print(MSG_UNDO); print(undoLine()); }
      if (lastLine !== null) print(lastLine);
    },
",
    },
];

/// The opening of a script that only reads: no `apply`.
pub(crate) fn read_only(lang: Lang, what: &str) -> String {
    lang.pick(
        format!("// docshape: {what}\n// This script only reads: it changes nothing.\n"),
        format!("// docshape：{what}\n// 这个脚本只读取数据：不做任何修改。\n"),
    )
}

/// The end of a script that changes data only where it can (`plan` is
/// `Some`) and otherwise only reads: a changing script says `why` the
/// finding stays after a run that leaves `left` (JavaScript) true, and is
/// finished; one that reads says `why` always. Both are JavaScript.
pub(crate) fn close(
    plan: Option<&Plan>,
    lang: Lang,
    mut body: String,
    left: &str,
    why: &str,
) -> String {
    match plan {
        Some(p) => {
            let _ = writeln!(body, "if (apply && {left}) {}", p.stays(why).trim_end());
            p.finish(&body)
        }
        None => {
            body.push_str(&stays_line(lang, why));
            body
        }
    }
}

/// A line of JavaScript printing why docshape will still report the
/// finding; `why` is JavaScript (a string or template literal).
pub(crate) fn stays_line(lang: Lang, why: &str) -> String {
    format!("print({} + {why});\n", js(still_reported(lang)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backups_are_known_by_the_exact_name_scripts_give_them() {
        for tag in BACKUP_TAGS {
            let p = Plan::new(Lang::En, "shop", "fs.files", tag, "some change");
            let name = p.backup("fs.files");
            assert_eq!(backed_up(&name), Some("fs.files"), "{name}");
        }
        for user in [
            "backup",
            "orders_backup",
            "orders_backup_old",
            "orders_backup_2024_01",
            "orders_backup_dates_2024",
            "orders_backup_dates_12345g",
            "orders_backup_dates_ABCDEF",
            "orders_backup_daily_abcdef",
            "_backup_dates_abcdef",
            "backups_dates_abcdef",
            "orders_backup_dates_abcdef1",
        ] {
            assert_eq!(backed_up(user), None, "{user}");
        }
    }

    #[test]
    fn a_backup_is_named_after_its_collection_and_finding() {
        let a = Plan::new(
            Lang::En,
            "shop",
            "orders",
            "drift",
            "refresh orders.customer",
        );
        let b = Plan::new(
            Lang::En,
            "shop",
            "orders",
            "drift",
            "refresh orders.items[]",
        );
        assert!(a.backup("orders").starts_with("orders_backup_drift_"));
        assert_ne!(a.backup("orders"), b.backup("orders"));
        let again = Plan::new(
            Lang::En,
            "shop",
            "orders",
            "drift",
            "refresh orders.customer",
        );
        assert_eq!(a.backup("orders"), again.backup("orders"));
    }

    #[test]
    fn a_changing_script_begins_with_the_switch_off() {
        for lang in [Lang::En, Lang::Zh] {
            let p = Plan::new(lang, "shop", "orders", "types", "x");
            let h = p.finish("ds.update(x, {}, {});\n");
            assert!(h.starts_with("const apply = false;\n"), "{h}");
            assert!(
                h.contains("update(c, filter") && !h.contains("dropIndex(c, name)"),
                "only the helpers it uses: {h}"
            );
            assert!(h.contains(&p.backup("orders")), "names its backup: {h}");
            assert!(!h.contains("MSG_"), "every message filled in: {h}");
        }
    }
}
