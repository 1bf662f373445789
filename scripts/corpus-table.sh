#!/usr/bin/env bash
# Per rule, how many findings on the real data were true, false and
# debatable before (tests/corpus/before.tsv: the real data before issue 12;
# tests/corpus/before-apps.tsv: the applications' dumps before issue 30) and
# now (tests/corpus/verdicts.tsv), as a Markdown table.
#
#   scripts/corpus-table.sh            # the real data read as files (as before.tsv)
#   scripts/corpus-table.sh server     # now: the same data in the test server
#   scripts/corpus-table.sh sample-data
#   scripts/corpus-table.sh workload   # the workload rules, sample-data + its bundled workload
#   scripts/corpus-table.sh log        # the workload rules, the real mongod log read alone
#   scripts/corpus-table.sh apps-files   # the applications' dumps read as files
#   scripts/corpus-table.sh apps-server  # the same dumps in the test server
#
# `before` exists for `files` and `apps-files` only; for another place its
# counts are 0.
# Rows still `unreviewed` in verdicts.tsv are counted in their own column.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
where=${1:-files}
case $where in
files | server | sample-data | workload | log | apps-files | apps-server) ;;
*)
    echo "corpus-table.sh: unknown place '$where' (files, server, sample-data, workload, log, apps-files or apps-server)" >&2
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
' <(cat tests/corpus/before.tsv tests/corpus/before-apps.tsv) tests/corpus/verdicts.tsv
