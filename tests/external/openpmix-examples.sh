#!/bin/sh
# Conformance with programs we did not write: OpenPMIx 4.2.2's example and
# test programs (public API only), fetched at test time from Debian's source
# package (never committed), compiled against our headers and library, and
# run under switchyard-run.  A program passes when its exit status is the
# expected one, its output has no error line (many of them exit 0 even
# when a call failed) and, where given, it printed what shows it did its
# job.  The tool runs beside a job of ours, as a user would run it; the
# launcher and the debugger (with its daemon debuggerd) through a system
# server (switchyard-run --system).  Then the client programs again, built
# on Debian's OpenPMIx 4.2.2 itself (its headers, its library by rpath):
# OpenPMIx clients of our server, with the same outcomes.  Needs network access to
# deb.debian.org; without it the test is skipped (77).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
R="$top_builddir/tools/switchyard-run"
LIB="$top_builddir/src/.libs"
test -x "$R" || { echo "switchyard-run not built"; exit 99; }
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-ompix-examples.XXXXXX")
SRC=/etc/apt/sources.list.d/switchyard-test-deb-src.sources
cleanup() { rm -rf "$T"; rm -f "$SRC"; }
trap cleanup EXIT INT TERM

# The package's source: a deb-src entry only for the time of the download.
if test "$(id -u)" -ne 0; then
    echo "SKIP: adding a deb-src entry needs root"
    exit 77
fi
cat > "$SRC" <<'EOS'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
if ! (cd "$T" && timeout 300 apt-get update -o Dir::Etc::sourcelist="$SRC" \
        -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 >/dev/null 2>&1 &&
      timeout 300 apt-get source --download-only pmix >/dev/null 2>&1); then
    echo "SKIP: cannot fetch the pmix 4.2.2 source package (no network?)"
    exit 77
fi
rm -f "$SRC"
(cd "$T" && tar xf pmix_4.2.2.orig.tar.* pmix-4.2.2/examples pmix-4.2.2/test/simple) || {
    echo "SKIP: the source package is not OpenPMIx 4.2.2 any more"
    exit 77
}
# test/simple includes <include/pmix.h>
mkdir -p "$T/inc/include" && ln -s "$top_srcdir/include/pmix.h" "$T/inc/include/pmix.h"

fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# In a sanitizer build our library needs the sanitizer runtime in the
# program; the programs' own leaks are not ours to report.
SAN=
CCX=${CC:-cc}
if grep -q -- '--enable-sanitizers' "$top_builddir/config.status" 2>/dev/null; then
    CCX=clang
    SAN="-fsanitize=address,undefined"
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi

# W: where a program is built and run ($T: on our library; $T/op: on
# Debian's OpenPMIx 4.2.2, its headers, its library by rpath)
W=$T
PMIX2=/usr/lib/x86_64-linux-gnu/pmix2
build() { # name dir
    if [ "$W" = "$T" ]; then
        $CCX $SAN -std=gnu11 -O1 -I"$top_srcdir/include" -I"$T/inc" -I"$T/pmix-4.2.2/examples" \
            "$T/pmix-4.2.2/$2/$1.c" -o "$T/$1" -L"$LIB" -lpmix -Wl,-rpath,"$LIB" -lpthread \
            > "$T/$1.build" 2>&1
    else
        mkdir -p "$W/inc/include" && ln -sf "$PMIX2/include/pmix.h" "$W/inc/include/pmix.h"
        cc -std=gnu11 -O1 -I"$PMIX2/include" -I"$W/inc" -I"$T/pmix-4.2.2/examples" \
            "$T/pmix-4.2.2/$2/$1.c" -o "$W/$1" -L"$PMIX2/lib" -lpmix \
            -Wl,--disable-new-dtags,-rpath,"$PMIX2/lib" \
            -lpthread > "$W/$1.build" 2>&1
    fi
}

# name dir ranks expected-exit [output-pattern]
# ranks 0: the program alone, with no launcher and no server at all.
# A pattern (grep -E) is what the program must print to have done its job.
run() {
    if ! build "$1" "$2"; then
        bad "$1 builds"; sed 's/^/#   /' "$W/$1.build" | head -5
        return
    fi
    if [ "$3" = 0 ]; then
        (cd "$W" && timeout 60 "./$1") > "$W/$1.out" 2>&1
    else
        # shellcheck disable=SC2086 # RUNARGS: extra launcher options, split
        (cd "$W" && timeout 60 "$R" --oversubscribe ${RUNARGS:-} -n "$3" "./$1") > "$W/$1.out" 2>&1
    fi
    rc=$?
    # error lines of the programs themselves (the launcher's report of an
    # expected failure is not one)
    errs=$(grep -v '^switchyard-run:' "$W/$1.out" | grep -i -c -E 'error|fail|not.found|unreach')
    seen=yes
    if [ -n "${5:-}" ] && ! grep -q -E "$5" "$W/$1.out"; then
        seen=no
    fi
    on=
    [ "$W" = "$T" ] || on=" on OpenPMIx 4.2.2's library"
    if [ "$4" = 0 ] && [ $rc -eq 0 ] && [ "$errs" -eq 0 ] && [ $seen = yes ]; then
        ok "$1$on${5:+ (prints $5)}"
    elif [ "$4" = nonzero ] && [ $rc -ne 0 ] && [ $rc -ne 124 ]; then
        ok "$1$on (fails as it should, status $rc)"
    else
        bad "$1$on: status $rc, $errs error lines, pattern printed: $seen"
        sed 's/^/#   /' "$W/$1.out" | tail -8
    fi
}

for p in hello client client2 dmodex log pub pubi jctrl dynamic; do run $p examples 2 0; done
run bad_exit examples 2 nonzero
run fault examples 2 nonzero
# test/simple: every program that uses only the public API.  asyncio,
# doubleget, get_put_example and hybrid under the launcher; simpvni alone (a tool that is its
# own launcher: PMIX_TOOL_DO_NOT_CONNECT + PMIX_LAUNCHER, then
# PMIx_server_setup_application for a fabric security key; with no fabric
# of OpenPMIx's Slingshot plugin it finds no VNI and says so).  Not run:
# test_pmix (asserts that PMIX_RANK comes typed PMIX_INT, where the
# standard and OpenPMIx 4.2.2 itself give pmix_rank_t: it fails on both),
# simpjctrl (calls OpenPMIx's internal pmix_strncpy, which no other
# library exports), and the programs built on OpenPMIx's internal headers (src/include,
# src/util, src/class: gwclient, gwtest, quietclient, simpclient,
# simpcoord, simpcycle, simpdie, simpdmodex, simpdyn, simpfabric, simpft,
# simpio, simppub, simpsched, simptest, simptimeout, simptool, stability),
# which no other implementation can build.
for p in asyncio doubleget get_put_example hybrid; do run $p test/simple 2 0; done
run simpvni test/simple 0 0 'VNI: '
# the ABI versions, before any init (no server at all) and after
run abi_no_init examples 0 0 'ABI \(Provisional\): String: 0\.0'
run abi_with_init examples 2 0 'ABI \(Stable\): String: 0\.0'
# process groups: blocking, asynchronous (invite/join), with direct modex
for p in group asyncgroup group_dmodex; do run $p examples 3 0; done
# Open MPI 5's communicator path: a context id from the construct, each
# member's PMIX_GROUP_LOCAL_CID read back by that id
run group_lcl_cid examples 2 0 'LOCAL CID for rank 1 SUCCESS value: .*PMIX_SIZE.*1235'
# rank 1 waits for PMIX_NOTIFY_ALLOC_COMPLETE of rank 0's request; ranks
# 2 and up ask for its PMIX_QUERY_ALLOC_STATUS (maybe before rank 0 sent
# it: the launcher answers once it is decided)
run alloc examples 2 0 ':1\] Allocation returned status: SUCCESS'
run alloc examples 3 0 ':2\] Allocation returned status: SUCCESS'
run alloc examples 4 0 ':3\] Allocation returned status: SUCCESS'
# The tool, beside a running job of ours (found through the rendezvous
# files of a private TMPDIR): the namespaces and their command lines, one
# job's size, and a job it spawns, whose end it must hear of.
tool_run() { # what expected-pattern tool-arguments...
    what=$1 pat=$2
    shift 2
    (cd "$T" && TMPDIR="$T/rdv" timeout 60 ./tool "$@") > "$T/tool.out" 2>&1
    rc=$?
    errs=$(grep -i -c -E 'error|fail|not.found|unreach|refused' "$T/tool.out")
    if [ $rc -eq 0 ] && [ "$errs" -eq 0 ] && grep -q -E "$pat" "$T/tool.out"; then
        ok "tool $what"
    else
        bad "tool $what: status $rc, $errs error lines"; sed 's/^/#   /' "$T/tool.out" | tail -8
    fi
}
if build tool examples; then
    mkdir -p "$T/rdv"
    rm -f "$T/stop"
    (cd "$T" && TMPDIR="$T/rdv" timeout 120 "$R" -n 1 sh -c "while [ ! -e '$T/stop' ]; do sleep 0.1; done") \
        > "$T/job.out" 2>&1 &
    job=$!
    for _ in $(seq 100); do ls "$T/rdv"/pmix.* > /dev/null 2>&1 && break; sleep 0.1; done
    tool_run "lists the running job" "switchyard\.[0-9]+\.1[[:space:]]+sh -c"
    ns=$(sed -n 's/^[[:space:]]*\(switchyard\.[0-9]*\.1\)[[:space:]].*/\1/p' "$T/tool.out" | head -1)
    tool_run "--nspace: the job's size" "JOB SIZE FOR NSPACE $ns: 1" --nspace "$ns"
    tool_run "--spawn: hears the spawned job end" "TOOL NOTIFIED THAT ALL CHILD PROCS switchyard" \
        --spawn "/bin/sleep 1"
    touch "$T/stop"
    wait $job
else
    bad "tool builds against our headers"
fi
# The launcher (PMIX_CONNECT_TO_SYSTEM): a system server on the node
# (switchyard-run --system, no job of its own) found through pmix.sys.<host>
# in a private TMPDIR; the launcher spawns 128 copies of "app" through it
# and waits for their end.  A plain job's server is no system server: the
# launcher must not connect to it.  Each server is stopped by its pid.
if build launcher examples; then
    mkdir -p "$T/sys" "$T/bin"
    printf '#!/bin/sh\necho "app $PMIX_NAMESPACE $PMIX_RANK" >> "%s/app.log"\n' "$T" > "$T/bin/app"
    chmod +x "$T/bin/app"
    rm -f "$T/stop" "$T/app.log"
    (cd "$T" && TMPDIR="$T/sys" timeout 120 "$R" -n 1 sh -c "while [ ! -e '$T/stop' ]; do sleep 0.1; done") \
        > "$T/job.out" 2>&1 &
    job=$!
    for _ in $(seq 100); do ls "$T/sys"/pmix.*.tool.* > /dev/null 2>&1 && break; sleep 0.1; done
    (cd "$T" && TMPDIR="$T/sys" timeout 30 ./launcher) > "$T/launcher.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && ! ls "$T/sys"/pmix.sys.* > /dev/null 2>&1; then
        ok "launcher: no system server, no connection (status $rc)"
    else
        bad "launcher connected without a system server: status $rc"
    fi
    (cd "$T" && TMPDIR="$T/sys" PATH="$T/bin:$PATH" exec timeout 120 "$R" --system --oversubscribe) \
        > "$T/sys.out" 2>&1 &
    sys=$!
    for _ in $(seq 100); do ls "$T/sys"/pmix.sys.* > /dev/null 2>&1 && break; sleep 0.1; done
    if (cd "$T" && TMPDIR="$T/sys" timeout 30 "$R" --system -n 1 true) > "$T/sys2.out" 2>&1; then
        bad "a second system server on the node was allowed"
    else
        ok "a second system server is refused"
    fi
    (cd "$T" && TMPDIR="$T/sys" timeout 60 ./launcher) > "$T/launcher.out" 2>&1
    rc=$?
    napp=$(grep -c '^app switchyard\.[0-9]*\.2 ' "$T/app.log" 2>/dev/null)
    errs=$(grep -i -c -E 'error|fail|not.found|unreach' "$T/launcher.out")
    if [ $rc -eq 0 ] && [ "$errs" -eq 0 ] && [ "${napp:-0}" -eq 128 ]; then
        ok "launcher: 128 procs spawned through the system server, their end heard"
    else
        bad "launcher: status $rc, $errs error lines, ${napp:-0} of 128 app processes"
        sed 's/^/#   /' "$T/launcher.out" "$T/sys.out" | tail -8
    fi
    # The debugger (PMIX_CONNECT_SYSTEM_FIRST): spawn and debug support
    # queried, ./client spawned paused (at exec: the support lists
    # PMIX_DEBUG_STOP_ON_EXEC), then its daemon ./debuggerd beside it
    # (PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_JOB, ppr:1:node, no maxprocs),
    # whose end it waits for.  4.2.2's debuggerd only sleeps 10 s and
    # never releases the clients: they stay stopped until the server goes
    # (tests/tools/debug.sh releases them with a daemon of ours).
    if build debuggerd examples && build debugger examples; then
        (cd "$T" && TMPDIR="$T/sys" timeout 60 ./debugger) > "$T/debugger.out" 2>&1
        rc=$?
        errs=$(grep -i -c -E 'error|fail|not.found|unreach|incorrect' "$T/debugger.out")
        if [ $rc -eq 0 ] && [ "$errs" -eq 0 ] && grep -q 'SPAWNED DEBUGGERD' "$T/debugger.out" &&
            grep -q 'I AM HERE' "$T/sys.out"; then
            ok "debugger: capabilities, the job paused at exec, its daemon spawned and ended"
        else
            bad "debugger: status $rc, $errs error lines"
            sed 's/^/#   /' "$T/debugger.out" "$T/sys.out" | tail -8
        fi
    else
        bad "debugger and debuggerd build against our headers"
    fi
    kill -TERM $sys
    wait $sys
    rc=$?
    if [ $rc -eq 0 ] && ! ls "$T/sys"/pmix.sys.* > /dev/null 2>&1; then
        ok "the system server stops on SIGTERM (status 0), its rendezvous file gone"
    else
        bad "the system server on SIGTERM: status $rc"; ls "$T/sys" | sed 's/^/#   /'
    fi
    touch "$T/stop"
    wait $job
else
    bad "launcher builds against our headers"
fi
# fabric coordinates of every rank: the launcher as the scheduler of a fabric
RUNARGS="--fabric fattree:k=4"
run nodeinfo examples 2 0
RUNARGS="--fabric torus:4x4"
run nodeinfo examples 3 0
RUNARGS=
# The same clients built on Debian's OpenPMIx 4.2.2 (headers and library)
# under our server: its protocol, its job-data store, the same outcomes.
# A DT_RPATH (not RUNPATH) keeps them on OpenPMIx's library even with ours
# on the LD_LIBRARY_PATH the ranks inherit from the uninstalled launcher.
W=$T/op
mkdir -p "$W"
for p in hello client client2 dmodex log pub pubi jctrl dynamic; do run $p examples 2 0; done
lib=$(LD_LIBRARY_PATH="$LIB" ldd "$W/hello" 2> /dev/null | awk '$1 == "libpmix.so.2" { print $3 }')
check_lib="test '$lib' = '$PMIX2/lib/libpmix.so.2'"
if eval "$check_lib"; then
    ok "the OpenPMIx-built programs load OpenPMIx's library ($lib)"
else
    bad "the OpenPMIx-built programs load $lib, not OpenPMIx's"
fi
run bad_exit examples 2 nonzero
run fault examples 2 nonzero
for p in asyncio doubleget get_put_example hybrid; do run $p test/simple 2 0; done
run abi_with_init examples 2 0 'ABI \(Stable\): String: 0\.0'
for p in group asyncgroup group_dmodex; do run $p examples 3 0; done
# each member's PMIX_GROUP_INFO kept by the server and read back by the
# context id (a GETNB with the qualifier, after the group is destructed)
run group_lcl_cid examples 2 0 'LOCAL CID for rank 1 SUCCESS value: .*PMIX_SIZE.*1235'
# alloc at -n 2 only: its rank 2 and up pass PMIx_Query_info_nb a query
# whose nqual is never set, and OpenPMIx 4.2.2's library crashes on it
# (under Debian's mpirun.openmpi too).
run alloc examples 2 0 ':1\] Allocation returned status: SUCCESS'
W=$T
echo "1..$n"
test $fails -eq 0
