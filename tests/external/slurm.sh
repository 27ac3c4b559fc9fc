#!/bin/sh
# Debian bookworm's Slurm 22.05 runs PMIx jobs on our libpmix.so.2, on one
# node and on two (docs/slurm.md).  A private cluster (munged, slurmctld,
# two slurmd, each slurmd in its own network + UTS + mount namespace; see
# tests/external/slurm/cluster.sh) whose slurmd, slurmstepds and tasks map
# our library through a bind mount over Debian's file, in the daemons'
# private mount namespaces: nothing installed changes.  Every case checks,
# from /proc/PID/maps, that the tasks and their slurmstepd mapped our file
# (by inode: under the bind mount it shows at Debian's path) and none of
# OpenPMIx's plugins; the slurmds are checked the same way.
#
# SY_SLURM_LIB=openpmix runs the same cases on Debian's OpenPMIx 4.2.2
# (no bind mount), to compare; SY_SLURM_LIB=mixed runs them with Slurm on
# stock OpenPMIx (its slurmstepd the PMIx server) and the tasks on ours
# (LD_LIBRARY_PATH through srun --export): our client speaking OpenPMIx's
# protocol to Slurm's mpi_pmix_v4 (tests/external/slurm-mixed.sh).  Installs the packages it needs when absent;
# skipped (77) when they cannot be installed, when not root, or when
# namespaces cannot be made.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
S="$top_srcdir/tests/external/slurm"
LIBDIR=$(cd "$top_builddir/src/.libs" 2> /dev/null && pwd -P)
SY_LIB="$LIBDIR/libpmix.so.2.6.2"
MODE=${SY_SLURM_LIB:-ours}
PMIX2=/usr/lib/x86_64-linux-gnu/pmix2
test -f "$SY_LIB" || { echo "libpmix.so.2 not built"; exit 99; }

if test "$(id -u)" -ne 0; then
    echo "SKIP: Slurm's daemons, namespaces and bind mounts need root"
    exit 77
fi

# A sanitizer build's library would need clang's ASan runtime preloaded into
# slurmd, slurmstepd and the tasks, and clang 14's ASan allocator is not
# fork-safe: slurmstepd allocates in every forked task child, which then
# deadlocks at random when another stepd thread was allocating at fork()
# time (seen: a child stuck in realloc under slurm_setenvpf).  The library
# is the same code as the plain build's, where this test runs.
if grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2> /dev/null; then
    echo "SKIP: not in the sanitizer build (ASan's allocator is not fork-safe in slurmstepd)"
    exit 77
fi

# ---- packages ----
PKGS="slurmctld slurmd slurm-client munge slurm-wlm-basic-plugins libpmix-dev openmpi-bin
      libopenmpi-dev iproute2 util-linux"
have_all() {
    for c in slurmctld slurmd srun sinfo munged mpicc.openmpi ip nsenter unshare; do
        command -v "$c" > /dev/null || return 1
    done
    test -e /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix_v4.so && test -e "$PMIX2/lib/libpmix.so" &&
        test -e "$PMIX2/include/pmix.h"
}
if ! have_all; then
    # (packages must not start system-wide daemons of their own here)
    if ! timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends $PKGS > /dev/null 2>&1; then
        timeout 300 apt-get update > /dev/null 2>&1
        timeout 900 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends $PKGS > /dev/null 2>&1
    fi
    have_all || { echo "SKIP: cannot install $(echo $PKGS)"; exit 77; }
fi

# What this machine must allow: network namespaces, private mount and UTS
# namespaces with bind mounts, and the cgroup file system slurmd 22.05
# insists on (it will not start without /sys/fs/cgroup).
probe=$(unshare --uts --mount --propagation private sh -c \
    'mount --bind /etc/hosts /etc/hosts && hostname sy-probe' 2>&1) ||
    { echo "SKIP: no private mount/UTS namespaces or bind mounts here: $probe"; exit 77; }
probe_ns="sy-probe-$$"
probe=$(ip netns add "$probe_ns" 2>&1) ||
    { echo "SKIP: no network namespaces here: $probe"; exit 77; }
ip netns del "$probe_ns"
if ! awk '$2 == "/sys/fs/cgroup" { found = 1 } END { exit !found }' /proc/self/mounts; then
    echo "SKIP: /sys/fs/cgroup is not mounted: slurmd 22.05 does not start without it"
    exit 77
fi

. "$S/cluster.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-slurm.XXXXXX")
# the cluster's base: short, for the UNIX socket paths under it
B=$(mktemp -d /tmp/sy-slurm.XXXXXX)
cleanup() {
    sy_cluster_stop
    rm -rf "$T" "$B"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the programs: built as a site builds them, against Debian's pmix ----
for p in pmix_client pmix_abort pmix_pubsub; do
    cc -O1 -Wall -I"$PMIX2/include" -o "$T/$p" "$S/$p.c" -L"$PMIX2/lib" -lpmix > "$T/build" 2>&1 ||
        { cat "$T/build"; echo "Bail out! cc $p"; exit 99; }
done
for p in "$S/mpi_hello.c" "$top_srcdir/tests/external/openmpi/ring.c"; do
    mpicc.openmpi -O1 -Wall -o "$T/$(basename "$p" .c)" "$p" > "$T/build" 2>&1 ||
        { cat "$T/build"; echo "Bail out! mpicc $p"; exit 99; }
done

# What the processes must map: our file (its inode), or Debian's.
OURS_INO=$(stat -L -c %i "$SY_LIB")
THEIRS_INO=$(stat -L -c %i "$PMIX2/lib/libpmix.so.2.6.2")
if [ "$MODE" = ours ]; then WANT_INO=$OURS_INO; else WANT_INO=$THEIRS_INO; fi
# the daemons' library, and the tasks' (they differ only in mixed mode)
DAEMON_INO=$WANT_INO
TASK_INO=$WANT_INO
CLUSTER_LIB=$MODE
EXPORT=
if [ "$MODE" = mixed ]; then
    DAEMON_INO=$THEIRS_INO
    TASK_INO=$OURS_INO
    CLUSTER_LIB=openpmix
    EXPORT="--export=ALL,LD_LIBRARY_PATH=$LIBDIR"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset LD_LIBRARY_PATH

if ! sy_cluster_start "$B" 2 "$CLUSTER_LIB"; then
    echo "Bail out! the cluster did not start: $sy_cluster_error"
    tail -n 20 "$B"/log/*.log 2> /dev/null
    exit 1
fi
echo "# cluster up ($MODE library): $(sy_srun -N 2 -n 2 hostname 2>&1 | sort | tr '\n' ' ')"

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
    n=$((n + 1))
    fails=$((fails + 1))
    echo "not ok $n - $1"
    sed 's/^/#   /' "$T/out" | head -40
    tail -n 15 "$B"/log/slurmd-n*.log | sed 's/^/#   /'
}

# run SECONDS SRUN-ARGS...: output in $T/out, status in $rc
run() {
    t=$1
    shift
    timeout "$t" nsenter --net="/run/netns/${SY_NSP}h" srun -t 2 $EXPORT "$@" > "$T/out" 2>&1
    rc=$?
}
count() { grep -c -- "$1" "$T/out"; }
# Every task and its slurmstepd mapped the wanted libpmix (at least `1`
# reports of each), and nothing of OpenPMIx's plugins in a task of ours.
mapped() {
    tasks=$(grep -c '^task libpmix ' "$T/out")
    stepds=$(grep -c '^stepd libpmix ' "$T/out")
    wrong=$(grep -E '^task libpmix ' "$T/out" | awk -v w="$TASK_INO" '$3 != w' | wc -l)
    wrong=$((wrong + $(grep -E '^stepd libpmix ' "$T/out" | awk -v w="$DAEMON_INO" '$3 != w' | wc -l)))
    plugins=$(grep -c '^task openpmix-plugin' "$T/out")
    [ "$MODE" = mixed ] || plugins=$((plugins + $(grep -c '^stepd openpmix-plugin' "$T/out")))
    [ "$tasks" -ge "$1" ] && [ "$stepds" -ge "$1" ] && [ "$wrong" -eq 0 ] &&
        { [ "$MODE" = openpmix ] || [ "$plugins" -eq 0 ]; }
}

# ---- one node ----
for np in 1 2 4; do
    run 120 --mpi=pmix -N 1 -n $np --overcommit "$T/pmix_client" --maps
    if [ $rc -eq 0 ] && [ "$(count "^pmix rank ./$np ok")" -eq $np ] && mapped $np; then
        ok "one node: srun --mpi=pmix -n $np pmix_client (job data, fence, get of every peer)"
    else
        bad "one node: srun -n $np pmix_client (exit $rc)"
    fi
done
run 120 --mpi=pmix -N 1 -n 2 "$T/pmix_client" --collect
if [ $rc -eq 0 ] && [ "$(count '^pmix rank ./2 ok .*, collect)')" -eq 2 ]; then
    ok "one node: fence with PMIX_COLLECT_DATA"
else
    bad "one node: fence with PMIX_COLLECT_DATA (exit $rc)"
fi
for c in "pmix hello 2" "pmix_v4 hello 4" "pmix_v4 ring 2" "pmix ring 4"; do
    set -- $c
    prog=$T/ring
    [ "$2" = hello ] && prog=$T/mpi_hello
    run 120 --mpi=$1 -N 1 -n $3 --overcommit "$prog"
    if [ "$2" = hello ]; then
        good=$([ "$(count "^hello from . of $3 on n[12] sum=$(($3 * ($3 + 1) / 2))$")" -eq $3 ] &&
            mapped $3 && echo y)
    else
        want=$((3 * $3 * ($3 - 1) / 2))
        good=$(grep -q "^ring token $want expected $want$" "$T/out" && echo y)
    fi
    if [ $rc -eq 0 ] && [ "$good" = y ]; then
        ok "one node: Open MPI $2, srun --mpi=$1 -n $3"
    else
        bad "one node: Open MPI $2, srun --mpi=$1 -n $3 (exit $rc)"
    fi
done
run 60 --mpi=pmix -N 1 -n 2 "$T/pmix_abort"
if [ $rc -eq 7 ] && grep -q 'rank 1 calls PMIx_Abort(7)' "$T/out"; then
    ok "PMIx_Abort(7): srun exits 7"
else
    bad "PMIx_Abort(7): srun exit $rc, expected 7"
fi
run 60 --mpi=pmix -N 1 -n 2 "$T/pmix_pubsub"
if [ $rc -eq 0 ] &&
   [ "$(count 'publish NOT-SUPPORTED lookup NOT-SUPPORTED unpublish NOT-SUPPORTED$')" -eq 2 ]; then
    ok "publish/lookup/unpublish answered as Slurm answers them (NOT-SUPPORTED)"
else
    bad "publish/lookup/unpublish (exit $rc)"
fi

# ---- two nodes: slurmstepd's own transport between them ----
for c in "no-collect" "--collect" "--no-fence"; do
    arg=$c
    [ "$c" = no-collect ] && arg=
    run 120 --mpi=pmix -N 2 -n 4 "$T/pmix_client" --maps $arg
    on1=$(count '^pmix rank ./4 ok .*host n1')
    on2=$(count '^pmix rank ./4 ok .*host n2')
    if [ $rc -eq 0 ] && [ "$on1" -eq 2 ] && [ "$on2" -eq 2 ] && mapped 4; then
        ok "two nodes: srun -N 2 -n 4 pmix_client ${arg:-(fence without data)}"
    else
        bad "two nodes: pmix_client $c (exit $rc; $on1 ranks ok on n1, $on2 on n2)"
    fi
done
# The fence is a barrier across the nodes: rank 3 (on n2) enters 2 s late,
# nobody may leave before it entered.
run 120 --mpi=pmix -N 2 -n 4 "$T/pmix_client" --delay 3
late=$(awk '$1 == "fence" && $3 == 3 { print $5 }' "$T/out")
first=$(awk '$1 == "fence" { print $7 }' "$T/out" | sort -n | head -1)
if [ $rc -eq 0 ] && [ -n "$late" ] && [ -n "$first" ] && [ "$first" -ge "$late" ]; then
    ok "two nodes: the fence waits for a late rank on the other node"
else
    bad "two nodes: barrier (exit $rc, first exit ${first:-?} ms, late entry ${late:-?} ms)"
fi
run 180 --mpi=pmix -N 2 -n 4 "$T/mpi_hello"
if [ $rc -eq 0 ] && [ "$(count '^hello from . of 4 on n1 sum=10$')" -eq 2 ] &&
   [ "$(count '^hello from . of 4 on n2 sum=10$')" -eq 2 ] && mapped 4; then
    ok "two nodes: Open MPI hello, srun -N 2 -n 4"
else
    bad "two nodes: Open MPI hello (exit $rc)"
fi

# ---- the daemons themselves ----
good=y
for k in 1 2; do
    pid=$(sy_slurmd_pid $k)
    inos=$(awk '/libpmix\.so/ { print $5 }' "/proc/$pid/maps" 2> /dev/null | sort -u)
    [ "$inos" = "$DAEMON_INO" ] || good=n
done
if [ "$good" = y ]; then
    ok "slurmd on both nodes mapped the $CLUSTER_LIB libpmix.so.2 (inode $DAEMON_INO)"
else
    echo "slurmd maps: $(for k in 1 2; do awk '/libpmix/ { print $5, $6 }' "/proc/$(sy_slurmd_pid $k)/maps"; done | sort -u)" > "$T/out"
    bad "slurmd mapped another libpmix"
fi

echo "1..$n"
test $fails -eq 0
