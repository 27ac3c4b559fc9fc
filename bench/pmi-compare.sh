#!/bin/sh
# PMI-1 barrier and PMI-2 kvs-fence latency over the wire (bench/pmi_barrier.c,
# no PMI library) under switchyard-run and under MPICH's mpiexec.hydra, at
# -n 2/4/8, interleaved run by run so both see the same load; per launcher
# the median over the runs of rank 0's mean barrier time, and the ratio
# ours/hydra (docs/performance.md, "PMI barrier").
#   sh bench/pmi-compare.sh [runs] [barriers per run]   (default 7, 200)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
B=${top_builddir:-$top/build}
R="$B/tools/switchyard-run"
# the program itself, not libtool's wrapper script
if test -x "$B/tools/.libs/switchyard-run"; then
    R="$B/tools/.libs/switchyard-run"
    export LD_LIBRARY_PATH="$B/src/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
RUNS=${1:-7}
ITER=${2:-200}
command -v mpiexec.hydra > /dev/null || { echo "needs mpich (apt-get install mpich)" >&2; exit 1; }
test -x "$R" || { echo "not built: $R" >&2; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-pmi-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
${CC:-cc} -O2 -o "$T/pmi_barrier" "$top/bench/pmi_barrier.c"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq 1 "$RUNS"); do
    for v in 1 2; do
        for np in 2 4 8; do
            "$R" --oversubscribe -n $np "$T/pmi_barrier" $v "$ITER" | awk '{print $3}' >> "$T/sy.$v.$np"
            mpiexec.hydra -n $np "$T/pmi_barrier" $v "$ITER" | awk '{print $3}' >> "$T/hy.$v.$np"
        done
    done
done
median() { sort -n "$1" | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "runs: $RUNS x $ITER barriers; load before: $load_before, after: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-4s %16s %16s %8s\n' wire np "switchyard-run" "mpiexec.hydra" ratio
for v in 1 2; do
    for np in 2 4 8; do
        s=$(median "$T/sy.$v.$np")
        h=$(median "$T/hy.$v.$np")
        printf '%-6s %-4s %13.1f us %13.1f us %7.2fx\n' "PMI-$v" $np "$s" "$h" \
            "$(echo "$s $h" | awk '{print $1 / $2}')"
    done
done
