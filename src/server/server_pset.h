/* Process sets defined by the host (server_pset.c). */
#ifndef SWITCHYARD_SERVER_PSET_H
#define SWITCHYARD_SERVER_PSET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

void sy_srv_pset_finalize(sy_srv_t *s);
size_t sy_srv_pset_count(void);
/* The sets (member NULL: all of them) as a PMIX_DATA_ARRAY of strings. */
pmix_status_t sy_srv_pset_names(const pmix_proc_t *member, pmix_value_t *out);
pmix_status_t sy_srv_pset_members(const char *name, pmix_value_t *out);
#endif
