# Sourced by the benchmarks that compare with OpenPMIx 4.2.2 (run from the
# top of the source tree): where it is, and how a benchmark's source is
# built against it.
openpmix=${OPENPMIX_PREFIX:-/usr/lib/x86_64-linux-gnu/pmix2}

# openpmix_check NAME: stop with a clear message when its headers are not there
openpmix_check() {
    test -f "$openpmix/include/pmix.h" || {
        echo "$1: OpenPMIx headers not found under $openpmix (apt-get install libpmix-dev)" >&2
        exit 1
    }
}

# openpmix_cc SRC OUT [FLAGS...]: SRC built against OpenPMIx, its library
# pinned by rpath (FLAGS come last, so that they can override -O2)
openpmix_cc() {
    src=$1 out=$2
    shift 2
    ${CC:-cc} -O2 -std=gnu11 "$@" -I"$openpmix/include" "$src" -o "$out" \
        -L"$openpmix/lib" -lpmix -Wl,-rpath,"$openpmix/lib" -lpthread
}
