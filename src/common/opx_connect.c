/* OpenPMIx's 4.2.x connect handshake, the client's side: which server the
 * environment names, the connect message, the status and peer index that
 * answer it (docs/wire-protocol.md, "OpenPMIx protocol, client side"). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "common/frame.h"
#include "common/log.h"
#include "common/opx_bfrops.h"
#include "common/opx_client.h"
#include "common/rendezvous.h"
#include "common/usock.h"
#include "common/wire.h"

const char *sy_opx_server_uri(bool *old_only)
{
    *old_only = false;
    const char *uri = getenv(SY_ENV_URI);
    if (uri == NULL || *uri == '\0')
        uri = getenv("PMIX_SERVER_URI4");
    const char *mark = getenv(SY_ENV_SERVER);
    if (uri == NULL || *uri == '\0') {
        *old_only = mark == NULL &&
                    (getenv("PMIX_SERVER_URI3") != NULL || getenv("PMIX_SERVER_URI2") != NULL ||
                     getenv("PMIX_SERVER_URI21") != NULL);
        return NULL;
    }
    /* the mark names the URI it vouches for: one inherited from an outer
     * Switchyard job does not make an OpenPMIx launcher ours */
    if (mark != NULL && strcmp(mark, uri) == 0)
        return NULL;
    return uri;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pmix_status_t wait_fd(int fd, short events, double deadline)
{
    for (;;) {
        double left = deadline - now();
        if (left <= 0)
            return PMIX_ERR_TIMEOUT;
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, (int)(left * 1000) + 1);
        if (n > 0)
            return PMIX_SUCCESS;
        if (n < 0 && errno != EINTR)
            return PMIX_ERR_LOST_CONNECTION;
    }
}

static pmix_status_t put(int fd, const void *buf, size_t len, double deadline)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            p += w;
            len -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            pmix_status_t rc = wait_fd(fd, POLLOUT, deadline);
            if (rc != PMIX_SUCCESS)
                return rc;
        } else {
            return PMIX_ERR_LOST_CONNECTION;
        }
    }
    return PMIX_SUCCESS;
}

static pmix_status_t get(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = recv(fd, p, len, MSG_DONTWAIT);
        if (r > 0) {
            p += r;
            len -= (size_t)r;
        } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            pmix_status_t rc = wait_fd(fd, POLLIN, deadline);
            if (rc != PMIX_SUCCESS)
                return rc;
        } else {
            return PMIX_ERR_LOST_CONNECTION;
        }
    }
    return PMIX_SUCCESS;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_str(uint8_t *msg, size_t *off, const char *s)
{
    size_t n = strlen(s) + 1;
    memcpy(msg + *off, s, n);
    *off += n;
}

pmix_status_t sy_opx_connect_msg(const pmix_proc_t *me, uint8_t **msg, size_t *len)
{
    size_t nslen = strnlen(me->nspace, PMIX_MAX_NSLEN);
    size_t body = sizeof(SY_OPX_PSEC) + 4 + 8 /* the credential's length, the credential */ +
                  1 /* type */ + nslen + 1 + 4 /* rank */ + sizeof(SY_OPX_VERSION) +
                  sizeof(SY_OPX_BFROPS) + 1 /* buffer type */ + sizeof(SY_OPX_GDS);
    uint8_t *m = calloc(1, SY_FRAME_HEADER_SIZE + body);
    if (m == NULL)
        return PMIX_ERR_NOMEM;
    /* The wart: this one header is in host order (pindex -1, the wildcard
     * tag, the length), read by the server without conversion. */
    int32_t pindex = -1;
    uint32_t tag = UINT32_MAX, n = (uint32_t)body;
    memcpy(m, &pindex, 4);
    memcpy(m + 4, &tag, 4);
    memcpy(m + 8, &n, 4);
    size_t off = SY_FRAME_HEADER_SIZE;
    put_str(m, &off, SY_OPX_PSEC);
    /* "native" over TCP: the credential is our effective uid and gid, in
     * host order (the server then checks them against the job's) */
    put_be32(m + off, 8);
    off += 4;
    uint32_t id = (uint32_t)geteuid();
    memcpy(m + off, &id, 4);
    id = (uint32_t)getegid();
    memcpy(m + off + 4, &id, 4);
    off += 8;
    m[off++] = 0; /* a simple client, launched by the server */
    memcpy(m + off, me->nspace, nslen);
    off += nslen + 1;
    put_be32(m + off, me->rank);
    off += 4;
    put_str(m, &off, SY_OPX_VERSION);
    put_str(m, &off, SY_OPX_BFROPS);
    m[off++] = SY_OPX_BUFFER_NON_DESC;
    put_str(m, &off, SY_OPX_GDS);
    *msg = m;
    *len = off;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_connect(const char *uri, const pmix_proc_t *me, double seconds, int *fd,
                             int32_t *pindex)
{
    char host[256];
    int port = 0;
    *fd = -1;
    if (sy_rndz_parse_uri(uri, host, sizeof(host), &port) != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "PMIx_Init: cannot parse the OpenPMIx server URI '%s'", uri);
        return PMIX_ERR_BAD_PARAM;
    }
    int s = -1;
    if (sy_tcp_connect(host, port, &s) != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "PMIx_Init: cannot reach the OpenPMIx server at %s", uri);
        return PMIX_ERR_UNREACH;
    }
    double deadline = now() + seconds;
    uint8_t *msg = NULL;
    size_t len = 0;
    pmix_status_t rc = sy_opx_connect_msg(me, &msg, &len);
    if (rc == PMIX_SUCCESS)
        rc = put(s, msg, len, deadline);
    free(msg);
    uint8_t word[4];
    if (rc == PMIX_SUCCESS)
        rc = get(s, word, 4, deadline);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "PMIx_Init: the OpenPMIx server at %s did not answer our handshake: %s",
               uri, PMIx_Error_string(rc));
        close(s);
        return rc == PMIX_ERR_TIMEOUT ? rc : PMIX_ERR_UNREACH;
    }
    pmix_status_t status = (pmix_status_t)(((uint32_t)word[0] << 24) | ((uint32_t)word[1] << 16) |
                                           ((uint32_t)word[2] << 8) | (uint32_t)word[3]);
    if (status != PMIX_SUCCESS) {
        /* PMIX_ERR_READY_FOR_HANDSHAKE asks for an interactive security
         * exchange (munge and the like): not one "native" ever asks for */
        sy_log(SY_LOG_WARN, "PMIx_Init: the OpenPMIx server at %s refused us: %s", uri,
               PMIx_Error_string(status));
        close(s);
        return status;
    }
    rc = get(s, word, 4, deadline);
    if (rc != PMIX_SUCCESS) {
        close(s);
        return PMIX_ERR_UNREACH;
    }
    *pindex = (int32_t)(((uint32_t)word[0] << 24) | ((uint32_t)word[1] << 16) |
                        ((uint32_t)word[2] << 8) | (uint32_t)word[3]);
    *fd = s;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_exchange(int fd, int32_t pindex, uint32_t tag, const void *body, size_t len,
                              double seconds, size_t max_body, void **reply, size_t *reply_len)
{
    *reply = NULL;
    *reply_len = 0;
    if (len > UINT32_MAX)
        return PMIX_ERR_BAD_PARAM;
    double deadline = now() + seconds;
    uint8_t hdr[SY_FRAME_HEADER_SIZE];
    sy_frame_opx_header_encode(hdr, pindex, tag, (uint32_t)len);
    pmix_status_t rc = put(fd, hdr, sizeof(hdr), deadline);
    if (rc == PMIX_SUCCESS && len > 0)
        rc = put(fd, body, len, deadline);
    while (rc == PMIX_SUCCESS) {
        rc = get(fd, hdr, sizeof(hdr), deadline);
        if (rc != PMIX_SUCCESS)
            break;
        int32_t pi;
        uint32_t rtag, rlen;
        sy_frame_opx_header_decode(hdr, &pi, &rtag, &rlen);
        if (rlen > max_body) {
            sy_log(SY_LOG_WARN, "OpenPMIx server: a frame of %u bytes exceeds the limit of %zu",
                   rlen, max_body);
            return PMIX_ERR_UNPACK_FAILURE;
        }
        char *buf = rlen > 0 ? malloc(rlen) : NULL;
        if (rlen > 0 && buf == NULL)
            return PMIX_ERR_NOMEM;
        rc = get(fd, buf, rlen, deadline);
        if (rc == PMIX_SUCCESS && rtag == tag) {
            *reply = buf;
            *reply_len = rlen;
            return PMIX_SUCCESS;
        }
        if (rc == PMIX_SUCCESS)
            sy_log(SY_LOG_INFO,
                   "OpenPMIx server: a message of tag %u before our init completed, dropped", rtag);
        free(buf);
    }
    return rc;
}
