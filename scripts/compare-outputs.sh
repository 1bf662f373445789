#!/usr/bin/env bash
# Runs one docshape binary over a fixed set of commands and keeps what each
# printed, its stderr and exit code, so two builds can be compared byte for
# byte: `scripts/compare-outputs.sh BIN OUTDIR`, then `diff -r OUT1 OUT2`.
#
# Fields that change from run to run (generated_at, peak_memory_bytes,
# extremes.millis, SARIF's invocation times) are masked. Growth snapshots
# and the configuration file are kept out of the run (an empty
# $XDG_STATE_HOME and $XDG_CONFIG_HOME for each command). The real data in
# /work/shared/realdata is used when it is there ($REALDATA to move it).
set -uo pipefail

out=$2
real=${REALDATA:-/work/shared/realdata}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
rm -rf "$out"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Under one name, as --help shows it.
bin=$work/docshape
cp "$1" "$bin"

mask() {
    sed -E \
        -e 's/"generated_at": ?"[^"]*"/"generated_at":"*"/g' \
        -e 's/"peak_memory_bytes": ?[0-9]+/"peak_memory_bytes":0/g' \
        -e 's/"millis": ?[0-9]+/"millis":0/g' \
        -e 's/"(startTimeUtc|endTimeUtc)": ?"[^"]*"/"\1":"*"/g' \
        -e 's/(Generated|生成于) [0-9T:.Z-]+/\1 */g' \
        -e 's/[0-9]+ ms\b/N ms/g' \
        -e "s#$work#WORK#g"
}

# run NAME ARGS...: the command's stdout, stderr and exit code; with
# `--output @` in ARGS, the report goes to a file, kept as NAME.file.
run() {
    local name=$1
    shift
    local args=() file=
    for a in "$@"; do
        if [[ $a == @ ]]; then
            file=$work/$name.report
            a=$file
        fi
        args+=("$a")
    done
    rm -rf "$work/state" "$work/config"
    mkdir -p "$work/state" "$work/config"
    XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config NO_COLOR= LANG=C.UTF-8 MONGODB_URI= \
        "$bin" "${args[@]}" >"$work/stdout" 2>"$work/stderr" </dev/null
    echo $? >"$out/$name.code"
    mask <"$work/stdout" >"$out/$name.out"
    mask <"$work/stderr" >"$out/$name.err"
    if [[ -n $file ]]; then
        if [[ -f $file ]]; then mask <"$file" >"$out/$name.file"; else echo "(none)" >"$out/$name.file"; fi
    fi
}

formats=(text markdown json jsonl sarif)
targets=(
    "blog|sample-data -c blog.*"
    "shop|sample-data -c shop.*"
    "all|sample-data"
    "full|sample-data --full -c one_to_many.*"
    "zh|sample-data -c polymorphic.* --lang zh"
    "none|sample-data -c nothing.here"
    "strict|sample-data -c integrity.* --rules strict"
    "wl|sample-data -c workload.* --workload sample-data/workload/mongod.log"
    "wlonly|--workload sample-data/workload/mongod.log"
)
if [[ -d $real ]]; then
    targets+=(
        "mflix|$real/mflix"
        "customers|$real/sample_analytics/customers.json"
        "products|$real/json_files/products.json"
        "grades|$real/sample_training/grades.json"
        "theaters|$real/sample_mflix/theaters.json"
        "reallog|--workload $real/logs/sample-mongod.log.gz"
    )
fi
for t in "${targets[@]}"; do
    name=${t%%|*}
    read -r -a args <<<"${t#*|}"
    for f in "${formats[@]}"; do
        run "audit-$name-$f" audit "${args[@]}" --no-snapshot --format "$f"
        run "audit-$name-$f-o" audit "${args[@]}" --no-snapshot --format "$f" --output @
    done
done

# Exit codes by --fail-on, with a stream and a whole-report format.
for f in info warning critical never; do
    run "failon-$f-json" audit sample-data -c 'blog.*' --no-snapshot --format json --fail-on "$f"
    run "failon-$f-text" audit sample-data -c 'good_*' --no-snapshot --fail-on "$f"
    run "failon-$f-sarif" audit sample-data -c 'tree.*' --no-snapshot --format sarif --fail-on "$f"
done
# Growth snapshots kept and read within one command's state.
run "snapshot-text" audit sample-data -c 'blog.*'

# Failures.
run "err-missing" audit /nonexistent/target
run "err-missing-json" audit /nonexistent/target --format json
run "err-output" audit sample-data -c 'blog.*' --no-snapshot --format text --output /nonexistent/dir/r.txt
run "err-output-json" audit sample-data -c 'blog.*' --no-snapshot --format json --output /nonexistent/dir/r.json
run "err-output-jsonl" audit sample-data -c 'blog.*' --no-snapshot --format jsonl --output /nonexistent/dir/r.json
run "err-output-sarif" audit sample-data -c 'blog.*' --no-snapshot --format sarif --output /nonexistent/dir/r.json
run "err-output-md" audit sample-data -c 'blog.*' --no-snapshot --format markdown --output /nonexistent/dir/r.md
run "err-usage" audit --format nope
run "err-config" audit sample-data --config /nonexistent/docshape.toml
run "err-saved" audit no-such-saved-connection
run "err-profile" audit --workload profile
printf 'garbage{\n' >"$work/bad.json"
run "err-damaged" audit "$work/bad.json" --no-snapshot --format json
run "err-damaged-text" audit "$work/bad.json" --no-snapshot

# schema.
for f in json json-schema mermaid; do
    run "schema-$f" schema sample-data -c blog.bad_posts --no-snapshot --format "$f"
    run "schema-many-$f" schema sample-data -c 'blog.*' --no-snapshot --format "$f"
    run "schema-none-$f" schema sample-data -c nothing.here --no-snapshot --format "$f"
done
if [[ -d $real ]]; then
    run "schema-movies" schema "$real/mflix/movies.json" --no-snapshot
    run "schema-movies-js" schema "$real/mflix/movies.json" --no-snapshot --format json-schema
    run "schema-mflix-mermaid" schema "$real/mflix" --no-snapshot --format mermaid
fi

# lesson and help.
run "lesson-list" lesson
run "lesson-missing" lesson no-such-lesson
run "help" --help
run "audit-help" audit --help
run "version" --version

# A reader that stops early (`| head`): the exit code and stderr.
for f in json jsonl text sarif; do
    rm -rf "$work/state" && mkdir -p "$work/state"
    XDG_STATE_HOME=$work/state XDG_CONFIG_HOME=$work/config MONGODB_URI= \
        "$bin" audit sample-data --no-snapshot --format "$f" --fail-on info 2>"$work/stderr" | head -c 100 >/dev/null
    echo "${PIPESTATUS[0]}" >"$out/pipe-$f.code"
    mask <"$work/stderr" >"$out/pipe-$f.err"
done
