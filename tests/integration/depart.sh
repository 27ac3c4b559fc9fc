#!/bin/sh
# Collectives whose participant leaves (test_depart.c): rank 2 of three
# finalizes or is killed before the others start a Fence, Connect,
# Disconnect or Group_construct, or while they wait in it, or after it
# joined.  No PMIX_TIMEOUT is given: the operation must end for ranks 0
# and 1 (test_depart reports HANG after 60 s), with
#   - fence, connect, disconnect: PMIX_ERR_PARTIAL_SUCCESS, what OpenPMIx
#     4.2.2 answers when a participant leaves during them
#     (bench/depart-compare.sh runs the same program against it);
#   - group construct: an error (PMIX_PROC_TERMINATED), as the standard
#     says for a member that ends before the group is built without
#     PMIX_GROUP_NOTIFY_TERMINATION.
# With a fourth rank on another node ("remote"), the host's fence_nb /
# connect / disconnect get PMIX_LOCAL_COLLECTIVE_STATUS =
# PMIX_ERR_PARTIAL_SUCCESS, and nobody leaving gives PMIX_SUCCESS.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
D="$top_builddir/tests/integration/test_depart"
test -x "$D" || { echo "not built: $D"; exit 99; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-depart.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export TMPDIR="$T"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; sed 's/^/#   /' "$T/out"; }

# expect OP HOW WHERE STATUS [HOST-STATUS]: ranks 0 and 1 got STATUS (and
# rank 2 too when nobody leaves); the host's upcall saw HOST-STATUS.
expect() {
    "$D" "$1" "$2" "$3" > "$T/out" 2> "$T/err"
    rc=$?
    want=2
    test "$2" = none && want=3
    got=$(grep -c "^rank [0-9]: $1 -> $4\$" "$T/out")
    host=ok
    if test $# -ge 5 && ! grep -q "^host: local-status $5\$" "$T/out"; then host=bad; fi
    if test $rc -eq 0 && test "$got" -eq $want && test $host = ok; then
        ok "$1 $2 ($3): $4${5:+, host told $5}"
    else
        bad "$1 $2 ($3): $4${5:+, host told $5}"
    fi
}

for op in fence connect disconnect; do
    expect $op none local SUCCESS
    for how in finalize-before finalize-during kill-before kill-during join-finalize join-kill; do
        expect $op $how local "PARTIAL SUCCESS"
    done
done
expect group none local SUCCESS
for how in finalize-before finalize-during kill-before kill-during join-finalize; do
    expect group $how local PROC-TERMINATED
done
expect fence none remote SUCCESS SUCCESS
for how in finalize-before finalize-during kill-during join-finalize; do
    expect fence $how remote "PARTIAL SUCCESS" "PARTIAL SUCCESS"
done
expect connect kill-during remote "PARTIAL SUCCESS" "PARTIAL SUCCESS"
echo "1..$n"
test $fails -eq 0
