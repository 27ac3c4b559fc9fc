/* The process-wide store: its lifetime, the table of attached segments and
 * the internal values of PMIx_Store_internal.  The retrieval rules are in
 * store_get.c. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/datatype.h"
#include "common/jseg.h"
#include "common/log.h"
#include "common/store.h"
#include "common/store_internal.h"

/* Writers (attach, refresh) must not starve behind a steady stream of Gets. */
#ifdef PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP
pthread_rwlock_t sy_store_lock = PTHREAD_RWLOCK_WRITER_NONRECURSIVE_INITIALIZER_NP;
#else
pthread_rwlock_t sy_store_lock = PTHREAD_RWLOCK_INITIALIZER;
#endif

typedef struct {
    uint32_t hash;
    pmix_nspace_t nspace;
    sy_jseg_t *seg;
} ns_entry_t;

typedef struct internal_value {
    struct internal_value *next;
    uint32_t hash;
    pmix_rank_t rank;
    char *nspace;
    char *key;
    pmix_value_t val;
} internal_value_t;

static struct {
    /* lifetime, under life_lock */
    pthread_mutex_t life_lock;
    unsigned refcount;
    bool active; /* read atomically by sy_store_active */
    /* the rest under sy_store_lock */
    ns_entry_t *ns;
    size_t nns, ns_cap;
    sy_jseg_t *resources;
    internal_value_t **buckets;
    size_t nbuckets, ninternal;
    sy_store_resolver_fn resolver;
    void *resolver_ctx;
} st = {.life_lock = PTHREAD_MUTEX_INITIALIZER};

static uint32_t hash_str(uint32_t h, const char *s)
{
    for (; '\0' != *s; s++) {
        h = (h ^ (uint8_t)*s) * 16777619u;
    }
    return h;
}

static uint32_t hash_ns(const char *nspace)
{
    return hash_str(2166136261u, nspace);
}

static uint32_t hash_internal(const char *nspace, pmix_rank_t rank)
{
    uint32_t h = hash_ns(nspace);
    for (int i = 0; i < 4; i++) {
        h = (h ^ ((rank >> (8 * i)) & 0xffu)) * 16777619u;
    }
    return h;
}

/* ---- lifetime ---- */

static void clear_all(void)
{
    sy_jseg_t *resources;
    ns_entry_t *ns;
    size_t nns;
    internal_value_t **buckets;
    size_t nbuckets;

    pthread_rwlock_wrlock(&sy_store_lock);
    ns = st.ns;
    nns = st.nns;
    resources = st.resources;
    buckets = st.buckets;
    nbuckets = st.nbuckets;
    st.ns = NULL;
    st.nns = st.ns_cap = 0;
    st.resources = NULL;
    st.buckets = NULL;
    st.nbuckets = st.ninternal = 0;
    st.resolver = NULL;
    st.resolver_ctx = NULL;
    pthread_rwlock_unlock(&sy_store_lock);

    for (size_t i = 0; i < nns; i++) {
        sy_jseg_close(ns[i].seg);
    }
    free(ns);
    sy_jseg_close(resources);
    for (size_t b = 0; b < nbuckets; b++) {
        for (internal_value_t *iv = buckets[b], *next; iv != NULL; iv = next) {
            next = iv->next;
            sy_value_destruct(&iv->val);
            free(iv->nspace);
            free(iv->key);
            free(iv);
        }
    }
    free(buckets);
}

void sy_store_acquire(void)
{
    pthread_mutex_lock(&st.life_lock);
    if (0 == st.refcount++) {
        __atomic_store_n(&st.active, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&st.life_lock);
}

void sy_store_release(void)
{
    pthread_mutex_lock(&st.life_lock);
    if (st.refcount == 0) {
        pthread_mutex_unlock(&st.life_lock);
        return;
    }
    if (0 == --st.refcount) {
        __atomic_store_n(&st.active, false, __ATOMIC_RELEASE);
        clear_all();
        sy_store_modex_drop(NULL);
    }
    pthread_mutex_unlock(&st.life_lock);
}

bool sy_store_active(void)
{
    return __atomic_load_n(&st.active, __ATOMIC_ACQUIRE);
}

/* ---- segments ---- */

static ns_entry_t *find_ns(const char *nspace, uint32_t h)
{
    for (size_t i = 0; i < st.nns; i++) {
        if (st.ns[i].hash == h && strcmp(st.ns[i].nspace, nspace) == 0) {
            return &st.ns[i];
        }
    }
    return NULL;
}

sy_jseg_t *sy_store_segment(const char *nspace)
{
    ns_entry_t *e = find_ns(nspace, hash_ns(nspace));
    return e == NULL ? NULL : e->seg;
}

sy_jseg_t *sy_store_resources(void)
{
    return st.resources;
}

static bool valid_nspace(const char *nspace)
{
    return nspace != NULL && '\0' != nspace[0] &&
           strnlen(nspace, PMIX_MAX_NSLEN + 1) <= PMIX_MAX_NSLEN;
}

pmix_status_t sy_store_attach(const char *nspace, const char *path)
{
    sy_jseg_t *seg, *old = NULL;
    const char *own;
    ns_entry_t *e;
    uint32_t h;
    pmix_status_t rc;

    if (!valid_nspace(nspace) || path == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    /* validation reads the whole file: do it before taking the lock */
    rc = sy_jseg_open(path, &seg);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    own = sy_jseg_nspace(seg);
    if (own != NULL && strcmp(own, nspace) != 0) {
        sy_log(SY_LOG_WARN, "job-data segment %s holds namespace %s, not %s", path, own, nspace);
        sy_jseg_close(seg);
        return PMIX_ERR_BAD_PARAM;
    }
    h = hash_ns(nspace);
    pthread_rwlock_wrlock(&sy_store_lock);
    e = find_ns(nspace, h);
    if (e != NULL) {
        old = e->seg;
        e->seg = seg;
    } else {
        if (st.nns == st.ns_cap) {
            size_t cap = st.ns_cap == 0 ? 8 : 2 * st.ns_cap;
            ns_entry_t *grown = realloc(st.ns, cap * sizeof(*grown));
            if (grown == NULL) {
                pthread_rwlock_unlock(&sy_store_lock);
                sy_jseg_close(seg);
                return PMIX_ERR_NOMEM;
            }
            st.ns = grown;
            st.ns_cap = cap;
        }
        e = &st.ns[st.nns++];
        e->hash = h;
        sy_load_fixed(e->nspace, nspace, sizeof(e->nspace));
        e->seg = seg;
    }
    pthread_rwlock_unlock(&sy_store_lock);
    /* no reader can hold it any more: they all work under the lock */
    sy_jseg_close(old);
    return PMIX_SUCCESS;
}

void sy_store_detach(const char *nspace)
{
    sy_jseg_t *old = NULL;
    ns_entry_t *e;

    if (!valid_nspace(nspace)) {
        return;
    }
    pthread_rwlock_wrlock(&sy_store_lock);
    e = find_ns(nspace, hash_ns(nspace));
    if (e != NULL) {
        old = e->seg;
        *e = st.ns[--st.nns];
    }
    pthread_rwlock_unlock(&sy_store_lock);
    sy_jseg_close(old);
    sy_store_modex_drop(nspace);
}

pmix_status_t sy_store_attach_resources(const char *path)
{
    sy_jseg_t *seg = NULL, *old;
    pmix_status_t rc;

    if (path != NULL) {
        rc = sy_jseg_open(path, &seg);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    pthread_rwlock_wrlock(&sy_store_lock);
    old = st.resources;
    st.resources = seg;
    pthread_rwlock_unlock(&sy_store_lock);
    sy_jseg_close(old);
    return PMIX_SUCCESS;
}

/* Open the newest segment of a supersede chain starting at seg; NULL when
 * the chain cannot be followed (the old mapping then stays in use). */
static sy_jseg_t *follow(sy_jseg_t *seg)
{
    sy_jseg_t *cur = NULL;
    const char *next;

    /* bounded: a hostile chain must not loop forever */
    for (int hops = 0; hops < 16 && (next = sy_jseg_superseded_by(cur == NULL ? seg : cur)) != NULL;
         hops++) {
        sy_jseg_t *opened;
        if (sy_jseg_open(next, &opened) != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "cannot open job-data segment %s that replaced another", next);
            break;
        }
        const char *a = sy_jseg_nspace(seg), *b = sy_jseg_nspace(opened);
        if ((a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0)) {
            sy_log(SY_LOG_WARN, "job-data segment %s belongs to another namespace", next);
            sy_jseg_close(opened);
            break;
        }
        sy_jseg_close(cur);
        cur = opened;
    }
    return cur;
}

void sy_store_refresh(void)
{
    pthread_rwlock_wrlock(&sy_store_lock);
    /* opening validates files under the write lock; this happens once per
     * update of a namespace, which is rare */
    for (size_t i = 0; i < st.nns; i++) {
        if (sy_jseg_superseded_by(st.ns[i].seg) != NULL) {
            sy_jseg_t *n = follow(st.ns[i].seg);
            if (n != NULL) {
                sy_jseg_close(st.ns[i].seg);
                st.ns[i].seg = n;
            }
        }
    }
    if (st.resources != NULL && sy_jseg_superseded_by(st.resources) != NULL) {
        sy_jseg_t *n = follow(st.resources);
        if (n != NULL) {
            sy_jseg_close(st.resources);
            st.resources = n;
        }
    }
    pthread_rwlock_unlock(&sy_store_lock);
}

/* ---- resolver ---- */

void sy_store_set_resolver(sy_store_resolver_fn fn, void *ctx)
{
    pthread_rwlock_wrlock(&sy_store_lock);
    st.resolver = fn;
    st.resolver_ctx = ctx;
    pthread_rwlock_unlock(&sy_store_lock);
}

void sy_store_resolver(sy_store_resolver_fn *fn, void **ctx)
{
    pthread_rwlock_rdlock(&sy_store_lock);
    *fn = st.resolver;
    *ctx = st.resolver_ctx;
    pthread_rwlock_unlock(&sy_store_lock);
}

/* ---- internal values ---- */

static internal_value_t *find_internal(const char *nspace, pmix_rank_t rank, const char *key,
                                       uint32_t h)
{
    if (st.nbuckets == 0) {
        return NULL;
    }
    for (internal_value_t *iv = st.buckets[h & (st.nbuckets - 1)]; iv != NULL; iv = iv->next) {
        if (iv->hash == h && iv->rank == rank && strcmp(iv->key, key) == 0 &&
            strcmp(iv->nspace, nspace) == 0) {
            return iv;
        }
    }
    return NULL;
}

const pmix_value_t *sy_store_internal_find(const char *nspace, pmix_rank_t rank, const char *key)
{
    internal_value_t *iv;

    if (st.ninternal == 0) {
        return NULL;
    }
    iv = find_internal(nspace, rank, key, hash_internal(nspace, rank));
    return iv == NULL ? NULL : &iv->val;
}

static pmix_status_t grow_buckets(void)
{
    size_t n = st.nbuckets == 0 ? 64 : 2 * st.nbuckets;
    internal_value_t **b = calloc(n, sizeof(*b));

    if (b == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < st.nbuckets; i++) {
        for (internal_value_t *iv = st.buckets[i], *next; iv != NULL; iv = next) {
            next = iv->next;
            iv->next = b[iv->hash & (n - 1)];
            b[iv->hash & (n - 1)] = iv;
        }
    }
    free(st.buckets);
    st.buckets = b;
    st.nbuckets = n;
    return PMIX_SUCCESS;
}

pmix_status_t sy_store_internal_put(const pmix_proc_t *proc, const char *key,
                                    const pmix_value_t *val)
{
    internal_value_t *iv;
    pmix_value_t copy;
    pmix_status_t rc;
    uint32_t h;

    if (proc == NULL || key == NULL || val == NULL || '\0' == key[0] ||
        strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN ||
        memchr(proc->nspace, '\0', sizeof(proc->nspace)) == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    rc = sy_value_copy(&copy, val);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    h = hash_internal(proc->nspace, proc->rank);
    pthread_rwlock_wrlock(&sy_store_lock);
    iv = find_internal(proc->nspace, proc->rank, key, h);
    if (iv != NULL) {
        pmix_value_t old = iv->val;
        iv->val = copy;
        pthread_rwlock_unlock(&sy_store_lock);
        sy_value_destruct(&old);
        return PMIX_SUCCESS;
    }
    if (st.ninternal >= st.nbuckets && (rc = grow_buckets()) != PMIX_SUCCESS) {
        goto fail;
    }
    iv = calloc(1, sizeof(*iv));
    if (iv == NULL || (iv->nspace = strdup(proc->nspace)) == NULL ||
        (iv->key = strdup(key)) == NULL) {
        if (iv != NULL) {
            free(iv->nspace);
            free(iv);
        }
        rc = PMIX_ERR_NOMEM;
        goto fail;
    }
    iv->hash = h;
    iv->rank = proc->rank;
    iv->val = copy;
    iv->next = st.buckets[h & (st.nbuckets - 1)];
    st.buckets[h & (st.nbuckets - 1)] = iv;
    st.ninternal++;
    pthread_rwlock_unlock(&sy_store_lock);
    return PMIX_SUCCESS;
fail:
    pthread_rwlock_unlock(&sy_store_lock);
    sy_value_destruct(&copy);
    return rc;
}

void sy_store_internal_forget(const char *nspace)
{
    internal_value_t *gone = NULL;

    if (nspace == NULL) {
        return;
    }
    pthread_rwlock_wrlock(&sy_store_lock);
    for (size_t b = 0; b < st.nbuckets; b++) {
        internal_value_t **link = &st.buckets[b];
        while (*link != NULL) {
            internal_value_t *iv = *link;
            if (strcmp(iv->nspace, nspace) == 0) {
                *link = iv->next;
                iv->next = gone;
                gone = iv;
                st.ninternal--;
            } else {
                link = &iv->next;
            }
        }
    }
    pthread_rwlock_unlock(&sy_store_lock);
    while (gone != NULL) {
        internal_value_t *next = gone->next;
        sy_value_destruct(&gone->val);
        free(gone->nspace);
        free(gone->key);
        free(gone);
        gone = next;
    }
}

pmix_status_t sy_store_internal_collect(const char *nspace, pmix_rank_t rank, pmix_info_t **infos,
                                        size_t *n)
{
    uint32_t h = hash_internal(nspace, rank);
    pmix_status_t rc;

    if (st.ninternal == 0) {
        return PMIX_SUCCESS;
    }
    for (internal_value_t *iv = st.buckets[h & (st.nbuckets - 1)]; iv != NULL; iv = iv->next) {
        if (iv->hash != h || iv->rank != rank || strcmp(iv->nspace, nspace) != 0) {
            continue;
        }
        size_t k;
        for (k = 0; k < *n && strcmp((*infos)[k].key, iv->key) != 0; k++) {
        }
        if (k == *n) {
            pmix_info_t *grown = realloc(*infos, (*n + 1) * sizeof(**infos));
            if (grown == NULL) {
                return PMIX_ERR_NOMEM;
            }
            *infos = grown;
            memset(&grown[k], 0, sizeof(grown[k]));
            sy_load_fixed(grown[k].key, iv->key, sizeof(grown[k].key));
            (*n)++;
        } else {
            sy_value_destruct(&(*infos)[k].value);
        }
        rc = sy_value_copy(&(*infos)[k].value, &iv->val);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_store_nspaces(char ***names)
{
    char **list;
    pmix_status_t rc = PMIX_SUCCESS;

    if (names == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    pthread_rwlock_rdlock(&sy_store_lock);
    list = calloc(st.nns + 1, sizeof(*list));
    for (size_t i = 0; list != NULL && i < st.nns; i++) {
        if ((list[i] = strdup(st.ns[i].nspace)) == NULL) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
    }
    pthread_rwlock_unlock(&sy_store_lock);
    if (list == NULL || rc != PMIX_SUCCESS) {
        for (size_t i = 0; list != NULL && list[i] != NULL; i++) {
            free(list[i]);
        }
        free(list);
        return PMIX_ERR_NOMEM;
    }
    *names = list;
    return PMIX_SUCCESS;
}
