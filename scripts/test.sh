#!/bin/sh
# README command 2 (and CI): the whole test suite.
#   0. scripts/format-check.sh: C files formatted as .clang-format says
#   1. make check in build/ (unit tests, ABI comparison)
#   2. make check-asan: the same suite built with clang + ASan/UBSan in build-asan/
#   3. make check-tsan: the same suite built with clang + ThreadSanitizer in
#      build-tsan/, without the tests of external programs (Open MPI,
#      python3-pmix, OpenPMIx's examples: not built with TSan, they cannot
#      load a TSan library; see check-tsan in Makefile.am)
#   4. libFuzzer targets (tests/fuzz/fuzz.mk) built in build-asan/, each run
#      for FUZZ_TIME seconds, two at a time (default: FUZZ_BUDGET, 120 s,
#      shared evenly by the targets, at least 20 s each, so that a new
#      target does not push the suite past its 30 minutes; long fuzzing
#      runs are a bench/ job)
# Keeps going after a failing stage, exits non-zero if anything failed, and
# ends with the line "N passed, N failed": the automake harness counts of
# both check runs plus one result per fuzz target.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
FUZZ_BUDGET=${FUZZ_BUDGET:-120}
ASAN_BUILDDIR=$top/build-asan
TSAN_BUILDDIR=$top/build-tsan
# The fuzzers are linked in the ASan build (configured for them too): one
# sanitizer build of the library instead of two keeps the suite in its time.
FUZZ_BUILDDIR=$ASAN_BUILDDIR
ASAN_FUZZ=yes
export ASAN_BUILDDIR TSAN_BUILDDIR FUZZ_BUILDDIR ASAN_FUZZ
logs=$top/build/test-logs
passed=0
failed=0

finish() {
    echo
    echo "$passed passed, $failed failed"
    if test "$failed" = 0; then exit 0; fi
    exit 1
}

sh scripts/deps.sh
if ! sh scripts/build.sh; then
    echo "test.sh: build failed"
    failed=$((failed + 1))
    finish
fi
mkdir -p "$logs"

# House style: every C file as .clang-format says (counted as one test).
echo
echo "== format"
if sh scripts/format-check.sh; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
fi

# run_check NAME LOGDIR MAKE-ARGS...: run a make check variant, add its
# harness counts; a failure without any counted failing test (e.g. a compile
# error) counts as one failure.
run_check() {
    name=$1 dir=$2
    shift 2
    echo
    echo "== $name"
    started=$(date +%s)
    # (the pipeline hides make's status from set -e; keep it in a file)
    { st=0; make "$@" 2>&1 || st=$?; echo "$st" > "$logs/$name.rc"; } | tee "$logs/$name.log"
    echo "== $name: $(($(date +%s) - started)) s"
    rc=$(cat "$logs/$name.rc")
    sum() { sed -n "s/^# $1: *\([0-9][0-9]*\).*/\1/p" "$logs/$name.log" | awk '{ s += $1 } END { print s + 0 }'; }
    p=$(( $(sum PASS) + $(sum XFAIL) ))
    f=$(( $(sum FAIL) + $(sum ERROR) + $(sum XPASS) ))
    if test "$rc" != 0 && test "$f" = 0; then f=1; fi
    passed=$((passed + p))
    failed=$((failed + f))
    if test "$rc" != 0 && test -f "$dir/test-suite.log"; then
        echo "== $name: $dir/test-suite.log"
        cat "$dir/test-suite.log"
    fi
}

run_check check "$top/build" -C build -j2 check
run_check check-asan "$ASAN_BUILDDIR" -C build -j2 check-asan
run_check check-tsan "$TSAN_BUILDDIR" -C build -j2 check-tsan

# Fuzzing: only if fuzz.mk lists targets.
targets=$(make -s -C build print-fuzz-targets)
if test -n "$targets"; then
    if test -z "${FUZZ_TIME:-}"; then
        FUZZ_TIME=$((FUZZ_BUDGET / $(echo $targets | wc -w)))
        if test "$FUZZ_TIME" -lt 20; then FUZZ_TIME=20; fi
    fi
    echo
    echo "== fuzz: building $targets"
    if ! make -C build -j2 fuzz; then
        echo "test.sh: building the fuzzers failed"
        failed=$((failed + $(echo $targets | wc -w)))
        finish
    fi
    # fuzz_one T: run one target; its result goes to $logs/T.result.
    fuzz_one() {
        t=$1
        # New inputs go to a scratch corpus (first directory); the seeds in
        # the source tree are only read.  Crash files go to artifacts/.
        corpus=$FUZZ_BUILDDIR/corpus/$t
        mkdir -p "$corpus" "$FUZZ_BUILDDIR/artifacts"
        seeds=$top/tests/fuzz/corpus/$t
        test -d "$seeds" || seeds=
        # Whole malloc stacks (libraries without frame pointers cut the
        # fast ones short), so that a suppression can name the frame.
        if UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
           ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
           LSAN_OPTIONS=suppressions=$top/tests/fuzz/lsan.supp \
           "$FUZZ_BUILDDIR/tests/fuzz/$t" -max_total_time="$FUZZ_TIME" -timeout=25 \
               -rss_limit_mb=2048 -print_final_stats=1 \
               -artifact_prefix="$FUZZ_BUILDDIR/artifacts/$t-" \
               "$corpus" $seeds > "$logs/$t.log" 2>&1; then
            echo pass > "$logs/$t.result"
        else
            echo fail > "$logs/$t.result"
        fi
    }
    # Two targets at a time: one per core, half the wall time.
    set -- $targets
    while test $# -gt 0; do
        batch=$1
        shift
        if test $# -gt 0; then batch="$batch $1"; shift; fi
        echo "== fuzz: $batch (${FUZZ_TIME}s)"
        for t in $batch; do fuzz_one "$t" & done
        wait
        for t in $batch; do
            if test "$(cat "$logs/$t.result" 2>/dev/null)" = pass; then
                echo "PASS: $t ($(grep -m1 'stat::number_of_executed_units' "$logs/$t.log" | awk '{ print $2 }') runs)"
                passed=$((passed + 1))
            else
                echo "FAIL: $t (log: $logs/$t.log)"
                tail -n 60 "$logs/$t.log"
                failed=$((failed + 1))
            fi
        done
    done
fi

finish
