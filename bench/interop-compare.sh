#!/bin/sh
# Mixed pairs (issue 19): bench/launch.c and bench/modex.c built against
# Switchyard and against OpenPMIx 4.2.2, the host of one run with the
# clients of the other (-c), in all four pairings of client/server library:
#   ours/ours, OP/ours (OpenPMIx clients under our server), ours/OP (our
#   clients under an OpenPMIx server), OP/OP.
# Prints, per N, the medians of Init, Get (job- and proc-level key) from
# launch and of the collecting fence and get-all from modex at each payload
# size, with ratios against OP/OP (below 1: faster than OpenPMIx under
# OpenPMIx).  Run from the top of the source tree after
# `sh scripts/build.sh`:
#   sh bench/interop-compare.sh [-i ROUNDS] [-n "8 32"] [-s "64 4096"] [-r REPS] [-g GETS]
# Rounds run every pairing in turn, starting with a different one each
# round, so that load from other work on the machine falls on all; every
# figure is the median over the rounds of each round's median over REPS
# launches.  Every run reports the libpmix its server and its clients were
# loaded from (/proc/self/maps); a pairing on the wrong library fails the
# script instead of giving figures.
set -eu
build=${BUILD_DIR:-build}
. bench/openpmix.sh
openpmix_check interop-compare
rounds=3 counts="8 32" sizes="64 4096" reps=5 gets=20000
while getopts i:n:s:r:g: opt; do
    case $opt in
    i) rounds=$OPTARG ;;
    n) counts=$OPTARG ;;
    s) sizes=$OPTARG ;;
    r) reps=$OPTARG ;;
    g) gets=$OPTARG ;;
    *) exit 2 ;;
    esac
done

make -s -C "$build" bench/launch bench/modex
for p in launch modex; do
    openpmix_cc "bench/$p.c" "$build/bench/$p-openpmix"
done
bindir=$(cd "$build/bench" && pwd)
ourlib=$(cd "$build/src/.libs" && pwd)
oplib=$(cd "$openpmix/lib" && pwd)

# A program of one library: ours -> bench/P, op -> bench/P-openpmix.
prog() { if test "$2" = ours; then echo "$bindir/$1"; else echo "$bindir/$1-openpmix"; fi; }
libdir() { if test "$1" = ours; then echo "$ourlib"; else echo "$oplib"; fi; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# run BENCH CLIENT SERVER ARGS...: one run of the pairing, its "lib" lines
# checked, its figures appended to $out/BENCH.CLIENT-SERVER.
run() {
    bench=$1 cl=$2 sv=$3
    shift 3
    f="$out/run"
    if ! "$(prog "$bench" "$sv")" -c "$(prog "$bench" "$cl")" -l "$@" > "$f"; then
        echo "interop-compare: $bench $cl/$sv failed" >&2
        exit 1
    fi
    for role in server client; do
        want=$(libdir "$(test $role = server && echo "$sv" || echo "$cl")")
        got=$(awk -v r=$role '$1 == "lib" && $2 == r { print $3 }' "$f")
        case $got in
        "$want"/libpmix.so*) ;;
        *)
            echo "interop-compare: $bench $cl/$sv: $role on '$got', not $want" >&2
            exit 1
            ;;
        esac
    done
    grep -v '^lib ' "$f" >> "$out/$bench.$cl-$sv"
}

pairs="ours-ours op-ours ours-op op-op"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
i=0
while test "$i" -lt "$rounds"; do
    # rotate the order by one pairing each round
    order=$(echo $pairs $pairs | awk -v k=$((i % 4)) '{ for (j = 1; j <= 4; j++) printf "%s ", $(j + k) }')
    for pair in $order; do
        cl=${pair%-*} sv=${pair#*-}
        run launch "$cl" "$sv" -n "$counts" -r "$reps" -g "$gets"
        run modex "$cl" "$sv" -n "$counts" -s "$sizes" -r "$reps"
    done
    i=$((i + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# Median over the rounds of every column, per key (the first KEYS columns).
medians() {
    awk -v nk="$2" '{ k = $1; for (c = 2; c <= nk; c++) k = k "_" $c
                      for (c = nk + 1; c <= NF; c++) print k, c, $c }' "$1" |
        sort -k1,1 -k2,2n -k3,3g | awk '
        function flush() {
            if (n == 0) return
            m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
            print cur, m
            n = 0
        }
        { k = $1 " " $2; if (k != cur) { flush(); cur = k }; v[++n] = $3 }
        END { flush() }'
}
# One file of "PAIR FIGURE KEY VALUE" lines: launch keyed by N, modex by
# N_size; figures init, getjob, getproc (launch), fence, getall (modex).
for pair in $pairs; do
    medians "$out/launch.$pair" 1 | awk -v p=$pair '
        $2 == 2 { print p, "init", $1, $3 } $2 == 3 { print p, "getjob", $1, $3 }
        $2 == 4 { print p, "getproc", $1, $3 }'
    medians "$out/modex.$pair" 2 | awk -v p=$pair '
        $2 == 3 { print p, "fence", $1, $3 } $2 == 4 { print p, "getall", $1, $3 }'
done > "$out/all"

echo "load average: before $load_before, after $load_after; $rounds rounds of $reps launches"
echo
hdr="| N | client/server | Init µs | Get job ns | Get proc ns"
sep="|---|---|---:|---:|---:"
for s in $sizes; do
    hdr="$hdr | fence+collect $s B µs | get-all $s B µs"
    sep="$sep|---:|---:"
done
echo "$hdr |"
echo "$sep|"
awk -v counts="$counts" -v sizes="$sizes" '
{ v[$1, $2, $3] = $4 }
function cell(p, f, k) {
    if (!((p, f, k) in v)) return "| – "
    b = v["op-op", f, k]
    return sprintf("| %.1f (%.3f) ", v[p, f, k], b > 0 ? v[p, f, k] / b : 0)
}
END {
    nc = split(counts, cs, " "); ns = split(sizes, ss, " ")
    np = split("ours-ours op-ours ours-op op-op", ps, " ")
    split("ours/ours OP/ours ours/OP OP/OP", names, " ")
    for (i = 1; i <= nc; i++)
        for (j = 1; j <= np; j++) {
            line = "| " cs[i] " | " names[j] " " cell(ps[j], "init", cs[i]) \
                   cell(ps[j], "getjob", cs[i]) cell(ps[j], "getproc", cs[i])
            for (s = 1; s <= ns; s++)
                line = line cell(ps[j], "fence", cs[i] "_" ss[s]) cell(ps[j], "getall", cs[i] "_" ss[s])
            print line "|"
        }
}' "$out/all"
echo
echo "(figure (ratio to OP/OP)); client/server: the library of the clients / of the host's server"
