/* Output buffer and lexing helpers for the node/process map code. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/regex.h"
#include "common/regex_internal.h"

void sy_rxbuf_init(sy_rxbuf_t *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
    b->failed = false;
}

bool sy_rxbuf_reserve(sy_rxbuf_t *b, size_t extra)
{
    if (b->failed) {
        return false;
    }
    /* +1 keeps room for the terminator added by sy_rxbuf_take. */
    if (extra > SIZE_MAX / 2 - b->len - 1) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap) {
        return true;
    }
    /* Doubling keeps appends amortised O(1) for 100k-entry maps. */
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need) {
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (p == NULL) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void sy_rxbuf_put(sy_rxbuf_t *b, const char *s, size_t n)
{
    if (n == 0 || !sy_rxbuf_reserve(b, n)) {
        return;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

void sy_rxbuf_putc(sy_rxbuf_t *b, char c)
{
    if (!sy_rxbuf_reserve(b, 1)) {
        return;
    }
    b->data[b->len++] = c;
}

void sy_rxbuf_putu(sy_rxbuf_t *b, uint64_t v, unsigned width)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    size_t pad = width > n ? width - n : 0;
    if (!sy_rxbuf_reserve(b, pad + n)) {
        return;
    }
    memset(b->data + b->len, '0', pad);
    b->len += pad;
    while (n > 0) {
        b->data[b->len++] = tmp[--n];
    }
}

char *sy_rxbuf_take(sy_rxbuf_t *b)
{
    char *out = NULL;
    if (sy_rxbuf_reserve(b, 0)) {
        b->data[b->len] = '\0';
        out = b->data;
    } else {
        free(b->data);
    }
    sy_rxbuf_init(b);
    return out;
}

void sy_rxbuf_free(sy_rxbuf_t *b)
{
    free(b->data);
    sy_rxbuf_init(b);
}

bool sy_rx_must_escape(unsigned char c)
{
    return c <= 0x20 || c >= 0x7f || c == '%' || c == '[' || c == ']' || c == ',' || c == '*';
}

unsigned sy_rx_digits(uint64_t v)
{
    unsigned n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

bool sy_rx_lex_uint(const char **p, const char *end, uint64_t max, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    size_t n = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        if (++n > SY_RX_MAX_DIGITS) {
            return false;
        }
        v = v * 10 + (uint64_t)(*s - '0');
        s++;
    }
    if (n == 0 || v > max) {
        return false;
    }
    *p = s;
    *out = v;
    return true;
}

bool sy_rx_lex_range(const char **p, const char *end, uint64_t max, uint64_t *a, uint64_t *b)
{
    const char *s = *p;
    if (!sy_rx_lex_uint(&s, end, max, a)) {
        return false;
    }
    *b = *a;
    if (s < end && *s == '-') {
        s++;
        if (!sy_rx_lex_uint(&s, end, max, b)) {
            return false;
        }
    }
    *p = s;
    return true;
}

const char *sy_regex_value_text(const pmix_value_t *v)
{
    if (v == NULL)
        return NULL;
    if (v->type == PMIX_STRING)
        return v->data.string;
    if (v->type == PMIX_REGEX && v->data.bo.bytes != NULL) {
        /* size 0: loaded as a plain char*; otherwise it must be text */
        if (v->data.bo.size == 0 || memchr(v->data.bo.bytes, '\0', v->data.bo.size) != NULL)
            return v->data.bo.bytes;
    }
    return NULL;
}
