#!/bin/sh
# Wire interop between our library and OpenPMIx 4.2.2's (Debian's
# libpmix2), issue 19.  One client program (interop/opx_client.c) is built
# twice: against Debian's headers with its libpmix pinned by DT_RPATH, and
# against ours.  Each run checks from /proc/self/maps that the library is
# the one meant.  Sections:
#   1. OpenPMIx clients under our server (switchyard-run): init, job keys,
#      a query, a log, event registration and an event from the last rank,
#      publish/lookup/unpublish, put/commit/fence with collect, every
#      peer's key, finalize; mixed jobs (half on each library) fencing,
#      exchanging data and events together; PMIx_Abort's status.
#   2. (reserved) our clients under an OpenPMIx server.
# Needs libpmix-dev (Debian's OpenPMIx); skipped (77) without it.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
R="$top_builddir/tools/switchyard-run"
OURS="$top_builddir/src/.libs"
OPX_INC=/usr/lib/x86_64-linux-gnu/pmix2/include
OPX_LIB=/usr/lib/x86_64-linux-gnu/pmix2/lib
test -x "$R" || { echo "switchyard-run not built"; exit 99; }
if ! test -e "$OPX_LIB/libpmix.so.2" || ! test -e "$OPX_INC/pmix.h"; then
    echo "SKIP: Debian's OpenPMIx (libpmix-dev) is not installed"
    exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-interop.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# In a sanitizer build our library needs the sanitizer runtime in the
# program linked with it.
SAN=
CCX=${CC:-cc}
if grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2>/dev/null; then
    CCX=clang
    SAN="-fsanitize=address,undefined"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
SRC="$top_srcdir/tests/external/interop/opx_client.c"
# DT_RPATH (not RUNPATH): it wins over any LD_LIBRARY_PATH a launcher sets
if ! cc -std=gnu11 -O1 -I"$OPX_INC" "$SRC" -o "$T/opx_client" -L"$OPX_LIB" -lpmix \
        -Wl,--disable-new-dtags,-rpath,"$OPX_LIB" > "$T/build.log" 2>&1 ||
   ! $CCX $SAN -std=gnu11 -O1 -I"$top_srcdir/include" "$SRC" -o "$T/our_client" -L"$OURS" \
        -lpmix -Wl,--disable-new-dtags,-rpath,"$OURS" >> "$T/build.log" 2>&1; then
    sed 's/^/#   /' "$T/build.log" | head -10
    echo "Bail out! the interop client does not build"
    exit 99
fi

# name expected-exit pattern-count run-args...
job() {
    name=$1 want=$2 count=$3
    shift 3
    (cd "$T" && timeout 60 "$R" --oversubscribe --timeout 45 "$@") > "$T/out" 2>&1
    rc=$?
    got=$(grep -c '^rank [0-9]* of [0-9]* ok$' "$T/out")
    if [ "$rc" -eq "$want" ] && [ "$got" -eq "$count" ]; then
        ok "$name"
    else
        bad "$name (exit $rc, want $want; $got of $count ranks ok)"
        sed 's/^/#   /' "$T/out" | tail -15
    fi
}

lib_is() { # what: the LIB line of rank 0 names that library
    if grep -q "^LIB $1" "$T/out"; then ok "$2"; else
        bad "$2"; grep '^LIB' "$T/out" | sed 's/^/#   /'
    fi
}

# ---- 1. OpenPMIx clients under our server ----
job "4 OpenPMIx clients under switchyard-run: init, job keys, fence, get all" 0 4 \
    -x INTEROP_PACK_OUT="$T/packed" -n 4 ./opx_client
C="$top_builddir/tests/external/interop/opx_check"
if test -x "$C" && "$C" "$T/packed" > "$T/check.out" 2>&1; then
    ok "OpenPMIx's own PMIx_Data_pack output reads and re-packs identically with ours"
else
    bad "OpenPMIx's own PMIx_Data_pack output reads and re-packs identically with ours"
    sed 's/^/#   /' "$T/check.out" 2>/dev/null | head -5
fi
lib_is "$OPX_LIB/libpmix.so" "the OpenPMIx clients ran on Debian's libpmix"
if grep -q 'interop: logged by rank 0' "$T/out"; then
    ok "an OpenPMIx client's PMIx_Log reached the launcher"
else
    bad "an OpenPMIx client's PMIx_Log reached the launcher"
fi
job "mixed job: 2 OpenPMIx + 2 of ours fence and exchange data" 0 4 \
    -n 2 ./opx_client : -n 2 ./our_client
lib_is "$OPX_LIB/libpmix.so" "rank 0 of the mixed job ran on Debian's libpmix"
job "mixed job, ours first: 2 of ours + 2 OpenPMIx" 0 4 \
    -n 2 ./our_client : -n 2 ./opx_client
lib_is "$OURS/libpmix.so" "rank 0 of the second mixed job ran on ours"
job "PMIx_Abort(7) of an OpenPMIx client ends the job with status 7" 7 0 \
    -n 4 ./opx_client abort
if grep -q 'called PMIx_Abort with status 7' "$T/out"; then
    ok "the launcher reports the OpenPMIx client's abort"
else
    bad "the launcher reports the OpenPMIx client's abort"
fi

# ---- 2. our clients under an OpenPMIx server (h-opcli) ----

echo "1..$n"
[ "$fails" -eq 0 ]
