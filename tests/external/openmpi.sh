#!/bin/sh
# Debian's Open MPI 4.1 (openmpi-bin, libopenmpi-dev: built against
# OpenPMIx 4.2.2) run unmodified on our libpmix.so.2, in both roles: mpirun
# and orted embed our server, the ranks our client.  The MPI programs are
# ours (tests/external/openmpi/*.c); each reports which libpmix it and its
# parent mapped (/proc/PID/maps), and every report must name ours.  The
# packages are installed when absent; without them and without network the
# test is skipped (77).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
R="$top_builddir/tools/switchyard-run"
LIB=$(cd "$top_builddir/src/.libs" && pwd -P)
S="$top_srcdir/tests/external/openmpi"
test -x "$R" || { echo "switchyard-run not built"; exit 99; }
test -e "$LIB/libpmix.so.2" || { echo "libpmix.so.2 not built"; exit 99; }

if ! command -v mpicc > /dev/null || ! command -v mpirun > /dev/null ||
   ! test -e /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/mca_pmix_ext3x.so; then
    if test "$(id -u)" -ne 0 ||
       ! timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends openmpi-bin libopenmpi-dev > /dev/null 2>&1; then
        timeout 300 apt-get update > /dev/null 2>&1
        timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends openmpi-bin libopenmpi-dev > /dev/null 2>&1 || {
            echo "SKIP: cannot install openmpi-bin and libopenmpi-dev"
            exit 77
        }
    fi
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/sy-openmpi.XXXXXX")
# Each scenario runs under timeout(1), which makes itself the leader of a
# process group that mpirun, orted and the ranks join: those groups are
# what the test started, and all it kills.
pgids=""
cleanup() {
    # nothing of a failed scenario may outlive the test
    for pg in $pgids; do kill -KILL -- "-$pg" 2> /dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT INT TERM

# Our library first for mpirun, orted and every rank; as root mpirun wants
# its consent.  In a sanitizer build our library needs the sanitizer
# runtime loaded first in every process; Open MPI's own leaks are not ours.
export LD_LIBRARY_PATH="$LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 SY_EXPECT_LIBDIR="$LIB"
# keep Open MPI off the network interfaces of the machine
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# (Only into Open MPI's processes: switchyard-run has the runtime linked in.)
PRE=
XPRE=
if grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2>/dev/null; then
    PRE="LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)"
    XPRE="-x $PRE"
    # Open MPI's own race, not ours: ORTE's log upcall (MPI_Abort's
    # message) hands a buffer to its messaging layer from the thread it was
    # called on, and ORTE's main thread may free it before that call has
    # copied it.  ASan sees it in ORTE's code only.
    echo "interceptor_via_fun:orte_rml_oob_send_buffer_nb" > "$T/asan.supp"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0:suppressions=$T/asan.supp"
fi

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
    n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"
    test -f "$T/out" && sed 's/^/#   /' "$T/out" | head -30
}

for p in hello ring mpmd spawn pubsub accept abort nofinalize; do
    if ! mpicc -O1 -Wall -I"$S" -o "$T/$p" "$S/$p.c" > "$T/build" 2>&1; then
        cat "$T/build"
        echo "Bail out! mpicc $p"
        exit 99
    fi
done
cat > "$T/fakersh" <<'EOS'
#!/bin/sh
# ssh stand-in for a second "node" on this machine: drop ssh's options and
# the host name, run the rest here
while [ $# -gt 0 ]; do case "$1" in -*) shift ;; *) break ;; esac; done
shift
exec /bin/sh -c "$*"
EOS
chmod +x "$T/fakersh"

# run SECONDS COMMAND...: output in $T/out, status in $rc
run() {
    t=$1
    shift
    (cd "$T" && exec timeout "$t" env $PRE "$@") > "$T/out" 2>&1 &
    pgids="$pgids $!"
    wait $!
    rc=$?
}
# runsy SECONDS SWITCHYARD-RUN-ARGS...: the same for our launcher
runsy() {
    t=$1
    shift
    (cd "$T" && exec timeout "$t" "$R" $XPRE "$@") > "$T/out" 2>&1 &
    pgids="$pgids $!"
    wait $!
    rc=$?
}
# every libpmix mapped is ours, and there were N reports of it
ours() {
    test "$(grep -c ' libpmix ' "$T/out")" -ge "$1" && ! grep ' libpmix ' "$T/out" | grep -v -q " $LIB/"
}
# no line of Open MPI's complaining
clean() { ! grep -q -i -E 'error|failed|abort|not found' "$T/out"; }
count() { grep -c "$1" "$T/out"; }

for np in 1 2 4 8 16; do
    run 120 mpirun --oversubscribe -np $np ./hello
    if [ $rc -eq 0 ] && [ "$(count "^hello from .* of $np sum=$np")" -eq $np ] && ours $((2 * np)) && clean; then
        ok "mpirun -np $np hello"
    else
        bad "mpirun -np $np hello (exit $rc)"
    fi
done

run 60 mpirun --oversubscribe -np 4 ./ring
if [ $rc -eq 0 ] && grep -q '^ring token 18 expected 18$' "$T/out" && clean; then
    ok "mpirun -np 4 ring"
else
    bad "mpirun -np 4 ring (exit $rc)"
fi

run 60 mpirun --oversubscribe -np 1 ./mpmd a : -np 2 ./mpmd b
if [ $rc -eq 0 ] && [ "$(count '^mpmd rank .* of 3 app . appnum . total 3$')" -eq 3 ] && clean; then
    ok "MPMD mpirun -np 1 a : -np 2 b"
else
    bad "MPMD (exit $rc)"
fi

# a singleton starts an orted of its own: the dynamic loader's log of every
# process must show ours loaded in both, and OpenPMIx's in none
mkdir "$T/ld"
run 60 env LD_DEBUG=libs LD_DEBUG_OUTPUT="$T/ld/p" ./hello
loaded=$(grep -l 'calling init: .*/libpmix.so.2' "$T/ld"/p.* 2> /dev/null | wc -l)
theirs=$(grep 'calling init: .*/libpmix.so.2' "$T/ld"/p.* 2> /dev/null | grep -v -c " $LIB/")
if [ $rc -eq 0 ] && grep -q '^hello from 0 of 1 sum=1$' "$T/out" && ours 1 && clean &&
   [ "$loaded" -ge 2 ] && [ "$theirs" -eq 0 ]; then
    ok "singleton hello (its orted on our server)"
else
    bad "singleton hello (exit $rc)"
fi

run 120 mpirun --oversubscribe -np 2 ./spawn
if [ $rc -eq 0 ] && [ "$(count '^parent .* 2 children, got 20[01] from child')" -eq 2 ] &&
   [ "$(count '^child . of 2: 2 parents, got 10[01]$')" -eq 2 ] && clean; then
    ok "MPI_Comm_spawn: 2 parents + 2 children, intercommunicator, disconnect"
else
    bad "MPI_Comm_spawn (exit $rc)"
fi

run 60 mpirun --oversubscribe -np 2 ./pubsub
if [ $rc -eq 0 ] && [ "$(count '^pubsub rank . ok$')" -eq 2 ] && ! grep -q -i error "$T/out"; then
    ok "MPI_Publish_name / Lookup_name / Unpublish_name"
else
    bad "publish/lookup/unpublish (exit $rc)"
fi

run 120 mpirun --oversubscribe -np 4 ./accept
if [ $rc -eq 0 ] && [ "$(count '^accept rank .: remote size 2 sum \(.\) expected \1$')" -eq 4 ] && clean; then
    ok "MPI_Open_port / Comm_accept / Comm_connect in one job"
else
    bad "accept/connect (exit $rc)"
fi

# (The message goes through the log upcall into the race described above:
# in the slow sanitizer build ORTE may lose it, so there only the status
# is checked.  On a loaded machine the plain build loses it too, now and
# then: ORTE then reports its own show_help unpack failure instead.)
run 60 mpirun --oversubscribe -np 3 ./abort
if [ $rc -eq 3 ] && { [ -n "$PRE" ] || grep -q 'MPI_ABORT was invoked on rank 1' "$T/out" ||
    grep -q 'ORTE_ERROR_LOG: .*show_help\.c' "$T/out"; }; then
    ok "MPI_Abort(3): mpirun exits 3"
else
    bad "MPI_Abort (exit $rc, expected 3)"
fi

run 60 mpirun --oversubscribe -np 3 ./nofinalize
if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'rank 1' "$T/out" && grep -q -i 'finalize' "$T/out"; then
    ok "a rank exits without MPI_Finalize: reported, no hang"
else
    bad "exit without MPI_Finalize (exit $rc)"
fi

# Two daemons on this machine: mpirun's server and an orted's, relaying
# fence data (and, with the async modex, direct modex requests).
two="--mca plm_rsh_agent $T/fakersh --host $(hostname),sy-fakenode2 --map-by node -np 2"
run 120 mpirun $two ./hello
if [ $rc -eq 0 ] && [ "$(count '^hello from . of 2 sum=2$')" -eq 2 ] && ours 4 && clean; then
    ok "two daemons: fence data through the hosts"
else
    bad "two daemons (exit $rc)"
fi
run 120 mpirun $two --mca pmix_base_async_modex 1 --mca pmix_base_collect_data 0 ./hello
if [ $rc -eq 0 ] && [ "$(count '^hello from . of 2 sum=2$')" -eq 2 ] && ours 4 && clean; then
    ok "two daemons, async modex: direct modex through the hosts"
else
    bad "two daemons, async modex (exit $rc)"
fi

# The other direction: our launcher starts Open MPI's ranks itself.
runsy 120 --oversubscribe -n 4 ./hello
if [ $rc -eq 0 ] && [ "$(count '^hello from . of 4 sum=4$')" -eq 4 ] && ours 8 && clean; then
    ok "switchyard-run -n 4 hello (direct launch)"
else
    bad "switchyard-run -n 4 hello (exit $rc)"
fi
runsy 120 --oversubscribe -n 2 ./spawn
if [ $rc -eq 0 ] && [ "$(count '^child . of 2: 2 parents')" -eq 2 ] && clean; then
    ok "switchyard-run: MPI_Comm_spawn through PMIx_Spawn"
else
    bad "switchyard-run spawn (exit $rc)"
fi
runsy 60 --oversubscribe -n 3 ./abort
if [ $rc -eq 3 ] && grep -q 'switchyard-run: rank 1 called PMIx_Abort with status 3' "$T/out"; then
    ok "switchyard-run: MPI_Abort(3) ends the job with 3"
else
    bad "switchyard-run abort (exit $rc)"
fi
runsy 60 --oversubscribe -n 3 ./nofinalize
if [ $rc -eq 1 ] && grep -q 'rank 1 .* exited with status 0 without calling PMIx_Finalize' "$T/out"; then
    ok "switchyard-run: a rank leaving without MPI_Finalize fails the job"
else
    bad "switchyard-run nofinalize (exit $rc)"
fi

echo "1..$n"
test $fails -eq 0
