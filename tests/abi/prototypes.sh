#!/bin/sh
# API surface of Switchyard's public headers against OpenPMIx 4.2.2's.
#
# Programs written for OpenPMIx must compile and link unchanged against our
# headers, so the following must be identical on both sides:
#
#  protos   every PMIx_* prototype visible through <pmix_tool.h> and
#           <pmix_server.h>: return type, parameter types and qualifiers,
#           as printed by gcc -aux-info (parameter names do not appear)
#  visible  which PMIx_* functions and which callback typedefs each public
#           entry header (pmix_common.h, pmix.h, pmix_server.h, pmix_tool.h)
#           declares when it is the only one included.  Something OpenPMIx
#           declares there and we do not is a difference; something extra
#           on our side is only listed (it cannot break a program that
#           compiles against OpenPMIx)
#  typedef  the function type of every callback typedef (pmix_*_fn_t,
#           pmix_*_cbfunc_t, ...) the OpenPMIx headers define, again via
#           -aux-info on "extern __typeof__(*(T)0) chk_T;"
#  module   pmix_server_module_t: struct tag, size, member names, order,
#           offsets and member types
#  compile  each entry header alone as C99, C11 and C++11, a use of the
#           PMIx_Heartbeat() macro, and all headers under -Werror for a few
#           declaration warnings compile (or fail) alike on both sides
#  deep     the same functions and typedefs with every typedef expanded,
#           down to builtin types and struct tags: the C++ typeid() names
#           (Itanium mangling) of both sides must agree
#  linkage  under C++ every PMIx_* function is extern "C"
#  export   every PMIx_* declaration in our headers carries PMIX_EXPORT
#
# Exit 0: no difference; 1: differences (listed); 77: reference headers or
# gcc unavailable (1 instead when CI=true).
# Overrides: ABI_OUR_INC, ABI_REF_INC, PROBE_GCC, PROBE_GXX; top_srcdir and
# top_builddir come from the make check environment.
set -u

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
our_inc=${ABI_OUR_INC:-$top_srcdir/include}
ref_inc=${ABI_REF_INC:-/usr/lib/x86_64-linux-gnu/pmix2/include}
gcc=${PROBE_GCC:-gcc}
gxx=${PROBE_GXX:-g++}
work=$top_builddir/tests/abi/prototypes-work
LC_ALL=C
export LC_ALL

skip() {
    echo "prototypes: $*"
    if test "${CI:-}" = true; then exit 1; fi
    exit 77
}
test -f "$ref_inc/pmix_server.h" ||
    skip "OpenPMIx 4.2.2 headers not found in $ref_inc (apt-get install libpmix-dev)"
command -v "$gcc" > /dev/null 2>&1 || skip "$gcc not found (-aux-info needs gcc)"
if test ! -f "$our_inc/pmix_common.h"; then
    echo "prototypes: FAIL: $our_inc/pmix_common.h does not exist"
    exit 1
fi

rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1

fail=0
entries="pmix_common.h pmix.h pmix_server.h pmix_tool.h"

# show FILE: print at most 60 lines of FILE, indented
show() {
    sed -n '1,60s/^/    /p' "$1"
    n=$(wc -l < "$1")
    if test "$n" -gt 60; then echo "    ... $((n - 60)) more (see $work/$1)"; fi
}

# diff_report WHAT REF-FILE OUR-FILE: print differences, set fail
diff_report() {
    if ! diff -u "$2" "$3" > "$1.diff"; then
        echo "== $1: differences (- OpenPMIx 4.2.2, + Switchyard)"
        tail -n +3 "$1.diff" | grep '^[-+]' > "$1.lines"
        show "$1.lines"
        fail=1
    fi
}

# missing_report WHAT REF-FILE OUR-FILE: lines only in REF are differences,
# lines only in OUR are listed as extras
missing_report() {
    comm -23 "$2" "$3" > "$1.missing"
    comm -13 "$2" "$3" > "$1.extra"
    if test -s "$1.missing"; then
        echo "== $1: declared by OpenPMIx 4.2.2, not by Switchyard"
        show "$1.missing"
        fail=1
    fi
    if test -s "$1.extra"; then
        echo "-- $1: extra in Switchyard (informational)"
        show "$1.extra"
    fi
}

# aux SIDE-INC OUT SRC: compile SRC with -aux-info; OUT gets the records
# with the location comment stripped and blanks squeezed.  SRC's errors
# go to OUT.err.
aux() {
    if "$gcc" -std=gnu11 -c -I"$1" -aux-info "$2.raw" -o "$2.o" "$3" 2> "$2.err"; then
        sed -n 's:^/\*[^*]*\*/ *::p' "$2.raw" | sed 's/[[:space:]][[:space:]]*/ /g; s/ *$//' > "$2"
    else
        : > "$2"
        return 1
    fi
}

# pmix_protos FILE: the PMIx_* prototypes of an aux listing, sorted, unique
pmix_protos() {
    grep -E '(^|[^A-Za-z0-9_])PMIx_[A-Za-z0-9_]+ \(' "$1" | sort -u
}

side_inc() { if test "$1" = our; then echo "$our_inc"; else echo "$ref_inc"; fi; }

# ---------------------------------------------------------------- protos
printf '#include <pmix_tool.h>\n#include <pmix_server.h>\n' > all.c
for side in ref our; do
    if ! aux "$(side_inc $side)" $side.all.aux all.c; then
        echo "prototypes: FAIL: <pmix_tool.h> + <pmix_server.h> do not compile against $(side_inc $side):"
        head -n 30 $side.all.aux.err
        fail=1
    fi
    pmix_protos $side.all.aux > $side.protos
done
diff_report protos ref.protos our.protos
echo "protos: $(wc -l < ref.protos) OpenPMIx prototypes, $(wc -l < our.protos) Switchyard"

# ----------------------------------------------------------- visible
# Callback typedef names, taken from the reference headers.
grep -h 'typedef' "$ref_inc"/*.h | grep -o '(\*[[:space:]]*pmix_[A-Za-z0-9_]*[[:space:]]*)' |
    tr -d '(*) \t' | sort -u > typedefs.txt
if test "$(wc -l < typedefs.txt)" -lt 40; then
    echo "prototypes: FAIL: found only $(wc -l < typedefs.txt) callback typedefs in $ref_inc"
    fail=1
fi
# visible typedefs of a header set: $1 = include dir, $2 = source with the
# #include lines, $3 = output (names).  A typedef is visible unless gcc
# calls it an unknown type name.
visible_typedefs() {
    cp "$2" "$3.c"
    awk '{ printf "typedef %s chkvis_%d;\n", $1, NR }' typedefs.txt >> "$3.c"
    "$gcc" -std=gnu11 -fsyntax-only -I"$1" "$3.c" 2> "$3.err"
    sed -n "s/.*unknown type name '\\(pmix_[A-Za-z0-9_]*\\)'.*/\\1/p" "$3.err" | sort -u > "$3.unknown"
    comm -23 typedefs.txt "$3.unknown" > "$3"
}
for h in $entries; do
    printf '#include <%s>\n' "$h" > only."$h".c
    for side in ref our; do
        inc=$(side_inc $side)
        if aux "$inc" $side.only."$h".aux only."$h".c; then
            pmix_protos $side.only."$h".aux | sed 's/^/function /' > $side.visible."$h"
            visible_typedefs "$inc" only."$h".c $side.typedefs."$h"
            sed 's/^/typedef /' $side.typedefs."$h" >> $side.visible."$h"
        else
            echo "prototypes: FAIL: <$h> alone does not compile against $inc:"
            grep -m 10 error $side.only."$h".aux.err
            fail=1
            : > $side.visible."$h"
        fi
        sort -o $side.visible."$h" $side.visible."$h"
    done
    missing_report "visible-with-only-$h" ref.visible."$h" our.visible."$h"
done

# ----------------------------------------------------------- typedef
# Compare the typedefs both sides declare in <pmix_tool.h> + <pmix_server.h>;
# one missing on our side is a difference.
visible_typedefs "$ref_inc" all.c ref.typedefs.all
visible_typedefs "$our_inc" all.c our.typedefs.all
missing_report typedef-names ref.typedefs.all our.typedefs.all
comm -12 ref.typedefs.all our.typedefs.all > common-typedefs.txt
cp all.c td.c
awk '{ printf "extern __typeof__(*(%s)0) chk__%s;\n", $1, $1 }' common-typedefs.txt >> td.c
for side in ref our; do
    if ! aux "$(side_inc $side)" $side.td.aux td.c; then
        echo "prototypes: FAIL: typedef probe does not compile against $(side_inc $side):"
        grep -m 10 error $side.td.aux.err
        fail=1
    fi
    sed -n 's/^extern \(.*\) chk__\([A-Za-z0-9_]*\) \((.*)\);$/\2: \1 \3/p' $side.td.aux | sort > $side.typedefs
done
diff_report typedef ref.typedefs our.typedefs
echo "typedef: $(wc -l < ref.typedefs) callback typedefs compared"

# ------------------------------------------------------------ module
# Member names in order, from the reference definition.
sed -n '/typedef struct pmix_server_module_4_0_0_t/,/} *pmix_server_module_t;/p' \
    "$ref_inc/pmix_server.h" | sed 's:/\*.*\*/::' |
    sed -n 's/^[[:space:]]*pmix_[A-Za-z0-9_]*_t[[:space:]][[:space:]]*\([A-Za-z0-9_]*\);.*/\1/p' > members.txt
if test "$(wc -l < members.txt)" -ne 28; then
    echo "prototypes: FAIL: expected 28 pmix_server_module_t members in the reference, found $(wc -l < members.txt)"
    fail=1
fi
{
    printf '#include <stddef.h>\n#include <stdio.h>\n#include <pmix_server.h>\n'
    awk '{ printf "extern void chkm__%d_%s(__typeof__(((pmix_server_module_t *)0)->%s));\n", NR, $1, $1 }' members.txt
    printf 'int main(void)\n{\n'
    printf '    _Static_assert(__builtin_types_compatible_p(struct pmix_server_module_4_0_0_t,\n'
    printf '                                                pmix_server_module_t), "struct tag");\n'
    printf '    printf("sizeof %%zu\\n", sizeof(pmix_server_module_t));\n'
    awk '{ printf "    printf(\"%d %s %%zu\\n\", offsetof(pmix_server_module_t, %s));\n", NR, $1, $1 }' members.txt
    printf '    return 0;\n}\n'
} > module.c
for side in ref our; do
    inc=$(side_inc $side)
    if "$gcc" -std=gnu11 -I"$inc" -aux-info $side.module.raw -o $side.module module.c 2> $side.module.err; then
        ./$side.module > $side.module.out
        sed -n 's/.*extern void chkm__\([0-9]*\)_\([A-Za-z0-9_]*\) (\(.*\));.*/member \1 \2: \3/p' \
            $side.module.raw | sed 's/[[:space:]][[:space:]]*/ /g' | sort -k2n >> $side.module.out
    else
        echo "prototypes: FAIL: pmix_server_module_t probe does not compile against $inc:"
        grep -m 10 error $side.module.err
        echo "DOES-NOT-COMPILE" > $side.module.out
        fail=1
    fi
done
diff_report module ref.module.out our.module.out

# ----------------------------------------------------------- compile
printf '#include <pmix.h>\nvoid beat(void);\nvoid beat(void) { PMIx_Heartbeat(); }\n' > heartbeat.c
: > ref.compile
: > our.compile
for side in ref our; do
    inc=$(side_inc $side)
    for h in $entries; do
        for std in c99 c11; do
            if "$gcc" -std=$std -fsyntax-only -I"$inc" only."$h".c 2> /dev/null; then r=ok; else r=FAILS; fi
            echo "$h as $std: $r" >> $side.compile
        done
        if command -v "$gxx" > /dev/null 2>&1; then
            if "$gxx" -std=c++11 -fsyntax-only -x c++ -I"$inc" only."$h".c 2> /dev/null; then r=ok; else r=FAILS; fi
            echo "$h as c++11: $r" >> $side.compile
        fi
    done
    if "$gcc" -std=gnu11 -fsyntax-only -I"$inc" heartbeat.c 2> $side.heartbeat.err; then r=ok; else r=FAILS; fi
    echo "PMIx_Heartbeat(): $r" >> $side.compile
    # OpenPMIx's headers are clean under these; programs may build with -Werror
    for w in redundant-decls strict-prototypes old-style-declaration; do
        if "$gcc" -std=gnu11 -fsyntax-only -W$w -Werror=$w -I"$inc" all.c 2> /dev/null; then r=ok; else r=FAILS; fi
        echo "all headers with -Werror=$w: $r" >> $side.compile
    done
done
diff_report compile ref.compile our.compile

# -------------------------------------------------------------- deep
if command -v "$gxx" > /dev/null 2>&1; then
    for side in ref our; do
        sed 's/ (.*//; s/.* //; s/^\**//' $side.protos | sort -u > $side.names
    done
    comm -12 ref.names our.names > both.names
    {
        cat all.c
        printf '#include <cstdio>\n#include <typeinfo>\n'
        printf '#define T(n, x) std::printf("%%s %%s\\n", n, typeid(x).name())\n'
        printf 'int main()\n{\n'
        sed 's/.*/    T("&", \&&);/' both.names
        sed 's/.*/    T("&", &);/' common-typedefs.txt
        printf '    return 0;\n}\n'
    } > deep.cc
    for side in ref our; do
        if "$gxx" -std=c++11 -I"$(side_inc $side)" -o $side.deep deep.cc 2> $side.deep.err; then
            ./$side.deep > $side.deep.out
        else
            echo "prototypes: FAIL: typeid probe does not compile as C++ against $(side_inc $side):"
            grep -m 10 error $side.deep.err
            echo "DOES-NOT-COMPILE" > $side.deep.out
            fail=1
        fi
    done
    diff_report deep ref.deep.out our.deep.out
fi

# ----------------------------------------------------------- linkage
if command -v "$gxx" > /dev/null 2>&1; then
    {
        cat all.c
        printf 'typedef void (*anyfn)(void);\nanyfn refs[] = {\n'
        sed 's/.*/    reinterpret_cast<anyfn>(\&&),/' our.names
        printf '};\n'
    } > linkage.cc
    if "$gxx" -std=c++11 -c -I"$our_inc" -o linkage.o linkage.cc 2> linkage.err; then
        nm -u linkage.o | awk '{ print $NF }' | grep -v '^_Z' | sort -u > linkage.plain
        comm -23 our.names linkage.plain > linkage.mangled
        if test -s linkage.mangled; then
            echo "== linkage: declared without extern \"C\" under C++:"
            sed 's/^/    /' linkage.mangled
            fail=1
        fi
    else
        echo "prototypes: FAIL: linkage probe does not compile as C++ against $our_inc:"
        grep -m 10 error linkage.err
        fail=1
    fi
fi

# ------------------------------------------------------------ export
# A declaration starts in column 0 and names PMIx_xxx( ; it must say PMIX_EXPORT.
grep -nE '^[A-Za-z_].*[^A-Za-z0-9_]PMIx_[A-Za-z0-9_]+[[:space:]]*\(' "$our_inc"/*.h |
    grep -vE ':[0-9]+:(#|typedef|static)' | grep -v 'PMIX_EXPORT' > export.missing
if test -s export.missing; then
    echo "== export: PMIx_* declarations without PMIX_EXPORT:"
    sed 's/^/    /' export.missing
    fail=1
fi

if test "$fail" = 0; then echo "prototypes: PASS"; else echo "prototypes: FAIL (details in $work)"; fi
exit "$fail"
