#!/bin/sh
# MPICH hello (MPI_Init, Allreduce, Barrier, MPI_Finalize) launched by
# switchyard-run (PMI-1 wire served by our server) and by MPICH's own
# mpiexec.hydra, at -n 1/2/4/8, interleaved run by run so both see the
# same load; medians of wall time and the ratio ours/hydra
# (docs/performance.md, "MPICH under switchyard-run").
#   sh bench/mpich-compare.sh [iterations]     (default 21; first 2 dropped)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${top_builddir:-$top/build}
R="$B/tools/switchyard-run"
# the program itself, not libtool's wrapper script (which forks sed and
# friends on every start)
if test -x "$B/tools/.libs/switchyard-run"; then
    R="$B/tools/.libs/switchyard-run"
    export LD_LIBRARY_PATH="$B/src/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
ITER=${1:-21}
command -v mpicc.mpich > /dev/null && command -v mpiexec.hydra > /dev/null ||
    { echo "needs mpich (apt-get install mpich libmpich-dev)" >&2; exit 1; }
test -x "$R" || { echo "not built: $R" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-mpich-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
mpicc.mpich -O2 -o "$T/hello" "$top/tests/external/mpich/mpi_check.c"

now_ms() { date +%s%N | awk '{printf "%.3f", $1 / 1e6}'; }
run() { # file, command...
    f=$1
    shift
    t0=$(now_ms)
    "$@" > /dev/null 2>&1 || echo "failed: $*" >&2
    t1=$(now_ms)
    echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}' >> "$f"
}
for i in $(seq 1 "$ITER"); do
    for np in 1 2 4 8; do
        run "$T/sy.$np" "$R" --oversubscribe -n $np "$T/hello" hello
        run "$T/hy.$np" mpiexec.hydra -n $np "$T/hello" hello
    done
done
median() { tail -n +3 "$1" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "iterations: $ITER (first 2 dropped), load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-4s %16s %16s %8s\n' np "switchyard-run" "mpiexec.hydra" ratio
for np in 1 2 4 8; do
    s=$(median "$T/sy.$np")
    h=$(median "$T/hy.$np")
    printf '%-4s %13.1f ms %13.1f ms %7.2fx\n' $np "$s" "$h" "$(echo "$s $h" | awk '{print $1 / $2}')"
done
