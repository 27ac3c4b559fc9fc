# Sourced by the launcher and tool tests (tests/tools/*.sh): the paths (R is
# switchyard-run), the check that what the script needs is built, a
# private directory $T holding TMPDIR, removed on exit, the sanitizer
# settings, and TAP (ok, bad, check).  Set NAME (names $T) and NEED (the
# programs it needs, below $top_builddir) before sourcing.  On exit, $T/stop
# is created (for processes that poll it), on_exit runs (a script may
# define its own, after sourcing), and the pids in $pids get SIGKILL.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
R="$top_builddir/tools/switchyard-run"
for f in tools/switchyard-run $NEED; do
    test -x "$top_builddir/$f" || { echo "not built: $top_builddir/$f"; exit 99; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/sy-$NAME.XXXXXX")
pids=""
on_exit() { :; }
sy_cleanup() {
    touch "$T/stop" 2> /dev/null
    on_exit
    for p in $pids; do kill -9 "$p" 2> /dev/null; done
    rm -rf "$T"
}
trap sy_cleanup EXIT
trap 'exit 1' INT TERM
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR"
# Under ASan: hwloc 2.9's PCI discovery (libpciaccess, in a plugin unloaded
# before LeakSanitizer reports) leaks once per topology load in the server;
# suppress exactly that (full stacks are needed to see hwloc_topology_load).
printf 'leak:hwloc_topology_load\n' > "$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
