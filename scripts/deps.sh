#!/bin/sh
# Install the Debian packages needed to build and test Switchyard, but only
# if one is missing (so repeated runs are fast and need no network).
# libpmix-dev (OpenPMIx 4.2.2) is used only by the ABI comparison test, the
# wire interop test (tests/external/interop.sh) and benchmarks; the product
# never includes, links or loads it.
set -eu

# python3 and procps (pkill) are used by test scripts; a minimal bookworm
# (a container) has neither.  The external tests install what only they
# need (openmpi-bin, libopenmpi-dev, python3-pmix, pmix's source package).
required="build-essential autoconf automake libtool pkg-config clang
libclang-rt-14-dev libhwloc-dev libfabric-dev libevent-dev libigraph-dev
zlib1g-dev libcmocka-dev libpmix-dev valgrind python3 procps clang-format
libpng-dev libjansson-dev libmunge-dev nettle-dev"
optional="hwloc"    # lstopo, handy for looking at topologies; not needed

installed() {
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=""
for p in $required; do
    installed "$p" || missing="$missing $p"
done
missing_opt=""
for p in $optional; do
    installed "$p" || missing_opt="$missing_opt $p"
done
test -n "$missing$missing_opt" || exit 0

if test "$(id -u)" != 0; then
    SUDO=sudo
else
    SUDO=
fi
echo "deps.sh: installing:$missing$missing_opt"
$SUDO apt-get update
if test -n "$missing"; then
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi
if test -n "$missing_opt"; then
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing_opt ||
        echo "deps.sh: optional packages not installed:$missing_opt (continuing)"
fi
