#!/bin/sh
# Debian's MPICH 4.0.2 (libmpich.so.12 speaks the PMI-1 wire protocol)
# runs unmodified under switchyard-run: hello with Allreduce at -n 1/2/4,
# a ring, MPI_Publish_name/Lookup_name, MPI_Abort(..., 3) -> exit 3, a
# rank that dies -> the job fails, a singleton with no launcher, and
# hello over PMI_PORT (hydra's port mode) instead of PMI_FD.
# Installs mpich and libmpich-dev when absent (77 when it cannot); calls
# mpicc.mpich explicitly, so Debian's mpicc alternative does not matter.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"

have() { command -v mpicc.mpich > /dev/null && test -e /usr/lib/x86_64-linux-gnu/libmpich.so.12; }
if ! have; then
    if test "$(id -u)" -ne 0; then
        echo "SKIP: mpich is not installed and we are not root"
        exit 77
    fi
    if ! timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends mpich libmpich-dev > /dev/null 2>&1; then
        timeout 300 apt-get update > /dev/null 2>&1
        timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends mpich libmpich-dev > /dev/null 2>&1
    fi
    have || { echo "SKIP: cannot install mpich libmpich-dev"; exit 77; }
fi

NAME=mpich
NEED=
. "$top_srcdir/tests/compat/pmi-lib.sh"
# MPICH's own programs are not built with the sanitizers of our build
unset LD_PRELOAD

P="$T/mpi_check"
if ! mpicc.mpich -O1 -o "$P" "$top_srcdir/tests/external/mpich/mpi_check.c" 2> "$T/err"; then
    bad "mpicc.mpich builds the test program"
    finish
    exit 1
fi
ok "mpicc.mpich builds the test program"
check "the program uses Debian's libmpich.so.12" "ldd '$P' | grep -q 'libmpich\.so\.12'"

for np in 1 2 4; do
    timeout 60 "$R" --oversubscribe -n $np "$P" hello > "$T/out" 2> "$T/err"
    rc=$?
    sum=$((np * (np + 1) / 2))
    check "hello -n $np exits 0" "test $rc -eq 0"
    check "hello -n $np: every rank has sum=$sum" \
        "test \$(grep -c '^rank [0-9]*/$np sum=$sum\$' '$T/out') -eq $np"
done

# hydra's port mode: without PMI_FD, MPICH connects to PMI_PORT and
# names itself with PMI_ID (initack)
timeout 60 "$R" --oversubscribe -n 2 sh -c 'unset PMI_FD; exec "$0" hello' "$P" > "$T/out" 2> "$T/err"
rc=$?
check "hello -n 2 over PMI_PORT" \
    "test $rc -eq 0 && test \$(grep -c '^rank [0-9]*/2 sum=3\$' '$T/out') -eq 2"

timeout 60 "$R" --oversubscribe -n 4 "$P" ring > "$T/out" 2> "$T/err"
rc=$?
check "ring -n 4" "test $rc -eq 0 && test \$(grep -c '^ring ok' '$T/out') -eq 4"

timeout 60 "$R" --oversubscribe -n 2 "$P" publish > "$T/out" 2> "$T/err"
rc=$?
check "MPI_Publish_name / MPI_Lookup_name -n 2" "test $rc -eq 0 && grep -q '^lookup ok' '$T/out'"

timeout 60 "$R" --oversubscribe -n 4 "$P" abort 3 > "$T/out" 2> "$T/err"
rc=$?
check "MPI_Abort(MPI_COMM_WORLD, 3) -> exit 3" "test $rc -eq 3"
check "the abort is reported once" "test \$(grep -c 'rank 3 called PMIx_Abort with status 3' '$T/err') -eq 1"

timeout 60 "$R" --oversubscribe -n 3 "$P" die 5 > "$T/out" 2> "$T/err"
rc=$?
check "a rank exiting 5 without MPI_Finalize ends the job with 5" "test $rc -eq 5"

# singleton: no launcher, no PMI_FD
(unset PMI_FD PMI_RANK PMI_SIZE PMIX_NAMESPACE PMIX_RANK; timeout 60 "$P" hello) > "$T/out" 2> "$T/err"
rc=$?
check "singleton ./prog" "test $rc -eq 0 && grep -q '^rank 0/1 sum=1\$' '$T/out'"

finish
