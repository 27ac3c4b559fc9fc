#!/bin/sh
# A tool starting switchyard-run as its intermediate launcher, the
# standard's "IL-based command line parsing" flow
# (tests/integration/test_spawn_tool.c): the launcher connects back,
# pauses in PMIx_tool_init until the tool releases it, takes the tool's
# PMIX_LAUNCH_DIRECTIVES, and reports the launch and the job's end; a tool
# that vanishes takes the launcher and its ranks with it (keepalive pipe).
set -u
NAME=spawn-tool NEED=tests/integration/test_spawn_tool
. "$(dirname "$0")/tool-lib.sh"
R=$(cd "$top_builddir/tools" && pwd)/switchyard-run
S=$(cd "$top_builddir/tests/integration" && pwd)/test_spawn_tool
on_exit() {
    for f in "$T"/*/past.*; do
        [ -f "$f" ] && kill -9 "$(cat "$f")" 2> /dev/null
    done
}

for mode in plain app-init; do
    mkdir -p "$T/$mode"
    timeout 90 "$S" initiator "$T/$mode" $mode -- "$R" -n 2 --oversubscribe \
        "$S" app "$T/$mode" > "$T/$mode.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^initiator: ok$' "$T/$mode.out" &&
        grep -q '^initiator: launcher held$' "$T/$mode.out" &&
        [ -s "$T/$mode/past.0" ] && [ -s "$T/$mode/past.1" ]; then
        ok "$mode: launcher held in init, released, launch complete, job end"
    else
        bad "$mode: status $rc"
        sed 's/^/#   /' "$T/$mode.out" | tail -40
    fi
done
if grep -q '^initiator: job held in init$' "$T/app-init.out"; then
    ok "launch directives: the job paused in PMIx_Init until released"
else
    bad "launch directives: the job did not pause"
fi

# the tool vanishes: the launcher stops its ranks and ends
mkdir -p "$T/vanish"
timeout 60 "$S" initiator "$T/vanish" vanish -- "$R" -n 2 --oversubscribe \
    "$S" app "$T/vanish" sleep > "$T/vanish.out" 2>&1
rc=$?
gone=no
if [ $rc -eq 0 ] && grep -q '^initiator: vanishing$' "$T/vanish.out"; then
    for _ in $(seq 100); do
        alive=0
        for f in "$T"/vanish/past.*; do
            kill -0 "$(cat "$f")" 2>/dev/null && alive=$((alive + 1))
        done
        pgrep -f "^$R -n 2 --oversubscribe $S app $T/vanish" > /dev/null || [ $alive -ne 0 ] ||
            { gone=yes; break; }
        sleep 0.1
    done
fi
if [ $gone = yes ]; then
    ok "the tool gone: its launcher and the ranks ended"
else
    bad "the tool gone: status $rc, launcher or ranks left"
    sed 's/^/#   /' "$T/vanish.out" | tail -8
fi
echo "1..$n"
[ $fails -eq 0 ]
