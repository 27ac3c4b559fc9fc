/* Expansion of node and process maps (syntax in regex.h).
 *
 * Each parser walks its input twice with the same code: a counting pass
 * validates everything and totals entries and bytes against the
 * SY_REGEX_MAX_* limits, so that nothing is allocated for malformed or
 * oversized input; the filling pass then allocates exactly once per entry. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/regex.h"
#include "common/regex_internal.h"

typedef enum {
    FORM_PLAIN,    /* "raw:" or no prefix: the list itself */
    FORM_OURS,     /* "pmix:" */
    FORM_OPENPMIX, /* OpenPMIx "pmix[...]" */
} form_t;

/* What a walk produces: totals in the counting pass (argv == NULL), the
 * entries themselves in the filling pass.  `count` (names or ranks) and
 * `bytes` are checked against the limits; `slots` is the argv length. */
typedef struct {
    uint64_t count;
    uint64_t bytes;
    uint64_t slots;
    char **argv;
} sink_t;

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static pmix_status_t split_form(const char *regex, const char **body, size_t *n, form_t *form)
{
    size_t len = strlen(regex);
    if (starts_with(regex, SY_RX_PREFIX_OURS)) {
        *form = FORM_OURS;
        *body = regex + strlen(SY_RX_PREFIX_OURS);
        *n = len - strlen(SY_RX_PREFIX_OURS);
    } else if (starts_with(regex, SY_RX_PREFIX_OPENPMIX)) {
        size_t skip = strlen(SY_RX_PREFIX_OPENPMIX);
        if (len <= skip || regex[len - 1] != ']') {
            return PMIX_ERR_BAD_PARAM;
        }
        *form = FORM_OPENPMIX;
        *body = regex + skip;
        *n = len - skip - 1;
    } else if (starts_with(regex, SY_RX_PREFIX_RAW)) {
        *form = FORM_PLAIN;
        *body = regex + strlen(SY_RX_PREFIX_RAW);
        *n = len - strlen(SY_RX_PREFIX_RAW);
    } else if (starts_with(regex, SY_RX_PREFIX_BLOB)) {
        return PMIX_ERR_NOT_SUPPORTED;
    } else {
        *form = FORM_PLAIN;
        *body = regex;
        *n = len;
    }
    return PMIX_SUCCESS;
}

/* Account for `entries` more entries totalling `bytes` bytes; false once
 * either limit would be exceeded. */
static bool sink_reserve(sink_t *k, uint64_t entries, uint64_t bytes_each)
{
    if (entries > SY_REGEX_MAX_ENTRIES - k->count || bytes_each > SY_REGEX_MAX_BYTES) {
        return false;
    }
    uint64_t bytes = entries * bytes_each;
    if (bytes > SY_REGEX_MAX_BYTES - k->bytes) {
        return false;
    }
    k->count += entries;
    k->bytes += bytes;
    return true;
}

static void argv_free(char **argv)
{
    if (argv == NULL) {
        return;
    }
    for (size_t i = 0; argv[i] != NULL; i++) {
        free(argv[i]);
    }
    free(argv);
}

typedef pmix_status_t (*walk_fn)(const char *, size_t, form_t, sink_t *);

/* Run `walk` in counting mode, then allocate the argv and run it again to
 * fill it. */
static pmix_status_t two_pass(walk_fn walk, const char *body, size_t n, form_t form, char ***out)
{
    sink_t k = {0, 0, 0, NULL};
    pmix_status_t rc = walk(body, n, form, &k);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    char **argv = calloc((size_t)k.slots + 1, sizeof(char *));
    if (argv == NULL) {
        return PMIX_ERR_NOMEM;
    }
    uint64_t expected = k.slots;
    k = (sink_t){0, 0, 0, argv};
    rc = walk(body, n, form, &k);
    if (rc == PMIX_SUCCESS && k.slots != expected) {
        rc = PMIX_ERR_BAD_PARAM; /* cannot happen: both passes run the same code */
    }
    if (rc != PMIX_SUCCESS) {
        argv_free(argv);
        return rc;
    }
    *out = argv;
    return PMIX_SUCCESS;
}

/* ---------------------------------------------------------------- nodes */

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

/* Read name text up to '[', ']', ',' or the end into dst, decoding %XX
 * escapes in our own form. */
static pmix_status_t read_text(const char **p, const char *end, form_t form, sy_rxbuf_t *dst)
{
    const char *s = *p;
    dst->len = 0;
    while (s < end && *s != '[' && *s != ']' && *s != ',') {
        if (*s == '%' && FORM_OURS == form) {
            int hi = end - s > 2 ? hexval(s[1]) : -1;
            int lo = end - s > 2 ? hexval(s[2]) : -1;
            if (hi < 0 || lo < 0 || (hi | lo) == 0) {
                return PMIX_ERR_BAD_PARAM;
            }
            sy_rxbuf_putc(dst, (char)(hi * 16 + lo));
            s += 3;
        } else {
            sy_rxbuf_putc(dst, *s++);
        }
    }
    *p = s;
    return dst->failed ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

static char *make_name(const sy_rxbuf_t *pre, uint64_t v, unsigned width, const sy_rxbuf_t *suf)
{
    unsigned nd = sy_rx_digits(v);
    if (nd < width) {
        nd = width;
    }
    char *name = malloc(pre->len + nd + suf->len + 1);
    if (name == NULL) {
        return NULL;
    }
    if (pre->len > 0) {
        memcpy(name, pre->data, pre->len);
    }
    char *d = name + pre->len;
    for (unsigned i = nd; i > 0; i--) {
        d[i - 1] = (char)('0' + v % 10);
        v /= 10;
    }
    if (suf->len > 0) {
        memcpy(d + nd, suf->data, suf->len);
    }
    d[nd + suf->len] = '\0';
    return name;
}

static pmix_status_t add_literal(sink_t *k, const char *s, size_t n)
{
    if (n == 0) {
        return PMIX_ERR_BAD_PARAM; /* no empty node names */
    }
    uint64_t at = k->slots;
    if (!sink_reserve(k, 1, (uint64_t)n + 1)) {
        return PMIX_ERR_BAD_PARAM;
    }
    k->slots++;
    if (k->argv != NULL) {
        k->argv[at] = strndup(s, n);
        if (k->argv[at] == NULL) {
            return PMIX_ERR_NOMEM;
        }
    }
    return PMIX_SUCCESS;
}

static pmix_status_t walk_nodes(const char *body, size_t n, form_t form, sink_t *k)
{
    const char *p = body, *end = body + n;
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if (FORM_PLAIN == form) {
        for (;;) {
            const char *q = memchr(p, ',', (size_t)(end - p));
            const char *e = q ? q : end;
            pmix_status_t rc = add_literal(k, p, (size_t)(e - p));
            if (rc != PMIX_SUCCESS || q == NULL) {
                return rc;
            }
            p = q + 1;
        }
    }

    sy_rxbuf_t pre, suf;
    sy_rxbuf_init(&pre);
    sy_rxbuf_init(&suf);
    pmix_status_t rc = PMIX_SUCCESS;
    for (;;) {
        rc = read_text(&p, end, form, &pre);
        if (rc != PMIX_SUCCESS) {
            break;
        }
        if (p < end && *p == '[') {
            p++;
            unsigned width = 1;
            const char *q = p;
            uint64_t w;
            if (sy_rx_lex_uint(&q, end, SY_RX_MAX_WIDTH, &w) && q < end && *q == ':') {
                width = w > 0 ? (unsigned)w : 1;
                p = q + 1;
            } else if (FORM_OPENPMIX == form) {
                /* OpenPMIx always writes the width; without it "n[1]" is
                 * a name it failed to escape, not a range */
                rc = PMIX_ERR_BAD_PARAM;
                break;
            }
            const char *ranges = p;
            while (p < end && *p != ']') {
                p++;
            }
            if (p == end) {
                rc = PMIX_ERR_BAD_PARAM;
                break;
            }
            const char *rend = p++;
            rc = read_text(&p, end, form, &suf);
            if (rc != PMIX_SUCCESS) {
                break;
            }
            if (p < end && *p != ',') {
                rc = PMIX_ERR_BAD_PARAM;
                break;
            }
            /* now the ranges, whose names all have a known size */
            const char *r = ranges;
            do {
                uint64_t a, b;
                if (!sy_rx_lex_range(&r, rend, UINT64_MAX, &a, &b) ||
                    (r < rend && (*r != ',' || r + 1 == rend))) {
                    rc = PMIX_ERR_BAD_PARAM;
                    break;
                }
                if (r < rend) {
                    r++;
                }
                unsigned nd = sy_rx_digits(a > b ? a : b);
                uint64_t each = pre.len + suf.len + (nd > width ? nd : width) + 1;
                uint64_t at = k->slots;
                uint64_t len = sy_rx_range_len(a, b);
                if (!sink_reserve(k, len, each)) {
                    rc = PMIX_ERR_BAD_PARAM;
                    break;
                }
                k->slots += len;
                for (uint64_t i = 0; k->argv != NULL && i < len; i++) {
                    uint64_t v = a <= b ? a + i : a - i;
                    k->argv[at + i] = make_name(&pre, v, width, &suf);
                    if (k->argv[at + i] == NULL) {
                        rc = PMIX_ERR_NOMEM;
                        break;
                    }
                }
            } while (rc == PMIX_SUCCESS && r < rend);
            if (rc != PMIX_SUCCESS) {
                break;
            }
        } else if (p < end && *p == ']') {
            rc = PMIX_ERR_BAD_PARAM;
            break;
        } else {
            rc = add_literal(k, pre.data, pre.len);
            if (rc != PMIX_SUCCESS) {
                break;
            }
        }
        if (p == end) {
            break;
        }
        /* p is at a ',' that must be followed by another item */
        if (++p == end) {
            rc = PMIX_ERR_BAD_PARAM;
            break;
        }
    }
    sy_rxbuf_free(&pre);
    sy_rxbuf_free(&suf);
    return rc;
}

/* Either parser: the form prefix, then the body walked twice. */
static pmix_status_t parse_with(walk_fn walk, const char *regex, char ***out)
{
    if (regex == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    const char *body;
    size_t n;
    form_t form;
    pmix_status_t rc = split_form(regex, &body, &n, &form);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    return two_pass(walk, body, n, form, out);
}

pmix_status_t sy_regex_parse_nodes(const char *regex, char ***names_out)
{
    return parse_with(walk_nodes, regex, names_out);
}

/* ---------------------------------------------------------------- procs */

/* One node's field "r,r-r,...": appends "r,r,r" to line (when filling).
 * Ranks count against the entry limit; the node's string against bytes. */
static pmix_status_t walk_field(const char *p, const char *end, sink_t *k, sy_rxbuf_t *line)
{
    uint64_t room = SY_REGEX_MAX_BYTES - k->bytes; /* k->bytes never exceeds the limit */
    uint64_t bytes = 1;                            /* the terminator */
    if (bytes > room) {
        return PMIX_ERR_BAD_PARAM;
    }
    while (p < end) {
        uint64_t a, b;
        if (!sy_rx_lex_range(&p, end, PMIX_RANK_VALID - 1, &a, &b) ||
            (p < end && (*p != ',' || p + 1 == end))) {
            return PMIX_ERR_BAD_PARAM;
        }
        if (p < end) {
            p++;
        }
        uint64_t len = sy_rx_range_len(a, b);
        uint64_t each = sy_rx_digits(a > b ? a : b) + 1;
        if (len > SY_REGEX_MAX_ENTRIES - k->count || len * each > room - bytes) {
            return PMIX_ERR_BAD_PARAM;
        }
        k->count += len;
        bytes += len * each;
        for (uint64_t i = 0; line != NULL && i < len; i++) {
            if (line->len > 0) {
                sy_rxbuf_putc(line, ',');
            }
            sy_rxbuf_putu(line, a <= b ? a + i : a - i, 0);
        }
    }
    k->bytes += bytes;
    return line != NULL && line->failed ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

static pmix_status_t walk_procs(const char *body, size_t n, form_t form, sink_t *k)
{
    (void)form; /* the same grammar in every form */
    const char *p = body, *end = body + n;
    if (n == 0) {
        return PMIX_SUCCESS; /* a map of no nodes */
    }
    sy_rxbuf_t line;
    sy_rxbuf_init(&line);
    pmix_status_t rc = PMIX_SUCCESS;
    for (;;) {
        const char *q = memchr(p, ';', (size_t)(end - p));
        const char *e = q ? q : end;
        if (k->slots >= SY_REGEX_MAX_ENTRIES) {
            rc = PMIX_ERR_BAD_PARAM;
            break;
        }
        line.len = 0;
        rc = walk_field(p, e, k, k->argv != NULL ? &line : NULL);
        if (rc != PMIX_SUCCESS) {
            break;
        }
        if (k->argv != NULL) {
            k->argv[k->slots] = strndup(line.data != NULL ? line.data : "", line.len);
            if (k->argv[k->slots] == NULL) {
                rc = PMIX_ERR_NOMEM;
                break;
            }
        }
        k->slots++;
        if (q == NULL) {
            break;
        }
        p = q + 1;
    }
    sy_rxbuf_free(&line);
    return rc;
}

pmix_status_t sy_regex_parse_procs(const char *regex, char ***per_node_out)
{
    return parse_with(walk_procs, regex, per_node_out);
}

/* ------------------------------------------------------- procs as ranges */

pmix_status_t sy_regex_parse_proc_ranges(const char *regex, sy_rx_ranges_t *out)
{
    if (regex == NULL || out == NULL) {
        return PMIX_ERR_BAD_PARAM;
    }
    memset(out, 0, sizeof(*out));
    const char *body;
    size_t n;
    form_t form;
    pmix_status_t rc = split_form(regex, &body, &n, &form);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    /* the same grammar as walk_procs: one field per node, ';' between */
    size_t nnodes = n == 0 ? 0 : 1, nranges = 0;
    for (size_t i = 0; i < n; i++) {
        nnodes += body[i] == ';';
        nranges += body[i] == ',' || body[i] == ';';
    }
    nranges += 1;
    if (nnodes > SY_REGEX_MAX_ENTRIES) {
        return PMIX_ERR_BAD_PARAM;
    }
    out->starts = calloc(nnodes + 1, sizeof(*out->starts));
    out->ranges = malloc(nranges * sizeof(*out->ranges));
    if (out->starts == NULL || out->ranges == NULL) {
        sy_regex_ranges_free(out);
        return PMIX_ERR_NOMEM;
    }
    const char *p = body, *end = body + n;
    uint64_t total = 0;
    size_t node = 0, k = 0;
    while (node < nnodes) {
        const char *q = memchr(p, ';', (size_t)(end - p));
        const char *e = q != NULL ? q : end;
        out->starts[node] = k;
        while (p < e) {
            uint64_t a, b;
            if (!sy_rx_lex_range(&p, e, PMIX_RANK_VALID - 1, &a, &b) ||
                (p < e && (*p != ',' || p + 1 == e))) {
                sy_regex_ranges_free(out);
                return PMIX_ERR_BAD_PARAM;
            }
            if (p < e) {
                p++;
            }
            uint64_t len = sy_rx_range_len(a, b);
            if (len > SY_REGEX_MAX_ENTRIES - total) {
                sy_regex_ranges_free(out);
                return PMIX_ERR_BAD_PARAM;
            }
            total += len;
            out->ranges[k++] = (sy_rx_range_t){(uint32_t)(a <= b ? a : b), (uint32_t)len};
        }
        node++;
        p = q != NULL ? q + 1 : end;
    }
    out->starts[nnodes] = k;
    out->nnodes = nnodes;
    out->nranges = k;
    return PMIX_SUCCESS;
}

void sy_regex_ranges_free(sy_rx_ranges_t *r)
{
    if (r != NULL) {
        free(r->starts);
        free(r->ranges);
        memset(r, 0, sizeof(*r));
    }
}
