#!/bin/sh
# libpmi.so.0 and libpmi2.so.0 with real processes: the PMI-1 and PMI-2
# API programs under switchyard-run (-n 1/2/4) and as singletons (no
# launcher), under Open MPI's mpirun with our libpmix (when installed),
# PMI_Abort's exit code becoming the job's, and the libraries' SONAMEs and
# exports (exactly the API).
set -u
NAME=pmi-api
NEED="tests/compat/pmi1_api tests/compat/pmi2_api"
. "$(dirname "$0")/pmi-lib.sh"
P1="$top_builddir/tests/compat/pmi1_api"
P2="$top_builddir/tests/compat/pmi2_api"
L="$top_builddir/src/compat/.libs"

for np in 1 2 4; do
    for api in 1 2; do
        eval prog=\$P$api
        EXPECT_SIZE=$np timeout 60 "$R" --oversubscribe -n $np "$prog" > "$T/out" 2> "$T/err"
        rc=$?
        check "PMI-$api API -n $np exits 0" "test $rc -eq 0"
        check "PMI-$api API -n $np: every rank ok" \
            "test \$(grep -c '^pmi$api ok rank [0-9]* of $np\$' '$T/out') -eq $np"
    done
done

# singletons: no PMIx server at all
for api in 1 2; do
    eval prog=\$P$api
    (unset PMIX_NAMESPACE PMIX_RANK PMIX_SERVER_URI41 PMIX_SERVER_URI4 PMIX_SERVER_URI3 \
        PMIX_SERVER_URI2 PMIX_SERVER_URI21; SY_NO_NAMESERV=1 EXPECT_SIZE=1 timeout 60 "$prog") > "$T/out" 2> "$T/err"
    rc=$?
    check "PMI-$api API singleton exits 0" "test $rc -eq 0 && grep -q '^pmi$api ok rank 0 of 1\$' '$T/out'"
done

timeout 60 "$R" --oversubscribe -n 3 "$P1" abort 3 > "$T/out" 2> "$T/err"
rc=$?
check "PMI_Abort(3) in rank 2 of 3: the job exits 3" "test $rc -eq 3"
check "the abort is reported" "grep -q 'pmi1_api: aborting on request' '$T/err'"

# under Open MPI's mpirun, our server library inside (when Open MPI is
# installed: tests/external/openmpi.sh installs it).  Not in the sanitizer
# builds: there our libpmix needs its sanitizer runtime loaded first in
# mpirun and orted, which are not built with it (TSan cannot be preloaded
# at all); make check runs these with the same programs.
sanitized=false
grep -q -e '--enable-sanitizers' -e '--enable-tsan' "$top_builddir/config.status" 2>/dev/null &&
    sanitized=true
if $sanitized; then
    echo "# skipped in this sanitizer build: the PMI programs under mpirun.openmpi"
elif command -v mpirun.openmpi > /dev/null; then
    LIBS="$top_builddir/src/.libs:$L"
    root=
    test "$(id -u)" -eq 0 && root=--allow-run-as-root
    for api in 1 2; do
        eval prog=\$P$api
        # the programs themselves (libtool's wrappers would reset the path)
        real="$(dirname "$prog")/.libs/$(basename "$prog")"
        test -x "$real" || real=$prog
        LD_LIBRARY_PATH="$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" EXPECT_SIZE=2 \
            timeout 120 mpirun.openmpi $root --oversubscribe -x EXPECT_SIZE -x LD_LIBRARY_PATH \
            -np 2 "$real" > "$T/out" 2> "$T/err"
        rc=$?
        check "PMI-$api API under mpirun.openmpi -np 2" \
            "test $rc -eq 0 && test \$(grep -c '^pmi$api ok rank [0-9]* of 2\$' '$T/out') -eq 2"
    done
fi

# SONAMEs and exports
if command -v readelf > /dev/null && command -v nm > /dev/null; then
    check "libpmi SONAME libpmi.so.0" \
        "readelf -d '$L/libpmi.so' | grep -q 'SONAME.*\[libpmi\.so\.0\]'"
    check "libpmi2 SONAME libpmi2.so.0" \
        "readelf -d '$L/libpmi2.so' | grep -q 'SONAME.*\[libpmi2\.so\.0\]'"
    nm -D --defined-only "$L/libpmi.so" | awk '$2 == "T" {print $3}' | sort > "$T/pmi1.syms"
    nm -D --defined-only "$L/libpmi2.so" | awk '$2 == "T" {print $3}' | sort > "$T/pmi2.syms"
    grep -o 'PMI_[A-Za-z_]*(' "$top_srcdir/include/pmi.h" | tr -d '(' | sort -u > "$T/pmi1.api"
    grep -o '\(PMI2_[A-Za-z_]*\|PMIX_Ring\)(' "$top_srcdir/include/pmi2.h" | tr -d '(' |
        sort -u > "$T/pmi2.api"
    check "libpmi exports exactly pmi.h (33 functions)" \
        "cmp -s '$T/pmi1.syms' '$T/pmi1.api' && test \$(wc -l < '$T/pmi1.api') -eq 33"
    check "libpmi2 exports exactly pmi2.h (22 functions)" \
        "cmp -s '$T/pmi2.syms' '$T/pmi2.api' && test \$(wc -l < '$T/pmi2.api') -eq 22"
    check "no other symbols exported" \
        "test -z \"\$(nm -D --defined-only '$L/libpmi.so' '$L/libpmi2.so' | awk 'NF == 3 && \$2 != \"T\" && \$2 != \"A\"')\""
fi
finish
