/* OpenPMIx's 4.2.x connect handshake, from a client or a tool: which
 * server the environment names, the connect message, what answers it (a
 * client's status and peer index; a tool's status, identity and the
 * server's) (docs/wire-protocol.md, "OpenPMIx protocol, client side"). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "common/buffer.h"
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

/* The connect message of a process of kind `flag` (a simple client, or a
 * tool that needs or was given an identity), header included.  A tool
 * sends its uid and gid (network order) before its identity, and after
 * the job-store name a packed list of infos (SIZE, then INFO). */
static pmix_status_t connect_msg(uint8_t flag, const pmix_proc_t *id, uint8_t **msg, size_t *len)
{
    bool tool = flag != SY_OPX_PEER_CLIENT;
    bool with_id = flag != SY_OPX_PEER_TOOL_NEEDS_ID;
    size_t nslen = with_id ? strnlen(id->nspace, PMIX_MAX_NSLEN) : 0;
    pmix_data_buffer_t extra = {0};
    if (tool) {
        /* what an OpenPMIx tool tells its server's host about itself */
        pmix_info_t pid;
        pid_t me = getpid();
        size_t one = 1;
        PMIX_INFO_LOAD(&pid, PMIX_PROC_PID, &me, PMIX_PID);
        pmix_status_t rc = sy_opx_pack(&extra, &one, 1, PMIX_SIZE);
        if (rc == PMIX_SUCCESS)
            rc = sy_opx_pack(&extra, &pid, 1, PMIX_INFO);
        PMIX_INFO_DESTRUCT(&pid);
        if (rc != PMIX_SUCCESS) {
            sy_buffer_destruct(&extra);
            return rc;
        }
    }
    size_t body = sizeof(SY_OPX_PSEC) + 4 + 8 /* the credential's length, the credential */ +
                  1 /* type */ + (tool ? 8 : 0) /* uid, gid */ +
                  (with_id ? nslen + 1 + 4 : 0) /* nspace, rank */ + sizeof(SY_OPX_VERSION) +
                  sizeof(SY_OPX_BFROPS) + 1 /* buffer type */ + sizeof(SY_OPX_GDS) +
                  extra.bytes_used;
    uint8_t *m = calloc(1, SY_FRAME_HEADER_SIZE + body);
    if (m == NULL) {
        sy_buffer_destruct(&extra);
        return PMIX_ERR_NOMEM;
    }
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
    uint32_t uid = (uint32_t)geteuid(), gid = (uint32_t)getegid();
    memcpy(m + off, &uid, 4);
    memcpy(m + off + 4, &gid, 4);
    off += 8;
    m[off++] = flag;
    if (tool) {
        put_be32(m + off, uid);
        put_be32(m + off + 4, gid);
        off += 8;
    }
    if (with_id) {
        memcpy(m + off, id->nspace, nslen);
        off += nslen + 1;
        put_be32(m + off, id->rank);
        off += 4;
    }
    put_str(m, &off, SY_OPX_VERSION);
    put_str(m, &off, SY_OPX_BFROPS);
    m[off++] = SY_OPX_BUFFER_NON_DESC;
    put_str(m, &off, SY_OPX_GDS);
    if (extra.bytes_used > 0)
        memcpy(m + off, extra.base_ptr, extra.bytes_used);
    off += extra.bytes_used;
    sy_buffer_destruct(&extra);
    *msg = m;
    *len = off;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_connect_msg(const pmix_proc_t *me, uint8_t **msg, size_t *len)
{
    return connect_msg(SY_OPX_PEER_CLIENT, me, msg, len);
}

static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/* Dial uri and send the connect message of `flag`; the socket in *fd. */
static pmix_status_t dial_and_send(const char *what, const char *uri, uint8_t flag,
                                   const pmix_proc_t *id, double deadline, int *fd)
{
    char host[256];
    int port = 0;
    *fd = -1;
    if (sy_rndz_parse_uri(uri, host, sizeof(host), &port) != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "%s: cannot parse the OpenPMIx server URI '%s'", what, uri);
        return PMIX_ERR_BAD_PARAM;
    }
    int s = -1;
    if (sy_tcp_connect(host, port, &s) != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "%s: cannot reach the OpenPMIx server at %s", what, uri);
        return PMIX_ERR_UNREACH;
    }
    uint8_t *msg = NULL;
    size_t len = 0;
    pmix_status_t rc = connect_msg(flag, id, &msg, &len);
    if (rc == PMIX_SUCCESS)
        rc = put(s, msg, len, deadline);
    free(msg);
    if (rc != PMIX_SUCCESS) {
        close(s);
        return rc == PMIX_ERR_TIMEOUT ? rc : PMIX_ERR_UNREACH;
    }
    *fd = s;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_tool_connect(const char *uri, const pmix_proc_t *me, double seconds, int *fd,
                                  pmix_proc_t *assigned, pmix_proc_t *server)
{
    static const char what[] = "PMIx_tool_init";
    bool need_id = me->nspace[0] == '\0';
    uint8_t flag = need_id ? SY_OPX_PEER_TOOL_NEEDS_ID : SY_OPX_PEER_TOOL_GIVEN_ID;
    double deadline = now() + seconds;
    int s = -1;
    pmix_status_t rc = dial_and_send(what, uri, flag, me, deadline, &s);
    if (rc != PMIX_SUCCESS)
        return rc;
    /* the host's answer; then, for a tool that asked for one, the identity
     * it gave us (a fixed-size nspace field and a rank); the server's own
     * identity the same way; last the status of the credential check */
    uint8_t word[4], ns[PMIX_MAX_NSLEN + 1];
    rc = get(s, word, 4, deadline);
    pmix_status_t status = rc == PMIX_SUCCESS ? (pmix_status_t)be32(word) : rc;
    if (status == PMIX_SUCCESS) {
        *assigned = *me;
        if (need_id && (rc = get(s, ns, sizeof(ns), deadline)) == PMIX_SUCCESS &&
            (rc = get(s, word, 4, deadline)) == PMIX_SUCCESS) {
            ns[PMIX_MAX_NSLEN] = '\0';
            PMIX_LOAD_PROCID(assigned, (const char *)ns, be32(word));
        }
        if (rc == PMIX_SUCCESS && (rc = get(s, ns, sizeof(ns), deadline)) == PMIX_SUCCESS &&
            (rc = get(s, word, 4, deadline)) == PMIX_SUCCESS) {
            ns[PMIX_MAX_NSLEN] = '\0';
            PMIX_LOAD_PROCID(server, (const char *)ns, be32(word));
        }
        if (rc == PMIX_SUCCESS && (rc = get(s, word, 4, deadline)) == PMIX_SUCCESS)
            status = (pmix_status_t)be32(word);
        else
            status = rc;
    }
    if (status != PMIX_SUCCESS) {
        /* PMIX_ERR_READY_FOR_HANDSHAKE asks for an interactive security
         * exchange (munge and the like): not one "native" ever asks for */
        sy_log(SY_LOG_WARN, "%s: the OpenPMIx server at %s %s: %s", what, uri,
               rc == PMIX_SUCCESS ? "refused us" : "did not complete our handshake",
               PMIx_Error_string(status));
        close(s);
        /* closed unanswered: refused the way an OpenPMIx tool must be (it
         * ignores a refusal's status), which the caller tells from nobody
         * listening (UNREACH) */
        return rc == PMIX_SUCCESS || rc == PMIX_ERR_TIMEOUT || rc == PMIX_ERR_LOST_CONNECTION
                   ? status
                   : PMIX_ERR_UNREACH;
    }
    if (assigned->nspace[0] == '\0') {
        sy_log(SY_LOG_WARN, "%s: the OpenPMIx server at %s gave us no identity", what, uri);
        close(s);
        return PMIX_ERR_UNREACH;
    }
    *fd = s;
    return PMIX_SUCCESS;
}

pmix_status_t sy_opx_connect(const char *uri, const pmix_proc_t *me, double seconds, int *fd,
                             int32_t *pindex)
{
    *fd = -1;
    double deadline = now() + seconds;
    int s = -1;
    pmix_status_t rc = dial_and_send("PMIx_Init", uri, SY_OPX_PEER_CLIENT, me, deadline, &s);
    if (rc != PMIX_SUCCESS)
        return rc;
    uint8_t word[4];
    rc = get(s, word, 4, deadline);
    if (rc != PMIX_SUCCESS) {
        sy_log(SY_LOG_WARN, "PMIx_Init: the OpenPMIx server at %s did not answer our handshake: %s",
               uri, PMIx_Error_string(rc));
        close(s);
        return rc == PMIX_ERR_TIMEOUT ? rc : PMIX_ERR_UNREACH;
    }
    pmix_status_t status = (pmix_status_t)be32(word);
    if (status != PMIX_SUCCESS) {
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
    *pindex = (int32_t)be32(word);
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
