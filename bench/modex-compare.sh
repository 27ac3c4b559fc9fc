#!/bin/sh
# Build bench/modex.c against Switchyard and against OpenPMIx 4.2.2 and
# print the collecting fence and get-all-peers figures side by side with
# ratios (ours / OpenPMIx; below 1 is better for us).  Run from the top of
# the source tree after `sh scripts/build.sh`:
#   sh bench/modex-compare.sh [-n "2 4 8 16 32"] [-s "64 4096"] [-r REPS]
set -eu
build=${BUILD_DIR:-build}
openpmix=${OPENPMIX_PREFIX:-/usr/lib/x86_64-linux-gnu/pmix2}
test -f "$openpmix/include/pmix.h" || {
    echo "modex-compare: OpenPMIx headers not found under $openpmix (apt-get install libpmix-dev)" >&2
    exit 1
}
make -s -C "$build" bench/modex
${CC:-cc} -O2 -std=gnu11 -I"$openpmix/include" bench/modex.c -o "$build/bench/modex-openpmix" \
    -L"$openpmix/lib" -lpmix -Wl,-rpath,"$openpmix/lib" -lpthread

ours=$(mktemp) theirs=$(mktemp)
trap 'rm -f "$ours" "$theirs"' EXIT
"$build/bench/modex" "$@" > "$ours"
"$build/bench/modex-openpmix" "$@" > "$theirs"

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| N | bytes/rank | fence+collect µs ours | 4.2.2 | ratio | get-all µs ours | 4.2.2 | ratio | launch→exit µs ours | 4.2.2 | ratio | host fence_nb calls ours / 4.2.2 |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
awk '{ print $1 "_" $2, $0 }' "$ours" | sort > "$ours.k"
awk '{ print $1 "_" $2, $0 }' "$theirs" | sort > "$theirs.k"
join "$ours.k" "$theirs.k" | sort -t_ -k1,1n -k2,2n | awk '{
    printf "| %s | %s ", $2, $3
    for (i = 4; i <= 6; i++)
        printf "| %.1f | %.1f | %.3f ", $i, $(i + 7), ($(i + 7) > 0 ? $i / $(i + 7) : 0)
    printf "| %s / %s |\n", $7, $14
}'
rm -f "$ours.k" "$theirs.k"
