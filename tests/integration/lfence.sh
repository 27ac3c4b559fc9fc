#!/bin/sh
# The local fence (test_lfence.c): fences over a whole one-node job meet in
# the server's collective page.  Checked: many fences in a row, with and
# without collected data, the values read after each; Fence_nb mixed with
# Fence; a member killed while it waits, killed or finalizing while the
# others wait (PMIX_ERR_PARTIAL_SUCCESS, then the others fence on); a
# PMIX_TIMEOUT (PMIX_ERR_TIMEOUT, then a fence of all succeeds); and, from
# the server's debug log, which path was taken: blocking fences of our own
# clients send no FENCE (the server counts nobody in), a Fence_nb does,
# collecting fences take the data the server published as the last member
# committed, unless a member committed again (then the fence's end
# publishes it: every rank must read the new values),
# and SWITCHYARD_LOCAL_FENCE=0 puts every fence back on the collective
# engine.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
L="$top_builddir/tests/integration/test_lfence"
test -x "$L" || { echo "not built: $L"; exit 99; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-lfence.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export TMPDIR="$T"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
    n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
    sed 's/^/#   /' "$T/out"; grep -v ' debug: ' "$T/err" | sed 's/^/#   err: /' | head -20
}
# run MODE N: output in $T/out, the log in $T/err
run() { SWITCHYARD_LOG=debug "$L" "$1" "$2" > "$T/out" 2> "$T/err"; }
count() { grep -c "$1" "$2"; }
# the server's own arrivals, and fences run by the collective engine
srv() { count 'counted in by the server' "$T/err"; }
eng() { count 'debug: fence over' "$T/err"; }

# collecting fences the server ended itself, publishing at their end
atend() { count 'ends, data collected' "$T/err"; }
for N in 4 8; do
    run rounds $N; rc=$?
    # every client had the page mapped by its progress thread, asked for at Init
    ahead=$(count 'page mapped ahead' "$T/err")
    if test $rc -eq 0 && test "$(count ': rounds -> SUCCESS$' "$T/out")" -eq $N &&
        test "$(srv)" -eq 0 && test "$(eng)" -eq 0 && test "$(atend)" -eq 0 &&
        grep -q 'data published ahead' "$T/err" && test "$ahead" -eq $N; then
        ok "rounds N=$N: data right, no FENCE reached the server, data published ahead, page mapped ahead"
    else
        bad "rounds N=$N (rc $rc, server arrivals $(srv), engine fences $(eng), published at the end $(atend), mapped ahead $ahead)"
    fi
done
run recommit 4; rc=$?
# 6 rounds: a commit after the publication ahead makes the fence's end publish
if test $rc -eq 0 && test "$(count ': recommit -> SUCCESS$' "$T/out")" -eq 4 &&
    test "$(atend)" -eq 6; then
    ok "a commit after the publication ahead: the fence's end publishes it"
else
    bad "recommit (rc $rc, published at the end $(atend))"
fi
run listed 4; rc=$?
if test $rc -eq 0 && test "$(count ': rounds -> SUCCESS$' "$T/out")" -eq 4 && test "$(srv)" -eq 0; then
    ok "every rank listed: the local path"
else
    bad "listed (rc $rc, server arrivals $(srv))"
fi
run mixed 4; rc=$?
# 24 rounds, every third a Fence_nb: 8 x 4 arrivals counted in by the server
if test $rc -eq 0 && test "$(count ': rounds -> SUCCESS$' "$T/out")" -eq 4 &&
    test "$(srv)" -eq 32 && test "$(eng)" -eq 0; then
    ok "Fence_nb mixed with Fence: the server counts the Fence_nb ones in"
else
    bad "mixed (rc $rc, server arrivals $(srv), engine fences $(eng))"
fi
SWITCHYARD_LOCAL_FENCE=0 run rounds 4; rc=$?
if test $rc -eq 0 && test "$(count ': rounds -> SUCCESS$' "$T/out")" -eq 4 &&
    test "$(eng)" -gt 0 && ! grep -q 'local fence page' "$T/err"; then
    ok "SWITCHYARD_LOCAL_FENCE=0: the collective engine"
else
    bad "SWITCHYARD_LOCAL_FENCE=0 (rc $rc, engine fences $(eng))"
fi
for how in kill-wait kill-during finalize-during die-before-count die-before-confirm; do
    run $how 4; rc=$?
    if test $rc -eq 0 && test "$(count ': first -> PARTIAL SUCCESS$' "$T/out")" -eq 3 &&
        test "$(count ': second -> PARTIAL SUCCESS$' "$T/out")" -eq 3 &&
        test "$(count ': third -> PARTIAL SUCCESS$' "$T/out")" -eq 3; then
        ok "$how: the others end with PARTIAL SUCCESS and fence on"
    else
        bad "$how (rc $rc)"
    fi
done
run timeout 4; rc=$?
if test $rc -eq 0 && test "$(count ': first -> TIMEOUT$' "$T/out")" -eq 3 &&
    test "$(count ': second -> SUCCESS$' "$T/out")" -eq 4; then
    ok "PMIX_TIMEOUT: the waiters time out, the next fence of all succeeds"
else
    bad "timeout (rc $rc)"
fi
echo "1..$n"
test $fails -eq 0
