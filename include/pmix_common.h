/*
 * Switchyard -- types shared by every PMIx role (client, server, tool).
 *
 * Written from the PMIx Standard v5.0.  Layouts and numeric values are
 * those of OpenPMIx 4.2.2, because programs compiled against it (Open MPI,
 * Slurm, python3-pmix) pass these structures across the library boundary
 * by address; tests/abi checks every size and offset.
 *
 * Memory rule: everything the library hands out, and everything callers
 * hand in for the library to release, is plain libc malloc/calloc/free.
 */
#ifndef PMIx_COMMON_H
#define PMIx_COMMON_H

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef PMIX_EXPORT
#define PMIX_EXPORT __attribute__((__visibility__("default")))
#endif

#include <pmix_version.h>
#include <pmix_constants.h>
#include <pmix_attributes.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- scalar types ------------------------------------------------------ */

typedef char pmix_nspace_t[PMIX_MAX_NSLEN + 1];
typedef char pmix_key_t[PMIX_MAX_KEYLEN + 1];

typedef uint32_t pmix_rank_t;
typedef int pmix_status_t;
typedef uint16_t pmix_data_type_t;
typedef uint32_t pmix_info_directives_t;
typedef uint8_t pmix_scope_t;
typedef uint8_t pmix_data_range_t;
typedef uint8_t pmix_persistence_t;
typedef uint8_t pmix_alloc_directive_t;
typedef uint16_t pmix_iof_channel_t;
typedef uint8_t pmix_proc_state_t;
typedef uint8_t pmix_job_state_t;
typedef uint8_t pmix_link_state_t;
typedef uint8_t pmix_coord_view_t;
typedef uint16_t pmix_locality_t;
typedef uint64_t pmix_device_type_t;
typedef uint8_t pmix_bind_envelope_t;
typedef uint64_t pmix_storage_medium_t;
typedef uint64_t pmix_storage_accessibility_t;
typedef uint64_t pmix_storage_persistence_t;
typedef uint16_t pmix_storage_access_type_t;

/* Result of PMIx_Value_compare. */
typedef enum {
    PMIX_EQUAL,
    PMIX_VALUE1_GREATER,
    PMIX_VALUE2_GREATER,
    PMIX_VALUE_TYPE_DIFFERENT,
    PMIX_VALUE_INCOMPATIBLE_OBJECTS,
    PMIX_VALUE_COMPARISON_NOT_AVAIL
} pmix_value_cmp_t;

/* Answers to a group invitation, and the group operations. */
typedef enum { PMIX_GROUP_DECLINE, PMIX_GROUP_ACCEPT } pmix_group_opt_t;
typedef enum { PMIX_GROUP_CONSTRUCT, PMIX_GROUP_DESTRUCT } pmix_group_operation_t;

/* How a value reads as a boolean (PMIX_CHECK_TRUE / PMIX_CHECK_BOOL). */
typedef enum { PMIX_BOOL_TRUE, PMIX_BOOL_FALSE, PMIX_NON_BOOL } pmix_boolean_t;

/* What a host's fabric upcall is asked to do. */
typedef enum { PMIX_FABRIC_REQUEST_INFO, PMIX_FABRIC_UPDATE_INFO } pmix_fabric_operation_t;

/* ---- structures -------------------------------------------------------- */

typedef struct pmix_proc {
    pmix_nspace_t nspace;
    pmix_rank_t rank;
} pmix_proc_t;

typedef struct pmix_proc_info {
    pmix_proc_t proc;
    char *hostname;
    char *executable_name;
    pid_t pid;
    int exit_code;
    pmix_proc_state_t state;
} pmix_proc_info_t;

typedef struct pmix_byte_object {
    char *bytes;
    size_t size;
} pmix_byte_object_t;

/* A typed array; `array` points at `size` elements of `type`. */
typedef struct pmix_data_array {
    pmix_data_type_t type;
    size_t size;
    void *array;
} pmix_data_array_t;

typedef struct {
    char *envar;
    char *value;
    char separator;
} pmix_envar_t;

typedef struct pmix_coord {
    pmix_coord_view_t view;
    uint32_t *coord;
    size_t dims;
} pmix_coord_t;

/* `source` names the library that made `bitmap` (hwloc). */
typedef struct {
    char *source;
    void *bitmap;
} pmix_cpuset_t;

typedef struct {
    char *source;
    void *topology;
} pmix_topology_t;

typedef struct pmix_geometry {
    size_t fabric;
    char *uuid;
    char *osname;
    pmix_coord_t *coordinates;
    size_t ncoords;
} pmix_geometry_t;

typedef struct pmix_device_distance {
    char *uuid;
    char *osname;
    pmix_device_type_t type;
    uint16_t mindist;
    uint16_t maxdist;
} pmix_device_distance_t;

typedef struct pmix_endpoint {
    char *uuid;
    char *osname;
    pmix_byte_object_t endpt;
} pmix_endpoint_t;

/* A packing buffer; its fields are private to the library. */
typedef struct pmix_data_buffer {
    char *base_ptr;
    char *pack_ptr;
    char *unpack_ptr;
    size_t bytes_allocated;
    size_t bytes_used;
} pmix_data_buffer_t;

/* Resource statistics (values in MBytes where sizes). */
typedef struct pmix_proc_stats {
    char *node;
    pmix_proc_t proc;
    pid_t pid;
    char *cmd;
    char state;
    struct timeval time;
    float percent_cpu;
    int32_t priority;
    uint16_t num_threads;
    float pss;
    float vsize;
    float rss;
    float peak_vsize;
    uint16_t processor;
    struct timeval sample_time;
} pmix_proc_stats_t;

typedef struct {
    char *disk;
    uint64_t num_reads_completed;
    uint64_t num_reads_merged;
    uint64_t num_sectors_read;
    uint64_t milliseconds_reading;
    uint64_t num_writes_completed;
    uint64_t num_writes_merged;
    uint64_t num_sectors_written;
    uint64_t milliseconds_writing;
    uint64_t num_ios_in_progress;
    uint64_t milliseconds_io;
    uint64_t weighted_milliseconds_io;
} pmix_disk_stats_t;

typedef struct {
    char *net_interface;
    uint64_t num_bytes_recvd;
    uint64_t num_packets_recvd;
    uint64_t num_recv_errs;
    uint64_t num_bytes_sent;
    uint64_t num_packets_sent;
    uint64_t num_send_errs;
} pmix_net_stats_t;

typedef struct {
    char *node;
    float la;
    float la5;
    float la15;
    float total_mem;
    float free_mem;
    float buffers;
    float cached;
    float swap_cached;
    float swap_total;
    float swap_free;
    float mapped;
    struct timeval sample_time;
    pmix_disk_stats_t *diskstats;
    size_t ndiskstats;
    pmix_net_stats_t *netstats;
    size_t nnetstats;
} pmix_node_stats_t;

/*
 * A typed value.  Which union member is live is given by `type`; pointer
 * members own their payload (released by PMIx_Value_destruct), except
 * `ptr` (PMIX_POINTER), which is never freed by the library.
 */
typedef struct pmix_value {
    pmix_data_type_t type;
    union {
        bool flag;
        uint8_t byte;
        char *string;
        size_t size;
        pid_t pid;
        int integer;
        int8_t int8;
        int16_t int16;
        int32_t int32;
        int64_t int64;
        unsigned int uint;
        uint8_t uint8;
        uint16_t uint16;
        uint32_t uint32;
        uint64_t uint64;
        float fval;
        double dval;
        struct timeval tv;
        time_t time;
        pmix_status_t status;
        pmix_rank_t rank;
        pmix_nspace_t *nspace;
        pmix_proc_t *proc;
        pmix_byte_object_t bo;
        pmix_persistence_t persist;
        pmix_scope_t scope;
        pmix_data_range_t range;
        pmix_proc_state_t state;
        pmix_proc_info_t *pinfo;
        pmix_data_array_t *darray;
        void *ptr;
        pmix_alloc_directive_t adir;
        pmix_envar_t envar;
        pmix_coord_t *coord;
        pmix_link_state_t linkstate;
        pmix_job_state_t jstate;
        pmix_topology_t *topo;
        pmix_cpuset_t *cpuset;
        pmix_locality_t locality;
        pmix_geometry_t *geometry;
        pmix_device_type_t devtype;
        pmix_device_distance_t *devdist;
        pmix_endpoint_t *endpoint;
        pmix_data_buffer_t *dbuf;
        pmix_proc_stats_t *pstats;
        pmix_disk_stats_t *dkstats;
        pmix_net_stats_t *netstats;
        pmix_node_stats_t *ndstats;
    } data;
} pmix_value_t;

/* A key/value pair with directives (PMIX_INFO_REQD, ...) in `flags`. */
typedef struct pmix_info {
    pmix_key_t key;
    pmix_info_directives_t flags;
    pmix_value_t value;
} pmix_info_t;

/* Published data: who published it, under which key, and the value. */
typedef struct pmix_pdata {
    pmix_proc_t proc;
    pmix_key_t key;
    pmix_value_t value;
} pmix_pdata_t;

/* One application context of a spawn request. */
typedef struct pmix_app {
    char *cmd;
    char **argv;
    char **env;
    char *cwd;
    int maxprocs;
    pmix_info_t *info;
    size_t ninfo;
} pmix_app_t;

typedef struct pmix_query {
    char **keys;
    pmix_info_t *qualifiers;
    size_t nqual;
} pmix_query_t;

/* An attribute a host or library declares it supports. */
typedef struct pmix_regattr_t {
    char *name;
    pmix_key_t string;
    pmix_data_type_t type;
    char **description;
} pmix_regattr_t;

/* A registered fabric; `module` is private to the library. */
typedef struct pmix_fabric_s {
    char *name;
    size_t index;
    pmix_info_t *info;
    size_t ninfo;
    void *module;
} pmix_fabric_t;

/* ---- callbacks used by more than one role ------------------------------ */

typedef void (*pmix_release_cbfunc_t)(void *cbdata);

/* Delivers modex data; the receiver copies it, then calls release_fn. */
typedef void (*pmix_modex_cbfunc_t)(pmix_status_t status, const char *data, size_t ndata,
                                    void *cbdata, pmix_release_cbfunc_t release_fn,
                                    void *release_cbdata);

typedef void (*pmix_spawn_cbfunc_t)(pmix_status_t status, pmix_nspace_t nspace, void *cbdata);

typedef void (*pmix_op_cbfunc_t)(pmix_status_t status, void *cbdata);

typedef void (*pmix_lookup_cbfunc_t)(pmix_status_t status, pmix_pdata_t data[], size_t ndata,
                                     void *cbdata);

/* An event handler reports its outcome (and results for the next handler). */
typedef void (*pmix_event_notification_cbfunc_fn_t)(pmix_status_t status, pmix_info_t *results,
                                                    size_t nresults, pmix_op_cbfunc_t cbfunc,
                                                    void *thiscbdata, void *notification_cbdata);

typedef void (*pmix_notification_fn_t)(size_t evhdlr_registration_id, pmix_status_t status,
                                       const pmix_proc_t *source, pmix_info_t info[], size_t ninfo,
                                       pmix_info_t *results, size_t nresults,
                                       pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata);

typedef void (*pmix_hdlr_reg_cbfunc_t)(pmix_status_t status, size_t refid, void *cbdata);
/* Older name of the same callback, still used by existing programs. */
typedef void (*pmix_evhdlr_reg_cbfunc_t)(pmix_status_t status, size_t refid, void *cbdata);

typedef void (*pmix_value_cbfunc_t)(pmix_status_t status, pmix_value_t *kv, void *cbdata);

/* Delivers an info array the library still owns until release_fn is called. */
typedef void (*pmix_info_cbfunc_t)(pmix_status_t status, pmix_info_t *info, size_t ninfo,
                                   void *cbdata, pmix_release_cbfunc_t release_fn,
                                   void *release_cbdata);

typedef void (*pmix_credential_cbfunc_t)(pmix_status_t status, pmix_byte_object_t *credential,
                                         pmix_info_t info[], size_t ninfo, void *cbdata);

typedef void (*pmix_validation_cbfunc_t)(pmix_status_t status, pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

typedef void (*pmix_device_dist_cbfunc_t)(pmix_status_t status, pmix_device_distance_t *dist,
                                          size_t ndist, void *cbdata,
                                          pmix_release_cbfunc_t release_fn, void *release_cbdata);

/* ---- data functions the header macros call ----------------------------- */

PMIX_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *val, const void *data,
                                          pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Value_unload(pmix_value_t *val, void **data, size_t *sz);
PMIX_EXPORT void PMIx_Value_destruct(pmix_value_t *val);
PMIX_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dest, const pmix_value_t *src);
PMIX_EXPORT pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1, pmix_value_t *v2);
PMIX_EXPORT void PMIx_Data_array_destruct(pmix_data_array_t *d);
PMIX_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info, const char *key, const void *data,
                                         pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dest, const pmix_info_t *src);
PMIX_EXPORT void *PMIx_Info_list_start(void);
PMIX_EXPORT pmix_status_t PMIx_Info_list_add(void *ptr, const char *key, const void *value,
                                             pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info);
PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer(void *ptr, const pmix_info_t *info);
PMIX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par);
PMIX_EXPORT void PMIx_Info_list_release(void *ptr);
PMIX_EXPORT void PMIx_Topology_destruct(pmix_topology_t *topo);
PMIX_EXPORT void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset);
PMIX_EXPORT pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload);
PMIX_EXPORT pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer, pmix_byte_object_t *payload);

/* Deprecated tool call; OpenPMIx makes it visible from every header. */
PMIX_EXPORT pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc, pmix_info_t info[],
                                                      size_t ninfo);

#ifdef __cplusplus
}
#endif

#include <pmix_macros.h>

#endif /* PMIx_COMMON_H */
