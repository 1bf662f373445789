"""Times docshape and its peers on the same files and prints a Markdown table.

    python measure.py --data DIR --docs N --runs R --node-dir DIR \
        --python PY --docshape BIN

DIR holds orders.bson, logs.bson (concatenated BSON) and orders.json,
logs.json (relaxed Extended JSON, one document per line). Each measurement is
a fresh process; the runs are interleaved (run 1 of every tool and file, then
run 2, ...) so that a burst of load from elsewhere on the machine spreads over
all tools instead of hitting one. The median of the runs is reported.

What is timed:
* the peers report their own time from opening the file to the finished
  schema (interpreter start and imports are left out, reading and parsing the
  file are in): see mongodb-schema.js and pymongo_schema_run.py;
* docshape is timed from the outside, wall clock of the whole process
  (`docshape audit FILE --full --format json`, report written to a file).
Each run's CPU time (user + system, all threads, same span) is reported too.

Standard library only.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATASETS = ("orders", "logs")


def fail(msg):
    sys.exit(f"peers: {msg}")


def run_peer(cmd, env=None, cwd=None):
    """Runs a peer runner; returns (docs, wall seconds, CPU seconds) from its
    JSON line."""
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    if p.returncode != 0:
        fail(f"{' '.join(map(str, cmd))} failed (exit {p.returncode}):\n{p.stderr.strip()}")
    out = json.loads(p.stdout.strip().splitlines()[-1])
    return out["docs"], out["seconds"], out["cpuSeconds"]


def run_docshape(binary, path, scratch):
    """Runs one docshape audit; returns (docs, wall seconds, CPU seconds)."""
    report = scratch / "report.json"
    # A fresh state dir per run: every run is a first audit of the file (no
    # growth snapshot to compare with), and nothing lands in the user's state.
    state = Path(tempfile.mkdtemp(dir=scratch))
    env = dict(os.environ, XDG_STATE_HOME=str(state))
    cmd = [str(binary), "audit", str(path), "--full", "--format", "json"]
    with open(report, "wb") as out:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        p = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, env=env)
        seconds = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    # Exit 1 only says that a finding reached --fail-on; 2 is an error.
    if p.returncode not in (0, 1):
        fail(f"{' '.join(cmd)} failed (exit {p.returncode}):\n{p.stderr.decode().strip()}")
    docs = sum(c["documents"] for c in json.loads(report.read_text())["collections"])
    return docs, seconds, cpu


def grouped(x):
    return f"{x:,.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--docs", type=int, required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--node-dir", type=Path, required=True, help="dir with node_modules/")
    ap.add_argument("--python", required=True, help="python of the pymongo-schema venv")
    ap.add_argument("--docshape", type=Path, required=True)
    a = ap.parse_args()

    files = {(k, ext): a.data / f"{k}.{ext}" for k in DATASETS for ext in ("bson", "json")}
    for f in files.values():
        if not f.is_file():
            fail(f"missing data file {f}")
    bson_bytes = {k: files[(k, "bson")].stat().st_size for k in DATASETS}

    # Versions as installed, for the table.
    ms_version = json.loads(
        (a.node_dir / "node_modules/mongodb-schema/package.json").read_text())["version"]
    pms_version = subprocess.run(
        [a.python, "-c", "import importlib.metadata as m; print(m.version('pymongo-schema'))"],
        capture_output=True, text=True, check=True).stdout.strip()
    ds_version = subprocess.run(
        [str(a.docshape), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip().split()[-1]

    # (label, input label, extension, function running one measurement)
    node_env = dict(os.environ, NODE_PATH=str(a.node_dir / "node_modules"))
    tools = [
        (f"mongodb-schema {ms_version}", "EJSON", "json",
         lambda p, s: run_peer(["node", HERE / "mongodb-schema.js", p], env=node_env)),
        (f"pymongo-schema {pms_version}", "BSON", "bson",
         lambda p, s: run_peer([a.python, HERE / "pymongo_schema_run.py", p])),
        (f"docshape {ds_version}", "BSON", "bson",
         lambda p, s: run_docshape(a.docshape, p, s)),
        (f"docshape {ds_version}", "EJSON", "json",
         lambda p, s: run_docshape(a.docshape, p, s)),
    ]

    load_before = os.getloadavg()[0]
    times = {}  # (tool index, dataset) -> [wall-clock seconds]
    cpus = {}  # (tool index, dataset) -> [CPU seconds]
    with tempfile.TemporaryDirectory(prefix="docshape-peers-") as scratch:
        scratch = Path(scratch)
        for r in range(1, a.runs + 1):
            for i, (label, inp, ext, fn) in enumerate(tools):
                for k in DATASETS:
                    path = files[(k, ext)]
                    docs, secs, cpu = fn(path, scratch)
                    if docs != a.docs:
                        fail(f"{label} on {path.name} saw {docs} documents, expected {a.docs}")
                    times.setdefault((i, k), []).append(secs)
                    cpus.setdefault((i, k), []).append(cpu)
                    print(f"  run {r}/{a.runs}  {label:<22} {path.name:<12} {secs:8.2f} s",
                          file=sys.stderr, flush=True)

    mb = lambda b: b / 1e6  # noqa: E731

    def table(title, seconds):
        """One Markdown table from {(tool index, dataset): [seconds]}."""
        med = {key: statistics.median(v) for key, v in seconds.items()}
        rate = {key: a.docs / s for key, s in med.items()}
        print(f"{title}\n")
        print("| tool | input | orders docs/s | orders MB/s | logs docs/s | logs MB/s "
              "| vs mongodb-schema (orders / logs) |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for i, (label, inp, _, _) in enumerate(tools):
            cells = []
            for k in DATASETS:
                cells += [grouped(rate[(i, k)]), f"{mb(bson_bytes[k]) / med[(i, k)]:.1f}"]
            vs = " / ".join(f"{rate[(i, k)] / rate[(0, k)]:.1f}×" for k in DATASETS)
            print(f"| {label} | {inp} | {' | '.join(cells)} | {vs} |")
        print()

    print(f"\n## docshape vs today's schema tools ({a.docs:,} docs per collection, "
          f"median of {a.runs} runs, {os.cpu_count()} cores)\n")
    table("Wall clock:", times)
    sizes = ", ".join(
        f"{k}.bson {mb(bson_bytes[k]):.1f} MB / {k}.json "
        f"{mb(files[(k, 'json')].stat().st_size):.1f} MB" for k in DATASETS)
    print(f"MB/s = bytes of the collection's BSON file / median seconds, in every row "
          f"(EJSON rows too, so that all rows compare). Files: {sizes}.")
    print("Peers: timed inside their process, from opening the file to the finished "
          "schema (interpreter start and imports left out). docshape: wall clock of the "
          "whole `docshape audit FILE --full --format json` process.")
    print(f"Load average (1 min): {load_before:.2f} before, {os.getloadavg()[0]:.2f} after "
          "(this measurement adds about 1 by itself).\n")
    table("The same per CPU second (user + system, all threads; less sensitive to other "
          "load on the machine, and it shows whether a tool used more than one core):", cpus)
    print("Seconds per run, wall clock (CPU):\n")
    for i, (label, inp, _, _) in enumerate(tools):
        runs = "; ".join(
            f"{k} " + ", ".join(f"{w:.2f} ({c:.2f})" for w, c in zip(times[(i, k)], cpus[(i, k)]))
            for k in DATASETS)
        print(f"- {label}, {inp}: {runs}")

if __name__ == "__main__":
    main()
