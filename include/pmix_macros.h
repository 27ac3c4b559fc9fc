/*
 * Switchyard -- the convenience macros of the PMIx Standard v5.0.
 *
 * Names, arguments and results are those programs were written against
 * with OpenPMIx 4.2.2 (where the Standard lists different arguments, as for
 * PMIX_COORD_CREATE, PMIX_REGATTR_LOAD and PMIX_VALUE_GET_NUMBER, OpenPMIx's
 * form is the one in use).  Work is done in static inline helpers named
 * pmix_hdr_*, so that every argument is evaluated once and the file stays
 * valid C and C++.
 *
 * Memory crosses the library boundary in both directions, so everything
 * here allocates with libc calloc/malloc/realloc/strdup and releases with
 * free(); the payload of a pmix_value_t is only ever released through the
 * exported PMIx_Value_destruct, so that the library decides what it owns.
 *
 * Included at the end of <pmix_common.h>, after every type and the data
 * functions called below are declared; do not include it directly.
 */
#ifndef PMIX_MACROS_H
#define PMIX_MACROS_H

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PMIX_SETENV must recognise the process environment itself. */
extern char **environ;

/* ======================================================================== */
/* Allocation                                                               */
/* ======================================================================== */

/* Every *_CREATE gives NULL for zero elements and zeroed memory otherwise. */
static inline void *pmix_hdr_alloc(size_t n, size_t size)
{
    return (0 == n) ? NULL : calloc(n, size);
}

/* ======================================================================== */
/* Keys, namespaces, ranks, process identifiers                             */
/* ======================================================================== */

/* Keys and namespaces are fixed arrays that may arrive without a
 * terminator, so every read is bounded by the array's capacity. */
static inline size_t pmix_hdr_strnlen(const char *s, size_t max)
{
    size_t n = 0;

    if (NULL != s) {
        while (n < max && '\0' != s[n]) {
            ++n;
        }
    }
    return n;
}

/* Fill dst[0..max] with at most max chars of src and zeros; NULL src
 * leaves it empty.  Overlapping src and dst are allowed. */
static inline void pmix_hdr_load_name(char *dst, const char *src, size_t max)
{
    size_t len = pmix_hdr_strnlen(src, max);

    if (0 < len && dst != src) {
        memmove(dst, src, len);
    }
    memset(dst + len, 0, max + 1 - len);
}

static inline bool pmix_hdr_check_key(const char *key, const char *str)
{
    return NULL != key && NULL != str && 0 == strncmp(key, str, PMIX_MAX_KEYLEN);
}

static inline bool pmix_hdr_reserved_key(const char *key)
{
    return NULL != key && 0 == strncmp(key, "pmix", 4);
}

static inline bool pmix_hdr_nspace_invalid(const char *nspace)
{
    return NULL == nspace || '\0' == nspace[0];
}

/* An empty namespace is a wildcard, as in OpenPMIx. */
static inline bool pmix_hdr_check_nspace(const char *a, const char *b)
{
    return pmix_hdr_nspace_invalid(a) || pmix_hdr_nspace_invalid(b) ||
           0 == strncmp(a, b, PMIX_MAX_NSLEN);
}

static inline bool pmix_hdr_check_rank(pmix_rank_t a, pmix_rank_t b)
{
    return a == b || PMIX_RANK_WILDCARD == a || PMIX_RANK_WILDCARD == b;
}

static inline bool pmix_hdr_rank_is_valid(pmix_rank_t r)
{
    return r < PMIX_RANK_VALID;
}

/* "cluster:nspace"; left empty when the two do not fit together. */
static inline void pmix_hdr_mc_nspace_construct(char *target, const char *cluster,
                                                const char *nspace)
{
    size_t lc = pmix_hdr_strnlen(cluster, PMIX_MAX_NSLEN);
    size_t ln = pmix_hdr_strnlen(nspace, PMIX_MAX_NSLEN);

    memset(target, 0, PMIX_MAX_NSLEN + 1);
    if (lc + ln < PMIX_MAX_NSLEN) {
        if (0 < lc) {
            memcpy(target, cluster, lc);
        }
        target[lc] = ':';
        if (0 < ln) {
            memcpy(target + lc + 1, nspace, ln);
        }
    }
}

/* Without a ':' the whole name is taken as the cluster, as OpenPMIx does. */
static inline void pmix_hdr_mc_nspace_parse(const char *target, char *cluster, char *nspace)
{
    size_t i = 0, j = 0;

    while (i < PMIX_MAX_NSLEN && '\0' != target[i] && ':' != target[i]) {
        cluster[i] = target[i];
        ++i;
    }
    cluster[i] = '\0';
    if (i < PMIX_MAX_NSLEN && ':' == target[i]) {
        for (++i; i < PMIX_MAX_NSLEN && '\0' != target[i]; ++i) {
            nspace[j++] = target[i];
        }
    }
    nspace[j] = '\0';
}

/* The key/nspace/procid macros take any structure with key, nspace and
 * rank members (OpenPMIx applies them to its internal types too). */
#define PMIX_CHECK_KEY(a, b) pmix_hdr_check_key((a)->key, (b))
#define PMIX_CHECK_RESERVED_KEY(a) pmix_hdr_reserved_key(a)
#define PMIX_LOAD_KEY(a, b)                                                                        \
    do {                                                                                           \
        pmix_hdr_load_name((char *)(a), (const char *)(b), PMIX_MAX_KEYLEN);                       \
    } while (0)

#define PMIX_CHECK_NSPACE(a, b) pmix_hdr_check_nspace((a), (b))
#define PMIX_NSPACE_INVALID(a) pmix_hdr_nspace_invalid(a)
#define PMIX_LOAD_NSPACE(a, b)                                                                     \
    do {                                                                                           \
        pmix_hdr_load_name((char *)(a), (b), PMIX_MAX_NSLEN);                                      \
    } while (0)

#define PMIX_CHECK_RANK(a, b) pmix_hdr_check_rank((a), (b))
#define PMIX_RANK_IS_VALID(r) pmix_hdr_rank_is_valid(r)

#define PMIX_CHECK_PROCID(a, b)                                                                    \
    (pmix_hdr_check_nspace((a)->nspace, (b)->nspace) && pmix_hdr_check_rank((a)->rank, (b)->rank))
#define PMIX_PROCID_INVALID(a)                                                                     \
    (pmix_hdr_nspace_invalid((a)->nspace) || PMIX_RANK_INVALID == (a)->rank)
#define PMIX_LOAD_PROCID(a, b, c)                                                                  \
    do {                                                                                           \
        PMIX_LOAD_NSPACE((a)->nspace, (b));                                                        \
        (a)->rank = (c);                                                                           \
    } while (0)
#define PMIX_XFER_PROCID(a, b) ((void)memcpy((a), (b), sizeof(pmix_proc_t)))
#define PMIX_PROCID_XFER(a, b) PMIX_XFER_PROCID(a, b)

#define PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, c, n)                                                \
    do {                                                                                           \
        pmix_hdr_mc_nspace_construct((t), (c), (n));                                               \
    } while (0)
#define PMIX_MULTICLUSTER_NSPACE_PARSE(t, c, n)                                                    \
    do {                                                                                           \
        pmix_hdr_mc_nspace_parse((t), (c), (n));                                                   \
    } while (0)

/* ======================================================================== */
/* Event codes                                                              */
/* ======================================================================== */

static inline bool pmix_hdr_system_event(pmix_status_t code)
{
    return code <= PMIX_EVENT_SYS_BASE && PMIX_EVENT_SYS_OTHER <= code;
}

#define PMIX_SYSTEM_EVENT(a) pmix_hdr_system_event(a)

/* ======================================================================== */
/* argv-style arrays and environments                                       */
/* ======================================================================== */

/* NULL-terminated arrays grown with realloc, one strdup'd string per slot,
 * so that either side of the library boundary can free them. */
static inline int pmix_hdr_argv_count(char **argv)
{
    int n = 0;

    if (NULL != argv) {
        while (NULL != argv[n]) {
            ++n;
        }
    }
    return n;
}

static inline void pmix_hdr_argv_free(char **argv)
{
    char **p;

    if (NULL == argv) {
        return;
    }
    for (p = argv; NULL != *p; ++p) {
        free(*p);
    }
    free(argv);
}

/* Put an already-allocated string into *argv, at the end or the front.
 * On failure the caller still owns str. */
static inline pmix_status_t pmix_hdr_argv_adopt(char ***argv, char *str, bool at_front)
{
    size_t argc = (size_t)pmix_hdr_argv_count(*argv);
    char **grown = (char **)realloc(*argv, (argc + 2) * sizeof(char *));

    if (NULL == grown) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (at_front) {
        memmove(grown + 1, grown, argc * sizeof(char *));
        grown[0] = str;
    } else {
        grown[argc] = str;
    }
    grown[argc + 1] = NULL;
    *argv = grown;
    return PMIX_SUCCESS;
}

static inline pmix_status_t pmix_hdr_argv_insert(char ***argv, const char *arg, bool at_front)
{
    char *copy;

    if (NULL == argv || NULL == arg) {
        return PMIX_ERR_BAD_PARAM;
    }
    copy = strdup(arg);
    if (NULL == copy) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (PMIX_SUCCESS != pmix_hdr_argv_adopt(argv, copy, at_front)) {
        free(copy);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

static inline pmix_status_t pmix_hdr_argv_append(char ***argv, const char *arg)
{
    return pmix_hdr_argv_insert(argv, arg, false);
}

static inline pmix_status_t pmix_hdr_argv_prepend(char ***argv, const char *arg)
{
    return pmix_hdr_argv_insert(argv, arg, true);
}

static inline pmix_status_t pmix_hdr_argv_append_unique(char ***argv, const char *arg)
{
    char **p;

    if (NULL == argv || NULL == arg) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (p = *argv; NULL != p && NULL != *p; ++p) {
        if (0 == strcmp(*p, arg)) {
            return PMIX_SUCCESS;
        }
    }
    return pmix_hdr_argv_insert(argv, arg, false);
}

/* Empty fields are dropped; NULL or "" gives NULL. */
static inline char **pmix_hdr_argv_split(const char *src, int delimiter)
{
    char **argv = NULL;

    while (NULL != src && '\0' != *src) {
        const char *end = src;

        while ('\0' != *end && delimiter != *end) {
            ++end;
        }
        if (end != src) {
            size_t len = (size_t)(end - src);
            char *field = (char *)malloc(len + 1);

            if (NULL == field) {
                pmix_hdr_argv_free(argv);
                return NULL;
            }
            memcpy(field, src, len);
            field[len] = '\0';
            if (PMIX_SUCCESS != pmix_hdr_argv_adopt(&argv, field, false)) {
                free(field);
                pmix_hdr_argv_free(argv);
                return NULL;
            }
        }
        src = ('\0' == *end) ? end : end + 1;
    }
    return argv;
}

/* Always a new string, "" for an empty or NULL array. */
static inline char *pmix_hdr_argv_join(char **argv, int delimiter)
{
    size_t total = 0, pos = 0;
    char **p;
    char *str;

    if (NULL == argv || NULL == argv[0]) {
        return strdup("");
    }
    for (p = argv; NULL != *p; ++p) {
        total += strlen(*p) + 1;
    }
    str = (char *)malloc(total);
    if (NULL == str) {
        return NULL;
    }
    for (p = argv; NULL != *p; ++p) {
        size_t len = strlen(*p);

        memcpy(str + pos, *p, len);
        pos += len;
        str[pos++] = (char)delimiter;
    }
    str[total - 1] = '\0';
    return str;
}

/* NULL stays NULL; an empty array is copied as an empty array. */
static inline char **pmix_hdr_argv_copy(char **argv)
{
    size_t n, i;
    char **dup;

    if (NULL == argv) {
        return NULL;
    }
    n = (size_t)pmix_hdr_argv_count(argv);
    dup = (char **)calloc(n + 1, sizeof(char *));
    if (NULL == dup) {
        return NULL;
    }
    for (i = 0; i < n; ++i) {
        dup[i] = strdup(argv[i]);
        if (NULL == dup[i]) {
            pmix_hdr_argv_free(dup);
            return NULL;
        }
    }
    return dup;
}

/* Set name=value in an env-style array (NULL value gives "name=").  The
 * real process environment is changed through setenv/unsetenv instead,
 * since its storage is not ours to realloc. */
static inline pmix_status_t pmix_hdr_setenv(const char *name, const char *value, bool overwrite,
                                            char ***env)
{
    size_t nlen, vlen;
    char *entry;
    char **p;

    if (NULL == env || NULL == name) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (*env == environ) {
        if (NULL == value) {
            unsetenv(name);
        } else {
            setenv(name, value, overwrite ? 1 : 0);
        }
        return PMIX_SUCCESS;
    }
    nlen = strlen(name);
    vlen = (NULL == value) ? 0 : strlen(value);
    entry = (char *)malloc(nlen + vlen + 2);
    if (NULL == entry) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    memcpy(entry, name, nlen);
    entry[nlen] = '=';
    if (0 < vlen) {
        memcpy(entry + nlen + 1, value, vlen);
    }
    entry[nlen + 1 + vlen] = '\0';

    for (p = *env; NULL != p && NULL != *p; ++p) {
        if (0 == strncmp(*p, entry, nlen + 1)) {
            if (!overwrite) {
                free(entry);
                return PMIX_ERR_EXISTS;
            }
            free(*p);
            *p = entry;
            return PMIX_SUCCESS;
        }
    }
    if (PMIX_SUCCESS != pmix_hdr_argv_adopt(env, entry, false)) {
        free(entry);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

/* a is the array itself for APPEND/PREPEND but its address for
 * APPEND_UNIQUE: that asymmetry is OpenPMIx's, and programs rely on it. */
#define PMIX_ARGV_COUNT(r, a) ((r) = pmix_hdr_argv_count(a))
#define PMIX_ARGV_APPEND(r, a, b) ((r) = pmix_hdr_argv_append(&(a), (b)))
#define PMIX_ARGV_PREPEND(r, a, b) ((r) = pmix_hdr_argv_prepend(&(a), (b)))
#define PMIX_ARGV_APPEND_UNIQUE(r, a, b) ((r) = pmix_hdr_argv_append_unique((a), (b)))
#define PMIX_ARGV_FREE(a) pmix_hdr_argv_free(a)
#define PMIX_ARGV_SPLIT(a, b, c) ((a) = pmix_hdr_argv_split((b), (c)))
#define PMIX_ARGV_JOIN(a, b, c) ((a) = pmix_hdr_argv_join((b), (c)))
#define PMIX_ARGV_COPY(a, b) ((a) = pmix_hdr_argv_copy(b))
/* PMIX_SETENV(status, name, value, &env) always overwrites. */
#define PMIX_SETENV(r, a, b, c) ((r) = pmix_hdr_setenv((a), (b), true, (c)))

/* ======================================================================== */
/* pmix_proc_t                                                              */
/* ======================================================================== */

/* A proc holds no pointers: only the array itself is ever freed. */
#define PMIX_PROC_STATIC_INIT                                                                      \
    {                                                                                              \
        .nspace = {0}, .rank = PMIX_RANK_UNDEF                                                     \
    }

#define PMIX_PROC_CONSTRUCT(m)                                                                     \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_proc_t));                                                       \
    } while (0)
#define PMIX_PROC_DESTRUCT(m)                                                                      \
    do {                                                                                           \
    } while (0)
#define PMIX_PROC_CREATE(m, n)                                                                     \
    do {                                                                                           \
        (m) = (pmix_proc_t *)pmix_hdr_alloc((n), sizeof(pmix_proc_t));                             \
    } while (0)
#define PMIX_PROC_RELEASE(m)                                                                       \
    do {                                                                                           \
        free(m);                                                                                   \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_PROC_FREE(m, n)                                                                       \
    do {                                                                                           \
        free(m);                                                                                   \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_PROC_LOAD(m, n, r)                                                                    \
    do {                                                                                           \
        PMIX_PROC_CONSTRUCT(m);                                                                    \
        PMIX_LOAD_NSPACE((m)->nspace, (n));                                                        \
        (m)->rank = (r);                                                                           \
    } while (0)

/* ======================================================================== */
/* pmix_proc_info_t                                                         */
/* ======================================================================== */

#define PMIX_PROC_INFO_STATIC_INIT                                                                 \
    {                                                                                              \
        .proc = PMIX_PROC_STATIC_INIT, .hostname = NULL, .executable_name = NULL, .pid = 0,        \
        .exit_code = 0, .state = PMIX_PROC_STATE_UNDEF                                             \
    }

static inline void pmix_hdr_proc_info_destruct(pmix_proc_info_t *m)
{
    free(m->hostname);
    m->hostname = NULL;
    free(m->executable_name);
    m->executable_name = NULL;
}

static inline void pmix_hdr_proc_info_free(pmix_proc_info_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_proc_info_destruct(&m[i]);
    }
    free(m);
}

/* As in OpenPMIx, RELEASE and FREE leave the caller's pointer alone. */
#define PMIX_PROC_INFO_CONSTRUCT(m)                                                                \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_proc_info_t));                                                  \
    } while (0)
#define PMIX_PROC_INFO_DESTRUCT(m)                                                                 \
    do {                                                                                           \
        pmix_hdr_proc_info_destruct(m);                                                            \
    } while (0)
#define PMIX_PROC_INFO_CREATE(m, n)                                                                \
    do {                                                                                           \
        (m) = (pmix_proc_info_t *)pmix_hdr_alloc((n), sizeof(pmix_proc_info_t));                   \
    } while (0)
#define PMIX_PROC_INFO_RELEASE(m)                                                                  \
    do {                                                                                           \
        pmix_hdr_proc_info_free((m), 1);                                                           \
    } while (0)
#define PMIX_PROC_INFO_FREE(m, n)                                                                  \
    do {                                                                                           \
        pmix_hdr_proc_info_free((m), (n));                                                         \
    } while (0)

/* ======================================================================== */
/* pmix_value_t                                                             */
/* ======================================================================== */

/* Payloads are released by the library (PMIx_Value_destruct), which knows
 * every type, including the ones it allocated itself. */
#define PMIX_VALUE_STATIC_INIT                                                                     \
    {                                                                                              \
        .type = PMIX_UNDEF, .data = {.ptr = NULL }                                                 \
    }

static inline void pmix_hdr_value_free(pmix_value_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        PMIx_Value_destruct(&m[i]);
    }
    free(m);
}

#define PMIX_VALUE_CONSTRUCT(m)                                                                    \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_value_t));                                                      \
        (m)->type = PMIX_UNDEF;                                                                    \
    } while (0)
#define PMIX_VALUE_DESTRUCT(m) PMIx_Value_destruct(m)
#define PMIX_VALUE_CREATE(m, n)                                                                    \
    do {                                                                                           \
        (m) = (pmix_value_t *)pmix_hdr_alloc((n), sizeof(pmix_value_t));                           \
    } while (0)
#define PMIX_VALUE_RELEASE(m)                                                                      \
    do {                                                                                           \
        pmix_hdr_value_free((m), 1);                                                               \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_VALUE_FREE(m, n)                                                                      \
    do {                                                                                           \
        pmix_hdr_value_free((m), (n));                                                             \
        (m) = NULL;                                                                                \
    } while (0)

#define PMIX_VALUE_LOAD(v, d, t) PMIx_Value_load((v), (d), (t))
#define PMIX_VALUE_UNLOAD(r, k, d, s) ((r) = PMIx_Value_unload((k), (d), (s)))
#define PMIX_VALUE_XFER_DIRECT(r, v, s) ((r) = PMIx_Value_xfer((v), (s)))
/* A NULL destination is allocated first. */
#define PMIX_VALUE_XFER(r, v, s)                                                                   \
    do {                                                                                           \
        if (NULL == (v)) {                                                                         \
            (v) = (pmix_value_t *)calloc(1, sizeof(pmix_value_t));                                 \
        }                                                                                          \
        (r) = (NULL == (v)) ? PMIX_ERR_NOMEM : PMIx_Value_xfer((v), (s));                          \
    } while (0)

/* t is the C type of variable n (a cast), as OpenPMIx has it; any of the
 * numeric value types is converted, anything else is PMIX_ERR_BAD_PARAM. */
#define PMIX_VALUE_GET_NUMBER(s, m, n, t)                                                          \
    do {                                                                                           \
        const pmix_value_t *pmix_hdr_num_ = (m);                                                   \
        (s) = PMIX_SUCCESS;                                                                        \
        switch (pmix_hdr_num_->type) {                                                             \
        case PMIX_SIZE: (n) = (t)(pmix_hdr_num_->data.size); break;                                \
        case PMIX_INT: (n) = (t)(pmix_hdr_num_->data.integer); break;                              \
        case PMIX_INT8: (n) = (t)(pmix_hdr_num_->data.int8); break;                                \
        case PMIX_INT16: (n) = (t)(pmix_hdr_num_->data.int16); break;                              \
        case PMIX_INT32: (n) = (t)(pmix_hdr_num_->data.int32); break;                              \
        case PMIX_INT64: (n) = (t)(pmix_hdr_num_->data.int64); break;                              \
        case PMIX_UINT: (n) = (t)(pmix_hdr_num_->data.uint); break;                                \
        case PMIX_UINT8: (n) = (t)(pmix_hdr_num_->data.uint8); break;                              \
        case PMIX_UINT16: (n) = (t)(pmix_hdr_num_->data.uint16); break;                            \
        case PMIX_UINT32: (n) = (t)(pmix_hdr_num_->data.uint32); break;                            \
        case PMIX_UINT64: (n) = (t)(pmix_hdr_num_->data.uint64); break;                            \
        case PMIX_FLOAT: (n) = (t)(pmix_hdr_num_->data.fval); break;                               \
        case PMIX_DOUBLE: (n) = (t)(pmix_hdr_num_->data.dval); break;                              \
        case PMIX_PID: (n) = (t)(pmix_hdr_num_->data.pid); break;                                  \
        case PMIX_PROC_RANK: (n) = (t)(pmix_hdr_num_->data.rank); break;                           \
        default: (s) = PMIX_ERR_BAD_PARAM; break;                                                  \
        }                                                                                          \
    } while (0)

/* How a value reads as a boolean.  No value at all (a bare flag) means
 * true; strings are read the way users write them in environments. */
static inline pmix_boolean_t pmix_hdr_check_true(const pmix_value_t *value)
{
    const char *p;

    if (NULL == value) {
        return PMIX_NON_BOOL;
    }
    if (PMIX_UNDEF == value->type) {
        return PMIX_BOOL_TRUE;
    }
    if (PMIX_BOOL == value->type) {
        return value->data.flag ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
    }
    if (PMIX_STRING != value->type) {
        return PMIX_NON_BOOL;
    }
    p = value->data.string;
    if (NULL == p) {
        return PMIX_BOOL_TRUE;
    }
    while (isspace((unsigned char)*p)) {
        ++p;
    }
    if ('\0' == *p) {
        return PMIX_BOOL_TRUE;
    }
    if (isdigit((unsigned char)*p)) {
        /* a number: true unless its leading digits are all zero */
        while ('0' == *p) {
            ++p;
        }
        return isdigit((unsigned char)*p) ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
    }
    if (0 == strncasecmp(p, "yes", 3) || 0 == strncasecmp(p, "true", 4)) {
        return PMIX_BOOL_TRUE;
    }
    if (0 == strncasecmp(p, "no", 2) || 0 == strncasecmp(p, "false", 5)) {
        return PMIX_BOOL_FALSE;
    }
    return PMIX_NON_BOOL;
}

#define PMIX_CHECK_TRUE(a) (PMIX_BOOL_TRUE == pmix_hdr_check_true(a))
#define PMIX_CHECK_BOOL(a) (PMIX_NON_BOOL != pmix_hdr_check_true(a))

/* ======================================================================== */
/* pmix_info_t                                                              */
/* ======================================================================== */

/* Arrays made here end with a PMIX_INFO_ARRAY_END marker, and a persistent
 * info does not own its value, so destruct must leave that value alone. */
#define PMIX_INFO_STATIC_INIT                                                                      \
    {                                                                                              \
        .key = {0}, .flags = 0, .value = PMIX_VALUE_STATIC_INIT                                    \
    }

static inline pmix_info_t *pmix_hdr_info_create(size_t n)
{
    pmix_info_t *m = (pmix_info_t *)pmix_hdr_alloc(n, sizeof(pmix_info_t));

    if (NULL != m) {
        m[n - 1].flags = PMIX_INFO_ARRAY_END;
    }
    return m;
}

static inline void pmix_hdr_info_destruct(pmix_info_t *m)
{
    if (!(m->flags & PMIX_INFO_PERSISTENT)) {
        PMIx_Value_destruct(&m->value);
    }
}

static inline void pmix_hdr_info_free(pmix_info_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_info_destruct(&m[i]);
    }
    free(m);
}

#define PMIX_INFO_CONSTRUCT(m)                                                                     \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_info_t));                                                       \
        (m)->value.type = PMIX_UNDEF;                                                              \
    } while (0)
#define PMIX_INFO_DESTRUCT(m)                                                                      \
    do {                                                                                           \
        pmix_hdr_info_destruct(m);                                                                 \
    } while (0)
#define PMIX_INFO_CREATE(m, n)                                                                     \
    do {                                                                                           \
        (m) = pmix_hdr_info_create(n);                                                             \
    } while (0)
#define PMIX_INFO_FREE(m, n)                                                                       \
    do {                                                                                           \
        pmix_hdr_info_free((m), (n));                                                              \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_INFO_LOAD(i, k, d, t) ((void)PMIx_Info_load((i), (k), (d), (t)))
#define PMIX_INFO_XFER(d, s) ((void)PMIx_Info_xfer((d), (s)))
#define PMIX_INFO_TRUE(m) (PMIX_BOOL_TRUE == pmix_hdr_check_true(&(m)->value))

/* Directive bits.  The tests yield the masked bit, not 0/1, as OpenPMIx's. */
#define PMIX_INFO_REQUIRED(m) ((m)->flags |= PMIX_INFO_REQD)
#define PMIX_INFO_OPTIONAL(m) ((m)->flags &= ~(pmix_info_directives_t)PMIX_INFO_REQD)
#define PMIX_INFO_IS_REQUIRED(m) ((m)->flags & PMIX_INFO_REQD)
#define PMIX_INFO_IS_OPTIONAL(m) (!((m)->flags & PMIX_INFO_REQD))
#define PMIX_INFO_PROCESSED(m) ((m)->flags |= PMIX_INFO_REQD_PROCESSED)
#define PMIX_INFO_WAS_PROCESSED(m) ((m)->flags & PMIX_INFO_REQD_PROCESSED)
#define PMIX_INFO_SET_END(m) ((m)->flags |= PMIX_INFO_ARRAY_END)
#define PMIX_INFO_IS_END(m) ((m)->flags & PMIX_INFO_ARRAY_END)
#define PMIX_INFO_SET_QUALIFIER(m) ((m)->flags |= PMIX_INFO_QUALIFIER)
#define PMIX_INFO_IS_QUALIFIER(m) ((m)->flags & PMIX_INFO_QUALIFIER)
#define PMIX_INFO_SET_PERSISTENT(m) ((m)->flags |= PMIX_INFO_PERSISTENT)
#define PMIX_INFO_IS_PERSISTENT(m) ((m)->flags & PMIX_INFO_PERSISTENT)

/* The list itself lives in the library. */
#define PMIX_INFO_LIST_START(p) ((p) = PMIx_Info_list_start())
#define PMIX_INFO_LIST_ADD(r, p, a, v, t) ((r) = PMIx_Info_list_add((p), (a), (v), (t)))
#define PMIX_INFO_LIST_INSERT(r, p, i) ((r) = PMIx_Info_list_insert((p), (i)))
#define PMIX_INFO_LIST_XFER(r, p, a) ((r) = PMIx_Info_list_xfer((p), (a)))
#define PMIX_INFO_LIST_CONVERT(r, p, m) ((r) = PMIx_Info_list_convert((p), (m)))
#define PMIX_INFO_LIST_RELEASE(p) PMIx_Info_list_release(p)

/* ======================================================================== */
/* pmix_pdata_t (lookup results)                                            */
/* ======================================================================== */

#define PMIX_LOOKUP_STATIC_INIT                                                                    \
    {                                                                                              \
        .proc = PMIX_PROC_STATIC_INIT, .key = {0}, .value = PMIX_VALUE_STATIC_INIT                 \
    }

static inline void pmix_hdr_pdata_free(pmix_pdata_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        PMIx_Value_destruct(&m[i].value);
    }
    free(m);
}

static inline void pmix_hdr_pdata_load(pmix_pdata_t *m, const pmix_proc_t *proc, const char *key,
                                       const void *data, pmix_data_type_t type)
{
    if (NULL == m) {
        return;
    }
    memset(m, 0, sizeof(*m));
    if (NULL != proc) {
        pmix_hdr_load_name(m->proc.nspace, proc->nspace, PMIX_MAX_NSLEN);
        m->proc.rank = proc->rank;
    }
    pmix_hdr_load_name(m->key, key, PMIX_MAX_KEYLEN);
    (void)PMIx_Value_load(&m->value, data, type);
}

static inline void pmix_hdr_pdata_xfer(pmix_pdata_t *dst, const pmix_pdata_t *src)
{
    if (NULL == dst) {
        return;
    }
    memset(dst, 0, sizeof(*dst));
    pmix_hdr_load_name(dst->proc.nspace, src->proc.nspace, PMIX_MAX_NSLEN);
    dst->proc.rank = src->proc.rank;
    pmix_hdr_load_name(dst->key, src->key, PMIX_MAX_KEYLEN);
    (void)PMIx_Value_xfer(&dst->value, &src->value);
}

#define PMIX_PDATA_CONSTRUCT(m)                                                                    \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_pdata_t));                                                      \
        (m)->value.type = PMIX_UNDEF;                                                              \
    } while (0)
#define PMIX_PDATA_DESTRUCT(m)                                                                     \
    do {                                                                                           \
        PMIx_Value_destruct(&(m)->value);                                                          \
    } while (0)
#define PMIX_PDATA_CREATE(m, n)                                                                    \
    do {                                                                                           \
        (m) = (pmix_pdata_t *)pmix_hdr_alloc((n), sizeof(pmix_pdata_t));                           \
    } while (0)
#define PMIX_PDATA_RELEASE(m)                                                                      \
    do {                                                                                           \
        pmix_hdr_pdata_free((m), 1);                                                               \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_PDATA_FREE(m, n)                                                                      \
    do {                                                                                           \
        pmix_hdr_pdata_free((m), (n));                                                             \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_PDATA_LOAD(m, p, k, v, t)                                                             \
    do {                                                                                           \
        pmix_hdr_pdata_load((m), (p), (const char *)(k), (v), (t));                                \
    } while (0)
#define PMIX_PDATA_XFER(d, s)                                                                      \
    do {                                                                                           \
        pmix_hdr_pdata_xfer((d), (s));                                                             \
    } while (0)

/* ======================================================================== */
/* pmix_app_t                                                               */
/* ======================================================================== */

/* Spawn requests are built by callers and released by the library (or the
 * reverse), so every member is individually malloc'd. */
#define PMIX_APP_STATIC_INIT                                                                       \
    {                                                                                              \
        .cmd = NULL, .argv = NULL, .env = NULL, .cwd = NULL, .maxprocs = 0, .info = NULL,          \
        .ninfo = 0                                                                                 \
    }

static inline void pmix_hdr_app_destruct(pmix_app_t *m)
{
    free(m->cmd);
    m->cmd = NULL;
    pmix_hdr_argv_free(m->argv);
    m->argv = NULL;
    pmix_hdr_argv_free(m->env);
    m->env = NULL;
    free(m->cwd);
    m->cwd = NULL;
    pmix_hdr_info_free(m->info, m->ninfo);
    m->info = NULL;
    m->ninfo = 0;
}

static inline void pmix_hdr_app_free(pmix_app_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_app_destruct(&m[i]);
    }
    free(m);
}

static inline void pmix_hdr_app_info_create(pmix_app_t *m, size_t n)
{
    m->ninfo = n;
    m->info = pmix_hdr_info_create(n);
}

#define PMIX_APP_CONSTRUCT(m)                                                                      \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_app_t));                                                        \
    } while (0)
#define PMIX_APP_DESTRUCT(m)                                                                       \
    do {                                                                                           \
        pmix_hdr_app_destruct(m);                                                                  \
    } while (0)
#define PMIX_APP_CREATE(m, n)                                                                      \
    do {                                                                                           \
        (m) = (pmix_app_t *)pmix_hdr_alloc((n), sizeof(pmix_app_t));                               \
    } while (0)
#define PMIX_APP_RELEASE(m)                                                                        \
    do {                                                                                           \
        pmix_hdr_app_free((m), 1);                                                                 \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_APP_FREE(m, n)                                                                        \
    do {                                                                                           \
        pmix_hdr_app_free((m), (n));                                                               \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_APP_INFO_CREATE(m, n)                                                                 \
    do {                                                                                           \
        pmix_hdr_app_info_create((m), (n));                                                        \
    } while (0)

/* ======================================================================== */
/* pmix_query_t                                                             */
/* ======================================================================== */

#define PMIX_QUERY_STATIC_INIT                                                                     \
    {                                                                                              \
        .keys = NULL, .qualifiers = NULL, .nqual = 0                                               \
    }

static inline void pmix_hdr_query_destruct(pmix_query_t *m)
{
    pmix_hdr_argv_free(m->keys);
    m->keys = NULL;
    pmix_hdr_info_free(m->qualifiers, m->nqual);
    m->qualifiers = NULL;
    m->nqual = 0;
}

static inline void pmix_hdr_query_free(pmix_query_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_query_destruct(&m[i]);
    }
    free(m);
}

static inline void pmix_hdr_query_qualifiers_create(pmix_query_t *m, size_t n)
{
    m->nqual = n;
    m->qualifiers = pmix_hdr_info_create(n);
}

#define PMIX_QUERY_CONSTRUCT(m)                                                                    \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_query_t));                                                      \
    } while (0)
#define PMIX_QUERY_DESTRUCT(m)                                                                     \
    do {                                                                                           \
        pmix_hdr_query_destruct(m);                                                                \
    } while (0)
#define PMIX_QUERY_CREATE(m, n)                                                                    \
    do {                                                                                           \
        (m) = (pmix_query_t *)pmix_hdr_alloc((n), sizeof(pmix_query_t));                           \
    } while (0)
#define PMIX_QUERY_RELEASE(m)                                                                      \
    do {                                                                                           \
        pmix_hdr_query_free((m), 1);                                                               \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_QUERY_FREE(m, n)                                                                      \
    do {                                                                                           \
        pmix_hdr_query_free((m), (n));                                                             \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_QUERY_QUALIFIERS_CREATE(m, n)                                                         \
    do {                                                                                           \
        pmix_hdr_query_qualifiers_create((m), (n));                                                \
    } while (0)

/* ======================================================================== */
/* pmix_envar_t                                                             */
/* ======================================================================== */

#define PMIX_ENVAR_STATIC_INIT                                                                     \
    {                                                                                              \
        .envar = NULL, .value = NULL, .separator = '\0'                                            \
    }

static inline void pmix_hdr_envar_destruct(pmix_envar_t *m)
{
    free(m->envar);
    m->envar = NULL;
    free(m->value);
    m->value = NULL;
}

static inline void pmix_hdr_envar_free(pmix_envar_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_envar_destruct(&m[i]);
    }
    free(m);
}

static inline void pmix_hdr_envar_load(pmix_envar_t *m, const char *name, const char *value,
                                       char separator)
{
    if (NULL != name) {
        m->envar = strdup(name);
    }
    if (NULL != value) {
        m->value = strdup(value);
    }
    m->separator = separator;
}

/* As in OpenPMIx, FREE leaves the caller's pointer alone. */
#define PMIX_ENVAR_CONSTRUCT(m)                                                                    \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_envar_t));                                                      \
    } while (0)
#define PMIX_ENVAR_DESTRUCT(m)                                                                     \
    do {                                                                                           \
        pmix_hdr_envar_destruct(m);                                                                \
    } while (0)
#define PMIX_ENVAR_CREATE(m, n)                                                                    \
    do {                                                                                           \
        (m) = (pmix_envar_t *)pmix_hdr_alloc((n), sizeof(pmix_envar_t));                           \
    } while (0)
#define PMIX_ENVAR_FREE(m, n)                                                                      \
    do {                                                                                           \
        pmix_hdr_envar_free((m), (n));                                                             \
    } while (0)
#define PMIX_ENVAR_LOAD(m, e, v, s)                                                                \
    do {                                                                                           \
        pmix_hdr_envar_load((m), (e), (v), (s));                                                   \
    } while (0)

/* ======================================================================== */
/* pmix_byte_object_t                                                       */
/* ======================================================================== */

#define PMIX_BYTE_OBJECT_STATIC_INIT                                                               \
    {                                                                                              \
        .bytes = NULL, .size = 0                                                                   \
    }

static inline void pmix_hdr_byte_object_destruct(pmix_byte_object_t *m)
{
    free(m->bytes);
    m->bytes = NULL;
    m->size = 0;
}

static inline void pmix_hdr_byte_object_free(pmix_byte_object_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_byte_object_destruct(&m[i]);
    }
    free(m);
}

#define PMIX_BYTE_OBJECT_CONSTRUCT(m)                                                              \
    do {                                                                                           \
        (m)->bytes = NULL;                                                                         \
        (m)->size = 0;                                                                             \
    } while (0)
#define PMIX_BYTE_OBJECT_DESTRUCT(m)                                                               \
    do {                                                                                           \
        pmix_hdr_byte_object_destruct(m);                                                          \
    } while (0)
#define PMIX_BYTE_OBJECT_CREATE(m, n)                                                              \
    do {                                                                                           \
        (m) = (pmix_byte_object_t *)pmix_hdr_alloc((n), sizeof(pmix_byte_object_t));               \
    } while (0)
#define PMIX_BYTE_OBJECT_FREE(m, n)                                                                \
    do {                                                                                           \
        pmix_hdr_byte_object_free((m), (n));                                                       \
        (m) = NULL;                                                                                \
    } while (0)
/* Takes ownership of the data: d and s are cleared. */
#define PMIX_BYTE_OBJECT_LOAD(b, d, s)                                                             \
    do {                                                                                           \
        (b)->bytes = (char *)(d);                                                                  \
        (d) = NULL;                                                                                \
        (b)->size = (s);                                                                           \
        (s) = 0;                                                                                   \
    } while (0)

/* ======================================================================== */
/* Fabric: pmix_coord_t, pmix_geometry_t, pmix_endpoint_t, pmix_fabric_t   */
/* ======================================================================== */

#define PMIX_COORD_STATIC_INIT                                                                     \
    {                                                                                              \
        .view = PMIX_COORD_VIEW_UNDEF, .coord = NULL, .dims = 0                                    \
    }

static inline void pmix_hdr_coord_destruct(pmix_coord_t *m)
{
    m->view = PMIX_COORD_VIEW_UNDEF;
    free(m->coord);
    m->coord = NULL;
    m->dims = 0;
}

static inline void pmix_hdr_coord_free(pmix_coord_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_coord_destruct(&m[i]);
    }
    free(m);
}

/* count coordinates, each with dims zeroed values. */
static inline pmix_coord_t *pmix_hdr_coord_create(size_t count, size_t dims)
{
    pmix_coord_t *m = (pmix_coord_t *)pmix_hdr_alloc(count, sizeof(pmix_coord_t));
    size_t i;

    for (i = 0; NULL != m && i < count && 0 < dims; ++i) {
        m[i].coord = (uint32_t *)calloc(dims, sizeof(uint32_t));
        if (NULL == m[i].coord) {
            pmix_hdr_coord_free(m, i);
            return NULL;
        }
        m[i].dims = dims;
    }
    return m;
}

/* PMIX_COORD_CREATE(m, count, dims): OpenPMIx's three-argument form. */
#define PMIX_COORD_CONSTRUCT(m)                                                                    \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_coord_t));                                                      \
    } while (0)
#define PMIX_COORD_DESTRUCT(m)                                                                     \
    do {                                                                                           \
        pmix_hdr_coord_destruct(m);                                                                \
    } while (0)
#define PMIX_COORD_CREATE(m, d, n)                                                                 \
    do {                                                                                           \
        (m) = pmix_hdr_coord_create((d), (n));                                                     \
    } while (0)
#define PMIX_COORD_FREE(m, n)                                                                      \
    do {                                                                                           \
        pmix_hdr_coord_free((m), (n));                                                             \
        (m) = NULL;                                                                                \
    } while (0)

#define PMIX_GEOMETRY_STATIC_INIT                                                                  \
    {                                                                                              \
        .fabric = 0, .uuid = NULL, .osname = NULL, .coordinates = NULL, .ncoords = 0               \
    }

static inline void pmix_hdr_geometry_destruct(pmix_geometry_t *m)
{
    free(m->uuid);
    m->uuid = NULL;
    free(m->osname);
    m->osname = NULL;
    pmix_hdr_coord_free(m->coordinates, m->ncoords);
    m->coordinates = NULL;
    m->ncoords = 0;
}

static inline void pmix_hdr_geometry_free(pmix_geometry_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_geometry_destruct(&m[i]);
    }
    free(m);
}

#define PMIX_GEOMETRY_CONSTRUCT(m)                                                                 \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_geometry_t));                                                   \
    } while (0)
#define PMIX_GEOMETRY_DESTRUCT(m)                                                                  \
    do {                                                                                           \
        pmix_hdr_geometry_destruct(m);                                                             \
    } while (0)
#define PMIX_GEOMETRY_CREATE(m, n)                                                                 \
    do {                                                                                           \
        (m) = (pmix_geometry_t *)pmix_hdr_alloc((n), sizeof(pmix_geometry_t));                     \
    } while (0)
#define PMIX_GEOMETRY_FREE(m, n)                                                                   \
    do {                                                                                           \
        pmix_hdr_geometry_free((m), (n));                                                          \
        (m) = NULL;                                                                                \
    } while (0)

#define PMIX_ENDPOINT_STATIC_INIT                                                                  \
    {                                                                                              \
        .uuid = NULL, .osname = NULL, .endpt = PMIX_BYTE_OBJECT_STATIC_INIT                        \
    }

static inline void pmix_hdr_endpoint_destruct(pmix_endpoint_t *m)
{
    free(m->uuid);
    m->uuid = NULL;
    free(m->osname);
    m->osname = NULL;
    pmix_hdr_byte_object_destruct(&m->endpt);
}

static inline void pmix_hdr_endpoint_free(pmix_endpoint_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_endpoint_destruct(&m[i]);
    }
    free(m);
}

#define PMIX_ENDPOINT_CONSTRUCT(m)                                                                 \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_endpoint_t));                                                   \
    } while (0)
#define PMIX_ENDPOINT_DESTRUCT(m)                                                                  \
    do {                                                                                           \
        pmix_hdr_endpoint_destruct(m);                                                             \
    } while (0)
#define PMIX_ENDPOINT_CREATE(m, n)                                                                 \
    do {                                                                                           \
        (m) = (pmix_endpoint_t *)pmix_hdr_alloc((n), sizeof(pmix_endpoint_t));                     \
    } while (0)
#define PMIX_ENDPOINT_FREE(m, n)                                                                   \
    do {                                                                                           \
        pmix_hdr_endpoint_free((m), (n));                                                          \
        (m) = NULL;                                                                                \
    } while (0)

/* The info array of a fabric belongs to the library (PMIx_Fabric_deregister). */
#define PMIX_FABRIC_STATIC_INIT                                                                    \
    {                                                                                              \
        .name = NULL, .index = 0, .info = NULL, .ninfo = 0, .module = NULL                         \
    }
#define PMIX_FABRIC_CONSTRUCT(x)                                                                   \
    do {                                                                                           \
        memset((x), 0, sizeof(pmix_fabric_t));                                                     \
    } while (0)

/* ======================================================================== */
/* pmix_device_distance_t                                                   */
/* ======================================================================== */

/* An unmeasured distance is UINT16_MAX, not 0 (0 would read "same place");
 * the static initializer keeps OpenPMIx's zeros. */
#define PMIX_DEVICE_DIST_STATIC_INIT                                                               \
    {                                                                                              \
        .uuid = NULL, .osname = NULL, .type = PMIX_DEVTYPE_UNKNOWN, .mindist = 0, .maxdist = 0     \
    }

static inline void pmix_hdr_device_dist_construct(pmix_device_distance_t *m)
{
    memset(m, 0, sizeof(*m));
    m->mindist = UINT16_MAX;
    m->maxdist = UINT16_MAX;
}

static inline void pmix_hdr_device_dist_destruct(pmix_device_distance_t *m)
{
    free(m->uuid);
    m->uuid = NULL;
    free(m->osname);
    m->osname = NULL;
}

static inline pmix_device_distance_t *pmix_hdr_device_dist_create(size_t n)
{
    pmix_device_distance_t *m =
        (pmix_device_distance_t *)pmix_hdr_alloc(n, sizeof(pmix_device_distance_t));
    size_t i;

    for (i = 0; NULL != m && i < n; ++i) {
        pmix_hdr_device_dist_construct(&m[i]);
    }
    return m;
}

static inline void pmix_hdr_device_dist_free(pmix_device_distance_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_device_dist_destruct(&m[i]);
    }
    free(m);
}

#define PMIX_DEVICE_DIST_CONSTRUCT(m)                                                              \
    do {                                                                                           \
        pmix_hdr_device_dist_construct(m);                                                         \
    } while (0)
#define PMIX_DEVICE_DIST_DESTRUCT(m)                                                               \
    do {                                                                                           \
        pmix_hdr_device_dist_destruct(m);                                                          \
    } while (0)
#define PMIX_DEVICE_DIST_CREATE(m, n)                                                              \
    do {                                                                                           \
        (m) = pmix_hdr_device_dist_create(n);                                                      \
    } while (0)
#define PMIX_DEVICE_DIST_FREE(m, n)                                                                \
    do {                                                                                           \
        pmix_hdr_device_dist_free((m), (n));                                                       \
        (m) = NULL;                                                                                \
    } while (0)

/* ======================================================================== */
/* pmix_topology_t, pmix_cpuset_t                                           */
/* ======================================================================== */

/* Their payloads are hwloc objects, which only the library can release. */
#define PMIX_TOPOLOGY_STATIC_INIT                                                                  \
    {                                                                                              \
        .source = NULL, .topology = NULL                                                           \
    }
#define PMIX_TOPOLOGY_CONSTRUCT(m)                                                                 \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_topology_t));                                                   \
    } while (0)
#define PMIX_TOPOLOGY_CREATE(m, n)                                                                 \
    do {                                                                                           \
        (m) = (pmix_topology_t *)pmix_hdr_alloc((n), sizeof(pmix_topology_t));                     \
    } while (0)
#define PMIX_TOPOLOGY_DESTRUCT(x) PMIx_Topology_destruct(x)

static inline void pmix_hdr_cpuset_free(pmix_cpuset_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        PMIx_Cpuset_destruct(&m[i]);
    }
    free(m);
}

#define PMIX_CPUSET_STATIC_INIT                                                                    \
    {                                                                                              \
        .source = NULL, .bitmap = NULL                                                             \
    }
#define PMIX_CPUSET_CONSTRUCT(m)                                                                   \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_cpuset_t));                                                     \
    } while (0)
#define PMIX_CPUSET_CREATE(m, n)                                                                   \
    do {                                                                                           \
        (m) = (pmix_cpuset_t *)pmix_hdr_alloc((n), sizeof(pmix_cpuset_t));                         \
    } while (0)
/* In the Standard but not in OpenPMIx 4.2.2 (whose library exports
 * PMIx_Cpuset_destruct all the same). */
#define PMIX_CPUSET_DESTRUCT(m) PMIx_Cpuset_destruct(m)
#define PMIX_CPUSET_FREE(m, n)                                                                     \
    do {                                                                                           \
        pmix_hdr_cpuset_free((m), (n));                                                            \
        (m) = NULL;                                                                                \
    } while (0)

/* ======================================================================== */
/* pmix_regattr_t                                                           */
/* ======================================================================== */

#define PMIX_REGATTR_STATIC_INIT                                                                   \
    {                                                                                              \
        .name = NULL, .string = {0}, .type = PMIX_UNDEF, .description = NULL                       \
    }

static inline void pmix_hdr_regattr_construct(pmix_regattr_t *a)
{
    if (NULL != a) {
        memset(a, 0, sizeof(*a));
        a->type = PMIX_UNDEF;
    }
}

static inline void pmix_hdr_regattr_destruct(pmix_regattr_t *a)
{
    if (NULL != a) {
        free(a->name);
        a->name = NULL;
        pmix_hdr_argv_free(a->description);
        a->description = NULL;
    }
}

static inline void pmix_hdr_regattr_free(pmix_regattr_t *m, size_t n)
{
    size_t i;

    if (NULL == m) {
        return;
    }
    for (i = 0; i < n; ++i) {
        pmix_hdr_regattr_destruct(&m[i]);
    }
    free(m);
}

/* Repeated calls add description lines; a NULL name or key keeps the old. */
static inline void pmix_hdr_regattr_load(pmix_regattr_t *a, const char *name, const char *key,
                                         pmix_data_type_t type, const char *description)
{
    if (NULL != name) {
        free(a->name);
        a->name = strdup(name);
    }
    if (NULL != key) {
        pmix_hdr_load_name(a->string, key, PMIX_MAX_KEYLEN);
    }
    a->type = type;
    if (NULL != description) {
        (void)pmix_hdr_argv_append(&a->description, description);
    }
}

static inline void pmix_hdr_regattr_xfer(pmix_regattr_t *dst, const pmix_regattr_t *src)
{
    pmix_hdr_regattr_construct(dst);
    if (NULL != src->name) {
        dst->name = strdup(src->name);
    }
    pmix_hdr_load_name(dst->string, src->string, PMIX_MAX_KEYLEN);
    dst->type = src->type;
    dst->description = pmix_hdr_argv_copy(src->description);
}

/* PMIX_REGATTR_LOAD(a, name, key, type, description): OpenPMIx's five
 * arguments (the Standard lists an extra, unused, count). */
#define PMIX_REGATTR_CONSTRUCT(a)                                                                  \
    do {                                                                                           \
        pmix_hdr_regattr_construct(a);                                                             \
    } while (0)
#define PMIX_REGATTR_DESTRUCT(a)                                                                   \
    do {                                                                                           \
        pmix_hdr_regattr_destruct(a);                                                              \
    } while (0)
#define PMIX_REGATTR_CREATE(m, n)                                                                  \
    do {                                                                                           \
        (m) = (pmix_regattr_t *)pmix_hdr_alloc((n), sizeof(pmix_regattr_t));                       \
    } while (0)
#define PMIX_REGATTR_FREE(m, n)                                                                    \
    do {                                                                                           \
        pmix_hdr_regattr_free((m), (n));                                                           \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_REGATTR_LOAD(a, n, k, t, v)                                                           \
    do {                                                                                           \
        pmix_hdr_regattr_load((a), (n), (const char *)(k), (t), (v));                              \
    } while (0)
#define PMIX_REGATTR_XFER(a, b)                                                                    \
    do {                                                                                           \
        pmix_hdr_regattr_xfer((a), (b));                                                           \
    } while (0)

/* ======================================================================== */
/* Statistics: pmix_proc_stats_t, pmix_disk_stats_t, pmix_net_stats_t,     */
/* pmix_node_stats_t                                                        */
/* ======================================================================== */

/* Only their strings and sub-arrays are owned; RELEASE is FREE of one. */
#define PMIX_PROC_STATS_STATIC_INIT                                                                \
    {                                                                                              \
        .node = NULL, .proc = PMIX_PROC_STATIC_INIT, .pid = 0, .cmd = NULL, .state = '\0',         \
        .time = {0, 0}, .percent_cpu = 0.0, .priority = 0, .num_threads = 0, .pss = 0.0,           \
        .vsize = 0.0, .rss = 0.0, .peak_vsize = 0.0, .processor = 0, .sample_time = {              \
            0,                                                                                     \
            0                                                                                      \
        }                                                                                          \
    }

#define PMIX_DISK_STATS_STATIC_INIT                                                                \
    {                                                                                              \
        .disk = NULL, .num_reads_completed = 0, .num_reads_merged = 0, .num_sectors_read = 0,      \
        .milliseconds_reading = 0, .num_writes_completed = 0, .num_writes_merged = 0,              \
        .num_sectors_written = 0, .milliseconds_writing = 0, .num_ios_in_progress = 0,             \
        .milliseconds_io = 0, .weighted_milliseconds_io = 0                                        \
    }

#define PMIX_NET_STATS_STATIC_INIT                                                                 \
    {                                                                                              \
        .net_interface = NULL, .num_bytes_recvd = 0, .num_packets_recvd = 0, .num_recv_errs = 0,   \
        .num_bytes_sent = 0, .num_packets_sent = 0, .num_send_errs = 0                             \
    }

#define PMIX_NODE_STATS_STATIC_INIT                                                                \
    {                                                                                              \
        .node = NULL, .la = 0, .la5 = 0, .la15 = 0, .total_mem = 0.0, .free_mem = 0.0,             \
        .buffers = 0.0, .cached = 0.0, .swap_cached = 0.0, .swap_total = 0.0, .swap_free = 0.0,    \
        .mapped = 0.0, .sample_time = {0, 0}, .diskstats = NULL, .ndiskstats = 0,                  \
        .netstats = NULL, .nnetstats = 0                                                           \
    }

static inline void pmix_hdr_proc_stats_destruct(pmix_proc_stats_t *m)
{
    free(m->node);
    m->node = NULL;
    free(m->cmd);
    m->cmd = NULL;
}

static inline void pmix_hdr_disk_stats_destruct(pmix_disk_stats_t *m)
{
    free(m->disk);
    m->disk = NULL;
}

static inline void pmix_hdr_net_stats_destruct(pmix_net_stats_t *m)
{
    free(m->net_interface);
    m->net_interface = NULL;
}

static inline void pmix_hdr_proc_stats_free(pmix_proc_stats_t *m, size_t n)
{
    size_t i;

    for (i = 0; NULL != m && i < n; ++i) {
        pmix_hdr_proc_stats_destruct(&m[i]);
    }
    free(m);
}

static inline void pmix_hdr_disk_stats_free(pmix_disk_stats_t *m, size_t n)
{
    size_t i;

    for (i = 0; NULL != m && i < n; ++i) {
        pmix_hdr_disk_stats_destruct(&m[i]);
    }
    free(m);
}

static inline void pmix_hdr_net_stats_free(pmix_net_stats_t *m, size_t n)
{
    size_t i;

    for (i = 0; NULL != m && i < n; ++i) {
        pmix_hdr_net_stats_destruct(&m[i]);
    }
    free(m);
}

static inline void pmix_hdr_node_stats_destruct(pmix_node_stats_t *m)
{
    free(m->node);
    m->node = NULL;
    pmix_hdr_disk_stats_free(m->diskstats, m->ndiskstats);
    m->diskstats = NULL;
    m->ndiskstats = 0;
    pmix_hdr_net_stats_free(m->netstats, m->nnetstats);
    m->netstats = NULL;
    m->nnetstats = 0;
}

static inline void pmix_hdr_node_stats_free(pmix_node_stats_t *m, size_t n)
{
    size_t i;

    for (i = 0; NULL != m && i < n; ++i) {
        pmix_hdr_node_stats_destruct(&m[i]);
    }
    free(m);
}

#define PMIX_PROC_STATS_CONSTRUCT(m)                                                               \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_proc_stats_t));                                                 \
    } while (0)
#define PMIX_PROC_STATS_DESTRUCT(m)                                                                \
    do {                                                                                           \
        pmix_hdr_proc_stats_destruct(m);                                                           \
    } while (0)
#define PMIX_PROC_STATS_CREATE(m, n)                                                               \
    do {                                                                                           \
        (m) = (pmix_proc_stats_t *)pmix_hdr_alloc((n), sizeof(pmix_proc_stats_t));                 \
    } while (0)
#define PMIX_PROC_STATS_FREE(m, n)                                                                 \
    do {                                                                                           \
        pmix_hdr_proc_stats_free((m), (n));                                                        \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_PROC_STATS_RELEASE(m) PMIX_PROC_STATS_FREE(m, 1)

#define PMIX_DISK_STATS_CONSTRUCT(m)                                                               \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_disk_stats_t));                                                 \
    } while (0)
#define PMIX_DISK_STATS_DESTRUCT(m)                                                                \
    do {                                                                                           \
        pmix_hdr_disk_stats_destruct(m);                                                           \
    } while (0)
#define PMIX_DISK_STATS_CREATE(m, n)                                                               \
    do {                                                                                           \
        (m) = (pmix_disk_stats_t *)pmix_hdr_alloc((n), sizeof(pmix_disk_stats_t));                 \
    } while (0)
#define PMIX_DISK_STATS_FREE(m, n)                                                                 \
    do {                                                                                           \
        pmix_hdr_disk_stats_free((m), (n));                                                        \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_DISK_STATS_RELEASE(m) PMIX_DISK_STATS_FREE(m, 1)

#define PMIX_NET_STATS_CONSTRUCT(m)                                                                \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_net_stats_t));                                                  \
    } while (0)
#define PMIX_NET_STATS_DESTRUCT(m)                                                                 \
    do {                                                                                           \
        pmix_hdr_net_stats_destruct(m);                                                            \
    } while (0)
#define PMIX_NET_STATS_CREATE(m, n)                                                                \
    do {                                                                                           \
        (m) = (pmix_net_stats_t *)pmix_hdr_alloc((n), sizeof(pmix_net_stats_t));                   \
    } while (0)
#define PMIX_NET_STATS_FREE(m, n)                                                                  \
    do {                                                                                           \
        pmix_hdr_net_stats_free((m), (n));                                                         \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_NET_STATS_RELEASE(m) PMIX_NET_STATS_FREE(m, 1)

#define PMIX_NODE_STATS_CONSTRUCT(m)                                                               \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_node_stats_t));                                                 \
    } while (0)
#define PMIX_NODE_STATS_DESTRUCT(m)                                                                \
    do {                                                                                           \
        pmix_hdr_node_stats_destruct(m);                                                           \
    } while (0)
#define PMIX_NODE_STATS_CREATE(m, n)                                                               \
    do {                                                                                           \
        (m) = (pmix_node_stats_t *)pmix_hdr_alloc((n), sizeof(pmix_node_stats_t));                 \
    } while (0)
#define PMIX_NODE_STATS_FREE(m, n)                                                                 \
    do {                                                                                           \
        pmix_hdr_node_stats_free((m), (n));                                                        \
        (m) = NULL;                                                                                \
    } while (0)
#define PMIX_NODE_STATS_RELEASE(m) PMIX_NODE_STATS_FREE(m, 1)

/* ======================================================================== */
/* pmix_data_array_t                                                        */
/* ======================================================================== */

/* The element storage must be exactly what PMIx_Data_array_destruct
 * expects to release, so the set of types matches OpenPMIx's; any other
 * type yields an empty array. */
#define PMIX_DATA_ARRAY_STATIC_INIT                                                                \
    {                                                                                              \
        .type = PMIX_UNDEF, .size = 0, .array = NULL                                               \
    }

static inline void *pmix_hdr_data_array_alloc(size_t n, pmix_data_type_t type)
{
    size_t size;

    switch (type) {
    case PMIX_INFO: return pmix_hdr_info_create(n);
    case PMIX_DEVICE_DIST: return pmix_hdr_device_dist_create(n);
    case PMIX_PROC: size = sizeof(pmix_proc_t); break;
    case PMIX_PROC_INFO: size = sizeof(pmix_proc_info_t); break;
    case PMIX_ENVAR: size = sizeof(pmix_envar_t); break;
    case PMIX_VALUE: size = sizeof(pmix_value_t); break;
    case PMIX_PDATA: size = sizeof(pmix_pdata_t); break;
    case PMIX_QUERY: size = sizeof(pmix_query_t); break;
    case PMIX_APP: size = sizeof(pmix_app_t); break;
    case PMIX_BYTE_OBJECT:
    case PMIX_COMPRESSED_STRING: size = sizeof(pmix_byte_object_t); break;
    case PMIX_ALLOC_DIRECTIVE:
    case PMIX_PROC_STATE:
    case PMIX_PERSIST:
    case PMIX_SCOPE:
    case PMIX_DATA_RANGE:
    case PMIX_BYTE:
    case PMIX_INT8:
    case PMIX_UINT8: size = 1; break;
    case PMIX_POINTER: size = sizeof(void *); break;
    case PMIX_STRING: size = sizeof(char *); break;
    case PMIX_SIZE: size = sizeof(size_t); break;
    case PMIX_PID: size = sizeof(pid_t); break;
    case PMIX_INT:
    case PMIX_UINT:
    case PMIX_STATUS: size = sizeof(int); break;
    case PMIX_IOF_CHANNEL:
    case PMIX_DATA_TYPE:
    case PMIX_INT16:
    case PMIX_UINT16: size = sizeof(uint16_t); break;
    case PMIX_PROC_RANK:
    case PMIX_INFO_DIRECTIVES:
    case PMIX_INT32:
    case PMIX_UINT32: size = sizeof(uint32_t); break;
    case PMIX_INT64:
    case PMIX_UINT64: size = sizeof(uint64_t); break;
    case PMIX_FLOAT: size = sizeof(float); break;
    case PMIX_DOUBLE: size = sizeof(double); break;
    case PMIX_TIMEVAL: size = sizeof(struct timeval); break;
    case PMIX_TIME: size = sizeof(time_t); break;
    case PMIX_BOOL: size = sizeof(bool); break;
    case PMIX_REGATTR: size = sizeof(pmix_regattr_t); break;
    case PMIX_COORD: size = sizeof(pmix_coord_t); break;
    case PMIX_LINK_STATE: size = sizeof(pmix_link_state_t); break;
    case PMIX_ENDPOINT: size = sizeof(pmix_endpoint_t); break;
    case PMIX_PROC_NSPACE: size = sizeof(pmix_nspace_t); break;
    case PMIX_PROC_STATS: size = sizeof(pmix_proc_stats_t); break;
    case PMIX_DISK_STATS: size = sizeof(pmix_disk_stats_t); break;
    case PMIX_NET_STATS: size = sizeof(pmix_net_stats_t); break;
    case PMIX_NODE_STATS: size = sizeof(pmix_node_stats_t); break;
    case PMIX_GEOMETRY: size = sizeof(pmix_geometry_t); break;
    case PMIX_PROC_CPUSET: size = sizeof(pmix_cpuset_t); break;
    default: return NULL;
    }
    return pmix_hdr_alloc(n, size);
}

static inline void pmix_hdr_data_array_construct(pmix_data_array_t *m, size_t n,
                                                 pmix_data_type_t type)
{
    m->type = type;
    m->array = pmix_hdr_data_array_alloc(n, type);
    m->size = (NULL == m->array) ? 0 : n;
}

static inline pmix_data_array_t *pmix_hdr_data_array_create(size_t n, pmix_data_type_t type)
{
    pmix_data_array_t *m = (pmix_data_array_t *)calloc(1, sizeof(pmix_data_array_t));

    if (NULL != m) {
        pmix_hdr_data_array_construct(m, n, type);
    }
    return m;
}

#define PMIX_DATA_ARRAY_INIT(m, t)                                                                 \
    do {                                                                                           \
        (m)->array = NULL;                                                                         \
        (m)->type = (t);                                                                           \
        (m)->size = 0;                                                                             \
    } while (0)
#define PMIX_DATA_ARRAY_CONSTRUCT(m, n, t)                                                         \
    do {                                                                                           \
        pmix_hdr_data_array_construct((m), (n), (t));                                              \
    } while (0)
#define PMIX_DATA_ARRAY_DESTRUCT(m) PMIx_Data_array_destruct(m)
#define PMIX_DATA_ARRAY_CREATE(m, n, t)                                                            \
    do {                                                                                           \
        (m) = pmix_hdr_data_array_create((n), (t));                                                \
    } while (0)
#define PMIX_DATA_ARRAY_FREE(m)                                                                    \
    do {                                                                                           \
        if (NULL != (m)) {                                                                         \
            PMIx_Data_array_destruct(m);                                                           \
            free(m);                                                                               \
            (m) = NULL;                                                                            \
        }                                                                                          \
    } while (0)

/* ======================================================================== */
/* pmix_data_buffer_t                                                       */
/* ======================================================================== */

/* The buffer's storage is the library's to manage, but it is one libc
 * block (base_ptr), so releasing a buffer needs no library call. */
#define PMIX_DATA_BUFFER_STATIC_INIT                                                               \
    {                                                                                              \
        .base_ptr = NULL, .pack_ptr = NULL, .unpack_ptr = NULL, .bytes_allocated = 0,              \
        .bytes_used = 0                                                                            \
    }

static inline void pmix_hdr_data_buffer_destruct(pmix_data_buffer_t *b)
{
    if (NULL != b) {
        free(b->base_ptr);
        memset(b, 0, sizeof(*b));
    }
}

static inline pmix_status_t pmix_hdr_data_buffer_load(pmix_data_buffer_t *b, char *bytes,
                                                      size_t size)
{
    pmix_byte_object_t bo;

    bo.bytes = bytes;
    bo.size = size;
    return PMIx_Data_load(b, &bo);
}

/* On failure the payload is reported as NULL/0. */
static inline void pmix_hdr_data_buffer_unload(pmix_data_buffer_t *b, pmix_byte_object_t *bo)
{
    if (PMIX_SUCCESS != PMIx_Data_unload(b, bo)) {
        bo->bytes = NULL;
        bo->size = 0;
    }
}

#define PMIX_DATA_BUFFER_CONSTRUCT(m)                                                              \
    do {                                                                                           \
        memset((m), 0, sizeof(pmix_data_buffer_t));                                                \
    } while (0)
#define PMIX_DATA_BUFFER_DESTRUCT(m)                                                               \
    do {                                                                                           \
        pmix_hdr_data_buffer_destruct(m);                                                          \
    } while (0)
#define PMIX_DATA_BUFFER_CREATE(m)                                                                 \
    do {                                                                                           \
        (m) = (pmix_data_buffer_t *)calloc(1, sizeof(pmix_data_buffer_t));                         \
    } while (0)
#define PMIX_DATA_BUFFER_RELEASE(m)                                                                \
    do {                                                                                           \
        pmix_hdr_data_buffer_destruct(m);                                                          \
        free(m);                                                                                   \
        (m) = NULL;                                                                                \
    } while (0)
/* The buffer takes the blob over; it is not copied. */
#define PMIX_DATA_BUFFER_LOAD(b, d, s)                                                             \
    do {                                                                                           \
        (void)pmix_hdr_data_buffer_load((b), (char *)(d), (s));                                    \
    } while (0)
#define PMIX_DATA_BUFFER_UNLOAD(b, d, s)                                                           \
    do {                                                                                           \
        pmix_byte_object_t pmix_hdr_unload_;                                                       \
        pmix_hdr_data_buffer_unload((b), &pmix_hdr_unload_);                                       \
        (d) = pmix_hdr_unload_.bytes;                                                              \
        (s) = pmix_hdr_unload_.size;                                                               \
    } while (0)

/* ---- Source compatibility: the string helpers OpenPMIx 4.2.2's public
 * header defines inline, which programs written against it call directly
 * (its examples split PMIX_LOCAL_PEERS with pmix_argv_split).  Same names
 * and signatures, our implementations; nothing here is exported. ---- */

static inline size_t pmix_keylen(const char *src)
{
    return pmix_hdr_strnlen(src, PMIX_MAX_KEYLEN);
}

static inline size_t pmix_nslen(const char *src)
{
    return pmix_hdr_strnlen(src, PMIX_MAX_NSLEN);
}

static inline int pmix_argv_count(char **argv)
{
    return pmix_hdr_argv_count(argv);
}

static inline pmix_status_t pmix_argv_append_nosize(char ***argv, const char *arg)
{
    return pmix_hdr_argv_append(argv, arg);
}

static inline pmix_status_t pmix_argv_prepend_nosize(char ***argv, const char *arg)
{
    return pmix_hdr_argv_prepend(argv, arg);
}

static inline pmix_status_t pmix_argv_append_unique_nosize(char ***argv, const char *arg)
{
    return pmix_hdr_argv_append_unique(argv, arg);
}

static inline void pmix_argv_free(char **argv)
{
    pmix_hdr_argv_free(argv);
}

static inline char **pmix_argv_split(const char *src_string, int delimiter)
{
    return pmix_hdr_argv_split(src_string, delimiter);
}

/* Like pmix_argv_split, but an empty field between two delimiters stays,
 * as an empty string. */
static inline char **pmix_argv_split_with_empty(const char *src_string, int delimiter)
{
    char **argv = NULL;
    const char *start = src_string;

    if (NULL == src_string || '\0' == *src_string) {
        return NULL;
    }
    for (;;) {
        const char *end = start;
        size_t len;
        char *field;

        while ('\0' != *end && delimiter != *end) {
            ++end;
        }
        len = (size_t)(end - start);
        field = (char *)malloc(len + 1);
        if (NULL == field) {
            pmix_hdr_argv_free(argv);
            return NULL;
        }
        memcpy(field, start, len);
        field[len] = '\0';
        if (PMIX_SUCCESS != pmix_hdr_argv_adopt(&argv, field, false)) {
            free(field);
            pmix_hdr_argv_free(argv);
            return NULL;
        }
        if ('\0' == *end) {
            return argv;
        }
        start = end + 1;
    }
}

static inline char *pmix_argv_join(char **argv, int delimiter)
{
    return pmix_hdr_argv_join(argv, delimiter);
}

static inline char **pmix_argv_copy(char **argv)
{
    return pmix_hdr_argv_copy(argv);
}

static inline pmix_status_t pmix_setenv(const char *name, const char *value, bool overwrite,
                                        char ***env)
{
    return pmix_hdr_setenv(name, value, overwrite, env);
}

#ifdef __cplusplus
}
#endif

#endif /* PMIX_MACROS_H */
