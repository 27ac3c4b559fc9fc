/* Namespace segments (server_nspace.c). */
#ifndef SWITCHYARD_SERVER_NSPACE_H
#define SWITCHYARD_SERVER_NSPACE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

/* Publish an nspace's segment with info added (taken: kept by the nspace
 * for a re-registration, freed on failure); the clients see it at their
 * next Get. */
pmix_status_t sy_srv_nspace_add_info(sy_srv_t *s, sy_srv_nspace_t *ns, pmix_info_t *info,
                                     size_t ninfo);
#endif
