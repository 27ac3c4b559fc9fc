/*
 * Switchyard -- screening of a received hwloc XML topology before hwloc
 * imports it.
 *
 * hwloc trusts its XML: a PU or NUMA node without an os_index (or with a
 * huge one) makes it build a bitmap up to bit 2^32-1 (512 MB and seconds of
 * work from a 5 KB document), a distance matrix is allocated from its
 * declared size, and an object without its CPU sets crashes the import.
 * A peer must not be able to do that to us, so the objects and the
 * constructs that drive hwloc's allocations are checked here against what
 * hwloc 2.x exports, and anything this scanner does not understand in them
 * is refused.  This narrows, but cannot close, the exposure to hwloc's
 * importer: send topologies only between trusting peers.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/topo_xml.h"

static bool is_space(char c)
{
    return c == ' ' || '\t' == c || '\n' == c || '\r' == c;
}

static bool is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.' || c == ':';
}

/* Decimal digits only, no leading zero, at most `max`. */
static bool small_number(const char *v, size_t n, uint64_t max)
{
    uint64_t x = 0;
    if (n == 0 || (n > 1 && v[0] == '0')) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9') {
            return false;
        }
        x = x * 10 + (uint64_t)(v[i] - '0');
        if (x > max) {
            return false;
        }
    }
    return true;
}

/* The attributes this scanner looks at, as (pointer, length) pairs into
 * the document; NULL when absent. */
enum {
    A_TYPE,
    A_OS_INDEX,
    A_NBOBJS,
    A_CPUSET,
    A_COMPLETE_CPUSET,
    A_ALLOWED_CPUSET,
    A_NODESET,
    A_COMPLETE_NODESET,
    A_ALLOWED_NODESET,
    A_COUNT
};

static const char *const attr_names[A_COUNT] = {
    "type",           "os_index", "nbobjs",           "cpuset",          "complete_cpuset",
    "allowed_cpuset", "nodeset",  "complete_nodeset", "allowed_nodeset",
};

typedef struct {
    const char *val[A_COUNT];
    size_t len[A_COUNT];
} tag_attrs_t;

/* Parse the attributes of the tag whose name ends at p, up to its '>'.
 * Returns the position after the tag, or NULL if the tag is malformed. */
static const char *parse_attrs(const char *p, const char *end, tag_attrs_t *a)
{
    memset(a, 0, sizeof(*a));
    for (;;) {
        while (p < end && is_space(*p)) {
            p++;
        }
        if (p >= end) {
            return NULL;
        }
        if ('>' == *p) {
            return p + 1;
        }
        if ('/' == *p) {
            return p + 1 < end && p[1] == '>' ? p + 2 : NULL;
        }
        const char *name = p;
        while (p < end && is_name_char(*p)) {
            p++;
        }
        size_t name_len = (size_t)(p - name);
        if (name_len == 0 || p + 1 >= end || '=' != *p || (p[1] != '"' && '\'' != p[1])) {
            return NULL;
        }
        char quote = p[1];
        const char *val = p + 2;
        p = val;
        while (p < end && quote != *p) {
            /* no markup or entity references inside: hwloc's parsers would
             * decode "&#80;U" into "PU" behind our back */
            if ('<' == *p || '&' == *p) {
                return NULL;
            }
            p++;
        }
        if (p >= end) {
            return NULL;
        }
        size_t val_len = (size_t)(p - val);
        p++;
        for (int i = 0; i < A_COUNT; i++) {
            if (strlen(attr_names[i]) == name_len && memcmp(name, attr_names[i], name_len) == 0) {
                if (a->val[i] != NULL) {
                    return NULL; /* duplicate attribute */
                }
                a->val[i] = val;
                a->len[i] = val_len;
            }
        }
    }
}

static bool type_is(const tag_attrs_t *a, const char *t)
{
    size_t n = strlen(t);
    return a->len[A_TYPE] == n && memcmp(a->val[A_TYPE], t, n) == 0;
}

/* hwloc's bitmap text: comma-separated "0x" + 1..8 hex digit words, the
 * first possibly "0xf...f" (all higher bits set). */
static bool bitmap_ok(const char *v, size_t n)
{
    if (v == NULL) {
        return false;
    }
    size_t words = 0;
    const char *end = v + n;
    while (v < end) {
        if (end - v >= 7 && words == 0 && memcmp(v, "0xf...f", 7) == 0) {
            v += 7;
        } else {
            if (end - v < 3 || v[0] != '0' || v[1] != 'x') {
                return false;
            }
            v += 2;
            size_t digits = 0;
            while (v < end && ((*v >= '0' && *v <= '9') || (*v >= 'a' && *v <= 'f'))) {
                v++;
                digits++;
            }
            if (digits == 0 || digits > 8) {
                return false;
            }
        }
        if (++words > (SY_TOPO_MAX_INDEX + 1) / 32) {
            return false;
        }
        if (v < end && ',' != *v++) {
            return false;
        }
        if (v == end && v[-1] == ',') {
            return false;
        }
    }
    return words > 0;
}

/* Object types of hwloc 2.x; I/O and Misc objects carry no CPU sets. */
static const char *const set_types[] = {
    "Machine", "Package", "Die",     "Core",    "PU",       "NUMANode", "MemCache", "L1Cache",
    "L2Cache", "L3Cache", "L4Cache", "L5Cache", "L1iCache", "L2iCache", "L3iCache", "Group",
};
static const char *const setless_types[] = {"Misc", "Bridge", "PCIDev", "OSDev"};

static bool object_ok(const tag_attrs_t *a, bool root)
{
    bool with_sets = false, known = false;
    for (size_t i = 0; i < sizeof(set_types) / sizeof(set_types[0]); i++) {
        if (type_is(a, set_types[i])) {
            with_sets = known = true;
        }
    }
    for (size_t i = 0; i < sizeof(setless_types) / sizeof(setless_types[0]); i++) {
        if (type_is(a, setless_types[i])) {
            known = true;
        }
    }
    /* The root is the Machine, and only the root. */
    if (!known || root != type_is(a, "Machine")) {
        return false;
    }
    if ((type_is(a, "PU") || type_is(a, "NUMANode")) &&
        !small_number(a->val[A_OS_INDEX], a->len[A_OS_INDEX], SY_TOPO_MAX_INDEX)) {
        return false;
    }
    if (with_sets) {
        static const int sets[] = {A_CPUSET, A_COMPLETE_CPUSET, A_NODESET, A_COMPLETE_NODESET};
        for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
            if (!bitmap_ok(a->val[sets[i]], a->len[sets[i]])) {
                return false;
            }
        }
    }
    if (root && (!bitmap_ok(a->val[A_ALLOWED_CPUSET], a->len[A_ALLOWED_CPUSET]) ||
                 !bitmap_ok(a->val[A_ALLOWED_NODESET], a->len[A_ALLOWED_NODESET]))) {
        return false;
    }
    return true;
}

bool sy_topo_xml_ok(const char *xml, size_t len)
{
    const char *end = xml + len;
    /* A distance matrix of n objects holds n*n values written out in the
     * document, each taking at least 2 characters. */
    uint64_t max_nbobjs = 0;
    size_t objects = 0;
    while ((max_nbobjs + 1) * (max_nbobjs + 1) * 2 <= len) {
        max_nbobjs++;
    }
    for (const char *p = xml; p < end; p++) {
        if ('<' != *p) {
            continue;
        }
        if ((size_t)(end - p) >= 8 && memcmp(p, "<!ENTITY", 8) == 0) {
            return false;
        }
        const char *name = p + 1;
        const char *q = name;
        while (q < end && is_name_char(*q)) {
            q++;
        }
        size_t name_len = (size_t)(q - name);
        bool object = name_len == 6 && memcmp(name, "object", 6) == 0;
        bool distances = name_len >= 9 && memcmp(name, "distances", 9) == 0;
        if (!object && !distances) {
            continue;
        }
        tag_attrs_t a;
        const char *after = parse_attrs(q, end, &a);
        if (after == NULL) {
            return false;
        }
        if (object && !object_ok(&a, 0 == objects++)) {
            return false;
        }
        if (distances && !small_number(a.val[A_NBOBJS], a.len[A_NBOBJS], max_nbobjs)) {
            return false;
        }
        p = after - 1;
    }
    return objects > 0;
}
