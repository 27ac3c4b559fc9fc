/* Shared reader helpers (see read_util.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "fabric/huge_map.h"
#include "fabric/read_util.h"

pmix_status_t sy_read_error(char **errmsg, const char *name, size_t line, const char *fmt, ...)
{
    if (errmsg == NULL || *errmsg != NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    char body[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(body, sizeof(body), fmt, ap);
    va_end(ap);
    const char *n = (name != NULL) ? name : "<input>";
    size_t need = strlen(n) + strlen(body) + 32;
    char *m = malloc(need);
    if (m != NULL) {
        if (line == 0) {
            snprintf(m, need, "%s: %s", n, body);
        } else {
            snprintf(m, need, "%s:%zu: %s", n, line, body);
        }
    }
    *errmsg = m;
    return PMIX_ERR_BAD_PARAM;
}

/* ---------------------------------------------------------------- lines */

void sy_lines_init(sy_lines_t *it, const char *buf, size_t len, const char *name, bool continuation)
{
    memset(it, 0, sizeof(*it));
    it->buf = (buf != NULL) ? buf : "";
    it->len = (buf != NULL) ? len : 0;
    it->next_lineno = 1;
    it->name = name;
    it->continuation = continuation;
    /* one scan for a NUL byte, not one per line */
    const char *nul = memchr(it->buf, '\0', it->len);
    it->nul_at = nul != NULL ? (size_t)(nul - it->buf) : it->len;
}

void sy_lines_done(sy_lines_t *it)
{
    free(it->line);
    it->line = NULL;
    it->cap = it->line_len = 0;
}

static int append(sy_lines_t *it, const char *s, size_t n, char **errmsg)
{
    if (it->line_len + n > SY_READ_MAX_LINE) {
        sy_read_error(errmsg, it->name, it->lineno, "line longer than %u bytes", SY_READ_MAX_LINE);
        return -1;
    }
    if (it->line_len + n + 1 > it->cap) {
        size_t ncap = it->cap ? it->cap : 256;
        while (ncap < it->line_len + n + 1) {
            ncap *= 2;
        }
        char *nl = realloc(it->line, ncap);
        if (nl == NULL) {
            sy_read_error(errmsg, it->name, it->lineno, "out of memory");
            return -1;
        }
        it->line = nl;
        it->cap = ncap;
    }
    memcpy(it->line + it->line_len, s, n);
    it->line_len += n;
    it->line[it->line_len] = '\0';
    return 0;
}

int sy_lines_next(sy_lines_t *it, char **errmsg)
{
    if (it->pos >= it->len) {
        return 0;
    }
    it->line_len = 0;
    it->lineno = it->next_lineno;
    it->line_off = it->pos;
    if (append(it, "", 0, errmsg) != 0) {
        return -1;
    }
    for (;;) {
        const char *start = it->buf + it->pos;
        size_t rest = it->len - it->pos;
        const char *nl = memchr(start, '\n', rest);
        size_t n = (nl != NULL) ? (size_t)(nl - start) : rest;
        size_t off = it->pos;
        it->pos += n + (nl != NULL ? 1 : 0);
        it->next_lineno++;
        /* lines before it had none: the first NUL is in this one or later */
        if (it->nul_at < off + n) {
            sy_read_error(errmsg, it->name, it->next_lineno - 1,
                          "unexpected NUL byte (binary data?)");
            return -1;
        }
        if (n > 0 && '\r' == start[n - 1]) {
            n--;
        }
        bool more = it->continuation && n > 0 && '\\' == start[n - 1] && it->pos < it->len;
        if (more) {
            n--;
        }
        if (append(it, start, n, errmsg) != 0) {
            return -1;
        }
        if (!more) {
            return 1;
        }
    }
}

pmix_status_t sy_read_each_line(const char *buf, size_t len, const char *name, bool continuation,
                                sy_line_fn fn, void *ctx, char **errmsg)
{
    sy_lines_t it;
    pmix_status_t rc = PMIX_SUCCESS;
    int more;
    sy_lines_init(&it, buf, len, name, continuation);
    while ((more = sy_lines_next(&it, errmsg)) == 1) {
        if ((rc = fn(ctx, it.line, it.lineno)) != PMIX_SUCCESS) {
            break;
        }
    }
    if (more < 0) {
        rc = PMIX_ERR_BAD_PARAM;
    }
    sy_lines_done(&it);
    return rc;
}

char *sy_next_token(char **cursor)
{
    char *p = *cursor;
    while (' ' == *p || '\t' == *p || '\v' == *p || '\f' == *p) {
        p++;
    }
    if ('\0' == *p || '#' == *p) {
        *cursor = p + strlen(p);
        return NULL;
    }
    char *tok = p;
    while ('\0' != *p && ' ' != *p && '\t' != *p && '\v' != *p && '\f' != *p) {
        p++;
    }
    if ('\0' != *p) {
        *p++ = '\0';
    }
    *cursor = p;
    return tok;
}

/* -------------------------------------------------------------- numbers */

bool sy_parse_u64(const char *s, bool hex_ok, uint64_t *out)
{
    if (s == NULL || '\0' == *s) {
        return false;
    }
    unsigned base = 10;
    if (hex_ok && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if ('\0' == *s) {
            return false;
        }
    }
    uint64_t v = 0;
    for (; '\0' != *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') {
            d = (unsigned)(*s - '0');
        } else if (base == 16 && isxdigit((unsigned char)*s)) {
            d = (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
        } else {
            return false;
        }
        if (v > (UINT64_MAX - d) / base) {
            return false;
        }
        v = v * base + d;
    }
    *out = v;
    return true;
}

bool sy_parse_speed(const char *s, uint64_t *out)
{
    if (s == NULL || !isdigit((unsigned char)*s)) {
        return false;
    }
    uint64_t ip = 0, frac = 0, fdiv = 1;
    for (; isdigit((unsigned char)*s); s++) {
        if (ip > (UINT64_MAX - 9) / 10) {
            return false;
        }
        ip = ip * 10 + (uint64_t)(*s - '0');
    }
    if ('.' == *s) {
        s++;
        if (!isdigit((unsigned char)*s)) {
            return false;
        }
        for (; isdigit((unsigned char)*s); s++) {
            if (fdiv < 1000000000000ULL) { /* 12 fractional digits are plenty */
                frac = frac * 10 + (uint64_t)(*s - '0');
                fdiv *= 10;
            }
        }
    }
    uint64_t mult = 1;
    switch (*s) {
    case 'k':
    case 'K':
        mult = 1000ULL;
        s++;
        break;
    case 'm':
    case 'M':
        mult = 1000000ULL;
        s++;
        break;
    case 'g':
    case 'G':
        mult = 1000000000ULL;
        s++;
        break;
    case 't':
    case 'T':
        mult = 1000000000000ULL;
        s++;
        break;
    default: break;
    }
    if ('\0' != *s && strcmp(s, "b/s") != 0 && strcmp(s, "bps") != 0 && strcmp(s, "bit/s") != 0) {
        return false;
    }
    if (ip != 0 && ip > UINT64_MAX / mult) {
        return false;
    }
    uint64_t v = ip * mult;
    /* frac/fdiv * mult, computed without overflow: both are <= 1e12. */
    uint64_t f = (mult >= fdiv) ? frac * (mult / fdiv) : frac / (fdiv / mult);
    if (UINT64_MAX - v < f) {
        return false;
    }
    *out = v + f;
    return true;
}

/* ------------------------------------------------------------- hostlist */

typedef struct {
    uint64_t *budget;
    sy_hostlist_emit_fn emit;
    void *ctx;
    const char **why;
    char name[SY_TOPO_MAX_NAME + 1];
} hl_state_t;

/* Expand s[0..n) after the prefix name[0..plen). */
static pmix_status_t hl_item(hl_state_t *st, size_t plen, const char *s, size_t n, int depth)
{
    if (depth > 8) {
        *st->why = "too many bracket groups in one host name";
        return PMIX_ERR_BAD_PARAM;
    }
    const char *open = memchr(s, '[', n);
    const char *close = memchr(s, ']', n);
    if (open == NULL) {
        if (close != NULL) {
            *st->why = "']' without '['";
            return PMIX_ERR_BAD_PARAM;
        }
        if (plen + n > SY_TOPO_MAX_NAME) {
            *st->why = "host name too long";
            return PMIX_ERR_BAD_PARAM;
        }
        if (0 == plen + n) {
            *st->why = "empty host name";
            return PMIX_ERR_BAD_PARAM;
        }
        if (0 == *st->budget) {
            *st->why = "hostlist expands to too many names";
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        (*st->budget)--;
        memcpy(st->name + plen, s, n);
        st->name[plen + n] = '\0';
        return st->emit(st->ctx, st->name);
    }
    size_t pre = (size_t)(open - s);
    if (close == NULL || close < open) {
        *st->why = close == NULL ? "'[' without ']'" : "']' without '['";
        return PMIX_ERR_BAD_PARAM;
    }
    if (plen + pre > SY_TOPO_MAX_NAME) {
        *st->why = "host name too long";
        return PMIX_ERR_BAD_PARAM;
    }
    memcpy(st->name + plen, s, pre);
    plen += pre;
    const char *r = open + 1, *rend = close;
    if (memchr(r, '[', (size_t)(rend - r))) {
        *st->why = "nested '['";
        return PMIX_ERR_BAD_PARAM;
    }
    if (r == rend) {
        *st->why = "empty range list '[]'";
        return PMIX_ERR_BAD_PARAM;
    }
    const char *rest = close + 1;
    size_t restn = n - (size_t)(rest - s);
    while (r < rend) {
        const char *comma = memchr(r, ',', (size_t)(rend - r));
        const char *end = comma ? comma : rend;
        const char *dash = memchr(r, '-', (size_t)(end - r));
        const char *loe = dash ? dash : end;
        uint64_t lo = 0, hi;
        size_t width = (size_t)(loe - r);
        if (width == 0 || width > 18) {
            *st->why = "expected a number in the range list";
            return PMIX_ERR_BAD_PARAM;
        }
        for (const char *p = r; p < loe; p++) {
            if (!isdigit((unsigned char)*p)) {
                *st->why = "expected a number in the range list";
                return PMIX_ERR_BAD_PARAM;
            }
            lo = lo * 10 + (uint64_t)(*p - '0');
        }
        hi = lo;
        if (dash) {
            const char *h = dash + 1;
            if (h == end || (size_t)(end - h) > 18) {
                *st->why = "expected a number after '-'";
                return PMIX_ERR_BAD_PARAM;
            }
            hi = 0;
            for (const char *p = h; p < end; p++) {
                if (!isdigit((unsigned char)*p)) {
                    *st->why = "expected a number after '-'";
                    return PMIX_ERR_BAD_PARAM;
                }
                hi = hi * 10 + (uint64_t)(*p - '0');
            }
            if (hi < lo) {
                *st->why = "range end below its start";
                return PMIX_ERR_BAD_PARAM;
            }
        }
        if (hi - lo >= *st->budget) {
            *st->why = "hostlist expands to too many names";
            return PMIX_ERR_OUT_OF_RESOURCE;
        }
        for (uint64_t v = lo;; v++) {
            char num[32];
            int k = snprintf(num, sizeof(num), "%0*llu", (int)width, (unsigned long long)v);
            if (plen + (size_t)k > SY_TOPO_MAX_NAME) {
                *st->why = "host name too long";
                return PMIX_ERR_BAD_PARAM;
            }
            memcpy(st->name + plen, num, (size_t)k);
            pmix_status_t rc = hl_item(st, plen + (size_t)k, rest, restn, depth + 1);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
            if (v == hi) {
                break;
            }
        }
        r = comma ? comma + 1 : rend;
        if (comma && r == rend) {
            *st->why = "expected a number in the range list";
            return PMIX_ERR_BAD_PARAM;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t sy_hostlist_expand(const char *expr, uint64_t *budget, sy_hostlist_emit_fn emit,
                                 void *ctx, const char **why)
{
    static const char *dummy;
    if (why == NULL) {
        why = &dummy;
    }
    *why = "invalid hostlist";
    if (expr == NULL || budget == NULL || emit == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    hl_state_t *st = malloc(sizeof(*st));
    if (st == NULL) {
        *why = "out of memory";
        return PMIX_ERR_NOMEM;
    }
    st->budget = budget;
    st->emit = emit;
    st->ctx = ctx;
    st->why = why;
    pmix_status_t rc = PMIX_SUCCESS;
    const char *p = expr;
    if ('\0' == *p) {
        *why = "empty hostlist";
        rc = PMIX_ERR_BAD_PARAM;
    }
    /* Items are separated by commas outside brackets. */
    while (rc == PMIX_SUCCESS && '\0' != *p) {
        const char *q = p;
        int depth = 0;
        while ('\0' != *q && !(',' == *q && depth == 0)) {
            if ('[' == *q) {
                depth++;
            } else if (']' == *q && depth > 0) {
                depth--;
            }
            q++;
        }
        if (q == p) {
            *why = "empty item in hostlist";
            rc = PMIX_ERR_BAD_PARAM;
            break;
        }
        rc = hl_item(st, 0, p, (size_t)(q - p), 0);
        p = ('\0' != *q) ? q + 1 : q;
        if (rc == PMIX_SUCCESS && ',' == *q && '\0' == *p) {
            *why = "empty item in hostlist";
            rc = PMIX_ERR_BAD_PARAM;
        }
    }
    free(st);
    return rc;
}

void sy_read_skip(sy_read_skips_t *s, size_t lineno, const char *line)
{
    if (s->count++ == 0) {
        s->first_line = lineno;
        size_t n = 0;
        /* printable bytes only: the note goes to a log line */
        for (; line[n] != '\0' && n + 1 < sizeof(s->first); n++) {
            s->first[n] = isprint((unsigned char)line[n]) ? line[n] : '?';
        }
        s->first[n] = '\0';
    }
}

pmix_status_t sy_read_skips_note(const sy_read_skips_t *s, const char *what, sy_topo_t *t)
{
    if (s->count == 0) {
        return PMIX_SUCCESS;
    }
    char buf[256];
    snprintf(buf, sizeof(buf),
             "%s: %zu line%s that %s not %s topology passed over (first, line %zu: \"%s\")",
             t->source != NULL ? t->source : "<input>", s->count, s->count == 1 ? "" : "s",
             s->count == 1 ? "is" : "are", what, s->first_line, s->first);
    free(t->note);
    t->note = strdup(buf);
    return t->note != NULL ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

pmix_status_t sy_read_new_topo(const sy_topo_limits_t *lim, const char *name, const char *format,
                               sy_topo_t **out)
{
    sy_topo_t *t;
    pmix_status_t rc = sy_topo_new(&t);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (lim != NULL) {
        t->max_vertices = lim->max_vertices;
        t->max_edges = lim->max_edges;
    }
    if ((rc = sy_topo_set_source(t, name, format)) != PMIX_SUCCESS) {
        sy_topo_free(t);
        return rc;
    }
    *out = t;
    return PMIX_SUCCESS;
}

/* ---------------------------------------------------------- big buffers */

/* Every buffer starts with a header: how it was made (0 for malloc, else
 * the length of its mapping, which starts at the header) and its size. */
#define BIG_HEAD ((size_t)64)
#define BIG_MIN ((size_t)1 << 20)

void *sy_big_alloc(size_t bytes)
{
    if (bytes > SIZE_MAX / 2) {
        return NULL;
    }
    size_t need = bytes + BIG_HEAD;
    if (need < BIG_MIN) {
        char *p = malloc(need);
        if (p == NULL) {
            return NULL;
        }
        ((size_t *)p)[0] = 0;
        ((size_t *)p)[1] = bytes;
        return p + BIG_HEAD;
    }
    size_t keep = 0;
    char *a = sy_huge_map(need, &keep);
    if (a == NULL) {
        return NULL;
    }
    ((size_t *)a)[0] = keep;
    ((size_t *)a)[1] = keep - BIG_HEAD;
    return a + BIG_HEAD;
}

void sy_big_free(void *p)
{
    if (p == NULL) {
        return;
    }
    char *h = (char *)p - BIG_HEAD;
    size_t maplen = ((size_t *)h)[0];
    if (maplen == 0) {
        free(h);
    } else {
        munmap(h, maplen);
    }
}

void *sy_big_realloc(void *p, size_t bytes)
{
    if (p == NULL) {
        return sy_big_alloc(bytes);
    }
    char *h = (char *)p - BIG_HEAD;
    size_t maplen = ((size_t *)h)[0], old = ((size_t *)h)[1];
    if (maplen == 0 && bytes + BIG_HEAD < BIG_MIN) {
        char *n = realloc(h, bytes + BIG_HEAD);
        if (n != NULL) {
            ((size_t *)n)[1] = bytes;
        }
        return n != NULL ? n + BIG_HEAD : NULL;
    }
    if (maplen != 0 && bytes <= old) {
        return p;
    }
    char *n = sy_big_alloc(bytes);
    if (n != NULL) {
        memcpy(n, p, old < bytes ? old : bytes);
        sy_big_free(p);
    }
    return n;
}

pmix_status_t sy_read_stream(FILE *f, char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    size_t cap = 1 << 16, n = 0;
    /* a regular file says its size: one allocation, no copies (one byte
     * more, so that the end is seen without growing) */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size < SY_TOPO_MAX_FILE) {
        cap = (size_t)st.st_size + 1;
    }
    char *b = sy_big_alloc(cap);
    if (b == NULL) {
        return PMIX_ERR_NOMEM;
    }
    for (;;) {
        if (n == cap) {
            if (cap >= SY_TOPO_MAX_FILE) {
                sy_big_free(b);
                return PMIX_ERR_OUT_OF_RESOURCE;
            }
            char *nb = sy_big_realloc(b, cap * 2);
            if (nb == NULL) {
                sy_big_free(b);
                return PMIX_ERR_NOMEM;
            }
            b = nb;
            cap *= 2;
        }
        size_t got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                int saved = errno; /* free() may not keep it */
                sy_big_free(b);
                errno = saved;
                return PMIX_ERR_FILE_READ_FAILURE;
            }
            break;
        }
    }
    *buf = b;
    *len = n;
    return PMIX_SUCCESS;
}
