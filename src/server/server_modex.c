/* What clients committed (COMMIT), kept per process, and its publication
 * as modex segments once a collective gathered it (server_modex.h).
 *
 * The collected data is published as one modex segment per namespace
 * (jseg, realm PROC, id = rank) in the tmpdir, attached in our store, and
 * named in the FENCE reply so each client maps it: a Get of a peer's key
 * after a fence is a lookup in shared memory. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/buffer.h"
#include "common/datatype.h"
#include "common/jseg.h"
#include "common/log.h"
#include "common/pack.h"
#include "common/store.h"
#include "common/wire.h"
#include "server/server_coll.h"
#include "server/server_ds21.h"
#include "server/server_internal.h"
#include "server/server_lfence.h"
#include "server/server_peer.h"
#include "server/server_registry.h"
#include "server/server_modex.h"
#include "server/server_msg.h"

static sy_srv_posted_t *posted_list;
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

void sy_srv_modex_make_spare(sy_srv_t *s)
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

/* ---- committed data ---- */

sy_srv_posted_t *sy_srv_posted_all(void)
{
    return posted_list;
}

static void kvs_free(sy_srv_kv_t *k)
{
    while (k != NULL) {
        sy_srv_kv_t *n = k->next;
        sy_value_destruct(&k->val);
        free(k->key);
        free(k);
        k = n;
    }
}

sy_srv_posted_t *sy_srv_posted_find(const pmix_proc_t *p, bool create)
{
    for (sy_srv_posted_t *x = posted_list; x != NULL; x = x->next)
        if (PMIX_CHECK_PROCID(&x->proc, p))
            return x;
    if (!create)
        return NULL;
    sy_srv_posted_t *x = calloc(1, sizeof(*x));
    if (x == NULL)
        return NULL;
    x->proc = *p;
    x->next = posted_list;
    posted_list = x;
    return x;
}

const sy_srv_kv_t *sy_srv_kv_find(const sy_srv_posted_t *p, const char *key)
{
    for (const sy_srv_kv_t *k = p != NULL ? p->kvs : NULL; k != NULL; k = k->next)
        if (strcmp(k->key, key) == 0)
            return k;
    return NULL;
}

void sy_srv_posted_put(sy_srv_posted_t *p, sy_srv_kv_t *k)
{
    sy_srv_lfence_data_changed(&p->proc);
    for (sy_srv_kv_t **pp = &p->kvs; *pp != NULL; pp = &(*pp)->next) {
        if (strcmp((*pp)->key, k->key) == 0) {
            sy_srv_kv_t *old = *pp;
            *pp = old->next;
            old->next = NULL;
            kvs_free(old);
            break;
        }
    }
    k->next = p->kvs;
    p->kvs = k;
}

pmix_status_t sy_srv_pack_record(pmix_data_buffer_t *b, const sy_srv_posted_t *p, bool local_view)
{
    size_t n = 0;
    for (const sy_srv_kv_t *k = p->kvs; k != NULL; k = k->next)
        n += local_view ? k->scope != PMIX_REMOTE : k->scope != PMIX_LOCAL;
    pmix_status_t rc = sy_pack(b, &p->proc, 1, PMIX_PROC);
    if (rc == PMIX_SUCCESS)
        rc = sy_pack(b, &n, 1, PMIX_SIZE);
    for (const sy_srv_kv_t *k = p->kvs; k != NULL && rc == PMIX_SUCCESS; k = k->next) {
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

bool sy_srv_proc_in_set(const pmix_proc_t *procs, size_t n, const pmix_proc_t *p)
{
    for (size_t i = 0; i < n; i++)
        if (PMIX_CHECK_NSPACE(procs[i].nspace, p->nspace) &&
            (procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == p->rank))
            return true;
    return false;
}

bool sy_srv_rank_local(const sy_srv_nspace_t *ns, pmix_rank_t r)
{
    if (ns->summary.local_ranks == NULL)
        return r < ns->summary.nlocal;
    for (uint32_t i = 0; i < ns->summary.nlocal; i++)
        if (ns->summary.local_ranks[i] == r)
            return true;
    return false;
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
        bool local = ns != NULL && sy_srv_rank_local(ns, p.rank);
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
 * and mappings.  Its path is added to `out`'s retired. */
static pmix_status_t retire_covered(const mfile_t *fresh, sy_wire_fence_rep_t *out, size_t *cap)
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
        if (out->nretired == *cap) {
            size_t ncap = *cap > 0 ? 2 * *cap : 4;
            sy_wire_gone_t *more = realloc(out->retired, ncap * sizeof(*more));
            if (more == NULL)
                rc = PMIX_ERR_NOMEM;
            else
                out->retired = more, *cap = ncap;
        }
        if (rc == PMIX_SUCCESS) {
            /* the path is the reply's now */
            out->retired[out->nretired++].path = m->path;
            m->path = NULL;
        }
        mfile_free(m);
    }
    return rc;
}

pmix_status_t sy_srv_modex_publish(sy_srv_t *s, const pmix_proc_t *procs, size_t nprocs,
                                   pmix_data_buffer_t *remote, sy_wire_fence_rep_t *out)
{
    memset(out, 0, sizeof(*out));
    /* the OpenPMIx clients reading shared memory: before any reply */
    sy_srv_ds21_fence(s, procs, nprocs, remote);
    nsb_t *list = NULL;
    for (sy_srv_posted_t *p = posted_list; p != NULL; p = p->next) {
        if (!sy_srv_proc_in_set(procs, nprocs, &p->proc))
            continue;
        for (sy_srv_kv_t *k = p->kvs; k != NULL; k = k->next)
            if (k->scope != PMIX_REMOTE)
                put_kv(&list, &p->proc, k->key, &k->val, true);
    }
    pmix_status_t rc = PMIX_SUCCESS;
    if (remote != NULL && remote->bytes_used > 0)
        rc = add_remote(&list, remote, s);
    size_t n = 0, cap = 0;
    for (nsb_t *x = list; x != NULL; x = x->next)
        n++;
    if (rc == PMIX_SUCCESS && n > 0 && (out->segments = calloc(n, sizeof(*out->segments))) == NULL)
        rc = PMIX_ERR_NOMEM;
    while (list != NULL) {
        nsb_t *x = list;
        list = x->next;
        mfile_t *m = rc == PMIX_SUCCESS ? calloc(1, sizeof(*m)) : NULL;
        if (rc == PMIX_SUCCESS && m == NULL)
            rc = PMIX_ERR_NOMEM;
        if (rc == PMIX_SUCCESS) {
            sy_srv_modex_make_spare(s);
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
            sy_wire_segment_t *seg = &out->segments[out->nsegments++];
            seg->nspace = strdup(x->nspace);
            seg->path = strdup(m->path);
            if (seg->nspace == NULL || seg->path == NULL)
                rc = PMIX_ERR_NOMEM;
            if (rc == PMIX_SUCCESS && !x->nomem) {
                qsort(x->ranks, x->nranks, sizeof(*x->ranks), u32_cmp);
                m->ranks = x->ranks;
                m->nranks = x->nranks;
                x->ranks = NULL;
                rc = retire_covered(m, out, &cap);
            }
        } else if (m != NULL) {
            mfile_free(m);
        }
        sy_jseg_builder_free(x->b);
        free(x->ranks);
        free(x);
    }
    if (rc != PMIX_SUCCESS)
        sy_wire_fence_rep_free(out);
    return rc;
}

/* ---- requests ---- */

static void handle_commit(sy_srv_peer_t *peer, uint32_t tag, pmix_data_buffer_t *b)
{
    sy_wire_commit_req_t m;
    pmix_status_t rc = sy_srv_unpack_msg(peer, b, SY_WMSG_COMMIT_REQ, &m);
    for (size_t i = 0; rc == PMIX_SUCCESS && i < m.ndata; i++)
        if (m.data[i].key == NULL)
            rc = PMIX_ERR_BAD_PARAM;
    sy_srv_posted_t *p = rc == PMIX_SUCCESS ? sy_srv_posted_find(&peer->proc, true) : NULL;
    if (p == NULL) {
        sy_wire_commit_req_free(&m);
        sy_srv_peer_reply_status(peer, tag,
                                 rc == PMIX_SUCCESS ? PMIX_ERR_NOMEM : PMIX_ERR_UNPACK_FAILURE);
        return;
    }
    for (size_t i = 0; i < m.ndata && rc == PMIX_SUCCESS; i++) {
        sy_srv_kv_t *k = calloc(1, sizeof(*k));
        if (k == NULL) {
            rc = PMIX_ERR_NOMEM;
            break;
        }
        /* the key and value are taken from the message */
        k->scope = m.data[i].scope;
        k->key = m.data[i].key;
        k->val = m.data[i].value;
        m.data[i].key = NULL;
        memset(&m.data[i].value, 0, sizeof(m.data[i].value));
        sy_srv_posted_put(p, k);
    }
    sy_wire_commit_req_free(&m);
    p->committed = true;
    if (peer->opx_ds21)
        sy_srv_ds21_commit(p); /* where its OpenPMIx peers read it */
    sy_srv_lfence_committed(&peer->proc);
    sy_srv_peer_reply_status(peer, tag, rc);
    /* held direct-modex requests for this process may be answerable now */
    sy_srv_dmodex_poke(&peer->proc);
    /* a fence usually follows: its file, made now rather than while the
     * participants arrive */
    sy_srv_modex_make_spare(sy_srv);
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
        sy_srv_coll_command(peer, cmd, tag, b);
    else
        sy_srv_dmodex_command(peer, tag, b);
}

/* ---- lifecycle ---- */

void sy_srv_modex_proc_gone(const pmix_proc_t *proc, bool finalized)
{
    sy_srv_posted_t *mine = sy_srv_posted_find(proc, true);
    if (mine != NULL)
        mine->gone = true;
    sy_srv_lfence_proc_gone(proc);
    sy_srv_coll_proc_gone(proc, finalized);
    sy_srv_dmodex_proc_gone(proc, finalized);
}

void sy_srv_modex_peer_gone(sy_srv_peer_t *peer, bool finalized)
{
    /* a tool posts nothing: no record to keep for it */
    sy_srv_posted_t *mine = sy_srv_posted_find(&peer->proc, peer->tool == NULL);
    if (mine != NULL)
        mine->gone = true;
    if (peer->tool == NULL)
        sy_srv_lfence_peer_gone(peer);
    sy_srv_coll_peer_gone(peer, finalized);
    sy_srv_dmodex_peer_gone(peer, finalized);
}

static void forget_nspace(sy_srv_t *s, const char *nspace)
{
    (void)s;
    for (sy_srv_posted_t **pp = &posted_list; *pp != NULL;) {
        sy_srv_posted_t *p = *pp;
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
    sy_srv_lfence_nspace_gone(nspace);
    forget_nspace(s, nspace);
}

void sy_srv_modex_finalize(sy_srv_t *s)
{
    sy_srv_lfence_nspace_gone(NULL);
    sy_srv_coll_finalize();
    sy_srv_dmodex_finalize();
    forget_nspace(s, NULL);
    sy_buffer_destruct(&image);
    drop_spare();
}
