/* The attributes each API supports, per level (client, server, tool
 * library; the host adds its own with PMIx_Register_attributes), and the
 * answer to PMIx_Query_info(PMIX_QUERY_ATTRIBUTE_SUPPORT).
 *
 * The library's table is generated at build time from
 * src/common/attr_support.txt (attr_support.awk), the same file
 * docs/attributes.md's generated section comes from. */
#ifndef SWITCHYARD_COMMON_ATTR_SUPPORT_H
#define SWITCHYARD_COMMON_ATTR_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

typedef enum {
    SY_LEVEL_CLIENT = 0,
    SY_LEVEL_SERVER = 1,
    SY_LEVEL_TOOL = 2,
    SY_LEVEL_HOST = 3,
    SY_NLEVELS = 4
} sy_level_t;

typedef struct {
    const char *function; /* user-level API name */
    sy_level_t level;
    const char *name;   /* "PMIX_TIMEOUT", or NULL: the function, no attribute */
    const char *string; /* "pmix.timeout" */
    const char *note;
} sy_support_t;

const sy_support_t *sy_support_table(size_t *count);

/* The user-level API a server-module upcall serves ("query" ->
 * "PMIx_Query_info"), or NULL for an unknown upcall. */
const char *sy_support_upcall_api(const char *upcall);

/* What the host registered (kept by the server). */
typedef struct {
    char *api;    /* user-level API name */
    char **names; /* attribute names as registered, NULL-terminated */
} sy_host_attrs_t;

/* An attribute-support query (keys[0] == PMIX_QUERY_ATTRIBUTE_SUPPORT). */
bool sy_support_is_query(const pmix_query_t *q);
/* Does it need the host level (asked for, or every level by default)? */
bool sy_support_wants_host(const pmix_query_t *q);

/* Growing result array. */
typedef struct {
    pmix_info_t *info;
    size_t n, cap;
} sy_infos_t;
pmix_info_t *sy_infos_add(sy_infos_t *l);
void sy_infos_free(sy_infos_t *l);

/* Answer one attribute-support query into out: one info per function named
 * (key = the function, value = an array of one info per level, each an
 * array of pmix_regattr_t or PMIX_UNDEF), and one string per level-FUNCTIONS
 * qualifier.  host (nhost entries) are the host's registrations; with
 * have_host false the host level is answered as unknown (PMIX_UNDEF).
 * asked and found count the functions and lists asked for and those known. */
pmix_status_t sy_support_answer(const pmix_query_t *q, const sy_host_attrs_t *host, size_t nhost,
                                bool have_host, sy_infos_t *out, size_t *asked, size_t *found);

#endif
