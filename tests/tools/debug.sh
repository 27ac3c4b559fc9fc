#!/bin/sh
# The debugger flows of the standard's tool chapter with real processes
# (tests/integration/test_debug.c): a system server (switchyard-run
# --system) to which a debugger connects; it spawns a job paused in
# PMIx_Init, at exec, or in the application, hears PMIX_READY_FOR_DEBUG,
# then spawns a debugger daemon beside the job, which finds its targets in
# the local process table and releases them (PMIX_DEBUGGER_RELEASE).  And a
# debugger beside a running job started by switchyard-run: daemons, one per
# process, for that job.  Every server is stopped by its pid.
set -u
NAME=debug-test NEED=tests/integration/test_debug
. "$(dirname "$0")/tool-lib.sh"
D=$(cd "$top_builddir/tests/integration" && pwd)/test_debug

# the system server, its output kept
timeout 300 "$R" --system --oversubscribe > "$T/sys.out" 2>&1 &
sys=$!
pids="$pids $sys"
for _ in $(seq 100); do ls "$TMPDIR"/pmix.sys.* > /dev/null 2>&1 && break; sleep 0.1; done

for mode in init exec app; do
    mkdir -p "$T/$mode"
    SY_DBG_DIR="$T/$mode" timeout 60 "$D" debugger $mode > "$T/dbg.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^debugger: ok$' "$T/dbg.out" &&
        [ -e "$T/$mode/past.0" ] && [ -e "$T/$mode/past.1" ]; then
        ok "paused $mode: ready event, daemon beside the job, released"
    else
        bad "paused $mode: status $rc"
        sed 's/^/#   /' "$T/dbg.out" | tail -8
        sed 's/^/#   sys: /' "$T/sys.out" | tail -8
    fi
done
if grep -q 'FAIL' "$T/sys.out"; then
    bad "targets and daemons under the system server"
    grep FAIL "$T/sys.out" | sed 's/^/#   /' | head -8
else
    ok "targets and daemons under the system server: no failure"
fi
c=$(grep -c '^daemon: ok$' "$T/sys.out")
if [ "$c" -eq 3 ]; then ok "one daemon per node, each found its paused targets"; else bad "$c daemons ok, not 3"; fi

kill -TERM $sys
wait $sys
rc=$?
if [ $rc -eq 0 ]; then ok "the system server stops on SIGTERM"; else bad "system server: status $rc"; fi

# beside a running job: daemons for it, one per process
mkdir -p "$T/attach"
rm -f "$T/stop"
"$R" --timeout 120 --oversubscribe -n 2 sh -c "while [ ! -e '$T/stop' ]; do sleep 0.1; done" \
    > "$T/job.out" 2>&1 &
job=$!
pids="$pids $job"
for _ in $(seq 100); do ls "$TMPDIR"/pmix.*.tool.$job > /dev/null 2>&1 && break; sleep 0.1; done
ns="switchyard.$job.1"
SY_DBG_DIR="$T/attach" timeout 60 "$D" attach $job "$ns" > "$T/att.out" 2>&1
rc=$?
touch "$T/stop"
wait $job
c=$(grep -c '^daemon: ok$' "$T/job.out")
if [ $rc -eq 0 ] && grep -q '^attach: ok$' "$T/att.out" && [ "$c" -eq 2 ]; then
    ok "attach: two daemons beside the running job, their end heard"
else
    bad "attach: status $rc, $c daemons ok"
    sed 's/^/#   /' "$T/att.out" "$T/job.out" | tail -8
fi

echo "1..$n"
test $fails -eq 0
