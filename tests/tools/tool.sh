#!/bin/sh
# Tools against running switchyard-run jobs, with real processes: attaching
# by pid, queries and attribute support, output pulled (tagged, replayed
# from the server's cache with its drop policies, redirected or copied),
# stdin pushed to rank 0, job control, two servers at once, a server that
# dies, the ways tool_init fails (no server, another user), what Open
# MPI's ORTE tools do, and the switchyard-tool program.
set -u
NAME=tool-test NEED="tools/switchyard-tool tests/integration/test_tool"
. "$(dirname "$0")/tool-lib.sh"
ST="$top_builddir/tools/switchyard-tool"
X="$top_builddir/tests/integration/test_tool"
host=$(hostname)

# start_job NAME ARGS...: a launcher in the background; $job is its pid,
# ready for tools once its rendezvous file is there.
start_job() {
    name=$1
    shift
    "$R" "$@" > "$T/$name.out" 2> "$T/$name.err" &
    job=$!
    pids="$pids $job"
    for i in $(seq 400); do
        test -e "$TMPDIR/pmix.$host.tool.$job" && return 0
        sleep 0.05
    done
    echo "# $name: no rendezvous file"
    return 1
}
# wait_job PID: its exit status
wait_job() {
    wait "$1"
}
WAITSTOP="while [ ! -e '$T/stop' ]; do sleep 0.05; done"

# ---- a tool attached by pid: identity, servers, queries, attribute support
start_job basic --oversubscribe -n 2 sh -c "$WAITSTOP"
"$X" basic "$job" 2 > "$T/t.out" 2> "$T/t.err"
check "basic: identity, servers, queries, job data, attribute support, log, spawn" "grep -q 'basic: ok' '$T/t.out'"
check "basic: the tool's PMIx_Log reached the launcher" "grep -q 'switchyard.$job.tool.1,0\\] a line logged by the tool' '$T/basic.err'"
"$X" stdin-refused "$job" > "$T/t.out" 2> "$T/t.err"
check "stdin pushed to a job that reads the launcher's stdin: refused" "grep -q 'stdin-refused: ok' '$T/t.out'"
check "... and the launcher says why" "grep -q 'start it with --stdin tools' '$T/basic.err'"
# what Open MPI's tools do: tool_init with nothing, then the server's URI
"$X" orte > "$T/t.out" 2> "$T/t.err"
check "orte: tool_init(NULL) finds the only server; Query(pmix.srvr.uri)" "grep -q 'orte: ok' '$T/t.out'"
"$ST" servers > "$T/t.out" 2> "$T/t.err"
check "switchyard-tool servers" "grep -q 'switchyard-run.$job *pid $job' '$T/t.out'"
"$ST" --pid "$job" ps > "$T/t.out" 2> "$T/t.err"
check "switchyard-tool ps" "grep -q 'job switchyard.$job.1' '$T/t.out' && test \$(grep -c 'EXECUTING' '$T/t.out') -eq 2"
"$ST" --pid "$job" attrs --level host PMIx_Job_control > "$T/t.out" 2> "$T/t.err"
check "switchyard-tool attrs" "grep -q 'PMIX_JOB_CTRL_KILL (\"pmix.jctrl.kill\"' '$T/t.out'"
"$ST" --pid "$job" query pmix.srvr.uri > "$T/t.out" 2> "$T/t.err"
check "switchyard-tool query" "grep -q '^pmix.srvr.uri: switchyard-run.$job.0;tcp4://' '$T/t.out'"
rdv="$TMPDIR/pmix.$host.tool.$job"
uri=$(head -n 1 "$rdv")
mkdir -p "$T/nothing"
"$X" connect "$job" "$rdv" "$uri" "$T/nothing" > "$T/t.out" 2> "$T/t.err"
check "connect: by nspace, TCP URI (token), URI, file, system first, tmpdir" "grep -q 'connect: ok' '$T/t.out'"
"$ST" --nspace "switchyard-run.$job" --tmpdir "$TMPDIR" query pmix.qry.ns > "$T/t.out" 2> "$T/t.err"
check "switchyard-tool --nspace --tmpdir" "grep -q '^pmix.qry.ns: switchyard.$job.1$' '$T/t.out'"
# another user cannot attach (security.sh tries much more)
if test "$(id -u)" = 0; then
    "$X" nobody "$rdv" "$uri" > "$T/t.out" 2> "$T/t.err"
    check "another user: unreadable file, no token, refused" "grep -q 'nobody: ok' '$T/t.out'"
fi
touch "$T/stop"
wait_job "$job"
check "the job ends normally after the tools left" "test $? -eq 0"
rm -f "$T/stop"

# ---- output: tagged, replayed, redirected away from the launcher
for how in redirect copy; do
    rm -f "$T/attached"
    start_job iof --oversubscribe -n 2 sh -c "for i in \$(seq 50); do echo \"out \$PMIX_RANK \$i\"; echo \"err \$PMIX_RANK \$i\" >&2; done; while [ ! -e '$T/attached' ]; do sleep 0.05; done; echo \"after \$PMIX_RANK\"; printf \"tail \$PMIX_RANK\"; exec >&- 2>&-; $WAITSTOP"
    "$X" iof "$job" "$T/attached" $how > "$T/t.out" 2> "$T/t.err"
    touch "$T/stop"
    wait_job "$job"
    rc=$?
    check "iof ($how): every line tagged, the tails flushed, the ends seen" "test $rc -eq 0 && grep -q 'iof: ok' '$T/t.out'"
    if test $how = redirect; then
        check "iof (redirect): the launcher did not print what the tool took" "! grep -q 'after' '$T/iof.out'"
    else
        check "iof (copy): the launcher printed it too" "grep -q 'after 0' '$T/iof.out' && grep -q 'after 1' '$T/iof.out'"
    fi
    rm -f "$T/stop"
done

# ---- the server's cache: a tool that comes after the output
start_job cache -n 1 sh -c "i=0; while [ \$i -lt 2000 ]; do printf '%04d\n' \$i; i=\$((i+1)); done; exec >&-; $WAITSTOP"
for how in all oldest newest buffered; do
    "$X" cache "$job" $how > "$T/t.out" 2> "$T/t.err"
    check "cache ($how): what was written before the tool came" "grep -q 'cache: ok' '$T/t.out'"
done
touch "$T/stop"
wait_job "$job"
rm -f "$T/stop"

# ---- stdin pushed to rank 0
start_job stdin --stdin tools --oversubscribe -n 2 sh -c "if [ \$PMIX_RANK = 0 ]; then while read l; do echo \"echo:\$l\"; done; echo END; exec >&-; fi; $WAITSTOP"
"$X" stdin "$job" > "$T/t.out" 2> "$T/t.err"
check "stdin: rank 0 reads what the tool pushed, then EOF" "grep -q 'stdin: ok' '$T/t.out'"
touch "$T/stop"
wait_job "$job"
check "stdin: the job ends with its stdin closed" "test $? -eq 0"
rm -f "$T/stop"
start_job stdin2 --stdin tools -n 1 sh -c 'while read l; do echo "cat:$l"; done'
printf 'one\ntwo\n' | "$ST" --pid "$job" attach --stdin > "$T/t.out" 2> "$T/t.err"
wait_job "$job"
check "switchyard-tool attach --stdin: our stdin to rank 0 until EOF" "test $? -eq 0 && grep -q '^cat:one$' '$T/t.out' && grep -q '^cat:two$' '$T/t.out'"
# a stdin that cannot be polled (a regular file) is read all the same
seq 1000 > "$T/input"
start_job stdin3 --stdin tools -n 1 sh -c 'n=0; while read l; do n=$((n+1)); done; echo "lines:$n"'
"$ST" --pid "$job" attach --stdin < "$T/input" > "$T/t.out" 2> "$T/t.err"
wait_job "$job"
check "switchyard-tool attach --stdin < file" "test $? -eq 0 && grep -q '^lines:1000$' '$T/t.out'"

# ---- job control from a tool
start_job jobctl --oversubscribe -n 2 sh -c "$WAITSTOP"
"$X" jobctl "$job" 1 > "$T/t.out" 2> "$T/t.err"
wait_job "$job"
rc=$?
check "jobctl: a tool kills rank 1; the job's status says so" "test $rc -eq 137 && grep -q 'jobctl: ok' '$T/t.out' && grep -q 'rank 1 .* killed by signal 9' '$T/jobctl.err'"
start_job sig --oversubscribe -n 2 sh -c "$WAITSTOP"
"$ST" --pid "$job" signal 15 0 > "$T/t.out" 2> "$T/t.err"
wait_job "$job"
check "switchyard-tool signal 15 0" "test $? -eq 143"

# ---- two servers
start_job one -n 1 sh -c "$WAITSTOP"
j1=$job
start_job two -n 1 sh -c "$WAITSTOP"
j2=$job
"$X" two "$j1" "$j2" > "$T/t.out" 2> "$T/t.err"
check "two servers: list, primary, set_server, disconnect" "grep -q 'two: ok' '$T/t.out'"
touch "$T/stop"
wait_job "$j1"
wait_job "$j2"
rm -f "$T/stop"

# ---- a rank asks for attribute support (host level through its server)
"$R" -n 1 "$X" client-attrs > "$T/t.out" 2> "$T/t.err"
check "a client's attribute-support queries" "test $? -eq 0 && grep -q 'client-attrs: ok' '$T/t.out'"

# ---- a system server (PMIX_SERVER_SYSTEM_SUPPORT), found with PMIX_CONNECT_TO_SYSTEM
mkdir -p "$T/sys"
"$X" system "$T/sys" > "$T/t.out" 2> "$T/t.err"
check "system: a tool reaches the node's system server" "grep -q 'system: ok' '$T/t.out' && test -z \"\$(ls -A '$T/sys')\""

# ---- no server
mkdir -p "$T/empty"
TMPDIR="$T/empty" "$X" nosrv > "$T/t.out" 2> "$T/t.err"
check "no server: UNREACH / NOT_FOUND / BAD_PARAM, optional and unconnected tools" "grep -q 'nosrv: ok' '$T/t.out'"
TMPDIR="$T/empty" "$X" server-module > "$T/t.out" 2> "$T/t.err"
check "a launcher tool's own server module; PMIx_tool_is_connected" "grep -q 'server-module: ok' '$T/t.out' && test -z \"\$(ls -A '$T/empty')\""
TMPDIR="$T/empty" "$ST" ps > /dev/null 2> "$T/t.err"
check "switchyard-tool without a server: a clear message" "test $? -eq 1 && grep -q 'no PMIx server to talk to: UNREACHABLE' '$T/t.err'"

# ---- the server dies under the tool
start_job dies -n 1 sh -c "$WAITSTOP"
rm -f "$T/ready"
"$X" dies "$job" "$T/ready" > "$T/t.out" 2> "$T/t.err" &
tpid=$!
for i in $(seq 400); do test -e "$T/ready" && break; sleep 0.05; done
kill -9 "$job"
wait "$job" 2>/dev/null
wait "$tpid"
check "server killed: LOST_CONNECTION, then UNREACH, finalize" "grep -q 'dies: ok' '$T/t.out'"
touch "$T/stop"
sleep 0.3
# the launcher died without cleaning: its files are left behind
rm -rf "$TMPDIR"/switchyard* "$TMPDIR"/pmix.*

left=$(ls -A "$TMPDIR")
check "no file left in TMPDIR" "test -z '$left'"
echo "1..$n"
test $fails -eq 0
