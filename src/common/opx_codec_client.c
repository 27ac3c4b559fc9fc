/* The OpenPMIx codec, client direction (wire_codec.h): our request
 * structs packed as an OpenPMIx 4.2 client packs each command, and the
 * replies of an OpenPMIx server read back into our reply structs
 * (docs/wire-protocol.md, "OpenPMIx protocol, client side").  Payloads
 * use OpenPMIx's v41 encoding (opx_bfrops.h).  A command OpenPMIx has no
 * counterpart for, or that we do not speak yet, fails at pack time with
 * PMIX_ERR_NOT_SUPPORTED and one log line: the caller gets its status at
 * once, nothing waits for a reply that cannot come. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/log.h"
#include "common/opx_bfrops.h"
#include "common/opx_client.h"
#include "common/wire_codec.h"
#include "common/wire_msgs.h"

/* OpenPMIx's command codes (its pmix_globals.h; a PMIX_COMMAND byte) */
enum {
    OPX_ABORT = 1,
    OPX_COMMIT = 2,
    OPX_FENCENB = 3,
    OPX_GETNB = 4,
    OPX_FINALIZE = 5,
    OPX_PUBLISHNB = 6,
    OPX_LOOKUPNB = 7,
    OPX_UNPUBLISHNB = 8,
    OPX_SPAWNNB = 9,
    OPX_CONNECTNB = 10,
    OPX_DISCONNECTNB = 11,
    OPX_NOTIFY = 12,
    OPX_REGEVENTS = 13,
    OPX_DEREGEVENTS = 14,
    OPX_QUERY = 15,
    OPX_LOG = 16,
    OPX_JOB_CONTROL = 18,
    OPX_IOF_PULL = 22,
    OPX_IOF_DEREG = 29,
};

static const struct {
    uint8_t ours, theirs;
} commands[] = {
    {SY_CMD_FINALIZE, OPX_FINALIZE},
    {SY_CMD_ABORT, OPX_ABORT},
    {SY_CMD_COMMIT, OPX_COMMIT},
    {SY_CMD_FENCE, OPX_FENCENB},
    {SY_CMD_DMODEX, OPX_GETNB},
    {SY_CMD_EVENT_REGISTER, OPX_REGEVENTS},
    {SY_CMD_EVENT_NOTIFY, OPX_NOTIFY},
    {SY_CMD_PUBLISH, OPX_PUBLISHNB},
    {SY_CMD_LOOKUP, OPX_LOOKUPNB},
    {SY_CMD_UNPUBLISH, OPX_UNPUBLISHNB},
    {SY_CMD_SPAWN, OPX_SPAWNNB},
    {SY_CMD_CONNECT, OPX_CONNECTNB},
    {SY_CMD_DISCONNECT, OPX_DISCONNECTNB},
    {SY_CMD_QUERY, OPX_QUERY},
    {SY_CMD_LOG, OPX_LOG},
    {SY_CMD_JOB_CONTROL, OPX_JOB_CONTROL},
    {SY_CMD_IOF_PULL, OPX_IOF_PULL},
    {SY_CMD_IOF_DEREG, OPX_IOF_DEREG},
};

static int theirs(int32_t ours)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (commands[i].ours == ours)
            return commands[i].theirs;
    return -1;
}

/* ---- packing helpers: one "pack call" each, as OpenPMIx makes them ---- */

static pmix_status_t put_size(pmix_data_buffer_t *b, size_t n)
{
    return sy_opx_pack(b, &n, 1, PMIX_SIZE);
}

/* a count, then (when there are any) the elements in one pack call */
static pmix_status_t put_array(pmix_data_buffer_t *b, const void *v, size_t n,
                               pmix_data_type_t type)
{
    if (n > INT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = put_size(b, n);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_opx_pack(b, v, (int32_t)n, type);
    return rc;
}

/* keys go one pack call each (OpenPMIx's lookup and unpublish) */
static pmix_status_t put_keys(pmix_data_buffer_t *b, char *const *keys, size_t n)
{
    pmix_status_t rc = put_size(b, n);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++)
        rc = sy_opx_pack(b, &keys[i], 1, PMIX_STRING);
    return rc;
}

static pmix_status_t put_uid(pmix_data_buffer_t *b)
{
    uint32_t uid = (uint32_t)geteuid();
    return sy_opx_pack(b, &uid, 1, PMIX_UINT32);
}

/* COMMIT: per scope a scope byte and a nested buffer of pairs; GLOBAL
 * values go in both, as OpenPMIx's own client files them. */
static pmix_status_t put_commit(pmix_data_buffer_t *b, const sy_wire_commit_req_t *m)
{
    static const pmix_scope_t scopes[] = {PMIX_LOCAL, PMIX_REMOTE};
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t s = 0; rc == PMIX_SUCCESS && s < 2; s++) {
        pmix_data_buffer_t kvs = {0};
        size_t n = 0;
        for (size_t i = 0; rc == PMIX_SUCCESS && i < m->ndata; i++) {
            const sy_wire_kv_t *kv = &m->data[i];
            if (kv->scope != scopes[s] && kv->scope != PMIX_GLOBAL)
                continue;
            /* a KVAL pack call: its count, then the pair */
            rc = sy_opx_put_int(&kvs, 1);
            if (rc == PMIX_SUCCESS)
                rc = sy_opx_pack_kval(&kvs, kv->key, &kv->value);
            n++;
        }
        if (rc == PMIX_SUCCESS && n > 0) {
            uint8_t scope = scopes[s];
            rc = sy_opx_pack(b, &scope, 1, PMIX_SCOPE);
            if (rc == PMIX_SUCCESS)
                rc = sy_opx_put_int(b, 1); /* a BUFFER pack call */
            if (rc == PMIX_SUCCESS)
                rc = sy_opx_pack_buffer(b, kvs.base_ptr, kvs.bytes_used);
        }
        sy_buffer_destruct(&kvs);
    }
    return rc;
}

/* SPAWN's apps as an OpenPMIx client completes them before they go: an
 * OpenPMIx host starts an app without a working directory in its own
 * (Open MPI's orted: not where the caller runs, so a relative command is
 * not found), and takes argv[0] to be the command's name.  So the
 * caller's directory goes with an app that names none, and an app
 * without argv gets the command's base name as its one argument. */
static pmix_status_t put_apps(pmix_data_buffer_t *b, const pmix_app_t *apps, size_t n)
{
    if (n == 0 || apps == NULL)
        return put_array(b, NULL, 0, PMIX_APP);
    if (n > INT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    pmix_app_t *copy = malloc(n * sizeof(*copy));
    char **argv0 = calloc(2 * n, sizeof(*argv0)); /* per app: name, NULL */
    char *cwd = getcwd(NULL, 0);
    pmix_status_t rc = copy == NULL || argv0 == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
        copy[i] = apps[i]; /* shallow: only read */
        if (copy[i].cwd == NULL)
            copy[i].cwd = cwd;
        if (copy[i].argv == NULL && copy[i].cmd != NULL) {
            const char *slash = strrchr(copy[i].cmd, '/');
            argv0[2 * i] = (char *)(slash != NULL ? slash + 1 : copy[i].cmd);
            copy[i].argv = &argv0[2 * i];
        }
    }
    if (rc == PMIX_SUCCESS)
        rc = put_array(b, copy, n, PMIX_APP);
    free(copy);
    free(argv0);
    free(cwd);
    return rc;
}

/* QUERY: SIZE n, then the n queries in one pack call (keys, qualifiers) */
static pmix_status_t put_queries(pmix_data_buffer_t *b, const sy_wire_query_req_t *m)
{
    pmix_query_t *q = m->nqueries > 0 ? calloc(m->nqueries, sizeof(*q)) : NULL;
    if (m->nqueries > 0 && q == NULL)
        return PMIX_ERR_NOMEM;
    pmix_status_t rc = PMIX_SUCCESS;
    /* the records' keys are NULL-terminated lists: borrowed, not copied */
    for (size_t i = 0; i < m->nqueries; i++) {
        for (size_t k = 0; k < m->queries[i].nkeys; k++) {
            if (strcmp(m->queries[i].keys[k], PMIX_QUERY_ATTRIBUTE_SUPPORT) == 0) {
                /* an OpenPMIx 4.2.2 server dies of it (a segfault, with
                 * its own tools too): never sent */
                sy_log(SY_LOG_WARN,
                       "OpenPMIx server: not asked for %s (OpenPMIx 4.2.2 servers "
                       "crash on it): not supported",
                       PMIX_QUERY_ATTRIBUTE_SUPPORT);
                free(q);
                return PMIX_ERR_NOT_SUPPORTED;
            }
        }
        q[i].keys = m->queries[i].keys;
        q[i].qualifiers = m->queries[i].qualifiers;
        q[i].nqual = m->queries[i].nqualifiers;
    }
    rc = put_array(b, q, m->nqueries, PMIX_QUERY);
    free(q);
    return rc;
}

/* IOF_PULL: SIZE n, n PROC, SIZE ndirs, directives, the channels, then
 * the id our output is to name, which the client passes as the last
 * directive (SY_WIRE_OPX_IOF_ID) and which does not travel as one. */
static pmix_status_t put_iof_pull(pmix_data_buffer_t *b, const sy_wire_iof_pull_req_t *m)
{
    size_t nd = m->directives == NULL ? 0 : m->ndirectives;
    if (nd == 0 || !PMIX_CHECK_KEY(&m->directives[nd - 1], SY_WIRE_OPX_IOF_ID) ||
        m->directives[nd - 1].value.type != PMIX_SIZE)
        return PMIX_ERR_BAD_PARAM;
    size_t id = m->directives[nd - 1].value.data.size;
    pmix_status_t rc = put_array(b, m->procs, m->nprocs, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = put_array(b, m->directives, nd - 1, PMIX_INFO);
    if (rc == PMIX_SUCCESS)
        rc = sy_opx_pack(b, &m->channels, 1, PMIX_IOF_CHANNEL);
    return rc == PMIX_SUCCESS ? put_size(b, id) : rc;
}

static pmix_status_t pack_fields(pmix_data_buffer_t *b, const sy_wire_desc_t *d, const void *msg)
{
    if (d->part != SY_WIRE_REQUEST)
        return PMIX_ERR_NOT_SUPPORTED; /* the server direction is not ours */
    switch (d->code) {
    case SY_CMD_FINALIZE: return PMIX_SUCCESS;
    case SY_CMD_ABORT: {
        const sy_wire_abort_req_t *m = msg;
        pmix_status_t st = m->status;
        pmix_status_t rc = sy_opx_pack(b, &st, 1, PMIX_STATUS);
        if (rc == PMIX_SUCCESS)
            rc = sy_opx_pack(b, &m->message, 1, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->procs, m->nprocs, PMIX_PROC);
        return rc;
    }
    case SY_CMD_COMMIT: return put_commit(b, msg);
    case SY_CMD_FENCE:
    case SY_CMD_CONNECT:
    case SY_CMD_DISCONNECT: {
        const sy_wire_fence_req_t *m = msg;
        pmix_status_t rc = put_array(b, m->procs, m->nprocs, PMIX_PROC);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->info, m->ninfo, PMIX_INFO);
        return rc;
    }
    case SY_CMD_DMODEX: {
        /* OpenPMIx asks for all of a process's data; the key stays here */
        const sy_wire_dmodex_req_t *m = msg;
        const char *ns = m->proc.nspace;
        pmix_status_t rc = sy_opx_pack(b, &ns, 1, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = sy_opx_pack(b, &m->proc.rank, 1, PMIX_PROC_RANK);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->info, m->ninfo, PMIX_INFO);
        return rc;
    }
    case SY_CMD_EVENT_REGISTER: {
        const sy_wire_event_register_req_t *m = msg;
        pmix_status_t rc = put_array(b, m->codes, m->ncodes, PMIX_STATUS);
        if (rc == PMIX_SUCCESS)
            rc = put_size(b, 0);
        return rc;
    }
    case SY_CMD_EVENT_NOTIFY: {
        const sy_wire_event_notify_req_t *m = msg;
        pmix_status_t rc = sy_opx_pack(b, &m->code, 1, PMIX_STATUS);
        pmix_data_range_t range = m->range;
        if (rc == PMIX_SUCCESS)
            rc = sy_opx_pack(b, &range, 1, PMIX_DATA_RANGE);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->info, m->ninfo, PMIX_INFO);
        return rc;
    }
    case SY_CMD_PUBLISH: {
        const sy_wire_publish_req_t *m = msg;
        pmix_status_t rc = put_uid(b);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->info, m->ninfo, PMIX_INFO);
        return rc;
    }
    case SY_CMD_LOOKUP:
    case SY_CMD_UNPUBLISH: {
        const sy_wire_lookup_req_t *m = msg; /* the same shape */
        pmix_status_t rc = put_uid(b);
        if (rc == PMIX_SUCCESS)
            rc = put_keys(b, m->keys, m->nkeys);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->info, m->ninfo, PMIX_INFO);
        return rc;
    }
    case SY_CMD_SPAWN: {
        const sy_wire_spawn_req_t *m = msg;
        pmix_status_t rc = put_array(b, m->job_info, m->njob_info, PMIX_INFO);
        if (rc == PMIX_SUCCESS)
            rc = put_apps(b, m->apps, m->napps);
        return rc;
    }
    case SY_CMD_QUERY: return put_queries(b, msg);
    case SY_CMD_LOG: {
        const sy_wire_log_req_t *m = msg;
        time_t stamp = 0; /* "not taken" */
        pmix_status_t rc = sy_opx_pack(b, &stamp, 1, PMIX_TIME);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->data, m->ndata, PMIX_INFO);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->directives, m->ndirectives, PMIX_INFO);
        return rc;
    }
    case SY_CMD_JOB_CONTROL: {
        const sy_wire_job_control_req_t *m = msg;
        pmix_status_t rc = put_array(b, m->targets, m->ntargets, PMIX_PROC);
        if (rc == PMIX_SUCCESS)
            rc = put_array(b, m->directives, m->ndirectives, PMIX_INFO);
        return rc;
    }
    case SY_CMD_IOF_PULL: return put_iof_pull(b, msg);
    case SY_CMD_IOF_DEREG: {
        /* no directives (4.2.2's server reads none), the server's id */
        const sy_wire_iof_dereg_req_t *m = msg;
        pmix_status_t rc = put_size(b, 0);
        return rc == PMIX_SUCCESS ? put_size(b, m->ref) : rc;
    }
    default: return PMIX_ERR_NOT_SUPPORTED;
    }
}

static pmix_status_t client_pack(pmix_data_buffer_t *b, const sy_wire_desc_t *d, const void *msg)
{
    pmix_status_t rc = pack_fields(b, d, msg);
    if (rc != PMIX_SUCCESS)
        sy_log(SY_LOG_INFO, "OpenPMIx server: cannot send our %s in OpenPMIx's form: %s", d->name,
               PMIx_Error_string(rc));
    return rc;
}

/* ---- replies ---- */

/* Append an info (key; the value is taken, val left zeroed) to a growing array. */
static pmix_status_t info_append(pmix_info_t **v, size_t *n, size_t *cap, const char *key,
                                 pmix_value_t *val)
{
    if (*n == *cap) {
        size_t c = *cap > 0 ? 2 * *cap : 16;
        pmix_info_t *g = realloc(*v, c * sizeof(*g));
        if (g == NULL) {
            sy_value_destruct(val);
            return PMIX_ERR_NOMEM;
        }
        *v = g;
        *cap = c;
    }
    memset(&(*v)[*n], 0, sizeof((*v)[*n]));
    PMIX_LOAD_KEY((*v)[*n].key, key);
    (*v)[*n].value = *val;
    memset(val, 0, sizeof(*val));
    (*n)++;
    return PMIX_SUCCESS;
}

static pmix_data_array_t *info_array(pmix_info_t *v, size_t n)
{
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    if (da != NULL) {
        da->type = PMIX_INFO;
        da->size = n;
        da->array = v;
    }
    return da;
}

/* One byte object of a GETNB reply: a process id, then its pairs, as a
 * PMIX_PROC_DATA info whose array starts with PMIX_PROCID (the process)
 * and goes on with the pairs. */
/* One record of type t, exactly. */
static pmix_status_t get_one(pmix_data_buffer_t *b, void *dst, pmix_data_type_t t)
{
    int32_t one = 1;
    pmix_status_t rc = sy_opx_unpack(b, dst, &one, t);
    return rc == PMIX_SUCCESS && one != 1 ? PMIX_ERR_UNPACK_FAILURE : rc;
}

/* SIZE n, then (n > 0 only) n infos in one pack call. */
static pmix_status_t get_infos(pmix_data_buffer_t *b, pmix_info_t **info, size_t *ninfo)
{
    size_t n = 0;
    pmix_status_t rc = get_one(b, &n, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_opx_unpack_alloc(b, PMIX_INFO, (void **)info, ninfo);
    if (rc == PMIX_SUCCESS && n != *ninfo)
        rc = PMIX_ERR_UNPACK_FAILURE;
    return rc;
}

static pmix_status_t get_dmodex_blob(pmix_data_buffer_t *sub, pmix_info_t **all, size_t *n,
                                     size_t *cap)
{
    pmix_proc_t who;
    pmix_status_t rc = get_one(sub, &who, PMIX_PROC);
    pmix_info_t *pairs = NULL;
    size_t np = 0, pcap = 0;
    pmix_value_t v = {.type = PMIX_PROC};
    if (rc == PMIX_SUCCESS && (v.data.proc = malloc(sizeof(who))) == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS) {
        *v.data.proc = who;
        rc = info_append(&pairs, &np, &pcap, PMIX_PROCID, &v);
    }
    while (rc == PMIX_SUCCESS && sy_buffer_remaining(sub) > 0) {
        int64_t cnt = 0;
        char *key = NULL;
        rc = sy_opx_get_int(sub, 1, 1, &cnt);
        if (rc == PMIX_SUCCESS)
            rc = sy_opx_unpack_kval(sub, &key, &v);
        if (rc == PMIX_SUCCESS && key == NULL) {
            sy_value_destruct(&v); /* a pair without a key: nowhere to keep it */
            rc = PMIX_ERR_UNPACK_FAILURE;
        } else if (rc == PMIX_SUCCESS) {
            rc = info_append(&pairs, &np, &pcap, key, &v);
        }
        free(key);
    }
    pmix_data_array_t *da = rc == PMIX_SUCCESS ? info_array(pairs, np) : NULL;
    if (rc == PMIX_SUCCESS && da == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc != PMIX_SUCCESS) {
        sy_array_free(pairs, np, PMIX_INFO);
        return rc;
    }
    v = (pmix_value_t){.type = PMIX_DATA_ARRAY, .data.darray = da};
    return info_append(all, n, cap, PMIX_PROC_DATA, &v);
}

/* GETNB: byte objects, each a process id and its pairs (the job-level
 * ones of the wildcard rank come first when the target is of another
 * job).  As one value: a PMIX_DATA_ARRAY of PMIX_PROC_DATA infos, one per
 * byte object (get_dmodex_blob), so that each pair keeps its owner; the
 * key asked for is the caller's to pick (client_modex.c).  The owner is
 * the first byte object's process. */
static pmix_status_t get_dmodex(pmix_data_buffer_t *b, sy_wire_dmodex_rep_t *m)
{
    pmix_info_t *all = NULL;
    size_t n = 0, cap = 0;
    pmix_status_t rc = PMIX_SUCCESS;
    while (rc == PMIX_SUCCESS && sy_buffer_remaining(b) > 0) {
        pmix_byte_object_t bo = {0};
        rc = get_one(b, &bo, PMIX_BYTE_OBJECT);
        if (rc != PMIX_SUCCESS)
            break;
        pmix_data_buffer_t sub = {0};
        rc = sy_buffer_set_copy(&sub, bo.bytes, bo.size);
        free(bo.bytes);
        if (rc == PMIX_SUCCESS)
            rc = get_dmodex_blob(&sub, &all, &n, &cap);
        sy_buffer_destruct(&sub);
    }
    pmix_data_array_t *da = rc == PMIX_SUCCESS ? info_array(all, n) : NULL;
    if (rc == PMIX_SUCCESS && da == NULL)
        rc = PMIX_ERR_NOMEM;
    if (rc != PMIX_SUCCESS) {
        sy_array_free(all, n, PMIX_INFO);
        return rc;
    }
    if (n > 0) {
        const pmix_info_t *first = all[0].value.data.darray->array;
        m->owner = *first[0].value.data.proc;
    }
    m->value.type = PMIX_DATA_ARRAY;
    m->value.data.darray = da;
    return PMIX_SUCCESS;
}

static pmix_status_t get_lookup(pmix_data_buffer_t *b, sy_wire_lookup_rep_t *m)
{
    size_t n = 0;
    pmix_status_t rc = get_one(b, &n, PMIX_SIZE);
    if (rc != PMIX_SUCCESS || n == 0)
        return rc;
    pmix_pdata_t *pd = NULL;
    size_t got = 0;
    rc = sy_opx_unpack_alloc(b, PMIX_PDATA, (void **)&pd, &got);
    if (rc == PMIX_SUCCESS && got > 0 && (m->data = calloc(got, sizeof(*m->data))) == NULL)
        rc = PMIX_ERR_NOMEM;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < got; i++) {
        m->data[i].proc = pd[i].proc;
        if ((m->data[i].key = strdup(pd[i].key)) == NULL) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        m->data[i].value = pd[i].value;
        memset(&pd[i].value, 0, sizeof(pd[i].value));
        m->ndata = i + 1;
    }
    sy_array_free(pd, got, PMIX_PDATA);
    return rc;
}

/* An event the server forwards (tag 0): status, source, SIZE n, n infos;
 * the range is the one the infos name, else undefined. */
static pmix_status_t get_event(pmix_data_buffer_t *b, sy_wire_event_msg_t *m)
{
    pmix_status_t rc = get_one(b, &m->code, PMIX_STATUS);
    if (rc == PMIX_SUCCESS)
        rc = get_one(b, &m->source, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = get_infos(b, &m->info, &m->ninfo);
    m->range = PMIX_RANGE_UNDEF;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < m->ninfo; i++)
        if (strcmp(m->info[i].key, PMIX_RANGE) == 0 && m->info[i].value.type == PMIX_DATA_RANGE)
            m->range = m->info[i].value.data.range;
    return rc;
}

/* Forwarded output (tag 2, no command): source PROC, channel, SIZE the id
 * our IOF_PULL gave, SIZE ninfo, infos, the data. */
static pmix_status_t get_iof(pmix_data_buffer_t *b, sy_wire_iof_msg_t *m)
{
    pmix_status_t rc = get_one(b, &m->source, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = get_one(b, &m->channel, PMIX_IOF_CHANNEL);
    if (rc == PMIX_SUCCESS)
        rc = get_one(b, &m->ref, PMIX_SIZE);
    if (rc == PMIX_SUCCESS)
        rc = get_infos(b, &m->info, &m->ninfo);
    if (rc == PMIX_SUCCESS)
        rc = get_one(b, &m->data, PMIX_BYTE_OBJECT);
    return rc;
}

static pmix_status_t client_unpack(pmix_data_buffer_t *b, const sy_wire_desc_t *d, void *msg)
{
    if (d->part == SY_WIRE_MESSAGE && d->code == SY_MSG_EVENT)
        return get_event(b, msg);
    if (d->part == SY_WIRE_MESSAGE && d->code == SY_MSG_IOF)
        return get_iof(b, msg);
    if (d->part != SY_WIRE_REPLY)
        return PMIX_ERR_NOT_SUPPORTED;
    /* an error reply stops after its status */
    if (sy_buffer_remaining(b) == 0)
        return PMIX_SUCCESS;
    switch (d->code) {
    case SY_CMD_DMODEX: return get_dmodex(b, msg);
    case SY_CMD_LOOKUP: return get_lookup(b, msg);
    case SY_CMD_QUERY: {
        sy_wire_query_rep_t *m = msg;
        return get_infos(b, &m->results, &m->nresults);
    }
    case SY_CMD_JOB_CONTROL: {
        sy_wire_job_control_rep_t *m = msg;
        return get_infos(b, &m->results, &m->nresults);
    }
    case SY_CMD_SPAWN: return get_one(b, &((sy_wire_spawn_rep_t *)msg)->nspace, PMIX_STRING);
    case SY_CMD_IOF_PULL: return get_one(b, &((sy_wire_iof_pull_rep_t *)msg)->ref, PMIX_SIZE);
    default:
        /* FENCE's collected data stays in the server's store (a GETNB
         * fetches it); the others carry nothing we read */
        return PMIX_SUCCESS;
    }
}

static pmix_status_t client_pack_head(pmix_data_buffer_t *b, sy_wire_part_t part, int32_t value)
{
    int cmd = part == SY_WIRE_REQUEST ? theirs(value) : -1;
    if (cmd < 0) {
        sy_log(SY_LOG_INFO,
               "OpenPMIx server: request %d has no OpenPMIx form we speak: not supported",
               (int)value);
        return PMIX_ERR_NOT_SUPPORTED;
    }
    uint8_t c = (uint8_t)cmd;
    return sy_opx_pack(b, &c, 1, PMIX_UINT8); /* a PMIX_COMMAND: one byte */
}

static pmix_status_t client_unpack_head(pmix_data_buffer_t *b, sy_wire_part_t part, int32_t *value)
{
    if (part == SY_WIRE_MESSAGE) {
        /* an unsolicited message opens with its command: events only */
        uint8_t cmd = 0;
        int32_t n = 1;
        if (sy_opx_unpack(b, &cmd, &n, PMIX_UINT8) != PMIX_SUCCESS || n != 1 || cmd != OPX_NOTIFY)
            return PMIX_ERR_UNPACK_FAILURE;
        *value = SY_MSG_EVENT;
        return PMIX_SUCCESS;
    }
    if (part != SY_WIRE_REPLY)
        return PMIX_ERR_UNPACK_FAILURE;
    pmix_status_t st = PMIX_ERROR;
    if (get_one(b, &st, PMIX_STATUS) != PMIX_SUCCESS)
        return PMIX_ERR_UNPACK_FAILURE;
    *value = st;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_pack_deregevents(pmix_data_buffer_t *b, const pmix_status_t *codes, size_t n)
{
    memset(b, 0, sizeof(*b));
    uint8_t c = OPX_DEREGEVENTS;
    pmix_status_t rc = sy_opx_pack(b, &c, 1, PMIX_UINT8);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++)
        rc = sy_opx_pack(b, &codes[i], 1, PMIX_STATUS);
    if (rc != PMIX_SUCCESS)
        sy_buffer_destruct(b);
    return rc;
}

const sy_wire_codec_t sy_wire_opx_client = {
    .name = "openpmix-client",
    .pack = client_pack,
    .unpack = client_unpack,
    .pack_head = client_pack_head,
    .unpack_head = client_unpack_head,
};
