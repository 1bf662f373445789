#!/usr/bin/env python3
"""Build the TPC-H foreign-key benchmark (tests/refbench/tpch) from tpchgen-cli output.

Command line (what made the committed files):

    cargo install tpchgen-cli --version 4.0.0 --locked --root /tmp/tpchgen
    /tmp/tpchgen/bin/tpchgen-cli -s 0.0007 -o /tmp/tpch-sf0.0007 --no-progress
    python3 scripts/refbench/tpch.py /tmp/tpch-sf0.0007 tests/refbench/tpch

TBL_DIR holds the eight pipe-delimited `<table>.tbl` files that tpchgen-cli
writes by default (its `tbl` format, one row a line, each field followed by
`|`).  A row whose primary key repeats an earlier row's in the same file is
skipped (at scale factor 0.0007 that is 42 of partsupp's 560 rows: below
scale factor 0.008 dbgen's supplier formula, which tpchgen-cli reproduces,
gives some parts the same supplier twice or four times; every other row of
every table is kept).  OUT_DIR receives int/tpch/, oid/tpch/, mixed/tpch/ and truth.tsv; a JSON
summary (row counts, foreign keys, dangling counts) is printed on stdout.

The rows are loaded, in file order, into an in-memory SQLite database whose
schema is the TPC-H specification's (column order, primary keys and foreign
keys of clause 1.4; identifiers and integers INTEGER, decimals DECIMAL(15,2),
dates DATE, text CHAR/VARCHAR), and that database is converted with the
generic recipe of sqlite_to_refbench.py (same directory).  Pure Python 3.11
standard library; the output is byte-for-byte deterministic.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sqlite_to_refbench  # noqa: E402

ID, INT, DEC, DATE = "INTEGER", "INTEGER", "DECIMAL(15,2)", "DATE"


def char(n):
    return f"CHAR({n})"


def varchar(n):
    return f"VARCHAR({n})"


# table -> (columns [(name, type)], primary key, foreign keys [(cols, parent, parent cols)])
SCHEMA = {
    "region": (
        [("r_regionkey", ID), ("r_name", char(25)), ("r_comment", varchar(152))],
        ["r_regionkey"],
        [],
    ),
    "nation": (
        [("n_nationkey", ID), ("n_name", char(25)), ("n_regionkey", ID), ("n_comment", varchar(152))],
        ["n_nationkey"],
        [(["n_regionkey"], "region", ["r_regionkey"])],
    ),
    "part": (
        [("p_partkey", ID), ("p_name", varchar(55)), ("p_mfgr", char(25)), ("p_brand", char(10)),
         ("p_type", varchar(25)), ("p_size", INT), ("p_container", char(10)),
         ("p_retailprice", DEC), ("p_comment", varchar(23))],
        ["p_partkey"],
        [],
    ),
    "supplier": (
        [("s_suppkey", ID), ("s_name", char(25)), ("s_address", varchar(40)), ("s_nationkey", ID),
         ("s_phone", char(15)), ("s_acctbal", DEC), ("s_comment", varchar(101))],
        ["s_suppkey"],
        [(["s_nationkey"], "nation", ["n_nationkey"])],
    ),
    "partsupp": (
        [("ps_partkey", ID), ("ps_suppkey", ID), ("ps_availqty", INT), ("ps_supplycost", DEC),
         ("ps_comment", varchar(199))],
        ["ps_partkey", "ps_suppkey"],
        [(["ps_partkey"], "part", ["p_partkey"]), (["ps_suppkey"], "supplier", ["s_suppkey"])],
    ),
    "customer": (
        [("c_custkey", ID), ("c_name", varchar(25)), ("c_address", varchar(40)), ("c_nationkey", ID),
         ("c_phone", char(15)), ("c_acctbal", DEC), ("c_mktsegment", char(10)),
         ("c_comment", varchar(117))],
        ["c_custkey"],
        [(["c_nationkey"], "nation", ["n_nationkey"])],
    ),
    "orders": (
        [("o_orderkey", ID), ("o_custkey", ID), ("o_orderstatus", char(1)), ("o_totalprice", DEC),
         ("o_orderdate", DATE), ("o_orderpriority", char(15)), ("o_clerk", char(15)),
         ("o_shippriority", INT), ("o_comment", varchar(79))],
        ["o_orderkey"],
        [(["o_custkey"], "customer", ["c_custkey"])],
    ),
    "lineitem": (
        [("l_orderkey", ID), ("l_partkey", ID), ("l_suppkey", ID), ("l_linenumber", INT),
         ("l_quantity", DEC), ("l_extendedprice", DEC), ("l_discount", DEC), ("l_tax", DEC),
         ("l_returnflag", char(1)), ("l_linestatus", char(1)), ("l_shipdate", DATE),
         ("l_commitdate", DATE), ("l_receiptdate", DATE), ("l_shipinstruct", char(25)),
         ("l_shipmode", char(10)), ("l_comment", varchar(44))],
        ["l_orderkey", "l_linenumber"],
        [(["l_orderkey"], "orders", ["o_orderkey"]),
         (["l_partkey"], "part", ["p_partkey"]),
         (["l_suppkey"], "supplier", ["s_suppkey"]),
         (["l_partkey", "l_suppkey"], "partsupp", ["ps_partkey", "ps_suppkey"])],
    ),
}


def ddl(table: str) -> str:
    cols, pk, fks = SCHEMA[table]
    parts = [f"{c} {t} NOT NULL" for c, t in cols]
    parts.append(f"PRIMARY KEY ({', '.join(pk)})")
    for cc, parent, pc in fks:
        parts.append(f"FOREIGN KEY ({', '.join(cc)}) REFERENCES {parent} ({', '.join(pc)})")
    return f"CREATE TABLE {table} (\n  " + ",\n  ".join(parts) + "\n)"


def load(tbl_dir: str) -> tuple[sqlite3.Connection, dict[str, int]]:
    """Load the .tbl files; returns the database and, per table, how many rows
    were skipped because their primary key repeats an earlier row's."""
    conn = sqlite3.connect(":memory:")
    for table in SCHEMA:
        conn.execute(ddl(table))
    skipped: dict[str, int] = {}
    for table, (cols, pk, _) in SCHEMA.items():
        path = os.path.join(tbl_dir, table + ".tbl")
        pk_idx = [[c for c, _ in cols].index(k) for k in pk]
        seen = set()
        rows = []
        with open(path, encoding="utf-8", newline="\n") as fh:
            for n, line in enumerate(fh, 1):
                line = line.rstrip("\n")
                if not line.endswith("|"):
                    raise SystemExit(f"{path}:{n}: line does not end with '|'")
                fields = line[:-1].split("|")
                if len(fields) != len(cols):
                    raise SystemExit(f"{path}:{n}: {len(fields)} fields, expected {len(cols)}")
                key = tuple(fields[i] for i in pk_idx)
                if key in seen:
                    # Below scale factor 0.01 dbgen's supplier formula for
                    # partsupp can give one part the same supplier twice (or
                    # four times); only the first such row is kept.
                    skipped[table] = skipped.get(table, 0) + 1
                    continue
                seen.add(key)
                rows.append(fields)
        marks = ", ".join("?" * len(cols))
        conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    conn.commit()
    return conn, skipped


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tbl_dir, out_dir = argv
    conn, skipped = load(tbl_dir)
    summary = sqlite_to_refbench.run(conn, out_dir, "tpch")
    summary["duplicate_key_rows_skipped"] = skipped
    json.dump(summary, sys.stdout, indent=1, ensure_ascii=False)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
