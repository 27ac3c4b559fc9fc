#!/bin/sh
# docs/attributes.md carries a section generated from
# src/common/attr_support.txt, the table the library answers
# PMIX_QUERY_ATTRIBUTE_SUPPORT from: fail when the two disagree.
# With --update, rewrite the section instead (make update-attr-doc).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
doc="$top_srcdir/docs/attributes.md"
gen() {
    awk -v mode=md -f "$top_srcdir/src/common/attr_support.awk" \
        "$top_srcdir/src/common/attr_support.txt"
}
section() {
    awk '/^<!-- BEGIN attr-support/ { on = 1 } on { print } /^<!-- END attr-support -->/ { on = 0 }' "$doc"
}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.new" "$tmp.doc"' EXIT
gen > "$tmp" || { echo "attr_support.txt is malformed"; exit 1; }
if test "${1:-}" = --update; then
    if grep -q '^<!-- BEGIN attr-support' "$doc"; then
        awk -v gen="$tmp" '
            /^<!-- BEGIN attr-support/ { while ((getline l < gen) > 0) print l; skip = 1; next }
            skip && /^<!-- END attr-support -->/ { skip = 0; next }
            !skip { print }' "$doc" > "$tmp.new"
    else
        { cat "$doc"; echo; cat "$tmp"; } > "$tmp.new"
    fi
    cp "$tmp.new" "$doc"
    echo "attr-doc: $doc updated"
    exit 0
fi
fails=0
section > "$tmp.doc"
if ! test -s "$tmp.doc"; then
    echo "not ok 1 - docs/attributes.md has no generated attr-support section (make update-attr-doc)"
    fails=1
elif diff -u "$tmp.doc" "$tmp" > /dev/null; then
    echo "ok 1 - docs/attributes.md agrees with src/common/attr_support.txt"
else
    diff -u "$tmp.doc" "$tmp" | head -40
    echo "not ok 1 - docs/attributes.md differs from src/common/attr_support.txt (make update-attr-doc)"
    fails=1
fi
# The table names exactly the library's functions: every one it lists is
# exported, every export has a line (an _nb form: its blocking form's).
lib="${top_builddir:-$top_srcdir/build}/src/.libs/libpmix.so"
if test -f "$lib"; then
    nm -D --defined-only "$lib" | awk '$NF ~ /^PMIx_/ { print $NF }' | sed 's/_nb$//' |
        LC_ALL=C sort -u > "$tmp.new"
    awk '!/^[ \t]*#/ && NF >= 3 && $2 != "host" { print $1 }' \
        "$top_srcdir/src/common/attr_support.txt" | LC_ALL=C sort -u > "$tmp.doc"
    missing=$(LC_ALL=C comm -13 "$tmp.doc" "$tmp.new" | tr '\n' ' ')
    extra=$(LC_ALL=C comm -23 "$tmp.doc" "$tmp.new" | tr '\n' ' ')
    if test -z "$missing$extra"; then
        echo "ok 2 - attr_support.txt lists exactly the exported functions"
    else
        echo "# exported but not in attr_support.txt: $missing"
        echo "# in attr_support.txt but not exported: $extra"
        echo "not ok 2 - attr_support.txt lists exactly the exported functions"
        fails=1
    fi
else
    echo "ok 2 # SKIP $lib not built"
fi
echo "1..2"
exit $fails
