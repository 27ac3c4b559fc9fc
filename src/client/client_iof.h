/* Forwarded I/O on the client/tool side, shared by client_iof.c (pull,
 * deregister, delivery), client_iof_fmt.c (output formatting) and
 * client_iof_push.c (stdin). */
#ifndef SWITCHYARD_CLIENT_IOF_H
#define SWITCHYARD_CLIENT_IOF_H

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

/* What a tool asked of its output (PMIx_IOF_pull) or stdin (PMIx_IOF_push). */
typedef struct {
    bool tag, rank, timestamp, xml, raw, merge;
    bool push_stdin, complete;
    size_t bsize; /* PMIX_IOF_BUFFERING_SIZE, 0 = none */
    double btime; /* PMIX_IOF_BUFFERING_TIME seconds, 0 = none */
    size_t cache; /* PMIX_IOF_CACHE_SIZE, 0 = not given */
} sy_iof_opts_t;

/* Read the directives of PMIx_IOF_pull (push false) or PMIx_IOF_push:
 * PMIX_ERR_NOT_SUPPORTED (logged) for an IOF attribute we do not honour
 * there, PMIX_ERR_BAD_PARAM for a wrong type. */
pmix_status_t sy_iof_opts_parse(const pmix_info_t dirs[], size_t ndirs, bool push,
                                sy_iof_opts_t *o);
/* Does the line formatting apply (keeps partial lines)? */
bool sy_iof_opts_lines(const sy_iof_opts_t *o);

/* A growable byte string. */
typedef struct {
    char *data;
    size_t len, cap;
} sy_bytes_t;
void sy_bytes_add(sy_bytes_t *b, const void *p, size_t n);
void sy_bytes_free(sy_bytes_t *b);

/* Format data of channel ch from src into out by o: complete lines are
 * formatted, an unterminated tail waits in *partial; flush formats it too
 * (end of stream, deregistration).  Without line options bytes pass as
 * they are. */
void sy_iof_format(const sy_iof_opts_t *o, const pmix_proc_t *src, pmix_iof_channel_t ch,
                   sy_bytes_t *partial, const char *data, size_t len, bool flush, sy_bytes_t *out);

/* client_iof_push.c: conn is gone (NULL: finalize): stdin forwarding
 * through it stops. */
void sy_client_iof_push_lost(void *conn);

#endif
