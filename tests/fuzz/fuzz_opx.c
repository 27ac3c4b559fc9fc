/*
 * libFuzzer target: the OpenPMIx codec (wire_codec_opx.c) and its v41
 * encoding (opx_bfrops.h) on arbitrary bytes, both directions.
 *
 * The first byte selects what the rest is read as:
 *   0..13  a request body after its command, of COMMIT, FENCE, DMODEX
 *          (GETNB), ABORT, FINALIZE, PUBLISH, LOOKUP, UNPUBLISH,
 *          REGEVENTS, NOTIFY, SPAWN, QUERY, LOG, JOB_CONTROL, through the
 *          codec as the server reads it; then the reply is packed (DMODEX,
 *          LOOKUP and QUERY with values taken from the request's infos)
 *   14     a request's head (the command)
 *   15..126  one pack call of a data type (selector - 15 indexes the list
 *          below), then the elements packed again and unpacked a second
 *          time: the two must agree in size
 *   127    a COMPUTE_DEVICE_DISTANCES request body (topology as hwloc
 *          XML, cpuset list, directives), read as the server reads it
 *   128..  a request body of CONNECT, DISCONNECT, ALLOC, MONITOR,
 *          GET_CRED, VALIDATE_CRED, IOF_PUSH, GROUP_CONSTRUCT,
 *          GROUP_DESTRUCT, GROUP_LEAVE, FABRIC, IOF_PULL or IOF_DEREG
 *          (selector - 128), read as above; then its reply packed, empty
 *          (IOF_PULL: with output forwarded under its id, the directives
 *          as the output's infos)
 * Nothing may crash, leak, hang or read out of bounds.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/opx_bfrops.h"
#include "common/wire.h"
#include "common/wire_codec.h"
#include "server/server_opx.h"

static const sy_wire_msg_id_t requests[] = {
    SY_WMSG_COMMIT_REQ,       SY_WMSG_FENCE_REQ,      SY_WMSG_DMODEX_REQ,
    SY_WMSG_ABORT_REQ,        SY_WMSG_FINALIZE_REQ,   SY_WMSG_PUBLISH_REQ,
    SY_WMSG_LOOKUP_REQ,       SY_WMSG_UNPUBLISH_REQ,  SY_WMSG_EVENT_REGISTER_REQ,
    SY_WMSG_EVENT_NOTIFY_REQ, SY_WMSG_SPAWN_REQ,      SY_WMSG_QUERY_REQ,
    SY_WMSG_LOG_REQ,          SY_WMSG_JOB_CONTROL_REQ};
static const sy_wire_msg_id_t replies[] = {
    SY_WMSG_COMMIT_REP,       SY_WMSG_FENCE_REP,      SY_WMSG_DMODEX_REP,
    SY_WMSG_ABORT_REP,        SY_WMSG_FINALIZE_REP,   SY_WMSG_PUBLISH_REP,
    SY_WMSG_LOOKUP_REP,       SY_WMSG_UNPUBLISH_REP,  SY_WMSG_EVENT_REGISTER_REP,
    SY_WMSG_EVENT_NOTIFY_REP, SY_WMSG_SPAWN_REP,      SY_WMSG_QUERY_REP,
    SY_WMSG_LOG_REP,          SY_WMSG_JOB_CONTROL_REP};

/* the commands served later, on selectors of their own (the seeds of
 * the ones above keep their meaning) */
static const sy_wire_msg_id_t later[] = {
    SY_WMSG_CONNECT_REQ,     SY_WMSG_DISCONNECT_REQ,      SY_WMSG_ALLOC_REQ,
    SY_WMSG_MONITOR_REQ,     SY_WMSG_GET_CRED_REQ,        SY_WMSG_VALIDATE_CRED_REQ,
    SY_WMSG_IOF_PUSH_REQ,    SY_WMSG_GROUP_CONSTRUCT_REQ, SY_WMSG_GROUP_DESTRUCT_REQ,
    SY_WMSG_GROUP_LEAVE_REQ, SY_WMSG_FABRIC_REQ,          SY_WMSG_IOF_PULL_REQ,
    SY_WMSG_IOF_DEREG_REQ};

static const pmix_data_type_t types[] = {
    PMIX_BOOL,       PMIX_BYTE,        PMIX_STRING,      PMIX_SIZE,
    PMIX_PID,        PMIX_INT,         PMIX_INT16,       PMIX_INT32,
    PMIX_INT64,      PMIX_UINT16,      PMIX_UINT32,      PMIX_UINT64,
    PMIX_FLOAT,      PMIX_DOUBLE,      PMIX_TIMEVAL,     PMIX_TIME,
    PMIX_STATUS,     PMIX_VALUE,       PMIX_PROC,        PMIX_APP,
    PMIX_INFO,       PMIX_PDATA,       PMIX_BYTE_OBJECT, PMIX_QUERY,
    PMIX_DATA_ARRAY, PMIX_PROC_INFO,   PMIX_REGEX,       PMIX_ENVAR,
    PMIX_COORD,      PMIX_REGATTR,     PMIX_GEOMETRY,    PMIX_DEVICE_DIST,
    PMIX_ENDPOINT,   PMIX_PROC_NSPACE, PMIX_DATA_BUFFER, PMIX_COMPRESSED_STRING,
};

static void load(pmix_data_buffer_t *b, const uint8_t *data, size_t size)
{
    memset(b, 0, sizeof(*b));
    if (size > 0)
        (void)sy_buffer_set_copy(b, data, size);
}

static void request(size_t i, const uint8_t *data, size_t size)
{
    pmix_data_buffer_t b;
    load(&b, data, size);
    union {
        sy_wire_commit_req_t commit;
        sy_wire_fence_req_t fence;
        sy_wire_dmodex_req_t dmodex;
        sy_wire_abort_req_t abort;
        sy_wire_publish_req_t publish;
        sy_wire_lookup_req_t lookup;
        sy_wire_unpublish_req_t unpublish;
        sy_wire_event_register_req_t reg;
        sy_wire_event_notify_req_t notify;
        sy_wire_spawn_req_t spawn;
        sy_wire_query_req_t query;
        sy_wire_log_req_t log;
        sy_wire_job_control_req_t control;
    } m;
    if (sy_wire_unpack(&sy_wire_openpmix, &b, requests[i], &m) == PMIX_SUCCESS) {
        pmix_data_buffer_t out = {0};
        if (requests[i] == SY_WMSG_DMODEX_REQ) {
            sy_wire_dmodex_rep_t rep = {.owner = m.dmodex.proc, .key = m.dmodex.key};
            if (m.dmodex.ninfo > 0)
                rep.value = m.dmodex.info[0].value; /* lent */
            (void)sy_wire_pack(&sy_wire_openpmix, &out, SY_WMSG_DMODEX_REP, &rep);
        } else if (requests[i] == SY_WMSG_LOOKUP_REQ) {
            /* answer with the keys found, the values taken from the infos */
            sy_wire_pdata_t pd[4];
            size_t n = 0;
            memset(pd, 0, sizeof(pd));
            for (; n < m.lookup.nkeys && n < m.lookup.ninfo && n < 4; n++) {
                pd[n].key = m.lookup.keys[n];
                pd[n].value = m.lookup.info[n].value; /* lent */
            }
            sy_wire_lookup_rep_t rep = {.data = pd, .ndata = n};
            (void)sy_wire_pack(&sy_wire_openpmix, &out, SY_WMSG_LOOKUP_REP, &rep);
        } else if (requests[i] == SY_WMSG_QUERY_REQ && m.query.nqueries > 0) {
            /* answer with the first query's qualifiers */
            sy_wire_query_rep_t rep = {.results = m.query.queries[0].qualifiers,
                                       .nresults = m.query.queries[0].nqualifiers};
            (void)sy_wire_pack(&sy_wire_openpmix, &out, SY_WMSG_QUERY_REP, &rep);
        } else {
            /* any reply struct, empty */
            union {
                sy_wire_fence_rep_t fence;
                sy_wire_spawn_rep_t spawn;
                sy_wire_query_rep_t query;
                sy_wire_job_control_rep_t control;
            } empty;
            memset(&empty, 0, sizeof(empty));
            (void)sy_wire_pack(&sy_wire_openpmix, &out, replies[i], &empty);
        }
        (void)sy_wire_pack_head(&sy_wire_openpmix, &out, SY_WIRE_REPLY, PMIX_ERR_NOT_FOUND);
        sy_buffer_destruct(&out);
        sy_wire_free(requests[i], &m);
    }
    sy_buffer_destruct(&b);
}

static void later_request(sy_wire_msg_id_t id, const uint8_t *data, size_t size)
{
    pmix_data_buffer_t b;
    load(&b, data, size);
    union {
        sy_wire_connect_req_t connect;
        sy_wire_alloc_req_t alloc;
        sy_wire_monitor_req_t monitor;
        sy_wire_get_cred_req_t get_cred;
        sy_wire_validate_cred_req_t validate;
        sy_wire_iof_push_req_t push;
        sy_wire_group_construct_req_t construct;
        sy_wire_group_destruct_req_t destruct;
        sy_wire_fabric_req_t fabric;
        sy_wire_iof_pull_req_t pull;
        sy_wire_iof_dereg_req_t dereg;
    } m;
    if (sy_wire_unpack(&sy_wire_openpmix, &b, id, &m) == PMIX_SUCCESS) {
        union {
            sy_wire_connect_rep_t connect;
            sy_wire_alloc_rep_t alloc;
            sy_wire_get_cred_rep_t get_cred;
            sy_wire_group_construct_rep_t construct;
            sy_wire_fabric_rep_t fabric;
        } empty;
        memset(&empty, 0, sizeof(empty));
        pmix_data_buffer_t out = {0};
        if (id == SY_WMSG_FABRIC_REQ) { /* the directives as the answer */
            empty.fabric.info = m.fabric.directives;
            empty.fabric.ninfo = m.fabric.ndirectives;
        }
        (void)sy_wire_pack(&sy_wire_openpmix, &out, sy_wire_reply_of(id), &empty);
        if (id == SY_WMSG_IOF_PULL_REQ && m.pull.nprocs > 0) {
            sy_wire_iof_msg_t iof = {.source = m.pull.procs[0],
                                     .channel = m.pull.channels,
                                     .data = {.bytes = (char *)"x", .size = 1},
                                     .info = m.pull.directives,
                                     .ninfo = m.pull.ndirectives};
            pmix_data_buffer_t fwd; /* initialised by the call */
            if (sy_wire_pack_message(&sy_wire_openpmix, &fwd, SY_WMSG_IOF_MSG, &iof) ==
                PMIX_SUCCESS)
                sy_buffer_destruct(&fwd);
        }
        sy_buffer_destruct(&out);
        sy_wire_free(id, &m);
    }
    sy_buffer_destruct(&b);
}

static void typed(pmix_data_type_t type, const uint8_t *data, size_t size)
{
    pmix_data_buffer_t b;
    load(&b, data, size);
    void *arr = NULL;
    size_t n = 0;
    if (sy_opx_unpack_alloc(&b, type, &arr, &n) == PMIX_SUCCESS && n <= INT32_MAX) {
        pmix_data_buffer_t again = {0};
        if (sy_opx_pack(&again, arr, (int32_t)n, type) == PMIX_SUCCESS) {
            void *arr2 = NULL;
            size_t n2 = 0;
            if (sy_opx_unpack_alloc(&again, type, &arr2, &n2) != PMIX_SUCCESS || n2 != n)
                abort(); /* what we pack we must read back */
            sy_array_free(arr2, n2, type);
        }
        sy_buffer_destruct(&again);
    }
    if (arr != NULL)
        sy_array_free(arr, n, type);
    sy_buffer_destruct(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    data++;
    size--;
    size_t nreq = sizeof(requests) / sizeof(requests[0]);
    if (sel < nreq) {
        request(sel, data, size);
    } else if (sel == nreq) {
        pmix_data_buffer_t b;
        int32_t cmd;
        load(&b, data, size);
        (void)sy_wire_unpack_head(&sy_wire_openpmix, &b, SY_WIRE_REQUEST, &cmd);
        sy_buffer_destruct(&b);
    } else if (sel == 127) {
        /* COMPUTE_DEVICE_DISTANCES (command 32): hwloc XML, cpuset list,
         * directives, read as the server reads them */
        pmix_data_buffer_t b;
        sy_srv_opx_dist_req_t req;
        load(&b, data, size);
        if (sy_srv_opx_dist_unpack(&b, &req) == PMIX_SUCCESS)
            sy_srv_opx_dist_req_free(&req);
        sy_buffer_destruct(&b);
    } else if (sel >= 128) {
        later_request(later[(sel - 128) % (sizeof(later) / sizeof(later[0]))], data, size);
    } else {
        typed(types[(sel - nreq - 1) % (sizeof(types) / sizeof(types[0]))], data, size);
    }
    return 0;
}
