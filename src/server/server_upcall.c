/* Tickets for host upcalls (server_internal.h, "upcall tickets").
 *
 * Hosts complete upcalls in every way the field has seen: inside the
 * upcall, on our own loop thread (Slurm's last local fence contributor,
 * holding a lock its release_fn takes); later from any thread; never
 * (v1 upcalls); and on some error paths both with a callback and an error
 * return (Slurm's fence_nb and direct_modex).  So the host never gets a
 * pointer to our request as its cbdata, only a ticket number: the
 * callback and the caller's handling of the return race to take the
 * ticket out of this table, and whoever loses finds nothing and does
 * nothing.  Tickets are never reused, so a late callback cannot reach a
 * newer request. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/log.h"
#include "server/server_internal.h"
#include "server/server_upcall.h"
#include "server/server_util.h"

#define NBUCKETS 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static sy_srv_upcall_t *buckets[NBUCKETS];
static uintptr_t last_id;

void *sy_srv_upcall_ticket(sy_srv_upcall_t *u, void *req)
{
    pthread_mutex_lock(&lock);
    u->id = ++last_id;
    u->req = req;
    sy_srv_upcall_t **b = &buckets[u->id % NBUCKETS];
    u->next = *b;
    *b = u;
    pthread_mutex_unlock(&lock);
    return (void *)u->id;
}

/* The request of a ticket still in the table, taken out; NULL if gone. */
static void *take(uintptr_t id)
{
    void *req = NULL;
    pthread_mutex_lock(&lock);
    for (sy_srv_upcall_t **pp = &buckets[id % NBUCKETS]; *pp != NULL; pp = &(*pp)->next) {
        if ((*pp)->id == id) {
            sy_srv_upcall_t *u = *pp;
            *pp = u->next;
            u->next = NULL;
            req = u->req;
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    return req;
}

void *sy_srv_upcall_claim(void *ticket)
{
    return take((uintptr_t)ticket);
}

bool sy_srv_upcall_returned(sy_srv_upcall_t *u, pmix_status_t rc)
{
    if (rc == PMIX_SUCCESS)
        return false; /* the callback ends it, now or later */
    /* An error, or done at once (PMIX_OPERATION_SUCCEEDED): the callback
     * is not expected.  If it came anyway, inside the upcall, it has the
     * request already. */
    return take(u->id) != NULL;
}

typedef struct {
    pmix_release_cbfunc_t fn;
    void *cbdata;
} release_t;

static void release_on_loop(void *arg)
{
    release_t *r = arg;
    r->fn(r->cbdata);
    free(r);
}

static void *release_thread(void *arg)
{
    release_on_loop(arg);
    return NULL;
}

void sy_srv_release_later(pmix_release_cbfunc_t fn, void *cbdata)
{
    if (fn == NULL)
        return;
    release_t *r = malloc(sizeof(*r));
    if (r == NULL) {
        sy_log(SY_LOG_WARN, "server: out of memory: a host release function is not called");
        return;
    }
    r->fn = fn;
    r->cbdata = cbdata;
    if (sy_srv_post(release_on_loop, r) == PMIX_SUCCESS)
        return;
    /* No loop (the server is gone): still never on the host's own thread,
     * which may be inside the callback holding the lock fn takes. */
    pthread_t t;
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int err = pthread_create(&t, &attr, release_thread, r);
        pthread_attr_destroy(&attr);
        if (err == 0)
            return;
    }
    sy_log(SY_LOG_WARN, "server: no thread for a host release function: not called");
    free(r);
}
