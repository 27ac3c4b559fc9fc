/* Reading and writing single values for the jobinfo compiler: hosts send
 * integers in whatever width they like (Slurm's appnum is an INT, ORTE's
 * node rank a UINT16), so reading accepts any integer type and writing
 * derived values uses the standard's types. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/datatype.h"
#include <pmix.h>

#include "common/jobinfo_internal.h"
#include "common/regex.h"

bool sy_ji_uint(const pmix_value_t *v, uint64_t *out)
{
    int64_t s;

    if (v == NULL) {
        return false;
    }
    switch (v->type) {
    case PMIX_INT: s = v->data.integer; break;
    case PMIX_INT8: s = v->data.int8; break;
    case PMIX_INT16: s = v->data.int16; break;
    case PMIX_INT32: s = v->data.int32; break;
    case PMIX_INT64: s = v->data.int64; break;
    case PMIX_PID: s = v->data.pid; break;
    case PMIX_UINT: *out = v->data.uint; return true;
    case PMIX_UINT8: *out = v->data.uint8; return true;
    case PMIX_UINT16: *out = v->data.uint16; return true;
    case PMIX_UINT32: *out = v->data.uint32; return true;
    case PMIX_UINT64: *out = v->data.uint64; return true;
    case PMIX_SIZE: *out = v->data.size; return true;
    case PMIX_PROC_RANK: *out = v->data.rank; return true;
    default: return false;
    }
    if (s < 0) {
        return false;
    }
    *out = (uint64_t)s;
    return true;
}

const char *sy_ji_text(const pmix_value_t *v)
{
    return sy_regex_value_text(v);
}

typedef enum { K_U32, K_U16, K_RANK, K_STR, K_MAP, K_BOOL } kclass_t;

/* Keys this compiler reads or derives, with the type the standard fixes
 * (Chap_API_Reserved_Keys.tex).  Other keys are stored untouched. */
static const struct {
    const char *key;
    kclass_t cls;
} fixed_types[] = {
    {PMIX_JOB_SIZE, K_U32},     {PMIX_UNIV_SIZE, K_U32},        {PMIX_MAX_PROCS, K_U32},
    {PMIX_NUM_NODES, K_U32},    {PMIX_JOB_NUM_APPS, K_U32},     {PMIX_LOCAL_SIZE, K_U32},
    {PMIX_NODE_SIZE, K_U32},    {PMIX_APP_SIZE, K_U32},         {PMIX_NODEID, K_U32},
    {PMIX_SESSION_ID, K_U32},   {PMIX_APPNUM, K_U32},           {PMIX_RANK, K_RANK},
    {PMIX_GLOBAL_RANK, K_RANK}, {PMIX_APP_RANK, K_RANK},        {PMIX_LOCALLDR, K_RANK},
    {PMIX_APPLDR, K_RANK},      {PMIX_NPROC_OFFSET, K_RANK},    {PMIX_LOCAL_RANK, K_U16},
    {PMIX_NODE_RANK, K_U16},    {PMIX_HOSTNAME, K_STR},         {PMIX_HOSTNAME_ALIASES, K_STR},
    {PMIX_LOCAL_PEERS, K_STR},  {PMIX_NODE_LIST, K_STR},        {PMIX_NSPACE, K_STR},
    {PMIX_NODE_MAP, K_MAP},     {PMIX_PROC_MAP, K_MAP},         {PMIX_NODE_MAP_RAW, K_MAP},
    {PMIX_PROC_MAP_RAW, K_MAP}, {PMIX_REGISTER_NODATA, K_BOOL},
};

static const char *class_name(kclass_t c)
{
    switch (c) {
    case K_U32: return "an unsigned 32-bit integer";
    case K_U16: return "an unsigned 16-bit integer";
    case K_RANK: return "a rank";
    case K_STR: return "a string";
    case K_MAP: return "a string or regex";
    case K_BOOL: return "a bool";
    }
    return "?";
}

/* The table by key hash: a registration passes millions of keys (a
 * PMIX_PROC_DATA per rank), each checked here. */
#define FIXED_SLOTS 128
static uint8_t fixed_slot[FIXED_SLOTS]; /* index + 1, 0 empty */
static pthread_once_t fixed_once = PTHREAD_ONCE_INIT;

static uint32_t key_hash(const char *key)
{
    uint32_t h = 2166136261u;
    for (; *key != '\0'; key++) {
        h = (h ^ (uint8_t)*key) * 16777619u;
    }
    return h;
}

static void fixed_index(void)
{
    _Static_assert(sizeof(fixed_types) / sizeof(fixed_types[0]) < FIXED_SLOTS / 2, "room");
    for (size_t i = 0; i < sizeof(fixed_types) / sizeof(fixed_types[0]); i++) {
        uint32_t s = key_hash(fixed_types[i].key) % FIXED_SLOTS;
        while (fixed_slot[s] != 0) {
            s = (s + 1) % FIXED_SLOTS;
        }
        fixed_slot[s] = (uint8_t)(i + 1);
    }
}

static int fixed_of(const char *key)
{
    pthread_once(&fixed_once, fixed_index);
    for (uint32_t s = key_hash(key) % FIXED_SLOTS; fixed_slot[s] != 0; s = (s + 1) % FIXED_SLOTS) {
        if (strcmp(fixed_types[fixed_slot[s] - 1].key, key) == 0) {
            return fixed_slot[s] - 1;
        }
    }
    return -1;
}

int sy_ji_fixed_type(const char *key)
{
    return fixed_of(key);
}

pmix_status_t sy_ji_check_type(sy_ji_t *ctx, const char *key, const pmix_value_t *v)
{
    return sy_ji_check_fixed(ctx, key, fixed_of(key), v);
}

pmix_status_t sy_ji_check_fixed(sy_ji_t *ctx, const char *key, int i, const pmix_value_t *v)
{
    uint64_t u;
    bool ok;

    if (i >= 0) {
        kclass_t c = fixed_types[i].cls;
        switch (c) {
        case K_U32:
        case K_RANK: ok = sy_ji_uint(v, &u) && u <= UINT32_MAX; break;
        case K_U16: ok = sy_ji_uint(v, &u) && u <= UINT16_MAX; break;
        case K_STR: ok = v->type == PMIX_STRING; break;
        case K_MAP: ok = v->type == PMIX_STRING || v->type == PMIX_REGEX; break;
        case K_BOOL: ok = v->type == PMIX_BOOL || v->type == PMIX_UNDEF; break;
        default: ok = false;
        }
        if (ok) {
            return PMIX_SUCCESS;
        }
        if (K_U32 == c || K_RANK == c || K_U16 == c) {
            if (sy_ji_uint(v, &u)) {
                return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s must be %s (%llu is too large)", key,
                                  class_name(c), (unsigned long long)u);
            }
            if (v->type == PMIX_INT || v->type == PMIX_INT8 || v->type == PMIX_INT16 ||
                v->type == PMIX_INT32 || v->type == PMIX_INT64 || v->type == PMIX_PID) {
                return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s must be %s (got a negative %s)", key,
                                  class_name(c), PMIx_Data_type_string(v->type));
            }
        }
        return sy_ji_fail(ctx, PMIX_ERR_BAD_PARAM, "%s must be %s (got %s)", key, class_name(c),
                          PMIx_Data_type_string(v->type));
    }
    return PMIX_SUCCESS;
}

bool sy_ji_peek_uint(const sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                     uint64_t *out)
{
    return sy_ji_uint(sy_jseg_peek(ctx->b, realm, id, key), out);
}

const char *sy_ji_peek_text(const sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                            bool *present)
{
    const pmix_value_t *v = sy_jseg_peek(ctx->b, realm, id, key);
    if (present != NULL) {
        *present = v != NULL;
    }
    return sy_ji_text(v);
}

pmix_status_t sy_ji_put_host(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                             const pmix_value_t *v)
{
    return ctx->borrow ? sy_jseg_put_borrowed(ctx->b, realm, id, key, v)
                       : sy_jseg_put(ctx->b, realm, id, key, v);
}

pmix_status_t sy_ji_put_default(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                const pmix_value_t *v)
{
    if (sy_jseg_peek(ctx->b, realm, id, key) != NULL) {
        return PMIX_SUCCESS;
    }
    pmix_status_t rc = sy_jseg_put(ctx->b, realm, id, key, v);
    if (rc != PMIX_SUCCESS) {
        return sy_ji_fail(ctx, rc, "cannot store derived %s", key);
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_ji_default_u32(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                uint32_t u)
{
    pmix_value_t v = {.type = PMIX_UINT32, .data.uint32 = u};
    return sy_ji_put_default(ctx, realm, id, key, &v);
}

pmix_status_t sy_ji_default_rank(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                 pmix_rank_t r)
{
    pmix_value_t v = {.type = PMIX_PROC_RANK, .data.rank = r};
    return sy_ji_put_default(ctx, realm, id, key, &v);
}

pmix_status_t sy_ji_default_str(sy_ji_t *ctx, sy_realm_t realm, uint32_t id, const char *key,
                                const char *s)
{
    pmix_value_t v = {.type = PMIX_STRING, .data.string = (char *)s};
    return sy_ji_put_default(ctx, realm, id, key, &v);
}

static int rank_cmp(const void *a, const void *b)
{
    pmix_rank_t x = *(const pmix_rank_t *)a, y = *(const pmix_rank_t *)b;
    return x < y ? -1 : x > y;
}

static bool parse_rank(const char *s, char **end, pmix_rank_t *r)
{
    if (*s < '0' || *s > '9') {
        return false;
    }
    errno = 0;
    unsigned long long u = strtoull(s, end, 10);
    if (errno != 0 || u >= PMIX_RANK_VALID) {
        return false;
    }
    *r = (pmix_rank_t)u;
    return true;
}

pmix_status_t sy_ji_parse_ranks(const char *s, pmix_rank_t **ranks, size_t *n)
{
    pmix_rank_t *out = NULL, a, z;
    size_t len = 0, cap = 0;
    char *end;

    *ranks = NULL;
    *n = 0;
    if (s == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    while ('\0' != *s) {
        if (!parse_rank(s, &end, &a)) {
            goto bad;
        }
        z = a;
        if ('-' == *end && !parse_rank(end + 1, &end, &z)) {
            goto bad;
        }
        if (z < a || ('\0' != *end && ',' != *end) || z - a >= SY_JI_MAX_RANKS - len) {
            goto bad;
        }
        for (uint64_t r = a; r <= z; r++) {
            if (len == cap) {
                cap = cap == 0 ? 16 : 2 * cap;
                pmix_rank_t *p = realloc(out, cap * sizeof(*out));
                if (p == NULL) {
                    free(out);
                    return PMIX_ERR_NOMEM;
                }
                out = p;
            }
            out[len++] = (pmix_rank_t)r;
        }
        s = ',' == *end ? end + 1 : end;
    }
    if (len > 0) {
        qsort(out, len, sizeof(*out), rank_cmp);
        size_t u = 1;
        for (size_t i = 1; i < len; i++) {
            if (out[i] != out[u - 1]) {
                out[u++] = out[i];
            }
        }
        len = u;
    }
    *ranks = out;
    *n = len;
    return PMIX_SUCCESS;
bad:
    free(out);
    return PMIX_ERR_BAD_PARAM;
}

static int range_cmp(const void *a, const void *b)
{
    const sy_jl_range_t *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

void sy_ji_normalize_ranges(sy_jl_range_t *r, size_t *n, size_t *nranks)
{
    size_t k = 0, total = 0;
    bool sorted = true;
    for (size_t i = 1; i < *n && sorted; i++) {
        sorted = r[i - 1].first <= r[i].first;
    }
    if (!sorted) {
        qsort(r, *n, sizeof(*r), range_cmp);
    }
    for (size_t i = 0; i < *n; i++) {
        if (r[i].count == 0) {
            continue;
        }
        uint64_t end = (uint64_t)r[i].first + r[i].count;
        if (k > 0 && r[i].first <= (uint64_t)r[k - 1].first + r[k - 1].count) {
            uint64_t prev_end = (uint64_t)r[k - 1].first + r[k - 1].count;
            if (end > prev_end) {
                r[k - 1].count = (uint32_t)(end - r[k - 1].first);
            }
        } else {
            r[k++] = r[i];
        }
    }
    for (size_t i = 0; i < k; i++) {
        total += r[i].count;
    }
    *n = k;
    *nranks = total;
}

static size_t short_len(const char *s)
{
    const char *dot = strchr(s, '.');
    return dot == NULL ? strlen(s) : (size_t)(dot - s);
}

bool sy_ji_same_host(const char *a, const char *b)
{
    if (a == NULL || b == NULL) {
        return false;
    }
    if (strcmp(a, b) == 0) {
        return true;
    }
    size_t la = short_len(a), lb = short_len(b);
    /* a dotted IPv4 address is not a domain name */
    return la > 0 && la == lb && strncmp(a, b, la) == 0 && (a[0] < '0' || a[0] > '9');
}

bool sy_ji_in_aliases(const char *aliases, const char *name)
{
    size_t n;

    if (aliases == NULL || name == NULL || '\0' == *name) {
        return false;
    }
    n = strlen(name);
    for (const char *p = aliases; p != NULL; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || '\0' == p[n])) {
            return true;
        }
    }
    return false;
}
