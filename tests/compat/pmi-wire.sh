#!/bin/sh
# The PMI-1 and PMI-2 wire protocols served by switchyard-run's server,
# spoken byte for byte by tests/compat/pmi_wire over PMI_FD at -n 1/2/4
# (MPICH's conversation, escaping, MPICH 4.0.2's garbage bytes, thrid
# echo, waiting node attributes), and protocol violations: each closes
# that connection with one log line, and the server goes on.
set -u
NAME=pmi-wire
NEED="tests/compat/pmi_wire"
. "$(dirname "$0")/pmi-lib.sh"
W="$top_builddir/tests/compat/pmi_wire"

for np in 1 2 4; do
    for v in pmi1 pmi2; do
        timeout 60 "$R" --oversubscribe -n $np "$W" $v > "$T/out" 2> "$T/err"
        rc=$?
        check "$v wire -n $np exits 0" "test $rc -eq 0"
        check "$v wire -n $np: every rank ok" \
            "test \$(grep -c '^wire $v ok rank' '$T/out') -eq $np"
        check "$v wire -n $np: nothing logged" "! grep -q warning '$T/err'"
    done
done

for mode in noinit garbage unknown oversized badlen; do
    timeout 60 "$R" -n 1 "$W" bad $mode > "$T/out" 2> "$T/err"
    rc=$?
    check "violation '$mode': connection closed, rank exits 0" "test $rc -eq 0"
    check "violation '$mode': one log line" \
        "test \$(grep -c 'pmi: .*connection closed' '$T/err') -eq 1"
done

# a PMIx program gets PMI_FD too, and never using it is quiet
timeout 60 "$R" -n 2 sh -c 'test -n "$PMI_FD" && test -n "$PMI_RANK" && test "$PMI_SIZE" = 2' \
    > "$T/out" 2> "$T/err"
rc=$?
check "PMI_FD, PMI_RANK, PMI_SIZE exported; unused is quiet" "test $rc -eq 0 && ! test -s '$T/err'"
finish
