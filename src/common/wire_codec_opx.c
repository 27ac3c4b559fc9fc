/* The OpenPMIx codec (wire_codec.h): the messages of wire_msgs.txt laid
 * out as OpenPMIx 4.2.x peers write them (docs/wire-protocol.md, "OpenPMIx
 * protocol"), in its v41 encoding (opx_bfrops.h).  Each OpenPMIx command
 * has its own layout, so pack and unpack switch on the descriptor's code
 * and part instead of walking its fields.
 *
 * Served so far: what a client sends to its server (requests) and what the
 * server answers.  A command without a layout here is
 * PMIX_ERR_NOT_SUPPORTED; the server answers it with that status. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/opx_attrs.h"
#include "common/opx_bfrops.h"
#include "common/wire.h"
#include "common/wire_codec.h"

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        pmix_status_t rc_ = (expr);                                                                \
        if (rc_ != PMIX_SUCCESS) {                                                                 \
            return rc_;                                                                            \
        }                                                                                          \
    } while (0)

/* OpenPMIx's command codes (pmix_cmd_t) that map onto ours. */
static const struct {
    uint8_t opx;
    int32_t ours;
} cmd_map[] = {
    {1, SY_CMD_ABORT},         {2, SY_CMD_COMMIT},
    {3, SY_CMD_FENCE},         {4, SY_CMD_DMODEX},
    {5, SY_CMD_FINALIZE},      {6, SY_CMD_PUBLISH},
    {7, SY_CMD_LOOKUP},        {8, SY_CMD_UNPUBLISH},
    {12, SY_CMD_EVENT_NOTIFY}, {13, SY_CMD_EVENT_REGISTER},
    {9, SY_CMD_SPAWN},         {15, SY_CMD_QUERY},
    {16, SY_CMD_LOG},          {18, SY_CMD_JOB_CONTROL},
    {10, SY_CMD_CONNECT},      {11, SY_CMD_DISCONNECT},
    {17, SY_CMD_ALLOC},        {19, SY_CMD_MONITOR},
    {20, SY_CMD_GET_CRED},     {21, SY_CMD_VALIDATE_CRED},
    {23, SY_CMD_IOF_PUSH},     {24, SY_CMD_GROUP_CONSTRUCT},
    {27, SY_CMD_GROUP_LEAVE},  {28, SY_CMD_GROUP_DESTRUCT},
    {30, SY_CMD_FABRIC},       {31, SY_CMD_FABRIC},
    {22, SY_CMD_IOF_PULL},     {29, SY_CMD_IOF_DEREG},
};

int32_t sy_wire_opx_cmd_from(uint8_t opx)
{
    for (size_t i = 0; i < sizeof(cmd_map) / sizeof(cmd_map[0]); i++)
        if (cmd_map[i].opx == opx)
            return cmd_map[i].ours;
    return SY_WIRE_OPX_UNMAPPED + opx;
}

/* One pack call of one element. */
static pmix_status_t get_one(pmix_data_buffer_t *b, void *dst, pmix_data_type_t type)
{
    int32_t n = 1;
    TRY(sy_opx_unpack(b, dst, &n, type));
    return n == 1 ? PMIX_SUCCESS : PMIX_ERR_UNPACK_FAILURE;
}

/* A SIZE count, then (n > 0 only) one pack call of n elements. */
static pmix_status_t get_counted(pmix_data_buffer_t *b, pmix_data_type_t type, void **arr,
                                 size_t *n)
{
    size_t count, got;
    TRY(get_one(b, &count, PMIX_SIZE));
    if (count == 0)
        return PMIX_SUCCESS;
    TRY(sy_opx_unpack_alloc(b, type, arr, &got));
    *n = got;
    return got == count ? PMIX_SUCCESS : PMIX_ERR_UNPACK_FAILURE;
}

/* GET_COUNTED(b, type, field, count): get_counted into a typed field; what
 * was allocated is in the field even on failure, for the caller to free. */
#define GET_COUNTED(b, type, field, count)                                                         \
    do {                                                                                           \
        void *arr_ = NULL;                                                                         \
        pmix_status_t grc_ = get_counted((b), (type), &arr_, &(count));                            \
        (field) = arr_;                                                                            \
        TRY(grc_);                                                                                 \
    } while (0)

static pmix_status_t put_one(pmix_data_buffer_t *b, const void *src, pmix_data_type_t type)
{
    return sy_opx_pack(b, src, 1, type);
}

/* OpenPMIx sends a PMIX_GLOBAL put twice, in the LOCAL and in the REMOTE
 * section: one datum of ours, scope GLOBAL.  True when kv (just read, at
 * m->data[m->ndata]) was folded into an earlier one and released. */
static bool merged_scope(sy_wire_commit_req_t *m, sy_wire_kv_t *kv)
{
    for (size_t i = 0; i < m->ndata; i++) {
        sy_wire_kv_t *old = &m->data[i];
        if (old->key == NULL || kv->key == NULL || strcmp(old->key, kv->key) != 0)
            continue;
        if (old->scope != kv->scope)
            old->scope = PMIX_GLOBAL;
        free(kv->key);
        sy_value_destruct(&kv->value);
        memset(kv, 0, sizeof(*kv));
        return true;
    }
    return false;
}

/* COMMIT: {scope, buffer of KVAL pack calls} until the end. */
static pmix_status_t unpack_commit(pmix_data_buffer_t *b, sy_wire_commit_req_t *m)
{
    while (sy_buffer_remaining(b) > 0) {
        uint8_t scope;
        int64_t one;
        void *bytes;
        size_t nbytes;
        TRY(get_one(b, &scope, PMIX_SCOPE));
        TRY(sy_opx_get_int(b, 1, 1, &one)); /* a pack call of one PMIX_BUFFER */
        TRY(sy_opx_unpack_buffer(b, &bytes, &nbytes));
        pmix_data_buffer_t in = {0};
        if (nbytes > 0) {
            in.base_ptr = bytes;
            in.unpack_ptr = bytes;
            in.pack_ptr = (char *)bytes + nbytes;
            in.bytes_allocated = nbytes;
            in.bytes_used = nbytes;
        }
        pmix_status_t rc = PMIX_SUCCESS;
        while (rc == PMIX_SUCCESS && sy_buffer_remaining(&in) > 0) {
            int64_t count;
            rc = sy_opx_get_int(&in, 1, 1, &count);
            if (rc != PMIX_SUCCESS)
                break;
            sy_wire_kv_t *grown = realloc(m->data, (m->ndata + 1) * sizeof(*grown));
            if (grown == NULL) {
                rc = PMIX_ERR_NOMEM;
                break;
            }
            m->data = grown;
            sy_wire_kv_t *kv = &m->data[m->ndata];
            memset(kv, 0, sizeof(*kv));
            rc = sy_opx_unpack_kval(&in, &kv->key, &kv->value);
            if (rc != PMIX_SUCCESS)
                break;
            kv->scope = scope;
            if (!merged_scope(m, kv))
                m->ndata++;
        }
        sy_buffer_destruct(&in);
        TRY(rc);
    }
    return PMIX_SUCCESS;
}

/* Name-service requests: the requester's uid (ours comes from its
 * registration), then [SIZE n, n pack calls of one key,] SIZE ninfo, infos. */
static pmix_status_t unpack_keys_info(pmix_data_buffer_t *b, bool keys, char ***out, size_t *nkeys,
                                      pmix_info_t **info, size_t *ninfo)
{
    uint32_t uid;
    TRY(get_one(b, &uid, PMIX_UINT32));
    if (keys) {
        size_t n;
        TRY(get_one(b, &n, PMIX_SIZE));
        if (n > sy_buffer_remaining(b))
            return PMIX_ERR_UNPACK_FAILURE;
        if (n > 0) {
            *out = calloc(n + 1, sizeof(char *));
            if (*out == NULL)
                return PMIX_ERR_NOMEM;
            for (size_t i = 0; i < n; i++) {
                TRY(get_one(b, &(*out)[i], PMIX_STRING));
                *nkeys = i + 1;
                if ((*out)[i] == NULL)
                    return PMIX_ERR_UNPACK_FAILURE;
            }
        }
    }
    void *arr = NULL;
    pmix_status_t rc = get_counted(b, PMIX_INFO, &arr, ninfo);
    *info = arr;
    return rc;
}

/* QUERY: SIZE n, a pack call of n pmix_query_t, into our query records. */
static pmix_status_t unpack_query(pmix_data_buffer_t *b, sy_wire_query_req_t *m)
{
    void *arr = NULL;
    size_t n = 0;
    pmix_status_t rc = get_counted(b, PMIX_QUERY, &arr, &n);
    if (rc != PMIX_SUCCESS) {
        if (arr != NULL)
            sy_array_free(arr, n, PMIX_QUERY);
        return rc;
    }
    if (n == 0)
        return PMIX_SUCCESS;
    pmix_query_t *q = arr;
    m->queries = calloc(n, sizeof(*m->queries));
    if (m->queries == NULL) {
        sy_array_free(arr, n, PMIX_QUERY);
        return PMIX_ERR_NOMEM;
    }
    m->nqueries = n;
    for (size_t i = 0; i < n; i++) { /* the pointers move to our records */
        sy_wire_query_t *r = &m->queries[i];
        r->keys = q[i].keys;
        while (r->keys != NULL && r->keys[r->nkeys] != NULL)
            r->nkeys++;
        r->qualifiers = q[i].qualifiers;
        r->nqualifiers = q[i].nqual;
    }
    free(arr);
    return PMIX_SUCCESS;
}

/* Registration references for OpenPMIx peers, which name none: unique in
 * the process, as ours are per client. */
static size_t next_ref(void)
{
    static size_t ref = (size_t)1 << 62;
    return __atomic_add_fetch(&ref, 1, __ATOMIC_RELAXED);
}

/* FABRIC_REGISTER (30): SIZE ndirs, dirs.  FABRIC_UPDATE (31): SIZE the
 * fabric's index, which becomes our update's PMIX_FABRIC_INDEX.  Both map
 * to our FABRIC, so the command is read back from the byte before the body
 * (the head was a pack call of one COMMAND byte, in this same buffer). */
static pmix_status_t unpack_fabric(pmix_data_buffer_t *b, sy_wire_fabric_req_t *m)
{
    const uint8_t *at = (const uint8_t *)b->unpack_ptr;
    bool update = b->unpack_ptr != NULL && at > (const uint8_t *)b->base_ptr && at[-1] == 31;
    if (!update) {
        m->op = PMIX_FABRIC_REQUEST_INFO;
        GET_COUNTED(b, PMIX_INFO, m->directives, m->ndirectives);
        return PMIX_SUCCESS;
    }
    size_t index;
    TRY(get_one(b, &index, PMIX_SIZE));
    m->op = PMIX_FABRIC_UPDATE_INFO;
    m->directives = calloc(1, sizeof(*m->directives));
    if (m->directives == NULL)
        return PMIX_ERR_NOMEM;
    m->ndirectives = 1;
    PMIX_INFO_LOAD(&m->directives[0], PMIX_FABRIC_INDEX, &index, PMIX_SIZE);
    return PMIX_SUCCESS;
}

/* IOF_PULL: SIZE n, procs, SIZE ndirs, dirs, IOF_CHANNEL, SIZE the
 * client's id for the registration (a last directive, wire_codec.h). */
static pmix_status_t unpack_iof_pull(pmix_data_buffer_t *b, sy_wire_iof_pull_req_t *m)
{
    GET_COUNTED(b, PMIX_PROC, m->procs, m->nprocs);
    GET_COUNTED(b, PMIX_INFO, m->directives, m->ndirectives);
    size_t id;
    TRY(get_one(b, &m->channels, PMIX_IOF_CHANNEL));
    TRY(get_one(b, &id, PMIX_SIZE));
    pmix_info_t *grown = realloc(m->directives, (m->ndirectives + 1) * sizeof(*grown));
    if (grown == NULL)
        return PMIX_ERR_NOMEM;
    m->directives = grown;
    memset(&grown[m->ndirectives], 0, sizeof(*grown));
    PMIX_INFO_LOAD(&grown[m->ndirectives], SY_WIRE_OPX_IOF_ID, &id, PMIX_SIZE);
    m->ndirectives++;
    return PMIX_SUCCESS;
}

static pmix_status_t opx_unpack(pmix_data_buffer_t *b, const sy_wire_desc_t *d, void *msg)
{
    if (d->part != SY_WIRE_REQUEST)
        return PMIX_ERR_NOT_SUPPORTED;
    switch (d->code) {
    case SY_CMD_FINALIZE: return PMIX_SUCCESS; /* nothing we need follows */
    case SY_CMD_ABORT: {
        sy_wire_abort_req_t *m = msg;
        TRY(get_one(b, &m->status, PMIX_STATUS));
        TRY(get_one(b, &m->message, PMIX_STRING));
        GET_COUNTED(b, PMIX_PROC, m->procs, m->nprocs);
        return PMIX_SUCCESS;
    }
    case SY_CMD_COMMIT: return unpack_commit(b, msg);
    case SY_CMD_CONNECT:
    case SY_CMD_DISCONNECT: /* one shape with FENCE's (server_coll.c checks) */
    case SY_CMD_FENCE: {
        sy_wire_fence_req_t *m = msg;
        GET_COUNTED(b, PMIX_PROC, m->procs, m->nprocs);
        GET_COUNTED(b, PMIX_INFO, m->info, m->ninfo);
        return PMIX_SUCCESS;
    }
    case SY_CMD_DMODEX: {
        sy_wire_dmodex_req_t *m = msg;
        char *nspace = NULL;
        TRY(get_one(b, &nspace, PMIX_STRING));
        PMIX_LOAD_PROCID(&m->proc, nspace, PMIX_RANK_UNDEF);
        free(nspace);
        TRY(get_one(b, &m->proc.rank, PMIX_PROC_RANK));
        GET_COUNTED(b, PMIX_INFO, m->info, m->ninfo);
        /* the key is left out when the client wants everything */
        if (sy_buffer_remaining(b) > 0)
            TRY(get_one(b, &m->key, PMIX_STRING));
        return PMIX_SUCCESS;
    }
    case SY_CMD_PUBLISH: {
        sy_wire_publish_req_t *m = msg;
        return unpack_keys_info(b, false, NULL, NULL, &m->info, &m->ninfo);
    }
    case SY_CMD_LOOKUP: {
        sy_wire_lookup_req_t *m = msg;
        return unpack_keys_info(b, true, &m->keys, &m->nkeys, &m->info, &m->ninfo);
    }
    case SY_CMD_UNPUBLISH: {
        sy_wire_unpublish_req_t *m = msg;
        return unpack_keys_info(b, true, &m->keys, &m->nkeys, &m->info, &m->ninfo);
    }
    case SY_CMD_EVENT_REGISTER: {
        /* SIZE n, n STATUS, SIZE ninfo, infos (the infos stay with the
         * client: they filter what its handlers see) */
        sy_wire_event_register_req_t *m = msg;
        void *info = NULL;
        size_t ninfo = 0;
        m->ref = next_ref();
        m->seen = UINT64_MAX; /* OpenPMIx clients are replayed every cached event they want */
        GET_COUNTED(b, PMIX_STATUS, m->codes, m->ncodes);
        pmix_status_t rc = get_counted(b, PMIX_INFO, &info, &ninfo);
        if (info != NULL)
            sy_array_free(info, ninfo, PMIX_INFO);
        return rc;
    }
    case SY_CMD_EVENT_NOTIFY: {
        /* STATUS, DATA_RANGE, SIZE ninfo, infos; the source is the
         * requester (the server sets it) */
        sy_wire_event_notify_req_t *m = msg;
        TRY(get_one(b, &m->code, PMIX_STATUS));
        TRY(get_one(b, &m->range, PMIX_DATA_RANGE));
        GET_COUNTED(b, PMIX_INFO, m->info, m->ninfo);
        return PMIX_SUCCESS;
    }
    case SY_CMD_SPAWN: {
        /* SIZE ninfo, job infos, SIZE napps, apps */
        sy_wire_spawn_req_t *m = msg;
        GET_COUNTED(b, PMIX_INFO, m->job_info, m->njob_info);
        GET_COUNTED(b, PMIX_APP, m->apps, m->napps);
        return PMIX_SUCCESS;
    }
    case SY_CMD_QUERY: return unpack_query(b, msg);
    case SY_CMD_LOG: {
        /* TIME stamp, SIZE ndata, data, SIZE ndirs, directives */
        sy_wire_log_req_t *m = msg;
        time_t stamp;
        TRY(get_one(b, &stamp, PMIX_TIME));
        GET_COUNTED(b, PMIX_INFO, m->data, m->ndata);
        GET_COUNTED(b, PMIX_INFO, m->directives, m->ndirectives);
        return PMIX_SUCCESS;
    }
    case SY_CMD_JOB_CONTROL: {
        /* SIZE ntargets, procs, SIZE ndirs, directives */
        sy_wire_job_control_req_t *m = msg;
        GET_COUNTED(b, PMIX_PROC, m->targets, m->ntargets);
        GET_COUNTED(b, PMIX_INFO, m->directives, m->ndirectives);
        return PMIX_SUCCESS;
    }
    case SY_CMD_ALLOC: {
        /* ALLOC_DIRECTIVE, SIZE ninfo, infos */
        sy_wire_alloc_req_t *m = msg;
        TRY(get_one(b, &m->directive, PMIX_ALLOC_DIRECTIVE));
        GET_COUNTED(b, PMIX_INFO, m->info, m->ninfo);
        return PMIX_SUCCESS;
    }
    case SY_CMD_MONITOR: {
        /* a pack call of one INFO (the monitor), STATUS, SIZE ndirs, dirs */
        sy_wire_monitor_req_t *m = msg;
        void *mon = NULL;
        pmix_status_t rc = sy_opx_unpack_alloc(b, PMIX_INFO, &mon, &m->nmonitor);
        m->monitor = mon;
        TRY(rc);
        TRY(get_one(b, &m->error, PMIX_STATUS));
        GET_COUNTED(b, PMIX_INFO, m->directives, m->ndirectives);
        return PMIX_SUCCESS;
    }
    case SY_CMD_GET_CRED: {
        sy_wire_get_cred_req_t *m = msg;
        GET_COUNTED(b, PMIX_INFO, m->info, m->ninfo);
        return PMIX_SUCCESS;
    }
    case SY_CMD_VALIDATE_CRED: {
        /* BYTE_OBJECT credential, SIZE ndirs, dirs */
        sy_wire_validate_cred_req_t *m = msg;
        TRY(get_one(b, &m->cred, PMIX_BYTE_OBJECT));
        GET_COUNTED(b, PMIX_INFO, m->info, m->ninfo);
        return PMIX_SUCCESS;
    }
    case SY_CMD_IOF_PUSH: {
        /* SIZE ntargets, targets, SIZE ndirs, dirs, then the data unless
         * the push only closes stdin (PMIX_IOF_COMPLETE) */
        sy_wire_iof_push_req_t *m = msg;
        GET_COUNTED(b, PMIX_PROC, m->targets, m->ntargets);
        GET_COUNTED(b, PMIX_INFO, m->directives, m->ndirectives);
        if (sy_buffer_remaining(b) > 0)
            TRY(get_one(b, &m->data, PMIX_BYTE_OBJECT));
        return PMIX_SUCCESS;
    }
    case SY_CMD_GROUP_CONSTRUCT: {
        /* group id, SIZE nprocs, procs, SIZE ninfo, infos */
        sy_wire_group_construct_req_t *m = msg;
        TRY(get_one(b, &m->grp, PMIX_STRING));
        GET_COUNTED(b, PMIX_PROC, m->procs, m->nprocs);
        GET_COUNTED(b, PMIX_INFO, m->info, m->ninfo);
        return PMIX_SUCCESS;
    }
    case SY_CMD_GROUP_DESTRUCT:
    case SY_CMD_GROUP_LEAVE: {
        /* group id, SIZE ninfo, infos */
        _Static_assert(sizeof(sy_wire_group_destruct_req_t) == sizeof(sy_wire_group_leave_req_t),
                       "GROUP_DESTRUCT and GROUP_LEAVE differ");
        sy_wire_group_destruct_req_t *m = msg;
        TRY(get_one(b, &m->grp, PMIX_STRING));
        GET_COUNTED(b, PMIX_INFO, m->info, m->ninfo);
        return PMIX_SUCCESS;
    }
    case SY_CMD_FABRIC: return unpack_fabric(b, msg);
    case SY_CMD_IOF_PULL: return unpack_iof_pull(b, msg);
    case SY_CMD_IOF_DEREG: {
        /* SIZE ndirs, dirs (nothing we use), SIZE our registration id */
        sy_wire_iof_dereg_req_t *m = msg;
        void *dirs = NULL;
        size_t ndirs = 0;
        pmix_status_t rc = get_counted(b, PMIX_INFO, &dirs, &ndirs);
        if (dirs != NULL)
            sy_array_free(dirs, ndirs, PMIX_INFO);
        TRY(rc);
        return get_one(b, &m->ref, PMIX_SIZE);
    }
    default: return PMIX_ERR_NOT_SUPPORTED;
    }
}

/* QUERY's and JOB_CONTROL's answer: SIZE n, a pack call of n infos. */
static pmix_status_t pack_results(pmix_data_buffer_t *b, const pmix_info_t *info, size_t ninfo)
{
    size_t n = info == NULL ? 0 : ninfo;
    TRY(put_one(b, &n, PMIX_SIZE));
    if (n > INT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    return n == 0 ? PMIX_SUCCESS : sy_opx_pack(b, info, (int32_t)n, PMIX_INFO);
}

/* FABRIC's answer: SIZE n, infos.  OpenPMIx cannot hold an array of
 * arrays (its unpack fails the whole reply): a per-plane value of one
 * plane goes as that plane's array, one of several planes is left out. */
static pmix_status_t pack_fabric_rep(pmix_data_buffer_t *b, const sy_wire_fabric_rep_t *m)
{
    size_t n = m->info == NULL ? 0 : m->ninfo;
    pmix_info_t *out = n > 0 ? calloc(n, sizeof(*out)) : NULL;
    if (n > 0 && out == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const pmix_info_t *in = &m->info[i];
        const pmix_data_array_t *da = in->value.data.darray;
        out[k] = *in; /* borrowed */
        if (in->value.type == PMIX_DATA_ARRAY && da != NULL && da->type == PMIX_DATA_ARRAY) {
            if (da->size != 1)
                continue;
            out[k].value.data.darray = (pmix_data_array_t *)da->array;
        }
        k++;
    }
    pmix_status_t rc = pack_results(b, out, k);
    free(out);
    return rc;
}

/* LOOKUP's answer: SIZE n, then one pack call of n PDATA. */
static pmix_status_t pack_lookup_rep(pmix_data_buffer_t *b, const sy_wire_lookup_rep_t *m)
{
    size_t n = m->data == NULL ? 0 : m->ndata;
    TRY(put_one(b, &n, PMIX_SIZE));
    if (n == 0)
        return PMIX_SUCCESS;
    if (n > INT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    pmix_pdata_t *pd = calloc(n, sizeof(*pd));
    if (pd == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        pd[i].proc = m->data[i].proc;
        PMIX_LOAD_KEY(pd[i].key, m->data[i].key);
        pd[i].value = m->data[i].value; /* lent */
    }
    pmix_status_t rc = sy_opx_pack(b, pd, (int32_t)n, PMIX_PDATA);
    free(pd);
    return rc;
}

/* GETNB's answer: byte objects, one per process, each a PROC then the
 * process's KVALs; we send the one value asked for. */
static pmix_status_t pack_dmodex_rep(pmix_data_buffer_t *b, const sy_wire_dmodex_rep_t *m)
{
    pmix_data_buffer_t in = {0};
    pmix_status_t rc = put_one(&in, &m->owner, PMIX_PROC);
    if (rc == PMIX_SUCCESS && m->key != NULL) {
        rc = sy_opx_put_int(&in, 1);
        if (rc == PMIX_SUCCESS)
            rc = sy_opx_pack_kval(&in, m->key, &m->value);
    }
    if (rc == PMIX_SUCCESS) {
        pmix_byte_object_t bo = {.bytes = in.base_ptr, .size = in.bytes_used};
        rc = put_one(b, &bo, PMIX_BYTE_OBJECT);
    }
    sy_buffer_destruct(&in);
    return rc;
}

/* An event for an OpenPMIx client (tag 0, after the NOTIFY command):
 * STATUS, source PROC, SIZE ninfo, infos.  Its client keeps no
 * registration references: a replay is the event again. */
static pmix_status_t pack_event(pmix_data_buffer_t *b, pmix_status_t code,
                                const pmix_proc_t *source, const pmix_info_t *info, size_t ninfo)
{
    size_t n = info == NULL ? 0 : ninfo;
    TRY(put_one(b, &code, PMIX_STATUS));
    TRY(put_one(b, source, PMIX_PROC));
    TRY(put_one(b, &n, PMIX_SIZE));
    if (n > INT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    return n == 0 ? PMIX_SUCCESS : sy_opx_pack(b, info, (int32_t)n, PMIX_INFO);
}

static pmix_status_t opx_pack(pmix_data_buffer_t *b, const sy_wire_desc_t *d, const void *msg)
{
    if (d->part == SY_WIRE_MESSAGE && d->code == SY_MSG_EVENT) {
        const sy_wire_event_msg_t *m = msg;
        return pack_event(b, m->code, &m->source, m->info, m->ninfo);
    }
    if (d->part == SY_WIRE_MESSAGE && d->code == SY_MSG_EVENT_REPLAY) {
        const sy_wire_event_replay_msg_t *m = msg;
        return pack_event(b, m->code, &m->source, m->info, m->ninfo);
    }
    if (d->part == SY_WIRE_MESSAGE && d->code == SY_MSG_IOF) {
        /* forwarded output (tag 2): source PROC, IOF_CHANNEL, SIZE the
         * client's registration id, SIZE ninfo, infos, BYTE_OBJECT */
        const sy_wire_iof_msg_t *m = msg;
        size_t n = m->info == NULL ? 0 : m->ninfo;
        TRY(put_one(b, &m->source, PMIX_PROC));
        TRY(put_one(b, &m->channel, PMIX_IOF_CHANNEL));
        TRY(put_one(b, &m->ref, PMIX_SIZE));
        TRY(put_one(b, &n, PMIX_SIZE));
        if (n > INT32_MAX)
            return PMIX_ERR_BAD_PARAM;
        if (n > 0)
            TRY(sy_opx_pack(b, m->info, (int32_t)n, PMIX_INFO));
        return put_one(b, &m->data, PMIX_BYTE_OBJECT);
    }
    if (d->part != SY_WIRE_REPLY)
        return PMIX_ERR_NOT_SUPPORTED;
    switch (d->code) {
    case SY_CMD_FINALIZE:
    case SY_CMD_ABORT:
    case SY_CMD_COMMIT:
    case SY_CMD_FENCE:
    case SY_CMD_PUBLISH:
    case SY_CMD_UNPUBLISH:
    case SY_CMD_EVENT_REGISTER:
    case SY_CMD_EVENT_NOTIFY:
    case SY_CMD_DISCONNECT:
    case SY_CMD_IOF_PUSH:
    case SY_CMD_GROUP_DESTRUCT:
    case SY_CMD_GROUP_LEAVE:
        /* OpenPMIx answers these with the status alone: the data a fence
         * exchanged is fetched with GETNB */
        return PMIX_SUCCESS;
    case SY_CMD_CONNECT:
        /* the status; the job data of the other namespaces follows it,
         * appended by the server (server_opx.c), which has them */
        return PMIX_SUCCESS;
    case SY_CMD_ALLOC: {
        const sy_wire_alloc_rep_t *m = msg;
        return pack_results(b, m->results, m->nresults);
    }
    case SY_CMD_MONITOR: {
        const sy_wire_monitor_rep_t *m = msg;
        return pack_results(b, m->results, m->nresults);
    }
    case SY_CMD_GET_CRED: {
        /* BYTE_OBJECT credential, SIZE n, infos */
        const sy_wire_get_cred_rep_t *m = msg;
        TRY(put_one(b, &m->cred, PMIX_BYTE_OBJECT));
        return pack_results(b, m->info, m->ninfo);
    }
    case SY_CMD_VALIDATE_CRED: {
        const sy_wire_validate_cred_rep_t *m = msg;
        return pack_results(b, m->info, m->ninfo);
    }
    case SY_CMD_FABRIC: return pack_fabric_rep(b, msg);
    case SY_CMD_IOF_PULL: {
        const sy_wire_iof_pull_rep_t *m = msg;
        return put_one(b, &m->ref, PMIX_SIZE);
    }
    case SY_CMD_IOF_DEREG: return PMIX_SUCCESS;
    case SY_CMD_GROUP_CONSTRUCT: {
        /* the context id alone (SIZE), when the host assigned one */
        const sy_wire_group_construct_rep_t *m = msg;
        for (size_t i = 0; m->results != NULL && i < m->nresults; i++) {
            const pmix_info_t *r = &m->results[i];
            if (PMIX_CHECK_KEY(r, PMIX_GROUP_CONTEXT_ID) && r->value.type == PMIX_SIZE)
                return put_one(b, &r->value.data.size, PMIX_SIZE);
        }
        return PMIX_SUCCESS;
    }
    case SY_CMD_LOOKUP: return pack_lookup_rep(b, msg);
    case SY_CMD_LOG: return PMIX_SUCCESS;
    case SY_CMD_SPAWN: {
        const sy_wire_spawn_rep_t *m = msg;
        return put_one(b, &m->nspace, PMIX_STRING);
    }
    case SY_CMD_QUERY: {
        /* attribute support in the layout OpenPMIx's tools read */
        const sy_wire_query_rep_t *m = msg;
        pmix_info_t *shaped;
        size_t nshaped;
        bool reshaped;
        TRY(sy_opx_attrs_reshape(m->results, m->nresults, &shaped, &nshaped, &reshaped));
        if (!reshaped)
            return pack_results(b, m->results, m->nresults);
        pmix_status_t rc = pack_results(b, shaped, nshaped);
        if (shaped != NULL)
            PMIX_INFO_FREE(shaped, nshaped);
        return rc;
    }
    case SY_CMD_JOB_CONTROL: {
        const sy_wire_job_control_rep_t *m = msg;
        return pack_results(b, m->results, m->nresults);
    }
    case SY_CMD_DMODEX: return pack_dmodex_rep(b, msg);
    default: return PMIX_ERR_NOT_SUPPORTED;
    }
}

static pmix_status_t opx_pack_head(pmix_data_buffer_t *b, sy_wire_part_t part, int32_t value)
{
    if (part == SY_WIRE_MESSAGE && (value == SY_MSG_EVENT || value == SY_MSG_EVENT_REPLAY)) {
        uint8_t cmd = 12; /* PMIX_NOTIFY_CMD */
        return put_one(b, &cmd, PMIX_COMMAND);
    }
    if (part == SY_WIRE_MESSAGE && value == SY_MSG_IOF)
        return PMIX_SUCCESS; /* no command: the tag says what it is */
    if (part == SY_WIRE_REPLY) {
        pmix_status_t st = value;
        return put_one(b, &st, PMIX_STATUS);
    }
    return PMIX_ERR_NOT_SUPPORTED;
}

static pmix_status_t opx_unpack_head(pmix_data_buffer_t *b, sy_wire_part_t part, int32_t *value)
{
    if (part != SY_WIRE_REQUEST)
        return PMIX_ERR_NOT_SUPPORTED;
    uint8_t cmd;
    if (get_one(b, &cmd, PMIX_COMMAND) != PMIX_SUCCESS)
        return PMIX_ERR_UNPACK_FAILURE;
    *value = sy_wire_opx_cmd_from(cmd);
    return PMIX_SUCCESS;
}

const sy_wire_codec_t sy_wire_openpmix = {
    .name = "openpmix",
    .pack = opx_pack,
    .unpack = opx_unpack,
    .pack_head = opx_pack_head,
    .unpack_head = opx_unpack_head,
};
