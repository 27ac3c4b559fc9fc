#!/bin/sh
# Build bench/scale.c against Switchyard and against OpenPMIx 4.2.2 and
# print the registration, client and N-clients figures side by side with
# ratios (ours / OpenPMIx; below 1 is better for us).  Run from the top of
# the source tree after `sh scripts/build.sh`:
#   sh bench/scale-compare.sh [-i ROUNDS] [-R "10000 100000 1000000"]
#        [-s "maps pdata"] [-n "128 256"] [-c CYCLES] [-C CYCLE_RANKS]
# Every configuration runs as a fresh process, ours then 4.2.2's, and the
# list is gone through ROUNDS times (default 3), so that load from other
# work on the machine falls on both; each figure is the median over the
# rounds.  The load average is printed before and after.
set -eu
build=${BUILD_DIR:-build}
. bench/openpmix.sh
openpmix_check scale-compare
rounds=3 ranks="10000 100000 1000000" styles="maps pdata" clients="128 256" cycles=100
cycle_ranks=10000
while test $# -gt 1; do
    case $1 in
    -i) rounds=$2 ;;
    -R) ranks=$2 ;;
    -s) styles=$2 ;;
    -n) clients=$2 ;;
    -c) cycles=$2 ;;
    -C) cycle_ranks=$2 ;;
    *) echo "scale-compare: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
make -s -C "$build" bench/scale
openpmix_cc bench/scale.c "$build/bench/scale-openpmix"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# run LIB ARGS...: one configuration, its line appended to $out/LIB.reg
# (or .cyc, .cli); a run that fails or takes over 30 minutes is reported.
run() {
    lib=$1 kind=$2
    shift 2
    bin=$build/bench/scale
    test "$lib" = ours || bin=$build/bench/scale-openpmix
    if ! timeout 1800 "$bin" "$@" >> "$out/$lib.$kind" 2>> "$out/$lib.err"; then
        echo "scale-compare: $lib $* failed (see below)" >&2
        tail -n 5 "$out/$lib.err" >&2
    fi
}
i=0
while test "$i" -lt "$rounds"; do
    for r in $ranks; do
        for s in $styles; do
            run ours reg reg -R "$r" -s "$s"
            run openpmix reg reg -R "$r" -s "$s"
        done
    done
    for r in $cycle_ranks; do
        run ours cyc cycles -R "$r" -c "$cycles"
        run openpmix cyc cycles -R "$r" -c "$cycles"
    done
    for n in $clients; do
        run ours cli clients -n "$n" -r 1
        run openpmix cli clients -n "$n" -r 1
    done
    i=$((i + 1))
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# median KEYCOLS FILE: the median of every other column per key (the
# first KEYCOLS columns), keys in first-seen order.
median() {
    awk -v k="$1" '
    { key = $1; for (c = 2; c <= k; c++) key = key " " $c
      if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
      n[key]++; for (c = k + 1; c <= NF; c++) v[key, c, n[key]] = $c; nf[key] = NF }
    END { for (i = 1; i <= nk; i++) { key = order[i]; line = key
            for (c = k + 1; c <= nf[key]; c++) {
              m = n[key]; for (a = 1; a <= m; a++) x[a] = v[key, c, a]
              for (a = 2; a <= m; a++) for (b = a; b > 1 && x[b - 1] > x[b]; b--) { t = x[b]; x[b] = x[b - 1]; x[b - 1] = t }
              line = line " " ((m % 2) ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2) }
            print line } }' "$2"
}
for lib in ours openpmix; do
    for kind in reg cyc cli; do
        test -f "$out/$lib.$kind" || : > "$out/$lib.$kind"
    done
    median 2 "$out/$lib.reg" > "$out/$lib.reg.m"
    median 1 "$out/$lib.cyc" > "$out/$lib.cyc.m"
    median 1 "$out/$lib.cli" > "$out/$lib.cli.m"
done

echo "load average: before $load_before, after $load_after; $rounds rounds; $(nproc) CPUs"
echo
echo "Registration (register_nspace, call to callback), what a client then sees, deregistration:"
echo
echo "| R | style | register ms ours / 4.2.2 | ratio | CPU ms ours / 4.2.2 | ratio | peak RSS growth MB | written MB (tmpdir + /dev/shm) | RSS + written MB ours / 4.2.2 | ratio | client Init ms ours / 4.2.2 | ratio | Init CPU ms ours | first Get µs ours: job / node / local host, nodeid, local rank / remote host, nodeid, local rank | 4.2.2 (-1: not found) | repeated Get ns ours / 4.2.2 (job key; remote host) | deregister ms ours / 4.2.2 |"
echo "|---|---|---|---:|---|---:|---|---|---|---:|---|---:|---:|---|---|---|---|"
# reg line: R style reg cpu rss tmp shm init init_cpu job node lh ln lr rh rn rr repj reph dereg
awk '{ print $1 "_" $2, $0 }' "$out/ours.reg.m" | sort > "$out/a"
awk '{ print $1 "_" $2, $0 }' "$out/openpmix.reg.m" | sort > "$out/b"
join -j1 "$out/a" "$out/b" | sort -t_ -k1,1n |
    awk 'function r(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
    { # $2.. ours (20 fields), $22.. theirs
      R = $2; s = $3
      ow = $6 + $7 + $8; tw = $26 + $27 + $28
      printf "| %s | %s | %.1f / %.1f | %s | %.1f / %.1f | %s | %.1f / %.1f | %.2f / %.2f | %.1f / %.1f | %s | %.2f / %.1f | %s | %.2f | %s / %s / %s, %s, %s / %s, %s, %s | %s / %s / %s, %s, %s / %s, %s, %s | %s; %s / %s; %s | %.2f / %.1f |\n",
        R, s, $4, $24, r($4, $24), $5, $25, r($5, $25), $6, $26, $7 + $8, $27 + $28, ow, tw, r(ow, tw),
        $9 / 1e3, $29 / 1e3, r($9, $29), $10 / 1e3,
        $11, $12, $13, $14, $15, $16, $17, $18,
        $31, $32, $33, $34, $35, $36, $37, $38,
        $19, $20, $39, $40, $21, $41 }'
echo
echo "Register/deregister cycles of the maps job:"
echo
echo "| library | R | cycles | RSS after the first kB | after the last kB | files left |"
echo "|---|---:|---:|---:|---:|---:|"
awk '{ printf "| ours | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$out/ours.cyc.m"
awk '{ printf "| 4.2.2 | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$out/openpmix.cyc.m"
echo
echo "N local clients of one server (slowest rank; µs):"
echo
echo "| N | Init ours / 4.2.2 | ratio | fence | ratio | fence + 1 KiB collect | ratio | get-all | ratio | Finalize | ratio | fence, last-in→all-out | ratio | collect, last-in→all-out | ratio | Finalize, last-in→all-out | ratio |"
echo "|---:|---|---:|---|---:|---|---:|---|---:|---|---:|---|---:|---|---:|---|---:|"
sort "$out/ours.cli.m" > "$out/a"
sort "$out/openpmix.cli.m" > "$out/b"
join -j1 "$out/a" "$out/b" | sort -n |
    awk 'function r(a, b) { return b > 0 ? sprintf("%.3f", a / b) : "-" }
    { printf "| %s", $1
      for (c = 2; c <= 9; c++) printf " | %.0f / %.0f | %s", $c, $(c + 8), r($c, $(c + 8))
      print " |" }'
if test -s "$out/ours.err" || test -s "$out/openpmix.err"; then
    echo
    echo "stderr of the runs:"
    cat "$out/ours.err" "$out/openpmix.err" | sort | uniq -c | head -20
fi
