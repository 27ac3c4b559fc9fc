#!/bin/sh
# The scheduler role across processes: switchyard-sched serves a topology
# file; two node daemons (separate processes, each a non-scheduler PMIx
# server) forward their clients' fabric requests to it and get their jobs'
# fabric data through setup_application / setup_local_support.
#   - clients on both nodes receive the matrix, groups, coordinates, ...
#   - refused requests;
#   - a standard-API-only program checks the cost matrix against its own
#     BFS, by value on a node and by pointer in the scheduler's process
#     (where a device on two switches must not carry traffic between them);
#   - a matrix above one link chunk: in shared memory to a node on this
#     host (nothing left behind), in chunks over TCP (encoded, and raw
#     with --encode no), the same bytes;
#   - without the engine module: a clear message and status, no crash;
#   - a topology change: PENDING -> (handler completes) -> UPDATED, with the
#     old data before and the new data after;
#   - register/update/deregister rounds leave no leak (valgrind, or LSan in
#     the sanitizer build).
set -u
: "${top_builddir:=.}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
B=$top_builddir
S="$B/tools/switchyard-sched"
D="$B/tests/integration"
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-fabric.XXXXXX")
SPID=
cleanup() {
    test -n "$SPID" && kill "$SPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM
# hwloc 2.9's PCI discovery (the node inventory) leaks once per topology
# load inside a plugin; only that is suppressed (tests/tools/run.sh).
printf 'leak:hwloc_topology_load\n' > "$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# a deterministic, quick libfabric on any machine
export FI_PROVIDER=tcp FI_TCP_IFACE=lo
export TMPDIR="$T"

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
show() { sed 's/^/#   /' "$1" | tail -15; }

cat > "$T/topo1.txt" <<'EOT'
switch s0 level=0
switch s1 level=0
switch sp level=1
device a0 host=nodeA
device a1 host=nodeA
device b0 host=nodeB
device b1 host=nodeB
link a0 s0
link a1 s0
link b0 s1
link b1 s1
link s0 sp
link s1 sp
EOT
cp "$T/topo1.txt" "$T/topo.txt"

"$S" --listen "$T/s.sock" --topology "$T/topo.txt" --watch 0.2 > "$T/sched.log" 2>&1 &
SPID=$!

node() { # hostname out-file program args...
    h=$1 out=$2
    shift 2
    "$S" --node "$T/s.sock" --hostname "$h" -- "$@" > "$out" 2>&1
}

# two node daemons at once
node nodeA "$T/a.out" "$D/test_fabric" node nodeA &
pa=$!
node nodeB "$T/b.out" "$D/test_fabric" node nodeB &
pb=$!
wait $pa; ra=$?
wait $pb; rb=$?
if [ $ra -eq 0 ] && [ "$(grep -c '^ok' "$T/a.out")" -eq 4 ]; then
    ok "node A: fabric by value, devices, coordinates, peers, endpoints, deregister"
else bad "node A (status $ra)"; show "$T/a.out"; fi
if [ $rb -eq 0 ] && [ "$(grep -c '^ok' "$T/b.out")" -eq 4 ]; then
    ok "node B: the same from the other node"
else bad "node B (status $rb)"; show "$T/b.out"; fi

if node nodeA "$T/bad.out" "$D/test_fabric" bad && grep -q '^ok' "$T/bad.out"; then
    ok "refused requests"
else bad "refused requests"; show "$T/bad.out"; fi

if node nodeB "$T/bfs1.out" "$D/fabric_bfs" "$T/topo.txt" && grep -q '^ok' "$T/bfs1.out"; then
    ok "standard-API program: matrix (by value on a node) = BFS"
else bad "BFS on a node"; show "$T/bfs1.out"; fi

# two rails (two planes), a down link, in the scheduler's own process
awk 'BEGIN {
    for (r = 0; r < 2; r++) {
        for (s = 0; s < 2; s++) printf "switch r%dspine%d level=1\n", r, s
        for (l = 0; l < 4; l++) printf "switch r%dleaf%d level=0\n", r, l
        for (d = 0; d < 16; d++) printf "device r%dn%d host=h%d\n", r, d, d
        for (l = 0; l < 4; l++) for (s = 0; s < 2; s++)
            printf "link r%dleaf%d r%dspine%d%s\n", r, l, r, s, (r == 0 && l == 0 && s == 0) ? " state=down" : ""
        for (d = 0; d < 16; d++) printf "link r%dn%d r%dleaf%d\n", r, d, r, int(d / 4)
    }
    # r1z is reachable from the rest of rail 1 only through the device r1y
    print "switch r1edge level=0"
    print "device r1y host=hy"
    print "device r1z host=hz"
    print "link r1y r1leaf3"
    print "link r1y r1edge"
    print "link r1z r1edge"
}' > "$T/rails.txt"
if "$S" --listen "$T/s2.sock" --topology "$T/rails.txt" -- "$D/fabric_bfs" "$T/rails.txt" \
        > "$T/bfs2.out" 2>&1 && grep -q '^ok' "$T/bfs2.out"; then
    ok "standard-API program: matrix (pointer in the scheduler) = BFS, two planes"
else bad "BFS in the scheduler"; show "$T/bfs2.out"; fi

# a fabric whose matrix is larger than one link chunk (8 MiB): k=22 fat
# tree, 2,662 devices, 14 MB.  A node daemon on this host (UNIX socket)
# maps it from a sealed memfd the scheduler passes; a node over TCP gets
# it in chunks; both hand it to their client, whose BFS and digest agree.
# A subset of rows (PMIX_FABRIC_DEVICE_INDEX) comes the same way.
awk -v k=22 'BEGIN { h = k / 2
    for (p = 0; p < k; p++) for (e = 0; e < h; e++) printf "switch e%d_%d level=0\n", p, e
    for (p = 0; p < k; p++) for (a = 0; a < h; a++) printf "switch a%d_%d level=1\n", p, a
    for (c = 0; c < h * h; c++) printf "switch c%d level=2\n", c
    d = 0
    for (p = 0; p < k; p++) for (e = 0; e < h; e++) for (i = 0; i < h; i++) {
        printf "device n%d host=n%d\nlink n%d e%d_%d\n", d, d, d, p, e; d++ }
    for (p = 0; p < k; p++) for (e = 0; e < h; e++) for (a = 0; a < h; a++)
        printf "link e%d_%d a%d_%d%s\n", p, e, p, a, (p == 1 && a == 0) ? " state=down" : ""
    for (p = 0; p < k; p++) for (a = 0; a < h; a++) for (j = 0; j < h; j++)
        printf "link a%d_%d c%d\n", p, a, a * h + j }' > "$T/big.txt"
# --shm always: the default (auto) takes it only where shared memory gets
# huge pages, which a test machine may not give
"$S" --listen "$T/s4.sock" --topology "$T/big.txt" --shm always > "$T/sched4.log" 2>&1 &
S4=$!
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
    test -S "$T/s4.sock" && break
    sleep 0.5
done
listing() { ls "$T" | grep -v -x -e big.out -e rows.out -e rows2.out -e before.lst -e after.lst; }
listing > "$T/before.lst"
digest() { sed -n 's/^ok cost matrix of .* (fnv1a \([0-9a-f]*\))$/\1/p' "$1"; }
if FABRIC_BFS_SHM=1 "$S" --node "$T/s4.sock" --hostname n7 --no-inventory --verbose -- \
        "$D/fabric_bfs" "$T/big.txt" > "$T/big.out" 2>&1 &&
        grep -q '^ok cost matrix of 2662 devices' "$T/big.out" &&
        grep -q 'a matrix of 14172488 bytes mapped from shared memory' "$T/big.out" &&
        grep -q '^ok the matrix is mapped from shared memory' "$T/big.out"; then
    ok "a 14 MB matrix in shared memory to a node on this host, and on to its client = BFS"
else bad "matrix by shared memory"; show "$T/big.out"; fi
if "$S" --node "$T/s4.sock" --hostname n7 --no-inventory --verbose -- "$D/fabric_bfs" \
        "$T/big.txt" 2661,0,1000,121,122,5 > "$T/rows.out" 2>&1 &&
        grep -q '^ok cost matrix of 6 devices' "$T/rows.out"; then
    ok "a subset of rows (PMIX_FABRIC_DEVICE_INDEX): their submatrix, in that order"
else bad "subset of rows"; show "$T/rows.out"; fi
# a subset above one chunk (2,100 rows, 8.8 MB, backwards) by shared memory
ROWS=$(seq 2661 -1 562 | paste -s -d, -)
if "$S" --node "$T/s4.sock" --hostname n7 --no-inventory --verbose -- "$D/fabric_bfs" \
        "$T/big.txt" "$ROWS" > "$T/rows2.out" 2>&1 &&
        grep -q '^ok cost matrix of 2100 devices' "$T/rows2.out" &&
        grep -q 'a matrix of 8820000 bytes mapped from shared memory' "$T/rows2.out"; then
    ok "a subset of 2,100 rows (8.8 MB) by shared memory: their submatrix"
else bad "big subset of rows by shared memory"; show "$T/rows2.out"; fi
# nothing of the shared memory stays: no memfd open or mapped in the
# scheduler, no new name in TMPDIR (but the outputs) or /dev/shm
listing > "$T/after.lst"
if ! ls -l "/proc/$S4/fd" | grep -q memfd && ! grep -q memfd "/proc/$S4/maps" &&
        ! ls /dev/shm | grep -q switchyard && cmp -s "$T/before.lst" "$T/after.lst"; then
    ok "no shared memory left behind (scheduler's descriptors and mappings, /dev/shm, TMPDIR)"
else bad "shared memory left behind"; ls -l "/proc/$S4/fd" | sed 's/^/#   /'
    diff "$T/before.lst" "$T/after.lst" | sed 's/^/#   /'; fi
kill "$S4"
wait "$S4" 2>/dev/null
# the same fabric to a node over TCP: chunks, the same bytes; encoded
# (runs, palettes) when both sides know the encoding, raw with --encode no
head -c 64 /dev/urandom > "$T/key"
chmod 600 "$T/key"
tcp_round() { # $1: label, $2: --encode value
    for port in $((20000 + $$ % 20000)) $((21000 + $$ % 19000)) $((22000 + $$ % 18000)); do
        "$S" --listen "tcp://127.0.0.1:$port" --auth key --key-file "$T/key" --verbose \
            --encode "$2" --topology "$T/big.txt" > "$T/sched5$1.log" 2>&1 &
        S5=$!
        sleep 0.5
        if kill -0 "$S5" 2>/dev/null; then break; fi
        wait "$S5" 2>/dev/null
    done
    "$S" --node "tcp://127.0.0.1:$port" --auth key --key-file "$T/key" --hostname n7 \
        --no-inventory --verbose -- "$D/fabric_bfs" "$T/big.txt" > "$T/tcp$1.out" 2>&1
    rc5=$?
    kill "$S5"
    wait "$S5" 2>/dev/null
}
tcp_round enc yes
if [ $rc5 -eq 0 ] && grep -q '^ok cost matrix of 2662 devices' "$T/tcpenc.out" &&
        ! grep -q 'shared memory' "$T/tcpenc.out" && test -n "$(digest "$T/tcpenc.out")" &&
        test "$(digest "$T/tcpenc.out")" = "$(digest "$T/big.out")" &&
        enc=$(sed -n 's/.*14172488 matrix bytes, encoded chunks: \([0-9]*\) bytes).*/\1/p' \
            "$T/sched5enc.log") && test -n "$enc" && test "$enc" -lt 1417248 &&
        ! grep -q 'syfab.cm' "$T/tcpenc.out"; then
    ok "over TCP the matrix comes in encoded chunks ($enc bytes), identical to the shared-memory one"
else bad "encoded chunks over TCP"; show "$T/tcpenc.out"; show "$T/sched5enc.log"; fi
tcp_round raw no
if [ $rc5 -eq 0 ] && grep -q '^ok cost matrix of 2662 devices' "$T/tcpraw.out" &&
        test "$(digest "$T/tcpraw.out")" = "$(digest "$T/big.out")" &&
        grep -q 'answered request .* matrix bytes)' "$T/sched5raw.log" &&
        ! grep -q 'encoded chunks' "$T/sched5raw.log"; then
    ok "with --encode no the chunks are raw, the same bytes"
else bad "raw chunks over TCP"; show "$T/tcpraw.out"; show "$T/sched5raw.log"; fi

# the engine module missing: the scheduler cannot serve and says why; a
# node daemon cannot collect its inventory but still serves its client
NOMOD="$T/no-such-module.so"
SWITCHYARD_LOG=warn SWITCHYARD_FABRIC_MODULE="$NOMOD" \
    "$S" --listen "$T/s3.sock" --topology "$T/topo1.txt" > "$T/nomod1.out" 2>&1; rm1=$?
if [ $rm1 -eq 1 ] && grep -q "fabric engine module.*cannot be loaded: $NOMOD" "$T/nomod1.out" &&
        grep -q "the fabric cannot be served: .*NOT_AVAILABLE" "$T/nomod1.out"; then
    ok "scheduler without the engine module: refused with a message (status $rm1)"
else bad "scheduler without the engine module (status $rm1)"; show "$T/nomod1.out"; fi
if SWITCHYARD_FABRIC_MODULE="$NOMOD" "$S" --node "$T/s.sock" --hostname nodeB -- \
        "$D/fabric_bfs" "$T/topo.txt" > "$T/nomod2.out" 2>&1 &&
        grep -q "inventory: .*NOT_AVAILABLE" "$T/nomod2.out" && grep -q '^ok' "$T/nomod2.out"; then
    ok "node daemon without the engine module: inventory refused, fabric served"
else bad "node daemon without the engine module"; show "$T/nomod2.out"; fi

# a topology change while a client holds the fabric
node nodeA "$T/ev.out" "$D/test_fabric" events &
pe=$!
i=0
while ! grep -q '^ready' "$T/ev.out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sed 's/^link s1 sp$/link s1 sp state=down/' "$T/topo1.txt" > "$T/topo.new"
mv "$T/topo.new" "$T/topo.txt"
wait $pe; re=$?
if [ $re -eq 0 ] && grep -q '^ok events' "$T/ev.out"; then
    ok "PENDING -> handler completes -> UPDATED, old data before, new after"
else bad "update events (status $re)"; show "$T/ev.out"; fi

# endpoints: a link going down changes no endpoint; a device coming does,
# and PMIX_FABRIC_UPDATE_ENDPOINTS reaches the node's client
cp "$T/topo1.txt" "$T/topo-ep.txt"
"$S" --listen "$T/s5.sock" --topology "$T/topo-ep.txt" --watch 0.2 > "$T/sched5.log" 2>&1 &
S5=$!
"$S" --node "$T/s5.sock" --hostname nodeA -- "$D/fabric_endpts" "$T/ep.stop" > "$T/ep.out" 2>&1 &
pep=$!
i=0
while ! grep -q '^ready' "$T/ep.out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sed 's/^link s1 sp$/link s1 sp state=down/' "$T/topo1.txt" > "$T/ep.new" && mv "$T/ep.new" "$T/topo-ep.txt"
i=0
while ! grep -q '^updated 1' "$T/ep.out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
pre=$(grep -c '^endpoints' "$T/ep.out")
{ sed 's/^link s1 sp$/link s1 sp state=down/' "$T/topo1.txt"; echo "device a2 host=nodeA"; echo "link a2 s0"; } > "$T/ep.new"
mv "$T/ep.new" "$T/topo-ep.txt"
i=0
while ! grep -q '^endpoints 1' "$T/ep.out" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
touch "$T/ep.stop"
wait $pep; rep=$?
kill "$S5"
wait "$S5" 2>/dev/null
if [ $rep -eq 0 ] && grep -q '^updated 2' "$T/ep.out" &&
        [ "$(grep -c '^endpoints' "$T/ep.out")" -eq 1 ] && [ "$pre" -eq 0 ] &&
        grep -q '^endpoints 1 (PMIX_FABRIC_ENDPT: SUCCESS)' "$T/ep.out"; then
    ok "PMIX_FABRIC_UPDATE_ENDPOINTS when a device comes, not when a link goes down"
else bad "endpoint updates (status $rep)"; show "$T/ep.out"; fi

if grep -q -e '--enable-sanitizers' -e '--enable-tsan' "$B/config.status" 2>/dev/null ||
    ! command -v valgrind >/dev/null; then
    node nodeB "$T/leak.out" "$D/test_fabric" leak 20; rl=$?
else
    node nodeB "$T/leak.out" valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
        --error-exitcode=9 "$D/test_fabric" leak 5; rl=$?
fi
if [ $rl -eq 0 ] && grep -q '^ok' "$T/leak.out"; then
    ok "register/update/deregister leave no leak"
else bad "leak check (status $rl)"; show "$T/leak.out"; fi

# the scheduler role in one process: selection, local updates, setup
# calls, distances (the fabric file as it is now: s1-sp down, then up again)
cp "$T/topo1.txt" "$T/topo-sched.txt"
if "$D/test_fabric_sched" "$T/topo-sched.txt" "$top_srcdir/tests/fabric/data/hwloc_2pkg_ib.xml" \
        > "$T/sched1.out" 2>&1 && [ "$(grep -c "^ok" "$T/sched1.out")" -eq 7 ]; then
    ok "scheduler process: selection, update events, held requests, setup_application/local_support, distances, inventory"
else bad "scheduler process"; show "$T/sched1.out"; fi

kill -TERM "$SPID"
wait "$SPID"; rs=$?
SPID=
if [ $rs -eq 0 ]; then ok "the scheduler stops cleanly"
else bad "scheduler exit status $rs"; show "$T/sched.log"; fi

echo "1..$n"
test $fails -eq 0
