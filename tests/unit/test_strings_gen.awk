# Generate tests/unit/test_strings_gen.inc for test_strings.c from the
# public headers, independently of src/common/attr_table.awk:
#   - pmix_constants.h: every `#define PMIX_X value` as
#         SY_CONST("<heading of its group>", PMIX_X)
#     where the heading is the text of the last /* ... */ line above it;
#   - pmix_attributes.h: the number of #define lines other than the include
#     guard, as SY_ATTR_HEADER_DEFINES, which the generated attribute table
#     must match.
#
# Usage: awk -f test_strings_gen.awk pmix_constants.h pmix_attributes.h

FILENAME ~ /pmix_constants\.h$/ && /^\/\* .* \*\/$/ {
    group = $0
    sub(/^\/\* /, "", group)
    sub(/ \*\/$/, "", group)
    next
}

FILENAME ~ /pmix_constants\.h$/ && /^#define PMIX_[A-Z0-9_]+[ \t]+[^ \t]/ {
    printf("SY_CONST(\"%s\", %s)\n", group, $2)
    next
}

FILENAME ~ /pmix_attributes\.h$/ && /#[ \t]*define/ && !/PMIX_ATTRIBUTES_H/ {
    ndefines++
}

END { printf("#define SY_ATTR_HEADER_DEFINES %d\n", ndefines) }
