#!/bin/sh
# Shell test of tools/switchyard-run with real PMIx clients: a multi-app
# job's output, exit statuses (failure, signal, timeout, missing program),
# --tag-output, --output-dir, -x/--env, PMIx_Abort killing the job, a
# refused oversubscription, the API families served through the launcher
# (publish/lookup, query/log/job control, modex, groups, process sets,
# credentials, allocations, events), and no file left in /tmp by the
# server.
set -u
NAME=run-test NEED=tools/examples/pmix-hello
. "$(dirname "$0")/tool-lib.sh"
H="$top_builddir/tools/examples/pmix-hello"
C="$top_builddir/tests/integration/test_client"

"$R" --oversubscribe -n 2 "$H" : -n 1 "$H" > "$T/out" 2> "$T/err"
rc=$?
check "multi-app job exits 0" "test $rc -eq 0"
check "three hello lines" "test \$(grep -c '^hello from switchyard' '$T/out') -eq 3"
check "app 1 of 2 is rank 2" "grep -q 'rank 2 of 3: app 1 of 2' '$T/out'"
check "local peers registered" "grep -q 'peers 0,1,2' '$T/out'"

"$R" -n 1 sh -c 'exit 3' 2> "$T/err"
rc=$?
check "a failing rank's status is the job's" "test $rc -eq 3"
check "the failure is explained" "grep -q 'rank 0 (sh, pid [0-9]*) exited with status 3' '$T/err'"

"$R" --oversubscribe -n 3 sh -c 'if [ "$PMIX_RANK" = 1 ]; then kill -9 $$; fi; sleep 30' 2> "$T/err"
rc=$?
check "a killed rank: 128+9, the others stopped" "test $rc -eq 137"
check "the signal is named" "grep -q 'rank 1 .* killed by signal 9' '$T/err'"

"$R" --timeout 1 -n 1 sleep 30 2> "$T/err"
rc=$?
check "timeout: 124" "test $rc -eq 124"

"$R" -n 1 /nonexistent/program 2> "$T/err"
rc=$?
check "missing program: 127 with a message" "test $rc -eq 127 && grep -q 'cannot start /nonexistent/program' '$T/err'"

"$R" --oversubscribe --tag-output -n 2 sh -c 'echo out; echo err >&2; printf partial' > "$T/out" 2> "$T/err"
check "tag-output on stdout" "grep -q '^\[switchyard\.[0-9]*\.1,1\]<stdout>: out$' '$T/out'"
check "tag-output on stderr" "grep -q '^\[switchyard\.[0-9]*\.1,0\]<stderr>: err$' '$T/err'"
check "an unterminated last line is not lost" "test \$(grep -c '<stdout>: partial$' '$T/out') -eq 2"

"$R" --oversubscribe --output-dir "$T/od" -n 2 sh -c 'echo to-file $PMIX_RANK' > /dev/null
check "output-dir files" "grep -q 'to-file 1' '$T/od/0/rank.1/stdout'"

FOO=from-env "$R" -x FOO --env BAR=set -n 1 sh -c 'echo "$FOO $BAR"' > "$T/out"
check "-x and --env" "grep -q '^from-env set$' '$T/out'"

"$R" -n 1 sh -c 'yes line | head -n 200000' > "$T/out"
check "nothing lost from a process that writes a lot and exits" "test \$(wc -l < '$T/out') -eq 200000"

"$R" -n 64 true 2> "$T/err"
rc=$?
check "oversubscription refused without --oversubscribe" "test $rc -ne 0 && grep -q 'oversubscribe' '$T/err'"

if test -x "$C"; then
    "$R" -n 1 "$C" abort 2> "$T/err"
    rc=$?
    check "PMIx_Abort ends the job with its status" "test $rc -eq 7 && grep -q 'called PMIx_Abort with status 7' '$T/err'"
fi

P="$top_builddir/tests/integration/test_pubsub"
if test -x "$P"; then
    "$R" --oversubscribe -n 2 "$P" > "$T/out" 2> "$T/err"
    rc=$?
    check "publish/lookup (wait, timeout, ranges, duplicate, unpublish)" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 2"
fi

O="$top_builddir/tests/integration/test_hostops"
if test -x "$O"; then
    "$R" --oversubscribe -n 2 "$O" "$T/cleanme" > "$T/out" 2> "$T/err"
    rc=$?
    check "query + job control: rank 1 killed by rank 0's request" "test $rc -eq 137 && grep -q 'rank 1 .* killed by signal 9' '$T/err' && ! grep -q FAIL '$T/err'"
    check "PMIx_Log to stdout" "grep -q 'hostops log line' '$T/out'"
    check "PMIX_REGISTER_CLEANUP file removed" "test ! -e '$T/cleanme'"
    "$R" -n 1 "$O" monitor > "$T/out" 2> "$T/err"
    rc=$?
    check "heartbeat monitoring: missed beats raise the alert" "test $rc -eq 0 && grep -q 'monitor: ok' '$T/out'"
    SPAWNENV="-x SY_FROM_LAUNCHER=yes --env SY_BOTH=launcher"
    "$R" $SPAWNENV --oversubscribe -n 1 "$O" spawn > "$T/out" 2> "$T/err"
    rc=$?
    check "PMIx_Spawn: a child job with PMIX_SPAWNED, its parent, -x/--env and its app's env, waited for" "test $rc -eq 0 && grep -q 'spawn: ok' '$T/out' && test \$(grep -c 'child [01]: ok' '$T/out') -eq 2 && ! grep -q FAIL '$T/err'"
    "$R" $SPAWNENV --oversubscribe -n 1 "$O" spawn fail > "$T/out" 2> "$T/err"
    rc=$?
    check "a spawned process failing ends the job with its status" "test $rc -eq 5 && grep -q 'rank 1 of spawned job .* exited with status 5' '$T/err' && ! grep -q FAIL '$T/err'"
fi

M="$top_builddir/tests/integration/test_modex"
if test -x "$M"; then
    "$R" --oversubscribe -n 3 "$M" exchange > "$T/out" 2> "$T/err"
    rc=$?
    check "Put/Commit/Fence/direct modex between 3 ranks" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 3"
    "$R" --oversubscribe -n 3 "$M" connect > "$T/out" 2> "$T/err"
    rc=$?
    check "PMIx_Connect / PMIx_Disconnect between 3 ranks" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 3"
    "$R" --oversubscribe -n 3 "$M" fence-kill > "$T/out" 2> "$T/err"
    rc=$?
    check "a rank killed in a fence: the others' fence ends (partial), no hang" "test $rc -eq 137 && test \$(grep -c 'fence ended without the dead rank' '$T/out') -eq 2"
    "$R" --oversubscribe --timeout 120 -n 3 "$M" fence-finalize > "$T/out" 2> "$T/err"
    rc=$?
    check "a rank that finalizes inside a fence: the others' fence completes (partial)" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 3"
    "$R" --oversubscribe --timeout 300 -n 3 "$M" fence-many > "$T/out" 2> "$T/err"
    rc=$?
    check "300 fences: latest values, covered segments retired" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 3"
fi

D="$top_builddir/tests/integration/test_distances"
if test -x "$D"; then
    "$R" -n 2 "$D" > "$T/out" 2> "$T/err"
    rc=$?
    check "PMIX_DEVICE_DISTANCES of bound ranks" "test $rc -eq 0 && test \$(grep -c ': ok' '$T/out') -eq 2"
    "$R" --oversubscribe -n 3 "$D" > "$T/out" 2> "$T/err"
    rc=$?
    check "PMIX_DEVICE_DISTANCES of unbound ranks" "test $rc -eq 0 && test \$(grep -c ': ok' '$T/out') -eq 3"
fi

G="$top_builddir/tests/integration/test_groups"
if test -x "$G"; then
    "$R" --oversubscribe -n 3 "$G" construct > "$T/out" 2> "$T/err"
    rc=$?
    check "group construct/destruct with and without a context id, data, queries, fence over a group" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 3"
    "$R" --oversubscribe -n 3 "$G" invite > "$T/out" 2> "$T/err"
    rc=$?
    check "group invite: one accepts, one declines, the leader hears both; leave; destruct" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 3"
    for m in die-error die-notify die-abort die-leader; do
        "$R" --oversubscribe -n 3 "$G" $m > "$T/out" 2> "$T/err"
        rc=$?
        check "group member killed during construct ($m)" "test $rc -eq 137 && test \$(grep -c ': ok$' '$T/out') -eq 2 && ! grep -q FAIL '$T/err'"
    done
fi

S="$top_builddir/tests/integration/test_sets_creds"
if test -x "$S"; then
    "$R" --oversubscribe --pset ocean -n 2 "$S" psets : --pset ice -n 1 "$S" psets > "$T/out" 2> "$T/err"
    rc=$?
    check "--pset: process sets, their events, PMIx_Get(PMIX_PSET_NAMES), pset queries" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 3"
    # (no munged: the server's own native credentials)
    SWITCHYARD_MUNGE_SOCKET="$T/no-munged" "$R" --oversubscribe -n 2 "$S" cred > "$T/out" 2> "$T/err"
    rc=$?
    check "native credentials: get, validate, a peer's, tampered ones refused, keys" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 2"
    "$R" -n 1 "$S" alloc > "$T/out" 2> "$T/err"
    rc=$?
    check "allocation requests: this node described, growth refused, time granted" "test $rc -eq 0 && grep -q ': ok$' '$T/out'"
fi

E="$top_builddir/tests/integration/test_events"
if test -x "$E"; then
    "$R" --oversubscribe -n 3 "$E" > "$T/out" 2> "$T/err"
    rc=$?
    check "event ordering, chaining, ranges, PROC_TERMINATED of a dead rank" "test $rc -eq 137 && test \$(grep -c ': ok$' '$T/out') -eq 2 && ! grep -q FAIL '$T/err'"
    "$R" -n 2 "$E" storm > "$T/out" 2> "$T/err"
    rc=$?
    check "handlers registered while events arrive: each event once, live or replayed" "test $rc -eq 0 && test \$(grep -c ': ok$' '$T/out') -eq 2"
    "$R" -n 1 "$E" lost "$T/lost" "$T/ready" > /dev/null 2>&1 &
    rpid=$!
    for i in $(seq 100); do test -e "$T/ready" && break; sleep 0.05; done
    kill -9 $rpid
    wait $rpid 2>/dev/null
    for i in $(seq 100); do test -s "$T/lost" && break; sleep 0.05; done
    check "server killed: the held calls fail and LOST_CONNECTION is delivered" "grep -q 'lookup=LOST.CONNECTION event=1 get=LOST.CONNECTION' '$T/lost'"
    # the launcher died without cleaning: its private tmpdir is left behind
    rm -rf "$TMPDIR"/switchyard* "$TMPDIR"/pmix.*
fi

# a working directory the rank cannot enter: the launcher says so (the
# child has no output of its own yet) and the job fails
"$R" -n 1 --wdir "$T/no-such-dir" /bin/true > /dev/null 2> "$T/err"
rc=$?
check "--wdir that cannot be entered: the launcher names it, the job fails" "test $rc -ne 0 && grep -q 'cannot enter $T/no-such-dir' '$T/err'"

# Ctrl-C: the whole job goes, the exit status says so, nothing is left
"$R" --oversubscribe -n 2 sh -c "echo \$\$ > '$T/started.'\$PMIX_RANK; exec sleep 30" > /dev/null 2> "$T/err" &
rpid=$!
# the processes run, so the launcher's handlers are in place
for i in $(seq 200); do test -e "$T/started.0" && test -e "$T/started.1" && break; sleep 0.05; done
kill -INT $rpid
wait $rpid
rc=$?
check "SIGINT kills the job: 130 and a message" "test $rc -eq 130 && grep -q 'interrupted by signal 2' '$T/err'"
# (only our own sleeps: other test runs may be using the machine)
kill -9 $(cat "$T"/started.* 2> /dev/null) 2> /dev/null

left=$(ls -A "$TMPDIR")
check "no file left in TMPDIR" "test -z '$left'"
echo "1..$n"
test $fails -eq 0
