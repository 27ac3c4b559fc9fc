#!/bin/sh
# Wire interop between our library and OpenPMIx 4.2.2's (Debian's
# libpmix2, Open MPI 4.1 on it), issue 19: a client library and a server
# library that are not the same implementation, in both directions.  Every
# run checks from /proc/.../maps that each process mapped the library it is
# meant to.  Sections:
#   1. OpenPMIx clients under our server (switchyard-run): init, job keys,
#      put/commit/fence with collect, every peer's key, finalize; a mixed
#      job (half on each library) fencing together; PMIx_Abort's status;
#      the ds21 shared-memory store (interop/opx_ds21.c);
#      connect/disconnect (also with a spawned job), group invite/join,
#      group info read back by the context id (mixed with ours),
#      allocation, monitor, credentials, groups, IOF, fabric
#      (interop/opx_ops.c); device distances the server computes for them
#      (interop/opx_dist.c).  OpenPMIx tools attached to a running
#      switchyard-run (interop/opx_tool.c, Debian's pps): identity from the
#      launcher, namespaces and process table by query, finalize;
#      attach_to_server; events between two tools; a refused one told at
#      once.  OpenPMIx singletons run alone, also beside a
#      system server of ours (interop/opx_singleton.c).
#      interop/opx_client.c is built twice: against Debian's headers with
#      its libpmix pinned by DT_RPATH, and against ours.
#   2. Our clients under an OpenPMIx server (Debian's mpirun.openmpi, which
#      runs on Debian's libpmix; our directory reaches only the ranks): a
#      PMIx client, MPI hello, ring, publish/lookup, PMIx_Connect of a
#      job, PMIx_Spawn and the new job's size, MPI_Comm_spawn (-np 1 and
#      2, 2 children), abort.
# Missing packages are installed; without them the test is skipped (77).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
# absolute: the script changes directory (relative ones, as make check or a
# hand run may pass, would then name nothing)
top_srcdir=$(cd "$top_srcdir" && pwd)
top_builddir=$(cd "$top_builddir" && pwd)
R="$top_builddir/tools/switchyard-run"
OURS="$top_builddir/src/.libs"
OPX_INC=/usr/lib/x86_64-linux-gnu/pmix2/include
OPX_LIB=/usr/lib/x86_64-linux-gnu/pmix2/lib
test -x "$R" || { echo "switchyard-run not built"; exit 99; }
if ! command -v mpicc.openmpi > /dev/null || ! command -v mpirun.openmpi > /dev/null ||
   ! command -v pps > /dev/null ||
   ! test -e "$OPX_LIB/libpmix.so.2" || ! test -e "$OPX_INC/pmix.h"; then
    pk="openmpi-bin libopenmpi-dev libpmix-dev libpmix-bin"
    if test "$(id -u)" -ne 0 ||
       ! timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends $pk > /dev/null 2>&1; then
        timeout 300 apt-get update > /dev/null 2>&1
        timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
            --no-install-recommends $pk > /dev/null 2>&1 || {
            echo "SKIP: cannot install $pk"
            exit 77
        }
    fi
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-interop.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# In a sanitizer build our library needs the sanitizer runtime in the
# program linked with it.
SAN=
CCX=${CC:-cc}
if grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2>/dev/null; then
    CCX=clang
    SAN="-fsanitize=address,undefined"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
SRC="$top_srcdir/tests/external/interop/opx_client.c"
# build_opx SRC OUT [LIBS...] / build_ours SRC OUT: a test program built
# against OpenPMIx's library or ours; bails out (99) when it does not build.
# DT_RPATH (not RUNPATH): it wins over any LD_LIBRARY_PATH a launcher sets
build_opx() {
    bsrc=$1 bout=$2
    shift 2
    if ! cc -std=gnu11 -O1 -I"$OPX_INC" "$bsrc" -o "$bout" -L"$OPX_LIB" -lpmix "$@" \
            -Wl,--disable-new-dtags,-rpath,"$OPX_LIB" > "$T/build.log" 2>&1; then
        sed 's/^/#   /' "$T/build.log" | head -10
        echo "Bail out! $(basename "$bsrc") does not build against OpenPMIx"
        exit 99
    fi
}
build_ours() {
    bsrc=$1 bout=$2
    shift 2
    if ! $CCX $SAN -std=gnu11 -O1 -I"$top_srcdir/include" "$bsrc" -o "$bout" -L"$OURS" -lpmix "$@" \
            -Wl,--disable-new-dtags,-rpath,"$OURS" > "$T/build.log" 2>&1; then
        sed 's/^/#   /' "$T/build.log" | head -10
        echo "Bail out! $(basename "$bsrc") does not build on our library"
        exit 99
    fi
}
build_opx "$SRC" "$T/opx_client"
build_ours "$SRC" "$T/our_client"

# name expected-exit pattern-count run-args...
job() {
    name=$1 want=$2 count=$3
    shift 3
    (cd "$T" && timeout 60 "$R" --oversubscribe --timeout 45 "$@") > "$T/out" 2>&1
    rc=$?
    got=$(grep -c '^rank [0-9]* of [0-9]* ok$' "$T/out")
    if [ "$rc" -eq "$want" ] && [ "$got" -eq "$count" ]; then
        ok "$name"
    else
        bad "$name (exit $rc, want $want; $got of $count ranks ok)"
        sed 's/^/#   /' "$T/out" | tail -15
    fi
}

lib_is() { # what: the LIB line of rank 0 names that library
    if grep -q "^LIB $1" "$T/out"; then ok "$2"; else
        bad "$2"; grep '^LIB' "$T/out" | sed 's/^/#   /'
    fi
}

# ---- 1. OpenPMIx clients under our server ----
job "4 OpenPMIx clients under switchyard-run: init, job keys, fence, get all" 0 4 \
    -x INTEROP_PACK_OUT="$T/packed" -n 4 ./opx_client
C="$top_builddir/tests/external/interop/opx_check"
if test -x "$C" && "$C" "$T/packed" > "$T/check.out" 2>&1; then
    ok "OpenPMIx's own PMIx_Data_pack output reads and re-packs identically with ours"
else
    bad "OpenPMIx's own PMIx_Data_pack output reads and re-packs identically with ours"
    sed 's/^/#   /' "$T/check.out" 2>/dev/null | head -5
fi
lib_is "$OPX_LIB/libpmix.so" "the OpenPMIx clients ran on Debian's libpmix"
if grep -q 'interop: logged by rank 0' "$T/out"; then
    ok "an OpenPMIx client's PMIx_Log reached the launcher"
else
    bad "an OpenPMIx client's PMIx_Log reached the launcher"
fi
job "mixed job: 2 OpenPMIx + 2 of ours fence and exchange data" 0 4 \
    -n 2 ./opx_client : -n 2 ./our_client
lib_is "$OPX_LIB/libpmix.so" "rank 0 of the mixed job ran on Debian's libpmix"
job "mixed job, ours first: 2 of ours + 2 OpenPMIx" 0 4 \
    -n 2 ./our_client : -n 2 ./opx_client
lib_is "$OURS/libpmix.so" "rank 0 of the second mixed job ran on ours"
job "PMIx_Abort(7) of an OpenPMIx client ends the job with status 7" 7 0 \
    -n 4 ./opx_client abort
if grep -q 'called PMIx_Abort with status 7' "$T/out"; then
    ok "the launcher reports the OpenPMIx client's abort"
else
    bad "the launcher reports the OpenPMIx client's abort"
fi

# The ds21 store (interop/opx_ds21.c): OpenPMIx clients read job data and
# every peer's keys (64 B to 100 KiB, one replaced with another size) from
# the shared memory our server writes, seen in their /proc/self/maps; with
# SWITCHYARD_OPX_DS21=0 they ask instead; a mixed job exchanges through
# both; nothing is left in the server's TMPDIR afterwards.
DS="$top_srcdir/tests/external/interop/opx_ds21.c"
build_opx "$DS" "$T/opx_ds21"
build_ours "$DS" "$T/our_ds21"
ds21_job() { # name ranks want-yes run-args...: in a private TMPDIR, left empty
    dname=$1 dranks=$2 dyes=$3
    shift 3
    rm -rf "$T/dtmp" && mkdir "$T/dtmp"
    saved_tmpdir=${TMPDIR-}
    export TMPDIR="$T/dtmp"
    job "$dname" 0 "$dranks" "$@"
    if [ -n "$saved_tmpdir" ]; then export TMPDIR="$saved_tmpdir"; else unset TMPDIR; fi
    yes=$(grep -c '^DS21 yes$' "$T/out")
    if [ "$yes" -eq "$dyes" ]; then ok "$dname: $dyes read shared memory"; else
        bad "$dname: $yes of the clients read shared memory, want $dyes"
    fi
    left=$(ls -A "$T/dtmp")
    if [ -z "$left" ]; then ok "$dname: nothing left in TMPDIR"; else
        bad "$dname: left in TMPDIR: $left"
    fi
}
ds21_job "4 OpenPMIx clients on ds21: job data, every peer's keys" 4 4 -n 4 ./opx_ds21
if grep -q "^DS21PATH $T/dtmp/.*/pmix_dstor_ds21_[0-9]*/[0-9]*$" "$T/out"; then
    ok "the ds21 store was in the server's tmpdir"
else
    bad "the ds21 store was in the server's tmpdir"
    grep '^DS21PATH' "$T/out" | sed 's/^/#   /' | head -2
fi
export SWITCHYARD_OPX_DS21=0
ds21_job "SWITCHYARD_OPX_DS21=0: the same clients ask the server" 4 0 -n 4 ./opx_ds21
unset SWITCHYARD_OPX_DS21
ds21_job "mixed job on ds21: 2 OpenPMIx + 2 of ours exchange" 4 2 \
    -n 2 ./opx_ds21 : -n 2 ./our_ds21

# The less common commands of OpenPMIx clients (interop/opx_ops.c): each
# check line is "ok <rank> <what>" or "FAIL <rank> <what>: <status>".
# name ok-lines run-args...
ops_job() {
    name=$1 want=$2
    shift 2
    (cd "$T" && timeout 60 "$R" --oversubscribe --timeout 45 "$@") > "$T/out" 2>&1
    rc=$?
    got=$(grep -c '^ok ' "$T/out")
    if [ "$rc" -eq 0 ] && [ "$got" -eq "$want" ] && ! grep -q '^FAIL' "$T/out"; then
        ok "$name"
    else
        bad "$name (exit $rc; $got of $want checks ok)"
        grep -v '^ok ' "$T/out" | sed 's/^/#   /' | tail -15
    fi
}
build_opx "$top_srcdir/tests/external/interop/opx_ops.c" "$T/opx_ops"
build_ours "$top_srcdir/tests/external/interop/opx_ops.c" "$T/our_ops"
for np in 2 4; do
    ops_job "$np OpenPMIx clients: PMIx_Connect / PMIx_Disconnect of their job" $((np * 3)) \
        -n $np ./opx_ops connect
done
ops_job "mixed job: 2 OpenPMIx + 2 of ours connect and disconnect together" 12 \
    -n 2 ./opx_ops connect : -n 2 ./our_ops connect
# per rank: construct, each member's PMIX_GROUP_INFO value, finalize
ops_job "mixed job: 2 OpenPMIx + 2 of ours read each member's PMIX_GROUP_INFO" 24 \
    -n 2 ./opx_ops grpinfo : -n 2 ./our_ops grpinfo
# rank 0: invite + finalize; each other rank: join, invited, finalize.
# On hash: OpenPMIx 4.2.2's PMIx_Group_invite of a wildcard proc reads
# the job size from the client's own hash, which a ds21 client lacks (it
# fails with BAD-PARAM under OpenPMIx's own server too), so ds21 is off.
export SWITCHYARD_OPX_DS21=0
ops_job "OpenPMIx clients on hash: PMIx_Group_invite / PMIx_Group_join (through events)" 8 \
    -n 3 ./opx_ops invite
unset SWITCHYARD_OPX_DS21
# parent rank 0: spawn + 5, rank 1: 5, each child: 5
ops_job "OpenPMIx clients spawn 2 and connect to them: each side learns the other's job, forgets it at disconnect" 21 \
    -n 2 ./opx_ops spawn
# per rank: allocation, monitor x2, credential x3, group x2, fabric x2,
# finalize; rank 0 also IOF pull of the last rank's stdout x3, push x2
ops_job "OpenPMIx clients: allocation, monitor+heartbeat, credentials, group, IOF, fabric" 27 \
    --stdin tools --fabric torus:4x4 -n 2 ./opx_ops ops

# PMIx_Compute_distances (interop/opx_dist.c): an OpenPMIx client (rank 0)
# whose library asks the server (COMPUTE_DEVICE_DISTANCES: block devices,
# which 4.2.2 cannot measure itself, and an empty cpuset, the only kind
# its library can pack) gets what our client (rank 1) computes for the same
# topology, cpuset and device id; a device that is not there: the same
# status.  Each line minus its rank must match.
build_opx "$top_srcdir/tests/external/interop/opx_dist.c" "$T/opx_dist" -lhwloc
build_ours "$top_srcdir/tests/external/interop/opx_dist.c" "$T/our_dist" -lhwloc
for dev in "" vda-or-any nosuch; do
    args=
    case $dev in
    vda-or-any) # the first block device our client finds, by its id
        (cd "$T" && timeout 60 "$R" --timeout 45 -n 1 ./our_dist "") > "$T/out" 2>&1
        args=$(awk '$1 == "DIST" && $3 != "rc" { print $4; exit }' "$T/out") ;;
    nosuch) args=no-such-device ;;
    esac
    what="OpenPMIx client's COMPUTE_DEVICE_DISTANCES${args:+ of $args} equals our client's distances"
    (cd "$T" && timeout 60 "$R" --oversubscribe --timeout 45 -n 1 ./opx_dist "" $args : \
        -n 1 ./our_dist "" $args) > "$T/out" 2>&1
    rc=$?
    awk '$1 == "DIST" && $2 == 0 { $2 = ""; print }' "$T/out" > "$T/dist.opx"
    awk '$1 == "DIST" && $2 == 1 { $2 = ""; print }' "$T/out" > "$T/dist.ours"
    if [ "$rc" -eq 0 ] && [ -s "$T/dist.ours" ] && cmp -s "$T/dist.opx" "$T/dist.ours" &&
       { [ "$dev" = nosuch ] || grep -q ' rc SUCCESS ' "$T/dist.opx"; }; then
        ok "$what"
    else
        bad "$what (exit $rc)"
        sed 's/^/#   /' "$T/out" | tail -10
    fi
done

# OpenPMIx tools attached to a running job: interop/opx_tool.c (on
# Debian's libpmix, pinned) and Debian's own pps find switchyard-run
# through the rendezvous files of a private TMPDIR (by the launcher's pid,
# or with no attribute at all), get an identity the launcher assigns, ask
# for the namespaces and each one's process table, and detach; the job
# keeps running and ends normally, with nothing logged.
section_opx_tools() {
    build_opx "$top_srcdir/tests/external/interop/opx_tool.c" "$T/opx_tool" -lpthread
    rdv="$T/rdv"
    mkdir -p "$rdv"
    rm -f "$T/stop" "$T/ranks"
    # exec: $! is the launcher itself, whose pid the tools are given
    (cd "$T" && TMPDIR="$rdv" exec "$R" --timeout 100 -n 2 sh -c \
        "echo \"\$PMIX_NAMESPACE \$PMIX_RANK \$\$\" >> '$T/ranks'
         while [ ! -e '$T/stop' ]; do sleep 0.1; done") > "$T/job.out" 2>&1 &
    job=$!
    for _ in $(seq 150); do
        [ "$(cat "$T/ranks" 2>/dev/null | wc -l)" -ge 2 ] && break
        sleep 0.1
    done
    ns=$(awk 'NR == 1 { print $1 }' "$T/ranks" 2>/dev/null)
    ids=
    for how in pid none; do
        args=$how
        [ $how = pid ] && args="pid $job"
        (cd "$T" && TMPDIR="$rdv" timeout 60 ./opx_tool $args) > "$T/tool.out" 2>&1
        rc=$?
        id=$(sed -n 's/^tool id //p' "$T/tool.out")
        good=yes
        [ $rc -eq 0 ] && [ -n "$ns" ] && ! grep -q '^FAIL' "$T/tool.out" &&
            grep -q '^tool finalized$' "$T/tool.out" &&
            grep -q "^namespaces \(.*,\)\{0,1\}$ns\(,.*\)\{0,1\}\$" "$T/tool.out" || good=no
        # an identity of the launcher's making, a new one for each tool
        case "$id" in "" | "$ns":* | *" "*) good=no ;; esac
        for other in $ids; do [ "$other" = "$id" ] && good=no; done
        ids="$ids $id"
        # every rank, with the pid it really has
        while read -r rns rrank rpid; do
            grep -q "^proc $rns $rrank [^ ]* $rpid " "$T/tool.out" || good=no
        done < "$T/ranks"
        [ "$(grep -c "^proc $ns " "$T/tool.out")" -eq 2 ] || good=no
        what="an OpenPMIx tool attaches to switchyard-run ($how): id, namespaces, process table"
        if [ $good = yes ]; then ok "$what"; else
            bad "$what (exit $rc, id '$id')"
            sed 's/^/#   /' "$T/tool.out" | tail -10
        fi
    done
    # Debian's pps (4.2.2 prints the active namespaces), on OpenPMIx's library
    (cd "$T" && TMPDIR="$rdv" LD_LIBRARY_PATH="$OPX_LIB" timeout 60 pps --pid "$job") \
        > "$T/pps.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ -n "$ns" ] && grep -q "^Active nspaces: .*$ns" "$T/pps.out"; then
        ok "Debian's pps --pid <switchyard-run> lists the job's namespace"
    else
        bad "Debian's pps --pid <switchyard-run> lists the job's namespace (exit $rc)"
        sed 's/^/#   /' "$T/pps.out" | tail -10
    fi
    # Debian's pattrs asks the server for the host's attributes
    # (PMIX_QUERY_ATTRIBUTE_SUPPORT, read in OpenPMIx 4.2.2's layout): one
    # row per attribute switchyard-run registers (attr_support.txt's host
    # lines), and the host's function list
    want=$(awk '!/^#/ && $2 == "host" && $3 != "-"' "$top_srcdir/src/common/attr_support.txt" |
        wc -l)
    (cd "$T" && TMPDIR="$rdv" LD_LIBRARY_PATH="$OPX_LIB" timeout 60 pattrs --pid "$job" \
        --host all) > "$T/pattrs.out" 2>&1
    rc=$?
    got=$(grep -cE '^(PMIX|SWITCHYARD)_[A-Z0-9_]* ' "$T/pattrs.out")
    (cd "$T" && TMPDIR="$rdv" LD_LIBRARY_PATH="$OPX_LIB" timeout 60 pattrs --pid "$job" \
        --host-fns) > "$T/pattrs-fns.out" 2>&1
    frc=$?
    if [ $rc -eq 0 ] && [ "$got" -eq "$want" ] && grep -q '^PMIx_Spawn:$' "$T/pattrs.out" &&
       [ $frc -eq 0 ] && grep -q '^HOST SUPPORTED FUNCTIONS:' "$T/pattrs-fns.out" &&
       grep -q '^	PMIx_Spawn$' "$T/pattrs-fns.out"; then
        ok "Debian's pattrs --host all / --host-fns: switchyard-run's $want attributes, functions"
    else
        bad "Debian's pattrs --host all / --host-fns (exit $rc/$frc, $got of $want attributes)"
        sed 's/^/#   /' "$T/pattrs.out" "$T/pattrs-fns.out" | tail -10
    fi
    # PMIx_tool_attach_to_server after an unconnected init
    (cd "$T" && TMPDIR="$rdv" timeout 60 ./opx_tool attach "$job") > "$T/tool.out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^attached to switchyard-run\.' "$T/tool.out" &&
       [ "$(grep -c "^proc $ns " "$T/tool.out")" -eq 2 ] && ! grep -q '^FAIL' "$T/tool.out"; then
        ok "an OpenPMIx tool's PMIx_tool_attach_to_server, then the process table"
    else
        bad "an OpenPMIx tool's PMIx_tool_attach_to_server (exit $rc)"
        sed 's/^/#   /' "$T/tool.out" | tail -10
    fi
    # events: one tool registers for a code, another notifies it
    (cd "$T" && TMPDIR="$rdv" timeout 60 ./opx_tool listen "$job") > "$T/listen.out" 2>&1 &
    listener=$!
    for _ in $(seq 150); do grep -q '^listening$' "$T/listen.out" && break; sleep 0.1; done
    (cd "$T" && TMPDIR="$rdv" timeout 60 ./opx_tool notify "$job") > "$T/tool.out" 2>&1
    rc=$?
    wait $listener
    lrc=$?
    nid=$(sed -n 's/^tool id //p' "$T/tool.out")
    if [ $rc -eq 0 ] && [ $lrc -eq 0 ] && [ -n "$nid" ] &&
       grep -q "^event -3042 from $nid\$" "$T/listen.out"; then
        ok "OpenPMIx tools: one's event registration hears another's PMIx_Notify_event"
    else
        bad "OpenPMIx tools: event registration and notify (exit $rc, listener $lrc)"
        sed 's/^/#   /' "$T/listen.out" "$T/tool.out" | tail -10
    fi
    # a tool claiming rank 0 of the job as its own identity: refused, and
    # told so at once (its connect fails) rather than left waiting
    (cd "$T" && TMPDIR="$rdv" timeout 60 ./opx_tool claim "$job" "$ns") > "$T/tool.out" 2>&1
    rc=$?
    if [ $rc -eq 1 ] && grep -q '^FAIL PMIx_tool_init: UNREACHABLE$' "$T/tool.out" &&
       [ "$(grep -c "refused OpenPMIx peer .*identity belongs to another process" \
            "$T/job.out")" -eq 1 ]; then
        ok "an OpenPMIx tool claiming a rank's identity is refused at once, one log line"
    else
        bad "an OpenPMIx tool claiming a rank's identity is refused at once (exit $rc)"
        sed 's/^/#   /' "$T/tool.out" "$T/job.out" | tail -10
    fi
    alive=0
    while read -r rns rrank rpid; do kill -0 "$rpid" 2> /dev/null && alive=$((alive + 1)); done \
        < "$T/ranks"
    touch "$T/stop"
    wait $job
    rc=$?
    if [ $alive -eq 2 ] && [ $rc -eq 0 ] &&
       ! grep -v 'identity belongs to another process' "$T/job.out" |
           grep -q -i -E 'warn|error|refused'; then
        ok "the job outlives its OpenPMIx tools and ends normally, nothing else logged"
    else
        bad "the job outlives its OpenPMIx tools (ranks alive $alive of 2, exit $rc)"
        sed 's/^/#   /' "$T/job.out" | tail -10
    fi
}
section_opx_tools
# An OpenPMIx tool started by switchyard-run as its rank (its environment
# names the server): it is that rank, and queries its own job.
(cd "$T" && timeout 60 "$R" --timeout 45 -n 1 ./opx_tool none) > "$T/out" 2>&1
rc=$?
id=$(sed -n 's/^tool id \(.*\):0$/\1/p' "$T/out")
if [ $rc -eq 0 ] && [ -n "$id" ] && grep -q "^proc $id 0 " "$T/out" &&
   grep -q '^tool finalized$' "$T/out" && ! grep -q -E '^FAIL|warn' "$T/out"; then
    ok "an OpenPMIx tool launched as a rank is that rank and queries its job"
else
    bad "an OpenPMIx tool launched as a rank (exit $rc)"
    sed 's/^/#   /' "$T/out" | tail -10
fi

# An OpenPMIx singleton (a client started with no server in its
# environment) runs alone: with no server at all, and beside a system
# server of ours (switchyard-run --system, pmix.sys.<host> in its tmpdir),
# which it finds and which declines it (one log line) by closing before
# any answer, so that its PMIx_Init goes on alone (PMIX_ERR_UNREACH, as
# OpenPMIx 4.2.2 says of a singleton).
section_opx_singleton() {
    build_opx "$top_srcdir/tests/external/interop/opx_singleton.c" "$T/opx_singleton"
    single() { # what tmpdir
        (cd "$T" && env -u PMIX_NAMESPACE -u PMIX_SERVER_URI41 -u PMIX_SERVER_URI4 \
            TMPDIR="$2" timeout 60 ./opx_singleton) > "$T/single.out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && grep -q '^singleton ok$' "$T/single.out" &&
           grep -q '^singleton singleton\.[^ ]*:0 size 1$' "$T/single.out"; then
            ok "$1"
        else
            bad "$1 (exit $rc)"
            sed 's/^/#   /' "$T/single.out" | tail -5
        fi
    }
    mkdir -p "$T/alone" "$T/sys"
    single "an OpenPMIx singleton runs alone: init, put/commit/fence, get, finalize" "$T/alone"
    rm -f "$T/stop"
    (cd "$T" && TMPDIR="$T/sys" exec "$R" --system --timeout 100 -n 1 sh -c \
        "while [ ! -e '$T/stop' ]; do sleep 0.1; done") > "$T/job.out" 2>&1 &
    job=$!
    for _ in $(seq 150); do ls "$T/sys"/pmix.sys.* > /dev/null 2>&1 && break; sleep 0.1; done
    single "an OpenPMIx singleton beside a system switchyard-run still runs alone" "$T/sys"
    touch "$T/stop"
    wait $job
    rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c 'OpenPMIx singletons are not served' "$T/job.out")" -eq 1 ]; then
        ok "the system server declines the OpenPMIx singleton with one log line"
    else
        bad "the system server declines the OpenPMIx singleton with one log line (exit $rc)"
        sed 's/^/#   /' "$T/job.out" | tail -5
    fi
}
section_opx_singleton

# ---- 2. our clients under an OpenPMIx server ----
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
LIB=$(cd "$OURS" && pwd -P)
S="$top_srcdir/tests/external"
OPINC=$OPX_INC
bad2() {
    bad "$1"
    test -f "$T/out" && sed 's/^/#   /' "$T/out" | head -40
}
# run SECONDS COMMAND...: output in $T/out, status in $rc
run() {
    t=$1
    shift
    # mpirun may ignore the TERM when a rank failed early: KILL follows
    (cd "$T" && timeout -k 5 "$t" "$@") > "$T/out" 2>&1
    rc=$?
}
count() { grep -c "$1" "$T/out"; }
# ranks mapped N times, all ours; their parent (mpirun) never ours
ranks_ours_parent_theirs() {
    test "$(grep -c '^rank libpmix ' "$T/out")" -ge "$1" &&
        ! grep '^rank libpmix ' "$T/out" | grep -v -q " $LIB/" &&
        test "$(grep -c '^parent libpmix ' "$T/out")" -ge "$1" &&
        ! grep '^parent libpmix ' "$T/out" | grep -q " $LIB/"
}

# Our client library in the ranks, OpenPMIx's server in Debian's mpirun
# (which runs on Debian's libpmix: our directory only reaches the ranks).
section_ours_under_openpmix() {
    if ! cc -O1 -Wall -I"$OPINC" -o "$T/fence_get" "$S/interop/fence_get.c" -lpmix \
            > "$T/build" 2>&1; then
        cat "$T/build"
        echo "Bail out! cc fence_get"
        exit 99
    fi
    if ! cc -O1 -Wall -I"$OPINC" -o "$T/ops" "$S/interop/opx_ops.c" -lpmix > "$T/build" 2>&1; then
        cat "$T/build"
        echo "Bail out! cc opx_ops"
        exit 99
    fi
    for p in hello ring pubsub abort spawn; do
        if ! mpicc.openmpi -O1 -Wall -I"$S/openmpi" -o "$T/$p" "$S/openmpi/$p.c" \
                > "$T/build" 2>&1; then
            cat "$T/build"
            echo "Bail out! mpicc.openmpi $p"
            exit 99
        fi
    done
    X="-x LD_LIBRARY_PATH=$LIB"
    for np in 2 4; do
        run 60 mpirun.openmpi --oversubscribe -np $np $X ./fence_get
        if [ $rc -eq 0 ] && [ "$(count '^rank [0-9]* ok finalize$')" -eq $np ] &&
           [ "$(count "^rank [0-9]* ok job size $np ")" -eq $np ] &&
           [ "$(count '^rank [0-9]* ok fence and every peer')" -eq $np ] &&
           ranks_ours_parent_theirs $np; then
            ok "ours under OpenPMIx: PMIx client -np $np (init/get/put/commit/fence/get all)"
        else
            bad2 "ours under OpenPMIx: PMIx client -np $np (exit $rc)"
        fi
    done
    run 60 mpirun.openmpi --oversubscribe -np 4 $X ./hello
    if [ $rc -eq 0 ] && [ "$(count '^hello from . of 4 sum=4$')" -eq 4 ] &&
       ranks_ours_parent_theirs 4; then
        ok "ours under OpenPMIx: MPI hello -np 4"
    else
        bad2 "ours under OpenPMIx: MPI hello -np 4 (exit $rc)"
    fi
    run 60 mpirun.openmpi --oversubscribe -np 4 $X ./ring
    if [ $rc -eq 0 ] && grep -q '^ring token 18 expected 18$' "$T/out"; then
        ok "ours under OpenPMIx: MPI ring -np 4"
    else
        bad2 "ours under OpenPMIx: MPI ring -np 4 (exit $rc)"
    fi
    run 60 mpirun.openmpi --oversubscribe -np 2 $X ./pubsub
    if [ $rc -eq 0 ] && [ "$(count '^pubsub rank . ok$')" -eq 2 ]; then
        ok "ours under OpenPMIx: MPI_Publish_name / Lookup_name / Unpublish_name"
    else
        bad2 "ours under OpenPMIx: publish/lookup/unpublish (exit $rc)"
    fi
    # PMIx_Connect / Disconnect of the whole job: per rank 3 checks
    run 60 mpirun.openmpi --oversubscribe -np 2 $X ./ops connect
    if [ $rc -eq 0 ] && [ "$(count '^ok [0-9]')" -eq 6 ] && ! grep -q '^FAIL' "$T/out"; then
        ok "ours under OpenPMIx: PMIx_Connect / PMIx_Disconnect of the job"
    else
        bad2 "ours under OpenPMIx: PMIx_Connect / PMIx_Disconnect of the job (exit $rc)"
    fi
    # PMIx_Spawn, then the new job's size at once (the spawn's reply
    # carries its job data): rank 0 spawn + size + finalize, 2 finalizes
    run 60 mpirun.openmpi --oversubscribe -np 1 $X ./ops spawnsize
    if [ $rc -eq 0 ] && [ "$(count '^ok [0-9]')" -eq 5 ] && ! grep -q '^FAIL' "$T/out"; then
        ok "ours under OpenPMIx: PMIx_Spawn, then the spawned job's size"
    else
        bad2 "ours under OpenPMIx: PMIx_Spawn, then the spawned job's size (exit $rc)"
    fi
    # MPI_Comm_spawn: spawn, connect (the CONNECT reply brings the other
    # job's data), messages over the intercommunicator, disconnect; the
    # children too run on ours (orted/mpirun launches them)
    for np in 1 2; do
        run 90 mpirun.openmpi --oversubscribe -np $np $X ./spawn
        if [ $rc -eq 0 ] && [ "$(count '^parent .: 2 children, got 20[01] from child')" -eq 2 ] &&
           [ "$(count "^child . of 2: $np parents, got 10[01]$")" -eq 2 ] &&
           ranks_ours_parent_theirs $((np + 2)); then
            ok "ours under OpenPMIx: MPI_Comm_spawn -np $np + 2 children, intercomm, disconnect"
        else
            bad2 "ours under OpenPMIx: MPI_Comm_spawn -np $np (exit $rc)"
        fi
    done
    run 60 mpirun.openmpi --oversubscribe -np 3 $X ./abort
    if [ $rc -eq 3 ]; then
        ok "ours under OpenPMIx: MPI_Abort(3), mpirun exits 3"
    else
        bad2 "ours under OpenPMIx: MPI_Abort (exit $rc, expected 3)"
    fi
}

# a sanitizer build of our library cannot run inside Debian's uninstrumented
# mpirun's ranks: that section runs in the plain build only
if [ -n "$SAN" ]; then
    echo "# section 2 skipped: sanitizer build (Open MPI's processes are not instrumented)"
else
    section_ours_under_openpmix
fi

echo "1..$n"
[ "$fails" -eq 0 ]
