/* Formatting forwarded output as PMIx_IOF_pull's directives ask
 * (Chap_API_Tools.tex, "Forwarding stdout/stderr": the tool's library
 * formats the stream), and reading those directives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <pmix.h>

#include "common/info.h"
#include "client/client_iof.h"
#include "common/log.h"

void sy_bytes_add(sy_bytes_t *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        char *g = realloc(b->data, cap);
        if (g == NULL)
            return;
        b->data = g;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void sy_bytes_free(sy_bytes_t *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

static pmix_status_t flag(const pmix_info_t *i, bool *out)
{
    if (i->value.type == PMIX_UNDEF) {
        *out = true;
        return PMIX_SUCCESS;
    }
    if (i->value.type != PMIX_BOOL)
        return PMIX_ERR_BAD_PARAM;
    *out = i->value.data.flag;
    return PMIX_SUCCESS;
}

static pmix_status_t number(const pmix_info_t *i, size_t *out)
{
    switch (i->value.type) {
    case PMIX_UINT32: *out = i->value.data.uint32; return PMIX_SUCCESS;
    case PMIX_SIZE: *out = i->value.data.size; return PMIX_SUCCESS;
    case PMIX_UINT: *out = i->value.data.uint; return PMIX_SUCCESS;
    case PMIX_INT:
        if (i->value.data.integer < 0)
            return PMIX_ERR_BAD_PARAM;
        *out = (size_t)i->value.data.integer;
        return PMIX_SUCCESS;
    default: return PMIX_ERR_BAD_PARAM;
    }
}

pmix_status_t sy_iof_opts_parse(const pmix_info_t dirs[], size_t ndirs, bool push, sy_iof_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    const char *api = push ? "PMIx_IOF_push" : "PMIx_IOF_pull";
    for (size_t i = 0; dirs != NULL && i < ndirs; i++) {
        const pmix_info_t *d = &dirs[i];
        pmix_status_t rc = PMIX_SUCCESS;
        size_t num = 0;
        bool pull_only = false, push_only = false;
        if (sy_info_is(d, PMIX_IOF_BUFFERING_SIZE)) {
            rc = number(d, &o->bsize);
        } else if (sy_info_is(d, PMIX_IOF_BUFFERING_TIME)) {
            rc = number(d, &num);
            o->btime = (double)num;
        } else if (sy_info_is(d, PMIX_IOF_CACHE_SIZE)) {
            rc = number(d, &o->cache);
        } else if (sy_info_is(d, PMIX_IOF_DROP_OLDEST) || sy_info_is(d, PMIX_IOF_DROP_NEWEST)) {
            bool b;
            rc = flag(d, &b); /* for the server or the host */
        } else if (sy_info_is(d, PMIX_IOF_TAG_OUTPUT)) {
            rc = flag(d, &o->tag);
            pull_only = true;
        } else if (sy_info_is(d, PMIX_IOF_RANK_OUTPUT)) {
            rc = flag(d, &o->rank);
            pull_only = true;
        } else if (sy_info_is(d, PMIX_IOF_TIMESTAMP_OUTPUT)) {
            rc = flag(d, &o->timestamp);
            pull_only = true;
        } else if (sy_info_is(d, PMIX_IOF_XML_OUTPUT)) {
            rc = flag(d, &o->xml);
            pull_only = true;
        } else if (sy_info_is(d, PMIX_IOF_OUTPUT_RAW)) {
            rc = flag(d, &o->raw);
            pull_only = true;
        } else if (sy_info_is(d, PMIX_IOF_MERGE_STDERR_STDOUT)) {
            rc = flag(d, &o->merge);
            pull_only = true;
        } else if (sy_info_is(d, PMIX_IOF_REDIRECT) || sy_info_is(d, PMIX_IOF_COPY)) {
            bool b;
            rc = flag(d, &b); /* for the host */
            pull_only = true;
        } else if (sy_info_is(d, PMIX_IOF_PUSH_STDIN)) {
            rc = flag(d, &o->push_stdin);
            push_only = true;
        } else if (sy_info_is(d, PMIX_IOF_COMPLETE)) {
            rc = flag(d, &o->complete);
            push_only = true;
        } else if (strncmp(d->key, "pmix.iof.", 9) == 0) {
            /* PMIX_IOF_OUTPUT_TO_FILE/_DIRECTORY, FILE_PATTERN, FILE_ONLY,
             * LOCAL_OUTPUT, STOP and the OpenPMIx extra tags */
            sy_log(SY_LOG_WARN, "%s: %s is not supported", api, d->key);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        if (rc == PMIX_SUCCESS && ((pull_only && push) || (push_only && !push))) {
            sy_log(SY_LOG_WARN, "%s: %s does not apply here", api, d->key);
            return PMIX_ERR_NOT_SUPPORTED;
        }
        if (rc != PMIX_SUCCESS) {
            sy_log(SY_LOG_WARN, "%s: %s given as %s", api, d->key,
                   PMIx_Data_type_string(d->value.type));
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

bool sy_iof_opts_lines(const sy_iof_opts_t *o)
{
    return !o->raw && (o->tag || o->rank || o->timestamp || o->xml);
}

static const char *channel_name(pmix_iof_channel_t ch)
{
    return ch & PMIX_FWD_STDERR_CHANNEL    ? "stderr"
           : ch & PMIX_FWD_STDDIAG_CHANNEL ? "stddiag"
                                           : "stdout";
}

static void xml_escaped(sy_bytes_t *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *e = NULL;
        switch (s[i]) {
        case '&': e = "&amp;"; break;
        case '<': e = "&lt;"; break;
        case '>': e = "&gt;"; break;
        case '"': e = "&quot;"; break;
        default: break;
        }
        if (e != NULL)
            sy_bytes_add(out, e, strlen(e));
        else
            sy_bytes_add(out, &s[i], 1);
    }
}

/* One line (its newline excluded: nl tells whether it had one). */
static void one_line(const sy_iof_opts_t *o, const pmix_proc_t *src, pmix_iof_channel_t ch,
                     const char *line, size_t n, bool nl, sy_bytes_t *out)
{
    char pre[PMIX_MAX_NSLEN + 160];
    size_t pl = 0;
    char when[64] = "";
    if (o->timestamp) {
        struct timeval tv;
        struct tm tm;
        gettimeofday(&tv, NULL);
        localtime_r(&tv.tv_sec, &tm);
        size_t w = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(when + w, sizeof(when) - w, ".%06ld", (long)tv.tv_usec);
    }
    if (o->xml) {
        pl = (size_t)snprintf(pre, sizeof(pre), "<%s nspace=\"%s\" rank=\"%u\"%s%s%s>",
                              channel_name(ch), src->nspace, src->rank,
                              o->timestamp ? " timestamp=\"" : "", when, o->timestamp ? "\"" : "");
        sy_bytes_add(out, pre, pl);
        xml_escaped(out, line, n);
        pl = (size_t)snprintf(pre, sizeof(pre), "</%s>\n", channel_name(ch));
        sy_bytes_add(out, pre, pl);
        return;
    }
    if (o->timestamp)
        pl += (size_t)snprintf(pre + pl, sizeof(pre) - pl, "%s ", when);
    if (o->tag)
        pl += (size_t)snprintf(pre + pl, sizeof(pre) - pl, "[%s,%u]<%s>: ", src->nspace, src->rank,
                               channel_name(ch));
    else if (o->rank)
        pl += (size_t)snprintf(pre + pl, sizeof(pre) - pl, "[%u] ", src->rank);
    sy_bytes_add(out, pre, pl < sizeof(pre) ? pl : sizeof(pre) - 1);
    sy_bytes_add(out, line, n);
    sy_bytes_add(out, "\n", 1);
    (void)nl;
}

void sy_iof_format(const sy_iof_opts_t *o, const pmix_proc_t *src, pmix_iof_channel_t ch,
                   sy_bytes_t *partial, const char *data, size_t len, bool flush, sy_bytes_t *out)
{
    if (!sy_iof_opts_lines(o)) {
        if (len > 0)
            sy_bytes_add(out, data, len);
        return;
    }
    const char *s = data, *end = len > 0 ? data + len : data;
    while (len > 0 && s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        if (nl == NULL) {
            sy_bytes_add(partial, s, (size_t)(end - s));
            break;
        }
        if (partial->len > 0) {
            sy_bytes_add(partial, s, (size_t)(nl - s));
            one_line(o, src, ch, partial->data, partial->len, true, out);
            partial->len = 0;
        } else {
            one_line(o, src, ch, s, (size_t)(nl - s), true, out);
        }
        s = nl + 1;
    }
    if (flush && partial->len > 0) {
        one_line(o, src, ch, partial->data, partial->len, false, out);
        partial->len = 0;
    }
}
