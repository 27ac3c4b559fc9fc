/* The per-process data a host passes (PMIX_PROC_DATA, ORTE and Slurm send
 * one per rank of the job), read where the host keeps it once the layout
 * is known:
 *   - a value the layout derives alike (same type, same value: a rank's
 *     node id, host name, local rank, ...) is not stored at all;
 *   - a value of a plain type of at most 8 bytes, or a string, joins its
 *     key's column: runs of consecutive ranks holding the same value, or
 *     values counting up with the rank (Slurm's PMIX_GLOBAL_RANK as a
 *     UINT32, its INT application numbers), a few bytes per run;
 *   - anything else is an ordinary entry.
 * The last value a rank's containers give for a key wins, as everywhere. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "common/datatype.h"
#include "common/jobinfo_internal.h"

static int proc_cmp(const void *a, const void *b)
{
    const sy_ji_proc_t *x = a, *y = b;
    if (x->rank != y->rank) {
        return x->rank < y->rank ? -1 : 1;
    }
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void sy_ji_sort_procs(sy_ji_t *ctx)
{
    for (size_t i = 1; i < ctx->nprocs; i++) {
        if (proc_cmp(&ctx->procs[i - 1], &ctx->procs[i]) > 0) {
            qsort(ctx->procs, ctx->nprocs, sizeof(*ctx->procs), proc_cmp);
            return;
        }
    }
}

size_t sy_ji_rank_end(const sy_ji_t *ctx, size_t i)
{
    size_t end = i + 1;
    while (end < ctx->nprocs && ctx->procs[end].rank == ctx->procs[i].rank) {
        end++;
    }
    return end;
}

const pmix_value_t *sy_ji_proc_value(const sy_ji_t *ctx, size_t first, size_t end, bool appnum)
{
    for (size_t c = end; c > first; c--) {
        const sy_ji_proc_t *p = &ctx->procs[c - 1];
        const pmix_value_t *v = appnum ? p->appnum : p->nodeid;
        if (v != NULL) {
            return v;
        }
    }
    return NULL;
}

/* ---- columns ---- */

typedef struct {
    const char *key;
    uint32_t key_off, key_len;
    sy_jl_colrun_t *runs;
    size_t nruns, cap;
} col_t;

/* Interned strings: one copy of each value in the pool. */
typedef struct {
    uint32_t *slots; /* pool offset + 1, 0 empty */
    size_t nslots, n;
} strset_t;

typedef enum { KC_FLAT, KC_CONTAINER, KC_NODATA, KC_SESSION } kclass_t;

/* What a key is, worked out once per place it holds in the containers:
 * hosts build every rank's container alike, so the next rank's item at
 * the same place nearly always has the same key (one comparison instead
 * of a classification). */
typedef struct {
    char key[PMIX_MAX_KEYLEN + 1];
    kclass_t cls;
    int fixed;   /* sy_ji_fixed_type */
    int derived; /* sy_jl_proc_key */
    long col;    /* its column, -1 until it has one */
} kc_t;

typedef struct {
    col_t *cols;
    size_t ncols, cap;
    char *pool;
    size_t size, pool_cap;
    strset_t set;
    kc_t spare; /* the class of an item beyond the cache */
} emit_t;

static pmix_status_t pool_add(emit_t *em, const char *s, size_t len, uint32_t *off)
{
    if (len > UINT32_MAX - em->size - 1) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (em->size + len + 1 > em->pool_cap) {
        size_t cap = em->pool_cap == 0 ? 4096 : em->pool_cap;
        while (cap < em->size + len + 1) {
            cap *= 2;
        }
        char *p = realloc(em->pool, cap);
        if (p == NULL) {
            return PMIX_ERR_NOMEM;
        }
        em->pool = p;
        em->pool_cap = cap;
    }
    memcpy(em->pool + em->size, s, len);
    em->pool[em->size + len] = '\0';
    *off = (uint32_t)em->size;
    em->size += len + 1;
    return PMIX_SUCCESS;
}

static uint32_t str_hash(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    }
    return h;
}

/* The pool offset of string s (added once). */
static pmix_status_t intern(emit_t *em, const char *s, size_t len, uint32_t *off)
{
    strset_t *set = &em->set;
    if (2 * (set->n + 1) > set->nslots) {
        size_t n = set->nslots == 0 ? 256 : 2 * set->nslots;
        uint32_t *slots = calloc(n, sizeof(*slots));
        if (slots == NULL) {
            return PMIX_ERR_NOMEM;
        }
        for (size_t i = 0; i < set->nslots; i++) {
            if (set->slots[i] != 0) {
                const char *t = em->pool + set->slots[i] - 1;
                size_t k = str_hash(t, strlen(t)) & (n - 1);
                while (slots[k] != 0) {
                    k = (k + 1) & (n - 1);
                }
                slots[k] = set->slots[i];
            }
        }
        free(set->slots);
        set->slots = slots;
        set->nslots = n;
    }
    size_t k = str_hash(s, len) & (set->nslots - 1);
    for (; set->slots[k] != 0; k = (k + 1) & (set->nslots - 1)) {
        const char *t = em->pool + set->slots[k] - 1;
        if (strncmp(t, s, len) == 0 && t[len] == '\0') {
            *off = set->slots[k] - 1;
            return PMIX_SUCCESS;
        }
    }
    pmix_status_t rc = pool_add(em, s, len, off);
    if (rc == PMIX_SUCCESS) {
        set->slots[k] = *off + 1;
        set->n++;
    }
    return rc;
}

static pmix_status_t column_of(emit_t *em, const char *key, col_t **out)
{
    for (size_t i = 0; i < em->ncols; i++) {
        if (strcmp(em->cols[i].key, key) == 0) {
            *out = &em->cols[i];
            return PMIX_SUCCESS;
        }
    }
    if (em->ncols == em->cap) {
        size_t cap = em->cap == 0 ? 8 : 2 * em->cap;
        col_t *c = realloc(em->cols, cap * sizeof(*c));
        if (c == NULL) {
            return PMIX_ERR_NOMEM;
        }
        em->cols = c;
        em->cap = cap;
    }
    col_t *c = &em->cols[em->ncols];
    memset(c, 0, sizeof(*c));
    c->key = key;
    c->key_len = (uint32_t)strlen(key);
    pmix_status_t rc = pool_add(em, key, c->key_len, &c->key_off);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    em->ncols++;
    *out = c;
    return PMIX_SUCCESS;
}

static uint64_t width_mask(pmix_data_type_t type)
{
    size_t size = sy_type_size(type);
    return size >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * size)) - 1);
}

/* Append (rank, run) to the column, extending its last run when the value
 * continues it. */
static pmix_status_t column_add(col_t *c, uint32_t rank, const sy_jl_colrun_t *v, bool integer)
{
    if (c->nruns > 0) {
        sy_jl_colrun_t *last = &c->runs[c->nruns - 1];
        if ((uint64_t)last->first + last->count == rank && last->type == v->type &&
            last->form == v->form && last->aux == v->aux) {
            uint64_t mask = width_mask(v->type);
            if (last->step == 0 && v->value == last->value) {
                last->count++;
                return PMIX_SUCCESS;
            }
            if (integer && v->form == SY_JL_FORM_RAW &&
                ((last->value + last->count) & mask) == v->value &&
                (last->step == 1 || last->count == 1)) {
                last->step = 1;
                last->count++;
                return PMIX_SUCCESS;
            }
        }
    }
    if (c->nruns == c->cap) {
        size_t cap = c->cap == 0 ? 4 : 2 * c->cap;
        sy_jl_colrun_t *r = realloc(c->runs, cap * sizeof(*r));
        if (r == NULL) {
            return PMIX_ERR_NOMEM;
        }
        c->runs = r;
        c->cap = cap;
    }
    c->runs[c->nruns] = *v;
    c->runs[c->nruns].first = rank;
    c->runs[c->nruns].count = 1;
    c->nruns++;
    return PMIX_SUCCESS;
}

#define KC_SLOTS 64

/* The class of key at place pos (below KC_SLOTS) of a rank's items. */
static kc_t *classify(kc_t *c, const char *key)
{
    if (strcmp(c->key, key) == 0 && c->key[0] != '\0') {
        return c;
    }
    sy_load_fixed(c->key, key, sizeof(c->key));
    c->cls = KC_FLAT;
    if (strcmp(key, PMIX_SESSION_INFO_ARRAY) == 0 || strcmp(key, PMIX_JOB_INFO_ARRAY) == 0 ||
        strcmp(key, PMIX_APP_INFO_ARRAY) == 0 || strcmp(key, PMIX_NODE_INFO_ARRAY) == 0 ||
        strcmp(key, PMIX_PROC_DATA) == 0) {
        c->cls = KC_CONTAINER;
    } else if (strcmp(key, PMIX_REGISTER_NODATA) == 0) {
        c->cls = KC_NODATA;
    } else if (strcmp(key, PMIX_SESSION_ID) == 0) {
        c->cls = KC_SESSION;
    }
    c->fixed = sy_ji_fixed_type(key);
    c->derived = sy_jl_proc_key(key);
    c->col = -1;
    return c;
}

/* One rank's final value of a key. */
static pmix_status_t dispatch(sy_ji_t *ctx, emit_t *em, const sy_jl_view_t *v, pmix_rank_t rank,
                              const pmix_info_t *in, kc_t *kc)
{
    sy_jl_colrun_t run;
    uint64_t bits;
    bool integer = false;
    col_t *c;
    pmix_status_t rc;

    if (kc == NULL) {
        kc = &em->spare;
        memset(kc, 0, sizeof(*kc));
        classify(kc, in->key);
    }
    if (kc->cls == KC_NODATA) {
        return PMIX_SUCCESS;
    }
    if (kc->cls == KC_SESSION) {
        return sy_ji_flat(ctx, in, SY_REALM_PROC, rank); /* names a session too */
    }
    if (kc->derived >= 0 && sy_jl_proc_equals(v, rank, kc->derived, &in->value)) {
        return PMIX_SUCCESS;
    }
    memset(&run, 0, sizeof(run));
    run.type = (uint16_t)in->value.type;
    if (in->value.type == PMIX_STRING) {
        run.form = SY_JL_FORM_STRING;
        run.value = UINT64_MAX;
        if (in->value.data.string != NULL) {
            size_t len = strlen(in->value.data.string);
            if ((rc = intern(em, in->value.data.string, len, &run.aux)) != PMIX_SUCCESS) {
                return sy_ji_fail(ctx, rc, "out of memory");
            }
            run.value = len;
        }
    } else if (sy_jl_raw_bits(&in->value, &bits, &integer)) {
        run.form = SY_JL_FORM_RAW;
        run.value = bits;
    } else {
        rc = sy_ji_put_host(ctx, SY_REALM_PROC, rank, in->key, &in->value);
        return rc == PMIX_SUCCESS ? rc
                                  : sy_ji_fail(ctx, rc, "cannot store %s (%s)", in->key,
                                               PMIx_Data_type_string(in->value.type));
    }
    if (kc->col >= 0 && (size_t)kc->col < em->ncols &&
        strcmp(em->cols[kc->col].key, in->key) == 0) {
        c = &em->cols[kc->col];
    } else if ((rc = column_of(em, in->key, &c)) != PMIX_SUCCESS) {
        return sy_ji_fail(ctx, rc, "out of memory");
    }
    kc->col = c - em->cols;
    if ((rc = column_add(c, rank, &run, integer)) != PMIX_SUCCESS) {
        return sy_ji_fail(ctx, rc, "out of memory");
    }
    return PMIX_SUCCESS;
}

/* An item of a rank, its place among the rank's items, its key's class. */
typedef struct {
    const pmix_info_t *in;
    size_t pos;
    kc_t *kc;
} item_t;

static int item_cmp(const void *a, const void *b)
{
    const item_t *x = a, *y = b;
    int c = strcmp(x->in->key, y->in->key);
    /* equal keys: the later item first, so that it is the one kept */
    return c != 0 ? c : (x->pos < y->pos ? 1 : x->pos > y->pos ? -1 : 0);
}

/* The flat items of one rank's containers [first, end): every one checked,
 * nested containers walked, the last value of each key dispatched. */
static pmix_status_t emit_rank(sy_ji_t *ctx, emit_t *em, const sy_jl_view_t *v, size_t first,
                               size_t end, item_t **scratch, size_t *scratch_cap, kc_t *cache)
{
    pmix_rank_t rank = ctx->procs[first].rank;
    size_t n = 0;
    pmix_status_t rc;

    for (size_t c = first; c < end; c++) {
        const sy_ji_proc_t *p = &ctx->procs[c];
        for (size_t j = 0; j < p->n; j++) {
            const pmix_info_t *in = &p->items[j];
            if ('\0' == in->key[0]) {
                continue; /* zeroed entry */
            }
            if (memchr(in->key, '\0', sizeof(in->key)) == NULL) {
                return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "an info key is not terminated");
            }
            /* places beyond the cache share a scratch class, worked out
             * again when the item is dispatched */
            kc_t *kc = classify(n < KC_SLOTS ? &cache[n] : &cache[KC_SLOTS], in->key);
            if (kc->cls == KC_CONTAINER) {
                if ((rc = sy_ji_walk(ctx, in, 1, SY_REALM_PROC, rank, p->depth)) != PMIX_SUCCESS) {
                    return rc;
                }
                continue;
            }
            if ((rc = sy_ji_check_fixed(ctx, in->key, kc->fixed, &in->value)) != PMIX_SUCCESS) {
                return rc;
            }
            if (n == *scratch_cap) {
                size_t cap = *scratch_cap == 0 ? 32 : 2 * *scratch_cap;
                item_t *s = realloc(*scratch, cap * sizeof(*s));
                if (s == NULL) {
                    return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
                }
                *scratch = s;
                *scratch_cap = cap;
            }
            (*scratch)[n] = (item_t){in, n, n < KC_SLOTS ? kc : NULL};
            n++;
        }
    }
    item_t *items = *scratch;
    if (n <= 16) {
        for (size_t i = 0; i < n; i++) {
            bool later = false;
            for (size_t j = i + 1; j < n && !later; j++) {
                later = strcmp(items[i].in->key, items[j].in->key) == 0;
            }
            if (!later &&
                (rc = dispatch(ctx, em, v, rank, items[i].in, items[i].kc)) != PMIX_SUCCESS) {
                return rc;
            }
        }
        return PMIX_SUCCESS;
    }
    /* many keys: sorted, the last of each key kept */
    qsort(items, n, sizeof(*items), item_cmp);
    for (size_t i = 0; i < n; i++) {
        if ((i == 0 || strcmp(items[i - 1].in->key, items[i].in->key) != 0) &&
            (rc = dispatch(ctx, em, v, rank, items[i].in, items[i].kc)) != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_ji_procs_emit(sy_ji_t *ctx, const sy_jl_view_t *v, const char *strings,
                               size_t strings_size, sy_ji_columns_t *out)
{
    emit_t em = {0};
    item_t *scratch = NULL;
    kc_t *cache = calloc(KC_SLOTS + 1, sizeof(*cache));
    size_t scratch_cap = 0, nruns = 0;
    pmix_status_t rc = PMIX_SUCCESS;

    memset(out, 0, sizeof(*out));
    if (cache == NULL) {
        return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
    }
    if (strings_size > 0) {
        em.pool = malloc(strings_size);
        if (em.pool == NULL) {
            free(cache);
            return sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
        }
        memcpy(em.pool, strings, strings_size);
        em.size = em.pool_cap = strings_size;
    }
    for (size_t i = 0, end; i < ctx->nprocs && rc == PMIX_SUCCESS; i = end) {
        end = sy_ji_rank_end(ctx, i);
        rc = emit_rank(ctx, &em, v, i, end, &scratch, &scratch_cap, cache);
    }
    free(scratch);
    free(cache);
    free(em.set.slots);
    for (size_t i = 0; i < em.ncols; i++) {
        nruns += em.cols[i].nruns;
    }
    if (rc == PMIX_SUCCESS && em.ncols > 0) {
        out->cols = malloc(em.ncols * sizeof(*out->cols));
        out->runs = malloc((nruns + 1) * sizeof(*out->runs));
        if (out->cols == NULL || out->runs == NULL) {
            rc = sy_ji_fail(ctx, PMIX_ERR_NOMEM, "out of memory");
        }
    }
    for (size_t i = 0; rc == PMIX_SUCCESS && i < em.ncols; i++) {
        const col_t *c = &em.cols[i];
        out->cols[i] =
            (sy_jl_col_t){c->key_off, c->key_len, (uint32_t)out->nruns, (uint32_t)c->nruns};
        memcpy(out->runs + out->nruns, c->runs, c->nruns * sizeof(*c->runs));
        out->nruns += c->nruns;
    }
    out->ncols = rc == PMIX_SUCCESS ? em.ncols : 0;
    for (size_t i = 0; i < em.ncols; i++) {
        free(em.cols[i].runs);
    }
    free(em.cols);
    out->strings = em.pool;
    out->strings_size = em.size;
    if (rc != PMIX_SUCCESS) {
        sy_ji_columns_free(out);
    }
    return rc;
}

void sy_ji_columns_free(sy_ji_columns_t *c)
{
    free(c->cols);
    free(c->runs);
    free(c->strings);
    memset(c, 0, sizeof(*c));
}
