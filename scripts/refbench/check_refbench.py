#!/usr/bin/env python3
"""Check a refbench foreign-key benchmark directory.

Usage:
    python3 scripts/refbench/check_refbench.py tests/refbench/tpch \
        [--composite 'lineitem:l_partkey,l_suppkey=partsupp:_id.ps_partkey,_id.ps_suppkey']...

BENCH_DIR holds truth.tsv and int/<db>/, oid/<db>/, mixed/<db>/.  Checks,
independently of the generator (pure Python 3.11 standard library; if the
`bson` module of pymongo is importable, every line is also parsed with
bson.json_util.loads):
  * every line is strict JSON (no NaN), one object per line, UTF-8, '\n' ends;
  * the three variants hold the same tables with the same row counts;
  * `_id` is present and unique in every table of every variant;
  * int: every non-null reference of truth.tsv resolves to a parent value;
  * oid: every reference and every single-column `_id` is an ObjectId equal to
    sha1("<owner table>:<int value as text>")[:24], and every reference
    resolves;
  * mixed: documents equal the oid ones except at truth.tsv's child fields;
    hex-string columns hold only 24-hex strings that resolve as ObjectIds;
    dangling-15% columns hold ObjectIds of which exactly
    max(1, round(0.15 * non-null)) do not resolve, each
    sha1("__dangling__:<table>.<column>#<line>")[:24]; plain columns resolve;
  * each --composite reference (child paths -> parent paths) resolves in int
    and oid (in mixed it is only counted, with hex strings on both sides read
    as ObjectIds).
Prints a summary and exits 1 if any check fails.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys

try:
    from bson import json_util  # type: ignore
except ImportError:  # pragma: no cover
    json_util = None

HEX24 = re.compile(r"^[0-9a-f]{24}$")
MISSING = object()


def sha24(s: str) -> str:
    return hashlib.sha1(s.encode("utf-8")).hexdigest()[:24]


def get(doc, path):
    cur = doc
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return MISSING
        cur = cur[part]
    return cur


def canon(v) -> str:
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def text_of(v) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


class Checker:
    def __init__(self):
        self.errors: list[str] = []

    def fail(self, msg: str):
        if len(self.errors) < 200:
            self.errors.append(msg)

    def load(self, path: str) -> list[dict]:
        docs = []
        with open(path, "rb") as fh:
            raw = fh.read()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            self.fail(f"{path}: not UTF-8 ({e})")
            return docs
        if text and not text.endswith("\n"):
            self.fail(f"{path}: last line has no newline")
        for n, line in enumerate(text.split("\n")[:-1] if text else [], 1):
            try:
                d = json.loads(line, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except ValueError as e:
                self.fail(f"{path}:{n}: not JSON ({e})")
                continue
            if not isinstance(d, dict):
                self.fail(f"{path}:{n}: not an object")
                continue
            if json_util is not None:
                try:
                    json_util.loads(line)
                except Exception as e:  # noqa: BLE001
                    self.fail(f"{path}:{n}: bson.json_util cannot load it ({e})")
            docs.append(d)
        return docs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bench_dir")
    ap.add_argument("--composite", action="append", default=[],
                    help="child:path1,path2=parent:path1,path2")
    a = ap.parse_args(argv)
    ck = Checker()
    root = a.bench_dir

    with open(os.path.join(root, "truth.tsv"), encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    header = lines[0].split("\t")
    if header != ["child_table", "child_field", "parent_table", "parent_field", "variant_note"]:
        ck.fail(f"truth.tsv header {header}")
    truth = [dict(zip(header, l.split("\t"))) for l in lines[1:] if l]

    dbs = sorted(os.listdir(os.path.join(root, "int")))
    if len(dbs) != 1:
        ck.fail(f"expected one database under int/, found {dbs}")
    db = dbs[0]
    data: dict[str, dict[str, list[dict]]] = {}
    for v in ("int", "oid", "mixed"):
        d = os.path.join(root, v, db)
        names = sorted(f for f in os.listdir(d))
        for f in names:
            if not f.endswith(".json"):
                ck.fail(f"{d}/{f}: unexpected file")
        data[v] = {f[:-5]: ck.load(os.path.join(d, f)) for f in names if f.endswith(".json")}
    tables = sorted(data["int"])
    for v in ("oid", "mixed"):
        if sorted(data[v]) != tables:
            ck.fail(f"{v}: tables {sorted(data[v])} != int's {tables}")
    for t in tables:
        counts = {v: len(data[v].get(t, [])) for v in data}
        if len(set(counts.values())) != 1:
            ck.fail(f"{t}: row counts differ {counts}")

    # _id presence and uniqueness
    for v in data:
        for t, docs in data[v].items():
            seen = set()
            for i, d in enumerate(docs):
                if "_id" not in d:
                    ck.fail(f"{v}/{t}#{i}: no _id")
                    continue
                k = canon(d["_id"])
                if k in seen:
                    ck.fail(f"{v}/{t}#{i}: duplicate _id {k}")
                seen.add(k)
            if any(next(iter(d), None) != "_id" for d in docs):
                ck.fail(f"{v}/{t}: _id is not always the first field")

    for f in truth:
        for k in ("child_table", "parent_table"):
            if f[k] not in data["int"]:
                ck.fail(f"truth.tsv: unknown table {f[k]}")
    if ck.errors:
        return report(ck, [], data)

    # which paths hold keys, and their owner table (for the sha1 check)
    owner: dict[tuple[str, str], str] = {}
    for t, docs in data["int"].items():
        if docs and not isinstance(docs[0].get("_id"), dict):
            owner[(t, "_id")] = t
    for f in truth:
        owner[(f["child_table"], f["child_field"])] = f["parent_table"]
    # a parent field that is not a single-column _id keeps the owner of its own reference, if any
    for f in truth:
        owner.setdefault((f["parent_table"], f["parent_field"]), f["parent_table"])

    # oid: key values are the sha1 of the int values; all other fields equal
    for t in tables:
        for i, (di, do) in enumerate(zip(data["int"][t], data["oid"][t])):
            for (tt, path), own in owner.items():
                if tt != t:
                    continue
                vi, vo = get(di, path), get(do, path)
                if vi is MISSING and vo is MISSING:
                    continue
                want = {"$oid": sha24(f"{own}:{text_of(vi)}")}
                if vo != want:
                    ck.fail(f"oid/{t}#{i}.{path}: {vo!r} is not {want!r} (int value {vi!r})")
            if strip(di, t, owner) != strip(do, t, owner):
                ck.fail(f"oid/{t}#{i}: non-key fields differ from int")

    summary = []
    for f in truth:
        ct, cf, pt, pf, note = (f[k] for k in header)
        row = {"fk": f"{ct}.{cf} -> {pt}.{pf}", "note": note}
        for v in ("int", "oid", "mixed"):
            parents = {canon(x) for x in (get(d, pf) for d in data[v][pt]) if x is not MISSING}
            nonnull = unresolved = strings = 0
            for i, d in enumerate(data[v][ct]):
                x = get(d, cf)
                if x is MISSING or x is None:
                    continue
                nonnull += 1
                if v == "mixed" and note == "hex-string":
                    if not (isinstance(x, str) and HEX24.match(x)):
                        ck.fail(f"mixed/{ct}#{i}.{cf}: {x!r} is not a 24-hex string")
                        continue
                    strings += 1
                    x = {"$oid": x}
                elif v != "int":
                    if not (isinstance(x, dict) and list(x) == ["$oid"] and HEX24.match(str(x["$oid"]))):
                        ck.fail(f"{v}/{ct}#{i}.{cf}: {x!r} is not an ObjectId")
                        continue
                if canon(x) not in parents:
                    unresolved += 1
                    col = cf.split(".")[-1]
                    if v == "mixed" and note == "dangling-15%":
                        want = sha24(f"__dangling__:{ct}.{col}#{i}")
                        if x != {"$oid": want}:
                            ck.fail(f"mixed/{ct}#{i}.{cf}: dangling {x!r} is not {want}")
                    else:
                        ck.fail(f"{v}/{ct}#{i}.{cf}: {x!r} does not resolve in {pt}.{pf}")
            row[v] = (nonnull, unresolved)
            if v == "mixed":
                want = max(1, round(0.15 * nonnull)) if note == "dangling-15%" and nonnull else 0
                if unresolved != want:
                    ck.fail(f"mixed {ct}.{cf}: {unresolved} dangling, expected {want}")
                if note == "hex-string" and strings != nonnull:
                    ck.fail(f"mixed {ct}.{cf}: {strings} of {nonnull} are hex strings")
            if v != "mixed" and row[v][0] != row["int"][0]:
                ck.fail(f"{v} {ct}.{cf}: {row[v][0]} non-null, int has {row['int'][0]}")
        summary.append(row)

    # mixed equals oid outside the foreign-key fields
    fk_paths: dict[str, list[str]] = {}
    for f in truth:
        fk_paths.setdefault(f["child_table"], []).append(f["child_field"])
    for t in tables:
        for i, (do, dm) in enumerate(zip(data["oid"][t], data["mixed"][t])):
            a_, b_ = json.loads(canon(do)), json.loads(canon(dm))
            for p in fk_paths.get(t, []):
                for d in (a_, b_):
                    drop(d, p)
            if a_ != b_:
                ck.fail(f"mixed/{t}#{i}: differs from oid outside foreign-key fields")

    comp_rows = []
    for spec in a.composite:
        left, right = spec.split("=")
        ct, cps = left.split(":")
        pt, pps = right.split(":")
        cps, pps = cps.split(","), pps.split(",")
        def norm(x, v):
            if v == "mixed" and isinstance(x, str) and HEX24.match(x):
                return {"$oid": x}
            return x
        for v in ("int", "oid", "mixed"):
            parents = {tuple(canon(norm(get(d, p), v)) for p in pps) for d in data[v][pt]}
            n = bad = 0
            for i, d in enumerate(data[v][ct]):
                vals = [get(d, p) for p in cps]
                if any(x is MISSING or x is None for x in vals):
                    continue
                n += 1
                vals = [norm(x, v) for x in vals]
                if tuple(canon(x) for x in vals) not in parents:
                    bad += 1
                    if v != "mixed":
                        ck.fail(f"{v}/{ct}#{i}: composite ({','.join(cps)}) does not resolve in {pt}")
            comp_rows.append((spec, v, n, bad))
    return report(ck, summary, data, comp_rows)


def strip(doc, t, owner):
    d = json.loads(canon(doc))
    for (tt, path) in owner:
        if tt == t:
            drop(d, path)
    return d


def drop(d, path):
    parts = path.split(".")
    cur = d
    for p in parts[:-1]:
        cur = cur.get(p, {}) if isinstance(cur, dict) else {}
    if isinstance(cur, dict):
        cur.pop(parts[-1], None)


def report(ck, summary, data, comp_rows=()):
    print("tables:")
    for t in sorted(data.get("int", {})):
        print(f"  {t}\t{len(data['int'][t])}")
    print("references (non-null, unresolved) per variant:")
    for r in summary:
        print(f"  {r['fk']}\t{r['note']}\tint={r['int']}\toid={r['oid']}\tmixed={r['mixed']}")
    for spec, v, n, bad in comp_rows:
        print(f"  composite {spec}\t{v}: {n} non-null, {bad} unresolved")
    print(f"bson.json_util check: {'done' if json_util else 'skipped (no bson module)'}")
    if ck.errors:
        print(f"FAILED: {len(ck.errors)} problem(s)")
        for e in ck.errors[:50]:
            print("  " + e)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
