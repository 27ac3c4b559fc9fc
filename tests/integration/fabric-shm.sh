#!/bin/sh
# The last hop of a big matrix: a node server hands its client the cost
# matrix in a sealed memfd riding on the SY_CMD_FABRIC reply (SCM_RIGHTS),
# which the client maps read-only (docs/fabric.md, "Big fabrics").  Forced
# on a small fabric with the test-only threshold SWITCHYARD_FABRIC_SHM_MIN=0
# (the default is 8 MiB, the 14 MB case of fabric.sh takes it unforced):
#   - the whole matrix, mapped, = BFS; two PMIx_Fabric_update rounds, each
#     checked, with only the current matrix mapped;
#   - a subset of rows (PMIX_FABRIC_DEVICE_INDEX), mapped, = BFS;
#   - the same from the scheduler's own server to its client;
#   - a registration by value (SWITCHYARD_FABRIC_BY_VALUE) gets a byte
#     object copied from the mapping, nothing stays mapped;
#   - a client over TCP gets it by value, and in pieces when the reply is
#     longer than a frame (the job's SWITCHYARD_MAX_MSG_SIZE at 64 KiB);
#   - below the threshold the same matrix comes by value, same digest;
#   - after deregistration no memfd is open or mapped in the client or its
#     server, nothing new is in TMPDIR or /dev/shm;
#   - valgrind (when there and not a sanitizer build): no leak, no error.
set -u
: "${top_builddir:=.}"
B=$top_builddir
S="$B/tools/switchyard-sched"
D="$B/tests/integration"
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-fabshm.XXXXXX")
SPID=
cleanup() {
    test -n "$SPID" && kill "$SPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM
export TMPDIR="$T"
export FI_PROVIDER=tcp FI_TCP_IFACE=lo

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
show() { sed 's/^/#   /' "$1" | tail -15; }

# fattree K DOWN: a 3-level fat tree of K-port switches (K^3/4 devices);
# DOWN=1 takes one aggregation link of pod 1 down
fattree() {
    awk -v k="$1" -v down="$2" 'BEGIN { h = k / 2
    for (p = 0; p < k; p++) for (e = 0; e < h; e++) printf "switch e%d_%d level=0\n", p, e
    for (p = 0; p < k; p++) for (a = 0; a < h; a++) printf "switch a%d_%d level=1\n", p, a
    for (c = 0; c < h * h; c++) printf "switch c%d level=2\n", c
    d = 0
    for (p = 0; p < k; p++) for (e = 0; e < h; e++) for (i = 0; i < h; i++) {
        printf "device n%d host=n%d\nlink n%d e%d_%d\n", d, d, d, p, e; d++ }
    for (p = 0; p < k; p++) for (e = 0; e < h; e++) for (a = 0; a < h; a++)
        printf "link e%d_%d a%d_%d%s\n", p, e, p, a, (down && p == 1 && a == 0) ? " state=down" : ""
    for (p = 0; p < k; p++) for (a = 0; a < h; a++) for (j = 0; j < h; j++)
        printf "link a%d_%d c%d\n", p, a, a * h + j }'
}
# k=8: 128 devices (a 32 KiB matrix), one aggregation link down
fattree 8 1 > "$T/ft8.txt"

"$S" --listen "$T/s.sock" --topology "$T/ft8.txt" > "$T/sched.log" 2>&1 &
SPID=$!
i=0
while ! test -S "$T/s.sock" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done

outputs="whole.out rows.out sched-client.out bo.out tcp.out pieces.out ft12.txt s3.sock byvalue.out vg.out before.lst after.lst shm.before shm.after"
listing() { ls "$T" | grep -v -x $(for o in $outputs; do printf ' -e %s' "$o"; done); }
listing > "$T/before.lst"
ls /dev/shm > "$T/shm.before" 2>/dev/null
digest() { sed -n 's/^ok cost matrix of .* (fnv1a \([0-9a-f]*\))$/\1/p' "$1" | head -1; }
node() { # out-file env... -- program args
    out=$1
    shift
    env "$@" > "$out" 2>&1
}

node "$T/whole.out" SWITCHYARD_FABRIC_SHM_MIN=0 FABRIC_BFS_SHM=1 FABRIC_BFS_UPDATE=2 \
    FABRIC_BFS_LEAKS=1 "$S" --node "$T/s.sock" --hostname n7 --no-inventory -- \
    "$D/fabric_bfs" "$T/ft8.txt"; rw=$?
if [ $rw -eq 0 ] && [ "$(grep -c '^ok cost matrix of 128 devices' "$T/whole.out")" -eq 3 ] &&
        grep -q '^ok the matrix is mapped from shared memory' "$T/whole.out" &&
        grep -q '^ok update 2' "$T/whole.out"; then
    ok "whole matrix mapped from the server's memfd = BFS, and after two updates"
else bad "whole matrix by memfd (status $rw)"; show "$T/whole.out"; fi
if grep -q '^ok no memfd open or mapped in the client or its server' "$T/whole.out"; then
    ok "after deregistration no memfd open or mapped in the client or its node server"
else bad "memfd left open or mapped"; show "$T/whole.out"; fi

node "$T/rows.out" SWITCHYARD_FABRIC_SHM_MIN=0 FABRIC_BFS_SHM=1 FABRIC_BFS_LEAKS=1 \
    "$S" --node "$T/s.sock" --hostname n7 --no-inventory -- \
    "$D/fabric_bfs" "$T/ft8.txt" 127,0,64,5,33; rr=$?
if [ $rr -eq 0 ] && grep -q '^ok cost matrix of 5 devices' "$T/rows.out" &&
        grep -q '^ok the matrix is mapped from shared memory' "$T/rows.out" &&
        grep -q '^ok no memfd open' "$T/rows.out"; then
    ok "a subset of rows mapped from a memfd: their submatrix, in that order"
else bad "subset by memfd (status $rr)"; show "$T/rows.out"; fi

# a client of the scheduler's own server: the memfd is filled off its loop
node "$T/sched-client.out" SWITCHYARD_FABRIC_SHM_MIN=0 FABRIC_BFS_SHM=1 FABRIC_BFS_UPDATE=1 \
    FABRIC_BFS_LEAKS=1 "$S" --listen "$T/s2.sock" --topology "$T/ft8.txt" -- \
    "$D/fabric_bfs" "$T/ft8.txt"; rc2=$?
if [ $rc2 -eq 0 ] && grep -q '^ok the matrix is mapped from shared memory' "$T/sched-client.out" &&
        grep -q '^ok no memfd open' "$T/sched-client.out" &&
        test "$(digest "$T/sched-client.out")" = "$(digest "$T/whole.out")"; then
    ok "a client of the scheduler's server: mapped, the same bytes, nothing left"
else bad "client of the scheduler (status $rc2)"; show "$T/sched-client.out"; fi

# a registration by value (SWITCHYARD_FABRIC_BY_VALUE) gets a byte object
# copied from the mapping, which goes at once
node "$T/bo.out" SWITCHYARD_FABRIC_SHM_MIN=0 FABRIC_BFS_SHM=0 FABRIC_BFS_BYVALUE=1 \
    FABRIC_BFS_UPDATE=1 FABRIC_BFS_LEAKS=1 "$S" --node "$T/s.sock" --hostname n7 \
    --no-inventory -- "$D/fabric_bfs" "$T/ft8.txt"; rb=$?
if [ $rb -eq 0 ] && grep -q '^ok update 1' "$T/bo.out" && grep -q '^ok no memfd open' "$T/bo.out" &&
        test "$(digest "$T/bo.out")" = "$(digest "$T/whole.out")"; then
    ok "by value (SWITCHYARD_FABRIC_BY_VALUE): a byte object, nothing stays mapped"
else bad "by-value registration from a memfd (status $rb)"; show "$T/bo.out"; fi

# a client connected by TCP (no UNIX socket named in its environment) gets
# no descriptor: by value, whatever the threshold
node "$T/tcp.out" SWITCHYARD_FABRIC_SHM_MIN=0 FABRIC_BFS_SHM=0 FABRIC_BFS_LEAKS=1 \
    "$S" --node "$T/s.sock" --hostname n7 --no-inventory -- env -u SWITCHYARD_USOCK \
    "$D/fabric_bfs" "$T/ft8.txt"; rt=$?
if [ $rt -eq 0 ] && grep -q '^ok the matrix is a copy that came by value' "$T/tcp.out" &&
        test "$(digest "$T/tcp.out")" = "$(digest "$T/whole.out")"; then
    ok "a client over TCP: by value, the same bytes"
else bad "client over TCP (status $rt)"; show "$T/tcp.out"; fi

# a reply longer than a frame goes in pieces (SY_FRAME_F_MORE), which the
# client takes whole: a k=12 fat tree (432 devices, a 373 KB matrix) by
# value over TCP with the job's frame limit at 64 KiB
fattree 12 0 > "$T/ft12.txt"
node "$T/pieces.out" SWITCHYARD_MAX_MSG_SIZE=64K FABRIC_BFS_SHM=0 FABRIC_BFS_UPDATE=1 \
    FABRIC_BFS_LEAKS=1 "$S" --listen "$T/s3.sock" --topology "$T/ft12.txt" -- \
    env -u SWITCHYARD_USOCK "$D/fabric_bfs" "$T/ft12.txt"; rp=$?
if [ $rp -eq 0 ] && [ "$(grep -c '^ok cost matrix of 432 devices' "$T/pieces.out")" -eq 2 ] &&
        grep -q '^ok the matrix is a copy that came by value' "$T/pieces.out" &&
        grep -q '^ok update 1' "$T/pieces.out"; then
    ok "a reply longer than a frame, over TCP: in pieces, taken whole, = BFS, and after an update"
else bad "a reply in pieces (status $rp)"; show "$T/pieces.out"; fi

node "$T/byvalue.out" FABRIC_BFS_SHM=0 \
    "$S" --node "$T/s.sock" --hostname n7 --no-inventory -- "$D/fabric_bfs" "$T/ft8.txt"; rv=$?
if [ $rv -eq 0 ] && grep -q '^ok the matrix is a copy that came by value' "$T/byvalue.out" &&
        test -n "$(digest "$T/byvalue.out")" &&
        test "$(digest "$T/byvalue.out")" = "$(digest "$T/whole.out")"; then
    ok "below the threshold the matrix comes by value, the same bytes"
else bad "by value below the threshold (status $rv)"; show "$T/byvalue.out"; fi

if grep -q -e '--enable-sanitizers' -e '--enable-tsan' "$B/config.status" 2>/dev/null ||
    ! command -v valgrind > /dev/null; then
    echo "ok $((n + 1)) # SKIP valgrind (not installed, or a sanitizer build)"
    n=$((n + 1))
else
    node "$T/vg.out" SWITCHYARD_FABRIC_SHM_MIN=0 FABRIC_BFS_SHM=1 FABRIC_BFS_UPDATE=1 \
        "$S" --node "$T/s.sock" --hostname n7 --no-inventory -- valgrind -q \
        --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 \
        "$D/fabric_bfs" "$T/ft8.txt"; rg=$?
    if [ $rg -eq 0 ] && grep -q '^ok update 1' "$T/vg.out"; then
        ok "valgrind: mapped matrix, update, deregister, finalize: no leak, no error"
    else bad "valgrind (status $rg)"; show "$T/vg.out"; fi
fi

listing > "$T/after.lst"
ls /dev/shm > "$T/shm.after" 2>/dev/null
if cmp -s "$T/before.lst" "$T/after.lst" && cmp -s "$T/shm.before" "$T/shm.after"; then
    ok "nothing new in TMPDIR or /dev/shm"
else bad "files left behind"; diff "$T/before.lst" "$T/after.lst" | sed 's/^/#   /'
    diff "$T/shm.before" "$T/shm.after" | sed 's/^/#   /'; fi

kill -TERM "$SPID"
wait "$SPID"; rs=$?
SPID=
if [ $rs -eq 0 ]; then ok "the scheduler stops cleanly"
else bad "scheduler exit status $rs"; show "$T/sched.log"; fi

echo "1..$n"
test $fails -eq 0
