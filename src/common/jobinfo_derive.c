/* Values that follow from what the host gave (the layout from the maps,
 * the per-process and per-application data), added only where the host
 * did not give them, in the standard's types. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/jobinfo_internal.h"
#include "common/log.h"

/* Node-realm keys a host may give flat, meaning this node (ORTE does). */
static const char *const flat_node_keys[] = {
    PMIX_NODE_SIZE,   PMIX_LOCAL_PEERS,       PMIX_LOCAL_SIZE,
    PMIX_LOCALLDR,    PMIX_AVAIL_PHYS_MEMORY, PMIX_LOCAL_CPUSETS,
    PMIX_LOCAL_PROCS, PMIX_HOSTNAME_ALIASES,  PMIX_NODE_OVERSUBSCRIBED,
};

/* The keys Open MPI reads for this node with the rank wildcard. */
static const char *const local_job_keys[] = {
    PMIX_LOCAL_PEERS, PMIX_LOCAL_SIZE, PMIX_NODEID, PMIX_LOCALLDR, PMIX_NODE_SIZE,
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define TRY(expr)                                                                                  \
    do {                                                                                           \
        pmix_status_t try_rc_ = (expr);                                                            \
        if (try_rc_ != PMIX_SUCCESS) {                                                             \
            return try_rc_;                                                                        \
        }                                                                                          \
    } while (0)

/* Every process of the job: the ranks of the process map and of the
 * process data, with the layout node of each (SIZE_MAX when unknown). */
typedef struct {
    pmix_rank_t rank;
    size_t node;
    uint32_t appnum; /* SY_JI_NO_ID when unknown */
} proc_t;

static int proc_cmp(const void *a, const void *b)
{
    const proc_t *x = a, *y = b;
    if (x->rank != y->rank) {
        return x->rank < y->rank ? -1 : 1;
    }
    /* the entry that knows its node first, so that dedup keeps it */
    return (x->node > y->node) - (x->node < y->node);
}

static int proc_app_cmp(const void *a, const void *b)
{
    const proc_t *x = *(proc_t *const *)a, *y = *(proc_t *const *)b;
    if (x->appnum != y->appnum) {
        return x->appnum < y->appnum ? -1 : 1;
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static pmix_status_t collect_procs(sy_ji_t *ctx, proc_t **out, size_t *n)
{
    uint32_t *ids = NULL;
    size_t nids = 0, total = 0, k = 0, u;
    proc_t *p;

    *out = NULL;
    *n = 0;
    if (sy_jseg_builder_ids(ctx->b, SY_REALM_PROC, &ids, &nids) != PMIX_SUCCESS) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        total += ctx->nodes[i].nranks;
    }
    total += nids;
    if (total == 0) {
        free(ids);
        return PMIX_SUCCESS;
    }
    if ((p = malloc(total * sizeof(*p))) == NULL) {
        free(ids);
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        for (size_t r = 0; r < ctx->nodes[i].nranks; r++) {
            p[k++] = (proc_t){ctx->nodes[i].ranks[r], i, SY_JI_NO_ID};
        }
    }
    for (size_t i = 0; i < nids; i++) {
        p[k++] = (proc_t){ids[i], SIZE_MAX, SY_JI_NO_ID};
    }
    free(ids);
    qsort(p, total, sizeof(*p), proc_cmp);
    u = 1;
    for (size_t i = 1; i < total; i++) {
        if (p[i].rank != p[u - 1].rank) {
            p[u++] = p[i];
        }
    }
    *out = p;
    *n = u;
    return PMIX_SUCCESS;
}

static size_t rank_index(const sy_ji_node_t *node, pmix_rank_t r)
{
    size_t lo = 0, hi = node->nranks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (node->ranks[mid] < r) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static char *join_names(sy_ji_t *ctx, const size_t *idx, size_t n)
{
    size_t len = 1;
    char *s, *w;

    for (size_t i = 0; i < n; i++) {
        len += strlen(ctx->nodes[idx[i]].name) + 1;
    }
    if ((s = malloc(len)) == NULL) {
        return NULL;
    }
    w = s;
    *w = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            *w++ = ',';
        }
        size_t l = strlen(ctx->nodes[idx[i]].name);
        memcpy(w, ctx->nodes[idx[i]].name, l + 1);
        w += l;
    }
    return s;
}

static pmix_status_t put_node_list(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const size_t *idx,
                                   size_t n)
{
    pmix_status_t rc;
    char *list;

    TRY(sy_ji_default_u32(ctx, realm, id, PMIX_NUM_NODES, (uint32_t)n));
    if (!ctx->have_names) {
        return PMIX_SUCCESS;
    }
    if ((list = join_names(ctx, idx, n)) == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    rc = sy_ji_default_str(ctx, realm, id, PMIX_NODE_LIST, list);
    free(list);
    return rc;
}

static pmix_status_t derive_nodes(sy_ji_t *ctx)
{
    const pmix_value_t *v;
    pmix_status_t rc;
    char *peers;

    uint64_t flat;
    bool known = SIZE_MAX != ctx->local ||
                 (sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_NODEID, &flat) && flat < SY_JI_NO_ID);
    if (known) {
        /* this node, even when the maps do not list it */
        uint32_t me = SIZE_MAX != ctx->local ? ctx->nodes[ctx->local].id : (uint32_t)flat;
        for (size_t k = 0; k < COUNT(flat_node_keys); k++) {
            if ((v = sy_jseg_peek(ctx->b, SY_REALM_JOB, 0, flat_node_keys[k])) != NULL) {
                TRY(sy_ji_put_default(ctx, SY_REALM_NODE, me, flat_node_keys[k], v));
            }
        }
        if (SIZE_MAX == ctx->local) {
            TRY(sy_ji_default_u32(ctx, SY_REALM_NODE, me, PMIX_NODEID, me));
            if (ctx->local_hostname != NULL && '\0' != *ctx->local_hostname) {
                TRY(sy_ji_default_str(ctx, SY_REALM_NODE, me, PMIX_HOSTNAME, ctx->local_hostname));
            }
        }
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        sy_ji_node_t *nd = &ctx->nodes[i];
        if (nd->name != NULL) {
            TRY(sy_ji_default_str(ctx, SY_REALM_NODE, nd->id, PMIX_HOSTNAME, nd->name));
        }
        TRY(sy_ji_default_u32(ctx, SY_REALM_NODE, nd->id, PMIX_NODEID, nd->id));
        if (!ctx->have_procs) {
            continue;
        }
        if ((peers = sy_ji_rank_list(nd->ranks, nd->nranks)) == NULL) {
            return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
        }
        rc = sy_ji_default_str(ctx, SY_REALM_NODE, nd->id, PMIX_LOCAL_PEERS, peers);
        free(peers);
        TRY(rc);
        TRY(sy_ji_default_u32(ctx, SY_REALM_NODE, nd->id, PMIX_LOCAL_SIZE, (uint32_t)nd->nranks));
        /* other jobs on the node are not known here: this job's count */
        TRY(sy_ji_default_u32(ctx, SY_REALM_NODE, nd->id, PMIX_NODE_SIZE, (uint32_t)nd->nranks));
        if (nd->nranks > 0) {
            TRY(sy_ji_default_rank(ctx, SY_REALM_NODE, nd->id, PMIX_LOCALLDR, nd->ranks[0]));
        }
    }
    return PMIX_SUCCESS;
}

static pmix_status_t derive_proc_basics(sy_ji_t *ctx, const proc_t *p, size_t n)
{
    uint64_t offset = 0;

    (void)sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_NPROC_OFFSET, &offset);
    for (size_t i = 0; i < n; i++) {
        pmix_rank_t r = p[i].rank;
        TRY(sy_ji_default_rank(ctx, SY_REALM_PROC, r, PMIX_RANK, r));
        if (offset + r < PMIX_RANK_VALID) {
            TRY(sy_ji_default_rank(ctx, SY_REALM_PROC, r, PMIX_GLOBAL_RANK,
                                   (pmix_rank_t)(offset + r)));
        }
        if (SIZE_MAX == p[i].node) {
            continue;
        }
        const sy_ji_node_t *nd = &ctx->nodes[p[i].node];
        size_t lr = rank_index(nd, r);
        if (lr <= UINT16_MAX) {
            TRY(sy_ji_default_u16(ctx, SY_REALM_PROC, r, PMIX_LOCAL_RANK, (uint16_t)lr));
            TRY(sy_ji_default_u16(ctx, SY_REALM_PROC, r, PMIX_NODE_RANK, (uint16_t)lr));
        }
        TRY(sy_ji_default_u32(ctx, SY_REALM_PROC, r, PMIX_NODEID, nd->id));
        if (nd->name != NULL) {
            TRY(sy_ji_default_str(ctx, SY_REALM_PROC, r, PMIX_HOSTNAME, nd->name));
        }
    }
    return PMIX_SUCCESS;
}

/* Applications of ranks without a PMIX_APPNUM of their own, from the
 * application realm's sizes and leaders (ranks are given to applications
 * in appnum order, each application's ranks contiguous). */
static void apps_from_ranges(sy_ji_t *ctx, proc_t *p, size_t n)
{
    uint32_t *ids = NULL;
    size_t nids = 0;
    uint64_t size, ldr, next = 0;

    if (sy_jseg_builder_ids(ctx->b, SY_REALM_APP, &ids, &nids) != PMIX_SUCCESS) {
        return;
    }
    for (size_t a = 0; a < nids; a++) {
        if (!sy_ji_peek_uint(ctx, SY_REALM_APP, ids[a], PMIX_APP_SIZE, &size)) {
            break; /* later ranges cannot be placed */
        }
        if (!sy_ji_peek_uint(ctx, SY_REALM_APP, ids[a], PMIX_APPLDR, &ldr)) {
            if (ids[a] != a) {
                break;
            }
            ldr = next;
        }
        for (size_t i = 0; i < n; i++) {
            if (p[i].appnum == SY_JI_NO_ID && p[i].rank >= ldr && p[i].rank - ldr < size) {
                p[i].appnum = ids[a];
            }
        }
        next = ldr + size;
    }
    free(ids);
}

static uint32_t count_apps(sy_ji_t *ctx, const proc_t *p, size_t n, bool *all_known)
{
    uint64_t napps;
    uint32_t *ids = NULL, top = 0;
    size_t nids = 0;

    *all_known = true;
    for (size_t i = 0; i < n; i++) {
        if (p[i].appnum == SY_JI_NO_ID) {
            *all_known = false;
        } else if (p[i].appnum >= top) {
            top = p[i].appnum + 1;
        }
    }
    if (sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_JOB_NUM_APPS, &napps) && napps <= UINT32_MAX) {
        return (uint32_t)napps;
    }
    if (sy_jseg_builder_ids(ctx->b, SY_REALM_APP, &ids, &nids) == PMIX_SUCCESS && nids > 0 &&
        ids[nids - 1] >= top) {
        top = ids[nids - 1] + 1;
    }
    free(ids);
    return top == 0 ? 1 : top;
}

static pmix_status_t derive_one_app(sy_ji_t *ctx, proc_t *const *members, size_t n, bool whole)
{
    uint32_t app = members[0]->appnum;
    size_t *nodes = NULL, nn = 0;
    pmix_status_t rc = PMIX_SUCCESS;

    for (size_t i = 0; i < n; i++) {
        TRY(sy_ji_default_u32(ctx, SY_REALM_PROC, members[i]->rank, PMIX_APPNUM, app));
    }
    if (!whole) {
        return PMIX_SUCCESS; /* ranks in, sizes and leaders of the app would be guesses */
    }
    for (size_t i = 0; i < n; i++) {
        TRY(sy_ji_default_rank(ctx, SY_REALM_PROC, members[i]->rank, PMIX_APP_RANK,
                               (pmix_rank_t)i));
    }
    TRY(sy_ji_default_u32(ctx, SY_REALM_APP, app, PMIX_APPNUM, app));
    TRY(sy_ji_default_u32(ctx, SY_REALM_APP, app, PMIX_APP_SIZE, (uint32_t)n));
    TRY(sy_ji_default_u32(ctx, SY_REALM_APP, app, PMIX_MAX_PROCS, (uint32_t)n));
    TRY(sy_ji_default_rank(ctx, SY_REALM_APP, app, PMIX_APPLDR, members[0]->rank));
    if (ctx->nnodes == 0) {
        return PMIX_SUCCESS;
    }
    /* the nodes hosting the application, in node-map order */
    bool *uses = calloc(ctx->nnodes, sizeof(*uses));
    nodes = malloc(ctx->nnodes * sizeof(*nodes));
    if (uses == NULL || nodes == NULL) {
        free(uses);
        free(nodes);
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        if (SIZE_MAX != members[i]->node) {
            uses[members[i]->node] = true;
        }
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        if (uses[i]) {
            nodes[nn++] = i;
        }
    }
    if (nn > 0) {
        rc = put_node_list(ctx, SY_REALM_APP, app, nodes, nn);
    }
    free(uses);
    free(nodes);
    return rc;
}

static pmix_status_t derive_apps(sy_ji_t *ctx, proc_t *p, size_t n, uint32_t *napps)
{
    uint64_t u;
    bool whole;
    proc_t **order;
    pmix_status_t rc = PMIX_SUCCESS;

    for (size_t i = 0; i < n; i++) {
        if (sy_ji_peek_uint(ctx, SY_REALM_PROC, p[i].rank, PMIX_APPNUM, &u) && u < SY_JI_NO_ID) {
            p[i].appnum = (uint32_t)u;
        }
    }
    apps_from_ranges(ctx, p, n);
    *napps = count_apps(ctx, p, n, &whole);
    if (1 == *napps) {
        for (size_t i = 0; i < n; i++) {
            if (p[i].appnum == SY_JI_NO_ID) {
                p[i].appnum = 0;
            }
        }
        whole = true;
    }
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if ((order = malloc(n * sizeof(*order))) == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i].appnum != SY_JI_NO_ID) {
            order[k++] = &p[i];
        }
    }
    qsort(order, k, sizeof(*order), proc_app_cmp);
    for (size_t start = 0, end; start < k && rc == PMIX_SUCCESS; start = end) {
        for (end = start + 1; end < k && order[end]->appnum == order[start]->appnum; end++) {
        }
        rc = derive_one_app(ctx, order + start, end - start, whole);
    }
    free(order);
    return rc;
}

static pmix_status_t derive_job(sy_ji_t *ctx, size_t nprocs, uint32_t napps, int nlocalprocs)
{
    uint64_t size, univ;
    uint32_t *sids = NULL;
    size_t nsids = 0;
    const pmix_value_t *v;
    bool have_univ = false;

    if (nprocs > 0 && nprocs <= UINT32_MAX) {
        TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_JOB_SIZE, (uint32_t)nprocs));
    }
    if (sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_JOB_SIZE, &size) && size <= UINT32_MAX) {
        TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_MAX_PROCS, (uint32_t)size));
        /* the session's universe when the host described it, else the job */
        if (sy_jseg_builder_ids(ctx->b, SY_REALM_SESSION, &sids, &nsids) == PMIX_SUCCESS) {
            for (size_t i = 0; i < nsids && !have_univ; i++) {
                have_univ =
                    sy_ji_peek_uint(ctx, SY_REALM_SESSION, sids[i], PMIX_UNIV_SIZE, &univ) &&
                    univ <= UINT32_MAX;
            }
            free(sids);
        }
        TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_UNIV_SIZE,
                              (uint32_t)(have_univ ? univ : size)));
    }
    /* the session the job belongs to, when the description names one */
    if (sy_jseg_builder_ids(ctx->b, SY_REALM_SESSION, &sids, &nsids) == PMIX_SUCCESS) {
        if (nsids == 1) {
            pmix_status_t rc = sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_SESSION_ID, sids[0]);
            free(sids);
            TRY(rc);
        } else {
            free(sids);
        }
    }
    TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_JOB_NUM_APPS, napps));
    if (ctx->nnodes > 0) {
        size_t *all = malloc(ctx->nnodes * sizeof(*all));
        if (all == NULL) {
            return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < ctx->nnodes; i++) {
            all[i] = i;
        }
        pmix_status_t rc = put_node_list(ctx, SY_REALM_JOB, 0, all, ctx->nnodes);
        free(all);
        TRY(rc);
    }
    if (SIZE_MAX != ctx->local) {
        uint32_t me = ctx->nodes[ctx->local].id;
        for (size_t k = 0; k < COUNT(local_job_keys); k++) {
            if ((v = sy_jseg_peek(ctx->b, SY_REALM_NODE, me, local_job_keys[k])) != NULL) {
                TRY(sy_ji_put_default(ctx, SY_REALM_JOB, 0, local_job_keys[k], v));
            }
        }
    }
    if (nlocalprocs >= 0) {
        TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_LOCAL_SIZE, (uint32_t)nlocalprocs));
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_ji_derive(sy_ji_t *ctx, int nlocalprocs)
{
    proc_t *p = NULL;
    size_t n = 0;
    uint32_t napps = 1;
    pmix_status_t rc;

    if ((rc = derive_nodes(ctx)) != PMIX_SUCCESS ||
        (rc = collect_procs(ctx, &p, &n)) != PMIX_SUCCESS) {
        return rc;
    }
    if ((rc = derive_proc_basics(ctx, p, n)) == PMIX_SUCCESS &&
        (rc = derive_apps(ctx, p, n, &napps)) == PMIX_SUCCESS) {
        rc = derive_job(ctx, n, napps, nlocalprocs);
    }
    free(p);
    return rc;
}

pmix_status_t sy_ji_summarize(sy_ji_t *ctx, int nlocalprocs, sy_jobinfo_summary_t *s)
{
    uint64_t u;
    pmix_rank_t *ranks = NULL;
    size_t n = 0;
    bool known = false;

    s->job_size = sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_JOB_SIZE, &u) && u <= UINT32_MAX
                      ? (uint32_t)u
                      : 0;
    s->nodeid = SY_JI_NO_ID;
    if (SIZE_MAX != ctx->local) {
        s->nodeid = ctx->nodes[ctx->local].id;
    } else if (sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_NODEID, &u) && u < SY_JI_NO_ID) {
        s->nodeid = (uint32_t)u;
    }
    if (SIZE_MAX != ctx->local && ctx->have_procs) {
        const sy_ji_node_t *nd = &ctx->nodes[ctx->local];
        n = nd->nranks;
        if (n > 0 && (ranks = malloc(n * sizeof(*ranks))) == NULL) {
            return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
        }
        if (n > 0) {
            memcpy(ranks, nd->ranks, n * sizeof(*ranks));
        }
        known = true;
    } else {
        const char *peers = sy_ji_peek_text(ctx, SY_REALM_JOB, 0, PMIX_LOCAL_PEERS, NULL);
        known = peers != NULL && sy_ji_parse_ranks(peers, &ranks, &n) == PMIX_SUCCESS;
    }
    /* nlocalprocs is what the host will launch here; the ranks are only
     * reported when the description agrees with it */
    s->nlocal = (uint32_t)nlocalprocs;
    s->local_ranks = NULL;
    if (known && n == (size_t)nlocalprocs) {
        s->local_ranks = ranks;
    } else {
        if (known) {
            sy_log(SY_LOG_WARN,
                   "register_nspace %s: nlocalprocs is %d but the job data places %zu "
                   "processes on this node",
                   ctx->nspace, nlocalprocs, n);
        }
        free(ranks);
    }
    return PMIX_SUCCESS;
}
