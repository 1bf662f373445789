#!/usr/bin/env bash
# Per rule, how many findings on the real data were true, false and
# debatable before issue 12 (tests/corpus/before.tsv) and now
# (tests/corpus/verdicts.tsv), as a Markdown table.
#
#   scripts/corpus-table.sh            # the real data read as files (as before.tsv)
#   scripts/corpus-table.sh server     # now: the same data in the test server
#   scripts/corpus-table.sh sample-data
#   scripts/corpus-table.sh workload   # the workload rules, sample-data + its bundled workload
#   scripts/corpus-table.sh log        # the workload rules, the real mongod log read alone
#
# `before` exists for `files` only; for another place its counts are 0.
# Rows still `unreviewed` in verdicts.tsv are counted in their own column.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
where=${1:-files}
case $where in
files | server | sample-data | workload | log) ;;
*)
    echo "corpus-table.sh: unknown place '$where' (files, server, sample-data, workload or log)" >&2
    exit 2
    ;;
esac

awk -F'\t' -v where="$where" '
    FNR == 1 { file++ }
    /^#/ || /^[[:space:]]*$/ || $1 == "where" { next }
    $1 != where { next }
    {
        side = (file == 1) ? "before" : "after"
        rules[$3] = 1
        n[side, $3, $6]++
        n[side, "total", $6]++
    }
    function cell(side, rule, v) { return ((side, rule, v) in n) ? n[side, rule, v] : 0 }
    function row(label, rule) {
        printf "| %s | %d | %d | %d | %d | %d | %d |", label,
            cell("before", rule, "true"), cell("before", rule, "false"), cell("before", rule, "debatable"),
            cell("after", rule, "true"), cell("after", rule, "false"), cell("after", rule, "debatable")
        if (unreviewed) printf " %d |", cell("after", rule, "unreviewed")
        printf "\n"
    }
    END {
        unreviewed = ("after", "total", "unreviewed") in n
        printf "| rule (%s) | before true | before false | before debatable | after true | after false | after debatable |", where
        if (unreviewed) printf " after unreviewed |"
        printf "\n|---|---:|---:|---:|---:|---:|---:|"
        if (unreviewed) printf "---:|"
        printf "\n"
        count = 0
        for (r in rules) sorted[++count] = r
        # insertion sort: portable awk has no asort
        for (i = 2; i <= count; i++) {
            v = sorted[i]
            for (j = i - 1; j >= 1 && sorted[j] > v; j--) sorted[j + 1] = sorted[j]
            sorted[j + 1] = v
        }
        for (i = 1; i <= count; i++) row(sorted[i], sorted[i])
        row("**all**", "total")
    }
' tests/corpus/before.tsv tests/corpus/verdicts.tsv
