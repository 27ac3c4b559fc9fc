/* Randomness, and API calls thread-shifted to the loop (server_util.c). */
#ifndef SWITCHYARD_SERVER_UTIL_H
#define SWITCHYARD_SERVER_UTIL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

/* Fill buf with n random bytes (getrandom, falling back to /dev/urandom). */
pmix_status_t sy_srv_random(void *buf, size_t n);
/* Append PMIX_USERID and PMIX_GRPID of the client (its registered ids)
 * to a malloc'd info array, as the upcalls that act for a client need. */
pmix_status_t sy_srv_add_ids(pmix_info_t **info, size_t *ninfo, const sy_srv_client_t *c);
/* Post fn(arg) to the loop of a live server; PMIX_ERR_INIT when there is
 * none (fn is then never called). */
pmix_status_t sy_srv_post(sy_progress_fn_t fn, void *arg);
/* For the blocking variants of the API (NULL cbfunc): wait on the loop's
 * progress for a sync the posted work signals. */
sy_progress_t *sy_srv_progress(void);

/* An API request thread-shifted to the loop.  Embed it first in a
 * malloc'd request struct; sy_srv_op_start posts fn(request) and, with a
 * NULL cbfunc, waits for the result (the blocking variants); fn ends with
 * sy_srv_op_finish, which fires cbfunc (and frees the request) or wakes the
 * waiter (who frees it). */
typedef struct {
    pmix_op_cbfunc_t cbfunc;
    void *cbdata;
    bool blocking;
    sy_sync_t sync;
} sy_srv_op_t;
pmix_status_t sy_srv_op_start(sy_srv_op_t *op, sy_progress_fn_t fn, pmix_op_cbfunc_t cbfunc,
                              void *cbdata);
void sy_srv_op_finish(sy_srv_op_t *op, pmix_status_t status);
#endif
