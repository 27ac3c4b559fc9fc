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

# A threaded PMI-2 client: several requests out at once on one connection
# (two node attribute waits, publish, lookup, unpublish), each reply with
# its own thrid.
timeout 60 "$R" -n 1 "$W" threads > "$T/out" 2> "$T/err"
rc=$?
check "PMI-2 threaded requests: each reply carries its own thrid" \
    "test $rc -eq 0 && grep -q '^wire threads ok rank 0' '$T/out' && ! grep -q warning '$T/err'"

# A violation closes the connection (the rank sees EOF).  Before init the
# process is no PMI client yet and exits quietly; after init it is a
# client of its job gone without finalizing, and the job fails, as under
# hydra.
for mode in noinit garbage badid unknown oversized badlen; do
    timeout 60 "$R" -n 1 "$W" bad $mode > "$T/out" 2> "$T/err"
    rc=$?
    check "violation '$mode': connection closed, the rank saw it" \
        "grep -q '^wire bad ok rank 0' '$T/out'"
    case $mode in
    noinit | garbage | badid) check "violation '$mode': before init, the job exits 0" "test $rc -eq 0" ;;
    *) check "violation '$mode': after init, the job fails" "test $rc -ne 0" ;;
    esac
    check "violation '$mode': one log line" \
        "test \$(grep -c 'pmi: .*connection closed' '$T/err') -eq 1"
done

# PMI_PORT mode: the same conversations over TCP, identified by PMI_ID
# (PMI-1: initack; PMI-2: fullinit's pmirank); a wrong PMI_ID is a
# violation above.
for v in 1 2; do
    timeout 60 "$R" --oversubscribe -n 2 "$W" port$v > "$T/out" 2> "$T/err"
    rc=$?
    check "PMI-$v over PMI_PORT -n 2" \
        "test $rc -eq 0 && test \$(grep -c '^wire port$v ok rank' '$T/out') -eq 2"
done

# One job of PMIx ranks (even) and PMI-1 wire ranks (odd): one fence, and
# each reads every other rank's key.
for np in 2 4; do
    timeout 60 "$R" --oversubscribe -n $np "$W" mixed > "$T/out" 2> "$T/err"
    rc=$?
    check "mixed PMIx/PMI-1 job -n $np exits 0" "test $rc -eq 0"
    check "mixed PMIx/PMI-1 job -n $np: every rank read every key" \
        "test \$(grep -c '^wire mixed ok rank' '$T/out') -eq $np"
done

# Spawn over the wire: PMI-1 mcmd=spawn and PMI-2 spawn from rank 0 go to
# switchyard-run's spawn upcall; the two children see PMI_SPAWNED (PMI-2:
# spawner-jobid), read the parent's preput key with a plain get, fence.
for v in 1 2; do
    timeout 60 "$R" --oversubscribe -n 2 "$W" spawn$v > "$T/out" 2> "$T/err"
    rc=$?
    check "PMI-$v spawn: the job and its children exit 0" "test $rc -eq 0"
    check "PMI-$v spawn: parents ok" "test \$(grep -c '^wire spawn$v ok rank' '$T/out') -eq 2"
    check "PMI-$v spawn: both children read the preput key" \
        "test \$(grep -c '^wire child$v ok rank [01]\$' '$T/out') -eq 2"
done

# Rank 1 (PMI-1) ends while the others wait in the barrier for it: their
# fence fails (the PMIx ranks' with an error status, the PMI-1 rank's
# connection closes) instead of waiting.  Its connection ending alone
# shows it; a SIGKILL ends the job with an error and no hang.
for how in close kill; do
    rm -rf "$T/sync" && mkdir "$T/sync"
    PMI_WIRE_SYNC="$T/sync" timeout 60 "$R" --oversubscribe -n 4 "$W" die $how \
        > "$T/out" 2> "$T/err"
    rc=$?
    check "PMI rank ($how) gone mid-barrier: the job fails, no hang" \
        "test $rc -ne 0 && test $rc -ne 124"
    test $how = close || continue # after a SIGKILL the launcher may stop them first
    check "PMI rank gone mid-barrier: PMIx ranks' fence failed" \
        "test \$(grep -c '^wire rank [02]: fence failed' '$T/out') -eq 2"
    check "PMI rank gone mid-barrier: the other PMI rank's barrier failed" \
        "grep -q '^wire rank 3: barrier failed' '$T/out'"
done
finish
