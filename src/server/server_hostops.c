/* QUERY / LOG / JOB_CONTROL / MONITOR / SPAWN / ALLOC from clients, handed
 * to the host's query, log, job_control, monitor, spawn and allocate
 * upcalls with the requester's identity (ALLOC with PMIX_USERID and
 * PMIX_GRPID appended).  Queries go through server_query.c, which answers
 * the library's keys itself.
 * The host answers on any thread; its infos are packed in its callback
 * (valid only there), released, and the reply is sent from the loop. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/pack.h"
#include "common/wire.h"
#include "server/server_internal.h"

typedef struct {
    sy_srv_req_t req; /* first; reply: SIZE n, n INFO (SPAWN: the nspace) */
    pmix_info_t *info, *dirs;
    size_t ninfo, ndirs;
    pmix_proc_t *targets;
    size_t ntargets;
    pmix_query_t *queries;
    size_t nqueries;
    pmix_status_t error; /* MONITOR */
    pmix_app_t *apps;    /* SPAWN */
    size_t napps;
} hostop_req_t;

static void req_free(sy_srv_req_t *req)
{
    hostop_req_t *r = (hostop_req_t *)req;
    if (r->info != NULL)
        PMIX_INFO_FREE(r->info, r->ninfo);
    if (r->dirs != NULL)
        PMIX_INFO_FREE(r->dirs, r->ndirs);
    if (r->targets != NULL)
        PMIX_PROC_FREE(r->targets, r->ntargets);
    if (r->queries != NULL)
        PMIX_QUERY_FREE(r->queries, r->nqueries);
    if (r->apps != NULL)
        PMIX_APP_FREE(r->apps, r->napps);
    free(r);
}

/* The host started (or refused) the job: reply with its namespace. */
static void spawn_done(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    hostop_req_t *r = sy_srv_upcall_claim(cbdata);
    if (r == NULL)
        return;
    r->req.status = status;
    const char *ns = status == PMIX_SUCCESS ? nspace : NULL;
    if (sy_pack(&r->req.reply, &ns, 1, PMIX_STRING) != PMIX_SUCCESS)
        r->req.status = PMIX_ERR_NOMEM;
    sy_srv_req_post(&r->req);
}

/* Answers (n of them, or none when the status says so) as the reply. */
static void pack_infos(hostop_req_t *r, pmix_status_t status, const pmix_info_t *info, size_t n)
{
    r->req.status = status;
    pmix_status_t rc = sy_pack(&r->req.reply, &n, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && n > 0)
        rc = sy_pack(&r->req.reply, info, (int32_t)n, PMIX_INFO);
    if (rc != PMIX_SUCCESS) {
        sy_buffer_destruct(&r->req.reply);
        r->req.status = rc;
    }
}

static void info_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    hostop_req_t *r = sy_srv_upcall_claim(cbdata);
    if (r != NULL)
        pack_infos(r, status, info, info != NULL ? ninfo : 0);
    sy_srv_release_later(release_fn, release_cbdata);
    if (r != NULL)
        sy_srv_req_post(&r->req);
}

/* The merged answer of a QUERY (on the loop). */
static void query_done(pmix_status_t status, sy_infos_t *answers, void *arg)
{
    hostop_req_t *r = arg;
    bool none = status != PMIX_SUCCESS && status != PMIX_ERR_PARTIAL_SUCCESS;
    pack_infos(r, status, answers->info, none ? 0 : answers->n);
    sy_srv_req_finish(&r->req);
}

/* What the standard asks of a spawn request, checked before the host sees
 * it (where the program is and whether the job fits are the host's to
 * judge): every app names a program (cmd, else argv[0]:
 * PMIX_ERR_JOB_NO_EXE_SPECIFIED), asks for at least one process and no
 * more than an int's worth in all, and has sane argv and env (every env
 * entry NAME=VALUE with a name, argv and env together within what exec
 * takes): PMIX_ERR_BAD_PARAM. */
#define SY_SPAWN_MAX_ARGS (2u << 20) /* bytes of argv + env of one app */

static pmix_status_t strings_size(char **v, bool env, size_t *total)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++) {
        const char *eq = env ? strchr(v[i], '=') : NULL;
        if (env && (eq == NULL || eq == v[i]))
            return PMIX_ERR_BAD_PARAM;
        *total += strlen(v[i]) + 1 + sizeof(char *);
        if (*total > SY_SPAWN_MAX_ARGS)
            return PMIX_ERR_BAD_PARAM;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t check_apps(const pmix_app_t *apps, size_t napps)
{
    long long total = 0;
    for (size_t a = 0; a < napps; a++) {
        const pmix_app_t *app = &apps[a];
        const char *prog = app->cmd;
        if (prog == NULL || prog[0] == '\0')
            prog = app->argv != NULL ? app->argv[0] : NULL;
        if (prog == NULL || prog[0] == '\0')
            return PMIX_ERR_JOB_NO_EXE_SPECIFIED;
        if (app->maxprocs < 1)
            return PMIX_ERR_BAD_PARAM;
        total += app->maxprocs;
        if (total > INT_MAX)
            return PMIX_ERR_BAD_PARAM;
        size_t bytes = 0;
        pmix_status_t rc = strings_size(app->argv, false, &bytes);
        if (rc == PMIX_SUCCESS)
            rc = strings_size(app->env, true, &bytes);
        if (rc != PMIX_SUCCESS)
            return rc;
    }
    return PMIX_SUCCESS;
}

static pmix_status_t unpack_queries(pmix_data_buffer_t *b, hostop_req_t *r)
{
    pmix_status_t rc = sy_srv_unpack_count(b, &r->nqueries);
    if (rc != PMIX_SUCCESS)
        return rc;
    if (r->nqueries == 0)
        return PMIX_ERR_BAD_PARAM;
    PMIX_QUERY_CREATE(r->queries, r->nqueries);
    if (r->queries == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t q = 0; q < r->nqueries && rc == PMIX_SUCCESS; q++) {
        size_t nk = 0;
        rc = sy_srv_unpack_count(b, &nk);
        if (rc == PMIX_SUCCESS) {
            r->queries[q].keys = calloc(nk + 1, sizeof(char *));
            if (r->queries[q].keys == NULL)
                rc = PMIX_ERR_NOMEM;
        }
        if (rc == PMIX_SUCCESS && nk > 0) {
            int32_t cnt = (int32_t)nk;
            rc = sy_unpack(b, r->queries[q].keys, &cnt, PMIX_STRING);
        }
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_unpack_infos(b, &r->queries[q].qualifiers, &r->queries[q].nqual);
    }
    return rc;
}

void sy_srv_hostops_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    sy_srv_client_t *c = peer->client;
    pmix_server_module_t *m = &s->module;
    /* the library answers part of any query itself (server_query.c) */
    /* ... and cleanup registrations (server_cleanup.c) */
    bool have =
        cmd == SY_CMD_QUERY || cmd == SY_CMD_JOB_CONTROL || (cmd == SY_CMD_LOG && m->log != NULL) ||
        (cmd == SY_CMD_ALLOC && m->allocate != NULL) ||
        (cmd == SY_CMD_MONITOR && m->monitor != NULL) || (cmd == SY_CMD_SPAWN && m->spawn != NULL);
    if (c == NULL || !have) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    hostop_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    sy_srv_req_init(&r->req, peer, tag, req_free);
    pmix_status_t rc;
    uint8_t directive = 0;
    if (cmd == SY_CMD_QUERY) {
        rc = unpack_queries(b, r);
    } else if (cmd == SY_CMD_ALLOC) {
        /* the directive, then the client's infos and its uid/gid */
        int32_t one = 1;
        rc = sy_unpack(b, &directive, &one, PMIX_UINT8);
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_unpack_infos(b, &r->info, &r->ninfo);
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_add_ids(&r->info, &r->ninfo, c);
    } else if (cmd == SY_CMD_LOG) {
        rc = sy_srv_unpack_infos(b, &r->info, &r->ninfo);
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_unpack_infos(b, &r->dirs, &r->ndirs);
    } else if (cmd == SY_CMD_SPAWN) {
        /* job info, then the apps */
        rc = sy_srv_unpack_infos(b, &r->info, &r->ninfo);
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_unpack_count(b, &r->napps);
        if (rc == PMIX_SUCCESS && r->napps == 0)
            rc = PMIX_ERR_BAD_PARAM;
        if (rc == PMIX_SUCCESS) {
            PMIX_APP_CREATE(r->apps, r->napps);
            int32_t cnt = (int32_t)r->napps;
            rc = r->apps == NULL ? PMIX_ERR_NOMEM : sy_unpack(b, r->apps, &cnt, PMIX_APP);
        }
        if (rc == PMIX_SUCCESS && (rc = check_apps(r->apps, r->napps)) != PMIX_SUCCESS) {
            r->req.status = rc; /* the caller's mistake, told as such */
            sy_srv_req_finish(&r->req);
            return;
        }
    } else if (cmd == SY_CMD_MONITOR) {
        /* the monitor request (one info), the error code, directives */
        rc = sy_srv_unpack_infos(b, &r->info, &r->ninfo);
        int32_t one = 1;
        if (rc == PMIX_SUCCESS && r->ninfo != 1)
            rc = PMIX_ERR_BAD_PARAM;
        if (rc == PMIX_SUCCESS)
            rc = sy_unpack(b, &r->error, &one, PMIX_STATUS);
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_unpack_infos(b, &r->dirs, &r->ndirs);
    } else {
        rc = sy_srv_unpack_count(b, &r->ntargets);
        if (rc == PMIX_SUCCESS && r->ntargets > 0) {
            PMIX_PROC_CREATE(r->targets, r->ntargets);
            int32_t cnt = (int32_t)r->ntargets;
            rc = r->targets == NULL ? PMIX_ERR_NOMEM : sy_unpack(b, r->targets, &cnt, PMIX_PROC);
        }
        if (rc == PMIX_SUCCESS)
            rc = sy_srv_unpack_infos(b, &r->dirs, &r->ndirs);
    }
    if (rc != PMIX_SUCCESS) {
        r->req.status = rc == PMIX_ERR_BAD_PARAM ? rc : PMIX_ERR_UNPACK_FAILURE;
        sy_srv_req_finish(&r->req);
        return;
    }
    if (cmd == SY_CMD_JOB_CONTROL) {
        /* cleanup is ours to do; the host gets what is left, if anything */
        bool had = false;
        rc = sy_srv_cleanup_take(c, r->targets, r->ntargets, &r->dirs, &r->ndirs, &had);
        if (rc != PMIX_SUCCESS || (had && r->ndirs == 0) || m->job_control == NULL) {
            r->req.status = rc != PMIX_SUCCESS     ? rc
                            : had && r->ndirs == 0 ? PMIX_SUCCESS
                                                   : PMIX_ERR_NOT_SUPPORTED;
            sy_srv_req_finish(&r->req);
            return;
        }
    }
    if (cmd == SY_CMD_LOG) {
        /* a void upcall: the outcome always comes through the callback */
        m->log(&c->proc, r->info, r->ninfo, r->dirs, r->ndirs, sy_srv_req_op_done,
               sy_srv_req_ticket(&r->req));
        return;
    }
    if (cmd == SY_CMD_QUERY) {
        sy_srv_query(&c->proc, r->queries, r->nqueries, query_done, r);
        return;
    }
    void *t = sy_srv_req_ticket(&r->req);
    if (cmd == SY_CMD_MONITOR)
        rc = m->monitor(&c->proc, r->info, r->error, r->dirs, r->ndirs, info_done, t);
    else if (cmd == SY_CMD_SPAWN)
        rc = m->spawn(&c->proc, r->info, r->ninfo, r->apps, r->napps, spawn_done, t);
    else if (cmd == SY_CMD_ALLOC)
        rc = m->allocate(&c->proc, directive, r->info, r->ninfo, info_done, t);
    else
        rc = m->job_control(&c->proc, r->targets, r->ntargets, r->dirs, r->ndirs, info_done, t);
    if (sy_srv_upcall_returned(&r->req.up, rc)) {
        r->req.status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        sy_srv_req_finish(&r->req);
    }
}
