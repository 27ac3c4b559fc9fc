/*
 * Switchyard -- locality strings and cpuset strings: building them from a
 * topology, parsing them back, and comparing two of them
 * (PMIx_Get_relative_locality, PMIx_Parse_cpuset_string).
 *
 * The locality grammar is OpenPMIx's, so that strings are comparable across
 * implementations: "<code><hwloc list>" fields joined with ':' where the
 * list holds logical indexes of the objects of that level the PUs fall in
 * (docs/architecture.md, "Topology").
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <pmix.h>

#include "common/topo_xml.h"
#include "common/topology.h"

typedef struct {
    hwloc_obj_type_t type;
    char code[3];
    pmix_locality_t bit;
} level_t;

/* In the order the fields are written: the CPU levels top down, then NUMA,
 * which hwloc 2 keeps beside the CPU tree rather than in it. */
static const level_t levels[] = {
    {HWLOC_OBJ_PACKAGE, "SK", PMIX_LOCALITY_SHARE_PACKAGE},
    {HWLOC_OBJ_L3CACHE, "L3", PMIX_LOCALITY_SHARE_L3CACHE},
    {HWLOC_OBJ_L2CACHE, "L2", PMIX_LOCALITY_SHARE_L2CACHE},
    {HWLOC_OBJ_L1CACHE, "L1", PMIX_LOCALITY_SHARE_L1CACHE},
    {HWLOC_OBJ_CORE, "CR", PMIX_LOCALITY_SHARE_CORE},
    {HWLOC_OBJ_PU, "HT", PMIX_LOCALITY_SHARE_HWTHREAD},
    {HWLOC_OBJ_NUMANODE, "NM", PMIX_LOCALITY_SHARE_NUMA},
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))

static const level_t *level_of_type(hwloc_obj_type_t type)
{
    for (size_t i = 0; i < NLEVELS; i++) {
        if (levels[i].type == type) {
            return &levels[i];
        }
    }
    return NULL;
}

/* ---- hwloc lists ------------------------------------------------------- */

static bool list_number(const char **pp, unsigned long *v)
{
    const char *p = *pp;
    unsigned long x = 0;
    if (*p < '0' || *p > '9') {
        return false;
    }
    while (*p >= '0' && *p <= '9') {
        x = x * 10 + (unsigned long)(*p - '0');
        if (x > SY_TOPO_MAX_INDEX) {
            return false;
        }
        p++;
    }
    *pp = p;
    *v = x;
    return true;
}

/* hwloc sizes a bitmap by its highest index and accepts more syntax than
 * it prints, so the text is checked here first. */
static bool list_ok(const char *p)
{
    if ('\0' == *p) {
        return true;
    }
    for (;;) {
        unsigned long lo, hi;
        if (!list_number(&p, &lo)) {
            return false;
        }
        if ('-' == *p) {
            p++;
            if ('\0' == *p) {
                return true; /* "N-": every index from N on */
            }
            if (!list_number(&p, &hi) || hi < lo) {
                return false;
            }
        }
        if ('\0' == *p) {
            return true;
        }
        if (',' != *p++) {
            return false;
        }
    }
}

pmix_status_t sy_topology_parse_list(const char *list, hwloc_bitmap_t *out)
{
    if (list == NULL || out == NULL || !list_ok(list)) {
        return PMIX_ERR_BAD_PARAM;
    }
    hwloc_bitmap_t bm = hwloc_bitmap_alloc();
    if (bm == NULL) {
        return PMIX_ERR_NOMEM;
    }
    if (hwloc_bitmap_list_sscanf(bm, list) != 0) {
        hwloc_bitmap_free(bm);
        return PMIX_ERR_BAD_PARAM;
    }
    *out = bm;
    return PMIX_SUCCESS;
}

/* ---- building a locality string ------------------------------------------ */

/* Append "<code><list>" for the objects at depth whose cpuset meets cpuset. */
static pmix_status_t add_level(FILE *f, hwloc_topology_t topo, int depth, const char *code,
                               hwloc_const_cpuset_t cpuset)
{
    hwloc_bitmap_t hit = hwloc_bitmap_alloc();
    if (hit == NULL) {
        return PMIX_ERR_NOMEM;
    }
    unsigned n = (unsigned)hwloc_get_nbobjs_by_depth(topo, depth);
    for (unsigned i = 0; i < n; i++) {
        hwloc_obj_t obj = hwloc_get_obj_by_depth(topo, depth, i);
        if (obj->cpuset != NULL && hwloc_bitmap_intersects(obj->cpuset, cpuset)) {
            hwloc_bitmap_set(hit, obj->logical_index);
        }
    }
    pmix_status_t rc = PMIX_SUCCESS;
    if (!hwloc_bitmap_iszero(hit)) {
        char *list = NULL;
        if (hwloc_bitmap_list_asprintf(&list, hit) < 0 || list == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            fprintf(f, "%s%s%s", ftell(f) == 0 ? "" : ":", code, list);
        }
        free(list);
    }
    hwloc_bitmap_free(hit);
    return rc;
}

pmix_status_t sy_topology_locality_string(hwloc_topology_t topo, hwloc_const_cpuset_t cpuset,
                                          char **out)
{
    if (topo == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    *out = NULL;
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo);
    if (cpuset == NULL || hwloc_bitmap_isfull(cpuset) || hwloc_bitmap_isincluded(all, cpuset)) {
        return PMIX_SUCCESS; /* unbound: no locality to describe */
    }
    if (!hwloc_bitmap_intersects(all, cpuset)) {
        return PMIX_ERR_BAD_PARAM;
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    int depth = hwloc_topology_get_depth(topo);
    /* depth 0 is the machine; every other CPU level of interest, in tree
     * order, so a machine with two L3 levels (none we know) stays exact */
    for (int d = 1; d < depth && rc == PMIX_SUCCESS; d++) {
        const level_t *lv = level_of_type(hwloc_get_depth_type(topo, d));
        if (lv != NULL) {
            rc = add_level(f, topo, d, lv->code, cpuset);
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = add_level(f, topo, HWLOC_TYPE_DEPTH_NUMANODE, "NM", cpuset);
    }
    if (fclose(f) != 0 && rc == PMIX_SUCCESS) {
        rc = PMIX_ERR_NOMEM;
    }
    if (rc != PMIX_SUCCESS) {
        free(buf);
        return rc;
    }
    *out = buf;
    return PMIX_SUCCESS;
}

/* ---- comparing two locality strings --------------------------------------- */

static void free_sets(hwloc_bitmap_t sets[NLEVELS])
{
    for (size_t i = 0; i < NLEVELS; i++) {
        hwloc_bitmap_free(sets[i]); /* NULL-safe */
        sets[i] = NULL;
    }
}

/* The bitmap of each level named in s (NULL for levels it does not name).
 * OpenPMIx writes the fields bare and once expected an "hwloc:" prefix, so
 * both are accepted. */
static pmix_status_t parse_locality(const char *s, hwloc_bitmap_t sets[NLEVELS])
{
    for (size_t i = 0; i < NLEVELS; i++) {
        sets[i] = NULL;
    }
    if (s == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (strncasecmp(s, "hwloc:", 6) == 0) {
        s += 6;
    }
    char *copy = strdup(s);
    if (copy == NULL) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = '\0' == *copy ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
    char *field = copy;
    while (rc == PMIX_SUCCESS && field != NULL) {
        char *next = strchr(field, ':');
        if (next != NULL) {
            *next++ = '\0';
        }
        size_t i = 0;
        while (i < NLEVELS && strncmp(field, levels[i].code, 2) != 0) {
            i++;
        }
        /* an unknown level, a repeated one, or an empty list */
        if (strlen(field) < 3 || i == NLEVELS || sets[i] != NULL) {
            rc = PMIX_ERR_BAD_PARAM;
        } else {
            rc = sy_topology_parse_list(field + 2, &sets[i]);
        }
        field = next;
    }
    free(copy);
    if (rc != PMIX_SUCCESS) {
        free_sets(sets);
    }
    return rc;
}

pmix_status_t sy_topology_relative_locality(const char *loc1, const char *loc2,
                                            pmix_locality_t *out)
{
    hwloc_bitmap_t a[NLEVELS], b[NLEVELS];
    if (out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = parse_locality(loc1, a);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    rc = parse_locality(loc2, b);
    if (rc != PMIX_SUCCESS) {
        free_sets(a);
        return rc;
    }
    pmix_locality_t loc = PMIX_LOCALITY_SHARE_NODE;
    for (size_t i = 0; i < NLEVELS; i++) {
        if (a[i] != NULL && b[i] != NULL && hwloc_bitmap_intersects(a[i], b[i])) {
            loc |= levels[i].bit;
        }
    }
    free_sets(a);
    free_sets(b);
    *out = loc;
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_Get_relative_locality(const char *locality1, const char *locality2,
                                                     pmix_locality_t *locality)
{
    return sy_topology_relative_locality(locality1, locality2, locality);
}

/* ---- cpuset strings ------------------------------------------------------- */

PMIX_EXPORT pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string, pmix_cpuset_t *cpuset)
{
    if (cpuset_string == NULL || cpuset == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    const char *colon = strchr(cpuset_string, ':');
    if (colon == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (5 != colon - cpuset_string || strncasecmp(cpuset_string, "hwloc", 5) != 0) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    hwloc_bitmap_t bm = NULL;
    pmix_status_t rc = sy_topology_parse_list(colon + 1, &bm);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    char *source = strdup("hwloc");
    if (source == NULL) {
        hwloc_bitmap_free(bm);
        return PMIX_ERR_NOMEM;
    }
    cpuset->source = source;
    cpuset->bitmap = bm;
    return PMIX_SUCCESS;
}
