/* See igraph_guard.h for why igraph is serialised and its handlers are
 * swapped around every use. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/igraph_guard.h"

/* All of these are touched only while `guard` is held. */
static pthread_mutex_t guard = PTHREAD_MUTEX_INITIALIZER;
static igraph_error_handler_t *saved_error;
static igraph_warning_handler_t *saved_warning;
static char last_error[256];

static void on_error(const char *reason, const char *file, int line, igraph_error_t err)
{
    (void)file;
    (void)line;
    /* An error climbs through every IGRAPH_CHECK on its way out, calling
     * the handler again with an empty reason each time: keep the first
     * real message.  reason may live in memory that IGRAPH_FINALLY_FREE
     * releases, hence the copy. */
    const char *what = (reason != NULL && '\0' != reason[0]) ? reason : NULL;
    if (what == NULL) {
        if ('\0' != last_error[0]) {
            IGRAPH_FINALLY_FREE();
            return;
        }
        what = igraph_strerror(err);
    }
    size_t n = strlen(what);
    if (n >= sizeof(last_error)) {
        n = sizeof(last_error) - 1;
    }
    memcpy(last_error, what, n);
    last_error[n] = '\0';
    IGRAPH_FINALLY_FREE();
}

static void on_warning(const char *reason, const char *file, int line)
{
    (void)reason;
    (void)file;
    (void)line;
}

void sy_igraph_lock(void)
{
    pthread_mutex_lock(&guard);
    last_error[0] = '\0';
    saved_error = igraph_set_error_handler(on_error);
    saved_warning = igraph_set_warning_handler(on_warning);
}

void sy_igraph_unlock(void)
{
    igraph_set_error_handler(saved_error);
    igraph_set_warning_handler(saved_warning);
    pthread_mutex_unlock(&guard);
}

pmix_status_t sy_igraph_status(igraph_error_t err)
{
    switch (err) {
    case IGRAPH_SUCCESS: return PMIX_SUCCESS;
    case IGRAPH_ENOMEM: return PMIX_ERR_NOMEM;
    case IGRAPH_EINVAL:
    case IGRAPH_EINVVID:
    case IGRAPH_EINVMODE: return PMIX_ERR_BAD_PARAM;
    default: return PMIX_ERROR;
    }
}

void sy_igraph_last_error(char *buf, size_t len)
{
    if (buf == NULL || len == 0) {
        return;
    }
    size_t n = strlen(last_error);
    if (n >= len) {
        n = len - 1;
    }
    memcpy(buf, last_error, n);
    buf[n] = '\0';
}

pmix_status_t sy_igraph_rng_begin(sy_igraph_rng_t *r, uint64_t seed)
{
    if (r == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(r, 0, sizeof(*r));
    igraph_error_t err = igraph_rng_init(&r->rng, &igraph_rngtype_mt19937);
    if (IGRAPH_SUCCESS != err) {
        return sy_igraph_status(err);
    }
    err = igraph_rng_seed(&r->rng, (igraph_uint_t)seed);
    if (IGRAPH_SUCCESS != err) {
        igraph_rng_destroy(&r->rng);
        return sy_igraph_status(err);
    }
    r->saved = *igraph_rng_default();
    igraph_rng_set_default(&r->rng);
    r->active = true;
    return PMIX_SUCCESS;
}

void sy_igraph_rng_end(sy_igraph_rng_t *r)
{
    if (r == NULL || !r->active) {
        return;
    }
    igraph_rng_set_default(&r->saved);
    igraph_rng_destroy(&r->rng);
    r->active = false;
}

static bool link_up(const sy_topo_t *t, uint32_t e)
{
    return t->e[e].state != PMIX_LINK_DOWN;
}

pmix_status_t sy_igraph_from_topo(const sy_topo_t *t, bool switches_only, sy_igraph_view_t *out)
{
    if (t == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    if (!t->finalized) {
        return PMIX_ERR_NOT_AVAILABLE;
    }
    out->from_topo = malloc(((size_t)t->nv + 1) * sizeof(uint32_t));
    out->to_topo = malloc(((size_t)t->nv + 1) * sizeof(uint32_t));
    if (out->from_topo == NULL || out->to_topo == NULL) {
        sy_igraph_view_free(out);
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t v = 0; v < t->nv; v++) {
        if (switches_only && t->v[v].kind != SY_TOPO_SWITCH) {
            out->from_topo[v] = SY_TOPO_NONE;
        } else {
            out->from_topo[v] = out->n;
            out->to_topo[out->n++] = v;
        }
    }
    igraph_vector_int_t edges;
    igraph_error_t err = igraph_vector_int_init(&edges, 0);
    if (IGRAPH_SUCCESS != err) {
        sy_igraph_view_free(out);
        return sy_igraph_status(err);
    }
    for (uint32_t e = 0; e < t->ne && IGRAPH_SUCCESS == err; e++) {
        uint32_t a = out->from_topo[t->e[e].a], b = out->from_topo[t->e[e].b];
        if (a == SY_TOPO_NONE || b == SY_TOPO_NONE || !link_up(t, e)) {
            continue;
        }
        err = igraph_vector_int_push_back(&edges, a);
        if (IGRAPH_SUCCESS == err) {
            err = igraph_vector_int_push_back(&edges, b);
        }
    }
    if (IGRAPH_SUCCESS == err) {
        err = igraph_create(&out->g, &edges, out->n, IGRAPH_UNDIRECTED);
    }
    igraph_vector_int_destroy(&edges);
    if (IGRAPH_SUCCESS != err) {
        sy_igraph_view_free(out);
        return sy_igraph_status(err);
    }
    out->built = true;
    return PMIX_SUCCESS;
}

void sy_igraph_view_free(sy_igraph_view_t *v)
{
    if (v == NULL) {
        return;
    }
    if (v->built) {
        igraph_destroy(&v->g);
    }
    free(v->to_topo);
    free(v->from_topo);
    memset(v, 0, sizeof(*v));
}
