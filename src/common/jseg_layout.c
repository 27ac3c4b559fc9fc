/* The layout section of a job-data segment (jseg_layout.h): laying it out,
 * and the values derived from it, for the writer (a blob in memory) and
 * every reader (the same bytes in the mapped file, each record checked
 * when touched). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/datatype.h"
#include "common/jseg_format.h"
#include "common/jseg_internal.h"
#include "common/jseg_layout.h"

/* No node of a real job has more ranks; a damaged count beyond it is
 * refused rather than spelled out. */
#define SY_JL_MAX_PEERS 10000000u

static uint64_t align8(uint64_t v)
{
    return (v + 7u) & ~(uint64_t)7u;
}

/* ---- packing ---- */

typedef struct {
    uint32_t id, index;
} by_id_t;

static int by_id_cmp(const void *a, const void *b)
{
    const by_id_t *x = a, *y = b;
    if (x->id != y->id) {
        return x->id < y->id ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

pmix_status_t sy_jl_pack(const sy_jl_parts_t *p, void **blob, size_t *size)
{
    sy_jl_header_t h;
    uint64_t off = align8(sizeof(h));
    by_id_t *ids = NULL;

    *blob = NULL;
    *size = 0;
    const size_t counts[] = {p->nnodes,    p->nranges, p->nnoderuns, p->nappruns,    p->napps,
                             p->nappnodes, p->ncols,   p->ncolruns,  p->strings_size};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        if (counts[i] >= UINT32_MAX) {
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
    }
    memset(&h, 0, sizeof(h));
    h.flags = p->flags;
    h.offset = p->offset;
    h.nnodes = (uint32_t)p->nnodes;
    h.nranges = (uint32_t)p->nranges;
    h.nnoderuns = (uint32_t)p->nnoderuns;
    if (p->nnoderuns > 0) {
        /* regular placement: run k starts at base + k * stride */
        uint32_t base = p->noderuns[0].first, stride = p->noderuns[0].count;
        bool regular = stride > 0;
        for (size_t k = 1; k < p->nnoderuns && regular; k++) {
            regular = (uint64_t)p->noderuns[k].first == base + (uint64_t)k * stride &&
                      (p->noderuns[k].count == stride ||
                       (k + 1 == p->nnoderuns && p->noderuns[k].count < stride));
        }
        h.noderun_base = base;
        h.noderun_stride = regular ? stride : 0;
    }
    h.nappruns = (uint32_t)p->nappruns;
    h.napps = (uint32_t)p->napps;
    h.nappnodes = (uint32_t)p->nappnodes;
    h.ncols = (uint32_t)p->ncols;
    h.ncolruns = (uint32_t)p->ncolruns;
#define PLACE(field, n, elem)                                                                      \
    do {                                                                                           \
        h.field = off;                                                                             \
        off = align8(off + (uint64_t)(n) * (elem));                                                \
    } while (0)
    /* the sections that stay small for regular jobs first, next to the
     * header: a rank's first lookup touches few pages */
    PLACE(appruns_off, p->nappruns, sizeof(sy_jl_apprun_t));
    PLACE(apps_off, p->napps, sizeof(sy_jl_app_t));
    PLACE(cols_off, p->ncols, sizeof(sy_jl_col_t));
    PLACE(colruns_off, p->ncolruns, sizeof(sy_jl_colrun_t));
    PLACE(noderuns_off, p->nnoderuns, sizeof(sy_jl_noderun_t));
    PLACE(nodes_off, p->nnodes, sizeof(sy_jl_node_t));
    PLACE(byid_off, p->nnodes, sizeof(uint32_t));
    PLACE(ranges_off, p->nranges, sizeof(sy_jl_range_t));
    PLACE(appnodes_off, p->nappnodes, sizeof(uint32_t));
    PLACE(strings_off, p->strings_size, 1);
#undef PLACE
    h.strings_size = p->strings_size;
    if (p->nnodes > 0 && (ids = malloc(p->nnodes * sizeof(*ids))) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    uint8_t *b = calloc(1, off);
    if (b == NULL) {
        free(ids);
        return PMIX_ERR_NOMEM;
    }
    memcpy(b, &h, sizeof(h));
#define COPY(field, src, n, elem)                                                                  \
    do {                                                                                           \
        if ((n) > 0) {                                                                             \
            memcpy(b + h.field, (src), (size_t)(n) * (elem));                                      \
        }                                                                                          \
    } while (0)
    COPY(nodes_off, p->nodes, p->nnodes, sizeof(sy_jl_node_t));
    COPY(ranges_off, p->ranges, p->nranges, sizeof(sy_jl_range_t));
    COPY(noderuns_off, p->noderuns, p->nnoderuns, sizeof(sy_jl_noderun_t));
    COPY(appruns_off, p->appruns, p->nappruns, sizeof(sy_jl_apprun_t));
    COPY(apps_off, p->apps, p->napps, sizeof(sy_jl_app_t));
    COPY(appnodes_off, p->appnodes, p->nappnodes, sizeof(uint32_t));
    COPY(cols_off, p->cols, p->ncols, sizeof(sy_jl_col_t));
    COPY(colruns_off, p->colruns, p->ncolruns, sizeof(sy_jl_colrun_t));
    COPY(strings_off, p->strings, p->strings_size, 1);
#undef COPY
    for (size_t i = 0; i < p->nnodes; i++) {
        ids[i] = (by_id_t){p->nodes[i].id, (uint32_t)i};
    }
    if (p->nnodes > 0) {
        qsort(ids, p->nnodes, sizeof(*ids), by_id_cmp);
    }
    uint32_t *byid = (uint32_t *)(b + h.byid_off);
    for (size_t i = 0; i < p->nnodes; i++) {
        byid[i] = ids[i].index;
    }
    free(ids);
    *blob = b;
    *size = off;
    return PMIX_SUCCESS;
}

/* ---- reading ---- */

/* bytes [off, off + len) of the blob, checked; NULL when out of bounds or
 * damaged */
static const void *at(const sy_jl_view_t *v, uint64_t off, uint64_t len)
{
    if (off > v->size || len > v->size - off) {
        return NULL;
    }
    if (v->seg != NULL) {
        return sy_jseg_at(v->seg, v->seg_off + off, len);
    }
    return v->base + off;
}

static bool section_ok(const sy_jl_view_t *v, uint64_t off, uint64_t n, uint64_t elem)
{
    /* records hold 64-bit fields: sections start at multiples of 8 */
    return off % 8 == 0 && off >= sizeof(sy_jl_header_t) && off <= v->size &&
           n <= (v->size - off) / elem;
}

bool sy_jl_view_init(sy_jl_view_t *v, const void *blob, uint64_t size, const struct sy_jseg *seg,
                     uint64_t seg_off)
{
    memset(v, 0, sizeof(*v));
    v->base = blob;
    v->size = size;
    v->seg = seg;
    v->seg_off = seg_off;
    const sy_jl_header_t *h = at(v, 0, sizeof(*h));
    if (h == NULL) {
        return false;
    }
    v->h = *h;
    const sy_jl_header_t *c = &v->h;
    return c->nnodes < SY_JL_NONE && section_ok(v, c->nodes_off, c->nnodes, sizeof(sy_jl_node_t)) &&
           section_ok(v, c->ranges_off, c->nranges, sizeof(sy_jl_range_t)) &&
           section_ok(v, c->byid_off, c->nnodes, sizeof(uint32_t)) &&
           section_ok(v, c->noderuns_off, c->nnoderuns, sizeof(sy_jl_noderun_t)) &&
           section_ok(v, c->appruns_off, c->nappruns, sizeof(sy_jl_apprun_t)) &&
           section_ok(v, c->apps_off, c->napps, sizeof(sy_jl_app_t)) &&
           section_ok(v, c->appnodes_off, c->nappnodes, sizeof(uint32_t)) &&
           section_ok(v, c->cols_off, c->ncols, sizeof(sy_jl_col_t)) &&
           section_ok(v, c->colruns_off, c->ncolruns, sizeof(sy_jl_colrun_t)) &&
           section_ok(v, c->strings_off, c->strings_size, 1);
}

static const sy_jl_node_t *node_at(const sy_jl_view_t *v, uint32_t i)
{
    return i < v->h.nnodes
               ? at(v, v->h.nodes_off + (uint64_t)i * sizeof(sy_jl_node_t), sizeof(sy_jl_node_t))
               : NULL;
}

static const char *string_at(const sy_jl_view_t *v, uint32_t off, uint64_t len)
{
    return len <= v->h.strings_size && off <= v->h.strings_size - len
               ? at(v, v->h.strings_off + off, len)
               : NULL;
}

/* The record of a table of runs (records of `size` bytes that begin with
 * first and count) holding rank r: binary search, *bad when a record read
 * was damaged. */
static const uint32_t *find_run(const sy_jl_view_t *v, uint64_t off, uint32_t n, size_t size,
                                uint32_t r, bool *bad)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const uint32_t *run = at(v, off + (uint64_t)mid * size, size);
        if (run == NULL) {
            *bad = true;
            return NULL;
        }
        if (r < run[0]) {
            hi = mid;
        } else if (r - run[0] < run[1]) {
            return run;
        } else {
            lo = mid + 1;
        }
    }
    return NULL;
}

/* The node run holding rank r: straight to it when the runs are regular,
 * else a binary search. */
static const sy_jl_noderun_t *find_noderun(const sy_jl_view_t *v, uint32_t r, bool *bad)
{
    if (v->h.noderun_stride != 0 && r >= v->h.noderun_base) {
        uint64_t k = (r - v->h.noderun_base) / v->h.noderun_stride;
        const sy_jl_noderun_t *run =
            k < v->h.nnoderuns
                ? at(v, v->h.noderuns_off + k * sizeof(sy_jl_noderun_t), sizeof(sy_jl_noderun_t))
                : NULL;
        if (run != NULL && r >= run->first && r - run->first < run->count) {
            return run;
        }
    }
    return (const sy_jl_noderun_t *)find_run(v, v->h.noderuns_off, v->h.nnoderuns,
                                             sizeof(sy_jl_noderun_t), r, bad);
}

/* A node by its id: node `id` when ids are positions (the usual case),
 * else a binary search of the by-id index. */
static bool node_by_id(const sy_jl_view_t *v, uint32_t id, const sy_jl_node_t **out, bool *bad)
{
    const sy_jl_node_t *direct = id < v->h.nnodes ? node_at(v, id) : NULL;
    if (direct != NULL && direct->id == id) {
        *out = direct;
        return true;
    }
    uint32_t lo = 0, hi = v->h.nnodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const uint32_t *idx = at(v, v->h.byid_off + (uint64_t)mid * 4, 4);
        const sy_jl_node_t *nd = idx != NULL ? node_at(v, *idx) : NULL;
        if (nd == NULL) {
            *bad = true;
            return false;
        }
        if (nd->id == id) {
            *out = nd;
            return true;
        }
        if (nd->id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return false;
}

static const sy_jl_app_t *app_by_num(const sy_jl_view_t *v, uint32_t appnum, bool *bad)
{
    const sy_jl_app_t *direct =
        appnum < v->h.napps
            ? at(v, v->h.apps_off + (uint64_t)appnum * sizeof(sy_jl_app_t), sizeof(sy_jl_app_t))
            : NULL;
    if (direct != NULL && direct->appnum == appnum) {
        return direct;
    }
    uint32_t lo = 0, hi = v->h.napps;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const sy_jl_app_t *a =
            at(v, v->h.apps_off + (uint64_t)mid * sizeof(sy_jl_app_t), sizeof(sy_jl_app_t));
        if (a == NULL) {
            *bad = true;
            return NULL;
        }
        if (a->appnum == appnum) {
            return a;
        }
        if (a->appnum < appnum) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

/* ---- values ---- */

static void set_u32(pmix_value_t *out, pmix_data_type_t type, uint32_t u)
{
    out->type = type;
    if (type == PMIX_PROC_RANK) {
        out->data.rank = u;
    } else {
        out->data.uint32 = u;
    }
}

static pmix_status_t set_string(pmix_value_t *out, const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (c == NULL) {
        return PMIX_ERR_NOMEM;
    }
    memcpy(c, s, len);
    c[len] = '\0';
    out->type = PMIX_STRING;
    out->data.string = c;
    return PMIX_SUCCESS;
}

/* "r,r,r" of a node's ranges, read from the view. */
static pmix_status_t peers_of(const sy_jl_view_t *v, const sy_jl_node_t *nd, pmix_value_t *out)
{
    if (nd->range_off > v->h.nranges || nd->nranges > v->h.nranges - nd->range_off) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    const sy_jl_range_t *r = at(v, v->h.ranges_off + (uint64_t)nd->range_off * sizeof(*r),
                                (uint64_t)nd->nranges * sizeof(*r));
    if (r == NULL && nd->nranges > 0) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < nd->nranges; i++) {
        total += r[i].count;
        if ((uint64_t)r[i].first + r[i].count > PMIX_RANK_VALID) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
    }
    if (total > SY_JL_MAX_PEERS) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    char *s = sy_jl_rank_list(r, nd->nranges);
    if (s == NULL) {
        return PMIX_ERR_NOMEM;
    }
    out->type = PMIX_STRING;
    out->data.string = s;
    return PMIX_SUCCESS;
}

/* Names of nodes idx[0..n-1] (or all nodes, idx NULL) joined by commas. */
static pmix_status_t node_list(const sy_jl_view_t *v, const uint32_t *idx, uint32_t n,
                               pmix_value_t *out)
{
    uint64_t len = 1;
    for (uint32_t pass = 0; pass < 2; pass++) {
        char *s = NULL, *w = NULL;
        if (pass == 1) {
            if (len > ((uint64_t)1 << 30)) {
                return PMIX_ERR_UNPACK_FAILURE; /* damaged: no real job lists 1 GiB of names */
            }
            if ((s = malloc(len)) == NULL) {
                return PMIX_ERR_NOMEM;
            }
            w = s;
        }
        for (uint32_t i = 0; i < n; i++) {
            const sy_jl_node_t *nd = node_at(v, idx != NULL ? idx[i] : i);
            const char *name = NULL;
            if (nd != NULL && nd->name_len != SY_JL_NONE) {
                name = string_at(v, nd->name_off, nd->name_len);
            }
            if (name == NULL) {
                free(s);
                return PMIX_ERR_UNPACK_FAILURE;
            }
            if (pass == 0) {
                len += (uint64_t)nd->name_len + 1;
                continue;
            }
            if (i > 0) {
                *w++ = ',';
            }
            memcpy(w, name, nd->name_len);
            w += nd->name_len;
        }
        if (pass == 1) {
            *w = '\0';
            out->type = PMIX_STRING;
            out->data.string = s;
        }
    }
    return PMIX_SUCCESS;
}

static bool node_list_known(const sy_jl_view_t *v)
{
    return (v->h.flags & SY_JL_NAMES) != 0 && v->h.nnodes > 0;
}

/* The keys derived per realm. */
typedef enum {
    K_RANK,
    K_GLOBAL_RANK,
    K_LOCAL_RANK,
    K_NODE_RANK,
    K_NODEID,
    K_HOSTNAME,
    K_APPNUM,
    K_APP_RANK,
    K_LOCAL_PEERS,
    K_LOCAL_SIZE,
    K_NODE_SIZE,
    K_LOCALLDR,
    K_NODE_LIST,
    K_NONE
} dkey_t;

static const char *const dkey_name[] = {
    [K_RANK] = PMIX_RANK,
    [K_GLOBAL_RANK] = PMIX_GLOBAL_RANK,
    [K_LOCAL_RANK] = PMIX_LOCAL_RANK,
    [K_NODE_RANK] = PMIX_NODE_RANK,
    [K_NODEID] = PMIX_NODEID,
    [K_HOSTNAME] = PMIX_HOSTNAME,
    [K_APPNUM] = PMIX_APPNUM,
    [K_APP_RANK] = PMIX_APP_RANK,
    [K_LOCAL_PEERS] = PMIX_LOCAL_PEERS,
    [K_LOCAL_SIZE] = PMIX_LOCAL_SIZE,
    [K_NODE_SIZE] = PMIX_NODE_SIZE,
    [K_LOCALLDR] = PMIX_LOCALLDR,
    [K_NODE_LIST] = PMIX_NODE_LIST,
};

static const dkey_t proc_keys[] = {K_APPNUM,     K_APP_RANK,  K_GLOBAL_RANK, K_HOSTNAME,
                                   K_LOCAL_RANK, K_NODE_RANK, K_NODEID,      K_RANK};
static const dkey_t node_keys[] = {K_HOSTNAME,   K_LOCALLDR, K_LOCAL_PEERS,
                                   K_LOCAL_SIZE, K_NODEID,   K_NODE_SIZE};

static dkey_t dkey_of(const char *key, const dkey_t *set, size_t n)
{
    /* derived keys are "pmix." keys: anything else is answered at once */
    if (strncmp(key, "pmix.", 5) != 0) {
        return K_NONE;
    }
    for (size_t i = 0; i < n; i++) {
        if (strcmp(key + 5, dkey_name[set[i]] + 5) == 0) {
            return set[i];
        }
    }
    return K_NONE;
}

#define NKEYS(a) (sizeof(a) / sizeof((a)[0]))

static pmix_status_t derive_proc(const sy_jl_view_t *v, uint32_t r, dkey_t k, pmix_value_t *out)
{
    bool bad = false;
    const sy_jl_apprun_t *ar = (const sy_jl_apprun_t *)find_run(v, v->h.appruns_off, v->h.nappruns,
                                                                sizeof(sy_jl_apprun_t), r, &bad);
    if (ar == NULL) {
        return bad ? PMIX_ERR_UNPACK_FAILURE : PMIX_ERR_NOT_FOUND;
    }
    switch (k) {
    case K_RANK: set_u32(out, PMIX_PROC_RANK, r); return PMIX_SUCCESS;
    case K_GLOBAL_RANK:
        if ((uint64_t)v->h.offset + r >= PMIX_RANK_VALID) {
            return PMIX_ERR_NOT_FOUND;
        }
        set_u32(out, PMIX_PROC_RANK, v->h.offset + r);
        return PMIX_SUCCESS;
    case K_APPNUM:
        if (ar->appnum == SY_JL_NONE) {
            return PMIX_ERR_NOT_FOUND;
        }
        set_u32(out, PMIX_UINT32, ar->appnum);
        return PMIX_SUCCESS;
    case K_APP_RANK: {
        uint64_t ar_rank = (uint64_t)ar->app_base + (r - ar->first);
        if (ar->app_base == SY_JL_NONE || ar_rank >= PMIX_RANK_VALID) {
            return PMIX_ERR_NOT_FOUND;
        }
        set_u32(out, PMIX_PROC_RANK, (uint32_t)ar_rank);
        return PMIX_SUCCESS;
    }
    default: break;
    }
    const sy_jl_noderun_t *nr = find_noderun(v, r, &bad);
    if (nr == NULL) {
        return bad ? PMIX_ERR_UNPACK_FAILURE : PMIX_ERR_NOT_FOUND;
    }
    const sy_jl_node_t *nd = node_at(v, nr->node);
    if (nd == NULL) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    switch (k) {
    case K_LOCAL_RANK:
    case K_NODE_RANK: {
        /* other jobs on the node are not known here: the node rank is the
         * local rank */
        uint64_t lr = (uint64_t)nr->local_base + (r - nr->first);
        if (lr > UINT16_MAX) {
            return PMIX_ERR_NOT_FOUND;
        }
        out->type = PMIX_UINT16;
        out->data.uint16 = (uint16_t)lr;
        return PMIX_SUCCESS;
    }
    case K_NODEID: set_u32(out, PMIX_UINT32, nd->id); return PMIX_SUCCESS;
    case K_HOSTNAME: {
        if (nd->name_len == SY_JL_NONE) {
            return PMIX_ERR_NOT_FOUND;
        }
        const char *name = string_at(v, nd->name_off, nd->name_len);
        return name == NULL ? PMIX_ERR_UNPACK_FAILURE : set_string(out, name, nd->name_len);
    }
    default: return PMIX_ERR_NOT_FOUND;
    }
}

static pmix_status_t derive_node(const sy_jl_view_t *v, uint32_t id, dkey_t k, pmix_value_t *out)
{
    const sy_jl_node_t *nd = NULL;
    bool bad = false;
    if (!node_by_id(v, id, &nd, &bad)) {
        return bad ? PMIX_ERR_UNPACK_FAILURE : PMIX_ERR_NOT_FOUND;
    }
    switch (k) {
    case K_HOSTNAME: {
        if (nd->name_len == SY_JL_NONE) {
            return PMIX_ERR_NOT_FOUND;
        }
        const char *name = string_at(v, nd->name_off, nd->name_len);
        return name == NULL ? PMIX_ERR_UNPACK_FAILURE : set_string(out, name, nd->name_len);
    }
    case K_NODEID: set_u32(out, PMIX_UINT32, nd->id); return PMIX_SUCCESS;
    default: break;
    }
    if ((v->h.flags & SY_JL_PROCS) == 0) {
        return PMIX_ERR_NOT_FOUND;
    }
    switch (k) {
    case K_LOCAL_PEERS: return peers_of(v, nd, out);
    case K_LOCAL_SIZE:
    case K_NODE_SIZE:
        /* other jobs on the node are not known here: this job's count */
        set_u32(out, PMIX_UINT32, nd->nranks);
        return PMIX_SUCCESS;
    case K_LOCALLDR: {
        if (nd->nranks == 0 || nd->nranges == 0) {
            return PMIX_ERR_NOT_FOUND;
        }
        const sy_jl_range_t *r =
            nd->range_off < v->h.nranges
                ? at(v, v->h.ranges_off + (uint64_t)nd->range_off * sizeof(*r), sizeof(*r))
                : NULL;
        if (r == NULL) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        set_u32(out, PMIX_PROC_RANK, r->first);
        return PMIX_SUCCESS;
    }
    default: return PMIX_ERR_NOT_FOUND;
    }
}

static pmix_status_t derive_app_nodes(const sy_jl_view_t *v, uint32_t appnum, pmix_value_t *out)
{
    bool bad = false;
    const sy_jl_app_t *a = app_by_num(v, appnum, &bad);
    if (a == NULL) {
        return bad ? PMIX_ERR_UNPACK_FAILURE : PMIX_ERR_NOT_FOUND;
    }
    if (a->node_off == SY_JL_NONE) {
        return node_list(v, NULL, v->h.nnodes, out);
    }
    if (a->nnodes == 0) {
        return PMIX_ERR_NOT_FOUND;
    }
    if (a->node_off > v->h.nappnodes || a->nnodes > v->h.nappnodes - a->node_off) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    const uint32_t *idx =
        at(v, v->h.appnodes_off + (uint64_t)a->node_off * 4, (uint64_t)a->nnodes * 4);
    return idx == NULL ? PMIX_ERR_UNPACK_FAILURE : node_list(v, idx, a->nnodes, out);
}

static pmix_status_t derive(const sy_jl_view_t *v, sy_realm_t realm, uint32_t id, dkey_t k,
                            pmix_value_t *out)
{
    switch (realm) {
    case SY_REALM_PROC: return derive_proc(v, id, k, out);
    case SY_REALM_NODE: return derive_node(v, id, k, out);
    case SY_REALM_APP:
        return k == K_NODE_LIST && node_list_known(v) ? derive_app_nodes(v, id, out)
                                                      : PMIX_ERR_NOT_FOUND;
    case SY_REALM_JOB:
        return k == K_NODE_LIST && id == 0 && node_list_known(v)
                   ? node_list(v, NULL, v->h.nnodes, out)
                   : PMIX_ERR_NOT_FOUND;
    default: return PMIX_ERR_NOT_FOUND;
    }
}

static dkey_t realm_key(sy_realm_t realm, const char *key)
{
    switch (realm) {
    case SY_REALM_PROC: return dkey_of(key, proc_keys, NKEYS(proc_keys));
    case SY_REALM_NODE: return dkey_of(key, node_keys, NKEYS(node_keys));
    case SY_REALM_APP:
    case SY_REALM_JOB: return strcmp(key, PMIX_NODE_LIST) == 0 ? K_NODE_LIST : K_NONE;
    default: return K_NONE;
    }
}

int sy_jl_proc_key(const char *key)
{
    dkey_t k = dkey_of(key, proc_keys, NKEYS(proc_keys));
    return k == K_NONE ? -1 : (int)k;
}

bool sy_jl_proc_equals(const sy_jl_view_t *v, uint32_t r, int k, const pmix_value_t *val)
{
    pmix_value_t d;
    bool same = false;
    if (k < 0 || k >= K_NONE) {
        return false;
    }
    if (k == K_HOSTNAME) {
        /* compared in place: no copy of the name */
        bool bad = false;
        const sy_jl_noderun_t *nr = find_noderun(v, r, &bad);
        const sy_jl_node_t *nd = nr != NULL ? node_at(v, nr->node) : NULL;
        const char *name = nd != NULL && nd->name_len != SY_JL_NONE
                               ? string_at(v, nd->name_off, nd->name_len)
                               : NULL;
        return name != NULL && val->type == PMIX_STRING && val->data.string != NULL &&
               strncmp(val->data.string, name, nd->name_len) == 0 &&
               val->data.string[nd->name_len] == '\0';
    }
    memset(&d, 0, sizeof(d));
    if (derive_proc(v, r, (dkey_t)k, &d) != PMIX_SUCCESS) {
        return false;
    }
    if (d.type == val->type) {
        uint64_t a, b;
        bool ia, ib;
        same = sy_jl_raw_bits(val, &a, &ia) && sy_jl_raw_bits(&d, &b, &ib) && a == b;
    }
    sy_value_destruct(&d);
    return same;
}

pmix_status_t sy_jl_derive(const sy_jl_view_t *v, sy_realm_t realm, uint32_t id, const char *key,
                           pmix_value_t *out)
{
    dkey_t k = realm_key(realm, key);
    return k == K_NONE ? PMIX_ERR_NOT_FOUND : derive(v, realm, id, k, out);
}

/* ---- columns ---- */

static bool int_type(pmix_data_type_t t)
{
    switch (t) {
    case PMIX_INT:
    case PMIX_INT8:
    case PMIX_INT16:
    case PMIX_INT32:
    case PMIX_INT64:
    case PMIX_UINT:
    case PMIX_UINT8:
    case PMIX_UINT16:
    case PMIX_UINT32:
    case PMIX_UINT64:
    case PMIX_SIZE:
    case PMIX_PID:
    case PMIX_PROC_RANK: return true;
    default: return false;
    }
}

bool sy_jl_raw_bits(const pmix_value_t *val, uint64_t *bits, bool *integer)
{
    size_t size = sy_type_size(val->type);
    if (!sy_jseg_raw_type(val->type) || size == 0 || size > 8) {
        return false;
    }
    switch (size) {
    case 1: {
        uint8_t u;
        memcpy(&u, &val->data, 1);
        *bits = u;
        break;
    }
    case 2: {
        uint16_t u;
        memcpy(&u, &val->data, 2);
        *bits = u;
        break;
    }
    case 4: {
        uint32_t u;
        memcpy(&u, &val->data, 4);
        *bits = u;
        break;
    }
    case 8: memcpy(bits, &val->data, 8); break;
    default: return false;
    }
    *integer = int_type(val->type);
    return true;
}

static pmix_status_t run_value(const sy_jl_view_t *v, const sy_jl_colrun_t *run, uint32_t r,
                               pmix_value_t *out)
{
    if (run->form == SY_JL_FORM_STRING) {
        if (run->type != PMIX_STRING || run->step != 0) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        out->type = PMIX_STRING;
        if (run->value == UINT64_MAX) {
            return PMIX_SUCCESS;
        }
        const char *s = string_at(v, run->aux, run->value);
        if (s == NULL || memchr(s, '\0', run->value) != NULL) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        return set_string(out, s, run->value);
    }
    size_t size = sy_type_size(run->type);
    if (run->form != SY_JL_FORM_RAW || !sy_jseg_raw_type(run->type) || size == 0 || size > 8 ||
        run->step > 1 || (run->step == 1 && !int_type(run->type))) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    uint64_t bits = run->value + (run->step == 1 ? (uint64_t)(r - run->first) : 0);
    out->type = run->type;
    switch (size) {
    case 1: {
        uint8_t u = (uint8_t)bits;
        if (run->type == PMIX_BOOL && u > 1) {
            return PMIX_ERR_UNPACK_FAILURE; /* not a valid C bool */
        }
        memcpy(&out->data, &u, 1);
        break;
    }
    case 2: {
        uint16_t u = (uint16_t)bits;
        memcpy(&out->data, &u, 2);
        break;
    }
    case 4: {
        uint32_t u = (uint32_t)bits;
        memcpy(&out->data, &u, 4);
        break;
    }
    default: memcpy(&out->data, &bits, 8); break;
    }
    return PMIX_SUCCESS;
}

/* Column i: its key and its runs, checked. */
static bool column_at(const sy_jl_view_t *v, uint32_t i, const char **key, uint32_t *key_len,
                      uint64_t *runs_off, uint32_t *nruns)
{
    const sy_jl_col_t *c =
        at(v, v->h.cols_off + (uint64_t)i * sizeof(sy_jl_col_t), sizeof(sy_jl_col_t));
    if (c == NULL || c->key_len == 0 || c->key_len > PMIX_MAX_KEYLEN ||
        c->run_off > v->h.ncolruns || c->nruns > v->h.ncolruns - c->run_off ||
        (*key = string_at(v, c->key_off, c->key_len)) == NULL) {
        return false;
    }
    *key_len = c->key_len;
    *runs_off = v->h.colruns_off + (uint64_t)c->run_off * sizeof(sy_jl_colrun_t);
    *nruns = c->nruns;
    return true;
}

static pmix_status_t column_value(const sy_jl_view_t *v, uint64_t runs_off, uint32_t nruns,
                                  uint32_t r, pmix_value_t *out)
{
    bool bad = false;
    const sy_jl_colrun_t *run =
        (const sy_jl_colrun_t *)find_run(v, runs_off, nruns, sizeof(sy_jl_colrun_t), r, &bad);
    if (run == NULL) {
        return bad ? PMIX_ERR_UNPACK_FAILURE : PMIX_ERR_NOT_FOUND;
    }
    return run_value(v, run, r, out);
}

pmix_status_t sy_jl_column_get(const sy_jl_view_t *v, uint32_t rank, const char *key,
                               pmix_value_t *out)
{
    size_t len = strlen(key);
    for (uint32_t i = 0; i < v->h.ncols; i++) {
        const char *k;
        uint32_t klen, nruns;
        uint64_t runs_off;
        if (!column_at(v, i, &k, &klen, &runs_off, &nruns)) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        if (klen == len && memcmp(k, key, len) == 0) {
            return column_value(v, runs_off, nruns, rank, out);
        }
    }
    return PMIX_ERR_NOT_FOUND;
}

/* ---- listings ---- */

pmix_status_t sy_jl_each(const sy_jl_view_t *v, sy_realm_t realm, uint32_t id, sy_jl_each_fn fn,
                         void *ctx)
{
    const dkey_t *set = NULL;
    size_t n = 0;
    static const dkey_t list_key[] = {K_NODE_LIST};
    pmix_status_t rc;

    if (realm == SY_REALM_PROC) {
        for (uint32_t i = 0; i < v->h.ncols; i++) {
            const char *k;
            uint32_t klen, nruns;
            uint64_t runs_off;
            char key[PMIX_MAX_KEYLEN + 1];
            pmix_value_t val;
            if (!column_at(v, i, &k, &klen, &runs_off, &nruns)) {
                return PMIX_ERR_UNPACK_FAILURE;
            }
            memcpy(key, k, klen);
            key[klen] = '\0';
            if (memchr(key, '\0', klen) != NULL) {
                return PMIX_ERR_UNPACK_FAILURE;
            }
            memset(&val, 0, sizeof(val));
            rc = column_value(v, runs_off, nruns, id, &val);
            if (rc == PMIX_SUCCESS) {
                rc = fn(key, &val, ctx);
            }
            if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) {
                return rc;
            }
        }
        set = proc_keys;
        n = NKEYS(proc_keys);
    } else if (realm == SY_REALM_NODE) {
        set = node_keys;
        n = NKEYS(node_keys);
    } else if (realm == SY_REALM_APP || realm == SY_REALM_JOB) {
        set = list_key;
        n = 1;
    }
    for (size_t i = 0; i < n; i++) {
        pmix_value_t val;
        memset(&val, 0, sizeof(val));
        rc = derive(v, realm, id, set[i], &val);
        if (rc == PMIX_SUCCESS) {
            rc = fn(dkey_name[set[i]], &val, ctx);
        }
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_jl_ids(const sy_jl_view_t *v, sy_realm_t realm, uint32_t **ids, size_t *n)
{
    uint64_t total = 0;
    uint32_t *out;
    size_t k = 0;

    *ids = NULL;
    *n = 0;
    switch (realm) {
    case SY_REALM_PROC:
        for (uint32_t i = 0; i < v->h.nappruns; i++) {
            const sy_jl_apprun_t *ar =
                at(v, v->h.appruns_off + (uint64_t)i * sizeof(*ar), sizeof(*ar));
            if (ar == NULL || (uint64_t)ar->first + ar->count > PMIX_RANK_VALID) {
                return PMIX_ERR_UNPACK_FAILURE;
            }
            total += ar->count;
        }
        if (total > SY_JL_MAX_PEERS * 10ull) {
            return PMIX_ERR_UNPACK_FAILURE;
        }
        break;
    case SY_REALM_NODE: total = v->h.nnodes; break;
    case SY_REALM_APP: total = node_list_known(v) ? v->h.napps : 0; break;
    case SY_REALM_JOB: total = node_list_known(v) ? 1 : 0; break;
    default: break;
    }
    if (total == 0) {
        return PMIX_SUCCESS;
    }
    if ((out = malloc(total * sizeof(*out))) == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (uint32_t i = 0; realm == SY_REALM_PROC && i < v->h.nappruns; i++) {
        const sy_jl_apprun_t *ar = at(v, v->h.appruns_off + (uint64_t)i * sizeof(*ar), sizeof(*ar));
        for (uint32_t j = 0; ar != NULL && j < ar->count && k < total; j++) {
            out[k++] = ar->first + j;
        }
    }
    for (uint32_t i = 0; realm == SY_REALM_NODE && i < total; i++) {
        const uint32_t *idx = at(v, v->h.byid_off + (uint64_t)i * 4, 4);
        const sy_jl_node_t *nd = idx != NULL ? node_at(v, *idx) : NULL;
        if (nd == NULL) {
            free(out);
            return PMIX_ERR_UNPACK_FAILURE;
        }
        out[k++] = nd->id;
    }
    for (uint32_t i = 0; realm == SY_REALM_APP && i < total; i++) {
        const sy_jl_app_t *a = at(v, v->h.apps_off + (uint64_t)i * sizeof(*a), sizeof(*a));
        if (a == NULL) {
            free(out);
            return PMIX_ERR_UNPACK_FAILURE;
        }
        out[k++] = a->appnum;
    }
    if (realm == SY_REALM_JOB) {
        out[k++] = 0;
    }
    *ids = out;
    *n = k;
    return PMIX_SUCCESS;
}

bool sy_jl_node_at(const sy_jl_view_t *v, uint32_t i, uint32_t *id, const char **name, size_t *len)
{
    const sy_jl_node_t *nd = node_at(v, i);
    if (nd == NULL) {
        return false;
    }
    *id = nd->id;
    *name = NULL;
    *len = 0;
    if (nd->name_len != SY_JL_NONE) {
        if ((*name = string_at(v, nd->name_off, nd->name_len)) == NULL) {
            return false;
        }
        *len = nd->name_len;
    }
    return true;
}

char *sy_jl_rank_list(const sy_jl_range_t *ranges, size_t n)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        total += ranges[i].count;
    }
    /* at most 10 digits and a comma per rank */
    char *s = malloc(total * 11 + 1), *w = s;
    if (s == NULL) {
        return NULL;
    }
    *w = '\0';
    for (size_t i = 0; i < n; i++) {
        for (uint32_t j = 0; j < ranges[i].count; j++) {
            w += snprintf(w, 12, "%s%u", w == s ? "" : ",", ranges[i].first + j);
        }
    }
    return s;
}
