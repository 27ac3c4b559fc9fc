#!/bin/sh
# The server's resource limits, with real processes under switchyard-run
# (tests/integration/test_limits.c):
#   - at the descriptor limit (soft `ulimit -n 64`, 100 idle connections)
#     the server does not spin on accept: over 3 s at the limit the
#     launcher uses less than a quarter of a CPU (a spin uses a whole one)
#     and writes fewer than 100 lines (a spin wrote hundreds of thousands),
#     one of them the accept failure; the connected rank's requests are
#     answered meanwhile, and a rank that connects after the flood is
#     accepted;
#   - a frame longer than the per-peer input limit drops the peer with one
#     log line (SWITCHYARD_MAX_MSG_SIZE=1M and a 2 MiB claim; the default
#     limit and a 4 GiB claim), and a claim under the limit does not make
#     the server allocate it (its virtual size grows by far less than the
#     200 MiB claimed while 1 MiB of it arrived); the rank's own
#     connection is served afterwards;
#   - PMIx_Spawn's bad requests get their status and never fail the parent
#     job (no program, a missing one, one not executable, one that fails
#     to start, maxprocs 0 and -3, a bad env entry, a missing working
#     directory); 100,000 processes are refused, by the slot rule without
#     --oversubscribe and by --max-procs with it;
#   - SIGTERM while a spawn of 400 processes is being launched stops the
#     launcher before it started them all (they start in batches, the loop
#     sees the signal), and no process it started is left; the same for a
#     plain job of sleeping ranks.
# CPU and line counts are bounds that a spin breaks by orders of
# magnitude, not timings.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
R="$top_builddir/tools/switchyard-run"
L="$top_builddir/tests/integration/test_limits"
for f in "$R" "$L"; do
    test -x "$f" || { echo "not built: $f"; exit 99; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-limits.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
# Under ASan: hwloc's PCI discovery leaks in the server (as in run.sh).
printf 'leak:hwloc_topology_load\n' > "$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
unset SWITCHYARD_MAX_MSG_SIZE SWITCHYARD_LOG SWITCHYARD_LOG_RATE
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; sed 's/^/#   /' "$T/err" | head -20; fi; }

# user+system CPU ticks of a process
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# ---- the descriptor limit ----
(ulimit -S -n 64 && exec "$R" --oversubscribe -n 2 "$L" fdflood 100 "$T/ready" "$T/go") \
    > "$T/out" 2> "$T/err" &
rpid=$!
for i in $(seq 600); do test -e "$T/ready" && break; sleep 0.05; done
if test -e "$T/ready"; then
    t0=$(ticks $rpid)
    sleep 3
    t1=$(ticks $rpid)
    cpu=$(( (t1 - t0) * 100 / ($(getconf CLK_TCK) * 3) ))
else
    cpu=999
fi
touch "$T/go"
wait $rpid
rc=$?
lines=$(wc -l < "$T/err")
echo "# at the limit: ${cpu}% of a CPU, $lines lines on stderr"
check "fd limit: the flood ran and both ranks passed" "test $rc -eq 0 && test \$(grep -c 'fdflood rank [01]: ok' '$T/out') -eq 2 && grep -q '100 of 100 connections opened' '$T/out'"
check "fd limit: the server hit the limit and said so once" "test \$(grep -c 'accept failed.*Too many open files' '$T/err') -eq 1"
check "fd limit: no spin (${cpu}% < 25% of a CPU)" "test $cpu -lt 25"
check "fd limit: no log flood ($lines < 100 lines)" "test $lines -lt 100"

# ---- oversized frames ----
SWITCHYARD_MAX_MSG_SIZE=1M "$R" -n 1 "$L" bigframe 2097152 4096 20 > "$T/out" 2> "$T/err"
rc=$?
check "a 2 MiB frame over a 1 MiB limit: the peer is dropped with one line" "test $rc -eq 0 && grep -q 'bigframe: closed' '$T/out' && test \$(grep -c 'exceeds the limit of 1048576 bytes' '$T/err') -eq 1 && grep -q 'bigframe rank 0: ok' '$T/out'"
"$R" -n 1 "$L" bigframe 4294967295 0 20 > "$T/out" 2> "$T/err"
rc=$?
check "a 4 GiB claim over the default limit: the peer is dropped" "test $rc -eq 0 && grep -q 'bigframe: closed' '$T/out' && grep -q 'exceeds the limit of 268435456 bytes' '$T/err' && grep -q 'bigframe rank 0: ok' '$T/out'"
"$R" -n 1 "$L" bigframe 209715200 1048576 0 > "$T/out" 2> "$T/err"
rc=$?
growth=$(sed -n 's/^bigframe: server-vm-growth-kb //p' "$T/out")
echo "# a 200 MiB claim with 1 MiB sent: the server grew by ${growth:-?} kB"
check "a 200 MiB claim is not allocated up front (${growth:-?} kB < 64 MiB)" "test $rc -eq 0 && test -n '$growth' && test '$growth' -lt 65536 && grep -q 'bigframe rank 0: ok' '$T/out'"

# ---- PMIx_Spawn ----
"$R" --oversubscribe -n 1 "$L" spawn-bad "$T" > "$T/out" 2> "$T/err"
rc=$?
for c in "without a program: NO EXECUTABLE SPECIFIED" "with an empty program: NO EXECUTABLE SPECIFIED" \
         "of a missing path: EXECUTABLE NOT FOUND" "of a name not in PATH: EXECUTABLE NOT FOUND" \
         "of a file without x permission: APPLICATION NOT EXECUTABLE" \
         "of a directory: APPLICATION NOT EXECUTABLE" \
         "of a script whose interpreter is missing: EXECUTABLE NOT FOUND" \
         "with maxprocs 0: BAD-PARAM" "with maxprocs -3: BAD-PARAM" \
         "with an env entry without '=': BAD-PARAM" "with an env entry without a name: BAD-PARAM" \
         "in a missing directory: WORKING DIRECTORY NOT FOUND" "of true (a good one): SUCCESS"; do
    check "spawn $c" "grep -q \"^spawn $c\\\$\" '$T/out'"
done
check "bad spawns fail the spawn, never the parent job" "test $rc -eq 0 && grep -q 'spawn-bad rank 0: ok' '$T/out'"
timeout -k 5 120 "$R" -n 1 "$L" spawn-huge > "$T/out" 2> "$T/err"
rc=$?
check "100000 processes without --oversubscribe: refused by the slot rule" "test $rc -eq 0 && grep -q 'spawn-huge rank 0: ok' '$T/out' && grep -q 'add --oversubscribe' '$T/err'"
timeout -k 5 120 "$R" --oversubscribe -n 1 "$L" spawn-huge > "$T/out" 2> "$T/err"
rc=$?
check "100000 processes with --oversubscribe: refused by --max-procs" "test $rc -eq 0 && grep -q 'spawn-huge rank 0: ok' '$T/out' && grep -q 'max-procs' '$T/err'"

# processes whose environment names one of the launcher's namespaces
leftovers() {
    n=0
    for e in /proc/[0-9]*/environ; do
        if { tr '\0' '\n' < "$e"; } 2> /dev/null | grep -q "^PMIX_NAMESPACE=switchyard\.$1\."; then
            n=$((n + 1))
        fi
    done
    echo $n
}

: > "$T/started"
"$R" --oversubscribe -n 2 "$L" spawn-many 400 "$T/started" > "$T/out" 2> "$T/err" &
rpid=$!
# the parent's rank 1 and the first spawned processes run
for i in $(seq 600); do test "$(wc -l < "$T/started")" -ge 3 && break; sleep 0.05; done
kill -TERM $rpid
wait $rpid
rc=$?
started=$(wc -l < "$T/started")
echo "# SIGTERM during a spawn of 400: $started processes had started"
check "SIGTERM during a large spawn: 143 and a message" "test $rc -eq 143 && grep -q 'interrupted by signal 15' '$T/err'"
check "SIGTERM during a large spawn: it stopped launching ($started of 401 started)" "test $started -ge 3 && test $started -lt 401"
check "SIGTERM during a large spawn: no process left" "test \$(leftovers $rpid) -eq 0"

: > "$T/started"
"$R" --oversubscribe -n 3 sh -c "echo \$\$ >> '$T/started'; exec sleep 120" > /dev/null 2> "$T/err" &
rpid=$!
for i in $(seq 600); do test "$(wc -l < "$T/started")" -ge 3 && break; sleep 0.05; done
kill -TERM $rpid
wait $rpid
rc=$?
check "SIGTERM of a job of sleeping ranks: 143, no process left" "test $rc -eq 143 && test \$(leftovers $rpid) -eq 0"

echo "1..$n"
test $fails -eq 0
