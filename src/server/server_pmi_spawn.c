/* Spawn over the PMI wire (PMI-1 mcmd=spawn, PMI-2 spawn): the commands
 * become pmix_app_t's and go to the host's spawn upcall with the job infos
 * a PMIx_Spawn of a client carries (server_hostops.c adds the same).  The
 * preput pairs become the spawning process's own data, which the
 * children's PMI gets find through their job's PMIX_PARENT_ID, as our
 * libpmi does for PMIx children. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/log.h"
#include "common/store.h"
#include "server/server_internal.h"
#include "server/server_pmi.h"
#include "server/server_registry.h"
#include "server/server_upcall.h"

typedef struct {
    sy_srv_req_t req; /* first: the library's own, no peer to answer */
    unsigned long serial;
    sy_pmi_spawn_done_fn done;
    sy_pmi_spawn_t *sp;
    pmix_info_t *info;
    size_t ninfo;
    char nspace[PMIX_MAX_NSLEN + 1];
} spawn_req_t;

void sy_pmi_spawn_free(sy_pmi_spawn_t *sp)
{
    if (sp == NULL)
        return;
    if (sp->apps != NULL)
        PMIX_APP_FREE(sp->apps, sp->napps);
    for (size_t i = 0; i < sp->npre; i++) {
        free(sp->pre_keys[i]);
        free(sp->pre_vals[i]);
    }
    free(sp->pre_keys);
    free(sp->pre_vals);
    free(sp->thrid);
    free(sp);
}

static void req_free(sy_srv_req_t *req)
{
    spawn_req_t *r = (spawn_req_t *)req;
    sy_pmi_spawn_free(r->sp);
    if (r->info != NULL)
        PMIX_INFO_FREE(r->info, r->ninfo);
    free(r);
}

static void req_done(sy_srv_req_t *req)
{
    spawn_req_t *r = (spawn_req_t *)req;
    sy_pmi_conn_t *c = sy_pmi_conn_by_serial(r->serial);
    pmix_status_t st = req->status;
    if (st == PMIX_SUCCESS && r->nspace[0] == '\0')
        st = PMIX_ERR_BAD_PARAM; /* "done" without the new job's name */
    if (c != NULL)
        r->done(c, r->sp, st, st == PMIX_SUCCESS ? r->nspace : NULL);
}

static const sy_srv_req_type_t spawn_type = {
    .name = "PMI spawn", .done = req_done, .free = req_free};

static void spawn_cb(pmix_status_t status, pmix_nspace_t nspace, void *cbdata)
{
    spawn_req_t *r = (spawn_req_t *)sy_srv_req_claim(cbdata);
    if (r == NULL)
        return;
    r->req.status = status;
    if (status == PMIX_SUCCESS && nspace != NULL)
        PMIX_LOAD_NSPACE(r->nspace, nspace);
    sy_srv_req_post(&r->req);
}

/* What a client's PMIx_Spawn tells the host besides its own infos. */
static pmix_status_t job_infos(const sy_pmi_conn_t *c, pmix_info_t **out, size_t *nout)
{
    const sy_srv_client_t *cl = sy_srv_client_find(sy_srv, &c->proc);
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, 6);
    if (info == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    bool yes = true, no = false;
    if (cl != NULL) {
        uint32_t uid = (uint32_t)cl->uid, gid = (uint32_t)cl->gid;
        PMIX_INFO_LOAD(&info[k++], PMIX_USERID, &uid, PMIX_UINT32);
        PMIX_INFO_LOAD(&info[k++], PMIX_GRPID, &gid, PMIX_UINT32);
    }
    PMIX_INFO_LOAD(&info[k++], PMIX_SPAWNED, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[k++], PMIX_PARENT_ID, &c->proc, PMIX_PROC);
    PMIX_INFO_LOAD(&info[k++], PMIX_REQUESTOR_IS_TOOL, &no, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[k++], PMIX_REQUESTOR_IS_CLIENT, &yes, PMIX_BOOL);
    *out = info;
    *nout = k;
    return PMIX_SUCCESS;
}

static pmix_status_t check(const sy_pmi_spawn_t *sp)
{
    if (sp->napps == 0)
        return PMIX_ERR_BAD_PARAM;
    for (size_t a = 0; a < sp->napps; a++) {
        if (sp->apps[a].cmd == NULL || sp->apps[a].cmd[0] == '\0')
            return PMIX_ERR_JOB_NO_EXE_SPECIFIED;
        if (sp->apps[a].maxprocs < 1)
            return PMIX_ERR_BAD_PARAM;
    }
    return PMIX_SUCCESS;
}

void sy_pmi_spawn(sy_pmi_conn_t *c, sy_pmi_spawn_t *sp, sy_pmi_spawn_done_fn done)
{
    pmix_status_t rc = check(sp);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < sp->npre; i++)
        if (!sy_pmi_kvs_put(c, sp->pre_keys[i], sp->pre_vals[i]))
            rc = PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS && sy_srv->module.spawn == NULL)
        rc = PMIX_ERR_NOT_SUPPORTED;
    spawn_req_t *r = rc == PMIX_SUCCESS ? calloc(1, sizeof(*r)) : NULL;
    if (r == NULL) {
        done(c, sp, rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM, NULL);
        sy_pmi_spawn_free(sp);
        return;
    }
    sy_srv_req_init(&r->req, &spawn_type, NULL, 0);
    r->serial = c->serial;
    r->done = done;
    r->sp = sp;
    if ((rc = job_infos(c, &r->info, &r->ninfo)) != PMIX_SUCCESS) {
        sy_srv_req_complete(&r->req, rc);
        return;
    }
    sy_log(SY_LOG_DEBUG, "pmi: %s.%u spawns %zu command(s)", c->proc.nspace, c->proc.rank,
           sp->napps);
    rc = sy_srv->module.spawn(&c->proc, r->info, r->ninfo, sp->apps, sp->napps, spawn_cb,
                              sy_srv_req_ticket(&r->req));
    sy_srv_req_returned(&r->req, rc);
}

bool sy_pmi_parent(const char *nspace, pmix_proc_t *parent)
{
    pmix_proc_t job;
    pmix_value_t *v = NULL;
    PMIX_LOAD_PROCID(&job, nspace, PMIX_RANK_WILDCARD);
    if (sy_store_get(&job, PMIX_PARENT_ID, NULL, 0, &v) != PMIX_SUCCESS || v == NULL)
        return false;
    bool ok = v->type == PMIX_PROC && v->data.proc != NULL;
    if (ok)
        *parent = *v->data.proc;
    PMIX_VALUE_RELEASE(v);
    return ok;
}

/* ---- building a spawn, for the parsers of server_pmi1.c and server_pmi2.c ---- */

sy_pmi_spawn_t *sy_pmi_spawn_new(void)
{
    return calloc(1, sizeof(sy_pmi_spawn_t));
}

pmix_app_t *sy_pmi_spawn_add_app(sy_pmi_spawn_t *sp, const char *cmd, int maxprocs)
{
    pmix_app_t *apps = realloc(sp->apps, (sp->napps + 1) * sizeof(*apps));
    if (apps == NULL)
        return NULL;
    sp->apps = apps;
    pmix_app_t *app = &apps[sp->napps++];
    memset(app, 0, sizeof(*app));
    app->maxprocs = maxprocs;
    app->cmd = strdup(cmd);
    app->argv = calloc(2, sizeof(char *));
    if (app->cmd == NULL || app->argv == NULL || (app->argv[0] = strdup(cmd)) == NULL)
        return NULL; /* freed with the rest */
    return app;
}

bool sy_pmi_spawn_add_arg(pmix_app_t *app, const char *arg)
{
    size_t n = 0;
    while (app->argv[n] != NULL)
        n++;
    char **argv = realloc(app->argv, (n + 2) * sizeof(char *));
    if (argv == NULL)
        return false;
    app->argv = argv;
    argv[n + 1] = NULL;
    return (argv[n] = strdup(arg)) != NULL;
}

/* PMI's standard info keys (what hydra honours); others mean nothing to
 * PMIx and are ignored. */
bool sy_pmi_spawn_add_info(pmix_app_t *app, const char *key, const char *val)
{
    const char *attr = NULL;
    if (strcmp(key, "wdir") == 0) {
        free(app->cwd);
        return (app->cwd = strdup(val)) != NULL;
    }
    if (strcmp(key, "host") == 0 || strcmp(key, "hosts") == 0)
        attr = PMIX_HOST;
    else if (strcmp(key, "hostfile") == 0)
        attr = PMIX_HOSTFILE;
    else if (strcmp(key, "path") == 0)
        attr = PMIX_PREFIX;
    if (attr == NULL)
        return true;
    pmix_info_t *info = realloc(app->info, (app->ninfo + 1) * sizeof(*info));
    if (info == NULL)
        return false;
    app->info = info;
    PMIX_INFO_LOAD(&info[app->ninfo], attr, val, PMIX_STRING);
    app->ninfo++;
    return true;
}

bool sy_pmi_spawn_add_preput(sy_pmi_spawn_t *sp, const char *key, const char *val)
{
    char **k = realloc(sp->pre_keys, (sp->npre + 1) * sizeof(char *));
    if (k != NULL)
        sp->pre_keys = k;
    char **v = realloc(sp->pre_vals, (sp->npre + 1) * sizeof(char *));
    if (v != NULL)
        sp->pre_vals = v;
    if (k == NULL || v == NULL)
        return false;
    k[sp->npre] = strdup(key);
    v[sp->npre] = strdup(val);
    sp->npre++; /* freed with the rest, even half made */
    return k[sp->npre - 1] != NULL && v[sp->npre - 1] != NULL;
}
