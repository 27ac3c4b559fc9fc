/* The job's layout: which ranks run on which node, from the job realm's
 * PMIX_NODE_MAP / PMIX_PROC_MAP (or their _RAW forms), which id each node
 * has, and which node is this one.
 *
 * Node ids, in order of trust: a PMIX_NODE_INFO_ARRAY that names the node
 * and gives its id; for this node, a flat PMIX_NODEID; the PMIX_NODEID of
 * the node's processes (discarded as a whole when inconsistent: Slurm
 * gives every process this node's id); else the node's position in the
 * map, or the next id nobody uses when that is taken.
 *
 * This node: the one whose id is the flat PMIX_NODEID the host gave, else
 * the one named like this host. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/jobinfo_internal.h"
#include "common/regex.h"

static void free_argv(char **argv)
{
    if (argv != NULL) {
        for (char **p = argv; *p != NULL; p++) {
            free(*p);
        }
        free(argv);
    }
}

static size_t argv_len(char **argv)
{
    size_t n = 0;
    while (argv[n] != NULL) {
        n++;
    }
    return n;
}

/* The map under key (else rawkey) in the job realm; NULL when absent or a
 * NULL string.  *which names the key found. */
static const char *map_text(sy_ji_t *ctx, const char *key, const char *rawkey, const char **which)
{
    const char *s = sy_ji_peek_text(ctx, SY_REALM_JOB, 0, key, NULL);
    *which = key;
    if (s == NULL) {
        s = sy_ji_peek_text(ctx, SY_REALM_JOB, 0, rawkey, NULL);
        *which = rawkey;
    }
    return s;
}

static pmix_status_t parse_failed(sy_ji_t *ctx, pmix_status_t rc, const char *key)
{
    if (rc == PMIX_ERR_NOT_SUPPORTED) {
        return sy_ji_fail(ctx, rc, "%s: compressed (\"blob:\") maps are not supported", key);
    }
    if (rc == PMIX_ERR_NOMEM) {
        return sy_ji_fail(ctx, rc, "out of memory expanding %s", key);
    }
    return sy_ji_fail(ctx, rc, "%s is malformed", key);
}

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_cmp(const void *a, const void *b)
{
    const sy_jl_noderun_t *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Every mapped rank as runs by rank (a node's local ranks counting up
 * along its ascending ranges); a rank on two nodes is refused. */
static pmix_status_t build_noderuns(sy_ji_t *ctx)
{
    size_t total = 0, k = 0;
    for (size_t i = 0; i < ctx->nnodes; i++) {
        total += ctx->nodes[i].nranges;
    }
    if (total == 0) {
        return PMIX_SUCCESS;
    }
    sy_jl_noderun_t *runs = malloc(total * sizeof(*runs));
    if (runs == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    bool sorted = true;
    for (size_t i = 0; i < ctx->nnodes; i++) {
        uint32_t base = 0;
        for (size_t j = 0; j < ctx->nodes[i].nranges; j++) {
            const sy_jl_range_t *r = &ctx->nodes[i].ranges[j];
            runs[k] = (sy_jl_noderun_t){r->first, r->count, (uint32_t)i, base};
            sorted = sorted && (k == 0 || runs[k - 1].first < r->first);
            base += r->count;
            k++;
        }
    }
    if (!sorted) {
        qsort(runs, total, sizeof(*runs), run_cmp);
    }
    for (size_t i = 1; i < total; i++) {
        if ((uint64_t)runs[i].first < (uint64_t)runs[i - 1].first + runs[i - 1].count) {
            uint32_t rank = runs[i].first;
            free(runs);
            return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s places rank %u on two nodes",
                              PMIX_PROC_MAP, rank);
        }
    }
    ctx->noderuns = runs;
    ctx->nnoderuns = total;
    return PMIX_SUCCESS;
}

static pmix_status_t fill_nodes(sy_ji_t *ctx, char **names, const sy_rx_ranges_t *procs)
{
    for (size_t i = 0; i < ctx->nnodes; i++) {
        sy_ji_node_t *nd = &ctx->nodes[i];
        nd->id = SY_JI_NO_ID;
        if (names != NULL) {
            nd->name = names[i];
            names[i] = NULL;
        }
        if (procs != NULL) {
            size_t n = procs->starts[i + 1] - procs->starts[i];
            if (n > 0) {
                nd->ranges = malloc(n * sizeof(*nd->ranges));
                if (nd->ranges == NULL) {
                    return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
                }
                for (size_t j = 0; j < n; j++) {
                    const sy_rx_range_t *r = &procs->ranges[procs->starts[i] + j];
                    nd->ranges[j] = (sy_jl_range_t){r->first, r->count};
                }
            }
            nd->nranges = n;
            sy_ji_normalize_ranges(nd->ranges, &nd->nranges, &nd->nranks);
        }
    }
    if (names != NULL && ctx->nnodes > 1) {
        char **sorted = malloc(ctx->nnodes * sizeof(*sorted));
        if (sorted == NULL) {
            return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < ctx->nnodes; i++) {
            sorted[i] = ctx->nodes[i].name;
        }
        qsort(sorted, ctx->nnodes, sizeof(*sorted), str_cmp);
        for (size_t i = 1; i < ctx->nnodes; i++) {
            if (strcmp(sorted[i - 1], sorted[i]) == 0) {
                pmix_status_t rc =
                    sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "node %s appears twice in %s", sorted[i],
                               PMIX_NODE_MAP);
                free(sorted);
                return rc;
            }
        }
        free(sorted);
    }
    return build_noderuns(ctx);
}

static pmix_status_t parse_maps(sy_ji_t *ctx)
{
    const char *nkey, *pkey;
    const char *nmap = map_text(ctx, PMIX_NODE_MAP, PMIX_NODE_MAP_RAW, &nkey);
    const char *pmap = map_text(ctx, PMIX_PROC_MAP, PMIX_PROC_MAP_RAW, &pkey);
    char **names = NULL;
    sy_rx_ranges_t procs = {0};
    size_t nn = 0;
    pmix_status_t rc = PMIX_SUCCESS;

    if (nmap != NULL) {
        if ((rc = sy_regex_parse_nodes(nmap, &names)) != PMIX_SUCCESS) {
            return parse_failed(ctx, rc, nkey);
        }
        nn = argv_len(names);
    }
    if (pmap != NULL) {
        if ((rc = sy_regex_parse_proc_ranges(pmap, &procs)) != PMIX_SUCCESS) {
            free_argv(names);
            return parse_failed(ctx, rc, pkey);
        }
    }
    if (names != NULL && pmap != NULL && nn != procs.nnodes) {
        rc = sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s describes %zu nodes but %s has %zu", pkey,
                        procs.nnodes, nkey, nn);
        goto out;
    }
    ctx->have_names = names != NULL;
    ctx->have_procs = pmap != NULL;
    ctx->nnodes = names != NULL ? nn : procs.nnodes;
    if (ctx->nnodes > 0) {
        ctx->nodes = calloc(ctx->nnodes, sizeof(*ctx->nodes));
        if (ctx->nodes == NULL) {
            ctx->nnodes = 0;
            rc = sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
            goto out;
        }
        rc = fill_nodes(ctx, names, pmap != NULL ? &procs : NULL);
    }
out:
    free_argv(names);
    sy_regex_ranges_free(&procs);
    return rc;
}

/* Hostname-bearing entries of the builder's node realm, sorted by name. */
typedef struct {
    const char *name;
    const char *aliases;
    uint32_t id;
} named_t;

static int named_cmp(const void *a, const void *b)
{
    return strcmp(((const named_t *)a)->name, ((const named_t *)b)->name);
}

static pmix_status_t collect_named(sy_ji_t *ctx, named_t **out, size_t *n)
{
    uint32_t *ids = NULL;
    size_t nid = 0, k = 0;
    named_t *named;

    *out = NULL;
    *n = 0;
    if (sy_jseg_builder_ids(ctx->b, SY_REALM_NODE, &ids, &nid) != PMIX_SUCCESS || nid == 0) {
        free(ids);
        return PMIX_SUCCESS;
    }
    if ((named = malloc(nid * sizeof(*named))) == NULL) {
        free(ids);
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < nid; i++) {
        const char *h = sy_ji_peek_text(ctx, SY_REALM_NODE, ids[i], PMIX_HOSTNAME, NULL);
        if (h != NULL) {
            named[k++] = (named_t){
                h, sy_ji_peek_text(ctx, SY_REALM_NODE, ids[i], PMIX_HOSTNAME_ALIASES, NULL),
                ids[i]};
        }
    }
    free(ids);
    qsort(named, k, sizeof(*named), named_cmp);
    *out = named;
    *n = k;
    return PMIX_SUCCESS;
}

static const named_t *named_find(const named_t *named, size_t n, const char *name)
{
    named_t key = {name, NULL, 0};
    return name == NULL || n == 0 ? NULL : bsearch(&key, named, n, sizeof(*named), named_cmp);
}

static bool named_holds_id(const named_t *named, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++) {
        if (named[i].id == id) {
            return true;
        }
    }
    return false;
}

static void find_local_by_name(sy_ji_t *ctx, const named_t *named, size_t nnamed)
{
    const char *me = ctx->local_hostname;
    size_t hits = 0, hit = SIZE_MAX;

    if (me == NULL || '\0' == *me || !ctx->have_names) {
        return;
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        if (strcmp(ctx->nodes[i].name, me) == 0) {
            ctx->local = i;
            return;
        }
    }
    /* a registered alias of a mapped node */
    for (size_t k = 0; k < nnamed; k++) {
        if (sy_ji_in_aliases(named[k].aliases, me)) {
            for (size_t i = 0; i < ctx->nnodes; i++) {
                if (strcmp(ctx->nodes[i].name, named[k].name) == 0) {
                    ctx->local = i;
                    return;
                }
            }
        }
    }
    /* short and fully qualified names, when that is unambiguous */
    for (size_t i = 0; i < ctx->nnodes; i++) {
        if (sy_ji_same_host(ctx->nodes[i].name, me)) {
            hits++;
            hit = i;
        }
    }
    if (hits == 1) {
        ctx->local = hit;
    }
}

size_t sy_ji_node_of_rank(const sy_ji_t *ctx, pmix_rank_t r, size_t *hint)
{
    const sy_jl_noderun_t *runs = ctx->noderuns;
    size_t lo = 0, hi = ctx->nnoderuns;
    if (*hint < hi && r >= runs[*hint].first) {
        if (r - runs[*hint].first < runs[*hint].count) {
            return runs[*hint].node;
        }
        lo = *hint + 1;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r < runs[mid].first) {
            hi = mid;
        } else if (r - runs[mid].first < runs[mid].count) {
            *hint = mid;
            return runs[mid].node;
        } else {
            lo = mid + 1;
        }
    }
    return SIZE_MAX;
}

/* The nodes' ids as their processes give them, if consistent and unique. */
static bool proc_ids(sy_ji_t *ctx, uint32_t *cand)
{
    uint32_t *sorted;
    size_t n = 0, hint = 0;
    uint64_t u;
    bool ok = true;

    for (size_t i = 0; i < ctx->nnodes; i++) {
        cand[i] = SY_JI_NO_ID;
    }
    for (size_t i = 0, end; i < ctx->nprocs; i = end) {
        end = sy_ji_rank_end(ctx, i);
        size_t node = sy_ji_node_of_rank(ctx, ctx->procs[i].rank, &hint);
        if (node == SIZE_MAX || !sy_ji_uint(sy_ji_proc_value(ctx, i, end, false), &u) ||
            u >= SY_JI_NO_ID) {
            continue;
        }
        if (cand[node] != SY_JI_NO_ID && cand[node] != u) {
            return false;
        }
        cand[node] = (uint32_t)u;
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        n += cand[i] != SY_JI_NO_ID;
    }
    if (n < 2) {
        return true;
    }
    if ((sorted = malloc(n * sizeof(*sorted))) == NULL) {
        return false;
    }
    n = 0;
    for (size_t i = 0; i < ctx->nnodes; i++) {
        if (cand[i] != SY_JI_NO_ID) {
            sorted[n++] = cand[i];
        }
    }
    qsort(sorted, n, sizeof(*sorted), u32_cmp);
    for (size_t i = 1; i < n && ok; i++) {
        ok = sorted[i - 1] != sorted[i];
    }
    free(sorted);
    return ok;
}

static bool id_taken(const uint32_t *taken, size_t n, uint32_t id)
{
    return bsearch(&id, taken, n, sizeof(*taken), u32_cmp) != NULL;
}

static pmix_status_t assign_ids(sy_ji_t *ctx, const named_t *named, size_t nnamed)
{
    uint32_t *cand, *taken;
    size_t ntaken = 0;
    uint64_t flat;
    uint32_t next = 0;
    bool have_flat =
        sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_NODEID, &flat) && flat < SY_JI_NO_ID;

    cand = malloc(ctx->nnodes * sizeof(*cand));
    taken = malloc((ctx->nnodes + nnamed) * sizeof(*taken));
    if (cand == NULL || taken == NULL) {
        free(cand);
        free(taken);
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < nnamed; i++) {
        taken[ntaken++] = named[i].id;
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        const named_t *nm = named_find(named, nnamed, ctx->nodes[i].name);
        if (nm != NULL) {
            ctx->nodes[i].id = nm->id;
        }
    }
    if (have_flat && SIZE_MAX != ctx->local && ctx->nodes[ctx->local].id == SY_JI_NO_ID &&
        !named_holds_id(named, nnamed, (uint32_t)flat)) {
        ctx->nodes[ctx->local].id = (uint32_t)flat;
        taken[ntaken++] = (uint32_t)flat;
    }
    if (proc_ids(ctx, cand)) {
        qsort(taken, ntaken, sizeof(*taken), u32_cmp);
        size_t before = ntaken;
        for (size_t i = 0; i < ctx->nnodes; i++) {
            if (ctx->nodes[i].id == SY_JI_NO_ID && cand[i] != SY_JI_NO_ID &&
                !id_taken(taken, before, cand[i])) {
                ctx->nodes[i].id = cand[i];
                taken[ntaken++] = cand[i];
            }
        }
    }
    free(cand);
    qsort(taken, ntaken, sizeof(*taken), u32_cmp);
    /* above every taken id and every position, so that no two nodes meet */
    next = (uint32_t)(ctx->nnodes < SY_JI_NO_ID ? ctx->nnodes : SY_JI_NO_ID - 1);
    if (ntaken > 0 && taken[ntaken - 1] >= next) {
        next = taken[ntaken - 1] + 1;
    }
    for (size_t i = 0; i < ctx->nnodes; i++) {
        if (ctx->nodes[i].id != SY_JI_NO_ID) {
            continue;
        }
        if (i < SY_JI_NO_ID && !id_taken(taken, ntaken, (uint32_t)i)) {
            ctx->nodes[i].id = (uint32_t)i;
        } else {
            ctx->nodes[i].id = next++;
        }
    }
    free(taken);
    return PMIX_SUCCESS;
}

pmix_status_t sy_ji_layout(sy_ji_t *ctx)
{
    named_t *named = NULL;
    size_t nnamed = 0;
    uint64_t flat;
    pmix_status_t rc;

    ctx->local = SIZE_MAX;
    if ((rc = parse_maps(ctx)) != PMIX_SUCCESS || ctx->nnodes == 0) {
        return rc;
    }
    if ((rc = collect_named(ctx, &named, &nnamed)) != PMIX_SUCCESS) {
        return rc;
    }
    /* The host's flat PMIX_NODEID says which node this is, and beats our
     * host name: several daemons of one job may share a machine (Open
     * MPI's test setups, containers) and a node's name may be an alias. */
    if (sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_NODEID, &flat) && flat < SY_JI_NO_ID) {
        if ((rc = assign_ids(ctx, named, nnamed)) != PMIX_SUCCESS) {
            free(named);
            return rc;
        }
        for (size_t i = 0; i < ctx->nnodes && SIZE_MAX == ctx->local; i++) {
            if (ctx->nodes[i].id == flat) {
                ctx->local = i;
            }
        }
        if (SIZE_MAX != ctx->local) {
            free(named);
            return PMIX_SUCCESS;
        }
        for (size_t i = 0; i < ctx->nnodes; i++) {
            ctx->nodes[i].id = SY_JI_NO_ID; /* no node has it: by name, then */
        }
    }
    find_local_by_name(ctx, named, nnamed);
    rc = assign_ids(ctx, named, nnamed);
    free(named);
    if (rc == PMIX_SUCCESS && SIZE_MAX == ctx->local &&
        sy_ji_peek_uint(ctx, SY_REALM_JOB, 0, PMIX_NODEID, &flat)) {
        /* the maps do not name this host, but the host said which node it is */
        for (size_t i = 0; i < ctx->nnodes; i++) {
            if (ctx->nodes[i].id == flat) {
                ctx->local = i;
            }
        }
    }
    return rc;
}
