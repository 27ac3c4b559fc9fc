#!/bin/sh
# Build bench/modex.c against Switchyard and against OpenPMIx 4.2.2 and
# print the collecting fence and get-all-peers figures side by side with
# ratios (ours / OpenPMIx; below 1 is better for us).  Run from the top of
# the source tree after `sh scripts/build.sh`:
#   sh bench/modex-compare.sh [-i ROUNDS] [-n "2 4 8 16 32"] [-s "64 4096"] [-r REPS]
# The two programs run alternately, ROUNDS times each (default 3), so that
# load from other work on the machine falls on both; every figure is the
# median over the rounds of each round's median over REPS launches.
set -eu
build=${BUILD_DIR:-build}
. bench/openpmix.sh
openpmix_check modex-compare
rounds=3
if test "${1:-}" = "-i"; then
    rounds=$2
    shift 2
fi
make -s -C "$build" bench/modex
openpmix_cc bench/modex.c "$build/bench/modex-openpmix"

ours=$(mktemp) theirs=$(mktemp)
trap 'rm -f "$ours" "$theirs" "$ours.m" "$theirs.m"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while test "$i" -lt "$rounds"; do
    "$build/bench/modex" "$@" >> "$ours"
    "$build/bench/modex-openpmix" "$@" >> "$theirs"
    i=$((i + 1))
done

# Each line: N size fence getall total fcalls dcalls fence_lastin barrier
# barrier_lastin nodata nodata_lastin.  Median per (N, size) and column
# over the rounds.
medians() {
    awk '{ for (c = 3; c <= NF; c++) print $1, $2, c, $c }' "$1" | sort -k1,1n -k2,2n -k3,3n -k4,4g |
        awk '
        function flush() {
            if (n == 0) return
            m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            out[key] = out[key] " " m
            n = 0
        }
        { k = $1 " " $2 " " $3
          if (k != cur) { flush(); cur = k; key = $1 " " $2; if (!(key in out)) { out[key] = key; order[++nk] = key } }
          v[++n] = $4 }
        END { flush(); for (i = 1; i <= nk; i++) print out[order[i]] }'
}
medians "$ours" > "$ours.m"
medians "$theirs" > "$theirs.m"

echo "load average: before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds"
echo
echo "| N | bytes/rank | fence+collect µs ours | 4.2.2 | ratio | get-all µs ours | 4.2.2 | ratio | fence last-in→all-out µs ours | 4.2.2 | ratio | pipe barrier µs, ours run / 4.2.2 run | its last-in→all-out µs | fence without data µs ours | 4.2.2 | ratio | its last-in→all-out µs ours | 4.2.2 | ratio | launch→exit µs ours | 4.2.2 | ratio | host fence_nb calls ours / 4.2.2 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
# joined line: key, then ours "N size fence getall total fcalls dcalls
# fence_lastin barrier barrier_lastin nodata nodata_lastin" ($2..$13), then
# theirs ($14..$25)
awk '{ print $1 "_" $2, $0 }' "$ours.m" | sort > "$ours"
awk '{ print $1 "_" $2, $0 }' "$theirs.m" | sort > "$theirs"
join "$ours" "$theirs" | sort -t_ -k1,1n -k2,2n | awk '
function cell(a, b) { printf "| %.1f | %.1f | %.3f ", a, b, (b > 0 ? a / b : 0) }
{
    printf "| %s | %s ", $2, $3
    cell($4, $16)
    cell($5, $17)
    cell($9, $21)
    printf "| %.0f / %.0f | %.0f / %.0f ", $10, $22, $11, $23
    cell($12, $24)
    cell($13, $25)
    cell($6, $18)
    printf "| %.0f / %.0f |\n", $7, $19
}'
