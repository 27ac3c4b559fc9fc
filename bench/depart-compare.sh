#!/bin/sh
# What a collective answers when a participant leaves, here and in
# OpenPMIx 4.2.2: tests/integration/test_depart.c built against both, every
# operation x departure (and, for fence and connect, across two nodes with
# the host's upcall reporting the PMIX_LOCAL_COLLECTIVE_STATUS it got).
# Not a benchmark but a side-by-side run; a HANG costs 60 s.  Run from the
# top of the source tree after `sh scripts/build.sh`:
#   sh bench/depart-compare.sh [OP...]
set -eu
build=${BUILD_DIR:-build}
. bench/openpmix.sh
openpmix_check depart-compare
make -s -C "$build" tests/integration/test_depart > /dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
openpmix_cc tests/integration/test_depart.c "$T/depart-openpmix" -O1
ops=${*:-fence connect disconnect group}
# one cell: what ranks 0 and 1 got (one word when they agree), and the host
cell() {
    TMPDIR=$T "$@" 2> /dev/null > "$T/out" || true
    r=$(grep '^rank [01]:' "$T/out" | sed 's/.*-> //' | sort -u | paste -sd/ -)
    h=$(sed -n 's/^host: local-status //p' "$T/out")
    if test "$h" = none; then echo "$r"; else echo "$r (host: $h)"; fi
}
echo "| operation | rank 2 | where | Switchyard | OpenPMIx 4.2.2 |"
echo "|---|---|---|---|---|"
for op in $ops; do
    for how in none finalize-before finalize-during kill-before kill-during join-finalize join-kill; do
        for where in local remote; do
            if test $where = remote && test "$op" = disconnect -o "$op" = group; then continue; fi
            ours=$(cell "$build/tests/integration/test_depart" "$op" "$how" "$where")
            theirs=$(cell "$T/depart-openpmix" "$op" "$how" "$where")
            echo "| $op | $how | $where | $ours | $theirs |"
        done
    done
done
