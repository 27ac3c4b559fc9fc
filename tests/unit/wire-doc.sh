#!/bin/sh
# docs/wire-protocol.md carries the table of commands generated from
# src/common/wire_msgs.txt, the table the codec is generated from: fail
# when the two disagree.  With --update, rewrite the section instead
# (make update-wire-doc).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
doc="$top_srcdir/docs/wire-protocol.md"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.new" "$tmp.doc"' EXIT
awk -v mode=md -f "$top_srcdir/src/common/wire_msgs.awk" "$top_srcdir/src/common/wire_msgs.txt" \
    > "$tmp" || { echo "not ok 1 - src/common/wire_msgs.txt is malformed"; echo "1..1"; exit 1; }
if test "${1:-}" = --update; then
    if ! grep -q '^<!-- BEGIN wire-msgs' "$doc"; then
        echo "wire-doc: $doc has no <!-- BEGIN wire-msgs --> line to replace" >&2
        exit 1
    fi
    awk -v gen="$tmp" '
        /^<!-- BEGIN wire-msgs/ { while ((getline l < gen) > 0) print l; skip = 1; next }
        skip && /^<!-- END wire-msgs -->/ { skip = 0; next }
        !skip { print }' "$doc" > "$tmp.new"
    cp "$tmp.new" "$doc"
    echo "wire-doc: $doc updated"
    exit 0
fi
awk '/^<!-- BEGIN wire-msgs/ { on = 1 } on { print } /^<!-- END wire-msgs -->/ { on = 0 }' \
    "$doc" > "$tmp.doc"
fails=0
if ! test -s "$tmp.doc"; then
    echo "not ok 1 - docs/wire-protocol.md has no generated wire-msgs table (make update-wire-doc)"
    fails=1
elif diff -u "$tmp.doc" "$tmp" > /dev/null; then
    echo "ok 1 - docs/wire-protocol.md agrees with src/common/wire_msgs.txt"
else
    diff -u "$tmp.doc" "$tmp" | head -40
    echo "not ok 1 - docs/wire-protocol.md differs from src/common/wire_msgs.txt (make update-wire-doc)"
    fails=1
fi
# Every command the table declares is dispatched by the server (a number
# added to the table but to no handler would be answered NOT_SUPPORTED).
peer="$top_srcdir/src/server/server_peer.c"
missing=""
for c in $(awk '!/^[ \t]*(#|$)/ && $1 != "record" && $4 == "request" { print $1 }' \
        "$top_srcdir/src/common/wire_msgs.txt"); do
    grep -q "case SY_CMD_$c:" "$peer" || missing="$missing $c"
done
if test -z "$missing"; then
    echo "ok 2 - the server dispatches every command of wire_msgs.txt"
else
    echo "not ok 2 - not dispatched in server_peer.c:$missing"
    fails=1
fi
echo "1..2"
exit $fails
