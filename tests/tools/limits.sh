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
#     connection is served afterwards.
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

echo "1..$n"
test $fails -eq 0
