#!/bin/sh
# Launcher death and litter (docs/security.md, "Launcher death and litter"):
# rounds of normal exits, PMIx_Abort, a rank killed with SIGKILL, the
# launcher killed with SIGKILL while its ranks run (in a PMIx client's
# wait after a fence) and while it starts, then one normal run.  No rank
# may outlive its launcher (counted after every round), and after the last
# run nothing may be left in $TMPDIR (the sweep at start-up removed what
# the killed launchers left; the last one removed its own), nor anything
# named after one of our processes in /tmp or /dev/shm.
#   LITTER_ROUNDS (default 20)
set -u
NAME=litter-test NEED=tests/integration/test_security
. "$(dirname "$0")/tool-lib.sh"
X="$top_builddir/tests/integration/test_security"
on_exit() {
    for p in $(ranks); do kill -9 "$p" 2> /dev/null; done
}
rounds=${LITTER_ROUNDS:-20}

# ranks: the pids of our ranks still running (their stop files are under $T)
ranks() {
    ps -eo pid=,args= |
        awk -v t="$T/stop." 'index($0, " rank ") && index($0, t) && !index($0, "switchyard-run") { print $1 }'
}
# gone_within SECONDS: no rank of ours left, waiting up to SECONDS
gone_within() {
    for _k in $(seq $(($1 * 20))); do
        test -z "$(ranks)" && return 0
        sleep 0.05
    done
    return 1
}
# wait_ready FILE N PID: N "ready" lines in FILE while PID runs
wait_ready() {
    for _k in $(seq 600); do
        test "$(grep -c '^ready' "$1" 2> /dev/null)" -ge "$2" && return 0
        kill -0 "$3" 2> /dev/null || return 1
        sleep 0.05
    done
    return 1
}
snapshot() { ls -A /tmp /dev/shm 2> /dev/null | sort -u; }
snapshot > "$T/before"
: > "$T/pids"

orphans=0
for i in $(seq "$rounds"); do
    out="$T/round.$i"
    case $((i % 5)) in
    1) # a normal run
        "$R" --oversubscribe -n 2 "$X" rank exit "$T/stop.$i" > "$out" 2>&1 &
        job=$!
        wait "$job"
        what="normal exit" ;;
    2) # PMIx_Abort from rank 0
        "$R" --oversubscribe -n 2 "$X" rank abort "$T/stop.$i" > "$out" 2>&1 &
        job=$!
        wait "$job"
        what="abort" ;;
    3) # a rank killed
        "$R" --oversubscribe -n 2 "$X" rank wait "$T/stop.$i" > "$out" 2>&1 &
        job=$!
        wait_ready "$out" 2 "$job"
        kill -9 "$(awk '$1 == "ready" && $2 == 1 { print $3 }' "$out")" 2> /dev/null
        wait "$job"
        what="rank killed" ;;
    4) # the launcher killed while its ranks wait
        "$R" --oversubscribe -n 2 "$X" rank wait "$T/stop.$i" > "$out" 2>&1 &
        job=$!
        wait_ready "$out" 2 "$job"
        kill -9 "$job"
        wait "$job"
        what="launcher killed while the ranks run" ;;
    0) # the launcher killed while it starts (somewhere in its first 0.3 s)
        "$R" --oversubscribe -n 2 "$X" rank wait "$T/stop.$i" > "$out" 2>&1 &
        job=$!
        sleep "0.$(( (i * 7) % 3 ))$(( (i * 3) % 10 ))"
        kill -9 "$job"
        wait "$job"
        what="launcher killed while it starts" ;;
    esac
    echo "$job" >> "$T/pids"
    awk '$1 == "ready" { print $3 }' "$out" >> "$T/pids"
    if ! gone_within 5; then
        left=$(ranks)
        echo "# round $i ($what): ranks left running: $left"
        orphans=$((orphans + $(echo $left | wc -w)))
        for p in $left; do kill -9 "$p" 2> /dev/null; done
    fi
done
check "$rounds rounds: no rank outlived its launcher" "test $orphans -eq 0"
echo "# left in \$TMPDIR before the last run: $(ls -A "$TMPDIR" | wc -l) entries"

"$R" --oversubscribe -n 2 "$X" rank exit "$T/stop.last" > "$T/last" 2>&1
rc=$?
check "the following normal run exits 0" "test $rc -eq 0"
check "nothing is left in \$TMPDIR" "test -z \"\$(ls -A '$TMPDIR')\""
ls -lA "$TMPDIR" | sed 's/^/# /'
# /tmp and /dev/shm are shared with everything else on the machine: what
# is new there and carries one of our processes' pids in its name
snapshot > "$T/after"
comm -13 "$T/before" "$T/after" > "$T/new"
: > "$T/ours"
while read -r p; do
    test -n "$p" && grep -E "(^|[^0-9])$p([^0-9]|$)" "$T/new" >> "$T/ours"
done < "$T/pids"
check "nothing of ours is left in /tmp or /dev/shm" "test ! -s '$T/ours'"
sed 's/^/# /' "$T/ours"

echo "1..$n"
test "$fails" -eq 0
