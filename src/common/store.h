/* The process-wide store every role reads job data from: the job-data
 * segments this process has mapped (one per namespace, plus the node
 * resources segment) and the values given to PMIx_Store_internal.
 * PMIx_Get of a reserved key is answered here, on the caller's thread,
 * following the retrieval rules of the standard
 * (Chap_API_Reserved_Keys.tex, "Data realms" and "Retrieval rules").
 *
 * Who feeds it: the server attaches each segment it publishes; a client
 * attaches its own namespace's segment at init and asks its server for
 * others through the resolver hook.  The store knows nothing of roles.
 *
 * Thread-safe.  Lookups take a read lock only; attach/detach a write lock.
 * A segment that was superseded (jseg.h) is reopened transparently on the
 * next lookup. */
#ifndef SWITCHYARD_COMMON_STORE_H
#define SWITCHYARD_COMMON_STORE_H
#include <stdbool.h>
#include <pmix_common.h>

/* Reference counted with the roles; the last release detaches everything
 * and frees all internal values. */
void sy_store_acquire(void);
void sy_store_release(void);
/* true between the first acquire and the last release: some role of this
 * process is initialized, so PMIx_Get may be served. */
bool sy_store_active(void);

/* Map the segment at path as the data of nspace (replacing a previous
 * mapping of that nspace). */
pmix_status_t sy_store_attach(const char *nspace, const char *path);
void sy_store_detach(const char *nspace);
/* Node data registered with PMIx_server_register_resources; a namespace's
 * own node data overrides it.  path NULL detaches. */
pmix_status_t sy_store_attach_resources(const char *path);

/* PMIx_Store_internal: a copy of val for (proc, key).  rank
 * PMIX_RANK_WILDCARD stores job-level data.  Overrides segment data. */
pmix_status_t sy_store_internal_put(const pmix_proc_t *proc, const char *key,
                                    const pmix_value_t *val);
/* Forget the internal values of one namespace (deregister). */
void sy_store_internal_forget(const char *nspace);

/* Called without any store lock held when a Get names a namespace that has
 * no segment: it may sy_store_attach() one and return PMIX_SUCCESS to have
 * the lookup retried once.  NULL resolver: PMIX_ERR_NOT_FOUND. */
typedef pmix_status_t (*sy_store_resolver_fn)(const char *nspace, const pmix_info_t info[],
                                              size_t ninfo, void *ctx);
void sy_store_set_resolver(sy_store_resolver_fn fn, void *ctx);

/* The namespaces that have a segment attached, as a malloc'd
 * NULL-terminated list of malloc'd strings (PMIx_Resolve_* with no
 * namespace). */
pmix_status_t sy_store_nspaces(char ***names);

/* The modex layer (store_modex.c): segments of data that processes posted
 * and a fence collected (realm PROC, id = rank), newest first.  Lookups of
 * a rank; with PMIX_RANK_UNDEF the first rank holding the key (*who, may be
 * NULL, receives it).  sy_store_modex_drop(NULL) drops every namespace's. */
pmix_status_t sy_store_attach_modex(const char *nspace, const char *path);
void sy_store_modex_drop(const char *nspace);
/* A segment its server retired (a newer one holds all it held); nspace
 * NULL: whichever namespace it was attached for. */
void sy_store_modex_forget(const char *nspace, const char *path);
pmix_status_t sy_store_get_modex(const pmix_proc_t *proc, const char *key, pmix_rank_t *who,
                                 pmix_value_t **out);
/* Everything a rank posted, from the newest segment holding it (an infos
 * array to PMIX_INFO_FREE); PMIX_ERR_NOT_FOUND when no segment has it. */
pmix_status_t sy_store_modex_record(const pmix_proc_t *proc, pmix_info_t **infos, size_t *n);

/* A special key whose value this process computes rather than reads (a
 * process's PMIX_DEVICE_DISTANCES from its cpuset): set by the role that
 * can (fn NULL removes it).  Called without any store lock held; it may
 * Get other keys. */
typedef pmix_status_t (*sy_store_provider_fn)(const pmix_proc_t *proc, const pmix_info_t info[],
                                              size_t ninfo, pmix_value_t **out);
pmix_status_t sy_store_set_provider(const char *key, sy_store_provider_fn fn);

/* PMIx_Get of everything this process can answer itself, in this order:
 * the internal values and the job data (the standard's retrieval rules:
 * realm qualifiers PMIX_SESSION_INFO/JOB_INFO/APP_INFO/NODE_INFO/PROC_INFO
 * with PMIX_SESSION_ID/PMIX_APPNUM/PMIX_NODEID/PMIX_HOSTNAME directives,
 * rank fallbacks), the special keys (PMIX_FABRIC_DEVICE, the providers),
 * then what the processes posted (the modex segments; not with
 * PMIX_GET_REFRESH_CACHE).  key NULL returns every value of the process
 * (its proc realm plus internal values) as a PMIX_DATA_ARRAY of
 * PMIX_INFO.  PMIX_ERR_NOT_FOUND when absent here (only the server can
 * tell more), PMIX_ERR_BAD_PARAM on a malformed request. */
pmix_status_t sy_store_get(const pmix_proc_t *proc, const char *key, const pmix_info_t info[],
                           size_t ninfo, pmix_value_t **out);
/* PMIX_FABRIC_DEVICE by PMIX_DEVICE_ID, or by PMIX_FABRIC_DEVICE_NAME and
 * PMIX_HOSTNAME (store_fabric.c; sy_store_get sends it there). */
pmix_status_t sy_store_fabric_device(const pmix_proc_t *proc, const pmix_info_t info[],
                                     size_t ninfo, pmix_value_t **out);

#endif
