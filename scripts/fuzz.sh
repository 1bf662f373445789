#!/usr/bin/env bash
# Runs each fuzz target for a bounded time: `scripts/fuzz.sh [SECONDS]`.
#
# The targets are libFuzzer binaries built the way cargo-fuzz builds them
# (SanitizerCoverage passes, `--cfg fuzzing`, debug assertions), with plain
# cargo: nothing to install or compile besides the targets themselves.
# RUSTC_BOOTSTRAP lets the stable toolchain accept libfuzzer-sys's flags.
# Crashes are left in fuzz/artifacts/<target>/; copy each into
# fuzz/regressions/<target>/ so tests/it/fuzz_regressions.rs replays it on
# every test run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
secs=${1:-60}
export RUSTC_BOOTSTRAP=1
host=$(rustc -vV | sed -n 's/^host: //p')
# No sanitizer: docshape forbids unsafe code, so what the fuzzers can find
# is a panic, an overflow (debug assertions are on), a hang past -timeout
# or memory past -rss_limit_mb, none of which needs AddressSanitizer; it
# would watch only the dependencies' unsafe code, and it made the cold
# build of the instrumented tree 9.7 instead of 7.0 minutes on 2 cores.
# `--target` keeps these flags off build scripts and procedural macros.
flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters"
flags+=" -Cllvm-args=-sanitizer-coverage-pc-table"
flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares"
flags+=" --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
if ! RUSTFLAGS="$flags" cargo build --manifest-path fuzz/Cargo.toml --release \
    --target "$host" --bins; then
    echo "fuzz.sh: the fuzz targets do not build" >&2
    exit 1
fi
bin=fuzz/target/$host/release

# One target: a crash leaves its input in fuzz/artifacts/<target>/.
fuzz_one() {
    local target=$1 work
    mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
    work=$(mktemp -d)
    cp -r "fuzz/corpus/$target/." "$work/"
    echo "fuzz.sh: $target for ${secs}s" >&2
    if ! "$bin/$target" "$work" -artifact_prefix="fuzz/artifacts/$target/" \
        -max_total_time="$secs" -rss_limit_mb=2048 -max_len=262144 -timeout=10 -seed=1 \
        -print_final_stats=1 2>"fuzz/$target.log"; then
        echo "fuzz.sh: $target found a crash; see fuzz/artifacts/$target and fuzz/$target.log" >&2
        tail -40 "fuzz/$target.log" >&2
        rm -rf "$work"
        return 1
    fi
    grep -E "stat::number_of_executed_units|Done" "fuzz/$target.log" | sed "s/^/fuzz.sh: $target: /" | tail -2 >&2 || true
    rm -rf "$work"
}

# A libFuzzer process uses one core: run as many targets at once as there
# are cores (each still for the full time), so the pass takes
# targets / cores × SECONDS instead of targets × SECONDS.
jobs=${DOCSHAPE_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
status=0
running=()
for target in ejson bson_stream profile profile_reference query buckets; do
    if [[ ${#running[@]} -ge $jobs ]]; then
        wait "${running[0]}" || status=1
        running=("${running[@]:1}")
    fi
    fuzz_one "$target" &
    running+=($!)
done
for pid in "${running[@]}"; do
    wait "$pid" || status=1
done
exit $status
