/*
 * The table of every attribute in <pmix_attributes.h>: macro name, key
 * string and value type.  It is generated from the header at build time
 * (attr_table.awk), so it lists exactly what the header defines.
 */
#ifndef SY_COMMON_ATTR_TABLE_H
#define SY_COMMON_ATTR_TABLE_H

#include <stddef.h>

#include <pmix_common.h>

typedef struct {
    const char *name;      /* macro name, e.g. "PMIX_JOBID" */
    const char *string;    /* key, e.g. "pmix.jobid" */
    pmix_data_type_t type; /* from the header's type comment; PMIX_UNDEF
                            * when the header gives none or it varies */
} sy_attr_t;

/* The whole table, in header order; *count receives its length.  Static
 * storage, never freed. */
const sy_attr_t *sy_attr_table(size_t *count);

/* The entry whose key is `string`, or NULL.  Some keys have several names
 * (deprecated aliases); the first in header order, the Standard's current
 * name, wins.  An exact match is preferred to a case-insensitive one. */
const sy_attr_t *sy_attr_by_string(const char *string);

/* The entry whose macro name is `name` (exact, else case-insensitive), or
 * NULL. */
const sy_attr_t *sy_attr_by_name(const char *name);

#endif /* SY_COMMON_ATTR_TABLE_H */
