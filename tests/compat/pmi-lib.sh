# Sourced by the PMI-1/PMI-2 test scripts (tests/compat/*.sh,
# tests/external/mpich.sh): the paths, a
# private TMPDIR removed on exit, the sanitizer suppressions, and TAP.
# Set NAME (names the temporary directory) and NEED (paths of the
# programs that must be built, below $top_builddir) before sourcing.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
R="$top_builddir/tools/switchyard-run"
for f in tools/switchyard-run $NEED; do
    test -x "$top_builddir/$f" || { echo "not built: $top_builddir/$f"; exit 99; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-$NAME.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
printf 'leak:hwloc_topology_load\n' > "$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; sed 's/^/#   /' "$T/err" 2> /dev/null | head -20; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
# The end of a script: the plan, nothing left in TMPDIR, the status.
finish() {
    left=$(find "$TMPDIR" -mindepth 1 2> /dev/null | head -5)
    check "nothing left in TMPDIR" "test -z '$left'"
    echo "1..$n"
    test $fails -eq 0
}
