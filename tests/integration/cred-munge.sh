#!/bin/sh
# MUNGE credentials under switchyard-run, with a private munged (its own
# key, socket and pid file, stopped by pid at the end):
#  - a credential issued in one job validates in another job (another
#    server, with another secret), naming the issuer's uid and process;
#  - MUNGE refuses a replay, a tampered credential, a wrong PMIX_CRYPTO_KEY;
#  - a record encoded by another user (not root, not the server's) is
#    refused, while the same record encoded by root is accepted;
#  - PMIX_CRED_TYPE "native" and an unreachable munged give native ones,
#    and a MUNGE credential to check with munged gone fails, promptly.
# Installs the munge package when munged is missing (as root).
set -u
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
R="$top_builddir/tools/switchyard-run"
C="$top_builddir/tests/integration/test_cred_file"

if ! command -v munged >/dev/null 2>&1; then
    if test "$(id -u)" != 0; then
        echo "cred-munge: munged missing and not root: skipped"
        exit 77
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends munge \
        >/dev/null 2>&1 || { echo "cred-munge: cannot install munge"; exit 1; }
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/cred-munge.XXXXXX")
chmod 755 "$T"
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
munged_pid=
stop_munged() {
    if test -n "$munged_pid" && kill -0 "$munged_pid" 2>/dev/null; then
        kill "$munged_pid"
        for i in $(seq 50); do kill -0 "$munged_pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$munged_pid" 2>/dev/null
    fi
    munged_pid=
}
trap 'stop_munged; rm -rf "$T"' EXIT

fails=0
n=0
check() {
    n=$((n + 1))
    if eval "$2"; then
        echo "ok $n - $1"
    else
        echo "not ok $n - $1"
        fails=$((fails + 1))
    fi
}

mkdir -m 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge/key"
S="$T/munge/sock"
munged --force --key-file="$T/munge/key" --socket="$S" --pid-file="$T/munge/pid" \
    --log-file="$T/munge/log" --seed-file="$T/munge/seed" || { echo "munged failed"; exit 1; }
for i in $(seq 100); do test -S "$S" && test -s "$T/munge/pid" && break; sleep 0.05; done
munged_pid=$(cat "$T/munge/pid")
chmod 711 "$T/munge"
export SWITCHYARD_MUNGE_SOCKET="$S"

run() { "$R" -n 1 "$C" "$@" 2>>"$T/err"; }

run get "$T/c1" > "$T/out"
check "a job gets a MUNGE credential" "grep -q '^type=munge' '$T/out'"
run validate "$T/c1" > "$T/out"
check "another job (another server) validates it: our uid, the issuer's rank 0" \
    "grep -q '^status=SUCCESS uid=$(id -u) gid=$(id -g) proc=.*:0 type=munge' '$T/out'"
run validate "$T/c1" > "$T/out"
check "a replay is refused" "grep -q '^status=INVALID-CREDENTIAL' '$T/out'"

run get "$T/c2" > /dev/null
python3 - "$T/c2" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[len(b) // 2] ^= 0x04
open(p, 'wb').write(bytes(b))
PY
run validate "$T/c2" > "$T/out"
check "a tampered credential is refused" "grep -q '^status=INVALID-CREDENTIAL' '$T/out'"

run get "$T/c3" sesame > /dev/null
cp "$T/c3" "$T/c3b"
run validate "$T/c3" sesame > "$T/out"
check "a credential bound to a key validates with it" "grep -q '^status=SUCCESS' '$T/out'"
run validate "$T/c3b" other > "$T/out"
check "... and not with another key" "grep -q '^status=INVALID-CREDENTIAL' '$T/out'"

if test "$(id -u)" = 0 && id nobody >/dev/null 2>&1; then
    # An identity record claiming uid 0, rank 0 of namespace "evil".
    python3 - "$T/rec" <<'PY'
import struct, sys
ns = b"evil"
rec = b"SYC1" + bytes([2, 0, 0, 0]) + struct.pack("<IIII", 0, 0, 1, 0)
rec += struct.pack("<QQ", 0, 0) + bytes([len(ns)]) + ns
open(sys.argv[1], "wb").write(rec)
PY
    chmod 644 "$T/rec"
    runuser -u nobody -- munge -S "$S" -i "$T/rec" > "$T/c5" 2>>"$T/err"
    munge -S "$S" -i "$T/rec" > "$T/c6" 2>>"$T/err"
    run validate "$T/c5" > "$T/out"
    check "a record encoded by another user is refused" "grep -q '^status=INVALID-CREDENTIAL' '$T/out'"
    run validate "$T/c6" > "$T/out"
    check "the same record encoded by root is accepted" "grep -q '^status=SUCCESS uid=0 gid=0 proc=evil:0 type=munge' '$T/out'"
fi

run get "$T/c7" - native > "$T/out"
check "PMIX_CRED_TYPE native gives a native credential" "grep -q '^type=native' '$T/out'"
SWITCHYARD_MUNGE_SOCKET="$T/none" run get "$T/c8" > "$T/out"
check "munged unreachable: a native credential" "grep -q '^type=native' '$T/out'"
SWITCHYARD_MUNGE_SOCKET="$T/none" run get "$T/c9" - munge > "$T/out"
check "munged unreachable: asking only for munge is NOT-SUPPORTED" "grep -q '^status=NOT-SUPPORTED' '$T/out'"

run get "$T/c10" > /dev/null
kill -9 "$munged_pid"  # its socket file stays: connects are refused
for i in $(seq 50); do kill -0 "$munged_pid" 2>/dev/null || break; sleep 0.1; done
munged_pid=
start=$(date +%s)
run validate "$T/c10" > "$T/out"
took=$(($(date +%s) - start))
check "munged killed: validation fails with UNREACHABLE" "grep -q '^status=UNREACHABLE' '$T/out'"
check "... without libmunge's seconds of retries (took ${took}s)" "test $took -lt 5"
run get "$T/c11" > "$T/out"
check "munged killed: a native credential" "grep -q '^type=native' '$T/out'"

echo "1..$n"
if test $fails -ne 0; then
    echo "--- stderr of the clients"
    cat "$T/err"
    exit 1
fi
exit 0
