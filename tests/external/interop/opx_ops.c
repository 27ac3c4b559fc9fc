/* An OpenPMIx client for tests/external/interop.sh: the less common
 * client->server commands, each printed as "ok <rank> <what>" or
 * "FAIL <rank> <what>: <status>".  Modes (argv[1]):
 *   connect  PMIx_Connect / PMIx_Disconnect of the whole job;
 *   spawn    rank 0 spawns 2 of this program ("child"), and the parent job
 *            and the children connect: each side then reads the other's
 *            job size, which only the connect's job data tells it, and
 *            after the disconnect no longer has it (PMIX_OPTIONAL);
 *   spawnsize  rank 0 spawns 2 of this program (idle: init and finalize)
 *            and reads the new job's size at once, before any connect: the
 *            spawn's reply brings it;
 *   invite   rank 0 invites the whole job to a group, the others join;
 *   grpinfo  a group of the whole job with a context id, each member
 *            giving PMIX_GROUP_LOCAL_CID 500 + rank in PMIX_GROUP_INFO;
 *            after the destruct, every member's value read back by the
 *            context id (Open MPI 5's communicator path);
 *   ops      allocation, monitor + heartbeat, credential get/validate,
 *            group construct/destruct, IOF pull (rank 0, of the last
 *            rank's stdout) and push (to rank 0's stdin: switchyard-run
 *            --stdin tools), fabric
 *            register/update. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

static pmix_proc_t me;

static void report(const char *what, pmix_status_t rc, pmix_status_t want)
{
    if (rc == want)
        printf("ok %u %s\n", me.rank, what);
    else
        printf("FAIL %u %s: %s\n", me.rank, what, PMIx_Error_string(rc));
    fflush(stdout);
}

static uint32_t job_size_of(const char *nspace)
{
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&wild, nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS || v == NULL)
        return 0;
    uint32_t n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return n;
}

static void connect_job(void)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    report("connect", PMIx_Connect(&all, 1, NULL, 0), PMIX_SUCCESS);
    report("disconnect", PMIx_Disconnect(&all, 1, NULL, 0), PMIX_SUCCESS);
}

/* parent: the other job is the spawned one; child: its parent's */
static void connect_jobs(const char *mine, const char *other)
{
    pmix_proc_t both[2];
    PMIX_LOAD_PROCID(&both[0], mine, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&both[1], other, PMIX_RANK_WILDCARD);
    report("connect jobs", PMIx_Connect(both, 2, NULL, 0), PMIX_SUCCESS);
    uint32_t n = job_size_of(other);
    printf("%s %u other job size %u\n", n > 0 ? "ok" : "FAIL", me.rank, n);
    report("disconnect jobs", PMIx_Disconnect(both, 2, NULL, 0), PMIX_SUCCESS);
    /* what the connect brought is gone with the disconnect (OpenPMIx's
     * client drops the other namespace); PMIX_OPTIONAL: nothing asked */
    pmix_proc_t wild;
    pmix_value_t *v = NULL;
    pmix_info_t opt;
    bool t = true;
    PMIX_LOAD_PROCID(&wild, other, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &t, PMIX_BOOL);
    report("other job forgotten", PMIx_Get(&wild, PMIX_JOB_SIZE, &opt, 1, &v), PMIX_ERR_NOT_FOUND);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
}

static void spawn_and_connect(const char *self)
{
    char nspace[PMIX_MAX_NSLEN + 1] = "";
    if (me.rank == 0) {
        pmix_app_t app;
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = strdup(self);
        app.argv = calloc(3, sizeof(char *));
        app.argv[0] = strdup(self);
        app.argv[1] = strdup("child");
        app.maxprocs = 2;
        pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, nspace);
        report("spawn", rc, PMIX_SUCCESS);
        PMIX_APP_DESTRUCT(&app);
    }
    /* rank 0 tells the others the child namespace through put/fence */
    pmix_value_t val, *v = NULL;
    pmix_proc_t wild, zero;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&zero, me.nspace, 0);
    if (me.rank == 0) {
        val.type = PMIX_STRING;
        val.data.string = nspace;
        PMIx_Put(PMIX_GLOBAL, "interop.child", &val);
    }
    PMIx_Commit();
    pmix_info_t collect;
    bool t = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &t, PMIX_BOOL);
    PMIx_Fence(&wild, 1, &collect, 1);
    if (PMIx_Get(&zero, "interop.child", NULL, 0, &v) == PMIX_SUCCESS && v != NULL) {
        PMIX_LOAD_NSPACE(nspace, v->data.string);
        PMIX_VALUE_RELEASE(v);
    }
    connect_jobs(me.nspace, nspace);
}

static void spawn_size(const char *self)
{
    if (me.rank != 0)
        return;
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = calloc(3, sizeof(char *));
    app.argv[0] = strdup(self);
    app.argv[1] = strdup("idle");
    app.maxprocs = 2;
    char nspace[PMIX_MAX_NSLEN + 1] = "";
    report("spawn", PMIx_Spawn(NULL, 0, &app, 1, nspace), PMIX_SUCCESS);
    PMIX_APP_DESTRUCT(&app);
    uint32_t n = job_size_of(nspace);
    printf("%s %u spawned job size %u\n", n == 2 ? "ok" : "FAIL", me.rank, n);
}

static void child(void)
{
    /* of its own rank, as Open MPI asks: not in what a client is given at
     * init (it is job-level data), so the client asks its server */
    pmix_value_t *v = NULL;
    if (PMIx_Get(&me, PMIX_PARENT_ID, NULL, 0, &v) != PMIX_SUCCESS || v == NULL) {
        printf("FAIL %u child without PMIX_PARENT_ID\n", me.rank);
        return;
    }
    char parent[PMIX_MAX_NSLEN + 1];
    PMIX_LOAD_NSPACE(parent, v->data.proc->nspace);
    PMIX_VALUE_RELEASE(v);
    connect_jobs(me.nspace, parent);
}

static volatile int got_output;

static void on_output(size_t ref, pmix_iof_channel_t channel, pmix_proc_t *source,
                      pmix_byte_object_t *payload, pmix_info_t info[], size_t ninfo)
{
    (void)ref, (void)channel, (void)source, (void)info, (void)ninfo;
    if (payload != NULL && payload->bytes != NULL &&
        memmem(payload->bytes, payload->size, "interop output of the last rank", 31) != NULL)
        __atomic_store_n(&got_output, 1, __ATOMIC_SEQ_CST);
}

static uint32_t nprocs;

static void fence_all(void)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    PMIx_Fence(&all, 1, NULL, 0);
}

static volatile int pushed;
static pmix_status_t push_status;

static void push_done(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    push_status = status;
    __atomic_store_n(&pushed, 2, __ATOMIC_SEQ_CST);
}

/* invite: 4.2.2's client invites and joins with events alone (NOTIFY of
 * PMIX_GROUP_INVITED to the invitees, their PMIX_GROUP_INVITE_ACCEPTED
 * back to the leader): rank 0 invites every rank, the others accept */
static volatile int invited;

static void on_invite(size_t id, pmix_status_t status, const pmix_proc_t *source,
                      pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                      pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)id, (void)status, (void)info, (void)ninfo, (void)results, (void)nresults;
    if (source->rank != me.rank) {
        report("group join",
               PMIx_Group_join_nb("interop-inv", source, PMIX_GROUP_ACCEPT, NULL, 0, NULL, NULL),
               PMIX_SUCCESS);
        __atomic_store_n(&invited, 1, __ATOMIC_SEQ_CST);
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void invite(void)
{
    pmix_status_t code = PMIX_GROUP_INVITED;
    PMIx_Register_event_handler(&code, 1, NULL, 0, on_invite, NULL, NULL);
    nprocs = job_size_of(me.nspace);
    fence_all(); /* every handler is in place */
    if (me.rank == 0) {
        pmix_proc_t all;
        PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
        pmix_info_t *res = NULL;
        size_t nres = 0;
        report("group invite accepted by all",
               PMIx_Group_invite("interop-inv", &all, 1, NULL, 0, &res, &nres), PMIX_SUCCESS);
        if (res != NULL)
            PMIX_INFO_FREE(res, nres);
    } else {
        /* bounded: a lost invitation fails the check instead of hanging */
        for (int i = 0; i < 20000 && !__atomic_load_n(&invited, __ATOMIC_SEQ_CST); i++)
            usleep(1000);
        report("invited", __atomic_load_n(&invited, __ATOMIC_SEQ_CST) ? 0 : PMIX_ERR_TIMEOUT,
               PMIX_SUCCESS);
    }
    fence_all();
}

static void ops(void)
{
    pmix_info_t *res = NULL;
    size_t nres = 0;
    pmix_status_t rc;
    char what[128];
    nprocs = job_size_of(me.nspace);

    /* an allocation request without amounts: this node's resources */
    rc = PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, &res, &nres);
    report("allocation request answered with results", rc == PMIX_SUCCESS && nres > 0 ? 0 : rc,
           PMIX_SUCCESS);
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);

    /* a heartbeat monitor, a beat (one-way), then its cancellation: the
     * host still knows the monitor, and the connection survived the beat */
    pmix_info_t mon, dirs[2];
    uint32_t secs = 30;
    bool t = true;
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_HEARTBEAT, &t, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &secs, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_ID, "interop", PMIX_STRING);
    rc = PMIx_Process_monitor(&mon, PMIX_MONITOR_HEARTBEAT_ALERT, dirs, 2, &res, &nres);
    report("monitor heartbeat", rc, PMIX_SUCCESS);
    PMIx_Heartbeat();
    PMIX_INFO_LOAD(&mon, PMIX_MONITOR_CANCEL, "interop", PMIX_STRING);
    rc = PMIx_Process_monitor(&mon, PMIX_SUCCESS, NULL, 0, &res, &nres);
    report("monitor cancelled after a heartbeat", rc, PMIX_SUCCESS);

    /* a credential from the server, and its validation */
    pmix_byte_object_t cred = {0};
    rc = PMIx_Get_credential(NULL, 0, &cred);
    report("get credential", rc == PMIX_SUCCESS && cred.size > 0 ? 0 : rc, PMIX_SUCCESS);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Validate_credential(&cred, NULL, 0, &res, &nres);
        report("validate credential", rc, PMIX_SUCCESS);
        if (res != NULL)
            PMIX_INFO_FREE(res, nres);
        cred.bytes[cred.size / 2] ^= 0x5a; /* tampered */
        rc = PMIx_Validate_credential(&cred, NULL, 0, &res, &nres);
        report("tampered credential refused", rc != PMIX_SUCCESS ? 0 : -1, PMIX_SUCCESS);
        if (res != NULL)
            PMIX_INFO_FREE(res, nres);
        free(cred.bytes);
    }

    /* a group of the whole job, with a context id */
    pmix_proc_t all;
    pmix_info_t ctx;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&ctx, PMIX_GROUP_ASSIGN_CONTEXT_ID, &t, PMIX_BOOL);
    res = NULL;
    nres = 0;
    rc = PMIx_Group_construct("interop-grp", &all, 1, &ctx, 1, &res, &nres);
    size_t cid = SIZE_MAX;
    for (size_t i = 0; i < nres; i++)
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID))
            cid = res[i].value.data.size;
    snprintf(what, sizeof(what), "group construct (context id %s)",
             cid != SIZE_MAX ? "given" : "missing");
    report(what, rc == PMIX_SUCCESS && cid == SIZE_MAX ? -1 : rc, PMIX_SUCCESS);
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    rc = PMIx_Group_destruct("interop-grp", NULL, 0);
    report("group destruct", rc, PMIX_SUCCESS);

    /* IOF: the last rank's stdout, pulled by rank 0 (tag 2 brings it,
     * under rank 0's own id for the registration), then deregistered */
    pmix_proc_t last;
    PMIX_LOAD_PROCID(&last, me.nspace, nprocs - 1);
    size_t iofref = SIZE_MAX;
    if (me.rank == 0) {
        /* a copy: the launcher prints the last rank's output too */
        pmix_info_t copy;
        PMIX_INFO_LOAD(&copy, PMIX_IOF_COPY, &t, PMIX_BOOL);
        rc = PMIx_IOF_pull(&last, 1, &copy, 1, PMIX_FWD_STDOUT_CHANNEL, on_output, NULL, NULL);
        report("iof pull", rc >= 0 ? 0 : rc, PMIX_SUCCESS);
        if (rc >= 0)
            iofref = (size_t)rc;
    }
    fence_all();
    if (me.rank == nprocs - 1) {
        printf("interop output of the last rank\n");
        fflush(stdout);
    }
    if (me.rank == 0 && iofref != SIZE_MAX) {
        /* bounded: a lost line fails the check instead of hanging */
        for (int i = 0; i < 20000 && !__atomic_load_n(&got_output, __ATOMIC_SEQ_CST); i++)
            usleep(1000);
        report("iof pull brought the last rank's line",
               __atomic_load_n(&got_output, __ATOMIC_SEQ_CST) ? 0 : PMIX_ERR_TIMEOUT, PMIX_SUCCESS);
        /* with a callback, as the push below: 4.2.2's blocking form
         * releases its wait object in the reply's handler too */
        pushed = 1;
        rc = PMIx_IOF_deregister(iofref, NULL, 0, push_done, NULL);
        if (rc == PMIX_SUCCESS)
            while (__atomic_load_n(&pushed, __ATOMIC_SEQ_CST) == 1)
                usleep(1000);
        report("iof deregister", rc == PMIX_SUCCESS ? push_status : rc, PMIX_SUCCESS);
    }
    if (me.rank == 0) {
        pmix_proc_t zero;
        pmix_info_t done;
        char line[64] = "interop stdin\n";
        pmix_byte_object_t bo = {.bytes = line, .size = strlen(line)};
        PMIX_LOAD_PROCID(&zero, me.nspace, 0);
        PMIX_INFO_LOAD(&done, PMIX_IOF_COMPLETE, &t, PMIX_BOOL);
        /* with a callback: 4.2.2's blocking form frees its wait object in
         * the reply's handler and can hang when the reply comes first
         * (likewise its blocking IOF deregistration) */
        pushed = 1;
        rc = PMIx_IOF_push(&zero, 1, &bo, &done, 1, push_done, NULL);
        if (rc == PMIX_SUCCESS)
            while (__atomic_load_n(&pushed, __ATOMIC_SEQ_CST) == 1)
                usleep(1000);
        if (rc == PMIX_SUCCESS)
            rc = push_status;
        report("iof push", rc, PMIX_SUCCESS);
        memset(line, 0, sizeof(line));
        if (rc == PMIX_SUCCESS && fgets(line, sizeof(line), stdin) != NULL &&
            strcmp(line, "interop stdin\n") == 0)
            report("iof push reached stdin", PMIX_SUCCESS, PMIX_SUCCESS);
        else
            report("iof push reached stdin", PMIX_ERR_NOT_FOUND, PMIX_SUCCESS);
    }

    /* fabric: the launcher's (switchyard-run --fabric), its index updated */
    pmix_fabric_t fab;
    PMIX_FABRIC_CONSTRUCT(&fab);
    rc = PMIx_Fabric_register(&fab, NULL, 0);
    report("fabric register", rc == PMIX_SUCCESS && fab.ninfo > 0 ? 0 : rc, PMIX_SUCCESS);
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Fabric_update(&fab);
        report("fabric update", rc, PMIX_SUCCESS);
        PMIx_Fabric_deregister(&fab);
    }
}

static void group_info(void)
{
    uint32_t n = job_size_of(me.nspace);
    pmix_proc_t *procs = calloc(n ? n : 1, sizeof(*procs));
    if (n == 0 || procs == NULL) {
        report("grpinfo job size", PMIX_ERR_NOT_FOUND, PMIX_SUCCESS);
        free(procs);
        return;
    }
    for (uint32_t r = 0; r < n; r++)
        PMIX_LOAD_PROCID(&procs[r], me.nspace, r);
    size_t lcid = 500 + me.rank;
    pmix_info_t el;
    PMIX_INFO_LOAD(&el, PMIX_GROUP_LOCAL_CID, &lcid, PMIX_SIZE);
    pmix_data_array_t da = {.type = PMIX_INFO, .size = 1, .array = &el};
    pmix_info_t dirs[2];
    PMIX_INFO_LOAD(&dirs[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_GROUP_INFO, &da, PMIX_DATA_ARRAY);
    pmix_info_t *res = NULL;
    size_t nres = 0, cid = 0;
    pmix_status_t rc = PMIx_Group_construct("ifogrp", procs, n, dirs, 2, &res, &nres);
    bool got_cid = false;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nres; i++)
        if (PMIX_CHECK_KEY(&res[i], PMIX_GROUP_CONTEXT_ID) && res[i].value.type == PMIX_SIZE) {
            cid = res[i].value.data.size;
            got_cid = true;
        }
    report("grpinfo construct with a context id",
           rc == PMIX_SUCCESS && !got_cid ? PMIX_ERR_NOT_FOUND : rc, PMIX_SUCCESS);
    if (res != NULL)
        PMIX_INFO_FREE(res, nres);
    free(procs);
    if (!got_cid)
        return;
    PMIx_Group_destruct("ifogrp", NULL, 0);
    pmix_info_t q;
    PMIX_INFO_LOAD(&q, PMIX_GROUP_CONTEXT_ID, &cid, PMIX_SIZE);
    PMIX_INFO_SET_QUALIFIER(&q);
    for (uint32_t r = 0; r < n; r++) {
        pmix_proc_t p;
        pmix_value_t *v = NULL;
        char what[64];
        PMIX_LOAD_PROCID(&p, me.nspace, r);
        rc = PMIx_Get(&p, PMIX_GROUP_LOCAL_CID, &q, 1, &v);
        if (rc == PMIX_SUCCESS && (v == NULL || v->type != PMIX_SIZE || v->data.size != 500 + r))
            rc = PMIX_ERR_BAD_PARAM;
        if (v != NULL)
            PMIX_VALUE_RELEASE(v);
        snprintf(what, sizeof(what), "grpinfo LOCAL_CID of rank %u", r);
        report(what, rc, PMIX_SUCCESS);
    }
}

int main(int argc, char **argv)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    const char *mode = argc > 1 ? argv[1] : "ops";
    if (strcmp(mode, "connect") == 0)
        connect_job();
    else if (strcmp(mode, "spawn") == 0)
        spawn_and_connect(argv[0]);
    else if (strcmp(mode, "spawnsize") == 0)
        spawn_size(argv[0]);
    else if (strcmp(mode, "idle") == 0)
        ;
    else if (strcmp(mode, "child") == 0)
        child();
    else if (strcmp(mode, "invite") == 0)
        invite();
    else if (strcmp(mode, "grpinfo") == 0)
        group_info();
    else
        ops();
    rc = PMIx_Finalize(NULL, 0);
    report("finalize", rc, PMIX_SUCCESS);
    return 0;
}
