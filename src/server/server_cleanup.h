/* Cleanup registered through job control (server_cleanup.c). */
#ifndef SWITCHYARD_SERVER_CLEANUP_H
#define SWITCHYARD_SERVER_CLEANUP_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

/* The cleanup directives of client c's job-control request (targets: its
 * own job when none) are recorded here and removed from *dirs (freed and
 * NULL when none is left); *had tells whether there were any.  An error
 * is the request's answer. */
pmix_status_t sy_srv_cleanup_take(const sy_srv_client_t *c, const pmix_proc_t *targets,
                                  size_t ntargets, pmix_info_t **dirs, size_t *ndirs, bool *had);
/* A client finalized or its connection ended; a namespace went; finalize. */
void sy_srv_cleanup_proc_gone(const pmix_proc_t *proc);
void sy_srv_cleanup_nspace_gone(const char *nspace);
void sy_srv_cleanup_finalize(void);
#endif
