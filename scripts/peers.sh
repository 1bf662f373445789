#!/usr/bin/env bash
# Measures today's schema tools side by side with docshape on the same files:
#
#   scripts/peers.sh [DOCS]        (DOCS per collection, default 100000)
#
# 1. Generates orders and logs with docshape's deterministic benchmark
#    generator (`cargo bench --bench profile -- --docs N --write-data DIR`):
#    DIR/{orders,logs}.bson (concatenated BSON) and DIR/{orders,logs}.json
#    (relaxed Extended JSON, one document per line, like mongoexport).
# 2. Installs the peers, pinned, under .tools/peers/ (ignored by git):
#    - mongodb-schema (MongoDB Compass's schema engine) and bson with npm,
#      from scripts/peers/package.json + package-lock.json;
#    - pymongo-schema in its own venv, from scripts/peers/requirements.txt.
#    Both are reinstalled only when those files change.
# 3. Times, median of 3 fresh processes each, on both collections:
#    mongodb-schema fed the EJSON file (scripts/peers/mongodb-schema.js),
#    pymongo-schema fed the BSON file (scripts/peers/pymongo_schema_run.py),
#    and `target/release/docshape audit FILE --full --format json` on both
#    the BSON and the EJSON file (scripts/peers/measure.py).
# 4. Prints a Markdown table: docs/s and MB/s per tool, input and collection,
#    and each row's docs/s relative to mongodb-schema; then the same per CPU
#    second, which other load on the machine disturbs less.
#
# Needs cargo, node + npm, python3 (with venv) and a C compiler (pip builds
# ete4, a dependency of pymongo-schema, from source); the npm registry and PyPI
# must be reachable the first time. Works from any directory; safe to re-run.
# The data (~1.2 KB per order, ~0.3 KB per log, in both formats: ~300 MB at
# 100000, plus whatever else the generator writes) goes to a temporary
# directory that is removed at the end.
set -euo pipefail

say() { printf 'peers: %s\n' "$*" >&2; }
die() {
    say "$*"
    exit 1
}

# ---------------------------------------------------------------------------
# Arguments and locations
# ---------------------------------------------------------------------------
docs=${1:-100000}
[[ $docs =~ ^[1-9][0-9]*$ ]] || die "usage: scripts/peers.sh [DOCS] (a positive number of documents per collection)"
runs=3

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
here=$root/scripts/peers
tools=$root/.tools/peers     # .tools/ is in .gitignore
node_dir=$tools/node         # node_modules/ of the pinned npm packages
venv=$tools/venv             # the pymongo-schema virtualenv
docshape=$root/target/release/docshape

started=$(date +%s)

for cmd in cargo node npm python3; do
    command -v "$cmd" >/dev/null || die "$cmd not found on PATH"
done

# ---------------------------------------------------------------------------
# Registry checks: only run when something has to be installed, so that a
# machine that already has the peers can measure offline.
# ---------------------------------------------------------------------------
check_npm_registry() {
    local registry
    registry=$(npm config get registry 2>/dev/null)
    timeout 60 npm ping >/dev/null 2>&1 ||
        die "the npm registry ($registry) is unreachable: cannot install mongodb-schema"
}

check_pypi() {
    local index=${PIP_INDEX_URL:-https://pypi.org/simple}
    python3 - "$index" 2>/dev/null <<'EOF' || die "PyPI ($index) is unreachable: cannot install pymongo-schema"
import sys, urllib.request
urllib.request.urlopen(sys.argv[1].rstrip("/") + "/pymongo-schema/", timeout=60).read(1)
EOF
}

# The stamp of an install: a hash of the files it was made from.
stamp_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

# ---------------------------------------------------------------------------
# Peers
# ---------------------------------------------------------------------------
install_node_peers() {
    local want
    want=$(stamp_of "$here/package.json" "$here/package-lock.json")
    if [[ -f $node_dir/.stamp && $(<"$node_dir/.stamp") == "$want" ]]; then
        return
    fi
    say "installing mongodb-schema with npm into $node_dir"
    check_npm_registry
    mkdir -p "$node_dir"
    cp "$here/package.json" "$here/package-lock.json" "$node_dir/"
    # The optional dependencies (the MongoDB driver, CLI helpers) serve only
    # mongodb-schema's own command line; bson is a direct, pinned dependency.
    (cd "$node_dir" && npm ci --omit=optional --no-audit --no-fund --loglevel=error) ||
        die "npm ci failed in $node_dir"
    echo "$want" >"$node_dir/.stamp"
}

install_python_peers() {
    local want
    want=$(stamp_of "$here/requirements.txt")
    if [[ -f $venv/.stamp && $(<"$venv/.stamp") == "$want" ]]; then
        return
    fi
    say "installing pymongo-schema with pip into $venv (compiles ete4: a few minutes)"
    check_pypi
    rm -rf "$venv"
    python3 -m venv "$venv" || die "python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt" ||
        die "pip install -r scripts/peers/requirements.txt failed (see above)"
    echo "$want" >"$venv/.stamp"
}

install_node_peers
install_python_peers

# ---------------------------------------------------------------------------
# Data, generated fresh each run (the generator is part of the source tree)
# ---------------------------------------------------------------------------
grep -q -- '--write-data' "$root/benches/profile.rs" ||
    die "benches/profile.rs has no --write-data option: this checkout cannot generate the data"
data=$(mktemp -d "${TMPDIR:-/tmp}/docshape-peers-data.XXXXXX")
trap 'rm -rf "$data"' EXIT
say "generating $docs orders and $docs logs in $data"
cargo bench --quiet --bench profile -- --docs "$docs" --write-data "$data" >&2 ||
    die "cargo bench --bench profile -- --write-data failed: the data could not be generated"
for f in orders.bson logs.bson orders.json logs.json; do
    [[ -s $data/$f ]] || die "the generator did not write $data/$f"
done

# `cargo bench` builds the release binary too; build it if it is still missing.
if [[ ! -x $docshape ]]; then
    say "building $docshape"
    cargo build --release --quiet
fi

# ---------------------------------------------------------------------------
# Measure and report
# ---------------------------------------------------------------------------
say "measuring ($runs runs of every tool on every file; progress below)"
"$venv/bin/python" "$here/measure.py" \
    --data "$data" --docs "$docs" --runs "$runs" \
    --node-dir "$node_dir" --python "$venv/bin/python" --docshape "$docshape"

say "done in $(($(date +%s) - started)) s"
