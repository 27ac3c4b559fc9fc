/*
 * PMIx_Get_attribute_string / PMIx_Get_attribute_name and the internal
 * attribute table behind them.
 *
 * common/attr_table.inc is generated from include/pmix_attributes.h by
 * attr_table.awk (rule in common.mk); each line is SY_ATTR(NAME, TYPE), so
 * the key string is whatever the header's macro expands to.
 */
#include "config.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include <pmix.h>

#include "common/attr_table.h"

#define SY_ATTR(name, type) {#name, name, type},
static const sy_attr_t attrs[] = {
#include "common/attr_table.inc"
};
#undef SY_ATTR

#define NATTRS (sizeof(attrs) / sizeof(attrs[0]))

const sy_attr_t *sy_attr_table(size_t *count)
{
    if (count != NULL) {
        *count = NATTRS;
    }
    return attrs;
}

static const char *key_of(const sy_attr_t *a, bool by_name)
{
    return by_name ? a->name : a->string;
}

/* OpenPMIx 4.2.2 matches case-insensitively ("pmix_jobid" finds
 * PMIX_JOBID), so callers may rely on that; an exact match still wins
 * should two entries ever differ only in case. */
static const sy_attr_t *find(const char *key, bool by_name)
{
    if (key == NULL) {
        return NULL;
    }
    for (size_t i = 0; i < NATTRS; i++) {
        if (strcmp(key_of(&attrs[i], by_name), key) == 0) {
            return &attrs[i];
        }
    }
    for (size_t i = 0; i < NATTRS; i++) {
        if (strcasecmp(key_of(&attrs[i], by_name), key) == 0) {
            return &attrs[i];
        }
    }
    return NULL;
}

const sy_attr_t *sy_attr_by_string(const char *string)
{
    return find(string, false);
}

const sy_attr_t *sy_attr_by_name(const char *name)
{
    return find(name, true);
}

/* Unknown input comes back unchanged (OpenPMIx 4.2.2 does the same), so a
 * caller printing the result always has something to print; NULL gives
 * NULL instead of the crash OpenPMIx has there. */
PMIX_EXPORT const char *PMIx_Get_attribute_string(const char *attribute)
{
    const sy_attr_t *a = sy_attr_by_name(attribute);
    return a != NULL ? a->string : attribute;
}

PMIX_EXPORT const char *PMIx_Get_attribute_name(const char *attrstring)
{
    const sy_attr_t *a = sy_attr_by_string(attrstring);
    return a != NULL ? a->name : attrstring;
}
