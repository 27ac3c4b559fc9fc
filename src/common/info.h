/* Reading directives: one meaning of "this key" and "set" for every role.
 * A flag is set as the standard's PMIX_INFO_TRUE says (and OpenPMIx reads
 * it): given without a value, as a true PMIX_BOOL, or as a string users
 * write for yes ("true", "1", ...); any other type is not a yes. */
#ifndef SWITCHYARD_COMMON_INFO_H
#define SWITCHYARD_COMMON_INFO_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix.h>

static inline bool sy_info_is(const pmix_info_t *i, const char *key)
{
    return PMIX_CHECK_KEY(i, key);
}

static inline bool sy_info_true(const pmix_info_t *i)
{
    return PMIX_INFO_TRUE(i);
}

/* The first info named key, or NULL (info may be NULL). */
const pmix_info_t *sy_info_find(const pmix_info_t info[], size_t ninfo, const char *key);

/* key is among info and set. */
bool sy_info_flag(const pmix_info_t info[], size_t ninfo, const char *key);

/* The seconds of the first PMIX_TIMEOUT among info (0: none, or none
 * asked).  Any integer type the standard's macros produce is read;
 * another type, or a negative count, is PMIX_ERR_BAD_PARAM. */
pmix_status_t sy_info_timeout(const pmix_info_t info[], size_t ninfo, double *secs);

/* The seconds of one PMIX_TIMEOUT info, as sy_info_timeout reads them. */
pmix_status_t sy_info_timeout_of(const pmix_info_t *i, double *secs);

#endif
