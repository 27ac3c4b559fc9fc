#!/bin/sh
# Build bench/launch.c against Switchyard and against OpenPMIx 4.2.2 and
# print their figures side by side with ratios (ours / OpenPMIx; below 1 is
# better for us).  Run from the top of the source tree after
# `sh scripts/build.sh`:
#   sh bench/launch-compare.sh [-n "1 2 4 8"] [-r REPS] [-g GETS]
set -eu
build=${BUILD_DIR:-build}
. bench/openpmix.sh
openpmix_check launch-compare
make -s -C "$build" bench/launch
openpmix_cc bench/launch.c "$build/bench/launch-openpmix"

ours=$(mktemp) theirs=$(mktemp)
trap 'rm -f "$ours" "$theirs"' EXIT
"$build/bench/launch" "$@" > "$ours"
"$build/bench/launch-openpmix" "$@" > "$theirs"

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| N | Init µs ours | 4.2.2 | ratio | Get job ns ours | 4.2.2 | ratio | Get proc ns ours | 4.2.2 | ratio | Finalize µs ours | 4.2.2 | ratio | launch→exit µs ours | 4.2.2 | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
join "$ours" "$theirs" | awk '{
    printf "| %s ", $1
    for (i = 2; i <= 6; i++)
        printf "| %.1f | %.1f | %.3f ", $i, $(i + 5), ($(i + 5) > 0 ? $i / $(i + 5) : 0)
    printf "|\n"
}'
