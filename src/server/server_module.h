/* The one server entry the tool role uses (PMIx_tool_set_server_module):
 * kept apart from server_internal.h so that the tool sees nothing else of
 * the server. */
#ifndef SWITCHYARD_SERVER_MODULE_H
#define SWITCHYARD_SERVER_MODULE_H

#include <stdbool.h>

#include <pmix_server.h>

/* Replace the host module of the server running in this process (on its
 * loop, so no upcall sees half of it).  PMIX_ERR_INIT when there is none. */
pmix_status_t sy_srv_set_module(const pmix_server_module_t *module);

/* A server runs in this process (PMIx_server_init, directly or through
 * PMIX_LAUNCHER). */
bool sy_srv_running(void);

/* The URI tools reach this process's server at (malloc'd), or NULL. */
char *sy_srv_uri_dup(void);

#endif
