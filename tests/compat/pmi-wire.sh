#!/bin/sh
# The PMI-1 and PMI-2 wire protocols served by switchyard-run's server,
# spoken byte for byte by tests/compat/pmi_wire over PMI_FD at -n 1/2/4
# (MPICH's conversation, escaping, MPICH 4.0.2's garbage bytes, thrid
# echo, waiting node attributes), and protocol violations: each closes
# that connection with one log line, and the server goes on.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
R="$top_builddir/tools/switchyard-run"
W="$top_builddir/tests/compat/pmi_wire"
for f in "$R" "$W"; do
    test -x "$f" || { echo "not built: $f"; exit 99; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-pmi-wire.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
printf 'leak:hwloc_topology_load\n' > "$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; sed 's/^/#   /' "$T/err" 2> /dev/null | head -20; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }

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

for mode in noinit garbage unknown oversized badlen; do
    timeout 60 "$R" -n 1 "$W" bad $mode > "$T/out" 2> "$T/err"
    rc=$?
    check "violation '$mode': connection closed, rank exits 0" "test $rc -eq 0"
    check "violation '$mode': one log line" \
        "test \$(grep -c 'pmi: .*connection closed' '$T/err') -eq 1"
done

# a PMIx program gets PMI_FD too, and never using it is quiet
timeout 60 "$R" -n 2 sh -c 'test -n "$PMI_FD" && test -n "$PMI_RANK" && test "$PMI_SIZE" = 2' \
    > "$T/out" 2> "$T/err"
rc=$?
check "PMI_FD, PMI_RANK, PMI_SIZE exported; unused is quiet" "test $rc -eq 0 && ! test -s '$T/err'"
left=$(find "$TMPDIR" -mindepth 1 2> /dev/null | head -5)
check "nothing left in TMPDIR" "test -z '$left'"
echo "1..$n"
test $fails -eq 0
