#!/bin/sh
# Build Switchyard in ./build (out of tree): install missing Debian
# packages, regenerate the autotools files and reconfigure only when their
# inputs changed, then make.  Safe to run again and again.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sh scripts/deps.sh

if test -f config.status; then
    # VPATH builds (build/, build-asan/, build-fuzz/) refuse an in-tree one.
    echo "build.sh: the source tree is configured in place; run 'make distclean' here first" >&2
    exit 1
fi

# autoreconf when configure is missing or older than any of its inputs.
if test ! -f configure ||
   test -n "$(find configure.ac Makefile.am src tests tools \
                   -name build -prune -o \( -name configure.ac -o -name Makefile.am \
                   -o -name '*.mk' \) -newer configure -print 2>/dev/null)"; then
    echo "build.sh: autoreconf -fi"
    autoreconf -fi
fi

mkdir -p build
if test ! -f build/config.status || test configure -nt build/config.status; then
    echo "build.sh: configuring build/"
    (cd build && ../configure ${SWITCHYARD_CONFIGURE_FLAGS:-})
fi

make -C build -j2
