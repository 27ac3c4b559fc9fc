#!/bin/sh
# Fails when a tracked C file differs from .clang-format (clang-format 14,
# Debian bookworm's).  `sh scripts/format-check.sh --fix` rewrites them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if ! command -v clang-format >/dev/null 2>&1; then
    echo "format-check: clang-format is missing (scripts/deps.sh installs it)" >&2
    exit 1
fi
files=$(git ls-files '*.c' '*.h' 2>/dev/null || find include src tools tests bench -name '*.[ch]')
if test "${1:-}" = --fix; then
    echo "$files" | xargs clang-format -i
    exit 0
fi
# One clang-format run over every file; its warnings name the files.
bad=$(echo "$files" | xargs clang-format --dry-run -Werror 2>&1 |
      sed -n 's/^\([^:]*\.[ch]\):[0-9]*:[0-9]*: error:.*/\1/p' | sort -u)
if test -n "$bad"; then
    echo "format-check: these files differ from .clang-format (run sh scripts/format-check.sh --fix):"
    for f in $bad; do echo "  $f"; done
    exit 1
fi
echo "format-check: $(echo "$files" | wc -w) files formatted"
