/* The upcalls test_host gives for the modes of groups, process sets,
 * credentials, allocations and host-upcalls (the infos the library adds to
 * direct_modex, spawn, log, job_control and monitor), and what it checks
 * of them.  This host plays
 * node 1 of the three-node job of job_layout.h: in a group with members on
 * the other nodes, the "other daemons" contribute a record for each of
 * their ranks (key test.afar) and the group gets context id 4242. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "test_host_ops.h"

static const layout_t *L;
static const char *nspace;
static const char *mode;
static unsigned nclients;
static int failures;
static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;
static int n_construct, n_destruct, n_get_cred, n_valid, n_alloc, n_ready;
static int n_dmx, n_spawn, n_log, n_jctrl, n_monitor;

#define OFAIL(...)                                                                                 \
    do {                                                                                           \
        fprintf(stderr, "FAIL(host %s): ", mode);                                                  \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        pthread_mutex_lock(&ops_lock);                                                             \
        failures++;                                                                                \
        pthread_mutex_unlock(&ops_lock);                                                           \
    } while (0)

static void bump(int *n)
{
    pthread_mutex_lock(&ops_lock);
    (*n)++;
    pthread_mutex_unlock(&ops_lock);
}

static const pmix_info_t *find(const pmix_info_t *info, size_t n, const char *key)
{
    for (size_t i = 0; info != NULL && i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], key))
            return &info[i];
    return NULL;
}

/* The library must add the requester's ids to what it hands us. */
static void check_ids(const char *what, const pmix_info_t *info, size_t n)
{
    const pmix_info_t *uid = find(info, n, PMIX_USERID);
    const pmix_info_t *gid = find(info, n, PMIX_GRPID);
    if (uid == NULL || uid->value.type != PMIX_UINT32 || uid->value.data.uint32 != getuid() ||
        gid == NULL || gid->value.type != PMIX_UINT32 || gid->value.data.uint32 != getgid())
        OFAIL("%s came without the requester's PMIX_USERID/PMIX_GRPID", what);
}

typedef struct {
    pmix_info_t *info;
    size_t n;
    pmix_data_buffer_t blob;
} answer_t;

static void release(void *cbdata)
{
    answer_t *a = cbdata;
    if (a->info != NULL)
        PMIX_INFO_FREE(a->info, a->n);
    PMIX_DATA_BUFFER_DESTRUCT(&a->blob);
    free(a);
}

/* ---- group ---- */

/* What the other nodes' servers would contribute: a record per rank of
 * theirs, in the fence blob's layout (proc, count, scope/key/value). */
static void add_afar(pmix_data_buffer_t *b)
{
    for (unsigned r = 0; r < L->size; r++) {
        if (layout_node_of(L, r) == LAYOUT_LOCAL_NODE)
            continue;
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        size_t one = 1;
        uint8_t scope = PMIX_GLOBAL;
        char *key = "test.afar", val[32];
        snprintf(val, sizeof val, "afar-%u", r);
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
        PMIx_Data_pack(NULL, b, &p, 1, PMIX_PROC);
        PMIx_Data_pack(NULL, b, &one, 1, PMIX_SIZE);
        PMIx_Data_pack(NULL, b, &scope, 1, PMIX_UINT8);
        PMIx_Data_pack(NULL, b, &key, 1, PMIX_STRING);
        PMIx_Data_pack(NULL, b, &v, 1, PMIX_VALUE);
        PMIX_VALUE_DESTRUCT(&v);
    }
}

static pmix_status_t group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                           size_t nprocs, const pmix_info_t dirs[], size_t ndirs,
                           pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    if (op == PMIX_GROUP_DESTRUCT) {
        bump(&n_destruct);
        cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
        return PMIX_SUCCESS;
    }
    bump(&n_construct);
    if (strcmp(grp, "sy-host-grp") != 0 || nprocs != L->size)
        OFAIL("group upcall for %s with %zu members", grp, nprocs);
    const pmix_info_t *ctx = find(dirs, ndirs, PMIX_GROUP_ASSIGN_CONTEXT_ID);
    const pmix_info_t *endpt = find(dirs, ndirs, PMIX_GROUP_ENDPT_DATA);
    const pmix_info_t *st = find(dirs, ndirs, PMIX_LOCAL_COLLECTIVE_STATUS);
    if (ctx == NULL || endpt == NULL || endpt->value.type != PMIX_BYTE_OBJECT ||
        endpt->value.data.bo.size == 0 || st == NULL || st->value.type != PMIX_STATUS ||
        st->value.data.status != PMIX_SUCCESS)
        OFAIL("the group upcall lacks a directive (context id, endpoint data, local status)");
    answer_t *a = calloc(1, sizeof(*a));
    PMIX_INFO_CREATE(a->info, 3);
    a->n = 3;
    PMIX_DATA_BUFFER_CONSTRUCT(&a->blob);
    /* every node's data: ours, then the others' */
    if (endpt != NULL && endpt->value.type == PMIX_BYTE_OBJECT)
        PMIx_Data_embed(&a->blob, &endpt->value.data.bo);
    add_afar(&a->blob);
    size_t id = 4242;
    PMIX_INFO_LOAD(&a->info[0], PMIX_GROUP_CONTEXT_ID, &id, PMIX_SIZE);
    pmix_byte_object_t all = {.bytes = a->blob.base_ptr, .size = a->blob.bytes_used};
    PMIX_INFO_LOAD(&a->info[1], PMIX_GROUP_ENDPT_DATA, &all, PMIX_BYTE_OBJECT);
    pmix_data_array_t mem = {.type = PMIX_PROC, .size = nprocs, .array = (void *)procs};
    PMIX_INFO_LOAD(&a->info[2], PMIX_GROUP_MEMBERSHIP, &mem, PMIX_DATA_ARRAY);
    cbfunc(PMIX_SUCCESS, a->info, a->n, cbdata, release, a);
    return PMIX_SUCCESS;
}

/* ---- credentials ---- */

static pmix_status_t get_cred(const pmix_proc_t *proc, const pmix_info_t dirs[], size_t ndirs,
                              pmix_credential_cbfunc_t cbfunc, void *cbdata)
{
    bump(&n_get_cred);
    check_ids("get_credential", dirs, ndirs);
    char buf[PMIX_MAX_NSLEN + 32];
    snprintf(buf, sizeof buf, "TESTCRED:%s:%u", proc->nspace, proc->rank);
    pmix_byte_object_t cred = {.bytes = buf, .size = strlen(buf)};
    pmix_info_t type;
    PMIX_INFO_LOAD(&type, PMIX_CRED_TYPE, "test", PMIX_STRING);
    cbfunc(PMIX_SUCCESS, &cred, &type, 1, cbdata);
    PMIX_INFO_DESTRUCT(&type);
    return PMIX_SUCCESS;
}

static pmix_status_t validate_cred(const pmix_proc_t *proc, const pmix_byte_object_t *cred,
                                   const pmix_info_t dirs[], size_t ndirs,
                                   pmix_validation_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    bump(&n_valid);
    check_ids("validate_credential", dirs, ndirs);
    char want[PMIX_MAX_NSLEN + 32];
    snprintf(want, sizeof want, "TESTCRED:%s:", nspace);
    bool ok = cred->size > strlen(want) && memcmp(cred->bytes, want, strlen(want)) == 0 &&
              cred->bytes[cred->size - 1] >= '0' && cred->bytes[cred->size - 1] <= '9';
    pmix_info_t res[2];
    uint32_t uid = getuid();
    PMIX_INFO_LOAD(&res[0], PMIX_USERID, &uid, PMIX_UINT32);
    PMIX_INFO_LOAD(&res[1], "test.issuer", "test_host", PMIX_STRING);
    cbfunc(ok ? PMIX_SUCCESS : PMIX_ERR_INVALID_CRED, ok ? res : NULL, ok ? 2 : 0, cbdata);
    PMIX_INFO_DESTRUCT(&res[0]);
    PMIX_INFO_DESTRUCT(&res[1]);
    return PMIX_SUCCESS;
}

/* ---- allocations ---- */

static pmix_status_t allocate(const pmix_proc_t *client, pmix_alloc_directive_t directive,
                              const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
                              void *cbdata)
{
    bump(&n_alloc);
    check_ids("allocate", data, ndata);
    const pmix_info_t *cpus = find(data, ndata, PMIX_ALLOC_NUM_CPUS);
    const pmix_info_t *custom = find(data, ndata, "test.custom");
    if (directive != PMIX_ALLOC_NEW || cpus == NULL || cpus->value.type != PMIX_UINT64 ||
        cpus->value.data.uint64 != 8 || custom == NULL ||
        !PMIX_CHECK_NSPACE(client->nspace, nspace))
        OFAIL("allocate: the request did not come through whole");
    answer_t *a = calloc(1, sizeof(*a));
    PMIX_INFO_CREATE(a->info, 1);
    a->n = 1;
    PMIX_DATA_BUFFER_CONSTRUCT(&a->blob);
    PMIX_INFO_LOAD(&a->info[0], PMIX_ALLOC_ID, "test-alloc-1", PMIX_STRING);
    cbfunc(PMIX_SUCCESS, a->info, a->n, cbdata, release, a);
    return PMIX_SUCCESS;
}

/* ---- process sets: defined and deleted while the clients run ---- */

static void define_local(const char *name)
{
    pmix_proc_t p[256];
    unsigned first = L->first_rank[LAYOUT_LOCAL_NODE];
    for (unsigned i = 0; i < L->nlocal && i < 256; i++)
        PMIX_LOAD_PROCID(&p[i], nspace, first + i);
    pmix_status_t rc = PMIx_server_define_process_set(p, L->nlocal, name);
    if (rc != PMIX_SUCCESS)
        OFAIL("PMIx_server_define_process_set(%s): %s", name, PMIx_Error_string(rc));
}

/* Runs on the server's thread: the set calls must work from an upcall. */
static void log_upcall(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
                       const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                       void *cbdata)
{
    (void)client, (void)directives, (void)ndirs;
    const pmix_info_t *msg = find(data, ndata, PMIX_LOG_STDOUT);
    if (msg != NULL && msg->value.type == PMIX_STRING &&
        strcmp(msg->value.data.string, "ready") == 0) {
        pthread_mutex_lock(&ops_lock);
        bool last = ++n_ready == (int)nclients;
        pthread_mutex_unlock(&ops_lock);
        if (last) {
            pmix_status_t rc = PMIx_server_delete_process_set("early");
            if (rc != PMIX_SUCCESS)
                OFAIL("PMIx_server_delete_process_set: %s", PMIx_Error_string(rc));
            if (PMIx_server_delete_process_set("early") != PMIX_ERR_NOT_FOUND)
                OFAIL("deleting a set twice was accepted");
            define_local("late");
        }
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
}

/* ---- host-upcalls: what the library adds to each upcall ---- */

static size_t count_key(const pmix_info_t *info, size_t n, const char *key)
{
    size_t c = 0;
    for (size_t i = 0; info != NULL && i < n; i++)
        c += PMIX_CHECK_KEY(&info[i], key);
    return c;
}

/* The client asks for test.remote of a rank on another node, with a
 * PMIX_TIMEOUT (as a uint16): we get both and answer as that node's
 * server would. */
static pmix_status_t up_dmodex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                               pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    bump(&n_dmx);
    const pmix_info_t *key = find(info, ninfo, PMIX_REQUIRED_KEY);
    const pmix_info_t *t = find(info, ninfo, PMIX_TIMEOUT);
    if (key == NULL || key->value.type != PMIX_STRING ||
        strcmp(key->value.data.string, "test.remote") != 0 ||
        count_key(info, ninfo, PMIX_REQUIRED_KEY) != 1)
        OFAIL("direct_modex without PMIX_REQUIRED_KEY test.remote");
    if (t == NULL || t->value.type != PMIX_UINT16 || t->value.data.uint16 != 30)
        OFAIL("direct_modex without the client's PMIX_TIMEOUT");
    if (find(info, ninfo, PMIX_IMMEDIATE) != NULL)
        OFAIL("a PMIX_IMMEDIATE Get reached the host");
    answer_t *a = calloc(1, sizeof(*a));
    PMIX_DATA_BUFFER_CONSTRUCT(&a->blob);
    size_t one = 1;
    uint8_t scope = PMIX_GLOBAL;
    char *k = "test.remote", val[32];
    snprintf(val, sizeof val, "far-%u", proc->rank);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, val, PMIX_STRING);
    PMIx_Data_pack(NULL, &a->blob, (void *)proc, 1, PMIX_PROC);
    PMIx_Data_pack(NULL, &a->blob, &one, 1, PMIX_SIZE);
    PMIx_Data_pack(NULL, &a->blob, &scope, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &a->blob, &k, 1, PMIX_STRING);
    PMIx_Data_pack(NULL, &a->blob, &v, 1, PMIX_VALUE);
    PMIX_VALUE_DESTRUCT(&v);
    cbfunc(PMIX_SUCCESS, a->blob.base_ptr, a->blob.bytes_used, cbdata, release, a);
    return PMIX_SUCCESS;
}

/* Chap_API_Server.tex: the spawn upcall's info carries the requester's
 * ids, PMIX_SPAWNED, PMIX_PARENT_ID and whether a tool or a client asks
 * (the client put a false PMIX_USERID and PMIX_SPAWNED of its own). */
static pmix_status_t up_spawn(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                              const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                              void *cbdata)
{
    bump(&n_spawn);
    check_ids("spawn", job_info, ninfo);
    const pmix_info_t *sp = find(job_info, ninfo, PMIX_SPAWNED);
    const pmix_info_t *par = find(job_info, ninfo, PMIX_PARENT_ID);
    const pmix_info_t *tool = find(job_info, ninfo, PMIX_REQUESTOR_IS_TOOL);
    const pmix_info_t *cli = find(job_info, ninfo, PMIX_REQUESTOR_IS_CLIENT);
    if (count_key(job_info, ninfo, PMIX_USERID) != 1 ||
        count_key(job_info, ninfo, PMIX_SPAWNED) != 1)
        OFAIL("spawn: the client's own PMIX_USERID/PMIX_SPAWNED were passed on");
    if (sp == NULL || sp->value.type != PMIX_BOOL || !sp->value.data.flag)
        OFAIL("spawn without PMIX_SPAWNED");
    if (par == NULL || par->value.type != PMIX_PROC ||
        !PMIX_CHECK_PROCID(par->value.data.proc, proc))
        OFAIL("spawn without the requester as PMIX_PARENT_ID");
    if (tool == NULL || tool->value.type != PMIX_BOOL || tool->value.data.flag || cli == NULL ||
        cli->value.type != PMIX_BOOL || !cli->value.data.flag)
        OFAIL("spawn without PMIX_REQUESTOR_IS_TOOL false / PMIX_REQUESTOR_IS_CLIENT true");
    if (find(job_info, ninfo, "test.job") == NULL || napps != 1 || apps[0].maxprocs != 1)
        OFAIL("spawn: the request did not come through whole");
    cbfunc(PMIX_SUCCESS, "test-spawned", cbdata);
    return PMIX_SUCCESS;
}

static void up_log(const pmix_proc_t *client, const pmix_info_t data[], size_t ndata,
                   const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                   void *cbdata)
{
    (void)client, (void)data, (void)ndata;
    bump(&n_log);
    check_ids("log", directives, ndirs);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
}

static pmix_status_t up_jctrl(const pmix_proc_t *requestor, const pmix_proc_t targets[],
                              size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                              pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)requestor, (void)targets, (void)ntargets;
    bump(&n_jctrl);
    check_ids("job_control", directives, ndirs);
    if (find(directives, ndirs, "test.jctrl") == NULL)
        OFAIL("job_control: the client's directive is missing");
    cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

static pmix_status_t up_monitor(const pmix_proc_t *requestor, const pmix_info_t *monitor,
                                pmix_status_t error, const pmix_info_t directives[], size_t ndirs,
                                pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    (void)requestor, (void)monitor, (void)error;
    bump(&n_monitor);
    check_ids("monitor", directives, ndirs);
    cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
    return PMIX_SUCCESS;
}

bool host_ops_mode(const char *m)
{
    return strncmp(m, "host-", 5) == 0 || strncmp(m, "no-", 3) == 0;
}

void host_ops_module(pmix_server_module_t *m, const char *md, const layout_t *l, const char *ns,
                     unsigned ngood)
{
    mode = md;
    L = l;
    nspace = ns;
    nclients = ngood;
    if (strcmp(md, "host-group") == 0)
        m->group = group;
    else if (strcmp(md, "host-cred") == 0) {
        m->get_credential = get_cred;
        m->validate_credential = validate_cred;
    } else if (strcmp(md, "host-alloc") == 0)
        m->allocate = allocate;
    else if (strcmp(md, "host-psets") == 0)
        m->log = log_upcall;
    else if (strcmp(md, "host-upcalls") == 0) {
        m->direct_modex = up_dmodex;
        m->spawn = up_spawn;
        m->log = up_log;
        m->job_control = up_jctrl;
        m->monitor = up_monitor;
    }
}

void host_ops_before_clients(void)
{
    if (strcmp(mode, "host-psets") == 0) {
        define_local("early");
        if (PMIx_server_define_process_set(NULL, 0, "early") != PMIX_EXISTS)
            OFAIL("defining a set twice was accepted");
    }
}

int host_ops_check(void)
{
    pthread_mutex_lock(&ops_lock);
    int n = (int)nclients, cons = n_construct, des = n_destruct, get = n_get_cred, val = n_valid,
        alloc = n_alloc, ready = n_ready;
    pthread_mutex_unlock(&ops_lock);
    if (strcmp(mode, "host-group") == 0 && (cons != 1 || des != 1))
        OFAIL("expected one construct and one destruct upcall (the local-only group stays "
              "here), got %d and %d",
              cons, des);
    if (strcmp(mode, "host-cred") == 0 && (get != n || val != 2 * n))
        OFAIL("expected %d get and %d validate upcalls, got %d and %d", n, 2 * n, get, val);
    if (strcmp(mode, "host-alloc") == 0 && alloc != n)
        OFAIL("expected %d allocate upcalls, got %d", n, alloc);
    if (strcmp(mode, "host-psets") == 0 && ready != n)
        OFAIL("expected %d ready messages, got %d", n, ready);
    pthread_mutex_lock(&ops_lock);
    int ups[] = {n_dmx, n_spawn, n_log, n_jctrl, n_monitor};
    pthread_mutex_unlock(&ops_lock);
    for (size_t i = 0; strcmp(mode, "host-upcalls") == 0 && i < sizeof ups / sizeof *ups; i++)
        if (ups[i] != n)
            OFAIL("upcall %zu (dmodex, spawn, log, job_control, monitor) came %d times, not %d", i,
                  ups[i], n);
    pthread_mutex_lock(&ops_lock);
    int f = failures;
    pthread_mutex_unlock(&ops_lock);
    return f;
}
