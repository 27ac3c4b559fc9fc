/* QUERY / LOG / JOB_CONTROL / MONITOR / SPAWN / ALLOC from clients, handed
 * to the host's query, log, job_control, monitor, spawn and allocate
 * upcalls with the requester's identity, and the infos Chap_API_Server.tex
 * says the library adds: PMIX_USERID and PMIX_GRPID to the directives of
 * LOG, JOB_CONTROL, MONITOR and ALLOC; those plus PMIX_SPAWNED,
 * PMIX_PARENT_ID and PMIX_REQUESTOR_IS_TOOL / _CLIENT to a spawn's job
 * info.  Queries go through server_query.c, which answers the library's
 * keys itself.
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
#include "common/info.h"
#include "server/server_internal.h"
#include "server/server_monitor.h"
#include "server/server_hostops.h"
#include "server/server_cleanup.h"
#include "server/server_msg.h"
#include "server/server_peer.h"
#include "server/server_query.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

typedef struct {
    sy_srv_req_t req; /* first; reply: results (SPAWN: the nspace) */
    sy_wire_msg_id_t id;
    union {
        sy_wire_query_req_t query;
        sy_wire_log_req_t log;
        sy_wire_job_control_req_t job_control;
        sy_wire_monitor_req_t monitor;
        sy_wire_spawn_req_t spawn;
        sy_wire_alloc_req_t alloc;
    } m;
    pmix_query_t *queries; /* QUERY: taken from m.query */
    size_t nqueries;
} hostop_req_t;

static void req_free(sy_srv_req_t *req)
{
    hostop_req_t *r = (hostop_req_t *)req;
    sy_wire_free(r->id, &r->m);
    if (r->queries != NULL)
        PMIX_QUERY_FREE(r->queries, r->nqueries);
    free(r);
}

/* The host started (or refused) the job: reply with its namespace. */
static const sy_srv_req_type_t hostop_type = {.name = "host operation", .free = req_free};

static void spawn_done(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    hostop_req_t *r = (hostop_req_t *)sy_srv_req_claim(cbdata);
    if (r == NULL)
        return;
    sy_wire_spawn_rep_t rep = {.nspace = status == PMIX_SUCCESS ? nspace : NULL};
    sy_srv_req_reply(&r->req, status, SY_WMSG_SPAWN_REP, &rep);
    sy_srv_req_post(&r->req);
}

/* Answers (n of them, or none when the status says so) as the reply,
 * whose one field is the results of every info-returning request. */
static void pack_infos(hostop_req_t *r, pmix_status_t status, const pmix_info_t *info, size_t n)
{
    pmix_info_t *results = (pmix_info_t *)info; /* only read */
    sy_wire_query_rep_t query = {.results = results, .nresults = n};
    sy_wire_job_control_rep_t job_control = {.results = results, .nresults = n};
    sy_wire_monitor_rep_t monitor = {.results = results, .nresults = n};
    sy_wire_alloc_rep_t alloc = {.results = results, .nresults = n};
    const void *rep = r->id == SY_WMSG_QUERY_REQ     ? (const void *)&query
                      : r->id == SY_WMSG_MONITOR_REQ ? (const void *)&monitor
                      : r->id == SY_WMSG_ALLOC_REQ   ? (const void *)&alloc
                                                     : (const void *)&job_control;
    sy_srv_req_reply(&r->req, status, sy_wire_reply_of(r->id), rep);
}

static void info_done(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                      pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    hostop_req_t *r = (hostop_req_t *)sy_srv_req_claim(cbdata);
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
    sy_srv_req_complete(&r->req, r->req.status);
}

/* The server went before the host answered the QUERY. */
static void query_gone(void *arg)
{
    hostop_req_t *r = arg;
    sy_srv_req_gone(&r->req);
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

static bool daemons_in(const pmix_info_t *info, size_t n)
{
    for (size_t i = 0; info != NULL && i < n; i++)
        if (sy_info_is(&info[i], PMIX_DEBUGGER_DAEMONS) && sy_info_true(&info[i]))
            return true;
    return false;
}

static pmix_status_t check_apps(const pmix_info_t *job_info, size_t ninfo, const pmix_app_t *apps,
                                size_t napps)
{
    long long total = 0;
    bool all_daemons = daemons_in(job_info, ninfo);
    for (size_t a = 0; a < napps; a++) {
        const pmix_app_t *app = &apps[a];
        const char *prog = app->cmd;
        if (prog == NULL || prog[0] == '\0')
            prog = app->argv != NULL ? app->argv[0] : NULL;
        if (prog == NULL || prog[0] == '\0')
            return PMIX_ERR_JOB_NO_EXE_SPECIFIED;
        /* debugger daemons are placed by the launcher (one per target
         * process by default, PMIX_DEBUG_DAEMONS_PER_*): no count needed */
        bool daemons = all_daemons || daemons_in(app->info, app->ninfo);
        if (app->maxprocs < (daemons ? 0 : 1))
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

/* The queries of the request as the pmix_query_t the library and the
 * host take (their keys and qualifiers moved out of the message). */
static pmix_status_t take_queries(hostop_req_t *r)
{
    sy_wire_query_req_t *q = &r->m.query;
    if (q->nqueries == 0)
        return PMIX_ERR_BAD_PARAM;
    PMIX_QUERY_CREATE(r->queries, q->nqueries);
    if (r->queries == NULL)
        return PMIX_ERR_NOMEM;
    r->nqueries = q->nqueries;
    for (size_t i = 0; i < q->nqueries; i++) {
        r->queries[i].keys = q->queries[i].keys;
        r->queries[i].qualifiers = q->queries[i].qualifiers;
        r->queries[i].nqual = q->queries[i].nqualifiers;
        q->queries[i].keys = NULL;
        q->queries[i].nkeys = 0;
        q->queries[i].qualifiers = NULL;
        q->queries[i].nqualifiers = 0;
    }
    return PMIX_SUCCESS;
}

static bool spawn_own_key(const pmix_info_t *i)
{
    return sy_info_is(i, PMIX_USERID) || sy_info_is(i, PMIX_GRPID) || sy_info_is(i, PMIX_SPAWNED) ||
           sy_info_is(i, PMIX_PARENT_ID) || sy_info_is(i, PMIX_REQUESTOR_IS_TOOL) ||
           sy_info_is(i, PMIX_REQUESTOR_IS_CLIENT);
}

/* The spawn's job info as the host gets it: the requester's, less what
 * only this library may say, then the requester's ids, that the job is
 * spawned, by whom, and whether by a tool or a client. */
static pmix_status_t spawn_infos(sy_wire_spawn_req_t *sp, const sy_srv_peer_t *peer)
{
    const sy_srv_client_t *c = peer->client;
    pmix_info_t *all;
    PMIX_INFO_CREATE(all, sp->njob_info + 6);
    if (all == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < sp->njob_info; i++)
        if (!spawn_own_key(&sp->job_info[i]))
            PMIx_Info_xfer(&all[k++], &sp->job_info[i]);
    uint32_t uid = (uint32_t)c->uid, gid = (uint32_t)c->gid;
    bool yes = true, tool = peer->tool != NULL, client = !tool;
    pmix_proc_t parent = peer->proc;
    PMIX_INFO_LOAD(&all[k++], PMIX_USERID, &uid, PMIX_UINT32);
    PMIX_INFO_LOAD(&all[k++], PMIX_GRPID, &gid, PMIX_UINT32);
    PMIX_INFO_LOAD(&all[k++], PMIX_SPAWNED, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&all[k++], PMIX_PARENT_ID, &parent, PMIX_PROC);
    PMIX_INFO_LOAD(&all[k++], PMIX_REQUESTOR_IS_TOOL, &tool, PMIX_BOOL);
    PMIX_INFO_LOAD(&all[k++], PMIX_REQUESTOR_IS_CLIENT, &client, PMIX_BOOL);
    if (sp->job_info != NULL)
        PMIX_INFO_FREE(sp->job_info, sp->njob_info);
    sp->job_info = all;
    sp->njob_info = k;
    return PMIX_SUCCESS;
}

static sy_wire_msg_id_t request_id(uint8_t cmd)
{
    switch (cmd) {
    case SY_CMD_QUERY: return SY_WMSG_QUERY_REQ;
    case SY_CMD_LOG: return SY_WMSG_LOG_REQ;
    case SY_CMD_MONITOR: return SY_WMSG_MONITOR_REQ;
    case SY_CMD_SPAWN: return SY_WMSG_SPAWN_REQ;
    case SY_CMD_ALLOC: return SY_WMSG_ALLOC_REQ;
    default: return SY_WMSG_JOB_CONTROL_REQ;
    }
}

void sy_srv_hostops_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    sy_srv_client_t *c = peer->client;
    pmix_server_module_t *m = &s->module;
    /* the library answers part of any query itself (server_query.c) */
    /* ... and cleanup registrations (server_cleanup.c) */
    bool have = cmd == SY_CMD_QUERY || cmd == SY_CMD_JOB_CONTROL ||
                (cmd == SY_CMD_LOG && m->log != NULL) ||
                (cmd == SY_CMD_ALLOC && m->allocate != NULL) ||
                (cmd == SY_CMD_MONITOR && (m->monitor != NULL || s->monitoring)) ||
                (cmd == SY_CMD_SPAWN && m->spawn != NULL);
    if (c == NULL || !have) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    hostop_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    sy_srv_req_init(&r->req, &hostop_type, peer, tag);
    r->id = request_id(cmd);
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, r->id, &r->m);
    if (rc == PMIX_SUCCESS && cmd == SY_CMD_QUERY) {
        rc = take_queries(r);
    } else if (rc == PMIX_SUCCESS && cmd == SY_CMD_ALLOC) {
        /* the client's infos, then its uid/gid */
        rc = sy_srv_add_ids(&r->m.alloc.info, &r->m.alloc.ninfo, c);
    } else if (rc == PMIX_SUCCESS && cmd == SY_CMD_SPAWN) {
        rc = r->m.spawn.napps == 0 ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
        if (rc == PMIX_SUCCESS &&
            (rc = check_apps(r->m.spawn.job_info, r->m.spawn.njob_info, r->m.spawn.apps,
                             r->m.spawn.napps)) != PMIX_SUCCESS) {
            sy_srv_req_complete(&r->req, rc); /* the caller's mistake, told as such */
            return;
        }
        if (rc == PMIX_SUCCESS)
            rc = spawn_infos(&r->m.spawn, peer);
    } else if (rc == PMIX_SUCCESS && cmd == SY_CMD_MONITOR && r->m.monitor.nmonitor != 1) {
        rc = PMIX_ERR_BAD_PARAM; /* the monitor request is one info */
    } else if (rc == PMIX_SUCCESS && cmd == SY_CMD_MONITOR) {
        /* PMIX_SERVER_ENABLE_MONITORING: heartbeats are ours to watch */
        pmix_status_t st = PMIX_SUCCESS;
        sy_wire_monitor_req_t *mr = &r->m.monitor;
        if (s->monitoring && sy_srv_monitor_take(&c->proc, mr->monitor, mr->error, mr->directives,
                                                 mr->ndirectives, &st)) {
            pack_infos(r, st, NULL, 0);
            sy_srv_req_complete(&r->req, st);
            return;
        }
        if (m->monitor == NULL) {
            sy_srv_req_complete(&r->req, PMIX_ERR_NOT_SUPPORTED);
            return;
        }
        rc = sy_srv_add_ids(&r->m.monitor.directives, &r->m.monitor.ndirectives, c);
    } else if (rc == PMIX_SUCCESS && cmd == SY_CMD_LOG) {
        rc = sy_srv_add_ids(&r->m.log.directives, &r->m.log.ndirectives, c);
    }
    if (rc != PMIX_SUCCESS) {
        sy_srv_req_complete(&r->req, rc == PMIX_ERR_BAD_PARAM || rc == PMIX_ERR_NOMEM
                                         ? rc
                                         : PMIX_ERR_UNPACK_FAILURE);
        return;
    }
    if (cmd == SY_CMD_JOB_CONTROL) {
        /* cleanup is ours to do; the host gets what is left, if anything */
        bool had = false;
        sy_wire_job_control_req_t *jc = &r->m.job_control;
        rc = sy_srv_cleanup_take(c, jc->targets, jc->ntargets, &jc->directives, &jc->ndirectives,
                                 &had);
        if (rc != PMIX_SUCCESS || (had && jc->ndirectives == 0) || m->job_control == NULL) {
            sy_srv_req_complete(&r->req, rc != PMIX_SUCCESS            ? rc
                                         : had && jc->ndirectives == 0 ? PMIX_SUCCESS
                                                                       : PMIX_ERR_NOT_SUPPORTED);
            return;
        }
        rc = sy_srv_add_ids(&jc->directives, &jc->ndirectives, c);
        if (rc != PMIX_SUCCESS) {
            sy_srv_req_complete(&r->req, rc);
            return;
        }
    }
    if (cmd == SY_CMD_LOG) {
        /* a void upcall: the outcome always comes through the callback */
        sy_wire_log_req_t *lg = &r->m.log;
        m->log(&c->proc, lg->data, lg->ndata, lg->directives, lg->ndirectives, sy_srv_req_op_done,
               sy_srv_req_ticket(&r->req));
        return;
    }
    if (cmd == SY_CMD_QUERY) {
        sy_srv_query(&c->proc, r->queries, r->nqueries, query_done, query_gone, r);
        return;
    }
    void *t = sy_srv_req_ticket(&r->req);
    if (cmd == SY_CMD_MONITOR)
        rc = m->monitor(&c->proc, r->m.monitor.monitor, r->m.monitor.error, r->m.monitor.directives,
                        r->m.monitor.ndirectives, info_done, t);
    else if (cmd == SY_CMD_SPAWN)
        rc = m->spawn(&c->proc, r->m.spawn.job_info, r->m.spawn.njob_info, r->m.spawn.apps,
                      r->m.spawn.napps, spawn_done, t);
    else if (cmd == SY_CMD_ALLOC)
        rc = m->allocate(&c->proc, r->m.alloc.directive, r->m.alloc.info, r->m.alloc.ninfo,
                         info_done, t);
    else
        rc =
            m->job_control(&c->proc, r->m.job_control.targets, r->m.job_control.ntargets,
                           r->m.job_control.directives, r->m.job_control.ndirectives, info_done, t);
    sy_srv_req_returned(&r->req, rc);
}
