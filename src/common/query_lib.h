/* The part of PMIx_Query_info the library answers itself, shared by every
 * role: attribute support (attr_support.h), PMIX_QUERY_AVAIL_SERVERS (the
 * rendezvous files of this node), the ABI versions and, in a server,
 * PMIX_SERVER_URI.  The
 * rest goes to the server (a client or tool) or to the host's query upcall
 * (a server), and the answers are merged. */
#ifndef SWITCHYARD_COMMON_QUERY_LIB_H
#define SWITCHYARD_COMMON_QUERY_LIB_H

#include <stdbool.h>

#include <pmix_common.h>

#include "common/attr_support.h"

typedef struct {
    const char *server_uri;      /* PMIX_SERVER_URI answered with it; NULL: not here */
    const sy_host_attrs_t *host; /* the host's registrations */
    size_t nhost;
    bool have_host; /* the host level can be answered here */
    /* A server's own keys (process sets, groups): one key of query q into
     * *out, PMIX_ERR_NOT_SUPPORTED when it is not one of them; NULL: none. */
    pmix_status_t (*answer)(const pmix_query_t *q, const char *key, pmix_value_t *out);
} sy_query_ctx_t;

/* Does every query ask only PMIX_QUERY_STABLE_ABI_VERSION and/or
 * PMIX_QUERY_PROVISIONAL_ABI_VERSION (answerable before any init)? */
bool sy_query_abi_only(const pmix_query_t q[], size_t n);

/* Answer queries the library answers itself (no server context) right
 * now, on the caller's thread, into a fresh *results array. */
pmix_status_t sy_query_answer_now(const pmix_query_t q[], size_t n, pmix_info_t **results,
                                  size_t *nresults);

/* Can the library answer every query here, with nothing left for a server
 * or a host? */
bool sy_query_local_only(const pmix_query_t q[], size_t n, const sy_query_ctx_t *ctx);

/* Answer what the library can into *answers (asked/found count its keys);
 * the queries or keys left for the host are copied into *rest (NULL and 0
 * when nothing is left; free with PMIX_QUERY_FREE). */
pmix_status_t sy_query_split(const pmix_query_t q[], size_t n, const sy_query_ctx_t *ctx,
                             sy_infos_t *answers, size_t *asked, size_t *found, pmix_query_t **rest,
                             size_t *nrest);

/* The status of the whole query: the library found `found` of `asked`;
 * when the host was asked (host_asked), it answered host_status with
 * host_n infos. */
pmix_status_t sy_query_status(size_t asked, size_t found, bool host_asked,
                              pmix_status_t host_status, size_t host_n);

/* Answer entirely here: cbfunc runs later on the runtime's loop (never
 * before this returns).  PMIX_ERR_INIT without a runtime. */
pmix_status_t sy_query_answer_local(const pmix_query_t q[], size_t n, const sy_query_ctx_t *ctx,
                                    pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Hand a finished answer (taken) to cbfunc now; the infos are freed by the
 * release call cbfunc makes (or here when cbfunc is NULL). */
void sy_query_deliver(pmix_status_t status, sy_infos_t *answers, pmix_info_cbfunc_t cbfunc,
                      void *cbdata);

/* A server in this process serves PMIx_Query_info of its host (and of any
 * role without a server connection): set by the server role. */
typedef pmix_status_t (*sy_query_path_fn)(pmix_query_t q[], size_t n, pmix_info_cbfunc_t cbfunc,
                                          void *cbdata);
void sy_query_set_server_path(sy_query_path_fn fn);
sy_query_path_fn sy_query_server_path(void);

#endif
