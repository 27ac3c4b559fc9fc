/* PMIx_generate_regex / PMIx_generate_ppn: compress node and process maps
 * into the "pmix:" syntax of regex.h, or "raw:" when that is not shorter.
 *
 * Both generators stream over the input once, so 100k-node maps cost
 * linear time and only the output buffer is allocated. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "common/regex.h"
#include "common/regex_internal.h"

typedef struct {
    const char *s;
    size_t n;
} span_t;

/* A run of consecutive values being accumulated into "a-b" form. */
typedef struct {
    bool open;
    uint64_t first;
    uint64_t last;
    int dir; /* +1 counting up, -1 counting down, 0 single value so far */
} run_t;

/* Items prefix[W:ranges]suffix are built while names keep matching. */
typedef struct {
    bool active;
    span_t first; /* written as a literal if no other name joins */
    span_t pre;
    span_t suf;
    unsigned wlo;
    unsigned whi;
    uint64_t count;
    run_t run;
    sy_rxbuf_t ranges;
} group_t;

static void put_escaped(sy_rxbuf_t *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (sy_rx_must_escape(c)) {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            sy_rxbuf_put(b, e, 3);
        } else {
            sy_rxbuf_putc(b, (char)c);
        }
    }
}

static void run_flush(run_t *r, sy_rxbuf_t *out)
{
    if (!r->open) {
        return;
    }
    if (out->len > 0) {
        sy_rxbuf_putc(out, ',');
    }
    sy_rxbuf_putu(out, r->first, 0);
    if (r->last != r->first) {
        sy_rxbuf_putc(out, '-');
        sy_rxbuf_putu(out, r->last, 0);
    }
    r->open = false;
}

/* Append the values a..b (b < a counts down) to the run, extending it when
 * they continue it in the same direction. */
static void run_add(run_t *r, uint64_t a, uint64_t b, sy_rxbuf_t *out)
{
    int dir = a < b ? 1 : (a > b ? -1 : 0);
    if (r->open) {
        if (dir >= 0 && r->dir >= 0 && a == r->last + 1) {
            r->last = b;
            r->dir = 1;
            return;
        }
        if (dir <= 0 && r->dir <= 0 && r->last > 0 && a == r->last - 1) {
            r->last = b;
            r->dir = -1;
            return;
        }
        run_flush(r, out);
    }
    r->open = true;
    r->first = a;
    r->last = b;
    r->dir = dir;
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0 || n > SY_RX_MAX_DIGITS) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
    }
    return true;
}

/* Narrow [*lo, *hi] to the pad widths W for which printing the value of
 * the digit string d with at least W digits gives d back. */
static bool width_fits(const char *d, size_t n, unsigned *lo, unsigned *hi)
{
    if (n > 1 && d[0] == '0') {
        if (*lo > n || *hi < n) {
            return false;
        }
        *lo = *hi = (unsigned)n;
        return true;
    }
    if (*lo > n) {
        return false;
    }
    if (*hi > n) {
        *hi = (unsigned)n;
    }
    return true;
}

static uint64_t digits_value(const char *d, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        v = v * 10 + (uint64_t)(d[i] - '0');
    }
    return v;
}

static void group_add(group_t *g, const char *d, size_t n)
{
    uint64_t v = digits_value(d, n);
    run_add(&g->run, v, v, &g->ranges);
    g->count++;
}

/* Does name t continue group g (same prefix and suffix, digits between
 * them compatible with the pad width so far)?  If so, add it. */
static bool group_take(group_t *g, span_t t)
{
    if (!g->active || t.n <= g->pre.n + g->suf.n) {
        return false;
    }
    if (memcmp(t.s, g->pre.s, g->pre.n) != 0 ||
        memcmp(t.s + t.n - g->suf.n, g->suf.s, g->suf.n) != 0) {
        return false;
    }
    const char *d = t.s + g->pre.n;
    size_t n = t.n - g->pre.n - g->suf.n;
    unsigned lo = g->wlo, hi = g->whi;
    if (!all_digits(d, n) || !width_fits(d, n, &lo, &hi)) {
        return false;
    }
    g->wlo = lo;
    g->whi = hi;
    group_add(g, d, n);
    return true;
}

static void put_item_sep(sy_rxbuf_t *out)
{
    if (out->len > strlen(SY_RX_PREFIX_OURS)) {
        sy_rxbuf_putc(out, ',');
    }
}

static void group_close(group_t *g, sy_rxbuf_t *out)
{
    if (!g->active) {
        return;
    }
    put_item_sep(out);
    if (g->count == 1) {
        put_escaped(out, g->first.s, g->first.n);
    } else {
        run_flush(&g->run, &g->ranges);
        put_escaped(out, g->pre.s, g->pre.n);
        sy_rxbuf_putc(out, '[');
        if (g->wlo > 1) {
            sy_rxbuf_putu(out, g->wlo, 0);
            sy_rxbuf_putc(out, ':');
        }
        sy_rxbuf_put(out, g->ranges.data, g->ranges.len);
        sy_rxbuf_putc(out, ']');
        put_escaped(out, g->suf.s, g->suf.n);
    }
    g->active = false;
}

/* Find the digit run of name t that lets the following name u join a
 * group with t (the last such run: "10.0.0.1" varies at the end) and open
 * that group.  Only runs whose suffix lies within the common suffix of t
 * and u are tried, and each try looks at digits only, so this is linear. */
static bool group_open(group_t *g, span_t t, span_t u)
{
    size_t lcp = 0, lcs = 0;
    size_t m = t.n < u.n ? t.n : u.n;
    while (lcp < m && t.s[lcp] == u.s[lcp]) {
        lcp++;
    }
    while (lcs < m && t.s[t.n - 1 - lcs] == u.s[u.n - 1 - lcs]) {
        lcs++;
    }
    size_t e = t.n;
    while (e > 0) {
        while (e > 0 && (t.s[e - 1] < '0' || t.s[e - 1] > '9')) {
            e--;
        }
        if (e == 0 || t.n - e > lcs) {
            return false;
        }
        size_t s = e;
        while (s > 0 && t.s[s - 1] >= '0' && t.s[s - 1] <= '9') {
            s--;
        }
        size_t tail = t.n - e;
        if (s <= lcp && u.n > s + tail) {
            const char *ud = u.s + s;
            size_t un = u.n - s - tail;
            unsigned lo = 1, hi = SY_RX_MAX_DIGITS;
            if (all_digits(t.s + s, e - s) && all_digits(ud, un) &&
                width_fits(t.s + s, e - s, &lo, &hi) && width_fits(ud, un, &lo, &hi)) {
                g->active = true;
                g->first = t;
                g->pre.s = t.s;
                g->pre.n = s;
                g->suf.s = t.s + e;
                g->suf.n = tail;
                g->wlo = 1;
                g->whi = SY_RX_MAX_DIGITS;
                width_fits(t.s + s, e - s, &g->wlo, &g->whi);
                g->count = 0;
                g->run.open = false;
                g->ranges.len = 0;
                group_add(g, t.s + s, e - s);
                return true;
            }
        }
        e = s;
    }
    return false;
}

static span_t next_field(const char *p, const char *end, char sep)
{
    span_t f = {p, 0};
    const char *q = memchr(p, sep, (size_t)(end - p));
    f.n = (size_t)((q ? q : end) - p);
    return f;
}

/* "raw:" output must stay printable and '*'-free, like everything else. */
static bool raw_allowed(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f || c == '*') {
            return false;
        }
    }
    return true;
}

/* Return whichever of "raw:<input>" and the compressed form is shorter
 * (raw on a tie: every PMIx library reads it). */
static pmix_status_t finish(sy_rxbuf_t *packed, const char *input, size_t n, bool raw_ok,
                            char **result)
{
    if (packed->failed) {
        sy_rxbuf_free(packed);
        return PMIX_ERR_NOMEM;
    }
    if (raw_ok && strlen(SY_RX_PREFIX_RAW) + n <= packed->len) {
        sy_rxbuf_free(packed);
        sy_rxbuf_put(packed, SY_RX_PREFIX_RAW, strlen(SY_RX_PREFIX_RAW));
        sy_rxbuf_put(packed, input, n);
    }
    *result = sy_rxbuf_take(packed);
    return *result == NULL ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_generate_regex(const char *input, char **regex)
{
    if (input == NULL || regex == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    size_t len = strlen(input);
    const char *end = input + len;
    sy_rxbuf_t out;
    sy_rxbuf_init(&out);
    sy_rxbuf_put(&out, SY_RX_PREFIX_OURS, strlen(SY_RX_PREFIX_OURS));
    group_t g;
    memset(&g, 0, sizeof(g));
    sy_rxbuf_init(&g.ranges);

    pmix_status_t rc = PMIX_SUCCESS;
    uint64_t count = 0;
    if (len > 0) {
        span_t t = next_field(input, end, ',');
        for (;;) {
            const char *after = t.s + t.n;
            span_t u = {NULL, 0};
            if (after < end) {
                u = next_field(after + 1, end, ',');
            }
            if (t.n == 0 || ++count > SY_REGEX_MAX_ENTRIES) {
                rc = PMIX_ERR_BAD_PARAM;
                break;
            }
            if (!group_take(&g, t)) {
                group_close(&g, &out);
                if (u.s == NULL || !group_open(&g, t, u)) {
                    put_item_sep(&out);
                    put_escaped(&out, t.s, t.n);
                }
            }
            if (u.s == NULL) {
                break;
            }
            t = u;
        }
        group_close(&g, &out);
    }
    bool ranges_failed = g.ranges.failed;
    sy_rxbuf_free(&g.ranges);
    if (rc != PMIX_SUCCESS) {
        sy_rxbuf_free(&out);
        return rc;
    }
    if (ranges_failed) {
        out.failed = true;
    }
    return finish(&out, input, len, raw_allowed(input, len), regex);
}

/* Compress one node's "r,r-r,..." field, appending it to out. */
static pmix_status_t ppn_field(span_t f, sy_rxbuf_t *out, sy_rxbuf_t *tmp, uint64_t *total)
{
    const char *p = f.s, *end = f.s + f.n;
    run_t run = {0};
    tmp->len = 0;
    while (p < end) {
        uint64_t a, b;
        if (!sy_rx_lex_range(&p, end, PMIX_RANK_VALID - 1, &a, &b)) {
            return PMIX_ERR_BAD_PARAM;
        }
        *total += sy_rx_range_len(a, b);
        if (*total > SY_REGEX_MAX_ENTRIES) {
            return PMIX_ERR_BAD_PARAM;
        }
        run_add(&run, a, b, tmp);
        if (p < end) {
            /* a separator must be followed by another range */
            if (*p != ',' || p + 1 == end) {
                return PMIX_ERR_BAD_PARAM;
            }
            p++;
        }
    }
    run_flush(&run, tmp);
    sy_rxbuf_put(out, tmp->data, tmp->len);
    return PMIX_SUCCESS;
}

PMIX_EXPORT pmix_status_t PMIx_generate_ppn(const char *input, char **ppn)
{
    if (input == NULL || ppn == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    size_t len = strlen(input);
    const char *end = input + len;
    sy_rxbuf_t out, tmp;
    sy_rxbuf_init(&out);
    sy_rxbuf_init(&tmp);
    sy_rxbuf_put(&out, SY_RX_PREFIX_OURS, strlen(SY_RX_PREFIX_OURS));

    pmix_status_t rc = PMIX_SUCCESS;
    uint64_t total = 0;
    if (len > 0) {
        const char *p = input;
        for (;;) {
            span_t f = next_field(p, end, ';');
            rc = ppn_field(f, &out, &tmp, &total);
            if (rc != PMIX_SUCCESS || f.s + f.n == end) {
                break;
            }
            sy_rxbuf_putc(&out, ';');
            p = f.s + f.n + 1;
        }
    }
    if (tmp.failed) {
        out.failed = true;
    }
    sy_rxbuf_free(&tmp);
    if (rc != PMIX_SUCCESS) {
        sy_rxbuf_free(&out);
        return rc;
    }
    return finish(&out, input, len, true, ppn);
}
