#!/bin/sh
# Mixed pairs of PMIx implementations (issue 19): a client library and a
# server library that are not the same implementation, in both directions.
# Each direction is one section function below; OpenPMIx is Debian's
# (libpmix-dev, openmpi-bin: Open MPI 4.1 on OpenPMIx 4.2.2).  Every
# scenario checks in /proc/PID/maps that each process really mapped the
# library it is meant to.  Missing packages are installed; without them
# and without network the test is skipped (77).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
LIB=$(cd "$top_builddir/src/.libs" && pwd -P)
S="$top_srcdir/tests/external"
test -e "$LIB/libpmix.so.2" || { echo "libpmix.so.2 not built"; exit 99; }
OPINC=/usr/lib/x86_64-linux-gnu/pmix2/include

if ! command -v mpicc.openmpi > /dev/null || ! command -v mpirun.openmpi > /dev/null ||
   ! test -e "$OPINC/pmix.h"; then
    pk="openmpi-bin libopenmpi-dev libpmix-dev"
    if test "$(id -u)" -ne 0 ||
       ! timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends $pk > /dev/null 2>&1; then
        timeout 300 apt-get update > /dev/null 2>&1
        timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends $pk > /dev/null 2>&1 || {
            echo "SKIP: cannot install $pk"
            exit 77
        }
    fi
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/sy-interop.XXXXXX")
cleanup() {
    # nothing of a failed scenario may outlive the test
    pkill -KILL -f "$T/" 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# a sanitizer build of our library cannot run inside Debian's uninstrumented
# mpirun's ranks without its runtime preloaded: the plain build only
if grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2> /dev/null; then
    echo "SKIP: sanitizer build (Open MPI's processes are not instrumented)"
    exit 77
fi

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
    n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
    test -f "$T/out" && sed 's/^/#   /' "$T/out" | head -40
}
# run SECONDS COMMAND...: output in $T/out, status in $rc
run() {
    t=$1
    shift
    # mpirun may ignore the TERM when a rank failed early: KILL follows
    (cd "$T" && timeout -k 5 "$t" "$@") > "$T/out" 2>&1
    rc=$?
}
count() { grep -c "$1" "$T/out"; }
# ranks mapped N times, all ours; their parent (mpirun) never ours
ranks_ours_parent_theirs() {
    test "$(grep -c '^rank libpmix ' "$T/out")" -ge "$1" &&
        ! grep '^rank libpmix ' "$T/out" | grep -v -q " $LIB/" &&
        test "$(grep -c '^parent libpmix ' "$T/out")" -ge "$1" &&
        ! grep '^parent libpmix ' "$T/out" | grep -q " $LIB/"
}

# Our client library in the ranks, OpenPMIx's server in Debian's mpirun
# (which runs on Debian's libpmix: our directory only reaches the ranks).
section_ours_under_openpmix() {
    if ! cc -O1 -Wall -I"$OPINC" -o "$T/fence_get" "$S/interop/fence_get.c" -lpmix \
            > "$T/build" 2>&1; then
        cat "$T/build"
        echo "Bail out! cc fence_get"
        exit 99
    fi
    for p in hello ring pubsub abort; do
        if ! mpicc.openmpi -O1 -Wall -I"$S/openmpi" -o "$T/$p" "$S/openmpi/$p.c" \
                > "$T/build" 2>&1; then
            cat "$T/build"
            echo "Bail out! mpicc.openmpi $p"
            exit 99
        fi
    done
    X="-x LD_LIBRARY_PATH=$LIB"
    for np in 2 4; do
        run 60 mpirun.openmpi --oversubscribe -np $np $X ./fence_get
        if [ $rc -eq 0 ] && [ "$(count '^rank [0-9]* ok finalize$')" -eq $np ] &&
           [ "$(count "^rank [0-9]* ok job size $np ")" -eq $np ] &&
           [ "$(count '^rank [0-9]* ok fence and every peer')" -eq $np ] &&
           ranks_ours_parent_theirs $np; then
            ok "ours under OpenPMIx: PMIx client -np $np (init/get/put/commit/fence/get all)"
        else
            bad "ours under OpenPMIx: PMIx client -np $np (exit $rc)"
        fi
    done
    run 60 mpirun.openmpi --oversubscribe -np 4 $X ./hello
    if [ $rc -eq 0 ] && [ "$(count '^hello from . of 4 sum=4$')" -eq 4 ] &&
       ranks_ours_parent_theirs 4; then
        ok "ours under OpenPMIx: MPI hello -np 4"
    else
        bad "ours under OpenPMIx: MPI hello -np 4 (exit $rc)"
    fi
    run 60 mpirun.openmpi --oversubscribe -np 4 $X ./ring
    if [ $rc -eq 0 ] && grep -q '^ring token 18 expected 18$' "$T/out"; then
        ok "ours under OpenPMIx: MPI ring -np 4"
    else
        bad "ours under OpenPMIx: MPI ring -np 4 (exit $rc)"
    fi
    run 60 mpirun.openmpi --oversubscribe -np 2 $X ./pubsub
    if [ $rc -eq 0 ] && [ "$(count '^pubsub rank . ok$')" -eq 2 ]; then
        ok "ours under OpenPMIx: MPI_Publish_name / Lookup_name / Unpublish_name"
    else
        bad "ours under OpenPMIx: publish/lookup/unpublish (exit $rc)"
    fi
    run 60 mpirun.openmpi --oversubscribe -np 3 $X ./abort
    if [ $rc -eq 3 ]; then
        ok "ours under OpenPMIx: MPI_Abort(3), mpirun exits 3"
    else
        bad "ours under OpenPMIx: MPI_Abort (exit $rc, expected 3)"
    fi
}

section_ours_under_openpmix

echo "1..$n"
test $fails -eq 0
