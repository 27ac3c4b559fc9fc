/* Queries at the server: the library answers what it knows (attribute
 * support with the host's PMIx_Register_attributes registrations, this
 * server's URI, the node's servers); the rest goes to the host's query
 * upcall and both answers are merged.  Serves the QUERY command of clients
 * and tools and PMIx_Query_info called in the server's own process.
 * Loop only, except the host's callback. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/log.h"
#include "common/query_lib.h"
#include "server/server_internal.h"
#include "server/server_query.h"
#include "server/server_setquery.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

/* PMIx_Register_attributes: what the host said, keyed by the upcall name
 * it used (a repeat of the same name is refused). */
static sy_host_attrs_t *regs;
static char **reg_names;
static size_t nregs;

typedef struct {
    sy_srv_upcall_t up;
    pmix_query_t *rest;
    size_t nrest;
    sy_infos_t answers;
    size_t asked, found;
    pmix_status_t host_status;
    size_t host_n;
    sy_srv_query_done_fn done;
    void *arg;
} query_t;

static void query_free(query_t *x)
{
    if (x->rest != NULL)
        PMIX_QUERY_FREE(x->rest, x->nrest);
    sy_infos_free(&x->answers);
    free(x);
}

static void finish(void *arg)
{
    query_t *x = arg;
    pmix_status_t st =
        sy_query_status(x->asked, x->found, x->rest != NULL, x->host_status, x->host_n);
    x->done(st, &x->answers, x->arg);
    query_free(x);
}

static void self_done(pmix_status_t status, sy_infos_t *answers, void *arg);

/* The server is gone (any thread): a query of this process still gets the
 * host's answer, which touches nothing of the loop; a peer's query went
 * with its peer. */
static void drop(void *arg)
{
    query_t *x = arg;
    if (x->done == self_done)
        finish(x);
    else
        query_free(x);
}

/* The host's answer, on any thread: copied while its infos are valid. */
static void host_answered(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                          pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    query_t *x = sy_srv_upcall_claim(cbdata);
    if (x != NULL) {
        x->host_status = status;
        for (size_t i = 0; info != NULL && i < ninfo; i++) {
            pmix_info_t *o = sy_infos_add(&x->answers);
            if (o == NULL || PMIx_Info_xfer(o, &info[i]) != PMIX_SUCCESS)
                break;
            x->host_n++;
        }
    }
    sy_srv_release_later(release_fn, release_cbdata);
    if (x != NULL)
        sy_srv_post_or_drop(finish, drop, x);
}

void sy_srv_query(const pmix_proc_t *requestor, const pmix_query_t q[], size_t n,
                  sy_srv_query_done_fn done, void *arg)
{
    sy_srv_t *s = sy_srv;
    query_t *x = calloc(1, sizeof(*x));
    if (x == NULL) {
        sy_infos_t none = {0};
        done(PMIX_ERR_NOMEM, &none, arg);
        return;
    }
    x->done = done;
    x->arg = arg;
    sy_query_ctx_t ctx = {.server_uri = s->uri,
                          .host = regs,
                          .nhost = nregs,
                          .have_host = true,
                          .answer = sy_srv_sets_answer};
    pmix_status_t rc =
        sy_query_split(q, n, &ctx, &x->answers, &x->asked, &x->found, &x->rest, &x->nrest);
    if (rc != PMIX_SUCCESS) {
        sy_infos_free(&x->answers);
        done(rc, &x->answers, arg);
        query_free(x);
        return;
    }
    if (x->rest == NULL) {
        finish(x);
        return;
    }
    if (s->module.query == NULL) {
        x->host_status = PMIX_ERR_NOT_SUPPORTED;
        finish(x);
        return;
    }
    pmix_proc_t who = *requestor;
    rc = s->module.query(&who, x->rest, x->nrest, host_answered, sy_srv_upcall_ticket(&x->up, x));
    if (sy_srv_upcall_returned(&x->up, rc)) {
        x->host_status = rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
        finish(x);
    }
}

/* ---- PMIx_Query_info in the server's own process ---- */

typedef struct {
    pmix_query_t *q;
    size_t n;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
} self_t;

static void self_done(pmix_status_t status, sy_infos_t *answers, void *arg)
{
    self_t *x = arg;
    sy_query_deliver(status, answers, x->cbfunc, x->cbdata);
    PMIX_QUERY_FREE(x->q, x->n);
    free(x);
}

static void self_start(void *arg)
{
    self_t *x = arg;
    sy_srv_query(&sy_srv->me, x->q, x->n, self_done, x);
}

static pmix_status_t self_query(pmix_query_t q[], size_t n, pmix_info_cbfunc_t cbfunc, void *cbdata)
{
    self_t *x = calloc(1, sizeof(*x));
    if (x == NULL)
        return PMIX_ERR_NOMEM;
    PMIX_QUERY_CREATE(x->q, n);
    if (x->q == NULL) {
        free(x);
        return PMIX_ERR_NOMEM;
    }
    x->n = n;
    for (size_t i = 0; i < n; i++) {
        size_t nk = 0;
        while (q[i].keys != NULL && q[i].keys[nk] != NULL)
            nk++;
        x->q[i].keys = calloc(nk + 1, sizeof(char *));
        for (size_t k = 0; x->q[i].keys != NULL && k < nk; k++)
            x->q[i].keys[k] = strdup(q[i].keys[k]);
        if (q[i].nqual > 0 && q[i].qualifiers != NULL) {
            PMIX_INFO_CREATE(x->q[i].qualifiers, q[i].nqual);
            x->q[i].nqual = x->q[i].qualifiers != NULL ? q[i].nqual : 0;
            for (size_t k = 0; k < x->q[i].nqual; k++)
                PMIx_Info_xfer(&x->q[i].qualifiers[k], &q[i].qualifiers[k]);
        }
    }
    x->cbfunc = cbfunc;
    x->cbdata = cbdata;
    pmix_status_t rc = sy_srv_post(self_start, x);
    if (rc != PMIX_SUCCESS) {
        PMIX_QUERY_FREE(x->q, x->n);
        free(x);
    }
    return rc;
}

/* ---- PMIx_Register_attributes ---- */

/* The caller waits, so what it registers can live on its stack. */
typedef struct {
    char *function;
    char **attrs;
} reg_args_t;

typedef struct {
    sy_srv_op_t op; /* first: sy_srv_op_start frees it */
    reg_args_t *args;
} reg_t;

static void reg_on_loop(void *arg)
{
    reg_t *r = arg;
    reg_args_t *a = r->args;
    pmix_status_t rc = PMIX_SUCCESS;
    const char *api = sy_support_upcall_api(a->function);
    for (size_t i = 0; i < nregs && rc == PMIX_SUCCESS; i++)
        if (strcmp(reg_names[i], a->function) == 0)
            rc = PMIX_ERR_REPEAT_ATTR_REGISTRATION;
    if (rc == PMIX_SUCCESS && api == NULL) {
        sy_log(SY_LOG_WARN,
               "PMIx_Register_attributes: %s is neither a server-module function nor a PMIx API",
               a->function);
        rc = PMIX_ERR_BAD_PARAM;
    }
    if (rc == PMIX_SUCCESS) {
        sy_host_attrs_t *g = realloc(regs, (nregs + 1) * sizeof(*g));
        if (g != NULL)
            regs = g;
        char **gn = g != NULL ? realloc(reg_names, (nregs + 1) * sizeof(char *)) : NULL;
        if (gn != NULL)
            reg_names = gn;
        if (g == NULL || gn == NULL || (regs[nregs].api = strdup(api)) == NULL) {
            rc = PMIX_ERR_NOMEM;
        } else {
            regs[nregs].names = a->attrs;
            reg_names[nregs] = a->function;
            a->attrs = NULL;
            a->function = NULL;
            nregs++;
        }
    }
    sy_srv_op_finish(&r->op, rc);
}

/* The host declares the attributes one of its upcalls (or an API) supports:
 * attrs are attribute names ("PMIX_TIMEOUT") or keys ("pmix.timeout"), as
 * OpenPMIx 4.2.2 takes them; NULL or empty for a function with none. */
PMIX_EXPORT pmix_status_t PMIx_Register_attributes(char *function, char *attrs[])
{
    if (function == NULL || function[0] == '\0')
        return PMIX_ERR_BAD_PARAM;
    size_t n = 0;
    while (attrs != NULL && attrs[n] != NULL)
        n++;
    reg_args_t a = {.function = strdup(function), .attrs = calloc(n + 1, sizeof(char *))};
    bool ok = a.function != NULL && a.attrs != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = (a.attrs[i] = strdup(attrs[i])) != NULL;
    reg_t *r = ok ? calloc(1, sizeof(*r)) : NULL;
    pmix_status_t rc = PMIX_ERR_NOMEM;
    if (r != NULL) {
        r->args = &a;
        rc = sy_srv_op_start(&r->op, reg_on_loop, NULL, NULL);
    }
    free(a.function);
    for (size_t i = 0; a.attrs != NULL && a.attrs[i] != NULL; i++)
        free(a.attrs[i]);
    free(a.attrs);
    return rc;
}

void sy_srv_query_init(void)
{
    sy_query_set_server_path(self_query);
}

void sy_srv_query_finalize(void)
{
    sy_query_set_server_path(NULL);
    for (size_t i = 0; i < nregs; i++) {
        free(regs[i].api);
        for (size_t k = 0; regs[i].names != NULL && regs[i].names[k] != NULL; k++)
            free(regs[i].names[k]);
        free(regs[i].names);
        free(reg_names[i]);
    }
    free(regs);
    free(reg_names);
    regs = NULL;
    reg_names = NULL;
    nregs = 0;
}
