#!/bin/sh
# PMI gets across servers: pmi_twohost runs two node daemons (our server
# library, PMI wire enabled) for one job of 4 ranks, 2 on each; the hosts
# relay a data-less fence and direct modex.  The PMI-1 (even) and PMI-2
# (odd) ranks read every other rank's key, the other node's by direct
# modex, and a key nobody put is answered "not found".
set -u
NAME=pmi-remote
NEED="tests/compat/pmi_wire tests/compat/pmi_twohost"
. "$(dirname "$0")/pmi-lib.sh"
W="$top_builddir/tests/compat/pmi_wire"
H="$top_builddir/tests/compat/pmi_twohost"

timeout 60 "$H" "$W" remote > "$T/out" 2> "$T/err"
rc=$?
check "two servers, PMI-1 and PMI-2 ranks on each: the job exits 0" "test $rc -eq 0"
check "every rank read every key, its own node's and the other's" \
    "test \$(grep -c '^wire remote ok rank' '$T/out') -eq 4"
check "the other node's keys came by direct modex, through both hosts" \
    "grep -Eq '^node-a: [1-9][0-9]* direct modex' '$T/out' &&
     grep -Eq '^node-b: [1-9][0-9]* direct modex' '$T/out'"
check "nothing logged" "! grep -q warning '$T/err'"
finish
