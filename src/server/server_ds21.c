/* The ds21 store of a namespace: when it is made, what goes in and when
 * (docs/wire-protocol.md, "OpenPMIx protocol", ds21).  An OpenPMIx 4.2.x
 * client offered ds21 reads its job data and its peers' modex data from
 * shared memory instead of asking us key by key; anything missing there
 * it asks for as before (GETNB), so every write here may be skipped.
 *   - at register_nspace: the files, in <tmpdir>/pmix_dstor_ds21_<pid>/<id>
 *     (the id, never the host's nspace string, names the directory), and
 *     the clients' environment (setup_fork);
 *   - when the first ds21 client connects: the job data, the wildcard
 *     rank (job keys, this node's keys, pmix.univ.size as UINT32) and
 *     each rank's own;
 *   - COMMIT of a ds21 client: its LOCAL and GLOBAL keys;
 *   - fence end: everyone else's data its ds21 clients may read.
 * Loop only. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jseg.h"
#include "common/log.h"
#include "common/opx_bfrops.h"
#include "common/pack.h"
#include "common/safefile.h"
#include "common/usock.h"
#include "server/server_ds21.h"
#include "server/server_ds21_store.h"
#include "server/server_fork.h"
#include "server/server_opx.h"
#include "server/server_registry.h"

/* how long the writer waits for a reader in its critical section (a
 * stopped or stuck reader: the store then takes no more writes) */
#define WRITE_WAIT_MS 2000

static char *base_dir(const sy_srv_t *s)
{
    char *dir = NULL;
    if (asprintf(&dir, "%s/pmix_dstor_ds21_%ld", s->tmpdir, (long)getpid()) < 0)
        return NULL;
    return dir;
}

static bool disabled(void)
{
    const char *e = getenv("SWITCHYARD_OPX_DS21");
    return e != NULL && strcmp(e, "0") == 0;
}

/* What setup_fork gives the namespace's processes: ds21 first, hash when
 * ds21 cannot start in the client; the sizes we used (the client would
 * take its own environment's, or defaults); no other store's path. */
static pmix_status_t offer_env(sy_srv_nspace_t *ns)
{
    sy_ds21_sizes_t sz;
    sy_ds21_sizes(ns->ds21, &sz);
    char isz[32], msz[32], dsz[32];
    snprintf(isz, sizeof(isz), "%zu", sz.initial);
    snprintf(msz, sizeof(msz), "%zu", sz.meta);
    snprintf(dsz, sizeof(dsz), "%zu", sz.data);
    const char *set[][2] = {{"PMIX_GDS_MODULE", "ds21,hash"},
                            {"PMIX_DSTORE_21_BASE_PATH", sy_ds21_dir(ns->ds21)},
                            {"INITIAL_SEG_SIZE", isz},
                            {"NS_META_SEG_SIZE", msz},
                            {"NS_DATA_SEG_SIZE", dsz}};
    const char *unset[] = {"SM_USE_LINEAR_SEARCH", "PMIX_DSTORE_ESH_BASE_PATH",
                           "PMIX_DSTORE_12_BASE_PATH"};
    enum { NSET = sizeof(set) / sizeof(set[0]), NUNSET = sizeof(unset) / sizeof(unset[0]) };
    pmix_info_t dirs[NSET + NUNSET];
    memset(dirs, 0, sizeof(dirs));
    for (size_t i = 0; i < NSET; i++) {
        PMIX_LOAD_KEY(dirs[i].key, PMIX_SET_ENVAR);
        dirs[i].value.type = PMIX_ENVAR;
        dirs[i].value.data.envar.envar = (char *)set[i][0]; /* copied by add */
        dirs[i].value.data.envar.value = (char *)set[i][1];
    }
    for (size_t i = 0; i < NUNSET; i++) {
        PMIX_LOAD_KEY(dirs[NSET + i].key, PMIX_UNSET_ENVAR);
        dirs[NSET + i].value.type = PMIX_STRING;
        dirs[NSET + i].value.data.string = (char *)unset[i];
    }
    return sy_srv_fork_env_add(ns->name, dirs, NSET + NUNSET);
}

void sy_srv_ds21_nspace_registered(sy_srv_t *s, sy_srv_nspace_t *ns)
{
    if (ns->ds21 != NULL) {
        sy_srv_ds21_job_changed(ns);
        return;
    }
    uint32_t nlocal = ns->nlocalprocs > 0 ? (uint32_t)ns->nlocalprocs : ns->summary.nlocal;
    if (disabled() || nlocal == 0 || ns->summary.job_size == 0 || !sy_safe_name(ns->name))
        return;
    char *base = base_dir(s), *dir = NULL;
    if (base == NULL || sy_mkdir_private(base) != PMIX_SUCCESS ||
        asprintf(&dir, "%s/%u", base, ns->id) < 0) {
        free(base);
        return;
    }
    /* every PMIx_Init of a process takes a slot for good: spares for
     * processes that initialize again */
    uint32_t nlocks = nlocal < 8 ? nlocal + 8 : 2 * nlocal;
    pmix_status_t rc = sy_ds21_create(dir, ns->name, ns->summary.job_size, nlocks, NULL, &ns->ds21);
    if (rc == PMIX_SUCCESS && (rc = offer_env(ns)) != PMIX_SUCCESS) {
        sy_ds21_destroy(ns->ds21);
        ns->ds21 = NULL;
    }
    if (rc != PMIX_SUCCESS) {
        rmdir(base); /* when no other namespace's is there */
        sy_log(SY_LOG_DEBUG, "ds21: not offered to %s: %s", ns->name, PMIx_Error_string(rc));
    }
    free(dir);
    free(base);
}

bool sy_srv_ds21_offered(const sy_srv_nspace_t *ns)
{
    return ns != NULL && ns->ds21 != NULL;
}

void sy_srv_ds21_free(sy_srv_nspace_t *ns)
{
    if (ns->ds21 == NULL)
        return;
    sy_ds21_destroy(ns->ds21);
    ns->ds21 = NULL;
    char *base = base_dir(sy_srv);
    if (base != NULL)
        rmdir(base); /* the last namespace's: empty now */
    free(base);
}

/* ---- writing values ---- */

/* A batch of one rank's values, each encoded as the client unpacks it:
 * a v41 pack call of one pmix_value_t. */
typedef struct {
    sy_ds21_kv_t *kvs;
    pmix_data_buffer_t *bufs;
    size_t n, cap;
} batch_t;

static void batch_add(batch_t *b, const char *key, const pmix_value_t *v)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 16;
        sy_ds21_kv_t *k = realloc(b->kvs, cap * sizeof(*k));
        if (k == NULL)
            return;
        b->kvs = k;
        pmix_data_buffer_t *g = realloc(b->bufs, cap * sizeof(*g));
        if (g == NULL)
            return;
        b->bufs = g;
        b->cap = cap;
    }
    pmix_data_buffer_t *buf = &b->bufs[b->n];
    memset(buf, 0, sizeof(*buf));
    if (sy_opx_pack(buf, v, 1, PMIX_VALUE) != PMIX_SUCCESS) {
        sy_buffer_destruct(buf); /* a type the client cannot have: asked for */
        return;
    }
    b->kvs[b->n++] = (sy_ds21_kv_t){.key = key, .bytes = buf->base_ptr, .len = buf->bytes_used};
}

static void batch_put(sy_ds21_t *d, pmix_rank_t rank, batch_t *b)
{
    for (size_t i = 0; i < b->n; i++) /* buffers may have moved */
        b->kvs[i].bytes = b->bufs[i].base_ptr;
    if (b->n > 0 && sy_ds21_put(d, rank, b->kvs, b->n) != PMIX_SUCCESS)
        sy_log(SY_LOG_DEBUG, "ds21: rank %u's data not all in shared memory", rank);
    for (size_t i = 0; i < b->n; i++)
        sy_buffer_destruct(&b->bufs[i]);
    b->n = 0;
}

static void batch_free(batch_t *b)
{
    for (size_t i = 0; i < b->n; i++)
        sy_buffer_destruct(&b->bufs[i]);
    free(b->kvs);
    free(b->bufs);
}

/* ---- job data ---- */

static bool node_key_skipped(const char *key)
{
    /* what names the node itself, not this job's view of it */
    return strcmp(key, PMIX_HOSTNAME) == 0 || strcmp(key, PMIX_NODEID) == 0 ||
           strcmp(key, PMIX_HOSTNAME_ALIASES) == 0;
}

static bool in_batch(const batch_t *b, const char *key)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->kvs[i].key, key) == 0)
            return true;
    return false;
}

static void put_job_level(sy_srv_nspace_t *ns, const sy_jseg_t *seg, batch_t *b)
{
    pmix_info_t *job = NULL, *node = NULL, *sess = NULL;
    size_t njob = 0, nnode = 0, nsess = 0;
    if (sy_jseg_get_all(seg, SY_REALM_JOB, 0, &job, &njob) != PMIX_SUCCESS)
        job = NULL, njob = 0;
    for (size_t i = 0; i < njob; i++)
        if (!sy_srv_opx_skipped_key(job[i].key))
            batch_add(b, job[i].key, &job[i].value);
    /* this node's keys, flattened, as an OpenPMIx server stores them */
    if (ns->summary.nodeid != UINT32_MAX &&
        sy_jseg_get_all(seg, SY_REALM_NODE, ns->summary.nodeid, &node, &nnode) == PMIX_SUCCESS)
        for (size_t i = 0; i < nnode; i++)
            if (!node_key_skipped(node[i].key) && !sy_srv_opx_skipped_key(node[i].key) &&
                !in_batch(b, node[i].key))
                batch_add(b, node[i].key, &node[i].value);
    /* a get of rank UNDEF needs the universe size, as UINT32 */
    uint32_t *ids = NULL;
    size_t nids = 0;
    if (sy_jseg_ids(seg, SY_REALM_SESSION, &ids, &nids) == PMIX_SUCCESS && nids > 0 &&
        sy_jseg_get_all(seg, SY_REALM_SESSION, ids[0], &sess, &nsess) == PMIX_SUCCESS)
        for (size_t i = 0; i < nsess; i++)
            if (!sy_srv_opx_skipped_key(sess[i].key) && !in_batch(b, sess[i].key))
                batch_add(b, sess[i].key, &sess[i].value);
    free(ids);
    pmix_value_t univ = {.type = PMIX_UINT32, .data.uint32 = ns->summary.job_size};
    for (size_t i = 0; i < b->n; i++) {
        if (strcmp(b->kvs[i].key, PMIX_UNIV_SIZE) != 0)
            continue;
        /* what the value says, whatever integer type it came as */
        pmix_data_buffer_t view = b->bufs[i];
        int32_t one = 1;
        pmix_value_t got;
        memset(&got, 0, sizeof(got));
        if (sy_opx_unpack(&view, &got, &one, PMIX_VALUE) == PMIX_SUCCESS) {
            uint32_t u;
            pmix_status_t rc;
            PMIX_VALUE_GET_NUMBER(rc, &got, u, uint32_t);
            if (rc == PMIX_SUCCESS)
                univ.data.uint32 = u;
        }
        sy_value_destruct(&got);
        sy_buffer_destruct(&b->bufs[i]);
        b->kvs[i] = b->kvs[--b->n];
        b->bufs[i] = b->bufs[b->n];
        break;
    }
    batch_add(b, PMIX_UNIV_SIZE, &univ);
    batch_put(ns->ds21, PMIX_RANK_WILDCARD, b);
    if (job != NULL)
        PMIX_INFO_FREE(job, njob);
    if (node != NULL)
        PMIX_INFO_FREE(node, nnode);
    if (sess != NULL)
        PMIX_INFO_FREE(sess, nsess);
}

static void write_job(sy_srv_nspace_t *ns)
{
    sy_jseg_t *seg = NULL;
    if (ns->seg_path == NULL || sy_jseg_open(ns->seg_path, &seg) != PMIX_SUCCESS)
        return;
    if (sy_ds21_lock(ns->ds21, WRITE_WAIT_MS) != PMIX_SUCCESS) {
        sy_jseg_close(seg);
        return;
    }
    batch_t b = {0};
    put_job_level(ns, seg, &b);
    for (uint32_t r = 0; r < ns->summary.job_size; r++) {
        pmix_info_t *infos = NULL;
        size_t n = 0;
        if (sy_jseg_get_all(seg, SY_REALM_PROC, r, &infos, &n) != PMIX_SUCCESS)
            continue;
        for (size_t i = 0; i < n; i++)
            if (!sy_srv_opx_skipped_key(infos[i].key))
                batch_add(&b, infos[i].key, &infos[i].value);
        batch_put(ns->ds21, r, &b);
        PMIX_INFO_FREE(infos, n);
    }
    sy_ds21_unlock(ns->ds21);
    batch_free(&b);
    sy_jseg_close(seg);
    ns->ds21_loaded = true;
}

void sy_srv_ds21_job_changed(sy_srv_nspace_t *ns)
{
    if (ns->ds21 != NULL && ns->ds21_loaded && !sy_ds21_broken(ns->ds21))
        write_job(ns);
}

void sy_srv_ds21_client_ready(sy_srv_nspace_t *ns)
{
    if (ns->ds21 != NULL && !ns->ds21_loaded && !sy_ds21_broken(ns->ds21))
        write_job(ns);
}

/* ---- modex data ---- */

/* The namespace's store is written to: an OpenPMIx client uses it. */
static bool store_live(const sy_srv_nspace_t *ns)
{
    return ns->ds21 != NULL && ns->ds21_loaded && !sy_ds21_broken(ns->ds21);
}

static sy_srv_nspace_t *live_store(const char *nspace)
{
    sy_srv_nspace_t *ns = sy_srv != NULL ? sy_srv_nspace_find(sy_srv, nspace) : NULL;
    return ns != NULL && store_live(ns) ? ns : NULL;
}

static void add_posted(batch_t *b, const sy_srv_posted_t *p)
{
    for (const sy_srv_kv_t *k = p->kvs; k != NULL; k = k->next)
        if (k->scope != PMIX_REMOTE)
            batch_add(b, k->key, &k->val);
}

void sy_srv_ds21_commit(const sy_srv_posted_t *p)
{
    sy_srv_nspace_t *ns = live_store(p->proc.nspace);
    if (ns == NULL || p->proc.rank >= ns->summary.job_size)
        return;
    /* its data is here from now on: fences need not write it */
    sy_ds21_mark(ns->ds21, p->proc.rank);
    batch_t b = {0};
    add_posted(&b, p);
    if (sy_ds21_lock(ns->ds21, WRITE_WAIT_MS) == PMIX_SUCCESS) {
        batch_put(ns->ds21, p->proc.rank, &b);
        sy_ds21_unlock(ns->ds21);
    }
    batch_free(&b);
}

/* The records of other nodes' processes of ns in the blob (scope, key,
 * value each; see server_modex.h), read from a copy of its cursor. */
static void add_remote(sy_srv_nspace_t *ns, const pmix_data_buffer_t *remote, bool *locked)
{
    pmix_data_buffer_t view = *remote;
    batch_t b = {0};
    pmix_status_t rc = PMIX_SUCCESS;
    while (rc == PMIX_SUCCESS && sy_buffer_remaining(&view) > 0) {
        pmix_proc_t p;
        size_t n = 0;
        int32_t one = 1;
        rc = sy_unpack(&view, &p, &one, PMIX_PROC);
        one = 1;
        if (rc == PMIX_SUCCESS)
            rc = sy_unpack(&view, &n, &one, PMIX_SIZE);
        /* a count the bytes left cannot hold is a damaged blob */
        if (rc == PMIX_SUCCESS && n > sy_buffer_remaining(&view))
            rc = PMIX_ERR_UNPACK_FAILURE;
        bool mine = rc == PMIX_SUCCESS && PMIX_CHECK_NSPACE(p.nspace, ns->name) &&
                    p.rank < ns->summary.job_size && !sy_srv_rank_local(ns, p.rank);
        char **keys = mine && n > 0 ? calloc(n, sizeof(*keys)) : NULL;
        pmix_value_t *vals = mine && n > 0 ? calloc(n, sizeof(*vals)) : NULL;
        size_t got = 0;
        for (size_t i = 0; rc == PMIX_SUCCESS && i < n; i++) {
            uint8_t scope;
            char *key = NULL;
            pmix_value_t v;
            memset(&v, 0, sizeof(v));
            one = 1;
            rc = sy_unpack(&view, &scope, &one, PMIX_UINT8);
            one = 1;
            if (rc == PMIX_SUCCESS)
                rc = sy_unpack(&view, &key, &one, PMIX_STRING);
            one = 1;
            if (rc == PMIX_SUCCESS)
                rc = sy_unpack(&view, &v, &one, PMIX_VALUE);
            if (rc == PMIX_SUCCESS && keys != NULL && vals != NULL && key != NULL) {
                keys[got] = key;
                vals[got++] = v;
            } else {
                free(key);
                sy_value_destruct(&v);
            }
        }
        for (size_t i = 0; i < got; i++)
            batch_add(&b, keys[i], &vals[i]);
        if (b.n > 0 && !*locked)
            *locked = sy_ds21_lock(ns->ds21, WRITE_WAIT_MS) == PMIX_SUCCESS;
        if (*locked)
            batch_put(ns->ds21, p.rank, &b);
        batch_free(&b);
        memset(&b, 0, sizeof(b));
        for (size_t i = 0; i < got; i++) {
            free(keys[i]);
            sy_value_destruct(&vals[i]);
        }
        free(keys);
        free(vals);
    }
}

void sy_srv_ds21_fence(sy_srv_t *s, const pmix_proc_t *procs, size_t nprocs,
                       const pmix_data_buffer_t *remote)
{
    for (sy_srv_nspace_t *ns = s->nspaces; ns != NULL; ns = ns->next) {
        if (!store_live(ns))
            continue;
        bool locked = false;
        batch_t b = {0};
        /* local processes whose commits did not come here (ours, or
         * OpenPMIx clients on hash) */
        for (const sy_srv_posted_t *p = sy_srv_posted_all(); p != NULL; p = p->next) {
            if (!PMIX_CHECK_NSPACE(p->proc.nspace, ns->name) ||
                p->proc.rank >= ns->summary.job_size || sy_ds21_marked(ns->ds21, p->proc.rank) ||
                !sy_srv_proc_in_set(procs, nprocs, &p->proc))
                continue;
            add_posted(&b, p);
            if (b.n > 0 && !locked)
                locked = sy_ds21_lock(ns->ds21, WRITE_WAIT_MS) == PMIX_SUCCESS;
            if (locked)
                batch_put(ns->ds21, p->proc.rank, &b);
            batch_free(&b);
            memset(&b, 0, sizeof(b));
        }
        if (remote != NULL && remote->bytes_used > 0 && !sy_ds21_broken(ns->ds21))
            add_remote(ns, remote, &locked);
        if (locked)
            sy_ds21_unlock(ns->ds21);
    }
}
