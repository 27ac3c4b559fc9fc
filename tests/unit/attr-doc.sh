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
section > "$tmp.doc"
if ! test -s "$tmp.doc"; then
    echo "not ok 1 - docs/attributes.md has no generated attr-support section (make update-attr-doc)"
    echo "1..1"
    exit 1
fi
if diff -u "$tmp.doc" "$tmp" > /dev/null; then
    echo "ok 1 - docs/attributes.md agrees with src/common/attr_support.txt"
    echo "1..1"
    exit 0
fi
diff -u "$tmp.doc" "$tmp" | head -40
echo "not ok 1 - docs/attributes.md differs from src/common/attr_support.txt (make update-attr-doc)"
echo "1..1"
exit 1
