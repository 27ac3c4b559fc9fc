/* Queries: the library's part and the host's part (server_query.c). */
#ifndef SWITCHYARD_SERVER_QUERY_H
#define SWITCHYARD_SERVER_QUERY_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "server/server_internal.h"

/* answers is the caller's to take (its infos) or leave (freed after). */
typedef void (*sy_srv_query_done_fn)(pmix_status_t status, sy_infos_t *answers, void *arg);
void sy_srv_query(const pmix_proc_t *requestor, const pmix_query_t q[], size_t n,
                  sy_srv_query_done_fn done, void *arg);
void sy_srv_query_init(void);
void sy_srv_query_finalize(void);
#endif
