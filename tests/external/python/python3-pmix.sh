#!/bin/sh
# Debian's python3-pmix (OpenPMIx 4.2.2's Cython bindings) on our library:
# Python loads the extension with RTLD_NOW, so it imports only when
# libpmix.so.2 exports every PMIx_* function it refers to.  Two ranks under
# switchyard-run init, read job keys, put/commit/fence, read the peer's key
# and finalize (client.py).  /usr/bin/python3, not a python3 on PATH that
# cannot see Debian's dist-packages.  python3-pmix (and with it python3) is
# installed with apt when absent; without network the test is skipped (77).
# Then the same two ranks on Debian's own libpmix under switchyard-run: an
# OpenPMIx client of our server, from Python.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
R="$top_builddir/tools/switchyard-run"
LIB="$top_builddir/src/.libs"
PY=/usr/bin/python3
test -x "$R" || { echo "switchyard-run not built"; exit 99; }

ext() { ls /usr/lib/python3/dist-packages/pmix.cpython-*.so 2>/dev/null | head -1; }
reachable() { # can we reach Debian's registry at all? (python3 may be absent)
    if test -x "$PY"; then
        "$PY" -c 'import socket; socket.create_connection(("deb.debian.org", 80), 10)' \
            > /dev/null 2>&1
    else
        timeout 10 getent hosts deb.debian.org > /dev/null 2>&1
    fi
}
if test -z "$(ext)"; then
    if test "$(id -u)" -ne 0; then
        echo "SKIP: python3-pmix is not installed and installing it needs root"
        exit 77
    fi
    timeout 300 apt-get install -y -q python3-pmix > /dev/null 2>&1 ||
        { timeout 300 apt-get update -q > /dev/null 2>&1 &&
          timeout 300 apt-get install -y -q python3-pmix > /dev/null 2>&1; }
    if test -z "$(ext)"; then
        if reachable; then
            echo "FAIL: apt-get install python3-pmix failed with deb.debian.org reachable"
            exit 1
        fi
        echo "SKIP: cannot install python3-pmix: no network"
        exit 77
    fi
fi
EXT=$(ext)
test -n "$EXT" || { echo "FAIL: python3-pmix installed but its extension is not there"; exit 1; }
test -x "$PY" || { echo "FAIL: python3-pmix installed but $PY is not there"; exit 1; }

T=$(mktemp -d "${TMPDIR:-/tmp}/sy-python.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# Every function the extension imports must come from our library.
nm -D --undefined-only "$EXT" | awk '$2 ~ /^PMIx_/ { print $2 }' | sort -u > "$T/imports"
nm -D --defined-only "$LIB/libpmix.so.2" | awk '{ print $3 }' | sort -u > "$T/exports"
missing=$(comm -23 "$T/imports" "$T/exports" | tr '\n' ' ')
if test -n "$missing"; then
    bad "libpmix.so.2 exports every PMIx_* function python3-pmix imports (missing: $missing)"
else
    ok "libpmix.so.2 exports every PMIx_* function python3-pmix imports ($(wc -l < "$T/imports"))"
fi

# In a sanitizer build the library needs the sanitizer runtime loaded
# first into Python (only: switchyard-run has its own, linked in); Python's
# own allocations are not ours to report.
PYENV=
XPY=
if grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2>/dev/null; then
    rt=$(clang -print-file-name=libclang_rt.asan-x86_64.so 2>/dev/null)
    if test -f "$rt"; then
        opts="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0"
        PYENV="LD_PRELOAD=$rt ASAN_OPTIONS=$opts"
        XPY="-x LD_PRELOAD=$rt -x ASAN_OPTIONS=$opts"
    fi
fi
PY="env $PYENV $PY"

if LD_LIBRARY_PATH="$LIB" $PY -c 'import pmix' > "$T/import.err" 2>&1; then
    ok "python3-pmix imports with our libpmix.so.2"
else
    bad "python3-pmix imports with our libpmix.so.2"
    sed 's/^/#   /' "$T/import.err" | tail -3
fi
# and it is ours it loaded, not OpenPMIx's
if LD_LIBRARY_PATH="$LIB" $PY -c 'import pmix; print(open("/proc/self/maps").read())' \
        2> /dev/null | grep -q "$LIB/libpmix.so"; then
    ok "the process mapped our libpmix.so.2"
else
    bad "the process mapped our libpmix.so.2"
fi

LD_LIBRARY_PATH="$LIB" timeout 120 "$R" --oversubscribe $XPY -n 2 /usr/bin/python3 \
    "$top_srcdir/tests/external/python/client.py" > "$T/out" 2> "$T/err"
rc=$?
# (counted as matches, as below: the bindings' own prints may share a line
# with ours when the two ranks write at once)
if test $rc -eq 0 && test "$(grep -o 'python rank [01]: ok' "$T/out" | wc -l)" -eq 2; then
    ok "two Python ranks: init, job keys, put/commit/fence, a peer's key, finalize"
else
    bad "two Python ranks (status $rc)"
    sed 's/^/#   /' "$T/err" | grep -v 'CLIENT STARTING\|THREAD STARTED' | tail -8
    sed 's/^/#   out: /' "$T/out" | tail -6
fi
# python3-pmix on Debian's own libpmix (OpenPMIx 4.2.2) under our server:
# the OpenPMIx protocol from a Python client (the ranks inherit no
# LD_LIBRARY_PATH of ours)
timeout 120 "$R" --oversubscribe -x SY_PY_MAPS=1 -n 2 env -u LD_LIBRARY_PATH /usr/bin/python3 \
    "$top_srcdir/tests/external/python/client.py" > "$T/out" 2> "$T/err"
rc=$?
# (counted as matches: the bindings' own prints may share a line with ours)
theirs=$(grep -o 'rank [01] libpmix /usr/lib/x86_64-linux-gnu/' "$T/out" | wc -l)
ours=$(grep -o "rank [01] libpmix $LIB/" "$T/out" | wc -l)
if test $rc -eq 0 && test "$(grep -o 'python rank [01]: ok' "$T/out" | wc -l)" -eq 2 &&
    test "$theirs" -ge 2 &&
    test "$ours" -eq 0; then
    ok "two Python ranks on OpenPMIx 4.2.2 under our server: the same checks"
else
    bad "two Python ranks on OpenPMIx 4.2.2 under our server (status $rc, $theirs on Debian's library, $ours on ours)"
    sed 's/^/#   /' "$T/out" "$T/err" | grep -v 'CLIENT STARTING\|THREAD STARTED' | tail -8
fi
echo "1..$n"
test $fails -eq 0
