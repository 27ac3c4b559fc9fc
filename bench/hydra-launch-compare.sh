#!/bin/sh
# The launcher's own cost: `-n N /bin/true` under switchyard-run and under
# MPICH's mpiexec.hydra at -n 1/2/4/8, interleaved run by run so both see
# the same load; medians of wall time, their ratio (ours / hydra) and the
# cost per extra rank ((N=8 - N=1) / 7).  With base_builddir set to another
# build (say, main's), its switchyard-run runs in the same interleave as a
# "before" column (docs/performance.md, "MPICH under switchyard-run").
#   sh bench/hydra-launch-compare.sh [iterations]   (default 21; first 2 dropped)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
ITER=${1:-21}
command -v mpiexec.hydra > /dev/null || { echo "needs mpich (apt-get install mpich)" >&2; exit 1; }
# the program itself, not libtool's wrapper script (which forks sed and
# friends on every start), with its own library
# launcher builddir -> its program and library directory in P and L
launcher() {
    if test -x "$1/tools/.libs/switchyard-run"; then
        P=$1/tools/.libs/switchyard-run L=$1/src/.libs
    elif test -x "$1/tools/switchyard-run"; then
        P=$1/tools/switchyard-run L=
    else
        echo "not built: $1/tools/switchyard-run" >&2
        exit 1
    fi
}
launcher "${top_builddir:-$top/build}"
SY=$P SY_LIB=$L
BASE='' BASE_LIB=''
if test -n "${base_builddir:-}"; then
    launcher "$base_builddir"
    BASE=$P BASE_LIB=$L
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-launch-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

now_ms() { date +%s%N | awk '{printf "%.3f", $1 / 1e6}'; }
run() { # file, command...
    f=$1
    shift
    t0=$(now_ms)
    "$@" > /dev/null 2>&1 || echo "failed: $*" >&2
    t1=$(now_ms)
    echo "$t0 $t1" | awk '{printf "%.3f\n", $2 - $1}' >> "$f"
}
for _ in $(seq 1 "$ITER"); do
    for np in 1 2 4 8; do
        run "$T/sy.$np" env LD_LIBRARY_PATH="$SY_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            "$SY" --oversubscribe -n $np /bin/true
        test -z "$BASE" ||
            run "$T/base.$np" env LD_LIBRARY_PATH="$BASE_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
                "$BASE" --oversubscribe -n $np /bin/true
        run "$T/hy.$np" mpiexec.hydra -n $np /bin/true
    done
done
median() { tail -n +3 "$1" | sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "iterations: $ITER (first 2 dropped), load: $(cut -d' ' -f1-3 /proc/loadavg)"
if test -n "$BASE"; then
    printf '%-4s %14s %14s %14s %7s %7s\n' np "switchyard-run" "before" "mpiexec.hydra" ratio before
else
    printf '%-4s %14s %14s %7s\n' np "switchyard-run" "mpiexec.hydra" ratio
fi
for np in 1 2 4 8; do
    s=$(median "$T/sy.$np")
    h=$(median "$T/hy.$np")
    if test -n "$BASE"; then
        b=$(median "$T/base.$np")
        printf '%-4s %11.1f ms %11.1f ms %11.1f ms %6.2fx %6.2fx\n' $np "$s" "$b" "$h" \
            "$(echo "$s $h" | awk '{print $1 / $2}')" "$(echo "$b $h" | awk '{print $1 / $2}')"
    else
        printf '%-4s %11.1f ms %11.1f ms %6.2fx\n' $np "$s" "$h" "$(echo "$s $h" | awk '{print $1 / $2}')"
    fi
done
for who in sy base hy; do
    test -f "$T/$who.1" || continue
    echo "$who: $(median "$T/$who.1") $(median "$T/$who.8")" |
        awk '{printf "%s per extra rank: %.1f ms\n", $1, ($3 - $2) / 7}'
done
