/* PMIx_server_register_nspace / deregister_nspace and register_client /
 * deregister_client: the host describes jobs and processes; each namespace
 * becomes a job-data segment in the tmpdir that local clients map. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/log.h"
#include "common/store.h"
#include "server/server_internal.h"
#include "server/server_nspace.h"
#include "server/server_cleanup.h"
#include "server/server_ds21.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_util.h"
#include "server/server_modex.h"
#include "server/server_pmi.h"

typedef struct {
    sy_srv_op_t op;
    pmix_nspace_t nspace;
    int nlocalprocs;
    pmix_info_t *info;
    size_t ninfo;
} nspace_req_t;

/* Publish b as the next generation of the namespace's segment and map it
 * here; *path receives the file's name. */
static pmix_status_t publish_gen(sy_srv_t *s, const sy_srv_nspace_t *ns, sy_jseg_builder_t *b,
                                 char **path)
{
    /* Segment files are named by a number, never by the host's nspace
     * string, which could hold '/' or anything else. */
    if (asprintf(path, "%s/job.%u.%u", s->tmpdir, ns->id, ns->gen + 1) < 0) {
        *path = NULL;
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = sy_jseg_publish(b, *path, 0644);
    if (rc == PMIX_SUCCESS)
        rc = sy_store_attach(ns->name, *path);
    if (rc != PMIX_SUCCESS) {
        sy_srv_unlink(*path);
        free(*path);
        *path = NULL;
    }
    return rc;
}

/* The published generation replaces the previous one. */
static void install_gen(sy_srv_nspace_t *ns, char *path)
{
    ns->gen++;
    if (ns->seg_path != NULL) {
        sy_jseg_supersede(ns->seg_path, path);
        sy_srv_unlink(ns->seg_path);
        free(ns->seg_path);
    }
    ns->seg_path = path;
}

/* The registration, and what setup_local_support added, compiled without
 * copying either: the host keeps its registration until our callback,
 * and the builder is gone before that. */
static pmix_status_t publish_nspace(sy_srv_t *s, nspace_req_t *r)
{
    sy_srv_nspace_t *ns = sy_srv_nspace_find(s, r->nspace);
    bool fresh = (ns == NULL);
    if (fresh) {
        ns = calloc(1, sizeof(*ns));
        if (ns == NULL)
            return PMIX_ERR_NOMEM;
        PMIX_LOAD_NSPACE(ns->name, r->nspace);
        ns->id = ++s->next_nspace_id;
        ns->summary.nodeid = UINT32_MAX;
        /* PMIX_HOMOGENEOUS_SYSTEM of the server: every job's clients
         * read it, unless their host says otherwise */
        bool said = false;
        for (size_t i = 0; i < r->ninfo; i++)
            said = said || PMIX_CHECK_KEY(&r->info[i], PMIX_HOMOGENEOUS_SYSTEM);
        if (s->homogeneous && !said) {
            PMIX_INFO_CREATE(ns->local_info, 1);
            if (ns->local_info != NULL) {
                PMIX_INFO_LOAD(&ns->local_info[0], PMIX_HOMOGENEOUS_SYSTEM, NULL, PMIX_BOOL);
                ns->nlocal_info = 1;
            }
        }
    }
    sy_jseg_builder_t *b = NULL;
    sy_jobinfo_summary_t summary = {0};
    char *err = NULL, *path = NULL;
    pmix_status_t rc = sy_jseg_builder_new(ns->name, &b);
    if (rc == PMIX_SUCCESS) {
        rc = sy_jobinfo_compile_with(ns->name, r->nlocalprocs, r->info, r->ninfo, ns->local_info,
                                     ns->nlocal_info, s->hostname, b, &summary, &err);
        if (rc != PMIX_SUCCESS)
            sy_log(SY_LOG_WARN, "register_nspace %s refused: %s", ns->name,
                   err != NULL ? err : PMIx_Error_string(rc));
    }
    if (rc == PMIX_SUCCESS)
        rc = publish_gen(s, ns, b, &path);
    sy_jseg_builder_free(b);
    free(err);
    if (rc != PMIX_SUCCESS) {
        sy_jobinfo_summary_free(&summary);
        if (fresh) {
            if (ns->local_info != NULL)
                PMIX_INFO_FREE(ns->local_info, ns->nlocal_info);
            free(ns);
        }
        return rc;
    }
    ns->nlocalprocs = r->nlocalprocs;
    install_gen(ns, path);
    sy_jobinfo_summary_free(&ns->summary);
    ns->summary = summary;
    if (fresh) {
        ns->next = s->nspaces;
        s->nspaces = ns;
    }
    sy_srv_ds21_nspace_registered(s, ns);
    return PMIX_SUCCESS;
}

/* setup_local_support: the published segment plus info, as the next
 * generation (the registration itself is not kept).  info is ours: kept
 * with what earlier calls added, for a re-registration. */
pmix_status_t sy_srv_nspace_add_info(sy_srv_t *s, sy_srv_nspace_t *ns, pmix_info_t *info,
                                     size_t ninfo)
{
    sy_jseg_t *old = NULL;
    sy_jseg_builder_t *b = NULL;
    char *err = NULL, *path = NULL;
    pmix_info_t *all = NULL;
    pmix_status_t rc = ns->seg_path != NULL ? sy_jseg_open(ns->seg_path, &old) : PMIX_ERR_NOT_FOUND;
    if (rc == PMIX_SUCCESS)
        rc = sy_jseg_builder_new_from(old, &b);
    if (rc == PMIX_SUCCESS) {
        rc = sy_jobinfo_compile_more(ns->name, info, ninfo, s->hostname, b, &err);
        if (rc != PMIX_SUCCESS)
            sy_log(SY_LOG_WARN, "setup_local_support %s refused: %s", ns->name,
                   err != NULL ? err : PMIx_Error_string(rc));
    }
    if (rc == PMIX_SUCCESS) {
        all = realloc(ns->local_info, (ns->nlocal_info + ninfo) * sizeof(*all));
        rc = all != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    }
    if (rc == PMIX_SUCCESS) {
        ns->local_info = all;
        rc = publish_gen(s, ns, b, &path);
    }
    sy_jseg_builder_free(b);
    sy_jseg_close(old);
    free(err);
    if (rc == PMIX_SUCCESS) {
        /* the values move into the kept array; info's own storage goes */
        memcpy(ns->local_info + ns->nlocal_info, info, ninfo * sizeof(*info));
        ns->nlocal_info += ninfo;
        free(info);
        install_gen(ns, path);
        sy_srv_ds21_job_changed(ns);
    } else if (info != NULL) {
        PMIX_INFO_FREE(info, ninfo);
    }
    return rc;
}

static void register_nspace_on_loop(void *arg)
{
    nspace_req_t *r = arg;
    sy_srv_op_finish(&r->op, sy_srv != NULL ? publish_nspace(sy_srv, r) : PMIX_ERR_INIT);
}

PMIX_EXPORT pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace, int nlocalprocs,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (nspace == NULL || nspace[0] == '\0' || (info == NULL && ninfo > 0) || nlocalprocs < 0)
        return PMIX_ERR_BAD_PARAM;
    nspace_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_NSPACE(r->nspace, nspace);
    r->nlocalprocs = nlocalprocs;
    r->info = info;
    r->ninfo = ninfo;
    return sy_srv_op_start(&r->op, register_nspace_on_loop, cbfunc, cbdata);
}

static void drop_clients_of(sy_srv_t *s, const char *nspace)
{
    sy_srv_client_t **pp = &s->clients;
    while (*pp != NULL) {
        sy_srv_client_t *c = *pp;
        if (PMIX_CHECK_NSPACE(c->proc.nspace, nspace)) {
            *pp = c->next;
            sy_srv_peer_forget_client(c);
            free(c);
        } else {
            pp = &c->next;
        }
    }
}

static void deregister_nspace_on_loop(void *arg)
{
    nspace_req_t *r = arg;
    sy_srv_t *s = sy_srv;
    if (s != NULL) {
        sy_srv_cleanup_nspace_gone(r->nspace);
        sy_srv_modex_nspace_gone(s, r->nspace);
        sy_srv_pmi_nspace_gone(r->nspace);
        drop_clients_of(s, r->nspace);
        for (sy_srv_nspace_t **pp = &s->nspaces; *pp != NULL; pp = &(*pp)->next) {
            sy_srv_nspace_t *ns = *pp;
            if (!PMIX_CHECK_NSPACE(ns->name, r->nspace))
                continue;
            *pp = ns->next;
            sy_srv_nspace_free(ns);
            break;
        }
        sy_store_internal_forget(r->nspace);
    }
    sy_srv_op_finish(&r->op, s != NULL ? PMIX_SUCCESS : PMIX_ERR_INIT);
}

PMIX_EXPORT void PMIx_server_deregister_nspace(const pmix_nspace_t nspace, pmix_op_cbfunc_t cbfunc,
                                               void *cbdata)
{
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    if (nspace != NULL) {
        nspace_req_t *r = calloc(1, sizeof(*r));
        if (r == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            PMIX_LOAD_NSPACE(r->nspace, nspace);
            rc = sy_srv_op_start(&r->op, deregister_nspace_on_loop, cbfunc, cbdata);
            if (rc == PMIX_SUCCESS || cbfunc == NULL)
                return;
        }
    }
    /* A void API: the callback is the only way to report the failure. */
    if (cbfunc != NULL)
        cbfunc(rc, cbdata);
}

typedef struct {
    sy_srv_op_t op;
    pmix_proc_t proc;
    uid_t uid;
    gid_t gid;
    void *server_object;
} client_req_t;

static void register_client_on_loop(void *arg)
{
    client_req_t *r = arg;
    pmix_status_t rc = PMIX_ERR_INIT;
    if (sy_srv != NULL) {
        sy_srv_client_t *c = sy_srv_client_get(sy_srv, &r->proc);
        rc = PMIX_ERR_NOMEM;
        if (c != NULL) {
            c->registered = true;
            c->uid = r->uid;
            c->gid = r->gid;
            c->server_object = r->server_object;
            rc = PMIX_SUCCESS;
        }
    }
    sy_srv_op_finish(&r->op, rc);
}

PMIX_EXPORT pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc, uid_t uid, gid_t gid,
                                                      void *server_object, pmix_op_cbfunc_t cbfunc,
                                                      void *cbdata)
{
    if (proc == NULL || proc->nspace[0] == '\0' || proc->rank == PMIX_RANK_WILDCARD ||
        proc->rank == PMIX_RANK_UNDEF || proc->rank >= PMIX_RANK_VALID)
        return PMIX_ERR_BAD_PARAM;
    client_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_LOAD_PROCID(&r->proc, proc->nspace, proc->rank);
    r->uid = uid;
    r->gid = gid;
    r->server_object = server_object;
    return sy_srv_op_start(&r->op, register_client_on_loop, cbfunc, cbdata);
}

static void deregister_client_on_loop(void *arg)
{
    client_req_t *r = arg;
    sy_srv_t *s = sy_srv;
    if (s != NULL) {
        for (sy_srv_client_t **pp = &s->clients; *pp != NULL; pp = &(*pp)->next) {
            sy_srv_client_t *c = *pp;
            if (c->proc.rank == r->proc.rank && PMIX_CHECK_NSPACE(c->proc.nspace, r->proc.nspace)) {
                *pp = c->next;
                sy_srv_peer_forget_client(c);
                free(c);
                break;
            }
        }
    }
    sy_srv_op_finish(&r->op, s != NULL ? PMIX_SUCCESS : PMIX_ERR_INIT);
}

PMIX_EXPORT void PMIx_server_deregister_client(const pmix_proc_t *proc, pmix_op_cbfunc_t cbfunc,
                                               void *cbdata)
{
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    if (proc != NULL) {
        client_req_t *r = calloc(1, sizeof(*r));
        if (r == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            PMIX_LOAD_PROCID(&r->proc, proc->nspace, proc->rank);
            rc = sy_srv_op_start(&r->op, deregister_client_on_loop, cbfunc, cbdata);
            if (rc == PMIX_SUCCESS || cbfunc == NULL)
                return;
        }
    }
    if (cbfunc != NULL)
        cbfunc(rc, cbdata);
}
