/* The query keys of sets and groups, answered here (server_setquery.c). */
#ifndef SWITCHYARD_SERVER_SETQUERY_H
#define SWITCHYARD_SERVER_SETQUERY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

/* One key of query q into *out; PMIX_ERR_NOT_SUPPORTED when it is not one
 * of these keys, PMIX_ERR_NOT_FOUND when it is but names nothing. */
pmix_status_t sy_srv_sets_answer(const pmix_query_t *q, const char *key, pmix_value_t *out);
#endif
