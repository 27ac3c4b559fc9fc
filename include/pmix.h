/*
 * Switchyard -- client-side and general-purpose PMIx API (PMIx Standard v5.0).
 *
 * Everything a process linked against libpmix may call regardless of its
 * role: initialization, key/value exchange, collectives, process and job
 * management, events, fabric and topology support, and the helpers for
 * PMIx data types.  Server hosts add <pmix_server.h>, tools <pmix_tool.h>.
 *
 * Prototypes (names, parameter types, qualifiers, return types) are kept
 * identical to those of OpenPMIx 4.2.2 so that programs built against
 * either set of headers work with either library; tests/abi/prototypes.sh
 * checks this.
 *
 * Conventions that hold throughout, unless a comment says otherwise:
 *  - A non-blocking call (name ending in _nb) that returns PMIX_SUCCESS
 *    will report its outcome later through the supplied callback.  If it
 *    returns PMIX_OPERATION_SUCCEEDED the work was finished at once and
 *    the callback is NOT invoked; any other return is an error and the
 *    callback is not invoked either.
 *  - Arrays handed back through "pmix_info_t **results, size_t *nresults"
 *    belong to the caller, who releases them with PMIX_INFO_FREE.
 *  - Functions returning "const char*" return static text that must not
 *    be freed; functions returning "char*" return malloc'd memory that the
 *    caller must free().
 */
#ifndef PMIx_H
#define PMIx_H

#include <pmix_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Library lifecycle: attach to / detach from the local PMIx server ---- */

/* On success *proc (proc may be NULL) holds the caller's namespace and
 * rank.  Reference counted: the connection closes when the last
 * successful PMIx_Init has been balanced by a PMIx_Finalize. */
PMIX_EXPORT pmix_status_t PMIx_Init(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo);
/* Nonzero while the library is initialized in any role (client,
 * server or tool). */
PMIX_EXPORT int PMIx_Initialized(void);
/* Static string naming this library and its release. */
PMIX_EXPORT const char *PMIx_Get_version(void);
/* Let the library advance pending work; calling it from inside a PMIx
 * callback can deadlock. */
PMIX_EXPORT void PMIx_Progress(void);

/* ---- Key/value store: post, commit and retrieve data about processes ---- */

PMIX_EXPORT pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[], pmix_value_t *val);
PMIX_EXPORT pmix_status_t PMIx_Commit(void);
/* On success *val is a newly allocated value owned by the caller, to be
 * released with PMIX_VALUE_RELEASE. */
PMIX_EXPORT pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
                                   const pmix_info_t info[], size_t ninfo, pmix_value_t **val);
PMIX_EXPORT pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[],
                                      const pmix_info_t info[], size_t ninfo,
                                      pmix_value_cbfunc_t cbfunc, void *cbdata);
/* Store a value locally, attributed to proc, without sending it anywhere. */
PMIX_EXPORT pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc, const char key[],
                                              pmix_value_t *val);

/* ---- Synchronization: fence across a set of processes ---- */

PMIX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t info[], size_t ninfo,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Publish / lookup: a name service for data shared between jobs ---- */

PMIX_EXPORT pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata);
/* The caller fills in the key of each data[] element; found values are
 * stored into those elements. */
PMIX_EXPORT pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata, const pmix_info_t info[],
                                      size_t ninfo);
/* keys is a NULL-terminated array of strings. */
PMIX_EXPORT pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                         pmix_lookup_cbfunc_t cbfunc, void *cbdata);
/* keys is a NULL-terminated array; NULL removes everything the caller
 * published. */
PMIX_EXPORT pmix_status_t PMIx_Unpublish(char **keys, const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Unpublish_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Process management: abort, spawn, connect and disconnect ---- */

PMIX_EXPORT pmix_status_t PMIx_Abort(int status, const char msg[], pmix_proc_t procs[],
                                     size_t nprocs);
/* On success nspace receives the namespace of the new job. */
PMIX_EXPORT pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
                                     const pmix_app_t apps[], size_t napps, pmix_nspace_t nspace);
PMIX_EXPORT pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo,
                                        const pmix_app_t apps[], size_t napps,
                                        pmix_spawn_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs,
                                             const pmix_info_t info[], size_t ninfo,
                                             pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Resolution: map between nodes and the processes placed on them ---- */

/* *procs is allocated for the caller (release with PMIX_PROC_FREE). */
PMIX_EXPORT pmix_status_t PMIx_Resolve_peers(const char *nodename, const pmix_nspace_t nspace,
                                             pmix_proc_t **procs, size_t *nprocs);
/* *nodelist is a malloc'd comma-separated list; the caller free()s it. */
PMIX_EXPORT pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char **nodelist);

/* ---- Queries: ask the library or the host environment for information ---- */

PMIX_EXPORT pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries,
                                          pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
                                             pmix_info_cbfunc_t cbfunc, void *cbdata);

/* ---- Logging: hand data to the host environment's logging channels ---- */

PMIX_EXPORT pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata,
                                   const pmix_info_t directives[], size_t ndirs);
PMIX_EXPORT pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
                                      const pmix_info_t directives[], size_t ndirs,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Job management: allocations, job control and process monitoring ---- */

PMIX_EXPORT pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t directive,
                                                  pmix_info_t *info, size_t ninfo,
                                                  pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t directive,
                                                     pmix_info_t *info, size_t ninfo,
                                                     pmix_info_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
                                           const pmix_info_t directives[], size_t ndirs,
                                           pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor, pmix_status_t error,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor, pmix_status_t error,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Send one heartbeat to a monitor previously armed with PMIX_MONITOR_HEARTBEAT.
 * Fire-and-forget: no completion is reported. */
#define PMIx_Heartbeat()                                                                           \
    do {                                                                                           \
        pmix_info_t _pmix_hb_info;                                                                 \
        PMIX_INFO_CONSTRUCT(&_pmix_hb_info);                                                       \
        PMIX_INFO_LOAD(&_pmix_hb_info, PMIX_SEND_HEARTBEAT, NULL, PMIX_POINTER);                   \
        PMIx_Process_monitor_nb(&_pmix_hb_info, PMIX_SUCCESS, NULL, 0, NULL, NULL);                \
        PMIX_INFO_DESTRUCT(&_pmix_hb_info);                                                        \
    } while (0)

/* ---- Security: obtain and validate credentials ---- */

/* On success credential->bytes is malloc'd and owned by the caller. */
PMIX_EXPORT pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t ninfo,
                                              pmix_byte_object_t *credential);
PMIX_EXPORT pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[], size_t ninfo,
                                                 pmix_credential_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t *cred,
                                                   const pmix_info_t info[], size_t ninfo,
                                                   pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t *cred,
                                                      const pmix_info_t info[], size_t ninfo,
                                                      pmix_validation_cbfunc_t cbfunc,
                                                      void *cbdata);

/* ---- Process groups: build, grow, join, leave and dissolve groups ---- */

PMIX_EXPORT pmix_status_t PMIx_Group_construct(const char grp[], const pmix_proc_t procs[],
                                               size_t nprocs, const pmix_info_t directives[],
                                               size_t ndirs, pmix_info_t **results,
                                               size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Group_construct_nb(const char grp[], const pmix_proc_t procs[],
                                                  size_t nprocs, const pmix_info_t directives[],
                                                  size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                                  void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t procs[],
                                            size_t nprocs, const pmix_info_t directives[],
                                            size_t ndirs, pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Group_invite_nb(const char grp[], const pmix_proc_t procs[],
                                               size_t nprocs, const pmix_info_t directives[],
                                               size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                               void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t *leader,
                                          pmix_group_opt_t opt, const pmix_info_t directives[],
                                          size_t ndirs, pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Group_join_nb(const char grp[], const pmix_proc_t *leader,
                                             pmix_group_opt_t opt, const pmix_info_t directives[],
                                             size_t ndirs, pmix_info_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t directives[],
                                           size_t ndirs);
PMIX_EXPORT pmix_status_t PMIx_Group_leave_nb(const char grp[], const pmix_info_t directives[],
                                              size_t ndirs, pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t directives[],
                                              size_t ndirs);
PMIX_EXPORT pmix_status_t PMIx_Group_destruct_nb(const char grp[], const pmix_info_t directives[],
                                                 size_t ndirs, pmix_op_cbfunc_t cbfunc,
                                                 void *cbdata);

/* ---- Events: register handlers for, and raise, asynchronous events ---- */

/* codes == NULL registers a default handler for every event.  The handler
 * reference is delivered to cbfunc; if cbfunc is NULL the call blocks and
 * a non-negative return value is the reference itself. */
PMIX_EXPORT pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_notification_fn_t evhdlr,
                                                      pmix_hdlr_reg_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref, pmix_op_cbfunc_t cbfunc,
                                                        void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t *source,
                                            pmix_data_range_t range, const pmix_info_t info[],
                                            size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ---- Fabric: access the cost/connectivity description of the network ---- */

PMIX_EXPORT pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric,
                                               const pmix_info_t directives[], size_t ndirs);
PMIX_EXPORT pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric);
PMIX_EXPORT pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric, pmix_op_cbfunc_t cbfunc,
                                                void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric);
PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric, pmix_op_cbfunc_t cbfunc,
                                                    void *cbdata);

/* ---- Topology and locality: hardware topology, cpusets, device distances ---- */

PMIX_EXPORT pmix_status_t PMIx_Load_topology(pmix_topology_t *topo);
/* *distances is allocated for the caller (release with PMIX_DEVICE_DIST_FREE). */
PMIX_EXPORT pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
                                                 pmix_info_t info[], size_t ninfo,
                                                 pmix_device_distance_t *distances[],
                                                 size_t *ndist);
PMIX_EXPORT pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo, pmix_cpuset_t *cpuset,
                                                    pmix_info_t info[], size_t ninfo,
                                                    pmix_device_dist_cbfunc_t cbfunc, void *cbdata);
PMIX_EXPORT pmix_status_t PMIx_Get_relative_locality(const char *locality1, const char *locality2,
                                                     pmix_locality_t *locality);
PMIX_EXPORT pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string,
                                                   pmix_cpuset_t *cpuset);
PMIX_EXPORT pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset, pmix_bind_envelope_t ref);
/* PMIx_Topology_destruct() and PMIx_Cpuset_destruct(), which release what
 * a topology or cpuset holds, are declared in <pmix_common.h>. */

/* ---- Printable names for constants (static strings, never freed) ---- */

PMIX_EXPORT const char *PMIx_Error_string(pmix_status_t status);
PMIX_EXPORT const char *PMIx_Proc_state_string(pmix_proc_state_t state);
PMIX_EXPORT const char *PMIx_Job_state_string(pmix_job_state_t state);
PMIX_EXPORT const char *PMIx_Scope_string(pmix_scope_t scope);
PMIX_EXPORT const char *PMIx_Persistence_string(pmix_persistence_t persist);
PMIX_EXPORT const char *PMIx_Data_range_string(pmix_data_range_t range);
PMIX_EXPORT const char *PMIx_Data_type_string(pmix_data_type_t type);
PMIX_EXPORT const char *PMIx_Alloc_directive_string(pmix_alloc_directive_t directive);
PMIX_EXPORT const char *PMIx_IOF_channel_string(pmix_iof_channel_t channel);
PMIX_EXPORT const char *PMIx_Link_state_string(pmix_link_state_t state);
PMIX_EXPORT const char *PMIx_Device_type_string(pmix_device_type_t type);
PMIX_EXPORT const char *PMIx_Value_comparison_string(pmix_value_cmp_t cmp);
/* Map an attribute's macro name ("PMIX_JOBID") to its key string
 * ("pmix.jobid"), and back. */
PMIX_EXPORT const char *PMIx_Get_attribute_string(const char *attribute);
PMIX_EXPORT const char *PMIx_Get_attribute_name(const char *attrstring);

/* ---- Printable renderings of data (malloc'd strings, caller free()s) ---- */

PMIX_EXPORT char *PMIx_Info_directives_string(pmix_info_directives_t directives);
PMIX_EXPORT char *PMIx_Info_string(const pmix_info_t *info);
PMIX_EXPORT char *PMIx_Value_string(const pmix_value_t *value);

/* ---- Data buffers: typed serialization of PMIx data ---- */

/* target/source name the peer the data is for/from, so the matching wire
 * encoding is used; NULL means "a peer using this library's encoding". */
PMIX_EXPORT pmix_status_t PMIx_Data_pack(const pmix_proc_t *target, pmix_data_buffer_t *buffer,
                                         void *src, int32_t num_vals, pmix_data_type_t type);
/* On entry *max_num_values is the room in dest; on return, how many
 * values were unpacked. */
PMIX_EXPORT pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source, pmix_data_buffer_t *buffer,
                                           void *dest, int32_t *max_num_values,
                                           pmix_data_type_t type);
/* *dest is allocated for the caller. */
PMIX_EXPORT pmix_status_t PMIx_Data_copy(void **dest, void *src, pmix_data_type_t type);
/* *output is malloc'd for the caller. */
PMIX_EXPORT pmix_status_t PMIx_Data_print(char **output, char *prefix, void *src,
                                          pmix_data_type_t type);
/* Append the not-yet-unpacked part of src to dest; src is unchanged. */
PMIX_EXPORT pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest, pmix_data_buffer_t *src);
/* PMIx_Data_unload() and PMIx_Data_load() are declared in <pmix_common.h>.
 * Unload moves the unread payload out of the buffer into a byte object,
 * which then owns the bytes, and leaves the buffer empty; load gives a
 * byte object's bytes to the buffer, replacing its contents, and clears
 * the byte object.  Embed is load without the hand-over: the bytes are
 * copied and payload is left untouched. */
PMIX_EXPORT pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer,
                                          const pmix_byte_object_t *payload);
/* Return true if outbytes and nbytes now describe a malloc'd, compressed
 * (decompressed) copy of the input; false if nothing was produced. */
PMIX_EXPORT bool PMIx_Data_compress(const uint8_t *inbytes, size_t size, uint8_t **outbytes,
                                    size_t *nbytes);
PMIX_EXPORT bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size, uint8_t **outbytes,
                                      size_t *nbytes);

/* ---- Value and info helpers, info lists ----
 * These are declared in <pmix_common.h>, whose PMIX_VALUE_* and PMIX_INFO_*
 * macros call them; they are not repeated here, so that compiling with
 * -Wredundant-decls stays quiet.
 *   PMIx_Value_load/_xfer, PMIx_Info_load/_xfer   copy the data in.
 *   PMIx_Value_unload       *data is a malloc'd copy owned by the caller.
 *   PMIx_Value_destruct     releases what the value holds, not the value.
 *   PMIx_Value_compare      compares two values.
 *   PMIx_Data_array_destruct  releases the elements and the array, not
 *                           the pmix_data_array_t itself.
 *   PMIx_Info_list_start    returns the opaque handle the other
 *                           PMIx_Info_list_* calls take.
 *   PMIx_Info_list_add/_xfer  append a copy.
 *   PMIx_Info_list_insert   appends without copying: the entry shares
 *                           whatever info's value points to, which stays
 *                           the caller's and must outlive the list.
 *   PMIx_Info_list_convert  copies the entries into a new pmix_info_t
 *                           array in *par; the list must still be released.
 *   PMIx_Info_list_release  frees the list and its entries. */

#ifdef __cplusplus
}
#endif

#endif /* PMIx_H */
