/* A PMI get of a key this server does not hold (server_pmi.h): the job's
 * processes on other nodes are asked through the host's direct_modex, as
 * a PMIx client's Get of a remote rank is (server_dmodex.c).  PMI names
 * no source, so every process not served here is asked at once (only
 * PMI-2's srcid when it names one of them); the first that has the key
 * answers, and "not found" is the answer once every one has said so.
 * The PMI reply waits meanwhile; the loop never does. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "server/server_internal.h"
#include "server/server_modex.h"
#include "server/server_registry.h"
#include "server/server_pmi.h"

typedef struct {
    unsigned long serial; /* the asking connection, if still there */
    sy_pmi_get_done_fn done;
    char *thrid;
    _Atomic unsigned pending; /* requests out with the host */
    bool answered;
} remote_get_t;

static void remote_get_free(remote_get_t *g)
{
    free(g->thrid);
    free(g);
}

/* One process's answer (on the loop; PMIX_ERR_INIT: the server is going,
 * maybe elsewhere: only the bookkeeping). */
static void one_answer(pmix_status_t status, const pmix_value_t *value, void *arg)
{
    remote_get_t *g = arg;
    if (status != PMIX_ERR_INIT && !g->answered) {
        bool found = status == PMIX_SUCCESS && value != NULL && value->type == PMIX_STRING &&
                     value->data.string != NULL;
        sy_pmi_conn_t *c = sy_pmi_conn_by_serial(g->serial);
        if (c == NULL) {
            g->answered = true; /* the asker is gone: nobody to tell */
        } else if (found || atomic_load(&g->pending) == 1) {
            g->answered = true;
            g->done(c, found ? value->data.string : NULL, g->thrid);
        }
    }
    if (atomic_fetch_sub(&g->pending, 1) == 1)
        remote_get_free(g);
}

bool sy_pmi_kvs_get_remote(sy_pmi_conn_t *c, const char *nspace, long srcid, const char *key,
                           const char *thrid, sy_pmi_get_done_fn done)
{
    sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, nspace);
    if (ns == NULL || sy_srv->module.direct_modex == NULL)
        return false;
    uint32_t size = ns->summary.job_size;
    bool one = srcid >= 0 && (uint32_t)srcid < size && !sy_srv_rank_local(ns, (pmix_rank_t)srcid);
    unsigned remote = 0;
    for (uint32_t r = 0; r < size; r++)
        if ((one ? r == (uint32_t)srcid : true) && !sy_srv_rank_local(ns, r))
            remote++;
    if (remote == 0)
        return false;
    remote_get_t *g = calloc(1, sizeof(*g));
    if (g == NULL || (thrid != NULL && (g->thrid = strdup(thrid)) == NULL)) {
        free(g);
        return false;
    }
    g->serial = c->serial;
    g->done = done;
    /* one count held while asking: an answer inside an upcall cannot end
     * the lookup before every request is out */
    atomic_store(&g->pending, remote + 1);
    unsigned asked = 0;
    for (uint32_t r = 0; r < size; r++) {
        if ((one && r != (uint32_t)srcid) || sy_srv_rank_local(ns, r))
            continue;
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, nspace, r);
        if (sy_srv_dmodex_ask(&p, key, one_answer, g) != PMIX_SUCCESS)
            break;
        asked++;
    }
    /* those not asked count as "not found" */
    unsigned not_asked = remote - asked;
    if (not_asked > 0)
        atomic_fetch_sub(&g->pending, not_asked);
    /* our own count: the last answer, when every one came already */
    one_answer(PMIX_ERR_NOT_FOUND, NULL, g);
    return true;
}
