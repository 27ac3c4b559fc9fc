#!/bin/sh
# Another local user against switchyard-run (docs/security.md), with real
# processes and two throwaway users made here (removed at the end, also on
# failure): an attacker, and a second user who runs a launcher of its own.
# The shared directory is a sticky, world-writable $TMPDIR, like /tmp.
#   A. A launcher run as root, after the attacker made its predictable
#      names first: the old temporaries (mode 0666, which a launcher used
#      to write its token through), symlinks to root's files, files of its
#      own under the final names, and litter-like names of a dead pid (a
#      symlinked "session directory", a foreign one) for the start-up sweep
#      to judge.  The job must run, root's tools must find it, nothing
#      planted may be written through, followed or removed, every file
#      holding a token must be root's and 0600; the attacker reads all it
#      can, finds no token, and its forged tool HELLOs (stolen, guessed and
#      no token, claiming uid 0; over TCP and the UNIX socket) are refused.
#   B. The same trick against the second user's (non-root) launcher, which
#      must still start; the attacker gets nothing; and a TCP tool with
#      that user's token that claims uid 0 is given the server's uid
#      (checked through a credential the server issues and validates).
#   C. --output-dir in a shared directory where the attacker made the
#      rank's directory with a symlink for stdout: refused, not written
#      through.
# Root only (useradd; a launcher as root): elsewhere it is skipped (77).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
RW="$top_builddir/tools/switchyard-run"
ST="$top_builddir/tools/switchyard-tool"
XW="$top_builddir/tests/integration/test_security"
for f in "$RW" "$ST" "$XW"; do
    test -x "$f" || { echo "not built: $f"; exit 99; }
done
if test "$(id -u)" != 0; then
    echo "SKIP: security.sh must run as root: it creates two local users (useradd) and runs switchyard-run as root against them"
    exit 77
fi
for c in useradd userdel setpriv; do
    command -v "$c" > /dev/null || { echo "security.sh: $c is missing"; exit 99; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/sy-sec-test.XXXXXX")
chmod 0755 "$T"
atk="sy-atk-$$"
vic="sy-vic-$$"
made_users=""
cleanup() {
    touch "$T/stop" "$T/stop2"
    for u in $made_users; do
        # everything these throwaway users run was started by this test
        pkill -9 -u "$u" 2> /dev/null
    done
    sleep 0.2
    for u in $made_users; do
        userdel "$u" 2> /dev/null || userdel -f "$u" 2> /dev/null ||
            echo "security.sh: could not remove user $u"
    done
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
for u in "$atk" "$vic"; do
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
        --user-group "$u" || { echo "security.sh: useradd $u failed"; exit 99; }
    made_users="$made_users $u"
done
atk_uid=$(id -u "$atk")
vic_uid=$(id -u "$vic")
vic_gid=$(id -g "$vic")
# as USER CMD...: run CMD as USER (no supplementary groups, no capabilities)
as() {
    u=$1
    shift
    setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups -- "$@"
}

# The programs in a place both users can reach whatever the build tree's
# permissions: the real binaries behind libtool's wrappers, and libpmix.
real() {
    d=$(dirname "$1") b=$(basename "$1")
    for c in "$d/.libs/$b" "$d/.libs/lt-$b" "$1"; do
        if test -f "$c" && head -c 4 "$c" | grep -q ELF; then
            echo "$c"
            return
        fi
    done
    echo "$1"
}
mkdir -p "$T/bin" "$T/lib"
cp "$(real "$RW")" "$T/bin/switchyard-run"
cp "$(real "$XW")" "$T/bin/test_security"
cp "$(real "$ST")" "$T/bin/switchyard-tool"
cp -P "$top_builddir"/src/.libs/libpmix.so* "$T/lib/"
chmod -R a+rX "$T/bin" "$T/lib"
export LD_LIBRARY_PATH="$T/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
R="$T/bin/switchyard-run"
X="$T/bin/test_security"

export TMPDIR="$T/tmp"
mkdir -m 1777 "$TMPDIR"
printf 'leak:hwloc_topology_load\n' > "$T/lsan.supp"
chmod 644 "$T/lsan.supp"
export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
fails=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
bad() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { if eval "$2"; then ok "$1"; else bad "$1"; fi; }
host=$(hostname)

# root's files the attacker would like root to write through or remove
echo "root's own" > "$T/victim"
mkdir "$T/victimdir"
echo keep > "$T/victimdir/keep"
# a pid that is dead: litter-like names under it are the sweep's to judge
sh -c 'exit 0' &
dead=$!
wait "$dead"

# plant.sh PID: the attacker makes the names a launcher of pid PID (and
# the sweep, for the dead pid) will come across.
cat > "$T/plant.sh" << EOF
#!/bin/sh
P=\$1
cd "$TMPDIR" || exit 1
exec setpriv --reuid=$atk_uid --regid=$(id -g "$atk") --clear-groups -- sh -c '
    P=\$1 H=\$2 D=\$3 V=\$4 VD=\$5
    umask 0
    # the temporaries a launcher used to open with O_CREAT|O_TRUNC
    : > pmix.\$H.tool.\$P.tmp && : > pmix.\$H.tool.switchyard-run.\$P.tmp &&
    # the final names: a symlink to a root file, a file of ours
    ln -s "\$V" pmix.\$H.tool.\$P &&
    echo planted > pmix.\$H.tool.switchyard-run.\$P &&
    # litter-like names of a dead pid (made once)
    { test -e pmix.\$H.tool.\$D || {
        ln -s "\$VD" switchyard-run.\$D.AAAAAA && ln -s "\$V" .sy-tmp.\$D.AAAAAA &&
        mkdir switchyard.\$D.BBBBBB && echo mine > switchyard.\$D.BBBBBB/f &&
        printf "\\npid:\$D\\nusock:/x\\nhostname:\$H\\n" > pmix.\$H.tool.\$D; }; }
' sh "\$P" "$host" "$dead" "$T/victim" "$T/victimdir"
EOF
chmod 755 "$T/plant.sh"

# planted_intact PID: everything plant.sh made for PID and for the dead
# pid is as it made it
planted_intact() {
    P=$1
    test "$(stat -c '%U %s' "$TMPDIR/pmix.$host.tool.$P.tmp")" = "$atk 0" &&
        test "$(stat -c '%U %s' "$TMPDIR/pmix.$host.tool.switchyard-run.$P.tmp")" = "$atk 0" &&
        test -L "$TMPDIR/pmix.$host.tool.$P" &&
        test "$(readlink "$TMPDIR/pmix.$host.tool.$P")" = "$T/victim" &&
        test "$(stat -c %U "$TMPDIR/pmix.$host.tool.switchyard-run.$P")" = "$atk" &&
        test "$(cat "$TMPDIR/pmix.$host.tool.switchyard-run.$P")" = planted &&
        test -L "$TMPDIR/switchyard-run.$dead.AAAAAA" && test -L "$TMPDIR/.sy-tmp.$dead.AAAAAA" &&
        test -f "$TMPDIR/switchyard.$dead.BBBBBB/f" && test -f "$TMPDIR/pmix.$host.tool.$dead" &&
        test "$(cat "$T/victim")" = "root's own" && test -f "$T/victimdir/keep"
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

# token_files_ok OWNER: every file under $TMPDIR holding a token is
# OWNER's and 0600 (the attacker's planted files hold none)
token_files_ok() {
    find "$TMPDIR" -type f -exec grep -l '^token:' {} + 2> /dev/null > "$T/tokfiles"
    test -s "$T/tokfiles" || return 1
    while read -r f; do
        test "$(stat -c '%U %a' "$f")" = "$1 600" || { echo "# $f: $(stat -c '%U %a' "$f")"; return 1; }
    done < "$T/tokfiles"
}

# ---- A: a launcher run as root, its names taken first
sh -c '"$1" $$ && exec "$2" --oversubscribe -n 2 "$3" rank wait "$4"' sh \
    "$T/plant.sh" "$R" "$X" "$T/stop" > "$T/a.out" 2> "$T/a.err" &
job=$!
wait_ready "$T/a.out" 2 "$job"
check "A: root's launcher runs the job though its names were taken" "test $? -eq 0"
sed 's/^/# /' "$T/a.err"
check "A: nothing planted was written through, followed or removed" "planted_intact $job"
check "A: the launcher said which names it left alone" \
    "grep -q 'not writing .*pmix.$host.tool.$job: a symbolic link of uid $atk_uid' '$T/a.err'"
sdir=$(ls -d "$TMPDIR/switchyard-run.$job".* 2> /dev/null | head -n 1)
rdv="$sdir/pmix.$host.tool"
uri=$(head -n 1 "$rdv" 2> /dev/null)
usock=$(sed -n 's/^usock://p' "$rdv" 2> /dev/null)
check "A: its session directory is root's, 0700, with the rendezvous file" \
    "test \"\$(stat -c '%U %a' '$sdir')\" = 'root 700' && test -n '$uri'"
check "A: every file holding a token is root's, mode 0600" "token_files_ok root"
as "$atk" "$X" steal "$TMPDIR" "$uri" "$usock" > "$T/steal.out" 2>&1
rc=$?
sed 's/^/# /' "$T/steal.out"
check "A: the attacker reads no token; forged tool HELLOs and the socket refuse it" "test $rc -eq 0"
as "$atk" "$T/bin/switchyard-tool" --pid "$job" ps > "$T/t.out" 2>&1
check "A: the attacker's switchyard-tool cannot attach" "test $? -ne 0"
"$ST" --pid "$job" ps > "$T/t.out" 2> "$T/t.err"
check "A: root's switchyard-tool finds the launcher by its other names" \
    "grep -q 'job switchyard.$job.1' '$T/t.out'"
touch "$T/stop"
wait "$job"
check "A: the job ends normally" "test $? -eq 0"
check "A: the launcher removed its own files, and only those" \
    "test ! -e '$sdir' && planted_intact $job && test -z \"\$(find '$TMPDIR' -mindepth 1 -user root)\""

# ---- B: the same against another user's launcher; a TCP tool's claim
sh -c '"$1" $$ && exec setpriv --reuid="$5" --regid="$6" --clear-groups -- "$2" --oversubscribe -n 2 "$3" rank wait "$4"' sh \
    "$T/plant.sh" "$R" "$X" "$T/stop2" "$vic_uid" "$vic_gid" > "$T/b.out" 2> "$T/b.err" &
job=$!
wait_ready "$T/b.out" 2 "$job"
check "B: a non-root launcher starts though its names were taken" "test $? -eq 0"
sed 's/^/# /' "$T/b.err"
check "B: nothing planted was written through, followed or removed" "planted_intact $job"
sdir=$(ls -d "$TMPDIR/switchyard-run.$job".* 2> /dev/null | head -n 1)
rdv="$sdir/pmix.$host.tool"
uri=$(head -n 1 "$rdv" 2> /dev/null)
usock=$(sed -n 's/^usock://p' "$rdv" 2> /dev/null)
token=$(sed -n 's/^token://p' "$rdv" 2> /dev/null)
check "B: every file holding a token is the launcher user's, mode 0600" "token_files_ok $vic"
as "$atk" "$X" steal "$TMPDIR" "$uri" "$usock" > "$T/steal.out" 2>&1
rc=$?
sed 's/^/# /' "$T/steal.out"
check "B: the attacker reads no token; forged tool HELLOs and the socket refuse it" "test $rc -eq 0"
as "$vic" "$X" claim "$uri" "$token" > "$T/claim.out" 2>&1
sed 's/^/# /' "$T/claim.out"
check "B: a TCP tool with the token that claims uid 0 gets the server's uid" \
    "grep -q '^uid=$vic_uid gid=$vic_gid$' '$T/claim.out'"
touch "$T/stop2"
wait "$job"
check "B: the job ends normally" "test $? -eq 0"
check "B: the launcher removed its own files, and only those" \
    "test ! -e '$sdir' && planted_intact $job && test -z \"\$(find '$TMPDIR' -mindepth 1 -user $vic)\""

# ---- C: --output-dir in a shared directory
mkdir -m 1777 "$T/out"
as "$atk" sh -c "umask 0; mkdir -p '$T/out/0/rank.0' && ln -s '$T/victim' '$T/out/0/rank.0/stdout'"
"$R" --output-dir "$T/out" -n 1 sh -c 'echo overwritten' > "$T/c.out" 2> "$T/c.err"
rc=$?
sed 's/^/# /' "$T/c.err"
check "C: a rank directory made by another user is refused, with the reason" \
    "test $rc -ne 0 && grep -q 'not ours' '$T/c.err'"
check "C: root's file behind the symlink is untouched" "test \"\$(cat '$T/victim')\" = \"root's own\""

echo "1..$n"
test "$fails" -eq 0
