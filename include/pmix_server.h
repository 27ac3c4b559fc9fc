/*
 * Switchyard -- PMIx server role (PMIx Standard v5.0, "Server-Specific
 * Interfaces").
 *
 * A host environment (resource manager daemon, launcher) embeds the
 * library as a PMIx server.  It hands the library a table of upcalls,
 * pmix_server_module_t, through which client and tool requests that need
 * the host's help are shipped to it, and it uses the PMIx_server_* calls
 * below to describe jobs, clients and resources to the library.
 *
 * Prototypes and the layout of pmix_server_module_t are kept identical to
 * OpenPMIx 4.2.2 (struct tag pmix_server_module_4_0_0_t); host programs
 * built for it work unchanged.  tests/abi/prototypes.sh checks this.
 *
 * Upcall conventions: a NULL module entry means "not supported by the
 * host".  An upcall returning PMIX_SUCCESS promises to invoke the given
 * callback exactly once; PMIX_OPERATION_SUCCEEDED means the request was
 * completed at once and the callback will not be invoked; any other
 * value is an error and the callback will not be invoked either.  Data
 * passed into an upcall stays owned by the library; data the host passes
 * back through a callback stays owned by the host (see the release_fn of
 * pmix_modex_cbfunc_t / pmix_info_cbfunc_t for deferred release).
 */
#ifndef PMIx_SERVER_API_H
#define PMIx_SERVER_API_H

#include <pmix_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Callbacks the library passes to the host's upcalls ---- */

/* Given to the listener upcall: report a newly accepted connection. */
typedef void (*pmix_connection_cbfunc_t)(int incoming_sd, void *cbdata);

/* Given to the tool_connected upcall: report the identifier the host
 * assigned to the connecting tool (or an error refusing it). */
typedef void (*pmix_tool_connection_cbfunc_t)(pmix_status_t status, pmix_proc_t *proc,
                                              void *cbdata);

/* ---- Host upcalls: client lifecycle ---- */

/* Deprecated in favour of the "2" form, which also receives info. */
typedef pmix_status_t (*pmix_server_client_connected_fn_t)(const pmix_proc_t *proc,
                                                           void *server_object,
                                                           pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_client_connected2_fn_t)(const pmix_proc_t *proc,
                                                            void *server_object, pmix_info_t info[],
                                                            size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                                            void *cbdata);
typedef pmix_status_t (*pmix_server_client_finalized_fn_t)(const pmix_proc_t *proc,
                                                           void *server_object,
                                                           pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_abort_fn_t)(const pmix_proc_t *proc, void *server_object,
                                                int status, const char msg[], pmix_proc_t procs[],
                                                size_t nprocs, pmix_op_cbfunc_t cbfunc,
                                                void *cbdata);

/* ---- Host upcalls: data exchange across nodes ---- */

/* data/ndata is this node's contribution to the collective; the host
 * returns the concatenation of all nodes' contributions via cbfunc. */
typedef pmix_status_t (*pmix_server_fencenb_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  char *data, size_t ndata,
                                                  pmix_modex_cbfunc_t cbfunc, void *cbdata);
/* Fetch, from the node hosting proc, the data that proc posted. */
typedef pmix_status_t (*pmix_server_dmodex_req_fn_t)(const pmix_proc_t *proc,
                                                     const pmix_info_t info[], size_t ninfo,
                                                     pmix_modex_cbfunc_t cbfunc, void *cbdata);

/* ---- Host upcalls: publish / lookup name service ---- */

typedef pmix_status_t (*pmix_server_publish_fn_t)(const pmix_proc_t *proc, const pmix_info_t info[],
                                                  size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                                  void *cbdata);
/* keys is NULL-terminated. */
typedef pmix_status_t (*pmix_server_lookup_fn_t)(const pmix_proc_t *proc, char **keys,
                                                 const pmix_info_t info[], size_t ninfo,
                                                 pmix_lookup_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_unpublish_fn_t)(const pmix_proc_t *proc, char **keys,
                                                    const pmix_info_t info[], size_t ninfo,
                                                    pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Host upcalls: process management ---- */

typedef pmix_status_t (*pmix_server_spawn_fn_t)(const pmix_proc_t *proc,
                                                const pmix_info_t job_info[], size_t ninfo,
                                                const pmix_app_t apps[], size_t napps,
                                                pmix_spawn_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_connect_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_disconnect_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                     const pmix_info_t info[], size_t ninfo,
                                                     pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Host upcalls: events ---- */

typedef pmix_status_t (*pmix_server_register_events_fn_t)(pmix_status_t *codes, size_t ncodes,
                                                          const pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_deregister_events_fn_t)(pmix_status_t *codes, size_t ncodes,
                                                            pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_notify_event_fn_t)(pmix_status_t code,
                                                       const pmix_proc_t *source,
                                                       pmix_data_range_t range, pmix_info_t info[],
                                                       size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                                       void *cbdata);

/* ---- Host upcalls: connection handling for tools ---- */

/* Host-provided listener: the host accepts connections on listening_sd
 * and hands each new socket to cbfunc. */
typedef pmix_status_t (*pmix_server_listener_fn_t)(int listening_sd,
                                                   pmix_connection_cbfunc_t cbfunc, void *cbdata);
/* A tool asks to connect; the host assigns it an identifier (no return
 * value: the outcome is always reported through cbfunc). */
typedef void (*pmix_server_tool_connection_fn_t)(pmix_info_t *info, size_t ninfo,
                                                 pmix_tool_connection_cbfunc_t cbfunc,
                                                 void *cbdata);

/* ---- Host upcalls: queries, logging and job management ---- */

typedef pmix_status_t (*pmix_server_query_fn_t)(pmix_proc_t *proct, pmix_query_t *queries,
                                                size_t nqueries, pmix_info_cbfunc_t cbfunc,
                                                void *cbdata);
/* No return value: the outcome is always reported through cbfunc. */
typedef void (*pmix_server_log_fn_t)(const pmix_proc_t *client, const pmix_info_t data[],
                                     size_t ndata, const pmix_info_t directives[], size_t ndirs,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_alloc_fn_t)(const pmix_proc_t *client,
                                                pmix_alloc_directive_t directive,
                                                const pmix_info_t data[], size_t ndata,
                                                pmix_info_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_job_control_fn_t)(const pmix_proc_t *requestor,
                                                      const pmix_proc_t targets[], size_t ntargets,
                                                      const pmix_info_t directives[], size_t ndirs,
                                                      pmix_info_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_monitor_fn_t)(const pmix_proc_t *requestor,
                                                  const pmix_info_t *monitor, pmix_status_t error,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);

/* ---- Host upcalls: security ---- */

typedef pmix_status_t (*pmix_server_get_cred_fn_t)(const pmix_proc_t *proc,
                                                   const pmix_info_t directives[], size_t ndirs,
                                                   pmix_credential_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_validate_cred_fn_t)(
    const pmix_proc_t *proc, const pmix_byte_object_t *cred, const pmix_info_t directives[],
    size_t ndirs, pmix_validation_cbfunc_t cbfunc, void *cbdata);

/* ---- Host upcalls: standard I/O forwarding ---- */

/* Ask the host to forward the given output channels of procs to this
 * server (which then delivers them with PMIx_server_IOF_deliver). */
typedef pmix_status_t (*pmix_server_iof_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc,
                                              void *cbdata);
/* Deliver bo, stdin data from source, to the target processes. */
typedef pmix_status_t (*pmix_server_stdin_fn_t)(const pmix_proc_t *source,
                                                const pmix_proc_t targets[], size_t ntargets,
                                                const pmix_info_t directives[], size_t ndirs,
                                                const pmix_byte_object_t *bo,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Host upcalls: groups and fabric ---- */

typedef pmix_status_t (*pmix_server_grp_fn_t)(pmix_group_operation_t op, char grp[],
                                              const pmix_proc_t procs[], size_t nprocs,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_fabric_fn_t)(const pmix_proc_t *requestor,
                                                 pmix_fabric_operation_t op,
                                                 const pmix_info_t directives[], size_t ndirs,
                                                 pmix_info_cbfunc_t cbfunc, void *cbdata);

/* ---- The upcall table handed to PMIx_server_init ----
 * Member order is ABI: new members are only ever appended.  Hosts are
 * encouraged to fill it with designated initializers. */
typedef struct pmix_server_module_4_0_0_t {
    /* PMIx v1 */
    pmix_server_client_connected_fn_t client_connected;
    pmix_server_client_finalized_fn_t client_finalized;
    pmix_server_abort_fn_t abort;
    pmix_server_fencenb_fn_t fence_nb;
    pmix_server_dmodex_req_fn_t direct_modex;
    pmix_server_publish_fn_t publish;
    pmix_server_lookup_fn_t lookup;
    pmix_server_unpublish_fn_t unpublish;
    pmix_server_spawn_fn_t spawn;
    pmix_server_connect_fn_t connect;
    pmix_server_disconnect_fn_t disconnect;
    pmix_server_register_events_fn_t register_events;
    pmix_server_deregister_events_fn_t deregister_events;
    pmix_server_listener_fn_t listener;
    /* PMIx v2 */
    pmix_server_notify_event_fn_t notify_event;
    pmix_server_query_fn_t query;
    pmix_server_tool_connection_fn_t tool_connected;
    pmix_server_log_fn_t log;
    pmix_server_alloc_fn_t allocate;
    pmix_server_job_control_fn_t job_control;
    pmix_server_monitor_fn_t monitor;
    /* PMIx v3 */
    pmix_server_get_cred_fn_t get_credential;
    pmix_server_validate_cred_fn_t validate_credential;
    pmix_server_iof_fn_t iof_pull;
    pmix_server_stdin_fn_t push_stdin;
    /* PMIx v4 */
    pmix_server_grp_fn_t group;
    pmix_server_fabric_fn_t fabric;
    pmix_server_client_connected2_fn_t client_connected2;
} pmix_server_module_t;

/* ---- Server lifecycle ---- */

/* module may be NULL or all-NULL: the host then serves local clients
 * only (no fence, spawn, etc. across nodes). */
PMIX_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module, pmix_info_t info[],
                                           size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_server_finalize(void);

/* ---- Compact encodings of node and process-per-node lists ----
 * regex input: comma-separated node names; ppn input: for each of those
 * nodes, in the same order, its ranks (e.g. "0-3,8"), nodes separated by
 * ';'.  The output is allocated for the caller, who frees it; it begins
 * with a printable NUL-terminated "method:" tag but need not be a C
 * string as a whole. */

PMIX_EXPORT pmix_status_t PMIx_generate_regex(const char *input, char **regex);
PMIX_EXPORT pmix_status_t PMIx_generate_ppn(const char *input, char **ppn);

/* ---- Describing jobs, local clients and resources to the library ---- */

/* nlocalprocs: how many of the job's processes run on this node. */
PMIX_EXPORT pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace, int nlocalprocs,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT void PMIx_server_deregister_nspace(const pmix_nspace_t nspace, pmix_op_cbfunc_t cbfunc,
                                               void *cbdata);
/* uid/gid are what the client must present when it connects;
 * server_object is an opaque host pointer handed back in the client's
 * upcalls. */
PMIX_EXPORT pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc, uid_t uid, gid_t gid,
                                                      void *server_object, pmix_op_cbfunc_t cbfunc,
                                                      void *cbdata);
PMIX_EXPORT void PMIx_server_deregister_client(const pmix_proc_t *proc, pmix_op_cbfunc_t cbfunc,
                                               void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
                                                         pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
                                                           pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Preparing the launch of local processes ---- */

/* Add to *env (a NULL-terminated, malloc'd argv-style array that may be
 * reallocated) the variables the child needs to find this server. */
PMIX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env);

/* Result of PMIx_server_setup_application: info is the launch data to
 * be passed to PMIx_server_setup_local_support on each node; the
 * receiver calls cbfunc(status, cbdata) once it is done with info. */
typedef void (*pmix_setup_application_cbfunc_t)(pmix_status_t status, pmix_info_t info[],
                                                size_t ninfo, void *provided_cbdata,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace,
                                                        pmix_info_t info[], size_t ninfo,
                                                        pmix_setup_application_cbfunc_t cbfunc,
                                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace,
                                                          pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Serving another node's direct-modex request ---- */

/* data belongs to the library and is valid only during the callback. */
typedef void (*pmix_dmodex_response_fn_t)(pmix_status_t status, char *data, size_t sz,
                                          void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                     pmix_dmodex_response_fn_t cbfunc,
                                                     void *cbdata);

/* ---- Standard I/O forwarding into the library ---- */

/* Hand the library output of source's channel, to be passed on to
 * whichever clients and tools asked for it. */
PMIX_EXPORT pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
                                                  pmix_iof_channel_t channel,
                                                  const pmix_byte_object_t *bo,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Node inventory: collect locally, deliver to the scheduler's server ---- */

PMIX_EXPORT pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
                                                        pmix_info_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
                                                        pmix_info_t directives[], size_t ndirs,
                                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Advertising which attributes the host supports ---- */

/* function names a pmix_server_module_t member (e.g. "spawn"); attrs is a
 * NULL-terminated array of attribute names.  (OpenPMIx 4.2 form; the
 * Standard's pmix_regattr_t variant is not provided.) */
PMIX_EXPORT pmix_status_t PMIx_Register_attributes(char *function, char *attrs[]);

/* ---- Locality strings for processes bound to a cpuset ---- */

/* The resulting strings are malloc'd for the caller. */
PMIX_EXPORT pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
                                                               char **locality);
PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
                                                             char **cpuset_string);

/* ---- Process sets defined by the host ---- */

PMIX_EXPORT pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members,
                                                         size_t nmembers, const char *pset_name);
PMIX_EXPORT pmix_status_t PMIx_server_delete_process_set(char *pset_name);

#ifdef __cplusplus
}
#endif

#endif /* PMIx_SERVER_API_H */
