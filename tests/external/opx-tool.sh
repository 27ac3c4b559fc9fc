#!/bin/sh
# Our tool role attached to an OpenPMIx 4.2.2 server (issue 19): a host
# built on Debian's libpmix (interop/opx_host.c, pinned by DT_RPATH) runs
# a job of two OpenPMIx ranks (interop/opx_waiter.c) with tool support;
# its rendezvous files go two directories below $TMPDIR, where Open MPI's
# mpirun puts its own (mpirun.openmpi itself crashes when a tool of its
# own library attaches, so it is not the server here).  Tools on our
# library (interop/opx_attach_tool.c, switchyard-tool) find it by pid, by
# PMIX_SERVER_URI and by PMIX_TCP_URI; get an identity from its host;
# query the namespaces and the process table; get the job's size
# (PMIx_Get of job data the server holds); get an event a rank sends
# and the job's end; pull the job's output (switchyard-tool attach);
# finalize.  A request that OpenPMIx servers die of (attribute support)
# fails at once with one log line.  OpenPMIx's own tool runs first,
# against the same host, to show the host works.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
OURS=$(cd "$top_builddir/src/.libs" 2> /dev/null && pwd -P)
ST="$top_builddir/tools/switchyard-tool"
OPX_INC=/usr/lib/x86_64-linux-gnu/pmix2/include
OPX_LIB=/usr/lib/x86_64-linux-gnu/pmix2/lib
test -x "$ST" && test -n "$OURS" || { echo "switchyard-tool not built"; exit 99; }
if ! test -e "$OPX_LIB/libpmix.so.2" || ! test -e "$OPX_INC/pmix.h"; then
    if test "$(id -u)" -ne 0 || ! { timeout 300 apt-get update > /dev/null 2>&1;
            timeout 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y \
                --no-install-recommends libpmix-dev > /dev/null 2>&1; }; then
        echo "SKIP: cannot install libpmix-dev"
        exit 77
    fi
fi
if grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2>/dev/null; then
    echo "SKIP: sanitizer build (the OpenPMIx host is not instrumented)"
    exit 77
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-opxtool.XXXXXX")
HOST_PID=
cleanup() {
    test -n "$HOST_PID" && kill "$HOST_PID" 2> /dev/null
    rm -rf "$T"
}
trap cleanup EXIT INT TERM
export TMPDIR="$T"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() {
    n=$((n + 1))
    fails=$((fails + 1))
    echo "not ok $n - $1"
    test -f "$T/out" && sed 's/^/#   /' "$T/out" | head -30
}

S="$top_srcdir/tests/external/interop"
PIN="-Wl,--disable-new-dtags,-rpath"
if ! cc -std=gnu11 -O1 -I"$OPX_INC" "$S/opx_host.c" -o "$T/opx_host" -L"$OPX_LIB" -lpmix -lpthread \
        $PIN,"$OPX_LIB" > "$T/build.log" 2>&1 ||
   ! cc -std=gnu11 -O1 -I"$OPX_INC" "$S/opx_waiter.c" -o "$T/opx_waiter" -L"$OPX_LIB" -lpmix \
        $PIN,"$OPX_LIB" >> "$T/build.log" 2>&1 ||
   ! cc -std=gnu11 -O1 -I"$OPX_INC" "$S/opx_attach_tool.c" -o "$T/tool_op" -L"$OPX_LIB" -lpmix \
        -lpthread $PIN,"$OPX_LIB" >> "$T/build.log" 2>&1 ||
   ! cc -std=gnu11 -O1 -I"$top_srcdir/include" "$S/opx_attach_tool.c" -o "$T/tool_ours" -L"$OURS" \
        -lpmix -lpthread $PIN,"$OURS" >> "$T/build.log" 2>&1; then
    sed 's/^/#   /' "$T/build.log" | head -20
    echo "Bail out! the test programs do not build"
    exit 99
fi

# the server's session directory, as mpirun's: $TMPDIR/ompi.<host>.<uid>/pid.<pid>
D="$T/ompi.test.0/pid.1"
mkdir -p "$D"
# (the server's event log shows the deregistrations it receives)
PMIX_MCA_pmix_server_event_verbose=2 \
    "$T/opx_host" "$D" 2 "$T/opx_waiter" "$T/go" "$T/done" > "$T/host.out" 2>&1 &
HOST_PID=$!
for _ in $(seq 1 100); do
    grep -q '^host [0-9]* ready' "$T/host.out" && test -s "$D/pmix.$(hostname).tool.$HOST_PID" &&
        break
    sleep 0.1
done
URI=$(head -n 1 "$D/pmix.$(hostname).tool.$HOST_PID" 2> /dev/null)
if [ -z "$URI" ]; then
    cp "$T/host.out" "$T/out"
    bad "the OpenPMIx host starts and writes its rendezvous file"
    echo "1..$n"
    exit 1
fi

# tool MODE VALUE GO DONE: output in $T/out, status in $rc
tool() {
    prog=$1
    shift
    timeout 60 "$T/$prog" "$@" > "$T/out" 2>&1
    rc=$?
}
has() { grep -q "$1" "$T/out"; }
on_ours() { grep -q "^tool libpmix $OURS/" "$T/out" && ! grep "^tool libpmix " "$T/out" | grep -v -q " $OURS/"; }
queried() {
    has '^tool attached as opx-host-tool\.[0-9]*:0$' && has '^tool namespaces opxjob (SUCCESS)$' &&
        has '^tool proctable opxjob 2 procs (SUCCESS)$' && has '^tool finalized: SUCCESS$' &&
        has '^tool jobsize opxjob 2 (SUCCESS)$'
}

tool tool_op pid "$HOST_PID" - -
if [ $rc -eq 0 ] && queried; then
    ok "OpenPMIx's tool attaches to the OpenPMIx host and queries it"
else
    bad "OpenPMIx's tool against the OpenPMIx host (exit $rc)"
fi

timeout 30 "$ST" --pid "$HOST_PID" ps > "$T/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && has '^job opxjob$' &&
   [ "$(grep -c '^  [01] .* opx_waiter$' "$T/out")" -eq 2 ]; then
    ok "switchyard-tool --pid ps names the OpenPMIx server's job and its 2 ranks"
else
    bad "switchyard-tool --pid ps against the OpenPMIx server (exit $rc)"
fi

timeout 30 "$ST" --uri "$URI" query pmix.qry.ns > "$T/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && has '^pmix.qry.ns: opxjob$'; then
    ok "switchyard-tool --uri query pmix.qry.ns: opxjob"
else
    bad "switchyard-tool --uri query against the OpenPMIx server (exit $rc)"
fi

# IOF: the host forwards a line per rank and the end of each stream; the
# OpenPMIx server sends them on its tag 2, our tool's handler prints them
# and ends when every stream of the job's 2 ranks has ended
timeout 30 "$ST" --pid "$HOST_PID" attach --job opxjob --tag > "$T/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q '^host iof_pull of channels 0x6$' "$T/host.out" &&
   has '^\[opxjob,0\]<stdout>: rank 0 says hello through the OpenPMIx host$' &&
   has '^\[opxjob,1\]<stdout>: rank 1 says hello through the OpenPMIx host$'; then
    ok "switchyard-tool attach: the OpenPMIx server's forwarded output, each stream's end"
else
    bad "switchyard-tool attach against the OpenPMIx server (exit $rc)"
fi

# attribute support: OpenPMIx 4.2.2 servers crash on the query (their own
# tools' too): never sent, NOT_SUPPORTED and one log line
timeout 30 "$ST" --pid "$HOST_PID" attrs PMIx_Query_info > "$T/out" 2>&1
rc=$?
if [ $rc -ne 124 ] && has 'NOT-SUPPORTED' && has 'crash on it' && kill -0 "$HOST_PID"; then
    ok "switchyard-tool attrs (not sent to OpenPMIx): NOT_SUPPORTED, the server lives"
else
    bad "switchyard-tool attrs against the OpenPMIx server (exit $rc)"
fi

for how in tcp uri; do
    tool tool_ours $how "$URI" - -
    key=PMIX_SERVER_URI
    [ $how = tcp ] && key=PMIX_TCP_URI
    if [ $rc -eq 0 ] && queried && on_ours; then
        ok "our tool by $key: identity from the host, namespaces, process table"
    else
        bad "our tool by $key (exit $rc)"
    fi
done

tool tool_ours pid "$HOST_PID" "$T/go" "$T/done"
id=$(sed -n 's/^tool attached as \(.*\):0$/\1/p' "$T/out")
if [ $rc -eq 0 ] && queried && on_ours && has '^tool event from opxjob:0$' &&
   has '^tool job end$' && has '^tool deregistered: SUCCESS$' && [ -n "$id" ] &&
   grep -q "recvd deregister events from \\[$id,0\\]" "$T/host.out"; then
    ok "our tool by PMIX_SERVER_PIDINFO: queries, a rank's event, PMIX_EVENT_JOB_END, deregistration (DEREGEVENTS), finalize"
else
    bad "our tool by PMIX_SERVER_PIDINFO (exit $rc)"
fi

touch "$D/quit"
wait "$HOST_PID"
rc=$?
HOST_PID=
cp "$T/host.out" "$T/out"
if [ $rc -eq 0 ] && has '^host finalized$' && [ "$(grep -c '^waiter [01] up' "$T/out")" -eq 2 ]; then
    ok "the OpenPMIx host and its ranks end cleanly"
else
    bad "the OpenPMIx host (exit $rc)"
fi

echo "1..$n"
[ "$fails" -eq 0 ]
