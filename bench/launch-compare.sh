#!/bin/sh
# Build bench/launch.c against Switchyard and against OpenPMIx 4.2.2 and
# print their figures side by side with ratios (ours / OpenPMIx; below 1 is
# better for us).  Run from the top of the source tree after
# `sh scripts/build.sh`:
#   sh bench/launch-compare.sh [-n "1 2 4 8"] [-r REPS] [-g GETS]
set -eu
build=${BUILD_DIR:-build}
openpmix=${OPENPMIX_PREFIX:-/usr/lib/x86_64-linux-gnu/pmix2}
test -f "$openpmix/include/pmix.h" || {
    echo "launch-compare: OpenPMIx headers not found under $openpmix (apt-get install libpmix-dev)" >&2
    exit 1
}
make -s -C "$build" bench/launch
${CC:-cc} -O2 -std=gnu11 -I"$openpmix/include" bench/launch.c -o "$build/bench/launch-openpmix" \
    -L"$openpmix/lib" -lpmix -Wl,-rpath,"$openpmix/lib" -lpthread

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
