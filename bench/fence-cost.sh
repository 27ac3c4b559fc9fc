#!/bin/sh
# What one collecting fence costs, Switchyard against OpenPMIx 4.2.2:
# bench/modex.c (built against each library, as modex-compare.sh does)
# run with -k, which counts per launch
#   - each member's context switches across its PMIx_Fence, all its
#     threads (voluntary: a thread slept and was woken again; involuntary:
#     it was preempted, or yielded while others were runnable);
#   - the server process's (the host: the server's threads and its own)
#     over the fence window (from the host's release of the barrier before
#     the fence to its gather of the one after), minus the same over an
#     empty window (a release followed at once by the next gather: the
#     benchmark's own pipe traffic);
# and, when perf can count tracepoints here, the whole machine's system
# calls, wake-ups (sched:sched_wakeup) and context switches over the same
# two windows (`perf stat -a`, enabled by the host through --control), the
# fence's figure being the difference, per fence.  Run from the top of the
# source tree after `sh scripts/build.sh`:
#   sh bench/fence-cost.sh [-n "8 32"] [-s "64 4096"] [-r REPS]
set -eu
build=${BUILD_DIR:-build}
. bench/openpmix.sh
counts="8 32" sizes="64 4096" reps=5
while getopts n:s:r: o; do
    case $o in
    n) counts=$OPTARG ;;
    s) sizes=$OPTARG ;;
    r) reps=$OPTARG ;;
    *) exit 2 ;;
    esac
done
openpmix_check fence-cost
make -s -C "$build" bench/modex
openpmix_cc bench/modex.c "$build/bench/modex-openpmix"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf_ok=no
if perf stat -a -e raw_syscalls:sys_enter,sched:sched_wakeup,context-switches true \
    > /dev/null 2>&1; then
    perf_ok=yes
fi

# perf's totals (syscalls wakeups switches) over one window of every
# launch of one (N, size), divided by the launches
perf_window() { # prog N size window
    rm -f "$tmp/ctl" "$tmp/ack"
    mkfifo "$tmp/ctl" "$tmp/ack"
    MODEX_PERF_CTL="$tmp/ctl,$tmp/ack" MODEX_PERF_WINDOW=$4 \
        perf stat -a -D -1 --control "fifo:$tmp/ctl,$tmp/ack" -x, -o "$tmp/perf" \
        -e raw_syscalls:sys_enter,sched:sched_wakeup,context-switches \
        "$1" -n "$2" -s "$3" -r "$reps" > /dev/null 2> "$tmp/err" || {
        cat "$tmp/err" >&2
        return 1
    }
    awk -F, -v r="$reps" '
        /raw_syscalls:sys_enter/ { s = $1 } /sched:sched_wakeup/ { w = $1 }
        /context-switches/ { c = $1 }
        END { printf "%.1f %.1f %.1f\n", s / r, w / r, c / r }' "$tmp/perf"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| N | bytes | library | member: voluntary switches | involuntary | server: voluntary | involuntary | machine per fence: system calls | wake-ups | context switches |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for n in $counts; do
    for s in $sizes; do
        for lib in ours openpmix; do
            prog=$build/bench/modex
            test "$lib" = openpmix && prog=$build/bench/modex-openpmix
            c=$("$prog" -k -n "$n" -s "$s" -r "$reps" | awk '$1 == "cost" { print $4, $5, $6 - $8, $7 - $9 }')
            m="n/a n/a n/a"
            if test "$perf_ok" = yes; then
                f=$(perf_window "$prog" "$n" "$s" fence)
                e=$(perf_window "$prog" "$n" "$s" empty)
                m=$(echo "$f $e" | awk '{ printf "%.0f %.0f %.0f", $1 - $4, $2 - $5, $3 - $6 }')
            fi
            label=Switchyard
            test "$lib" = openpmix && label="OpenPMIx 4.2.2"
            echo "$n $s $label $c $m" | awk '{
                lib = $3; i = 4; if ($3 == "OpenPMIx") { lib = "OpenPMIx 4.2.2"; i = 5 }
                printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, lib,
                    $i, $(i + 1), $(i + 2), $(i + 3), $(i + 4), $(i + 5), $(i + 6) }'
        done
    done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
