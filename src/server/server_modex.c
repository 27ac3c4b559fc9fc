/* Data exchange on the server side: COMMIT, FENCE and DMODEX requests of
 * connected clients, the host's fence_nb / direct_modex upcalls, and
 * PMIx_server_dmodex_request.  Loop only.
 *
 * Committed data is kept per process.  A fence completes once every local
 * participant arrived (participants that have not connected yet count:
 * the registered namespace says how many are local); with remote
 * participants the host's fence_nb gets this node's blob and returns every
 * node's.  The collected data is published as one modex segment per
 * namespace (jseg, realm PROC, id = rank) in the tmpdir, attached in our
 * store, and named in the FENCE reply so each client maps it: a Get of a
 * peer's key after a fence is a lookup in shared memory.
 *
 * Blob (the fence_nb data and direct_modex answers), a sequence of records:
 *   PMIX_PROC proc, PMIX_SIZE n, n x (PMIX_UINT8 scope, PMIX_STRING key,
 *   PMIX_VALUE value) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/info.h"
#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jseg.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/store.h"
#include "common/wire.h"
#include "server/server_group.h"
#include "server/server_internal.h"

/* ---- committed data ---- */

typedef struct kv {
    uint8_t scope;
    char *key;
    pmix_value_t val;
    struct kv *next;
} kv_t;

typedef struct posted {
    pmix_proc_t proc;
    bool committed;
    bool gone; /* finalized or dead: nothing more will come */
    kv_t *kvs;
    struct posted *next;
} posted_t;

/* ---- pending work ---- */

typedef struct member {
    sy_srv_peer_t *peer;
    uint32_t tag;
    struct member *next;
} member_t;

typedef struct sy_srv_coll {
    uint8_t kind; /* SY_CMD_FENCE, SY_CMD_CONNECT, SY_CMD_DISCONNECT, or another
                   * file's collective (ops != NULL) */
    pmix_proc_t *procs;
    size_t nprocs;
    bool collect;
    size_t expected, arrived;
    bool remote; /* some participant is on another node */
    bool host_called;
    bool departed;                     /* a local participant ended (finalized, disconnected or
                                        * died) before or during it: the others end with
                                        * PMIX_ERR_PARTIAL_SUCCESS (fence/connect/disconnect) */
    member_t *members, **members_tail; /* in arrival order: answered first come first */
    sy_timer_t *timer;
    pmix_data_buffer_t remote_data; /* blobs from the host */
    pmix_info_t *dirs;              /* the first participant's directives, for the host */
    size_t ndirs;
    char *key;                    /* names another file's collective (a group id) */
    const sy_srv_coll_ops_t *ops; /* how it completes; NULL: fence/connect/disconnect */
    void *ctx;
    unsigned long serial; /* names it for host callbacks that come late */
    struct sy_srv_coll *next;
} fence_t;

typedef struct waiter {
    sy_srv_peer_t *peer; /* NULL: a host's dmodex_request */
    uint32_t tag;
    pmix_proc_t target;
    char *key; /* NULL: the whole record (host request) */
    pmix_dmodex_response_fn_t hostcb;
    void *hostcbdata;
    sy_timer_t *timer;
    struct waiter *next;
} waiter_t;

static void poke_waiters(const pmix_proc_t *proc);

static posted_t *posted_list;
static fence_t *fences;
static waiter_t *waiters;
static unsigned modex_gen;

typedef struct mfile {
    pmix_nspace_t nspace;
    char *path;
    uint32_t *ranks; /* whose data it holds, ascending */
    size_t nranks;
    struct mfile *next;
} mfile_t;
static mfile_t *mfiles;
/* where segment images are built, kept between fences */
static pmix_data_buffer_t image;
/* An empty segment file made ahead (at a commit, or while the participants
 * of a fence arrive), so that a fence's completion does not wait for the
 * file system to create one. */
static int spare_fd = -1;
static char *spare_path;

static void make_spare(sy_srv_t *s)
{
    if (spare_fd >= 0)
        return;
    char *path = NULL;
    if (asprintf(&path, "%s/modex.%u", s->tmpdir, ++modex_gen) < 0)
        return;
    if (sy_jseg_create(path, 0644, &spare_fd) != PMIX_SUCCESS) {
        spare_fd = -1;
        free(path);
        return;
    }
    spare_path = path;
}

static void drop_spare(void)
{
    if (spare_fd < 0)
        return;
    close(spare_fd);
    unlink(spare_path);
    free(spare_path);
    spare_fd = -1;
    spare_path = NULL;
}

static void kvs_free(kv_t *k)
{
    while (k != NULL) {
        kv_t *n = k->next;
        sy_value_destruct(&k->val);
        free(k->key);
        free(k);
        k = n;
    }
}

static posted_t *posted_find(const pmix_proc_t *p, bool create)
{
    for (posted_t *x = posted_list; x != NULL; x = x->next)
        if (PMIX_CHECK_PROCID(&x->proc, p))
            return x;
    if (!create)
        return NULL;
    posted_t *x = calloc(1, sizeof(*x));
    if (x == NULL)
        return NULL;
    x->proc = *p;
    x->next = posted_list;
    posted_list = x;
    return x;
}

static const kv_t *kv_find(const posted_t *p, const char *key)
{
    for (const kv_t *k = p != NULL ? p->kvs : NULL; k != NULL; k = k->next)
        if (strcmp(k->key, key) == 0)
            return k;
    return NULL;
}

/* Append one record (scopes in mask) to a blob. */
static pmix_status_t pack_record(pmix_data_buffer_t *b, const posted_t *p, bool local_view)
{
    size_t n = 0;
    for (const kv_t *k = p->kvs; k != NULL; k = k->next)
        n += local_view ? k->scope != PMIX_REMOTE : k->scope != PMIX_LOCAL;
    pmix_status_t rc = sy_pack(b, &p->proc, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(b, &n, 1, PMIX_SIZE);
    for (const kv_t *k = p->kvs; k != NULL && rc == PMIX_SUCCESS; k = k->next) {
        if (local_view ? k->scope == PMIX_REMOTE : k->scope == PMIX_LOCAL)
            continue;
        rc = sy_pack(b, &k->scope, 1, PMIX_UINT8);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(b, &k->key, 1, PMIX_STRING);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(b, &k->val, 1, PMIX_VALUE);
    }
    return rc;
}

/* ---- participants ---- */

static bool in_set(const pmix_proc_t *procs, size_t n, const pmix_proc_t *p)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_NSPACE(procs[i].nspace, p->nspace) &&
            (procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == p->rank))
            return true;
    return false;
}

static bool rank_local(const sy_srv_nspace_t *ns, pmix_rank_t r)
{
    if (ns->summary.local_ranks == NULL)
        return r < ns->summary.nlocal;
    for (uint32_t i = 0; i < ns->summary.nlocal; i++)
        if (ns->summary.local_ranks[i] == r)
            return true;
    return false;
}

/* How many local processes take part, and whether others elsewhere do. */
static pmix_status_t count_local(sy_srv_t *s, const pmix_proc_t *procs, size_t n, size_t *local,
                                 bool *remote)
{
    *local = 0;
    *remote = false;
    for (size_t i = 0; i < n; i++) {
        sy_srv_nspace_t *ns = sy_srv_nspace_find(s, procs[i].nspace);
        if (ns == NULL)
            return PMIX_ERR_NOT_FOUND;
        if (procs[i].rank == PMIX_RANK_WILDCARD) {
            *local += ns->summary.nlocal;
            if (ns->summary.job_size > ns->summary.nlocal)
                *remote = true;
        } else if (rank_local(ns, procs[i].rank)) {
            (*local)++;
        } else {
            *remote = true;
        }
    }
    return PMIX_SUCCESS;
}

static bool same_set(const fence_t *f, uint8_t kind, const pmix_proc_t *procs, size_t n)
{
    if (f->kind != kind || f->nprocs != n || f->key != NULL)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!in_set(f->procs, f->nprocs, &procs[i]) || !in_set(procs, n, &f->procs[i]))
            return false;
    return true;
}

/* ---- ending things ---- */

static void unlist_fence(fence_t *f)
{
    for (fence_t **pp = &fences; *pp != NULL; pp = &(*pp)->next)
        if (*pp == f) {
            *pp = f->next;
            return;
        }
}

static void fence_free(fence_t *f)
{
    if (f->timer != NULL)
        sy_timer_cancel(f->timer);
    if (f->ops != NULL && f->ops->done != NULL)
        f->ops->done(f->ctx);
    free(f->procs);
    free(f->key);
    if (f->dirs != NULL)
        PMIX_INFO_FREE(f->dirs, f->ndirs);
    sy_buffer_destruct(&f->remote_data);
    free(f);
}

/* Reply to every member: the status, then the segments to map. */
static void fence_finish(fence_t *f, pmix_status_t status, const pmix_data_buffer_t *paths)
{
    /* done among the participants that stayed: OpenPMIx 4.2.2's answer
     * when one leaves a fence or connect, whether it finalized or died */
    if (status == PMIX_SUCCESS && f->departed && f->ops == NULL)
        status = PMIX_ERR_PARTIAL_SUCCESS;
    unlist_fence(f);
    while (f->members != NULL) {
        member_t *m = f->members;
        f->members = m->next;
        sy_srv_peer_reply_with(m->peer, m->tag, status, paths);
        sy_srv_peer_release(m->peer);
        free(m);
    }
    fence_free(f);
}

/* ---- publishing the collected data ---- */

typedef struct nsb {
    pmix_nspace_t nspace;
    sy_jseg_builder_t *b;
    uint32_t *ranks; /* whose data went in (a process's records come together) */
    size_t nranks, cap;
    bool nomem;
    struct nsb *next;
} nsb_t;

static nsb_t *builder_for(nsb_t **list, const char *nspace)
{
    for (nsb_t *x = *list; x != NULL; x = x->next)
        if (PMIX_CHECK_NSPACE(x->nspace, nspace))
            return x;
    nsb_t *x = calloc(1, sizeof(*x));
    if (x == NULL)
        return NULL;
    PMIX_LOAD_NSPACE(x->nspace, nspace);
    if (sy_jseg_builder_new(nspace, &x->b) != PMIX_SUCCESS) {
        free(x);
        return NULL;
    }
    x->next = *list;
    *list = x;
    return x;
}

static void note_rank(nsb_t *x, uint32_t rank)
{
    if (x->nranks > 0 && x->ranks[x->nranks - 1] == rank)
        return;
    if (x->nranks == x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        uint32_t *g = realloc(x->ranks, cap * sizeof(*g));
        if (g == NULL) {
            x->nomem = true; /* the segment then retires nothing */
            return;
        }
        x->ranks = g;
        x->cap = cap;
    }
    x->ranks[x->nranks++] = rank;
}

/* borrow: v outlives the builders (committed data, unchanged while the
 * segments are built) and need not be copied */
static void put_kv(nsb_t **list, const pmix_proc_t *p, const char *key, const pmix_value_t *v,
                   bool borrow)
{
    nsb_t *x = builder_for(list, p->nspace);
    if (x == NULL)
        return;
    note_rank(x, p->rank);
    if (borrow)
        sy_jseg_put_borrowed(x->b, SY_REALM_PROC, p->rank, key, v);
    else
        sy_jseg_put(x->b, SY_REALM_PROC, p->rank, key, v);
}

/* Records from the host's blobs: what remote processes shared with us. */
static pmix_status_t add_remote(nsb_t **list, pmix_data_buffer_t *blob, sy_srv_t *s)
{
    while (sy_buffer_remaining(blob) > 0) {
        pmix_proc_t p;
        size_t n = 0;
        int32_t one = 1;
        pmix_status_t rc = sy_unpack(blob, &p, &one, PMIX_PROC);
        one = 1;
        if (rc == PMIX_SUCCESS)
            rc = sy_unpack(blob, &n, &one, PMIX_SIZE);
        if (rc != PMIX_SUCCESS)
            return rc;
        sy_srv_nspace_t *ns = sy_srv_nspace_find(s, p.nspace);
        bool local = ns != NULL && rank_local(ns, p.rank);
        for (size_t i = 0; i < n; i++) {
            uint8_t scope;
            char *key = NULL;
            pmix_value_t v;
            memset(&v, 0, sizeof(v));
            one = 1;
            rc = sy_unpack(blob, &scope, &one, PMIX_UINT8);
            one = 1;
            if (rc == PMIX_SUCCESS)
                rc = sy_unpack(blob, &key, &one, PMIX_STRING);
            one = 1;
            if (rc == PMIX_SUCCESS)
                rc = sy_unpack(blob, &v, &one, PMIX_VALUE);
            /* our own processes' data is already in, with LOCAL scope too */
            if (rc == PMIX_SUCCESS && !local && key != NULL)
                put_kv(list, &p, key, &v, false);
            free(key);
            sy_value_destruct(&v);
            if (rc != PMIX_SUCCESS)
                return rc;
        }
    }
    return PMIX_SUCCESS;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static bool subset(const uint32_t *a, size_t na, const uint32_t *b, size_t nb)
{
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && b[j] < a[i])
            j++;
        if (j == nb || b[j] != a[i])
            return false;
    }
    return true;
}

static void mfile_free(mfile_t *m)
{
    free(m->path);
    free(m->ranks);
    free(m);
}

/* Committed data only grows, so an older segment of the namespace holding
 * no process the new one lacks says nothing the new one does not: its file
 * goes (readers that mapped it keep their mapping; the others are told in
 * the reply to drop it), so that a job fencing often does not pile up files
 * and mappings.  Its path is packed into `retired`. */
static pmix_status_t retire_covered(const mfile_t *fresh, pmix_data_buffer_t *retired,
                                    size_t *nretired)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (mfile_t **pp = &mfiles; *pp != NULL && rc == PMIX_SUCCESS;) {
        mfile_t *m = *pp;
        if (m == fresh || !PMIX_CHECK_NSPACE(m->nspace, fresh->nspace) ||
            !subset(m->ranks, m->nranks, fresh->ranks, fresh->nranks)) {
            pp = &m->next;
            continue;
        }
        *pp = m->next;
        sy_srv_unlink(m->path);
        sy_store_modex_forget(m->nspace, m->path);
        rc = sy_pack(retired, &m->path, 1, PMIX_STRING);
        (*nretired)++;
        mfile_free(m);
    }
    return rc;
}

/* Reply after the status: SIZE n, n x (STRING nspace, STRING path) the
 * segments to map, then SIZE k, k x STRING path the segments retired. */
static pmix_status_t publish_collected(sy_srv_t *s, fence_t *f, pmix_data_buffer_t *paths)
{
    nsb_t *list = NULL;
    for (posted_t *p = posted_list; p != NULL; p = p->next) {
        if (!in_set(f->procs, f->nprocs, &p->proc))
            continue;
        for (kv_t *k = p->kvs; k != NULL; k = k->next)
            if (k->scope != PMIX_REMOTE)
                put_kv(&list, &p->proc, k->key, &k->val, true);
    }
    pmix_status_t rc = PMIX_SUCCESS;
    if (f->remote_data.bytes_used > 0)
        rc = add_remote(&list, &f->remote_data, s);
    size_t n = 0;
    for (nsb_t *x = list; x != NULL; x = x->next)
        n++;
    memset(paths, 0, sizeof(*paths));
    pmix_data_buffer_t retired = {0};
    size_t nretired = 0;
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(paths, &n, 1, PMIX_SIZE);
    while (list != NULL) {
        nsb_t *x = list;
        list = x->next;
        mfile_t *m = rc == PMIX_SUCCESS ? calloc(1, sizeof(*m)) : NULL;
        if (rc == PMIX_SUCCESS && m == NULL)
            rc = PMIX_ERR_NOMEM;
        if (rc == PMIX_SUCCESS) {
            make_spare(s);
            if (spare_fd < 0)
                rc = PMIX_ERR_FILE_OPEN_FAILURE;
        }
        if (rc == PMIX_SUCCESS) {
            /* the spare's name is known to nobody yet: written in place */
            m->path = spare_path;
            spare_path = NULL;
            rc = sy_jseg_publish_fd(x->b, spare_fd, m->path, &image);
            spare_fd = -1;
        }
        if (rc == PMIX_SUCCESS) {
            PMIX_LOAD_NSPACE(m->nspace, x->nspace);
            m->next = mfiles;
            mfiles = m;
            sy_store_attach_modex(x->nspace, m->path);
            const char *nsname = x->nspace;
            rc = sy_pack(paths, &nsname, 1, PMIX_STRING);
            if (rc == PMIX_SUCCESS)
                rc = sy_pack(paths, &m->path, 1, PMIX_STRING);
            if (rc == PMIX_SUCCESS && !x->nomem) {
                qsort(x->ranks, x->nranks, sizeof(*x->ranks), u32_cmp);
                m->ranks = x->ranks;
                m->nranks = x->nranks;
                x->ranks = NULL;
                rc = retire_covered(m, &retired, &nretired);
            }
        } else if (m != NULL) {
            mfile_free(m);
        }
        sy_jseg_builder_free(x->b);
        free(x->ranks);
        free(x);
    }
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(paths, &nretired, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && nretired > 0)
        rc = sy_buffer_append(paths, retired.base_ptr, retired.bytes_used);
    sy_buffer_destruct(&retired);
    return rc;
}

static void fence_complete(fence_t *f)
{
    if (f->kind == SY_CMD_DISCONNECT) {
        /* nothing to exchange: no segment to map, none retired */
        pmix_data_buffer_t none = {0};
        size_t zero = 0;
        pmix_status_t rc = sy_pack(&none, &zero, 1, PMIX_SIZE);
        if (rc == PMIX_SUCCESS)
            rc = sy_pack(&none, &zero, 1, PMIX_SIZE);
        fence_finish(f, rc, rc == PMIX_SUCCESS ? &none : NULL);
        sy_buffer_destruct(&none);
        return;
    }
    pmix_data_buffer_t paths = {0};
    pmix_status_t rc = publish_collected(sy_srv, f, &paths);
    fence_finish(f, rc, rc == PMIX_SUCCESS ? &paths : NULL);
    sy_buffer_destruct(&paths);
}

/* ---- the host's fence_nb ---- */

typedef struct {
    sy_srv_upcall_t up; /* the host's cbdata is its ticket */
    fence_t *f;
    unsigned long serial; /* f's, checked before f is used: it may be gone */
    pmix_status_t status;
    char *data;
    size_t ndata;
    pmix_release_cbfunc_t release_fn;
    void *release_cbdata;
    /* what the host was given: ours until it calls back, which may be
     * after the fence itself ended here */
    pmix_proc_t *procs;
    size_t nprocs;
    pmix_info_t *info;
    size_t ninfo;
} host_fence_t;

static void host_fence_free(host_fence_t *h)
{
    if (h->procs != NULL)
        PMIX_PROC_FREE(h->procs, h->nprocs);
    if (h->info != NULL)
        PMIX_INFO_FREE(h->info, h->ninfo);
    free(h);
}

static bool fence_alive(const fence_t *f)
{
    for (const fence_t *x = fences; x != NULL; x = x->next)
        if (x == f)
            return true;
    return false;
}

/* On the loop, not in the host's callback: Slurm holds a lock there. */
static void host_fence_done(void *arg)
{
    host_fence_t *h = arg;
    if (fence_alive(h->f) && h->f->serial == h->serial) {
        fence_t *f = h->f;
        if (h->status == PMIX_SUCCESS && h->ndata > 0 &&
            sy_buffer_append(&f->remote_data, h->data, h->ndata) != PMIX_SUCCESS)
            h->status = PMIX_ERR_NOMEM;
        if (h->status == PMIX_SUCCESS)
            fence_complete(f);
        else
            fence_finish(f, h->status, NULL);
    }
    if (h->release_fn != NULL)
        h->release_fn(h->release_cbdata);
    host_fence_free(h);
}

/* The server is gone: we are in the host's callback, which may hold the
 * lock its release_fn takes. */
static void host_fence_drop(void *arg)
{
    host_fence_t *h = arg;
    sy_srv_release_later(h->release_fn, h->release_cbdata);
    host_fence_free(h);
}

static void host_fence_cb(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
                          pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    host_fence_t *h = sy_srv_upcall_claim(cbdata);
    if (h == NULL) { /* ended already (an error return): only release */
        sy_srv_release_later(release_fn, release_cbdata);
        return;
    }
    /* The data stays the host's until release_fn, called on the loop once
     * this returned: Slurm calls here holding the lock release_fn takes. */
    h->status = status;
    h->data = (char *)data;
    h->ndata = data != NULL ? ndata : 0;
    h->release_fn = release_fn;
    h->release_cbdata = release_cbdata;
    sy_srv_post_or_drop(host_fence_done, host_fence_drop, h);
}

static void host_op_done_on_loop(void *arg)
{
    host_fence_t *h = arg;
    if (fence_alive(h->f) && h->f->serial == h->serial) {
        if (h->status == PMIX_SUCCESS)
            fence_complete(h->f);
        else
            fence_finish(h->f, h->status, NULL);
    }
    host_fence_free(h);
}

static void host_op_drop(void *arg)
{
    host_fence_free(arg);
}

static void host_op_cb(pmix_status_t status, void *cbdata)
{
    host_fence_t *h = sy_srv_upcall_claim(cbdata);
    if (h == NULL)
        return;
    h->status = status;
    sy_srv_post_or_drop(host_op_done_on_loop, host_op_drop, h);
}

/* What the host's fence_nb/connect/disconnect get (Chap_API_Server.tex):
 * the participants' directives (the first arrival's; PMIX_COLLECT_DATA as
 * any participant asked) and PMIX_LOCAL_COLLECTIVE_STATUS, the outcome of
 * the part done here: success, PMIX_ERR_PARTIAL_SUCCESS when a local
 * participant left first, PMIX_ERR_LOST_CONNECTION when none of them is
 * left (the host is still asked, so that the other nodes' participants
 * are not left waiting).  Destruct with PMIX_INFO_FREE. */
static bool ours(const pmix_info_t *i)
{
    return PMIX_CHECK_KEY(i, PMIX_COLLECT_DATA) || PMIX_CHECK_KEY(i, PMIX_LOCAL_COLLECTIVE_STATUS);
}

static pmix_status_t host_directives(const fence_t *f, pmix_info_t **out, size_t *nout)
{
    size_t n = f->collect + 1;
    for (size_t i = 0; i < f->ndirs; i++)
        n += !ours(&f->dirs[i]);
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, n);
    if (info == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < f->ndirs; i++)
        if (!ours(&f->dirs[i]))
            PMIx_Info_xfer(&info[k++], &f->dirs[i]);
    if (f->collect) {
        bool yes = true;
        PMIX_INFO_LOAD(&info[k], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        k++;
    }
    /* a departure here: partial, or lost when none of ours is left */
    pmix_status_t local = !f->departed         ? PMIX_SUCCESS
                          : f->members != NULL ? PMIX_ERR_PARTIAL_SUCCESS
                                               : PMIX_ERR_LOST_CONNECTION;
    PMIX_INFO_LOAD(&info[k], PMIX_LOCAL_COLLECTIVE_STATUS, &local, PMIX_STATUS);
    *out = info;
    *nout = n;
    return PMIX_SUCCESS;
}

/* A host_fence_t holding the participants and directives the host gets. */
static host_fence_t *host_fence_new(fence_t *f)
{
    host_fence_t *h = calloc(1, sizeof(*h));
    if (h == NULL)
        return NULL;
    h->f = f;
    h->serial = f->serial;
    if (f->nprocs > 0) {
        PMIX_PROC_CREATE(h->procs, f->nprocs);
        if (h->procs == NULL) {
            free(h);
            return NULL;
        }
        memcpy(h->procs, f->procs, f->nprocs * sizeof(pmix_proc_t));
        h->nprocs = f->nprocs;
    }
    if (host_directives(f, &h->info, &h->ninfo) != PMIX_SUCCESS) {
        host_fence_free(h);
        return NULL;
    }
    return h;
}

/* Connect/disconnect across nodes: the host's own upcalls. */
static void connect_ready(sy_srv_t *s, fence_t *f)
{
    pmix_server_connect_fn_t fn =
        f->kind == SY_CMD_CONNECT ? s->module.connect : s->module.disconnect;
    if (fn == NULL) {
        fence_finish(f, PMIX_ERR_NOT_SUPPORTED, NULL);
        return;
    }
    host_fence_t *h = host_fence_new(f);
    if (h == NULL) {
        fence_finish(f, PMIX_ERR_NOMEM, NULL);
        return;
    }
    f->host_called = true;
    pmix_status_t rc =
        fn(h->procs, h->nprocs, h->info, h->ninfo, host_op_cb, sy_srv_upcall_ticket(&h->up, h));
    if (sy_srv_upcall_returned(&h->up, rc)) {
        host_fence_free(h);
        if (rc == PMIX_OPERATION_SUCCEEDED)
            fence_complete(f);
        else
            fence_finish(f, rc, NULL);
    }
}

static void fence_ready(sy_srv_t *s, fence_t *f)
{
    if (f->ops != NULL) {
        f->ops->ready(f, f->ctx);
        return;
    }
    if (!f->remote) {
        if (f->members == NULL) /* every participant here left: no one to tell */
            fence_finish(f, PMIX_ERR_LOST_CONNECTION, NULL);
        else
            fence_complete(f);
        return;
    }
    if (f->kind != SY_CMD_FENCE) {
        connect_ready(s, f);
        return;
    }
    if (s->module.fence_nb == NULL) {
        fence_finish(f, PMIX_ERR_NOT_SUPPORTED, NULL);
        return;
    }
    pmix_data_buffer_t blob = {0};
    pmix_status_t rc = sy_srv_coll_blob(f, &blob);
    host_fence_t *h = rc == PMIX_SUCCESS ? host_fence_new(f) : NULL;
    if (h == NULL) {
        sy_buffer_destruct(&blob);
        fence_finish(f, rc != PMIX_SUCCESS ? rc : PMIX_ERR_NOMEM, NULL);
        return;
    }
    f->host_called = true;
    /* The blob is the host's, malloc'd: it frees it (Open MPI's ORTE
     * does), as with OpenPMIx 4.2.2, also when it refuses the call. */
    char *data = blob.base_ptr;
    size_t ndata = blob.bytes_used;
    rc = s->module.fence_nb(h->procs, h->nprocs, h->info, h->ninfo, data, ndata, host_fence_cb,
                            sy_srv_upcall_ticket(&h->up, h));
    if (sy_srv_upcall_returned(&h->up, rc)) {
        host_fence_free(h);
        if (rc == PMIX_OPERATION_SUCCEEDED) {
            /* done at once, with nothing from elsewhere: ours published */
            fence_complete(f);
            return;
        }
        fence_finish(f, rc, NULL);
    }
}

/* A local participant of a fence, connect or disconnect ended before the
 * part done here was complete: one less to wait for. */
static void depart(fence_t *f)
{
    f->departed = true;
    if (f->host_called)
        return; /* the host has it now: its answer ends it */
    if (f->expected > 0)
        f->expected--;
    if (f->arrived >= f->expected)
        fence_ready(sy_srv, f);
}

static void depart_if_ended(fence_t *f, const char *nspace, pmix_rank_t rank)
{
    pmix_proc_t p;
    bool finalized;
    PMIX_LOAD_PROCID(&p, nspace, rank);
    if (sy_group_ended(&p, &finalized)) {
        f->departed = true;
        if (f->expected > 0)
            f->expected--;
    }
}

/* A new fence, connect or disconnect does not wait for the local
 * participants that ended before it began (counted in `expected`). */
static void skip_ended(fence_t *f)
{
    for (size_t i = 0; i < f->nprocs; i++) {
        const sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, f->procs[i].nspace);
        if (ns == NULL)
            continue;
        if (f->procs[i].rank != PMIX_RANK_WILDCARD) {
            if (rank_local(ns, f->procs[i].rank))
                depart_if_ended(f, ns->name, f->procs[i].rank);
            continue;
        }
        for (uint32_t k = 0; k < ns->summary.nlocal; k++)
            depart_if_ended(f, ns->name,
                            ns->summary.local_ranks != NULL ? ns->summary.local_ranks[k] : k);
    }
}

static void fence_timeout(void *arg)
{
    fence_t *f = arg;
    if (f->timer != NULL) {
        sy_timer_cancel(f->timer);
        f->timer = NULL;
    }
    if (f->ops != NULL && f->ops->timeout != NULL)
        f->ops->timeout(f, f->ctx);
    else if (!f->host_called)
        fence_finish(f, PMIX_ERR_TIMEOUT, NULL);
}

/* ---- requests ---- */

static void handle_commit(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    size_t n = 0;
    int32_t one = 1;
    pmix_status_t rc = sy_unpack(b, &n, &one, PMIX_SIZE);
    posted_t *p = rc == PMIX_SUCCESS ? posted_find(&peer->proc, true) : NULL;
    if (p == NULL) {
        sy_srv_peer_reply_status(peer, tag, rc == PMIX_SUCCESS ? PMIX_ERR_NOMEM : rc);
        return;
    }
    for (size_t i = 0; i < n && rc == PMIX_SUCCESS; i++) {
        kv_t *k = calloc(1, sizeof(*k));
        if (k == NULL) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        one = 1;
        rc = sy_unpack(b, &k->scope, &one, PMIX_UINT8);
        one = 1;
        if (rc == PMIX_SUCCESS)
            rc = sy_unpack(b, &k->key, &one, PMIX_STRING);
        one = 1;
        if (rc == PMIX_SUCCESS)
            rc = sy_unpack(b, &k->val, &one, PMIX_VALUE);
        if (rc != PMIX_SUCCESS || k->key == NULL) {
            kvs_free(k);
            rc = rc != PMIX_SUCCESS ? rc : PMIX_ERR_BAD_PARAM;
            break;
        }
        /* a key committed again replaces the old value */
        for (kv_t **pp = &p->kvs; *pp != NULL; pp = &(*pp)->next) {
            if (strcmp((*pp)->key, k->key) == 0) {
                kv_t *old = *pp;
                *pp = old->next;
                old->next = NULL;
                kvs_free(old);
                break;
            }
        }
        k->next = p->kvs;
        p->kvs = k;
    }
    p->committed = true;
    sy_srv_peer_reply_status(peer, tag,
                             rc == PMIX_SUCCESS ? PMIX_SUCCESS : PMIX_ERR_UNPACK_FAILURE);
    /* held direct-modex requests for this process may be answerable now */
    poke_waiters(&peer->proc);
    /* a fence usually follows: its file, made now rather than while the
     * participants arrive */
    make_spare(sy_srv);
}

static void handle_fence(sy_srv_peer_t *peer, uint8_t kind, uint32_t tag, pmix_data_buffer_t *b)
{
    size_t nprocs = 0, ninfo = 0;
    pmix_proc_t *procs = NULL;
    pmix_info_t *info = NULL;
    pmix_status_t rc = sy_srv_unpack_procs(b, &procs, &nprocs);
    if (rc == PMIX_SUCCESS && nprocs == 0)
        rc = PMIX_ERR_BAD_PARAM;
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_unpack_infos(b, &info, &ninfo);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_group_expand(&procs, &nprocs); /* {group id, rank} names members */
    if (rc == PMIX_SUCCESS && !in_set(procs, nprocs, &peer->proc))
        rc = PMIX_ERR_BAD_PARAM; /* a fence the caller does not take part in */
    fence_t *f = NULL;
    if (rc == PMIX_SUCCESS) {
        for (f = fences; f != NULL && !same_set(f, kind, procs, nprocs); f = f->next)
            ;
        if (f == NULL &&
            (rc = sy_srv_coll_new(kind, NULL, procs, nprocs, NULL, NULL, &f)) == PMIX_SUCCESS) {
            procs = NULL;
            skip_ended(f);
        }
    }
    if (rc == PMIX_SUCCESS) {
        if (sy_info_flag(info, ninfo, PMIX_COLLECT_DATA) ||
            sy_info_flag(info, ninfo, PMIX_COLLECT_GENERATED_JOB_INFO))
            f->collect = true;
        double secs = 0; /* an unreadable PMIX_TIMEOUT: no limit of ours */
        if (sy_info_timeout(info, ninfo, &secs) == PMIX_SUCCESS)
            sy_srv_coll_set_timeout(f, secs);
        if (f->dirs == NULL && ninfo > 0) { /* the first arrival's, for the host */
            f->dirs = info;
            f->ndirs = ninfo;
            info = NULL;
        }
    }
    if (info != NULL)
        PMIX_INFO_FREE(info, ninfo);
    free(procs); /* an existing fence kept its own copy */
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_coll_join(f, peer, tag);
    if (rc != PMIX_SUCCESS)
        sy_srv_peer_reply_status(peer, tag, rc);
}

/* ---- collectives other files drive (server_internal.h) ---- */

pmix_status_t sy_srv_coll_new(uint8_t kind, const char *key, pmix_proc_t *procs, size_t nprocs,
                              const sy_srv_coll_ops_t *ops, void *ctx, sy_srv_coll_t **out)
{
    size_t expected = 0;
    bool remote = false;
    pmix_status_t rc = count_local(sy_srv, procs, nprocs, &expected, &remote);
    if (rc != PMIX_SUCCESS)
        return rc;
    static unsigned long serials;
    fence_t *f = calloc(1, sizeof(*f));
    if (f == NULL || (key != NULL && (f->key = strdup(key)) == NULL)) {
        free(f);
        return PMIX_ERR_NOMEM;
    }
    f->kind = kind;
    f->procs = procs;
    f->nprocs = nprocs;
    f->expected = expected;
    f->remote = remote;
    f->ops = ops;
    f->ctx = ctx;
    f->serial = ++serials;
    f->members_tail = &f->members;
    f->next = fences;
    fences = f;
    sy_log(SY_LOG_DEBUG, "%s over %zu proc entries (%s.%u first): %zu local, %s",
           kind == SY_CMD_FENCE ? "fence"
           : ops != NULL        ? "group operation"
                                : "connect/disconnect",
           nprocs, f->procs[0].nspace, f->procs[0].rank, expected,
           remote ? "others elsewhere" : "all here");
    *out = f;
    return PMIX_SUCCESS;
}

sy_srv_coll_t *sy_srv_coll_find(uint8_t kind, const char *key)
{
    for (fence_t *f = fences; f != NULL; f = f->next)
        if (f->kind == kind && f->key != NULL && strcmp(f->key, key) == 0)
            return f;
    return NULL;
}

void sy_srv_coll_set_timeout(sy_srv_coll_t *f, double seconds)
{
    if (seconds > 0 && f->timer == NULL)
        sy_progress_timer(sy_srv->progress, seconds, fence_timeout, f, &f->timer);
}

pmix_status_t sy_srv_coll_join(sy_srv_coll_t *f, sy_srv_peer_t *peer, uint32_t tag)
{
    if (!in_set(f->procs, f->nprocs, &peer->proc))
        return PMIX_ERR_BAD_PARAM; /* a collective the caller does not take part in */
    member_t *m = calloc(1, sizeof(*m));
    if (m == NULL)
        return PMIX_ERR_NOMEM;
    m->peer = peer;
    m->tag = tag;
    *f->members_tail = m;
    f->members_tail = &m->next;
    sy_srv_peer_hold(peer);
    if (++f->arrived >= f->expected)
        fence_ready(sy_srv, f);
    else if (f->kind != SY_CMD_DISCONNECT)
        make_spare(sy_srv); /* while waiting for the others */
    return PMIX_SUCCESS;
}

bool sy_srv_coll_joined(const sy_srv_coll_t *f, const pmix_proc_t *p)
{
    for (const member_t *m = f->members; m != NULL; m = m->next)
        if (PMIX_CHECK_PROCID(&m->peer->proc, p))
            return true;
    return false;
}

bool sy_srv_coll_remote(const sy_srv_coll_t *f)
{
    return f->remote;
}

const pmix_proc_t *sy_srv_coll_procs(const sy_srv_coll_t *f, size_t *n)
{
    *n = f->nprocs;
    return f->procs;
}

void sy_srv_coll_drop(sy_srv_coll_t *f, const pmix_proc_t *p)
{
    for (size_t i = 0; i < f->nprocs; i++) {
        if (!PMIX_CHECK_PROCID(&f->procs[i], p))
            continue;
        memmove(&f->procs[i], &f->procs[i + 1], (f->nprocs - i - 1) * sizeof(*f->procs));
        f->nprocs--;
        sy_srv_nspace_t *ns = sy_srv_nspace_find(sy_srv, p->nspace);
        if (ns != NULL && rank_local(ns, p->rank) && f->expected > 0)
            f->expected--;
        break;
    }
    if (f->arrived >= f->expected && !f->host_called)
        fence_ready(sy_srv, f);
}

void sy_srv_coll_host_called(sy_srv_coll_t *f)
{
    f->host_called = true;
}

pmix_status_t sy_srv_coll_blob(const sy_srv_coll_t *f, pmix_data_buffer_t *blob)
{
    pmix_status_t rc = PMIX_SUCCESS;
    for (posted_t *p = posted_list; p != NULL && rc == PMIX_SUCCESS; p = p->next)
        if (in_set(f->procs, f->nprocs, &p->proc))
            rc = pack_record(blob, p, false);
    return rc;
}

pmix_status_t sy_srv_coll_publish(sy_srv_coll_t *f, const void *remote, size_t nremote,
                                  pmix_data_buffer_t *paths)
{
    if (nremote > 0 && sy_buffer_append(&f->remote_data, remote, nremote) != PMIX_SUCCESS)
        return PMIX_ERR_NOMEM;
    return publish_collected(sy_srv, f, paths);
}

void sy_srv_coll_finish(sy_srv_coll_t *f, pmix_status_t status, const pmix_data_buffer_t *extra)
{
    fence_finish(f, status, extra);
}

/* ---- direct modex ---- */

static void waiter_free(waiter_t *w)
{
    if (w->timer != NULL)
        sy_timer_cancel(w->timer);
    free(w->key);
    free(w);
}

static void unlist_waiter(waiter_t *w)
{
    for (waiter_t **pp = &waiters; *pp != NULL; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            return;
        }
}

/* Answer a waiting client with (owner, value), or the host with a blob. */
static void waiter_answer(waiter_t *w, pmix_status_t status, const posted_t *p, const kv_t *k)
{
    unlist_waiter(w);
    if (w->peer == NULL) {
        pmix_data_buffer_t blob = {0};
        if (status == PMIX_SUCCESS)
            status = pack_record(&blob, p, false);
        if (w->hostcb != NULL)
            w->hostcb(status, blob.base_ptr, blob.bytes_used, w->hostcbdata);
        sy_buffer_destruct(&blob);
    } else {
        pmix_data_buffer_t out = {0};
        if (sy_pack(&out, &status, 1, PMIX_STATUS) == PMIX_SUCCESS &&
            (status != PMIX_SUCCESS || (sy_pack(&out, &p->proc, 1, PMIX_PROC) == PMIX_SUCCESS &&
                                        sy_pack(&out, &k->val, 1, PMIX_VALUE) == PMIX_SUCCESS)))
            sy_srv_peer_reply(w->peer, w->tag, &out);
        sy_buffer_destruct(&out);
        sy_srv_peer_release(w->peer);
    }
    waiter_free(w);
}

/* Try to answer w from committed data; true when it was answered. */
static bool waiter_try(waiter_t *w)
{
    if (w->key == NULL) {
        posted_t *p = posted_find(&w->target, false);
        if (p == NULL || !p->committed)
            return false;
        waiter_answer(w, PMIX_SUCCESS, p, NULL);
        return true;
    }
    for (posted_t *p = posted_list; p != NULL; p = p->next) {
        if (!PMIX_CHECK_NSPACE(p->proc.nspace, w->target.nspace) ||
            (w->target.rank != PMIX_RANK_UNDEF && p->proc.rank != w->target.rank))
            continue;
        const kv_t *k = kv_find(p, w->key);
        if (k != NULL && k->scope != PMIX_REMOTE) {
            waiter_answer(w, PMIX_SUCCESS, p, k);
            return true;
        }
        if (k != NULL) {
            waiter_answer(w, PMIX_ERR_EXISTS_OUTSIDE_SCOPE, p, NULL);
            return true;
        }
        /* a key not posted yet may still come, until the process is gone */
        if (p->gone && w->target.rank != PMIX_RANK_UNDEF) {
            waiter_answer(w, PMIX_ERR_NOT_FOUND, p, NULL);
            return true;
        }
    }
    return false;
}

static void poke_waiters(const pmix_proc_t *proc)
{
    for (waiter_t *w = waiters, *next; w != NULL; w = next) {
        next = w->next;
        if (PMIX_CHECK_NSPACE(w->target.nspace, proc->nspace) &&
            (w->target.rank == PMIX_RANK_UNDEF || w->target.rank == proc->rank))
            waiter_try(w);
    }
}

static void waiter_timeout(void *arg)
{
    waiter_t *w = arg;
    if (w->timer != NULL) {
        sy_timer_cancel(w->timer);
        w->timer = NULL;
    }
    waiter_answer(w, PMIX_ERR_TIMEOUT, NULL, NULL);
}

typedef struct {
    sy_srv_upcall_t up; /* the host's cbdata is its ticket */
    sy_srv_peer_t *peer;
    uint32_t tag;
    char *key;
    pmix_status_t status;
    pmix_data_buffer_t blob;
    pmix_proc_t target; /* given to the host: ours until it calls back */
    pmix_info_t *info;  /* the client's directives + PMIX_REQUIRED_KEY */
    size_t ninfo;
} host_dmx_t;

static void host_dmx_free(host_dmx_t *h)
{
    if (h->info != NULL)
        PMIX_INFO_FREE(h->info, h->ninfo);
    free(h->key);
    sy_buffer_destruct(&h->blob);
    free(h);
}

/* The owner node's record: find our key in it and answer. */
static void host_dmx_done(void *arg)
{
    host_dmx_t *h = arg;
    pmix_status_t status = h->status;
    pmix_data_buffer_t out = {0};
    bool found = false;
    while (status == PMIX_SUCCESS && !found && sy_buffer_remaining(&h->blob) > 0) {
        pmix_proc_t p;
        size_t n = 0;
        int32_t one = 1;
        status = sy_unpack(&h->blob, &p, &one, PMIX_PROC);
        one = 1;
        if (status == PMIX_SUCCESS)
            status = sy_unpack(&h->blob, &n, &one, PMIX_SIZE);
        for (size_t i = 0; status == PMIX_SUCCESS && i < n && !found; i++) {
            uint8_t scope;
            char *key = NULL;
            pmix_value_t v;
            memset(&v, 0, sizeof(v));
            one = 1;
            status = sy_unpack(&h->blob, &scope, &one, PMIX_UINT8);
            one = 1;
            if (status == PMIX_SUCCESS)
                status = sy_unpack(&h->blob, &key, &one, PMIX_STRING);
            one = 1;
            if (status == PMIX_SUCCESS)
                status = sy_unpack(&h->blob, &v, &one, PMIX_VALUE);
            if (status == PMIX_SUCCESS && key != NULL && strcmp(key, h->key) == 0) {
                pmix_status_t ok = PMIX_SUCCESS;
                found = sy_pack(&out, &ok, 1, PMIX_STATUS) == PMIX_SUCCESS &&
                        sy_pack(&out, &p, 1, PMIX_PROC) == PMIX_SUCCESS &&
                        sy_pack(&out, &v, 1, PMIX_VALUE) == PMIX_SUCCESS;
            }
            free(key);
            sy_value_destruct(&v);
        }
    }
    if (found)
        sy_srv_peer_reply(h->peer, h->tag, &out);
    else
        sy_srv_peer_reply_status(h->peer, h->tag,
                                 status == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND : status);
    sy_buffer_destruct(&out);
    sy_srv_peer_release(h->peer);
    host_dmx_free(h);
}

static void host_dmx_drop(void *arg)
{
    host_dmx_free(arg);
}

static void host_dmx_cb(pmix_status_t status, const char *data, size_t ndata, void *cbdata,
                        pmix_release_cbfunc_t release_fn, void *release_cbdata)
{
    host_dmx_t *h = sy_srv_upcall_claim(cbdata);
    if (h != NULL) {
        h->status = status;
        if (status == PMIX_SUCCESS && data != NULL && ndata > 0 &&
            sy_buffer_append(&h->blob, data, ndata) != PMIX_SUCCESS)
            h->status = PMIX_ERR_NOMEM;
    }
    /* copied: the host's buffer goes back to it once this returned */
    sy_srv_release_later(release_fn, release_cbdata);
    if (h != NULL)
        sy_srv_post_or_drop(host_dmx_done, host_dmx_drop, h);
}

/* What the host's direct_modex gets: every directive of the client (its
 * PMIX_TIMEOUT among them) and the key wanted, as PMIX_REQUIRED_KEY
 * (Chap_API_Server.tex; OpenPMIx 4.2.2 tells hosts the same). */
static pmix_status_t host_dmx_infos(host_dmx_t *h, const char *key, const pmix_info_t *info,
                                    size_t ninfo)
{
    PMIX_INFO_CREATE(h->info, ninfo + 1);
    if (h->info == NULL)
        return PMIX_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < ninfo; i++)
        if (!sy_info_is(&info[i], PMIX_REQUIRED_KEY) &&
            PMIx_Info_xfer(&h->info[k], &info[i]) == PMIX_SUCCESS)
            k++;
    PMIX_INFO_LOAD(&h->info[k], PMIX_REQUIRED_KEY, key, PMIX_STRING);
    h->ninfo = k + 1;
    return PMIX_SUCCESS;
}

static void handle_dmodex(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_srv_t *s = sy_srv;
    pmix_proc_t target;
    char *key = NULL;
    size_t ninfo = 0;
    pmix_info_t *info = NULL;
    int32_t one = 1;
    pmix_status_t rc = sy_unpack(b, &target, &one, PMIX_PROC);
    one = 1;
    if (rc == PMIX_SUCCESS)
        rc = sy_unpack(b, &key, &one, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = sy_srv_unpack_infos(b, &info, &ninfo);
    if (rc == PMIX_SUCCESS && key == NULL)
        rc = PMIX_ERR_BAD_PARAM;
    sy_srv_nspace_t *ns = rc == PMIX_SUCCESS ? sy_srv_nspace_find(s, target.nspace) : NULL;
    if (rc == PMIX_SUCCESS && ns == NULL)
        rc = PMIX_ERR_NOT_FOUND;
    double t = 0;
    if (rc == PMIX_SUCCESS)
        rc = sy_info_timeout(info, ninfo, &t);
    /* PMIX_IMMEDIATE: what this server holds now, never the host's */
    bool immediate = rc == PMIX_SUCCESS && sy_info_flag(info, ninfo, PMIX_IMMEDIATE);
    bool remote =
        rc == PMIX_SUCCESS && target.rank != PMIX_RANK_UNDEF && !rank_local(ns, target.rank);
    if (rc == PMIX_SUCCESS && remote && (immediate || s->module.direct_modex == NULL))
        rc = PMIX_ERR_NOT_FOUND;
    if (rc != PMIX_SUCCESS) {
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        free(key);
        sy_srv_peer_reply_status(peer, tag, rc);
        return;
    }
    if (remote) {
        /* another node's process: its server answers through our host */
        host_dmx_t *h = calloc(1, sizeof(*h));
        if (h == NULL || host_dmx_infos(h, key, info, ninfo) != PMIX_SUCCESS) {
            if (info != NULL)
                PMIX_INFO_FREE(info, ninfo);
            free(key);
            free(h);
            sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
            return;
        }
        if (info != NULL)
            PMIX_INFO_FREE(info, ninfo);
        h->peer = peer;
        h->tag = tag;
        h->key = key;
        sy_srv_peer_hold(peer);
        h->target = target;
        rc = s->module.direct_modex(&h->target, h->info, h->ninfo, host_dmx_cb,
                                    sy_srv_upcall_ticket(&h->up, h));
        if (sy_srv_upcall_returned(&h->up, rc)) {
            sy_srv_peer_reply_status(peer, tag,
                                     rc == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_NOT_FOUND : rc);
            sy_srv_peer_release(peer);
            host_dmx_free(h);
        }
        return;
    }
    if (info != NULL)
        PMIX_INFO_FREE(info, ninfo);
    waiter_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        free(key);
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOMEM);
        return;
    }
    w->peer = peer;
    w->tag = tag;
    w->target = target;
    w->key = key;
    sy_srv_peer_hold(peer);
    w->next = waiters;
    waiters = w;
    if (waiter_try(w))
        return;
    if (immediate) {
        waiter_answer(w, PMIX_ERR_NOT_FOUND, NULL, NULL);
        return;
    }
    /* held until the target commits, dies, or the timeout passes */
    if (t > 0)
        sy_progress_timer(s->progress, t, waiter_timeout, w, &w->timer);
}

void sy_srv_modex_command(sy_srv_peer_t *peer, uint8_t cmd, uint32_t tag, pmix_data_buffer_t *b)
{
    if (peer->client == NULL) {
        sy_srv_peer_reply_status(peer, tag, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    if (cmd == SY_CMD_COMMIT)
        handle_commit(peer, tag, b);
    else if (cmd == SY_CMD_FENCE || cmd == SY_CMD_CONNECT || cmd == SY_CMD_DISCONNECT)
        handle_fence(peer, cmd, tag, b);
    else
        handle_dmodex(peer, tag, b);
}

/* ---- lifecycle ---- */

void sy_srv_modex_peer_gone(sy_srv_peer_t *peer, bool finalized)
{
    /* a tool posts nothing: no record to keep for it */
    posted_t *mine = posted_find(&peer->proc, peer->tool == NULL);
    if (mine != NULL)
        mine->gone = true;
    /* Every fence, connect or disconnect it belongs to (as a member or an
     * expected participant) waits for it no more and ends for the others
     * with PMIX_ERR_PARTIAL_SUCCESS, whether it finalized or died (what
     * OpenPMIx 4.2.2 answers); requests it made are dropped.  The
     * collectives of other files decide for themselves, afterwards (their
     * decision may end other collectives). */
    size_t nhooked = 0;
    for (fence_t *f = fences; f != NULL; f = f->next)
        nhooked += f->ops != NULL;
    fence_t **hooked = nhooked > 0 ? calloc(nhooked, sizeof(*hooked)) : NULL;
    nhooked = 0;
    for (fence_t *f = fences, *next; f != NULL; f = next) {
        next = f->next;
        bool member = false;
        member_t **pp = &f->members;
        while (*pp != NULL) {
            member_t *m = *pp;
            if (m->peer == peer) {
                *pp = m->next;
                sy_srv_peer_release(peer);
                free(m);
                member = true;
                if (f->arrived > 0)
                    f->arrived--;
            } else {
                pp = &m->next;
            }
        }
        f->members_tail = pp;
        if (f->ops != NULL) {
            if (member || in_set(f->procs, f->nprocs, &peer->proc)) {
                if (hooked != NULL)
                    hooked[nhooked++] = f;
                else
                    fence_finish(f, PMIX_ERR_NOMEM, NULL);
            }
        } else if (member || in_set(f->procs, f->nprocs, &peer->proc)) {
            depart(f);
        }
    }
    for (size_t i = 0; i < nhooked; i++) {
        fence_t *f = hooked[i];
        if (fence_alive(f) && !f->ops->gone(f, &peer->proc, finalized, f->ctx))
            fence_finish(f, PMIX_PROC_TERMINATED, NULL);
    }
    free(hooked);
    for (waiter_t *w = waiters, *next; w != NULL; w = next) {
        next = w->next;
        if (w->peer == peer) {
            unlist_waiter(w);
            sy_srv_peer_release(peer);
            waiter_free(w);
        } else if (PMIX_CHECK_PROCID(&w->target, &peer->proc)) {
            if (finalized)
                waiter_try(w); /* answered NOT_FOUND unless the key is there */
            else
                waiter_answer(w, PMIX_PROC_TERMINATED, NULL, NULL);
        }
    }
}

static void forget_nspace(sy_srv_t *s, const char *nspace)
{
    (void)s;
    for (posted_t **pp = &posted_list; *pp != NULL;) {
        posted_t *p = *pp;
        if (nspace == NULL || PMIX_CHECK_NSPACE(p->proc.nspace, nspace)) {
            *pp = p->next;
            kvs_free(p->kvs);
            free(p);
        } else {
            pp = &p->next;
        }
    }
    for (mfile_t **pp = &mfiles; *pp != NULL;) {
        mfile_t *m = *pp;
        if (nspace == NULL || PMIX_CHECK_NSPACE(m->nspace, nspace)) {
            *pp = m->next;
            sy_srv_unlink(m->path);
            mfile_free(m);
        } else {
            pp = &m->next;
        }
    }
    sy_store_modex_drop(nspace);
}

void sy_srv_modex_nspace_gone(sy_srv_t *s, const char *nspace)
{
    forget_nspace(s, nspace);
}

void sy_srv_modex_finalize(sy_srv_t *s)
{
    while (fences != NULL)
        fence_finish(fences, PMIX_ERR_LOST_CONNECTION, NULL);
    while (waiters != NULL)
        waiter_answer(waiters, PMIX_ERR_LOST_CONNECTION, NULL, NULL);
    forget_nspace(s, NULL);
    sy_buffer_destruct(&image);
    drop_spare();
}

/* ---- PMIx_server_dmodex_request ---- */

typedef struct {
    pmix_proc_t proc;
    pmix_dmodex_response_fn_t cbfunc;
    void *cbdata;
} dmx_req_t;

static void dmodex_request_on_loop(void *arg)
{
    dmx_req_t *r = arg;
    waiter_t *w = calloc(1, sizeof(*w));
    if (w == NULL) {
        r->cbfunc(PMIX_ERR_NOMEM, NULL, 0, r->cbdata);
        free(r);
        return;
    }
    w->target = r->proc;
    w->hostcb = r->cbfunc;
    w->hostcbdata = r->cbdata;
    w->next = waiters;
    waiters = w;
    free(r);
    waiter_try(w); /* else held until the process commits */
}

PMIX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                     pmix_dmodex_response_fn_t cbfunc, void *cbdata)
{
    if (proc == NULL || cbfunc == NULL)
        return PMIX_ERR_BAD_PARAM;
    dmx_req_t *r = calloc(1, sizeof(*r));
    if (r == NULL)
        return PMIX_ERR_NOMEM;
    r->proc = *proc;
    r->cbfunc = cbfunc;
    r->cbdata = cbdata;
    pmix_status_t rc = sy_srv_post(dmodex_request_on_loop, r);
    if (rc != PMIX_SUCCESS)
        free(r);
    return rc;
}
