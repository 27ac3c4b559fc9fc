#!/bin/sh
# srun wall time under Debian's Slurm 22.05 with our libpmix.so.2 against
# OpenPMIx 4.2.2, and slurmstepd's own CPU time with each.  Two private
# clusters of two nodes run side by side (tests/external/slurm/cluster.sh):
# one whose slurmd, slurmstepds and tasks map our library (bind mount), one
# on Debian's.  Each case runs on both in turn (ours, theirs, theirs, ours,
# ... so that the machine's drift hits both alike); the table has medians
# and ratios (ours / 4.2.2; below 1 is better for us).  slurmd runs under
# bench/slurm_reaper.c, a child subreaper that logs the CPU time of each
# slurmstepd as it ends (its own threads, not its tasks): per step, the sum
# over the step's nodes.  Needs root; run from the top of the source tree
# after `sh scripts/build.sh`:
#   sh bench/slurm-compare.sh [-r RUNS]
set -eu
runs=11
while getopts r: opt; do
    case $opt in
        r) runs=$OPTARG ;;
        *) echo "usage: $0 [-r RUNS]" >&2; exit 2 ;;
    esac
done
top=$(pwd)
build=${BUILD_DIR:-build}
SY_LIB=$(cd "$build/src/.libs" && pwd -P)/libpmix.so.2.6.2
PMIX2=/usr/lib/x86_64-linux-gnu/pmix2
S=$top/tests/external/slurm
test "$(id -u)" -eq 0 || { echo "slurm-compare: needs root" >&2; exit 1; }
for c in slurmd slurmctld srun munged mpicc.openmpi; do
    command -v $c > /dev/null || {
        echo "slurm-compare: $c missing (sh tests/external/slurm.sh installs what is needed)" >&2
        exit 1
    }
done
. "$S/cluster.sh"

T=$(mktemp -d /tmp/sy-slurmb.XXXXXX)
cc -O2 -Wall -I"$PMIX2/include" -o "$T/pmix_client" "$S/pmix_client.c" -L"$PMIX2/lib" -lpmix
mpicc.openmpi -O2 -o "$T/mpi_hello" "$S/mpi_hello.c"
cc -O2 -Wall -o "$T/reaper" "$top/bench/slurm_reaper.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset LD_LIBRARY_PATH

# Two clusters: cluster.sh keeps one's state in globals, saved here.
save() { # prefix
    eval "${1}_NSP=\$SY_NSP ${1}_CONF=\$SLURM_CONF ${1}_NS=\"\$sy_ns_list\""
    eval "${1}_PIDS=\"\$sy_daemon_pids\" ${1}_MUNGED=\$sy_munged_pid ${1}_BASE=\$SY_BASE"
}
restore() {
    eval "SY_NSP=\$${1}_NSP SLURM_CONF=\$${1}_CONF sy_ns_list=\"\$${1}_NS\""
    eval "sy_daemon_pids=\"\$${1}_PIDS\" sy_munged_pid=\$${1}_MUNGED SY_BASE=\$${1}_BASE"
}
stop_all() {
    for c in A B; do
        if eval "[ -n \"\${${c}_NSP:-}\" ]"; then
            restore $c
            sy_cluster_stop
        fi
    done
    rm -rf "$T"
}
trap stop_all EXIT
trap 'exit 1' INT TERM
for c in A B; do
    mkdir -p "$T/$c/cpu"
    mode=ours
    [ $c = B ] && mode=openpmix
    SY_SLURMD_WRAP="$T/reaper $T/$c/cpu/@NODE@"
    export SY_SLURMD_WRAP
    sy_cluster_start "$T/$c" 2 $mode || {
        echo "slurm-compare: cluster $c: $sy_cluster_error" >&2
        exit 1
    }
    save $c
done

# stepd lines in a cluster's CPU logs
stepds() { cat "$T/$1"/cpu/n* 2> /dev/null | awk '$2 == "slurmstepd"' | wc -l; }
stepd_ticks() { cat "$T/$1"/cpu/n* 2> /dev/null | awk '$2 == "slurmstepd" { print $3 + $4 }'; }

# once A|B NODES ARGS...: one timed srun; appends its wall time (us) to
# $T/<c>.wall and the CPU ticks of its slurmstepds to $T/<c>.cpu
once() {
    c=$1 nodes=$2
    shift 2
    before=$(stepds $c)
    eval "conf=\$${c}_CONF nsp=\$${c}_NSP"
    start=$(date +%s%N)
    st=0
    SLURM_CONF=$conf nsenter --net="/run/netns/${nsp}h" srun -t 2 "$@" > "$T/out" 2>&1 || st=$?
    end=$(date +%s%N)
    if [ $st -ne 0 ]; then
        cat "$T/out" >&2
        echo "slurm-compare: srun $* on cluster $c failed" >&2
        exit 1
    fi
    echo $(((end - start) / 1000)) >> "$T/$c.wall"
    # the step's slurmstepds end shortly after srun returns
    w=0
    while [ "$(stepds $c)" -lt $((before + nodes)) ] && [ $w -lt 100 ]; do
        sleep 0.05
        w=$((w + 1))
    done
    stepd_ticks $c | tail -n +$((before + 1)) | awk '{ s += $1 } END { print s + 0 }' >> "$T/$c.cpu"
}
median() { sort -n | awk '{ v[NR] = $1 } END { m = int((NR + 1) / 2); print (NR % 2) ? v[m] : (v[m] + v[m + 1]) / 2 }'; }
tick_ms=$((1000 / $(getconf CLK_TCK)))

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $runs interleaved runs each; CPU in ${tick_ms} ms ticks"
echo
echo "| case | ours median s | 4.2.2 median s | ratio | stepd CPU ours ms | stepd CPU 4.2.2 ms | CPU ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|"
# The first case loads no PMIx at all (--mpi=none): the same on both
# clusters, it shows the noise and the stepd CPU Slurm spends by itself.
for case in "no PMIx (--mpi=none true), 1 node, -n 2|1|--mpi=none -N 1 -n 2 /bin/true" \
            "PMIx client, 1 node, -n 2|1|--mpi=pmix -N 1 -n 2 $T/pmix_client" \
            "PMIx client, 2 nodes, -n 4|2|--mpi=pmix -N 2 -n 4 $T/pmix_client" \
            "Open MPI hello, 1 node, -n 2|1|--mpi=pmix -N 1 -n 2 $T/mpi_hello" \
            "Open MPI hello, 2 nodes, -n 4|2|--mpi=pmix -N 2 -n 4 $T/mpi_hello"; do
    name=${case%%|*}
    rest=${case#*|}
    nodes=${rest%%|*}
    args=${rest#*|}
    rm -f "$T"/A.wall "$T"/B.wall "$T"/A.cpu "$T"/B.cpu
    once A "$nodes" $args # warm both
    once B "$nodes" $args
    rm -f "$T"/A.wall "$T"/B.wall "$T"/A.cpu "$T"/B.cpu
    i=0
    while [ $i -lt "$runs" ]; do
        if [ $((i % 2)) -eq 0 ]; then
            once A "$nodes" $args
            once B "$nodes" $args
        else
            once B "$nodes" $args
            once A "$nodes" $args
        fi
        i=$((i + 1))
    done
    a=$(median < "$T/A.wall")
    b=$(median < "$T/B.wall")
    ca=$(median < "$T/A.cpu")
    cb=$(median < "$T/B.cpu")
    awk -v n="$name" -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" -v t="$tick_ms" 'BEGIN {
        printf "| %s | %.3f | %.3f | %.2f | %d | %d | %s |\n", n, a / 1e6, b / 1e6, a / b,
            ca * t, cb * t, (cb > 0 ? sprintf("%.2f", ca / cb) : "-") }'
done
