/* Compiles a namespace description, as a host passes it to
 * PMIx_server_register_nspace, into a job-data segment builder (jseg.h):
 * every realm given flat or in PMIX_SESSION_INFO_ARRAY / PMIX_JOB_INFO_ARRAY
 * / PMIX_APP_INFO_ARRAY / PMIX_NODE_INFO_ARRAY / PMIX_PROC_DATA containers
 * nested to any depth, duplicate keys (last wins), NULL string values,
 * PMIX_NODE_MAP / PMIX_PROC_MAP in any form our parsers accept (regex.h),
 * and the values the host did not give but that follow from the others
 * (local peers, local and node ranks, local size, node list, app leaders,
 * per-proc hostname/nodeid/appnum, ...).  Values the host gave always win
 * over derived ones and keep the host's type.
 *
 * Pure data transformation: no role, no I/O.  Used by the server for
 * register_nspace/register_resources and by a singleton client to describe
 * itself. */
#ifndef SWITCHYARD_COMMON_JOBINFO_H
#define SWITCHYARD_COMMON_JOBINFO_H
#include <sys/types.h>
#include <pmix_common.h>
#include "common/jseg.h"

/* What a server needs to remember about a namespace besides its segment. */
typedef struct {
    uint32_t job_size;        /* 0 when unknown */
    uint32_t nlocal;          /* processes on this node */
    pmix_rank_t *local_ranks; /* nlocal ranks, ascending, malloc'd; NULL when the
                               * description does not say which (NODATA, no maps
                               * or local peers, or they disagree with nlocalprocs) */
    uint32_t nodeid;          /* this node's id in the job (UINT32_MAX unknown) */
} sy_jobinfo_summary_t;

/* nlocalprocs as given to register_nspace; local_hostname is this node's
 * name (the one matched against the node map).  On failure *error (may be
 * NULL) receives a malloc'd sentence saying which input was wrong.
 *
 * Nothing of info is copied: the builder points into it (a registration
 * stays valid until its callback), so info must outlive the builder. */
pmix_status_t sy_jobinfo_compile(const char *nspace, int nlocalprocs, const pmix_info_t info[],
                                 size_t ninfo, const char *local_hostname, sy_jseg_builder_t *b,
                                 sy_jobinfo_summary_t *summary, char **error);
/* The same for info followed by more (what setup_local_support added), as
 * if they were one array. */
pmix_status_t sy_jobinfo_compile_with(const char *nspace, int nlocalprocs, const pmix_info_t info[],
                                      size_t ninfo, const pmix_info_t more[], size_t nmore,
                                      const char *local_hostname, sy_jseg_builder_t *b,
                                      sy_jobinfo_summary_t *summary, char **error);
/* More data for a namespace already compiled into b (a builder seeded with
 * its segment, sy_jseg_builder_new_from): flat keys in the job realm,
 * containers in theirs, node arrays named by a hostname matched against
 * the segment's nodes; values are copied.  Nothing already derived is
 * derived again. */
pmix_status_t sy_jobinfo_compile_more(const char *nspace, const pmix_info_t info[], size_t ninfo,
                                      const char *local_hostname, sy_jseg_builder_t *b,
                                      char **error);
void sy_jobinfo_summary_free(sy_jobinfo_summary_t *s);

/* PMIx_server_register_resources: node-realm data (flat keys for this
 * node, or PMIX_NODE_INFO_ARRAY entries naming a node by PMIX_NODEID or
 * PMIX_HOSTNAME) added to a resources builder, which accumulates calls. */
pmix_status_t sy_jobinfo_compile_resources(const pmix_info_t info[], size_t ninfo,
                                           const char *local_hostname, sy_jseg_builder_t *b,
                                           char **error);

/* A singleton: a namespace of one process (rank 0) on this node. */
pmix_status_t sy_jobinfo_compile_singleton(const char *nspace, const char *hostname, pid_t pid,
                                           sy_jseg_builder_t *b);
#endif
