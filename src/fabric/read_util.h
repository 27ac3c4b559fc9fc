/* Helpers shared by the topology readers: bounded line iteration over a
 * memory buffer, error messages, numbers, speeds and Slurm hostlists. */
#ifndef SWITCHYARD_FABRIC_READ_UTIL_H
#define SWITCHYARD_FABRIC_READ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fabric/topo.h"

/* Longest logical line accepted (continuations included). */
#define SY_READ_MAX_LINE (16u * 1024u * 1024u)

typedef struct {
    const char *buf;
    size_t len, pos;
    size_t lineno; /* number of the first physical line of `line` */
    size_t next_lineno;
    char *line; /* NUL-terminated copy, '\r' and '\n' removed */
    size_t line_len, cap;
    bool continuation; /* a trailing backslash joins the next line */
    const char *name;  /* for messages */
    size_t line_off;   /* offset of the line's first byte in buf */
    size_t nul_at;     /* offset of the first NUL byte in buf, or len */
} sy_lines_t;

void sy_lines_init(sy_lines_t *it, const char *buf, size_t len, const char *name,
                   bool continuation);
void sy_lines_done(sy_lines_t *it);
/* 1: a line is in it->line; 0: end of input; <0: error (message set). */
int sy_lines_next(sy_lines_t *it, char **errmsg);

/* Hand every logical line of buf to fn, stopping at the first status
 * other than PMIX_SUCCESS, which is returned; PMIX_ERR_BAD_PARAM (message
 * set) when a line cannot be read. */
typedef pmix_status_t (*sy_line_fn)(void *ctx, char *line, size_t lineno);
pmix_status_t sy_read_each_line(const char *buf, size_t len, const char *name, bool continuation,
                                sy_line_fn fn, void *ctx, char **errmsg);

/* Set *errmsg (if non-NULL and still unset) to "NAME:LINE: <fmt>", or
 * "NAME: <fmt>" for line 0.  Returns PMIX_ERR_BAD_PARAM for convenience. */
pmix_status_t sy_read_error(char **errmsg, const char *name, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Whitespace tokenizer over a mutable line: returns the next token
 * (NUL-terminated in place) or NULL; a '#' at token start ends the line. */
char *sy_next_token(char **cursor);

/* Unsigned decimal (or 0x-hex when hex_ok) with overflow check; the whole
 * string must be consumed. */
bool sy_parse_u64(const char *s, bool hex_ok, uint64_t *out);
/* Link speed: a decimal number (fraction allowed) with an optional
 * K/M/G/T multiplier (powers of 1000) and an optional "b/s", "bps" or
 * "bit/s" suffix: "100G", "12.5Gb/s", "25000000000". */
bool sy_parse_speed(const char *s, uint64_t *out);

/* Expand one Slurm hostlist expression ("tux[0-3,12],sw5,n[01-04]x[1-2]")
 * calling emit for every name in order.  *budget is decremented per name;
 * expansion fails once it would go below 0.  Returns PMIX_SUCCESS, the
 * status emit returned, or PMIX_ERR_BAD_PARAM with *why set to a static
 * description. */
typedef pmix_status_t (*sy_hostlist_emit_fn)(void *ctx, const char *name);
pmix_status_t sy_hostlist_expand(const char *expr, uint64_t *budget, sy_hostlist_emit_fn emit,
                                 void *ctx, const char **why);

/* Big scratch buffers (a capture, its cable list): above 1 MiB an
 * anonymous mapping aligned to 2 MiB and advised for transparent huge
 * pages, so that filling it costs a few faults instead of one per 4 KiB
 * page (page faults dominate a reader's time on a virtual machine), and
 * pages never touched cost nothing; below, plain malloc.  Free only with
 * sy_big_free; sy_big_realloc keeps the first min(old, new) bytes. */
void *sy_big_alloc(size_t bytes);
void *sy_big_realloc(void *p, size_t bytes);
void sy_big_free(void *p);

/* Read f to its end into a buffer of sy_big_alloc (free it with
 * sy_big_free), in growing chunks rather than trusting the size: pipes
 * and /proc files report none.  Returns PMIX_ERR_NOMEM,
 * PMIX_ERR_OUT_OF_RESOURCE once SY_TOPO_MAX_FILE bytes were read and more
 * may follow, or PMIX_ERR_FILE_READ_FAILURE (errno from the read left as
 * it was); *buf is NULL on failure.  f stays open. */
pmix_status_t sy_read_stream(FILE *f, char **buf, size_t *len);

/* Lines a reader passed over because they are not topology (what the
 * tools print besides it: "DR path ..." debug lines, warnings, listings):
 * counted, the first one kept for the note. */
typedef struct {
    size_t count, first_line;
    char first[64];
} sy_read_skips_t;
void sy_read_skip(sy_read_skips_t *s, size_t lineno, const char *line);
/* t->note from the skips (nothing when none); what names the reader. */
pmix_status_t sy_read_skips_note(const sy_read_skips_t *s, const char *what, sy_topo_t *t);

/* Create the topology a reader fills, with the limits applied. */
pmix_status_t sy_read_new_topo(const sy_topo_limits_t *lim, const char *name, const char *format,
                               sy_topo_t **out);

#endif
