#!/bin/sh
# Tools see PMI wire processes as they see PMIx ones: a job of PMI-1 (even)
# and PMI-2 (odd) wire ranks waits while switchyard-tool, attached to its
# switchyard-run, asks for PMIX_QUERY_PROC_TABLE and
# PMIX_QUERY_LOCAL_PROC_TABLE: every rank is listed with its own pid,
# this host and a running state.
set -u
NAME=pmi-tool
NEED="tests/compat/pmi_wire tools/switchyard-tool"
. "$(dirname "$0")/pmi-lib.sh"
W="$top_builddir/tests/compat/pmi_wire"
ST="$top_builddir/tools/switchyard-tool"
host=$(hostname)
np=4

mkdir "$T/sync"
# no timeout(1) in between: the tool attaches by the launcher's pid (the
# ranks give up by themselves after 60 s without the stop file)
PMI_WIRE_SYNC="$T/sync" "$R" --oversubscribe -n $np "$W" wait > "$T/out" 2> "$T/err" &
job=$!
# every rank initialized and told its pid; the launcher's rendezvous file
for i in $(seq 600); do
    test $(ls "$T/sync" | grep -c '^pid\.') -eq $np && test -e "$TMPDIR/pmix.$host.tool.$job" &&
        break
    sleep 0.05
done
"$ST" --pid $job ps > "$T/ps" 2> "$T/ps.err"
"$ST" --pid $job query pmix.qry.lptable > "$T/lp" 2> "$T/lp.err"
touch "$T/sync/stop"
wait $job
rc=$?

check "the job of PMI-1 and PMI-2 wire ranks exits 0" "test $rc -eq 0"
check "every rank ok" "test \$(grep -c '^wire wait ok rank' '$T/out') -eq $np"
for r in $(seq 0 $((np - 1))); do
    pid=$(cat "$T/sync/pid.$r" 2> /dev/null)
    v=$((r % 2 + 1))
    check "PMI-$v rank $r in the process table: its pid $pid, this host, executing" \
        "grep -Eq '^ +$r +$pid +PROC EXECUTING +[0-9]+ +$host ' '$T/ps'"
    check "PMI-$v rank $r in the local process table: its pid $pid" \
        "grep -Eq ':$r pid $pid PROC EXECUTING ' '$T/lp'"
done
check "the process table lists $np ranks" \
    "test \$(grep -Ec '^ +[0-9]+ +[0-9]+ +PROC EXECUTING ' '$T/ps') -eq $np"
finish
