/* Node mode's link to the scheduler (sched.h).  A thread owns the link:
 * it connects (waiting with back-off while the scheduler is away), reads
 * the scheduler's frames, and when the link drops, connects again.  Every
 * fabric answer is kept in a small cache: while the scheduler is away,
 * requests are answered from it; when it is back, this node's inventory
 * is delivered again and PMIX_FABRIC_UPDATE_PENDING is raised here, so
 * that the clients refresh what they hold (PENDING -> UPDATED). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pmix.h>
#include <pmix_server.h>
#include <switchyard.h>

#include <sys/mman.h>
#include <unistd.h>

#include "fabric/cm_codec.h"
#include "sched_daemon.h"
#include "sched_shm.h"

typedef struct pend {
    uint32_t id;
    pmix_info_cbfunc_t cbfunc;
    void *cbdata;
    char *key; /* cache key (fabric requests), NULL otherwise */
    /* A reply whose matrix is streamed.  These are the link thread's
     * alone, read and written without N.lock: it sets them at the reply
     * and uses them until the last chunk.  Another thread takes a request
     * off the list only when sending it failed, when no reply can come. */
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
    char *matrix;
    size_t msize, mgot;
    struct pend *next;
} pend_t;

/* One answer kept for the keys it answers (the request's and the
 * fabric index's, and older registrations of the same fabric after an
 * update): shared, so that a matrix of gigabytes is copied once for the
 * cache, not once per key.  Under N.lock. */
typedef struct kept {
    unsigned refs;
    pmix_info_t *info;
    size_t ninfo;
} kept_t;

typedef struct cached {
    char *key;
    kept_t *kept;
    struct cached *next;
} cached_t;

#define CACHE_MAX 32

static struct {
    node_opts_t o;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    link_t *link; /* NULL while the scheduler is away */
    bool stopping, started, connected_once;
    pthread_t thread;
    pend_t *pending;
    uint32_t next_id;
    cached_t *cache;
    size_t ncache;
} N = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER, .next_id = 1};

static void free_infos(pmix_status_t status, void *cbdata)
{
    (void)status;
    pmix_data_array_t *da = cbdata;
    PMIX_DATA_ARRAY_FREE(da);
}

static void release_array(void *cbdata)
{
    pmix_data_array_t *da = cbdata;
    PMIX_DATA_ARRAY_FREE(da);
}

/* infos in a data array, so that one free releases both */
static pmix_data_array_t *as_array(pmix_info_t *info, size_t n)
{
    pmix_data_array_t *da = calloc(1, sizeof(*da));
    if (da == NULL) {
        if (info != NULL)
            PMIX_INFO_FREE(info, n);
        return NULL;
    }
    da->type = PMIX_INFO;
    da->array = info;
    da->size = n;
    return da;
}

static pmix_status_t copy_infos(const pmix_info_t *src, size_t n, pmix_info_t **out)
{
    *out = NULL;
    if (n == 0)
        return PMIX_SUCCESS;
    PMIX_INFO_CREATE(*out, n);
    if (*out == NULL)
        return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        if (PMIx_Info_xfer(&(*out)[i], &src[i]) != PMIX_SUCCESS) {
            PMIX_INFO_FREE(*out, n);
            return PMIX_ERR_NOMEM;
        }
    return PMIX_SUCCESS;
}

/* ---- the cache of fabric answers ---- */

/* The answer itself, taken (freed with the kept_t), with no reference
 * yet; NULL when out of memory (info is then still the caller's). */
static kept_t *kept_wrap(pmix_info_t *info, size_t n)
{
    kept_t *k = calloc(1, sizeof(*k));
    if (k != NULL) {
        k->info = info;
        k->ninfo = n;
    }
    return k;
}

static void kept_release(kept_t *k)
{
    if (k == NULL || --k->refs > 0)
        return;
    if (k->info != NULL)
        PMIX_INFO_FREE(k->info, k->ninfo);
    free(k);
}

/* The directives but PMIX_FABRIC_INDEX, packed, then "#<index>" or "#-". */
static char *cache_key(const pmix_info_t *dirs, size_t n, long index)
{
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    for (size_t i = 0; i < n; i++) {
        if (PMIX_CHECK_KEY(&dirs[i], PMIX_FABRIC_INDEX)) {
            if (index == -2 && dirs[i].value.type == PMIX_SIZE)
                index = (long)dirs[i].value.data.size;
            continue;
        }
        PMIx_Data_pack(NULL, &b, (void *)&dirs[i], 1, PMIX_INFO);
    }
    pmix_byte_object_t bo = {0};
    PMIx_Data_unload(&b, &bo);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    char *key = malloc(2 * bo.size + 32);
    if (key != NULL) {
        for (size_t i = 0; i < bo.size; i++)
            sprintf(key + 2 * i, "%02x", (unsigned char)bo.bytes[i]);
        if (index >= 0)
            sprintf(key + 2 * bo.size, "#%ld", index);
        else
            strcpy(key + 2 * bo.size, "#-");
    }
    free(bo.bytes);
    return key;
}

static void cache_put_locked(const char *key, kept_t *kept)
{
    cached_t **pp = &N.cache;
    while (*pp != NULL && strcmp((*pp)->key, key) != 0)
        pp = &(*pp)->next;
    cached_t *c = *pp;
    if (c == NULL) {
        if (N.ncache >= CACHE_MAX) {
            /* the oldest goes: the list is newest first */
            cached_t **last = &N.cache;
            while ((*last)->next != NULL)
                last = &(*last)->next;
            cached_t *old = *last;
            *last = NULL;
            free(old->key);
            kept_release(old->kept);
            free(old);
            N.ncache--;
        }
        c = calloc(1, sizeof(*c));
        if (c == NULL || (c->key = strdup(key)) == NULL) {
            free(c);
            return;
        }
        N.ncache++;
    } else {
        *pp = c->next;
        kept_release(c->kept);
    }
    kept->refs++;
    c->kept = kept;
    c->next = N.cache;
    N.cache = c;
}

/* The answer cached under key, with a reference for the caller; NULL
 * when none. */
static kept_t *cache_get(const char *key)
{
    kept_t *kept = NULL;
    pthread_mutex_lock(&N.lock);
    for (cached_t *c = N.cache; c != NULL && key != NULL; c = c->next)
        if (strcmp(c->key, key) == 0) {
            kept = c->kept;
            kept->refs++;
            break;
        }
    pthread_mutex_unlock(&N.lock);
    return kept;
}

static long index_of(const pmix_info_t *info, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], PMIX_FABRIC_INDEX) && info[i].value.type == PMIX_SIZE)
            return (long)info[i].value.data.size;
    return -1;
}

/* kept: one reference of the caller's, which it keeps */
static void cache_answer(const char *key, kept_t *kept)
{
    long index = index_of(kept->info, kept->ninfo);
    pthread_mutex_lock(&N.lock);
    /* an update's answer is also the newest answer to the registrations
     * of that fabric with the same directives */
    const char *hash = strrchr(key, '#');
    size_t plen = hash != NULL ? (size_t)(hash - key) : strlen(key);
    for (cached_t *c = N.cache; c != NULL && index >= 0; c = c->next) {
        if (strncmp(c->key, key, plen) != 0 || c->key[plen] != '#' ||
            index_of(c->kept->info, c->kept->ninfo) != index)
            continue;
        kept_release(c->kept);
        kept->refs++;
        c->kept = kept;
    }
    cache_put_locked(key, kept);
    /* under the fabric's index too: updates name it */
    if (index >= 0 && hash != NULL) {
        char *k2 = NULL;
        if (asprintf(&k2, "%.*s#%ld", (int)(hash - key), key, index) >= 0) {
            cache_put_locked(k2, kept);
            free(k2);
        }
    }
    pthread_mutex_unlock(&N.lock);
}

/* The server is done with an answer the cache shares. */
static void release_kept(void *cbdata)
{
    pthread_mutex_lock(&N.lock);
    kept_release(cbdata);
    pthread_mutex_unlock(&N.lock);
}

/* ---- pending requests ---- */

static pend_t *add_pending(pmix_info_cbfunc_t cbfunc, void *cbdata, char *key)
{
    pend_t *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        free(key);
        return NULL;
    }
    p->cbfunc = cbfunc;
    p->cbdata = cbdata;
    p->key = key;
    pthread_mutex_lock(&N.lock);
    p->id = N.next_id++;
    p->next = N.pending;
    N.pending = p;
    pthread_mutex_unlock(&N.lock);
    return p;
}

/* id 0: any */
static pend_t *take_pending(uint32_t id)
{
    pthread_mutex_lock(&N.lock);
    pend_t *found = NULL;
    for (pend_t **pp = &N.pending; *pp != NULL; pp = &(*pp)->next)
        if (id == 0 || (*pp)->id == id) {
            found = *pp;
            *pp = found->next;
            break;
        }
    pthread_mutex_unlock(&N.lock);
    return found;
}

static pend_t *find_pending(uint32_t id)
{
    pthread_mutex_lock(&N.lock);
    pend_t *p = N.pending;
    while (p != NULL && p->id != id)
        p = p->next;
    pthread_mutex_unlock(&N.lock);
    return p;
}

static void pend_free(pend_t *p)
{
    if (p->info != NULL)
        PMIX_INFO_FREE(p->info, p->ninfo);
    free(p->matrix);
    free(p->key);
    free(p);
}

/* Answer p (taken off the list) with status and infos (taken).  A
 * fabric answer is cached as it is handed to the server, not copied:
 * the server only reads it until it releases it, and a matrix of
 * gigabytes held twice would double the daemon's peak. */
static void answer(pend_t *p, pmix_status_t status, pmix_info_t *info, size_t n)
{
    kept_t *kept = status == PMIX_SUCCESS && p->key != NULL ? kept_wrap(info, n) : NULL;
    if (kept != NULL) {
        kept->refs = 1; /* the server's, until it releases the answer */
        cache_answer(p->key, kept);
        p->cbfunc(status, info, n, p->cbdata, release_kept, kept);
    } else {
        pmix_data_array_t *da = as_array(info, n);
        if (da == NULL)
            p->cbfunc(PMIX_ERR_NOMEM, NULL, 0, p->cbdata, NULL, NULL);
        else
            p->cbfunc(status, info, n, p->cbdata, release_array, da);
    }
    p->info = NULL;
    pend_free(p);
}

/* The scheduler is away: what the cache knows, else UNREACH. */
static void answer_offline(pend_t *p)
{
    kept_t *kept = p->key != NULL ? cache_get(p->key) : NULL;
    if (kept != NULL) {
        say("request %u answered from the cache", p->id);
        /* shared, not copied: the server only reads it */
        p->cbfunc(PMIX_SUCCESS, kept->info, kept->ninfo, p->cbdata, release_kept, kept);
    } else {
        p->cbfunc(PMIX_ERR_UNREACH, NULL, 0, p->cbdata, NULL, NULL);
    }
    pend_free(p);
}

static link_t *current_link(void)
{
    pthread_mutex_lock(&N.lock);
    link_t *l = N.link;
    pthread_mutex_unlock(&N.lock);
    return l;
}

/* Send a frame on the link, if there is one. */
static int send_now(pmix_data_buffer_t *b)
{
    pthread_mutex_lock(&N.lock);
    /* the link is freed by the link thread only, under the lock */
    int rc = N.link != NULL ? link_send(N.link, b) : -1;
    pthread_mutex_unlock(&N.lock);
    return rc;
}

/* The request's directives and the chunk encoding we read (a scheduler
 * that knows none passes it to its engine, which ignores what it does
 * not know). */
static void pack_directives(pmix_data_buffer_t *b, const pmix_info_t *directives, size_t ndirs)
{
    pmix_info_t *dirs;
    PMIX_INFO_CREATE(dirs, ndirs + 1);
    if (dirs == NULL) {
        link_pack_infos(b, directives, ndirs); /* raw chunks then */
        return;
    }
    for (size_t i = 0; i < ndirs; i++)
        PMIx_Info_xfer(&dirs[i], &directives[i]);
    uint32_t version = SY_CM_CODEC_VERSION;
    PMIX_INFO_LOAD(&dirs[ndirs], LINK_ENCODING, &version, PMIX_UINT32);
    link_pack_infos(b, dirs, ndirs + 1);
    PMIX_INFO_FREE(dirs, ndirs + 1);
}

pmix_status_t node_fabric(const pmix_proc_t *requestor, pmix_fabric_operation_t op,
                          const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
                          void *cbdata)
{
    say("fabric request of %s:%u forwarded", requestor->nspace, requestor->rank);
    pend_t *p = add_pending(cbfunc, cbdata, cache_key(directives, ndirs, -2));
    if (p == NULL)
        return PMIX_ERR_NOMEM;
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t kind = LINK_FABRIC, o = (uint8_t)op;
    PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &b, &p->id, 1, PMIX_UINT32);
    PMIx_Data_pack(NULL, &b, &o, 1, PMIX_UINT8);
    pack_directives(&b, directives, ndirs);
    uint32_t id = p->id;
    int rc = send_now(&b);
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    if (rc != 0) {
        /* unless the link thread, seeing the link drop, answered it */
        pend_t *gone = take_pending(id);
        if (gone != NULL)
            answer_offline(gone);
    }
    return PMIX_SUCCESS;
}

/* ---- frames from the scheduler ---- */

/* The matrix of a reply in shared memory (the descriptor came with the
 * frame): mapped read-only, copied into the answer's byte object, and
 * let go, so that nothing of it stays behind.  PMIX_SUCCESS, or why not. */
static pmix_status_t shm_matrix(link_t *l, pmix_info_t *inf)
{
    size_t size = inf->value.data.size;
    int fd = link_take_fd(l);
    const char *why = "no descriptor came with the reply";
    const void *m = fd >= 0 ? shm_map(fd, size, &why) : NULL;
    char *copy = m != NULL ? malloc(size) : NULL;
    if (copy != NULL)
        memcpy(copy, m, size);
    if (m != NULL)
        munmap((void *)m, size);
    if (fd >= 0)
        close(fd);
    if (copy == NULL) {
        fprintf(stderr, "switchyard-sched: a matrix in shared memory refused: %s\n",
                m != NULL ? "out of memory" : why);
        return m != NULL ? PMIX_ERR_NOMEM : PMIX_ERR_BAD_PARAM;
    }
    PMIX_INFO_DESTRUCT(inf);
    PMIX_LOAD_KEY(inf->key, PMIX_FABRIC_COST_MATRIX);
    inf->value.type = PMIX_BYTE_OBJECT;
    inf->value.data.bo.bytes = copy;
    inf->value.data.bo.size = size;
    say("a matrix of %zu bytes mapped from shared memory", size);
    return PMIX_SUCCESS;
}

static void node_reply(link_t *l, pmix_data_buffer_t *b)
{
    uint32_t id;
    pmix_status_t status;
    int32_t one = 1;
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (PMIx_Data_unpack(NULL, b, &id, &one, PMIX_UINT32) != PMIX_SUCCESS)
        return; /* whose it was is unknown: answered when the link drops */
    if (PMIx_Data_unpack(NULL, b, &status, &one, PMIX_STATUS) != PMIX_SUCCESS ||
        (link_unpack_infos(b, &info, &n) != PMIX_SUCCESS && status == PMIX_SUCCESS))
        status = PMIX_ERR_UNPACK_FAILURE;
    pend_t *p = find_pending(id);
    if (p == NULL) {
        if (info != NULL)
            PMIX_INFO_FREE(info, n);
        return;
    }
    /* the chunks' encoding is the link's business: it leaves the answer
     * (the chunks say themselves which kind they are) */
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], LINK_ENCODING)) {
            PMIX_INFO_DESTRUCT(&info[i]);
            if (i != n - 1) {
                info[i] = info[n - 1];
                memset(&info[n - 1], 0, sizeof(info[n - 1]));
            }
            n--;
            break;
        }
    /* a matrix in shared memory */
    for (size_t i = 0; status == PMIX_SUCCESS && i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], LINK_SHM) && info[i].value.type == PMIX_SIZE)
            status = shm_matrix(l, &info[i]);
    /* a matrix that follows in chunks */
    size_t streamed = 0;
    for (size_t i = 0; status == PMIX_SUCCESS && i < n; i++)
        if (PMIX_CHECK_KEY(&info[i], LINK_STREAMED) && info[i].value.type == PMIX_SIZE)
            streamed = info[i].value.data.size;
    if (streamed > 0) {
        p->status = status;
        p->info = info;
        p->ninfo = n;
        p->msize = streamed;
        p->matrix = chunk_matrix_alloc(streamed);
        if (p->matrix != NULL)
            return;
        info = NULL;
        n = 0;
        status = PMIX_ERR_NOMEM;
    }
    p = take_pending(id);
    if (p != NULL)
        answer(p, status, info, n);
    else if (info != NULL)
        PMIX_INFO_FREE(info, n);
}

/* A streamed matrix that cannot be completed: its request fails now
 * rather than wait for bytes that will not come. */
static void stream_failed(uint32_t id, const char *why)
{
    fprintf(stderr, "switchyard-sched: request %u: matrix chunk refused: %s\n", id, why);
    pend_t *p = id != 0 ? take_pending(id) : NULL; /* 0 would take any */
    if (p == NULL)
        return;
    if (p->info != NULL)
        PMIX_INFO_FREE(p->info, p->ninfo);
    answer(p, PMIX_ERR_UNPACK_FAILURE, NULL, 0);
}

static void node_chunk(pmix_data_buffer_t *b, uint8_t kind)
{
    chunk_t c;
    if (chunk_read(b, kind, &c) != 0) {
        free(c.bo.bytes);
        stream_failed(c.id, "malformed frame");
        return;
    }
    pend_t *p = find_pending(c.id);
    if (p == NULL || p->matrix == NULL) {
        free(c.bo.bytes);
        return;
    }
    const char *why = "";
    if (chunk_apply(&c, p->matrix, p->msize, &p->mgot, &why) != 0) {
        stream_failed(c.id, why);
        return;
    }
    if (p->mgot < p->msize)
        return;
    p = take_pending(c.id);
    if (p == NULL)
        return;
    /* the matrix takes the place of its size */
    for (size_t i = 0; i < p->ninfo; i++)
        if (PMIX_CHECK_KEY(&p->info[i], LINK_STREAMED)) {
            PMIX_INFO_DESTRUCT(&p->info[i]);
            PMIX_LOAD_KEY(p->info[i].key, PMIX_FABRIC_COST_MATRIX);
            p->info[i].value.type = PMIX_BYTE_OBJECT;
            p->info[i].value.data.bo.bytes = p->matrix;
            p->info[i].value.data.bo.size = p->msize;
            p->matrix = NULL;
        }
    pmix_info_t *info = p->info;
    p->info = NULL;
    answer(p, p->status, info, p->ninfo);
}

static void node_event(pmix_data_buffer_t *b)
{
    pmix_status_t code;
    pmix_proc_t source;
    int32_t one = 1;
    pmix_info_t *info = NULL;
    size_t n = 0;
    if (PMIx_Data_unpack(NULL, b, &code, &one, PMIX_STATUS) != PMIX_SUCCESS ||
        PMIx_Data_unpack(NULL, b, &source, &one, PMIX_PROC) != PMIX_SUCCESS ||
        link_unpack_infos(b, &info, &n) != PMIX_SUCCESS)
        return;
    say("event %s from the scheduler", PMIx_Error_string(code));
    pmix_data_array_t *da = as_array(info, n);
    if (da == NULL)
        return;
    /* this node: the server's own handlers and its clients */
    if (PMIx_Notify_event(code, &source, PMIX_RANGE_LOCAL, info, n, free_infos, da) != PMIX_SUCCESS)
        PMIX_DATA_ARRAY_FREE(da);
}

/* ---- the inventory ---- */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
} waiter_t;

static void inventory_collected(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                                pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    waiter_t *w = cbdata;
    if (status == PMIX_SUCCESS) {
        pmix_data_buffer_t b;
        PMIX_DATA_BUFFER_CONSTRUCT(&b);
        uint8_t kind = LINK_INVENTORY;
        PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
        link_pack_infos(&b, info, ninfo);
        send_now(&b);
        PMIX_DATA_BUFFER_DESTRUCT(&b);
        say("inventory sent (%zu items)", ninfo);
    } else {
        fprintf(stderr, "switchyard-sched: inventory: %s\n", PMIx_Error_string(status));
    }
    if (release_fn != NULL)
        release_fn(release_cbdata);
    pthread_mutex_lock(&w->lock);
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

void node_deliver_inventory(void)
{
    if (!N.o.inventory)
        return;
    waiter_t w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
    if (PMIx_server_collect_inventory(NULL, 0, inventory_collected, &w) == PMIX_SUCCESS) {
        pthread_mutex_lock(&w.lock);
        while (!w.done)
            pthread_cond_wait(&w.cond, &w.lock);
        pthread_mutex_unlock(&w.lock);
    }
}

/* ---- the link thread ---- */

static void sleep_s(double s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)s;
    ts.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&N.lock);
    while (!N.stopping && pthread_cond_timedwait(&N.cond, &N.lock, &ts) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&N.lock);
}

/* Connect with back-off: 0.1 s doubling to 5 s. */
static link_t *connect_backoff(double wait_s, const char **why, bool *fatal)
{
    double delay = 0.1, waited = 0;
    for (;;) {
        link_t *l = link_connect(N.o.addr, N.o.auth, N.o.hostname, why, fatal);
        if (l != NULL || *fatal)
            return l;
        pthread_mutex_lock(&N.lock);
        bool stop = N.stopping;
        pthread_mutex_unlock(&N.lock);
        if (stop || (wait_s >= 0 && waited >= wait_s))
            return NULL;
        sleep_s(delay);
        waited += delay;
        delay = delay * 2 > 5 ? 5 : delay * 2;
    }
}

/* Back after an absence: what the clients hold may be stale. */
static void scheduler_back(void)
{
    node_deliver_inventory();
    pmix_info_t info[1];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_DO_NOT_CACHE, &yes, PMIX_BOOL);
    pmix_proc_t me;
    PMIX_LOAD_PROCID(&me, "switchyard-sched", 0);
    pmix_data_array_t *da = NULL;
    PMIX_DATA_ARRAY_CREATE(da, 1, PMIX_INFO);
    if (da != NULL) {
        PMIx_Info_xfer(&((pmix_info_t *)da->array)[0], &info[0]);
        if (PMIx_Notify_event(PMIX_FABRIC_UPDATE_PENDING, &me, PMIX_RANGE_LOCAL, da->array, 1,
                              free_infos, da) != PMIX_SUCCESS)
            PMIX_DATA_ARRAY_FREE(da);
    }
    PMIX_INFO_DESTRUCT(&info[0]);
    say("the scheduler is back: inventory delivered, update raised");
}

static void *link_thread(void *arg)
{
    (void)arg;
    for (;;) {
        link_t *l = current_link();
        if (l == NULL) {
            const char *why = "";
            bool fatal = false;
            /* refused now (e.g. a scheduler with another key): tried
             * again later all the same, it may be fixed */
            l = connect_backoff(-1, &why, &fatal);
            if (l == NULL && fatal) {
                fprintf(stderr, "switchyard-sched: the scheduler at %s: %s\n", N.o.addr, why);
                sleep_s(5);
                continue;
            }
            if (l == NULL)
                break; /* stopping */
            pthread_mutex_lock(&N.lock);
            N.link = l;
            pthread_mutex_unlock(&N.lock);
            say("reconnected to the scheduler at %s", N.o.addr);
            scheduler_back();
        }
        pmix_data_buffer_t b;
        while (link_recv(l, &b) == 0) {
            uint8_t kind = 0;
            int32_t one = 1;
            if (PMIx_Data_unpack(NULL, &b, &kind, &one, PMIX_UINT8) == PMIX_SUCCESS) {
                if (kind == LINK_REPLY)
                    node_reply(l, &b);
                else if (kind == LINK_CHUNK || kind == LINK_CHUNK_ENC)
                    node_chunk(&b, kind);
                else if (kind == LINK_EVENT)
                    node_event(&b);
            }
            PMIX_DATA_BUFFER_DESTRUCT(&b);
        }
        PMIX_DATA_BUFFER_DESTRUCT(&b);
        pthread_mutex_lock(&N.lock);
        N.link = NULL;
        bool stop = N.stopping;
        pthread_mutex_unlock(&N.lock);
        link_free(l);
        /* whoever waits for the scheduler gets the cache's answer */
        for (pend_t *p; (p = take_pending(0)) != NULL;)
            answer_offline(p);
        if (stop)
            break;
        fprintf(stderr,
                "switchyard-sched: the scheduler at %s is gone: serving cached fabric "
                "data, reconnecting\n",
                N.o.addr);
    }
    return NULL;
}

int node_start(const node_opts_t *o, double wait_s)
{
    N.o = *o;
    const char *why = "";
    bool fatal = false;
    link_t *l = connect_backoff(wait_s, &why, &fatal);
    if (l == NULL) {
        fprintf(stderr, "switchyard-sched: cannot reach the scheduler at %s: %s\n", o->addr, why);
        return -1;
    }
    N.link = l;
    if (pthread_create(&N.thread, NULL, link_thread, NULL) != 0) {
        link_free(l);
        N.link = NULL;
        return -1;
    }
    N.started = true;
    return 0;
}

void node_stop(void)
{
    if (!N.started)
        return;
    pthread_mutex_lock(&N.lock);
    N.stopping = true;
    if (N.link != NULL)
        link_shutdown(N.link);
    pthread_cond_broadcast(&N.cond);
    pthread_mutex_unlock(&N.lock);
    pthread_join(N.thread, NULL);
    N.started = false;
    while (N.cache != NULL) {
        cached_t *c = N.cache;
        N.cache = c->next;
        free(c->key);
        kept_release(c->kept);
        free(c);
    }
}

/* ---- the job's fabric data ---- */

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
    pmix_info_t *info;
    size_t ninfo;
} setup_wait_t;

static void setup_answer(pmix_status_t status, pmix_info_t *info, size_t ninfo, void *cbdata,
                         pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    setup_wait_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    if (status == PMIX_SUCCESS && ninfo > 0 && copy_infos(info, ninfo, &w->info) == PMIX_SUCCESS)
        w->ninfo = ninfo;
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
    if (release_fn != NULL)
        release_fn(release_cbdata);
}

pmix_status_t node_setup(const char *nspace, const char *nodes, const char *procs)
{
    setup_wait_t w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, NULL, 0};
    pend_t *p = add_pending(setup_answer, &w, NULL);
    if (p == NULL)
        return PMIX_ERR_NOMEM;
    pmix_info_t in[3];
    size_t one = 1;
    PMIX_INFO_LOAD(&in[0], PMIX_NODE_MAP, nodes, PMIX_STRING);
    PMIX_INFO_LOAD(&in[1], PMIX_PROC_MAP, procs, PMIX_STRING);
    PMIX_INFO_LOAD(&in[2], PMIX_ALLOC_FABRIC_ENDPTS, &one, PMIX_SIZE);
    pmix_data_buffer_t b;
    PMIX_DATA_BUFFER_CONSTRUCT(&b);
    uint8_t kind = LINK_SETUP;
    PMIx_Data_pack(NULL, &b, &kind, 1, PMIX_UINT8);
    PMIx_Data_pack(NULL, &b, &p->id, 1, PMIX_UINT32);
    PMIx_Data_pack(NULL, &b, &nspace, 1, PMIX_STRING);
    link_pack_infos(&b, in, 3);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&in[i]);
    uint32_t id = p->id;
    if (send_now(&b) != 0) {
        PMIX_DATA_BUFFER_DESTRUCT(&b);
        pend_t *gone = take_pending(id);
        if (gone == NULL) {
            /* the link thread answered it meanwhile: wait for that */
        } else {
            pend_free(gone);
            return PMIX_ERR_UNREACH;
        }
    }
    PMIX_DATA_BUFFER_DESTRUCT(&b);
    pthread_mutex_lock(&w.lock);
    while (!w.done)
        pthread_cond_wait(&w.cond, &w.lock);
    pthread_mutex_unlock(&w.lock);
    pmix_status_t rc = w.status;
    if (rc == PMIX_SUCCESS)
        rc = PMIx_server_setup_local_support(nspace, w.info, w.ninfo, NULL, NULL);
    if (w.info != NULL)
        PMIX_INFO_FREE(w.info, w.ninfo);
    say("job fabric data: %s", PMIx_Error_string(rc));
    return rc;
}
