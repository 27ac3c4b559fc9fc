#!/bin/sh
# Wall time of `mpirun --oversubscribe -np N ./hello` (Debian's Open MPI
# 4.1: MPI_Init, Allreduce, Barrier, MPI_Finalize) on our libpmix.so.2
# against OpenPMIx 4.2.2's, in interleaved runs (ours, theirs, ours, ...)
# so that the machine's drift hits both alike; medians and their ratio
# (ours / 4.2.2; below 1 is better for us).  Run from the top of the source
# tree after `sh scripts/build.sh`:
#   sh bench/ompi-compare.sh [-n "2 4 8"] [-r RUNS]
set -eu
nps="2 4 8"
runs=15
while getopts n:r: opt; do
    case $opt in
        n) nps=$OPTARG ;;
        r) runs=$OPTARG ;;
        *) echo "usage: $0 [-n \"2 4 8\"] [-r RUNS]" >&2; exit 2 ;;
    esac
done
build=${BUILD_DIR:-build}
lib=$(cd "$build/src/.libs" && pwd -P)
command -v mpicc > /dev/null || {
    echo "ompi-compare: Open MPI not found (apt-get install openmpi-bin libopenmpi-dev)" >&2
    exit 1
}
test -e /usr/lib/x86_64-linux-gnu/libpmix.so.2 || {
    echo "ompi-compare: OpenPMIx 4.2.2 not found (apt-get install libpmix2)" >&2
    exit 1
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mpicc -O2 -Itests/external/openmpi -o "$T/hello" tests/external/openmpi/hello.c
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# one timed run: microseconds on stdout; a failed run stops the benchmark.
# Ours through LD_LIBRARY_PATH; theirs with the variable removed, so that
# the loader finds Debian's libpmix.so.2.
once() { # ours|theirs np
    st=0
    start=$(date +%s%N)
    if [ "$1" = ours ]; then
        env LD_LIBRARY_PATH="$lib" mpirun --oversubscribe -np "$2" "$T/hello" > "$T/out" 2>&1 || st=$?
    else
        env -u LD_LIBRARY_PATH mpirun --oversubscribe -np "$2" "$T/hello" > "$T/out" 2>&1 || st=$?
    fi
    end=$(date +%s%N)
    if [ $st -ne 0 ]; then
        cat "$T/out" >&2
        echo "ompi-compare: mpirun -np $2 ($1) failed" >&2
        exit 1
    fi
    echo $(((end - start) / 1000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); print (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $runs interleaved runs each"
echo
echo "| np | ours median s | 4.2.2 median s | ratio | ours min–max s | 4.2.2 min–max s |"
echo "|---:|---:|---:|---:|---|---|"
for np in $nps; do
    : > "$T/a"
    : > "$T/b"
    once ours "$np" > /dev/null # warm the page cache for both
    once theirs "$np" > /dev/null
    i=0
    while [ $i -lt "$runs" ]; do
        once ours "$np" >> "$T/a"
        once theirs "$np" >> "$T/b"
        i=$((i + 1))
    done
    a=$(median < "$T/a")
    b=$(median < "$T/b")
    amin=$(sort -n "$T/a" | head -1) amax=$(sort -n "$T/a" | tail -1)
    bmin=$(sort -n "$T/b" | head -1) bmax=$(sort -n "$T/b" | tail -1)
    awk -v np="$np" -v a="$a" -v b="$b" -v a0="$amin" -v a1="$amax" -v b0="$bmin" -v b1="$bmax" 'BEGIN {
        printf "| %d | %.3f | %.3f | %.2f | %.3f–%.3f | %.3f–%.3f |\n",
            np, a / 1e6, b / 1e6, a / b, a0 / 1e6, a1 / 1e6, b0 / 1e6, b1 / 1e6 }'
done
