/* Helpers shared by the node/process map generator (regex.c) and parsers
 * (regex_parse.c); see regex.h for the syntax. */
#ifndef SWITCHYARD_COMMON_REGEX_INTERNAL_H
#define SWITCHYARD_COMMON_REGEX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Digit runs longer than this never take part in ranges, so every value
 * fits in a uint64_t and the decimal formatting stays trivial. */
#define SY_RX_MAX_DIGITS 18
/* Largest zero-padding width a parsed node item may request. */
#define SY_RX_MAX_WIDTH 64

#define SY_RX_PREFIX_OURS "pmix:"
#define SY_RX_PREFIX_RAW "raw:"
#define SY_RX_PREFIX_OPENPMIX "pmix["
#define SY_RX_PREFIX_BLOB "blob:"

/* Growable output buffer.  An allocation failure latches `failed` and turns
 * later writes into no-ops, so callers check once at the end. */
typedef struct {
    char *data;
    size_t len;
    size_t cap;
    bool failed;
} sy_rxbuf_t;

void sy_rxbuf_init(sy_rxbuf_t *b);
bool sy_rxbuf_reserve(sy_rxbuf_t *b, size_t extra);
void sy_rxbuf_put(sy_rxbuf_t *b, const char *s, size_t n);
void sy_rxbuf_putc(sy_rxbuf_t *b, char c);
/* Decimal, left-padded with zeros to at least `width` digits. */
void sy_rxbuf_putu(sy_rxbuf_t *b, uint64_t v, unsigned width);
/* NUL-terminate and hand over the storage (NULL if any write failed);
 * the buffer is left empty either way. */
char *sy_rxbuf_take(sy_rxbuf_t *b);
void sy_rxbuf_free(sy_rxbuf_t *b);

/* Bytes that node names must carry as %XX inside a "pmix:" node map. */
bool sy_rx_must_escape(unsigned char c);

/* Number of decimal digits of v (1 for 0). */
unsigned sy_rx_digits(uint64_t v);

/* Read 1..SY_RX_MAX_DIGITS decimal digits at *p (< end) with value <= max;
 * advances *p on success. */
bool sy_rx_lex_uint(const char **p, const char *end, uint64_t max, uint64_t *out);

/* Read "a" or "a-b" (each <= max) at *p; a single value gives b == a. */
bool sy_rx_lex_range(const char **p, const char *end, uint64_t max, uint64_t *a, uint64_t *b);

/* Number of values from a to b inclusive, counting down when b < a. */
static inline uint64_t sy_rx_range_len(uint64_t a, uint64_t b)
{
    return (a <= b ? b - a : a - b) + 1;
}

#endif
