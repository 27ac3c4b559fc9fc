/* What follows from what the host gave: the layout section (nodes and
 * their ranges, every rank's node and application as runs), the
 * per-process data read against it, and the few job- and application-
 * level values stored where the host gave none, in the standard's types.
 * Per-rank and per-node values are derived by readers from the layout
 * (jseg_layout.c), so nothing here grows with the ranks but the runs. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/datatype.h"
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

/* What the layout section is made of while it is built. */
typedef struct {
    sy_jl_node_t *nodes;
    sy_jl_range_t *ranges;
    size_t nranges;
    char *names;
    size_t names_size;
    sy_jl_apprun_t *appruns;
    size_t nappruns;
    sy_jl_app_t *apps;
    size_t napps;
    uint32_t *appnodes;
    size_t nappnodes;
    size_t nknown; /* ranks of the job */
    uint32_t napps_job;
} layout_t;

static void layout_free(layout_t *l)
{
    free(l->nodes);
    free(l->ranges);
    free(l->names);
    free(l->appruns);
    free(l->apps);
    free(l->appnodes);
}

static pmix_status_t derive_nodes(sy_ji_t *ctx)
{
    const pmix_value_t *v;
    uint64_t flat;
    bool known = SIZE_MAX != ctx->local ||
                 (sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_NODEID, &flat) && flat < SY_JI_NO_ID);

    if (!known) {
        return PMIX_SUCCESS;
    }
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
    return PMIX_SUCCESS;
}

/* The nodes as the section holds them, their ranges and names. */
static pmix_status_t layout_nodes(sy_ji_t *ctx, layout_t *l)
{
    size_t nranges = 0, names = 0;
    for (size_t i = 0; i < ctx->nnodes; i++) {
        nranges += ctx->nodes[i].nranges;
        names += ctx->nodes[i].name != NULL ? strlen(ctx->nodes[i].name) + 1 : 0;
    }
    if (names >= UINT32_MAX || nranges >= UINT32_MAX) {
        return sy_ji_fail(ctx, PMIX_ERR_OUT_OF_RESOURCE, "the maps are too large");
    }
    l->nodes = calloc(ctx->nnodes + 1, sizeof(*l->nodes));
    l->ranges = malloc((nranges + 1) * sizeof(*l->ranges));
    l->names = malloc(names + 1);
    if (l->nodes == NULL || l->ranges == NULL || l->names == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        const sy_ji_node_t *nd = &ctx->nodes[i];
        sy_jl_node_t *out = &l->nodes[i];
        out->id = nd->id;
        out->name_len = SY_JL_NONE;
        if (nd->name != NULL) {
            size_t len = strlen(nd->name);
            out->name_off = (uint32_t)l->names_size;
            out->name_len = (uint32_t)len;
            memcpy(l->names + l->names_size, nd->name, len + 1);
            l->names_size += len + 1;
        }
        out->nranks = (uint32_t)nd->nranks;
        out->range_off = (uint32_t)l->nranges;
        out->nranges = (uint32_t)nd->nranges;
        if (nd->nranges > 0) {
            memcpy(l->ranges + l->nranges, nd->ranges, nd->nranges * sizeof(*nd->ranges));
        }
        l->nranges += nd->nranges;
    }
    return PMIX_SUCCESS;
}

/* ---- applications ---- */

/* An application given by its size and leader in the application realm. */
typedef struct {
    uint64_t ldr, size;
    uint32_t app;
} app_range_t;

/* Ranks are given to applications in appnum order, each application's
 * ranks contiguous: the ranges of those with a PMIX_APP_SIZE. */
static pmix_status_t app_ranges(sy_ji_t *ctx, app_range_t **out, size_t *n)
{
    uint32_t *ids = NULL;
    size_t nids = 0, k = 0;
    uint64_t size, ldr, next = 0;

    *out = NULL;
    *n = 0;
    if (sy_jseg_builder_ids(ctx->b, SY_REALM_APP, &ids, &nids) != PMIX_SUCCESS || nids == 0) {
        free(ids);
        return PMIX_SUCCESS;
    }
    app_range_t *r = malloc(nids * sizeof(*r));
    if (r == NULL) {
        free(ids);
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
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
        r[k++] = (app_range_t){ldr, size, ids[a]};
        next = ldr + size;
    }
    free(ids);
    *out = r;
    *n = k;
    return PMIX_SUCCESS;
}

/* Every rank of the job, as ascending disjoint ranges: the mapped ranks
 * and those the host gave data for. */
static pmix_status_t known_ranks(sy_ji_t *ctx, sy_jl_range_t **out, size_t *n, size_t *total)
{
    size_t k = 0, i = 0, j = 0;
    sy_jl_range_t *r = malloc((ctx->nnoderuns + ctx->nprocs + 1) * sizeof(*r));
    if (r == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    /* both lists ascend: merged in one pass, touching ranges joined */
    while (i < ctx->nnoderuns || j < ctx->nprocs) {
        sy_jl_range_t next;
        if (j == ctx->nprocs ||
            (i < ctx->nnoderuns && ctx->noderuns[i].first <= ctx->procs[j].rank)) {
            next = (sy_jl_range_t){ctx->noderuns[i].first, ctx->noderuns[i].count};
            i++;
        } else {
            next = (sy_jl_range_t){ctx->procs[j].rank, 1};
            j++;
        }
        uint64_t end = (uint64_t)next.first + next.count;
        if (k > 0 && next.first <= (uint64_t)r[k - 1].first + r[k - 1].count) {
            if (end > (uint64_t)r[k - 1].first + r[k - 1].count) {
                r[k - 1].count = (uint32_t)(end - r[k - 1].first);
            }
        } else {
            r[k++] = next;
        }
    }
    *total = 0;
    for (size_t x = 0; x < k; x++) {
        *total += r[x].count;
    }
    *out = r;
    *n = k;
    return PMIX_SUCCESS;
}

static pmix_status_t push_run(sy_ji_t *ctx, layout_t *l, size_t *cap, uint32_t rank,
                              uint32_t appnum)
{
    if (l->nappruns > 0) {
        sy_jl_apprun_t *last = &l->appruns[l->nappruns - 1];
        if (last->appnum == appnum && (uint64_t)last->first + last->count == rank) {
            last->count++;
            return PMIX_SUCCESS;
        }
    }
    if (l->nappruns == *cap) {
        size_t c = *cap == 0 ? 16 : 2 * *cap;
        sy_jl_apprun_t *a = realloc(l->appruns, c * sizeof(*a));
        if (a == NULL) {
            return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
        }
        l->appruns = a;
        *cap = c;
    }
    l->appruns[l->nappruns++] = (sy_jl_apprun_t){rank, 1, appnum, SY_JL_NONE};
    return PMIX_SUCCESS;
}

/* Each rank's application: its own PMIX_APPNUM, else the application
 * whose range holds it, else unknown.  As runs over every rank. */
static pmix_status_t app_runs(sy_ji_t *ctx, layout_t *l)
{
    sy_jl_range_t *known = NULL;
    app_range_t *ar = NULL;
    size_t nknown = 0, nar = 0, cap = 0, pi = 0;
    uint64_t u;
    pmix_status_t rc;

    if ((rc = known_ranks(ctx, &known, &nknown, &l->nknown)) != PMIX_SUCCESS ||
        (rc = app_ranges(ctx, &ar, &nar)) != PMIX_SUCCESS) {
        free(known);
        return rc;
    }
    for (size_t i = 0; i < nknown && rc == PMIX_SUCCESS; i++) {
        for (uint32_t j = 0; j < known[i].count && rc == PMIX_SUCCESS; j++) {
            pmix_rank_t r = known[i].first + j;
            uint32_t app = SY_JL_NONE;
            while (pi < ctx->nprocs && ctx->procs[pi].rank < r) {
                pi++;
            }
            if (pi < ctx->nprocs && ctx->procs[pi].rank == r) {
                size_t end = sy_ji_rank_end(ctx, pi);
                if (sy_ji_uint(sy_ji_proc_value(ctx, pi, end, true), &u) && u < SY_JI_NO_ID) {
                    app = (uint32_t)u;
                }
            }
            for (size_t a = 0; app == SY_JL_NONE && a < nar; a++) {
                if (r >= ar[a].ldr && r - ar[a].ldr < ar[a].size) {
                    app = ar[a].app;
                }
            }
            rc = push_run(ctx, l, &cap, r, app);
        }
    }
    free(known);
    free(ar);
    return rc;
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* How many applications the job has, and whether every rank's is known. */
static uint32_t count_apps(sy_ji_t *ctx, const layout_t *l, bool *all_known)
{
    uint64_t napps;
    uint32_t *ids = NULL, top = 0;
    size_t nids = 0;

    *all_known = true;
    for (size_t i = 0; i < l->nappruns; i++) {
        if (l->appruns[i].appnum == SY_JL_NONE) {
            *all_known = false;
        } else if (l->appruns[i].appnum >= top) {
            top = l->appruns[i].appnum + 1;
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

typedef struct {
    uint32_t app, node;
} pair_t;

static int pair_cmp(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    if (x->app != y->app) {
        return x->app < y->app ? -1 : 1;
    }
    return x->node < y->node ? -1 : x->node > y->node;
}

/* (application, node) for every node hosting ranks of an application:
 * the runs of both kinds walked together by rank. */
static pmix_status_t app_node_pairs(sy_ji_t *ctx, const layout_t *l, pair_t **out, size_t *n)
{
    size_t i = 0, j = 0, k = 0;
    pair_t *p = malloc((l->nappruns + ctx->nnoderuns + 1) * sizeof(*p));
    if (p == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    while (i < l->nappruns && j < ctx->nnoderuns) {
        const sy_jl_apprun_t *a = &l->appruns[i];
        const sy_jl_noderun_t *r = &ctx->noderuns[j];
        uint64_t a_end = (uint64_t)a->first + a->count, r_end = (uint64_t)r->first + r->count;
        if (a->first < r_end && r->first < a_end) {
            p[k++] = (pair_t){a->appnum, r->node};
        }
        if (a_end <= r_end) {
            i++;
        } else {
            j++;
        }
    }
    if (k > 0) {
        qsort(p, k, sizeof(*p), pair_cmp);
    }
    size_t u = 0;
    for (size_t x = 0; x < k; x++) {
        if (u == 0 || pair_cmp(&p[u - 1], &p[x]) != 0) {
            p[u++] = p[x];
        }
    }
    *out = p;
    *n = u;
    return PMIX_SUCCESS;
}

/* Application ranks, sizes and leaders, the applications' nodes: when
 * every rank's application is known. */
static pmix_status_t whole_apps(sy_ji_t *ctx, layout_t *l)
{
    uint32_t *nums = malloc((l->nappruns + 1) * sizeof(*nums)), *count = NULL;
    size_t n = 0;
    pair_t *pairs = NULL;
    size_t npairs = 0;
    pmix_status_t rc = PMIX_SUCCESS;

    if (nums == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < l->nappruns; i++) {
        nums[n++] = l->appruns[i].appnum;
    }
    qsort(nums, n, sizeof(*nums), u32_cmp);
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        if (u == 0 || nums[u - 1] != nums[i]) {
            nums[u++] = nums[i];
        }
    }
    n = u;
    count = calloc(n + 1, sizeof(*count));
    l->apps = calloc(n + 1, sizeof(*l->apps));
    pmix_rank_t *ldr = malloc((n + 1) * sizeof(*ldr));
    if (count == NULL || l->apps == NULL || ldr == NULL) {
        free(nums);
        free(count);
        free(ldr);
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    /* application ranks count up through each application's runs */
    for (size_t i = 0; i < l->nappruns; i++) {
        sy_jl_apprun_t *a = &l->appruns[i];
        uint32_t *hit = bsearch(&a->appnum, nums, n, sizeof(*nums), u32_cmp);
        size_t x = (size_t)(hit - nums);
        if (count[x] == 0) {
            ldr[x] = a->first;
        }
        a->app_base = count[x];
        count[x] += a->count;
    }
    if (ctx->nnodes > 0) {
        rc = app_node_pairs(ctx, l, &pairs, &npairs);
    }
    if (rc == PMIX_SUCCESS && npairs > 0 &&
        (l->appnodes = malloc(npairs * sizeof(uint32_t))) == NULL) {
        rc = sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    for (size_t x = 0, p = 0; x < n && rc == PMIX_SUCCESS; x++) {
        uint32_t app = nums[x];
        size_t nn = 0, first = l->nappnodes;
        for (; p < npairs && pairs[p].app == app; p++, nn++) {
            l->appnodes[l->nappnodes++] = pairs[p].node;
        }
        l->apps[x] = (sy_jl_app_t){app, (uint32_t)first, (uint32_t)nn, 0};
        if (nn == ctx->nnodes && nn > 0) {
            /* on every node: no list to keep */
            l->nappnodes = first;
            l->apps[x].node_off = SY_JL_NONE;
        }
        if ((rc = sy_ji_default_u32(ctx, SY_REALM_APP, app, PMIX_APPNUM, app)) != PMIX_SUCCESS ||
            (rc = sy_ji_default_u32(ctx, SY_REALM_APP, app, PMIX_APP_SIZE, count[x])) !=
                PMIX_SUCCESS ||
            (rc = sy_ji_default_u32(ctx, SY_REALM_APP, app, PMIX_MAX_PROCS, count[x])) !=
                PMIX_SUCCESS ||
            (rc = sy_ji_default_rank(ctx, SY_REALM_APP, app, PMIX_APPLDR, ldr[x])) !=
                PMIX_SUCCESS) {
            break;
        }
        if (ctx->nnodes > 0 && nn > 0) {
            rc = sy_ji_default_u32(ctx, SY_REALM_APP, app, PMIX_NUM_NODES, (uint32_t)nn);
        }
    }
    l->napps = n;
    free(pairs);
    free(nums);
    free(count);
    free(ldr);
    return rc;
}

static pmix_status_t derive_apps(sy_ji_t *ctx, layout_t *l)
{
    bool whole;
    pmix_status_t rc = app_runs(ctx, l);

    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    l->napps_job = count_apps(ctx, l, &whole);
    if (1 == l->napps_job) {
        /* one application: every rank's, and runs that now meet merge */
        size_t k = 0;
        for (size_t i = 0; i < l->nappruns; i++) {
            sy_jl_apprun_t a = l->appruns[i];
            if (a.appnum == SY_JL_NONE) {
                a.appnum = 0;
            }
            if (k > 0 && l->appruns[k - 1].appnum == a.appnum &&
                (uint64_t)l->appruns[k - 1].first + l->appruns[k - 1].count == a.first) {
                l->appruns[k - 1].count += a.count;
            } else {
                l->appruns[k++] = a;
            }
        }
        l->nappruns = k;
        whole = true;
    }
    /* with ranks of unknown application, sizes and leaders of the
     * applications would be guesses */
    return whole ? whole_apps(ctx, l) : PMIX_SUCCESS;
}

/* ---- the job ---- */

static pmix_status_t derive_job(sy_ji_t *ctx, const layout_t *l, const sy_jl_view_t *v,
                                int nlocalprocs)
{
    uint64_t size, univ;
    uint32_t *sids = NULL;
    size_t nsids = 0;
    const pmix_value_t *hv;
    bool have_univ = false;

    if (l->nknown > 0 && l->nknown <= UINT32_MAX) {
        TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_JOB_SIZE, (uint32_t)l->nknown));
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
    TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_JOB_NUM_APPS, l->napps_job));
    if (ctx->nnodes > 0) {
        /* the node list itself is derived from the layout */
        TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_NUM_NODES, (uint32_t)ctx->nnodes));
    }
    if (SIZE_MAX != ctx->local) {
        uint32_t me = ctx->nodes[ctx->local].id;
        for (size_t k = 0; k < COUNT(local_job_keys); k++) {
            if ((hv = sy_jseg_peek(ctx->b, SY_REALM_NODE, me, local_job_keys[k])) != NULL) {
                TRY(sy_ji_put_default(ctx, SY_REALM_JOB, 0, local_job_keys[k], hv));
                continue;
            }
            pmix_value_t d;
            memset(&d, 0, sizeof(d));
            if (v != NULL &&
                sy_jl_derive(v, SY_REALM_NODE, me, local_job_keys[k], &d) == PMIX_SUCCESS) {
                pmix_status_t rc = sy_ji_put_default(ctx, SY_REALM_JOB, 0, local_job_keys[k], &d);
                sy_value_destruct(&d);
                TRY(rc);
            }
        }
    }
    if (nlocalprocs >= 0) {
        TRY(sy_ji_default_u32(ctx, SY_REALM_JOB, 0, PMIX_LOCAL_SIZE, (uint32_t)nlocalprocs));
    }
    return PMIX_SUCCESS;
}

/* The section of l (and the columns, when given). */
static pmix_status_t pack(sy_ji_t *ctx, const layout_t *l, const sy_ji_columns_t *cols, void **blob,
                          size_t *size)
{
    uint64_t offset = 0;
    (void)sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_NPROC_OFFSET, &offset);
    sy_jl_parts_t p = {
        .flags = (ctx->have_names ? SY_JL_NAMES : 0u) | (ctx->have_procs ? SY_JL_PROCS : 0u),
        .offset = offset < PMIX_RANK_VALID ? (uint32_t)offset : PMIX_RANK_VALID,
        .nodes = l->nodes,
        .nnodes = ctx->nnodes,
        .ranges = l->ranges,
        .nranges = l->nranges,
        .noderuns = ctx->noderuns,
        .nnoderuns = ctx->nnoderuns,
        .appruns = l->appruns,
        .nappruns = l->nappruns,
        .apps = l->apps,
        .napps = l->napps,
        .appnodes = l->appnodes,
        .nappnodes = l->nappnodes,
        .strings = l->names,
        .strings_size = l->names_size,
    };
    if (cols != NULL) {
        p.cols = cols->cols;
        p.ncols = cols->ncols;
        p.colruns = cols->runs;
        p.ncolruns = cols->nruns;
        p.strings = cols->strings;
        p.strings_size = cols->strings_size;
    }
    pmix_status_t rc = sy_jl_pack(&p, blob, size);
    return rc == PMIX_SUCCESS ? rc : sy_ji_fail(ctx, rc, "cannot lay out the job's maps");
}

pmix_status_t sy_ji_derive(sy_ji_t *ctx, int nlocalprocs)
{
    layout_t l = {0};
    sy_ji_columns_t cols = {0};
    sy_jl_view_t v;
    void *blob = NULL;
    size_t size = 0;
    pmix_status_t rc;

    ctx->record_procs = false;
    sy_ji_sort_procs(ctx);
    if ((rc = derive_nodes(ctx)) != PMIX_SUCCESS || (rc = layout_nodes(ctx, &l)) != PMIX_SUCCESS ||
        (rc = derive_apps(ctx, &l)) != PMIX_SUCCESS) {
        layout_free(&l);
        return rc;
    }
    bool any = ctx->nnodes > 0 || l.nappruns > 0;
    if (any) {
        /* first the maps, against which the host's per-process data is
         * read, then the whole section */
        rc = pack(ctx, &l, NULL, &blob, &size);
        if (rc == PMIX_SUCCESS && !sy_jl_view_init(&v, blob, size, NULL, 0)) {
            rc = sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "cannot lay out the job's maps");
        }
        if (rc == PMIX_SUCCESS) {
            rc = sy_ji_procs_emit(ctx, &v, l.names, l.names_size, &cols);
        }
        free(blob);
        blob = NULL;
        if (rc == PMIX_SUCCESS) {
            rc = pack(ctx, &l, &cols, &blob, &size);
        }
        if (rc == PMIX_SUCCESS && !sy_jl_view_init(&v, blob, size, NULL, 0)) {
            rc = sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "cannot lay out the job's maps");
        }
        if (rc == PMIX_SUCCESS) {
            sy_jseg_set_layout(ctx->b, blob, size);
            blob = NULL;
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc =
            derive_job(ctx, &l, any && sy_jseg_builder_layout(ctx->b, &v) ? &v : NULL, nlocalprocs);
    }
    free(blob);
    sy_ji_columns_free(&cols);
    layout_free(&l);
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
        for (size_t i = 0, k = 0; i < nd->nranges; i++) {
            for (uint32_t j = 0; j < nd->ranges[i].count; j++) {
                ranks[k++] = nd->ranges[i].first + j;
            }
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
