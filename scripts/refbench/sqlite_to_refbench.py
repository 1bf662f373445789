#!/usr/bin/env python3
"""Turn a relational database with declared foreign keys into a refbench
foreign-key benchmark: three NDJSON variants (int, oid, mixed) plus truth.tsv.

Usage:
    python3 scripts/refbench/sqlite_to_refbench.py DB.sqlite OUT_DIR --name DBNAME \
        [--keep-prefix TABLE=N]...

writes
    OUT_DIR/int/DBNAME/<table>.json     natural keys
    OUT_DIR/oid/DBNAME/<table>.json     keys replaced by sha1-derived ObjectIds
    OUT_DIR/mixed/DBNAME/<table>.json   oid + hex-string and dangling references
    OUT_DIR/truth.tsv                   every single-column foreign key
and prints a JSON summary (row counts, foreign keys, composite foreign keys
left out, dangling counts) on stdout.  Pure Python 3.11 standard library; the
output is a deterministic function of the database's contents.

The recipe is the one of shared/refbench/chinook/README.md:
  * Tables, columns, declared types, primary keys and foreign keys come from
    PRAGMA table_info / PRAGMA foreign_key_list.  Tables are taken in name
    order; rows in rowid order (primary-key order for WITHOUT ROWID tables).
  * A single-column primary key becomes `_id` (not repeated); a composite one
    becomes an `_id` object with the key columns in key order.  All other
    columns keep their names, in table order; NULLs are omitted.
  * Types follow the declared type: integer types -> integers,
    NUMERIC/DECIMAL/REAL/FLOAT/DOUBLE -> doubles, character types -> strings,
    BOOL -> true/false, DATE/DATETIME/TIMESTAMP -> {"$date": ...} read as UTC,
    BLOB -> {"$binary": {"base64": ..., "subType": "00"}}.
  * oid: every single-column primary-key value and every value of a
    single-column foreign key (also inside a composite `_id`) becomes
    {"$oid": sha1("<table>:<value>")[:24]}, where <table> owns the key (for a
    foreign key: the referenced table) and <value> is the SQL value as text.
  * mixed: start from oid.  The single-column foreign keys with at least one
    non-null value, listed by child table name and then column position in
    the child table, are shuffled with random.Random("fkbench:<dbname>").  The
    first round(n/3) become hex-string (the ObjectId written as a 24-hex
    string), the next round(n/3) dangling-15%, the rest plain.  Then, for each
    dangling-15% column in the same list order, max(1, round(0.15 * nonnull))
    of its non-null rows are chosen with rng.sample(<0-based line numbers of
    the non-null rows>, k) from the same generator and replaced by
    ObjectId(sha1("__dangling__:<table>.<column>#<row>")[:24]) (<column> is the
    SQL column name).  Parent `_id`s are never changed.
    (This reproduces the chinook benchmark's mixed variant exactly.)

--keep-prefix TABLE=N keeps only the first N rows (in the order above) of
TABLE.  Then, to a fixpoint, every row of any table that has a non-null
single- or multi-column foreign key pointing at a row that is not kept is
dropped too, so the int and oid variants keep no dangling reference.  Any
such drops are listed in the summary.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import hashlib
import json
import os
import random
import re
import sqlite3
import sys
from dataclasses import dataclass, field


# ----------------------------------------------------------------- schema


@dataclass
class Column:
    name: str
    decl: str
    kind: str
    pk: int  # position in the primary key (1-based), 0 if not part of it


@dataclass
class Table:
    name: str
    columns: list[Column]
    pk: list[str]  # primary-key columns in key order
    rows: list[tuple] = field(default_factory=list)

    def col_index(self, name: str) -> int:
        for i, c in enumerate(self.columns):
            if c.name == name:
                return i
        raise KeyError(f"{self.name}.{name}")

    def path(self, col: str) -> str:
        """Document path of a column."""
        if len(self.pk) == 1 and col == self.pk[0]:
            return "_id"
        if len(self.pk) > 1 and col in self.pk:
            return "_id." + col
        return col


@dataclass
class ForeignKey:
    child: str
    child_cols: list[str]
    parent: str
    parent_cols: list[str]


def column_kind(decl: str) -> str:
    d = (decl or "").upper()
    if "BOOL" in d:
        return "bool"
    if "DATE" in d or "TIMESTAMP" in d:
        return "date"
    if "BLOB" in d or "BYTEA" in d or "BINARY" in d:
        return "blob"
    if "INT" in d:
        return "int"
    if "CHAR" in d or "CLOB" in d or "TEXT" in d:
        return "str"
    if any(x in d for x in ("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL")):
        return "double"
    return "auto"


def qi(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def read_schema(conn: sqlite3.Connection) -> tuple[dict[str, Table], list[ForeignKey]]:
    names = sorted(
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
        )
    )
    tables: dict[str, Table] = {}
    for t in names:
        cols = [
            Column(name=r[1], decl=r[2] or "", kind=column_kind(r[2] or ""), pk=r[5])
            for r in conn.execute(f"PRAGMA table_info({qi(t)})")
        ]
        pk = [c.name for c in sorted((c for c in cols if c.pk), key=lambda c: c.pk)]
        tables[t] = Table(name=t, columns=cols, pk=pk)
    fks: list[ForeignKey] = []
    for t in names:
        groups: dict[int, list[tuple]] = {}
        for r in conn.execute(f"PRAGMA foreign_key_list({qi(t)})"):
            groups.setdefault(r[0], []).append(r)
        for _, rows in sorted(groups.items()):
            rows.sort(key=lambda r: r[1])
            parent = rows[0][2]
            if parent not in tables:
                # SQLite keeps the declared name; match it case-insensitively.
                match = [n for n in names if n.lower() == parent.lower()]
                if len(match) != 1:
                    raise SystemExit(f"{t}: foreign key to unknown table {parent}")
                parent = match[0]
            child_cols = [r[3] for r in rows]
            parent_cols = [r[4] for r in rows]
            if any(c is None for c in parent_cols):
                parent_cols = list(tables[parent].pk)
            fks.append(ForeignKey(t, child_cols, parent, parent_cols))
    return tables, fks


def read_rows(conn: sqlite3.Connection, t: Table) -> None:
    cols = ", ".join(qi(c.name) for c in t.columns)
    try:
        conn.execute(f"SELECT _rowid_ FROM {qi(t.name)} LIMIT 1").fetchall()
        order = "_rowid_"
    except sqlite3.OperationalError:
        order = ", ".join(qi(c) for c in t.pk) or cols
    t.rows = list(conn.execute(f"SELECT {cols} FROM {qi(t.name)} ORDER BY {order}"))


# ----------------------------------------------------------------- values

_DATE_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})"
    r"(?:[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?$"
)


def to_date(v):
    if not isinstance(v, str):
        return None
    m = _DATE_RE.match(v.strip())
    if not m:
        return None
    y, mo, d, h, mi, s, frac, tz = m.groups()
    when = dt.datetime(
        int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(s or 0),
        int((frac or "0")[:6].ljust(6, "0")),
    )
    if tz and tz != "Z":
        sign = 1 if tz[0] == "+" else -1
        digits = tz[1:].replace(":", "")
        off = dt.timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
        when -= sign * off
    return {"$date": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"}


def auto_value(v):
    if isinstance(v, (bytes, bytearray, memoryview)):
        return {"$binary": {"base64": base64.b64encode(bytes(v)).decode("ascii"), "subType": "00"}}
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        raise SystemExit(f"non-finite float {v!r}")
    return v


def convert(v, kind: str, problems: list, where: str):
    if kind == "int":
        if isinstance(v, int):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        if isinstance(v, str) and re.fullmatch(r"[+-]?\d+", v.strip()):
            return int(v)
    elif kind == "double":
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, str):
            try:
                return float(v)
            except ValueError:
                pass
    elif kind == "str":
        if isinstance(v, str):
            return v
        if isinstance(v, (int, float)):
            return str(v)
    elif kind == "bool":
        if isinstance(v, int) and v in (0, 1):
            return bool(v)
        if isinstance(v, str) and v.lower() in ("0", "1", "true", "false"):
            return v.lower() in ("1", "true")
    elif kind == "date":
        d = to_date(v)
        if d is not None:
            return d
    elif kind in ("blob", "auto"):
        return auto_value(v)
    problems.append(f"{where}: {v!r} is not {kind}; kept as {type(v).__name__}")
    return auto_value(v)


def key_text(v) -> str:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    return str(v)


def oid_hex(s: str) -> str:
    return hashlib.sha1(s.encode("utf-8")).hexdigest()[:24]


# ----------------------------------------------------------------- subsetting


def keep_prefixes(tables: dict[str, Table], fks: list[ForeignKey], limits: dict[str, int]) -> dict:
    dropped: dict[str, int] = {}
    for t, n in limits.items():
        if t not in tables:
            raise SystemExit(f"--keep-prefix: no table {t}")
        tables[t].rows = tables[t].rows[:n]
    changed = True
    while changed:
        changed = False
        for fk in fks:
            c, p = tables[fk.child], tables[fk.parent]
            ci = [c.col_index(x) for x in fk.child_cols]
            pi = [p.col_index(x) for x in fk.parent_cols]
            have = {tuple(key_text(r[i]) for i in pi) for r in p.rows}
            keep = []
            for r in c.rows:
                vals = [r[i] for i in ci]
                if all(v is not None for v in vals) and tuple(key_text(v) for v in vals) not in have:
                    dropped[c.name] = dropped.get(c.name, 0) + 1
                    changed = True
                    continue
                keep.append(r)
            c.rows = keep
    return dropped


# ----------------------------------------------------------------- documents


def set_path(doc: dict, path: str, value) -> None:
    if path.startswith("_id."):
        doc["_id"][path[4:]] = value
    else:
        doc[path] = value


def get_path(doc: dict, path: str):
    if path.startswith("_id."):
        return doc["_id"].get(path[4:])
    return doc.get(path)


def build(conn: sqlite3.Connection, name: str, limits: dict[str, int]):
    tables, fks = read_schema(conn)
    for t in tables.values():
        read_rows(conn, t)
    dropped = keep_prefixes(tables, fks, limits) if limits else {}

    single = [fk for fk in fks if len(fk.child_cols) == 1]
    composite = [fk for fk in fks if len(fk.child_cols) > 1]

    # Key domains: which table's name prefixes the sha1 of a key column.
    direct: dict[tuple[str, str], tuple[str, str]] = {}
    for fk in single:
        k = (fk.child, fk.child_cols[0])
        tgt = (fk.parent, fk.parent_cols[0])
        if k in direct and direct[k] != tgt:
            raise SystemExit(f"{k} references two different parents")
        direct[k] = tgt

    def domain(t: str, c: str) -> str:
        seen = set()
        while (t, c) in direct and (t, c) not in seen:
            seen.add((t, c))
            t, c = direct[(t, c)]
        return t

    key_cols: dict[tuple[str, str], str] = {}
    for t in tables.values():
        if len(t.pk) == 1:
            key_cols[(t.name, t.pk[0])] = domain(t.name, t.pk[0])
    for fk in single:
        key_cols[(fk.child, fk.child_cols[0])] = domain(fk.child, fk.child_cols[0])
        key_cols[(fk.parent, fk.parent_cols[0])] = domain(fk.parent, fk.parent_cols[0])

    problems: list[str] = []
    docs = {"int": {}, "oid": {}}
    seen_oids: dict[str, str] = {}
    for t in tables.values():
        out_int, out_oid = [], []
        for r in t.rows:
            di: dict = {}
            do: dict = {}
            if len(t.pk) > 1:
                di["_id"], do["_id"] = {}, {}
            for c, v in zip(t.columns, r):
                if len(t.pk) == 1 and c.name == t.pk[0]:
                    path = "_id"
                elif len(t.pk) > 1 and c.name in t.pk:
                    continue  # filled below, in key order
                else:
                    path = c.name
                if v is None:
                    continue
                vi = convert(v, c.kind, problems, f"{t.name}.{c.name}")
                di[path] = vi
                do[path] = oid_value(key_cols, seen_oids, t.name, c.name, v, vi)
            if len(t.pk) > 1:
                for k in t.pk:
                    v = r[t.col_index(k)]
                    if v is None:
                        continue
                    c = t.columns[t.col_index(k)]
                    vi = convert(v, c.kind, problems, f"{t.name}.{c.name}")
                    di["_id"][k] = vi
                    do["_id"][k] = oid_value(key_cols, seen_oids, t.name, k, v, vi)
                # _id first
                di = {"_id": di.pop("_id"), **di}
                do = {"_id": do.pop("_id"), **do}
            elif len(t.pk) == 1 and "_id" in di:
                di = {"_id": di.pop("_id"), **di}
                do = {"_id": do.pop("_id"), **do}
            out_int.append(di)
            out_oid.append(do)
        docs["int"][t.name] = out_int
        docs["oid"][t.name] = out_oid

    # ---- mixed
    fk_info = []
    for fk in single:
        t = tables[fk.child]
        col = fk.child_cols[0]
        path = t.path(col)
        ppath = tables[fk.parent].path(fk.parent_cols[0])
        rows = [i for i, d in enumerate(docs["oid"][t.name]) if get_path(d, path) is not None]
        fk_info.append({
            "child_table": t.name, "child_column": col, "child_field": path,
            "parent_table": fk.parent, "parent_column": fk.parent_cols[0], "parent_field": ppath,
            "position": t.col_index(col), "nonnull_rows": rows, "note": "plain", "dangling": [],
        })
    order = sorted(fk_info, key=lambda f: (f["child_table"], f["position"]))
    candidates = [f for f in order if f["nonnull_rows"] and f["child_field"] != "_id"]
    rng = random.Random(f"fkbench:{name}")
    shuffled = list(candidates)
    rng.shuffle(shuffled)
    third = round(len(shuffled) / 3)
    for f in shuffled[:third]:
        f["note"] = "hex-string"
    for f in shuffled[third:2 * third]:
        f["note"] = "dangling-15%"
    for f in candidates:
        if f["note"] == "dangling-15%":
            k = max(1, round(0.15 * len(f["nonnull_rows"])))
            f["dangling"] = sorted(rng.sample(f["nonnull_rows"], k))

    real_oids = set(seen_oids)
    mixed = {t: [json.loads(json.dumps(d)) for d in ds] for t, ds in docs["oid"].items()}
    for f in fk_info:
        ds = mixed[f["child_table"]]
        if f["note"] == "hex-string":
            for i in f["nonnull_rows"]:
                v = get_path(ds[i], f["child_field"])
                set_path(ds[i], f["child_field"], v["$oid"])
        elif f["note"] == "dangling-15%":
            for i in f["dangling"]:
                h = oid_hex(f"__dangling__:{f['child_table']}.{f['child_column']}#{i}")
                if h in real_oids:
                    raise SystemExit(f"dangling id {h} collides with a real key")
                set_path(ds[i], f["child_field"], {"$oid": h})
    docs["mixed"] = mixed

    summary = {
        "name": name,
        "tables": {t: len(tables[t].rows) for t in tables},
        "primary_keys": {t: tables[t].pk for t in tables},
        "foreign_keys": [
            {k: f[k] for k in ("child_table", "child_field", "parent_table", "parent_field",
                               "child_column", "parent_column", "note")}
            | {"nonnull": len(f["nonnull_rows"]), "dangling_in_mixed": len(f["dangling"])}
            for f in sorted(fk_info, key=lambda f: (f["child_table"], f["child_field"]))
        ],
        "composite_foreign_keys_left_out": [
            f"{fk.child}({', '.join(fk.child_cols)}) -> {fk.parent}({', '.join(fk.parent_cols)})"
            for fk in composite
        ],
        "shuffle_order": [f"{f['child_table']}.{f['child_field']}" for f in shuffled],
        "rows_dropped_for_prefix": dropped,
        "type_problems": problems[:50],
        "type_problem_count": len(problems),
    }
    return docs, summary


def oid_value(key_cols, seen_oids, table, col, raw, converted):
    dom = key_cols.get((table, col))
    if dom is None:
        return converted
    text = f"{dom}:{key_text(raw)}"
    h = oid_hex(text)
    prev = seen_oids.setdefault(h, text)
    if prev != text:
        raise SystemExit(f"ObjectId collision: {prev!r} and {text!r}")
    return {"$oid": h}


def dump_line(doc) -> str:
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n"


def write(out_dir: str, name: str, docs: dict, summary: dict) -> None:
    for variant in ("int", "oid", "mixed"):
        d = os.path.join(out_dir, variant, name)
        os.makedirs(d, exist_ok=True)
        for old in os.listdir(d):
            if old.endswith(".json"):
                os.remove(os.path.join(d, old))
        for t, ds in docs[variant].items():
            with open(os.path.join(d, t + ".json"), "w", encoding="utf-8", newline="\n") as fh:
                fh.writelines(dump_line(x) for x in ds)
    with open(os.path.join(out_dir, "truth.tsv"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write("child_table\tchild_field\tparent_table\tparent_field\tvariant_note\n")
        for f in summary["foreign_keys"]:
            fh.write("\t".join((f["child_table"], f["child_field"], f["parent_table"],
                                f["parent_field"], f["note"])) + "\n")


def run(conn: sqlite3.Connection, out_dir: str, name: str, limits: dict[str, int] | None = None) -> dict:
    docs, summary = build(conn, name, limits or {})
    write(out_dir, name, docs, summary)
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db", help="SQLite database file (opened read-only)")
    ap.add_argument("out_dir")
    ap.add_argument("--name", required=True, help="database name (directory under each variant)")
    ap.add_argument("--keep-prefix", action="append", default=[], metavar="TABLE=N")
    a = ap.parse_args(argv)
    limits = {}
    for spec in a.keep_prefix:
        t, _, n = spec.rpartition("=")
        limits[t] = int(n)
    conn = sqlite3.connect(f"file:{a.db}?mode=ro", uri=True)
    summary = run(conn, a.out_dir, a.name, limits)
    json.dump(summary, sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
